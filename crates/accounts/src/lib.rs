//! The Accounts service's data: players and their tokens (hashes, scopes, expiry, revocation),
//! their SQL and their migrations ([`hanniball_migration_accounts::Migrator`], tracked in a table of their own).
//!
//! A crate of its own, not a module of a service crate: the Accounts service is served beside
//! the arbiter (`hanniball-arbiter-svc`), and every service's auth (`hanniball-svc-kit`) checks
//! tokens through it when Accounts runs in the same process. Other services never read these
//! tables: they ask Accounts (this crate in one process, its gRPC API across processes).
//!
//! What this crate does NOT do: no gRPC, no hashing or token rules (the auth layer's), no other
//! service's tables.

pub mod entities;

use std::collections::HashMap;

use hanniball_db::{Db, MAX_PARAMS, Sql, reread, search};
use hanniball_ids::{PlayerId, Timestamp};
use sea_orm::sea_query::{Expr, ExprTrait};
use sea_orm::{
    ActiveValue::Set, ColumnTrait, ConnectionTrait, DatabaseConnection, DbBackend, EntityTrait,
    PaginatorTrait, QueryFilter, QueryOrder, QuerySelect, Statement, Value,
};

pub use hanniball_db::StoreError;

use entities::{passwords, players, tokens};

pub use hanniball_directory::{Player, Token, TokenEvent};

/// The Accounts service's tables.
#[derive(Clone, Debug)]
pub struct Accounts {
    /// Its connection (pool); [`Accounts::db`] is the plumbing around it.
    conn: DatabaseConnection,
    plumbing: Db,
    /// Revocations through this process (every clone shares it): on SQLite, where one process
    /// owns the database, this is all there is; on PostgreSQL other replicas' revocations arrive
    /// through [`Accounts::listen_tokens`].
    token_events: tokio::sync::broadcast::Sender<TokenEvent>,
}

impl Accounts {
    /// The accounts tables of `db`, after applying their pending migrations.
    pub async fn open(db: &Db) -> Result<Accounts, StoreError> {
        db.migrate::<hanniball_migration_accounts::Migrator>()
            .await?;
        // Players that a binary from before search keys registered (a rolling upgrade).
        search::fill_search_keys(db.connection(), "players", "name", "search_key").await?;
        search::fill_keys(
            db.connection(),
            "players",
            "name",
            "look_alike_key",
            hanniball_names::look_alike_key,
        )
        .await?;
        Ok(Accounts {
            conn: db.connection().clone(),
            plumbing: db.clone(),
            token_events: tokio::sync::broadcast::channel(TOKEN_EVENTS).0,
        })
    }

    /// Connects to `url` and opens the accounts tables there.
    pub async fn connect(url: &str) -> Result<Accounts, StoreError> {
        Accounts::open(&Db::connect(url).await?).await
    }

    /// The database underneath.
    #[must_use]
    pub fn db(&self) -> &Db {
        &self.plumbing
    }

    /// Whether other processes may write the same rows at the same time (PostgreSQL).
    #[must_use]
    pub fn shared_by_replicas(&self) -> bool {
        self.plumbing.shared_by_replicas()
    }

    fn backend(&self) -> DbBackend {
        self.plumbing.backend()
    }

    /// Registers a player; `Conflict` when the name is taken, or looks the same as a name taken
    /// (the same letters in another case, spacing or accents: the same search key; or letters
    /// that look alike, `hanniball_names::look_alike_key`).
    pub async fn create_player(
        &self,
        name: &str,
        kind: &str,
        now: Timestamp,
    ) -> Result<Player, StoreError> {
        let key = search::search_key(name);
        let looks = hanniball_names::look_alike_key(name);
        let alike = players::Entity::find()
            .filter(
                players::Column::SearchKey
                    .eq(key.as_str())
                    .or(players::Column::LookAlikeKey.eq(looks.as_str())),
            )
            .one(&self.conn)
            .await?;
        if let Some(existing) = alike {
            if existing.name == name {
                return Err(StoreError::Conflict(format!("the name {name:?} is taken")));
            }
            return Err(StoreError::Conflict(format!(
                "{name:?} looks the same as {:?} (player {})",
                existing.name, existing.id
            )));
        }
        let model = players::ActiveModel {
            name: Set(name.to_owned()),
            kind: Set(kind.to_owned()),
            created_at_ms: Set(now.0),
            search_key: Set(key),
            look_alike_key: Set(looks),
            organiser: Set(false),
            ..Default::default()
        };
        let inserted = players::Entity::insert(model)
            .exec_with_returning(self.plumbing.commits())
            .await?;
        Ok(player_row(inserted))
    }

