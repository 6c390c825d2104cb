//! Solving: stages of the primal-dual method, scanning S-vertices' rows (or a big blossom's
//! representatives) for tight edges and best edges, and augmenting.

use super::*;

impl<const N: usize> Matcher<N> {
    /// Makes the matching perfect and optimal for the current weights.
    pub fn solve(&mut self) -> Result<(), NoPerfectMatching> {
        assert!(
            !self.needs_restart,
            "weights filled after a solve without a restart"
        );
        if !self.started {
            self.start();
        }
        self.greedy();
        loop {
            if !self.mate.contains(&NONE) {
                return Ok(());
            }
            self.stage()?;
            #[cfg(test)]
            self.check();
        }
    }

    /// Matches free single vertices joined by tight edges (keeps every invariant: the duals are
    /// untouched and the new matched edges are tight), so that a stage is needed only where an
    /// augmenting path is longer than one edge.
    pub(super) fn greedy(&mut self) {
        // A free blossom whose base is at its floor pairs into the reservoir.
        if !self.parked_list.is_empty() {
            for b in self.top_blossoms() {
                let base = self.base[b];
                if self.mate[base] == NONE && self.at_floor(base) {
                    self.mate[base] = RES;
                }
            }
        }
        let free: Vec<usize> = (0..self.n)
            .filter(|&v| self.mate[v] == NONE && self.inb[v] == v)
            .collect();
        for (i, &v) in free.iter().enumerate() {
            if self.mate[v] != NONE {
                continue;
            }
            for &w in &free[i + 1..] {
                if self.mate[w] == NONE && self.tight(v, w) {
                    self.mate[v] = w;
                    self.mate[w] = v;
                    break;
                }
            }
        }
    }

    pub(super) fn top_blossoms(&self) -> Vec<usize> {
        let mut tops: Vec<usize> = (0..self.n).filter(|&v| self.inb[v] == v).collect();
        tops.extend(
            (self.n..2 * self.n).filter(|&b| self.base[b] != NONE && self.parent[b] == NONE),
        );
        tops
    }

    /// Gives every free root the same dual parity, so that S–S slacks are even.
    pub(super) fn align_roots(&mut self) {
        let mut target: Option<bool> = None;
        let mut work: Vec<usize> = self
            .top_blossoms()
            .into_iter()
            .filter(|&b| self.mate[self.base[b]] == NONE)
            .collect();
        while let Some(b) = work.pop() {
            let odd = self.dual[self.base[b]].is_odd();
            let t = *target.get_or_insert(odd);
            if odd == t {
                continue;
            }
            if b < self.n {
                self.dual[b] = self.dual[b].add_u64(1);
            } else if !self.dual[b].is_zero() {
                let mut ls = Vec::new();
                self.leaves(b, &mut ls);
                for v in ls {
                    self.dual[v] = self.dual[v].add_u64(1);
                }
                self.dual[b] = self.dual[b].sub_u64(1);
            } else {
                let bs = self.base[b];
                self.expand(b, true);
                work.push(self.inb[bs]);
            }
        }
    }

    pub(super) fn stage(&mut self) -> Result<(), NoPerfectMatching> {
        let n = self.n;
        self.align_roots();
        self.label.iter_mut().for_each(|l| *l = 0);
        for b in std::mem::take(&mut self.labelled) {
            self.listed[b] = false;
        }
        self.bestedge.iter_mut().for_each(|e| *e = EMPTY);
        self.bestlist.iter_mut().for_each(|l| *l = None);
        self.bestok.iter_mut().for_each(|ok| *ok = false);
        self.labelend.iter_mut().for_each(|e| *e = EMPTY);
        self.queue.clear();
        for b in self.top_blossoms() {
            if self.mate[self.base[b]] == NONE && self.label[b] == 0 {
                self.assign_label(self.base[b], 1, NONE);
            }
        }
        self.tight_only = false;
        loop {
            while let Some(v) = self.queue.pop() {
                if v >= n {
                    self.scan_rep(v);
                    continue;
                }
                if self.at_floor(v) && self.label[self.inb[v]] == 1 {
                    // A tight edge into the reservoir: the tree's augmenting path ends here.
                    self.float_and_drop(v);
                    continue;
                }
                if self.tight_only {
                    self.scan_tight(v);
                    continue;
                }
                let row = self.row_at(v);
                for k in 0..self.live.len() {
                    let w = self.live[k];
                    // (v's blossom can grow during the scan.)
                    let bv = self.inb[v];
                    let bw = self.inb[w];
                    if w == v || bw == bv {
                        continue;
                    }
                    let id = self.w2[row + self.col_at(w)];
                    if self.scan_edge(v, w, bv, bw, id) {
                        break;
                    }
                }
            }
            if self.tight_only {
                self.end_stage();
                return Ok(());
            }
            // No augmenting path on tight edges: change the duals.
            let Some((delta, kind, edge, target)) = self.least_delta() else {
                return Err(NoPerfectMatching);
            };
            self.bestok.iter_mut().for_each(|ok| *ok = false);
            for v in 0..n {
                match self.label[self.inb[v]] {
                    1 => self.dual[v] = self.dual[v].sub(&delta),
                    2 => self.dual[v] = self.dual[v].add(&delta),
                    _ => {}
                }
            }
            for b in n..2 * n {
                if self.base[b] != NONE && self.parent[b] == NONE {
                    match self.label[b] {
                        1 => self.dual[b] = self.dual[b].add(&delta),
                        2 => self.dual[b] = self.dual[b].sub(&delta),
                        _ => {}
                    }
                }
            }
            match kind {
                1 => {
                    // Every S-vertex now at its floor pairs into the reservoir.
                    self.float_and_drop(target);
                    for k in 0..self.live.len() {
                        let v = self.live[k];
                        if self.label[self.inb[v]] == 1 && self.at_floor(v) {
                            self.float_and_drop(v);
                        }
                    }
                }
                2 | 3 => {
                    let (a, b) = edge;
                    let s_end = if self.label[self.inb[a]] == 1 { a } else { b };
                    self.queue.push(s_end);
                }
                _ => self.expand(target, false),
            }
        }
    }

