//! An existing single database, as the one migration set of before the split made it
//! (`hanniball_db::testing::old_schema`), upgrades in place: every service's own migrator adopts its
//! tables, every row is still there, and the services go on with it (old tokens work, revoked
//! ones stay revoked, ratings are not recounted, new rows get new ids).
//!
//! The old database's rows are real ones: the services make them on a scratch database (a rated
//! game played and resigned, a Swiss tournament started, tokens issued and revoked), and they
//! are copied, column by column, into a database that only the old migrations built.

use std::time::Duration;

use hanniball_db::testing;
use hanniball_e2e::{ADMIN_TOKEN, Bearer, databases};
use hanniball_proto::accounts::v1 as apb;
use hanniball_proto::accounts::v1::accounts_client::AccountsClient;
use hanniball_proto::arbiter::v1 as pb;
use hanniball_proto::arbiter::v1::arbiter_client::ArbiterClient;
use hanniball_proto::rating::v1 as rpb;
use hanniball_proto::rating::v1::rating_client::RatingClient;
use hanniball_proto::scheduler::v1 as spb;
use hanniball_proto::scheduler::v1::scheduler_client::SchedulerClient;
use sea_orm::{ConnectionTrait, Database, DatabaseConnection, Statement, Value};
use tonic::Code;
use tonic::transport::Channel;

/// How a column is read and written back.
#[derive(Clone, Copy)]
enum Ty {
    /// bigint
    I,
    /// integer
    N,
    /// text
    S,
    /// boolean
    B,
    /// double
    F,
}

use Ty::{B, F, I, N, S};

/// Every table of the old single database with its columns as its migrations left them (the
/// key columns first: rows are compared in that order).
const TABLES: &[(&str, &[(&str, Ty)])] = &[
    (
        "players",
        &[("id", I), ("name", S), ("kind", S), ("created_at_ms", I)],
    ),
    (
        "tokens",
        &[
            ("id", I),
            ("player_id", I),
            ("hash", S),
            ("created_at_ms", I),
            ("revoked_at_ms", I),
            ("scopes", S),
            ("expires_at_ms", I),
        ],
    ),
    (
        "games",
        &[
            ("id", I),
            ("kind", S),
            ("ruleset", S),
            ("white_player_id", I),
            ("black_player_id", I),
            ("initial_ms", I),
            ("increment_ms", I),
            ("rated", B),
            ("max_turns", N),
            ("tag", S),
            ("idempotency_key", S),
            ("status", S),
            ("outcome", S),
            ("reason", S),
            ("position", S),
            ("turns_played", N),
            ("white_ms", I),
            ("black_ms", I),
            ("clock_since", I),
            ("draw_offer_by", S),
            ("created_at_ms", I),
            ("finished_at_ms", I),
            ("version", I),
        ],
    ),
    (
        "turns",
        &[
            ("game_id", I),
            ("number", N),
            ("side", S),
            ("text", S),
            ("position_after", S),
            ("white_ms", I),
            ("black_ms", I),
            ("played_at_ms", I),
            ("spent_ms", I),
        ],
    ),
    (
        "results_outbox",
        &[("sequence", I), ("game_id", I), ("finished_at_ms", I)],
    ),
    (
        "clock_leases",
        &[("game_id", I), ("owner", S), ("expires_at_ms", I)],
    ),
    (
        "rating_events",
        &[
            ("sequence", I),
            ("ladder", S),
            ("kind", S),
            ("game_id", I),
            ("first_player_id", I),
            ("second_player_id", I),
            ("score_half_points", N),
            ("at_ms", I),
            ("new_rating", F),
            ("reason", S),
            ("actor", S),
            ("first_before", F),
            ("first_after", F),
            ("second_before", F),
            ("second_after", F),
            ("recorded_at_ms", I),
        ],
    ),
    (
        "ratings",
        &[
            ("ladder", S),
            ("player_id", I),
            ("rating", F),
            ("deviation", F),
            ("volatility", F),
            ("games", N),
            ("wins", N),
            ("draws", N),
            ("losses", N),
            ("peak", F),
            ("reached_2400", B),
            ("period", I),
            ("period_games", N),
            ("last_played", I),
            ("last_event", I),
        ],
    ),
    ("rating_cursor", &[("consumer", S), ("sequence", I)]),
    (
        "tournaments",
        &[
            ("id", I),
            ("name", S),
            ("kind", S),
            ("ruleset", S),
            ("system", S),
            ("rounds", N),
            ("initial_ms", I),
            ("increment_ms", I),
            ("max_turns", N),
            ("rated", B),
            ("bye_points", N),
            ("tiebreaks", S),
            ("initial_colour", S),
            ("forfeit_withdraws", B),
            ("auto_pair", B),
            ("status", S),
            ("current_round", N),
            ("created_at_ms", I),
            ("self_entry", B),
            ("late_self_entry", B),
            ("version", I),
        ],
    ),
    (
        "tournament_players",
        &[
            ("tournament_id", I),
            ("player_id", I),
            ("start_rank", N),
            ("rating", N),
            ("joined_round", N),
            ("withdrawn_from", N),
        ],
    ),
    (
        "bye_requests",
        &[
            ("tournament_id", I),
            ("player_id", I),
            ("round", N),
            ("points", N),
        ],
    ),
    (
        "boards",
        &[
            ("tournament_id", I),
            ("round", N),
            ("board", N),
            ("kind", S),
            ("white_id", I),
            ("black_id", I),
            ("game_id", I),
            ("result", S),
            ("corrected", B),
            ("short", B),
        ],
    ),
    (
        "queue_entries",
        &[
            ("player_id", I),
            ("kind", S),
            ("ruleset", S),
            ("initial_ms", I),
            ("increment_ms", I),
            ("rated", B),
            ("joined_at_ms", I),
        ],
    ),
    (
        "matches",
        &[
            ("id", I),
            ("white_id", I),
            ("black_id", I),
            ("kind", S),
            ("ruleset", S),
            ("initial_ms", I),
            ("increment_ms", I),
            ("rated", B),
            ("game_id", I),
            ("created_at_ms", I),
        ],
    ),
    ("scheduler_cursor", &[("id", N), ("sequence", I)]),
];