    pub async fn player(&self, id: PlayerId) -> Result<Option<Player>, StoreError> {
        reread(|| async move {
            Ok(players::Entity::find_by_id(id.0)
                .one(&self.conn)
                .await?
                .map(player_row))
        })
        .await
    }

    pub async fn player_by_name(&self, name: &str) -> Result<Option<Player>, StoreError> {
        reread(|| async move {
            Ok(players::Entity::find()
                .filter(players::Column::Name.eq(name))
                .one(&self.conn)
                .await?
                .map(player_row))
        })
        .await
    }

    pub async fn list_players(&self, after: i64, limit: u64) -> Result<Vec<Player>, StoreError> {
        reread(|| async move {
            Ok(players::Entity::find()
                .filter(players::Column::Id.gt(after))
                .order_by_asc(players::Column::Id)
                .limit(limit)
                .all(&self.conn)
                .await?
                .into_iter()
                .map(player_row)
                .collect())
        })
        .await
    }

    /// At most `limit` players whose names hold every word of `words` (case ignored, in any
    /// script: [`search`]), a name equal to the whole query first, then by name (case ignored,
    /// then as written, by code point); and whether more match. No words: none.
    pub async fn search_players(
        &self,
        words: &search::Words,
        limit: u64,
    ) -> Result<(Vec<Player>, bool), StoreError> {
        if words.is_empty() {
            return Ok((Vec::new(), false));
        }
        let backend = self.backend();
        reread(|| async move {
            let mut rows = players::Entity::find()
                .filter(words.condition(players::Column::SearchKey))
                .order_by_asc(words.rank(players::Column::SearchKey))
                .order_by_asc(search::by_code_point(backend, "search_key"))
                .order_by_asc(search::by_code_point(backend, "name"))
                .order_by_asc(players::Column::Id)
                .limit(limit.saturating_add(1))
                .all(&self.conn)
                .await?;
            let more = rows.len() as u64 > limit;
            rows.truncate(usize::try_from(limit).unwrap_or(usize::MAX));
            Ok((rows.into_iter().map(player_row).collect(), more))
        })
        .await
    }

    /// Stores a token hash for a player, with its scopes (names separated by single spaces) and
    /// expiry, and returns the token's id.
    pub async fn insert_token(
        &self,
        player: PlayerId,
        hash: &str,
        now: Timestamp,
        scopes: &str,
        expires_at: Option<Timestamp>,
    ) -> Result<i64, StoreError> {
        let model = tokens::ActiveModel {
            player_id: Set(player.0),
            hash: Set(hash.to_owned()),
            created_at_ms: Set(now.0),
            revoked_at_ms: Set(None),
            scopes: Set(scopes.to_owned()),
            expires_at_ms: Set(expires_at.map(|at| at.0)),
            session_label: Set(None),
            ..Default::default()
        };
        Ok(tokens::Entity::insert(model)
            .exec_with_returning(self.plumbing.commits())
            .await?
            .id)
    }

    /// Stores a session: a token with a label (what signed in), which always expires.
    pub async fn insert_session(
        &self,
        player: PlayerId,
        hash: &str,
        now: Timestamp,
        scopes: &str,
        expires_at: Timestamp,
        label: &str,
    ) -> Result<i64, StoreError> {
        let model = tokens::ActiveModel {
            player_id: Set(player.0),
            hash: Set(hash.to_owned()),
            created_at_ms: Set(now.0),
            revoked_at_ms: Set(None),
            scopes: Set(scopes.to_owned()),
            expires_at_ms: Set(Some(expires_at.0)),
            session_label: Set(Some(label.to_owned())),
            ..Default::default()
        };
        Ok(tokens::Entity::insert(model)
            .exec_with_returning(self.plumbing.commits())
            .await?
            .id)
    }

