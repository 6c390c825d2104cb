//! Replicas (PostgreSQL): catching a stale copy up with what other processes stored, and
//! following their changes as they are announced.

use std::sync::Arc;

use hanniball_arbiter::{Event, GameId, Status};
use hanniball_proto::arbiter::v1 as pb;

use crate::convert;
use crate::error::{ServiceError, ServiceResult};
use crate::view::GameView;

use super::{Cell, Hub, Slot};

impl Hub {
    /// Brings a copy up to date if another replica changed the game since it was made (one
    /// query for the row's version; nothing on SQLite, where this process is the only writer).
    /// True if the copy changed.
    pub(super) async fn catch_up(&self, slot: &Slot, cell: &mut Cell) -> ServiceResult<bool> {
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
    pub(super) async fn refresh(&self, slot: &Slot, cell: &mut Cell) -> ServiceResult<()> {
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
