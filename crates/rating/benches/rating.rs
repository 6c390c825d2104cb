//! Rating updates per second, in memory: 1,000,000 random games among 10,000 players,
//! rated one by one through `System::rate` as the rating service does.
//!
//! Run with `cargo bench -p hanniball-rating`. The figures are the lower bound of the
//! service-level rebuild, which adds the database.

use std::hint::black_box;
use std::time::Instant;

use hanniball_rating::{EloConfig, Glicko2Config, Score, System};
use hanniball_rng::Rng;

const PLAYERS: usize = 10_000;
const GAMES: usize = 1_000_000;

/// `(first, second, score, at)`: about one game every 32 s, so a year of games with many
/// month changes and idle periods.
fn games() -> Vec<(usize, usize, Score, i64)> {
    // SplitMix64, seeded, so every run rates the same games.
    let mut rng = Rng::new(2024);
    let mut at = 1_709_251_200;
    (0..GAMES)
        .map(|_| {
            at += (rng.next_u64() % 64) as i64;
            let a = (rng.next_u64() % PLAYERS as u64) as usize;
            let b = (a + 1 + (rng.next_u64() % (PLAYERS as u64 - 1)) as usize) % PLAYERS;
            let score = [Score::Win, Score::Draw, Score::Loss][(rng.next_u64() % 3) as usize];
            (a, b, score, at)
        })
        .collect()
}

fn run(name: &str, system: &System, list: &[(usize, usize, Score, i64)]) {
    let mut best = f64::INFINITY;
    let mut checksum = 0.0;
    for _ in 0..3 {
        let mut ratings = vec![system.initial(); PLAYERS];
        let start = Instant::now();
        for &(a, b, score, at) in list {
            let (ra, rb) = system.rate(&ratings[a], &ratings[b], black_box(score), at);
            ratings[a] = ra;
            ratings[b] = rb;
        }
        best = best.min(start.elapsed().as_secs_f64());
        checksum = ratings.iter().map(|r| r.rating).sum::<f64>();
    }
    let per_second = list.len() as f64 / best;
    println!(
        "{name:<9} {} games in {:>7.1} ms: {:>12.0} games/s, {:>12.0} player updates/s (checksum {checksum:.3})",
        list.len(),
        best * 1e3,
        per_second,
        2.0 * per_second,
    );
}

fn main() {
    let list = games();
    println!("{PLAYERS} players, best of 3 runs");
    run("Elo", &System::Elo(EloConfig::default()), &list);
    run(
        "Glicko-2",
        &System::Glicko2(Glicko2Config::default()),
        &list,
    );
}
