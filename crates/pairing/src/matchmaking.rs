//! Matchmaking for a bot queue: which waiting players start a game now, and with which colours.
//!
//! # Rules
//! 1. **Windows.** A player's rating window is `base_window + widening_per_second × seconds
//!    waited`, capped at `max_window`. Two players may meet only if their rating difference is
//!    within *both* windows.
//! 2. **No immediate rematch.** Two players who just played each other (either one's
//!    `last_opponent` is the other) may meet only if *neither* has any other allowed
//!    opponent in the queue. "Available" means allowed by rule 1 and not a rematch; it is
//!    decided on the whole queue before matching, not on who ends up paired (a static
//!    rule keeps the choice a single optimisation and easy to explain).
//! 3. **Choice.** Among all sets of allowed pairs, take one with the most pairs; among those,
//!    the smallest total rating difference; among those, the one whose paired players waited
//!    longest (sum of each paired player's dense rank by seconds waited). Remaining ties are
//!    broken by the algorithm on the queue sorted by id, so the result does not depend on the
//!    order of the input.
//! 4. **Colours.** White goes to the player with more Blacks so far (lower `colour_balance`,
//!    Whites minus Blacks); if equal, to the one who had Black last (no game yet counts
//!    between Black and White); if still equal, to the lower id.
//!
//! # Algorithm and cost
//! Rule 3 is a maximum-weight matching on a general graph, found exactly by Edmonds' blossom
//! algorithm with dual variables (the O(n³) formulation of Gabow/Lawler, as in Van Rantwijk's
//! well-known `mwmatching`), in maximum-cardinality mode so that the number of pairs comes
//! first. Edge weights encode the two lower levels lexicographically:
//! `(n² + 1) × (D − gap) + rank(a) + rank(b)` with `D` above every gap, so one rating point of
//! total gap outweighs any waiting-time difference. Integers only: the duals stay integral.
//! Building the allowed pairs is O(n²); the matching is O(n³) time and O(n + m) memory for
//! `m` allowed pairs. A queue of a few hundred players is matched in milliseconds;
//! [`MAX_QUEUE`] bounds the input so memory stays bounded.
//!
//! This is the crate's second Edmonds matcher; `dutch/blossom/` is the other. That one finds
//! *perfect* matchings only, on a dense table of multi-word weights, warm-started across the
//! hundreds of weight changes of a Swiss round. This one solves once, on a sparse list of
//! `i64` weights, and may leave players unmatched (maximum cardinality, not perfect); its way
//! of breaking ties between equal optima is part of rule 3, which another algorithm would change.

use std::cmp::Ordering;
use std::collections::{BTreeMap, BTreeSet};
use std::fmt;

use thiserror::Error;

pub use crate::tournament::Colour;

/// A queued player's id.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct PlayerId(pub u64);

impl fmt::Display for PlayerId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.0)
    }
}

/// One player waiting in the queue.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Waiting {
    pub id: PlayerId,
    pub rating: i32,
    pub seconds_waited: u64,
    /// The opponent of this player's previous game, if any.
    pub last_opponent: Option<PlayerId>,
    /// Whites minus Blacks over the player's games.
    pub colour_balance: i32,
    /// The colour of the player's previous game, if any.
    pub last_colour: Option<Colour>,
}

/// How windows open.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct QueueConfig {
    /// Rating difference accepted on arrival.
    pub base_window: u32,
    /// Rating points added to the window per second waited.
    pub widening_per_second: u32,
    /// The window never grows past this.
    pub max_window: u32,
}

impl QueueConfig {
    /// The window of a player who has waited `seconds`.
    pub fn window(&self, seconds: u64) -> u64 {
        let grown = u64::from(self.widening_per_second).saturating_mul(seconds);
        u64::from(self.base_window)
            .saturating_add(grown)
            .min(u64::from(self.max_window))
    }
}

/// A game to start now.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Game {
    pub white: PlayerId,
    pub black: PlayerId,
    /// Absolute rating difference.
    pub rating_gap: u32,
}

