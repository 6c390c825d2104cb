//! The harness the deterministic fuzz tests share (the notation readers in `hanniball-rules`, the
//! TRF reader in `hanniball-pairing`): a seeded SplitMix64 generator, input classes (random bytes,
//! the reader's alphabet, mutations of valid inputs, grammar-built inputs, 1 MB inputs), and a
//! runner that catches panics and reports them with the input and the seed. Test-only: nothing
//! here runs in the product; its one dependency is the generator (`hanniball-rng`).
//!
//! `FUZZ_ITERATIONS=N` sets the inputs per reader (default 3,000), `FUZZ_SEED=S` draws others.

use std::panic::{AssertUnwindSafe, catch_unwind};
use std::time::Instant;

pub const DEFAULT_ITERATIONS: usize = 3_000;
pub const DEFAULT_SEED: u64 = 0x4841_4e4e_4942_414c; // "HANNIBAL"
/// Every this many inputs, one is about 1 MB long.
pub const LONG_EVERY: usize = 500;
pub const MEGABYTE: usize = 1 << 20;

/// SplitMix64, the workspace's one generator (`below` by modulo, `one_in`, `pick`).
pub use hanniball_rng::Rng;

pub fn env_number(name: &str) -> Option<u64> {
    let text = std::env::var(name).ok()?;
    Some(
        text.trim()
            .parse()
            .unwrap_or_else(|_| panic!("{name}={text:?} is not a number")),
    )
}

pub fn iterations() -> usize {
    env_number("FUZZ_ITERATIONS").map_or(DEFAULT_ITERATIONS, |n| n as usize)
}

pub fn seed() -> u64 {
    env_number("FUZZ_SEED").unwrap_or(DEFAULT_SEED)
}

/// A stable 64-bit hash (FNV-1a), to give each reader its own stream of inputs.
pub fn fnv(text: &str) -> u64 {
    text.bytes().fold(0xcbf2_9ce4_8422_2325, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
    })
}

/// The generator of input `index` of `reader`: each input has its own, so one can be replayed.
pub fn input_rng(reader: &str, index: usize) -> Rng {
    let mut mix =
        Rng::new(seed() ^ fnv(reader) ^ (index as u64).wrapping_mul(0xd6e8_feb8_6659_fd93));
    Rng::new(mix.next_u64())
}

/// Kinds of input, drawn in turn.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Class {
    Bytes,
    Alphabet,
    Mutation,
    Grammar,
    Long,
}

pub fn class_of(index: usize) -> Class {
    if index % LONG_EVERY == LONG_EVERY - 1 {
        return Class::Long;
    }
    match index % 4 {
        0 => Class::Bytes,
        1 => Class::Alphabet,
        2 => Class::Mutation,
        _ => Class::Grammar,
    }
}

/// What a reader's inputs are made of.
pub struct Source<'a> {
    /// Tokens of the notation: written next to each other, with or without separators.
    pub alphabet: &'a [&'a str],
    pub separators: &'a [&'a str],
    /// Valid inputs, to mutate.
    pub valid: &'a [String],
    /// An input built from the grammar with random content.
    pub grammar: &'a dyn Fn(&mut Rng) -> String,
}

/// Numbers around the limits of the integer types and the notation's own limits.
pub const NUMBERS: &[&str] = &[
    "0",
    "00",
    "01",
    "1",
    "2",
    "3",
    "4",
    "5",
    "9",
    "10",
    "12",
    "13",
    "14",
    "15",
    "16",
    "99",
    "100",
    "255",
    "256",
    "300",
    "65535",
    "65536",
    "999999999",
    "1000000000",
    "1000000001",
    "2147483647",
    "2147483648",
    "4294967295",
    "4294967296",
    "99999999999",
    "18446744073709551615",
    "18446744073709551616",
    "-0",
    "-1",
    "+1",
    "1.5",
    "1e3",
];

/// Characters that trip byte-minded code: multi-byte letters, non-ASCII digits and whitespace,
/// controls, a byte-order mark, the replacement character.
pub const UNICODE: &[&str] = &[
    "é", "ß", "Ω", "я", "中", "😀", "\u{0}", "\u{7f}", "\u{85}", "\u{a0}", "\u{200b}", "\u{2028}",
    "\u{feff}", "\u{fffd}", "１", "٣", "Ⅻ", "ｄ", "\t", "\n", "\r",
];

