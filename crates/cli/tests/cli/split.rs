//! The four services (Accounts, arbiter, rating, scheduler) as separate processes, each on a
//! database of its own (SQLite files, and PostgreSQL databases when
//! `HANNIBALL_TEST_POSTGRES_URL` is set): each database holds its service's tables only, a rated
//! Swiss among bot processes is played to its end, a revoked token is refused by every service
//! within about a second and ends the arbiter's stream, and each service survives a kill -9 and
//! a restart.

use std::collections::BTreeSet;
use std::path::Path;
use std::time::{Duration, Instant};

use hanniball_proto::accounts::v1 as apb;
use hanniball_proto::accounts::v1::accounts_client::AccountsClient;
use hanniball_proto::arbiter::v1 as pb;
use hanniball_proto::arbiter::v1::arbiter_client::ArbiterClient;
use hanniball_proto::rating::v1 as rpb;
use hanniball_proto::rating::v1::rating_client::RatingClient;
use hanniball_proto::scheduler::v1 as spb;
use hanniball_proto::scheduler::v1::scheduler_client::SchedulerClient;
use hanniball_svc_kit::Bearer;
use tokio_stream::StreamExt;
use tonic::Code;
use tonic::transport::Channel;

use crate::common::{self, KillOnDrop, wait_for};

const ADMIN: &str = "split-test-admin-token";

fn ok(args: &[&str]) -> String {
    common::ok_as(ADMIN, args)
}

/// The tables each service owns.
const ACCOUNTS_TABLES: &[&str] = &["passwords", "players", "tokens"];
const ARBITER_TABLES: &[&str] = &[
    "clock_leases",
    "games",
    "result_corrections",
    "results_outbox",
    "turns",
];
const RATING_TABLES: &[&str] = &["rating_cursor", "rating_events", "ratings"];
const SCHEDULER_TABLES: &[&str] = &[
    "board_corrections",
    "boards",
    "bye_requests",
    "forbidden_pairs",
    "matches",
    "queue_entries",
    "scheduler_cursor",
    "tournament_organisers",
    "tournament_players",
    "tournaments",
];

/// One service's process: how to start it again on the same port and database.
struct Service {
    name: &'static str,
    dir: std::path::PathBuf,
    env: Vec<(String, String)>,
    url: String,
    process: KillOnDrop,
}

impl Service {
    fn start(name: &'static str, dir: &Path, database: &str, others: &[(&str, &str)]) -> Service {
        let mut env = vec![
            ("HANNIBALL__DATABASE__URL".to_owned(), database.to_owned()),
            ("HANNIBALL__AUTH__ADMIN_TOKEN".to_owned(), ADMIN.to_owned()),
            (
                "HANNIBALL__MATCHMAKING__TICK_MS".to_owned(),
                "100".to_owned(),
            ),
        ];
        env.extend(
            others
                .iter()
                .map(|(k, v)| ((*k).to_owned(), (*v).to_owned())),
        );
        let dir = dir.join(name);
        let (process, url) = serve(&dir, name, "127.0.0.1:0", &env);
        Service {
            name,
            dir,
            env,
            url,
            process,
        }
    }

    /// kill -9, then the same service again on the same port and database.
    fn kill_and_restart(&mut self) {
        self.process.0.kill().expect("SIGKILL");
        self.process.0.wait().expect("reaped");
        let listen = self.url.trim_start_matches("http://").to_owned();
        let (process, url) = serve(&self.dir, self.name, &listen, &self.env);
        assert_eq!(url, self.url, "{} restarted elsewhere", self.name);
        self.process = process;
    }
}

fn serve(dir: &Path, name: &str, listen: &str, env: &[(String, String)]) -> (KillOnDrop, String) {
    let env: Vec<(&str, &str)> = env.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect();
    common::serve_args(dir, &["--only", name, "--listen", listen], &env)
}

