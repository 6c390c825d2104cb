//! The field of RULES.md 2.1–2.2: lattice points, the eight directions, and fixed lookup tables.

use std::fmt;
use std::str::FromStr;

use crate::game::Side;

/// Lattice columns: `x` runs 0–8.
const COLUMNS: u8 = 9;
/// Lattice rows: `y` runs 0–12.
const ROWS: u8 = 13;
/// Size of every per-point table. Corners get an index too (they simply never appear as a
/// [`Point`]), because a dense `y * 9 + x` index is cheaper than a compacted one.
pub(crate) const POINTS: usize = COLUMNS as usize * ROWS as usize;

/// Marks "no point" in the `u8` tables below.
const NONE: u8 = u8::MAX;

/// A lattice point of the field (RULES.md 2.1).
///
/// Invariant: the point exists, i.e. `x` is 0–8, `y` is 0–12 and it is not one of the four
/// corners. The only ways to get a `Point` are [`Point::new`] and walking to an existing
/// neighbour, so code holding a `Point` never re-checks it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Point(u8);

impl Point {
    /// Where the ball starts: `(4,6)`.
    pub const KICK_OFF: Point = Point(6 * COLUMNS + 4);

    /// The point `(x, y)`, or `None` if it is outside the lattice or a corner.
    #[must_use]
    pub const fn new(x: u8, y: u8) -> Option<Point> {
        if exists(x as i16, y as i16) {
            Some(Point(y * COLUMNS + x))
        } else {
            None
        }
    }

    #[must_use]
    pub const fn x(self) -> u8 {
        self.0 % COLUMNS
    }

    #[must_use]
    pub const fn y(self) -> u8 {
        self.0 / COLUMNS
    }

    /// Whether the point lies on the border (`x = 0`, `x = 8`, `y = 0` or `y = 12`).
    #[must_use]
    pub const fn is_border(self) -> bool {
        is_border(self.x(), self.y())
    }

    /// The side whose own goal this point belongs to, if it is a goal point: `(3..5, 0)` is
    /// White's, `(3..5, 12)` is Black's.
    #[must_use]
    pub const fn goal_of(self) -> Option<Side> {
        let (x, y) = (self.x(), self.y());
        if x < 3 || x > 5 {
            None
        } else if y == 0 {
            Some(Side::White)
        } else if y == ROWS - 1 {
            Some(Side::Black)
        } else {
            None
        }
    }

    /// The neighbouring point in `direction`, if it exists (whether or not a segment to it may
    /// be drawn).
    #[must_use]
    pub fn neighbour(self, direction: Direction) -> Option<Point> {
        match NEIGHBOUR[self.index()][direction.index()] {
            NONE => None,
            index => Some(Point(index)),
        }
    }

    /// Every point of the field, row by row from `y = 0`.
    pub fn all() -> impl Iterator<Item = Point> {
        (0..POINTS as u8)
            .map(Point)
            .filter(|p| exists(p.x() as i16, p.y() as i16))
    }

    /// Dense table index `y * 9 + x`.
    pub(crate) const fn index(self) -> usize {
        self.0 as usize
    }

    pub(crate) const fn from_index(index: u8) -> Point {
        Point(index)
    }
}

impl fmt::Display for Point {
    /// `(x,y)`, the form the rules use.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "({},{})", self.x(), self.y())
    }
}

/// One of the eight step directions (RULES.md 2.5). `N` points towards `y = 12`, `E` towards
/// `x = 8`. The discriminant is the bit used in [`DirectionSet`] and in the segment tables.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[repr(u8)]
pub enum Direction {
    N,
    NE,
    E,
    SE,
    S,
    SW,
    W,
    NW,
}

impl Direction {
    /// All directions, clockwise from `N`.
    pub const ALL: [Direction; 8] = [
        Direction::N,
        Direction::NE,
        Direction::E,
        Direction::SE,
        Direction::S,
        Direction::SW,
        Direction::W,
        Direction::NW,
    ];

    /// All directions in plain byte order of their names, the order the seam lists steps in.
    pub const BY_NAME: [Direction; 8] = [
        Direction::E,
        Direction::N,
        Direction::NE,
        Direction::NW,
        Direction::S,
        Direction::SE,
        Direction::SW,
        Direction::W,
    ];

    /// Canonical notation: `N NE E SE S SW W NW`.
    #[must_use]
    pub const fn name(self) -> &'static str {
        match self {
            Direction::N => "N",
            Direction::NE => "NE",
            Direction::E => "E",
            Direction::SE => "SE",
            Direction::S => "S",
            Direction::SW => "SW",
            Direction::W => "W",
            Direction::NW => "NW",
        }
    }

    /// The change in `(x, y)` one step in this direction makes.
    #[must_use]
    pub const fn delta(self) -> (i8, i8) {
        match self {
            Direction::N => (0, 1),
            Direction::NE => (1, 1),
            Direction::E => (1, 0),
            Direction::SE => (1, -1),
            Direction::S => (0, -1),
            Direction::SW => (-1, -1),
            Direction::W => (-1, 0),
            Direction::NW => (-1, 1),
        }
    }

    /// The direction pointing back.
    #[must_use]
    pub const fn opposite(self) -> Direction {
        Direction::ALL[(self as usize + 4) % 8]
    }

    #[must_use]
    pub const fn is_diagonal(self) -> bool {
        self as u8 % 2 == 1
    }

    pub(crate) const fn index(self) -> usize {
        self as usize
    }

    pub(crate) const fn bit(self) -> u8 {
        1 << self as u8
    }
}

