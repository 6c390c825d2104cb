//! `/tournaments/{id}`: standings, crosstable, pairings and results; and the TRF download.

use std::fmt::Write as _;

use axum::extract::{Path, State};
use axum::http::{StatusCode, header};
use axum::response::{Html, IntoResponse, Response};
use hanniball_proto::scheduler::v1 as spb;

use crate::app::{Api, Scheduler};
use crate::assets::TOURNAMENT_SCRIPT;
use crate::html::{api_error, error_page, esc, page, player_link, unavailable};
use crate::url::game_id;

pub(crate) fn tournament_status(status: i32) -> &'static str {
    match spb::TournamentStatus::try_from(status) {
        Ok(spb::TournamentStatus::Registration) => "open for registration",
        Ok(spb::TournamentStatus::Running) => "running",
        Ok(spb::TournamentStatus::Finished) => "finished",
        _ => "unknown",
    }
}

/// The page for a path whose tournament id is not one.
pub(crate) fn bad_tournament_id() -> Response {
    error_page(
        StatusCode::BAD_REQUEST,
        "A tournament id is a positive number.",
    )
}

pub(crate) async fn tournament_page(
    State(mut api): State<Api>,
    Path(id): Path<String>,
) -> Response {
    let Some(id) = game_id(&id) else {
        return bad_tournament_id();
    };
    let Some(scheduler) = api.scheduler.as_mut() else {
        return unavailable("tournaments");
    };
    // Both calls at once: a large tournament's page waits for the slower, not for the sum.
    let mut other = scheduler.clone();
    let (tournament, standings) = tokio::join!(
        tournament_of(scheduler, id),
        other.get_standings(spb::GetStandingsRequest { tournament_id: id })
    );
    let tournament = match tournament {
        Ok(t) => t,
        Err(status) => return api_error(&status),
    };
    let standings = match standings {
        Ok(answer) => answer.into_inner(),
        Err(status) => return api_error(&status),
    };
    let settings = tournament.settings.clone().unwrap_or_default();
    let names: std::collections::HashMap<i64, &str> = tournament
        .entrants
        .iter()
        .map(|e| (e.player_id, e.name.as_str()))
        .collect();
    let name = |id: i64| {
        names
            .get(&id)
            .map_or_else(|| format!("player {id}"), |n| (*n).to_owned())
    };
    let live = is_live(&tournament);
    let mut body = format!(
        "<h1>{}</h1><p id=\"summary\"{}>{} · round {} of {} · {} players · <a href=\"/tournaments/{id}/trf\" download>TRF</a></p>",
        esc(&settings.name),
        if live { " data-live" } else { "" },
        tournament_status(tournament.status),
        tournament.current_round,
        tournament.rounds,
        tournament.entrants.len()
    );
    // Standings.
    body.push_str("<section><h2>Standings</h2><table><thead><tr><th scope=\"col\">Rank</th><th scope=\"col\">Player</th><th scope=\"col\">Rating</th><th scope=\"col\">Points</th>");
    for tiebreak in &standings.tiebreak_names {
        let _ = write!(body, "<th scope=\"col\">{}</th>", esc(tiebreak));
    }
    body.push_str("</tr></thead><tbody>");
    for row in &standings.standings {
        let _ = write!(
            body,
            "<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td>",
            row.rank,
            player_link(row.player_id, &row.name),
            row.rating,
            esc(&row.points)
        );
        for value in &row.tiebreaks {
            let _ = write!(body, "<td>{}</td>", esc(value));
        }
        body.push_str("</tr>");
    }
    body.push_str("</tbody></table></section>");
    body.push_str(&crosstable(&tournament));
    // Pairings and results, newest round first.
    let mut rounds: Vec<u32> = tournament.boards.iter().map(|b| b.round).collect();
    rounds.sort_unstable();
    rounds.dedup();
    for round in rounds.iter().rev() {
        let _ = write!(
            body,
            "<section><h2>Round {round}</h2><table><thead><tr><th scope=\"col\">Board</th><th scope=\"col\">White</th><th scope=\"col\">Result</th><th scope=\"col\">Black</th></tr></thead><tbody>"
        );
        for b in tournament.boards.iter().filter(|b| b.round == *round) {
            let kind = spb::BoardKind::try_from(b.kind).unwrap_or(spb::BoardKind::Unspecified);
            let (black, result) = match kind {
                spb::BoardKind::Game => (
                    player_link(b.black_player_id, &name(b.black_player_id)),
                    if b.game_id > 0 {
                        format!(
                            "<a href=\"/games/{}\">{}</a>",
                            b.game_id,
                            if b.result.is_empty() {
                                "playing"
                            } else {
                                b.result.as_str()
                            }
                        )
                    } else {
                        esc(&b.result)
                    },
                ),
                spb::BoardKind::PairingBye => ("bye".to_owned(), String::new()),
                spb::BoardKind::HalfPointBye => ("half-point bye".to_owned(), String::new()),
                spb::BoardKind::ZeroPointBye => ("zero-point bye".to_owned(), String::new()),
                _ => ("absent".to_owned(), String::new()),
            };
            let _ = write!(
                body,
                "<tr><td>{}</td><td>{}</td><td>{result}</td><td>{black}</td></tr>",
                b.number,
                player_link(b.white_player_id, &name(b.white_player_id))
            );
        }
        body.push_str("</tbody></table></section>");
    }
    let mut html = page(&settings.name, &body).0;
    if live {
        // Results come in as games end: the page follows the tournament's change notices and
        // redraws its main part; without script it reloads itself now and then.
        html = html
            .replacen(
                "<head>",
                "<head><noscript><meta http-equiv=\"refresh\" content=\"10\"></noscript>",
                1,
            )
            .replacen(
                "</body>",
                &format!(
                    "<script>{}</script></body>",
                    TOURNAMENT_SCRIPT.replace("TOURNAMENT_ID", &id.to_string())
                ),
                1,
            );
    }
    Html(html).into_response()
}

