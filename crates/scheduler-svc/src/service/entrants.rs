//! A tournament's players: entered (by themselves or the organiser), withdrawn, their byes.

use hanniball_ids::PlayerId;
use hanniball_proto::scheduler::v1 as pb;
use hanniball_svc_kit::Caller;
use hanniball_svc_kit::limits;
use tonic::{Request, Response, Status};

use super::{MAX_BATCH, SchedulerService, positive};
use crate::domain::{ByeRequest, Entrant, System, Tournament, TournamentStatus};
use crate::error::{ServiceError, ServiceResult};

/// Whether a tournament takes entries now: not once over, and a round robin not once started.
pub(super) fn takes_entries(t: &Tournament) -> ServiceResult<()> {
    if t.status == TournamentStatus::Finished {
        return Err(ServiceError::FailedPrecondition(format!(
            "tournament {} is over",
            t.id
        )));
    }
    if t.status == TournamentStatus::Running && t.system != System::Swiss {
        return Err(ServiceError::FailedPrecondition(
            "a round robin takes no late entries".to_owned(),
        ));
    }
    Ok(())
}

impl SchedulerService {
    /// `AddPlayer`: a player entered, by the organiser or by itself.
    pub(super) async fn enter(
        &self,
        request: Request<pb::AddPlayerRequest>,
    ) -> Result<Response<pb::AddPlayerResponse>, Status> {
        let (caller, player) = self
            .entrant(
                &request,
                request.get_ref().tournament_id,
                request.get_ref().player_id,
            )
            .await?;
        let r = request.into_inner();
        let id = positive(r.tournament_id, "tournament_id")?;
        let loaded = self.core.load(id).await?;
        if let Caller::Player(_) = caller {
            let t = &loaded.tournament;
            if r.rating != 0 {
                return Err(ServiceError::Denied(format!(
                    "only the organiser sets a seeding rating (rating {}); enter with rating 0 to be \
                     seeded by your rating",
                    r.rating
                ))
                .into());
            }
            let open = match t.status {
                TournamentStatus::Registration => t.self_entry,
                TournamentStatus::Running => t.late_self_entry,
                TournamentStatus::Finished => true, // refused below: the tournament is over
            };
            if !open {
                let why = if t.self_entry {
                    "open for entry only before the start"
                } else {
                    "not open for entry"
                };
                return Err(ServiceError::Denied(format!(
                    "tournament {id} is {why}; ask the organiser to add you"
                ))
                .into());
            }
        }
        let name = self
            .core
            .accounts
            .player(PlayerId(player))
            .await
            .map_err(ServiceError::from)?
            .ok_or_else(|| ServiceError::NotFound {
                what: "player",
                id: player.to_string(),
            })?
            .name;
        let t = loaded.tournament.clone();
        let entrants = loaded.entrants.len();
        // Not held across the calls below: a copy no call holds is changed in place.
        drop(loaded);
        let t = &t;
        takes_entries(t)?;
        let rating = if r.rating > 0 {
            r.rating
        } else {
            self.core
                .ratings(t.kind, &[PlayerId(player)])
                .await
                .and_then(|m| m.get(&PlayerId(player)).copied())
                .unwrap_or(0)
        };
        let late = t.status == TournamentStatus::Running;
        let row = Entrant {
            tournament_id: id,
            player: PlayerId(player),
            // A late entry is ranked after everyone (TRF pairing numbers never change).
            start_rank: late.then(|| entrants as i32 + 1),
            rating,
            joined_round: if late { t.current_round + 1 } else { 1 },
            withdrawn_from: None,
        };
        let version = self
            .core
            .store
            .add_entrant(&row)
            .await
            .map_err(|e| match e {
                crate::store::StoreError::Conflict(_) => ServiceError::AlreadyExists(format!(
                    "player {player} is already in tournament {id}"
                )),
                other => other.into(),
            })?;
        let entered = (row.clone(), name.clone());
        self.core
            .loaded
            .update(id, version, |loaded| loaded.enter(vec![entered]))
            .await;
        Ok(Response::new(pb::AddPlayerResponse {
            entrant: Some(pb::Entrant {
                player_id: player,
                name,
                start_rank: row.start_rank.unwrap_or(0) as u32,
                rating,
                joined_round: row.joined_round as u32,
                withdrawn_from: 0,
                score_halves: 0,
            }),
        }))
    }

