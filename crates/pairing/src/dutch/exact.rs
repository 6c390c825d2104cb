//! Exact pairing of small brackets: every outcome is ranked on C5–C21 and the first candidate
//! of the handbook's generation order (art. 4) that reaches the best ranking is taken.
//!
//! The result is defined by the rules as the first perfect candidate in generation order, or
//! else the best one, earliest among equals (art. 3.4, 3.8); both are "the earliest candidate
//! whose criteria vector is the best any candidate reaches". So the bracket is solved in three
//! steps, each exact:
//! 1. the downfloater sets that are best on C5–C7: sets of growing size, in ascending order of
//!    their scores, each checked for C4 on the round's matcher (the rest of the round must still
//!    have a perfect matching with the PAB at the lowest possible score, which is C5);
//! 2. among those, the best on C8 (the following bracket's best downfloater count and scores,
//!    found the same way) and C9;
//! 3. every pairing of the rest of the bracket (branch and bound: the criteria vector of a
//!    partial pairing never exceeds that of its completions) gives the best C10–C21; then the
//!    candidates are walked in generation order, skipping subtrees that contain a pair no best
//!    outcome has, to the first one that reaches it.

use std::collections::HashMap;

use super::{Ctx, compat};
use crate::history::{Float, Strength};
use crate::matching::Matcher;
use crate::tournament::Colour;

/// Brackets of at most this many players are paired exactly (bit masks over the bracket, and at
/// most 13!! = 135,135 pairings of a bracket to rank).
pub(super) const EXACT_BRACKET: usize = 14;

/// ... when the bracket and the next scoregroup (C8 looks one bracket ahead) hold at most this
/// many players together.
pub(super) const EXACT_LOOKAHEAD: usize = 24;

/// A set of positions in a bracket.
type Mask = u32;

/// Score difference of an MDP who floats again (C18, C20): larger than any real one.
const LIMBO: u32 = u32::MAX;

/// C10–C21 of a candidate, in priority order; smaller is better.
#[derive(Clone, Debug, Default, PartialEq, Eq, PartialOrd, Ord)]
struct Tail {
    c10: u32,
    c11: u32,
    c12: u32,
    c13: u32,
    c14: u32,
    c15: u32,
    c16: u32,
    c17: u32,
    c18: Vec<u32>,
    c19: Vec<u32>,
    c20: Vec<u32>,
    c21: Vec<u32>,
}

/// A bracket as seen by the exact search: players (indexes into the round's players, in pairing
/// order) of which the first `n_mdp` are moved-down players, and who may meet whom.
struct Local {
    players: Vec<usize>,
    n_mdp: usize,
    /// `adj[i]`: positions `i` may be paired with (C1, C3; MDPs meet residents only, 3.3).
    adj: Vec<Mask>,
}

impl Local {
    fn new(ctx: &Ctx<'_>, players: Vec<usize>, n_mdp: usize) -> Local {
        let n = players.len();
        let adj = (0..n)
            .map(|i| {
                (0..n)
                    .filter(|&j| {
                        j != i
                            && !(i < n_mdp && j < n_mdp)
                            && compat(&ctx.infos[players[i]], &ctx.infos[players[j]])
                    })
                    .fold(0, |m, j| m | 1 << j)
            })
            .collect();
        Local {
            players,
            n_mdp,
            adj,
        }
    }

    fn all(&self) -> Mask {
        if self.players.len() == 32 {
            Mask::MAX
        } else {
            (1 << self.players.len()) - 1
        }
    }

    /// The size of a maximum matching of the positions in `set`.
    fn max_pairs(&self, set: Mask) -> usize {
        let pos: Vec<usize> = bits(set).collect();
        let mut m = Matcher::new(pos.len(), |a, b| self.adj[pos[a]] & 1 << pos[b] != 0);
        (pos.len() - m.maximize()) / 2
    }

    fn is_mdp(&self, pos: usize) -> bool {
        pos < self.n_mdp
    }
}

/// The positions of the set bits, ascending.
fn bits(m: Mask) -> impl Iterator<Item = usize> {
    (0..32).filter(move |i| m & 1 << i != 0)
}

/// All `k`-subsets of `0..n`, as masks.
fn subsets(n: usize, k: usize) -> Vec<Mask> {
    fn go(n: usize, k: usize, start: usize, cur: Mask, out: &mut Vec<Mask>) {
        if k == 0 {
            out.push(cur);
            return;
        }
        for i in start..=n - k {
            go(n, k - 1, i + 1, cur | 1 << i, out);
        }
    }
    let mut out = Vec::new();
    go(n, k, 0, 0, &mut out);
    out
}

