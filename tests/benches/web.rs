//! The web pages under load: live fan-out to many spectators of one game, and page render time.
//!
//! `cargo bench -p hanniball-e2e --bench web -- [--spectators N] [--turns T] [--pages K]`
//!
//! The arbiter (SQLite, durable commits), the web part and the clients all run in this process on
//! the machine's cores. `N` spectators (default 1,000) open the game's event stream
//! (`/games/ID/events`, server-sent events over plain HTTP/1.1, as a browser does); then `T` turns
//! (default 20) are submitted through gRPC, one every 100 ms, and each spectator notes when each
//! turn's update arrives: latency is from sending the turn to its arrival, over all N × T
//! deliveries. Then `K` requests (default 2,000) for the game's page, one after another, each on
//! a new connection: render latency p50/p99.
//!
//! Then a tournament page: `P` players (default 500, `--players`) play a Swiss of `R` rounds
//! (default 9, `--rounds`) through the scheduler (results set by the organiser, random; each
//! round paired by the scheduler as the last result comes in), and `K` requests fetch
//! `/tournaments/ID` (standings with tie-breaks, crosstable, every round's pairings): p50/p99.

#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use hanniball_e2e::{ADMIN_TOKEN, Bearer, arg_value, goal_game, percentile, start, submit};
use hanniball_proto::accounts::v1 as apb;
use hanniball_proto::accounts::v1::accounts_client::AccountsClient;
use hanniball_proto::scheduler::v1 as spb;
use hanniball_proto::scheduler::v1::scheduler_client::SchedulerClient;
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
use tokio_util::sync::CancellationToken;

/// One spectator: opens the event stream and records when each turn's update arrives.
async fn spectate(
    web: String,
    game: i64,
    arrivals: Arc<Mutex<Vec<(u32, Instant)>>>,
    ready: tokio::sync::mpsc::Sender<()>,
) {
    let mut stream = tokio::net::TcpStream::connect(&web).await.expect("connect");
    stream
        .write_all(
            format!(
                "GET /games/{game}/events HTTP/1.1\r\nHost: {web}\r\nAccept: text/event-stream\r\n\r\n"
            )
            .as_bytes(),
        )
        .await
        .expect("request");
    let mut lines = BufReader::new(stream).lines();
    // Status line and headers.
    while let Ok(Some(line)) = lines.next_line().await {
        if line.is_empty() {
            break;
        }
    }
    ready.send(()).await.ok();
    while let Ok(Some(line)) = lines.next_line().await {
        // `data: {... "turn":{"number":N,...} ...}` (chunked framing lines are skipped).
        if let Some(at) = line.find("\"number\":") {
            let digits: String = line[at + 9..]
                .chars()
                .take_while(char::is_ascii_digit)
                .collect();
            if let Ok(number) = digits.parse() {
                arrivals
                    .lock()
                    .expect("arrivals")
                    .push((number, Instant::now()));
            }
        }
    }
}

