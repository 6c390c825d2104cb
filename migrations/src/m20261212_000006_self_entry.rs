//! Tournaments open for entry: `self_entry` lets players enter and leave before the start with
//! their own tokens; `late_self_entry` lets them also enter after it (Swiss, from the next round).
//! Tournaments from before stay closed (both false): only the organiser adds players.

// The async_trait signatures of MigrationTrait elide the manager's lifetime.
#![allow(elided_lifetimes_in_paths)]

use sea_orm_migration::prelude::*;
use sea_orm_migration::schema::boolean;

#[derive(DeriveMigrationName)]
pub struct Migration;

#[derive(DeriveIden)]
enum Tournaments {
    Table,
    SelfEntry,
    LateSelfEntry,
}

#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        // One column per statement: SQLite's ALTER TABLE adds one column at a time.
        for column in [Tournaments::SelfEntry, Tournaments::LateSelfEntry] {
            manager
                .alter_table(
                    Table::alter()
                        .table(Tournaments::Table)
                        .add_column(boolean(column).default(false))
                        .to_owned(),
                )
                .await?;
        }
        Ok(())
    }

    async fn down(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        for column in [Tournaments::SelfEntry, Tournaments::LateSelfEntry] {
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
