//! The arbiter end to end: the real server on 127.0.0.1:0, the generated clients, a manual clock.
//! Every test runs on SQLite and, when `HANNIBALL_TEST_POSTGRES_URL` is set, on PostgreSQL.

use std::time::Duration;

use hanniball_e2e::{ADMIN_TOKEN, Table, databases, game_of, goal_game, start, submit};
use hanniball_proto::accounts::v1 as apb;
use hanniball_proto::arbiter::v1 as pb;
use tokio_stream::StreamExt;
use tonic::Code;

use crate::refusal as code;

#[tokio::test]
async fn a_whole_game_to_a_goal() {
    let turns = goal_game(11);
    for db in databases().await {
        let server = start(&db).await;
        let (white, mut w) = server.player("white-bot").await;
        let (black, mut b) = server.player("black-bot").await;
        let game = server.game(white, black, None).await;
        let mut watch = w
            .arbiter
            .watch_game(pb::WatchGameRequest {
                game_id: game.id,
                from_turn: 0,
            })
            .await
            .expect("watch")
            .into_inner();
        for (i, turn) in turns.iter().enumerate() {
            let client = if i % 2 == 0 { &mut w } else { &mut b };
            let number = i as u32 + 1;
            let response = submit(client, game.id, number, turn)
                .await
                .unwrap_or_else(|e| panic!("turn {number} {turn}: {e}"));
            assert_eq!(response.record.expect("record").number, number);
        }
        let end = game_of(&mut w, game.id).await;
        let st = end.state.expect("state");
        assert_eq!(st.status, pb::GameStatus::Finished as i32);
        let result = st.result.expect("result");
        assert!(
            result.reason == pb::EndReason::Goal as i32
                || result.reason == pb::EndReason::OwnGoal as i32,
            "{result:?}"
        );
        assert_eq!(end.turns.len(), turns.len());
        assert_eq!(
            end.turns.iter().map(|t| t.turn.clone()).collect::<Vec<_>>(),
            turns
        );
        // The watcher saw the snapshot, every turn, and the end.
        let mut seen = Vec::new();
        while let Some(event) = tokio::time::timeout(Duration::from_secs(5), watch.next())
            .await
            .expect("the stream ends after the game")
        {
            seen.push(event.expect("event").event.expect("payload"));
        }
        assert!(matches!(
            seen.first(),
            Some(pb::game_event::Event::Snapshot(_))
        ));
        let played = seen
            .iter()
            .filter(|e| matches!(e, pb::game_event::Event::TurnPlayed(_)))
            .count();
        assert_eq!(played, turns.len());
        assert!(matches!(
            seen.last(),
            Some(pb::game_event::Event::GameOver(_))
        ));
        // The result went to the outbox.
        let mut results = server
            .admin()
            .await
            .arbiter
            .watch_results(pb::WatchResultsRequest { after_sequence: 0 })
            .await
            .expect("results")
            .into_inner();
        let finished = tokio::time::timeout(Duration::from_secs(5), results.next())
            .await
            .expect("a result")
            .expect("stream item")
            .expect("finished game");
        assert_eq!(finished.game_id, game.id);
        assert!(finished.rated);
        server.running.stop().await.expect("stop");
    }
}

