//! A large Swiss through the public gRPC API, as the organiser of a big online event runs it.
//!
//! `cargo bench -p hanniball-e2e --bench scale -- [--players N] [--rounds R] [--postgres URL]
//! [--results organiser|one-by-one|games] [--entries one-by-one] [--workers W]`
//!
//! The three services (arbiter, rating, scheduler) run in this process on one database (a fresh
//! SQLite file, or a fresh database on the PostgreSQL server at `URL`), on a runtime of `W`
//! worker threads (default 2). `N` players (default 1,000) are registered, entered with one
//! `AddPlayers`, the tournament is started (round 1 paired, its games created in the arbiter),
//! and each of `R` rounds (default 5) gets its results: by the organiser (`SetResults`, one call
//! a round, random results; the default), by the organiser one board at a time (`SetResult` per
//! board, 8 in flight or `--in-flight K`, as a club's console or an arbiter's corrections send them: each call's
//! p50/p99/max printed per round; `--entries one-by-one` enters the players likewise with
//! `AddPlayer`), or by the games (every game played by its two players
//! through the API: a turn each, then one resigns or they agree a draw). `PairNextRound` then
//! pairs the next round and creates its games, while a probe calls `Ping` (scheduler) and
//! `GetGame` (arbiter) every 5 ms: its p50/p99/max over the pairing are printed with each
//! step's wall time. At the end the results are checked to agree: every board's result is its
//! game's, and every player's rated games on the ladder are the played games of the TRF.
//! `RUST_LOG=info` also prints the services' logs (a round's pairing, storing and game-creation
//! times among them).

#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

use std::collections::BTreeMap;
use std::time::{Duration, Instant};

use hanniball_e2e::{ADMIN_TOKEN, Bearer, arg_value, percentile};
use hanniball_proto::accounts::v1 as acc;
use hanniball_proto::accounts::v1::accounts_client::AccountsClient;
use hanniball_proto::arbiter::v1 as pb;
use hanniball_proto::arbiter::v1::arbiter_client::ArbiterClient;
use hanniball_proto::rating::v1 as rpb;
use hanniball_proto::rating::v1::rating_client::RatingClient;
use hanniball_proto::scheduler::v1 as spb;
use hanniball_proto::scheduler::v1::scheduler_client::SchedulerClient;
use tokio_util::sync::CancellationToken;
use tonic::service::interceptor::InterceptedService;
use tonic::transport::Channel;

type Svc = InterceptedService<Channel, Bearer>;

/// Calls in flight at once where the bench itself makes many (registrations, games).
const IN_FLIGHT: usize = 32;

/// Calls in flight in the one-by-one modes (a few organisers' consoles, a bot's reports):
/// `--in-flight K`, 8 by default.
fn in_flight() -> usize {
    arg_value("--in-flight").map_or(8, |v| v.parse().expect("K"))
}

/// p50/p99/max of single calls.
fn call_line(mut calls: Vec<Duration>) -> String {
    calls.sort_unstable();
    let p =
        |q: f64| calls.get(((calls.len() as f64 * q) as usize).min(calls.len().saturating_sub(1)));
    format!(
        "per call p50 {} p99 {} max {} ({} calls)",
        p(0.5).map_or("-".to_owned(), |d| ms(*d)),
        p(0.99).map_or("-".to_owned(), |d| ms(*d)),
        calls.last().map_or("-".to_owned(), |d| ms(*d)),
        calls.len()
    )
}

fn seconds(d: Duration) -> String {
    format!("{:.2} s", d.as_secs_f64())
}

fn ms(d: Duration) -> String {
    format!("{:.1} ms", d.as_secs_f64() * 1e3)
}

