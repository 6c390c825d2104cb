//! The FIDE (Dutch) Swiss system, C.04.3 as applied from 1 February 2026 (criteria C1–C21).
//!
//! # Design
//!
//! The engine follows the handbook's procedure bracket by bracket, from the top scoregroup down,
//! and keeps one invariant with a maximum-cardinality matching (Edmonds' blossom algorithm on the
//! implicit compatibility graph, see `matching.rs`): *the players not yet paired, plus a dummy
//! "bye" vertex when their number is odd, always have a perfect matching*. The dummy is adjacent
//! only to players who may receive the pairing-allocated bye (C2) and whose score is the lowest
//! score such a complete pairing allows (C5, computed once before the first bracket). Every pair
//! a bracket search wants to fix is first tried on the matcher (one augmenting path, usually of
//! length one); a pair that would leave the rest unpairable is refused. So the absolute criteria
//! C1–C3, the completion criterion C4 and C5 hold by construction, and a round is paired whenever
//! any pairing satisfying them exists.
//!
//! The result of a bracket is, by art. 3.4 and 3.8, the earliest candidate in the generation
//! order of art. 4 whose vector of quality criteria (C6–C21 in priority order) is the best any
//! candidate reaches. Two searches produce it:
//!
//! - **Exact search** (`exact.rs`) for brackets of at most 14 players whose next scoregroup is
//!   small too (bracket and next scoregroup at most 24): the best downfloater sets on C6–C7 (sets
//!   of growing size, in ascending order of scores, each checked for C4/C5 on the round's matcher
//!   from a snapshot), then C8 (the following bracket, these downfloaters as MDPs plus the next
//!   scoregroup, paired as well as it can be on C5–C7: its downfloater count, then their scores)
//!   and C9, then every pairing of the rest by branch and bound for C10–C21, then the literal
//!   walk of art. 4 (MDP sets 4.4, transpositions 4.2, all resident exchanges 4.3, the remainder
//!   inside the MDP-pairing as 3.7 says) to the first candidate reaching the best vector. This is
//!   exact: it gives the same pairing as the literal reference implementation in
//!   `tests/oracle` on every one of 50,000 rounds of `tests/dutch_differential.rs`.
//! - **Fast search** for larger brackets: candidates in the handbook's order (heterogeneous:
//!   sets of MDPs in lexicographic order, their opponents among the residents as transpositions,
//!   then the remainder; homogeneous or remainder: transpositions of S2 as a depth-first search
//!   over S1 slots, then exchanges of one and two residents in the order of 4.3), shapes (pairs,
//!   MDPs paired) from the best C6 down, with colour-conflict thresholds that grow from a lower
//!   bound. Each complete candidate gets the same vector as in the exact search (C8 exactly when
//!   the following bracket has at most 24 players, otherwise the count a maximum matching leaves
//!   there). A candidate that reaches the shape's lower bound of that vector is *perfect* and
//!   ends the search; otherwise the best candidate seen is taken, the earliest among equals.
//!
//! What is exact in the fast search: the vector of each candidate (C5–C21 as the exact search
//! computes them, up to the C8 approximation for following brackets of more than 24 players),
//! and the choice when a perfect candidate is found and no limit cut the search of the shapes
//! and thresholds before it: every candidate skipped by a colour threshold is worse on C12, no
//! candidate of a later shape beats the lower bound (C6–C9, C12, C13) of an earlier one, so that
//! candidate is the best and, being the first met in generation order, the one the rules
//! prescribe. What is not: the search limits (a depth-first node budget per bracket, 3,000 more nodes after the
//! first candidate, at most 64 MDP sets, exchanges of at most two residents and only in brackets
//! of at most 64 players). When they cut the search, the best candidate seen is used, and when a
//! budget runs out before any candidate, the pairs the matcher holds inside the bracket, so a
//! legal pairing is always produced. On the 50,000 rounds of the differential test the fast
//! search alone (`exact_bracket: 0`) also agrees with the oracle everywhere; a unit test below
//! keeps it in step with the exact search.
//!
//! Readings of the 2026 text (shared with the oracle): forfeit wins and PAB/full-point/half-point
//! byes are downfloats, zero-point byes and forfeit losses are not; colours come from played
//! games only; C9 applies when a candidate floats exactly one player who must then get the PAB;
//! C13 counts strong (not absolute) preferences; an MDP who floats again has a score difference
//! larger than any real one (C18, C20).

mod exact;

use thiserror::Error;

use crate::check::Violation;
use crate::history::{Float, Preference, Strength, states_before};
use crate::matching::Matcher;
use crate::tournament::{Colour, PlayerId, RoundEntry, Tournament};

/// Options of the Dutch engine.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DutchOptions {
    /// Points of a pairing-allocated bye in half-points (default 2, a win). They are used for
    /// every PAB of the tournament, past ones included.
    pub bye_points: u32,
    /// Depth-first search nodes allowed per bracket on top of four per player (fast search).
    pub search_budget: usize,
    /// Brackets of at most this many players (capped at 24) are paired by the exact search when
    /// the next scoregroup is small too; 0 uses the fast search everywhere.
    pub exact_bracket: usize,
}

