//! `/ladders/{name}`: a ladder's leaderboard, page by page.

use std::fmt::Write as _;

use axum::extract::{Path, State};
use axum::response::{IntoResponse, Response};
use hanniball_proto::rating::v1 as rpb;

use crate::app::Api;
use crate::html::{api_error, esc, page, player_link, unavailable};
use crate::url::{query_encode, query_value, query_values};

pub(crate) async fn ladder_page(
    State(mut api): State<Api>,
    Path(name): Path<String>,
    uri: axum::http::Uri,
) -> Response {
    let Some(rating) = api.rating.as_mut() else {
        return unavailable("ladders");
    };
    let current = query_value(uri.query(), "page").unwrap_or_default();
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
            page_token: current.clone(),
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
            "<tr><td>{}</td><td>{}</td><td>{:.0}{}</td><td>{}</td></tr>",
            entry.rank,
            player_link(entry.player_id, &entry.name),
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
    // Leaderboard pages go forward by token only: each link carries the tokens of the pages
    // before it (`back`), so that a page can link to the one before it too.
    let back = query_values(uri.query(), "back");
    let link = |page: &str, back: &[String]| {
        let mut href = format!(
            "/ladders/{}?min_games={min_games}&amp;size={size}",
            esc(&name)
        );
        if !page.is_empty() {
            let _ = write!(href, "&amp;page={}", query_encode(page));
        }
        for token in back {
            let _ = write!(href, "&amp;back={}", query_encode(token));
        }
        href
    };
    let mut links = Vec::new();
    if !current.is_empty() {
        let (previous, before) = match back.split_last() {
            Some((previous, before)) => (previous.as_str(), before),
            None => ("", &[][..]),
        };
        links.push(format!(
            "<a rel=\"prev\" id=\"previous-page\" href=\"{}\">Previous page</a>",
            link(previous, before)
        ));
        if !back.is_empty() {
            links.push(format!(
                "<a id=\"first-page\" href=\"{}\">Top</a>",
                link("", &[])
            ));
        }
    }
    if !answer.next_page_token.is_empty() {
        let mut trail = back.clone();
        if !current.is_empty() {
            trail.push(current.clone());
        }
        links.push(format!(
            "<a rel=\"next\" id=\"next-page\" href=\"{}\">Next page</a>",
            link(&answer.next_page_token, &trail)
        ));
    }
    if !links.is_empty() {
        let _ = write!(
            body,
            "<nav class=\"pages\" aria-label=\"pages\">{}</nav>",
            links.join(" ")
        );
    }
    page(&format!("Ladder {name}"), &body).into_response()
}