fn bot(server: &str, accounts: &str, token: &str, strategy: &str) -> KillOnDrop {
    let child = std::process::Command::new(env!("CARGO_BIN_EXE_hanniball"))
        .args([
            "bot",
            "run",
            "--server",
            server,
            "--accounts",
            accounts,
            "--token",
            token,
            "--strategy",
            strategy,
            "--think-ms",
            "20",
            "--games",
            "0",
        ])
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .expect("the bot starts");
    KillOnDrop(child)
}

/// Registers a bot; returns its id and token.
fn register(server: &str, name: &str) -> (i64, String) {
    let out = ok(&["player", "register", name, "--bot", "--server", server]);
    let id = out
        .split_whitespace()
        .nth(1)
        .and_then(|id| id.parse().ok())
        .unwrap_or_else(|| panic!("no id in {out:?}"));
    let token = out
        .split_whitespace()
        .find(|w| w.starts_with("hb_"))
        .unwrap_or_else(|| panic!("no token in {out:?}"))
        .to_owned();
    (id, token)
}

/// The tournament as the scheduler at `url` shows it.
fn tournament(runtime: &tokio::runtime::Runtime, url: &str, id: &str) -> spb::Tournament {
    let id: i64 = id.parse().expect("tournament id");
    runtime.block_on(async {
        let mut client = SchedulerClient::with_interceptor(channel(url).await, Bearer::new(ADMIN));
        client
            .get_tournament(spb::GetTournamentRequest { tournament_id: id })
            .await
            .expect("the tournament")
            .into_inner()
            .tournament
            .expect("tournament")
    })
}

async fn channel(url: &str) -> Channel {
    Channel::from_shared(url.to_owned())
        .expect("url")
        .connect()
        .await
        .expect("connect")
}

/// The databases of one run: Accounts', the arbiter's, the rating service's, the scheduler's.
fn databases(dir: &Path) -> Vec<[String; 4]> {
    let sqlite = |name: &str| format!("sqlite://{}?mode=rwc", dir.join(name).display());
    let mut runs = vec![[
        sqlite("accounts.sqlite"),
        sqlite("arbiter.sqlite"),
        sqlite("rating.sqlite"),
        sqlite("scheduler.sqlite"),
    ]];
    if let Some(base) = hanniball_db::testing::postgres_base_url() {
        let runtime = tokio::runtime::Runtime::new().expect("runtime");
        let fresh = || {
            runtime
                .block_on(hanniball_db::testing::postgres_url(&base))
                .expect("a fresh PostgreSQL database")
        };
        runs.push([fresh(), fresh(), fresh(), fresh()]);
    }
    runs
}

#[test]
fn four_services_on_four_databases_play_a_rated_swiss_and_survive_kill_9() {
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos());
    let root = std::env::temp_dir().join(format!("hb-three-{}-{nanos}", std::process::id()));
    for (run, dbs) in databases(&root).into_iter().enumerate() {
        let dir = root.join(run.to_string());
        std::fs::create_dir_all(&dir).expect("dir");
        play(&dir, &dbs);
    }
}

