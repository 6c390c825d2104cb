//! Ladders: which ladder a game counts for, which system each ladder uses, and the rating maths
//! the store replays (the [`Rater`]).

use std::collections::BTreeMap;

use crate::store::{Change, Rater};
use hanniball_ids::TimeControl;
use hanniball_ids::Timestamp;
use hanniball_rating::{Rating, Score, System};
use hanniball_rules::GameKind;

use crate::error::{ServiceError, ServiceResult};

/// Time-control categories, by the estimated game duration `initial + 40 × increment`
/// (as the big chess servers do): below 3 minutes bullet, below 8 blitz, below 25 rapid, then
/// classical; a game without a clock is untimed.
pub const CATEGORIES: [&str; 5] = ["untimed", "bullet", "blitz", "rapid", "classical"];

/// The category of a time control (see [`CATEGORIES`]).
#[must_use]
pub fn category(time_control: Option<TimeControl>) -> &'static str {
    let Some(tc) = time_control else {
        return "untimed";
    };
    let estimate_ms = tc
        .initial_ms
        .saturating_add(tc.increment_ms.saturating_mul(40));
    match estimate_ms {
        ..180_000 => "bullet",
        180_000..480_000 => "blitz",
        480_000..1_500_000 => "rapid",
        _ => "classical",
    }
}

/// The configured ladders.
#[derive(Clone, Debug)]
pub struct Ladders {
    default: System,
    /// By ladder name, or by game kind name (then for all of its categories).
    overrides: BTreeMap<String, System>,
    split: bool,
    /// Every ladder, in a stable order.
    names: Vec<String>,
}

impl Ladders {
    /// Checks every system and every override's name.
    pub fn new(
        default: System,
        overrides: BTreeMap<String, System>,
        split: bool,
    ) -> ServiceResult<Ladders> {
        let mut names = Vec::new();
        for kind in GameKind::ALL {
            if split {
                for category in CATEGORIES {
                    names.push(format!("{}/{category}", kind.name()));
                }
            } else {
                names.push(kind.name().to_owned());
            }
        }
        default
            .validate()
            .map_err(|e| ServiceError::Config(format!("default rating system: {e}")))?;
        for (name, system) in &overrides {
            let is_kind = GameKind::ALL.iter().any(|k| k.name() == name);
            if !is_kind && !names.contains(name) {
                return Err(ServiceError::Config(format!(
                    "ladder {name:?} in the rating configuration is not a ladder; ladders: {}",
                    names.join(", ")
                )));
            }
            system
                .validate()
                .map_err(|e| ServiceError::Config(format!("ladder {name}: {e}")))?;
        }
        Ok(Ladders {
            default,
            overrides,
            split,
            names,
        })
    }

    /// Every ladder, in a stable order.
    pub fn names(&self) -> &[String] {
        &self.names
    }

    /// Whether ladders are split by time-control category.
    pub fn split(&self) -> bool {
        self.split
    }

    /// The system of a ladder (the default for a ladder nobody configured, including ladders
    /// that only exist in the stored history).
    pub fn system(&self, ladder: &str) -> &System {
        let kind = ladder.split('/').next().unwrap_or(ladder);
        self.overrides
            .get(ladder)
            .or_else(|| self.overrides.get(kind))
            .unwrap_or(&self.default)
    }

    /// The ladder a game counts for.
    pub fn of_game(&self, kind: GameKind, time_control: Option<TimeControl>) -> String {
        if self.split {
            format!("{}/{}", kind.name(), category(time_control))
        } else {
            kind.name().to_owned()
        }
    }

    /// The ladder a request names: empty means `hanniball` (or `hanniball/untimed` when split).
    pub fn resolve(&self, requested: &str) -> ServiceResult<String> {
        let name = if requested.is_empty() {
            self.of_game(GameKind::HanniBall, None)
        } else {
            requested.to_owned()
        };
        if self.names.contains(&name) {
            Ok(name)
        } else {
            Err(ServiceError::NotFound {
                what: "ladder",
                id: format!(
                    "{} (ladders: {})",
                    hanniball_svc_kit::limits::quote(&name),
                    self.names.join(", ")
                ),
            })
        }
    }
}

/// Unix seconds of a timestamp, as the rating maths counts time.
pub fn seconds(at: Timestamp) -> i64 {
    at.0.div_euclid(1000)
}

impl Rater for Ladders {
    fn initial(&self, ladder: &str) -> Rating {
        self.system(ladder).initial()
    }