pub fn random_bytes(rng: &mut Rng, len: usize) -> String {
    let bytes: Vec<u8> = (0..len).map(|_| rng.next_u64() as u8).collect();
    String::from_utf8_lossy(&bytes).into_owned()
}

pub fn any_token<'a>(rng: &mut Rng, source: &Source<'a>) -> &'a str {
    match rng.below(10) {
        0 => rng.pick(NUMBERS),
        1 => rng.pick(UNICODE),
        2 => rng.pick(source.separators),
        _ => rng.pick(source.alphabet),
    }
}

pub fn alphabet_string(rng: &mut Rng, source: &Source<'_>) -> String {
    let tokens = rng.below(12);
    let mut text = String::new();
    for i in 0..tokens {
        if i > 0 && !rng.one_in(3) {
            text.push_str(rng.pick(source.separators));
        }
        text.push_str(any_token(rng, source));
    }
    text
}

/// Replaces the run of ASCII digits around byte `at` (if any) by another number.
pub fn replace_number(rng: &mut Rng, bytes: &mut Vec<u8>, at: usize) {
    let Some(start) = (at..bytes.len()).find(|&i| bytes[i].is_ascii_digit()) else {
        return;
    };
    let end = (start..bytes.len())
        .find(|&i| !bytes[i].is_ascii_digit())
        .unwrap_or(bytes.len());
    bytes.splice(start..end, rng.pick(NUMBERS).bytes());
}

/// One to four random edits of `valid`, at the byte level (which may split a UTF-8 sequence:
/// the lossy conversion then puts in a replacement character, a fine input too).
pub fn mutate(rng: &mut Rng, valid: &str, source: &Source<'_>) -> String {
    let mut bytes = valid.as_bytes().to_vec();
    for _ in 0..1 + rng.below(4) {
        let len = bytes.len();
        let at = rng.below(len + 1);
        let span = 1 + rng.below(8);
        match rng.below(10) {
            0 => {
                let end = (at + span).min(len);
                bytes.drain(at..end);
            }
            1 => {
                let end = (at + span).min(len);
                let copy = bytes[at..end].to_vec();
                let to = rng.below(len + 1);
                bytes.splice(to..to, copy);
            }
            2 if len > 1 => {
                let other = rng.below(len);
                bytes.swap(at.min(len - 1), other);
            }
            3 if len > 0 => bytes[at.min(len - 1)] = rng.next_u64() as u8,
            4 if len > 0 => {
                let token = any_token(rng, source).as_bytes();
                if !token.is_empty() {
                    bytes[at.min(len - 1)] = token[rng.below(token.len())];
                }
            }
            5 => {
                let token = any_token(rng, source);
                bytes.splice(at..at, token.bytes());
            }
            6 => bytes.truncate(at),
            7 => {
                let end = (at + span).min(len);
                let segment = bytes[at..end].to_vec();
                let times = 1 + rng.below(40);
                for _ in 0..times {
                    bytes.splice(end..end, segment.iter().copied());
                }
            }
            8 => replace_number(rng, &mut bytes, at),
            _ => {
                let token = rng.pick(UNICODE);
                bytes.splice(at..at, token.bytes());
            }
        }
    }
    String::from_utf8_lossy(&bytes).into_owned()
}

