//! Maximum-cardinality matching in a general graph (Edmonds' blossom algorithm).
//!
//! The graph is implicit: an adjacency predicate over vertices `0..n`, because Swiss
//! compatibility graphs are nearly complete and listing their edges would cost O(n²) memory.
//! Vertices can be switched off and on, so the Dutch engine can ask "can everybody still be
//! paired if these two play each other?" with one or two augmentations instead of a fresh
//! matching.

const NONE: usize = usize::MAX;

/// A saved state of a [`Matcher`].
pub(crate) struct Snapshot {
    active: Vec<bool>,
    mate: Vec<usize>,
}

/// A matching over an implicit graph, with active and inactive vertices.
pub(crate) struct Matcher<F: Fn(usize, usize) -> bool> {
    adj: F,
    active: Vec<bool>,
    mate: Vec<usize>,
    // BFS scratch space, reused between searches.
    parent: Vec<usize>,
    base: Vec<usize>,
    used: Vec<bool>,
    blossom: Vec<bool>,
    seen: Vec<bool>,
    queue: Vec<usize>,
}

impl<F: Fn(usize, usize) -> bool> Matcher<F> {
    /// A matcher on vertices `0..n`, all active and unmatched.
    pub(crate) fn new(n: usize, adj: F) -> Self {
        Matcher {
            adj,
            active: vec![true; n],
            mate: vec![NONE; n],
            parent: vec![NONE; n],
            base: (0..n).collect(),
            used: vec![false; n],
            blossom: vec![false; n],
            seen: vec![false; n],
            queue: Vec::with_capacity(n),
        }
    }

    pub(crate) fn len(&self) -> usize {
        self.mate.len()
    }

    pub(crate) fn mate(&self, v: usize) -> Option<usize> {
        (self.mate[v] != NONE).then_some(self.mate[v])
    }

    pub(crate) fn is_active(&self, v: usize) -> bool {
        self.active[v]
    }

    /// The current state (active vertices and the matching), to come back to with `restore`.
    pub(crate) fn snapshot(&self) -> Snapshot {
        Snapshot {
            active: self.active.clone(),
            mate: self.mate.clone(),
        }
    }

    pub(crate) fn restore(&mut self, s: Snapshot) {
        self.active = s.active;
        self.mate = s.mate;
    }

    /// Switches a vertex off (unmatching its mate, which is returned) or on.
    pub(crate) fn set_active(&mut self, v: usize, on: bool) -> Option<usize> {
        self.active[v] = on;
        let m = self.mate[v];
        if m != NONE {
            self.mate[v] = NONE;
            self.mate[m] = NONE;
            return Some(m);
        }
        None
    }

    /// Matches two active vertices directly (they must be free and adjacent).
    pub(crate) fn join(&mut self, a: usize, b: usize) {
        self.mate[a] = b;
        self.mate[b] = a;
    }

    /// Greedy start, then augmenting paths from every free vertex; returns the number of free
    /// active vertices left (0 means a perfect matching of the active vertices).
    pub(crate) fn maximize(&mut self) -> usize {
        let n = self.len();
        for v in 0..n {
            if !self.active[v] || self.mate[v] != NONE {
                continue;
            }
            for u in v + 1..n {
                if self.active[u] && self.mate[u] == NONE && (self.adj)(v, u) {
                    self.join(v, u);
                    break;
                }
            }
        }
        let mut free = 0;
        for v in 0..n {
            if self.active[v] && self.mate[v] == NONE && !self.augment(v) {
                free += 1;
            }
        }
        free
    }

    /// Tries to match the free vertex `root` by an augmenting path.
    pub(crate) fn augment(&mut self, root: usize) -> bool {
        if !self.active[root] || self.mate[root] != NONE {
            return self.mate[root] != NONE;
        }
        // Short augmenting paths first: in nearly complete graphs they almost always exist, and
        // the blossom search costs O(n) per contracted blossom.
        let n = self.len();
        let free: Vec<usize> = (0..n)
            .filter(|&u| u != root && self.active[u] && self.mate[u] == NONE)
            .collect();
        if let Some(&u) = free.iter().find(|&&u| (self.adj)(root, u)) {
            self.join(root, u);
            return true;
        }
        for u in 0..n {
            let w = self.mate[u];
            if u == root || !self.active[u] || w == NONE || !(self.adj)(root, u) {
                continue;
            }
            if let Some(&x) = free.iter().find(|&&x| x != u && (self.adj)(w, x)) {
                self.join(root, u);
                self.join(w, x);
                return true;
            }
        }
        match self.find_path(root) {
            Some(mut v) => {
                while v != NONE {
                    let pv = self.parent[v];
                    let ppv = self.mate[pv];
                    self.mate[v] = pv;
                    self.mate[pv] = v;
                    v = ppv;
                }
                true
            }
            None => false,
        }
    }

