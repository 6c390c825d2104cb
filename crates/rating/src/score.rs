//! A game's result as the rating maths reads it.

/// A game result from the first player's point of view.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Score {
    /// The first player won.
    Win,
    /// Drawn.
    Draw,
    /// The first player lost.
    Loss,
}

impl Score {
    /// 1, 0.5 or 0.
    pub fn value(self) -> f64 {
        f64::from(self.half_points()) / 2.0
    }

    /// The same game from the other player's point of view.
    pub fn reverse(self) -> Score {
        match self {
            Score::Win => Score::Loss,
            Score::Draw => Score::Draw,
            Score::Loss => Score::Win,
        }
    }

    /// 2, 1 or 0: the score in half points, for exact sums.
    pub fn half_points(self) -> u8 {
        match self {
            Score::Win => 2,
            Score::Draw => 1,
            Score::Loss => 0,
        }
    }

    /// 100, 50 or 0: the score in hundredths, the unit of FIDE's tables.
    pub fn hundredths(self) -> u8 {
        self.half_points() * 50
    }
}
