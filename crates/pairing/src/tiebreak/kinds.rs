//! The tie-breaks by acronym, with their cut and median modifiers, and the values they give.

use std::cmp::Ordering;
use std::fmt;
use std::str::FromStr;

use thiserror::Error;

use super::crosstable::Points;
use crate::tournament::StartRank as PlayerNo;

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

    pub(super) fn is_rating_based(self) -> bool {
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
    pub(super) fn rank_cmp(self, other: TieBreakValue) -> Ordering {
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
