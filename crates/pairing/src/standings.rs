//! Standings of a [`Tournament`]: its rounds turned into the tie-break crosstable.

use crate::tiebreak::{
    self, Crosstable, CrosstableError, Options, Outcome, PlayerRecord, Standing, TieBreak, Unplayed,
};
use crate::tournament::{GameResult, RoundEntry, Tournament};

/// The crosstable of the first `rounds` rounds of `t` (rounds a player has no entry for, such as
/// the rounds before a late entry or after a withdrawal, count as zero-point byes), scored under
/// the tournament's own [`crate::PointSystem`]. The PAB stays allocated (never voluntary)
/// whatever it scores; a rating of 0 is unrated.
pub fn crosstable(t: &Tournament, rounds: u32) -> Result<Crosstable, CrosstableError> {
    let records = t
        .players
        .iter()
        .map(|player| PlayerRecord {
            rating: u16::try_from(player.rating).ok().filter(|r| *r > 0),
            rounds: (1..=rounds)
                .map(|round| entry(player.entry(round)))
                .collect(),
        })
        .collect();
    Crosstable::with_points(records, t.points)
}

fn entry(entry: Option<&RoundEntry>) -> tiebreak::RoundEntry {
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
        Some(RoundEntry::PairingBye) => E::Unplayed(Unplayed::PairingBye),
        Some(RoundEntry::FullPointBye) => E::Unplayed(Unplayed::FullPointBye),
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
    options: &Options,
) -> Result<Vec<Standing>, CrosstableError> {
    Ok(tiebreak::standings(&crosstable(t, rounds)?, order, options))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tiebreak::Cut;
    use crate::tournament::{Colour, StartRank};

    #[test]
    fn a_small_swiss_ranks_by_points_then_buchholz() {
        let mut t = Tournament::new(2);
        for (name, rating) in [("a", 2000), ("b", 1900), ("c", 1800), ("d", 1700)] {
            t.add_player(name, rating);
        }
        let p = |n| StartRank(n);
        t.record_game(1, p(1), p(3), GameResult::Win);
        t.record_game(1, p(4), p(2), GameResult::Draw);
        t.record_game(2, p(2), p(1), GameResult::Loss);
        t.record_game(2, p(3), p(4), GameResult::Win);
        let table = standings(
            &t,
            2,
            &[TieBreak::Buchholz(Default::default())],
            &Options::default(),
        )
        .expect("consistent");
        let order: Vec<u32> = table.iter().map(|s| s.player.0).collect();
        // a: 2 points; c: 1 (BH 2 + 0.5 = a 2 + d 0.5); b and d 0.5 each.
        assert_eq!(order[..2], [1, 3]);
        assert_eq!(table[0].points.to_string(), "2");
        assert_eq!(table[1].points.to_string(), "1");
        assert_eq!(table[2].points.to_string(), "0.5");
    }

    #[test]
    fn the_tournament_s_points_rank_and_its_pab_stays_allocated() {
        // 3-1-0 and a PAB worth a draw: R1 1-2 1-0, 3-4 ½, 5 PAB; R2 3-1 1-0, 5-2 1-0, 4 PAB.
        let mut t = Tournament::new(2);
        t.points = crate::PointSystem {
            win: 30,
            draw: 10,
            pab: 10,
            ..crate::PointSystem::default()
        };
        for name in ["a", "b", "c", "d", "e"] {
            t.add_player(name, 1500);
        }
        let p = StartRank;
        t.record_game(1, p(1), p(2), GameResult::Win);
        t.record_game(1, p(3), p(4), GameResult::Draw);
        t.set_entry(p(5), 1, RoundEntry::PairingBye);
        t.record_game(2, p(3), p(1), GameResult::Win);
        t.record_game(2, p(5), p(2), GameResult::Win);
        t.set_entry(p(4), 2, RoundEntry::PairingBye);
        let order = [TieBreak::Buchholz(Cut::C1)];
        let options = Options {
            rules: crate::tiebreak::Rules::Fide2024,
            ..Options::default()
        };
        let table = standings(&t, 2, &order, &options).expect("consistent");
        let shown: Vec<String> = table
            .iter()
            .map(|s| format!("{} {} {}", s.player, s.points, s.values[0]))
            .collect();
        // Points in 3-1-0 (1-½-0 would put 1 and 4 level on 1). Player 5's PAB is allocated, not
        // voluntary: BH-C1 cuts the least significant value (2's 0), not the PAB's dummy (own
        // score 4), so 5 (BH-C1 4) ranks above 3 (BH 2 + 3, cut 2: 3).
        assert_eq!(shown, ["5 4 4", "3 4 3", "1 3 4", "4 2 4", "2 0 4"]);
    }

    #[test]
    fn inconsistent_records_are_refused() {
        let mut t = Tournament::new(1);
        t.add_player("a", 0);
        t.add_player("b", 0);
        t.set_entry(
            StartRank(1),
            1,
            RoundEntry::Game {
                opponent: StartRank(2),
                colour: Colour::White,
                result: GameResult::Win,
                rated: true,
            },
        );
        assert!(crosstable(&t, 1).is_err());
    }
}
