//! Reading ratings and the log: one player, leaderboards, histories, head to head, cursors.

use hanniball_db::{MAX_PARAMS, Sql, StoreError, reread};
use hanniball_ids::{GameId, PlayerId, Timestamp};
use hanniball_rating::Score;
use sea_orm::ConnectionTrait;

use super::Store;
use super::columns::{
    EVENT_COLUMNS, RATING_COLUMNS, count, event_from, load_ratings, rating_from, score_from,
};
use super::model::{BoardFilter, EventRow, HeadToHead, RatingRow};

impl Store {
    /// The last results-outbox sequence `consumer` has handled (0: none).
    pub async fn rating_cursor(&self, consumer: &str) -> Result<i64, StoreError> {
        reread(|| async move {
            let mut sql = Sql::new(
                self.backend(),
                "SELECT sequence FROM rating_cursor WHERE consumer = ",
            );
            sql.bind(consumer);
            match self.conn.query_one_raw(sql.statement()).await? {
                Some(row) => Ok(row.try_get_by_index(0)?),
                None => Ok(0),
            }
        })
        .await
    }

    /// A player's rating on a ladder (`None`: no rated game or adjustment yet).
    pub async fn rating(
        &self,
        ladder: &str,
        player: PlayerId,
    ) -> Result<Option<RatingRow>, StoreError> {
        reread(async || Ok(self.ratings(ladder, &[player]).await?.pop())).await
    }

    /// The ratings of these players on a ladder (players without one are left out), in no order.
    pub async fn ratings(
        &self,
        ladder: &str,
        players: &[PlayerId],
    ) -> Result<Vec<RatingRow>, StoreError> {
        reread(|| async move {
            let keys: Vec<(String, PlayerId)> =
                players.iter().map(|p| (ladder.to_owned(), *p)).collect();
            Ok(load_ratings(&self.conn, &keys)
                .await?
                .into_iter()
                .map(|((_, player), (rating, last_event))| RatingRow {
                    player,
                    name: None,
                    rating,
                    last_event,
                })
                .collect())
        })
        .await
    }

    /// How many players on a ladder have a rating strictly above `rating`.
    pub async fn players_above(&self, ladder: &str, rating: f64) -> Result<u64, StoreError> {
        reread(|| async move {
            let mut sql = Sql::new(
                self.backend(),
                "SELECT COUNT(*) FROM ratings WHERE ladder = ",
            );
            sql.bind(ladder).push(" AND rating > ").bind(rating);
            let row = self
                .conn
                .query_one_raw(sql.statement())
                .await?
                .ok_or_else(|| StoreError::Database("COUNT gave no row".to_owned()))?;
            let n: i64 = row.try_get_by_index(0)?;
            Ok(u64::try_from(n).unwrap_or(0))
        })
        .await
    }

