//! Standings with FIDE tie-breaks (Handbook C.07): the 2024 text and the 2026 revision (in force
//! for events starting from 1 March 2026), chosen by [`Rules`].
//!
//! # What is implemented, and which article it follows
//! Article numbers are the 2024 text's; those of BPG to REP, FB, AOB, KS and APRO to APPO are
//! from memory of that text, not checked against it here. Definitions follow TieBreakServer.
//! | acronym | name | article |
//! |---|---|---|
//! | `DE` | direct encounter among the tied participants | 6 |
//! | `WIN` | rounds with a win's points, with or without playing | 7.1 |
//! | `WON` | games won over the board | 7.2 |
//! | `STD` | standard points (defined by the 2026 text): 1, ½ or 0 a round as its points are more than, equal to or less than a draw's | 7.7 of 2026, unchecked |
//! | `BPG` | games played with Black | 7.3 |
//! | `BWG` | games won with Black | 7.4 |
//! | `PS`, `PS-C1` | sum of progressive scores (running score after each round) | 7.5, 14.1 |
//! | `REP` (`GE`) | rounds one elected to play: games, PAB, full-point byes, forfeit wins | 7.6 |
//! | `BH`, `BH-C1`, `BH-C2`, `BH-M1`, `BH-M2` | Buchholz: the opponents' scores, cut/median | 8.1, 14 |
//! | `FB` (and cut forms) | Fore Buchholz: BH with the last round's games as draws | 8.2 |
//! | `AOB` | average of the opponents' Buchholz, to 0.01 | 8.3 |
//! | `SB`, `SB-C1` | Sonneborn-Berger: opponent's score × points scored against them | 9.1 |
//! | `KS` | Koya: points scored against opponents with at least half the maximum | 9.2 |
//! | `ARO`, `ARO-C1`, `ARO-M1` | average rating of opponents (rounded half up) | 10.1, 14 |
//! | `TPR` | performance: ARO + dp(p) | 10.2 |
//! | `APRO` | average of the opponents' TPR | 10.3 |
//! | `PTP` | perfect performance: lowest rating whose expected score reaches the score | 10.4 |
//! | `APPO` | average of the opponents' PTP | 10.5 |
//! | `VUR` | voluntary unplayed rounds (fewer rank higher) | 16.1.2 |
//! | `RTNG` | the participant's own rating | (final tie-break) |
//! | `TPN` | tournament pairing number (lower ranks higher) | (final tie-break) |
//!
//! Scores count in the crosstable's [`PointSystem`] (a `162` line, a 3-1-0 tournament): points,
//! BH, SB, PS, KS and DE use those points; TPR, PTP and APRO/APPO use rating points (1, ½, 0).
//! Values are exact ([`Points`] counts hundredths: every SB product of tenths). Team
//! tie-breaks are not implemented (there are no team events).
//!
//! # Unplayed rounds (article 16, Swiss tournaments)
//! An unplayed round is any round without a game over the board: pairing-allocated bye
//! (PAB), full-, half- and zero-point byes (also every round after a withdrawal, 16.1.1), forfeit
//! win, forfeit loss. A *voluntary unplayed round* (VUR, 16.1.2) is a half- or zero-point bye or
//! a forfeit loss; a PAB is allocated, never voluntary, whatever it scores.
//! - **As somebody's opponent** (16.3), a participant's score is *adjusted*: every unplayed
//!   round counts with the points awarded, except byes that are followed only by VURs
//!   (16.2.5), which count as draws. So a player who withdrew counts a draw for each round after
//!   their last available round.
//! - **For the participant's own BH and SB** (16.4), each of their unplayed rounds counts as a
//!   game against a dummy whose score is the participant's own score, with the result matching
//!   the points awarded. The 2026 revision caps that score: for a forfeit, at the scheduled
//!   opponent's adjusted score (16.4.1); for any other unplayed round, at a draw's points times
//!   the number of rounds (16.4.2).
//! - **Cut exception** (16.5): for a participant with VURs, the lowest VUR contribution is cut
//!   instead of the least significant one, unless that one is worth more (as in SB, where a
//!   VUR's product can be smaller than the lowest-scoring opponent's).
//!
//! # Unrated players ([`Unrated`])
//! Rating-based tie-breaks (ARO, TPR, PTP, APRO, APPO, RTNG) are dropped (every value `-`) when a
//! participant is unrated, unless the regulations say how they count: a rating given to every
//! unrated player, or (this project's earlier rule) counting rated opponents only.
//!
//! # Decisions where the text leaves room (each one as FIDE's tie-break server reads it)
//! - `DE` counts games played over the board, in the tournament's points, averaging repeated
//!   encounters. When not all tied participants met, a participant is ranked alone only when
//!   their score beats the best any other could still reach by winning every missing game, and
//!   so on down; DE is applied again inside every part still tied. The value is the position
//!   inside the tie group (1 = best, shared positions stay shared).
//! - `FB`: a participant paired in the last round (a game, a forfeit or the PAB) has no trailing
//!   VURs before it, and a last-round game or forfeit counts a draw; the last round's forfeits
//!   count as games against the scheduled opponent.
//! - `KS` counts every paired round (forfeits too) against an opponent whose final score is at
//!   least half of a win's points times the number of rounds.
//! - Every crosstable is treated as a Swiss (article 15, round robins, is not implemented).
//! - Players still tied after the whole list share their rank; they are listed by number.

