//! The server scaffold: any set of services on one listener, with gRPC health (each service
//! reported by name), reflection over every HanniBall proto, and a request id per call.

use std::net::SocketAddr;
use std::sync::atomic::{AtomicU64, Ordering};

use tokio::net::TcpListener;
use tokio::task::JoinHandle;
use tokio_util::sync::CancellationToken;
use tonic::service::RoutesBuilder;
use tonic::transport::server::TcpIncoming;

static REQUEST_COUNTER: AtomicU64 = AtomicU64::new(0);

/// A span per call carrying a request id (the client's `x-request-id`, or a new one), so every log
/// line of the call can be found together.
fn request_span(request: &tonic::codegen::http::Request<()>) -> tracing::Span {
    let id = request
        .headers()
        .get("x-request-id")
        .and_then(|value| value.to_str().ok())
        .map_or_else(
            || format!("r{}", REQUEST_COUNTER.fetch_add(1, Ordering::Relaxed)),
            str::to_owned,
        );
    tracing::info_span!("rpc", request_id = %id, method = %request.uri().path())
}

/// A running server.
#[derive(Debug)]
pub struct Served {
    /// The address it listens on.
    pub addr: SocketAddr,
    task: JoinHandle<Result<(), tonic::transport::Error>>,
}

impl Served {
    /// Waits until the server has stopped (after its shutdown token is cancelled): open streams
    /// are ended by their services, in-flight calls finish.
    pub async fn wait(self) -> Result<(), tonic::transport::Error> {
        match self.task.await {
            Ok(result) => result,
            Err(join) => {
                tracing::error!(%join, "server task failed");
                Ok(())
            }
        }
    }
}

/// Serves `routes` on `listener` until `shutdown`; `names` are the full gRPC service names
/// (`hanniball.arbiter.v1.Arbiter`, …) reported as serving by the health service.
pub async fn serve(
    listener: TcpListener,
    routes: RoutesBuilder,
    names: &[&str],
    shutdown: CancellationToken,
) -> std::io::Result<Served> {
    let addr = listener.local_addr()?;
    let (health, health_service) = tonic_health::server::health_reporter();
    for name in names {
        health
            .set_service_status(*name, tonic_health::ServingStatus::Serving)
            .await;
    }
    let reflection = tonic_reflection::server::Builder::configure()
        .register_encoded_file_descriptor_set(hanniball_proto::FILE_DESCRIPTOR_SET)
        .register_encoded_file_descriptor_set(tonic_health::pb::FILE_DESCRIPTOR_SET)
        .build_v1()
        .map_err(std::io::Error::other)?;
    let mut routes = routes;
    routes.add_service(health_service).add_service(reflection);
    let router = tonic::transport::Server::builder()
        .trace_fn(request_span)
        .add_routes(routes.routes());
    let incoming = TcpIncoming::from(listener).with_nodelay(Some(true));
    let names: Vec<String> = names.iter().map(|n| (*n).to_owned()).collect();
    let task = tokio::spawn(async move {
        let result = router
            .serve_with_incoming_shutdown(incoming, shutdown.cancelled_owned())
            .await;
        for name in names {
            health
                .set_service_status(name, tonic_health::ServingStatus::NotServing)
                .await;
        }
        result
    });
    Ok(Served { addr, task })
}
