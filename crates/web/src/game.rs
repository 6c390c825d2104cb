//! `/games/{id}`: the board, players, clocks and turns of a game, live or replayed turn by turn.

use std::fmt::Write as _;

use axum::extract::{Path, State};
use axum::http::StatusCode;
use axum::response::{Html, IntoResponse, Response};
use hanniball_proto::arbiter::v1 as pb;

use crate::app::Api;
use crate::assets::LIVE_SCRIPT;
use crate::html::{api_error, error_page, esc, page};
use crate::url::{game_id, query_value};

/// The page for a path whose game id is not one.
pub(crate) fn bad_game_id() -> Response {
    error_page(StatusCode::BAD_REQUEST, "A game id is a positive number.")
}

/// `1-0`, `0-1`, `1/2-1/2` or `*`.
pub(crate) fn score(state: Option<&pb::GameState>) -> &'static str {
    match state
        .and_then(|s| s.result.as_ref())
        .and_then(|r| pb::Outcome::try_from(r.outcome).ok())
    {
        Some(pb::Outcome::WhiteWins) => "1-0",
        Some(pb::Outcome::BlackWins) => "0-1",
        Some(pb::Outcome::Draw) => "1/2-1/2",
        _ => "*",
    }
}

/// The board of `state` (after `last_turn`, drawn highlighted) as SVG; the position's text if it
/// does not parse.
pub(crate) fn board(kind: &str, state: &pb::GameState, last_turn: Option<&str>) -> String {
    match kind {
        "hanniball" => {
            if let Ok(position) =
                hanniball_rules::hanniball::Position::from_notation(&state.position)
            {
                return hanniball_rules::hanniball::svg(&position, last_turn);
            }
        }
        "paper-football" => {
            if let Ok(position) = hanniball_rules::paper::Position::from_notation(&state.position) {
                let steps = last_turn.map_or(0, |t| t.split_whitespace().count());
                return hanniball_rules::paper::svg(&position, steps);
            }
        }
        _ => {}
    }
    format!("<pre class=\"board\">{}</pre>", esc(&state.position))
}

/// Milliseconds since the Unix epoch (the server's clock, as the arbiter's `as_of_ms`).
pub(crate) fn now_ms() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as i64)
}

/// The clocks as they stand at `now`: the running side's time keeps running from `as_of_ms`
/// (a page opened 15 s into a turn shows 15 s less than the stored clock).
pub(crate) fn clocks_at(c: &pb::Clocks, now: i64) -> (i64, i64) {
    let ran = (now - c.as_of_ms).max(0);
    let white = if c.running == pb::Side::White as i32 {
        (c.white_ms - ran).max(0)
    } else {
        c.white_ms
    };
    let black = if c.running == pb::Side::Black as i32 {
        (c.black_ms - ran).max(0)
    } else {
        c.black_ms
    };
    (white, black)
}

/// `m:ss` of a clock.
fn clock(ms: i64) -> String {
    let seconds = ms.max(0) / 1_000;
    format!("{}:{:02}", seconds / 60, seconds % 60)
}

pub(crate) fn side_name(side: i32) -> &'static str {
    match pb::Side::try_from(side) {
        Ok(pb::Side::White) => "white",
        Ok(pb::Side::Black) => "black",
        _ => "",
    }
}

/// The status line of a game.
pub(crate) fn status_line(state: &pb::GameState) -> String {
    match &state.result {
        Some(result) => format!("Game over: {}", result.summary),
        None => format!(
            "{} to move, turn {}",
            match side_name(state.side_to_move) {
                "white" => "White",
                _ => "Black",
            },
            state.next_turn_number
        ),
    }
}

/// The position of `game` after its first `shown` turns (its start for 0).
fn position_after(game: &pb::Game, shown: usize) -> String {
    if shown > 0 {
        return game.turns[shown - 1].position_after.clone();
    }
    let options = hanniball_rules::GameOptions {
        ruleset: (!game.ruleset.is_empty()).then(|| game.ruleset.clone()),
        max_turns: None,
    };
    game.kind
        .parse::<hanniball_rules::GameKind>()
        .ok()
        .and_then(|kind| kind.new_game(&options).ok())
        .map_or_else(String::new, |g| g.position())
}

/// Links to step through the turns (`?turn=N`), with the arrow keys following them.
fn replay_nav(id: i64, shown: usize, total: usize) -> String {
    let link = |to: usize, label: &str, rel: &str, enabled: bool| {
        if enabled {
            format!("<a href=\"/games/{id}?turn={to}\" id=\"{rel}\" rel=\"{rel}\">{label}</a>")
        } else {
            format!("<span aria-disabled=\"true\">{label}</span>")
        }
    };
    format!(
        "<nav class=\"replay\" aria-label=\"replay\"><p>Showing the position after turn {shown} of \
         {total}: {} · {} · {} · {}</p></nav>\
         <script>document.addEventListener('keydown',function(e){{var a=null;\
         if(e.key==='ArrowLeft')a=document.getElementById('prev');\
         if(e.key==='ArrowRight')a=document.getElementById('next');\
         if(e.key==='Home')a=document.getElementById('first');\
         if(e.key==='End')a=document.getElementById('last');\
         if(a){{e.preventDefault();location.href=a.href;}}}});</script>",
        link(0, "« start", "first", shown > 0),
        link(shown.saturating_sub(1), "◀ previous", "prev", shown > 0),
        link(shown + 1, "next ▶", "next", shown < total),
        link(total, "end »", "last", shown < total),
    )
}

