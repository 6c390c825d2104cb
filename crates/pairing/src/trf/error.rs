//! Why a TRF text was refused, and the limits the errors name.

use thiserror::Error;

use super::encoding::Encoding;
use super::points::PointsMismatch;
use crate::tournament::Score;

/// Why a TRF text was refused. Line numbers are 1-based.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum TrfError {
    #[error("line {line}: {field} {text:?} is not a number")]
    BadNumber {
        line: usize,
        field: &'static str,
        text: String,
    },
    #[error(
        "line {line}: {field} {text:?} is more than {} points",
        Score(MAX_TENTHS)
    )]
    TooManyPoints {
        line: usize,
        field: &'static str,
        text: String,
    },
    #[error("line {line}: player record is too short ({len} characters, at least 8 needed)")]
    ShortPlayerLine { line: usize, len: usize },
    #[error("line {line}: starting rank {rank} appears twice")]
    DuplicatePlayer { line: usize, rank: u32 },
    #[error("starting ranks must be 1..={count} without gaps; {missing} is missing")]
    MissingPlayer { count: usize, missing: u32 },
    #[error("line {line}: round {round}: unknown result code {code:?}")]
    UnknownResult { line: usize, round: u32, code: char },
    #[error("line {line}: round {round}: unknown colour {code:?}")]
    UnknownColour { line: usize, round: u32, code: char },
    #[error("line {line}: round {round}: a game against {opponent} needs colour w or b")]
    GameWithoutColour {
        line: usize,
        round: u32,
        opponent: u32,
    },
    #[error("line {line}: round {round}: result {code:?} needs an opponent")]
    ResultWithoutOpponent { line: usize, round: u32, code: char },
    #[error("line {line}: round {round}: result {code:?} cannot have opponent {opponent}")]
    ByeWithOpponent {
        line: usize,
        round: u32,
        code: char,
        opponent: u32,
    },
    #[error("line {line}: round {round}: opponent {opponent} is not a registered player")]
    UnknownOpponent {
        line: usize,
        round: u32,
        opponent: u32,
    },
    #[error("line {line}: round {round}: player {player} is paired with itself")]
    SelfPairing {
        line: usize,
        round: u32,
        player: u32,
    },
    #[error("line {line}: {text:?} is not white1 or black1")]
    BadInitialColour { line: usize, text: String },
    #[error("line {line}: withdrawal line needs a known rank and a round, got {text:?}")]
    BadWithdrawal { line: usize, text: String },
    #[error("line {line}: point system {text:?}: expected codes W D L A Z P, each with points")]
    BadPointSystem { line: usize, text: String },
    #[error("line {line}: {record} line {text:?}: expected {expected}")]
    BadRecord {
        line: usize,
        record: &'static str,
        text: String,
        expected: &'static str,
    },
    #[error("the Baku acceleration needs a loss worth 0 and a win worth two draws")]
    BakuPointSystem,
    #[error("no player records")]
    NoPlayers,
    #[error("line {line}: byte 0x{byte:02X} is not {encoding} text (name the file's encoding)")]
    NotInEncoding {
        encoding: Encoding,
        line: usize,
        byte: u8,
    },
    #[error(
        "the points column disagrees with the results under the point system {system}: {}{}; {}",
        list_mismatches(players),
        if players.len() > 5 { format!(" and {} more", players.len() - 5) } else { String::new() },
        match (explained_by, blank_byes) {
            (Some(other), _) => format!("the point system {other} explains every player's points (a `162 {other}` line says so), or recompute the points from the results"),
            (None, Some(rounds)) => format!("every difference is half a point for each of those players' {rounds} unpaired rounds (`0000 -` with a blank result, or Z): the program that wrote the file counts them as half-point byes; read them so (--blank-as H), or recompute the points from the results"),
            (None, None) => "no usual point system explains them: correct the file, or recompute the points from the results".to_string(),
        }
    )]
    PointsDisagree {
        players: Vec<PointsMismatch>,
        /// The file's point system, as a `162` body.
        system: String,
        /// A point system under which every column agrees, as a `162` body.
        explained_by: Option<String>,
        /// `Some(n)`: reading the `n` unpaired rounds (blank or `Z`) of the players who disagree
        /// as half-point byes explains every column ([`ReadOptions::blank_as_half_point_bye`]).
        ///
        /// [`ReadOptions::blank_as_half_point_bye`]: super::ReadOptions::blank_as_half_point_bye
        blank_byes: Option<usize>,
    },
    #[error(
        "line {line}: round {round}: a game against {opponent} without a result before a later round with results: only the last round may be unfinished"
    )]
    UnfinishedNotLast {
        line: usize,
        round: u32,
        opponent: u32,
    },
    #[error(
        "line {line}: round {round}: player {player} has a game against {opponent} without a result, but {opponent}'s record does not name {player} with the other colour"
    )]
    UnfinishedMismatch {
        line: usize,
        round: u32,
        player: u32,
        opponent: u32,
    },
    #[error(
        "round {round} is paired but {unfinished} of its games have no result yet: enter the results before pairing round {next}"
    )]
    RoundUnfinished {
        round: u32,
        unfinished: usize,
        next: u32,
    },
    #[error(
        "{count} players do not fit in a TRF file: starting ranks have four digits, so at most {} players",
        MAX_PLAYERS
    )]
    TooManyPlayers { count: usize },
}

fn list_mismatches(players: &[PointsMismatch]) -> String {
    let shown: Vec<String> = players.iter().take(5).map(ToString::to_string).collect();
    shown.join(", ")
}

/// The most a point value (`162`, `BBx`, `XXA`) may be, in tenths: 99.9 points, the most the TRF
/// points format (`dd.d`) holds. Scores are sums of such values, and must not overflow.
pub(super) const MAX_TENTHS: u32 = 999;

/// The most players a TRF file can hold: a starting rank, and each round's opponent, has four
/// columns (bbpPairings stops at the same number).
pub const MAX_PLAYERS: usize = 9_999;
