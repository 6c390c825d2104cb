//! The Scheduler gRPC service: requests decoded and checked here, work done by [`Core`].

use std::sync::Arc;

use hanniball_arbiter::PlayerId;
use hanniball_pairing::tiebreak::TieBreak;
use hanniball_proto::scheduler::v1 as pb;
use hanniball_rules::GameKind;
use hanniball_store::scheduler::{ByeRow, EntrantRow, QueueRow, TournamentRow};
use hanniball_svc_kit::limits;
use hanniball_svc_kit::{Auth, Caller, Scope};
use tonic::{Request, Response, Status};

use crate::core::{Core, now_ms, time_control};
use crate::error::{ServiceError, ServiceResult};
use crate::model::{self, Loaded};

/// The service.
#[derive(Debug)]
pub struct SchedulerService {
    pub core: Core,
    pub auth: Arc<Auth>,
}

impl SchedulerService {
    /// The caller, if its token holds `scope` (README, "Token scopes").
    async fn caller<T>(&self, request: &Request<T>, scope: Scope) -> ServiceResult<Caller> {
        Ok(self
            .auth
            .caller(request.metadata(), &self.core.store, scope)
            .await?)
    }

    async fn admin<T>(&self, request: &Request<T>) -> ServiceResult<()> {
        Ok(self.caller(request, Scope::Admin).await?.require_admin()?)
    }

    /// The player a tournament-entry call is about, with who asks: the organiser names any
    /// player; a player (with the `queue` scope: an entry is how a bot gets games from the
    /// scheduler) only itself, as its own id or 0 ("me").
    async fn entrant(
        &self,
        request: &Request<impl Sized>,
        player: i64,
    ) -> ServiceResult<(Caller, i64)> {
        match self.caller(request, Scope::Queue).await? {
            Caller::Admin => Ok((Caller::Admin, positive(player, "player_id")?)),
            Caller::Player(id) if player == 0 || id.0 == player => Ok((Caller::Player(id), id.0)),
            Caller::Player(_) => Err(ServiceError::NotYou(player)),
        }
    }
}

fn system_name(system: pb::PairingSystem) -> &'static str {
    match system {
        pb::PairingSystem::RoundRobin => model::ROUND_ROBIN,
        pb::PairingSystem::DoubleRoundRobin => model::DOUBLE_ROUND_ROBIN,
        pb::PairingSystem::SwissDutch | pb::PairingSystem::Unspecified => model::SWISS,
    }
}

fn system_of(name: &str) -> pb::PairingSystem {
    match name {
        model::ROUND_ROBIN => pb::PairingSystem::RoundRobin,
        model::DOUBLE_ROUND_ROBIN => pb::PairingSystem::DoubleRoundRobin,
        _ => pb::PairingSystem::SwissDutch,
    }
}

fn status_of(name: &str) -> pb::TournamentStatus {
    match name {
        "registration" => pb::TournamentStatus::Registration,
        "running" => pb::TournamentStatus::Running,
        "finished" => pb::TournamentStatus::Finished,
        _ => pb::TournamentStatus::Unspecified,
    }
}

fn kind_of(name: &str) -> pb::BoardKind {
    match name {
        model::GAME => pb::BoardKind::Game,
        model::PAIRING_BYE => pb::BoardKind::PairingBye,
        model::HALF_BYE => pb::BoardKind::HalfPointBye,
        model::ZERO_BYE => pb::BoardKind::ZeroPointBye,
        model::ABSENT => pb::BoardKind::Absent,
        _ => pb::BoardKind::Unspecified,
    }
}

fn board(row: &hanniball_store::scheduler::BoardRow) -> pb::Board {
    pb::Board {
        round: row.round as u32,
        number: row.board as u32,
        kind: kind_of(&row.kind).into(),
        white_player_id: row.white_id,
        black_player_id: row.black_id.unwrap_or(0),
        game_id: row.game_id.unwrap_or(0),
        result: row.result.clone().unwrap_or_default(),
        corrected: row.corrected,
    }
}

