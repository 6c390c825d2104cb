//! Database schema migrations, applied at start-up by every service (`Migrator::up`). The same
//! migrations serve the embedded SQLite default and PostgreSQL.
//!
//! Released migrations are never edited: a schema change is a new migration appended to the list.

pub use sea_orm_migration::prelude::*;

mod m20261121_000001_arbiter;
mod m20261121_000002_rating;
mod m20261121_000003_scheduler;

/// All migrations, oldest first.
pub struct Migrator;

#[async_trait::async_trait]
impl MigratorTrait for Migrator {
    fn migrations() -> Vec<Box<dyn MigrationTrait>> {
        vec![
            Box::new(m20261121_000001_arbiter::Migration),
            Box::new(m20261121_000002_rating::Migration),
            Box::new(m20261121_000003_scheduler::Migration),
        ]
    }
}