/// Whether the players still active in `m`, minus `out`, have a perfect matching (the bye
/// dummy included). The matcher is left as it was.
fn completes<F: Fn(usize, usize) -> bool>(m: &mut Matcher<F>, out: &[usize]) -> bool {
    let snap = m.snapshot();
    let mut freed = Vec::new();
    for &v in out {
        if let Some(u) = m.set_active(v, false) {
            freed.push(u);
        }
    }
    let ok = freed
        .into_iter()
        .all(|u| !m.is_active(u) || m.mate(u).is_some() || m.augment(u));
    m.restore(snap);
    ok
}

/// The best C6–C7 of a bracket (C5 is the matcher's bye score), with every downfloater set that
/// reaches it.
struct Head {
    count: usize,
    scores: Vec<u32>,
    sets: Vec<Mask>,
}

/// A resident exchange: positions moved from S1 and positions moved from S2.
type Exchange = (Vec<usize>, Vec<usize>);

/// A pair of positions, higher ranked first.
type Pair = (usize, usize);

/// Called with each transposition: the walk, the pairs formed and the S2 players left over;
/// returns whether to stop.
type TranspositionLeaf<'l, W> = dyn FnMut(&mut W, &[Pair], Vec<usize>) -> bool + 'l;

/// Called with each candidate of a homogeneous bracket or remainder; returns whether to stop.
type CandidateLeaf<'l, W> = dyn for<'c> FnMut(&mut W, &Ctx<'c>, &[Pair]) -> bool + 'l;

/// Where the generation-order walk stands.
struct Walk<'l> {
    local: &'l Local,
    best_sets: &'l [Mask],
    best_tail: &'l Tail,
    /// `useful[i]`: positions that some best outcome pairs with position `i`.
    useful: &'l [Mask],
    exchanges: HashMap<(usize, usize), Vec<Exchange>>,
}

