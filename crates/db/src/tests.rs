//! Plumbing tests, on SQLite and (when configured) PostgreSQL: a scratch table stands for a
//! service's.

use super::*;

/// A database with one scratch table, `scratch (n integer)`.
async fn scratch(url: &str) -> Db {
    let db = Db::connect(url).await.expect("connect");
    db.connection()
        .execute_unprepared("CREATE TABLE IF NOT EXISTS scratch (n integer)")
        .await
        .expect("scratch table");
    db
}

async fn insert(db: &Db, n: i64) -> Result<(), StoreError> {
    db.connection()
        .execute_raw(Statement::from_string(
            db.backend(),
            format!("INSERT INTO scratch (n) VALUES ({n})"),
        ))
        .await?;
    Ok(())
}

#[tokio::test]
async fn an_unreachable_database_is_unavailable() {
    let error = match Db::connect("postgres://nobody@127.0.0.1:1/none").await {
        Err(error) => error,
        Ok(db) => db.ping().await.expect_err("nothing listens on port 1"),
    };
    assert!(matches!(error, StoreError::Unavailable { .. }), "{error:?}");
}

/// The benchmarks' per-thread CPU reader counts a named thread's time and nothing else's.
#[cfg(target_os = "linux")]
#[test]
fn thread_cpu_is_read_by_thread_name() {
    use std::sync::Arc;
    use std::sync::atomic::{AtomicBool, Ordering};

    let stop = Arc::new(AtomicBool::new(false));
    let flag = Arc::clone(&stop);
    let spinner = std::thread::Builder::new()
        .name("cpu-probe".to_owned())
        .spawn(move || {
            let mut x = 0u64;
            while !flag.load(Ordering::Relaxed) {
                x = std::hint::black_box(x.wrapping_mul(6364136223846793005).wrapping_add(1));
            }
            x
        })
        .expect("spawn");
    // Wait (without spinning here) until the kernel has charged the spinner a few ticks.
    let mut spun = 0.0;
    for _ in 0..500 {
        std::thread::sleep(std::time::Duration::from_millis(10));
        spun = testing::thread_cpu_seconds("cpu-probe").expect("/proc/self/task");
        if spun >= 0.05 {
            break;
        }
    }
    let process = testing::cpu_seconds().expect("/proc/self/stat");
    let nobody = testing::thread_cpu_seconds("no-such-thread").expect("/proc/self/task");
    stop.store(true, Ordering::Relaxed);
    spinner.join().expect("join");
    assert!(spun >= 0.05, "the spinning thread was charged {spun} s");
    assert!(
        spun <= process + 0.01,
        "one thread ({spun} s) within the process ({process} s)"
    );
    assert!(
        nobody.abs() < f64::EPSILON,
        "no thread has that name: {nobody} s"
    );
}

/// Whether this session with PostgreSQL is encrypted.
async fn session_is_encrypted(db: &Db) -> bool {
    let row = db
        .connection()
        .query_one_raw(Statement::from_string(
            DbBackend::Postgres,
            "SELECT ssl FROM pg_stat_ssl WHERE pid = pg_backend_pid()",
        ))
        .await
        .expect("pg_stat_ssl")
        .expect("a row for this session");
    row.try_get::<bool>("", "ssl").expect("ssl column")
}

#[tokio::test]
async fn postgres_sslmode_in_the_url_is_honoured() {
    let Some(base) = testing::postgres_base_url() else {
        eprintln!("skipped: HANNIBALL_TEST_POSTGRES_URL is not set");
        return;
    };
    let url = testing::postgres_url(&base)
        .await
        .expect("a fresh database");
    let with = |params: &str| format!("{url}?{params}");
    let plain = scratch(&with("sslmode=disable")).await;
    assert!(!session_is_encrypted(&plain).await);
    let ssl = plain
        .connection()
        .query_one_raw(Statement::from_string(DbBackend::Postgres, "SHOW ssl"))
        .await
        .expect("SHOW ssl")
        .and_then(|row| row.try_get::<String>("", "ssl").ok());
    if ssl.as_deref() != Some("on") {
        eprintln!("skipped: this PostgreSQL server does not offer TLS (ssl = {ssl:?})");
        return;
    }
    let encrypted = scratch(&with("sslmode=require")).await;
    assert!(session_is_encrypted(&encrypted).await);
    insert(&encrypted, 1).await.expect("a write over TLS");
    // verify-full checks the server's certificate against the roots it is given (here none but
    // the public ones, which a test server's certificate does not chain to): refused, not a
    // silent fall back to plain text.
    let refused = match Db::connect(&with("sslmode=verify-full")).await {
        Err(error) => Err(error),
        Ok(db) => db.ping().await,
    };
    assert!(
        refused.is_err(),
        "verify-full accepted an untrusted certificate"
    );
}

