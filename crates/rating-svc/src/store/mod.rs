//! The rating service's data: the rating event log, ratings per ladder, the results cursor;
//! their SQL and their migrations ([`hanniball_migration_rating::Migrator`], tracked in a table of their own).
//! No other service's tables: players are ids (Accounts knows who they are).
//!
//! The store keeps what the rating service decided and replays the log on request; the maths is
//! the caller's, handed in as a [`Rater`]. Every write of ratings happens in one transaction with
//! the events it comes from, so the current ratings are always the replay of the log:
//!
//! - `rating_events`: games and adjustments in recording order (`sequence`), each with the ratings
//!   before and after it (`Points`). A game id appears at most once.
//! - `ratings`: the current [`Rating`] per (ladder, player), with `last_event`, the sequence of
//!   the last event applied to it. A writer updates a row only from the version it read and never
//!   with an event older than that version, so per player the log order is the order in which the
//!   events were applied, even with several writers on PostgreSQL.
//! - `rating_cursor`: the last results-outbox sequence a consumer has handled, written in the
//!   transaction that records those results.

use std::collections::HashMap;

use hanniball_ids::{GameId, PlayerId, Timestamp};
use sea_orm::{ConnectionTrait, DbBackend, QueryResult, Statement, TransactionTrait, Value};

pub use hanniball_rating::{Rating, Score};

use hanniball_db::{Db, MAX_PARAMS, Sql, begin_write, reread};

pub use hanniball_db::StoreError;

/// The rating service's tables.
#[derive(Clone, Debug)]
pub struct Store {
    /// Its connection (pool); [`Store::db`] is the plumbing around it.
    conn: sea_orm::DatabaseConnection,
    plumbing: Db,
}

impl Store {
    /// The rating tables in `db`, after applying their pending migrations.
    pub async fn open(db: &Db) -> Result<Store, StoreError> {
        db.migrate::<hanniball_migration_rating::Migrator>().await?;
        Ok(Store {
            conn: db.connection().clone(),
            plumbing: db.clone(),
        })
    }

    /// Connects to `url` and opens the rating tables there.
    pub async fn connect(url: &str) -> Result<Store, StoreError> {
        Store::open(&Db::connect(url).await?).await
    }

    /// The database underneath.
    #[must_use]
    pub fn db(&self) -> &Db {
        &self.plumbing
    }

    /// The database backend in use.
    #[must_use]
    pub fn backend(&self) -> DbBackend {
        self.plumbing.backend()
    }
}

/// What an event changes.
#[derive(Clone, Debug, PartialEq)]
pub enum Change {
    /// A rated game; `score` is the first player's.
    Game {
        game_id: GameId,
        first: PlayerId,
        second: PlayerId,
        score: Score,
    },
    /// The organiser corrected the result of game `game_id` (its `correction`-th correction):
    /// the game's last rated effect (`previous`, filled in by the store from the log) is taken
    /// back, and the new result, when it is a rated one (`score`, the first player's), is rated
    /// as a game at the time of the correction.
    Correction {
        game_id: GameId,
        first: PlayerId,
        second: PlayerId,
        correction: u32,
        score: Option<Score>,
        previous: Option<Effect>,
    },
    /// An admin sets a player's rating.
    Adjustment {
        player: PlayerId,
        rating: f64,
        /// Why (required by the service; kept for the audit).
        reason: String,
        /// Who (for the audit).
        actor: String,
    },
}

impl Change {
    /// The first player (the adjusted player of an adjustment).
    #[must_use]
    pub fn first(&self) -> PlayerId {
        match self {
            Change::Game { first, .. } | Change::Correction { first, .. } => *first,
            Change::Adjustment { player, .. } => *player,
        }
    }

    /// The second player of a game.
    #[must_use]
    pub fn second(&self) -> Option<PlayerId> {
        match self {
            Change::Game { second, .. } | Change::Correction { second, .. } => Some(*second),
            Change::Adjustment { .. } => None,
        }
    }

    fn kind(&self) -> &'static str {
        match self {
            Change::Game { .. } => GAME,
            Change::Correction { .. } => CORRECTION,
            Change::Adjustment { .. } => ADJUSTMENT,
        }
    }
}

