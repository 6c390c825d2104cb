//! `/tournaments/{id}`: standings, crosstable, pairings and results; and the TRF download.

use axum::extract::{Path, State};
use axum::http::{StatusCode, header};
use axum::response::{IntoResponse, Response};
use hanniball_proto::scheduler::v1 as spb;
use maud::{Markup, html};

use crate::api::{Api, Scheduler};
use crate::html::{api_error, error_page, page, page_with, points, unavailable};
use crate::i18n::{decimal, iso_date, tr};
use crate::url::{game_id, query_value};

pub(crate) fn tournament_status(status: i32) -> String {
    match spb::TournamentStatus::try_from(status) {
        Ok(spb::TournamentStatus::Registration) => tr!("status-registration"),
        Ok(spb::TournamentStatus::Running) => tr!("status-running"),
        Ok(spb::TournamentStatus::Finished) => tr!("status-finished"),
        _ => tr!("status-unknown"),
    }
}

/// The page for a path whose tournament id is not one.
pub(crate) fn bad_tournament_id() -> Response {
    error_page(StatusCode::BAD_REQUEST, &tr!("error-tournament-id"))
}

pub(crate) async fn tournament_page(
    State(mut api): State<Api>,
    Path(id): Path<String>,
    uri: axum::http::Uri,
) -> Response {
    let Some(id) = game_id(&id) else {
        return bad_tournament_id();
    };
    let after = match query_value(uri.query(), "after") {
        None => 0,
        Some(text) => match text.parse::<u32>() {
            Ok(round) if round > 0 => round,
            _ => {
                return error_page(StatusCode::BAD_REQUEST, &tr!("error-after"));
            }
        },
    };
    let (tournament, standings) = match read(&mut api, id, after).await {
        Ok(both) => both,
        Err(response) => return response,
    };
    let by_rank = query_value(uri.query(), "order").as_deref() == Some("rank");
    let complete = complete_rounds(&tournament);
    let settings = tournament.settings.clone().unwrap_or_default();
    let live = is_live(&tournament);
    let time_control = settings.time_control.map_or_else(
        || tr!("untimed"),
        |tc| hanniball_rules::record::time_control(tc.initial_ms, tc.increment_ms),
    );
    // Pairings and results, newest round first.
    let before = points_before(&tournament);
    let body = html! {
        h1 { (settings.name) }
        p id="summary" data-live[live] {
            (tournament_status(tournament.status)) " · "
            (tr!("round-of", round = tournament.current_round, rounds = tournament.rounds)) " · "
            (tr!("players-count", count = tournament.entrants.len())) " · "
            (time_control) " · "
            @if settings.over_the_board { (tr!("over-the-board")) } @else { (tr!("online")) }
            " · " a href={ "/tournaments/" (id) "/trf" } download { "TRF" }
            " · " a href={ "/tournaments/" (id) "/print" } id="print-link" { (tr!("print-link")) }
            " · " a href={ "/tournaments/" (id) "/statistics" } id="statistics-link" { (tr!("statistics-link")) }
        }
        (details(settings.details.as_ref()))
        section id="standings" {
            h2 {
                @if standings.rounds == 0 { (tr!("standings-before")) }
                @else { (tr!("standings-after", round = standings.rounds)) }
            }
            @if complete > 1 {
                nav.pages.noprint aria-label=(tr!("standings-nav")) {
                    (tr!("standings-nav-label"))
                    @for round in 1..=complete {
                        " "
                        @if round == standings.rounds {
                            strong aria-current="page" { (round) }
                        } @else {
                            a href={ "/tournaments/" (id) "?after=" (round) "#standings" } { (round) }
                        }
                    }
                }
            }
            (standings_table(id, &standings))
            (legend(&standings.tiebreak_names))
            (rules_note(&standings))
        }
        (crosstable(&tournament, &standings, by_rank, after == 0))
        (corrections(&tournament))
        @for round in rounds(&tournament).iter().rev() {
            section id={ "round-" (round) } {
                h2 {
                    (tr!("round-heading", round = *round))
                    // The round's date, when the organiser gave one (TRF 132).
                    @if let Some(date) = round_date(&tournament, *round) {
                        " · " time datetime=(date) { (iso_date(date)) }
                    }
                }
                (round_table(&tournament, *round, &before))
            }
        }
    };
    // Results come in as games end: the page follows the tournament's change notices and
    // redraws its main part; without script it reloads itself now and then.
    let head = html! {
        @if live {
            noscript { meta http-equiv="refresh" content="10"; }
            script src="/assets/tournament.js" data-tournament=(id) defer {}
        }
    };
    page_with(&settings.name, head, body).into_response()
}

