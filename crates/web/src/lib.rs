//! Web pages for players and spectators, served over HTTP. The web part is a client of the public
//! gRPC API like any bot (it calls the arbiter with a token of its own, read calls only), so it
//! runs in the all-in-one `hanniball serve` or as its own process, and never sees more than the
//! API shows. Pages are plain server-rendered HTML, readable without JavaScript; a game's page
//! updates live through server-sent events (`/games/{id}/events`, from `WatchGame`). No asset
//! comes from another site: styles and the few lines of script are in the page.
//!
//! Pages: `/` (live and recent games), `/games/{id}` (board, players, clocks, turns, record),
//! `/games/{id}/record` (the game record, docs/RULES.md Part 3), `/games/{id}/events` (SSE).
//!
//! What this crate does NOT do: no SQL, no rules of its own (it draws positions with the rules
//! crate's renderer), no process set-up.

use std::convert::Infallible;
use std::fmt::Write as _;
use std::time::Duration;

use axum::Router;
use axum::extract::{Path, State};
use axum::http::{StatusCode, header};
use axum::response::sse::{Event, KeepAlive, Sse};
use axum::response::{Html, IntoResponse, Response};
use axum::routing::get;
use hanniball_client::{Bearer, ClientTls};
use hanniball_proto::accounts::v1 as apb;
use hanniball_proto::accounts::v1::accounts_client::AccountsClient;
use hanniball_proto::arbiter::v1 as pb;
use hanniball_proto::arbiter::v1::arbiter_client::ArbiterClient;
use hanniball_proto::rating::v1 as rpb;
use hanniball_proto::rating::v1::rating_client::RatingClient;
use hanniball_proto::scheduler::v1 as spb;
use hanniball_proto::scheduler::v1::scheduler_client::SchedulerClient;
use hanniball_rules::record::GameRecord;
use tokio_stream::StreamExt;
use tokio_util::sync::CancellationToken;
use tonic::service::interceptor::InterceptedService;
use tonic::transport::Channel;

type Arbiter = ArbiterClient<InterceptedService<Channel, Bearer>>;
type Accounts = AccountsClient<InterceptedService<Channel, Bearer>>;
type Scheduler = SchedulerClient<InterceptedService<Channel, Bearer>>;
type Rating = RatingClient<InterceptedService<Channel, Bearer>>;

/// Where the web part finds the API, and as whom it calls.
#[derive(Clone, Debug)]
pub struct WebOptions {
    /// The arbiter (accounts are served with it); several URLs separated by commas balance.
    pub arbiter_url: String,
    /// The scheduler, for tournament pages (`None`: none).
    pub scheduler_url: Option<String>,
    /// The rating service, for ladder pages (`None`: none).
    pub rating_url: Option<String>,
    /// The token the pages call with (read calls only).
    pub token: String,
    pub tls: ClientTls,
}

#[derive(Clone)]
struct Api {
    arbiter: Arbiter,
    accounts: Accounts,
    scheduler: Option<Scheduler>,
    rating: Option<Rating>,
    feeds: std::sync::Arc<Feeds>,
    tournaments: std::sync::Arc<TournamentFeeds>,
}

/// Live updates of the games being watched: one upstream `WatchGame` stream per game, however
/// many pages watch it, fanned out to them in this process (a thousand spectators cost the
/// arbiter one stream, and the web part's token one open call).
type Feeds = Channels<std::sync::Arc<str>>;

/// Updates a page may fall behind before it is told to reload.
const FEED_BUFFER: usize = 64;

/// Change notices of the tournaments being watched: one poller per tournament in this process,
/// however many pages watch it, asking the scheduler for the tournament every
/// [`TOURNAMENT_POLL`] and telling the pages when anything in it changed (a result, a new round,
/// an entrant). The scheduler has no watch stream: its replicas share only the database, so one
/// would need a notification channel between them; a poll per watched tournament per second is
/// cheap and works against any replica.
type TournamentFeeds = Channels<()>;

/// The broadcast channel of each watched game or tournament, by id.
struct Channels<T>(
    std::sync::Mutex<std::collections::HashMap<i64, tokio::sync::broadcast::Sender<T>>>,
);

impl<T> Default for Channels<T> {
    fn default() -> Self {
        Channels(std::sync::Mutex::default())
    }
}

