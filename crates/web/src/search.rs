//! `/search?q=…`: players, tournaments and games by name or number, through the API's searches:
//! players by `SearchPlayers`, tournaments by `ListTournaments` with a name filter (both match
//! every word of the query, case ignored in any script, and take the pages' read-only token);
//! games by number, and as the recent games of the players found.

use axum::extract::State;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use hanniball_proto::accounts::v1 as apb;
use hanniball_proto::arbiter::v1 as pb;
use hanniball_proto::scheduler::v1 as spb;
use maud::{Markup, html};

use crate::api::Api;
use crate::game::score;
use crate::html::{error_page, page, player_link, search_form};
use crate::i18n::tr;
use crate::tournament::tournament_status;
use crate::url::query_value;

/// Longest query taken, in characters (the API's limit).
const MAX_QUERY: usize = 100;
/// Matches shown per kind.
const SHOWN: usize = 50;
/// Players whose games are listed.
const GAMES_OF: usize = 3;

pub(crate) async fn search_page(State(mut api): State<Api>, uri: axum::http::Uri) -> Response {
    let query = query_value(uri.query(), "q").unwrap_or_default();
    let query = query.trim();
    if query.chars().count() > MAX_QUERY {
        return error_page(
            StatusCode::BAD_REQUEST,
            &tr!("search-too-long", count = MAX_QUERY),
        );
    }
    if query.is_empty() {
        let body = html! {
            h1 id="search-heading" { (tr!("search-title")) }
            (search_form(query, Some("search-heading")))
            p { (tr!("search-help")) }
        };
        return page(&tr!("search-title"), body).into_response();
    }
    let number = query
        .trim_start_matches('#')
        .parse::<i64>()
        .ok()
        .filter(|n| *n > 0);
    let (players, tournaments) = tokio::join!(
        players(api.clone(), query),
        tournaments(api.clone(), query, number)
    );
    let mut games = Vec::new();
    if let Some(id) = number
        && let Ok(game) = api.game(id).await
    {
        games.push(game);
    }
    for player in players.iter().take(GAMES_OF) {
        if let Ok(answer) = api
            .arbiter
            .list_games(pb::ListGamesRequest {
                player_id: player.id,
                limit: 10,
                ..Default::default()
            })
            .await
        {
            games.extend(answer.into_inner().games);
        }
    }
    games.sort_by_key(|g| std::cmp::Reverse(g.id));
    games.dedup_by_key(|g| g.id);
    games.truncate(SHOWN);

    let names = api
        .names(
            games
                .iter()
                .flat_map(|g| [g.white_player_id, g.black_player_id]),
        )
        .await;
    let name = |id: i64| player_link(id, names.get(&id).map_or("", String::as_str));
    let body = html! {
        h1 id="search-heading" { (tr!("search-title")) }
        (search_form(query, Some("search-heading")))
        section id="found-players" {
            h2 { (tr!("search-players")) }
            (list(players.iter().take(SHOWN).map(|p| player_link(p.id, &p.name))))
        }
        section id="found-tournaments" {
            h2 { (tr!("search-tournaments")) }
            (list(tournaments.iter().take(SHOWN).map(|t| html! {
                a href={ "/tournaments/" (t.id) } { (t.settings.as_ref().map_or("", |s| s.name.as_str())) }
                " · " (tournament_status(t.status)) " · "
                (tr!("round-of", round = t.current_round, rounds = t.rounds))
            })))
        }
        section id="found-games" {
            h2 { (tr!("search-games")) }
            (list(games.iter().map(|g| html! {
                a href={ "/games/" (g.id) } { (tr!("game-number", id = g.id)) }
                " · " (name(g.white_player_id)) " – " (name(g.black_player_id))
                " · " (g.kind) " · " (score(g.state.as_ref()))
            })))
        }
    };
    page(&tr!("search-results-title", query = query), body).into_response()
}

/// A list of `items`, or "None found."
fn list(items: impl Iterator<Item = Markup>) -> Markup {
    let items: Vec<Markup> = items.collect();
    html! {
        @if items.is_empty() {
            p { (tr!("none-found")) }
        } @else {
            ul { @for item in &items { li { (item) } } }
        }
    }
}

/// The players whose names hold every word of the query, an exact match first (as
/// `SearchPlayers` ranks them).
async fn players(mut api: Api, query: &str) -> Vec<apb::Player> {
    match api
        .accounts
        .search_players(apb::SearchPlayersRequest {
            query: query.to_owned(),
            limit: SHOWN as u32,
        })
        .await
    {
        Ok(answer) => answer.into_inner().players,
        Err(status) => {
            tracing::warn!(code = ?status.code(), message = status.message(), "player search failed");
            Vec::new()
        }
    }
}

/// The tournament numbered `number`, then those whose names hold every word of the query,
/// newest first.
async fn tournaments(mut api: Api, query: &str, number: Option<i64>) -> Vec<spb::Tournament> {
    let Some(scheduler) = api.scheduler.as_mut() else {
        return Vec::new();
    };
    let mut found = Vec::new();
    if let Some(id) = number
        && let Ok(answer) = scheduler
            .get_tournament(spb::GetTournamentRequest { tournament_id: id })
            .await
        && let Some(tournament) = answer.into_inner().tournament
    {
        found.push(tournament);
    }
    match scheduler
        .list_tournaments(spb::ListTournamentsRequest {
            status: spb::TournamentStatus::Unspecified.into(),
            limit: SHOWN as u32,
            name_contains: query.to_owned(),
            player_id: 0,
        })
        .await
    {
        Ok(answer) => found.extend(
            answer
                .into_inner()
                .tournaments
                .into_iter()
                .filter(|t| Some(t.id) != number),
        ),
        Err(status) => {
            tracing::warn!(code = ?status.code(), message = status.message(), "tournament search failed");
        }
    }
    found
}
