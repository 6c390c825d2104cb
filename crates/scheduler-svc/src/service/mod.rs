//! The Scheduler gRPC service: requests decoded and checked here (`convert.rs`: once, into the
//! domain's types), work done by [`Core`]. One file per kind of call; this one holds who may
//! call what, and the trait's methods, each handing its request to the file of its kind.

mod convert;
mod entrants;
mod organisers;
mod queue;
mod reports;
mod results;
mod tournaments;

use std::sync::Arc;

use hanniball_proto::scheduler::v1 as pb;
use hanniball_svc_kit::{Auth, Caller, Scope};
use tonic::{Request, Response, Status};

use crate::core::Core;
use crate::error::{ServiceError, ServiceResult};

/// The service.
#[derive(Debug)]
pub struct SchedulerService {
    pub core: Core,
    pub auth: Arc<Auth>,
    pub pages: crate::PagesUrl,
}

impl SchedulerService {
    /// The caller, if its token holds `scope` (README, "Token scopes").
    async fn caller<T>(&self, request: &Request<T>, scope: Scope) -> ServiceResult<Caller> {
        Ok(self
            .auth
            .caller(request.metadata(), &self.core.accounts, scope)
            .await?)
    }

    /// Who may change tournament `id`: the admin, or one of its organisers with the `organise`
    /// scope; anyone else is refused before anything is read or changed. `Organiser::Player`
    /// carries the organiser's id.
    async fn organiser<T>(&self, request: &Request<T>, id: i64) -> ServiceResult<Caller> {
        let caller = self.caller(request, Scope::Organise).await?;
        self.organises(caller, id).await?;
        Ok(caller)
    }

    /// Fails unless `caller` (holding `organise`) may change tournament `id`.
    async fn organises(&self, caller: Caller, id: i64) -> ServiceResult<()> {
        let Caller::Player(me) = caller else {
            return Ok(());
        };
        let id = positive(id, "tournament_id")?;
        if self.core.store.is_organiser(id, me).await? {
            return Ok(());
        }
        if self.core.store.tournament_version(id).await?.is_none() {
            return Err(ServiceError::NotFound {
                what: "tournament",
                id: id.to_string(),
            });
        }
        Err(ServiceError::Denied(format!(
            "you do not organise tournament {id}: only its organisers and the admin change it"
        )))
    }

    /// The player a tournament-entry call is about, with who asks: the admin or one of the
    /// tournament's organisers names any player (answered as `Caller::Admin`: the organiser's
    /// rights); a player (with the `queue` scope: an entry is how a bot gets games from the
    /// scheduler) only itself, as its own id or 0 ("me").
    async fn entrant(
        &self,
        request: &Request<impl Sized>,
        tournament: i64,
        player: i64,
    ) -> ServiceResult<(Caller, i64)> {
        let grant = self
            .auth
            .grant(request.metadata(), &self.core.accounts)
            .await?;
        match grant.caller {
            Caller::Admin => Ok((Caller::Admin, positive(player, "player_id")?)),
            Caller::Player(id) if player == 0 || id.0 == player => {
                grant.require(Scope::Queue)?;
                Ok((Caller::Player(id), id.0))
            }
            Caller::Player(_) if grant.scopes.contains(Scope::Organise) => {
                self.organises(grant.caller, tournament).await?;
                Ok((Caller::Admin, positive(player, "player_id")?))
            }
            Caller::Player(_) => Err(ServiceError::Denied(format!(
                "only the organiser (admin) or player {player} may do this"
            ))),
        }
    }

    /// Who made a change, as the records say it: "admin", or the organiser's name.
    async fn by(&self, caller: Caller) -> String {
        match caller {
            Caller::Admin => "admin".to_owned(),
            Caller::Player(id) => match self.core.accounts.player(id).await {
                Ok(Some(row)) => row.name,
                _ => format!("player {id}"),
            },
        }
    }

    /// The organisers of the tournaments in `sent`, filled in.
    async fn with_organisers(&self, sent: &mut [pb::Tournament]) -> ServiceResult<()> {
        let ids: Vec<i64> = sent.iter().map(|t| t.id).collect();
        let mut found = self.core.store.organisers(&ids).await?;
        for t in sent {
            let organisers = found.remove(&t.id).unwrap_or_default();
            t.organiser_ids = organisers.into_iter().map(|p| p.0).collect();
        }
        Ok(())
    }
}

/// The largest TRF file `ImportTournament` reads (within the 256 KiB request limit).
const MAX_TRF_BYTES: usize = 200_000;

/// The most items one batch call carries.
const MAX_BATCH: usize = 10_000;
/// Adjudications in flight at once while entering many results.
const IN_FLIGHT: usize = 64;

fn positive(id: i64, what: &'static str) -> ServiceResult<i64> {
    if id > 0 {
        Ok(id)
    } else {
        Err(ServiceError::InvalidArgument(format!(
            "{what} must be a positive id, got {id}"
        )))
    }
}

