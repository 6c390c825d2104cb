//! Rows to domain types and back: the columns of ratings and events, and the statements that
//! read and write many ratings at once.

use std::collections::HashMap;

use hanniball_db::{MAX_PARAMS, Sql, StoreError};
use hanniball_ids::{GameId, PlayerId, Timestamp};
use hanniball_rating::{Rating, Score};
use sea_orm::{ConnectionTrait, QueryResult, Value};

use super::model::{ADJUSTMENT, CORRECTION, Change, EventRow, GAME, NewEvent, Points};

/// The columns of a rating, in [`rating_from`]'s order.
pub(super) const RATING_COLUMNS: &str = "rating, deviation, volatility, games, wins, draws, losses, peak, \
     reached_2400, period, period_games, last_played";
pub(super) const RATING_WIDTH: usize = 12;

pub(super) const EVENT_COLUMNS: &str = "sequence, ladder, kind, game_id, first_player_id, second_player_id, \
     score_half_points, at_ms, new_rating, reason, actor, first_before, first_after, \
     second_before, second_after, recorded_at_ms, corrected_game_id, correction";

pub(super) fn count(value: u32) -> i32 {
    i32::try_from(value).unwrap_or(i32::MAX)
}

pub(super) fn uncount(value: i32) -> u32 {
    u32::try_from(value).unwrap_or(0)
}

pub(super) fn rating_values(r: &Rating) -> [Value; RATING_WIDTH] {
    [
        r.rating.into(),
        r.deviation.into(),
        r.volatility.into(),
        count(r.games).into(),
        count(r.wins).into(),
        count(r.draws).into(),
        count(r.losses).into(),
        r.peak.into(),
        r.reached_2400.into(),
        r.period.into(),
        count(r.period_games).into(),
        r.last_played.into(),
    ]
}

/// A rating from [`RATING_COLUMNS`] starting at column `at`.
pub(super) fn rating_from(row: &QueryResult, at: usize) -> Result<Rating, StoreError> {
    Ok(Rating {
        rating: row.try_get_by_index(at)?,
        deviation: row.try_get_by_index(at + 1)?,
        volatility: row.try_get_by_index(at + 2)?,
        games: uncount(row.try_get_by_index(at + 3)?),
        wins: uncount(row.try_get_by_index(at + 4)?),
        draws: uncount(row.try_get_by_index(at + 5)?),
        losses: uncount(row.try_get_by_index(at + 6)?),
        peak: row.try_get_by_index(at + 7)?,
        reached_2400: row.try_get_by_index(at + 8)?,
        period: row.try_get_by_index(at + 9)?,
        period_games: uncount(row.try_get_by_index(at + 10)?),
        last_played: row.try_get_by_index(at + 11)?,
    })
}

pub(super) fn score_value(score: Score) -> i32 {
    i32::from(score.half_points())
}

pub(super) fn score_from(sequence: i64, half_points: Option<i32>) -> Result<Score, StoreError> {
    match half_points {
        Some(2) => Ok(Score::Win),
        Some(1) => Ok(Score::Draw),
        Some(0) => Ok(Score::Loss),
        other => Err(StoreError::Corrupt(format!(
            "rating event {sequence}: bad score {other:?}"
        ))),
    }
}

/// An event from [`EVENT_COLUMNS`].
pub(super) fn event_from(row: &QueryResult) -> Result<EventRow, StoreError> {
    let sequence: i64 = row.try_get_by_index(0)?;
    let kind: String = row.try_get_by_index(2)?;
    let game_id: Option<i64> = row.try_get_by_index(3)?;
    let first = PlayerId(row.try_get_by_index(4)?);
    let second: Option<i64> = row.try_get_by_index(5)?;
    let change = match (kind.as_str(), game_id, second) {
        (GAME, Some(game_id), Some(second)) => Change::Game {
            game_id: GameId(game_id),
            first,
            second: PlayerId(second),
            score: score_from(sequence, row.try_get_by_index(6)?)?,
        },
        (CORRECTION, None, Some(second)) => {
            Change::Correction {
                game_id: GameId(row.try_get_by_index::<Option<i64>>(16)?.ok_or_else(|| {
                    StoreError::Corrupt(format!("correction {sequence}: no game"))
                })?),
                first,
                second: PlayerId(second),
                correction: uncount(row.try_get_by_index::<Option<i32>>(17)?.unwrap_or(0)),
                score: match row.try_get_by_index::<Option<i32>>(6)? {
                    None => None,
                    half_points => Some(score_from(sequence, half_points)?),
                },
                previous: None,
            }
        }
        (ADJUSTMENT, None, None) => Change::Adjustment {
            player: first,
            rating: row
                .try_get_by_index::<Option<f64>>(8)?
                .ok_or_else(|| StoreError::Corrupt(format!("adjustment {sequence}: no rating")))?,
            reason: row
                .try_get_by_index::<Option<String>>(9)?
                .unwrap_or_default(),
            actor: row
                .try_get_by_index::<Option<String>>(10)?
                .unwrap_or_default(),
        },
        _ => {
            return Err(StoreError::Corrupt(format!(
                "rating event {sequence}: kind {kind:?} with game {game_id:?} and second player {second:?}"
            )));
        }
    };
    let first_before: Option<f64> = row.try_get_by_index(11)?;
    let first_after: Option<f64> = row.try_get_by_index(12)?;
    let points = match (first_before, first_after) {
        (Some(first_before), Some(first_after)) => Some(Points {
            first_before,
            first_after,
            second_before: row.try_get_by_index(13)?,
            second_after: row.try_get_by_index(14)?,
        }),
        _ => None,
    };
    Ok(EventRow {
        sequence,
        event: NewEvent {
            ladder: row.try_get_by_index(1)?,
            at: Timestamp(row.try_get_by_index(7)?),
            change,
        },
        points,
        recorded_at: Timestamp(row.try_get_by_index(15)?),
    })
}

