//! Rating benchmarks on SQLite (a file, WAL, synchronous=FULL, as `hanniball serve` runs it):
//!
//! (a) rebuild from 1,000,000 stored results among 100,000 players. The events are imported
//!     straight through the store (no ratings computed), so the first rebuild computes and writes
//!     everything: every event's before/after and every rating ("cold"). A second rebuild finds
//!     everything equal and writes nothing ("warm": the cost of checking the incremental ratings).
//! (b) leaderboard pages over gRPC (the rating service in-process) with 100,000 rated players,
//! and the same pages as the web part renders them (`/ladders/hanniball`, over HTTP):
//!     first pages, deep pages through page tokens, and filtered pages; p50/p99.
//!
//! `cargo bench -p hanniball-e2e --bench rating -- [--games N] [--players P] [--queries Q]`
//! Without `--bench` (as `cargo test --benches` runs it) it is a quick smoke run.

use std::collections::BTreeMap;
use std::time::{Duration, Instant};

use hanniball_accounts::Accounts;
use hanniball_arbiter::{GameId, PlayerId, Timestamp};
use hanniball_db::Db;
use hanniball_e2e::Bearer;
use hanniball_proto::rating::v1 as pb;
use hanniball_proto::rating::v1::rating_client::RatingClient;
use hanniball_rating::{Score, System};
use hanniball_rating_svc::store::{Change, NewEvent, Store};
use hanniball_rating_svc::{Ladders, RatingOptions};
use hanniball_svc_kit::Directory;
use tokio_util::sync::CancellationToken;
use tonic::transport::Channel;

struct Args {
    games: usize,
    players: usize,
    queries: usize,
}

fn args() -> Args {
    let all: Vec<String> = std::env::args().collect();
    let value = |name: &str| {
        all.iter()
            .position(|a| a == name)
            .and_then(|i| all.get(i + 1).cloned())
    };
    let mut args = Args {
        games: 1_000_000,
        players: 100_000,
        queries: 2_000,
    };
    // `cargo test --benches` runs this without `--bench`: keep that smoke run short.
    if !all.iter().any(|a| a == "--bench") {
        args = Args {
            games: 5_000,
            players: 500,
            queries: 50,
        };
    }
    if let Some(v) = value("--games") {
        args.games = v.parse().expect("--games N");
    }
    if let Some(v) = value("--players") {
        args.players = v.parse().expect("--players P");
    }
    if let Some(v) = value("--queries") {
        args.queries = v.parse().expect("--queries Q");
    }
    args
}

fn percentile(sorted: &[Duration], p: f64) -> Duration {
    if sorted.is_empty() {
        return Duration::ZERO;
    }
    let i = ((sorted.len() as f64 - 1.0) * p).round() as usize;
    sorted[i.min(sorted.len() - 1)]
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}

/// Random games between random players, a game every 20 s from November 2023 on.
fn games(args: &Args, first_player: i64) -> Vec<NewEvent> {
    let mut rng = hanniball_rng::Rng::new(7);
    let n = args.players as i64;
    (0..args.games as i64)
        .map(|i| {
            let a = rng.i64(0..n);
            let mut b = rng.i64(0..n);
            while b == a {
                b = rng.i64(0..n);
            }
            NewEvent {
                ladder: "hanniball".to_owned(),
                at: Timestamp((1_700_000_000 + i * 20) * 1000),
                change: Change::Game {
                    game_id: GameId(i + 1),
                    first: PlayerId(first_player + a),
                    second: PlayerId(first_player + b),
                    score: [Score::Win, Score::Draw, Score::Loss][rng.usize(..3)],
                },
            }
        })
        .collect()
}

