//! Following the arbiter's finished games (`WatchResults`) from a stored cursor, as the rating
//! service and the scheduler both do: in batches of what has arrived, reconnecting with backoff
//! after a failure or the stream's end, until shutdown.

use std::future::Future;
use std::time::Duration;

use hanniball_proto::arbiter::v1 as apb;
use hanniball_proto::arbiter::v1::arbiter_client::ArbiterClient;
use tokio_stream::StreamExt;
use tokio_util::sync::CancellationToken;
use tonic::service::interceptor::InterceptedService;
use tonic::transport::Channel;

use crate::AdminToken;

/// The arbiter as the services call it (with the admin token).
pub type ArbiterAsAdmin = ArbiterClient<InterceptedService<Channel, AdminToken>>;

/// The first wait after a failure; it doubles up to the follower's maximum.
const MIN_BACKOFF: Duration = Duration::from_millis(100);
/// Results handed over at once at most (a catch-up after downtime comes in large batches).
const BATCH: usize = 500;

/// What a follower does with the finished games.
pub trait Results: Send + Sync {
    /// The sequence of the last result handled (0: none yet).
    fn cursor(&self) -> impl Future<Output = Result<i64, String>> + Send;
    /// Handles finished games (in sequence order) and moves the cursor past them. Handling a
    /// game twice must be harmless: a reconnect resends what came after the stored cursor.
    fn handle(
        &self,
        batch: &[apb::FinishedGame],
    ) -> impl Future<Output = Result<(), String>> + Send;
}

/// Follows `WatchResults` until `shutdown`, from the stored cursor on; after a failure waits
/// 100 ms, doubling up to `max_backoff`, and resumes from the cursor.
pub async fn follow_results(
    mut arbiter: ArbiterAsAdmin,
    results: impl Results,
    max_backoff: Duration,
    shutdown: CancellationToken,
) {
    let mut backoff = MIN_BACKOFF;
    loop {
        let outcome = session(&mut arbiter, &results, &shutdown, &mut backoff).await;
        if shutdown.is_cancelled() {
            return;
        }
        match outcome {
            Ok(()) => tracing::info!("results stream ended; reconnecting"),
            Err(reason) => tracing::warn!(
                %reason,
                backoff_ms = backoff.as_millis() as u64,
                "following results: retrying"
            ),
        }
        if !crate::pause(backoff, &shutdown).await {
            return;
        }
        backoff = (backoff * 2).min(max_backoff.max(MIN_BACKOFF));
    }
}

/// One connection: from the stored cursor until the stream ends (`Ok`), fails, or shutdown.
async fn session(
    arbiter: &mut ArbiterAsAdmin,
    results: &impl Results,
    shutdown: &CancellationToken,
    backoff: &mut Duration,
) -> Result<(), String> {
    let cursor = results
        .cursor()
        .await
        .map_err(|e| format!("reading the cursor: {e}"))?;
    let request = apb::WatchResultsRequest {
        after_sequence: cursor,
    };
    let response = tokio::select! {
        () = shutdown.cancelled() => return Ok(()),
        response = arbiter.watch_results(request) => response,
    };
    let mut stream = response
        .map_err(|s| format!("WatchResults: {:?}: {}", s.code(), s.message()))?
        .into_inner();
    tracing::info!(after_sequence = cursor, "following the arbiter's results");
    loop {
        let first = tokio::select! {
            () = shutdown.cancelled() => return Ok(()),
            item = stream.next() => item,
        };
        let first = match first {
            None => return Ok(()),
            Some(Err(s)) => return Err(format!("results stream: {:?}: {}", s.code(), s.message())),
            Some(Ok(game)) => game,
        };
        // Whatever else has arrived already goes into the same batch.
        let mut batch = vec![first];
        while batch.len() < BATCH {
            match tokio::time::timeout(Duration::ZERO, stream.next()).await {
                Ok(Some(Ok(game))) => batch.push(game),
                // An error or the end shows again on the next read (or the reconnect resumes
                // from the stored cursor).
                _ => break,
            }
        }
        results.handle(&batch).await?;
        *backoff = MIN_BACKOFF;
    }
}
