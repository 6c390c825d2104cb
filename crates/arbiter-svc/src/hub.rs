//! The game hub: every loaded game sits in a slot behind its own lock. An RPC handler takes the
//! game's lock in its own task, plans the change with the pure arbiter, has the writer commit it,
//! and only then applies it and tells watchers: nothing is acknowledged or announced before it is
//! stored, and a game's changes happen one at a time. A small clock task per game sleeps until the
//! side to move would run out of time and then ends the game by itself, whether or not anyone
//! calls; it is woken only when a change moves that moment earlier.

use std::collections::HashMap;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicI64, Ordering};
use std::time::Duration;

use hanniball_arbiter::{
    ActionError, Actor, Event, GameId, Match, PlayerId, Setup, Status, Timestamp, Transition,
    TurnPlan, TurnRecord,
};
use hanniball_proto::arbiter::v1 as pb;
use hanniball_rules::PartialTurn;
use hanniball_svc_kit::Directory;

use crate::store::{NewGame, Store, StoreError, Write};
use tokio::sync::{Mutex, Notify, broadcast};
use tokio_util::sync::CancellationToken;

use crate::convert;
use crate::error::{ServiceError, ServiceResult, refused, refused_in};
use crate::view::{GameView, StateView};
use crate::writer::Writer;
use hanniball_svc_kit::Clock;

/// How long a finished game stays loaded for readers before it is unloaded.
const FINISHED_IDLE: Duration = Duration::from_secs(30);
/// Events a slow watcher may fall behind before its stream is ended (it can resume).
const WATCH_BUFFER: usize = 256;
/// The armed deadline of a game whose clock does not run.
const NO_DEADLINE: i64 = i64::MAX;
/// Times a call plans again after losing a race to another replica.
const RETRIES: u32 = 3;
/// How long a clock lease lasts unless renewed (PostgreSQL replicas; see [`Hub::keep_leases`]).
const LEASE_MS: i64 = 3_000;
/// How often a replica renews its clock leases and takes over lapsed ones; with [`LEASE_MS`], a
/// dead owner's games are taken over within 4 s.
const LEASE_RENEW: Duration = Duration::from_secs(1);

/// A platform action other than a turn.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Action {
    Resign,
    OfferDraw,
    AcceptDraw,
    DeclineDraw,
    Abort,
    /// The organiser's result ([`hanniball_arbiter::FinalResult::decided`]).
    Adjudicate(hanniball_arbiter::FinalResult),
}

/// Whether a planned turn is stored (`SubmitTurn`) or only shown (`CheckTurn`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Commit {
    Store,
    DryRun,
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
    /// Whether this replica holds the game's clock lease (as of the last claim).
    owns_clock: AtomicBool,
}

/// What a game's lock guards.
#[derive(Debug)]
struct Cell {
    game: Match,
    /// The version of the stored row this copy is (PostgreSQL; see [`Hub::replicated`]).
    version: i64,
    /// Made when the first watcher comes: most games are never watched by anyone but their
    /// players' event streams.
    events: Option<broadcast::Sender<SharedEvent>>,
}

/// Every loaded game, the player event channels, and what they share.
#[derive(Debug)]
pub struct Hub {
    pub store: Store,
    /// Accounts, as every service asks it (in this process or over gRPC): the hub checks a
    /// game's players with it, the services' auth their tokens.
    pub directory: Directory,
    writer: Writer,
    pub clock: Clock,
    pub shutdown: CancellationToken,
    games: std::sync::Mutex<HashMap<GameId, Arc<Slot>>>,
    /// Serialises loading games from the database (so a game is never loaded twice).
    loading: Mutex<()>,
    players: std::sync::Mutex<HashMap<PlayerId, broadcast::Sender<pb::PlayerEvent>>>,
    /// Signalled whenever a game finishes (results stream consumers wake up).
    pub results: Notify,
    /// Other processes may write the same games (PostgreSQL): writes are guarded by the row's
    /// version, reads compare it first, and changes are heard through `LISTEN`.
    replicated: bool,
    /// This process's name in clock leases (unique per process and hub).
    replica: String,
}

