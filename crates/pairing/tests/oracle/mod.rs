//! A slow, literal reference implementation of the FIDE (Dutch) System, used only as a test
//! oracle: C.04.3 in the edition applied from 1 February 2026, with C.04.1 (Basic Rules) and
//! C.04.2 (General Handling Rules) where they bear on the pairing.
//!
//! What this oracle does NOT do: it is not fast (every bracket is enumerated exhaustively, so
//! fields beyond ~16 players are out of reach), it shares no code with the engine (`src/dutch.rs`,
//! `src/matching.rs`) and it does not use `history.rs`: scores, colour histories, floats and bye
//! eligibility are recomputed here from the round entries.
//!
//! How a bracket is paired (Art. 3–4). The text defines the result as the first candidate, in the
//! generation order of Art. 4, that is perfect (3.4), or else the best one, earliest among equals
//! (3.8). Both come to the same thing: the earliest candidate in generation order whose criteria
//! vector ([C5]–[C21], compared in priority order) is the best any candidate reaches. So the
//! oracle
//! 1. enumerates every possible outcome of the bracket (every set of downfloaters, then every
//!    pairing of the others that respects the structure of 3.3: MDPs meet residents only) and
//!    computes its vector, which gives the best vector and the set of outcomes reaching it;
//! 2. walks the candidates in the literal order of Art. 4 (MDP sets 4.4, transpositions of S2
//!    4.2, resident exchanges 4.3, the remainder nested inside the MDP-pairing as 3.7 says) and
//!    stops at the first one whose pairs are one of those best outcomes. Subtrees of the
//!    transposition search that contain a pair no best outcome has are skipped; that cannot skip
//!    the first best candidate.
//!
//! Readings chosen where the text leaves room (each is repeated next to its code):
//! - [C5] for a bracket that is not the last: the lowest PAB-assignee score that a complete
//!   pairing ([C1]–[C4]) of the players not yet paired can still reach.
//! - [C8] "complied with in the following bracket": the following bracket (this candidate's
//!   downfloaters as MDPs plus the next scoregroup) reaches, in this order, the lowest [C5], the
//!   fewest downfloaters ([C6]) and the lowest downfloater scores ([C7]); candidates are compared
//!   on that (count, scores) pair. No following bracket: nothing to compare.
//! - [C9] applies to a candidate that downfloats exactly one player who gets the PAB in every
//!   complete pairing of the rest reaching the lowest [C5] score (in the last bracket: always).
//! - [C13] counts players whose preference is strong (colour difference ±1, not absolute) and who
//!   do not get it; absolute preferences that are not granted are [C10]/[C11] matters.
//! - [C18]/[C20]: an MDP left in the Limbo (floating again) has a score difference larger than any
//!   paired MDP's.
//! - Topscorers (1.8): score above half of the maximum possible score of the rounds played so far,
//!   only when pairing the final round.

use std::cell::RefCell;
use std::collections::{HashMap, HashSet};
use std::fmt::Write as _;

use hanniball_pairing::{Colour, PlayerId, RoundEntry, Tournament};

/// Strength of a colour preference (C.04.3 1.7).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Strength {
    None,
    Mild,
    Strong,
    Absolute,
}

/// A float received in one round (C.04.3 1.4).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Float {
    None,
    Down,
    Up,
}

/// One player to be paired, as the rules see them before the round.
#[derive(Clone, Debug)]
pub struct Info {
    pub id: PlayerId,
    /// Score in half-points.
    pub score: u32,
    /// Colours of played games only, oldest first: unplayed rounds move to the front and vanish
    /// (C.04.2 3.4).
    pub colours: Vec<Colour>,
    /// Opponents of played games (a forfeit is not a meeting, C.04.2 3.5).
    pub played: Vec<PlayerId>,
    /// Float of each earlier round, indexed by tournament round (not compressed).
    pub floats: Vec<Float>,
    /// C.04.1 art. 4 / [C2]: no PAB yet and no round scored a win's points without playing.
    pub pab_eligible: bool,
    /// Rounds without a played game ([C9]).
    pub unplayed: u32,
    /// C.04.3 1.8.
    pub topscorer: bool,
}

impl Info {
    /// Colour difference (1.6): games with White minus games with Black.
    pub fn cd(&self) -> i32 {
        self.colours
            .iter()
            .map(|c| if *c == Colour::White { 1 } else { -1 })
            .sum()
    }

    /// Colour preference (1.7).
    pub fn preference(&self) -> (Option<Colour>, Strength) {
        let Some(&last) = self.colours.last() else {
            return (None, Strength::None);
        };
        let cd = self.cd();
        let n = self.colours.len();
        if cd > 1 {
            (Some(Colour::Black), Strength::Absolute)
        } else if cd < -1 {
            (Some(Colour::White), Strength::Absolute)
        } else if n >= 2 && self.colours[n - 2] == last {
            (Some(last.opposite()), Strength::Absolute)
        } else if cd == 1 {
            (Some(Colour::Black), Strength::Strong)
        } else if cd == -1 {
            (Some(Colour::White), Strength::Strong)
        } else {
            (Some(last.opposite()), Strength::Mild)
        }
    }

    /// Float received `back` rounds before the round being paired.
    pub fn float_back(&self, back: usize) -> Float {
        self.floats
            .len()
            .checked_sub(back)
            .map_or(Float::None, |i| self.floats[i])
    }
}

