//! One game's life, as the arbiter runs it: who may act, turn numbers and idempotent retries,
//! Fischer clocks, draw offers, resignation, abort, loss on time, and the final result.
//!
//! Pure: no IO, no async, no clock. Time arrives as a [`Timestamp`] argument, so replaying a stored
//! game with its stored timestamps reproduces its stored result.
//!
//! Every action is planned first and applied second: `plan_*` methods read the match and return a
//! [`Transition`] (or an error, leaving the match untouched); the service stores the transition and
//! only then calls [`Match::apply`]. That is how "a turn is acknowledged only after its commit" is
//! kept without the rules knowing about databases.

use hanniball_rules::{
    EndReason, Game, GameKind, GameOptions, GameResult, Outcome, SetupError, Side, TurnError,
};

pub use hanniball_ids::{GameId, PlayerId, TimeControl, Timestamp, counts_as_played};

/// Remaining time per side as of `since`; the `running` side's clock runs from `since` on.
/// Untimed games keep zeros and never run a clock.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Clocks {
    pub white_ms: i64,
    pub black_ms: i64,
    pub running: Option<Side>,
    pub since: Timestamp,
}

impl Clocks {
    /// Remaining time of `side` as stored (not counting the running period).
    #[must_use]
    pub const fn stored(&self, side: Side) -> i64 {
        match side {
            Side::White => self.white_ms,
            Side::Black => self.black_ms,
        }
    }

    fn set(&mut self, side: Side, ms: i64) {
        match side {
            Side::White => self.white_ms = ms,
            Side::Black => self.black_ms = ms,
        }
    }

    /// Remaining time of `side` at `now`, the running period deducted (never below zero).
    #[must_use]
    pub fn remaining(&self, side: Side, now: Timestamp) -> i64 {
        let stored = self.stored(side);
        if self.running == Some(side) {
            (stored - (now.0 - self.since.0).max(0)).max(0)
        } else {
            stored
        }
    }

    /// The moment the running clock reaches zero.
    #[must_use]
    pub fn deadline(&self) -> Option<Timestamp> {
        self.running
            .map(|side| Timestamp(self.since.0 + self.stored(side)))
    }
}

/// Where a game stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Status {
    Active,
    Finished,
    Aborted,
}

impl Status {
    /// Stable lowercase name (stored in the database).
    #[must_use]
    pub const fn name(self) -> &'static str {
        match self {
            Status::Active => "active",
            Status::Finished => "finished",
            Status::Aborted => "aborted",
        }
    }

    /// The status with this name.
    #[must_use]
    pub fn from_name(name: &str) -> Option<Status> {
        [Status::Active, Status::Finished, Status::Aborted]
            .into_iter()
            .find(|status| status.name() == name)
    }
}

/// Why a game ended: the rules' reasons plus the platform's.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Reason {
    Rules(EndReason),
    Resignation,
    Time,
    Agreement,
    Aborted,
    /// The organiser (the admin) decided the result of a game that was on: a played game, rated
    /// like any other if both sides made a turn.
    Adjudication,
    /// The organiser decided that the game was not played: the winner (or neither side) scores
    /// by forfeit. Never rated.
    Forfeit,
    /// The result of a game played on a physical board, as the organiser reported it: a played
    /// game (rated when the game is), whatever the turns stored on the server.
    OverTheBoard,
}

impl Reason {
    /// Stable lowercase name (stored in the database).
    #[must_use]
    pub const fn name(self) -> &'static str {
        match self {
            Reason::Rules(reason) => reason.name(),
            Reason::Resignation => "resignation",
            Reason::Time => "time",
            Reason::Agreement => "agreement",
            Reason::Aborted => "aborted",
            Reason::Adjudication => "adjudication",
            Reason::Forfeit => "forfeit",
            Reason::OverTheBoard => "over-the-board",
        }
    }

    /// The reason with this name.
    #[must_use]
    pub fn from_name(name: &str) -> Option<Reason> {
        let rules = [
            EndReason::Goal,
            EndReason::OwnGoal,
            EndReason::NoLegalTurn,
            EndReason::MaxTurns,
            EndReason::DeadEnd,
        ];
        rules
            .into_iter()
            .map(Reason::Rules)
            .chain([
                Reason::Resignation,
                Reason::Time,
                Reason::Agreement,
                Reason::Aborted,
                Reason::Adjudication,
                Reason::Forfeit,
                Reason::OverTheBoard,
            ])
            .find(|reason| reason.name() == name)
    }
}

