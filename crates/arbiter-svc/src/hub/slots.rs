//! Loaded games: finding a game's slot, loading it from the database, installing it.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicI64};

use hanniball_arbiter::{GameId, Match};
use tokio::sync::{Mutex, Notify};

use crate::error::{ServiceError, ServiceResult};

use super::{Cell, Hub, Slot, armed};

impl Hub {
    /// The slot of a game, loading the game from the database first if needed.
    pub(super) async fn slot(self: &Arc<Self>, id: GameId) -> ServiceResult<Arc<Slot>> {
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

    pub(super) fn loaded(&self, id: GameId) -> Option<Arc<Slot>> {
        self.games
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .get(&id)
            .cloned()
    }

    pub(super) async fn load(&self, id: GameId) -> ServiceResult<(Match, i64)> {
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
    pub(super) fn install(self: &Arc<Self>, game: Match, version: i64) -> Arc<Slot> {
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
}