fn play(dir: &Path, [accounts_db, arbiter_db, rating_db, scheduler_db]: &[String; 4]) {
    let runtime = tokio::runtime::Runtime::new().expect("runtime");
    let mut accounts = Service::start("accounts", dir, accounts_db, &[]);
    let accounts_url = accounts.url.clone();
    let to_accounts = ("HANNIBALL__SERVICES__ACCOUNTS_URL", accounts_url.as_str());
    let mut arbiter = Service::start("arbiter", dir, arbiter_db, &[to_accounts]);
    let arbiter_url = arbiter.url.clone();
    let mut rating = Service::start(
        "rating",
        dir,
        rating_db,
        &[
            to_accounts,
            ("HANNIBALL__SERVICES__ARBITER_URL", &arbiter_url),
        ],
    );
    let mut scheduler = Service::start(
        "scheduler",
        dir,
        scheduler_db,
        &[
            to_accounts,
            ("HANNIBALL__SERVICES__ARBITER_URL", &arbiter_url),
            ("HANNIBALL__SERVICES__RATING_URL", &rating.url),
        ],
    );

    // Each database holds its own service's tables and nobody else's.
    for (db, owned) in [
        (accounts_db.as_str(), ACCOUNTS_TABLES),
        (arbiter_db, ARBITER_TABLES),
        (rating_db, RATING_TABLES),
        (scheduler_db, SCHEDULER_TABLES),
    ] {
        let tables: BTreeSet<String> = runtime
            .block_on(hanniball_db::testing::table_names(db))
            .expect("tables")
            .into_iter()
            .filter(|t| !t.starts_with("seaql_migrations") && !t.starts_with("sqlite_"))
            .collect();
        let owned: BTreeSet<String> = owned.iter().map(|t| (*t).to_owned()).collect();
        assert_eq!(tables, owned, "{db}");
    }

    let names = [
        "three-1", "three-2", "three-3", "three-4", "three-5", "three-6",
    ];
    let mut bots = Vec::new();
    let mut ids = Vec::new();
    for (i, name) in names.iter().enumerate() {
        let (id, token) = register(&accounts_url, name);
        ids.push(id);
        let strategy = if i % 2 == 0 { "greedy" } else { "random" };
        bots.push(bot(&arbiter_url, &accounts_url, &token, strategy));
    }
    let created = ok(&[
        "tournament",
        "create",
        "Three",
        "--rounds",
        "3",
        "--time",
        "20+0.2",
        "--rated",
        "--server",
        &scheduler.url,
    ]);
    let id = created
        .split_whitespace()
        .nth(1)
        .expect("tournament id")
        .to_owned();
    let ids_text: Vec<String> = ids.iter().map(i64::to_string).collect();
    let mut add = vec!["tournament", "add", id.as_str()];
    add.extend(ids_text.iter().map(String::as_str));
    add.extend(["--server", &scheduler.url]);
    ok(&add);
    // The scheduler (its own database) names the players: it asked Accounts.
    let entrants: Vec<String> = tournament(&runtime, &scheduler.url, &id)
        .entrants
        .into_iter()
        .map(|e| e.name)
        .collect();
    assert_eq!(entrants.len(), names.len(), "{entrants:?}");
    assert!(
        names.iter().all(|n| entrants.contains(&(*n).to_owned())),
        "{entrants:?}"
    );
    ok(&["tournament", "start", &id, "--server", &scheduler.url]);

    let urls = [&*accounts_url, &*arbiter_url, &*rating.url, &*scheduler.url];
    revoked_everywhere(&runtime, urls, &id);

    // kill -9 of each service in turn while the tournament runs; each comes back on its port
    // and database, and the others (and the bots) carry on with it.
    let round = |n: u32| {
        let t = tournament(&runtime, &scheduler.url, &id);
        t.current_round >= n || t.status == spb::TournamentStatus::Finished as i32
    };
    wait_for(120, "round 1 under way", || round(1));
    accounts.kill_and_restart();
    arbiter.kill_and_restart();
    wait_for(300, "round 2", || round(2));
    rating.kill_and_restart();
    scheduler.kill_and_restart();
    wait_for(600, "the tournament to finish", || {
        tournament(&runtime, &scheduler.url, &id).status == spb::TournamentStatus::Finished as i32
    });
    let trf = ok(&["tournament", "export", &id, "--server", &scheduler.url]);
    let parsed = hanniball_pairing::trf::parse(&trf).expect("the export is a TRF");
    assert_eq!(parsed.rounds_paired(), 3);
    assert!(hanniball_pairing::check(&parsed).is_empty(), "{trf}");

    // Ratings changed: the rating service (its own database) rated the played games, named by
    // Accounts.
    runtime.block_on(async {
        let mut ratings =
            RatingClient::with_interceptor(channel(&rating.url).await, Bearer::new(ADMIN));
        let deadline = Instant::now() + Duration::from_secs(60);
        loop {
            let mut rated = Vec::new();
            for player in &ids {
                let found = ratings
                    .get_rating(rpb::GetRatingRequest {
                        player: Some(rpb::PlayerRef {
                            player: Some(rpb::player_ref::Player::Id(*player)),
                        }),
                        ladder: String::new(),
                    })
                    .await
                    .expect("rating")
                    .into_inner()
                    .rating
                    .expect("rating");
                rated.push(found);
            }
            let games: u32 = rated.iter().map(|r| r.games).sum();
            let moved = rated.iter().any(|r| r.rating != rated[0].rating);
            if games >= 2 && moved && rated.iter().all(|r| names.contains(&r.name.as_str())) {
                break;
            }
            assert!(
                Instant::now() < deadline,
                "ratings never changed: {rated:?}"
            );
            tokio::time::sleep(Duration::from_millis(200)).await;
        }
    });
    corrected_in_three_processes(&runtime, &arbiter_url, &rating.url, &scheduler.url, &id);
    drop(bots);
}

