//! The rating service's data: the rating event log, ratings per ladder, the results cursor;
//! their SQL and their migrations ([`hanniball_migration_rating::Migrator`], tracked in a table of their own).
//! No other service's tables: players are ids (Accounts knows who they are).
//!
//! The store keeps what the rating service decided and replays the log on request; the maths is
//! the caller's, handed in as a [`Rater`]. Every write of ratings happens in one transaction with
//! the events it comes from, so the current ratings are always the replay of the log:
//!
//! - `rating_events`: games and adjustments in recording order (`sequence`), each with the ratings
//!   before and after it (`Points`). A game id appears at most once.
//! - `ratings`: the current [`Rating`] per (ladder, player), with `last_event`, the sequence of
//!   the last event applied to it. A writer updates a row only from the version it read and never
//!   with an event older than that version, so per player the log order is the order in which the
//!   events were applied, even with several writers on PostgreSQL.
//! - `rating_cursor`: the last results-outbox sequence a consumer has handled, written in the
//!   transaction that records those results.

mod columns;
mod model;
mod reads;
mod rebuild;
mod record;

use hanniball_db::Db;
use sea_orm::DbBackend;

pub use hanniball_db::StoreError;
pub use hanniball_rating::{Rating, Score};
pub use model::{
    BoardFilter, Change, Effect, EventRow, HeadToHead, NewEvent, Points, Rater, RatingRow,
    RebuildReport, Recorded,
};

/// The rating service's tables.
#[derive(Clone, Debug)]
pub struct Store {
    /// Its connection (pool); [`Store::db`] is the plumbing around it.
    conn: sea_orm::DatabaseConnection,
    plumbing: Db,
}

impl Store {
    /// The rating tables in `db`, after applying their pending migrations.
    pub async fn open(db: &Db) -> Result<Store, StoreError> {
        db.migrate::<hanniball_migration_rating::Migrator>().await?;
        Ok(Store {
            conn: db.connection().clone(),
            plumbing: db.clone(),
        })
    }

    /// Connects to `url` and opens the rating tables there.
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

#[cfg(test)]
mod tests;