/// The tables whose first column counts from a sequence (PostgreSQL: moved past copied rows).
const SERIAL: &[(&str, &str)] = &[
    ("players", "id"),
    ("tokens", "id"),
    ("games", "id"),
    ("results_outbox", "sequence"),
    ("rating_events", "sequence"),
    ("tournaments", "id"),
    ("matches", "id"),
];

/// Every row of every table, in key order.
async fn rows(db: &DatabaseConnection) -> Vec<(&'static str, Vec<Vec<Value>>)> {
    let backend = db.get_database_backend();
    let mut all = Vec::new();
    for (table, columns) in TABLES {
        let names: Vec<&str> = columns.iter().map(|(name, _)| *name).collect();
        let order: Vec<String> = (1..=names.len().min(3)).map(|i| i.to_string()).collect();
        let sql = format!(
            "SELECT {} FROM {table} ORDER BY {}",
            names.join(", "),
            order.join(", ")
        );
        let found = db
            .query_all_raw(Statement::from_string(backend, sql))
            .await
            .expect(table);
        let mut values = Vec::new();
        for row in found {
            let mut value = Vec::new();
            for (i, (name, ty)) in columns.iter().enumerate() {
                let read = match ty {
                    I => row.try_get_by_index::<Option<i64>>(i).map(Value::from),
                    N => row.try_get_by_index::<Option<i32>>(i).map(Value::from),
                    S => row.try_get_by_index::<Option<String>>(i).map(Value::from),
                    B => row.try_get_by_index::<Option<bool>>(i).map(Value::from),
                    F => row.try_get_by_index::<Option<f64>>(i).map(Value::from),
                };
                value.push(read.unwrap_or_else(|e| panic!("{table}.{name}: {e}")));
            }
            values.push(value);
        }
        all.push((*table, values));
    }
    all
}

