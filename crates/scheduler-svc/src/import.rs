//! `ImportTournament`: a Swiss started elsewhere, from the TRF file another program wrote. The
//! file is read as `swiss` reads it, checked as `swiss check --strict` checks it, and turned into
//! what a tournament paired here would hold (entrants by starting rank, each round's boards
//! with their results), so that the next round is paired as the engine pairs the file.

use hanniball_pairing::trf::{self, ReadOptions};
use hanniball_pairing::{
    Colour, DutchOptions, GameResult, PointSystem, RoundEntry, StartRank as Rank, Tournament,
};

use hanniball_ids::PlayerId;

use crate::domain::{self, Board, BoardKind, BoardResult, Entrant, TournamentStatus};
use crate::error::ServiceError;

/// The problems listed in one message at most (the rest are counted).
const SHOWN: usize = 20;

/// A file read and checked, ready to become a tournament.
pub struct Imported {
    pub tournament: Tournament,
    /// Rounds played (every game with a result).
    pub played: u32,
}

/// Reads and checks `text`: a Swiss this server can hold (no accelerations, forbidden pairs,
/// other point systems, full-point byes or `XXC rank`), every round played to the end, and (unless
/// `accept_differences`) every round as `swiss check --strict` wants it. Every problem is named.
pub fn read(text: &str, accept_differences: bool) -> Result<Imported, ServiceError> {
    let file = trf::read(text.as_bytes(), &ReadOptions::default())
        .map_err(|e| ServiceError::InvalidArgument(format!("the TRF file cannot be read: {e}")))?;
    if let Some(u) = &file.unfinished {
        return Err(ServiceError::FailedPrecondition(format!(
            "round {} of the file has {} games without a result: enter them in the file (or in \
             the program that wrote it) and import it again",
            u.round,
            u.games.len()
        )));
    }
    let t = file.tournament;
    let mut cannot = Vec::new();
    if t.pairing_order.is_some() {
        cannot.push("pairing numbers in another order than the starting ranks (XXC rank)");
    }
    if !t.forbidden.is_empty() {
        cannot.push("forbidden pairs (XXP, 260)");
    }
    if t.players
        .iter()
        .any(|p| p.accelerations.iter().any(|a| *a > 0))
    {
        cannot.push("accelerated rounds (XXA, 250)");
    }
    if (0..=2).all(|half| t.points != PointSystem::with_pab_half_points(half)) {
        cannot.push("a point system other than 1, ½ and 0 (162, BBW…BBU)");
    }
    if t.players
        .iter()
        .any(|p| p.entries.contains(&RoundEntry::FullPointBye))
    {
        cannot.push("full-point byes (F)");
    }
    if !cannot.is_empty() {
        return Err(ServiceError::FailedPrecondition(format!(
            "the file uses what a tournament here cannot hold: {}",
            cannot.join("; ")
        )));
    }
    if !accept_differences {
        let mut problems: Vec<String> = hanniball_pairing::check(&t)
            .iter()
            .map(ToString::to_string)
            .collect();
        problems.extend(
            hanniball_pairing::recheck(&t, &DutchOptions::for_tournament(&t))
                .iter()
                .map(ToString::to_string),
        );
        if !problems.is_empty() {
            let more = problems.len().saturating_sub(SHOWN);
            problems.truncate(SHOWN);
            return Err(ServiceError::FailedPrecondition(format!(
                "the file does not pass `swiss check --strict`: {}{}; import it with the \
                 pairings as they were made (accept_differences, `--accept-differences`) if \
                 they stand",
                problems.join("; "),
                if more > 0 {
                    format!(" (and {more} more)")
                } else {
                    String::new()
                }
            )));
        }
    }
    let played = t.rounds_paired();
    Ok(Imported {
        tournament: t,
        played,
    })
}

