//! What the scheduler does, shared by the gRPC handlers and the background loops: load a
//! tournament, start it, pair the next round, create its games in the arbiter, take results in,
//! and make matches from the queue. Every step is idempotent and derived from the database, so a
//! restart (or a second replica) simply does what is still missing.

use std::collections::BTreeMap;

use hanniball_ids::{GameId, PlayerId, TimeControl, Timestamp};
use hanniball_pairing::matchmaking::{self, QueueConfig, Waiting};
use hanniball_proto::arbiter::v1 as apb;
use hanniball_proto::arbiter::v1::arbiter_client::ArbiterClient;
use hanniball_proto::rating::v1 as rpb;
use hanniball_proto::rating::v1::rating_client::RatingClient;
use hanniball_rules::{GameKind, Side};
use hanniball_svc_kit::Directory;

use crate::domain::{Board, BoardResult, Match, QueueEntry, Tournament, TournamentStatus};
use crate::store::Store;
use hanniball_svc_kit::AdminToken;
use tonic::service::interceptor::InterceptedService;
use tonic::transport::Channel;

use crate::error::{ServiceError, ServiceResult};
use crate::model::{self, Loaded};

type Arbiter = ArbiterClient<InterceptedService<Channel, AdminToken>>;
type Ratings = RatingClient<InterceptedService<Channel, AdminToken>>;
/// Players wait for the same game: kind, ruleset, time control, rated.
type Pool = (&'static str, String, Option<(i64, i64)>, bool);

/// The scheduler's state: the database and its clients.
#[derive(Clone, Debug)]
pub struct Core {
    pub store: Store,
    /// Accounts: who the players are (the scheduler's tables keep ids only).
    pub accounts: Directory,
    pub arbiter: Arbiter,
    pub ratings: Option<Ratings>,
    pub queue: QueueConfig,
    /// Tournaments as last loaded, with the version read before loading them.
    pub loaded: std::sync::Arc<LoadedCache>,
}

/// Loaded tournaments kept between requests: a copy is used while the database's version of
/// the tournament is still the one read before loading it (every change bumps it in its own
/// transaction, on any replica), so a page, a standings call or a result costs one small query
/// instead of reading every board again. At most [`LoadedCache::CAPACITY`] tournaments.
#[derive(Debug, Default)]
pub struct LoadedCache(
    std::sync::Mutex<std::collections::HashMap<i64, (i64, std::sync::Arc<Loaded>)>>,
    /// Per tournament, told whenever its copy moves on: a change whose predecessor has not
    /// reached the copy yet waits for it here (only the copy's update, never a database write,
    /// is waited for), and so does a load that finds the copy just behind.
    std::sync::Mutex<std::collections::HashMap<i64, std::sync::Arc<tokio::sync::Notify>>>,
);

impl LoadedCache {
    const CAPACITY: usize = 64;

    /// How long a change (or a load) waits for the change before it to reach the copy; a
    /// writer that bumped the version without updating the copy (a new round) is not waited
    /// for longer: the copy is then dropped (or the tournament read again).
    const WAIT: std::time::Duration = std::time::Duration::from_millis(100);

    /// The copy of tournament `id` if it is at `version` or later (a copy is never ahead of
    /// the database, so a later one holds every change up to `version` and more).
    fn get(&self, id: i64, version: i64) -> Option<std::sync::Arc<Loaded>> {
        let cache = self
            .0
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        cache
            .get(&id)
            .filter(|(v, _)| *v >= version)
            .map(|(_, loaded)| std::sync::Arc::clone(loaded))
    }

    fn put(&self, id: i64, version: i64, loaded: std::sync::Arc<Loaded>) {
        let mut cache = self
            .0
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        if cache.len() >= Self::CAPACITY && !cache.contains_key(&id) {
            // Full: one entry goes, any (a miss costs one load from the database).
            if let Some(any) = cache.keys().next().copied() {
                cache.remove(&any);
            }
        }
        cache.insert(id, (version, loaded));
        drop(cache);
        self.moved(id).notify_waiters();
    }

    /// The notice of tournament `id`'s copy moving on.
    fn moved(&self, id: i64) -> std::sync::Arc<tokio::sync::Notify> {
        let mut notices = self
            .1
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        std::sync::Arc::clone(notices.entry(id).or_default())
    }

    /// The version of the copy kept of tournament `id`, if any.
    fn version(&self, id: i64) -> Option<i64> {
        let cache = self
            .0
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        cache.get(&id).map(|(version, _)| *version)
    }

    /// Waits (at most [`LoadedCache::WAIT`]) until tournament `id`'s copy is at `version` or
    /// later, or gone; whether it got there.
    async fn reach(&self, id: i64, version: i64) -> bool {
        let deadline = tokio::time::Instant::now() + Self::WAIT;
        loop {
            let moved = self.moved(id);
            let notified = moved.notified();
            tokio::pin!(notified);
            notified.as_mut().enable();
            match self.version(id) {
                Some(kept) if kept >= version => return true,
                None => return false,
                Some(_) => {}
            }
            if tokio::time::timeout_at(deadline, notified).await.is_err() {
                return false;
            }
        }
    }

    /// After a change of tournament `id` that took its version to `version`: the kept copy gets
    /// the same change by `change` once it is at the version just before (waiting briefly for
    /// the changes before this one to reach it, in this process's concurrent calls), so a
    /// change costs what it changes, not a reload of the whole tournament. A copy read after
    /// the change keeps what it is; a copy that does not reach the version before (a change
    /// by another replica, a new round) is dropped.
    pub async fn update(&self, id: i64, version: i64, change: impl FnOnce(&mut Loaded)) {
        if self.version(id).is_some_and(|kept| kept < version - 1) {
            self.reach(id, version - 1).await;
        }
        let mut cache = self
            .0
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        match cache.get_mut(&id) {
            Some((cached, loaded)) if *cached == version - 1 => {
                change(std::sync::Arc::make_mut(loaded));
                *cached = version;
            }
            // Read after this change was stored: it has it already.
            Some((cached, _)) if *cached >= version => return,
            Some(_) => {
                cache.remove(&id);
            }
            None => return,
        }
        drop(cache);
        self.moved(id).notify_waiters();
    }
}

/// Runs CPU-heavy work (a pairing, the standings of a big field) on the runtime's blocking
/// threads, so that it never stalls the calls sharing the async workers (a 5,000-player round
/// takes seconds to pair).
pub async fn off_runtime<T: Send + 'static>(
    work: impl FnOnce() -> ServiceResult<T> + Send + 'static,
) -> ServiceResult<T> {
    tokio::task::spawn_blocking(work)
        .await
        .map_err(|e| ServiceError::Internal(format!("a background task failed: {e}")))?
}