impl fmt::Display for Direction {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A text that is not one of the eight direction names.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("unknown direction {0:?} (expected one of: N NE E SE S SW W NW)")]
pub struct UnknownDirection(pub String);

impl FromStr for Direction {
    type Err = UnknownDirection;

    /// Exactly the canonical names; no other case or spelling, so that text round-trips.
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Ok(match s {
            "N" => Direction::N,
            "NE" => Direction::NE,
            "E" => Direction::E,
            "SE" => Direction::SE,
            "S" => Direction::S,
            "SW" => Direction::SW,
            "W" => Direction::W,
            "NW" => Direction::NW,
            _ => return Err(UnknownDirection(s.to_owned())),
        })
    }
}

/// A set of directions in one byte (bit `d` for [`Direction`] `d`); iterates clockwise from `N`.
#[derive(Clone, Copy, Default, PartialEq, Eq, Hash)]
pub struct DirectionSet(u8);

impl DirectionSet {
    pub const EMPTY: DirectionSet = DirectionSet(0);

    pub(crate) const fn from_bits(bits: u8) -> DirectionSet {
        DirectionSet(bits)
    }

    #[must_use]
    #[inline]
    pub const fn contains(self, direction: Direction) -> bool {
        self.0 & direction.bit() != 0
    }

    #[must_use]
    #[inline]
    pub const fn len(self) -> usize {
        self.0.count_ones() as usize
    }

    #[must_use]
    #[inline]
    pub const fn is_empty(self) -> bool {
        self.0 == 0
    }

    /// The `n`-th member in clockwise order from `N` (for picking a random step cheaply).
    #[must_use]
    #[inline]
    pub fn nth(self, n: usize) -> Option<Direction> {
        // A table lookup: scanning bits costs a mispredicted branch per member, and random
        // playouts call this once per step.
        let index = *NTH.get(n)?.get(self.0 as usize)?;
        Direction::ALL.get(index as usize).copied()
    }

    pub fn iter(self) -> DirectionSetIter {
        DirectionSetIter(self.0)
    }

    /// The members as a vector, clockwise from `N`.
    #[must_use]
    pub fn to_vec(self) -> Vec<Direction> {
        self.iter().collect()
    }
}

impl fmt::Debug for DirectionSet {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_set().entries(self.iter()).finish()
    }
}

impl IntoIterator for DirectionSet {
    type Item = Direction;
    type IntoIter = DirectionSetIter;

    fn into_iter(self) -> DirectionSetIter {
        self.iter()
    }
}

impl FromIterator<Direction> for DirectionSet {
    fn from_iter<I: IntoIterator<Item = Direction>>(iter: I) -> Self {
        DirectionSet(iter.into_iter().fold(0, |bits, d| bits | d.bit()))
    }
}

/// `NTH[n][bits]`: the index of the `n`-th set bit of `bits`, or 8 when there are not that many.
static NTH: [[u8; 256]; 8] = {
    let mut table = [[8u8; 256]; 8];
    let mut bits = 0;
    while bits < 256 {
        let mut n = 0;
        let mut d = 0;
        while d < 8 {
            if bits & (1 << d) != 0 {
                table[n][bits] = d as u8;
                n += 1;
            }
            d += 1;
        }
        bits += 1;
    }
    table
};

/// Iterator over a [`DirectionSet`], clockwise from `N`.
#[derive(Clone, Debug)]
pub struct DirectionSetIter(u8);

impl Iterator for DirectionSetIter {
    type Item = Direction;

    fn next(&mut self) -> Option<Direction> {
        if self.0 == 0 {
            return None;
        }
        let index = self.0.trailing_zeros() as usize;
        self.0 &= self.0 - 1;
        Some(Direction::ALL[index])
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        let n = self.0.count_ones() as usize;
        (n, Some(n))
    }
}

impl ExactSizeIterator for DirectionSetIter {}

// ---- Fixed tables, computed at compile time ----

const fn exists(x: i16, y: i16) -> bool {
    let max_x = COLUMNS as i16 - 1;
    let max_y = ROWS as i16 - 1;
    x >= 0
        && x <= max_x
        && y >= 0
        && y <= max_y
        && !((x == 0 || x == max_x) && (y == 0 || y == max_y))
}

const fn is_border(x: u8, y: u8) -> bool {
    x == 0 || x == COLUMNS - 1 || y == 0 || y == ROWS - 1
}

