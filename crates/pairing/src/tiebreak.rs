//! Standings with FIDE tie-breaks (Handbook C.07): the 2024 text and the 2026 revision (in force
//! for events starting from 1 March 2026), chosen by [`Rules`].
//!
//! # What is implemented, and which article it follows
//! Article numbers are the 2024 text's; those of BPG to REP, FB, AOB, KS and APRO to APPO are
//! from memory of that text, not checked against it here. Definitions follow TieBreakServer.
//! | acronym | name | article |
//! |---|---|---|
//! | `DE` | direct encounter among the tied participants | 6 |
//! | `WIN` | rounds with a win's points, with or without playing | 7.1 |
//! | `WON` | games won over the board | 7.2 |
//! | `STD` | standard points (defined by the 2026 text): 1, ½ or 0 a round as its points are more than, equal to or less than a draw's | 7.7 of 2026, unchecked |
//! | `BPG` | games played with Black | 7.3 |
//! | `BWG` | games won with Black | 7.4 |
//! | `PS`, `PS-C1` | sum of progressive scores (running score after each round) | 7.5, 14.1 |
//! | `REP` (`GE`) | rounds one elected to play: games, PAB, full-point byes, forfeit wins | 7.6 |
//! | `BH`, `BH-C1`, `BH-C2`, `BH-M1`, `BH-M2` | Buchholz: the opponents' scores, cut/median | 8.1, 14 |
//! | `FB` (and cut forms) | Fore Buchholz: BH with the last round's games as draws | 8.2 |
//! | `AOB` | average of the opponents' Buchholz, to 0.01 | 8.3 |
//! | `SB`, `SB-C1` | Sonneborn-Berger: opponent's score × points scored against them | 9.1 |
//! | `KS` | Koya: points scored against opponents with at least half the maximum | 9.2 |
//! | `ARO`, `ARO-C1`, `ARO-M1` | average rating of opponents (rounded half up) | 10.1, 14 |
//! | `TPR` | performance: ARO + dp(p) | 10.2 |
//! | `APRO` | average of the opponents' TPR | 10.3 |
//! | `PTP` | perfect performance: lowest rating whose expected score reaches the score | 10.4 |
//! | `APPO` | average of the opponents' PTP | 10.5 |
//! | `VUR` | voluntary unplayed rounds (fewer rank higher) | 16.1.2 |
//! | `RTNG` | the participant's own rating | (final tie-break) |
//! | `TPN` | tournament pairing number (lower ranks higher) | (final tie-break) |
//!
//! Scores count in the crosstable's [`PointSystem`] (a `162` line, a 3-1-0 tournament): points,
//! BH, SB, PS, KS and DE use those points; TPR, PTP and APRO/APPO use rating points (1, ½, 0).
//! Values are exact ([`Points`] counts hundredths: every SB product of tenths). Team
//! tie-breaks are not implemented (there are no team events).
//!
//! # Unplayed rounds (article 16, Swiss tournaments)
//! An unplayed round is any round without a game over the board: pairing-allocated bye
//! (PAB), full-, half- and zero-point byes (also every round after a withdrawal, 16.1.1), forfeit
//! win, forfeit loss. A *voluntary unplayed round* (VUR, 16.1.2) is a half- or zero-point bye or
//! a forfeit loss; a PAB is allocated, never voluntary, whatever it scores.
//! - **As somebody's opponent** (16.3), a participant's score is *adjusted*: every unplayed
//!   round counts with the points awarded, except byes that are followed only by VURs
//!   (16.2.5), which count as draws. So a player who withdrew counts a draw for each round after
//!   their last available round.
//! - **For the participant's own BH and SB** (16.4), each of their unplayed rounds counts as a
//!   game against a dummy whose score is the participant's own score, with the result matching
//!   the points awarded. The 2026 revision caps that score: for a forfeit, at the scheduled
//!   opponent's adjusted score (16.4.1); for any other unplayed round, at a draw's points times
//!   the number of rounds (16.4.2).
//! - **Cut exception** (16.5): for a participant with VURs, the lowest VUR contribution is cut
//!   instead of the least significant one, unless that one is worth more (as in SB, where a
//!   VUR's product can be smaller than the lowest-scoring opponent's).
//!
//! # Unrated players ([`Unrated`])
//! Rating-based tie-breaks (ARO, TPR, PTP, APRO, APPO, RTNG) are dropped (every value `-`) when a
//! participant is unrated, unless the regulations say how they count: a rating given to every
//! unrated player, or (this project's earlier rule) counting rated opponents only.
//!
//! # Decisions where the text leaves room (each one as FIDE's tie-break server reads it)
//! - `DE` counts games played over the board, in the tournament's points, averaging repeated
//!   encounters. When not all tied participants met, a participant is ranked alone only when
//!   their score beats the best any other could still reach by winning every missing game, and
//!   so on down; DE is applied again inside every part still tied. The value is the position
//!   inside the tie group (1 = best, shared positions stay shared).
//! - `FB`: a participant paired in the last round (a game, a forfeit or the PAB) has no trailing
//!   VURs before it, and a last-round game or forfeit counts a draw; the last round's forfeits
//!   count as games against the scheduled opponent.
//! - `KS` counts every paired round (forfeits too) against an opponent whose final score is at
//!   least half of a win's points times the number of rounds.
//! - Every crosstable is treated as a Swiss (article 15, round robins, is not implemented).
//! - Players still tied after the whole list share their rank; they are listed by number.

use std::cmp::Ordering;
use std::fmt;
use std::str::FromStr;

use thiserror::Error;

pub use crate::tournament::PointSystem;

/// A participant's 1-based starting number (the TRF starting rank): the tournament's
/// [`StartRank`](crate::StartRank), under the name the tie-break tables use.
pub use crate::tournament::StartRank as PlayerNo;

/// The colour a participant had in a game (the tournament's).
pub use crate::tournament::Colour;

/// A game's result seen from one participant.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Outcome {
    Win,
    Draw,
    Loss,
}

impl Outcome {
    fn opposite(self) -> Outcome {
        match self {
            Outcome::Win => Outcome::Loss,
            Outcome::Draw => Outcome::Draw,
            Outcome::Loss => Outcome::Win,
        }
    }

    /// Rating points in half points (1, ½, 0), whatever the tournament's point system.
    fn halves(self) -> u32 {
        match self {
            Outcome::Win => 2,
            Outcome::Draw => 1,
            Outcome::Loss => 0,
        }
    }
}

/// Why a participant has no game in a round.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Unplayed {
    /// Pairing-allocated bye: [`PointSystem::pab`] points; never voluntary.
    PairingBye,
    /// Full-point bye (requested or awarded): a win's points; not voluntary.
    FullPointBye,
    /// Requested half-point bye: a draw's points.
    HalfPointBye,
    /// Requested zero-point bye, absence, or any round after withdrawing.
    ZeroPointBye,
    /// The scheduled opponent did not play: a win's points.
    ForfeitWin { opponent: PlayerNo },
    /// The participant did not play (both sides in a double forfeit).
    ForfeitLoss { opponent: PlayerNo },
}

/// One participant's round.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum RoundEntry {
    /// A game over the board.
    Played {
        opponent: PlayerNo,
        colour: Colour,
        outcome: Outcome,
    },
    Unplayed(Unplayed),
}

impl RoundEntry {
    /// Points in tenths under `ps`.
    fn tenths(self, ps: &PointSystem) -> u32 {
        match self {
            RoundEntry::Played { outcome, .. } => match outcome {
                Outcome::Win => ps.win,
                Outcome::Draw => ps.draw,
                Outcome::Loss => ps.loss,
            },
            RoundEntry::Unplayed(u) => match u {
                Unplayed::PairingBye => ps.pab,
                Unplayed::FullPointBye | Unplayed::ForfeitWin { .. } => ps.win,
                Unplayed::HalfPointBye => ps.draw,
                Unplayed::ZeroPointBye => ps.zero_bye,
                Unplayed::ForfeitLoss { .. } => ps.forfeit_loss,
            },
        }
    }

