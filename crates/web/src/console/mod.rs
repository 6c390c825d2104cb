//! The organiser's console: sign-in and one's account (`account`), one's tournaments and the
//! form that creates one (here), and the page that runs a tournament (`run`). Every page works
//! without JavaScript; every changing form is a POST carrying the session's CSRF token and a
//! one-time id, answered by a redirect (303) to a page that says what was done, so a reload or a
//! second click changes nothing a second time.
//!
//! The console holds no rule of its own: it calls the API with the visitor's session, and the
//! services decide (ownership, results, corrections) and explain (their messages are shown).

pub(crate) mod account;
pub(crate) mod import;
pub(crate) mod run;

use std::future::Future;

use axum::extract::{RawQuery, State};
use axum::http::HeaderMap;
use axum::response::{IntoResponse, Response};
use hanniball_proto::scheduler::v1 as spb;
use maud::{Markup, html};

use crate::api::{Api, UserApi};
use crate::html as page;
use crate::i18n::tr;
use crate::session::memory::Outcome;
use crate::session::{self, Visitor};
use crate::url;

/// A submitted form's fields (`application/x-www-form-urlencoded`).
pub(crate) struct Form(String);

impl Form {
    pub(crate) fn get(&self, key: &str) -> Option<String> {
        url::query_value(Some(&self.0), key)
    }

    /// A field's text, trimmed; empty when absent.
    pub(crate) fn text(&self, key: &str) -> String {
        self.get(key).unwrap_or_default().trim().to_owned()
    }

    pub(crate) fn checked(&self, key: &str) -> bool {
        self.get(key)
            .is_some_and(|v| v == "on" || v == "true" || v == "1")
    }

    /// A number field, or a message naming it.
    pub(crate) fn number<T: std::str::FromStr>(&self, key: &str, label: &str) -> Result<T, String> {
        let text = self.text(key);
        text.parse()
            .map_err(|_| tr!("field-not-number", field = label, text = text.as_str()))
    }
}

/// Hidden fields every changing form carries: the CSRF token and a one-time id.
pub(crate) fn guard(visitor: &Visitor) -> Markup {
    html! {
        input type="hidden" name="csrf" value=(visitor.csrf());
        input type="hidden" name="once" value=(session::random_id());
    }
}

/// A console page: the console's menu, what the last form did, and `body`.
pub(crate) fn layout(
    title: &str,
    visitor: &Visitor,
    outcome: Option<&Outcome>,
    body: Markup,
) -> Response {
    let markup = html! {
        link rel="stylesheet" href="/console.css";
        nav.console aria-label=(tr!("console-nav")) {
            a href="/console" { (tr!("console-mine")) }
            " · "
            a href="/account" { (tr!("console-account", name = visitor.player.name.as_str())) }
            " · "
            form.inline method="post" action="/sign-out" {
                (guard(visitor))
                button type="submit" { (tr!("sign-out")) }
            }
        }
        // A form that leads back to a part of the page says what it did there (see [`said_at`]).
        @if outcome.is_some_and(|o| !o.location.contains('#')) {
            (flash(outcome))
        }
        (body)
    };
    page::page(title, markup).into_response()
}

/// `GET /console.css`: the console's styles (beside the site's, which every page carries).
pub(crate) async fn style() -> Response {
    (
        [
            (axum::http::header::CONTENT_TYPE, "text/css; charset=utf-8"),
            (axum::http::header::CACHE_CONTROL, "public, max-age=3600"),
        ],
        include_str!("console.css"),
    )
        .into_response()
}

/// What a form did, as the page says it.
pub(crate) fn flash(outcome: Option<&Outcome>) -> Markup {
    html! {
        @if let Some(outcome) = outcome {
            @if outcome.ok {
                p.flash.ok role="status" { (outcome.message) }
            } @else {
                p.flash.error role="alert" { (outcome.message) }
            }
        }
    }
}

