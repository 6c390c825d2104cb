//! The game hub: one actor task per loaded game owns its [`Match`]; RPC handlers talk to it through
//! a channel. The actor plans a change with the pure arbiter, has the writer commit it, and only
//! then applies it and tells watchers: nothing is acknowledged or announced before it is stored.
//! The actor also keeps the game's clock: when the side to move runs out of time it ends the game
//! by itself, whether or not anyone calls.

use std::collections::HashMap;
use std::sync::Arc;
use std::time::Duration;

use hanniball_arbiter::{
    Actor, Event, GameId, Match, PlayerId, Setup, Status, Transition, TurnPlan, TurnRecord,
};
use hanniball_proto::arbiter::v1 as pb;
use hanniball_store::{Store, StoreError, Write};
use tokio::sync::{Mutex, Notify, broadcast, mpsc, oneshot};
use tokio_util::sync::CancellationToken;

use crate::clock::Clock;
use crate::convert;
use crate::error::{ServiceError, ServiceResult};
use crate::view::{GameView, StateView};
use crate::writer::Writer;

/// How long a finished game's actor lingers for readers before it is unloaded.
const FINISHED_IDLE: Duration = Duration::from_secs(30);
/// Events a slow watcher may fall behind before its stream is ended (it can resume).
const WATCH_BUFFER: usize = 256;

/// A platform action other than a turn.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Action {
    Resign,
    OfferDraw,
    AcceptDraw,
    DeclineDraw,
    Abort,
}

/// What a watcher gets when it starts: the first events, then a live subscription (none when the
/// game is already over).
pub type Watch = (
    Vec<pb::GameEvent>,
    Option<broadcast::Receiver<pb::GameEvent>>,
);

enum Command {
    View {
        with_turns: bool,
        reply: oneshot::Sender<GameView>,
    },
    LegalSteps {
        reply: oneshot::Sender<(Vec<String>, StateView)>,
    },
    Turn {
        actor: Actor,
        number: u32,
        text: String,
        reply: oneshot::Sender<ServiceResult<(TurnRecord, StateView)>>,
    },
    Action {
        action: Action,
        actor: Actor,
        reply: oneshot::Sender<ServiceResult<StateView>>,
    },
    Watch {
        from_turn: u32,
        reply: oneshot::Sender<Watch>,
    },
}

/// Every loaded game, the player event channels, and what they share.
#[derive(Debug)]
pub struct Hub {
    pub store: Store,
    writer: Writer,
    pub clock: Clock,
    pub shutdown: CancellationToken,
    games: std::sync::Mutex<HashMap<GameId, mpsc::Sender<Command>>>,
    /// Serialises loading games from the database (so a game is never loaded twice).
    loading: Mutex<()>,
    players: std::sync::Mutex<HashMap<PlayerId, broadcast::Sender<pb::PlayerEvent>>>,
    /// Signalled whenever a game finishes (results stream consumers wake up).
    pub results: Notify,
}

impl Hub {
    /// A hub over `store`. Call [`Hub::load_active`] to bring back unfinished games.
    #[must_use]
    pub fn new(store: Store, clock: Clock, shutdown: CancellationToken) -> Arc<Hub> {
        Arc::new(Hub {
            writer: Writer::start(store.clone()),
            store,
            clock,
            shutdown,
            games: std::sync::Mutex::new(HashMap::new()),
            loading: Mutex::new(()),
            players: std::sync::Mutex::new(HashMap::new()),
            results: Notify::new(),
        })
    }

    /// Loads every unfinished game, so that its clock runs again. Returns how many.
    pub async fn load_active(self: &Arc<Self>) -> ServiceResult<usize> {
        let ids = self.store.active_game_ids().await?;
        for id in &ids {
            self.handle(*id).await?;
        }
        Ok(ids.len())
    }