/// What the organiser says of the tournament, as a definition list of the fields given
/// (nothing when none is).
fn details(details: Option<&spb::TournamentDetails>) -> Markup {
    let Some(d) = details.filter(|d| **d != spb::TournamentDetails::default()) else {
        return html! {};
    };
    let place = match (d.place.is_empty(), d.federation.is_empty()) {
        (false, false) => format!("{} ({})", d.place, d.federation),
        (true, false) => d.federation.clone(),
        _ => d.place.clone(),
    };
    let dates = match (d.start_date.as_str(), d.end_date.as_str()) {
        ("", "") => String::new(),
        (one, "") | ("", one) => iso_date(one),
        (start, end) if start == end => iso_date(start),
        (start, end) => tr!(
            "details-date-range",
            start = iso_date(start),
            end = iso_date(end)
        ),
    };
    let rows = [
        ("place", tr!("details-place"), place),
        ("dates", tr!("details-dates"), dates),
        ("organiser", tr!("details-organiser"), d.organiser.clone()),
        (
            "chief-arbiter",
            tr!("details-chief-arbiter"),
            d.chief_arbiter.clone(),
        ),
        (
            "deputies",
            tr!("details-deputies"),
            d.deputy_arbiters.join(", "),
        ),
        (
            "time-control",
            tr!("details-time-control"),
            d.time_control.clone(),
        ),
        ("rating", tr!("details-rating"), d.rating_type.clone()),
        ("rules", tr!("details-rules"), d.rules.clone()),
    ];
    let round_dates: Vec<String> = d
        .round_dates
        .iter()
        .enumerate()
        .filter(|(_, date)| !date.is_empty())
        .map(|(i, date)| tr!("details-round-date", round = i + 1, date = iso_date(date)))
        .collect();
    html! {
        section id="details" {
            h2 { (tr!("details-heading")) }
            dl {
                @for (key, label, value) in rows.iter().filter(|(_, _, v)| !v.is_empty()) {
                    dt { (label) }
                    dd id={ "details-" (key) } { (value) }
                }
                @if !round_dates.is_empty() {
                    dt { (tr!("details-round-dates")) }
                    dd id="details-round-dates" { (round_dates.join("; ")) }
                }
                @if !d.note.is_empty() {
                    dt { (tr!("details-note")) }
                    dd id="details-note" { (d.note) }
                }
            }
        }
    }
}

/// `/tournaments/{id}/print`: what a club pins on the wall. Each round's pairings on a sheet of
/// its own in large type (`?round=N`: that round only), then the standings; printed, each sheet
/// is a page.
pub(crate) async fn print_page(
    State(mut api): State<Api>,
    Path(id): Path<String>,
    uri: axum::http::Uri,
) -> Response {
    let Some(id) = game_id(&id) else {
        return bad_tournament_id();
    };
    let (tournament, standings) = match read(&mut api, id, 0).await {
        Ok(both) => both,
        Err(response) => return response,
    };
    let all = rounds(&tournament);
    let wanted = match query_value(uri.query(), "round") {
        None => all.clone(),
        Some(text) => match text.parse::<u32>() {
            Ok(round) if all.contains(&round) => vec![round],
            _ => {
                return error_page(StatusCode::NOT_FOUND, &tr!("error-no-round", round = text));
            }
        },
    };
    let settings = tournament.settings.clone().unwrap_or_default();
    let name = &settings.name;
    let before = points_before(&tournament);
    let body = html! {
        // On screen only: each printed sheet carries the name in its own heading.
        h1.noprint { (tr!("print-title", name = name)) }
        p.noprint {
            a href={ "/tournaments/" (id) } { (tr!("print-back", name = name)) }
            " · " (tr!("print-note"))
        }
        @for round in &wanted {
            section.sheet id={ "sheet-round-" (round) } {
                h2 { (tr!("print-round", name = name, round = *round)) }
                (round_table(&tournament, *round, &before))
            }
        }
        section.sheet id="sheet-standings" {
            h2 { (tr!("print-standings", name = name, round = standings.rounds)) }
            (standings_table(id, &standings))
            (legend(&standings.tiebreak_names))
            (rules_note(&standings))
        }
    };
    page(&tr!("print-title", name = name), body).into_response()
}

