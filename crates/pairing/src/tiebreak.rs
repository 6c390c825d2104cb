//! Standings with FIDE tie-breaks (Handbook C.07, the regulations in force from 1 August 2024).
//!
//! # What is implemented, and which article it follows
//! | acronym | name | article |
//! |---|---|---|
//! | `BH` | Buchholz: sum of the opponents' scores | 8.1, with 16 for unplayed rounds |
//! | `BH-C1` | Buchholz Cut-1: BH without the least significant contribution | 14.1 and 16.5 |
//! | `SB` | Sonneborn-Berger: sum of opponent score × points scored against them | 9.1, with 16 |
//! | `PS` | (sum of) progressive scores: the running score after each round, summed | 7.5 |
//! | `DE` | direct encounter among the tied participants | 6 |
//! | `WIN` | rounds in which the participant got a win's points, with or without playing | 7.1 |
//! | `WON` | games won over the board | 7.2 |
//! | `TPR` | tournament performance rating: ARO + dp(p) | 10.2 (ARO 10.1) |
//!
//! Scores count in points (win 1, draw ½, loss 0); values are exact ([`Points`] counts
//! quarter points, enough for every product in SB). Players are numbered from 1 ([`PlayerNo`]).
//!
//! # Unplayed rounds (article 16, Swiss tournaments)
//! An unplayed round is any round without a game over the board: pairing-allocated bye
//! (PAB, a win's points), half-point bye, zero-point bye (also every round after a
//! withdrawal, 16.1.1), forfeit win, forfeit loss. A *voluntary unplayed round* (VUR,
//! 16.1.2) is a requested bye (half- or zero-point) or a forfeit loss.
//! - **As somebody's opponent** (16.3), a participant's score is *adjusted*: every unplayed
//!   round counts with the points awarded, except requested byes that are followed only by
//!   VURs, or fall in the last round (category 16.2.5), which count as draws. So a player
//!   who withdrew counts ½ for each round after their last available round.
//! - **For the participant's own BH and SB** (16.4), each of their unplayed rounds counts as
//!   a game against a dummy whose score is the participant's own (unadjusted) score, with
//!   the result matching the points awarded (a forfeit win is a win against the dummy, a
//!   half-point bye a draw, a zero-point bye or forfeit loss a loss).
//! - **Cut-1 exception** (16.5.1): for a participant with VURs, the contribution cut is the
//!   lowest one coming from a VUR (it is never below the least significant value, so it is
//!   always the one cut).
//!
//! The 2026 revision (in force from 1 March 2026) caps the dummy's score (16.4.1: at the
//! scheduled opponent's adjusted score for forfeits; 16.4.2: at a draw's points times the
//! number of rounds otherwise). Those caps are **not** applied here; the values follow the
//! 2024 text and FIDE's tie-break server (`TEC-FIDE/TieBreakServer`).
//!
//! # Decisions where the text leaves room
//! - `DE` counts only games played over the board (forfeits are unplayed rounds). When two
//!   tied participants met more than once, their average result counts. When not all tied
//!   participants met, a participant is ranked alone only when their DE score beats the best
//!   score any other could still reach by winning every missing game (article 6, "whatever
//!   the outcome of the missing games"), and so on down; the rest stay tied. When DE splits
//!   a group, it is applied again to each part that is still tied, counting only the games
//!   inside that part (as the tie-break server does). The reported value is the position
//!   inside the tie group (1 = best, shared positions stay shared).
//! - `WIN` counts played wins, forfeit wins and pairing-allocated byes (all give a win's
//!   points "with or without playing"); `WON` counts played wins only.
//! - `TPR` uses only games played over the board against rated opponents; forfeits and byes
//!   are not games. ARO is the average of those ratings rounded half up; `p` is the score
//!   percentage in those games rounded half up to a whole percent, and `dp(p)` comes from the
//!   FIDE table (Rating Regulations 8.1.1). A player without such games has no TPR (`-`),
//!   which ranks below any TPR.
//! - Article 15.2 (round robins: forfeits count as games against the scheduled opponent) is
//!   not implemented; every crosstable is treated as a Swiss. BH and SB are not meant for
//!   round robins anyway (note to article 8).
//! - Players still tied after the whole list share their rank; they are listed by number.

