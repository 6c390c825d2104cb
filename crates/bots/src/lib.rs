//! Pure reference bots for the platform's games: HanniBall (RULES.md Part 1) and paper football
//! (RULES.md Part 2). One entry point, [`choose_turn`], picks a whole turn for the side to move in
//! a [`Game`], with one of three strategies ([`BotKind`]):
//!
//! - **random**: a uniformly random legal turn (the rules crate's playout helper for HanniBall,
//!   random steps until the turn passes for paper football);
//! - **greedy**: one turn of lookahead. It takes an immediate goal whenever there is one (an exact,
//!   pruned search over the turn's steps), never plays an own goal, and otherwise picks, among the
//!   turns a beam over single steps builds, the one whose result is best for it: the opponent
//!   cannot score at once (the same exact goal finder, run for the opponent), then material
//!   (captures, penalty removals earned or conceded under RULES 1.8), ball progress towards the
//!   attacked goal, and who is nearer the ball;
//! - **search**: alpha-beta (negamax) over whole turns with iterative deepening, the greedy
//!   generator's best turns as the moves at each node (its heuristic orders them), the goal finder
//!   at every node (a side that can score at once wins there), and the greedy heuristic at the
//!   leaves. Alpha-beta rather than MCTS because random playouts say nothing in HanniBall (random
//!   games run into the turn limit) and the branching factor (thousands of whole turns) calls for
//!   a selective, heuristic-ordered search anyway. Depth 1 of the search is exactly the greedy
//!   bot, so the search always has the greedy turn ready when its time runs out.
//!
//! Search limits: the caller's [`Deadline`] (polled every 256 nodes and once on entry), the node
//! budget [`Think::max_nodes`], and a depth limit of four whole turns. An expired deadline still
//! gets a legal answer (an immediate goal if the finder sees one, else the generator's first turn).
//!
//! What this crate does NOT do: no IO, no clock reads, no threads, no async, no global or OS
//! randomness, no network. The caller's clock arrives as a [`Deadline`] it polls; randomness is a
//! seed inside [`Think`]. With the same position, seed and node budget (and a deadline that does
//! not expire) a bot always chooses the same turn. It does not run the client loop that talks to
//! a server either: that loop lives in the binary, which passes the position text, the game kind
//! and ruleset (as a [`Game`]) and its clock here. It does not know a HanniBall game's turn limit
//! (the seam does not expose it), so it never steers for or away from a draw by that limit.

mod budget;
mod hanniball;
mod paper;
mod rng;
mod search;

use std::fmt;
use std::str::FromStr;

use hanniball_rules::hanniball::Position as HanniBallPosition;
use hanniball_rules::paper::{Position as PaperPosition, write_steps};
use hanniball_rules::{Game, GameKind, GameResult};

use crate::budget::Budget;
use crate::hanniball::{HanniBallEngine, Tuning};
use crate::paper::PaperEngine;
use crate::rng::Rng;
use crate::search::{Settings, best_turn};

/// The strategies on offer.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum BotKind {
    /// A uniformly random legal turn.
    Random,
    /// The best turn by one turn of lookahead.
    Greedy,
    /// Alpha-beta over whole turns within the deadline and node budget.
    Search,
}

impl BotKind {
    /// Every kind, in a stable order.
    pub const ALL: [BotKind; 3] = [BotKind::Random, BotKind::Greedy, BotKind::Search];

    /// Stable lowercase name (`random`, `greedy`, `search`).
    #[must_use]
    pub const fn name(self) -> &'static str {
        match self {
            BotKind::Random => "random",
            BotKind::Greedy => "greedy",
            BotKind::Search => "search",
        }
    }
}

impl fmt::Display for BotKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for BotKind {
    type Err = BotError;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        BotKind::ALL
            .into_iter()
            .find(|kind| kind.name() == text)
            .ok_or_else(|| BotError::UnknownBotKind(text.to_owned()))
    }
}

/// The caller's clock, so the crate reads none: returns true when the bot must stop thinking.
/// Polled every few hundred search nodes, and once at the start.
pub trait Deadline {
    fn expired(&mut self) -> bool;
}

/// A deadline that never expires: for tests, benchmarks and node-budget-only thinking.
#[derive(Clone, Copy, Debug, Default)]
pub struct NoDeadline;

impl Deadline for NoDeadline {
    fn expired(&mut self) -> bool {
        false
    }
}

/// How the bot may think about one turn.
pub struct Think<'a> {
    /// Polled during the search; once it says "expired" the bot answers with the best turn found.
    pub deadline: &'a mut dyn Deadline,
    /// A node budget (a node is a step applied or a position judged); `None`: only the deadline
    /// and the search's depth limit bound the work. Fix it, with a deadline that never expires, for
    /// reproducible play. Used by the search only; random and greedy do a bounded amount of work.
    pub max_nodes: Option<u64>,
    /// Seeds the random bot, and the tie-breaking noise of the others; the same seed (and node
    /// budget) gives the same turn.
    pub seed: u64,
}

