//! A stored tournament seen by the pairing crate: rows in, a `hanniball_pairing::Tournament` (the
//! TRF model, players by start rank) out; and a paired round back into board rows. No IO here.

use std::collections::HashMap;

use crate::store::{BoardRow, ByeRow, EntrantRow, System, TournamentRow};
use hanniball_pairing::roundrobin::{self, Cycles};
use hanniball_pairing::tiebreak::{Options, TieBreak};
use hanniball_pairing::{
    Colour, DutchOptions, GameResult, Player, RoundEntry, StartRank as Rank, Tournament,
};

use crate::error::{ServiceError, ServiceResult};

/// Board kinds as stored.
pub const GAME: &str = "game";
pub const PAIRING_BYE: &str = "pab";
pub const HALF_BYE: &str = "half-bye";
pub const ZERO_BYE: &str = "zero-bye";
pub const ABSENT: &str = "absent";

/// Results as stored (White's side first).
pub const RESULTS: [&str; 6] = ["1-0", "0-1", "1/2-1/2", "+/-", "-/+", "-/-"];

/// How a stored tournament's tie-breaks count (rows from before the setting: the text in force
/// when the tournament was created, unrated players as FIDE says).
pub fn tiebreak_options(t: &TournamentRow) -> Options {
    Options {
        rules: t
            .tiebreak_rules
            .parse()
            .unwrap_or_else(|_| rules_created_at(t.created_at_ms)),
        unrated: t.tiebreak_unrated.parse().unwrap_or_default(),
    }
}

/// The C.07 text in force for a tournament created at `ms` (milliseconds since 1970).
pub(crate) fn rules_created_at(ms: i64) -> hanniball_pairing::tiebreak::Rules {
    let days = u64::try_from(ms.max(0) / 86_400_000).expect("not negative");
    hanniball_pairing::tiebreak::Rules::for_start(hanniball_pairing::tiebreak::date_from_unix_days(
        days,
    ))
}

/// A tournament's rows, loaded together.
#[derive(Clone, Debug)]
pub struct Loaded {
    pub tournament: TournamentRow,
    /// With player names, by start rank (unranked last, by registration).
    pub entrants: Vec<(EntrantRow, String)>,
    pub byes: Vec<ByeRow>,
    pub boards: Vec<BoardRow>,
    /// Entrants who must not be paired with each other (player ids, smaller first).
    pub forbidden: Vec<(i64, i64)>,
}

impl Loaded {
    /// The total number of rounds (round robins: from the field).
    pub fn total_rounds(&self) -> u32 {
        let n = self.entrants.len() as u32;
        let n = n + n % 2;
        match self.tournament.system {
            System::RoundRobin => n.saturating_sub(1),
            System::DoubleRoundRobin => 2 * n.saturating_sub(1),
            System::Swiss => self.tournament.rounds as u32,
        }
    }

    /// The tie-breaks in order.
    pub fn tiebreaks(&self) -> Vec<TieBreak> {
        self.tournament
            .tiebreaks
            .split(',')
            .filter_map(|name| name.trim().parse().ok())
            .collect()
    }

    /// How the tie-breaks count.
    pub fn tiebreak_options(&self) -> Options {
        tiebreak_options(&self.tournament)
    }

    /// Board `number` of round `round`.
    pub fn board(&self, round: i32, number: i32) -> Option<&BoardRow> {
        // Boards are stored by round, then board number.
        let at = self
            .boards
            .binary_search_by_key(&(round, number), |b| (b.round, b.board))
            .ok()?;
        self.boards.get(at)
    }

    /// Board `number` of round `round`, to change in place.
    pub fn board_mut(&mut self, round: i32, number: i32) -> Option<&mut BoardRow> {
        // Boards are stored by round, then board number.
        let at = self
            .boards
            .binary_search_by_key(&(round, number), |b| (b.round, b.board))
            .ok()?;
        self.boards.get_mut(at)
    }