mod buchholz;
mod context;
mod crosstable;
mod encounter;
mod kinds;
mod rating;
mod rules;
mod values;

use std::cmp::Ordering;

pub use crate::tournament::PointSystem;

/// A participant's 1-based starting number (the TRF starting rank): the tournament's
/// [`StartRank`](crate::StartRank), under the name the tie-break tables use.
pub use crate::tournament::StartRank as PlayerNo;

/// The colour a participant had in a game (the tournament's).
pub use crate::tournament::Colour;

pub use crosstable::{
    Crosstable, CrosstableError, MAX_PLAYERS, Outcome, PlayerRecord, Points, RoundEntry, Unplayed,
};
pub use encounter::direct_encounter;
pub use kinds::{Cut, Standing, TieBreak, TieBreakValue, UnknownTieBreak};
pub use rating::dp;
pub use rules::{
    Options, Rules, UnknownRules, UnknownUnrated, Unrated, date_from_unix_days, parse_date,
};

use context::Context;
use encounter::de_positions;

/// The standings: by points, then by each tie-break in `order`.
pub fn standings(table: &Crosstable, order: &[TieBreak], options: &Options) -> Vec<Standing> {
    let n = table.players.len();
    let ctx = Context::new(table, options);
    let mut values: Vec<Vec<TieBreakValue>> = vec![Vec::with_capacity(order.len()); n];
    for &tb in order {
        for (i, v) in ctx.values(tb).into_iter().enumerate() {
            values[i].push(v);
        }
    }

    let score = &ctx.score;
    let mut by_points: Vec<usize> = (0..n).collect();
    by_points.sort_by_key(|&i| (std::cmp::Reverse(score[i]), i));
    let mut groups = split(by_points, |a, b| score[a] == score[b]);

    for (k, &tb) in order.iter().enumerate() {
        let mut next = Vec::with_capacity(groups.len());
        for mut group in groups {
            if tb == TieBreak::DirectEncounter {
                for (&i, position) in group.iter().zip(de_positions(&ctx, &group)) {
                    values[i][k] = TieBreakValue::Position(position);
                }
            }
            group.sort_by(|&a, &b| values[a][k].rank_cmp(values[b][k]).then(a.cmp(&b)));
            next.extend(split(group, |a, b| {
                values[a][k].rank_cmp(values[b][k]) == Ordering::Equal
            }));
        }
        groups = next;
    }

    let mut result = Vec::with_capacity(n);
    for group in groups {
        let rank = u32::try_from(result.len() + 1).expect("at most MAX_PLAYERS");
        for i in group {
            result.push(Standing {
                rank,
                player: PlayerNo::of(i),
                points: Points::from_tenths(score[i]),
                values: std::mem::take(&mut values[i]),
            });
        }
    }
    result
}

/// Splits a sorted list into runs of equal elements.
fn split(sorted: Vec<usize>, same: impl Fn(usize, usize) -> bool) -> Vec<Vec<usize>> {
    let mut groups: Vec<Vec<usize>> = Vec::new();
    for i in sorted {
        match groups.last_mut() {
            Some(group) if group.last().is_some_and(|&j| same(j, i)) => group.push(i),
            _ => groups.push(vec![i]),
        }
    }
    groups
}

#[cfg(test)]
mod tests;