impl Default for DutchOptions {
    fn default() -> Self {
        DutchOptions {
            bye_points: 2,
            search_budget: 20_000,
            exact_bracket: exact::EXACT_BRACKET,
        }
    }
}

impl DutchOptions {
    /// The default options with the tournament's own PAB value.
    pub fn for_tournament(t: &Tournament) -> Self {
        DutchOptions {
            bye_points: t.pab_points,
            ..DutchOptions::default()
        }
    }
}

/// One round's pairing.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Pairing {
    /// `(white, black)` in board order (C.04.2 3.6).
    pub boards: Vec<(PlayerId, PlayerId)>,
    /// The player who gets the pairing-allocated bye, if the number of players is odd.
    pub bye: Option<PlayerId>,
}

/// Why a round cannot be paired.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
pub enum PairingError {
    #[error("the tournament is over: all {rounds} rounds are paired")]
    TournamentOver { rounds: u32 },
    #[error("inconsistent records: {0}")]
    Inconsistent(Violation),
    #[error("round {round}: no pairing of the {players} players satisfies the absolute criteria")]
    NoValidPairing { round: u32, players: usize },
}

/// Writes a pairing as pairing programs (JaVaFo, bbpPairings) do: the number of pairs (the bye
/// counts as one), then `white black` per board and `<rank> 0` for the bye.
pub fn format_pairing(p: &Pairing) -> String {
    let mut out = format!("{}\n", p.boards.len() + usize::from(p.bye.is_some()));
    for (w, b) in &p.boards {
        out.push_str(&format!("{w} {b}\n"));
    }
    if let Some(b) = p.bye {
        out.push_str(&format!("{b} 0\n"));
    }
    out
}

/// What the engine needs to know about one player to be paired, in pairing order.
#[derive(Clone, Debug)]
struct Info {
    id: PlayerId,
    score: u32,
    pref: Preference,
    colours: Vec<Colour>,
    cd: i32,
    played: Vec<PlayerId>,
    top: bool,
    float1: Float,
    float2: Float,
    unplayed: u32,
    bye_ok: bool,
}

fn compat(a: &Info, b: &Info) -> bool {
    if a.played.binary_search(&b.id).is_ok() {
        return false;
    }
    if a.top || b.top {
        return true;
    }
    !(a.pref.strength == Strength::Absolute
        && b.pref.strength == Strength::Absolute
        && a.pref.colour == b.pref.colour)
}

/// Pairs the next round of `t` with the Dutch system.
pub fn pair_next_round(t: &Tournament, options: &DutchOptions) -> Result<Pairing, PairingError> {
    let owned;
    let t = if t.pab_points == options.bye_points {
        t
    } else {
        owned = Tournament {
            pab_points: options.bye_points,
            ..t.clone()
        };
        &owned
    };
    let round = t.rounds_paired() + 1;
    if round > t.total_rounds {
        return Err(PairingError::TournamentOver {
            rounds: t.total_rounds,
        });
    }
    if let Some(v) = crate::check::check(t)
        .into_iter()
        .find(|v| matches!(v, Violation::Inconsistent { .. }))
    {
        return Err(PairingError::Inconsistent(v));
    }
    let states = states_before(t, round);
    let mut infos: Vec<Info> = t
        .players
        .iter()
        .filter(|p| p.entry(round).is_none() && p.withdrawn_from.is_none_or(|w| w > round))
        .map(|p| {
            let s = &states[p.id.0 as usize - 1];
            Info {
                id: p.id,
                score: s.score.0,
                pref: s.preference(),
                colours: s.colours.clone(),
                cd: s.colour_difference(),
                played: s.played.clone(),
                top: s.topscorer,
                float1: s.float_back(1),
                float2: s.float_back(2),
                unplayed: s.unplayed,
                bye_ok: !s.pab_blocked,
            }
        })
        .collect();
    infos.sort_by_key(|i| (std::cmp::Reverse(i.score), i.id));
    let n = infos.len();
    if n == 0 {
        return Ok(Pairing::default());
    }
    let no_pairing = PairingError::NoValidPairing { round, players: n };

    // C5: the lowest score the bye assignee can have in a complete pairing.
    let odd = n % 2 == 1;
    let bye_score = if odd {
        let mut scores: Vec<u32> = infos.iter().filter(|i| i.bye_ok).map(|i| i.score).collect();
        scores.sort_unstable();
        scores.dedup();
        let mut found = None;
        for s in scores {
            let mut m = Matcher::new(n + 1, |a, b| edge(&infos, Some(s), a, b));
            if m.maximize() == 0 {
                found = Some(s);
                break;
            }
        }
        Some(found.ok_or(no_pairing.clone())?)
    } else {
        None
    };
    let total = n + usize::from(odd);
    let mut m = Matcher::new(total, |a, b| edge(&infos, bye_score, a, b));
    if m.maximize() != 0 {
        return Err(no_pairing);
    }

    // Scoregroups, top down.
    let mut groups: Vec<Vec<usize>> = Vec::new();
    for i in 0..n {
        match groups.last_mut() {
            Some(g) if infos[g[0]].score == infos[i].score => g.push(i),
            _ => groups.push(vec![i]),
        }
    }
    let ctx = Ctx {
        infos: &infos,
        dummy: odd.then_some(n),
        bye_score,
        budget: options.search_budget,
    };
    let mut pairs: Vec<(usize, usize)> = Vec::new();
    let mut mdps: Vec<usize> = Vec::new();
    for (gi, group) in groups.iter().enumerate() {
        let mut bracket = mdps.clone();
        bracket.extend(group.iter().copied());
        let next: &[usize] = groups.get(gi + 1).map_or(&[], |g| g.as_slice());
        let last = gi + 1 == groups.len();
        let chosen = if bracket.len() <= options.exact_bracket.min(exact::EXACT_LOOKAHEAD)
            && bracket.len() + next.len() <= exact::EXACT_LOOKAHEAD
        {
            let chosen = ctx.pair_exact(&mut m, &bracket, mdps.len(), next);
            for &(a, b) in &chosen {
                let fixed = try_fix(&mut m, a, b);
                debug_assert!(fixed, "an exact bracket keeps the round completable");
            }
            chosen
        } else {
            ctx.pair_bracket(&mut m, &bracket, mdps.len(), next, last)
        };
        let mut paired = vec![false; total];
        for &(a, b) in &chosen {
            paired[a] = true;
            paired[b] = true;
        }
        pairs.extend(chosen);
        mdps = bracket.into_iter().filter(|&p| !paired[p]).collect();
    }
    // Whatever is still matched among real players (only after a fallback) is paired too; the
    // player matched with the dummy gets the bye.
    let mut bye = None;
    for v in mdps {
        match m.mate(v) {
            Some(u) if Some(u) == ctx.dummy => bye = Some(v),
            Some(u) if u > v && u < n => pairs.push((v, u)),
            Some(_) => {}
            None => return Err(no_pairing),
        }
    }
    let mut boards: Vec<(usize, usize)> = pairs
        .into_iter()
        .map(|(a, b)| ctx.colours(a, b, t.initial_colour))
        .collect();
    // C.04.2 3.6: the higher score of the pair, the sum of scores, the higher-ranked player's TPN.
    boards.sort_by_key(|&(w, b)| {
        let (sw, sb) = (infos[w].score, infos[b].score);
        (
            std::cmp::Reverse(sw.max(sb)),
            std::cmp::Reverse(sw + sb),
            w.min(b),
        )
    });
    Ok(Pairing {
        boards: boards
            .into_iter()
            .map(|(w, b)| (infos[w].id, infos[b].id))
            .collect(),
        bye: bye.map(|v| infos[v].id),
    })
}