/// Builds the view of one player before `round` (1-based).
fn info(t: &Tournament, id: PlayerId, round: u32) -> Info {
    let p = t.player(id).expect("registered player");
    let mut colours = Vec::new();
    let mut played = Vec::new();
    let mut floats = Vec::new();
    let mut pab_eligible = true;
    let mut unplayed = 0;
    for r in 1..round {
        let e = p.entry(r).copied().unwrap_or(RoundEntry::NotPaired);
        let float = match e {
            RoundEntry::Game {
                opponent, colour, ..
            } => {
                colours.push(colour);
                played.push(opponent);
                // 1.4.2: scores before that round decide who floated.
                let mine = t.score_before(id, r);
                let theirs = t.score_before(opponent, r);
                if mine > theirs {
                    Float::Down
                } else if mine < theirs {
                    Float::Up
                } else {
                    Float::None
                }
            }
            // 1.4.3: the PAB, or more than a loss's points without playing.
            RoundEntry::PairingBye => Float::Down,
            other if other.half_points(t.pab_points) > 0 => Float::Down,
            _ => Float::None,
        };
        floats.push(float);
        if e.is_unplayed() {
            unplayed += 1;
            // C.04.1 art. 4: a PAB already, or a win's points (2 half-points) without playing.
            if e == RoundEntry::PairingBye || e.half_points(t.pab_points) >= 2 {
                pab_eligible = false;
            }
        }
    }
    let score = t.score_before(id, round).0;
    // 1.8: over 50% of the maximum possible score (a win per round played so far), only when
    // the final round is paired.
    let topscorer = round == t.total_rounds && score > (round - 1);
    Info {
        id,
        score,
        colours,
        played,
        floats,
        pab_eligible,
        unplayed,
        topscorer,
    }
}

/// The criteria vector of a candidate, compared field by field in priority order ([C4] is a
/// filter: candidates violating it are never formed). Smaller is better everywhere.
#[derive(Clone, Debug, Default, PartialEq, Eq, PartialOrd, Ord)]
pub struct Vector {
    /// [C5] score of the PAB assignee (lowest still reachable); 0 when the round has no PAB.
    pub c5: u32,
    /// [C6] number of downfloaters.
    pub c6: u32,
    /// [C7] downfloater scores, descending.
    pub c7: Vec<u32>,
    /// [C8] following bracket: its downfloater count and scores.
    pub c8: (u32, Vec<u32>),
    /// [C9] unplayed games of the PAB assignee (see the module comment).
    pub c9: u32,
    pub c10: u32,
    pub c11: u32,
    pub c12: u32,
    pub c13: u32,
    pub c14: u32,
    pub c15: u32,
    pub c16: u32,
    pub c17: u32,
    pub c18: Vec<u32>,
    pub c19: Vec<u32>,
    pub c20: Vec<u32>,
    pub c21: Vec<u32>,
}

impl Vector {
    /// The first criterion on which two vectors differ, with both values.
    pub fn first_difference(&self, other: &Vector) -> Option<String> {
        macro_rules! cmp {
            ($($f:ident),*) => {
                $(
                    if self.$f != other.$f {
                        return Some(format!(
                            "[{}] {:?} vs {:?}",
                            stringify!($f).to_uppercase(),
                            self.$f,
                            other.$f
                        ));
                    }
                )*
            };
        }
        cmp!(
            c5, c6, c7, c8, c9, c10, c11, c12, c13, c14, c15, c16, c17, c18, c19, c20, c21
        );
        None
    }
}

/// How one bracket was paired.
#[derive(Clone, Debug)]
pub struct BracketTrace {
    /// Score of the resident scoregroup.
    pub score: u32,
    /// Indexes (into the Art. 1.2 order) of the MDPs and of the residents.
    pub mdps: u32,
    pub residents: u32,
    /// Masks of the scoregroups below, in order.
    pub lower: Vec<u32>,
    /// Chosen pairs as (higher ranked, lower ranked) indexes.
    pub pairs: Vec<Pair>,
    pub downfloaters: u32,
    pub vector: Vector,
    /// Leaves of the literal candidate walk visited before the chosen candidate.
    pub visited: usize,
}

/// The oracle's answer for one round, with what is needed to explain it.
pub struct Oracle {
    pub round: u32,
    initial: Colour,
    /// Players to pair, in Art. 1.2 order (score descending, TPN ascending).
    pub players: Vec<Info>,
    compat: Vec<Vec<bool>>,
    complete_memo: RefCell<HashMap<u32, Option<u32>>>,
    pub brackets: Vec<BracketTrace>,
    /// `(white, black)` in board order.
    pub boards: Vec<(PlayerId, PlayerId)>,
    /// The rule of C.04.3 5.2 that decided each board's colours.
    pub colour_rules: Vec<&'static str>,
    pub bye: Option<PlayerId>,
}

/// A pair of players as indexes into the Art. 1.2 order, higher ranked first.
type Pair = (usize, usize);

/// A resident exchange: positions moved from S1 and positions moved from S2.
type Exchange = (Vec<usize>, Vec<usize>);

/// [C5], [C6] and [C7] of a downfloater set.
type Head = (u32, u32, Vec<u32>);

