//! FIDE Elo: the tables of the FIDE Rating Regulations (1 March 2024) and the per-game rules.
//!
//! Every quantity that the regulations give with two decimals (scores, scoring
//! probabilities, percentages) is held here as a whole number of hundredths, so that
//! `K × (W − We)` is an exact integer before it is rounded. Floating point would turn
//! `10 × (1 − 0.65)` into `3.4999…` and round a FIDE `+4` down to `+3`.

use crate::config::EloConfig;
use crate::score::Score;

/// Table 8.1.2, as printed: for each range of rating difference `D` (upper bound,
/// inclusive), the scoring probability `PD` of the higher rated player in hundredths.
/// The lower rated player's `PD` is `100 − H` on every row. The last row is `> 735`.
pub const RATING_DIFFERENCE_TABLE: [(u16, u8); 51] = [
    (3, 50),
    (10, 51),
    (17, 52),
    (25, 53),
    (32, 54),
    (39, 55),
    (46, 56),
    (53, 57),
    (61, 58),
    (68, 59),
    (76, 60),
    (83, 61),
    (91, 62),
    (98, 63),
    (106, 64),
    (113, 65),
    (121, 66),
    (129, 67),
    (137, 68),
    (145, 69),
    (153, 70),
    (162, 71),
    (170, 72),
    (179, 73),
    (188, 74),
    (197, 75),
    (206, 76),
    (215, 77),
    (225, 78),
    (235, 79),
    (245, 80),
    (256, 81),
    (267, 82),
    (278, 83),
    (290, 84),
    (302, 85),
    (315, 86),
    (328, 87),
    (344, 88),
    (357, 89),
    (374, 90),
    (391, 91),
    (411, 92),
    (432, 93),
    (456, 94),
    (484, 95),
    (517, 96),
    (559, 97),
    (619, 98),
    (735, 99),
    (u16::MAX, 100),
];

/// Table 8.1.1 (and the identical table 1.4.9 of the Title Regulations), as printed:
/// fractional score `p` in hundredths and the rating difference `dp`. For `p` of 0 and 1
/// the regulations show `dp` "notionally" as ∓800.
pub const SCORE_TABLE: [(u8, i16); 101] = [
    (100, 800),
    (99, 677),
    (98, 589),
    (97, 538),
    (96, 501),
    (95, 470),
    (94, 444),
    (93, 422),
    (92, 401),
    (91, 383),
    (90, 366),
    (89, 351),
    (88, 336),
    (87, 322),
    (86, 309),
    (85, 296),
    (84, 284),
    (83, 273),
    (82, 262),
    (81, 251),
    (80, 240),
    (79, 230),
    (78, 220),
    (77, 211),
    (76, 202),
    (75, 193),
    (74, 184),
    (73, 175),
    (72, 166),
    (71, 158),
    (70, 149),
    (69, 141),
    (68, 133),
    (67, 125),
    (66, 117),
    (65, 110),
    (64, 102),
    (63, 95),
    (62, 87),
    (61, 80),
    (60, 72),
    (59, 65),
    (58, 57),
    (57, 50),
    (56, 43),
    (55, 36),
    (54, 29),
    (53, 21),
    (52, 14),
    (51, 7),
    (50, 0),
    (49, -7),
    (48, -14),
    (47, -21),
    (46, -29),
    (45, -36),
    (44, -43),
    (43, -50),
    (42, -57),
    (41, -65),
    (40, -72),
    (39, -80),
    (38, -87),
    (37, -95),
    (36, -102),
    (35, -110),
    (34, -117),
    (33, -125),
    (32, -133),
    (31, -141),
    (30, -149),
    (29, -158),
    (28, -166),
    (27, -175),
    (26, -184),
    (25, -193),
    (24, -202),
    (23, -211),
    (22, -220),
    (21, -230),
    (20, -240),
    (19, -251),
    (18, -262),
    (17, -273),
    (16, -284),
    (15, -296),
    (14, -309),
    (13, -322),
    (12, -336),
    (11, -351),
    (10, -366),
    (9, -383),
    (8, -401),
    (7, -422),
    (6, -444),
    (5, -470),
    (4, -501),
    (3, -538),
    (2, -589),
    (1, -677),
    (0, -800),
];