impl Hub {
    /// A hub over `store`. Call [`Hub::load_active`] to bring back unfinished games.
    #[must_use]
    pub fn new(
        store: Store,
        directory: Directory,
        clock: Clock,
        shutdown: CancellationToken,
    ) -> Arc<Hub> {
        Arc::new(Hub {
            directory,
            replicated: store.shared_by_replicas(),
            writer: Writer::start(store.clone()),
            store,
            clock,
            shutdown,
            games: std::sync::Mutex::new(HashMap::new()),
            loading: Mutex::new(()),
            players: std::sync::Mutex::new(HashMap::new()),
            results: Notify::new(),
            replica: replica_name(),
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
            if self.directory.player(player).await?.is_none() {
                return Err(ServiceError::NotFound {
                    what: "player",
                    id: format!("{player} ({side})"),
                });
            }
        }
        self.create_checked(setup, idempotency_key).await
    }

    /// Games in one call: every setup and player is checked first (a refusal creates none,
    /// naming the request by its index), then the new ones are inserted in one transaction (a
    /// key already used answers with its game, as [`Hub::create_game`]). Views in the order
    /// asked.
    pub async fn create_games(
        self: &Arc<Self>,
        games: Vec<(Setup, Option<String>)>,
    ) -> ServiceResult<Vec<GameView>> {
        let mut players: Vec<PlayerId> = games
            .iter()
            .flat_map(|(setup, _)| [setup.white, setup.black])
            .collect();
        players.sort_unstable();
        players.dedup();
        let known = self.directory.player_names(&players).await?;
        let now = self.clock.now();
        let mut checked: Vec<(Match, Option<String>)> = Vec::with_capacity(games.len());
        for (index, (setup, key)) in games.into_iter().enumerate() {
            for (side, player) in [("white", setup.white), ("black", setup.black)] {
                if !known.contains_key(&player) {
                    return Err(ServiceError::NotFound {
                        what: "player",
                        id: format!("{player} ({side} of games[{index}])"),
                    });
                }
            }
            if setup.white == setup.black {
                return Err(ServiceError::InvalidArgument(format!(
                    "games[{index}]: a player cannot play both sides"
                )));
            }
            let game = Match::new(GameId(0), setup, now).map_err(|error| {
                ServiceError::InvalidArgument(format!("games[{index}]: {error}"))
            })?;
            checked.push((game, key));
        }
        // Games already created under their keys are answered as they are; the others are
        // inserted in one transaction (all or none) and then loaded here.
        // One lookup for the batch's keys (a round's 2,500 games are one query, not 2,500).
        let keys: Vec<&str> = checked
            .iter()
            .filter_map(|(_, key)| key.as_deref())
            .collect();
        let taken = if keys.is_empty() {
            HashMap::new()
        } else {
            self.store.games_by_idempotency_keys(&keys).await?
        };
        let mut views: Vec<Option<GameView>> = Vec::with_capacity(checked.len());
        let mut fresh: Vec<(usize, Match, Option<String>)> = Vec::new();
        for (index, (game, key)) in checked.into_iter().enumerate() {
            let existing = key.as_deref().and_then(|key| taken.get(key).copied());
            match existing {
                Some(id) => views.push(Some(self.view(id, false).await?)),
                None => {
                    views.push(None);
                    fresh.push((index, game, key));
                }
            }
        }
        if !fresh.is_empty() {
            // As in `create_checked`: nobody loads a second copy between the commit and the
            // install.
            let loading = self.loading.lock().await;
            let rows: Vec<NewGame> = fresh
                .iter()
                .map(|(_, game, key)| NewGame::of(game, key.as_deref()))
                .collect();
            match self.store.insert_games(&rows).await {
                Ok(ids) => {
                    for ((index, mut game, _), id) in fresh.into_iter().zip(ids) {
                        game.id = id;
                        if let Some(slot) = views.get_mut(index) {
                            *slot = Some(self.started(game));
                        }
                    }
                }
                // A key taken meanwhile (another creator of the same games: a retry, or the
                // scheduler's reconciliation): nothing was inserted. Each game then as
                // `CreateGame`, which answers a taken key with its game.
                Err(StoreError::Conflict(_)) => {
                    drop(loading);
                    for (index, game, key) in fresh {
                        let view = self.create_checked(game.setup, key.as_deref()).await?;
                        if let Some(slot) = views.get_mut(index) {
                            *slot = Some(view);
                        }
                    }
                }
                Err(error) => return Err(error.into()),
            }
        }
        tracing::info!(games = views.len(), "games created");
        views
            .into_iter()
            .map(|view| view.ok_or(ServiceError::LostRace))
            .collect()
    }

    /// [`Hub::create_game`] once its players are known to exist.
    async fn create_checked(
        self: &Arc<Self>,
        setup: Setup,
        idempotency_key: Option<&str>,
    ) -> ServiceResult<GameView> {
        if setup.white == setup.black {
            return Err(ServiceError::InvalidArgument(
                "a player cannot play both sides".to_owned(),
            ));
        }
        let now = self.clock.now();
        let mut game = Match::new(GameId(0), setup, now)
            .map_err(|error| ServiceError::InvalidArgument(error.to_string()))?;
        // From the commit until its slot is in the map, the game is in the database but not
        // here: hold the loading lock across both, so that nobody (a reader, or this replica
        // hearing its own notification) loads a second copy meanwhile. A second copy would take
        // the map's place while watchers stay on the first, and never hear of the game again.
        let loading = self.loading.lock().await;
        game.id = match self
            .writer
            .create(NewGame::of(&game, idempotency_key))
            .await
        {
            Ok(id) => id,
            // Two creations raced with one key: the other one won; answer with its game.
            Err(StoreError::Conflict(_)) if idempotency_key.is_some() => {
                drop(loading);
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
        tracing::info!(game_id = %game.id, white = %game.setup.white, black = %game.setup.black, "game created");
        let view = self.started(game);
        drop(loading);
        Ok(view)
    }

    /// A game just stored: its players hear of it, the side to move that it is its turn, and it
    /// is installed here (the caller holds the loading lock).
    fn started(self: &Arc<Self>, game: Match) -> GameView {
        let view = GameView::of(&game, true);
        let started = convert::game(&view);
        for side in [hanniball_rules::Side::White, hanniball_rules::Side::Black] {
            self.tell_player(game.player(side), game.id, || {
                pb::player_event::Event::GameStarted(started.clone())
            });
        }
        self.announce_turn(&game, &view.state);
        self.install(game, 0);
        view
    }

    /// A game's full view.
    pub async fn view(self: &Arc<Self>, id: GameId, with_turns: bool) -> ServiceResult<GameView> {
        let slot = self.slot(id).await?;
        let mut cell = slot.cell.lock().await;
        self.catch_up(&slot, &mut cell).await?;
        self.settle_time(&slot, &mut cell).await;
        Ok(GameView::of(&cell.game, with_turns))
    }

    /// The steps legal for the side to move after `after` (the steps already chosen this turn;
    /// empty for the turn's start), where the turn stands then, and the state. A game that is
    /// over has no steps, and a partial turn in it is refused as the game being over.
    pub async fn legal_steps(
        self: &Arc<Self>,
        id: GameId,
        after: &str,
    ) -> ServiceResult<(PartialTurn, StateView)> {
        let slot = self.slot(id).await?;
        let mut cell = slot.cell.lock().await;
        self.catch_up(&slot, &mut cell).await?;
        self.settle_time(&slot, &mut cell).await;
        let game = &cell.game;
        let partial = if game.status() == Status::Active {
            game.game()
                .partial_turn(after)
                .map_err(|error| ServiceError::InvalidArgument(format!("after: {error}")))?
        } else if after.is_empty() {
            PartialTurn {
                next: Vec::new(),
                may_end: false,
                must_end: true,
                position: game.position().to_owned(),
                result: None,
            }
        } else {
            let over = game.result().map_or_else(
                || game.status().name().to_owned(),
                |result| result.summary(),
            );
            return Err(refused(ActionError::GameOver(over)));
        };
        Ok((partial, StateView::of(game)))
    }

    /// Plays a turn. A copy that turns out stale (another replica changed the game) is brought
    /// up to date and the turn planned again, within the call.
    pub async fn submit_turn(
        self: &Arc<Self>,
        id: GameId,
        actor: Actor,
        number: u32,
        text: &str,
    ) -> ServiceResult<(TurnRecord, StateView)> {
        self.turn(id, actor, number, text, Commit::Store).await
    }

    /// What [`Hub::submit_turn`] would answer now, changing nothing: the same planning (and so
    /// the same refusals), then the transition applied to a copy of the match instead of being
    /// stored. Like every call on a game, it first records a loss on time that is already due
    /// (the game's clock task records it at that moment anyway).
    pub async fn check_turn(
        self: &Arc<Self>,
        id: GameId,
        actor: Actor,
        number: u32,
        text: &str,
    ) -> ServiceResult<(TurnRecord, StateView)> {
        self.turn(id, actor, number, text, Commit::DryRun).await
    }

    /// A turn planned by the arbiter, then stored and applied, or (dry run) only applied to a copy.
    async fn turn(
        self: &Arc<Self>,
        id: GameId,
        actor: Actor,
        number: u32,
        text: &str,
        commit: Commit,
    ) -> ServiceResult<(TurnRecord, StateView)> {
        let slot = self.slot(id).await?;
        let mut cell = slot.cell.lock().await;
        if commit == Commit::DryRun {
            // Nothing is stored, so no guard would notice a stale copy: compare first.
            self.catch_up(&slot, &mut cell).await?;
        }
        self.settle_time(&slot, &mut cell).await;
        for attempt in 0.. {
            let now = self.clock.now();
            let planned = cell.game.plan_turn(actor, number, text, now);
            // A refusal may come from a stale copy: check before answering with it.
            if planned.is_err() && attempt == 0 && self.catch_up(&slot, &mut cell).await? {
                continue;
            }
            match planned.map_err(refused_in(id.0))? {
                TurnPlan::Replay(record) => return Ok((record, StateView::of(&cell.game))),
                TurnPlan::New(t) => {
                    let record = t.record.clone().expect("a turn transition has its record");
                    if commit == Commit::DryRun {
                        let mut preview = cell.game.clone();
                        preview.apply(t);
                        return Ok((record, StateView::of(&preview)));
                    }
                    match self.commit(&slot, &mut cell, t).await {
                        Err(ServiceError::LostRace) if attempt < RETRIES => {}
                        Err(error) => return Err(error),
                        Ok(after) => return Ok((record, after)),
                    }
                }
            }
        }
        unreachable!("the loop returns")
    }

    /// Resign, draw offers and answers, abort; planned again on an up-to-date copy if this one
    /// was stale.
    pub async fn act(
        self: &Arc<Self>,
        id: GameId,
        actor: Actor,
        action: Action,
    ) -> ServiceResult<StateView> {
        let slot = self.slot(id).await?;
        let mut cell = slot.cell.lock().await;
        self.settle_time(&slot, &mut cell).await;
        for attempt in 0.. {
            let now = self.clock.now();
            let game = &cell.game;
            if let Action::Adjudicate(result) = action
                && game.result() == Some(result)
            {
                // Asked again (a retry, or the result reached the board both ways): the same
                // answer, nothing changes.
                return Ok(StateView::of(game));
            }
            let planned = match action {
                Action::Resign => game.plan_resign(actor, now),
                Action::OfferDraw => game.plan_offer_draw(actor, now),
                Action::AcceptDraw => game.plan_accept_draw(actor, now),
                Action::DeclineDraw => game.plan_decline_draw(actor, now),
                Action::Abort => game.plan_abort(actor, now),
                Action::Adjudicate(result) => game.plan_adjudicate(actor, result, now),
            };
            if planned.is_err() && attempt == 0 && self.catch_up(&slot, &mut cell).await? {
                continue;
            }
            match self
                .commit(&slot, &mut cell, planned.map_err(refused_in(id.0))?)
                .await
            {
                Err(ServiceError::LostRace) if attempt < RETRIES => {}
                result => return result,
            }
        }
        unreachable!("the loop returns")
    }

    /// The organiser's correction of a finished game's result ([`Match::plan_correction`]):
    /// stored with who, why and when ([`Store::correct_result`]), then applied; the game goes
    /// out again on `WatchResults`. The result it already has changes nothing. Returns the
    /// state and the game's count of corrections.
    pub async fn correct(
        self: &Arc<Self>,
        id: GameId,
        result: hanniball_arbiter::FinalResult,
        by: &str,
        note: &str,
    ) -> ServiceResult<(StateView, u32)> {
        let slot = self.slot(id).await?;
        let mut cell = slot.cell.lock().await;
        for attempt in 0.. {
            self.catch_up(&slot, &mut cell).await?;
            let game = &cell.game;
            let Some(corrected) = game
                .plan_correction(Actor::Admin, result)
                .map_err(refused_in(id.0))?
            else {
                return Ok((StateView::of(game), game.corrections));
            };
            let correction = crate::store::Correction {
                game_id: id,
                expected_corrections: game.corrections,
                previous: game.result(),
                result: corrected,
                by: by.to_owned(),
                note: note.to_owned(),
                at: self.clock.now(),
                finished_at: game.finished_at(),
            };
            match self.store.correct_result(&correction).await {
                Ok(()) => {}
                Err(StoreError::Conflict(detail)) if attempt < RETRIES => {
                    tracing::debug!(game_id = %id, %detail, "correction lost a race; catching up");
                    Box::pin(self.refresh(&slot, &mut cell)).await?;
                    continue;
                }
                Err(error) => return Err(error.into()),
            }
            cell.version += 1;
            let previous = correction.previous.map(|r| r.summary()).unwrap_or_default();
            cell.game.apply_correction(corrected);
            tracing::info!(
                game_id = %id,
                previous,
                result = %corrected.summary(),
                by,
                "result corrected"
            );
            self.results.notify_waiters();
            return Ok((StateView::of(&cell.game), cell.game.corrections));
        }
        unreachable!("the loop returns")
    }

    /// Starts watching a game.
    pub async fn watch(self: &Arc<Self>, id: GameId, from_turn: u32) -> ServiceResult<Watch> {
        let slot = self.slot(id).await?;
        let mut cell = slot.cell.lock().await;
        self.catch_up(&slot, &mut cell).await?;
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
        let (game, version) = self.load(id).await?;
        Ok(self.install(game, version))
    }

    fn loaded(&self, id: GameId) -> Option<Arc<Slot>> {
        self.games
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .get(&id)
            .cloned()
    }

    async fn load(&self, id: GameId) -> ServiceResult<(Match, i64)> {
        let (stored, version) =
            self.store
                .load_game_versioned(id)
                .await?
                .ok_or_else(|| ServiceError::NotFound {
                    what: "game",
                    id: id.to_string(),
                })?;
        let game = Match::restore(stored).map_err(|error| {
            ServiceError::Internal(format!("game {id} does not restore: {error}"))
        })?;
        Ok((game, version))
    }

    /// Puts a game in the map and starts its clock task. The caller holds the loading lock.
    fn install(self: &Arc<Self>, game: Match, version: i64) -> Arc<Slot> {
        let id = game.id;
        let slot = Arc::new(Slot {
            armed: AtomicI64::new(armed(game.deadline())),
            cell: Mutex::new(Cell {
                game,
                version,
                events: None,
            }),
            rearm: Notify::new(),
            owns_clock: AtomicBool::new(false),
        });
        let replaced = self
            .games
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .insert(id, Arc::clone(&slot));
        if replaced.is_none() {
            metrics::gauge!("hanniball_games_loaded").increment(1.0);
        }
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
                if slot.owns_clock.swap(false, Ordering::SeqCst)
                    && let Err(error) = self.store.release_clocks(&[id], &self.replica).await
                {
                    tracing::debug!(game_id = %id, %error, "could not release a clock lease");
                }
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
                    metrics::gauge!("hanniball_games_loaded").decrement(1.0);
                }
                return;
            }
            tokio::select! {
                () = self.shutdown.cancelled() => return,
                () = slot.rearm.notified() => {}
                () = sleep_until(&self.clock, deadline) => {
                    if !self.hold_clock(id, &slot).await {
                        // Another live replica keeps this clock: it ends the game, and this copy
                        // hears of it. Ask again a little later, in case that replica has died.
                        tokio::select! {
                            () = self.shutdown.cancelled() => return,
                            () = slot.rearm.notified() => {}
                            () = tokio::time::sleep(LEASE_RENEW) => {}
                        }
                        continue;
                    }
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

    /// Whether this replica keeps game `id`'s clock: claims (or renews) its lease, which succeeds
    /// unless another replica holds one that has not lapsed. Always true on SQLite.
    async fn hold_clock(&self, id: GameId, slot: &Slot) -> bool {
        if !self.replicated {
            return true;
        }
        let now = self.clock.now().0;
        let held = match self
            .store
            .claim_clocks(&[id], &self.replica, now, now + LEASE_MS)
            .await
        {
            Ok(held) => held.contains(&id),
            Err(error) => {
                tracing::warn!(game_id = %id, %error, "could not claim a clock lease");
                false
            }
        };
        slot.owns_clock.store(held, Ordering::SeqCst);
        held
    }

    /// PostgreSQL replicas: keeps this replica's clock leases alive and takes over lapsed ones,
    /// for every loaded game whose clock runs, every [`LEASE_RENEW`]; gives them up at shutdown.
    /// So exactly one live replica keeps a game's clock, and when it dies another takes over
    /// within [`LEASE_MS`] + [`LEASE_RENEW`]. The lease decides who ends a game on time; the
    /// version guard on every write still makes sure a game is ended once.
    pub async fn keep_leases(self: Arc<Self>) {
        loop {
            let slots: Vec<(GameId, Arc<Slot>)> = self
                .games
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner)
                .iter()
                .filter(|(_, slot)| slot.armed.load(Ordering::SeqCst) != NO_DEADLINE)
                .map(|(id, slot)| (*id, Arc::clone(slot)))
                .collect();
            let ids: Vec<GameId> = slots.iter().map(|(id, _)| *id).collect();
            let now = self.clock.now().0;
            match self
                .store
                .claim_clocks(&ids, &self.replica, now, now + LEASE_MS)
                .await
            {
                Ok(held) => {
                    let held: std::collections::HashSet<GameId> = held.into_iter().collect();
                    for (id, slot) in &slots {
                        let owns = held.contains(id);
                        if owns && !slot.owns_clock.swap(true, Ordering::SeqCst) {
                            tracing::debug!(game_id = %id, replica = %self.replica, "keeps the clock");
                            // Perhaps taken over from a dead replica after the deadline passed.
                            slot.rearm.notify_one();
                        } else if !owns {
                            slot.owns_clock.store(false, Ordering::SeqCst);
                        }
                    }
                }
                Err(error) => tracing::warn!(%error, "could not renew the clock leases"),
            }
            tokio::select! {
                () = self.shutdown.cancelled() => break,
                () = tokio::time::sleep(LEASE_RENEW) => {}
            }
        }
        let held: Vec<GameId> = self
            .games
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .iter()
            .filter(|(_, slot)| slot.owns_clock.load(Ordering::SeqCst))
            .map(|(id, _)| *id)
            .collect();
        if let Err(error) = self.store.release_clocks(&held, &self.replica).await {
            tracing::debug!(%error, "could not give up the clock leases at shutdown");
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
            // Another replica stored it (or another change) first; the copy is up to date now.
            Err(ServiceError::LostRace) => true,
            Err(error) => {
                tracing::warn!(game_id = %cell.game.id, %error, "could not store a loss on time");
                false
            }
        }
    }

    /// Stores a transition, then applies it and tells everyone. On a lost race (another replica
    /// changed the game since this copy was made) the copy is brought up to date, and the caller
    /// may plan again.
    async fn commit(
        &self,
        slot: &Slot,
        cell: &mut Cell,
        mut t: Transition,
    ) -> ServiceResult<StateView> {
        let mut write = Write::of(&cell.game, &t);
        if self.replicated {
            write.expected_version = Some(cell.version);
        }
        match self.writer.write(write).await {
            Ok(()) => {}
            Err(StoreError::Conflict(detail)) => {
                tracing::debug!(game_id = %cell.game.id, %detail, "lost a race; catching up");
                Box::pin(self.refresh(slot, cell)).await?;
                return Err(ServiceError::LostRace);
            }
            Err(error) => return Err(error.into()),
        }
        cell.version += 1;
        let happened = std::mem::take(&mut t.events);
        cell.game.apply(t);
        Ok(self.publish(slot, cell, &happened))
    }

    /// After a change of `cell`'s game: wakes its clock task if needed, and tells watchers and
    /// players what `happened`. Returns the state now.
    fn publish(&self, slot: &Slot, cell: &mut Cell, happened: &[Event]) -> StateView {
        let game = &cell.game;
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
        for event in happened {
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
        after
    }

    /// Brings a copy up to date if another replica changed the game since it was made (one
    /// query for the row's version; nothing on SQLite, where this process is the only writer).
    /// True if the copy changed.
    async fn catch_up(&self, slot: &Slot, cell: &mut Cell) -> ServiceResult<bool> {
        if !self.replicated {
            return Ok(false);
        }
        match self.store.game_version(cell.game.id).await? {
            Some(version) if version != cell.version => {
                Box::pin(self.refresh(slot, cell)).await?;
                Ok(true)
            }
            _ => Ok(false),
        }
    }

    /// Brings a copy up to date from the database and tells this process's watchers and players
    /// what changed meanwhile (turns, draw offers, the end), as if it had happened here. Reads the
    /// game row and only the turns after the copy's (replaying just those); a tail that does not
    /// follow the copy falls back to loading the whole game.
    async fn refresh(&self, slot: &Slot, cell: &mut Cell) -> ServiceResult<()> {
        let id = cell.game.id;
        let held = cell.game.turns().len();
        let old_offer = cell.game.draw_offer();
        let old_status = cell.game.status();
        let tail = self
            .store
            .load_game_after(id, held as u32)
            .await?
            .ok_or_else(|| ServiceError::NotFound {
                what: "game",
                id: id.to_string(),
            })?;
        let (stored, version) = tail;
        if let Err(error) = cell.game.catch_up(stored) {
            tracing::warn!(game_id = %id, %error, "the copy does not catch up; reloading it");
            let (fresh, version) = self.load(id).await?;
            if fresh.turns().len() < held {
                return Err(ServiceError::Internal(format!(
                    "game {id}: the stored log is shorter than this copy's"
                )));
            }
            cell.game = fresh;
            cell.version = version;
        } else {
            cell.version = version;
        }
        let game = &cell.game;
        let mut happened: Vec<Event> = game.turns()[held..]
            .iter()
            .cloned()
            .map(Event::TurnPlayed)
            .collect();
        match (old_offer, game.draw_offer()) {
            (_, Some(by)) if old_offer != Some(by) => happened.push(Event::DrawOffered(by)),
            (Some(by), None) if game.status() == Status::Active => {
                happened.push(Event::DrawDeclined(by.opponent()));
            }
            _ => {}
        }
        if old_status == Status::Active
            && let Some(result) = game.result()
        {
            happened.push(Event::GameOver(result));
        }
        slot.rearm.notify_one();
        self.publish(slot, cell, &happened);
        Ok(())
    }

    /// Follows the changes other processes make (PostgreSQL `LISTEN`): a game this process holds
    /// is brought up to date at once (its watchers and players hear of it); a game it does not
    /// hold yet (created elsewhere) is loaded, so that its clock runs here too and its players
    /// hear that it started. After a lost connection every held game is compared.
    /// `changes` is [`crate::store::Store::listen_games`]'s stream, opened before the active
    /// games were loaded so that nothing committed in between is missed.
    pub async fn follow(
        self: Arc<Self>,
        changes: impl tokio_stream::Stream<Item = Option<(GameId, i64)>>,
    ) {
        let mut changes = std::pin::pin!(changes);
        loop {
            let change = tokio::select! {
                () = self.shutdown.cancelled() => return,
                change = tokio_stream::StreamExt::next(&mut changes) => change,
            };
            match change {
                None => return,
                Some(Some((id, version))) => {
                    if let Err(error) = self.heard(id, version).await {
                        tracing::warn!(game_id = %id, %error, "could not follow a change");
                    }
                }
                Some(None) => {
                    tracing::warn!("game notifications may have been missed; comparing every game");
                    let slots: Vec<Arc<Slot>> = self
                        .games
                        .lock()
                        .unwrap_or_else(std::sync::PoisonError::into_inner)
                        .values()
                        .cloned()
                        .collect();
                    for slot in slots {
                        let mut cell = slot.cell.lock().await;
                        if let Err(error) = self.catch_up(&slot, &mut cell).await {
                            tracing::warn!(game_id = %cell.game.id, %error, "could not catch up");
                        }
                    }
                    if let Err(error) = self.load_active().await {
                        tracing::warn!(%error, "could not load the active games");
                    }
                }
            }
        }
    }

    /// A change of game `id` to `version`, committed by some process (this one included).
    async fn heard(self: &Arc<Self>, id: GameId, version: i64) -> ServiceResult<()> {
        if let Some(slot) = self.loaded(id) {
            let mut cell = slot.cell.lock().await;
            if cell.version < version {
                self.refresh(&slot, &mut cell).await?;
            }
            return Ok(());
        }
        // A game created elsewhere (or one this process has let go): load it under the loading
        // lock, so that a game this process is creating right now is not announced twice.
        let _loading = self.loading.lock().await;
        if self.loaded(id).is_some() {
            return Ok(());
        }
        let (game, version) = self.load(id).await?;
        if game.status() == Status::Active && game.turns().is_empty() {
            let view = GameView::of(&game, true);
            let started = convert::game(&view);
            for side in [hanniball_rules::Side::White, hanniball_rules::Side::Black] {
                self.tell_player(game.player(side), game.id, || {
                    pb::player_event::Event::GameStarted(started.clone())
                });
            }
            self.announce_turn(&game, &view.state);
        }
        if game.status() == Status::Active {
            self.install(game, version);
        }
        Ok(())
    }
}

/// A name for this replica in clock leases: the process id, the start time and a counter (several
/// hubs run in one test process).
fn replica_name() -> String {
    static HUBS: AtomicI64 = AtomicI64::new(0);
    let started = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_micros());
    format!(
        "pid{}-{started:x}-{}",
        std::process::id(),
        HUBS.fetch_add(1, Ordering::SeqCst)
    )
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
            running: convert::optional_side(record.running),
            as_of_ms: record.played_at.0,
        }),
        result: None,
        notices: Vec::new(),
        draw_offer_by: pb::Side::Unspecified as i32,
        board: String::new(),
    }
}
