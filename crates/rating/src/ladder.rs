//! The ladder API: one stored [`Rating`] per player, updated game by game by a [`System`].

use crate::config::{ConfigError, EloConfig, Glicko2Config};
pub use crate::score::Score;
use crate::{fide, glicko2, period};

/// The rating system of a ladder.
#[derive(Clone, Debug, PartialEq)]
pub enum System {
    /// FIDE Elo (see the crate docs for how it is applied game by game).
    Elo(EloConfig),
    /// Glicko-2, one rating period per game, with idle growth of the deviation.
    Glicko2(Glicko2Config),
}

impl Default for System {
    fn default() -> Self {
        System::Elo(EloConfig::default())
    }
}

/// Everything the store keeps for one player on one ladder.
#[derive(Clone, Debug, PartialEq)]
pub struct Rating {
    /// Elo: a whole number stored as `f64`. Glicko-2: the rating `r`.
    pub rating: f64,
    /// Glicko-2 deviation `RD` on the rating scale as of `last_played`; `None` for Elo.
    pub deviation: Option<f64>,
    /// Glicko-2 volatility `σ`; `None` for Elo.
    pub volatility: Option<f64>,
    /// Rated games played; `wins + draws + losses`.
    pub games: u32,
    /// Games won.
    pub wins: u32,
    /// Games drawn.
    pub draws: u32,
    /// Games lost.
    pub losses: u32,
    /// The highest rating held: the initial rating or any rating after a game.
    pub peak: f64,
    /// Elo: the rating has been at or above 2400 at some time, so `K = 10` for ever.
    pub reached_2400: bool,
    /// Elo: the rating period (UTC month index, see [`period::month_index`]) of the last
    /// game; `None` before the first game. Always `None` for Glicko-2.
    pub period: Option<i64>,
    /// Elo: games played in `period`, the `n` of the 700 cap. Always 0 for Glicko-2.
    pub period_games: u32,
    /// Unix seconds of the last game; `None` before the first game.
    pub last_played: Option<i64>,
}

impl System {
    /// Checks the configuration; see [`EloConfig::validate`] and
    /// [`Glicko2Config::validate`]. [`System::rate`] never panics on a bad configuration,
    /// but its results are then meaningless.
    pub fn validate(&self) -> Result<(), ConfigError> {
        match self {
            System::Elo(c) => c.validate(),
            System::Glicko2(c) => c.validate(),
        }
    }

    /// The rating of a player who has not played yet.
    pub fn initial(&self) -> Rating {
        match self {
            System::Elo(c) => Rating {
                rating: f64::from(c.initial),
                deviation: None,
                volatility: None,
                games: 0,
                wins: 0,
                draws: 0,
                losses: 0,
                peak: f64::from(c.initial),
                reached_2400: c.initial >= c.master_threshold,
                period: None,
                period_games: 0,
                last_played: None,
            },
            System::Glicko2(c) => Rating {
                rating: c.initial_rating,
                deviation: Some(c.initial_deviation),
                volatility: Some(c.initial_volatility),
                games: 0,
                wins: 0,
                draws: 0,
                losses: 0,
                peak: c.initial_rating,
                reached_2400: false,
                period: None,
                period_games: 0,
                last_played: None,
            },
        }
    }

    /// Whether the rating is still provisional. Elo: fewer than `provisional_games` games.
    /// Glicko-2: the stored deviation is above `provisional_deviation`; pass the result of
    /// [`System::current`] to take idle time into account.
    pub fn provisional(&self, r: &Rating) -> bool {
        match self {
            System::Elo(c) => r.games < c.provisional_games,
            System::Glicko2(c) => {
                r.deviation.unwrap_or(c.initial_deviation) > c.provisional_deviation
            }
        }
    }

    /// Rates one game played at `at` (unix seconds); returns both players' new ratings.
    ///
    /// Each player is rated against the other's rating from before the game. Games must be
    /// given in the order they were played; the result is a pure function of the inputs.
    pub fn rate(&self, first: &Rating, second: &Rating, score: Score, at: i64) -> (Rating, Rating) {
        match self {
            System::Elo(c) => (
                rate_elo(c, first, second, score, at),
                rate_elo(c, second, first, score.reverse(), at),
            ),
            System::Glicko2(c) => {
                let a = pre_game(c, first, at);
                let b = pre_game(c, second, at);
                (
                    rate_glicko2(c, first, &a, &b, score, at),
                    rate_glicko2(c, second, &b, &a, score.reverse(), at),
                )
            }
        }
    }

    /// The rating as shown at time `now`: Glicko-2 grows the deviation by the idle periods
    /// since the last game; Elo returns it unchanged. For display only: store what
    /// [`System::rate`] returns, never this, or idle time would be counted twice.
    pub fn current(&self, r: &Rating, now: i64) -> Rating {
        match self {
            System::Elo(_) => r.clone(),
            System::Glicko2(c) => {
                let p = pre_game(c, r, now);
                Rating {
                    deviation: Some(p.deviation),
                    volatility: Some(p.volatility),
                    ..r.clone()
                }
            }
        }
    }

