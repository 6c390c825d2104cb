//! The position (board, ball, side, turn counters, ruleset) and everything the rules say about it:
//! legal steps, offences, applying steps and whole turns, and the end of the game.

use super::error::{IllegalStep, IllegalTurn, StepRefusal};
use super::piece::{Kind, Piece, Ruleset, Step, Turn};
use super::square::{
    ALL, GOAL, GOALS, KING, KNIGHT, ORTH, STRAIGHT5, Square, SquareSet, Squares, ZONE,
    knight_reach, leap,
};
use crate::game::{EndReason, GameResult, Outcome, Side};

/// Default turn limit (RULES 1.9: 300 turns in total, 150 each).
pub const DEFAULT_MAX_TURNS: u32 = 300;

/// The offences the opponent of the side to move has committed (RULES 1.8).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Offences {
    pub obstruction: bool,
    pub clustering: bool,
}

impl Offences {
    /// Whether a penalty removal is earned.
    #[must_use]
    pub const fn any(self) -> bool {
        self.obstruction || self.clustering
    }

    /// The offence names, in RULES 1.8 order (`obstruction`, then `clustering`).
    #[must_use]
    pub fn names(self) -> Vec<&'static str> {
        let mut names = Vec::new();
        if self.obstruction {
            names.push("obstruction");
        }
        if self.clustering {
            names.push("clustering");
        }
        names
    }
}

/// A HanniBall position: what RULES 1.11 writes, plus the turn limit of the game it belongs to.
///
/// Invariants, kept by every constructor and every step:
/// - `by_side[0] & by_side[1] == 0` and the union of `by_kind` equals the union of `by_side`;
///   every square set lies within the existing squares;
/// - at most one keeper per side, and it stands in its own zone (RULES 1.1, 1.7);
/// - the ball is on an existing square and is held by the piece there, if any (RULES 1.3);
/// - `steps_taken` is at most the current turn's step limit; `fullmove >= 1`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Position {
    pub(crate) by_side: [SquareSet; 2],
    pub(crate) by_kind: [SquareSet; 4],
    pub(crate) ball: Square,
    pub(crate) side: Side,
    pub(crate) fullmove: u32,
    pub(crate) steps_taken: u8,
    pub(crate) ruleset: Ruleset,
    /// Not part of the notation: the game's turn limit (RULES 1.9).
    pub(crate) max_turns: u32,
}

impl Position {
    /// The initial position of RULES 1.2 under `ruleset`, with the default turn limit.
    #[must_use]
    pub fn initial(ruleset: Ruleset) -> Position {
        let mut position = Position {
            by_side: [0; 2],
            by_kind: [0; 4],
            ball: sq(4, 7),
            side: Side::White,
            fullmove: 1,
            steps_taken: 0,
            ruleset,
            max_turns: DEFAULT_MAX_TURNS,
        };
        let white = [
            (Kind::Keeper, "e1"),
            (Kind::Lion, "c2"),
            (Kind::Lion, "g2"),
            (Kind::Elephant, "b3"),
            (Kind::Elephant, "d3"),
            (Kind::Elephant, "f3"),
            (Kind::Elephant, "h3"),
            (Kind::Horse, "b4"),
            (Kind::Horse, "d4"),
            (Kind::Horse, "f4"),
            (Kind::Horse, "h4"),
        ];
        for (kind, text) in white {
            let square = Square::parse(text).expect("initial squares exist");
            let mirror = Square::new(square.file(), 14 - square.rank()).expect("mirror exists");
            position.put(
                square,
                Piece {
                    side: Side::White,
                    kind,
                },
            );
            position.put(
                mirror,
                Piece {
                    side: Side::Black,
                    kind,
                },
            );
        }
        position
    }

    /// Puts a piece on an empty square. Used by constructors only.
    pub(crate) fn put(&mut self, square: Square, piece: Piece) {
        self.by_side[piece.side.index()] |= square.bit();
        self.by_kind[piece.kind.index()] |= square.bit();
    }