/// The matcher's edges: compatibility between players, and the dummy (index `infos.len()`) to
/// every bye-eligible player with the bye score.
fn edge(infos: &[Info], bye_score: Option<u32>, a: usize, b: usize) -> bool {
    let n = infos.len();
    if a == n || b == n {
        let p = if a == n { b } else { a };
        return p < n && infos[p].bye_ok && Some(infos[p].score) == bye_score;
    }
    compat(&infos[a], &infos[b])
}

/// C8: the following bracket's downfloater count and scores (descending).
type C8 = (usize, Vec<u32>);

/// The quality of a bracket candidate: lower is better, fields in the priority order of the
/// criteria (lexicographic comparison).
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
struct Quality {
    c6_floaters: usize,
    c7_floater_scores: Vec<u32>,
    /// The following bracket's downfloater count and scores (exact when it is small, else the
    /// count a maximum matching leaves and no scores).
    c8_next: C8,
    c9_bye_unplayed: u32,
    c10_top_cd: usize,
    c11_top_streak: usize,
    c12_colour: usize,
    c13_strong: usize,
    c14_down1: usize,
    c15_up1: usize,
    c16_down2: usize,
    c17_up2: usize,
    c18: Vec<u32>,
    c19: Vec<u32>,
    c20: Vec<u32>,
    c21: Vec<u32>,
}

/// Search nodes allowed after the first complete candidate of a bracket.
const IMPROVE_BUDGET: usize = 3_000;

/// Score difference given to a moved-down player that floats again (larger than any real one).
const FLOAT_AGAIN: u32 = 10_000;

struct Ctx<'a> {
    infos: &'a [Info],
    dummy: Option<usize>,
    /// C5: the score of the PAB assignee (the lowest a complete pairing allows).
    bye_score: Option<u32>,
    budget: usize,
}

/// The running state of one bracket's search.
struct Search {
    /// Pairs fixed so far (also fixed in the matcher).
    pairs: Vec<(usize, usize)>,
    used: Vec<bool>,
    nodes: usize,
    budget: usize,
    threshold: usize,
    conflicts: usize,
    best: Option<(Quality, Vec<(usize, usize)>)>,
    ideal: Quality,
    done: bool,
    /// C8 values already computed, by set of floaters.
    c8_cache: Vec<(Vec<usize>, C8)>,
}

impl Search {
    fn out_of_budget(&self) -> bool {
        self.done || self.nodes >= self.budget
    }
}