fn main() {
    let spectators: usize = arg_value("--spectators").map_or(1_000, |v| v.parse().expect("N"));
    let turns: usize = arg_value("--turns").map_or(20, |v| v.parse().expect("T"));
    let pages: usize = arg_value("--pages").map_or(2_000, |v| v.parse().expect("K"));
    let players: usize = arg_value("--players").map_or(500, |v| v.parse().expect("P"));
    let rounds: u32 = arg_value("--rounds").map_or(9, |v| v.parse().expect("R"));
    // `cargo test --benches` runs this without `--bench`: keep that smoke run short.
    let (spectators, turns, pages, players, rounds) = if std::env::args().any(|a| a == "--bench") {
        (spectators, turns, pages, players, rounds)
    } else {
        (20, 3, 20, 8, 2)
    };
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .expect("runtime");
    runtime.block_on(async move {
        let server = start(&hanniball_db::testing::sqlite_url()).await;
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
            .await
            .expect("port");
        let web = listener.local_addr().expect("addr").to_string();
        let router = hanniball_web::router(&hanniball_web::WebOptions {
            arbiter_url: server.url(),
            accounts_url: None,
            scheduler_url: None,
            rating_url: None,
            token: ADMIN_TOKEN.to_owned(),
            tls: hanniball_svc_kit::ClientTls::default(),
            failed_sign_ins_per_minute: 60,
            secure_cookies: false,
        })
        .expect("router");
        let shutdown = CancellationToken::new();
        tokio::spawn(hanniball_web::serve(listener, router, shutdown.clone()));
        let (white, mut w) = server.player("white").await;
        let (black, mut b) = server.player("black").await;
        let game = server.game(white, black, None).await.id;
        let script = loop {
            let script = goal_game(draw());
            if script.len() > turns {
                break script;
            }
        };

        let arrivals = Arc::new(Mutex::new(Vec::new()));
        let (ready, mut readied) = tokio::sync::mpsc::channel(spectators);
        for _ in 0..spectators {
            tokio::spawn(spectate(
                web.clone(),
                game,
                Arc::clone(&arrivals),
                ready.clone(),
            ));
        }
        for _ in 0..spectators {
            readied.recv().await.expect("a spectator is ready");
        }
        let mut sent = Vec::new();
        for (i, turn) in script.iter().take(turns).enumerate() {
            let number = i as u32 + 1;
            let client = if i % 2 == 0 { &mut w } else { &mut b };
            sent.push(Instant::now());
            submit(client, game, number, turn).await.expect("turn");
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
        tokio::time::sleep(Duration::from_secs(2)).await;
        let arrivals = arrivals.lock().expect("arrivals").clone();
        let mut latencies: Vec<Duration> = arrivals
            .iter()
            .filter(|(n, _)| (1..=turns as u32).contains(n))
            .map(|(n, at)| at.duration_since(sent[*n as usize - 1]))
            .collect();
        latencies.sort();
        let expected = spectators * turns;
        println!(
            "fan-out: {spectators} spectators × {turns} turns: {} of {expected} updates delivered, \
             p50 {:.2} ms, p99 {:.2} ms, max {:.2} ms (from sending the turn)",
            latencies.len(),
            percentile(&latencies, 0.5).as_secs_f64() * 1e3,
            percentile(&latencies, 0.99).as_secs_f64() * 1e3,
            latencies.last().copied().unwrap_or_default().as_secs_f64() * 1e3,
        );

        let (renders, size) = fetch_many(&web, &format!("/games/{game}"), pages).await;
        println!(
            "game page ({turns} turns, {} KB): {pages} requests, p50 {:.2} ms, p99 {:.2} ms",
            size / 1024,
            percentile(&renders, 0.5).as_secs_f64() * 1e3,
            percentile(&renders, 0.99).as_secs_f64() * 1e3,
        );
        shutdown.cancel();
        tournament_page(players, rounds, pages).await;
    });
}

/// `count` requests for `path`, one after another, each on a new connection; sorted latencies and
/// the page's size in bytes.
async fn fetch_many(web: &str, path: &str, count: usize) -> (Vec<Duration>, usize) {
    let mut renders = Vec::with_capacity(count);
    let mut size = 0;
    for _ in 0..count {
        let started = Instant::now();
        let page = hanniball_e2e::http_get(web, path).await;
        renders.push(started.elapsed());
        size = page.len();
    }
    renders.sort();
    (renders, size)
}

/// A Swiss of `players` and `rounds` played to the end (random results set by the organiser),
/// then its page fetched `pages` times.
async fn tournament_page(players: usize, rounds: u32, pages: usize) {
    let (url, shutdown) =
        hanniball_e2e::arbiter_and_scheduler(&hanniball_db::testing::sqlite_url()).await;
    let channel = tonic::transport::Channel::from_shared(url.clone())
        .expect("url")
        .connect()
        .await
        .expect("connect");
    let mut accounts = AccountsClient::with_interceptor(channel.clone(), Bearer::new(ADMIN_TOKEN));
    let mut organiser = SchedulerClient::with_interceptor(channel, Bearer::new(ADMIN_TOKEN));
    let started = Instant::now();
    let tournament = organiser
        .create_tournament(spb::CreateTournamentRequest {
            settings: Some(spb::TournamentSettings {
                name: format!("Bench Open {players}"),
                kind: "hanniball".to_owned(),
                rounds,
                ..Default::default()
            }),
        })
        .await
        .expect("create")
        .into_inner()
        .tournament
        .expect("tournament")
        .id;
    for i in 0..players {
        let player = accounts
            .register_player(apb::RegisterPlayerRequest {
                name: format!("player-{i:04}"),
                kind: apb::PlayerKind::Bot as i32,
                issue_token: false,
            })
            .await
            .expect("register")
            .into_inner()
            .player
            .expect("player");
        organiser
            .add_player(spb::AddPlayerRequest {
                tournament_id: tournament,
                player_id: player.id,
                rating: 1_000 + (draw() % 1_500) as i32,
            })
            .await
            .expect("add");
    }
    organiser
        .start_tournament(spb::StartTournamentRequest {
            tournament_id: tournament,
        })
        .await
        .expect("start");
    for round in 1..=rounds {
        let boards = loop {
            let t = organiser
                .get_tournament(spb::GetTournamentRequest {
                    tournament_id: tournament,
                })
                .await
                .expect("tournament")
                .into_inner()
                .tournament
                .expect("tournament");
            let boards: Vec<spb::Board> = t
                .boards
                .into_iter()
                .filter(|b| b.round == round && b.kind() == spb::BoardKind::Game)
                .collect();
            if t.current_round == round
                && !boards.is_empty()
                && boards.iter().all(|b| b.game_id > 0)
            {
                break boards;
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        };
        for board in boards {
            let result = ["1-0", "0-1", "1/2-1/2", "1-0", "0-1"][(draw() % 5) as usize];
            organiser
                .set_result(spb::SetResultRequest {
                    tournament_id: tournament,
                    round,
                    board: board.number,
                    result: result.to_owned(),
                })
                .await
                .expect("result");
        }
    }
    let setup = started.elapsed();
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("port");
    let web = listener.local_addr().expect("addr").to_string();
    let router = hanniball_web::router(&hanniball_web::WebOptions {
        arbiter_url: url.clone(),
        accounts_url: None,
        scheduler_url: Some(url.clone()),
        rating_url: None,
        token: ADMIN_TOKEN.to_owned(),
        tls: hanniball_svc_kit::ClientTls::default(),
        failed_sign_ins_per_minute: 60,
        secure_cookies: false,
    })
    .expect("router");
    tokio::spawn(hanniball_web::serve(listener, router, shutdown.clone()));
    let (renders, size) = fetch_many(&web, &format!("/tournaments/{tournament}"), pages).await;
    println!(
        "tournament page ({players} players, {rounds} rounds, {} KB; set up in {:.1} s): \
         {pages} requests, p50 {:.2} ms, p99 {:.2} ms",
        size / 1024,
        setup.as_secs_f64(),
        percentile(&renders, 0.5).as_secs_f64() * 1e3,
        percentile(&renders, 0.99).as_secs_f64() * 1e3,
    );
    // Where the page's time goes: the two calls it makes.
    let mut tournament_calls = Vec::new();
    let mut standings_calls = Vec::new();
    for _ in 0..pages.min(200) {
        let started = Instant::now();
        organiser
            .get_tournament(spb::GetTournamentRequest {
                tournament_id: tournament,
            })
            .await
            .expect("tournament");
        tournament_calls.push(started.elapsed());
        let started = Instant::now();
        organiser
            .get_standings(spb::GetStandingsRequest {
                tournament_id: tournament,
                after_round: 0,
            })
            .await
            .expect("standings");
        standings_calls.push(started.elapsed());
    }
    tournament_calls.sort();
    standings_calls.sort();
    println!(
        "  of which GetTournament p50 {:.2} ms, GetStandings p50 {:.2} ms (gRPC, same process)",
        percentile(&tournament_calls, 0.5).as_secs_f64() * 1e3,
        percentile(&standings_calls, 0.5).as_secs_f64() * 1e3,
    );
    shutdown.cancel();
}

/// The bench's inputs: a fixed sequence from the workspace's generator.
fn draw() -> u64 {
    static NEXT: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
    hanniball_rng::mix(NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed))
}
