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

mod blossoms;
mod parked;
mod stage;
#[cfg(test)]
mod tests;
mod warm;

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
}