/// Now, in milliseconds since the Unix epoch.
pub fn now() -> Timestamp {
    Timestamp(
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_millis() as i64),
    )
}

fn arbiter_error(status: &tonic::Status) -> ServiceError {
    ServiceError::peer("arbiter", status)
}

impl Core {
    /// A tournament with its players (and their names), bye requests and boards; shared with the
    /// cache (a caller that changes it takes its own copy: `Arc::unwrap_or_clone`).
    pub async fn load(&self, id: i64) -> ServiceResult<std::sync::Arc<Loaded>> {
        let Some(version) = self.store.tournament_version(id).await? else {
            return Err(ServiceError::NotFound {
                what: "tournament",
                id: id.to_string(),
            });
        };
        if let Some(loaded) = self.loaded.get(id, version) {
            return Ok(loaded);
        }
        // A copy just behind: most likely changes of this process between their store writes
        // and the copy's update. Wait for them rather than read the whole tournament.
        if self.loaded.version(id).is_some_and(|kept| kept < version)
            && self.loaded.reach(id, version).await
            && let Some(loaded) = self.loaded.get(id, version)
        {
            return Ok(loaded);
        }
        let loaded = std::sync::Arc::new(self.load_from_database(id).await?);
        self.loaded.put(id, version, std::sync::Arc::clone(&loaded));
        Ok(loaded)
    }

    /// [`Core::load`] without the cache.
    async fn load_from_database(&self, id: i64) -> ServiceResult<Loaded> {
        let tournament =
            self.store
                .tournament(id)
                .await?
                .ok_or_else(|| ServiceError::NotFound {
                    what: "tournament",
                    id: id.to_string(),
                })?;
        let entered = self.store.entrants(id).await?;
        // Names in one query (a query per entrant was most of a 500-player page's time).
        let ids: Vec<PlayerId> = entered.iter().map(|e| e.player).collect();
        let mut names = self.accounts.player_names(&ids).await?;
        let entrants = entered
            .into_iter()
            .map(|entrant| {
                let name = names
                    .remove(&entrant.player)
                    .unwrap_or_else(|| format!("player-{}", entrant.player));
                (entrant, name)
            })
            .collect();
        Ok(Loaded {
            byes: self.store.bye_requests(id).await?,
            boards: self.store.boards(id).await?,
            forbidden: self.store.forbidden_pairs(id).await?,
            tournament,
            entrants,
        })
    }

