//! The results consumer: the arbiter's finished games (followed by svc-kit from the stored cursor
//! on), each batch recorded with the cursor in one transaction.

use std::sync::Arc;
use std::time::Duration;

use hanniball_proto::arbiter::v1 as apb;
use hanniball_proto::arbiter::v1::arbiter_client::ArbiterClient;
use hanniball_svc_kit::{AdminToken, Results, follow_results};
use tokio_util::sync::CancellationToken;
use tonic::transport::Channel;

use crate::convert;
use crate::error::ServiceResult;
use crate::service::{CONSUMER, Shared};

/// Runs until `shutdown`.
pub async fn run(
    shared: Arc<Shared>,
    channel: Channel,
    token: AdminToken,
    max_backoff: Duration,
    shutdown: CancellationToken,
) {
    let arbiter = ArbiterClient::with_interceptor(channel, token);
    follow_results(arbiter, Follower(shared), max_backoff, shutdown).await;
}

/// The rating service as a follower of results.
struct Follower(Arc<Shared>);

impl Results for Follower {
    async fn cursor(&self) -> Result<i64, String> {
        let cursor = self.0.store.rating_cursor(CONSUMER).await;
        cursor.map_err(|e| e.to_string())
    }

    async fn handle(&self, batch: &[apb::FinishedGame]) -> Result<(), String> {
        let recorded = handle(&self.0, batch).await;
        recorded.map_err(|e| format!("recording results: {e}"))
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
        if let crate::store::Recorded::New { sequence, points } = recorded {
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
