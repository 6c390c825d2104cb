//! `hanniball serve` as a process: embedded SQLite default, the generated admin token, and
//! recovery after `kill -9` on the same database with identical positions, history and clocks.

use crate::common::{authed, data_dir, register_two, serve};

use hanniball_proto::arbiter::v1 as pb;
use hanniball_proto::arbiter::v1::arbiter_client::ArbiterClient;

#[tokio::test]
async fn state_survives_kill_9() {
    let dir = data_dir("serve-test");
    let (mut first, url) = serve(&dir, &[]);
    let admin = std::fs::read_to_string(dir.join("admin-token")).expect("admin token generated");
    let admin = admin.trim();
    let mut arbiter = ArbiterClient::connect(url.clone()).await.expect("connect");
    let (tokens, ids) = register_two(&url, admin).await;
    let game = arbiter
        .create_game(authed(
            pb::CreateGameRequest {
                white_player_id: ids[0],
                black_player_id: ids[1],
                time_control: Some(pb::TimeControl {
                    initial_ms: 600_000,
                    increment_ms: 5_000,
                }),
                ..Default::default()
            },
            admin,
        ))
        .await
        .expect("create")
        .into_inner()
        .game
        .expect("game");
    for (number, turn) in [(1, "d4-c6"), (2, "d12-c10"), (3, "f4-e6")] {
        let token = &tokens[(number as usize + 1) % 2];
        arbiter
            .submit_turn(authed(
                pb::SubmitTurnRequest {
                    game_id: game.id,
                    turn_number: number,
                    turn: turn.to_owned(),
                },
                token,
            ))
            .await
            .expect("turn acknowledged");
    }
    let get = |arbiter: &mut ArbiterClient<tonic::transport::Channel>| {
        let mut arbiter = arbiter.clone();
        let admin = admin.to_owned();
        async move {
            arbiter
                .get_game(authed(pb::GetGameRequest { game_id: game.id }, &admin))
                .await
                .expect("get")
                .into_inner()
                .game
                .expect("game")
        }
    };
    let before = get(&mut arbiter).await;
    first.0.kill().expect("kill -9");
    first.0.wait().expect("reaped");

    let (mut second, url) = serve(&dir, &[]);
    let mut arbiter = ArbiterClient::connect(url).await.expect("reconnect");
    let after = get(&mut arbiter).await;
    let (sb, sa) = (before.state.expect("state"), after.state.expect("state"));
    assert_eq!(sa.position, sb.position);
    assert_eq!(after.turns, before.turns);
    let (cb, ca) = (sb.clocks.expect("clocks"), sa.clocks.expect("clocks"));
    assert_eq!((ca.white_ms, ca.black_ms), (cb.white_ms, cb.black_ms));
    assert_eq!(ca.running, cb.running);
    // Play goes on where it stopped.
    arbiter
        .submit_turn(authed(
            pb::SubmitTurnRequest {
                game_id: game.id,
                turn_number: 4,
                turn: "f12-e10".to_owned(),
            },
            &tokens[1],
        ))
        .await
        .expect("turn 4 after the restart");
    second.0.kill().expect("kill");
    second.0.wait().expect("reaped");
    let _ = std::fs::remove_dir_all(&dir);
}

/// `hanniball serve 2>log` writes plain text: no colour escape codes in a file (colour only on a
/// terminal, never with `NO_COLOR`).
#[test]
fn a_log_file_has_no_colour_codes() {
    let dir = data_dir("plain-log");
    let (server, _url) = serve(&dir, &[("HANNIBALL__LOG__FORMAT", "text")]);
    std::thread::sleep(std::time::Duration::from_millis(300));
    drop(server);
    let log = std::fs::read_to_string(dir.join("log")).expect("the log");
    assert!(!log.trim().is_empty(), "the server logged nothing");
    assert!(!log.contains('\u{1b}'), "escape codes in the log: {log:?}");
}
