//! What the scheduler does, shared by the gRPC handlers and the background loops: load a
//! tournament, start it, pair the next round, create its games in the arbiter, take results in,
//! and make matches from the queue. Every step is idempotent and derived from the database, so a
//! restart (or a second replica) simply does what is still missing.

use std::collections::BTreeMap;

use hanniball_arbiter::{GameId, PlayerId};
use hanniball_pairing::matchmaking::{self, QueueConfig, Waiting};
use hanniball_proto::arbiter::v1 as apb;
use hanniball_proto::arbiter::v1::arbiter_client::ArbiterClient;
use hanniball_proto::rating::v1 as rpb;
use hanniball_proto::rating::v1::rating_client::RatingClient;
use hanniball_store::Store;
use hanniball_store::scheduler::{MatchRow, QueueRow};
use hanniball_svc_kit::AdminToken;
use tonic::service::interceptor::InterceptedService;
use tonic::transport::Channel;

use crate::error::{ServiceError, ServiceResult};
use crate::model::{self, Loaded};

type Arbiter = ArbiterClient<InterceptedService<Channel, AdminToken>>;
type Ratings = RatingClient<InterceptedService<Channel, AdminToken>>;
/// Players wait for the same game: kind, ruleset, time control, rated.
type Pool = (String, String, Option<i64>, Option<i64>, bool);

/// The scheduler's state: the database and its clients.
#[derive(Clone, Debug)]
pub struct Core {
    pub store: Store,
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
);

impl LoadedCache {
    const CAPACITY: usize = 64;

    fn get(&self, id: i64, version: i64) -> Option<std::sync::Arc<Loaded>> {
        let cache = self
            .0
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        cache
            .get(&id)
            .filter(|(v, _)| *v == version)
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
    }
}

/// Milliseconds since the Unix epoch.
pub fn now_ms() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as i64)
}

