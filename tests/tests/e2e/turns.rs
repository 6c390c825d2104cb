//! Turns step by step over gRPC: `GetLegalSteps` after a partial turn, `CheckTurn` (the dry run
//! of `SubmitTurn`), and the running clock in turn records. The real server on 127.0.0.1:0 with a
//! manual clock; every test runs on SQLite and, when `HANNIBALL_TEST_POSTGRES_URL` is set, on
//! PostgreSQL.

use std::time::Duration;

use hanniball_e2e::check_turn as check;
use hanniball_e2e::legal_steps as steps;
use hanniball_e2e::{
    Client, Table, TestServer, databases, game_of, start, submit, turn_through_the_api,
};
use hanniball_proto::arbiter::v1 as pb;
use tokio_stream::StreamExt;
use tonic::Code;

use crate::refusal;

/// The admin creates a game of `kind` with a time control and a turn limit (0: the default).
async fn create(server: &TestServer, white: i64, black: i64, kind: &str, max_turns: u32) -> i64 {
    server
        .admin()
        .await
        .arbiter
        .create_game(pb::CreateGameRequest {
            kind: kind.to_owned(),
            white_player_id: white,
            black_player_id: black,
            time_control: Some(pb::TimeControl {
                initial_ms: 600_000,
                increment_ms: 1_000,
            }),
            max_turns,
            ..Default::default()
        })
        .await
        .expect("create game")
        .into_inner()
        .game
        .expect("game")
        .id
}

#[tokio::test]
async fn legal_steps_after_a_partial_turn() {
    for db in databases().await {
        let server = start(&db).await;
        let Table { mut w, game, .. } = server.table(None).await;
        let start = steps(&mut w, game.id, "").await.expect("turn start");
        let position = start.state.as_ref().expect("state").position.clone();
        assert!(start.steps.contains(&"d4-c6".to_owned()));
        assert!(!start.may_end && !start.must_end);
        assert_eq!(start.position_after, position);
        assert_eq!(start.result_after, None);

        // One step of White's two-step first turn: the turn may end or go on; the position is
        // the mid-turn one (RULES 1.11: same side, one step taken), the state is untouched.
        let one = steps(&mut w, game.id, "d4-c6").await.expect("one step");
        assert!(one.may_end && !one.must_end, "{one:?}");
        assert!(one.steps.contains(&"f4-e6".to_owned()));
        assert!(
            one.steps.contains(&"c6-d4".to_owned()),
            "the horse may go back"
        );
        assert!(
            one.position_after.ends_with(" e8 w 1 1 standard"),
            "{}",
            one.position_after
        );
        assert_eq!(one.state.expect("state").position, position);
        // Back again: two steps that change nothing, so the turn can neither go on nor end.
        let back = steps(&mut w, game.id, "d4-c6 c6-d4").await.expect("back");
        assert!(
            !back.may_end && back.must_end && back.steps.is_empty(),
            "{back:?}"
        );
        assert_eq!(back.position_after, position.replace(" w 1 0 ", " w 1 2 "));
        // Two steps that change the board: the turn must end, and the position is SubmitTurn's.
        let two = steps(&mut w, game.id, "d4-c6 f4-e6")
            .await
            .expect("two steps");
        assert!(
            two.may_end && two.must_end && two.steps.is_empty(),
            "{two:?}"
        );

        // Refusals name the field and give the engine's reason, as SubmitTurn would.
        let (c, message) = refusal(steps(&mut w, game.id, "d4-d3").await);
        assert_eq!(c, Code::InvalidArgument);
        assert_eq!(
            message,
            "after: step d4-d3 is illegal: d3 holds a white elephant"
        );
        let (c, message) = refusal(steps(&mut w, game.id, "d4-c6 c6-e66").await);
        assert_eq!(c, Code::InvalidArgument);
        assert!(
            message.starts_with("after: malformed turn:") && message.contains("e66"),
            "{message}"
        );
        let (c, message) = refusal(steps(&mut w, game.id, "d4-c6 f4-e6 e6-f4").await);
        assert_eq!(c, Code::InvalidArgument);
        assert!(message.contains("already has its 2 steps"), "{message}");
        let long = vec!["d4-c6"; 50].join(" ");
        let (c, message) = refusal(steps(&mut w, game.id, &long).await);
        assert_eq!(c, Code::InvalidArgument);
        assert!(message.starts_with("after is"), "{message}");
        assert_eq!(
            refusal(steps(&mut w, 999_999, "d4-c6").await).0,
            Code::NotFound
        );

        let played = submit(&mut w, game.id, 1, "d4-c6 f4-e6")
            .await
            .expect("turn 1");
        assert_eq!(played.state.expect("state").position, two.position_after);
        server.running.stop().await.expect("stop");
    }
}