    fn apply(
        &self,
        ladder: &str,
        at: Timestamp,
        change: &Change,
        first: &Rating,
        second: Option<&Rating>,
    ) -> (Rating, Option<Rating>) {
        let system = self.system(ladder);
        match (change, second) {
            (Change::Game { score, .. }, Some(second)) => {
                let (a, b) = system.rate(first, second, *score, seconds(at));
                (a, Some(b))
            }
            (
                Change::Correction {
                    score, previous, ..
                },
                Some(second),
            ) => {
                let (mut a, mut b) = (first.clone(), second.clone());
                if let Some(p) = previous {
                    take_back(&mut a, p.score, p.first_delta);
                    take_back(&mut b, p.score.reverse(), p.second_delta);
                }
                match score {
                    Some(score) => {
                        let (a, b) = system.rate(&a, &b, *score, seconds(at));
                        (a, Some(b))
                    }
                    None => (a, Some(b)),
                }
            }
            (Change::Adjustment { rating, .. }, _) => (adjusted(system, first, *rating), None),
            // The store passes a second rating for every game; without one, nothing changes.
            (Change::Game { .. } | Change::Correction { .. }, None) => (first.clone(), None),
        }
    }
}

/// Takes a game's result back from a rating: the rating change it gave (`delta`) and its count
/// (`score`, this player's). The peak, the Elo period's count and Glicko-2's deviation and
/// volatility stay: a correction re-rates the new result as a game of its own.
fn take_back(r: &mut Rating, score: Score, delta: f64) {
    r.rating -= delta;
    r.games = r.games.saturating_sub(1);
    match score {
        Score::Win => r.wins = r.wins.saturating_sub(1),
        Score::Draw => r.draws = r.draws.saturating_sub(1),
        Score::Loss => r.losses = r.losses.saturating_sub(1),
    }
}

/// An admin adjustment: the rating is set; the peak keeps the highest rating held; for Elo a
/// rating at or above the master threshold counts as having reached it (`K = 10` from then on).
/// Games, deviation and everything else stay.
fn adjusted(system: &System, before: &Rating, rating: f64) -> Rating {
    let reached = match system {
        System::Elo(c) => rating >= f64::from(c.master_threshold),
        System::Glicko2(_) => false,
    };
    Rating {
        rating,
        peak: before.peak.max(rating),
        reached_2400: before.reached_2400 || reached,
        ..before.clone()
    }
}

/// `elo` or `glicko2`.
pub fn system_name(system: &System) -> &'static str {
    match system {
        System::Elo(_) => "elo",
        System::Glicko2(_) => "glicko2",
    }
}

/// A system's parameters for people.
pub fn parameters(system: &System) -> String {
    match system {
        System::Elo(c) => format!(
            "initial {}, K {}/{}/{} (new until {} games, {} from {}), {}-point rule, \
             K x games per month <= {}, provisional under {} games",
            c.initial,
            c.k_new,
            c.k_standard,
            c.k_master,
            c.new_player_games,
            c.k_master,
            c.master_threshold,
            c.difference_cap,
            c.period_k_cap,
            c.provisional_games
        ),
        System::Glicko2(c) => format!(
            "initial {} RD {} volatility {}, tau {}, RD {}..{}, volatility {}..{}, \
             idle period {} s, provisional while RD > {}",
            c.initial_rating,
            c.initial_deviation,
            c.initial_volatility,
            c.tau,
            c.min_deviation,
            c.max_deviation,
            c.min_volatility,
            c.max_volatility,
            c.period_seconds,
            c.provisional_deviation
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn categories_by_estimated_duration() {
        let tc = |initial_s: i64, increment_s: i64| {
            Some(TimeControl {
                initial_ms: initial_s * 1000,
                increment_ms: increment_s * 1000,
            })
        };
        for (time_control, expected) in [
            (None, "untimed"),
            (tc(60, 0), "bullet"),
            (tc(120, 2), "blitz"),
            (tc(180, 0), "blitz"),
            (tc(300, 5), "rapid"),
            (tc(600, 0), "rapid"),
            (tc(900, 10), "rapid"),
            (tc(1500, 0), "classical"),
            (tc(3600, 0), "classical"),
        ] {
            assert_eq!(category(time_control), expected, "{time_control:?}");
        }
    }

    #[test]
    fn overrides_by_ladder_or_kind() {
        let glicko = System::Glicko2(hanniball_rating::Glicko2Config::default());
        let overrides = BTreeMap::from([("paper-football".to_owned(), glicko.clone())]);
        let ladders = Ladders::new(System::default(), overrides.clone(), true).expect("valid");
        assert_eq!(ladders.system("paper-football/blitz"), &glicko);
        assert_eq!(ladders.system("hanniball/blitz"), &System::default());
        assert_eq!(ladders.resolve("").expect("default"), "hanniball/untimed");
        assert!(ladders.resolve("hanniball").is_err());
        let unsplit = Ladders::new(System::default(), overrides, false).expect("valid");
        assert_eq!(unsplit.resolve("").expect("default"), "hanniball");
        let bad = BTreeMap::from([("chess".to_owned(), glicko)]);
        let error = Ladders::new(System::default(), bad, false).expect_err("not a ladder");
        assert!(error.to_string().contains("\"chess\""), "{error}");
    }
}
