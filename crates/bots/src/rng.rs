//! The seeded generator (SplitMix64, from `hanniball-rng`), so the bots need no randomness crate
//! and no OS entropy, and the deterministic hashing built on its finaliser.

/// The workspace's one SplitMix64; the bots draw indices with `below_by_multiply` (Lemire's
/// multiply-shift), tests and benches with `below` (modulo): each keeps its own sequence.
pub(crate) use hanniball_rng::{Rng, mix};

/// Folds a 128-bit word into a running hash.
pub(crate) const fn fold(hash: u64, word: u128) -> u64 {
    let low = word as u64;
    let high = (word >> 64) as u64;
    mix(mix(hash ^ low).wrapping_add(high))
}

/// A hasher for keys that are already well-mixed `u64`s: the std default hasher is seeded from
/// the OS, which would make iteration orders (and so the bots) nondeterministic.
#[derive(Default)]
pub(crate) struct PremixedHasher(u64);

impl std::hash::Hasher for PremixedHasher {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        for &byte in bytes {
            self.0 = mix(self.0 ^ u64::from(byte));
        }
    }

    fn write_u64(&mut self, value: u64) {
        self.0 ^= value;
    }
}

/// A set of premixed `u64` keys with a deterministic hasher.
pub(crate) type KeySet =
    std::collections::HashSet<u64, std::hash::BuildHasherDefault<PremixedHasher>>;
