//! The round's weights: the layout of a pair's weight in bit fields, each criterion's field for
//! a pair, the flat weights of pairs outside the bracket, and the absolute criteria.

use crate::tournament::{Colour, Tournament};

use super::blossom::Distinct;
use super::entrants::{Entrant, Float};
use super::wide::Wide;

fn bits(v: usize) -> u32 {
    usize::BITS - v.leading_zeros()
}

/// A bracket held more distinct scores than the weights have slots for (see `Ctx::slots`).
pub(super) struct Widen;

/// What `brackets::run` gave at one layout: the pairs (as sorted indices; `None`: no valid
/// pairing), or `Widen`.
pub(super) type Run = Result<Option<Vec<(usize, usize)>>, Widen>;

/// The weights' width in words for a layout of `bits` bits: the round's own from 5 words up to
/// 32 (a scan's cost grows with it), so that only these widths are instances of the matcher.
fn width_for(bits: u32) -> usize {
    let words = (bits + 80).div_ceil(64) as usize;
    match words {
        0..=2 => 2,
        3 | 4 => words,
        5..=32 => words.next_multiple_of(2),
        33..=64 => 64,
        _ => 128,
    }
}

impl Ctx<'_> {
    /// The width of this layout's weights (the first solve's bye potentials included).
    pub(super) fn width(&self) -> usize {
        width_for((self.offsets.top + 2).max(self.groups_shift + self.size_bits + 3))
    }
}

/// A bracket's base weights (see `brackets`), symmetric, by position in the bracket: a triangle
/// of indices into the distinct weights (row `a` holds the pairs `a`–`b` for `b <= a`), so that
/// the larger player's row writes in order and a pair takes 4 bytes once (a 10,000-player
/// bracket: 200 MB, where a triangle of optional wide integers took gigabytes).
pub(super) struct Base<const N: usize> {
    ids: Vec<u32>,
    /// The distinct weights; index 0 stands for no edge.
    pub(super) values: Distinct<N>,
}

impl<const N: usize> Base<N> {
    pub(super) fn new(len: usize) -> Self {
        Base {
            ids: vec![0; len * (len + 1) / 2],
            values: Distinct::new(),
        }
    }

    pub(super) fn get(&self, a: usize, b: usize) -> Option<Wide<N>> {
        self.value(self.id(a, b))
    }

    /// The index of the weight of `a`–`b` (0: no edge), a name for it that stays valid for
    /// the bracket (a `put` gives a weight an index once).
    pub(super) fn id(&self, a: usize, b: usize) -> u32 {
        self.ids[Self::at(a, b)]
    }

    /// Where the pair `a`–`b` is in `ids`.
    #[inline]
    fn at(a: usize, b: usize) -> usize {
        let (hi, lo) = if a >= b { (a, b) } else { (b, a) };
        hi * (hi + 1) / 2 + lo
    }

    pub(super) fn value(&self, id: u32) -> Option<Wide<N>> {
        (id != 0).then(|| *self.values.get(id))
    }

    /// Sets the weight of `a`–`b`; returns its index.
    pub(super) fn put(&mut self, a: usize, b: usize, w: Option<Wide<N>>) -> u32 {
        let id = w.map_or(0, |w| self.values.id(w));
        self.ids[Self::at(a, b)] = id;
        id
    }
}

/// Who may get the bye, as the weights see it (see `brackets`): the bye assignee's score,
/// whether the bye goes to the top bracket's single leftover, and then the rank of each number
/// of games played among the players of that score.
#[derive(Clone, Copy)]
pub(super) struct Bye<'a> {
    pub(super) score: u32,
    pub(super) single: bool,
    pub(super) ranks: &'a std::collections::HashMap<u32, u32>,
}

/// See `Ctx::flat`.
pub(super) struct Flat<const N: usize> {
    pub(super) constant: Wide<N>,
    pub(super) potential: Vec<Wide<N>>,
}