    /// Voluntary unplayed round (16.1.2).
    fn is_vur(self) -> bool {
        matches!(
            self,
            RoundEntry::Unplayed(
                Unplayed::HalfPointBye | Unplayed::ZeroPointBye | Unplayed::ForfeitLoss { .. }
            )
        )
    }
}

/// One participant's line of the crosstable.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PlayerRecord {
    /// `None` for an unrated player (see [`Unrated`]).
    pub rating: Option<u16>,
    /// Round 1 first; every participant has the same number of rounds.
    pub rounds: Vec<RoundEntry>,
}

/// What is wrong with a crosstable.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum CrosstableError {
    #[error("player {player} has {rounds} rounds, player 1 has {expected}")]
    RoundCount {
        player: PlayerNo,
        rounds: usize,
        expected: usize,
    },
    #[error("player {player} in round {round} meets player {opponent}, who does not exist")]
    UnknownOpponent {
        player: PlayerNo,
        round: usize,
        opponent: PlayerNo,
    },
    #[error("player {player} in round {round} is paired against themself")]
    OwnOpponent { player: PlayerNo, round: usize },
    #[error(
        "player {player} in round {round} meets player {opponent}, whose round {round} does not show the same game"
    )]
    Mismatch {
        player: PlayerNo,
        round: usize,
        opponent: PlayerNo,
    },
    #[error("{players} players is more than the supported {max}")]
    TooManyPlayers { players: usize, max: usize },
}

/// A checked crosstable: every game appears, mirrored, on both participants' lines.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Crosstable {
    /// Index `i` is player `i + 1`; all have the same number of rounds.
    players: Vec<PlayerRecord>,
    points: PointSystem,
}

/// The largest field accepted (keeps every sum of hundredths far inside `u64`).
pub const MAX_PLAYERS: usize = 100_000;

impl Crosstable {
    /// A crosstable scored 1, ½, 0 (a PAB a win); see [`Crosstable::with_points`].
    pub fn new(players: Vec<PlayerRecord>) -> Result<Crosstable, CrosstableError> {
        Crosstable::with_points(players, PointSystem::default())
    }

    /// Checks that every game and forfeit is recorded on both sides, consistently; rounds score
    /// under `points`.
    pub fn with_points(
        players: Vec<PlayerRecord>,
        points: PointSystem,
    ) -> Result<Crosstable, CrosstableError> {
        if players.len() > MAX_PLAYERS {
            return Err(CrosstableError::TooManyPlayers {
                players: players.len(),
                max: MAX_PLAYERS,
            });
        }
        let expected = players.first().map_or(0, |p| p.rounds.len());
        for (i, record) in players.iter().enumerate() {
            let player = PlayerNo::of(i);
            if record.rounds.len() != expected {
                return Err(CrosstableError::RoundCount {
                    player,
                    rounds: record.rounds.len(),
                    expected,
                });
            }
            for (r, entry) in record.rounds.iter().enumerate() {
                let round = r + 1;
                let (opponent, mirror_ok): (PlayerNo, fn(RoundEntry, RoundEntry) -> bool) =
                    match *entry {
                        RoundEntry::Played { opponent, .. } => (opponent, mirrors_game),
                        RoundEntry::Unplayed(
                            Unplayed::ForfeitWin { opponent } | Unplayed::ForfeitLoss { opponent },
                        ) => (opponent, mirrors_forfeit),
                        RoundEntry::Unplayed(_) => continue,
                    };
                if opponent == player {
                    return Err(CrosstableError::OwnOpponent { player, round });
                }
                if opponent.0 == 0 || opponent.index() >= players.len() {
                    return Err(CrosstableError::UnknownOpponent {
                        player,
                        round,
                        opponent,
                    });
                }
                let theirs = players[opponent.index()].rounds[r];
                if !mirror_ok(*entry, theirs) || opponent_of(theirs) != Some(player) {
                    return Err(CrosstableError::Mismatch {
                        player,
                        round,
                        opponent,
                    });
                }
            }
        }
        Ok(Crosstable { players, points })
    }

    /// The participants, player 1 first.
    pub fn players(&self) -> &[PlayerRecord] {
        &self.players
    }

    /// Number of rounds recorded.
    pub fn rounds(&self) -> usize {
        self.players.first().map_or(0, |p| p.rounds.len())
    }

    /// A participant's score.
    ///
    /// # Panics
    /// If `player` is not in the crosstable.
    pub fn points(&self, player: PlayerNo) -> Points {
        Points::from_tenths(
            self.players[player.index()]
                .rounds
                .iter()
                .map(|e| u64::from(e.tenths(&self.points)))
                .sum(),
        )
    }
}

fn opponent_of(entry: RoundEntry) -> Option<PlayerNo> {
    match entry {
        RoundEntry::Played { opponent, .. }
        | RoundEntry::Unplayed(
            Unplayed::ForfeitWin { opponent } | Unplayed::ForfeitLoss { opponent },
        ) => Some(opponent),
        RoundEntry::Unplayed(_) => None,
    }
}

fn mirrors_game(mine: RoundEntry, theirs: RoundEntry) -> bool {
    match (mine, theirs) {
        (
            RoundEntry::Played {
                colour: c1,
                outcome: o1,
                ..
            },
            RoundEntry::Played {
                colour: c2,
                outcome: o2,
                ..
            },
        ) => c1.opposite() == c2 && o1.opposite() == o2,
        _ => false,
    }
}

fn mirrors_forfeit(mine: RoundEntry, theirs: RoundEntry) -> bool {
    matches!(
        (mine, theirs),
        (
            RoundEntry::Unplayed(Unplayed::ForfeitWin { .. }),
            RoundEntry::Unplayed(Unplayed::ForfeitLoss { .. })
        ) | (
            RoundEntry::Unplayed(Unplayed::ForfeitLoss { .. }),
            RoundEntry::Unplayed(Unplayed::ForfeitWin { .. } | Unplayed::ForfeitLoss { .. })
        )
    )
}

/// An exact score or score-like value, in hundredths of a point (SB multiplies two tenths).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub struct Points {
    hundredths: u64,
}

impl Points {
    /// `halves` half points.
    pub fn from_halves(halves: u32) -> Points {
        Points {
            hundredths: u64::from(halves) * 50,
        }
    }

    /// `quarters` quarter points.
    pub fn from_quarters(quarters: u32) -> Points {
        Points {
            hundredths: u64::from(quarters) * 25,
        }
    }

    /// `tenths` tenths of a point.
    pub fn from_tenths(tenths: u64) -> Points {
        Points {
            hundredths: tenths * 10,
        }
    }

    /// `hundredths` hundredths of a point.
    pub fn from_hundredths(hundredths: u64) -> Points {
        Points { hundredths }
    }

    /// The value in hundredths of a point.
    pub fn hundredths(self) -> u64 {
        self.hundredths
    }
}

impl fmt::Display for Points {
    /// `3`, `3.5`, `3.25`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let (whole, rest) = (self.hundredths / 100, self.hundredths % 100);
        match rest {
            0 => write!(f, "{whole}"),
            r if r % 10 == 0 => write!(f, "{whole}.{}", r / 10),
            r => write!(f, "{whole}.{r:02}"),
        }
    }
}

/// Which text of C.07 applies.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum Rules {
    /// In force from 1 August 2024 to the end of February 2026.
    Fide2024,
    /// In force for events starting from 1 March 2026.
    #[default]
    Fide2026,
}

impl Rules {
    /// The rules for an event starting on `(year, month, day)`.
    pub fn for_start(date: (u32, u32, u32)) -> Rules {
        if date >= (2026, 3, 1) {
            Rules::Fide2026
        } else {
            Rules::Fide2024
        }
    }

    /// The year that names the text.
    pub fn year(self) -> u32 {
        match self {
            Rules::Fide2024 => 2024,
            Rules::Fide2026 => 2026,
        }
    }
}

