//! Warm starts: answering a question from the duals alone (`forced_mate`), shifting a
//! vertex's dual ahead of a change, retiring decided pairs, dissolving blossoms, and starting
//! over from given duals; and the tests' optimality certificate.

use super::*;

impl<const N: usize> Matcher<N> {
    /// `v`'s mate after `v`'s edges take the weights `changes` (vertex, new weight; the other
    /// edges keep theirs), when a dual certificate shows it without a stage. The present
    /// matching is perfect on optimal duals and `v` is a single vertex. Under the new weights,
    /// `v`'s dual is set to keep its least-slack edge, to `u` say, tight; if every other edge of
    /// `v` keeps a positive slack, every optimal matching pairs `v` with `u` (only tight edges
    /// are in optimal matchings), so a solve would give the same answer, provided some perfect
    /// matching of tight edges pairs `v` with `u`. That is the present one when `u` is `v`'s
    /// mate; otherwise a swap over tight edges is looked for (`v`'s old mate to `u`'s old mate,
    /// directly or through one more matched pair) and made, among single vertices only (so
    /// every blossom keeps its matched edges). `None`: a stage must tell. The weights are not
    /// set: the caller retires `v` and its mate at once.
    pub fn forced_mate(&mut self, v: usize, changes: &[(usize, Option<Wide<N>>)]) -> Option<usize> {
        if !self.started || self.inb[v] != v || self.mate.contains(&NONE) {
            return None;
        }
        let at = self.row_at(v);
        // The changed weights, by vertex (`changed[c]`: one more than its place in `row`).
        let mut row = std::mem::take(&mut self.row);
        row.clear();
        self.changed.resize(self.n, 0);
        for (k, &(c, weight)) in changes.iter().enumerate() {
            row.push(match weight {
                Some(c) => c.add_u64(1).add(&c.add_u64(1)),
                None => Wide::ZERO,
            });
            self.changed[c] = k as u32 + 1;
        }
        // The least slack of v's edges at its present dual, and whether it is unique.
        let mut best: Option<(usize, Wide<N>)> = None;
        let mut unique = false;
        for &c in &self.live {
            let k = self.changed[c];
            let weight = if k != 0 {
                &row[k as usize - 1]
            } else {
                self.values.get(self.w2[at + self.col_at(c)])
            };
            if c == v || weight.is_zero() {
                continue;
            }
            let slack = self.dual[v].add_sub(&self.dual[c], weight);
            match best {
                Some((_, b)) if slack > b => {}
                Some((_, b)) if slack == b => unique = false,
                _ => {
                    best = Some((c, slack));
                    unique = true;
                }
            }
        }
        for &(c, _) in changes {
            self.changed[c] = 0;
        }
        self.row = row;
        let (u, _) = best.filter(|_| unique)?;
        let mate = self.mate[v];
        if u == mate {
            return Some(u);
        }
        // Pair v with u: their old mates must be re-paired over tight edges.
        let (a, b) = (mate, self.mate[u]);
        let single = |me: &Self, x: usize| me.inb[x] == x;
        if !single(self, u) || !single(self, a) || !single(self, b) {
            return None;
        }
        if self.tight(a, b) {
            for (x, y) in [(v, u), (a, b)] {
                self.mate[x] = y;
                self.mate[y] = x;
            }
            return Some(u);
        }
        let taken = [v, u, a, b];
        let row_b = self.row_at(b);
        for k in 0..self.live.len() {
            let x = self.live[k];
            if taken.contains(&x) || self.w2[row_b + self.col_at(x)] == 0 {
                continue;
            }
            let y = self.mate[x];
            if taken.contains(&y)
                || !single(self, x)
                || !single(self, y)
                || !self.slack(b, x).is_zero()
                || !self.tight(y, a)
            {
                continue;
            }
            for (p, q) in [(v, u), (b, x), (y, a)] {
                self.mate[p] = q;
                self.mate[q] = p;
            }
            return Some(u);
        }
        None
    }

