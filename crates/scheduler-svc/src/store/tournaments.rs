//! A tournament's own row: created (or imported whole), read, listed and searched, its details
//! set, finished, deleted before the start.

use sea_orm::sea_query::{Alias, Expr};
use sea_orm::{ColumnTrait, ConnectionTrait, EntityTrait, QueryFilter, QueryOrder, QuerySelect};

use hanniball_db::{Sql, reread, search};
use hanniball_ids::PlayerId;

use super::entities::{boards, tournament_players, tournaments};
use super::organisers::insert_organiser;
use super::{Store, StoreError, bump, convert};
use crate::details::Details;
use crate::domain::{Board, Entrant, Tournament, TournamentStatus};

/// Inserts a tournament's row (its id from the database) with its search key; returns the id.
async fn insert_tournament<C: ConnectionTrait>(db: &C, t: &Tournament) -> Result<i64, StoreError> {
    let mut row: tournaments::ActiveModel = convert::tournament_row(t).into();
    row.id = sea_orm::ActiveValue::NotSet;
    let id = tournaments::Entity::insert(row)
        .exec(db)
        .await?
        .last_insert_id;
    // Like `version`, a column the entity leaves out: the store's own, kept from the name.
    let mut sql = Sql::new(
        db.get_database_backend(),
        "UPDATE tournaments SET search_key = ",
    );
    sql.bind(search::search_key(&t.name));
    sql.push(" WHERE id = ");
    sql.bind(id);
    db.execute_raw(sql.statement()).await?;
    Ok(id)
}

impl Store {
    /// Tournament `id`'s version (`None`: no such tournament). Read it *before* loading the
    /// tournament: the copy is then at least as new as the version, and stays current while the
    /// version does not change.
    pub async fn tournament_version(&self, id: i64) -> Result<Option<i64>, StoreError> {
        reread(|| async move {
            let mut sql = Sql::new(
                self.conn.get_database_backend(),
                "SELECT version FROM tournaments WHERE id = ",
            );
            sql.bind(id);
            let row = self.conn.query_one_raw(sql.statement()).await?;
            Ok(match row {
                Some(row) => Some(row.try_get_by_index(0)?),
                None => None,
            })
        })
        .await
    }

    /// Stores a new tournament (its `id` is assigned) with the search key of its name and its
    /// first organiser (`None`: the admin's alone); returns the id.
    pub async fn create_tournament(
        &self,
        t: &Tournament,
        owner: Option<PlayerId>,
    ) -> Result<i64, StoreError> {
        let txn = self.plumbing.begin_write().await?;
        let id = insert_tournament(&txn, t).await?;
        if let Some(owner) = owner {
            insert_organiser(&txn, id, owner).await?;
        }
        txn.commit().await?;
        Ok(id)
    }

    /// Sets tournament `id`'s details: its new version when they changed, `None` when they were
    /// these already (or there is no such tournament).
    pub async fn set_details(&self, id: i64, details: &Details) -> Result<Option<i64>, StoreError> {
        let details = details.to_json();
        let txn = self.plumbing.begin_write().await?;
        let Some(t) = tournaments::Entity::find_by_id(id).one(&txn).await? else {
            return Ok(None);
        };
        if t.details == details {
            return Ok(None);
        }
        let mut sql = Sql::new(
            txn.get_database_backend(),
            "UPDATE tournaments SET details = ",
        );
        sql.bind(details);
        sql.push(" WHERE id = ");
        sql.bind(id);
        txn.execute_raw(sql.statement()).await?;
        let version = bump(&txn, id).await?;
        txn.commit().await?;
        Ok(Some(version))
    }

    /// Deletes a tournament that has not started, with its entries, byes and organisers: false
    /// when there is none, or it has started (the status is checked in the same transaction).
    pub async fn delete_tournament(&self, id: i64) -> Result<bool, StoreError> {
        let txn = self.plumbing.begin_write().await?;
        let Some(t) = tournaments::Entity::find_by_id(id).one(&txn).await? else {
            return Ok(false);
        };
        if convert::status(&t.status)? != TournamentStatus::Registration {
            return Ok(false);
        }
        for table in [
            "bye_requests",
            "tournament_players",
            "tournament_organisers",
            "forbidden_pairs",
        ] {
            let mut sql = Sql::new(
                txn.get_database_backend(),
                &format!("DELETE FROM {table} WHERE tournament_id = "),
            );
            sql.bind(id);
            txn.execute_raw(sql.statement()).await?;
        }
        tournaments::Entity::delete_by_id(id).exec(&txn).await?;
        txn.commit().await?;
        Ok(true)
    }

