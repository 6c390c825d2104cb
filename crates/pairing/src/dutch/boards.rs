//! The published pairing: each board's colours (C.04.4.1) and the board order (C.04.2).

use crate::tournament::{Colour, StartRank};

use super::round::Pairing;
use super::weights::Ctx;

impl Ctx<'_> {
    /// Whether `a` is below `b` in the pairing order (score, then effective pairing number).
    fn lower(&self, a: usize, b: usize) -> bool {
        let (x, y) = (&self.p[a], &self.p[b]);
        (x.score, y.rank) < (y.score, x.rank)
    }

    /// The colour of `a` against `b`.
    fn colour(&self, a: usize, b: usize) -> Colour {
        let (x, y) = (&self.p[a], &self.p[b]);
        let initial = self.t.initial_colour;
        if let Some(c) = self.neutral(a, b) {
            return c;
        }
        match x.pref {
            None => {
                if self.lower(a, b) {
                    if y.rank & 1 == 1 {
                        initial
                    } else {
                        initial.opposite()
                    }
                } else if x.rank & 1 == 1 {
                    initial.opposite()
                } else {
                    initial
                }
            }
            Some(p) => {
                if self.lower(a, b) {
                    y.pref.map_or(p, Colour::opposite)
                } else {
                    p
                }
            }
        }
    }

    fn neutral(&self, a: usize, b: usize) -> Option<Colour> {
        let (x, y) = (&self.p[a], &self.p[b]);
        let compatible = x.pref.is_none() || y.pref.is_none() || x.pref != y.pref;
        if compatible {
            return x.pref.or(y.pref.map(Colour::opposite));
        }
        if x.absolute() && (x.imbalance > y.imbalance || !y.absolute()) {
            return x.pref;
        }
        if y.absolute() && (y.imbalance > x.imbalance || !x.absolute()) {
            return y.pref.map(Colour::opposite);
        }
        if x.strong && !y.strong {
            return x.pref;
        }
        if y.strong && !x.strong {
            return y.pref.map(Colour::opposite);
        }
        // The most recent round in which their colours differed.
        let (hx, hy) = (&x.history, &y.history);
        let (mut i, mut j) = (hx.len(), hy.len());
        while i > 0 && j > 0 && hx[i - 1] == hy[j - 1] {
            i -= 1;
            j -= 1;
        }
        if i > 0 && j > 0 { hy[j - 1] } else { None }
    }

    /// The pairing in board order (C.04.2: higher scores first, by the higher player's score,
    /// then the lower player's, then the higher player's pairing number; the bye last).
    pub(super) fn publish(&self, pairs: &[(usize, usize)]) -> Pairing {
        let mut boards: Vec<(usize, usize)> = Vec::new();
        let mut bye = None;
        for &(a, b) in pairs {
            if b == usize::MAX {
                bye = Some(a);
                continue;
            }
            let (first, second) = if self.p[a].idx < self.p[b].idx {
                (a, b)
            } else {
                (b, a)
            };
            if self.colour(first, second) == Colour::White {
                boards.push((first, second));
            } else {
                boards.push((second, first));
            }
        }
        let plain_lower = |a: usize, b: usize| {
            (self.p[a].plain_score, self.p[b].rank) < (self.p[b].plain_score, self.p[a].rank)
        };
        let key = |&(w, b): &(usize, usize)| {
            let (hi, lo) = if plain_lower(w, b) { (b, w) } else { (w, b) };
            (
                std::cmp::Reverse(self.p[hi].plain_score),
                std::cmp::Reverse(self.p[lo].plain_score),
                self.p[hi].rank,
            )
        };
        boards.sort_by_key(key);
        let id = |i: usize| StartRank(self.p[i].idx as u32 + 1);
        Pairing {
            boards: boards.into_iter().map(|(w, b)| (id(w), id(b))).collect(),
            bye: bye.map(id),
        }
    }
}
