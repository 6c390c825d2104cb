//! The wire and the domain: a request's settings checked and read once, into the domain's
//! types; tournaments, boards and corrections written back as the protos say them.

use hanniball_ids::{PlayerId, TimeControl};
use hanniball_pairing::Colour;
use hanniball_pairing::tiebreak::{Cut, Options, Rules, TieBreak, Unrated};
use hanniball_proto::scheduler::v1 as pb;
use hanniball_rules::GameKind;
use hanniball_svc_kit::limits;
use tonic::Status;

use crate::core::{now, time_control};
use crate::details::Details;
use crate::domain::{
    Board, BoardKind, Correction, System, Tournament, TournamentStatus, rules_in_force,
};
use crate::error::{ServiceError, ServiceResult};
use crate::model::Loaded;

/// A new tournament from its settings, every setting checked (`CreateTournament`,
/// `ImportTournament`).
pub(super) fn settings_row(s: &pb::TournamentSettings) -> Result<Tournament, Status> {
    limits::text("settings.name", &s.name, limits::TEXT)?;
    limits::text("settings.kind", &s.kind, limits::NAME)?;
    limits::text("settings.ruleset", &s.ruleset, limits::NAME)?;
    limits::list("settings.tiebreaks", s.tiebreaks.len(), 16)?;
    for t in &s.tiebreaks {
        limits::text("settings.tiebreaks", t, limits::NAME)?;
    }
    let (kind, ruleset) = game_kind(&s.kind, &s.ruleset)?;
    check_time_control(s.time_control.as_ref())?;
    let system = system_name(s.system());
    if system == System::Swiss && !(1..=99).contains(&s.rounds) {
        return Err(ServiceError::InvalidArgument(format!(
            "a Swiss tournament needs 1 to 99 rounds, got {}",
            s.rounds
        ))
        .into());
    }
    let bye_points = if s.bye_points_set || s.bye_points != 0 {
        s.bye_points
    } else {
        2
    };
    if bye_points > 2 {
        return Err(ServiceError::InvalidArgument(format!(
            "bye points are half-points: 0, 1 or 2, got {bye_points}"
        ))
        .into());
    }
    let tiebreaks: Vec<TieBreak> = if s.tiebreaks.is_empty() {
        if system == System::Swiss {
            vec![
                TieBreak::Buchholz(Cut::C1),
                TieBreak::Buchholz(Cut::NONE),
                TieBreak::SonnebornBerger(Cut::NONE),
            ]
        } else {
            vec![
                TieBreak::SonnebornBerger(Cut::NONE),
                TieBreak::DirectEncounter,
                TieBreak::Wins,
            ]
        }
    } else {
        s.tiebreaks
            .iter()
            .map(|name| {
                name.parse()
                    .map_err(|e: hanniball_pairing::tiebreak::UnknownTieBreak| {
                        ServiceError::InvalidArgument(e.to_string())
                    })
            })
            .collect::<ServiceResult<_>>()?
    };
    let created_at = now();
    let tiebreak_rules = if s.tiebreak_rules.trim().is_empty() {
        rules_in_force(created_at)
    } else {
        s.tiebreak_rules
            .parse::<Rules>()
            .map_err(|e| ServiceError::InvalidArgument(e.to_string()))?
    };
    let tiebreak_unrated = if s.tiebreak_unrated.trim().is_empty() {
        Unrated::Drop
    } else {
        s.tiebreak_unrated
            .parse::<Unrated>()
            .map_err(|e| ServiceError::InvalidArgument(e.to_string()))?
    };
    // One rule for every name: no line breaks (a TRF line), nothing invisible or
    // direction-changing, at most 100 characters.
    let name = hanniball_names::tournament_name(&s.name)
        .map_err(|e| ServiceError::InvalidArgument(e.to_string()))?;
    if s.late_self_entry && system != System::Swiss {
        return Err(ServiceError::InvalidArgument(
            "late_self_entry is for Swiss tournaments: a round robin takes no late entries"
                .to_owned(),
        )
        .into());
    }
    let row = Tournament {
        id: 0,
        name,
        kind,
        ruleset,
        system,
        rounds: s.rounds,
        time_control: time_control_of(s.time_control),
        max_turns: s.max_turns,
        rated: s.rated,
        bye_points,
        tiebreaks,
        tiebreak_options: Options {
            rules: tiebreak_rules,
            unrated: tiebreak_unrated,
        },
        initial_colour: if s.top_seed_black {
            Colour::Black
        } else {
            Colour::White
        },
        forfeit_withdraws: s.forfeit_withdraws,
        auto_pair: !s.manual_pairing,
        self_entry: s.self_entry || s.late_self_entry,
        late_self_entry: s.late_self_entry,
        status: TournamentStatus::Registration,
        current_round: 0,
        created_at,
        over_the_board: s.over_the_board,
        details: Details::check(&s.details.clone().unwrap_or_default())?,
    };
    Ok(row)
}

