//! The scheduler's domain as typed values: tournaments and their settings, entrants, bye
//! requests, boards, result corrections, the queue and its matches. The store alone reads and
//! writes their rows (`store/convert.rs`); requests become these values at the gRPC edge
//! (`service/convert.rs`). A value here is always one the scheduler can act on: a stored text it
//! cannot read never becomes one.

use std::fmt;

use hanniball_ids::{GameId, PlayerId, TimeControl, Timestamp};
use hanniball_pairing::Colour;
use hanniball_pairing::tiebreak::{Options, Rules, TieBreak, date_from_unix_days};
use hanniball_rules::GameKind;

use crate::details::Details;

/// Where a tournament stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum TournamentStatus {
    /// Taking entries; not started.
    Registration,
    /// Started: rounds being paired and played.
    Running,
    /// Its last round is complete.
    Finished,
}

impl TournamentStatus {
    /// Its name (`registration`, `running`, `finished`), as messages (and the store) say it.
    #[must_use]
    pub const fn name(self) -> &'static str {
        match self {
            TournamentStatus::Registration => "registration",
            TournamentStatus::Running => "running",
            TournamentStatus::Finished => "finished",
        }
    }
}

impl fmt::Display for TournamentStatus {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// How a tournament is paired.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum System {
    /// FIDE Dutch Swiss.
    Swiss,
    /// Berger tables, each pair once.
    RoundRobin,
    /// Berger tables, each pair twice with colours reversed.
    DoubleRoundRobin,
}

impl System {
    /// Its name (`swiss-dutch`, `round-robin`, `double-round-robin`), as TRF exports (and the
    /// store) say it.
    #[must_use]
    pub const fn name(self) -> &'static str {
        match self {
            System::Swiss => "swiss-dutch",
            System::RoundRobin => "round-robin",
            System::DoubleRoundRobin => "double-round-robin",
        }
    }
}

impl fmt::Display for System {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A tournament: its settings and where it stands.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Tournament {
    /// Given by the store (0 before it is stored).
    pub id: i64,
    /// One line, checked by `hanniball_names`.
    pub name: String,
    pub kind: GameKind,
    /// One of `kind`'s rulesets.
    pub ruleset: String,
    pub system: System,
    /// A Swiss's rounds (a round robin's come from its field: [`crate::model::Loaded::total_rounds`]).
    pub rounds: u32,
    pub time_control: Option<TimeControl>,
    /// 0: the game's own limit.
    pub max_turns: u32,
    pub rated: bool,
    /// Half-points a pairing-allocated bye gives: 0, 1 or 2.
    pub bye_points: u32,
    /// The tie-breaks, in order.
    pub tiebreaks: Vec<TieBreak>,
    /// Which C.07 text the tie-breaks follow and how unrated players count in them.
    pub tiebreak_options: Options,
    /// The top seed's colour in round 1.
    pub initial_colour: Colour,
    /// A player who loses a game by forfeit is withdrawn.
    pub forfeit_withdraws: bool,
    /// The next round is paired as soon as the current one is complete.
    pub auto_pair: bool,
    /// Players may enter and leave with their own tokens before the start.
    pub self_entry: bool,
    /// Players may also enter after the start (Swiss only; implies `self_entry`).
    pub late_self_entry: bool,
    pub status: TournamentStatus,
    /// 0 before the start.
    pub current_round: i32,
    pub created_at: Timestamp,
    /// Played on physical boards: no games run on the server.
    pub over_the_board: bool,
    /// What the organiser says of it (place, dates, arbiters...).
    pub details: Details,
}

/// The C.07 text in force for a tournament created at `at` (its default, and an older row's).
#[must_use]
pub fn rules_in_force(at: Timestamp) -> Rules {
    let days = u64::try_from(at.0.max(0) / 86_400_000).expect("not negative");
    Rules::for_start(date_from_unix_days(days))
}

/// A player entered in a tournament.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Entrant {
    pub tournament_id: i64,
    pub player: PlayerId,
    /// Given at the start (a late entry's on entering); never changed once given.
    pub start_rank: Option<i32>,
    /// The seeding rating (0: unrated).
    pub rating: i32,
    /// The first round the player may be paired in.
    pub joined_round: i32,
    /// The first round the player no longer plays.
    pub withdrawn_from: Option<i32>,
}

/// A bye requested ahead for a round.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ByeRequest {
    pub tournament_id: i64,
    pub player: PlayerId,
    pub round: i32,
    /// A half-point bye; else a zero-point bye.
    pub half_point: bool,
}

/// What a board of a round is: a game (White is the board's player) or one player not playing.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum BoardKind {
    Game {
        black: PlayerId,
    },
    /// The pairing-allocated bye.
    PairingBye,
    /// A requested half-point bye.
    HalfPointBye,
    /// A requested zero-point bye (or a round robin's odd player out).
    ZeroPointBye,
    /// Not entered yet, or withdrawn.
    Absent,
}

