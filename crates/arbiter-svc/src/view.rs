//! Plain snapshots of a match, taken under its lock and handed to the RPC layer.

use hanniball_arbiter::{Clocks, FinalResult, GameId, Match, Setup, Status, Timestamp, TurnRecord};
use hanniball_rules::Side;

/// The live part of a game.
#[derive(Clone, Debug)]
pub struct StateView {
    pub game_id: GameId,
    pub status: Status,
    pub position: String,
    pub side_to_move: Side,
    pub next_turn_number: u32,
    pub clocks: Clocks,
    pub result: Option<FinalResult>,
    pub notices: Vec<String>,
    pub draw_offer: Option<Side>,
    /// The position drawn for a terminal: only in full views (it is the costliest field).
    pub board: String,
}

/// A whole game.
#[derive(Clone, Debug)]
pub struct GameView {
    pub id: GameId,
    pub setup: Setup,
    pub ruleset: String,
    pub max_turns: u32,
    pub state: StateView,
    pub turns: Vec<TurnRecord>,
    pub created_at: Timestamp,
    pub finished_at: Option<Timestamp>,
    pub corrections: u32,
}

impl StateView {
    #[must_use]
    pub fn of(m: &Match) -> StateView {
        let game = m.game();
        let active = m.status() == Status::Active;
        StateView {
            game_id: m.id,
            status: m.status(),
            position: m.position().to_owned(),
            side_to_move: game.side_to_move(),
            next_turn_number: m.next_turn_number(),
            clocks: *m.clocks(),
            result: m.result(),
            notices: if active { game.notices() } else { Vec::new() },
            draw_offer: m.draw_offer(),
            board: String::new(),
        }
    }
}

impl GameView {
    #[must_use]
    pub fn of(m: &Match, with_turns: bool) -> GameView {
        GameView {
            id: m.id,
            setup: m.setup.clone(),
            ruleset: m.game().ruleset().to_owned(),
            max_turns: m.setup.max_turns(),
            state: StateView {
                board: m.game().render(),
                ..StateView::of(m)
            },
            turns: if with_turns {
                m.turns().to_vec()
            } else {
                Vec::new()
            },
            created_at: m.created_at,
            corrections: m.corrections,
            finished_at: m.finished_at(),
        }
    }
}
