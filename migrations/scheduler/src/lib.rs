//! The scheduler's migrations, tracked in `seaql_migrations_scheduler` so that it can run on a
//! database of its own or beside other services. Released migrations are never edited. The first
//! one adopts the tables of a database made by the single migration set of before the split and
//! adds the columns that came later where they are missing (self entry, the tournament's version,
//! short games). The second gives a tournament its tie-break settings, the third a search key
//! (its name folded for case-blind search in any script); the seventh its details (place, dates,
//! arbiters: what the organiser says of it, one JSON text read and written whole).
//!
//! The scheduler: tournaments, their players, byes requested ahead, rounds' boards; the
//! matchmaking queue and the matches it made; the scheduler's cursor in the results outbox.

// The async_trait signatures of MigrationTrait elide the manager's lifetime.
#![allow(elided_lifetimes_in_paths)]

use sea_orm_migration::prelude::*;
use sea_orm_migration::schema::{
    big_integer, big_integer_null, big_pk_auto, boolean, integer, integer_null, string,
    string_null, text,
};

/// The scheduler migrations, oldest first.
pub struct Migrator;

#[async_trait::async_trait]
impl MigratorTrait for Migrator {
    fn migrations() -> Vec<Box<dyn MigrationTrait>> {
        vec![
            Box::new(SchedulerTables),
            Box::new(TiebreakSettings),
            Box::new(TournamentSearchKeys),
            Box::new(OverTheBoardAndCorrections),
            Box::new(TournamentOrganisers),
            Box::new(AccentBlindSearchKeys),
            Box::new(TournamentDetails),
        ]
    }

    fn migration_table_name() -> DynIden {
        "seaql_migrations_scheduler".into_iden()
    }
}

/// The scheduler tables: created, or adopted from an older database.
struct SchedulerTables;

impl MigrationName for SchedulerTables {
    fn name(&self) -> &str {
        "m20261126_000001_scheduler_tables"
    }
}

#[derive(DeriveIden)]
enum Tournaments {
    Table,
    Id,
    Name,
    Kind,
    Ruleset,
    System,
    Rounds,
    InitialMs,
    IncrementMs,
    MaxTurns,
    Rated,
    ByePoints,
    Tiebreaks,
    InitialColour,
    ForfeitWithdraws,
    AutoPair,
    Status,
    CurrentRound,
    CreatedAtMs,
    SelfEntry,
    LateSelfEntry,
    Version,
    TiebreakRules,
    TiebreakUnrated,
    SearchKey,
    OverTheBoard,
    Details,
}

#[derive(DeriveIden)]
enum TournamentPlayers {
    Table,
    TournamentId,
    PlayerId,
    StartRank,
    Rating,
    JoinedRound,
    WithdrawnFrom,
}

#[derive(DeriveIden)]
enum ByeRequests {
    Table,
    TournamentId,
    PlayerId,
    Round,
    Points,
}

#[derive(DeriveIden)]
enum Boards {
    Table,
    TournamentId,
    Round,
    Board,
    Kind,
    WhiteId,
    BlackId,
    GameId,
    Result,
    Corrected,
    Short,
}

#[derive(DeriveIden)]
enum QueueEntries {
    Table,
    PlayerId,
    Kind,
    Ruleset,
    InitialMs,
    IncrementMs,
    Rated,
    JoinedAtMs,
}

#[derive(DeriveIden)]
enum Matches {
    Table,
    Id,
    WhiteId,
    BlackId,
    Kind,
    Ruleset,
    InitialMs,
    IncrementMs,
    Rated,
    GameId,
    CreatedAtMs,
}

#[derive(DeriveIden)]
enum SchedulerCursor {
    Table,
    Id,
    Sequence,
}

