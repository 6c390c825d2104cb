//! The scheduler service: Swiss (FIDE Dutch) and round-robin tournaments and the matchmaking
//! queue, over gRPC. It creates games in the arbiter and reads their results from the arbiter's
//! results stream (its cursor is stored, so nothing is lost while it is down); it asks the rating
//! service for seeding and matchmaking ratings.
//!
//! What this crate does NOT do: no pairing rules (they are `hanniball-pairing`), no game rules,
//! no other service's tables (its own, with their SQL and migrations, are in [`store`]; players
//! are Accounts'), no process set-up.

mod core;
mod details;
mod domain;
pub mod error;
mod import;
mod model;
mod service;
pub mod store;

use std::sync::Arc;
use std::time::Duration;

use hanniball_db::Db;
use hanniball_pairing::matchmaking::QueueConfig;
use hanniball_proto::arbiter::v1 as apb;
use hanniball_proto::arbiter::v1::arbiter_client::ArbiterClient;
use hanniball_proto::rating::v1::rating_client::RatingClient;
use hanniball_proto::scheduler::v1::scheduler_server::SchedulerServer;
use hanniball_svc_kit::{AdminToken, Auth, Directory, Results, Served, follow_results};
use tokio::net::TcpListener;
use tokio_util::sync::CancellationToken;
use tonic::server::NamedService;
use tonic::service::RoutesBuilder;

use hanniball_svc_kit::pause;

use crate::core::Core;
use crate::error::ServiceError;
use crate::service::SchedulerService;

/// How the scheduler runs.
#[derive(Clone, Debug)]
pub struct SchedulerOptions {
    /// The admin bearer token: checks organisers, and is what the scheduler calls the arbiter
    /// and the rating service with. Shared: a rotation reaches both at once.
    pub admin_token: AdminToken,
    /// The arbiter's URL (games are created there; results come from there).
    pub arbiter_url: String,
    /// The rating service's URL, if any (without one every player rates 1500 in the queue and
    /// tournaments seed by the ratings given to AddPlayer).
    pub rating_url: Option<String>,
    /// The matchmaking windows.
    pub queue: QueueConfig,
    /// How often the queue is matched and missing work is redone.
    pub tick: Duration,
    /// How to reach the arbiter and the rating service over TLS (`https://` URLs).
    pub tls: hanniball_svc_kit::ClientTls,
    /// Where the web pages are (`http://host:port`), once known; empty: no pages. Tournaments
    /// are sent with their page's address.
    pub pages: PagesUrl,
}

/// The web pages' base address, shared with whoever learns it (the process starts its pages
/// after its services).
pub type PagesUrl = Arc<std::sync::RwLock<String>>;

impl SchedulerOptions {
    /// Defaults for a scheduler calling the arbiter (and rating service) at `url`.
    #[must_use]
    pub fn new(admin_token: impl Into<AdminToken>, url: &str) -> SchedulerOptions {
        SchedulerOptions {
            admin_token: admin_token.into(),
            arbiter_url: url.to_owned(),
            rating_url: Some(url.to_owned()),
            queue: QueueConfig {
                base_window: 100,
                widening_per_second: 20,
                max_window: 1_000,
            },
            tick: Duration::from_millis(500),
            tls: hanniball_svc_kit::ClientTls::default(),
            pages: PagesUrl::default(),
        }
    }
}

/// The scheduler's gRPC service, ready to be served alone or beside the others.
#[derive(Debug)]
pub struct Scheduler {
    core: Core,
    auth: Arc<Auth>,
    pages: PagesUrl,
}