/// Called with each transposition: the walk, the pairs formed and the S2 players left over.
type TranspositionLeaf<'l, W> = dyn FnMut(&mut W, &[Pair], Vec<usize>) -> bool + 'l;

/// Called with each candidate of a homogeneous bracket or remainder.
type CandidateLeaf<'l, W> = dyn FnMut(&mut W, &[Pair]) -> bool + 'l;

/// Indexes of the set bits of a mask, ascending.
fn bits(mask: u32) -> impl Iterator<Item = usize> {
    (0..32).filter(move |i| mask & (1 << i) != 0)
}

fn bit(i: usize) -> u32 {
    1 << i
}

/// All `k`-subsets of `items` in lexicographic order (ascending sets).
fn combinations(items: &[usize], k: usize) -> Vec<Vec<usize>> {
    fn go(
        items: &[usize],
        k: usize,
        start: usize,
        cur: &mut Vec<usize>,
        out: &mut Vec<Vec<usize>>,
    ) {
        if cur.len() == k {
            out.push(cur.clone());
            return;
        }
        for i in start..items.len() {
            cur.push(items[i]);
            go(items, k, i + 1, cur, out);
            cur.pop();
        }
    }
    let mut out = Vec::new();
    go(items, k, 0, &mut Vec::new(), &mut out);
    out
}

