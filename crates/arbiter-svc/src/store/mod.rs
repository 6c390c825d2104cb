//! The arbiter's data: games, the append-only turn log, the results outbox and clock leases;
//! their SQL and their migrations ([`hanniball_migration_arbiter::Migrator`], tracked in a table of their own).
//! The same code serves SQLite (the embedded default) and PostgreSQL (production).
//!
//! What this module does NOT do: no rules, no clocks, no gRPC, no other service's tables (a
//! game's players are ids; Accounts knows who they are). It stores what the arbiter decided and
//! reads it back. Database errors leave as [`StoreError`], never as driver messages for clients.

mod convert;
pub mod entities;
mod rows;

use hanniball_arbiter::{
    Clocks, FinalResult, GameId, Match, PlayerId, Status, Stored, Timestamp, Transition,
};
use hanniball_db::{Db, reread};
use hanniball_rules::Side;
use sea_orm::sea_query::{Expr, ExprTrait, OnConflict};
use sea_orm::{
    ActiveValue::Set, ColumnTrait, ConnectionTrait, DatabaseConnection, DbBackend, DbErr,
    EntityTrait, PaginatorTrait, QueryFilter, QueryOrder, QuerySelect, Statement, TransactionTrait,
};

pub use hanniball_db::StoreError;

use entities::{games, result_corrections, results_outbox, turns};

pub use convert::{side_from_name, side_name};
pub use rows::GameRow;

/// A finished game as the outbox gives it to consumers.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FinishedRow {
    pub sequence: i64,
    pub game: GameRow,
    /// When the outbox row was written: the game's end, or its last correction.
    pub at: Timestamp,
}

/// One game's change, stored atomically: the turn (if any), the game row, and the outbox row if
/// the game ended. `expected_turns`, and `expected_version` when given, guard against a
/// concurrent writer (another replica): the version covers every change of the row, draw offers
/// and clocks included.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Write {
    pub game_id: GameId,
    pub expected_turns: u32,
    /// The row's version the writer's copy was made from (see [`Store::load_game_versioned`]);
    /// `None`: not checked (a single writer).
    pub expected_version: Option<i64>,
    pub record: Option<hanniball_arbiter::TurnRecord>,
    /// Whether the change touches the game row beyond what its turn record tells: no turn, a
    /// draw offer made, answered or lapsed, the game ending. On SQLite a plain turn goes to the
    /// log alone (see [`Store::commit_changes`]).
    pub changes_row: bool,
    pub position: String,
    pub turns_played: u32,
    pub clocks: Clocks,
    pub draw_offer: Option<Side>,
    pub status: Status,
    pub result: Option<FinalResult>,
    pub finished_at: Option<Timestamp>,
}

impl Write {
    /// The write that stores `transition` for `game` (before it is applied).
    #[must_use]
    pub fn of(game: &Match, transition: &Transition) -> Write {
        let expected_turns = game.turns().len() as u32;
        let (status, finished_at) = match transition.result {
            Some(result) => (result.status(), Some(transition.at)),
            None => (game.status(), game.finished_at()),
        };
        Write {
            game_id: game.id,
            expected_turns,
            expected_version: None,
            record: transition.record.clone(),
            changes_row: transition.record.is_none()
                || status != Status::Active
                || transition.draw_offer != game.draw_offer(),
            position: transition
                .position_after()
                .unwrap_or_else(|| game.position().to_owned()),
            turns_played: expected_turns + u32::from(transition.record.is_some()),
            clocks: transition.clocks,
            draw_offer: transition.draw_offer,
            status,
            result: transition.result.or(game.result()),
            finished_at,
        }
    }
}

/// A new game's row, ready to insert (its id comes from the database).
#[derive(Clone, Debug)]
pub struct NewGame(Box<games::ActiveModel>);

impl NewGame {
    /// The row for `game` (its id is ignored), with an optional idempotency key.
    #[must_use]
    pub fn of(game: &Match, idempotency_key: Option<&str>) -> NewGame {
        NewGame(Box::new(convert::new_game(game, idempotency_key)))
    }
}

/// What a group commit stores: new games and changes to stored ones.
#[derive(Clone, Debug)]
pub enum Change {
    Create(NewGame),
    Write(Write),
}

/// The id that [`Store::commit_changes`] gave a [`Change::Create`], from its result.
pub fn created_id(result: Result<Option<GameId>, StoreError>) -> Result<GameId, StoreError> {
    result?.ok_or_else(|| StoreError::Database("the commit gave no id for a new game".to_owned()))
}

/// A result correction to store ([`Store::correct_result`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Correction {
    pub game_id: GameId,
    /// The game's corrections before this one (the guard: of two correctors one wins).
    pub expected_corrections: u32,
    pub previous: Option<FinalResult>,
    pub result: FinalResult,
    pub by: String,
    pub note: String,
    pub at: Timestamp,
    pub finished_at: Option<Timestamp>,
}

