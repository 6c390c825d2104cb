//! Maximum-weight perfect matching on a dense graph (Edmonds' primal-dual blossom algorithm, in
//! the O(n³) form with per-blossom best edges), kept optimal while edge weights change.
//!
//! The Dutch procedure asks "is there an optimal pairing in which ..." hundreds of times a round,
//! each time after changing the weights of a few edges. Solving from scratch each time would cost
//! O(n³) per question, so the matcher is *warm-started*: a weight change keeps the duals feasible
//! (raising a vertex dual where an edge became too heavy, dissolving a blossom whose inside edges
//! changed into its vertices' duals) and unmatches only the edges that stop being tight; the next
//! `solve` grows alternating trees from the few free vertices only. A stage goes on after an
//! augmentation with the trees it did not touch (their labels stay valid), as long as it finds
//! augmenting paths over tight edges; only a dual change needs a fresh stage. After a bracket's
//! weights are set, a round's hundreds of short augmenting paths then cost a few stages instead
//! of one stage (and a rescan of every free vertex's row) each.
//!
//! Conventions: a stored weight `w2` is twice the edge weight plus two (so every present edge,
//! even one of weight zero, is non-zero; a constant added to every edge does not change which
//! perfect matching is best). Slack of an edge between two top-level blossoms is
//! `dual[a] + dual[b] - w2`; inside a blossom the blossom duals add `2 · z` each. Vertices of one
//! alternating forest share the parity of their duals (checked at every stage start), so S–S
//! slacks are even and every dual stays an integer.
//!
//! The crate's other Edmonds matcher, in `matchmaking.rs`, is a plain cold solve of a sparse
//! graph with `i64` weights that may leave vertices unmatched (a bot queue). This one needs
//! perfect matchings of a dense graph, weights wider than 64 bits, warm starts and retired
//! vertices; neither does the other's job without changing its cost or its tie-breaking.

use super::wide::Wide;

const NONE: usize = usize::MAX;
const EMPTY: (usize, usize) = (NONE, NONE);
/// The mate of a vertex paired into the reservoir of parked vertices (see `solve_parked`).
const RES: usize = usize::MAX - 1;
/// The least number of leaves for which a blossom keeps its representatives (`Matcher::rep`):
/// below it, scanning the leaves' rows costs little more than building them. (Small in unit
/// tests, so that their random graphs exercise the representatives.)
const REP_MIN: usize = if cfg!(test) { 3 } else { 32 };
/// No representative (`Matcher::rep`).
const NO_REP: (u32, u32) = (u32::MAX, 0);

pub(crate) struct Matcher<const N: usize> {
    n: usize,
    /// The stored weight of every pair, as an index into `values` (0: no edge). A row is then
    /// 4 bytes a vertex instead of `8 N`, so a stage's scans stream a few kilobytes instead of
    /// a hundred (the table no longer fits in cache at 1,000 players otherwise), and the
    /// table fits in memory at 10,000 players.
    w2: Vec<u32>,
    /// Tiles a row of `w2`, and log2 of a tile's width (see `at`).
    tiles: usize,
    tile_bits: u32,
    /// The distinct stored weights (index 0, no edge, is zero).
    values: Distinct<N>,
    mate: Vec<usize>,
    dual: Vec<Wide<N>>,
    parent: Vec<usize>,
    childs: Vec<Vec<usize>>,
    endps: Vec<Vec<(usize, usize)>>,
    base: Vec<usize>,
    inb: Vec<usize>,
    label: Vec<u8>,
    labelend: Vec<(usize, usize)>,
    bestedge: Vec<(usize, usize)>,
    /// The weight (`w2`) of `bestedge`, so that its slack is read without a trip to the table.
    bestw: Vec<Wide<N>>,
    /// `bestedge`'s slack, valid where `bestok` (until the duals change).
    bestslack: Vec<Wide<N>>,
    bestok: Vec<bool>,
    /// For an S-blossom formed in this stage: its least-slack edge to each other S-blossom
    /// (van Rantwijk's `blossombestedges`), so that forming a blossom merges its children's lists
    /// instead of rescanning every leaf's neighbours.
    bestlist: Vec<Option<Vec<(usize, usize, u32)>>>,
    /// Scratch for `add_blossom`: the best edge found to each top-level blossom, and its slack.
    bestto: Vec<(usize, usize, Wide<N>, u32)>,
    /// For a blossom of `REP_MIN` leaves or more once a stage has labelled it S: for each vertex
    /// outside it, the leaf with the least slack to it and that edge's weight index (`NO_REP`:
    /// none has an edge to it; the index saves a trip to a row of its own for each vertex).
    /// All the leaves of a blossom move their duals together (nested or not), and a change of a
    /// leaf's weights dissolves the blossom, so the choice stays right for as long as the
    /// blossom lasts, across stages: a stage that labels it S again scans one edge per vertex
    /// instead of every leaf's row (see `scan_rep`). A parent's are made from its
    /// sub-blossoms', which are then dropped (see `build_rep`).
    rep: Vec<Vec<(u32, u32)>>,
    /// Scratch for `build_rep`: the slack of each vertex's representative.
    rep_slack: Vec<Wide<N>>,
    /// The blossom `scan_rep` is scanning (its representatives are kept meanwhile).
    scanning: usize,
    /// Every index (vertex or blossom) given a label in this stage, perhaps more than once or
    /// unlabelled since: `augment_dropping` finds the labelled top-level blossoms here instead
    /// of among all `2 n`.
    labelled: Vec<usize>,
    /// Whether an index is in `labelled` (each is there once).
    listed: Vec<bool>,
    /// Scratch for `root_of` (all `NONE` between uses).
    memo: Vec<usize>,
    /// Set by a `fill` after a solve: the duals and matching are stale until a restart.
    needs_restart: bool,
    unused: Vec<usize>,
    queue: Vec<usize>,
    started: bool,
    /// Set in a stage after its first augmentation: the search goes on in the other trees over
    /// tight edges only, keeping no best edges, and the stage ends instead of changing the duals
    /// (the best edges, which a dual change needs, may point into the trees it dropped).
    /// (Finding the first path over tight edges alone as well, and computing best edges only
    /// when a dual change is needed, measured no faster: the forest is rescanned then.)
    tight_only: bool,
    /// The vertices still in play (not retired), the only ones a stage looks at.
    live: Vec<usize>,
    retired: Vec<bool>,
    /// Scratch for `forced_mate`: the changed edge weights, and where each vertex's is in
    /// `row` (one more; 0 between uses).
    row: Vec<Wide<N>>,
    changed: Vec<u32>,
    /// The reservoir during `solve_parked`: parked vertices, out of `live`, in matched pairs.
    parked_list: Vec<usize>,
    /// During `solve_parked`, a live vertex's least dual while it may meet a parked vertex (the
    /// weight of that edge less the parked end's dual, the same for every parked vertex it may
    /// meet). A vertex whose dual equals it and that has no live mate is paired into the
    /// reservoir (mate `RES`).
    floor: Vec<Option<Wide<N>>>,
}

