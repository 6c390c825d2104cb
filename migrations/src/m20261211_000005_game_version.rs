//! A game's version: bumped by every change of its row (a turn, a draw offer made, answered or
//! lapsed, the clocks, the end). Replicas of the arbiter guard their writes with it, so that a
//! copy that missed any change, not only a turn, loses the race and reloads; and a read compares
//! it with its copy's to know whether the copy is current.

// The async_trait signatures of MigrationTrait elide the manager's lifetime.
#![allow(elided_lifetimes_in_paths)]

use sea_orm_migration::prelude::*;
use sea_orm_migration::schema::big_integer;

#[derive(DeriveMigrationName)]
pub struct Migration;

#[derive(DeriveIden)]
enum Games {
    Table,
    Version,
}

#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        manager
            .alter_table(
                Table::alter()
                    .table(Games::Table)
                    .add_column(big_integer(Games::Version).default(0))
                    .to_owned(),
            )
            .await
    }

    async fn down(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        manager
            .alter_table(
                Table::alter()
                    .table(Games::Table)
                    .drop_column(Games::Version)
                    .to_owned(),
            )
            .await
    }
}
