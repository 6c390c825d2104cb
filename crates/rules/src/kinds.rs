//! What each game kind is made of: its rulesets, turn limit and engine. Kept apart from
//! [`crate::game`] (the seam every engine implements), so that the engines depend on the seam and
//! only this dispatch depends on the engines.

use crate::game::{Game, GameKind, GameOptions, SetupError};

impl GameKind {
    /// The rulesets this game accepts; the first is the default.
    #[must_use]
    pub fn rulesets(self) -> &'static [&'static str] {
        match self {
            GameKind::HanniBall => crate::hanniball::Ruleset::NAMES,
            GameKind::PaperFootball => crate::paper::RULESETS,
        }
    }

    /// The turn limit a game of this kind has when none is given (`None`: no limit).
    #[must_use]
    pub const fn default_max_turns(self) -> Option<u32> {
        match self {
            GameKind::HanniBall => Some(crate::hanniball::DEFAULT_MAX_TURNS),
            GameKind::PaperFootball => None,
        }
    }

    /// A new game from the initial position.
    pub fn new_game(self, options: &GameOptions) -> Result<Box<dyn Game>, SetupError> {
        match self {
            GameKind::HanniBall => crate::hanniball::HanniBallGame::new_boxed(options),
            GameKind::PaperFootball => crate::paper::PaperGame::new_boxed(options),
        }
    }

    /// A game at a given position, written in this game's notation.
    pub fn load(self, position: &str, options: &GameOptions) -> Result<Box<dyn Game>, SetupError> {
        match self {
            GameKind::HanniBall => crate::hanniball::HanniBallGame::load_boxed(position, options),
            GameKind::PaperFootball => crate::paper::PaperGame::load_boxed(position, options),
        }
    }
}