    /// `AddPlayers`: players entered by the organiser, all or none.
    pub(super) async fn enter_many(
        &self,
        request: Request<pb::AddPlayersRequest>,
    ) -> Result<Response<pb::AddPlayersResponse>, Status> {
        self.organiser(&request, request.get_ref().tournament_id)
            .await?;
        let r = request.into_inner();
        limits::list("players", r.players.len(), MAX_BATCH)?;
        let id = positive(r.tournament_id, "tournament_id")?;
        let loaded = self.core.load(id).await?;
        let t = &loaded.tournament;
        takes_entries(t)?;
        let entered: std::collections::HashSet<i64> =
            loaded.entrants.iter().map(|(e, _)| e.player.0).collect();
        let mut asked = std::collections::HashSet::new();
        for entry in &r.players {
            let player = positive(entry.player_id, "player_id")?;
            if entered.contains(&player) || !asked.insert(player) {
                return Err(ServiceError::AlreadyExists(format!(
                    "player {player} is already in tournament {id} (or listed twice)"
                ))
                .into());
            }
        }
        let ids: Vec<PlayerId> = r.players.iter().map(|e| PlayerId(e.player_id)).collect();
        let names = self
            .core
            .accounts
            .player_names(&ids)
            .await
            .map_err(ServiceError::from)?;
        if let Some(missing) = ids.iter().find(|p| !names.contains_key(p)) {
            return Err(ServiceError::NotFound {
                what: "player",
                id: missing.0.to_string(),
            }
            .into());
        }
        let unrated: Vec<PlayerId> = r
            .players
            .iter()
            .filter(|e| e.rating <= 0)
            .map(|e| PlayerId(e.player_id))
            .collect();
        let ratings = if unrated.is_empty() {
            std::collections::BTreeMap::new()
        } else {
            self.core
                .ratings(t.kind, &unrated)
                .await
                .unwrap_or_default()
        };
        // Late entries are ranked after everyone, in the order given (TRF pairing numbers
        // never change).
        let late = t.status == TournamentStatus::Running;
        let rows: Vec<Entrant> = r
            .players
            .iter()
            .enumerate()
            .map(|(i, e)| Entrant {
                tournament_id: id,
                player: PlayerId(e.player_id),
                start_rank: late.then(|| (loaded.entrants.len() + i + 1) as i32),
                rating: if e.rating > 0 {
                    e.rating
                } else {
                    ratings.get(&PlayerId(e.player_id)).copied().unwrap_or(0)
                },
                joined_round: if late { t.current_round + 1 } else { 1 },
                withdrawn_from: None,
            })
            .collect();
        let version = self
            .core
            .store
            .add_entrants(&rows)
            .await
            .map_err(|e| match e {
                crate::store::StoreError::Conflict(_) => {
                    ServiceError::AlreadyExists(format!("a player is already in tournament {id}"))
                }
                other => other.into(),
            })?;
        let named: Vec<(Entrant, String)> = rows
            .into_iter()
            .map(|row| {
                let name = names.get(&row.player).cloned().unwrap_or_default();
                (row, name)
            })
            .collect();
        let entrants = named
            .iter()
            .map(|(row, name)| pb::Entrant {
                player_id: row.player.0,
                name: name.clone(),
                start_rank: row.start_rank.unwrap_or(0) as u32,
                rating: row.rating,
                joined_round: row.joined_round as u32,
                withdrawn_from: 0,
                score_halves: 0,
            })
            .collect();
        if let Some(version) = version {
            self.core
                .loaded
                .update(id, version, |loaded| loaded.enter(named))
                .await;
        }
        tracing::info!(
            tournament = id,
            players = r.players.len(),
            "players entered"
        );
        Ok(Response::new(pb::AddPlayersResponse { entrants }))
    }