impl BoardKind {
    /// Black, for a game.
    #[must_use]
    pub const fn black(self) -> Option<PlayerId> {
        match self {
            BoardKind::Game { black } => Some(black),
            _ => None,
        }
    }

    /// Whether the board is a game.
    #[must_use]
    pub const fn is_game(self) -> bool {
        matches!(self, BoardKind::Game { .. })
    }

    /// The kind in words (messages).
    #[must_use]
    pub const fn words(self) -> &'static str {
        match self {
            BoardKind::Game { .. } => "game",
            BoardKind::PairingBye => "pairing-allocated bye",
            BoardKind::HalfPointBye => "half-point bye",
            BoardKind::ZeroPointBye => "zero-point bye",
            BoardKind::Absent => "absence",
        }
    }
}

/// A game's result, White's side first: played (`1-0`, `0-1`, `1/2-1/2`) or by forfeit (`+/-`,
/// `-/+`, `-/-`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum BoardResult {
    WhiteWins,
    BlackWins,
    Draw,
    WhiteWinsByForfeit,
    BlackWinsByForfeit,
    BothForfeit,
}

impl BoardResult {
    /// Every result, in the order messages list them.
    pub const ALL: [BoardResult; 6] = [
        BoardResult::WhiteWins,
        BoardResult::BlackWins,
        BoardResult::Draw,
        BoardResult::WhiteWinsByForfeit,
        BoardResult::BlackWinsByForfeit,
        BoardResult::BothForfeit,
    ];

    /// Its notation, as the wire, the store and TRF-minded organisers write it.
    #[must_use]
    pub const fn as_str(self) -> &'static str {
        match self {
            BoardResult::WhiteWins => "1-0",
            BoardResult::BlackWins => "0-1",
            BoardResult::Draw => "1/2-1/2",
            BoardResult::WhiteWinsByForfeit => "+/-",
            BoardResult::BlackWinsByForfeit => "-/+",
            BoardResult::BothForfeit => "-/-",
        }
    }
}

impl fmt::Display for BoardResult {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl BoardResult {
    /// The result written `text`, if it is one of the six.
    #[must_use]
    pub fn parse(text: &str) -> Option<BoardResult> {
        BoardResult::ALL.into_iter().find(|r| r.as_str() == text)
    }

    /// The six results as messages list them (`1-0, 0-1, …`).
    #[must_use]
    pub fn listed() -> String {
        let all: Vec<&str> = BoardResult::ALL.iter().map(|r| r.as_str()).collect();
        all.join(", ")
    }
}

/// One board of a round.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Board {
    pub tournament_id: i64,
    pub round: i32,
    /// 1 for the round's first board.
    pub number: i32,
    /// White in a game; the player who does not play otherwise.
    pub white: PlayerId,
    pub kind: BoardKind,
    /// The arbiter's game, once created (a game board only).
    pub game: Option<GameId>,
    /// A game board's result, once known.
    pub result: Option<BoardResult>,
    /// The result is the organiser's (entered or corrected), not the game's own.
    pub corrected: bool,
    /// The game ended before each side had made a turn: it counts in the tournament but is not
    /// rated (TRF `W`/`D`/`L`).
    pub short: bool,
}

/// A board's result corrected by the organiser.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Correction {
    pub tournament_id: i64,
    /// 1 for the tournament's first correction (given by the store).
    pub number: i32,
    pub round: i32,
    pub board: i32,
    pub previous: BoardResult,
    pub result: BoardResult,
    /// "admin", or the organiser's name.
    pub corrected_by: String,
    pub note: String,
    pub at: Timestamp,
    /// A later round had been paired: its pairings stand.
    pub after_pairing: bool,
}

/// A player waiting in the matchmaking queue, and for what game.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct QueueEntry {
    pub player: PlayerId,
    pub kind: GameKind,
    pub ruleset: String,
    pub time_control: Option<TimeControl>,
    pub rated: bool,
    pub joined_at: Timestamp,
}

/// A game made by the matchmaking queue.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Match {
    /// Given by the store (0 before it is stored).
    pub id: i64,
    pub white: PlayerId,
    pub black: PlayerId,
    pub kind: GameKind,
    pub ruleset: String,
    pub time_control: Option<TimeControl>,
    pub rated: bool,
    /// The arbiter's game, once created.
    pub game: Option<GameId>,
    pub created_at: Timestamp,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn results_read_back_as_written_and_nothing_else_reads() {
        for result in BoardResult::ALL {
            assert_eq!(BoardResult::parse(result.as_str()), Some(result));
        }
        for text in ["", "1-1", "1/2", " 1-0", "draw"] {
            assert_eq!(BoardResult::parse(text), None, "{text:?}");
        }
        assert_eq!(BoardResult::listed(), "1-0, 0-1, 1/2-1/2, +/-, -/+, -/-");
    }
}