/// What a form that led back to part `anchor` of the page did, said there: the page opens
/// at that part (a phone keeps its place at the boards), and the message is in view.
pub(crate) fn said_at(outcome: Option<&Outcome>, anchor: &str) -> Markup {
    flash(outcome.filter(|o| o.location.ends_with(&format!("#{anchor}"))))
}

/// The outcome `?done=` names, if this visitor's form made it.
pub(crate) fn outcome(api: &Api, query: Option<&str>, visitor: &Visitor) -> Option<Outcome> {
    let once = url::query_value(query, "done")?;
    api.done.get(&once, visitor.player.id)
}

/// Runs a changing form: the visitor must be signed in (else to the sign-in page) and the form
/// must carry this session's CSRF token (else 403, nothing done). A form already acted on goes
/// where it went the first time, doing nothing. `work` answers what it did and where to go
/// next (default `back`), or why it did nothing.
pub(crate) async fn act<F, Fut>(
    api: &Api,
    headers: &HeaderMap,
    body: String,
    back: &str,
    work: F,
) -> Response
where
    F: FnOnce(Visitor, UserApi, Form) -> Fut,
    Fut: Future<Output = Result<(String, Option<String>), String>>,
{
    let form = Form(body);
    let (csrf, once) = (form.get("csrf"), form.get("once").unwrap_or_default());
    act_once(
        api,
        headers,
        csrf.as_deref(),
        &once,
        back,
        |visitor, user| work(visitor, user, form),
    )
    .await
}

/// [`act`] for a form read otherwise (an upload): its CSRF token and one-time id given.
pub(crate) async fn act_once<F, Fut>(
    api: &Api,
    headers: &HeaderMap,
    csrf: Option<&str>,
    once: &str,
    back: &str,
    work: F,
) -> Response
where
    F: FnOnce(Visitor, UserApi) -> Fut,
    Fut: Future<Output = Result<(String, Option<String>), String>>,
{
    let Some(visitor) = session::visitor(api, headers).await else {
        return session::see_other("/sign-in");
    };
    if !session::form_ok(headers, &visitor.token, csrf) {
        return session::forbidden_form();
    }
    let player = visitor.player.id;
    if let Some(done) = api.done.get(once, player).filter(|o| o.ok) {
        return session::see_other(&with_done(&done.location, once));
    }
    let user = api.as_user(&visitor.token);
    let (ok, message, location) = match work(visitor, user).await {
        Ok((message, location)) => (true, message, location.unwrap_or_else(|| back.to_owned())),
        Err(message) => (false, message, back.to_owned()),
    };
    if once.is_empty() {
        return session::see_other(&location);
    }
    api.done.put(once, player, ok, message, &location);
    session::see_other(&with_done(&location, once))
}

fn with_done(location: &str, once: &str) -> String {
    let (path, fragment) = location
        .split_once('#')
        .map_or((location, ""), |(p, f)| (p, f));
    let separator = if path.contains('?') { '&' } else { '?' };
    let fragment = if fragment.is_empty() {
        String::new()
    } else {
        format!("#{fragment}")
    };
    format!(
        "{path}{separator}done={}{fragment}",
        url::query_encode(once)
    )
}

/// What the API said when it refused: its message, for the person at the form.
pub(crate) fn said(status: &tonic::Status) -> String {
    match status.code() {
        tonic::Code::Unavailable => tr!("said-unavailable", reason = status.message()),
        tonic::Code::PermissionDenied => tr!("said-not-allowed", reason = status.message()),
        _ => status.message().to_owned(),
    }
}

