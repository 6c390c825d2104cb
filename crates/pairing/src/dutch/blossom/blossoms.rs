//! Labels, blossoms (forming, expanding, augmenting through them) and best edges.

use super::*;

impl<const N: usize> Matcher<N> {
    /// Clears the stage's labels and best edges of blossom `b`, its sub-blossoms and vertices.
    pub(super) fn unlabel(&mut self, b: usize) {
        self.label[b] = 0;
        self.labelend[b] = EMPTY;
        self.bestedge[b] = EMPTY;
        self.bestlist[b] = None;
        if b >= self.n {
            for k in 0..self.childs[b].len() {
                self.unlabel(self.childs[b][k]);
            }
        }
    }

    pub(super) fn end_stage(&mut self) {
        for b in self.n..2 * self.n {
            if self.base[b] != NONE
                && self.parent[b] == NONE
                && self.label[b] == 1
                && self.dual[b].is_zero()
            {
                self.expand(b, true);
            }
        }
    }

    pub(super) fn assign_label(&mut self, w: usize, t: u8, p: usize) {
        let b = self.inb[w];
        self.label[w] = t;
        self.label[b] = t;
        self.list_labelled(w);
        self.list_labelled(b);
        let le = if p == NONE { EMPTY } else { (p, w) };
        self.labelend[w] = le;
        self.labelend[b] = le;
        self.bestedge[w] = EMPTY;
        self.bestedge[b] = EMPTY;
        if t == 1 {
            // (A single vertex is its own leaf, and a blossom with representatives has
            // `REP_MIN` leaves or more: neither needs its leaves listed.)
            if b < self.n || !self.rep[b].is_empty() {
                self.queue.push(b);
                return;
            }
            let mut ls = Vec::new();
            self.leaves(b, &mut ls);
            if ls.len() >= REP_MIN {
                if self.rep[b].is_empty() {
                    self.build_rep(b);
                }
                self.queue.push(b);
            } else {
                self.queue.extend(ls);
            }
        } else {
            let base = self.base[b];
            let m = self.mate[base];
            self.assign_label(m, 1, base);
        }
    }

    pub(super) fn scan_blossom(&mut self, v: usize, w: usize) -> usize {
        let mut path = Vec::new();
        let mut base = NONE;
        let (mut v, mut w) = (v, w);
        while v != NONE || w != NONE {
            let b = self.inb[v];
            if self.label[b] & 4 != 0 {
                base = self.base[b];
                break;
            }
            path.push(b);
            self.label[b] = 5;
            if self.labelend[b] == EMPTY {
                v = NONE;
            } else {
                let t = self.labelend[b].0;
                let bt = self.inb[t];
                v = self.labelend[bt].0;
            }
            if w != NONE {
                std::mem::swap(&mut v, &mut w);
            }
        }
        for b in path {
            self.label[b] = 1;
        }
        base
    }

