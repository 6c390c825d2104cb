//! The SQL of a batch: every game row, turn and outbox row of a group commit in one statement
//! each, the batch sent as one JSON parameter.

use hanniball_arbiter::{GameId, Status};
use hanniball_db::StoreError;
use sea_orm::ActiveValue::Set;
use sea_orm::sea_query::OnConflict;
use sea_orm::{ConnectionTrait, DbBackend, EntityTrait, Statement};

use super::changes::Write;
use super::convert::{self, side_name};
use super::entities::results_outbox;

/// The fields of a game row's change as [`update_games`] sends them, with their SQL types: the
/// key and guard, the live columns, then the columns that change when a game ends.
const GAME_FIELDS: [(&str, &str); 13] = [
    ("id", "bigint"),
    ("expected", "integer"),
    ("expected_version", "bigint"),
    ("position", "text"),
    ("turns_played", "integer"),
    ("white_ms", "bigint"),
    ("black_ms", "bigint"),
    ("clock_since", "bigint"),
    ("draw_offer_by", "text"),
    ("status", "text"),
    ("outcome", "text"),
    ("reason", "text"),
    ("finished_at_ms", "bigint"),
];

/// How many of [`GAME_FIELDS`] a write that leaves its game on sends: up to `draw_offer_by`.
const LIVE_FIELDS: usize = 9;

/// The fields of [`GAME_FIELDS`] that guard rather than assign.
const GUARD_FIELDS: usize = 3;

/// The live fields of [`GAME_FIELDS`] for one write.
type LiveRow<'a> = (
    i64,
    u32,
    Option<i64>,
    &'a str,
    u32,
    i64,
    i64,
    i64,
    Option<&'static str>,
);

/// What a batch's `UPDATE games` sets.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum GameColumns {
    /// The columns a turn or a draw offer changes (the game stays on). Status, result and end
    /// time are left alone: assigning even an unchanged value would rewrite the row's entry in
    /// the status index.
    Live,
    /// Every column that can change, for writes that end their game.
    All,
}

/// Every game row of a batch in one statement, each row guarded by the game's stored turn count
/// and active status, so that of two writers one commits and the other gets `Conflict`.
///
/// The batch travels as one JSON array parameter that the database unpacks (SQLite `jsonb_each`,
/// PostgreSQL `json_array_elements`): whatever its size, a batch is one statement of one shape,
/// so one round trip to the driver's thread and one prepared statement. Under load those round
/// trips, each waiting for a core, were most of a commit's time.
pub(super) async fn update_games<C: ConnectionTrait>(
    db: &C,
    writes: &[&Write],
    columns: GameColumns,
) -> Result<(), StoreError> {
    if writes.is_empty() {
        return Ok(());
    }
    fn live<'a>(write: &&'a Write) -> LiveRow<'a> {
        (
            write.game_id.0,
            write.expected_turns,
            write.expected_version,
            &write.position,
            write.turns_played,
            write.clocks.white_ms,
            write.clocks.black_ms,
            write.clocks.since.0,
            write.draw_offer.map(side_name),
        )
    }
    let (batch, sent) = match columns {
        GameColumns::Live => (
            json_array(&writes.iter().map(live).collect::<Vec<_>>())?,
            LIVE_FIELDS,
        ),
        GameColumns::All => {
            let rows: Vec<_> = writes
                .iter()
                .map(|write| {
                    let (id, expected, version, position, turns, white, black, since, offer) =
                        live(write);
                    (
                        id,
                        expected,
                        version,
                        position,
                        turns,
                        white,
                        black,
                        since,
                        offer,
                        write.status.name(),
                        write
                            .result
                            .and_then(|r| r.outcome)
                            .map(convert::outcome_name),
                        write.result.map(|r| r.reason.name()),
                        write.finished_at.map(|t| t.0),
                    )
                })
                .collect();
            (json_array(&rows)?, GAME_FIELDS.len())
        }
    };
    let backend = db.get_database_backend();
    let fields = &GAME_FIELDS[..sent];
    let mut assignments: Vec<String> = fields[GUARD_FIELDS..]
        .iter()
        .map(|(c, _)| format!("{c} = v.{c}"))
        .collect();
    assignments.push("version = games.version + 1".to_owned());
    // The guard: the game is on and its log is where the writer saw it (plus this write's own
    // turn, inserted before). On SQLite the row's turn count may lag the log (plain turns do not
    // update the row), so the log itself is counted. SQLite would otherwise start from the
    // status index (every active game) and scan the batch for each; `+` keeps the status test
    // off the index, so that the batch drives and each game is found by its key.
    let guard = match backend {
        DbBackend::Sqlite => {
            "(SELECT coalesce(max(t.number), 0) FROM turns AS t WHERE t.game_id = games.id) \
             = v.turns_played AND +games.status = 'active'"
        }
        _ => {
            "games.turns_played = v.expected AND games.status = 'active' \
             AND (v.expected_version IS NULL OR games.version = v.expected_version)"
        }
    };
    let sql = format!(
        "UPDATE games SET {} FROM ({}) AS v WHERE games.id = v.id AND {guard}",
        assignments.join(", "),
        json_rows(backend, fields),
    );
    let done = db
        .execute_raw(Statement::from_sql_and_values(backend, sql, [batch]))
        .await?;
    if done.rows_affected() != writes.len() as u64 {
        return Err(StoreError::Conflict(format!(
            "{} of {} games were changed by another writer",
            writes.len() as u64 - done.rows_affected(),
            writes.len()
        )));
    }
    Ok(())
}