/// A `--rules` value that is neither 2024 nor 2026.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[error("unknown tie-break rules {name:?}: expected 2024 or 2026")]
pub struct UnknownRules {
    pub name: String,
}

impl FromStr for Rules {
    type Err = UnknownRules;

    fn from_str(s: &str) -> Result<Rules, UnknownRules> {
        match s.trim() {
            "2024" => Ok(Rules::Fide2024),
            "2026" => Ok(Rules::Fide2026),
            _ => Err(UnknownRules { name: s.to_owned() }),
        }
    }
}

impl fmt::Display for Rules {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.year())
    }
}

/// A date as TRF files write it (`042`): `2026/03/01`, `2026-03-01`, `2026.03.01`, `01.03.2026`,
/// `01/03/2026`, optionally followed by a time; `(year, month, day)`.
pub fn parse_date(text: &str) -> Option<(u32, u32, u32)> {
    let date = text.split_whitespace().next()?;
    let parts: Vec<&str> = date.split(['/', '-', '.']).collect();
    let [a, b, c] = parts.as_slice() else {
        return None;
    };
    let number = |s: &str| s.parse::<u32>().ok();
    let (year, month, day) = if a.len() == 4 {
        (number(a)?, number(b)?, number(c)?)
    } else if c.len() == 4 {
        (number(c)?, number(b)?, number(a)?)
    } else {
        return None;
    };
    ((1..=12).contains(&month) && (1..=31).contains(&day)).then_some((year, month, day))
}

/// The civil date `(year, month, day)` of a day counted from 1 January 1970.
pub fn date_from_unix_days(days: u64) -> (u32, u32, u32) {
    // Days to civil date in the proleptic Gregorian calendar, by 400-year eras.
    let z = days + 719_468;
    let era = z / 146_097;
    let doe = z % 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + u64::from(month <= 2);
    let fit = |v: u64| u32::try_from(v).expect("a calendar field");
    (fit(year), fit(month), fit(day))
}

/// How unrated participants count in rating-based tie-breaks.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum Unrated {
    /// C.07: with any unrated participant, rating-based tie-breaks are dropped (no values).
    #[default]
    Drop,
    /// Regulations give every unrated participant this rating.
    Rating(u16),
    /// Regulations count rated opponents only.
    Ignore,
}

/// A `--unrated` value that is not `drop`, `ignore` or a rating.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[error("unknown unrated policy {name:?}: expected drop, ignore or a rating (0 to 4000)")]
pub struct UnknownUnrated {
    pub name: String,
}

impl FromStr for Unrated {
    type Err = UnknownUnrated;

    fn from_str(s: &str) -> Result<Unrated, UnknownUnrated> {
        match s.trim() {
            "drop" => Ok(Unrated::Drop),
            "ignore" => Ok(Unrated::Ignore),
            n => n
                .parse::<u16>()
                .ok()
                .filter(|r| *r <= 4000)
                .map(Unrated::Rating)
                .ok_or_else(|| UnknownUnrated { name: s.to_owned() }),
        }
    }
}

impl fmt::Display for Unrated {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Unrated::Drop => f.write_str("drop"),
            Unrated::Ignore => f.write_str("ignore"),
            Unrated::Rating(r) => write!(f, "{r}"),
        }
    }
}

/// How the tie-breaks are computed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct Options {
    pub rules: Rules,
    pub unrated: Unrated,
}

/// Cut and median modifiers (article 14): the `low` least and `high` most significant values
/// are left out.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct Cut {
    pub low: u8,
    pub high: u8,
}

impl Cut {
    /// No modifier.
    pub const NONE: Cut = Cut { low: 0, high: 0 };
    /// Cut-1: the least significant value left out.
    pub const C1: Cut = Cut { low: 1, high: 0 };

    fn suffix(self) -> String {
        match (self.low, self.high) {
            (0, 0) => String::new(),
            (l, 0) => format!("-C{l}"),
            (l, h) if l == h => format!("-M{l}"),
            (l, h) => format!("-C{l}-H{h}"),
        }
    }
}

/// A tie-break from C.07, named by its FIDE acronym.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum TieBreak {
    Buchholz(Cut),
    ForeBuchholz(Cut),
    AverageOfBuchholz,
    SonnebornBerger(Cut),
    ProgressiveScore(Cut),
    Koya,
    DirectEncounter,
    Wins,
    GamesWon,
    /// Standard points (2026 text): the rounds scored 1, ½, 0 whatever the point system.
    StandardPoints,
    BlackGames,
    BlackWins,
    ElectedToPlay,
    VoluntaryUnplayed,
    AverageRatingOfOpponents(Cut),
    Performance,
    PerfectPerformance,
    AveragePerformanceOfOpponents,
    AveragePerfectPerformanceOfOpponents,
    Rating,
    PairingNumber,
}

impl TieBreak {
    /// Every tie-break of the table in the module docs, with its usual cut forms.
    pub const ALL: [TieBreak; 29] = [
        TieBreak::DirectEncounter,
        TieBreak::Wins,
        TieBreak::GamesWon,
        TieBreak::StandardPoints,
        TieBreak::BlackGames,
        TieBreak::BlackWins,
        TieBreak::ProgressiveScore(Cut::NONE),
        TieBreak::ProgressiveScore(Cut::C1),
        TieBreak::ElectedToPlay,
        TieBreak::Buchholz(Cut::NONE),
        TieBreak::Buchholz(Cut::C1),
        TieBreak::Buchholz(Cut { low: 2, high: 0 }),
        TieBreak::Buchholz(Cut { low: 1, high: 1 }),
        TieBreak::Buchholz(Cut { low: 2, high: 2 }),
        TieBreak::ForeBuchholz(Cut::NONE),
        TieBreak::ForeBuchholz(Cut::C1),
        TieBreak::AverageOfBuchholz,
        TieBreak::SonnebornBerger(Cut::NONE),
        TieBreak::SonnebornBerger(Cut::C1),
        TieBreak::Koya,
        TieBreak::AverageRatingOfOpponents(Cut::NONE),
        TieBreak::AverageRatingOfOpponents(Cut::C1),
        TieBreak::AverageRatingOfOpponents(Cut { low: 1, high: 1 }),
        TieBreak::Performance,
        TieBreak::AveragePerformanceOfOpponents,
        TieBreak::PerfectPerformance,
        TieBreak::AveragePerfectPerformanceOfOpponents,
        TieBreak::VoluntaryUnplayed,
        TieBreak::Rating,
    ];

    /// The acronym without modifiers.
    fn base(self) -> &'static str {
        match self {
            TieBreak::Buchholz(_) => "BH",
            TieBreak::ForeBuchholz(_) => "FB",
            TieBreak::AverageOfBuchholz => "AOB",
            TieBreak::SonnebornBerger(_) => "SB",
            TieBreak::ProgressiveScore(_) => "PS",
            TieBreak::Koya => "KS",
            TieBreak::DirectEncounter => "DE",
            TieBreak::Wins => "WIN",
            TieBreak::GamesWon => "WON",
            TieBreak::StandardPoints => "STD",
            TieBreak::BlackGames => "BPG",
            TieBreak::BlackWins => "BWG",
            TieBreak::ElectedToPlay => "REP",
            TieBreak::VoluntaryUnplayed => "VUR",
            TieBreak::AverageRatingOfOpponents(_) => "ARO",
            TieBreak::Performance => "TPR",
            TieBreak::PerfectPerformance => "PTP",
            TieBreak::AveragePerformanceOfOpponents => "APRO",
            TieBreak::AveragePerfectPerformanceOfOpponents => "APPO",
            TieBreak::Rating => "RTNG",
            TieBreak::PairingNumber => "TPN",
        }
    }

    fn cut(self) -> Cut {
        match self {
            TieBreak::Buchholz(c)
            | TieBreak::ForeBuchholz(c)
            | TieBreak::SonnebornBerger(c)
            | TieBreak::ProgressiveScore(c)
            | TieBreak::AverageRatingOfOpponents(c) => c,
            _ => Cut::NONE,
        }
    }

    /// The FIDE acronym with its modifier (`BH-C1`, `BH-M1`, `ARO-C1`).
    pub fn acronym(self) -> String {
        format!("{}{}", self.base(), self.cut().suffix())
    }

    fn is_rating_based(self) -> bool {
        matches!(
            self,
            TieBreak::AverageRatingOfOpponents(_)
                | TieBreak::Performance
                | TieBreak::PerfectPerformance
                | TieBreak::AveragePerformanceOfOpponents
                | TieBreak::AveragePerfectPerformanceOfOpponents
                | TieBreak::Rating
        )
    }
}