/// An imported tournament: `base` (from the request's settings) completed from the
/// file, its entrants (the `players` by starting rank) and every played round's boards: games
/// first, by the higher score before the round then the lower starting rank, then byes and
/// absences. Nothing is rated: the games were played elsewhere.
pub fn rows(
    imported: &Imported,
    players: &[i64],
    mut base: domain::Tournament,
) -> Result<(domain::Tournament, Vec<Entrant>, Vec<Board>), ServiceError> {
    let t = &imported.tournament;
    if players.len() != t.players.len() {
        return Err(ServiceError::InvalidArgument(format!(
            "player_ids names {} players, the file has {}: one id per starting rank",
            players.len(),
            t.players.len()
        )));
    }
    let mut seen = std::collections::HashSet::new();
    for (i, id) in players.iter().enumerate() {
        if *id <= 0 || !seen.insert(*id) {
            return Err(ServiceError::InvalidArgument(format!(
                "player_ids[{i}] ({id}) is not a positive id given once"
            )));
        }
    }
    if base.rounds < imported.played {
        return Err(ServiceError::InvalidArgument(format!(
            "the file has {} rounds played, more than the {} rounds asked for",
            imported.played, base.rounds
        )));
    }
    base.bye_points = t.points.pab / 5;
    base.initial_colour = t.initial_colour;
    base.current_round = imported.played as i32;
    base.status = if imported.played == 0 {
        TournamentStatus::Registration
    } else if imported.played >= base.rounds {
        TournamentStatus::Finished
    } else {
        TournamentStatus::Running
    };
    let entrants = t
        .players
        .iter()
        .zip(players)
        .map(|(p, id)| Entrant {
            tournament_id: 0,
            player: PlayerId(*id),
            start_rank: (imported.played > 0).then_some(p.id.0 as i32),
            rating: p.rating as i32,
            joined_round: p
                .entries
                .iter()
                .position(|e| *e != RoundEntry::NotPaired)
                .map_or(1, |i| i as i32 + 1),
            withdrawn_from: p.withdrawn_from.map(|r| r as i32),
        })
        .collect();
    let id_of = |rank: Rank| PlayerId(players[(rank.0 as usize).saturating_sub(1)]);
    let mut boards = Vec::new();
    let mut before: Vec<u32> = vec![0; t.players.len()];
    for round in 1..=imported.played {
        let mut games: Vec<(u32, Rank, Rank, BoardResult, bool)> = Vec::new();
        let mut byes: Vec<(Rank, BoardKind)> = Vec::new();
        for p in &t.players {
            match p.entry(round) {
                Some(RoundEntry::Game {
                    opponent,
                    colour: Colour::White,
                    result,
                    rated,
                }) => {
                    let result = match result {
                        GameResult::Win => BoardResult::WhiteWins,
                        GameResult::Draw => BoardResult::Draw,
                        GameResult::Loss => BoardResult::BlackWins,
                    };
                    games.push((0, p.id, *opponent, result, !rated));
                }
                Some(RoundEntry::Forfeit {
                    opponent,
                    colour,
                    won,
                }) if *colour == Some(Colour::White) || (colour.is_none() && p.id < *opponent) => {
                    let other_won = matches!(
                        t.players
                            .get((opponent.0 as usize).saturating_sub(1))
                            .and_then(|o| o.entry(round)),
                        Some(RoundEntry::Forfeit { won: true, .. })
                    );
                    let result = match (won, other_won) {
                        (true, _) => BoardResult::WhiteWinsByForfeit,
                        (false, true) => BoardResult::BlackWinsByForfeit,
                        (false, false) => BoardResult::BothForfeit,
                    };
                    games.push((0, p.id, *opponent, result, false));
                }
                Some(RoundEntry::PairingBye) => byes.push((p.id, BoardKind::PairingBye)),
                Some(RoundEntry::HalfPointBye) => byes.push((p.id, BoardKind::HalfPointBye)),
                Some(RoundEntry::ZeroPointBye) => byes.push((p.id, BoardKind::ZeroPointBye)),
                Some(RoundEntry::NotPaired) | None => byes.push((p.id, BoardKind::Absent)),
                _ => {}
            }
        }
        let score = |r: Rank| before[(r.0 as usize).saturating_sub(1)];
        for g in &mut games {
            g.0 = score(g.1).max(score(g.2));
        }
        games.sort_by_key(|(top, white, black, _, _)| {
            (std::cmp::Reverse(*top), (*white).min(*black))
        });
        let mut number = 0;
        for (_, white, black, result, short) in games {
            number += 1;
            boards.push(Board {
                tournament_id: 0,
                round: round as i32,
                number,
                white: id_of(white),
                kind: BoardKind::Game {
                    black: id_of(black),
                },
                game: None,
                result: Some(result),
                corrected: true,
                short,
            });
        }
        for (player, kind) in byes {
            number += 1;
            boards.push(Board {
                tournament_id: 0,
                round: round as i32,
                number,
                white: id_of(player),
                kind,
                game: None,
                result: None,
                corrected: false,
                short: false,
            });
        }
        for p in &t.players {
            if let Some(e) = p.entry(round) {
                before[(p.id.0 as usize).saturating_sub(1)] += e.points(&t.points);
            }
        }
    }
    Ok((base, entrants, boards))
}
