//! Positions and play (RULES.md 2.2–2.4): drawing segments, bounces, turns and the end of the game.

use std::fmt;

use super::field::{BORDER, Direction, DirectionSet, OPEN, POINTS, Point, STEPS};
use crate::game::{EndReason, GameResult, Outcome, Side};

/// Why the player who just drew a segment must draw another one (RULES.md 2.3). When several
/// hold, the first in this order is reported.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Bounce {
    /// The segment ends on a point that already had a segment before it.
    UsedPoint,
    /// The segment ends on a border point.
    Border,
    /// The segment is a diagonal crossing the other, already drawn, diagonal of its cell.
    Crossing,
}

impl Bounce {
    /// Stable lowercase name: `used-point`, `border`, `crossing`.
    #[must_use]
    pub const fn name(self) -> &'static str {
        match self {
            Bounce::UsedPoint => "used-point",
            Bounce::Border => "border",
            Bounce::Crossing => "crossing",
        }
    }

    /// Completes "a bounce is compulsory after step NE, which ..." for the step that drew
    /// the segment ending at `to`.
    fn phrase(self, to: Point, step: Direction) -> String {
        match self {
            Bounce::UsedPoint => format!("ends on the already used point {to}"),
            Bounce::Border => format!("ends on the border point {to}"),
            Bounce::Crossing => {
                let crossed = to.neighbour(step.opposite()).and_then(|from| {
                    let (dx, dy) = step.delta();
                    let a = Point::new(from.x().wrapping_add_signed(dx), from.y())?;
                    let b = Point::new(from.x(), from.y().wrapping_add_signed(dy))?;
                    Some(format!("{a}-{b}"))
                });
                match crossed {
                    Some(segment) => format!("crosses the diagonal {segment}"),
                    None => "crosses the other diagonal of its cell".to_owned(),
                }
            }
        }
    }
}

impl fmt::Display for Bounce {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// What a single step did.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum StepOutcome {
    /// The same player must draw again.
    Bounce(Bounce),
    /// The turn passed to the opponent.
    TurnPassed,
    /// The game ended: a goal, an own goal, or the player who must draw next has no segment.
    GameOver(GameResult),
}

/// Why a step cannot be drawn.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum StepRefusal {
    /// The game is already over.
    GameOver(GameResult),
    /// The neighbour in that direction does not exist (off the field, or a corner).
    NoPoint,
    /// An orthogonal segment joining two border points (RULES.md 2.2).
    AlongBorder { to: Point },
    /// The segment was drawn before, in either direction (RULES.md 2.2).
    AlreadyDrawn { to: Point },
}

impl StepRefusal {
    fn explain(self, from: Point, step: Direction) -> String {
        match self {
            StepRefusal::GameOver(result) => format!("the game is over ({result})"),
            StepRefusal::NoPoint => format!("there is no point {step} of {from}"),
            StepRefusal::AlongBorder { to } => {
                format!("segment {from}-{to} runs along the border")
            }
            StepRefusal::AlreadyDrawn { to } => format!("segment {from}-{to} is already drawn"),
        }
    }
}

/// A step that may not be drawn in a position; the position is unchanged.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, thiserror::Error)]
pub struct IllegalStep {
    pub step: Direction,
    /// Where the ball stood.
    pub from: Point,
    pub reason: StepRefusal,
}

impl IllegalStep {
    /// The reason alone, without the leading "step NE is illegal".
    #[must_use]
    pub fn explanation(&self) -> String {
        self.reason.explain(self.from, self.step)
    }
}

impl fmt::Display for IllegalStep {
    /// `step NE is illegal: segment (4,6)-(5,7) is already drawn`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "step {} is illegal: {}", self.step, self.explanation())
    }
}

/// A turn that may not be played; the position is unchanged. Step numbers count from 1 within
/// the turn.
#[derive(Clone, Debug, PartialEq, Eq, Hash, thiserror::Error)]
pub enum IllegalTurn {
    #[error("a turn has at least one step")]
    Empty,
    #[error("step {index} ({}) is illegal: {}", error.step, error.explanation())]
    Step { index: usize, error: IllegalStep },
    #[error("turn passes to {next} after step {after}; step {step} does not belong to this turn")]
    TurnPassed {
        after: usize,
        next: Side,
        step: Direction,
    },
    #[error(
        "the game ended after step {after} ({result}); step {step} does not belong to this turn"
    )]
    GameEnded {
        after: usize,
        result: GameResult,
        step: Direction,
    },
    #[error(
        "the turn is incomplete: a bounce is compulsory after step {steps} ({last}), which {}",
        bounce.phrase(*point, *last)
    )]
    Incomplete {
        steps: usize,
        last: Direction,
        point: Point,
        bounce: Bounce,
    },
}

