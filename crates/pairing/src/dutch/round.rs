//! What a round's pairing is: the engine's options, the pairing and why a round cannot be paired.

use thiserror::Error;

use crate::check::Violation;
use crate::tournament::{PointSystem, StartRank, Tournament};

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
    pub(super) fn apply<'t>(&self, t: &'t Tournament) -> std::borrow::Cow<'t, Tournament> {
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