/// Writes `rows` into the tables of `db` (as they were read).
async fn copy(db: &DatabaseConnection, rows: &[(&'static str, Vec<Vec<Value>>)]) {
    let backend = db.get_database_backend();
    for ((table, columns), (_, values)) in TABLES.iter().zip(rows) {
        let names: Vec<&str> = columns.iter().map(|(name, _)| *name).collect();
        let marks: Vec<String> = (1..=names.len())
            .map(|i| match backend {
                sea_orm::DbBackend::Postgres => format!("${i}"),
                _ => "?".to_owned(),
            })
            .collect();
        let sql = format!(
            "INSERT INTO {table} ({}) VALUES ({})",
            names.join(", "),
            marks.join(", ")
        );
        for row in values {
            db.execute_raw(Statement::from_sql_and_values(backend, &sql, row.clone()))
                .await
                .unwrap_or_else(|e| panic!("{table}: {e}"));
        }
    }
    if backend == sea_orm::DbBackend::Postgres {
        for (table, column) in SERIAL {
            let sql = format!(
                "SELECT setval(pg_get_serial_sequence('{table}', '{column}'), \
                 coalesce(max({column}), 0) + 1, false) FROM {table}"
            );
            db.execute_unprepared(&sql).await.expect(table);
        }
    }
}

async fn channel(url: &str) -> Channel {
    Channel::from_shared(url.to_owned())
        .expect("url")
        .connect()
        .await
        .expect("connect")
}

/// The games `player` has had rated on the hanniball ladder.
async fn rated_games(url: &str, player: i64) -> u32 {
    let mut rating = RatingClient::with_interceptor(channel(url).await, Bearer::new(ADMIN_TOKEN));
    rating
        .get_rating(rpb::GetRatingRequest {
            player: Some(rpb::PlayerRef {
                player: Some(rpb::player_ref::Player::Id(player)),
            }),
            ladder: String::new(),
        })
        .await
        .expect("rating")
        .into_inner()
        .rating
        .expect("rating")
        .games
}

/// Waits until `player` has `games` rated games.
async fn until_rated(url: &str, player: i64, games: u32) {
    for _ in 0..400 {
        if rated_games(url, player).await >= games {
            return;
        }
        tokio::time::sleep(Duration::from_millis(25)).await;
    }
    panic!("player {player} never had {games} rated games");
}

/// A rated game between `white` and `black`, both moving, then Black resigns.
async fn play_and_resign(url: &str, white: &str, black: &str, ids: (i64, i64)) -> i64 {
    let mut admin = ArbiterClient::with_interceptor(channel(url).await, Bearer::new(ADMIN_TOKEN));
    let game = admin
        .create_game(pb::CreateGameRequest {
            kind: "hanniball".to_owned(),
            white_player_id: ids.0,
            black_player_id: ids.1,
            rated: true,
            ..Default::default()
        })
        .await
        .expect("create game")
        .into_inner()
        .game
        .expect("game")
        .id;
    let mut w = ArbiterClient::with_interceptor(channel(url).await, Bearer::new(white));
    let mut b = ArbiterClient::with_interceptor(channel(url).await, Bearer::new(black));
    hanniball_e2e::both_move(&mut w, &mut b, game).await;
    hanniball_e2e::end_by(&mut w, &mut b, game, 0).await;
    game
}

/// What the services made before the upgrade, to check after it.
struct Before {
    players: Vec<(i64, String)>,
    revoked: String,
    game: i64,
    tournament: i64,
}

/// Plays on a scratch database with today's services: a rated game to its end, a Swiss with four
/// players started (round 1's games created), a revoked token.
async fn make_rows(url: &str) -> Before {
    let (server, shutdown) = hanniball_e2e::all_services(url).await;
    let mut accounts =
        AccountsClient::with_interceptor(channel(&server).await, Bearer::new(ADMIN_TOKEN));
    let mut players = Vec::new();
    for i in 0..4 {
        let (id, token) = hanniball_e2e::register_bot(&mut accounts, &format!("old-{i}")).await;
        players.push((id, token));
    }
    let revoked = accounts
        .issue_token(apb::IssueTokenRequest {
            player_id: players[0].0,
            scopes: Vec::new(),
            expires_in_seconds: 0,
        })
        .await
        .expect("issue")
        .into_inner()
        .token
        .expect("token");
    accounts
        .revoke_token(apb::RevokeTokenRequest {
            token_id: revoked.token_id,
        })
        .await
        .expect("revoke");
    let game = play_and_resign(
        &server,
        &players[0].1,
        &players[1].1,
        (players[0].0, players[1].0),
    )
    .await;
    until_rated(&server, players[0].0, 1).await;
    let mut scheduler =
        SchedulerClient::with_interceptor(channel(&server).await, Bearer::new(ADMIN_TOKEN));
    let tournament = scheduler
        .create_tournament(spb::CreateTournamentRequest {
            settings: Some(spb::TournamentSettings {
                name: "Before the split".to_owned(),
                rounds: 3,
                rated: true,
                ..Default::default()
            }),
        })
        .await
        .expect("create")
        .into_inner()
        .tournament
        .expect("tournament")
        .id;
    for (id, _) in &players {
        scheduler
            .add_player(spb::AddPlayerRequest {
                tournament_id: tournament,
                player_id: *id,
                rating: 0,
            })
            .await
            .expect("add");
    }
    scheduler
        .start_tournament(spb::StartTournamentRequest {
            tournament_id: tournament,
        })
        .await
        .expect("start");
    for _ in 0..400 {
        let t = scheduler
            .get_tournament(spb::GetTournamentRequest {
                tournament_id: tournament,
            })
            .await
            .expect("get")
            .into_inner()
            .tournament
            .expect("tournament");
        if t.boards.len() == 2 && t.boards.iter().all(|b| b.game_id > 0) {
            break;
        }
        tokio::time::sleep(Duration::from_millis(25)).await;
    }
    shutdown.cancel();
    tokio::time::sleep(Duration::from_millis(300)).await;
    Before {
        players,
        revoked: revoked.token,
        game,
        tournament,
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_old_single_database_upgrades_in_place_with_nothing_lost() {
    for url in databases().await {
        let scratch = match testing::postgres_base_url() {
            Some(base) if url.starts_with("postgres") => testing::postgres_url(&base)
                .await
                .expect("a scratch database"),
            _ => testing::sqlite_url(),
        };
        let before = make_rows(&scratch).await;
        let made = rows(&Database::connect(scratch.as_str()).await.expect("scratch")).await;
        for table in [
            "players",
            "tokens",
            "games",
            "turns",
            "results_outbox",
            "rating_events",
        ] {
            let (_, found) = made.iter().find(|(t, _)| *t == table).expect(table);
            assert!(!found.is_empty(), "the scratch database has no {table}");
        }

        // The old single database's schema, as its migrations left it, with those rows in it.
        testing::old_schema(&url).await.expect("the old schema");
        let old = Database::connect(url.as_str()).await.expect("connect");
        copy(&old, &made).await;
        old.close().await.expect("close");

        // The services start on it: each service's migrator adopts its tables.
        let (server, shutdown) = hanniball_e2e::all_services(&url).await;
        let upgraded = Database::connect(url.as_str()).await.expect("connect");
        // The consumers' cursors may move on at once (the scheduler reading results the old
        // process had not reached yet): every other row is as it was, a cursor never goes back.
        let (now, then) = (rows(&upgraded).await, made.clone());
        let cursor = |t: &str| t.ends_with("_cursor");
        let kept = |all: &[(&'static str, Vec<Vec<Value>>)]| -> Vec<_> {
            all.iter().filter(|(t, _)| !cursor(t)).cloned().collect()
        };
        assert_eq!(kept(&now), kept(&then), "{url}: every row is still there");
        for ((table, rows_now), (_, rows_then)) in
            now.iter().zip(&then).filter(|((t, _), _)| cursor(t))
        {
            assert!(
                rows_now.len() >= rows_then.len(),
                "{url}: {table} lost a row"
            );
            let sequence = |rows: &[Vec<Value>]| match rows.first().and_then(|r| r.get(1)) {
                Some(Value::BigInt(Some(n))) => Some(*n),
                _ => None,
            };
            if let (Some(now), Some(then)) = (sequence(rows_now), sequence(rows_then)) {
                assert!(now >= then, "{url}: {table} went back from {then} to {now}");
            }
        }

        // Old tokens work; the revoked one stays revoked.
        let (id, token) = &before.players[1];
        let mut own = AccountsClient::with_interceptor(channel(&server).await, Bearer::new(token));
        let me = own
            .who_am_i(apb::WhoAmIRequest {})
            .await
            .expect("an old token works")
            .into_inner();
        assert_eq!(me.player.expect("player").id, *id);
        let mut revoked =
            AccountsClient::with_interceptor(channel(&server).await, Bearer::new(&before.revoked));
        let refused = revoked
            .who_am_i(apb::WhoAmIRequest {})
            .await
            .expect_err("a revoked token stays revoked");
        assert_eq!(refused.code(), Code::Unauthenticated);

        // The old game, the old tournament and the old ratings read as before.
        let mut arbiter =
            ArbiterClient::with_interceptor(channel(&server).await, Bearer::new(ADMIN_TOKEN));
        let game = arbiter
            .get_game(pb::GetGameRequest {
                game_id: before.game,
            })
            .await
            .expect("the old game")
            .into_inner()
            .game
            .expect("game");
        assert_eq!(game.turns.len(), 2, "{game:?}");
        let mut scheduler =
            SchedulerClient::with_interceptor(channel(&server).await, Bearer::new(ADMIN_TOKEN));
        let t = scheduler
            .get_tournament(spb::GetTournamentRequest {
                tournament_id: before.tournament,
            })
            .await
            .expect("the old tournament")
            .into_inner()
            .tournament
            .expect("tournament");
        assert_eq!(t.boards.len(), 2, "{t:?}");
        assert_eq!(rated_games(&server, before.players[0].0).await, 1);

        // New rows: a new player gets a new id, a new rated game is rated once, the old one is
        // not rated again (the rating cursor was kept).
        let mut accounts =
            AccountsClient::with_interceptor(channel(&server).await, Bearer::new(ADMIN_TOKEN));
        let (new_id, _) = hanniball_e2e::register_bot(&mut accounts, "after-the-split").await;
        let highest = before
            .players
            .iter()
            .map(|(id, _)| *id)
            .max()
            .expect("players");
        assert!(new_id > highest, "new id {new_id} after {highest}");
        let (w, b) = (&before.players[2], &before.players[3]);
        play_and_resign(&server, &w.1, &b.1, (w.0, b.0)).await;
        until_rated(&server, w.0, 1).await;
        tokio::time::sleep(Duration::from_millis(300)).await;
        assert_eq!(rated_games(&server, before.players[0].0).await, 1, "{url}");
        shutdown.cancel();
    }
}