/// A finished (or aborted) game's result. `outcome` is `None` only for games that count for
/// nothing: aborted, or a forfeit by both sides.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct FinalResult {
    pub outcome: Option<Outcome>,
    pub reason: Reason,
}

impl FinalResult {
    /// `1-0 goal`, `0-1 time`, `1/2-1/2 agreement`, `aborted`.
    #[must_use]
    pub fn summary(&self) -> String {
        match self.outcome {
            Some(outcome) => format!("{} {}", outcome.score(), self.reason.name()),
            None => self.reason.name().to_owned(),
        }
    }

    /// The status a game ends in with this result.
    #[must_use]
    pub fn status(&self) -> Status {
        if self.outcome.is_none() {
            Status::Aborted
        } else {
            Status::Finished
        }
    }

    /// Whether the game counts as played after `turns_played` turns ([`counts_as_played`]).
    #[must_use]
    pub fn played(&self, turns_played: u32) -> bool {
        self.outcome.is_some()
            && counts_as_played(
                turns_played,
                self.reason == Reason::Forfeit,
                self.reason == Reason::OverTheBoard,
            )
    }

    /// The organiser's decision on a game: `outcome` with `forfeit` false is an adjudication (a
    /// winner or a draw); with `forfeit` true the game was not played (a winner by forfeit, or
    /// `None`: neither side).
    pub fn decided(outcome: Option<Outcome>, forfeit: bool) -> Result<FinalResult, ActionError> {
        match (outcome, forfeit) {
            (None, false) => Err(ActionError::Malformed(
                "an adjudication names a winner or a draw (a game that counts for nothing is \
                 aborted, or forfeited by both sides)"
                    .to_owned(),
            )),
            (Some(Outcome::Draw), true) => Err(ActionError::Malformed(
                "a forfeit has one winner, or none (forfeited by both sides); a draw is an \
                 adjudication"
                    .to_owned(),
            )),
            (outcome, true) => Ok(FinalResult {
                outcome,
                reason: Reason::Forfeit,
            }),
            (outcome, false) => Ok(FinalResult {
                outcome,
                reason: Reason::Adjudication,
            }),
        }
    }

    fn from_rules(result: GameResult) -> Self {
        FinalResult {
            outcome: Some(result.outcome),
            reason: Reason::Rules(result.reason),
        }
    }
}

/// Everything a game is created with.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Setup {
    pub kind: GameKind,
    pub options: GameOptions,
    pub white: PlayerId,
    pub black: PlayerId,
    pub time_control: Option<TimeControl>,
    pub rated: bool,
    pub tag: String,
    /// Played on a physical board: no clock runs and no player acts here; the organiser's
    /// result is a played game ([`Reason::OverTheBoard`]).
    pub over_the_board: bool,
}

impl Setup {
    /// The turn limit in force: the one asked for, else the game's default; 0 for none.
    #[must_use]
    pub fn max_turns(&self) -> u32 {
        self.options
            .max_turns
            .or(self.kind.default_max_turns())
            .unwrap_or(0)
    }
}

/// One accepted turn, as stored in the append-only log.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TurnRecord {
    /// 1 for the game's first turn.
    pub number: u32,
    pub side: Side,
    pub text: String,
    pub position_after: String,
    /// Remaining times after the turn (increment added).
    pub white_ms: i64,
    pub black_ms: i64,
    pub played_at: Timestamp,
    pub spent_ms: i64,
    /// The clock that runs after the turn: the opponent's in a timed game that goes on; none in
    /// an untimed game or once the turn ended the game (as the match's own clocks then say). Not
    /// a stored column: the store derives it on loading (the turn passes to the opponent in both
    /// games, and only a turn ends a game by the rules).
    pub running: Option<Side>,
}

/// Who asks for an action.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Actor {
    Admin,
    Player(PlayerId),
}

/// What happened, for watchers.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Event {
    TurnPlayed(TurnRecord),
    DrawOffered(Side),
    DrawDeclined(Side),
    GameOver(FinalResult),
}