/// The arbiter's tables.
#[derive(Clone, Debug)]
pub struct Store {
    /// Its connection (pool); [`Store::db`] is the plumbing around it.
    conn: DatabaseConnection,
    /// Where group commits go (see [`Db::commits`]).
    commits: DatabaseConnection,
    plumbing: Db,
}

impl Store {
    /// The arbiter's tables in `db`, after applying their pending migrations.
    pub async fn open(db: &Db) -> Result<Store, StoreError> {
        db.migrate::<hanniball_migration_arbiter::Migrator>()
            .await?;
        Ok(Store {
            conn: db.connection().clone(),
            commits: db.commits().clone(),
            plumbing: db.clone(),
        })
    }

    /// Connects to `url` and opens the arbiter's tables there.
    pub async fn connect(url: &str) -> Result<Store, StoreError> {
        Store::open(&Db::connect(url).await?).await
    }

    /// The database underneath.
    #[must_use]
    pub fn db(&self) -> &Db {
        &self.plumbing
    }

    /// Whether other processes may write the same rows at the same time (PostgreSQL; a SQLite
    /// file belongs to one server process).
    #[must_use]
    pub fn shared_by_replicas(&self) -> bool {
        self.plumbing.shared_by_replicas()
    }

    /// The database backend in use.
    #[must_use]
    pub fn backend(&self) -> DbBackend {
        self.plumbing.backend()
    }

    /// See [`Db::checkpoint`]; the arbiter calls it every second.
    pub async fn checkpoint(&self) -> Result<(), StoreError> {
        self.plumbing.checkpoint().await
    }

    /// Whether the database answers.
    pub async fn ping(&self) -> Result<(), StoreError> {
        self.plumbing.ping().await
    }

    /// The connection pool now: (open connections, of which idle).
    #[must_use]
    pub fn pool_use(&self) -> (u32, usize) {
        self.plumbing.pool_use()
    }

    /// The game created earlier with this idempotency key.
    pub async fn game_by_idempotency_key(&self, key: &str) -> Result<Option<GameId>, StoreError> {
        reread(|| async move {
            Ok(games::Entity::find()
                .filter(games::Column::IdempotencyKey.eq(key))
                .one(&self.conn)
                .await?
                .map(|row| GameId(row.id)))
        })
        .await
    }

    /// The games created earlier under any of these idempotency keys, by key (keys without a
    /// game are left out): one query per thousand keys, for a round's batch of games.
    pub async fn games_by_idempotency_keys(
        &self,
        keys: &[&str],
    ) -> Result<std::collections::HashMap<String, GameId>, StoreError> {
        reread(|| async move {
            let mut found = std::collections::HashMap::new();
            for chunk in keys.chunks(1_000) {
                for row in games::Entity::find()
                    .filter(games::Column::IdempotencyKey.is_in(chunk.iter().copied()))
                    .all(&self.conn)
                    .await?
                {
                    if let Some(key) = row.idempotency_key {
                        found.insert(key, GameId(row.id));
                    }
                }
            }
            Ok(found)
        })
        .await
    }

    /// Inserts a new game and returns its id. `game` is the new match as [`Match::new`] made it
    /// (its own id is a placeholder: the database assigns the real one).
    pub async fn insert_game(
        &self,
        game: &Match,
        idempotency_key: Option<&str>,
    ) -> Result<GameId, StoreError> {
        let create = Change::Create(NewGame::of(game, idempotency_key));
        created_id(
            self.commit_changes(std::slice::from_ref(&create))
                .await
                .remove(0),
        )
    }

    /// Inserts new games in one transaction, all or none (a key already taken is `Conflict`);
    /// their ids in order.
    pub async fn insert_games(&self, games: &[NewGame]) -> Result<Vec<GameId>, StoreError> {
        let changes: Vec<Change> = games.iter().cloned().map(Change::Create).collect();
        self.commit_all(&changes)
            .await?
            .into_iter()
            .map(|id| created_id(Ok(id)))
            .collect()
    }

    /// A game with its whole turn log, ready for [`Match::restore`].
    pub async fn load_game(&self, id: GameId) -> Result<Option<Stored>, StoreError> {
        Ok(self
            .load_game_versioned(id)
            .await?
            .map(|(stored, _)| stored))
    }

    /// [`Store::load_game`] and the row's version, read in one transaction (so the version is the
    /// one of what was read).
    pub async fn load_game_versioned(
        &self,
        id: GameId,
    ) -> Result<Option<(Stored, i64)>, StoreError> {
        reread(|| async move {
            let txn = self.conn.begin().await?;
            let Some(row) = games::Entity::find_by_id(id.0).one(&txn).await? else {
                return Ok(None);
            };
            let log = turns::Entity::find()
                .filter(turns::Column::GameId.eq(id.0))
                .order_by_asc(turns::Column::Number)
                .all(&txn)
                .await?;
            txn.commit().await?;
            let version = row.version;
            let row = log_tail(row, log.last());
            Ok(Some((convert::stored(row, log)?, version)))
        })
        .await
    }

