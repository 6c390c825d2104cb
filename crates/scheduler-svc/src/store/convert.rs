//! Rows to domain types and back: every stored name is read here, once. A stored value these
//! cannot read is `StoreError::Corrupt`, never a default, but for the two columns rows from
//! before their setting leave empty: tie-break rules (the text in force at the tournament's
//! creation) and the unrated policy (FIDE's, `drop`).

use hanniball_ids::{GameId, PlayerId, TimeControl, Timestamp};
use hanniball_pairing::Colour;
use hanniball_pairing::tiebreak::{Options, Rules, TieBreak, Unrated};
use hanniball_rules::GameKind;

use super::entities::{
    board_corrections, boards, bye_requests, matches, queue_entries, tournament_players,
    tournaments,
};
use crate::details::Details;
use crate::domain::{
    Board, BoardKind, BoardResult, ByeRequest, Correction, Entrant, Match, QueueEntry, System,
    Tournament, TournamentStatus, rules_in_force,
};
use hanniball_db::StoreError;

/// A stored `what` that is none of the values it may be.
fn corrupt(what: &str, value: impl std::fmt::Display) -> StoreError {
    StoreError::Corrupt(format!("unreadable {what}: {value}"))
}

/// A count stored signed that is never negative.
fn count(what: &str, value: i32) -> Result<u32, StoreError> {
    u32::try_from(value).map_err(|_| corrupt(what, value))
}

pub(super) fn status(name: &str) -> Result<TournamentStatus, StoreError> {
    [
        TournamentStatus::Registration,
        TournamentStatus::Running,
        TournamentStatus::Finished,
    ]
    .into_iter()
    .find(|s| s.name() == name)
    .ok_or_else(|| corrupt("tournament status", name))
}

fn system(name: &str) -> Result<System, StoreError> {
    [System::Swiss, System::RoundRobin, System::DoubleRoundRobin]
        .into_iter()
        .find(|s| s.name() == name)
        .ok_or_else(|| corrupt("pairing system", name))
}

fn game_kind(name: &str) -> Result<GameKind, StoreError> {
    name.parse().map_err(|_| corrupt("game kind", name))
}

const fn colour_name(colour: Colour) -> &'static str {
    match colour {
        Colour::White => "white1",
        Colour::Black => "black1",
    }
}

fn colour(name: &str) -> Result<Colour, StoreError> {
    match name {
        "white1" => Ok(Colour::White),
        "black1" => Ok(Colour::Black),
        other => Err(corrupt("initial colour", other)),
    }
}

/// The tie-breaks as stored: acronyms joined by commas (none: empty).
fn tiebreaks_text(tiebreaks: &[TieBreak]) -> String {
    let names: Vec<String> = tiebreaks.iter().map(ToString::to_string).collect();
    names.join(",")
}

fn tiebreaks(text: &str) -> Result<Vec<TieBreak>, StoreError> {
    if text.is_empty() {
        return Ok(Vec::new());
    }
    text.split(',')
        .map(|name| name.parse().map_err(|_| corrupt("tie-break", name)))
        .collect()
}

/// How a stored tournament's tie-breaks count: as stored, or (empty columns: a row from before
/// the setting) the text in force when it was created and unrated players as FIDE says.
fn tiebreak_options(rules: &str, unrated: &str, created: Timestamp) -> Result<Options, StoreError> {
    Ok(Options {
        rules: match rules {
            "" => rules_in_force(created),
            text => text
                .parse::<Rules>()
                .map_err(|_| corrupt("tie-break rules", text))?,
        },
        unrated: match unrated {
            "" => Unrated::default(),
            text => text
                .parse::<Unrated>()
                .map_err(|_| corrupt("unrated policy", text))?,
        },
    })
}

/// A time control's columns: no initial time, no time control.
fn time_control(initial_ms: Option<i64>, increment_ms: Option<i64>) -> Option<TimeControl> {
    initial_ms.map(|initial_ms| TimeControl {
        initial_ms,
        increment_ms: increment_ms.unwrap_or(0),
    })
}

fn time_control_columns(tc: Option<TimeControl>) -> (Option<i64>, Option<i64>) {
    (tc.map(|tc| tc.initial_ms), tc.map(|tc| tc.increment_ms))
}