    /// The ids of a player's sessions that work at `now`.
    pub async fn live_sessions(
        &self,
        player: PlayerId,
        now: Timestamp,
    ) -> Result<Vec<i64>, StoreError> {
        reread(|| async move {
            Ok(tokens::Entity::find()
                .select_only()
                .column(tokens::Column::Id)
                .filter(tokens::Column::PlayerId.eq(player.0))
                .filter(tokens::Column::SessionLabel.is_not_null())
                .filter(tokens::Column::RevokedAtMs.is_null())
                .filter(tokens::Column::ExpiresAtMs.gt(now.0))
                .order_by_asc(tokens::Column::Id)
                .into_tuple::<i64>()
                .all(&self.conn)
                .await?)
        })
        .await
    }

    /// Sets a player's password hash (a PHC string); whether one was replaced.
    pub async fn set_password(
        &self,
        player: PlayerId,
        hash: &str,
        now: Timestamp,
    ) -> Result<bool, StoreError> {
        let txn = self.plumbing.begin_write().await?;
        let replaced = passwords::Entity::delete_by_id(player.0)
            .exec(&txn)
            .await?
            .rows_affected
            > 0;
        passwords::Entity::insert(passwords::ActiveModel {
            player_id: Set(player.0),
            hash: Set(hash.to_owned()),
            set_at_ms: Set(now.0),
        })
        .exec(&txn)
        .await?;
        txn.commit().await?;
        Ok(replaced)
    }

    /// A player's password hash, if one is set.
    pub async fn password_hash(&self, player: PlayerId) -> Result<Option<String>, StoreError> {
        reread(|| async move {
            Ok(passwords::Entity::find_by_id(player.0)
                .one(&self.conn)
                .await?
                .map(|row| row.hash))
        })
        .await
    }

    /// Grants or takes away the organiser right: `None` for an unknown player, else whether it
    /// changed. Taking it away also takes `organise` from every token of the player, and tells
    /// every auth cache to look tokens up again (this process's, and every replica's on
    /// PostgreSQL), so that the right ends at once.
    pub async fn set_organiser(
        &self,
        player: PlayerId,
        organiser: bool,
    ) -> Result<Option<bool>, StoreError> {
        let txn = self.plumbing.begin_write().await?;
        let Some(row) = players::Entity::find_by_id(player.0).one(&txn).await? else {
            return Ok(None);
        };
        if row.organiser == organiser {
            return Ok(Some(false));
        }
        players::Entity::update_many()
            .col_expr(players::Column::Organiser, Expr::value(organiser))
            .filter(players::Column::Id.eq(player.0))
            .exec(&txn)
            .await?;
        if !organiser {
            let held = tokens::Entity::find()
                .filter(tokens::Column::PlayerId.eq(player.0))
                .filter(tokens::Column::Scopes.contains(ORGANISE))
                .all(&txn)
                .await?;
            for token in held {
                tokens::Entity::update_many()
                    .col_expr(
                        tokens::Column::Scopes,
                        Expr::value(without_organise(&token.scopes)),
                    )
                    .filter(tokens::Column::Id.eq(token.id))
                    .exec(&txn)
                    .await?;
            }
            if txn.get_database_backend() == DbBackend::Postgres {
                txn.execute_raw(Statement::from_string(
                    DbBackend::Postgres,
                    format!("SELECT pg_notify('{TOKENS_CHANNEL}', '{FLUSH}')"),
                ))
                .await?;
            }
        }
        txn.commit().await?;
        if !organiser {
            let _ = self.token_events.send(TokenEvent::Missed);
        }
        Ok(Some(true))
    }

