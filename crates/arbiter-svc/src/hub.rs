//! The game hub: every loaded game sits in a slot behind its own lock. An RPC handler takes the
//! game's lock in its own task, plans the change with the pure arbiter, has the writer commit it,
//! and only then applies it and tells watchers: nothing is acknowledged or announced before it is
//! stored, and a game's changes happen one at a time. A small clock task per game sleeps until the
//! side to move would run out of time and then ends the game by itself, whether or not anyone
//! calls; it is woken only when a change moves that moment earlier.

use std::collections::HashMap;
use std::sync::Arc;
use std::sync::atomic::{AtomicI64, Ordering};
use std::time::Duration;

use hanniball_arbiter::{
    Actor, Event, GameId, Match, PlayerId, Setup, Status, Timestamp, Transition, TurnPlan,
    TurnRecord,
};
use hanniball_proto::arbiter::v1 as pb;
use hanniball_store::{NewGame, Store, StoreError, Write};
use tokio::sync::{Mutex, Notify, broadcast};
use tokio_util::sync::CancellationToken;

use crate::clock::Clock;
use crate::convert;
use crate::error::{ServiceError, ServiceResult};
use crate::view::{GameView, StateView};
use crate::writer::Writer;

/// How long a finished game stays loaded for readers before it is unloaded.
const FINISHED_IDLE: Duration = Duration::from_secs(30);
/// Events a slow watcher may fall behind before its stream is ended (it can resume).
const WATCH_BUFFER: usize = 256;
/// The armed deadline of a game whose clock does not run.
const NO_DEADLINE: i64 = i64::MAX;

/// A platform action other than a turn.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Action {
    Resign,
    OfferDraw,
    AcceptDraw,
    DeclineDraw,
    Abort,
}

/// A game event as watchers share it (one copy, however many watch).
pub type SharedEvent = Arc<pb::GameEvent>;

/// What a watcher gets when it starts: the first events, then a live subscription (none when the
/// game is already over).
pub type Watch = (Vec<pb::GameEvent>, Option<broadcast::Receiver<SharedEvent>>);

/// One loaded game.
#[derive(Debug)]
struct Slot {
    cell: Mutex<Cell>,
    /// Wakes the game's clock task when a change moved its deadline earlier than `armed`.
    rearm: Notify,
    /// The deadline (ms since the epoch) the clock task sleeps until; [`NO_DEADLINE`] if none.
    armed: AtomicI64,
}

/// What a game's lock guards.
#[derive(Debug)]
struct Cell {
    game: Match,
    /// Made when the first watcher comes: most games are never watched by anyone but their
    /// players' event streams.
    events: Option<broadcast::Sender<SharedEvent>>,
}

/// Every loaded game, the player event channels, and what they share.
#[derive(Debug)]
pub struct Hub {
    pub store: Store,
    writer: Writer,
    pub clock: Clock,
    pub shutdown: CancellationToken,
    games: std::sync::Mutex<HashMap<GameId, Arc<Slot>>>,
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
            self.slot(*id).await?;
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
        game.id = match self
            .writer
            .create(NewGame::of(&game, idempotency_key))
            .await
        {
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
        // Players may call about the game as soon as they hear of it: until its slot is in the
        // map, hold the loading lock so that nobody loads a second copy from the database.
        let _loading = self.loading.lock().await;
        let started = convert::game(&view);
        for side in [hanniball_rules::Side::White, hanniball_rules::Side::Black] {
            self.tell_player(game.player(side), game.id, || {
                pb::player_event::Event::GameStarted(started.clone())
            });
        }
        self.announce_turn(&game, &view.state);
        self.install(game);
        Ok(view)
    }

    /// A game's full view.
    pub async fn view(self: &Arc<Self>, id: GameId, with_turns: bool) -> ServiceResult<GameView> {
        let slot = self.slot(id).await?;
        let mut cell = slot.cell.lock().await;
        self.settle_time(&slot, &mut cell).await;
        Ok(GameView::of(&cell.game, with_turns))
    }

    /// Legal steps for the side to move, and the state.
    pub async fn legal_steps(
        self: &Arc<Self>,
        id: GameId,
    ) -> ServiceResult<(Vec<String>, StateView)> {
        let slot = self.slot(id).await?;
        let mut cell = slot.cell.lock().await;
        self.settle_time(&slot, &mut cell).await;
        let game = &cell.game;
        let steps = if game.status() == Status::Active {
            game.game().legal_steps()
        } else {
            Vec::new()
        };
        Ok((steps, StateView::of(game)))
    }

