//! The crosstable the tie-breaks are computed from: each participant's rounds, checked, and
//! the exact [`Points`] they count in.

use std::fmt;

use thiserror::Error;

use crate::tournament::{Colour, PointSystem, StartRank as PlayerNo};

/// A game's result seen from one participant.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Outcome {
    Win,
    Draw,
    Loss,
}

impl Outcome {
    fn opposite(self) -> Outcome {
        match self {
            Outcome::Win => Outcome::Loss,
            Outcome::Draw => Outcome::Draw,
            Outcome::Loss => Outcome::Win,
        }
    }

    /// Rating points in half points (1, ½, 0), whatever the tournament's point system.
    pub(super) fn halves(self) -> u32 {
        match self {
            Outcome::Win => 2,
            Outcome::Draw => 1,
            Outcome::Loss => 0,
        }
    }
}

/// Why a participant has no game in a round.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Unplayed {
    /// Pairing-allocated bye: [`PointSystem::pab`] points; never voluntary.
    PairingBye,
    /// Full-point bye (requested or awarded): a win's points; not voluntary.
    FullPointBye,
    /// Requested half-point bye: a draw's points.
    HalfPointBye,
    /// Requested zero-point bye, absence, or any round after withdrawing.
    ZeroPointBye,
    /// The scheduled opponent did not play: a win's points.
    ForfeitWin { opponent: PlayerNo },
    /// The participant did not play (both sides in a double forfeit).
    ForfeitLoss { opponent: PlayerNo },
}

/// One participant's round.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum RoundEntry {
    /// A game over the board.
    Played {
        opponent: PlayerNo,
        colour: Colour,
        outcome: Outcome,
    },
    Unplayed(Unplayed),
}

impl RoundEntry {
    /// Points in tenths under `ps`.
    pub(super) fn tenths(self, ps: &PointSystem) -> u32 {
        match self {
            RoundEntry::Played { outcome, .. } => match outcome {
                Outcome::Win => ps.win,
                Outcome::Draw => ps.draw,
                Outcome::Loss => ps.loss,
            },
            RoundEntry::Unplayed(u) => match u {
                Unplayed::PairingBye => ps.pab,
                Unplayed::FullPointBye | Unplayed::ForfeitWin { .. } => ps.win,
                Unplayed::HalfPointBye => ps.draw,
                Unplayed::ZeroPointBye => ps.zero_bye,
                Unplayed::ForfeitLoss { .. } => ps.forfeit_loss,
            },
        }
    }

    /// Voluntary unplayed round (16.1.2).
    pub(super) fn is_vur(self) -> bool {
        matches!(
            self,
            RoundEntry::Unplayed(
                Unplayed::HalfPointBye | Unplayed::ZeroPointBye | Unplayed::ForfeitLoss { .. }
            )
        )
    }
}

/// One participant's line of the crosstable.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PlayerRecord {
    /// `None` for an unrated player (see [`Unrated`](super::Unrated)).
    pub rating: Option<u16>,
    /// Round 1 first; every participant has the same number of rounds.
    pub rounds: Vec<RoundEntry>,
}

/// What is wrong with a crosstable.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum CrosstableError {
    #[error("player {player} has {rounds} rounds, player 1 has {expected}")]
    RoundCount {
        player: PlayerNo,
        rounds: usize,
        expected: usize,
    },
    #[error("player {player} in round {round} meets player {opponent}, who does not exist")]
    UnknownOpponent {
        player: PlayerNo,
        round: usize,
        opponent: PlayerNo,
    },
    #[error("player {player} in round {round} is paired against themself")]
    OwnOpponent { player: PlayerNo, round: usize },
    #[error(
        "player {player} in round {round} meets player {opponent}, whose round {round} does not show the same game"
    )]
    Mismatch {
        player: PlayerNo,
        round: usize,
        opponent: PlayerNo,
    },
    #[error("{players} players is more than the supported {max}")]
    TooManyPlayers { players: usize, max: usize },
}

/// A checked crosstable: every game appears, mirrored, on both participants' lines.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Crosstable {
    /// Index `i` is player `i + 1`; all have the same number of rounds.
    pub(super) players: Vec<PlayerRecord>,
    pub(super) points: PointSystem,
}

/// The largest field accepted (keeps every sum of hundredths far inside `u64`).
pub const MAX_PLAYERS: usize = 100_000;

impl Crosstable {
    /// A crosstable scored 1, ½, 0 (a PAB a win); see [`Crosstable::with_points`].
    pub fn new(players: Vec<PlayerRecord>) -> Result<Crosstable, CrosstableError> {
        Crosstable::with_points(players, PointSystem::default())
    }

