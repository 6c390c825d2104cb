//! A tournament's tie-break settings beside its list: which text of FIDE C.07 (2024 or 2026)
//! and how unrated players count in rating-based tie-breaks. Empty in rows from before: the
//! text follows the creation date, unrated players are dropped.

// The async_trait signatures of MigrationTrait elide the manager's lifetime.
#![allow(elided_lifetimes_in_paths)]

use sea_orm_migration::prelude::*;
use sea_orm_migration::schema::string;

#[derive(DeriveMigrationName)]
pub struct Migration;

#[derive(DeriveIden)]
enum Tournaments {
    Table,
    TiebreakRules,
    TiebreakUnrated,
}

#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        // One column a statement: SQLite alters one at a time.
        for column in [Tournaments::TiebreakRules, Tournaments::TiebreakUnrated] {
            manager
                .alter_table(
                    Table::alter()
                        .table(Tournaments::Table)
                        .add_column(string(column).default(""))
                        .to_owned(),
                )
                .await?;
        }
        Ok(())
    }

    async fn down(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        for column in [Tournaments::TiebreakRules, Tournaments::TiebreakUnrated] {
            manager
                .alter_table(
                    Table::alter()
                        .table(Tournaments::Table)
                        .drop_column(column)
                        .to_owned(),
                )
                .await?;
        }
        Ok(())
    }
}