    /// The least dual change that makes progress (see `stage`), with its kind (1: an
    /// S-vertex's dual at its floor, 2: an edge from an S-blossom to a free vertex or one in a
    /// T-blossom gets tight, 3: an edge between two S-blossoms, 4: a T-blossom's dual reaches
    /// zero), the edge (kinds 2, 3) and the vertex or blossom (kinds 1, 4). `None`: no change
    /// makes progress, so no perfect matching exists. The first of equal ones in this order.
    fn least_delta(&self) -> Option<(Wide<N>, u8, (usize, usize), usize)> {
        let n = self.n;
        let mut delta: Option<Wide<N>> = None;
        let mut kind = 0u8;
        let mut edge = EMPTY;
        let mut tblossom = NONE;
        for v in 0..n {
            if self.label[self.inb[v]] == 0 && self.bestedge[v] != EMPTY {
                let (a, b) = self.bestedge[v];
                let d = self.best_slack(v);
                if delta.is_none_or(|x| d < x) {
                    delta = Some(d);
                    kind = 2;
                    edge = (a, b);
                }
            }
        }
        for b in 0..2 * n {
            if self.parent[b] == NONE
                && self.base[b] != NONE
                && self.label[b] == 1
                && self.bestedge[b] != EMPTY
            {
                let (x, y) = self.bestedge[b];
                if self.inb[x] == self.inb[y] {
                    continue;
                }
                let d = self.best_slack(b).half();
                if delta.is_none_or(|v| d < v) {
                    delta = Some(d);
                    kind = 3;
                    edge = (x, y);
                }
            }
        }
        for b in n..2 * n {
            if self.base[b] != NONE && self.parent[b] == NONE && self.label[b] == 2 {
                let d = self.dual[b];
                if delta.is_none_or(|v| d < v) {
                    delta = Some(d);
                    kind = 4;
                    tblossom = b;
                }
            }
        }
        // An S-vertex's dual may fall to its floor (see `solve_parked`).
        let mut floats = NONE;
        if !self.parked_list.is_empty() {
            for &v in &self.live {
                if self.label[self.inb[v]] == 1
                    && let Some(f) = self.floor[v]
                {
                    let d = self.dual[v].sub(&f);
                    if delta.is_none_or(|x| d < x) {
                        delta = Some(d);
                        kind = 1;
                        floats = v;
                    }
                }
            }
        }
        let target = if kind == 1 { floats } else { tblossom };
        delta.map(|d| (d, kind, edge, target))
    }

