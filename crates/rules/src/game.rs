//! The game-agnostic seam: everything the services need from a game, and nothing more.
//!
//! The arbiter, the rating service and the scheduler know games only through [`GameKind`],
//! [`GameOptions`] and the object-safe [`Game`] trait. Adding a game means adding a module to this
//! crate, a variant to [`GameKind`] and an arm to [`GameKind::load`]; no service changes.
//!
//! Positions and turns cross this seam as text in the game's own notation (RULES.md 1.11 and 2.5),
//! because that is what is stored, sent over the wire and shown to people. Each game parses once at
//! the seam and works on typed values inside.

use std::fmt;
use std::str::FromStr;

/// The two sides of every game on the platform. In HanniBall White moves first; in paper football
/// the first player is `White` (RULES.md 2.1: attacks `y = 12`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Side {
    White,
    Black,
}

impl Side {
    /// The other side.
    #[must_use]
    pub const fn opponent(self) -> Side {
        match self {
            Side::White => Side::Black,
            Side::Black => Side::White,
        }
    }

    /// Lowercase name, as used in messages (`white`, `black`).
    #[must_use]
    pub const fn name(self) -> &'static str {
        match self {
            Side::White => "white",
            Side::Black => "black",
        }
    }

    /// Index 0 for White, 1 for Black (for per-side arrays).
    #[must_use]
    pub const fn index(self) -> usize {
        match self {
            Side::White => 0,
            Side::Black => 1,
        }
    }
}

impl fmt::Display for Side {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// How a game ended, as far as the rules are concerned. Platform endings (resignation, time,
/// agreement, abort) belong to the arbiter, not to the rules.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum EndReason {
    /// The ball entered the goal of the side that did not move it there.
    Goal,
    /// The mover put the ball into their own goal.
    OwnGoal,
    /// The side to move had no legal turn at the start of its turn (HanniBall 1.9).
    NoLegalTurn,
    /// The game reached `max_turns` turns without a goal (HanniBall 1.9).
    MaxTurns,
    /// The player who had to draw a segment had none (paper football 2.4).
    DeadEnd,
}

impl EndReason {
    /// Stable lowercase name (`goal`, `own-goal`, `no-legal-turn`, `max-turns`, `dead-end`).
    #[must_use]
    pub const fn name(self) -> &'static str {
        match self {
            EndReason::Goal => "goal",
            EndReason::OwnGoal => "own-goal",
            EndReason::NoLegalTurn => "no-legal-turn",
            EndReason::MaxTurns => "max-turns",
            EndReason::DeadEnd => "dead-end",
        }
    }
}

impl fmt::Display for EndReason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// The outcome of a finished game.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Outcome {
    Win(Side),
    Draw,
}

impl Outcome {
    /// Score notation: `1-0`, `0-1`, `1/2-1/2`.
    #[must_use]
    pub const fn score(self) -> &'static str {
        match self {
            Outcome::Win(Side::White) => "1-0",
            Outcome::Win(Side::Black) => "0-1",
            Outcome::Draw => "1/2-1/2",
        }
    }
}

/// A finished game's result according to the rules.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct GameResult {
    pub outcome: Outcome,
    pub reason: EndReason,
}

impl fmt::Display for GameResult {
    /// `1-0 goal`, `1/2-1/2 max-turns`: score, then reason.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} {}", self.outcome.score(), self.reason)
    }
}

/// The games the platform serves.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum GameKind {
    HanniBall,
    PaperFootball,
}

impl GameKind {
    /// Every game kind, in a stable order.
    pub const ALL: [GameKind; 2] = [GameKind::HanniBall, GameKind::PaperFootball];

    /// Stable name used on the wire, in the database and on the command line.
    #[must_use]
    pub const fn name(self) -> &'static str {
        match self {
            GameKind::HanniBall => "hanniball",
            GameKind::PaperFootball => "paper-football",
        }
    }
}

impl fmt::Display for GameKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for GameKind {
    type Err = SetupError;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        GameKind::ALL
            .into_iter()
            .find(|kind| kind.name() == s)
            .ok_or_else(|| SetupError::UnknownGameKind(s.to_owned()))
    }
}

/// Options a game is created with. `None` means the game's default.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct GameOptions {
    /// Ruleset name; must be one of [`GameKind::rulesets`].
    pub ruleset: Option<String>,
    /// Turn limit after which the game is drawn, where the game has one (HanniBall: default 300).
    pub max_turns: Option<u32>,
}

