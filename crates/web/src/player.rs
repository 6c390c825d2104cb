//! `/players/{id}`: a player's ratings (charted), head-to-head records and recent games.

use std::fmt::Write as _;

use axum::extract::{Path, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use hanniball_proto::accounts::v1 as apb;
use hanniball_proto::arbiter::v1 as pb;
use hanniball_proto::rating::v1 as rpb;

use crate::app::Api;
use crate::game::score;
use crate::html::{api_error, error_page, esc, page};
use crate::url::game_id;

/// A rating history as an SVG line chart (oldest to newest), with the lowest and highest
/// ratings marked.
fn rating_chart(ratings: &[f64]) -> String {
    const W: f64 = 600.0;
    const H: f64 = 200.0;
    const PAD: f64 = 30.0;
    if ratings.is_empty() {
        return String::new();
    }
    let low = ratings.iter().copied().fold(f64::INFINITY, f64::min);
    let high = ratings.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    let span = (high - low).max(1.0);
    let step = if ratings.len() > 1 {
        (W - 2.0 * PAD) / (ratings.len() - 1) as f64
    } else {
        0.0
    };
    let points: Vec<String> = ratings
        .iter()
        .enumerate()
        .map(|(i, r)| {
            let x = PAD + step * i as f64;
            let y = H - PAD - (r - low) / span * (H - 2.0 * PAD);
            format!("{x:.1},{y:.1}")
        })
        .collect();
    format!(
        "<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 {W} {H}\" class=\"chart\" role=\"img\" aria-label=\"rating history: from {:.0} to {:.0}, lowest {low:.0}, highest {high:.0}\">\
         <rect width=\"{W}\" height=\"{H}\" fill=\"#fff\"/>\
         <text x=\"4\" y=\"{:.0}\" font-size=\"11\">{high:.0}</text><text x=\"4\" y=\"{:.0}\" font-size=\"11\">{low:.0}</text>\
         <polyline fill=\"none\" stroke=\"#2d5a27\" stroke-width=\"2\" points=\"{}\"/></svg>",
        ratings[0],
        ratings[ratings.len() - 1],
        PAD - 4.0,
        H - PAD + 12.0,
        points.join(" ")
    )
}

pub(crate) async fn player_page(State(mut api): State<Api>, Path(id): Path<String>) -> Response {
    let Some(id) = game_id(&id) else {
        return error_page(StatusCode::BAD_REQUEST, "A player id is a positive number.");
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
            None => return error_page(StatusCode::NOT_FOUND, "No such player."),
        },
        Err(status) => return api_error(&status),
    };
    let mut body = format!("<h1>{}</h1>", esc(&player.name));
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
            // Newest first from the API; the chart runs oldest to newest.
            let mut ratings: Vec<f64> = history.iter().rev().map(|p| p.rating_after).collect();
            ratings.insert(0, history.last().map_or(0.0, |p| p.rating_before));
            let _ = write!(
                body,
                "<section><h2>Ladder <a href=\"/ladders/{name}\">{name}</a>: {:.0}</h2>{}",
                ratings.last().copied().unwrap_or_default(),
                rating_chart(&ratings),
                name = esc(&ladder.name)
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
            let _ = write!(
                body,
                "<h3>Head to head (last {} rated games)</h3><table><thead><tr><th scope=\"col\">Opponent</th><th scope=\"col\">Won</th><th scope=\"col\">Drawn</th><th scope=\"col\">Lost</th></tr></thead><tbody>",
                history.len()
            );
            for ((name, opponent), [won, drawn, lost]) in &against {
                let _ = write!(
                    body,
                    "<tr><td><a href=\"/players/{opponent}\">{}</a></td><td>{won}</td><td>{drawn}</td><td>{lost}</td></tr>",
                    esc(name)
                );
            }
            body.push_str("</tbody></table></section>");
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
    body.push_str("<section><h2>Recent games</h2><ul>");
    for game in &games {
        let _ = write!(
            body,
            "<li><a href=\"/games/{id}\">game {id}</a> · {} · {}</li>",
            esc(&game.kind),
            score(game.state.as_ref()),
            id = game.id
        );
    }
    body.push_str("</ul></section>");
    page(&player.name, &body).into_response()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_rating_chart_spans_lowest_to_highest() {
        let chart = rating_chart(&[1500.0, 1520.0, 1490.0, 1550.0]);
        assert!(chart.starts_with("<svg") && chart.ends_with("</svg>"));
        assert!(chart.contains("from 1500 to 1550, lowest 1490, highest 1550"));
        // Four points; the highest at the top margin, the lowest at the bottom one.
        let points = chart.split("points=\"").nth(1).expect("points");
        let points: Vec<&str> = points.split('"').next().expect("end").split(' ').collect();
        assert_eq!(points.len(), 4);
        assert!(
            points[3].ends_with(",30.0") && points[2].ends_with(",170.0"),
            "{points:?}"
        );
        assert_eq!(rating_chart(&[]), "");
    }
}
