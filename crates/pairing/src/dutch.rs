//! The FIDE (Dutch) Swiss system, C.04.3 in the 2025 edition (in force from 2026), paired exactly
//! as the FIDE-endorsed engine bbpPairings v6.0.0 pairs it.
//!
//! # Design
//!
//! Every quality criterion of C.04.3 is a term of one edge weight: the weight of a possible pair
//! packs the criteria into bit fields, the most important highest (completion and the bye first,
//! then the number of pairs and their scores in the current bracket and the next, the bye
//! assignee's unplayed games, the four colour criteria, repeated floats and their scores, and
//! room for the order of transpositions and exchanges). A maximum-weight perfect matching of all
//! players still to be paired (plus one dummy vertex when their number is odd: its partner gets
//! the bye) is then the best pairing by those criteria. Bracket by bracket, from the top, the
//! procedure asks the matching which moved-down players can be paired in this bracket, with whom,
//! which residents must be exchanged between S1 and S2, and who S1's players meet, each time by
//! nudging a few weights and re-solving; every answer is fixed before the next question. The
//! procedure and the weight layout follow bbpPairings' `dutch.cpp` (read as the second reading
//! of the rules the issue asks for; the code here is our own), so the pairing is the one the
//! endorsed engine gives, colours and board order included. The procedure, a method per phase
//! of a bracket, is `brackets.rs`; the weights and the colours are here.
//!
//! The matching (`blossom/`) is warm-started: a weight change keeps the old solution's duals
//! feasible and unmatches only the edges that stop being tight, so each question costs one or
//! two augmentations instead of a full solve.

mod blossom;
mod brackets;
mod wide;

use thiserror::Error;

use crate::check::Violation;
use crate::tournament::{Colour, PointSystem, RoundEntry, StartRank, Tournament};
use blossom::Distinct;
use wide::Wide;

/// Options of the Dutch engine.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct DutchOptions {
    /// The point system (default 1, ½, 0, a PAB a win's points). It scores every round of the
    /// tournament, past ones included.
    pub points: PointSystem,
}

impl DutchOptions {
    /// The default options with the tournament's own point system.
    pub fn for_tournament(t: &Tournament) -> Self {
        DutchOptions { points: t.points }
    }

    /// `t` scored under these options' point system.
    fn apply<'t>(&self, t: &'t Tournament) -> std::borrow::Cow<'t, Tournament> {
        if t.points == self.points {
            std::borrow::Cow::Borrowed(t)
        } else {
            std::borrow::Cow::Owned(Tournament {
                points: self.points,
                ..t.clone()
            })
        }
    }
}

/// The most memory (MiB) one round's exact pairing may take; about 6,000 players in late rounds.
pub const MEMORY_LIMIT_MIB: u64 = 4096;

/// One round's pairing.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Pairing {
    /// `(white, black)` in board order (C.04.2 3.6).
    pub boards: Vec<(StartRank, StartRank)>,
    /// The player who gets the pairing-allocated bye, if the number of players is odd.
    pub bye: Option<StartRank>,
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
    #[error(
        "round {round}: {players} players need {mib} MiB for an exact Dutch pairing, more than the {limit} MiB allowed"
    )]
    TooLarge {
        round: u32,
        players: usize,
        mib: u64,
        limit: u64,
    },
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

