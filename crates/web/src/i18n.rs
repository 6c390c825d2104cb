//! The pages' languages: English, Russian and French, through Project Fluent. Each language's
//! messages are a `.ftl` file under `crates/web/locales/` built into the binary; a page asks for
//! a message by its id with [`tr!`], in the language of the request it answers.
//!
//! The language of a request: the `lang` cookie (set by the switch every page's header carries,
//! `?lang=ru` on any page: the cookie, then back to the page without it), else the browser's
//! `Accept-Language` (q-values honoured), else English. The [`language`] middleware decides it
//! and runs the handler inside a task-local [`Context`], so that templates need no parameter for
//! it; answers say `Vary: Accept-Language, Cookie`, and their ETags (a hash of the body) differ
//! by language since the bodies do.
//!
//! A message missing from a language, or one given the wrong variables, shows as `⟦id⟧` on the
//! page rather than a guess in another language: the tests look for it.

use std::sync::LazyLock;

use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use fluent_bundle::concurrent::FluentBundle;
use fluent_bundle::{FluentArgs, FluentResource, FluentValue};

/// A language the pages are written in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Lang {
    En,
    Ru,
    Fr,
}

impl Lang {
    pub(crate) const ALL: [Lang; 3] = [Lang::En, Lang::Ru, Lang::Fr];

    /// The BCP 47 code (`<html lang>`, the cookie's value, `?lang=`).
    pub(crate) fn code(self) -> &'static str {
        match self {
            Lang::En => "en",
            Lang::Ru => "ru",
            Lang::Fr => "fr",
        }
    }

    /// The language's own name for itself (the switch's labels).
    pub(crate) fn name(self) -> &'static str {
        match self {
            Lang::En => "English",
            Lang::Ru => "Русский",
            Lang::Fr => "Français",
        }
    }

    /// The language of a tag (`ru`, `ru-RU`, `fr_CA`, any case); `None` for the others.
    pub(crate) fn from_code(tag: &str) -> Option<Lang> {
        let primary = tag.trim().split(['-', '_']).next().unwrap_or_default();
        Lang::ALL
            .into_iter()
            .find(|l| primary.eq_ignore_ascii_case(l.code()))
    }

    /// The messages, as written.
    pub(crate) fn source(self) -> &'static str {
        match self {
            Lang::En => include_str!("../locales/en/main.ftl"),
            Lang::Ru => include_str!("../locales/ru/main.ftl"),
            Lang::Fr => include_str!("../locales/fr/main.ftl"),
        }
    }

    fn index(self) -> usize {
        self as usize
    }
}

type Bundle = FluentBundle<FluentResource>;

/// Each language's messages, parsed once.
static BUNDLES: LazyLock<[Bundle; 3]> = LazyLock::new(|| Lang::ALL.map(bundle_of));

fn bundle_of(lang: Lang) -> Bundle {
    let resource =
        FluentResource::try_new(lang.source().to_owned()).unwrap_or_else(|(resource, errors)| {
            tracing::error!(
                lang = lang.code(),
                ?errors,
                "web: messages that do not parse"
            );
            resource
        });
    let id = lang.code().parse().unwrap_or_default();
    let mut bundle = FluentBundle::new_concurrent(vec![id]);
    // No bidi isolation marks around placeables: every language here runs left to right, and
    // the marks would stand between a number and a search for it.
    bundle.set_use_isolating(false);
    if let Err(errors) = bundle.add_resource(resource) {
        tracing::error!(lang = lang.code(), ?errors, "web: messages defined twice");
    }
    bundle
}

/// Message `id` in `lang` with `args`; `⟦id⟧` when the language lacks it or it cannot be
/// formatted with these arguments.
pub(crate) fn text(lang: Lang, id: &str, args: Option<&FluentArgs<'_>>) -> String {
    let bundle = &BUNDLES[lang.index()];
    let Some(pattern) = bundle.get_message(id).and_then(|m| m.value()) else {
        tracing::warn!(lang = lang.code(), id, "web: no such message");
        return format!("⟦{id}⟧");
    };
    let mut errors = Vec::new();
    let out = bundle.format_pattern(pattern, args, &mut errors);
    if errors.is_empty() {
        out.into_owned()
    } else {
        tracing::warn!(
            lang = lang.code(),
            id,
            ?errors,
            "web: a message's arguments"
        );
        format!("⟦{id}⟧")
    }
}

