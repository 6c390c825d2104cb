//! A small seeded generator (SplitMix64), so the bots need no randomness crate and no OS entropy.

/// SplitMix64 (Steele, Lea, Flood 2014): one `u64` of state, good enough for choosing moves and
/// breaking ties; the same seed always gives the same sequence.
#[derive(Clone, Debug)]
pub(crate) struct Rng(u64);

impl Rng {
    pub(crate) const fn new(seed: u64) -> Rng {
        Rng(seed)
    }

    pub(crate) fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        mix(self.0)
    }

    /// An index below `n` (`n > 0`). The tiny modulo bias is irrelevant for move choice.
    pub(crate) fn below(&mut self, n: usize) -> usize {
        debug_assert!(n > 0, "below(0) has no answer");
        // Lemire's multiply-shift: the high half of a 64x64 product is below `n`.
        ((u128::from(self.next_u64()) * n as u128) >> 64) as usize
    }
}

/// The SplitMix64 finaliser: a bijective mixer, also used to hash positions.
pub(crate) const fn mix(mut z: u64) -> u64 {
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn same_seed_same_sequence_and_below_stays_below() {
        let mut a = Rng::new(7);
        let mut b = Rng::new(7);
        for n in 1..200 {
            let x = a.below(n);
            assert_eq!(x, b.below(n));
            assert!(x < n);
        }
        assert_ne!(Rng::new(1).next_u64(), Rng::new(2).next_u64());
    }
}
