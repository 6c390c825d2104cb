//! The gRPC services: requests decoded and checked once here, handed to the hub, answers encoded.

use std::pin::Pin;
use std::sync::Arc;
use std::time::Duration;

use hanniball_arbiter::{FinalResult, GameId, PlayerId, Setup, TimeControl};
use hanniball_proto::arbiter::v1 as pb;
use hanniball_rules::{GameKind, GameOptions, Side};
use hanniball_svc_kit::auth::{Auth, AuthError, Caller, Grant, Scope};
use hanniball_svc_kit::limits;
use hanniball_svc_kit::stream::{self, Delivery, Outbox};
use tokio::sync::broadcast;
use tokio_stream::Stream;
use tonic::{Request, Response, Status};

use crate::convert;
use crate::error::{ServiceError, ServiceResult, refused};
use crate::hub::{Action, Hub};

/// Shared by both services.
#[derive(Debug)]
pub struct Shared {
    pub hub: Arc<Hub>,
    pub auth: Auth,
}

impl Shared {
    /// The caller, if its token holds `scope` (README, "Token scopes").
    async fn caller<T>(&self, request: &Request<T>, scope: Scope) -> ServiceResult<Caller> {
        Ok(self
            .auth
            .caller(request.metadata(), &self.hub.directory, scope)
            .await?)
    }

    /// What the caller's token grants, if it holds `scope`.
    pub(crate) async fn grant<T>(
        &self,
        request: &Request<T>,
        scope: Scope,
    ) -> ServiceResult<Grant> {
        let grant = self
            .auth
            .grant(request.metadata(), &self.hub.directory)
            .await?;
        grant.require(scope)?;
        Ok(grant)
    }

    /// Resolves when the token of `grant` is revoked or expires: a stream opened with it ends.
    fn ended(&self, grant: Grant) -> impl Future<Output = AuthError> + Send + 'static {
        self.auth.ended(grant, &self.hub.directory)
    }

    /// Fails unless the caller is the admin.
    async fn admin<T>(&self, request: &Request<T>) -> ServiceResult<()> {
        Ok(self.caller(request, Scope::Admin).await?.require_admin()?)
    }
}

/// The most items one batch call carries (a round of a 20,000-player Swiss).
const MAX_BATCH: usize = 10_000;

/// The arbiter's view of the caller.
const fn actor(caller: Caller) -> hanniball_arbiter::Actor {
    match caller {
        Caller::Admin => hanniball_arbiter::Actor::Admin,
        Caller::Player(id) => hanniball_arbiter::Actor::Player(id),
    }
}

/// The outcome of an organiser's result (AdjudicateGame, CorrectResult).
fn organiser_outcome(outcome: i32) -> ServiceResult<Option<hanniball_rules::Outcome>> {
    match pb::Outcome::try_from(outcome) {
        Ok(pb::Outcome::WhiteWins) => Ok(Some(hanniball_rules::Outcome::Win(Side::White))),
        Ok(pb::Outcome::BlackWins) => Ok(Some(hanniball_rules::Outcome::Win(Side::Black))),
        Ok(pb::Outcome::Draw) => Ok(Some(hanniball_rules::Outcome::Draw)),
        Ok(pb::Outcome::None) => Ok(None),
        Ok(pb::Outcome::Unspecified) | Err(_) => Err(ServiceError::InvalidArgument(format!(
            "outcome {outcome} is not a result: WHITE_WINS, BLACK_WINS, DRAW, or NONE with forfeit"
        ))),
    }
}

fn game_id(id: i64) -> ServiceResult<GameId> {
    if id <= 0 {
        return Err(ServiceError::InvalidArgument(format!(
            "game_id must be a positive id, not {id}"
        )));
    }
    Ok(GameId(id))
}

type EventStream<T> = Pin<Box<dyn Stream<Item = Result<T, Status>> + Send + 'static>>;

/// The `hanniball.arbiter.v1.Arbiter` service.
#[derive(Clone, Debug)]
pub struct ArbiterService {
    pub shared: Arc<Shared>,
}

