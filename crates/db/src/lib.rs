//! Database plumbing shared by every service's store: connecting (SQLite files private to their
//! owner, WAL and `synchronous = FULL`; PostgreSQL pools), running a service's own migrations,
//! classifying the driver's errors ([`StoreError`], `Unavailable` with its reason), repeating a
//! read that lost its connection ([`reread`]), statements with many bound values ([`Sql`]),
//! PostgreSQL `LISTEN`, and searching by name in any script ([`search`]).
//!
//! What this crate does NOT do: it knows no table. Each service owns its tables, its SQL and its
//! migrations (accounts: `hanniball-accounts`; the arbiter, rating and scheduler: a `store`
//! module of their service crate), so that each can run on a database of its own.

use std::fmt::Write as _;
use std::time::Duration;

use sea_orm::sqlx::sqlite::{SqliteJournalMode, SqliteSynchronous};
use sea_orm::{
    ConnectOptions, ConnectionTrait, Database, DatabaseConnection, DbBackend, DbErr, RuntimeErr,
    SqlErr, SqliteTransactionMode, Statement, TransactionOptions, TransactionTrait, Value,
};
use sea_orm_migration::MigratorTrait;

pub mod search;

/// Why a store operation failed.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum StoreError {
    /// The database cannot do the work now; nothing was written. Clients may retry. `why` is
    /// for the client ("the database is read-only"), `detail` the driver's words, for the log.
    #[error("database unavailable: {why} ({detail})")]
    Unavailable { why: String, detail: String },
    /// A uniqueness rule or a concurrent writer won; nothing was written.
    #[error("conflict: {0}")]
    Conflict(String),
    /// A stored row does not make sense (a bug or manual tampering).
    #[error("corrupt record: {0}")]
    Corrupt(String),
    /// A value the database cannot hold (PostgreSQL refuses NUL in text); nothing was written.
    /// Caused by the caller's input, so services answer it as an invalid argument.
    #[error("{0}")]
    Invalid(String),
    /// Anything else the database said.
    #[error("database error: {0}")]
    Database(String),
}

impl StoreError {
    /// [`StoreError::Unavailable`]: `why` for the client, `detail` for the log.
    pub fn unavailable(why: impl Into<String>, detail: impl std::fmt::Display) -> Self {
        StoreError::Unavailable {
            why: why.into(),
            detail: detail.to_string(),
        }
    }
}

impl From<DbErr> for StoreError {
    fn from(error: DbErr) -> Self {
        if let Some(SqlErr::UniqueConstraintViolation(detail)) = error.sql_err() {
            return StoreError::Conflict(detail);
        }
        // SQLSTATE 22021 (character_not_in_repertoire): text with a NUL byte, which PostgreSQL
        // cannot store or compare. Services refuse such text first; this is the backstop.
        if let DbErr::Query(RuntimeErr::SqlxError(e)) | DbErr::Exec(RuntimeErr::SqlxError(e)) =
            &error
            && let sea_orm::sqlx::Error::Database(db) = e.as_ref()
            && db.code().as_deref() == Some("22021")
        {
            return StoreError::Invalid("text must not contain NUL characters".to_owned());
        }
        if let DbErr::Query(RuntimeErr::SqlxError(e))
        | DbErr::Exec(RuntimeErr::SqlxError(e))
        | DbErr::Conn(RuntimeErr::SqlxError(e)) = &error
            && let Some(why) = unavailable(e)
        {
            return StoreError::unavailable(why, e);
        }
        match error {
            DbErr::Conn(_) | DbErr::ConnectionAcquire(_) => {
                StoreError::unavailable("the database cannot be reached", &error)
            }
            other => StoreError::Database(other.to_string()),
        }
    }
}

/// The reason of [`StoreError::Unavailable`] when the database ended the connection a statement
/// ran on (a restart, a failover, `pg_terminate_backend`): a read may be run once more.
const LOST: &str = "the database connection was lost";

