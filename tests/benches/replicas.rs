//! Arbiter replicas on one PostgreSQL database, with 1, 2 and 3 replicas in this process:
//! - turns/s with every call sent to a random replica (`--games` games played back to back, each
//!   turn through any replica, for `--seconds`);
//! - event latency across replicas: a turn submitted through one replica, heard on another
//!   replica's `WatchGame` (p50/p99 of the time from sending the turn to receiving the event);
//! - failover: a timed game created through the first replica, which then stops (and gives up its
//!   clock leases); how long after the game's deadline another replica has ended it on time;
//! - failover after a death: a timed game whose clock lease was left by a replica that died (the
//!   lease nobody renews lapses 3 s after it was last renewed); how long after the deadline a live
//!   replica has taken it over and ended it on time.
//!
//! `cargo bench -p hanniball-e2e --bench replicas -- [--games N] [--seconds S] [--samples K]`
//! Needs PostgreSQL: `HANNIBALL_TEST_POSTGRES_URL` (default `postgres://postgres@127.0.0.1:5432/test`);
//! each replica count gets a fresh database next to it. On two shared cores the replicas compete
//! with each other and with the load generator: the point is correctness and latency, not scaling.

#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use hanniball_arbiter_svc::store::Store;
use hanniball_arbiter_svc::{Clock, Options};
use hanniball_db::Db;
use hanniball_e2e::Running;
use hanniball_e2e::{Bearer, arg_value, goal_game, percentile};
use hanniball_proto::accounts::v1::accounts_client::AccountsClient;
use hanniball_proto::arbiter::v1 as pb;
use hanniball_proto::arbiter::v1::arbiter_client::ArbiterClient;
use tokio_stream::StreamExt;
use tokio_util::sync::CancellationToken;
use tonic::service::interceptor::InterceptedService;
use tonic::transport::Channel;

const ADMIN: &str = "bench-admin-token";

type Arbiter = ArbiterClient<InterceptedService<Channel, Bearer>>;

struct Replicas {
    running: Vec<Running>,
    channels: Vec<Channel>,
}

impl Replicas {
    async fn start(url: &str, n: usize) -> Replicas {
        let mut running = Vec::new();
        let mut channels = Vec::new();
        for _ in 0..n {
            let store = Db::connect(url).await.expect("database");
            let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
                .await
                .expect("port");
            let options = Options {
                admin_token: ADMIN.into(),
                clock: Clock::System,
            };
            let limits = hanniball_svc_kit::EdgeLimits {
                calls_per_second: 0,
                open_calls: 0,
                failed_auth_per_minute: 0,
                ..hanniball_svc_kit::EdgeLimits::default()
            };
            let server = hanniball_e2e::start_arbiter_with_limits(
                store,
                listener,
                options,
                limits,
                CancellationToken::new(),
            )
            .await
            .expect("replica starts");
            let channel = Channel::from_shared(format!("http://{}", server.addr))
                .expect("url")
                .connect()
                .await
                .expect("connect");
            running.push(server);
            channels.push(channel);
        }
        Replicas { running, channels }
    }

    fn arbiter(&self, replica: usize, token: &str) -> Arbiter {
        ArbiterClient::with_interceptor(self.channels[replica].clone(), Bearer::new(token))
    }

    async fn player(&self, name: &str) -> (i64, String) {
        let mut accounts =
            AccountsClient::with_interceptor(self.channels[0].clone(), Bearer::new(ADMIN));
        hanniball_e2e::register_bot(&mut accounts, name).await
    }

    async fn game(&self, replica: usize, white: i64, black: i64, time: Option<i64>) -> i64 {
        self.arbiter(replica, ADMIN)
            .create_game(pb::CreateGameRequest {
                kind: "hanniball".to_owned(),
                white_player_id: white,
                black_player_id: black,
                time_control: time.map(|initial_ms| pb::TimeControl {
                    initial_ms,
                    increment_ms: 0,
                }),
                ..Default::default()
            })
            .await
            .expect("create")
            .into_inner()
            .game
            .expect("game")
            .id
    }
}

