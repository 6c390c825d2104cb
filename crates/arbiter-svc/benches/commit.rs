//! Group-commit cost of the turn log, without gRPC or rules: `cargo bench -p hanniball-arbiter-svc
//! --bench commit -- [--games N] [--batch B] [--turns T] [--postgres]`.
//!
//! It stores `--games` active games, then commits `--turns` turns in batches of `--batch`
//! different games each (one transaction per batch, as the arbiter's writer does under load),
//! and reports wall time and this process's CPU time (the driver's connection thread included)
//! per turn. On SQLite (a fresh file, WAL, `synchronous = FULL`) that is the database's whole
//! share of a SubmitTurn; `--postgres` runs against `HANNIBALL_TEST_POSTGRES_URL`, whose server
//! CPU is not counted.

use std::time::Instant;

use hanniball_arbiter::{
    Clocks, GameId, Match, PlayerId, Setup, Status, TimeControl, Timestamp, TurnRecord,
};
use hanniball_arbiter_svc::store::{Store, Write};
use hanniball_db::testing::{self, cpu_seconds};
use hanniball_rules::{GameOptions, Side};

struct Args {
    games: usize,
    batch: usize,
    turns: usize,
    postgres: bool,
}

fn args() -> Args {
    let all: Vec<String> = std::env::args().collect();
    let value = |name: &str| {
        all.iter()
            .position(|a| a == name)
            .and_then(|i| all.get(i + 1))
            .map(|v| v.parse::<usize>().unwrap_or_else(|_| panic!("{name} N")))
    };
    // `cargo test --benches` runs this without `--bench`: keep that smoke run short.
    let quick = !all.iter().any(|a| a == "--bench");
    Args {
        games: value("--games").unwrap_or(if quick { 20 } else { 1000 }),
        batch: value("--batch").unwrap_or(if quick { 10 } else { 400 }),
        turns: value("--turns").unwrap_or(if quick { 100 } else { 200_000 }),
        postgres: all.iter().any(|a| a == "--postgres"),
    }
}

/// A position notation as long as HanniBall's opening one.
const POSITION: &str =
    "1k1/2l3l2/1e1e1e1e1/1h3h1h1/9/2h6/9/9/9/6H2/9/1H1H1H3/1E1E1E1E1/2L3L2/1K1 e8 w 2 0 standard";

fn main() {
    let args = args();
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("runtime");
    runtime.block_on(async {
        let url = if args.postgres {
            let base = testing::postgres_base_url().expect("HANNIBALL_TEST_POSTGRES_URL");
            testing::postgres_url(&base)
                .await
                .expect("a fresh database")
        } else {
            testing::sqlite_url()
        };
        let store = Store::connect(&url).await.expect("connect");
        // The arbiter's tables keep player ids only (Accounts knows the players).
        let (white, black) = (PlayerId(1), PlayerId(2));
        let setup = |white: PlayerId, black: PlayerId| Setup {
            kind: hanniball_rules::GameKind::HanniBall,
            options: GameOptions::default(),
            white,
            black,
            time_control: Some(TimeControl {
                initial_ms: 600_000,
                increment_ms: 1_000,
            }),
            rated: false,
            tag: "bench".to_owned(),
            over_the_board: false,
        };
        let mut games: Vec<(GameId, u32)> = Vec::with_capacity(args.games);
        for _ in 0..args.games {
            let game = Match::new(GameId(0), setup(white, black), Timestamp(0)).expect("setup");
            games.push((store.insert_game(&game, None).await.expect("game"), 0));
        }
        let mut rng = hanniball_rng::Rng::new(1);
        let batch = args.batch.min(args.games);
        let (mut done, mut commits) = (0, 0);
        let cpu = cpu_seconds();
        let start = Instant::now();
        while done < args.turns {
            // `batch` distinct games: the front of a partial Fisher-Yates shuffle.
            let mut picked: Vec<usize> = (0..games.len()).collect();
            for i in 0..batch.min(picked.len()) {
                let j = i + rng.below(picked.len() - i);
                picked.swap(i, j);
            }
            picked.truncate(batch);
            picked.sort_unstable();
            let writes: Vec<Write> = picked
                .iter()
                .map(|&i| {
                    let (id, played) = games[i];
                    let number = played + 1;
                    let side = if number % 2 == 1 {
                        Side::White
                    } else {
                        Side::Black
                    };
                    let at = Timestamp(i64::from(number) * 1_000);
                    Write {
                        game_id: id,
                        expected_turns: played,
                        expected_version: None,
                        changes_row: false,
                        record: Some(TurnRecord {
                            number,
                            side,
                            text: "e8-e9 e9-f10 Hf4-f5 f5-f6".to_owned(),
                            position_after: POSITION.to_owned(),
                            white_ms: 590_000,
                            black_ms: 590_000,
                            played_at: at,
                            spent_ms: 1_000,
                            running: None,
                        }),
                        position: POSITION.to_owned(),
                        turns_played: number,
                        clocks: Clocks {
                            white_ms: 590_000,
                            black_ms: 590_000,
                            running: Some(side.opponent()),
                            since: at,
                        },
                        draw_offer: None,
                        status: Status::Active,
                        result: None,
                        finished_at: None,
                    }
                })
                .collect();
            for result in store.commit(&writes).await {
                result.expect("commit");
            }
            for &i in &picked {
                games[i].1 += 1;
            }
            done += writes.len();
            commits += 1;
        }
        let wall = start.elapsed().as_secs_f64();
        // The CPU clock ticks in hundredths of a second: too short a run has no reading.
        let cpu = cpu
            .zip(cpu_seconds())
            .map(|(a, b)| b - a)
            .filter(|cpu| *cpu >= 0.5);
        assert_eq!(
            store.turn_count().await.expect("count"),
            done as u64,
            "every turn stored"
        );
        println!(
            "{} on {}: {done} turns in {commits} commits of {batch} ({} games): {:.1} µs wall{} \
             per turn, {:.2} ms per commit",
            if args.postgres {
                "PostgreSQL"
            } else {
                "SQLite"
            },
            if args.postgres {
                "the server"
            } else {
                "a fresh file"
            },
            args.games,
            wall * 1e6 / done as f64,
            cpu.map_or(String::new(), |c| format!(
                ", {:.1} µs CPU",
                c * 1e6 / done as f64
            )),
            wall * 1e3 / commits as f64,
        );
    });
}
