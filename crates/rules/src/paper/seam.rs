//! [`PaperGame`]: paper football behind the game-agnostic seam ([`crate::game::Game`]).

use super::notation::parse_turn;
use super::position::{Position, StepOutcome};
use crate::game::{
    Game, GameKind, GameOptions, GameResult, PartialTurn, SetupError, Side, TurnError,
};

/// Rulesets of paper football; the first is the default.
pub const RULESETS: &[&str] = &["standard"];

/// Paper football behind the seam: a [`Position`] plus the ruleset in force.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct PaperGame {
    position: Position,
    ruleset: &'static str,
}

impl PaperGame {
    /// A new game from the initial position.
    pub fn new(options: &GameOptions) -> Result<PaperGame, SetupError> {
        Ok(PaperGame {
            ruleset: check_options(options)?,
            position: Position::initial(),
        })
    }

    /// A game at `position`, written in the notation of RULES.md 2.5 (the steps since the start).
    pub fn load(position: &str, options: &GameOptions) -> Result<PaperGame, SetupError> {
        let ruleset = check_options(options)?;
        let position = Position::from_notation(position)
            .map_err(|e| SetupError::MalformedPosition(e.to_string()))?;
        Ok(PaperGame { position, ruleset })
    }

    pub fn new_boxed(options: &GameOptions) -> Result<Box<dyn Game>, SetupError> {
        Ok(Box::new(PaperGame::new(options)?))
    }

    pub fn load_boxed(position: &str, options: &GameOptions) -> Result<Box<dyn Game>, SetupError> {
        Ok(Box::new(PaperGame::load(position, options)?))
    }

    /// The typed position.
    #[must_use]
    pub fn state(&self) -> &Position {
        &self.position
    }
}

/// The ruleset name to use, or why the options do not fit paper football.
fn check_options(options: &GameOptions) -> Result<&'static str, SetupError> {
    let kind = GameKind::PaperFootball;
    if let Some(max_turns) = options.max_turns {
        return Err(SetupError::InvalidOption {
            kind,
            reason: format!(
                "max_turns must not be set (got {max_turns}): paper football has no turn limit, \
                 every game ends with a goal or a dead end"
            ),
        });
    }
    match options.ruleset.as_deref() {
        None => Ok(RULESETS[0]),
        Some(name) => RULESETS
            .iter()
            .copied()
            .find(|known| *known == name)
            .ok_or_else(|| SetupError::UnknownRuleset {
                kind,
                ruleset: name.to_owned(),
                expected: RULESETS.join(", "),
            }),
    }
}

impl Game for PaperGame {
    fn kind(&self) -> GameKind {
        GameKind::PaperFootball
    }

    fn ruleset(&self) -> &'static str {
        self.ruleset
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
        step_names(&self.position)
    }

    fn play_turn(&self, turn: &str) -> Result<Box<dyn Game>, TurnError> {
        let steps = parse_turn(turn).map_err(|e| TurnError::Malformed(e.to_string()))?;
        let position = self
            .position
            .play_turn(&steps)
            .map_err(|e| TurnError::Illegal(e.to_string()))?;
        Ok(Box::new(PaperGame {
            position,
            ruleset: self.ruleset,
        }))
    }

    fn partial_turn(&self, steps: &str) -> Result<PartialTurn, TurnError> {
        let steps = parse_turn(steps).map_err(|e| TurnError::Malformed(e.to_string()))?;
        let (position, outcome) = self
            .position
            .play_partial_turn(&steps)
            .map_err(|e| TurnError::Illegal(e.to_string()))?;
        // RULES.md 2.3: a step that neither bounced nor ended the game passed the turn.
        let ended = matches!(
            outcome,
            Some(StepOutcome::TurnPassed | StepOutcome::GameOver(_))
        );
        let next = if ended {
            Vec::new()
        } else {
            step_names(&position)
        };
        Ok(PartialTurn {
            may_end: ended,
            must_end: next.is_empty(),
            position: position.to_notation(),
            result: position.result(),
            next,
        })
    }

    fn result(&self) -> Option<GameResult> {
        self.position.result()
    }

    fn notices(&self) -> Vec<String> {
        Vec::new()
    }

    fn render(&self) -> String {
        self.position.render()
    }

    fn clone_box(&self) -> Box<dyn Game> {
        Box::new(self.clone())
    }
}

/// The steps legal in `position`, by name in byte order (the seam's order).
fn step_names(position: &Position) -> Vec<String> {
    let legal = position.legal_steps();
    super::field::Direction::BY_NAME
        .into_iter()
        .filter(|step| legal.contains(*step))
        .map(|step| step.name().to_owned())
        .collect()
}