    /// The same position in a game with another turn limit.
    #[must_use]
    pub fn with_max_turns(mut self, max_turns: u32) -> Position {
        self.max_turns = max_turns;
        self
    }

    /// The piece on a square, if any.
    #[inline]
    #[must_use]
    pub fn piece_at(&self, square: Square) -> Option<Piece> {
        let bit = square.bit();
        let side = if self.by_side[0] & bit != 0 {
            Side::White
        } else if self.by_side[1] & bit != 0 {
            Side::Black
        } else {
            return None;
        };
        let kind = Kind::ALL
            .into_iter()
            .find(|kind| self.by_kind[kind.index()] & bit != 0)
            .expect("an occupied square has a kind");
        Some(Piece { side, kind })
    }

    /// The ball's square.
    #[must_use]
    pub const fn ball(&self) -> Square {
        self.ball
    }

    /// The piece holding the ball, if the ball is not loose.
    #[must_use]
    pub fn ball_holder(&self) -> Option<Piece> {
        self.piece_at(self.ball)
    }

    /// The side to move.
    #[must_use]
    pub const fn side_to_move(&self) -> Side {
        self.side
    }

    /// 1 for the first turns of both sides, +1 after each Black turn.
    #[must_use]
    pub const fn fullmove(&self) -> u32 {
        self.fullmove
    }

    /// Steps already made in the current turn.
    #[must_use]
    pub const fn steps_taken(&self) -> u8 {
        self.steps_taken
    }

    /// The ruleset in force.
    #[must_use]
    pub const fn ruleset(&self) -> Ruleset {
        self.ruleset
    }

    /// The game's turn limit.
    #[must_use]
    pub const fn max_turns(&self) -> u32 {
        self.max_turns
    }

    /// Squares of one side's pieces.
    #[must_use]
    pub const fn pieces_of(&self, side: Side) -> SquareSet {
        self.by_side[side.index()]
    }

    /// Squares of pieces of one kind, both sides.
    #[must_use]
    pub const fn pieces_of_kind(&self, kind: Kind) -> SquareSet {
        self.by_kind[kind.index()]
    }

    /// Whole turns completed so far.
    #[must_use]
    pub const fn turns_played(&self) -> u32 {
        2 * (self.fullmove - 1)
            + match self.side {
                Side::White => 0,
                Side::Black => 1,
            }
    }

    /// Steps allowed in the current turn: 2 on White's first turn, else 4 (RULES 1.4).
    #[must_use]
    pub const fn step_limit(&self) -> u8 {
        if matches!(self.side, Side::White) && self.fullmove == 1 {
            2
        } else {
            4
        }
    }

    /// Whether two positions have the same pieces on the same squares and the ball on the same
    /// square: the comparison of the must-change rule (RULES 1.4).
    #[must_use]
    pub fn same_placement(&self, other: &Position) -> bool {
        self.by_side == other.by_side && self.by_kind == other.by_kind && self.ball == other.ball
    }

    /// The result of a goal, if the ball is in a goal (RULES 1.7).
    fn goal_result(&self) -> Option<GameResult> {
        let ball = self.ball.bit();
        if ball & GOALS == 0 {
            return None;
        }
        // The ball in a side's own goal is a win for the other side, whoever sent it there.
        let winner = if ball & GOAL[Side::White.index()] != 0 {
            Side::Black
        } else {
            Side::White
        };
        let reason = if winner == self.side {
            EndReason::Goal
        } else {
            EndReason::OwnGoal
        };
        Some(GameResult {
            outcome: Outcome::Win(winner),
            reason,
        })
    }

    /// Whether the ball is in a goal, which ends the game at once (RULES 1.7).
    #[must_use]
    pub fn result_is_goal(&self) -> bool {
        self.ball.bit() & GOALS != 0
    }

