//! The bracket procedure: the questions a round asks the matching, bracket by bracket.
//!
//! A `Procedure` is one run at one weight width: the matcher, warm from question to question,
//! and what one bracket hands on to the next. A `Bracket` is the walk's current bracket. Each
//! phase of a bracket is one method, in the order `Procedure::pair_brackets` calls them. Every
//! call on the matcher is made in the order the procedure has always made it: its warm starts
//! (and so the pairing, when several are equally good) depend on that order.
//!
//! Indices are the matcher's vertices (positions in the pairing order), hence index loops.
#![allow(clippy::needless_range_loop)]

use std::collections::HashMap;

use super::blossom::{Matcher, Memo, NoPerfectMatching};
use super::weights::{Base, Bye, Ctx, Flat, Run, Widen};
use super::wide::Wide;

/// Why a run stopped short of a pairing.
enum Stop {
    /// No pairing satisfies the absolute criteria.
    NoPairing,
    /// A bracket held more distinct scores than the weights have slots for.
    Widen,
}

impl From<NoPerfectMatching> for Stop {
    fn from(_: NoPerfectMatching) -> Self {
        Stop::NoPairing
    }
}

impl From<Widen> for Stop {
    fn from(_: Widen) -> Self {
        Stop::Widen
    }
}

/// Runs the bracket procedure at width `N`; the pairs as (sorted index, sorted index or
/// `usize::MAX` for the bye).
pub(super) fn run<const N: usize>(ctx: &Ctx<'_>) -> Run {
    match Procedure::<N>::new(ctx).and_then(Procedure::pair_brackets) {
        Ok(pairs) => Ok(Some(pairs)),
        Err(Stop::NoPairing) => Ok(None),
        Err(Stop::Widen) => Err(Widen),
    }
}

/// One run of the procedure: the matcher and the state the brackets share.
struct Procedure<'c, 't, const N: usize> {
    ctx: &'c Ctx<'t>,
    /// The number of players. With an odd number, vertex `n` is a dummy: its partner gets the
    /// bye.
    n: usize,
    odd: bool,
    m: Matcher<N>,
    /// The stored index of the dummy's edges (weight zero).
    dummy_id: u32,
    /// The top score.
    top: u32,
    /// Each player's score slot's offset in a score field, for the bracket (`slot_shifts`).
    shifts: Vec<u32>,
    /// Each player's mate in the last solution (itself when unmatched or the dummy's).
    stable: Vec<usize>,
    /// The bye assignee's score; whether the bye goes to the top bracket's single leftover; the
    /// rank of each number of games played among the players of the bye assignee's score.
    bye_score: u32,
    single_bye: bool,
    ranks: HashMap<u32, u32>,
    /// Each player's flat potential in stored units: a pair with an end below the next
    /// scoregroup keeps its flat weight, `phi[a] + phi[b]`, until its players come up (see
    /// `Matcher::solve_parked`).
    phi: Vec<Wide<N>>,
    /// The first player not yet in a bracket or the next scoregroup.
    next_group: usize,
    /// Scratch for `ask`: the question's edge weights.
    changes: Vec<(usize, Option<Wide<N>>)>,
    /// The pairs decided for good, and their players.
    result: Vec<(usize, usize)>,
    matched: Vec<bool>,
}

/// The bracket being paired, and the next scoregroup.
struct Bracket<const N: usize> {
    /// Players of the current bracket (moved-down first) and of the next scoregroup, as
    /// sorted indices (the matcher's vertices).
    by_index: Vec<usize>,
    /// Where the bracket's residents start in `by_index` (the moved-down players come first),
    /// and their first vertex.
    group_begin: usize,
    group_begin_vertex: usize,
    /// Where the next scoregroup starts in `by_index`, and its first vertex.
    next_begin: usize,
    next_begin_vertex: usize,
    /// The next scoregroup's first player.
    next_first: usize,
    /// The base weights of the bracket and the next scoregroup, by position in `by_index`.
    base: Base<N>,
    /// The matcher's stored index of each of `base`'s weights (a later `put` only removes
    /// edges, so the map stays whole).
    stored: Vec<u32>,
}

/// The residents still to be paired in a bracket once its moved-down players are.
struct Remainder {
    /// Their positions in `by_index`, in order.
    players: Vec<usize>,
    /// How many pairs they make: the first `pairs` of them are S1.
    pairs: usize,
}