    /// Ratings of `players` on the ladder of `kind` from the rating service (its initial rating
    /// for players without games); `None` when there is no rating service or it does not answer.
    pub async fn ratings(
        &self,
        kind: GameKind,
        players: &[PlayerId],
    ) -> Option<BTreeMap<PlayerId, i32>> {
        let mut client = self.ratings.clone()?;
        let request = rpb::GetRatingsRequest {
            ladder: kind.name().to_owned(),
            player_ids: players.iter().map(|p| p.0).collect(),
        };
        match client.get_ratings(request).await {
            Ok(response) => Some(
                response
                    .into_inner()
                    .ratings
                    .into_iter()
                    .map(|r| (PlayerId(r.player_id), r.rating.round() as i32))
                    .collect(),
            ),
            Err(status) => {
                tracing::warn!(code = ?status.code(), message = status.message(), "ratings unavailable");
                None
            }
        }
    }

    /// Seeds the players and pairs round 1.
    pub async fn start(&self, id: i64) -> ServiceResult<()> {
        let mut loaded = std::sync::Arc::unwrap_or_clone(self.load(id).await?);
        if loaded.tournament.status != TournamentStatus::Registration {
            return Err(ServiceError::FailedPrecondition(format!(
                "tournament {id} has already started"
            )));
        }
        if loaded.entrants.len() < 2 {
            return Err(ServiceError::FailedPrecondition(format!(
                "tournament {id} needs at least 2 players, it has {}",
                loaded.entrants.len()
            )));
        }
        if loaded.total_rounds() == 0 {
            return Err(ServiceError::FailedPrecondition(format!(
                "tournament {id} has no rounds"
            )));
        }
        let ranks = model::seed(&loaded.entrants);
        for (entrant, _) in &mut loaded.entrants {
            entrant.start_rank = ranks
                .iter()
                .find(|(player, _)| *player == entrant.player)
                .map(|(_, rank)| *rank);
        }
        let rows = off_runtime(move || loaded.pair(1)).await??;
        self.store.store_round(id, 1, &ranks, &rows).await?;
        tracing::info!(tournament = id, boards = rows.len(), "tournament started");
        self.create_games(id).await
    }

    /// Pairs the next round if the current one is complete (or finishes the tournament after its
    /// last round). `Ok(false)` when the current round is still being played.
    pub async fn advance(&self, id: i64) -> ServiceResult<Result<bool, model::Unpairable>> {
        let loaded = self.load(id).await?;
        if loaded.tournament.status != TournamentStatus::Running {
            return Err(ServiceError::FailedPrecondition(format!(
                "tournament {id} is {}",
                loaded.tournament.status
            )));
        }
        let current = loaded.tournament.current_round;
        if !loaded.round_complete(current) {
            return Ok(Ok(false));
        }
        let next = current as u32 + 1;
        if next > loaded.total_rounds() {
            if self.store.finish_tournament(id).await? {
                tracing::info!(tournament = id, "tournament finished");
            }
            return Ok(Ok(true));
        }
        let started = std::time::Instant::now();
        let rows = match off_runtime(move || loaded.pair(next)).await? {
            Ok(rows) => rows,
            Err(unpairable) => return Ok(Err(unpairable)),
        };
        let paired = started.elapsed();
        match self.store.store_round(id, next as i32, &[], &rows).await {
            Ok(()) => tracing::info!(
                tournament = id,
                round = next,
                pairing_ms = paired.as_millis() as u64,
                storing_ms = (started.elapsed() - paired).as_millis() as u64,
                "round paired"
            ),
            // Another caller paired it first: nothing to do.
            Err(crate::store::StoreError::Conflict(_)) => return Ok(Ok(true)),
            Err(error) => return Err(error.into()),
        }
        let creating = std::time::Instant::now();
        self.create_games(id).await?;
        tracing::info!(
            tournament = id,
            round = next,
            creating_ms = creating.elapsed().as_millis() as u64,
            "round's games created"
        );
        Ok(Ok(true))
    }