/// A tournament and its standings, both asked for at once (a large tournament's page waits for
/// the slower call, not for the sum); an error page if either fails.
pub(crate) async fn read(
    api: &mut Api,
    id: i64,
    after_round: u32,
) -> Result<(spb::Tournament, spb::GetStandingsResponse), Response> {
    let Some(scheduler) = api.scheduler.as_mut() else {
        return Err(unavailable(crate::html::Missing::Tournaments));
    };
    let mut other = scheduler.clone();
    let (tournament, standings) = tokio::join!(
        tournament_of(scheduler, id),
        other.get_standings(spb::GetStandingsRequest {
            tournament_id: id,
            after_round,
        })
    );
    let tournament = tournament.map_err(|status| api_error(&status))?;
    let standings = standings.map_err(|status| api_error(&status))?.into_inner();
    Ok((tournament, standings))
}

/// How many rounds are complete: every game of them has a result (a round still being played
/// is not counted).
fn complete_rounds(tournament: &spb::Tournament) -> u32 {
    rounds(tournament)
        .into_iter()
        .take_while(|round| {
            tournament
                .boards
                .iter()
                .filter(|b| b.round == *round && b.kind == spb::BoardKind::Game as i32)
                .all(|b| !b.result.is_empty())
        })
        .count() as u32
}

/// A player's name in a tournament, linking to their card for it.
pub(crate) fn card_link(tournament: i64, id: i64, name: &str) -> Markup {
    html! {
        @if id > 0 {
            a href={ "/tournaments/" (tournament) "/players/" (id) } { (crate::html::breakable(name)) }
        } @else { (crate::html::breakable(name)) }
    }
}

/// The date the details give round `round` (1-based), if any.
fn round_date(tournament: &spb::Tournament, round: u32) -> Option<&str> {
    let details = tournament.settings.as_ref()?.details.as_ref()?;
    let date = details.round_dates.get(round.checked_sub(1)? as usize)?;
    (!date.is_empty()).then_some(date.as_str())
}

/// The rounds with boards, in order.
fn rounds(tournament: &spb::Tournament) -> Vec<u32> {
    let mut rounds: Vec<u32> = tournament.boards.iter().map(|b| b.round).collect();
    rounds.sort_unstable();
    rounds.dedup();
    rounds
}

/// What each tie-break acronym means (FIDE Handbook C.07), cut forms included (`BH-C2`,
/// `BH-M1`, `ARO-C1`).
pub(crate) fn tiebreak_meaning(acronym: &str) -> Option<String> {
    if acronym == "BH-C1" {
        return Some(tr!("tb-bh-c1"));
    }
    let (base, cut) = acronym.split_once('-').unwrap_or((acronym, ""));
    let meaning = match base {
        "BH" => tr!("tb-bh"),
        "FB" => tr!("tb-fb"),
        "AOB" => tr!("tb-aob"),
        "SB" => tr!("tb-sb"),
        "PS" => tr!("tb-ps"),
        "KS" => tr!("tb-ks"),
        "DE" => tr!("tb-de"),
        "WIN" => tr!("tb-win"),
        "WON" => tr!("tb-won"),
        "STD" => tr!("tb-std"),
        "BPG" => tr!("tb-bpg"),
        "BWG" => tr!("tb-bwg"),
        "REP" | "GE" => tr!("tb-rep"),
        "VUR" => tr!("tb-vur"),
        "ARO" => tr!("tb-aro"),
        "TPR" => tr!("tb-tpr"),
        "PTP" => tr!("tb-ptp"),
        "APRO" => tr!("tb-apro"),
        "APPO" => tr!("tb-appo"),
        "RTNG" => tr!("tb-rtng"),
        "TPN" => tr!("tb-tpn"),
        _ => return None,
    };
    let number = |text: &str| text.parse::<u32>().ok().filter(|n| *n > 0);
    let cut = match (cut.chars().next(), cut.get(1..).and_then(number)) {
        (None, _) => return Some(meaning),
        (Some('C'), Some(n)) if !cut.contains('H') => tr!("tb-cut-lowest", count = n),
        (Some('M'), Some(n)) => tr!("tb-cut-median", count = n),
        _ => tr!("tb-cut-other"),
    };
    Some(tr!("tb-with-cut", meaning = meaning, cut = cut))
}