use std::cmp::Ordering;
use std::fmt;
use std::str::FromStr;

use thiserror::Error;

/// A participant's 1-based starting number (the TRF starting rank): the tournament's
/// [`PlayerId`](crate::PlayerId), under the name the tie-break tables use.
pub use crate::tournament::PlayerId as PlayerNo;

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
    /// Pairing-allocated bye: a win's points.
    PairingBye,
    /// Requested half-point bye.
    HalfPointBye,
    /// Requested zero-point bye, absence, or any round after withdrawing.
    ZeroPointBye,
    /// The scheduled opponent did not play: a win's points.
    ForfeitWin { opponent: PlayerNo },
    /// The participant did not play: no points (both sides in a double forfeit).
    ForfeitLoss { opponent: PlayerNo },
}

impl Unplayed {
    fn halves(self) -> u32 {
        match self {
            Unplayed::PairingBye | Unplayed::ForfeitWin { .. } => 2,
            Unplayed::HalfPointBye => 1,
            Unplayed::ZeroPointBye | Unplayed::ForfeitLoss { .. } => 0,
        }
    }
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
    fn halves(self) -> u32 {
        match self {
            RoundEntry::Played { outcome, .. } => outcome.halves(),
            RoundEntry::Unplayed(u) => u.halves(),
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

    fn is_requested_bye(self) -> bool {
        matches!(
            self,
            RoundEntry::Unplayed(Unplayed::HalfPointBye | Unplayed::ZeroPointBye)
        )
    }
}

/// One participant's line of the crosstable.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PlayerRecord {
    /// `None` for an unrated player (not counted in opponents' TPR).
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
}

/// The largest field accepted (keeps every sum of quarter points far inside `u32`).
pub const MAX_PLAYERS: usize = 100_000;

impl Crosstable {
    /// Checks that every game and forfeit is recorded on both sides, consistently.
    pub fn new(players: Vec<PlayerRecord>) -> Result<Crosstable, CrosstableError> {
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
        Ok(Crosstable { players })
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
        Points::from_halves(self.halves(player.index()))
    }

    fn halves(&self, index: usize) -> u32 {
        self.players[index].rounds.iter().map(|e| e.halves()).sum()
    }

    /// 16.3: the score used when this participant is somebody's opponent, in half points.
    fn adjusted_halves(&self, index: usize) -> u32 {
        let rounds = &self.players[index].rounds;
        let last_available = rounds.iter().rposition(|e| !e.is_vur());
        rounds
            .iter()
            .enumerate()
            .map(|(r, e)| {
                let trailing = last_available.is_none_or(|last| r > last);
                if e.is_requested_bye() && trailing {
                    1
                } else {
                    e.halves()
                }
            })
            .sum()
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

/// An exact score or score-like value, in quarter points (SB multiplies two half points).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub struct Points {
    quarters: u32,
}

impl Points {
    /// `halves` half points.
    pub fn from_halves(halves: u32) -> Points {
        Points {
            quarters: halves * 2,
        }
    }

    /// `quarters` quarter points.
    pub fn from_quarters(quarters: u32) -> Points {
        Points { quarters }
    }

    /// The value in quarter points.
    pub fn quarters(self) -> u32 {
        self.quarters
    }
}

impl fmt::Display for Points {
    /// `3`, `3.5`, `3.25`, `3.75`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let whole = self.quarters / 4;
        match self.quarters % 4 {
            0 => write!(f, "{whole}"),
            1 => write!(f, "{whole}.25"),
            2 => write!(f, "{whole}.5"),
            _ => write!(f, "{whole}.75"),
        }
    }
}

/// A tie-break from C.07, named by its FIDE acronym.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum TieBreak {
    Buchholz,
    BuchholzCut1,
    SonnebornBerger,
    ProgressiveScore,
    DirectEncounter,
    Wins,
    GamesWon,
    Performance,
}

impl TieBreak {
    /// Every tie-break, in the order of the table in the module docs.
    pub const ALL: [TieBreak; 8] = [
        TieBreak::Buchholz,
        TieBreak::BuchholzCut1,
        TieBreak::SonnebornBerger,
        TieBreak::ProgressiveScore,
        TieBreak::DirectEncounter,
        TieBreak::Wins,
        TieBreak::GamesWon,
        TieBreak::Performance,
    ];

