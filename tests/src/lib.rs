//! Helpers for the end-to-end tests: boot the real arbiter on `127.0.0.1:0` over a fresh database
//! (SQLite, and PostgreSQL when `HANNIBALL_TEST_POSTGRES_URL` is set) with a manual clock, and talk
//! to it through the generated clients with bearer tokens.

use std::sync::Arc;

use hanniball_arbiter::Timestamp;
use hanniball_arbiter_svc::Arbiter as ArbiterService;
use hanniball_arbiter_svc::{Clock, ManualClock, Options};
use hanniball_db::Db;
use hanniball_proto::accounts::v1 as apb;
use hanniball_proto::accounts::v1::accounts_client::AccountsClient;
use hanniball_proto::arbiter::v1 as pb;
use hanniball_proto::arbiter::v1::arbiter_client::ArbiterClient;
use hanniball_rules::hanniball::playout::goal_seeking_turn;
use hanniball_rules::hanniball::{Position, Ruleset};
use tokio::net::TcpListener;
use tokio_util::sync::CancellationToken;
use tonic::Status;
use tonic::service::interceptor::InterceptedService;
use tonic::transport::Channel;

/// The admin token every test server is configured with.
pub const ADMIN_TOKEN: &str = "test-admin-token";

/// A running test server.
pub struct TestServer {
    pub running: Running,
    pub clock: Arc<ManualClock>,
    pub db_url: String,
}

/// Starts the arbiter on a database URL with a manual clock at a fixed moment.
pub async fn start(db_url: &str) -> TestServer {
    start_at(db_url, Timestamp(1_700_000_000_000)).await
}

/// Starts the arbiter on a database URL with a manual clock at `start`.
pub async fn start_at(db_url: &str, start: Timestamp) -> TestServer {
    let db = Db::connect(db_url).await.expect("database");
    let listener = TcpListener::bind("127.0.0.1:0").await.expect("port");
    let (clock, manual) = Clock::manual(start);
    let options = Options {
        admin_token: ADMIN_TOKEN.into(),
        clock,
    };
    let running = start_arbiter(db, listener, options, CancellationToken::new())
        .await
        .expect("server starts");
    TestServer {
        running,
        clock: manual,
        db_url: db_url.to_owned(),
    }
}

/// The arbiter and the scheduler (no rating service) in one server on `127.0.0.1:0`, on
/// `db_url`, with the system clock, a 50 ms scheduler tick and the admin exempt from the
/// per-caller limits (as in `hanniball serve`); returns its URL and what stops it.
pub async fn arbiter_and_scheduler(db_url: &str) -> (String, CancellationToken) {
    serve_services(db_url, false).await
}

/// The three services (arbiter, rating consuming the arbiter's results, scheduler seeding by the
/// rating service) in one server, as [`arbiter_and_scheduler`] otherwise.
pub async fn all_services(db_url: &str) -> (String, CancellationToken) {
    serve_services(db_url, true).await
}

async fn serve_services(db_url: &str, with_rating: bool) -> (String, CancellationToken) {
    use hanniball_scheduler_svc::{Scheduler, SchedulerOptions};
    let db = Db::connect(db_url).await.expect("database");
    let listener = TcpListener::bind("127.0.0.1:0").await.expect("port");
    let url = format!("http://{}", listener.local_addr().expect("addr"));
    let shutdown = CancellationToken::new();
    let options = Options {
        admin_token: ADMIN_TOKEN.into(),
        clock: Clock::System,
    };
    let (accounts_room, arbiter) = arbiter_and_accounts(&db, options, &shutdown)
        .await
        .expect("arbiter");
    let mut options = SchedulerOptions::new(ADMIN_TOKEN, &url);
    if !with_rating {
        options.rating_url = None;
    }
    options.tick = std::time::Duration::from_millis(50);
    let accounts = accounts_room.directory().clone();
    let scheduler = Scheduler::build(db.clone(), accounts.clone(), &options, shutdown.clone())
        .await
        .expect("scheduler");
    let mut routes = tonic::service::RoutesBuilder::default();
    accounts_room.add_to(&mut routes);
    arbiter.add_to(&mut routes);
    scheduler.add_to(&mut routes);
    let mut names = ArbiterService::SERVICE_NAMES.to_vec();
    names.extend(hanniball_accounts_svc::Accounts::SERVICE_NAMES);
    names.extend(Scheduler::SERVICE_NAMES);
    if with_rating {
        use hanniball_rating_svc::{Rating, RatingOptions};
        let options = RatingOptions {
            arbiter_url: Some(url.clone()),
            max_backoff: std::time::Duration::from_millis(200),
            ..RatingOptions::new(ADMIN_TOKEN)
        };
        let rating = Rating::build(db, accounts, options, shutdown.clone())
            .await
            .expect("rating");
        rating.add_to(&mut routes);
        names.extend(Rating::SERVICE_NAMES);
    }
    let limits = hanniball_svc_kit::EdgeLimits {
        admin_token: Some(ADMIN_TOKEN.into()),
        ..hanniball_svc_kit::EdgeLimits::default()
    };
    hanniball_svc_kit::serve_with(listener, routes, &names, shutdown.clone(), limits)
        .await
        .expect("serve");
    (url, shutdown)
}

