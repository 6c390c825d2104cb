//! Deterministic fuzzing of the TRF reader (`trf::parse`, `trf::parse_with_notes`), as a test CI
//! runs. A TRF file is what a tournament director hands to `hanniball swiss` and what the
//! scheduler exports; whatever it holds, reading it must end in `Ok` or `Err`, never a panic.
//!
//! Inputs come from the seeded SplitMix64 of `hanniball-rng` (through `hanniball-fuzz-kit`; no
//! nightly, no cargo-fuzz) with a fixed seed, so every run sees the same inputs: (a) random bytes
//! made text by `String::from_utf8_lossy`; (b) random strings over the format's own alphabet
//! (record tags, `001` columns, colour and result codes, numbers at the integer limits, line ends,
//! unicode); (c) mutations of the valid files in `tests/data/bbp/*.trf` and
//! `tests/data/dutch/*.txt` and of their canonical rewrites (bytes deleted, duplicated, swapped,
//! replaced, truncated, segments repeated, numbers replaced; lines deleted, duplicated, swapped,
//! added); (d) random tournaments built from the grammar, mostly consistent, so that many parse;
//! and every 500th input is about 1 MB long (including a 1 MB tournament of thousands of players,
//! and a player with 100,000 rounds).
//!
//! Every input must give `Ok` or `Err` without a panic, and `parse` must agree with
//! `parse_with_notes`. What is read `Ok` is written with `trf::write`, and that text must read
//! back to the same tournament (and write back to the same text); the absolute-criteria checker
//! (`check`, which `hanniball swiss check` runs right after reading) must not panic on it either.
//! The test also fails if a valid file stops reading, if random bytes are ever accepted, or if
//! mutated files are seldom refused.
//!
//! Run: `cargo test -p hanniball-pairing --test pairing fuzz_trf::` (3,000 inputs, seconds).
//! Longer: `FUZZ_ITERATIONS=200000 cargo test -p hanniball-pairing --test pairing fuzz_trf:: --
//! --nocapture` (prints inputs, `Ok`/`Err` counts and time); `FUZZ_SEED=<u64>` draws other inputs.
//! A panicking input is reported with the seed, its number and its text; keep it as a case in
//! `regressions` below once the reader is fixed.

use std::path::Path;

use hanniball_pairing::check;
use hanniball_pairing::trf::{self, TrfError};

use hanniball_fuzz_kit::*;

// ---------------------------------------------------------------------------------------------
// TRF material.

/// The valid TRF texts of the test data (the TRF part of the Dutch cases), then the same
/// tournaments as `trf::write` writes them.
fn corpus() -> Vec<String> {
    let data = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data");
    let mut texts = Vec::new();
    for dir in ["bbp", "dutch"] {
        let mut files: Vec<_> = std::fs::read_dir(data.join(dir))
            .expect("data dir")
            .map(|entry| entry.expect("entry").path())
            .filter(|path| path.extension().is_some_and(|e| e == "trf" || e == "txt"))
            .collect();
        files.sort();
        for file in files {
            let text = std::fs::read_to_string(&file).expect("read");
            let trf_part = match text.split_once("=== expected") {
                Some((trf_part, _)) => trf_part.to_owned(),
                None => text,
            };
            texts.push(trf_part);
        }
    }
    assert!(
        texts.len() >= 40,
        "test data missing: {} files",
        texts.len()
    );
    let written: Vec<String> = texts
        .iter()
        .map(|text| trf::write(&trf::parse(text).expect("test data reads")).expect("writes"))
        .collect();
    texts.extend(written);
    texts
}