    /// Creates a game (or returns the one created earlier with the same idempotency key).
    pub async fn create_game(
        self: &Arc<Self>,
        setup: Setup,
        idempotency_key: Option<&str>,
    ) -> ServiceResult<GameView> {
        if let Some(key) = idempotency_key
            && let Some(id) = self.store.game_by_idempotency_key(key).await?
        {
            return self.view(id, true).await;
        }
        for (side, player) in [("white", setup.white), ("black", setup.black)] {
            if self.store.player(player).await?.is_none() {
                return Err(ServiceError::NotFound {
                    what: "player",
                    id: format!("{player} ({side})"),
                });
            }
        }
        if setup.white == setup.black {
            return Err(ServiceError::InvalidArgument(
                "a player cannot play both sides".to_owned(),
            ));
        }
        let now = self.clock.now();
        let mut game = Match::new(GameId(0), setup, now)
            .map_err(|error| ServiceError::InvalidArgument(error.to_string()))?;
        game.id = match self.store.insert_game(&game, idempotency_key).await {
            Ok(id) => id,
            // Two creations raced with one key: the other one won; answer with its game.
            Err(StoreError::Conflict(_)) if idempotency_key.is_some() => {
                let key = idempotency_key.expect("checked above");
                let id = self
                    .store
                    .game_by_idempotency_key(key)
                    .await?
                    .ok_or(ServiceError::LostRace)?;
                return self.view(id, true).await;
            }
            Err(error) => return Err(error.into()),
        };
        let view = GameView::of(&game, true);
        tracing::info!(game_id = %game.id, white = %game.setup.white, black = %game.setup.black, "game created");
        // Players may call about the game as soon as they hear of it: until its actor is in the
        // map, hold the loading lock so that nobody loads a second actor from the database.
        let _loading = self.loading.lock().await;
        let started = convert::game(&view);
        for side in [hanniball_rules::Side::White, hanniball_rules::Side::Black] {
            self.tell_player(game.player(side), game.id, || {
                pb::player_event::Event::GameStarted(started.clone())
            });
        }
        self.announce_turn(&game, &view.state);
        let tx = self.spawn(game);
        self.games.lock().expect("games lock").insert(view.id, tx);
        Ok(view)
    }

    /// A game's full view.
    pub async fn view(self: &Arc<Self>, id: GameId, with_turns: bool) -> ServiceResult<GameView> {
        self.call(id, |reply| Command::View { with_turns, reply })
            .await
    }

    /// Legal steps for the side to move, and the state.
    pub async fn legal_steps(
        self: &Arc<Self>,
        id: GameId,
    ) -> ServiceResult<(Vec<String>, StateView)> {
        self.call(id, |reply| Command::LegalSteps { reply }).await
    }

    /// Plays a turn.
    pub async fn submit_turn(
        self: &Arc<Self>,
        id: GameId,
        actor: Actor,
        number: u32,
        text: String,
    ) -> ServiceResult<(TurnRecord, StateView)> {
        self.call(id, |reply| Command::Turn {
            actor,
            number,
            text: text.clone(),
            reply,
        })
        .await?
    }

    /// Resign, draw offers and answers, abort.
    pub async fn act(
        self: &Arc<Self>,
        id: GameId,
        actor: Actor,
        action: Action,
    ) -> ServiceResult<StateView> {
        self.call(id, |reply| Command::Action {
            action,
            actor,
            reply,
        })
        .await?
    }

    /// Starts watching a game.
    pub async fn watch(self: &Arc<Self>, id: GameId, from_turn: u32) -> ServiceResult<Watch> {
        self.call(id, |reply| Command::Watch { from_turn, reply })
            .await
    }

    /// A player's event channel.
    pub fn player_events(&self, player: PlayerId) -> broadcast::Receiver<pb::PlayerEvent> {
        self.players
            .lock()
            .expect("players lock")
            .entry(player)
            .or_insert_with(|| broadcast::channel(WATCH_BUFFER).0)
            .subscribe()
    }

    /// Sends a player an event, built only if the player is listening.
    fn tell_player(
        &self,
        player: PlayerId,
        game: GameId,
        event: impl FnOnce() -> pb::player_event::Event,
    ) {
        let players = self.players.lock().expect("players lock");
        if let Some(tx) = players.get(&player)
            && tx.receiver_count() > 0
        {
            let _ = tx.send(pb::PlayerEvent {
                game_id: game.0,
                event: Some(event()),
            });
        }
    }

    /// Tells the side to move that it is its turn (if the game is on).
    fn announce_turn(&self, game: &Match, state: &StateView) {
        if game.status() == Status::Active {
            let side = game.game().side_to_move();
            self.tell_player(game.player(side), game.id, || {
                pb::player_event::Event::YourTurn(convert::state(state))
            });
        }
    }

    /// Sends a command to a game's actor, loading the game first if needed. An actor that has
    /// just unloaded itself is replaced once.
    async fn call<T>(
        self: &Arc<Self>,
        id: GameId,
        make: impl Fn(oneshot::Sender<T>) -> Command,
    ) -> ServiceResult<T> {
        for _ in 0..2 {
            let tx = self.handle(id).await?;
            let (reply, answer) = oneshot::channel();
            if tx.send(make(reply)).await.is_err() {
                self.forget(id, &tx).await;
                continue;
            }
            match answer.await {
                Ok(value) => return Ok(value),
                Err(_) => {
                    if self.shutdown.is_cancelled() {
                        return Err(ServiceError::ShuttingDown);
                    }
                    self.forget(id, &tx).await;
                }
            }
        }
        Err(ServiceError::Internal(format!(
            "game {id} actor keeps stopping"
        )))
    }