/// The standings as a table whose rank and player columns stay in view when it scrolls.
fn standings_table(tournament: i64, standings: &spb::GetStandingsResponse) -> Markup {
    html! {
        table.fixed.standings {
            thead { tr {
                th scope="col" { abbr title=(tr!("col-rank-title")) { (tr!("col-rank")) } }
                th.name scope="col" { (tr!("col-player")) }
                th.rating scope="col" { (tr!("col-rating")) }
                th scope="col" { (tr!("col-points")) }
                @for tiebreak in &standings.tiebreak_names {
                    @match tiebreak_meaning(tiebreak) {
                        Some(meaning) => { th scope="col" { abbr title=(meaning) { (tiebreak) } } }
                        None => { th scope="col" { (tiebreak) } }
                    }
                }
            } }
            tbody {
                @for row in &standings.standings {
                    tr {
                        td { (row.rank) }
                        td.name { (card_link(tournament, row.player_id, &row.name)) }
                        td.rating { (row.rating) }
                        td { (decimal(&row.points)) }
                        @for value in &row.tiebreaks { td { (decimal(value)) } }
                    }
                }
            }
        }
    }
}

/// The legend of the standings' tie-break columns.
fn legend(names: &[String]) -> Markup {
    html! {
        @if !names.is_empty() {
            dl.legend id="tiebreak-legend" {
                @for name in names {
                    dt { (name) }
                    dd { (tiebreak_meaning(name).unwrap_or_else(|| tr!("tb-unknown"))) }
                }
            }
        }
    }
}

/// Which text of FIDE C.07 the standings follow and how they count unrated players: two
/// organisers with the same tie-break list can rank the same results differently.
fn rules_note(standings: &spb::GetStandingsResponse) -> Markup {
    if standings.tiebreak_rules.is_empty() {
        return html! {};
    }
    let unrated = match standings.tiebreak_unrated.as_str() {
        "" | "drop" => tr!("unrated-drop"),
        "ignore" => tr!("unrated-ignore"),
        rating => tr!("unrated-as", rating = rating),
    };
    html! {
        p id="tiebreak-rules" {
            (tr!("tiebreak-rules", text = standings.tiebreak_rules.as_str(), unrated = unrated))
        }
    }
}

/// Half-points a player got from one board (nothing yet for a game still on).
fn board_halves(board: &spb::Board, me: i64, bye_halves: u32) -> u32 {
    match spb::BoardKind::try_from(board.kind).unwrap_or(spb::BoardKind::Unspecified) {
        spb::BoardKind::Game => {
            let white = board.white_player_id == me;
            match (board.result.as_str(), white) {
                ("1-0" | "+/-", true) | ("0-1" | "-/+", false) => 2,
                ("1/2-1/2", _) => 1,
                _ => 0,
            }
        }
        spb::BoardKind::PairingBye => bye_halves,
        spb::BoardKind::HalfPointBye => 1,
        _ => 0,
    }
}

/// The pairing-allocated bye's half-points (a win's unless the settings say otherwise).
fn bye_halves(tournament: &spb::Tournament) -> u32 {
    let settings = tournament.settings.clone().unwrap_or_default();
    if settings.bye_points == 0 && !settings.bye_points_set {
        2
    } else {
        settings.bye_points
    }
}

/// Each player's half-points before each round: (round, player) → half-points scored in the
/// rounds before it.
fn points_before(tournament: &spb::Tournament) -> std::collections::HashMap<(u32, i64), u32> {
    let bye = bye_halves(tournament);
    let mut scored: std::collections::HashMap<(u32, i64), u32> =
        std::collections::HashMap::with_capacity(2 * tournament.boards.len());
    for b in &tournament.boards {
        *scored.entry((b.round, b.white_player_id)).or_default() +=
            board_halves(b, b.white_player_id, bye);
        if b.black_player_id > 0 {
            *scored.entry((b.round, b.black_player_id)).or_default() +=
                board_halves(b, b.black_player_id, bye);
        }
    }
    let last = tournament.boards.iter().map(|b| b.round).max().unwrap_or(0);
    let mut before =
        std::collections::HashMap::with_capacity(tournament.entrants.len() * last as usize);
    for entrant in &tournament.entrants {
        let mut sum = 0;
        for round in 1..=last {
            before.insert((round, entrant.player_id), sum);
            sum += scored
                .get(&(round, entrant.player_id))
                .copied()
                .unwrap_or(0);
        }
    }
    before
}