    /// A game's state with only the turns numbered above `after` (a copy that holds the first
    /// `after` turns needs no more), and the row's version, in one transaction: what a replica
    /// reads to bring its copy up to date without reading the whole log.
    pub async fn load_game_after(
        &self,
        id: GameId,
        after: u32,
    ) -> Result<Option<(Stored, i64)>, StoreError> {
        reread(|| async move {
            let txn = self.conn.begin().await?;
            let Some(row) = games::Entity::find_by_id(id.0).one(&txn).await? else {
                return Ok(None);
            };
            // From the copy's own last turn on: the log's last turn is what the row is brought up to
            // (see `log_tail`), even when nothing followed it.
            let mut log = turns::Entity::find()
                .filter(turns::Column::GameId.eq(id.0))
                .filter(
                    turns::Column::Number
                        .gte(i32::try_from(Ord::max(after, 1)).unwrap_or(i32::MAX)),
                )
                .order_by_asc(turns::Column::Number)
                .all(&txn)
                .await?;
            txn.commit().await?;
            let version = row.version;
            let row = log_tail(row, log.last());
            log.retain(|turn| i64::from(turn.number) > i64::from(after));
            Ok(Some((convert::stored(row, log)?, version)))
        })
        .await
    }

    /// The version of a game's row (`None`: no such game): what a replica compares with its copy's.
    pub async fn game_version(&self, id: GameId) -> Result<Option<i64>, StoreError> {
        reread(|| async move {
            Ok(games::Entity::find_by_id(id.0)
                .select_only()
                .column(games::Column::Version)
                .into_tuple::<i64>()
                .one(&self.conn)
                .await?)
        })
        .await
    }

    /// Claims, or renews, the clock leases of `games` for `owner` until `expires_at_ms`: a game
    /// whose lease is unheld, lapsed (before `now_ms`) or already `owner`'s becomes `owner`'s; one
    /// another owner holds stays theirs. Returns the games `owner` holds now. One statement, so
    /// two replicas claiming at once cannot both win. On SQLite (one process) every game is the
    /// caller's and nothing is stored.
    pub async fn claim_clocks(
        &self,
        games: &[GameId],
        owner: &str,
        now_ms: i64,
        expires_at_ms: i64,
    ) -> Result<Vec<GameId>, StoreError> {
        if games.is_empty() || self.backend() != DbBackend::Postgres {
            return Ok(games.to_vec());
        }
        let ids: Vec<i64> = games.iter().map(|g| g.0).collect();
        let sql = "INSERT INTO clock_leases (game_id, owner, expires_at_ms) \
             SELECT CAST(value AS bigint), $2, $4 FROM json_array_elements_text(CAST($1 AS json)) \
             ON CONFLICT (game_id) DO UPDATE \
             SET owner = EXCLUDED.owner, expires_at_ms = EXCLUDED.expires_at_ms \
             WHERE clock_leases.owner = EXCLUDED.owner OR clock_leases.expires_at_ms < $3 \
             RETURNING game_id";
        let rows = self
            .conn
            .query_all_raw(Statement::from_sql_and_values(
                DbBackend::Postgres,
                sql,
                [
                    json_array(&ids)?,
                    owner.into(),
                    now_ms.into(),
                    expires_at_ms.into(),
                ],
            ))
            .await?;
        rows.iter()
            .map(|row| Ok(GameId(row.try_get_by_index(0)?)))
            .collect()
    }

    /// Gives up `owner`'s clock leases of `games` (finished games, or a replica shutting down), so
    /// that another replica need not wait for them to lapse.
    pub async fn release_clocks(&self, games: &[GameId], owner: &str) -> Result<(), StoreError> {
        if games.is_empty() || self.backend() != DbBackend::Postgres {
            return Ok(());
        }
        let ids: Vec<i64> = games.iter().map(|g| g.0).collect();
        self.conn
            .execute_raw(Statement::from_sql_and_values(
                DbBackend::Postgres,
                "DELETE FROM clock_leases WHERE owner = $2 AND game_id IN \
                 (SELECT CAST(value AS bigint) FROM json_array_elements_text(CAST($1 AS json)))",
                [json_array(&ids)?, owner.into()],
            ))
            .await?;
        Ok(())
    }