/// Runs a read that is safe to repeat, and once more if the database ended its connection while
/// it ran: the pool tests the next connection before handing it out, so the second try runs on a
/// live one (or fails as `Unavailable` within the pool's acquire timeout). Writes are never run
/// twice here: whether a lost commit landed is unknown, so they answer `Unavailable`.
pub async fn reread<T, F, Fut>(read: F) -> Result<T, StoreError>
where
    F: Fn() -> Fut,
    Fut: Future<Output = Result<T, StoreError>>,
{
    match read().await {
        Err(StoreError::Unavailable { why, detail }) if why == LOST => {
            tracing::debug!(%detail, "a read lost its connection; reading once more");
            read().await
        }
        other => other,
    }
}

/// Why an error of the driver means the database cannot do the work now (the caller may
/// retry later; nothing was written), if it does: a lost or refused connection, a database
/// that is read-only, full or shutting down. Everything else is a bug or a conflict.
fn unavailable(error: &sea_orm::sqlx::Error) -> Option<&'static str> {
    use sea_orm::sqlx::Error;
    match error {
        Error::Io(_) | Error::Tls(_) | Error::Protocol(_) | Error::WorkerCrashed => Some(LOST),
        Error::PoolTimedOut | Error::PoolClosed => {
            Some("no database connection could be had within the time limit")
        }
        Error::Database(db) => {
            let code = db.code()?;
            match code.as_ref() {
                // PostgreSQL (SQLSTATE).
                "25006" => Some("the database is read-only"),
                "53100" => Some("the database is full"),
                "53200" | "53300" => Some("the database is out of resources"),
                // 57P01: the connection was ended by an administrator (`pg_terminate_backend`,
                // a fast shutdown); the next connection may well work.
                "57P01" => Some(LOST),
                "57P02" | "57P03" => Some("the database is shutting down or starting"),
                c if c.starts_with("08") => Some(LOST),
                // SQLite (primary result code, extended codes carry it in the low byte).
                c => match c.parse::<u32>().map(|n| n & 0xff) {
                    Ok(5 | 6) => Some("the database is busy (locked by another writer)"),
                    Ok(8) => Some("the database is read-only"),
                    Ok(13) => Some("the database is full"),
                    Ok(10 | 14) => Some("the database file cannot be read or written"),
                    _ => None,
                },
            }
        }
        _ => None,
    }
}

/// Bound parameters per statement: under SQLite's 32,766 and PostgreSQL's 65,535.
pub const MAX_PARAMS: usize = 32_000;

/// A database: a pool for reads, and one for writes (group commits and every write transaction).
/// Clones share the pools; the services of one process that share a database share one `Db`.
#[derive(Clone, Debug)]
pub struct Db {
    db: DatabaseConnection,
    /// Where group commits and write transactions go. On SQLite a pool of its own with one
    /// connection: SQLite has one writer at a time anyway, writers wait for it in order (see
    /// [`Db::begin_write`]), and a connection that did the previous commit still has the hot
    /// pages of the turn index in its cache (one that another connection wrote since must drop its
    /// whole cache). On PostgreSQL, the shared pool.
    commits: DatabaseConnection,
}

impl Db {
    /// Connects (creating a SQLite file, mode 0600, on first use). SQLite runs in WAL mode with
    /// `synchronous = FULL`: a commit is on disk when it returns. No table is created: each
    /// service's store applies its own migrations ([`Db::migrate`]).
    pub async fn connect(url: &str) -> Result<Db, StoreError> {
        if !url.starts_with("sqlite:") {
            let db = Database::connect(pool_options(url, 16)).await?;
            return Ok(Db {
                commits: db.clone(),
                db,
            });
        }
        create_private(url)?;
        // Readers keep SQLite's default page cache: every commit by the other connection empties
        // it anyway (and a large one costs more to empty). The commit connection is the only
        // writer of games, so its cache stays valid: 32 MiB keeps the turn index's hot pages.
        let db = Database::connect(sqlite_options(url, 4, None)).await?;
        let commits = Database::connect(sqlite_options(url, 1, Some(32 * 1024))).await?;
        Ok(Db { db, commits })
    }

    /// Applies `M`'s pending migrations. Each service's migrator records what it applied in a
    /// table of its own, so services sharing a database do not see each other's migrations.
    pub async fn migrate<M: MigratorTrait>(&self) -> Result<(), StoreError> {
        Ok(M::up(&self.db, None).await?)
    }