/// A played game's result corrected with `tournament correct` (the scheduler's process): the
/// game (the arbiter's) says the new result, and the rating service (a third process, its own
/// database) takes the old one back and rates the new one, once.
fn corrected_in_three_processes(
    runtime: &tokio::runtime::Runtime,
    arbiter: &str,
    rating: &str,
    scheduler: &str,
    id: &str,
) {
    let t = tournament(runtime, scheduler, id);
    let board = runtime
        .block_on(async {
            let mut games =
                ArbiterClient::with_interceptor(channel(arbiter).await, Bearer::new(ADMIN));
            for b in t
                .boards
                .iter()
                .filter(|b| b.result == "1-0" || b.result == "0-1")
            {
                let game = games
                    .get_game(pb::GetGameRequest { game_id: b.game_id })
                    .await
                    .expect("game")
                    .into_inner()
                    .game
                    .expect("game");
                if game.state.is_some_and(|s| s.next_turn_number >= 3) {
                    return Some(b.clone());
                }
            }
            None
        })
        .expect("a decisive played game");
    let out = ok(&[
        "tournament",
        "correct",
        id,
        &board.round.to_string(),
        &board.number.to_string(),
        "1/2-1/2",
        "--note",
        "wrong button",
        "--server",
        scheduler,
    ]);
    assert!(out.contains("corrected to 1/2-1/2"), "{out}");
    let shown = ok(&["tournament", "show", id, "--server", scheduler]);
    assert!(shown.contains("wrong button"), "{shown}");
    runtime.block_on(async {
        let mut games = ArbiterClient::with_interceptor(channel(arbiter).await, Bearer::new(ADMIN));
        let game = games
            .get_game(pb::GetGameRequest {
                game_id: board.game_id,
            })
            .await
            .expect("game")
            .into_inner()
            .game
            .expect("game");
        assert_eq!(game.corrections, 1);
        let result = game.state.and_then(|s| s.result).expect("result");
        assert_eq!(result.outcome(), pb::Outcome::Draw);
        let mut ratings = RatingClient::with_interceptor(channel(rating).await, Bearer::new(ADMIN));
        let deadline = Instant::now() + Duration::from_secs(30);
        for player in [board.white_player_id, board.black_player_id] {
            loop {
                let points = ratings
                    .history(rpb::HistoryRequest {
                        player: Some(rpb::PlayerRef {
                            player: Some(rpb::player_ref::Player::Id(player)),
                        }),
                        ..Default::default()
                    })
                    .await
                    .expect("history")
                    .into_inner()
                    .points;
                let corrections: Vec<&rpb::HistoryPoint> = points
                    .iter()
                    .filter(|p| p.kind() == rpb::PointKind::Correction)
                    .collect();
                if let [one] = corrections.as_slice() {
                    assert_eq!(one.game_id, board.game_id);
                    assert_eq!(one.score(), rpb::Score::Draw);
                    break;
                }
                assert!(corrections.len() < 2, "corrected twice: {points:?}");
                assert!(Instant::now() < deadline, "never corrected: {points:?}");
                tokio::time::sleep(Duration::from_millis(200)).await;
            }
        }
    });
}

