//! Reading games back: by idempotency key, one game with (part of) its turn log, lists.

use hanniball_arbiter::{GameId, PlayerId, Status, Stored};
use hanniball_db::{StoreError, reread};
use sea_orm::sea_query::{Expr, ExprTrait};
use sea_orm::{
    ColumnTrait, EntityTrait, PaginatorTrait, QueryFilter, QueryOrder, QuerySelect,
    TransactionTrait,
};

use super::Store;
use super::convert;
use super::entities::{games, turns};
use super::rows::GameRow;

impl Store {
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

    /// A game with its whole turn log, ready for [`hanniball_arbiter::Match::restore`].
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

    /// Number of turns stored in all (for tests and operators).
    pub async fn turn_count(&self) -> Result<u64, StoreError> {
        Ok(turns::Entity::find().count(&self.conn).await?)
    }
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