/// Accounts and the arbiter of one process on `db`: the arbiter asks Accounts directly.
pub async fn arbiter_and_accounts(
    db: &Db,
    options: Options,
    shutdown: &CancellationToken,
) -> Result<(hanniball_accounts_svc::Accounts, ArbiterService), hanniball_svc_kit::ServiceError> {
    let accounts = hanniball_accounts_svc::Accounts::build(
        db,
        options.admin_token.clone(),
        options.clock.clone(),
        shutdown.clone(),
    )
    .await?;
    let arbiter = ArbiterService::build(
        db.clone(),
        accounts.directory().clone(),
        options,
        shutdown.clone(),
    )
    .await?;
    Ok((accounts, arbiter))
}

/// A running arbiter server (Accounts beside it).
#[derive(Debug)]
pub struct Running {
    /// The address it listens on.
    pub addr: std::net::SocketAddr,
    /// Its hub (tests look inside).
    pub hub: Arc<hanniball_arbiter_svc::Hub>,
    /// Accounts served beside it.
    pub accounts: hanniball_accounts_svc::Accounts,
    served: hanniball_svc_kit::Served,
}

impl Running {
    /// Stops gracefully: open streams end, in-flight calls finish, then the server returns.
    pub async fn stop(self) -> Result<(), tonic::transport::Error> {
        self.served.stop().await
    }

    /// Waits until the server stops (after `shutdown` is cancelled elsewhere).
    pub async fn wait(self) -> Result<(), tonic::transport::Error> {
        self.served.wait().await
    }
}

/// Starts the arbiter and Accounts on `listener` with the default edge limits.
pub async fn start_arbiter(
    db: Db,
    listener: TcpListener,
    options: Options,
    shutdown: CancellationToken,
) -> Result<Running, hanniball_svc_kit::ServiceError> {
    let limits = hanniball_svc_kit::EdgeLimits::default();
    start_arbiter_with_limits(db, listener, options, limits, shutdown).await
}

/// [`start_arbiter`] with the given edge limits (the admin token is always trusted); the load
/// benchmark turns the per-caller limits off to measure the server itself.
pub async fn start_arbiter_with_limits(
    db: Db,
    listener: TcpListener,
    options: Options,
    limits: hanniball_svc_kit::EdgeLimits,
    shutdown: CancellationToken,
) -> Result<Running, hanniball_svc_kit::ServiceError> {
    let mut limits = limits;
    limits.admin_token = Some(options.admin_token.clone());
    let (accounts, arbiter) = arbiter_and_accounts(&db, options, &shutdown).await?;
    let mut routes = tonic::service::RoutesBuilder::default();
    accounts.add_to(&mut routes);
    arbiter.add_to(&mut routes);
    let mut names = ArbiterService::SERVICE_NAMES.to_vec();
    names.extend(hanniball_accounts_svc::Accounts::SERVICE_NAMES);
    let served = hanniball_svc_kit::serve_with(listener, routes, &names, shutdown, limits)
        .await
        .map_err(|e| hanniball_svc_kit::ServiceError::Internal(format!("cannot serve: {e}")))?;
    Ok(Running {
        addr: served.addr,
        hub: arbiter.hub,
        accounts,
        served,
    })
}

/// Registers bot `name` through `accounts` (the admin's); returns its id and its first token.
/// Accounts' tables in `db` (migrated), as the services of one process look callers up.
pub async fn local_accounts(db: &Db) -> hanniball_svc_kit::Directory {
    let accounts = hanniball_accounts::Accounts::open(db)
        .await
        .expect("accounts");
    hanniball_svc_kit::Directory::local(hanniball_accounts_svc::lookup::LocalAccounts(accounts))
}

pub async fn register_bot(accounts: &mut Accounts, name: &str) -> (i64, String) {
    let response = accounts
        .register_player(apb::RegisterPlayerRequest {
            name: name.to_owned(),
            kind: apb::PlayerKind::Bot as i32,
            issue_token: true,
        })
        .await
        .expect("register")
        .into_inner();
    (
        response.player.expect("player").id,
        response.token.expect("token issued").token,
    )
}

