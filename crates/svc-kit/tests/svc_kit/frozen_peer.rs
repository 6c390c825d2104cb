//! A frozen Accounts (a socket that accepts and never answers, as a stopped process's does):
//! every read through a remote `Directory` answers `UNAVAILABLE` within about a second, never
//! the caller's whole deadline.

use std::time::{Duration, Instant};

use hanniball_db::StoreError;
use hanniball_svc_kit::{AdminToken, ClientTls, Directory};
use tokio_util::sync::CancellationToken;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_frozen_accounts_service_is_unavailable_within_a_second() {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("bind");
    let url = format!("http://{}", listener.local_addr().expect("addr"));
    // Accepts every connection and holds it, never answering.
    let held = tokio::spawn(async move {
        let mut sockets = Vec::new();
        while let Ok((socket, _)) = listener.accept().await {
            sockets.push(socket);
        }
    });
    let shutdown = CancellationToken::new();
    let directory = Directory::remote(
        &url,
        &ClientTls::default(),
        AdminToken::new("admin"),
        shutdown.clone(),
    )
    .expect("directory");
    for _ in 0..3 {
        let started = Instant::now();
        // Bounded here too, so that a hang fails the test instead of stalling it.
        let answer = tokio::time::timeout(
            Duration::from_secs(5),
            directory.token_by_hash("not-a-token"),
        )
        .await
        .expect("an answer, not a hang");
        let took = started.elapsed();
        assert!(
            matches!(answer, Err(StoreError::Unavailable { .. })),
            "{answer:?}"
        );
        assert!(took < Duration::from_millis(1_500), "took {took:?}");
    }
    let started = Instant::now();
    let names = tokio::time::timeout(
        Duration::from_secs(5),
        directory.player_names(&[hanniball_ids::PlayerId(1)]),
    )
    .await
    .expect("an answer, not a hang");
    assert!(names.is_err() && started.elapsed() < Duration::from_millis(1_500));
    shutdown.cancel();
    held.abort();
}