pub(super) fn tournament(row: tournaments::Model) -> Result<Tournament, StoreError> {
    let created_at = Timestamp(row.created_at_ms);
    Ok(Tournament {
        id: row.id,
        kind: game_kind(&row.kind)?,
        system: system(&row.system)?,
        rounds: count("round count", row.rounds)?,
        time_control: time_control(row.initial_ms, row.increment_ms),
        max_turns: count("turn limit", row.max_turns)?,
        bye_points: count("bye points", row.bye_points)?,
        tiebreaks: tiebreaks(&row.tiebreaks)?,
        tiebreak_options: tiebreak_options(&row.tiebreak_rules, &row.tiebreak_unrated, created_at)?,
        initial_colour: colour(&row.initial_colour)?,
        status: status(&row.status)?,
        created_at,
        details: Details::from_json(&row.details),
        name: row.name,
        ruleset: row.ruleset,
        rated: row.rated,
        forfeit_withdraws: row.forfeit_withdraws,
        auto_pair: row.auto_pair,
        self_entry: row.self_entry,
        late_self_entry: row.late_self_entry,
        current_round: row.current_round,
        over_the_board: row.over_the_board,
    })
}

/// Numbers the store keeps signed (every one far below `i32::MAX` once checked at the edge).
fn signed(value: u32) -> i32 {
    i32::try_from(value).unwrap_or(i32::MAX)
}

pub(super) fn tournament_row(t: &Tournament) -> tournaments::Model {
    let (initial_ms, increment_ms) = time_control_columns(t.time_control);
    tournaments::Model {
        id: t.id,
        name: t.name.clone(),
        kind: t.kind.name().to_owned(),
        ruleset: t.ruleset.clone(),
        system: t.system.name().to_owned(),
        rounds: signed(t.rounds),
        initial_ms,
        increment_ms,
        max_turns: signed(t.max_turns),
        rated: t.rated,
        bye_points: signed(t.bye_points),
        tiebreaks: tiebreaks_text(&t.tiebreaks),
        tiebreak_rules: t.tiebreak_options.rules.to_string(),
        tiebreak_unrated: t.tiebreak_options.unrated.to_string(),
        initial_colour: colour_name(t.initial_colour).to_owned(),
        forfeit_withdraws: t.forfeit_withdraws,
        auto_pair: t.auto_pair,
        self_entry: t.self_entry,
        late_self_entry: t.late_self_entry,
        status: t.status.name().to_owned(),
        current_round: t.current_round,
        created_at_ms: t.created_at.0,
        over_the_board: t.over_the_board,
        details: t.details.to_json(),
    }
}

pub(super) fn entrant(row: tournament_players::Model) -> Entrant {
    Entrant {
        tournament_id: row.tournament_id,
        player: PlayerId(row.player_id),
        start_rank: row.start_rank,
        rating: row.rating,
        joined_round: row.joined_round,
        withdrawn_from: row.withdrawn_from,
    }
}

pub(super) fn entrant_row(e: &Entrant) -> tournament_players::Model {
    tournament_players::Model {
        tournament_id: e.tournament_id,
        player_id: e.player.0,
        start_rank: e.start_rank,
        rating: e.rating,
        joined_round: e.joined_round,
        withdrawn_from: e.withdrawn_from,
    }
}

pub(super) fn bye(row: bye_requests::Model) -> Result<ByeRequest, StoreError> {
    Ok(ByeRequest {
        tournament_id: row.tournament_id,
        player: PlayerId(row.player_id),
        round: row.round,
        half_point: match row.points {
            0 => false,
            1 => true,
            other => return Err(corrupt("bye points", other)),
        },
    })
}

pub(super) fn bye_row(b: &ByeRequest) -> bye_requests::Model {
    bye_requests::Model {
        tournament_id: b.tournament_id,
        player_id: b.player.0,
        round: b.round,
        points: i32::from(b.half_point),
    }
}

/// A board kind's stored name.
const fn kind_name(kind: BoardKind) -> &'static str {
    match kind {
        BoardKind::Game { .. } => "game",
        BoardKind::PairingBye => "pab",
        BoardKind::HalfPointBye => "half-bye",
        BoardKind::ZeroPointBye => "zero-bye",
        BoardKind::Absent => "absent",
    }
}