impl Ctx<'_> {
    /// Colour allocation (C.04.3 5.2); returns `(white, black)`.
    fn colours(&self, a: usize, b: usize, initial: Colour) -> (usize, usize) {
        let (x, y) = (&self.infos[a], &self.infos[b]);
        let give = |a_colour: Colour| {
            if a_colour == Colour::White {
                (a, b)
            } else {
                (b, a)
            }
        };
        // 5.2.1 both preferences.
        match (x.pref.colour, y.pref.colour) {
            (Some(cx), Some(cy)) if cx != cy => return give(cx),
            (Some(cx), None) => return give(cx),
            (None, Some(cy)) => return give(cy.opposite()),
            _ => {}
        }
        if let (Some(cx), Some(_)) = (x.pref.colour, y.pref.colour) {
            // 5.2.2 the stronger preference; both absolute: the wider colour difference.
            if x.pref.strength != y.pref.strength {
                return if x.pref.strength > y.pref.strength {
                    give(cx)
                } else {
                    give(cx.opposite())
                };
            }
            if x.pref.strength == Strength::Absolute && x.cd.abs() != y.cd.abs() {
                return if x.cd.abs() > y.cd.abs() {
                    give(cx)
                } else {
                    give(cx.opposite())
                };
            }
            // 5.2.3 alternate from the latest round where their colours differed.
            for (ca, cb) in x.colours.iter().rev().zip(y.colours.iter().rev()) {
                if ca != cb {
                    return give(ca.opposite());
                }
            }
        }
        // 5.2.4 the higher-ranked player's preference (a is higher ranked when a < b).
        let (hi, lo) = if a < b { (a, b) } else { (b, a) };
        let h = &self.infos[hi];
        let hi_colour = match h.pref.colour {
            Some(c) => c,
            // 5.2.5 odd TPN: the initial colour.
            None if h.id.0 % 2 == 1 => initial,
            None => initial.opposite(),
        };
        if hi_colour == Colour::White {
            (hi, lo)
        } else {
            (lo, hi)
        }
    }

    /// Whether a pair leaves one player without the preferred colour.
    fn conflict(&self, a: usize, b: usize) -> usize {
        match (self.infos[a].pref.colour, self.infos[b].pref.colour) {
            (Some(x), Some(y)) if x == y => 1,
            _ => 0,
        }
    }

    /// Colour-conflict lower bound for pairing every player of `s1` with a distinct one of `s2`.
    fn conflict_bound(&self, s1: &[usize], s2: &[usize], used: &[bool]) -> usize {
        let count = |set: &[usize], c: Colour| {
            set.iter()
                .filter(|&&p| !used[p] && self.infos[p].pref.colour == Some(c))
                .count()
        };
        let r2 = s2.iter().filter(|&&p| !used[p]).count();
        let (w1, b1) = (count(s1, Colour::White), count(s1, Colour::Black));
        let (w2, b2) = (count(s2, Colour::White), count(s2, Colour::Black));
        w1.saturating_sub(r2 - w2) + b1.saturating_sub(r2 - b2)
    }

    /// Pairs one bracket; the chosen pairs are left fixed in the matcher.
    fn pair_bracket<F: Fn(usize, usize) -> bool>(
        &self,
        m: &mut Matcher<F>,
        bracket: &[usize],
        n_mdp: usize,
        next: &[usize],
        last: bool,
    ) -> Vec<(usize, usize)> {
        let nb = bracket.len();
        let (mdps, residents) = bracket.split_at(n_mdp);
        // Upper bound on pairs: a maximum matching inside the bracket (MDPs only meet residents).
        let upper = {
            let mut inner = Matcher::new(nb, |a, b| {
                !(a < n_mdp && b < n_mdp)
                    && compat(&self.infos[bracket[a]], &self.infos[bracket[b]])
            });
            (nb - inner.maximize()) / 2
        };
        let mut search = Search {
            pairs: Vec::new(),
            used: vec![false; m.len()],
            nodes: 0,
            budget: self.budget + 4 * nb,
            threshold: 0,
            conflicts: 0,
            best: None,
            ideal: Quality::default_ideal(),
            done: false,
            c8_cache: Vec::new(),
        };
        for k in (0..=upper.min(nb / 2)).rev() {
            let m1_max = n_mdp.min(k).min(residents.len());
            for m1 in (0..=m1_max).rev() {
                let rem = residents.len() - m1;
                if k - m1 > rem / 2 {
                    continue;
                }
                let floaters = nb - 2 * k;
                // Lower bounds of the criteria for this shape of candidate.
                let mut floater_scores: Vec<u32> =
                    mdps[m1..].iter().map(|&p| self.infos[p].score).collect();
                let resident_score = residents.first().map_or(0, |&p| self.infos[p].score);
                floater_scores.extend(std::iter::repeat_n(resident_score, floaters - (n_mdp - m1)));
                floater_scores.sort_unstable_by(|a, b| b.cmp(a));
                // Pairs where both want the same colour; a mild preference can absorb one (5.2.2
                // gives the colour to the stronger preference), otherwise a strong one fails.
                let (lb12, lb13) = {
                    let count = |c: Colour, mild: bool| {
                        bracket
                            .iter()
                            .filter(|&&p| {
                                let pref = self.infos[p].pref;
                                pref.colour == Some(c) && (!mild || pref.strength == Strength::Mild)
                            })
                            .count()
                    };
                    let cw = count(Colour::White, false).saturating_sub(floaters + k);
                    let cb = count(Colour::Black, false).saturating_sub(floaters + k);
                    let sw = cw.saturating_sub(count(Colour::White, true));
                    let sb = cb.saturating_sub(count(Colour::Black, true));
                    // Between topscorers an absolute preference can fail too, which is not C13.
                    let tops = bracket.iter().any(|&p| self.infos[p].top);
                    (cw + cb, if tops { 0 } else { sw + sb })
                };
                let lb8 = if floaters == 0 || last {
                    (0, Vec::new())
                } else {
                    let count =
                        ((floaters + next.len()) % 2).max(floaters.saturating_sub(next.len()));
                    if floaters + next.len() <= exact::EXACT_LOOKAHEAD {
                        // The lowest `count` scores among these floaters and the next group.
                        let mut all = floater_scores.clone();
                        all.extend(next.iter().map(|&p| self.infos[p].score));
                        all.sort_unstable();
                        let mut low: Vec<u32> = all[..count].to_vec();
                        low.reverse();
                        (count, low)
                    } else {
                        (count, Vec::new())
                    }
                };
                // C9 counts only when the one floater must take the PAB: a resident of the
                // PAB score (an MDP scores more, everybody below less).
                let lb9 = if self.dummy.is_some()
                    && floaters == 1
                    && m1 == n_mdp
                    && residents.first().map(|&p| self.infos[p].score) == self.bye_score
                {
                    residents
                        .iter()
                        .filter(|&&p| self.infos[p].bye_ok)
                        .map(|&p| self.infos[p].unplayed)
                        .min()
                        .unwrap_or(0)
                } else {
                    0
                };
                for threshold in [lb12, lb12 + 1, lb12 + 2, usize::MAX] {
                    search.threshold = threshold;
                    search.ideal = Quality {
                        c6_floaters: floaters,
                        c7_floater_scores: floater_scores.clone(),
                        c8_next: lb8.clone(),
                        c9_bye_unplayed: lb9,
                        c12_colour: threshold.min(nb),
                        c13_strong: lb13,
                        ..Quality::default_ideal()
                    };
                    self.mdp_sets(m, &mut search, bracket, n_mdp, m1, k, next, last);
                    if search.out_of_budget() {
                        break;
                    }
                }
                // A candidate that is not perfect may still lose to one of a later shape with
                // the same number of pairs (another MDP floating, more colour conflicts).
                if search.out_of_budget() {
                    break;
                }
            }
            // Fewer pairs always lose on C6.
            if search.best.is_some() || search.out_of_budget() {
                break;
            }
        }
        let chosen = match search.best {
            Some((_, pairs)) => pairs,
            // Budget exhausted without a candidate: take the matcher's pairs inside the bracket.
            None => {
                let inside: Vec<bool> = {
                    let mut v = vec![false; m.len()];
                    bracket.iter().for_each(|&p| v[p] = true);
                    v
                };
                bracket
                    .iter()
                    .filter_map(|&p| m.mate(p).filter(|&q| q > p && inside[q]).map(|q| (p, q)))
                    .collect()
            }
        };
        for &(a, b) in &chosen {
            let fixed = try_fix(m, a, b);
            debug_assert!(fixed, "a chosen pair must keep the rest pairable");
        }
        chosen
    }

    /// Enumerates the sets of `m1` moved-down players to pair, in lexicographic order.
    #[allow(clippy::too_many_arguments)]
    fn mdp_sets<F: Fn(usize, usize) -> bool>(
        &self,
        m: &mut Matcher<F>,
        s: &mut Search,
        bracket: &[usize],
        n_mdp: usize,
        m1: usize,
        k: usize,
        next: &[usize],
        last: bool,
    ) {
        let mut combo: Vec<usize> = (0..m1).collect();
        let mut sets = 0;
        loop {
            let s1: Vec<usize> = combo.iter().map(|&i| bracket[i]).collect();
            let residents = &bracket[n_mdp..];
            self.mdp_slots(m, s, &s1, 0, residents, bracket, n_mdp, k - m1, next, last);
            sets += 1;
            if s.out_of_budget() || sets > 64 {
                return;
            }
            // Next combination in lexicographic order.
            let mut i = m1;
            loop {
                if i == 0 {
                    return;
                }
                i -= 1;
                if combo[i] < n_mdp - (m1 - i) {
                    combo[i] += 1;
                    for j in i + 1..m1 {
                        combo[j] = combo[j - 1] + 1;
                    }
                    break;
                }
                if i == 0 {
                    return;
                }
            }
        }
    }

    /// Pairs the chosen moved-down players (S1) with residents (S2) slot by slot, then the
    /// remainder.
    #[allow(clippy::too_many_arguments)]
    fn mdp_slots<F: Fn(usize, usize) -> bool>(
        &self,
        m: &mut Matcher<F>,
        s: &mut Search,
        s1: &[usize],
        slot: usize,
        residents: &[usize],
        bracket: &[usize],
        n_mdp: usize,
        rem_pairs: usize,
        next: &[usize],
        last: bool,
    ) {
        if slot == s1.len() {
            let rem: Vec<usize> = residents.iter().copied().filter(|&p| !s.used[p]).collect();
            self.remainder(m, s, &rem, rem_pairs, bracket, n_mdp, next, last);
            return;
        }
        let a = s1[slot];
        for &b in residents {
            if s.out_of_budget() {
                return;
            }
            if s.used[b] || !compat(&self.infos[a], &self.infos[b]) {
                continue;
            }
            let c = self.conflict(a, b);
            if s.conflicts + c > s.threshold {
                continue;
            }
            s.nodes += 1;
            if !try_fix(m, a, b) {
                continue;
            }
            self.push(s, a, b, c);
            self.mdp_slots(
                m,
                s,
                s1,
                slot + 1,
                residents,
                bracket,
                n_mdp,
                rem_pairs,
                next,
                last,
            );
            self.pop(m, s, c);
        }
    }

    fn push(&self, s: &mut Search, a: usize, b: usize, c: usize) {
        s.used[a] = true;
        s.used[b] = true;
        s.pairs.push((a, b));
        s.conflicts += c;
    }

    fn pop<F: Fn(usize, usize) -> bool>(&self, m: &mut Matcher<F>, s: &mut Search, c: usize) {
        if let Some((a, b)) = s.pairs.pop() {
            s.used[a] = false;
            s.used[b] = false;
            unfix(m, a, b);
        }
        s.conflicts -= c;
    }

    /// Pairs a homogeneous bracket or a remainder: transpositions, then resident exchanges.
    #[allow(clippy::too_many_arguments)]
    fn remainder<F: Fn(usize, usize) -> bool>(
        &self,
        m: &mut Matcher<F>,
        s: &mut Search,
        rem: &[usize],
        pairs: usize,
        bracket: &[usize],
        n_mdp: usize,
        next: &[usize],
        last: bool,
    ) {
        let (s1, s2) = rem.split_at(pairs.min(rem.len()));
        let mut variants: Vec<(Vec<usize>, Vec<usize>)> = vec![(s1.to_vec(), s2.to_vec())];
        if rem.len() <= 64 && pairs > 0 {
            variants.extend(exchanges(s1, s2));
        }
        for (s1, s2) in variants {
            if s.out_of_budget() {
                return;
            }
            if s.conflicts + self.conflict_bound(&s1, &s2, &s.used) > s.threshold {
                continue;
            }
            self.slots(m, s, &s1, &s2, 0, bracket, n_mdp, next, last);
        }
    }

    /// Depth-first transpositions: S1 slot `slot` takes the S2 players in BSN order.
    #[allow(clippy::too_many_arguments)]
    fn slots<F: Fn(usize, usize) -> bool>(
        &self,
        m: &mut Matcher<F>,
        s: &mut Search,
        s1: &[usize],
        s2: &[usize],
        slot: usize,
        bracket: &[usize],
        n_mdp: usize,
        next: &[usize],
        last: bool,
    ) {
        if slot == s1.len() {
            self.evaluate(m, s, bracket, n_mdp, next, last);
            return;
        }
        let a = s1[slot];
        for &b in s2 {
            if s.out_of_budget() {
                return;
            }
            if s.used[b] || !compat(&self.infos[a], &self.infos[b]) {
                continue;
            }
            let c = self.conflict(a, b);
            s.used[a] = true;
            s.used[b] = true;
            let bound = self.conflict_bound(&s1[slot + 1..], s2, &s.used);
            s.used[a] = false;
            s.used[b] = false;
            if s.conflicts + c + bound > s.threshold {
                continue;
            }
            s.nodes += 1;
            if !try_fix(m, a, b) {
                continue;
            }
            self.push(s, a, b, c);
            self.slots(m, s, s1, s2, slot + 1, bracket, n_mdp, next, last);
            self.pop(m, s, c);
        }
    }

    /// Scores a complete candidate and keeps it if it is the best so far.
    fn evaluate<F: Fn(usize, usize) -> bool>(
        &self,
        m: &mut Matcher<F>,
        s: &mut Search,
        bracket: &[usize],
        n_mdp: usize,
        next: &[usize],
        last: bool,
    ) {
        let infos = self.infos;
        let is_mdp = |p: usize| bracket[..n_mdp].contains(&p);
        let floaters: Vec<usize> = bracket.iter().copied().filter(|&p| !s.used[p]).collect();
        let mut q = Quality::default_ideal();
        q.c6_floaters = floaters.len();
        q.c7_floater_scores = floaters.iter().map(|&p| infos[p].score).collect();
        q.c7_floater_scores.sort_unstable_by(|a, b| b.cmp(a));
        // C6 and C7 are cheap: skip the rest when they already lose to the best candidate.
        if let Some((b, _)) = &s.best
            && (q.c6_floaters, &q.c7_floater_scores) > (b.c6_floaters, &b.c7_floater_scores)
        {
            return;
        }
        if !floaters.is_empty() && !last {
            q.c8_next = match s.c8_cache.iter().find(|(f, _)| *f == floaters) {
                Some((_, v)) => v.clone(),
                None => {
                    let v = if floaters.len() + next.len() <= exact::EXACT_LOOKAHEAD {
                        self.lookahead(m, &floaters, next)
                    } else {
                        (self.next_unpaired(&floaters, next), Vec::new())
                    };
                    if s.c8_cache.len() < 256 {
                        s.c8_cache.push((floaters.clone(), v.clone()));
                    }
                    v
                }
            };
        }
        if self.dummy.is_some()
            && floaters.len() == 1
            && Some(infos[floaters[0]].score) == self.bye_score
        {
            q.c9_bye_unplayed = infos[floaters[0]].unplayed;
        }
        for &(a, b) in &s.pairs {
            let (w, bl) = self.colours(a, b, Colour::White);
            let top = infos[a].top || infos[b].top;
            for (p, got) in [(w, Colour::White), (bl, Colour::Black)] {
                let i = &infos[p];
                let cd = i.cd + if got == Colour::White { 1 } else { -1 };
                if top && cd.abs() > 2 {
                    q.c10_top_cd += 1;
                }
                let n = i.colours.len();
                if top && n >= 2 && i.colours[n - 1] == got && i.colours[n - 2] == got {
                    q.c11_top_streak += 1;
                }
                if i.pref.colour.is_some_and(|c| c != got) {
                    q.c12_colour += 1;
                    if i.pref.strength == Strength::Strong {
                        q.c13_strong += 1;
                    }
                }
            }
            // Float criteria: pairs of a moved-down player with a resident.
            let (mdp, res) = match (is_mdp(a), is_mdp(b)) {
                (true, false) => (a, b),
                (false, true) => (b, a),
                _ => continue,
            };
            let diff = infos[mdp].score.saturating_sub(infos[res].score);
            if infos[res].float1 == Float::Up {
                q.c15_up1 += 1;
                q.c19.push(diff);
            }
            if infos[res].float2 == Float::Up {
                q.c17_up2 += 1;
                q.c21.push(diff);
            }
            if infos[mdp].float1 == Float::Down {
                q.c18.push(diff);
            }
            if infos[mdp].float2 == Float::Down {
                q.c20.push(diff);
            }
        }
        for &p in &floaters {
            let i = &infos[p];
            if is_mdp(p) {
                if i.float1 == Float::Down {
                    q.c18.push(FLOAT_AGAIN);
                }
                if i.float2 == Float::Down {
                    q.c20.push(FLOAT_AGAIN);
                }
            } else {
                q.c14_down1 += usize::from(i.float1 == Float::Down);
                q.c16_down2 += usize::from(i.float2 == Float::Down);
            }
        }
        for v in [&mut q.c18, &mut q.c19, &mut q.c20, &mut q.c21] {
            v.sort_unstable_by(|a, b| b.cmp(a));
        }
        if q <= s.ideal {
            s.done = true;
        }
        if s.best.is_none() {
            // Past the first candidate, look for a better one only a little longer.
            s.budget = s.budget.min(s.nodes + IMPROVE_BUDGET);
        }
        if s.best.as_ref().is_none_or(|(b, _)| q < *b) {
            s.best = Some((q, s.pairs.clone()));
        }
    }

    /// C8 (approximation): players of the next bracket, these floaters included, that a maximum
    /// matching leaves unpaired (floaters meet residents only).
    fn next_unpaired(&self, floaters: &[usize], next: &[usize]) -> usize {
        let all: Vec<usize> = floaters.iter().chain(next).copied().collect();
        let nf = floaters.len();
        let mut inner = Matcher::new(all.len(), |a, b| {
            !(a < nf && b < nf) && compat(&self.infos[all[a]], &self.infos[all[b]])
        });
        inner.maximize()
    }
}

