//! The gRPC services: requests decoded and checked once here, handed to the hub, answers encoded.

use std::pin::Pin;
use std::sync::Arc;
use std::time::Duration;

use hanniball_accounts::TokenEvent;
use hanniball_arbiter::{FinalResult, GameId, PlayerId, Setup, TimeControl};
use hanniball_proto::accounts::v1 as apb;
use hanniball_proto::arbiter::v1 as pb;
use hanniball_rules::{GameKind, GameOptions, Side};
use hanniball_svc_kit::auth::{
    Auth, AuthError, Caller, Grant, Scope, Scopes, hash_token, new_token,
};
use hanniball_svc_kit::limits;
use tokio::sync::{broadcast, mpsc};
use tokio_stream::Stream;
use tokio_stream::wrappers::ReceiverStream;
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

/// How long a stream waits for its client to read before it gives up on it: a client that stops
/// reading (stuck, or hostile) holds no task and no subscription beyond this.
const STALLED: Duration = Duration::from_secs(60);

/// Forwards a broadcast subscription into a response stream until the subscription ends, the
/// client goes away, `stop` says the event is the last, the server shuts down, or the stream's
/// token ends (`ended`: revoked or expired; the stream then ends with its `UNAUTHENTICATED`).
/// `own` turns a broadcast item into the message sent.
fn forward<T: Send + 'static, L: Clone + Send + 'static>(
    first: Vec<T>,
    live: Option<broadcast::Receiver<L>>,
    shared: &Arc<Shared>,
    own: fn(L) -> T,
    stop: fn(&T) -> bool,
    ended: impl Future<Output = AuthError> + Send + 'static,
) -> EventStream<T> {
    let (tx, rx) = mpsc::channel::<Result<T, Status>>(64);
    let shutdown = shared.hub.shutdown.clone();
    tokio::spawn(async move {
        for event in first {
            if tx.send_timeout(Ok(event), STALLED).await.is_err() {
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
                    let _ = tx.send(Err(ServiceError::from(error).into())).await;
                    return;
                }
                () = shutdown.cancelled() => return,
                () = tx.closed() => return,
                received = live.recv() => match received {
                    Ok(event) => {
                        let event = own(event);
                        let last = stop(&event);
                        if tx.send_timeout(Ok(event), STALLED).await.is_err() || last {
                            return;
                        }
                    }
                    Err(broadcast::error::RecvError::Lagged(missed)) => {
                        let _ = tx
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
    Box::pin(ReceiverStream::new(rx))
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
        let (tx, rx) = mpsc::channel::<Result<pb::FinishedGame, Status>>(64);
        let hub = Arc::clone(&self.shared.hub);
        tokio::spawn(async move {
            loop {
                // Register interest before reading, so a result that lands in between wakes us.
                let notified = hub.results.notified();
                match hub.store.results_after(cursor, 100).await {
                    Ok(rows) => {
                        for row in &rows {
                            cursor = row.sequence;
                            if tx
                                .send_timeout(Ok(convert::finished(row)), STALLED)
                                .await
                                .is_err()
                            {
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
                    () = tx.closed() => return,
                    () = notified => {}
                    () = tokio::time::sleep(Duration::from_secs(1)) => {}
                }
            }
        });
        Ok(Response::new(Box::pin(ReceiverStream::new(rx))))
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

/// The `hanniball.accounts.v1.Accounts` service.
#[derive(Clone, Debug)]
pub struct AccountsService {
    pub shared: Arc<Shared>,
}

/// Longest token lifetime that can be asked for: 10 years.
const MAX_TOKEN_SECONDS: i64 = 10 * 365 * 24 * 3_600;

/// Most live (unrevoked, unexpired) tokens a player may hold when issuing its own: a bot that
/// rotates its token leaks none, and a runaway one cannot fill the table.
const MAX_OWN_TOKENS: u64 = 100;

/// The player whose tokens a call is about: the admin names any player (`player_id` > 0); a
/// player is its own (`player_id` 0, "me", or its own id), never another's.
pub(crate) fn tokens_of(caller: Caller, player_id: i64) -> ServiceResult<PlayerId> {
    own(caller, player_id, "tokens")
}

/// [`tokens_of`] for any of a player's own things (`what`: "tokens", "password", "sessions").
pub(crate) fn own(caller: Caller, player_id: i64, what: &str) -> ServiceResult<PlayerId> {
    match caller {
        Caller::Admin if player_id > 0 => Ok(PlayerId(player_id)),
        Caller::Admin => Err(ServiceError::InvalidArgument(format!(
            "player_id must be a positive id, not {player_id} (0 means \"me\" for a player token only)"
        ))),
        Caller::Player(me) if player_id == 0 || player_id == me.0 => Ok(me),
        Caller::Player(me) => Err(ServiceError::Denied(format!(
            "a player manages only its own {what}: player {player_id} is not you (player {me})"
        ))),
    }
}

/// A player's full rights: a player's scopes, and `organise` for an organiser.
pub(crate) fn rights(player: &hanniball_accounts::Player) -> Scopes {
    if player.organiser {
        Scopes::ORGANISER
    } else {
        Scopes::PLAYER
    }
}

/// The scopes asked for a player token: by name, all of a player's when none are named; never
/// `admin`, which only the configured admin token holds.
fn token_scopes(names: &[String]) -> Result<Scopes, Status> {
    limits::list("scopes", names.len(), limits::SCOPES)?;
    for name in names {
        limits::text("scopes", name, limits::NAME)?;
    }
    if names.is_empty() {
        return Ok(Scopes::PLAYER);
    }
    let scopes = Scopes::parse(names.iter().map(String::as_str))
        .map_err(|error| ServiceError::InvalidArgument(error.to_string()))?;
    if scopes.contains(Scope::Admin) {
        return Err(ServiceError::InvalidArgument(
            "a player token cannot hold the admin scope; only the configured admin token does"
                .to_owned(),
        )
        .into());
    }
    Ok(scopes)
}

impl AccountsService {
    async fn issue(
        &self,
        player: PlayerId,
        scopes: Scopes,
        expires_at: Option<hanniball_arbiter::Timestamp>,
    ) -> ServiceResult<apb::IssuedToken> {
        let token = new_token()?;
        let now = self.shared.hub.clock.now();
        let token_id = self
            .shared
            .hub
            .accounts
            .insert_token(
                player,
                &hash_token(&token),
                now,
                &scopes.to_stored(),
                expires_at,
            )
            .await?;
        Ok(apb::IssuedToken {
            token_id,
            token,
            scopes: scopes.names(),
            expires_at_ms: expires_at.map_or(0, |at| at.0),
        })
    }

    pub(crate) async fn player(&self, id: i64) -> ServiceResult<hanniball_accounts::Player> {
        self.shared
            .hub
            .accounts
            .player(PlayerId(id))
            .await?
            .ok_or_else(|| ServiceError::NotFound {
                what: "player",
                id: id.to_string(),
            })
    }
}

#[tonic::async_trait]
impl apb::accounts_server::Accounts for AccountsService {
    async fn register_player(
        &self,
        request: Request<apb::RegisterPlayerRequest>,
    ) -> Result<Response<apb::RegisterPlayerResponse>, Status> {
        let caller = self.shared.caller(&request, Scope::Organise).await?;
        let mut r = request.into_inner();
        if caller != Caller::Admin && (r.issue_token || r.kind == apb::PlayerKind::Bot as i32) {
            return Err(ServiceError::Denied(
                "an organiser registers human players without tokens; bots and tokens are the admin's"
                    .to_owned(),
            )
            .into());
        }
        r.name = hanniball_names::player_name(&r.name)
            .map_err(|e| ServiceError::InvalidArgument(e.to_string()))?;
        let kind = match apb::PlayerKind::try_from(r.kind) {
            Ok(apb::PlayerKind::Bot) => "bot",
            Ok(apb::PlayerKind::Human | apb::PlayerKind::Unspecified) => "human",
            Err(_) => {
                return Err(ServiceError::InvalidArgument(format!(
                    "unknown player kind {}",
                    r.kind
                ))
                .into());
            }
        };
        let now = self.shared.hub.clock.now();
        let row = match self
            .shared
            .hub
            .accounts
            .create_player(&r.name, kind, now)
            .await
        {
            Ok(row) => row,
            Err(hanniball_db::StoreError::Conflict(why)) => {
                let why = if why.contains("looks the same as") {
                    format!("{why}: choose a name people can tell apart")
                } else {
                    format!("a player named {} already exists", limits::quote(&r.name))
                };
                return Err(ServiceError::AlreadyExists(why).into());
            }
            Err(error) => return Err(ServiceError::from(error).into()),
        };
        let token = if r.issue_token {
            Some(self.issue(row.id, Scopes::PLAYER, None).await?)
        } else {
            None
        };
        tracing::info!(player_id = %row.id, name = %row.name, by_admin = caller == Caller::Admin, "player registered");
        Ok(Response::new(apb::RegisterPlayerResponse {
            player: Some(convert::player(&row)),
            token,
        }))
    }

    async fn issue_token(
        &self,
        request: Request<apb::IssueTokenRequest>,
    ) -> Result<Response<apb::IssueTokenResponse>, Status> {
        let grant = self.shared.grant(&request, Scope::Tokens).await?;
        let r = request.get_ref();
        let asked = token_scopes(&r.scopes)?;
        if !(0..=MAX_TOKEN_SECONDS).contains(&r.expires_in_seconds) {
            return Err(ServiceError::InvalidArgument(format!(
                "expires_in_seconds must be 0 (never) to {MAX_TOKEN_SECONDS} (10 years), not {}",
                r.expires_in_seconds
            ))
            .into());
        }
        let now = self.shared.hub.clock.now();
        let mut expires_at = (r.expires_in_seconds > 0).then(|| {
            hanniball_arbiter::Timestamp(now.0.saturating_add(r.expires_in_seconds * 1_000))
        });
        let player = tokens_of(grant.caller, r.player_id)?;
        let scopes = match grant.caller {
            Caller::Admin => asked,
            Caller::Player(_) => {
                // Never more than the calling token: a narrowed token cannot widen itself, and
                // a token that expires cannot outlive itself through a successor.
                let scopes = if r.scopes.is_empty() {
                    grant.scopes
                } else {
                    asked
                };
                if !scopes.is_subset(grant.scopes) {
                    return Err(ServiceError::Denied(format!(
                        "a token cannot grant scopes it lacks: {} (the calling token has: {})",
                        scopes.without(grant.scopes),
                        grant.scopes
                    ))
                    .into());
                }
                if let Some(limit) = grant.expires_at {
                    match expires_at {
                        None => expires_at = Some(limit),
                        Some(at) if at > limit => {
                            return Err(ServiceError::InvalidArgument(format!(
                                "expires_in_seconds {} is past the calling token's expiry at {} ms",
                                r.expires_in_seconds, limit.0
                            ))
                            .into());
                        }
                        Some(_) => {}
                    }
                }
                let live = self
                    .shared
                    .hub
                    .accounts
                    .live_token_count(player, now)
                    .await
                    .map_err(ServiceError::from)?;
                if live >= MAX_OWN_TOKENS {
                    return Err(ServiceError::TooMany(format!(
                        "player {player} holds {live} live tokens, at most {MAX_OWN_TOKENS}; revoke some first"
                    ))
                    .into());
                }
                scopes
            }
        };
        let player = self.player(player.0).await?;
        let scopes = if grant.caller == Caller::Admin && r.scopes.is_empty() {
            rights(&player)
        } else {
            scopes
        };
        if scopes.contains(Scope::Organise) && !player.organiser {
            return Err(ServiceError::Denied(format!(
                "player {} is not an organiser: the admin grants the right first (SetOrganiser)",
                player.id
            ))
            .into());
        }
        let token = self.issue(player.id, scopes, expires_at).await?;
        tracing::info!(player_id = %player.id, token_id = token.token_id, by_admin = grant.caller == Caller::Admin, "token issued");
        Ok(Response::new(apb::IssueTokenResponse {
            token: Some(token),
        }))
    }

    async fn revoke_token(
        &self,
        request: Request<apb::RevokeTokenRequest>,
    ) -> Result<Response<apb::RevokeTokenResponse>, Status> {
        let grant = self.shared.grant(&request, Scope::Tokens).await?;
        let id = request.get_ref().token_id;
        let not_found = || ServiceError::NotFound {
            what: "token",
            id: id.to_string(),
        };
        let accounts = &self.shared.hub.accounts;
        if let Caller::Player(me) = grant.caller {
            // Another player's token answers as an unknown one: ids reveal nothing.
            let row = accounts.token(id).await.map_err(ServiceError::from)?;
            if row.is_none_or(|row| row.player != me) {
                return Err(not_found().into());
            }
        }
        let now = self.shared.hub.clock.now();
        let revoked = accounts
            .revoke_token(id, now)
            .await
            .map_err(ServiceError::from)?
            .ok_or_else(not_found)?;
        // Before answering: the token's streams here end, its cached lookups go.
        self.shared.auth.revoked(id);
        tracing::info!(token_id = id, revoked, "token revoked");
        Ok(Response::new(apb::RevokeTokenResponse { revoked }))
    }

    async fn list_tokens(
        &self,
        request: Request<apb::ListTokensRequest>,
    ) -> Result<Response<apb::ListTokensResponse>, Status> {
        let grant = self.shared.grant(&request, Scope::Tokens).await?;
        let r = request.get_ref();
        let player = tokens_of(grant.caller, r.player_id)?;
        let player = self.player(player.0).await?.id;
        let limit = if r.limit == 0 {
            100
        } else {
            r.limit.min(1_000)
        };
        let rows = self
            .shared
            .hub
            .accounts
            .list_tokens(player, r.after_id, u64::from(limit))
            .await
            .map_err(ServiceError::from)?;
        let tokens = rows
            .into_iter()
            .map(|row| {
                let scopes = Scopes::from_stored(&row.scopes).map_err(|error| {
                    ServiceError::Internal(format!("token {}: {error}", row.id))
                })?;
                Ok(apb::TokenInfo {
                    token_id: row.id,
                    player_id: row.player.0,
                    scopes: scopes.names(),
                    created_at_ms: row.created_at.0,
                    expires_at_ms: row.expires_at.map_or(0, |at| at.0),
                    revoked_at_ms: row.revoked_at.map_or(0, |at| at.0),
                    current: grant.token_id == Some(row.id),
                    session: row.session_label.is_some(),
                    label: row.session_label.unwrap_or_default(),
                })
            })
            .collect::<ServiceResult<Vec<_>>>()?;
        Ok(Response::new(apb::ListTokensResponse { tokens }))
    }

    async fn get_player(
        &self,
        request: Request<apb::GetPlayerRequest>,
    ) -> Result<Response<apb::GetPlayerResponse>, Status> {
        self.shared.caller(&request, Scope::Read).await?;
        let row = match &request.get_ref().player {
            Some(apb::get_player_request::Player::Id(id)) => self.player(*id).await?,
            Some(apb::get_player_request::Player::Name(name)) => {
                limits::text("name", name, limits::NAME)?;
                // Looked up as registered: trimmed and in NFC (a name the rule refuses is no
                // player's).
                let stored = hanniball_names::player_name(name).ok();
                let found = match &stored {
                    Some(stored) => self
                        .shared
                        .hub
                        .accounts
                        .player_by_name(stored)
                        .await
                        .map_err(ServiceError::from)?,
                    None => None,
                };
                found.ok_or_else(|| ServiceError::NotFound {
                    what: "player",
                    id: limits::quote(name),
                })?
            }
            None => {
                return Err(
                    ServiceError::InvalidArgument("give a player id or name".to_owned()).into(),
                );
            }
        };
        Ok(Response::new(apb::GetPlayerResponse {
            player: Some(convert::player(&row)),
        }))
    }

    async fn list_players(
        &self,
        request: Request<apb::ListPlayersRequest>,
    ) -> Result<Response<apb::ListPlayersResponse>, Status> {
        self.shared.admin(&request).await?;
        let r = request.get_ref();
        let limit = if r.limit == 0 {
            100
        } else {
            r.limit.min(1_000)
        };
        let rows = self
            .shared
            .hub
            .accounts
            .list_players(r.after_id, u64::from(limit))
            .await
            .map_err(ServiceError::from)?;
        Ok(Response::new(apb::ListPlayersResponse {
            players: rows.iter().map(convert::player).collect(),
        }))
    }

    async fn search_players(
        &self,
        request: Request<apb::SearchPlayersRequest>,
    ) -> Result<Response<apb::SearchPlayersResponse>, Status> {
        self.shared.caller(&request, Scope::Read).await?;
        let r = request.get_ref();
        let words = limits::query("query", &r.query)?;
        if words.is_empty() {
            return Err(ServiceError::InvalidArgument(
                "query must hold at least one word".to_owned(),
            )
            .into());
        }
        let limit = match r.limit {
            0 => 50,
            n => n.min(200),
        };
        let (rows, more) = self
            .shared
            .hub
            .accounts
            .search_players(&words, u64::from(limit))
            .await
            .map_err(ServiceError::from)?;
        Ok(Response::new(apb::SearchPlayersResponse {
            players: rows.iter().map(convert::player).collect(),
            more,
        }))
    }

    async fn who_am_i(
        &self,
        request: Request<apb::WhoAmIRequest>,
    ) -> Result<Response<apb::WhoAmIResponse>, Status> {
        // No scope needed: any live token may learn what it may do.
        let grant = self
            .shared
            .auth
            .grant(request.metadata(), &self.shared.hub.directory)
            .await
            .map_err(ServiceError::from)?;
        let (player, admin) = match grant.caller {
            Caller::Admin => (None, true),
            Caller::Player(id) => (Some(convert::player(&self.player(id.0).await?)), false),
        };
        let response = apb::WhoAmIResponse {
            player,
            admin,
            scopes: grant.scopes.names(),
            expires_at_ms: grant.expires_at.map_or(0, |at| at.0),
            token_id: grant.token_id.unwrap_or(0),
        };
        Ok(Response::new(response))
    }
    async fn get_player_names(
        &self,
        request: Request<apb::GetPlayerNamesRequest>,
    ) -> Result<Response<apb::GetPlayerNamesResponse>, Status> {
        self.shared.admin(&request).await?;
        let ids = &request.get_ref().ids;
        if ids.len() > MAX_BATCH {
            return Err(ServiceError::InvalidArgument(format!(
                "at most {MAX_BATCH} ids per call, not {}",
                ids.len()
            ))
            .into());
        }
        let ids: Vec<PlayerId> = ids.iter().copied().map(PlayerId).collect();
        let rows = self.shared.hub.accounts.players(&ids).await;
        let players = rows.map_err(ServiceError::from)?;
        Ok(Response::new(apb::GetPlayerNamesResponse {
            players: players.iter().map(convert::player).collect(),
        }))
    }

    async fn check_token(
        &self,
        request: Request<apb::CheckTokenRequest>,
    ) -> Result<Response<apb::CheckTokenResponse>, Status> {
        self.shared.admin(&request).await?;
        let accounts = &self.shared.hub.accounts;
        let found = match &request.get_ref().token {
            Some(apb::check_token_request::Token::Hash(hash)) => accounts.token_by_hash(hash).await,
            Some(apb::check_token_request::Token::TokenId(id)) => accounts.token(*id).await,
            None => {
                return Err(
                    ServiceError::InvalidArgument("give a token hash or id".to_owned()).into(),
                );
            }
        };
        let token = found
            .map_err(ServiceError::from)?
            .map(|t| apb::StoredToken {
                token_id: t.id,
                player_id: t.player.0,
                scopes: t.scopes,
                created_at_ms: t.created_at.0,
                expires_at_ms: t.expires_at.map_or(0, |at| at.0),
                revoked_at_ms: t.revoked_at.map_or(0, |at| at.0),
            });
        Ok(Response::new(apb::CheckTokenResponse { token }))
    }

    type WatchRevocationsStream =
        Pin<Box<dyn Stream<Item = Result<apb::Revocation, Status>> + Send>>;

    async fn watch_revocations(
        &self,
        request: Request<apb::WatchRevocationsRequest>,
    ) -> Result<Response<Self::WatchRevocationsStream>, Status> {
        self.shared.admin(&request).await?;
        // Every revocation this arbiter's auth hears: through this process, and on PostgreSQL
        // through any replica.
        let mut heard = self.shared.auth.revocations();
        let shutdown = self.shared.hub.shutdown.clone();
        let (tx, rx) = mpsc::channel::<Result<apb::Revocation, Status>>(64);
        tokio::spawn(async move {
            loop {
                let note = tokio::select! {
                    () = shutdown.cancelled() => return,
                    () = tx.closed() => return,
                    note = heard.recv() => note,
                };
                let note = match note {
                    Ok(TokenEvent::Revoked(token_id)) => apb::Revocation {
                        token_id,
                        missed: false,
                    },
                    Ok(TokenEvent::Missed) | Err(broadcast::error::RecvError::Lagged(_)) => {
                        apb::Revocation {
                            token_id: 0,
                            missed: true,
                        }
                    }
                    Err(broadcast::error::RecvError::Closed) => return,
                };
                if tx.send_timeout(Ok(note), STALLED).await.is_err() {
                    return;
                }
            }
        });
        Ok(Response::new(Box::pin(ReceiverStream::new(rx))))
    }

    async fn set_password(
        &self,
        request: Request<apb::SetPasswordRequest>,
    ) -> Result<Response<apb::SetPasswordResponse>, Status> {
        Ok(Response::new(self.set_password_call(request).await?))
    }

    async fn sign_in(
        &self,
        request: Request<apb::SignInRequest>,
    ) -> Result<Response<apb::SignInResponse>, Status> {
        Ok(Response::new(self.sign_in_call(request).await?))
    }

    async fn revoke_sessions(
        &self,
        request: Request<apb::RevokeSessionsRequest>,
    ) -> Result<Response<apb::RevokeSessionsResponse>, Status> {
        Ok(Response::new(self.revoke_sessions_call(request).await?))
    }

    async fn set_organiser(
        &self,
        request: Request<apb::SetOrganiserRequest>,
    ) -> Result<Response<apb::SetOrganiserResponse>, Status> {
        self.shared.admin(&request).await?;
        let r = request.into_inner();
        let changed = self
            .shared
            .hub
            .accounts
            .set_organiser(PlayerId(r.player_id), r.organiser)
            .await
            .map_err(ServiceError::from)?
            .ok_or_else(|| ServiceError::NotFound {
                what: "player",
                id: r.player_id.to_string(),
            })?;
        if changed && !r.organiser {
            // Before answering, as a revocation: this service's cached lookups go (the other
            // services' and replicas' hear it through `Auth::follow`).
            self.shared.auth.forget_all();
        }
        let player = self.player(r.player_id).await?;
        tracing::info!(
            player_id = r.player_id,
            organiser = r.organiser,
            changed,
            "organiser right set"
        );
        Ok(Response::new(apb::SetOrganiserResponse {
            changed,
            player: Some(convert::player(&player)),
        }))
    }
}