    /// Creates in the arbiter every game of the tournament that has none yet, a few hundred
    /// per `CreateGames` call (idempotent per board: the arbiter returns the game of a known
    /// key), and links each chunk's boards in one transaction.
    pub async fn create_games(&self, id: i64) -> ServiceResult<()> {
        /// Games per call: well within the 256 KiB request limit.
        const CHUNK: usize = 500;
        let loaded = self.load(id).await?;
        let t = &loaded.tournament;
        if t.over_the_board {
            // Played on physical boards: a board's game is recorded with its result.
            return Ok(());
        }
        let wanted: Vec<(i32, i32, apb::CreateGameRequest)> = loaded
            .boards
            .iter()
            .filter(|b| b.game.is_none() && b.result.is_none() && b.round == t.current_round)
            .filter_map(|board| Some((board.round, board.number, board_game(t, board)?)))
            .collect();
        // Not held while the arbiter works: a copy shared with no call changes in place.
        drop(loaded);
        for chunk in wanted.chunks(CHUNK) {
            let request = apb::CreateGamesRequest {
                games: chunk.iter().map(|(_, _, r)| r.clone()).collect(),
            };
            let games = self
                .arbiter
                .clone()
                .create_games(request)
                .await
                .map_err(|s| arbiter_error(&s))?
                .into_inner()
                .games;
            if games.len() != chunk.len() {
                return Err(ServiceError::Internal(format!(
                    "the arbiter created {} games for {} boards",
                    games.len(),
                    chunk.len()
                )));
            }
            let created: Vec<(i32, i32, GameId)> = chunk
                .iter()
                .zip(&games)
                .map(|((round, number, _), game)| (*round, *number, GameId(game.id)))
                .collect();
            let version = self.store.set_board_games(id, &created).await?;
            self.loaded
                .update(id, version, |loaded| {
                    for (round, number, game) in &created {
                        if let Some(board) = loaded.board_mut(*round, *number) {
                            board.game = Some(*game);
                        }
                    }
                })
                .await;
        }
        Ok(())
    }

    /// Takes a finished game in: if it is a tournament board, its result is stored once
    /// ([`board_result`]), a player who lost without ever moving loses by forfeit (and is
    /// withdrawn if the tournament says so), and the next round is paired when this was the
    /// round's last game.
    pub async fn on_finished(&self, game: &apb::FinishedGame) -> ServiceResult<()> {
        let Some(board) = self.store.board_of_game(GameId(game.game_id)).await? else {
            return Ok(());
        };
        let outcome = game
            .result
            .as_ref()
            .map_or(apb::Outcome::Unspecified, |r| r.outcome());
        let reason = game
            .result
            .as_ref()
            .map_or(apb::EndReason::Unspecified, |r| r.reason());
        let decided = board_result(outcome, reason, game.turns_played);
        let result = decided.result;
        if game.correction > 0 {
            // A corrected result (the organiser's CorrectResult has usually written it already,
            // with its record): the board follows; pairings and withdrawals stand.
            if board.result == Some(result) {
                return Ok(());
            }
            if let Some(version) = self
                .store
                .set_board_result(
                    board.tournament_id,
                    board.round,
                    board.number,
                    result,
                    decided.short,
                    true,
                )
                .await?
            {
                self.loaded
                    .update(board.tournament_id, version, |loaded| {
                        if let Some(row) = loaded.board_mut(board.round, board.number) {
                            row.result = Some(result);
                            row.short = decided.short;
                            row.corrected = true;
                        }
                    })
                    .await;
            }
            tracing::info!(
                tournament = board.tournament_id,
                round = board.round,
                board = board.number,
                %result,
                "corrected result recorded"
            );
            return Ok(());
        }
        let forfeiter = match decided.forfeiter {
            Some(Side::White) => Some(board.white),
            Some(Side::Black) => board.kind.black(),
            None => None,
        };
        let Some(version) = self
            .store
            .set_board_result(
                board.tournament_id,
                board.round,
                board.number,
                result,
                decided.short,
                false,
            )
            .await?
        else {
            return Ok(());
        };
        self.loaded
            .update(board.tournament_id, version, |loaded| {
                if let Some(row) = loaded.board_mut(board.round, board.number) {
                    row.result = Some(result);
                    row.short = decided.short;
                }
            })
            .await;
        tracing::info!(
            tournament = board.tournament_id,
            round = board.round,
            board = board.number,
            %result,
            "result recorded"
        );
        let tournament = self.store.tournament(board.tournament_id).await?;
        let Some(tournament) = tournament else {
            return Ok(());
        };
        if let Some(player) = forfeiter
            && tournament.forfeit_withdraws
        {
            self.store
                .withdraw_entrant(tournament.id, player, board.round + 1)
                .await?;
            tracing::info!(
                tournament = tournament.id,
                player = player.0,
                "withdrawn after a forfeit"
            );
        }
        if tournament.auto_pair && tournament.status == TournamentStatus::Running {
            self.advance(tournament.id).await??;
        }
        Ok(())
    }

