//! Scheduler tables: tournaments, their players, byes requested ahead, the boards of each round;
//! the matchmaking queue and the matches it made; the scheduler's cursor in the results outbox.
//!
//! Every change of a tournament's state is one transaction guarded by the state it expects
//! (`current_round`, `status`, an empty result), so a retry, a restart or a second replica can
//! repeat a step without doing it twice.
//!
//! Rows never leave the store: its sea-orm entities (`entities.rs`) are private, and every
//! answer is a domain type ([`crate::domain`]), read from its row once (`convert.rs`).

mod boards;
mod convert;
mod entities;
mod entrants;
mod organisers;
mod queue;
mod tournaments;

use sea_orm::{ConnectionTrait, DbBackend};

use hanniball_db::{Db, Sql, search};

pub use hanniball_db::StoreError;

/// Rows one batched `UPDATE … CASE` changes at most: three bound values each stays far within
/// every backend's limit.
const UPDATES_PER_STATEMENT: usize = 500;

/// The scheduler's tables.
#[derive(Clone, Debug)]
pub struct Store {
    /// Its connection (pool); [`Store::db`] is the plumbing around it.
    conn: sea_orm::DatabaseConnection,
    plumbing: Db,
}

impl Store {
    /// The scheduler's tables in `db`, after applying their pending migrations.
    pub async fn open(db: &Db) -> Result<Store, StoreError> {
        db.migrate::<hanniball_migration_scheduler::Migrator>()
            .await?;
        // Tournaments that a binary from before search keys created (a rolling upgrade).
        search::fill_search_keys(db.connection(), "tournaments", "name", "search_key").await?;
        Ok(Store {
            conn: db.connection().clone(),
            plumbing: db.clone(),
        })
    }

    /// Connects to `url` and opens the scheduler's tables there.
    pub async fn connect(url: &str) -> Result<Store, StoreError> {
        Store::open(&Db::connect(url).await?).await
    }

    /// The database underneath.
    #[must_use]
    pub fn db(&self) -> &Db {
        &self.plumbing
    }

    /// The database backend in use.
    #[must_use]
    pub fn backend(&self) -> DbBackend {
        self.plumbing.backend()
    }
}

/// Bumps tournament `id`'s version: part of the transaction of every change of the tournament,
/// its entrants, bye requests or boards, so a copy loaded after reading version `v` is current
/// while the version is still `v` (see [`Store::tournament_version`]). Returns the new version:
/// a writer whose copy was at the version before it may bring its copy up to date itself.
async fn bump<C: ConnectionTrait>(db: &C, id: i64) -> Result<i64, StoreError> {
    let mut sql = Sql::new(
        db.get_database_backend(),
        "UPDATE tournaments SET version = version + 1 WHERE id = ",
    );
    sql.bind(id);
    sql.push(" RETURNING version");
    let row = db
        .query_one_raw(sql.statement())
        .await?
        .ok_or_else(|| StoreError::Conflict(format!("no tournament {id} to change")))?;
    Ok(row.try_get_by_index(0)?)
}

#[cfg(test)]
mod tests;
