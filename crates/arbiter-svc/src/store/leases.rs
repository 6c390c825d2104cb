//! Clock leases: which replica runs the clocks of which game (PostgreSQL only).

use hanniball_arbiter::GameId;
use hanniball_db::{StoreError, reread};
use sea_orm::{ConnectionTrait, DbBackend, Statement};

use super::Store;
use super::batch::json_array;

impl Store {
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
}