/// The PostgreSQL channel on which every committed change of a game is announced, as
/// `"<game id> <version>"`.
pub const GAMES_CHANNEL: &str = "hanniball_games";

/// Announces the changes of `games` when the transaction commits (PostgreSQL delivers a
/// transaction's notifications at its commit, and none if it rolls back).
pub(super) async fn notify_games<C: ConnectionTrait>(
    db: &C,
    games: &[i64],
) -> Result<(), StoreError> {
    if games.is_empty() {
        return Ok(());
    }
    let sql = format!(
        "SELECT pg_notify('{GAMES_CHANNEL}', CAST(g.id AS text) || ' ' || CAST(g.version AS text)) \
         FROM games AS g WHERE g.id IN \
         (SELECT CAST(value AS bigint) FROM json_array_elements_text(CAST($1 AS json)))"
    );
    db.execute_raw(Statement::from_sql_and_values(
        DbBackend::Postgres,
        sql,
        [json_array(games)?],
    ))
    .await?;
    Ok(())
}

/// `SELECT … FROM` the JSON array bound as the statement's only parameter: one row per element,
/// one named, typed column per `(name, SQL type)`, in element order.
fn json_rows(backend: DbBackend, fields: &[(&str, &str)]) -> String {
    let columns: Vec<String> = fields
        .iter()
        .enumerate()
        .map(|(i, (name, ty))| match backend {
            DbBackend::Postgres => format!("CAST(e ->> {i} AS {ty}) AS {name}"),
            _ => format!("value ->> {i} AS {name}"),
        })
        .collect();
    match backend {
        DbBackend::Postgres => format!(
            "SELECT {} FROM json_array_elements(CAST($1 AS json)) AS e",
            columns.join(", ")
        ),
        _ => format!("SELECT {} FROM jsonb_each(?)", columns.join(", ")),
    }
}

/// The batch as the JSON text [`json_rows`] unpacks.
pub(super) fn json_array<T: serde::Serialize>(rows: &[T]) -> Result<sea_orm::Value, StoreError> {
    serde_json::to_string(rows)
        .map(sea_orm::Value::from)
        .map_err(|error| StoreError::Database(format!("a batch does not encode: {error}")))
}

/// A batch's turns in one INSERT (one JSON parameter, as in [`update_games`]); the
/// (game, number) key refuses a double.
pub(super) async fn insert_turns<C: ConnectionTrait>(
    db: &C,
    turns: &[(GameId, &hanniball_arbiter::TurnRecord)],
) -> Result<(), StoreError> {
    if turns.is_empty() {
        return Ok(());
    }
    let rows: Vec<_> = turns
        .iter()
        .map(|(game, record)| {
            (
                game.0,
                record.number,
                side_name(record.side),
                &record.text,
                &record.position_after,
                record.white_ms,
                record.black_ms,
                record.played_at.0,
                record.spent_ms,
            )
        })
        .collect();
    let fields = [
        ("game_id", "bigint"),
        ("number", "integer"),
        ("side", "text"),
        ("text", "text"),
        ("position_after", "text"),
        ("white_ms", "bigint"),
        ("black_ms", "bigint"),
        ("played_at_ms", "bigint"),
        ("spent_ms", "bigint"),
    ];
    let backend = db.get_database_backend();
    let names = fields.map(|f| f.0).join(", ");
    // Only into a game that is on, right after its last stored turn (the key refuses a turn
    // stored twice; this refuses a gap and a turn after the end).
    let sql = format!(
        "INSERT INTO turns ({names}) SELECT {names} FROM ({}) AS v \
         WHERE EXISTS (SELECT 1 FROM games AS g WHERE g.id = v.game_id AND g.status = 'active') \
         AND (v.number = 1 OR EXISTS (SELECT 1 FROM turns AS p \
         WHERE p.game_id = v.game_id AND p.number = v.number - 1))",
        json_rows(backend, &fields)
    );
    let done = db
        .execute_raw(Statement::from_sql_and_values(
            backend,
            sql,
            [json_array(&rows)?],
        ))
        .await?;
    if done.rows_affected() != turns.len() as u64 {
        return Err(StoreError::Conflict(format!(
            "{} of {} turns were refused: their game is over or its log is elsewhere",
            turns.len() as u64 - done.rows_affected(),
            turns.len()
        )));
    }
    Ok(())
}

/// The outbox row of a write that finishes its game (nothing otherwise).
pub(super) async fn insert_outbox<C: ConnectionTrait>(
    db: &C,
    write: &Write,
) -> Result<(), StoreError> {
    if write.status != Status::Active {
        let row = results_outbox::ActiveModel {
            game_id: Set(write.game_id.0),
            finished_at_ms: Set(write.finished_at.map_or(0, |t| t.0)),
            ..Default::default()
        };
        results_outbox::Entity::insert(row)
            .on_conflict(
                OnConflict::column(results_outbox::Column::GameId)
                    .do_nothing()
                    .to_owned(),
            )
            .exec_without_returning(db)
            .await?;
    }
    Ok(())
}