    /// Checks that every game and forfeit is recorded on both sides, consistently; rounds score
    /// under `points`.
    pub fn with_points(
        players: Vec<PlayerRecord>,
        points: PointSystem,
    ) -> Result<Crosstable, CrosstableError> {
        if players.len() > MAX_PLAYERS {
            return Err(CrosstableError::TooManyPlayers {
                players: players.len(),
                max: MAX_PLAYERS,
            });
        }
        let expected = players.first().map_or(0, |p| p.rounds.len());
        for (i, record) in players.iter().enumerate() {
            let player = PlayerNo::of(i);
            if record.rounds.len() != expected {
                return Err(CrosstableError::RoundCount {
                    player,
                    rounds: record.rounds.len(),
                    expected,
                });
            }
            for (r, entry) in record.rounds.iter().enumerate() {
                let round = r + 1;
                let (opponent, mirror_ok): (PlayerNo, fn(RoundEntry, RoundEntry) -> bool) =
                    match *entry {
                        RoundEntry::Played { opponent, .. } => (opponent, mirrors_game),
                        RoundEntry::Unplayed(
                            Unplayed::ForfeitWin { opponent } | Unplayed::ForfeitLoss { opponent },
                        ) => (opponent, mirrors_forfeit),
                        RoundEntry::Unplayed(_) => continue,
                    };
                if opponent == player {
                    return Err(CrosstableError::OwnOpponent { player, round });
                }
                if opponent.0 == 0 || opponent.index() >= players.len() {
                    return Err(CrosstableError::UnknownOpponent {
                        player,
                        round,
                        opponent,
                    });
                }
                let theirs = players[opponent.index()].rounds[r];
                if !mirror_ok(*entry, theirs) || opponent_of(theirs) != Some(player) {
                    return Err(CrosstableError::Mismatch {
                        player,
                        round,
                        opponent,
                    });
                }
            }
        }
        Ok(Crosstable { players, points })
    }

    /// The participants, player 1 first.
    pub fn players(&self) -> &[PlayerRecord] {
        &self.players
    }

    /// Number of rounds recorded.
    pub fn rounds(&self) -> usize {
        self.players.first().map_or(0, |p| p.rounds.len())
    }

    /// A participant's score.
    ///
    /// # Panics
    /// If `player` is not in the crosstable.
    pub fn points(&self, player: PlayerNo) -> Points {
        Points::from_tenths(
            self.players[player.index()]
                .rounds
                .iter()
                .map(|e| u64::from(e.tenths(&self.points)))
                .sum(),
        )
    }
}

pub(super) fn opponent_of(entry: RoundEntry) -> Option<PlayerNo> {
    match entry {
        RoundEntry::Played { opponent, .. }
        | RoundEntry::Unplayed(
            Unplayed::ForfeitWin { opponent } | Unplayed::ForfeitLoss { opponent },
        ) => Some(opponent),
        RoundEntry::Unplayed(_) => None,
    }
}

fn mirrors_game(mine: RoundEntry, theirs: RoundEntry) -> bool {
    match (mine, theirs) {
        (
            RoundEntry::Played {
                colour: c1,
                outcome: o1,
                ..
            },
            RoundEntry::Played {
                colour: c2,
                outcome: o2,
                ..
            },
        ) => c1.opposite() == c2 && o1.opposite() == o2,
        _ => false,
    }
}

fn mirrors_forfeit(mine: RoundEntry, theirs: RoundEntry) -> bool {
    matches!(
        (mine, theirs),
        (
            RoundEntry::Unplayed(Unplayed::ForfeitWin { .. }),
            RoundEntry::Unplayed(Unplayed::ForfeitLoss { .. })
        ) | (
            RoundEntry::Unplayed(Unplayed::ForfeitLoss { .. }),
            RoundEntry::Unplayed(Unplayed::ForfeitWin { .. } | Unplayed::ForfeitLoss { .. })
        )
    )
}

/// An exact score or score-like value, in hundredths of a point (SB multiplies two tenths).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub struct Points {
    hundredths: u64,
}

impl Points {
    /// `halves` half points.
    pub fn from_halves(halves: u32) -> Points {
        Points {
            hundredths: u64::from(halves) * 50,
        }
    }

    /// `quarters` quarter points.
    pub fn from_quarters(quarters: u32) -> Points {
        Points {
            hundredths: u64::from(quarters) * 25,
        }
    }

    /// `tenths` tenths of a point.
    pub fn from_tenths(tenths: u64) -> Points {
        Points {
            hundredths: tenths * 10,
        }
    }

    /// `hundredths` hundredths of a point.
    pub fn from_hundredths(hundredths: u64) -> Points {
        Points { hundredths }
    }

    /// The value in hundredths of a point.
    pub fn hundredths(self) -> u64 {
        self.hundredths
    }
}

impl fmt::Display for Points {
    /// `3`, `3.5`, `3.25`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let (whole, rest) = (self.hundredths / 100, self.hundredths % 100);
        match rest {
            0 => write!(f, "{whole}"),
            r if r % 10 == 0 => write!(f, "{whole}.{}", r / 10),
            r => write!(f, "{whole}.{r:02}"),
        }
    }
}