/// The decision for this instant.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Plan {
    /// Ordered by the smaller id of each pair.
    pub games: Vec<Game>,
    /// Players left in the queue, by id.
    pub waiting: Vec<PlayerId>,
}

/// Why the queue could not be matched.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum MatchmakingError {
    #[error("player {id} is in the queue twice")]
    DuplicatePlayer { id: PlayerId },
    #[error("base window {base} is larger than the maximum window {max}")]
    WindowOrder { base: u32, max: u32 },
    #[error("{players} waiting players is more than the supported {max}")]
    TooManyPlayers { players: usize, max: usize },
}

/// The largest queue accepted (the allowed pairs can number `n² / 2`).
pub const MAX_QUEUE: usize = 2000;

/// Chooses the games to start now. Deterministic: the same queue (in any order) gives the
/// same plan.
pub fn match_queue(queue: &[Waiting], config: &QueueConfig) -> Result<Plan, MatchmakingError> {
    if config.base_window > config.max_window {
        return Err(MatchmakingError::WindowOrder {
            base: config.base_window,
            max: config.max_window,
        });
    }
    if queue.len() > MAX_QUEUE {
        return Err(MatchmakingError::TooManyPlayers {
            players: queue.len(),
            max: MAX_QUEUE,
        });
    }
    let mut players: Vec<&Waiting> = queue.iter().collect();
    players.sort_by_key(|p| p.id);
    if let Some(w) = players.windows(2).find(|w| w[0].id == w[1].id) {
        return Err(MatchmakingError::DuplicatePlayer { id: w[0].id });
    }

    let edges = allowed_pairs(&players, config);
    let n = players.len();
    let ranks = wait_ranks(&players);
    let scale = i64::try_from(n * n + 1).expect("n is at most MAX_QUEUE");
    let ceiling = edges.iter().map(|&(_, _, gap)| gap).max().unwrap_or(0) + 1;
    let weighted: Vec<(usize, usize, i64)> = edges
        .iter()
        .map(|&(a, b, gap)| (a, b, scale * (ceiling - gap) + ranks[a] + ranks[b]))
        .collect();
    let mate = max_weight_matching(n, &weighted, true);

    let mut plan = Plan::default();
    for (a, partner) in mate.iter().enumerate() {
        match *partner {
            Some(b) if a < b => plan.games.push(game(players[a], players[b])),
            Some(_) => {}
            None => plan.waiting.push(players[a].id),
        }
    }
    plan.games
        .sort_by_key(|g| (g.white.min(g.black), g.white.max(g.black)));
    Ok(plan)
}

/// Rules 1 and 2: `(a, b, gap)` with `a < b` indices into `players`.
fn allowed_pairs(players: &[&Waiting], config: &QueueConfig) -> Vec<(usize, usize, i64)> {
    let n = players.len();
    let windows: Vec<u64> = players
        .iter()
        .map(|p| config.window(p.seconds_waited))
        .collect();
    let gap =
        |a: usize, b: usize| (i64::from(players[a].rating) - i64::from(players[b].rating)).abs();
    let within = |a: usize, b: usize| {
        let g = gap(a, b).unsigned_abs();
        g <= windows[a] && g <= windows[b]
    };
    let rematch = |a: usize, b: usize| {
        players[a].last_opponent == Some(players[b].id)
            || players[b].last_opponent == Some(players[a].id)
    };
    let mut has_fresh = vec![false; n];
    let mut candidates = Vec::new();
    for a in 0..n {
        for b in a + 1..n {
            if within(a, b) {
                let again = rematch(a, b);
                if !again {
                    has_fresh[a] = true;
                    has_fresh[b] = true;
                }
                candidates.push((a, b, again));
            }
        }
    }
    candidates
        .into_iter()
        .filter(|&(a, b, again)| !again || (!has_fresh[a] && !has_fresh[b]))
        .map(|(a, b, _)| (a, b, gap(a, b)))
        .collect()
}

