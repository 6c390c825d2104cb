//! What every tie-break reads, computed once per standings: each round as the tie-breaks see
//! it, final and adjusted scores (article 16), the ratings that count.

use super::crosstable::{Crosstable, RoundEntry, Unplayed, opponent_of};
use super::rules::{Options, Unrated};
use crate::tournament::{Colour, PointSystem, StartRank as PlayerNo};

/// One round of one participant, as the tie-breaks see it.
#[derive(Debug, Clone, Copy)]
pub(super) struct Round {
    /// Tenths under the crosstable's point system.
    pub(super) points: u64,
    /// The paired opponent's index (a game or a forfeit).
    pub(super) opponent: Option<usize>,
    /// A game over the board.
    pub(super) game: bool,
    /// Met in the pairing: a game or the PAB (the tie-break server's "played").
    pub(super) paired: bool,
    pub(super) vur: bool,
    pub(super) black: bool,
    /// Rating points of a game, in halves.
    pub(super) rating_halves: u32,
}

/// Everything computed once per standings.
pub(super) struct Context<'a> {
    pub(super) table: &'a Crosstable,
    pub(super) options: Options,
    pub(super) rounds: Vec<Vec<Round>>,
    /// Final scores, tenths.
    pub(super) score: Vec<u64>,
    /// 16.3 adjusted scores, tenths.
    pub(super) adjusted: Vec<u64>,
    /// The same with the last round as Fore Buchholz sees it, and the own score it uses.
    pub(super) fore_adjusted: Vec<u64>,
    pub(super) fore_own: Vec<u64>,
    /// The rating each participant counts with (after [`Unrated`]); `None` also when dropped.
    pub(super) ratings: Vec<Option<u16>>,
    /// Whether rating-based tie-breaks have values (16 / [`Unrated::Drop`]).
    pub(super) ratings_valid: bool,
}

impl<'a> Context<'a> {
    pub(super) fn new(table: &'a Crosstable, options: &Options) -> Context<'a> {
        let ps = &table.points;
        let rounds: Vec<Vec<Round>> = table
            .players
            .iter()
            .map(|p| {
                p.rounds
                    .iter()
                    .map(|&e| {
                        let (game, black, rating_halves) = match e {
                            RoundEntry::Played {
                                colour, outcome, ..
                            } => (true, colour == Colour::Black, outcome.halves()),
                            RoundEntry::Unplayed(_) => (false, false, 0),
                        };
                        Round {
                            points: u64::from(e.tenths(ps)),
                            opponent: opponent_of(e).map(PlayerNo::index),
                            game,
                            paired: game || matches!(e, RoundEntry::Unplayed(Unplayed::PairingBye)),
                            vur: e.is_vur(),
                            black,
                            rating_halves,
                        }
                    })
                    .collect()
            })
            .collect();
        let draw = u64::from(ps.draw);
        let score: Vec<u64> = rounds
            .iter()
            .map(|r| r.iter().map(|x| x.points).sum())
            .collect();
        let last_round = rounds.first().map_or(0, Vec::len);
        let mut adjusted = Vec::with_capacity(rounds.len());
        let mut fore_adjusted = Vec::with_capacity(rounds.len());
        let mut fore_own = Vec::with_capacity(rounds.len());
        for (i, rs) in rounds.iter().enumerate() {
            // 16.2.5: rounds after the last available one, without an opponent, count as draws.
            let last_available = rs.iter().rposition(|r| !r.vur).map_or(0, |r| r + 1);
            let adjust = |last_available: usize| -> u64 {
                rs.iter()
                    .enumerate()
                    .map(|(r, x)| {
                        if r < last_available || x.opponent.is_some() {
                            x.points
                        } else {
                            draw
                        }
                    })
                    .sum()
            };
            adjusted.push(adjust(last_available));
            // Fore Buchholz: a participant met in the pairing of the last round has no trailing
            // VURs, and a last-round game or forfeit counts a draw.
            let last_met = rs
                .iter()
                .rposition(|r| r.paired || r.opponent.is_some())
                .map_or(0, |r| r + 1);
            if last_round > 0 && last_met == last_round {
                let last = rs[last_round - 1];
                let to_draw = |v: u64| {
                    if last.opponent.is_some() {
                        v - last.points + draw
                    } else {
                        v
                    }
                };
                fore_adjusted.push(to_draw(adjust(last_round)));
                fore_own.push(to_draw(score[i]));
            } else {
                fore_adjusted.push(adjusted[i]);
                fore_own.push(score[i]);
            }
        }
        let all_rated = table.players.iter().all(|p| p.rating.is_some());
        let (ratings, ratings_valid) = match options.unrated {
            Unrated::Drop => (table.players.iter().map(|p| p.rating).collect(), all_rated),
            Unrated::Rating(r) => (
                table
                    .players
                    .iter()
                    .map(|p| Some(p.rating.unwrap_or(r)))
                    .collect(),
                true,
            ),
            Unrated::Ignore => (table.players.iter().map(|p| p.rating).collect(), true),
        };
        Context {
            table,
            options: *options,
            rounds,
            score,
            adjusted,
            fore_adjusted,
            fore_own,
            ratings,
            ratings_valid,
        }
    }

    pub(super) fn n(&self) -> usize {
        self.rounds.len()
    }

    pub(super) fn ps(&self) -> &PointSystem {
        &self.table.points
    }

    /// Opponents met over the board, once per game.
    pub(super) fn game_opponents(&self, i: usize) -> impl Iterator<Item = usize> + '_ {
        self.rounds[i]
            .iter()
            .filter(|r| r.game)
            .filter_map(|r| r.opponent)
    }
}