    /// The organiser's `result` for the board whose game is `game`: the game ends with it in
    /// the arbiter (an adjudication, or a forfeit), so the game, the board and the ratings
    /// agree; returns how the game ended. A game already over keeps its result: asking for that
    /// one is fine, another is `FailedPrecondition`.
    pub async fn adjudicate(&self, game: GameId, result: BoardResult) -> ServiceResult<GameEnd> {
        let (outcome, forfeit) = organiser_result(result);
        let request = apb::AdjudicateGameRequest {
            game_id: game.0,
            outcome: outcome as i32,
            forfeit,
        };
        let state = match self.arbiter.clone().adjudicate_game(request).await {
            Ok(response) => response.into_inner().state,
            Err(status) if status.code() == tonic::Code::FailedPrecondition => {
                // Over already: its own result stands.
                let state = self
                    .arbiter
                    .clone()
                    .get_game(apb::GetGameRequest { game_id: game.0 })
                    .await
                    .map_err(|s| arbiter_error(&s))?
                    .into_inner()
                    .game
                    .and_then(|g| g.state);
                let ended = state.as_ref().map(ended_as);
                if let Some((board, summary)) = ended {
                    if board.result != result {
                        return Err(ServiceError::FailedPrecondition(format!(
                            "game {game} is over ({summary}) with the result {}: to change it, \
                             correct it (CorrectResult; `hanniball tournament correct`)",
                            board.result
                        )));
                    }
                    return Ok(board);
                }
                return Err(arbiter_error(&status));
            }
            Err(status) => return Err(arbiter_error(&status)),
        };
        let state =
            state.ok_or_else(|| ServiceError::Internal("the arbiter sent no state".into()))?;
        Ok(ended_as(&state).0)
    }

    /// How `game` ended in the arbiter (its board's result and the game's summary), or `None`
    /// while it is still on.
    pub async fn ended(&self, game: GameId) -> ServiceResult<Option<(GameEnd, String)>> {
        let state = self
            .arbiter
            .clone()
            .get_game(apb::GetGameRequest { game_id: game.0 })
            .await
            .map_err(|s| arbiter_error(&s))?
            .into_inner()
            .game
            .and_then(|g| g.state);
        Ok(state
            .filter(|state| state.result.is_some())
            .map(|state| ended_as(&state)))
    }

    /// Does what is missing after a restart or a failed call: games of current rounds that were
    /// not created, rounds complete but not yet paired, matches without games.
    pub async fn reconcile(&self) -> ServiceResult<()> {
        for t in self
            .store
            .tournaments(
                Some(TournamentStatus::Running),
                &hanniball_db::search::Words::default(),
                None,
                1_000,
            )
            .await?
        {
            self.create_games(t.id).await?;
            if t.auto_pair {
                self.advance(t.id).await??;
            }
        }
        for m in self.store.matches_without_game().await? {
            self.create_match_game(&m).await?;
        }
        Ok(())
    }