    async fn forget(&self, id: GameId, tx: &mpsc::Sender<Command>) {
        let mut games = self.games.lock().expect("games lock");
        if games
            .get(&id)
            .is_some_and(|current| current.same_channel(tx))
        {
            games.remove(&id);
        }
    }

    fn loaded(&self, id: GameId) -> Option<mpsc::Sender<Command>> {
        let games = self.games.lock().expect("games lock");
        games.get(&id).filter(|tx| !tx.is_closed()).cloned()
    }

    async fn handle(self: &Arc<Self>, id: GameId) -> ServiceResult<mpsc::Sender<Command>> {
        if self.shutdown.is_cancelled() {
            return Err(ServiceError::ShuttingDown);
        }
        if let Some(tx) = self.loaded(id) {
            return Ok(tx);
        }
        let _loading = self.loading.lock().await;
        if let Some(tx) = self.loaded(id) {
            return Ok(tx);
        }
        let game = self.load(id).await?;
        let tx = self.spawn(game);
        self.games
            .lock()
            .expect("games lock")
            .insert(id, tx.clone());
        Ok(tx)
    }

    async fn load(&self, id: GameId) -> ServiceResult<Match> {
        let stored = self
            .store
            .load_game(id)
            .await?
            .ok_or_else(|| ServiceError::NotFound {
                what: "game",
                id: id.to_string(),
            })?;
        Match::restore(stored, self.clock.now())
            .map_err(|error| ServiceError::Internal(format!("game {id} does not restore: {error}")))
    }

    fn spawn(self: &Arc<Self>, game: Match) -> mpsc::Sender<Command> {
        let (tx, rx) = mpsc::channel(64);
        let hub = Arc::clone(self);
        let own = tx.clone();
        tokio::spawn(async move {
            let id = game.id;
            run(Arc::clone(&hub), game, rx).await;
            hub.forget(id, &own).await;
        });
        tx
    }
}

/// The actor: owns one match until shutdown (or, once finished, until idle).
async fn run(hub: Arc<Hub>, mut game: Match, mut rx: mpsc::Receiver<Command>) {
    let (events, _) = broadcast::channel::<pb::GameEvent>(WATCH_BUFFER);
    loop {
        let deadline = game.deadline();
        let finished = game.status() != Status::Active;
        tokio::select! {
            () = hub.shutdown.cancelled() => break,
            () = async {
                match deadline {
                    Some(deadline) => hub.clock.sleep_until(deadline).await,
                    None => std::future::pending().await,
                }
            } => {
                if let Some(t) = game.plan_time_out(hub.clock.now()) {
                    if let Err(error) = commit(&hub, &mut game, t, &events).await.map(drop) {
                        tracing::warn!(game_id = %game.id, %error, "could not store a loss on time; retrying");
                        tokio::time::sleep(Duration::from_millis(200)).await;
                    } else {
                        tracing::info!(game_id = %game.id, "loss on time");
                    }
                }
            }
            () = tokio::time::sleep(FINISHED_IDLE), if finished => break,
            command = rx.recv() => {
                let Some(command) = command else { break };
                // A flag that fell since the last event is settled before anything else.
                if let Some(t) = game.plan_time_out(hub.clock.now()) {
                    let _ = commit(&hub, &mut game, t, &events).await;
                }
                handle(&hub, &mut game, command, &events).await;
            }
        }
    }
}

async fn handle(
    hub: &Arc<Hub>,
    game: &mut Match,
    command: Command,
    events: &broadcast::Sender<pb::GameEvent>,
) {
    let now = hub.clock.now();
    match command {
        Command::View { with_turns, reply } => {
            let _ = reply.send(GameView::of(game, with_turns));
        }
        Command::LegalSteps { reply } => {
            let steps = if game.status() == Status::Active {
                game.game().legal_steps()
            } else {
                Vec::new()
            };
            let _ = reply.send((steps, StateView::of(game)));
        }
        Command::Turn {
            actor,
            number,
            text,
            reply,
        } => {
            let answer = match game.plan_turn(actor, number, &text, now) {
                Err(error) => Err(error.into()),
                Ok(TurnPlan::Replay(record)) => Ok((record, StateView::of(game))),
                Ok(TurnPlan::New(t)) => {
                    let record = t.record.clone().expect("a turn transition has its record");
                    commit(hub, game, t, events)
                        .await
                        .map(|after| (record, after))
                }
            };
            let _ = reply.send(answer);
        }
        Command::Action {
            action,
            actor,
            reply,
        } => {
            let planned = match action {
                Action::Resign => game.plan_resign(actor, now),
                Action::OfferDraw => game.plan_offer_draw(actor, now),
                Action::AcceptDraw => game.plan_accept_draw(actor, now),
                Action::DeclineDraw => game.plan_decline_draw(actor, now),
                Action::Abort => game.plan_abort(actor, now),
            };
            let answer = match planned {
                Err(error) => Err(error.into()),
                Ok(t) => commit(hub, game, t, events).await,
            };
            let _ = reply.send(answer);
        }
        Command::Watch { from_turn, reply } => {
            let _ = reply.send(start_watch(game, from_turn, events));
        }
    }
}