/// The current rating rows of some players on ladders, keyed by (ladder, player).
pub(super) async fn load_ratings<C: ConnectionTrait>(
    db: &C,
    keys: &[(String, PlayerId)],
) -> Result<HashMap<(String, PlayerId), (Rating, i64)>, StoreError> {
    let mut by_ladder: HashMap<&str, Vec<i64>> = HashMap::new();
    for (ladder, player) in keys {
        by_ladder.entry(ladder.as_str()).or_default().push(player.0);
    }
    let mut found = HashMap::new();
    for (ladder, players) in by_ladder {
        for chunk in players.chunks(MAX_PARAMS - 1) {
            let mut sql = Sql::new(
                db.get_database_backend(),
                &format!(
                    "SELECT player_id, last_event, {RATING_COLUMNS} FROM ratings WHERE ladder = "
                ),
            );
            sql.bind(ladder)
                .push(" AND player_id IN ")
                .bind_list(chunk.iter().copied());
            for row in db.query_all_raw(sql.statement()).await? {
                let player = PlayerId(row.try_get_by_index(0)?);
                let last_event: i64 = row.try_get_by_index(1)?;
                found.insert(
                    (ladder.to_owned(), player),
                    (rating_from(&row, 2)?, last_event),
                );
            }
        }
    }
    Ok(found)
}

/// Inserts or replaces rating rows, many per statement.
pub(super) async fn upsert_ratings<C: ConnectionTrait>(
    db: &C,
    rows: &[(&str, PlayerId, &Rating, i64)],
) -> Result<(), StoreError> {
    const WIDTH: usize = RATING_WIDTH + 3;
    let backend = db.get_database_backend();
    for chunk in rows.chunks(MAX_PARAMS / WIDTH) {
        let mut sql = Sql::new(
            backend,
            &format!(
                "INSERT INTO ratings (ladder, player_id, last_event, {RATING_COLUMNS}) VALUES "
            ),
        );
        for (i, (ladder, player, rating, last_event)) in chunk.iter().enumerate() {
            if i > 0 {
                sql.push(", ");
            }
            let mut values: Vec<Value> =
                vec![(*ladder).into(), player.0.into(), (*last_event).into()];
            values.extend(rating_values(rating));
            sql.bind_list(values);
        }
        sql.push(
            " ON CONFLICT (ladder, player_id) DO UPDATE SET last_event = excluded.last_event, \
             rating = excluded.rating, deviation = excluded.deviation, \
             volatility = excluded.volatility, games = excluded.games, wins = excluded.wins, \
             draws = excluded.draws, losses = excluded.losses, peak = excluded.peak, \
             reached_2400 = excluded.reached_2400, period = excluded.period, \
             period_games = excluded.period_games, last_played = excluded.last_played",
        );
        db.execute_raw(sql.statement()).await?;
    }
    Ok(())
}

pub(super) fn points_values(points: Option<&Points>) -> [Value; 4] {
    [
        points.map(|p| p.first_before).into(),
        points.map(|p| p.first_after).into(),
        points.and_then(|p| p.second_before).into(),
        points.and_then(|p| p.second_after).into(),
    ]
}

/// The values of an event row, in the order of [`insert_event_sql`]'s columns.
pub(super) fn event_values(
    event: &NewEvent,
    points: Option<&Points>,
    recorded_at: Timestamp,
) -> Vec<Value> {
    let (mut corrected, mut correction): (Option<i64>, Option<i32>) = (None, None);
    let (game_id, second, score, new_rating, reason, actor) = match &event.change {
        Change::Game {
            game_id,
            second,
            score,
            ..
        } => (
            Some(game_id.0),
            Some(second.0),
            Some(score_value(*score)),
            None,
            None,
            None,
        ),
        Change::Correction {
            game_id,
            second,
            correction: number,
            score,
            ..
        } => {
            corrected = Some(game_id.0);
            correction = Some(count(*number));
            (
                None,
                Some(second.0),
                score.map(score_value),
                None,
                None,
                None,
            )
        }
        Change::Adjustment {
            rating,
            reason,
            actor,
            ..
        } => (
            None,
            None,
            None,
            Some(*rating),
            Some(reason.clone()),
            Some(actor.clone()),
        ),
    };
    let mut values: Vec<Value> = vec![
        event.ladder.clone().into(),
        event.change.kind().into(),
        game_id.into(),
        event.change.first().0.into(),
        second.into(),
        score.into(),
        event.at.0.into(),
        new_rating.into(),
        reason.into(),
        actor.into(),
    ];
    values.extend(points_values(points));
    values.push(recorded_at.0.into());
    values.push(corrected.into());
    values.push(correction.into());
    values
}

pub(super) const EVENT_INSERT: &str = "INSERT INTO rating_events (ladder, kind, game_id, first_player_id, \
     second_player_id, score_half_points, at_ms, new_rating, reason, actor, first_before, \
     first_after, second_before, second_after, recorded_at_ms, corrected_game_id, correction) \
     VALUES ";
pub(super) const EVENT_WIDTH: usize = 17;
