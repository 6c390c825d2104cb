//! Who organises a tournament: organisers added and removed.

use hanniball_ids::PlayerId;
use hanniball_proto::scheduler::v1 as pb;
use hanniball_svc_kit::Caller;
use hanniball_svc_kit::limits;
use tonic::{Request, Response, Status};

use super::SchedulerService;
use crate::error::{ServiceError, ServiceResult};

impl SchedulerService {
    /// `AddOrganiser`: an organiser (a player the admin made one) added.
    pub(super) async fn appoint(
        &self,
        request: Request<pb::AddOrganiserRequest>,
    ) -> Result<Response<pb::AddOrganiserResponse>, Status> {
        let r = *request.get_ref();
        self.organiser(&request, r.tournament_id).await?;
        let player = self
            .core
            .accounts
            .player(PlayerId(r.player_id))
            .await
            .map_err(ServiceError::from)?
            .ok_or_else(|| ServiceError::NotFound {
                what: "player",
                id: r.player_id.to_string(),
            })?;
        if !player.organiser {
            return Err(ServiceError::FailedPrecondition(format!(
                "{} (player {}) is not an organiser: the admin grants the right first",
                limits::quote(&player.name),
                player.id
            ))
            .into());
        }
        let added = self
            .core
            .store
            .add_organiser(r.tournament_id, player.id)
            .await
            .map_err(ServiceError::from)?
            .ok_or_else(|| ServiceError::NotFound {
                what: "tournament",
                id: r.tournament_id.to_string(),
            })?;
        let organiser_ids = self.organiser_ids(r.tournament_id).await?;
        tracing::info!(
            tournament = r.tournament_id,
            player = r.player_id,
            added,
            "organiser added"
        );
        Ok(Response::new(pb::AddOrganiserResponse {
            added,
            organiser_ids,
        }))
    }

    /// `RemoveOrganiser`: an organiser removed (never the last by itself).
    pub(super) async fn dismiss(
        &self,
        request: Request<pb::RemoveOrganiserRequest>,
    ) -> Result<Response<pb::RemoveOrganiserResponse>, Status> {
        let r = *request.get_ref();
        let caller = self.organiser(&request, r.tournament_id).await?;
        let store = &self.core.store;
        if caller == Caller::Admin
            && store
                .tournament_version(r.tournament_id)
                .await
                .map_err(ServiceError::from)?
                .is_none()
        {
            return Err(ServiceError::NotFound {
                what: "tournament",
                id: r.tournament_id.to_string(),
            }
            .into());
        }
        let before = self.organiser_ids(r.tournament_id).await?;
        if caller == Caller::Player(PlayerId(r.player_id)) && before == [r.player_id] {
            return Err(ServiceError::FailedPrecondition(format!(
                "you are the last organiser of tournament {}: add another first (or ask the admin)",
                r.tournament_id
            ))
            .into());
        }
        let removed = self
            .core
            .store
            .remove_organiser(r.tournament_id, PlayerId(r.player_id))
            .await
            .map_err(ServiceError::from)?;
        let organiser_ids = self.organiser_ids(r.tournament_id).await?;
        tracing::info!(
            tournament = r.tournament_id,
            player = r.player_id,
            removed,
            "organiser removed"
        );
        Ok(Response::new(pb::RemoveOrganiserResponse {
            removed,
            organiser_ids,
        }))
    }

    async fn organiser_ids(&self, id: i64) -> ServiceResult<Vec<i64>> {
        Ok(self
            .core
            .store
            .organisers(&[id])
            .await?
            .remove(&id)
            .unwrap_or_default()
            .into_iter()
            .map(|p| p.0)
            .collect())
    }
}
