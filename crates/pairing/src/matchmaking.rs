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

use std::cmp::Ordering;
use std::collections::{BTreeMap, BTreeSet};
use std::fmt;

use thiserror::Error;

pub use crate::tiebreak::Colour;

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
        .map(|v| usize::try_from(m.mate[v]).ok().map(|p| m.endpoint[p]))
        .collect()
}

/// `-1` stands for "none" in the index arrays below, as in the reference formulation.
const NONE: isize = -1;

fn idx(i: isize) -> usize {
    usize::try_from(i).expect("a real index, not NONE")
}

/// Python-style index into a cyclic list (negative counts from the end).
fn cyc(len: usize, j: isize) -> usize {
    let len = isize::try_from(len).expect("blossom lengths fit in isize");
    idx(j.rem_euclid(len))
}

struct Matcher<'e> {
    n: usize,
    edges: &'e [(usize, usize, i64)],
    max_cardinality: bool,
    /// `endpoint[p]` is the vertex at end `p` of edge `p / 2`.
    endpoint: Vec<usize>,
    /// Remote endpoints `p` of the edges at each vertex.
    neighbend: Vec<Vec<usize>>,
    /// Remote endpoint of the matched edge, or NONE.
    mate: Vec<isize>,
    /// 0 free, 1 S, 2 T (5 is a temporary mark in `scan_blossom`); per vertex and blossom.
    label: Vec<u8>,
    labelend: Vec<isize>,
    inblossom: Vec<usize>,
    blossomparent: Vec<isize>,
    blossomchilds: Vec<Vec<usize>>,
    blossombase: Vec<isize>,
    blossomendps: Vec<Vec<usize>>,
    bestedge: Vec<isize>,
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
        let mut blossombase: Vec<isize> = (0..n)
            .map(|v| isize::try_from(v).expect("vertex count fits in isize"))
            .collect();
        blossombase.extend(std::iter::repeat_n(NONE, n));
        Matcher {
            n,
            edges,
            max_cardinality,
            endpoint,
            neighbend,
            mate: vec![NONE; n],
            label: vec![0; 2 * n],
            labelend: vec![NONE; 2 * n],
            inblossom: (0..n).collect(),
            blossomparent: vec![NONE; 2 * n],
            blossomchilds: vec![Vec::new(); 2 * n],
            blossombase,
            blossomendps: vec![Vec::new(); 2 * n],
            bestedge: vec![NONE; 2 * n],
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

    fn assign_label(&mut self, w: usize, t: u8, p: isize) {
        let mut w = w;
        let mut t = t;
        let mut p = p;
        loop {
            let b = self.inblossom[w];
            self.label[w] = t;
            self.label[b] = t;
            self.labelend[w] = p;
            self.labelend[b] = p;
            self.bestedge[w] = NONE;
            self.bestedge[b] = NONE;
            if t == 1 {
                let leaves = self.leaves(b);
                self.queue.extend(leaves);
                return;
            }
            // T: the base's mate becomes S.
            let base = idx(self.blossombase[b]);
            let mate_end = idx(self.mate[base]);
            w = self.endpoint[mate_end];
            t = 1;
            p = isize::try_from(mate_end ^ 1).expect("endpoint fits");
        }
    }

    /// Returns the base of a new blossom, or NONE when an augmenting path was found.
    fn scan_blossom(&mut self, v: usize, w: usize) -> isize {
        let mut path = Vec::new();
        let mut base = NONE;
        let mut v = isize::try_from(v).expect("vertex fits");
        let mut w = isize::try_from(w).expect("vertex fits");
        while v != NONE || w != NONE {
            let mut b = self.inblossom[idx(v)];
            if self.label[b] & 4 != 0 {
                base = self.blossombase[b];
                break;
            }
            path.push(b);
            self.label[b] = 5;
            if self.labelend[b] == NONE {
                v = NONE;
            } else {
                let t = self.endpoint[idx(self.labelend[b])];
                b = self.inblossom[t];
                v = isize::try_from(self.endpoint[idx(self.labelend[b])]).expect("fits");
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

    fn add_blossom(&mut self, base: usize, k: usize) {
        let (mut v, mut w, _) = self.edges[k];
        let bb = self.inblossom[base];
        let mut bv = self.inblossom[v];
        let mut bw = self.inblossom[w];
        let b = self
            .unusedblossoms
            .pop()
            .expect("at most n blossoms exist at once");
        self.blossombase[b] = isize::try_from(base).expect("fits");
        self.blossomparent[b] = NONE;
        self.blossomparent[bb] = isize::try_from(b).expect("fits");
        let mut path = Vec::new();
        let mut endps = Vec::new();
        while bv != bb {
            self.blossomparent[bv] = isize::try_from(b).expect("fits");
            path.push(bv);
            endps.push(idx(self.labelend[bv]));
            v = self.endpoint[idx(self.labelend[bv])];
            bv = self.inblossom[v];
        }
        path.push(bb);
        path.reverse();
        endps.reverse();
        endps.push(2 * k);
        while bw != bb {
            self.blossomparent[bw] = isize::try_from(b).expect("fits");
            path.push(bw);
            endps.push(idx(self.labelend[bw]) ^ 1);
            w = self.endpoint[idx(self.labelend[bw])];
            bw = self.inblossom[w];
        }
        self.label[b] = 1;
        self.labelend[b] = self.labelend[bb];
        self.dualvar[b] = 0;
        self.blossomchilds[b] = path.clone();
        self.blossomendps[b] = endps;
        for leaf in self.leaves(b) {
            if self.label[self.inblossom[leaf]] == 2 {
                self.queue.push(leaf);
            }
            self.inblossom[leaf] = b;
        }
        let mut bestedgeto = vec![NONE; 2 * self.n];
        for &sub in &path {
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
                    if bj != b
                        && self.label[bj] == 1
                        && (bestedgeto[bj] == NONE
                            || self.slack(k2) < self.slack(idx(bestedgeto[bj])))
                    {
                        bestedgeto[bj] = isize::try_from(k2).expect("fits");
                    }
                }
            }
            self.bestedge[sub] = NONE;
        }
        let best: Vec<usize> = bestedgeto
            .into_iter()
            .filter(|&k2| k2 != NONE)
            .map(idx)
            .collect();
        self.bestedge[b] = NONE;
        for &k2 in &best {
            if self.bestedge[b] == NONE || self.slack(k2) < self.slack(idx(self.bestedge[b])) {
                self.bestedge[b] = isize::try_from(k2).expect("fits");
            }
        }
        self.blossombestedges[b] = Some(best);
    }

    fn expand_blossom(&mut self, b: usize, endstage: bool) {
        let childs = self.blossomchilds[b].clone();
        for &s in &childs {
            self.blossomparent[s] = NONE;
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
        if !endstage && self.label[b] == 2 {
            let len = childs.len();
            let endps = self.blossomendps[b].clone();
            let entrychild = self.inblossom[self.endpoint[idx(self.labelend[b]) ^ 1]];
            let start = childs
                .iter()
                .position(|&c| c == entrychild)
                .expect("the entry child is a child");
            let mut j = isize::try_from(start).expect("fits");
            let (jstep, endptrick): (isize, usize) = if j & 1 == 1 {
                j -= isize::try_from(len).expect("fits");
                (1, 0)
            } else {
                (-1, 1)
            };
            let mut p = idx(self.labelend[b]);
            let endps_at =
                |j: isize| endps[cyc(len, j - isize::try_from(endptrick).expect("0 or 1"))];
            while j != 0 {
                // Relabel the T-sub-blossom.
                self.label[self.endpoint[p ^ 1]] = 0;
                self.label[self.endpoint[endps_at(j) ^ endptrick ^ 1]] = 0;
                self.assign_label(self.endpoint[p ^ 1], 2, isize::try_from(p).expect("fits"));
                // Step to the next S-sub-blossom and note its forward endpoint.
                self.allowedge[endps_at(j) / 2] = true;
                j += jstep;
                p = endps_at(j) ^ endptrick;
                // Step to the next T-sub-blossom.
                self.allowedge[p / 2] = true;
                j += jstep;
            }
            // Relabel the base T-sub-blossom without stepping through to its mate.
            let bv = childs[cyc(len, j)];
            let ep = self.endpoint[p ^ 1];
            self.label[ep] = 2;
            self.label[bv] = 2;
            self.labelend[ep] = isize::try_from(p).expect("fits");
            self.labelend[bv] = isize::try_from(p).expect("fits");
            self.bestedge[bv] = NONE;
            j += jstep;
            while childs[cyc(len, j)] != entrychild {
                let bv = childs[cyc(len, j)];
                if self.label[bv] == 1 {
                    j += jstep;
                    continue;
                }
                let reached = self.leaves(bv).into_iter().find(|&v| self.label[v] != 0);
                if let Some(v) = reached {
                    self.label[v] = 0;
                    let base = idx(self.blossombase[bv]);
                    self.label[self.endpoint[idx(self.mate[base])]] = 0;
                    self.assign_label(v, 2, self.labelend[v]);
                }
                j += jstep;
            }
        }
        self.label[b] = 0;
        self.labelend[b] = NONE;
        self.blossomchilds[b] = Vec::new();
        self.blossomendps[b] = Vec::new();
        self.blossombase[b] = NONE;
        self.blossombestedges[b] = None;
        self.bestedge[b] = NONE;
        self.unusedblossoms.push(b);
    }

    fn augment_blossom(&mut self, b: usize, v: usize) {
        let mut t = v;
        while idx(self.blossomparent[t]) != b {
            t = idx(self.blossomparent[t]);
        }
        if t >= self.n {
            self.augment_blossom(t, v);
        }
        let len = self.blossomchilds[b].len();
        let i = self.blossomchilds[b]
            .iter()
            .position(|&c| c == t)
            .expect("t is a child of b");
        let mut j = isize::try_from(i).expect("fits");
        let (jstep, endptrick): (isize, usize) = if i & 1 == 1 {
            j -= isize::try_from(len).expect("fits");
            (1, 0)
        } else {
            (-1, 1)
        };
        while j != 0 {
            j += jstep;
            let t1 = self.blossomchilds[b][cyc(len, j)];
            let p = self.blossomendps[b][cyc(len, j - isize::try_from(endptrick).expect("0 or 1"))]
                ^ endptrick;
            if t1 >= self.n {
                self.augment_blossom(t1, self.endpoint[p]);
            }
            j += jstep;
            let t2 = self.blossomchilds[b][cyc(len, j)];
            if t2 >= self.n {
                self.augment_blossom(t2, self.endpoint[p ^ 1]);
            }
            self.mate[self.endpoint[p]] = isize::try_from(p ^ 1).expect("fits");
            self.mate[self.endpoint[p ^ 1]] = isize::try_from(p).expect("fits");
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
                self.mate[s] = isize::try_from(p).expect("fits");
                if self.labelend[bs] == NONE {
                    break;
                }
                let t = self.endpoint[idx(self.labelend[bs])];
                let bt = self.inblossom[t];
                let le = idx(self.labelend[bt]);
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
        let n = self.n;
        for _stage in 0..n {
            self.label.iter_mut().for_each(|l| *l = 0);
            self.bestedge.iter_mut().for_each(|e| *e = NONE);
            for b in n..2 * n {
                self.blossombestedges[b] = None;
            }
            self.allowedge.iter_mut().for_each(|a| *a = false);
            self.queue.clear();
            for v in 0..n {
                if self.mate[v] == NONE && self.label[self.inblossom[v]] == 0 {
                    self.assign_label(v, 1, NONE);
                }
            }
            let mut augmented = false;
            loop {
                while !augmented {
                    let Some(v) = self.queue.pop() else { break };
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
                            if self.label[bw] == 0 {
                                self.assign_label(w, 2, isize::try_from(p ^ 1).expect("fits"));
                            } else if self.label[bw] == 1 {
                                let base = self.scan_blossom(v, w);
                                if base >= 0 {
                                    self.add_blossom(idx(base), k);
                                } else {
                                    self.augment_matching(k);
                                    augmented = true;
                                    break;
                                }
                            } else if self.label[w] == 0 {
                                self.label[w] = 2;
                                self.labelend[w] = isize::try_from(p ^ 1).expect("fits");
                            }
                        } else if self.label[self.inblossom[w]] == 1 {
                            let b = self.inblossom[v];
                            if self.bestedge[b] == NONE
                                || kslack < self.slack(idx(self.bestedge[b]))
                            {
                                self.bestedge[b] = isize::try_from(k).expect("fits");
                            }
                        } else if self.label[w] == 0
                            && (self.bestedge[w] == NONE
                                || kslack < self.slack(idx(self.bestedge[w])))
                        {
                            self.bestedge[w] = isize::try_from(k).expect("fits");
                        }
                    }
                }
                if augmented {
                    break;
                }
                // No augmenting path with tight edges: adjust the duals.
                let mut deltatype = 0u8;
                let mut delta = 0i64;
                let mut deltaedge = 0usize;
                let mut deltablossom = 0usize;
                if !self.max_cardinality {
                    deltatype = 1;
                    delta = self.dualvar[..n].iter().copied().min().unwrap_or(0);
                }
                for v in 0..n {
                    if self.label[self.inblossom[v]] == 0 && self.bestedge[v] != NONE {
                        let d = self.slack(idx(self.bestedge[v]));
                        if deltatype == 0 || d < delta {
                            delta = d;
                            deltatype = 2;
                            deltaedge = idx(self.bestedge[v]);
                        }
                    }
                }
                for b in 0..2 * n {
                    if self.blossomparent[b] == NONE
                        && self.label[b] == 1
                        && self.bestedge[b] != NONE
                    {
                        let kslack = self.slack(idx(self.bestedge[b]));
                        debug_assert_eq!(kslack % 2, 0, "integral duals");
                        let d = kslack / 2;
                        if deltatype == 0 || d < delta {
                            delta = d;
                            deltatype = 3;
                            deltaedge = idx(self.bestedge[b]);
                        }
                    }
                }
                for b in n..2 * n {
                    if self.blossombase[b] >= 0
                        && self.blossomparent[b] == NONE
                        && self.label[b] == 2
                        && (deltatype == 0 || self.dualvar[b] < delta)
                    {
                        delta = self.dualvar[b];
                        deltatype = 4;
                        deltablossom = b;
                    }
                }
                if deltatype == 0 {
                    // Max-cardinality optimum reached; a final update keeps the duals valid.
                    deltatype = 1;
                    delta = self.dualvar[..n].iter().copied().min().unwrap_or(0).max(0);
                }
                for v in 0..n {
                    match self.label[self.inblossom[v]] {
                        1 => self.dualvar[v] -= delta,
                        2 => self.dualvar[v] += delta,
                        _ => {}
                    }
                }
                for b in n..2 * n {
                    if self.blossombase[b] >= 0 && self.blossomparent[b] == NONE {
                        match self.label[b] {
                            1 => self.dualvar[b] += delta,
                            2 => self.dualvar[b] -= delta,
                            _ => {}
                        }
                    }
                }
                match deltatype {
                    1 => break,
                    2 => {
                        self.allowedge[deltaedge] = true;
                        let (mut i, j, _) = self.edges[deltaedge];
                        if self.label[self.inblossom[i]] == 0 {
                            i = j;
                        }
                        self.queue.push(i);
                    }
                    3 => {
                        self.allowedge[deltaedge] = true;
                        let (i, _, _) = self.edges[deltaedge];
                        self.queue.push(i);
                    }
                    _ => self.expand_blossom(deltablossom, false),
                }
            }
            if !augmented {
                break;
            }
            for b in n..2 * n {
                if self.blossomparent[b] == NONE
                    && self.blossombase[b] >= 0
                    && self.label[b] == 1
                    && self.dualvar[b] == 0
                {
                    self.expand_blossom(b, true);
                }
            }
        }
    }
}