/// Tournament `id` with its boards, as [`Api::game`] reads a game.
pub(crate) async fn tournament_of(
    scheduler: &mut Scheduler,
    id: i64,
) -> Result<spb::Tournament, tonic::Status> {
    scheduler
        .get_tournament(spb::GetTournamentRequest { tournament_id: id })
        .await?
        .into_inner()
        .tournament
        .ok_or_else(|| tonic::Status::internal("no tournament in the answer"))
}

/// Whether a tournament can still change (taking entries, or running).
pub(crate) fn is_live(tournament: &spb::Tournament) -> bool {
    tournament.status == spb::TournamentStatus::Registration as i32
        || tournament.status == spb::TournamentStatus::Running as i32
}

/// One player's cell in a round of the crosstable: the opponent's starting rank, the colour and
/// the result from the player's side (`5w1`, `3b½`, `+` a bye, `-` absent; empty: not played yet).
fn cross_cell(board: &spb::Board, me: i64, ranks: &std::collections::HashMap<i64, u32>) -> String {
    let kind = spb::BoardKind::try_from(board.kind).unwrap_or(spb::BoardKind::Unspecified);
    match kind {
        spb::BoardKind::Game => {
            let white = board.white_player_id == me;
            let opponent = if white {
                board.black_player_id
            } else {
                board.white_player_id
            };
            let mine = match (board.result.as_str(), white) {
                ("1-0", true) | ("0-1", false) => "1",
                ("1-0", false) | ("0-1", true) => "0",
                ("1/2-1/2", _) => "½",
                ("+/-", true) | ("-/+", false) => "+",
                ("+/-", false) | ("-/+", true) | ("-/-", _) => "-",
                _ => "",
            };
            format!(
                "{}{}{mine}",
                ranks.get(&opponent).copied().unwrap_or(0),
                if white { "w" } else { "b" }
            )
        }
        spb::BoardKind::PairingBye => "+".to_owned(),
        spb::BoardKind::HalfPointBye => "½".to_owned(),
        spb::BoardKind::ZeroPointBye => "0".to_owned(),
        _ => "-".to_owned(),
    }
}