impl Ctx<'_> {
    /// Pairs one small bracket exactly (see the module docs); the pairs are not yet fixed in the
    /// matcher.
    pub(super) fn pair_exact<F: Fn(usize, usize) -> bool>(
        &self,
        m: &mut Matcher<F>,
        bracket: &[usize],
        n_mdp: usize,
        next: &[usize],
    ) -> Vec<(usize, usize)> {
        let local = Local::new(self, bracket.to_vec(), n_mdp);
        let head = self
            .best_head(m, &local, &[])
            .expect("C4 held before this bracket, so some outcome keeps it");
        // C8 and C9 depend on the downfloaters only.
        let mut ranked: Vec<((usize, Vec<u32>), u32, Mask)> = head
            .sets
            .iter()
            .map(|&d| (self.c8(m, &local, d, next), self.c9(&local, d), d))
            .collect();
        let best_mid = ranked
            .iter()
            .map(|(c8, c9, _)| (c8.clone(), *c9))
            .min()
            .expect("some downfloater set");
        ranked.retain(|(c8, c9, _)| (c8.clone(), *c9) == best_mid);
        let best_sets: Vec<Mask> = ranked.into_iter().map(|(_, _, d)| d).collect();

        // C10–C21 over every pairing of the rest.
        let mut best_tail: Option<Tail> = None;
        let mut useful = vec![0 as Mask; bracket.len()];
        for &d in &best_sets {
            let mut pairs = Vec::new();
            self.rank_pairings(
                &local,
                d,
                local.all() & !d,
                &mut pairs,
                &mut best_tail,
                &mut useful,
            );
        }
        let best_tail = best_tail.expect("the downfloater sets leave a pairable rest");

        // The walk in generation order.
        let mut walk = Walk {
            local: &local,
            best_sets: &best_sets,
            best_tail: &best_tail,
            useful: &useful,
            exchanges: HashMap::new(),
        };
        let size = bracket.len();
        let n_pairs = (size - head.count) / 2;
        let floating_mdps = bits(best_sets[0]).filter(|&p| p < n_mdp).count();
        let m1 = n_mdp - floating_mdps;
        let residents: Vec<usize> = (n_mdp..size).collect();
        let mut chosen = None;
        if n_mdp == 0 {
            walk.homogeneous(self, &residents, n_pairs, &mut |w, ctx, pairs| {
                if w.is_good(ctx, pairs) {
                    chosen = Some(pairs.to_vec());
                    true
                } else {
                    false
                }
            });
        } else {
            // 3.7: sets of MDPs in lexicographic order (4.4), their opponents as transpositions
            // of the residents (4.2), the remainder inside as a homogeneous bracket.
            let mdps: Vec<usize> = (0..n_mdp).collect();
            for set in subsets(n_mdp, m1) {
                let s1: Vec<usize> = bits(set).map(|i| mdps[i]).collect();
                let mut used = vec![false; residents.len()];
                let found = walk.transpositions(
                    &s1,
                    &residents,
                    &mut Vec::new(),
                    &mut used,
                    &mut |w, mdp_pairs, rest| {
                        w.homogeneous(self, &rest, n_pairs - m1, &mut |w2, ctx, rem_pairs| {
                            let all: Vec<(usize, usize)> =
                                mdp_pairs.iter().chain(rem_pairs).copied().collect();
                            if w2.is_good(ctx, &all) {
                                chosen = Some(all);
                                true
                            } else {
                                false
                            }
                        })
                    },
                );
                if found {
                    break;
                }
            }
        }
        chosen
            .expect("the walk reaches every outcome")
            .into_iter()
            .map(|(a, b)| (bracket[a], bracket[b]))
            .collect()
    }

    /// The best downfloater count and scores of `local` (C6, C7) among the sets that keep C4
    /// (the rest of the bracket pairable inside, the round completable without `out` and the
    /// players the bracket pairs). `None` if no set does.
    fn best_head<F: Fn(usize, usize) -> bool>(
        &self,
        m: &mut Matcher<F>,
        local: &Local,
        out: &[usize],
    ) -> Option<Head> {
        let n = local.players.len();
        let min = n - 2 * local.max_pairs(local.all());
        for count in (min..=n).step_by(2) {
            let mut keyed: Vec<(Vec<u32>, Mask)> = subsets(n, count)
                .into_iter()
                .map(|d| {
                    let mut s: Vec<u32> = bits(d)
                        .map(|i| self.infos[local.players[i]].score)
                        .collect();
                    s.sort_unstable_by(|a, b| b.cmp(a));
                    (s, d)
                })
                .collect();
            keyed.sort();
            let mut i = 0;
            while i < keyed.len() {
                let mut j = i;
                let mut sets = Vec::new();
                while j < keyed.len() && keyed[j].0 == keyed[i].0 {
                    let d = keyed[j].1;
                    let rest = local.all() & !d;
                    if local.max_pairs(rest) * 2 == (n - count) {
                        let mut gone: Vec<usize> = out.to_vec();
                        gone.extend(bits(rest).map(|p| local.players[p]));
                        if completes(m, &gone) {
                            sets.push(d);
                        }
                    }
                    j += 1;
                }
                if !sets.is_empty() {
                    sets.sort_unstable();
                    return Some(Head {
                        count,
                        scores: keyed[i].0.clone(),
                        sets,
                    });
                }
                i = j;
            }
        }
        None
    }

    /// C8: the following bracket (these downfloaters as MDPs and the next scoregroup) paired as
    /// well as it can be on C5–C7; its downfloater count and scores.
    fn c8<F: Fn(usize, usize) -> bool>(
        &self,
        m: &mut Matcher<F>,
        local: &Local,
        d: Mask,
        next: &[usize],
    ) -> (usize, Vec<u32>) {
        if next.is_empty() {
            return (0, Vec::new());
        }
        let movers: Vec<usize> = bits(d).map(|p| local.players[p]).collect();
        let out: Vec<usize> = bits(local.all() & !d).map(|p| local.players[p]).collect();
        let n_mdp = movers.len();
        let mut players = movers;
        players.extend_from_slice(next);
        let following = Local::new(self, players, n_mdp);
        let h = self
            .best_head(m, &following, &out)
            .expect("C4 holds for this downfloater set");
        (h.count, h.scores)
    }

    /// C8 for the fast search: the following bracket of `floaters` (in pairing order, the
    /// candidate's pairs already fixed in `m`) and `next`, paired as well as it can be on C5–C7.
    pub(super) fn lookahead<F: Fn(usize, usize) -> bool>(
        &self,
        m: &mut Matcher<F>,
        floaters: &[usize],
        next: &[usize],
    ) -> (usize, Vec<u32>) {
        let mut players = floaters.to_vec();
        players.extend_from_slice(next);
        let following = Local::new(self, players, floaters.len());
        let h = self
            .best_head(m, &following, &[])
            .expect("the matcher holds a complete pairing of the rest");
        (h.count, h.scores)
    }

    /// C9: a candidate that downfloats exactly one player, who must then get the PAB (nobody
    /// below has the lowest score a complete pairing allows the PAB assignee: everybody below
    /// scores less than the bracket), counts that player's unplayed rounds.
    fn c9(&self, local: &Local, d: Mask) -> u32 {
        if self.dummy.is_none() || d.count_ones() != 1 {
            return 0;
        }
        let x = &self.infos[local.players[d.trailing_zeros() as usize]];
        if Some(x.score) == self.bye_score {
            x.unplayed
        } else {
            0
        }
    }

    /// C10–C21 of `pairs` (positions, higher ranked first) with downfloaters `d`; `d` and
    /// `pairs` may be partial, which gives a lower bound of the completed candidate.
    fn tail(&self, local: &Local, d: Mask, pairs: &[(usize, usize)]) -> Tail {
        let infos = self.infos;
        let at = |p: usize| &infos[local.players[p]];
        let mut t = Tail::default();
        for &(a, b) in pairs {
            let (ga, gb) = (local.players[a], local.players[b]);
            let (w, _) = self.colours(ga, gb, Colour::White);
            let top = infos[ga].top || infos[gb].top;
            for (g, got) in [
                (
                    ga,
                    if w == ga {
                        Colour::White
                    } else {
                        Colour::Black
                    },
                ),
                (
                    gb,
                    if w == gb {
                        Colour::White
                    } else {
                        Colour::Black
                    },
                ),
            ] {
                let i = &infos[g];
                if top {
                    let cd = i.cd + if got == Colour::White { 1 } else { -1 };
                    if cd.abs() > 2 {
                        t.c10 += 1;
                    }
                    let n = i.colours.len();
                    if n >= 2 && i.colours[n - 1] == got && i.colours[n - 2] == got {
                        t.c11 += 1;
                    }
                }
                if i.pref.colour.is_some_and(|c| c != got) {
                    t.c12 += 1;
                    // C13 is about strong preferences (1.7.2); an absolute one that is not
                    // granted (topscorers only) is C10/C11's business.
                    if i.pref.strength == Strength::Strong {
                        t.c13 += 1;
                    }
                }
            }
            let (mdp, res) = match (local.is_mdp(a), local.is_mdp(b)) {
                (true, false) => (a, b),
                (false, true) => (b, a),
                _ => continue,
            };
            let diff = at(mdp).score - at(res).score;
            if at(res).float1 == Float::Up {
                t.c15 += 1;
                t.c19.push(diff);
            }
            if at(res).float2 == Float::Up {
                t.c17 += 1;
                t.c21.push(diff);
            }
            if at(mdp).float1 == Float::Down {
                t.c18.push(diff);
            }
            if at(mdp).float2 == Float::Down {
                t.c20.push(diff);
            }
        }
        for p in bits(d) {
            let i = at(p);
            if local.is_mdp(p) {
                if i.float1 == Float::Down {
                    t.c18.push(LIMBO);
                }
                if i.float2 == Float::Down {
                    t.c20.push(LIMBO);
                }
            } else {
                t.c14 += u32::from(i.float1 == Float::Down);
                t.c16 += u32::from(i.float2 == Float::Down);
            }
        }
        for v in [&mut t.c18, &mut t.c19, &mut t.c20, &mut t.c21] {
            v.sort_unstable_by(|a, b| b.cmp(a));
        }
        t
    }

    /// Every pairing of the positions in `rest`: the best tail, and the pairs of the pairings
    /// that reach it. Branch and bound: a partial tail is a lower bound (counts and lists only
    /// grow).
    fn rank_pairings(
        &self,
        local: &Local,
        d: Mask,
        rest: Mask,
        pairs: &mut Vec<(usize, usize)>,
        best: &mut Option<Tail>,
        useful: &mut [Mask],
    ) {
        let t = self.tail(local, d, pairs);
        if best.as_ref().is_some_and(|b| t > *b) {
            return;
        }
        if rest == 0 {
            if best.as_ref().is_none_or(|b| t < *b) {
                *best = Some(t);
                useful.iter_mut().for_each(|u| *u = 0);
            }
            for &(a, b) in pairs.iter() {
                useful[a] |= 1 << b;
                useful[b] |= 1 << a;
            }
            return;
        }
        let a = rest.trailing_zeros() as usize;
        let others = rest & !(1 << a) & local.adj[a];
        for b in bits(others) {
            pairs.push((a, b));
            self.rank_pairings(local, d, rest & !(1 << a) & !(1 << b), pairs, best, useful);
            pairs.pop();
        }
    }
}