/// Index of the point `(x, y)`, or [`NONE`] if it does not exist.
const fn index_of(x: i16, y: i16) -> u8 {
    if exists(x, y) {
        (y * COLUMNS as i16 + x) as u8
    } else {
        NONE
    }
}

/// `NEIGHBOUR[p][d]`: the index of the point one step from `p` in direction `d`, or [`NONE`].
static NEIGHBOUR: [[u8; 8]; POINTS] = {
    let mut table = [[NONE; 8]; POINTS];
    let mut p = 0;
    while p < POINTS {
        let (x, y) = ((p % COLUMNS as usize) as i16, (p / COLUMNS as usize) as i16);
        if exists(x, y) {
            let mut d = 0;
            while d < 8 {
                let (dx, dy) = Direction::ALL[d].delta();
                table[p][d] = index_of(x + dx as i16, y + dy as i16);
                d += 1;
            }
        }
        p += 1;
    }
    table
};

/// Per point and direction, what a step needs to look up, packed so that the hot path reads one
/// cache line: the target point, and for diagonals the point and direction bit of the crossing
/// diagonal of the same cell.
#[derive(Clone, Copy)]
pub(crate) struct StepEntry {
    /// Target point index, or [`NONE`].
    pub(crate) to: u8,
    /// One end of the other diagonal of the cell. Where there is no such diagonal (orthogonal
    /// steps, cells at a corner) this is the step's own origin with `cross_bit` 0, so the test
    /// `drawn[cross_from] & cross_bit` is always false without a branch.
    pub(crate) cross_from: u8,
    pub(crate) cross_bit: u8,
}

pub(crate) static STEPS: [[StepEntry; 8]; POINTS] = {
    let empty = StepEntry {
        to: NONE,
        cross_from: 0,
        cross_bit: 0,
    };
    let mut table = [[empty; 8]; POINTS];
    let mut p = 0;
    while p < POINTS {
        let (x, y) = ((p % COLUMNS as usize) as i16, (p / COLUMNS as usize) as i16);
        let mut d = 0;
        while d < 8 {
            let direction = Direction::ALL[d];
            let (dx, dy) = direction.delta();
            let (dx, dy) = (dx as i16, dy as i16);
            let mut entry = StepEntry {
                to: NEIGHBOUR[p][d],
                cross_from: p as u8,
                cross_bit: 0,
            };
            // The other diagonal of the cell spanned by p and p + (dx, dy) joins
            // (x + dx, y) and (x, y + dy); from the first end it points (-dx, dy).
            if direction.is_diagonal() && exists(x + dx, y) && exists(x, y + dy) {
                entry.cross_from = index_of(x + dx, y);
                entry.cross_bit = direction_of(-dx, dy).bit();
            }
            table[p][d] = entry;
            d += 1;
        }
        p += 1;
    }
    table
};

/// `OPEN[p]`: directions in which a segment from `p` may ever be drawn (RULES.md 2.2): the
/// neighbour exists, and an orthogonal segment does not join two border points.
pub(crate) static OPEN: [u8; POINTS] = {
    let mut table = [0u8; POINTS];
    let mut p = 0;
    while p < POINTS {
        let (x, y) = ((p % COLUMNS as usize) as u8, (p / COLUMNS as usize) as u8);
        let mut d = 0;
        while d < 8 {
            let q = NEIGHBOUR[p][d];
            if q != NONE {
                let (qx, qy) = (q % COLUMNS, q / COLUMNS);
                let along_border = is_border(x, y) && is_border(qx, qy);
                if Direction::ALL[d].is_diagonal() || !along_border {
                    table[p] |= 1 << d;
                }
            }
            d += 1;
        }
        p += 1;
    }
    table
};

const fn direction_of(dx: i16, dy: i16) -> Direction {
    match (dx, dy) {
        (0, 1) => Direction::N,
        (1, 1) => Direction::NE,
        (1, 0) => Direction::E,
        (1, -1) => Direction::SE,
        (0, -1) => Direction::S,
        (-1, -1) => Direction::SW,
        (-1, 0) => Direction::W,
        _ => Direction::NW,
    }
}

/// `BORDER[p]`: whether `p` is a border point. Goal points are border points, so a step only
/// needs the goal test when this is set.
pub(crate) static BORDER: [bool; POINTS] = {
    let mut table = [false; POINTS];
    let mut p = 0;
    while p < POINTS {
        table[p] = is_border((p % COLUMNS as usize) as u8, (p / COLUMNS as usize) as u8);
        p += 1;
    }
    table
};

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn opposite_reverses_delta() {
        for d in Direction::ALL {
            let (dx, dy) = d.delta();
            assert_eq!(d.opposite().delta(), (-dx, -dy));
            assert_eq!(direction_of(dx as i16, dy as i16), d);
        }
    }

    #[test]
    fn by_name_is_sorted() {
        let names: Vec<&str> = Direction::BY_NAME.iter().map(|d| d.name()).collect();
        let mut sorted = names.clone();
        sorted.sort_unstable();
        assert_eq!(names, sorted);
        assert_eq!(names.len(), 8);
    }
}