async fn rebuild(store: &Store, accounts: &Accounts, args: &Args) -> i64 {
    let started = Instant::now();
    // The players are Accounts'; the rating tables keep their ids.
    let names: Vec<String> = (0..args.players).map(|i| format!("bench-{i}")).collect();
    accounts
        .create_players_bulk(&names, "bot", Timestamp(1))
        .await
        .expect("players");
    let first = accounts
        .player_by_name("bench-0")
        .await
        .expect("read")
        .expect("player")
        .id
        .0;
    let events = games(args, first);
    for chunk in events.chunks(100_000) {
        store
            .import_rating_events(chunk, Timestamp(2))
            .await
            .expect("import");
    }
    println!(
        "setup: {} players and {} results imported in {:.1} s",
        args.players,
        args.games,
        started.elapsed().as_secs_f64()
    );
    let ladders = Ladders::new(System::default(), BTreeMap::new(), false).expect("ladders");
    let started = Instant::now();
    let cold = store.rebuild_ratings(&ladders).await.expect("rebuild");
    let cold_s = started.elapsed().as_secs_f64();
    println!(
        "rebuild (cold: computes and writes {} before/after pairs and {} ratings): {cold_s:.2} s \
         ({:.0} results/s)",
        cold.changed_points,
        cold.changed_ratings,
        args.games as f64 / cold_s
    );
    let started = Instant::now();
    let warm = store.rebuild_ratings(&ladders).await.expect("rebuild");
    let warm_s = started.elapsed().as_secs_f64();
    assert!(warm.matched(), "{warm:?}");
    println!(
        "rebuild (warm: replays, compares, nothing to write, matched={}): {warm_s:.2} s \
         ({:.0} results/s)",
        warm.matched(),
        args.games as f64 / warm_s
    );
    first
}

type Client = RatingClient<tonic::service::interceptor::InterceptedService<Channel, Bearer>>;

async fn timed(
    client: &mut Client,
    request: pb::LeaderboardRequest,
) -> (Duration, pb::LeaderboardResponse) {
    let started = Instant::now();
    let response = client
        .leaderboard(request)
        .await
        .expect("leaderboard")
        .into_inner();
    (started.elapsed(), response)
}

fn report(what: &str, mut samples: Vec<Duration>) {
    samples.sort_unstable();
    println!(
        "{what:<44} n={:<5} p50 {:>6.2} ms  p99 {:>6.2} ms",
        samples.len(),
        ms(percentile(&samples, 0.5)),
        ms(percentile(&samples, 0.99))
    );
}

async fn leaderboards(db: Db, accounts: Directory, args: &Args) {
    let token = "bench-admin";
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("port");
    let running = hanniball_rating_svc::start(
        db,
        accounts,
        listener,
        RatingOptions::new(token),
        CancellationToken::new(),
    )
    .await
    .expect("rating starts");
    let channel = Channel::from_shared(format!("http://{}", running.addr))
        .expect("url")
        .connect()
        .await
        .expect("connect");
    let mut client = RatingClient::with_interceptor(channel, Bearer::new(token));
    let page = |page_token: String| pb::LeaderboardRequest {
        ladder: "hanniball".to_owned(),
        page_size: 50,
        page_token,
        ..Default::default()
    };
    // Warm-up, and tokens for deep pages: walk the whole board once.
    let walk_started = Instant::now();
    let mut tokens = Vec::new();
    let mut token_now = String::new();
    let mut entries = 0;
    loop {
        let (_, response) = timed(&mut client, page(token_now.clone())).await;
        entries += response.entries.len();
        if response.next_page_token.is_empty() {
            break;
        }
        token_now = response.next_page_token;
        tokens.push(token_now.clone());
    }
    println!(
        "walked the whole board: {entries} players in {} pages of 50 in {:.2} s",
        tokens.len() + 1,
        walk_started.elapsed().as_secs_f64()
    );
    let mut rng = hanniball_rng::Rng::new(9);
    let mut first = Vec::new();
    for _ in 0..args.queries {
        first.push(timed(&mut client, page(String::new())).await.0);
    }
    report("first page (50)", first);
    let mut deep = Vec::new();
    for _ in 0..args.queries {
        let token = tokens[rng.usize(tokens.len() / 2..tokens.len())].clone();
        deep.push(timed(&mut client, page(token)).await.0);
    }
    report("deep page (random, second half of the board)", deep);
    let mut games_filter = Vec::new();
    for _ in 0..args.queries {
        let request = pb::LeaderboardRequest {
            min_games: 25,
            ..page(String::new())
        };
        games_filter.push(timed(&mut client, request).await.0);
    }
    report("first page, min_games 25", games_filter);
    // Active in the last tenth of the history.
    let since_ms = (1_700_000_000 + args.games as i64 * 20 * 9 / 10) * 1000;
    let mut active = Vec::new();
    let mut filtered_tokens = Vec::new();
    let mut filtered_token = String::new();
    for _ in 0..args.queries {
        let request = pb::LeaderboardRequest {
            active_since_ms: since_ms,
            min_games: 10,
            ..page(filtered_token.clone())
        };
        let (took, response) = timed(&mut client, request).await;
        active.push(took);
        filtered_token = response.next_page_token;
        if !filtered_token.is_empty() {
            filtered_tokens.push(filtered_token.clone());
        }
    }
    report("min_games 10 + active_since (paging on)", active);
    let mut ranks = Vec::new();
    for _ in 0..args.queries {
        let player = rng.i64(1..=args.players as i64);
        let started = Instant::now();
        client
            .get_rating(pb::GetRatingRequest {
                player: Some(pb::PlayerRef {
                    player: Some(pb::player_ref::Player::Id(player)),
                }),
                ladder: String::new(),
            })
            .await
            .expect("rating");
        ranks.push(started.elapsed());
    }
    report("GetRating with rank (random player)", ranks);
    web_pages(&running.addr.to_string(), token, &tokens, args.queries).await;
    running.stop().await.expect("stop");
}

