//! Direct encounter (article 6) among tied participants, applied again inside every part still
//! tied.

use std::cmp::Ordering;

use super::context::Context;
use super::crosstable::Crosstable;
use super::rules::Options;
use crate::tournament::StartRank as PlayerNo;

/// An exact non-negative fraction, for DE averages over repeated encounters.
#[derive(Debug, Clone, Copy)]
struct Ratio {
    num: u64,
    den: u64,
}

impl Ratio {
    const ZERO: Ratio = Ratio { num: 0, den: 1 };

    fn add(self, other: Ratio) -> Ratio {
        let num = self.num * other.den + other.num * self.den;
        let den = self.den * other.den;
        let g = gcd(num, den);
        Ratio {
            num: num / g,
            den: den / g,
        }
    }

    fn cmp(self, other: Ratio) -> Ordering {
        (u128::from(self.num) * u128::from(other.den))
            .cmp(&(u128::from(other.num) * u128::from(self.den)))
    }
}

fn gcd(a: u64, b: u64) -> u64 {
    if b == 0 { a.max(1) } else { gcd(b, a % b) }
}

/// Article 6 applied to a tie group: each member's position inside the group (1 = best;
/// members still tied share a position), in the order of `tied`.
///
/// # Panics
/// If a player is not in the crosstable.
pub fn direct_encounter(table: &Crosstable, tied: &[PlayerNo]) -> Vec<u32> {
    let group: Vec<usize> = tied.iter().map(|p| p.index()).collect();
    de_positions(&Context::new(table, &Options::default()), &group)
}

/// DE positions (1-based, shared) of `group`'s members, aligned with `group`.
pub(super) fn de_positions(ctx: &Context<'_>, group: &[usize]) -> Vec<u32> {
    if group.len() < 2 {
        return vec![1; group.len()];
    }
    let positions = direct_encounter_once(ctx, group);
    if positions.iter().all(|&p| p == positions[0]) {
        return positions;
    }
    // Apply DE again inside every part that is still tied.
    let mut result = positions.clone();
    let mut seen = Vec::new();
    for &p in &positions {
        if seen.contains(&p) {
            continue;
        }
        seen.push(p);
        let members: Vec<usize> = (0..group.len()).filter(|&k| positions[k] == p).collect();
        if members.len() < 2 {
            continue;
        }
        let part: Vec<usize> = members.iter().map(|&k| group[k]).collect();
        for (&k, sub) in members.iter().zip(de_positions(ctx, &part)) {
            result[k] = p + sub - 1;
        }
    }
    result
}

/// One application of article 6 to `group`, in the tournament's points.
fn direct_encounter_once(ctx: &Context<'_>, group: &[usize]) -> Vec<u32> {
    let m = group.len();
    let win = u64::from(ctx.ps().win);
    let mut score = vec![Ratio::ZERO; m];
    let mut missing = vec![0u64; m];
    for (a, &i) in group.iter().enumerate() {
        for &j in group {
            if i == j {
                continue;
            }
            let (mut games, mut tenths) = (0u64, 0u64);
            for r in &ctx.rounds[i] {
                if r.game && r.opponent == Some(j) {
                    games += 1;
                    tenths += r.points;
                }
            }
            if games == 0 {
                missing[a] += 1;
            } else {
                // Average result: tenths / games.
                score[a] = score[a].add(Ratio {
                    num: tenths,
                    den: games,
                });
            }
        }
    }
    let mut order: Vec<usize> = (0..m).collect();
    let best_case = |a: usize| {
        score[a].add(Ratio {
            num: missing[a] * win,
            den: 1,
        })
    };
    order.sort_by(|&a, &b| {
        score[b]
            .cmp(score[a])
            .then(best_case(b).cmp(best_case(a)))
            .then(group[a].cmp(&group[b]))
    });
    let mut positions = vec![0u32; m];
    let position = |k: usize| u32::try_from(k + 1).expect("group fits in u32");
    if missing.iter().all(|&x| x == 0) {
        // 6: everyone met; equal scores stay tied.
        for (k, &a) in order.iter().enumerate() {
            positions[a] = match k {
                0 => 1,
                _ if score[a].cmp(score[order[k - 1]]) == Ordering::Equal => {
                    positions[order[k - 1]]
                }
                _ => position(k),
            };
        }
    } else {
        // Not everyone met: rank alone only who stays on top whatever the missing games give.
        let mut k = 0;
        while k + 1 < m {
            let a = order[k];
            let beaten_by_all_outcomes = order[k + 1..]
                .iter()
                .all(|&b| score[a].cmp(best_case(b)) == Ordering::Greater);
            if !beaten_by_all_outcomes {
                break;
            }
            positions[a] = position(k);
            k += 1;
        }
        for &a in &order[k..] {
            positions[a] = position(k);
        }
    }
    positions
}