/// Dense rank of each player by seconds waited, 0 for the shortest wait.
fn wait_ranks(players: &[&Waiting]) -> Vec<i64> {
    let distinct: BTreeSet<u64> = players.iter().map(|p| p.seconds_waited).collect();
    let rank: BTreeMap<u64, i64> = distinct.into_iter().zip(0..).collect();
    players.iter().map(|p| rank[&p.seconds_waited]).collect()
}

/// Rule 4.
fn game(a: &Waiting, b: &Waiting) -> Game {
    let wants_white = |p: &Waiting| match p.last_colour {
        Some(Colour::Black) => 2,
        None => 1,
        Some(Colour::White) => 0,
    };
    let a_white = b
        .colour_balance
        .cmp(&a.colour_balance)
        .then(wants_white(a).cmp(&wants_white(b)))
        .then(b.id.cmp(&a.id))
        == Ordering::Greater;
    let (white, black) = if a_white { (a, b) } else { (b, a) };
    Game {
        white: white.id,
        black: black.id,
        rating_gap: u32::try_from((i64::from(a.rating) - i64::from(b.rating)).unsigned_abs())
            .expect("the difference of two i32 fits in u32"),
    }
}

/// Maximum-weight matching on a general graph (Edmonds' blossom algorithm with duals).
///
/// `edges` are `(u, v, weight)` with `u != v < vertices` and no duplicates. With
/// `max_cardinality`, the result has the most edges possible and, among those, the largest
/// weight. Returns each vertex's mate.
///
/// Integer weights keep every dual variable integral because the duals start at the largest
/// weight and slacks are measured as `dual(u) + dual(v) - 2 w`, so S-vertex duals share one
/// parity (the classic `mwmatching` argument).
pub fn max_weight_matching(
    vertices: usize,
    edges: &[(usize, usize, i64)],
    max_cardinality: bool,
) -> Vec<Option<usize>> {
    if edges.is_empty() {
        return vec![None; vertices];
    }
    let mut m = Matcher::new(vertices, edges, max_cardinality);
    m.solve();
    (0..vertices)
        .map(|v| m.mate[v].map(|p| m.endpoint[p]))
        .collect()
}

/// A walk around a blossom's cycle of sub-blossoms from child `start` to the base (child 0),
/// the way that crosses an even number of edges: forward from an odd child, backward from an
/// even one (`mwmatching`'s `j`, `jstep` and `endptrick`).
struct Walk {
    len: usize,
    j: usize,
    forward: bool,
}

impl Walk {
    fn new(len: usize, start: usize) -> Self {
        Walk {
            len,
            j: start,
            forward: start % 2 == 1,
        }
    }

    fn at_base(&self) -> bool {
        self.j == 0
    }

    fn step(&mut self) {
        self.j = if self.forward {
            (self.j + 1) % self.len
        } else {
            (self.j + self.len - 1) % self.len
        };
    }

    /// 0 walking forward, 1 backward: flips the endpoints read from the blossom's list so that
    /// they point along the walk.
    fn endptrick(&self) -> usize {
        usize::from(!self.forward)
    }

    /// The endpoint, pointing along the walk, of the edge between the current child and the
    /// one before it on the walk.
    fn endpoint(&self, endps: &[usize]) -> usize {
        endps[(self.j + self.len - self.endptrick()) % self.len] ^ self.endptrick()
    }
}

/// What limits a change of the duals (`mwmatching`'s `deltatype`), in the order they are
/// compared: a strictly smaller one replaces an earlier one.
#[derive(Clone, Copy)]
enum Delta {
    /// A vertex dual reaches zero, or the maximum-cardinality optimum is reached: the stage
    /// ends without an augmenting path.
    Done,
    /// An edge from an S-vertex to a free vertex becomes tight.
    FreeEdge(usize),
    /// An edge between two S-blossoms becomes tight.
    SEdge(usize),
    /// A T-blossom's dual reaches zero: it is expanded.
    Expand(usize),
}