/// The leaderboard's web page (`hanniball-web` on the rating service; it calls nothing else for
/// it): the first page and random deep pages, each request on a new HTTP connection.
async fn web_pages(rating: &str, token: &str, tokens: &[String], queries: usize) {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("port");
    let web = listener.local_addr().expect("addr").to_string();
    let url = format!("http://{rating}");
    let router = hanniball_web::router(&hanniball_web::WebOptions {
        // The ladder page asks only the rating service; the arbiter channel stays unused.
        arbiter_url: url.clone(),
        accounts_url: None,
        scheduler_url: None,
        rating_url: Some(url),
        token: token.to_owned(),
        tls: hanniball_svc_kit::ClientTls::default(),
        failed_sign_ins_per_minute: 60,
        secure_cookies: false,
    })
    .expect("router");
    let shutdown = CancellationToken::new();
    tokio::spawn(hanniball_web::serve(listener, router, shutdown.clone()));
    let get = async |path: String| {
        let started = Instant::now();
        hanniball_e2e::http_get(&web, &path).await;
        started.elapsed()
    };
    let mut first = Vec::new();
    for _ in 0..queries {
        first.push(get("/ladders/hanniball".to_owned()).await);
    }
    report("web: leaderboard page, first 50", first);
    let mut rng = hanniball_rng::Rng::new(11);
    let mut deep = Vec::new();
    for _ in 0..queries {
        let token = &tokens[rng.usize(tokens.len() / 2..tokens.len())];
        deep.push(
            get(format!(
                "/ladders/hanniball?page={}",
                hanniball_web::query_encode(token)
            ))
            .await,
        );
    }
    report("web: leaderboard page, deep (second half)", deep);
    shutdown.cancel();
}

fn main() {
    let args = args();
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("runtime");
    runtime.block_on(async move {
        let url = hanniball_db::testing::sqlite_url();
        let db = Db::connect(&url).await.expect("database");
        let accounts = Accounts::open(&db).await.expect("accounts");
        let store = Store::open(&db).await.expect("rating tables");
        rebuild(&store, &accounts, &args).await;
        let directory = Directory::local(hanniball_accounts_svc::lookup::LocalAccounts(accounts));
        leaderboards(db, directory, &args).await;
    });
}