impl Remainder {
    /// What the edges of the remainder's `pc`-th player to the later ones gain while the
    /// exchanges are chosen: one above the order field for S1, less the player's position,
    /// above the bit the exchange questions nudge.
    fn addend<const N: usize>(&self, pc: usize, size_bits: u32) -> Wide<N> {
        Wide::<N>::from_u64(u64::from(pc < self.pairs))
            .shl(2 * size_bits)
            .sub_u64(pc as u64)
            .shl(1)
    }
}

impl<const N: usize> Bracket<N> {
    /// The base weight of `larger`–`smaller` (positions), none for two moved-down players.
    fn get(&self, larger: usize, smaller: usize) -> Option<Wide<N>> {
        if larger < self.group_begin {
            None
        } else {
            self.base.get(larger, smaller)
        }
    }

    /// The base weight of the remainder's `smaller`–`larger` (positions; `smaller_rem` is the
    /// smaller's place in the remainder) with the smaller's addend.
    fn modified(
        &self,
        rem: &Remainder,
        size_bits: u32,
        smaller: usize,
        larger: usize,
        smaller_rem: usize,
    ) -> Option<Wide<N>> {
        let w = self.get(larger, smaller)?;
        Some(w.add(&rem.addend(smaller_rem, size_bits)))
    }
}

/// Each pair's stored index for flat weights: by the potential classes of its players, from a
/// table of every pair of classes, with and without one more (flat weights depend on those
/// alone, so each distinct one is interned once).
struct FlatIds {
    classes: Vec<usize>,
    k: usize,
    table: Vec<u32>,
    dummy_id: u32,
}

impl FlatIds {
    fn new<const N: usize>(m: &mut Matcher<N>, f: &Flat<N>, dummy_id: u32) -> Self {
        let (classes, potentials) = f.classes();
        let k = potentials.len();
        let mut table = vec![0u32; k * k * 2];
        for a in 1..k {
            for b in 1..k {
                for t in 0..2 {
                    let w = f.constant.add(potentials.get(a as u32));
                    let w = w.add(potentials.get(b as u32)).add_u64(t as u64);
                    table[(a * k + b) * 2 + t] = m.stored(Some(w));
                }
            }
        }
        FlatIds {
            classes,
            k,
            table,
            dummy_id,
        }
    }

    /// The stored index of `i`–`j` (the dummy of an odd field has an edge of weight zero to
    /// everyone), with `more` added.
    fn id(&self, ctx: &Ctx<'_>, i: usize, j: usize, more: u64) -> u32 {
        let dummy = ctx.p.len();
        if i == dummy || j == dummy {
            self.dummy_id
        } else if ctx.compatible(j, i) {
            let (ci, cj) = (self.classes[i], self.classes[j]);
            self.table[(ci * self.k + cj) * 2 + more as usize]
        } else {
            0
        }
    }
}

/// Whether `i` and `j` are both top scorers in a field with a bye: the first weights give such
/// a pair one more.
fn top_pair(ctx: &Ctx<'_>, odd: bool, i: usize, j: usize) -> u64 {
    let top = ctx.p[0].score;
    u64::from(odd && ctx.p[i].score >= top && ctx.p[j].score >= top)
}

impl<'c, 't, const N: usize> Procedure<'c, 't, N> {
    /// The matcher solved on the round's flat weights: the bye's score chosen (with an odd
    /// number of players) and the field below the first bracket parked.
    fn new(ctx: &'c Ctx<'t>) -> Result<Self, Stop> {
        let n = ctx.p.len();
        let odd = n % 2 == 1;
        let mut m = Matcher::<N>::new(n + usize::from(odd));
        let dummy_id = m.stored(Some(Wide::ZERO));
        let mut procedure = Procedure {
            ctx,
            n,
            odd,
            m,
            dummy_id,
            top: ctx.p[0].score,
            shifts: vec![0; n],
            stable: vec![0; n],
            bye_score: 0,
            single_bye: false,
            ranks: HashMap::new(),
            phi: Vec::new(),
            next_group: 0,
            changes: Vec::new(),
            result: Vec::new(),
            matched: vec![false; n],
        };
        let first = procedure.first_solve()?;
        let lower = procedure.choose_bye(first)?;
        procedure.park_lower(&lower)?;
        Ok(procedure)
    }

    fn score(&self, v: usize) -> u32 {
        self.ctx.p[v].score
    }

