//! Paper football speed: uniformly random playouts from the initial position on one core, from a
//! fixed seed, timed with `std::time::Instant`. Run with `cargo bench -p hanniball-rules --bench
//! paper [-- GAMES]`.

use std::hint::black_box;
use std::time::Instant;

use hanniball_rules::paper::Position;

const DEFAULT_GAMES: u64 = 200_000;
const SEED: u64 = 2013;

/// Plays `games` random games; returns the total number of steps and White's wins.
fn playouts(games: u64, rng: &mut hanniball_rng::Rng) -> (u64, u64) {
    let mut steps = 0;
    let mut white_wins = 0;
    for _ in 0..games {
        let mut position = Position::initial();
        loop {
            let legal = position.legal_steps();
            if legal.is_empty() {
                break;
            }
            let step = legal
                .nth(rng.usize(..legal.len()))
                .expect("index below the set's size");
            position
                .apply_step(step)
                .expect("a listed step always applies");
        }
        steps += position.steps().len() as u64;
        let result = position
            .result()
            .expect("no legal step means the game is over");
        if result.outcome == hanniball_rules::Outcome::Win(hanniball_rules::Side::White) {
            white_wins += 1;
        }
        black_box(&position);
    }
    (steps, white_wins)
}

fn main() {
    // `cargo bench` passes `--bench`; the only argument of ours is an optional game count.
    let games = std::env::args()
        .skip(1)
        .find_map(|arg| arg.parse::<u64>().ok())
        .unwrap_or(DEFAULT_GAMES)
        .max(1);

    // Warm caches and the branch predictor before timing.
    playouts(games / 20 + 1, &mut hanniball_rng::Rng::new(SEED ^ 1));

    let mut rng = hanniball_rng::Rng::new(SEED);
    let start = Instant::now();
    let (steps, white_wins) = playouts(games, &mut rng);
    let seconds = start.elapsed().as_secs_f64();

    println!(
        "paper-football random playouts: {:.0} games/s, {:.0} steps/s ({games} games)",
        games as f64 / seconds,
        steps as f64 / seconds,
    );
    println!(
        "paper-football random playouts: {:.1} steps per game, white wins {:.1}%, {seconds:.3} s",
        steps as f64 / games as f64,
        100.0 * white_wins as f64 / games as f64,
    );
}
