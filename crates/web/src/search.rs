//! `/search?q=…`: players, tournaments and games by name or number, through the list calls the
//! public API has. The API has no search call: players are listed (`ListPlayers`, pages of
//! 1,000, at most [`PLAYER_PAGES`] of them) and tournaments (`ListTournaments`, the newest 500)
//! and filtered here; games are found by number and as the recent games of the players found.

use std::fmt::Write as _;

use axum::extract::State;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use hanniball_proto::accounts::v1 as apb;
use hanniball_proto::arbiter::v1 as pb;
use hanniball_proto::scheduler::v1 as spb;

use crate::app::Api;
use crate::game::score;
use crate::html::{error_page, esc, page, player_link, search_form};
use crate::tournament::tournament_status;
use crate::url::query_value;

/// Longest query taken, in characters.
const MAX_QUERY: usize = 100;
/// Players listed per search at most, in pages of 1,000.
const PLAYER_PAGES: usize = 50;
/// Matches shown per kind.
const SHOWN: usize = 50;
/// Players whose games are listed.
const GAMES_OF: usize = 3;

/// Whether `name` matches the words of `query` (each word somewhere in it, case ignored).
pub(crate) fn matches(name: &str, words: &[String]) -> bool {
    let name = name.to_lowercase();
    words.iter().all(|w| name.contains(w.as_str()))
}

/// The words of a query, lower case.
fn words(query: &str) -> Vec<String> {
    query.split_whitespace().map(str::to_lowercase).collect()
}

pub(crate) async fn search_page(State(mut api): State<Api>, uri: axum::http::Uri) -> Response {
    let query = query_value(uri.query(), "q").unwrap_or_default();
    let query = query.trim();
    if query.chars().count() > MAX_QUERY {
        return error_page(
            StatusCode::BAD_REQUEST,
            &format!("A search is at most {MAX_QUERY} characters."),
        );
    }
    let mut body = format!("<h1>Search</h1>{}", search_form(query));
    if query.is_empty() {
        body.push_str("<p>Search for a player or tournament by name (or part of it), or for a game or tournament by its number.</p>");
        return page("Search", &body).into_response();
    }
    let words = words(query);
    let number = query
        .trim_start_matches('#')
        .parse::<i64>()
        .ok()
        .filter(|n| *n > 0);
    let (players, tournaments) = tokio::join!(
        players(api.clone(), query, &words),
        tournaments(api.clone(), number, &words)
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

    let _ = write!(
        body,
        "<section id=\"found-players\"><h2>Players</h2>{}</section>",
        list(
            players
                .iter()
                .take(SHOWN)
                .map(|p| player_link(p.id, &p.name))
        )
    );
    let _ = write!(
        body,
        "<section id=\"found-tournaments\"><h2>Tournaments</h2>{}</section>",
        list(tournaments.iter().take(SHOWN).map(|t| {
            format!(
                "<a href=\"/tournaments/{}\">{}</a> · {} · round {} of {}",
                t.id,
                esc(t.settings.as_ref().map_or("", |s| s.name.as_str())),
                tournament_status(t.status),
                t.current_round,
                t.rounds
            )
        }))
    );
    let names = api
        .names(
            games
                .iter()
                .flat_map(|g| [g.white_player_id, g.black_player_id]),
        )
        .await;
    let name = |id: i64| player_link(id, names.get(&id).map_or("", String::as_str));
    let _ = write!(
        body,
        "<section id=\"found-games\"><h2>Games</h2>{}</section>",
        list(games.iter().map(|g| {
            format!(
                "<a href=\"/games/{id}\">game {id}</a> · {} – {} · {} · {}",
                name(g.white_player_id),
                name(g.black_player_id),
                esc(&g.kind),
                score(g.state.as_ref()),
                id = g.id
            )
        }))
    );
    page(&format!("Search: {query}"), &body).into_response()
}

/// An HTML list of `items`, or "None found."
fn list(items: impl Iterator<Item = String>) -> String {
    let items: Vec<String> = items.map(|i| format!("<li>{i}</li>")).collect();
    if items.is_empty() {
        "<p>None found.</p>".to_owned()
    } else {
        format!("<ul>{}</ul>", items.concat())
    }
}

/// The players whose names match, an exact match first. Listing players needs the admin's
/// token; with a read-only one only an exact name is found.
async fn players(mut api: Api, query: &str, words: &[String]) -> Vec<apb::Player> {
    let mut found = Vec::new();
    let mut after_id = 0;
    for _ in 0..PLAYER_PAGES {
        let Ok(answer) = api
            .accounts
            .list_players(apb::ListPlayersRequest {
                after_id,
                limit: 1_000,
            })
            .await
        else {
            break;
        };
        let page = answer.into_inner().players;
        let Some(last) = page.last() else { break };
        after_id = last.id;
        let full = page.len() == 1_000;
        found.extend(page.into_iter().filter(|p| matches(&p.name, words)));
        if !full {
            break;
        }
    }
    if found.is_empty()
        && let Ok(answer) = api
            .accounts
            .get_player(apb::GetPlayerRequest {
                player: Some(apb::get_player_request::Player::Name(query.to_owned())),
            })
            .await
        && let Some(player) = answer.into_inner().player
    {
        found.push(player);
    }
    let exact = query.to_lowercase();
    found.sort_by_key(|p| (p.name.to_lowercase() != exact, p.name.to_lowercase(), p.id));
    found
}

/// The tournaments whose names match, or whose number is `number`; newest first.
async fn tournaments(mut api: Api, number: Option<i64>, words: &[String]) -> Vec<spb::Tournament> {
    let Some(scheduler) = api.scheduler.as_mut() else {
        return Vec::new();
    };
    let Ok(answer) = scheduler
        .list_tournaments(spb::ListTournamentsRequest {
            status: spb::TournamentStatus::Unspecified.into(),
            limit: 500,
            ..Default::default()
        })
        .await
    else {
        return Vec::new();
    };
    answer
        .into_inner()
        .tournaments
        .into_iter()
        .filter(|t| {
            Some(t.id) == number
                || matches(t.settings.as_ref().map_or("", |s| s.name.as_str()), words)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_word_must_match_in_any_case() {
        let words = words("  Cup  BROWSER ");
        assert!(matches("Browser Cup 2026", &words));
        assert!(!matches("Browser Open", &words));
        assert!(matches("anything", &[]));
    }
}
