//! The arbiter's data: games, the append-only turn log, the results outbox and clock leases;
//! their SQL and their migrations ([`hanniball_migration_arbiter::Migrator`], tracked in a table of their own).
//! The same code serves SQLite (the embedded default) and PostgreSQL (production).
//!
//! What this module does NOT do: no rules, no clocks, no gRPC, no other service's tables (a
//! game's players are ids; Accounts knows who they are). It stores what the arbiter decided and
//! reads it back. Database errors leave as [`StoreError`], never as driver messages for clients.

mod batch;
mod changes;
mod commit;
mod convert;
pub mod entities;
mod leases;
mod outbox;
mod reads;
mod rows;

use hanniball_db::Db;
use sea_orm::{DatabaseConnection, DbBackend};

pub use hanniball_db::StoreError;

pub use batch::GAMES_CHANNEL;
pub use changes::{Change, Correction, NewGame, Write, created_id};
pub use convert::{side_from_name, side_name};
pub use rows::{FinishedRow, GameRow};

/// The arbiter's tables.
#[derive(Clone, Debug)]
pub struct Store {
    /// Its connection (pool); [`Store::db`] is the plumbing around it.
    conn: DatabaseConnection,
    /// Where group commits go (see [`Db::commits`]).
    commits: DatabaseConnection,
    plumbing: Db,
}

impl Store {
    /// The arbiter's tables in `db`, after applying their pending migrations.
    pub async fn open(db: &Db) -> Result<Store, StoreError> {
        db.migrate::<hanniball_migration_arbiter::Migrator>()
            .await?;
        Ok(Store {
            conn: db.connection().clone(),
            commits: db.commits().clone(),
            plumbing: db.clone(),
        })
    }

    /// Connects to `url` and opens the arbiter's tables there.
    pub async fn connect(url: &str) -> Result<Store, StoreError> {
        Store::open(&Db::connect(url).await?).await
    }

    /// The database underneath.
    #[must_use]
    pub fn db(&self) -> &Db {
        &self.plumbing
    }

    /// Whether other processes may write the same rows at the same time (PostgreSQL; a SQLite
    /// file belongs to one server process).
    #[must_use]
    pub fn shared_by_replicas(&self) -> bool {
        self.plumbing.shared_by_replicas()
    }

    /// The database backend in use.
    #[must_use]
    pub fn backend(&self) -> DbBackend {
        self.plumbing.backend()
    }

    /// See [`Db::checkpoint`]; the arbiter calls it every second.
    pub async fn checkpoint(&self) -> Result<(), StoreError> {
        self.plumbing.checkpoint().await
    }

    /// Whether the database answers.
    pub async fn ping(&self) -> Result<(), StoreError> {
        self.plumbing.ping().await
    }

    /// The connection pool now: (open connections, of which idle).
    #[must_use]
    pub fn pool_use(&self) -> (u32, usize) {
        self.plumbing.pool_use()
    }
}

#[cfg(test)]
mod tests;