const GAME: &str = "game";
const CORRECTION: &str = "correction";
const ADJUSTMENT: &str = "adjustment";

/// What a game's rating events left in the ratings: the score rated (the first player's) and
/// each player's rating change, which a correction takes back.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Effect {
    pub score: Score,
    pub first_delta: f64,
    pub second_delta: f64,
}

impl Effect {
    /// The effect after an event of the game that moved the ratings as `points` says, given
    /// the effect before it: a game's is its change; a correction's is its change plus what it
    /// took back (the new result's own change); a correction to an unrated result leaves none.
    #[must_use]
    pub fn after(change: &Change, points: &Points, previous: Option<Effect>) -> Option<Effect> {
        let delta = |before: Option<f64>, after: Option<f64>| match (before, after) {
            (Some(b), Some(a)) => a - b,
            _ => 0.0,
        };
        let first = points.first_after - points.first_before;
        let second = delta(points.second_before, points.second_after);
        match change {
            Change::Game { score, .. } => Some(Effect {
                score: *score,
                first_delta: first,
                second_delta: second,
            }),
            Change::Correction {
                score: Some(score), ..
            } => Some(Effect {
                score: *score,
                first_delta: first + previous.map_or(0.0, |p| p.first_delta),
                second_delta: second + previous.map_or(0.0, |p| p.second_delta),
            }),
            Change::Correction { score: None, .. } => None,
            Change::Adjustment { .. } => previous,
        }
    }
}

/// An event to record.
#[derive(Clone, Debug, PartialEq)]
pub struct NewEvent {
    pub ladder: String,
    /// When the game finished, or when the adjustment was made.
    pub at: Timestamp,
    pub change: Change,
}

/// The ratings around an event: the first player's, and the second's for a game.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Points {
    pub first_before: f64,
    pub first_after: f64,
    pub second_before: Option<f64>,
    pub second_after: Option<f64>,
}

impl Points {
    /// Equal to the last bit (NaN equal to NaN): a replay must reproduce what was stored.
    fn same(&self, other: &Points) -> bool {
        let bits = |x: Option<f64>| x.map(f64::to_bits);
        self.first_before.to_bits() == other.first_before.to_bits()
            && self.first_after.to_bits() == other.first_after.to_bits()
            && bits(self.second_before) == bits(other.second_before)
            && bits(self.second_after) == bits(other.second_after)
    }
}

/// A stored event.
#[derive(Clone, Debug, PartialEq)]
pub struct EventRow {
    pub sequence: i64,
    pub event: NewEvent,
    /// `None` only for imported events not yet replayed (see [`Store::import_rating_events`]).
    pub points: Option<Points>,
    pub recorded_at: Timestamp,
}

/// A player's stored rating on a ladder.
#[derive(Clone, Debug, PartialEq)]
pub struct RatingRow {
    pub player: PlayerId,
    /// The player's name (leaderboards and lists); `None` where not asked for or unknown.
    pub name: Option<String>,
    pub rating: Rating,
    /// Sequence of the last event applied.
    pub last_event: i64,
}

/// What [`Store::record_rating_events`] did with one event.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Recorded {
    /// Stored with this sequence; the ratings moved as `points` says.
    New { sequence: i64, points: Points },
    /// The game was recorded before (or earlier in the same batch): nothing changed.
    Duplicate {
        sequence: i64,
        points: Option<Points>,
    },
    /// A correction with nothing to change: the game was never rated and its corrected result
    /// is not rated either.
    Nothing,
}

/// The rating maths, as the store's replay needs it. Must be a pure function of its inputs, or a
/// rebuild will not reproduce the incremental ratings.
pub trait Rater: Sync {
    /// The rating of a player with no event on `ladder` yet.
    fn initial(&self, ladder: &str) -> Rating;

    /// The ratings after `change`: `(first after, second after)`; the second is `Some` exactly
    /// for games, and `second` is given exactly for games.
    fn apply(
        &self,
        ladder: &str,
        at: Timestamp,
        change: &Change,
        first: &Rating,
        second: Option<&Rating>,
    ) -> (Rating, Option<Rating>);
}