/// The settings of a stored tournament, as sent.
fn settings(t: &TournamentRow) -> pb::TournamentSettings {
    pb::TournamentSettings {
        name: t.name.clone(),
        kind: t.kind.clone(),
        ruleset: t.ruleset.clone(),
        system: system_of(&t.system).into(),
        rounds: t.rounds as u32,
        time_control: time_control(t.initial_ms, t.increment_ms),
        max_turns: t.max_turns as u32,
        rated: t.rated,
        bye_points: t.bye_points as u32,
        bye_points_set: true,
        tiebreaks: t.tiebreaks.split(',').map(str::to_owned).collect(),
        top_seed_black: t.initial_colour == "black1",
        forfeit_withdraws: t.forfeit_withdraws,
        manual_pairing: !t.auto_pair,
        self_entry: t.self_entry,
        late_self_entry: t.late_self_entry,
    }
}

/// A loaded tournament, as sent (with or without its boards).
fn tournament(loaded: &Loaded, with_boards: bool) -> pb::Tournament {
    let t = &loaded.tournament;
    let model = loaded.model();
    let entrants = loaded
        .entrants
        .iter()
        .map(|(e, name)| pb::Entrant {
            player_id: e.player_id,
            name: name.clone(),
            start_rank: e.start_rank.unwrap_or(0) as u32,
            rating: e.rating,
            joined_round: e.joined_round as u32,
            withdrawn_from: e.withdrawn_from.unwrap_or(0) as u32,
            score_halves: e.start_rank.map_or(0, |r| {
                model
                    .score(hanniball_pairing::PlayerId(r as u32))
                    .half_points()
            }),
        })
        .collect();
    pb::Tournament {
        id: t.id,
        settings: Some(settings(t)),
        status: status_of(&t.status).into(),
        current_round: t.current_round as u32,
        rounds: loaded.total_rounds(),
        entrants,
        boards: if with_boards {
            loaded.boards.iter().map(board).collect()
        } else {
            Vec::new()
        },
        created_at_ms: t.created_at_ms,
    }
}

fn positive(id: i64, what: &'static str) -> ServiceResult<i64> {
    if id > 0 {
        Ok(id)
    } else {
        Err(ServiceError::InvalidArgument(format!(
            "{what} must be a positive id, got {id}"
        )))
    }
}

fn game_kind(kind: &str, ruleset: &str) -> ServiceResult<(GameKind, String)> {
    let (kind_text, ruleset_text) = (limits::quote(kind), limits::quote(ruleset));
    let kind: GameKind = if kind.is_empty() {
        GameKind::HanniBall
    } else {
        kind.parse().map_err(|_| {
            ServiceError::InvalidArgument(format!(
                "unknown game kind {kind_text}: expected hanniball or paper-football"
            ))
        })?
    };
    let ruleset = if ruleset.is_empty() {
        kind.rulesets()[0].to_owned()
    } else if kind.rulesets().contains(&ruleset) {
        ruleset.to_owned()
    } else {
        return Err(ServiceError::InvalidArgument(format!(
            "unknown ruleset {ruleset_text} for {}: expected one of {}",
            kind.name(),
            kind.rulesets().join(", ")
        )));
    };
    Ok((kind, ruleset))
}

/// Longest initial clock time (30 days) and increment (1 day), as the arbiter accepts them.
const MAX_INITIAL_MS: i64 = 30 * 24 * 3_600_000;
const MAX_INCREMENT_MS: i64 = 24 * 3_600_000;

fn check_time_control(tc: Option<&hanniball_proto::arbiter::v1::TimeControl>) -> ServiceResult<()> {
    if let Some(tc) = tc
        && (!(1..=MAX_INITIAL_MS).contains(&tc.initial_ms)
            || !(0..=MAX_INCREMENT_MS).contains(&tc.increment_ms))
    {
        return Err(ServiceError::InvalidArgument(format!(
            "time control needs 0 < initial_ms <= {MAX_INITIAL_MS} (30 days) and \
             0 <= increment_ms <= {MAX_INCREMENT_MS} (1 day), got {} and {}",
            tc.initial_ms, tc.increment_ms
        )));
    }
    Ok(())
}