#[tokio::test]
async fn penalty_removal_only_after_an_offence_and_only_first() {
    for db in databases().await {
        let server = start(&db).await;
        let Table {
            mut w, mut b, game, ..
        } = server.table(None).await;
        // No offence yet: no removal.
        let (c, message) = code(submit(&mut w, game.id, 1, "xc14 d4-c6").await);
        assert_eq!(c, Code::InvalidArgument);
        assert!(message.contains("no offence"), "{message}");
        submit(&mut w, game.id, 1, "d4-c6").await.expect("turn 1");
        // Black clusters c14 c13 b13 b12.
        let response = submit(&mut b, game.id, 2, "d13-c13").await.expect("turn 2");
        assert_eq!(response.state.expect("state").notices, vec!["clustering"]);
        let (c, message) = code(submit(&mut w, game.id, 3, "c6-d8 xb12").await);
        assert_eq!(c, Code::InvalidArgument);
        assert!(message.contains("first step"), "{message}");
        let (c, message) = code(submit(&mut w, game.id, 3, "xe15").await);
        assert_eq!(c, Code::InvalidArgument);
        assert!(message.contains("never be removed"), "{message}");
        let response = submit(&mut w, game.id, 3, "xb12 c6-d8")
            .await
            .expect("removal");
        assert!(
            response
                .state
                .expect("state")
                .position
                .starts_with("1k1/2l3l2/1ee2e1e1/3h1h1h1/")
        );
        server.running.stop().await.expect("stop");
    }
}

#[tokio::test]
async fn bad_turns_are_refused_and_change_nothing() {
    for db in databases().await {
        let server = start(&db).await;
        let Table {
            mut w, mut b, game, ..
        } = server.table(None).await;
        // Illegal: INVALID_ARGUMENT with the engine's reason.
        let (c, message) = code(submit(&mut w, game.id, 1, "d4-d3").await);
        assert_eq!(c, Code::InvalidArgument);
        assert!(
            message.contains("step d4-d3 is illegal: d3 holds a white elephant"),
            "{message}"
        );
        // Malformed.
        let (c, message) = code(submit(&mut w, game.id, 1, "d4-e66").await);
        assert_eq!(c, Code::InvalidArgument);
        assert!(message.contains("e66"), "{message}");
        // Not your turn, future turn number.
        assert_eq!(
            code(submit(&mut b, game.id, 1, "d12-c10").await).0,
            Code::FailedPrecondition
        );
        assert_eq!(
            code(submit(&mut w, game.id, 2, "d4-c6").await).0,
            Code::FailedPrecondition
        );
        assert_eq!(game_of(&mut w, game.id).await.turns.len(), 0);
        // Accepted, then retried: the same answer, applied once.
        let first = submit(&mut w, game.id, 1, "d4-c6").await.expect("turn 1");
        let again = submit(&mut w, game.id, 1, "d4-c6").await.expect("retry");
        assert_eq!(first.record, again.record);
        assert_eq!(game_of(&mut w, game.id).await.turns.len(), 1);
        // Stale: another turn for a number already played.
        let (c, message) = code(submit(&mut w, game.id, 1, "f4-e6").await);
        assert_eq!(c, Code::FailedPrecondition);
        assert!(message.contains("stale"), "{message}");
        // Unknown game, bad id.
        assert_eq!(
            code(submit(&mut w, 999_999, 1, "d4-c6").await).0,
            Code::NotFound
        );
        assert_eq!(
            code(submit(&mut w, -1, 1, "d4-c6").await).0,
            Code::InvalidArgument
        );
        let listed = w
            .arbiter
            .get_legal_steps(pb::GetLegalStepsRequest {
                game_id: game.id,
                ..Default::default()
            })
            .await
            .expect("legal steps")
            .into_inner();
        assert!(listed.steps.contains(&"d12-c10".to_owned()));
        server.running.stop().await.expect("stop");
    }
}

