//! The gRPC service: requests decoded and checked once here, handed to the store, answers encoded.

use std::collections::HashMap;
use std::time::Instant;

use hanniball_ids::{GameId, PlayerId, Timestamp};
use hanniball_proto::rating::v1 as pb;
use hanniball_rating::{Score, System};
use hanniball_svc_kit::Player;
use hanniball_svc_kit::{Auth, Caller, Directory, Scope};
use tonic::{Request, Response, Status};

use crate::Clock;
use crate::convert;
use crate::error::{ServiceError, ServiceResult};
use crate::ladders::{self, Ladders};
use crate::store::{BoardFilter, Change, NewEvent, Recorded, Store, StoreError};

/// The consumer name of the rating service's results cursor.
pub const CONSUMER: &str = "rating";

/// What the service's calls and its consumer share.
#[derive(Debug)]
pub struct Shared {
    pub store: Store,
    /// Accounts: who the players are (the rating tables keep ids only).
    pub accounts: Directory,
    pub auth: Auth,
    pub ladders: Ladders,
    /// Held by every write of this process: writes apply one at a time, in order (the store's
    /// version guard covers writers in other processes).
    pub writer: tokio::sync::Mutex<()>,
    pub clock: Clock,
}

impl Shared {
    /// The caller, if its token holds `scope` (README, "Token scopes").
    async fn caller<T>(&self, request: &Request<T>, scope: Scope) -> ServiceResult<Caller> {
        Ok(self
            .auth
            .caller(request.metadata(), &self.accounts, scope)
            .await?)
    }

    async fn admin<T>(&self, request: &Request<T>) -> ServiceResult<()> {
        Ok(self.caller(request, Scope::Admin).await?.require_admin()?)
    }

    /// Records events (and moves the consumer's cursor), retrying a few times when another
    /// writer got there first.
    pub async fn record(
        &self,
        events: &[NewEvent],
        cursor: Option<i64>,
    ) -> ServiceResult<Vec<Recorded>> {
        let _writing = self.writer.lock().await;
        let now = Timestamp(self.clock.now_ms());
        let mut attempt = 0;
        loop {
            match self
                .store
                .record_rating_events(events, cursor.map(|c| (CONSUMER, c)), now, &self.ladders)
                .await
            {
                Err(StoreError::Conflict(detail)) if attempt < 5 => {
                    attempt += 1;
                    tracing::debug!(%detail, attempt, "rating write lost a race; retrying");
                }
                other => return Ok(other?),
            }
        }
    }

    async fn player(&self, player: Option<&pb::PlayerRef>) -> ServiceResult<Player> {
        match player.and_then(|p| p.player.as_ref()) {
            Some(pb::player_ref::Player::Id(id)) => self
                .accounts
                .player(PlayerId(*id))
                .await?
                .ok_or_else(|| ServiceError::NotFound {
                    what: "player",
                    id: id.to_string(),
                }),
            Some(pb::player_ref::Player::Name(name)) => self
                .accounts
                .player_by_name(name)
                .await?
                .ok_or_else(|| ServiceError::NotFound {
                    what: "player",
                    id: hanniball_svc_kit::limits::quote(name),
                }),
            None => Err(ServiceError::InvalidArgument(
                "give a player id or name".to_owned(),
            )),
        }
    }

    fn now_ms(&self) -> i64 {
        self.clock.now_ms()
    }
}

/// Page sizes: default 50, at most 500.
fn page_size(requested: u32) -> u64 {
    match requested {
        0 => 50,
        n => u64::from(n.min(500)),
    }
}

/// A page token that is a log sequence.
fn sequence_token(token: &str) -> ServiceResult<Option<i64>> {
    if token.is_empty() {
        return Ok(None);
    }
    token
        .parse::<i64>()
        .ok()
        .filter(|s| *s > 0)
        .map(Some)
        .ok_or_else(|| {
            ServiceError::InvalidArgument(format!(
                "bad page_token {}",
                hanniball_svc_kit::limits::quote(token)
            ))
        })
}

/// Where a leaderboard page starts: after this entry, with its rank and position.
#[derive(Clone, Copy, Debug, PartialEq)]
struct BoardCursor {
    rating: f64,
    player: PlayerId,
    rank: u64,
    position: u64,
}