impl Quality {
    fn default_ideal() -> Quality {
        Quality {
            c6_floaters: 0,
            c7_floater_scores: Vec::new(),
            c8_next: (0, Vec::new()),
            c9_bye_unplayed: 0,
            c10_top_cd: 0,
            c11_top_streak: 0,
            c12_colour: 0,
            c13_strong: 0,
            c14_down1: 0,
            c15_up1: 0,
            c16_down2: 0,
            c17_up2: 0,
            c18: Vec::new(),
            c19: Vec::new(),
            c20: Vec::new(),
            c21: Vec::new(),
        }
    }
}

/// Sort key of an exchange (size, BSN-sum difference, BSNs leaving S1 in descending order, BSNs
/// leaving S2) and the positions exchanged in S1 and S2.
type ExchangeKey = (
    usize,
    i64,
    Vec<std::cmp::Reverse<usize>>,
    Vec<usize>,
    Vec<usize>,
    Vec<usize>,
);

/// Resident exchanges between S1 and S2 in the order of C.04.3 4.3: fewest players exchanged,
/// smallest difference of BSN sums, largest differing BSN leaving S1, smallest differing BSN
/// leaving S2. One- and two-player exchanges only. Positions stand for BSNs.
fn exchanges(s1: &[usize], s2: &[usize]) -> Vec<(Vec<usize>, Vec<usize>)> {
    let n1 = s1.len();
    let mut keyed: Vec<ExchangeKey> = Vec::new();
    for i in 0..n1 {
        for j in 0..s2.len() {
            let diff = (n1 + j) as i64 - i as i64;
            keyed.push((
                1,
                diff,
                vec![std::cmp::Reverse(i)],
                vec![n1 + j],
                vec![i],
                vec![j],
            ));
        }
    }
    if n1 + s2.len() <= 24 {
        for i1 in 0..n1 {
            for i2 in i1 + 1..n1 {
                for j1 in 0..s2.len() {
                    for j2 in j1 + 1..s2.len() {
                        let diff = (2 * n1 + j1 + j2) as i64 - (i1 + i2) as i64;
                        keyed.push((
                            2,
                            diff,
                            vec![std::cmp::Reverse(i2), std::cmp::Reverse(i1)],
                            vec![n1 + j1, n1 + j2],
                            vec![i1, i2],
                            vec![j1, j2],
                        ));
                    }
                }
            }
        }
    }
    keyed.sort_by(|a, b| (a.0, a.1, &a.2, &a.3).cmp(&(b.0, b.1, &b.2, &b.3)));
    keyed
        .into_iter()
        .map(|(_, _, _, _, out1, out2)| {
            let mut new1: Vec<(usize, usize)> = Vec::new();
            let mut new2: Vec<(usize, usize)> = Vec::new();
            for (i, &p) in s1.iter().enumerate() {
                if out1.contains(&i) {
                    new2.push((i, p))
                } else {
                    new1.push((i, p))
                }
            }
            for (j, &p) in s2.iter().enumerate() {
                if out2.contains(&j) {
                    new1.push((n1 + j, p))
                } else {
                    new2.push((n1 + j, p))
                }
            }
            new1.sort_unstable();
            new2.sort_unstable();
            (
                new1.into_iter().map(|x| x.1).collect(),
                new2.into_iter().map(|x| x.1).collect(),
            )
        })
        .collect()
}

