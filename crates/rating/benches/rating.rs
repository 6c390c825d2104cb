//! Rating updates per second, in memory: 1,000,000 random games among 10,000 players,
//! rated one by one through `System::rate` as the rating service does.
//!
//! Run with `cargo bench -p hanniball-rating`. The figures are the lower bound of the
//! service-level rebuild, which adds the database.

use std::hint::black_box;
use std::time::Instant;

use hanniball_rating::{EloConfig, Glicko2Config, Score, System};

const PLAYERS: usize = 10_000;
const GAMES: usize = 1_000_000;

/// SplitMix64, seeded, so every run rates the same games.
struct SplitMix64(u64);

impl SplitMix64 {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
}

/// `(first, second, score, at)`: about one game every 32 s, so a year of games with many
/// month changes and idle periods.
fn games() -> Vec<(usize, usize, Score, i64)> {
    let mut rng = SplitMix64(2024);
    let mut at = 1_709_251_200;
    (0..GAMES)
        .map(|_| {
            at += (rng.next() % 64) as i64;
            let a = (rng.next() % PLAYERS as u64) as usize;
            let b = (a + 1 + (rng.next() % (PLAYERS as u64 - 1)) as usize) % PLAYERS;
            let score = [Score::Win, Score::Draw, Score::Loss][(rng.next() % 3) as usize];
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
