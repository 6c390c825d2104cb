//! `/games/{id}/record`: a game's record (docs/RULES.md Part 3) as a download.

use axum::extract::{Path, State};
use axum::http::header;
use axum::response::{IntoResponse, Response};
use hanniball_proto::arbiter::v1 as pb;
use hanniball_rules::record::GameRecord;

use crate::api::Api;
use crate::game::{bad_game_id, score};
use crate::html::api_error;
use crate::url::game_id;

/// The record of `game` (its turns included) with the players' names.
#[must_use]
pub fn record(game: &pb::Game, white: &str, black: &str) -> GameRecord {
    let mut record = GameRecord::default();
    record.set_tag("Game", &game.kind);
    if !game.ruleset.is_empty() {
        record.set_tag("Ruleset", &game.ruleset);
    }
    record.set_tag("Id", &game.id.to_string());
    if !game.tag.is_empty() {
        record.set_tag("Event", &game.tag);
    }
    record.set_tag("Date", &hanniball_rules::record::date(game.created_at_ms));
    record.set_tag("White", white);
    record.set_tag("Black", black);
    record.set_tag("WhiteId", &game.white_player_id.to_string());
    record.set_tag("BlackId", &game.black_player_id.to_string());
    match game.time_control {
        Some(tc) => record.set_tag(
            "TimeControl",
            &hanniball_rules::record::time_control(tc.initial_ms, tc.increment_ms),
        ),
        None => record.set_tag("TimeControl", "-"),
    }
    if game.max_turns > 0 {
        record.set_tag("MaxTurns", &game.max_turns.to_string());
    }
    record.set_tag("Rated", if game.rated { "yes" } else { "no" });
    record.turns = game.turns.iter().map(|t| t.turn.clone()).collect();
    if let Some(result) = game.state.as_ref().and_then(|s| s.result.as_ref()) {
        let outcome = score(game.state.as_ref());
        record.result = (outcome != "*").then(|| outcome.to_owned());
        let reason = pb::EndReason::try_from(result.reason).map_or_else(
            |_| "unknown".to_owned(),
            |r| {
                r.as_str_name()
                    .trim_start_matches("END_REASON_")
                    .to_lowercase()
                    .replace('_', "-")
            },
        );
        record.set_tag("Reason", &reason);
        if record.result.is_none() {
            // Aborted: no score.
            record.set_tag("Summary", &result.summary);
        }
    }
    record.set_tag("Result", record.result.clone().as_deref().unwrap_or("*"));
    record
}

pub(crate) async fn record_download(
    State(mut api): State<Api>,
    Path(id): Path<String>,
) -> Response {
    let Some(id) = game_id(&id) else {
        return bad_game_id();
    };
    let game = match api.game(id).await {
        Ok(game) => game,
        Err(status) => return api_error(&status),
    };
    let white = api.name(game.white_player_id).await;
    let black = api.name(game.black_player_id).await;
    (
        [
            (header::CONTENT_TYPE, "text/plain; charset=utf-8".to_owned()),
            (
                header::CONTENT_DISPOSITION,
                format!("attachment; filename=\"game-{id}.hbr\""),
            ),
        ],
        record(&game, &white, &black).to_text(),
    )
        .into_response()
}
