//! The page layout, HTML escaping, and the error pages.

use axum::http::StatusCode;
use axum::response::{Html, IntoResponse, Response};
use maud::{DOCTYPE, Markup, PreEscaped, html};

use crate::assets::STYLE;
use crate::i18n::{Lang, tr};

/// A player's name linking to their page (the name alone for an unknown id).
pub(crate) fn player_link(id: i64, name: &str) -> Markup {
    html! {
        @if id > 0 { a href={ "/players/" (id) } { (breakable(name)) } } @else { (breakable(name)) }
    }
}

/// A name that a narrow column may break after its dots, underscores and hyphens
/// (`Fernando.Alvarez.de.la.Cruz`) rather than in the middle of a word.
pub(crate) fn breakable(name: &str) -> Markup {
    html! {
        @for (i, part) in name.split_inclusive(['.', '_', '-']).enumerate() {
            @if i > 0 { wbr; }
            (part)
        }
    }
}

/// A whole page around `body`. Every page is built with maud, which escapes every value it
/// is given; only the style sheet (a constant) goes in as it is.
pub(crate) fn page(title: &str, body: Markup) -> Html<String> {
    page_with(title, html! {}, body)
}

/// [`page`] with more in its head (a live page's script, its refresh without script).
pub(crate) fn page_with(title: &str, head: Markup, body: Markup) -> Html<String> {
    let lang = crate::i18n::lang();
    let here = crate::i18n::here();
    Html(
        html! {
            (DOCTYPE)
            html lang=(lang.code()) {
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
                        nav aria-label=(tr!("nav-site")) {
                            a href="/" { "HanniBall" } " · " a href="/rules" { (tr!("nav-rules")) }
                            " · " a href="/console" { (tr!("nav-organisers")) }
                        }
                        (search_form("", None))
                        nav.langs aria-label=(tr!("nav-language")) {
                            @for (i, other) in Lang::ALL.into_iter().enumerate() {
                                @if i > 0 { " · " }
                                @if other == lang {
                                    strong lang=(other.code()) aria-current="true" { (other.name()) }
                                } @else {
                                    a href=(crate::i18n::switch_href(&here, other)) lang=(other.code())
                                        hreflang=(other.code()) id={ "lang-" (other.code()) } { (other.name()) }
                                }
                            }
                        }
                    }
                    main { (body) }
                }
            }
        }
        .into_string(),
    )
}

/// The search form every page carries in its header (`query`: the words searched for). A second
/// one on a page names itself by its `heading` (an element's id): two search landmarks of the
/// same name confuse who goes by landmarks.
pub(crate) fn search_form(query: &str, heading: Option<&str>) -> Markup {
    html! {
        form action="/search" method="get" role="search" class="search"
            aria-label=[heading.is_none().then(|| tr!("search-label"))] aria-labelledby=[heading] {
            input type="search" name="q" value=(query) aria-label=(tr!("search-label"))
                placeholder=(tr!("search-placeholder"));
            " "
            button type="submit" { (tr!("search-button")) }
        }
    }
}

/// Points from half-points, as the standings write them (`2.5`; `2,5` in Russian and French).
pub(crate) fn points(halves: u32) -> String {
    crate::i18n::decimal(&format!(
        "{}{}",
        halves / 2,
        if halves % 2 == 1 { ".5" } else { "" }
    ))
}

/// A count of points from half-points, with the language's plural form (`2.5 points`, `1 очко`).
pub(crate) fn points_count(halves: u32) -> String {
    tr!(
        "points-count",
        count = f64::from(halves) / 2.0,
        points = points(halves)
    )
}

/// An HTTP status's name in the page's language.
fn status_name(status: StatusCode) -> String {
    match status.as_u16() {
        400 => tr!("status-400"),
        403 => tr!("status-403"),
        404 => tr!("status-404"),
        429 => tr!("status-429"),
        502 => tr!("status-502"),
        503 => tr!("status-503"),
        _ => tr!("status-other"),
    }
}

/// An error page with its HTTP status.
pub(crate) fn error_page(status: StatusCode, message: &str) -> Response {
    (
        status,
        page(
            &status_name(status),
            html! { h1 { (status.as_u16()) } p { (message) } },
        ),
    )
        .into_response()
}

/// An error page whose message is the game server's own (its words are English): in another
/// language the page says so, and marks the message as English.
pub(crate) fn server_error_page(status: StatusCode, message: &str) -> Response {
    if crate::i18n::lang() == Lang::En {
        return error_page(status, message);
    }
    (
        status,
        page(
            &status_name(status),
            html! {
                h1 { (status.as_u16()) }
                p { (tr!("error-server-said")) }
                p lang="en" { (message) }
            },
        ),
    )
        .into_response()
}

pub(crate) async fn not_found() -> Response {
    error_page(StatusCode::NOT_FOUND, &tr!("error-no-page"))
}

/// The HTTP answer for a failed API call.
pub(crate) fn api_error(status: &tonic::Status) -> Response {
    match status.code() {
        tonic::Code::NotFound => server_error_page(StatusCode::NOT_FOUND, status.message()),
        tonic::Code::InvalidArgument => {
            server_error_page(StatusCode::BAD_REQUEST, status.message())
        }
        tonic::Code::FailedPrecondition => {
            server_error_page(StatusCode::NOT_FOUND, status.message())
        }
        tonic::Code::Unavailable => {
            error_page(StatusCode::SERVICE_UNAVAILABLE, &tr!("error-unreachable"))
        }
        _ => {
            tracing::warn!(code = ?status.code(), message = status.message(), "web: API call failed");
            error_page(StatusCode::BAD_GATEWAY, &tr!("error-server"))
        }
    }
}

/// What a server without the service shows instead of its pages.
#[derive(Clone, Copy)]
pub(crate) enum Missing {
    Tournaments,
    Ladders,
}

pub(crate) fn unavailable(what: Missing) -> Response {
    let message = match what {
        Missing::Tournaments => tr!("error-no-tournaments"),
        Missing::Ladders => tr!("error-no-ladders"),
    };
    error_page(StatusCode::NOT_FOUND, &message)
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
            search_form("\"><script>", None)
                .into_string()
                .contains("value=\"&quot;&gt;&lt;script&gt;\"")
        );
    }
}
