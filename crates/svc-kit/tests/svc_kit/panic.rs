//! A handler that panics: the call gets `INTERNAL` ("internal error"), the panic is logged with
//! the call's request id, and the server goes on answering.

use std::convert::Infallible;
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};

use tokio_util::sync::CancellationToken;
use tonic::codegen::http::{Request, Response};
use tonic::codegen::{BoxFuture, Service};
use tonic::server::NamedService;
use tonic::service::RoutesBuilder;

/// A service whose every call panics.
#[derive(Clone)]
struct Bomb;

impl NamedService for Bomb {
    const NAME: &'static str = "test.Bomb";
}

impl Service<Request<tonic::body::Body>> for Bomb {
    type Response = Response<tonic::body::Body>;
    type Error = Infallible;
    type Future = BoxFuture<Self::Response, Self::Error>;

    fn poll_ready(&mut self, _cx: &mut Context<'_>) -> Poll<Result<(), Self::Error>> {
        Poll::Ready(Ok(()))
    }

    fn call(&mut self, _request: Request<tonic::body::Body>) -> Self::Future {
        Box::pin(async move {
            let turns: Vec<u32> = Vec::new();
            let index = turns.len();
            // An index out of bounds, as a careless handler would.
            let _ = turns[index];
            Ok(Response::new(tonic::body::Body::empty()))
        })
    }
}

#[derive(Clone, Default)]
struct Log(Arc<Mutex<Vec<u8>>>);

impl std::io::Write for Log {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0.lock().expect("log").extend_from_slice(buf);
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

#[tokio::test]
async fn a_panicking_call_gets_internal_and_the_server_goes_on() {
    let log = Log::default();
    let writer = log.clone();
    // The process's subscriber: a thread-local one (`set_default`) missed the panic lines in most
    // runs while the other test of this binary ran beside it (tracing caches each callsite's
    // interest for the whole process). The only test here that installs one: see `main.rs`.
    tracing::subscriber::set_global_default(
        tracing_subscriber::fmt()
            .with_writer(move || writer.clone())
            .with_ansi(false)
            .finish(),
    )
    .expect("subscriber");
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("bind");
    let mut routes = RoutesBuilder::default();
    routes.add_service(Bomb);
    let shutdown = CancellationToken::new();
    let served = hanniball_svc_kit::serve(listener, routes, &["test.Bomb"], shutdown.clone())
        .await
        .expect("serve");
    let channel = tonic::transport::Channel::from_shared(format!("http://{}", served.addr))
        .expect("url")
        .connect()
        .await
        .expect("connect");
    for attempt in 0..3 {
        let mut grpc = tonic::client::Grpc::new(channel.clone());
        grpc.ready().await.expect("ready");
        let mut request = tonic::Request::new(());
        request.metadata_mut().insert(
            "x-request-id",
            format!("bomb-{attempt}").parse().expect("ascii"),
        );
        let status = grpc
            .unary::<(), (), _>(
                request,
                "/test.Bomb/Explode".parse().expect("path"),
                tonic_prost::ProstCodec::default(),
            )
            .await
            .expect_err("the call fails");
        assert_eq!(status.code(), tonic::Code::Internal, "{status:?}");
        assert_eq!(status.message(), "internal error");
    }
    // The server still answers (health, on the same connection).
    let mut health = tonic_health::pb::health_client::HealthClient::new(channel);
    let answer = health
        .check(tonic_health::pb::HealthCheckRequest {
            service: "test.Bomb".to_owned(),
        })
        .await
        .expect("health answers")
        .into_inner();
    assert_eq!(
        answer.status,
        tonic_health::pb::health_check_response::ServingStatus::Serving as i32
    );
    let text = String::from_utf8(log.0.lock().expect("log").clone()).expect("utf-8");
    for attempt in 0..3 {
        assert!(
            text.lines()
                .any(|l| l.contains("panic") && l.contains(&format!("bomb-{attempt}"))),
            "no panic logged with request id bomb-{attempt}:\n{text}"
        );
    }
    shutdown.cancel();
}
