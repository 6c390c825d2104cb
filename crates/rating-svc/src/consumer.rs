//! The results consumer: the arbiter's finished games (`WatchResults`) from the stored cursor on,
//! each batch recorded with the cursor in one transaction; reconnects with backoff.

use std::sync::Arc;
use std::time::Duration;

use hanniball_proto::arbiter::v1 as apb;
use hanniball_proto::arbiter::v1::arbiter_client::ArbiterClient;
use hanniball_svc_kit::AdminToken;
use tokio_stream::StreamExt;
use tokio_util::sync::CancellationToken;
use tonic::transport::Channel;

use crate::convert;
use crate::error::ServiceResult;
use crate::service::{CONSUMER, Shared};

/// The first wait after a failure; it doubles up to the configured maximum.
const MIN_BACKOFF: Duration = Duration::from_millis(100);
/// Results recorded per transaction at most (a catch-up after downtime comes in large batches).
const BATCH: usize = 500;

/// Runs until `shutdown`.
pub async fn run(
    shared: Arc<Shared>,
    channel: Channel,
    token: AdminToken,
    max_backoff: Duration,
    shutdown: CancellationToken,
) {
    let mut client = ArbiterClient::with_interceptor(channel, token);
    let mut backoff = MIN_BACKOFF;
    loop {
        let outcome = session(&shared, &mut client, &shutdown, &mut backoff).await;
        if shutdown.is_cancelled() {
            return;
        }
        match outcome {
            Ok(()) => tracing::info!("results stream ended; reconnecting"),
            Err(reason) => {
                tracing::warn!(%reason, backoff_ms = backoff.as_millis() as u64, "results consumer: retrying");
            }
        }
        if !hanniball_svc_kit::pause(backoff, &shutdown).await {
            return;
        }
        backoff = (backoff * 2).min(max_backoff.max(MIN_BACKOFF));
    }
}

/// One connection: from the stored cursor, until the stream ends, fails, or shutdown (`Ok`).
async fn session(
    shared: &Shared,
    client: &mut ArbiterClient<
        tonic::service::interceptor::InterceptedService<Channel, AdminToken>,
    >,
    shutdown: &CancellationToken,
    backoff: &mut Duration,
) -> Result<(), String> {
    let cursor = shared
        .store
        .rating_cursor(CONSUMER)
        .await
        .map_err(|e| format!("reading the cursor: {e}"))?;
    let response = tokio::select! {
        () = shutdown.cancelled() => return Ok(()),
        response = client.watch_results(apb::WatchResultsRequest { after_sequence: cursor }) => response,
    };
    let mut stream = response
        .map_err(|s| format!("WatchResults: {:?}: {}", s.code(), s.message()))?
        .into_inner();
    tracing::info!(after_sequence = cursor, "watching the arbiter's results");
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
        // Whatever else has arrived already goes into the same transaction.
        let mut batch = vec![first];
        while batch.len() < BATCH {
            match tokio::time::timeout(Duration::ZERO, stream.next()).await {
                Ok(Some(Ok(game))) => batch.push(game),
                // An error or the end shows again on the next read (or the reconnect resumes
                // from the stored cursor).
                _ => break,
            }
        }
        handle(shared, &batch)
            .await
            .map_err(|e| format!("recording results: {e}"))?;
        *backoff = MIN_BACKOFF;
    }
}

/// Records a batch of finished games and moves the cursor past them.
async fn handle(shared: &Shared, batch: &[apb::FinishedGame]) -> ServiceResult<()> {
    let mut events = Vec::with_capacity(batch.len());
    for game in batch {
        let event = convert::finished_game(game).and_then(|r| r.event(&shared.ladders));
        match event {
            Ok(Some(event)) => events.push(event),
            Ok(None) => {
                tracing::debug!(game_id = game.game_id, "unrated or aborted game skipped");
            }
            Err(error) => {
                tracing::warn!(game_id = game.game_id, %error, "finished game cannot be rated; skipped");
            }
        }
    }
    let cursor = batch.last().map(|g| g.sequence);
    let recorded = shared.record(&events, cursor).await?;
    for (event, recorded) in events.iter().zip(&recorded) {
        if let hanniball_store::rating::Recorded::New { sequence, points } = recorded {
            tracing::info!(
                ladder = %event.ladder,
                sequence,
                first = %event.change.first(),
                first_after = points.first_after,
                second_after = points.second_after,
                "game rated"
            );
        }
    }
    Ok(())
}
