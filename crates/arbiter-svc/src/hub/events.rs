//! Telling watchers and players what happened: game watches, player event channels.

use std::sync::Arc;
use std::sync::atomic::Ordering;

use hanniball_arbiter::{Event, GameId, Match, PlayerId, Status, TurnRecord};
use hanniball_proto::arbiter::v1 as pb;
use tokio::sync::broadcast;

use crate::convert;
use crate::error::ServiceResult;
use crate::view::{GameView, StateView};

use super::{Cell, Hub, Slot, WATCH_BUFFER, Watch, armed};

impl Hub {
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
    pub(super) fn tell_player(
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
    pub(super) fn announce_turn(&self, game: &Match, state: &StateView) {
        if game.status() == Status::Active {
            let side = game.game().side_to_move();
            self.tell_player(game.player(side), game.id, || {
                pb::player_event::Event::YourTurn(convert::state(state))
            });
        }
    }

    /// After a change of `cell`'s game: wakes its clock task if needed, and tells watchers and
    /// players what `happened`. Returns the state now.
    pub(super) fn publish(&self, slot: &Slot, cell: &mut Cell, happened: &[Event]) -> StateView {
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
