//! The page that runs one tournament: players (find, register, add, withdraw, byes), start,
//! pairing, results board by board, corrections; and the links to standings, print and TRF.

use std::collections::HashMap;

use axum::extract::{Path, RawQuery, State};
use axum::http::HeaderMap;
use axum::response::Response;
use hanniball_proto::accounts::v1 as apb;
use hanniball_proto::scheduler::v1 as spb;
use maud::{Markup, html};

use super::{Form, act, guard, layout, outcome, said, said_at, status_words};
use crate::api::{Api, Scheduler, UserApi};
use crate::html as page;
use crate::i18n::tr;
use crate::session::memory::Outcome;
use crate::session::{self, Visitor};
use crate::url;

/// The results a board may get, as the API writes them, and as the buttons show them.
const RESULTS: [(&str, &str); 6] = [
    ("1-0", "1–0"),
    ("1/2-1/2", "½–½"),
    ("0-1", "0–1"),
    ("+/-", "+ / −"),
    ("-/+", "− / +"),
    ("-/-", "− / −"),
];

/// A result as people read it.
fn result_words(result: &str) -> &str {
    RESULTS
        .iter()
        .find(|(r, _)| *r == result)
        .map_or(result, |(_, short)| short)
}

/// A result in words, as a button's title says it.
fn result_title(result: &str) -> String {
    match result {
        "1-0" => tr!("result-white-wins"),
        "1/2-1/2" => tr!("result-draw"),
        "0-1" => tr!("result-black-wins"),
        "+/-" => tr!("result-white-forfeit"),
        "-/+" => tr!("result-black-forfeit"),
        _ => tr!("result-both-forfeit"),
    }
}

fn base(id: i64) -> String {
    format!("/console/tournaments/{id}")
}

/// `GET /console/tournaments/{id}` (`?q=` finds players to add).
pub(crate) async fn tournament_page(
    State(api): State<Api>,
    Path(id): Path<String>,
    headers: HeaderMap,
    RawQuery(query): RawQuery,
) -> Response {
    let Some(visitor) = session::visitor(&api, &headers).await else {
        return session::see_other("/sign-in");
    };
    let Some(id) = url::game_id(&id) else {
        return page::error_page(
            axum::http::StatusCode::NOT_FOUND,
            &tr!("error-no-tournament"),
        );
    };
    let done = outcome(&api, query.as_deref(), &visitor);
    let user = api.as_user(&visitor.token);
    let Some(mut scheduler) = user.scheduler else {
        return page::unavailable(crate::html::Missing::Tournaments);
    };
    let t = match scheduler
        .get_tournament(spb::GetTournamentRequest { tournament_id: id })
        .await
    {
        Ok(answer) => answer.into_inner().tournament.unwrap_or_default(),
        Err(status) => return page::api_error(&status),
    };
    let q = url::query_value(query.as_deref(), "q").unwrap_or_default();
    let found = if q.trim().is_empty() {
        None
    } else {
        let mut accounts = user.accounts;
        Some(
            accounts
                .search_players(apb::SearchPlayersRequest {
                    query: q.clone(),
                    limit: 20,
                })
                .await
                .map(|a| a.into_inner().players)
                .map_err(|s| said(&s)),
        )
    };
    let settings = t.settings.clone().unwrap_or_default();
    let body = html! {
        h1 { (settings.name) }
        p {
            (status_words(&t)) " · " (tr!("players-count", count = t.entrant_count)) " · "
            @if settings.over_the_board { (tr!("run-over-the-board")) } @else { (tr!("run-online")) }
            @if settings.rated { " · " (tr!("run-rated")) }
        }
        p.links {
            a href={ "/tournaments/" (t.id) } { (tr!("run-standings-link")) } " · "
            a href={ "/tournaments/" (t.id) "/print" } { (tr!("print-link")) } " · "
            a href={ "/tournaments/" (t.id) "/trf" } { (tr!("run-export-trf")) }
        }
        (actions(&visitor, &t))
        (round_boards(&visitor, &t, done.as_ref()))
        (corrections(&visitor, &t, done.as_ref()))
        (players(&visitor, &t, done.as_ref()))
        (add_players(&visitor, &t, &q, found, done.as_ref()))
        (details(&visitor, &t, done.as_ref()))
    };
    layout(&settings.name, &visitor, done.as_ref(), body)
}