    /// Pairs whoever can be paired in the queue now and creates their games.
    pub async fn matchmake(&self) -> ServiceResult<usize> {
        let queue = self.store.queue().await?;
        metrics::gauge!("hanniball_matchmaking_queue_length").set(queue.len() as f64);
        if queue.len() < 2 {
            return Ok(0);
        }
        let now = now();
        let mut pools: BTreeMap<Pool, Vec<QueueEntry>> = BTreeMap::new();
        for entry in queue {
            pools
                .entry((
                    entry.kind.name(),
                    entry.ruleset.clone(),
                    entry
                        .time_control
                        .map(|tc| (tc.initial_ms, tc.increment_ms)),
                    entry.rated,
                ))
                .or_default()
                .push(entry);
        }
        let mut made = 0;
        for (_, entries) in pools {
            if entries.len() < 2 {
                continue;
            }
            let first = &entries[0];
            let (kind, ruleset, time_control, rated) = (
                first.kind,
                first.ruleset.clone(),
                first.time_control,
                first.rated,
            );
            let ids: Vec<PlayerId> = entries.iter().map(|e| e.player).collect();
            let ratings = self.ratings(kind, &ids).await.unwrap_or_default();
            let mut waiting = Vec::with_capacity(entries.len());
            for entry in &entries {
                let player = entry.player;
                let last = self.store.last_match(player).await?;
                let (whites, blacks) = self.store.match_colours(player).await?;
                waiting.push(Waiting {
                    id: matchmaking::PlayerId(player.0 as u64),
                    rating: ratings.get(&player).copied().unwrap_or(1500),
                    seconds_waited: ((now.0 - entry.joined_at.0).max(0) / 1000) as u64,
                    last_opponent: last.as_ref().map(|m| {
                        matchmaking::PlayerId(if m.white == player {
                            m.black.0 as u64
                        } else {
                            m.white.0 as u64
                        })
                    }),
                    colour_balance: whites as i32 - blacks as i32,
                    last_colour: last.as_ref().map(|m| {
                        if m.white == player {
                            matchmaking::Colour::White
                        } else {
                            matchmaking::Colour::Black
                        }
                    }),
                });
            }
            let plan = matchmaking::match_queue(&waiting, &self.queue)
                .map_err(|e| ServiceError::Internal(format!("matchmaking: {e}")))?;
            for game in plan.games {
                let made_match = Match {
                    id: 0,
                    white: PlayerId(game.white.0 as i64),
                    black: PlayerId(game.black.0 as i64),
                    kind,
                    ruleset: ruleset.clone(),
                    time_control,
                    rated,
                    game: None,
                    created_at: now,
                };
                if let Some(id) = self.store.make_match(&made_match).await? {
                    made += 1;
                    tracing::info!(
                        white = made_match.white.0,
                        black = made_match.black.0,
                        gap = game.rating_gap,
                        "match made"
                    );
                    self.create_match_game(&Match { id, ..made_match }).await?;
                }
            }
        }
        Ok(made)
    }

    async fn create_match_game(&self, m: &Match) -> ServiceResult<()> {
        let request = apb::CreateGameRequest {
            kind: m.kind.name().to_owned(),
            ruleset: m.ruleset.clone(),
            white_player_id: m.white.0,
            black_player_id: m.black.0,
            time_control: time_control(m.time_control),
            rated: m.rated,
            max_turns: 0,
            tag: format!("match:{}", m.id),
            idempotency_key: format!("match-{}", m.id),
            over_the_board: false,
        };
        let game = self.create_game(request).await?;
        self.store.set_match_game(m.id, game).await?;
        Ok(())
    }

    /// An over-the-board board's `result`: its game is recorded in the arbiter (created over the
    /// board, idempotent per board, and ended with the organiser's result: a played game unless
    /// a forfeit). Returns the game and how it ended.
    pub async fn record_over_the_board(
        &self,
        request: apb::CreateGameRequest,
        result: BoardResult,
    ) -> ServiceResult<(GameId, GameEnd)> {
        let game = self.create_game(request).await?;
        let end = self.adjudicate(game, result).await?;
        Ok((game, end))
    }

    /// The organiser's correction of a finished game's result to `result` in the arbiter, which
    /// keeps who (`by`), when and why (`note`), and sends the game out again so that the ratings
    /// follow. Returns how the game ends now.
    pub async fn correct_game(
        &self,
        game: GameId,
        result: BoardResult,
        by: &str,
        note: &str,
    ) -> ServiceResult<GameEnd> {
        let (outcome, forfeit) = organiser_result(result);
        let request = apb::CorrectResultRequest {
            game_id: game.0,
            outcome: outcome as i32,
            forfeit,
            note: note.to_owned(),
            by: by.to_owned(),
        };
        let state = self
            .arbiter
            .clone()
            .correct_result(request)
            .await
            .map_err(|s| match s.code() {
                tonic::Code::FailedPrecondition => {
                    ServiceError::FailedPrecondition(format!("game {game}: {}", s.message()))
                }
                _ => arbiter_error(&s),
            })?
            .into_inner()
            .state
            .ok_or_else(|| ServiceError::Internal("the arbiter sent no state".into()))?;
        Ok(ended_as(&state).0)
    }