impl<T> Channels<T> {
    fn lock(
        &self,
    ) -> std::sync::MutexGuard<'_, std::collections::HashMap<i64, tokio::sync::broadcast::Sender<T>>>
    {
        self.0
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// Drops `feed`, the channel of `id` whose source has ended, unless a newer one has
    /// replaced it meanwhile.
    fn forget(&self, id: i64, feed: &tokio::sync::broadcast::Sender<T>) {
        let mut feeds = self.lock();
        if feeds
            .get(&id)
            .is_some_and(|current| current.same_channel(feed))
        {
            feeds.remove(&id);
        }
    }
}

/// How often a watched tournament is asked for.
const TOURNAMENT_POLL: Duration = Duration::from_secs(1);

/// The web pages as an axum router.
///
/// # Errors
/// A bad arbiter URL or TLS file.
pub fn router(options: &WebOptions) -> Result<Router, hanniball_client::ConnectError> {
    let channel = hanniball_client::connect_with(&options.arbiter_url, &options.tls)?;
    let bearer = Bearer::new(&options.token);
    let other = |url: &Option<String>| {
        url.as_deref()
            .map(|url| hanniball_client::connect_with(url, &options.tls))
            .transpose()
    };
    let api = Api {
        arbiter: ArbiterClient::with_interceptor(channel.clone(), bearer.clone()),
        accounts: AccountsClient::with_interceptor(channel, bearer.clone()),
        scheduler: other(&options.scheduler_url)?
            .map(|c| SchedulerClient::with_interceptor(c, bearer.clone())),
        rating: other(&options.rating_url)?.map(|c| RatingClient::with_interceptor(c, bearer)),
        feeds: std::sync::Arc::default(),
        tournaments: std::sync::Arc::default(),
    };
    let router = Router::new()
        .route("/", get(home))
        .route("/rules", get(rules_page))
        .route("/tournaments/{id}", get(tournament_page))
        .route("/tournaments/{id}/trf", get(trf_download))
        .route("/tournaments/{id}/events", get(tournament_events))
        .route("/ladders/{*name}", get(ladder_page))
        .route("/players/{id}", get(player_page))
        .route("/games/{id}", get(game_page))
        .route("/games/{id}/record", get(record_download))
        .route("/games/{id}/events", get(game_events))
        .route("/favicon.ico", get(favicon))
        .route("/favicon.svg", get(favicon))
        .fallback(not_found)
        .with_state(api);
    // What every answer carries: security headers (scripts and styles only from the page
    // itself, no framing, no MIME sniffing, no referrer beyond the site), `Cache-Control` (pages
    // are live: revalidate; the icon sets its own) and gzip for clients that accept it.
    let fixed = |name, value: &'static str| {
        tower_http::set_header::SetResponseHeaderLayer::if_not_present(
            name,
            axum::http::HeaderValue::from_static(value),
        )
    };
    Ok(router
        .layer(fixed(
            header::CONTENT_SECURITY_POLICY,
            "default-src 'self'; script-src 'self' 'unsafe-inline'; style-src 'self' 'unsafe-inline'; \
             img-src 'self' data:; connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; \
             form-action 'self'",
        ))
        .layer(fixed(header::X_CONTENT_TYPE_OPTIONS, "nosniff"))
        .layer(fixed(header::X_FRAME_OPTIONS, "DENY"))
        .layer(fixed(header::REFERRER_POLICY, "same-origin"))
        .layer(fixed(header::CACHE_CONTROL, "no-cache"))
        .layer(tower_http::compression::CompressionLayer::new()))
}

/// The site's icon: a ball on a pitch.
async fn favicon() -> Response {
    (
        [
            (header::CONTENT_TYPE, "image/svg+xml"),
            (header::CACHE_CONTROL, "public, max-age=86400"),
        ],
        "<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 16 16\">\
         <rect width=\"16\" height=\"16\" rx=\"3\" fill=\"#2d5a27\"/>\
         <circle cx=\"8\" cy=\"8\" r=\"4.5\" fill=\"#fff\" stroke=\"#1d2327\"/></svg>",
    )
        .into_response()
}

/// Serves `router` on `listener` until `shutdown`.
///
/// # Errors
/// The listener fails.
pub async fn serve(
    listener: tokio::net::TcpListener,
    router: Router,
    shutdown: CancellationToken,
) -> std::io::Result<()> {
    axum::serve(listener, router)
        .with_graceful_shutdown(shutdown.cancelled_owned())
        .await
}

/// A player's name linking to their page (the name alone for an unknown id).
fn player_link(id: i64, name: &str) -> String {
    if id > 0 {
        format!("<a href=\"/players/{id}\">{}</a>", esc(name))
    } else {
        esc(name)
    }
}

