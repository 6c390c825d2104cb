//! A tournament seen by the pairing crate: the domain's values in, a
//! `hanniball_pairing::Tournament` (the TRF model, players by start rank) out; and a paired round
//! back into boards. No IO here.

use std::collections::HashMap;

use hanniball_ids::PlayerId;
use hanniball_pairing::roundrobin::{self, Cycles};
use hanniball_pairing::{
    Colour, DutchOptions, GameResult, Player, RoundEntry, StartRank as Rank, Tournament,
};

use crate::domain::{self, Board, BoardKind, BoardResult, ByeRequest, Entrant, System};
use crate::error::{ServiceError, ServiceResult};

/// A tournament with everything it holds, loaded together.
#[derive(Clone, Debug)]
pub struct Loaded {
    pub tournament: domain::Tournament,
    /// With player names, by start rank (unranked last, by registration).
    pub entrants: Vec<(Entrant, String)>,
    pub byes: Vec<ByeRequest>,
    /// By round, then board number.
    pub boards: Vec<Board>,
    /// Entrants who must not be paired with each other (smaller id first).
    pub forbidden: Vec<(PlayerId, PlayerId)>,
}

impl Loaded {
    /// The total number of rounds (round robins: from the field).
    pub fn total_rounds(&self) -> u32 {
        let n = self.entrants.len() as u32;
        let n = n + n % 2;
        match self.tournament.system {
            System::RoundRobin => n.saturating_sub(1),
            System::DoubleRoundRobin => 2 * n.saturating_sub(1),
            System::Swiss => self.tournament.rounds,
        }
    }

    /// Board `number` of round `round`.
    pub fn board(&self, round: i32, number: i32) -> Option<&Board> {
        // Boards are stored by round, then board number.
        let at = self
            .boards
            .binary_search_by_key(&(round, number), |b| (b.round, b.number))
            .ok()?;
        self.boards.get(at)
    }

    /// Board `number` of round `round`, to change in place.
    pub fn board_mut(&mut self, round: i32, number: i32) -> Option<&mut Board> {
        // Boards are stored by round, then board number.
        let at = self
            .boards
            .binary_search_by_key(&(round, number), |b| (b.round, b.number))
            .ok()?;
        self.boards.get_mut(at)
    }

    /// Adds entrants not entered yet. A copy read while the entry was being stored may hold it
    /// already (it is labelled with the version read before its rows), so entering twice
    /// changes nothing.
    pub fn enter(&mut self, entered: Vec<(Entrant, String)>) {
        let known: std::collections::HashSet<PlayerId> =
            self.entrants.iter().map(|(e, _)| e.player).collect();
        self.entrants.extend(
            entered
                .into_iter()
                .filter(|(e, _)| !known.contains(&e.player)),
        );
    }

    /// Whether every game of round `round` has a result.
    pub fn round_complete(&self, round: i32) -> bool {
        self.round_boards(round)
            .iter()
            .filter(|b| b.kind.is_game())
            .all(|b| b.result.is_some())
    }

    /// The boards of round `round` (boards are stored by round, then board number): found by
    /// bisection, so looking at one round costs that round, not every round played.
    pub fn round_boards(&self, round: i32) -> &[Board] {
        let start = self.boards.partition_point(|b| b.round < round);
        let end = self.boards.partition_point(|b| b.round <= round);
        &self.boards[start..end]
    }

    /// Player → start rank.
    pub fn by_rank(&self) -> HashMap<PlayerId, u32> {
        self.entrants
            .iter()
            .filter_map(|(e, _)| e.start_rank.map(|r| (e.player, r as u32)))
            .collect()
    }