const TRF_ALPHABET: &[&str] = &[
    "001",
    "012",
    "022",
    "062",
    "092",
    "112",
    "132",
    "142",
    "152",
    "XXR",
    "XXC",
    "XXA",
    "XXP",
    "XXW",
    "BBU",
    "BBW",
    "162",
    "240",
    "250",
    "260",
    "192",
    "FIDE_DUTCH_2025_BAKU",
    "###",
    "white1",
    "black1",
    "rank",
    "w",
    "b",
    "-",
    "=",
    "+",
    "H",
    "F",
    "U",
    "Z",
    "W",
    "D",
    "L",
    "0000",
    "   1",
    "   2",
    "  10",
    "0002 w 1",
    "0000 - U",
    "1.0",
    "0.5",
    "Test0001 Player0001",
    "2700",
];
const TRF_SEPARATORS: &[&str] = &[" ", "  ", "    ", "\n", "\r", "\r\n", ""];
const LINE_ENDS: &[&str] = &["\n", "\r", "\r\n"];
const NAMES: &[&str] = &[
    "Alpha",
    "Test0001 Player0001",
    "Ödön Ürgüp",
    "李小龙",
    "😀 Smiley",
    "",
    "a name that is far too long to fit the thirty-three columns",
    "  padded  ",
    "Tab\tName",
];

/// A `001` line in the exact TRF-16 columns (rounds from column 92), the name cut to its 33.
fn player_line(rank: &str, name: &str, rating: &str, rounds: &[String]) -> String {
    let name: String = name.chars().take(33).collect();
    let mut line = format!(
        "001 {rank:>4} {:1}{:>3} {name:<33} {rating:>4} {:>3} {:>11} {:>10} {:>4} {rank:>4}",
        "", "", "", "", "", ""
    );
    for round in rounds {
        line.push_str("  ");
        line.push_str(round);
    }
    line.trim_end().to_owned()
}

fn shuffle<T>(rng: &mut Rng, items: &mut [T]) {
    for i in (1..items.len()).rev() {
        items.swap(i, rng.below(i + 1));
    }
}

/// One round's eight characters, any of them possibly wrong.
fn random_entry(rng: &mut Rng, players: usize) -> String {
    let opponent = match rng.below(6) {
        0 => "0000".to_owned(),
        1 => "    ".to_owned(),
        2 => rng.pick(NUMBERS).to_owned(),
        _ => format!("{:4}", 1 + rng.below(players + 1)),
    };
    let colour = rng.pick(&["w", "b", "-", " ", "W", "x", "é"]);
    let result = rng.pick(&[
        "1", "0", "=", "+", "-", "W", "D", "L", "H", "F", "U", "Z", " ", "?",
    ]);
    format!("{opponent:>4} {colour} {result}")
}