#[async_trait::async_trait]
impl MigrationTrait for SchedulerTables {
    async fn up(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        manager
            .create_table(
                Table::create()
                    .table(Tournaments::Table)
                    .if_not_exists()
                    .col(big_pk_auto(Tournaments::Id))
                    .col(string(Tournaments::Name))
                    .col(string(Tournaments::Kind))
                    .col(string(Tournaments::Ruleset))
                    .col(string(Tournaments::System))
                    .col(integer(Tournaments::Rounds))
                    .col(big_integer_null(Tournaments::InitialMs))
                    .col(big_integer_null(Tournaments::IncrementMs))
                    .col(integer(Tournaments::MaxTurns))
                    .col(boolean(Tournaments::Rated))
                    .col(integer(Tournaments::ByePoints))
                    .col(string(Tournaments::Tiebreaks))
                    .col(string(Tournaments::InitialColour))
                    .col(boolean(Tournaments::ForfeitWithdraws))
                    .col(boolean(Tournaments::AutoPair))
                    .col(string(Tournaments::Status))
                    .col(integer(Tournaments::CurrentRound))
                    .col(big_integer(Tournaments::CreatedAtMs))
                    .to_owned(),
            )
            .await?;
        manager
            .create_table(
                Table::create()
                    .table(TournamentPlayers::Table)
                    .if_not_exists()
                    .col(big_integer(TournamentPlayers::TournamentId))
                    .col(big_integer(TournamentPlayers::PlayerId))
                    .col(integer_null(TournamentPlayers::StartRank))
                    .col(integer(TournamentPlayers::Rating))
                    .col(integer(TournamentPlayers::JoinedRound))
                    .col(integer_null(TournamentPlayers::WithdrawnFrom))
                    .primary_key(
                        Index::create()
                            .col(TournamentPlayers::TournamentId)
                            .col(TournamentPlayers::PlayerId),
                    )
                    .foreign_key(
                        ForeignKey::create()
                            .from(TournamentPlayers::Table, TournamentPlayers::TournamentId)
                            .to(Tournaments::Table, Tournaments::Id),
                    )
                    .to_owned(),
            )
            .await?;
        manager
            .create_table(
                Table::create()
                    .table(ByeRequests::Table)
                    .if_not_exists()
                    .col(big_integer(ByeRequests::TournamentId))
                    .col(big_integer(ByeRequests::PlayerId))
                    .col(integer(ByeRequests::Round))
                    .col(integer(ByeRequests::Points))
                    .primary_key(
                        Index::create()
                            .col(ByeRequests::TournamentId)
                            .col(ByeRequests::PlayerId)
                            .col(ByeRequests::Round),
                    )
                    .to_owned(),
            )
            .await?;
        // A round is stored whole, in the transaction that advances the tournament's current
        // round, before any of its games is created: a restart finds it and creates what is
        // missing (game creation is idempotent per board).
        manager
            .create_table(
                Table::create()
                    .table(Boards::Table)
                    .if_not_exists()
                    .col(big_integer(Boards::TournamentId))
                    .col(integer(Boards::Round))
                    .col(integer(Boards::Board))
                    .col(string(Boards::Kind))
                    .col(big_integer(Boards::WhiteId))
                    .col(big_integer_null(Boards::BlackId))
                    .col(big_integer_null(Boards::GameId).unique_key())
                    .col(string_null(Boards::Result))
                    .col(boolean(Boards::Corrected))
                    .primary_key(
                        Index::create()
                            .col(Boards::TournamentId)
                            .col(Boards::Round)
                            .col(Boards::Board),
                    )
                    .to_owned(),
            )
            .await?;
        manager
            .create_table(
                Table::create()
                    .table(QueueEntries::Table)
                    .if_not_exists()
                    .col(big_integer(QueueEntries::PlayerId).primary_key())
                    .col(string(QueueEntries::Kind))
                    .col(string(QueueEntries::Ruleset))
                    .col(big_integer_null(QueueEntries::InitialMs))
                    .col(big_integer_null(QueueEntries::IncrementMs))
                    .col(boolean(QueueEntries::Rated))
                    .col(big_integer(QueueEntries::JoinedAtMs))
                    .to_owned(),
            )
            .await?;
        manager
            .create_table(
                Table::create()
                    .table(Matches::Table)
                    .if_not_exists()
                    .col(big_pk_auto(Matches::Id))
                    .col(big_integer(Matches::WhiteId))
                    .col(big_integer(Matches::BlackId))
                    .col(string(Matches::Kind))
                    .col(string(Matches::Ruleset))
                    .col(big_integer_null(Matches::InitialMs))
                    .col(big_integer_null(Matches::IncrementMs))
                    .col(boolean(Matches::Rated))
                    .col(big_integer_null(Matches::GameId))
                    .col(big_integer(Matches::CreatedAtMs))
                    .to_owned(),
            )
            .await?;
        for (name, column) in [
            ("idx_matches_white", Matches::WhiteId),
            ("idx_matches_black", Matches::BlackId),
        ] {
            manager
                .create_index(
                    Index::create()
                        .name(name)
                        .table(Matches::Table)
                        .col(column)
                        .if_not_exists()
                        .to_owned(),
                )
                .await?;
        }
        manager
            .create_table(
                Table::create()
                    .table(SchedulerCursor::Table)
                    .if_not_exists()
                    .col(integer(SchedulerCursor::Id).primary_key())
                    .col(big_integer(SchedulerCursor::Sequence))
                    .to_owned(),
            )
            .await?;
        // Columns added after the first release, where missing. One column per statement:
        // SQLite's ALTER TABLE adds one at a time. Tournaments from before self entry stay closed.
        let later = [
            (
                "tournaments",
                "self_entry",
                boolean(Tournaments::SelfEntry).default(false).to_owned(),
            ),
            (
                "tournaments",
                "late_self_entry",
                boolean(Tournaments::LateSelfEntry)
                    .default(false)
                    .to_owned(),
            ),
            (
                "tournaments",
                "version",
                big_integer(Tournaments::Version).default(0).to_owned(),
            ),
            (
                "boards",
                "short",
                boolean(Boards::Short).default(false).to_owned(),
            ),
        ];
        for (table, column, mut definition) in later {
            if !manager.has_column(table, column).await? {
                manager
                    .alter_table(
                        Table::alter()
                            .table(Alias::new(table))
                            .add_column(&mut definition)
                            .to_owned(),
                    )
                    .await?;
            }
        }
        Ok(())
    }

