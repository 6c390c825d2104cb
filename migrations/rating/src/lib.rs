//! The rating service's migrations, tracked in `seaql_migrations_rating` so that it can run on a
//! database of its own or beside other services. Released migrations are never edited. The first
//! one adopts the tables of a database made by the single migration set of before the split.
//!
//! The rating event log (games and admin adjustments, in recording order), the current
//! rating per (ladder, player), and the results cursor of the rating service.
//!
//! The rating tables carry no foreign keys to `players`: they are derived data, rewritten in bulk
//! by a rebuild, and the service checks players before it records anything.

// The async_trait signatures of MigrationTrait elide the manager's lifetime; spelling it out would
// no longer match the trait.
#![allow(elided_lifetimes_in_paths)]

use sea_orm_migration::prelude::*;
use sea_orm_migration::schema::{
    big_integer, big_integer_null, big_pk_auto, boolean, double, double_null, integer,
    integer_null, string, string_null, text_null,
};

/// The rating migrations, oldest first.
pub struct Migrator;

#[async_trait::async_trait]
impl MigratorTrait for Migrator {
    fn migrations() -> Vec<Box<dyn MigrationTrait>> {
        vec![Box::new(RatingTables), Box::new(ResultCorrections)]
    }

    fn migration_table_name() -> DynIden {
        "seaql_migrations_rating".into_iden()
    }
}

/// The rating tables: created, or adopted from an older database.
struct RatingTables;

impl MigrationName for RatingTables {
    fn name(&self) -> &str {
        "m20261126_000001_rating_tables"
    }
}

#[derive(DeriveIden)]
enum RatingEvents {
    Table,
    Sequence,
    Ladder,
    Kind,
    GameId,
    FirstPlayerId,
    SecondPlayerId,
    ScoreHalfPoints,
    AtMs,
    NewRating,
    Reason,
    Actor,
    FirstBefore,
    FirstAfter,
    SecondBefore,
    SecondAfter,
    RecordedAtMs,
}

#[derive(DeriveIden)]
enum Ratings {
    Table,
    Ladder,
    PlayerId,
    Rating,
    Deviation,
    Volatility,
    Games,
    Wins,
    Draws,
    Losses,
    Peak,
    #[sea_orm(iden = "reached_2400")]
    Reached2400,
    Period,
    PeriodGames,
    LastPlayed,
    LastEvent,
}

#[derive(DeriveIden)]
enum RatingCursor {
    Table,
    Consumer,
    Sequence,
}