#[tonic::async_trait]
impl pb::scheduler_server::Scheduler for SchedulerService {
    async fn create_tournament(
        &self,
        request: Request<pb::CreateTournamentRequest>,
    ) -> Result<Response<pb::CreateTournamentResponse>, Status> {
        self.admin(&request).await?;
        let s = request
            .into_inner()
            .settings
            .ok_or_else(|| ServiceError::InvalidArgument("settings are required".to_owned()))?;
        limits::text("settings.name", &s.name, limits::TEXT)?;
        limits::text("settings.kind", &s.kind, limits::NAME)?;
        limits::text("settings.ruleset", &s.ruleset, limits::NAME)?;
        limits::list("settings.tiebreaks", s.tiebreaks.len(), 16)?;
        for t in &s.tiebreaks {
            limits::text("settings.tiebreaks", t, limits::NAME)?;
        }
        let (kind, ruleset) = game_kind(&s.kind, &s.ruleset)?;
        check_time_control(s.time_control.as_ref())?;
        let system = system_name(s.system());
        if system == model::SWISS && !(1..=99).contains(&s.rounds) {
            return Err(ServiceError::InvalidArgument(format!(
                "a Swiss tournament needs 1 to 99 rounds, got {}",
                s.rounds
            ))
            .into());
        }
        let bye_points = if s.bye_points_set || s.bye_points != 0 {
            s.bye_points
        } else {
            2
        };
        if bye_points > 2 {
            return Err(ServiceError::InvalidArgument(format!(
                "bye points are half-points: 0, 1 or 2, got {bye_points}"
            ))
            .into());
        }
        let tiebreaks: Vec<TieBreak> = if s.tiebreaks.is_empty() {
            if system == model::SWISS {
                vec![
                    TieBreak::BuchholzCut1,
                    TieBreak::Buchholz,
                    TieBreak::SonnebornBerger,
                ]
            } else {
                vec![
                    TieBreak::SonnebornBerger,
                    TieBreak::DirectEncounter,
                    TieBreak::Wins,
                ]
            }
        } else {
            s.tiebreaks
                .iter()
                .map(|name| {
                    name.parse()
                        .map_err(|e: hanniball_pairing::tiebreak::UnknownTieBreak| {
                            ServiceError::InvalidArgument(e.to_string())
                        })
                })
                .collect::<ServiceResult<_>>()?
        };
        let name = if s.name.trim().is_empty() {
            "Tournament".to_owned()
        } else {
            s.name.trim().to_owned()
        };
        if s.late_self_entry && system != model::SWISS {
            return Err(ServiceError::InvalidArgument(
                "late_self_entry is for Swiss tournaments: a round robin takes no late entries"
                    .to_owned(),
            )
            .into());
        }
        let row = TournamentRow {
            id: 0,
            name,
            kind: kind.name().to_owned(),
            ruleset,
            system: system.to_owned(),
            rounds: s.rounds as i32,
            initial_ms: s.time_control.map(|tc| tc.initial_ms),
            increment_ms: s.time_control.map(|tc| tc.increment_ms),
            max_turns: s.max_turns as i32,
            rated: s.rated,
            bye_points: bye_points as i32,
            tiebreaks: tiebreaks
                .iter()
                .map(ToString::to_string)
                .collect::<Vec<_>>()
                .join(","),
            initial_colour: if s.top_seed_black { "black1" } else { "white1" }.to_owned(),
            forfeit_withdraws: s.forfeit_withdraws,
            auto_pair: !s.manual_pairing,
            self_entry: s.self_entry || s.late_self_entry,
            late_self_entry: s.late_self_entry,
            status: "registration".to_owned(),
            current_round: 0,
            created_at_ms: now_ms(),
        };
        let id = self
            .core
            .store
            .create_tournament(&row)
            .await
            .map_err(ServiceError::from)?;
        tracing::info!(tournament = id, "tournament created");
        let loaded = self.core.load(id).await?;
        Ok(Response::new(pb::CreateTournamentResponse {
            tournament: Some(tournament(&loaded, true)),
        }))
    }

