//! HanniBall (RULES.md Part 1) for the bots: a heuristic, an exact immediate-goal finder, a beam
//! generator of whole turns, and the [`Engine`] the search runs on.

use std::sync::OnceLock;

use hanniball_rules::hanniball::playout::random_turn;
use hanniball_rules::hanniball::square::{
    ALL, GOAL, GOALS, KING, KNIGHT, ORTH, SQUARES, STRAIGHT5, SquareSet, Squares, ZONE,
};
use hanniball_rules::hanniball::{Kind, Position, Ruleset, Step, Turn};
use hanniball_rules::{Outcome, Side};

use crate::budget::Budget;
use crate::rng::{KeySet, Rng, fold, mix};
use crate::search::{Child, Engine};

/// Most steps a turn has (RULES 1.4).
const MAX_STEPS: usize = 4;
/// Value of a piece in heuristic units (a goal is worth far more: see `search::WIN`).
const fn piece_value(kind: Kind) -> i32 {
    match kind {
        Kind::Keeper => 0,
        Kind::Lion => 450,
        Kind::Elephant | Kind::Horse => 300,
    }
}

/// Tunable weights of the heuristic and sizes of the turn generator.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Tuning {
    /// Per hop of the ball towards the goal the side to move attacks (minus towards its own).
    pub(crate) ball_progress: i32,
    /// Per step that the side to move is nearer the ball than the other side.
    pub(crate) ball_reach: i32,
    /// Positions kept per step of the beam that builds turns.
    pub(crate) beam: usize,
    /// Nodes the immediate-goal finder may visit in one call before it gives up.
    pub(crate) finder_nodes: u32,
    /// Seeds a small per-position noise (below `noise` units) added to the heuristic, so that
    /// different seeds break ties differently while a seed always plays the same way.
    pub(crate) noise_seed: u64,
    pub(crate) noise: u64,
}

impl Default for Tuning {
    fn default() -> Self {
        Tuning {
            ball_progress: 40,
            ball_reach: 25,
            beam: 40,
            finder_nodes: 6_000,
            noise_seed: 0,
            noise: 12,
        }
    }
}

/// Hops a ball needs (king or knight offsets, as passes, shots and carries move it) from each
/// square to the goal a side attacks, ignoring the pieces. By side index.
fn goal_hops() -> &'static [[u8; SQUARES]; 2] {
    static HOPS: OnceLock<[[u8; SQUARES]; 2]> = OnceLock::new();
    HOPS.get_or_init(|| {
        let mut hops = [[u8::MAX; SQUARES]; 2];
        for side in [Side::White, Side::Black] {
            let table = &mut hops[side.index()];
            let mut reached = GOAL[side.opponent().index()];
            let mut frontier = reached;
            let mut distance = 0;
            while frontier != 0 {
                for square in Squares(frontier) {
                    table[square.index()] = distance;
                }
                distance += 1;
                let next = expand_king(frontier) | expand_knight(frontier);
                frontier = next & !reached;
                reached |= frontier;
            }
        }
        hops
    })
}

#[inline]
fn expand_king(set: SquareSet) -> SquareSet {
    Squares(set).fold(0, |acc, square| acc | KING[square.index()])
}

#[inline]
fn expand_knight(set: SquareSet) -> SquareSet {
    Squares(set).fold(0, |acc, square| acc | KNIGHT[square.index()])
}

#[inline]
fn expand_straight(set: SquareSet) -> SquareSet {
    Squares(set).fold(0, |acc, square| acc | STRAIGHT5[square.index()])
}

/// A hash of what stands where and where the ball is: the must-change comparison of RULES 1.4,
/// used to merge turns that lead to the same placement.
fn placement_key(position: &Position) -> u64 {
    let mut hash = mix(u64::from(position.ball().index() as u8) + 1);
    hash = fold(hash, position.pieces_of(Side::White));
    hash = fold(hash, position.pieces_of(Side::Black));
    for kind in [Kind::Keeper, Kind::Lion, Kind::Elephant] {
        hash = fold(hash, position.pieces_of_kind(kind));
    }
    hash
}

fn material(position: &Position, side: Side) -> i32 {
    let own = position.pieces_of(side);
    Kind::ALL
        .into_iter()
        .map(|kind| piece_value(kind) * (own & position.pieces_of_kind(kind)).count_ones() as i32)
        .sum()
}