    /// The TRF model of the rounds with results (complete boards only). Players without a start
    /// rank (before the start) are left out.
    pub fn model(&self) -> Tournament {
        let ranks = self.by_rank();
        let mut t = Tournament::new(self.total_rounds());
        t.points = hanniball_pairing::PointSystem::with_pab_half_points(self.tournament.bye_points);
        t.initial_colour = self.tournament.initial_colour;
        t.info.name = Some(self.tournament.name.clone());
        let mut ranked: Vec<&(Entrant, String)> = self
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
        let rank = |id: PlayerId| Rank(ranks.get(&id).copied().unwrap_or(0));
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
            let white = rank(board.white);
            match (board.kind, board.result) {
                (BoardKind::Game { black }, Some(result)) => {
                    enter_game(&mut t, round, (white, rank(black)), result, board.short);
                }
                (BoardKind::PairingBye, _) => t.set_entry(white, round, RoundEntry::PairingBye),
                (BoardKind::HalfPointBye, _) => t.set_entry(white, round, RoundEntry::HalfPointBye),
                (BoardKind::ZeroPointBye, _) => t.set_entry(white, round, RoundEntry::ZeroPointBye),
                (BoardKind::Game { .. }, None) | (BoardKind::Absent, _) => {}
            }
        }
        t
    }

    /// The boards of round `round`: the players who do not play it (requested byes, late
    /// entries, withdrawals), then the pairing of everyone else by the tournament's system.
    /// `ranks` are the start ranks to fix first (round 1), in rank order.
    /// The boards of `round`; `Ok(Err(_))` when the rules allow no pairing (the organiser's to
    /// resolve, not a fault).
    pub fn pair(&self, round: u32) -> ServiceResult<Result<Vec<Board>, Unpairable>> {
        let mut t = self.model();
        let tid = self.tournament.id;
        let ranks = self.by_rank();
        let id_of: HashMap<u32, PlayerId> = ranks.iter().map(|(id, r)| (*r, *id)).collect();
        let mut sitting_out: Vec<Board> = Vec::new();
        let mut out = |player: PlayerId, kind: BoardKind| {
            sitting_out.push(board(tid, round, 0, player, kind, None));
        };
        for (entrant, _) in &self.entrants {
            let Some(rank) = ranks.get(&entrant.player).copied() else {
                continue;
            };
            let rank = Rank(rank);
            if entrant.joined_round as u32 > round {
                t.set_entry(rank, round, RoundEntry::NotPaired);
                out(entrant.player, BoardKind::Absent);
            } else if entrant.withdrawn_from.is_some_and(|w| w as u32 <= round) {
                out(entrant.player, BoardKind::Absent);
            } else if let Some(bye) = self
                .byes
                .iter()
                .find(|b| b.player == entrant.player && b.round as u32 == round)
            {
                let (entry, kind) = if bye.half_point {
                    (RoundEntry::HalfPointBye, BoardKind::HalfPointBye)
                } else {
                    (RoundEntry::ZeroPointBye, BoardKind::ZeroPointBye)
                };
                t.set_entry(rank, round, entry);
                out(entrant.player, kind);
            }
        }
        let mut games: Vec<(PlayerId, PlayerId)> = Vec::new();
        let mut pab: Option<PlayerId> = None;
        let player = |rank: Rank| -> Result<PlayerId, ServiceError> {
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
                let absent: Vec<PlayerId> = sitting_out.iter().map(|b| b.white).collect();
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
                        (true, true) => Some(BoardResult::BothForfeit),
                        (true, false) => Some(BoardResult::BlackWinsByForfeit),
                        (false, true) => Some(BoardResult::WhiteWinsByForfeit),
                        (false, false) => None,
                    };
                    let game = BoardKind::Game { black: *b };
                    rows.push(board(tid, round, i as i32 + 1, *w, game, result));
                }
                if let Some(p) = pab {
                    let number = rows.len() as i32 + 1;
                    rows.push(board(tid, round, number, p, BoardKind::ZeroPointBye, None));
                }
                return Ok(Ok(rows));
            }
        }
        let mut rows: Vec<Board> = games
            .iter()
            .enumerate()
            .map(|(i, (w, b))| {
                let game = BoardKind::Game { black: *b };
                board(tid, round, i as i32 + 1, *w, game, None)
            })
            .collect();
        if let Some(p) = pab {
            let number = rows.len() as i32 + 1;
            rows.push(board(tid, round, number, p, BoardKind::PairingBye, None));
        }
        for mut row in sitting_out {
            row.number = rows.len() as i32 + 1;
            rows.push(row);
        }
        Ok(Ok(rows))
    }
}

/// A game's result in the TRF model: a played game (a short one, where a side never made a
/// turn, counts unrated: TRF `W`/`D`/`L`) or a forfeit.
fn enter_game(
    t: &mut Tournament,
    round: u32,
    (white, black): (Rank, Rank),
    result: BoardResult,
    short: bool,
) {
    let played = match result {
        BoardResult::WhiteWins => Some(GameResult::Win),
        BoardResult::BlackWins => Some(GameResult::Loss),
        BoardResult::Draw => Some(GameResult::Draw),
        _ => None,
    };
    if let Some(white_result) = played {
        for (player, opponent, colour, result) in [
            (white, black, Colour::White, white_result),
            (black, white, Colour::Black, white_result.reversed()),
        ] {
            let game = RoundEntry::Game {
                opponent,
                colour,
                result,
                rated: !short,
            };
            t.set_entry(player, round, game);
        }
        return;
    }
    let (white_won, black_won) = match result {
        BoardResult::WhiteWinsByForfeit => (true, false),
        BoardResult::BlackWinsByForfeit => (false, true),
        _ => (false, false),
    };
    for (player, opponent, colour, won) in [
        (white, black, Colour::White, white_won),
        (black, white, Colour::Black, black_won),
    ] {
        let forfeit = RoundEntry::Forfeit {
            opponent,
            colour: Some(colour),
            won,
        };
        t.set_entry(player, round, forfeit);
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

/// A new board of round `round`: nobody has played it yet.
fn board(
    tournament: i64,
    round: u32,
    number: i32,
    white: PlayerId,
    kind: BoardKind,
    result: Option<BoardResult>,
) -> Board {
    Board {
        tournament_id: tournament,
        round: round as i32,
        number,
        white,
        kind,
        game: None,
        result,
        corrected: false,
        short: false,
    }
}

/// Start ranks: by rating (highest first), then name in alphabetical order (letters without
/// case or accents: [`hanniball_names::collation_key`]), then player id (C.04.2:
/// rating, then alphabetical). Returns (player id, rank) in rank order.
pub fn seed(entrants: &[(Entrant, String)]) -> Vec<(PlayerId, i32)> {
    let mut order: Vec<(&Entrant, String, &String)> = entrants
        .iter()
        .map(|(e, name)| (e, hanniball_names::collation_key(name), name))
        .collect();
    order.sort_by(|(a, ak, an), (b, bk, bn)| {
        b.rating
            .cmp(&a.rating)
            .then_with(|| ak.cmp(bk))
            .then_with(|| an.cmp(bn))
            .then(a.player.cmp(&b.player))
    });
    order
        .iter()
        .enumerate()
        .map(|(i, (e, _, _))| (e.player, i as i32 + 1))
        .collect()
}

#[cfg(test)]
mod seeding {
    use super::*;

    fn entrant(player: i64, rating: i32, name: &str) -> (Entrant, String) {
        (
            Entrant {
                tournament_id: 1,
                player: PlayerId(player),
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
        let order: Vec<i64> = seed(&entrants).into_iter().map(|(id, _)| id.0).collect();
        assert_eq!(order, [3, 2, 4, 5, 1]);
    }
}
