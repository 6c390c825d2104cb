//! Tournaments as wholes: created, imported from TRF, read, listed, deleted, started, paired;
//! their forbidden pairs and details.

use hanniball_ids::PlayerId;
use hanniball_proto::scheduler::v1 as pb;
use hanniball_svc_kit::limits;
use hanniball_svc_kit::{Caller, Scope};
use tonic::{Request, Response, Status};

use super::convert::{
    correction, created, forbidden_pairs, settings_row, summary, system_name, tournament,
};
use super::{MAX_BATCH, MAX_TRF_BYTES, SchedulerService, positive};
use crate::details::Details;
use crate::domain::{System, TournamentStatus};
use crate::error::{ServiceError, ServiceResult};

impl SchedulerService {
    /// `CreateTournament`: a tournament from its settings, organised by its creator.
    pub(super) async fn create(
        &self,
        request: Request<pb::CreateTournamentRequest>,
    ) -> Result<Response<pb::CreateTournamentResponse>, Status> {
        let owner = owner(self.caller(&request, Scope::Organise).await?);
        let s = request
            .into_inner()
            .settings
            .ok_or_else(|| ServiceError::InvalidArgument("settings are required".to_owned()))?;
        let new = settings_row(&s)?;
        let id = self
            .core
            .store
            .create_tournament(&new, owner)
            .await
            .map_err(ServiceError::from)?;
        tracing::info!(tournament = id, "tournament created");
        let loaded = self.core.load(id).await?;
        Ok(Response::new(pb::CreateTournamentResponse {
            tournament: Some(created(&loaded, owner)),
        }))
    }

    /// `ImportTournament`: a Swiss started elsewhere, from its TRF file.
    pub(super) async fn import(
        &self,
        request: Request<pb::ImportTournamentRequest>,
    ) -> Result<Response<pb::ImportTournamentResponse>, Status> {
        let owner = owner(self.caller(&request, Scope::Organise).await?);
        let r = request.into_inner();
        if r.trf.len() > MAX_TRF_BYTES {
            return Err(ServiceError::InvalidArgument(format!(
                "trf is {} bytes; the limit is {MAX_TRF_BYTES}",
                r.trf.len()
            ))
            .into());
        }
        limits::list("player_ids", r.player_ids.len(), MAX_BATCH)?;
        let mut settings = r.settings.unwrap_or_default();
        let system = system_name(settings.system());
        if system != System::Swiss {
            return Err(ServiceError::InvalidArgument(
                "an imported tournament is a Swiss (system SWISS_DUTCH)".to_owned(),
            )
            .into());
        }
        let accept = r.accept_differences;
        let text = r.trf;
        let imported = crate::core::off_runtime(move || crate::import::read(&text, accept)).await?;
        if settings.rounds == 0 {
            settings.rounds = imported.tournament.total_rounds.max(imported.played);
        }
        if settings.name.trim().is_empty() {
            settings.name = imported.tournament.info.name.clone().unwrap_or_default();
        }
        // The details sent, or else the file's header.
        if settings
            .details
            .as_ref()
            .is_none_or(|d| *d == Default::default())
        {
            let details = Details::read_from(&imported.tournament.info)?;
            settings.details = Some(details.to_pb());
        }
        let base = settings_row(&settings)?;
        let typed: Vec<PlayerId> = r.player_ids.iter().copied().map(PlayerId).collect();
        let known = self
            .core
            .accounts
            .player_names(&typed)
            .await
            .map_err(ServiceError::from)?;
        if let Some((i, missing)) = r
            .player_ids
            .iter()
            .enumerate()
            .find(|(_, id)| !known.contains_key(&PlayerId(**id)))
        {
            return Err(ServiceError::NotFound {
                what: "player",
                id: format!("{missing} (player_ids[{i}], starting rank {})", i + 1),
            }
            .into());
        }
        let (t, entrants, boards) = crate::import::rows(&imported, &r.player_ids, base)?;
        let id = self
            .core
            .store
            .import_tournament(&t, &entrants, &boards, owner)
            .await
            .map_err(ServiceError::from)?;
        tracing::info!(
            tournament = id,
            players = entrants.len(),
            rounds = imported.played,
            "tournament imported"
        );
        let loaded = self.core.load(id).await?;
        Ok(Response::new(pb::ImportTournamentResponse {
            tournament: Some(created(&loaded, owner)),
        }))
    }