/// A token revoked through Accounts (a process of its own) ends the arbiter's stream and is
/// refused by the rating service and the scheduler, each in another process, within about a
/// second: they drop it when Accounts pushes the revocation, not when their 10 s cache lapses.
fn revoked_everywhere(
    runtime: &tokio::runtime::Runtime,
    [accounts, arbiter, rating, scheduler]: [&str; 4],
    tournament: &str,
) {
    let (_, token) = register(accounts, "three-watcher");
    let tournament: i64 = tournament.parse().expect("tournament id");
    runtime.block_on(async {
        let mut own =
            AccountsClient::with_interceptor(channel(accounts).await, Bearer::new(&token));
        let token_id = own
            .who_am_i(apb::WhoAmIRequest {})
            .await
            .expect("who am i")
            .into_inner()
            .token_id;
        let mut games =
            ArbiterClient::with_interceptor(channel(arbiter).await, Bearer::new(&token));
        let mut stream = games
            .watch_player(pb::WatchPlayerRequest {})
            .await
            .expect("a stream")
            .into_inner();
        let ratings = RatingClient::with_interceptor(channel(rating).await, Bearer::new(&token));
        let tournaments =
            SchedulerClient::with_interceptor(channel(scheduler).await, Bearer::new(&token));
        let rating_call = |mut c: RatingClient<_>| async move {
            c.list_ladders(rpb::ListLaddersRequest {}).await.map(drop)
        };
        let scheduler_call = |mut c: SchedulerClient<_>| async move {
            c.get_tournament(spb::GetTournamentRequest {
                tournament_id: tournament,
            })
            .await
            .map(drop)
        };
        // Accepted, and now in each service's cache.
        rating_call(ratings.clone())
            .await
            .expect("rating accepts the token");
        scheduler_call(tournaments.clone())
            .await
            .expect("the scheduler accepts it");

        let mut admin =
            AccountsClient::with_interceptor(channel(accounts).await, Bearer::new(ADMIN));
        admin
            .revoke_token(apb::RevokeTokenRequest { token_id })
            .await
            .expect("revoke");
        let revoked = Instant::now();
        let ended = tokio::time::timeout(Duration::from_secs(2), async {
            loop {
                match stream.next().await {
                    Some(Ok(_)) => {}
                    Some(Err(status)) => return Some(status.code()),
                    None => return None,
                }
            }
        })
        .await
        .expect("the arbiter's stream ends");
        assert_eq!(ended, Some(Code::Unauthenticated));
        let mut refused = [None, None];
        while refused.iter().any(Option::is_none) && revoked.elapsed() < Duration::from_secs(3) {
            if refused[0].is_none()
                && let Err(status) = rating_call(ratings.clone()).await
            {
                assert_eq!(status.code(), Code::Unauthenticated, "{status:?}");
                refused[0] = Some(revoked.elapsed());
            }
            if refused[1].is_none()
                && let Err(status) = scheduler_call(tournaments.clone()).await
            {
                assert_eq!(status.code(), Code::Unauthenticated, "{status:?}");
                refused[1] = Some(revoked.elapsed());
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        for (service, after) in ["rating", "scheduler"].iter().zip(refused) {
            let after = after.unwrap_or_else(|| panic!("{service} still accepts a revoked token"));
            assert!(
                after < Duration::from_millis(1_500),
                "{service} refused it only after {after:?}"
            );
        }
    });
}
