//! `/games/{id}`: the board, players, clocks and turns of a game, live or replayed turn by turn.

use axum::extract::{Path, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use hanniball_proto::arbiter::v1 as pb;
use hanniball_proto::scheduler::v1 as spb;
use maud::{Markup, PreEscaped, html};

use crate::api::Api;
use crate::html::{api_error, error_page, page_with, player_link};
use crate::i18n::tr;
use crate::tournament::tournament_of;
use crate::url::{game_id, query_value};

/// The page for a path whose game id is not one.
pub(crate) fn bad_game_id() -> Response {
    error_page(StatusCode::BAD_REQUEST, &tr!("error-game-id"))
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

/// The board of `state` (after `last_turn`, drawn highlighted) as SVG, named as the status line
/// says (whose turn at the turn shown, or the result and how it came); the position's text if
/// it does not parse.
pub(crate) fn board(kind: &str, state: &pb::GameState, last_turn: Option<&str>) -> Markup {
    let title = board_title(state);
    // The rules crate's SVG renderers: trusted HTML, built from a parsed position.
    match kind {
        "hanniball" => {
            if let Ok(position) =
                hanniball_rules::hanniball::Position::from_notation(&state.position)
            {
                return PreEscaped(hanniball_rules::hanniball::svg_titled(
                    &position, last_turn, &title,
                ));
            }
        }
        "paper-football" => {
            if let Ok(position) = hanniball_rules::paper::Position::from_notation(&state.position) {
                let steps = last_turn.map_or(0, |t| t.split_whitespace().count());
                return PreEscaped(hanniball_rules::paper::svg_titled(&position, steps, &title));
            }
        }
        _ => {}
    }
    // Text, not a picture: the words go in its description (`aria-label` is not for a `pre`).
    html! { pre.board title=(title) { (state.position) } }
}

/// The board picture's accessible name: the status line's words.
pub(crate) fn board_title(state: &pb::GameState) -> String {
    tr!("board-title", status = status_line(state))
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
        Some(result) => tr!("game-over", summary = summary(result)),
        None => tr!(
            "to-move",
            side = side_name(state.side_to_move),
            turn = state.next_turn_number
        ),
    }
}

/// A result in the page's language (`1-0 resignation`, `1-0 (сдача)`, `aborted`); the arbiter's
/// own words for a reason this page does not know.
fn summary(result: &pb::GameResult) -> String {
    let reason = match pb::EndReason::try_from(result.reason) {
        Ok(pb::EndReason::Goal) => tr!("end-goal"),
        Ok(pb::EndReason::OwnGoal) => tr!("end-own-goal"),
        Ok(pb::EndReason::NoLegalTurn) => tr!("end-no-legal-turn"),
        Ok(pb::EndReason::MaxTurns) => tr!("end-max-turns"),
        Ok(pb::EndReason::DeadEnd) => tr!("end-dead-end"),
        Ok(pb::EndReason::Resignation) => tr!("end-resignation"),
        Ok(pb::EndReason::Time) => tr!("end-time"),
        Ok(pb::EndReason::Agreement) => tr!("end-agreement"),
        Ok(pb::EndReason::Aborted) => tr!("end-aborted"),
        Ok(pb::EndReason::Adjudication) => tr!("end-adjudication"),
        Ok(pb::EndReason::Forfeit) => tr!("end-forfeit"),
        Ok(pb::EndReason::OverTheBoard) => tr!("end-over-the-board"),
        _ => return result.summary.clone(),
    };
    match pb::Outcome::try_from(result.outcome) {
        Ok(pb::Outcome::WhiteWins) => tr!("result-summary", score = "1-0", reason = reason),
        Ok(pb::Outcome::BlackWins) => tr!("result-summary", score = "0-1", reason = reason),
        Ok(pb::Outcome::Draw) => tr!("result-summary", score = "1/2-1/2", reason = reason),
        _ => reason,
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

/// Links to step through the turns (`?turn=N`); the arrow keys follow them (`/assets/keys.js`).
pub(crate) fn replay_nav(id: i64, shown: usize, total: usize) -> Markup {
    let link = |to: usize, label: String, rel: &str, enabled: bool| {
        html! {
            @if enabled {
                a href={ "/games/" (id) "?turn=" (to) } id=(rel) rel=(rel) { (label) }
            } @else {
                span aria-disabled="true" { (label) }
            }
        }
    };
    html! {
        nav.replay aria-label=(tr!("replay-label")) {
            p {
                (tr!("replay-showing", shown = shown, total = total)) " "
                (link(0, tr!("replay-start"), "first", shown > 0)) " · "
                (link(shown.saturating_sub(1), tr!("replay-previous"), "prev", shown > 0)) " · "
                (link(shown + 1, tr!("replay-next"), "next", shown < total)) " · "
                (link(total, tr!("replay-end"), "last", shown < total))
            }
        }
    }
}

/// Where a game comes from, read from the tag its creator gave it (the scheduler's
/// `tournament:ID:ROUND:BOARD`, the queue's `match:ID`).
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Origin {
    Tournament { id: i64, round: u32, board: u32 },
    Queue,
    Other,
}

pub(crate) fn origin(tag: &str) -> Origin {
    let mut parts = tag.split(':');
    match parts.next() {
        Some("tournament") => {
            let mut number = || parts.next().and_then(|p| p.parse::<i64>().ok());
            match (number(), number(), number()) {
                (Some(id), Some(round), Some(board)) if id > 0 => Origin::Tournament {
                    id,
                    round: u32::try_from(round).unwrap_or(0),
                    board: u32::try_from(board).unwrap_or(0),
                },
                _ => Origin::Other,
            }
        }
        Some("match") => Origin::Queue,
        _ => Origin::Other,
    }
}

/// When, for people in their language (`26 November 2026, 16:20 UTC`) and for machines
/// (`2026-11-26T16:20Z`, a `<time>` element's `datetime`), from milliseconds since the Unix
/// epoch.
pub(crate) fn date_time(ms: i64) -> (String, String) {
    let minutes = ms.div_euclid(60_000).rem_euclid(24 * 60);
    let (hour, minute) = (minutes / 60, minutes % 60);
    let day = hanniball_rules::record::date(ms);
    (
        crate::i18n::date_time(ms),
        format!("{}T{hour:02}:{minute:02}Z", day.replace('.', "-")),
    )
}

/// The line under a game's title: its tournament, round and board (or the queue), the time
/// control, whether it is rated, and when it started.
fn context_line(game: &pb::Game, tournament: Option<&spb::Tournament>) -> Markup {
    let (when, machine) = date_time(game.created_at_ms);
    let time_control = match game.time_control {
        Some(tc) => tr!(
            "time-control",
            control = hanniball_rules::record::time_control(tc.initial_ms, tc.increment_ms)
        ),
        None => tr!("untimed"),
    };
    html! {
        p.context id="context" {
            @match origin(&game.tag) {
                Origin::Tournament { id, round, board } => {
                    a href={ "/tournaments/" (id) } id="tournament-link" {
                        (tournament
                            .and_then(|t| t.settings.as_ref())
                            .map_or_else(|| tr!("tournament-number", id = id), |s| s.name.clone()))
                    }
                    " · " (tr!("round-board", round = round, board = board)) " · "
                }
                Origin::Queue => { (tr!("queue")) " · " }
                Origin::Other => {}
            }
            (game.kind) " · " (time_control) " · "
            @if game.rated { (tr!("rated")) } @else { (tr!("unrated")) }
            " · " time datetime=(machine) { (when) }
        }
    }
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
    // A tournament's game names its tournament (whose entrants carry the players' names).
    let tournament = match (origin(&game.tag), api.scheduler.as_mut()) {
        (Origin::Tournament { id, .. }, Some(scheduler)) => tournament_of(scheduler, id).await.ok(),
        _ => None,
    };
    let entrant = |id: i64| {
        tournament
            .as_ref()
            .and_then(|t| t.entrants.iter().find(|e| e.player_id == id))
            .map(|e| e.name.clone())
    };
    let (white, black) = match (entrant(game.white_player_id), entrant(game.black_player_id)) {
        (Some(white), Some(black)) => (white, black),
        _ => {
            let mut other = api.clone();
            tokio::join!(
                api.name(game.white_player_id),
                other.name(game.black_player_id)
            )
        }
    };
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
    let running = |side: pb::Side| {
        state
            .clocks
            .as_ref()
            .is_some_and(|c| c.running == side as i32)
    };
    let clocks = match (&game.time_control, &state.clocks) {
        (Some(_), Some(c)) => {
            let (white_ms, black_ms) = clocks_at(c, now_ms());
            html! {
                p {
                    (tr!("clocks")) " "
                    span.clock.running[running(pb::Side::White)] id="clock-white" data-ms=(white_ms) { (clock(white_ms)) }
                    " " (tr!("clock-white")) " · "
                    span.clock.running[running(pb::Side::Black)] id="clock-black" data-ms=(black_ms) { (clock(black_ms)) }
                    " " (tr!("clock-black"))
                }
            }
        }
        _ => html! { p { (tr!("untimed-game")) } },
    };
    let replay =
        (replaying.is_some() || state.result.is_some()).then(|| replay_nav(id, shown, total));
    let live = state.result.is_none() && replaying.is_none();
    let body = html! {
        h1 { (tr!("game-heading", id = id, white = white.as_str(), black = black.as_str())) }
        (context_line(&game, tournament.as_ref()))
        @if let Some(replay) = replay { (replay) }
        div.game {
            // Whose turn and the clocks first: in view without scrolling, on a phone too.
            div.now {
                p id="status" aria-live="polite" { (status_line(&state)) }
                (clocks)
            }
            div id="board" aria-live="off" { (board(&game.kind, &state, last)) }
            div.side {
                p {
                    (tr!("white-label")) " " strong { (player_link(game.white_player_id, &white)) }
                    " · " (tr!("black-label")) " " strong { (player_link(game.black_player_id, &black)) }
                }
                p { a href={ "/games/" (id) "/record" } download { (tr!("download-record")) } }
                h2 { (tr!("turns")) }
                ol.turns id="turns" {
                    @for turn in &game.turns {
                        li value=(turn.number) {
                            @if turn.number as usize == shown {
                                a href={ "/games/" (id) "?turn=" (turn.number) } aria-current="step" { (turn.turn) }
                            } @else {
                                a href={ "/games/" (id) "?turn=" (turn.number) } { (turn.turn) }
                            }
                        }
                    }
                }
            }
        }
    };
    let head = html! {
        script src="/assets/keys.js" defer {}
        @if live {
            // Without script a live game reloads itself now and then (as a live tournament does).
            noscript { meta http-equiv="refresh" content="5"; }
            script src="/assets/live.js" data-game=(id) data-turns=(total) defer {}
        }
    };
    page_with(&tr!("game-title", id = id), head, body).into_response()
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

    #[test]
    fn a_games_tag_names_where_it_comes_from() {
        assert_eq!(
            origin("tournament:12:3:4"),
            Origin::Tournament {
                id: 12,
                round: 3,
                board: 4
            }
        );
        assert_eq!(origin("match:7"), Origin::Queue);
        for other in [
            "",
            "tournament:x:1:1",
            "tournament:0:1:1",
            "tournament:5",
            "friendly",
        ] {
            assert_eq!(origin(other), Origin::Other, "{other}");
        }
        assert_eq!(
            date_time(86_400_000 + 61_000),
            (
                "2\u{a0}January\u{a0}1970, 00:01 UTC".to_owned(),
                "1970-01-02T00:01Z".to_owned()
            )
        );
    }
}