/// A player's past round as the engine sees it.
#[derive(Clone, Copy, Debug)]
struct Past {
    /// Index (in `Tournament::players`) of the opponent of a pairing, `None` for byes/absence.
    opponent: Option<usize>,
    colour: Option<Colour>,
    played: bool,
    /// The round's pairing placed the player (a game, a forfeit or the pairing-allocated bye).
    participated: bool,
    pab: bool,
    points: u32,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Float {
    Down,
    Up,
    None,
}

/// One player to be paired.
#[derive(Clone, Debug)]
struct Entrant {
    idx: usize,
    rank: usize,
    score: u32,
    plain_score: u32,
    pref: Option<Colour>,
    repeated: Option<Colour>,
    imbalance: u32,
    strong: bool,
    played_games: u32,
    eligible: bool,
    float1: Float,
    float2: Float,
    opponents: Vec<usize>,
    history: Vec<Option<Colour>>,
}

impl Entrant {
    fn absolute_imbalance(&self) -> bool {
        self.imbalance > 1
    }
    fn absolute(&self) -> bool {
        self.absolute_imbalance() || self.repeated.is_some()
    }
}

fn bits(v: usize) -> u32 {
    usize::BITS - v.leading_zeros()
}

fn past_of(t: &Tournament, e: &RoundEntry, me: usize) -> Past {
    let ps = &t.points;
    // An opponent who is not in the tournament (an inconsistent file; `pair_next_round`
    // refuses those before pairing) counts as no pairing at all.
    if e.paired_opponent()
        .is_some_and(|o| o.0 == 0 || o.0 as usize > t.players.len())
    {
        return past_of(t, &RoundEntry::NotPaired, me);
    }
    match *e {
        RoundEntry::Game {
            opponent,
            colour,
            result,
            ..
        } => Past {
            opponent: Some(opponent.0 as usize - 1),
            colour: Some(colour),
            played: true,
            participated: true,
            pab: false,
            points: result.points(ps),
        },
        RoundEntry::Forfeit { opponent, won, .. } => Past {
            opponent: Some(opponent.0 as usize - 1),
            colour: None,
            played: false,
            participated: opponent.0 as usize - 1 != me,
            pab: false,
            points: if won { ps.win } else { ps.forfeit_loss },
        },
        RoundEntry::PairingBye => Past {
            opponent: None,
            colour: None,
            played: false,
            participated: true,
            pab: true,
            points: ps.pab,
        },
        other => Past {
            opponent: None,
            colour: None,
            played: false,
            participated: false,
            pab: false,
            points: other.points(ps),
        },
    }
}

/// Pairs the next round of `t` with the Dutch system.
pub fn pair_next_round(t: &Tournament, options: &DutchOptions) -> Result<Pairing, PairingError> {
    let t = &*options.apply(t);
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
    pair_round(t, round)
}

/// Pairs round `round` of `t` from the rounds before it (entries of later rounds are ignored;
/// entries of `round` itself that are not pairings, such as requested byes, mark absentees).
/// Round 0 has no pairing (an empty one is returned).
pub fn pair_round(t: &Tournament, round: u32) -> Result<Pairing, PairingError> {
    pair_round_slots(t, round, None).map(|(p, _)| p)
}

/// `pair_round` with the weights' score slots set (see `Ctx::slots`; `None`: the round's
/// own choice), and whether a bracket needed more than those (the round was then paired again
/// with a slot for every scoregroup).
fn pair_round_slots(
    t: &Tournament,
    round: u32,
    slots: Option<u32>,
) -> Result<(Pairing, bool), PairingError> {
    let Some(played) = (round as usize).checked_sub(1) else {
        return Ok((Pairing::default(), false));
    };
    let entrants = History::new(t, played).entrants(round);
    let n = entrants.len();
    if n == 0 {
        return Ok((Pairing::default(), false));
    }
    let mut ctx = Ctx::new(t, entrants, played as u32);
    if let Some(slots) = slots {
        ctx.set_slots(slots);
    }
    let mut pairs = ctx.pair(round)?;
    let widened = pairs.is_err();
    if widened {
        // A bracket held more scores than the round's slots: pair the round again with a slot
        // for every scoregroup (rare: see `Ctx::slots`).
        ctx.set_slots(ctx.group_shift.len() as u32);
        pairs = ctx.pair(round)?;
    }
    let Ok(Some(pairs)) = pairs else {
        return Err(PairingError::NoValidPairing { round, players: n });
    };
    Ok((ctx.publish(&pairs), widened))
}

/// Every player's past rounds as the engine reads them, and the scores they make.
struct History<'t> {
    t: &'t Tournament,
    /// The number of rounds before the one to pair.
    played: usize,
    /// `pasts[i][r]`: player `i`'s round `r + 1`.
    pasts: Vec<Vec<Past>>,
}

/// A player's colours in the games played: the preference, the colour of two games or more in
/// a row (`None` otherwise), the difference between whites and blacks, and each game's colour.
struct Colours {
    pref: Option<Colour>,
    repeated: Option<Colour>,
    imbalance: u32,
    history: Vec<Option<Colour>>,
}

impl Colours {
    fn new(pasts: &[Past]) -> Self {
        let (mut white, mut black, mut consecutive) = (0u32, 0u32, 0u32);
        let mut repeated: Option<Colour> = None;
        let mut history = Vec::new();
        for m in pasts.iter().filter(|m| m.played) {
            let c = m.colour.expect("played games have colours");
            history.push(Some(c));
            if c == Colour::White {
                white += 1;
            } else {
                black += 1;
            }
            if consecutive == 0 || Some(c) != repeated {
                consecutive = 1;
            } else {
                consecutive += 1;
            }
            repeated = Some(c);
        }
        let lower = if white > black {
            Colour::Black
        } else {
            Colour::White
        };
        let imbalance = white.abs_diff(black);
        let pref = if imbalance > 1 {
            Some(lower)
        } else if consecutive > 1 {
            repeated.map(Colour::opposite)
        } else if imbalance > 0 {
            Some(lower)
        } else if consecutive > 0 {
            repeated.map(Colour::opposite)
        } else {
            None
        };
        if consecutive <= 1 {
            repeated = None;
        }
        Colours {
            pref,
            repeated,
            imbalance,
            history,
        }
    }
}

impl<'t> History<'t> {
    fn new(t: &'t Tournament, played: usize) -> Self {
        let pasts = t
            .players
            .iter()
            .enumerate()
            .map(|(i, p)| {
                (0..played)
                    .map(|r| match p.entries.get(r) {
                        Some(e) => past_of(t, e, i),
                        None => past_of(t, &RoundEntry::NotPaired, i),
                    })
                    .collect()
            })
            .collect();
        History { t, played, pasts }
    }

    /// Player `i`'s score `back` rounds ago.
    fn plain_score(&self, i: usize, back: usize) -> u32 {
        self.pasts[i][..self.played - back]
            .iter()
            .map(|m| m.points)
            .sum()
    }

    /// The score used for pairing `back` rounds ago: the score before that round plus that
    /// round's acceleration.
    fn score(&self, i: usize, back: usize) -> u32 {
        let accel = self.t.players[i]
            .accelerations
            .get(self.played - back)
            .copied()
            .unwrap_or(0);
        self.plain_score(i, back) + accel
    }

    /// How player `i` floated `back` rounds ago.
    fn float(&self, i: usize, back: usize) -> Float {
        if self.played < back {
            return Float::None;
        }
        let m = &self.pasts[i][self.played - back];
        if !m.played {
            return if m.points > self.t.points.loss {
                Float::Down
            } else {
                Float::None
            };
        }
        let mine = self.score(i, back);
        let theirs = self.score(m.opponent.expect("a game has an opponent"), back);
        match mine.cmp(&theirs) {
            std::cmp::Ordering::Greater => Float::Down,
            std::cmp::Ordering::Less => Float::Up,
            std::cmp::Ordering::Equal => Float::None,
        }
    }