    /// Plays a turn.
    pub async fn submit_turn(
        self: &Arc<Self>,
        id: GameId,
        actor: Actor,
        number: u32,
        text: &str,
    ) -> ServiceResult<(TurnRecord, StateView)> {
        let slot = self.slot(id).await?;
        let mut cell = slot.cell.lock().await;
        self.settle_time(&slot, &mut cell).await;
        let now = self.clock.now();
        match cell.game.plan_turn(actor, number, text, now)? {
            TurnPlan::Replay(record) => Ok((record, StateView::of(&cell.game))),
            TurnPlan::New(t) => {
                let record = t.record.clone().expect("a turn transition has its record");
                let after = self.commit(&slot, &mut cell, t).await?;
                Ok((record, after))
            }
        }
    }

    /// Resign, draw offers and answers, abort.
    pub async fn act(
        self: &Arc<Self>,
        id: GameId,
        actor: Actor,
        action: Action,
    ) -> ServiceResult<StateView> {
        let slot = self.slot(id).await?;
        let mut cell = slot.cell.lock().await;
        self.settle_time(&slot, &mut cell).await;
        let now = self.clock.now();
        let game = &cell.game;
        let t = match action {
            Action::Resign => game.plan_resign(actor, now),
            Action::OfferDraw => game.plan_offer_draw(actor, now),
            Action::AcceptDraw => game.plan_accept_draw(actor, now),
            Action::DeclineDraw => game.plan_decline_draw(actor, now),
            Action::Abort => game.plan_abort(actor, now),
        }?;
        self.commit(&slot, &mut cell, t).await
    }

    /// Starts watching a game.
    pub async fn watch(self: &Arc<Self>, id: GameId, from_turn: u32) -> ServiceResult<Watch> {
        let slot = self.slot(id).await?;
        let mut cell = slot.cell.lock().await;
        self.settle_time(&slot, &mut cell).await;
        Ok(start_watch(&mut cell, from_turn))
    }