    /// Looks at the edge `v`–`w` (weight index `id`) from the S-vertex `v` in a stage: labels,
    /// forms a blossom or augments over it if it is tight, else records it as a best edge.
    /// `bv` and `bw` are their top-level blossoms (different). Returns whether it augmented
    /// (the scan of `v` ends: its tree's labels are gone).
    #[inline(always)]
    pub(super) fn scan_edge(&mut self, v: usize, w: usize, bv: usize, bw: usize, id: u32) -> bool {
        if id == 0 {
            return false;
        }
        let lw = self.label[bw];
        // A vertex of a T-blossom that is labelled itself needs nothing.
        if lw == 2 && self.label[w] != 0 {
            return false;
        }
        let wt = self.values.get(id);
        let dv = &self.dual[v];
        // Only a tight edge matters once the best edges are not kept: its lowest word of slack
        // is zero, which rules out nearly every other edge at once.
        if self.tight_only
            && dv.0[0]
                .wrapping_add(self.dual[w].0[0])
                .wrapping_sub(wt.0[0])
                != 0
        {
            return false;
        }
        let s = dv.add_sub(&self.dual[w], wt);
        if s.is_zero() {
            if lw == 0 && self.mate[self.base[bw]] == RES {
                // An augmenting path: w's blossom is paired into the reservoir.
                self.augment_and_drop(v, w);
                return true;
            } else if lw == 0 {
                self.assign_label(w, 2, v);
            } else if lw == 1 {
                let base = self.scan_blossom(v, w);
                if base != NONE {
                    self.add_blossom(base, v, w);
                } else {
                    self.augment_and_drop(v, w);
                    return true;
                }
            } else {
                self.label[w] = 2;
                self.list_labelled(w);
                self.labelend[w] = (v, w);
            }
        } else if !self.tight_only {
            // The best edge of v's blossom (to an S-blossom) or of w (free, or inside a
            // T-blossom: it is free if the blossom expands).
            let x = if lw == 1 {
                bv
            } else if self.label[w] == 0 {
                w
            } else {
                return false;
            };
            let wt = *wt;
            if self.bestedge[x] == EMPTY || s < self.cached_best_slack(x) {
                self.bestedge[x] = (v, w);
                self.bestw[x] = wt;
                self.bestslack[x] = s;
                self.bestok[x] = true;
            }
        }
        false
    }

    /// The scan of the S-vertex `v` in the `tight_only` part of a stage: `scan_edge` on every
    /// edge, less those whose slack's lowest word is not zero, which it would pass over (they
    /// are not tight), ruled out first from the weight's and `v`'s dual's lowest words alone.
    /// (`v`'s dual and the others' stay as they are during a scan: none changes in a scan, and
    /// an augmentation ends it.)
    pub(super) fn scan_tight(&mut self, v: usize) {
        let row = self.row_at(v);
        let dv = self.dual[v].0[0];
        for k in 0..self.live.len() {
            let w = self.live[k];
            let id = self.w2[row + self.col_at(w)];
            if id == 0 || dv.wrapping_add(self.dual[w].0[0]) != self.values.low(id) {
                continue;
            }
            let bv = self.inb[v];
            let bw = self.inb[w];
            if w == v || bw == bv {
                continue;
            }
            if self.scan_edge(v, w, bv, bw, id) {
                break;
            }
        }
    }

    /// Scans the S-blossom `b` by its representatives (`rep`): one edge to each live vertex
    /// outside it, the least-slack one, which is tight if any is and is the best edge there.
    pub(super) fn scan_rep(&mut self, b: usize) {
        if self.base[b] == NONE || self.label[self.top_of(b)] != 1 {
            return;
        }
        if self.rep[b].is_empty() {
            // (Not reached: a queued blossom keeps its representatives.)
            let mut ls = Vec::new();
            self.leaves(b, &mut ls);
            self.queue.extend(ls);
            return;
        }
        if !self.parked_list.is_empty() {
            let mut ls = Vec::new();
            self.leaves(b, &mut ls);
            if let Some(&x) = ls.iter().find(|&&x| self.at_floor(x)) {
                // A tight edge into the reservoir: the tree's augmenting path ends here.
                self.float_and_drop(x);
                return;
            }
        }
        self.scanning = b;
        for k in 0..self.live.len() {
            let (x, id) = self.rep[b][self.live[k]];
            let w = self.live[k];
            if id == 0 {
                continue;
            }
            let x = x as usize;
            let (bv, bw) = (self.inb[x], self.inb[w]);
            if bv == bw {
                continue;
            }
            if self.scan_edge(x, w, bv, bw, id) {
                break;
            }
        }
        self.scanning = NONE;
    }

    /// Gives the top-level blossom `b` (of `REP_MIN` leaves or more) its representatives: those
    /// of the largest sub-blossoms that have them (dropped then, unless being scanned: so no
    /// two blossoms with representatives nest, and they take at most `8 n` bytes for each 32
    /// vertices), and the rows of the leaves outside those.
    pub(super) fn build_rep(&mut self, b: usize) {
        let n = self.n;
        let mut rep = vec![NO_REP; n];
        let mut best = std::mem::take(&mut self.rep_slack);
        best.clear();
        best.resize(n, Wide::ZERO);
        let mut offer = |me: &Self, x: usize, w: usize, id: u32| {
            if id == 0 || me.retired[w] || me.inb[w] == b {
                return;
            }
            let s = me.dual[x].add_sub(&me.dual[w], me.values.get(id));
            if rep[w].1 == 0 || s < best[w] {
                rep[w] = (x as u32, id);
                best[w] = s;
            }
        };
        let mut stack = self.childs[b].clone();
        while let Some(c) = stack.pop() {
            if c < n {
                let row = self.row_at(c);
                for w in 0..n {
                    offer(self, c, w, self.w2[row + self.col_at(w)]);
                }
            } else if self.rep[c].is_empty() {
                stack.extend_from_slice(&self.childs[c]);
            } else {
                let cached = if c == self.scanning {
                    self.rep[c].clone()
                } else {
                    std::mem::take(&mut self.rep[c])
                };
                for (w, &(x, id)) in cached.iter().enumerate() {
                    offer(self, x as usize, w, id);
                }
            }
        }
        self.rep[b] = rep;
        self.rep_slack = best;
    }