    /// The FIDE acronym.
    pub fn acronym(self) -> &'static str {
        match self {
            TieBreak::Buchholz => "BH",
            TieBreak::BuchholzCut1 => "BH-C1",
            TieBreak::SonnebornBerger => "SB",
            TieBreak::ProgressiveScore => "PS",
            TieBreak::DirectEncounter => "DE",
            TieBreak::Wins => "WIN",
            TieBreak::GamesWon => "WON",
            TieBreak::Performance => "TPR",
        }
    }
}

impl fmt::Display for TieBreak {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.acronym())
    }
}

/// A tie-break name that is not one of the FIDE acronyms supported here.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[error("unknown tie-break {name:?}: expected one of BH, BH-C1, SB, PS, DE, WIN, WON, TPR")]
pub struct UnknownTieBreak {
    pub name: String,
}

impl FromStr for TieBreak {
    type Err = UnknownTieBreak;

    fn from_str(s: &str) -> Result<TieBreak, UnknownTieBreak> {
        TieBreak::ALL
            .into_iter()
            .find(|tb| tb.acronym() == s)
            .ok_or_else(|| UnknownTieBreak { name: s.to_owned() })
    }
}

/// One tie-break value of one participant.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum TieBreakValue {
    /// BH, BH-C1, SB, PS: higher is better.
    Points(Points),
    /// WIN, WON: higher is better.
    Count(u32),
    /// DE: position inside the tie group, lower is better.
    Position(u32),
    /// TPR: higher is better; `None` (no rated games) is worst.
    Rating(Option<i32>),
}