/// A paper-football position: the segments drawn, the ball, whose turn it is, and the history
/// that led here (the history *is* the notation, RULES.md 2.5).
///
/// A position is always reachable from the start by legal steps. It may lie in the middle of a
/// turn: when the history ends with a step that called for a bounce, the same player is still to
/// move and owes that bounce ([`Position::bounce_owed`]); [`Position::play_turn`] then plays the
/// rest of that player's turn. The game is over once [`Position::result`] is `Some`: after a goal
/// the ball stands on the goal point and the scorer is still recorded as the side to move; after a
/// dead end the side to move is the player who had no segment.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Position {
    /// Bit `d` of `drawn[p]` is set iff the segment from `p` in direction `d` is drawn. Kept
    /// symmetric (each segment is marked at both ends), so "is this segment free" and "has this
    /// point been used" are one lookup each.
    drawn: [u8; POINTS],
    ball: Point,
    side_to_move: Side,
    /// `Some` iff the game is not over and the side to move is in the middle of its turn.
    bounce: Option<Bounce>,
    /// Turn changes so far.
    turns_played: u32,
    /// Index into `steps` where the side to move's current turn began.
    turn_start: usize,
    result: Option<GameResult>,
    /// Every step since the start; determines all other fields.
    steps: Vec<Direction>,
}

impl Default for Position {
    fn default() -> Self {
        Position::initial()
    }
}

impl Position {
    /// The start: ball on `(4,6)`, nothing drawn, White (the first player) to move.
    #[must_use]
    pub fn initial() -> Position {
        Position {
            drawn: [0; POINTS],
            ball: Point::KICK_OFF,
            side_to_move: Side::White,
            bounce: None,
            turns_played: 0,
            turn_start: 0,
            result: None,
            // Most games are shorter than this; one allocation beats regrowing in playouts.
            steps: Vec::with_capacity(64),
        }
    }

    /// The side to move (or, once the game is over, the side that moved last or was stuck).
    #[must_use]
    pub fn side_to_move(&self) -> Side {
        self.side_to_move
    }

    /// Where the ball stands.
    #[must_use]
    pub fn ball(&self) -> Point {
        self.ball
    }

    /// The result, once the rules have ended the game.
    #[must_use]
    pub fn result(&self) -> Option<GameResult> {
        self.result
    }

    #[must_use]
    pub fn is_over(&self) -> bool {
        self.result.is_some()
    }

    /// Why the side to move must draw again, if it is in the middle of its turn.
    #[must_use]
    pub fn bounce_owed(&self) -> Option<Bounce> {
        self.bounce
    }

    /// Whether the side to move is in the middle of its turn and must draw again (RULES.md 2.3).
    #[must_use]
    pub fn must_bounce(&self) -> bool {
        self.bounce.is_some()
    }

    /// Completed turns (turn changes) so far, both sides counted. A turn that ends the game is
    /// not counted: the turn never passed.
    #[must_use]
    pub fn turns_played(&self) -> u32 {
        self.turns_played
    }

    /// Every step since the start.
    #[must_use]
    pub fn steps(&self) -> &[Direction] {
        &self.steps
    }

    /// The steps of the turn in progress: empty at a turn's start, the bounces made so far in
    /// mid-turn, and the final turn's steps once the game is over.
    #[must_use]
    pub fn current_turn(&self) -> &[Direction] {
        &self.steps[self.turn_start..]
    }

    /// Whether the segment from `point` in `direction` has been drawn.
    #[must_use]
    pub fn has_segment(&self, point: Point, direction: Direction) -> bool {
        self.drawn[point.index()] & direction.bit() != 0
    }

    /// Whether any segment touches `point`.
    #[must_use]
    pub fn is_used(&self, point: Point) -> bool {
        self.drawn[point.index()] != 0
    }

    /// The directions the side to move may draw now; empty once the game is over.
    #[must_use]
    #[inline]
    pub fn legal_steps(&self) -> DirectionSet {
        if self.result.is_some() {
            return DirectionSet::EMPTY;
        }
        let p = self.ball.index();
        DirectionSet::from_bits(OPEN[p] & !self.drawn[p])
    }

    /// The position after one step, or why it is illegal (this position is not touched).
    pub fn play_step(&self, step: Direction) -> Result<Position, IllegalStep> {
        let mut next = self.clone();
        next.apply_step(step)?;
        Ok(next)
    }

