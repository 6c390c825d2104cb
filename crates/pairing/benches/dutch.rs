//! Times the Dutch engine on generated tournaments of 100, 1,000 and 10,000 players.
//!
//! Run with `cargo bench -p hanniball-pairing --bench dutch`. Results are random but seeded
//! (SplitMix64), so every run pairs the same tournaments. Prints the time to pair rounds 1, 2,
//! the middle round and the last round of each size.

use std::time::Instant;

use hanniball_pairing::{DutchOptions, GameResult, RoundEntry, Tournament, pair_next_round};

struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
}

fn main() {
    let only: Option<usize> = std::env::args().skip(1).find_map(|a| a.parse().ok());
    for (players, rounds) in [(100u32, 9u32), (1_000, 11), (10_000, 13)] {
        if only.is_some_and(|o| o != players as usize) {
            continue;
        }
        let mut rng = Rng(u64::from(players) * 7919);
        let mut t = Tournament::new(rounds);
        for i in 0..players {
            t.add_player(format!("P{}", i + 1), 3000 - i / 4);
        }
        let options = DutchOptions::default();
        let middle = rounds.div_ceil(2);
        let mut total = 0.0;
        let mut report = Vec::new();
        for round in 1..=rounds {
            let start = Instant::now();
            let p = pair_next_round(&t, &options).expect("the bench tournament can be paired");
            let secs = start.elapsed().as_secs_f64();
            total += secs;
            if [1, 2, middle, rounds].contains(&round) {
                report.push(format!("round {round}: {secs:.3} s"));
            }
            for &(w, b) in &p.boards {
                let r = match rng.next() % 10 {
                    0..=3 => GameResult::Win,
                    4..=6 => GameResult::Draw,
                    _ => GameResult::Loss,
                };
                t.record_game(round, w, b, r);
            }
            if let Some(b) = p.bye {
                t.set_entry(b, round, RoundEntry::PairingBye);
            }
        }
        println!(
            "{players:>6} players, {rounds} rounds: {} (all rounds {total:.3} s)",
            report.join(", ")
        );
    }
}
