//! The players to pair as the engine reads them: every past round, the colours and floats it
//! leaves, and the scores the pairing order sorts by.

use crate::tournament::{Colour, RoundEntry, Tournament};

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
pub(super) enum Float {
    Down,
    Up,
    None,
}

/// One player to be paired.
#[derive(Clone, Debug)]
pub(super) struct Entrant {
    pub(super) idx: usize,
    pub(super) rank: usize,
    pub(super) score: u32,
    pub(super) plain_score: u32,
    pub(super) pref: Option<Colour>,
    pub(super) repeated: Option<Colour>,
    pub(super) imbalance: u32,
    pub(super) strong: bool,
    pub(super) played_games: u32,
    pub(super) eligible: bool,
    pub(super) float1: Float,
    pub(super) float2: Float,
    pub(super) opponents: Vec<usize>,
    pub(super) history: Vec<Option<Colour>>,
}

impl Entrant {
    pub(super) fn absolute_imbalance(&self) -> bool {
        self.imbalance > 1
    }
    pub(super) fn absolute(&self) -> bool {
        self.absolute_imbalance() || self.repeated.is_some()
    }
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

/// Every player's past rounds as the engine reads them, and the scores they make.
pub(super) struct History<'t> {
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
    pub(super) fn new(t: &'t Tournament, played: usize) -> Self {
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
    pub(super) fn entrants(&self, round: u32) -> Vec<Entrant> {
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