    /// Who holds the clock lease of `game`, and until when (`None`: nobody, or SQLite).
    pub async fn clock_owner(&self, game: GameId) -> Result<Option<(String, i64)>, StoreError> {
        reread(|| async move {
            if self.backend() != DbBackend::Postgres {
                return Ok(None);
            }
            let row = self
                .conn
                .query_one_raw(Statement::from_sql_and_values(
                    DbBackend::Postgres,
                    "SELECT owner, expires_at_ms FROM clock_leases WHERE game_id = $1",
                    [game.0.into()],
                ))
                .await?;
            row.map(|row| Ok((row.try_get_by_index(0)?, row.try_get_by_index(1)?)))
                .transpose()
        })
        .await
    }

    /// Ids of every game still on.
    pub async fn active_game_ids(&self) -> Result<Vec<GameId>, StoreError> {
        reread(|| async move {
            Ok(games::Entity::find()
                .select_only()
                .column(games::Column::Id)
                .filter(games::Column::Status.eq(Status::Active.name()))
                .order_by_asc(games::Column::Id)
                .into_tuple::<i64>()
                .all(&self.conn)
                .await?
                .into_iter()
                .map(GameId)
                .collect())
        })
        .await
    }

    /// Games, newest first, optionally of one player and one status, below an id.
    pub async fn list_games(
        &self,
        player: Option<PlayerId>,
        status: Option<Status>,
        before: Option<GameId>,
        limit: u64,
    ) -> Result<Vec<GameRow>, StoreError> {
        reread(|| async move {
            let mut query = games::Entity::find().order_by_desc(games::Column::Id);
            if let Some(player) = player {
                query = query.filter(
                    games::Column::WhitePlayerId
                        .eq(player.0)
                        .or(games::Column::BlackPlayerId.eq(player.0)),
                );
            }
            if let Some(status) = status {
                query = query.filter(games::Column::Status.eq(status.name()));
            }
            if let Some(before) = before {
                query = query.filter(games::Column::Id.lt(before.0));
            }
            let rows = query.limit(limit).all(&self.conn).await?;
            // The last turn of each game still on: its row may lag the log (`log_tail`).
            let active: Vec<i64> = rows
                .iter()
                .filter(|row| row.status == Status::Active.name())
                .map(|row| row.id)
                .collect();
            let mut tails = if active.is_empty() {
                Vec::new()
            } else {
                turns::Entity::find()
                    .filter(turns::Column::GameId.is_in(active))
                    .filter(Expr::cust(
                        "\"turns\".\"number\" = (SELECT max(t.number) FROM turns AS t \
                         WHERE t.game_id = \"turns\".\"game_id\")",
                    ))
                    .all(&self.conn)
                    .await?
            };
            rows.into_iter()
                .map(|row| {
                    let tail = tails
                        .iter()
                        .position(|turn| turn.game_id == row.id)
                        .map(|i| tails.swap_remove(i));
                    convert::game_row(log_tail(row, tail.as_ref()))
                })
                .collect()
        })
        .await
    }

    /// Stores several games' changes in one transaction (group commit: one disk sync for all).
    /// If the batch fails, each write is retried alone so that one conflicting write cannot sink
    /// the others. Results are in the order of `writes`.
    pub async fn commit(&self, writes: &[Write]) -> Vec<Result<(), StoreError>> {
        let changes: Vec<Change> = writes.iter().cloned().map(Change::Write).collect();
        self.commit_changes(&changes)
            .await
            .into_iter()
            .map(|result| result.map(drop))
            .collect()
    }

    /// [`Store::commit`] for new games and changes together: a created game's result carries its
    /// id. New games are inserted first (no change in a batch refers to a game created in it).
    pub async fn commit_changes(
        &self,
        changes: &[Change],
    ) -> Vec<Result<Option<GameId>, StoreError>> {
        if changes.len() > 1 {
            match self.commit_all(changes).await {
                Ok(ids) => return ids.into_iter().map(Ok).collect(),
                Err(error @ StoreError::Unavailable { .. }) => {
                    return changes.iter().map(|_| Err(error.clone())).collect();
                }
                Err(error) => {
                    tracing::debug!(%error, batch = changes.len(), "batch commit failed; committing one by one");
                }
            }
        }
        let mut results = Vec::with_capacity(changes.len());
        for change in changes {
            let result = self.commit_all(std::slice::from_ref(change)).await;
            results.push(result.map(|mut ids| ids.remove(0)));
        }
        results
    }