impl Walk<'_> {
    fn is_good(&self, ctx: &Ctx<'_>, pairs: &[(usize, usize)]) -> bool {
        let paired: Mask = pairs.iter().fold(0, |m, &(a, b)| m | 1 << a | 1 << b);
        let d = self.local.all() & !paired;
        self.best_sets.contains(&d) && ctx.tail(self.local, d, pairs) == *self.best_tail
    }

    /// Transpositions of `s2` (4.2): sequences of its players in lexicographic order of BSNs,
    /// paired with `s1` in order; `leaf` gets the pairs and the S2 players left over and says
    /// whether to stop.
    fn transpositions(
        &mut self,
        s1: &[usize],
        s2: &[usize],
        pairs: &mut Vec<(usize, usize)>,
        used: &mut Vec<bool>,
        leaf: &mut TranspositionLeaf<'_, Self>,
    ) -> bool {
        let i = pairs.len();
        if i == s1.len() {
            let rest: Vec<usize> = s2
                .iter()
                .zip(used.iter())
                .filter(|(_, u)| !**u)
                .map(|(&p, _)| p)
                .collect();
            return leaf(self, pairs, rest);
        }
        for j in 0..s2.len() {
            let (a, b) = (s1[i].min(s2[j]), s1[i].max(s2[j]));
            if used[j] || self.useful[a] & 1 << b == 0 {
                continue;
            }
            used[j] = true;
            pairs.push((a, b));
            let found = self.transpositions(s1, s2, pairs, used, leaf);
            pairs.pop();
            used[j] = false;
            if found {
                return true;
            }
        }
        false
    }

    /// A homogeneous bracket or remainder of `players` (positions, in order) forming `n1`
    /// pairs: transpositions of S2, then each resident exchange (4.3) in turn.
    fn homogeneous(
        &mut self,
        ctx: &Ctx<'_>,
        players: &[usize],
        n1: usize,
        leaf: &mut CandidateLeaf<'_, Self>,
    ) -> bool {
        let n = players.len();
        let list = self
            .exchanges
            .entry((n, n1))
            .or_insert_with(|| exchanges(n, n1))
            .clone();
        for (from1, from2) in list {
            let mut s1: Vec<usize> = (0..n1)
                .filter(|i| !from1.contains(i))
                .chain(from2.iter().copied())
                .map(|i| players[i])
                .collect();
            let mut s2: Vec<usize> = (n1..n)
                .filter(|i| !from2.contains(i))
                .chain(from1.iter().copied())
                .map(|i| players[i])
                .collect();
            s1.sort_unstable();
            s2.sort_unstable();
            let mut used = vec![false; s2.len()];
            if self.transpositions(&s1, &s2, &mut Vec::new(), &mut used, &mut |w, pairs, _| {
                leaf(w, ctx, pairs)
            }) {
                return true;
            }
        }
        false
    }
}