/// A random tournament in TRF: consistent pairings round by round (with byes), random header and
/// extension lines, random line ends; in half of them a few things are wrong (entries, ranks,
/// ratings, numbers and points at the limits).
fn random_tournament(rng: &mut Rng) -> String {
    let faulty = rng.one_in(2);
    // True now and then in a faulty tournament, never in a clean one.
    let wrong = |rng: &mut Rng, n: usize| faulty && rng.one_in(n);
    let players = 1 + rng.below(14);
    let rounds = rng.below(9);
    // Every player gets one entry per round: paired, or the one left over.
    let mut entries = vec![Vec::with_capacity(rounds); players];
    for _ in 0..rounds {
        let mut order: Vec<usize> = (0..players).collect();
        shuffle(rng, &mut order);
        for pair in order.chunks(2) {
            match *pair {
                [a, b] => {
                    let (ra, rb) = rng.pick(&[
                        ("1", "0"),
                        ("=", "="),
                        ("0", "1"),
                        ("+", "-"),
                        ("-", "+"),
                        ("W", "L"),
                        ("D", "D"),
                        ("L", "W"),
                    ]);
                    let (ca, cb) = if rng.one_in(2) {
                        ("w", "b")
                    } else {
                        ("b", "w")
                    };
                    entries[a].push(format!("{:4} {ca} {ra}", b + 1));
                    entries[b].push(format!("{:4} {cb} {rb}", a + 1));
                }
                [a] => {
                    let code = rng.pick(&["U", "F", "H", "Z", " "]);
                    entries[a].push(format!("0000 - {code}"));
                }
                _ => unreachable!("chunks of two"),
            }
        }
    }
    for _ in 0..if faulty { rng.below(3) } else { 0 } {
        if rounds > 0 {
            let (p, r) = (rng.below(players), rng.below(rounds));
            entries[p][r] = random_entry(rng, players);
        }
    }
    let mut lines = Vec::new();
    if rng.one_in(2) {
        lines.push(format!("012 {}", rng.pick(NAMES)));
    }
    if rng.one_in(4) {
        lines.push("092 FIDE_DUTCH_2025".to_owned());
        lines.push(format!("112 {}", rng.pick(NAMES)));
        lines.push("062 12 (12)".to_owned());
    }
    for (i, player_entries) in entries.iter().enumerate() {
        let rank = if wrong(rng, 20) {
            rng.pick(NUMBERS).to_owned()
        } else {
            (i + 1).to_string()
        };
        let rating = if rng.one_in(3) {
            String::new()
        } else if wrong(rng, 10) {
            rng.pick(NUMBERS).to_owned()
        } else {
            (1000 + rng.below(1800)).to_string()
        };
        lines.push(player_line(&rank, rng.pick(NAMES), &rating, player_entries));
    }
    let number = |rng: &mut Rng| -> String {
        if wrong(rng, 3) {
            rng.pick(NUMBERS).to_owned()
        } else {
            (1 + rng.below(players)).to_string()
        }
    };
    let points = |rng: &mut Rng| -> String {
        if wrong(rng, 3) {
            return rng
                .pick(&["1.25", "x", "", "-1", ".5", "1.", "99.5", "100"])
                .to_owned();
        }
        rng.pick(&["1.0", "0.5", "0", "1", "0.0", "2.5", "1.50"])
            .to_owned()
    };
    if rng.one_in(2) {
        lines.push(format!("XXR {}", rounds + rng.below(3)));
    }
    if rng.one_in(6) {
        let text = number(rng);
        lines.push(format!("XXR {text}"));
    }
    if rng.one_in(2) {
        lines.push(format!(
            "XXC {}",
            if wrong(rng, 3) {
                rng.pick(&["WHITE1", "red1", ""])
            } else {
                rng.pick(&["white1", "black1", "rank white1"])
            }
        ));
    }
    if rng.one_in(6) {
        let colour = if wrong(rng, 3) {
            "x"
        } else {
            rng.pick(&["W", "b"])
        };
        lines.push(format!("152 {colour}"));
    }
    if rng.one_in(4) {
        // Large values (a few of them beyond the limits) whatever the tournament: scores are
        // sums of these.
        let value = if rng.one_in(3) {
            format!("{}.5", rng.pick(NUMBERS))
        } else if rng.one_in(2) {
            rng.pick(NUMBERS).to_owned()
        } else {
            points(rng)
        };
        lines.push(format!("BBU {value}"));
    }
    for _ in 0..rng.below(3) {
        let mut line = format!("XXA {:>4}", number(rng));
        for _ in 0..rng.below(6) {
            let value = if wrong(rng, 4) {
                rng.pick(NUMBERS).to_owned()
            } else {
                points(rng)
            };
            line.push_str(&format!(" {value:>4}"));
        }
        lines.push(line);
    }
    for _ in 0..rng.below(2) {
        let group: Vec<String> = (0..rng.below(4)).map(|_| number(rng)).collect();
        lines.push(format!("XXP {}", group.join(" ")));
    }
    if rng.one_in(4) {
        let (a, b) = (number(rng), number(rng));
        lines.push(format!("XXW {a} {b}"));
    }
    if rng.one_in(5) {
        lines.push(format!("### comment {}", rng.pick(NAMES)));
    }
    if rng.one_in(8) {
        shuffle(rng, &mut lines);
    }
    let end = rng.pick(LINE_ENDS);
    let mut text = lines.join(end);
    if rng.one_in(2) {
        text.push_str(end);
    }
    text
}