/// About 1 MB of one kind or another.
pub fn long_input(rng: &mut Rng, source: &Source<'_>) -> String {
    let mut valid = rng.pick_ref(source.valid).clone();
    if valid.is_empty() {
        // Repeating the empty text (paper football's initial position) would never grow.
        valid = rng.pick(source.alphabet).to_owned();
    }
    let mut text = String::with_capacity(MEGABYTE + 64);
    match rng.below(6) {
        0 => return random_bytes(rng, MEGABYTE),
        1 => {
            let separator = rng.pick(source.separators);
            while text.len() < MEGABYTE {
                if !text.is_empty() {
                    text.push_str(separator);
                }
                text.push_str(&valid);
            }
        }
        2 => {
            text.push_str(&valid);
            let filler = any_token(rng, source);
            while text.len() < MEGABYTE && !filler.is_empty() {
                text.push_str(filler);
            }
        }
        3 => {
            while text.len() < MEGABYTE {
                text.push_str(any_token(rng, source));
                if rng.one_in(2) {
                    text.push_str(rng.pick(source.separators));
                }
            }
        }
        4 => {
            // One giant token: no separator anywhere.
            let token = rng.pick(source.alphabet);
            while text.len() < MEGABYTE && !token.is_empty() {
                text.push_str(token);
            }
        }
        _ => {
            while text.len() < MEGABYTE {
                text.push_str(&valid);
                text.push_str(rng.pick(source.separators));
            }
            text = mutate(rng, &text, source);
        }
    }
    text
}

pub fn generate(rng: &mut Rng, class: Class, source: &Source<'_>) -> String {
    match class {
        Class::Bytes => {
            let len = rng.below(64);
            random_bytes(rng, len)
        }
        Class::Alphabet => alphabet_string(rng, source),
        Class::Mutation => {
            let valid = rng.pick_ref(source.valid).clone();
            mutate(rng, &valid, source)
        }
        Class::Grammar => (source.grammar)(rng),
        Class::Long => long_input(rng, source),
    }
}

/// Counts of one reader's run.
#[derive(Debug, Default)]
pub struct Tally {
    pub inputs: usize,
    /// `Ok`/`Err` by input class.
    pub ok: [usize; 5],
    pub err: [usize; 5],
    pub bytes: usize,
}

impl Tally {
    pub fn refused_share(&self, class: Class) -> f64 {
        let i = class as usize;
        self.err[i] as f64 / (self.ok[i] + self.err[i]).max(1) as f64
    }
}

/// A short, escaped picture of an input for a failure message.
pub fn preview(text: &str) -> String {
    if text.len() <= 400 {
        format!("{text:?}")
    } else {
        let cut = (0..=300)
            .rev()
            .find(|&i| text.is_char_boundary(i))
            .unwrap_or(0);
        format!("{:?}... ({} bytes in all)", &text[..cut], text.len())
    }
}

/// Feeds `iterations()` inputs made by `input` from `source` to `check` (which says whether the reader said
/// `Ok`). A panic is caught and reported with the input; up to five are collected before the test
/// fails, so one run shows several.
pub fn fuzz(
    reader: &str,
    source: &Source<'_>,
    input: impl Fn(&mut Rng, Class, &Source<'_>) -> String,
    mut check: impl FnMut(&str) -> bool,
) -> Tally {
    let count = iterations();
    let started = Instant::now();
    let mut tally = Tally::default();
    let mut failures = Vec::new();
    for index in 0..count {
        let class = class_of(index);
        let mut rng = input_rng(reader, index);
        let input = input(&mut rng, class, source);
        tally.inputs += 1;
        tally.bytes += input.len();
        match catch_unwind(AssertUnwindSafe(|| check(&input))) {
            Ok(true) => tally.ok[class as usize] += 1,
            Ok(false) => tally.err[class as usize] += 1,
            Err(payload) => {
                let message = payload
                    .downcast_ref::<String>()
                    .cloned()
                    .or_else(|| payload.downcast_ref::<&str>().map(|s| (*s).to_owned()))
                    .unwrap_or_default();
                failures.push(format!(
                    "{reader}: input {index} ({class:?}, FUZZ_SEED={}) panicked: {message}\n  input: {}",
                    seed(),
                    preview(&input)
                ));
                if failures.len() >= 5 {
                    break;
                }
            }
        }
    }
    println!(
        "{reader}: {} inputs ({} MB) in {:.2?}; Ok/Err by class bytes {}/{}, alphabet {}/{}, \
         mutation {}/{}, grammar {}/{}, long {}/{}",
        tally.inputs,
        tally.bytes / MEGABYTE,
        started.elapsed(),
        tally.ok[0],
        tally.err[0],
        tally.ok[1],
        tally.err[1],
        tally.ok[2],
        tally.err[2],
        tally.ok[3],
        tally.err[3],
        tally.ok[4],
        tally.err[4],
    );
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    tally
}