/// Distinct wide integers, each given a 4-byte index once (interning), so that a table of
/// them takes 4 bytes an entry; index 0 is reserved for "none" (its value reads as zero).
pub(crate) struct Distinct<const N: usize> {
    values: Vec<Wide<N>>,
    /// The lowest word of each value (for the scans that only look for tight edges).
    lows: Vec<u64>,
    ids: std::collections::HashMap<Wide<N>, u32, WordHash>,
    /// The index last asked for (0: none): runs of equal weights skip the hash.
    last: u32,
}

impl<const N: usize> Distinct<N> {
    pub fn new() -> Self {
        Distinct {
            values: vec![Wide::ZERO],
            lows: vec![0],
            ids: std::collections::HashMap::default(),
            last: 0,
        }
    }

    /// The index of `w` (never 0), given it now if it has none yet.
    pub fn id(&mut self, w: Wide<N>) -> u32 {
        if self.last != 0 && self.values[self.last as usize] == w {
            return self.last;
        }
        if let Some(&id) = self.ids.get(&w) {
            self.last = id;
            return id;
        }
        let id = u32::try_from(self.values.len()).expect("fewer than 2^32 distinct weights");
        self.values.push(w);
        self.lows.push(w.0[0]);
        self.ids.insert(w, id);
        self.last = id;
        id
    }

    /// The value of index `id` (zero for 0).
    #[inline]
    pub fn get(&self, id: u32) -> &Wide<N> {
        &self.values[id as usize]
    }

    /// The lowest word of the value of index `id`.
    #[inline]
    pub fn low(&self, id: u32) -> u64 {
        self.lows[id as usize]
    }

    /// One more than the greatest index given.
    pub fn len(&self) -> usize {
        self.values.len()
    }
}

/// Stored-weight indices (`Matcher::stored`) by a caller's 64-bit name for the weight, for
/// setting many edges to few distinct weights that the caller can name more cheaply than by
/// hashing the weight itself (a base weight's index and an addend's, say).
pub(crate) struct Memo(std::collections::HashMap<u64, u32, WordHash>);

impl Memo {
    pub fn new() -> Self {
        Memo(std::collections::HashMap::default())
    }

    /// The stored index of the weight named `key`, made by `make` the first time.
    pub fn stored<const N: usize>(
        &mut self,
        m: &mut Matcher<N>,
        key: u64,
        make: impl FnOnce() -> Option<Wide<N>>,
    ) -> u32 {
        *self.0.entry(key).or_insert_with(|| m.stored(make()))
    }
}

/// A multiply-rotate hash of 64-bit words for interning weights (SipHash, the default, was a
/// few per cent of a round; the keys are not adversarial: the engine makes them).
#[derive(Default, Clone, Copy)]
struct WordHash;

impl std::hash::BuildHasher for WordHash {
    type Hasher = WordHasher;
    fn build_hasher(&self) -> WordHasher {
        WordHasher(0)
    }
}

struct WordHasher(u64);