fn status(t: &spb::Tournament) -> spb::TournamentStatus {
    spb::TournamentStatus::try_from(t.status).unwrap_or_default()
}

fn names(t: &spb::Tournament) -> HashMap<i64, &str> {
    t.entrants
        .iter()
        .map(|e| (e.player_id, e.name.as_str()))
        .collect()
}

fn current_boards(t: &spb::Tournament) -> Vec<&spb::Board> {
    t.boards
        .iter()
        .filter(|b| b.round == t.current_round)
        .collect()
}

fn is_game(board: &spb::Board) -> bool {
    board.kind == spb::BoardKind::Game as i32
}

fn actions(visitor: &Visitor, t: &spb::Tournament) -> Markup {
    let base = base(t.id);
    let boards = current_boards(t);
    let open = boards
        .iter()
        .filter(|b| is_game(b) && b.result.is_empty())
        .count();
    let running = status(t) == spb::TournamentStatus::Running;
    let can_pair = running && open == 0;
    html! {
        @match status(t) {
            spb::TournamentStatus::Registration => {
                form.inline method="post" action={ (base) "/start" } {
                    (guard(visitor))
                    button.big type="submit" { (tr!("run-start")) }
                }
                " "
                form.inline method="post" action={ (base) "/delete" } {
                    (guard(visitor))
                    button type="submit" { (tr!("run-delete")) }
                }
            }
            _ => {
                @if can_pair {
                    form.inline method="post" action={ (base) "/pair" } {
                        (guard(visitor))
                        @if t.current_round < t.rounds {
                            button.big type="submit" { (tr!("run-pair", round = t.current_round + 1)) }
                        } @else {
                            button.big type="submit" { (tr!("run-finish")) }
                        }
                    }
                }
            }
        }
    }
}

fn round_boards(visitor: &Visitor, t: &spb::Tournament, done: Option<&Outcome>) -> Markup {
    if t.current_round == 0 {
        return said_at(done, "results");
    }
    let names = names(t);
    let name = |id: i64| names.get(&id).copied().unwrap_or("?").to_owned();
    let boards = current_boards(t);
    let open = boards
        .iter()
        .filter(|b| is_game(b) && b.result.is_empty())
        .count();
    let base = base(t.id);
    html! {
        h2 id="results" { (tr!("run-results", round = t.current_round)) }
        (said_at(done, "results"))
        p.open-count {
            @if open == 0 { (tr!("run-all-results", round = t.current_round)) }
            @else { (tr!("run-open", open = open, boards = boards.iter().filter(|b| is_game(b)).count())) }
        }
        ol.boards {
            @for b in &boards {
                li.pairing.open[is_game(b) && b.result.is_empty()] id={ "board-" (b.number) } {
                    (said_at(done, &format!("board-{}", b.number)))
                    @if is_game(b) {
                        span.pair {
                            (tr!("run-board", board = b.number)) ": "
                            (name(b.white_player_id)) " – " (name(b.black_player_id))
                        }
                        @if b.result.is_empty() {
                            form.results method="post" action={ (base) "/result" } {
                                (guard(visitor))
                                input type="hidden" name="round" value=(b.round);
                                input type="hidden" name="board" value=(b.number);
                                @for (value, short) in RESULTS {
                                    @let words = result_title(value);
                                    // The name starts with the visible text, as speech input says it.
                                    button.result type="submit" name="result" value=(value) title=(words)
                                        aria-label={ (short) " — " (tr!("run-board", board = b.number)) ": " (words) } { (short) }
                                }
                            }
                        } @else {
                            " " strong.result { (result_words(&b.result)) }
                            @if t.corrections.iter().any(|c| c.round == b.round && c.board == b.number) {
                                " " (tr!("run-corrected"))
                            }
                        }
                    } @else {
                        span.pair { (name(b.white_player_id)) ": " (bye_words(b)) }
                    }
                }
            }
        }
    }
}