/// A time control as the wire sent it.
pub(super) fn time_control_of(
    tc: Option<hanniball_proto::arbiter::v1::TimeControl>,
) -> Option<TimeControl> {
    tc.map(|tc| TimeControl {
        initial_ms: tc.initial_ms,
        increment_ms: tc.increment_ms,
    })
}

pub(super) fn system_name(system: pb::PairingSystem) -> System {
    match system {
        pb::PairingSystem::RoundRobin => System::RoundRobin,
        pb::PairingSystem::DoubleRoundRobin => System::DoubleRoundRobin,
        pb::PairingSystem::SwissDutch | pb::PairingSystem::Unspecified => System::Swiss,
    }
}

pub(super) fn system_of(system: System) -> pb::PairingSystem {
    match system {
        System::RoundRobin => pb::PairingSystem::RoundRobin,
        System::DoubleRoundRobin => pb::PairingSystem::DoubleRoundRobin,
        System::Swiss => pb::PairingSystem::SwissDutch,
    }
}

pub(super) fn status_of(status: TournamentStatus) -> pb::TournamentStatus {
    match status {
        TournamentStatus::Registration => pb::TournamentStatus::Registration,
        TournamentStatus::Running => pb::TournamentStatus::Running,
        TournamentStatus::Finished => pb::TournamentStatus::Finished,
    }
}

pub(super) const fn kind_of(kind: BoardKind) -> pb::BoardKind {
    match kind {
        BoardKind::Game { .. } => pb::BoardKind::Game,
        BoardKind::PairingBye => pb::BoardKind::PairingBye,
        BoardKind::HalfPointBye => pb::BoardKind::HalfPointBye,
        BoardKind::ZeroPointBye => pb::BoardKind::ZeroPointBye,
        BoardKind::Absent => pb::BoardKind::Absent,
    }
}

pub(super) fn board(row: &Board) -> pb::Board {
    pb::Board {
        round: row.round as u32,
        number: row.number as u32,
        kind: kind_of(row.kind).into(),
        white_player_id: row.white.0,
        black_player_id: row.kind.black().map_or(0, |p| p.0),
        game_id: row.game.map_or(0, |g| g.0),
        result: row
            .result
            .map(|r| r.as_str().to_owned())
            .unwrap_or_default(),
        corrected: row.corrected,
    }
}