    /// The result if the game is over (RULES 1.9): a goal, the turn limit, or no legal turn for the
    /// side to move at the start of its turn.
    #[must_use]
    pub fn result(&self) -> Option<GameResult> {
        if let Some(result) = self.goal_result() {
            return Some(result);
        }
        if self.turns_played() >= self.max_turns {
            return Some(GameResult {
                outcome: Outcome::Draw,
                reason: EndReason::MaxTurns,
            });
        }
        if self.steps_taken == 0 && !self.has_changing_step() {
            return Some(GameResult {
                outcome: Outcome::Win(self.side.opponent()),
                reason: EndReason::NoLegalTurn,
            });
        }
        None
    }

    /// The offences committed by the opponent of the side to move, on the board as written
    /// (RULES 1.8, the turn-start view).
    #[must_use]
    pub fn offences(&self) -> Offences {
        Offences {
            obstruction: self.obstruction(),
            clustering: self.ruleset == Ruleset::Standard && self.clustering(),
        }
    }

    /// RULES 1.8 obstruction: the side to move has a non-keeper piece, does not hold the ball, and
    /// none of its pieces can reach the ball. Each piece searches alone over its own pattern, its
    /// friends absent, opponent pieces walls (except the opponent ball holder, whose square is the
    /// goal of the search), leaps blocked only by two opponent pieces. Pieces of one kind share a
    /// pattern, so one flood from all of them answers for each of them.
    fn obstruction(&self) -> bool {
        let me = self.side.index();
        let own = self.by_side[me];
        let opp = self.by_side[1 - me];
        let ball = self.ball.bit();
        let keepers = self.by_kind[Kind::Keeper.index()];
        if own & ball != 0 || own & !keepers == 0 {
            return false;
        }
        let passable = ALL & !(opp & !ball);
        for kind in [Kind::Elephant, Kind::Lion, Kind::Horse, Kind::Keeper] {
            let start = own & self.by_kind[kind.index()];
            if start == 0 {
                continue;
            }
            let allowed = if kind == Kind::Keeper {
                passable & ZONE[me]
            } else {
                passable
            };
            if flood_reaches(start, kind, allowed, opp, ball) {
                return false;
            }
        }
        true
    }

