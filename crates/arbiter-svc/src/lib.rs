//! The arbiter service: accounts and games over gRPC. It owns every game (each loaded game behind
//! its own lock, with a clock task), is the only authority on the rules, keeps the clocks, and
//! acknowledges a turn only after the database has committed it (through a group-commit writer).
//! Its tables (games, turns, the results outbox, clock leases) and their SQL and migrations are
//! in [`store`]; the Accounts service it serves keeps its tables in `hanniball-accounts`.
//!
//! What this crate does NOT do: no rules (they are `hanniball-rules`, reached through the game
//! seam), no game lifecycle logic (`hanniball-arbiter`), no other service's tables, no process
//! set-up (logging, configuration and `main` belong to the binary).

pub mod clock;
mod convert;
pub mod error;
pub mod hub;
pub mod lookup;
mod password;
mod service;
mod sessions;
pub mod store;
mod view;
mod writer;

use std::net::SocketAddr;
use std::sync::Arc;

use hanniball_db::Db;
use hanniball_proto::accounts::v1::accounts_server::AccountsServer;
use hanniball_proto::arbiter::v1::arbiter_server::ArbiterServer;
use hanniball_svc_kit::{AdminToken, Auth, Directory, Served};
use tokio::net::TcpListener;
use tokio_util::sync::CancellationToken;
use tonic::server::NamedService;
use tonic::service::RoutesBuilder;

pub use clock::{Clock, ManualClock};
pub use hub::Hub;

use service::{AccountsService, ArbiterService, Shared};

/// How the arbiter runs.
#[derive(Clone, Debug)]
pub struct Options {
    /// The admin bearer token (from configuration; shared, so that it can be replaced while the
    /// server runs: `"token".into()` for a fixed one).
    pub admin_token: AdminToken,
    /// The clock (the system clock except in tests).
    pub clock: Clock,
}

/// The arbiter's gRPC services (Arbiter and Accounts), ready to be served on any listener, alone
/// or beside the other services.
#[derive(Debug)]
pub struct Arbiter {
    /// Its hub (tests look inside).
    pub hub: Arc<Hub>,
    shared: Arc<Shared>,
}

impl Arbiter {
    /// The full names of its gRPC services (for health reporting).
    pub const SERVICE_NAMES: [&'static str; 2] = [
        <ArbiterServer<ArbiterService> as NamedService>::NAME,
        <AccountsServer<AccountsService> as NamedService>::NAME,
    ];

    /// Applies the pending migrations of its tables and Accounts' in `db`.
    pub async fn migrate(db: &Db) -> Result<(), hanniball_db::StoreError> {
        hanniball_accounts::Accounts::open(db).await?;
        store::Store::open(db).await?;
        Ok(())
    }

    /// Opens its tables and the accounts tables in `db` (applying their migrations), loads every
    /// unfinished game (their clocks run again) and starts the background tasks. `shutdown` ends
    /// open streams and the background tasks.
    pub async fn build(
        db: Db,
        options: Options,
        shutdown: CancellationToken,
    ) -> Result<Arbiter, error::ServiceError> {
        let accounts = hanniball_accounts::Accounts::open(&db).await?;
        let store = store::Store::open(&db).await?;
        let hub = Hub::new(store.clone(), accounts, options.clock, shutdown.clone());
        // SQLite checkpoints beside the writes, so that no commit pays for one.
        tokio::spawn(async move {
            let mut tick = tokio::time::interval(std::time::Duration::from_secs(1));
            loop {
                tokio::select! {
                    () = shutdown.cancelled() => return,
                    _ = tick.tick() => {
                        if let Err(error) = store.checkpoint().await {
                            tracing::warn!(%error, "checkpoint failed");
                        }
                    }
                }
            }
        });
        // Replicas on PostgreSQL: listen for the others' changes before loading, so that nothing
        // committed in between is missed; then follow them.
        let changes = hub.store.listen_games().await?;
        let loaded = hub.load_active().await?;
        tracing::info!(games = loaded, "arbiter loaded its unfinished games");
        if let Some(changes) = changes {
            tokio::spawn(Arc::clone(&hub).follow(changes));
            // One replica keeps each running clock (a lease in the database).
            tokio::spawn(Arc::clone(&hub).keep_leases());
        }
        let shared = Arc::new(Shared {
            hub: Arc::clone(&hub),
            auth: Auth::new(options.admin_token.clone()).with_clock({
                let clock = hub.clock.clone();
                move || clock.now()
            }),
        });
        // Revocations (here and, on PostgreSQL, on every replica) empty the token cache and end
        // the streams of the revoked token.
        tokio::spawn(shared.auth.follow(&hub.directory, hub.shutdown.clone()));
        Ok(Arbiter { hub, shared })
    }