/// `GET /console`: the visitor's tournaments and the form that creates one.
pub(crate) async fn console_page(
    State(api): State<Api>,
    headers: HeaderMap,
    RawQuery(query): RawQuery,
) -> Response {
    let Some(visitor) = session::visitor(&api, &headers).await else {
        return session::see_other("/sign-in");
    };
    let done = outcome(&api, query.as_deref(), &visitor);
    let Some(mut scheduler) = api.as_user(&visitor.token).scheduler else {
        return page::unavailable(crate::html::Missing::Tournaments);
    };
    let listed = scheduler
        .list_tournaments(spb::ListTournamentsRequest {
            limit: 500,
            ..Default::default()
        })
        .await;
    let tournaments = match listed {
        Ok(answer) => answer.into_inner().tournaments,
        Err(status) => return page::api_error(&status),
    };
    let mine: Vec<&spb::Tournament> = tournaments
        .iter()
        .filter(|t| t.organiser_ids.contains(&visitor.player.id))
        .collect();
    let body = html! {
        h1 { (tr!("console-mine")) }
        @if mine.is_empty() {
            p { (tr!("console-none")) }
        } @else {
            ul.tournaments {
                @for t in &mine {
                    @let settings = t.settings.clone().unwrap_or_default();
                    li {
                        a href={ "/console/tournaments/" (t.id) } { (settings.name) }
                        " — " (status_words(t)) ", " (tr!("players-count", count = t.entrant_count))
                    }
                }
            }
        }
        @if visitor.organises() {
            p { a href="/console/import" { (tr!("console-import-link")) } }
            (create_form(&visitor, done.as_ref()))
        } @else {
            p { (tr!("console-not-organiser")) " " code { "hanniball player organiser NAME --grant" } }
        }
    };
    layout(&tr!("console-mine"), &visitor, done.as_ref(), body)
}

/// A tournament's state in words.
pub(crate) fn status_words(t: &spb::Tournament) -> String {
    match spb::TournamentStatus::try_from(t.status) {
        Ok(spb::TournamentStatus::Registration) => tr!("console-registration"),
        Ok(spb::TournamentStatus::Running) => {
            tr!("round-of", round = t.current_round, rounds = t.rounds)
        }
        Ok(spb::TournamentStatus::Finished) => tr!("status-finished"),
        _ => tr!("status-unknown"),
    }
}

fn create_form(visitor: &Visitor, done: Option<&Outcome>) -> Markup {
    html! {
        h2 id="create" { (tr!("create-heading")) }
        (said_at(done, "create"))
        form.stack method="post" action="/console/tournaments" {
            (guard(visitor))
            label { (tr!("create-name")) " " input type="text" name="name" required maxlength="160" autocomplete="off"; }
            fieldset {
                legend { (tr!("create-where")) }
                label { input type="radio" name="where" value="board" checked; " " (tr!("create-where-board")) }
                label { input type="radio" name="where" value="online"; " " (tr!("create-where-online")) }
            }
            label { (tr!("create-system")) " "
                select name="system" {
                    option value="swiss" selected { (tr!("system-swiss")) }
                    option value="round-robin" { (tr!("system-round-robin")) }
                    option value="double-round-robin" { (tr!("system-double-round-robin")) }
                }
            }
            label { (tr!("create-rounds")) " " input type="number" name="rounds" value="5" min="1" max="99"; }
            label { (tr!("create-game")) " "
                select name="game" {
                    option value="hanniball" selected { "HanniBall" }
                    option value="paper-football" { (tr!("game-paper-football")) }
                }
            }
            label { (tr!("create-time")) " " input type="text" name="time" placeholder=(tr!("create-time-example")) inputmode="decimal"; }
            label { input type="checkbox" name="rated"; " " (tr!("create-rated")) }
            label { (tr!("create-tiebreaks")) " " input type="text" name="tiebreaks" placeholder="BH-C1, BH, SB"; }
            label { (tr!("create-tiebreak-rules")) " "
                select name="tiebreak_rules" {
                    option value="" selected { (tr!("create-text-in-force")) }
                    option value="2026" { "2026" }
                    option value="2024" { "2024" }
                }
            }
            label { (tr!("create-unrated")) " " input type="text" name="unrated" placeholder="drop"; }
            label { (tr!("create-bye")) " "
                select name="bye_points" {
                    option value="2" selected { (tr!("create-bye-1")) }
                    option value="1" { (tr!("create-bye-half")) }
                    option value="0" { (tr!("create-bye-0")) }
                }
            }
            label { (tr!("create-top-seed")) " "
                select name="top_seed" {
                    option value="white" selected { (tr!("col-white")) }
                    option value="black" { (tr!("col-black")) }
                }
            }
            label { input type="checkbox" name="manual"; " " (tr!("create-manual")) }
            label { input type="checkbox" name="self_entry"; " " (tr!("create-self-entry")) }
            label { input type="checkbox" name="late_entry"; " " (tr!("create-late-entry")) }
            label { input type="checkbox" name="forfeit_withdraws"; " " (tr!("create-forfeit-withdraws")) }
            button.big type="submit" { (tr!("create-button")) }
        }
    }
}

