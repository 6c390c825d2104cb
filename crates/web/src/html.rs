//! The page layout and its style sheet, HTML escaping, and the error pages.

use axum::http::StatusCode;
use axum::response::{Html, IntoResponse, Response};
use maud::{DOCTYPE, Markup, PreEscaped, html};

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

/// The style sheet every page carries in its head.
const STYLE: &str = ":root{color-scheme:light dark;--bg:#f4f6f3;--line:#d5dbd2;--fg:#1d2327}\
body{font-family:system-ui,sans-serif;margin:0;color:var(--fg);background:var(--bg)}\
header{background:#2d5a27;color:#fff;padding:.5rem 1rem;display:flex;flex-wrap:wrap;gap:.4rem 1rem;align-items:center;justify-content:space-between}\
header a{color:#fff;text-decoration:none;font-weight:bold}form.search{display:flex;gap:.3rem}form.search input{width:12rem;max-width:55vw}\
main{max-width:60rem;margin:0 auto;padding:1rem}section{overflow-x:auto}table{border-collapse:collapse;width:100%}\
th,td{text-align:left;padding:.3rem .5rem;border-bottom:1px solid var(--line)}\
table.fixed td:first-child,table.fixed th:first-child{position:sticky;left:0;width:2.4rem;min-width:2.4rem;max-width:2.4rem;box-sizing:border-box;background:var(--bg)}\
table.fixed .name{position:sticky;left:2.4rem;background:var(--bg);box-shadow:2px 0 0 var(--line);overflow-wrap:anywhere;min-width:6rem}\
td a[href*=\"/players/\"]{overflow-wrap:anywhere}table.games td a[href*=\"/players/\"]{overflow-wrap:break-word}table.games .narrow{display:none}.cross td,.res,.pairings td:nth-child(3){white-space:nowrap}.num{text-align:right}td small{color:#4f5b4c;font-size:.85em}\
dl.legend{display:grid;grid-template-columns:max-content 1fr;gap:.2rem .8rem;font-size:.9rem}dl.legend dt{font-weight:bold}dl.legend dd{margin:0}\
.game{display:flex;flex-wrap:wrap;gap:1.5rem}.board{width:100%;max-width:26rem;height:auto}\
.side{flex:1;min-width:16rem}.game>.now{flex:1 1 100%;display:flex;flex-wrap:wrap;gap:0 1.5rem;align-items:baseline}.game>.now p{margin:.2rem 0}.clock{font-variant-numeric:tabular-nums;font-size:1.4rem}\
.running{font-weight:bold;color:#2d5a27}ol.turns{max-height:24rem;overflow:auto;font-family:monospace}\
pre{background:#fff;padding:.5rem;overflow:auto}input[type=number]{width:5rem}[aria-current]{font-weight:bold;color:var(--fg)}\
a:focus,button:focus,input:focus{outline:3px solid #a04d00}header a:focus,header button:focus,header input:focus{outline-color:#fff}\
.rules-board{max-width:26rem;margin:1rem 0}.rules-board svg{width:100%;height:auto}\
.game>#board{flex:1 1 20rem;max-width:30rem}.game>#board svg{width:100%;max-width:none;height:auto}\
svg.chart{width:100%;height:13rem;display:block}svg.results{width:100%;max-width:36rem;height:auto;display:block}svg.results text{font-size:12px}table.statistics{font-size:.85rem}table.statistics th{white-space:nowrap}table.statistics th,table.statistics td{padding:.3rem .25rem}svg.chart text{font-size:12px;fill:currentColor}svg text.coord{fill:currentColor}\
nav.pages{display:flex;gap:1rem}h1{overflow-wrap:anywhere}header [aria-current]{color:#fff;text-decoration:underline}\
@media (max-width:40rem){main{padding:.5rem}table.fixed .name{max-width:8.5rem}th,td{padding:.25rem .3rem}h1{font-size:1.4rem}\
table.standings .rating,table.card .wide,table.games .wide{display:none}table.games .narrow{display:inline}table.standings,table.card,table.games{font-size:.9rem}:is(table.standings,table.card,table.games) :is(th,td){padding:.25rem .2rem}:is(table.standings,table.card) .name{max-width:7.5rem}\
table.statistics{font-size:.75rem}table.statistics th,table.statistics td{padding:.25rem .1rem}table.statistics thead th{white-space:normal}\
.game{gap:.8rem}.game>#board,.game>.side{flex:1 1 100%;max-width:none;min-width:0}.kind{display:block;font-size:.8em}}\
@media (prefers-color-scheme:dark){:root{--bg:#121712;--line:#3a4438;--fg:#e3e7e1}td small{color:#a9b4a5}\
pre{background:#1e251d;color:#e3e7e1}a{color:#8ab4f8}a:visited{color:#c58af9}header a,header a:visited{color:#fff}[aria-current]{color:#fff}\
.running{color:#7fd36f}a:focus,button:focus,input:focus{outline-color:#ffb347}}\
@media print,(min-width:40rem){.sheet h2{font-size:2rem}.sheet table{font-size:1.5rem}.sheet td,.sheet th{padding:.45rem .6rem}\
.sheet table.fixed td:first-child,.sheet table.fixed th:first-child{width:4rem;min-width:4rem;max-width:4rem}.sheet table.fixed .name{left:4rem}}\
table.fixed thead th{white-space:nowrap}\
@media print{:root{--bg:#fff;--fg:#000}body{background:#fff;color:#000}header,.noprint{display:none}main{max-width:none;padding:0}\
a{color:#000;text-decoration:none}.sheet{break-after:page;page-break-after:always}.sheet:last-child{break-after:auto;page-break-after:auto}\
section{overflow:visible}}";

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
