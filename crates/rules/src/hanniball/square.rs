//! Squares, square sets and the precomputed geometry of the 9 × 15 grid (RULES 1.1).
//!
//! Only 123 of the grid's 135 squares exist (ranks 1 and 15 hold just `d e f`), so squares get a
//! compact index 0..123 and every set of squares fits one `u128`. All move, shot and reach tables are
//! computed at compile time from the full-grid geometry, which is what RULES 1.1 prescribes: a square
//! that does not exist is simply absent from every table.

use std::fmt;

/// Number of existing squares.
pub const SQUARES: usize = 123;
/// Files `a`–`i`.
pub const FILES: u8 = 9;
/// Ranks `1`–`15`.
pub const RANKS: u8 = 15;

/// A set of squares: bit `i` is the square with compact index `i`.
pub type SquareSet = u128;

/// An existing square of the board. The invariant (index < 123) is kept by every constructor.
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Square(u8);

/// Compact index of grid cell (file 0..9, rank 0..15), if that square exists.
const fn compact(file: i32, rank: i32) -> Option<u8> {
    if file < 0 || file >= FILES as i32 || rank < 0 || rank >= RANKS as i32 {
        return None;
    }
    if rank == 0 {
        if file >= 3 && file <= 5 {
            Some((file - 3) as u8)
        } else {
            None
        }
    } else if rank <= 13 {
        Some((3 + (rank - 1) * 9 + file) as u8)
    } else if file >= 3 && file <= 5 {
        Some((120 + file - 3) as u8)
    } else {
        None
    }
}

const fn coords_of(index: u8) -> (u8, u8) {
    let i = index as i32;
    if i < 3 {
        ((i + 3) as u8, 0)
    } else if i < 120 {
        (((i - 3) % 9) as u8, ((i - 3) / 9 + 1) as u8)
    } else {
        ((i - 120 + 3) as u8, 14)
    }
}

impl Square {
    /// The square at 0-based `file` (0 = `a`) and 0-based `rank` (0 = rank 1), if it exists.
    #[must_use]
    pub const fn new(file: u8, rank: u8) -> Option<Square> {
        match compact(file as i32, rank as i32) {
            Some(i) => Some(Square(i)),
            None => None,
        }
    }

    /// The square with this compact index (0..123).
    #[must_use]
    pub const fn from_index(index: usize) -> Option<Square> {
        if index < SQUARES {
            Some(Square(index as u8))
        } else {
            None
        }
    }

    /// Compact index 0..123.
    #[must_use]
    pub const fn index(self) -> usize {
        self.0 as usize
    }

    /// 0-based file (0 = `a`).
    #[must_use]
    pub const fn file(self) -> u8 {
        coords_of(self.0).0
    }

    /// 0-based rank (0 = rank 1).
    #[must_use]
    pub const fn rank(self) -> u8 {
        coords_of(self.0).1
    }

    /// This square as a one-element set.
    #[must_use]
    pub const fn bit(self) -> SquareSet {
        1u128 << self.0
    }

    /// The square `df` files and `dr` ranks away, if it exists.
    #[must_use]
    pub const fn offset(self, df: i32, dr: i32) -> Option<Square> {
        let (f, r) = coords_of(self.0);
        match compact(f as i32 + df, r as i32 + dr) {
            Some(i) => Some(Square(i)),
            None => None,
        }
    }

    /// Parses `e8`, `d15`: a file letter and a rank number without leading zeros.
    #[must_use]
    pub fn parse(text: &str) -> Option<Square> {
        let bytes = text.as_bytes();
        let (&file, digits) = bytes.split_first()?;
        if !(b'a'..=b'i').contains(&file) || digits.is_empty() || digits.len() > 2 {
            return None;
        }
        if digits[0] == b'0' || !digits.iter().all(u8::is_ascii_digit) {
            return None;
        }
        let rank = digits
            .iter()
            .fold(0u32, |acc, d| acc * 10 + u32::from(d - b'0'));
        if !(1..=u32::from(RANKS)).contains(&rank) {
            return None;
        }
        Square::new(file - b'a', (rank - 1) as u8)
    }

    /// All existing squares in index order.
    pub fn all() -> impl Iterator<Item = Square> {
        (0..SQUARES as u8).map(Square)
    }
}

impl fmt::Display for Square {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}{}", (b'a' + self.file()) as char, self.rank() + 1)
    }
}

impl fmt::Debug for Square {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}

