//! The points column of the `001` lines (columns 81–84) against the results: a file scored
//! under another point system than it declares, or edited by hand, would otherwise be paired
//! on scores nobody wrote. bbpPairings refuses such a file; so does this reader, naming the
//! players and a point system that would explain every column.

use std::fmt;

use crate::tournament::{PointSystem, RoundEntry, Score, StartRank, Tournament};

/// One player whose points column is not the score of the results.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PointsMismatch {
    pub player: StartRank,
    /// The points column.
    pub file: Score,
    /// The score of the results under the file's point system.
    pub results: Score,
}

impl fmt::Display for PointsMismatch {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "player {} has {} in the file, {} from the results",
            self.player, self.file, self.results
        )
    }
}

/// A point system as the body of a TRF-2026 `162` line (`W 1.0 D 0.5 L 0.0 A 0.0 P 1.0`;
/// a forfeit loss worth other than an absence adds bbpPairings' `BBF`).
pub fn system_text(ps: &PointSystem) -> String {
    let mut s = format!(
        "W {} D {} L {} A {} P {}",
        Score(ps.win),
        Score(ps.draw),
        Score(ps.loss),
        Score(ps.zero_bye),
        Score(ps.pab)
    );
    if ps.forfeit_loss != ps.zero_bye {
        s.push_str(&format!(" (BBF {})", Score(ps.forfeit_loss)));
    }
    s
}

/// The scores a player's points column may hold: the score of every round in the file, or of
/// the rounds before a bye pre-entered for the round to pair (bbpPairings accepts both), or of
/// the rounds before an unfinished round; each also with the pairing acceleration of the next
/// round added (as bbpPairings accepts).
fn accepted(t: &Tournament, index: usize, paired: u32, unfinished: Option<u32>) -> [u32; 6] {
    let p = &t.players[index];
    let ps = &t.points;
    // One pass over the entries: the sums of the first `played` and `before` rounds and of all.
    let played_rounds = paired as usize;
    let before_rounds = unfinished.map_or(played_rounds, |r| r as usize - 1);
    let (mut all, mut played, mut before) = (0, 0, 0);
    for (i, e) in p.entries.iter().enumerate() {
        let points = e.points(ps);
        all += points;
        if i < played_rounds {
            played += points;
        }
        if i < before_rounds {
            before += points;
        }
    }
    let accel = p.accelerations.get(paired as usize).copied().unwrap_or(0);
    [
        all,
        played,
        before,
        all + accel,
        played + accel,
        before + accel,
    ]
}

/// The players whose points column (`columns[i]`, tenths; `None`: blank) is none of the
/// accepted scores under `t`'s point system.
pub fn mismatches(
    t: &Tournament,
    columns: &[Option<u32>],
    unfinished: Option<u32>,
) -> Vec<PointsMismatch> {
    // Once for the whole field, not once a player.
    let paired = t.rounds_paired();
    columns
        .iter()
        .enumerate()
        .filter_map(|(i, &column)| {
            let file = column?;
            let ok = accepted(t, i, paired, unfinished);
            (!ok.contains(&file)).then(|| PointsMismatch {
                player: t.players[i].id,
                file: Score(file),
                results: Score(ok[0]),
            })
        })
        .collect()
}

/// A point system close to `t`'s under which every points column agrees with the results, if
/// one of the usual ones does (win 1, 2 or 3; a draw, a loss and the byes worth what clubs
/// give them).
pub fn explaining_system(
    t: &Tournament,
    columns: &[Option<u32>],
    unfinished: Option<u32>,
) -> Option<PointSystem> {
    let mut candidates = Vec::new();
    for win in [10, 20, 30] {
        for draw in [0, 5, 10, 15, 20] {
            for loss in [0, 5, 10] {
                if !(loss < draw && draw < win) {
                    continue;
                }
                for pab in [win, draw, loss] {
                    for absent in [0, loss] {
                        candidates.push(PointSystem {
                            win,
                            draw,
                            loss,
                            forfeit_loss: absent,
                            zero_bye: absent,
                            pab,
                        });
                    }
                }
            }
        }
    }
    // Closest to the file's own first; the PAB, which only byes pin down, a win's points
    // unless they say otherwise.
    let own = t.points;
    let distance = |c: &PointSystem| {
        let differing = [
            c.win != own.win,
            c.draw != own.draw,
            c.loss != own.loss,
            c.zero_bye != own.zero_bye,
            c.forfeit_loss != own.forfeit_loss,
        ]
        .iter()
        .filter(|&&d| d)
        .count();
        (differing, c.pab != c.win)
    };
    candidates.sort_by_key(distance);
    candidates.dedup();
    let mut scored = t.clone();
    candidates.into_iter().filter(|c| *c != own).find(|c| {
        scored.points = *c;
        mismatches(&scored, columns, unfinished).is_empty()
    })
}

/// The unpaired rounds (no entry, or `Z`) of the players in `wrong` when counting each as a
/// half-point bye makes every one of their columns agree (some programs write a requested
/// half-point bye so): `(player, round)` of each; `None` when that does not explain them all.
pub fn blank_half_point_byes(
    t: &Tournament,
    wrong: &[PointsMismatch],
    unfinished: Option<u32>,
) -> Option<Vec<(StartRank, u32)>> {
    if wrong.is_empty() {
        return None;
    }
    let mut rounds = Vec::new();
    for m in wrong {
        let player = t.player(m.player)?;
        let last = unfinished.map_or(player.entries.len() as u32, |u| u - 1);
        let unpaired: Vec<u32> = (1..=last)
            .filter(|r| {
                matches!(
                    player.entry(*r),
                    Some(RoundEntry::NotPaired | RoundEntry::ZeroPointBye)
                )
            })
            .collect();
        let per_round = t.points.draw.checked_sub(t.points.zero_bye)?;
        let gained = per_round.checked_mul(unpaired.len() as u32)?;
        if unpaired.is_empty() || m.file.0 != m.results.0 + gained {
            return None;
        }
        rounds.extend(unpaired.into_iter().map(|r| (m.player, r)));
    }
    Some(rounds)
}
