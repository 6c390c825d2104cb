//! The store's answers that are not a whole game: a game without its turn log, a finished game.

use hanniball_arbiter::{Clocks, FinalResult, GameId, Setup, Status, Timestamp};
use hanniball_rules::Side;

/// A game without its turn log (for lists).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GameRow {
    pub id: GameId,
    pub setup: Setup,
    pub position: String,
    pub turns_played: u32,
    pub clocks: Clocks,
    pub status: Status,
    pub result: Option<FinalResult>,
    pub draw_offer: Option<Side>,
    pub created_at: Timestamp,
    pub finished_at: Option<Timestamp>,
    /// How often the result was corrected.
    pub corrections: u32,
}

/// A finished game as the outbox gives it to consumers.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FinishedRow {
    pub sequence: i64,
    pub game: GameRow,
    /// When the outbox row was written: the game's end, or its last correction.
    pub at: Timestamp,
}