    fn lca(&mut self, mut a: usize, mut b: usize) -> usize {
        self.seen.iter_mut().for_each(|s| *s = false);
        loop {
            a = self.base[a];
            self.seen[a] = true;
            if self.mate[a] == NONE {
                break;
            }
            a = self.parent[self.mate[a]];
        }
        loop {
            b = self.base[b];
            if self.seen[b] {
                return b;
            }
            b = self.parent[self.mate[b]];
        }
    }

    fn mark_path(&mut self, mut v: usize, b: usize, mut child: usize) {
        while self.base[v] != b {
            self.blossom[self.base[v]] = true;
            self.blossom[self.base[self.mate[v]]] = true;
            self.parent[v] = child;
            child = self.mate[v];
            v = self.parent[self.mate[v]];
        }
    }

    fn find_path(&mut self, root: usize) -> Option<usize> {
        let n = self.len();
        for i in 0..n {
            self.used[i] = false;
            self.parent[i] = NONE;
            self.base[i] = i;
        }
        self.queue.clear();
        self.used[root] = true;
        self.queue.push(root);
        let mut head = 0;
        while head < self.queue.len() {
            let v = self.queue[head];
            head += 1;
            for to in 0..n {
                if !self.active[to] || to == v || !(self.adj)(v, to) {
                    continue;
                }
                if self.base[v] == self.base[to] || self.mate[v] == to {
                    continue;
                }
                if to == root || (self.mate[to] != NONE && self.parent[self.mate[to]] != NONE) {
                    let cur = self.lca(v, to);
                    self.blossom.iter_mut().for_each(|b| *b = false);
                    self.mark_path(v, cur, to);
                    self.mark_path(to, cur, v);
                    for i in 0..n {
                        if self.active[i] && self.blossom[self.base[i]] {
                            self.base[i] = cur;
                            if !self.used[i] {
                                self.used[i] = true;
                                self.queue.push(i);
                            }
                        }
                    }
                } else if self.parent[to] == NONE {
                    self.parent[to] = v;
                    if self.mate[to] == NONE {
                        return Some(to);
                    }
                    let m = self.mate[to];
                    self.used[m] = true;
                    self.queue.push(m);
                }
            }
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Brute force: the largest matching of a small graph.
    fn brute(n: usize, adj: &dyn Fn(usize, usize) -> bool) -> usize {
        fn go(
            v: usize,
            n: usize,
            used: &mut Vec<bool>,
            adj: &dyn Fn(usize, usize) -> bool,
        ) -> usize {
            if v == n {
                return 0;
            }
            if used[v] {
                return go(v + 1, n, used, adj);
            }
            let mut best = go(v + 1, n, used, adj);
            used[v] = true;
            for u in v + 1..n {
                if !used[u] && adj(v, u) {
                    used[u] = true;
                    best = best.max(1 + go(v + 1, n, used, adj));
                    used[u] = false;
                }
            }
            used[v] = false;
            best
        }
        go(0, n, &mut vec![false; n], adj)
    }

    #[test]
    #[allow(clippy::needless_range_loop)] // a symmetric adjacency matrix reads best with indices
    fn agrees_with_brute_force_on_random_graphs() {
        let mut seed = 0x1234_5678_u64;
        let mut next = || {
            seed = seed.wrapping_add(0x9E37_79B9_7F4A_7C15);
            let mut z = seed;
            z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
            z ^ (z >> 31)
        };
        for _ in 0..400 {
            let n = (next() % 11) as usize + 1;
            let density = next() % 100;
            let mut m = vec![vec![false; n]; n];
            for i in 0..n {
                for j in i + 1..n {
                    let e = next() % 100 < density;
                    m[i][j] = e;
                    m[j][i] = e;
                }
            }
            let adj = |a: usize, b: usize| m[a][b];
            let mut matcher = Matcher::new(n, adj);
            let free = matcher.maximize();
            assert_eq!((n - free) / 2, brute(n, &adj), "graph {m:?}");
        }
    }
}