/// A leaderboard page token: the filters it was made with, then the cursor. Opaque to clients.
fn board_token(ladder: &str, filter: &BoardFilter, cursor: &BoardCursor) -> String {
    format!(
        "{}|{}|{}|{:x}|{}|{}|{}",
        ladder,
        filter.min_games,
        filter.active_since.map_or(String::new(), |s| s.to_string()),
        cursor.rating.to_bits(),
        cursor.player.0,
        cursor.rank,
        cursor.position
    )
}

fn parse_board_token(
    token: &str,
    ladder: &str,
    filter: &BoardFilter,
) -> ServiceResult<Option<BoardCursor>> {
    if token.is_empty() {
        return Ok(None);
    }
    let bad = || {
        ServiceError::InvalidArgument(format!(
            "bad page_token {}",
            hanniball_svc_kit::limits::quote(token)
        ))
    };
    let mut fields = token.rsplitn(5, '|');
    let position = fields.next().and_then(|f| f.parse().ok()).ok_or_else(bad)?;
    let rank = fields.next().and_then(|f| f.parse().ok()).ok_or_else(bad)?;
    let player = fields.next().and_then(|f| f.parse().ok()).ok_or_else(bad)?;
    let bits = fields
        .next()
        .and_then(|f| u64::from_str_radix(f, 16).ok())
        .ok_or_else(bad)?;
    let filters = fields.next().ok_or_else(bad)?;
    let expected = format!(
        "{}|{}|{}",
        ladder,
        filter.min_games,
        filter.active_since.map_or(String::new(), |s| s.to_string())
    );
    if filters != expected {
        return Err(ServiceError::InvalidArgument(
            "page_token was made for another ladder or other filters".to_owned(),
        ));
    }
    Ok(Some(BoardCursor {
        rating: f64::from_bits(bits),
        player: PlayerId(player),
        rank,
        position,
    }))
}

/// The `hanniball.rating.v1.Rating` service.
#[derive(Clone, Debug)]
pub struct RatingService {
    pub shared: std::sync::Arc<Shared>,
}

impl RatingService {
    fn system(&self, ladder: &str) -> &System {
        self.shared.ladders.system(ladder)
    }
}

#[tonic::async_trait]
impl pb::rating_server::Rating for RatingService {
    async fn record_result(
        &self,
        request: Request<pb::RecordResultRequest>,
    ) -> Result<Response<pb::RecordResultResponse>, Status> {
        self.shared.admin(&request).await?;
        let r = request.get_ref();
        hanniball_svc_kit::limits::text("kind", &r.kind, hanniball_svc_kit::limits::NAME)?;
        hanniball_svc_kit::limits::text("ruleset", &r.ruleset, hanniball_svc_kit::limits::NAME)?;
        let result = convert::record_request(r)?;
        let Some(event) = result.event(&self.shared.ladders)? else {
            tracing::info!(game_id = result.game_id, "unrated or aborted game ignored");
            return Ok(Response::new(pb::RecordResultResponse {
                status: pb::RecordStatus::Ignored as i32,
                ..Default::default()
            }));
        };
        let players = [PlayerId(result.white), PlayerId(result.black)];
        let names = self
            .shared
            .accounts
            .player_names(&players)
            .await
            .map_err(ServiceError::from)?;
        if let Some(missing) = players.iter().find(|p| !names.contains_key(p)) {
            return Err(ServiceError::NotFound {
                what: "player",
                id: missing.to_string(),
            }
            .into());
        }
        let recorded = self
            .shared
            .record(std::slice::from_ref(&event), None)
            .await?;
        let (status, sequence, points) = match recorded.first() {
            Some(Recorded::New { sequence, points }) => {
                (pb::RecordStatus::Recorded, *sequence, Some(*points))
            }
            Some(Recorded::Duplicate { sequence, points }) => {
                (pb::RecordStatus::AlreadyRecorded, *sequence, *points)
            }
            Some(Recorded::Nothing) | None => {
                return Err(ServiceError::Internal("nothing recorded".to_owned()).into());
            }
        };
        tracing::info!(
            game_id = result.game_id,
            ladder = %event.ladder,
            sequence,
            status = ?status,
            "result recorded"
        );
        let (white, black) = convert::changes(&event, points.as_ref());
        Ok(Response::new(pb::RecordResultResponse {
            status: status as i32,
            ladder: event.ladder,
            sequence,
            white,
            black,
        }))
    }