/// The most valuable piece of `side` a penalty removal could take (RULES 1.8: not the keeper).
fn best_removal(position: &Position, side: Side) -> i32 {
    let own = position.pieces_of(side);
    [Kind::Lion, Kind::Elephant, Kind::Horse]
        .into_iter()
        .filter(|kind| own & position.pieces_of_kind(*kind) != 0)
        .map(piece_value)
        .max()
        .unwrap_or(0)
}

/// RULES 1.8 clustering by `side`: its pieces plus a loose ball form an orthogonal group of more
/// than 3 squares (standard ruleset only).
fn clusters(position: &Position, side: Side) -> bool {
    if position.ruleset() != Ruleset::Standard {
        return false;
    }
    let occupied = position.pieces_of(Side::White) | position.pieces_of(Side::Black);
    let group_squares = position.pieces_of(side) | (position.ball().bit() & !occupied);
    let mut remaining = group_squares;
    while remaining != 0 {
        let seed = remaining & remaining.wrapping_neg();
        let mut group = seed;
        let mut frontier = seed;
        while frontier != 0 {
            let next = Squares(frontier).fold(0, |acc, square| acc | ORTH[square.index()]);
            frontier = next & group_squares & !group;
            group |= frontier;
        }
        if group.count_ones() > 3 {
            return true;
        }
        remaining &= !group;
    }
    false
}

/// Steps `side` needs to put a piece on the ball's square (0 if it holds the ball, 5 for "more
/// than 4"). Moves are symmetric, so this floods backwards from the ball over empty squares;
/// leap blocking is ignored (an estimate, not a rule).
fn ball_reach(position: &Position, side: Side) -> i32 {
    let ball = position.ball().bit();
    let own = position.pieces_of(side);
    if own & ball != 0 {
        return 0;
    }
    let empty = ALL & !(position.pieces_of(Side::White) | position.pieces_of(Side::Black));
    let kind = |kind: Kind| own & position.pieces_of_kind(kind);
    let keeper = if ZONE[side.index()] & ball != 0 {
        kind(Kind::Keeper)
    } else {
        0
    };
    let walkers = kind(Kind::Elephant) | keeper;
    let leapers = kind(Kind::Horse);
    let lions = kind(Kind::Lion) | keeper;
    let (mut walk, mut leap, mut both) = (ball, ball, ball);
    let (mut walk_seen, mut leap_seen, mut both_seen) = (ball, ball, ball);
    for steps in 1..=4 {
        if walkers != 0 && walk != 0 {
            let next = expand_king(walk);
            if next & walkers != 0 {
                return steps;
            }
            walk = next & empty & !walk_seen;
            walk_seen |= walk;
        }
        if leapers != 0 && leap != 0 {
            let next = expand_knight(leap);
            if next & leapers != 0 {
                return steps;
            }
            leap = next & empty & !leap_seen;
            leap_seen |= leap;
        }
        if lions != 0 && both != 0 {
            let next = expand_king(both) | expand_knight(both);
            if next & lions != 0 {
                return steps;
            }
            both = next & empty & !both_seen;
            both_seen |= both;
        }
    }
    5
}

/// The heuristic value of `position` for `side`, which is about to play a whole turn (the goal
/// threats are the finder's business, not this function's).
fn heuristic(position: &Position, side: Side, tuning: &Tuning) -> i32 {
    let other = side.opponent();
    let hops = goal_hops();
    let ball = position.ball().index();
    let mut score = material(position, side) - material(position, other);
    let attack = i32::from(hops[side.index()][ball]);
    let defence = i32::from(hops[other.index()][ball]);
    score += tuning.ball_progress * (defence - attack);
    score += tuning.ball_reach * (ball_reach(position, other) - ball_reach(position, side));
    // RULES 1.8: an offence by the side that just moved earns `side` a removal.
    let offence = if position.side_to_move() == side && position.steps_taken() == 0 {
        position.offences().any()
    } else {
        clusters(position, other)
    };
    if offence {
        score += best_removal(position, other) * 3 / 4;
    }
    if clusters(position, side) {
        // Not yet punishable (`side` can break the group up), but it costs a step to do so.
        score -= 40;
    }
    if tuning.noise > 0 {
        let noise = mix(placement_key(position) ^ tuning.noise_seed) % tuning.noise;
        score += noise as i32;
    }
    score
}

