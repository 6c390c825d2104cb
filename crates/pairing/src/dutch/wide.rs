//! Fixed-width two's complement integers of `N` 64-bit words: the edge weights and dual values
//! of the weighted matching. A Dutch edge weight packs every pairing criterion into its own bit
//! field (most significant criterion highest), so it needs more than 128 bits on large fields;
//! the width is chosen per round: from 5 words up, the even number of words that holds the
//! round's fields (see `dutch::width_for`; a scan's cost grows with the width: 10,000 players'
//! later rounds ran 10–20 % faster at 18–20 words than padded to 24, and about 35 % faster at
//! 8 words, once the score fields had slots instead of a range per scoregroup).

use std::cmp::Ordering;

#[derive(Clone, Copy, Debug)]
pub(crate) struct Wide<const N: usize>(pub [u64; N]);

impl<const N: usize> PartialEq for Wide<N> {
    /// Word by word, without a call to `bcmp` (weights are compared in hot loops).
    #[inline]
    fn eq(&self, o: &Self) -> bool {
        self.0.iter().zip(&o.0).fold(0, |d, (a, b)| d | (a ^ b)) == 0
    }
}

impl<const N: usize> Eq for Wide<N> {}

impl<const N: usize> std::hash::Hash for Wide<N> {
    /// One word for the hasher: the words times distinct odd constants, summed (independent
    /// multiplications, where hashing word by word chains `N` of them).
    #[inline]
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        let mut k = 0x9e37_79b9_7f4a_7c15u64;
        let mut h = 0u64;
        for &w in &self.0 {
            h = h.wrapping_add(w.rotate_left(17).wrapping_mul(k));
            k = k.wrapping_add(0x6a09_e667_f3bc_c908);
        }
        state.write_u64(h);
    }
}

impl<const N: usize> Default for Wide<N> {
    fn default() -> Self {
        Wide([0; N])
    }
}

impl<const N: usize> Wide<N> {
    pub const ZERO: Wide<N> = Wide([0; N]);

    #[inline]
    pub fn from_u64(v: u64) -> Self {
        let mut w = [0; N];
        w[0] = v;
        Wide(w)
    }

    #[inline]
    pub fn is_zero(&self) -> bool {
        self.0.iter().all(|&w| w == 0)
    }

    #[inline]
    pub fn is_negative(&self) -> bool {
        self.0[N - 1] >> 63 == 1
    }

    #[cfg(target_arch = "x86_64")]
    #[inline]
    pub fn add(&self, o: &Self) -> Self {
        let mut r = [0; N];
        let mut carry = 0u8;
        for (i, slot) in r.iter_mut().enumerate() {
            carry = std::arch::x86_64::_addcarry_u64(carry, self.0[i], o.0[i], slot);
        }
        Wide(r)
    }

    #[cfg(target_arch = "x86_64")]
    #[inline]
    pub fn sub(&self, o: &Self) -> Self {
        let mut r = [0; N];
        let mut borrow = 0u8;
        for (i, slot) in r.iter_mut().enumerate() {
            borrow = std::arch::x86_64::_subborrow_u64(borrow, self.0[i], o.0[i], slot);
        }
        Wide(r)
    }

    #[cfg(not(target_arch = "x86_64"))]
    #[inline]
    pub fn add(&self, o: &Self) -> Self {
        let mut r = [0; N];
        let mut carry = false;
        for (i, slot) in r.iter_mut().enumerate() {
            let (s1, c1) = self.0[i].overflowing_add(o.0[i]);
            let (s2, c2) = s1.overflowing_add(u64::from(carry));
            *slot = s2;
            carry = c1 || c2;
        }
        Wide(r)
    }

    #[cfg(not(target_arch = "x86_64"))]
    #[inline]
    pub fn sub(&self, o: &Self) -> Self {
        let mut r = [0; N];
        let mut borrow = false;
        for (i, slot) in r.iter_mut().enumerate() {
            let (s1, b1) = self.0[i].overflowing_sub(o.0[i]);
            let (s2, b2) = s1.overflowing_sub(u64::from(borrow));
            *slot = s2;
            borrow = b1 || b2;
        }
        Wide(r)
    }

    /// `self + a - b` in one pass (the slack of an edge: two duals less the weight).
    #[cfg(target_arch = "x86_64")]
    #[inline]
    pub fn add_sub(&self, a: &Self, b: &Self) -> Self {
        use std::arch::x86_64::{_addcarry_u64, _subborrow_u64};
        let mut r = [0; N];
        let mut carry = 0u8;
        let mut borrow = 0u8;
        for (i, slot) in r.iter_mut().enumerate() {
            let mut sum = 0u64;
            carry = _addcarry_u64(carry, self.0[i], a.0[i], &mut sum);
            borrow = _subborrow_u64(borrow, sum, b.0[i], slot);
        }
        Wide(r)
    }