    async fn get_rating(
        &self,
        request: Request<pb::GetRatingRequest>,
    ) -> Result<Response<pb::GetRatingResponse>, Status> {
        self.shared.caller(&request, Scope::Read).await?;
        let r = request.get_ref();
        let ladder = self.shared.ladders.resolve(&r.ladder)?;
        let player = self.shared.player(r.player.as_ref()).await?;
        let store = &self.shared.store;
        let stored = store
            .rating(&ladder, player.id)
            .await
            .map_err(ServiceError::from)?;
        let system = self.system(&ladder);
        let (rating, rank) = match stored {
            Some(row) => {
                let above = store
                    .players_above(&ladder, row.rating.rating)
                    .await
                    .map_err(ServiceError::from)?;
                (row.rating, above + 1)
            }
            None => (system.initial(), 0),
        };
        Ok(Response::new(pb::GetRatingResponse {
            rating: Some(convert::player_rating(
                system,
                &ladder,
                player.id,
                &player.name,
                &rating,
                rank,
                self.shared.now_ms(),
            )),
        }))
    }

    async fn get_ratings(
        &self,
        request: Request<pb::GetRatingsRequest>,
    ) -> Result<Response<pb::GetRatingsResponse>, Status> {
        self.shared.caller(&request, Scope::Read).await?;
        let r = request.get_ref();
        let ladder = self.shared.ladders.resolve(&r.ladder)?;
        if r.player_ids.len() > 10_000 {
            return Err(ServiceError::InvalidArgument(format!(
                "at most 10000 players per call, not {}",
                r.player_ids.len()
            ))
            .into());
        }
        let ids: Vec<PlayerId> = r.player_ids.iter().map(|id| PlayerId(*id)).collect();
        let store = &self.shared.store;
        let names = self
            .shared
            .accounts
            .player_names(&ids)
            .await
            .map_err(ServiceError::from)?;
        if let Some(missing) = ids.iter().find(|p| !names.contains_key(p)) {
            return Err(ServiceError::NotFound {
                what: "player",
                id: missing.to_string(),
            }
            .into());
        }
        let stored: HashMap<PlayerId, _> = store
            .ratings(&ladder, &ids)
            .await
            .map_err(ServiceError::from)?
            .into_iter()
            .map(|row| (row.player, row.rating))
            .collect();
        let system = self.system(&ladder);
        let initial = system.initial();
        let now = self.shared.now_ms();
        let ratings = ids
            .iter()
            .map(|id| {
                convert::player_rating(
                    system,
                    &ladder,
                    *id,
                    &names[id],
                    stored.get(id).unwrap_or(&initial),
                    0,
                    now,
                )
            })
            .collect();
        Ok(Response::new(pb::GetRatingsResponse { ratings }))
    }

    async fn leaderboard(
        &self,
        request: Request<pb::LeaderboardRequest>,
    ) -> Result<Response<pb::LeaderboardResponse>, Status> {
        self.shared.caller(&request, Scope::Read).await?;
        let r = request.get_ref();
        let ladder = self.shared.ladders.resolve(&r.ladder)?;
        if r.active_since_ms < 0 {
            return Err(ServiceError::InvalidArgument(format!(
                "active_since_ms must not be negative, got {}",
                r.active_since_ms
            ))
            .into());
        }
        let filter = BoardFilter {
            min_games: r.min_games,
            active_since: (r.active_since_ms > 0)
                .then(|| ladders::seconds(Timestamp(r.active_since_ms))),
        };
        let cursor = parse_board_token(&r.page_token, &ladder, &filter)?;
        let limit = page_size(r.page_size);
        let mut rows = self
            .shared
            .store
            .leaderboard(
                &ladder,
                filter,
                cursor.map(|c| (c.rating, c.player)),
                limit + 1,
            )
            .await
            .map_err(ServiceError::from)?;
        let more = rows.len() as u64 > limit;
        rows.truncate(usize::try_from(limit).unwrap_or(usize::MAX));
        // Names are Accounts': one question for the page.
        let ids: Vec<PlayerId> = rows.iter().map(|row| row.player).collect();
        let mut names = self
            .shared
            .accounts
            .player_names(&ids)
            .await
            .map_err(ServiceError::from)?;
        for row in &mut rows {
            row.name = names.remove(&row.player);
        }
        let system = self.system(&ladder);
        let now = self.shared.now_ms();
        let mut previous = cursor;
        let mut entries = Vec::with_capacity(rows.len());
        for row in &rows {
            let position = previous.map_or(0, |c| c.position) + 1;
            let rank = match previous {
                Some(p) if p.rating == row.rating.rating => p.rank,
                _ => position,
            };
            entries.push(convert::entry(system, row, rank, now));
            previous = Some(BoardCursor {
                rating: row.rating.rating,
                player: row.player,
                rank,
                position,
            });
        }
        let next_page_token = match previous {
            Some(last) if more => board_token(&ladder, &filter, &last),
            _ => String::new(),
        };
        Ok(Response::new(pb::LeaderboardResponse {
            entries,
            next_page_token,
        }))
    }