/// A planned change to a match: stored first, then applied.
#[derive(Debug)]
pub struct Transition {
    /// The turn played, if this is a turn.
    pub record: Option<TurnRecord>,
    /// The rules state after a turn.
    pub game: Option<Box<dyn Game>>,
    pub clocks: Clocks,
    pub draw_offer: Option<Side>,
    /// Set when this transition ends the game.
    pub result: Option<FinalResult>,
    pub at: Timestamp,
    /// What watchers are told, in order.
    pub events: Vec<Event>,
}

impl Transition {
    /// The position it leaves in RULES.md notation, when it changes the position (a turn's record
    /// already holds it).
    #[must_use]
    pub fn position_after(&self) -> Option<String> {
        match (&self.record, &self.game) {
            (Some(record), _) => Some(record.position_after.clone()),
            (None, Some(game)) => Some(game.position()),
            (None, None) => None,
        }
    }
}

/// Why an action was refused. The match is unchanged.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ActionError {
    #[error("player {0} does not play in this game")]
    NotAPlayer(PlayerId),
    #[error("it is {side_to_move}'s turn, not yours")]
    NotYourTurn { side_to_move: Side },
    #[error(
        "turn {given} is stale: turn {given} was already played differently (next turn is {expected})"
    )]
    StaleTurn { given: u32, expected: u32 },
    #[error("turn {given} is not due yet: the next turn is {expected}")]
    FutureTurn { given: u32, expected: u32 },
    #[error("the game is over ({0})")]
    GameOver(String),
    #[error("malformed turn: {0}")]
    Malformed(String),
    #[error("illegal turn: {0}")]
    Illegal(String),
    #[error("there is no draw offer from your opponent to answer")]
    NoDrawOffer,
    #[error("you already offered a draw")]
    DrawAlreadyOffered,
    #[error("a game can be aborted only before both sides have moved ({0} turns played)")]
    TooLateToAbort(u32),
    #[error("only the admin may do this")]
    AdminOnly,
    #[error("only the organiser (the admin) decides a game's result")]
    OrganiserOnly,
    #[error(
        "the game is played over the board: nobody plays it here, and the organiser enters its \
         result"
    )]
    OverTheBoard,
    #[error("the game is still on: end it with its result (an adjudication), not a correction")]
    NotOverYet,
}

/// The outcome of a turn submission that needs no change: a retry of an accepted turn.
#[derive(Debug)]
pub enum TurnPlan {
    /// A new turn: store the transition, then apply it.
    New(Transition),
    /// The same turn was already accepted: answer with its record, change nothing.
    Replay(TurnRecord),
}

/// One game in progress or finished. A clone copies the turn log (a dry run applies a planned
/// transition to a clone to show the state it would leave).
#[derive(Clone, Debug)]
pub struct Match {
    pub id: GameId,
    pub setup: Setup,
    game: Box<dyn Game>,
    /// The current position in RULES.md notation (kept with `game`: it is read on every change).
    position: String,
    turns: Vec<TurnRecord>,
    clocks: Clocks,
    status: Status,
    result: Option<FinalResult>,
    draw_offer: Option<Side>,
    pub created_at: Timestamp,
    finished_at: Option<Timestamp>,
    /// How often the result was corrected ([`Match::apply_correction`]).
    pub corrections: u32,
}

/// A stored game's state, to rebuild a [`Match`] after a restart.
#[derive(Clone, Debug)]
pub struct Stored {
    pub id: GameId,
    pub setup: Setup,
    pub turns: Vec<TurnRecord>,
    pub clocks: Clocks,
    pub status: Status,
    pub result: Option<FinalResult>,
    pub draw_offer: Option<Side>,
    pub created_at: Timestamp,
    pub finished_at: Option<Timestamp>,
    pub corrections: u32,
}

/// Why a stored game could not be rebuilt.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum RestoreError {
    #[error(transparent)]
    Setup(#[from] SetupError),
    #[error("stored turn {number} ({text:?}) does not replay: {reason}")]
    Replay {
        number: u32,
        text: String,
        reason: String,
    },
    #[error("stored turn {number} replays to {actual:?}, but {stored:?} was stored")]
    Diverged {
        number: u32,
        stored: String,
        actual: String,
    },
}