    /// Adds entrants not entered yet. A copy read while the entry was being stored may hold it
    /// already (it is labelled with the version read before its rows), so entering twice
    /// changes nothing.
    pub fn enter(&mut self, entered: Vec<(EntrantRow, String)>) {
        let known: std::collections::HashSet<i64> =
            self.entrants.iter().map(|(e, _)| e.player_id).collect();
        self.entrants.extend(
            entered
                .into_iter()
                .filter(|(e, _)| !known.contains(&e.player_id)),
        );
    }

    /// Whether every game of round `round` has a result.
    pub fn round_complete(&self, round: i32) -> bool {
        self.round_boards(round)
            .iter()
            .filter(|b| b.kind == GAME)
            .all(|b| b.result.is_some())
    }

    /// The boards of round `round` (boards are stored by round, then board number): found by
    /// bisection, so looking at one round costs that round, not every round played.
    pub fn round_boards(&self, round: i32) -> &[BoardRow] {
        let start = self.boards.partition_point(|b| b.round < round);
        let end = self.boards.partition_point(|b| b.round <= round);
        &self.boards[start..end]
    }

    /// Start rank → player id.
    pub fn by_rank(&self) -> HashMap<i64, u32> {
        self.entrants
            .iter()
            .filter_map(|(e, _)| e.start_rank.map(|r| (e.player_id, r as u32)))
            .collect()
    }

    /// The TRF model of the rounds with results (complete boards only). Players without a start
    /// rank (before the start) are left out.
    pub fn model(&self) -> Tournament {
        let ranks = self.by_rank();
        let mut t = Tournament::new(self.total_rounds());
        t.points =
            hanniball_pairing::PointSystem::with_pab_half_points(self.tournament.bye_points as u32);
        t.initial_colour = if self.tournament.initial_colour == "black1" {
            Colour::Black
        } else {
            Colour::White
        };
        t.info.name = Some(self.tournament.name.clone());
        let mut ranked: Vec<&(EntrantRow, String)> = self
            .entrants
            .iter()
            .filter(|(e, _)| e.start_rank.is_some())
            .collect();
        ranked.sort_by_key(|(e, _)| e.start_rank);
        for (entrant, name) in ranked {
            let mut player = Player::new(
                Rank(entrant.start_rank.unwrap_or_default() as u32),
                name.clone(),
                entrant.rating.max(0) as u32,
            );
            player.withdrawn_from = entrant.withdrawn_from.map(|r| r as u32);
            t.players.push(player);
        }
        let rank = |id: i64| Rank(ranks.get(&id).copied().unwrap_or(0));
        for (first, second) in &self.forbidden {
            if let (Some(a), Some(b)) = (ranks.get(first), ranks.get(second)) {
                t.forbidden.push(hanniball_pairing::Forbidden::always(vec![
                    Rank(*a),
                    Rank(*b),
                ]));
            }
        }
        for board in &self.boards {
            let round = board.round as u32;
            let white = rank(board.white_id);
            match (board.kind.as_str(), board.black_id, board.result.as_deref()) {
                (GAME, Some(black), Some(result)) => {
                    let black = rank(black);
                    let played = match result {
                        "1-0" => Some(GameResult::Win),
                        "0-1" => Some(GameResult::Loss),
                        "1/2-1/2" => Some(GameResult::Draw),
                        _ => None,
                    };
                    match played {
                        Some(white_result) => {
                            // A short game (a side never made a turn) counts, unrated: TRF W/D/L.
                            for (player, opponent, colour, result) in [
                                (white, black, Colour::White, white_result),
                                (black, white, Colour::Black, white_result.reversed()),
                            ] {
                                t.set_entry(
                                    player,
                                    round,
                                    RoundEntry::Game {
                                        opponent,
                                        colour,
                                        result,
                                        rated: !board.short,
                                    },
                                );
                            }
                        }
                        None => {
                            let forfeit = result;
                            let (white_won, black_won) = match forfeit {
                                "+/-" => (true, false),
                                "-/+" => (false, true),
                                _ => (false, false),
                            };
                            t.set_entry(
                                white,
                                round,
                                RoundEntry::Forfeit {
                                    opponent: black,
                                    colour: Some(Colour::White),
                                    won: white_won,
                                },
                            );
                            t.set_entry(
                                black,
                                round,
                                RoundEntry::Forfeit {
                                    opponent: white,
                                    colour: Some(Colour::Black),
                                    won: black_won,
                                },
                            );
                        }
                    }
                }
                (PAIRING_BYE, _, _) => t.set_entry(white, round, RoundEntry::PairingBye),
                (HALF_BYE, _, _) => t.set_entry(white, round, RoundEntry::HalfPointBye),
                (ZERO_BYE, _, _) => t.set_entry(white, round, RoundEntry::ZeroPointBye),
                _ => {}
            }
        }
        t
    }