    async fn history(
        &self,
        request: Request<pb::HistoryRequest>,
    ) -> Result<Response<pb::HistoryResponse>, Status> {
        self.shared.caller(&request, Scope::Read).await?;
        let r = request.get_ref();
        let ladder = self.shared.ladders.resolve(&r.ladder)?;
        let player = self.shared.player(r.player.as_ref()).await?;
        let before = sequence_token(&r.page_token)?;
        let limit = page_size(r.page_size);
        let store = &self.shared.store;
        let mut rows = store
            .rating_history(&ladder, player.id, before, limit + 1)
            .await
            .map_err(ServiceError::from)?;
        let more = rows.len() as u64 > limit;
        rows.truncate(usize::try_from(limit).unwrap_or(usize::MAX));
        let mut opponents: Vec<PlayerId> = rows
            .iter()
            .filter_map(|row| match row.event.change {
                Change::Game { first, second, .. } | Change::Correction { first, second, .. } => {
                    Some(if first == player.id { second } else { first })
                }
                Change::Adjustment { .. } => None,
            })
            .collect();
        opponents.sort_unstable();
        opponents.dedup();
        let names = self
            .shared
            .accounts
            .player_names(&opponents)
            .await
            .map_err(ServiceError::from)?;
        let points = rows
            .iter()
            .map(|row| convert::history_point(row, player.id, &names))
            .collect();
        let next_page_token = match rows.last() {
            Some(last) if more => last.sequence.to_string(),
            _ => String::new(),
        };
        Ok(Response::new(pb::HistoryResponse {
            points,
            next_page_token,
        }))
    }

    async fn head_to_head(
        &self,
        request: Request<pb::HeadToHeadRequest>,
    ) -> Result<Response<pb::HeadToHeadResponse>, Status> {
        self.shared.caller(&request, Scope::Read).await?;
        let r = request.get_ref();
        let ladder = self.shared.ladders.resolve(&r.ladder)?;
        let player = self.shared.player(r.player.as_ref()).await?;
        let opponent = self.shared.player(r.opponent.as_ref()).await?;
        if player.id == opponent.id {
            return Err(ServiceError::InvalidArgument(format!(
                "a head-to-head needs two players, got {} twice",
                player.name
            ))
            .into());
        }
        let record = self
            .shared
            .store
            .head_to_head(&ladder, player.id, opponent.id)
            .await
            .map_err(ServiceError::from)?;
        Ok(Response::new(pb::HeadToHeadResponse {
            player_id: player.id.0,
            opponent_id: opponent.id.0,
            games: record.wins + record.draws + record.losses,
            wins: record.wins,
            draws: record.draws,
            losses: record.losses,
            last_played_ms: record.last_played.map_or(0, |t| t.0),
        }))
    }