/// Plays stored turns on `game`, checking each stored position.
fn replay(mut game: Box<dyn Game>, records: &[TurnRecord]) -> Result<Box<dyn Game>, RestoreError> {
    for record in records {
        game = game
            .play_turn(&record.text)
            .map_err(|error| RestoreError::Replay {
                number: record.number,
                text: record.text.clone(),
                reason: error.to_string(),
            })?;
        if game.position() != record.position_after {
            return Err(RestoreError::Diverged {
                number: record.number,
                stored: record.position_after.clone(),
                actual: game.position(),
            });
        }
    }
    Ok(game)
}

impl Match {
    /// A new game at its initial position; a timed game's clock starts for White at `now`.
    pub fn new(id: GameId, setup: Setup, now: Timestamp) -> Result<Match, SetupError> {
        let game = setup.kind.new_game(&setup.options)?;
        let clocks = match setup.time_control {
            // Over the board the clocks are on the table, not here.
            Some(tc) if setup.over_the_board => Clocks {
                white_ms: tc.initial_ms,
                black_ms: tc.initial_ms,
                running: None,
                since: now,
            },
            Some(tc) => Clocks {
                white_ms: tc.initial_ms,
                black_ms: tc.initial_ms,
                running: Some(game.side_to_move()),
                since: now,
            },
            None => Clocks {
                white_ms: 0,
                black_ms: 0,
                running: None,
                since: now,
            },
        };
        let mut m = Match {
            id,
            setup,
            position: game.position(),
            game,
            turns: Vec::new(),
            clocks,
            status: Status::Active,
            result: None,
            draw_offer: None,
            created_at: now,
            finished_at: None,
            corrections: 0,
        };
        // A game can in principle be over at its start (never for the initial positions we have).
        if let Some(result) = m.game.result() {
            m.finish(FinalResult::from_rules(result), now);
        }
        Ok(m)
    }

    /// Rebuilds a stored game by replaying its turns through the rules, checking every stored
    /// position. The clocks are exactly as stored: the running one has run since the stored
    /// moment, wherever and whenever the game is loaded (another replica may hold it too; see
    /// ARCHITECTURE.md).
    pub fn restore(stored: Stored) -> Result<Match, RestoreError> {
        let game = replay(
            stored.setup.kind.new_game(&stored.setup.options)?,
            &stored.turns,
        )?;
        let clocks = stored.clocks;
        Ok(Match {
            id: stored.id,
            setup: stored.setup,
            position: game.position(),
            game,
            turns: stored.turns,
            clocks,
            status: stored.status,
            result: stored.result,
            draw_offer: stored.draw_offer,
            created_at: stored.created_at,
            finished_at: stored.finished_at,
            corrections: stored.corrections,
        })
    }

    /// Brings this copy up to a newer stored state whose `turns` are only those after this
    /// copy's (what [`Match::restore`] of the whole log would give, replaying only the new turns):
    /// the new turns are played and checked, the clocks, status, result and draw offer are taken
    /// as stored. On an error (a tail that does not follow this copy, a turn that does not
    /// replay) the copy is unchanged.
    ///
    /// # Errors
    /// [`RestoreError::Replay`] or [`RestoreError::Diverged`] for the first new turn that does not
    /// replay to its stored position, or that is not numbered next.
    pub fn catch_up(&mut self, newer: Stored) -> Result<(), RestoreError> {
        for (i, record) in newer.turns.iter().enumerate() {
            let expected = self.turns.len() as u32 + 1 + i as u32;
            if record.number != expected {
                return Err(RestoreError::Replay {
                    number: record.number,
                    text: record.text.clone(),
                    reason: format!("turn {expected} was expected next"),
                });
            }
        }
        let game = replay(self.game.clone_box(), &newer.turns)?;
        if !newer.turns.is_empty() {
            self.position = game.position();
            self.game = game;
            self.turns.extend(newer.turns);
        }
        self.clocks = newer.clocks;
        self.status = newer.status;
        self.result = newer.result;
        self.draw_offer = newer.draw_offer;
        self.finished_at = newer.finished_at;
        self.corrections = newer.corrections;
        Ok(())
    }

    /// The rules state.
    #[must_use]
    pub fn game(&self) -> &dyn Game {
        self.game.as_ref()
    }

    /// The current position in RULES.md notation.
    #[must_use]
    pub fn position(&self) -> &str {
        &self.position
    }