    /// The players to pair in `round`, in pairing order (score, then effective pairing number).
    fn entrants(&self, round: u32) -> Vec<Entrant> {
        let t = self.t;
        // A round already paired (a file checked round by round) has an entry for everyone in
        // it: a player without one, whose TRF line ends earlier, was not paired in it (as
        // bbpPairings evens up the records); in the round to pair next, such a player is paired.
        let recorded = t.round_is_paired(round);
        let absent = |i: usize| {
            let p = &t.players[i];
            let entry = match p.entry(round) {
                Some(e) => !e.is_pairing(),
                None => recorded,
            };
            entry || p.withdrawn_from.is_some_and(|w| w <= round)
        };
        // Effective pairing numbers: players who take part in this round or took part in an
        // earlier pairing, in starting-rank order (or the file's `XXC rank` order).
        let mut next = 0;
        let mut rank = vec![usize::MAX; t.players.len()];
        for i in t.indices_in_pairing_order() {
            if !absent(i) || self.pasts[i].iter().any(|m| m.participated) {
                rank[i] = next;
                next += 1;
            }
        }
        let mut entrants: Vec<Entrant> = (0..t.players.len())
            .filter(|&i| !absent(i))
            .map(|i| self.entrant(i, rank[i]))
            .collect();
        entrants.sort_by(|a, b| b.score.cmp(&a.score).then(a.rank.cmp(&b.rank)));
        entrants
    }

    fn entrant(&self, i: usize, rank: usize) -> Entrant {
        let ms = &self.pasts[i];
        let points = &self.t.points;
        let Colours {
            pref,
            repeated,
            imbalance,
            history,
        } = Colours::new(ms);
        let absolute = imbalance > 1 || repeated.is_some();
        Entrant {
            idx: i,
            rank,
            score: self.score(i, 0),
            plain_score: self.plain_score(i, 0),
            pref,
            repeated,
            imbalance,
            strong: !absolute && imbalance > 0,
            played_games: ms.iter().filter(|m| m.played).count() as u32,
            eligible: !ms
                .iter()
                .any(|m| !m.played && (m.points >= points.win || m.pab)),
            float1: self.float(i, 1),
            float2: self.float(i, 2),
            opponents: ms
                .iter()
                .filter(|m| m.played)
                .filter_map(|m| m.opponent)
                .collect(),
            history,
        }
    }
}

/// A bracket held more distinct scores than the weights have slots for (see `Ctx::slots`).
struct Widen;

/// What `brackets::run` gave at one layout: the pairs (as sorted indices; `None`: no valid
/// pairing), or `Widen`.
type Run = Result<Option<Vec<(usize, usize)>>, Widen>;

/// The weights' width in words for a layout of `bits` bits: the round's own from 5 words up to
/// 32 (a scan's cost grows with it), so that only these widths are instances of the matcher.
fn width_for(bits: u32) -> usize {
    let words = (bits + 80).div_ceil(64) as usize;
    match words {
        0..=2 => 2,
        3 | 4 => words,
        5..=32 => words.next_multiple_of(2),
        33..=64 => 64,
        _ => 128,
    }
}

impl Ctx<'_> {
    /// The width of this layout's weights (the first solve's bye potentials included).
    fn width(&self) -> usize {
        width_for((self.offsets.top + 2).max(self.groups_shift + self.size_bits + 3))
    }

    /// Runs the procedure at this layout's width. The matcher keeps a dense table of wide
    /// weights (and the bracket its own): refuse a field whose table would not fit rather than
    /// exhaust the machine's memory.
    fn pair(&self, round: u32) -> Result<Run, PairingError> {
        let n = self.p.len();
        let width = self.width() as u64;
        // The matcher's square table of weight indices and the bracket's (4 bytes a pair each),
        // the table of forbidden pairs (a bit a pair), and the distinct weights of both, of
        // `width` words each (counted as 16 a player; the matcher's were about 6 a player at
        // 1,000 players and 3 at 10,000).
        let bytes = (n as u64 + 1).pow(2) * 8 + (n as u64).pow(2) / 8 + 16 * n as u64 * width * 8;
        let mib = bytes / (1 << 20);
        if mib > MEMORY_LIMIT_MIB {
            return Err(PairingError::TooLarge {
                round,
                players: n,
                mib,
                limit: MEMORY_LIMIT_MIB,
            });
        }
        // One instance of the matcher a width above: each round runs at the width chosen there.
        Ok(match width {
            2 => brackets::run::<2>(self),
            3 => brackets::run::<3>(self),
            4 => brackets::run::<4>(self),
            6 => brackets::run::<6>(self),
            8 => brackets::run::<8>(self),
            10 => brackets::run::<10>(self),
            12 => brackets::run::<12>(self),
            14 => brackets::run::<14>(self),
            16 => brackets::run::<16>(self),
            18 => brackets::run::<18>(self),
            20 => brackets::run::<20>(self),
            22 => brackets::run::<22>(self),
            24 => brackets::run::<24>(self),
            26 => brackets::run::<26>(self),
            28 => brackets::run::<28>(self),
            30 => brackets::run::<30>(self),
            32 => brackets::run::<32>(self),
            64 => brackets::run::<64>(self),
            _ => brackets::run::<128>(self),
        })
    }
}

/// A bracket's base weights (see `brackets`), symmetric, by position in the bracket: a triangle
/// of indices into the distinct weights (row `a` holds the pairs `a`–`b` for `b <= a`), so that
/// the larger player's row writes in order and a pair takes 4 bytes once (a 10,000-player
/// bracket: 200 MB, where a triangle of optional wide integers took gigabytes).
struct Base<const N: usize> {
    ids: Vec<u32>,
    /// The distinct weights; index 0 stands for no edge.
    values: Distinct<N>,
}