/// The crosstable: a row per player by starting rank, a column per round.
fn crosstable(tournament: &spb::Tournament) -> String {
    let ranks: std::collections::HashMap<i64, u32> = tournament
        .entrants
        .iter()
        .map(|e| (e.player_id, e.start_rank))
        .collect();
    let rounds = tournament.boards.iter().map(|b| b.round).max().unwrap_or(0);
    if rounds == 0 {
        return String::new();
    }
    let mut entrants: Vec<&spb::Entrant> = tournament.entrants.iter().collect();
    entrants.sort_by_key(|e| (e.start_rank, e.player_id));
    // (round, player) → the board: a lookup per cell instead of a scan of every board.
    let mut seat: std::collections::HashMap<(u32, i64), &spb::Board> =
        std::collections::HashMap::with_capacity(2 * tournament.boards.len());
    for b in &tournament.boards {
        seat.entry((b.round, b.white_player_id)).or_insert(b);
        if b.black_player_id > 0 {
            seat.entry((b.round, b.black_player_id)).or_insert(b);
        }
    }
    let mut out = String::from(
        "<section><h2>Crosstable</h2><table class=\"cross\"><thead><tr><th scope=\"col\">No</th><th scope=\"col\">Player</th>",
    );
    for round in 1..=rounds {
        let _ = write!(out, "<th scope=\"col\">R{round}</th>");
    }
    out.push_str("<th scope=\"col\">Points</th></tr></thead><tbody>");
    for entrant in entrants {
        let _ = write!(
            out,
            "<tr><td>{}</td><th scope=\"row\"><a href=\"/players/{}\">{}</a></th>",
            entrant.start_rank,
            entrant.player_id,
            esc(&entrant.name)
        );
        for round in 1..=rounds {
            let cell = seat
                .get(&(round, entrant.player_id))
                .map_or_else(String::new, |b| cross_cell(b, entrant.player_id, &ranks));
            let _ = write!(out, "<td>{}</td>", esc(&cell));
        }
        let halves = entrant.score_halves;
        let _ = write!(
            out,
            "<td>{}{}</td></tr>",
            halves / 2,
            if halves % 2 == 1 { ".5" } else { "" }
        );
    }
    out.push_str("</tbody></table></section>");
    out
}

pub(crate) async fn trf_download(State(mut api): State<Api>, Path(id): Path<String>) -> Response {
    let Some(id) = game_id(&id) else {
        return bad_tournament_id();
    };
    let Some(scheduler) = api.scheduler.as_mut() else {
        return unavailable("tournaments");
    };
    match scheduler
        .export_trf(spb::ExportTrfRequest { tournament_id: id })
        .await
    {
        Ok(answer) => (
            [
                (header::CONTENT_TYPE, "text/plain; charset=utf-8".to_owned()),
                (
                    header::CONTENT_DISPOSITION,
                    format!("attachment; filename=\"tournament-{id}.trf\""),
                ),
            ],
            answer.into_inner().trf,
        )
            .into_response(),
        Err(status) => api_error(&status),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn crosstable_cells_read_from_the_players_side() {
        let ranks = std::collections::HashMap::from([(10, 1), (20, 2)]);
        let board = |kind: spb::BoardKind, result: &str| spb::Board {
            round: 1,
            number: 1,
            kind: kind.into(),
            white_player_id: 10,
            black_player_id: 20,
            result: result.to_owned(),
            ..Default::default()
        };
        let game = board(spb::BoardKind::Game, "1-0");
        assert_eq!(cross_cell(&game, 10, &ranks), "2w1");
        assert_eq!(cross_cell(&game, 20, &ranks), "1b0");
        let draw = board(spb::BoardKind::Game, "1/2-1/2");
        assert_eq!(cross_cell(&draw, 20, &ranks), "1b½");
        let forfeit = board(spb::BoardKind::Game, "-/+");
        assert_eq!(cross_cell(&forfeit, 20, &ranks), "1b+");
        assert_eq!(
            cross_cell(&board(spb::BoardKind::Game, ""), 10, &ranks),
            "2w"
        );
        assert_eq!(
            cross_cell(&board(spb::BoardKind::PairingBye, ""), 10, &ranks),
            "+"
        );
    }
}