    /// `self + a - b` in one pass (the slack of an edge: two duals less the weight).
    #[cfg(not(target_arch = "x86_64"))]
    #[inline]
    pub fn add_sub(&self, a: &Self, b: &Self) -> Self {
        let mut r = [0; N];
        let mut carry = 0u64;
        let mut borrow = 0u64;
        for (i, slot) in r.iter_mut().enumerate() {
            let (s1, c1) = self.0[i].overflowing_add(a.0[i]);
            let (s2, c2) = s1.overflowing_add(carry);
            carry = u64::from(c1 || c2);
            let (d1, b1) = s2.overflowing_sub(b.0[i]);
            let (d2, b2) = d1.overflowing_sub(borrow);
            borrow = u64::from(b1 || b2);
            *slot = d2;
        }
        Wide(r)
    }

    /// Adds a small unsigned value.
    #[inline]
    pub fn add_u64(&self, v: u64) -> Self {
        self.add(&Wide::from_u64(v))
    }

    /// Subtracts a small unsigned value.
    #[inline]
    pub fn sub_u64(&self, v: u64) -> Self {
        self.sub(&Wide::from_u64(v))
    }

    /// Shift left by `k` bits (bits shifted out are lost).
    #[inline]
    pub fn shl(&self, k: u32) -> Self {
        let words = (k / 64) as usize;
        let bits = k % 64;
        let mut r = [0; N];
        for i in (words..N).rev() {
            let lo = self.0[i - words];
            let mut v = lo << bits;
            if bits > 0 && i > words {
                v |= self.0[i - words - 1] >> (64 - bits);
            }
            r[i] = v;
        }
        Wide(r)
    }

    /// Arithmetic shift right by one bit (halving, rounding towards minus infinity).
    #[inline]
    pub fn half(&self) -> Self {
        let mut r = [0; N];
        for (i, slot) in r.iter_mut().enumerate() {
            let hi = if i + 1 < N {
                self.0[i + 1] << 63
            } else {
                self.0[N - 1] & (1 << 63)
            };
            *slot = (self.0[i] >> 1) | hi;
        }
        Wide(r)
    }

    /// Adds `v << k` (bits shifted past the top are lost, as with `shl`).
    #[inline]
    pub fn add_at(&mut self, v: u64, k: u32) {
        let mut i = (k / 64) as usize;
        let bit = k % 64;
        let mut add = [v << bit, if bit == 0 { 0 } else { v >> (64 - bit) }];
        let mut carry = 0u64;
        while i < N && (add != [0, 0] || carry != 0) {
            let (x, c1) = self.0[i].overflowing_add(add[0]);
            let (x, c2) = x.overflowing_add(carry);
            self.0[i] = x;
            carry = u64::from(c1) + u64::from(c2);
            add = [add[1], 0];
            i += 1;
        }
    }

    /// Sets bit `k`.
    #[inline]
    pub fn set_bit(&mut self, k: u32) {
        self.0[(k / 64) as usize] |= 1 << (k % 64);
    }

    #[inline]
    pub fn is_odd(&self) -> bool {
        self.0[0] & 1 == 1
    }
}

impl<const N: usize> Ord for Wide<N> {
    fn cmp(&self, o: &Self) -> Ordering {
        match (self.is_negative(), o.is_negative()) {
            (true, false) => return Ordering::Less,
            (false, true) => return Ordering::Greater,
            _ => {}
        }
        for i in (0..N).rev() {
            match self.0[i].cmp(&o.0[i]) {
                Ordering::Equal => continue,
                other => return other,
            }
        }
        Ordering::Equal
    }
}

impl<const N: usize> PartialOrd for Wide<N> {
    fn partial_cmp(&self, o: &Self) -> Option<Ordering> {
        Some(self.cmp(o))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn w(v: i128) -> Wide<3> {
        let mut r = [0u64; 3];
        r[0] = v as u64;
        r[1] = (v >> 64) as u64;
        r[2] = if v < 0 { u64::MAX } else { 0 };
        Wide(r)
    }

    #[test]
    fn arithmetic_matches_i128() {
        let vals = [
            0i128,
            1,
            -1,
            5,
            -7,
            1 << 70,
            -(1 << 90),
            123_456_789_012_345_678,
            i64::MAX as i128 * 3,
        ];
        for &a in &vals {
            assert_eq!(w(a).half(), w(a.div_euclid(2)), "half {a}");
            if a.abs() < 1 << 60 {
                assert_eq!(w(a).shl(3), w(a << 3), "shl {a}");
                assert_eq!(w(a).shl(64), w(a << 64), "shl64 {a}");
            }
            for &b in &vals {
                assert_eq!(w(a).add(&w(b)), w(a + b));
                assert_eq!(w(a).sub(&w(b)), w(a - b));
                if (0..1 << 60).contains(&b) {
                    for k in [0, 5, 63, 64, 100] {
                        let mut x = w(a);
                        x.add_at(b as u64, k);
                        assert_eq!(x, w(a).add(&w(b).shl(k)), "{a} + {b} << {k}");
                    }
                }
                for &c in &vals {
                    assert_eq!(w(a).add_sub(&w(b), &w(c)), w(a + b - c), "{a} + {b} - {c}");
                }
                assert_eq!(w(a).cmp(&w(b)), a.cmp(&b), "{a} {b}");
            }
        }
    }
}