impl fmt::Display for TieBreak {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.acronym())
    }
}

/// A tie-break name that is not one of the FIDE acronyms supported here.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[error(
    "unknown tie-break {name:?}: expected one of DE, WIN, WON, STD, BPG, BWG, PS, REP (GE), BH, FB, AOB, SB, KS, ARO, TPR, APRO, PTP, APPO, VUR, RTNG, TPN; BH, FB, SB, PS and ARO take -C<n> (cut), BH, FB and ARO -M<n> (median)"
)]
pub struct UnknownTieBreak {
    pub name: String,
}

impl FromStr for TieBreak {
    type Err = UnknownTieBreak;

    fn from_str(s: &str) -> Result<TieBreak, UnknownTieBreak> {
        let unknown = || UnknownTieBreak { name: s.to_owned() };
        let upper = s.trim().to_ascii_uppercase();
        let (base, modifier) = match upper.split_once(['-', '/']) {
            Some((b, m)) => (b, Some(m)),
            None => (upper.as_str(), None),
        };
        let cut = match modifier {
            None => Cut::NONE,
            Some(m) => {
                let n: u8 = m
                    .get(1..)
                    .and_then(|n| n.parse().ok())
                    .filter(|n| (1..=9).contains(n))
                    .ok_or_else(unknown)?;
                match &m[..1] {
                    "C" => Cut { low: n, high: 0 },
                    "M" => Cut { low: n, high: n },
                    _ => return Err(unknown()),
                }
            }
        };
        let median = cut.high > 0;
        let plain = |tb: TieBreak| {
            if modifier.is_none() {
                Ok(tb)
            } else {
                Err(unknown())
            }
        };
        match base {
            "BH" => Ok(TieBreak::Buchholz(cut)),
            "FB" => Ok(TieBreak::ForeBuchholz(cut)),
            "ARO" => Ok(TieBreak::AverageRatingOfOpponents(cut)),
            "SB" if !median => Ok(TieBreak::SonnebornBerger(cut)),
            "PS" if !median => Ok(TieBreak::ProgressiveScore(cut)),
            "AOB" => plain(TieBreak::AverageOfBuchholz),
            "KS" => plain(TieBreak::Koya),
            "DE" => plain(TieBreak::DirectEncounter),
            "WIN" => plain(TieBreak::Wins),
            "WON" => plain(TieBreak::GamesWon),
            "STD" => plain(TieBreak::StandardPoints),
            "BPG" => plain(TieBreak::BlackGames),
            "BWG" => plain(TieBreak::BlackWins),
            "REP" | "GE" => plain(TieBreak::ElectedToPlay),
            "VUR" => plain(TieBreak::VoluntaryUnplayed),
            "TPR" => plain(TieBreak::Performance),
            "PTP" => plain(TieBreak::PerfectPerformance),
            "APRO" => plain(TieBreak::AveragePerformanceOfOpponents),
            "APPO" => plain(TieBreak::AveragePerfectPerformanceOfOpponents),
            "RTNG" => plain(TieBreak::Rating),
            "TPN" => plain(TieBreak::PairingNumber),
            _ => Err(unknown()),
        }
    }
}

/// One tie-break value of one participant.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum TieBreakValue {
    /// BH, FB, AOB, SB, PS, KS, STD: higher is better.
    Points(Points),
    /// WIN, WON, BPG, BWG, REP: higher is better.
    Count(u32),
    /// DE (position inside the tie group), VUR, TPN: lower is better.
    Position(u32),
    /// ARO, TPR, PTP, APRO, APPO, RTNG: higher is better; `None` (no value) is worst.
    Rating(Option<i32>),
    /// No value (AOB without a game): worst.
    Absent,
}

impl TieBreakValue {
    /// `Less` when `self` ranks ahead of `other`.
    fn rank_cmp(self, other: TieBreakValue) -> Ordering {
        match (self, other) {
            (TieBreakValue::Points(a), TieBreakValue::Points(b)) => b.cmp(&a),
            (TieBreakValue::Count(a), TieBreakValue::Count(b)) => b.cmp(&a),
            (TieBreakValue::Position(a), TieBreakValue::Position(b)) => a.cmp(&b),
            (TieBreakValue::Rating(a), TieBreakValue::Rating(b)) => b.cmp(&a),
            (TieBreakValue::Absent, TieBreakValue::Absent) => Ordering::Equal,
            (TieBreakValue::Absent, _) => Ordering::Greater,
            (_, TieBreakValue::Absent) => Ordering::Less,
            // One tie-break always yields one variant.
            _ => Ordering::Equal,
        }
    }
}

impl fmt::Display for TieBreakValue {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TieBreakValue::Points(p) => write!(f, "{p}"),
            TieBreakValue::Count(c) | TieBreakValue::Position(c) => write!(f, "{c}"),
            TieBreakValue::Rating(Some(r)) => write!(f, "{r}"),
            TieBreakValue::Rating(None) | TieBreakValue::Absent => f.write_str("-"),
        }
    }
}

/// One line of the standings.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Standing {
    /// 1-based; participants still tied after every tie-break share a rank.
    pub rank: u32,
    pub player: PlayerNo,
    pub points: Points,
    /// One value per requested tie-break, in the order requested.
    pub values: Vec<TieBreakValue>,
}

/// The standings: by points, then by each tie-break in `order`.
pub fn standings(table: &Crosstable, order: &[TieBreak], options: &Options) -> Vec<Standing> {
    let n = table.players.len();
    let ctx = Context::new(table, options);
    let mut values: Vec<Vec<TieBreakValue>> = vec![Vec::with_capacity(order.len()); n];
    for &tb in order {
        for (i, v) in ctx.values(tb).into_iter().enumerate() {
            values[i].push(v);
        }
    }

    let score = &ctx.score;
    let mut by_points: Vec<usize> = (0..n).collect();
    by_points.sort_by_key(|&i| (std::cmp::Reverse(score[i]), i));
    let mut groups = split(by_points, |a, b| score[a] == score[b]);

    for (k, &tb) in order.iter().enumerate() {
        let mut next = Vec::with_capacity(groups.len());
        for mut group in groups {
            if tb == TieBreak::DirectEncounter {
                for (&i, position) in group.iter().zip(de_positions(&ctx, &group)) {
                    values[i][k] = TieBreakValue::Position(position);
                }
            }
            group.sort_by(|&a, &b| values[a][k].rank_cmp(values[b][k]).then(a.cmp(&b)));
            next.extend(split(group, |a, b| {
                values[a][k].rank_cmp(values[b][k]) == Ordering::Equal
            }));
        }
        groups = next;
    }

    let mut result = Vec::with_capacity(n);
    for group in groups {
        let rank = u32::try_from(result.len() + 1).expect("at most MAX_PLAYERS");
        for i in group {
            result.push(Standing {
                rank,
                player: PlayerNo::of(i),
                points: Points::from_tenths(score[i]),
                values: std::mem::take(&mut values[i]),
            });
        }
    }
    result
}

/// Splits a sorted list into runs of equal elements.
fn split(sorted: Vec<usize>, same: impl Fn(usize, usize) -> bool) -> Vec<Vec<usize>> {
    let mut groups: Vec<Vec<usize>> = Vec::new();
    for i in sorted {
        match groups.last_mut() {
            Some(group) if group.last().is_some_and(|&j| same(j, i)) => group.push(i),
            _ => groups.push(vec![i]),
        }
    }
    groups
}