    async fn performance(
        &self,
        request: Request<pb::PerformanceRequest>,
    ) -> Result<Response<pb::PerformanceResponse>, Status> {
        self.shared.caller(&request, Scope::Read).await?;
        let r = request.get_ref();
        let ladder = self.shared.ladders.resolve(&r.ladder)?;
        let player = self.shared.player(r.player.as_ref()).await?;
        if r.game_ids.is_empty() || r.game_ids.len() > 10_000 {
            return Err(ServiceError::InvalidArgument(format!(
                "give 1 to 10000 game ids, not {}",
                r.game_ids.len()
            ))
            .into());
        }
        let mut ids: Vec<GameId> = r.game_ids.iter().map(|id| GameId(*id)).collect();
        ids.sort_unstable();
        if let Some(pair) = ids.windows(2).find(|w| w[0] == w[1]) {
            return Err(
                ServiceError::InvalidArgument(format!("game {} is given twice", pair[0])).into(),
            );
        }
        let events = self
            .shared
            .store
            .rating_events_of_games(&ids)
            .await
            .map_err(ServiceError::from)?;
        let mut games: Vec<(f64, Score)> = Vec::with_capacity(events.len());
        for event in &events {
            let Change::Game {
                game_id,
                first,
                second,
                score,
            } = event.event.change
            else {
                continue;
            };
            if event.event.ladder != ladder {
                return Err(ServiceError::InvalidArgument(format!(
                    "game {game_id} counts for ladder {}, not {ladder}",
                    event.event.ladder
                ))
                .into());
            }
            let points = event.points.ok_or_else(|| {
                ServiceError::FailedPrecondition(format!(
                    "game {game_id} was imported and not yet rated; run a rebuild"
                ))
            })?;
            if first == player.id {
                games.push((points.second_before.unwrap_or_default(), score));
            } else if second == player.id {
                games.push((points.first_before, score.reverse()));
            } else {
                return Err(ServiceError::InvalidArgument(format!(
                    "{} did not play game {game_id}",
                    player.name
                ))
                .into());
            }
        }
        if games.len() < ids.len() {
            let found: Vec<i64> = events
                .iter()
                .filter_map(|e| match e.event.change {
                    Change::Game { game_id, .. } => Some(game_id.0),
                    Change::Correction { .. } | Change::Adjustment { .. } => None,
                })
                .collect();
            let missing = ids
                .iter()
                .find(|id| !found.contains(&id.0))
                .map_or(0, |id| id.0);
            return Err(ServiceError::NotFound {
                what: "rated game",
                id: missing.to_string(),
            }
            .into());
        }
        let performance = hanniball_rating::performance(&games)
            .ok_or_else(|| ServiceError::Internal("no performance for some games".to_owned()))?;
        let n = games.len() as f64;
        Ok(Response::new(pb::PerformanceResponse {
            performance,
            games: u32::try_from(games.len()).unwrap_or(u32::MAX),
            score: games.iter().map(|(_, s)| s.value()).sum(),
            average_opponent: games.iter().map(|(r, _)| r).sum::<f64>() / n,
        }))
    }

    async fn adjust_rating(
        &self,
        request: Request<pb::AdjustRatingRequest>,
    ) -> Result<Response<pb::AdjustRatingResponse>, Status> {
        self.shared.admin(&request).await?;
        let r = request.get_ref();
        let ladder = self.shared.ladders.resolve(&r.ladder)?;
        let player = self.shared.player(r.player.as_ref()).await?;
        let reason = r.reason.trim();
        if reason.is_empty() || reason.chars().count() > 500 {
            return Err(ServiceError::InvalidArgument(
                "an adjustment needs a reason of 1 to 500 characters".to_owned(),
            )
            .into());
        }
        if !(r.rating.is_finite() && r.rating > 0.0 && r.rating < 10_000.0) {
            return Err(ServiceError::InvalidArgument(format!(
                "rating must be between 0 and 10000, got {}",
                r.rating
            ))
            .into());
        }
        if matches!(self.system(&ladder), System::Elo(_)) && r.rating.fract() != 0.0 {
            return Err(ServiceError::InvalidArgument(format!(
                "Elo ratings are whole numbers, got {}",
                r.rating
            ))
            .into());
        }
        let operator = r.operator.trim();
        hanniball_svc_kit::limits::text("operator", operator, hanniball_svc_kit::limits::NAME)?;
        let actor = if operator.is_empty() {
            "admin".to_owned()
        } else {
            format!("admin:{operator}")
        };
        let event = NewEvent {
            ladder: ladder.clone(),
            at: Timestamp(self.shared.now_ms()),
            change: Change::Adjustment {
                player: player.id,
                rating: r.rating,
                reason: reason.to_owned(),
                actor: actor.clone(),
            },
        };
        let recorded = self
            .shared
            .record(std::slice::from_ref(&event), None)
            .await?;
        let Some(Recorded::New { sequence, points }) = recorded.first().copied() else {
            return Err(ServiceError::Internal("adjustment not recorded".to_owned()).into());
        };
        tracing::info!(
            player_id = %player.id,
            %ladder,
            before = points.first_before,
            after = points.first_after,
            %actor,
            reason,
            "rating adjusted"
        );
        let row = crate::store::EventRow {
            sequence,
            event,
            points: Some(points),
            recorded_at: Timestamp(self.shared.now_ms()),
        };
        Ok(Response::new(pb::AdjustRatingResponse {
            adjustment: Some(convert::adjustment(&row, &player.name)),
        }))
    }

