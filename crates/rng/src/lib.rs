//! The workspace's one seeded generator, SplitMix64 (Steele, Lea, Flood 2014), and its
//! finaliser `mix`. The bots draw their moves from it; tests and benches draw their inputs from
//! it, so a seed names the same sequence everywhere.
//!
//! Pure and dependency-free: no OS entropy, no clock, no `std`. The sequence is a contract:
//! seeds in tests, expected data and bench digests depend on it, so the constants, the output
//! order and each helper's derivation (`below` by modulo, `below_by_multiply` by
//! multiply-shift, the ranged draws by modulo over the range's width) never change.

#![no_std]

use core::ops::{Bound, RangeBounds};

/// The inclusive bounds of `range` within `min..=max`; panics on an empty range.
fn bounds<R: RangeBounds<i128>>(range: &R, min: i128, max: i128) -> (i128, i128) {
    let lo = match range.start_bound() {
        Bound::Included(&v) => v,
        Bound::Excluded(&v) => v + 1,
        Bound::Unbounded => min,
    };
    let hi = match range.end_bound() {
        Bound::Included(&v) => v,
        Bound::Excluded(&v) => v - 1,
        Bound::Unbounded => max,
    };
    assert!(lo <= hi, "an empty range has nothing to draw");
    (lo, hi)
}

/// A draw in a range of one integer type: `lo + below(width)` (the whole `u64` width: one
/// `next_u64`).
macro_rules! ranged {
    ($($name:ident: $t:ty),*) => {$(
        #[doc = concat!("A `", stringify!($t), "` in `range` (`..`: any).")]
        pub fn $name<R: RangeBounds<$t>>(&mut self, range: R) -> $t {
            let widen = |b: Bound<&$t>| match b {
                Bound::Included(&v) => Bound::Included(v as i128),
                Bound::Excluded(&v) => Bound::Excluded(v as i128),
                Bound::Unbounded => Bound::Unbounded,
            };
            let wide = (widen(range.start_bound()), widen(range.end_bound()));
            let (lo, hi) = bounds(&wide, <$t>::MIN as i128, <$t>::MAX as i128);
            let width = (hi - lo + 1) as u128;
            let offset = if width > u128::from(u64::MAX) {
                u128::from(self.next_u64())
            } else {
                u128::from(self.below_u64(width as u64))
            };
            (lo + offset as i128) as $t
        }
    )*};
}

/// One `u64` of state; the same seed always gives the same sequence.
#[derive(Clone, Debug)]
pub struct Rng(u64);

impl Rng {
    pub const fn new(seed: u64) -> Rng {
        Rng(seed)
    }

    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        mix(self.0)
    }

    /// A number below `n` (`n > 0`) by modulo: `next_u64() % n`. The bias is irrelevant for
    /// test inputs.
    pub fn below_u64(&mut self, n: u64) -> u64 {
        self.next_u64() % n
    }

    /// [`Rng::below_u64`] for indices.
    pub fn below(&mut self, n: usize) -> usize {
        self.below_u64(n as u64) as usize
    }

    /// A number below `n` (`n > 0`) by Lemire's multiply-shift: the high half of the 64x64
    /// product. No division; a different sequence from [`Rng::below`] for the same seed.
    pub fn below_by_multiply(&mut self, n: usize) -> usize {
        debug_assert!(n > 0, "below_by_multiply(0) has no answer");
        ((u128::from(self.next_u64()) * n as u128) >> 64) as usize
    }

    /// True with probability `1 / n`: `below(n) == 0`.
    pub fn one_in(&mut self, n: usize) -> bool {
        self.below(n) == 0
    }

    /// True with probability `percent / 100`: `below_u64(100) < percent`.
    pub fn chance(&mut self, percent: u64) -> bool {
        self.below_u64(100) < percent
    }

    /// An item drawn by [`Rng::below`] (`items` not empty).
    pub fn pick<T: Copy>(&mut self, items: &[T]) -> T {
        items[self.below(items.len())]
    }

    ranged!(u8: u8, u16: u16, u32: u32, u64: u64, usize: usize, i32: i32, i64: i64);

    /// A fair coin: the lowest bit of `next_u64`.
    pub fn bool(&mut self) -> bool {
        self.next_u64() & 1 == 1
    }

    /// A number in `[0, 1)`: the top 53 bits of `next_u64`.
    pub fn f64(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 / (1u64 << 53) as f64
    }

    /// [`Rng::pick`] by reference.
    pub fn pick_ref<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[self.below(items.len())]
    }
}

/// The SplitMix64 finaliser: a bijective mixer, also used to hash positions.
pub const fn mix(mut z: u64) -> u64 {
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The published SplitMix64 outputs for seed 0 (the reference C code of Vigna's
    /// `splitmix64.c`): the sequence everything here relies on.
    #[test]
    fn seed_zero_gives_the_reference_sequence() {
        let mut rng = Rng::new(0);
        let first: [u64; 3] = [rng.next_u64(), rng.next_u64(), rng.next_u64()];
        assert_eq!(
            first,
            [
                0xE220_A839_7B1D_CDAF,
                0x6E78_9E6A_A1B9_65F4,
                0x06C4_5D18_8009_454F
            ]
        );
    }

    #[test]
    fn same_seed_same_sequence_and_below_stays_below() {
        let mut a = Rng::new(7);
        let mut b = Rng::new(7);
        for n in 1..200 {
            let x = a.below_by_multiply(n);
            assert_eq!(x, b.below_by_multiply(n));
            assert!(x < n);
            let y = a.below(n);
            assert_eq!(y, b.below(n));
            assert!(y < n);
        }
        assert_ne!(Rng::new(1).next_u64(), Rng::new(2).next_u64());
    }

    #[test]
    fn below_is_the_modulo_and_below_by_multiply_the_high_half() {
        let (mut a, mut b) = (Rng::new(99), Rng::new(99));
        for n in [1_usize, 2, 3, 10, 1_000, usize::MAX] {
            let word = b.clone().next_u64();
            assert_eq!(a.below(n), (word % n as u64) as usize);
            b.next_u64();
            let word = b.clone().next_u64();
            assert_eq!(
                a.below_by_multiply(n),
                ((u128::from(word) * n as u128) >> 64) as usize
            );
            b.next_u64();
        }
    }
}