/// Stores a transition, then applies it and tells everyone. On a lost race the match is reloaded
/// from the database, which knows better.
async fn commit(
    hub: &Arc<Hub>,
    game: &mut Match,
    t: Transition,
    events: &broadcast::Sender<pb::GameEvent>,
) -> ServiceResult<StateView> {
    match hub.writer.write(Write::of(game, &t)).await {
        Ok(()) => {}
        Err(StoreError::Conflict(detail)) => {
            tracing::warn!(game_id = %game.id, %detail, "lost a race; reloading the game");
            if let Ok(fresh) = hub.load(game.id).await {
                *game = fresh;
            }
            return Err(ServiceError::LostRace);
        }
        Err(error) => return Err(error.into()),
    }
    let happened = t.events.clone();
    game.apply(t);
    let after = StateView::of(game);
    for event in &happened {
        if events.receiver_count() > 0 {
            let _ = events.send(convert::game_event(event, &after));
        }
        match event {
            Event::TurnPlayed(record) => {
                tracing::info!(game_id = %game.id, turn = record.number, "turn accepted");
                hub.announce_turn(game, &after);
            }
            Event::DrawOffered(by) => {
                hub.tell_player(game.player(by.opponent()), game.id, || {
                    pb::player_event::Event::DrawOffered(pb::DrawOffered {
                        by: convert::side(*by),
                        state: Some(convert::state(&after)),
                    })
                });
            }
            Event::DrawDeclined(_) => {}
            Event::GameOver(result) => {
                tracing::info!(game_id = %game.id, result = %result.summary(), "game over");
                let over = pb::GameOver {
                    result: Some(convert::result(result)),
                    state: Some(convert::state(&after)),
                };
                for side in [hanniball_rules::Side::White, hanniball_rules::Side::Black] {
                    hub.tell_player(game.player(side), game.id, || {
                        pb::player_event::Event::GameOver(over.clone())
                    });
                }
                hub.results.notify_waiters();
            }
        }
    }
    Ok(after)
}

fn start_watch(game: &Match, from_turn: u32, events: &broadcast::Sender<pb::GameEvent>) -> Watch {
    let current = StateView::of(game);
    let mut first = Vec::new();
    if from_turn == 0 {
        first.push(pb::GameEvent {
            event: Some(pb::game_event::Event::Snapshot(convert::game(
                &GameView::of(game, true),
            ))),
        });
    } else {
        let turns = game.turns();
        for record in turns.iter().filter(|r| r.number >= from_turn) {
            let state = if record.number as usize == turns.len() {
                convert::state(&current)
            } else {
                replayed_state(game.id, record)
            };
            first.push(pb::GameEvent {
                event: Some(pb::game_event::Event::TurnPlayed(pb::TurnPlayed {
                    record: Some(convert::turn(record)),
                    state: Some(state),
                })),
            });
        }
        if let Some(result) = game.result() {
            first.push(convert::game_event(&Event::GameOver(result), &current));
        }
    }
    let live = (game.status() == Status::Active).then(|| events.subscribe());
    (first, live)
}

/// The state right after a past turn, as far as its record tells.
fn replayed_state(game: GameId, record: &TurnRecord) -> pb::GameState {
    pb::GameState {
        game_id: game.0,
        status: pb::GameStatus::Active as i32,
        position: record.position_after.clone(),
        side_to_move: convert::side(record.side.opponent()),
        next_turn_number: record.number + 1,
        clocks: Some(pb::Clocks {
            white_ms: record.white_ms,
            black_ms: record.black_ms,
            running: convert::side(record.side.opponent()),
            as_of_ms: record.played_at.0,
        }),
        result: None,
        notices: Vec::new(),
        draw_offer_by: pb::Side::Unspecified as i32,
        board: String::new(),
    }
}