/// Why a game could not be created or loaded.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum SetupError {
    #[error("unknown game kind {0:?} (expected one of: hanniball, paper-football)")]
    UnknownGameKind(String),
    #[error("unknown ruleset {ruleset:?} for {kind} (expected one of: {expected})")]
    UnknownRuleset {
        kind: GameKind,
        ruleset: String,
        expected: String,
    },
    #[error("invalid option for {kind}: {reason}")]
    InvalidOption { kind: GameKind, reason: String },
    #[error("malformed position: {0}")]
    MalformedPosition(String),
}

/// Why a turn was refused. The game is unchanged either way.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum TurnError {
    /// The text is not a turn in the game's notation (names the bad token).
    #[error("malformed turn: {0}")]
    Malformed(String),
    /// The turn is well formed but breaks a rule (names the step and the reason).
    #[error("{0}")]
    Illegal(String),
}

/// Where a turn stands after some of its steps (see [`Game::partial_turn`]).
///
/// `must_end` and `may_end` together say what the caller can do next: step on (`next` is not
/// empty), end the turn there (`may_end`: [`Game::play_turn`] of these steps succeeds), both, or
/// neither (`must_end && !may_end`: a dead end, e.g. four HanniBall steps that changed nothing;
/// the caller must take a step back).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PartialTurn {
    /// Every step legal next, in canonical notation and in the order of [`Game::legal_steps`].
    /// Empty when `must_end`.
    pub next: Vec<String>,
    /// Whether the turn may end here: [`Game::play_turn`] of the same steps would succeed
    /// (HanniBall: at least one step, and the placement changed or a goal was scored; paper
    /// football: the last step passed the turn or ended the game).
    pub may_end: bool,
    /// Whether no step may follow (HanniBall: the turn has all its steps, a goal was scored, or no
    /// piece can step; paper football: the turn passed or the game ended).
    pub must_end: bool,
    /// The position after these steps, in the game's notation. While the turn is open it is the
    /// mid-turn position (HanniBall: the same side to move, `<steps-taken>` counting the steps;
    /// paper football: the history with these steps); when the turn must end and may end, it is
    /// exactly the position [`Game::play_turn`] gives.
    pub position: String,
    /// The result, when these steps ended the game (a goal; paper football: also a dead end).
    pub result: Option<GameResult>,
}

/// One game in progress or finished, behind the seam. Values are immutable: playing a turn returns
/// a new game, so a refused turn can never leave a half-applied state behind.
pub trait Game: fmt::Debug + Send + Sync {
    /// Which game this is.
    fn kind(&self) -> GameKind;
    /// The ruleset in force.
    fn ruleset(&self) -> &'static str;
    /// The position in the game's notation; [`GameKind::load`] of it gives back an equal game.
    fn position(&self) -> String;
    /// The side whose turn it is.
    fn side_to_move(&self) -> Side;
    /// Whole turns completed so far (both sides counted).
    fn turns_played(&self) -> u32;
    /// Every legal next step for the side to move, in canonical notation, sorted in byte order.
    /// Empty when the game is over.
    fn legal_steps(&self) -> Vec<String>;
    /// Plays a whole turn given as text; on success the new game, on refusal the reason.
    fn play_turn(&self, turn: &str) -> Result<Box<dyn Game>, TurnError>;
    /// Where the turn of the side to move stands after `steps` (the first steps of a turn, in the
    /// turn notation; empty for the turn's start, where `next` equals [`Game::legal_steps`]).
    /// Malformed text is [`TurnError::Malformed`]; a step that is illegal where it is played is
    /// [`TurnError::Illegal`] with the same reason [`Game::play_turn`] gives.
    fn partial_turn(&self, steps: &str) -> Result<PartialTurn, TurnError>;
    /// The result, once the rules have ended the game.
    fn result(&self) -> Option<GameResult>;
    /// Game-specific facts the side to move should know at turn start, as short stable words
    /// (HanniBall: `obstruction`, `clustering` when a penalty removal is available).
    fn notices(&self) -> Vec<String>;
    /// A picture of the position for a terminal (plain text, several lines).
    fn render(&self) -> String;
    /// A boxed copy.
    fn clone_box(&self) -> Box<dyn Game>;
}

impl Clone for Box<dyn Game> {
    fn clone(&self) -> Self {
        self.clone_box()
    }
}