/// Leaderboard filters.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct BoardFilter {
    /// Only players with at least this many games.
    pub min_games: u32,
    /// Only players whose last game was at or after this unix second.
    pub active_since: Option<i64>,
}

/// A head-to-head record from the first player's point of view.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct HeadToHead {
    pub wins: u32,
    pub draws: u32,
    pub losses: u32,
    pub last_played: Option<Timestamp>,
}

/// What a rebuild found and did.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct RebuildReport {
    /// Events replayed.
    pub events: u64,
    pub games: u64,
    pub corrections: u64,
    pub adjustments: u64,
    /// Ratings rows the replay gives.
    pub ratings: u64,
    /// Events whose stored before/after differed from the replay (rewritten).
    pub changed_points: u64,
    /// Ratings rows that differed from the replay, were missing or had no events (rewritten or
    /// deleted).
    pub changed_ratings: u64,
}

impl RebuildReport {
    /// Whether the stored state was exactly the replay.
    #[must_use]
    pub fn matched(&self) -> bool {
        self.changed_points == 0 && self.changed_ratings == 0
    }
}

/// The columns of a rating, in [`rating_from`]'s order.
const RATING_COLUMNS: &str = "rating, deviation, volatility, games, wins, draws, losses, peak, \
                              reached_2400, period, period_games, last_played";
const RATING_WIDTH: usize = 12;

const EVENT_COLUMNS: &str = "sequence, ladder, kind, game_id, first_player_id, second_player_id, \
     score_half_points, at_ms, new_rating, reason, actor, first_before, first_after, \
     second_before, second_after, recorded_at_ms, corrected_game_id, correction";

fn count(value: u32) -> i32 {
    i32::try_from(value).unwrap_or(i32::MAX)
}

fn uncount(value: i32) -> u32 {
    u32::try_from(value).unwrap_or(0)
}

fn rating_values(r: &Rating) -> [Value; RATING_WIDTH] {
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
fn rating_from(row: &QueryResult, at: usize) -> Result<Rating, StoreError> {
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

fn score_value(score: Score) -> i32 {
    i32::from(score.half_points())
}

fn score_from(sequence: i64, half_points: Option<i32>) -> Result<Score, StoreError> {
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
fn event_from(row: &QueryResult) -> Result<EventRow, StoreError> {
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
async fn load_ratings<C: ConnectionTrait>(
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
async fn upsert_ratings<C: ConnectionTrait>(
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

fn points_values(points: Option<&Points>) -> [Value; 4] {
    [
        points.map(|p| p.first_before).into(),
        points.map(|p| p.first_after).into(),
        points.and_then(|p| p.second_before).into(),
        points.and_then(|p| p.second_after).into(),
    ]
}

/// The values of an event row, in the order of [`insert_event_sql`]'s columns.
fn event_values(event: &NewEvent, points: Option<&Points>, recorded_at: Timestamp) -> Vec<Value> {
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

const EVENT_INSERT: &str = "INSERT INTO rating_events (ladder, kind, game_id, first_player_id, \
     second_player_id, score_half_points, at_ms, new_rating, reason, actor, first_before, \
     first_after, second_before, second_after, recorded_at_ms, corrected_game_id, correction) \
     VALUES ";
const EVENT_WIDTH: usize = 17;

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
        let txn = begin_write(&self.conn).await?;
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

    /// Appends events to the log without computing ratings (their before/after stay empty and no
    /// rating changes): a bulk import, for example of another system's history or a benchmark's.
    /// A [`Store::rebuild_ratings`] afterwards computes everything.
    pub async fn import_rating_events(
        &self,
        events: &[NewEvent],
        recorded_at: Timestamp,
    ) -> Result<(), StoreError> {
        let txn = self.conn.begin().await?;
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
        let txn = begin_write(&self.conn).await?;
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

/// The before/after of an event.
fn points(
    first: &Rating,
    first_after: &Rating,
    second: Option<&Rating>,
    second_after: Option<&Rating>,
) -> Points {
    Points {
        first_before: first.rating,
        first_after: first_after.rating,
        second_before: second_after.and(second).map(|r| r.rating),
        second_after: second_after.map(|r| r.rating),
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

#[cfg(test)]
mod tests;
