//! Times the Dutch engine on generated tournaments of 100, 1,000, 5,000 and 10,000 players.
//!
//! `cargo bench -p hanniball-pairing --bench dutch [-- SIZE...]` pairs every round of a seeded
//! random tournament of each size (SplitMix64, so every run pairs the same tournaments) and
//! prints the time of each round and the process's peak memory. With `BBP` set to the path of a
//! bbpPairings executable, each round's state is also written as a TRF file and paired by it
//! (`--dutch FILE -p`); the bench prints its time, the ratio, and whether both pairings agree.
//! bbpPairings handles at most 9,999 players, so the 10,000-player field is ours alone. A size
//! stops after the first round that takes more than two minutes. `DUTCH_FIELD=scale` pairs the
//! field of the service's scale bench instead (five players to a rating, a third drawn).
//!
//! Each round's pairing is compared with the one recorded before the matcher's rework
//! (`support/recorded-digests.txt`, every round of 1,000, 5,000 and 10,000 players): the bench
//! prints whether each is the same, and how many were. With several sizes, it ends with the
//! ratio of each size's mean round time to the smallest's (linear growth would be the ratio of
//! the sizes).

use std::time::Instant;

use hanniball_pairing::{DutchOptions, Tournament, format_pairing, pair_next_round, trf};

#[path = "support/field.rs"]
mod field;

/// A size whose round takes longer than this is not paired further (10,000 players' rounds take
/// minutes each).
const ROUND_CAP_SECS: f64 = 120.0;

/// Peak resident memory of this process in MiB (Linux), if readable.
fn peak_mib() -> Option<f64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    let kib: f64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kib / 1024.0)
}

/// CPU seconds this process has used (user + system, Linux), if readable: on a shared machine
/// a round's CPU time is steadier than its wall time.
fn cpu_secs() -> Option<f64> {
    let stat = std::fs::read_to_string("/proc/self/stat").ok()?;
    // Fields after the command's closing parenthesis; utime and stime are the 12th and 13th.
    let rest = &stat[stat.rfind(')')? + 2..];
    let mut fields = rest.split_whitespace().skip(11);
    let utime: f64 = fields.next()?.parse().ok()?;
    let stime: f64 = fields.next()?.parse().ok()?;
    // Clock ticks of 1/100 s (USER_HZ on Linux).
    Some((utime + stime) / 100.0)
}

/// Times bbpPairings on the same round; returns (seconds, its output).
fn bbp(exe: &str, t: &Tournament, players: u32, round: u32) -> Option<(f64, String)> {
    if players > 9_999 {
        return None;
    }
    let dir = std::env::temp_dir().join("hanniball-dutch-bench");
    std::fs::create_dir_all(&dir).ok()?;
    let input = dir.join(format!("p{players}-r{round}.trf"));
    let output = dir.join(format!("p{players}-r{round}.out"));
    let text = trf::write(t).ok()?;
    std::fs::write(&input, text).ok()?;
    let start = Instant::now();
    let status = std::process::Command::new(exe)
        .arg("--dutch")
        .arg(&input)
        .arg("-p")
        .arg(&output)
        .status()
        .ok()?;
    let secs = start.elapsed().as_secs_f64();
    if !status.success() {
        eprintln!("bbpPairings failed on {}", input.display());
        return None;
    }
    Some((secs, std::fs::read_to_string(&output).ok()?))
}

fn main() {
    let sizes: Vec<u32> = std::env::args()
        .skip(1)
        .filter_map(|a| a.parse().ok())
        .collect();
    let bbp_exe = std::env::var("BBP").ok();
    // `DUTCH_FIELD=scale`: the field of the service's scale bench (`tests/benches/scale.rs`):
    // five players to a rating, no requested byes, a third of the games each way and drawn.
    let scale_field = std::env::var("DUTCH_FIELD").is_ok_and(|f| f == "scale");
    // (players, mean round seconds, mean round CPU seconds) of each size paired.
    let mut means: Vec<(u32, f64, f64)> = Vec::new();
    let (mut same, mut compared) = (0, 0);
    for (players, rounds) in [(100u32, 9u32), (1_000, 11), (5_000, 9), (10_000, 13)] {
        if !sizes.is_empty() && !sizes.contains(&players) {
            continue;
        }
        let mut f = field::Field::new(players, rounds, scale_field);
        let options = DutchOptions::default();
        let mut total = 0.0;
        let mut total_cpu = 0.0;
        let mut times = Vec::new();
        for round in 1..=rounds {
            f.byes(round);
            let start = Instant::now();
            let cpu_start = cpu_secs();
            let p = match pair_next_round(&f.t, &options) {
                Ok(p) => p,
                Err(e) => {
                    println!("{players:>6} players, round {round:>2}: not paired: {e}");
                    break;
                }
            };
            let secs = start.elapsed().as_secs_f64();
            let cpu = cpu_start.zip(cpu_secs()).map_or(0.0, |(a, b)| b - a);
            total += secs;
            total_cpu += cpu;
            let mut line =
                format!("{players:>6} players, round {round:>2}: {secs:>8.3} s (cpu {cpu:>6.2} s)");
            if let Some(exe) = &bbp_exe {
                match bbp(exe, &f.t, players, round) {
                    Some((theirs, out)) => {
                        let same = out.trim() == format_pairing(&p).trim();
                        line.push_str(&format!(
                            "   bbpPairings {theirs:>8.3} s   ratio {:>7.1}x   {}",
                            theirs / secs.max(1e-9),
                            if same {
                                "same pairing"
                            } else {
                                "PAIRINGS DIFFER"
                            }
                        ));
                    }
                    None => line.push_str("   bbpPairings: not run"),
                }
            }
            // A digest of the pairing, so that runs of two builds can be compared round by round.
            let digest = field::digest(&p);
            line.push_str(&format!("   pairing {digest:016x}"));
            match field::recorded(players, round).filter(|_| !scale_field) {
                Some(d) if d == digest => {
                    same += 1;
                    compared += 1;
                    line.push_str(" as recorded");
                }
                Some(_) => {
                    compared += 1;
                    line.push_str(" DIFFERS FROM THE RECORDED PAIRING");
                }
                None => {}
            }
            println!("{line}");
            times.push(secs);
            if secs > ROUND_CAP_SECS {
                println!(
                    "{players:>6} players: stopped after round {round}, which took over {ROUND_CAP_SECS} s"
                );
                break;
            }
            f.play(round, &p);
        }
        let paired = times.len().max(1) as f64;
        means.push((players, total / paired, total_cpu / paired));
        times.sort_by(f64::total_cmp);
        println!(
            "{players:>6} players, {rounds} rounds: all rounds {total:.3} s (cpu {total_cpu:.2} s), slowest round {:.3} s, peak memory {:.0} MiB",
            times.last().copied().unwrap_or(0.0),
            peak_mib().unwrap_or(0.0)
        );
    }
    if compared > 0 {
        println!("{same} of {compared} rounds paired as recorded");
    }
    if let Some(&(p0, t0, c0)) = means.first() {
        for &(p, t, c) in &means[1..] {
            println!(
                "mean round at {p} players / at {p0}: {:.1} (cpu {:.1}); linear would be {:.1}",
                t / t0.max(1e-9),
                c / c0.max(1e-9),
                f64::from(p) / f64::from(p0)
            );
        }
    }
}
