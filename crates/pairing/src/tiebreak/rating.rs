//! The rating-based tie-breaks (article 10): ARO, TPR, PTP, APRO, APPO, with FIDE's dp and
//! expected-score tables.

use super::context::Context;
use super::kinds::{Cut, TieBreakValue};

impl Context<'_> {
    /// (opponent's counted rating, rating points in halves) of each game with a counted rating.
    pub(super) fn rated_games(&self, i: usize) -> Vec<(u16, u32)> {
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
    pub(super) fn performance(&self, i: usize) -> Option<i32> {
        let games = self.rated_games(i);
        let aro = aro(&games)?;
        let n = games.len() as u64;
        let halves: u64 = games.iter().map(|g| u64::from(g.1)).sum();
        // p in whole percent, rounded half up.
        let percent = (100 * halves + n) / (2 * n);
        Some(aro + dp(u32::try_from(percent).expect("at most 100")))
    }

    /// 10.4: the lowest rating whose expected score against the opponents reaches the score.
    pub(super) fn perfect_performance(&self, i: usize) -> Option<i32> {
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
    pub(super) fn average_of_opponents(&self, of: &[Option<i32>]) -> Vec<TieBreakValue> {
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
}

/// Average of the ratings, rounded half up; `None` without games.
pub(super) fn aro(games: &[(u16, u32)]) -> Option<i32> {
    if games.is_empty() {
        return None;
    }
    let n = games.len() as u64;
    let sum: u64 = games.iter().map(|g| u64::from(g.0)).sum();
    Some(i32::try_from((2 * sum + n) / (2 * n)).expect("an average of u16 ratings"))
}

/// The games left after cutting the lowest (`low`) and highest (`high`) rated opponents.
pub(super) fn cut_ratings(mut games: Vec<(u16, u32)>, cut: Cut) -> Vec<(u16, u32)> {
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
pub(super) fn expected_hundredths(r: i32, opponent: i32) -> i64 {
    let diff = (r - opponent).abs();
    let band = PD_BANDS
        .iter()
        .position(|&top| diff <= top)
        .unwrap_or(PD_BANDS.len());
    let higher = 50 + band as i64;
    if r >= opponent { higher } else { 100 - higher }
}