/// Fixes the pair `(a, b)` if the remaining players can still all be paired; otherwise leaves
/// the matcher as it was and returns false.
fn try_fix<F: Fn(usize, usize) -> bool>(m: &mut Matcher<F>, a: usize, b: usize) -> bool {
    let x = m.set_active(a, false);
    let y = m.set_active(b, false);
    let freed: Vec<usize> = [x, y]
        .into_iter()
        .flatten()
        .filter(|&v| v != a && v != b)
        .collect();
    match freed.as_slice() {
        [] => true,
        [v] => {
            // Cannot happen with a perfect matching (a and b would be matched together), but
            // stay correct: one free vertex means the rest has odd size.
            m.set_active(a, true);
            m.set_active(b, true);
            let _ = m.augment(*v);
            false
        }
        [v, w] => {
            if m.augment(*v) && m.mate(*w).is_some() {
                true
            } else {
                m.set_active(a, true);
                m.set_active(b, true);
                m.join(a, *v);
                m.join(b, *w);
                false
            }
        }
        _ => false,
    }
}

/// Undoes [`try_fix`]: `a` and `b` become active again, matched together.
fn unfix<F: Fn(usize, usize) -> bool>(m: &mut Matcher<F>, a: usize, b: usize) {
    m.set_active(a, true);
    m.set_active(b, true);
    m.join(a, b);
}

