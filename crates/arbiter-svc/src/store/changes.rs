//! What the store is asked to write: a game's change, a new game, a result correction.

use hanniball_arbiter::{Clocks, FinalResult, GameId, Match, Status, Timestamp, Transition};
use hanniball_db::StoreError;
use hanniball_rules::Side;

use super::convert;
use super::entities::games;

/// One game's change, stored atomically: the turn (if any), the game row, and the outbox row if
/// the game ended. `expected_turns`, and `expected_version` when given, guard against a
/// concurrent writer (another replica): the version covers every change of the row, draw offers
/// and clocks included.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Write {
    pub game_id: GameId,
    pub expected_turns: u32,
    /// The row's version the writer's copy was made from (see
    /// [`super::Store::load_game_versioned`]); `None`: not checked (a single writer).
    pub expected_version: Option<i64>,
    pub record: Option<hanniball_arbiter::TurnRecord>,
    /// Whether the change touches the game row beyond what its turn record tells: no turn, a
    /// draw offer made, answered or lapsed, the game ending. On SQLite a plain turn goes to the
    /// log alone (see [`Store::commit_changes`](super::Store::commit_changes)).
    pub changes_row: bool,
    pub position: String,
    pub turns_played: u32,
    pub clocks: Clocks,
    pub draw_offer: Option<Side>,
    pub status: Status,
    pub result: Option<FinalResult>,
    pub finished_at: Option<Timestamp>,
}

impl Write {
    /// The write that stores `transition` for `game` (before it is applied).
    #[must_use]
    pub fn of(game: &Match, transition: &Transition) -> Write {
        let expected_turns = game.turns().len() as u32;
        let (status, finished_at) = match transition.result {
            Some(result) => (result.status(), Some(transition.at)),
            None => (game.status(), game.finished_at()),
        };
        Write {
            game_id: game.id,
            expected_turns,
            expected_version: None,
            record: transition.record.clone(),
            changes_row: transition.record.is_none()
                || status != Status::Active
                || transition.draw_offer != game.draw_offer(),
            position: transition
                .position_after()
                .unwrap_or_else(|| game.position().to_owned()),
            turns_played: expected_turns + u32::from(transition.record.is_some()),
            clocks: transition.clocks,
            draw_offer: transition.draw_offer,
            status,
            result: transition.result.or(game.result()),
            finished_at,
        }
    }
}

/// A new game's row, ready to insert (its id comes from the database).
#[derive(Clone, Debug)]
pub struct NewGame(pub(super) Box<games::ActiveModel>);

impl NewGame {
    /// The row for `game` (its id is ignored), with an optional idempotency key.
    #[must_use]
    pub fn of(game: &Match, idempotency_key: Option<&str>) -> NewGame {
        NewGame(Box::new(convert::new_game(game, idempotency_key)))
    }
}

/// What a group commit stores: new games and changes to stored ones.
#[derive(Clone, Debug)]
pub enum Change {
    Create(NewGame),
    Write(Write),
}

/// The id that [`super::Store::commit_changes`] gave a [`Change::Create`], from its result.
pub fn created_id(result: Result<Option<GameId>, StoreError>) -> Result<GameId, StoreError> {
    result?.ok_or_else(|| StoreError::Database("the commit gave no id for a new game".to_owned()))
}

/// A result correction to store ([`Store::correct_result`](super::Store::correct_result)).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Correction {
    pub game_id: GameId,
    /// The game's corrections before this one (the guard: of two correctors one wins).
    pub expected_corrections: u32,
    pub previous: Option<FinalResult>,
    pub result: FinalResult,
    pub by: String,
    pub note: String,
    pub at: Timestamp,
    pub finished_at: Option<Timestamp>,
}
