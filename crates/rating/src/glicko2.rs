//! Glicko-2 exactly as Glickman's "Example of the Glicko-2 system" (steps 1–8).
//!
//! This module is the paper, with a rating period of any number of games and no bounds;
//! the ladder (one game per period, idle growth, bounds) is built on it in `ladder`.

use std::f64::consts::PI;

/// The factor between the Glicko scale and the Glicko-2 scale (steps 2 and 8).
pub const SCALE: f64 = 173.7178;

/// The rating on which the Glicko-2 scale is centred (steps 2 and 8).
pub const CENTRE: f64 = 1500.0;

/// The convergence tolerance ε of step 5 (the paper's value).
pub const EPSILON: f64 = 0.000_001;

/// Iteration limit for each loop of step 5. The loops converge in a handful of iterations
/// for every sane input; the limit only keeps NaN or absurd inputs from looping forever.
/// When it is hit the current bracket end `A` is used, which is still deterministic.
pub const MAX_ITERATIONS: u32 = 1_000;

/// A player on the Glicko (display) scale: rating `r`, deviation `RD`, volatility `σ`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Player {
    /// `r`, e.g. 1500.
    pub rating: f64,
    /// `RD`, e.g. 350; positive.
    pub deviation: f64,
    /// `σ`, e.g. 0.06; positive.
    pub volatility: f64,
}

/// The intermediate values of one update, for tests against the paper's printed numbers.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Trace {
    /// The estimated variance `v` of step 3.
    pub v: f64,
    /// The estimated improvement `Δ` of step 4.
    pub delta: f64,
    /// `μ'` of step 7.
    pub mu: f64,
    /// `φ'` of step 7.
    pub phi: f64,
    /// `σ'` of step 5.5.
    pub sigma: f64,
}

fn g(phi: f64) -> f64 {
    1.0 / (1.0 + 3.0 * phi * phi / (PI * PI)).sqrt()
}

fn expected(mu: f64, mu_j: f64, g_j: f64) -> f64 {
    1.0 / (1.0 + (-g_j * (mu - mu_j)).exp())
}

/// Step 6 repeated `periods` times for a player who does not compete: `φ² + n·σ²`, on the
/// Glicko scale. Rating and volatility are unchanged.
pub fn idle(player: &Player, periods: u64) -> Player {
    let phi = player.deviation / SCALE;
    let grown = (phi * phi + periods as f64 * player.volatility * player.volatility).sqrt();
    Player {
        deviation: grown * SCALE,
        ..*player
    }
}

/// One rating period of the paper: the player's new rating after the `games` (opponent,
/// score in `[0, 1]`) played in it, with system constant `tau`. With no games only step 6
/// applies.
pub fn rate_period(player: &Player, games: &[(Player, f64)], tau: f64) -> Player {
    match trace_period(player, games, tau) {
        Some(t) => Player {
            rating: SCALE * t.mu + CENTRE,
            deviation: SCALE * t.phi,
            volatility: t.sigma,
        },
        None => idle(player, 1),
    }
}

/// [`rate_period`] with its intermediate values; `None` when `games` is empty.
pub fn trace_period(player: &Player, games: &[(Player, f64)], tau: f64) -> Option<Trace> {
    if games.is_empty() {
        return None;
    }
    // Step 2.
    let mu = (player.rating - CENTRE) / SCALE;
    let phi = player.deviation / SCALE;
    let sigma = player.volatility;

    // Steps 3 and 4, summed in the order the games are given.
    let mut information = 0.0;
    let mut surprise = 0.0;
    for (opponent, score) in games {
        let mu_j = (opponent.rating - CENTRE) / SCALE;
        let g_j = g(opponent.deviation / SCALE);
        let e = expected(mu, mu_j, g_j);
        information += g_j * g_j * e * (1.0 - e);
        surprise += g_j * (score - e);
    }
    let v = 1.0 / information;
    let delta = v * surprise;

    // Step 5.
    let sigma = new_volatility(phi, sigma, v, delta, tau);

    // Step 6.
    let phi_star = (phi * phi + sigma * sigma).sqrt();

    // Step 7.
    let phi = 1.0 / (1.0 / (phi_star * phi_star) + 1.0 / v).sqrt();
    let mu = mu + phi * phi * surprise;

    Some(Trace {
        v,
        delta,
        mu,
        phi,
        sigma,
    })
}

/// Step 5: the new volatility σ' by the Illinois algorithm (steps 5.1–5.5), ε = 10⁻⁶.
fn new_volatility(phi: f64, sigma: f64, v: f64, delta: f64, tau: f64) -> f64 {
    // 5.1
    let a = (sigma * sigma).ln();
    let phi2 = phi * phi;
    let delta2 = delta * delta;
    let f = |x: f64| {
        let ex = x.exp();
        let d = phi2 + v + ex;
        ex * (delta2 - phi2 - v - ex) / (2.0 * d * d) - (x - a) / (tau * tau)
    };

    // 5.2
    let mut big_a = a;
    let mut big_b = if delta2 > phi2 + v {
        (delta2 - phi2 - v).ln()
    } else {
        let mut k = 1.0;
        let mut iterations = 0;
        while f(a - k * tau) < 0.0 && iterations < MAX_ITERATIONS {
            k += 1.0;
            iterations += 1;
        }
        a - k * tau
    };

    // 5.3
    let mut f_a = f(big_a);
    let mut f_b = f(big_b);

    // 5.4; the paper's test is f(C)·f(B) ≤ 0.
    let mut iterations = 0;
    while (big_b - big_a).abs() > EPSILON && iterations < MAX_ITERATIONS {
        let big_c = big_a + (big_a - big_b) * f_a / (f_b - f_a);
        let f_c = f(big_c);
        if f_c * f_b <= 0.0 {
            big_a = big_b;
            f_a = f_b;
        } else {
            f_a /= 2.0;
        }
        big_b = big_c;
        f_b = f_c;
        iterations += 1;
    }

    // 5.5
    (big_a / 2.0).exp()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn idle_growth_is_step_six_repeated() {
        let p = Player {
            rating: 1700.0,
            deviation: 50.0,
            volatility: 0.06,
        };
        let mut stepwise = p;
        for _ in 0..3 {
            stepwise = rate_period(&stepwise, &[], 0.5);
        }
        let closed = idle(&p, 3);
        assert!((stepwise.deviation - closed.deviation).abs() < 1e-9);
        assert_eq!(closed.rating, p.rating);
        assert_eq!(closed.volatility, p.volatility);
    }

    #[test]
    fn nan_input_terminates() {
        let p = Player {
            rating: f64::NAN,
            deviation: 50.0,
            volatility: 0.06,
        };
        let _ = rate_period(&p, &[(p, 1.0)], 0.5);
        let q = Player {
            rating: 1500.0,
            ..p
        };
        let _ = rate_period(&q, &[(q, 1.0)], 0.0);
        let _ = rate_period(&q, &[(q, 1.0)], f64::NAN);
    }
}
