//! Every service as two replicas on one PostgreSQL database, as separate processes: bots whose
//! calls are balanced per request over both arbiters, a Swiss tournament run by two schedulers and
//! rated by two rating services, one arbiter killed with SIGKILL while games are on. At the end:
//! every round paired once, every game created once and finished once, every game's log replays
//! to its stored positions with no turn number missing or doubled, every result in the outbox once
//! and rated once, and a spectator watching every game on the surviving arbiter saw every turn, in
//! order, once, and the end once.
//!
//! PostgreSQL only (`HANNIBALL_TEST_POSTGRES_URL`): a SQLite file belongs to one server process.

use std::collections::{BTreeMap, BTreeSet};
use std::process::{Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use crate::common::{self, KillOnDrop, data_dir, serve_args, wait_for};
use hanniball_arbiter::GameId;
use hanniball_arbiter_svc::store::Store;
use hanniball_proto::arbiter::v1 as pb;
use hanniball_proto::arbiter::v1::arbiter_client::ArbiterClient;
use tokio_stream::StreamExt;

const ADMIN: &str = "replicas-test-admin-token";

fn ok(args: &[&str]) -> String {
    common::ok_as(ADMIN, args)
}

/// What a spectator saw of each game: the turn numbers in the order they came, and how many
/// times the game ended (a broken stream adds `u32::MAX` to the turns).
type Seen = Arc<Mutex<BTreeMap<i64, (Vec<u32>, usize)>>>;

/// Watches every game on the arbiter at `url` from its first turn, as games appear.
async fn spectate(url: String, seen: Seen) {
    let channel = tonic::transport::Channel::from_shared(url)
        .expect("url")
        .connect_lazy();
    let mut arbiter =
        ArbiterClient::with_interceptor(channel, hanniball_svc_kit::Bearer::new(ADMIN));
    loop {
        let listed = arbiter
            .list_games(pb::ListGamesRequest {
                limit: 500,
                ..Default::default()
            })
            .await;
        let listed = match listed {
            Ok(listed) => listed.into_inner().games,
            Err(status) => {
                eprintln!("spectator: ListGames failed: {status:?}");
                Vec::new()
            }
        };
        for game in listed {
            if seen.lock().expect("seen").contains_key(&game.id) {
                continue;
            }
            seen.lock().expect("seen").insert(game.id, (Vec::new(), 0));
            let mut arbiter = arbiter.clone();
            let seen = Arc::clone(&seen);
            tokio::spawn(async move {
                let stream = arbiter
                    .watch_game(pb::WatchGameRequest {
                        game_id: game.id,
                        from_turn: 1,
                    })
                    .await;
                let stream = match stream {
                    Ok(stream) => stream,
                    Err(status) => {
                        eprintln!("spectator: WatchGame {} failed: {status:?}", game.id);
                        seen.lock()
                            .expect("seen")
                            .entry(game.id)
                            .or_default()
                            .0
                            .push(u32::MAX);
                        return;
                    }
                };
                let mut stream = stream.into_inner();
                while let Some(event) = stream.next().await {
                    let mut seen = seen.lock().expect("seen");
                    let entry = seen.entry(game.id).or_default();
                    match event.map(|e| e.event) {
                        Ok(Some(pb::game_event::Event::TurnPlayed(played))) => {
                            entry.0.push(played.record.map_or(0, |r| r.number));
                        }
                        Ok(Some(pb::game_event::Event::GameOver(_))) => entry.1 += 1,
                        Ok(_) => {}
                        Err(status) => {
                            eprintln!("spectator: game {} stream failed: {status:?}", game.id);
                            entry.0.push(u32::MAX);
                            return;
                        }
                    }
                }
            });
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

#[test]
fn two_replicas_of_every_service_survive_a_killed_arbiter() {
    let Some(base) = hanniball_db::testing::postgres_base_url() else {
        eprintln!("skipped: replicas need PostgreSQL (HANNIBALL_TEST_POSTGRES_URL is not set)");
        return;
    };
    let runtime = tokio::runtime::Runtime::new().expect("runtime");
    let database = runtime
        .block_on(hanniball_db::testing::postgres_url(&base))
        .expect("a fresh database");
    ok(&["migrate", "--database", &database]);
    let dir = data_dir("replicas");
    let common_env = [
        ("HANNIBALL__DATABASE__URL", database.as_str()),
        ("HANNIBALL__AUTH__ADMIN_TOKEN", ADMIN),
        ("HANNIBALL__SERVER__CALLS_PER_SECOND", "0"),
        ("HANNIBALL__MATCHMAKING__TICK_MS", "100"),
    ];
    let start = |name: &str, service: &str, extra: &[(&str, &str)]| {
        let mut env = common_env.to_vec();
        env.extend_from_slice(extra);
        serve_args(&dir.join(name), &["--only", service], &env)
    };
    let (mut arbiter_1, url_1) = start("arbiter-1", "arbiter", &[]);
    let (_arbiter_2, url_2) = start("arbiter-2", "arbiter", &[]);
    // A spectator of every game on the arbiter that stays up.
    let seen: Seen = Arc::default();
    let spectator = runtime.spawn(spectate(url_2.clone(), Arc::clone(&seen)));
    let arbiters = format!("{url_1},{url_2}");
    let (_rating_1, rating_url_1) = start(
        "rating-1",
        "rating",
        &[("HANNIBALL__SERVICES__ARBITER_URL", &arbiters)],
    );
    let (_rating_2, rating_url_2) = start(
        "rating-2",
        "rating",
        &[("HANNIBALL__SERVICES__ARBITER_URL", &arbiters)],
    );
    let ratings = format!("{rating_url_1},{rating_url_2}");
    let scheduler_env = [
        ("HANNIBALL__SERVICES__ARBITER_URL", arbiters.as_str()),
        ("HANNIBALL__SERVICES__RATING_URL", ratings.as_str()),
    ];
    let (_scheduler_1, scheduler_url_1) = start("scheduler-1", "scheduler", &scheduler_env);
    let (_scheduler_2, scheduler_url_2) = start("scheduler-2", "scheduler", &scheduler_env);
    let schedulers = format!("{scheduler_url_1},{scheduler_url_2}");

    // Six bots, every call balanced over both arbiters.
    let mut ids = Vec::new();
    let mut bots = Vec::new();
    for (i, name) in ["r-1", "r-2", "r-3", "r-4", "r-5", "r-6"]
        .iter()
        .enumerate()
    {
        let out = ok(&["player", "register", name, "--bot", "--server", &arbiters]);
        ids.push(out.split_whitespace().nth(1).expect("id").to_owned());
        let token = out
            .split_whitespace()
            .find(|w| w.starts_with("hb_"))
            .expect("token")
            .to_owned();
        let strategy = if i % 3 == 0 { "random" } else { "greedy" };
        let child = Command::new(env!("CARGO_BIN_EXE_hanniball"))
            .args(["bot", "run", "--server", &arbiters, "--token", &token])
            .args(["--strategy", strategy, "--think-ms", "10"])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("the bot starts");
        bots.push(KillOnDrop(child));
    }

    // A Swiss tournament through both schedulers.
    let created = ok(&[
        "tournament",
        "create",
        "Replicas",
        "--rounds",
        "3",
        "--time",
        "60+1",
        "--rated",
        "--server",
        &scheduler_url_1,
    ]);
    let id = created.split_whitespace().nth(1).expect("id").to_owned();
    let mut add = vec!["tournament", "add", id.as_str()];
    add.extend(ids.iter().map(String::as_str));
    add.extend(["--server", &scheduler_url_2]);
    ok(&add);
    ok(&["tournament", "start", &id, "--server", &schedulers]);

    // Once round 1 is under way, the first arbiter dies without a word.
    wait_for(60, "turns in round 1", || {
        runtime.block_on(async {
            let store = Store::connect(&database).await.expect("store");
            store.turn_count().await.expect("turns") >= 20
        })
    });
    arbiter_1.0.kill().expect("SIGKILL");
    arbiter_1.0.wait().expect("reaped");

    wait_for(900, "the tournament to finish", || {
        ok(&["tournament", "show", &id, "--server", &schedulers]).contains("finished")
    });
    let trf = ok(&["tournament", "export", &id, "--server", &schedulers]);
    let parsed = hanniball_pairing::trf::parse(&trf).expect("the export is a TRF");
    assert_eq!(parsed.rounds_paired(), 3, "every round paired once");
    assert!(hanniball_pairing::check(&parsed).is_empty(), "{trf}");

    runtime.block_on(async {
        let store = Store::connect(&database).await.expect("store");
        let ratings = hanniball_rating_svc::store::Store::connect(&database)
            .await
            .expect("rating store");
        let games = store
            .list_games(None, None, None, 1_000)
            .await
            .expect("games");
        // Six players, three rounds, no byes: nine games, each created once.
        assert_eq!(games.len(), 9, "{games:?}");
        let mut game_ids = Vec::new();
        for row in &games {
            let stored = store
                .load_game(row.id)
                .await
                .expect("load")
                .expect("the game");
            assert_ne!(
                stored.status,
                hanniball_arbiter::Status::Active,
                "game {} still on",
                row.id
            );
            // The log replays to every stored position, numbered 1..n without a gap.
            let mut game = stored
                .setup
                .kind
                .new_game(&stored.setup.options)
                .expect("setup");
            for (i, turn) in stored.turns.iter().enumerate() {
                assert_eq!(turn.number as usize, i + 1, "game {}", row.id);
                game = game.play_turn(&turn.text).expect("a legal stored turn");
                assert_eq!(game.position(), turn.position_after, "game {}", row.id);
            }
            game_ids.push(row.id);
            // The spectator on the surviving arbiter saw every turn once, in order, and the end
            // once, whichever arbiter each turn went through.
            let deadline = tokio::time::Instant::now() + Duration::from_secs(10);
            loop {
                let (turns, overs) = seen
                    .lock()
                    .expect("seen")
                    .get(&row.id.0)
                    .cloned()
                    .unwrap_or_default();
                let expected: Vec<u32> = (1..=stored.turns.len() as u32).collect();
                if overs >= 1 || tokio::time::Instant::now() > deadline {
                    let all = seen.lock().expect("seen").clone();
                    assert_eq!(
                        turns, expected,
                        "turns the spectator saw of game {} (everything it saw: {all:?})",
                        row.id
                    );
                    assert_eq!(overs, 1, "game {} ended once", row.id);
                    break;
                }
                tokio::time::sleep(Duration::from_millis(100)).await;
            }
        }
        spectator.abort();
        // Every result in the outbox once, and rated once.
        let finished = store.results_after(0, 1_000).await.expect("outbox");
        let in_outbox: Vec<GameId> = finished.iter().map(|f| f.game.id).collect();
        let distinct: BTreeSet<i64> = in_outbox.iter().map(|g| g.0).collect();
        assert_eq!(in_outbox.len(), 9, "{in_outbox:?}");
        assert_eq!(distinct.len(), 9);
        // Rated once: every played game (README, "What is rated": a game a side never moved in,
        // such as one lost on time while its bot reconnected, is not).
        let played = finished
            .iter()
            .filter(|f| {
                f.game.setup.rated && f.game.result.is_some_and(|r| r.played(f.game.turns_played))
            })
            .count();
        assert!(played >= 6, "most games are played: {finished:?}");
        let mut rated = Vec::new();
        for _ in 0..100 {
            rated = ratings
                .rating_events_of_games(&game_ids)
                .await
                .expect("rating events");
            if rated.len() >= played {
                break;
            }
            tokio::time::sleep(Duration::from_millis(200)).await;
        }
        let rated_games: BTreeSet<i64> = rated
            .iter()
            .filter_map(|e| match e.event.change {
                hanniball_rating_svc::store::Change::Game { game_id, .. } => Some(game_id.0),
                _ => None,
            })
            .collect();
        assert_eq!(
            rated.len(),
            played,
            "every played game rated once: {rated:?}"
        );
        assert_eq!(rated_games.len(), played);
    });
    drop(bots);
    std::fs::remove_dir_all(&dir).ok();
}
