//! Load generator for the arbiter: N concurrent games with random legal turns over gRPC, next to an
//! empty RPC (`Ping`) on the same server as the baseline.
//!
//! `cargo bench -p hanniball-e2e --bench load -- [--games N] [--seconds S] [--rounds K]
//!  [--rate R] [--only ping|turn|steps] [--server URL --token ADMIN_TOKEN]`
//!
//! Without `--server` it starts the arbiter in-process (its own runtime) on a fresh SQLite file with
//! durable commits (WAL, synchronous=FULL). Phases of `S` seconds (default 5):
//! - saturation, `K` rounds (default 3) of Ping then SubmitTurn: every game's client sends back to
//!   back; throughput is what the server sustains; the SubmitTurn/Ping ratio is reported per round
//!   and as the median, since the baseline itself varies from run to run;
//! - paced, once for each call: the games together offer `R` calls per second (default 2,000);
//!   latency p50/p99 is measured at that load (`--rate 0` skips it).
//!
//! `--only steps` measures `GetLegalSteps` with a two-step `after` instead (the call a bot without
//! its own rules makes for every step it considers): each game is first played a random number of
//! turns into its script, then every call asks for the steps after the first two steps of the
//! game's next turn; the games do not move on during the phases.
//!
//! The random games are played out locally before the run (64 of them, reused), so that the
//! generator spends its share of the cores on gRPC, not on the rules; the server validates every
//! turn as it would any other.

// The allocator the `hanniball` binary uses: the server in this process should run as it does.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

use std::sync::Arc;
use std::time::{Duration, Instant};

use hanniball_db::testing::{cpu_seconds, thread_cpu_seconds};
use hanniball_e2e::Bearer;
use hanniball_proto::accounts::v1::accounts_client::AccountsClient;
use hanniball_proto::arbiter::v1 as pb;
use hanniball_proto::arbiter::v1::arbiter_client::ArbiterClient;
use hanniball_rules::hanniball::playout::random_turn;
use hanniball_rules::hanniball::{Position, Ruleset};
use tonic::service::interceptor::InterceptedService;
use tonic::transport::Channel;

type Client = ArbiterClient<InterceptedService<Channel, Bearer>>;

struct Args {
    games: usize,
    seconds: f64,
    rate: f64,
    server: Option<(String, String)>,
    only: Option<Call>,
    rounds: usize,
}

fn args() -> Args {
    let mut args = Args {
        games: 1_000,
        seconds: 5.0,
        rate: 2_000.0,
        server: None,
        only: None,
        rounds: 3,
    };
    let all: Vec<String> = std::env::args().collect();
    let value = |name: &str| {
        all.iter()
            .position(|a| a == name)
            .and_then(|i| all.get(i + 1).cloned())
    };
    if let Some(v) = value("--games") {
        args.games = v.parse().expect("--games N");
    }
    if let Some(v) = value("--seconds") {
        args.seconds = v.parse().expect("--seconds S");
    }
    if let Some(v) = value("--rounds") {
        args.rounds = v.parse().expect("--rounds N");
    }
    if let Some(v) = value("--rate") {
        args.rate = v.parse().expect("--rate R");
    }
    match value("--only").as_deref() {
        None => {}
        Some("ping") => args.only = Some(Call::Ping),
        Some("turn") => args.only = Some(Call::Turn),
        Some("steps") => args.only = Some(Call::Steps),
        Some(other) => panic!("--only ping|turn|steps, not {other}"),
    }
    if let (Some(url), Some(token)) = (value("--server"), value("--token")) {
        args.server = Some((url, token));
    }
    // `cargo test --benches` runs this without `--bench`: keep that smoke run short.
    if !all.iter().any(|a| a == "--bench") {
        args.games = 20;
        args.seconds = 0.5;
        args.rate = 200.0;
        args.rounds = 1;
    }
    args
}

/// Starts the arbiter in its own runtime on its own threads; returns its URL and admin token.
fn start_server() -> (String, String) {
    let token = "load-admin".to_owned();
    let (tx, rx) = std::sync::mpsc::channel();
    let admin = token.clone();
    std::thread::spawn(move || {
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .thread_name("server")
            .enable_all()
            .build()
            .expect("server runtime");
        runtime.block_on(async move {
            let url = hanniball_db::testing::sqlite_url();
            let store = hanniball_db::Db::connect(&url).await.expect("database");
            let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
                .await
                .expect("port");
            let options = hanniball_arbiter_svc::Options {
                admin_token: admin.into(),
                clock: hanniball_arbiter_svc::Clock::System,
            };
            // The per-caller limits would cap a saturation run by design; the edge layer itself
            // (and its cost) stays in the path.
            let limits = hanniball_svc_kit::EdgeLimits {
                calls_per_second: 0,
                open_calls: 0,
                failed_auth_per_minute: 0,
                ..hanniball_svc_kit::EdgeLimits::default()
            };
            let running = hanniball_e2e::start_arbiter_with_limits(
                store,
                listener,
                options,
                limits,
                tokio_util::sync::CancellationToken::new(),
            )
            .await
            .expect("server");
            tx.send(format!("http://{}", running.addr))
                .expect("send url");
            running.wait().await.expect("serve");
        });
    });
    (rx.recv().expect("server url"), token)
}

