//! What the store keeps and answers: the log's events and what they change, ratings rows,
//! and the [`Rater`] that does the maths for it.

use hanniball_ids::{GameId, PlayerId, Timestamp};
use hanniball_rating::{Rating, Score};

/// What an event changes.
#[derive(Clone, Debug, PartialEq)]
pub enum Change {
    /// A rated game; `score` is the first player's.
    Game {
        game_id: GameId,
        first: PlayerId,
        second: PlayerId,
        score: Score,
    },
    /// The organiser corrected the result of game `game_id` (its `correction`-th correction):
    /// the game's last rated effect (`previous`, filled in by the store from the log) is taken
    /// back, and the new result, when it is a rated one (`score`, the first player's), is rated
    /// as a game at the time of the correction.
    Correction {
        game_id: GameId,
        first: PlayerId,
        second: PlayerId,
        correction: u32,
        score: Option<Score>,
        previous: Option<Effect>,
    },
    /// An admin sets a player's rating.
    Adjustment {
        player: PlayerId,
        rating: f64,
        /// Why (required by the service; kept for the audit).
        reason: String,
        /// Who (for the audit).
        actor: String,
    },
}

impl Change {
    /// The first player (the adjusted player of an adjustment).
    #[must_use]
    pub fn first(&self) -> PlayerId {
        match self {
            Change::Game { first, .. } | Change::Correction { first, .. } => *first,
            Change::Adjustment { player, .. } => *player,
        }
    }

    /// The second player of a game.
    #[must_use]
    pub fn second(&self) -> Option<PlayerId> {
        match self {
            Change::Game { second, .. } | Change::Correction { second, .. } => Some(*second),
            Change::Adjustment { .. } => None,
        }
    }

    pub(super) fn kind(&self) -> &'static str {
        match self {
            Change::Game { .. } => GAME,
            Change::Correction { .. } => CORRECTION,
            Change::Adjustment { .. } => ADJUSTMENT,
        }
    }
}

pub(super) const GAME: &str = "game";
pub(super) const CORRECTION: &str = "correction";
pub(super) const ADJUSTMENT: &str = "adjustment";

/// What a game's rating events left in the ratings: the score rated (the first player's) and
/// each player's rating change, which a correction takes back.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Effect {
    pub score: Score,
    pub first_delta: f64,
    pub second_delta: f64,
}

impl Effect {
    /// The effect after an event of the game that moved the ratings as `points` says, given
    /// the effect before it: a game's is its change; a correction's is its change plus what it
    /// took back (the new result's own change); a correction to an unrated result leaves none.
    #[must_use]
    pub fn after(change: &Change, points: &Points, previous: Option<Effect>) -> Option<Effect> {
        let delta = |before: Option<f64>, after: Option<f64>| match (before, after) {
            (Some(b), Some(a)) => a - b,
            _ => 0.0,
        };
        let first = points.first_after - points.first_before;
        let second = delta(points.second_before, points.second_after);
        match change {
            Change::Game { score, .. } => Some(Effect {
                score: *score,
                first_delta: first,
                second_delta: second,
            }),
            Change::Correction {
                score: Some(score), ..
            } => Some(Effect {
                score: *score,
                first_delta: first + previous.map_or(0.0, |p| p.first_delta),
                second_delta: second + previous.map_or(0.0, |p| p.second_delta),
            }),
            Change::Correction { score: None, .. } => None,
            Change::Adjustment { .. } => previous,
        }
    }
}

/// An event to record.
#[derive(Clone, Debug, PartialEq)]
pub struct NewEvent {
    pub ladder: String,
    /// When the game finished, or when the adjustment was made.
    pub at: Timestamp,
    pub change: Change,
}

/// The ratings around an event: the first player's, and the second's for a game.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Points {
    pub first_before: f64,
    pub first_after: f64,
    pub second_before: Option<f64>,
    pub second_after: Option<f64>,
}

impl Points {
    /// Equal to the last bit (NaN equal to NaN): a replay must reproduce what was stored.
    pub(super) fn same(&self, other: &Points) -> bool {
        let bits = |x: Option<f64>| x.map(f64::to_bits);
        self.first_before.to_bits() == other.first_before.to_bits()
            && self.first_after.to_bits() == other.first_after.to_bits()
            && bits(self.second_before) == bits(other.second_before)
            && bits(self.second_after) == bits(other.second_after)
    }
}

/// A stored event.
#[derive(Clone, Debug, PartialEq)]
pub struct EventRow {
    pub sequence: i64,
    pub event: NewEvent,
    /// `None` only for imported events not yet replayed (see
    /// [`super::Store::import_rating_events`]).
    pub points: Option<Points>,
    pub recorded_at: Timestamp,
}

/// A player's stored rating on a ladder.
#[derive(Clone, Debug, PartialEq)]
pub struct RatingRow {
    pub player: PlayerId,
    /// The player's name (leaderboards and lists); `None` where not asked for or unknown.
    pub name: Option<String>,
    pub rating: Rating,
    /// Sequence of the last event applied.
    pub last_event: i64,
}

/// What [`Store::record_rating_events`](super::Store::record_rating_events) did with one event.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Recorded {
    /// Stored with this sequence; the ratings moved as `points` says.
    New { sequence: i64, points: Points },
    /// The game was recorded before (or earlier in the same batch): nothing changed.
    Duplicate {
        sequence: i64,
        points: Option<Points>,
    },
    /// A correction with nothing to change: the game was never rated and its corrected result
    /// is not rated either.
    Nothing,
}

/// The rating maths, as the store's replay needs it. Must be a pure function of its inputs, or a
/// rebuild will not reproduce the incremental ratings.
pub trait Rater: Sync {
    /// The rating of a player with no event on `ladder` yet.
    fn initial(&self, ladder: &str) -> Rating;

    /// The ratings after `change`: `(first after, second after)`; the second is `Some` exactly
    /// for games, and `second` is given exactly for games.
    fn apply(
        &self,
        ladder: &str,
        at: Timestamp,
        change: &Change,
        first: &Rating,
        second: Option<&Rating>,
    ) -> (Rating, Option<Rating>);
}

/// Leaderboard filters.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct BoardFilter {
    /// Only players with at least this many games.
    pub min_games: u32,
    /// Only players whose last game was at or after this unix second.
    pub active_since: Option<i64>,
}

/// A head-to-head record from the first player's point of view.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct HeadToHead {
    pub wins: u32,
    pub draws: u32,
    pub losses: u32,
    pub last_played: Option<Timestamp>,
}

/// What a rebuild found and did.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct RebuildReport {
    /// Events replayed.
    pub events: u64,
    pub games: u64,
    pub corrections: u64,
    pub adjustments: u64,
    /// Ratings rows the replay gives.
    pub ratings: u64,
    /// Events whose stored before/after differed from the replay (rewritten).
    pub changed_points: u64,
    /// Ratings rows that differed from the replay, were missing or had no events (rewritten or
    /// deleted).
    pub changed_ratings: u64,
}

impl RebuildReport {
    /// Whether the stored state was exactly the replay.
    #[must_use]
    pub fn matched(&self) -> bool {
        self.changed_points == 0 && self.changed_ratings == 0
    }
}

/// The before/after of an event.
pub(super) fn points(
    first: &Rating,
    first_after: &Rating,
    second: Option<&Rating>,
    second_after: Option<&Rating>,
) -> Points {
    Points {
        first_before: first.rating,
        first_after: first_after.rating,
        second_before: second_after.and(second).map(|r| r.rating),
        second_after: second_after.map(|r| r.rating),
    }
}