/// Calls `Ping` (scheduler) and `GetGame` (arbiter) one after the other every 5 ms until
/// `stop`; the latencies.
async fn probe(channel: Channel, game: i64, stop: CancellationToken) -> Vec<Duration> {
    let mut scheduler = SchedulerClient::with_interceptor(channel.clone(), Bearer::none());
    let mut arbiter = ArbiterClient::with_interceptor(channel, Bearer::new(ADMIN_TOKEN));
    let mut latencies = Vec::new();
    while !stop.is_cancelled() {
        let started = Instant::now();
        scheduler
            .ping(spb::PingRequest {})
            .await
            .expect("scheduler ping");
        latencies.push(started.elapsed());
        if game > 0 {
            let started = Instant::now();
            arbiter
                .get_game(pb::GetGameRequest { game_id: game })
                .await
                .expect("get game");
            latencies.push(started.elapsed());
        }
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
    latencies
}

/// Runs `call` with the probe beside it; the call's wall time and the probe's latencies.
async fn probed<T>(
    channel: &Channel,
    game: i64,
    call: impl Future<Output = T>,
) -> (T, Duration, Vec<Duration>) {
    let stop = CancellationToken::new();
    let probe = tokio::spawn(probe(channel.clone(), game, stop.clone()));
    let started = Instant::now();
    let value = call.await;
    let took = started.elapsed();
    stop.cancel();
    let mut latencies = probe.await.expect("probe");
    latencies.sort_unstable();
    (value, took, latencies)
}

fn probe_line(latencies: &[Duration]) -> String {
    if latencies.is_empty() {
        return "no probe".to_owned();
    }
    format!(
        "probe p50 {} p99 {} max {} ({} calls)",
        ms(percentile(latencies, 0.50)),
        ms(percentile(latencies, 0.99)),
        ms(latencies[latencies.len() - 1]),
        latencies.len()
    )
}

/// Plays one board's game through the API: a turn each, then a result by `pick`.
async fn play(channel: Channel, tokens: (String, String), game: i64, pick: u64) {
    let mut white = ArbiterClient::with_interceptor(channel.clone(), Bearer::new(&tokens.0));
    let mut black = ArbiterClient::with_interceptor(channel, Bearer::new(&tokens.1));
    hanniball_e2e::both_move(&mut white, &mut black, game).await;
    hanniball_e2e::end_by(&mut white, &mut black, game, pick).await;
}

fn main() {
    // `RUST_LOG=info` shows the services' logs (e.g. where a round's time goes).
    if std::env::var_os("RUST_LOG").is_some() {
        tracing_subscriber::fmt()
            .with_env_filter(tracing_subscriber::EnvFilter::from_default_env())
            .with_writer(std::io::stderr)
            .init();
    }
    let bench = std::env::args().any(|a| a == "--bench");
    let players: usize = arg_value("--players").map_or(1_000, |v| v.parse().expect("N"));
    let rounds: u32 = arg_value("--rounds").map_or(5, |v| v.parse().expect("R"));
    let workers: usize = arg_value("--workers").map_or(2, |v| v.parse().expect("W"));
    let by_games = arg_value("--results").is_some_and(|v| v == "games");
    let one_by_one = arg_value("--results").is_some_and(|v| v == "one-by-one");
    let entries_one_by_one = arg_value("--entries").is_some_and(|v| v == "one-by-one");
    let postgres = arg_value("--postgres");
    // `cargo test --benches` runs this without `--bench`: keep that smoke run short.
    let (players, rounds) = if bench { (players, rounds) } else { (12, 2) };
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(workers)
        .enable_all()
        .build()
        .expect("runtime");
    runtime.block_on(async move {
        let db = match &postgres {
            Some(base) => hanniball_db::testing::postgres_url(base)
                .await
                .expect("a fresh PostgreSQL database"),
            None => hanniball_db::testing::sqlite_url(),
        };
        let (url, shutdown) = hanniball_e2e::all_services(&db).await;
        let channel = Channel::from_shared(url.clone())
            .expect("url")
            .connect()
            .await
            .expect("connect");
        let admin = Bearer::new(ADMIN_TOKEN);
        let mut scheduler: SchedulerClient<Svc> =
            SchedulerClient::with_interceptor(channel.clone(), admin.clone());
        let mut arbiter: ArbiterClient<Svc> =
            ArbiterClient::with_interceptor(channel.clone(), admin.clone());
        println!(
            "scale: {players} players, {rounds} rounds, results by {}, {}, {workers} workers",
            if by_games {
                "the games"
            } else {
                "the organiser"
            },
            if postgres.is_some() {
                "PostgreSQL"
            } else {
                "SQLite"
            }
        );

        let started = Instant::now();
        let registered: Vec<(i64, String)> = {
            use futures_util::StreamExt;
            futures_util::stream::iter((0..players).map(|i| {
                let mut accounts = AccountsClient::with_interceptor(channel.clone(), admin.clone());
                async move {
                    let r = accounts
                        .register_player(acc::RegisterPlayerRequest {
                            name: format!("scale-{i}"),
                            kind: acc::PlayerKind::Bot as i32,
                            issue_token: true,
                        })
                        .await
                        .expect("register")
                        .into_inner();
                    (r.player.expect("player").id, r.token.expect("token").token)
                }
            }))
            .buffered(IN_FLIGHT)
            .collect()
            .await
        };
        let tokens: BTreeMap<i64, String> = registered.iter().cloned().collect();
        println!(
            "register players ({IN_FLIGHT} at a time)   {}",
            seconds(started.elapsed())
        );

        let tid = scheduler
            .create_tournament(spb::CreateTournamentRequest {
                settings: Some(spb::TournamentSettings {
                    name: "Scale".to_owned(),
                    rounds,
                    rated: true,
                    manual_pairing: true,
                    ..Default::default()
                }),
            })
            .await
            .expect("create")
            .into_inner()
            .tournament
            .expect("tournament")
            .id;
        let started = Instant::now();
        if entries_one_by_one {
            use futures_util::StreamExt;
            let calls: Vec<Duration> =
                futures_util::stream::iter(registered.iter().enumerate().map(|(i, (id, _))| {
                    let mut scheduler = scheduler.clone();
                    let entry = spb::AddPlayerRequest {
                        tournament_id: tid,
                        player_id: *id,
                        rating: 2_400 - (i as i32 % 1_000),
                    };
                    async move {
                        let started = Instant::now();
                        scheduler.add_player(entry).await.expect("add player");
                        started.elapsed()
                    }
                }))
                .buffer_unordered(in_flight())
                .collect()
                .await;
            println!(
                "AddPlayer ({} in flight)               {}   {}",
                in_flight(),
                seconds(started.elapsed()),
                call_line(calls)
            );
        } else {
            scheduler
                .add_players(spb::AddPlayersRequest {
                    tournament_id: tid,
                    players: registered
                        .iter()
                        .enumerate()
                        .map(|(i, (id, _))| spb::PlayerEntry {
                            player_id: *id,
                            rating: 2_400 - (i as i32 % 1_000),
                        })
                        .collect(),
                })
                .await
                .expect("add players");
            println!(
                "AddPlayers (one call)                   {}",
                seconds(started.elapsed())
            );
        }

        let (started_t, took, latencies) = probed(&channel, 0, async {
            scheduler
                .start_tournament(spb::StartTournamentRequest { tournament_id: tid })
                .await
                .expect("start")
                .into_inner()
                .tournament
                .expect("tournament")
        })
        .await;
        println!(
            "StartTournament (round 1 + games)       {}   {}",
            seconds(took),
            probe_line(&latencies)
        );
        let mut t = started_t;
        let mut rng = hanniball_rng::Rng::new(7);
        for round in 1..=rounds {
            let games: Vec<spb::Board> = t
                .boards
                .iter()
                .filter(|b| b.round == round && b.kind() == spb::BoardKind::Game)
                .cloned()
                .collect();
            assert!(games.iter().all(|b| b.game_id > 0), "round {round}: games");
            let started = Instant::now();
            if by_games {
                use futures_util::StreamExt;
                let picks: Vec<u64> = games.iter().map(|_| rng.u64(..)).collect();
                futures_util::stream::iter(games.iter().zip(picks).map(|(b, pick)| {
                    play(
                        channel.clone(),
                        (
                            tokens[&b.white_player_id].clone(),
                            tokens[&b.black_player_id].clone(),
                        ),
                        b.game_id,
                        pick,
                    )
                }))
                .buffer_unordered(IN_FLIGHT)
                .collect::<Vec<()>>()
                .await;
                // The results reach the boards through the arbiter's results stream.
                loop {
                    let now = scheduler
                        .get_tournament(spb::GetTournamentRequest { tournament_id: tid })
                        .await
                        .expect("tournament")
                        .into_inner()
                        .tournament
                        .expect("tournament");
                    if now
                        .boards
                        .iter()
                        .filter(|b| b.round == round && b.kind() == spb::BoardKind::Game)
                        .all(|b| !b.result.is_empty())
                    {
                        break;
                    }
                    tokio::time::sleep(Duration::from_millis(20)).await;
                }
            } else if one_by_one {
                use futures_util::StreamExt;
                let picks: Vec<usize> = games.iter().map(|_| rng.usize(..3)).collect();
                let calls: Vec<Duration> =
                    futures_util::stream::iter(games.iter().zip(picks).map(|(b, pick)| {
                        let mut scheduler = scheduler.clone();
                        let request = spb::SetResultRequest {
                            tournament_id: tid,
                            round,
                            board: b.number,
                            result: ["1-0", "0-1", "1/2-1/2"][pick].to_owned(),
                        };
                        async move {
                            let started = Instant::now();
                            scheduler.set_result(request).await.expect("result");
                            started.elapsed()
                        }
                    }))
                    .buffer_unordered(in_flight())
                    .collect()
                    .await;
                println!(
                    "round {round}: SetResult per board     {}",
                    call_line(calls)
                );
            } else {
                let results = games
                    .iter()
                    .map(|b| spb::BoardResult {
                        round,
                        board: b.number,
                        result: ["1-0", "0-1", "1/2-1/2"][rng.usize(..3)].to_owned(),
                    })
                    .collect();
                scheduler
                    .set_results(spb::SetResultsRequest {
                        tournament_id: tid,
                        results,
                    })
                    .await
                    .expect("results");
            }
            println!(
                "round {round}: results in ({} games)         {}",
                games.len(),
                seconds(started.elapsed())
            );
            let probe_game = games.first().map_or(0, |b| b.game_id);
            let (next, took, latencies) = probed(&channel, probe_game, async {
                scheduler
                    .pair_next_round(spb::PairNextRoundRequest { tournament_id: tid })
                    .await
                    .expect("pair")
                    .into_inner()
                    .tournament
                    .expect("tournament")
            })
            .await;
            let what = if round == rounds {
                "finish"
            } else {
                "pair + games"
            };
            println!(
                "round {round}: PairNextRound ({what})      {}   {}",
                seconds(took),
                probe_line(&latencies)
            );
            t = next;
        }

        // One truth: every board's result is its game's, and every player's rated games are
        // the played games of the TRF.
        let started = Instant::now();
        let mut played: BTreeMap<i64, u32> = BTreeMap::new();
        let mut disagreements = 0usize;
        for board in t.boards.iter().filter(|b| b.kind() == spb::BoardKind::Game) {
            let game = arbiter
                .get_game(pb::GetGameRequest {
                    game_id: board.game_id,
                })
                .await
                .expect("game")
                .into_inner()
                .game
                .and_then(|g| g.state)
                .expect("state");
            let summary = game.result.map(|r| r.summary).unwrap_or_default();
            let decided = ["1-0", "0-1", "1/2-1/2"].contains(&board.result.as_str());
            if decided && !summary.starts_with(&format!("{} ", board.result)) {
                disagreements += 1;
                eprintln!(
                    "board {}.{}: {} but game {} is {summary}",
                    board.round, board.number, board.result, board.game_id
                );
            }
            // Played (so rated): each side made a turn, and not a forfeit.
            if decided && game.next_turn_number > 2 {
                for p in [board.white_player_id, board.black_player_id] {
                    *played.entry(p).or_default() += 1;
                }
            }
        }
        let mut rating = RatingClient::with_interceptor(channel.clone(), admin.clone());
        let ids: Vec<i64> = tokens.keys().copied().collect();
        let deadline = Instant::now() + Duration::from_secs(60);
        loop {
            let ratings = rating
                .get_ratings(rpb::GetRatingsRequest {
                    ladder: "hanniball".to_owned(),
                    player_ids: ids.clone(),
                })
                .await
                .expect("ratings")
                .into_inner()
                .ratings;
            let wrong = ratings
                .iter()
                .filter(|r| r.games != played.get(&r.player_id).copied().unwrap_or(0))
                .count();
            if wrong == 0 {
                break;
            }
            assert!(
                Instant::now() < deadline,
                "{wrong} players' rated games differ from the tournament's played games"
            );
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
        assert_eq!(disagreements, 0, "boards that disagree with their games");
        println!(
            "check: boards = games, rated games = played games ({} boards)   {}",
            t.boards.len(),
            seconds(started.elapsed())
        );
        shutdown.cancel();
    });
}