impl<const N: usize> Flat<N> {
    /// Player `v`'s share of a flat pair's stored weight (`2w + 2`, see the matcher): the
    /// constant, twice the potential, and one, so that two shares make the pair's weight.
    pub(super) fn stored_potential(&self, v: usize) -> Wide<N> {
        let p = &self.potential[v];
        self.constant.add(p).add(p).add_u64(1)
    }

    /// Each player's potential as an index into the distinct potentials (few: they depend on
    /// bye eligibility and score), and those potentials.
    pub(super) fn classes(&self) -> (Vec<usize>, Distinct<N>) {
        let mut d = Distinct::<N>::new();
        let classes = self.potential.iter().map(|p| d.id(*p) as usize).collect();
        (classes, d)
    }
}

/// Where each field of a pair's weight starts (bit offsets; see `Ctx::edge_by_shifts` for the
/// order, most significant first). Fields of float history not yet played are left at 0.
#[derive(Default)]
struct Offsets {
    top: u32,
    current: u32,
    current_scores: u32,
    next: u32,
    next_scores: u32,
    ranks: u32,
    colour: [u32; 4],
    floats: [u32; 2],
    up_ok: [u32; 2],
    float_scores: [u32; 2],
    up_ok_scores: [u32; 2],
}

impl Offsets {
    fn new(b: u32, s: u32, played: u32) -> Self {
        let mut o = Offsets::default();
        let mut at = 3 * b + 1;
        let mut field = |width: u32| {
            let start = at;
            at += width;
            start
        };
        for k in [1, 0] {
            if played > k as u32 {
                o.up_ok_scores[k] = field(s);
                o.float_scores[k] = field(s);
            }
        }
        for k in [1, 0] {
            if played > k as u32 {
                o.up_ok[k] = field(b);
                o.floats[k] = field(b);
            }
        }
        for k in [3, 2, 1, 0] {
            o.colour[k] = field(b);
        }
        o.ranks = field(2 * b);
        o.next_scores = field(s);
        o.next = field(b);
        o.current_scores = field(s);
        o.current = field(b);
        o.top = field(2);
        o
    }
}

pub(super) struct Ctx<'t> {
    pub(super) t: &'t Tournament,
    pub(super) p: Vec<Entrant>,
    played: u32,
    /// Where each scoregroup's bit field starts among all scoregroups' (lowest score at 0), and
    /// the width of them all: the first solve's bye potentials (see `brackets`).
    pub(super) group_shift: std::collections::HashMap<u32, u32>,
    pub(super) groups_shift: u32,
    pub(super) size_bits: u32,
    /// The number of score slots in each score field of a weight, `size_bits` wide each. The
    /// live edges of a bracket's solves (its players' and the next scoregroup's; every pair
    /// with a player below is flat, and every earlier bracket's player is retired) count only
    /// the scores of those players in the score fields, and every such edge is rewritten at
    /// the next bracket; so slot `k` stands for the `k`-th lowest of the bracket's scores (see
    /// `Ctx::slot_shifts`), and a weight is a few slots wide where a field for every
    /// scoregroup made it 18 to 20 words at 10,000 players. Slots keep the scores' order and
    /// each has room for a whole scoregroup's count, so every matching of the live graph
    /// compares with every other as it would with a field for every scoregroup.
    slots: u32,
    /// The layout at `slots` (the weight's bits: `top` and its two).
    offsets: Offsets,
    /// Pairs that may not meet (played before, or XXP-forbidden): bit `b * n + a` for the
    /// pair of sorted indices `a`, `b` (set both ways), so that a row reads in order.
    forbidden: Vec<u64>,
    /// See `Ctx::new`.
    clash: Vec<u8>,
}