#[async_trait::async_trait]
impl MigrationTrait for RatingTables {
    async fn up(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        // The log every rating is computed from, in the order it was recorded (`sequence`). A game
        // appears once (`game_id` is unique: recording it twice changes nothing); an adjustment has
        // no game. The before/after columns are what the replay gave; a rebuild rewrites them.
        manager
            .create_table(
                Table::create()
                    .table(RatingEvents::Table)
                    .if_not_exists()
                    .col(big_pk_auto(RatingEvents::Sequence))
                    .col(string(RatingEvents::Ladder))
                    .col(string(RatingEvents::Kind))
                    .col(big_integer_null(RatingEvents::GameId).unique_key())
                    .col(big_integer(RatingEvents::FirstPlayerId))
                    .col(big_integer_null(RatingEvents::SecondPlayerId))
                    .col(integer_null(RatingEvents::ScoreHalfPoints))
                    .col(big_integer(RatingEvents::AtMs))
                    .col(double_null(RatingEvents::NewRating))
                    .col(text_null(RatingEvents::Reason))
                    .col(string_null(RatingEvents::Actor))
                    .col(double_null(RatingEvents::FirstBefore))
                    .col(double_null(RatingEvents::FirstAfter))
                    .col(double_null(RatingEvents::SecondBefore))
                    .col(double_null(RatingEvents::SecondAfter))
                    .col(big_integer(RatingEvents::RecordedAtMs))
                    .to_owned(),
            )
            .await?;
        // A player's history on a ladder: their events as first or as second player.
        for (name, column) in [
            ("idx_rating_events_first", RatingEvents::FirstPlayerId),
            ("idx_rating_events_second", RatingEvents::SecondPlayerId),
        ] {
            manager
                .create_index(
                    Index::create()
                        .name(name)
                        .table(RatingEvents::Table)
                        .col(RatingEvents::Ladder)
                        .col(column)
                        .col(RatingEvents::Sequence)
                        .if_not_exists()
                        .to_owned(),
                )
                .await?;
        }
        // The audit list of adjustments without scanning every game.
        manager
            .create_index(
                Index::create()
                    .name("idx_rating_events_kind")
                    .table(RatingEvents::Table)
                    .col(RatingEvents::Kind)
                    .col(RatingEvents::Sequence)
                    .if_not_exists()
                    .to_owned(),
            )
            .await?;
        // The current rating of a player on a ladder: everything the pure rating crate keeps.
        // `last_event` is the sequence of the last event applied to the row: writers update a row
        // only from the version they read, and never with an older event.
        manager
            .create_table(
                Table::create()
                    .table(Ratings::Table)
                    .if_not_exists()
                    .col(string(Ratings::Ladder))
                    .col(big_integer(Ratings::PlayerId))
                    .col(double(Ratings::Rating))
                    .col(double_null(Ratings::Deviation))
                    .col(double_null(Ratings::Volatility))
                    .col(integer(Ratings::Games))
                    .col(integer(Ratings::Wins))
                    .col(integer(Ratings::Draws))
                    .col(integer(Ratings::Losses))
                    .col(double(Ratings::Peak))
                    .col(boolean(Ratings::Reached2400))
                    .col(big_integer_null(Ratings::Period))
                    .col(integer(Ratings::PeriodGames))
                    .col(big_integer_null(Ratings::LastPlayed))
                    .col(big_integer(Ratings::LastEvent))
                    .primary_key(Index::create().col(Ratings::Ladder).col(Ratings::PlayerId))
                    .to_owned(),
            )
            .await?;
        // Leaderboards: keyset pages in (rating desc, player id) order within a ladder.
        manager
            .create_index(
                Index::create()
                    .name("idx_ratings_board")
                    .table(Ratings::Table)
                    .col(Ratings::Ladder)
                    .col((Ratings::Rating, IndexOrder::Desc))
                    .col(Ratings::PlayerId)
                    .if_not_exists()
                    .to_owned(),
            )
            .await?;
        // Where each consumer of the arbiter's results outbox stands.
        manager
            .create_table(
                Table::create()
                    .table(RatingCursor::Table)
                    .if_not_exists()
                    .col(string(RatingCursor::Consumer).primary_key())
                    .col(big_integer(RatingCursor::Sequence))
                    .to_owned(),
            )
            .await?;
        Ok(())
    }

    async fn down(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        for table in [
            RatingCursor::Table.into_iden(),
            Ratings::Table.into_iden(),
            RatingEvents::Table.into_iden(),
        ] {
            manager
                .drop_table(Table::drop().table(table).if_exists().to_owned())
                .await?;
        }
        Ok(())
    }
}

/// Result corrections in the rating log: the game they correct and their number.
struct ResultCorrections;

impl MigrationName for ResultCorrections {
    fn name(&self) -> &str {
        "m20261128_000002_result_corrections"
    }
}

#[derive(DeriveIden)]
enum EventsAdded {
    #[sea_orm(iden = "rating_events")]
    Table,
    CorrectedGameId,
    Correction,
}

#[async_trait::async_trait]
impl MigrationTrait for ResultCorrections {
    async fn up(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        // One column per statement: SQLite adds one at a time.
        if !manager
            .has_column("rating_events", "corrected_game_id")
            .await?
        {
            manager
                .alter_table(
                    Table::alter()
                        .table(EventsAdded::Table)
                        .add_column(big_integer_null(EventsAdded::CorrectedGameId))
                        .to_owned(),
                )
                .await?;
        }
        if !manager.has_column("rating_events", "correction").await? {
            manager
                .alter_table(
                    Table::alter()
                        .table(EventsAdded::Table)
                        .add_column(integer_null(EventsAdded::Correction))
                        .to_owned(),
                )
                .await?;
        }
        // A correction is recorded once.
        manager
            .create_index(
                Index::create()
                    .name("idx_rating_events_correction")
                    .table(EventsAdded::Table)
                    .col(EventsAdded::CorrectedGameId)
                    .col(EventsAdded::Correction)
                    .unique()
                    .if_not_exists()
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
