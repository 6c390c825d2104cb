//! Database schema migrations, applied at start-up by every service (`Migrator::up`). The same
//! migrations serve the embedded SQLite default and PostgreSQL.
//!
//! Released migrations are never edited: a schema change is a new migration appended to the list.

pub use sea_orm_migration::prelude::*;

mod m20261121_000001_arbiter;
mod m20261121_000002_rating;
mod m20261121_000003_scheduler;
mod m20261210_000004_token_scopes;
mod m20261211_000005_game_version;
mod m20261212_000006_self_entry;
mod m20261213_000007_clock_leases;
mod m20261214_000008_tournament_version;
mod m20261215_000009_short_games;
mod m20261216_000010_tiebreak_rules;

/// All migrations, oldest first.
pub struct Migrator;

#[async_trait::async_trait]
impl MigratorTrait for Migrator {
    fn migrations() -> Vec<Box<dyn MigrationTrait>> {
        vec![
            Box::new(m20261121_000001_arbiter::Migration),
            Box::new(m20261121_000002_rating::Migration),
            Box::new(m20261121_000003_scheduler::Migration),
            Box::new(m20261210_000004_token_scopes::Migration),
            Box::new(m20261211_000005_game_version::Migration),
            Box::new(m20261212_000006_self_entry::Migration),
            Box::new(m20261213_000007_clock_leases::Migration),
            Box::new(m20261214_000008_tournament_version::Migration),
            Box::new(m20261215_000009_short_games::Migration),
            Box::new(m20261216_000010_tiebreak_rules::Migration),
        ]
    }
}