impl<const N: usize> Base<N> {
    fn new(len: usize) -> Self {
        Base {
            ids: vec![0; len * (len + 1) / 2],
            values: Distinct::new(),
        }
    }

    fn get(&self, a: usize, b: usize) -> Option<Wide<N>> {
        self.value(self.id(a, b))
    }

    /// The index of the weight of `a`–`b` (0: no edge), a name for it that stays valid for
    /// the bracket (a `put` gives a weight an index once).
    fn id(&self, a: usize, b: usize) -> u32 {
        self.ids[Self::at(a, b)]
    }

    /// Where the pair `a`–`b` is in `ids`.
    #[inline]
    fn at(a: usize, b: usize) -> usize {
        let (hi, lo) = if a >= b { (a, b) } else { (b, a) };
        hi * (hi + 1) / 2 + lo
    }

    fn value(&self, id: u32) -> Option<Wide<N>> {
        (id != 0).then(|| *self.values.get(id))
    }

    /// Sets the weight of `a`–`b`; returns its index.
    fn put(&mut self, a: usize, b: usize, w: Option<Wide<N>>) -> u32 {
        let id = w.map_or(0, |w| self.values.id(w));
        self.ids[Self::at(a, b)] = id;
        id
    }
}

/// Who may get the bye, as the weights see it (see `brackets`): the bye assignee's score,
/// whether the bye goes to the top bracket's single leftover, and then the rank of each number
/// of games played among the players of that score.
#[derive(Clone, Copy)]
struct Bye<'a> {
    score: u32,
    single: bool,
    ranks: &'a std::collections::HashMap<u32, u32>,
}

/// See `Ctx::flat`.
struct Flat<const N: usize> {
    constant: Wide<N>,
    potential: Vec<Wide<N>>,
}

impl<const N: usize> Flat<N> {
    /// Player `v`'s share of a flat pair's stored weight (`2w + 2`, see the matcher): the
    /// constant, twice the potential, and one, so that two shares make the pair's weight.
    fn stored_potential(&self, v: usize) -> Wide<N> {
        let p = &self.potential[v];
        self.constant.add(p).add(p).add_u64(1)
    }

    /// Each player's potential as an index into the distinct potentials (few: they depend on
    /// bye eligibility and score), and those potentials.
    fn classes(&self) -> (Vec<usize>, Distinct<N>) {
        let mut d = Distinct::<N>::new();
        let classes = self.potential.iter().map(|p| d.id(*p) as usize).collect();
        (classes, d)
    }
}

/// Where each field of a pair's weight starts (bit offsets; see `Ctx::edge_by_shifts` for the
/// order, most significant first). Fields of float history not yet played are left at 0.
#[derive(Default)]
struct Offsets {
    top: u32,
    current: u32,
    current_scores: u32,
    next: u32,
    next_scores: u32,
    ranks: u32,
    colour: [u32; 4],
    floats: [u32; 2],
    up_ok: [u32; 2],
    float_scores: [u32; 2],
    up_ok_scores: [u32; 2],
}

impl Offsets {
    fn new(b: u32, s: u32, played: u32) -> Self {
        let mut o = Offsets::default();
        let mut at = 3 * b + 1;
        let mut field = |width: u32| {
            let start = at;
            at += width;
            start
        };
        for k in [1, 0] {
            if played > k as u32 {
                o.up_ok_scores[k] = field(s);
                o.float_scores[k] = field(s);
            }
        }
        for k in [1, 0] {
            if played > k as u32 {
                o.up_ok[k] = field(b);
                o.floats[k] = field(b);
            }
        }
        for k in [3, 2, 1, 0] {
            o.colour[k] = field(b);
        }
        o.ranks = field(2 * b);
        o.next_scores = field(s);
        o.next = field(b);
        o.current_scores = field(s);
        o.current = field(b);
        o.top = field(2);
        o
    }
}

struct Ctx<'t> {
    t: &'t Tournament,
    p: Vec<Entrant>,
    played: u32,
    /// Where each scoregroup's bit field starts among all scoregroups' (lowest score at 0), and
    /// the width of them all: the first solve's bye potentials (see `brackets`).
    group_shift: std::collections::HashMap<u32, u32>,
    groups_shift: u32,
    size_bits: u32,
    /// The number of score slots in each score field of a weight, `size_bits` wide each. The
    /// live edges of a bracket's solves (its players' and the next scoregroup's; every pair
    /// with a player below is flat, and every earlier bracket's player is retired) count only
    /// the scores of those players in the score fields, and every such edge is rewritten at
    /// the next bracket; so slot `k` stands for the `k`-th lowest of the bracket's scores (see
    /// `Ctx::slot_shifts`), and a weight is a few slots wide where a field for every
    /// scoregroup made it 18 to 20 words at 10,000 players. Slots keep the scores' order and
    /// each has room for a whole scoregroup's count, so every matching of the live graph
    /// compares with every other as it would with a field for every scoregroup.
    slots: u32,
    /// The layout at `slots` (the weight's bits: `top` and its two).
    offsets: Offsets,
    /// Pairs that may not meet (played before, or XXP-forbidden): bit `b * n + a` for the
    /// pair of sorted indices `a`, `b` (set both ways), so that a row reads in order.
    forbidden: Vec<u64>,
    /// See `Ctx::new`.
    clash: Vec<u8>,
}