    /// Draws one step in place and says what it did. On refusal nothing changes. This is the
    /// allocation-free path for playouts; [`Position::play_step`] wraps it.
    #[inline]
    pub fn apply_step(&mut self, step: Direction) -> Result<StepOutcome, IllegalStep> {
        let from = self.ball;
        let p = from.index();
        let bit = step.bit();
        if self.result.is_some() || OPEN[p] & !self.drawn[p] & bit == 0 {
            return Err(self.refusal(step));
        }
        let entry = STEPS[p][step.index()];
        let q = entry.to as usize;
        // Both tests look at the field before this segment is drawn, as RULES.md 2.3 says.
        let used_before = self.drawn[q] != 0;
        let crossing = self.drawn[entry.cross_from as usize] & entry.cross_bit != 0;
        self.drawn[p] |= bit;
        self.drawn[q] |= step.opposite().bit();
        let to = Point::from_index(entry.to);
        self.ball = to;
        self.steps.push(step);
        let mover = self.side_to_move;

        if BORDER[q]
            && let Some(owner) = to.goal_of()
        {
            // RULES.md 2.4: a goal ends the game at once; no bounce follows.
            let result = if owner == mover {
                GameResult {
                    outcome: Outcome::Win(mover.opponent()),
                    reason: EndReason::OwnGoal,
                }
            } else {
                GameResult {
                    outcome: Outcome::Win(mover),
                    reason: EndReason::Goal,
                }
            };
            return Ok(self.finish(result));
        }

        let bounce = if used_before {
            Some(Bounce::UsedPoint)
        } else if BORDER[q] {
            Some(Bounce::Border)
        } else if crossing {
            Some(Bounce::Crossing)
        } else {
            None
        };
        if bounce.is_none() {
            self.side_to_move = mover.opponent();
            self.turns_played += 1;
            self.turn_start = self.steps.len();
        }
        self.bounce = bounce;

        if OPEN[q] & !self.drawn[q] == 0 {
            // Whoever must draw next (the mover after a bounce, else the opponent) cannot.
            let result = GameResult {
                outcome: Outcome::Win(self.side_to_move.opponent()),
                reason: EndReason::DeadEnd,
            };
            return Ok(self.finish(result));
        }
        Ok(match bounce {
            Some(bounce) => StepOutcome::Bounce(bounce),
            None => StepOutcome::TurnPassed,
        })
    }

    /// Plays a whole turn of the side to move (RULES.md 2.3), or says why it is illegal (this
    /// position is not touched).
    ///
    /// The turn must have at least one step; every step but the last must have called for a
    /// bounce; the last must pass the turn or end the game. In a position that lies in the middle
    /// of a turn (see [`Position`]), the steps continue that turn: they are the bounces still
    /// owed, and the same rules apply to them.
    pub fn play_turn(&self, steps: &[Direction]) -> Result<Position, IllegalTurn> {
        let Some(&last) = steps.last() else {
            return Err(IllegalTurn::Empty);
        };
        let (next, outcome) = self.play_partial_turn(steps)?;
        if let Some(StepOutcome::Bounce(bounce)) = outcome {
            return Err(IllegalTurn::Incomplete {
                steps: steps.len(),
                last,
                point: next.ball,
                bounce,
            });
        }
        Ok(next)
    }

    /// Plays the first steps of a turn of the side to move (none is the turn's start) under the
    /// rules of [`Position::play_turn`] except that the last step may call for a bounce: the
    /// position after them and what the last step did (`None` without steps). A bounce owed
    /// leaves the position in the middle of the turn (see [`Position`]).
    pub fn play_partial_turn(
        &self,
        steps: &[Direction],
    ) -> Result<(Position, Option<StepOutcome>), IllegalTurn> {
        let mut next = self.clone();
        let mut outcome = None;
        for (i, &step) in steps.iter().enumerate() {
            match outcome {
                Some(StepOutcome::TurnPassed) => {
                    return Err(IllegalTurn::TurnPassed {
                        after: i,
                        next: next.side_to_move,
                        step,
                    });
                }
                Some(StepOutcome::GameOver(result)) => {
                    return Err(IllegalTurn::GameEnded {
                        after: i,
                        result,
                        step,
                    });
                }
                Some(StepOutcome::Bounce(_)) | None => {}
            }
            let done = next.apply_step(step).map_err(|error| IllegalTurn::Step {
                index: i + 1,
                error,
            })?;
            outcome = Some(done);
        }
        Ok((next, outcome))
    }

    fn finish(&mut self, result: GameResult) -> StepOutcome {
        self.result = Some(result);
        self.bounce = None;
        StepOutcome::GameOver(result)
    }

    /// The cold path of [`Position::apply_step`]: why `step` is refused.
    fn refusal(&self, step: Direction) -> IllegalStep {
        let from = self.ball;
        let reason = match (self.result, from.neighbour(step)) {
            (Some(result), _) => StepRefusal::GameOver(result),
            (None, None) => StepRefusal::NoPoint,
            (None, Some(to)) if self.has_segment(from, step) => StepRefusal::AlreadyDrawn { to },
            (None, Some(to)) => StepRefusal::AlongBorder { to },
        };
        IllegalStep { step, from, reason }
    }
}
