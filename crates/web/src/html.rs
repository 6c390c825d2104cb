//! The page layout, HTML escaping, and the error pages.

use axum::http::StatusCode;
use axum::response::{Html, IntoResponse, Response};

use crate::assets::STYLE;

/// A player's name linking to their page (the name alone for an unknown id).
pub(crate) fn player_link(id: i64, name: &str) -> String {
    if id > 0 {
        format!("<a href=\"/players/{id}\">{}</a>", esc(name))
    } else {
        esc(name)
    }
}

/// HTML-escapes text for element content and attribute values.
pub(crate) fn esc(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

/// A whole page around `body`.
pub(crate) fn page(title: &str, body: &str) -> Html<String> {
    Html(format!(
        "<!doctype html><html lang=\"en\"><head><meta charset=\"utf-8\">\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\
         <title>{} · HanniBall</title><link rel=\"icon\" href=\"/favicon.svg\" type=\"image/svg+xml\">\
         <style>{STYLE}</style></head><body>\
         <header><nav aria-label=\"site\"><a href=\"/\">HanniBall</a> · <a href=\"/rules\">Rules</a> · <a href=\"/console\">Organisers</a></nav>{}</header>\
         <main>{body}</main></body></html>",
        esc(title),
        search_form(""),
    ))
}

/// The search form every page carries in its header (`query`: the words searched for).
pub(crate) fn search_form(query: &str) -> String {
    format!(
        "<form action=\"/search\" method=\"get\" role=\"search\" class=\"search\">\
         <input type=\"search\" name=\"q\" value=\"{}\" aria-label=\"Search players, tournaments and games\" \
         placeholder=\"Player, tournament, game\"> <button type=\"submit\">Search</button></form>",
        esc(query)
    )
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
            &format!("<h1>{}</h1><p>{}</p>", status.as_u16(), esc(message)),
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
    fn text_is_escaped() {
        assert_eq!(
            esc("<a href=\"x\">'&'</a>"),
            "&lt;a href=&quot;x&quot;&gt;&#39;&amp;&#39;&lt;/a&gt;"
        );
    }
}