/// One round's pairings and results: each player with the points they had before the round,
/// byes with the points they gave.
fn round_table(
    tournament: &spb::Tournament,
    round: u32,
    before: &std::collections::HashMap<(u32, i64), u32>,
) -> Markup {
    let names: std::collections::HashMap<i64, &str> = tournament
        .entrants
        .iter()
        .map(|e| (e.player_id, e.name.as_str()))
        .collect();
    let seat = |id: i64| {
        let name = names
            .get(&id)
            .map_or_else(|| tr!("player-number", id = id), |n| (*n).to_owned());
        html! {
            (card_link(tournament.id, id, &name)) " " small { "(" (points(before.get(&(round, id)).copied().unwrap_or(0))) ")" }
        }
    };
    let bye = bye_halves(tournament);
    html! {
        table.pairings {
            thead { tr {
                th scope="col" { (tr!("col-board")) } th scope="col" { (tr!("col-white")) }
                th scope="col" { (tr!("col-result")) } th scope="col" { (tr!("col-black")) }
            } }
            tbody {
                @for b in tournament.boards.iter().filter(|b| b.round == round) {
                    @let kind = spb::BoardKind::try_from(b.kind).unwrap_or(spb::BoardKind::Unspecified);
                    tr {
                        td { (b.number) }
                        td { (seat(b.white_player_id)) }
                        @match kind {
                            spb::BoardKind::Game => {
                                td {
                                    @if b.game_id > 0 {
                                        a href={ "/games/" (b.game_id) } {
                                            @if b.result.is_empty() { (tr!("playing")) } @else { (b.result) }
                                        }
                                    } @else { (b.result) }
                                }
                                td { (seat(b.black_player_id)) }
                            }
                            spb::BoardKind::PairingBye => { td { (points(bye)) } td { (tr!("bye")) } }
                            spb::BoardKind::HalfPointBye => { td { (points(1)) } td { (tr!("bye-half")) } }
                            spb::BoardKind::ZeroPointBye => { td { (points(0)) } td { (tr!("bye-zero")) } }
                            _ => { td { (points(0)) } td { (tr!("absent")) } }
                        }
                    }
                }
            }
        }
    }
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
pub(crate) fn cross_cell(
    board: &spb::Board,
    me: i64,
    ranks: &std::collections::HashMap<i64, u32>,
) -> String {
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
                if white {
                    tr!("cross-white")
                } else {
                    tr!("cross-black")
                }
            )
        }
        spb::BoardKind::PairingBye => "+".to_owned(),
        spb::BoardKind::HalfPointBye => "½".to_owned(),
        spb::BoardKind::ZeroPointBye => "0".to_owned(),
        _ => "-".to_owned(),
    }
}

