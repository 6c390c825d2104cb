//! Paper football (RULES.md Part 2) for the bots: whole turns (bounce chains) enumerated
//! depth-first and merged by what they draw, a winning-turn finder, and a distance heuristic.

use hanniball_rules::paper::{Direction, Position, StepOutcome};
use hanniball_rules::{Outcome, Side};

use crate::budget::Budget;
use crate::rng::{KeySet, Rng, mix};
use crate::search::{Child, Engine};

/// Columns x 0..=8, rows y 0..=12 (RULES 2.1).
const TOP: i32 = 12;

/// Steps one enumeration of whole turns may apply before it settles for what it has (bounce
/// chains can branch a lot late in a game).
const ENUMERATION_STEPS: u32 = 6_000;
/// Steps the winning-turn finder may apply per call.
const FINDER_STEPS: u32 = 6_000;

/// A key for one drawn segment, the same in both directions.
fn segment_key(from: (i32, i32), to: (i32, i32)) -> u64 {
    let a = from.0 * 16 + from.1;
    let b = to.0 * 16 + to.1;
    mix(((a.min(b) as u64) << 16) | b.max(a) as u64)
}

fn point_of(position: &Position) -> (i32, i32) {
    let ball = position.ball();
    (i32::from(ball.x()), i32::from(ball.y()))
}

/// Chebyshev steps from the ball to the goal that `side` attacks (White attacks `y = 12`).
fn goal_distance(ball: (i32, i32), side: Side) -> i32 {
    let dy = match side {
        Side::White => TOP - ball.1,
        Side::Black => ball.1,
    };
    let dx = ((ball.0 - 4).abs() - 1).max(0);
    dy.max(dx)
}

/// The heuristic value of a position for `side`, about to play a turn: the ball near the goal it
/// attacks and far from its own.
fn heuristic(position: &Position, side: Side, noise_seed: u64) -> i32 {
    let ball = point_of(position);
    let value = 30 * (goal_distance(ball, side.opponent()) - goal_distance(ball, side));
    // A little seeded noise breaks ties differently per seed, the same way for one seed.
    let key = (ball.0 * 16 + ball.1) as u64 ^ ((position.steps().len() as u64) << 8);
    value + (mix(key ^ noise_seed) % NOISE) as i32
}

/// Heuristic noise, in units below a tenth of a step of ball progress.
const NOISE: u64 = 3;

/// One whole turn found by enumeration.
struct Found {
    steps: Vec<Direction>,
    end: Position,
}

/// The paper-football engine (stateless apart from counters).
#[derive(Default)]
pub(crate) struct PaperEngine {
    seen: KeySet,
    applied: u32,
    noise_seed: u64,
}

impl PaperEngine {
    pub(crate) fn new(noise_seed: u64) -> PaperEngine {
        PaperEngine {
            noise_seed,
            ..PaperEngine::default()
        }
    }

    /// Every distinct whole turn from `position` (up to the enumeration allowance), calling
    /// `stop` on each finished one; stops early when `stop` says so.
    fn enumerate(
        &mut self,
        position: &Position,
        allowance: u32,
        stop: &mut dyn FnMut(&Found) -> bool,
    ) {
        self.seen.clear();
        self.applied = 0;
        let mut path = Vec::new();
        self.walk(position, 0, allowance, &mut path, stop);
    }