/// Resident exchanges of 4.3 for `n` players whose S1 holds the first `n1`, as positions moved
/// from S1 and from S2, the empty exchange first, in the order of 4.3.2: fewest players
/// exchanged; smallest difference between the BSN sums moved from S2 and from S1; the largest
/// differing BSN moved out of S1; the smallest differing BSN moved out of S2.
fn exchanges(n: usize, n1: usize) -> Vec<Exchange> {
    let mut all: Vec<Exchange> = Vec::new();
    for k in 0..=n1.min(n - n1) {
        for a in subsets(n1, k) {
            for b in subsets(n - n1, k) {
                all.push((bits(a).collect(), bits(b).map(|j| j + n1).collect()));
            }
        }
    }
    all.sort_by(|(a1, b1), (a2, b2)| {
        let diff = |a: &[usize], b: &[usize]| {
            b.iter().sum::<usize>() as i64 - a.iter().sum::<usize>() as i64
        };
        let desc = |a: &[usize]| {
            let mut v = a.to_vec();
            v.sort_unstable_by(|x, y| y.cmp(x));
            v
        };
        a1.len()
            .cmp(&a2.len())
            .then(diff(a1, b1).cmp(&diff(a2, b2)))
            .then(desc(a2).cmp(&desc(a1)))
            .then(b1.cmp(b2))
    });
    all
}