    async fn list_adjustments(
        &self,
        request: Request<pb::ListAdjustmentsRequest>,
    ) -> Result<Response<pb::ListAdjustmentsResponse>, Status> {
        self.shared.admin(&request).await?;
        let r = request.get_ref();
        let ladder = if r.ladder.is_empty() {
            None
        } else {
            Some(self.shared.ladders.resolve(&r.ladder)?)
        };
        let player = match &r.player {
            Some(p) if p.player.is_some() => Some(self.shared.player(Some(p)).await?.id),
            _ => None,
        };
        let before = sequence_token(&r.page_token)?;
        let limit = page_size(r.page_size);
        let store = &self.shared.store;
        let mut rows = store
            .rating_adjustments(ladder.as_deref(), player, before, limit + 1)
            .await
            .map_err(ServiceError::from)?;
        let more = rows.len() as u64 > limit;
        rows.truncate(usize::try_from(limit).unwrap_or(usize::MAX));
        let mut ids: Vec<PlayerId> = rows.iter().map(|r| r.event.change.first()).collect();
        ids.sort_unstable();
        ids.dedup();
        let names = self
            .shared
            .accounts
            .player_names(&ids)
            .await
            .map_err(ServiceError::from)?;
        let adjustments = rows
            .iter()
            .map(|row| {
                let name = names
                    .get(&row.event.change.first())
                    .map_or("", String::as_str);
                convert::adjustment(row, name)
            })
            .collect();
        let next_page_token = match rows.last() {
            Some(last) if more => last.sequence.to_string(),
            _ => String::new(),
        };
        Ok(Response::new(pb::ListAdjustmentsResponse {
            adjustments,
            next_page_token,
        }))
    }

    async fn rebuild(
        &self,
        request: Request<pb::RebuildRequest>,
    ) -> Result<Response<pb::RebuildResponse>, Status> {
        self.shared.admin(&request).await?;
        let _writing = self.shared.writer.lock().await;
        let started = Instant::now();
        let report = self
            .shared
            .store
            .rebuild_ratings(&self.shared.ladders)
            .await
            .map_err(ServiceError::from)?;
        let duration_ms = u64::try_from(started.elapsed().as_millis()).unwrap_or(u64::MAX);
        if report.matched() {
            tracing::info!(
                events = report.events,
                ratings = report.ratings,
                duration_ms,
                "rebuild matched the incremental ratings"
            );
        } else {
            tracing::warn!(
                events = report.events,
                ratings = report.ratings,
                changed_points = report.changed_points,
                changed_ratings = report.changed_ratings,
                duration_ms,
                "rebuild rewrote ratings that differed from the replay"
            );
        }
        Ok(Response::new(pb::RebuildResponse {
            events: report.events,
            games: report.games,
            adjustments: report.adjustments,
            ratings: report.ratings,
            changed_points: report.changed_points,
            changed_ratings: report.changed_ratings,
            matched: report.matched(),
            duration_ms,
            corrections: report.corrections,
        }))
    }

    async fn list_ladders(
        &self,
        request: Request<pb::ListLaddersRequest>,
    ) -> Result<Response<pb::ListLaddersResponse>, Status> {
        self.shared.caller(&request, Scope::Read).await?;
        let ladders = &self.shared.ladders;
        Ok(Response::new(pb::ListLaddersResponse {
            ladders: ladders
                .names()
                .iter()
                .map(|name| {
                    let system = ladders.system(name);
                    pb::Ladder {
                        name: name.clone(),
                        system: ladders::system_name(system).to_owned(),
                        initial_rating: system.initial().rating,
                        parameters: ladders::parameters(system),
                    }
                })
                .collect(),
            split_by_time_control: ladders.split(),
        }))
    }

    async fn ping(
        &self,
        _request: Request<pb::PingRequest>,
    ) -> Result<Response<pb::PingResponse>, Status> {
        Ok(Response::new(pb::PingResponse {}))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn board_tokens_round_trip_and_check_their_filters() {
        let filter = BoardFilter {
            min_games: 5,
            active_since: Some(1_700_000_000),
        };
        let cursor = BoardCursor {
            rating: 1612.5,
            player: PlayerId(42),
            rank: 7,
            position: 9,
        };
        for ladder in ["hanniball", "paper-football/blitz", "odd|name"] {
            let token = board_token(ladder, &filter, &cursor);
            assert_eq!(
                parse_board_token(&token, ladder, &filter).expect("parses"),
                Some(cursor)
            );
            let other = BoardFilter {
                min_games: 6,
                ..filter
            };
            assert!(parse_board_token(&token, ladder, &other).is_err());
        }
        assert_eq!(
            parse_board_token("", "hanniball", &filter).expect("empty"),
            None
        );
        assert!(parse_board_token("garbage", "hanniball", &filter).is_err());
    }
}
