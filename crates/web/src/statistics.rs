//! `/tournaments/{id}/statistics`: what happened on the boards, per round and in all: results
//! by colour, draws, forfeits, byes, upsets (the lower-rated player won) and the rating gap
//! between opponents, with a bar chart of the results by colour.

use axum::extract::{Path, State};
use axum::response::{IntoResponse, Response};
use hanniball_proto::scheduler::v1 as spb;
use maud::{Markup, html};

use crate::api::Api;
use crate::html::page;
use crate::i18n::tr;
use crate::tournament::{bad_tournament_id, read};
use crate::url::game_id;

/// The counts of one round, or of all.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Counts {
    pub white_wins: u32,
    pub draws: u32,
    pub black_wins: u32,
    pub forfeits: u32,
    pub byes: u32,
    /// Decisive games the lower-rated player won.
    pub upsets: u32,
    /// Paired games (played or not) and the sum of their opponents' rating gaps.
    pub paired: u32,
    pub gap_sum: u64,
    /// Games paired without a result yet.
    pub open: u32,
}

impl Counts {
    fn played(&self) -> u32 {
        self.white_wins + self.draws + self.black_wins
    }

    fn add(&mut self, other: &Counts) {
        self.white_wins += other.white_wins;
        self.draws += other.draws;
        self.black_wins += other.black_wins;
        self.forfeits += other.forfeits;
        self.byes += other.byes;
        self.upsets += other.upsets;
        self.paired += other.paired;
        self.gap_sum += other.gap_sum;
        self.open += other.open;
    }

    fn average_gap(&self) -> String {
        if self.paired == 0 {
            "–".to_owned()
        } else {
            format!("{:.0}", self.gap_sum as f64 / f64::from(self.paired))
        }
    }
}

/// Each round's counts, in round order.
pub(crate) fn per_round(t: &spb::Tournament) -> Vec<(u32, Counts)> {
    let rating = |id: i64| {
        t.entrants
            .iter()
            .find(|e| e.player_id == id)
            .map_or(0, |e| e.rating)
    };
    let mut rounds: std::collections::BTreeMap<u32, Counts> = std::collections::BTreeMap::new();
    for b in &t.boards {
        let c = rounds.entry(b.round).or_default();
        match spb::BoardKind::try_from(b.kind).unwrap_or(spb::BoardKind::Unspecified) {
            spb::BoardKind::Game => {
                let (white, black) = (rating(b.white_player_id), rating(b.black_player_id));
                c.paired += 1;
                c.gap_sum += u64::from(white.abs_diff(black));
                match b.result.as_str() {
                    "1-0" => {
                        c.white_wins += 1;
                        c.upsets += u32::from(white < black);
                    }
                    "0-1" => {
                        c.black_wins += 1;
                        c.upsets += u32::from(black < white);
                    }
                    "1/2-1/2" => c.draws += 1,
                    "" => c.open += 1,
                    _ => c.forfeits += 1,
                }
            }
            spb::BoardKind::PairingBye
            | spb::BoardKind::HalfPointBye
            | spb::BoardKind::ZeroPointBye => c.byes += 1,
            _ => {}
        }
    }
    rounds.into_iter().collect()
}

/// Horizontal bars, one per round: White's wins, draws and Black's wins as shares of the games
/// played, with the counts written on them.
fn chart(rounds: &[(u32, Counts)]) -> Markup {
    const W: u32 = 300;
    const ROW: u32 = 26;
    let height = ROW * rounds.len() as u32 + 24;
    let label = rounds
        .iter()
        .map(|(r, c)| {
            tr!(
                "chart-round",
                round = *r,
                white = c.white_wins,
                draws = c.draws,
                black = c.black_wins
            )
        })
        .collect::<Vec<_>>()
        .join("; ");
    html! {
        svg.results xmlns="http://www.w3.org/2000/svg" viewBox={ "0 0 " (W + 50) " " (height) } role="img" aria-label=(label) {
            @for (i, (round, c)) in rounds.iter().enumerate() {
                @let y = 4 + ROW * i as u32;
                @let played = c.played().max(1);
                @let part = |n: u32| W * n / played;
                text x="0" y=(y + 16) { (tr!("col-round-short", round = *round)) }
                @let (w, d) = (part(c.white_wins), part(c.draws));
                @let b = if c.played() == 0 { 0 } else { W - w - d };
                rect x="40" y=(y) width=(w) height=(ROW - 6) fill="#e8ece6" stroke="#596356" {}
                rect x=(40 + w) y=(y) width=(d) height=(ROW - 6) fill="#9aa596" {}
                rect x=(40 + w + d) y=(y) width=(b) height=(ROW - 6) fill="#2f3a2c" {}
                @if c.white_wins > 0 { text x=(44) y=(y + 15) fill="#1d2327" { (c.white_wins) } }
                @if c.draws > 0 { text x=(44 + w) y=(y + 15) fill="#1d2327" { (c.draws) } }
                @if c.black_wins > 0 { text x=(44 + w + d) y=(y + 15) fill="#ffffff" { (c.black_wins) } }
            }
            text x="40" y=(height - 4) font-size="11" { (tr!("chart-legend")) }
        }
    }
}