impl std::hash::Hasher for WordHasher {
    fn write(&mut self, bytes: &[u8]) {
        for chunk in bytes.chunks(8) {
            let mut word = [0u8; 8];
            word[..chunk.len()].copy_from_slice(chunk);
            self.write_u64(u64::from_le_bytes(word));
        }
    }
    fn write_u64(&mut self, x: u64) {
        self.0 = (self.0.rotate_left(5) ^ x).wrapping_mul(0x51_7c_c1_b7_27_22_0a_95);
    }
    fn finish(&self) -> u64 {
        // The product's high bits fold into the low ones, which pick the bucket: a key that
        // differs from another only in its high bits must not land in the same bucket.
        self.0 ^ (self.0 >> 32)
    }
}

/// No perfect matching exists on the present edges.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct NoPerfectMatching;

impl<const N: usize> Matcher<N> {
    pub fn new(n: usize) -> Self {
        let tile_bits = if n > 4096 {
            8
        } else {
            n.next_power_of_two().trailing_zeros()
        };
        Self::with_tile_bits(n, tile_bits)
    }

    /// A matcher whose weight table has tiles `2^tile_bits` pairs wide (see `at`).
    fn with_tile_bits(n: usize, tile_bits: u32) -> Self {
        let tiles = n.div_ceil(1 << tile_bits);
        Matcher {
            n,
            w2: vec![0; (n.div_ceil(16) << 4) * (tiles << tile_bits)],
            tiles,
            tile_bits,
            values: Distinct::new(),
            mate: vec![NONE; n],
            dual: vec![Wide::ZERO; 2 * n],
            parent: vec![NONE; 2 * n],
            childs: vec![Vec::new(); 2 * n],
            endps: vec![Vec::new(); 2 * n],
            base: (0..2 * n).map(|b| if b < n { b } else { NONE }).collect(),
            inb: (0..n).collect(),
            label: vec![0; 2 * n],
            labelend: vec![EMPTY; 2 * n],
            bestedge: vec![EMPTY; 2 * n],
            bestw: vec![Wide::ZERO; 2 * n],
            bestslack: vec![Wide::ZERO; 2 * n],
            bestok: vec![false; 2 * n],
            bestlist: vec![None; 2 * n],
            bestto: vec![(NONE, NONE, Wide::ZERO, 0); 2 * n],
            rep: vec![Vec::new(); 2 * n],
            rep_slack: Vec::new(),
            scanning: NONE,
            labelled: Vec::new(),
            listed: vec![false; 2 * n],
            memo: Vec::new(),
            needs_restart: false,
            unused: (n..2 * n).rev().collect(),
            queue: Vec::new(),
            started: false,
            tight_only: false,
            live: (0..n).collect(),
            retired: vec![false; n],
            row: Vec::new(),
            changed: vec![0; n],
            parked_list: Vec::new(),
            floor: vec![None; n],
        }
    }

    /// The vertex matched to `v`, if any.
    pub fn mate(&self, v: usize) -> Option<usize> {
        let m = self.mate[v];
        (m != NONE).then_some(m)
    }

    /// Where the pair `a`–`b` is in `w2`: tiles of 16 rows of `2^tile_bits` pairs. On large
    /// fields a tile is 16 × 256 pairs (a tile row is 16 cache lines, a tile 16 KiB), so that
    /// the column half of a symmetric write lands on the same few pages for 16 consecutive
    /// vertices instead of 16 (the table is 400 MB at 10,000 players, and setting a bracket's
    /// weights was bound by TLB misses: round 1 38 → 27 s with 16 × 16 tiles), while a row scan
    /// still reads 1 KiB runs (16 × 16 tiles made it a cache line every KiB: 10,000 players,
    /// rounds 1–6 143 → 117 s with 16 × 256); on small ones a tile is 16 whole rows, i.e. plain
    /// row-major order, which scans faster (8 % at 1,000 players).
    #[inline]
    fn at(&self, a: usize, b: usize) -> usize {
        self.row_at(a) + self.col_at(b)
    }

    /// The part of `at` that depends on the row.
    #[inline]
    fn row_at(&self, a: usize) -> usize {
        (((a >> 4) * self.tiles) << (self.tile_bits + 4)) | ((a & 15) << self.tile_bits)
    }

    /// The part of `at` that depends on the column.
    #[inline]
    fn col_at(&self, b: usize) -> usize {
        Self::column(self.tile_bits, b)
    }

    #[inline]
    fn column(tile_bits: u32, b: usize) -> usize {
        ((b >> tile_bits) << (tile_bits + 4)) | (b & ((1 << tile_bits) - 1))
    }

    fn weight2(&self, a: usize, b: usize) -> &Wide<N> {
        self.values.get(self.w2[self.at(a, b)])
    }

    #[inline]
    fn slack(&self, a: usize, b: usize) -> Wide<N> {
        self.dual[a].add_sub(&self.dual[b], self.weight2(a, b))
    }

    /// Whether `a`–`b` is an edge of zero slack (between single vertices).
    fn tight(&self, a: usize, b: usize) -> bool {
        !self.weight2(a, b).is_zero() && self.slack(a, b).is_zero()
    }

    /// Sets the weight of edge `a`–`b` (`None`: no edge). Keeps the current solution usable as
    /// the start of the next `solve`.
    pub fn set(&mut self, a: usize, b: usize, weight: Option<Wide<N>>) {
        let id = self.stored(weight);
        self.set_stored(a, b, id);
    }