    async fn get_tournament(
        &self,
        request: Request<pb::GetTournamentRequest>,
    ) -> Result<Response<pb::GetTournamentResponse>, Status> {
        self.caller(&request, Scope::Read).await?;
        let id = positive(request.get_ref().tournament_id, "tournament_id")?;
        let loaded = self.core.load(id).await?;
        Ok(Response::new(pb::GetTournamentResponse {
            tournament: Some(tournament(&loaded, true)),
        }))
    }

    async fn list_tournaments(
        &self,
        request: Request<pb::ListTournamentsRequest>,
    ) -> Result<Response<pb::ListTournamentsResponse>, Status> {
        self.caller(&request, Scope::Read).await?;
        let status = match request.get_ref().status() {
            pb::TournamentStatus::Unspecified => None,
            pb::TournamentStatus::Registration => Some("registration"),
            pb::TournamentStatus::Running => Some("running"),
            pb::TournamentStatus::Finished => Some("finished"),
        };
        let limit = match request.get_ref().limit {
            0 => 50,
            n => u64::from(n.min(500)),
        };
        let rows = self
            .core
            .store
            .tournaments(status, limit)
            .await
            .map_err(ServiceError::from)?;
        let mut tournaments = Vec::with_capacity(rows.len());
        for row in rows {
            let loaded = self.core.load(row.id).await?;
            tournaments.push(tournament(&loaded, false));
        }
        Ok(Response::new(pb::ListTournamentsResponse { tournaments }))
    }

