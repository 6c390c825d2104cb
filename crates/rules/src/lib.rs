//! Pure rules engines for the platform's games: HanniBall (RULES.md Part 1) and paper football
//! (RULES.md Part 2), their notations, and the game-agnostic seam the services use.
//!
//! What this crate does NOT do: no IO, no async, no clock, no global randomness, no logging.
//! Time never matters to the rules; randomness (for playouts) arrives from the caller. Everything
//! here is a deterministic function of its inputs, so replaying stored turns reproduces a stored
//! result exactly.

pub mod game;
pub mod hanniball;
mod kinds;
pub mod paper;
pub mod record;

pub use game::{
    EndReason, Game, GameKind, GameOptions, GameResult, Outcome, PartialTurn, SetupError, Side,
    TurnError,
};

/// `text` as XML character data (the SVG pictures' titles come from their callers).
pub(crate) fn xml_text(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}