/// Iterates the squares of a set, lowest index first.
#[derive(Clone, Copy)]
pub struct Squares(pub SquareSet);

impl Iterator for Squares {
    type Item = Square;

    #[inline]
    fn next(&mut self) -> Option<Square> {
        if self.0 == 0 {
            return None;
        }
        let index = self.0.trailing_zeros() as u8;
        self.0 &= self.0 - 1;
        Some(Square(index))
    }
}

/// Every existing square.
pub const ALL: SquareSet = (1u128 << SQUARES) - 1;

const KING_OFFSETS: [(i32, i32); 8] = [
    (-1, -1),
    (0, -1),
    (1, -1),
    (-1, 0),
    (1, 0),
    (-1, 1),
    (0, 1),
    (1, 1),
];
const ORTH_OFFSETS: [(i32, i32); 4] = [(0, -1), (-1, 0), (1, 0), (0, 1)];
const KNIGHT_OFFSETS: [(i32, i32); 8] = [
    (1, 2),
    (2, 1),
    (2, -1),
    (1, -2),
    (-1, -2),
    (-2, -1),
    (-2, 1),
    (-1, 2),
];

const fn set_of_offsets(offsets: &[(i32, i32)], reach: i32) -> [SquareSet; SQUARES] {
    let mut table = [0u128; SQUARES];
    let mut i = 0;
    while i < SQUARES {
        let (f, r) = coords_of(i as u8);
        let mut k = 0;
        while k < offsets.len() {
            let mut d = 1;
            while d <= reach {
                if let Some(t) = compact(f as i32 + offsets[k].0 * d, r as i32 + offsets[k].1 * d) {
                    table[i] |= 1u128 << t;
                }
                d += 1;
            }
            k += 1;
        }
        i += 1;
    }
    table
}

/// Squares adjacent in the 8 directions (elephant moves, horse shots).
pub static KING: [SquareSet; SQUARES] = set_of_offsets(&KING_OFFSETS, 1);
/// Orthogonally adjacent squares (clustering groups).
pub static ORTH: [SquareSet; SQUARES] = set_of_offsets(&ORTH_OFFSETS, 1);
/// Knight-offset squares, ignoring blocking (elephant shots).
pub static KNIGHT: [SquareSet; SQUARES] = set_of_offsets(&KNIGHT_OFFSETS, 1);
/// Squares 1–5 away in the 8 straight directions (keeper shots, ricochets).
pub static STRAIGHT5: [SquareSet; SQUARES] = set_of_offsets(&KING_OFFSETS, 5);

/// One knight leap: its target and, when both intermediate squares exist, the set of the two
/// (a leap is blocked only when both hold a blocking piece; `0` means it can never be blocked).
#[derive(Clone, Copy, Debug)]
pub struct Leap {
    pub to: Square,
    pub intermediates: SquareSet,
}

/// The knight leaps from each square, `LEAP_COUNT[i]` of them valid.
pub static LEAPS: [[Leap; 8]; SQUARES] = leaps().0;
/// How many entries of `LEAPS[i]` are valid.
pub static LEAP_COUNT: [u8; SQUARES] = leaps().1;

const fn leaps() -> ([[Leap; 8]; SQUARES], [u8; SQUARES]) {
    let empty = Leap {
        to: Square(0),
        intermediates: 0,
    };
    let mut table = [[empty; 8]; SQUARES];
    let mut count = [0u8; SQUARES];
    let mut i = 0;
    while i < SQUARES {
        let (f, r) = coords_of(i as u8);
        let (f, r) = (f as i32, r as i32);
        let mut k = 0;
        while k < 8 {
            let (df, dr) = KNIGHT_OFFSETS[k];
            if let Some(t) = compact(f + df, r + dr) {
                // RULES 1.6: the intermediate squares are the two adjacent to both origin and target.
                let (a, b) = if df.abs() == 2 {
                    (
                        compact(f + df.signum(), r),
                        compact(f + df.signum(), r + dr),
                    )
                } else {
                    (
                        compact(f, r + dr.signum()),
                        compact(f + df, r + dr.signum()),
                    )
                };
                let intermediates = match (a, b) {
                    (Some(a), Some(b)) => (1u128 << a) | (1u128 << b),
                    _ => 0,
                };
                table[i][count[i] as usize] = Leap {
                    to: Square(t),
                    intermediates,
                };
                count[i] += 1;
            }
            k += 1;
        }
        i += 1;
    }
    (table, count)
}