impl<'t> Ctx<'t> {
    fn new(t: &'t Tournament, p: Vec<Entrant>, played: u32) -> Self {
        let n = p.len();
        let mut group_shift = std::collections::HashMap::new();
        let mut groups_shift = 0;
        let mut max_group = 0;
        let mut i = n;
        while i > 0 {
            let score = p[i - 1].score;
            let mut j = i;
            while j > 0 && p[j - 1].score == score {
                j -= 1;
            }
            let size = i - j;
            group_shift.insert(score, groups_shift);
            groups_shift += bits(size);
            max_group = max_group.max(size);
            i = j;
        }
        let size_bits = bits(max_group);
        let pos: std::collections::HashMap<usize, usize> =
            p.iter().enumerate().map(|(k, e)| (e.idx, k)).collect();
        let mut forbidden = vec![0u64; (n * n).div_ceil(64)];
        let mut forbid = |a: usize, b: usize| {
            for i in [a * n + b, b * n + a] {
                forbidden[i / 64] |= 1 << (i % 64);
            }
        };
        for (k, e) in p.iter().enumerate() {
            for o in &e.opponents {
                if let Some(&ko) = pos.get(o) {
                    forbid(k, ko);
                }
            }
        }
        for group in t.forbidden.iter().filter(|f| f.applies_in(played + 1)) {
            let mut ks: Vec<usize> = group
                .players
                .iter()
                .filter_map(|id| pos.get(&(id.0 as usize).wrapping_sub(1)).copied())
                .collect();
            // A group may name a player many times: at most the field is forbidden pairwise.
            ks.sort_unstable();
            ks.dedup();
            for &a in &ks {
                for &b in &ks {
                    if a != b {
                        forbid(a, b);
                    }
                }
            }
        }
        // Two players clash (may not meet: the absolute colour criterion) when both have the
        // same absolute colour preference and neither is a topscorer in the last round: a code
        // per player, equal and non-zero for two that clash.
        let threshold = t.points.topscorer_above(played);
        let clash = p
            .iter()
            .map(|x| {
                let exempt = played + 1 >= t.total_rounds && x.score > threshold;
                match x.pref {
                    _ if !x.absolute() || exempt => 0,
                    None => 1,
                    Some(Colour::White) => 2,
                    Some(Colour::Black) => 3,
                }
            })
            .collect();
        let groups = group_shift.len() as u32;
        let mut ctx = Ctx {
            t,
            p,
            played,
            group_shift,
            groups_shift,
            size_bits,
            slots: 0,
            offsets: Offsets::default(),
            forbidden,
            clash,
        };
        // Three slots hold a bracket of moved-down players from one scoregroup, its residents
        // and the next scoregroup (nearly every bracket of a large field); as many more as fit
        // in the same width.
        let width =
            |slots: u32| width_for(Offsets::new(size_bits, slots * size_bits, played).top + 2);
        let mut slots = 3.min(groups);
        while slots < groups && width(slots + 1) == width(slots) {
            slots += 1;
        }
        ctx.set_slots(slots);
        ctx
    }

    fn set_slots(&mut self, slots: u32) {
        self.slots = slots;
        self.offsets = Offsets::new(self.size_bits, slots * self.size_bits, self.played);
    }

    /// Each score slot's offset in a score field for the players `by_index` (a bracket and the
    /// next scoregroup), written into `shifts` by player: the lowest score at 0. `Widen` when
    /// they have more scores than slots.
    fn slot_shifts(&self, by_index: &[usize], shifts: &mut [u32]) -> Result<(), Widen> {
        let mut scores: Vec<u32> = by_index.iter().map(|&v| self.p[v].score).collect();
        scores.sort_unstable();
        scores.dedup();
        if scores.len() > self.slots as usize {
            return Err(Widen);
        }
        for &v in by_index {
            let slot = scores.partition_point(|&x| x < self.p[v].score) as u32;
            shifts[v] = slot * self.size_bits;
        }
        Ok(())
    }

    fn shift(&self, score: u32) -> u32 {
        self.group_shift[&score]
    }

    /// Absolute criteria: the two have not played each other, and not both have the same
    /// absolute colour preference (except a topscorer in the last round).
    #[inline]
    fn compatible(&self, a: usize, b: usize) -> bool {
        let i = b * self.p.len() + a;
        self.forbidden[i / 64] >> (i % 64) & 1 == 0
            && (self.clash[a] == 0 || self.clash[a] != self.clash[b])
    }

    fn bye_candidate(&self, a: usize, bye_score: u32) -> bool {
        self.p[a].eligible && self.p[a].score <= bye_score
    }