fn bye_words(b: &spb::Board) -> String {
    match spb::BoardKind::try_from(b.kind) {
        Ok(spb::BoardKind::PairingBye) => tr!("run-pairing-bye"),
        Ok(spb::BoardKind::HalfPointBye) => tr!("bye-half"),
        Ok(spb::BoardKind::ZeroPointBye) => tr!("bye-zero"),
        Ok(spb::BoardKind::Absent) => tr!("not-paired"),
        _ => String::new(),
    }
}

fn corrections(visitor: &Visitor, t: &spb::Tournament, done: Option<&Outcome>) -> Markup {
    let finished: Vec<&spb::Board> = t
        .boards
        .iter()
        .filter(|b| is_game(b) && !b.result.is_empty())
        .collect();
    if finished.is_empty() {
        return html! {};
    }
    let names = names(t);
    let name = |id: i64| names.get(&id).copied().unwrap_or("?").to_owned();
    html! {
        h2 id="correct" { (tr!("correct-heading")) }
        (said_at(done, "correct"))
        p { (tr!("correct-note")) }
        form.stack method="post" action={ (base(t.id)) "/correct" } {
            (guard(visitor))
            label { (tr!("correct-board")) " "
                select name="board_key" required {
                    @for b in finished.iter().rev() {
                        option value={ (b.round) "." (b.number) } {
                            (tr!("round-board-of", round = b.round, board = b.number)) ": "
                            (name(b.white_player_id)) " – " (name(b.black_player_id)) " " (result_words(&b.result))
                        }
                    }
                }
            }
            label { (tr!("correct-result")) " "
                select name="result" required {
                    @for (value, short) in RESULTS {
                        option value=(value) { (short) " (" (result_title(value)) ")" }
                    }
                }
            }
            label { (tr!("correct-why")) " " input type="text" name="note" maxlength="500"; }
            button type="submit" { (tr!("correct-button")) }
        }
    }
}

fn players(visitor: &Visitor, t: &spb::Tournament, done: Option<&Outcome>) -> Markup {
    let base = base(t.id);
    let running = status(t) != spb::TournamentStatus::Finished;
    let next = t.current_round + 1;
    html! {
        h2 id="players" { (tr!("run-players", count = t.entrants.len())) }
        (said_at(done, "players"))
        table.players {
            thead { tr {
                th scope="col" { (tr!("run-col-number")) } th scope="col" { (tr!("run-col-name")) }
                th scope="col" { (tr!("col-rating")) } th scope="col" { (tr!("col-points")) } th scope="col" { "" }
            } }
            tbody {
                @for e in &t.entrants {
                    tr {
                        td { @if e.start_rank > 0 { (e.start_rank) } }
                        td { (e.name) @if e.joined_round > 1 { " " (tr!("run-joined", round = e.joined_round)) } }
                        td { (e.rating) }
                        td { (page::points(e.score_halves)) }
                        td {
                            @if e.withdrawn_from > 0 {
                                (tr!("card-withdrawn", round = e.withdrawn_from))
                            } @else if running {
                                form.inline method="post" action={ (base) "/withdraw" } {
                                    (guard(visitor))
                                    input type="hidden" name="player_id" value=(e.player_id);
                                    button type="submit" aria-label=(tr!("run-withdraw-who", name = e.name.as_str())) { (tr!("run-withdraw")) }
                                }
                            }
                        }
                    }
                }
            }
        }
        @if running && !t.entrants.is_empty() {
            h3 { (tr!("bye-heading")) }
            form.stack method="post" action={ (base) "/bye" } {
                (guard(visitor))
                label { (tr!("bye-player")) " "
                    select name="player_id" required {
                        @for e in t.entrants.iter().filter(|e| e.withdrawn_from == 0) {
                            option value=(e.player_id) { (e.name) }
                        }
                    }
                }
                label { (tr!("bye-round")) " " input type="number" name="round" value=(next) min=(next) max=(t.rounds.max(next)); }
                label { (tr!("bye-kind")) " "
                    select name="kind" {
                        option value="half" { (tr!("bye-kind-half")) }
                        option value="zero" { (tr!("bye-kind-zero")) }
                    }
                }
                button type="submit" { (tr!("bye-button")) }
            }
            @if t.settings.as_ref().is_some_and(|s| s.system == spb::PairingSystem::SwissDutch as i32 || s.system == 0) {
                (forbidden(visitor, t))
            }
        }
    }
}