impl ArbiterService {
    /// SubmitTurn, or (`dry`) CheckTurn: the same checks (the `play` scope too) in the same
    /// order, so that a check is refused exactly as the turn would be.
    async fn turn<T>(
        &self,
        request: &Request<T>,
        game: i64,
        number: u32,
        text: &str,
        dry: bool,
    ) -> Result<(pb::TurnRecord, pb::GameState), Status> {
        let caller = self.shared.caller(request, Scope::Play).await?;
        limits::text("turn", text, limits::TURN)?;
        let id = game_id(game)?;
        let Caller::Player(_) = caller else {
            return Err(ServiceError::InvalidArgument(
                "the admin does not play turns; use a player's token".to_owned(),
            )
            .into());
        };
        let hub = &self.shared.hub;
        let played = if dry {
            hub.check_turn(id, actor(caller), number, text).await
        } else {
            hub.submit_turn(id, actor(caller), number, text).await
        };
        let (record, state) = played?;
        Ok((convert::turn(&record), convert::state(&state)))
    }

    fn setup(request: &pb::CreateGameRequest) -> Result<Setup, Status> {
        limits::text("kind", &request.kind, limits::NAME)?;
        limits::text("ruleset", &request.ruleset, limits::NAME)?;
        limits::text("tag", &request.tag, limits::TEXT)?;
        limits::text("idempotency_key", &request.idempotency_key, limits::KEY)?;
        let kind = if request.kind.is_empty() {
            GameKind::HanniBall
        } else {
            request
                .kind
                .parse()
                .map_err(|error: hanniball_rules::SetupError| {
                    Status::from(ServiceError::InvalidArgument(error.to_string()))
                })?
        };
        let time_control = match &request.time_control {
            None => None,
            Some(tc)
                if !(1..=MAX_INITIAL_MS).contains(&tc.initial_ms)
                    || !(0..=MAX_INCREMENT_MS).contains(&tc.increment_ms) =>
            {
                return Err(ServiceError::InvalidArgument(format!(
                    "time control needs 0 < initial_ms <= {MAX_INITIAL_MS} (30 days) and \
                     0 <= increment_ms <= {MAX_INCREMENT_MS} (1 day), got {} and {}",
                    tc.initial_ms, tc.increment_ms
                ))
                .into());
            }
            Some(tc) => Some(TimeControl {
                initial_ms: tc.initial_ms,
                increment_ms: tc.increment_ms,
            }),
        };
        Ok(Setup {
            kind,
            options: GameOptions {
                ruleset: (!request.ruleset.is_empty()).then(|| request.ruleset.clone()),
                max_turns: (request.max_turns > 0).then_some(request.max_turns),
            },
            white: PlayerId(request.white_player_id),
            black: PlayerId(request.black_player_id),
            time_control,
            rated: request.rated,
            tag: request.tag.clone(),
            over_the_board: request.over_the_board,
        })
    }

    async fn action(&self, request: Request<i64>, action: Action) -> Result<pb::GameState, Status> {
        let id = game_id(*request.get_ref())?;
        // The game itself refuses callers who do not play in it (PERMISSION_DENIED).
        let caller = self.shared.caller(&request, Scope::Play).await?;
        let state = self.shared.hub.act(id, actor(caller), action).await?;
        Ok(convert::state(&state))
    }
}

/// Forwards a broadcast subscription into a response stream until the subscription ends, the
/// client goes away, `stop` says the event is the last, the server shuts down, or the stream's
/// token ends (`ended`: revoked or expired; the stream then ends with its `UNAUTHENTICATED`).
/// `own` turns a broadcast item into the message sent.
fn forward<T: Send + 'static, L: Clone + Send + 'static>(
    (outbox, delivery): (Outbox<T>, Delivery<T>),
    first: Vec<T>,
    live: Option<broadcast::Receiver<L>>,
    shared: &Arc<Shared>,
    own: fn(L) -> T,
    stop: fn(&T) -> bool,
    ended: impl Future<Output = AuthError> + Send + 'static,
) -> EventStream<T> {
    let shutdown = shared.hub.shutdown.clone();
    tokio::spawn(async move {
        for event in first {
            if outbox.send(Ok(event)).await.is_err() {
                return;
            }
        }
        let Some(mut live) = live else { return };
        let mut ended = std::pin::pin!(ended);
        loop {
            tokio::select! {
                // First: an event that arrives after the token's end is never sent.
                biased;
                error = &mut ended => {
                    let _ = outbox.send(Err(ServiceError::from(error).into())).await;
                    return;
                }
                () = shutdown.cancelled() => return,
                () = outbox.closed() => return,
                () = outbox.stalled() => return outbox.cut(),
                received = live.recv() => match received {
                    Ok(event) => {
                        let event = own(event);
                        let last = stop(&event);
                        if outbox.send(Ok(event)).await.is_err() || last {
                            return;
                        }
                    }
                    Err(broadcast::error::RecvError::Lagged(missed)) => {
                        let _ = outbox
                            .send(Err(Status::resource_exhausted(format!(
                                "this stream fell {missed} events behind; reconnect and resume"
                            ))))
                            .await;
                        return;
                    }
                    Err(broadcast::error::RecvError::Closed) => return,
                },
            }
        }
    });
    Box::pin(delivery)
}

