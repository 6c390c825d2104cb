//! Text notation (RULES.md 2.5): steps, turns and positions, parsed strictly and written canonically.

use std::fmt;
use std::str::FromStr;

use super::field::Direction;
use super::position::{IllegalStep, Position};

/// Longest token quoted back in an error; a hostile input must not make a huge message.
const MAX_QUOTED: usize = 24;

/// Text that is not a list of steps in canonical notation. Token numbers count from 1.
#[derive(Clone, Debug, PartialEq, Eq, Hash, thiserror::Error)]
pub enum NotationError {
    #[error("unknown step {token:?} at token {index} (expected one of: N NE E SE S SW W NW)")]
    UnknownStep { index: usize, token: String },
    #[error("leading space: steps are separated by single spaces, with none at either end")]
    LeadingSpace,
    #[error("trailing space: steps are separated by single spaces, with none at either end")]
    TrailingSpace,
    #[error("more than one space after token {after}: steps are separated by single spaces")]
    DoubleSpace { after: usize },
}

/// A position text that does not describe a legal game (RULES.md 2.5: the notation is the
/// history, so an illegal history is a malformed position).
#[derive(Clone, Debug, PartialEq, Eq, Hash, thiserror::Error)]
pub enum PositionError {
    #[error(transparent)]
    Notation(#[from] NotationError),
    #[error("step {index} ({}) is illegal: {}", error.step, error.explanation())]
    IllegalHistory { index: usize, error: IllegalStep },
}

impl Position {
    /// The position after `steps` from the start, refusing an illegal history (the first bad
    /// step, numbered from 1, and why).
    pub fn from_steps(steps: &[Direction]) -> Result<Position, PositionError> {
        let mut position = Position::initial();
        for (i, &step) in steps.iter().enumerate() {
            position
                .apply_step(step)
                .map_err(|error| PositionError::IllegalHistory {
                    index: i + 1,
                    error,
                })?;
        }
        Ok(position)
    }
}

/// Splits `text` into steps. The empty text is the empty list; callers that need a step decide.
fn steps(text: &str) -> impl Iterator<Item = Result<Direction, NotationError>> + '_ {
    let mut tokens = text.split(' ').enumerate().peekable();
    let empty = text.is_empty();
    std::iter::from_fn(move || {
        if empty {
            return None;
        }
        let (i, token) = tokens.next()?;
        let index = i + 1;
        if token.is_empty() {
            return Some(Err(if i == 0 {
                NotationError::LeadingSpace
            } else if tokens.peek().is_none() {
                NotationError::TrailingSpace
            } else {
                NotationError::DoubleSpace { after: i }
            }));
        }
        Some(token.parse().map_err(|_| NotationError::UnknownStep {
            index,
            token: quote(token),
        }))
    })
}

fn quote(token: &str) -> String {
    match token.char_indices().nth(MAX_QUOTED) {
        Some((cut, _)) => format!("{}...", &token[..cut]),
        None => token.to_owned(),
    }
}

/// Parses a turn: steps separated by single spaces (`NE E SE`). The empty text is a turn of no
/// steps: well formed, and refused by the rules (as in HanniBall).
pub fn parse_turn(text: &str) -> Result<Vec<Direction>, NotationError> {
    steps(text).collect()
}

/// Writes steps canonically: names separated by single spaces.
#[must_use]
pub fn write_steps(steps: &[Direction]) -> String {
    let mut text = String::with_capacity(steps.len() * 3);
    for (i, step) in steps.iter().enumerate() {
        if i > 0 {
            text.push(' ');
        }
        text.push_str(step.name());
    }
    text
}

impl Position {
    /// Parses a position: every step since the start, separated by single spaces; the empty
    /// text is the initial position. The steps are replayed, so an illegal history is refused
    /// with the number of the first bad step and why. A history may end in the middle of a turn
    /// (see [`Position`]).
    pub fn from_notation(text: &str) -> Result<Position, PositionError> {
        let mut position = Position::initial();
        for (i, step) in steps(text).enumerate() {
            position
                .apply_step(step?)
                .map_err(|error| PositionError::IllegalHistory {
                    index: i + 1,
                    error,
                })?;
        }
        Ok(position)
    }

    /// The canonical text; [`Position::from_notation`] of it gives back an equal position.
    #[must_use]
    pub fn to_notation(&self) -> String {
        write_steps(self.steps())
    }
}

impl FromStr for Position {
    type Err = PositionError;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Position::from_notation(s)
    }
}

impl fmt::Display for Position {
    /// The notation, as [`Position::to_notation`].
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.to_notation())
    }
}
