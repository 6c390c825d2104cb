//! A board's game that ended before each side had made a turn: its result counts in the
//! tournament, but the game was not played in the rating sense (TRF `W`/`D`/`L`, never rated),
//! the same rule the rating service applies to the arbiter's results.

// The async_trait signatures of MigrationTrait elide the manager's lifetime.
#![allow(elided_lifetimes_in_paths)]

use sea_orm_migration::prelude::*;
use sea_orm_migration::schema::boolean;

#[derive(DeriveMigrationName)]
pub struct Migration;

#[derive(DeriveIden)]
enum Boards {
    Table,
    Short,
}

#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        manager
            .alter_table(
                Table::alter()
                    .table(Boards::Table)
                    .add_column(boolean(Boards::Short).default(false))
                    .to_owned(),
            )
            .await
    }

    async fn down(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        manager
            .alter_table(
                Table::alter()
                    .table(Boards::Table)
                    .drop_column(Boards::Short)
                    .to_owned(),
            )
            .await
    }
}