/// An extra line for a mutation: an extension line with numbers at the limits.
fn extension_line(rng: &mut Rng) -> String {
    let n = |rng: &mut Rng| rng.pick(NUMBERS);
    match rng.below(15) {
        9 => format!("162  W {}    D {}    A {}", n(rng), n(rng), n(rng)),
        10 => format!("BBW {}", n(rng)),
        11 => format!("240 H {:>3} {:>4} {:>4}", n(rng), n(rng), n(rng)),
        12 => format!(
            "250      {:>4} {:>3} {:>3} {:>4} {:>4}",
            n(rng),
            n(rng),
            n(rng),
            n(rng),
            n(rng)
        ),
        13 => format!(
            "260 {:>3} {:>3} {:>4} {:>4}",
            n(rng),
            n(rng),
            n(rng),
            n(rng)
        ),
        14 => format!("192 FIDE_DUTCH_2025_BAKU\nXXR {}", n(rng)),
        0 => format!("BBU {}", n(rng)),
        1 => format!("BBU {}.5", n(rng)),
        2 => format!("XXR {}", n(rng)),
        3 => format!("XXW {} {}", n(rng), n(rng)),
        4 => format!("XXA {} {} {}", n(rng), n(rng), n(rng)),
        5 => format!("XXP {} {}", n(rng), n(rng)),
        6 => format!("XXC {}", rng.pick(&["white1", "black1", "rank", "x"])),
        7 => format!("152 {}", rng.pick(&["W", "B", "w", "?"])),
        _ => player_line(n(rng), "Fuzz", n(rng), &[format!("{:>4} w 1", n(rng))]),
    }
}

/// Line-level edits: lines deleted, duplicated, swapped, added; line ends changed.
fn mutate_lines(rng: &mut Rng, valid: &str) -> String {
    let mut lines: Vec<String> = valid
        .split(['\n', '\r'])
        .filter(|line| !line.is_empty())
        .map(str::to_owned)
        .collect();
    for _ in 0..1 + rng.below(3) {
        let len = lines.len();
        let at = rng.below(len + 1);
        match rng.below(5) {
            0 if len > 0 => {
                lines.remove(at.min(len - 1));
            }
            1 if len > 0 => {
                let line = lines[at.min(len - 1)].clone();
                lines.insert(rng.below(len + 1), line);
            }
            2 if len > 1 => lines.swap(at.min(len - 1), rng.below(len)),
            3 if len > 0 => {
                // A player's rounds cut short or padded.
                let line = &mut lines[at.min(len - 1)];
                let cut = rng.below(line.len() + 1);
                if line.is_char_boundary(cut) {
                    line.truncate(cut);
                }
                if rng.one_in(2) {
                    line.push_str(&" ".repeat(rng.below(30)));
                    line.push_str(&random_entry(rng, 20));
                }
            }
            _ => lines.insert(at, extension_line(rng)),
        }
    }
    lines.join(rng.pick(LINE_ENDS))
}

/// About 1 MB of TRF of one kind or another.
fn long_trf(rng: &mut Rng, source: &Source<'_>) -> String {
    match rng.below(5) {
        0 => {
            // Thousands of players (ranks have four columns: at most 9999), one round paired.
            let players = 9_000;
            let mut lines = vec!["012 Big".to_owned()];
            for i in 0..players {
                let opponent = if i % 2 == 0 { i + 2 } else { i };
                let colour = if i % 2 == 0 { "w" } else { "b" };
                let entry = if opponent > players {
                    "0000 - U".to_owned()
                } else {
                    format!("{opponent:4} {colour} =")
                };
                lines.push(player_line(&(i + 1).to_string(), "P", "1500", &[entry]));
            }
            lines.join("\n")
        }
        1 => {
            // One player with 100,000 rounds against another.
            let mut text = player_line("1", "Long", "2000", &[]);
            while text.len() < 91 {
                text.push(' ');
            }
            while text.len() < MEGABYTE {
                text.push_str(&format!("{:4} w 1  ", 2));
            }
            text.push('\n');
            text.push_str(&player_line("2", "Short", "", &["0001 b 0".to_owned()]));
            text
        }
        2 => format!(
            "012 {}\n{}",
            "x".repeat(MEGABYTE),
            rng.pick_ref(source.valid)
        ),
        3 => rng
            .pick(&["\n", "\r", " ", "0", "001 "])
            .repeat(MEGABYTE / 4),
        _ => long_input(rng, source),
    }
}

fn trf_input(rng: &mut Rng, class: Class, source: &Source<'_>) -> String {
    match class {
        Class::Mutation => {
            let valid = rng.pick_ref(source.valid).clone();
            match rng.below(3) {
                0 => mutate_lines(rng, &valid),
                1 => mutate(rng, &valid, source),
                _ => {
                    let lines = mutate_lines(rng, &valid);
                    mutate(rng, &lines, source)
                }
            }
        }
        Class::Long => long_trf(rng, source),
        _ => generate(rng, class, source),
    }
}