    /// Every accepted turn.
    #[must_use]
    pub fn turns(&self) -> &[TurnRecord] {
        &self.turns
    }

    #[must_use]
    pub const fn clocks(&self) -> &Clocks {
        &self.clocks
    }

    #[must_use]
    pub const fn status(&self) -> Status {
        self.status
    }

    #[must_use]
    pub const fn result(&self) -> Option<FinalResult> {
        self.result
    }

    #[must_use]
    pub const fn draw_offer(&self) -> Option<Side> {
        self.draw_offer
    }

    #[must_use]
    pub const fn finished_at(&self) -> Option<Timestamp> {
        self.finished_at
    }

    /// The number the next turn must carry.
    #[must_use]
    pub fn next_turn_number(&self) -> u32 {
        self.turns.len() as u32 + 1
    }

    /// The side a player plays, if any.
    #[must_use]
    pub fn side_of(&self, player: PlayerId) -> Option<Side> {
        if self.setup.white == player {
            Some(Side::White)
        } else if self.setup.black == player {
            Some(Side::Black)
        } else {
            None
        }
    }

    /// The player of a side.
    #[must_use]
    pub const fn player(&self, side: Side) -> PlayerId {
        match side {
            Side::White => self.setup.white,
            Side::Black => self.setup.black,
        }
    }

    /// When the running clock falls, if a clock runs.
    #[must_use]
    pub fn deadline(&self) -> Option<Timestamp> {
        if self.status == Status::Active {
            self.clocks.deadline()
        } else {
            None
        }
    }

    fn ensure_active(&self) -> Result<(), ActionError> {
        match (self.status, self.result) {
            (Status::Active, _) => Ok(()),
            (_, Some(result)) => Err(ActionError::GameOver(result.summary())),
            (status, None) => Err(ActionError::GameOver(status.name().to_owned())),
        }
    }

    fn side_for(&self, actor: Actor) -> Result<Side, ActionError> {
        if self.setup.over_the_board && matches!(actor, Actor::Player(_)) {
            return Err(ActionError::OverTheBoard);
        }
        match actor {
            Actor::Player(player) => self.side_of(player).ok_or(ActionError::NotAPlayer(player)),
            Actor::Admin => Err(ActionError::AdminOnly),
        }
    }

    fn transition(&self, at: Timestamp) -> Transition {
        Transition {
            record: None,
            game: None,
            clocks: self.clocks,
            draw_offer: self.draw_offer,
            result: None,
            at,
            events: Vec::new(),
        }
    }

    fn ending(&self, mut t: Transition, result: FinalResult) -> Transition {
        if let Some(side) = t.clocks.running {
            let left = t.clocks.remaining(side, t.at);
            t.clocks.set(side, left);
            t.clocks.running = None;
        }
        t.clocks.since = t.at;
        t.draw_offer = None;
        t.result = Some(result);
        t.events.push(Event::GameOver(result));
        t
    }

    /// Loss on time: `Some` when the side to move's clock has run out at `now`. The game ends
    /// at the moment the flag fell (the deadline), however late this is planned (a server that
    /// was down, a database that was unreachable): the result's time and the clocks say when.
    #[must_use]
    pub fn plan_time_out(&self, now: Timestamp) -> Option<Transition> {
        if self.status != Status::Active {
            return None;
        }
        let side = self.clocks.running?;
        if self.clocks.remaining(side, now) > 0 {
            return None;
        }
        let result = FinalResult {
            outcome: Some(Outcome::Win(side.opponent())),
            reason: Reason::Time,
        };
        let fell = self
            .clocks
            .deadline()
            .map_or(now, |deadline| deadline.max(self.clocks.since).min(now));
        Some(self.ending(self.transition(fell), result))
    }