    /// Creates a game in the arbiter (idempotent by the request's key); returns its id.
    async fn create_game(&self, request: apb::CreateGameRequest) -> ServiceResult<GameId> {
        let game = self
            .arbiter
            .clone()
            .create_game(request)
            .await
            .map_err(|s| arbiter_error(&s))?
            .into_inner()
            .game
            .ok_or_else(|| ServiceError::Internal("the arbiter sent no game".to_owned()))?;
        Ok(GameId(game.id))
    }
}

/// The arbiter's outcome and forfeit flag of an organiser's result.
fn organiser_result(result: BoardResult) -> (apb::Outcome, bool) {
    match result {
        BoardResult::WhiteWins => (apb::Outcome::WhiteWins, false),
        BoardResult::BlackWins => (apb::Outcome::BlackWins, false),
        BoardResult::Draw => (apb::Outcome::Draw, false),
        BoardResult::WhiteWinsByForfeit => (apb::Outcome::WhiteWins, true),
        BoardResult::BlackWinsByForfeit => (apb::Outcome::BlackWins, true),
        BoardResult::BothForfeit => (apb::Outcome::None, true),
    }
}

/// The arbiter game of a tournament's board (`None` for a bye): its idempotency key makes its
/// creation happen once per board.
pub fn board_game(t: &Tournament, board: &Board) -> Option<apb::CreateGameRequest> {
    let black = board.kind.black()?;
    Some(apb::CreateGameRequest {
        kind: t.kind.name().to_owned(),
        ruleset: t.ruleset.clone(),
        white_player_id: board.white.0,
        black_player_id: black.0,
        time_control: time_control(t.time_control),
        rated: t.rated,
        max_turns: t.max_turns,
        tag: format!("tournament:{}:{}:{}", t.id, board.round, board.number),
        idempotency_key: format!("tournament-{}-r{}-b{}", t.id, board.round, board.number),
        over_the_board: t.over_the_board,
    })
}

/// A finished game's result as its board records it: the one rule shared with the rating
/// service ([`hanniball_ids::counts_as_played`]). A forfeit (the organiser's, or a loser
/// who never made a turn) is `+/-`, `-/+` or `-/-`; a game that ended before each side made a
/// turn is otherwise a short game (its result counts, unrated); the rest are played games.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct GameEnd {
    pub result: BoardResult,
    /// Ended before each side made a turn: not rated (TRF `W`/`D`/`L`).
    pub short: bool,
    /// The side that lost by forfeit without ever moving (withdrawn if the tournament says so).
    pub forfeiter: Option<Side>,
}

/// What a game's state says its board's result is, with the game's own summary.
fn ended_as(state: &apb::GameState) -> (GameEnd, String) {
    let result = state.result.clone().unwrap_or_default();
    let turns = state.next_turn_number.saturating_sub(1);
    (
        board_result(result.outcome(), result.reason(), turns),
        result.summary,
    )
}

/// How a game that ended with `outcome` for `reason` after `turns` turns ends on its board.
#[must_use]
pub fn board_result(outcome: apb::Outcome, reason: apb::EndReason, turns: u32) -> GameEnd {
    let forfeit = reason == apb::EndReason::Forfeit;
    let over_the_board = reason == apb::EndReason::OverTheBoard;
    let played = hanniball_ids::counts_as_played(turns, forfeit, over_the_board);
    // White makes turn 1, Black turn 2.
    let moved = |side: Side| match side {
        Side::White => turns >= 1,
        Side::Black => turns >= 2,
    };
    let winner = match outcome {
        apb::Outcome::WhiteWins => Some(Side::White),
        apb::Outcome::BlackWins => Some(Side::Black),
        apb::Outcome::Draw => None,
        apb::Outcome::None | apb::Outcome::Unspecified => {
            return GameEnd {
                result: BoardResult::BothForfeit,
                short: false,
                forfeiter: None,
            };
        }
    };
    let decisive = |white: BoardResult, black: BoardResult| match winner {
        Some(Side::White) => white,
        Some(Side::Black) => black,
        None => BoardResult::Draw,
    };
    let by_forfeit = || {
        decisive(
            BoardResult::WhiteWinsByForfeit,
            BoardResult::BlackWinsByForfeit,
        )
    };
    match winner {
        // The organiser's forfeit: who forfeited is the organiser's to withdraw.
        Some(_) if forfeit => GameEnd {
            result: by_forfeit(),
            short: false,
            forfeiter: None,
        },
        // A loser who never made a turn did not start the game (the organiser's adjudication
        // says otherwise: it stands, as a short game).
        Some(side)
            if !moved(side.opponent())
                && reason != apb::EndReason::Adjudication
                && !over_the_board =>
        {
            GameEnd {
                result: by_forfeit(),
                short: false,
                forfeiter: Some(side.opponent()),
            }
        }
        _ => GameEnd {
            result: decisive(BoardResult::WhiteWins, BoardResult::BlackWins),
            short: !played,
            forfeiter: None,
        },
    }
}