    async fn commit_all(&self, changes: &[Change]) -> Result<Vec<Option<GameId>>, StoreError> {
        let txn = self.commits.begin().await?;
        let mut created = Vec::with_capacity(changes.len());
        let mut writes = Vec::with_capacity(changes.len());
        for change in changes {
            match change {
                Change::Create(new) => {
                    let row = games::Entity::insert((*new.0).clone())
                        .exec_with_returning(&txn)
                        .await?;
                    created.push(Some(GameId(row.id)));
                }
                Change::Write(write) => {
                    writes.push(write);
                    created.push(None);
                }
            }
        }
        // All the batch's turns in one statement; the (game, number) key still refuses a double.
        let turns: Vec<(GameId, &hanniball_arbiter::TurnRecord)> = writes
            .iter()
            .filter_map(|write| write.record.as_ref().map(|r| (write.game_id, r)))
            .collect();
        insert_turns(&txn, &turns).await?;
        let mut ids: Vec<i64> = writes.iter().map(|w| w.game_id.0).collect();
        ids.sort_unstable();
        ids.dedup();
        if ids.len() == writes.len() {
            let (mut live, ending): (Vec<&Write>, Vec<&Write>) =
                writes.iter().partition(|w| w.status == Status::Active);
            // SQLite: a plain turn is in the log alone; the row keeps what the last other change
            // wrote and readers take the live columns from the log's last turn (`log_tail`).
            // Writers there take the whole database in turn, so the log's key and the guards of
            // `insert_turns` and `update_games` are exact. PostgreSQL: other replicas may write
            // the same game at the same time, and the row update is what orders them (its row
            // lock and turn-count guard), so every write still updates the row.
            if txn.get_database_backend() == DbBackend::Sqlite {
                live.retain(|write| write.changes_row);
            }
            update_games(&txn, &live, GameColumns::Live).await?;
            update_games(&txn, &ending, GameColumns::All).await?;
        } else {
            // Two writes of one game: each must see the other's row, so one statement each.
            for write in &writes {
                update_games(&txn, std::slice::from_ref(write), GameColumns::All).await?;
            }
        }
        for write in &writes {
            insert_outbox(&txn, write).await?;
        }
        if txn.get_database_backend() == DbBackend::Postgres {
            let mut changed: Vec<i64> = created.iter().flatten().map(|id| id.0).collect();
            changed.extend(writes.iter().map(|w| w.game_id.0));
            notify_games(&txn, &changed).await?;
        }
        txn.commit().await?;
        Ok(created)
    }

    /// PostgreSQL: the games other processes changed, as they commit (`LISTEN` on
    /// [`GAMES_CHANNEL`]): each item is a game and its row's version after the change. `None`
    /// from the stream means notifications may have been missed (the connection was lost and
    /// re-made): the caller should compare every copy it holds. `Ok(None)` on SQLite, where one
    /// process owns the database.
    pub async fn listen_games(
        &self,
    ) -> Result<Option<impl tokio_stream::Stream<Item = Option<(GameId, i64)>> + use<>>, StoreError>
    {
        let Some(notes) = self.plumbing.listen(GAMES_CHANNEL, "game changes").await? else {
            return Ok(None);
        };
        Ok(Some(tokio_stream::StreamExt::filter_map(
            notes,
            |note| match note {
                Some(payload) => {
                    let mut parts = payload.split(' ');
                    match (
                        parts.next().map(str::parse::<i64>),
                        parts.next().map(str::parse::<i64>),
                    ) {
                        (Some(Ok(id)), Some(Ok(version))) => Some(Some((GameId(id), version))),
                        _ => None,
                    }
                }
                None => Some(None),
            },
        )))
    }

    /// The sequence of the last finished game in the outbox (0: none): what consumers' cursors
    /// are compared with to tell their lag.
    pub async fn latest_result_sequence(&self) -> Result<i64, StoreError> {
        reread(|| async move {
            Ok(results_outbox::Entity::find()
                .select_only()
                .column(results_outbox::Column::Sequence)
                .order_by_desc(results_outbox::Column::Sequence)
                .into_tuple::<i64>()
                .one(&self.conn)
                .await?
                .unwrap_or(0))
        })
        .await
    }

    /// Finished games after `sequence`, in finishing order.
    pub async fn results_after(
        &self,
        sequence: i64,
        limit: u64,
    ) -> Result<Vec<FinishedRow>, StoreError> {
        reread(|| async move {
            let rows = results_outbox::Entity::find()
                .filter(results_outbox::Column::Sequence.gt(sequence))
                .order_by_asc(results_outbox::Column::Sequence)
                .limit(limit)
                .find_also_related_games(&self.conn)
                .await?;
            rows.into_iter()
                .map(|(outbox, game)| {
                    let game = game.ok_or_else(|| {
                        StoreError::Corrupt(format!("outbox row {} has no game", outbox.sequence))
                    })?;
                    Ok(FinishedRow {
                        sequence: outbox.sequence,
                        game: convert::game_row(game)?,
                        at: Timestamp(outbox.finished_at_ms),
                    })
                })
                .collect()
        })
        .await
    }

