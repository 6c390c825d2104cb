//! The arbiter's migrations, tracked in `seaql_migrations_arbiter` so that the arbiter can run on
//! a database of its own or beside other services. Released migrations are never edited.
//!
//! The first one adopts what it finds: on a database made by the single migration set of before
//! the split it creates nothing that exists and adds what is missing (the row version, clock
//! leases), so an old database upgrades in place with its games. A game's players are ids of
//! Accounts, which may live elsewhere: a new `games` table has no foreign key to `players` (an
//! adopted one keeps the keys it had, which hold there since both tables share that database).

// The async_trait signatures of MigrationTrait elide the manager's lifetime.
#![allow(elided_lifetimes_in_paths)]

use sea_orm_migration::prelude::*;
use sea_orm_migration::schema::{
    big_integer, big_integer_null, big_pk_auto, boolean, integer, string, string_null, text,
};

/// The arbiter's migrations, oldest first.
pub struct Migrator;

#[async_trait::async_trait]
impl MigratorTrait for Migrator {
    fn migrations() -> Vec<Box<dyn MigrationTrait>> {
        vec![
            Box::new(GamesTurnsOutboxLeases),
            Box::new(OverTheBoardAndCorrections),
        ]
    }

    fn migration_table_name() -> DynIden {
        "seaql_migrations_arbiter".into_iden()
    }
}

#[derive(DeriveIden)]
enum Games {
    Table,
    Id,
    Kind,
    Ruleset,
    WhitePlayerId,
    BlackPlayerId,
    InitialMs,
    IncrementMs,
    Rated,
    MaxTurns,
    Tag,
    IdempotencyKey,
    Status,
    Outcome,
    Reason,
    Position,
    TurnsPlayed,
    WhiteMs,
    BlackMs,
    ClockSince,
    DrawOfferBy,
    CreatedAtMs,
    FinishedAtMs,
    Version,
}

#[derive(DeriveIden)]
enum Turns {
    Table,
    GameId,
    Number,
    Side,
    Text,
    PositionAfter,
    WhiteMs,
    BlackMs,
    PlayedAtMs,
    SpentMs,
}

#[derive(DeriveIden)]
enum ResultsOutbox {
    Table,
    Sequence,
    GameId,
    FinishedAtMs,
}

#[derive(DeriveIden)]
enum ClockLeases {
    Table,
    GameId,
    Owner,
    ExpiresAtMs,
}

/// Games, turns, the outbox and clock leases: created, or adopted from an older database.
struct GamesTurnsOutboxLeases;

impl MigrationName for GamesTurnsOutboxLeases {
    fn name(&self) -> &str {
        "m20261126_000001_games_turns_outbox_leases"
    }
}

#[async_trait::async_trait]
impl MigrationTrait for GamesTurnsOutboxLeases {
    async fn up(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        manager
            .create_table(
                Table::create()
                    .table(Games::Table)
                    .if_not_exists()
                    .col(big_pk_auto(Games::Id))
                    .col(string(Games::Kind))
                    .col(string(Games::Ruleset))
                    .col(big_integer(Games::WhitePlayerId))
                    .col(big_integer(Games::BlackPlayerId))
                    .col(big_integer_null(Games::InitialMs))
                    .col(big_integer_null(Games::IncrementMs))
                    .col(boolean(Games::Rated))
                    .col(integer(Games::MaxTurns))
                    .col(string(Games::Tag))
                    .col(string_null(Games::IdempotencyKey).unique_key())
                    .col(string(Games::Status))
                    .col(string_null(Games::Outcome))
                    .col(string_null(Games::Reason))
                    .col(text(Games::Position))
                    .col(integer(Games::TurnsPlayed))
                    .col(big_integer(Games::WhiteMs))
                    .col(big_integer(Games::BlackMs))
                    .col(big_integer(Games::ClockSince))
                    .col(string_null(Games::DrawOfferBy))
                    .col(big_integer(Games::CreatedAtMs))
                    .col(big_integer_null(Games::FinishedAtMs))
                    .col(big_integer(Games::Version).default(0))
                    .to_owned(),
            )
            .await?;
        for (name, column) in [
            ("idx_games_white", Games::WhitePlayerId),
            ("idx_games_black", Games::BlackPlayerId),
            ("idx_games_status", Games::Status),
        ] {
            manager
                .create_index(
                    Index::create()
                        .name(name)
                        .table(Games::Table)
                        .col(column)
                        .if_not_exists()
                        .to_owned(),
                )
                .await?;
        }
        // The turn log is append-only; (game, number) is its key, so two writers racing for the
        // same turn cannot both commit.
        manager
            .create_table(
                Table::create()
                    .table(Turns::Table)
                    .if_not_exists()
                    .col(big_integer(Turns::GameId))
                    .col(integer(Turns::Number))
                    .col(string(Turns::Side))
                    .col(text(Turns::Text))
                    .col(text(Turns::PositionAfter))
                    .col(big_integer(Turns::WhiteMs))
                    .col(big_integer(Turns::BlackMs))
                    .col(big_integer(Turns::PlayedAtMs))
                    .col(big_integer(Turns::SpentMs))
                    .primary_key(Index::create().col(Turns::GameId).col(Turns::Number))
                    .foreign_key(
                        ForeignKey::create()
                            .from(Turns::Table, Turns::GameId)
                            .to(Games::Table, Games::Id),
                    )
                    .to_owned(),
            )
            .await?;
        // One row per finished game, written in the transaction that finishes it; consumers
        // (rating, scheduler) read it from their own cursor, so no result is lost while they are down.
        manager
            .create_table(
                Table::create()
                    .table(ResultsOutbox::Table)
                    .if_not_exists()
                    .col(big_pk_auto(ResultsOutbox::Sequence))
                    .col(big_integer(ResultsOutbox::GameId).unique_key())
                    .col(big_integer(ResultsOutbox::FinishedAtMs))
                    .foreign_key(
                        ForeignKey::create()
                            .from(ResultsOutbox::Table, ResultsOutbox::GameId)
                            .to(Games::Table, Games::Id),
                    )
                    .to_owned(),
            )
            .await?;
        // Bumped by every update of the row: what replicas compare their copies with.
        if !manager.has_column("games", "version").await? {
            manager
                .alter_table(
                    Table::alter()
                        .table(Games::Table)
                        .add_column(big_integer(Games::Version).default(0))
                        .to_owned(),
                )
                .await?;
        }
        // Which replica runs a game's clock, until when (PostgreSQL; SQLite stores none).
        manager
            .create_table(
                Table::create()
                    .table(ClockLeases::Table)
                    .if_not_exists()
                    .col(big_integer(ClockLeases::GameId).primary_key())
                    .col(string(ClockLeases::Owner))
                    .col(big_integer(ClockLeases::ExpiresAtMs))
                    .to_owned(),
            )
            .await?;
        Ok(())
    }