#[tokio::test]
async fn tokens_and_permissions() {
    for db in databases().await {
        let server = start(&db).await;
        let (white, mut w) = server.player("w").await;
        let (black, _b) = server.player("b").await;
        let (_, mut intruder) = server.player("intruder").await;
        let game = server.game(white, black, None).await;
        let (c, _) = code(submit(&mut intruder, game.id, 1, "d4-c6").await);
        assert_eq!(c, Code::PermissionDenied);
        let (c, _) = code(
            intruder
                .arbiter
                .resign(pb::ResignRequest { game_id: game.id })
                .await,
        );
        assert_eq!(c, Code::PermissionDenied);
        let (c, _) = code(
            w.arbiter
                .create_game(pb::CreateGameRequest {
                    white_player_id: white,
                    black_player_id: black,
                    ..Default::default()
                })
                .await,
        );
        assert_eq!(c, Code::PermissionDenied);
        let mut anonymous = server.client(None).await;
        assert_eq!(
            code(submit(&mut anonymous, game.id, 1, "d4-c6").await).0,
            Code::Unauthenticated
        );
        let mut forged = server.client(Some("hb_forged")).await;
        assert_eq!(
            code(submit(&mut forged, game.id, 1, "d4-c6").await).0,
            Code::Unauthenticated
        );
        // Tokens are stored hashed, revocation works at once, names are unique.
        let mut admin = server.admin().await;
        let issued = admin
            .accounts
            .issue_token(apb::IssueTokenRequest {
                player_id: white,
                ..Default::default()
            })
            .await
            .expect("issue")
            .into_inner()
            .token
            .expect("token");
        let mut second = server.client(Some(&issued.token)).await;
        let me = second
            .accounts
            .who_am_i(apb::WhoAmIRequest {})
            .await
            .expect("who am i")
            .into_inner();
        assert_eq!(me.player.map(|p| p.id), Some(white));
        let revoked = admin
            .accounts
            .revoke_token(apb::RevokeTokenRequest {
                token_id: issued.token_id,
            })
            .await
            .expect("revoke")
            .into_inner();
        assert!(revoked.revoked);
        assert_eq!(
            code(second.accounts.who_am_i(apb::WhoAmIRequest {}).await).0,
            Code::Unauthenticated
        );
        let (c, _) = code(
            admin
                .accounts
                .register_player(apb::RegisterPlayerRequest {
                    name: "w".to_owned(),
                    kind: apb::PlayerKind::Human as i32,
                    issue_token: false,
                })
                .await,
        );
        assert_eq!(c, Code::AlreadyExists);
        let (c, _) = code(
            admin
                .accounts
                .register_player(apb::RegisterPlayerRequest {
                    // A bidi override would let a name display as another.
                    name: "bad\u{202E}eman".to_owned(),
                    ..Default::default()
                })
                .await,
        );
        assert_eq!(c, Code::InvalidArgument);
        // The game is untouched by all of that.
        assert_eq!(game_of(&mut w, game.id).await.turns.len(), 0);
        assert!(!ADMIN_TOKEN.is_empty());
        server.running.stop().await.expect("stop");
    }
}

#[tokio::test]
async fn loss_on_time_without_any_call() {
    for db in databases().await {
        let server = start(&db).await;
        let Table {
            mut w, mut b, game, ..
        } = server.table(Some((10_000, 1_000))).await;
        let mut events = b
            .arbiter
            .watch_player(pb::WatchPlayerRequest {})
            .await
            .expect("player events")
            .into_inner();
        server.clock.advance(4_000);
        let response = submit(&mut w, game.id, 1, "d4-c6").await.expect("turn 1");
        let clocks = response.state.expect("state").clocks.expect("clocks");
        assert_eq!((clocks.white_ms, clocks.black_ms), (7_000, 10_000));
        // Black thinks too long. Nobody calls; the server ends the game.
        server.clock.advance(10_000);
        let over = loop {
            let event = tokio::time::timeout(Duration::from_secs(5), events.next())
                .await
                .expect("an event arrives")
                .expect("stream open")
                .expect("event");
            if let Some(pb::player_event::Event::GameOver(over)) = event.event {
                break over;
            }
        };
        let result = over.result.expect("result");
        assert_eq!(result.reason, pb::EndReason::Time as i32);
        assert_eq!(result.outcome, pb::Outcome::WhiteWins as i32);
        let st = game_of(&mut w, game.id).await.state.expect("state");
        assert_eq!(st.status, pb::GameStatus::Finished as i32);
        assert_eq!(st.clocks.expect("clocks").black_ms, 0);
        let (c, _) = code(submit(&mut b, game.id, 2, "d12-c10").await);
        assert_eq!(c, Code::FailedPrecondition);
        server.running.stop().await.expect("stop");
    }
}