/// One round of one participant, as the tie-breaks see it.
#[derive(Debug, Clone, Copy)]
struct Round {
    /// Tenths under the crosstable's point system.
    points: u64,
    /// The paired opponent's index (a game or a forfeit).
    opponent: Option<usize>,
    /// A game over the board.
    game: bool,
    /// Met in the pairing: a game or the PAB (the tie-break server's "played").
    paired: bool,
    vur: bool,
    black: bool,
    /// Rating points of a game, in halves.
    rating_halves: u32,
}

/// One BH/SB contribution, before cuts.
#[derive(Debug, Clone, Copy)]
struct Contribution {
    vur: bool,
    /// The opponent's (or dummy's) score, tenths.
    score: u64,
    /// What is summed: `score` for BH, hundredths `score × points` for SB.
    value: u64,
}

/// Everything computed once per standings.
struct Context<'a> {
    table: &'a Crosstable,
    options: Options,
    rounds: Vec<Vec<Round>>,
    /// Final scores, tenths.
    score: Vec<u64>,
    /// 16.3 adjusted scores, tenths.
    adjusted: Vec<u64>,
    /// The same with the last round as Fore Buchholz sees it, and the own score it uses.
    fore_adjusted: Vec<u64>,
    fore_own: Vec<u64>,
    /// The rating each participant counts with (after [`Unrated`]); `None` also when dropped.
    ratings: Vec<Option<u16>>,
    /// Whether rating-based tie-breaks have values (16 / [`Unrated::Drop`]).
    ratings_valid: bool,
}

impl<'a> Context<'a> {
    fn new(table: &'a Crosstable, options: &Options) -> Context<'a> {
        let ps = &table.points;
        let rounds: Vec<Vec<Round>> = table
            .players
            .iter()
            .map(|p| {
                p.rounds
                    .iter()
                    .map(|&e| {
                        let (game, black, rating_halves) = match e {
                            RoundEntry::Played {
                                colour, outcome, ..
                            } => (true, colour == Colour::Black, outcome.halves()),
                            RoundEntry::Unplayed(_) => (false, false, 0),
                        };
                        Round {
                            points: u64::from(e.tenths(ps)),
                            opponent: opponent_of(e).map(PlayerNo::index),
                            game,
                            paired: game || matches!(e, RoundEntry::Unplayed(Unplayed::PairingBye)),
                            vur: e.is_vur(),
                            black,
                            rating_halves,
                        }
                    })
                    .collect()
            })
            .collect();
        let draw = u64::from(ps.draw);
        let score: Vec<u64> = rounds
            .iter()
            .map(|r| r.iter().map(|x| x.points).sum())
            .collect();
        let last_round = rounds.first().map_or(0, Vec::len);
        let mut adjusted = Vec::with_capacity(rounds.len());
        let mut fore_adjusted = Vec::with_capacity(rounds.len());
        let mut fore_own = Vec::with_capacity(rounds.len());
        for (i, rs) in rounds.iter().enumerate() {
            // 16.2.5: rounds after the last available one, without an opponent, count as draws.
            let last_available = rs.iter().rposition(|r| !r.vur).map_or(0, |r| r + 1);
            let adjust = |last_available: usize| -> u64 {
                rs.iter()
                    .enumerate()
                    .map(|(r, x)| {
                        if r < last_available || x.opponent.is_some() {
                            x.points
                        } else {
                            draw
                        }
                    })
                    .sum()
            };
            adjusted.push(adjust(last_available));
            // Fore Buchholz: a participant met in the pairing of the last round has no trailing
            // VURs, and a last-round game or forfeit counts a draw.
            let last_met = rs
                .iter()
                .rposition(|r| r.paired || r.opponent.is_some())
                .map_or(0, |r| r + 1);
            if last_round > 0 && last_met == last_round {
                let last = rs[last_round - 1];
                let to_draw = |v: u64| {
                    if last.opponent.is_some() {
                        v - last.points + draw
                    } else {
                        v
                    }
                };
                fore_adjusted.push(to_draw(adjust(last_round)));
                fore_own.push(to_draw(score[i]));
            } else {
                fore_adjusted.push(adjusted[i]);
                fore_own.push(score[i]);
            }
        }
        let all_rated = table.players.iter().all(|p| p.rating.is_some());
        let (ratings, ratings_valid) = match options.unrated {
            Unrated::Drop => (table.players.iter().map(|p| p.rating).collect(), all_rated),
            Unrated::Rating(r) => (
                table
                    .players
                    .iter()
                    .map(|p| Some(p.rating.unwrap_or(r)))
                    .collect(),
                true,
            ),
            Unrated::Ignore => (table.players.iter().map(|p| p.rating).collect(), true),
        };
        Context {
            table,
            options: *options,
            rounds,
            score,
            adjusted,
            fore_adjusted,
            fore_own,
            ratings,
            ratings_valid,
        }
    }

    fn n(&self) -> usize {
        self.rounds.len()
    }

    fn ps(&self) -> &PointSystem {
        &self.table.points
    }

    /// Every participant's value of `tb` (DE: a placeholder filled in per tie group).
    fn values(&self, tb: TieBreak) -> Vec<TieBreakValue> {
        let n = self.n();
        let win = u64::from(self.ps().win);
        let count = |pred: &dyn Fn(&Round) -> bool| -> Vec<TieBreakValue> {
            self.rounds
                .iter()
                .map(|rs| {
                    TieBreakValue::Count(
                        u32::try_from(rs.iter().filter(|r| pred(r)).count()).expect("rounds fit"),
                    )
                })
                .collect()
        };
        if tb.is_rating_based() && !self.ratings_valid {
            return vec![TieBreakValue::Rating(None); n];
        }
        match tb {
            TieBreak::Buchholz(cut) => self.buchholz(false, false, cut),
            TieBreak::ForeBuchholz(cut) => self.buchholz(true, false, cut),
            TieBreak::SonnebornBerger(cut) => self.buchholz(false, true, cut),
            TieBreak::AverageOfBuchholz => {
                let bh: Vec<u64> = self
                    .buchholz(false, false, Cut::NONE)
                    .into_iter()
                    .map(|v| match v {
                        TieBreakValue::Points(p) => p.hundredths(),
                        // BH always gives points.
                        _ => 0,
                    })
                    .collect();
                (0..n)
                    .map(|i| {
                        let of: Vec<u64> = self.game_opponents(i).map(|o| bh[o]).collect();
                        let games = of.len() as u64;
                        if games == 0 {
                            return TieBreakValue::Absent;
                        }
                        // Hundredths, rounded half up.
                        let avg = (2 * of.iter().sum::<u64>() + games) / (2 * games);
                        TieBreakValue::Points(Points::from_hundredths(avg))
                    })
                    .collect()
            }
            TieBreak::ProgressiveScore(cut) => self
                .rounds
                .iter()
                .map(|rs| {
                    let mut running = 0;
                    let mut sum = 0;
                    for (r, x) in rs.iter().enumerate() {
                        running += x.points;
                        if r >= usize::from(cut.low) {
                            sum += running;
                        }
                    }
                    TieBreakValue::Points(Points::from_tenths(sum))
                })
                .collect(),
            TieBreak::Koya => {
                // 9.2: opponents with at least half of the maximum score (win × rounds).
                let rounds = self.rounds.first().map_or(0, Vec::len) as u64;
                let limit_doubled = win * rounds;
                self.rounds
                    .iter()
                    .map(|rs| {
                        let sum = rs
                            .iter()
                            .filter(|r| {
                                r.opponent
                                    .is_some_and(|o| 2 * self.score[o] >= limit_doubled)
                            })
                            .map(|r| r.points)
                            .sum();
                        TieBreakValue::Points(Points::from_tenths(sum))
                    })
                    .collect()
            }
            TieBreak::DirectEncounter => vec![TieBreakValue::Position(1); n],
            TieBreak::Wins => count(&|r| r.points == win),
            TieBreak::GamesWon => count(&|r| r.game && r.points == win),
            TieBreak::StandardPoints => {
                // 1, ½ or 0 for each round as its points (game or not) are more than, equal to or
                // less than a draw's: a 3-1-0 crosstable read as 1-½-0.
                let draw = u64::from(self.ps().draw);
                self.rounds
                    .iter()
                    .map(|rs| {
                        let halves: u32 = rs
                            .iter()
                            .map(|r| match r.points.cmp(&draw) {
                                Ordering::Greater => 2,
                                Ordering::Equal => 1,
                                Ordering::Less => 0,
                            })
                            .sum();
                        TieBreakValue::Points(Points::from_halves(halves))
                    })
                    .collect()
            }
            TieBreak::BlackGames => count(&|r| r.game && r.black),
            TieBreak::BlackWins => count(&|r| r.game && r.black && r.points == win),
            TieBreak::ElectedToPlay => count(&|r| r.paired || r.points == win),
            TieBreak::VoluntaryUnplayed => self
                .rounds
                .iter()
                .map(|rs| {
                    TieBreakValue::Position(
                        u32::try_from(rs.iter().filter(|r| r.vur).count()).expect("rounds fit"),
                    )
                })
                .collect(),
            TieBreak::PairingNumber => (0..n)
                .map(|i| TieBreakValue::Position(PlayerNo::of(i).0))
                .collect(),
            TieBreak::Rating => (0..n)
                .map(|i| TieBreakValue::Rating(self.ratings[i].map(i32::from)))
                .collect(),
            TieBreak::AverageRatingOfOpponents(cut) => (0..n)
                .map(|i| TieBreakValue::Rating(aro(&cut_ratings(self.rated_games(i), cut))))
                .collect(),
            TieBreak::Performance => (0..n)
                .map(|i| TieBreakValue::Rating(self.performance(i)))
                .collect(),
            TieBreak::PerfectPerformance => (0..n)
                .map(|i| TieBreakValue::Rating(self.perfect_performance(i)))
                .collect(),
            TieBreak::AveragePerformanceOfOpponents => {
                let tpr: Vec<Option<i32>> = (0..n).map(|i| self.performance(i)).collect();
                self.average_of_opponents(&tpr)
            }
            TieBreak::AveragePerfectPerformanceOfOpponents => {
                let ptp: Vec<Option<i32>> = (0..n).map(|i| self.perfect_performance(i)).collect();
                self.average_of_opponents(&ptp)
            }
        }
    }

    /// Opponents met over the board, once per game.
    fn game_opponents(&self, i: usize) -> impl Iterator<Item = usize> + '_ {
        self.rounds[i]
            .iter()
            .filter(|r| r.game)
            .filter_map(|r| r.opponent)
    }

