//! Parameters of the two rating systems, with FIDE's and Glickman's values as defaults.

use thiserror::Error;

/// FIDE Elo parameters. The defaults are the FIDE Rating Regulations of 1 March 2024 plus
/// the platform's initial rating.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EloConfig {
    /// Rating of a new player (FIDE computes an initial rating instead; see the crate docs).
    pub initial: i32,
    /// A player is provisional while they have played fewer games than this.
    pub provisional_games: u32,
    /// `K = k_new` while a player has played fewer games than this (8.3.3: 30).
    pub new_player_games: u32,
    /// `K` for new players (8.3.3: 40).
    pub k_new: u32,
    /// `K` while the rating has never reached `master_threshold` (8.3.3: 20).
    pub k_standard: u32,
    /// `K` once the rating has reached `master_threshold`, for ever (8.3.3: 10).
    pub k_master: u32,
    /// The rating from which `k_master` applies (8.3.3: 2400).
    pub master_threshold: i32,
    /// Upper bound of `K × n` for the `n` games of a rating period (8.3.3: 700).
    pub period_k_cap: u32,
    /// A rating difference above this counts as this (8.3.1: 400).
    pub difference_cap: i32,
    /// Players rated at or above this use the real difference, not the capped one: the
    /// amendment of 8.3.1 effective from 1 October 2025 (2650). `None`, the default, is
    /// the text of 1 March 2024 and keeps every game zero-sum between equal `K`s.
    pub uncapped_from: Option<i32>,
}

impl Default for EloConfig {
    fn default() -> Self {
        EloConfig {
            initial: 1500,
            provisional_games: 30,
            new_player_games: 30,
            k_new: 40,
            k_standard: 20,
            k_master: 10,
            master_threshold: 2400,
            period_k_cap: 700,
            difference_cap: 400,
            uncapped_from: None,
        }
    }
}

/// Glicko-2 parameters. Ratings and deviations are on the Glicko (display) scale.
#[derive(Clone, Debug, PartialEq)]
pub struct Glicko2Config {
    /// Rating of a new player (paper: 1500).
    pub initial_rating: f64,
    /// Deviation of a new player (paper: 350).
    pub initial_deviation: f64,
    /// Volatility of a new player (paper: 0.06).
    pub initial_volatility: f64,
    /// System constant τ (paper: between 0.3 and 1.2; the example uses 0.5).
    pub tau: f64,
    /// The deviation never goes below this after a game (default 30).
    pub min_deviation: f64,
    /// The deviation never grows above this, idle or not (default 350).
    pub max_deviation: f64,
    /// Lower bound of the volatility (default 0.01).
    pub min_volatility: f64,
    /// Upper bound of the volatility (default 0.1).
    pub max_volatility: f64,
    /// Length of one idle rating period in seconds (default one day, 86 400).
    pub period_seconds: i64,
    /// A player is provisional while their deviation is above this (default 110).
    pub provisional_deviation: f64,
}

impl Default for Glicko2Config {
    fn default() -> Self {
        Glicko2Config {
            initial_rating: 1500.0,
            initial_deviation: 350.0,
            initial_volatility: 0.06,
            tau: 0.5,
            min_deviation: 30.0,
            max_deviation: 350.0,
            min_volatility: 0.01,
            max_volatility: 0.1,
            period_seconds: 86_400,
            provisional_deviation: 110.0,
        }
    }
}

/// A configuration that the rating maths cannot use as intended.
#[derive(Clone, Debug, PartialEq, Error)]
pub enum ConfigError {
    /// A parameter that must be a positive finite number is not.
    #[error("{name} must be positive and finite, got {value}")]
    NotPositive {
        /// The field's name.
        name: &'static str,
        /// The value given.
        value: f64,
    },
    /// A lower bound is above its upper bound.
    #[error("{name} bounds are inverted: min {min} is above max {max}")]
    InvertedBounds {
        /// Which bounds.
        name: &'static str,
        /// The lower bound given.
        min: f64,
        /// The upper bound given.
        max: f64,
    },
    /// An initial value lies outside its bounds.
    #[error("initial {name} {value} is outside its bounds {min}..={max}")]
    InitialOutOfBounds {
        /// Which value.
        name: &'static str,
        /// The initial value given.
        value: f64,
        /// The lower bound.
        min: f64,
        /// The upper bound.
        max: f64,
    },
    /// An Elo `K` of zero would freeze ratings.
    #[error("{name} must be at least 1, got 0")]
    ZeroK {
        /// The field's name.
        name: &'static str,
    },
}