/// The pairs kept apart, and the form that keeps two more apart.
fn forbidden(visitor: &Visitor, t: &spb::Tournament) -> Markup {
    let base = base(t.id);
    let names = names(t);
    let name = |id: i64| names.get(&id).copied().unwrap_or("?").to_owned();
    html! {
        h3 id="apart" { (tr!("apart-heading")) }
        @if !t.forbidden_pairs.is_empty() {
            ul.found {
                @for p in &t.forbidden_pairs {
                    li {
                        (tr!("apart-pair", first = name(p.first_player_id), second = name(p.second_player_id))) " "
                        form.inline method="post" action={ (base) "/forbid" } {
                            (guard(visitor))
                            input type="hidden" name="first" value=(p.first_player_id);
                            input type="hidden" name="second" value=(p.second_player_id);
                            input type="hidden" name="forbidden" value="0";
                            button type="submit" { (tr!("apart-undo")) }
                        }
                    }
                }
            }
        }
        form.stack method="post" action={ (base) "/forbid" } {
            (guard(visitor))
            input type="hidden" name="forbidden" value="1";
            @for (field, label) in [("first", tr!("apart-first")), ("second", tr!("apart-second"))] {
                label { (label) " "
                    select name=(field) required {
                        @for e in &t.entrants {
                            option value=(e.player_id) { (e.name) }
                        }
                    }
                }
            }
            button type="submit" { (tr!("apart-button")) }
        }
    }
}

/// The tournament's details (place, dates, arbiters, rules), every field as stored: sent again
/// unchanged, they change nothing.
fn details(visitor: &Visitor, t: &spb::Tournament, done: Option<&Outcome>) -> Markup {
    let d = t
        .settings
        .as_ref()
        .and_then(|s| s.details.clone())
        .unwrap_or_default();
    let line = |name: &str, label: String, value: &str, max: u32| {
        html! { label { (label) " " input type="text" name=(name) value=(value) maxlength=(max); } }
    };
    html! {
        h2 id="details" { (tr!("details-heading")) }
        (said_at(done, "details"))
        form.stack method="post" action={ (base(t.id)) "/details" } {
            (guard(visitor))
            (line("place", tr!("details-place"), &d.place, 100))
            (line("federation", tr!("details-federation"), &d.federation, 3))
            label { (tr!("details-start")) " " input type="date" name="start_date" value=(d.start_date); }
            label { (tr!("details-end")) " " input type="date" name="end_date" value=(d.end_date); }
            (line("organiser", tr!("details-organiser"), &d.organiser, 100))
            (line("chief_arbiter", tr!("details-chief-arbiter"), &d.chief_arbiter, 100))
            label { (tr!("details-deputies")) " (" (tr!("details-one-a-line")) ") "
                textarea name="deputies" rows="3" { (d.deputy_arbiters.join("\n")) }
            }
            (line("time_control", tr!("details-time-control"), &d.time_control, 100))
            (line("rating_type", tr!("details-rating"), &d.rating_type, 100))
            (line("rules", tr!("details-rules"), &d.rules, 300))
            label { (tr!("details-round-dates")) " (" (tr!("details-round-dates-hint")) ") "
                textarea name="round_dates" rows="3" { (d.round_dates.join("\n")) }
            }
            (line("note", tr!("details-note"), &d.note, 500))
            button type="submit" { (tr!("details-button")) }
        }
    }
}