    /// (opponent's counted rating, rating points in halves) of each game with a counted rating.
    fn rated_games(&self, i: usize) -> Vec<(u16, u32)> {
        self.rounds[i]
            .iter()
            .filter(|r| r.game)
            .filter_map(|r| {
                let o = r.opponent?;
                Some((self.ratings[o]?, r.rating_halves))
            })
            .collect()
    }

    /// 10.2: ARO + dp(p), over the games with a counted rating.
    fn performance(&self, i: usize) -> Option<i32> {
        let games = self.rated_games(i);
        let aro = aro(&games)?;
        let n = games.len() as u64;
        let halves: u64 = games.iter().map(|g| u64::from(g.1)).sum();
        // p in whole percent, rounded half up.
        let percent = (100 * halves + n) / (2 * n);
        Some(aro + dp(u32::try_from(percent).expect("at most 100")))
    }

    /// 10.4: the lowest rating whose expected score against the opponents reaches the score.
    fn perfect_performance(&self, i: usize) -> Option<i32> {
        let games = self.rated_games(i);
        if games.is_empty() {
            return None;
        }
        let ratings: Vec<i32> = games.iter().map(|g| i32::from(g.0)).collect();
        // Hundredths of a point against expected scores in hundredths.
        let score: i64 = games.iter().map(|g| i64::from(g.1) * 50).sum();
        let lowest = *ratings.iter().min().expect("not empty");
        let highest = *ratings.iter().max().expect("not empty");
        if score == 0 {
            return Some(lowest - 800);
        }
        let expected = |r: i32| -> i64 { ratings.iter().map(|&o| expected_hundredths(r, o)).sum() };
        // Expected scores grow with the rating: the least rating reaching the score.
        let (mut low, mut high) = (lowest - 801, highest + 801);
        while high - low > 1 {
            let mid = low + (high - low) / 2;
            if expected(mid) >= score {
                high = mid;
            } else {
                low = mid;
            }
        }
        Some(high)
    }

    /// The average of the opponents' values over games, rounded half up; opponents without a
    /// value are left out.
    fn average_of_opponents(&self, of: &[Option<i32>]) -> Vec<TieBreakValue> {
        (0..self.n())
            .map(|i| {
                let values: Vec<i64> = self
                    .game_opponents(i)
                    .filter_map(|o| of[o].map(i64::from))
                    .collect();
                if values.is_empty() {
                    return TieBreakValue::Rating(None);
                }
                let n = values.len() as i64;
                let avg = (2 * values.iter().sum::<i64>() + n).div_euclid(2 * n);
                TieBreakValue::Rating(Some(i32::try_from(avg).expect("a rating")))
            })
            .collect()
    }

    /// BH (`sb` false) or SB, Fore Buchholz when `fore`, with `cut`.
    fn buchholz(&self, fore: bool, sb: bool, cut: Cut) -> Vec<TieBreakValue> {
        let draw = u64::from(self.ps().draw);
        let rounds = self.rounds.first().map_or(0, Vec::len);
        let (adjusted, own) = if fore {
            (&self.fore_adjusted, &self.fore_own)
        } else {
            (&self.adjusted, &self.score)
        };
        (0..self.n())
            .map(|i| {
                let mut list: Vec<Contribution> = self.rounds[i]
                    .iter()
                    .enumerate()
                    .map(|(r, x)| {
                        let counts_played = x.paired || (fore && r + 1 == rounds);
                        let (score, vur) = match x.opponent {
                            Some(o) if counts_played => (adjusted[o], false),
                            _ => {
                                // 16.4: the dummy opponent has the participant's own score.
                                let dummy = own[i];
                                let capped = match (self.options.rules, x.opponent) {
                                    (Rules::Fide2024, _) => dummy,
                                    // 16.4.1 (2026): at most the scheduled opponent's score.
                                    (Rules::Fide2026, Some(o)) => dummy.min(adjusted[o]),
                                    // 16.4.2 (2026): at most a draw in every round.
                                    (Rules::Fide2026, None) => dummy.min(draw * rounds as u64),
                                };
                                (capped, x.vur)
                            }
                        };
                        let value = if sb { score * x.points } else { score * 10 };
                        Contribution { vur, score, value }
                    })
                    .collect();
                let low = usize::from(cut.low).min(list.len());
                let high = usize::from(cut.high).min(list.len() - low);
                for _ in 0..low {
                    // 14.1 with 16.5: the lowest VUR contribution goes first, unless the least
                    // significant one is worth more.
                    let mut all = list.clone();
                    all.sort_by_key(|c| (c.score, c.value));
                    let mut vur_first = list.clone();
                    vur_first.sort_by_key(|c| (!c.vur, c.score, c.value));
                    list = if all[0].value > vur_first[0].value {
                        all
                    } else {
                        vur_first
                    };
                    list.remove(0);
                }
                for _ in 0..high {
                    list.sort_by_key(|c| (std::cmp::Reverse(c.score), std::cmp::Reverse(c.value)));
                    list.remove(0);
                }
                TieBreakValue::Points(Points::from_hundredths(list.iter().map(|c| c.value).sum()))
            })
            .collect()
    }
}