/// A value given to a message: numbers stay numbers (plural forms choose by them), text is text.
pub(crate) trait Arg {
    fn arg(self) -> FluentValue<'static>;
}

macro_rules! number_arg {
    ($($t:ty),*) => { $(impl Arg for $t { fn arg(self) -> FluentValue<'static> { FluentValue::from(self) } })* };
}
number_arg!(u32, i32, i64, u64, usize, f64);

impl Arg for String {
    fn arg(self) -> FluentValue<'static> {
        FluentValue::from(self)
    }
}

impl Arg for &str {
    fn arg(self) -> FluentValue<'static> {
        FluentValue::from(self.to_owned())
    }
}

impl Arg for &String {
    fn arg(self) -> FluentValue<'static> {
        FluentValue::from(self.clone())
    }
}

/// Message `id` in the language of the request being answered, given `name = value` arguments.
macro_rules! tr {
    ($id:literal) => {
        $crate::i18n::text($crate::i18n::lang(), $id, None)
    };
    ($id:literal, $($name:ident = $value:expr),+ $(,)?) => {{
        let mut args = fluent_bundle::FluentArgs::new();
        $( args.set(stringify!($name), $crate::i18n::Arg::arg($value)); )+
        $crate::i18n::text($crate::i18n::lang(), $id, Some(&args))
    }};
}
pub(crate) use tr;

/// What a request's answer is written for: its language, and where it was asked (the path and
/// query without `lang`, for the language switch's links).
#[derive(Clone, Debug)]
pub(crate) struct Context {
    pub(crate) lang: Lang,
    pub(crate) here: String,
}

tokio::task_local! {
    static CONTEXT: Context;
}

/// The language of the request being answered (English outside one).
pub(crate) fn lang() -> Lang {
    CONTEXT.try_with(|c| c.lang).unwrap_or(Lang::En)
}

/// The path and query of the request being answered, without `lang`.
pub(crate) fn here() -> String {
    CONTEXT
        .try_with(|c| c.here.clone())
        .unwrap_or_else(|_| "/".to_owned())
}

/// `f` run as if answering a request in `lang` at `here`.
pub(crate) fn within<R>(lang: Lang, here: &str, f: impl FnOnce() -> R) -> R {
    CONTEXT.sync_scope(
        Context {
            lang,
            here: here.to_owned(),
        },
        f,
    )
}

/// The cookie that keeps a visitor's choice.
pub(crate) const COOKIE: &str = "lang";

/// The language `Accept-Language` prefers most (the highest q, the first of equals) among
/// those the pages are written in.
pub(crate) fn from_accept_language(value: &str) -> Option<Lang> {
    let mut best: Option<(f32, Lang)> = None;
    for range in value.split(',') {
        let mut parts = range.split(';');
        let Some(lang) = Lang::from_code(parts.next().unwrap_or_default()) else {
            continue;
        };
        let q = parts
            .find_map(|p| p.trim().strip_prefix("q="))
            .map_or(Some(1.0), |q| q.trim().parse::<f32>().ok())
            .unwrap_or(0.0);
        if q > 0.0 && best.is_none_or(|(b, _)| q > b) {
            best = Some((q, lang));
        }
    }
    best.map(|(_, lang)| lang)
}

/// The language a request asks for: its `lang` cookie, else `Accept-Language`, else English.
pub(crate) fn chosen(headers: &HeaderMap) -> Lang {
    crate::session::cookies::cookie(headers, COOKIE)
        .and_then(|c| Lang::from_code(&c))
        .or_else(|| {
            headers
                .get_all(header::ACCEPT_LANGUAGE)
                .iter()
                .filter_map(|v| v.to_str().ok())
                .find_map(from_accept_language)
        })
        .unwrap_or(Lang::En)
}

/// `path` and `query` without any `lang=`, always a path of this site (never `//host`).
fn without_lang(path: &str, query: Option<&str>) -> String {
    let path = format!("/{}", path.trim_start_matches(['/', '\\']));
    let rest: Vec<&str> = query
        .unwrap_or_default()
        .split('&')
        .filter(|pair| !pair.is_empty() && pair.split('=').next() != Some("lang"))
        .collect();
    if rest.is_empty() {
        path
    } else {
        format!("{path}?{}", rest.join("&"))
    }
}