    /// A turn by `actor` meant to be turn number `number`. A retry of an accepted turn (same number,
    /// same side, same text) is a [`TurnPlan::Replay`].
    pub fn plan_turn(
        &self,
        actor: Actor,
        number: u32,
        text: &str,
        now: Timestamp,
    ) -> Result<TurnPlan, ActionError> {
        let side = self.side_for(actor)?;
        let expected = self.next_turn_number();
        if number == 0 {
            return Err(ActionError::Malformed(
                "turn numbers start at 1 (turn_number 0 is not a turn)".to_owned(),
            ));
        }
        if number < expected {
            // (`number - 1 < turns.len()` here, but a request must never be able to panic.)
            if let Some(record) = self.turns.get(number as usize - 1)
                && record.side == side
                && record.text == text
            {
                return Ok(TurnPlan::Replay(record.clone()));
            }
            return Err(ActionError::StaleTurn {
                given: number,
                expected,
            });
        }
        self.ensure_active()?;
        if number > expected {
            return Err(ActionError::FutureTurn {
                given: number,
                expected,
            });
        }
        let side_to_move = self.game.side_to_move();
        if side != side_to_move {
            return Err(ActionError::NotYourTurn { side_to_move });
        }
        let game = self.game.play_turn(text).map_err(|error| match error {
            TurnError::Malformed(reason) => ActionError::Malformed(reason),
            TurnError::Illegal(reason) => ActionError::Illegal(reason),
        })?;

        let mut t = self.transition(now);
        let spent = (now.0 - self.clocks.since.0).max(0);
        if let (Some(tc), Some(running)) = (self.setup.time_control, self.clocks.running) {
            let left = self.clocks.stored(running) - spent;
            t.clocks.set(running, left + tc.increment_ms);
            t.clocks.running = Some(game.side_to_move());
        }
        t.clocks.since = now;
        // A standing offer from the side that just moved stays; an offer to it lapses (declined by
        // playing on).
        if t.draw_offer == Some(side.opponent()) {
            t.draw_offer = None;
        }
        let result = game.result();
        let record = TurnRecord {
            number,
            side,
            text: text.to_owned(),
            position_after: game.position(),
            white_ms: t.clocks.white_ms,
            black_ms: t.clocks.black_ms,
            played_at: now,
            spent_ms: spent,
            // A turn that ends the game stops the clocks (`ending` below).
            running: if result.is_some() {
                None
            } else {
                t.clocks.running
            },
        };
        t.events.push(Event::TurnPlayed(record.clone()));
        t.record = Some(record);
        t.game = Some(game);
        if let Some(result) = result {
            t = self.ending(t, FinalResult::from_rules(result));
        }
        Ok(TurnPlan::New(t))
    }

    /// Resignation by a player of the game, at any time while it is on.
    pub fn plan_resign(&self, actor: Actor, now: Timestamp) -> Result<Transition, ActionError> {
        let side = self.side_for(actor)?;
        self.ensure_active()?;
        let result = FinalResult {
            outcome: Some(Outcome::Win(side.opponent())),
            reason: Reason::Resignation,
        };
        Ok(self.ending(self.transition(now), result))
    }

    /// A draw offer; it stands until answered or until the opponent plays a turn.
    pub fn plan_offer_draw(&self, actor: Actor, now: Timestamp) -> Result<Transition, ActionError> {
        let side = self.side_for(actor)?;
        self.ensure_active()?;
        match self.draw_offer {
            Some(by) if by == side => return Err(ActionError::DrawAlreadyOffered),
            // Offering while the opponent's offer stands is agreeing.
            Some(_) => return self.plan_accept_draw(actor, now),
            None => {}
        }
        let mut t = self.transition(now);
        t.draw_offer = Some(side);
        t.events.push(Event::DrawOffered(side));
        Ok(t)
    }

    /// Accepting the opponent's standing offer draws the game.
    pub fn plan_accept_draw(
        &self,
        actor: Actor,
        now: Timestamp,
    ) -> Result<Transition, ActionError> {
        let side = self.side_for(actor)?;
        self.ensure_active()?;
        if self.draw_offer != Some(side.opponent()) {
            return Err(ActionError::NoDrawOffer);
        }
        let result = FinalResult {
            outcome: Some(Outcome::Draw),
            reason: Reason::Agreement,
        };
        Ok(self.ending(self.transition(now), result))
    }

    /// Declining the opponent's standing offer.
    pub fn plan_decline_draw(
        &self,
        actor: Actor,
        now: Timestamp,
    ) -> Result<Transition, ActionError> {
        let side = self.side_for(actor)?;
        self.ensure_active()?;
        if self.draw_offer != Some(side.opponent()) {
            return Err(ActionError::NoDrawOffer);
        }
        let mut t = self.transition(now);
        t.draw_offer = None;
        t.events.push(Event::DrawDeclined(side));
        Ok(t)
    }

