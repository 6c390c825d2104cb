//! The game hub: every loaded game sits in a slot behind its own lock. An RPC handler takes the
//! game's lock in its own task, plans the change with the pure arbiter, has the writer commit it,
//! and only then applies it and tells watchers: nothing is acknowledged or announced before it is
//! stored, and a game's changes happen one at a time. A small clock task per game sleeps until the
//! side to move would run out of time and then ends the game by itself, whether or not anyone
//! calls; it is woken only when a change moves that moment earlier.

mod clock;
mod create;
mod events;
mod play;
mod replicas;
mod slots;

use std::collections::HashMap;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicI64, Ordering};
use std::time::Duration;

use hanniball_arbiter::{GameId, Match, PlayerId, Timestamp};
use hanniball_proto::arbiter::v1 as pb;
use hanniball_svc_kit::Directory;

use crate::store::Store;
use tokio::sync::{Mutex, Notify, broadcast};
use tokio_util::sync::CancellationToken;

use crate::error::ServiceResult;
use crate::writer::Writer;
use hanniball_svc_kit::Clock;

/// How long a finished game stays loaded for readers before it is unloaded.
const FINISHED_IDLE: Duration = Duration::from_secs(30);
/// Events a slow watcher may fall behind before its stream is ended (it can resume).
const WATCH_BUFFER: usize = 256;
/// The armed deadline of a game whose clock does not run.
const NO_DEADLINE: i64 = i64::MAX;
/// Times a call plans again after losing a race to another replica.
const RETRIES: u32 = 3;
/// How long a clock lease lasts unless renewed (PostgreSQL replicas; see [`Hub::keep_leases`]).
const LEASE_MS: i64 = 3_000;
/// How often a replica renews its clock leases and takes over lapsed ones; with [`LEASE_MS`], a
/// dead owner's games are taken over within 4 s.
const LEASE_RENEW: Duration = Duration::from_secs(1);

/// A platform action other than a turn.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Action {
    Resign,
    OfferDraw,
    AcceptDraw,
    DeclineDraw,
    Abort,
    /// The organiser's result ([`hanniball_arbiter::FinalResult::decided`]).
    Adjudicate(hanniball_arbiter::FinalResult),
}

/// Whether a planned turn is stored (`SubmitTurn`) or only shown (`CheckTurn`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Commit {
    Store,
    DryRun,
}

/// A game event as watchers share it (one copy, however many watch).
pub type SharedEvent = Arc<pb::GameEvent>;

/// What a watcher gets when it starts: the first events, then a live subscription (none when the
/// game is already over).
pub type Watch = (Vec<pb::GameEvent>, Option<broadcast::Receiver<SharedEvent>>);

/// One loaded game.
#[derive(Debug)]
struct Slot {
    cell: Mutex<Cell>,
    /// Wakes the game's clock task when a change moved its deadline earlier than `armed`.
    rearm: Notify,
    /// The deadline (ms since the epoch) the clock task sleeps until; [`NO_DEADLINE`] if none.
    armed: AtomicI64,
    /// Whether this replica holds the game's clock lease (as of the last claim).
    owns_clock: AtomicBool,
}

/// What a game's lock guards.
#[derive(Debug)]
struct Cell {
    game: Match,
    /// The version of the stored row this copy is (PostgreSQL; see [`Hub::replicated`]).
    version: i64,
    /// Made when the first watcher comes: most games are never watched by anyone but their
    /// players' event streams.
    events: Option<broadcast::Sender<SharedEvent>>,
}

/// Every loaded game, the player event channels, and what they share.
#[derive(Debug)]
pub struct Hub {
    pub store: Store,
    /// Accounts, as every service asks it (in this process or over gRPC): the hub checks a
    /// game's players with it, the services' auth their tokens.
    pub directory: Directory,
    writer: Writer,
    pub clock: Clock,
    pub shutdown: CancellationToken,
    games: std::sync::Mutex<HashMap<GameId, Arc<Slot>>>,
    /// Serialises loading games from the database (so a game is never loaded twice).
    loading: Mutex<()>,
    players: std::sync::Mutex<HashMap<PlayerId, broadcast::Sender<pb::PlayerEvent>>>,
    /// Signalled whenever a game finishes (results stream consumers wake up).
    pub results: Notify,
    /// Other processes may write the same games (PostgreSQL): writes are guarded by the row's
    /// version, reads compare it first, and changes are heard through `LISTEN`.
    replicated: bool,
    /// This process's name in clock leases (unique per process and hub).
    replica: String,
}

impl Hub {
    /// A hub over `store`. Call [`Hub::load_active`] to bring back unfinished games.
    #[must_use]
    pub fn new(
        store: Store,
        directory: Directory,
        clock: Clock,
        shutdown: CancellationToken,
    ) -> Arc<Hub> {
        Arc::new(Hub {
            directory,
            replicated: store.shared_by_replicas(),
            writer: Writer::start(store.clone()),
            store,
            clock,
            shutdown,
            games: std::sync::Mutex::new(HashMap::new()),
            loading: Mutex::new(()),
            players: std::sync::Mutex::new(HashMap::new()),
            results: Notify::new(),
            replica: replica_name(),
        })
    }

    /// Loads every unfinished game, so that its clock runs again. Returns how many.
    pub async fn load_active(self: &Arc<Self>) -> ServiceResult<usize> {
        let ids = self.store.active_game_ids().await?;
        for id in &ids {
            self.slot(*id).await?;
        }
        Ok(ids.len())
    }
}

/// A name for this replica in clock leases: the process id, the start time and a counter (several
/// hubs run in one test process).
fn replica_name() -> String {
    static HUBS: AtomicI64 = AtomicI64::new(0);
    let started = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_micros());
    format!(
        "pid{}-{started:x}-{}",
        std::process::id(),
        HUBS.fetch_add(1, Ordering::SeqCst)
    )
}

/// A deadline as a clock task arms it.
fn armed(deadline: Option<Timestamp>) -> i64 {
    deadline.map_or(NO_DEADLINE, |d| d.0)
}
