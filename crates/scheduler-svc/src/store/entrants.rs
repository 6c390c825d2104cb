//! A tournament's entrants and the byes they ask for ahead.

use sea_orm::sea_query::{Expr, ExprTrait, OnConflict};
use sea_orm::{ColumnTrait, EntityTrait, QueryFilter, QueryOrder};

use hanniball_db::reread;
use hanniball_ids::PlayerId;

use super::entities::{bye_requests, tournament_players, tournaments};
use super::{Store, StoreError, bump, convert};
use crate::domain::{ByeRequest, Entrant, TournamentStatus};

impl Store {
    /// The players of a tournament (by start rank once it has started, else by registration).
    pub async fn entrants(&self, tournament: i64) -> Result<Vec<Entrant>, StoreError> {
        let rows = reread(|| async move {
            Ok(tournament_players::Entity::find()
                .filter(tournament_players::Column::TournamentId.eq(tournament))
                .order_by_asc(tournament_players::Column::StartRank)
                .order_by_asc(tournament_players::Column::PlayerId)
                .all(&self.conn)
                .await?)
        })
        .await?;
        Ok(rows.into_iter().map(convert::entrant).collect())
    }

    /// Registers a player; `Conflict` when already registered. Returns the tournament's new
    /// version.
    pub async fn add_entrant(&self, entrant: &Entrant) -> Result<i64, StoreError> {
        let tournament = entrant.tournament_id;
        let row: tournament_players::ActiveModel = convert::entrant_row(entrant).into();
        let txn = self.plumbing.begin_write().await?;
        tournament_players::Entity::insert(row)
            .exec_without_returning(&txn)
            .await?;
        let version = bump(&txn, tournament).await?;
        txn.commit().await?;
        Ok(version)
    }

    /// Registers players in one transaction, all or none (`Conflict` when one is already
    /// registered); returns the tournament's new version.
    pub async fn add_entrants(&self, entrants: &[Entrant]) -> Result<Option<i64>, StoreError> {
        let Some(tournament) = entrants.first().map(|e| e.tournament_id) else {
            return Ok(None);
        };
        let txn = self.plumbing.begin_write().await?;
        // A few hundred rows a statement: within every backend's limit of bound values.
        for chunk in entrants.chunks(500) {
            let active: Vec<tournament_players::ActiveModel> = chunk
                .iter()
                .map(|e| convert::entrant_row(e).into())
                .collect();
            tournament_players::Entity::insert_many(active)
                .exec_without_returning(&txn)
                .await?;
        }
        let version = bump(&txn, tournament).await?;
        txn.commit().await?;
        Ok(Some(version))
    }

    /// Removes a player's entry, and the byes it asked for, while the tournament has not
    /// started: true if it was removed, false if there was no entry or the tournament has
    /// started (the status is checked in the same statement).
    pub async fn remove_entrant(
        &self,
        tournament: i64,
        player: PlayerId,
    ) -> Result<bool, StoreError> {
        let txn = self.plumbing.begin_write().await?;
        let in_registration = sea_orm::sea_query::Query::select()
            .column(tournaments::Column::Id)
            .from(tournaments::Entity)
            .and_where(tournaments::Column::Id.eq(tournament))
            .and_where(tournaments::Column::Status.eq(TournamentStatus::Registration.name()))
            .to_owned();
        let done = tournament_players::Entity::delete_many()
            .filter(tournament_players::Column::TournamentId.eq(tournament))
            .filter(tournament_players::Column::PlayerId.eq(player.0))
            .filter(tournament_players::Column::TournamentId.in_subquery(in_registration))
            .exec(&txn)
            .await?;
        if done.rows_affected == 1 {
            bye_requests::Entity::delete_many()
                .filter(bye_requests::Column::TournamentId.eq(tournament))
                .filter(bye_requests::Column::PlayerId.eq(player.0))
                .exec(&txn)
                .await?;
            bump(&txn, tournament).await?;
        }
        txn.commit().await?;
        Ok(done.rows_affected == 1)
    }

    /// Withdraws a player from `round` on (the earliest withdrawal stands); false if unknown.
    pub async fn withdraw_entrant(
        &self,
        tournament: i64,
        player: PlayerId,
        round: i32,
    ) -> Result<bool, StoreError> {
        let txn = self.plumbing.begin_write().await?;
        let done = tournament_players::Entity::update_many()
            .col_expr(
                tournament_players::Column::WithdrawnFrom,
                Expr::value(round),
            )
            .filter(tournament_players::Column::TournamentId.eq(tournament))
            .filter(tournament_players::Column::PlayerId.eq(player.0))
            .filter(
                tournament_players::Column::WithdrawnFrom
                    .is_null()
                    .or(tournament_players::Column::WithdrawnFrom.gt(round)),
            )
            .exec(&txn)
            .await?;
        if done.rows_affected == 1 {
            bump(&txn, tournament).await?;
        }
        txn.commit().await?;
        Ok(done.rows_affected == 1)
    }

    /// Stores (or replaces) a bye request.
    pub async fn request_bye(&self, bye: &ByeRequest) -> Result<(), StoreError> {
        let tournament = bye.tournament_id;
        let active: bye_requests::ActiveModel = convert::bye_row(bye).into();
        let txn = self.plumbing.begin_write().await?;
        bye_requests::Entity::insert(active)
            .on_conflict(
                OnConflict::columns([
                    bye_requests::Column::TournamentId,
                    bye_requests::Column::PlayerId,
                    bye_requests::Column::Round,
                ])
                .update_column(bye_requests::Column::Points)
                .to_owned(),
            )
            .exec_without_returning(&txn)
            .await?;
        bump(&txn, tournament).await?;
        txn.commit().await?;
        Ok(())
    }

    /// The bye requests of a tournament.
    pub async fn bye_requests(&self, tournament: i64) -> Result<Vec<ByeRequest>, StoreError> {
        let rows = reread(|| async move {
            Ok(bye_requests::Entity::find()
                .filter(bye_requests::Column::TournamentId.eq(tournament))
                .all(&self.conn)
                .await?)
        })
        .await?;
        rows.into_iter().map(convert::bye).collect()
    }
}
