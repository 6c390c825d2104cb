//! The accounts tables' migrations, tracked in `seaql_migrations_accounts` so that Accounts can
//! run on a database of its own or beside other services. Released migrations are never edited.
//!
//! The first one adopts what it finds: on a database made by the single migration set of before
//! the split (`players`, `tokens`, perhaps without the scope columns) it creates nothing that
//! exists and adds what is missing, so an old database upgrades in place with its rows. The
//! second gives each player a search key (the name folded for case-blind search in any script).

// The async_trait signatures of MigrationTrait elide the manager's lifetime.
#![allow(elided_lifetimes_in_paths)]

use sea_orm_migration::prelude::*;
use sea_orm_migration::schema::{
    big_integer, big_integer_null, big_pk_auto, boolean, string, string_null,
};

/// The accounts tables' migrations, oldest first.
pub struct Migrator;

#[async_trait::async_trait]
impl MigratorTrait for Migrator {
    fn migrations() -> Vec<Box<dyn MigrationTrait>> {
        vec![
            Box::new(PlayersAndTokens),
            Box::new(PlayerSearchKeys),
            Box::new(PasswordsAndSessions),
            Box::new(Organisers),
            Box::new(AccentBlindSearchKeys),
            Box::new(LookAlikeKeys),
        ]
    }

    fn migration_table_name() -> DynIden {
        "seaql_migrations_accounts".into_iden()
    }
}

#[derive(DeriveIden)]
enum Players {
    Table,
    Id,
    Name,
    Kind,
    CreatedAtMs,
    SearchKey,
    Organiser,
    LookAlikeKey,
}

#[derive(DeriveIden)]
enum Tokens {
    Table,
    Id,
    PlayerId,
    Hash,
    CreatedAtMs,
    RevokedAtMs,
    Scopes,
    ExpiresAtMs,
    SessionLabel,
}

#[derive(DeriveIden)]
enum Passwords {
    Table,
    PlayerId,
    Hash,
    SetAtMs,
}

/// The scopes of a token issued without any: a player token's rights before scopes existed.
const PLAYER_SCOPES: &str = "play queue read";

/// Players and tokens: created, or adopted from an older database.
struct PlayersAndTokens;

impl MigrationName for PlayersAndTokens {
    fn name(&self) -> &str {
        "m20261126_000001_players_and_tokens"
    }
}

#[async_trait::async_trait]
impl MigrationTrait for PlayersAndTokens {
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
        // Scopes and expiry (a database from before them: its tokens get a player's rights, no
        // expiry). One column per statement: SQLite's ALTER TABLE adds one at a time.
        if !manager.has_column("tokens", "scopes").await? {
            manager
                .alter_table(
                    Table::alter()
                        .table(Tokens::Table)
                        .add_column(string(Tokens::Scopes).default(PLAYER_SCOPES))
                        .to_owned(),
                )
                .await?;
        }
        if !manager.has_column("tokens", "expires_at_ms").await? {
            manager
                .alter_table(
                    Table::alter()
                        .table(Tokens::Table)
                        .add_column(big_integer_null(Tokens::ExpiresAtMs))
                        .to_owned(),
                )
                .await?;
        }
        Ok(())
    }

    async fn down(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        for table in [Tokens::Table.into_iden(), Players::Table.into_iden()] {
            manager
                .drop_table(Table::drop().table(table).if_exists().to_owned())
                .await?;
        }
        Ok(())
    }
}

/// A search key beside each player's name ([`hanniball_db::search`]), filled in for the players
/// there are. A player that a binary from before it registers (during a rolling upgrade) gets
/// the empty key, which `Accounts::open` fills in at the next start.
struct PlayerSearchKeys;

impl MigrationName for PlayerSearchKeys {
    fn name(&self) -> &str {
        "m20261126_000002_player_search_keys"
    }
}

#[async_trait::async_trait]
impl MigrationTrait for PlayerSearchKeys {
    async fn up(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        manager
            .alter_table(
                Table::alter()
                    .table(Players::Table)
                    .add_column(string(Players::SearchKey).default(""))
                    .to_owned(),
            )
            .await?;
        hanniball_db::search::fill_search_keys(
            manager.get_connection(),
            "players",
            "name",
            "search_key",
        )
        .await
    }