    /// A player's event channel.
    pub fn player_events(&self, player: PlayerId) -> broadcast::Receiver<pb::PlayerEvent> {
        self.players
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
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
        let players = self
            .players
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
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

    /// The slot of a game, loading the game from the database first if needed.
    async fn slot(self: &Arc<Self>, id: GameId) -> ServiceResult<Arc<Slot>> {
        if self.shutdown.is_cancelled() {
            return Err(ServiceError::ShuttingDown);
        }
        if let Some(slot) = self.loaded(id) {
            return Ok(slot);
        }
        // Boxed, as are the other rare paths that reach the database (a loss on time, a lost
        // race): a query's state is large, and every call's future would otherwise carry room
        // for it and be copied whole when the RPC layer boxes it.
        Box::pin(self.load_slot(id)).await
    }

    /// Loads a game that is not in the map yet.
    async fn load_slot(self: &Arc<Self>, id: GameId) -> ServiceResult<Arc<Slot>> {
        let _loading = self.loading.lock().await;
        if let Some(slot) = self.loaded(id) {
            return Ok(slot);
        }
        let game = self.load(id).await?;
        Ok(self.install(game))
    }

    fn loaded(&self, id: GameId) -> Option<Arc<Slot>> {
        self.games
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .get(&id)
            .cloned()
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

    /// Puts a game in the map and starts its clock task. The caller holds the loading lock.
    fn install(self: &Arc<Self>, game: Match) -> Arc<Slot> {
        let id = game.id;
        let slot = Arc::new(Slot {
            armed: AtomicI64::new(armed(game.deadline())),
            cell: Mutex::new(Cell { game, events: None }),
            rearm: Notify::new(),
        });
        self.games
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .insert(id, Arc::clone(&slot));
        tokio::spawn(Arc::clone(self).keep_time(id, Arc::clone(&slot)));
        slot
    }

    /// A game's clock task: ends the game when the side to move runs out of time; unloads it a
    /// while after it is over; stops at shutdown.
    async fn keep_time(self: Arc<Self>, id: GameId, slot: Arc<Slot>) {
        loop {
            let (deadline, finished) = {
                let cell = slot.cell.lock().await;
                let deadline = cell.game.deadline();
                slot.armed.store(armed(deadline), Ordering::SeqCst);
                (deadline, cell.game.status() != Status::Active)
            };
            if finished {
                tokio::select! {
                    () = self.shutdown.cancelled() => return,
                    () = tokio::time::sleep(FINISHED_IDLE) => {}
                }
                let mut games = self
                    .games
                    .lock()
                    .unwrap_or_else(std::sync::PoisonError::into_inner);
                if games
                    .get(&id)
                    .is_some_and(|current| Arc::ptr_eq(current, &slot))
                {
                    games.remove(&id);
                }
                return;
            }
            tokio::select! {
                () = self.shutdown.cancelled() => return,
                () = slot.rearm.notified() => {}
                () = sleep_until(&self.clock, deadline) => {
                    let mut cell = slot.cell.lock().await;
                    if !self.settle_time(&slot, &mut cell).await {
                        // Not stored (the database is down?): try again shortly.
                        drop(cell);
                        tokio::time::sleep(Duration::from_millis(200)).await;
                    }
                }
            }
        }
    }

    /// Ends the game on time if the side to move's clock has run out. False if that could not be
    /// stored.
    async fn settle_time(&self, slot: &Slot, cell: &mut Cell) -> bool {
        let Some(t) = cell.game.plan_time_out(self.clock.now()) else {
            return true;
        };
        match Box::pin(self.commit(slot, cell, t)).await {
            Ok(_) => {
                tracing::info!(game_id = %cell.game.id, "loss on time");
                true
            }
            Err(error) => {
                tracing::warn!(game_id = %cell.game.id, %error, "could not store a loss on time");
                false
            }
        }
    }

    /// Stores a transition, then applies it and tells everyone. On a lost race the match is
    /// reloaded from the database, which knows better.
    async fn commit(
        &self,
        slot: &Slot,
        cell: &mut Cell,
        mut t: Transition,
    ) -> ServiceResult<StateView> {
        let game = &mut cell.game;
        match self.writer.write(Write::of(game, &t)).await {
            Ok(()) => {}
            Err(StoreError::Conflict(detail)) => {
                tracing::warn!(game_id = %game.id, %detail, "lost a race; reloading the game");
                if let Ok(fresh) = Box::pin(self.load(game.id)).await {
                    *game = fresh;
                    slot.rearm.notify_one();
                }
                return Err(ServiceError::LostRace);
            }
            Err(error) => return Err(error.into()),
        }
        let happened = std::mem::take(&mut t.events);
        game.apply(t);
        // Wake the clock task if the game ended or must end sooner than it planned.
        if armed(game.deadline()) < slot.armed.load(Ordering::SeqCst)
            || game.status() != Status::Active
        {
            slot.rearm.notify_one();
        }
        let after = StateView::of(game);
        if cell
            .events
            .as_ref()
            .is_some_and(|tx| tx.receiver_count() == 0)
        {
            cell.events = None;
        }
        for event in &happened {
            if let Some(tx) = &cell.events {
                let _ = tx.send(Arc::new(convert::game_event(event, &after)));
            }
            match event {
                Event::TurnPlayed(record) => {
                    tracing::debug!(game_id = %game.id, turn = record.number, "turn accepted");
                    self.announce_turn(game, &after);
                }
                Event::DrawOffered(by) => {
                    self.tell_player(game.player(by.opponent()), game.id, || {
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
                        self.tell_player(game.player(side), game.id, || {
                            pb::player_event::Event::GameOver(over.clone())
                        });
                    }
                    self.results.notify_waiters();
                }
            }
        }
        Ok(after)
    }
}

/// A deadline as a clock task arms it.
fn armed(deadline: Option<Timestamp>) -> i64 {
    deadline.map_or(NO_DEADLINE, |d| d.0)
}

/// Waits until `deadline`, or forever when there is none.
async fn sleep_until(clock: &Clock, deadline: Option<Timestamp>) {
    match deadline {
        Some(deadline) => clock.sleep_until(deadline).await,
        None => std::future::pending().await,
    }
}

fn start_watch(cell: &mut Cell, from_turn: u32) -> Watch {
    let game = &cell.game;
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
    let live = (game.status() == Status::Active).then(|| {
        cell.events
            .get_or_insert_with(|| broadcast::channel(WATCH_BUFFER).0)
            .subscribe()
    });
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