    /// The boards of round `round`: the players who do not play it (requested byes, late
    /// entries, withdrawals), then the pairing of everyone else by the tournament's system.
    /// `ranks` are the start ranks to fix first (round 1), in rank order.
    /// The boards of `round`; `Ok(Err(_))` when the rules allow no pairing (the organiser's to
    /// resolve, not a fault).
    pub fn pair(&self, round: u32) -> ServiceResult<Result<Vec<BoardRow>, Unpairable>> {
        let mut t = self.model();
        let tid = self.tournament.id;
        let ranks = self.by_rank();
        let id_of: HashMap<u32, i64> = ranks.iter().map(|(id, r)| (*r, *id)).collect();
        let mut sitting_out: Vec<BoardRow> = Vec::new();
        let mut out = |player: i64, kind: &str| {
            sitting_out.push(BoardRow {
                tournament_id: tid,
                round: round as i32,
                board: 0,
                kind: kind.to_owned(),
                white_id: player,
                black_id: None,
                game_id: None,
                result: None,
                corrected: false,
                short: false,
            });
        };
        for (entrant, _) in &self.entrants {
            let Some(rank) = ranks.get(&entrant.player_id).copied() else {
                continue;
            };
            let rank = Rank(rank);
            if entrant.joined_round as u32 > round {
                t.set_entry(rank, round, RoundEntry::NotPaired);
                out(entrant.player_id, ABSENT);
            } else if entrant.withdrawn_from.is_some_and(|w| w as u32 <= round) {
                out(entrant.player_id, ABSENT);
            } else if let Some(bye) = self
                .byes
                .iter()
                .find(|b| b.player_id == entrant.player_id && b.round as u32 == round)
            {
                let (entry, kind) = if bye.points > 0 {
                    (RoundEntry::HalfPointBye, HALF_BYE)
                } else {
                    (RoundEntry::ZeroPointBye, ZERO_BYE)
                };
                t.set_entry(rank, round, entry);
                out(entrant.player_id, kind);
            }
        }
        let mut games: Vec<(i64, i64)> = Vec::new();
        let mut pab: Option<i64> = None;
        let player = |rank: Rank| -> Result<i64, ServiceError> {
            id_of.get(&rank.0).copied().ok_or_else(|| {
                ServiceError::Internal(format!("pairing named unknown rank {}", rank.0))
            })
        };
        match self.tournament.system {
            System::Swiss => {
                let pairing =
                    match hanniball_pairing::pair_next_round(&t, &DutchOptions::for_tournament(&t))
                    {
                        Ok(pairing) => pairing,
                        Err(e) => return Ok(Err(Unpairable(e.to_string()))),
                    };
                for (w, b) in pairing.boards {
                    games.push((player(w)?, player(b)?));
                }
                if let Some(b) = pairing.bye {
                    pab = Some(player(b)?);
                }
            }
            system => {
                let cycles = if system == System::DoubleRoundRobin {
                    Cycles::Double
                } else {
                    Cycles::Single
                };
                let table = match roundrobin::berger(t.players.len(), cycles) {
                    Ok(table) => table,
                    Err(e) => return Ok(Err(Unpairable(e.to_string()))),
                };
                let Some(boards) = table.get(round as usize - 1) else {
                    return Ok(Err(Unpairable(format!(
                        "the round robin has no round {round}"
                    ))));
                };
                let absent: Vec<i64> = sitting_out.iter().map(|b| b.white_id).collect();
                for board in boards {
                    match *board {
                        roundrobin::Board::Game { white, black } => {
                            games.push((player(Rank(white.0))?, player(Rank(black.0))?));
                        }
                        roundrobin::Board::Bye { player: p } => {
                            pab = Some(player(Rank(p.0))?);
                        }
                    }
                }
                // In a round robin nobody sits out: the absent player's game is a forfeit.
                sitting_out.clear();
                let mut rows = Vec::new();
                for (i, (w, b)) in games.iter().enumerate() {
                    let result = match (absent.contains(w), absent.contains(b)) {
                        (true, true) => Some("-/-"),
                        (true, false) => Some("-/+"),
                        (false, true) => Some("+/-"),
                        (false, false) => None,
                    };
                    rows.push(game_row(tid, round, i as i32 + 1, *w, *b, result));
                }
                if let Some(p) = pab {
                    rows.push(bye_row(tid, round, rows.len() as i32 + 1, p, ZERO_BYE));
                }
                return Ok(Ok(rows));
            }
        }
        let mut rows: Vec<BoardRow> = games
            .iter()
            .enumerate()
            .map(|(i, (w, b))| game_row(tid, round, i as i32 + 1, *w, *b, None))
            .collect();
        if let Some(p) = pab {
            rows.push(bye_row(tid, round, rows.len() as i32 + 1, p, PAIRING_BYE));
        }
        for mut row in sitting_out {
            row.board = rows.len() as i32 + 1;
            rows.push(row);
        }
        Ok(Ok(rows))
    }
}

