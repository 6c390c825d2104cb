//! Errors: malformed notation (names the bad token) and illegal steps or turns (names the step and why).

use std::fmt;

use super::piece::{Piece, Step};
use super::square::Square;
use crate::game::GameResult;

/// Longest quote of the given text in a message, in characters (a client's 1 MB turn must not
/// come back as a 1 MB error).
const QUOTE_CHARS: usize = 64;

/// `text` Debug-quoted, cut after [`QUOTE_CHARS`] characters with `…`.
pub(crate) fn quote(text: &str) -> String {
    let mut chars = text.chars();
    let head: String = chars.by_ref().take(QUOTE_CHARS).collect();
    if chars.next().is_some() {
        format!("{head:?}…")
    } else {
        format!("{head:?}")
    }
}

/// Text that is not valid notation. The message names the offending token.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{what} {}: {reason}", quote(token))]
pub struct ParseError {
    /// What was being read (`position`, `board rank 12`, `step`, `turn`, ...).
    pub what: String,
    /// The bad token, exactly as given (the message quotes at most 64 characters of it).
    pub token: String,
    /// Why it is not valid.
    pub reason: String,
}

impl ParseError {
    pub(crate) fn new(what: impl Into<String>, token: &str, reason: impl Into<String>) -> Self {
        ParseError {
            what: what.into(),
            token: token.to_owned(),
            reason: reason.into(),
        }
    }
}

/// Why one step cannot be played here.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum StepRefusal {
    /// The game has already ended.
    GameOver(GameResult),
    /// The current turn already has its maximum number of steps.
    TurnFull { limit: u8 },
    /// The origin square holds nothing.
    EmptySquare(Square),
    /// The origin holds an opponent piece.
    NotYours { square: Square, piece: Piece },
    /// The target holds a piece that cannot be moved onto.
    Occupied { square: Square, piece: Piece },
    /// The piece's pattern does not go from there to there.
    OutOfPattern {
        piece: Piece,
        from: Square,
        to: Square,
    },
    /// A knight leap whose two intermediate squares both hold blocking pieces.
    LeapBlocked { a: Square, b: Square },
    /// A keeper may not leave its zone.
    KeeperZone(Square),
    /// A keeper holding the ball may not move away from it.
    KeeperLeavesBall,
    /// Carry and shoot need the ball.
    NoBall(Square),
    /// A keeper's shot must land outside its own zone.
    KeeperShotInZone(Square),
    /// The shot lands on a keeper, so it must name where it ricochets.
    MustRicochet(Square),
    /// A ricochet named on a square with no keeper.
    NoKeeper(Square),
    /// The ricochet square is not 1–5 squares straight from the keeper.
    RicochetOutOfReach { keeper: Square, to: Square },
    /// A ricochet can never land in a goal.
    RicochetIntoGoal(Square),
    /// Removal only as the first step of a turn.
    RemovalNotFirst,
    /// Removal needs an offence by the opponent.
    NoOffence,
    /// Only opponent pieces can be removed.
    RemoveOwn { square: Square, piece: Piece },
    /// The keeper is never removed.
    RemoveKeeper(Square),
}

impl fmt::Display for StepRefusal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            StepRefusal::GameOver(result) => write!(f, "the game is over ({result})"),
            StepRefusal::TurnFull { limit } => {
                write!(f, "the turn already has its {limit} steps")
            }
            StepRefusal::EmptySquare(square) => write!(f, "{square} is empty"),
            StepRefusal::NotYours { square, piece } => {
                write!(
                    f,
                    "{square} holds a {piece}, not a piece of the side to move"
                )
            }
            StepRefusal::Occupied { square, piece } => write!(f, "{square} holds a {piece}"),
            StepRefusal::OutOfPattern { piece, from, to } => {
                write!(f, "a {} cannot go from {from} to {to}", piece.kind.name())
            }
            StepRefusal::LeapBlocked { a, b } => {
                write!(f, "the leap is blocked by the pieces on {a} and {b}")
            }
            StepRefusal::KeeperZone(square) => {
                write!(f, "{square} is outside the keeper's zone")
            }
            StepRefusal::KeeperLeavesBall => {
                f.write_str("the keeper may not leave the ball behind (carry it with =)")
            }
            StepRefusal::NoBall(square) => {
                write!(f, "the piece on {square} does not hold the ball")
            }
            StepRefusal::KeeperShotInZone(square) => {
                write!(
                    f,
                    "a keeper's shot must land outside its zone, and {square} is inside"
                )
            }
            StepRefusal::MustRicochet(keeper) => write!(
                f,
                "the ball ricochets off the keeper on {keeper}: name the landing square ({keeper}>square)"
            ),
            StepRefusal::NoKeeper(square) => {
                write!(f, "no keeper stands on {square} to ricochet the ball")
            }
            StepRefusal::RicochetOutOfReach { keeper, to } => write!(
                f,
                "{to} is not 1 to 5 squares in a straight line from the keeper on {keeper}"
            ),
            StepRefusal::RicochetIntoGoal(square) => {
                write!(
                    f,
                    "a ricochet cannot land in a goal, and {square} is a goal square"
                )
            }
            StepRefusal::RemovalNotFirst => {
                f.write_str("a penalty removal is only allowed as the first step of a turn")
            }
            StepRefusal::NoOffence => {
                f.write_str("the opponent has committed no offence, so there is no penalty removal")
            }
            StepRefusal::RemoveOwn { square, piece } => {
                write!(
                    f,
                    "{square} holds a {piece}; only opponent pieces can be removed"
                )
            }
            StepRefusal::RemoveKeeper(square) => {
                write!(f, "the keeper on {square} can never be removed")
            }
        }
    }
}

/// A step that was refused: which step and why.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("step {step} is illegal: {reason}")]
pub struct IllegalStep {
    pub step: Step,
    pub reason: StepRefusal,
}

/// A whole turn that was refused.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum IllegalTurn {
    /// One of its steps is illegal where it is played.
    #[error("{0}")]
    Step(#[from] IllegalStep),
    /// A turn without steps.
    #[error("a turn needs at least one step")]
    Empty,
    /// The position at the end equals the position at the start (RULES 1.4).
    #[error("the turn changes nothing: the position at its end equals the position at its start")]
    NoChange,
}

/// A turn given as text that could not be played.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum TurnTextError {
    #[error("malformed turn: {0}")]
    Malformed(#[from] ParseError),
    #[error("{0}")]
    Illegal(#[from] IllegalTurn),
}