/// Resident exchanges of 4.3 for a (sub)bracket of `n` players whose S1 holds the first `n1`:
/// pairs (moved from S1, moved from S2) as 0-based positions, in the order of 4.3.2, the empty
/// exchange first.
fn exchanges(n: usize, n1: usize) -> Vec<Exchange> {
    let s1: Vec<usize> = (0..n1).collect();
    let s2: Vec<usize> = (n1..n).collect();
    let mut all = Vec::new();
    for k in 0..=n1.min(n - n1) {
        for a in combinations(&s1, k) {
            for b in combinations(&s2, k) {
                all.push((a.clone(), b));
            }
        }
    }
    // 4.3.2: (1) fewest BSNs exchanged; (2) smallest difference between the sum of the BSNs moved
    // from S2 to S1 and the sum moved from S1 to S2; (3) the exchange moving the largest
    // differing BSN out of S1 first; (4) the exchange moving the smallest differing BSN out of
    // S2 first. For equally sized sets, "largest differing" is the first difference of the
    // descending lists and "smallest differing" that of the ascending lists.
    all.sort_by(|(a1, b1), (a2, b2)| {
        let diff = |a: &[usize], b: &[usize]| {
            b.iter().sum::<usize>() as i64 - a.iter().sum::<usize>() as i64
        };
        let desc = |a: &[usize]| {
            let mut v = a.to_vec();
            v.sort_by(|x, y| y.cmp(x));
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

/// Where a candidate walk stands: the outcomes to look for and the pairs they use.
struct Walk<'a> {
    oracle: &'a Oracle,
    /// The bracket and its MDPs (index masks).
    bracket: u32,
    mdps: u32,
    /// Downfloater sets that reach the best [C5]–[C9].
    sets: &'a HashSet<u32>,
    /// The best [C10]–[C21] (other fields at their default).
    best_tail: &'a Vector,
    /// Pairs used by at least one best outcome.
    useful: &'a [[bool; 32]; 32],
    visited: usize,
    exchange_cache: HashMap<(usize, usize), Vec<Exchange>>,
}

impl Walk<'_> {
    fn exchanges(&mut self, n: usize, n1: usize) -> Vec<Exchange> {
        self.exchange_cache
            .entry((n, n1))
            .or_insert_with(|| exchanges(n, n1))
            .clone()
    }

    /// Transpositions of `s2` (4.2): injective sequences of `n1` of its players in lexicographic
    /// order of their BSNs (`s2` is sorted, so index order is BSN order), paired with `s1` in
    /// order. Calls `leaf` with the pairs and the unused S2 players; stops when it says so.
    fn transpositions(
        &mut self,
        s1: &[usize],
        s2: &[usize],
        pairs: &mut Vec<Pair>,
        used: &mut Vec<bool>,
        leaf: &mut TranspositionLeaf<'_, Self>,
    ) -> bool {
        let i = pairs.len();
        if i == s1.len() {
            let rest: Vec<usize> = s2
                .iter()
                .zip(used.iter())
                .filter(|(_, u)| !**u)
                .map(|(p, _)| *p)
                .collect();
            return leaf(self, pairs, rest);
        }
        for j in 0..s2.len() {
            if used[j] {
                continue;
            }
            let pair = (s1[i].min(s2[j]), s1[i].max(s2[j]));
            if !self.useful[pair.0][pair.1] {
                continue;
            }
            used[j] = true;
            pairs.push(pair);
            let found = self.transpositions(s1, s2, pairs, used, leaf);
            pairs.pop();
            used[j] = false;
            if found {
                return true;
            }
        }
        false
    }

    /// A homogeneous bracket or remainder (3.6): transpositions of S2, then the next resident
    /// exchange between the original S1 and S2 (both re-sorted), and so on. `players` are in
    /// Art. 1.2 order; `n1` is the number of pairs to form. `leaf` gets the pairs.
    fn homogeneous(
        &mut self,
        players: &[usize],
        n1: usize,
        leaf: &mut CandidateLeaf<'_, Self>,
    ) -> bool {
        for (a, b) in self.exchanges(players.len(), n1) {
            let mut s1: Vec<usize> = (0..n1)
                .filter(|i| !a.contains(i))
                .chain(b.iter().copied())
                .map(|i| players[i])
                .collect();
            let mut s2: Vec<usize> = (n1..players.len())
                .filter(|i| !b.contains(i))
                .chain(a.iter().copied())
                .map(|i| players[i])
                .collect();
            s1.sort_unstable();
            s2.sort_unstable();
            let mut used = vec![false; s2.len()];
            let found = self.transpositions(
                &s1,
                &s2,
                &mut Vec::new(),
                &mut used,
                &mut |w: &mut Self, pairs: &[Pair], _rest: Vec<usize>| leaf(w, pairs),
            );
            if found {
                return true;
            }
        }
        false
    }

    /// Whether a candidate reaches the best vector of the bracket.
    fn is_good(&mut self, pairs: &[Pair]) -> bool {
        self.visited += 1;
        let paired: u32 = pairs.iter().fold(0, |a, &(x, y)| a | bit(x) | bit(y));
        let d = self.bracket & !paired;
        if !self.sets.contains(&d) {
            return false;
        }
        let mut v = Vector::default();
        self.oracle.tail(&mut v, pairs, d, self.mdps);
        v == *self.best_tail
    }
}

/// Colours for a pair by C.04.3 5.2: returns (colour of `hi`, rule). `hi` is the higher ranked
/// player (Art. 1.2).
fn allocate(hi: &Info, lo: &Info, initial: Colour) -> (Colour, &'static str) {
    let (ph, sh) = hi.preference();
    let (pl, sl) = lo.preference();
    // 5.2.1 grant both preferences (a player without a preference takes either colour).
    match (ph, pl) {
        (Some(h), Some(l)) if h != l => return (h, "5.2.1"),
        (Some(h), None) => return (h, "5.2.1"),
        (None, Some(l)) => return (l.opposite(), "5.2.1"),
        _ => {}
    }
    if let (Some(h), Some(_)) = (ph, pl) {
        // 5.2.2 grant the stronger preference; both absolute (topscorers): the wider colour
        // difference.
        if sh != sl {
            return if sh > sl {
                (h, "5.2.2")
            } else {
                (h.opposite(), "5.2.2")
            };
        }
        if sh == Strength::Absolute && hi.cd().abs() != lo.cd().abs() {
            return if hi.cd().abs() > lo.cd().abs() {
                (h, "5.2.2")
            } else {
                (h.opposite(), "5.2.2")
            };
        }
    }
    // 5.2.3 alternate to the most recent round in which one had White and the other Black,
    // comparing the played-games histories aligned at their ends (C.04.2 3.4).
    let (h, l) = (&hi.colours, &lo.colours);
    for k in 1..=h.len().min(l.len()) {
        let (ch, cl) = (h[h.len() - k], l[l.len() - k]);
        if ch != cl {
            return (ch.opposite(), "5.2.3");
        }
    }
    // 5.2.4 the higher ranked player's preference.
    if let Some(h) = ph {
        return (h, "5.2.4");
    }
    // 5.2.5 odd TPN: the initial colour; even TPN: the other.
    if hi.id.0 % 2 == 1 {
        (initial, "5.2.5")
    } else {
        (initial.opposite(), "5.2.5")
    }
}

/// Why a round has no pairing.
#[derive(Debug, PartialEq, Eq)]
pub struct NoPairing {
    pub round: u32,
    pub players: usize,
}

/// Sentinel score difference of an MDP left in the Limbo ([C18], [C20]).
const LIMBO: u32 = u32::MAX;

impl Oracle {
    /// Pairs the next round of `t` (the round after the last one with pairings).
    pub fn pair(t: &Tournament) -> Result<Oracle, NoPairing> {
        let round = t.rounds_paired() + 1;
        let mut players: Vec<Info> = t
            .players
            .iter()
            .filter(|p| p.entry(round).is_none() && p.withdrawn_from.is_none_or(|w| w > round))
            .map(|p| info(t, p.id, round))
            .collect();
        assert!(players.len() <= 32, "the oracle handles at most 32 players");
        // Art. 1.2: score, then TPN.
        players.sort_by(|a, b| b.score.cmp(&a.score).then(a.id.cmp(&b.id)));
        let n = players.len();
        let compat: Vec<Vec<bool>> = (0..n)
            .map(|i| {
                (0..n)
                    .map(|j| i != j && compatible(&players[i], &players[j]))
                    .collect()
            })
            .collect();
        let mut oracle = Oracle {
            round,
            initial: t.initial_colour,
            players,
            compat,
            complete_memo: RefCell::new(HashMap::new()),
            brackets: Vec::new(),
            boards: Vec::new(),
            colour_rules: Vec::new(),
            bye: None,
        };
        let all = if n == 32 { u32::MAX } else { (1u32 << n) - 1 };
        if oracle.complete(all).is_none() {
            // 1.9.3: no complete pairing; the Chief Arbiter decides.
            return Err(NoPairing { round, players: n });
        }
        // Scoregroups (1.3.1), top score first.
        let mut groups: Vec<(u32, u32)> = Vec::new();
        for (i, p) in oracle.players.iter().enumerate() {
            match groups.last_mut() {
                Some((s, m)) if *s == p.score => *m |= bit(i),
                _ => groups.push((p.score, bit(i))),
            }
        }
        let mut mdps = 0u32;
        let mut pairs = Vec::new();
        for k in 0..groups.len() {
            let lower: Vec<u32> = groups[k + 1..].iter().map(|g| g.1).collect();
            let trace = oracle.pair_bracket(groups[k].0, mdps, groups[k].1, lower);
            pairs.extend(trace.pairs.iter().copied());
            mdps = trace.downfloaters;
            oracle.brackets.push(trace);
        }
        assert!(mdps.count_ones() <= 1, "C4 leaves at most the PAB assignee");
        oracle.bye = bits(mdps).next().map(|i| oracle.players[i].id);
        oracle.allocate_and_order(&pairs);
        Ok(oracle)
    }

    /// [C4] with [C2]: whether the players in `s` can all be paired (all but one when odd, who
    /// must be eligible for the PAB) under [C1]–[C3]; the value is the lowest PAB-assignee score
    /// reachable (0 when `s` is even).
    fn complete(&self, s: u32) -> Option<u32> {
        if s == 0 {
            return Some(0);
        }
        if let Some(v) = self.complete_memo.borrow().get(&s) {
            return *v;
        }
        let x = s.trailing_zeros() as usize;
        let rest = s & !bit(x);
        let mut best: Option<u32> = None;
        if !s.count_ones().is_multiple_of(2)
            && self.players[x].pab_eligible
            && self.complete(rest).is_some()
        {
            best = Some(self.players[x].score);
        }
        for y in bits(rest) {
            if self.compat[x][y]
                && let Some(v) = self.complete(rest & !bit(y))
            {
                best = Some(best.map_or(v, |b| b.min(v)));
            }
        }
        self.complete_memo.borrow_mut().insert(s, best);
        best
    }

    /// Whether `s` can be split into pairs allowed by [C1]–[C3] and by 3.3 (two MDPs never meet
    /// in their destination bracket).
    fn matchable(&self, s: u32, mdps: u32, memo: &mut HashMap<u32, bool>) -> bool {
        if s == 0 {
            return true;
        }
        if !s.count_ones().is_multiple_of(2) {
            return false;
        }
        if let Some(v) = memo.get(&s) {
            return *v;
        }
        let x = s.trailing_zeros() as usize;
        let rest = s & !bit(x);
        let v = bits(rest).any(|y| {
            self.compat[x][y]
                && !(mdps & bit(x) != 0 && mdps & bit(y) != 0)
                && self.matchable(rest & !bit(y), mdps, memo)
        });
        memo.insert(s, v);
        v
    }

    /// Calls `f` with every split of `s` into allowed pairs (see `matchable`).
    fn matchings(&self, s: u32, mdps: u32, cur: &mut Vec<Pair>, f: &mut dyn FnMut(&[Pair])) {
        if s == 0 {
            f(cur);
            return;
        }
        let x = s.trailing_zeros() as usize;
        let rest = s & !bit(x);
        for y in bits(rest) {
            if self.compat[x][y] && !(mdps & bit(x) != 0 && mdps & bit(y) != 0) {
                cur.push((x, y));
                self.matchings(rest & !bit(y), mdps, cur, f);
                cur.pop();
            }
        }
    }

    fn scores_desc(&self, s: u32) -> Vec<u32> {
        let mut v: Vec<u32> = bits(s).map(|i| self.players[i].score).collect();
        v.sort_by(|a, b| b.cmp(a));
        v
    }

    /// [C5]–[C7] of a downfloater set `d` leaving `lower` unpaired below, or None if [C4] fails.
    fn head(&self, d: u32, lower: u32) -> Option<Head> {
        let c5 = self.complete(d | lower)?;
        Some((c5, d.count_ones(), self.scores_desc(d)))
    }

    /// [C8] for downfloaters `d`: the best the following bracket can do on [C5]–[C7].
    ///
    /// Reading: "every criterion from [C1] to [C7] is complied with" in the following bracket
    /// can only mean "optimised" there, since [C6]/[C7] are minimisations (as the Annotated
    /// Rules, p. 25–26, and bbpPairings read it): the following bracket is these downfloaters as
    /// MDPs plus the next scoregroup, paired best on ([C5], [C6], [C7]); candidates compare on
    /// the resulting (downfloater count, downfloater scores). Only one bracket is looked at.
    fn c8(&self, d: u32, lower: &[u32]) -> (u32, Vec<u32>) {
        let Some((&next, below)) = lower.split_first() else {
            return (0, Vec::new());
        };
        let below: u32 = below.iter().fold(0, |a, m| a | m);
        let bracket = d | next;
        let mut memo = HashMap::new();
        let mut best: Option<Head> = None;
        let mut sub = bracket;
        loop {
            if self.matchable(bracket & !sub, d, &mut memo)
                && let Some(h) = self.head(sub, below)
                && best.as_ref().is_none_or(|b| h < *b)
            {
                best = Some(h);
            }
            if sub == 0 {
                break;
            }
            sub = (sub - 1) & bracket;
        }
        let (_, c6, c7) = best.expect("[C4] held for this downfloater set");
        (c6, c7)
    }

    /// [C9] for downfloaters `d`.
    ///
    /// Reading of the note "apply to brackets that downfloat exactly one player, who will end up
    /// receiving the PAB": the candidate downfloats exactly one player, the round has a PAB, and
    /// no other player not yet paired could take the PAB at the lowest score [C5] allows in a
    /// complete pairing; then the value is that player's unplayed rounds (any round without a
    /// played game: byes, forfeits, absences, rounds before a late entry). Otherwise 0.
    fn c9(&self, d: u32, lower: u32, c5: u32) -> u32 {
        if d.count_ones() != 1 || (d | lower).count_ones().is_multiple_of(2) {
            return 0;
        }
        let x = d.trailing_zeros() as usize;
        let rest = d | lower;
        let someone_else = bits(lower).any(|y| {
            self.players[y].pab_eligible
                && self.players[y].score == c5
                && self.complete(rest & !bit(y)).is_some()
        });
        if someone_else {
            0
        } else {
            self.players[x].unplayed
        }
    }

    /// [C10]–[C21] of a whole candidate (`pairs` as (higher, lower) indexes).
    fn tail(&self, v: &mut Vector, pairs: &[Pair], d: u32, mdps: u32) {
        let p = &self.players;
        let is_mdp = |i: usize| mdps & bit(i) != 0;
        let mut opponent = [usize::MAX; 32];
        for &(a, b) in pairs {
            opponent[a] = b;
            opponent[b] = a;
            let (ca, _) = allocate(&p[a], &p[b], self.initial);
            for (x, c) in [(a, ca), (b, ca.opposite())] {
                let info = &p[x];
                let (pref, strength) = info.preference();
                if p[a].topscorer || p[b].topscorer {
                    let cd = info.cd() + if c == Colour::White { 1 } else { -1 };
                    if cd.abs() > 2 {
                        v.c10 += 1;
                    }
                    let n = info.colours.len();
                    if n >= 2 && info.colours[n - 1] == c && info.colours[n - 2] == c {
                        v.c11 += 1;
                    }
                }
                if pref.is_some_and(|pc| pc != c) {
                    v.c12 += 1;
                    // [C13] "strong colour preference" as defined in 1.7.2 (colour difference
                    // ±1); an absolute preference that is not granted only happens between
                    // topscorers and is [C10]/[C11]'s business.
                    if strength == Strength::Strong {
                        v.c13 += 1;
                    }
                }
            }
            if is_mdp(a) && !is_mdp(b) {
                if p[b].float_back(1) == Float::Up {
                    v.c15 += 1;
                    v.c19.push(p[a].score - p[b].score);
                }
                if p[b].float_back(2) == Float::Up {
                    v.c17 += 1;
                    v.c21.push(p[a].score - p[b].score);
                }
            }
        }
        for x in bits(d) {
            if !is_mdp(x) {
                v.c14 += u32::from(p[x].float_back(1) == Float::Down);
                v.c16 += u32::from(p[x].float_back(2) == Float::Down);
            }
        }
        for m in bits(mdps) {
            let o = opponent[m];
            // Reading ([C18], [C20]): the text does not define the score difference of an MDP
            // who floats again; as the Annotated Rules (p. 31) suggest, it is larger than that
            // of any MDP who is paired.
            let diff = if o == usize::MAX {
                LIMBO
            } else {
                p[m].score - p[o].score
            };
            if p[m].float_back(1) == Float::Down {
                v.c18.push(diff);
            }
            if p[m].float_back(2) == Float::Down {
                v.c20.push(diff);
            }
        }
        for list in [&mut v.c18, &mut v.c19, &mut v.c20, &mut v.c21] {
            list.sort_by(|a, b| b.cmp(a));
        }
    }

    /// The full vector of an outcome of a bracket, or None if [C4] fails.
    fn vector(&self, pairs: &[Pair], d: u32, mdps: u32, lower: &[u32]) -> Option<Vector> {
        let below: u32 = lower.iter().fold(0, |a, m| a | m);
        let (c5, c6, c7) = self.head(d, below)?;
        let mut v = Vector {
            c8: self.c8(d, lower),
            c9: self.c9(d, below, c5),
            c5,
            c6,
            c7,
            ..Vector::default()
        };
        self.tail(&mut v, pairs, d, mdps);
        Some(v)
    }

    /// Pairs one bracket: MDPs `mdps` and residents `residents` (index masks).
    fn pair_bracket(&self, score: u32, mdps: u32, residents: u32, lower: Vec<u32>) -> BracketTrace {
        let bracket = mdps | residents;
        let below: u32 = lower.iter().fold(0, |a, m| a | m);
        let mut memo = HashMap::new();

        // Step 1a: downfloater sets, best on [C5]–[C7] ([C4] as a filter).
        let mut heads: Vec<(u32, Head)> = Vec::new();
        let mut sub = bracket;
        loop {
            if self.matchable(bracket & !sub, mdps, &mut memo)
                && let Some(h) = self.head(sub, below)
            {
                heads.push((sub, h));
            }
            if sub == 0 {
                break;
            }
            sub = (sub - 1) & bracket;
        }
        let best_head = heads
            .iter()
            .map(|(_, h)| h.clone())
            .min()
            .expect("[C4] held before this bracket, so some outcome keeps it");
        // Step 1b: among those, best on [C8] and [C9] (they depend on the downfloaters only).
        let mut sets: Vec<(u32, (u32, Vec<u32>), u32)> = heads
            .into_iter()
            .filter(|(_, h)| *h == best_head)
            .map(|(d, _)| (d, self.c8(d, &lower), self.c9(d, below, best_head.0)))
            .collect();
        let best_mid = sets
            .iter()
            .map(|(_, c8, c9)| (c8.clone(), *c9))
            .min()
            .expect("non-empty");
        sets.retain(|(_, c8, c9)| (c8.clone(), *c9) == best_mid);

        // Step 1c: every pairing of the rest of the bracket for those sets, on [C10]–[C21]. The
        // fields of [C5]–[C9] are equal for all of them, so they are left at their default while
        // comparing and filled in afterwards.
        let mut best: Option<Vector> = None;
        let mut useful = [[false; 32]; 32];
        for (d, _, _) in &sets {
            self.matchings(bracket & !d, mdps, &mut Vec::new(), &mut |pairs| {
                let mut v = Vector::default();
                self.tail(&mut v, pairs, *d, mdps);
                let order = best.as_ref().map_or(std::cmp::Ordering::Less, |b| v.cmp(b));
                if order == std::cmp::Ordering::Less {
                    best = Some(v);
                    useful = [[false; 32]; 32];
                }
                if order != std::cmp::Ordering::Greater {
                    for &(x, y) in pairs {
                        useful[x][y] = true;
                    }
                }
            });
        }
        let best_tail = best.expect("some outcome");
        let vector = Vector {
            c5: best_head.0,
            c6: best_head.1,
            c7: best_head.2.clone(),
            c8: best_mid.0.clone(),
            c9: best_mid.1,
            ..best_tail.clone()
        };
        let best_sets: HashSet<u32> = sets.iter().map(|(d, _, _)| *d).collect();

        // Step 2: the literal walk (Art. 3.6, 3.7, 4) to the first best candidate.
        let down = vector.c6 as usize;
        let size = bracket.count_ones() as usize;
        let n_pairs = (size - down) / 2;
        // M1 (3.1.3): the MDPs paired; the downfloater scores ([C7]) fix how many MDPs float.
        let mdp_list: Vec<usize> = bits(mdps).collect();
        let res_list: Vec<usize> = bits(residents).collect();
        let floating_mdps = vector.c7.iter().filter(|&&s| s > score).count();
        let m1 = mdp_list.len() - floating_mdps;
        let mut walk = Walk {
            oracle: self,
            bracket,
            mdps,
            sets: &best_sets,
            best_tail: &best_tail,
            useful: &useful,
            visited: 0,
            exchange_cache: HashMap::new(),
        };
        let mut chosen: Vec<Pair> = Vec::new();
        if mdp_list.is_empty() {
            // 3.2.1 homogeneous: S1 is the first MaxPairs players.
            walk.homogeneous(&res_list, n_pairs, &mut |w, pairs| {
                if w.is_good(pairs) {
                    chosen = pairs.to_vec();
                    true
                } else {
                    false
                }
            });
        } else {
            // 3.7: MDP sets (4.4, smallest differing BSN first = lexicographic), then the S2
            // transpositions giving the MDP-pairing, then the remainder (fresh BSNs, 4.1) as a
            // homogeneous bracket of `n_pairs - m1` pairs.
            'sets: for set in combinations(&mdp_list, m1) {
                let mut used = vec![false; res_list.len()];
                let found = walk.transpositions(
                    &set,
                    &res_list,
                    &mut Vec::new(),
                    &mut used,
                    &mut |w: &mut Walk<'_>, mdp_pairs: &[Pair], remainder: Vec<usize>| {
                        w.homogeneous(&remainder, n_pairs - m1, &mut |w2, rem_pairs| {
                            let all: Vec<Pair> =
                                mdp_pairs.iter().chain(rem_pairs).copied().collect();
                            if w2.is_good(&all) {
                                chosen = all;
                                true
                            } else {
                                false
                            }
                        })
                    },
                );
                if found {
                    break 'sets;
                }
            }
        }
        assert!(
            !chosen.is_empty() || n_pairs == 0,
            "the literal walk reaches every outcome"
        );
        let paired: u32 = chosen.iter().fold(0, |a, &(x, y)| a | bit(x) | bit(y));
        let visited = walk.visited;
        BracketTrace {
            score,
            mdps,
            residents,
            lower,
            pairs: chosen,
            downfloaters: bracket & !paired,
            vector,
            visited,
        }
    }

    /// Colours (5.2) and board order (C.04.2 3.6: score of the higher ranked player, sum of
    /// scores, TPN of the higher ranked player; the PAB is not a board).
    fn allocate_and_order(&mut self, pairs: &[Pair]) {
        let mut boards: Vec<Pair> = pairs.to_vec();
        boards.sort_by_key(|&(a, b)| {
            let (pa, pb) = (&self.players[a], &self.players[b]);
            (
                std::cmp::Reverse(pa.score.max(pb.score)),
                std::cmp::Reverse(pa.score + pb.score),
                a.min(b),
            )
        });
        for (a, b) in boards {
            let (hi, lo) = (a.min(b), a.max(b));
            let (c, rule) = allocate(&self.players[hi], &self.players[lo], self.initial);
            let (h, l) = (self.players[hi].id, self.players[lo].id);
            self.boards
                .push(if c == Colour::White { (h, l) } else { (l, h) });
            self.colour_rules.push(rule);
        }
    }

    fn name(&self, i: usize) -> PlayerId {
        self.players[i].id
    }

    fn names(&self, mask: u32) -> Vec<u32> {
        bits(mask).map(|i| self.name(i).0).collect()
    }

    /// A readable account of the oracle's brackets.
    pub fn describe(&self) -> String {
        let mut out = format!("  oracle brackets of round {}:\n", self.round);
        for (k, b) in self.brackets.iter().enumerate() {
            let pairs: Vec<(u32, u32)> = b
                .pairs
                .iter()
                .map(|&(x, y)| (self.name(x).0, self.name(y).0))
                .collect();
            let _ = writeln!(
                out,
                "  bracket {k} (score {}): MDPs {:?} residents {:?} -> pairs {pairs:?} downfloaters {:?} (walk leaves {})\n    vector {:?}",
                b.score as f32 / 2.0,
                self.names(b.mdps),
                self.names(b.residents),
                self.names(b.downfloaters),
                b.visited,
                b.vector,
            );
        }
        out
    }

    /// Explains how another pairing of the same round differs from the oracle's: the first
    /// bracket where it picks another outcome and the criterion that ranks the oracle's first
    /// (or the rule that decides colours / board order).
    pub fn explain(&self, boards: &[(PlayerId, PlayerId)], bye: Option<PlayerId>) -> String {
        let index: HashMap<PlayerId, usize> = self
            .players
            .iter()
            .enumerate()
            .map(|(i, p)| (p.id, i))
            .collect();
        let mut partner: HashMap<usize, usize> = HashMap::new();
        for &(w, b) in boards {
            let (Some(&x), Some(&y)) = (index.get(&w), index.get(&b)) else {
                return format!("the other pairing pairs {w}-{b}, who are not both to be paired");
            };
            partner.insert(x, y);
            partner.insert(y, x);
        }
        if let Some(b) = bye
            && !index.contains_key(&b)
        {
            return format!("the other pairing gives the PAB to {b}, who is not to be paired");
        }
        for (k, br) in self.brackets.iter().enumerate() {
            let bracket = br.mdps | br.residents;
            let mut pairs: Vec<Pair> = bits(bracket)
                .filter_map(|x| {
                    partner
                        .get(&x)
                        .filter(|&&y| bracket & bit(y) != 0 && x < y)
                        .map(|&y| (x, y))
                })
                .collect();
            pairs.sort_unstable();
            let mut mine = br.pairs.clone();
            mine.sort_unstable();
            if pairs == mine {
                continue;
            }
            let paired: u32 = pairs.iter().fold(0, |a, &(x, y)| a | bit(x) | bit(y));
            let d = bracket & !paired;
            let head = format!(
                "bracket {k} (score {}): oracle pairs {:?}, other pairs {:?} (downfloaters {:?})",
                br.score as f32 / 2.0,
                br.pairs
                    .iter()
                    .map(|&(x, y)| (self.name(x).0, self.name(y).0))
                    .collect::<Vec<_>>(),
                pairs
                    .iter()
                    .map(|&(x, y)| (self.name(x).0, self.name(y).0))
                    .collect::<Vec<_>>(),
                self.names(d),
            );
            if let Some(&(x, y)) = pairs
                .iter()
                .find(|&&(x, y)| br.mdps & bit(x) != 0 && br.mdps & bit(y) != 0)
            {
                return format!(
                    "{head}: {} and {} are both MDPs here, so that is no candidate (3.3)",
                    self.name(x),
                    self.name(y)
                );
            }
            if let Some(&(x, y)) = pairs.iter().find(|&&(x, y)| !self.compat[x][y]) {
                return format!("{head}: {}-{} breaks [C1]/[C3]", self.name(x), self.name(y));
            }
            return match self.vector(&pairs, d, br.mdps, &br.lower) {
                None => format!("{head}: the other outcome breaks [C4] (completion)"),
                Some(v) => match br.vector.first_difference(&v) {
                    Some(diff) => format!("{head}: decided by {diff} (oracle vs other)"),
                    None => format!(
                        "{head}: equal on [C5]-[C21]; decided by generation order (Art. 4), oracle's candidate first"
                    ),
                },
            };
        }
        if bye != self.bye {
            return format!("same pairs, other PAB {bye:?} vs {:?}", self.bye);
        }
        for (i, &(w, b)) in self.boards.iter().enumerate() {
            if !boards.contains(&(w, b)) {
                return format!(
                    "colours of {w}-{b} (oracle White {w}) decided by C.04.3 {}",
                    self.colour_rules[i]
                );
            }
        }
        "same pairs and colours; board order by C.04.2 3.6 (higher score, sum of scores, higher ranked TPN)".to_string()
    }
}

/// [C1] and [C3]: the two have not played each other, and they are not two non-topscorers with
/// the same absolute colour preference.
fn compatible(a: &Info, b: &Info) -> bool {
    if a.played.contains(&b.id) || b.played.contains(&a.id) {
        return false;
    }
    let ((ca, sa), (cb, sb)) = (a.preference(), b.preference());
    let clash = sa == Strength::Absolute && sb == Strength::Absolute && ca == cb;
    !clash || a.topscorer || b.topscorer
}