const FREE: u8 = 0;
const S: u8 = 1;
const T: u8 = 2;
/// A temporary mark of `scan_blossom`'s path.
const MARK: u8 = 5;

struct Matcher<'e> {
    n: usize,
    edges: &'e [(usize, usize, i64)],
    max_cardinality: bool,
    /// `endpoint[p]` is the vertex at end `p` of edge `p / 2`.
    endpoint: Vec<usize>,
    /// Remote endpoints `p` of the edges at each vertex.
    neighbend: Vec<Vec<usize>>,
    /// Remote endpoint of the matched edge.
    mate: Vec<Option<usize>>,
    /// `FREE`, `S` or `T` (`MARK` in `scan_blossom`); per vertex and blossom.
    label: Vec<u8>,
    labelend: Vec<Option<usize>>,
    inblossom: Vec<usize>,
    blossomparent: Vec<Option<usize>>,
    blossomchilds: Vec<Vec<usize>>,
    /// `None` for a blossom number not in use.
    blossombase: Vec<Option<usize>>,
    blossomendps: Vec<Vec<usize>>,
    bestedge: Vec<Option<usize>>,
    blossombestedges: Vec<Option<Vec<usize>>>,
    unusedblossoms: Vec<usize>,
    dualvar: Vec<i64>,
    allowedge: Vec<bool>,
    queue: Vec<usize>,
}

impl<'e> Matcher<'e> {
    fn new(n: usize, edges: &'e [(usize, usize, i64)], max_cardinality: bool) -> Self {
        let max_weight = edges.iter().map(|e| e.2).max().unwrap_or(0).max(0);
        let mut neighbend = vec![Vec::new(); n];
        let mut endpoint = Vec::with_capacity(2 * edges.len());
        for (k, &(i, j, _)) in edges.iter().enumerate() {
            endpoint.push(i);
            endpoint.push(j);
            neighbend[i].push(2 * k + 1);
            neighbend[j].push(2 * k);
        }
        let mut dualvar = vec![max_weight; n];
        dualvar.extend(std::iter::repeat_n(0, n));
        let mut blossombase: Vec<Option<usize>> = (0..n).map(Some).collect();
        blossombase.extend(std::iter::repeat_n(None, n));
        Matcher {
            n,
            edges,
            max_cardinality,
            endpoint,
            neighbend,
            mate: vec![None; n],
            label: vec![FREE; 2 * n],
            labelend: vec![None; 2 * n],
            inblossom: (0..n).collect(),
            blossomparent: vec![None; 2 * n],
            blossomchilds: vec![Vec::new(); 2 * n],
            blossombase,
            blossomendps: vec![Vec::new(); 2 * n],
            bestedge: vec![None; 2 * n],
            blossombestedges: vec![None; 2 * n],
            unusedblossoms: (n..2 * n).collect(),
            dualvar,
            allowedge: vec![false; edges.len()],
            queue: Vec::new(),
        }
    }

    fn slack(&self, k: usize) -> i64 {
        let (i, j, w) = self.edges[k];
        self.dualvar[i] + self.dualvar[j] - 2 * w
    }

    /// Whether edge `k` has less slack than the edge `best`, if any.
    fn tighter(&self, k: usize, best: Option<usize>) -> bool {
        best.is_none_or(|e| self.slack(k) < self.slack(e))
    }

    fn leaves(&self, b: usize) -> Vec<usize> {
        let mut out = Vec::new();
        let mut stack = vec![b];
        while let Some(t) = stack.pop() {
            if t < self.n {
                out.push(t);
            } else {
                stack.extend(self.blossomchilds[t].iter().rev().copied());
            }
        }
        out
    }

    /// The base vertex of blossom `b`, which is in use.
    fn base(&self, b: usize) -> usize {
        self.blossombase[b].expect("a blossom in use has a base")
    }

    /// The vertex at the far end of the edge by which top-level blossom `b` got its label.
    fn labelled_from(&self, b: usize) -> Option<usize> {
        self.labelend[b].map(|p| self.endpoint[p])
    }