pub(crate) async fn statistics_page(
    State(mut api): State<Api>,
    Path(id): Path<String>,
) -> Response {
    let Some(id) = game_id(&id) else {
        return bad_tournament_id();
    };
    let (tournament, _) = match read(&mut api, id, 0).await {
        Ok(both) => both,
        Err(response) => return response,
    };
    let name = tournament.settings.as_ref().map_or("", |s| s.name.as_str());
    let rounds = per_round(&tournament);
    let mut total = Counts::default();
    for (_, c) in &rounds {
        total.add(c);
    }
    let row = |label: Markup, c: &Counts| {
        html! {
            tr {
                th scope="row" { (label) }
                td.num { (c.played()) } td.num { (c.white_wins) } td.num { (c.draws) }
                td.num { (c.black_wins) } td.num { (c.forfeits) } td.num { (c.byes) }
                td.num { (c.upsets) } td.num { (c.average_gap()) } td.num { (c.open) }
            }
        }
    };
    let body = html! {
        p.noprint { a href={ "/tournaments/" (id) } { "← " (name) } }
        h1 { (tr!("statistics-title", name = name)) }
        @if rounds.is_empty() {
            p { (tr!("statistics-none")) }
        } @else {
            (chart(&rounds))
            section {
                table.statistics {
                    thead { tr {
                        th scope="col" { abbr title=(tr!("stat-round-title")) { (tr!("stat-round")) } }
                        th scope="col" { abbr title=(tr!("stat-games-title")) { (tr!("stat-games")) } }
                        // Word joiners: a score does not break at its dash when the headers wrap.
                        th scope="col" { abbr title=(tr!("stat-white-title")) { "1\u{2060}–\u{2060}0" } }
                        th scope="col" { abbr title=(tr!("stat-draw-title")) { "½\u{2060}–\u{2060}½" } }
                        th scope="col" { abbr title=(tr!("stat-black-title")) { "0\u{2060}–\u{2060}1" } }
                        th scope="col" { abbr title=(tr!("stat-forfeits-title")) { (tr!("stat-forfeits")) } }
                        th scope="col" { abbr title=(tr!("stat-byes-title")) { (tr!("stat-byes")) } }
                        th scope="col" { abbr title=(tr!("stat-upsets-title")) { (tr!("stat-upsets")) } }
                        th scope="col" { abbr title=(tr!("stat-gap-title")) { (tr!("stat-gap")) } }
                        th scope="col" { abbr title=(tr!("stat-open-title")) { (tr!("stat-open")) } }
                    } }
                    tbody {
                        @for (round, c) in &rounds { (row(html! { (round) }, c)) }
                    }
                    tfoot { (row(html! { (tr!("stat-all")) }, &total)) }
                }
            }
        }
    };
    page(&tr!("statistics-title", name = name), body).into_response()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn results_upsets_and_gaps_are_counted_by_round() {
        let entrant = |id, rating| spb::Entrant {
            player_id: id,
            rating,
            ..Default::default()
        };
        let board = |round, kind: spb::BoardKind, white, black, result: &str| spb::Board {
            round,
            kind: kind.into(),
            white_player_id: white,
            black_player_id: black,
            result: result.to_owned(),
            ..Default::default()
        };
        let t = spb::Tournament {
            entrants: vec![entrant(1, 2000), entrant(2, 1800), entrant(3, 1600)],
            boards: vec![
                board(1, spb::BoardKind::Game, 1, 2, "0-1"),
                board(1, spb::BoardKind::PairingBye, 3, 0, ""),
                board(2, spb::BoardKind::Game, 3, 1, "1/2-1/2"),
                board(2, spb::BoardKind::HalfPointBye, 2, 0, ""),
                board(3, spb::BoardKind::Game, 2, 3, "+/-"),
                board(3, spb::BoardKind::Game, 1, 3, ""),
            ],
            ..Default::default()
        };
        let rounds = per_round(&t);
        assert_eq!(rounds.len(), 3);
        let first = rounds[0].1;
        assert_eq!((first.black_wins, first.upsets, first.byes), (1, 1, 1));
        assert_eq!(first.average_gap(), "200");
        assert_eq!((rounds[1].1.draws, rounds[1].1.gap_sum), (1, 400));
        assert_eq!(
            (rounds[2].1.forfeits, rounds[2].1.open, rounds[2].1.played()),
            (1, 1, 0)
        );
        let svg = chart(&rounds).into_string();
        assert!(
            svg.contains("round 1: 0 white wins, 0 draws, 1 black wins"),
            "{svg}"
        );
    }
}