/// Lower bounds on the steps a side needs to score: `within[i]` holds the squares from which the
/// ball can reach the attacked goal in `i` hops, counting shots, carries, the keeper's long shots
/// from its zone and ricochets off either keeper where they stand.
struct GoalBounds {
    side: Side,
    keepers: SquareSet,
    within: [SquareSet; MAX_STEPS + 1],
}

impl GoalBounds {
    fn new(position: &Position, side: Side) -> GoalBounds {
        let keepers = position.pieces_of_kind(Kind::Keeper);
        let zone = ZONE[side.index()];
        let mut within = [0; MAX_STEPS + 1];
        within[0] = GOAL[side.opponent().index()];
        for i in 1..=MAX_STEPS {
            let previous = within[i - 1];
            let mut set = previous
                | expand_king(previous)
                | expand_knight(previous)
                | (expand_straight(previous) & zone);
            for keeper in Squares(keepers) {
                let k = keeper.index();
                if STRAIGHT5[k] & !GOALS & previous != 0 {
                    set |= KING[k] | KNIGHT[k] | (STRAIGHT5[k] & zone);
                }
            }
            within[i] = set & ALL;
        }
        GoalBounds {
            side,
            keepers,
            within,
        }
    }

    /// Steps at least needed to score (more than `MAX_STEPS` means "not this turn").
    fn needed(&self, position: &Position) -> usize {
        let ball = position.ball().bit();
        let possess = usize::from(position.pieces_of(self.side) & ball == 0);
        let hops = self
            .within
            .iter()
            .position(|set| set & ball != 0)
            .unwrap_or(MAX_STEPS + 1);
        possess + hops
    }
}

/// The HanniBall engine: scratch buffers and tuning.
pub(crate) struct HanniBallEngine {
    tuning: Tuning,
    /// One step buffer per depth of the finder (a turn has at most four steps).
    buffers: Vec<Vec<Step>>,
    seen: KeySet,
    bounds: Option<GoalBounds>,
    finder_nodes: u32,
}

impl HanniBallEngine {
    pub(crate) fn new(tuning: Tuning) -> HanniBallEngine {
        HanniBallEngine {
            tuning,
            buffers: (0..=MAX_STEPS).map(|_| Vec::with_capacity(256)).collect(),
            seen: KeySet::default(),
            bounds: None,
            finder_nodes: 0,
        }
    }

    fn bounds_for(&mut self, position: &Position, side: Side) -> &GoalBounds {
        let keepers = position.pieces_of_kind(Kind::Keeper);
        let fresh = self
            .bounds
            .as_ref()
            .is_some_and(|bounds| bounds.side == side && bounds.keepers == keepers);
        if !fresh {
            self.bounds = Some(GoalBounds::new(position, side));
        }
        self.bounds.as_ref().expect("just filled")
    }

    /// A turn (or the rest of one) that scores for the side to move within its remaining steps,
    /// if the finder sees one within its node allowance. Exact when it does not run out: the
    /// pruning uses only lower bounds.
    pub(crate) fn find_goal(
        &mut self,
        position: &Position,
        budget: &mut Budget<'_>,
    ) -> Option<Turn> {
        if position.result().is_some() {
            return None;
        }
        let side = position.side_to_move();
        let remaining = usize::from(position.step_limit().saturating_sub(position.steps_taken()));
        if self.bounds_for(position, side).needed(position) > remaining {
            return None;
        }
        self.seen.clear();
        self.finder_nodes = 0;
        let mut path = Vec::with_capacity(MAX_STEPS);
        let found = self.goal_search(position, side, remaining, 0, &mut path);
        budget.spend(u64::from(self.finder_nodes));
        found.then_some(Turn(path))
    }

