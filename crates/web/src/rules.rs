//! `/rules`: the rules document as a page.

use axum::response::{Html, IntoResponse, Response};

use maud::{PreEscaped, html};

use crate::html::page;
use crate::i18n::{Lang, tr, within};

/// The rules and notation of both games, as the arbiter enforces them (`docs/RULES.md`).
const RULES: &str = include_str!("../../../docs/RULES.md");

/// `/rules`: `docs/RULES.md` as a page, with each game's initial position drawn as on a game page.
/// Rendered once per language: the text is part of the binary. The rules are written in English
/// only; the page around them is in the visitor's language and says so.
pub(crate) async fn rules_page() -> Response {
    static PAGES: [std::sync::OnceLock<String>; 3] = [const { std::sync::OnceLock::new() }; 3];
    let lang = crate::i18n::lang();
    let slot = Lang::ALL.iter().position(|l| *l == lang).unwrap_or(0);
    // Rendered as if asked at `/rules` itself: the page is shared by every query.
    let html = PAGES[slot].get_or_init(|| within(lang, "/rules", render));
    Html(html.clone()).into_response()
}

fn render() -> String {
    {
        // The repository's own document and the rules crate's drawings: trusted HTML.
        let parser = pulldown_cmark::Parser::new_ext(RULES, pulldown_cmark::Options::ENABLE_TABLES);
        let mut document = String::with_capacity(2 * RULES.len());
        pulldown_cmark::html::push_html(&mut document, with_anchors(parser).into_iter());
        // A code block wider than a phone scrolls: the keyboard must reach it to scroll it.
        let document = document.replace("<pre>", "<pre tabindex=\"0\">");
        let hanniball = hanniball_rules::hanniball::svg(
            &hanniball_rules::hanniball::Position::initial(
                hanniball_rules::hanniball::Ruleset::default(),
            ),
            None,
        );
        let paper = hanniball_rules::paper::svg(&hanniball_rules::paper::Position::initial(), 0);
        // Each game's initial position goes before the section on its board.
        let figures = [
            (
                "<h3 id=\"1-1-board-and-coordinates\">",
                hanniball,
                tr!("rules-hanniball-figure"),
            ),
            ("<h3 id=\"2-2-segments\">", paper, tr!("rules-paper-figure")),
        ];
        let mut rest = document.as_str();
        let mut parts = Vec::new();
        for (heading, svg, caption) in figures {
            if let Some(at) = rest.find(heading) {
                parts.push((&rest[..at], Some((svg, caption))));
                rest = &rest[at..];
            }
        }
        let body = html! {
            @if crate::i18n::lang() != Lang::En {
                p.note id="rules-language" { (tr!("rules-in-english")) }
            }
            div lang="en" {
                @for (text, figure) in &parts {
                    (PreEscaped(*text))
                    @if let Some((svg, caption)) = figure {
                        figure.rules-board { (PreEscaped(svg)) figcaption lang=(crate::i18n::lang().code()) { (caption) } }
                    }
                }
                (PreEscaped(rest))
            }
        };
        page(&tr!("rules-title"), body).0
    }
}

/// A heading's anchor: its words in lower case joined by `-` (`1.11 Notation` → `1-11-notation`).
fn slug(text: &str) -> String {
    text.to_lowercase()
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .collect::<Vec<_>>()
        .join("-")
}

/// The document's events with an `id` on every heading, so that each rule can be linked to.
fn with_anchors<'a>(parser: pulldown_cmark::Parser<'a>) -> Vec<pulldown_cmark::Event<'a>> {
    use pulldown_cmark::{Event, Tag, TagEnd};
    let mut events: Vec<Event<'a>> = parser.collect();
    let mut i = 0;
    while i < events.len() {
        if let Event::Start(Tag::Heading { id: None, .. }) = &events[i] {
            let mut text = String::new();
            for event in &events[i + 1..] {
                match event {
                    Event::End(TagEnd::Heading(_)) => break,
                    Event::Text(t) | Event::Code(t) => text.push_str(t),
                    _ => {}
                }
            }
            if let Event::Start(Tag::Heading { id, .. }) = &mut events[i] {
                *id = Some(slug(&text).into());
            }
        }
        i += 1;
    }
    events
}

#[cfg(test)]
mod tests {
    #[tokio::test]
    async fn the_rules_page_is_the_rules_document_with_both_boards_drawn() {
        let response = super::rules_page().await;
        assert_eq!(response.status(), axum::http::StatusCode::OK);
        let body = axum::body::to_bytes(response.into_body(), 1 << 22)
            .await
            .expect("body");
        let html = String::from_utf8(body.to_vec()).expect("utf-8");
        assert!(
            html.contains("<h2 id=\"part-1-hanniball\">Part 1 — HanniBall</h2>"),
            "{html}"
        );
        assert!(html.contains("<h3 id=\"1-11-notation\">1.11 Notation</h3>"));
        assert!(html.contains("<h2 id=\"part-3-game-records\">Part 3 — Game records</h2>"));
        assert!(html.contains("<table>"), "markdown tables render");
        assert_eq!(
            html.matches("<figure class=\"rules-board\"><svg").count(),
            2
        );
        assert!(
            html.find("<figure").unwrap_or(usize::MAX)
                < html
                    .find("<h3 id=\"1-1-board-and-coordinates\">")
                    .unwrap_or(0)
        );
    }
}