#[tonic::async_trait]
impl pb::scheduler_server::Scheduler for SchedulerService {
    async fn create_tournament(
        &self,
        request: Request<pb::CreateTournamentRequest>,
    ) -> Result<Response<pb::CreateTournamentResponse>, Status> {
        self.create(request).await
    }

    async fn import_tournament(
        &self,
        request: Request<pb::ImportTournamentRequest>,
    ) -> Result<Response<pb::ImportTournamentResponse>, Status> {
        self.import(request).await
    }

    async fn get_tournament(
        &self,
        request: Request<pb::GetTournamentRequest>,
    ) -> Result<Response<pb::GetTournamentResponse>, Status> {
        self.get(request).await
    }

    async fn correct_result(
        &self,
        request: Request<pb::CorrectResultRequest>,
    ) -> Result<Response<pb::CorrectResultResponse>, Status> {
        self.corrected(request).await
    }

    async fn list_tournaments(
        &self,
        request: Request<pb::ListTournamentsRequest>,
    ) -> Result<Response<pb::ListTournamentsResponse>, Status> {
        self.list(request).await
    }

    async fn add_player(
        &self,
        request: Request<pb::AddPlayerRequest>,
    ) -> Result<Response<pb::AddPlayerResponse>, Status> {
        self.enter(request).await
    }

    async fn add_players(
        &self,
        request: Request<pb::AddPlayersRequest>,
    ) -> Result<Response<pb::AddPlayersResponse>, Status> {
        self.enter_many(request).await
    }

    async fn withdraw_player(
        &self,
        request: Request<pb::WithdrawPlayerRequest>,
    ) -> Result<Response<pb::WithdrawPlayerResponse>, Status> {
        self.withdraw(request).await
    }

    async fn request_bye(
        &self,
        request: Request<pb::RequestByeRequest>,
    ) -> Result<Response<pb::RequestByeResponse>, Status> {
        self.bye(request).await
    }

    async fn start_tournament(
        &self,
        request: Request<pb::StartTournamentRequest>,
    ) -> Result<Response<pb::StartTournamentResponse>, Status> {
        self.start(request).await
    }

    async fn pair_next_round(
        &self,
        request: Request<pb::PairNextRoundRequest>,
    ) -> Result<Response<pb::PairNextRoundResponse>, Status> {
        self.pair_next(request).await
    }

    async fn set_result(
        &self,
        request: Request<pb::SetResultRequest>,
    ) -> Result<Response<pb::SetResultResponse>, Status> {
        self.one_result(request).await
    }

    async fn set_results(
        &self,
        request: Request<pb::SetResultsRequest>,
    ) -> Result<Response<pb::SetResultsResponse>, Status> {
        self.many_results(request).await
    }

    async fn get_standings(
        &self,
        request: Request<pb::GetStandingsRequest>,
    ) -> Result<Response<pb::GetStandingsResponse>, Status> {
        self.standings(request).await
    }

    async fn export_trf(
        &self,
        request: Request<pb::ExportTrfRequest>,
    ) -> Result<Response<pb::ExportTrfResponse>, Status> {
        self.export(request).await
    }

    async fn join_queue(
        &self,
        request: Request<pb::JoinQueueRequest>,
    ) -> Result<Response<pb::JoinQueueResponse>, Status> {
        self.join(request).await
    }

    async fn leave_queue(
        &self,
        request: Request<pb::LeaveQueueRequest>,
    ) -> Result<Response<pb::LeaveQueueResponse>, Status> {
        self.leave(request).await
    }

    async fn get_queue(
        &self,
        request: Request<pb::GetQueueRequest>,
    ) -> Result<Response<pb::GetQueueResponse>, Status> {
        self.waiting(request).await
    }

    async fn ping(
        &self,
        _request: Request<pb::PingRequest>,
    ) -> Result<Response<pb::PingResponse>, Status> {
        Ok(Response::new(pb::PingResponse {}))
    }

    async fn set_forbidden_pair(
        &self,
        request: Request<pb::SetForbiddenPairRequest>,
    ) -> Result<Response<pb::SetForbiddenPairResponse>, Status> {
        Ok(Response::new(self.forbid(request).await?))
    }

    async fn set_tournament_details(
        &self,
        request: Request<pb::SetTournamentDetailsRequest>,
    ) -> Result<Response<pb::SetTournamentDetailsResponse>, Status> {
        Ok(Response::new(self.set_details(request).await?))
    }

    async fn delete_tournament(
        &self,
        request: Request<pb::DeleteTournamentRequest>,
    ) -> Result<Response<pb::DeleteTournamentResponse>, Status> {
        self.delete(request).await
    }

    async fn add_organiser(
        &self,
        request: Request<pb::AddOrganiserRequest>,
    ) -> Result<Response<pb::AddOrganiserResponse>, Status> {
        self.appoint(request).await
    }

    async fn remove_organiser(
        &self,
        request: Request<pb::RemoveOrganiserRequest>,
    ) -> Result<Response<pb::RemoveOrganiserResponse>, Status> {
        self.dismiss(request).await
    }
}