/// The link of the language switch to `lang` from `here` (a path and query without `lang`).
pub(crate) fn switch_href(here: &str, lang: Lang) -> String {
    let join = if here.contains('?') { '&' } else { '?' };
    format!("{here}{join}lang={}", lang.code())
}

/// Answers in the request's language. `GET …?lang=xx` (the switch) sets the `lang` cookie for a
/// year and sends the browser back to the page without `lang=`; it changes nothing but how
/// pages read, so it needs no form token.
pub(crate) async fn language(
    request: axum::extract::Request,
    next: axum::middleware::Next,
) -> Response {
    let uri = request.uri().clone();
    let here = without_lang(uri.path(), uri.query());
    let switch = crate::url::query_value(uri.query(), "lang");
    if request.method() == axum::http::Method::GET
        && let Some(lang) = switch.as_deref().and_then(Lang::from_code)
    {
        let cookie = format!(
            "{COOKIE}={}; Path=/; Max-Age=31536000; SameSite=Lax; HttpOnly",
            lang.code()
        );
        let mut response = StatusCode::SEE_OTHER.into_response();
        if let (Ok(location), Ok(cookie)) =
            (HeaderValue::from_str(&here), HeaderValue::from_str(&cookie))
        {
            response.headers_mut().insert(header::LOCATION, location);
            response.headers_mut().insert(header::SET_COOKIE, cookie);
        }
        return response;
    }
    let lang = chosen(request.headers());
    let mut response = CONTEXT
        .scope(Context { lang, here }, next.run(request))
        .await;
    response.headers_mut().append(
        header::VARY,
        HeaderValue::from_static("Accept-Language, Cookie"),
    );
    response
}

/// A date as the language writes it (`29 November 2026`, `29 ноября 2026`, `1er mai 2026`, with
/// no-break spaces), from milliseconds since the Unix epoch.
pub(crate) fn date(ms: i64) -> String {
    let day = hanniball_rules::record::date(ms);
    let mut parts = day.split('.').map(|p| p.parse::<u32>().unwrap_or(0));
    let (year, month, day) = (
        parts.next().unwrap_or(0),
        parts.next().unwrap_or(0),
        parts.next().unwrap_or(0),
    );
    // The year as written, not as a number (no digit grouping).
    tr!("date", day = day, month = month, year = year.to_string())
}

/// An ISO date (`2026-03-01`, as the API sends tournament details) as the language writes it
/// ([`date`]); a text that is not one, as it is.
pub(crate) fn iso_date(text: &str) -> String {
    let parts: Vec<u32> = text.split('-').filter_map(|p| p.parse().ok()).collect();
    match parts.as_slice() {
        [year, month, day] if text.len() == 10 => {
            tr!("date", day = *day, month = *month, year = year.to_string())
        }
        _ => text.to_owned(),
    }
}

/// A date in the language's short, numeric form (`2026-11-29`, `29.11.2026`, `29/11/2026`), for
/// narrow columns.
pub(crate) fn date_short(ms: i64) -> String {
    let day = hanniball_rules::record::date(ms);
    let mut parts = day.split('.').map(str::to_owned);
    let (year, month, day) = (
        parts.next().unwrap_or_default(),
        parts.next().unwrap_or_default(),
        parts.next().unwrap_or_default(),
    );
    tr!("date-short", day = day, month = month, year = year)
}

/// A date and a time of day (UTC) as the language writes them.
pub(crate) fn date_time(ms: i64) -> String {
    let minutes = ms.div_euclid(60_000).rem_euclid(24 * 60);
    tr!(
        "date-time",
        date = date(ms),
        time = format!("{:02}:{:02}", minutes / 60, minutes % 60)
    )
}

/// [`date_time`] with the short form of the date, for narrow columns.
pub(crate) fn date_time_short(ms: i64) -> String {
    let minutes = ms.div_euclid(60_000).rem_euclid(24 * 60);
    tr!(
        "date-time",
        date = date_short(ms),
        time = format!("{:02}:{:02}", minutes / 60, minutes % 60)
    )
}

