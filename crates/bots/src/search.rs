//! Game-independent alpha-beta (negamax) over whole turns, with iterative deepening and an
//! immediate-win check at every node; each game plugs in through [`Engine`].

use hanniball_rules::{Outcome, Side};

use crate::budget::Budget;

/// The value of a won game; a win found `ply` turns ahead scores `WIN - ply`, so nearer wins are
/// preferred and nearer losses avoided longest.
pub(crate) const WIN: i32 = 1_000_000;
/// Scores beyond this are wins or losses, not heuristic values.
pub(crate) const DECIDED: i32 = WIN - 1_000;
const INFINITY: i32 = WIN + 1;

/// A candidate turn and the position after it (the opponent to move, or the game over).
pub(crate) struct Child<T, P> {
    pub(crate) turn: T,
    pub(crate) end: P,
}

/// What the search needs to know about a game.
pub(crate) trait Engine {
    type Pos;
    type Turn: Clone;

    /// The side to move in a position that is not over.
    fn mover(&self, position: &Self::Pos) -> Side;
    /// The outcome, if the game is over in `position`.
    fn outcome(&mut self, position: &Self::Pos) -> Option<Outcome>;
    /// A turn that wins at once for the side to move, if there is one the engine can find.
    fn winning_turn(&mut self, position: &Self::Pos, budget: &mut Budget<'_>)
    -> Option<Self::Turn>;
    /// Up to `width` legal turns, most promising first by the engine's cheap ordering. Empty only
    /// when the side to move has no legal turn. Returns at least one turn even on a stopped budget.
    fn candidates(
        &mut self,
        position: &Self::Pos,
        width: usize,
        budget: &mut Budget<'_>,
    ) -> Vec<Child<Self::Turn, Self::Pos>>;
    /// A heuristic value of a position that is not over, for the side to move (higher is better).
    fn evaluate(&mut self, position: &Self::Pos) -> i32;
}

/// How wide and how deep to look.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Settings {
    /// Whole turns to look ahead (1: each of my turns judged by the opponent's immediate reply
    /// threats and the heuristic; that is the greedy bot).
    pub(crate) max_depth: u32,
    /// Candidate turns searched at the root.
    pub(crate) root_width: usize,
    /// Candidates considered at the root when all of the first `root_width` lose at once.
    pub(crate) rescue_width: usize,
    /// Candidate turns searched below the root.
    pub(crate) inner_width: usize,
}

/// The best turn found for the side to move, or `None` when it has no legal turn.
pub(crate) fn best_turn<E: Engine>(
    engine: &mut E,
    root: &E::Pos,
    settings: Settings,
    budget: &mut Budget<'_>,
) -> Option<E::Turn> {
    if let Some(turn) = engine.winning_turn(root, budget) {
        return Some(turn);
    }
    let wide = settings.rescue_width.max(settings.root_width);
    let children = engine.candidates(root, wide, budget);
    let first = children.first()?.turn.clone();
    let me = engine.mover(root);
    // `order[i]` indexes `children`; re-sorted by score after each finished iteration.
    let mut order: Vec<usize> = (0..children.len()).collect();
    let mut best = first;
    for depth in 1..=settings.max_depth.max(1) {
        let mut scored: Vec<(i32, usize)> = Vec::with_capacity(order.len());
        let mut alpha = -INFINITY;
        let mut aborted = false;
        for (rank, &index) in order.iter().enumerate() {
            // Beyond the root width only when everything so far loses at once (depth 1 only).
            if rank >= settings.root_width && (depth > 1 || alpha > -DECIDED) {
                break;
            }
            if budget.stopped() {
                aborted = true;
                break;
            }
            let child = &children[index];
            let score = match engine.outcome(&child.end) {
                Some(outcome) => terminal_score(outcome, me, 1),
                None => {
                    let window = (-INFINITY, -alpha);
                    match negamax(engine, &child.end, depth - 1, window, 1, settings, budget) {
                        Some(score) => -score,
                        None => {
                            aborted = true;
                            break;
                        }
                    }
                }
            };
            scored.push((score, index));
            alpha = alpha.max(score);
        }
        // A partial iteration still counts: its first child was the previous best, so its best is
        // at least as well founded. Ties keep the earlier (better-ordered) turn.
        if let Some(&(_, index)) = scored.iter().reduce(|a, b| if b.0 > a.0 { b } else { a }) {
            best = children[index].turn.clone();
        }
        if aborted || budget.stopped() {
            break;
        }
        let searched: Vec<usize> = scored.iter().map(|&(_, index)| index).collect();
        scored.sort_by_key(|entry| std::cmp::Reverse(entry.0));
        let top = scored.first().map_or(0, |&(score, _)| score);
        let mut next: Vec<usize> = scored.iter().map(|&(_, index)| index).collect();
        next.extend(order.iter().filter(|index| !searched.contains(index)));
        order = next;
        if top.abs() > DECIDED {
            break;
        }
    }
    Some(best)
}

/// The score of a finished game for `me`, found `ply` turns below the root.
const fn terminal_score(outcome: Outcome, me: Side, ply: i32) -> i32 {
    match outcome {
        Outcome::Draw => 0,
        Outcome::Win(side) => {
            if side as u8 == me as u8 {
                WIN - ply
            } else {
                -(WIN - ply)
            }
        }
    }
}

/// Negamax with alpha-beta; the value for the side to move of a position that is not over.
/// `None` when the budget ran out (the caller discards the unfinished iteration's branch).
fn negamax<E: Engine>(
    engine: &mut E,
    position: &E::Pos,
    depth: u32,
    (mut alpha, beta): (i32, i32),
    ply: i32,
    settings: Settings,
    budget: &mut Budget<'_>,
) -> Option<i32> {
    if budget.spend(1) {
        return None;
    }
    if engine.winning_turn(position, budget).is_some() {
        return Some(WIN - ply);
    }
    if budget.stopped() {
        return None;
    }
    if depth == 0 {
        return Some(engine.evaluate(position));
    }
    let me = engine.mover(position);
    let children = engine.candidates(position, settings.inner_width, budget);
    if budget.stopped() {
        return None;
    }
    if children.is_empty() {
        // RULES 1.9 / 2.4: no legal turn loses.
        return Some(-(WIN - ply));
    }
    let mut best = -INFINITY;
    for child in &children {
        let score = match engine.outcome(&child.end) {
            Some(outcome) => terminal_score(outcome, me, ply + 1),
            None => -negamax(
                engine,
                &child.end,
                depth - 1,
                (-beta, -alpha),
                ply + 1,
                settings,
                budget,
            )?,
        };
        best = best.max(score);
        alpha = alpha.max(score);
        if alpha >= beta {
            break;
        }
    }
    Some(best)
}