fn is_game_over(event: &pb::GameEvent) -> bool {
    matches!(event.event, Some(pb::game_event::Event::GameOver(_)))
}

/// Longest initial clock time a game may have (30 days), and increment (1 day): the clocks'
/// arithmetic stays far from overflow.
const MAX_INITIAL_MS: i64 = 30 * 24 * 3_600_000;
const MAX_INCREMENT_MS: i64 = 24 * 3_600_000;

#[tonic::async_trait]
impl pb::arbiter_server::Arbiter for ArbiterService {
    async fn create_game(
        &self,
        request: Request<pb::CreateGameRequest>,
    ) -> Result<Response<pb::CreateGameResponse>, Status> {
        self.shared.admin(&request).await?;
        let setup = Self::setup(request.get_ref())?;
        let key = Some(request.get_ref().idempotency_key.as_str()).filter(|key| !key.is_empty());
        let view = self.shared.hub.create_game(setup, key).await?;
        Ok(Response::new(pb::CreateGameResponse {
            game: Some(convert::game(&view)),
        }))
    }

    async fn create_games(
        &self,
        request: Request<pb::CreateGamesRequest>,
    ) -> Result<Response<pb::CreateGamesResponse>, Status> {
        self.shared.admin(&request).await?;
        let requests = &request.get_ref().games;
        limits::list("games", requests.len(), MAX_BATCH)?;
        let mut games = Vec::with_capacity(requests.len());
        for (index, r) in requests.iter().enumerate() {
            let setup = Self::setup(r).map_err(|status| {
                Status::new(
                    status.code(),
                    format!("games[{index}]: {}", status.message()),
                )
            })?;
            let key = Some(r.idempotency_key.clone()).filter(|key| !key.is_empty());
            games.push((setup, key));
        }
        let views = self.shared.hub.create_games(games).await?;
        Ok(Response::new(pb::CreateGamesResponse {
            games: views.iter().map(convert::game).collect(),
        }))
    }

    async fn get_game(
        &self,
        request: Request<pb::GetGameRequest>,
    ) -> Result<Response<pb::GetGameResponse>, Status> {
        self.shared.caller(&request, Scope::Read).await?;
        let id = game_id(request.get_ref().game_id)?;
        let view = self.shared.hub.view(id, true).await?;
        Ok(Response::new(pb::GetGameResponse {
            game: Some(convert::game(&view)),
        }))
    }

    async fn list_games(
        &self,
        request: Request<pb::ListGamesRequest>,
    ) -> Result<Response<pb::ListGamesResponse>, Status> {
        self.shared.caller(&request, Scope::Read).await?;
        let r = request.get_ref();
        let status = convert::status_filter(r.status).map_err(ServiceError::InvalidArgument)?;
        let limit = if r.limit == 0 { 50 } else { r.limit.min(500) };
        let rows = self
            .shared
            .hub
            .store
            .list_games(
                (r.player_id > 0).then_some(PlayerId(r.player_id)),
                status,
                (r.before_id > 0).then_some(GameId(r.before_id)),
                u64::from(limit),
            )
            .await
            .map_err(ServiceError::from)?;
        Ok(Response::new(pb::ListGamesResponse {
            games: rows.iter().map(convert::game_row).collect(),
        }))
    }

