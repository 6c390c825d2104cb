//! `/`: live and recent games, tournaments, and the top of each ladder.

use axum::extract::State;
use axum::response::{IntoResponse, Response};
use hanniball_proto::arbiter::v1 as pb;
use hanniball_proto::rating::v1 as rpb;
use hanniball_proto::scheduler::v1 as spb;
use maud::{Markup, html};

use crate::app::Api;
use crate::game::score;
use crate::html::{api_error, page, player_link};
use crate::tournament::tournament_status;

pub(crate) async fn home(State(mut api): State<Api>) -> Response {
    let mut sections: Vec<Markup> = Vec::new();
    for (title, status) in [
        ("Live games", pb::GameStatus::Active),
        ("Recently finished", pb::GameStatus::Finished),
    ] {
        let games = match api.games(status).await {
            Ok(games) => games,
            Err(status) => return api_error(&status),
        };
        let names = api
            .names(
                games
                    .iter()
                    .flat_map(|g| [g.white_player_id, g.black_player_id]),
            )
            .await;
        let name = |id: i64| player_link(id, names.get(&id).map_or("", String::as_str));
        sections.push(html! {
            section {
                h2 { (title) }
                @if games.is_empty() {
                    p { "None." }
                } @else {
                    table {
                        thead { tr {
                            th scope="col" { "Game" } th scope="col" { "White" }
                            th scope="col" { "Black" } th scope="col" { "Turns" } th scope="col" { "Result" }
                        } }
                        tbody {
                            @for game in &games {
                                tr {
                                    td { a href={ "/games/" (game.id) } { (game.id) } " " span.kind { (game.kind) } }
                                    td { (name(game.white_player_id)) }
                                    td { (name(game.black_player_id)) }
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
                h2 { "Tournaments" }
                @if tournaments.is_empty() {
                    p { "None." }
                } @else {
                    ul {
                        @for t in &tournaments {
                            li {
                                a href={ "/tournaments/" (t.id) } { (t.settings.as_ref().map_or("", |s| s.name.as_str())) }
                                " · " (tournament_status(t.status)) " · round " (t.current_round) " of " (t.rounds)
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
                h2 { "Ladders" }
                @for (ladder, top) in &tops {
                    h3 { a href={ "/ladders/" (ladder.name) } { (ladder.name) } " (" (ladder.system) ")" }
                    @if top.is_empty() {
                        p { "No rated games yet." }
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
    page(
        "Live games, tournaments and ladders",
        html! { h1 { "HanniBall" } @for section in &sections { (section) } },
    )
    .into_response()
}
