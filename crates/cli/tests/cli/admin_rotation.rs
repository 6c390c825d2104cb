//! `hanniball serve` as a process: the admin token in its file is replaced while the server runs;
//! the new one starts working within seconds and the old one stops, for callers, for the edge's
//! rate-limit exemption, and for the services' own calls to each other (the scheduler creating a
//! matched game in the arbiter).

use std::time::Duration;

use crate::common::{authed, data_dir, register_two, serve};

use hanniball_proto::accounts::v1 as apb;
use hanniball_proto::accounts::v1::accounts_client::AccountsClient;
use hanniball_proto::arbiter::v1 as pb;
use hanniball_proto::arbiter::v1::arbiter_client::ArbiterClient;
use hanniball_proto::scheduler::v1 as spb;
use hanniball_proto::scheduler::v1::scheduler_client::SchedulerClient;
use tonic::Code;
use tonic::transport::Channel;

async fn who_am_i(accounts: &mut AccountsClient<Channel>, token: &str) -> Result<bool, Code> {
    accounts
        .who_am_i(authed(apb::WhoAmIRequest {}, token))
        .await
        .map(|r| r.into_inner().admin)
        .map_err(|s| s.code())
}

/// Waits (bounded: the server reads the file every 2 s) until `token` is the admin's.
async fn until_admin(accounts: &mut AccountsClient<Channel>, token: &str) {
    for _ in 0..300 {
        if who_am_i(accounts, token).await == Ok(true) {
            return;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    panic!("the server did not take the new admin token");
}

/// The answer to `token` once the rate limit lets it through (an old admin token is an ordinary
/// caller again, held to one call a second here).
async fn answer(accounts: &mut AccountsClient<Channel>, token: &str) -> Result<bool, Code> {
    for _ in 0..50 {
        match who_am_i(accounts, token).await {
            Err(Code::ResourceExhausted) => tokio::time::sleep(Duration::from_millis(200)).await,
            other => return other,
        }
    }
    panic!("rate-limited for 10 s");
}

#[tokio::test]
async fn the_admin_token_file_is_rotated_without_a_restart() {
    let dir = data_dir("admin-rotation");
    // One call a second per caller: only the exempt admin token can make many calls at once.
    let (mut server, url) = serve(
        &dir,
        &[
            ("HANNIBALL__SERVER__CALLS_PER_SECOND", "1"),
            ("HANNIBALL__SERVER__BURST", "1"),
            ("HANNIBALL__MATCHMAKING__TICK_MS", "50"),
        ],
    );
    let file = dir.join("admin-token");
    let first = std::fs::read_to_string(&file).expect("admin token generated");
    let first = first.trim().to_owned();
    let mut accounts = AccountsClient::connect(url.clone()).await.expect("connect");
    assert_eq!(who_am_i(&mut accounts, &first).await, Ok(true));

    // Rotation 1: the file is rewritten in place.
    let second = "hb_rotated-admin-token-2";
    std::fs::write(&file, format!("{second}\n")).expect("rewrite");
    until_admin(&mut accounts, second).await;
    assert_eq!(
        answer(&mut accounts, &first).await,
        Err(Code::Unauthenticated),
        "the old admin token must stop working"
    );
    // The new token is exempt from the (tiny) rate limit.
    for _ in 0..20 {
        assert_eq!(who_am_i(&mut accounts, second).await, Ok(true));
    }

    // Rotation 2: a new file renamed over the old one, and SIGHUP (which must not stop the
    // server).
    let third = "hb_rotated-admin-token-3";
    let fresh = dir.join("admin-token.new");
    std::fs::write(&fresh, third).expect("write");
    std::fs::rename(&fresh, &file).expect("rename");
    let status = std::process::Command::new("kill")
        .args(["-HUP", &server.0.id().to_string()])
        .status()
        .expect("kill -HUP");
    assert!(status.success());
    until_admin(&mut accounts, third).await;
    assert_eq!(
        answer(&mut accounts, second).await,
        Err(Code::Unauthenticated)
    );
    assert!(
        server.0.try_wait().expect("status").is_none(),
        "SIGHUP stopped the server"
    );

    // The services call each other with the token in force: two queued bots get a game, which
    // the scheduler creates in the arbiter with the admin token.
    let (tokens, ids) = register_two(&url, third).await;
    let mut scheduler = SchedulerClient::connect(url.clone())
        .await
        .expect("connect");
    for token in &tokens {
        scheduler
            .join_queue(authed(
                spb::JoinQueueRequest {
                    kind: "hanniball".to_owned(),
                    ..Default::default()
                },
                token,
            ))
            .await
            .expect("queued");
    }
    let mut arbiter = ArbiterClient::connect(url).await.expect("connect");
    let mut games = Vec::new();
    for _ in 0..300 {
        games = arbiter
            .list_games(authed(
                pb::ListGamesRequest {
                    player_id: ids[0],
                    ..Default::default()
                },
                third,
            ))
            .await
            .expect("list")
            .into_inner()
            .games;
        if !games.is_empty() {
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    assert_eq!(games.len(), 1, "the queue matched the two bots into a game");

    // An empty file (a half-done edit) keeps the token in force.
    std::fs::write(&file, "").expect("empty");
    let status = std::process::Command::new("kill")
        .args(["-HUP", &server.0.id().to_string()])
        .status()
        .expect("kill -HUP");
    assert!(status.success());
    // The reload after the signal has been attempted once the next one (the poll) has passed;
    // either way the token must still work.
    for _ in 0..3 {
        tokio::time::sleep(Duration::from_millis(1_000)).await;
        assert_eq!(who_am_i(&mut accounts, third).await, Ok(true));
    }
    drop(server);
    std::fs::remove_dir_all(&dir).ok();
}