/// Average of the ratings, rounded half up; `None` without games.
fn aro(games: &[(u16, u32)]) -> Option<i32> {
    if games.is_empty() {
        return None;
    }
    let n = games.len() as u64;
    let sum: u64 = games.iter().map(|g| u64::from(g.0)).sum();
    Some(i32::try_from((2 * sum + n) / (2 * n)).expect("an average of u16 ratings"))
}

/// The games left after cutting the lowest (`low`) and highest (`high`) rated opponents.
fn cut_ratings(mut games: Vec<(u16, u32)>, cut: Cut) -> Vec<(u16, u32)> {
    games.sort_by_key(|g| g.0);
    let low = usize::from(cut.low).min(games.len());
    let high = usize::from(cut.high).min(games.len() - low);
    games.truncate(games.len() - high);
    games.drain(..low);
    games
}

/// FIDE dp for a percentage score p = 0..=100 (Rating Regulations 8.1.1); symmetric.
const DP: [i32; 51] = [
    0, 7, 14, 21, 29, 36, 43, 50, 57, 65, 72, 80, 87, 95, 102, 110, 117, 125, 133, 141, 149, 158,
    166, 175, 184, 193, 202, 211, 220, 230, 240, 251, 262, 273, 284, 296, 309, 322, 336, 351, 366,
    383, 401, 422, 444, 470, 501, 538, 589, 677, 800,
];

/// `dp` for a percentage score `p` in `0..=100`.
pub fn dp(percent: u32) -> i32 {
    let p = percent.min(100) as usize;
    if p >= 50 { DP[p - 50] } else { -DP[50 - p] }
}

/// The upper end of each rating difference band of FIDE's table (Rating Regulations 8.1.2):
/// a difference up to `PD_BANDS[k]` gives the higher-rated player an expected score of
/// `0.50 + k / 100`; more than 735 gives 1.00.
const PD_BANDS: [i32; 50] = [
    3, 10, 17, 25, 32, 39, 46, 53, 61, 68, 76, 83, 91, 98, 106, 113, 121, 129, 137, 145, 153, 162,
    170, 179, 188, 197, 206, 215, 225, 235, 245, 256, 267, 278, 290, 302, 315, 328, 344, 357, 374,
    391, 411, 432, 456, 484, 517, 559, 619, 735,
];

/// The expected score, in hundredths, of a player rated `r` against one rated `opponent`.
fn expected_hundredths(r: i32, opponent: i32) -> i64 {
    let diff = (r - opponent).abs();
    let band = PD_BANDS
        .iter()
        .position(|&top| diff <= top)
        .unwrap_or(PD_BANDS.len());
    let higher = 50 + band as i64;
    if r >= opponent { higher } else { 100 - higher }
}

/// An exact non-negative fraction, for DE averages over repeated encounters.
#[derive(Debug, Clone, Copy)]
struct Ratio {
    num: u64,
    den: u64,
}

impl Ratio {
    const ZERO: Ratio = Ratio { num: 0, den: 1 };

    fn add(self, other: Ratio) -> Ratio {
        let num = self.num * other.den + other.num * self.den;
        let den = self.den * other.den;
        let g = gcd(num, den);
        Ratio {
            num: num / g,
            den: den / g,
        }
    }

    fn cmp(self, other: Ratio) -> Ordering {
        (u128::from(self.num) * u128::from(other.den))
            .cmp(&(u128::from(other.num) * u128::from(self.den)))
    }
}

fn gcd(a: u64, b: u64) -> u64 {
    if b == 0 { a.max(1) } else { gcd(b, a % b) }
}

/// Article 6 applied to a tie group: each member's position inside the group (1 = best;
/// members still tied share a position), in the order of `tied`.
///
/// # Panics
/// If a player is not in the crosstable.
pub fn direct_encounter(table: &Crosstable, tied: &[PlayerNo]) -> Vec<u32> {
    let group: Vec<usize> = tied.iter().map(|p| p.index()).collect();
    de_positions(&Context::new(table, &Options::default()), &group)
}

/// DE positions (1-based, shared) of `group`'s members, aligned with `group`.
fn de_positions(ctx: &Context<'_>, group: &[usize]) -> Vec<u32> {
    if group.len() < 2 {
        return vec![1; group.len()];
    }
    let positions = direct_encounter_once(ctx, group);
    if positions.iter().all(|&p| p == positions[0]) {
        return positions;
    }
    // Apply DE again inside every part that is still tied.
    let mut result = positions.clone();
    let mut seen = Vec::new();
    for &p in &positions {
        if seen.contains(&p) {
            continue;
        }
        seen.push(p);
        let members: Vec<usize> = (0..group.len()).filter(|&k| positions[k] == p).collect();
        if members.len() < 2 {
            continue;
        }
        let part: Vec<usize> = members.iter().map(|&k| group[k]).collect();
        for (&k, sub) in members.iter().zip(de_positions(ctx, &part)) {
            result[k] = p + sub - 1;
        }
    }
    result
}