/// HTML-escapes text for element content and attribute values.
fn esc(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

const STYLE: &str = "body{font-family:system-ui,sans-serif;margin:0;color:#1d2327;background:#f4f6f3}\
header{background:#2d5a27;color:#fff;padding:.6rem 1rem}header a{color:#fff;text-decoration:none;font-weight:bold}\
main{max-width:60rem;margin:0 auto;padding:1rem}section{overflow-x:auto}table{border-collapse:collapse;width:100%}\
th,td{text-align:left;padding:.3rem .5rem;border-bottom:1px solid #d5dbd2}\
.game{display:flex;flex-wrap:wrap;gap:1.5rem}.board{width:100%;max-width:26rem;height:auto}\
.side{flex:1;min-width:16rem}.clock{font-variant-numeric:tabular-nums;font-size:1.4rem}\
.running{font-weight:bold;color:#2d5a27}ol.turns{max-height:24rem;overflow:auto;font-family:monospace}\
pre{background:#fff;padding:.5rem;overflow:auto}input[type=number]{width:5rem}[aria-current]{font-weight:bold;color:#1d2327}\
a:focus,button:focus{outline:3px solid #a04d00}\
.rules-board{max-width:26rem;margin:1rem 0}.rules-board svg{width:100%;height:auto}\
.game>#board{flex:1 1 20rem;max-width:30rem}\
:root{color-scheme:light dark}\
@media (prefers-color-scheme:dark){body{color:#e3e7e1;background:#121712}th,td{border-bottom-color:#3a4438}\
pre{background:#1e251d;color:#e3e7e1}a{color:#8ab4f8}a:visited{color:#c58af9}[aria-current]{color:#fff}\
.running{color:#7fd36f}a:focus,button:focus{outline-color:#ffb347}}";

/// A whole page around `body`.
fn page(title: &str, body: &str) -> Html<String> {
    Html(format!(
        "<!doctype html><html lang=\"en\"><head><meta charset=\"utf-8\">\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\
         <title>{} · HanniBall</title><link rel=\"icon\" href=\"/favicon.svg\" type=\"image/svg+xml\">\
         <style>{STYLE}</style></head><body>\
         <header><nav aria-label=\"site\"><a href=\"/\">HanniBall</a> · <a href=\"/rules\">Rules</a></nav></header>\
         <main>{body}</main></body></html>",
        esc(title)
    ))
}

/// An error page with its HTTP status.
fn error_page(status: StatusCode, message: &str) -> Response {
    (
        status,
        page(
            status.canonical_reason().unwrap_or("error"),
            &format!("<h1>{}</h1><p>{}</p>", status.as_u16(), esc(message)),
        ),
    )
        .into_response()
}

async fn not_found() -> Response {
    error_page(StatusCode::NOT_FOUND, "No such page.")
}

/// The HTTP answer for a failed API call.
fn api_error(status: &tonic::Status) -> Response {
    match status.code() {
        tonic::Code::NotFound => error_page(StatusCode::NOT_FOUND, status.message()),
        tonic::Code::InvalidArgument => error_page(StatusCode::BAD_REQUEST, status.message()),
        tonic::Code::Unavailable => error_page(
            StatusCode::SERVICE_UNAVAILABLE,
            "The game server is not reachable; try again shortly.",
        ),
        _ => {
            tracing::warn!(code = ?status.code(), message = status.message(), "web: API call failed");
            error_page(
                StatusCode::BAD_GATEWAY,
                "The game server answered with an error.",
            )
        }
    }
}

/// A game id from the path (`None`: not a positive number).
fn game_id(text: &str) -> Option<i64> {
    text.parse::<i64>().ok().filter(|id| *id > 0)
}

/// The page for a path whose game id is not one.
fn bad_game_id() -> Response {
    error_page(StatusCode::BAD_REQUEST, "A game id is a positive number.")
}

impl Api {
    async fn name(&mut self, id: i64) -> String {
        let request = apb::GetPlayerRequest {
            player: Some(apb::get_player_request::Player::Id(id)),
        };
        match self.accounts.get_player(request).await {
            Ok(answer) => answer
                .into_inner()
                .player
                .map_or_else(|| format!("player {id}"), |p| p.name),
            Err(_) => format!("player {id}"),
        }
    }

    async fn game(&mut self, id: i64) -> Result<pb::Game, tonic::Status> {
        self.arbiter
            .get_game(pb::GetGameRequest { game_id: id })
            .await?
            .into_inner()
            .game
            .ok_or_else(|| tonic::Status::internal("no game in the answer"))
    }

    async fn games(&mut self, status: pb::GameStatus) -> Result<Vec<pb::Game>, tonic::Status> {
        Ok(self
            .arbiter
            .list_games(pb::ListGamesRequest {
                status: status.into(),
                limit: 30,
                ..Default::default()
            })
            .await?
            .into_inner()
            .games)
    }
}

/// `1-0`, `0-1`, `1/2-1/2` or `*`.
fn score(state: Option<&pb::GameState>) -> &'static str {
    match state
        .and_then(|s| s.result.as_ref())
        .and_then(|r| pb::Outcome::try_from(r.outcome).ok())
    {
        Some(pb::Outcome::WhiteWins) => "1-0",
        Some(pb::Outcome::BlackWins) => "0-1",
        Some(pb::Outcome::Draw) => "1/2-1/2",
        _ => "*",
    }
}

async fn home(State(mut api): State<Api>) -> Response {
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
        for game in &games {
            let white = api.name(game.white_player_id).await;
            let black = api.name(game.black_player_id).await;
            let turns = game
                .state
                .as_ref()
                .map_or(0, |s| s.next_turn_number.saturating_sub(1));
            let _ = write!(
                body,
                "<tr><td><a href=\"/games/{id}\">{id} · {kind}</a></td><td>{}</td><td>{}</td>\
                 <td>{turns}</td><td>{}</td></tr>",
                esc(&white),
                esc(&black),
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
                    let _ = write!(body, "<li>{} {:.0}</li>", esc(&entry.name), entry.rating);
                }
                body.push_str("</ol>");
            }
        }
        body.push_str("</section>");
    }
    page("HanniBall", &body).into_response()
}

fn tournament_status(status: i32) -> &'static str {
    match spb::TournamentStatus::try_from(status) {
        Ok(spb::TournamentStatus::Registration) => "open for registration",
        Ok(spb::TournamentStatus::Running) => "running",
        Ok(spb::TournamentStatus::Finished) => "finished",
        _ => "unknown",
    }
}

fn unavailable(what: &str) -> Response {
    error_page(
        StatusCode::NOT_FOUND,
        &format!("This server shows no {what}."),
    )
}

/// The rules and notation of both games, as the arbiter enforces them (`docs/RULES.md`).
const RULES: &str = include_str!("../../../docs/RULES.md");

/// `/rules`: `docs/RULES.md` as a page, with each game's initial position drawn as on a game page.
/// Rendered once: the text is part of the binary.
async fn rules_page() -> Response {
    static PAGE: std::sync::OnceLock<String> = std::sync::OnceLock::new();
    let html = PAGE.get_or_init(|| {
        let parser = pulldown_cmark::Parser::new_ext(RULES, pulldown_cmark::Options::ENABLE_TABLES);
        let mut body = String::with_capacity(2 * RULES.len());
        pulldown_cmark::html::push_html(&mut body, parser);
        let hanniball = hanniball_rules::hanniball::svg(
            &hanniball_rules::hanniball::Position::initial(
                hanniball_rules::hanniball::Ruleset::default(),
            ),
            None,
        );
        let paper = hanniball_rules::paper::svg(&hanniball_rules::paper::Position::initial(), 0);
        let figure = |svg: &str, caption: &str| {
            format!(
                "<figure class=\"rules-board\">{svg}<figcaption>{caption}</figcaption></figure>"
            )
        };
        body = body
            .replacen(
                "<h3>1.1 Board and coordinates</h3>",
                &format!(
                    "{}<h3>1.1 Board and coordinates</h3>",
                    figure(
                        &hanniball,
                        "HanniBall: the initial position (White at the bottom)."
                    )
                ),
                1,
            )
            .replacen(
                "<h3>2.2 Segments</h3>",
                &format!(
                    "{}<h3>2.2 Segments</h3>",
                    figure(
                        &paper,
                        "Paper football: the field and the ball at the start."
                    )
                ),
                1,
            );
        page("Rules", &body).0
    });
    Html(html.clone()).into_response()
}