/// A time control as the wire says it.
pub fn time_control(tc: Option<TimeControl>) -> Option<apb::TimeControl> {
    tc.map(|tc| apb::TimeControl {
        initial_ms: tc.initial_ms,
        increment_ms: tc.increment_ms,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use apb::EndReason as R;
    use apb::Outcome as O;

    /// CPU-heavy work (a big pairing) leaves the runtime free: on a runtime of one thread, a
    /// task beside it keeps answering while the work runs.
    #[tokio::test(flavor = "current_thread")]
    async fn heavy_work_does_not_stall_the_calls_beside_it() {
        let ticks = std::sync::Arc::new(std::sync::atomic::AtomicU32::new(0));
        let counter = std::sync::Arc::clone(&ticks);
        let ticker = tokio::spawn(async move {
            loop {
                tokio::time::sleep(std::time::Duration::from_millis(5)).await;
                counter.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            }
        });
        let busy = off_runtime(|| {
            // Busy, as a pairing is: no await point for 300 ms.
            let until = std::time::Instant::now() + std::time::Duration::from_millis(300);
            let mut spins = 0u64;
            while std::time::Instant::now() < until {
                spins = spins.wrapping_add(1);
            }
            Ok(spins)
        })
        .await
        .expect("the work ran");
        ticker.abort();
        assert!(busy > 0);
        let ticks = ticks.load(std::sync::atomic::Ordering::Relaxed);
        assert!(
            ticks >= 20,
            "the runtime ticked only {ticks} times in 300 ms"
        );
    }

    fn of(outcome: O, reason: R, turns: u32) -> (&'static str, bool, Option<Side>) {
        let b = board_result(outcome, reason, turns);
        (b.result.as_str(), b.short, b.forfeiter)
    }

    #[test]
    fn a_game_both_sides_moved_in_is_played_whatever_ended_it() {
        assert_eq!(of(O::WhiteWins, R::Goal, 9), ("1-0", false, None));
        assert_eq!(of(O::BlackWins, R::Time, 2), ("0-1", false, None));
        assert_eq!(of(O::Draw, R::Agreement, 2), ("1/2-1/2", false, None));
        assert_eq!(of(O::WhiteWins, R::Adjudication, 30), ("1-0", false, None));
    }

    #[test]
    fn a_loser_who_never_moved_forfeits() {
        assert_eq!(
            of(O::WhiteWins, R::Resignation, 1),
            ("+/-", false, Some(Side::Black))
        );
        assert_eq!(
            of(O::BlackWins, R::Time, 0),
            ("-/+", false, Some(Side::White))
        );
    }

    #[test]
    fn a_game_that_ended_before_each_side_moved_is_short_and_unrated() {
        // White moved, then resigned before Black's first turn.
        assert_eq!(of(O::BlackWins, R::Resignation, 1), ("0-1", true, None));
        assert_eq!(of(O::Draw, R::Agreement, 0), ("1/2-1/2", true, None));
        // The organiser's adjudication stands even if a side never moved.
        assert_eq!(of(O::WhiteWins, R::Adjudication, 0), ("1-0", true, None));
    }

    #[test]
    fn forfeits_and_games_for_nothing() {
        assert_eq!(of(O::WhiteWins, R::Forfeit, 40), ("+/-", false, None));
        assert_eq!(of(O::BlackWins, R::Forfeit, 0), ("-/+", false, None));
        assert_eq!(of(O::None, R::Forfeit, 3), ("-/-", false, None));
        assert_eq!(of(O::None, R::Aborted, 0), ("-/-", false, None));
    }
}
