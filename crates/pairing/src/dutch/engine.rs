//! Pairing a round: from the tournament to the players, the weights' layout and the bracket
//! procedure at the width that layout needs.

use crate::check::Violation;
use crate::tournament::{RoundEntry, Tournament};

use super::brackets;
use super::entrants::History;
use super::round::{DutchOptions, MEMORY_LIMIT_MIB, Pairing, PairingError};
use super::weights::{Ctx, Run};

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
pub(super) fn pair_round_slots(
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

impl Ctx<'_> {
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
