//! `/`: live and recent games, tournaments, and the top of each ladder.

use axum::extract::State;
use axum::response::{IntoResponse, Response};
use hanniball_proto::arbiter::v1 as pb;
use hanniball_proto::rating::v1 as rpb;
use hanniball_proto::scheduler::v1 as spb;
use maud::{Markup, html};

use crate::api::Api;
use crate::game::score;
use crate::html::{api_error, page_with, player_link};
use crate::i18n::tr;
use crate::tournament::tournament_status;

/// The live and the finished games' tables, as the home page shows them and its script fetches
/// them again (`/fragments/games`) to keep them current.
async fn games(api: &mut Api) -> Result<Markup, tonic::Status> {
    let mut sections: Vec<Markup> = Vec::new();
    for (title, status, id) in [
        (tr!("home-live"), pb::GameStatus::Active, "live-games"),
        (
            tr!("home-finished"),
            pb::GameStatus::Finished,
            "finished-games",
        ),
    ] {
        let games = api.games(status).await?;
        let names = api
            .names(
                games
                    .iter()
                    .flat_map(|g| [g.white_player_id, g.black_player_id]),
            )
            .await;
        let name = |id: i64| player_link(id, names.get(&id).map_or("", String::as_str));
        sections.push(html! {
            section id=(id) {
                h2 { (title) }
                @if games.is_empty() {
                    p { (tr!("none")) }
                } @else {
                    table.games {
                        thead { tr {
                            // On a phone the two players share a column, one per line, so
                            // that names break at their dots and hyphens, never mid-word.
                            th scope="col" { (tr!("col-game")) }
                            th scope="col" {
                                span.wide { (tr!("col-white")) }
                                span.narrow { (tr!("col-white")) " – " (tr!("col-black")) }
                            }
                            th.wide scope="col" { (tr!("col-black")) } th scope="col" { (tr!("col-turns")) }
                            th scope="col" { (tr!("col-result")) }
                        } }
                        tbody {
                            @for game in &games {
                                tr {
                                    td { a href={ "/games/" (game.id) } { (game.id) } " " span.kind { (game.kind) } }
                                    td {
                                        (name(game.white_player_id))
                                        span.narrow { br; (name(game.black_player_id)) }
                                    }
                                    td.wide { (name(game.black_player_id)) }
                                    td.num { (game.state.as_ref().map_or(0, |s| s.next_turn_number.saturating_sub(1))) }
                                    td.res { (score(game.state.as_ref())) }
                                }
                            }
                        }
                    }
                }
            }
        });
    }
    Ok(html! { @for section in &sections { (section) } })
}

/// `GET /fragments/games`: the home page's game tables alone, for its script.
pub(crate) async fn games_fragment(State(mut api): State<Api>) -> Response {
    match games(&mut api).await {
        Ok(markup) => (
            [(axum::http::header::CACHE_CONTROL, "no-store")],
            axum::response::Html(markup.into_string()),
        )
            .into_response(),
        Err(status) => api_error(&status),
    }
}

pub(crate) async fn home(State(mut api): State<Api>) -> Response {
    let mut sections: Vec<Markup> = Vec::new();
    match games(&mut api).await {
        // The script swaps this part for a fresh one now and then (`/assets/home.js`).
        Ok(markup) => sections.push(html! { div id="games" { (markup) } }),
        Err(status) => return api_error(&status),
    }
    if let Some(scheduler) = api.scheduler.as_mut() {
        let tournaments = match scheduler
            .list_tournaments(spb::ListTournamentsRequest {
                status: spb::TournamentStatus::Unspecified.into(),
                limit: 20,
                ..Default::default()
            })
            .await
        {
            Ok(answer) => answer.into_inner().tournaments,
            Err(status) => return api_error(&status),
        };
        sections.push(html! {
            section {
                h2 { (tr!("home-tournaments")) }
                @if tournaments.is_empty() {
                    p { (tr!("none")) }
                } @else {
                    ul {
                        @for t in &tournaments {
                            li {
                                a href={ "/tournaments/" (t.id) } { (t.settings.as_ref().map_or("", |s| s.name.as_str())) }
                                " · " (tournament_status(t.status)) " · "
                                (tr!("round-of", round = t.current_round, rounds = t.rounds))
                            }
                        }
                    }
                }
            }
        });
    }
    if let Some(rating) = api.rating.as_mut() {
        let ladders = match rating.list_ladders(rpb::ListLaddersRequest {}).await {
            Ok(answer) => answer.into_inner().ladders,
            Err(status) => return api_error(&status),
        };
        let mut tops = Vec::with_capacity(ladders.len());
        for ladder in &ladders {
            let top = rating
                .leaderboard(rpb::LeaderboardRequest {
                    ladder: ladder.name.clone(),
                    page_size: 5,
                    ..Default::default()
                })
                .await
                .map(|a| a.into_inner().entries)
                .unwrap_or_default();
            tops.push((ladder, top));
        }
        sections.push(html! {
            section {
                h2 { (tr!("home-ladders")) }
                @for (ladder, top) in &tops {
                    h3 { a href={ "/ladders/" (ladder.name) } { (ladder.name) } " (" (ladder.system) ")" }
                    @if top.is_empty() {
                        p { (tr!("home-no-rated")) }
                    } @else {
                        ol {
                            @for entry in top {
                                li { (player_link(entry.player_id, &entry.name)) " " (format!("{:.0}", entry.rating)) }
                            }
                        }
                    }
                }
            }
        });
    }
    page_with(
        &tr!("home-title"),
        html! { script src="/assets/home.js" defer {} },
        html! { h1 { "HanniBall" } @for section in &sections { (section) } },
    )
    .into_response()
}