async fn channels(url: &str, count: usize) -> Vec<Channel> {
    let mut out = Vec::new();
    for _ in 0..count {
        out.push(
            Channel::from_shared(url.to_owned())
                .expect("url")
                .connect()
                .await
                .expect("connect"),
        );
    }
    out
}

/// A random game played out locally before the run: its turns as text, and who plays each. The
/// server replays it from the same start and validates every turn as it would any other; the load
/// generator only sends text, so that its own rules work does not eat into the cores it shares
/// with the server.
struct Script {
    turns: Vec<(String, usize)>,
    /// For each turn, two steps that may begin it (its own first two, or its only step and a step
    /// listed after it; one step where none is): the `after` of `--only steps`.
    partials: Vec<String>,
}

impl Script {
    fn random(seed: u64) -> Script {
        let mut rng = hanniball_rng::Rng::new(seed);
        let mut position = Position::initial(Ruleset::Standard);
        let mut turns = Vec::new();
        let mut partials = Vec::new();
        while let Some(turn) = random_turn(&position, &mut |n| rng.usize(..n)) {
            let side = usize::from(position.side_to_move() == hanniball_rules::Side::Black);
            let first = turn.0[0];
            let second = turn.0.get(1).copied().or_else(|| {
                let mid = position
                    .play_steps(&[first])
                    .expect("the turn's first step");
                mid.legal_steps().first().copied()
            });
            partials.push(match second {
                Some(second) => format!("{first} {second}"),
                None => first.to_string(),
            });
            position = position.play_turn(&turn).expect("a random turn is legal");
            turns.push((turn.to_string(), side));
        }
        Script { turns, partials }
    }
}

/// How many different random games the slots share.
const SCRIPTS: usize = 64;

/// One game slot: who plays, which script it follows and how far the game has got.
struct Slot {
    game: i64,
    script: usize,
    next: u32,
    clients: [Client; 2],
}

