//! Rows to domain types and back: every conversion in one place.

use hanniball_arbiter::{
    Clocks, FinalResult, GameId, Match, PlayerId, Reason, Setup, Status, Stored, TimeControl,
    Timestamp, TurnRecord,
};
use hanniball_rules::{GameKind, GameOptions, Outcome, Side};
use sea_orm::ActiveValue::Set;

use super::entities::{games, turns};
use super::rows::GameRow;
use hanniball_db::StoreError;

/// Stored name of a side.
#[must_use]
pub const fn side_name(side: Side) -> &'static str {
    match side {
        Side::White => "white",
        Side::Black => "black",
    }
}

/// The side with this stored name.
#[must_use]
pub fn side_from_name(name: &str) -> Option<Side> {
    match name {
        "white" => Some(Side::White),
        "black" => Some(Side::Black),
        _ => None,
    }
}

pub(crate) fn outcome_name(outcome: Outcome) -> String {
    match outcome {
        Outcome::Win(Side::White) => "white",
        Outcome::Win(Side::Black) => "black",
        Outcome::Draw => "draw",
    }
    .to_owned()
}

fn outcome_from_name(name: &str) -> Option<Outcome> {
    match name {
        "white" => Some(Outcome::Win(Side::White)),
        "black" => Some(Outcome::Win(Side::Black)),
        "draw" => Some(Outcome::Draw),
        _ => None,
    }
}

fn corrupt(game: i64, what: &str, value: &str) -> StoreError {
    StoreError::Corrupt(format!("game {game}: bad {what} {value:?}"))
}

pub(crate) fn new_game(game: &Match, idempotency_key: Option<&str>) -> games::ActiveModel {
    let setup = &game.setup;
    let clocks = game.clocks();
    games::ActiveModel {
        kind: Set(setup.kind.name().to_owned()),
        ruleset: Set(game.game().ruleset().to_owned()),
        white_player_id: Set(setup.white.0),
        black_player_id: Set(setup.black.0),
        initial_ms: Set(setup.time_control.map(|tc| tc.initial_ms)),
        increment_ms: Set(setup.time_control.map(|tc| tc.increment_ms)),
        rated: Set(setup.rated),
        // 0: the game's own default.
        max_turns: Set(setup.options.max_turns.unwrap_or(0) as i32),
        tag: Set(setup.tag.clone()),
        idempotency_key: Set(idempotency_key.map(str::to_owned)),
        status: Set(game.status().name().to_owned()),
        outcome: Set(None),
        reason: Set(None),
        position: Set(game.position().to_owned()),
        turns_played: Set(0),
        white_ms: Set(clocks.white_ms),
        black_ms: Set(clocks.black_ms),
        clock_since: Set(clocks.since.0),
        draw_offer_by: Set(None),
        created_at_ms: Set(game.created_at.0),
        finished_at_ms: Set(None),
        over_the_board: Set(setup.over_the_board),
        corrections: Set(0),
        ..Default::default()
    }
}

pub(crate) fn game_row(row: games::Model) -> Result<GameRow, StoreError> {
    let id = row.id;
    let kind: GameKind = row
        .kind
        .parse()
        .map_err(|_| corrupt(id, "game kind", &row.kind))?;
    let status =
        Status::from_name(&row.status).ok_or_else(|| corrupt(id, "status", &row.status))?;
    let time_control = match (row.initial_ms, row.increment_ms) {
        (Some(initial_ms), Some(increment_ms)) => Some(TimeControl {
            initial_ms,
            increment_ms,
        }),
        _ => None,
    };
    let result = match &row.reason {
        None => None,
        Some(reason) => Some(FinalResult {
            outcome: match &row.outcome {
                None => None,
                Some(outcome) => Some(
                    outcome_from_name(outcome).ok_or_else(|| corrupt(id, "outcome", outcome))?,
                ),
            },
            reason: Reason::from_name(reason).ok_or_else(|| corrupt(id, "reason", reason))?,
        }),
    };
    let draw_offer = match &row.draw_offer_by {
        None => None,
        Some(side) => Some(side_from_name(side).ok_or_else(|| corrupt(id, "side", side))?),
    };
    // The side to move runs the clock of an active timed game: read it from the position through
    // the rules, so the clock can never disagree with the position.
    let options = GameOptions {
        ruleset: Some(row.ruleset.clone()),
        max_turns: (row.max_turns > 0).then_some(row.max_turns as u32),
    };
    let running = if status == Status::Active && time_control.is_some() && !row.over_the_board {
        let game = kind
            .load(&row.position, &options)
            .map_err(|e| corrupt(id, "position", &e.to_string()))?;
        Some(game.side_to_move())
    } else {
        None
    };
    Ok(GameRow {
        id: GameId(id),
        setup: Setup {
            kind,
            options,
            white: PlayerId(row.white_player_id),
            black: PlayerId(row.black_player_id),
            time_control,
            rated: row.rated,
            tag: row.tag,
            over_the_board: row.over_the_board,
        },
        position: row.position,
        turns_played: row.turns_played as u32,
        clocks: Clocks {
            white_ms: row.white_ms,
            black_ms: row.black_ms,
            running,
            since: Timestamp(row.clock_since),
        },
        status,
        result,
        draw_offer,
        created_at: Timestamp(row.created_at_ms),
        finished_at: row.finished_at_ms.map(Timestamp),
        corrections: u32::try_from(row.corrections).unwrap_or(0),
    })
}

pub(crate) fn stored(row: games::Model, log: Vec<turns::Model>) -> Result<Stored, StoreError> {
    let game = game_row(row)?;
    let mut turns = Vec::with_capacity(log.len());
    let timed = game.setup.time_control.is_some();
    let last = log.len();
    // Only a turn ends a game by the rules (a goal, the turn limit, no legal turn, a dead end).
    let ended_by_last_turn = matches!(
        game.result,
        Some(FinalResult {
            reason: Reason::Rules(_),
            ..
        })
    );
    for (index, turn) in log.into_iter().enumerate() {
        let side =
            side_from_name(&turn.side).ok_or_else(|| corrupt(turn.game_id, "side", &turn.side))?;
        let ended = index + 1 == last && ended_by_last_turn;
        turns.push(TurnRecord {
            number: turn.number as u32,
            side,
            text: turn.text,
            position_after: turn.position_after,
            white_ms: turn.white_ms,
            black_ms: turn.black_ms,
            played_at: Timestamp(turn.played_at_ms),
            spent_ms: turn.spent_ms,
            // Not a column: after a turn the opponent's clock runs, unless the turn ended the game.
            running: (timed && !ended).then_some(side.opponent()),
        });
    }
    Ok(Stored {
        id: game.id,
        setup: game.setup,
        turns,
        clocks: game.clocks,
        status: game.status,
        result: game.result,
        draw_offer: game.draw_offer,
        created_at: game.created_at,
        finished_at: game.finished_at,
        corrections: game.corrections,
    })
}
