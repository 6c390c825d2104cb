//! The vocabulary every service shares: the ids and the timestamp (newtypes over `i64`), a time
//! control, and whether a finished game counts as played. Their own small crate, so that
//! services that only name players and games and read their results (rating, scheduler,
//! accounts, svc-kit) need not depend on the arbiter's game crate for them.
//!
//! Pure: no dependencies, no IO.

use std::fmt;

/// Milliseconds since the Unix epoch.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub struct Timestamp(pub i64);

/// A player's id.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct PlayerId(pub i64);

/// A game's id.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct GameId(pub i64);

impl fmt::Display for PlayerId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.0)
    }
}

impl fmt::Display for GameId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.0)
    }
}

/// Fischer time control: an initial allowance and an increment added after each own turn.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct TimeControl {
    pub initial_ms: i64,
    pub increment_ms: i64,
}

/// Whether a finished game counts as played (and so may be rated): not a forfeit, and either
/// played over the board (the organiser reported a played game) or both sides made at least one
/// turn here. The one rule for the scheduler (a board's result) and the rating service (what is
/// rated), as FIDE rates: forfeits and games without a move by each side never count.
#[must_use]
pub const fn counts_as_played(turns_played: u32, forfeit: bool, over_the_board: bool) -> bool {
    !forfeit && (over_the_board || turns_played >= 2)
}
