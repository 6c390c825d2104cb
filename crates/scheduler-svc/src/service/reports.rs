//! What a tournament reports: its standings and its TRF file.

use hanniball_ids::PlayerId;
use hanniball_proto::scheduler::v1 as pb;
use hanniball_svc_kit::Scope;
use tonic::{Request, Response, Status};

use super::{SchedulerService, positive};
use crate::domain::System;
use crate::error::ServiceError;

impl SchedulerService {
    /// `GetStandings`: the standings after a complete round, with tie-breaks.
    pub(super) async fn standings(
        &self,
        request: Request<pb::GetStandingsRequest>,
    ) -> Result<Response<pb::GetStandingsResponse>, Status> {
        self.caller(&request, Scope::Read).await?;
        let id = positive(request.get_ref().tournament_id, "tournament_id")?;
        let after = request.get_ref().after_round;
        let loaded = self.core.load(id).await?;
        let current = loaded.tournament.current_round;
        let complete = if loaded.round_complete(current) {
            current
        } else {
            current - 1
        }
        .max(0) as u32;
        if after > complete {
            return Err(ServiceError::FailedPrecondition(format!(
                "tournament {id} has no standings after round {after}: {}",
                match complete {
                    0 => "no round is complete yet".to_owned(),
                    n => format!("the last complete round is {n}"),
                }
            ))
            .into());
        }
        let rounds = if after == 0 { complete } else { after };
        // The standings of a big field take a while: off the async workers.
        let response = crate::core::off_runtime(move || {
            let model = loaded.model();
            let order = &loaded.tournament.tiebreaks;
            let options = loaded.tournament.tiebreak_options;
            let table = hanniball_pairing::standings::standings(&model, rounds, order, &options)
                .map_err(|e| ServiceError::Internal(format!("inconsistent tournament: {e}")))?;
            let ids: std::collections::HashMap<i32, i64> = loaded
                .entrants
                .iter()
                .filter_map(|(e, _)| e.start_rank.map(|rank| (rank, e.player.0)))
                .collect();
            let standings = table
                .iter()
                .map(|s| {
                    let player = model.player(hanniball_pairing::StartRank(s.player.0));
                    pb::Standing {
                        rank: s.rank,
                        player_id: ids.get(&(s.player.0 as i32)).copied().unwrap_or(0),
                        name: player.map_or_else(String::new, |p| p.name.clone()),
                        start_rank: s.player.0,
                        rating: player.map_or(0, |p| p.rating as i32),
                        points: s.points.to_string(),
                        tiebreaks: s.values.iter().map(ToString::to_string).collect(),
                    }
                })
                .collect();
            Ok(pb::GetStandingsResponse {
                tiebreak_names: order.iter().map(ToString::to_string).collect(),
                standings,
                rounds,
                tiebreak_rules: options.rules.to_string(),
                tiebreak_unrated: options.unrated.to_string(),
            })
        })
        .await?;
        Ok(Response::new(response))
    }

    /// `ExportTrf`: the tournament as a TRF file, a round under way included.
    pub(super) async fn export(
        &self,
        request: Request<pb::ExportTrfRequest>,
    ) -> Result<Response<pb::ExportTrfResponse>, Status> {
        self.caller(&request, Scope::Read).await?;
        let loaded = self
            .core
            .load(positive(request.get_ref().tournament_id, "tournament_id")?)
            .await?;
        let mut model = loaded.model();
        let details = &loaded.tournament.details;
        if let Some(tc) = loaded.tournament.time_control {
            model.info.time_control = Some(hanniball_rules::record::time_control(
                tc.initial_ms,
                tc.increment_ms,
            ));
        }
        // TRF-2026 `192`: the pairing system, so another program need not guess it.
        if loaded.tournament.system == System::Swiss {
            model.info.system = Some("FIDE_DUTCH_2025".to_owned());
        }
        model.info.kind = Some(format!(
            "{} {}",
            loaded.tournament.system, loaded.tournament.kind
        ));
        details.write_to(&mut model.info);
        // A round under way is written as programs save mid-round: its byes and finished games
        // with their results, its other games with a blank result (read back as unfinished).
        let ranks = loaded.by_rank();
        let rank =
            |id: PlayerId| hanniball_pairing::StartRank(ranks.get(&id).copied().unwrap_or(0));
        let current = loaded.tournament.current_round;
        let pending: Vec<_> = loaded
            .round_boards(current)
            .iter()
            .filter(|b| b.result.is_none())
            .filter_map(|b| Some((rank(b.white), rank(b.kind.black()?))))
            .collect();
        let unfinished = (!pending.is_empty()).then_some(hanniball_pairing::trf::UnfinishedRound {
            round: current as u32,
            games: pending,
        });
        let trf = hanniball_pairing::trf::write_unfinished(&model, unfinished.as_ref())
            .map_err(|e| Status::failed_precondition(e.to_string()))?;
        Ok(Response::new(pb::ExportTrfResponse { trf }))
    }
}