    /// Revokes a token: `None` for an unknown id, `Some(false)` if it was already revoked. A
    /// revocation is announced to this process ([`Accounts::token_events`]) after its commit, and on
    /// PostgreSQL to every process (`NOTIFY` on [`TOKENS_CHANNEL`] in the same transaction).
    pub async fn revoke_token(&self, id: i64, now: Timestamp) -> Result<Option<bool>, StoreError> {
        // A write transaction from the start: on SQLite one that reads first and writes later
        // fails at once (BUSY), not after waiting, if another connection committed in between.
        let txn = self.plumbing.begin_write().await?;
        let Some(token) = tokens::Entity::find_by_id(id).one(&txn).await? else {
            return Ok(None);
        };
        if token.revoked_at_ms.is_some() {
            return Ok(Some(false));
        }
        let done = tokens::Entity::update_many()
            .col_expr(tokens::Column::RevokedAtMs, Expr::value(now.0))
            .filter(tokens::Column::Id.eq(id))
            .filter(tokens::Column::RevokedAtMs.is_null())
            .exec(&txn)
            .await?;
        if txn.get_database_backend() == DbBackend::Postgres {
            txn.execute_raw(Statement::from_sql_and_values(
                DbBackend::Postgres,
                format!("SELECT pg_notify('{TOKENS_CHANNEL}', $1)"),
                [id.to_string().into()],
            ))
            .await?;
        }
        txn.commit().await?;
        // No receiver is not an error: nothing listens in a command-line tool.
        let _ = self.token_events.send(TokenEvent::Revoked(id));
        Ok(Some(done.rows_affected == 1))
    }

    /// One token by id, revoked or not.
    pub async fn token(&self, id: i64) -> Result<Option<Token>, StoreError> {
        reread(|| async move {
            Ok(tokens::Entity::find_by_id(id)
                .one(&self.conn)
                .await?
                .map(token_row))
        })
        .await
    }

    /// A player's tokens with ids above `after`, by id: revoked and expired ones too.
    pub async fn list_tokens(
        &self,
        player: PlayerId,
        after: i64,
        limit: u64,
    ) -> Result<Vec<Token>, StoreError> {
        reread(|| async move {
            Ok(tokens::Entity::find()
                .filter(tokens::Column::PlayerId.eq(player.0))
                .filter(tokens::Column::Id.gt(after))
                .order_by_asc(tokens::Column::Id)
                .limit(limit)
                .all(&self.conn)
                .await?
                .into_iter()
                .map(token_row)
                .collect())
        })
        .await
    }

    /// How many of a player's tokens work at `now` (neither revoked nor expired).
    pub async fn live_token_count(
        &self,
        player: PlayerId,
        now: Timestamp,
    ) -> Result<u64, StoreError> {
        reread(|| async move {
            Ok(tokens::Entity::find()
                .filter(tokens::Column::PlayerId.eq(player.0))
                .filter(tokens::Column::RevokedAtMs.is_null())
                .filter(
                    tokens::Column::ExpiresAtMs
                        .is_null()
                        .or(tokens::Column::ExpiresAtMs.gt(now.0)),
                )
                .count(&self.conn)
                .await?)
        })
        .await
    }

    /// Revocations through this process, from now on.
    #[must_use]
    pub fn token_events(&self) -> tokio::sync::broadcast::Receiver<TokenEvent> {
        self.token_events.subscribe()
    }

    /// PostgreSQL: revocations by every process, as they commit (`LISTEN` on
    /// [`TOKENS_CHANNEL`]); [`TokenEvent::Missed`] after a lost connection. `Ok(None)` on
    /// SQLite, where [`Accounts::token_events`] hears everything.
    pub async fn listen_tokens(
        &self,
    ) -> Result<Option<impl tokio_stream::Stream<Item = TokenEvent> + use<>>, StoreError> {
        let Some(notes) = self
            .plumbing
            .listen(TOKENS_CHANNEL, "token revocations")
            .await?
        else {
            return Ok(None);
        };
        Ok(Some(tokio_stream::StreamExt::filter_map(
            notes,
            |note| match note {
                // A token's id, or [`FLUSH`]: tokens changed, look every one up again.
                Some(payload) => Some(
                    payload
                        .parse::<i64>()
                        .map_or(TokenEvent::Missed, TokenEvent::Revoked),
                ),
                None => Some(TokenEvent::Missed),
            },
        )))
    }

    /// The unrevoked token with this hash, expired or not (the caller tells an expired token from
    /// an unknown one), with the scopes it holds now: [`ORGANISE`] only while its player is an
    /// organiser. [`Accounts::set_organiser`] takes the scope from the stored rows too, but a
    /// token issued while the right was being taken away may still name it; this is what makes
    /// the right end at once whatever the race.
    pub async fn token_by_hash(&self, hash: &str) -> Result<Option<Token>, StoreError> {
        let Some(mut token) = reread(|| async move {
            Ok(tokens::Entity::find()
                .filter(tokens::Column::Hash.eq(hash))
                .filter(tokens::Column::RevokedAtMs.is_null())
                .one(&self.conn)
                .await?
                .map(token_row))
        })
        .await?
        else {
            return Ok(None);
        };
        // One more query, for organisers' tokens only.
        if token.scopes.split_whitespace().any(|s| s == ORGANISE)
            && !self
                .player(token.player)
                .await?
                .is_some_and(|p| p.organiser)
        {
            token.scopes = without_organise(&token.scopes);
        }
        Ok(Some(token))
    }

