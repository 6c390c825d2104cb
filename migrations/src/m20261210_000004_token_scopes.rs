//! Token scopes and expiry: what a player token may do (`play`, `queue`, `read`, as names
//! separated by single spaces) and until when (milliseconds since the Unix epoch; NULL: never).
//! Tokens issued before this migration get `play queue read`, the rights every player token had.

// The async_trait signatures of MigrationTrait elide the manager's lifetime.
#![allow(elided_lifetimes_in_paths)]

use sea_orm_migration::prelude::*;
use sea_orm_migration::schema::{big_integer_null, string};

#[derive(DeriveMigrationName)]
pub struct Migration;

#[derive(DeriveIden)]
enum Tokens {
    Table,
    Scopes,
    ExpiresAtMs,
}

/// The scopes of a token issued without any: a player token's rights before scopes existed.
const PLAYER_SCOPES: &str = "play queue read";

#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        // One column per statement: SQLite's ALTER TABLE adds one column at a time.
        manager
            .alter_table(
                Table::alter()
                    .table(Tokens::Table)
                    .add_column(string(Tokens::Scopes).default(PLAYER_SCOPES))
                    .to_owned(),
            )
            .await?;
        manager
            .alter_table(
                Table::alter()
                    .table(Tokens::Table)
                    .add_column(big_integer_null(Tokens::ExpiresAtMs))
                    .to_owned(),
            )
            .await
    }

    async fn down(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        for column in [Tokens::ExpiresAtMs, Tokens::Scopes] {
            manager
                .alter_table(
                    Table::alter()
                        .table(Tokens::Table)
                        .drop_column(column)
                        .to_owned(),
                )
                .await?;
        }
        Ok(())
    }
}
