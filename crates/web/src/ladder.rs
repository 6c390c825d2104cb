//! `/ladders/{name}`: a ladder's leaderboard, page by page.

use std::fmt::Write as _;

use axum::extract::{Path, State};
use axum::response::{IntoResponse, Response};
use hanniball_proto::rating::v1 as rpb;
use maud::html;

use crate::api::Api;
use crate::html::{api_error, page, player_link, unavailable};
use crate::i18n::tr;
use crate::url::{query_encode, query_value, query_values};

pub(crate) async fn ladder_page(
    State(mut api): State<Api>,
    Path(name): Path<String>,
    uri: axum::http::Uri,
) -> Response {
    let Some(rating) = api.rating.as_mut() else {
        return unavailable(crate::html::Missing::Ladders);
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
    // Leaderboard pages go forward by token only: each link carries the tokens of the pages
    // before it (`back`), so that a page can link to the one before it too.
    let back = query_values(uri.query(), "back");
    let link = |page: &str, back: &[String]| {
        let mut href = format!("/ladders/{name}?min_games={min_games}&size={size}");
        if !page.is_empty() {
            let _ = write!(href, "&page={}", query_encode(page));
        }
        for token in back {
            let _ = write!(href, "&back={}", query_encode(token));
        }
        href
    };
    let previous = (!current.is_empty()).then(|| match back.split_last() {
        Some((previous, before)) => link(previous, before),
        None => link("", &[]),
    });
    let top = (!current.is_empty() && !back.is_empty()).then(|| link("", &[]));
    let next = (!answer.next_page_token.is_empty()).then(|| {
        let mut trail = back.clone();
        if !current.is_empty() {
            trail.push(current.clone());
        }
        link(&answer.next_page_token, &trail)
    });
    let body = html! {
        h1 { (tr!("ladder-title", name = name.as_str())) }
        form method="get" {
            label {
                (tr!("ladder-at-least")) " "
                input type="number" name="min_games" min="0" value=(min_games) size="4";
                " " (tr!("ladder-rated-games"))
            }
            " "
            button type="submit" { (tr!("ladder-filter")) }
        }
        table {
            thead { tr {
                th scope="col" { (tr!("col-rank-long")) } th scope="col" { (tr!("col-player")) }
                th scope="col" { (tr!("col-rating")) } th scope="col" { (tr!("col-games")) }
            } }
            tbody {
                @for entry in &answer.entries {
                    tr {
                        td { (entry.rank) }
                        td { (player_link(entry.player_id, &entry.name)) }
                        td { (format!("{:.0}", entry.rating)) @if entry.provisional { abbr title=(tr!("provisional")) { "?" } } }
                        td { (entry.games) }
                    }
                }
            }
        }
        @if answer.entries.is_empty() { p { (tr!("ladder-empty")) } }
        @if previous.is_some() || next.is_some() {
            nav.pages aria-label=(tr!("pages")) {
                @if let Some(href) = &previous { a rel="prev" id="previous-page" href=(href) { (tr!("page-previous")) } }
                @if let Some(href) = &top { " " a id="first-page" href=(href) { (tr!("page-top")) } }
                @if let Some(href) = &next { " " a rel="next" id="next-page" href=(href) { (tr!("page-next")) } }
            }
        }
    };
    page(&tr!("ladder-title", name = name.as_str()), body).into_response()
}