#[tokio::test]
async fn a_watch_stream_resumes_from_turn_n() {
    for db in databases().await {
        let server = start(&db).await;
        let Table {
            mut w, mut b, game, ..
        } = server.table(None).await;
        let turns = ["d4-c6", "d12-c10", "f4-e6", "f12-e10", "b4-a6"];
        for (i, turn) in turns[..4].iter().enumerate() {
            let client = if i % 2 == 0 { &mut w } else { &mut b };
            submit(client, game.id, i as u32 + 1, turn)
                .await
                .expect("turn");
        }
        let mut watch = b
            .arbiter
            .watch_game(pb::WatchGameRequest {
                game_id: game.id,
                from_turn: 3,
            })
            .await
            .expect("watch")
            .into_inner();
        let mut numbers = Vec::new();
        for _ in 0..2 {
            let event = watch.next().await.expect("event").expect("ok");
            let Some(pb::game_event::Event::TurnPlayed(played)) = event.event else {
                panic!("a replayed turn");
            };
            numbers.push(played.record.expect("record").number);
        }
        assert_eq!(numbers, [3, 4]);
        submit(&mut w, game.id, 5, turns[4]).await.expect("turn 5");
        let event = tokio::time::timeout(Duration::from_secs(5), watch.next())
            .await
            .expect("live event")
            .expect("event")
            .expect("ok");
        let Some(pb::game_event::Event::TurnPlayed(played)) = event.event else {
            panic!("a live turn");
        };
        assert_eq!(played.record.expect("record").turn, "b4-a6");
        server.running.stop().await.expect("stop");
    }
}

#[tokio::test]
async fn restart_recovers_every_unfinished_game() {
    for db in databases().await {
        let server = start(&db).await;
        let Table {
            white,
            mut w,
            mut b,
            game,
            ..
        } = server.table(Some((60_000, 2_000))).await;
        server.clock.advance(1_500);
        submit(&mut w, game.id, 1, "d4-c6").await.expect("turn 1");
        server.clock.advance(2_500);
        submit(&mut b, game.id, 2, "d12-c10").await.expect("turn 2");
        let before = game_of(&mut w, game.id).await;
        server.running.stop().await.expect("stop");

        // A new process on the same database, 5 s after the last turn (the manual clock started
        // at 1_700_000_000_000 and moved 4 s).
        let again =
            hanniball_e2e::start_at(&db, hanniball_arbiter::Timestamp(1_700_000_009_000)).await;
        let mut w2 = again.client(Some(ADMIN_TOKEN)).await;
        let after = game_of(&mut w2, game.id).await;
        let (sb, sa) = (before.state.expect("state"), after.state.expect("state"));
        assert_eq!(sa.position, sb.position);
        assert_eq!(after.turns, before.turns);
        let (cb, ca) = (sb.clocks.expect("clocks"), sa.clocks.expect("clocks"));
        assert_eq!(
            (ca.white_ms, ca.black_ms, ca.running),
            (cb.white_ms, cb.black_ms, cb.running)
        );
        assert_eq!(sa.status, pb::GameStatus::Active as i32);
        // Loading changes no clock: White's has run since Black's turn, through the restart.
        assert_eq!(ca.white_ms, 60_000 - 1_500 + 2_000);
        assert_eq!(
            ca.as_of_ms, cb.as_of_ms,
            "the clock runs from the stored moment"
        );
        assert_eq!(
            ca.white_ms - (again.clock_now() - ca.as_of_ms),
            60_000 - 1_500 + 2_000 - 5_000
        );
        let token = again
            .admin()
            .await
            .accounts
            .issue_token(apb::IssueTokenRequest {
                player_id: white,
                ..Default::default()
            })
            .await
            .expect("token")
            .into_inner()
            .token
            .expect("token")
            .token;
        let mut w3 = again.client(Some(&token)).await;
        let next = submit(&mut w3, game.id, 3, "f4-e6")
            .await
            .expect("play goes on after the restart");
        assert_eq!(next.record.expect("record").number, 3);
        again.running.stop().await.expect("stop");
    }
}