/// Every database the suite runs on.
pub async fn databases() -> Vec<String> {
    hanniball_db::testing::all_urls().await
}

pub use hanniball_svc_kit::Bearer;

pub type Arbiter = ArbiterClient<InterceptedService<Channel, Bearer>>;
pub type Accounts = AccountsClient<InterceptedService<Channel, Bearer>>;

/// A connection to the server with one token (or none).
#[derive(Clone)]
pub struct Client {
    pub arbiter: Arbiter,
    pub accounts: Accounts,
    /// The token it sends (empty: none).
    pub token: String,
}

impl TestServer {
    /// What the server's manual clock shows, in ms since the epoch.
    #[must_use]
    pub fn clock_now(&self) -> i64 {
        self.clock.now()
    }

    /// The server's address as a URL.
    #[must_use]
    pub fn url(&self) -> String {
        format!("http://{}", self.running.addr)
    }

    /// A client using `token` (None: no authorization metadata).
    pub async fn client(&self, token: Option<&str>) -> Client {
        let channel = Channel::from_shared(self.url())
            .expect("url")
            .connect()
            .await
            .expect("connect");
        let bearer = token.map_or_else(Bearer::none, Bearer::new);
        Client {
            arbiter: ArbiterClient::with_interceptor(channel.clone(), bearer.clone()),
            accounts: AccountsClient::with_interceptor(channel, bearer),
            token: token.unwrap_or_default().to_owned(),
        }
    }

    /// The admin's client.
    pub async fn admin(&self) -> Client {
        self.client(Some(ADMIN_TOKEN)).await
    }

    /// Registers a bot and returns its id and a client with its token.
    pub async fn player(&self, name: &str) -> (i64, Client) {
        let (id, token) = register_bot(&mut self.admin().await.accounts, name).await;
        (id, self.client(Some(&token)).await)
    }

    /// The admin creates a HanniBall game.
    pub async fn game(&self, white: i64, black: i64, time: Option<(i64, i64)>) -> pb::Game {
        self.admin()
            .await
            .arbiter
            .create_game(pb::CreateGameRequest {
                kind: "hanniball".to_owned(),
                white_player_id: white,
                black_player_id: black,
                time_control: time.map(|(initial_ms, increment_ms)| pb::TimeControl {
                    initial_ms,
                    increment_ms,
                }),
                rated: true,
                ..Default::default()
            })
            .await
            .expect("create game")
            .into_inner()
            .game
            .expect("game")
    }
}

/// Two players and a game between them, as most tests start.
pub struct Table {
    pub white: i64,
    pub w: Client,
    pub black: i64,
    pub b: Client,
    pub game: pb::Game,
}

impl TestServer {
    /// Registers players `w` and `b` and creates a game between them.
    pub async fn table(&self, time: Option<(i64, i64)>) -> Table {
        let (white, w) = self.player("w").await;
        let (black, b) = self.player("b").await;
        let game = self.game(white, black, time).await;
        Table {
            white,
            w,
            black,
            b,
            game,
        }
    }
}

/// A game as `GetGame` shows it (the call must succeed).
pub async fn game_of(client: &mut Client, game: i64) -> pb::Game {
    client
        .arbiter
        .get_game(pb::GetGameRequest { game_id: game })
        .await
        .expect("get game")
        .into_inner()
        .game
        .expect("game")
}

/// Submits a turn.
pub async fn submit(
    client: &mut Client,
    game: i64,
    number: u32,
    turn: &str,
) -> Result<pb::SubmitTurnResponse, Status> {
    client
        .arbiter
        .submit_turn(pb::SubmitTurnRequest {
            game_id: game,
            turn_number: number,
            turn: turn.to_owned(),
        })
        .await
        .map(tonic::Response::into_inner)
}

/// `GetLegalSteps` after the partial turn `after` (RULES.md notation, steps separated by spaces).
pub async fn legal_steps(
    client: &mut Client,
    game: i64,
    after: &str,
) -> Result<pb::GetLegalStepsResponse, Status> {
    client
        .arbiter
        .get_legal_steps(pb::GetLegalStepsRequest {
            game_id: game,
            after: after.to_owned(),
        })
        .await
        .map(tonic::Response::into_inner)
}

