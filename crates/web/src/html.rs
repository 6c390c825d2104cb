//! The page layout, HTML escaping, and the error pages.

use axum::http::StatusCode;
use axum::response::{Html, IntoResponse, Response};
use maud::{DOCTYPE, Markup, PreEscaped, html};

use crate::assets::STYLE;

/// A player's name linking to their page (the name alone for an unknown id).
pub(crate) fn player_link(id: i64, name: &str) -> Markup {
    html! {
        @if id > 0 { a href={ "/players/" (id) } { (name) } } @else { (name) }
    }
}

/// A whole page around `body`. Every page is built with maud, which escapes every value it
/// is given; only the style sheet (a constant) goes in as it is.
pub(crate) fn page(title: &str, body: Markup) -> Html<String> {
    page_with(title, html! {}, body)
}

/// [`page`] with more in its head (a live page's script, its refresh without script).
pub(crate) fn page_with(title: &str, head: Markup, body: Markup) -> Html<String> {
    Html(
        html! {
            (DOCTYPE)
            html lang="en" {
                head {
                    meta charset="utf-8";
                    meta name="viewport" content="width=device-width, initial-scale=1";
                    title { (title) " · HanniBall" }
                    link rel="icon" href="/favicon.svg" type="image/svg+xml";
                    style { (PreEscaped(STYLE)) }
                    (head)
                }
                body {
                    header {
                        nav aria-label="site" {
                            a href="/" { "HanniBall" } " · " a href="/rules" { "Rules" }
                            " · " a href="/console" { "Organisers" }
                        }
                        (search_form(""))
                    }
                    main { (body) }
                }
            }
        }
        .into_string(),
    )
}

/// The search form every page carries in its header (`query`: the words searched for).
pub(crate) fn search_form(query: &str) -> Markup {
    html! {
        form action="/search" method="get" role="search" class="search" {
            input type="search" name="q" value=(query) aria-label="Search players, tournaments and games"
                placeholder="Player, tournament, game";
            " "
            button type="submit" { "Search" }
        }
    }
}

/// Points from half-points, as the standings write them (`2.5`).
pub(crate) fn points(halves: u32) -> String {
    format!("{}{}", halves / 2, if halves % 2 == 1 { ".5" } else { "" })
}

/// An error page with its HTTP status.
pub(crate) fn error_page(status: StatusCode, message: &str) -> Response {
    (
        status,
        page(
            status.canonical_reason().unwrap_or("error"),
            html! { h1 { (status.as_u16()) } p { (message) } },
        ),
    )
        .into_response()
}

pub(crate) async fn not_found() -> Response {
    error_page(StatusCode::NOT_FOUND, "No such page.")
}

/// The HTTP answer for a failed API call.
pub(crate) fn api_error(status: &tonic::Status) -> Response {
    match status.code() {
        tonic::Code::NotFound => error_page(StatusCode::NOT_FOUND, status.message()),
        tonic::Code::InvalidArgument => error_page(StatusCode::BAD_REQUEST, status.message()),
        tonic::Code::FailedPrecondition => error_page(StatusCode::NOT_FOUND, status.message()),
        tonic::Code::Unavailable => error_page(
            StatusCode::SERVICE_UNAVAILABLE,
            "The game server is not reachable; try again shortly.",
        ),
        _ => {
            tracing::warn!(code = ?status.code(), message = status.message(), "web: API call failed");
            error_page(
                StatusCode::BAD_GATEWAY,
                "The game server answered with an error.",
            )
        }
    }
}

pub(crate) fn unavailable(what: &str) -> Response {
    error_page(
        StatusCode::NOT_FOUND,
        &format!("This server shows no {what}."),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_is_escaped_everywhere_it_goes() {
        let html = page("<t>", player_link(3, "<a href=\"x\">'&'</a>")).0;
        assert!(
            html.contains("<title>&lt;t&gt; · HanniBall</title>"),
            "{html}"
        );
        assert!(
            html.contains(
                "<a href=\"/players/3\">&lt;a href=&quot;x&quot;&gt;'&amp;'&lt;/a&gt;</a>"
            ),
            "{html}"
        );
        assert!(
            search_form("\"><script>")
                .into_string()
                .contains("value=\"&quot;&gt;&lt;script&gt;\"")
        );
    }
}