/// The crosstable: a row per player, by starting rank or (`by_rank`) by the standings' final
/// rank, a column per round; each cell names the opponent by the number of the table's order.
fn crosstable(
    tournament: &spb::Tournament,
    standings: &spb::GetStandingsResponse,
    by_rank: bool,
    with_tiebreaks: bool,
) -> Markup {
    let rounds = tournament.boards.iter().map(|b| b.round).max().unwrap_or(0);
    if rounds == 0 {
        return html! {};
    }
    let mut entrants: Vec<&spb::Entrant> = tournament.entrants.iter().collect();
    entrants.sort_by_key(|e| (e.start_rank, e.player_id));
    let mut numbers: std::collections::HashMap<i64, u32> = entrants
        .iter()
        .map(|e| (e.player_id, e.start_rank))
        .collect();
    if by_rank {
        let place: std::collections::HashMap<i64, usize> = standings
            .standings
            .iter()
            .enumerate()
            .map(|(i, s)| (s.player_id, i))
            .collect();
        entrants.sort_by_key(|e| {
            (
                place.get(&e.player_id).copied().unwrap_or(usize::MAX),
                e.start_rank,
            )
        });
        // Places, not ranks: tied players share a rank, but each row needs its own number.
        numbers = standings
            .standings
            .iter()
            .zip(1..)
            .map(|(s, place)| (s.player_id, place))
            .collect();
    }
    // (round, player) → the board: a lookup per cell instead of a scan of every board.
    let mut seat: std::collections::HashMap<(u32, i64), &spb::Board> =
        std::collections::HashMap::with_capacity(2 * tournament.boards.len());
    for b in &tournament.boards {
        seat.entry((b.round, b.white_player_id)).or_insert(b);
        if b.black_player_id > 0 {
            seat.entry((b.round, b.black_player_id)).or_insert(b);
        }
    }
    let id = tournament.id;
    let tiebreaks: std::collections::HashMap<i64, &[String]> = standings
        .standings
        .iter()
        .map(|s| (s.player_id, s.tiebreaks.as_slice()))
        .collect();
    html! {
        section id="crosstable" {
            h2 { (tr!("crosstable")) }
            p.noprint {
                @if by_rank {
                    a href={ "/tournaments/" (id) "#crosstable" } { (tr!("by-start-rank")) }
                    " · " strong { (tr!("by-final-rank")) }
                } @else {
                    strong { (tr!("by-start-rank")) }
                    " · " a href={ "/tournaments/" (id) "?order=rank#crosstable" } id="by-rank" { (tr!("by-final-rank")) }
                }
            }
            table.cross.fixed {
                thead { tr {
                    th scope="col" {
                        @if by_rank {
                            abbr title=(tr!("col-final-rank-title")) { (tr!("col-rank")) }
                        } @else {
                            abbr title=(tr!("col-start-rank-title")) { (tr!("col-number")) }
                        }
                    }
                    th.name scope="col" { (tr!("col-player")) }
                    @for round in 1..=rounds { th scope="col" { (tr!("col-round-short", round = round)) } }
                    th scope="col" { (tr!("col-points")) }
                    @if with_tiebreaks {
                        @for name in &standings.tiebreak_names { th scope="col" { (name) } }
                    }
                } }
                tbody {
                    @for entrant in &entrants {
                        tr {
                            td { (numbers.get(&entrant.player_id).copied().unwrap_or(0)) }
                            th.name scope="row" { (card_link(id, entrant.player_id, &entrant.name)) }
                            @for round in 1..=rounds {
                                td {
                                    (seat.get(&(round, entrant.player_id))
                                        .map_or_else(String::new, |b| cross_cell(b, entrant.player_id, &numbers)))
                                }
                            }
                            td { (points(entrant.score_halves)) }
                            @if with_tiebreaks {
                                @let values = tiebreaks.get(&entrant.player_id).copied().unwrap_or_default();
                                @for i in 0..standings.tiebreak_names.len() {
                                    td { (decimal(values.get(i).map_or("", String::as_str))) }
                                }
                            }
                        }
                    }
                }
            }
        }
    }
}

