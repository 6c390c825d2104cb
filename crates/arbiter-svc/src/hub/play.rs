//! What players and organisers do to a game: view it, ask for legal steps, play or check a
//! turn, resign, offer and answer draws, abort, adjudicate, correct a result; and the commit
//! that stores a change before it is applied.

use std::sync::Arc;

use hanniball_arbiter::{ActionError, Actor, GameId, Status, Transition, TurnPlan, TurnRecord};
use hanniball_rules::PartialTurn;

use crate::error::{ServiceError, ServiceResult, refused, refused_in};
use crate::store::{StoreError, Write};
use crate::view::{GameView, StateView};

use super::{Action, Cell, Commit, Hub, RETRIES, Slot};

impl Hub {
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

    /// The organiser's correction of a finished game's result
    /// ([`hanniball_arbiter::Match::plan_correction`]): stored with who, why and when
    /// ([`crate::store::Store::correct_result`]), then applied; the game goes out again on
    /// `WatchResults`. The result it already has changes nothing. Returns the state and the
    /// game's count of corrections.
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

    /// Stores a transition, then applies it and tells everyone. On a lost race (another replica
    /// changed the game since this copy was made) the copy is brought up to date, and the caller
    /// may plan again.
    pub(super) async fn commit(
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
}