    /// The weight of the pair `hi`–`lo` (see `edge_by_shifts`, the same weight built field by
    /// field from the top): every field added at its offset in `Offsets`.
    fn edge<const N: usize>(
        &self,
        hi: usize,
        lo: usize,
        in_current: bool,
        in_next: bool,
        bye: Bye<'_>,
        shifts: &[u32],
    ) -> Option<Wide<N>> {
        if !self.compatible(hi, lo) {
            return None;
        }
        let (bye_score, single_bye, ranks) = (bye.score, bye.single, bye.ranks);
        let o = &self.offsets;
        let (h, l) = (&self.p[hi], &self.p[lo]);
        let mut r = Wide::<N>::ZERO;
        r.add_at(
            1 + u64::from(!self.bye_candidate(hi, bye_score))
                + u64::from(!self.bye_candidate(lo, bye_score)),
            o.top,
        );
        if in_current {
            r.add_at(1, o.current);
            r.add_at(1, o.current_scores + shifts[hi]);
        }
        if in_next {
            r.add_at(1, o.next);
            r.add_at(1, o.next_scores + shifts[hi]);
        }
        if single_bye {
            if h.score == bye_score {
                r.add_at(u64::from(ranks[&h.played_games]), o.ranks);
            }
            if l.score == bye_score {
                r.add_at(u64::from(ranks[&l.played_games]), o.ranks);
            }
        }
        if in_current {
            for (c, offset) in self.colour_criteria(hi, lo).into_iter().zip(o.colour) {
                r.add_at(u64::from(c), offset);
            }
        }
        let higher_score_gt = h.score > l.score;
        for back in [1u32, 2] {
            if self.played < back || !in_current {
                continue;
            }
            let k = back as usize - 1;
            let (lf, hf) = if back == 1 {
                (l.float1, h.float1)
            } else {
                (l.float2, h.float2)
            };
            r.add_at(
                u64::from(lf == Float::Down) + u64::from(h.score <= l.score && hf == Float::Down),
                o.floats[k],
            );
            let up_ok = !(higher_score_gt && lf == Float::Up);
            r.add_at(u64::from(up_ok), o.up_ok[k]);
            if lf == Float::Down {
                r.add_at(1, o.float_scores[k] + shifts[lo]);
            }
            if hf == Float::Down {
                r.add_at(1, o.float_scores[k] + shifts[hi]);
            }
            if up_ok {
                r.add_at(1, o.up_ok_scores[k] + shifts[hi]);
            }
        }
        debug_assert_eq!(
            Some(r),
            self.edge_by_shifts(hi, lo, in_current, in_next, bye, shifts)
        );
        Some(r)
    }

    /// C8-C11's colour criteria of the pair (the lower player's side first).
    fn colour_criteria(&self, hi: usize, lo: usize) -> [bool; 4] {
        let (p, o) = (&self.p[lo], &self.p[hi]);
        let c1 = !p.absolute_imbalance() || !o.absolute_imbalance() || p.pref != o.pref;
        let c2 = !p.absolute()
            || !o.absolute()
            || p.pref != o.pref
            || if p.imbalance == o.imbalance {
                p.repeated.is_none() || p.repeated != o.repeated
            } else {
                let q = if p.imbalance > o.imbalance { o } else { p };
                q.repeated != p.pref.map(Colour::opposite)
            };
        let c3 = p.pref.is_none() || o.pref.is_none() || p.pref != o.pref;
        let c4 = (!p.strong && !p.absolute())
            || (!o.strong && !o.absolute())
            || (p.absolute() && o.absolute())
            || p.pref != o.pref;
        [c1, c2, c3, c4]
    }

    /// The weight of a pair, built from its most significant field down by shifting: the
    /// reading of the criteria that `edge` is checked against in debug builds.
    fn edge_by_shifts<const N: usize>(
        &self,
        hi: usize,
        lo: usize,
        in_current: bool,
        in_next: bool,
        bye: Bye<'_>,
        shifts: &[u32],
    ) -> Option<Wide<N>> {
        if !self.compatible(hi, lo) {
            return None;
        }
        let (bye_score, single_bye, ranks) = (bye.score, bye.single, bye.ranks);
        let b = self.size_bits;
        let s = self.slots * b;
        let (h, l) = (&self.p[hi], &self.p[lo]);
        let mut r = Wide::<N>::from_u64(
            1 + u64::from(!self.bye_candidate(hi, bye_score))
                + u64::from(!self.bye_candidate(lo, bye_score)),
        );
        let put = |r: Wide<N>, k: u32, v: u64| r.shl(k).add_u64(v);
        r = put(r, b, u64::from(in_current));
        r = r.shl(s);
        if in_current {
            r.set_bit(shifts[hi]);
        }
        r = put(r, b, u64::from(in_next));
        r = r.shl(s);
        if in_next {
            r.set_bit(shifts[hi]);
        }
        r = r.shl(2 * b);
        if single_bye {
            if h.score == bye_score {
                r = r.add_u64(u64::from(ranks[&h.played_games]));
            }
            if l.score == bye_score {
                r = r.add_u64(u64::from(ranks[&l.played_games]));
            }
        }
        // Colour criteria (player = the lower, opponent = the higher).
        for c in self.colour_criteria(hi, lo) {
            r = put(r, b, u64::from(in_current && c));
        }
        let higher_score_gt = h.score > l.score;
        if self.played >= 1 {
            let v = if in_current {
                u64::from(l.float1 == Float::Down)
                    + u64::from(h.score <= l.score && h.float1 == Float::Down)
            } else {
                0
            };
            r = put(r, b, v);
            let v = in_current && !(higher_score_gt && l.float1 == Float::Up);
            r = put(r, b, u64::from(v));
        }
        if self.played >= 2 {
            let v = if in_current {
                u64::from(l.float2 == Float::Down)
                    + u64::from(h.score <= l.score && h.float2 == Float::Down)
            } else {
                0
            };
            r = put(r, b, v);
            let v = in_current && !(higher_score_gt && l.float2 == Float::Up);
            r = put(r, b, u64::from(v));
        }
        for back in [1u32, 2] {
            if self.played < back {
                continue;
            }
            let (lf, hf) = if back == 1 {
                (l.float1, h.float1)
            } else {
                (l.float2, h.float2)
            };
            r = r.shl(s);
            if in_current {
                if lf == Float::Down {
                    r = r.add(&Wide::from_u64(1).shl(shifts[lo]));
                }
                if hf == Float::Down {
                    r = r.add(&Wide::from_u64(1).shl(shifts[hi]));
                }
            }
            r = r.shl(s);
            if in_current && !(lf == Float::Up && higher_score_gt) {
                r.set_bit(shifts[hi]);
            }
        }
        r = r.shl(3 * b + 1);
        Some(r)
    }