/// Seconds `initial+increment` (fractions allowed) as a time control.
pub(crate) fn time_control(
    text: &str,
) -> Result<hanniball_proto::arbiter::v1::TimeControl, String> {
    let (initial, increment) = text.split_once('+').unwrap_or((text, "0"));
    let ms = |s: &str| match s.trim().parse::<f64>() {
        Ok(v) if v.is_finite() && (0.0..=86_400.0 * 30.0).contains(&v) => {
            Ok((v * 1000.0).round() as i64)
        }
        _ => Err(tr!("time-control-bad", text = text)),
    };
    Ok(hanniball_proto::arbiter::v1::TimeControl {
        initial_ms: ms(initial)?,
        increment_ms: ms(increment)?,
    })
}

/// The settings a create form asks for.
fn settings(form: &Form) -> Result<spb::TournamentSettings, String> {
    let system = match form.text("system").as_str() {
        "round-robin" => spb::PairingSystem::RoundRobin,
        "double-round-robin" => spb::PairingSystem::DoubleRoundRobin,
        _ => spb::PairingSystem::SwissDutch,
    };
    let time = form.text("time");
    let bye_points: u32 = form.number("bye_points", &tr!("field-bye-points"))?;
    Ok(spb::TournamentSettings {
        name: form.text("name"),
        kind: form.text("game"),
        system: system.into(),
        rounds: if system == spb::PairingSystem::SwissDutch {
            form.number("rounds", &tr!("field-rounds"))?
        } else {
            0
        },
        time_control: if time.is_empty() {
            None
        } else {
            Some(time_control(&time)?)
        },
        rated: form.checked("rated"),
        bye_points,
        bye_points_set: true,
        tiebreaks: form
            .text("tiebreaks")
            .split([',', ' '])
            .filter(|t| !t.is_empty())
            .map(str::to_owned)
            .collect(),
        top_seed_black: form.text("top_seed") == "black",
        forfeit_withdraws: form.checked("forfeit_withdraws"),
        manual_pairing: form.checked("manual"),
        self_entry: form.checked("self_entry"),
        late_self_entry: form.checked("late_entry"),
        tiebreak_rules: form.text("tiebreak_rules"),
        tiebreak_unrated: form.text("unrated"),
        over_the_board: form.text("where") != "online",
        ..Default::default()
    })
}

/// `POST /console/tournaments`: creates a tournament owned by the visitor.
pub(crate) async fn create(State(api): State<Api>, headers: HeaderMap, body: String) -> Response {
    act(
        &api,
        &headers,
        body,
        "/console#create",
        |_visitor, user, form| async move {
            let settings = settings(&form)?;
            let Some(mut scheduler) = user.scheduler else {
                return Err(tr!("no-scheduler"));
            };
            let t = scheduler
                .create_tournament(spb::CreateTournamentRequest {
                    settings: Some(settings),
                })
                .await
                .map_err(|s| said(&s))?
                .into_inner()
                .tournament
                .ok_or("no tournament in the answer")?;
            let name = t.settings.map(|s| s.name).unwrap_or_default();
            Ok((
                tr!("created", name = name, id = t.id),
                Some(format!("/console/tournaments/{}", t.id)),
            ))
        },
    )
    .await
}
