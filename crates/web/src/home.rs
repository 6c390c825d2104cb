//! `/`: live and recent games, tournaments, and the top of each ladder.

use std::fmt::Write as _;

use axum::extract::State;
use axum::response::{IntoResponse, Response};
use hanniball_proto::arbiter::v1 as pb;
use hanniball_proto::rating::v1 as rpb;
use hanniball_proto::scheduler::v1 as spb;

use crate::app::Api;
use crate::game::score;
use crate::html::{api_error, esc, page, player_link};
use crate::tournament::tournament_status;

pub(crate) async fn home(State(mut api): State<Api>) -> Response {
    let mut body = String::from("<h1>HanniBall</h1>");
    for (title, status) in [
        ("Live games", pb::GameStatus::Active),
        ("Recently finished", pb::GameStatus::Finished),
    ] {
        let games = match api.games(status).await {
            Ok(games) => games,
            Err(status) => return api_error(&status),
        };
        let _ = write!(body, "<section><h2>{title}</h2>");
        if games.is_empty() {
            body.push_str("<p>None.</p></section>");
            continue;
        }
        body.push_str(
            "<table><thead><tr><th scope=\"col\">Game</th><th scope=\"col\">White</th>\
             <th scope=\"col\">Black</th><th scope=\"col\">Turns</th><th scope=\"col\">Result</th>\
             </tr></thead><tbody>",
        );
        let names = api
            .names(
                games
                    .iter()
                    .flat_map(|g| [g.white_player_id, g.black_player_id]),
            )
            .await;
        let name = |id: i64| player_link(id, names.get(&id).map_or("", String::as_str));
        for game in &games {
            let turns = game
                .state
                .as_ref()
                .map_or(0, |s| s.next_turn_number.saturating_sub(1));
            let _ = write!(
                body,
                "<tr><td><a href=\"/games/{id}\">{id}</a> <span class=\"kind\">{kind}</span></td>\
                 <td>{}</td><td>{}</td><td class=\"num\">{turns}</td><td class=\"res\">{}</td></tr>",
                name(game.white_player_id),
                name(game.black_player_id),
                score(game.state.as_ref()),
                id = game.id,
                kind = esc(&game.kind),
            );
        }
        body.push_str("</tbody></table></section>");
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
        body.push_str("<section><h2>Tournaments</h2>");
        if tournaments.is_empty() {
            body.push_str("<p>None.</p>");
        } else {
            body.push_str("<ul>");
            for t in &tournaments {
                let name = t.settings.as_ref().map_or("", |s| s.name.as_str());
                let _ = write!(
                    body,
                    "<li><a href=\"/tournaments/{}\">{}</a> · {} · round {} of {}</li>",
                    t.id,
                    esc(name),
                    tournament_status(t.status),
                    t.current_round,
                    t.rounds
                );
            }
            body.push_str("</ul>");
        }
        body.push_str("</section>");
    }
    if let Some(rating) = api.rating.as_mut() {
        let ladders = match rating.list_ladders(rpb::ListLaddersRequest {}).await {
            Ok(answer) => answer.into_inner().ladders,
            Err(status) => return api_error(&status),
        };
        body.push_str("<section><h2>Ladders</h2>");
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
            let _ = write!(
                body,
                "<h3><a href=\"/ladders/{name}\">{name}</a> ({})</h3>",
                esc(&ladder.system),
                name = esc(&ladder.name)
            );
            if top.is_empty() {
                body.push_str("<p>No rated games yet.</p>");
            } else {
                body.push_str("<ol>");
                for entry in &top {
                    let _ = write!(
                        body,
                        "<li>{} {:.0}</li>",
                        player_link(entry.player_id, &entry.name),
                        entry.rating
                    );
                }
                body.push_str("</ol>");
            }
        }
        body.push_str("</section>");
    }
    page("HanniBall", &body).into_response()
}
