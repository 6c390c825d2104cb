//! Checking a file's rounds: each recorded pairing against the one the engine makes from the
//! rounds before it (bbpPairings' `-c`).

use crate::tournament::{Colour, RoundEntry, StartRank, Tournament};

use super::engine::pair_round;
use super::round::{DutchOptions, Pairing, PairingError};

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