fn add_players(
    visitor: &Visitor,
    t: &spb::Tournament,
    q: &str,
    found: Option<Result<Vec<apb::Player>, String>>,
    done: Option<&Outcome>,
) -> Markup {
    let base = base(t.id);
    let entered: std::collections::HashSet<i64> = t.entrants.iter().map(|e| e.player_id).collect();
    if status(t) == spb::TournamentStatus::Finished {
        return html! {};
    }
    html! {
        h2 id="add" { (tr!("add-heading")) }
        (said_at(done, "add"))
        form.stack method="get" action=(base) role="search" {
            label { (tr!("add-find")) " " input type="search" name="q" value=(q) maxlength="100"; }
            button type="submit" { (tr!("add-find-button")) }
        }
        @match found {
            Some(Ok(players)) => {
                @if players.is_empty() { p { (tr!("add-none")) } }
                ul.found {
                    @for p in players {
                        li {
                            (p.name)
                            @if entered.contains(&p.id) { " — " (tr!("add-entered")) } @else {
                                form.inline method="post" action={ (base) "/add" } {
                                    (guard(visitor))
                                    input type="hidden" name="player_id" value=(p.id);
                                    label { " " (tr!("add-rating")) " " input.rating type="number" name="rating" min="0" max="4000" placeholder=(tr!("add-rating-auto")); }
                                    button type="submit" aria-label=(tr!("add-who", name = p.name.as_str())) { (tr!("add-button")) }
                                }
                            }
                        }
                    }
                }
            }
            Some(Err(problem)) => { p.flash.error role="alert" { (problem) } }
            None => {}
        }
        h3 { (tr!("register-heading")) }
        form.stack method="post" action={ (base) "/register" } {
            (guard(visitor))
            label { (tr!("register-name")) " " input type="text" name="name" required maxlength="160" autocomplete="off"; }
            label { (tr!("register-rating")) " " input type="number" name="rating" min="0" max="4000"; }
            button type="submit" { (tr!("register-button")) }
        }
    }
}

/// Runs a form on tournament `id`'s console, coming back to it (at `anchor`).
async fn on_tournament<F, Fut>(
    api: Api,
    id: String,
    headers: HeaderMap,
    body: String,
    anchor: &str,
    work: F,
) -> Response
where
    F: FnOnce(Scheduler, UserApi, i64, Form) -> Fut,
    Fut: std::future::Future<Output = Result<(String, Option<String>), String>>,
{
    let Some(id) = url::game_id(&id) else {
        return page::error_page(
            axum::http::StatusCode::NOT_FOUND,
            &tr!("error-no-tournament"),
        );
    };
    let back = format!("{}{anchor}", base(id));
    act(
        &api,
        &headers,
        body,
        &back,
        |_visitor: Visitor, user: UserApi, form| async move {
            let Some(scheduler) = user.scheduler.clone() else {
                return Err(tr!("no-scheduler"));
            };
            work(scheduler, user, id, form).await
        },
    )
    .await
}

macro_rules! handler {
    ($name:ident, $anchor:expr, |$s:ident, $u:ident, $id:ident, $f:ident| $body:block) => {
        pub(crate) async fn $name(
            State(api): State<Api>,
            Path(id): Path<String>,
            headers: HeaderMap,
            body: String,
        ) -> Response {
            on_tournament(
                api,
                id,
                headers,
                body,
                $anchor,
                |mut $s, $u, $id, $f| async move {
                    let _ = &$u;
                    $body
                },
            )
            .await
        }
    };
}