    /// Stores a result correction in one transaction: the game row's result, status and count
    /// of corrections (only from `expected_corrections`, and only for a game that is over, else
    /// `Conflict`), the correction's own row, and the game's outbox row made anew with a new
    /// sequence, so that every consumer gets the corrected result after all it has seen.
    pub async fn correct_result(&self, c: &Correction) -> Result<(), StoreError> {
        let txn = self.commits.begin().await?;
        let expected = i32::try_from(c.expected_corrections).unwrap_or(i32::MAX);
        let done = games::Entity::update_many()
            .col_expr(
                games::Column::Outcome,
                Expr::value(c.result.outcome.map(convert::outcome_name)),
            )
            .col_expr(games::Column::Reason, Expr::value(c.result.reason.name()))
            .col_expr(games::Column::Status, Expr::value(c.result.status().name()))
            .col_expr(games::Column::Corrections, Expr::value(expected + 1))
            .col_expr(
                games::Column::Version,
                Expr::col(games::Column::Version).add(1),
            )
            .filter(games::Column::Id.eq(c.game_id.0))
            .filter(games::Column::Corrections.eq(expected))
            .filter(games::Column::Status.ne(Status::Active.name()))
            .exec(&txn)
            .await?;
        if done.rows_affected != 1 {
            return Err(StoreError::Conflict(format!(
                "game {} changed meanwhile (corrected by someone else, or not over)",
                c.game_id
            )));
        }
        let previous = c.previous;
        result_corrections::Entity::insert(result_corrections::ActiveModel {
            game_id: Set(c.game_id.0),
            number: Set(expected + 1),
            previous_outcome: Set(previous.and_then(|r| r.outcome).map(convert::outcome_name)),
            previous_reason: Set(previous.map(|r| r.reason.name().to_owned())),
            outcome: Set(c.result.outcome.map(convert::outcome_name)),
            reason: Set(c.result.reason.name().to_owned()),
            corrected_by: Set(c.by.clone()),
            note: Set(c.note.clone()),
            at_ms: Set(c.at.0),
        })
        .exec_without_returning(&txn)
        .await?;
        results_outbox::Entity::delete_many()
            .filter(results_outbox::Column::GameId.eq(c.game_id.0))
            .exec(&txn)
            .await?;
        results_outbox::Entity::insert(results_outbox::ActiveModel {
            game_id: Set(c.game_id.0),
            finished_at_ms: Set(c.at.0),
            ..Default::default()
        })
        .exec_without_returning(&txn)
        .await?;
        if txn.get_database_backend() == DbBackend::Postgres {
            notify_games(&txn, &[c.game_id.0]).await?;
        }
        txn.commit().await?;
        Ok(())
    }

    /// Number of turns stored in all (for tests and operators).
    pub async fn turn_count(&self) -> Result<u64, StoreError> {
        Ok(turns::Entity::find().count(&self.conn).await?)
    }
}

/// Outbox rows joined with their games (sea-orm relations are not declared: a small manual join).
trait FindAlsoGames {
    async fn find_also_related_games(
        self,
        db: &DatabaseConnection,
    ) -> Result<Vec<(results_outbox::Model, Option<games::Model>)>, DbErr>;
}

impl FindAlsoGames for sea_orm::Select<results_outbox::Entity> {
    async fn find_also_related_games(
        self,
        db: &DatabaseConnection,
    ) -> Result<Vec<(results_outbox::Model, Option<games::Model>)>, DbErr> {
        let outbox = self.all(db).await?;
        let ids: Vec<i64> = outbox.iter().map(|row| row.game_id).collect();
        let mut found = games::Entity::find()
            .filter(games::Column::Id.is_in(ids))
            .all(db)
            .await?;
        Ok(outbox
            .into_iter()
            .map(|row| {
                let game = found
                    .iter()
                    .position(|g| g.id == row.game_id)
                    .map(|i| found.swap_remove(i));
                (row, game)
            })
            .collect())
    }
}

/// The fields of a game row's change as [`update_games`] sends them, with their SQL types: the
/// key and guard, the live columns, then the columns that change when a game ends.
const GAME_FIELDS: [(&str, &str); 13] = [
    ("id", "bigint"),
    ("expected", "integer"),
    ("expected_version", "bigint"),
    ("position", "text"),
    ("turns_played", "integer"),
    ("white_ms", "bigint"),
    ("black_ms", "bigint"),
    ("clock_since", "bigint"),
    ("draw_offer_by", "text"),
    ("status", "text"),
    ("outcome", "text"),
    ("reason", "text"),
    ("finished_at_ms", "bigint"),
];

/// How many of [`GAME_FIELDS`] a write that leaves its game on sends: up to `draw_offer_by`.
const LIVE_FIELDS: usize = 9;

/// The fields of [`GAME_FIELDS`] that guard rather than assign.
const GUARD_FIELDS: usize = 3;

/// The live fields of [`GAME_FIELDS`] for one write.
type LiveRow<'a> = (
    i64,
    u32,
    Option<i64>,
    &'a str,
    u32,
    i64,
    i64,
    i64,
    Option<&'static str>,
);

