//! A TRF file as read, and how to read one.

use super::encoding::Encoding;
use super::error::TrfError;
use crate::tournament::{Colour, GameResult, RoundEntry, StartRank, Tournament};

/// A line that was read but not used.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TrfNote {
    pub line: usize,
    pub text: String,
}

/// How to read a TRF file.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ReadOptions {
    /// The file's encoding; `None`: detected ([`decode`](super::decode)).
    pub encoding: Option<Encoding>,
    /// Score every player by the results and ignore a points column that disagrees (else such
    /// a column is [`TrfError::PointsDisagree`]).
    pub recompute_points: bool,
    /// Read an unpaired round (`0000 -` with a blank result, or `Z`) of a player whose points
    /// column counts it as half a point as a half-point bye: how some programs (the Irish Chess
    /// Union's) write a requested bye. Only players whose every such round explains the column.
    pub blank_as_half_point_bye: bool,
}

/// A TRF file as read: the tournament, what was noted while reading, and the round paired
/// without results, if any.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TrfFile {
    /// Every round with its results; the unfinished round's games are not in it (their
    /// players have no entry for that round yet), its byes and finished games are.
    pub tournament: Tournament,
    pub notes: Vec<TrfNote>,
    pub unfinished: Option<UnfinishedRound>,
}

/// The last round of a file, paired but with games that have no result yet.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UnfinishedRound {
    pub round: u32,
    /// `(white, black)` of each game without a result, by white's starting rank.
    pub games: Vec<(StartRank, StartRank)>,
}

impl TrfFile {
    /// The tournament with the unfinished round's games entered, so that its pairing can be
    /// checked: their results are placeholders (unrated draws), which no check of that round
    /// reads (a round is checked against the rounds before it). Not for standings.
    pub fn as_paired(&self) -> Tournament {
        let mut t = self.tournament.clone();
        if let Some(u) = &self.unfinished {
            for &(white, black) in &u.games {
                for (id, colour, opponent) in
                    [(white, Colour::White, black), (black, Colour::Black, white)]
                {
                    t.set_entry(
                        id,
                        u.round,
                        RoundEntry::Game {
                            opponent,
                            colour,
                            result: GameResult::Draw,
                            rated: false,
                        },
                    );
                }
            }
        }
        t
    }

    /// The tournament, or [`TrfError::RoundUnfinished`] when a round has games without
    /// results: what pairing the next round, or importing a tournament, needs.
    pub fn finished(self) -> Result<Tournament, TrfError> {
        match self.unfinished {
            Some(u) => Err(TrfError::RoundUnfinished {
                round: u.round,
                unfinished: u.games.len(),
                next: u.round + 1,
            }),
            None => Ok(self.tournament),
        }
    }
}