async fn turns_per_second(replicas: &Arc<Replicas>, games: usize, seconds: f64) -> f64 {
    let turns = Arc::new(AtomicU64::new(0));
    let refused = Arc::new(AtomicU64::new(0));
    let deadline = Instant::now() + Duration::from_secs_f64(seconds);
    let mut tasks = Vec::new();
    let started = Instant::now();
    for g in 0..games {
        let replicas = Arc::clone(replicas);
        let (turns, refused) = (Arc::clone(&turns), Arc::clone(&refused));
        tasks.push(tokio::spawn(async move {
            let (white, wt) = replicas.player(&format!("w{g}")).await;
            let (black, bt) = replicas.player(&format!("b{g}")).await;
            let n = replicas.channels.len();
            let mut rng = hanniball_rng::Rng::new(g as u64);
            let mut seed = g as u64 * 1_000;
            while Instant::now() < deadline {
                let game = replicas.game(rng.usize(..n), white, black, None).await;
                seed += 1;
                for (i, turn) in goal_game(seed).iter().enumerate() {
                    if Instant::now() >= deadline {
                        return;
                    }
                    let token = if i % 2 == 0 { &wt } else { &bt };
                    let mut client = replicas.arbiter(rng.usize(..n), token);
                    let answer = client
                        .submit_turn(pb::SubmitTurnRequest {
                            game_id: game,
                            turn_number: i as u32 + 1,
                            turn: turn.clone(),
                        })
                        .await;
                    match answer {
                        Ok(_) => turns.fetch_add(1, Ordering::Relaxed),
                        Err(status) => {
                            eprintln!("refused: {status:?}");
                            refused.fetch_add(1, Ordering::Relaxed)
                        }
                    };
                }
            }
        }));
    }
    for task in tasks {
        task.await.expect("game task");
    }
    let refused = refused.load(Ordering::Relaxed);
    assert_eq!(refused, 0, "legal turns were refused");
    turns.load(Ordering::Relaxed) as f64 / started.elapsed().as_secs_f64()
}

async fn event_latency(replicas: &Replicas, samples: usize) -> (Duration, Duration) {
    let n = replicas.channels.len();
    let (white, wt) = replicas.player("lat-w").await;
    let (black, bt) = replicas.player("lat-b").await;
    let mut latencies = Vec::with_capacity(samples);
    let mut seed = 77;
    while latencies.len() < samples {
        let game = replicas.game(0, white, black, None).await;
        seed += 1;
        for (i, turn) in goal_game(seed).iter().enumerate() {
            if latencies.len() >= samples {
                break;
            }
            let via = i % n;
            let heard_on = (i + 1) % n;
            let mut watch = replicas
                .arbiter(heard_on, ADMIN)
                .watch_game(pb::WatchGameRequest {
                    game_id: game,
                    from_turn: 0,
                })
                .await
                .expect("watch")
                .into_inner();
            // The snapshot first.
            watch.next().await.expect("snapshot").expect("event");
            let token = if i % 2 == 0 { &wt } else { &bt };
            let sent = Instant::now();
            replicas
                .arbiter(via, token)
                .submit_turn(pb::SubmitTurnRequest {
                    game_id: game,
                    turn_number: i as u32 + 1,
                    turn: turn.clone(),
                })
                .await
                .expect("turn");
            loop {
                let event = tokio::time::timeout(Duration::from_secs(5), watch.next())
                    .await
                    .expect("the event arrives")
                    .expect("stream open")
                    .expect("event");
                if matches!(event.event, Some(pb::game_event::Event::TurnPlayed(_))) {
                    latencies.push(sent.elapsed());
                    break;
                }
            }
        }
    }
    latencies.sort();
    (percentile(&latencies, 0.5), percentile(&latencies, 0.99))
}