    /// Sets the weight of every pair at once, by its `stored` index `id(a, b)` (the same both
    /// ways), in the table's own order: the whole table streams, where setting pairs one by one
    /// writes each pair's mirror a row away (10,000 players: 50 million scattered writes). It
    /// keeps no solution usable: after a solve, `restart_from_feasible` must come before the
    /// next one.
    pub fn fill(&mut self, mut id: impl FnMut(usize, usize) -> u32) {
        debug_assert_eq!(self.live.len(), self.n, "a vertex retired");
        for a in 0..self.n {
            let row = self.row_at(a);
            for b in 0..self.n {
                let at = row + self.col_at(b);
                self.w2[at] = if a == b { 0 } else { id(a, b) };
            }
        }
        self.needs_restart = self.started;
    }

    /// The stored index of the pair `a`–`b` (see `stored`).
    #[cfg(debug_assertions)]
    pub fn stored_at(&self, a: usize, b: usize) -> u32 {
        self.w2[self.at(a, b)]
    }

    /// The index of a weight's stored form (see the module's conventions) for `set_stored`;
    /// 0 for no edge.
    pub fn stored(&mut self, weight: Option<Wide<N>>) -> u32 {
        match weight {
            Some(c) => self.values.id(c.add_u64(1).add(&c.add_u64(1))),
            None => 0,
        }
    }