    /// RULES 1.8 clustering: the opponent's pieces (keeper included) plus a loose ball form an
    /// orthogonally connected group of more than 3 squares.
    fn clustering(&self) -> bool {
        let opp = self.by_side[self.side.opponent().index()];
        let occupied = self.by_side[0] | self.by_side[1];
        let loose_ball = self.ball.bit() & !occupied;
        let group_squares = opp | loose_ball;
        let mut remaining = group_squares;
        while remaining != 0 {
            let seed = remaining & remaining.wrapping_neg();
            let mut group = seed;
            let mut frontier = seed;
            while frontier != 0 {
                let mut next = 0;
                for square in Squares(frontier) {
                    next |= ORTH[square.index()];
                }
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

    /// Squares a piece of `kind` on `from` may move to by its pattern alone (targets' contents not
    /// considered), with knight leaps blocked per the ruleset and a keeper kept to its zone.
    #[inline]
    fn move_pattern(&self, kind: Kind, from: Square) -> SquareSet {
        let i = from.index();
        let blockers = match self.ruleset {
            Ruleset::Standard => self.by_side[0] | self.by_side[1],
            Ruleset::Zillions2010 => self.by_side[self.side.opponent().index()],
        };
        match kind {
            Kind::Elephant => KING[i],
            Kind::Horse => knight_reach(from, blockers),
            Kind::Lion => KING[i] | knight_reach(from, blockers),
            Kind::Keeper => (KING[i] | knight_reach(from, blockers)) & ZONE[self.side.index()],
        }
    }

    /// Squares a ball holder of `kind` on `from` can shoot to (RULES 1.6).
    #[inline]
    fn shot_pattern(&self, kind: Kind, from: Square) -> SquareSet {
        let i = from.index();
        match kind {
            Kind::Elephant => KNIGHT[i],
            Kind::Horse => KING[i],
            Kind::Lion => KING[i] | KNIGHT[i],
            Kind::Keeper => STRAIGHT5[i] & !ZONE[self.side.index()],
        }
    }

    /// Appends every legal step of the side to move to `out` (RULES 1.5, 1.6, 1.8), ignoring the
    /// must-change rule as RULES 1.11 says. Nothing is appended when the game is over or the turn
    /// has all its steps.
    pub fn legal_steps_into(&self, out: &mut Vec<Step>) {
        if self.goal_result().is_some()
            || self.turns_played() >= self.max_turns
            || self.steps_taken >= self.step_limit()
        {
            return;
        }
        let start = out.len();
        self.generate(out);
        // RULES 1.9: with no turn that changes the position the side to move has already lost.
        if self.steps_taken == 0 && !out[start..].iter().any(|step| changes_placement(*step)) {
            out.truncate(start);
        }
    }

    /// Every legal step of the side to move (see [`Position::legal_steps_into`]).
    #[must_use]
    pub fn legal_steps(&self) -> Vec<Step> {
        let mut steps = Vec::with_capacity(128);
        self.legal_steps_into(&mut steps);
        steps
    }

    /// Whether some step at turn start changes the placement, i.e. a legal turn exists: the
    /// steps [`Position::generate`] would list, tried cheapest first and without listing them
    /// (the arbiter asks after every turn, and nearly always the first piece answers). The
    /// offence search, the dearest part, runs only when no piece has a step of its own.
    fn has_changing_step(&self) -> bool {
        let me = self.side.index();
        let own = self.by_side[me];
        let opp = self.by_side[1 - me];
        let empty = ALL & !(own | opp);
        let keepers = self.by_kind[Kind::Keeper.index()];
        let move_targets = empty | (opp & self.ball.bit());
        for kind in Kind::ALL {
            for from in Squares(own & self.by_kind[kind.index()]) {
                let pattern = self.move_pattern(kind, from);
                if from != self.ball {
                    if pattern & move_targets != 0 {
                        return true;
                    }
                    continue;
                }
                // A carry changes the placement, and so does a shot that is not a ricochet
                // back onto the shooter.
                if pattern & empty != 0 {
                    return true;
                }
                for to in Squares(self.shot_pattern(kind, from)) {
                    if keepers & to.bit() == 0 || ricochet_squares(to) & !from.bit() != 0 {
                        return true;
                    }
                }
            }
        }
        // Penalty removals, at turn start: every opponent piece but the keepers, when an offence
        // stands.
        self.steps_taken == 0 && opp & !keepers != 0 && self.offences().any()
    }

    /// The step generator proper: the position is known not to be over.
    fn generate(&self, out: &mut Vec<Step>) {
        let me = self.side.index();
        let own = self.by_side[me];
        let opp = self.by_side[1 - me];
        let occupied = own | opp;
        let empty = ALL & !occupied;
        let ball = self.ball.bit();
        let keepers = self.by_kind[Kind::Keeper.index()];

        if self.steps_taken == 0 && self.offences().any() {
            for square in Squares(opp & !keepers) {
                out.push(Step::Remove(square));
            }
        }

        // A loose ball's square is empty; an opponent holding the ball can be captured.
        let move_targets = empty | (opp & ball);
        for kind in Kind::ALL {
            for from in Squares(own & self.by_kind[kind.index()]) {
                let pattern = self.move_pattern(kind, from);
                if from != self.ball {
                    for to in Squares(pattern & move_targets) {
                        out.push(Step::Move { from, to });
                    }
                    continue;
                }
                for to in Squares(pattern & empty) {
                    out.push(Step::Carry { from, to });
                    if kind != Kind::Keeper {
                        out.push(Step::Move { from, to });
                    }
                }
                for to in Squares(self.shot_pattern(kind, from)) {
                    if keepers & to.bit() != 0 {
                        for landing in Squares(ricochet_squares(to)) {
                            out.push(Step::Ricochet {
                                from,
                                keeper: to,
                                to: landing,
                            });
                        }
                    } else {
                        out.push(Step::Shoot { from, to });
                    }
                }
            }
        }
    }

    /// Checks one step against the rules without generating the others; `Ok` exactly when the step
    /// is among [`Position::legal_steps`] (the property tests hold the two to each other).
    pub fn check_step(&self, step: Step) -> Result<(), StepRefusal> {
        if let Some(result) = self.result() {
            return Err(StepRefusal::GameOver(result));
        }
        if self.steps_taken >= self.step_limit() {
            return Err(StepRefusal::TurnFull {
                limit: self.step_limit(),
            });
        }
        let (from, kind) = match step {
            Step::Remove(square) => return self.check_removal(square),
            Step::Move { from, .. }
            | Step::Carry { from, .. }
            | Step::Shoot { from, .. }
            | Step::Ricochet { from, .. } => match self.piece_at(from) {
                None => return Err(StepRefusal::EmptySquare(from)),
                Some(piece) if piece.side != self.side => {
                    return Err(StepRefusal::NotYours {
                        square: from,
                        piece,
                    });
                }
                Some(piece) => (from, piece),
            },
        };
        let holds_ball = self.ball == from;
        match step {
            Step::Move { to, .. } => {
                if let Some(piece) = self.piece_at(to) {
                    let capture = piece.side != self.side && self.ball == to;
                    if !capture {
                        return Err(StepRefusal::Occupied { square: to, piece });
                    }
                }
                self.check_move_pattern(kind, from, to)?;
                if kind.kind == Kind::Keeper && holds_ball {
                    return Err(StepRefusal::KeeperLeavesBall);
                }
                Ok(())
            }
            Step::Carry { to, .. } => {
                if !holds_ball {
                    return Err(StepRefusal::NoBall(from));
                }
                if let Some(piece) = self.piece_at(to) {
                    return Err(StepRefusal::Occupied { square: to, piece });
                }
                self.check_move_pattern(kind, from, to)
            }
            Step::Shoot { to, .. } | Step::Ricochet { keeper: to, .. } => {
                if !holds_ball {
                    return Err(StepRefusal::NoBall(from));
                }
                if self.shot_pattern(kind.kind, from) & to.bit() == 0 {
                    return Err(
                        if kind.kind == Kind::Keeper && STRAIGHT5[from.index()] & to.bit() != 0 {
                            StepRefusal::KeeperShotInZone(to)
                        } else {
                            StepRefusal::OutOfPattern {
                                piece: kind,
                                from,
                                to,
                            }
                        },
                    );
                }
                let lands_on_keeper = self.by_kind[Kind::Keeper.index()] & to.bit() != 0;
                match step {
                    Step::Shoot { .. } if lands_on_keeper => Err(StepRefusal::MustRicochet(to)),
                    Step::Ricochet { .. } if !lands_on_keeper => Err(StepRefusal::NoKeeper(to)),
                    Step::Ricochet { to: landing, .. } => {
                        if STRAIGHT5[to.index()] & landing.bit() == 0 {
                            Err(StepRefusal::RicochetOutOfReach {
                                keeper: to,
                                to: landing,
                            })
                        } else if GOALS & landing.bit() != 0 {
                            Err(StepRefusal::RicochetIntoGoal(landing))
                        } else {
                            Ok(())
                        }
                    }
                    _ => Ok(()),
                }
            }
            Step::Remove(_) => unreachable!("removals were checked above"),
        }
    }

    fn check_move_pattern(
        &self,
        piece: Piece,
        from: Square,
        to: Square,
    ) -> Result<(), StepRefusal> {
        if self.move_pattern(piece.kind, from) & to.bit() != 0 {
            return Ok(());
        }
        let i = from.index();
        let unblocked = match piece.kind {
            Kind::Elephant => KING[i],
            Kind::Horse => KNIGHT[i],
            Kind::Lion | Kind::Keeper => KING[i] | KNIGHT[i],
        };
        if unblocked & to.bit() == 0 {
            return Err(StepRefusal::OutOfPattern { piece, from, to });
        }
        if piece.kind == Kind::Keeper && ZONE[self.side.index()] & to.bit() == 0 {
            return Err(StepRefusal::KeeperZone(to));
        }
        let intermediates = leap(from, to).map_or(0, |leap| leap.intermediates);
        let mut squares = Squares(intermediates);
        match (squares.next(), squares.next()) {
            (Some(a), Some(b)) => Err(StepRefusal::LeapBlocked { a, b }),
            _ => Err(StepRefusal::OutOfPattern { piece, from, to }),
        }
    }

    fn check_removal(&self, square: Square) -> Result<(), StepRefusal> {
        if self.steps_taken != 0 {
            return Err(StepRefusal::RemovalNotFirst);
        }
        match self.piece_at(square) {
            None => Err(StepRefusal::EmptySquare(square)),
            Some(piece) if piece.side == self.side => Err(StepRefusal::RemoveOwn { square, piece }),
            Some(piece) if piece.kind == Kind::Keeper => Err(StepRefusal::RemoveKeeper(square)),
            Some(_) if !self.offences().any() => Err(StepRefusal::NoOffence),
            Some(_) => Ok(()),
        }
    }

    /// Plays one step, or says why it is illegal (the position is not changed).
    pub fn play_step(&self, step: Step) -> Result<Position, IllegalStep> {
        self.check_step(step)
            .map_err(|reason| IllegalStep { step, reason })?;
        Ok(self.apply(step))
    }

    /// Applies a step known to be legal: either checked, or taken from [`Position::legal_steps`]
    /// of this very position. Applying anything else breaks the position's invariants.
    #[must_use]
    pub fn apply(&self, step: Step) -> Position {
        let mut next = *self;
        match step {
            Step::Move { from, to } => {
                if let Some(captured) = next.piece_at(to) {
                    next.lift(to, captured);
                }
                let piece = next.piece_at(from).expect("a legal move starts on a piece");
                next.lift(from, piece);
                next.put(to, piece);
            }
            Step::Carry { from, to } => {
                let piece = next
                    .piece_at(from)
                    .expect("a legal carry starts on a piece");
                next.lift(from, piece);
                next.put(to, piece);
                next.ball = to;
            }
            Step::Shoot { to, .. } | Step::Ricochet { to, .. } => next.ball = to,
            Step::Remove(square) => {
                let piece = next
                    .piece_at(square)
                    .expect("a legal removal names a piece");
                next.lift(square, piece);
            }
        }
        next.steps_taken += 1;
        next
    }

    fn lift(&mut self, square: Square, piece: Piece) {
        self.by_side[piece.side.index()] &= !square.bit();
        self.by_kind[piece.kind.index()] &= !square.bit();
    }

    /// Ends the current turn: the opponent moves next with no steps taken.
    fn end_turn(&mut self) {
        if self.side == Side::Black {
            self.fullmove += 1;
        }
        self.side = self.side.opponent();
        self.steps_taken = 0;
    }

    /// Plays a whole turn (RULES 1.4): 1 to the remaining number of steps, each legal where it is
    /// played, nothing after a goal, and a placement at the end that differs from the one at the
    /// start. Unless the game ended mid-turn, the opponent is then to move.
    pub fn play_turn(&self, turn: &Turn) -> Result<Position, IllegalTurn> {
        if turn.0.is_empty() {
            return Err(IllegalTurn::Empty);
        }
        // Too many steps, and steps after a goal, are refused by the step check with its reason.
        let mut position = *self;
        for &step in &turn.0 {
            position = position.play_step(step)?;
        }
        if position.goal_result().is_some() {
            return Ok(position);
        }
        if position.same_placement(self) {
            return Err(IllegalTurn::NoChange);
        }
        position.end_turn();
        Ok(position)
    }
}

/// Whether a step changes the placement: everything but a ricochet back onto the shooter.
pub(crate) const fn changes_placement(step: Step) -> bool {
    !matches!(step, Step::Ricochet { from, to, .. } if from.index() == to.index())
}

/// Where a ball ricocheting off a keeper on `keeper` may land: 1–5 squares straight, no goal square.
#[inline]
fn ricochet_squares(keeper: Square) -> SquareSet {
    STRAIGHT5[keeper.index()] & !GOALS
}

/// Whether a flood over `kind`'s move pattern from `start`, within `allowed`, with leaps blocked
/// by two `blockers`, reaches `target`.
fn flood_reaches(
    start: SquareSet,
    kind: Kind,
    allowed: SquareSet,
    blockers: SquareSet,
    target: SquareSet,
) -> bool {
    let mut reached = start;
    let mut frontier = start;
    while frontier != 0 {
        let mut next = 0;
        for square in Squares(frontier) {
            let i = square.index();
            next |= match kind {
                Kind::Elephant => KING[i],
                Kind::Horse => knight_reach(square, blockers),
                Kind::Lion | Kind::Keeper => KING[i] | knight_reach(square, blockers),
            };
        }
        next &= allowed & !reached;
        if next & target != 0 {
            return true;
        }
        reached |= next;
        frontier = next;
    }
    false
}

const fn sq(file: u8, rank: u8) -> Square {
    match Square::new(file, rank) {
        Some(square) => square,
        None => panic!("square exists"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::hanniball::playout::random_turn;

    /// The definition `has_changing_step` shortcuts: some listed step changes the placement.
    fn listed_changing_step(position: &Position) -> bool {
        let mut steps = Vec::new();
        position.generate(&mut steps);
        steps.iter().any(|step| changes_placement(*step))
    }

    /// Turn-start positions from random playouts under both rulesets, walled in by added opponent
    /// pieces and thinned (the mover's pieces taken off one at a time, down to none but the
    /// keeper), so that positions without a legal turn, with and without an offence to punish,
    /// come up too.
    #[test]
    fn the_quick_legal_turn_check_agrees_with_the_step_list() {
        let mut rng = hanniball_rng::Rng::new(2026);
        let (mut agreed, mut stuck, mut stuck_with_offence) = (0, 0, 0);
        for ruleset in [Ruleset::Standard, Ruleset::Zillions2010] {
            for _ in 0..30 {
                let mut position = Position::initial(ruleset);
                for _ in 0..60 {
                    if position.goal_result().is_some() {
                        break;
                    }
                    // Walls too: opponent elephants on random empty squares box pieces in.
                    let walls = [0, 20, 40, 60, 80][rng.usize(..5)];
                    let mut thinned = position;
                    for _ in 0..walls {
                        let empty: Vec<Square> =
                            Squares(ALL & !GOALS & !(thinned.by_side[0] | thinned.by_side[1]))
                                .collect();
                        let wall = empty[rng.usize(..empty.len())].bit();
                        thinned.by_side[1 - thinned.side.index()] |= wall;
                        thinned.by_kind[Kind::Elephant.index()] |= wall;
                    }
                    loop {
                        let expected = listed_changing_step(&thinned);
                        assert_eq!(
                            thinned.has_changing_step(),
                            expected,
                            "{}",
                            thinned.to_notation()
                        );
                        agreed += 1;
                        if !expected {
                            stuck += 1;
                            if thinned.offences().any() {
                                stuck_with_offence += 1;
                            }
                        }
                        let me = thinned.side.index();
                        let keepers = thinned.by_kind[Kind::Keeper.index()];
                        let pieces: Vec<Square> = Squares(thinned.by_side[me] & !keepers).collect();
                        if pieces.is_empty() {
                            break;
                        }
                        let gone = pieces[rng.usize(..pieces.len())].bit();
                        thinned.by_side[me] &= !gone;
                        for kind in &mut thinned.by_kind {
                            *kind &= !gone;
                        }
                    }
                    let Some(turn) = random_turn(&position, &mut |n| rng.usize(..n)) else {
                        break;
                    };
                    position = position.play_turn(&turn).expect("a random turn is legal");
                }
            }
        }
        assert!(agreed > 10_000, "only {agreed} positions compared");
        assert!(stuck > 0, "no position without a legal turn came up");
        assert!(
            stuck_with_offence < stuck,
            "every stuck position had an offence: the offence branch alone was tested"
        );
    }
}