    async fn get_legal_steps(
        &self,
        request: Request<pb::GetLegalStepsRequest>,
    ) -> Result<Response<pb::GetLegalStepsResponse>, Status> {
        self.shared.caller(&request, Scope::Read).await?;
        let r = request.get_ref();
        limits::text("after", &r.after, limits::TURN)?;
        let id = game_id(r.game_id)?;
        let (partial, state) = self.shared.hub.legal_steps(id, &r.after).await?;
        Ok(Response::new(pb::GetLegalStepsResponse {
            steps: partial.next,
            state: Some(convert::state(&state)),
            may_end: partial.may_end,
            must_end: partial.must_end,
            position_after: partial.position,
            result_after: partial.result.as_ref().map(convert::rules_result),
        }))
    }

    async fn submit_turn(
        &self,
        request: Request<pb::SubmitTurnRequest>,
    ) -> Result<Response<pb::SubmitTurnResponse>, Status> {
        let r = request.get_ref();
        let (record, state) = self
            .turn(&request, r.game_id, r.turn_number, &r.turn, false)
            .await?;
        Ok(Response::new(pb::SubmitTurnResponse {
            record: Some(record),
            state: Some(state),
        }))
    }

    async fn check_turn(
        &self,
        request: Request<pb::CheckTurnRequest>,
    ) -> Result<Response<pb::CheckTurnResponse>, Status> {
        let r = request.get_ref();
        let (record, state) = self
            .turn(&request, r.game_id, r.turn_number, &r.turn, true)
            .await?;
        Ok(Response::new(pb::CheckTurnResponse {
            record: Some(record),
            state: Some(state),
        }))
    }

    async fn resign(
        &self,
        request: Request<pb::ResignRequest>,
    ) -> Result<Response<pb::ResignResponse>, Status> {
        let request = request.map(|r| r.game_id);
        let state = self.action(request, Action::Resign).await?;
        Ok(Response::new(pb::ResignResponse { state: Some(state) }))
    }

    async fn offer_draw(
        &self,
        request: Request<pb::OfferDrawRequest>,
    ) -> Result<Response<pb::OfferDrawResponse>, Status> {
        let request = request.map(|r| r.game_id);
        let state = self.action(request, Action::OfferDraw).await?;
        Ok(Response::new(pb::OfferDrawResponse { state: Some(state) }))
    }

    async fn accept_draw(
        &self,
        request: Request<pb::AcceptDrawRequest>,
    ) -> Result<Response<pb::AcceptDrawResponse>, Status> {
        let request = request.map(|r| r.game_id);
        let state = self.action(request, Action::AcceptDraw).await?;
        Ok(Response::new(pb::AcceptDrawResponse { state: Some(state) }))
    }

    async fn decline_draw(
        &self,
        request: Request<pb::DeclineDrawRequest>,
    ) -> Result<Response<pb::DeclineDrawResponse>, Status> {
        let request = request.map(|r| r.game_id);
        let state = self.action(request, Action::DeclineDraw).await?;
        Ok(Response::new(pb::DeclineDrawResponse {
            state: Some(state),
        }))
    }

    async fn abort_game(
        &self,
        request: Request<pb::AbortGameRequest>,
    ) -> Result<Response<pb::AbortGameResponse>, Status> {
        let request = request.map(|r| r.game_id);
        let state = self.action(request, Action::Abort).await?;
        Ok(Response::new(pb::AbortGameResponse { state: Some(state) }))
    }

    async fn adjudicate_game(
        &self,
        request: Request<pb::AdjudicateGameRequest>,
    ) -> Result<Response<pb::AdjudicateGameResponse>, Status> {
        self.shared.admin(&request).await?;
        let r = request.get_ref();
        let outcome = organiser_outcome(r.outcome)?;
        let decided = FinalResult::decided(outcome, r.forfeit).map_err(refused)?;
        let request = request.map(|r| r.game_id);
        let state = self.action(request, Action::Adjudicate(decided)).await?;
        Ok(Response::new(pb::AdjudicateGameResponse {
            state: Some(state),
        }))
    }

    async fn correct_result(
        &self,
        request: Request<pb::CorrectResultRequest>,
    ) -> Result<Response<pb::CorrectResultResponse>, Status> {
        self.shared.admin(&request).await?;
        let r = request.get_ref();
        limits::text("note", &r.note, limits::TEXT)?;
        limits::text("by", &r.by, limits::NAME)?;
        let id = game_id(r.game_id)?;
        let decided =
            FinalResult::decided(organiser_outcome(r.outcome)?, r.forfeit).map_err(refused)?;
        let by = if r.by.is_empty() { "admin" } else { &r.by };
        let (state, corrections) = self.shared.hub.correct(id, decided, by, &r.note).await?;
        Ok(Response::new(pb::CorrectResultResponse {
            state: Some(convert::state(&state)),
            corrections,
        }))
    }