    /// `WithdrawPlayer`: an entry taken back before the start, a withdrawal after it.
    pub(super) async fn withdraw(
        &self,
        request: Request<pb::WithdrawPlayerRequest>,
    ) -> Result<Response<pb::WithdrawPlayerResponse>, Status> {
        let id = request.get_ref().tournament_id;
        let (_, player) = self
            .entrant(&request, id, request.get_ref().player_id)
            .await?;
        let mut loaded = self.core.load(positive(id, "tournament_id")?).await?;
        let not_entered = || ServiceError::NotFound {
            what: "player",
            id: format!("{player} in tournament {id}"),
        };
        let Some((entry, name)) = loaded.entrants.iter().find(|(e, _)| e.player.0 == player) else {
            return Err(not_entered().into());
        };
        if let Some(from) = entry.withdrawn_from {
            return Err(ServiceError::FailedPrecondition(format!(
                "{name} is already withdrawn from tournament {id} (from round {from})"
            ))
            .into());
        }
        if loaded.tournament.status == TournamentStatus::Registration {
            // Before the start an entry is only a wish: leaving takes it back entirely (no
            // start rank, no absence in the standings, free to enter again).
            if self
                .core
                .store
                .remove_entrant(id, PlayerId(player))
                .await
                .map_err(ServiceError::from)?
            {
                tracing::info!(tournament = id, player, "entry removed before the start");
                return Ok(Response::new(pb::WithdrawPlayerResponse {
                    from_round: 1,
                    removed: true,
                }));
            }
            // Started (or left) meanwhile: look again.
            loaded = self.core.load(id).await?;
            if loaded.tournament.status == TournamentStatus::Registration {
                return Err(not_entered().into());
            }
        }
        let from = loaded.tournament.current_round + 1;
        self.core
            .store
            .withdraw_entrant(id, PlayerId(player), from)
            .await
            .map_err(ServiceError::from)?;
        tracing::info!(tournament = id, player, from, "player withdrawn");
        Ok(Response::new(pb::WithdrawPlayerResponse {
            from_round: from as u32,
            removed: false,
        }))
    }

    /// `RequestBye`: a bye asked for a future round.
    pub(super) async fn bye(
        &self,
        request: Request<pb::RequestByeRequest>,
    ) -> Result<Response<pb::RequestByeResponse>, Status> {
        let mut r = *request.get_ref();
        (_, r.player_id) = self.entrant(&request, r.tournament_id, r.player_id).await?;
        let loaded = self
            .core
            .load(positive(r.tournament_id, "tournament_id")?)
            .await?;
        if !loaded
            .entrants
            .iter()
            .any(|(e, _)| e.player.0 == r.player_id)
        {
            return Err(ServiceError::NotFound {
                what: "player",
                id: format!("{} in tournament {}", r.player_id, r.tournament_id),
            }
            .into());
        }
        let round = r.round as i32;
        if round <= loaded.tournament.current_round || r.round > loaded.total_rounds().max(1) {
            return Err(ServiceError::FailedPrecondition(format!(
                "round {} is not a future round of tournament {} (now at round {})",
                r.round, r.tournament_id, loaded.tournament.current_round
            ))
            .into());
        }
        self.core
            .store
            .request_bye(&ByeRequest {
                tournament_id: r.tournament_id,
                player: PlayerId(r.player_id),
                round,
                half_point: r.half_point,
            })
            .await
            .map_err(ServiceError::from)?;
        Ok(Response::new(pb::RequestByeResponse {}))
    }
}