    async fn down(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        for table in [
            SchedulerCursor::Table.into_iden(),
            Matches::Table.into_iden(),
            QueueEntries::Table.into_iden(),
            Boards::Table.into_iden(),
            ByeRequests::Table.into_iden(),
            TournamentPlayers::Table.into_iden(),
            Tournaments::Table.into_iden(),
        ] {
            manager
                .drop_table(Table::drop().table(table).if_exists().to_owned())
                .await?;
        }
        Ok(())
    }
}

/// A tournament's tie-break settings beside its list: which text of FIDE C.07 (2024 or 2026)
/// and how unrated players count in rating-based tie-breaks. Empty in rows from before: the
/// text follows the creation date, unrated players are dropped.
struct TiebreakSettings;

impl MigrationName for TiebreakSettings {
    fn name(&self) -> &str {
        "m20261126_000002_tiebreak_settings"
    }
}

#[async_trait::async_trait]
impl MigrationTrait for TiebreakSettings {
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

/// A search key beside each tournament's name ([`hanniball_db::search`]), filled in for the
/// tournaments there are. One that a binary from before it creates (during a rolling upgrade)
/// gets the empty key, which `Store::open` fills in at the next start.
struct TournamentSearchKeys;

impl MigrationName for TournamentSearchKeys {
    fn name(&self) -> &str {
        "m20261126_000003_tournament_search_keys"
    }
}

#[async_trait::async_trait]
impl MigrationTrait for TournamentSearchKeys {
    async fn up(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        manager
            .alter_table(
                Table::alter()
                    .table(Tournaments::Table)
                    .add_column(string(Tournaments::SearchKey).default(""))
                    .to_owned(),
            )
            .await?;
        hanniball_db::search::fill_search_keys(
            manager.get_connection(),
            "tournaments",
            "name",
            "search_key",
        )
        .await
    }

    async fn down(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        manager
            .alter_table(
                Table::alter()
                    .table(Tournaments::Table)
                    .drop_column(Tournaments::SearchKey)
                    .to_owned(),
            )
            .await
    }
}

/// Tournaments played over the board, and the record of result corrections.
struct OverTheBoardAndCorrections;

impl MigrationName for OverTheBoardAndCorrections {
    fn name(&self) -> &str {
        "m20261128_000004_over_the_board_and_corrections"
    }
}

#[derive(DeriveIden)]
enum BoardCorrections {
    Table,
    TournamentId,
    Number,
    Round,
    Board,
    Previous,
    Result,
    CorrectedBy,
    Note,
    AtMs,
    AfterPairing,
}

#[async_trait::async_trait]
impl MigrationTrait for OverTheBoardAndCorrections {
    async fn up(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        manager
            .alter_table(
                Table::alter()
                    .table(Tournaments::Table)
                    .add_column(boolean(Tournaments::OverTheBoard).default(false))
                    .to_owned(),
            )
            .await?;
        manager
            .create_table(
                Table::create()
                    .table(BoardCorrections::Table)
                    .if_not_exists()
                    .col(big_integer(BoardCorrections::TournamentId))
                    .col(integer(BoardCorrections::Number))
                    .col(integer(BoardCorrections::Round))
                    .col(integer(BoardCorrections::Board))
                    .col(string(BoardCorrections::Previous))
                    .col(string(BoardCorrections::Result))
                    .col(string(BoardCorrections::CorrectedBy))
                    .col(text(BoardCorrections::Note))
                    .col(big_integer(BoardCorrections::AtMs))
                    .col(boolean(BoardCorrections::AfterPairing))
                    .primary_key(
                        Index::create()
                            .col(BoardCorrections::TournamentId)
                            .col(BoardCorrections::Number),
                    )
                    .to_owned(),
            )
            .await
    }