/// How the replica keeping a timed game's clock goes away in [`failover`].
enum Loss {
    /// The first replica (the game's creator) stops cleanly, giving up its leases.
    Stopped,
    /// A replica that died holds the game's lease (taken just after the start, never renewed);
    /// every replica stays up.
    Died,
}

/// How long after a 1 s game's deadline a live replica ends it on time, after `loss`.
async fn failover(replicas: Replicas, url: &str, loss: Loss) -> (Duration, Replicas) {
    let tag = match loss {
        Loss::Stopped => "stopped",
        Loss::Died => "died",
    };
    let (white, _) = replicas.player(&format!("fo-{tag}-w")).await;
    let (black, _) = replicas.player(&format!("fo-{tag}-b")).await;
    let mut results = replicas
        .arbiter(1, ADMIN)
        .watch_results(pb::WatchResultsRequest { after_sequence: 0 })
        .await
        .expect("results")
        .into_inner();
    let clock_ms = 1_000;
    let created = Instant::now();
    let game = replicas.game(0, white, black, Some(clock_ms)).await;
    let mut replicas = replicas;
    match loss {
        Loss::Stopped => {
            let first = replicas.running.remove(0);
            replicas.channels.remove(0);
            first.stop().await.expect("stops");
        }
        Loss::Died => {
            let now = std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .expect("time")
                .as_millis() as i64;
            Store::connect(url)
                .await
                .expect("database")
                .claim_clocks(
                    &[hanniball_arbiter::GameId(game)],
                    "dead-replica",
                    i64::MAX - 1,
                    now + 3_000,
                )
                .await
                .expect("the dead replica's lease");
        }
    }
    // The stream starts with the games that finished earlier (the turns/s phase).
    loop {
        let finished = tokio::time::timeout(Duration::from_secs(30), results.next())
            .await
            .expect("the game ends on time")
            .expect("stream open")
            .expect("finished");
        if finished.game_id == game {
            break;
        }
    }
    let after = created
        .elapsed()
        .saturating_sub(Duration::from_millis(clock_ms as u64));
    (after, replicas)
}

fn main() {
    let games: usize = arg_value("--games").map_or(8, |v| v.parse().expect("--games N"));
    let seconds: f64 = arg_value("--seconds").map_or(4.0, |v| v.parse().expect("--seconds S"));
    let samples: usize = arg_value("--samples").map_or(200, |v| v.parse().expect("--samples K"));
    let base = std::env::var("HANNIBALL_TEST_POSTGRES_URL")
        .ok()
        .filter(|u| !u.is_empty())
        .unwrap_or_else(|| "postgres://postgres@127.0.0.1:5432/test".to_owned());
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .expect("runtime");
    runtime.block_on(async {
        println!(
            "replicas  turns/s  event p50 ms  event p99 ms  failover ms (stopped / died)  ({games} games, {seconds} s, {samples} samples)"
        );
        for n in 1..=3 {
            let url = hanniball_db::testing::postgres_url(&base)
                .await
                .expect("a fresh PostgreSQL database (set HANNIBALL_TEST_POSTGRES_URL)");
            let replicas = Arc::new(Replicas::start(&url, n).await);
            let rate = turns_per_second(&replicas, games, seconds).await;
            let (p50, p99) = event_latency(&replicas, samples).await;
            let failover = if n >= 2 {
                let replicas = Arc::try_unwrap(replicas)
                    .ok()
                    .expect("no other holder");
                let (died, replicas) = failover(replicas, &url, Loss::Died).await;
                let (stopped, _) = failover(replicas, &url, Loss::Stopped).await;
                format!(
                    "{:.0} / {:.0}",
                    stopped.as_secs_f64() * 1_000.0,
                    died.as_secs_f64() * 1_000.0
                )
            } else {
                "-".to_owned()
            };
            println!(
                "{n:>8}  {rate:>7.0}  {:>12.2}  {:>12.2}  {failover:>29}",
                p50.as_secs_f64() * 1_000.0,
                p99.as_secs_f64() * 1_000.0
            );
        }
    });
}