    async fn down(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        manager
            .alter_table(
                Table::alter()
                    .table(Players::Table)
                    .drop_column(Players::SearchKey)
                    .to_owned(),
            )
            .await
    }
}

/// Passwords (hashes only) for the pages' sign-in, and sessions: tokens with a label.
struct PasswordsAndSessions;

impl MigrationName for PasswordsAndSessions {
    fn name(&self) -> &str {
        "m20261129_000003_passwords_and_sessions"
    }
}

#[async_trait::async_trait]
impl MigrationTrait for PasswordsAndSessions {
    async fn up(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        manager
            .create_table(
                Table::create()
                    .table(Passwords::Table)
                    .if_not_exists()
                    .col(big_integer(Passwords::PlayerId).primary_key())
                    .col(string(Passwords::Hash))
                    .col(big_integer(Passwords::SetAtMs))
                    .to_owned(),
            )
            .await?;
        manager
            .alter_table(
                Table::alter()
                    .table(Tokens::Table)
                    .add_column(string_null(Tokens::SessionLabel))
                    .to_owned(),
            )
            .await
    }

    async fn down(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        manager
            .alter_table(
                Table::alter()
                    .table(Tokens::Table)
                    .drop_column(Tokens::SessionLabel)
                    .to_owned(),
            )
            .await?;
        manager
            .drop_table(Table::drop().table(Passwords::Table).if_exists().to_owned())
            .await
    }
}

/// The organiser right: the admin's to grant, held by the player.
struct Organisers;

impl MigrationName for Organisers {
    fn name(&self) -> &str {
        "m20261129_000004_organisers"
    }
}

#[async_trait::async_trait]
impl MigrationTrait for Organisers {
    async fn up(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        manager
            .alter_table(
                Table::alter()
                    .table(Players::Table)
                    .add_column(boolean(Players::Organiser).default(false))
                    .to_owned(),
            )
            .await
    }

    async fn down(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        manager
            .alter_table(
                Table::alter()
                    .table(Players::Table)
                    .drop_column(Players::Organiser)
                    .to_owned(),
            )
            .await
    }
}

/// Search keys without accents or case (`zoe` finds Zoë, `lukasz` Łukasz, `strasse` Straße):
/// every player's key is made again by today's [`hanniball_db::search::search_key`].
struct AccentBlindSearchKeys;

impl MigrationName for AccentBlindSearchKeys {
    fn name(&self) -> &str {
        "m20261129_000005_accent_blind_search_keys"
    }
}

#[async_trait::async_trait]
impl MigrationTrait for AccentBlindSearchKeys {
    async fn up(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        let db = manager.get_connection();
        db.execute_unprepared("UPDATE players SET search_key = ''")
            .await?;
        hanniball_db::search::fill_search_keys(db, "players", "name", "search_key").await
    }

    async fn down(&self, _: &SchemaManager) -> Result<(), DbErr> {
        // The keys stay as they are: a search finds more with them, never less.
        Ok(())
    }
}

/// How each name looks (`hanniball_names::look_alike_key`: confusable skeletons of TS #39), so
/// that a name taken for an existing one is refused. Players that a binary from before it
/// registers get the empty key, which `Accounts::open` fills in at the next start.
struct LookAlikeKeys;

impl MigrationName for LookAlikeKeys {
    fn name(&self) -> &str {
        "m20261129_000007_player_look_alike_keys"
    }
}

#[async_trait::async_trait]
impl MigrationTrait for LookAlikeKeys {
    async fn up(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        manager
            .alter_table(
                Table::alter()
                    .table(Players::Table)
                    .add_column(string(Players::LookAlikeKey).default(""))
                    .to_owned(),
            )
            .await?;
        manager
            .create_index(
                Index::create()
                    .name("players_look_alike_key")
                    .table(Players::Table)
                    .col(Players::LookAlikeKey)
                    .to_owned(),
            )
            .await?;
        hanniball_db::search::fill_keys(
            manager.get_connection(),
            "players",
            "name",
            "look_alike_key",
            hanniball_names::look_alike_key,
        )
        .await
    }

    async fn down(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        manager
            .drop_index(
                Index::drop()
                    .name("players_look_alike_key")
                    .table(Players::Table)
                    .to_owned(),
            )
            .await?;
        manager
            .alter_table(
                Table::alter()
                    .table(Players::Table)
                    .drop_column(Players::LookAlikeKey)
                    .to_owned(),
            )
            .await
    }
}
