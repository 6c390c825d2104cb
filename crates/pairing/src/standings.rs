//! Standings of a [`Tournament`]: its rounds turned into the tie-break crosstable.

use crate::tiebreak::{
    self, Crosstable, CrosstableError, Outcome, PlayerRecord, Standing, TieBreak, Unplayed,
};
use crate::tournament::{GameResult, RoundEntry, Tournament};

/// The crosstable of the first `rounds` rounds of `t` (rounds a player has no entry for, such as
/// the rounds before a late entry or after a withdrawal, count as zero-point byes). Tie-breaks
/// count FIDE's 1 / ½ / 0 (C.07): a tournament's own [`crate::PointSystem`] applies to pairing;
/// its PAB counts here as a win, a half-point bye or a zero-point bye by its value.
pub fn crosstable(t: &Tournament, rounds: u32) -> Result<Crosstable, CrosstableError> {
    let records = t
        .players
        .iter()
        .map(|player| PlayerRecord {
            rating: u16::try_from(player.rating).ok().filter(|r| *r > 0),
            rounds: (1..=rounds)
                .map(|round| entry(t, player.entry(round)))
                .collect(),
        })
        .collect();
    Crosstable::new(records)
}

fn entry(t: &Tournament, entry: Option<&RoundEntry>) -> tiebreak::RoundEntry {
    use tiebreak::RoundEntry as E;
    match entry {
        Some(RoundEntry::Game {
            opponent,
            colour,
            result,
            ..
        }) => E::Played {
            opponent: *opponent,
            colour: *colour,
            outcome: match result {
                GameResult::Win => Outcome::Win,
                GameResult::Draw => Outcome::Draw,
                GameResult::Loss => Outcome::Loss,
            },
        },
        Some(RoundEntry::Forfeit { opponent, won, .. }) => {
            let opponent = *opponent;
            E::Unplayed(if *won {
                Unplayed::ForfeitWin { opponent }
            } else {
                Unplayed::ForfeitLoss { opponent }
            })
        }
        Some(RoundEntry::PairingBye) => E::Unplayed(match t.points.pab {
            0 => Unplayed::ZeroPointBye,
            p if p < t.points.win => Unplayed::HalfPointBye,
            _ => Unplayed::PairingBye,
        }),
        Some(RoundEntry::FullPointBye) => E::Unplayed(Unplayed::PairingBye),
        Some(RoundEntry::HalfPointBye) => E::Unplayed(Unplayed::HalfPointBye),
        Some(RoundEntry::ZeroPointBye | RoundEntry::NotPaired) | None => {
            E::Unplayed(Unplayed::ZeroPointBye)
        }
    }
}

/// The standings after the first `rounds` rounds, by points then by `order`.
pub fn standings(
    t: &Tournament,
    rounds: u32,
    order: &[TieBreak],
) -> Result<Vec<Standing>, CrosstableError> {
    Ok(tiebreak::standings(&crosstable(t, rounds)?, order))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tournament::{Colour, PlayerId};

    #[test]
    fn a_small_swiss_ranks_by_points_then_buchholz() {
        let mut t = Tournament::new(2);
        for (name, rating) in [("a", 2000), ("b", 1900), ("c", 1800), ("d", 1700)] {
            t.add_player(name, rating);
        }
        let p = |n| PlayerId(n);
        t.record_game(1, p(1), p(3), GameResult::Win);
        t.record_game(1, p(4), p(2), GameResult::Draw);
        t.record_game(2, p(2), p(1), GameResult::Loss);
        t.record_game(2, p(3), p(4), GameResult::Win);
        let table = standings(&t, 2, &[TieBreak::Buchholz]).expect("consistent");
        let order: Vec<u32> = table.iter().map(|s| s.player.0).collect();
        // a: 2 points; c: 1 (BH 2 + 0.5 = a 2 + d 0.5); b and d 0.5 each.
        assert_eq!(order[..2], [1, 3]);
        assert_eq!(table[0].points.to_string(), "2");
        assert_eq!(table[1].points.to_string(), "1");
        assert_eq!(table[2].points.to_string(), "0.5");
    }

    #[test]
    fn inconsistent_records_are_refused() {
        let mut t = Tournament::new(1);
        t.add_player("a", 0);
        t.add_player("b", 0);
        t.set_entry(
            PlayerId(1),
            1,
            RoundEntry::Game {
                opponent: PlayerId(2),
                colour: Colour::White,
                result: GameResult::Win,
                rated: true,
            },
        );
        assert!(crosstable(&t, 1).is_err());
    }
}