/// What a batch's `UPDATE games` sets.
#[derive(Clone, Copy, PartialEq, Eq)]
enum GameColumns {
    /// The columns a turn or a draw offer changes (the game stays on). Status, result and end
    /// time are left alone: assigning even an unchanged value would rewrite the row's entry in
    /// the status index.
    Live,
    /// Every column that can change, for writes that end their game.
    All,
}

/// Every game row of a batch in one statement, each row guarded by the game's stored turn count
/// and active status, so that of two writers one commits and the other gets `Conflict`.
///
/// The batch travels as one JSON array parameter that the database unpacks (SQLite `jsonb_each`,
/// PostgreSQL `json_array_elements`): whatever its size, a batch is one statement of one shape,
/// so one round trip to the driver's thread and one prepared statement. Under load those round
/// trips, each waiting for a core, were most of a commit's time.
async fn update_games<C: ConnectionTrait>(
    db: &C,
    writes: &[&Write],
    columns: GameColumns,
) -> Result<(), StoreError> {
    if writes.is_empty() {
        return Ok(());
    }
    fn live<'a>(write: &&'a Write) -> LiveRow<'a> {
        (
            write.game_id.0,
            write.expected_turns,
            write.expected_version,
            &write.position,
            write.turns_played,
            write.clocks.white_ms,
            write.clocks.black_ms,
            write.clocks.since.0,
            write.draw_offer.map(side_name),
        )
    }
    let (batch, sent) = match columns {
        GameColumns::Live => (
            json_array(&writes.iter().map(live).collect::<Vec<_>>())?,
            LIVE_FIELDS,
        ),
        GameColumns::All => {
            let rows: Vec<_> = writes
                .iter()
                .map(|write| {
                    let (id, expected, version, position, turns, white, black, since, offer) =
                        live(write);
                    (
                        id,
                        expected,
                        version,
                        position,
                        turns,
                        white,
                        black,
                        since,
                        offer,
                        write.status.name(),
                        write
                            .result
                            .and_then(|r| r.outcome)
                            .map(convert::outcome_name),
                        write.result.map(|r| r.reason.name()),
                        write.finished_at.map(|t| t.0),
                    )
                })
                .collect();
            (json_array(&rows)?, GAME_FIELDS.len())
        }
    };
    let backend = db.get_database_backend();
    let fields = &GAME_FIELDS[..sent];
    let mut assignments: Vec<String> = fields[GUARD_FIELDS..]
        .iter()
        .map(|(c, _)| format!("{c} = v.{c}"))
        .collect();
    assignments.push("version = games.version + 1".to_owned());
    // The guard: the game is on and its log is where the writer saw it (plus this write's own
    // turn, inserted before). On SQLite the row's turn count may lag the log (plain turns do not
    // update the row), so the log itself is counted. SQLite would otherwise start from the
    // status index (every active game) and scan the batch for each; `+` keeps the status test
    // off the index, so that the batch drives and each game is found by its key.
    let guard = match backend {
        DbBackend::Sqlite => {
            "(SELECT coalesce(max(t.number), 0) FROM turns AS t WHERE t.game_id = games.id) \
             = v.turns_played AND +games.status = 'active'"
        }
        _ => {
            "games.turns_played = v.expected AND games.status = 'active' \
             AND (v.expected_version IS NULL OR games.version = v.expected_version)"
        }
    };
    let sql = format!(
        "UPDATE games SET {} FROM ({}) AS v WHERE games.id = v.id AND {guard}",
        assignments.join(", "),
        json_rows(backend, fields),
    );
    let done = db
        .execute_raw(Statement::from_sql_and_values(backend, sql, [batch]))
        .await?;
    if done.rows_affected() != writes.len() as u64 {
        return Err(StoreError::Conflict(format!(
            "{} of {} games were changed by another writer",
            writes.len() as u64 - done.rows_affected(),
            writes.len()
        )));
    }
    Ok(())
}

/// The PostgreSQL channel on which every committed change of a game is announced, as
/// `"<game id> <version>"`.
pub const GAMES_CHANNEL: &str = "hanniball_games";

/// Announces the changes of `games` when the transaction commits (PostgreSQL delivers a
/// transaction's notifications at its commit, and none if it rolls back).
async fn notify_games<C: ConnectionTrait>(db: &C, games: &[i64]) -> Result<(), StoreError> {
    if games.is_empty() {
        return Ok(());
    }
    let sql = format!(
        "SELECT pg_notify('{GAMES_CHANNEL}', CAST(g.id AS text) || ' ' || CAST(g.version AS text)) \
         FROM games AS g WHERE g.id IN \
         (SELECT CAST(value AS bigint) FROM json_array_elements_text(CAST($1 AS json)))"
    );
    db.execute_raw(Statement::from_sql_and_values(
        DbBackend::Postgres,
        sql,
        [json_array(games)?],
    ))
    .await?;
    Ok(())
}

