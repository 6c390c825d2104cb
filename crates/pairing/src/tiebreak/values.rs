//! Every participant's value of one tie-break: the counts, progressive scores and Koya here,
//! the Buchholz and rating families from their own modules.

use std::cmp::Ordering;

use super::context::{Context, Round};
use super::crosstable::Points;
use super::kinds::{Cut, TieBreak, TieBreakValue};
use super::rating::{aro, cut_ratings};
use crate::tournament::StartRank as PlayerNo;

impl Context<'_> {
    /// Every participant's value of `tb` (DE: a placeholder filled in per tie group).
    pub(super) fn values(&self, tb: TieBreak) -> Vec<TieBreakValue> {
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
}