/// Why the next round cannot be paired (the pairing rules' words).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Unpairable(pub String);

impl From<Unpairable> for ServiceError {
    fn from(Unpairable(why): Unpairable) -> Self {
        ServiceError::FailedPrecondition(format!("the round cannot be paired: {why}"))
    }
}

fn game_row(
    tournament: i64,
    round: u32,
    board: i32,
    white: i64,
    black: i64,
    result: Option<&str>,
) -> BoardRow {
    BoardRow {
        tournament_id: tournament,
        round: round as i32,
        board,
        kind: GAME.to_owned(),
        white_id: white,
        black_id: Some(black),
        game_id: None,
        result: result.map(str::to_owned),
        corrected: false,
        short: false,
    }
}

fn bye_row(tournament: i64, round: u32, board: i32, player: i64, kind: &str) -> BoardRow {
    BoardRow {
        tournament_id: tournament,
        round: round as i32,
        board,
        kind: kind.to_owned(),
        white_id: player,
        black_id: None,
        game_id: None,
        result: None,
        corrected: false,
        short: false,
    }
}

/// Start ranks: by rating (highest first), then name in alphabetical order (letters without
/// case or accents: [`hanniball_names::collation_key`]), then player id (C.04.2:
/// rating, then alphabetical). Returns (player id, rank) in rank order.
pub fn seed(entrants: &[(EntrantRow, String)]) -> Vec<(i64, i32)> {
    let mut order: Vec<(&EntrantRow, String, &String)> = entrants
        .iter()
        .map(|(e, name)| (e, hanniball_names::collation_key(name), name))
        .collect();
    order.sort_by(|(a, ak, an), (b, bk, bn)| {
        b.rating
            .cmp(&a.rating)
            .then_with(|| ak.cmp(bk))
            .then_with(|| an.cmp(bn))
            .then(a.player_id.cmp(&b.player_id))
    });
    order
        .iter()
        .enumerate()
        .map(|(i, (e, _, _))| (e.player_id, i as i32 + 1))
        .collect()
}

#[cfg(test)]
mod seeding {
    use super::*;

    fn entrant(player_id: i64, rating: i32, name: &str) -> (EntrantRow, String) {
        (
            EntrantRow {
                tournament_id: 1,
                player_id,
                start_rank: None,
                rating,
                joined_round: 1,
                withdrawn_from: None,
            },
            name.to_owned(),
        )
    }

    #[test]
    fn equal_ratings_seed_alphabetically_as_people_read_names() {
        let entrants = [
            entrant(1, 1500, "Zoë"),
            entrant(2, 1500, "adam"),
            entrant(3, 1600, "zed"),
            entrant(4, 1500, "Ärger"),
            entrant(5, 1500, "bob"),
        ];
        let order: Vec<i64> = seed(&entrants).into_iter().map(|(id, _)| id).collect();
        assert_eq!(order, [3, 2, 4, 5, 1]);
    }
}