    fn assign_label(&mut self, w: usize, t: u8, p: Option<usize>) {
        let mut w = w;
        let mut t = t;
        let mut p = p;
        loop {
            let b = self.inblossom[w];
            self.label[w] = t;
            self.label[b] = t;
            self.labelend[w] = p;
            self.labelend[b] = p;
            self.bestedge[w] = None;
            self.bestedge[b] = None;
            if t == S {
                let leaves = self.leaves(b);
                self.queue.extend(leaves);
                return;
            }
            // T: the base's mate becomes S.
            let mate_end = self.mate[self.base(b)].expect("a T-blossom's base is matched");
            w = self.endpoint[mate_end];
            t = S;
            p = Some(mate_end ^ 1);
        }
    }

    /// Traces back from `v` and `w`: the base of a new blossom, or `None` when an augmenting
    /// path was found.
    fn scan_blossom(&mut self, v: usize, w: usize) -> Option<usize> {
        let mut path = Vec::new();
        let mut base = None;
        let (mut v, mut w) = (Some(v), Some(w));
        while let Some(x) = v {
            let b = self.inblossom[x];
            if self.label[b] & 4 != 0 {
                base = self.blossombase[b];
                break;
            }
            path.push(b);
            self.label[b] = MARK;
            // Up the tree: to the T-blossom the S-blossom `b` was reached from, then to the
            // S-blossom that one was reached from.
            v = self
                .labelled_from(b)
                .map(|t| self.endpoint[self.labelend_of(self.inblossom[t])]);
            if w.is_some() {
                std::mem::swap(&mut v, &mut w);
            }
        }
        for b in path {
            self.label[b] = S;
        }
        base
    }

    /// The end of `labelend[b]`, which is set.
    fn labelend_of(&self, b: usize) -> usize {
        self.labelend[b].expect("a labelled sub-blossom has a label end")
    }

    fn add_blossom(&mut self, base: usize, k: usize) {
        let (mut v, mut w, _) = self.edges[k];
        let bb = self.inblossom[base];
        let mut bv = self.inblossom[v];
        let mut bw = self.inblossom[w];
        let b = self
            .unusedblossoms
            .pop()
            .expect("at most n blossoms exist at once");
        self.blossombase[b] = Some(base);
        self.blossomparent[b] = None;
        self.blossomparent[bb] = Some(b);
        let mut path = Vec::new();
        let mut endps = Vec::new();
        while bv != bb {
            self.blossomparent[bv] = Some(b);
            path.push(bv);
            endps.push(self.labelend_of(bv));
            v = self.endpoint[self.labelend_of(bv)];
            bv = self.inblossom[v];
        }
        path.push(bb);
        path.reverse();
        endps.reverse();
        endps.push(2 * k);
        while bw != bb {
            self.blossomparent[bw] = Some(b);
            path.push(bw);
            endps.push(self.labelend_of(bw) ^ 1);
            w = self.endpoint[self.labelend_of(bw)];
            bw = self.inblossom[w];
        }
        self.label[b] = S;
        self.labelend[b] = self.labelend[bb];
        self.dualvar[b] = 0;
        self.blossomchilds[b] = path.clone();
        self.blossomendps[b] = endps;
        for leaf in self.leaves(b) {
            if self.label[self.inblossom[leaf]] == T {
                self.queue.push(leaf);
            }
            self.inblossom[leaf] = b;
        }
        self.best_edges_of_new(b, &path);
    }