    /// A leaderboard page: ratings on a ladder by rating (highest first), then player id, after
    /// the keyset `after` (the last row of the previous page). Names are Accounts': none here.
    pub async fn leaderboard(
        &self,
        ladder: &str,
        filter: BoardFilter,
        after: Option<(f64, PlayerId)>,
        limit: u64,
    ) -> Result<Vec<RatingRow>, StoreError> {
        reread(|| async move {
            let mut sql = Sql::new(
                self.backend(),
                &format!(
                    "SELECT r.player_id, r.last_event, {} FROM ratings r WHERE r.ladder = ",
                    RATING_COLUMNS
                        .split(", ")
                        .map(|c| format!("r.{c}"))
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
            );
            sql.bind(ladder);
            if let Some((rating, player)) = after {
                // `rating <=` bounds the index range; the OR only sorts out the ties.
                sql.push(" AND r.rating <= ")
                    .bind(rating)
                    .push(" AND (r.rating < ")
                    .bind(rating)
                    .push(" OR r.player_id > ")
                    .bind(player.0)
                    .push(")");
            }
            if filter.min_games > 0 {
                sql.push(" AND r.games >= ").bind(count(filter.min_games));
            }
            if let Some(since) = filter.active_since {
                sql.push(" AND r.last_played >= ").bind(since);
            }
            sql.push(" ORDER BY r.rating DESC, r.player_id ASC LIMIT ")
                .bind(i64::try_from(limit).unwrap_or(i64::MAX));
            self.conn
                .query_all_raw(sql.statement())
                .await?
                .iter()
                .map(|row| {
                    Ok(RatingRow {
                        player: PlayerId(row.try_get_by_index(0)?),
                        last_event: row.try_get_by_index(1)?,
                        rating: rating_from(row, 2)?,
                        name: None,
                    })
                })
                .collect()
        })
        .await
    }

    /// A player's events on a ladder, newest first, with sequences below `before`.
    pub async fn rating_history(
        &self,
        ladder: &str,
        player: PlayerId,
        before: Option<i64>,
        limit: u64,
    ) -> Result<Vec<EventRow>, StoreError> {
        reread(|| async move {
            let limit = i64::try_from(limit).unwrap_or(i64::MAX);
            let before = before.unwrap_or(i64::MAX);
            let mut sql = Sql::new(self.backend(), "SELECT * FROM (");
            for (i, column) in ["first_player_id", "second_player_id"].iter().enumerate() {
                if i > 0 {
                    sql.push(") AS a UNION ALL SELECT * FROM (");
                }
                sql.push(&format!(
                    "SELECT {EVENT_COLUMNS} FROM rating_events WHERE ladder = "
                ))
                .bind(ladder)
                .push(&format!(" AND {column} = "))
                .bind(player.0)
                .push(" AND sequence < ")
                .bind(before)
                .push(" ORDER BY sequence DESC LIMIT ")
                .bind(limit);
            }
            sql.push(") AS b ORDER BY sequence DESC LIMIT ").bind(limit);
            self.conn
                .query_all_raw(sql.statement())
                .await?
                .iter()
                .map(event_from)
                .collect()
        })
        .await
    }

    /// The games between `a` and `b` on a ladder, from `a`'s point of view.
    pub async fn head_to_head(
        &self,
        ladder: &str,
        a: PlayerId,
        b: PlayerId,
    ) -> Result<HeadToHead, StoreError> {
        reread(|| async move {
            let mut sql = Sql::new(
                self.backend(),
                "SELECT first_player_id, score_half_points, COUNT(*), MAX(at_ms) FROM rating_events \
                 WHERE ladder = ",
            );
            sql.bind(ladder)
                .push(" AND kind = 'game' AND ((first_player_id = ")
                .bind(a.0)
                .push(" AND second_player_id = ")
                .bind(b.0)
                .push(") OR (first_player_id = ")
                .bind(b.0)
                .push(" AND second_player_id = ")
                .bind(a.0)
                .push(")) GROUP BY first_player_id, score_half_points");
            let mut record = HeadToHead::default();
            for row in self.conn.query_all_raw(sql.statement()).await? {
                let first: i64 = row.try_get_by_index(0)?;
                let score = score_from(0, row.try_get_by_index(1)?)?;
                let n = u32::try_from(row.try_get_by_index::<i64>(2)?).unwrap_or(u32::MAX);
                let last: i64 = row.try_get_by_index(3)?;
                let score = if first == a.0 { score } else { score.reverse() };
                match score {
                    Score::Win => record.wins += n,
                    Score::Draw => record.draws += n,
                    Score::Loss => record.losses += n,
                }
                record.last_played = Some(Timestamp(
                    record.last_played.map_or(last, |t| t.0.max(last)),
                ));
            }
            Ok(record)
        })
        .await
    }

    /// The recorded events of these games (unknown games are left out), in log order.
    pub async fn rating_events_of_games(
        &self,
        games: &[GameId],
    ) -> Result<Vec<EventRow>, StoreError> {
        reread(|| async move {
            let mut found = Vec::new();
            for chunk in games.chunks(MAX_PARAMS) {
                let mut sql = Sql::new(
                    self.backend(),
                    &format!("SELECT {EVENT_COLUMNS} FROM rating_events WHERE game_id IN "),
                );
                sql.bind_list(chunk.iter().map(|g| g.0));
                for row in self.conn.query_all_raw(sql.statement()).await? {
                    found.push(event_from(&row)?);
                }
            }
            found.sort_by_key(|e| e.sequence);
            Ok(found)
        })
        .await
    }

    /// Adjustments, newest first, optionally of one ladder and one player, below a sequence.
    pub async fn rating_adjustments(
        &self,
        ladder: Option<&str>,
        player: Option<PlayerId>,
        before: Option<i64>,
        limit: u64,
    ) -> Result<Vec<EventRow>, StoreError> {
        reread(|| async move {
            let mut sql = Sql::new(
                self.backend(),
                &format!("SELECT {EVENT_COLUMNS} FROM rating_events WHERE kind = 'adjustment'"),
            );
            if let Some(ladder) = ladder {
                sql.push(" AND ladder = ").bind(ladder);
            }
            if let Some(player) = player {
                sql.push(" AND first_player_id = ").bind(player.0);
            }
            if let Some(before) = before {
                sql.push(" AND sequence < ").bind(before);
            }
            sql.push(" ORDER BY sequence DESC LIMIT ")
                .bind(i64::try_from(limit).unwrap_or(i64::MAX));
            self.conn
                .query_all_raw(sql.statement())
                .await?
                .iter()
                .map(event_from)
                .collect()
        })
        .await
    }
}