/// One application of article 6 to `group`, in the tournament's points.
fn direct_encounter_once(ctx: &Context<'_>, group: &[usize]) -> Vec<u32> {
    let m = group.len();
    let win = u64::from(ctx.ps().win);
    let mut score = vec![Ratio::ZERO; m];
    let mut missing = vec![0u64; m];
    for (a, &i) in group.iter().enumerate() {
        for &j in group {
            if i == j {
                continue;
            }
            let (mut games, mut tenths) = (0u64, 0u64);
            for r in &ctx.rounds[i] {
                if r.game && r.opponent == Some(j) {
                    games += 1;
                    tenths += r.points;
                }
            }
            if games == 0 {
                missing[a] += 1;
            } else {
                // Average result: tenths / games.
                score[a] = score[a].add(Ratio {
                    num: tenths,
                    den: games,
                });
            }
        }
    }
    let mut order: Vec<usize> = (0..m).collect();
    let best_case = |a: usize| {
        score[a].add(Ratio {
            num: missing[a] * win,
            den: 1,
        })
    };
    order.sort_by(|&a, &b| {
        score[b]
            .cmp(score[a])
            .then(best_case(b).cmp(best_case(a)))
            .then(group[a].cmp(&group[b]))
    });
    let mut positions = vec![0u32; m];
    let position = |k: usize| u32::try_from(k + 1).expect("group fits in u32");
    if missing.iter().all(|&x| x == 0) {
        // 6: everyone met; equal scores stay tied.
        for (k, &a) in order.iter().enumerate() {
            positions[a] = match k {
                0 => 1,
                _ if score[a].cmp(score[order[k - 1]]) == Ordering::Equal => {
                    positions[order[k - 1]]
                }
                _ => position(k),
            };
        }
    } else {
        // Not everyone met: rank alone only who stays on top whatever the missing games give.
        let mut k = 0;
        while k + 1 < m {
            let a = order[k];
            let beaten_by_all_outcomes = order[k + 1..]
                .iter()
                .all(|&b| score[a].cmp(best_case(b)) == Ordering::Greater);
            if !beaten_by_all_outcomes {
                break;
            }
            positions[a] = position(k);
            k += 1;
        }
        for &a in &order[k..] {
            positions[a] = position(k);
        }
    }
    positions
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Four players, three rounds: R1 1-2 1-0, 3-4 0-1; R2 1 half-point bye, 3-2 0-1, 4 PAB;
    /// R3 1-4 forfeit (4 absent), 2-3 ½. Scores 2.5, 1.5, 0.5, 2; ratings 2000 to 1400.
    fn four() -> Vec<PlayerRecord> {
        use Colour::{Black, White};
        let game = |o: u32, colour, outcome| RoundEntry::Played {
            opponent: PlayerNo(o),
            colour,
            outcome,
        };
        let un = RoundEntry::Unplayed;
        let rows = [
            (
                2000,
                [
                    game(2, White, Outcome::Win),
                    un(Unplayed::HalfPointBye),
                    un(Unplayed::ForfeitWin {
                        opponent: PlayerNo(4),
                    }),
                ],
            ),
            (
                1800,
                [
                    game(1, Black, Outcome::Loss),
                    game(3, Black, Outcome::Win),
                    game(3, White, Outcome::Draw),
                ],
            ),
            (
                1600,
                [
                    game(4, White, Outcome::Loss),
                    game(2, White, Outcome::Loss),
                    game(2, Black, Outcome::Draw),
                ],
            ),
            (
                1400,
                [
                    game(3, Black, Outcome::Win),
                    un(Unplayed::PairingBye),
                    un(Unplayed::ForfeitLoss {
                        opponent: PlayerNo(1),
                    }),
                ],
            ),
        ];
        rows.into_iter()
            .map(|(rating, rounds)| PlayerRecord {
                rating: Some(rating),
                rounds: rounds.to_vec(),
            })
            .collect()
    }

    fn value(table: &Crosstable, tb: &str, rules: Rules, player: u32) -> String {
        let tb: TieBreak = tb.parse().expect("a tie-break");
        let options = Options {
            rules,
            unrated: Unrated::Drop,
        };
        standings(table, &[tb], &options)
            .into_iter()
            .find(|s| s.player.0 == player)
            .expect("a player")
            .values[0]
            .to_string()
    }

    #[test]
    fn each_tie_break_follows_its_article() {
        use Rules::{Fide2024 as R24, Fide2026 as R26};
        let table = Crosstable::new(four()).expect("consistent");
        // (article, tie-break, rules, player, value worked out by hand)
        let cases = [
            ("7.1 wins with or without playing", "WIN", R24, 4, "2"),
            ("7.1", "WIN", R24, 1, "2"),
            ("7.2 games won over the board", "WON", R24, 1, "1"),
            ("7.3 games with Black", "BPG", R24, 2, "2"),
            ("7.4 wins with Black", "BWG", R24, 4, "1"),
            ("7.5 progressive scores", "PS", R24, 1, "5"),
            ("14.1 PS cut: round 1 left out", "PS-C1", R24, 1, "4"),
            (
                "7.6 rounds elected to play: the PAB counts",
                "REP",
                R24,
                4,
                "2",
            ),
            (
                "7.6: a forfeit win counts, a requested bye not",
                "REP",
                R24,
                1,
                "2",
            ),
            ("16.1.2 VUR: half-point bye", "VUR", R24, 1, "1"),
            ("16.1.2 VUR: forfeit loss, not the PAB", "VUR", R24, 4, "1"),
            ("9.2 Koya: opponents on at least 1.5", "KS", R24, 1, "2"),
            ("9.2", "KS", R24, 3, "0.5"),
            ("8.1 + 16.4 dummy at own score", "BH", R24, 1, "6.5"),
            ("16.4.1-2 (2026) dummy capped", "BH", R26, 1, "5"),
            ("16.4.2 (2026) PAB dummy at most 1.5", "BH", R26, 4, "4"),
            ("16.5 VUR cut first (forfeit loss)", "BH-C1", R24, 4, "2.5"),
            ("16.5 (2026)", "BH-C1", R26, 4, "2"),
            ("16.5 half-point bye cut first", "BH-C1", R24, 1, "4"),
            ("9.1 SB with dummies", "SB", R24, 1, "5.25"),
            ("9.1 SB, 2026 caps", "SB", R26, 1, "4.25"),
            ("10.1 ARO rounded", "ARO", R24, 2, "1733"),
            ("10.1 + 14.1 ARO cut", "ARO-C1", R24, 2, "1800"),
            ("10.2 TPR", "TPR", R24, 1, "2600"),
            ("10.2 TPR at 50 %", "TPR", R24, 2, "1733"),
            (
                "10.4 PTP: a sole win needs 736 above",
                "PTP",
                R24,
                1,
                "2536",
            ),
            ("RTNG", "RTNG", R24, 4, "1400"),
            ("TPN", "TPN", R24, 3, "3"),
        ];
        for (article, tb, rules, player, expected) in cases {
            assert_eq!(
                value(&table, tb, rules, player),
                expected,
                "{article}: {tb} of player {player} under {rules}"
            );
        }
    }

    #[test]
    fn a_point_system_counts_in_points_and_scores() {
        // Article 5 with the tournament's points (3-1-0).
        let ps = PointSystem {
            win: 30,
            draw: 10,
            loss: 0,
            forfeit_loss: 0,
            zero_bye: 0,
            pab: 30,
        };
        let table = Crosstable::with_points(four(), ps).expect("consistent");
        assert_eq!(table.points(PlayerNo(1)), Points::from_tenths(70));
        assert_eq!(value(&table, "BH", Rules::Fide2024, 1), "18");
        // Limit 4.5 (half of 3 × 3): player 2 (4) is below it, player 4 (6) not.
        assert_eq!(value(&table, "KS", Rules::Fide2024, 1), "3");
        let order: Vec<u32> = standings(&table, &[], &Options::default())
            .iter()
            .map(|s| s.player.0)
            .collect();
        assert_eq!(order, [1, 4, 2, 3]);
    }

    #[test]
    fn unrated_players_drop_rating_tie_breaks_or_take_the_given_rating() {
        let mut players = four();
        players[1].rating = None;
        let table = Crosstable::new(players).expect("consistent");
        let tpr = |unrated| {
            let options = Options {
                rules: Rules::Fide2026,
                unrated,
            };
            standings(&table, &[TieBreak::Performance], &options)
                .into_iter()
                .find(|s| s.player.0 == 1)
                .expect("player 1")
                .values[0]
                .to_string()
        };
        assert_eq!(tpr(Unrated::Drop), "-");
        assert_eq!(tpr(Unrated::Rating(1000)), "1800");
        assert_eq!(tpr(Unrated::Ignore), "-");
    }

    #[test]
    fn dp_table_is_fide_s() {
        assert_eq!(dp(50), 0);
        assert_eq!(dp(100), 800);
        assert_eq!(dp(0), -800);
        assert_eq!(dp(75), 193);
        assert_eq!(dp(25), -193);
        assert_eq!(dp(99), 677);
        assert_eq!(dp(83), 273);
    }

    #[test]
    fn expected_scores_follow_fide_s_table() {
        // Rating Regulations 8.1.2: (difference, expected score of the higher-rated player).
        for (diff, pd) in [
            (0, 50),
            (3, 50),
            (4, 51),
            (100, 64),
            (344, 88),
            (345, 89),
            (735, 99),
            (736, 100),
        ] {
            assert_eq!(expected_hundredths(2000 + diff, 2000), pd, "diff {diff}");
            assert_eq!(
                expected_hundredths(2000, 2000 + diff),
                100 - pd,
                "diff -{diff}"
            );
        }
    }

    #[test]
    fn points_print_exactly() {
        let shown: Vec<String> = [0, 25, 50, 75, 100, 110, 105, 3000]
            .into_iter()
            .map(|h| Points::from_hundredths(h).to_string())
            .collect();
        assert_eq!(
            shown,
            ["0", "0.25", "0.5", "0.75", "1", "1.1", "1.05", "30"]
        );
    }

    #[test]
    fn rules_follow_the_start_date() {
        // C.07 2026: in force for events starting from 1 March 2026.
        for (text, rules) in [
            ("2026/03/01", Rules::Fide2026),
            ("2026-02-28", Rules::Fide2024),
            ("01.03.2026", Rules::Fide2026),
            ("28/02/2026", Rules::Fide2024),
            ("2024.08.01 10:00", Rules::Fide2024),
        ] {
            let date = parse_date(text).expect("a date");
            assert_eq!(Rules::for_start(date), rules, "{text}");
        }
        assert_eq!(parse_date("next week"), None);
        assert_eq!(date_from_unix_days(0), (1970, 1, 1));
        assert_eq!(date_from_unix_days(20_513), (2026, 3, 1));
        assert_eq!(date_from_unix_days(20_512), (2026, 2, 28));
        assert_eq!(date_from_unix_days(11_016), (2000, 2, 29));
        assert_eq!(parse_date("2026/13/01"), None);
    }
}