    /// `GetTournament`: a tournament whole, with its organisers, corrections and page.
    pub(super) async fn get(
        &self,
        request: Request<pb::GetTournamentRequest>,
    ) -> Result<Response<pb::GetTournamentResponse>, Status> {
        self.caller(&request, Scope::Read).await?;
        let id = positive(request.get_ref().tournament_id, "tournament_id")?;
        let loaded = self.core.load(id).await?;
        let mut sent = tournament(&loaded, true);
        self.with_organisers(std::slice::from_mut(&mut sent))
            .await?;
        sent.corrections = self
            .core
            .store
            .corrections(id)
            .await
            .map_err(ServiceError::from)?
            .iter()
            .map(correction)
            .collect();
        let base = self
            .pages
            .read()
            .map(|b| b.trim_end_matches('/').to_owned())
            .unwrap_or_default();
        Ok(Response::new(pb::GetTournamentResponse {
            tournament: Some(sent),
            page_url: if base.is_empty() {
                String::new()
            } else {
                format!("{base}/tournaments/{id}")
            },
        }))
    }

    /// `ListTournaments`: tournaments by status, name and entrant, newest first.
    pub(super) async fn list(
        &self,
        request: Request<pb::ListTournamentsRequest>,
    ) -> Result<Response<pb::ListTournamentsResponse>, Status> {
        self.caller(&request, Scope::Read).await?;
        let status = match request.get_ref().status() {
            pb::TournamentStatus::Unspecified => None,
            pb::TournamentStatus::Registration => Some(TournamentStatus::Registration),
            pb::TournamentStatus::Running => Some(TournamentStatus::Running),
            pb::TournamentStatus::Finished => Some(TournamentStatus::Finished),
        };
        let limit = match request.get_ref().limit {
            0 => 50,
            n => u64::from(n.min(500)),
        };
        let name = limits::query("name_contains", &request.get_ref().name_contains)?;
        let entrant = match request.get_ref().player_id {
            0 => None,
            id => Some(PlayerId(positive(id, "player_id")?)),
        };
        let found = self
            .core
            .store
            .tournaments(status, &name, entrant, limit)
            .await
            .map_err(ServiceError::from)?;
        let mut tournaments = Vec::with_capacity(found.len());
        for t in found {
            let loaded = self.core.load(t.id).await?;
            tournaments.push(summary(&loaded));
        }
        self.with_organisers(&mut tournaments).await?;
        Ok(Response::new(pb::ListTournamentsResponse { tournaments }))
    }

    /// `DeleteTournament`: a tournament that has not started.
    pub(super) async fn delete(
        &self,
        request: Request<pb::DeleteTournamentRequest>,
    ) -> Result<Response<pb::DeleteTournamentResponse>, Status> {
        let id = request.get_ref().tournament_id;
        self.organiser(&request, id).await?;
        let id = positive(id, "tournament_id")?;
        if !self
            .core
            .store
            .delete_tournament(id)
            .await
            .map_err(ServiceError::from)?
        {
            return Err(match self.core.store.tournament_version(id).await.map_err(ServiceError::from)? {
                None => ServiceError::NotFound {
                    what: "tournament",
                    id: id.to_string(),
                },
                Some(_) => ServiceError::FailedPrecondition(format!(
                    "tournament {id} has started: a started tournament is kept (withdraw players, or let it finish)"
                )),
            }
            .into());
        }
        tracing::info!(tournament = id, "tournament deleted");
        Ok(Response::new(pb::DeleteTournamentResponse {}))
    }

    /// `StartTournament`: seeds the players and pairs round 1.
    pub(super) async fn start(
        &self,
        request: Request<pb::StartTournamentRequest>,
    ) -> Result<Response<pb::StartTournamentResponse>, Status> {
        self.organiser(&request, request.get_ref().tournament_id)
            .await?;
        let id = positive(request.get_ref().tournament_id, "tournament_id")?;
        self.core.start(id).await?;
        let loaded = self.core.load(id).await?;
        Ok(Response::new(pb::StartTournamentResponse {
            tournament: Some(tournament(&loaded, true)),
        }))
    }