    type WatchGameStream = EventStream<pb::GameEvent>;

    async fn watch_game(
        &self,
        request: Request<pb::WatchGameRequest>,
    ) -> Result<Response<Self::WatchGameStream>, Status> {
        let grant = self.shared.grant(&request, Scope::Read).await?;
        let id = game_id(request.get_ref().game_id)?;
        let (first, live) = self
            .shared
            .hub
            .watch(id, request.get_ref().from_turn)
            .await?;
        Ok(Response::new(forward(
            stream::outbox(&request),
            first,
            live,
            &self.shared,
            Arc::unwrap_or_clone,
            is_game_over,
            self.shared.ended(grant),
        )))
    }

    type WatchPlayerStream = EventStream<pb::PlayerEvent>;

    async fn watch_player(
        &self,
        request: Request<pb::WatchPlayerRequest>,
    ) -> Result<Response<Self::WatchPlayerStream>, Status> {
        let grant = self.shared.grant(&request, Scope::Read).await?;
        let Caller::Player(player) = grant.caller else {
            return Err(ServiceError::InvalidArgument(
                "the admin has no player events; use a player's token".to_owned(),
            )
            .into());
        };
        // Subscribe first, then look: an event in between arrives twice, never not at all.
        let live = self.shared.hub.player_events(player);
        let mut first = Vec::new();
        let active = self
            .shared
            .hub
            .store
            .list_games(
                Some(player),
                Some(hanniball_arbiter::Status::Active),
                None,
                1_000,
            )
            .await
            .map_err(ServiceError::from)?;
        for row in active {
            let view = self.shared.hub.view(row.id, false).await?;
            let to_move = match view.state.side_to_move {
                hanniball_rules::Side::White => view.setup.white,
                hanniball_rules::Side::Black => view.setup.black,
            };
            if to_move == player && view.state.status == hanniball_arbiter::Status::Active {
                first.push(pb::PlayerEvent {
                    game_id: row.id.0,
                    event: Some(pb::player_event::Event::YourTurn(convert::state(
                        &view.state,
                    ))),
                });
            }
        }
        Ok(Response::new(forward(
            stream::outbox(&request),
            first,
            Some(live),
            &self.shared,
            std::convert::identity,
            |_| false,
            self.shared.ended(grant),
        )))
    }

    type WatchResultsStream = EventStream<pb::FinishedGame>;

    async fn watch_results(
        &self,
        request: Request<pb::WatchResultsRequest>,
    ) -> Result<Response<Self::WatchResultsStream>, Status> {
        self.shared.admin(&request).await?;
        let mut cursor = request.get_ref().after_sequence.max(0);
        let (outbox, delivery) = stream::outbox(&request);
        let hub = Arc::clone(&self.shared.hub);
        tokio::spawn(async move {
            loop {
                // Register interest before reading, so a result that lands in between wakes us.
                let notified = hub.results.notified();
                match hub.store.results_after(cursor, 100).await {
                    Ok(rows) => {
                        for row in &rows {
                            cursor = row.sequence;
                            if outbox.send(Ok(convert::finished(row))).await.is_err() {
                                return;
                            }
                        }
                        if !rows.is_empty() {
                            continue;
                        }
                    }
                    Err(error) => {
                        tracing::warn!(%error, "results stream: database error; retrying");
                    }
                }
                // Other replicas finish games too: look again at least every second.
                tokio::select! {
                    () = hub.shutdown.cancelled() => return,
                    () = outbox.closed() => return,
                    () = outbox.stalled() => return outbox.cut(),
                    () = notified => {}
                    () = tokio::time::sleep(Duration::from_secs(1)) => {}
                }
            }
        });
        Ok(Response::new(Box::pin(delivery)))
    }

    async fn ping(
        &self,
        _request: Request<pb::PingRequest>,
    ) -> Result<Response<pb::PingResponse>, Status> {
        Ok(Response::new(pb::PingResponse {
            server_time_ms: self.shared.hub.clock.now().0,
        }))
    }
}
