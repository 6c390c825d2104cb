//! Server streams and clients that take nothing: a raw HTTP/2 client that never opens its
//! flow-control window (and answers every PING, so keepalive finds nothing wrong) has its
//! connection closed once a message waits the stall bound; a client that reads keeps its stream,
//! with a heartbeat now and then.

use std::time::{Duration, Instant};

use bytes::Bytes;
use hanniball_arbiter_svc::Options;
use hanniball_e2e::{ADMIN_TOKEN, databases};
use hanniball_svc_kit::{Clock, EdgeLimits};
use tokio_util::sync::CancellationToken;

/// The stall bound the server is started with (the default is 60 s).
const STALLED: Duration = Duration::from_millis(900);

/// An arbiter with Accounts on 127.0.0.1:0 whose streams stall after [`STALLED`].
async fn server() -> (std::net::SocketAddr, CancellationToken) {
    let url = databases().await.remove(0);
    let db = hanniball_db::Db::connect(&url).await.expect("database");
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("port");
    let shutdown = CancellationToken::new();
    let options = Options {
        admin_token: ADMIN_TOKEN.into(),
        clock: Clock::System,
    };
    let limits = EdgeLimits {
        stalled: STALLED,
        ..EdgeLimits::default()
    };
    let running =
        hanniball_e2e::start_arbiter_with_limits(db, listener, options, limits, shutdown.clone())
            .await
            .expect("arbiter");
    (running.addr, shutdown)
}

/// A raw HTTP/2 connection to `addr` with the given stream window, and a `WatchRevocations`
/// call on it. Returns the response's body and a task that ends when the connection does.
async fn watch_revocations(
    addr: std::net::SocketAddr,
    window: u32,
) -> (h2::RecvStream, tokio::task::JoinHandle<Instant>) {
    let tcp = tokio::net::TcpStream::connect(addr).await.expect("connect");
    let (client, connection) = h2::client::Builder::new()
        .initial_window_size(window)
        .handshake::<_, Bytes>(tcp)
        .await
        .expect("HTTP/2 handshake");
    // The connection task answers PINGs for as long as the server keeps the connection.
    let ended = tokio::spawn(async move {
        let _ = connection.await;
        Instant::now()
    });
    let mut client = client.ready().await.expect("ready");
    let request = http::Request::builder()
        .method("POST")
        .uri(format!(
            "http://{addr}/hanniball.accounts.v1.Accounts/WatchRevocations"
        ))
        .header("content-type", "application/grpc")
        .header("te", "trailers")
        .header("authorization", format!("Bearer {ADMIN_TOKEN}"))
        .body(())
        .expect("request");
    let (response, mut body) = client.send_request(request, false).expect("send");
    // An empty WatchRevocationsRequest: a gRPC frame of no bytes.
    body.send_data(Bytes::from_static(&[0, 0, 0, 0, 0]), true)
        .expect("request body");
    let response = response.await.expect("response headers");
    assert_eq!(response.status(), 200, "{response:?}");
    (response.into_body(), ended)
}

#[tokio::test]
async fn a_client_that_never_opens_its_window_is_disconnected() {
    let (addr, shutdown) = server().await;
    let started = Instant::now();
    let (_body, ended) = watch_revocations(addr, 0).await;
    // The first heartbeat waits in the server for a window that never opens; the second waits
    // the stall bound; then the connection goes.
    let at = tokio::time::timeout(STALLED * 10, ended)
        .await
        .expect("the server closes the connection of a client that takes nothing")
        .expect("connection task");
    assert!(
        at - started >= STALLED,
        "closed after {:?}, before the stall bound",
        at - started
    );
    shutdown.cancel();
}

#[tokio::test]
async fn a_client_that_reads_keeps_its_stream_and_hears_heartbeats() {
    let (addr, shutdown) = server().await;
    let (mut body, mut ended) = watch_revocations(addr, 65_535).await;
    let mut heartbeats = 0;
    let until = Instant::now() + STALLED * 4;
    while Instant::now() < until {
        let Ok(data) = tokio::time::timeout_at(until.into(), body.data()).await else {
            break;
        };
        let data = data.expect("the stream stays open").expect("data");
        let _ = body.flow_control().release_capacity(data.len());
        // Each heartbeat is a Revocation with nothing set: an empty gRPC frame (five zero
        // bytes); one chunk may hold several.
        assert!(
            data.len() % 5 == 0 && data.iter().all(|b| *b == 0),
            "heartbeats only: {data:?}"
        );
        heartbeats += data.len() / 5;
    }
    assert!(
        heartbeats >= 4,
        "{heartbeats} heartbeats in four stall bounds"
    );
    assert!(
        tokio::time::timeout(Duration::from_millis(10), &mut ended)
            .await
            .is_err(),
        "the connection of a client that reads stays open"
    );
    shutdown.cancel();
}
