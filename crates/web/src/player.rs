//! `/players/{id}`: a player's ratings (charted), head-to-head records, tournaments and recent
//! games.

use axum::extract::{Path, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use hanniball_proto::accounts::v1 as apb;
use hanniball_proto::arbiter::v1 as pb;
use hanniball_proto::rating::v1 as rpb;
use hanniball_proto::scheduler::v1 as spb;
use maud::{Markup, html};

use crate::api::Api;
use crate::game::score;
use crate::html::{api_error, error_page, page, player_link};
use crate::i18n::tr;
use crate::tournament::tournament_status;
use crate::url::game_id;

/// A rating history as an SVG line chart (oldest to newest, `(when, rating)` in unix ms), with
/// the lowest and highest ratings and the first and last dates marked. The line is drawn in a
/// stretched inner plot; the labels sit outside it in CSS pixels, so that they stay legible
/// (12 px) at any width, a phone's included.
fn rating_chart(ratings: &[(i64, f64)]) -> Markup {
    const W: f64 = 600.0;
    const H: f64 = 140.0;
    if ratings.is_empty() {
        return html! {};
    }
    let low = ratings.iter().map(|r| r.1).fold(f64::INFINITY, f64::min);
    let high = ratings
        .iter()
        .map(|r| r.1)
        .fold(f64::NEG_INFINITY, f64::max);
    let span = (high - low).max(1.0);
    let step = if ratings.len() > 1 {
        W / (ratings.len() - 1) as f64
    } else {
        0.0
    };
    let points: Vec<String> = ratings
        .iter()
        .enumerate()
        .map(|(i, (_, r))| {
            let x = step * i as f64;
            let y = H - (r - low) / span * H;
            format!("{x:.1},{y:.1}")
        })
        .collect();
    let first = ratings[0];
    let last = ratings[ratings.len() - 1];
    let (from, to) = (crate::i18n::date(first.0), crate::i18n::date(last.0));
    // SVG elements are closed explicitly (`{}`): inside `<svg>` a start tag is not void.
    html! {
        svg xmlns="http://www.w3.org/2000/svg" class="chart" role="img"
            aria-label=(tr!(
                "chart-history",
                from = from.as_str(),
                to = to.as_str(),
                first = format!("{:.0}", first.1),
                last = format!("{:.0}", last.1),
                low = format!("{low:.0}"),
                high = format!("{high:.0}")
            )) {
            rect width="100%" height="100%" fill="none" stroke="#8a9687" {}
            svg x="0" y="20" width="100%" height="148" viewBox="-70 -4 680 148"
                preserveAspectRatio="none" {
                polyline fill="none" stroke="#2d8a27" stroke-width="2"
                    vector-effect="non-scaling-stroke" points=(points.join(" ")) {}
            }
            text x="4" y="28" class="high" { (format!("{high:.0}")) }
            text x="4" y="164" class="low" { (format!("{low:.0}")) }
            text x="4" y="200" class="date" { (from) }
            text x="99%" y="200" text-anchor="end" class="date" { (to) }
        }
    }
}

pub(crate) async fn player_page(State(mut api): State<Api>, Path(id): Path<String>) -> Response {
    let Some(id) = game_id(&id) else {
        return error_page(StatusCode::BAD_REQUEST, &tr!("error-player-id"));
    };
    let player = match api
        .accounts
        .get_player(apb::GetPlayerRequest {
            player: Some(apb::get_player_request::Player::Id(id)),
        })
        .await
    {
        Ok(answer) => match answer.into_inner().player {
            Some(player) => player,
            None => return error_page(StatusCode::NOT_FOUND, &tr!("error-no-player")),
        },
        Err(status) => return api_error(&status),
    };
    let mut ladders_shown: Vec<Markup> = Vec::new();
    if let Some(rating) = api.rating.as_mut() {
        let ladders = rating
            .list_ladders(rpb::ListLaddersRequest {})
            .await
            .map(|a| a.into_inner().ladders)
            .unwrap_or_default();
        for ladder in &ladders {
            let history = rating
                .history(rpb::HistoryRequest {
                    player: Some(rpb::PlayerRef {
                        player: Some(rpb::player_ref::Player::Id(id)),
                    }),
                    ladder: ladder.name.clone(),
                    page_size: 200,
                    page_token: String::new(),
                })
                .await
                .map(|a| a.into_inner().points)
                .unwrap_or_default();
            if history.is_empty() {
                continue;
            }
            // Newest first from the API; the chart runs oldest to newest, from the rating before
            // the oldest point.
            let mut ratings: Vec<(i64, f64)> = history
                .iter()
                .rev()
                .map(|p| (p.at_ms, p.rating_after))
                .collect();
            ratings.insert(
                0,
                history
                    .last()
                    .map_or((0, 0.0), |p| (p.at_ms, p.rating_before)),
            );
            // Head to head over these games.
            let mut against: std::collections::BTreeMap<(String, i64), [u32; 3]> =
                std::collections::BTreeMap::new();
            for point in history.iter().filter(|p| p.game_id > 0) {
                let row = against
                    .entry((point.opponent_name.clone(), point.opponent_id))
                    .or_default();
                match rpb::Score::try_from(point.score) {
                    Ok(rpb::Score::Win) => row[0] += 1,
                    Ok(rpb::Score::Draw) => row[1] += 1,
                    Ok(rpb::Score::Loss) => row[2] += 1,
                    _ => {}
                }
            }
            ladders_shown.push(html! {
                section {
                    h2 {
                        (tr!("ladder-word")) " " a href={ "/ladders/" (ladder.name) } { (ladder.name) }
                        ": " (format!("{:.0}", ratings.last().map_or(0.0, |r| r.1)))
                    }
                    (rating_chart(&ratings))
                    h3 { (tr!("head-to-head", count = history.len())) }
                    table {
                        thead { tr {
                            th scope="col" { (tr!("col-opponent")) } th scope="col" { (tr!("col-won")) }
                            th scope="col" { (tr!("col-drawn")) } th scope="col" { (tr!("col-lost")) }
                        } }
                        tbody {
                            @for ((name, opponent), [won, drawn, lost]) in &against {
                                tr {
                                    td { a href={ "/players/" (opponent) } { (name) } }
                                    td { (won) } td { (drawn) } td { (lost) }
                                }
                            }
                        }
                    }
                }
            });
        }
    }
    let games = api
        .arbiter
        .list_games(pb::ListGamesRequest {
            player_id: id,
            limit: 20,
            ..Default::default()
        })
        .await
        .map(|a| a.into_inner().games)
        .unwrap_or_default();
    let games = games_table(&api, id, &games).await;
    let tournaments = tournaments_table(&mut api, id).await;
    let body = html! {
        h1 { (player.name) }
        @for section in &ladders_shown { (section) }
        (tournaments)
        (games)
    };
    page(&player.name, body).into_response()
}

/// The tournaments a player entered (the newest 20): each linked, its status, the player's points
/// and rank once it has started, and the player's card in it. Nothing without a scheduler.
async fn tournaments_table(api: &mut Api, me: i64) -> Markup {
    let Some(scheduler) = api.scheduler.as_mut() else {
        return html! {};
    };
    let tournaments = match scheduler
        .list_tournaments(spb::ListTournamentsRequest {
            limit: 20,
            player_id: me,
            ..Default::default()
        })
        .await
    {
        Ok(answer) => answer.into_inner().tournaments,
        Err(status) => {
            tracing::warn!(code = ?status.code(), message = status.message(), "a player's tournaments");
            Vec::new()
        }
    };
    let mut rows = Vec::with_capacity(tournaments.len());
    for t in &tournaments {
        // Before a round is complete there are no standings (FAILED_PRECONDITION): no score yet.
        let standing = if t.status == spb::TournamentStatus::Registration as i32 {
            None
        } else {
            scheduler
                .get_standings(spb::GetStandingsRequest {
                    tournament_id: t.id,
                    after_round: 0,
                })
                .await
                .ok()
                .and_then(|a| {
                    a.into_inner()
                        .standings
                        .into_iter()
                        .find(|s| s.player_id == me)
                })
        };
        rows.push((t, standing));
    }
    html! {
        section id="tournaments" {
            h2 { (tr!("player-tournaments")) }
            @if rows.is_empty() {
                p { (tr!("none")) }
            } @else {
                table {
                    thead { tr {
                        th scope="col" { (tr!("col-tournament")) } th scope="col" { (tr!("col-status")) }
                        th.num scope="col" { (tr!("col-points")) } th.num scope="col" { (tr!("col-rank-long")) }
                        th scope="col" { (tr!("col-card")) }
                    } }
                    tbody {
                        @for (t, standing) in &rows {
                            tr {
                                td { a href={ "/tournaments/" (t.id) } { (t.settings.as_ref().map_or("", |s| s.name.as_str())) } }
                                td { (tournament_status(t.status)) }
                                td.num { @if let Some(s) = standing { (crate::i18n::decimal(&s.points)) } }
                                td.num { @if let Some(s) = standing { (s.rank) } }
                                td { a href={ "/tournaments/" (t.id) "/players/" (me) } { (tr!("player-card")) } }
                            }
                        }
                    }
                }
            }
        }
    }
}

/// A player's games: date, colour, opponent, result from the player's side, and what was played.
async fn games_table(api: &Api, me: i64, games: &[pb::Game]) -> Markup {
    let names = api
        .names(games.iter().map(|g| {
            if g.white_player_id == me {
                g.black_player_id
            } else {
                g.white_player_id
            }
        }))
        .await;
    html! {
        section {
            h2 { (tr!("recent-games")) }
            @if games.is_empty() {
                p { (tr!("none")) }
            } @else {
                table.games {
                    thead { tr {
                        th scope="col" { (tr!("col-game")) } th scope="col" { (tr!("col-colour")) }
                        th scope="col" { (tr!("col-opponent")) } th scope="col" { (tr!("col-result")) }
                    } }
                    tbody {
                        @for game in games {
                            @let white = game.white_player_id == me;
                            @let opponent = if white { game.black_player_id } else { game.white_player_id };
                            @let outcome = score(game.state.as_ref());
                            @let mine = match (outcome, white) {
                                ("1-0", true) | ("0-1", false) => tr!("game-won"),
                                ("1-0", false) | ("0-1", true) => tr!("game-lost"),
                                ("1/2-1/2", _) => tr!("game-drawn"),
                                _ if game.state.as_ref().is_some_and(|s| s.result.is_some()) => tr!("game-aborted"),
                                _ => tr!("playing"),
                            };
                            tr {
                                td {
                                    a href={ "/games/" (game.id) } { (game.id) } " "
                                    span.kind { (game.kind) " · " (crate::i18n::date_short(game.created_at_ms)) }
                                }
                                td { @if white { (tr!("white")) } @else { (tr!("black")) } }
                                td { (player_link(opponent, names.get(&opponent).map_or("", String::as_str))) }
                                td.res { (mine) " " (outcome) }
                            }
                        }
                    }
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_rating_chart_spans_lowest_to_highest_with_dates() {
        let day = 86_400_000;
        let chart = rating_chart(&[
            (day, 1500.0),
            (2 * day, 1520.0),
            (3 * day, 1490.0),
            (40 * day, 1550.0),
        ])
        .into_string();
        assert!(chart.starts_with("<svg") && chart.ends_with("</svg>"));
        assert!(
            chart.contains(
                "from 2\u{a0}January\u{a0}1970 to 10\u{a0}February\u{a0}1970: from 1500 to 1550, lowest 1490, highest 1550"
            ),
            "{chart}"
        );
        assert!(
            chart.contains(">2\u{a0}January\u{a0}1970</text>")
                && chart.contains(">10\u{a0}February\u{a0}1970</text>")
        );
        // Four points; the highest at the top of the plot, the lowest at its bottom.
        let points = chart.split("points=\"").nth(1).expect("points");
        let points: Vec<&str> = points.split('"').next().expect("end").split(' ').collect();
        assert_eq!(points.len(), 4);
        assert!(
            points[3].ends_with(",0.0") && points[2].ends_with(",140.0"),
            "{points:?}"
        );
        assert_eq!(rating_chart(&[]).into_string(), "");
    }
}