/// Rating differences from which table 8.1.2 gives 1.00 (its `> 735` row).
const LAST_FINITE_DIFFERENCE: usize = 735;

/// Table 8.1.2 expanded to one entry per difference `0..=735`, built at compile time from
/// [`RATING_DIFFERENCE_TABLE`] so that a lookup is one index (the bench rates millions).
const PD_BY_DIFFERENCE: [u8; LAST_FINITE_DIFFERENCE + 1] = expand_difference_table();

const fn expand_difference_table() -> [u8; LAST_FINITE_DIFFERENCE + 1] {
    let mut out = [0u8; LAST_FINITE_DIFFERENCE + 1];
    let mut d = 0;
    let mut row = 0;
    while d <= LAST_FINITE_DIFFERENCE {
        while (RATING_DIFFERENCE_TABLE[row].0 as usize) < d {
            row += 1;
        }
        out[d] = RATING_DIFFERENCE_TABLE[row].1;
        d += 1;
    }
    out
}

/// Table 8.1.2 `dp` indexed by `p` in hundredths, built at compile time from
/// [`SCORE_TABLE`].
const DP_BY_SCORE: [i16; 101] = expand_score_table();

const fn expand_score_table() -> [i16; 101] {
    let mut out = [0i16; 101];
    let mut i = 0;
    while i < SCORE_TABLE.len() {
        out[SCORE_TABLE[i].0 as usize] = SCORE_TABLE[i].1;
        i += 1;
    }
    out
}

/// Table 8.1.2 without the 400-point rule: the scoring probability, in hundredths, of a
/// player whose rating exceeds the opponent's by `difference` (negative: is below it).
pub fn table_expectation(difference: i64) -> u8 {
    let d = usize::try_from(difference.unsigned_abs()).unwrap_or(usize::MAX);
    let higher = PD_BY_DIFFERENCE.get(d).copied().unwrap_or(100);
    if difference >= 0 {
        higher
    } else {
        100 - higher
    }
}

/// The rating difference `D` of 8.3.1 as it counts for rating purposes: the player's
/// rating minus the opponent's, limited to ±`difference_cap` (400) unless the player is
/// rated at or above `uncapped_from` (the 1 October 2025 amendment, off by default).
pub fn counted_difference(config: &EloConfig, own: i64, opponent: i64) -> i64 {
    let d = own.saturating_sub(opponent);
    let uncapped = config
        .uncapped_from
        .is_some_and(|from| own >= i64::from(from));
    if uncapped {
        d
    } else {
        let cap = i64::from(config.difference_cap.max(0));
        d.clamp(-cap, cap)
    }
}

/// The player's scoring probability `PD` (8.3.2 a) in hundredths, after the 400-point rule.
pub fn expectation(config: &EloConfig, own: i64, opponent: i64) -> u8 {
    table_expectation(counted_difference(config, own, opponent))
}

/// The development coefficient `K` of 8.3.3 before the 700 cap, for a player who has
/// `games` rated games so far, rating `rating`, and has or has not reached 2400.
///
/// The under-18 clause (`K = 40` until the end of the year of the 18th birthday while
/// under 2300) is not applied: the platform knows no birth dates. The clauses are taken in
/// the order the regulations list them, so a player inside their first 30 games keeps
/// `K = 40` even above 2400.
pub fn k_factor(config: &EloConfig, rating: i64, games: u32, reached_master: bool) -> u32 {
    if games < config.new_player_games {
        config.k_new
    } else if reached_master || rating >= i64::from(config.master_threshold) {
        config.k_master
    } else {
        config.k_standard
    }
}