    /// The player owning an unrevoked token with this hash.
    pub async fn player_by_token_hash(&self, hash: &str) -> Result<Option<Player>, StoreError> {
        let Some(token) = self.token_by_hash(hash).await? else {
            return Ok(None);
        };
        self.player(token.player).await
    }
    /// Names of players by id (unknown ids are left out).
    pub async fn player_names(
        &self,
        ids: &[PlayerId],
    ) -> Result<HashMap<PlayerId, String>, StoreError> {
        Ok(self
            .players(ids)
            .await?
            .into_iter()
            .map(|row| (row.id, row.name))
            .collect())
    }

    /// The players with these ids, by id (unknown ids are left out).
    pub async fn players(&self, ids: &[PlayerId]) -> Result<Vec<Player>, StoreError> {
        reread(|| async move {
            let mut found = Vec::with_capacity(ids.len());
            for chunk in ids.chunks(MAX_PARAMS) {
                let rows = players::Entity::find()
                    .filter(players::Column::Id.is_in(chunk.iter().map(|p| p.0)))
                    .order_by_asc(players::Column::Id)
                    .all(&self.conn)
                    .await?;
                found.extend(rows.into_iter().map(player_row));
            }
            Ok(found)
        })
        .await
    }

    /// Registers many players at once (bulk imports and benchmarks); names must be new.
    pub async fn create_players_bulk(
        &self,
        names: &[String],
        kind: &str,
        now: Timestamp,
    ) -> Result<(), StoreError> {
        let txn = self.plumbing.begin_write().await?;
        for chunk in names.chunks(MAX_PARAMS / 5) {
            let mut sql = Sql::new(
                self.backend(),
                "INSERT INTO players (name, kind, created_at_ms, search_key, look_alike_key) \
                 VALUES ",
            );
            for (i, name) in chunk.iter().enumerate() {
                if i > 0 {
                    sql.push(", ");
                }
                sql.bind_list([
                    Value::from(name.as_str()),
                    Value::from(kind),
                    Value::from(now.0),
                    Value::from(search::search_key(name)),
                    Value::from(hanniball_names::look_alike_key(name)),
                ]);
            }
            txn.execute_raw(sql.statement()).await?;
        }
        txn.commit().await?;
        Ok(())
    }
}

/// The PostgreSQL channel on which every token revocation is announced, as the token's id.
pub const TOKENS_CHANNEL: &str = "hanniball_tokens";
/// The payload on [`TOKENS_CHANNEL`] saying that tokens changed otherwise (a right taken away).
const FLUSH: &str = "flush";
/// The stored name of the scope that only organisers' tokens hold.
pub const ORGANISE: &str = "organise";

/// Stored scopes without [`ORGANISE`].
fn without_organise(scopes: &str) -> String {
    scopes
        .split_whitespace()
        .filter(|s| *s != ORGANISE)
        .collect::<Vec<_>>()
        .join(" ")
}

/// Room for revocations not yet read by a slow receiver (it then looks every token up again).
const TOKEN_EVENTS: usize = 1_024;

fn token_row(row: tokens::Model) -> Token {
    Token {
        id: row.id,
        player: PlayerId(row.player_id),
        scopes: row.scopes,
        created_at: Timestamp(row.created_at_ms),
        expires_at: row.expires_at_ms.map(Timestamp),
        revoked_at: row.revoked_at_ms.map(Timestamp),
        session_label: row.session_label,
    }
}

fn player_row(row: players::Model) -> Player {
    Player {
        id: PlayerId(row.id),
        name: row.name,
        kind: row.kind,
        created_at: Timestamp(row.created_at_ms),
        organiser: row.organiser,
    }
}

#[cfg(test)]
mod tests;