impl EloConfig {
    /// Checks that every `K` is at least 1 and the caps are positive.
    pub fn validate(&self) -> Result<(), ConfigError> {
        for (name, k) in [
            ("k_new", self.k_new),
            ("k_standard", self.k_standard),
            ("k_master", self.k_master),
            ("period_k_cap", self.period_k_cap),
        ] {
            if k == 0 {
                return Err(ConfigError::ZeroK { name });
            }
        }
        if self.difference_cap <= 0 {
            return Err(ConfigError::NotPositive {
                name: "difference_cap",
                value: f64::from(self.difference_cap),
            });
        }
        Ok(())
    }
}

impl Glicko2Config {
    /// Checks that τ, the bounds and the period are usable and the initial values lie
    /// within the bounds.
    pub fn validate(&self) -> Result<(), ConfigError> {
        let positive = [
            ("tau", self.tau),
            ("initial_deviation", self.initial_deviation),
            ("initial_volatility", self.initial_volatility),
            ("min_deviation", self.min_deviation),
            ("max_deviation", self.max_deviation),
            ("min_volatility", self.min_volatility),
            ("max_volatility", self.max_volatility),
            ("period_seconds", self.period_seconds as f64),
        ];
        for (name, value) in positive {
            if !(value.is_finite() && value > 0.0) {
                return Err(ConfigError::NotPositive { name, value });
            }
        }
        if !self.initial_rating.is_finite() {
            return Err(ConfigError::NotPositive {
                name: "initial_rating",
                value: self.initial_rating,
            });
        }
        let bounds = [
            (
                "deviation",
                self.min_deviation,
                self.max_deviation,
                self.initial_deviation,
            ),
            (
                "volatility",
                self.min_volatility,
                self.max_volatility,
                self.initial_volatility,
            ),
        ];
        for (name, min, max, initial) in bounds {
            if min > max {
                return Err(ConfigError::InvertedBounds { name, min, max });
            }
            if !(min..=max).contains(&initial) {
                return Err(ConfigError::InitialOutOfBounds {
                    name,
                    value: initial,
                    min,
                    max,
                });
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_are_valid() {
        assert_eq!(EloConfig::default().validate(), Ok(()));
        assert_eq!(Glicko2Config::default().validate(), Ok(()));
    }

    #[test]
    fn bad_values_are_named() {
        let cases: Vec<(Glicko2Config, &str)> = vec![
            (
                Glicko2Config {
                    tau: 0.0,
                    ..Default::default()
                },
                "tau must be positive and finite, got 0",
            ),
            (
                Glicko2Config {
                    min_deviation: 400.0,
                    ..Default::default()
                },
                "deviation bounds are inverted: min 400 is above max 350",
            ),
            (
                Glicko2Config {
                    initial_volatility: 0.5,
                    ..Default::default()
                },
                "initial volatility 0.5 is outside its bounds 0.01..=0.1",
            ),
            (
                Glicko2Config {
                    period_seconds: 0,
                    ..Default::default()
                },
                "period_seconds must be positive and finite, got 0",
            ),
        ];
        for (config, message) in cases {
            let err = config.validate().expect_err(message);
            assert_eq!(err.to_string(), message);
        }
        let elo = EloConfig {
            k_master: 0,
            ..Default::default()
        };
        assert_eq!(
            elo.validate().map_err(|e| e.to_string()),
            Err("k_master must be at least 1, got 0".to_string())
        );
    }
}