const fn rect(files: (i32, i32), ranks: (i32, i32)) -> SquareSet {
    let mut set = 0u128;
    let mut f = files.0;
    while f <= files.1 {
        let mut r = ranks.0;
        while r <= ranks.1 {
            if let Some(i) = compact(f, r) {
                set |= 1u128 << i;
            }
            r += 1;
        }
        f += 1;
    }
    set
}

/// Each side's own goal, by side index: White's is `d1 e1 f1`, Black's `d15 e15 f15`.
pub const GOAL: [SquareSet; 2] = [rect((3, 5), (0, 0)), rect((3, 5), (14, 14))];
/// Both goals.
pub const GOALS: SquareSet = GOAL[0] | GOAL[1];
/// Each side's keeper zone, by side index: own goal area plus own goal (13 squares).
pub const ZONE: [SquareSet; 2] = [
    rect((2, 6), (1, 2)) | GOAL[0],
    rect((2, 6), (12, 13)) | GOAL[1],
];

/// The knight targets from `from` that are not blocked by `blockers` (RULES 1.6 blocking).
#[inline]
#[must_use]
pub fn knight_reach(from: Square, blockers: SquareSet) -> SquareSet {
    let i = from.index();
    let mut reach = KNIGHT[i];
    for leap in &LEAPS[i][..LEAP_COUNT[i] as usize] {
        if leap.intermediates != 0 && blockers & leap.intermediates == leap.intermediates {
            reach &= !leap.to.bit();
        }
    }
    reach
}

/// The leap `from`→`to`, if `to` is a knight offset of `from`.
#[must_use]
pub fn leap(from: Square, to: Square) -> Option<Leap> {
    let i = from.index();
    LEAPS[i][..LEAP_COUNT[i] as usize]
        .iter()
        .copied()
        .find(|leap| leap.to == to)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sq(text: &str) -> Square {
        Square::parse(text).expect("test square exists")
    }

    // RULES 1.1 board and coordinates
    #[test]
    fn squares_exist_as_rules_say() {
        assert_eq!(Square::all().count(), 123);
        for (text, exists) in [
            ("a1", false),
            ("c1", false),
            ("d1", true),
            ("f1", true),
            ("g1", false),
            ("a2", true),
            ("i14", true),
            ("c15", false),
            ("e15", true),
            ("e16", false),
            ("j5", false),
            ("e0", false),
            ("e01", false),
        ] {
            assert_eq!(Square::parse(text).is_some(), exists, "{text}");
        }
        for square in Square::all() {
            assert_eq!(Square::parse(&square.to_string()), Some(square));
        }
    }

    // RULES 1.1 goal areas and keeper zones
    #[test]
    fn zones_and_goals() {
        assert_eq!(ZONE[0].count_ones(), 13);
        assert_eq!(ZONE[1].count_ones(), 13);
        for text in ["c2", "g3", "d1", "e1", "f1"] {
            assert_ne!(ZONE[0] & sq(text).bit(), 0, "{text}");
        }
        for text in ["b2", "h3", "c4", "e13"] {
            assert_eq!(ZONE[0] & sq(text).bit(), 0, "{text}");
        }
        assert_ne!(ZONE[1] & sq("c13").bit(), 0);
        assert_ne!(ZONE[1] & sq("g14").bit(), 0);
        assert_eq!(GOALS.count_ones(), 6);
    }

    // RULES 1.6 intermediate squares of a knight leap
    #[test]
    fn leap_intermediates() {
        // b2-d1: c2 and c1; c1 does not exist, so the leap is never blocked.
        assert_eq!(leap(sq("b2"), sq("d1")).map(|l| l.intermediates), Some(0));
        let l = leap(sq("d4"), sq("e6")).expect("knight offset");
        assert_eq!(l.intermediates, sq("d5").bit() | sq("e5").bit());
        let l = leap(sq("d4"), sq("f5")).expect("knight offset");
        assert_eq!(l.intermediates, sq("e4").bit() | sq("e5").bit());
        assert!(leap(sq("d4"), sq("d6")).is_none());
        let blockers = sq("d5").bit() | sq("e5").bit();
        assert_eq!(knight_reach(sq("d4"), blockers) & sq("e6").bit(), 0);
        assert_ne!(knight_reach(sq("d4"), sq("d5").bit()) & sq("e6").bit(), 0);
    }
}