/// `CheckTurn`: what `SubmitTurn` of `turn` would answer, changing nothing.
pub async fn check_turn(
    client: &mut Client,
    game: i64,
    number: u32,
    turn: &str,
) -> Result<pb::CheckTurnResponse, Status> {
    client
        .arbiter
        .check_turn(pb::CheckTurnRequest {
            game_id: game,
            turn_number: number,
            turn: turn.to_owned(),
        })
        .await
        .map(tonic::Response::into_inner)
}

/// A turn built the way a bot without a rules engine builds one: step by step from the steps the
/// server lists after the steps chosen so far, picked at random, ending at random where the turn
/// may end (always where it must). Returns the turn and the server's answer for it whole.
pub async fn turn_through_the_api(
    client: &mut Client,
    game: i64,
    rng: &mut hanniball_rng::Rng,
) -> Result<(String, pb::GetLegalStepsResponse), Status> {
    let mut chosen: Vec<String> = Vec::new();
    loop {
        let answer = legal_steps(client, game, &chosen.join(" ")).await?;
        if answer.may_end && (answer.must_end || rng.u8(..4) == 0) {
            return Ok((chosen.join(" "), answer));
        }
        if answer.steps.is_empty() {
            // A dead end (steps that changed nothing): start the turn again.
            chosen.clear();
            continue;
        }
        chosen.push(answer.steps[rng.usize(..answer.steps.len())].clone());
    }
}

/// Each side of HanniBall game `game` makes one turn (White `d4-c6`, Black `d12-c10`), so
/// that the game counts as played.
pub async fn both_move(white: &mut Arbiter, black: &mut Arbiter, game: i64) {
    for (client, number, turn) in [(white, 1, "d4-c6"), (black, 2, "d12-c10")] {
        client
            .submit_turn(pb::SubmitTurnRequest {
                game_id: game,
                turn_number: number,
                turn: turn.to_owned(),
            })
            .await
            .expect("turn");
    }
}

/// Ends `game` by `pick`: 0 Black resigns (White wins), 1 White resigns, 2 a draw agreed.
pub async fn end_by(white: &mut Arbiter, black: &mut Arbiter, game: i64, pick: u64) {
    match pick % 3 {
        0 => {
            black
                .resign(pb::ResignRequest { game_id: game })
                .await
                .expect("resign");
        }
        1 => {
            white
                .resign(pb::ResignRequest { game_id: game })
                .await
                .expect("resign");
        }
        _ => {
            white
                .offer_draw(pb::OfferDrawRequest { game_id: game })
                .await
                .expect("offer");
            black
                .accept_draw(pb::AcceptDrawRequest { game_id: game })
                .await
                .expect("accept");
        }
    }
}

/// The turns of a game that ends in a goal, found by goal-seeking random play from the start
/// (deterministic for a seed).
#[must_use]
pub fn goal_game(seed: u64) -> Vec<String> {
    let mut rng = hanniball_rng::Rng::new(seed);
    loop {
        let mut position = Position::initial(Ruleset::Standard);
        let mut turns = Vec::new();
        while position.result().is_none() {
            let turn = goal_seeking_turn(&position, &mut |n| rng.usize(..n)).expect("game on");
            position = position.play_turn(&turn).expect("legal");
            turns.push(turn.to_string());
        }
        if position.result_is_goal() {
            return turns;
        }
    }
}

/// One `GET path` to the web part at `web` on a new connection (`Connection: close`, as the
/// benches measure a page): the whole answer, which must be a 200.
pub async fn http_get(web: &str, path: &str) -> Vec<u8> {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let mut stream = tokio::net::TcpStream::connect(web).await.expect("connect");
    stream
        .write_all(
            format!("GET {path} HTTP/1.1\r\nHost: {web}\r\nConnection: close\r\n\r\n").as_bytes(),
        )
        .await
        .expect("request");
    let mut page = Vec::new();
    stream.read_to_end(&mut page).await.expect("page");
    assert!(
        page.starts_with(b"HTTP/1.1 200"),
        "{path}: {}",
        String::from_utf8_lossy(&page)
    );
    page
}

/// The value after `name` on the command line (`--games 8`), for the benchmarks.
#[must_use]
pub fn arg_value(name: &str) -> Option<String> {
    let all: Vec<String> = std::env::args().collect();
    all.iter()
        .position(|a| a == name)
        .and_then(|i| all.get(i + 1).cloned())
}

/// The `p` quantile (0 to 1) of `sorted` durations, nearest rank; zero when empty.
#[must_use]
pub fn percentile(sorted: &[std::time::Duration], p: f64) -> std::time::Duration {
    if sorted.is_empty() {
        return std::time::Duration::ZERO;
    }
    let i = ((sorted.len() as f64 * p).ceil() as usize).clamp(1, sorted.len()) - 1;
    sorted[i]
}