#[tokio::test]
async fn draws_resignation_and_abort() {
    for db in databases().await {
        let server = start(&db).await;
        let (white, mut w) = server.player("w").await;
        let (black, mut b) = server.player("b").await;
        // Abort before both moved.
        let g1 = server.game(white, black, None).await;
        let aborted = b
            .arbiter
            .abort_game(pb::AbortGameRequest { game_id: g1.id })
            .await
            .expect("abort")
            .into_inner();
        assert_eq!(
            aborted.state.expect("state").status,
            pb::GameStatus::Aborted as i32
        );
        // Draw offered, declined, offered, accepted.
        let g2 = server.game(white, black, None).await;
        w.arbiter
            .offer_draw(pb::OfferDrawRequest { game_id: g2.id })
            .await
            .expect("offer");
        assert_eq!(
            code(
                w.arbiter
                    .accept_draw(pb::AcceptDrawRequest { game_id: g2.id })
                    .await
            )
            .0,
            Code::FailedPrecondition
        );
        b.arbiter
            .decline_draw(pb::DeclineDrawRequest { game_id: g2.id })
            .await
            .expect("decline");
        w.arbiter
            .offer_draw(pb::OfferDrawRequest { game_id: g2.id })
            .await
            .expect("offer again");
        let drawn = b
            .arbiter
            .accept_draw(pb::AcceptDrawRequest { game_id: g2.id })
            .await
            .expect("accept")
            .into_inner()
            .state
            .expect("state");
        assert_eq!(
            drawn.result.expect("result").outcome,
            pb::Outcome::Draw as i32
        );
        // Resignation.
        let g3 = server.game(white, black, None).await;
        let resigned = w
            .arbiter
            .resign(pb::ResignRequest { game_id: g3.id })
            .await
            .expect("resign")
            .into_inner()
            .state
            .expect("state");
        let result = resigned.result.expect("result");
        assert_eq!(
            (result.outcome, result.reason),
            (
                pb::Outcome::BlackWins as i32,
                pb::EndReason::Resignation as i32
            )
        );
        // Lists by player and status.
        let finished = w
            .arbiter
            .list_games(pb::ListGamesRequest {
                player_id: white,
                status: pb::GameStatus::Finished as i32,
                ..Default::default()
            })
            .await
            .expect("list")
            .into_inner();
        assert_eq!(finished.games.len(), 2);
        server.running.stop().await.expect("stop");
    }
}

#[tokio::test]
async fn open_streams_do_not_block_a_graceful_stop() {
    let db = hanniball_db::testing::sqlite_url();
    let server = start(&db).await;
    let (white, mut w) = server.player("w").await;
    let (black, _b) = server.player("b").await;
    let game = server.game(white, black, None).await;
    let mut watch = w
        .arbiter
        .watch_game(pb::WatchGameRequest {
            game_id: game.id,
            from_turn: 0,
        })
        .await
        .expect("watch")
        .into_inner();
    let mut mine = w
        .arbiter
        .watch_player(pb::WatchPlayerRequest {})
        .await
        .expect("player events")
        .into_inner();
    assert!(watch.next().await.is_some(), "the snapshot");
    assert!(mine.next().await.is_some(), "your turn");
    tokio::time::timeout(Duration::from_secs(10), server.running.stop())
        .await
        .expect("the server stops with streams open")
        .expect("clean stop");
    let end = tokio::time::timeout(Duration::from_secs(5), watch.next())
        .await
        .expect("the stream ends");
    assert!(end.is_none() || end.is_some_and(|item| item.is_err()));
}