    /// Depth-first over the bounces of one turn; `drawn` is the XOR of the turn's segment keys,
    /// which with the ball's point identifies what the turn has done so far.
    fn walk(
        &mut self,
        position: &Position,
        drawn: u64,
        allowance: u32,
        path: &mut Vec<Direction>,
        stop: &mut dyn FnMut(&Found) -> bool,
    ) -> bool {
        let from = point_of(position);
        // Steps towards the attacked goal first, so a cut-off enumeration keeps the useful ones.
        let mut directions: Vec<Direction> = position.legal_steps().iter().collect();
        let side = position.side_to_move();
        directions.sort_by_key(|direction| {
            let (dx, dy) = direction.delta();
            goal_distance((from.0 + i32::from(dx), from.1 + i32::from(dy)), side)
        });
        for direction in directions {
            if self.applied >= allowance {
                return false;
            }
            self.applied += 1;
            let mut next = position.clone();
            let outcome = next
                .apply_step(direction)
                .expect("the direction was listed as legal");
            let to = point_of(&next);
            let drawn = drawn ^ segment_key(from, to);
            let key = mix(drawn ^ ((to.0 * 16 + to.1) as u64));
            if !self.seen.insert(key) {
                continue;
            }
            path.push(direction);
            let done = match outcome {
                StepOutcome::Bounce(_) => self.walk(&next, drawn, allowance, path, stop),
                StepOutcome::TurnPassed | StepOutcome::GameOver(_) => stop(&Found {
                    steps: path.clone(),
                    end: next,
                }),
            };
            path.pop();
            if done {
                return true;
            }
        }
        false
    }
}

impl Engine for PaperEngine {
    type Pos = Position;
    type Turn = Vec<Direction>;

    fn mover(&self, position: &Position) -> Side {
        position.side_to_move()
    }

    fn outcome(&mut self, position: &Position) -> Option<Outcome> {
        position.result().map(|result| result.outcome)
    }

    fn winning_turn(
        &mut self,
        position: &Position,
        budget: &mut Budget<'_>,
    ) -> Option<Vec<Direction>> {
        if position.is_over() {
            return None;
        }
        let me = position.side_to_move();
        let mut win = None;
        self.enumerate(position, FINDER_STEPS, &mut |found| {
            let won = found.end.result().map(|result| result.outcome) == Some(Outcome::Win(me));
            if won {
                win = Some(found.steps.clone());
            }
            won
        });
        budget.spend(u64::from(self.applied));
        win
    }

    fn candidates(
        &mut self,
        position: &Position,
        width: usize,
        budget: &mut Budget<'_>,
    ) -> Vec<Child<Vec<Direction>, Position>> {
        if position.is_over() {
            return Vec::new();
        }
        let me = position.side_to_move();
        let noise_seed = self.noise_seed;
        let mut scored: Vec<(i32, Found)> = Vec::new();
        self.enumerate(position, ENUMERATION_STEPS, &mut |found| {
            let score = match found.end.result().map(|result| result.outcome) {
                Some(Outcome::Win(side)) if side == me => i32::MAX,
                Some(Outcome::Win(_)) => i32::MIN,
                Some(Outcome::Draw) => 0,
                None => -heuristic(&found.end, me.opponent(), noise_seed),
            };
            scored.push((
                score,
                Found {
                    steps: found.steps.clone(),
                    end: found.end.clone(),
                },
            ));
            false
        });
        budget.spend(u64::from(self.applied));
        scored.sort_by_key(|entry| std::cmp::Reverse(entry.0));
        scored
            .into_iter()
            .take(width)
            .map(|(_, found)| Child {
                turn: found.steps,
                end: found.end,
            })
            .collect()
    }

    fn evaluate(&mut self, position: &Position) -> i32 {
        heuristic(position, position.side_to_move(), self.noise_seed)
    }
}

/// A random legal turn: random legal steps until the turn passes or the game ends.
pub(crate) fn random(position: &Position, rng: &mut Rng) -> Option<Vec<Direction>> {
    let mut current = position.clone();
    let mut steps = Vec::new();
    loop {
        let legal = current.legal_steps();
        if legal.is_empty() {
            // Only before the first step: a bounce into a dead end ends the game at that step.
            return None;
        }
        let direction = legal
            .nth(rng.below_by_multiply(legal.len()))
            .expect("index below len");
        steps.push(direction);
        match current
            .apply_step(direction)
            .expect("the direction was listed as legal")
        {
            StepOutcome::Bounce(_) => {}
            StepOutcome::TurnPassed | StepOutcome::GameOver(_) => return Some(steps),
        }
    }
}