/// The page for a path whose tournament id is not one.
fn bad_tournament_id() -> Response {
    error_page(
        StatusCode::BAD_REQUEST,
        "A tournament id is a positive number.",
    )
}

async fn tournament_page(State(mut api): State<Api>, Path(id): Path<String>) -> Response {
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
async fn tournament_of(
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
fn is_live(tournament: &spb::Tournament) -> bool {
    tournament.status == spb::TournamentStatus::Registration as i32
        || tournament.status == spb::TournamentStatus::Running as i32
}

/// A live tournament page: on each change notice, fetch the page again and swap its main part in
/// (the scroll position and anything the reader opened stay); stop when the tournament is over.
const TOURNAMENT_SCRIPT: &str = r"
(function(){
  var source = new EventSource('/tournaments/TOURNAMENT_ID/events');
  var busy = false, again = false;
  function refresh(){
    if (busy) { again = true; return; }
    busy = true;
    fetch(location.href, {headers: {'Accept': 'text/html'}})
      .then(function(r){ return r.ok ? r.text() : Promise.reject(r.status); })
      .then(function(html){
        var next = new DOMParser().parseFromString(html, 'text/html').querySelector('main');
        if (next) { document.querySelector('main').innerHTML = next.innerHTML; }
        if (next && !next.querySelector('[data-live]')) { source.close(); }
      })
      .catch(function(){})
      .finally(function(){ busy = false; if (again) { again = false; refresh(); } });
  }
  source.addEventListener('changed', refresh);
})();
";

impl Api {
    /// Change notices of tournament `id` (as just read: `seen`), starting its poller if no page
    /// watches it yet.
    fn watch_tournament(
        &self,
        scheduler: Scheduler,
        seen: spb::Tournament,
    ) -> tokio::sync::broadcast::Receiver<()> {
        let id = seen.id;
        let mut feeds = self.tournaments.lock();
        if let Some(feed) = feeds.get(&id) {
            return feed.subscribe();
        }
        let (feed, receiver) = tokio::sync::broadcast::channel(4);
        feeds.insert(id, feed.clone());
        drop(feeds);
        let all = std::sync::Arc::clone(&self.tournaments);
        tokio::spawn(follow_tournament(scheduler, seen, feed, all));
        receiver
    }
}

/// The poller behind [`Api::watch_tournament`]: asks for the tournament every
/// [`TOURNAMENT_POLL`] while anyone watches and it can still change.
async fn follow_tournament(
    mut scheduler: Scheduler,
    mut seen: spb::Tournament,
    feed: tokio::sync::broadcast::Sender<()>,
    all: std::sync::Arc<TournamentFeeds>,
) {
    let id = seen.id;
    while feed.receiver_count() > 0 && is_live(&seen) {
        tokio::time::sleep(TOURNAMENT_POLL).await;
        let Ok(now) = tournament_of(&mut scheduler, id).await else {
            continue; // The scheduler is away for a moment: ask again later.
        };
        if now != seen {
            seen = now;
            let _ = feed.send(());
        }
    }
    all.forget(id, &feed);
}

/// `/tournaments/{id}/events`: server-sent `changed` events whenever the tournament changes.
async fn tournament_events(State(api): State<Api>, Path(id): Path<String>) -> Response {
    let Some(id) = game_id(&id) else {
        return bad_tournament_id();
    };
    let Some(mut scheduler) = api.scheduler.clone() else {
        return unavailable("tournaments");
    };
    let tournament = match tournament_of(&mut scheduler, id).await {
        Ok(t) => t,
        Err(status) => return api_error(&status),
    };
    let receiver = api.watch_tournament(scheduler, tournament);
    // A page that fell behind has missed only "changed" notices: one more says the same. (An
    // event with empty data is never dispatched by a browser: hence the data.)
    let events = tokio_stream::wrappers::BroadcastStream::new(receiver)
        .map(|_| Ok::<_, Infallible>(Event::default().event("changed").data("changed")));
    Sse::new(events)
        .keep_alive(KeepAlive::new().interval(Duration::from_secs(15)))
        .into_response()
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

async fn player_page(State(mut api): State<Api>, Path(id): Path<String>) -> Response {
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

async fn trf_download(State(mut api): State<Api>, Path(id): Path<String>) -> Response {
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

/// `key`'s value in a URL query string, percent-decoded (`None` if absent or not UTF-8).
fn query_value(query: Option<&str>, key: &str) -> Option<String> {
    let raw = query?
        .split('&')
        .filter_map(|pair| pair.split_once('='))
        .find(|(k, _)| *k == key)
        .map(|(_, v)| v)?;
    let bytes = raw.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let hex = |b: u8| (b as char).to_digit(16);
        match bytes[i] {
            b'%' if i + 2 < bytes.len() => match (hex(bytes[i + 1]), hex(bytes[i + 2])) {
                (Some(high), Some(low)) => {
                    out.push((high * 16 + low) as u8);
                    i += 3;
                }
                _ => {
                    out.push(b'%');
                    i += 1;
                }
            },
            b => {
                out.push(b);
                i += 1;
            }
        }
    }
    String::from_utf8(out).ok()
}

/// `text` percent-encoded for a URL query value (all but the unreserved characters).
#[must_use]
pub fn query_encode(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for byte in text.bytes() {
        if byte.is_ascii_alphanumeric() || b"-._~".contains(&byte) {
            out.push(byte as char);
        } else {
            let _ = write!(out, "%{byte:02X}");
        }
    }
    out
}

async fn ladder_page(
    State(mut api): State<Api>,
    Path(name): Path<String>,
    uri: axum::http::Uri,
) -> Response {
    let Some(rating) = api.rating.as_mut() else {
        return unavailable("ladders");
    };
    let page_token = query_value(uri.query(), "page")
        .unwrap_or_default()
        .to_owned();
    let min_games: u32 = query_value(uri.query(), "min_games")
        .and_then(|v| v.parse().ok())
        .unwrap_or(0);
    let size: u32 = query_value(uri.query(), "size")
        .and_then(|v| v.parse().ok())
        .unwrap_or(50)
        .clamp(1, 200);
    let answer = match rating
        .leaderboard(rpb::LeaderboardRequest {
            ladder: name.clone(),
            page_size: size,
            page_token,
            min_games,
            active_since_ms: 0,
        })
        .await
    {
        Ok(answer) => answer.into_inner(),
        Err(status) => return api_error(&status),
    };
    let mut body = format!(
        "<h1>Ladder {}</h1><form method=\"get\"><label>At least <input type=\"number\" name=\"min_games\" min=\"0\" value=\"{min_games}\" size=\"4\"> rated games</label> <button type=\"submit\">Filter</button></form>\
         <table><thead><tr><th scope=\"col\">Rank</th><th scope=\"col\">Player</th><th scope=\"col\">Rating</th><th scope=\"col\">Games</th></tr></thead><tbody>",
        esc(&name)
    );
    for entry in &answer.entries {
        let _ = write!(
            body,
            "<tr><td>{}</td><td><a href=\"/players/{}\">{}</a></td><td>{:.0}{}</td><td>{}</td></tr>",
            entry.rank,
            entry.player_id,
            esc(&entry.name),
            entry.rating,
            if entry.provisional {
                "<abbr title=\"provisional\">?</abbr>"
            } else {
                ""
            },
            entry.games
        );
    }
    body.push_str("</tbody></table>");
    if answer.entries.is_empty() {
        body.push_str("<p>No rated players here.</p>");
    }
    if !answer.next_page_token.is_empty() {
        let _ = write!(
            body,
            "<p><a rel=\"next\" id=\"next-page\" href=\"/ladders/{}?page={}&amp;min_games={min_games}&amp;size={size}\">Next page</a></p>",
            esc(&name),
            query_encode(&answer.next_page_token)
        );
    }
    page(&format!("Ladder {name}"), &body).into_response()
}

/// The board of `state` (after `last_turn`, drawn highlighted) as SVG; the position's text if it
/// does not parse.
fn board(kind: &str, state: &pb::GameState, last_turn: Option<&str>) -> String {
    match kind {
        "hanniball" => {
            if let Ok(position) =
                hanniball_rules::hanniball::Position::from_notation(&state.position)
            {
                return hanniball_rules::hanniball::svg(&position, last_turn);
            }
        }
        "paper-football" => {
            if let Ok(position) = hanniball_rules::paper::Position::from_notation(&state.position) {
                let steps = last_turn.map_or(0, |t| t.split_whitespace().count());
                return hanniball_rules::paper::svg(&position, steps);
            }
        }
        _ => {}
    }
    format!("<pre class=\"board\">{}</pre>", esc(&state.position))
}

/// Milliseconds since the Unix epoch (the server's clock, as the arbiter's `as_of_ms`).
fn now_ms() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as i64)
}

/// The clocks as they stand at `now`: the running side's time keeps running from `as_of_ms`
/// (a page opened 15 s into a turn shows 15 s less than the stored clock).
fn clocks_at(c: &pb::Clocks, now: i64) -> (i64, i64) {
    let ran = (now - c.as_of_ms).max(0);
    let white = if c.running == pb::Side::White as i32 {
        (c.white_ms - ran).max(0)
    } else {
        c.white_ms
    };
    let black = if c.running == pb::Side::Black as i32 {
        (c.black_ms - ran).max(0)
    } else {
        c.black_ms
    };
    (white, black)
}

/// `m:ss` of a clock.
fn clock(ms: i64) -> String {
    let seconds = ms.max(0) / 1_000;
    format!("{}:{:02}", seconds / 60, seconds % 60)
}

fn side_name(side: i32) -> &'static str {
    match pb::Side::try_from(side) {
        Ok(pb::Side::White) => "white",
        Ok(pb::Side::Black) => "black",
        _ => "",
    }
}

/// The status line of a game.
fn status_line(state: &pb::GameState) -> String {
    match &state.result {
        Some(result) => format!("Game over: {}", result.summary),
        None => format!(
            "{} to move, turn {}",
            match side_name(state.side_to_move) {
                "white" => "White",
                _ => "Black",
            },
            state.next_turn_number
        ),
    }
}

/// The position of `game` after its first `shown` turns (its start for 0).
fn position_after(game: &pb::Game, shown: usize) -> String {
    if shown > 0 {
        return game.turns[shown - 1].position_after.clone();
    }
    let options = hanniball_rules::GameOptions {
        ruleset: (!game.ruleset.is_empty()).then(|| game.ruleset.clone()),
        max_turns: None,
    };
    game.kind
        .parse::<hanniball_rules::GameKind>()
        .ok()
        .and_then(|kind| kind.new_game(&options).ok())
        .map_or_else(String::new, |g| g.position())
}

/// Links to step through the turns (`?turn=N`), with the arrow keys following them.
fn replay_nav(id: i64, shown: usize, total: usize) -> String {
    let link = |to: usize, label: &str, rel: &str, enabled: bool| {
        if enabled {
            format!("<a href=\"/games/{id}?turn={to}\" id=\"{rel}\" rel=\"{rel}\">{label}</a>")
        } else {
            format!("<span aria-disabled=\"true\">{label}</span>")
        }
    };
    format!(
        "<nav class=\"replay\" aria-label=\"replay\"><p>Showing the position after turn {shown} of \
         {total}: {} · {} · {} · {}</p></nav>\
         <script>document.addEventListener('keydown',function(e){{var a=null;\
         if(e.key==='ArrowLeft')a=document.getElementById('prev');\
         if(e.key==='ArrowRight')a=document.getElementById('next');\
         if(e.key==='Home')a=document.getElementById('first');\
         if(e.key==='End')a=document.getElementById('last');\
         if(a){{e.preventDefault();location.href=a.href;}}}});</script>",
        link(0, "« start", "first", shown > 0),
        link(shown.saturating_sub(1), "◀ previous", "prev", shown > 0),
        link(shown + 1, "next ▶", "next", shown < total),
        link(total, "end »", "last", shown < total),
    )
}

async fn game_page(
    State(mut api): State<Api>,
    Path(id): Path<String>,
    uri: axum::http::Uri,
) -> Response {
    let Some(id) = game_id(&id) else {
        return bad_game_id();
    };
    let game = match api.game(id).await {
        Ok(game) => game,
        Err(status) => return api_error(&status),
    };
    let mut state = game.state.clone().unwrap_or_default();
    let white = api.name(game.white_player_id).await;
    let black = api.name(game.black_player_id).await;
    let total = game.turns.len();
    // Replay: `?turn=N` shows the position after turn N; a finished game starts at its end.
    let replaying = query_value(uri.query(), "turn").and_then(|v| v.parse::<usize>().ok());
    let shown = replaying.unwrap_or(total).min(total);
    if shown < total {
        // The game as it stood after turn `shown`: not over, the next side to move (White moves
        // odd turns), the clocks as that turn left them (or the start's), frozen.
        state.position = position_after(&game, shown);
        state.result = None;
        state.notices.clear();
        state.draw_offer_by = pb::Side::Unspecified as i32;
        state.next_turn_number = shown as u32 + 1;
        state.side_to_move = if shown % 2 == 0 {
            pb::Side::White
        } else {
            pb::Side::Black
        } as i32;
        let start = game.time_control.map(|tc| pb::Clocks {
            white_ms: tc.initial_ms,
            black_ms: tc.initial_ms,
            ..pb::Clocks::default()
        });
        state.clocks = match shown.checked_sub(1).and_then(|i| game.turns.get(i)) {
            Some(turn) => turn.clocks_after.map(|c| pb::Clocks {
                running: pb::Side::Unspecified as i32,
                ..c
            }),
            None => start,
        };
    }
    let last = (shown > 0).then(|| game.turns[shown - 1].turn.as_str());
    let mut turns = String::new();
    for turn in &game.turns {
        let current = if turn.number as usize == shown {
            " aria-current=\"step\""
        } else {
            ""
        };
        let _ = write!(
            turns,
            "<li value=\"{n}\"><a href=\"/games/{id}?turn={n}\"{current}>{}</a></li>",
            esc(&turn.turn),
            n = turn.number,
        );
    }
    let clocks = match (&game.time_control, &state.clocks) {
        (Some(_), Some(c)) => {
            let (white_ms, black_ms) = clocks_at(c, now_ms());
            format!(
                "<p>Clocks: <span class=\"clock{}\" id=\"clock-white\" data-ms=\"{}\">{}</span> White · \
             <span class=\"clock{}\" id=\"clock-black\" data-ms=\"{}\">{}</span> Black</p>",
                if c.running == pb::Side::White as i32 {
                    " running"
                } else {
                    ""
                },
                white_ms,
                clock(white_ms),
                if c.running == pb::Side::Black as i32 {
                    " running"
                } else {
                    ""
                },
                black_ms,
                clock(black_ms),
            )
        }
        _ => "<p>Untimed.</p>".to_owned(),
    };
    let replay = if replaying.is_some() || state.result.is_some() {
        replay_nav(id, shown, total)
    } else {
        String::new()
    };
    let live = if state.result.is_none() && replaying.is_none() {
        format!(
            "<script>{}</script>",
            LIVE_SCRIPT
                .replace("GAME_ID", &id.to_string())
                .replace("TURNS_SHOWN", &total.to_string())
        )
    } else {
        String::new()
    };
    let body = format!(
        "<h1>Game {id}: {white} – {black}</h1>\
         {replay}<div class=\"game\"><div id=\"board\" aria-live=\"off\">{board}</div>\
         <div class=\"side\"><p id=\"status\" aria-live=\"polite\">{status}</p>{clocks}\
         <p>White: <a href=\"/players/{wid}\"><strong>{white}</strong></a> · Black: <a href=\"/players/{bid}\"><strong>{black}</strong></a> · {kind}</p>\
         <p><a href=\"/games/{id}/record\" download>Download the game record</a></p>\
         <h2>Turns</h2><ol class=\"turns\" id=\"turns\">{turns}</ol></div></div>{live}",
        white = esc(&white),
        black = esc(&black),
        wid = game.white_player_id,
        bid = game.black_player_id,
        board = board(&game.kind, &state, last),
        status = esc(&status_line(&state)),
        kind = esc(&game.kind),
    );
    let mut html = page(&format!("Game {id}"), &body).0;
    if !live.is_empty() {
        // Without script a live game reloads itself now and then (as a live tournament does).
        html = html.replacen(
            "<head>",
            "<head><noscript><meta http-equiv=\"refresh\" content=\"5\"></noscript>",
            1,
        );
    }
    Html(html).into_response()
}

/// Live updates on a game's page: each `update` event carries the new board, the turn played,
/// the status line and the clocks; the clocks tick in between.
const LIVE_SCRIPT: &str = r"
(function(){
  var source = new EventSource('/games/GAME_ID/events');
  var clocks = {white: document.getElementById('clock-white'), black: document.getElementById('clock-black')};
  var running = null, since = Date.now();
  function show(el, ms){ if(!el) return; var s = Math.max(0, Math.floor(ms/1000)); el.textContent = Math.floor(s/60) + ':' + String(s%60).padStart(2,'0'); }
  function tick(){ if(running && clocks[running]){ show(clocks[running], Number(clocks[running].dataset.ms) - (Date.now() - since)); } }
  ['white','black'].forEach(function(side){ if(clocks[side] && clocks[side].classList.contains('running')) running = side; });
  setInterval(tick, 250);
  var last = TURNS_SHOWN;
  source.addEventListener('reload', function(){ location.reload(); });
  source.addEventListener('update', function(e){
    var u = JSON.parse(e.data);
    if (u.turn && u.turn.number <= last) return;
    if (u.turn && u.turn.number > last + 1) { location.reload(); return; }
    if (u.turn) last = u.turn.number;
    document.getElementById('board').innerHTML = u.board;
    document.getElementById('status').textContent = u.status;
    if (u.turn) { var li = document.createElement('li'); li.value = u.turn.number; var a = document.createElement('a'); a.href = '/games/GAME_ID?turn=' + u.turn.number; a.textContent = u.turn.text; li.appendChild(a); var ol = document.getElementById('turns'); ol.appendChild(li); ol.scrollTop = ol.scrollHeight; }
    if (u.clocks) { ['white','black'].forEach(function(side){ var el = clocks[side]; if(!el) return; el.dataset.ms = u.clocks[side]; el.classList.toggle('running', u.clocks.running === side); show(el, u.clocks[side]); }); running = u.clocks.running; since = Date.now(); }
    if (u.over) { running = null; source.close(); }
  });
})();
";

/// The update a page gets for one game event (`None`: nothing to show).
fn update(kind: &str, event: pb::GameEvent) -> Option<serde_json::Value> {
    let (state, turn) = match event.event? {
        pb::game_event::Event::TurnPlayed(played) => (played.state?, played.record),
        pb::game_event::Event::GameOver(over) => (over.state?, None),
        pb::game_event::Event::DrawOffered(offer) => (offer.state?, None),
        _ => return None,
    };
    let clocks = state.clocks.as_ref().map(|c| {
        let (white, black) = clocks_at(c, now_ms());
        serde_json::json!({
            "white": white,
            "black": black,
            "running": side_name(c.running),
        })
    });
    Some(serde_json::json!({
        "board": board(kind, &state, turn.as_ref().map(|t| t.turn.as_str())),
        "status": status_line(&state),
        "turn": turn.map(|t| serde_json::json!({"number": t.number, "text": t.turn})),
        "clocks": clocks,
        "over": state.result.is_some(),
    }))
}

impl Api {
    /// A subscription to the live updates of `game` (as just read), starting the game's upstream
    /// stream if no page watches it yet.
    async fn subscribe(
        &mut self,
        game: &pb::Game,
    ) -> Result<tokio::sync::broadcast::Receiver<std::sync::Arc<str>>, tonic::Status> {
        if let Some(feed) = self.feeds.lock().get(&game.id) {
            return Ok(feed.subscribe());
        }
        let from = game.state.as_ref().map_or(1, |s| s.next_turn_number.max(1));
        let mut stream = self
            .arbiter
            .watch_game(pb::WatchGameRequest {
                game_id: game.id,
                from_turn: from,
            })
            .await?
            .into_inner();
        let mut feeds = self.feeds.lock();
        if let Some(feed) = feeds.get(&game.id) {
            // Another page started it meanwhile: use that one (this stream is dropped).
            return Ok(feed.subscribe());
        }
        let (feed, receiver) = tokio::sync::broadcast::channel(FEED_BUFFER);
        feeds.insert(game.id, feed.clone());
        drop(feeds);
        let all = std::sync::Arc::clone(&self.feeds);
        let (id, kind) = (game.id, game.kind.clone());
        tokio::spawn(async move {
            loop {
                let event = tokio::select! {
                    event = stream.next() => event,
                    // Nobody watches any more: stop following the game.
                    () = tokio::time::sleep(Duration::from_secs(30)) => {
                        if feed.receiver_count() == 0 { break; }
                        continue;
                    }
                };
                let Some(Ok(event)) = event else { break };
                if let Some(update) = update(&kind, event) {
                    let _ = feed.send(update.to_string().into());
                }
                if feed.receiver_count() == 0 {
                    break;
                }
            }
            all.forget(id, &feed);
        });
        Ok(receiver)
    }
}

async fn game_events(State(mut api): State<Api>, Path(id): Path<String>) -> Response {
    let Some(id) = game_id(&id) else {
        return bad_game_id();
    };
    let game = match api.game(id).await {
        Ok(game) => game,
        Err(status) => return api_error(&status),
    };
    let receiver = match api.subscribe(&game).await {
        Ok(receiver) => receiver,
        Err(status) => return api_error(&status),
    };
    let events = tokio_stream::wrappers::BroadcastStream::new(receiver).map(|update| {
        Ok::<_, Infallible>(match update {
            Ok(update) => Event::default().event("update").data(&*update),
            // Fell behind: the page reloads to catch up.
            Err(_) => Event::default().event("reload").data("behind"),
        })
    });
    Sse::new(events)
        .keep_alive(KeepAlive::new().interval(Duration::from_secs(15)))
        .into_response()
}

/// The record of `game` (its turns included) with the players' names.
#[must_use]
pub fn record(game: &pb::Game, white: &str, black: &str) -> GameRecord {
    let mut record = GameRecord::default();
    record.set_tag("Game", &game.kind);
    if !game.ruleset.is_empty() {
        record.set_tag("Ruleset", &game.ruleset);
    }
    record.set_tag("Id", &game.id.to_string());
    if !game.tag.is_empty() {
        record.set_tag("Event", &game.tag);
    }
    record.set_tag("Date", &hanniball_rules::record::date(game.created_at_ms));
    record.set_tag("White", white);
    record.set_tag("Black", black);
    record.set_tag("WhiteId", &game.white_player_id.to_string());
    record.set_tag("BlackId", &game.black_player_id.to_string());
    match game.time_control {
        Some(tc) => record.set_tag(
            "TimeControl",
            &hanniball_rules::record::time_control(tc.initial_ms, tc.increment_ms),
        ),
        None => record.set_tag("TimeControl", "-"),
    }
    if game.max_turns > 0 {
        record.set_tag("MaxTurns", &game.max_turns.to_string());
    }
    record.set_tag("Rated", if game.rated { "yes" } else { "no" });
    record.turns = game.turns.iter().map(|t| t.turn.clone()).collect();
    if let Some(result) = game.state.as_ref().and_then(|s| s.result.as_ref()) {
        let outcome = score(game.state.as_ref());
        record.result = (outcome != "*").then(|| outcome.to_owned());
        let reason = pb::EndReason::try_from(result.reason).map_or_else(
            |_| "unknown".to_owned(),
            |r| {
                r.as_str_name()
                    .trim_start_matches("END_REASON_")
                    .to_lowercase()
                    .replace('_', "-")
            },
        );
        record.set_tag("Reason", &reason);
        if record.result.is_none() {
            // Aborted: no score.
            record.set_tag("Summary", &result.summary);
        }
    }
    record.set_tag("Result", record.result.clone().as_deref().unwrap_or("*"));
    record
}

async fn record_download(State(mut api): State<Api>, Path(id): Path<String>) -> Response {
    let Some(id) = game_id(&id) else {
        return bad_game_id();
    };
    let game = match api.game(id).await {
        Ok(game) => game,
        Err(status) => return api_error(&status),
    };
    let white = api.name(game.white_player_id).await;
    let black = api.name(game.black_player_id).await;
    (
        [
            (header::CONTENT_TYPE, "text/plain; charset=utf-8".to_owned()),
            (
                header::CONTENT_DISPOSITION,
                format!("attachment; filename=\"game-{id}.hbr\""),
            ),
        ],
        record(&game, &white, &black).to_text(),
    )
        .into_response()
}

#[cfg(test)]
mod tests {
    #[tokio::test]
    async fn the_rules_page_is_the_rules_document_with_both_boards_drawn() {
        let response = super::rules_page().await;
        assert_eq!(response.status(), axum::http::StatusCode::OK);
        let body = axum::body::to_bytes(response.into_body(), 1 << 22)
            .await
            .expect("body");
        let html = String::from_utf8(body.to_vec()).expect("utf-8");
        assert!(html.contains("<h2>Part 1 — HanniBall</h2>"), "{html}");
        assert!(html.contains("<h3>1.11 Notation</h3>"));
        assert!(html.contains("<h2>Part 3 — Game records</h2>"));
        assert!(html.contains("<table>"), "markdown tables render");
        assert_eq!(
            html.matches("<figure class=\"rules-board\"><svg").count(),
            2
        );
        assert!(html.find("<figure").unwrap_or(usize::MAX) < html.find("<h3>1.1 ").unwrap_or(0));
    }

    use super::*;

    #[test]
    fn text_is_escaped() {
        assert_eq!(
            esc("<a href=\"x\">'&'</a>"),
            "&lt;a href=&quot;x&quot;&gt;&#39;&amp;&#39;&lt;/a&gt;"
        );
    }

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
    fn query_values_round_trip_through_percent_encoding() {
        let token = "hanniball/untimed|0||40977a0000000000|12|3|4 é";
        let query = format!("a=1&page={}&b=2", query_encode(token));
        assert!(!query_encode(token).contains('|'));
        assert_eq!(query_value(Some(&query), "page").as_deref(), Some(token));
        assert_eq!(query_value(Some("x=%zz%4"), "x").as_deref(), Some("%zz%4"));
        assert_eq!(query_value(Some("x=1"), "y"), None);
        assert_eq!(query_value(None, "x"), None);
    }

    #[test]
    fn game_ids_are_positive_numbers() {
        assert_eq!(game_id("12"), Some(12));
        for bad in ["0", "-3", "x", "", "99999999999999999999"] {
            assert_eq!(game_id(bad), None, "{bad}");
        }
    }
}

#[cfg(test)]
mod clock_tests {
    use super::*;

    #[test]
    fn a_page_shows_the_running_clock_as_of_now() {
        let clocks = pb::Clocks {
            white_ms: 118_000,
            black_ms: 120_000,
            running: pb::Side::Black as i32,
            as_of_ms: 1_000_000,
        };
        // 15 s into Black's turn of a 120+0 game: 1:45, not 2:00.
        let (white, black) = clocks_at(&clocks, 1_015_000);
        assert_eq!(
            (clock(white), clock(black)),
            ("1:58".to_owned(), "1:45".to_owned())
        );
        assert_eq!(clocks_at(&clocks, 9_999_999).1, 0);
    }
}
