//! Replaying the log: a bulk import of events, and the rebuild that recomputes every rating
//! from them.

use std::collections::HashMap;

use hanniball_db::{MAX_PARAMS, Sql, StoreError};
use hanniball_ids::{PlayerId, Timestamp};
use hanniball_rating::Rating;
use sea_orm::{ConnectionTrait, DbBackend, Statement, Value};

use super::Store;
use super::columns::{
    EVENT_COLUMNS, EVENT_INSERT, EVENT_WIDTH, RATING_COLUMNS, event_from, event_values,
    points_values, rating_from, upsert_ratings,
};
use super::model::{Change, Effect, NewEvent, Points, Rater, RebuildReport, points};

impl Store {
    /// Appends events to the log without computing ratings (their before/after stay empty and no
    /// rating changes): a bulk import, for example of another system's history or a benchmark's.
    /// A [`Store::rebuild_ratings`] afterwards computes everything.
    pub async fn import_rating_events(
        &self,
        events: &[NewEvent],
        recorded_at: Timestamp,
    ) -> Result<(), StoreError> {
        let txn = self.plumbing.begin_write().await?;
        for chunk in events.chunks(MAX_PARAMS / EVENT_WIDTH) {
            let mut sql = Sql::new(self.backend(), EVENT_INSERT);
            for (i, event) in chunk.iter().enumerate() {
                if i > 0 {
                    sql.push(", ");
                }
                sql.bind_list(event_values(event, None, recorded_at));
            }
            txn.execute_raw(sql.statement()).await?;
        }
        txn.commit().await?;
        Ok(())
    }