/// The round a tournament would pair next, 1-based.
pub fn next_round(t: &Tournament) -> u32 {
    t.rounds_paired() + 1
}

/// Records a paired round once it is played: `results[i]` is White's result on board `i`; the
/// bye gets `RoundEntry::PairingBye`. (TRF cannot hold a pairing without results.)
pub fn record_round(t: &mut Tournament, round: u32, p: &Pairing, results: &[crate::GameResult]) {
    for (&(w, b), &r) in p.boards.iter().zip(results) {
        t.record_game(round, w, b, r);
    }
    if let Some(b) = p.bye {
        t.set_entry(b, round, RoundEntry::PairingBye);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::GameResult;

    /// The fast search agrees with the exact one on small random tournaments (the exact one is
    /// checked against the literal oracle by `tests/dutch_differential.rs`).
    #[test]
    fn fast_search_agrees_with_exact_search() {
        let mut seed = 0x5EED_u64;
        let mut next = || {
            seed = seed.wrapping_add(0x9E37_79B9_7F4A_7C15);
            let mut z = seed;
            z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
            z ^ (z >> 31)
        };
        let exact = DutchOptions::default();
        let fast = DutchOptions {
            exact_bracket: 0,
            ..DutchOptions::default()
        };
        let mut rounds = 0;
        for _ in 0..400 {
            let players = 2 + next() % 13;
            let total = 3 + (next() % 7) as u32;
            let mut t = Tournament::new(total);
            for i in 0..players {
                t.add_player(format!("P{i}"), 2400 - i as u32);
            }
            for round in 1..=total {
                for i in 0..players {
                    if next() % 100 < 4 {
                        t.set_entry(PlayerId(i as u32 + 1), round, RoundEntry::HalfPointBye);
                    }
                }
                let a = pair_next_round(&t, &exact);
                assert_eq!(a, pair_next_round(&t, &fast), "round {round} of\n{t:?}");
                let Ok(p) = a else { break };
                rounds += 1;
                let results: Vec<GameResult> = p
                    .boards
                    .iter()
                    .map(|_| match next() % 10 {
                        0..=3 => GameResult::Win,
                        4..=6 => GameResult::Draw,
                        _ => GameResult::Loss,
                    })
                    .collect();
                record_round(&mut t, round, &p, &results);
            }
        }
        assert!(rounds > 1_500, "only {rounds} rounds");
    }
}
