//! Clock leases: on PostgreSQL, where several arbiter replicas load the same games, exactly one
//! live replica keeps each running clock (ends the game when it runs out). A lease row names the
//! owner and when the lease lapses unless renewed; a replica takes over a lapsed lease.

// The async_trait signatures of MigrationTrait elide the manager's lifetime.
#![allow(elided_lifetimes_in_paths)]

use sea_orm_migration::prelude::*;
use sea_orm_migration::schema::{big_integer, string};

#[derive(DeriveMigrationName)]
pub struct Migration;

#[derive(DeriveIden)]
enum ClockLeases {
    Table,
    GameId,
    Owner,
    ExpiresAtMs,
}

#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        manager
            .create_table(
                Table::create()
                    .table(ClockLeases::Table)
                    .col(big_integer(ClockLeases::GameId).primary_key())
                    .col(string(ClockLeases::Owner))
                    .col(big_integer(ClockLeases::ExpiresAtMs))
                    .to_owned(),
            )
            .await
    }

    async fn down(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        manager
            .drop_table(Table::drop().table(ClockLeases::Table).to_owned())
            .await
    }
}
