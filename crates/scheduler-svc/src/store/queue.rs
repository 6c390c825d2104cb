//! The matchmaking queue and the matches it made; the scheduler's cursor in the arbiter's
//! results.

use sea_orm::ActiveValue::Set;
use sea_orm::sea_query::{Expr, ExprTrait, OnConflict};
use sea_orm::{ColumnTrait, EntityTrait, QueryFilter, QueryOrder};

use hanniball_db::reread;
use hanniball_ids::{GameId, PlayerId};

use super::entities::{matches, queue_entries, scheduler_cursor};
use super::{Store, StoreError, convert};
use crate::domain::{Match, QueueEntry};

impl Store {
    /// Where the scheduler is in the results outbox (0 at first).
    pub async fn scheduler_cursor(&self) -> Result<i64, StoreError> {
        reread(|| async move {
            Ok(scheduler_cursor::Entity::find_by_id(1)
                .one(&self.conn)
                .await?
                .map_or(0, |row| row.sequence))
        })
        .await
    }

    /// Moves the scheduler's cursor forward (never back).
    pub async fn set_scheduler_cursor(&self, sequence: i64) -> Result<(), StoreError> {
        let row = scheduler_cursor::ActiveModel {
            id: Set(1),
            sequence: Set(sequence),
        };
        scheduler_cursor::Entity::insert(row)
            .on_conflict(
                OnConflict::column(scheduler_cursor::Column::Id)
                    .update_column(scheduler_cursor::Column::Sequence)
                    .to_owned(),
            )
            .exec_without_returning(self.plumbing.commits())
            .await?;
        Ok(())
    }

    /// Puts a player in the queue, or updates what they wait for (keeping their waiting time when
    /// nothing changed).
    pub async fn join_queue(&self, entry: &QueueEntry) -> Result<(), StoreError> {
        let existing = queue_entries::Entity::find_by_id(entry.player.0)
            .one(&self.conn)
            .await?;
        let row = convert::queue_row(entry);
        if let Some(old) = existing {
            if (
                &old.kind,
                &old.ruleset,
                old.initial_ms,
                old.increment_ms,
                old.rated,
            ) == (
                &row.kind,
                &row.ruleset,
                row.initial_ms,
                row.increment_ms,
                row.rated,
            ) {
                return Ok(());
            }
            queue_entries::Entity::delete_by_id(old.player_id)
                .exec(self.plumbing.commits())
                .await?;
        }
        let active: queue_entries::ActiveModel = row.into();
        queue_entries::Entity::insert(active)
            .exec_without_returning(self.plumbing.commits())
            .await?;
        Ok(())
    }

    /// Takes a player out of the queue; false if they were not waiting.
    pub async fn leave_queue(&self, player: PlayerId) -> Result<bool, StoreError> {
        Ok(queue_entries::Entity::delete_by_id(player.0)
            .exec(self.plumbing.commits())
            .await?
            .rows_affected
            == 1)
    }

    /// Everyone waiting, longest first.
    pub async fn queue(&self) -> Result<Vec<QueueEntry>, StoreError> {
        let rows = reread(|| async move {
            Ok(queue_entries::Entity::find()
                .order_by_asc(queue_entries::Column::JoinedAtMs)
                .all(&self.conn)
                .await?)
        })
        .await?;
        rows.into_iter().map(convert::queue_entry).collect()
    }

    /// Takes both players out of the queue and records their match, in one transaction; `None`
    /// when either has left (or was matched by another replica) meanwhile.
    pub async fn make_match(&self, made: &Match) -> Result<Option<i64>, StoreError> {
        let txn = self.plumbing.begin_write().await?;
        let done = queue_entries::Entity::delete_many()
            .filter(queue_entries::Column::PlayerId.is_in([made.white.0, made.black.0]))
            .exec(&txn)
            .await?;
        if done.rows_affected != 2 {
            txn.rollback().await?;
            return Ok(None);
        }
        let mut active: matches::ActiveModel = convert::match_row(made).into();
        active.id = sea_orm::ActiveValue::NotSet;
        let id = matches::Entity::insert(active)
            .exec(&txn)
            .await?
            .last_insert_id;
        txn.commit().await?;
        Ok(Some(id))
    }

    /// Matches whose game is not created yet.
    pub async fn matches_without_game(&self) -> Result<Vec<Match>, StoreError> {
        let rows = reread(|| async move {
            Ok(matches::Entity::find()
                .filter(matches::Column::GameId.is_null())
                .all(&self.conn)
                .await?)
        })
        .await?;
        rows.into_iter().map(convert::match_of).collect()
    }

    /// Links a match to its game.
    pub async fn set_match_game(&self, id: i64, game: GameId) -> Result<(), StoreError> {
        matches::Entity::update_many()
            .col_expr(matches::Column::GameId, Expr::value(game.0))
            .filter(matches::Column::Id.eq(id))
            .exec(self.plumbing.commits())
            .await?;
        Ok(())
    }

    /// A player's most recent match, if any.
    pub async fn last_match(&self, player: PlayerId) -> Result<Option<Match>, StoreError> {
        let row = reread(|| async move {
            Ok(matches::Entity::find()
                .filter(
                    matches::Column::WhiteId
                        .eq(player.0)
                        .or(matches::Column::BlackId.eq(player.0)),
                )
                .order_by_desc(matches::Column::Id)
                .one(&self.conn)
                .await?)
        })
        .await?;
        row.map(convert::match_of).transpose()
    }

    /// How many times a player had White and Black in matches.
    pub async fn match_colours(&self, player: PlayerId) -> Result<(u64, u64), StoreError> {
        reread(|| async move {
            use sea_orm::PaginatorTrait;
            let white = matches::Entity::find()
                .filter(matches::Column::WhiteId.eq(player.0))
                .count(&self.conn)
                .await?;
            let black = matches::Entity::find()
                .filter(matches::Column::BlackId.eq(player.0))
                .count(&self.conn)
                .await?;
            Ok((white, black))
        })
        .await
    }
}