    /// The top-level blossom that contains `x` (a vertex or a blossom).
    pub(super) fn top_of(&self, x: usize) -> usize {
        if x < self.n {
            return self.inb[x];
        }
        let mut b = x;
        while self.parent[b] != NONE {
            b = self.parent[b];
        }
        b
    }

    /// The labelled top-level blossom at the root of `b`'s alternating tree.
    pub(super) fn root_of(&self, b: usize, memo: &mut [usize], touched: &mut Vec<usize>) -> usize {
        let start = touched.len();
        let mut x = b;
        let root = loop {
            if memo[x] != NONE {
                break memo[x];
            }
            touched.push(x);
            match self.labelend[x] {
                EMPTY => break x,
                (p, _) => x = self.inb[p],
            }
        };
        for &x in &touched[start..] {
            memo[x] = root;
        }
        root
    }

    /// Augments along the path through the S–S edge `v`–`w` (joining two trees), then drops
    /// the labels of both trees, as a new stage would, leaving the other trees as they are:
    /// their labels, tight edges and matched edges are untouched by the augmentation, so the
    /// search for more augmenting paths over tight edges goes on from them. (Their best edges
    /// may point into the dropped trees, so the stage changes no dual after this; see `stage`.)
    pub(super) fn augment_and_drop(&mut self, v: usize, w: usize) {
        let blossoms = [self.inb[v], self.inb[w]];
        self.augment_dropping(&blossoms, |me| me.augment(v, w));
    }

    /// Runs `augment`, which flips paths in the trees of `blossoms`, drops those trees' labels
    /// (see `augment_and_drop`), and leaves the stage to the tight edges (`tight_only`).
    pub(super) fn augment_dropping(&mut self, blossoms: &[usize], augment: impl FnOnce(&mut Self)) {
        let mut memo = std::mem::take(&mut self.memo);
        memo.resize(2 * self.n, NONE);
        let mut touched = Vec::new();
        let roots: Vec<usize> = blossoms
            .iter()
            .map(|&b| self.root_of(b, &mut memo, &mut touched))
            .collect();
        // The labelled top-level blossoms of those trees in `top_blossoms`' order (vertices,
        // then blossoms, each ascending): from `labelled`, which holds every index with a label.
        let mut dropped = Vec::new();
        for k in 0..self.labelled.len() {
            let b = self.labelled[k];
            if self.label[b] != 0
                && self.is_top(b)
                && roots.contains(&self.root_of(b, &mut memo, &mut touched))
            {
                dropped.push(b);
            }
        }
        dropped.sort_unstable();
        for x in touched {
            memo[x] = NONE;
        }
        self.memo = memo;
        augment(self);
        // The other trees go on over tight edges only (see `tight_only`).
        self.tight_only = true;
        for b in dropped {
            let was_s = self.label[b] == 1;
            self.unlabel(b);
            if was_s && b >= self.n && self.dual[b].is_zero() {
                self.expand(b, true);
            }
        }
        let mut queue = std::mem::take(&mut self.queue);
        queue.retain(|&x| self.label[self.top_of(x)] == 1);
        self.queue = queue;
        let mut labelled = std::mem::take(&mut self.labelled);
        labelled.retain(|&b| {
            let keep = self.label[b] != 0;
            self.listed[b] &= keep;
            keep
        });
        self.labelled = labelled;
    }

    /// Adds `b` to `labelled` (it has just been given a label).
    #[inline]
    pub(super) fn list_labelled(&mut self, b: usize) {
        if !self.listed[b] {
            self.listed[b] = true;
            self.labelled.push(b);
        }
    }

    /// Whether `b` (a vertex or a blossom in use) is a top-level blossom (see `top_blossoms`).
    pub(super) fn is_top(&self, b: usize) -> bool {
        if b < self.n {
            self.inb[b] == b
        } else {
            self.base[b] != NONE && self.parent[b] == NONE
        }
    }
}
