//! Each player's history as the pairing rules see it before a given round.
//!
//! Colour history keeps played games only, so unplayed rounds are as if moved to the front
//! (C.04.2 3.4). Floats follow C.04.3 1.4 of the 2026 edition.

use crate::tournament::{Colour, PlayerId, RoundEntry, Score, Tournament};

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
    pub id: PlayerId,
    /// Score before the round.
    pub score: Score,
    /// Colours of the played games, oldest first.
    pub colours: Vec<Colour>,
    /// Opponents of played games, sorted.
    pub played: Vec<PlayerId>,
    /// Already had a PAB or a win's points without playing (C.04.1 art. 4).
    pub pab_blocked: bool,
    /// Rounds before this one without a played game.
    pub unplayed: u32,
    /// Float received in each earlier round (index 0 is round 1).
    pub floats: Vec<Float>,
    /// A topscorer: over 50% of the maximum score when pairing the final round (C.04.3 1.8).
    pub topscorer: bool,
}

impl PlayerState {
    /// Games with White minus games with Black.
    pub fn colour_difference(&self) -> i32 {
        self.colours
            .iter()
            .map(|c| if *c == Colour::White { 1 } else { -1 })
            .sum()
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
    pub fn has_played(&self, other: PlayerId) -> bool {
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

/// Scores of every player before every round: `table[i][r]` is player `i + 1`'s score before
/// round `r + 1`, for `r` in `0..=rounds`.
fn score_table(t: &Tournament, rounds: u32) -> Vec<Vec<u32>> {
    t.players
        .iter()
        .map(|p| {
            let mut row = Vec::with_capacity(rounds as usize + 1);
            let mut s = 0;
            row.push(0);
            for r in 0..rounds as usize {
                s += p.entries.get(r).map_or(0, |e| e.points(&t.points));
                row.push(s);
            }
            row
        })
        .collect()
}

/// Every player's state before `round` (1-based), indexed by starting rank − 1.
pub fn states_before(t: &Tournament, round: u32) -> Vec<PlayerState> {
    let done = round.saturating_sub(1);
    let scores = score_table(t, done);
    let final_round = round == t.total_rounds;
    t.players
        .iter()
        .enumerate()
        .map(|(i, p)| {
            let mut colours = Vec::new();
            let mut played = Vec::new();
            let mut floats = Vec::with_capacity(done as usize);
            let mut pab_blocked = false;
            let mut unplayed = 0;
            for r in 0..done as usize {
                let e = p.entries.get(r).copied().unwrap_or(RoundEntry::NotPaired);
                let float = match e {
                    RoundEntry::Game {
                        opponent, colour, ..
                    } => {
                        colours.push(colour);
                        played.push(opponent);
                        let mine = scores[i][r];
                        let theirs = scores
                            .get(opponent.0 as usize - 1)
                            .map_or(mine, |row| row[r]);
                        if mine > theirs {
                            Float::Down
                        } else if mine < theirs {
                            Float::Up
                        } else {
                            Float::None
                        }
                    }
                    other if other.unplayed_downfloat(&t.points) => Float::Down,
                    _ => Float::None,
                };
                if e.is_unplayed() {
                    unplayed += 1;
                }
                pab_blocked |= e.blocks_pab(&t.points);
                floats.push(float);
            }
            played.sort();
            let score = scores[i][done as usize];
            PlayerState {
                id: p.id,
                score: Score(score),
                colours,
                played,
                pab_blocked,
                unplayed,
                floats,
                topscorer: final_round && score > t.points.topscorer_above(done),
            }
        })
        .collect()
}
