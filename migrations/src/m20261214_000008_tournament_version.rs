//! A tournament's version: bumped in the same transaction as every change of the tournament, its
//! entrants, bye requests or boards. A scheduler replica keeps a loaded tournament while the
//! version it read before loading is still the database's, so a large tournament is read from
//! the database once per change instead of once per request.

// The async_trait signatures of MigrationTrait elide the manager's lifetime.
#![allow(elided_lifetimes_in_paths)]

use sea_orm_migration::prelude::*;
use sea_orm_migration::schema::big_integer;

#[derive(DeriveMigrationName)]
pub struct Migration;

#[derive(DeriveIden)]
enum Tournaments {
    Table,
    Version,
}

#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        manager
            .alter_table(
                Table::alter()
                    .table(Tournaments::Table)
                    .add_column(big_integer(Tournaments::Version).default(0))
                    .to_owned(),
            )
            .await
    }

    async fn down(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        manager
            .alter_table(
                Table::alter()
                    .table(Tournaments::Table)
                    .drop_column(Tournaments::Version)
                    .to_owned(),
            )
            .await
    }
}