    /// The pool for reads and ordinary writes.
    #[must_use]
    pub fn connection(&self) -> &DatabaseConnection {
        &self.db
    }

    /// The pool of the one writer (see the field): group commits, and single statements that
    /// write outside a transaction ([`Db::begin_write`] says why they go here).
    #[must_use]
    pub fn commits(&self) -> &DatabaseConnection {
        &self.commits
    }

    /// Whether other processes may write the same rows at the same time (PostgreSQL; a SQLite
    /// file belongs to one server process).
    #[must_use]
    pub fn shared_by_replicas(&self) -> bool {
        self.backend() == DbBackend::Postgres
    }

    /// The database backend in use.
    #[must_use]
    pub fn backend(&self) -> DbBackend {
        self.db.get_database_backend()
    }

    /// Copies the SQLite write-ahead log into the database file without blocking writers
    /// (`wal_checkpoint(PASSIVE)`); nothing to do on PostgreSQL. The arbiter calls it every second.
    pub async fn checkpoint(&self) -> Result<(), StoreError> {
        if self.backend() == DbBackend::Sqlite {
            self.db
                .execute_unprepared("PRAGMA wal_checkpoint(PASSIVE)")
                .await?;
        }
        Ok(())
    }

    /// Whether the database answers.
    pub async fn ping(&self) -> Result<(), StoreError> {
        Ok(self.db.ping().await?)
    }

    /// The connection pool now: (open connections, of which idle).
    #[must_use]
    pub fn pool_use(&self) -> (u32, usize) {
        match self.backend() {
            DbBackend::Postgres => {
                let pool = self.db.get_postgres_connection_pool();
                (pool.size(), pool.num_idle())
            }
            _ => {
                let pool = self.db.get_sqlite_connection_pool();
                (pool.size(), pool.num_idle())
            }
        }
    }

    /// Starts a write transaction: on PostgreSQL an ordinary one; on SQLite one that takes the
    /// write lock at once (a transaction that reads first and writes later would fail, not wait,
    /// if another connection wrote in between), on the one writer connection ([`Db::commits`])
    /// that every service of the process shares. SQLite has one writer at a time anyway: writers
    /// queue for that connection in order and start the moment it is free, where writers on
    /// connections of their own would find the file locked and sleep in SQLite's busy handler
    /// (1, 2, 5, 10, 15, 20, 25 ms… between tries): tens of milliseconds for a write of one.
    /// Nested write transactions wait for themselves: never begin one while holding another.
    pub async fn begin_write(&self) -> Result<sea_orm::DatabaseTransaction, StoreError> {
        begin_write(&self.commits).await
    }

    /// PostgreSQL: the payloads of `channel`'s notifications as they commit (`LISTEN`), `None`
    /// after a lost connection (the listener reconnects; the caller compares what it holds).
    /// `Ok(None)` on SQLite. `what` names the channel in logs.
    pub async fn listen(
        &self,
        channel: &'static str,
        what: &'static str,
    ) -> Result<Option<impl tokio_stream::Stream<Item = Option<String>> + use<>>, StoreError> {
        let Some(pool) = (self.backend() == DbBackend::Postgres)
            .then(|| self.db.get_postgres_connection_pool().clone())
        else {
            return Ok(None);
        };
        let mut listener = sea_orm::sqlx::postgres::PgListener::connect_with(&pool)
            .await
            .map_err(|e| {
                StoreError::unavailable("cannot listen for the database's notifications", e)
            })?;
        listener.listen(channel).await.map_err(|e| {
            StoreError::unavailable("cannot listen for the database's notifications", e)
        })?;
        Ok(Some(async_stream::stream! {
            loop {
                match listener.try_recv().await {
                    Ok(Some(note)) => yield Some(note.payload().to_owned()),
                    // The connection was lost; the next call reconnects.
                    Ok(None) => yield None,
                    Err(error) => {
                        tracing::warn!(%error, "listening for {what} failed; retrying");
                        tokio::time::sleep(Duration::from_millis(500)).await;
                        yield None;
                    }
                }
            }
        }))
    }
}

