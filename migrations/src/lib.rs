//! The single migration set of before each service owned its tables (tracked in
//! `seaql_migrations`), frozen: no service runs it any more. Each service now applies its own
//! migrations (Accounts' in `hanniball-accounts`, the others' in their service crate's `store`),
//! whose first adopts the tables these made. Kept so that tests can build a database as these
//! migrations left it and check that it upgrades in place with its rows.

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
        ]
    }
}
