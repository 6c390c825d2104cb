//! The clocks: a task per game that ends it on time, and the clock leases that decide which
//! replica runs a game's clock.

use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::Duration;

use hanniball_arbiter::{GameId, Status, Timestamp};
use hanniball_svc_kit::Clock;

use crate::error::ServiceError;

use super::{Cell, FINISHED_IDLE, Hub, LEASE_MS, LEASE_RENEW, NO_DEADLINE, Slot, armed};

impl Hub {
    /// A game's clock task: ends the game when the side to move runs out of time; unloads it a
    /// while after it is over; stops at shutdown.
    pub(super) async fn keep_time(self: Arc<Self>, id: GameId, slot: Arc<Slot>) {
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
    pub(super) async fn settle_time(&self, slot: &Slot, cell: &mut Cell) -> bool {
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
}

/// Waits until `deadline`, or forever when there is none.
async fn sleep_until(clock: &Clock, deadline: Option<Timestamp>) {
    match deadline {
        Some(deadline) => clock.sleep_until(deadline).await,
        None => std::future::pending().await,
    }
}