fn arbiter_error(status: &tonic::Status) -> ServiceError {
    ServiceError::Arbiter(format!("{:?}: {}", status.code(), status.message()))
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
        let rows = self.store.entrants(id).await?;
        // Names in one query (a query per entrant was most of a 500-player page's time).
        let ids: Vec<PlayerId> = rows.iter().map(|e| PlayerId(e.player_id)).collect();
        let mut names = self.store.player_names(&ids).await?;
        let entrants = rows
            .into_iter()
            .map(|entrant| {
                let name = names
                    .remove(&PlayerId(entrant.player_id))
                    .unwrap_or_else(|| format!("player-{}", entrant.player_id));
                (entrant, name)
            })
            .collect();
        Ok(Loaded {
            byes: self.store.bye_requests(id).await?,
            boards: self.store.boards(id).await?,
            tournament,
            entrants,
        })
    }

    /// Ratings of `players` on the ladder of `kind` from the rating service (its initial rating
    /// for players without games); `None` when there is no rating service or it does not answer.
    pub async fn ratings(&self, kind: &str, players: &[i64]) -> Option<BTreeMap<i64, i32>> {
        let mut client = self.ratings.clone()?;
        let request = rpb::GetRatingsRequest {
            ladder: kind.to_owned(),
            player_ids: players.to_vec(),
        };
        match client.get_ratings(request).await {
            Ok(response) => Some(
                response
                    .into_inner()
                    .ratings
                    .into_iter()
                    .map(|r| (r.player_id, r.rating.round() as i32))
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
        if loaded.tournament.status != "registration" {
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
                .find(|(player, _)| *player == entrant.player_id)
                .map(|(_, rank)| *rank);
        }
        let rows = loaded.pair(1)?;
        let ranks: Vec<(PlayerId, i32)> = ranks.iter().map(|(p, r)| (PlayerId(*p), *r)).collect();
        self.store.store_round(id, 1, &ranks, &rows).await?;
        tracing::info!(tournament = id, boards = rows.len(), "tournament started");
        self.create_games(id).await
    }

    /// Pairs the next round if the current one is complete (or finishes the tournament after its
    /// last round). `Ok(false)` when the current round is still being played.
    pub async fn advance(&self, id: i64) -> ServiceResult<bool> {
        let loaded = self.load(id).await?;
        if loaded.tournament.status != "running" {
            return Err(ServiceError::FailedPrecondition(format!(
                "tournament {id} is {}",
                loaded.tournament.status
            )));
        }
        let current = loaded.tournament.current_round;
        if !loaded.round_complete(current) {
            return Ok(false);
        }
        let next = current as u32 + 1;
        if next > loaded.total_rounds() {
            if self.store.finish_tournament(id).await? {
                tracing::info!(tournament = id, "tournament finished");
            }
            return Ok(true);
        }
        let rows = loaded.pair(next)?;
        match self.store.store_round(id, next as i32, &[], &rows).await {
            Ok(()) => tracing::info!(tournament = id, round = next, "round paired"),
            // Another caller paired it first: nothing to do.
            Err(hanniball_store::StoreError::Conflict(_)) => return Ok(true),
            Err(error) => return Err(error.into()),
        }
        self.create_games(id).await?;
        Ok(true)
    }

    /// Creates in the arbiter every game of the tournament that has none yet (idempotent per
    /// board: the arbiter returns the game of a known key).
    pub async fn create_games(&self, id: i64) -> ServiceResult<()> {
        let loaded = self.load(id).await?;
        let t = &loaded.tournament;
        for board in loaded.boards.iter().filter(|b| {
            b.kind == model::GAME
                && b.game_id.is_none()
                && b.result.is_none()
                && b.round == t.current_round
        }) {
            let Some(black) = board.black_id else {
                continue;
            };
            let request = apb::CreateGameRequest {
                kind: t.kind.clone(),
                ruleset: t.ruleset.clone(),
                white_player_id: board.white_id,
                black_player_id: black,
                time_control: time_control(t.initial_ms, t.increment_ms),
                rated: t.rated,
                max_turns: t.max_turns as u32,
                tag: format!("tournament:{}:{}:{}", t.id, board.round, board.board),
                idempotency_key: format!("tournament-{}-r{}-b{}", t.id, board.round, board.board),
            };
            let game = self.create_game(request).await?;
            self.store
                .set_board_game(t.id, board.round, board.board, game)
                .await?;
        }
        Ok(())
    }

    /// Takes a finished game in: if it is a tournament board, its result is stored once, a
    /// player who never moved loses by forfeit (and is withdrawn if the tournament says so), and
    /// the next round is paired when this was the round's last game.
    pub async fn on_finished(&self, game: &apb::FinishedGame) -> ServiceResult<()> {
        let Some(board) = self.store.board_of_game(GameId(game.game_id)).await? else {
            return Ok(());
        };
        let outcome = game
            .result
            .as_ref()
            .map_or(apb::Outcome::Unspecified, |r| r.outcome());
        // A side that never moved did not start its game: White moves first (turn 1), Black
        // second (turn 2).
        let white_started = game.turns_played >= 1;
        let black_started = game.turns_played >= 2;
        let (result, forfeiter) = match outcome {
            apb::Outcome::WhiteWins if !black_started => ("+/-", board.black_id),
            apb::Outcome::BlackWins if !white_started => ("-/+", Some(board.white_id)),
            apb::Outcome::WhiteWins => ("1-0", None),
            apb::Outcome::BlackWins => ("0-1", None),
            apb::Outcome::Draw => ("1/2-1/2", None),
            apb::Outcome::None | apb::Outcome::Unspecified => ("-/-", None),
        };
        let changed = self
            .store
            .set_board_result(board.tournament_id, board.round, board.board, result, false)
            .await?;
        if !changed {
            return Ok(());
        }
        tracing::info!(
            tournament = board.tournament_id,
            round = board.round,
            board = board.board,
            result,
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
                .withdraw_entrant(tournament.id, PlayerId(player), board.round + 1)
                .await?;
            tracing::info!(
                tournament = tournament.id,
                player,
                "withdrawn after a forfeit"
            );
        }
        if tournament.auto_pair && tournament.status == "running" {
            self.advance(tournament.id).await?;
        }
        Ok(())
    }

    /// Does what is missing after a restart or a failed call: games of current rounds that were
    /// not created, rounds complete but not yet paired, matches without games.
    pub async fn reconcile(&self) -> ServiceResult<()> {
        for t in self.store.tournaments(Some("running"), 1_000).await? {
            self.create_games(t.id).await?;
            if t.auto_pair {
                self.advance(t.id).await?;
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
        let now = now_ms();
        let mut pools: BTreeMap<Pool, Vec<QueueRow>> = BTreeMap::new();
        for row in queue {
            pools
                .entry((
                    row.kind.clone(),
                    row.ruleset.clone(),
                    row.initial_ms,
                    row.increment_ms,
                    row.rated,
                ))
                .or_default()
                .push(row);
        }
        let mut made = 0;
        for ((kind, ruleset, initial_ms, increment_ms, rated), rows) in pools {
            if rows.len() < 2 {
                continue;
            }
            let ids: Vec<i64> = rows.iter().map(|r| r.player_id).collect();
            let ratings = self.ratings(&kind, &ids).await.unwrap_or_default();
            let mut waiting = Vec::with_capacity(rows.len());
            for row in &rows {
                let player = PlayerId(row.player_id);
                let last = self.store.last_match(player).await?;
                let (whites, blacks) = self.store.match_colours(player).await?;
                waiting.push(Waiting {
                    id: matchmaking::PlayerId(row.player_id as u64),
                    rating: ratings.get(&row.player_id).copied().unwrap_or(1500),
                    seconds_waited: ((now - row.joined_at_ms).max(0) / 1000) as u64,
                    last_opponent: last.as_ref().map(|m| {
                        matchmaking::PlayerId(if m.white_id == row.player_id {
                            m.black_id as u64
                        } else {
                            m.white_id as u64
                        })
                    }),
                    colour_balance: whites as i32 - blacks as i32,
                    last_colour: last.as_ref().map(|m| {
                        if m.white_id == row.player_id {
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
                let row = MatchRow {
                    id: 0,
                    white_id: game.white.0 as i64,
                    black_id: game.black.0 as i64,
                    kind: kind.clone(),
                    ruleset: ruleset.clone(),
                    initial_ms,
                    increment_ms,
                    rated,
                    game_id: None,
                    created_at_ms: now,
                };
                if let Some(id) = self.store.make_match(&row).await? {
                    made += 1;
                    tracing::info!(
                        white = row.white_id,
                        black = row.black_id,
                        gap = game.rating_gap,
                        "match made"
                    );
                    self.create_match_game(&MatchRow { id, ..row }).await?;
                }
            }
        }
        Ok(made)
    }

    async fn create_match_game(&self, m: &MatchRow) -> ServiceResult<()> {
        let request = apb::CreateGameRequest {
            kind: m.kind.clone(),
            ruleset: m.ruleset.clone(),
            white_player_id: m.white_id,
            black_player_id: m.black_id,
            time_control: time_control(m.initial_ms, m.increment_ms),
            rated: m.rated,
            max_turns: 0,
            tag: format!("match:{}", m.id),
            idempotency_key: format!("match-{}", m.id),
        };
        let game = self.create_game(request).await?;
        self.store.set_match_game(m.id, game).await?;
        Ok(())
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

/// The wire time control of stored columns.
pub fn time_control(
    initial_ms: Option<i64>,
    increment_ms: Option<i64>,
) -> Option<apb::TimeControl> {
    initial_ms.map(|initial_ms| apb::TimeControl {
        initial_ms,
        increment_ms: increment_ms.unwrap_or(0),
    })
}