    pub(super) fn add_blossom(&mut self, base: usize, v: usize, w: usize) {
        let bb = self.inb[base];
        let mut bv = self.inb[v];
        let mut bw = self.inb[w];
        let b = self.unused.pop().expect("at most n/2 blossoms");
        self.base[b] = base;
        self.parent[b] = NONE;
        self.parent[bb] = b;
        let mut path = Vec::new();
        let mut endps = Vec::new();
        while bv != bb {
            self.parent[bv] = b;
            path.push(bv);
            let (p, q) = self.labelend[bv];
            endps.push((p, q));
            bv = self.inb[p];
        }
        path.push(bb);
        path.reverse();
        endps.reverse();
        endps.push((v, w));
        while bw != bb {
            self.parent[bw] = b;
            path.push(bw);
            let (p, q) = self.labelend[bw];
            endps.push((q, p));
            bw = self.inb[p];
        }
        debug_assert!(
            path.len() >= 3 && path.len() % 2 == 1,
            "blossom of {} children {:?}",
            path.len(),
            path
        );
        self.childs[b] = path;
        self.endps[b] = endps;
        self.label[b] = 1;
        self.list_labelled(b);
        self.labelend[b] = self.labelend[bb];
        self.dual[b] = Wide::ZERO;
        // The T-children become S: their leaves are scanned (a child with representatives
        // as one).
        for k in 0..self.childs[b].len() {
            let c = self.childs[b][k];
            if self.label[c] != 2 {
                continue;
            }
            if !self.rep[c].is_empty() {
                self.queue.push(c);
            } else {
                let mut ls = Vec::new();
                self.leaves(c, &mut ls);
                self.queue.extend(ls);
            }
        }
        let mut ls = Vec::new();
        self.leaves(b, &mut ls);
        for &x in &ls {
            self.inb[x] = b;
        }
        if self.tight_only {
            for k in 0..self.childs[b].len() {
                let c = self.childs[b][k];
                self.bestlist[c] = None;
                self.bestedge[c] = EMPTY;
            }
            return;
        }
        // Least-slack edges from the new blossom to the other S-blossoms: merged from the
        // children's lists; a child without one (a single vertex, or a former T-blossom) has its
        // leaves' edges scanned. Only the vertices of other S-blossoms can be the far end of
        // such an edge (`consider_best` passes over the rest): when they are few, only they
        // are looked at, in the same order.
        let targets = self
            .s_vertices_except(b)
            .unwrap_or_else(|| self.live.clone());
        let mut touched: Vec<usize> = Vec::new();
        for c in self.childs[b].clone() {
            match self.bestlist[c].take() {
                Some(list) => {
                    for (x, y, id) in list {
                        self.consider_best(b, x, y, id, &mut touched);
                    }
                }
                None if !self.rep[c].is_empty() => {
                    for &w in &targets {
                        let (x, id) = self.rep[c][w];
                        if id != 0 {
                            self.consider_best(b, x as usize, w, id, &mut touched);
                        }
                    }
                }
                None => {
                    let mut cl = Vec::new();
                    self.leaves(c, &mut cl);
                    for x in cl {
                        let row = self.row_at(x);
                        for &y in &targets {
                            let id = self.w2[row + self.col_at(y)];
                            if y != x && id != 0 {
                                self.consider_best(b, x, y, id, &mut touched);
                            }
                        }
                    }
                }
            }
            self.bestedge[c] = EMPTY;
        }
        let mut list = Vec::with_capacity(touched.len());
        let mut best = EMPTY;
        let mut best_slack = Wide::ZERO;
        let mut best_id = 0;
        for t in touched {
            let (x, y, sl, id) = self.bestto[t];
            self.bestto[t] = (NONE, NONE, Wide::ZERO, 0);
            list.push((x, y, id));
            if best == EMPTY || sl < best_slack {
                best = (x, y);
                best_slack = sl;
                best_id = id;
            }
        }
        self.bestlist[b] = Some(list);
        self.bestedge[b] = best;
        if best != EMPTY {
            self.bestw[b] = *self.values.get(best_id);
            self.bestslack[b] = best_slack;
            self.bestok[b] = true;
        }
    }

    /// The slack of `bestedge[x]` (which must be set), computed once between dual changes.
    #[inline]
    pub(super) fn cached_best_slack(&mut self, x: usize) -> Wide<N> {
        if !self.bestok[x] {
            self.bestslack[x] = self.best_slack(x);
            self.bestok[x] = true;
        }
        self.bestslack[x]
    }

    /// The slack of `bestedge[x]` (which must be set).
    #[inline]
    pub(super) fn best_slack(&self, x: usize) -> Wide<N> {
        let (a, b) = self.bestedge[x];
        self.dual[a].add_sub(&self.dual[b], &self.bestw[x])
    }

    /// Records edge `x`–`y` (an edge of blossom `b`, either way round) as `b`'s best edge to the
    /// S-blossom at its other end if it has less slack than the one recorded.
    /// The vertices of the S-blossoms other than `b`, ascending (so in `live`'s order: every
    /// labelled vertex is live), if they are under an eighth of the live vertices.
    fn s_vertices_except(&self, b: usize) -> Option<Vec<usize>> {
        let mut out = Vec::new();
        for &t in &self.labelled {
            if t == b || self.label[t] != 1 || !self.is_top(t) {
                continue;
            }
            self.leaves(t, &mut out);
            if out.len() * 8 > self.live.len() {
                return None;
            }
        }
        out.sort_unstable();
        debug_assert!(out.iter().all(|&v| self.live.binary_search(&v).is_ok()));
        Some(out)
    }

    /// `id` is the edge's weight index (the table is not read again).
    pub(super) fn consider_best(
        &mut self,
        b: usize,
        x: usize,
        y: usize,
        id: u32,
        touched: &mut Vec<usize>,
    ) {
        let (x, y) = if self.inb[y] == b { (y, x) } else { (x, y) };
        let by = self.inb[y];
        if by == b || self.label[by] != 1 {
            return;
        }
        let sl = self.dual[x].add_sub(&self.dual[y], self.values.get(id));
        let cur = &self.bestto[by];
        if cur.0 == NONE {
            touched.push(by);
            self.bestto[by] = (x, y, sl, id);
        } else if sl < cur.2 {
            self.bestto[by] = (x, y, sl, id);
        }
    }