async fn new_game(admin: &mut Client, white: i64, black: i64) -> i64 {
    let game = admin
        .create_game(pb::CreateGameRequest {
            white_player_id: white,
            black_player_id: black,
            ..Default::default()
        })
        .await
        .expect("create game")
        .into_inner()
        .game
        .expect("game");
    let start = Position::from_notation(&game.state.expect("state").position).expect("position");
    assert_eq!(
        start,
        Position::initial(Ruleset::Standard),
        "the scripts start from the standard initial position"
    );
    game.id
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Call {
    Ping,
    Turn,
    Steps,
}

/// Runs one phase with every slot; returns the slots, the calls completed and latencies in µs.
async fn phase(
    slots: Vec<Slot>,
    scripts: &Arc<Vec<Script>>,
    admin: &Client,
    ids: &Arc<Vec<i64>>,
    call: Call,
    seconds: f64,
    interval: Option<Duration>,
) -> (Vec<Slot>, usize, Vec<u32>) {
    let deadline = Instant::now() + Duration::from_secs_f64(seconds);
    let mut tasks = Vec::new();
    for (index, mut slot) in slots.into_iter().enumerate() {
        let mut admin = admin.clone();
        let ids = Arc::clone(ids);
        let scripts = Arc::clone(scripts);
        tasks.push(tokio::spawn(async move {
            let mut rng = hanniball_rng::Rng::new(index as u64);
            let mut latencies = Vec::new();
            // Spread the paced starts evenly over one interval.
            let mut next_at =
                Instant::now() + interval.map_or(Duration::ZERO, |i| i.mul_f64(rng.f64()));
            while Instant::now() < deadline {
                if let Some(interval) = interval {
                    tokio::time::sleep_until(next_at.into()).await;
                    next_at += interval;
                }
                let script = &scripts[slot.script];
                let (turn, side) = &script.turns[slot.next as usize - 1];
                let start = Instant::now();
                match call {
                    Call::Ping => {
                        slot.clients[*side]
                            .ping(pb::PingRequest {})
                            .await
                            .expect("ping");
                    }
                    Call::Steps => {
                        let answer = slot.clients[*side]
                            .get_legal_steps(pb::GetLegalStepsRequest {
                                game_id: slot.game,
                                after: script.partials[slot.next as usize - 1].clone(),
                            })
                            .await
                            .expect("the partial turn is legal")
                            .into_inner();
                        assert!(answer.must_end || !answer.steps.is_empty());
                    }
                    Call::Turn => {
                        let response = slot.clients[*side]
                            .submit_turn(pb::SubmitTurnRequest {
                                game_id: slot.game,
                                turn_number: slot.next,
                                turn: turn.clone(),
                            })
                            .await
                            .expect("turn accepted")
                            .into_inner();
                        let state = response.state.expect("state");
                        assert_eq!(state.next_turn_number, slot.next + 1, "the turn counted");
                        let over = slot.next as usize == script.turns.len();
                        assert_eq!(
                            state.result.is_some(),
                            over,
                            "the game ends with its script"
                        );
                        slot.next += 1;
                        if over {
                            let white = ids[index % ids.len()];
                            let black = ids[(index + 1) % ids.len()];
                            slot.game = new_game(&mut admin, white, black).await;
                            slot.script = rng.usize(..scripts.len());
                            slot.next = 1;
                        }
                    }
                }
                latencies.push(start.elapsed().as_micros() as u32);
            }
            (slot, latencies)
        }));
    }
    let mut all = Vec::new();
    let mut slots = Vec::new();
    for task in tasks {
        let (slot, latencies) = task.await.expect("task");
        slots.push(slot);
        all.extend(latencies);
    }
    (slots, all.len(), all)
}

fn percentile(sorted: &[u32], p: f64) -> f64 {
    if sorted.is_empty() {
        return f64::NAN;
    }
    let index = ((sorted.len() as f64 - 1.0) * p).round() as usize;
    f64::from(sorted[index]) / 1000.0
}

/// CPU time so far: the whole process, and the load generator's threads alone.
fn cpu_now() -> Option<(f64, f64)> {
    cpu_seconds().zip(thread_cpu_seconds("client"))
}

/// CPU per call over a phase, in µs: server side (server threads, writer, database driver)
/// and load generator.
#[derive(Clone, Copy)]
struct CallCpu {
    server: f64,
    client: f64,
}

fn call_cpu(before: Option<(f64, f64)>, calls: usize) -> Option<CallCpu> {
    let ((total0, client0), (total1, client1)) = before.zip(cpu_now())?;
    let per_call = 1e6 / calls.max(1) as f64;
    Some(CallCpu {
        server: (total1 - total0 - (client1 - client0)) * per_call,
        client: (client1 - client0) * per_call,
    })
}

fn report(
    label: &str,
    calls: usize,
    seconds: f64,
    cpu: Option<CallCpu>,
    mut latencies: Vec<u32>,
) -> f64 {
    latencies.sort_unstable();
    let rate = calls as f64 / seconds;
    let cpu = cpu.map_or(String::new(), |cpu| {
        format!(
            "   CPU {:>5.1} µs/call (server side {:.1}, load generator {:.1})",
            cpu.server + cpu.client,
            cpu.server,
            cpu.client
        )
    });
    println!(
        "{label:<28} {rate:>9.0} calls/s   p50 {:>7.2} ms   p99 {:>7.2} ms{cpu}",
        percentile(&latencies, 0.5),
        percentile(&latencies, 0.99)
    );
    rate
}

fn median(values: &mut [f64]) -> Option<f64> {
    values.sort_by(f64::total_cmp);
    values.get(values.len() / 2).copied()
}

fn main() {
    let args = args();
    let (url, token) = args.server.clone().unwrap_or_else(start_server);
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .thread_name("client")
        .enable_all()
        .build()
        .expect("client runtime");
    runtime.block_on(async move {
        let pool = channels(&url, 8).await;
        let bearer = Bearer::new;
        let mut admin = ArbiterClient::with_interceptor(pool[0].clone(), bearer(&token));
        let mut accounts = AccountsClient::with_interceptor(pool[0].clone(), bearer(&token));
        // 40 players share the games; each game's two players act with their own tokens.
        let run = std::process::id();
        let mut ids = Vec::new();
        let mut tokens = Vec::new();
        for i in 0..40 {
            let (id, token) =
                hanniball_e2e::register_bot(&mut accounts, &format!("load-{run}-{i}")).await;
            ids.push(id);
            tokens.push(token);
        }
        let ids = Arc::new(ids);
        let scripts = Arc::new((0..SCRIPTS as u64).map(Script::random).collect::<Vec<_>>());
        let mut parked = Vec::new();
        for i in 0..args.games {
            let (w, b) = (i % ids.len(), (i + 1) % ids.len());
            let game = new_game(&mut admin, ids[w], ids[b]).await;
            let channel = pool[i % pool.len()].clone();
            parked.push(Slot {
                game,
                script: i % SCRIPTS,
                next: 1,
                clients: [
                    ArbiterClient::with_interceptor(channel.clone(), bearer(&tokens[w])),
                    ArbiterClient::with_interceptor(channel, bearer(&tokens[b])),
                ],
            });
        }
        if args.only == Some(Call::Steps) {
            // Spread the games over their scripts, so that the steps are asked in varied
            // positions (but never past a script's last turn: its game would end).
            let mut rng = hanniball_rng::Rng::new(7);
            for slot in &mut parked {
                let script = &scripts[slot.script];
                let played = rng.usize(..script.turns.len().min(40));
                for (turn, side) in &script.turns[..played] {
                    slot.clients[*side]
                        .submit_turn(pb::SubmitTurnRequest {
                            game_id: slot.game,
                            turn_number: slot.next,
                            turn: turn.clone(),
                        })
                        .await
                        .expect("turn accepted");
                    slot.next += 1;
                }
            }
        }
        let mut slots = parked;
        let mean_turns =
            scripts.iter().map(|s| s.turns.len()).sum::<usize>() as f64 / scripts.len() as f64;
        println!(
            "arbiter load: {} concurrent games ({mean_turns:.0} turns per game on average, then a \
             new game), {:.0} s per phase, paced at {:.0} calls/s in all",
            args.games, args.seconds, args.rate
        );
        let calls = match args.only {
            Some(Call::Steps) => vec![(Call::Steps, "GetLegalSteps after 2 steps")],
            only => [(Call::Ping, "Ping (empty RPC)"), (Call::Turn, "SubmitTurn")]
                .into_iter()
                .filter(|(call, _)| only.is_none_or(|only| only == *call))
                .collect(),
        };
        // Saturation phases alternate, round after round, so that both calls see the same
        // machine; the throughput ratio is taken per round and its median reported.
        let mut ratios = Vec::new();
        let mut turn_rates = Vec::new();
        let mut turn_server_cpu = Vec::new();
        let in_process = args.server.is_none();
        // One phase, its report and its CPU per call: at saturation without an interval, paced
        // with one (every slot calls at its own steady interval).
        let measured =
            async |slots: Vec<Slot>, call: Call, label: &str, interval: Option<Duration>| {
                let before = cpu_now();
                let (back, n, lat) =
                    phase(slots, &scripts, &admin, &ids, call, args.seconds, interval).await;
                let cpu = call_cpu(before, n).filter(|_| in_process);
                let rate = report(label, n, args.seconds, cpu, lat);
                (back, rate, cpu)
            };
        // The interval of each slot for `rate` calls/s in all.
        let paced = |rate: f64| Some(Duration::from_secs_f64(args.games as f64 / rate));
        for round in 1..=args.rounds {
            println!("round {round} of {}", args.rounds);
            let mut rates = Vec::new();
            for &(call, name) in &calls {
                let (back, rate, cpu) =
                    measured(slots, call, &format!("{name}, saturation"), None).await;
                if call == Call::Turn {
                    turn_rates.push(rate);
                    turn_server_cpu.extend(cpu.map(|c| c.server));
                }
                rates.push(rate);
                slots = back;
            }
            if let [ping, turn] = rates[..] {
                println!("  submit-turn / empty-RPC throughput: {:.2}", turn / ping);
                ratios.push(turn / ping);
            }
        }
        if args.rate > 0.0 {
            println!("paced at {:.0} calls/s in all", args.rate);
            for &(call, name) in &calls {
                let label = format!("{name}, paced");
                slots = measured(slots, call, &label, paced(args.rate)).await.0;
            }
        }
        // An empty call's cost depends on the call rate (at saturation each wake-up and system
        // call carries more calls), so the ratio above also compares two rates. This phase puts
        // the empty call at the rate turns reached, to tell the turn's own cost from that.
        if calls.len() == 2
            && let Some(rate) = median(&mut turn_rates)
        {
            println!("the empty RPC paced at the saturated SubmitTurn rate");
            let label = "Ping (empty RPC), paced";
            let (_, _, cpu) = measured(slots, Call::Ping, label, paced(rate)).await;
            if let (Some(ping), Some(turn)) = (cpu, median(&mut turn_server_cpu)) {
                println!(
                    "  server side per call at {rate:.0} calls/s: SubmitTurn {turn:.1} µs, \
                     empty RPC {:.1} µs",
                    ping.server
                );
            }
        }
        if let Some(middle) = median(&mut ratios) {
            println!(
                "submit-turn throughput / empty-RPC throughput: median {middle:.2} (rounds: {})",
                ratios
                    .iter()
                    .map(|r| format!("{r:.2}"))
                    .collect::<Vec<_>>()
                    .join(", ")
            );
        }
    });
}