impl<'t> Ctx<'t> {
    pub(super) fn new(t: &'t Tournament, p: Vec<Entrant>, played: u32) -> Self {
        let n = p.len();
        let mut group_shift = std::collections::HashMap::new();
        let mut groups_shift = 0;
        let mut max_group = 0;
        let mut i = n;
        while i > 0 {
            let score = p[i - 1].score;
            let mut j = i;
            while j > 0 && p[j - 1].score == score {
                j -= 1;
            }
            let size = i - j;
            group_shift.insert(score, groups_shift);
            groups_shift += bits(size);
            max_group = max_group.max(size);
            i = j;
        }
        let size_bits = bits(max_group);
        let pos: std::collections::HashMap<usize, usize> =
            p.iter().enumerate().map(|(k, e)| (e.idx, k)).collect();
        let mut forbidden = vec![0u64; (n * n).div_ceil(64)];
        let mut forbid = |a: usize, b: usize| {
            for i in [a * n + b, b * n + a] {
                forbidden[i / 64] |= 1 << (i % 64);
            }
        };
        for (k, e) in p.iter().enumerate() {
            for o in &e.opponents {
                if let Some(&ko) = pos.get(o) {
                    forbid(k, ko);
                }
            }
        }
        for group in t.forbidden.iter().filter(|f| f.applies_in(played + 1)) {
            let mut ks: Vec<usize> = group
                .players
                .iter()
                .filter_map(|id| pos.get(&(id.0 as usize).wrapping_sub(1)).copied())
                .collect();
            // A group may name a player many times: at most the field is forbidden pairwise.
            ks.sort_unstable();
            ks.dedup();
            for &a in &ks {
                for &b in &ks {
                    if a != b {
                        forbid(a, b);
                    }
                }
            }
        }
        // Two players clash (may not meet: the absolute colour criterion) when both have the
        // same absolute colour preference and neither is a topscorer in the last round: a code
        // per player, equal and non-zero for two that clash.
        let threshold = t.points.topscorer_above(played);
        let clash = p
            .iter()
            .map(|x| {
                let exempt = played + 1 >= t.total_rounds && x.score > threshold;
                match x.pref {
                    _ if !x.absolute() || exempt => 0,
                    None => 1,
                    Some(Colour::White) => 2,
                    Some(Colour::Black) => 3,
                }
            })
            .collect();
        let groups = group_shift.len() as u32;
        let mut ctx = Ctx {
            t,
            p,
            played,
            group_shift,
            groups_shift,
            size_bits,
            slots: 0,
            offsets: Offsets::default(),
            forbidden,
            clash,
        };
        // Three slots hold a bracket of moved-down players from one scoregroup, its residents
        // and the next scoregroup (nearly every bracket of a large field); as many more as fit
        // in the same width.
        let width =
            |slots: u32| width_for(Offsets::new(size_bits, slots * size_bits, played).top + 2);
        let mut slots = 3.min(groups);
        while slots < groups && width(slots + 1) == width(slots) {
            slots += 1;
        }
        ctx.set_slots(slots);
        ctx
    }

    pub(super) fn set_slots(&mut self, slots: u32) {
        self.slots = slots;
        self.offsets = Offsets::new(self.size_bits, slots * self.size_bits, self.played);
    }

    /// Each score slot's offset in a score field for the players `by_index` (a bracket and the
    /// next scoregroup), written into `shifts` by player: the lowest score at 0. `Widen` when
    /// they have more scores than slots.
    pub(super) fn slot_shifts(&self, by_index: &[usize], shifts: &mut [u32]) -> Result<(), Widen> {
        let mut scores: Vec<u32> = by_index.iter().map(|&v| self.p[v].score).collect();
        scores.sort_unstable();
        scores.dedup();
        if scores.len() > self.slots as usize {
            return Err(Widen);
        }
        for &v in by_index {
            let slot = scores.partition_point(|&x| x < self.p[v].score) as u32;
            shifts[v] = slot * self.size_bits;
        }
        Ok(())
    }

    pub(super) fn shift(&self, score: u32) -> u32 {
        self.group_shift[&score]
    }

    /// Absolute criteria: the two have not played each other, and not both have the same
    /// absolute colour preference (except a topscorer in the last round).
    #[inline]
    pub(super) fn compatible(&self, a: usize, b: usize) -> bool {
        let i = b * self.p.len() + a;
        self.forbidden[i / 64] >> (i % 64) & 1 == 0
            && (self.clash[a] == 0 || self.clash[a] != self.clash[b])
    }

