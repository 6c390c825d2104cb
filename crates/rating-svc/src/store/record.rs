//! Recording events: each with the ratings it gives, in one transaction with the ratings it
//! changes and the consumer's cursor, guarded against other writers.

use std::collections::HashMap;

use hanniball_db::{MAX_PARAMS, Sql, StoreError};
use hanniball_ids::{GameId, PlayerId, Timestamp};
use hanniball_rating::Rating;
use sea_orm::{ConnectionTrait, DbBackend, Value};

use super::Store;
use super::columns::{
    EVENT_COLUMNS, EVENT_INSERT, RATING_COLUMNS, event_from, event_values, load_ratings,
    rating_values,
};
use super::model::{Change, Effect, EventRow, NewEvent, Points, Rater, Recorded, points};

/// Where a (ladder, player) stands inside a write: what was read, and what it is now.
struct Touched {
    /// The stored row's `last_event` when read; `None`: no row yet.
    read_version: Option<i64>,
    current: Option<Rating>,
    last_event: i64,
    changed: bool,
}

impl Store {
    /// Records events in order in one transaction, with the ratings they give (computed by
    /// `rater` from the stored ratings), and, when `cursor` is given, moves that consumer's
    /// cursor forward to the sequence in the same transaction. A game already recorded (or
    /// given twice) changes nothing and is reported as [`Recorded::Duplicate`].
    ///
    /// `Conflict` means another writer changed one of the ratings first; nothing was written and
    /// the call may simply be repeated.
    pub async fn record_rating_events(
        &self,
        events: &[NewEvent],
        cursor: Option<(&str, i64)>,
        recorded_at: Timestamp,
        rater: &dyn Rater,
    ) -> Result<Vec<Recorded>, StoreError> {
        let txn = self.plumbing.begin_write().await?;
        let backend = self.backend();
        let mut recorded = recorded_games(&txn, backend, events).await?;
        let mut touched = touched_ratings(&txn, events).await?;
        let mut results = Vec::with_capacity(events.len());
        for event in events {
            if let Change::Game { game_id, .. } = event.change
                && let Some((sequence, points)) = recorded.get(&game_id.0)
            {
                results.push(Recorded::Duplicate {
                    sequence: *sequence,
                    points: *points,
                });
                continue;
            }
            // A correction: recorded once, and it takes back what the game's events left.
            let mut event = std::borrow::Cow::Borrowed(event);
            if let Change::Correction {
                game_id,
                correction,
                score,
                ..
            } = event.change
            {
                let chain = game_chain(&txn, backend, game_id).await?;
                if let Some(done) = chain.iter().find(|e| {
                    matches!(e.event.change, Change::Correction { correction: n, .. } if n >= correction)
                }) {
                    results.push(Recorded::Duplicate {
                        sequence: done.sequence,
                        points: done.points,
                    });
                    continue;
                }
                let effect = chain_effect(&chain);
                if effect.is_none() && score.is_none() {
                    results.push(Recorded::Nothing);
                    continue;
                }
                if let Change::Correction { previous, .. } = &mut event.to_mut().change {
                    *previous = effect;
                }
            }
            let event = event.as_ref();
            let first_key = (event.ladder.clone(), event.change.first());
            let second_key = event.change.second().map(|p| (event.ladder.clone(), p));
            let first = touched
                .get(&first_key)
                .and_then(|t| t.current.clone())
                .unwrap_or_else(|| rater.initial(&event.ladder));
            let second = second_key.as_ref().map(|k| {
                touched
                    .get(k)
                    .and_then(|t| t.current.clone())
                    .unwrap_or_else(|| rater.initial(&event.ladder))
            });
            let (first_after, second_after) = rater.apply(
                &event.ladder,
                event.at,
                &event.change,
                &first,
                second.as_ref(),
            );
            let points = points(&first, &first_after, second.as_ref(), second_after.as_ref());
            let mut sql = Sql::new(backend, EVENT_INSERT);
            sql.bind_list(event_values(event, Some(&points), recorded_at))
                .push(" RETURNING sequence");
            let row = txn
                .query_one_raw(sql.statement())
                .await?
                .ok_or_else(|| StoreError::Database("INSERT RETURNING gave no row".to_owned()))?;
            let sequence: i64 = row.try_get_by_index(0)?;
            for (key, after) in [
                (Some(first_key), Some(first_after)),
                (second_key, second_after),
            ] {
                let (Some(key), Some(after)) = (key, after) else {
                    continue;
                };
                let entry = touched
                    .get_mut(&key)
                    .expect("every key of the batch was loaded");
                if entry.last_event >= sequence {
                    return Err(StoreError::Conflict(format!(
                        "rating of player {} on {} moved past event {sequence}",
                        key.1, key.0
                    )));
                }
                entry.current = Some(after);
                entry.last_event = sequence;
                entry.changed = true;
            }
            if let Change::Game { game_id, .. } = event.change {
                recorded.insert(game_id.0, (sequence, Some(points)));
            }
            results.push(Recorded::New { sequence, points });
        }
        write_back(&txn, backend, &touched).await?;
        if let Some((consumer, sequence)) = cursor {
            move_cursor(&txn, backend, consumer, sequence).await?;
        }
        txn.commit().await?;
        Ok(results)
    }
}

async fn upsert_new<C: ConnectionTrait>(
    db: &C,
    ladder: &str,
    player: PlayerId,
    rating: &Rating,
    last_event: i64,
) -> Result<(), StoreError> {
    let mut sql = Sql::new(
        db.get_database_backend(),
        &format!("INSERT INTO ratings (ladder, player_id, last_event, {RATING_COLUMNS}) VALUES "),
    );
    let mut values: Vec<Value> = vec![ladder.into(), player.0.into(), last_event.into()];
    values.extend(rating_values(rating));
    sql.bind_list(values);
    // A unique violation here (another writer inserted the row first) is a `Conflict`.
    db.execute_raw(sql.statement()).await?;
    Ok(())
}

