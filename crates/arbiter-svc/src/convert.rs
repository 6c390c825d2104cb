//! Domain types to protobuf messages and back: every conversion of this service in one file.

use hanniball_arbiter::{Clocks, Event, FinalResult, Reason, Status, TimeControl, TurnRecord};
use hanniball_proto::arbiter::v1 as pb;
use hanniball_rules::{EndReason, GameResult, Outcome, Side};

use crate::store::GameRow;

use crate::view::{GameView, StateView};

pub fn side(side: Side) -> i32 {
    match side {
        Side::White => pb::Side::White as i32,
        Side::Black => pb::Side::Black as i32,
    }
}

pub fn optional_side(value: Option<Side>) -> i32 {
    value.map_or(pb::Side::Unspecified as i32, side)
}

pub fn status(status: Status) -> i32 {
    match status {
        Status::Active => pb::GameStatus::Active as i32,
        Status::Finished => pb::GameStatus::Finished as i32,
        Status::Aborted => pb::GameStatus::Aborted as i32,
    }
}

/// The domain status a protobuf status filter asks for (`None`: any).
pub fn status_filter(value: i32) -> Result<Option<Status>, String> {
    match pb::GameStatus::try_from(value) {
        Ok(pb::GameStatus::Unspecified) => Ok(None),
        Ok(pb::GameStatus::Active) => Ok(Some(Status::Active)),
        Ok(pb::GameStatus::Finished) => Ok(Some(Status::Finished)),
        Ok(pb::GameStatus::Aborted) => Ok(Some(Status::Aborted)),
        Err(_) => Err(format!("unknown game status {value}")),
    }
}

pub fn clocks(clocks: &Clocks) -> pb::Clocks {
    pb::Clocks {
        white_ms: clocks.white_ms,
        black_ms: clocks.black_ms,
        running: optional_side(clocks.running),
        as_of_ms: clocks.since.0,
    }
}

pub fn result(result: &FinalResult) -> pb::GameResult {
    let outcome = match result.outcome {
        Some(Outcome::Win(Side::White)) => pb::Outcome::WhiteWins,
        Some(Outcome::Win(Side::Black)) => pb::Outcome::BlackWins,
        Some(Outcome::Draw) => pb::Outcome::Draw,
        None => pb::Outcome::None,
    };
    let reason = match result.reason {
        Reason::Rules(EndReason::Goal) => pb::EndReason::Goal,
        Reason::Rules(EndReason::OwnGoal) => pb::EndReason::OwnGoal,
        Reason::Rules(EndReason::NoLegalTurn) => pb::EndReason::NoLegalTurn,
        Reason::Rules(EndReason::MaxTurns) => pb::EndReason::MaxTurns,
        Reason::Rules(EndReason::DeadEnd) => pb::EndReason::DeadEnd,
        Reason::Resignation => pb::EndReason::Resignation,
        Reason::Time => pb::EndReason::Time,
        Reason::Agreement => pb::EndReason::Agreement,
        Reason::Aborted => pb::EndReason::Aborted,
        Reason::Adjudication => pb::EndReason::Adjudication,
        Reason::Forfeit => pb::EndReason::Forfeit,
        Reason::OverTheBoard => pb::EndReason::OverTheBoard,
    };
    pb::GameResult {
        outcome: outcome as i32,
        reason: reason as i32,
        summary: result.summary(),
    }
}

/// A result the rules gave (a partial turn's), as the arbiter reports results.
pub fn rules_result(rules: &GameResult) -> pb::GameResult {
    result(&FinalResult {
        outcome: Some(rules.outcome),
        reason: Reason::Rules(rules.reason),
    })
}

pub fn time_control(tc: &TimeControl) -> pb::TimeControl {
    pb::TimeControl {
        initial_ms: tc.initial_ms,
        increment_ms: tc.increment_ms,
    }
}

pub fn turn(record: &TurnRecord) -> pb::TurnRecord {
    pb::TurnRecord {
        number: record.number,
        side: side(record.side),
        turn: record.text.clone(),
        position_after: record.position_after.clone(),
        clocks_after: Some(pb::Clocks {
            white_ms: record.white_ms,
            black_ms: record.black_ms,
            running: optional_side(record.running),
            as_of_ms: record.played_at.0,
        }),
        played_at_ms: record.played_at.0,
        spent_ms: record.spent_ms,
    }
}