    fn bye_candidate(&self, a: usize, bye_score: u32) -> bool {
        self.p[a].eligible && self.p[a].score <= bye_score
    }

    /// The weight of the pair `hi`–`lo` (see `edge_by_shifts`, the same weight built field by
    /// field from the top): every field added at its offset in `Offsets`.
    pub(super) fn edge<const N: usize>(
        &self,
        hi: usize,
        lo: usize,
        in_current: bool,
        in_next: bool,
        bye: Bye<'_>,
        shifts: &[u32],
    ) -> Option<Wide<N>> {
        if !self.compatible(hi, lo) {
            return None;
        }
        let (bye_score, single_bye, ranks) = (bye.score, bye.single, bye.ranks);
        let o = &self.offsets;
        let (h, l) = (&self.p[hi], &self.p[lo]);
        let mut r = Wide::<N>::ZERO;
        r.add_at(
            1 + u64::from(!self.bye_candidate(hi, bye_score))
                + u64::from(!self.bye_candidate(lo, bye_score)),
            o.top,
        );
        if in_current {
            r.add_at(1, o.current);
            r.add_at(1, o.current_scores + shifts[hi]);
        }
        if in_next {
            r.add_at(1, o.next);
            r.add_at(1, o.next_scores + shifts[hi]);
        }
        if single_bye {
            if h.score == bye_score {
                r.add_at(u64::from(ranks[&h.played_games]), o.ranks);
            }
            if l.score == bye_score {
                r.add_at(u64::from(ranks[&l.played_games]), o.ranks);
            }
        }
        if in_current {
            for (c, offset) in self.colour_criteria(hi, lo).into_iter().zip(o.colour) {
                r.add_at(u64::from(c), offset);
            }
        }
        let higher_score_gt = h.score > l.score;
        for back in [1u32, 2] {
            if self.played < back || !in_current {
                continue;
            }
            let k = back as usize - 1;
            let (lf, hf) = if back == 1 {
                (l.float1, h.float1)
            } else {
                (l.float2, h.float2)
            };
            r.add_at(
                u64::from(lf == Float::Down) + u64::from(h.score <= l.score && hf == Float::Down),
                o.floats[k],
            );
            let up_ok = !(higher_score_gt && lf == Float::Up);
            r.add_at(u64::from(up_ok), o.up_ok[k]);
            if lf == Float::Down {
                r.add_at(1, o.float_scores[k] + shifts[lo]);
            }
            if hf == Float::Down {
                r.add_at(1, o.float_scores[k] + shifts[hi]);
            }
            if up_ok {
                r.add_at(1, o.up_ok_scores[k] + shifts[hi]);
            }
        }
        debug_assert_eq!(
            Some(r),
            self.edge_by_shifts(hi, lo, in_current, in_next, bye, shifts)
        );
        Some(r)
    }

    /// C8-C11's colour criteria of the pair (the lower player's side first).
    fn colour_criteria(&self, hi: usize, lo: usize) -> [bool; 4] {
        let (p, o) = (&self.p[lo], &self.p[hi]);
        let c1 = !p.absolute_imbalance() || !o.absolute_imbalance() || p.pref != o.pref;
        let c2 = !p.absolute()
            || !o.absolute()
            || p.pref != o.pref
            || if p.imbalance == o.imbalance {
                p.repeated.is_none() || p.repeated != o.repeated
            } else {
                let q = if p.imbalance > o.imbalance { o } else { p };
                q.repeated != p.pref.map(Colour::opposite)
            };
        let c3 = p.pref.is_none() || o.pref.is_none() || p.pref != o.pref;
        let c4 = (!p.strong && !p.absolute())
            || (!o.strong && !o.absolute())
            || (p.absolute() && o.absolute())
            || p.pref != o.pref;
        [c1, c2, c3, c4]
    }