    /// The least-slack edge from new blossom `b` (children `path`) to each other S-blossom,
    /// made from its children's lists (or their leaves' edges), and the least of those.
    fn best_edges_of_new(&mut self, b: usize, path: &[usize]) {
        let mut bestedgeto: Vec<Option<usize>> = vec![None; 2 * self.n];
        for &sub in path {
            let lists: Vec<Vec<usize>> = match self.blossombestedges[sub].take() {
                Some(list) => vec![list],
                None => self
                    .leaves(sub)
                    .into_iter()
                    .map(|leaf| self.neighbend[leaf].iter().map(|p| p / 2).collect())
                    .collect(),
            };
            for list in lists {
                for k2 in list {
                    // The end outside the new blossom.
                    let (i, j, _) = self.edges[k2];
                    let j = if self.inblossom[j] == b { i } else { j };
                    let bj = self.inblossom[j];
                    if bj != b && self.label[bj] == S && self.tighter(k2, bestedgeto[bj]) {
                        bestedgeto[bj] = Some(k2);
                    }
                }
            }
            self.bestedge[sub] = None;
        }
        let best: Vec<usize> = bestedgeto.into_iter().flatten().collect();
        self.bestedge[b] = None;
        for &k2 in &best {
            if self.tighter(k2, self.bestedge[b]) {
                self.bestedge[b] = Some(k2);
            }
        }
        self.blossombestedges[b] = Some(best);
    }

    fn expand_blossom(&mut self, b: usize, endstage: bool) {
        let childs = self.blossomchilds[b].clone();
        for &s in &childs {
            self.blossomparent[s] = None;
            if s < self.n {
                self.inblossom[s] = s;
            } else if endstage && self.dualvar[s] == 0 {
                self.expand_blossom(s, endstage);
            } else {
                for leaf in self.leaves(s) {
                    self.inblossom[leaf] = s;
                }
            }
        }
        if !endstage && self.label[b] == T {
            self.relabel_expanded_t(b, &childs);
        }
        self.label[b] = FREE;
        self.labelend[b] = None;
        self.blossomchilds[b] = Vec::new();
        self.blossomendps[b] = Vec::new();
        self.blossombase[b] = None;
        self.blossombestedges[b] = None;
        self.bestedge[b] = None;
        self.unusedblossoms.push(b);
    }

    /// After T-blossom `b` (children `childs`) is expanded in a stage: its children on the
    /// even path from the entry child to the base become T- and S-blossoms of the tree; the
    /// others are free, or T where one of their vertices was reached.
    fn relabel_expanded_t(&mut self, b: usize, childs: &[usize]) {
        let len = childs.len();
        let endps = self.blossomendps[b].clone();
        let entry = self.labelend_of(b);
        let entrychild = self.inblossom[self.endpoint[entry ^ 1]];
        let start = childs
            .iter()
            .position(|&c| c == entrychild)
            .expect("the entry child is a child");
        let mut walk = Walk::new(len, start);
        let mut p = entry;
        while !walk.at_base() {
            // Relabel the T-sub-blossom.
            self.label[self.endpoint[p ^ 1]] = FREE;
            let q = walk.endpoint(&endps);
            self.label[self.endpoint[q ^ 1]] = FREE;
            self.assign_label(self.endpoint[p ^ 1], T, Some(p));
            // Step to the next S-sub-blossom and note its forward endpoint.
            self.allowedge[q / 2] = true;
            walk.step();
            p = walk.endpoint(&endps);
            // Step to the next T-sub-blossom.
            self.allowedge[p / 2] = true;
            walk.step();
        }
        // Relabel the base T-sub-blossom without stepping through to its mate.
        let bv = childs[walk.j];
        let ep = self.endpoint[p ^ 1];
        self.label[ep] = T;
        self.label[bv] = T;
        self.labelend[ep] = Some(p);
        self.labelend[bv] = Some(p);
        self.bestedge[bv] = None;
        walk.step();
        while childs[walk.j] != entrychild {
            let bv = childs[walk.j];
            if self.label[bv] == S {
                walk.step();
                continue;
            }
            let reached = self.leaves(bv).into_iter().find(|&v| self.label[v] != FREE);
            if let Some(v) = reached {
                self.label[v] = FREE;
                let mate_end = self.mate[self.base(bv)].expect("a sub-blossom's base is matched");
                self.label[self.endpoint[mate_end]] = FREE;
                self.assign_label(v, T, self.labelend[v]);
            }
            walk.step();
        }
    }