/// Starts a write transaction on `db` (see [`Db::begin_write`]).
async fn begin_write(db: &DatabaseConnection) -> Result<sea_orm::DatabaseTransaction, StoreError> {
    Ok(db
        .begin_with_options(TransactionOptions {
            sqlite_transaction_mode: Some(SqliteTransactionMode::Immediate),
            ..Default::default()
        })
        .await?)
}

/// A statement under construction with placeholders numbered for the backend.
pub struct Sql {
    backend: DbBackend,
    text: String,
    values: Vec<Value>,
}

impl Sql {
    pub fn new(backend: DbBackend, text: &str) -> Sql {
        Sql {
            backend,
            text: text.to_owned(),
            values: Vec::new(),
        }
    }

    pub fn push(&mut self, text: &str) -> &mut Sql {
        self.text.push_str(text);
        self
    }

    pub fn bind(&mut self, value: impl Into<Value>) -> &mut Sql {
        self.values.push(value.into());
        match self.backend {
            DbBackend::Postgres => {
                let _ = write!(self.text, "${}", self.values.len());
            }
            _ => self.text.push('?'),
        }
        self
    }

    /// `(?, ?, ?)` for a list of values.
    pub fn bind_list<V: Into<Value>>(&mut self, values: impl IntoIterator<Item = V>) -> &mut Sql {
        self.text.push('(');
        for (i, value) in values.into_iter().enumerate() {
            if i > 0 {
                self.text.push_str(", ");
            }
            self.bind(value);
        }
        self.text.push(')');
        self
    }

    pub fn statement(self) -> Statement {
        Statement::from_sql_and_values(self.backend, self.text, self.values)
    }
}

/// A pool of `connections` to the database at `url`, on either backend.
fn pool_options(url: &str, connections: u32) -> ConnectOptions {
    let mut options = ConnectOptions::new(url.to_owned());
    options
        .sqlx_logging(false)
        .connect_timeout(Duration::from_secs(5))
        // A server that does not answer is UNAVAILABLE within about a second, not after every
        // call has waited for it (a local SQLite file only waits for its own load: see below).
        // Half a second each: a call may wait twice, behind another wait (a game's lock held by
        // a catch-up that waits for the database) and then for its own connection.
        .acquire_timeout(Duration::from_millis(500))
        .max_connections(connections);
    options
}

/// A pool of `connections` to a SQLite file, with a page cache of `cache_kib` per connection
/// (SQLite's default of 2 MiB if `None`).
fn sqlite_options(url: &str, connections: u32, cache_kib: Option<u32>) -> ConnectOptions {
    let mut options = pool_options(url, connections);
    options
        // A local file does not drop connections: no test query (a round trip to the
        // connection's thread) before each use.
        .test_before_acquire(false)
        .acquire_timeout(Duration::from_secs(5))
        .map_sqlx_sqlite_opts(move |o| {
            let o = o
                .create_if_missing(true)
                .journal_mode(SqliteJournalMode::Wal)
                .synchronous(SqliteSynchronous::Full)
                .busy_timeout(Duration::from_secs(5))
                .foreign_keys(true)
                // Checkpoints run beside the writes (`Db::checkpoint`), not inside a commit;
                // this far larger automatic threshold is only a safety net.
                .pragma("wal_autocheckpoint", "20000")
                // Statement journals (a multi-row statement inside a transaction keeps one
                // in case it must be undone alone) stay in memory instead of a temporary
                // file: they are never needed after a crash.
                .pragma("temp_store", "memory");
            match cache_kib {
                Some(kib) => o.pragma("cache_size", format!("-{kib}")),
                None => o,
            }
        });
    options
}