/// A bot that knows no rules: it builds every turn from the steps the server lists, checks it,
/// then submits it. `kind` is the game; games are timed, so every
/// record's running clock is held to the state's.
async fn play_through_the_api(server: &TestServer, kind: &str, max_turns: u32, seed: u64) -> usize {
    let (white, w) = server.player(&format!("{kind}-w-{seed}")).await;
    let (black, b) = server.player(&format!("{kind}-b-{seed}")).await;
    let game = create(server, white, black, kind, max_turns).await;
    let mut clients = [w, b];
    let mut rng = hanniball_rng::Rng::new(seed);
    let mut multi_step_turns = 0;
    for number in 1.. {
        let mover = usize::from(number % 2 == 0);
        let client = &mut clients[mover];
        let (turn, answer) = turn_through_the_api(client, game, &mut rng)
            .await
            .expect("listed steps are legal");
        if turn.contains(' ') {
            multi_step_turns += 1;
        }
        let dry = check(client, game, number, &turn)
            .await
            .expect("the check accepts it");
        let done = submit(client, game, number, &turn)
            .await
            .expect("the turn is accepted");
        // The manual clock stood still: the dry run's answer is the answer.
        assert_eq!(dry.record, done.record, "turn {number} {turn}");
        assert_eq!(dry.state, done.state, "turn {number} {turn}");
        let record = done.record.expect("record");
        let state = done.state.expect("state");
        if answer.must_end {
            assert_eq!(
                answer.position_after, state.position,
                "turn {number} {turn}"
            );
        }
        let record_clocks = record.clocks_after.expect("record clocks");
        let state_clocks = state.clocks.expect("state clocks");
        assert_eq!(record_clocks.running, state_clocks.running, "turn {number}");
        if state.status == pb::GameStatus::Active as i32 {
            assert_eq!(record_clocks.running, state.side_to_move, "turn {number}");
        } else {
            assert_eq!(record_clocks.running, pb::Side::Unspecified as i32);
            let result = state.result.expect("result");
            if let Some(expected) = answer.result_after {
                assert_eq!(expected, result, "the partial turn foretold the result");
            }
            // The stored records say the same (GetGame reads the log).
            let stored = game_of(&mut clients[0], game).await;
            let last = stored.turns.last().expect("turns");
            assert_eq!(
                last.clocks_after.as_ref().expect("clocks").running,
                pb::Side::Unspecified as i32
            );
            let first = stored.turns.first().expect("turns");
            assert_eq!(
                first.clocks_after.as_ref().expect("clocks").running,
                pb::Side::Black as i32
            );
            return multi_step_turns;
        }
    }
    unreachable!("the loop returns when the game ends")
}

#[tokio::test]
async fn a_bot_plays_whole_games_of_multi_step_turns_chosen_through_the_api() {
    for db in databases().await {
        let server = start(&db).await;
        // HanniBall up to its turn limit (or a goal), and paper football to its end.
        let hanniball = play_through_the_api(&server, "hanniball", 16, 1).await;
        assert!(
            hanniball >= 8,
            "only {hanniball} HanniBall turns had several steps"
        );
        let mut bounced = 0;
        for seed in 0..3 {
            bounced += play_through_the_api(&server, "paper-football", 0, seed).await;
        }
        assert!(bounced > 0, "no paper-football turn had a bounce");
        server.running.stop().await.expect("stop");
    }
}