    fn goal_search(
        &mut self,
        position: &Position,
        side: Side,
        remaining: usize,
        depth: usize,
        path: &mut Vec<Step>,
    ) -> bool {
        let target = GOAL[side.opponent().index()];
        let mut steps = std::mem::take(&mut self.buffers[depth]);
        steps.clear();
        position.legal_steps_into(&mut steps);
        let mut found = false;
        // Direct shots and carries into the goal first: they end the search at once.
        for &step in &steps {
            if let Step::Shoot { to, .. } | Step::Carry { to, .. } = step
                && target & to.bit() != 0
            {
                path.push(step);
                found = true;
                break;
            }
        }
        if !found && remaining > 1 {
            let ball = position.ball();
            // Ball steps first: they are the ones that can shorten the way to the goal.
            let touches_ball = |step: &Step| match *step {
                Step::Move { from, to } | Step::Carry { from, to } => from == ball || to == ball,
                Step::Shoot { .. } | Step::Ricochet { .. } => true,
                Step::Remove(square) => square == ball,
            };
            let ordered = steps
                .iter()
                .filter(|step| touches_ball(step))
                .chain(steps.iter().filter(|step| !touches_ball(step)));
            for &step in ordered {
                if self.finder_nodes >= self.tuning.finder_nodes {
                    break;
                }
                let child = position.apply(step);
                if child.result_is_goal() {
                    // Only an own goal gets here: the scoring ones were taken above.
                    continue;
                }
                if self.bounds_for(&child, side).needed(&child) > remaining - 1 {
                    continue;
                }
                let key = mix(placement_key(&child) ^ remaining as u64);
                if !self.seen.insert(key) {
                    continue;
                }
                self.finder_nodes += 1;
                path.push(step);
                if self.goal_search(&child, side, remaining - 1, depth + 1, path) {
                    found = true;
                    break;
                }
                path.pop();
            }
        }
        self.buffers[depth] = steps;
        found
    }

    /// Whole turns for the side to move, built by a beam over steps: every placement reached
    /// (after 1 to 4 steps, each placement once, never the starting one) is a candidate turn end;
    /// the `beam` best by the heuristic are extended by another step. Returns the `width` best
    /// ends, played out with [`Position::play_turn`] so they are legal whole turns.
    fn beam_turns(
        &mut self,
        start: &Position,
        width: usize,
        budget: &mut Budget<'_>,
    ) -> Vec<Child<Turn, Position>> {
        #[derive(Clone, Copy)]
        struct Node {
            position: Position,
            steps: [Option<Step>; MAX_STEPS],
            len: usize,
            score: i32,
        }
        if start.result().is_some() {
            return Vec::new();
        }
        let me = start.side_to_move();
        let other = me.opponent();
        let remaining = usize::from(start.step_limit().saturating_sub(start.steps_taken()));
        let mut seen = KeySet::default();
        seen.insert(placement_key(start));
        let mut layer = vec![Node {
            position: *start,
            steps: [None; MAX_STEPS],
            len: 0,
            score: 0,
        }];
        let mut ends: Vec<Node> = Vec::new();
        let mut legal = Vec::with_capacity(256);
        for _ in 0..remaining {
            let mut next = Vec::new();
            for node in &layer {
                legal.clear();
                node.position.legal_steps_into(&mut legal);
                budget.spend(legal.len() as u64);
                for &step in &legal {
                    let child = node.position.apply(step);
                    if child.result_is_goal() {
                        if child.result().map(|result| result.outcome) != Some(Outcome::Win(me)) {
                            continue; // never an own goal
                        }
                    } else if !seen.insert(placement_key(&child)) {
                        continue;
                    }
                    let mut steps = node.steps;
                    steps[node.len] = Some(step);
                    let score = if child.result_is_goal() {
                        i32::MAX
                    } else {
                        -heuristic(&child, other, &self.tuning)
                    };
                    next.push(Node {
                        position: child,
                        steps,
                        len: node.len + 1,
                        score,
                    });
                }
            }
            // Stable: equal scores keep generation order, so results are deterministic.
            next.sort_by_key(|node| std::cmp::Reverse(node.score));
            let beam = self.tuning.beam;
            layer = next
                .iter()
                .take(beam)
                .filter(|node| !node.position.result_is_goal())
                .copied()
                .collect();
            ends.extend(next);
            if budget.stopped() && !ends.is_empty() {
                break;
            }
        }
        ends.sort_by_key(|node| std::cmp::Reverse(node.score));
        let mut children = Vec::with_capacity(width.min(ends.len()));
        for node in ends {
            if children.len() >= width {
                break;
            }
            let turn = Turn(node.steps[..node.len].iter().flatten().copied().collect());
            // A placement differing from the start's is a legal turn end (RULES 1.4); playing
            // the turn also hands the move to the opponent.
            match start.play_turn(&turn) {
                Ok(end) => children.push(Child { turn, end }),
                Err(error) => debug_assert!(false, "beam built an illegal turn {turn}: {error}"),
            }
        }
        children
    }
}

impl Engine for HanniBallEngine {
    type Pos = Position;
    type Turn = Turn;

    fn mover(&self, position: &Position) -> Side {
        position.side_to_move()
    }

