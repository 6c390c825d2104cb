//! Pieces, steps and rulesets: the vocabulary of RULES 1.2, 1.5 and 1.10.

use std::fmt;

use super::square::Square;
use crate::game::Side;

/// The four kinds of piece (RULES 1.2).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Kind {
    Keeper,
    Lion,
    Elephant,
    Horse,
}

impl Kind {
    /// Every kind, in index order.
    pub const ALL: [Kind; 4] = [Kind::Keeper, Kind::Lion, Kind::Elephant, Kind::Horse];

    /// Index 0..4 for per-kind arrays.
    #[must_use]
    pub const fn index(self) -> usize {
        self as usize
    }

    /// Lowercase name, as used in messages.
    #[must_use]
    pub const fn name(self) -> &'static str {
        match self {
            Kind::Keeper => "keeper",
            Kind::Lion => "lion",
            Kind::Elephant => "elephant",
            Kind::Horse => "horse",
        }
    }

    /// How many of this kind each side starts with.
    #[must_use]
    pub const fn initial_count(self) -> u32 {
        match self {
            Kind::Keeper => 1,
            Kind::Lion => 2,
            Kind::Elephant | Kind::Horse => 4,
        }
    }
}

/// A piece: a side and a kind.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Piece {
    pub side: Side,
    pub kind: Kind,
}

impl Piece {
    /// The notation letter: `K L E H` for White, `k l e h` for Black (RULES 1.11).
    #[must_use]
    pub const fn letter(self) -> char {
        let upper = match self.kind {
            Kind::Keeper => 'K',
            Kind::Lion => 'L',
            Kind::Elephant => 'E',
            Kind::Horse => 'H',
        };
        match self.side {
            Side::White => upper,
            Side::Black => upper.to_ascii_lowercase(),
        }
    }

    /// The piece a notation letter stands for.
    #[must_use]
    pub const fn from_letter(letter: char) -> Option<Piece> {
        let side = if letter.is_ascii_uppercase() {
            Side::White
        } else {
            Side::Black
        };
        let kind = match letter.to_ascii_uppercase() {
            'K' => Kind::Keeper,
            'L' => Kind::Lion,
            'E' => Kind::Elephant,
            'H' => Kind::Horse,
            _ => return None,
        };
        Some(Piece { side, kind })
    }
}

impl fmt::Display for Piece {
    /// `white elephant`, as in error messages.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} {}", self.side, self.kind.name())
    }
}

/// The rulesets of RULES 1.10.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum Ruleset {
    /// Any two pieces block a knight leap; clustering is an offence.
    #[default]
    Standard,
    /// Only opponent pieces block a leap; no clustering rule.
    Zillions2010,
}

impl Ruleset {
    /// Notation names, default first.
    pub const NAMES: &'static [&'static str] = &["standard", "zillions-2010"];

    /// The notation name.
    #[must_use]
    pub const fn name(self) -> &'static str {
        match self {
            Ruleset::Standard => "standard",
            Ruleset::Zillions2010 => "zillions-2010",
        }
    }

    /// The ruleset with this notation name.
    #[must_use]
    pub fn from_name(name: &str) -> Option<Ruleset> {
        match name {
            "standard" => Some(Ruleset::Standard),
            "zillions-2010" => Some(Ruleset::Zillions2010),
            _ => None,
        }
    }
}

impl fmt::Display for Ruleset {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// One step of a turn (RULES 1.5), as written in RULES 1.11.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Step {
    /// `from-to`: a move, never carrying the ball; includes captures and picking up a loose ball.
    Move { from: Square, to: Square },
    /// `from=to`: the ball holder moves to an empty square with the ball.
    Carry { from: Square, to: Square },
    /// `from>to`: a shot landing on `to` (which holds no keeper).
    Shoot { from: Square, to: Square },
    /// `from>keeper>to`: a shot onto a keeper and the shooter's choice of ricochet square.
    Ricochet {
        from: Square,
        keeper: Square,
        to: Square,
    },
    /// `x` + square: penalty removal of an opponent piece (RULES 1.8).
    Remove(Square),
}

impl fmt::Display for Step {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            Step::Move { from, to } => write!(f, "{from}-{to}"),
            Step::Carry { from, to } => write!(f, "{from}={to}"),
            Step::Shoot { from, to } => write!(f, "{from}>{to}"),
            Step::Ricochet { from, keeper, to } => write!(f, "{from}>{keeper}>{to}"),
            Step::Remove(square) => write!(f, "x{square}"),
        }
    }
}

/// A turn: its steps in order (RULES 1.4). Written with single spaces between steps.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Default)]
pub struct Turn(pub Vec<Step>);

impl fmt::Display for Turn {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, step) in self.0.iter().enumerate() {
            if i > 0 {
                f.write_str(" ")?;
            }
            write!(f, "{step}")?;
        }
        Ok(())
    }
}