/// The settings of a tournament, as sent: the tie-break rules and unrated policy the standings
/// use.
pub(super) fn settings(t: &Tournament) -> pb::TournamentSettings {
    let tiebreak = t.tiebreak_options;
    pb::TournamentSettings {
        name: t.name.clone(),
        kind: t.kind.name().to_owned(),
        ruleset: t.ruleset.clone(),
        system: system_of(t.system).into(),
        rounds: t.rounds,
        time_control: time_control(t.time_control),
        max_turns: t.max_turns,
        rated: t.rated,
        bye_points: t.bye_points,
        bye_points_set: true,
        tiebreaks: t.tiebreaks.iter().map(ToString::to_string).collect(),
        tiebreak_rules: tiebreak.rules.to_string(),
        tiebreak_unrated: tiebreak.unrated.to_string(),
        top_seed_black: t.initial_colour == Colour::Black,
        forfeit_withdraws: t.forfeit_withdraws,
        manual_pairing: !t.auto_pair,
        self_entry: t.self_entry,
        late_self_entry: t.late_self_entry,
        over_the_board: t.over_the_board,
        details: Some(t.details.to_pb()),
    }
}

/// A loaded tournament, as sent (with or without its boards).
pub(super) fn tournament(loaded: &Loaded, with_boards: bool) -> pb::Tournament {
    let t = &loaded.tournament;
    let model = loaded.model();
    let entrants = loaded
        .entrants
        .iter()
        .map(|(e, name)| pb::Entrant {
            player_id: e.player.0,
            name: name.clone(),
            start_rank: e.start_rank.unwrap_or(0) as u32,
            rating: e.rating,
            joined_round: e.joined_round as u32,
            withdrawn_from: e.withdrawn_from.unwrap_or(0) as u32,
            score_halves: e.start_rank.map_or(0, |r| {
                model
                    .score(hanniball_pairing::StartRank(r as u32))
                    .half_points()
            }),
        })
        .collect();
    pb::Tournament {
        id: t.id,
        settings: Some(settings(t)),
        status: status_of(t.status).into(),
        current_round: t.current_round as u32,
        rounds: loaded.total_rounds(),
        entrants,
        boards: if with_boards {
            loaded.boards.iter().map(board).collect()
        } else {
            Vec::new()
        },
        created_at_ms: t.created_at.0,
        corrections: Vec::new(),
        entrant_count: loaded.entrants.len() as u32,
        organiser_ids: Vec::new(),
        forbidden_pairs: if with_boards {
            forbidden_pairs(&loaded.forbidden)
        } else {
            Vec::new()
        },
    }
}

/// A tournament for lists: its settings and state, the number of its entrants, nothing that
/// grows with the field.
pub(super) fn summary(loaded: &Loaded) -> pb::Tournament {
    let t = &loaded.tournament;
    pb::Tournament {
        id: t.id,
        settings: Some(settings(t)),
        status: status_of(t.status).into(),
        current_round: t.current_round as u32,
        rounds: loaded.total_rounds(),
        entrants: Vec::new(),
        boards: Vec::new(),
        created_at_ms: t.created_at.0,
        corrections: Vec::new(),
        entrant_count: loaded.entrants.len() as u32,
        organiser_ids: Vec::new(),
        forbidden_pairs: Vec::new(),
    }
}

/// Forbidden pairs as sent.
pub(super) fn forbidden_pairs(pairs: &[(PlayerId, PlayerId)]) -> Vec<pb::ForbiddenPair> {
    pairs
        .iter()
        .map(|&(first, second)| pb::ForbiddenPair {
            first_player_id: first.0,
            second_player_id: second.0,
        })
        .collect()
}

/// A result correction, as sent.
pub(super) fn correction(row: &Correction) -> pb::ResultCorrection {
    pb::ResultCorrection {
        round: row.round as u32,
        board: row.board as u32,
        previous: row.previous.as_str().to_owned(),
        result: row.result.as_str().to_owned(),
        by: row.corrected_by.clone(),
        note: row.note.clone(),
        at_ms: row.at.0,
        after_pairing: row.after_pairing,
    }
}

/// A tournament just created or imported, as sent: its one organiser, if any, included.
pub(super) fn created(loaded: &Loaded, owner: Option<PlayerId>) -> pb::Tournament {
    let mut sent = tournament(loaded, true);
    sent.organiser_ids = owner.map(|me| me.0).into_iter().collect();
    sent
}