impl TieBreakValue {
    /// `Less` when `self` ranks ahead of `other`.
    fn rank_cmp(self, other: TieBreakValue) -> Ordering {
        match (self, other) {
            (TieBreakValue::Points(a), TieBreakValue::Points(b)) => b.cmp(&a),
            (TieBreakValue::Count(a), TieBreakValue::Count(b)) => b.cmp(&a),
            (TieBreakValue::Position(a), TieBreakValue::Position(b)) => a.cmp(&b),
            (TieBreakValue::Rating(a), TieBreakValue::Rating(b)) => b.cmp(&a),
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
            TieBreakValue::Rating(None) => f.write_str("-"),
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
pub fn standings(table: &Crosstable, order: &[TieBreak]) -> Vec<Standing> {
    let n = table.players.len();
    let halves: Vec<u32> = (0..n).map(|i| table.halves(i)).collect();
    let adjusted: Vec<u32> = (0..n).map(|i| table.adjusted_halves(i)).collect();
    let mut values: Vec<Vec<TieBreakValue>> = (0..n)
        .map(|i| {
            order
                .iter()
                .map(|&tb| player_value(table, &halves, &adjusted, i, tb))
                .collect()
        })
        .collect();

    let mut by_points: Vec<usize> = (0..n).collect();
    by_points.sort_by_key(|&i| (std::cmp::Reverse(halves[i]), i));
    let mut groups = split(by_points, |a, b| halves[a] == halves[b]);

    for (k, &tb) in order.iter().enumerate() {
        let mut next = Vec::with_capacity(groups.len());
        for mut group in groups {
            if tb == TieBreak::DirectEncounter {
                for (&i, position) in group.iter().zip(de_positions(table, &group)) {
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
                points: Points::from_halves(halves[i]),
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

/// Every tie-break except DE, which depends on the tie group.
fn player_value(
    table: &Crosstable,
    halves: &[u32],
    adjusted: &[u32],
    i: usize,
    tb: TieBreak,
) -> TieBreakValue {
    let rounds = &table.players[i].rounds;
    // 16.3 / 16.4: the opponent's adjusted score, or the dummy's (own score), in half points.
    let opponent_score = |e: &RoundEntry| match *e {
        RoundEntry::Played { opponent, .. } => adjusted[opponent.index()],
        RoundEntry::Unplayed(_) => halves[i],
    };
    match tb {
        TieBreak::Buchholz => {
            TieBreakValue::Points(Points::from_halves(rounds.iter().map(opponent_score).sum()))
        }
        TieBreak::BuchholzCut1 => {
            let total: u32 = rounds.iter().map(opponent_score).sum();
            // 16.5.1: a VUR's contribution is cut first; otherwise the lowest.
            let cut = rounds
                .iter()
                .filter(|e| e.is_vur())
                .map(opponent_score)
                .min()
                .or_else(|| rounds.iter().map(opponent_score).min())
                .unwrap_or(0);
            TieBreakValue::Points(Points::from_halves(total - cut))
        }
        TieBreak::SonnebornBerger => TieBreakValue::Points(Points::from_quarters(
            rounds.iter().map(|e| opponent_score(e) * e.halves()).sum(),
        )),
        TieBreak::ProgressiveScore => {
            let mut running = 0;
            let mut sum = 0;
            for e in rounds {
                running += e.halves();
                sum += running;
            }
            TieBreakValue::Points(Points::from_halves(sum))
        }
        TieBreak::Wins => TieBreakValue::Count(count(rounds, |e| e.halves() == 2)),
        TieBreak::GamesWon => TieBreakValue::Count(count(rounds, |e| {
            matches!(
                e,
                RoundEntry::Played {
                    outcome: Outcome::Win,
                    ..
                }
            )
        })),
        TieBreak::Performance => TieBreakValue::Rating(performance(table, i)),
        // Filled in per tie group by `standings`.
        TieBreak::DirectEncounter => TieBreakValue::Position(1),
    }
}

fn count(rounds: &[RoundEntry], pred: impl Fn(&RoundEntry) -> bool) -> u32 {
    u32::try_from(rounds.iter().filter(|e| pred(e)).count()).expect("rounds fit in u32")
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

/// TPR (10.2) over games played against rated opponents.
fn performance(table: &Crosstable, i: usize) -> Option<i32> {
    let mut games: u64 = 0;
    let mut rating_sum: u64 = 0;
    let mut halves: u64 = 0;
    for e in &table.players[i].rounds {
        if let RoundEntry::Played {
            opponent, outcome, ..
        } = *e
            && let Some(rating) = table.players[opponent.index()].rating
        {
            games += 1;
            rating_sum += u64::from(rating);
            halves += u64::from(outcome.halves());
        }
    }
    if games == 0 {
        return None;
    }
    // Rounded half up: floor(x + 1/2).
    let aro = (2 * rating_sum + games) / (2 * games);
    let percent = (100 * halves + games) / (2 * games);
    let aro = i32::try_from(aro).expect("an average of u16 ratings");
    Some(aro + dp(u32::try_from(percent).expect("at most 100")))
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
    de_positions(table, &group)
}

/// DE positions (1-based, shared) of `group`'s members, aligned with `group`.
fn de_positions(table: &Crosstable, group: &[usize]) -> Vec<u32> {
    if group.len() < 2 {
        return vec![1; group.len()];
    }
    let positions = direct_encounter_once(table, group);
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
        for (&k, sub) in members.iter().zip(de_positions(table, &part)) {
            result[k] = p + sub - 1;
        }
    }
    result
}

/// One application of article 6 to `group`.
fn direct_encounter_once(table: &Crosstable, group: &[usize]) -> Vec<u32> {
    let m = group.len();
    let mut score = vec![Ratio::ZERO; m];
    let mut missing = vec![0u64; m];
    for (a, &i) in group.iter().enumerate() {
        for &j in group {
            if i == j {
                continue;
            }
            let (mut games, mut halves) = (0u64, 0u64);
            for e in &table.players[i].rounds {
                if let RoundEntry::Played {
                    opponent, outcome, ..
                } = *e
                    && opponent.index() == j
                {
                    games += 1;
                    halves += u64::from(outcome.halves());
                }
            }
            if games == 0 {
                missing[a] += 1;
            } else {
                // Average result in points: halves / (2 * games).
                score[a] = score[a].add(Ratio {
                    num: halves,
                    den: 2 * games,
                });
            }
        }
    }
    let mut order: Vec<usize> = (0..m).collect();
    let best_case = |a: usize| {
        score[a].add(Ratio {
            num: missing[a],
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
    fn points_print_exactly() {
        let shown: Vec<String> = (0..8)
            .map(|q| Points::from_quarters(q).to_string())
            .collect();
        assert_eq!(
            shown,
            ["0", "0.25", "0.5", "0.75", "1", "1.25", "1.5", "1.75"]
        );
    }
}
