//! The rating service: ratings per ladder (FIDE Elo or Glicko-2, from `hanniball-rating`), fed by
//! the arbiter's finished games and by explicit results; history, leaderboards, head-to-head,
//! performance ratings; the admin's adjustments (with an audit record) and rebuilds.
//!
//! How it keeps ratings right:
//! - Every change is an event in the store's rating log, recorded in one transaction with the
//!   ratings it gives; a game is recorded once (its id is unique in the log), so a result that
//!   arrives twice changes nothing.
//! - Events are applied in the order they are recorded, and the store keeps what
//!   [`hanniball_rating::System::rate`] returns. A rebuild replays the log with the same maths and
//!   must find the same ratings.
//! - The results consumer reads the arbiter's outbox (`WatchResults`) from a cursor stored with
//!   the ratings, in the same transaction: a result that finished while this service was down is
//!   rated when it comes back, exactly once.
//!
//! What this crate does NOT do: no rating maths (`hanniball-rating`), no other service's tables
//! (its own, with their SQL and migrations, are in [`store`]; players are Accounts'),
//! no process set-up (logging, configuration and `main` belong to the binary).

mod consumer;
mod convert;
pub mod error;
pub mod ladders;
mod service;
pub mod store;

use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::{SystemTime, UNIX_EPOCH};

use hanniball_db::Db;
use hanniball_proto::rating::v1::rating_server::RatingServer;
use hanniball_rating::System;
use hanniball_svc_kit::{AdminToken, Auth, Directory, Served};
use tokio::net::TcpListener;
use tokio_util::sync::CancellationToken;
use tonic::server::NamedService;
use tonic::service::RoutesBuilder;

pub use error::ServiceError;
pub use ladders::Ladders;
pub use service::CONSUMER;

use service::{RatingService, Shared};

/// Milliseconds since the Unix epoch, from the system clock or from a test.
#[derive(Clone)]
pub struct Clock(Arc<dyn Fn() -> i64 + Send + Sync>);

impl Clock {
    /// The system clock.
    #[must_use]
    pub fn system() -> Clock {
        Clock(Arc::new(|| {
            SystemTime::now()
                .duration_since(UNIX_EPOCH)
                .map_or(0, |d| i64::try_from(d.as_millis()).unwrap_or(i64::MAX))
        }))
    }

    /// A clock reading `now` (tests).
    #[must_use]
    pub fn from_fn(now: impl Fn() -> i64 + Send + Sync + 'static) -> Clock {
        Clock(Arc::new(now))
    }

    /// Now, in unix milliseconds.
    #[must_use]
    pub fn now_ms(&self) -> i64 {
        (self.0)()
    }
}

impl Default for Clock {
    fn default() -> Self {
        Clock::system()
    }
}

impl std::fmt::Debug for Clock {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Clock")
    }
}

/// How the rating service runs; the binary fills it from its `[rating]` settings.
#[derive(Clone, Debug)]
pub struct RatingOptions {
    /// The admin bearer token: admin calls need it, and the results consumer sends it to the
    /// arbiter. Shared: a rotation reaches both at once.
    pub admin_token: AdminToken,
    /// The arbiter to take finished games from (`WatchResults`), e.g. `http://127.0.0.1:50051`;
    /// `None`: no consumer (results arrive through `RecordResult` only).
    pub arbiter_url: Option<String>,
    /// The system of every ladder not named in `ladders` (default: FIDE Elo, `EloConfig::default()`).
    pub default_system: System,
    /// Systems by ladder name (`hanniball/blitz`) or by game kind (`paper-football`, then for all
    /// of its categories).
    pub ladders: BTreeMap<String, System>,
    /// One ladder per game kind and time-control category (`hanniball/blitz`) instead of one per
    /// game kind (`hanniball`). Changing it later starts new ladders; old events keep theirs.
    pub split_by_time_control: bool,
    /// Longest wait between two attempts to reach the arbiter (the wait doubles from 100 ms).
    pub max_backoff: std::time::Duration,
    /// The clock (the system clock except in tests).
    pub clock: Clock,
    /// How to reach the arbiter over TLS (`https://` URLs).
    pub tls: hanniball_svc_kit::ClientTls,
}