    pub(super) fn expand(&mut self, b: usize, endstage: bool) {
        let childs = self.childs[b].clone();
        for &s in &childs {
            self.parent[s] = NONE;
            if s < self.n {
                self.inb[s] = s;
            } else if endstage && self.dual[s].is_zero() {
                self.expand(s, endstage);
            } else {
                let mut ls = Vec::new();
                self.leaves(s, &mut ls);
                for v in ls {
                    self.inb[v] = s;
                }
            }
        }
        if !endstage && self.label[b] == 2 {
            let len = childs.len() as isize;
            let entry = self.labelend[b].1;
            let entrychild = self.inb[entry];
            let mut j = childs
                .iter()
                .position(|&c| c == entrychild)
                .expect("entry child") as isize;
            let jstep: isize = if j & 1 == 1 {
                j -= len;
                1
            } else {
                -1
            };
            let at = |j: isize| j.rem_euclid(len) as usize;
            let endps = self.endps[b].clone();
            let (mut po, mut pi) = self.labelend[b];
            while j != 0 {
                self.label[pi] = 0;
                let c = self.inb[pi];
                self.label[c] = 0;
                self.assign_label(pi, 2, po);
                j += jstep;
                if jstep == 1 {
                    let (x, y) = endps[at(j)];
                    po = x;
                    pi = y;
                } else {
                    let (x, y) = endps[at(j - 1)];
                    po = y;
                    pi = x;
                }
                j += jstep;
            }
            let bv = childs[at(j)];
            self.label[pi] = 2;
            self.label[bv] = 2;
            self.list_labelled(pi);
            self.list_labelled(bv);
            self.labelend[pi] = (po, pi);
            self.labelend[bv] = (po, pi);
            self.bestedge[bv] = EMPTY;
            j += jstep;
            while childs[at(j)] != entrychild {
                let bv = childs[at(j)];
                if self.label[bv] == 1 {
                    j += jstep;
                    continue;
                }
                let mut ls = Vec::new();
                self.leaves(bv, &mut ls);
                if let Some(&v) = ls.iter().find(|&&v| self.label[v] != 0) {
                    self.label[v] = 0;
                    let m = self.mate[self.base[bv]];
                    self.label[m] = 0;
                    let (p, _) = self.labelend[v];
                    self.assign_label(v, 2, p);
                }
                j += jstep;
            }
        }
        self.release(b);
    }

    pub(super) fn augment_blossom(&mut self, b: usize, v: usize) {
        let mut t = v;
        while self.parent[t] != b {
            t = self.parent[t];
        }
        if t >= self.n {
            self.augment_blossom(t, v);
        }
        let len = self.childs[b].len() as isize;
        let i = self.childs[b].iter().position(|&c| c == t).expect("child") as isize;
        let mut j = i;
        let jstep: isize = if i & 1 == 1 {
            j -= len;
            1
        } else {
            -1
        };
        let at = |j: isize| j.rem_euclid(len) as usize;
        while j != 0 {
            let (x, y, tx, ty);
            if jstep == 1 {
                tx = self.childs[b][at(j + 1)];
                ty = self.childs[b][at(j + 2)];
                // e = (in childs[j], in childs[j+1]); the pair to match is childs[j+1]-childs[j+2].
                let e2 = self.endps[b][at(j + 1)];
                x = e2.0;
                y = e2.1;
            } else {
                let e2 = self.endps[b][at(j - 2)];
                tx = self.childs[b][at(j - 1)];
                ty = self.childs[b][at(j - 2)];
                x = e2.1;
                y = e2.0;
            }
            if tx >= self.n {
                self.augment_blossom(tx, x);
            }
            if ty >= self.n {
                self.augment_blossom(ty, y);
            }
            self.mate[x] = y;
            self.mate[y] = x;
            j += 2 * jstep;
        }
        let i = i as usize;
        self.childs[b].rotate_left(i);
        self.endps[b].rotate_left(i);
        self.base[b] = self.base[self.childs[b][0]];
    }

    pub(super) fn augment(&mut self, v: usize, w: usize) {
        for (s0, p0) in [(v, w), (w, v)] {
            self.augment_side(s0, p0);
        }
    }

    /// Flips the alternating path from `s0` to its tree's root, `s0` taking `p0` as its mate.
    pub(super) fn augment_side(&mut self, s0: usize, p0: usize) {
        let (mut s, mut p) = (s0, p0);
        loop {
            let bs = self.inb[s];
            if bs >= self.n {
                self.augment_blossom(bs, s);
            }
            self.mate[s] = p;
            if self.labelend[bs] == EMPTY {
                break;
            }
            let t = self.labelend[bs].0;
            let bt = self.inb[t];
            let (ps, j) = self.labelend[bt];
            if bt >= self.n {
                self.augment_blossom(bt, j);
            }
            self.mate[j] = ps;
            s = ps;
            p = j;
        }
    }
}