    fn augment_blossom(&mut self, b: usize, v: usize) {
        let parent = |m: &Self, t: usize| m.blossomparent[t].expect("a sub-blossom has a parent");
        let mut t = v;
        while parent(self, t) != b {
            t = parent(self, t);
        }
        if t >= self.n {
            self.augment_blossom(t, v);
        }
        let i = self.blossomchilds[b]
            .iter()
            .position(|&c| c == t)
            .expect("t is a child of b");
        let mut walk = Walk::new(self.blossomchilds[b].len(), i);
        while !walk.at_base() {
            walk.step();
            let t1 = self.blossomchilds[b][walk.j];
            let p = walk.endpoint(&self.blossomendps[b]);
            if t1 >= self.n {
                self.augment_blossom(t1, self.endpoint[p]);
            }
            walk.step();
            let t2 = self.blossomchilds[b][walk.j];
            if t2 >= self.n {
                self.augment_blossom(t2, self.endpoint[p ^ 1]);
            }
            self.mate[self.endpoint[p]] = Some(p ^ 1);
            self.mate[self.endpoint[p ^ 1]] = Some(p);
        }
        self.blossomchilds[b].rotate_left(i);
        self.blossomendps[b].rotate_left(i);
        self.blossombase[b] = self.blossombase[self.blossomchilds[b][0]];
    }

    fn augment_matching(&mut self, k: usize) {
        let (v, w, _) = self.edges[k];
        for (s0, p0) in [(v, 2 * k + 1), (w, 2 * k)] {
            let mut s = s0;
            let mut p = p0;
            loop {
                let bs = self.inblossom[s];
                if bs >= self.n {
                    self.augment_blossom(bs, s);
                }
                self.mate[s] = Some(p);
                let Some(t) = self.labelled_from(bs) else {
                    break;
                };
                let bt = self.inblossom[t];
                let le = self.labelend_of(bt);
                s = self.endpoint[le];
                let j = self.endpoint[le ^ 1];
                if bt >= self.n {
                    self.augment_blossom(bt, j);
                }
                self.mate[j] = self.labelend[bt];
                p = le ^ 1;
            }
        }
    }

    fn solve(&mut self) {
        for _stage in 0..self.n {
            self.start_stage();
            if !self.search() {
                break;
            }
            self.end_stage();
        }
    }

    /// Clears the labels and best edges; every free vertex becomes the S-root of a tree.
    fn start_stage(&mut self) {
        let n = self.n;
        self.label.iter_mut().for_each(|l| *l = FREE);
        self.bestedge.iter_mut().for_each(|e| *e = None);
        for b in n..2 * n {
            self.blossombestedges[b] = None;
        }
        self.allowedge.iter_mut().for_each(|a| *a = false);
        self.queue.clear();
        for v in 0..n {
            if self.mate[v].is_none() && self.label[self.inblossom[v]] == FREE {
                self.assign_label(v, S, None);
            }
        }
    }

    /// Grows the trees, changing the duals when no tight edge is left, until an augmenting
    /// path is found (and augmented: `true`) or the duals say there is none.
    fn search(&mut self) -> bool {
        loop {
            while let Some(v) = self.queue.pop() {
                if self.scan(v) {
                    return true;
                }
            }
            let (delta, by) = self.choose_delta();
            self.change_duals(by);
            match delta {
                Delta::Done => return false,
                Delta::FreeEdge(k) => {
                    self.allowedge[k] = true;
                    let (mut i, j, _) = self.edges[k];
                    if self.label[self.inblossom[i]] == FREE {
                        i = j;
                    }
                    self.queue.push(i);
                }
                Delta::SEdge(k) => {
                    self.allowedge[k] = true;
                    self.queue.push(self.edges[k].0);
                }
                Delta::Expand(b) => self.expand_blossom(b, false),
            }
        }
    }