#[tokio::test]
async fn health_and_ping_answer() {
    let db = hanniball_db::testing::sqlite_url();
    let server = start(&db).await;
    let channel = tonic::transport::Channel::from_shared(server.url())
        .expect("url")
        .connect()
        .await
        .expect("connect");
    let mut health = tonic_health::pb::health_client::HealthClient::new(channel);
    let status = health
        .check(tonic_health::pb::HealthCheckRequest {
            service: "hanniball.arbiter.v1.Arbiter".to_owned(),
        })
        .await
        .expect("health")
        .into_inner()
        .status;
    assert_eq!(
        status,
        tonic_health::pb::health_check_response::ServingStatus::Serving as i32
    );
    let mut anonymous = server.client(None).await;
    let pong = anonymous
        .arbiter
        .ping(pb::PingRequest {})
        .await
        .expect("ping needs no token")
        .into_inner();
    assert_eq!(pong.server_time_ms, 1_700_000_000_000);
    server.running.stop().await.expect("stop");
}

/// What one player pair saw while the database failed under it.
#[derive(Default)]
struct Tally {
    /// The highest turn number the server acknowledged.
    acknowledged: usize,
    /// Every error answered: its code and message.
    errors: Vec<(Code, String)>,
}

/// Plays `turns` (a whole game) in `game`, White on odd turns, retrying a turn the server could
/// not take once the game shows it was not stored.
async fn play_through_faults(
    mut w: hanniball_e2e::Client,
    mut b: hanniball_e2e::Client,
    game: i64,
    turns: Vec<String>,
) -> Tally {
    let mut tally = Tally::default();
    let mut next = 1;
    let give_up = tokio::time::Instant::now() + Duration::from_secs(60);
    while next <= turns.len() && tokio::time::Instant::now() < give_up {
        let mover = if next % 2 == 1 { &mut w } else { &mut b };
        let number = u32::try_from(next).expect("few turns");
        match submit(mover, game, number, &turns[next - 1]).await {
            Ok(_) => {
                tally.acknowledged = next;
                next += 1;
            }
            Err(status) => {
                tally
                    .errors
                    .push((status.code(), status.message().to_owned()));
                tokio::time::sleep(Duration::from_millis(20)).await;
                // The answer was lost or the write refused: the game says which.
                match w
                    .arbiter
                    .get_game(pb::GetGameRequest { game_id: game })
                    .await
                {
                    Ok(answer) => {
                        let stored = answer.into_inner().game.expect("game").turns.len();
                        next = stored + 1;
                    }
                    Err(status) => tally
                        .errors
                        .push((status.code(), status.message().to_owned())),
                }
            }
        }
    }
    tally
}

