//! The results outbox: finished games in finishing order for consumers, and result
//! corrections that put a game back at its end.

use hanniball_arbiter::{Status, Timestamp};
use hanniball_db::{StoreError, reread};
use sea_orm::ActiveValue::Set;
use sea_orm::sea_query::{Expr, ExprTrait};
use sea_orm::{
    ColumnTrait, ConnectionTrait, DatabaseConnection, DbBackend, DbErr, EntityTrait, QueryFilter,
    QueryOrder, QuerySelect, TransactionTrait,
};

use super::Store;
use super::batch::notify_games;
use super::changes::Correction;
use super::convert;
use super::entities::{games, result_corrections, results_outbox};
use super::rows::FinishedRow;

impl Store {
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
