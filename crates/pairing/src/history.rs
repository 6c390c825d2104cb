//! Each player's history as the pairing rules see it before a given round.
//!
//! Colour history keeps played games only, so unplayed rounds are as if moved to the front
//! (C.04.2 3.4). Floats follow C.04.3 1.4 of the 2026 edition.

use crate::tournament::{Colour, RoundEntry, Score, StartRank, Tournament};

/// How strongly a player wants a colour (C.04.3 1.7).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Strength {
    /// No game played yet.
    None,
    /// Colour difference 0: alternate.
    Mild,
    /// Colour difference ±1.
    Strong,
    /// Colour difference beyond ±1, or the same colour in the two latest played games.
    Absolute,
}

/// A colour preference: `colour` is `None` exactly when `strength` is `Strength::None`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Preference {
    pub colour: Option<Colour>,
    pub strength: Strength,
}

/// The float a player received in one round (C.04.3 1.4).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Float {
    None,
    Down,
    Up,
}

/// One player's state before the round being paired or checked.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PlayerState {
    pub id: StartRank,
    /// Score before the round.
    pub score: Score,
    /// Colours of the played games, oldest first.
    pub colours: Vec<Colour>,
    /// Opponents of played games, sorted.
    pub played: Vec<StartRank>,
    /// Already had a PAB or a win's points without playing (C.04.1 art. 4).
    pub pab_blocked: bool,
    /// Rounds before this one without a played game.
    pub unplayed: u32,
    /// Float received in each earlier round (index 0 is round 1).
    pub floats: Vec<Float>,
    /// A topscorer: over 50% of the maximum score when pairing the final round (C.04.3 1.8).
    pub topscorer: bool,
    /// Games with White minus games with Black, kept as `colours` grows.
    difference: i32,
}

impl PlayerState {
    /// Games with White minus games with Black.
    pub fn colour_difference(&self) -> i32 {
        self.difference
    }

    /// The colour preference (C.04.3 1.7).
    pub fn preference(&self) -> Preference {
        let cd = self.colour_difference();
        let last = self.colours.last().copied();
        let last_two_same = self.colours.len() >= 2
            && self.colours[self.colours.len() - 1] == self.colours[self.colours.len() - 2];
        let pref = |colour, strength| Preference {
            colour: Some(colour),
            strength,
        };
        match last {
            None => Preference {
                colour: None,
                strength: Strength::None,
            },
            Some(_) if cd > 1 => pref(Colour::Black, Strength::Absolute),
            Some(_) if cd < -1 => pref(Colour::White, Strength::Absolute),
            Some(l) if last_two_same => pref(l.opposite(), Strength::Absolute),
            Some(_) if cd == 1 => pref(Colour::Black, Strength::Strong),
            Some(_) if cd == -1 => pref(Colour::White, Strength::Strong),
            Some(l) => pref(l.opposite(), Strength::Mild),
        }
    }

    /// Whether this player has played `other`.
    pub fn has_played(&self, other: StartRank) -> bool {
        self.played.binary_search(&other).is_ok()
    }

    /// The float received `back` rounds before the current one (1 = the previous round).
    pub fn float_back(&self, back: usize) -> Float {
        self.floats
            .len()
            .checked_sub(back)
            .map_or(Float::None, |i| self.floats[i])
    }
}

/// Whether two players may meet under the absolute criteria C1 and C3.
pub fn compatible(a: &PlayerState, b: &PlayerState) -> bool {
    if a.id == b.id || a.has_played(b.id) {
        return false;
    }
    if a.topscorer || b.topscorer {
        return true;
    }
    let (pa, pb) = (a.preference(), b.preference());
    !(pa.strength == Strength::Absolute
        && pb.strength == Strength::Absolute
        && pa.colour == pb.colour)
}

/// Every player's state before `round` (1-based), indexed by starting rank − 1.
pub fn states_before(t: &Tournament, round: u32) -> Vec<PlayerState> {
    let mut walk = Walk::new(t);
    while walk.round < round.max(1) {
        walk.advance();
    }
    walk.states
}

/// Every player's state round after round: [`Walk::advance`] adds one round at a cost linear in
/// the players, so a check of every round of a file is linear in its rounds.
#[derive(Debug)]
pub struct Walk<'a> {
    t: &'a Tournament,
    /// The round the states are before (1-based).
    round: u32,
    states: Vec<PlayerState>,
}

impl<'a> Walk<'a> {
    /// The states before round 1.
    #[must_use]
    pub fn new(t: &'a Tournament) -> Walk<'a> {
        let states = t
            .players
            .iter()
            .map(|p| PlayerState {
                id: p.id,
                score: Score(0),
                colours: Vec::new(),
                played: Vec::new(),
                pab_blocked: false,
                unplayed: 0,
                floats: Vec::new(),
                topscorer: false,
                difference: 0,
            })
            .collect();
        let mut walk = Walk {
            t,
            round: 1,
            states,
        };
        walk.mark_topscorers();
        walk
    }

    /// The round the states are before.
    #[must_use]
    pub fn round(&self) -> u32 {
        self.round
    }

    /// Every player's state before [`Walk::round`], indexed by starting rank − 1.
    #[must_use]
    pub fn states(&self) -> &[PlayerState] {
        &self.states
    }

    /// Adds the round the states are before; they are then before the next one.
    pub fn advance(&mut self) {
        let r = self.round as usize - 1;
        let t = self.t;
        let entry = |i: usize| {
            t.players[i]
                .entries
                .get(r)
                .copied()
                .unwrap_or(RoundEntry::NotPaired)
        };
        // Floats compare the scores before this round: all of them first, then the scores.
        let floats: Vec<Float> = (0..self.states.len())
            .map(|i| match entry(i) {
                RoundEntry::Game { opponent, .. } => {
                    let mine = self.states[i].score.0;
                    let theirs = self
                        .states
                        .get(opponent.0 as usize - 1)
                        .map_or(mine, |s| s.score.0);
                    match mine.cmp(&theirs) {
                        std::cmp::Ordering::Greater => Float::Down,
                        std::cmp::Ordering::Less => Float::Up,
                        std::cmp::Ordering::Equal => Float::None,
                    }
                }
                other if other.unplayed_downfloat(&t.points) => Float::Down,
                _ => Float::None,
            })
            .collect();
        for (i, (state, float)) in self.states.iter_mut().zip(floats).enumerate() {
            let e = entry(i);
            if let RoundEntry::Game {
                opponent, colour, ..
            } = e
            {
                state.colours.push(colour);
                state.difference += if colour == Colour::White { 1 } else { -1 };
                if let Err(at) = state.played.binary_search(&opponent) {
                    state.played.insert(at, opponent);
                }
            }
            if e.is_unplayed() {
                state.unplayed += 1;
            }
            state.pab_blocked |= e.blocks_pab(&t.points);
            state.floats.push(float);
            // A round past the end of a player's record scores nothing (not a zero-point bye's
            // points, which a point system may set).
            let points = t.players[i]
                .entries
                .get(r)
                .map_or(0, |e| e.points(&t.points));
            state.score = Score(state.score.0 + points);
        }
        self.round += 1;
        self.mark_topscorers();
    }

    fn mark_topscorers(&mut self) {
        let final_round = self.round == self.t.total_rounds;
        let above = self.t.points.topscorer_above(self.round - 1);
        for state in &mut self.states {
            state.topscorer = final_round && state.score.0 > above;
        }
    }
}