    /// The weights of pairs outside the current bracket and the next scoregroup (`edge` with
    /// both flags off: completion, bye eligibility, and the bye assignee's unplayed games when
    /// the bye comes from the top scoregroup) are a constant plus one potential a player: the
    /// whole field's weights are then a sum each instead of a bit field at a time.
    fn flat<const N: usize>(&self, bye: Bye<'_>) -> Flat<N> {
        let (bye_score, single_bye, ranks) = (bye.score, bye.single, bye.ranks);
        let (top, below_ranks) = (self.offsets.top, self.offsets.ranks);
        let potential = self
            .p
            .iter()
            .enumerate()
            .map(|(v, e)| {
                let mut p =
                    Wide::<N>::from_u64(u64::from(!self.bye_candidate(v, bye_score))).shl(top);
                if single_bye && e.score == bye_score {
                    p = p.add(&Wide::from_u64(u64::from(ranks[&e.played_games])).shl(below_ranks));
                }
                p
            })
            .collect();
        Flat {
            constant: Wide::from_u64(1).shl(top),
            potential,
        }
    }

    /// Whether `a` is below `b` in the pairing order (score, then effective pairing number).
    fn lower(&self, a: usize, b: usize) -> bool {
        let (x, y) = (&self.p[a], &self.p[b]);
        (x.score, y.rank) < (y.score, x.rank)
    }

    /// The colour of `a` against `b`.
    fn colour(&self, a: usize, b: usize) -> Colour {
        let (x, y) = (&self.p[a], &self.p[b]);
        let initial = self.t.initial_colour;
        if let Some(c) = self.neutral(a, b) {
            return c;
        }
        match x.pref {
            None => {
                if self.lower(a, b) {
                    if y.rank & 1 == 1 {
                        initial
                    } else {
                        initial.opposite()
                    }
                } else if x.rank & 1 == 1 {
                    initial.opposite()
                } else {
                    initial
                }
            }
            Some(p) => {
                if self.lower(a, b) {
                    y.pref.map_or(p, Colour::opposite)
                } else {
                    p
                }
            }
        }
    }

    fn neutral(&self, a: usize, b: usize) -> Option<Colour> {
        let (x, y) = (&self.p[a], &self.p[b]);
        let compatible = x.pref.is_none() || y.pref.is_none() || x.pref != y.pref;
        if compatible {
            return x.pref.or(y.pref.map(Colour::opposite));
        }
        if x.absolute() && (x.imbalance > y.imbalance || !y.absolute()) {
            return x.pref;
        }
        if y.absolute() && (y.imbalance > x.imbalance || !x.absolute()) {
            return y.pref.map(Colour::opposite);
        }
        if x.strong && !y.strong {
            return x.pref;
        }
        if y.strong && !x.strong {
            return y.pref.map(Colour::opposite);
        }
        // The most recent round in which their colours differed.
        let (hx, hy) = (&x.history, &y.history);
        let (mut i, mut j) = (hx.len(), hy.len());
        while i > 0 && j > 0 && hx[i - 1] == hy[j - 1] {
            i -= 1;
            j -= 1;
        }
        if i > 0 && j > 0 { hy[j - 1] } else { None }
    }

    /// The pairing in board order (C.04.2: higher scores first, by the higher player's score,
    /// then the lower player's, then the higher player's pairing number; the bye last).
    fn publish(&self, pairs: &[(usize, usize)]) -> Pairing {
        let mut boards: Vec<(usize, usize)> = Vec::new();
        let mut bye = None;
        for &(a, b) in pairs {
            if b == usize::MAX {
                bye = Some(a);
                continue;
            }
            let (first, second) = if self.p[a].idx < self.p[b].idx {
                (a, b)
            } else {
                (b, a)
            };
            if self.colour(first, second) == Colour::White {
                boards.push((first, second));
            } else {
                boards.push((second, first));
            }
        }
        let plain_lower = |a: usize, b: usize| {
            (self.p[a].plain_score, self.p[b].rank) < (self.p[b].plain_score, self.p[a].rank)
        };
        let key = |&(w, b): &(usize, usize)| {
            let (hi, lo) = if plain_lower(w, b) { (b, w) } else { (w, b) };
            (
                std::cmp::Reverse(self.p[hi].plain_score),
                std::cmp::Reverse(self.p[lo].plain_score),
                self.p[hi].rank,
            )
        };
        boards.sort_by_key(key);
        let id = |i: usize| StartRank(self.p[i].idx as u32 + 1);
        Pairing {
            boards: boards.into_iter().map(|(w, b)| (id(w), id(b))).collect(),
            bye: bye.map(id),
        }
    }
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

/// A round of a tournament whose recorded pairing is not the one the engine makes from the
/// state before it (what bbpPairings' `-c` reports).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RoundMismatch {
    pub round: u32,
    /// The pairs as recorded, `(white, black)`, sorted, and the recorded PAB.
    pub recorded: Pairing,
    /// What the engine pairs instead (boards sorted the same way), or why it cannot.
    pub engine: Result<Pairing, PairingError>,
}