pub(crate) async fn game_page(
    State(mut api): State<Api>,
    Path(id): Path<String>,
    uri: axum::http::Uri,
) -> Response {
    let Some(id) = game_id(&id) else {
        return bad_game_id();
    };
    let game = match api.game(id).await {
        Ok(game) => game,
        Err(status) => return api_error(&status),
    };
    let mut state = game.state.clone().unwrap_or_default();
    let white = api.name(game.white_player_id).await;
    let black = api.name(game.black_player_id).await;
    let total = game.turns.len();
    // Replay: `?turn=N` shows the position after turn N; a finished game starts at its end.
    let replaying = query_value(uri.query(), "turn").and_then(|v| v.parse::<usize>().ok());
    let shown = replaying.unwrap_or(total).min(total);
    if shown < total {
        // The game as it stood after turn `shown`: not over, the next side to move (White moves
        // odd turns), the clocks as that turn left them (or the start's), frozen.
        state.position = position_after(&game, shown);
        state.result = None;
        state.notices.clear();
        state.draw_offer_by = pb::Side::Unspecified as i32;
        state.next_turn_number = shown as u32 + 1;
        state.side_to_move = if shown % 2 == 0 {
            pb::Side::White
        } else {
            pb::Side::Black
        } as i32;
        let start = game.time_control.map(|tc| pb::Clocks {
            white_ms: tc.initial_ms,
            black_ms: tc.initial_ms,
            ..pb::Clocks::default()
        });
        state.clocks = match shown.checked_sub(1).and_then(|i| game.turns.get(i)) {
            Some(turn) => turn.clocks_after.map(|c| pb::Clocks {
                running: pb::Side::Unspecified as i32,
                ..c
            }),
            None => start,
        };
    }
    let last = (shown > 0).then(|| game.turns[shown - 1].turn.as_str());
    let mut turns = String::new();
    for turn in &game.turns {
        let current = if turn.number as usize == shown {
            " aria-current=\"step\""
        } else {
            ""
        };
        let _ = write!(
            turns,
            "<li value=\"{n}\"><a href=\"/games/{id}?turn={n}\"{current}>{}</a></li>",
            esc(&turn.turn),
            n = turn.number,
        );
    }
    let clocks = match (&game.time_control, &state.clocks) {
        (Some(_), Some(c)) => {
            let (white_ms, black_ms) = clocks_at(c, now_ms());
            format!(
                "<p>Clocks: <span class=\"clock{}\" id=\"clock-white\" data-ms=\"{}\">{}</span> White · \
             <span class=\"clock{}\" id=\"clock-black\" data-ms=\"{}\">{}</span> Black</p>",
                if c.running == pb::Side::White as i32 {
                    " running"
                } else {
                    ""
                },
                white_ms,
                clock(white_ms),
                if c.running == pb::Side::Black as i32 {
                    " running"
                } else {
                    ""
                },
                black_ms,
                clock(black_ms),
            )
        }
        _ => "<p>Untimed.</p>".to_owned(),
    };
    let replay = if replaying.is_some() || state.result.is_some() {
        replay_nav(id, shown, total)
    } else {
        String::new()
    };
    let live = if state.result.is_none() && replaying.is_none() {
        format!(
            "<script>{}</script>",
            LIVE_SCRIPT
                .replace("GAME_ID", &id.to_string())
                .replace("TURNS_SHOWN", &total.to_string())
        )
    } else {
        String::new()
    };
    let body = format!(
        "<h1>Game {id}: {white} – {black}</h1>\
         {replay}<div class=\"game\"><div id=\"board\" aria-live=\"off\">{board}</div>\
         <div class=\"side\"><p id=\"status\" aria-live=\"polite\">{status}</p>{clocks}\
         <p>White: <a href=\"/players/{wid}\"><strong>{white}</strong></a> · Black: <a href=\"/players/{bid}\"><strong>{black}</strong></a> · {kind}</p>\
         <p><a href=\"/games/{id}/record\" download>Download the game record</a></p>\
         <h2>Turns</h2><ol class=\"turns\" id=\"turns\">{turns}</ol></div></div>{live}",
        white = esc(&white),
        black = esc(&black),
        wid = game.white_player_id,
        bid = game.black_player_id,
        board = board(&game.kind, &state, last),
        status = esc(&status_line(&state)),
        kind = esc(&game.kind),
    );
    let mut html = page(&format!("Game {id}"), &body).0;
    if !live.is_empty() {
        // Without script a live game reloads itself now and then (as a live tournament does).
        html = html.replacen(
            "<head>",
            "<head><noscript><meta http-equiv=\"refresh\" content=\"5\"></noscript>",
            1,
        );
    }
    Html(html).into_response()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_page_shows_the_running_clock_as_of_now() {
        let clocks = pb::Clocks {
            white_ms: 118_000,
            black_ms: 120_000,
            running: pb::Side::Black as i32,
            as_of_ms: 1_000_000,
        };
        // 15 s into Black's turn of a 120+0 game: 1:45, not 2:00.
        let (white, black) = clocks_at(&clocks, 1_015_000);
        assert_eq!(
            (clock(white), clock(black)),
            ("1:58".to_owned(), "1:45".to_owned())
        );
        assert_eq!(clocks_at(&clocks, 9_999_999).1, 0);
    }
}