    async fn add_player(
        &self,
        request: Request<pb::AddPlayerRequest>,
    ) -> Result<Response<pb::AddPlayerResponse>, Status> {
        let (caller, player) = self.entrant(&request, request.get_ref().player_id).await?;
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
            let open = match t.status.as_str() {
                "registration" => t.self_entry,
                "running" => t.late_self_entry,
                _ => true, // refused below: the tournament is over
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
            .store
            .player(PlayerId(player))
            .await
            .map_err(ServiceError::from)?
            .ok_or_else(|| ServiceError::NotFound {
                what: "player",
                id: player.to_string(),
            })?
            .name;
        let t = &loaded.tournament;
        if t.status == "finished" {
            return Err(
                ServiceError::FailedPrecondition(format!("tournament {id} is over")).into(),
            );
        }
        if t.status == "running" && t.system != model::SWISS {
            return Err(ServiceError::FailedPrecondition(
                "a round robin takes no late entries".to_owned(),
            )
            .into());
        }
        let rating = if r.rating > 0 {
            r.rating
        } else {
            self.core
                .ratings(&t.kind, &[player])
                .await
                .and_then(|m| m.get(&player).copied())
                .unwrap_or(0)
        };
        let late = t.status == "running";
        let row = EntrantRow {
            tournament_id: id,
            player_id: player,
            start_rank: None,
            rating,
            joined_round: if late { t.current_round + 1 } else { 1 },
            withdrawn_from: None,
        };
        self.core
            .store
            .add_entrant(&row)
            .await
            .map_err(|e| match e {
                hanniball_store::StoreError::Conflict(_) => ServiceError::AlreadyExists(format!(
                    "player {player} is already in tournament {id}"
                )),
                other => other.into(),
            })?;
        let mut row = row;
        if late {
            // A late entry is ranked after everyone (TRF pairing numbers never change).
            let rank = loaded.entrants.len() as i32 + 1;
            self.core
                .store
                .set_start_rank(id, PlayerId(player), rank)
                .await
                .map_err(ServiceError::from)?;
            row.start_rank = Some(rank);
        }
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

    async fn withdraw_player(
        &self,
        request: Request<pb::WithdrawPlayerRequest>,
    ) -> Result<Response<pb::WithdrawPlayerResponse>, Status> {
        let id = request.get_ref().tournament_id;
        let (_, player) = self.entrant(&request, request.get_ref().player_id).await?;
        let mut loaded = self.core.load(positive(id, "tournament_id")?).await?;
        let not_entered = || ServiceError::NotFound {
            what: "player in tournament",
            id: player.to_string(),
        };
        if !loaded.entrants.iter().any(|(e, _)| e.player_id == player) {
            return Err(not_entered().into());
        }
        if loaded.tournament.status == "registration" {
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
            if loaded.tournament.status == "registration" {
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

    async fn request_bye(
        &self,
        request: Request<pb::RequestByeRequest>,
    ) -> Result<Response<pb::RequestByeResponse>, Status> {
        let mut r = *request.get_ref();
        (_, r.player_id) = self.entrant(&request, r.player_id).await?;
        let loaded = self
            .core
            .load(positive(r.tournament_id, "tournament_id")?)
            .await?;
        if !loaded
            .entrants
            .iter()
            .any(|(e, _)| e.player_id == r.player_id)
        {
            return Err(ServiceError::NotFound {
                what: "player in tournament",
                id: r.player_id.to_string(),
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
            .request_bye(&ByeRow {
                tournament_id: r.tournament_id,
                player_id: r.player_id,
                round,
                points: i32::from(r.half_point),
            })
            .await
            .map_err(ServiceError::from)?;
        Ok(Response::new(pb::RequestByeResponse {}))
    }

    async fn start_tournament(
        &self,
        request: Request<pb::StartTournamentRequest>,
    ) -> Result<Response<pb::StartTournamentResponse>, Status> {
        self.admin(&request).await?;
        let id = positive(request.get_ref().tournament_id, "tournament_id")?;
        self.core.start(id).await?;
        let loaded = self.core.load(id).await?;
        Ok(Response::new(pb::StartTournamentResponse {
            tournament: Some(tournament(&loaded, true)),
        }))
    }

    async fn pair_next_round(
        &self,
        request: Request<pb::PairNextRoundRequest>,
    ) -> Result<Response<pb::PairNextRoundResponse>, Status> {
        self.admin(&request).await?;
        let id = positive(request.get_ref().tournament_id, "tournament_id")?;
        if !self.core.advance(id).await? {
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

    async fn set_result(
        &self,
        request: Request<pb::SetResultRequest>,
    ) -> Result<Response<pb::SetResultResponse>, Status> {
        self.admin(&request).await?;
        let r = request.into_inner();
        if !model::RESULTS.contains(&r.result.as_str()) {
            return Err(ServiceError::InvalidArgument(format!(
                "unknown result {}: expected one of {}",
                limits::quote(&r.result),
                model::RESULTS.join(", ")
            ))
            .into());
        }
        let loaded = self
            .core
            .load(positive(r.tournament_id, "tournament_id")?)
            .await?;
        let Some(row) = loaded
            .boards
            .iter()
            .find(|b| b.round as u32 == r.round && b.board as u32 == r.board)
        else {
            return Err(ServiceError::NotFound {
                what: "board",
                id: format!("{}.{}", r.round, r.board),
            }
            .into());
        };
        if row.kind != model::GAME {
            return Err(ServiceError::FailedPrecondition(format!(
                "board {}.{} is a {}, not a game",
                r.round, r.board, row.kind
            ))
            .into());
        }
        self.core
            .store
            .set_board_result(r.tournament_id, row.round, row.board, &r.result, true)
            .await
            .map_err(ServiceError::from)?;
        tracing::info!(tournament = r.tournament_id, round = r.round, board = r.board, result = %r.result, "result corrected");
        if loaded.tournament.auto_pair && loaded.tournament.status == "running" {
            self.core.advance(r.tournament_id).await?;
        }
        let loaded = self.core.load(r.tournament_id).await?;
        let row = loaded
            .boards
            .iter()
            .find(|b| b.round as u32 == r.round && b.board as u32 == r.board)
            .map(board);
        Ok(Response::new(pb::SetResultResponse { board: row }))
    }

    async fn get_standings(
        &self,
        request: Request<pb::GetStandingsRequest>,
    ) -> Result<Response<pb::GetStandingsResponse>, Status> {
        self.caller(&request, Scope::Read).await?;
        let loaded = self
            .core
            .load(positive(request.get_ref().tournament_id, "tournament_id")?)
            .await?;
        let current = loaded.tournament.current_round;
        let rounds = if loaded.round_complete(current) {
            current
        } else {
            current - 1
        }
        .max(0) as u32;
        let model = loaded.model();
        let order = loaded.tiebreaks();
        let table = hanniball_pairing::standings::standings(&model, rounds, &order)
            .map_err(|e| ServiceError::Internal(format!("inconsistent tournament: {e}")))?;
        let standings = table
            .iter()
            .map(|s| {
                let player = model.player(hanniball_pairing::PlayerId(s.player.0));
                let entrant = loaded
                    .entrants
                    .iter()
                    .find(|(e, _)| e.start_rank == Some(s.player.0 as i32));
                pb::Standing {
                    rank: s.rank,
                    player_id: entrant.map_or(0, |(e, _)| e.player_id),
                    name: player.map_or_else(String::new, |p| p.name.clone()),
                    start_rank: s.player.0,
                    rating: player.map_or(0, |p| p.rating as i32),
                    points: s.points.to_string(),
                    tiebreaks: s.values.iter().map(ToString::to_string).collect(),
                }
            })
            .collect();
        Ok(Response::new(pb::GetStandingsResponse {
            tiebreak_names: order.iter().map(ToString::to_string).collect(),
            standings,
            rounds,
        }))
    }

    async fn export_trf(
        &self,
        request: Request<pb::ExportTrfRequest>,
    ) -> Result<Response<pb::ExportTrfResponse>, Status> {
        self.caller(&request, Scope::Read).await?;
        let loaded = self
            .core
            .load(positive(request.get_ref().tournament_id, "tournament_id")?)
            .await?;
        let mut model = loaded.model();
        if let Some(ms) = loaded.tournament.initial_ms {
            model.info.time_control = Some(format!(
                "{}+{}",
                ms / 1000,
                loaded.tournament.increment_ms.unwrap_or(0) / 1000
            ));
        }
        model.info.kind = Some(format!(
            "{} {}",
            loaded.tournament.system, loaded.tournament.kind
        ));
        let trf = hanniball_pairing::trf::write(&model)
            .map_err(|e| Status::failed_precondition(e.to_string()))?;
        Ok(Response::new(pb::ExportTrfResponse { trf }))
    }

    async fn join_queue(
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
            .join_queue(&QueueRow {
                player_id: player.0,
                kind: kind.name().to_owned(),
                ruleset,
                initial_ms: r.time_control.map(|tc| tc.initial_ms),
                increment_ms: r.time_control.map(|tc| tc.increment_ms),
                rated: r.rated,
                joined_at_ms: now_ms(),
            })
            .await
            .map_err(ServiceError::from)?;
        tracing::info!(player = player.0, "joined the queue");
        Ok(Response::new(pb::JoinQueueResponse {}))
    }

    async fn leave_queue(
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

    async fn get_queue(
        &self,
        request: Request<pb::GetQueueRequest>,
    ) -> Result<Response<pb::GetQueueResponse>, Status> {
        self.caller(&request, Scope::Read).await?;
        let rows = self.core.store.queue().await.map_err(ServiceError::from)?;
        Ok(Response::new(pb::GetQueueResponse {
            waiting: rows
                .into_iter()
                .map(|r| pb::QueueEntry {
                    player_id: r.player_id,
                    kind: r.kind,
                    ruleset: r.ruleset,
                    time_control: time_control(r.initial_ms, r.increment_ms),
                    rated: r.rated,
                    joined_at_ms: r.joined_at_ms,
                })
                .collect(),
        }))
    }

    async fn ping(
        &self,
        _request: Request<pb::PingRequest>,
    ) -> Result<Response<pb::PingResponse>, Status> {
        Ok(Response::new(pb::PingResponse {}))
    }
}