    /// `set` with the weight given by its `stored` index.
    pub fn set_stored(&mut self, a: usize, b: usize, id: u32) {
        if self.retired[a] || self.retired[b] {
            debug_assert!(false, "edge {a}-{b} of a retired vertex set");
            return;
        }
        let i = self.at(a, b);
        if self.w2[i] == id {
            return;
        }
        self.w2[i] = id;
        let j = self.at(b, a);
        self.w2[j] = id;
        if !self.started {
            return;
        }
        for x in [a, b] {
            if self.inb[x] != x {
                let top = self.inb[x];
                self.dissolve(top);
            }
        }
        // Only the edge itself and the matched edge of an endpoint whose dual rises can stop
        // being tight (`dissolve` sees to the edges of the blossoms it dissolves).
        let mut raised = NONE;
        if id != 0 {
            let s = self.slack(a, b);
            if s.is_negative() {
                // Raise a free endpoint's dual if there is one: nothing gets unmatched then.
                let x = if self.mate[a] == NONE || self.mate[a] == b {
                    a
                } else if self.mate[b] == NONE {
                    b
                } else {
                    a
                };
                self.dual[x] = self.dual[x].sub(&s);
                raised = x;
            }
        }
        for x in [a, b] {
            let m = self.mate[x];
            if m != NONE
                && (m == a || m == b || x == raised)
                && (self.weight2(x, m).is_zero() || !self.slack(x, m).is_zero())
            {
                self.mate[x] = NONE;
                self.mate[m] = NONE;
            }
        }
    }

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
    fn dissolve(&mut self, top: usize) {
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

    fn release(&mut self, b: usize) {
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

    fn leaves(&self, b: usize, out: &mut Vec<usize>) {
        if b < self.n {
            out.push(b);
        } else {
            for &c in &self.childs[b] {
                self.leaves(c, out);
            }
        }
    }

    fn start(&mut self) {
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

    fn restart(&mut self, duals: &[Option<Wide<N>>], check: bool) -> bool {
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
    fn certify(&self) {
        self.certify_except(NONE);
    }

    /// `certify`, leaving out the edges of vertex `skip` (whose weights are not set yet).
    #[cfg(test)]
    fn certify_except(&self, skip: usize) {
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
    fn check(&self) {
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
    fn greedy(&mut self) {
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

    fn top_blossoms(&self) -> Vec<usize> {
        let mut tops: Vec<usize> = (0..self.n).filter(|&v| self.inb[v] == v).collect();
        tops.extend(
            (self.n..2 * self.n).filter(|&b| self.base[b] != NONE && self.parent[b] == NONE),
        );
        tops
    }

    /// Gives every free root the same dual parity, so that S–S slacks are even.
    fn align_roots(&mut self) {
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

    fn stage(&mut self) -> Result<(), NoPerfectMatching> {
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
            let Some(delta) = delta else {
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
                    self.float_and_drop(floats);
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
                _ => self.expand(tblossom, false),
            }
        }
    }

    /// Looks at the edge `v`–`w` (weight index `id`) from the S-vertex `v` in a stage: labels,
    /// forms a blossom or augments over it if it is tight, else records it as a best edge.
    /// `bv` and `bw` are their top-level blossoms (different). Returns whether it augmented
    /// (the scan of `v` ends: its tree's labels are gone).
    #[inline(always)]
    fn scan_edge(&mut self, v: usize, w: usize, bv: usize, bw: usize, id: u32) -> bool {
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
    fn scan_tight(&mut self, v: usize) {
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
    fn scan_rep(&mut self, b: usize) {
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
    fn build_rep(&mut self, b: usize) {
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
    fn top_of(&self, x: usize) -> usize {
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
    fn root_of(&self, b: usize, memo: &mut [usize], touched: &mut Vec<usize>) -> usize {
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
    fn augment_and_drop(&mut self, v: usize, w: usize) {
        let blossoms = [self.inb[v], self.inb[w]];
        self.augment_dropping(&blossoms, |me| me.augment(v, w));
    }

    /// Runs `augment`, which flips paths in the trees of `blossoms`, drops those trees' labels
    /// (see `augment_and_drop`), and leaves the stage to the tight edges (`tight_only`).
    fn augment_dropping(&mut self, blossoms: &[usize], augment: impl FnOnce(&mut Self)) {
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
    fn list_labelled(&mut self, b: usize) {
        if !self.listed[b] {
            self.listed[b] = true;
            self.labelled.push(b);
        }
    }

    /// Whether `b` (a vertex or a blossom in use) is a top-level blossom (see `top_blossoms`).
    fn is_top(&self, b: usize) -> bool {
        if b < self.n {
            self.inb[b] == b
        } else {
            self.base[b] != NONE && self.parent[b] == NONE
        }
    }

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
    fn at_floor(&self, v: usize) -> bool {
        self.floor[v].is_some_and(|f| f == self.dual[v])
    }

    /// Pairs the S-vertex `v`, whose dual is at its floor, into the reservoir: the path from its
    /// tree's root to `v` is flipped (an augmenting path that ends in the reservoir) and the
    /// tree's labels are dropped, as in `augment_and_drop`.
    fn float_and_drop(&mut self, v: usize) {
        let blossoms = [self.inb[v]];
        self.augment_dropping(&blossoms, |me| me.augment_side(v, RES));
    }

    /// Parks the matched pairs of single vertices from `from` on whose duals are their
    /// potentials, and sets the live vertices' floors (see `solve_parked`).
    fn park(&mut self, from: usize, phi: &[Wide<N>]) {
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
    fn unpark(&mut self) {
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

    /// Clears the stage's labels and best edges of blossom `b`, its sub-blossoms and vertices.
    fn unlabel(&mut self, b: usize) {
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

    fn end_stage(&mut self) {
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

    fn assign_label(&mut self, w: usize, t: u8, p: usize) {
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

    fn scan_blossom(&mut self, v: usize, w: usize) -> usize {
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

    fn add_blossom(&mut self, base: usize, v: usize, w: usize) {
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
        // leaves' edges scanned.
        let mut touched: Vec<usize> = Vec::new();
        for c in self.childs[b].clone() {
            match self.bestlist[c].take() {
                Some(list) => {
                    for (x, y, id) in list {
                        self.consider_best(b, x, y, id, &mut touched);
                    }
                }
                None if !self.rep[c].is_empty() => {
                    for k in 0..self.live.len() {
                        let w = self.live[k];
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
                        for k in 0..self.live.len() {
                            let y = self.live[k];
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
    fn cached_best_slack(&mut self, x: usize) -> Wide<N> {
        if !self.bestok[x] {
            self.bestslack[x] = self.best_slack(x);
            self.bestok[x] = true;
        }
        self.bestslack[x]
    }

    /// The slack of `bestedge[x]` (which must be set).
    #[inline]
    fn best_slack(&self, x: usize) -> Wide<N> {
        let (a, b) = self.bestedge[x];
        self.dual[a].add_sub(&self.dual[b], &self.bestw[x])
    }

    /// Records edge `x`–`y` (an edge of blossom `b`, either way round) as `b`'s best edge to the
    /// S-blossom at its other end if it has less slack than the one recorded.
    /// `id` is the edge's weight index (the table is not read again).
    fn consider_best(&mut self, b: usize, x: usize, y: usize, id: u32, touched: &mut Vec<usize>) {
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

    fn expand(&mut self, b: usize, endstage: bool) {
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

    fn augment_blossom(&mut self, b: usize, v: usize) {
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

    fn augment(&mut self, v: usize, w: usize) {
        for (s0, p0) in [(v, w), (w, v)] {
            self.augment_side(s0, p0);
        }
    }

    /// Flips the alternating path from `s0` to its tree's root, `s0` taking `p0` as its mate.
    fn augment_side(&mut self, s0: usize, p0: usize) {
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

#[cfg(test)]
mod tests {
    use super::*;

    use hanniball_rng::Rng;

    #[allow(clippy::collapsible_if)]
    /// The best perfect matching's weight by dynamic programming over vertex subsets.
    fn best(n: usize, w: &[Vec<Option<u64>>]) -> Option<u64> {
        let full = (1usize << n) - 1;
        // f[mask]: best weight of a perfect matching of the vertices in `mask`.
        let mut f: Vec<Option<u64>> = vec![None; 1 << n];
        f[0] = Some(0);
        for mask in 1..=full {
            if mask.count_ones() % 2 == 1 {
                continue;
            }
            let a = mask.trailing_zeros() as usize;
            let rest = mask & !(1 << a);
            let mut best = None;
            for b in a + 1..n {
                if rest & (1 << b) != 0 {
                    if let (Some(c), Some(r)) = (w[a][b], f[rest & !(1 << b)]) {
                        best = best.max(Some(r + c));
                    }
                }
            }
            f[mask] = best;
        }
        f[full]
    }

    #[test]
    fn warm_started_matching_stays_optimal_on_random_changes() {
        random_changes(7, 600, 2, 12, &[3, 10, 1000]);
    }

    /// Graphs of up to 46 vertices, many with few distinct weights (hence many blossoms), checked by the optimality
    /// certificate after every warm-started solve.
    #[test]
    fn warm_started_solutions_carry_an_optimality_certificate() {
        let mut rng = Rng::new(23);
        for case in 0..3000 {
            let n = 6 + 2 * (rng.next_u64() % 21) as usize;
            let range = [2u64, 3, 6, 40, 1000][case % 5];
            let mut m = Matcher::<2>::new(n);
            for a in 0..n {
                // A perfect matching always exists: 2k-(2k+1) edges are never removed.
                m.set(a, a ^ 1, Some(Wide::from_u64(0)));
                for b in a + 1..n {
                    if b != (a ^ 1) && rng.next_u64() % 100 < 70 {
                        m.set(a, b, Some(Wide::from_u64(rng.next_u64() % range)));
                    }
                }
            }
            for step in 0..12 {
                assert!(m.solve().is_ok(), "case {case} step {step}");
                m.certify();
                let v = (rng.next_u64() % n as u64) as usize;
                for x in 0..n {
                    if x != v && x != (v ^ 1) && rng.next_u64().is_multiple_of(3) {
                        let c = (!rng.next_u64().is_multiple_of(5))
                            .then(|| Wide::from_u64(rng.next_u64() % range));
                        m.set(v, x, c);
                    }
                }
            }
        }
    }

    /// A random graph on `n` vertices (edges 2k-(2k+1) always present, so a perfect matching
    /// exists; the others with probability `percent`), weights from `weight(rng, a, b)`, as a
    /// weight table and a matcher holding the same edges.
    #[allow(clippy::needless_range_loop)]
    fn random_graph(
        rng: &mut Rng,
        n: usize,
        percent: u64,
        mut weight: impl FnMut(&mut Rng, usize, usize) -> u64,
    ) -> (Vec<Vec<Option<u64>>>, Matcher<2>) {
        let mut w = vec![vec![None; n]; n];
        let mut m = Matcher::<2>::new(n);
        for a in 0..n {
            for b in a + 1..n {
                if b == (a ^ 1) || rng.next_u64() % 100 < percent {
                    let c = weight(rng, a, b);
                    w[a][b] = Some(c);
                    w[b][a] = Some(c);
                    m.set(a, b, Some(Wide::from_u64(c)));
                }
            }
        }
        (w, m)
    }

    /// The weight of the matcher's (perfect) matching in the table `w`.
    fn matched_weight(m: &Matcher<2>, w: &[Vec<Option<u64>>]) -> u64 {
        (0..w.len())
            .map(|a| {
                let b = m.mate(a).expect("perfect");
                if a < b { w[a][b].expect("an edge") } else { 0 }
            })
            .sum()
    }

    /// Restarting from given duals: potentials of weights that are (nearly) sums of vertex
    /// potentials are accepted and the solution is optimal (dynamic programming) with its
    /// certificate; infeasible duals are refused and change nothing.
    #[test]
    #[allow(clippy::needless_range_loop)]
    fn a_restart_from_potentials_solves_to_the_optimum() {
        let mut rng = Rng::new(41);
        let mut refused = 0;
        for case in 0..800 {
            let n = 4 + 2 * (rng.next_u64() % 5) as usize;
            let p: Vec<u64> = (0..n).map(|_| rng.next_u64() % 6).collect();
            // A potential sum, sometimes one more (a "pair of top scorers").
            let (w, mut m) = random_graph(&mut rng, n, 75, |rng, a, b| {
                p[a] + p[b] + u64::from(rng.next_u64() % 100 < 10)
            });
            // w2 = 2w + 2, so 2p + 2 covers the pure sums; 2p + 2 with one vertex None too.
            let mut duals: Vec<Option<Wide<2>>> =
                (0..n).map(|v| Some(Wide::from_u64(2 * p[v] + 2))).collect();
            if case % 4 == 0 {
                duals[n - 1] = None;
            }
            if case % 5 == 0 {
                // Too low for some edge: refused.
                duals[0] = Some(Wide::ZERO.sub_u64(1));
                assert!(
                    !m.restart_from(&duals),
                    "case {case}: infeasible duals accepted"
                );
                refused += 1;
                assert!(m.solve().is_ok());
                m.certify();
                continue;
            }
            assert!(
                m.restart_from(&duals),
                "case {case}: feasible duals refused"
            );
            assert!(m.solve().is_ok(), "case {case}");
            m.certify();
            assert_eq!(Some(matched_weight(&m, &w)), best(n, &w), "case {case}");
        }
        assert!(refused > 100);
    }

    /// Solving with the lower field parked: graphs whose edges with an end from `k` on are flat
    /// (a sum of two potentials, or absent; a "dummy" last vertex weighs 0 to everyone), the
    /// upper vertices' edges among themselves changed at random, then solved as `solve_parked`
    /// does, step by step. The relaxation parks pairs and pairs vertices into the reservoir
    /// often, and the final matching is optimal on the whole graph (dynamic programming) with
    /// its certificate.
    #[test]
    #[allow(clippy::needless_range_loop)]
    fn solving_with_the_lower_field_parked_is_optimal() {
        let mut rng = Rng::new(47);
        let (mut parked, mut floated) = (0, 0);
        for case in 0..700 {
            let n = 6 + 2 * (rng.next_u64() % 6) as usize;
            let dummy = case % 3 == 0;
            let players = if dummy { n - 1 } else { n };
            let k = 2 + (rng.next_u64() % (players as u64 - 3)) as usize;
            let p: Vec<u64> = (0..n).map(|_| rng.next_u64() % 5).collect();
            let (mut w, mut m) = random_graph(&mut rng, n, 80, |_, a, b| {
                if dummy && b == n - 1 { 0 } else { p[a] + p[b] }
            });
            let phi: Vec<Wide<2>> = (0..players).map(|v| Wide::from_u64(2 * p[v] + 1)).collect();
            let duals: Vec<Option<Wide<2>>> = (0..n).map(|v| phi.get(v).copied()).collect();
            assert!(m.restart_from(&duals), "case {case}");
            assert!(m.solve().is_ok(), "case {case}");
            for _ in 0..3 {
                for a in 0..k {
                    for b in a + 1..k {
                        let c = match rng.next_u64() % 10 {
                            0 => None,
                            1..=3 => w[a][b],
                            _ => Some(p[a] + p[b] + rng.next_u64() % 12),
                        };
                        w[a][b] = c;
                        w[b][a] = c;
                        m.set(a, b, c.map(Wide::from_u64));
                    }
                }
                m.park(k, &phi);
                parked += usize::from(!m.parked_list.is_empty());
                let _ = m.solve();
                floated += usize::from(m.mate.contains(&RES));
                m.unpark();
                assert!(m.parked_list.is_empty() && !m.mate.contains(&RES));
                let solved = m.solve();
                let optimum = best(n, &w);
                assert_eq!(solved.is_ok(), optimum.is_some(), "case {case}");
                if solved.is_err() {
                    break;
                }
                m.certify();
                assert_eq!(Some(matched_weight(&m, &w)), optimum, "case {case}");
            }
        }
        assert!(parked > 500, "parked in {parked} solves");
        assert!(
            floated > 100,
            "paired into the reservoir in {floated} solves"
        );
    }

    /// Shifting a vertex's dual ahead of changing its edges to a set by the same amount: when
    /// accepted, the solution after the changes is still optimal (certificate and dynamic
    /// programming), and it is accepted often.
    #[test]
    #[allow(clippy::needless_range_loop)]
    fn a_dual_shift_keeps_the_solution_optimal() {
        let mut rng = Rng::new(43);
        let mut accepted = 0;
        for case in 0..1500 {
            let n = 4 + 2 * (rng.next_u64() % 5) as usize;
            let range = [3u64, 20, 1000][case % 3];
            let (mut w, mut m) =
                random_graph(&mut rng, n, 70, |rng, _, _| range + rng.next_u64() % range);
            assert!(m.solve().is_ok());
            let v = (rng.next_u64() % n as u64) as usize;
            let mate = m.mate(v).expect("perfect");
            let set: Vec<bool> = (0..n)
                .map(|x| x == mate || (x != v && rng.next_u64().is_multiple_of(2)))
                .collect();
            // Every changed edge moves by d (w units), or goes, but not the matched one.
            let d = (rng.next_u64() % range) as i64 - (range / 2) as i64;
            let delta = if d < 0 {
                Wide::ZERO.sub_u64(2 * d.unsigned_abs())
            } else {
                Wide::from_u64(2 * d as u64)
            };
            if !m.shift_dual(v, delta, |x| set[x]) {
                continue;
            }
            accepted += 1;
            for x in 0..n {
                if !set[x] {
                    continue;
                }
                let c = w[v][x].and_then(|c| {
                    (x == mate || !rng.next_u64().is_multiple_of(4)).then(|| (c as i64 + d) as u64)
                });
                w[v][x] = c;
                w[x][v] = c;
                m.set(v, x, c.map(Wide::from_u64));
            }
            assert!(m.solve().is_ok(), "case {case}");
            m.certify();
            assert_eq!(Some(matched_weight(&m, &w)), best(n, &w), "case {case}");
        }
        assert!(accepted > 300, "accepted {accepted} times");
    }

    /// Larger graphs with few distinct weights: many tight edges, so nested blossoms form and
    /// T-blossoms expand in nearly every stage.
    #[test]
    fn warm_started_matching_stays_optimal_with_many_ties() {
        random_changes(11, 160, 14, 16, &[2, 3, 5]);
    }

    /// A certified answer of `forced_mate` is the only mate of `v` in every optimal matching
    /// under the changed weights (checked by dynamic programming), and the certificate answers
    /// often enough to matter.
    #[test]
    #[allow(clippy::needless_range_loop)]
    fn a_forced_mate_is_the_mate_in_every_optimal_matching() {
        let mut rng = Rng::new(31);
        let (mut answered, mut swapped) = (0, 0);
        for case in 0..1500 {
            let n = 4 + 2 * (rng.next_u64() % 5) as usize;
            let range = [3u64, 20, 1000][case % 3];
            let (w, mut m) = random_graph(&mut rng, n, 70, |rng, _, _| rng.next_u64() % range);
            assert!(m.solve().is_ok(), "case {case}");
            let v = (rng.next_u64() % n as u64) as usize;
            let mut changes = Vec::new();
            let mut changed = w.clone();
            for x in 0..n {
                if x != v && rng.next_u64().is_multiple_of(3) {
                    let c = (!rng.next_u64().is_multiple_of(4)).then(|| rng.next_u64() % range);
                    if x == (v ^ 1) && c.is_none() {
                        continue;
                    }
                    changes.push((x, c.map(Wide::from_u64)));
                    changed[v][x] = c;
                    changed[x][v] = c;
                }
            }
            let before = m.mate(v);
            let Some(u) = m.forced_mate(v, &changes) else {
                continue;
            };
            answered += 1;
            if before != Some(u) {
                // Swapped onto u: still a perfect matching of tight edges.
                swapped += 1;
                m.certify_except(v);
                assert_eq!(m.mate(v), Some(u), "case {case}");
            }
            let best_all = best(n, &changed).expect("a perfect matching");
            // The best matching with v-x fixed: v and x keep only their own edge, of weight 0.
            let with = |x: usize| -> Option<u64> {
                let c = changed[v][x]?;
                let mut only = changed.clone();
                for y in 0..n {
                    for z in [v, x] {
                        only[z][y] = None;
                        only[y][z] = None;
                    }
                }
                only[v][x] = Some(0);
                only[x][v] = Some(0);
                best(n, &only).map(|r| r + c)
            };
            assert_eq!(with(u), Some(best_all), "case {case}: {v}-{u} is optimal");
            for x in 0..n {
                if x != v && x != u {
                    assert!(
                        with(x).is_none_or(|b| b < best_all),
                        "case {case}: {v}-{x} is optimal too"
                    );
                }
            }
        }
        assert!(answered > 300, "the certificate answered {answered} times");
        assert!(swapped > 30, "a swap answered {swapped} times");
    }

    #[allow(clippy::needless_range_loop)]
    fn random_changes(seed: u64, cases: usize, min: usize, max: usize, ranges: &[u64]) {
        let mut rng = Rng::new(seed);
        for case in 0..cases {
            let n = min + 2 * (rng.next_u64() % ((max - min) / 2 + 1) as u64) as usize;
            let density = 40 + rng.next_u64() % 60;
            let range = ranges[case % ranges.len()];
            let mut w = vec![vec![None; n]; n];
            // Every other case with a tiled weight table (as on large fields).
            let mut m = if case % 2 == 0 {
                Matcher::<2>::new(n)
            } else {
                Matcher::<2>::with_tile_bits(n, 1 + case as u32 % 3)
            };
            for a in 0..n {
                for b in a + 1..n {
                    if rng.next_u64() % 100 < density {
                        let c = rng.next_u64() % range;
                        w[a][b] = Some(c);
                        w[b][a] = Some(c);
                        m.set(a, b, Some(Wide::from_u64(c)));
                    }
                }
            }
            let mut retired = vec![false; n];
            for step in 0..8 {
                let expected = best(n, &w);
                let got = m.solve();
                match expected {
                    None => {
                        assert!(got.is_err(), "case {case} step {step}: no perfect matching");
                        break;
                    }
                    Some(e) => {
                        assert!(got.is_ok(), "case {case} step {step}");
                        let mut total = 0;
                        for v in 0..n {
                            let u = m.mate(v).expect("perfect");
                            assert_eq!(m.mate(u), Some(v));
                            if v < u {
                                total += w[v][u].expect("matched on an edge");
                            }
                        }
                        assert_eq!(total, e, "case {case} step {step}");
                    }
                }
                // Now and then a matched pair is decided for good, as the Dutch procedure does:
                // it leaves the graph (for the reference: it keeps only its own edge).
                if rng.next_u64().is_multiple_of(4) {
                    let v = (rng.next_u64() % n as u64) as usize;
                    if !retired[v] {
                        let u = m.mate(v).expect("perfect");
                        m.retire(v, u);
                        for x in 0..n {
                            for (a, b) in [(v, u), (u, v)] {
                                if x != b && x != a {
                                    w[a][x] = None;
                                    w[x][a] = None;
                                }
                            }
                        }
                        retired[v] = true;
                        retired[u] = true;
                    }
                }
                // Change the edges of one vertex, as the Dutch procedure does.
                let v = (rng.next_u64() % n as u64) as usize;
                if retired[v] {
                    continue;
                }
                for x in 0..n {
                    if x != v && !retired[x] && rng.next_u64().is_multiple_of(3) {
                        let c = if rng.next_u64().is_multiple_of(5) {
                            None
                        } else {
                            Some(rng.next_u64() % range)
                        };
                        w[v][x] = c;
                        w[x][v] = c;
                        m.set(v, x, c.map(Wide::from_u64));
                    }
                }
            }
        }
    }
}
