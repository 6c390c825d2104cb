//! Benchmarks of the HanniBall engine: listing legal steps of mid-game positions, and random
//! playouts. A bench binary (no harness): `cargo bench -p hanniball-rules --bench rules`.

use std::hint::black_box;
use std::time::{Duration, Instant};

use hanniball_rules::hanniball::playout::{random_game, random_turn};
use hanniball_rules::hanniball::{Position, Ruleset, Step};

/// Mid-game positions: random games from the start, sampled at turns 10..60, at turn start and
/// mid-turn, with the ball loose and held.
fn sample_positions(rng: &mut hanniball_rng::Rng, count: usize) -> Vec<Position> {
    let mut positions = Vec::with_capacity(count);
    while positions.len() < count {
        let mut position = Position::initial(Ruleset::Standard);
        let stop = rng.usize(10..60);
        for _ in 0..stop {
            let Some(turn) = random_turn(&position, &mut |n| rng.usize(..n)) else {
                break;
            };
            position = position.play_turn(&turn).expect("random turns are legal");
        }
        if position.result().is_some() {
            continue;
        }
        // Every other sample mid-turn: one random step into the turn.
        if positions.len() % 2 == 1 {
            let steps = position.legal_steps();
            let step = steps[rng.usize(..steps.len())];
            let next = position.apply(step);
            if next.result().is_none() {
                position = next;
            }
        }
        positions.push(position);
    }
    positions
}

fn median(mut samples: Vec<f64>) -> f64 {
    samples.sort_by(f64::total_cmp);
    samples[samples.len() / 2]
}

fn bench_legal_steps(positions: &[Position]) {
    let mut buffer: Vec<Step> = Vec::with_capacity(256);
    let mut per_position = Vec::with_capacity(positions.len());
    let mut total_steps = 0usize;
    for position in positions {
        // Repeat each position enough times for a stable per-call figure.
        let reps = 2_000;
        let start = Instant::now();
        for _ in 0..reps {
            buffer.clear();
            black_box(position).legal_steps_into(&mut buffer);
            black_box(&buffer);
        }
        per_position.push(start.elapsed().as_secs_f64() / f64::from(reps) * 1e9);
        total_steps += buffer.len();
    }
    let mut sorted = per_position.clone();
    sorted.sort_by(f64::total_cmp);
    println!(
        "legal steps of {} mid-game positions (avg {:.0} steps each): median {:.0} ns, p90 {:.0} ns, max {:.0} ns",
        positions.len(),
        total_steps as f64 / positions.len() as f64,
        median(per_position),
        sorted[sorted.len() * 9 / 10],
        sorted[sorted.len() - 1],
    );
}

fn bench_playouts(seconds: f64) {
    let mut rng = hanniball_rng::Rng::new(7);
    let start_position = Position::initial(Ruleset::Standard);
    let mut games = 0u64;
    let mut steps = 0u64;
    let mut turns = 0u64;
    let start = Instant::now();
    while start.elapsed() < Duration::from_secs_f64(seconds) {
        let playout = random_game(&start_position, &mut |n| rng.usize(..n));
        games += 1;
        steps += playout.steps as u64;
        turns += playout.turns.len() as u64;
        black_box(&playout);
    }
    let elapsed = start.elapsed().as_secs_f64();
    println!(
        "random playouts (one core): {:.0} games/s, {:.0} steps/s, {:.0} turns/s ({games} games, {:.1} turns per game)",
        games as f64 / elapsed,
        steps as f64 / elapsed,
        turns as f64 / elapsed,
        turns as f64 / games as f64,
    );
}

fn main() {
    // `cargo bench` passes `--bench`; a quick smoke run (`cargo test --benches`) must stay short.
    let quick = !std::env::args().any(|arg| arg == "--bench");
    let mut rng = hanniball_rng::Rng::new(42);
    let positions = sample_positions(&mut rng, if quick { 20 } else { 400 });
    bench_legal_steps(&positions);
    bench_playouts(if quick { 0.2 } else { 5.0 });
}