    async fn down(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        manager
            .drop_table(
                Table::drop()
                    .table(BoardCorrections::Table)
                    .if_exists()
                    .to_owned(),
            )
            .await?;
        manager
            .alter_table(
                Table::alter()
                    .table(Tournaments::Table)
                    .drop_column(Tournaments::OverTheBoard)
                    .to_owned(),
            )
            .await
    }
}

/// Who organises each tournament (the organisers who may change it besides the admin), and the
/// entrants who must not be paired with each other.
struct TournamentOrganisers;

impl MigrationName for TournamentOrganisers {
    fn name(&self) -> &str {
        "m20261129_000005_tournament_organisers"
    }
}

#[derive(DeriveIden)]
enum ForbiddenPairs {
    Table,
    TournamentId,
    FirstId,
    SecondId,
}

#[derive(DeriveIden)]
enum TournamentOrganisersTable {
    #[sea_orm(iden = "tournament_organisers")]
    Table,
    TournamentId,
    PlayerId,
}

#[async_trait::async_trait]
impl MigrationTrait for TournamentOrganisers {
    async fn up(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        manager
            .create_table(
                Table::create()
                    .table(TournamentOrganisersTable::Table)
                    .if_not_exists()
                    .col(big_integer(TournamentOrganisersTable::TournamentId))
                    .col(big_integer(TournamentOrganisersTable::PlayerId))
                    .primary_key(
                        Index::create()
                            .col(TournamentOrganisersTable::TournamentId)
                            .col(TournamentOrganisersTable::PlayerId),
                    )
                    .to_owned(),
            )
            .await?;
        manager
            .create_table(
                Table::create()
                    .table(ForbiddenPairs::Table)
                    .if_not_exists()
                    .col(big_integer(ForbiddenPairs::TournamentId))
                    .col(big_integer(ForbiddenPairs::FirstId))
                    .col(big_integer(ForbiddenPairs::SecondId))
                    .primary_key(
                        Index::create()
                            .col(ForbiddenPairs::TournamentId)
                            .col(ForbiddenPairs::FirstId)
                            .col(ForbiddenPairs::SecondId),
                    )
                    .to_owned(),
            )
            .await
    }

    async fn down(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        manager
            .drop_table(
                Table::drop()
                    .table(ForbiddenPairs::Table)
                    .if_exists()
                    .to_owned(),
            )
            .await?;
        manager
            .drop_table(
                Table::drop()
                    .table(TournamentOrganisersTable::Table)
                    .if_exists()
                    .to_owned(),
            )
            .await
    }
}

/// Search keys without accents or case (`zoe` finds Zoë, `lukasz` Łukasz, `strasse` Straße):
/// every tournament's key is made again by today's [`hanniball_db::search::search_key`].
struct AccentBlindSearchKeys;

impl MigrationName for AccentBlindSearchKeys {
    fn name(&self) -> &str {
        "m20261129_000006_accent_blind_search_keys"
    }
}

#[async_trait::async_trait]
impl MigrationTrait for AccentBlindSearchKeys {
    async fn up(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        let db = manager.get_connection();
        db.execute_unprepared("UPDATE tournaments SET search_key = ''")
            .await?;
        hanniball_db::search::fill_search_keys(db, "tournaments", "name", "search_key").await
    }

    async fn down(&self, _: &SchemaManager) -> Result<(), DbErr> {
        // The keys stay as they are: a search finds more with them, never less.
        Ok(())
    }
}

/// A tournament's details (place, dates, arbiters, rules, round dates: the TRF header and what
/// the page shows), one JSON text: read and written whole, never queried. Empty in rows from
/// before: no details.
struct TournamentDetails;

impl MigrationName for TournamentDetails {
    fn name(&self) -> &str {
        "m20261129_000007_tournament_details"
    }
}

#[async_trait::async_trait]
impl MigrationTrait for TournamentDetails {
    async fn up(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        manager
            .alter_table(
                Table::alter()
                    .table(Tournaments::Table)
                    .add_column(text(Tournaments::Details).default(""))
                    .to_owned(),
            )
            .await
    }

    async fn down(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        manager
            .alter_table(
                Table::alter()
                    .table(Tournaments::Table)
                    .drop_column(Tournaments::Details)
                    .to_owned(),
            )
            .await
    }
}