/// Every event of game `game` (the game's and its corrections'), in log order.
async fn game_chain(
    txn: &sea_orm::DatabaseTransaction,
    backend: DbBackend,
    game: GameId,
) -> Result<Vec<EventRow>, StoreError> {
    let mut sql = Sql::new(
        backend,
        &format!("SELECT {EVENT_COLUMNS} FROM rating_events WHERE game_id = "),
    );
    sql.bind(game.0)
        .push(" OR corrected_game_id = ")
        .bind(game.0)
        .push(" ORDER BY sequence");
    txn.query_all_raw(sql.statement())
        .await?
        .iter()
        .map(event_from)
        .collect()
}

/// What a game's events (in log order) left in the ratings ([`Effect::after`]).
fn chain_effect(chain: &[EventRow]) -> Option<Effect> {
    chain.iter().fold(None, |effect, e| match &e.points {
        Some(points) => Effect::after(&e.event.change, points, effect),
        None => effect,
    })
}

/// The games among `events` recorded before: their sequence and points.
async fn recorded_games(
    txn: &sea_orm::DatabaseTransaction,
    backend: DbBackend,
    events: &[NewEvent],
) -> Result<HashMap<i64, (i64, Option<Points>)>, StoreError> {
    let game_ids: Vec<i64> = events
        .iter()
        .filter_map(|e| match e.change {
            Change::Game { game_id, .. } => Some(game_id.0),
            Change::Correction { .. } | Change::Adjustment { .. } => None,
        })
        .collect();
    let mut recorded: HashMap<i64, (i64, Option<Points>)> = HashMap::new();
    for chunk in game_ids.chunks(MAX_PARAMS) {
        let mut sql = Sql::new(
            backend,
            &format!("SELECT {EVENT_COLUMNS} FROM rating_events WHERE game_id IN "),
        );
        sql.bind_list(chunk.iter().copied());
        for row in txn.query_all_raw(sql.statement()).await? {
            let event = event_from(&row)?;
            if let Change::Game { game_id, .. } = event.event.change {
                recorded.insert(game_id.0, (event.sequence, event.points));
            }
        }
    }
    Ok(recorded)
}

/// The ratings `events` involve, as stored (with the version read, to guard the write-back).
async fn touched_ratings(
    txn: &sea_orm::DatabaseTransaction,
    events: &[NewEvent],
) -> Result<HashMap<(String, PlayerId), Touched>, StoreError> {
    let mut keys: Vec<(String, PlayerId)> = Vec::new();
    for event in events {
        keys.push((event.ladder.clone(), event.change.first()));
        if let Some(second) = event.change.second() {
            keys.push((event.ladder.clone(), second));
        }
    }
    keys.sort_unstable();
    keys.dedup();
    let mut stored = load_ratings(txn, &keys).await?;
    let touched: HashMap<(String, PlayerId), Touched> = keys
        .into_iter()
        .map(|key| {
            let found = stored.remove(&key);
            let touched = Touched {
                read_version: found.as_ref().map(|(_, v)| *v),
                last_event: found.as_ref().map_or(0, |(_, v)| *v),
                current: found.map(|(r, _)| r),
                changed: false,
            };
            (key, touched)
        })
        .collect();
    Ok(touched)
}

/// Writes back each changed rating once, guarded by the version read.
async fn write_back(
    txn: &sea_orm::DatabaseTransaction,
    backend: DbBackend,
    touched: &HashMap<(String, PlayerId), Touched>,
) -> Result<(), StoreError> {
    for ((ladder, player), entry) in touched {
        if !entry.changed {
            continue;
        }
        let rating = entry
            .current
            .as_ref()
            .expect("a changed rating has a value");
        match entry.read_version {
            None => upsert_new(txn, ladder, *player, rating, entry.last_event).await?,
            Some(version) => {
                let mut sql = Sql::new(backend, "UPDATE ratings SET last_event = ");
                sql.bind(entry.last_event);
                let names = RATING_COLUMNS.split(", ");
                for (name, value) in names.zip(rating_values(rating)) {
                    sql.push(", ").push(name).push(" = ").bind(value);
                }
                sql.push(" WHERE ladder = ")
                    .bind(ladder.as_str())
                    .push(" AND player_id = ")
                    .bind(player.0)
                    .push(" AND last_event = ")
                    .bind(version);
                if txn.execute_raw(sql.statement()).await?.rows_affected() != 1 {
                    return Err(StoreError::Conflict(format!(
                        "rating of player {player} on {ladder} was changed by another writer"
                    )));
                }
            }
        }
    }
    Ok(())
}

/// Moves `consumer`'s cursor forward to `sequence` (never back).
async fn move_cursor(
    txn: &sea_orm::DatabaseTransaction,
    backend: DbBackend,
    consumer: &str,
    sequence: i64,
) -> Result<(), StoreError> {
    let mut sql = Sql::new(
        backend,
        "INSERT INTO rating_cursor (consumer, sequence) VALUES ",
    );
    sql.bind_list([Value::from(consumer), Value::from(sequence)])
        .push(
            " ON CONFLICT (consumer) DO UPDATE SET sequence = excluded.sequence \
         WHERE excluded.sequence > rating_cursor.sequence",
        );
    txn.execute_raw(sql.statement()).await?;
    Ok(())
}