/// The last paragraph of 8.3.3 for the `n`-th game of a rating period (`n` counts from
/// 1): `K` becomes the largest whole number with `K × n ≤ 700` when `K × n` exceeds 700.
pub fn period_capped_k(config: &EloConfig, k: u32, nth_game: u32) -> u32 {
    let n = nth_game.max(1);
    if k.saturating_mul(n) > config.period_k_cap {
        config.period_k_cap / n
    } else {
        k
    }
}

/// `K × (W − We)` of one game, rounded as 8.3.4 prescribes: to the nearest whole number,
/// 0.5 away from zero. `expectation` is `We` in hundredths.
pub fn rating_change(k: u32, score: Score, expectation: u8) -> i64 {
    let delta = i64::from(score.hundredths()) - i64::from(expectation);
    let hundredths = i64::from(k) * delta;
    let whole = (hundredths.abs() + 50) / 100;
    if hundredths < 0 { -whole } else { whole }
}

/// The rating difference `dp` for a fractional score `p` given in hundredths (table 8.1.1).
/// `None` when `p` is above 100.
pub fn dp(p_hundredths: u32) -> Option<i16> {
    usize::try_from(p_hundredths)
        .ok()
        .and_then(|i| DP_BY_SCORE.get(i).copied())
}

/// FIDE performance rating `Rp = Ra + dp` (Title Regulations 1.4.7–1.4.9), without the
/// norm-only adjustments. `None` for no games.
///
/// - `Ra` is the average of the opponents' ratings, rounded to the nearest whole number
///   with 0.5 rounded upward (1.4.7 b); no 400-point rule (that rule belongs to 8.3).
/// - `p` is the score divided by the number of games, rounded to two decimals with 0.005
///   rounded upward, because table 1.4.9 / 8.1.1 is indexed by two decimals.
/// - `dp` comes from the table, ±800 for 100 % and 0 %.
pub fn performance(games: &[(f64, Score)]) -> Option<f64> {
    let n = games.len();
    if n == 0 {
        return None;
    }
    let sum: f64 = games.iter().map(|(rating, _)| rating).sum();
    let average = (sum / n as f64 + 0.5).floor();
    let half_points: u64 = games
        .iter()
        .map(|(_, score)| u64::from(score.half_points()))
        .sum();
    let n = n as u64;
    // p = half_points / 2n; rounded hundredths = floor(100 p + 1/2) = floor((100 h + n) / 2n).
    let p = (100 * half_points + n) / (2 * n);
    let dp = dp(u32::try_from(p).ok()?)?;
    Some(average + f64::from(dp))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn difference_table_is_increasing_and_complete() {
        let mut previous = (0u16, 49u8);
        for (i, &(upper, pd)) in RATING_DIFFERENCE_TABLE.iter().enumerate() {
            assert!(i == 0 || upper > previous.0, "row {i}");
            assert_eq!(pd, previous.1 + 1, "row {i}: probabilities go up by 0.01");
            previous = (upper, pd);
        }
        assert_eq!(previous, (u16::MAX, 100));
    }

    #[test]
    fn score_table_is_antisymmetric() {
        for p in 0..=100u32 {
            assert_eq!(dp(p), dp(100 - p).map(|d| -d), "p = {p}");
        }
        assert_eq!(dp(101), None);
        assert!(
            SCORE_TABLE
                .iter()
                .enumerate()
                .all(|(i, &(p, _))| usize::from(p) == 100 - i)
        );
    }

    #[test]
    fn expectations_are_complementary() {
        for d in -1000..=1000 {
            assert_eq!(
                u32::from(table_expectation(d)) + u32::from(table_expectation(-d)),
                100
            );
        }
        assert_eq!(table_expectation(i64::MIN), 0);
        assert_eq!(table_expectation(i64::MAX), 100);
    }
}