impl std::fmt::Display for RoundMismatch {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let show = |p: &Pairing| {
            let mut s: Vec<String> = p.boards.iter().map(|(w, b)| format!("{w}-{b}")).collect();
            if let Some(b) = p.bye {
                s.push(format!("{b}-bye"));
            }
            s.join(" ")
        };
        match &self.engine {
            Ok(e) => {
                type Set = std::collections::BTreeSet<(StartRank, StartRank)>;
                let rec: Set = self.recorded.boards.iter().copied().collect();
                let eng: Set = e.boards.iter().copied().collect();
                let only = |a: &Set, b: &Set| {
                    let v: Vec<String> = a.difference(b).map(|(w, b)| format!("{w}-{b}")).collect();
                    v.join(" ")
                };
                let side = |pairs: String, bye: Option<StartRank>| {
                    let bye = bye.map(|b| format!("bye {b}"));
                    [Some(pairs).filter(|p| !p.is_empty()), bye]
                        .into_iter()
                        .flatten()
                        .collect::<Vec<_>>()
                        .join(", ")
                };
                let (recorded_bye, engine_bye) = if self.recorded.bye == e.bye {
                    (None, None)
                } else {
                    (self.recorded.bye, e.bye)
                };
                write!(
                    f,
                    "round {}: the pairing differs from the Dutch engine's; recorded only: {}; engine only: {}",
                    self.round,
                    side(only(&rec, &eng), recorded_bye),
                    side(only(&eng, &rec), engine_bye),
                )
            }
            Err(err) => write!(
                f,
                "round {}: recorded {}, but the engine cannot pair it: {err}",
                self.round,
                show(&self.recorded)
            ),
        }
    }
}

/// The pairing recorded for `round`: `(white, black)` of every game or forfeit whose colours
/// are known, sorted, and the pairing-allocated bye.
pub fn recorded_pairing(t: &Tournament, round: u32) -> Pairing {
    let mut boards = Vec::new();
    let mut bye = None;
    for p in &t.players {
        match p.entry(round) {
            Some(RoundEntry::Game {
                opponent,
                colour: Colour::White,
                ..
            })
            | Some(RoundEntry::Forfeit {
                opponent,
                colour: Some(Colour::White),
                ..
            }) => boards.push((p.id, *opponent)),
            Some(RoundEntry::Forfeit {
                opponent,
                colour: None,
                ..
            }) if p.id < *opponent => boards.push((p.id, *opponent)),
            Some(RoundEntry::PairingBye) => bye = Some(p.id),
            _ => {}
        }
    }
    boards.sort();
    Pairing { boards, bye }
}

/// The forfeits of `round` recorded without colours, as [`recorded_pairing`] lists them (the
/// lower starting rank first).
fn colourless_forfeits(t: &Tournament, round: u32) -> Vec<(StartRank, StartRank)> {
    t.players
        .iter()
        .filter_map(|p| match p.entry(round) {
            Some(RoundEntry::Forfeit {
                opponent,
                colour: None,
                ..
            }) if p.id < *opponent => Some((p.id, *opponent)),
            _ => None,
        })
        .collect()
}

/// Re-pairs every round of `t` from the file's own history before it (whatever the rounds
/// before were, even if they broke an absolute criterion) and reports every round whose
/// recorded pairing (pairs, colours, bye) is not the engine's, as bbpPairings' `-c` does.
/// Players not paired in a round (no entry, a bye, an absence) are absent from its re-pairing.
pub fn recheck(t: &Tournament, options: &DutchOptions) -> Vec<RoundMismatch> {
    let t = &*options.apply(t);
    (1..=t.rounds_paired())
        .filter_map(|round| {
            let recorded = recorded_pairing(t, round);
            // A forfeit recorded without colours has no colour to compare (bbpPairings `-c`):
            // the engine's pair of the same two players matches it either way round.
            let colourless = colourless_forfeits(t, round);
            let engine = pair_round(t, round).map(|mut p| {
                for pair in &mut p.boards {
                    if colourless.contains(&(pair.1, pair.0)) {
                        *pair = (pair.1, pair.0);
                    }
                }
                p.boards.sort();
                p
            });
            (engine.as_ref() != Ok(&recorded)).then_some(RoundMismatch {
                round,
                recorded,
                engine,
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The committed bbpPairings tournaments (`tests/data/bbp`), every round paired with the
    /// fewest score slots a bracket can have (three: moved-down players, residents, the next
    /// scoregroup) and with two: the pairing must be the generator's either way, whether the
    /// slots sufficed or the round was paired again with a slot for every scoregroup (both
    /// happen, and are counted).
    #[test]
    fn score_slots_do_not_change_a_pairing() {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/bbp");
        let mut files: Vec<_> = std::fs::read_dir(&dir)
            .expect("the reference tournaments")
            .map(|e| e.expect("directory entry").path())
            .filter(|p| p.extension().is_some_and(|x| x == "trf"))
            .collect();
        files.sort();
        let (mut narrow, mut widened) = (0, 0);
        for path in &files {
            let text = std::fs::read_to_string(path).expect("readable TRF");
            let t = crate::trf::parse(&text).expect("a valid TRF");
            for round in 1..=t.rounds_paired() {
                let recorded = recorded_pairing(&t, round);
                let mut expected = recorded.boards.clone();
                expected.sort_unstable();
                for slots in [2, 3] {
                    let (p, wide) = pair_round_slots(&t, round, Some(slots)).expect("paired");
                    let mut ours = p.boards.clone();
                    ours.sort_unstable();
                    assert_eq!(
                        (ours, p.bye),
                        (expected.clone(), recorded.bye),
                        "{} round {round} with {slots} slots (widened: {wide})",
                        path.display()
                    );
                    if wide {
                        widened += 1;
                    } else {
                        narrow += 1;
                    }
                }
            }
        }
        eprintln!("{narrow} rounds paired in their slots, {widened} widened");
        assert!(
            narrow > 100 && widened > 100,
            "{narrow} narrow, {widened} widened"
        );
    }
}
