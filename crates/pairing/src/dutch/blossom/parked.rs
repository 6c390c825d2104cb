//! Solving with the lower field parked (`solve_parked`): its flat pairs set aside as a
//! reservoir while a bracket's players re-pair.

use super::*;

impl<const N: usize> Matcher<N> {
    /// `solve`, with the vertices from `from` on that are only in flat pairs set aside while the
    /// bracket's players re-pair (the matching is optimal on the whole graph on return).
    ///
    /// `phi` is each player's flat potential in stored units: an edge with an end from `from` on
    /// weighs `phi[a] + phi[b]` or is absent (checked in debug builds). The matched pairs of
    /// such vertices whose duals equal their potentials are *parked*: out of `live`, so stages
    /// neither scan their rows nor grow trees through them. Every edge between two of them that
    /// exists is then tight, and a live vertex `x` that may meet some parked vertex needs only
    /// `dual[x] >= phi[x]` (its floor) for its edges into the reservoir to stay feasible; at its
    /// floor it has a tight edge to every parked vertex it may meet, and a tree that reaches it
    /// ends there, the vertex paired "into the reservoir" (an augmenting path, as to a free
    /// vertex; the reservoir's pairs re-pair around it over tight edges). The stages so solve a
    /// relaxation on the bracket's players and the few others still live. Unparking then gives
    /// each vertex paired into the reservoir a parked mate over a tight edge where it can (the
    /// widowed parked vertices pairing among themselves), and a last `solve` on the whole graph
    /// settles whatever is left: the duals were feasible on every edge throughout, so the
    /// matching it returns is optimal on the whole graph whatever the relaxation did.
    ///
    /// Why: after a bracket's weights are set, trees from its players used to reach the lower
    /// field, whose edges are all tight, and pull it all into the forest (thousands of rows a
    /// stage, each as long as the field).
    pub fn solve_parked(&mut self, from: usize, phi: &[Wide<N>]) -> Result<(), NoPerfectMatching> {
        if self.started {
            self.park(from, phi);
        }
        // (A relaxation without a solution leaves the answer to the whole graph.)
        let _ = self.solve();
        self.unpark();
        self.solve()
    }

    /// Whether `v`'s dual is at its floor (it has a tight edge into the reservoir).
    #[inline]
    pub(super) fn at_floor(&self, v: usize) -> bool {
        self.floor[v].is_some_and(|f| f == self.dual[v])
    }

    /// Pairs the S-vertex `v`, whose dual is at its floor, into the reservoir: the path from its
    /// tree's root to `v` is flipped (an augmenting path that ends in the reservoir) and the
    /// tree's labels are dropped, as in `augment_and_drop`.
    pub(super) fn float_and_drop(&mut self, v: usize) {
        let blossoms = [self.inb[v]];
        self.augment_dropping(&blossoms, |me| me.augment_side(v, RES));
    }

    /// Parks the matched pairs of single vertices from `from` on whose duals are their
    /// potentials, and sets the live vertices' floors (see `solve_parked`).
    pub(super) fn park(&mut self, from: usize, phi: &[Wide<N>]) {
        for k in 0..self.live.len() {
            let v = self.live[k];
            let m = self.mate[v];
            if v >= from
                && v < phi.len()
                && m != NONE
                && m > v
                && m < phi.len()
                && self.inb[v] == v
                && self.inb[m] == m
                && self.dual[v] == phi[v]
                && self.dual[m] == phi[m]
            {
                self.parked_list.push(v);
                self.parked_list.push(m);
            }
        }
        if self.parked_list.is_empty() {
            return;
        }
        let mut parked = vec![false; self.n];
        for &v in &self.parked_list {
            parked[v] = true;
        }
        self.live.retain(|&v| !parked[v]);
        for k in 0..self.live.len() {
            let x = self.live[k];
            self.floor[x] = if x < phi.len() {
                let row = self.row_at(x);
                let meets = self
                    .parked_list
                    .iter()
                    .any(|&p| self.w2[row + self.col_at(p)] != 0);
                #[cfg(debug_assertions)]
                for &p in &self.parked_list {
                    let w = self.weight2(x, p);
                    assert!(
                        w.is_zero() || *w == phi[x].add(&phi[p]),
                        "the edge {x}-{p} into the reservoir is not flat"
                    );
                }
                meets.then_some(phi[x])
            } else {
                // Not a player (the dummy of an odd field): what the parked edges ask of it.
                let mut f: Option<Wide<N>> = None;
                for &p in &self.parked_list {
                    let w = self.weight2(x, p);
                    if !w.is_zero() {
                        let need = w.sub(&self.dual[p]);
                        if f.is_none_or(|f| need > f) {
                            f = Some(need);
                        }
                    }
                }
                f
            };
            debug_assert!(
                self.floor[x].is_none_or(|f| self.dual[x] >= f),
                "vertex {x} below its floor"
            );
        }
    }

    /// Brings the reservoir back into play: each vertex paired into it takes a parked mate over
    /// a tight edge where one is found (a widowed one first, else one of an intact parked pair,
    /// whose other vertex is widowed), the widowed pair among themselves over tight edges, and
    /// whoever is left is free for the next `solve`.
    pub(super) fn unpark(&mut self) {
        if self.parked_list.is_empty() {
            return;
        }
        let floating: Vec<usize> = self
            .live
            .iter()
            .copied()
            .filter(|&x| self.mate[x] == RES)
            .collect();
        let mut widowed: Vec<usize> = Vec::new();
        let mut cursor = 0;
        for f in floating {
            let mut partner = NONE;
            if let Some(k) = widowed.iter().position(|&w| self.tight(f, w)) {
                partner = widowed.swap_remove(k);
            } else {
                let intact = |me: &Self, p: usize| me.mate[me.mate[p]] == p;
                while cursor < self.parked_list.len() && !intact(self, self.parked_list[cursor]) {
                    cursor += 1;
                }
                for k in cursor..self.parked_list.len() {
                    let p = self.parked_list[k];
                    if intact(self, p) && self.tight(f, p) {
                        widowed.push(self.mate[p]);
                        partner = p;
                        break;
                    }
                }
            }
            if partner == NONE {
                self.mate[f] = NONE;
            } else {
                self.mate[f] = partner;
                self.mate[partner] = f;
            }
        }
        while let Some(a) = widowed.pop() {
            if let Some(k) = widowed.iter().position(|&b| self.tight(a, b)) {
                let b = widowed.swap_remove(k);
                self.mate[a] = b;
                self.mate[b] = a;
            } else {
                self.mate[a] = NONE;
            }
        }
        self.parked_list.clear();
        let retired = &self.retired;
        self.live = (0..self.n).filter(|&v| !retired[v]).collect();
        self.floor.iter_mut().for_each(|f| *f = None);
    }
}