/// Why no turn could be chosen.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum BotError {
    #[error("the game is over ({result}): there is no turn to choose")]
    GameOver { result: GameResult },
    #[error("the side to move has no legal turn")]
    NoLegalTurn,
    #[error("unknown bot kind {0:?} (expected one of: random, greedy, search)")]
    UnknownBotKind(String),
    #[error("the {kind} position cannot be read by the bots: {reason}")]
    Position { kind: GameKind, reason: String },
}

/// Turns considered by the greedy bot: its beam's best `root_width`, and up to `rescue_width` when
/// all of those let the opponent score at once.
const GREEDY: Settings = Settings {
    max_depth: 1,
    root_width: 24,
    rescue_width: 96,
    inner_width: 1,
};

/// The search: deepening until the budget or the depth limit, a narrower tree below the root.
const SEARCH: Settings = Settings {
    max_depth: 4,
    root_width: 16,
    rescue_width: 96,
    inner_width: 8,
};

/// Chooses a whole turn (in RULES.md turn notation, as [`Game::play_turn`] accepts) for the side
/// to move. The turn returned is always legal: it is checked against `game` before it is handed
/// back, and a random legal turn replaces it should a bot ever err.
pub fn choose_turn(kind: BotKind, game: &dyn Game, think: Think<'_>) -> Result<String, BotError> {
    if let Some(result) = game.result() {
        return Err(BotError::GameOver { result });
    }
    let mut rng = Rng::new(think.seed);
    let max_nodes = match kind {
        BotKind::Search => think.max_nodes.unwrap_or(u64::MAX),
        BotKind::Random | BotKind::Greedy => u64::MAX,
    };
    let mut budget = Budget::new(think.deadline, max_nodes);
    let chosen = match game.kind() {
        GameKind::HanniBall => {
            let position = hanniball_position(game)?;
            let tuning = Tuning {
                noise_seed: think.seed,
                ..Tuning::default()
            };
            let turn = match kind {
                BotKind::Random => hanniball::random(&position, &mut rng),
                BotKind::Greedy => best_turn(
                    &mut HanniBallEngine::new(tuning),
                    &position,
                    GREEDY,
                    &mut budget,
                ),
                BotKind::Search => best_turn(
                    &mut HanniBallEngine::new(tuning),
                    &position,
                    SEARCH,
                    &mut budget,
                ),
            };
            let fallback = || hanniball::random(&position, &mut Rng::new(think.seed));
            checked(game, turn.map(|turn| turn.to_string()), || {
                fallback().map(|turn| turn.to_string())
            })
        }
        GameKind::PaperFootball => {
            let position = paper_position(game)?;
            let turn = match kind {
                BotKind::Random => paper::random(&position, &mut rng),
                BotKind::Greedy => best_turn(
                    &mut PaperEngine::new(think.seed),
                    &position,
                    GREEDY,
                    &mut budget,
                ),
                BotKind::Search => best_turn(
                    &mut PaperEngine::new(think.seed),
                    &position,
                    SEARCH,
                    &mut budget,
                ),
            };
            let fallback = || paper::random(&position, &mut Rng::new(think.seed));
            checked(game, turn.map(|turn| write_steps(&turn)), || {
                fallback().map(|turn| write_steps(&turn))
            })
        }
    };
    chosen.ok_or(BotError::NoLegalTurn)
}

/// The chosen turn if `game` accepts it, else the fallback's (which must be accepted too).
fn checked(
    game: &dyn Game,
    chosen: Option<String>,
    fallback: impl FnOnce() -> Option<String>,
) -> Option<String> {
    if let Some(turn) = chosen {
        if game.play_turn(&turn).is_ok() {
            return Some(turn);
        }
        debug_assert!(false, "a bot chose the illegal turn {turn}");
    }
    fallback().filter(|turn| game.play_turn(turn).is_ok())
}

/// The engine's position for a HanniBall game. The seam does not say the game's turn limit; the
/// bots never stop early because of it (the game itself is known not to be over).
fn hanniball_position(game: &dyn Game) -> Result<HanniBallPosition, BotError> {
    HanniBallPosition::from_notation(&game.position())
        .map(|position| position.with_max_turns(u32::MAX))
        .map_err(|error| BotError::Position {
            kind: GameKind::HanniBall,
            reason: error.to_string(),
        })
}

fn paper_position(game: &dyn Game) -> Result<PaperPosition, BotError> {
    PaperPosition::from_notation(&game.position()).map_err(|error| BotError::Position {
        kind: GameKind::PaperFootball,
        reason: error.to_string(),
    })
}