    /// Scans the edges of S-vertex `v`: labels, forms blossoms, notes best edges; whether it
    /// found (and augmented) an augmenting path.
    fn scan(&mut self, v: usize) -> bool {
        for pi in 0..self.neighbend[v].len() {
            let p = self.neighbend[v][pi];
            let k = p / 2;
            let w = self.endpoint[p];
            if self.inblossom[v] == self.inblossom[w] {
                continue;
            }
            let mut kslack = 0;
            if !self.allowedge[k] {
                kslack = self.slack(k);
                if kslack <= 0 {
                    self.allowedge[k] = true;
                }
            }
            if self.allowedge[k] {
                let bw = self.inblossom[w];
                if self.label[bw] == FREE {
                    self.assign_label(w, T, Some(p ^ 1));
                } else if self.label[bw] == S {
                    match self.scan_blossom(v, w) {
                        Some(base) => self.add_blossom(base, k),
                        None => {
                            self.augment_matching(k);
                            return true;
                        }
                    }
                } else if self.label[w] == FREE {
                    self.label[w] = T;
                    self.labelend[w] = Some(p ^ 1);
                }
            } else if self.label[self.inblossom[w]] == S {
                let b = self.inblossom[v];
                if self.bestedge[b].is_none_or(|e| kslack < self.slack(e)) {
                    self.bestedge[b] = Some(k);
                }
            } else if self.label[w] == FREE
                && self.bestedge[w].is_none_or(|e| kslack < self.slack(e))
            {
                self.bestedge[w] = Some(k);
            }
        }
        false
    }

    /// The change of the duals that makes the next edge tight or the next blossom expandable,
    /// and by how much.
    fn choose_delta(&self) -> (Delta, i64) {
        let n = self.n;
        let least_dual = || self.dualvar[..n].iter().copied().min().unwrap_or(0);
        let mut best: Option<(Delta, i64)> = None;
        let smaller = |best: &Option<(Delta, i64)>, d: i64| best.is_none_or(|(_, at)| d < at);
        if !self.max_cardinality {
            best = Some((Delta::Done, least_dual()));
        }
        for v in 0..n {
            if self.label[self.inblossom[v]] != FREE {
                continue;
            }
            if let Some(k) = self.bestedge[v] {
                let d = self.slack(k);
                if smaller(&best, d) {
                    best = Some((Delta::FreeEdge(k), d));
                }
            }
        }
        for b in 0..2 * n {
            if self.blossomparent[b].is_some() || self.label[b] != S {
                continue;
            }
            if let Some(k) = self.bestedge[b] {
                let kslack = self.slack(k);
                debug_assert_eq!(kslack % 2, 0, "integral duals");
                let d = kslack / 2;
                if smaller(&best, d) {
                    best = Some((Delta::SEdge(k), d));
                }
            }
        }
        for b in n..2 * n {
            if self.blossombase[b].is_some()
                && self.blossomparent[b].is_none()
                && self.label[b] == T
                && smaller(&best, self.dualvar[b])
            {
                best = Some((Delta::Expand(b), self.dualvar[b]));
            }
        }
        // None: the maximum-cardinality optimum is reached; a final update keeps the duals
        // valid.
        best.unwrap_or_else(|| (Delta::Done, least_dual().max(0)))
    }

    fn change_duals(&mut self, delta: i64) {
        let n = self.n;
        for v in 0..n {
            match self.label[self.inblossom[v]] {
                S => self.dualvar[v] -= delta,
                T => self.dualvar[v] += delta,
                _ => {}
            }
        }
        for b in n..2 * n {
            if self.blossombase[b].is_some() && self.blossomparent[b].is_none() {
                match self.label[b] {
                    S => self.dualvar[b] += delta,
                    T => self.dualvar[b] -= delta,
                    _ => {}
                }
            }
        }
    }

    /// Expands the top-level S-blossoms whose dual reached zero.
    fn end_stage(&mut self) {
        for b in self.n..2 * self.n {
            if self.blossomparent[b].is_none()
                && self.blossombase[b].is_some()
                && self.label[b] == S
                && self.dualvar[b] == 0
            {
                self.expand_blossom(b, true);
            }
        }
    }
}