    fn mate(&self, v: usize) -> usize {
        self.stable[v]
    }

    /// Who may get the bye, as the weights see it now.
    fn bye(&self) -> Bye<'_> {
        Bye {
            score: self.bye_score,
            single: self.single_bye,
            ranks: &self.ranks,
        }
    }

    /// Reads the matcher's solution into `stable`.
    fn snapshot(&mut self) {
        let dummy = self.n;
        for v in 0..self.n {
            self.stable[v] = match self.m.mate(v) {
                Some(x) if x != dummy => x,
                _ => v,
            };
        }
    }

    fn solve(&mut self) -> Result<(), Stop> {
        self.m.solve()?;
        self.snapshot();
        Ok(())
    }

    /// Solves with the players from `next_group` on parked (see `Matcher::solve_parked`).
    fn solve_parked(&mut self) -> Result<(), Stop> {
        self.m.solve_parked(self.next_group, &self.phi)?;
        self.snapshot();
        Ok(())
    }

    /// Writes every pair's flat weight (with the top pair's one more if `top_pairs`).
    fn write_flat(&mut self, f: &Flat<N>, top_pairs: bool) {
        let (ctx, odd, n) = (self.ctx, self.odd, self.n);
        let ids = FlatIds::new(&mut self.m, f, self.dummy_id);
        self.m.fill(|i, j| {
            let more = if top_pairs && i < n && j < n {
                top_pair(ctx, odd, i, j)
            } else {
                0
            };
            ids.id(ctx, i, j, more)
        });
    }

    /// (Debug builds: the flat weights are `edge`'s with both bracket flags off.)
    #[cfg(debug_assertions)]
    fn check_flat(&mut self) {
        for i in 0..self.n {
            for j in 0..i {
                let w = self
                    .ctx
                    .edge::<N>(j, i, false, false, self.bye(), &self.shifts);
                let id = self.m.stored(w);
                assert_eq!(self.m.stored_at(i, j), id, "flat weight of {i}-{j}");
            }
        }
    }

    /// The first solve. Its weights are a constant plus two player potentials: with an odd
    /// number, the potentials say who may get the bye (eligibility, then the lowest
    /// scoregroup), and a pair of top scorers gets one more; with an even number, they are
    /// `flat`'s. Returns those weights.
    fn first_solve(&mut self) -> Result<Flat<N>, Stop> {
        let first = if self.odd {
            let (s, b) = (self.ctx.groups_shift, self.ctx.size_bits);
            Flat {
                constant: Wide::from_u64(1).shl(s + b),
                potential: self
                    .ctx
                    .p
                    .iter()
                    .map(|e| {
                        Wide::<N>::from_u64(u64::from(!e.eligible))
                            .shl(s)
                            .add_u64(u64::from(self.ctx.shift(e.score)))
                            .shl(b)
                    })
                    .collect(),
            }
        } else {
            // (No bye: `self.bye()` is the no-bye one.)
            self.ctx.flat::<N>(self.bye())
        };
        self.write_flat(&first, true);
        #[cfg(debug_assertions)]
        if !self.odd {
            self.check_flat();
        }
        // Duals made of those potentials (in stored units, 2w + 2) make nearly every edge
        // tight; a top scorer's half of the top pair's one more is rounded up.
        let (ctx, odd, n) = (self.ctx, self.odd, self.n);
        let potentials: Vec<Option<Wide<N>>> = (0..n + usize::from(odd))
            .map(|v| (v < n).then(|| first.stored_potential(v).add_u64(top_pair(ctx, odd, v, v))))
            .collect();
        self.m.restart_from_feasible(&potentials);
        self.solve()?;
        Ok(first)
    }

    /// With an odd number of players, reads the bye assignee's score off the first solve
    /// (whether the bye goes to the top bracket's single leftover, and the ranks of games
    /// played at that score) and writes the flat weights that follow; with an even number,
    /// checks that the first solve paired everyone. Returns the flat weights of the pairs
    /// below the next scoregroup, kept until their players come up.
    fn choose_bye(&mut self, first: Flat<N>) -> Result<Flat<N>, Stop> {
        let n = self.n;
        if !self.odd {
            if (0..n).any(|v| self.mate(v) == v) {
                return Err(Stop::NoPairing);
            }
            return Ok(first);
        }
        let bye = (0..n).find(|&v| self.mate(v) == v).ok_or(Stop::NoPairing)?;
        if !self.ctx.p[bye].eligible {
            return Err(Stop::NoPairing);
        }
        self.bye_score = self.score(bye);
        if self.bye_score >= self.top {
            self.single_bye = (0..n)
                .take_while(|&v| self.score(v) >= self.top)
                .all(|v| self.score(self.mate(v)) >= self.top);
        }
        let mut counts: Vec<u32> = (0..n)
            .filter(|&v| self.score(v) == self.bye_score)
            .map(|v| self.ctx.p[v].played_games)
            .collect();
        counts.sort_unstable_by(|a, b| b.cmp(a));
        for (r, c) in counts.into_iter().enumerate() {
            self.ranks.insert(c, r as u32);
        }
        let flat = self.ctx.flat::<N>(self.bye());
        if self.ctx.group_shift.len() > 2 {
            // (A restart follows, in `park_lower`.)
            self.write_flat(&flat, false);
        } else {
            let ids = FlatIds::new(&mut self.m, &flat, self.dummy_id);
            for i in 0..n {
                for j in 0..i {
                    self.m.set_stored(i, j, ids.id(self.ctx, i, j, 0));
                }
            }
        }
        #[cfg(debug_assertions)]
        self.check_flat();
        Ok(flat)
    }

    /// Takes each player's potential in `lower`, the flat weights, as `phi`. With an odd number
    /// of players and more than two scoregroups, the first solve's duals were the first
    /// weights' potentials: starts again from the new ones, which make every flat edge tight
    /// (the dummy gets the least dual that keeps its edges feasible), so that the lower field
    /// can be parked (with two scoregroups or fewer, no bracket has a field below its next
    /// scoregroup).
    fn park_lower(&mut self, lower: &Flat<N>) -> Result<(), Stop> {
        let n = self.n;
        self.phi = (0..n).map(|v| lower.stored_potential(v)).collect();
        if self.odd && self.ctx.group_shift.len() > 2 {
            let duals: Vec<Option<Wide<N>>> = (0..=n).map(|v| self.phi.get(v).copied()).collect();
            self.m.restart_from_feasible(&duals);
            self.solve()?;
        }
        Ok(())
    }

    /// "Whom does `pv` pair with when its edges weigh `self.changes`?": by the duals'
    /// certificate when it settles the answer (most questions, at no stage's cost), else by
    /// solving.
    fn ask(&mut self, pv: usize) -> Result<usize, Stop> {
        let n = self.n;
        if let Some(mv) = self.m.forced_mate(pv, &self.changes).filter(|&mv| mv < n) {
            self.snapshot();
            return Ok(mv);
        }
        for &(ov, w) in &self.changes {
            self.m.set(pv, ov, w);
        }
        self.solve()?;
        Ok(self.mate(pv))
    }

    /// A pair decided for good: it leaves the matcher's graph.
    fn finalize(&mut self, pv: usize, mv: usize) {
        self.matched[pv] = true;
        self.matched[mv] = true;
        self.result.push((pv, mv));
        self.m.retire(pv, mv);
    }

    /// Pairs the brackets from the top; the bye, if any, last.
    fn pair_brackets(mut self) -> Result<Vec<(usize, usize)>, Stop> {
        let n = self.n;
        let mut br = Bracket {
            by_index: Vec::new(),
            group_begin: 0,
            group_begin_vertex: 0,
            next_begin: 0,
            next_begin_vertex: 0,
            next_first: 0,
            base: Base::new(0),
            stored: Vec::new(),
        };
        while self.next_group < n && self.score(self.next_group) >= self.top {
            br.by_index.push(self.next_group);
            self.next_group += 1;
        }
        while br.by_index.len() > 1 || self.next_group < n {
            self.open(&mut br)?;
            self.pair_moved_down(&br)?;
            self.pair_moved_down_opponents(&br)?;
            let rem = self.remainder(&br)?;
            let exchanges = self.exchange_count(&br, &rem);
            self.exchange_s1(&mut br, &rem, exchanges)?;
            self.exchange_s2(&mut br, &rem, exchanges)?;
            self.fix_exchanges(&mut br, &rem);
            self.pair_s1(&br, &rem)?;
            self.close(&mut br);
        }
        for v in 0..n {
            if !self.matched[v] && self.mate(v) == v {
                self.result.push((v, usize::MAX));
            }
        }
        Ok(self.result)
    }

    /// Adds the next scoregroup to the bracket, sets the base weights of the bracket and the
    /// next scoregroup, and solves.
    fn open(&mut self, br: &mut Bracket<N>) -> Result<(), Stop> {
        let n = self.n;
        br.next_begin = br.by_index.len();
        br.next_begin_vertex = br.group_begin_vertex + (br.next_begin - br.group_begin);
        br.next_first = self.next_group;
        while self.next_group < n && self.score(self.next_group) >= self.score(br.next_first) {
            br.by_index.push(self.next_group);
            self.next_group += 1;
        }
        let len = br.by_index.len();
        self.ctx.slot_shifts(&br.by_index, &mut self.shifts)?;
        let mut base = Base::<N>::new(len);
        // Each base weight is interned once (a modified one is named by its index in `base`
        // and its addend's row, see `remainder`), as it first appears. (The weights are set
        // in the matcher pair by pair in the order they always were; computing each just
        // before changes nothing, as the matcher's state is not an input of `edge`.)
        br.stored.clear();
        for larger in br.group_begin..len {
            for smaller in 0..larger {
                let w = self.ctx.edge::<N>(
                    br.by_index[smaller],
                    br.by_index[larger],
                    larger < br.next_begin,
                    larger >= br.next_begin,
                    self.bye(),
                    &self.shifts,
                );
                let id = base.put(larger, smaller, w) as usize;
                while br.stored.len() <= id {
                    br.stored
                        .push(self.m.stored(base.value(br.stored.len() as u32)));
                }
                self.m
                    .set_stored(br.by_index[larger], br.by_index[smaller], br.stored[id]);
            }
        }
        while br.stored.len() < base.values.len() {
            br.stored
                .push(self.m.stored(base.value(br.stored.len() as u32)));
        }
        br.base = base;
        self.solve_parked()
    }

    /// Whether `v`'s mate is a resident of the bracket.
    fn in_group(&self, br: &Bracket<N>, v: usize) -> bool {
        let x = self.mate(v);
        x >= br.group_begin_vertex && x < br.next_begin_vertex
    }

    /// Which moved-down players are paired in this bracket, from the top: as many of each
    /// score as the matching can pair there, each one's edges into the bracket raised once it
    /// is, so that it stays so.
    fn pair_moved_down(&mut self, br: &Bracket<N>) -> Result<(), Stop> {
        let (by_index, len) = (&br.by_index, br.by_index.len());
        let mut md_score = 0;
        let mut remaining = 0usize;
        let mut remaining_matched = 0usize;
        for pi in 0..br.group_begin {
            if pi == 0 || self.score(by_index[pi]) < md_score {
                md_score = self.score(by_index[pi]);
                remaining = 0;
                remaining_matched = 0;
                let mut k = pi;
                while k < len && self.score(by_index[k]) >= md_score {
                    remaining += 1;
                    if self.in_group(br, by_index[k]) {
                        remaining_matched += 1;
                    }
                    k += 1;
                }
            }
            if remaining_matched == 0 {
                continue;
            }
            let pv = by_index[pi];
            if remaining <= remaining_matched {
                self.matched[pv] = true;
                continue;
            }
            remaining -= 1;
            if !self.in_group(br, pv) {
                for oi in br.group_begin..br.next_begin {
                    if let Some(mut w) = br.base.get(pi, oi) {
                        w.0[0] |= 1;
                        self.m.set(pv, by_index[oi], Some(w));
                    }
                }
                self.solve()?;
            }
            if self.in_group(br, pv) {
                self.matched[pv] = true;
                remaining_matched -= 1;
                for oi in br.group_begin..br.next_begin {
                    if let Some(mut w) = br.base.get(pi, oi) {
                        w.0[0] |= (br.next_begin - br.group_begin) as u64;
                        self.m.set(pv, by_index[oi], Some(w.add_u64(1)));
                    }
                }
            }
        }
        Ok(())
    }

    /// The opponents of the moved-down players paired in the bracket, from the top: each
    /// prefers the lowest resident it can meet.
    fn pair_moved_down_opponents(&mut self, br: &Bracket<N>) -> Result<(), Stop> {
        let len = br.by_index.len();
        for pi in 0..br.group_begin {
            let pv = br.by_index[pi];
            if !self.matched[pv] {
                continue;
            }
            let mut addend = len as u64;
            self.changes.clear();
            for oi in (br.group_begin..br.next_begin).rev() {
                let ov = br.by_index[oi];
                if self.matched[ov] {
                    continue;
                }
                if let Some(w) = br.base.get(pi, oi) {
                    self.changes.push((ov, Some(w.add_u64(addend))));
                    addend += 1;
                }
            }
            let mv = self.ask(pv)?;
            self.finalize(pv, mv);
        }
        Ok(())
    }

    /// The remainder: residents (and nothing else) still to be paired in the bracket, their
    /// edges given their addends (see `Remainder::addend`), and solved.
    fn remainder(&mut self, br: &Bracket<N>) -> Result<Remainder, Stop> {
        let by_index = &br.by_index;
        let mut rem = Remainder {
            players: Vec::new(),
            pairs: 0,
        };
        for pi in br.group_begin..br.next_begin {
            let pv = by_index[pi];
            if self.mate(pv) < br.group_begin_vertex {
                continue;
            }
            rem.players.push(pi);
            if self.mate(pv) < pv {
                rem.pairs += 1;
            }
        }
        let b = self.ctx.size_bits;
        // S1's addends go on S1's duals first where a player is matched to a later player
        // of the remainder (the usual S1-S2 pair): every edge of its that changes, changes
        // by its addend, so the pair stays tight and the sets below break only the other
        // pairs (the mirror of restoring the base weights, in `fix_exchanges`).
        let mut position = vec![usize::MAX; self.n + 1];
        for (pc, &pi) in rem.players.iter().enumerate() {
            position[by_index[pi]] = pc;
        }
        for (pc, &pi) in rem.players.iter().enumerate().take(rem.pairs) {
            let pv = by_index[pi];
            let addend = rem.addend::<N>(pc, b);
            let later = |x: usize| position[x] != usize::MAX && position[x] > pc;
            if self.m.mate(pv).is_some_and(later) {
                self.m.shift_dual(pv, addend.add(&addend), later);
            }
        }
        // A modified weight is named by its base weight's index and its addend's row.
        let mut memo = Memo::new();
        for (oc, &oi) in rem.players.iter().enumerate() {
            for (pc, &pi) in rem.players.iter().enumerate().take(oc) {
                let id = br.base.id(oi, pi);
                let key = (pc as u64) << 32 | u64::from(id);
                let id = memo.stored(&mut self.m, key, || br.modified(&rem, b, pi, oi, pc));
                self.m.set_stored(by_index[pi], by_index[oi], id);
            }
        }
        self.solve_parked()?;
        Ok(rem)
    }

    /// Whether `v` is not matched, as an S1 player is, to a later player of the bracket.
    fn exchanged_s1(&self, br: &Bracket<N>, v: usize) -> bool {
        let x = self.mate(v);
        x <= v || x >= br.next_begin_vertex
    }

    /// How many players of S1 the solution exchanges.
    fn exchange_count(&self, br: &Bracket<N>, rem: &Remainder) -> usize {
        if rem.pairs >= rem.players.len() {
            return 0;
        }
        rem.players[..rem.pairs]
            .iter()
            .filter(|&&pi| self.exchanged_s1(br, br.by_index[pi]))
            .count()
    }

    /// Lower players of S1 to be exchanged, where possible (from S1's end).
    fn exchange_s1(
        &mut self,
        br: &mut Bracket<N>,
        rem: &Remainder,
        exchanges: usize,
    ) -> Result<(), Stop> {
        let b = self.ctx.size_bits;
        let mut exchanges_left = exchanges;
        let mut pc = rem.pairs;
        while pc > 0 && exchanges_left > 0 {
            pc -= 1;
            let pi = rem.players[pc];
            let pv = br.by_index[pi];
            if !self.exchanged_s1(br, pv) {
                for &oi in &rem.players[pc + 1..] {
                    if let Some(w) = br.modified(rem, b, pi, oi, pc) {
                        self.m.set(pv, br.by_index[oi], Some(w.sub_u64(1)));
                    }
                }
                self.solve()?;
            }
            let exchange = self.exchanged_s1(br, pv);
            if exchange {
                exchanges_left -= 1;
            }
            for &oi in &rem.players[pc + 1..] {
                if exchange {
                    br.base.put(pi, oi, None);
                }
                self.m
                    .set(pv, br.by_index[oi], br.modified(rem, b, pi, oi, pc));
            }
        }
        Ok(())
    }

    /// Higher players of S2 to be exchanged, where possible (from S2's start).
    fn exchange_s2(
        &mut self,
        br: &mut Bracket<N>,
        rem: &Remainder,
        exchanges: usize,
    ) -> Result<(), Stop> {
        let b = self.ctx.size_bits;
        let mut exchanges_left = exchanges;
        let mut rc = rem.pairs;
        while rc < rem.players.len() && exchanges_left > 1 {
            let pi = rem.players[rc];
            let pv = br.by_index[pi];
            let already = !self.exchanged_s1(br, pv);
            if !already {
                for &oi in &rem.players[rc + 1..] {
                    if let Some(w) = br.modified(rem, b, pi, oi, rc) {
                        self.m.set(pv, br.by_index[oi], Some(w.add_u64(1)));
                    }
                }
                self.solve()?;
            }
            let exchange = !self.exchanged_s1(br, pv);
            if exchange {
                exchanges_left -= 1;
                for &oi in &rem.players[..rc] {
                    br.base.put(pi, oi, None);
                    self.m.set(pv, br.by_index[oi], None);
                }
                for oi in br.next_begin..br.by_index.len() {
                    br.base.put(pi, oi, None);
                    self.m.set(pv, br.by_index[oi], None);
                }
            }
            if !already {
                for &oi in &rem.players[rc + 1..] {
                    self.m
                        .set(pv, br.by_index[oi], br.modified(rem, b, pi, oi, rc));
                }
            }
            rc += 1;
        }
        Ok(())
    }

    /// Fixes who is exchanged; restores the base weights. An S1 player's edges that stay all
    /// lose its own addend, so lowering its dual by as much keeps their slacks, and the
    /// matching, as they are (where its other edges allow).
    fn fix_exchanges(&mut self, br: &mut Bracket<N>, rem: &Remainder) {
        let b = self.ctx.size_bits;
        let mut in_remainder = vec![false; self.n + 1];
        for &pi in &rem.players {
            in_remainder[br.by_index[pi]] = true;
        }
        for (pc, &pi) in rem.players.iter().enumerate() {
            let pv = br.by_index[pi];
            if !self.exchanged_s1(br, pv) {
                let addend = rem.addend::<N>(pc, b);
                let delta = Wide::ZERO.sub(&addend.add(&addend));
                self.m.shift_dual(pv, delta, |x| in_remainder[x]);
            }
            for &oi in &rem.players[pc + 1..] {
                let ov = br.by_index[oi];
                if self.exchanged_s1(br, pv) || !self.exchanged_s1(br, ov) {
                    br.base.put(pi, oi, None);
                }
                self.m
                    .set_stored(pv, ov, br.stored[br.base.id(pi, oi) as usize]);
            }
        }
    }

    /// S1's opponents, from the top: each prefers the lowest player of the remainder it can
    /// meet.
    fn pair_s1(&mut self, br: &Bracket<N>, rem: &Remainder) -> Result<(), Stop> {
        for &pi in &rem.players {
            let pv = br.by_index[pi];
            if self.exchanged_s1(br, pv) {
                continue;
            }
            let mut addend = 0u64;
            self.changes.clear();
            for &oi in rem.players.iter().rev() {
                let ov = br.by_index[oi];
                if oi <= pi || self.matched[ov] {
                    continue;
                }
                if let Some(w) = br.base.get(pi, oi) {
                    self.changes.push((ov, Some(w.add_u64(addend))));
                }
                addend += 1;
            }
            let mv = self.ask(pv)?;
            self.finalize(pv, mv);
        }
        Ok(())
    }

    /// The next bracket: everyone not paired yet (the bracket's leftovers move down).
    fn close(&mut self, br: &mut Bracket<N>) {
        let next_first = br.next_first;
        let mut by_index = Vec::new();
        let mut group_begin = 0;
        self.single_bye =
            self.odd && next_first < self.n && self.bye_score >= self.score(next_first);
        for (pi, &pv) in br.by_index.iter().enumerate() {
            if pi < br.next_begin && self.matched[pv] {
                continue;
            }
            by_index.push(pv);
            if pi < br.next_begin {
                group_begin += 1;
            }
            if self.single_bye && self.score(self.mate(pv)) < self.score(next_first) {
                self.single_bye = false;
            }
        }
        br.by_index = by_index;
        br.group_begin = group_begin;
        br.group_begin_vertex = br.next_begin_vertex;
    }
}
