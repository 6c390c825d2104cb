//! Group commit: one task, on its own thread, owns the database writes of every game. It takes
//! all writes waiting at that moment, stores them in one transaction (one disk sync), and answers
//! each waiting handler. Under load many games share a sync; a lone write waits for nobody.

use crate::store::{Change, NewGame, Store, StoreError, Write, created_id};
use hanniball_arbiter::GameId;
use tokio::sync::{mpsc, oneshot};

/// Most writes per transaction: room for a turn of every game at the 1,000 concurrent games the
/// arbiter is sized for (larger batches cost less per turn).
const MAX_BATCH: usize = 2048;

type Request = (Change, oneshot::Sender<Result<Option<GameId>, StoreError>>);

/// A handle to the writer task.
#[derive(Clone, Debug)]
pub struct Writer {
    tx: mpsc::Sender<Request>,
}

impl Writer {
    /// Starts the writer task. It ends when every handle is dropped.
    #[must_use]
    pub fn start(store: Store) -> Writer {
        let (tx, mut rx) = mpsc::channel::<Request>(4 * MAX_BATCH);
        // The writer runs on its own thread, in a single-threaded runtime of its own. A commit is
        // a chain of round trips to the database driver, and the driver hands a connection back
        // to its pool in a task it spawns: on the shared runtime each of those waited behind
        // every busy RPC handler in the queues, so the commit pipeline rather than the cores was
        // the limit under load. Here they run as soon as the writer waits. (On PostgreSQL the
        // commit pool is the handlers' pool: a connection opened under one runtime is used under
        // the other, which tokio allows while both run; the e2e tests run this on PostgreSQL.)
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .expect("a runtime for the writer");
        let run = async move {
            let mut batch: Vec<Request> = Vec::with_capacity(MAX_BATCH);
            while rx.recv_many(&mut batch, MAX_BATCH).await > 0 {
                let (changes, replies): (Vec<Change>, Vec<_>) = batch.drain(..).unzip();
                let started = std::time::Instant::now();
                let results = store.commit_changes(&changes).await;
                metrics::histogram!("hanniball_commit_seconds")
                    .record(started.elapsed().as_secs_f64());
                metrics::histogram!("hanniball_commit_batch_size").record(changes.len() as f64);
                tracing::trace!(batch = changes.len(), "group commit");
                let turns = changes
                    .iter()
                    .zip(&results)
                    .filter(|(change, result)| {
                        result.is_ok() && matches!(change, Change::Write(w) if w.record.is_some())
                    })
                    .count();
                metrics::counter!("hanniball_turns_committed_total").increment(turns as u64);
                for (reply, result) in replies.into_iter().zip(results) {
                    let _ = reply.send(result);
                }
            }
        };
        std::thread::Builder::new()
            .name("hanniball-writer".to_owned())
            .spawn(move || runtime.block_on(run))
            .expect("a thread for the writer");
        Writer { tx }
    }

    /// Stores one game's change; returns once it is committed (or refused).
    pub async fn write(&self, write: Write) -> Result<(), StoreError> {
        self.commit(Change::Write(write)).await.map(drop)
    }

    /// Stores a new game; returns its id once it is committed. New games share the group commit
    /// with turns: a game created on its own would hold the database's write lock and its own
    /// disk sync while every game's turns waited.
    pub async fn create(&self, game: NewGame) -> Result<GameId, StoreError> {
        created_id(self.commit(Change::Create(game)).await)
    }

    async fn commit(&self, change: Change) -> Result<Option<GameId>, StoreError> {
        let (reply, answer) = oneshot::channel();
        self.tx.send((change, reply)).await.map_err(|_| {
            StoreError::unavailable("the writer has stopped", "its channel is closed")
        })?;
        answer.await.map_err(|_| {
            StoreError::unavailable("the writer has stopped", "its channel is closed")
        })?
    }
}