/// A game row brought up to its log: on SQLite a plain turn is stored in the log alone (see
/// [`Store::commit_changes`]), so when the log's last turn is past the row's turn count, the live
/// columns are that turn's. The draw offer is not among them: every change of it updates the row.
fn log_tail(mut row: games::Model, last: Option<&turns::Model>) -> games::Model {
    if let Some(turn) = last
        && turn.number > row.turns_played
    {
        row.turns_played = turn.number;
        row.position.clone_from(&turn.position_after);
        row.white_ms = turn.white_ms;
        row.black_ms = turn.black_ms;
        row.clock_since = turn.played_at_ms;
    }
    row
}

/// `SELECT … FROM` the JSON array bound as the statement's only parameter: one row per element,
/// one named, typed column per `(name, SQL type)`, in element order.
fn json_rows(backend: DbBackend, fields: &[(&str, &str)]) -> String {
    let columns: Vec<String> = fields
        .iter()
        .enumerate()
        .map(|(i, (name, ty))| match backend {
            DbBackend::Postgres => format!("CAST(e ->> {i} AS {ty}) AS {name}"),
            _ => format!("value ->> {i} AS {name}"),
        })
        .collect();
    match backend {
        DbBackend::Postgres => format!(
            "SELECT {} FROM json_array_elements(CAST($1 AS json)) AS e",
            columns.join(", ")
        ),
        _ => format!("SELECT {} FROM jsonb_each(?)", columns.join(", ")),
    }
}

/// The batch as the JSON text [`json_rows`] unpacks.
fn json_array<T: serde::Serialize>(rows: &[T]) -> Result<sea_orm::Value, StoreError> {
    serde_json::to_string(rows)
        .map(sea_orm::Value::from)
        .map_err(|error| StoreError::Database(format!("a batch does not encode: {error}")))
}

/// A batch's turns in one INSERT (one JSON parameter, as in [`update_games`]); the
/// (game, number) key refuses a double.
async fn insert_turns<C: ConnectionTrait>(
    db: &C,
    turns: &[(GameId, &hanniball_arbiter::TurnRecord)],
) -> Result<(), StoreError> {
    if turns.is_empty() {
        return Ok(());
    }
    let rows: Vec<_> = turns
        .iter()
        .map(|(game, record)| {
            (
                game.0,
                record.number,
                side_name(record.side),
                &record.text,
                &record.position_after,
                record.white_ms,
                record.black_ms,
                record.played_at.0,
                record.spent_ms,
            )
        })
        .collect();
    let fields = [
        ("game_id", "bigint"),
        ("number", "integer"),
        ("side", "text"),
        ("text", "text"),
        ("position_after", "text"),
        ("white_ms", "bigint"),
        ("black_ms", "bigint"),
        ("played_at_ms", "bigint"),
        ("spent_ms", "bigint"),
    ];
    let backend = db.get_database_backend();
    let names = fields.map(|f| f.0).join(", ");
    // Only into a game that is on, right after its last stored turn (the key refuses a turn
    // stored twice; this refuses a gap and a turn after the end).
    let sql = format!(
        "INSERT INTO turns ({names}) SELECT {names} FROM ({}) AS v \
         WHERE EXISTS (SELECT 1 FROM games AS g WHERE g.id = v.game_id AND g.status = 'active') \
         AND (v.number = 1 OR EXISTS (SELECT 1 FROM turns AS p \
         WHERE p.game_id = v.game_id AND p.number = v.number - 1))",
        json_rows(backend, &fields)
    );
    let done = db
        .execute_raw(Statement::from_sql_and_values(
            backend,
            sql,
            [json_array(&rows)?],
        ))
        .await?;
    if done.rows_affected() != turns.len() as u64 {
        return Err(StoreError::Conflict(format!(
            "{} of {} turns were refused: their game is over or its log is elsewhere",
            turns.len() as u64 - done.rows_affected(),
            turns.len()
        )));
    }
    Ok(())
}

/// The outbox row of a write that finishes its game (nothing otherwise).
async fn insert_outbox<C: ConnectionTrait>(db: &C, write: &Write) -> Result<(), StoreError> {
    if write.status != Status::Active {
        let row = results_outbox::ActiveModel {
            game_id: Set(write.game_id.0),
            finished_at_ms: Set(write.finished_at.map_or(0, |t| t.0)),
            ..Default::default()
        };
        results_outbox::Entity::insert(row)
            .on_conflict(
                OnConflict::column(results_outbox::Column::GameId)
                    .do_nothing()
                    .to_owned(),
            )
            .exec_without_returning(db)
            .await?;
    }
    Ok(())
}

#[cfg(test)]
mod tests;