/// Creates a SQLite database file that does not exist yet readable and writable by its owner
/// only (0600): it holds token hashes and games. SQLite gives the write-ahead log
/// and its index the database file's permissions. An existing file keeps its own.
fn create_private(url: &str) -> Result<(), StoreError> {
    let path = url
        .trim_start_matches("sqlite://")
        .trim_start_matches("sqlite:")
        .split('?')
        .next()
        .unwrap_or_default();
    if path.is_empty() || path == ":memory:" || std::path::Path::new(path).exists() {
        return Ok(());
    }
    let mut options = std::fs::OpenOptions::new();
    options.write(true).create_new(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
    match options.open(path) {
        Ok(_) => Ok(()),
        // Created meanwhile by another process: it keeps its permissions.
        Err(error) if error.kind() == std::io::ErrorKind::AlreadyExists => Ok(()),
        Err(error) => Err(StoreError::unavailable(
            "the database file cannot be created",
            format!("{path}: {error}"),
        )),
    }
}

#[cfg(test)]
mod tests;

/// Databases for tests: a fresh SQLite file, or a fresh PostgreSQL database when
/// `HANNIBALL_TEST_POSTGRES_URL` is set (as `.ci/run` does when PostgreSQL answers). Only with
/// the `testing` feature, which tests and benches turn on: no server carries it.
#[cfg(any(test, feature = "testing"))]
pub mod testing {
    use std::sync::atomic::{AtomicU64, Ordering};

    use sea_orm::{ConnectionTrait, Database};

    use crate::StoreError;

    static COUNTER: AtomicU64 = AtomicU64::new(0);

    fn unique_name() -> String {
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.subsec_nanos());
        format!(
            "hb_test_{}_{}_{}",
            std::process::id(),
            COUNTER.fetch_add(1, Ordering::Relaxed),
            nanos
        )
    }

    /// CPU time this process has used so far, in seconds, for benchmarks (Linux:
    /// `/proc/self/stat`, in ticks of 1/100 s); `None` elsewhere.
    #[must_use]
    pub fn cpu_seconds() -> Option<f64> {
        stat_seconds(&std::fs::read_to_string("/proc/self/stat").ok()?)
    }

    /// CPU time used so far by this process's threads named `name` (as a runtime's
    /// `thread_name` sets it), in seconds; `None` where `/proc` does not tell.
    #[must_use]
    pub fn thread_cpu_seconds(name: &str) -> Option<f64> {
        let mut total = 0.0;
        for task in std::fs::read_dir("/proc/self/task").ok()?.flatten() {
            let path = task.path();
            // A thread that ends between the listing and the reads is skipped.
            let (Ok(comm), Ok(stat)) = (
                std::fs::read_to_string(path.join("comm")),
                std::fs::read_to_string(path.join("stat")),
            ) else {
                continue;
            };
            if comm.trim_end() == name {
                total += stat_seconds(&stat)?;
            }
        }
        Some(total)
    }

    /// User + system time of a `/proc/.../stat` line, in seconds.
    fn stat_seconds(stat: &str) -> Option<f64> {
        // Fields after the command name (which may hold spaces) start at the state, field 3.
        let rest = &stat[stat.rfind(')')? + 2..];
        let fields: Vec<&str> = rest.split(' ').collect();
        let ticks = fields.get(11)?.parse::<u64>().ok()? + fields.get(12)?.parse::<u64>().ok()?;
        Some(ticks as f64 / 100.0)
    }

    /// Builds, in the empty database at `url`, the single database that one migration set made
    /// before each service owned its tables (`old_schema/`: the schema and the migration table
    /// its nine migrations left, as `sqlite3 .dump` and `pg_dump --inserts` wrote them), for
    /// tests of upgrading in place.
    ///
    /// # Errors
    /// The database's, if a statement fails.
    pub async fn old_schema(url: &str) -> Result<(), StoreError> {
        let db = Database::connect(url).await?;
        let sql = if db.get_database_backend() == sea_orm::DbBackend::Postgres {
            include_str!("old_schema/postgres.sql")
        } else {
            include_str!("old_schema/sqlite.sql")
        };
        // Every statement of a dump ends a line with `;` (none has one inside).
        for statement in sql.split(";\n").map(str::trim).filter(|s| !s.is_empty()) {
            db.execute_unprepared(statement).await?;
        }
        db.close().await?;
        Ok(())
    }

    /// A URL for a new, empty SQLite database file in this process's directory under the temp
    /// directory (`hanniball-tests/<pid>`).
    #[must_use]
    pub fn sqlite_url() -> String {
        let path = process_dir().join(format!("{}.sqlite", unique_name()));
        format!("sqlite://{}?mode=rwc", path.display())
    }

    /// This process's directory for test databases. On first use it removes the directories of
    /// test processes that have ended (on Linux, where `/proc` tells), so that runs do not pile up
    /// database files.
    fn process_dir() -> std::path::PathBuf {
        static DIR: std::sync::OnceLock<std::path::PathBuf> = std::sync::OnceLock::new();
        DIR.get_or_init(|| {
            let root = std::env::temp_dir().join("hanniball-tests");
            if cfg!(target_os = "linux")
                && let Ok(entries) = std::fs::read_dir(&root)
            {
                for entry in entries.flatten() {
                    let pid = entry
                        .file_name()
                        .to_str()
                        .and_then(|n| n.parse::<u32>().ok());
                    if let Some(pid) = pid
                        && !std::path::Path::new(&format!("/proc/{pid}")).exists()
                    {
                        let _ = std::fs::remove_dir_all(entry.path());
                    }
                }
            }
            let dir = root.join(std::process::id().to_string());
            std::fs::create_dir_all(&dir).expect("a directory for test databases");
            dir
        })
        .clone()
    }

    /// The PostgreSQL server to test against, if any.
    #[must_use]
    pub fn postgres_base_url() -> Option<String> {
        std::env::var("HANNIBALL_TEST_POSTGRES_URL")
            .ok()
            .filter(|url| !url.is_empty())
    }

    /// Creates a new, empty PostgreSQL database next to the one `base_url` names, and returns its URL.
    pub async fn postgres_url(base_url: &str) -> Result<String, StoreError> {
        let name = unique_name();
        let admin = Database::connect(base_url).await?;
        admin
            .execute_unprepared(&format!("CREATE DATABASE {name}"))
            .await?;
        admin.close().await?;
        let (prefix, _) = base_url
            .rsplit_once('/')
            .ok_or_else(|| StoreError::Database(format!("no database name in {base_url}")))?;
        Ok(format!("{prefix}/{name}"))
    }

    /// Runs `sql` on the PostgreSQL server of `base_url` as its user (to end connections or make
    /// a test's database read-only).
    pub async fn postgres_execute(base_url: &str, sql: &str) -> Result<(), StoreError> {
        let admin = Database::connect(base_url).await?;
        admin.execute_unprepared(sql).await?;
        admin.close().await?;
        Ok(())
    }

    /// A write transaction held open on the database at `url` (SQLite: every other writer waits
    /// for it, then gives up after the busy timeout); dropping it rolls back.
    pub struct WriteLock {
        _transaction: sea_orm::DatabaseTransaction,
    }

    /// Takes the write lock of the SQLite database at `url` until the guard is dropped.
    pub async fn hold_write_lock(url: &str) -> Result<WriteLock, StoreError> {
        let db = Database::connect(url).await?;
        let txn = crate::begin_write(&db).await?;
        Ok(WriteLock { _transaction: txn })
    }

    /// The tables of the database at `url` (PostgreSQL: its `public` schema), sorted.
    pub async fn table_names(url: &str) -> Result<Vec<String>, StoreError> {
        let db = Database::connect(url).await?;
        let sql = match db.get_database_backend() {
            sea_orm::DbBackend::Postgres => {
                "SELECT tablename FROM pg_tables WHERE schemaname = 'public' ORDER BY 1"
            }
            _ => "SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY 1",
        };
        let rows = db
            .query_all_raw(sea_orm::Statement::from_string(
                db.get_database_backend(),
                sql,
            ))
            .await?;
        let names = rows
            .iter()
            .map(|row| row.try_get_by_index::<String>(0))
            .collect::<Result<Vec<_>, _>>()?;
        db.close().await?;
        Ok(names)
    }

    /// Every database the tests should run on: SQLite always, PostgreSQL when configured.
    pub async fn all_urls() -> Vec<String> {
        let mut urls = vec![sqlite_url()];
        if let Some(base) = postgres_base_url() {
            urls.push(postgres_url(&base).await.expect(
                "HANNIBALL_TEST_POSTGRES_URL is set, so PostgreSQL must accept CREATE DATABASE",
            ));
        }
        urls
    }
}
