//! The arbiter service: accounts and games over gRPC. It owns every game (one actor task per
//! loaded game), is the only authority on the rules, keeps the clocks, and acknowledges a turn only
//! after the database has committed it (through a group-commit writer).
//!
//! What this crate does NOT do: no rules (they are `hanniball-rules`, reached through the game
//! seam), no game lifecycle logic (`hanniball-arbiter`), no SQL (`hanniball-store`), no process
//! set-up (logging, configuration and `main` belong to the binary).

pub mod auth;
pub mod clock;
mod convert;
pub mod error;
pub mod hub;
mod service;
mod view;
mod writer;

use std::net::SocketAddr;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use hanniball_proto::accounts::v1::accounts_server::AccountsServer;
use hanniball_proto::arbiter::v1::arbiter_server::ArbiterServer;
use hanniball_store::Store;
use tokio::net::TcpListener;
use tokio::task::JoinHandle;
use tokio_util::sync::CancellationToken;
use tonic::transport::server::TcpIncoming;

pub use clock::{Clock, ManualClock};
pub use hub::Hub;

use auth::Auth;
use service::{AccountsService, ArbiterService, Shared};

/// How the arbiter runs.
#[derive(Clone, Debug)]
pub struct Options {
    /// The admin bearer token (from configuration).
    pub admin_token: String,
    /// The clock (the system clock except in tests).
    pub clock: Clock,
}

/// A running arbiter server.
#[derive(Debug)]
pub struct Running {
    /// The address it listens on.
    pub addr: SocketAddr,
    /// Its hub (tests look inside).
    pub hub: Arc<Hub>,
    shutdown: CancellationToken,
    task: JoinHandle<Result<(), tonic::transport::Error>>,
}

impl Running {
    /// Stops gracefully: open streams end, in-flight calls finish, then the server returns.
    pub async fn stop(self) -> Result<(), tonic::transport::Error> {
        self.shutdown.cancel();
        match self.task.await {
            Ok(result) => result,
            Err(join) => {
                tracing::error!(%join, "server task failed");
                Ok(())
            }
        }
    }

    /// Waits until the server stops (after `shutdown` is cancelled elsewhere).
    pub async fn wait(self) -> Result<(), tonic::transport::Error> {
        self.task.await.unwrap_or(Ok(()))
    }
}

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

/// Starts the arbiter on `listener`: migrations are already applied by [`Store::connect`];
/// unfinished games are loaded (their clocks run again) before the first call is served.
/// `shutdown` stops it (as does [`Running::stop`]).
pub async fn start(
    store: Store,
    listener: TcpListener,
    options: Options,
    shutdown: CancellationToken,
) -> Result<Running, error::ServiceError> {
    let addr = listener
        .local_addr()
        .map_err(|e| error::ServiceError::Internal(format!("no local address: {e}")))?;
    let hub = Hub::new(store.clone(), options.clock, shutdown.clone());
    // SQLite checkpoints beside the writes, so that no commit pays for one.
    let checkpoints = shutdown.clone();
    tokio::spawn(async move {
        let mut tick = tokio::time::interval(std::time::Duration::from_secs(1));
        loop {
            tokio::select! {
                () = checkpoints.cancelled() => return,
                _ = tick.tick() => {
                    if let Err(error) = store.checkpoint().await {
                        tracing::warn!(%error, "checkpoint failed");
                    }
                }
            }
        }
    });
    let loaded = hub.load_active().await?;
    tracing::info!(%addr, games = loaded, "arbiter starting");
    let shared = Arc::new(Shared {
        hub: Arc::clone(&hub),
        auth: Auth::new(&options.admin_token),
    });

    let (health, health_service) = tonic_health::server::health_reporter();
    health.set_serving::<ArbiterServer<ArbiterService>>().await;
    health
        .set_serving::<AccountsServer<AccountsService>>()
        .await;
    let reflection = tonic_reflection::server::Builder::configure()
        .register_encoded_file_descriptor_set(hanniball_proto::FILE_DESCRIPTOR_SET)
        .register_encoded_file_descriptor_set(tonic_health::pb::FILE_DESCRIPTOR_SET)
        .build_v1()
        .map_err(|e| error::ServiceError::Internal(format!("reflection: {e}")))?;

    let router = tonic::transport::Server::builder()
        .trace_fn(request_span)
        .add_service(health_service)
        .add_service(reflection)
        .add_service(ArbiterServer::new(ArbiterService {
            shared: Arc::clone(&shared),
        }))
        .add_service(AccountsServer::new(AccountsService { shared }));
    let signal = shutdown.clone();
    let incoming = TcpIncoming::from(listener).with_nodelay(Some(true));
    let task = tokio::spawn(async move {
        let result = router
            .serve_with_incoming_shutdown(incoming, signal.cancelled_owned())
            .await;
        health
            .set_not_serving::<ArbiterServer<ArbiterService>>()
            .await;
        result
    });
    Ok(Running {
        addr,
        hub,
        shutdown,
        task,
    })
}