    /// Abort: by a player before both sides have moved, by the admin at any time while it is on.
    pub fn plan_abort(&self, actor: Actor, now: Timestamp) -> Result<Transition, ActionError> {
        if let Actor::Player(player) = actor {
            if self.setup.over_the_board {
                return Err(ActionError::OverTheBoard);
            }
            self.side_of(player)
                .ok_or(ActionError::NotAPlayer(player))?;
        }
        self.ensure_active()?;
        let played = self.turns.len() as u32;
        if matches!(actor, Actor::Player(_)) && played >= 2 {
            return Err(ActionError::TooLateToAbort(played));
        }
        let result = FinalResult {
            outcome: None,
            reason: Reason::Aborted,
        };
        Ok(self.ending(self.transition(now), result))
    }

    /// The organiser's decision ([`FinalResult::decided`]) ends a game that is on: the clocks
    /// stop and the result goes out like any other. Admin only.
    pub fn plan_adjudicate(
        &self,
        actor: Actor,
        result: FinalResult,
        now: Timestamp,
    ) -> Result<Transition, ActionError> {
        if actor != Actor::Admin {
            return Err(ActionError::OrganiserOnly);
        }
        if !matches!(result.reason, Reason::Adjudication | Reason::Forfeit) {
            return Err(ActionError::Malformed(format!(
                "an organiser's result is an adjudication or a forfeit, not {}",
                result.reason.name()
            )));
        }
        self.ensure_active()?;
        Ok(self.ending(self.transition(now), self.reported(result)))
    }

    /// The organiser's result as this game records it: over the board an adjudication is the
    /// played game's result ([`Reason::OverTheBoard`]).
    #[must_use]
    pub fn reported(&self, result: FinalResult) -> FinalResult {
        if self.setup.over_the_board && result.reason == Reason::Adjudication {
            FinalResult {
                reason: Reason::OverTheBoard,
                ..result
            }
        } else {
            result
        }
    }

    /// The organiser's correction of a game that is over ([`FinalResult::decided`]): the result
    /// it will have. `None` when it has that result already (nothing to do). Admin only.
    pub fn plan_correction(
        &self,
        actor: Actor,
        result: FinalResult,
    ) -> Result<Option<FinalResult>, ActionError> {
        if actor != Actor::Admin {
            return Err(ActionError::OrganiserOnly);
        }
        if !matches!(result.reason, Reason::Adjudication | Reason::Forfeit) {
            return Err(ActionError::Malformed(format!(
                "a correction is an adjudication or a forfeit, not {}",
                result.reason.name()
            )));
        }
        if self.status == Status::Active {
            return Err(ActionError::NotOverYet);
        }
        Ok(self.corrected_as(self.reported(result)))
    }

    /// `Some(result)` unless the game's result is already the same in what it counts: the same
    /// outcome, forfeit or not (a played game's own reason stands for "played").
    fn corrected_as(&self, result: FinalResult) -> Option<FinalResult> {
        let forfeit = |r: FinalResult| matches!(r.reason, Reason::Forfeit | Reason::Aborted);
        match self.result {
            Some(current)
                if current.outcome == result.outcome && forfeit(current) == forfeit(result) =>
            {
                None
            }
            _ => Some(result),
        }
    }

    /// Applies a stored correction ([`Match::plan_correction`]): the result and status change,
    /// the game's end time stays.
    pub fn apply_correction(&mut self, result: FinalResult) {
        self.status = result.status();
        self.result = Some(result);
        self.clocks.running = None;
        self.corrections += 1;
    }

    /// Applies a stored transition.
    pub fn apply(&mut self, t: Transition) {
        if let Some(position) = t.position_after() {
            self.position = position;
        }
        if let Some(game) = t.game {
            self.game = game;
        }
        if let Some(record) = t.record {
            self.turns.push(record);
        }
        self.clocks = t.clocks;
        self.draw_offer = t.draw_offer;
        if let Some(result) = t.result {
            self.finish(result, t.at);
        }
    }

    fn finish(&mut self, result: FinalResult, at: Timestamp) {
        self.status = result.status();
        self.result = Some(result);
        self.clocks.running = None;
        self.draw_offer = None;
        self.finished_at = Some(at);
    }
}

#[cfg(test)]
mod tests;