pub fn state(view: &StateView) -> pb::GameState {
    pb::GameState {
        game_id: view.game_id.0,
        status: status(view.status),
        position: view.position.clone(),
        side_to_move: side(view.side_to_move),
        next_turn_number: view.next_turn_number,
        clocks: Some(clocks(&view.clocks)),
        result: view.result.as_ref().map(result),
        notices: view.notices.clone(),
        draw_offer_by: optional_side(view.draw_offer),
        board: view.board.clone(),
    }
}

pub fn game(view: &GameView) -> pb::Game {
    pb::Game {
        id: view.id.0,
        kind: view.setup.kind.name().to_owned(),
        ruleset: view.ruleset.clone(),
        white_player_id: view.setup.white.0,
        black_player_id: view.setup.black.0,
        time_control: view.setup.time_control.as_ref().map(time_control),
        rated: view.setup.rated,
        max_turns: view.max_turns,
        state: Some(state(&view.state)),
        turns: view.turns.iter().map(turn).collect(),
        created_at_ms: view.created_at.0,
        finished_at_ms: view.finished_at.map_or(0, |t| t.0),
        tag: view.setup.tag.clone(),
        over_the_board: view.setup.over_the_board,
        corrections: view.corrections,
    }
}

/// A listed game (no turn log, no board picture: lists stay small).
pub fn game_row(row: &GameRow) -> pb::Game {
    pb::Game {
        id: row.id.0,
        kind: row.setup.kind.name().to_owned(),
        ruleset: row.setup.options.ruleset.clone().unwrap_or_default(),
        white_player_id: row.setup.white.0,
        black_player_id: row.setup.black.0,
        time_control: row.setup.time_control.as_ref().map(time_control),
        rated: row.setup.rated,
        max_turns: row.setup.max_turns(),
        state: Some(pb::GameState {
            game_id: row.id.0,
            status: status(row.status),
            position: row.position.clone(),
            side_to_move: pb::Side::Unspecified as i32,
            next_turn_number: row.turns_played + 1,
            clocks: Some(clocks(&row.clocks)),
            result: row.result.as_ref().map(result),
            notices: Vec::new(),
            draw_offer_by: optional_side(row.draw_offer),
            board: String::new(),
        }),
        turns: Vec::new(),
        created_at_ms: row.created_at.0,
        finished_at_ms: row.finished_at.map_or(0, |t| t.0),
        tag: row.setup.tag.clone(),
        over_the_board: row.setup.over_the_board,
        corrections: row.corrections,
    }
}

pub fn finished(finished: &crate::store::FinishedRow) -> pb::FinishedGame {
    let row = &finished.game;
    pb::FinishedGame {
        corrected_at_ms: if row.corrections > 0 {
            finished.at.0
        } else {
            0
        },
        sequence: finished.sequence,
        game_id: row.id.0,
        kind: row.setup.kind.name().to_owned(),
        ruleset: row.setup.options.ruleset.clone().unwrap_or_default(),
        white_player_id: row.setup.white.0,
        black_player_id: row.setup.black.0,
        rated: row.setup.rated,
        time_control: row.setup.time_control.as_ref().map(time_control),
        result: row.result.as_ref().map(result),
        turns_played: row.turns_played,
        finished_at_ms: row.finished_at.map_or(0, |t| t.0),
        tag: row.setup.tag.clone(),
        correction: row.corrections,
        over_the_board: row.setup.over_the_board,
    }
}

/// A domain event with the state after it, as a watcher's event.
pub fn game_event(event: &Event, after: &StateView) -> pb::GameEvent {
    use pb::game_event::Event as E;
    let state = Some(state(after));
    let event = match event {
        Event::TurnPlayed(record) => E::TurnPlayed(pb::TurnPlayed {
            record: Some(turn(record)),
            state,
        }),
        Event::DrawOffered(by) => E::DrawOffered(pb::DrawOffered {
            by: side(*by),
            state,
        }),
        Event::DrawDeclined(by) => E::DrawDeclined(pb::DrawDeclined {
            by: side(*by),
            state,
        }),
        Event::GameOver(final_result) => E::GameOver(pb::GameOver {
            result: Some(result(final_result)),
            state,
        }),
    };
    pb::GameEvent { event: Some(event) }
}