#[cfg(unix)]
#[tokio::test]
async fn a_new_sqlite_database_and_its_log_are_private_to_their_owner() {
    use std::os::unix::fs::PermissionsExt;
    let url = testing::sqlite_url();
    let db = scratch(&url).await;
    insert(&db, 1).await.expect("a write");
    let path = url
        .trim_start_matches("sqlite://")
        .split('?')
        .next()
        .expect("a path")
        .to_owned();
    for file in [path.clone(), format!("{path}-wal")] {
        let mode = std::fs::metadata(&file).expect(&file).permissions().mode();
        assert_eq!(mode & 0o777, 0o600, "{file}: {mode:o}");
    }
}

/// A write to a database that cannot take it is `Unavailable` with the reason, never a bare
/// database error (which services answer as INTERNAL).
#[tokio::test]
async fn a_read_only_database_or_a_lost_connection_is_unavailable() {
    // SQLite: the same file opened read-only.
    let url = testing::sqlite_url();
    let db = scratch(&url).await;
    insert(&db, 1).await.expect("a write");
    drop(db);
    let read_only = Db::connect(&url.replace("mode=rwc", "mode=ro"))
        .await
        .expect("read-only connect");
    let refused = insert(&read_only, 2).await.expect_err("a read-only file");
    assert!(
        matches!(&refused, StoreError::Unavailable { why, .. } if why.contains("read-only")),
        "{refused:?}"
    );

    // PostgreSQL: the connections are ended and the database made read-only.
    let Some(base) = testing::postgres_base_url() else {
        return;
    };
    let url = testing::postgres_url(&base).await.expect("database");
    let name = url.rsplit('/').next().expect("a name").to_owned();
    let db = scratch(&url).await;
    insert(&db, 1).await.expect("a write");
    let admin = Database::connect(base.as_str()).await.expect("admin");
    admin
        .execute_unprepared(&format!(
            "ALTER DATABASE {name} SET default_transaction_read_only = on"
        ))
        .await
        .expect("read-only");
    admin
        .execute_unprepared(&format!(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = '{name}'"
        ))
        .await
        .expect("terminate");
    let mut reasons = Vec::new();
    for i in 0..3 {
        match insert(&db, i).await {
            Err(StoreError::Unavailable { why, .. }) => reasons.push(why),
            other => panic!("write {i}: {other:?}"),
        }
    }
    assert!(
        reasons.iter().any(|why| why.contains("read-only")),
        "{reasons:?}"
    );
}

/// A read whose connection the database ended is run once more (and only once); a read that
/// failed for any other reason is not repeated.
#[tokio::test]
async fn a_read_that_lost_its_connection_is_run_once_more() {
    use std::sync::atomic::{AtomicU32, Ordering};
    let lost = AtomicU32::new(0);
    let read = reread(|| async {
        lost.fetch_add(1, Ordering::SeqCst);
        Err::<(), _>(StoreError::unavailable(LOST, "io error"))
    })
    .await;
    assert!(
        matches!(read, Err(StoreError::Unavailable { .. })),
        "{read:?}"
    );
    assert_eq!(lost.load(Ordering::SeqCst), 2, "tried twice, then gives up");

    let recovered = AtomicU32::new(0);
    let read = reread(async || match recovered.fetch_add(1, Ordering::SeqCst) {
        0 => Err(StoreError::unavailable(LOST, "io error")),
        n => Ok(n),
    })
    .await;
    assert_eq!(read, Ok(1));

    let read_only = AtomicU32::new(0);
    let read = reread(|| async {
        read_only.fetch_add(1, Ordering::SeqCst);
        Err::<(), _>(StoreError::unavailable(
            "the database is read-only",
            "error 25006",
        ))
    })
    .await;
    assert!(read.is_err());
    assert_eq!(
        read_only.load(Ordering::SeqCst),
        1,
        "not a lost connection: not repeated"
    );
}