fn board_kind(name: &str, black: Option<i64>) -> Result<BoardKind, StoreError> {
    let kind = match (name, black) {
        ("game", Some(black)) => BoardKind::Game {
            black: PlayerId(black),
        },
        ("pab", None) => BoardKind::PairingBye,
        ("half-bye", None) => BoardKind::HalfPointBye,
        ("zero-bye", None) => BoardKind::ZeroPointBye,
        ("absent", None) => BoardKind::Absent,
        (name, black) => {
            return Err(corrupt("board", format!("a {name} with Black {black:?}")));
        }
    };
    Ok(kind)
}

pub(super) fn result(text: &str) -> Result<BoardResult, StoreError> {
    BoardResult::parse(text).ok_or_else(|| corrupt("result", text))
}

pub(super) fn board(row: boards::Model) -> Result<Board, StoreError> {
    Ok(Board {
        tournament_id: row.tournament_id,
        round: row.round,
        number: row.board,
        white: PlayerId(row.white_id),
        kind: board_kind(&row.kind, row.black_id)?,
        game: row.game_id.map(GameId),
        result: row.result.as_deref().map(result).transpose()?,
        corrected: row.corrected,
        short: row.short,
    })
}

pub(super) fn board_row(b: &Board) -> boards::Model {
    boards::Model {
        tournament_id: b.tournament_id,
        round: b.round,
        board: b.number,
        kind: kind_name(b.kind).to_owned(),
        white_id: b.white.0,
        black_id: b.kind.black().map(|p| p.0),
        game_id: b.game.map(|g| g.0),
        result: b.result.map(|r| r.as_str().to_owned()),
        corrected: b.corrected,
        short: b.short,
    }
}

pub(super) fn correction(row: board_corrections::Model) -> Result<Correction, StoreError> {
    Ok(Correction {
        tournament_id: row.tournament_id,
        number: row.number,
        round: row.round,
        board: row.board,
        previous: result(&row.previous)?,
        result: result(&row.result)?,
        corrected_by: row.corrected_by,
        note: row.note,
        at: Timestamp(row.at_ms),
        after_pairing: row.after_pairing,
    })
}

pub(super) fn correction_row(c: &Correction) -> board_corrections::Model {
    board_corrections::Model {
        tournament_id: c.tournament_id,
        number: c.number,
        round: c.round,
        board: c.board,
        previous: c.previous.as_str().to_owned(),
        result: c.result.as_str().to_owned(),
        corrected_by: c.corrected_by.clone(),
        note: c.note.clone(),
        at_ms: c.at.0,
        after_pairing: c.after_pairing,
    }
}

pub(super) fn queue_entry(row: queue_entries::Model) -> Result<QueueEntry, StoreError> {
    Ok(QueueEntry {
        player: PlayerId(row.player_id),
        kind: game_kind(&row.kind)?,
        ruleset: row.ruleset,
        time_control: time_control(row.initial_ms, row.increment_ms),
        rated: row.rated,
        joined_at: Timestamp(row.joined_at_ms),
    })
}

pub(super) fn queue_row(q: &QueueEntry) -> queue_entries::Model {
    let (initial_ms, increment_ms) = time_control_columns(q.time_control);
    queue_entries::Model {
        player_id: q.player.0,
        kind: q.kind.name().to_owned(),
        ruleset: q.ruleset.clone(),
        initial_ms,
        increment_ms,
        rated: q.rated,
        joined_at_ms: q.joined_at.0,
    }
}

pub(super) fn match_of(row: matches::Model) -> Result<Match, StoreError> {
    Ok(Match {
        id: row.id,
        white: PlayerId(row.white_id),
        black: PlayerId(row.black_id),
        kind: game_kind(&row.kind)?,
        ruleset: row.ruleset,
        time_control: time_control(row.initial_ms, row.increment_ms),
        rated: row.rated,
        game: row.game_id.map(GameId),
        created_at: Timestamp(row.created_at_ms),
    })
}

