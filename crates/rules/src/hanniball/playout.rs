//! Random turns and random games, for tests, benchmarks and the random bot. Randomness comes from
//! the caller as a `pick(n) -> index below n` function, so the rules stay free of any RNG.

use super::piece::Turn;
use super::position::{Position, changes_placement};

/// A uniformly random legal turn: a random length, then random legal steps, redrawn when it would
/// change nothing. `None` when the game is over.
pub fn random_turn(position: &Position, pick: &mut dyn FnMut(usize) -> usize) -> Option<Turn> {
    if position.result().is_some() {
        return None;
    }
    let remaining = usize::from(position.step_limit().saturating_sub(position.steps_taken()));
    // RULES 1.11: a turn that already has all its steps has no legal steps left.
    if remaining == 0 {
        return None;
    }
    let mut legal = Vec::with_capacity(128);
    for _ in 0..64 {
        let want = 1 + pick(remaining);
        let mut current = *position;
        let mut steps = Vec::with_capacity(want);
        while steps.len() < want {
            legal.clear();
            current.legal_steps_into(&mut legal);
            if legal.is_empty() {
                break;
            }
            let step = legal[pick(legal.len())];
            current = current.apply(step);
            steps.push(step);
            if current.result_is_goal() {
                return Some(Turn(steps));
            }
        }
        if !steps.is_empty() && !current.same_placement(position) {
            return Some(Turn(steps));
        }
    }
    // Only null ricochets keep coming up: any single changing step is a legal turn.
    position
        .legal_steps()
        .into_iter()
        .find(|step| changes_placement(*step))
        .map(|step| Turn(vec![step]))
}

/// A random turn that takes any step putting the ball in a goal (either goal) whenever one is
/// listed, so that games end by goals and own goals, not only by the turn limit. Falls back to
/// [`random_turn`] when the steps drawn would change nothing. `None` when the game is over.
pub fn goal_seeking_turn(
    position: &Position,
    pick: &mut dyn FnMut(usize) -> usize,
) -> Option<Turn> {
    if position.result().is_some() {
        return None;
    }
    let remaining = usize::from(position.step_limit().saturating_sub(position.steps_taken()));
    if remaining == 0 {
        return None;
    }
    let want = 1 + pick(remaining);
    let mut current = *position;
    let mut steps = Vec::with_capacity(want);
    while steps.len() < want && !current.result_is_goal() {
        let listed = current.legal_steps();
        if listed.is_empty() {
            break;
        }
        let step = listed
            .iter()
            .copied()
            .find(|step| current.apply(*step).result_is_goal())
            .unwrap_or_else(|| listed[pick(listed.len())]);
        current = current.apply(step);
        steps.push(step);
    }
    let turn = Turn(steps);
    if position.play_turn(&turn).is_ok() {
        Some(turn)
    } else {
        random_turn(position, pick)
    }
}

/// Statistics of one random game.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Playout {
    /// The turns played, in order.
    pub turns: Vec<Turn>,
    /// Steps played in all.
    pub steps: usize,
    /// The final position.
    pub end: Option<Position>,
}

/// Plays random turns from `start` until the game ends.
pub fn random_game(start: &Position, pick: &mut dyn FnMut(usize) -> usize) -> Playout {
    let mut position = *start;
    let mut playout = Playout::default();
    while let Some(turn) = random_turn(&position, pick) {
        playout.steps += turn.0.len();
        position = position
            .play_turn(&turn)
            .expect("a random turn is built from legal steps");
        playout.turns.push(turn);
    }
    playout.end = Some(position);
    playout
}
