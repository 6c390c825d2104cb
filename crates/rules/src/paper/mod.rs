//! Paper football ("Интеллектуальный футбол на бумаге", RULES.md Part 2): the field, steps,
//! bounces, turns, the end of the game, the step notation, a terminal picture, and the seam
//! implementation [`PaperGame`].
//!
//! Everything here is pure and deterministic: no IO, no clock, no randomness (playouts bring
//! their own RNG). This module does NOT know the platform endings (resignation, time, agreement,
//! abort; RULES.md 2.4 leaves them to the arbiter), and it has no turn limit: every game ends
//! with a goal or a dead end, because each step uses up one of the field's finitely many
//! segments.
//!
//! The typed API is [`Position`] (always a legal, reachable position) with [`Direction`] steps;
//! the seam ([`crate::game::Game`]) talks text and is a thin layer over it.

mod field;
mod notation;
mod position;
mod render;
mod seam;
mod svg;

pub use field::{Direction, DirectionSet, DirectionSetIter, Point, UnknownDirection};
pub use notation::{NotationError, PositionError, parse_turn, write_steps};
pub use position::{Bounce, IllegalStep, IllegalTurn, Position, StepOutcome, StepRefusal};
pub use seam::{PaperGame, RULESETS};
pub use svg::{svg, svg_titled};