/// PostgreSQL ends every connection of the server's database, again and again, then turns the
/// database read-only, while six games are played: every call is answered, with UNAVAILABLE
/// where the database could not do the work (saying "read-only" while it was), never INTERNAL;
/// no acknowledged turn is lost, and every game is played to its end once the database is back.
#[tokio::test]
async fn database_faults_under_play_answer_unavailable_and_lose_no_turn() {
    use hanniball_db::testing::{postgres_base_url, postgres_execute, postgres_url};
    let Some(base) = postgres_base_url() else {
        return;
    };
    let url = postgres_url(&base).await.expect("database");
    let name = url.rsplit('/').next().expect("a name").to_owned();
    let server = start(&url).await;
    let mut players = Vec::new();
    for i in 0..6 {
        let (white, w) = server.player(&format!("w{i}")).await;
        let (black, b) = server.player(&format!("b{i}")).await;
        let game = server.game(white, black, None).await;
        let turns = goal_game(7_000 + i);
        let id = game.id;
        players.push((id, tokio::spawn(play_through_faults(w, b, id, turns))));
    }
    let terminate = format!(
        "SELECT pg_terminate_backend(pid) FROM pg_stat_activity \
         WHERE datname = '{name}' AND pid <> pg_backend_pid()"
    );
    for _ in 0..4 {
        tokio::time::sleep(Duration::from_millis(100)).await;
        postgres_execute(&base, &terminate)
            .await
            .expect("terminate");
    }
    let read_only = format!("ALTER DATABASE {name} SET default_transaction_read_only = on");
    postgres_execute(&base, &read_only)
        .await
        .expect("read-only");
    postgres_execute(&base, &terminate)
        .await
        .expect("terminate");
    tokio::time::sleep(Duration::from_millis(600)).await;
    let writable = format!("ALTER DATABASE {name} RESET default_transaction_read_only");
    postgres_execute(&base, &writable).await.expect("writable");
    postgres_execute(&base, &terminate)
        .await
        .expect("terminate");

    let mut errors = Vec::new();
    let mut admin = server.admin().await;
    for (id, player) in players {
        let tally = player.await.expect("player");
        let game = game_of(&mut admin, id).await;
        assert!(
            game.turns.len() >= tally.acknowledged,
            "game {}: {} turns stored, {} acknowledged",
            game.id,
            game.turns.len(),
            tally.acknowledged
        );
        let state = game.state.expect("state");
        assert!(
            state.result.is_some(),
            "game {} was played to its end: {state:?}",
            game.id
        );
        errors.extend(tally.errors);
    }
    assert!(
        errors.iter().all(|(code, _)| *code == Code::Unavailable),
        "{errors:?}"
    );
    assert!(
        errors.iter().any(|(_, why)| why.contains("read-only")),
        "a write while the database was read-only says so: {errors:?}"
    );
}

/// A turn whose write cannot get at the database (SQLite locked by another writer) answers by
/// the call's deadline, not after the database's own timeout; once the lock is gone the game
/// goes on from what was stored.
#[tokio::test]
async fn a_write_in_flight_is_bounded_by_the_call_deadline() {
    let url = hanniball_db::testing::sqlite_url();
    let server = start(&url).await;
    let Table {
        mut w, mut b, game, ..
    } = server.table(None).await;
    let turns = goal_game(7_100);
    submit(&mut w, game.id, 1, &turns[0]).await.expect("turn 1");
    let lock = hanniball_db::testing::hold_write_lock(&url)
        .await
        .expect("lock");
    let mut request = tonic::Request::new(pb::SubmitTurnRequest {
        game_id: game.id,
        turn_number: 2,
        turn: turns[1].clone(),
    });
    request.set_timeout(Duration::from_millis(300));
    let started = std::time::Instant::now();
    let status = b
        .arbiter
        .submit_turn(request)
        .await
        .expect_err("the database is locked for longer than the deadline");
    let waited = started.elapsed();
    assert!(
        matches!(status.code(), Code::DeadlineExceeded | Code::Cancelled),
        "{status:?}"
    );
    assert!(
        waited < Duration::from_secs(2),
        "answered after {waited:?}, the busy timeout is 5 s"
    );
    drop(lock);
    // The unanswered turn was either stored or not: the game says which, and play goes on.
    for _ in 0..50 {
        if game_of(&mut w, game.id).await.turns.len() >= 2 {
            break;
        }
        match submit(&mut b, game.id, 2, &turns[1]).await {
            Ok(_) => break,
            // Still locked, or the first write landed between the read and this call.
            Err(status)
                if matches!(status.code(), Code::Unavailable | Code::FailedPrecondition) =>
            {
                tokio::time::sleep(Duration::from_millis(100)).await;
            }
            Err(status) => panic!("{status:?}"),
        }
    }
    let stored = game_of(&mut w, game.id).await.turns.len();
    assert_eq!(stored, 2, "turn 2 is stored once the database is free");
    submit(&mut w, game.id, 3, &turns[2]).await.expect("turn 3");
}