    /// The weight of a pair, built from its most significant field down by shifting: the
    /// reading of the criteria that `edge` is checked against in debug builds.
    fn edge_by_shifts<const N: usize>(
        &self,
        hi: usize,
        lo: usize,
        in_current: bool,
        in_next: bool,
        bye: Bye<'_>,
        shifts: &[u32],
    ) -> Option<Wide<N>> {
        if !self.compatible(hi, lo) {
            return None;
        }
        let (bye_score, single_bye, ranks) = (bye.score, bye.single, bye.ranks);
        let b = self.size_bits;
        let s = self.slots * b;
        let (h, l) = (&self.p[hi], &self.p[lo]);
        let mut r = Wide::<N>::from_u64(
            1 + u64::from(!self.bye_candidate(hi, bye_score))
                + u64::from(!self.bye_candidate(lo, bye_score)),
        );
        let put = |r: Wide<N>, k: u32, v: u64| r.shl(k).add_u64(v);
        r = put(r, b, u64::from(in_current));
        r = r.shl(s);
        if in_current {
            r.set_bit(shifts[hi]);
        }
        r = put(r, b, u64::from(in_next));
        r = r.shl(s);
        if in_next {
            r.set_bit(shifts[hi]);
        }
        r = r.shl(2 * b);
        if single_bye {
            if h.score == bye_score {
                r = r.add_u64(u64::from(ranks[&h.played_games]));
            }
            if l.score == bye_score {
                r = r.add_u64(u64::from(ranks[&l.played_games]));
            }
        }
        // Colour criteria (player = the lower, opponent = the higher).
        for c in self.colour_criteria(hi, lo) {
            r = put(r, b, u64::from(in_current && c));
        }
        let higher_score_gt = h.score > l.score;
        if self.played >= 1 {
            let v = if in_current {
                u64::from(l.float1 == Float::Down)
                    + u64::from(h.score <= l.score && h.float1 == Float::Down)
            } else {
                0
            };
            r = put(r, b, v);
            let v = in_current && !(higher_score_gt && l.float1 == Float::Up);
            r = put(r, b, u64::from(v));
        }
        if self.played >= 2 {
            let v = if in_current {
                u64::from(l.float2 == Float::Down)
                    + u64::from(h.score <= l.score && h.float2 == Float::Down)
            } else {
                0
            };
            r = put(r, b, v);
            let v = in_current && !(higher_score_gt && l.float2 == Float::Up);
            r = put(r, b, u64::from(v));
        }
        for back in [1u32, 2] {
            if self.played < back {
                continue;
            }
            let (lf, hf) = if back == 1 {
                (l.float1, h.float1)
            } else {
                (l.float2, h.float2)
            };
            r = r.shl(s);
            if in_current {
                if lf == Float::Down {
                    r = r.add(&Wide::from_u64(1).shl(shifts[lo]));
                }
                if hf == Float::Down {
                    r = r.add(&Wide::from_u64(1).shl(shifts[hi]));
                }
            }
            r = r.shl(s);
            if in_current && !(lf == Float::Up && higher_score_gt) {
                r.set_bit(shifts[hi]);
            }
        }
        r = r.shl(3 * b + 1);
        Some(r)
    }

    /// The weights of pairs outside the current bracket and the next scoregroup (`edge` with
    /// both flags off: completion, bye eligibility, and the bye assignee's unplayed games when
    /// the bye comes from the top scoregroup) are a constant plus one potential a player: the
    /// whole field's weights are then a sum each instead of a bit field at a time.
    pub(super) fn flat<const N: usize>(&self, bye: Bye<'_>) -> Flat<N> {
        let (bye_score, single_bye, ranks) = (bye.score, bye.single, bye.ranks);
        let (top, below_ranks) = (self.offsets.top, self.offsets.ranks);
        let potential = self
            .p
            .iter()
            .enumerate()
            .map(|(v, e)| {
                let mut p =
                    Wide::<N>::from_u64(u64::from(!self.bye_candidate(v, bye_score))).shl(top);
                if single_bye && e.score == bye_score {
                    p = p.add(&Wide::from_u64(u64::from(ranks[&e.played_games])).shl(below_ranks));
                }
                p
            })
            .collect();
        Flat {
            constant: Wide::from_u64(1).shl(top),
            potential,
        }
    }
}
