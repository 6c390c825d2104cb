//! Pure rating maths: FIDE Elo and Glicko-2, performance ratings, ladders.
//!
//! # What it does
//!
//! - [`fide`]: the FIDE Rating Regulations in force since 1 March 2024 (Handbook B.02,
//!   section 8): table 8.1.2 (rating difference → scoring probability), table 8.1.1
//!   (fractional score → rating difference), the 400-point rule (8.3.1), `K` (8.3.3) with
//!   the 700 cap, rounding (8.3.4), and the performance rating `Rp = Ra + dp`.
//! - [`glicko2`]: Glickman's "Example of the Glicko-2 system", steps 1–8, including the
//!   Illinois iteration of step 5 with ε = 0.000001.
//! - [`System`]: the ladder API the rating service calls: [`System::initial`],
//!   [`System::rate`] (one game), [`System::current`] (as shown at a time),
//!   [`System::provisional`]; and [`performance`].
//!
//! # What it does not do
//!
//! No IO, no clock, no randomness, no async: time comes in as unix seconds, and the same
//! inputs always give the same outputs, so rebuilding every rating from the game history
//! reproduces the incremental updates bit for bit. It does not store ratings, order games
//! (the service must apply them in the order they were played), or know players, titles
//! or norms. Of FIDE's rules it does not apply the initial-rating calculation of 8.2, the
//! 1400 rating floor and "unrated" status of 7.2, inactivity, or the under-18 `K` clause.
//!
//! # Decisions where the regulations are open or do not fit a per-game platform
//!
//! **Tables as data, exact arithmetic.** Both tables are in [`fide`] exactly as printed.
//! Expected scores are used from table 8.1.2, never from the logistic formula. Scores and
//! probabilities are whole hundredths, so `K × (W − We)` is an exact integer before
//! rounding (floating point would round `10 × 0.35 = 3.5` down).
//!
//! **400-point rule.** The 1 March 2024 text of 8.3.1: "a difference in rating of more
//! than 400 points shall be counted for rating purposes as though it were a difference of
//! 400 points", for every game (the 2024 regulations abolished the earlier once-per-event
//! limit). The amendment effective 1 October 2025 (no cap for players rated 2650 and
//! above) is available as [`EloConfig::uncapped_from`] and off by default. The full table
//! (up to `> 735`) is kept so that the amendment works.
//!
//! **K.** `K = 40` while a player has fewer than 30 games, else `K = 10` if the rating
//! has ever been at or above 2400, else `K = 20`, in the order of 8.3.3. FIDE speaks of a
//! "published" rating reaching 2400; on this platform every rating after a game is
//! published, so [`Rating::reached_2400`] is set by any post-game rating ≥ 2400 (or an
//! initial rating ≥ 2400) and never cleared. `K` is taken from the state before the game.
//! The under-18 clause (`K = 40` until the end of the year of the 18th birthday while
//! under 2300) is **not applied**: the platform has no birth dates.
//!
//! **The 700 cap, game by game.** 8.3.3: "if the number of games (n) for a player on any
//! list for a rating period multiplied by K exceeds 700, then K shall be the largest whole
//! number such that K × n does not exceed 700". Our rating period is the calendar month in
//! UTC of the game's timestamp ([`period::month_index`], integer maths). FIDE knows `n`
//! when the month is over; we rate each game when it ends. So the `n`-th game of a player
//! in a month uses `K_n = min(K, ⌊700 / n⌋)`: the `K` FIDE would apply if the month closed
//! with that game. It depends only on the stored `(period, period_games)`, so a replay
//! reproduces it. It equals FIDE's rule for every month with at most `700 / K` games (17 at
//! `K = 40`, 35 at 20, 70 at 10), never freezes a rating mid-month (a fixed 700 "budget"
//! would), and still shrinks `K` as a month fills up. The price: in a very busy month the
//! sum of the `K`s exceeds 700 (about `700 × (1 + ln(n·K/700))`), where FIDE's would not.
//!
//! **Rounding.** 8.3.4: "the Rating Change for a Rating Period is rounded to the nearest
//! whole number. 0.5 is rounded away from zero." Each game is its own update here and
//! ratings are whole numbers, so each game's change is rounded that way. A month of games
//! can therefore differ from FIDE's single rounding by up to 0.5 per game. Rounding half
//! away from zero is symmetric, so a game between two players with the same `K` is exactly
//! zero-sum (without the 2025 amendment).
//!
//! **New players.** FIDE computes a first rating from at least 5 games (8.2). Here a new
//! player starts at [`EloConfig::initial`] (1500) and is rated with `K = 40`; the rating is
//! provisional for the first [`EloConfig::provisional_games`] (30) games. There is no
//! floor and no unrated opponent: every ladder player has a rating.
//!
//! **Performance rating.** [`performance`] is `Rp = Ra + dp` as defined for titles (Title
//! Regulations 1.4.7–1.4.9, whose table is 8.1.1): `Ra` is the opponents' average rounded
//! to a whole number (0.5 up), `p` the fractional score rounded to two decimals (0.005 up)
//! to index the table, `dp` ±800 for 100 % and 0 %. The norm-only rules (raising the lowest
//! opponent to a floor, unrated opponents as 1400, minimum games) are not applied.
//!
//! **Glicko-2 on a per-game platform.** Every game is one rating period for both players,
//! each rated against the other's pre-game rating and deviation (steps 2–8). Before that,
//! each player's deviation grows by step 6 (`φ² + σ²`) once per full idle period of
//! [`Glicko2Config::period_seconds`] since their last game (`⌊elapsed / period⌋` periods,
//! partial periods are dropped). The default period is one day: with σ = 0.06 a settled
//! RD of 50 grows to about 76 after a month away and 205 after a year, and reaches 350
//! only after years, which suits a site where active players play daily. Deviations stay
//! within `[min_deviation, max_deviation]` (30, 350) and volatilities within
//! `[min_volatility, max_volatility]` (0.01, 0.1); the paper has no bounds, so the
//! [`glicko2`] module applies none and the ladder applies them before and after each game.
//! A player is provisional while RD > 110. Step 5.4 uses the paper's test
//! `f(C)·f(B) ≤ 0`; each loop of step 5 stops after 1000 iterations, which only NaN or
//! absurd inputs reach.
//!
//! **Determinism.** Elo is integer arithmetic on whole ratings. Glicko-2 uses `f64` with
//! `exp`, `ln` and `sqrt` in a fixed order: bit-identical for the same build on the same
//! platform. A different libm may differ in the last bit of `exp`/`ln`.

pub mod config;
pub mod fide;
pub mod glicko2;
mod ladder;
pub mod period;
mod score;

pub use config::{ConfigError, EloConfig, Glicko2Config};
pub use ladder::{Rating, Score, System, performance};
