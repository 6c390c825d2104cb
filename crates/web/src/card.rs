//! `/tournaments/{id}/players/{player}`: a player's card for one tournament, as chess-results
//! shows it: each round's board, colour, opponent (with their card), result and running score;
//! the rating change of each rated game and in all; the performance rating; the tie-break
//! values with what each one means.

use std::collections::HashMap;

use axum::extract::{Path, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use hanniball_proto::rating::v1 as rpb;
use hanniball_proto::scheduler::v1 as spb;
use maud::html;

use crate::api::Api;
use crate::html::{error_page, page, player_link, points, points_count};
use crate::i18n::{decimal, tr};
use crate::tournament::{bad_tournament_id, card_link, read, tiebreak_meaning};
use crate::url::game_id;

/// What one round gave the player: the result's sign and the half-points it scored.
fn outcome(board: &spb::Board, me: i64, bye_halves: u32) -> (String, u32) {
    let (sign, halves) = sign(board, me, bye_halves);
    let sign = match sign {
        "bye" => tr!("bye"),
        "half-point bye" => tr!("bye-half"),
        "zero-point bye" => tr!("bye-zero"),
        "not paired" => tr!("not-paired"),
        sign => sign.to_owned(),
    };
    (sign, halves)
}

fn sign(board: &spb::Board, me: i64, bye_halves: u32) -> (&'static str, u32) {
    match spb::BoardKind::try_from(board.kind).unwrap_or(spb::BoardKind::Unspecified) {
        spb::BoardKind::Game => {
            let white = board.white_player_id == me;
            match (board.result.as_str(), white) {
                ("1-0", true) | ("0-1", false) => ("1", 2),
                ("1-0", false) | ("0-1", true) => ("0", 0),
                ("1/2-1/2", _) => ("½", 1),
                ("+/-", true) | ("-/+", false) => ("+", 2),
                ("+/-", false) | ("-/+", true) | ("-/-", _) => ("−", 0),
                _ => ("", 0),
            }
        }
        spb::BoardKind::PairingBye => ("bye", bye_halves),
        spb::BoardKind::HalfPointBye => ("half-point bye", 1),
        spb::BoardKind::ZeroPointBye => ("zero-point bye", 0),
        _ => ("not paired", 0),
    }
}

/// The rating changes of `me`'s games of this tournament (by game id), and their performance,
/// from the rating service; empty when there is none or the tournament is not rated.
async fn ratings(
    api: &mut Api,
    ladder: &str,
    me: i64,
    games: &[i64],
) -> (HashMap<i64, f64>, Option<rpb::PerformanceResponse>) {
    let Some(rating) = api.rating.as_mut() else {
        return (HashMap::new(), None);
    };
    let player = || {
        Some(rpb::PlayerRef {
            player: Some(rpb::player_ref::Player::Id(me)),
        })
    };
    let history = rating
        .history(rpb::HistoryRequest {
            player: player(),
            ladder: ladder.to_owned(),
            page_size: 1_000,
            page_token: String::new(),
        })
        .await
        .map(|a| a.into_inner().points)
        .unwrap_or_default();
    let mut change: HashMap<i64, f64> = HashMap::new();
    for point in history.iter().filter(|p| games.contains(&p.game_id)) {
        *change.entry(point.game_id).or_default() += point.rating_after - point.rating_before;
    }
    let rated: Vec<i64> = games
        .iter()
        .copied()
        .filter(|g| change.contains_key(g))
        .collect();
    let performance = if rated.is_empty() {
        None
    } else {
        rating
            .performance(rpb::PerformanceRequest {
                player: player(),
                ladder: ladder.to_owned(),
                game_ids: rated,
            })
            .await
            .ok()
            .map(tonic::Response::into_inner)
    };
    (change, performance)
}

/// A signed rating change (`+12.4`, `−3.0`; `+12,4` in Russian and French).
fn signed(change: f64) -> String {
    decimal(&if change < 0.0 {
        format!("−{:.1}", -change)
    } else {
        format!("+{change:.1}")
    })
}

pub(crate) async fn card_page(
    State(mut api): State<Api>,
    Path((id, player)): Path<(String, String)>,
) -> Response {
    let Some(id) = game_id(&id) else {
        return bad_tournament_id();
    };
    let Some(me) = game_id(&player) else {
        return error_page(StatusCode::BAD_REQUEST, &tr!("error-player-id"));
    };
    let (tournament, standings) = match read(&mut api, id, 0).await {
        Ok(both) => both,
        Err(response) => return response,
    };
    let Some(entrant) = tournament.entrants.iter().find(|e| e.player_id == me) else {
        return error_page(StatusCode::NOT_FOUND, &tr!("error-not-entrant"));
    };
    let settings = tournament.settings.clone().unwrap_or_default();
    let bye = if settings.bye_points == 0 && !settings.bye_points_set {
        2
    } else {
        settings.bye_points
    };
    let entrants: HashMap<i64, &spb::Entrant> = tournament
        .entrants
        .iter()
        .map(|e| (e.player_id, e))
        .collect();
    let mut mine: Vec<&spb::Board> = tournament
        .boards
        .iter()
        .filter(|b| b.white_player_id == me || b.black_player_id == me)
        .collect();
    mine.sort_by_key(|b| b.round);
    let games: Vec<i64> = mine.iter().map(|b| b.game_id).filter(|g| *g > 0).collect();
    let ladder = if settings.kind.is_empty() {
        "hanniball".to_owned()
    } else {
        settings.kind.clone()
    };
    let (change, performance) = if settings.rated {
        ratings(&mut api, &ladder, me, &games).await
    } else {
        (HashMap::new(), None)
    };
    let total: f64 = change.values().sum();
    let row = standings.standings.iter().find(|s| s.player_id == me);
    let mut running = 0;
    let rounds: Vec<(&spb::Board, String, u32)> = mine
        .iter()
        .map(|b| {
            let (sign, halves) = outcome(b, me, bye);
            running += halves;
            (*b, sign, running)
        })
        .collect();
    let body = html! {
        p.noprint { a href={ "/tournaments/" (id) } { "← " (settings.name) } }
        h1 { (entrant.name) }
        p id="card-summary" {
            (tr!("card-number", number = entrant.start_rank)) " · "
            (tr!("card-rating", rating = entrant.rating)) " · "
            (points_count(entrant.score_halves))
            @if let Some(row) = row {
                " · " (tr!("card-rank", rank = row.rank, round = standings.rounds))
            }
            @if entrant.withdrawn_from > 0 {
                " · " (tr!("card-withdrawn", round = entrant.withdrawn_from))
            }
            " · " (player_link(me, &tr!("card-all-games")))
        }
        section {
            h2 { (tr!("card-rounds")) }
            // The round and the opponent first; on a phone the board and the opponent's rating
            // (the opponent's own card has it) give way, so that the rest fits.
            table.fixed.card {
                thead { tr {
                    th scope="col" { abbr title=(tr!("stat-round-title")) { (tr!("stat-round")) } }
                    th.name scope="col" { (tr!("col-opponent")) }
                    th.wide scope="col" { (tr!("col-board")) } th scope="col" { (tr!("col-colour")) }
                    th.wide scope="col" { (tr!("col-rating")) } th scope="col" { (tr!("col-result")) }
                    th scope="col" { (tr!("col-score")) }
                    @if settings.rated { th scope="col" { (tr!("col-rating-change")) } }
                } }
                tbody {
                    @for (b, sign, score) in &rounds {
                        @let (b, score) = (*b, *score);
                        @let game = b.kind == spb::BoardKind::Game as i32;
                        @let white = b.white_player_id == me;
                        @let opponent = if white { b.black_player_id } else { b.white_player_id };
                        tr {
                            td { (b.round) }
                            td.name {
                                @if game {
                                    @match entrants.get(&opponent) {
                                        Some(o) => { (card_link(id, opponent, &o.name)) " (" (o.start_rank) ")" }
                                        None => { (tr!("player-number", id = opponent)) }
                                    }
                                }
                            }
                            td.wide { @if game { (b.number) } }
                            td { @if game { @if white { (tr!("white")) } @else { (tr!("black")) } } }
                            td.wide { @if game { (entrants.get(&opponent).map_or(0, |o| o.rating)) } }
                            td {
                                @if game && b.game_id > 0 && !sign.is_empty() {
                                    a href={ "/games/" (b.game_id) } { (sign) }
                                } @else { (sign) }
                            }
                            td { (points(score)) }
                            @if settings.rated {
                                td { (change.get(&b.game_id).map_or_else(String::new, |c| signed(*c))) }
                            }
                        }
                    }
                }
            }
            @if settings.rated && !change.is_empty() {
                p id="rating-change" { (tr!("card-rating-change", change = signed(total))) }
            }
            @if let Some(p) = &performance {
                p id="performance" {
                    (tr!(
                        "card-performance",
                        performance = format!("{:.0}", p.performance),
                        average = format!("{:.0}", p.average_opponent),
                        score = decimal(&p.score.to_string()),
                        games = p.games
                    ))
                }
            }
        }
        @if let Some(row) = row {
            @if !standings.tiebreak_names.is_empty() {
                section {
                    h2 { (tr!("card-tiebreaks", round = standings.rounds)) }
                    dl.legend id="card-tiebreaks" {
                        @for (name, value) in standings.tiebreak_names.iter().zip(&row.tiebreaks) {
                            dt { (name) ": " (decimal(value)) }
                            dd { (tiebreak_meaning(name).unwrap_or_else(|| tr!("tb-unknown"))) }
                        }
                    }
                }
            }
        }
    };
    page(&format!("{} · {}", entrant.name, settings.name), body).into_response()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_round_reads_from_the_players_side() {
        let board = |kind: spb::BoardKind, result: &str| spb::Board {
            kind: kind.into(),
            white_player_id: 1,
            black_player_id: 2,
            result: result.to_owned(),
            ..Default::default()
        };
        assert_eq!(
            outcome(&board(spb::BoardKind::Game, "1-0"), 1, 2),
            ("1".to_owned(), 2)
        );
        assert_eq!(
            outcome(&board(spb::BoardKind::Game, "1-0"), 2, 2),
            ("0".to_owned(), 0)
        );
        assert_eq!(
            outcome(&board(spb::BoardKind::Game, "-/+"), 2, 2),
            ("+".to_owned(), 2)
        );
        assert_eq!(
            outcome(&board(spb::BoardKind::Game, "-/-"), 1, 2),
            ("−".to_owned(), 0)
        );
        assert_eq!(
            outcome(&board(spb::BoardKind::PairingBye, ""), 1, 1),
            ("bye".to_owned(), 1)
        );
        assert_eq!(
            crate::i18n::within(crate::i18n::Lang::Ru, "/", || outcome(
                &board(spb::BoardKind::HalfPointBye, ""),
                1,
                2
            )),
            ("пропуск за ½ очка".to_owned(), 1)
        );
        assert_eq!(
            crate::i18n::within(crate::i18n::Lang::Fr, "/", || signed(-3.04)),
            "−3,0"
        );
        assert_eq!(signed(-3.04), "−3.0");
        assert_eq!(signed(12.44), "+12.4");
    }
}