    /// Accounts as this arbiter serves it: the other services of the same process ask it who the
    /// players and tokens are.
    #[must_use]
    pub fn accounts(&self) -> &Directory {
        &self.hub.directory
    }

    /// Adds the Arbiter and Accounts services to `routes`.
    pub fn add_to(&self, routes: &mut RoutesBuilder) {
        routes
            .add_service(
                ArbiterServer::new(ArbiterService {
                    shared: Arc::clone(&self.shared),
                })
                .max_decoding_message_size(hanniball_svc_kit::MAX_REQUEST_BYTES),
            )
            .add_service(
                AccountsServer::new(AccountsService {
                    shared: Arc::clone(&self.shared),
                })
                .max_decoding_message_size(hanniball_svc_kit::MAX_REQUEST_BYTES),
            );
    }
}

/// A running arbiter server.
#[derive(Debug)]
pub struct Running {
    /// The address it listens on.
    pub addr: SocketAddr,
    /// Its hub (tests look inside).
    pub hub: Arc<Hub>,
    served: Served,
}

impl Running {
    /// Stops gracefully: open streams end, in-flight calls finish, then the server returns.
    pub async fn stop(self) -> Result<(), tonic::transport::Error> {
        self.served.stop().await
    }

    /// Waits until the server stops (after `shutdown` is cancelled elsewhere).
    pub async fn wait(self) -> Result<(), tonic::transport::Error> {
        self.served.wait().await
    }
}

/// Starts the arbiter alone on `listener` (tests, and `hanniball serve --only arbiter`).
/// `shutdown` stops it (as does [`Running::stop`]).
pub async fn start(
    db: Db,
    listener: TcpListener,
    options: Options,
    shutdown: CancellationToken,
) -> Result<Running, error::ServiceError> {
    let limits = hanniball_svc_kit::EdgeLimits::default();
    start_with_limits(db, listener, options, limits, shutdown).await
}

/// [`start`] with the given edge limits (the admin token is always trusted); the load benchmark
/// turns the per-caller limits off to measure the server itself.
pub async fn start_with_limits(
    db: Db,
    listener: TcpListener,
    options: Options,
    limits: hanniball_svc_kit::EdgeLimits,
    shutdown: CancellationToken,
) -> Result<Running, error::ServiceError> {
    let mut limits = limits;
    limits.admin_token = Some(options.admin_token.clone());
    let arbiter = Arbiter::build(db, options, shutdown.clone()).await?;
    let mut routes = RoutesBuilder::default();
    arbiter.add_to(&mut routes);
    let served = hanniball_svc_kit::serve_with(
        listener,
        routes,
        &Arbiter::SERVICE_NAMES,
        shutdown.clone(),
        limits,
    )
    .await
    .map_err(|e| error::ServiceError::Internal(format!("cannot serve: {e}")))?;
    tracing::info!(addr = %served.addr, "arbiter serving");
    Ok(Running {
        addr: served.addr,
        hub: arbiter.hub,
        served,
    })
}
