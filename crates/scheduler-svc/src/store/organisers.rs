//! Who organises a tournament, and the pairs of its entrants who must not meet: plain SQL on
//! tables of ids.

use std::collections::HashMap;

use sea_orm::{ConnectionTrait, EntityTrait};

use hanniball_db::{Sql, reread};
use hanniball_ids::PlayerId;

use super::entities::tournaments;
use super::{Store, StoreError, bump};

/// Makes `player` an organiser of `tournament` (in `db`'s transaction).
pub(super) async fn insert_organiser<C: ConnectionTrait>(
    db: &C,
    tournament: i64,
    player: PlayerId,
) -> Result<(), StoreError> {
    let mut sql = Sql::new(
        db.get_database_backend(),
        "INSERT INTO tournament_organisers (tournament_id, player_id) VALUES (",
    );
    sql.bind(tournament);
    sql.push(", ");
    sql.bind(player.0);
    sql.push(")");
    db.execute_raw(sql.statement()).await?;
    Ok(())
}

impl Store {
    /// Whether `player` organises tournament `id`.
    pub async fn is_organiser(&self, id: i64, player: PlayerId) -> Result<bool, StoreError> {
        reread(|| async move {
            let mut sql = Sql::new(
                self.conn.get_database_backend(),
                "SELECT 1 FROM tournament_organisers WHERE tournament_id = ",
            );
            sql.bind(id);
            sql.push(" AND player_id = ");
            sql.bind(player.0);
            Ok(self.conn.query_one_raw(sql.statement()).await?.is_some())
        })
        .await
    }

    /// The organisers of each of `ids` (by player id; a tournament without any is left out).
    pub async fn organisers(&self, ids: &[i64]) -> Result<HashMap<i64, Vec<PlayerId>>, StoreError> {
        let mut found: HashMap<i64, Vec<PlayerId>> = HashMap::new();
        for chunk in ids.chunks(500) {
            let rows = reread(|| async move {
                let mut sql = Sql::new(
                    self.conn.get_database_backend(),
                    "SELECT tournament_id, player_id FROM tournament_organisers WHERE tournament_id IN (",
                );
                for (i, id) in chunk.iter().enumerate() {
                    if i > 0 {
                        sql.push(", ");
                    }
                    sql.bind(*id);
                }
                sql.push(") ORDER BY tournament_id, player_id");
                Ok(self.conn.query_all_raw(sql.statement()).await?)
            })
            .await?;
            for row in rows {
                let (t, p): (i64, i64) = (row.try_get_by_index(0)?, row.try_get_by_index(1)?);
                found.entry(t).or_default().push(PlayerId(p));
            }
        }
        Ok(found)
    }

    /// Adds an organiser to tournament `id`: whether it was not one already; `None` when there is
    /// no such tournament (a row for an id not yet used would hand its player that tournament).
    pub async fn add_organiser(
        &self,
        id: i64,
        player: PlayerId,
    ) -> Result<Option<bool>, StoreError> {
        let txn = self.plumbing.begin_write().await?;
        if tournaments::Entity::find_by_id(id)
            .one(&txn)
            .await?
            .is_none()
        {
            return Ok(None);
        }
        let mut sql = Sql::new(
            self.conn.get_database_backend(),
            "SELECT 1 FROM tournament_organisers WHERE tournament_id = ",
        );
        sql.bind(id);
        sql.push(" AND player_id = ");
        sql.bind(player.0);
        if txn.query_one_raw(sql.statement()).await?.is_some() {
            return Ok(Some(false));
        }
        insert_organiser(&txn, id, player).await?;
        txn.commit().await?;
        Ok(Some(true))
    }

    /// Removes an organiser from tournament `id`: whether it was one.
    pub async fn remove_organiser(&self, id: i64, player: PlayerId) -> Result<bool, StoreError> {
        let mut sql = Sql::new(
            self.conn.get_database_backend(),
            "DELETE FROM tournament_organisers WHERE tournament_id = ",
        );
        sql.bind(id);
        sql.push(" AND player_id = ");
        sql.bind(player.0);
        Ok(self
            .conn
            .execute_raw(sql.statement())
            .await?
            .rows_affected()
            > 0)
    }

    /// The pairs of entrants of tournament `id` who must not meet (smaller id first), in order.
    pub async fn forbidden_pairs(&self, id: i64) -> Result<Vec<(PlayerId, PlayerId)>, StoreError> {
        reread(|| async move {
            let mut sql = Sql::new(
                self.conn.get_database_backend(),
                "SELECT first_id, second_id FROM forbidden_pairs WHERE tournament_id = ",
            );
            sql.bind(id);
            sql.push(" ORDER BY first_id, second_id");
            let rows = self.conn.query_all_raw(sql.statement()).await?;
            rows.iter()
                .map(|row| {
                    Ok((
                        PlayerId(row.try_get_by_index(0)?),
                        PlayerId(row.try_get_by_index(1)?),
                    ))
                })
                .collect()
        })
        .await
    }

    /// Forbids (or allows again) the pair `first < second` in tournament `id`: the tournament's
    /// new version when something changed, `None` when nothing did.
    pub async fn set_forbidden_pair(
        &self,
        id: i64,
        first: PlayerId,
        second: PlayerId,
        forbidden: bool,
    ) -> Result<Option<i64>, StoreError> {
        let txn = self.plumbing.begin_write().await?;
        let backend = txn.get_database_backend();
        let pair = |sql: &mut Sql| {
            sql.bind(id);
            sql.push(" AND first_id = ");
            sql.bind(first.0);
            sql.push(" AND second_id = ");
            sql.bind(second.0);
        };
        let mut sql = Sql::new(
            backend,
            "SELECT 1 FROM forbidden_pairs WHERE tournament_id = ",
        );
        pair(&mut sql);
        let present = txn.query_one_raw(sql.statement()).await?.is_some();
        if present == forbidden {
            return Ok(None);
        }
        let sql = if forbidden {
            let mut sql = Sql::new(
                backend,
                "INSERT INTO forbidden_pairs (tournament_id, first_id, second_id) VALUES (",
            );
            sql.bind(id);
            sql.push(", ");
            sql.bind(first.0);
            sql.push(", ");
            sql.bind(second.0);
            sql.push(")");
            sql
        } else {
            let mut sql = Sql::new(
                backend,
                "DELETE FROM forbidden_pairs WHERE tournament_id = ",
            );
            pair(&mut sql);
            sql
        };
        txn.execute_raw(sql.statement()).await?;
        let version = bump(&txn, id).await?;
        txn.commit().await?;
        Ok(Some(version))
    }
}