/// Reads `text`; what reads `Ok` must write back and read back the same, and the checker must
/// cope with it. Says whether it read `Ok`.
fn read(text: &str) -> bool {
    let parsed = trf::parse(text);
    let with_notes = trf::parse_with_notes(text);
    assert_eq!(
        parsed.as_ref(),
        with_notes.as_ref().map(|(t, _)| t),
        "parse and parse_with_notes agree"
    );
    let tournament = match parsed {
        Ok(tournament) => tournament,
        Err(error) => {
            assert!(!error.to_string().is_empty());
            return false;
        }
    };
    let written = trf::write(&tournament).expect("a tournament that was read is writable");
    let back = trf::parse(&written);
    assert!(
        back.as_ref() == Ok(&tournament),
        "the written text does not read back to the same tournament: {:?}\n  written: {}",
        back.as_ref().err(),
        preview(&written)
    );
    assert_eq!(
        trf::write(&back.expect("checked")).expect("writes"),
        written,
        "write is a fixed point"
    );
    if text.len() <= 100_000 && tournament.rounds_paired() <= 40 {
        let _ = check(&tournament);
    }
    true
}

#[test]
fn trf_reader() {
    let valid = corpus();
    for text in &valid {
        assert!(read(text), "valid test data reads");
    }
    let source = Source {
        alphabet: TRF_ALPHABET,
        separators: TRF_SEPARATORS,
        valid: &valid,
        grammar: &random_tournament,
    };
    let tally = fuzz("trf", &source, trf_input, read);
    assert_eq!(
        tally.ok[Class::Bytes as usize],
        0,
        "random bytes read as a TRF"
    );
    assert!(tally.refused_share(Class::Mutation) > 0.5, "{tally:?}");
    assert!(tally.ok[Class::Mutation as usize] > 0, "{tally:?}");
    assert!(tally.ok[Class::Grammar as usize] > 0, "{tally:?}");
}

// ---------------------------------------------------------------------------------------------
// Regression cases: inputs that once made the reader panic stay here, checked on every run.

#[test]
fn regressions() {
    let byes = |n: usize| vec!["0000 - U".to_owned(); n];
    let one = |rounds: &[String]| player_line("1", "One", "", rounds);
    let too_many = |line: usize, field: &'static str, text: &str| {
        Some(TrfError::TooManyPoints {
            line,
            field,
            text: text.to_owned(),
        })
    };
    // `None`: must read, and write back to a text that reads back the same.
    let cases: Vec<(String, Option<TrfError>)> = vec![
        // Was "attempt to multiply with overflow" in the half-points reader.
        (
            format!("{}\nXXA    1 4294967295  1.0", one(&[])),
            too_many(2, "acceleration", "4294967295"),
        ),
        (
            format!("{}\nBBU 2147483648", one(&[])),
            too_many(2, "bye points", "2147483648"),
        ),
        // Read, then "attempt to add with overflow" summing the score in `write` and `check`.
        (
            format!("{}\nBBU 2147483647", one(&byes(2))),
            too_many(2, "bye points", "2147483647"),
        ),
        (
            format!("{}\nBBU 100", one(&byes(1))),
            too_many(2, "bye points", "100"),
        ),
        (format!("{}\nBBU 99.5", one(&byes(2))), None),
        (
            format!("{}\nBBU 99999999999", one(&[])),
            too_many(2, "bye points", "99999999999"),
        ),
        // Scores of 100 points and more were written wider than the points column, which moved
        // the round columns: the written file no longer read.
        (format!("{}\nBBU 99", one(&byes(2))), None),
        (
            format!(
                "{}\n{}",
                one(&vec!["0002 w 1".to_owned(); 100]),
                player_line("2", "Two", "", &vec!["0001 b 0".to_owned(); 100])
            ),
            None,
        ),
    ];
    for (text, error) in &cases {
        match error {
            Some(error) => assert_eq!(trf::parse(text).as_ref().err(), Some(error), "{text:?}"),
            None => assert!(read(text), "{text:?}"),
        }
    }
}