/// A decimal number's text (`2.5`, `-3.0`, `+12.4`) with the language's decimal separator
/// (`2,5` in Russian and French); any other text as it is.
pub(crate) fn decimal(text: &str) -> String {
    let numeric = !text.is_empty()
        && text.chars().filter(|c| *c == '.').count() == 1
        && text
            .chars()
            .all(|c| c.is_ascii_digit() || matches!(c, '.' | '-' | '+' | '−'));
    if numeric && lang() != Lang::En {
        text.replace('.', ",")
    } else {
        text.to_owned()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use fluent_syntax::ast;
    use std::collections::{BTreeMap, BTreeSet};

    /// Each message of `lang` with the variables it uses (in its value, selectors and variants).
    fn messages(lang: Lang) -> BTreeMap<String, BTreeSet<String>> {
        let resource = fluent_syntax::parser::parse(lang.source())
            .unwrap_or_else(|(_, errors)| panic!("{}: {errors:?}", lang.code()));
        let mut out = BTreeMap::new();
        for entry in resource.body {
            match entry {
                ast::Entry::Message(message) => {
                    let mut variables = BTreeSet::new();
                    if let Some(pattern) = &message.value {
                        pattern_variables(pattern, &mut variables);
                    }
                    assert!(
                        out.insert(message.id.name.to_owned(), variables).is_none(),
                        "{}: {} twice",
                        lang.code(),
                        message.id.name
                    );
                }
                ast::Entry::Junk { content } => panic!("{}: junk {content}", lang.code()),
                _ => {}
            }
        }
        out
    }

    fn pattern_variables(pattern: &ast::Pattern<&str>, out: &mut BTreeSet<String>) {
        for element in &pattern.elements {
            if let ast::PatternElement::Placeable { expression } = element {
                expression_variables(expression, out);
            }
        }
    }

    fn expression_variables(expression: &ast::Expression<&str>, out: &mut BTreeSet<String>) {
        match expression {
            ast::Expression::Select { selector, variants } => {
                inline_variables(selector, out);
                for variant in variants {
                    pattern_variables(&variant.value, out);
                }
            }
            ast::Expression::Inline(inline) => inline_variables(inline, out),
        }
    }

    fn inline_variables(inline: &ast::InlineExpression<&str>, out: &mut BTreeSet<String>) {
        match inline {
            ast::InlineExpression::VariableReference { id } => {
                out.insert(id.name.to_owned());
            }
            ast::InlineExpression::Placeable { expression } => {
                expression_variables(expression, out);
            }
            ast::InlineExpression::FunctionReference { arguments, .. } => {
                for argument in &arguments.positional {
                    inline_variables(argument, out);
                }
            }
            _ => {}
        }
    }

    /// Every `tr!` call of the crate's sources: its message id and the variables it names.
    fn calls() -> Vec<(String, String, BTreeSet<String>)> {
        let mut files = Vec::new();
        let mut dirs = vec![std::path::PathBuf::from(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/src"
        ))];
        while let Some(dir) = dirs.pop() {
            for entry in std::fs::read_dir(&dir).expect("the sources") {
                let path = entry.expect("an entry").path();
                if path.is_dir() {
                    dirs.push(path);
                } else if path.extension().is_some_and(|e| e == "rs") {
                    files.push(path);
                }
            }
        }
        let mut calls = Vec::new();
        for file in files {
            let source = std::fs::read_to_string(&file).expect("a source");
            let name = file.display().to_string();
            for (at, _) in source.match_indices("tr!(") {
                let before = source[..at].chars().next_back().unwrap_or(' ');
                if before.is_alphanumeric() || before == '_' {
                    continue; // `include_str!(`, `attr!(`…
                }
                let rest = &source[at + 4..];
                // The call's text up to its closing parenthesis.
                let mut depth = 1;
                let mut end = rest.len();
                let mut in_string = false;
                let mut previous = ' ';
                for (i, c) in rest.char_indices() {
                    match c {
                        '"' if previous != '\\' => in_string = !in_string,
                        '(' | '[' | '{' if !in_string => depth += 1,
                        ')' | ']' | '}' if !in_string => {
                            depth -= 1;
                            if depth == 0 {
                                end = i;
                                break;
                            }
                        }
                        _ => {}
                    }
                    previous = c;
                }
                let call = &rest[..end];
                let Some(id) = call
                    .trim_start()
                    .strip_prefix('"')
                    .and_then(|c| c.split('"').next())
                    .filter(|id| {
                        !id.is_empty()
                            && id
                                .chars()
                                .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-')
                    })
                else {
                    // The macro's own definition (`$id:literal`), this test's own text.
                    continue;
                };
                // The variables: `name =` at the call's top level.
                let mut variables = BTreeSet::new();
                let mut depth = 0;
                let mut in_string = false;
                let mut previous = ' ';
                let mut piece = String::new();
                let mut pieces = Vec::new();
                for c in call.chars() {
                    match c {
                        '"' if previous != '\\' => in_string = !in_string,
                        '(' | '[' | '{' if !in_string => depth += 1,
                        ')' | ']' | '}' if !in_string => depth -= 1,
                        ',' if !in_string && depth == 0 => {
                            pieces.push(std::mem::take(&mut piece));
                            previous = c;
                            continue;
                        }
                        _ => {}
                    }
                    piece.push(c);
                    previous = c;
                }
                pieces.push(piece);
                for piece in pieces.iter().skip(1) {
                    if let Some((name, _)) = piece.split_once('=')
                        && !name.trim().is_empty()
                    {
                        variables.insert(name.trim().to_owned());
                    }
                }
                calls.push((name.clone(), id.to_owned(), variables));
            }
        }
        calls
    }

    #[test]
    fn every_language_has_every_message_with_the_same_variables() {
        let english = messages(Lang::En);
        assert!(english.len() > 100, "{}", english.len());
        for lang in [Lang::Ru, Lang::Fr] {
            let other = messages(lang);
            let missing: Vec<&String> =
                english.keys().filter(|k| !other.contains_key(*k)).collect();
            let extra: Vec<&String> = other.keys().filter(|k| !english.contains_key(*k)).collect();
            assert!(missing.is_empty(), "{} lacks {missing:?}", lang.code());
            assert!(extra.is_empty(), "{} alone has {extra:?}", lang.code());
            // Words left in English by mistake: a message that reads as the English one, but
            // for those the same in both languages.
            let same: &[&str] = match lang {
                Lang::Ru => &["date-time", "tb-with-cut", "details-date-range"],
                _ => &[
                    "nav-site",
                    "points-count",
                    "col-points",
                    "col-round-short",
                    "absent",
                    "tb-with-cut",
                    "stat-forfeits",
                    "pages",
                    "account-sessions",
                    "console-nav",
                    "field-session",
                    "create-bye-1",
                    "create-bye-half",
                    "bye-kind",
                    "add-rating-auto",
                    "details-dates",
                    "details-date-range",
                ],
            };
            for (id, variables) in &english {
                assert_eq!(
                    &other[id],
                    variables,
                    "{}: {id} uses other variables than English",
                    lang.code()
                );
                let mut args = FluentArgs::new();
                for name in variables {
                    args.set(name.clone(), FluentValue::from(2));
                }
                let (theirs, ours) = (text(Lang::En, id, Some(&args)), text(lang, id, Some(&args)));
                assert!(
                    theirs != ours || same.contains(&id.as_str()),
                    "{}: {id} is the English \"{ours}\"",
                    lang.code()
                );
            }
        }
    }

    #[test]
    fn every_message_the_pages_ask_for_exists_with_the_variables_given() {
        let english = messages(Lang::En);
        let calls = calls();
        assert!(calls.len() > 100, "{}", calls.len());
        let mut used = BTreeSet::new();
        for (file, id, variables) in &calls {
            let Some(expected) = english.get(id) else {
                panic!("{file}: tr!(\"{id}\") is in no .ftl file");
            };
            assert_eq!(
                variables, expected,
                "{file}: tr!(\"{id}\") is given other variables"
            );
            used.insert(id.clone());
        }
        let unused: Vec<&String> = english.keys().filter(|id| !used.contains(*id)).collect();
        assert!(unused.is_empty(), "messages no page asks for: {unused:?}");
        // And each formats in each language without an error.
        for lang in Lang::ALL {
            for (_, id, variables) in &calls {
                let mut args = FluentArgs::new();
                for name in variables {
                    args.set(name.clone(), FluentValue::from(2));
                }
                let out = text(lang, id, Some(&args));
                assert!(
                    !out.contains('⟦') && !out.trim().is_empty(),
                    "{}: {id}: {out}",
                    lang.code()
                );
            }
        }
    }

    #[test]
    fn a_missing_message_or_variable_shows_as_its_id() {
        assert_eq!(text(Lang::Ru, "no-such-message", None), "⟦no-such-message⟧");
        assert_eq!(text(Lang::Fr, "date", None), "⟦date⟧");
    }

    #[test]
    fn plural_forms_follow_each_language() {
        let points = |lang, n: u32| {
            within(lang, "/", || {
                tr!(
                    "points-count",
                    count = f64::from(n) / 2.0,
                    points = crate::html::points(n)
                )
            })
        };
        assert_eq!(points(Lang::Ru, 2), "1 очко");
        assert_eq!(points(Lang::Ru, 4), "2 очка");
        assert_eq!(points(Lang::Ru, 10), "5 очков");
        assert_eq!(points(Lang::Ru, 5), "2,5 очка");
        assert_eq!(points(Lang::Fr, 2), "1 point");
        assert_eq!(points(Lang::Fr, 4), "2 points");
        assert_eq!(points(Lang::Fr, 3), "1,5 point");
        assert_eq!(points(Lang::En, 2), "1 point");
        assert_eq!(points(Lang::En, 5), "2.5 points");
    }

    #[test]
    fn dates_and_decimals_are_written_as_each_language_does() {
        let day = 1_795_910_400_000 + 3_600_000; // 2026-11-29 01:00 UTC
        let at = |lang| within(lang, "/", || (date(day), decimal("2.5"), decimal("R3")));
        assert_eq!(
            at(Lang::En),
            (
                "29\u{a0}November\u{a0}2026".to_owned(),
                "2.5".to_owned(),
                "R3".to_owned()
            )
        );
        assert_eq!(at(Lang::Ru).0, "29\u{a0}ноября\u{a0}2026");
        assert_eq!(at(Lang::Ru).1, "2,5");
        assert_eq!(at(Lang::Fr).0, "29\u{a0}novembre\u{a0}2026");
        assert_eq!(within(Lang::En, "/", || date_short(day)), "2026-11-29");
        assert_eq!(within(Lang::Ru, "/", || date_short(day)), "29.11.2026");
        assert_eq!(within(Lang::Fr, "/", || date_short(day)), "29/11/2026");
        let first = 1_777_593_600_000; // 2026-05-01
        assert_eq!(
            within(Lang::Fr, "/", || date(first)),
            "1er\u{a0}mai\u{a0}2026"
        );
        assert_eq!(
            within(Lang::Ru, "/", || date(first)),
            "1\u{a0}мая\u{a0}2026"
        );
        assert_eq!(
            within(Lang::Fr, "/", || iso_date("2026-05-01")),
            "1er\u{a0}mai\u{a0}2026"
        );
        assert_eq!(within(Lang::En, "/", || iso_date("soon")), "soon");
    }

    #[test]
    fn accept_language_is_read_with_its_weights() {
        assert_eq!(
            from_accept_language("ru-RU,ru;q=0.9,en;q=0.8"),
            Some(Lang::Ru)
        );
        assert_eq!(
            from_accept_language("de-DE, fr;q=0.5, en;q=0.7"),
            Some(Lang::En)
        );
        assert_eq!(from_accept_language("en;q=0.1, FR-ca"), Some(Lang::Fr));
        assert_eq!(from_accept_language("ru;q=0, de"), None);
        assert_eq!(from_accept_language("*"), None);
        assert_eq!(from_accept_language(""), None);
    }

    #[test]
    fn the_switch_keeps_the_page_and_never_leaves_the_site() {
        assert_eq!(
            without_lang("/tournaments/3", Some("after=2&lang=ru")),
            "/tournaments/3?after=2"
        );
        assert_eq!(
            without_lang("//evil.example/x", Some("lang=fr")),
            "/evil.example/x"
        );
        assert_eq!(without_lang("/", None), "/");
        assert_eq!(
            switch_href("/tournaments/3?after=2", Lang::Fr),
            "/tournaments/3?after=2&lang=fr"
        );
        assert_eq!(switch_href("/", Lang::Ru), "/?lang=ru");
    }
}
