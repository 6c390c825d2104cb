//! Game records end to end: a game played on `hanniball serve`, written by `hanniball game
//! export`, read back and replayed by `hanniball rules replay` to the stored position and result;
//! a tampered record is refused, naming the turn.

use crate::common::{authed, data_dir, hanniball_as, ok_as, register_two, serve};

use hanniball_proto::arbiter::v1 as pb;
use hanniball_proto::arbiter::v1::arbiter_client::ArbiterClient;
use hanniball_rules::hanniball::playout::goal_seeking_turn;
use hanniball_rules::hanniball::{Position, Ruleset};

#[tokio::test]
async fn exported_records_replay_to_the_stored_game() {
    let dir = data_dir("records-test");
    let (_server, url) = serve(&dir, &[]);
    let admin = std::fs::read_to_string(dir.join("admin-token")).expect("admin token");
    let admin = admin.trim();
    let mut arbiter = ArbiterClient::connect(url.clone()).await.expect("connect");
    let (tokens, ids) = register_two(&url, admin).await;
    let create = |max_turns: u32| pb::CreateGameRequest {
        white_player_id: ids[0],
        black_player_id: ids[1],
        time_control: Some(pb::TimeControl {
            initial_ms: 300_000,
            increment_ms: 2_000,
        }),
        max_turns,
        ..Default::default()
    };
    let game = arbiter
        .create_game(authed(create(10), admin))
        .await
        .expect("create")
        .into_inner()
        .game
        .expect("game");
    // Goal-seeking play to a goal or the turn limit.
    let mut position = Position::initial(Ruleset::Standard);
    let mut seed = 99u64;
    let mut pick = move |n: usize| {
        seed = seed.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1);
        ((seed >> 33) % n as u64) as usize
    };
    let mut number = 1;
    loop {
        let turn = goal_seeking_turn(&position, &mut pick).expect("a turn");
        position = position.play_turn(&turn).expect("legal");
        let answer = arbiter
            .submit_turn(authed(
                pb::SubmitTurnRequest {
                    game_id: game.id,
                    turn_number: number,
                    turn: turn.to_string(),
                },
                &tokens[(number as usize + 1) % 2],
            ))
            .await
            .expect("accepted")
            .into_inner();
        number += 1;
        if answer.state.expect("state").status != pb::GameStatus::Active as i32 {
            break;
        }
    }
    let stored = arbiter
        .get_game(authed(pb::GetGameRequest { game_id: game.id }, admin))
        .await
        .expect("get")
        .into_inner()
        .game
        .expect("game");
    let state = stored.state.expect("state");
    let result = state.result.expect("over");

    let path = dir.join("game.hbr");
    let path_text = path.to_str().expect("utf-8 path");
    ok_as(
        admin,
        &[
            "game",
            "export",
            &game.id.to_string(),
            "--server",
            &url,
            "-o",
            path_text,
        ],
    );
    let text = std::fs::read_to_string(&path).expect("written");
    assert!(text.contains("[White \"white\"]"), "{text}");
    assert!(text.contains("[Black \"black\"]"), "{text}");
    assert!(text.contains("[TimeControl \"300+2\"]"), "{text}");
    assert!(text.contains("[MaxTurns \"10\"]"), "{text}");
    assert_eq!(
        text.lines().filter(|l| l.contains(". ")).count(),
        stored.turns.len(),
        "{text}"
    );
    let replayed = ok_as(admin, &["rules", "replay", path_text]);
    let mut lines = replayed.lines();
    assert_eq!(lines.next(), Some(state.position.as_str()), "{replayed}");
    let score = result.summary.split_whitespace().next().expect("score");
    assert!(
        lines.next().expect("result line").starts_with(score),
        "{replayed} vs {}",
        result.summary
    );

    // A tampered record: the second turn replaced by the first again.
    let turns: Vec<&str> = text.lines().filter(|l| l.starts_with("2. ")).collect();
    let first = text
        .lines()
        .find(|l| l.starts_with("1. "))
        .expect("turn 1")
        .trim_start_matches("1. ");
    let tampered = text.replacen(turns[0], &format!("2. {first}"), 1);
    std::fs::write(&path, tampered).expect("write");
    let out = hanniball_as(admin, &["rules", "replay", path_text]);
    assert!(!out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("turn 2"), "{stderr}");

    // A resigned game: the result as recorded, with its reason.
    let game = arbiter
        .create_game(authed(create(0), admin))
        .await
        .expect("create")
        .into_inner()
        .game
        .expect("game");
    arbiter
        .resign(authed(pb::ResignRequest { game_id: game.id }, &tokens[0]))
        .await
        .expect("resign");
    let text = ok_as(
        admin,
        &["game", "export", &game.id.to_string(), "--server", &url],
    );
    assert!(text.contains("[Reason \"resignation\"]"), "{text}");
    assert!(text.trim_end().ends_with("0-1"), "{text}");
    std::fs::write(&path, &text).expect("write");
    let replayed = ok_as(admin, &["rules", "replay", path_text]);
    assert!(replayed.contains("0-1 resignation"), "{replayed}");
}
