//! Round-robin schedules from the FIDE Berger tables (Handbook C.05, Annex 1).
//!
//! # The table
//! For `n` players the table is built for `N = n` (even) or `N = n + 1` (odd: the extra
//! number `N` is a dummy, and whoever is drawn against it has the bye, shown as
//! [`Board::Bye`]). A cycle has `N - 1` rounds of `N / 2` boards, listed in the order of
//! FIDE's printed tables:
//!
//! - round 1: board `b` is `b` (White) against `N + 1 - b`;
//! - every later round is derived from the previous one: list the players `1 ..= N-1` by
//!   board and, on a board, White before Black; the last of that list meets `N` on board 1,
//!   and `N` alternates colours (White in round 2, Black in round 3, ...); the rest of the
//!   list is paired from its end, the penultimate player White against the last.
//!
//! This reproduces the printed tables (checked for 4, 6, 8 and 10 players in
//! `tests/data/roundrobin/berger.txt`) and is the construction described in FIDE's own
//! tie-break server (`berger.py`, "Berger explained").
//!
//! # Double round robin
//! The second cycle repeats the first with colours reversed. FIDE's Annex 1 recommends
//! swapping the last two rounds of the first cycle so that nobody gets three games in a row
//! with the same colour across the change of cycle; [`Cycles::Double`] applies that swap
//! (the second cycle is then the *unswapped* table with colours reversed, so the pairs of
//! rounds 1/N, 2/N+1, ... still mirror each other except the two swapped rounds).
//! [`Cycles::DoubleUnswapped`] is the plain repetition, for organisers who do not follow
//! the recommendation.
//!
//! # Colour balance
//! In one cycle every player of an even field has as many Whites as Blacks plus or minus
//! one (an odd number of games); in an odd field every player has exactly as many Whites
//! as Blacks (the bye round takes the odd one out). Inside a cycle nobody has three games
//! in a row with the same colour. The tests check all three facts for 2 to 24 players.

use std::fmt;

use thiserror::Error;

/// A player's 1-based number in the draw (the Berger table's "pairing number").
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct PairingNumber(pub u32);

impl fmt::Display for PairingNumber {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.0)
    }
}

/// One board of a round.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Board {
    /// A game: `white` plays `black`.
    Game {
        white: PairingNumber,
        black: PairingNumber,
    },
    /// `player` was drawn against the dummy (odd number of players) and has no game.
    Bye { player: PairingNumber },
}

impl fmt::Display for Board {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Board::Game { white, black } => write!(f, "{white}-{black}"),
            Board::Bye { player } => write!(f, "{player}-bye"),
        }
    }
}

/// How many times everyone meets everyone.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Cycles {
    /// Everyone meets everyone once.
    Single,
    /// Twice, colours reversed in the second cycle, with FIDE's recommended swap of the
    /// last two rounds of the first cycle.
    Double,
    /// Twice, colours reversed in the second cycle, without the swap.
    DoubleUnswapped,
}

/// Why no schedule could be made.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum RoundRobinError {
    #[error("a round robin needs at least 2 players, got {players}")]
    TooFewPlayers { players: usize },
    #[error("a round robin of {players} players is larger than the supported {max}")]
    TooManyPlayers { players: usize, max: usize },
}

/// The largest field accepted: the schedule has about `n² / 2` boards per cycle.
pub const MAX_PLAYERS: usize = 1000;

/// One round: its boards in table order.
pub type Round = Vec<Board>;

/// The full schedule for `players` players: `result[r]` is round `r + 1`.
///
/// Rounds per cycle: `players - 1` for an even field, `players` for an odd one.
pub fn berger(players: usize, cycles: Cycles) -> Result<Vec<Round>, RoundRobinError> {
    if players < 2 {
        return Err(RoundRobinError::TooFewPlayers { players });
    }
    if players > MAX_PLAYERS {
        return Err(RoundRobinError::TooManyPlayers {
            players,
            max: MAX_PLAYERS,
        });
    }
    let table = table(players);
    let rounds = match cycles {
        Cycles::Single => table,
        Cycles::Double | Cycles::DoubleUnswapped => {
            let mut first = table.clone();
            let len = first.len();
            if cycles == Cycles::Double && len >= 2 {
                first.swap(len - 2, len - 1);
            }
            let second = table.iter().map(|round| reversed(round));
            first.into_iter().chain(second).collect()
        }
    };
    Ok(rounds)
}

/// The single-cycle table, byes resolved.
fn table(players: usize) -> Vec<Round> {
    let n = players + players % 2; // with the dummy
    let dummy = (players % 2 == 1).then_some(n);
    let boards = n / 2;
    let mut rounds: Vec<Vec<(usize, usize)>> = Vec::with_capacity(n - 1);
    rounds.push((1..=boards).map(|b| (b, n + 1 - b)).collect());
    let mut last_is_white = false;
    for _ in 2..n {
        let previous = rounds.last().expect("round 1 was pushed before the loop");
        // Players 1..=n-1 by board, White before Black.
        let mut order: Vec<usize> = previous
            .iter()
            .flat_map(|&(w, b)| [w, b])
            .filter(|&p| p != n)
            .collect();
        let mut round = Vec::with_capacity(boards);
        let against_last = order.pop().expect("a table has at least one other player");
        last_is_white = !last_is_white;
        round.push(if last_is_white {
            (n, against_last)
        } else {
            (against_last, n)
        });
        while let (Some(black), Some(white)) = (order.pop(), order.pop()) {
            round.push((white, black));
        }
        rounds.push(round);
    }
    rounds
        .into_iter()
        .map(|round| {
            round
                .into_iter()
                .map(|(white, black)| board(white, black, dummy))
                .collect()
        })
        .collect()
}

fn board(white: usize, black: usize, dummy: Option<usize>) -> Board {
    let number = |p: usize| PairingNumber(u32::try_from(p).expect("at most MAX_PLAYERS + 1"));
    match dummy {
        Some(d) if white == d => Board::Bye {
            player: number(black),
        },
        Some(d) if black == d => Board::Bye {
            player: number(white),
        },
        _ => Board::Game {
            white: number(white),
            black: number(black),
        },
    }
}

fn reversed(round: &[Board]) -> Round {
    round
        .iter()
        .map(|board| match *board {
            Board::Game { white, black } => Board::Game {
                white: black,
                black: white,
            },
            bye @ Board::Bye { .. } => bye,
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn three_players_rotate_the_bye() {
        let rounds = berger(3, Cycles::Single).expect("3 players is a valid field");
        let text: Vec<String> = rounds
            .iter()
            .map(|r| {
                r.iter()
                    .map(ToString::to_string)
                    .collect::<Vec<_>>()
                    .join(" ")
            })
            .collect();
        // FIDE table for 3 or 4 players, 4 being the bye.
        assert_eq!(text, ["1-bye 2-3", "3-bye 1-2", "2-bye 3-1"]);
    }
}