pub(super) fn match_row(m: &Match) -> matches::Model {
    let (initial_ms, increment_ms) = time_control_columns(m.time_control);
    matches::Model {
        id: m.id,
        white_id: m.white.0,
        black_id: m.black.0,
        kind: m.kind.name().to_owned(),
        ruleset: m.ruleset.clone(),
        initial_ms,
        increment_ms,
        rated: m.rated,
        game_id: m.game.map(|g| g.0),
        created_at_ms: m.created_at.0,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(rules: &str, unrated: &str, created_at_ms: i64) -> tournaments::Model {
        tournaments::Model {
            id: 1,
            name: "Club".to_owned(),
            kind: "hanniball".to_owned(),
            ruleset: String::new(),
            system: "swiss-dutch".to_owned(),
            rounds: 5,
            initial_ms: None,
            increment_ms: None,
            max_turns: 0,
            rated: false,
            bye_points: 2,
            tiebreaks: "BH-C1,BH,SB".to_owned(),
            tiebreak_rules: rules.to_owned(),
            tiebreak_unrated: unrated.to_owned(),
            initial_colour: "white1".to_owned(),
            forfeit_withdraws: false,
            auto_pair: true,
            self_entry: false,
            late_self_entry: false,
            status: "registration".to_owned(),
            current_round: 0,
            created_at_ms,
            over_the_board: false,
            details: String::new(),
        }
    }

    /// A tournament's tie-breaks follow the C.07 text and unrated policy stored, or for a row
    /// from before the setting (empty columns) the text in force at its creation and `drop`.
    #[test]
    fn tiebreak_rules_are_as_stored_or_those_in_force_at_the_creation() {
        let check = |t: tournaments::Model, expected: (&str, &str)| {
            let options = tournament(t).expect("readable").tiebreak_options;
            assert_eq!(
                (
                    options.rules.to_string().as_str(),
                    options.unrated.to_string().as_str()
                ),
                expected
            );
        };
        // 1 June 2025 and 1 June 2026, in milliseconds since 1970.
        let (june_2025, june_2026) = (1_748_736_000_000, 1_780_272_000_000);
        check(row("", "", june_2025), ("2024", "drop"));
        check(row("", "", june_2026), ("2026", "drop"));
        check(row("2024", "1400", june_2026), ("2024", "1400"));
        check(row("2026", "ignore", june_2025), ("2026", "ignore"));
    }

    /// A row reads back as it was written.
    #[test]
    fn a_tournament_survives_the_round_trip() {
        let read = tournament(row("2024", "ignore", 5)).expect("readable");
        assert_eq!(read.tiebreaks.len(), 3);
        assert_eq!(tournament_row(&read), row("2024", "ignore", 5));
    }

    /// Anything else stored is corrupt, not a default.
    #[test]
    fn an_unreadable_column_is_corrupt() {
        type Spoil = fn(&mut tournaments::Model);
        let cases: [(&str, Spoil); 8] = [
            ("rules", |t| t.tiebreak_rules = "2025".to_owned()),
            ("unrated", |t| t.tiebreak_unrated = "all".to_owned()),
            ("tie-break", |t| t.tiebreaks = "BH,XX".to_owned()),
            ("colour", |t| t.initial_colour = "random".to_owned()),
            ("status", |t| t.status = "paused".to_owned()),
            ("system", |t| t.system = "swiss".to_owned()),
            ("kind", |t| t.kind = "chess".to_owned()),
            ("rounds", |t| t.rounds = -1),
        ];
        for (what, spoil) in cases {
            let mut t = row("", "", 0);
            spoil(&mut t);
            assert!(
                matches!(tournament(t), Err(StoreError::Corrupt(_))),
                "{what}"
            );
        }
    }

    #[test]
    fn a_board_holds_black_exactly_when_it_is_a_game() {
        let stored = |kind: &str, black: Option<i64>, result: Option<&str>| boards::Model {
            tournament_id: 1,
            round: 1,
            board: 1,
            kind: kind.to_owned(),
            white_id: 2,
            black_id: black,
            game_id: None,
            result: result.map(str::to_owned),
            corrected: false,
            short: false,
        };
        for ok in [
            stored("game", Some(3), Some("1/2-1/2")),
            stored("game", Some(3), None),
            stored("pab", None, None),
            stored("half-bye", None, None),
            stored("zero-bye", None, None),
            stored("absent", None, None),
        ] {
            let read = board(ok.clone()).expect("readable");
            assert_eq!(board_row(&read), ok);
        }
        for bad in [
            stored("game", None, None),
            stored("pab", Some(3), None),
            stored("bye", None, None),
            stored("game", Some(3), Some("1:0")),
        ] {
            assert!(
                matches!(board(bad.clone()), Err(StoreError::Corrupt(_))),
                "{bad:?}"
            );
        }
    }
}
