//! Accounts, games, the append-only turn log and the results outbox.

// The async_trait signatures of MigrationTrait elide the manager's lifetime; spelling it out would
// no longer match the trait.
#![allow(elided_lifetimes_in_paths)]

use sea_orm_migration::prelude::*;
use sea_orm_migration::schema::{
    big_integer, big_integer_null, big_pk_auto, boolean, integer, string, string_null, text,
};

#[derive(DeriveMigrationName)]
pub struct Migration;

#[derive(DeriveIden)]
enum Players {
    Table,
    Id,
    Name,
    Kind,
    CreatedAtMs,
}

#[derive(DeriveIden)]
enum Tokens {
    Table,
    Id,
    PlayerId,
    Hash,
    CreatedAtMs,
    RevokedAtMs,
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

#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        manager
            .create_table(
                Table::create()
                    .table(Players::Table)
                    .if_not_exists()
                    .col(big_pk_auto(Players::Id))
                    .col(string(Players::Name).unique_key())
                    .col(string(Players::Kind))
                    .col(big_integer(Players::CreatedAtMs))
                    .to_owned(),
            )
            .await?;
        manager
            .create_table(
                Table::create()
                    .table(Tokens::Table)
                    .if_not_exists()
                    .col(big_pk_auto(Tokens::Id))
                    .col(big_integer(Tokens::PlayerId))
                    .col(string(Tokens::Hash).unique_key())
                    .col(big_integer(Tokens::CreatedAtMs))
                    .col(big_integer_null(Tokens::RevokedAtMs))
                    .foreign_key(
                        ForeignKey::create()
                            .from(Tokens::Table, Tokens::PlayerId)
                            .to(Players::Table, Players::Id),
                    )
                    .to_owned(),
            )
            .await?;
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
                    .foreign_key(
                        ForeignKey::create()
                            .from(Games::Table, Games::WhitePlayerId)
                            .to(Players::Table, Players::Id),
                    )
                    .foreign_key(
                        ForeignKey::create()
                            .from(Games::Table, Games::BlackPlayerId)
                            .to(Players::Table, Players::Id),
                    )
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
        Ok(())
    }

    async fn down(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        for table in [
            ResultsOutbox::Table.into_iden(),
            Turns::Table.into_iden(),
            Games::Table.into_iden(),
            Tokens::Table.into_iden(),
            Players::Table.into_iden(),
        ] {
            manager
                .drop_table(Table::drop().table(table).if_exists().to_owned())
                .await?;
        }
        Ok(())
    }
}