    /// One tournament.
    pub async fn tournament(&self, id: i64) -> Result<Option<Tournament>, StoreError> {
        let row =
            reread(async || Ok(tournaments::Entity::find_by_id(id).one(&self.conn).await?)).await?;
        row.map(convert::tournament).transpose()
    }

    /// Tournaments, newest first, optionally with one status, and only those whose names hold
    /// every word of `name` (case ignored, in any script: [`search`]; no words: any name), and
    /// (`entrant`) only those that player entered.
    pub async fn tournaments(
        &self,
        status: Option<TournamentStatus>,
        name: &search::Words,
        entrant: Option<PlayerId>,
        limit: u64,
    ) -> Result<Vec<Tournament>, StoreError> {
        let rows = reread(|| async move {
            let mut query = tournaments::Entity::find().order_by_desc(tournaments::Column::Id);
            if let Some(status) = status {
                query = query.filter(tournaments::Column::Status.eq(status.name()));
            }
            if !name.is_empty() {
                query = query.filter(name.condition(Alias::new("search_key")));
            }
            if let Some(player) = entrant {
                query = query.filter(
                    tournaments::Column::Id.in_subquery(
                        sea_orm::sea_query::Query::select()
                            .column(tournament_players::Column::TournamentId)
                            .from(tournament_players::Entity)
                            .and_where(tournament_players::Column::PlayerId.eq(player.0))
                            .to_owned(),
                    ),
                );
            }
            Ok(query.limit(limit).all(&self.conn).await?)
        })
        .await?;
        rows.into_iter().map(convert::tournament).collect()
    }

    /// A tournament started elsewhere (a TRF file), in one transaction: its row as given (status
    /// and current round included), its entrants with their start ranks and its boards with
    /// their results. Returns its id; the entrants' and boards' `tournament_id` are ignored.
    pub async fn import_tournament(
        &self,
        t: &Tournament,
        entrants: &[Entrant],
        rows: &[Board],
        owner: Option<PlayerId>,
    ) -> Result<i64, StoreError> {
        let txn = self.plumbing.begin_write().await?;
        let id = insert_tournament(&txn, t).await?;
        if let Some(owner) = owner {
            insert_organiser(&txn, id, owner).await?;
        }
        for chunk in entrants.chunks(500) {
            let active: Vec<tournament_players::ActiveModel> = chunk
                .iter()
                .map(|e| {
                    let mut row = convert::entrant_row(e);
                    row.tournament_id = id;
                    row.into()
                })
                .collect();
            tournament_players::Entity::insert_many(active)
                .exec_without_returning(&txn)
                .await?;
        }
        for chunk in rows.chunks(1_000) {
            let active: Vec<boards::ActiveModel> = chunk
                .iter()
                .map(|b| {
                    let mut row = convert::board_row(b);
                    row.tournament_id = id;
                    row.into()
                })
                .collect();
            boards::Entity::insert_many(active)
                .exec_without_returning(&txn)
                .await?;
        }
        txn.commit().await?;
        Ok(id)
    }

    /// Marks a tournament finished (once its last round is complete).
    pub async fn finish_tournament(&self, tournament: i64) -> Result<bool, StoreError> {
        let txn = self.plumbing.begin_write().await?;
        let done = tournaments::Entity::update_many()
            .col_expr(
                tournaments::Column::Status,
                Expr::value(TournamentStatus::Finished.name()),
            )
            .filter(tournaments::Column::Id.eq(tournament))
            .filter(tournaments::Column::Status.eq(TournamentStatus::Running.name()))
            .exec(&txn)
            .await?;
        if done.rows_affected == 1 {
            bump(&txn, tournament).await?;
        }
        txn.commit().await?;
        Ok(done.rows_affected == 1)
    }
}