impl RatingOptions {
    /// The defaults: Elo everywhere, one ladder per game kind, no consumer.
    #[must_use]
    pub fn new(admin_token: impl Into<AdminToken>) -> RatingOptions {
        RatingOptions {
            admin_token: admin_token.into(),
            arbiter_url: None,
            default_system: System::default(),
            ladders: BTreeMap::new(),
            split_by_time_control: false,
            max_backoff: std::time::Duration::from_secs(5),
            clock: Clock::system(),
            tls: hanniball_svc_kit::ClientTls::default(),
        }
    }
}

/// The rating gRPC service, ready to be served on any listener, alone or beside the others.
#[derive(Debug)]
pub struct Rating {
    shared: Arc<Shared>,
}

impl Rating {
    /// The full names of its gRPC services (for health reporting).
    pub const SERVICE_NAMES: [&'static str; 1] =
        [<RatingServer<RatingService> as NamedService>::NAME];

    /// Checks the configuration and, when `arbiter_url` is set, starts the results consumer
    /// (it connects lazily, so the arbiter may start later, and reconnects with backoff).
    /// Migrations are already applied by [`Store::connect`]. `shutdown` stops the consumer.
    pub async fn build(
        db: Db,
        accounts: Directory,
        options: RatingOptions,
        shutdown: CancellationToken,
    ) -> Result<Rating, ServiceError> {
        let ladders = Ladders::new(
            options.default_system.clone(),
            options.ladders.clone(),
            options.split_by_time_control,
        )?;
        let store = store::Store::open(&db).await?;
        let shared = Arc::new(Shared {
            store,
            accounts,
            auth: Auth::new(options.admin_token.clone()).with_clock({
                let clock = options.clock.clone();
                move || hanniball_ids::Timestamp(clock.now_ms())
            }),
            ladders,
            writer: tokio::sync::Mutex::new(()),
            clock: options.clock.clone(),
        });
        // Revocations on any replica empty this service's token cache at once.
        tokio::spawn(shared.auth.follow(&shared.accounts, shutdown.clone()));
        if let Some(url) = &options.arbiter_url {
            let channel = hanniball_svc_kit::connect_with(url, &options.tls)
                .map_err(|e| ServiceError::Config(format!("arbiter_url {url:?}: {e}")))?;
            tokio::spawn(consumer::run(
                Arc::clone(&shared),
                channel,
                options.admin_token.clone(),
                options.max_backoff,
                shutdown,
            ));
            tracing::info!(arbiter = %url, "rating service consumes the arbiter's results");
        }
        Ok(Rating { shared })
    }

    /// Adds the Rating service to `routes`.
    pub fn add_to(&self, routes: &mut RoutesBuilder) {
        routes.add_service(
            RatingServer::new(RatingService {
                shared: Arc::clone(&self.shared),
            })
            .max_decoding_message_size(hanniball_svc_kit::MAX_REQUEST_BYTES),
        );
    }
}

/// A running rating server.
pub type Running = Served;

/// Starts the rating service alone on `listener` (tests, and a rating-only process pointed at the
/// arbiter with `arbiter_url`). `shutdown` stops it (as does [`Running::stop`]).
pub async fn start(
    db: Db,
    accounts: Directory,
    listener: TcpListener,
    options: RatingOptions,
    shutdown: CancellationToken,
) -> Result<Running, ServiceError> {
    let admin_token = options.admin_token.clone();
    let rating = Rating::build(db, accounts, options, shutdown.clone()).await?;
    let mut routes = RoutesBuilder::default();
    rating.add_to(&mut routes);
    let names = &Rating::SERVICE_NAMES;
    let served = hanniball_svc_kit::serve_alone(listener, routes, names, &admin_token, shutdown)
        .await
        .map_err(|e| ServiceError::Internal(format!("cannot serve: {e}")))?;
    tracing::info!(addr = %served.addr, "rating serving");
    Ok(served)
}