    /// Recomputes every rating by replaying the whole event log in order with `rater`, and
    /// rewrites what differs: events' before/after, and ratings rows (rows without events are
    /// deleted). One transaction, which keeps other writers out until it ends.
    pub async fn rebuild_ratings(&self, rater: &dyn Rater) -> Result<RebuildReport, StoreError> {
        const PAGE: i64 = 100_000;
        let txn = self.plumbing.begin_write().await?;
        let backend = self.backend();
        if backend == DbBackend::Postgres {
            // Reads go on; writers of either table wait until the rebuild commits.
            txn.execute_unprepared("LOCK TABLE rating_events, ratings IN EXCLUSIVE MODE")
                .await?;
        }
        let mut report = RebuildReport::default();
        let mut ladders: Vec<String> = Vec::new();
        let mut state: HashMap<(usize, i64), (Rating, i64)> = HashMap::new();
        let mut changed_points: Vec<(i64, Points)> = Vec::new();
        // What each game's events left so far: corrections take it back.
        let mut effects: HashMap<i64, Option<Effect>> = HashMap::new();
        let mut after = 0_i64;
        loop {
            let mut sql = Sql::new(
                backend,
                &format!("SELECT {EVENT_COLUMNS} FROM rating_events WHERE sequence > "),
            );
            sql.bind(after).push(" ORDER BY sequence LIMIT ").bind(PAGE);
            let rows = txn.query_all_raw(sql.statement()).await?;
            let Some(last) = rows.last() else { break };
            after = last.try_get_by_index(0)?;
            for row in &rows {
                let mut stored = event_from(row)?;
                if let Change::Correction {
                    game_id, previous, ..
                } = &mut stored.event.change
                {
                    *previous = effects.get(&game_id.0).copied().flatten();
                }
                let event = &stored.event;
                let ladder = match ladders.iter().position(|l| *l == event.ladder) {
                    Some(i) => i,
                    None => {
                        ladders.push(event.ladder.clone());
                        ladders.len() - 1
                    }
                };
                let first_key = (ladder, event.change.first().0);
                let second_key = event.change.second().map(|p| (ladder, p.0));
                for key in std::iter::once(first_key).chain(second_key) {
                    state
                        .entry(key)
                        .or_insert_with(|| (rater.initial(&event.ladder), 0));
                }
                let first = &state[&first_key].0;
                let second = second_key.map(|k| &state[&k].0);
                let (first_after, second_after) =
                    rater.apply(&event.ladder, event.at, &event.change, first, second);
                let points = points(first, &first_after, second, second_after.as_ref());
                if !stored.points.is_some_and(|p| p.same(&points)) {
                    changed_points.push((stored.sequence, points));
                }
                match &event.change {
                    Change::Game { game_id, .. } | Change::Correction { game_id, .. } => {
                        let before = effects.get(&game_id.0).copied().flatten();
                        effects.insert(game_id.0, Effect::after(&event.change, &points, before));
                    }
                    Change::Adjustment { .. } => {}
                }
                state.insert(first_key, (first_after, stored.sequence));
                if let (Some(key), Some(after)) = (second_key, second_after) {
                    state.insert(key, (after, stored.sequence));
                }
                report.events += 1;
                match event.change {
                    Change::Game { .. } => report.games += 1,
                    Change::Correction { .. } => report.corrections += 1,
                    Change::Adjustment { .. } => report.adjustments += 1,
                }
            }
            if rows.len() < PAGE as usize {
                break;
            }
        }
        report.ratings = state.len() as u64;
        report.changed_points = changed_points.len() as u64;
        // The stored ratings against the replay.
        let rows = txn
            .query_all_raw(Statement::from_string(
                backend,
                format!("SELECT ladder, player_id, last_event, {RATING_COLUMNS} FROM ratings"),
            ))
            .await?;
        let mut seen: HashMap<(usize, i64), ()> = HashMap::with_capacity(rows.len());
        let mut deletes: Vec<(String, i64)> = Vec::new();
        for row in &rows {
            let ladder: String = row.try_get_by_index(0)?;
            let player: i64 = row.try_get_by_index(1)?;
            let last_event: i64 = row.try_get_by_index(2)?;
            let key = ladders
                .iter()
                .position(|l| *l == ladder)
                .map(|i| (i, player));
            match key.and_then(|k| state.get(&k).map(|v| (k, v))) {
                Some((key, (rating, event))) => {
                    if *event == last_event && same_rating(rating, &rating_from(row, 3)?) {
                        seen.insert(key, ());
                    }
                }
                None => deletes.push((ladder, player)),
            }
        }
        let upserts: Vec<(&str, PlayerId, &Rating, i64)> = state
            .iter()
            .filter(|(key, _)| !seen.contains_key(key))
            .map(|((ladder, player), (rating, event))| {
                (ladders[*ladder].as_str(), PlayerId(*player), rating, *event)
            })
            .collect();
        report.changed_ratings = (upserts.len() + deletes.len()) as u64;
        // Writes, many rows per statement.
        for chunk in changed_points.chunks(MAX_PARAMS / 5) {
            let mut sql = Sql::new(
                backend,
                "UPDATE rating_events SET first_before = v.column2, first_after = v.column3, \
                 second_before = v.column4, second_after = v.column5 FROM (VALUES ",
            );
            for (i, (sequence, points)) in chunk.iter().enumerate() {
                if i > 0 {
                    sql.push(", ");
                }
                let mut values = vec![Value::from(*sequence)];
                values.extend(points_values(Some(points)));
                sql.bind_list(values);
            }
            sql.push(") AS v WHERE rating_events.sequence = v.column1");
            txn.execute_raw(sql.statement()).await?;
        }
        upsert_ratings(&txn, &upserts).await?;
        for (ladder, player) in &deletes {
            let mut sql = Sql::new(backend, "DELETE FROM ratings WHERE ladder = ");
            sql.bind(ladder.as_str())
                .push(" AND player_id = ")
                .bind(*player);
            txn.execute_raw(sql.statement()).await?;
        }
        txn.commit().await?;
        Ok(report)
    }
}

fn same_rating(a: &Rating, b: &Rating) -> bool {
    let bits = |x: Option<f64>| x.map(f64::to_bits);
    a.rating.to_bits() == b.rating.to_bits()
        && bits(a.deviation) == bits(b.deviation)
        && bits(a.volatility) == bits(b.volatility)
        && a.games == b.games
        && a.wins == b.wins
        && a.draws == b.draws
        && a.losses == b.losses
        && a.peak.to_bits() == b.peak.to_bits()
        && a.reached_2400 == b.reached_2400
        && a.period == b.period
        && a.period_games == b.period_games
        && a.last_played == b.last_played
}
