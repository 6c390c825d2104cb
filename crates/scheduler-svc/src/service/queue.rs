//! The matchmaking queue: joined, left, listed.

use hanniball_proto::scheduler::v1 as pb;
use hanniball_svc_kit::limits;
use hanniball_svc_kit::{Caller, Scope};
use tonic::{Request, Response, Status};

use super::SchedulerService;
use super::convert::{check_time_control, game_kind, time_control_of};
use crate::core::{now, time_control};
use crate::domain::QueueEntry;
use crate::error::ServiceError;

impl SchedulerService {
    /// `JoinQueue`: a player waits for a game.
    pub(super) async fn join(
        &self,
        request: Request<pb::JoinQueueRequest>,
    ) -> Result<Response<pb::JoinQueueResponse>, Status> {
        let Caller::Player(player) = self.caller(&request, Scope::Queue).await? else {
            return Err(ServiceError::InvalidArgument(
                "the admin does not play: join the queue with a player's token".to_owned(),
            )
            .into());
        };
        let r = request.into_inner();
        limits::text("kind", &r.kind, limits::NAME)?;
        limits::text("ruleset", &r.ruleset, limits::NAME)?;
        let (kind, ruleset) = game_kind(&r.kind, &r.ruleset)?;
        check_time_control(r.time_control.as_ref())?;
        self.core
            .store
            .join_queue(&QueueEntry {
                player,
                kind,
                ruleset,
                time_control: time_control_of(r.time_control),
                rated: r.rated,
                joined_at: now(),
            })
            .await
            .map_err(ServiceError::from)?;
        tracing::info!(player = player.0, "joined the queue");
        Ok(Response::new(pb::JoinQueueResponse {}))
    }

    /// `LeaveQueue`: a player stops waiting.
    pub(super) async fn leave(
        &self,
        request: Request<pb::LeaveQueueRequest>,
    ) -> Result<Response<pb::LeaveQueueResponse>, Status> {
        let Caller::Player(player) = self.caller(&request, Scope::Queue).await? else {
            return Err(ServiceError::InvalidArgument(
                "the admin is never in the queue".to_owned(),
            )
            .into());
        };
        let was_waiting = self
            .core
            .store
            .leave_queue(player)
            .await
            .map_err(ServiceError::from)?;
        Ok(Response::new(pb::LeaveQueueResponse { was_waiting }))
    }

    /// `GetQueue`: who waits, for what.
    pub(super) async fn waiting(
        &self,
        request: Request<pb::GetQueueRequest>,
    ) -> Result<Response<pb::GetQueueResponse>, Status> {
        self.caller(&request, Scope::Read).await?;
        let rows = self.core.store.queue().await.map_err(ServiceError::from)?;
        Ok(Response::new(pb::GetQueueResponse {
            waiting: rows
                .into_iter()
                .map(|r| pb::QueueEntry {
                    player_id: r.player.0,
                    kind: r.kind.name().to_owned(),
                    ruleset: r.ruleset,
                    time_control: time_control(r.time_control),
                    rated: r.rated,
                    joined_at_ms: r.joined_at.0,
                })
                .collect(),
        }))
    }
}