    fn outcome(&mut self, position: &Position) -> Option<Outcome> {
        position.result().map(|result| result.outcome)
    }

    fn winning_turn(&mut self, position: &Position, budget: &mut Budget<'_>) -> Option<Turn> {
        self.find_goal(position, budget)
    }

    fn candidates(
        &mut self,
        position: &Position,
        width: usize,
        budget: &mut Budget<'_>,
    ) -> Vec<Child<Turn, Position>> {
        self.beam_turns(position, width, budget)
    }

    fn evaluate(&mut self, position: &Position) -> i32 {
        heuristic(position, position.side_to_move(), &self.tuning)
    }
}

/// A uniformly random legal turn (the rules crate's playout helper, fed by our generator).
pub(crate) fn random(position: &Position, rng: &mut Rng) -> Option<Turn> {
    random_turn(position, &mut |n| rng.below_by_multiply(n))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::NoDeadline;
    use hanniball_rules::hanniball::playout::goal_seeking_turn;

    /// Whether `side` can score within `remaining` steps, by trying every step sequence.
    fn brute_force(position: &Position, side: Side, remaining: usize) -> bool {
        if remaining == 0 {
            return false;
        }
        position.legal_steps().into_iter().any(|step| {
            let child = position.apply(step);
            if child.result_is_goal() {
                child.result().map(|result| result.outcome) == Some(Outcome::Win(side))
            } else {
                brute_force(&child, side, remaining - 1)
            }
        })
    }

    /// Positions late in goal-seeking random games (where goals are near), at turn start and after
    /// one or two steps of a turn.
    fn goal_rich_positions(count: u64) -> Vec<Position> {
        let mut positions = Vec::new();
        for seed in 0..count {
            let mut rng = Rng::new(seed);
            let mut history = vec![Position::initial(Ruleset::Standard)];
            let mut position = history[0];
            while let Some(turn) = goal_seeking_turn(&position, &mut |n| rng.below_by_multiply(n)) {
                position = position.play_turn(&turn).expect("legal");
                history.push(position);
            }
            // The last positions before the goal; the final one is over.
            for &start in history.iter().rev().skip(1).take(3) {
                let mut current = start;
                for _ in 0..3 {
                    if current.result().is_some() {
                        break;
                    }
                    positions.push(current);
                    let steps = current.legal_steps();
                    if steps.is_empty() {
                        break;
                    }
                    current = current.apply(steps[rng.below_by_multiply(steps.len())]);
                }
            }
        }
        positions
    }

    // RULES 1.7: the finder's pruning uses lower bounds only, so it finds a goal exactly when
    // one exists (checked exhaustively where the rest of the turn is at most two steps).
    #[test]
    fn goal_finder_agrees_with_brute_force() {
        let tuning = Tuning {
            finder_nodes: u32::MAX,
            ..Tuning::default()
        };
        let mut engine = HanniBallEngine::new(tuning);
        let mut deadline = NoDeadline;
        let mut budget = Budget::new(&mut deadline, u64::MAX);
        let (mut checked, mut goals) = (0, 0);
        for position in goal_rich_positions(200) {
            let remaining = usize::from(position.step_limit() - position.steps_taken());
            if remaining > 2 {
                continue;
            }
            let side = position.side_to_move();
            let found = engine.find_goal(&position, &mut budget);
            let exists = brute_force(&position, side, remaining);
            assert_eq!(found.is_some(), exists, "at {position}: found {found:?}");
            if let Some(turn) = found {
                let end = position.play_turn(&turn).expect("the goal turn is legal");
                assert_eq!(
                    end.result().map(|result| result.outcome),
                    Some(Outcome::Win(side))
                );
                goals += 1;
            }
            checked += 1;
        }
        assert!(
            checked > 300 && goals > 20,
            "{checked} positions, {goals} goals"
        );
    }

    #[test]
    fn goal_hops_count_from_the_attacked_goal() {
        let hops = goal_hops();
        let e13 = hanniball_rules::hanniball::Square::parse("e13").expect("square");
        let e3 = hanniball_rules::hanniball::Square::parse("e3").expect("square");
        // e13 is a knight's shot or a king's step or two from d15/f15/e15.
        assert_eq!(hops[Side::White.index()][e13.index()], 1);
        assert_eq!(hops[Side::Black.index()][e3.index()], 1);
        assert!(hops[Side::White.index()][e3.index()] >= 5);
    }
}