handler!(start, "#results", |s, u, id, f| {
    let _ = f;
    let t = s
        .start_tournament(spb::StartTournamentRequest { tournament_id: id })
        .await
        .map_err(|e| said(&e))?
        .into_inner()
        .tournament
        .unwrap_or_default();
    Ok((tr!("done-started", count = t.entrants.len()), None))
});

handler!(pair, "#results", |s, u, id, f| {
    let _ = f;
    let t = s
        .pair_next_round(spb::PairNextRoundRequest { tournament_id: id })
        .await
        .map_err(|e| said(&e))?
        .into_inner()
        .tournament
        .unwrap_or_default();
    if t.status == spb::TournamentStatus::Finished as i32 {
        return Ok((tr!("done-finished"), Some(base(id))));
    }
    Ok((tr!("done-paired", round = t.current_round), None))
});

handler!(delete, "", |s, u, id, f| {
    let _ = f;
    s.delete_tournament(spb::DeleteTournamentRequest { tournament_id: id })
        .await
        .map_err(|e| said(&e))?;
    Ok((tr!("done-deleted"), Some("/console".to_owned())))
});

handler!(result, "#results", |s, u, id, f| {
    let round: u32 = f.number("round", &tr!("field-round"))?;
    let board: u32 = f.number("board", &tr!("field-board"))?;
    let result = f.text("result");
    let answer = s
        .set_result(spb::SetResultRequest {
            tournament_id: id,
            round,
            board,
            result: result.clone(),
        })
        .await
        .map_err(|e| {
            tr!(
                "done-board-said",
                round = round,
                board = board,
                reason = said(&e)
            )
        })?;
    let stored = answer
        .into_inner()
        .board
        .map(|b| b.result)
        .unwrap_or(result);
    Ok((
        tr!(
            "done-recorded",
            round = round,
            board = board,
            result = result_words(&stored)
        ),
        // Back at that board: the next one is just below it.
        Some(format!("{}#board-{board}", base(id))),
    ))
});

handler!(correct, "#correct", |s, u, id, f| {
    let key = f.text("board_key");
    let (round, board) = key
        .split_once('.')
        .and_then(|(r, b)| Some((r.parse::<u32>().ok()?, b.parse::<u32>().ok()?)))
        .ok_or_else(|| tr!("done-choose-board", key = key.as_str()))?;
    let result = f.text("result");
    let answer = s
        .correct_result(spb::CorrectResultRequest {
            tournament_id: id,
            round,
            board,
            result: result.clone(),
            note: f.text("note"),
        })
        .await
        .map_err(|e| {
            tr!(
                "done-board-said",
                round = round,
                board = board,
                reason = said(&e)
            )
        })?
        .into_inner();
    Ok((
        match answer.correction {
            Some(c) => tr!(
                "done-corrected",
                round = round,
                board = board,
                was = result_words(&c.previous),
                now = result_words(&c.result)
            ),
            None => tr!(
                "done-not-corrected",
                round = round,
                board = board,
                result = result_words(&result)
            ),
        },
        None,
    ))
});

handler!(withdraw, "#players", |s, u, id, f| {
    let player_id: i64 = f.number("player_id", &tr!("field-player"))?;
    let answer = s
        .withdraw_player(spb::WithdrawPlayerRequest {
            tournament_id: id,
            player_id,
        })
        .await
        .map_err(|e| said(&e))?
        .into_inner();
    Ok((
        if answer.removed {
            tr!("done-removed")
        } else {
            tr!("done-withdrawn", round = answer.from_round)
        },
        None,
    ))
});

handler!(bye, "#players", |s, u, id, f| {
    let player_id: i64 = f.number("player_id", &tr!("field-player"))?;
    let round: u32 = f.number("round", &tr!("field-round"))?;
    let half_point = f.text("kind") != "zero";
    s.request_bye(spb::RequestByeRequest {
        tournament_id: id,
        player_id,
        round,
        half_point,
    })
    .await
    .map_err(|e| said(&e))?;
    Ok((
        if half_point {
            tr!("done-bye-half", round = round)
        } else {
            tr!("done-bye-zero", round = round)
        },
        None,
    ))
});