#[tokio::test]
async fn check_turn_refuses_as_submit_turn_does_and_changes_nothing() {
    for db in databases().await {
        let server = start(&db).await;
        let Table {
            mut w, mut b, game, ..
        } = server.table(Some((60_000, 1_000))).await;
        let (_, stranger) = server.player("stranger").await;
        let admin = server.admin().await;
        let mut watch = w
            .arbiter
            .watch_game(pb::WatchGameRequest {
                game_id: game.id,
                from_turn: 0,
            })
            .await
            .expect("watch")
            .into_inner();
        let snapshot = watch.next().await.expect("snapshot").expect("event");
        assert!(matches!(
            snapshot.event,
            Some(pb::game_event::Event::Snapshot(_))
        ));

        // The same refusals, code and message, for every way a turn can be wrong.
        let long = "d4-c6 ".repeat(60);
        let who = [w.clone(), b.clone(), stranger.clone(), admin.clone()];
        let wrong: [(usize, i64, u32, &str); 10] = [
            (0, game.id, 1, "d4-d3"),
            (0, game.id, 1, "d4-e66"),
            (0, game.id, 1, "d4-c6 c6-d4"),
            (0, game.id, 1, ""),
            (0, game.id, 2, "d4-c6"),
            (0, game.id, 0, "d4-c6"),
            (1, game.id, 1, "d12-c10"),
            (2, game.id, 1, "d4-c6"),
            (3, game.id, 1, "d4-c6"),
            (0, 999_999, 1, &long),
        ];
        let before = game_of(&mut w, game.id).await;
        let listed_before = listed(&mut w, game.id).await;
        for (index, id, number, turn) in wrong {
            let mut client = who[index].clone();
            let dry = refusal(check(&mut client, id, number, turn).await);
            let real = refusal(submit(&mut client, id, number, turn).await);
            assert_eq!(dry, real, "{number} {turn:?}");
        }

        // Thinking time: the check does not stop or restart White's clock.
        server.clock.advance(4_000);
        let dry = check(&mut w, game.id, 1, "d4-c6 f4-e6")
            .await
            .expect("legal");
        assert_eq!(dry.record.as_ref().expect("record").spent_ms, 4_000);
        assert_eq!(
            game_of(&mut w, game.id).await,
            before,
            "GetGame is unchanged"
        );
        assert_eq!(
            listed(&mut w, game.id).await,
            listed_before,
            "the stored row is unchanged"
        );
        server.clock.advance(1_000);
        let done = submit(&mut w, game.id, 1, "d4-c6 f4-e6")
            .await
            .expect("turn 1");
        let record = done.record.expect("record");
        assert_eq!(
            record.spent_ms, 5_000,
            "the clock ran on from the start, not from the check"
        );
        assert_eq!(
            record.clocks_after.as_ref().expect("clocks").white_ms,
            56_000
        );
        // What legitimately differs between the check and the turn: the moment and its clocks.
        let mut dry_record = dry.record.expect("record");
        dry_record.played_at_ms = record.played_at_ms;
        dry_record.spent_ms = record.spent_ms;
        dry_record.clocks_after = record.clocks_after;
        assert_eq!(dry_record, record);
        let mut dry_state = dry.state.expect("state");
        let state = done.state.expect("state");
        dry_state.clocks = state.clocks;
        assert_eq!(dry_state, state);

        // The first event after the snapshot is the submitted turn: the checks sent nothing.
        let event = tokio::time::timeout(Duration::from_secs(5), watch.next())
            .await
            .expect("an event")
            .expect("stream open")
            .expect("event");
        match event.event {
            Some(pb::game_event::Event::TurnPlayed(played)) => {
                assert_eq!(played.record, Some(record));
            }
            other => panic!("expected the turn, got {other:?}"),
        }

        // A retry of the accepted turn: the stored record, as SubmitTurn answers it.
        let retry = check(&mut w, game.id, 1, "d4-c6 f4-e6")
            .await
            .expect("retry");
        let again = submit(&mut w, game.id, 1, "d4-c6 f4-e6")
            .await
            .expect("retry");
        assert_eq!((retry.record, retry.state), (again.record, again.state));
        // A game that is over: the same refusal.
        b.arbiter
            .resign(pb::ResignRequest { game_id: game.id })
            .await
            .expect("resign");
        assert_eq!(
            refusal(check(&mut b, game.id, 2, "d12-c10").await),
            refusal(submit(&mut b, game.id, 2, "d12-c10").await)
        );
        let over = refusal(steps(&mut b, game.id, "d12-c10").await);
        assert_eq!(over.0, Code::FailedPrecondition, "{over:?}");
        let none = steps(&mut b, game.id, "").await.expect("no steps");
        assert!(none.steps.is_empty() && none.must_end && !none.may_end);
        server.running.stop().await.expect("stop");
    }
}

/// The game as `ListGames` reads it from the database.
async fn listed(client: &mut Client, game: i64) -> pb::Game {
    client
        .arbiter
        .list_games(pb::ListGamesRequest::default())
        .await
        .expect("list")
        .into_inner()
        .games
        .into_iter()
        .find(|g| g.id == game)
        .expect("listed")
}
