//! HanniBall (RULES.md Part 1): board geometry, pieces, positions, legal steps, red cards, turns,
//! the end of the game, and the notation.
//!
//! The typed API is [`Position`]: `legal_steps`, `check_step`, `play_step` and `play_turn` never
//! change a position in place; a refused step or turn leaves the caller's position as it was.
//! [`HanniBallGame`] puts the same engine behind the game-agnostic seam.

mod error;
mod notation;
mod piece;
pub mod playout;
mod position;
mod render;
pub mod square;
mod svg;

pub use error::{IllegalStep, IllegalTurn, ParseError, StepRefusal, TurnTextError};
pub use notation::INITIAL;
pub use piece::{Kind, Piece, Ruleset, Step, Turn};
pub use position::{DEFAULT_MAX_TURNS, Offences, Position};
pub use square::{Square, SquareSet};
pub use svg::{svg, svg_titled};

use crate::game::{
    Game, GameKind, GameOptions, GameResult, PartialTurn, SetupError, Side, TurnError,
};

impl Position {
    /// Plays a turn written in notation (see [`Position::play_turn`]).
    pub fn play_turn_text(&self, turn: &str) -> Result<Position, TurnTextError> {
        let turn: Turn = turn.parse()?;
        Ok(self.play_turn(&turn)?)
    }

    /// Plays the first steps of a turn (none is the turn's start), each checked where it is
    /// played, without ending the turn: the mid-turn position, which RULES 1.11 writes with the
    /// same side to move and `<steps-taken>` counting the steps.
    pub fn play_steps(&self, steps: &[Step]) -> Result<Position, IllegalStep> {
        steps
            .iter()
            .try_fold(*self, |position, &step| position.play_step(step))
    }

    /// Every legal step in canonical notation, sorted in plain byte order.
    #[must_use]
    pub fn legal_step_texts(&self) -> Vec<String> {
        let mut texts: Vec<String> = self.legal_steps().iter().map(Step::to_string).collect();
        texts.sort_unstable();
        texts
    }
}

/// HanniBall behind the seam: a [`Position`], and its result worked out once (whether the side to
/// move has any legal turn takes a full step generation, and the seam is asked more than once).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HanniBallGame {
    position: Position,
    result: Option<GameResult>,
}

impl HanniBallGame {
    /// The game at a position.
    #[must_use]
    pub fn new(position: Position) -> Self {
        HanniBallGame {
            result: position.result(),
            position,
        }
    }

    /// The position.
    #[must_use]
    pub const fn position(&self) -> &Position {
        &self.position
    }

    fn options(options: &GameOptions) -> Result<(Option<Ruleset>, u32), SetupError> {
        let ruleset = match options.ruleset.as_deref() {
            None => None,
            Some(name) => {
                Some(
                    Ruleset::from_name(name).ok_or_else(|| SetupError::UnknownRuleset {
                        kind: GameKind::HanniBall,
                        ruleset: name.to_owned(),
                        expected: Ruleset::NAMES.join(", "),
                    })?,
                )
            }
        };
        let max_turns = options.max_turns.unwrap_or(DEFAULT_MAX_TURNS);
        if max_turns == 0 {
            return Err(SetupError::InvalidOption {
                kind: GameKind::HanniBall,
                reason: "max_turns must be at least 1".to_owned(),
            });
        }
        Ok((ruleset, max_turns))
    }

    /// A new game from the initial position (seam constructor).
    pub fn new_boxed(options: &GameOptions) -> Result<Box<dyn Game>, SetupError> {
        let (ruleset, max_turns) = Self::options(options)?;
        let position = Position::initial(ruleset.unwrap_or_default()).with_max_turns(max_turns);
        Ok(Box::new(HanniBallGame::new(position)))
    }

    /// A game at a position in notation (seam constructor). A ruleset option, if given, must match
    /// the position's own ruleset field.
    pub fn load_boxed(text: &str, options: &GameOptions) -> Result<Box<dyn Game>, SetupError> {
        let (ruleset, max_turns) = Self::options(options)?;
        let position = Position::from_notation(text)
            .map_err(|error| SetupError::MalformedPosition(error.to_string()))?;
        if let Some(ruleset) = ruleset.filter(|ruleset| *ruleset != position.ruleset()) {
            return Err(SetupError::InvalidOption {
                kind: GameKind::HanniBall,
                reason: format!(
                    "ruleset {ruleset} was asked for, but the position is written under {}",
                    position.ruleset()
                ),
            });
        }
        Ok(Box::new(HanniBallGame::new(
            position.with_max_turns(max_turns),
        )))
    }
}

impl Game for HanniBallGame {
    fn kind(&self) -> GameKind {
        GameKind::HanniBall
    }

    fn ruleset(&self) -> &'static str {
        self.position.ruleset().name()
    }

    fn position(&self) -> String {
        self.position.to_notation()
    }

    fn side_to_move(&self) -> Side {
        self.position.side_to_move()
    }

    fn turns_played(&self) -> u32 {
        self.position.turns_played()
    }

    fn legal_steps(&self) -> Vec<String> {
        self.position.legal_step_texts()
    }

    fn play_turn(&self, turn: &str) -> Result<Box<dyn Game>, TurnError> {
        match self.position.play_turn_text(turn) {
            Ok(position) => Ok(Box::new(HanniBallGame::new(position))),
            Err(TurnTextError::Malformed(error)) => Err(TurnError::Malformed(error.to_string())),
            Err(TurnTextError::Illegal(error)) => Err(TurnError::Illegal(error.to_string())),
        }
    }

    fn partial_turn(&self, steps: &str) -> Result<PartialTurn, TurnError> {
        let turn: Turn = steps
            .parse()
            .map_err(|error: ParseError| TurnError::Malformed(error.to_string()))?;
        let mid = self
            .position
            .play_steps(&turn.0)
            .map_err(|error| TurnError::Illegal(error.to_string()))?;
        let next = mid.legal_step_texts();
        // RULES 1.4: the turn may end once it has a step and changed the placement, or at a goal
        // (which ends the game, so no step follows).
        let may_end =
            !turn.0.is_empty() && (mid.result_is_goal() || !mid.same_placement(&self.position));
        let must_end = next.is_empty();
        let after = if may_end && must_end && !mid.result_is_goal() {
            self.position
                .play_turn(&turn)
                .expect("legal steps that may end the turn are a legal turn")
        } else {
            mid
        };
        Ok(PartialTurn {
            next,
            may_end,
            must_end,
            position: after.to_notation(),
            result: after.result(),
        })
    }

    fn result(&self) -> Option<GameResult> {
        self.result
    }

    fn notices(&self) -> Vec<String> {
        if self.position.steps_taken() != 0 || self.result.is_some() {
            return Vec::new();
        }
        self.position
            .offences()
            .names()
            .into_iter()
            .map(str::to_owned)
            .collect()
    }

    fn render(&self) -> String {
        render::render(&self.position)
    }

    fn clone_box(&self) -> Box<dyn Game> {
        Box::new(self.clone())
    }
}