    /// Adds `delta` to `v`'s dual ahead of changing the weights of `v`'s edges to the vertices
    /// `changing` accepts by the same `delta` (or removing them), `v`'s matched edge among them:
    /// the slack of every changed edge stays what it is, so the matching stays tight where the
    /// edge-by-edge repair of `set` would unmatch it. Done only when every other edge of `v`
    /// keeps a non-negative slack (and `v` is a single vertex); returns whether it was done.
    pub fn shift_dual(
        &mut self,
        v: usize,
        delta: Wide<N>,
        changing: impl Fn(usize) -> bool,
    ) -> bool {
        let mate = self.mate[v];
        if !self.started || self.inb[v] != v || mate == NONE || !changing(mate) {
            return false;
        }
        if delta.is_negative() {
            for &x in &self.live {
                if x == v || changing(x) || self.weight2(v, x).is_zero() {
                    continue;
                }
                if self.slack(v, x).add(&delta).is_negative() {
                    return false;
                }
            }
        }
        self.dual[v] = self.dual[v].add(&delta);
        true
    }

    /// Pairs `a` with `b` for good (the matching is solved, and they are matched to each other):
    /// both leave the graph, so no later stage scans them or their edges. The same as giving
    /// them no other edge, at no cost.
    pub fn retire(&mut self, a: usize, b: usize) {
        debug_assert_eq!(self.mate[a], b, "only a matched pair retires");
        for x in [a, b] {
            if self.inb[x] != x {
                let top = self.inb[x];
                self.dissolve(top);
            }
        }
        if self.mate[a] != b {
            // (Not reached by the Dutch procedure; kept total.)
            for x in [a, b] {
                let m = self.mate[x];
                if m != NONE {
                    self.mate[m] = NONE;
                }
            }
            self.mate[a] = b;
            self.mate[b] = a;
        }
        self.retired[a] = true;
        self.retired[b] = true;
        let retired = &self.retired;
        self.live.retain(|&v| !retired[v]);
    }

    /// Turns a top-level blossom back into single vertices, moving its duals (and those of the
    /// blossoms inside it) onto the vertices; edges that stop being tight are unmatched.
    pub(super) fn dissolve(&mut self, top: usize) {
        let mut stack = vec![(top, Wide::ZERO)];
        let mut leaves = Vec::new();
        while let Some((s, acc)) = stack.pop() {
            if s < self.n {
                self.dual[s] = self.dual[s].add(&acc);
                self.inb[s] = s;
                self.parent[s] = NONE;
                leaves.push(s);
            } else {
                let acc2 = acc.add(&self.dual[s]);
                for c in std::mem::take(&mut self.childs[s]) {
                    stack.push((c, acc2));
                }
                self.release(s);
            }
        }
        for x in leaves {
            let m = self.mate[x];
            if m != NONE && !self.slack(x, m).is_zero() {
                self.mate[x] = NONE;
                self.mate[m] = NONE;
            }
        }
    }

    pub(super) fn release(&mut self, b: usize) {
        self.childs[b].clear();
        self.endps[b].clear();
        self.base[b] = NONE;
        self.parent[b] = NONE;
        self.label[b] = 0;
        self.labelend[b] = EMPTY;
        self.bestedge[b] = EMPTY;
        self.bestlist[b] = None;
        self.rep[b] = Vec::new();
        self.dual[b] = Wide::ZERO;
        self.unused.push(b);
    }

    pub(super) fn leaves(&self, b: usize, out: &mut Vec<usize>) {
        if b < self.n {
            out.push(b);
        } else {
            for &c in &self.childs[b] {
                self.leaves(c, out);
            }
        }
    }

    pub(super) fn start(&mut self) {
        let n = self.n;
        for v in 0..n {
            let mut best = Wide::ZERO;
            for x in 0..n {
                if x != v {
                    let w = *self.weight2(v, x);
                    if w > best {
                        best = w;
                    }
                }
            }
            // dual = max w2 / 2 (w2 is even), so every slack is >= 0.
            self.dual[v] = best.half();
        }
        for v in 0..n {
            if self.mate[v] != NONE {
                continue;
            }
            for x in 0..n {
                if x != v && self.mate[x] == NONE && self.tight(v, x) {
                    self.mate[v] = x;
                    self.mate[x] = v;
                    break;
                }
            }
        }
        self.started = true;
    }

    /// Starts over from the given vertex duals (in stored-weight units: `y(a) + y(b) >= w2(a, b)`
    /// on every present edge) instead of from the present ones: every blossom is dissolved and
    /// only matched edges that are tight under the new duals are kept. A vertex given `None` gets
    /// the least dual that keeps its edges feasible. Duals that make most edges tight (weights
    /// that are a sum of vertex potentials, as before the first bracket) let the greedy start
    /// match nearly every vertex, where the default start (half the heaviest edge) leaves a
    /// stage per pair. Returns false, changing nothing, when the duals are not feasible.
    #[cfg(test)]
    pub fn restart_from(&mut self, duals: &[Option<Wide<N>>]) -> bool {
        self.restart(duals, true)
    }

