//! The arbiter service: games over gRPC. It owns every game (each loaded game behind
//! its own lock, with a clock task), is the only authority on the rules, keeps the clocks, and
//! acknowledges a turn only after the database has committed it (through a group-commit writer).
//! Its tables (games, turns, the results outbox, clock leases) and their SQL and migrations are
//! in [`store`]. Players and tokens it asks Accounts (`hanniball-accounts-svc`) through a
//! [`Directory`]: in this process or over gRPC.
//!
//! What this crate does NOT do: no rules (they are `hanniball-rules`, reached through the game
//! seam), no game lifecycle logic (`hanniball-arbiter`), no other service's tables, no process
//! set-up (logging, configuration and `main` belong to the binary).

mod convert;
pub mod error;
pub mod hub;
mod service;
pub mod store;
mod view;
mod writer;

use std::sync::Arc;

use hanniball_db::Db;
use hanniball_proto::arbiter::v1::arbiter_server::ArbiterServer;
use hanniball_svc_kit::{AdminToken, Auth, Directory};
use tokio_util::sync::CancellationToken;
use tonic::server::NamedService;
use tonic::service::RoutesBuilder;

pub use hanniball_svc_kit::{Clock, ManualClock};
pub use hub::Hub;

use service::{ArbiterService, Shared};

/// How the arbiter runs.
#[derive(Clone, Debug)]
pub struct Options {
    /// The admin bearer token (from configuration; shared, so that it can be replaced while the
    /// server runs: `"token".into()` for a fixed one).
    pub admin_token: AdminToken,
    /// The clock (the system clock except in tests).
    pub clock: Clock,
}

/// The arbiter's gRPC service, ready to be served on any listener, alone or beside the others.
#[derive(Debug)]
pub struct Arbiter {
    /// Its hub (tests look inside).
    pub hub: Arc<Hub>,
    shared: Arc<Shared>,
}

impl Arbiter {
    /// The full names of its gRPC services (for health reporting).
    pub const SERVICE_NAMES: [&'static str; 1] =
        [<ArbiterServer<ArbiterService> as NamedService>::NAME];

    /// Applies the pending migrations of its tables in `db`.
    pub async fn migrate(db: &Db) -> Result<(), hanniball_db::StoreError> {
        store::Store::open(db).await?;
        Ok(())
    }

    /// Opens its tables in `db` (applying their migrations), loads every unfinished game (their
    /// clocks run again) and starts the background tasks; players and tokens come from
    /// `accounts`. `shutdown` ends open streams and the background tasks.
    pub async fn build(
        db: Db,
        accounts: Directory,
        options: Options,
        shutdown: CancellationToken,
    ) -> Result<Arbiter, error::ServiceError> {
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

    /// Adds the Arbiter service to `routes`.
    pub fn add_to(&self, routes: &mut RoutesBuilder) {
        routes.add_service(
            ArbiterServer::new(ArbiterService {
                shared: Arc::clone(&self.shared),
            })
            .max_decoding_message_size(hanniball_svc_kit::MAX_REQUEST_BYTES),
        );
    }
}