    async fn down(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        for table in [
            ClockLeases::Table.into_iden(),
            ResultsOutbox::Table.into_iden(),
            Turns::Table.into_iden(),
            Games::Table.into_iden(),
        ] {
            manager
                .drop_table(Table::drop().table(table).if_exists().to_owned())
                .await?;
        }
        Ok(())
    }
}

/// Games played over the board, and result corrections with their record.
struct OverTheBoardAndCorrections;

impl MigrationName for OverTheBoardAndCorrections {
    fn name(&self) -> &str {
        "m20261128_000002_over_the_board_and_corrections"
    }
}

#[derive(DeriveIden)]
enum GamesAdded {
    #[sea_orm(iden = "games")]
    Table,
    OverTheBoard,
    Corrections,
}

#[derive(DeriveIden)]
enum ResultCorrections {
    Table,
    GameId,
    Number,
    PreviousOutcome,
    PreviousReason,
    Outcome,
    Reason,
    CorrectedBy,
    Note,
    AtMs,
}

#[async_trait::async_trait]
impl MigrationTrait for OverTheBoardAndCorrections {
    async fn up(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        // One column per statement: SQLite adds one at a time.
        if !manager.has_column("games", "over_the_board").await? {
            manager
                .alter_table(
                    Table::alter()
                        .table(GamesAdded::Table)
                        .add_column(boolean(GamesAdded::OverTheBoard).default(false))
                        .to_owned(),
                )
                .await?;
        }
        if !manager.has_column("games", "corrections").await? {
            manager
                .alter_table(
                    Table::alter()
                        .table(GamesAdded::Table)
                        .add_column(integer(GamesAdded::Corrections).default(0))
                        .to_owned(),
                )
                .await?;
        }
        manager
            .create_table(
                Table::create()
                    .table(ResultCorrections::Table)
                    .if_not_exists()
                    .col(big_integer(ResultCorrections::GameId))
                    .col(integer(ResultCorrections::Number))
                    .col(string_null(ResultCorrections::PreviousOutcome))
                    .col(string_null(ResultCorrections::PreviousReason))
                    .col(string_null(ResultCorrections::Outcome))
                    .col(string(ResultCorrections::Reason))
                    .col(string(ResultCorrections::CorrectedBy))
                    .col(text(ResultCorrections::Note))
                    .col(big_integer(ResultCorrections::AtMs))
                    .primary_key(
                        Index::create()
                            .col(ResultCorrections::GameId)
                            .col(ResultCorrections::Number),
                    )
                    .to_owned(),
            )
            .await
    }

    async fn down(&self, _manager: &SchemaManager) -> Result<(), DbErr> {
        Err(DbErr::Migration(
            "released migrations are not undone".to_owned(),
        ))
    }
}