    /// `restart_from` with duals the caller knows to be feasible (checked in debug builds only):
    /// the check reads every pair, seconds on a field of 10,000.
    pub fn restart_from_feasible(&mut self, duals: &[Option<Wide<N>>]) {
        let feasible = self.restart(duals, cfg!(debug_assertions));
        debug_assert!(feasible, "the duals given as feasible are not");
    }

    pub(super) fn restart(&mut self, duals: &[Option<Wide<N>>], check: bool) -> bool {
        let n = self.n;
        let mut y: Vec<Wide<N>> = duals.iter().map(|d| d.unwrap_or(Wide::ZERO)).collect();
        for v in 0..n {
            if duals[v].is_some() || self.retired[v] {
                continue;
            }
            let mut best: Option<Wide<N>> = None;
            for &x in &self.live {
                let w = self.weight2(v, x);
                if x == v || w.is_zero() {
                    continue;
                }
                let Some(dx) = duals[x] else {
                    return false;
                };
                let need = w.sub(&dx);
                if best.is_none_or(|b| need > b) {
                    best = Some(need);
                }
            }
            y[v] = best.unwrap_or(Wide::ZERO);
        }
        if check {
            for (i, &a) in self.live.iter().enumerate() {
                for &b in &self.live[..i] {
                    let w = self.weight2(a, b);
                    if !w.is_zero() && y[a].add_sub(&y[b], w).is_negative() {
                        return false;
                    }
                }
            }
        }
        for b in n..2 * n {
            if self.base[b] != NONE {
                self.release(b);
            }
        }
        self.needs_restart = false;
        for (v, yv) in y.into_iter().enumerate() {
            self.inb[v] = v;
            self.parent[v] = NONE;
            if !self.retired[v] {
                self.dual[v] = yv;
            }
        }
        for &v in &self.live {
            let m = self.mate[v];
            if m != NONE && (self.weight2(v, m).is_zero() || !self.slack(v, m).is_zero()) {
                self.mate[v] = NONE;
                self.mate[m] = NONE;
            }
        }
        self.started = true;
        true
    }

    /// Checks the linear-programming certificate of optimality: every vertex matched, every
    /// blossom dual non-negative, every edge's slack (blossom duals included) non-negative, and
    /// every matched edge tight. Independent of how the solution was reached.
    #[cfg(test)]
    pub(super) fn certify(&self) {
        self.certify_except(NONE);
    }

    /// `certify`, leaving out the edges of vertex `skip` (whose weights are not set yet).
    #[cfg(test)]
    pub(super) fn certify_except(&self, skip: usize) {
        let n = self.n;
        let chain = |v: usize| -> Vec<usize> {
            let mut c = Vec::new();
            let mut b = self.parent[v];
            while b != NONE {
                c.push(b);
                b = self.parent[b];
            }
            c
        };
        for b in n..2 * n {
            if self.base[b] != NONE {
                assert!(
                    !self.dual[b].is_negative(),
                    "blossom {b} has a negative dual"
                );
            }
        }
        for a in 0..n {
            assert!(self.mate[a] != NONE, "vertex {a} unmatched");
            let ca = chain(a);
            for b in 0..a {
                if self.weight2(a, b).is_zero() || a == skip || b == skip {
                    continue;
                }
                let mut s = self.slack(a, b);
                for x in chain(b) {
                    if ca.contains(&x) {
                        s = s.add(&self.dual[x]).add(&self.dual[x]);
                    }
                }
                assert!(!s.is_negative(), "edge {a}-{b} has negative slack");
                if self.mate[a] == b {
                    assert!(s.is_zero(), "matched edge {a}-{b} is not tight");
                }
            }
        }
    }

    #[cfg(test)]
    pub(super) fn check(&self) {
        for b in self.n..2 * self.n {
            if self.base[b] == NONE {
                assert!(self.unused.contains(&b), "blossom {b} lost");
                continue;
            }
            assert!(!self.unused.contains(&b), "blossom {b} in use and free");
            if self.parent[b] != NONE {
                assert!(self.childs[self.parent[b]].contains(&b), "orphan {b}");
            }
            let mut ls = Vec::new();
            self.leaves(b, &mut ls);
            let mut top = b;
            while self.parent[top] != NONE {
                top = self.parent[top];
            }
            for v in ls {
                assert_eq!(self.inb[v], top, "leaf {v} of {b}");
            }
        }
    }
}
