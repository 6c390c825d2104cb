//! A checker of the absolute pairing criteria (FIDE C.04.3 C1–C3) over every paired round.
//!
//! What counts (decisions from C.04.1 and C.04.2, 2026 edition):
//! - C1: a pairing (played or forfeited) between two players who had already *played* each other.
//!   A forfeited game is not a played game, so two players whose only pairing was forfeited may
//!   be paired again (C.04.2 3.5).
//! - C2: a pairing-allocated bye to a player who already had one, or who already scored a win's
//!   points in one round without playing (full-point bye, forfeit win; not a half-point bye).
//! - C3: a pairing of two non-topscorers with the same absolute colour preference before the
//!   round (topscorers exist only in the final round).
//!
//! It also reports records that do not agree with each other (each side of a pairing must name
//! the other with the opposite colour and result) and rounds with more than one PAB.

use crate::history::{PlayerState, Strength, Walk, compatible, states_before};
use crate::tournament::{Colour, RoundEntry, StartRank, Tournament};

/// A broken absolute criterion or an inconsistent record, with its round and players.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum Violation {
    #[error("round {round}: {a} and {b} are paired although they have already played (C1)")]
    Rematch {
        round: u32,
        a: StartRank,
        b: StartRank,
    },
    #[error("round {round}: {player} gets the pairing-allocated bye but is not eligible (C2)")]
    ByeNotAllowed { round: u32, player: StartRank },
    #[error("round {round}: {a} and {b} both have an absolute preference for {colour:?} (C3)")]
    ColourClash {
        round: u32,
        a: StartRank,
        b: StartRank,
        colour: Colour,
    },
    #[error("round {round}: several pairing-allocated byes: {players:?}")]
    SeveralByes { round: u32, players: Vec<StartRank> },
    #[error("round {round}: {player}'s record names {opponent}, whose record does not agree")]
    Inconsistent {
        round: u32,
        player: StartRank,
        opponent: StartRank,
    },
}

impl Violation {
    /// The round it is in.
    pub fn round(&self) -> u32 {
        match self {
            Violation::Rematch { round, .. }
            | Violation::ByeNotAllowed { round, .. }
            | Violation::ColourClash { round, .. }
            | Violation::SeveralByes { round, .. }
            | Violation::Inconsistent { round, .. } => *round,
        }
    }
}

/// Checks every round that has pairings; an empty list means no violation.
pub fn check(t: &Tournament) -> Vec<Violation> {
    let mut out = Vec::new();
    // The states walk from round to round: linear in the rounds, not quadratic.
    let mut walk = Walk::new(t);
    for round in 1..=t.rounds_paired() {
        check_with(t, round, walk.states(), &mut out);
        walk.advance();
    }
    out
}

/// Whether `b`'s record in `round` mirrors `a`'s.
fn mirrors(a: &RoundEntry, b: Option<&RoundEntry>, a_id: StartRank) -> bool {
    match (a, b) {
        (
            RoundEntry::Game { colour, result, .. },
            Some(RoundEntry::Game {
                opponent,
                colour: c2,
                result: r2,
                ..
            }),
        ) => *opponent == a_id && *c2 == colour.opposite() && *r2 == result.reversed(),
        (
            RoundEntry::Forfeit { colour, .. },
            Some(RoundEntry::Forfeit {
                opponent,
                colour: c2,
                ..
            }),
        ) => *opponent == a_id && colour.map(Colour::opposite) == *c2,
        _ => false,
    }
}

/// Checks one round (1-based), appending violations to `out`.
pub fn check_round(t: &Tournament, round: u32, out: &mut Vec<Violation>) {
    check_with(t, round, &states_before(t, round), out);
}

/// Checks `round` with every player's state before it.
fn check_with(t: &Tournament, round: u32, states: &[PlayerState], out: &mut Vec<Violation>) {
    let mut byes = Vec::new();
    for p in &t.players {
        let Some(e) = p.entry(round) else { continue };
        match e {
            RoundEntry::PairingBye => {
                byes.push(p.id);
                if states[p.id.0 as usize - 1].pab_blocked {
                    out.push(Violation::ByeNotAllowed {
                        round,
                        player: p.id,
                    });
                }
            }
            RoundEntry::Game { opponent, .. } | RoundEntry::Forfeit { opponent, .. } => {
                let other = t.player(*opponent);
                if !mirrors(e, other.and_then(|o| o.entry(round)), p.id) {
                    out.push(Violation::Inconsistent {
                        round,
                        player: p.id,
                        opponent: *opponent,
                    });
                    continue;
                }
                if p.id > *opponent {
                    continue;
                }
                let (a, b) = (
                    &states[p.id.0 as usize - 1],
                    &states[opponent.0 as usize - 1],
                );
                if a.has_played(b.id) {
                    out.push(Violation::Rematch {
                        round,
                        a: a.id,
                        b: b.id,
                    });
                } else if !compatible(a, b) {
                    let pa = a.preference();
                    debug_assert_eq!(pa.strength, Strength::Absolute);
                    out.push(Violation::ColourClash {
                        round,
                        a: a.id,
                        b: b.id,
                        colour: pa.colour.unwrap_or(Colour::White),
                    });
                }
            }
            _ => {}
        }
    }
    if byes.len() > 1 {
        out.push(Violation::SeveralByes {
            round,
            players: byes,
        });
    }
}