pub(crate) async fn trf_download(State(mut api): State<Api>, Path(id): Path<String>) -> Response {
    let Some(id) = game_id(&id) else {
        return bad_tournament_id();
    };
    let Some(scheduler) = api.scheduler.as_mut() else {
        return unavailable(crate::html::Missing::Tournaments);
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

/// The tournament's result corrections, oldest first (nothing when there are none).
fn corrections(t: &spb::Tournament) -> Markup {
    html! {
        @if !t.corrections.is_empty() {
            section id="corrections" {
                h2 { (tr!("corrections")) }
                div.scroll tabindex="0" {
                    table {
                        thead { tr {
                            th scope="col" { (tr!("col-board")) } th scope="col" { (tr!("col-was")) }
                            th scope="col" { (tr!("col-now")) } th scope="col" { (tr!("col-by")) }
                            th scope="col" { (tr!("col-why")) }
                        } }
                        tbody {
                            @for c in &t.corrections {
                                tr {
                                    td { (c.round) "." (c.board) }
                                    td { (c.previous) } td { (c.result) } td { (c.by) }
                                    td {
                                        (c.note)
                                        @if c.after_pairing { " " (tr!("correction-after-pairing")) }
                                    }
                                }
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
    fn every_tiebreak_of_the_list_is_explained_with_its_cut() {
        let check = |acronym: &str, expected: Option<&str>| {
            assert_eq!(tiebreak_meaning(acronym).as_deref(), expected, "{acronym}");
        };
        check(
            "BH-C1",
            Some("Buchholz Cut-1: Buchholz without the lowest opponent's score"),
        );
        check(
            "BH-C2",
            Some("Buchholz: the sum of the opponents' scores, without the 2 lowest"),
        );
        check(
            "BH-M1",
            Some("Buchholz: the sum of the opponents' scores, without the highest and the lowest"),
        );
        check(
            "ARO-C1",
            Some("the average rating of the opponents, without the lowest"),
        );
        check(
            "KS",
            Some("Koya: the points scored against opponents with at least half the points"),
        );
        check("XYZ", None);
        for name in [
            "BH", "FB", "AOB", "SB", "PS", "KS", "DE", "WIN", "WON", "STD", "BPG", "BWG", "REP",
            "GE", "VUR", "ARO", "TPR", "PTP", "APRO", "APPO", "RTNG", "TPN",
        ] {
            assert!(tiebreak_meaning(name).is_some(), "{name}");
        }
    }

    #[test]
    fn the_rules_note_names_the_text_and_the_unrated_policy() {
        let note = |rules: &str, unrated: &str| {
            rules_note(&spb::GetStandingsResponse {
                tiebreak_rules: rules.to_owned(),
                tiebreak_unrated: unrated.to_owned(),
                ..Default::default()
            })
            .into_string()
        };
        assert_eq!(
            note("2024", "1400"),
            "<p id=\"tiebreak-rules\">Tie-breaks follow FIDE C.07, 2024 text. \
             Unrated players: they count as rated 1400.</p>"
        );
        assert!(note("2026", "drop").contains("2026 text. Unrated players: rating-based"));
        assert!(note("2026", "ignore").contains("rated opponents only"));
        // An older server that does not say: nothing rather than a guess.
        assert_eq!(note("", ""), "");
    }

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

    #[test]
    fn points_before_a_round_count_results_and_byes() {
        let board = |round, number, kind: spb::BoardKind, white, black, result: &str| spb::Board {
            round,
            number,
            kind: kind.into(),
            white_player_id: white,
            black_player_id: black,
            result: result.to_owned(),
            ..Default::default()
        };
        let entrant = |id| spb::Entrant {
            player_id: id,
            ..Default::default()
        };
        let mut tournament = spb::Tournament {
            entrants: vec![entrant(1), entrant(2), entrant(3)],
            boards: vec![
                board(1, 1, spb::BoardKind::Game, 1, 2, "1-0"),
                board(1, 2, spb::BoardKind::PairingBye, 3, 0, ""),
                board(2, 1, spb::BoardKind::Game, 3, 1, "1/2-1/2"),
                board(2, 2, spb::BoardKind::HalfPointBye, 2, 0, ""),
                board(3, 1, spb::BoardKind::Game, 2, 3, "-/+"),
                board(3, 2, spb::BoardKind::ZeroPointBye, 1, 0, ""),
            ],
            ..Default::default()
        };
        let before = points_before(&tournament);
        let halves = |round, id| before.get(&(round, id)).copied();
        assert_eq!([halves(1, 1), halves(1, 2), halves(1, 3)], [Some(0); 3]);
        assert_eq!(
            [halves(2, 1), halves(2, 2), halves(2, 3)],
            [Some(2), Some(0), Some(2)]
        );
        assert_eq!(
            [halves(3, 1), halves(3, 2), halves(3, 3)],
            [Some(3), Some(1), Some(3)]
        );
        // The bye shows its points; a tournament whose bye is worth a draw says so.
        let table = round_table(&tournament, 1, &before).into_string();
        assert!(table.contains("<td>1</td><td>bye</td>"), "{table}");
        assert!(table.contains("(0)</small>"), "{table}");
        tournament.settings = Some(spb::TournamentSettings {
            bye_points: 1,
            ..Default::default()
        });
        let table = round_table(&tournament, 1, &points_before(&tournament)).into_string();
        assert!(table.contains("<td>0.5</td><td>bye</td>"), "{table}");
        assert_eq!(points_before(&tournament).get(&(2, 3)), Some(&1));
    }
}
