//! The server scaffold: any set of services on one listener, with gRPC health (each service
//! reported by name), reflection over every HanniBall proto, and a request id per call.

use std::net::SocketAddr;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use tokio::net::TcpListener;
use tokio::task::JoinHandle;
use tokio_stream::StreamExt;
use tokio_util::sync::CancellationToken;
use tonic::service::RoutesBuilder;

use crate::edge::{EdgeLayer, EdgeLimits};
use crate::tls::ServerTls;

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

/// A running server (each service's `start` returns one).
#[derive(Debug)]
pub struct Served {
    /// The address it listens on.
    pub addr: SocketAddr,
    shutdown: CancellationToken,
    task: JoinHandle<Result<(), tonic::transport::Error>>,
}

impl Served {
    /// Stops gracefully: open streams end, in-flight calls finish, then the server returns.
    pub async fn stop(self) -> Result<(), tonic::transport::Error> {
        self.shutdown.cancel();
        self.wait().await
    }

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

/// Answers a panicked call with `INTERNAL` ("internal error"): the panic itself is logged by the
/// hook that [`serve`] installs, inside the call's span (so with its request id).
#[derive(Clone, Copy, Debug)]
struct PanicAnswer;

impl tower_http::catch_panic::ResponseForPanic for PanicAnswer {
    type ResponseBody = tonic::body::Body;

    fn response_for_panic(
        &mut self,
        _err: Box<dyn std::any::Any + Send + 'static>,
    ) -> tonic::codegen::http::Response<tonic::body::Body> {
        tonic::Status::internal("internal error").into_http()
    }
}

/// Logs panics through `tracing` (with the span, hence the request id, of the call that
/// panicked), once per process.
fn log_panics() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        let previous = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            let location = info
                .location()
                .map(|l| format!("{}:{}", l.file(), l.line()))
                .unwrap_or_default();
            let message = info
                .payload()
                .downcast_ref::<&str>()
                .map(|s| (*s).to_owned())
                .or_else(|| info.payload().downcast_ref::<String>().cloned())
                .unwrap_or_default();
            tracing::error!(%location, %message, "panic");
            if !tracing::dispatcher::has_been_set() {
                previous(info);
            }
        }));
    });
}

/// How long an HTTP/2 connection may be silent before it is pinged, and how long the answer may
/// take before the connection (and every call on it) is dropped.
const KEEPALIVE_INTERVAL: Duration = Duration::from_secs(30);
const KEEPALIVE_TIMEOUT: Duration = Duration::from_secs(20);
/// Calls open at once on one connection.
const STREAMS_PER_CONNECTION: u32 = 256;
pub use crate::limits::MAX_REQUEST_BYTES;

/// Serves `routes` on `listener` until `shutdown`; `names` are the full gRPC service names
/// (`hanniball.arbiter.v1.Arbiter`, …) reported as serving by the health service. Uses the
/// default [`EdgeLimits`].
pub async fn serve(
    listener: TcpListener,
    routes: RoutesBuilder,
    names: &[&str],
    shutdown: CancellationToken,
) -> std::io::Result<Served> {
    serve_with(listener, routes, names, shutdown, EdgeLimits::default()).await
}

/// [`serve`] with the given limits per caller.
pub async fn serve_with(
    listener: TcpListener,
    routes: RoutesBuilder,
    names: &[&str],
    shutdown: CancellationToken,
    limits: EdgeLimits,
) -> std::io::Result<Served> {
    let listeners = Listeners {
        public: listener,
        tls: None,
        internal: None,
        health: None,
    };
    serve_on(listeners, routes, names, shutdown, limits).await
}

/// Serves one service alone on `listener` (each service's `start`: tests, `serve --only`),
/// behind the edge with its default limits, the admin token exempt from the per-caller ones.
pub async fn serve_alone(
    listener: TcpListener,
    routes: RoutesBuilder,
    names: &[&str],
    admin_token: &crate::AdminToken,
    shutdown: CancellationToken,
) -> std::io::Result<Served> {
    let limits = EdgeLimits {
        admin_token: Some(admin_token.clone()),
        ..EdgeLimits::default()
    };
    serve_with(listener, routes, names, shutdown, limits).await
}

/// Where a server accepts connections.
#[derive(Debug)]
pub struct Listeners {
    /// The service port.
    pub public: TcpListener,
    /// TLS on the service port (plain HTTP/2 when `None`).
    pub tls: Option<std::sync::Arc<ServerTls>>,
    /// A second, plain listener for the services of this process to call each other when the
    /// service port speaks TLS; bind it to a loopback address.
    pub internal: Option<TcpListener>,
    /// A plain listener that serves only gRPC health, for probes that cannot speak TLS (the
    /// kubelet's `grpc` probe); it carries no token and no data.
    pub health: Option<TcpListener>,
}

/// [`serve_with`] on `listeners`.
pub async fn serve_on(
    listeners: Listeners,
    routes: RoutesBuilder,
    names: &[&str],
    shutdown: CancellationToken,
    limits: EdgeLimits,
) -> std::io::Result<Served> {
    log_panics();
    let stop_on = shutdown.clone();
    let addr = listeners.public.local_addr()?;
    let (health, health_service) = tonic_health::server::health_reporter();
    for name in names {
        health
            .set_service_status(*name, tonic_health::ServingStatus::Serving)
            .await;
    }
    // Reflection in both generations: v1, and v1alpha for the clients that speak only it
    // (Python's grpcio-reflection, older grpcurl and Postman).
    let reflection = || {
        tonic_reflection::server::Builder::configure()
            .register_encoded_file_descriptor_set(hanniball_proto::FILE_DESCRIPTOR_SET)
            .register_encoded_file_descriptor_set(tonic_health::pb::FILE_DESCRIPTOR_SET)
    };
    let v1 = reflection().build_v1().map_err(std::io::Error::other)?;
    let v1alpha = reflection()
        .build_v1alpha()
        .map_err(std::io::Error::other)?;
    if let Some(listener) = listeners.health {
        let probes = tonic::transport::Server::builder()
            .add_service(health_service.clone())
            .serve_with_incoming_shutdown(
                tonic::transport::server::TcpIncoming::from(listener),
                shutdown.clone().cancelled_owned(),
            );
        tokio::spawn(async move {
            if let Err(error) = probes.await {
                tracing::error!(%error, "the health listener failed");
            }
        });
    }
    let mut routes = routes;
    routes
        .add_service(health_service)
        .add_service(v1)
        .add_service(v1alpha);
    let stalled = limits.stalled;
    let router = tonic::transport::Server::builder()
        .trace_fn(request_span)
        .http2_keepalive_interval(Some(KEEPALIVE_INTERVAL))
        .http2_keepalive_timeout(Some(KEEPALIVE_TIMEOUT))
        .tcp_keepalive(Some(KEEPALIVE_INTERVAL))
        .max_concurrent_streams(Some(STREAMS_PER_CONNECTION))
        .layer(crate::metrics::MetricsLayer)
        .layer(EdgeLayer::new(limits))
        .layer(tower_http::catch_panic::CatchPanicLayer::custom(
            PanicAnswer,
        ))
        .add_routes(routes.routes());
    let connections = crate::tls::accept(
        listeners.public,
        listeners.tls,
        listeners.internal,
        stalled,
        shutdown.clone(),
    );
    let incoming =
        tokio_stream::wrappers::ReceiverStream::new(connections).map(Ok::<_, std::io::Error>);
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
    Ok(Served {
        addr,
        shutdown: stop_on,
        task,
    })
}