    /// The Elo `K` that [`System::rate`] would use for `r`'s next game at `at`, after the
    /// 700 cap; `None` for Glicko-2.
    pub fn elo_k(&self, r: &Rating, at: i64) -> Option<u32> {
        match self {
            System::Elo(c) => Some(elo_k(c, r, at).0),
            System::Glicko2(_) => None,
        }
    }
}

/// FIDE performance rating of a set of games: opponents' ratings and the player's scores.
/// `None` for no games. See [`fide::performance`] for the exact definition.
pub fn performance(games: &[(f64, Score)]) -> Option<f64> {
    fide::performance(games)
}

/// Rounds a stored Elo rating to the whole number it is meant to be.
fn whole(rating: f64) -> i64 {
    // `as` saturates and maps NaN to 0: never a panic on bad stored data.
    rating.round() as i64
}

/// `(K after the cap, period of the game, n-th game of the player in that period)`.
fn elo_k(c: &EloConfig, r: &Rating, at: i64) -> (u32, i64, u32) {
    let period = period::month_index(at);
    let nth = if r.period == Some(period) {
        r.period_games.saturating_add(1)
    } else {
        1
    };
    let k = fide::k_factor(c, whole(r.rating), r.games, r.reached_2400);
    (fide::period_capped_k(c, k, nth), period, nth)
}

fn rate_elo(c: &EloConfig, own: &Rating, opponent: &Rating, score: Score, at: i64) -> Rating {
    let (k, period, nth) = elo_k(c, own, at);
    let rating = whole(own.rating);
    let expectation = fide::expectation(c, rating, whole(opponent.rating));
    let new = rating.saturating_add(fide::rating_change(k, score, expectation));
    let new_f = new as f64;
    Rating {
        rating: new_f,
        deviation: None,
        volatility: None,
        peak: own.peak.max(new_f),
        reached_2400: own.reached_2400 || new >= i64::from(c.master_threshold),
        period: Some(period),
        period_games: nth,
        last_played: Some(at),
        ..counted(own, score)
    }
}

/// `own` with the game counted in its totals.
fn counted(own: &Rating, score: Score) -> Rating {
    let mut r = own.clone();
    r.games = r.games.saturating_add(1);
    match score {
        Score::Win => r.wins = r.wins.saturating_add(1),
        Score::Draw => r.draws = r.draws.saturating_add(1),
        Score::Loss => r.losses = r.losses.saturating_add(1),
    }
    r
}

/// `x` limited to `min..=max` without panicking on inverted bounds or NaN.
fn bounded(x: f64, min: f64, max: f64) -> f64 {
    x.max(min).min(max)
}

/// Full idle rating periods between the last game and `at`.
fn idle_periods(c: &Glicko2Config, last_played: Option<i64>, at: i64) -> u64 {
    match last_played {
        Some(last) if c.period_seconds > 0 && at > last => {
            let elapsed = i128::from(at) - i128::from(last);
            u64::try_from(elapsed / i128::from(c.period_seconds)).unwrap_or(u64::MAX)
        }
        _ => 0,
    }
}

/// The player as they stand at `at`: stored values (initial ones where missing), within
/// bounds, deviation grown by step 6 once per full idle period and kept under the maximum.
fn pre_game(c: &Glicko2Config, r: &Rating, at: i64) -> glicko2::Player {
    let stored = glicko2::Player {
        rating: r.rating,
        deviation: bounded(
            r.deviation.unwrap_or(c.initial_deviation),
            c.min_deviation,
            c.max_deviation,
        ),
        volatility: bounded(
            r.volatility.unwrap_or(c.initial_volatility),
            c.min_volatility,
            c.max_volatility,
        ),
    };
    let grown = glicko2::idle(&stored, idle_periods(c, r.last_played, at));
    glicko2::Player {
        deviation: bounded(grown.deviation, c.min_deviation, c.max_deviation),
        ..grown
    }
}

fn rate_glicko2(
    c: &Glicko2Config,
    own: &Rating,
    pre: &glicko2::Player,
    opponent: &glicko2::Player,
    score: Score,
    at: i64,
) -> Rating {
    let new = glicko2::rate_period(pre, &[(*opponent, score.value())], c.tau);
    Rating {
        rating: new.rating,
        deviation: Some(bounded(new.deviation, c.min_deviation, c.max_deviation)),
        volatility: Some(bounded(new.volatility, c.min_volatility, c.max_volatility)),
        peak: own.peak.max(new.rating),
        reached_2400: false,
        period: None,
        period_games: 0,
        last_played: Some(at),
        ..counted(own, score)
    }
}