pub(super) fn game_kind(kind: &str, ruleset: &str) -> ServiceResult<(GameKind, String)> {
    let (kind_text, ruleset_text) = (limits::quote(kind), limits::quote(ruleset));
    let kind: GameKind = if kind.is_empty() {
        GameKind::HanniBall
    } else {
        kind.parse().map_err(|_| {
            ServiceError::InvalidArgument(format!(
                "unknown game kind {kind_text}: expected hanniball or paper-football"
            ))
        })?
    };
    let ruleset = if ruleset.is_empty() {
        kind.rulesets()[0].to_owned()
    } else if kind.rulesets().contains(&ruleset) {
        ruleset.to_owned()
    } else {
        return Err(ServiceError::InvalidArgument(format!(
            "unknown ruleset {ruleset_text} for {}: expected one of {}",
            kind.name(),
            kind.rulesets().join(", ")
        )));
    };
    Ok((kind, ruleset))
}

/// Longest initial clock time (30 days) and increment (1 day), as the arbiter accepts them.
pub(super) const MAX_INITIAL_MS: i64 = 30 * 24 * 3_600_000;

pub(super) const MAX_INCREMENT_MS: i64 = 24 * 3_600_000;

pub(super) fn check_time_control(
    tc: Option<&hanniball_proto::arbiter::v1::TimeControl>,
) -> ServiceResult<()> {
    if let Some(tc) = tc
        && (!(1..=MAX_INITIAL_MS).contains(&tc.initial_ms)
            || !(0..=MAX_INCREMENT_MS).contains(&tc.increment_ms))
    {
        return Err(ServiceError::InvalidArgument(format!(
            "time control needs 0 < initial_ms <= {MAX_INITIAL_MS} (30 days) and \
             0 <= increment_ms <= {MAX_INCREMENT_MS} (1 day), got {} and {}",
            tc.initial_ms, tc.increment_ms
        )));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A Tournament carries the C.07 text and unrated policy its standings follow (the store
    /// reads an older row's empty columns as the text in force at its creation: `store::convert`).
    #[test]
    fn settings_carry_the_tiebreak_rules_the_standings_follow() {
        let check = |rules: Rules, unrated: Unrated, expected: (&str, &str)| {
            let mut t = settings_row(&pb::TournamentSettings {
                name: "Club".to_owned(),
                rounds: 5,
                ..Default::default()
            })
            .expect("valid settings");
            t.tiebreak_options = Options { rules, unrated };
            let sent = settings(&t);
            assert_eq!(
                (sent.tiebreak_rules.as_str(), sent.tiebreak_unrated.as_str()),
                expected
            );
        };
        check(Rules::Fide2024, Unrated::Drop, ("2024", "drop"));
        check(Rules::Fide2026, Unrated::Drop, ("2026", "drop"));
        check(Rules::Fide2024, Unrated::Rating(1400), ("2024", "1400"));
        check(Rules::Fide2026, Unrated::Ignore, ("2026", "ignore"));
    }

    /// The settings sent back are the settings asked for: parsed once, and written from the
    /// typed values.
    #[test]
    fn settings_survive_the_round_trip() {
        let asked = pb::TournamentSettings {
            name: "Club".to_owned(),
            kind: "hanniball".to_owned(),
            ruleset: GameKind::HanniBall.rulesets()[0].to_owned(),
            system: pb::PairingSystem::SwissDutch.into(),
            rounds: 5,
            tiebreaks: vec!["BH-C1".to_owned(), "SB".to_owned(), "DE".to_owned()],
            tiebreak_rules: "2024".to_owned(),
            tiebreak_unrated: "1400".to_owned(),
            top_seed_black: true,
            bye_points: 1,
            bye_points_set: true,
            details: Some(pb::TournamentDetails::default()),
            ..Default::default()
        };
        let sent = settings(&settings_row(&asked).expect("valid settings"));
        assert_eq!(sent, asked);
    }
}
