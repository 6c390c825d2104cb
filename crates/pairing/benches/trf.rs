//! Times reading TRF files generated in memory: 20 players over 2,500, 5,000, 10,000 and 20,000
//! rounds (reading must grow linearly with the rounds), 9,998 players in one round, and 40 MB
//! of unknown-tag lines (only the first notes are kept, so memory stays bounded).
//!
//! `cargo bench -p hanniball-pairing --bench trf` prints each read's time and, on Linux, the
//! process's peak memory during that read (the peak is reset before each, where the kernel
//! allows it).

use std::time::Instant;

use hanniball_pairing::{GameResult, Tournament, trf};

/// Peak resident memory of this process in MiB (Linux), if readable.
fn peak_mib() -> Option<f64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    let kib: f64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kib / 1024.0)
}

/// Resets the peak to the current resident memory (Linux 4.0 and later); whether it was.
fn reset_peak() -> bool {
    std::fs::write("/proc/self/clear_refs", "5").is_ok()
}

fn show_peak(reset: bool) -> String {
    match peak_mib() {
        Some(mib) if reset => format!("peak {mib:.0} MiB"),
        Some(mib) => format!("process peak so far {mib:.0} MiB"),
        None => String::new(),
    }
}

/// A tournament of `players` (even) over `rounds` rounds: a round robin repeated (the circle
/// method), results from a fixed sequence (a third each way, a third drawn), as TRF text.
fn many_rounds(players: u32, rounds: u32) -> String {
    let mut t = Tournament::new(rounds);
    for i in 0..players {
        t.add_player(format!("Player {}", i + 1), 2000 + i % 1000);
    }
    let n = players as usize;
    let mut seed = 0x9E37_79B9_7F4A_7C15u64;
    for round in 1..=rounds {
        // Circle method: player n-1 fixed, the others rotated by the round.
        let r = (round as usize - 1) % (n - 1);
        let at = |k: usize| if k == n - 1 { k } else { (k + r) % (n - 1) };
        for k in 0..n / 2 {
            let (a, b) = (at(k), at(n - 1 - k));
            let (white, black) = if (round + k as u32).is_multiple_of(2) {
                (a, b)
            } else {
                (b, a)
            };
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            let result = match seed % 3 {
                0 => GameResult::Win,
                1 => GameResult::Draw,
                _ => GameResult::Loss,
            };
            t.record_game(round, t.players[white].id, t.players[black].id, result);
        }
    }
    trf::write(&t).expect("a TRF file")
}

/// About `bytes` of lines with unknown tags after a two-player tournament of one round.
fn junk(bytes: usize) -> (String, usize) {
    let mut text = many_rounds(2, 1);
    let mut lines = 0;
    while text.len() < bytes {
        text.push_str(&format!(
            "ZZZ {lines:>10} a line no TRF reader knows, kept from another program\n"
        ));
        lines += 1;
    }
    (text, lines)
}

fn time_read(label: &str, text: &str) -> trf::TrfFile {
    let reset = reset_peak();
    let start = Instant::now();
    let file = trf::read(text.as_bytes(), &trf::ReadOptions::default()).expect("readable");
    let secs = start.elapsed().as_secs_f64();
    println!(
        "{label:<40} {:>8.1} MB {secs:>9.3} s  {}",
        text.len() as f64 / 1e6,
        show_peak(reset)
    );
    file
}

fn main() {
    // `cargo bench` passes `--bench`; other arguments are not used.
    println!("{:<40} {:>11} {:>11}", "TRF read", "size", "time");
    for rounds in [2_500u32, 5_000, 10_000, 20_000] {
        let text = many_rounds(20, rounds);
        let file = time_read(&format!("20 players x {rounds} rounds"), &text);
        assert_eq!(file.tournament.rounds_paired(), rounds);
        // `swiss check`: the absolute criteria of every round (linear in the rounds).
        let started = std::time::Instant::now();
        let violations = hanniball_pairing::check(&file.tournament);
        println!(
            "{:<40} {:>11} {:>9.3} s",
            format!("  check of the {rounds} rounds"),
            format!("{} found", violations.len()),
            started.elapsed().as_secs_f64()
        );
    }
    let text = many_rounds(9_998, 1);
    let file = time_read("9,998 players x 1 round", &text);
    assert_eq!(file.tournament.players.len(), 9_998);
    drop(text);
    let (text, lines) = junk(40_000_000);
    let file = time_read(&format!("{lines} unknown-tag lines"), &text);
    println!(
        "{:<40} {} notes kept; the last: {:?}",
        "",
        file.notes.len(),
        file.notes.last().map(|n| n.text.as_str()).unwrap_or("")
    );
}