    /// `PairNextRound`: pairs the next round once the current one is complete.
    pub(super) async fn pair_next(
        &self,
        request: Request<pb::PairNextRoundRequest>,
    ) -> Result<Response<pb::PairNextRoundResponse>, Status> {
        self.organiser(&request, request.get_ref().tournament_id)
            .await?;
        let id = positive(request.get_ref().tournament_id, "tournament_id")?;
        if !self.core.advance(id).await?.map_err(ServiceError::from)? {
            let loaded = self.core.load(id).await?;
            return Err(ServiceError::FailedPrecondition(format!(
                "round {} of tournament {id} still has unfinished games",
                loaded.tournament.current_round
            ))
            .into());
        }
        let loaded = self.core.load(id).await?;
        Ok(Response::new(pb::PairNextRoundResponse {
            tournament: Some(tournament(&loaded, true)),
        }))
    }

    pub(super) async fn forbid(
        &self,
        request: Request<pb::SetForbiddenPairRequest>,
    ) -> ServiceResult<pb::SetForbiddenPairResponse> {
        let r = *request.get_ref();
        self.organiser(&request, r.tournament_id).await?;
        let id = positive(r.tournament_id, "tournament_id")?;
        let (first, second) = (
            r.first_player_id.min(r.second_player_id),
            r.first_player_id.max(r.second_player_id),
        );
        if first == second {
            return Err(ServiceError::InvalidArgument(format!(
                "player {first} twice: a pair is two players"
            )));
        }
        let loaded = self.core.load(id).await?;
        if loaded.tournament.system != System::Swiss {
            return Err(ServiceError::FailedPrecondition(format!(
                "tournament {id} is a round robin: its pairings are Berger tables, so no pair can be forbidden"
            )));
        }
        if loaded.tournament.status == TournamentStatus::Finished {
            return Err(ServiceError::FailedPrecondition(format!(
                "tournament {id} is finished"
            )));
        }
        for player in [first, second] {
            if !loaded.entrants.iter().any(|(e, _)| e.player.0 == player) {
                return Err(ServiceError::NotFound {
                    what: "player",
                    id: format!("{player} in tournament {id}"),
                });
            }
        }
        let (first, second) = (PlayerId(first), PlayerId(second));
        let mut pairs = loaded.forbidden.clone();
        let version = self
            .core
            .store
            .set_forbidden_pair(id, first, second, r.forbidden)
            .await?;
        if let Some(version) = version {
            let change = |pairs: &mut Vec<(PlayerId, PlayerId)>| {
                pairs.retain(|p| *p != (first, second));
                if r.forbidden {
                    pairs.push((first, second));
                    pairs.sort_unstable();
                }
            };
            change(&mut pairs);
            self.core
                .loaded
                .update(id, version, |loaded| change(&mut loaded.forbidden))
                .await;
            tracing::info!(
                tournament = id,
                first = first.0,
                second = second.0,
                forbidden = r.forbidden,
                "forbidden pair set"
            );
        }
        Ok(pb::SetForbiddenPairResponse {
            changed: version.is_some(),
            forbidden_pairs: forbidden_pairs(&pairs),
        })
    }

    /// `SetTournamentDetails`: checked whole before anything is stored; the same details again
    /// store nothing.
    pub(super) async fn set_details(
        &self,
        request: Request<pb::SetTournamentDetailsRequest>,
    ) -> ServiceResult<pb::SetTournamentDetailsResponse> {
        let id = request.get_ref().tournament_id;
        self.organiser(&request, id).await?;
        let id = positive(id, "tournament_id")?;
        let details = Details::check(&request.into_inner().details.unwrap_or_default())?;
        // An unknown tournament is NOT_FOUND (the admin passes the organiser check unread).
        self.core.load(id).await?;
        let version = self.core.store.set_details(id, &details).await?;
        if let Some(version) = version {
            let kept = details.clone();
            self.core
                .loaded
                .update(id, version, |loaded| loaded.tournament.details = kept)
                .await;
            tracing::info!(tournament = id, "details set");
        }
        Ok(pb::SetTournamentDetailsResponse {
            changed: version.is_some(),
            details: Some(details.to_pb()),
        })
    }
}

/// Who organises a tournament `caller` creates: a player organises its own; the admin's has none.
pub(super) fn owner(caller: Caller) -> Option<PlayerId> {
    match caller {
        Caller::Player(me) => Some(me),
        Caller::Admin => None,
    }
}