handler!(forbid, "#players", |s, u, id, f| {
    let first_player_id: i64 = f.number("first", &tr!("field-player"))?;
    let second_player_id: i64 = f.number("second", &tr!("field-player"))?;
    let forbidden = f.text("forbidden") != "0";
    let answer = s
        .set_forbidden_pair(spb::SetForbiddenPairRequest {
            tournament_id: id,
            first_player_id,
            second_player_id,
            forbidden,
        })
        .await
        .map_err(|e| said(&e))?
        .into_inner();
    Ok((
        match (forbidden, answer.changed) {
            (true, true) => tr!("done-apart"),
            (true, false) => tr!("done-already-apart"),
            (false, true) => tr!("done-may-meet"),
            (false, false) => tr!("done-not-apart"),
        },
        None,
    ))
});

handler!(set_details, "#details", |s, u, id, f| {
    // A text area's lines, each trimmed (an empty round date: that round's is not said).
    let lines = |key: &str| -> Vec<String> {
        let text = f.get(key).unwrap_or_default();
        let mut lines: Vec<String> = text.lines().map(|l| l.trim().to_owned()).collect();
        while lines.last().is_some_and(String::is_empty) {
            lines.pop();
        }
        lines
    };
    let details = spb::TournamentDetails {
        place: f.text("place"),
        federation: f.text("federation"),
        start_date: f.text("start_date"),
        end_date: f.text("end_date"),
        organiser: f.text("organiser"),
        chief_arbiter: f.text("chief_arbiter"),
        deputy_arbiters: lines("deputies"),
        time_control: f.text("time_control"),
        rating_type: f.text("rating_type"),
        rules: f.text("rules"),
        round_dates: lines("round_dates"),
        note: f.text("note"),
    };
    let answer = s
        .set_tournament_details(spb::SetTournamentDetailsRequest {
            tournament_id: id,
            details: Some(details),
        })
        .await
        .map_err(|e| said(&e))?
        .into_inner();
    Ok((
        if answer.changed {
            tr!("done-details")
        } else {
            tr!("done-details-same")
        },
        None,
    ))
});

/// The seeding rating of a form (blank: 0, the rating list's).
fn rating(f: &Form) -> Result<i32, String> {
    let text = f.text("rating");
    if text.is_empty() {
        return Ok(0);
    }
    f.number("rating", &tr!("field-rating"))
}

handler!(add, "#add", |s, u, id, f| {
    let player_id: i64 = f.number("player_id", &tr!("field-player"))?;
    let rating = rating(&f)?;
    let entrant = s
        .add_player(spb::AddPlayerRequest {
            tournament_id: id,
            player_id,
            rating,
        })
        .await
        .map_err(|e| said(&e))?
        .into_inner()
        .entrant
        .unwrap_or_default();
    Ok((
        tr!(
            "done-entered",
            name = entrant.name.as_str(),
            rating = entrant.rating
        ),
        None,
    ))
});

handler!(register, "#add", |s, u, id, f| {
    let rating = rating(&f)?;
    let mut accounts = u.accounts.clone();
    let player = accounts
        .register_player(apb::RegisterPlayerRequest {
            name: f.text("name"),
            kind: apb::PlayerKind::Human.into(),
            issue_token: false,
        })
        .await
        .map_err(|e| said(&e))?
        .into_inner()
        .player
        .unwrap_or_default();
    let entrant = s
        .add_player(spb::AddPlayerRequest {
            tournament_id: id,
            player_id: player.id,
            rating,
        })
        .await
        .map_err(|e| {
            tr!(
                "done-registered-not-entered",
                name = player.name.as_str(),
                reason = said(&e)
            )
        })?
        .into_inner()
        .entrant
        .unwrap_or_default();
    Ok((
        tr!(
            "done-registered",
            name = entrant.name.as_str(),
            rating = entrant.rating
        ),
        None,
    ))
});