impl Scheduler {
    /// The full names of its gRPC services (for health reporting).
    pub const SERVICE_NAMES: [&'static str; 1] =
        [<SchedulerServer<SchedulerService> as NamedService>::NAME];

    /// Starts the background work (results from the arbiter, the queue, reconciliation) and
    /// returns the service. `shutdown` stops the background work.
    pub async fn build(
        db: Db,
        accounts: Directory,
        options: &SchedulerOptions,
        shutdown: CancellationToken,
    ) -> Result<Scheduler, ServiceError> {
        let store = store::Store::open(&db).await?;
        let bearer = options.admin_token.clone();
        let channel = hanniball_svc_kit::connect_with(&options.arbiter_url, &options.tls)
            .map_err(|e| ServiceError::Internal(format!("bad arbiter URL: {e}")))?;
        let arbiter = ArbiterClient::with_interceptor(channel, bearer.clone());
        let ratings = match &options.rating_url {
            Some(url) => Some(RatingClient::with_interceptor(
                hanniball_svc_kit::connect_with(url, &options.tls)
                    .map_err(|e| ServiceError::Internal(format!("bad rating URL: {e}")))?,
                bearer,
            )),
            None => None,
        };
        let core = Core {
            store,
            accounts,
            arbiter,
            ratings,
            queue: options.queue,
            loaded: Arc::default(),
        };
        tokio::spawn(follow_results(
            core.arbiter.clone(),
            Boards(core.clone()),
            Duration::from_secs(5),
            shutdown.clone(),
        ));
        let auth = Arc::new(Auth::new(options.admin_token.clone()));
        // Revocations on any replica empty this service's token cache at once.
        tokio::spawn(auth.follow(&core.accounts, shutdown.clone()));
        tokio::spawn(tick(core.clone(), options.tick, shutdown));
        Ok(Scheduler {
            core,
            auth,
            pages: Arc::clone(&options.pages),
        })
    }

    /// Adds the Scheduler service to `routes`.
    pub fn add_to(&self, routes: &mut RoutesBuilder) {
        routes.add_service(
            SchedulerServer::new(SchedulerService {
                core: self.core.clone(),
                auth: Arc::clone(&self.auth),
                pages: Arc::clone(&self.pages),
            })
            .max_decoding_message_size(hanniball_svc_kit::MAX_REQUEST_BYTES),
        );
    }
}

/// The scheduler as a follower of results: a batch's finished games reach their boards (or
/// matches) before the cursor moves past them; applying one twice is harmless.
struct Boards(Core);

impl Results for Boards {
    async fn cursor(&self) -> Result<i64, String> {
        let cursor = self.0.store.scheduler_cursor().await;
        cursor.map_err(|e| e.to_string())
    }

    async fn handle(&self, batch: &[apb::FinishedGame]) -> Result<(), String> {
        for game in batch {
            self.0.on_finished(game).await.map_err(|e| e.to_string())?;
        }
        let Some(last) = batch.last() else {
            return Ok(());
        };
        let moved = self.0.store.set_scheduler_cursor(last.sequence).await;
        moved.map_err(|e| e.to_string())
    }
}

/// Matches the queue and redoes missing work, every `every`.
async fn tick(core: Core, every: Duration, shutdown: CancellationToken) {
    let mut rounds: u64 = 0;
    while pause(every, &shutdown).await {
        if let Err(error) = core.matchmake().await {
            tracing::warn!(%error, "matchmaking failed");
        }
        // Reconciliation is cheap but not free: every few ticks.
        if rounds.is_multiple_of(4)
            && let Err(error) = core.reconcile().await
        {
            tracing::warn!(%error, "reconciliation failed");
        }
        rounds += 1;
    }
}

/// A running scheduler served alone.
pub type Running = Served;

/// Starts the scheduler alone on `listener` (`hanniball serve --only scheduler`).
pub async fn start(
    db: Db,
    accounts: Directory,
    listener: TcpListener,
    options: &SchedulerOptions,
    shutdown: CancellationToken,
) -> Result<Running, ServiceError> {
    let scheduler = Scheduler::build(db, accounts, options, shutdown.clone()).await?;
    let mut routes = RoutesBuilder::default();
    scheduler.add_to(&mut routes);
    let names = &Scheduler::SERVICE_NAMES;
    hanniball_svc_kit::serve_alone(listener, routes, names, &options.admin_token, shutdown)
        .await
        .map_err(|e| ServiceError::Internal(format!("cannot serve: {e}")))
}
