//! `/ladders/{name}`: a ladder's leaderboard, page by page.

use std::fmt::Write as _;

use axum::extract::{Path, State};
use axum::response::{IntoResponse, Response};
use hanniball_proto::rating::v1 as rpb;

use crate::app::Api;
use crate::html::{api_error, esc, page, unavailable};
use crate::url::{query_encode, query_value};

pub(crate) async fn ladder_page(
    State(mut api): State<Api>,
    Path(name): Path<String>,
    uri: axum::http::Uri,
) -> Response {
    let Some(rating) = api.rating.as_mut() else {
        return unavailable("ladders");
    };
    let page_token = query_value(uri.query(), "page")
        .unwrap_or_default()
        .to_owned();
    let min_games: u32 = query_value(uri.query(), "min_games")
        .and_then(|v| v.parse().ok())
        .unwrap_or(0);
    let size: u32 = query_value(uri.query(), "size")
        .and_then(|v| v.parse().ok())
        .unwrap_or(50)
        .clamp(1, 200);
    let answer = match rating
        .leaderboard(rpb::LeaderboardRequest {
            ladder: name.clone(),
            page_size: size,
            page_token,
            min_games,
            active_since_ms: 0,
        })
        .await
    {
        Ok(answer) => answer.into_inner(),
        Err(status) => return api_error(&status),
    };
    let mut body = format!(
        "<h1>Ladder {}</h1><form method=\"get\"><label>At least <input type=\"number\" name=\"min_games\" min=\"0\" value=\"{min_games}\" size=\"4\"> rated games</label> <button type=\"submit\">Filter</button></form>\
         <table><thead><tr><th scope=\"col\">Rank</th><th scope=\"col\">Player</th><th scope=\"col\">Rating</th><th scope=\"col\">Games</th></tr></thead><tbody>",
        esc(&name)
    );
    for entry in &answer.entries {
        let _ = write!(
            body,
            "<tr><td>{}</td><td><a href=\"/players/{}\">{}</a></td><td>{:.0}{}</td><td>{}</td></tr>",
            entry.rank,
            entry.player_id,
            esc(&entry.name),
            entry.rating,
            if entry.provisional {
                "<abbr title=\"provisional\">?</abbr>"
            } else {
                ""
            },
            entry.games
        );
    }
    body.push_str("</tbody></table>");
    if answer.entries.is_empty() {
        body.push_str("<p>No rated players here.</p>");
    }
    if !answer.next_page_token.is_empty() {
        let _ = write!(
            body,
            "<p><a rel=\"next\" id=\"next-page\" href=\"/ladders/{}?page={}&amp;min_games={min_games}&amp;size={size}\">Next page</a></p>",
            esc(&name),
            query_encode(&answer.next_page_token)
        );
    }
    page(&format!("Ladder {name}"), &body).into_response()
}
