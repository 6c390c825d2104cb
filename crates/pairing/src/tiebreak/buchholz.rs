//! Buchholz, Fore Buchholz and Sonneborn-Berger (articles 8.1, 8.2, 9.1), with cuts (14) and
//! the unplayed-round rules (16.4, 16.5).

use super::context::Context;
use super::crosstable::Points;
use super::kinds::{Cut, TieBreakValue};
use super::rules::Rules;

/// One BH/SB contribution, before cuts.
#[derive(Debug, Clone, Copy)]
struct Contribution {
    vur: bool,
    /// The opponent's (or dummy's) score, tenths.
    score: u64,
    /// What is summed: `score` for BH, hundredths `score × points` for SB.
    value: u64,
}

impl Context<'_> {
    /// BH (`sb` false) or SB, Fore Buchholz when `fore`, with `cut`.
    pub(super) fn buchholz(&self, fore: bool, sb: bool, cut: Cut) -> Vec<TieBreakValue> {
        let draw = u64::from(self.ps().draw);
        let rounds = self.rounds.first().map_or(0, Vec::len);
        let (adjusted, own) = if fore {
            (&self.fore_adjusted, &self.fore_own)
        } else {
            (&self.adjusted, &self.score)
        };
        (0..self.n())
            .map(|i| {
                let mut list: Vec<Contribution> = self.rounds[i]
                    .iter()
                    .enumerate()
                    .map(|(r, x)| {
                        let counts_played = x.paired || (fore && r + 1 == rounds);
                        let (score, vur) = match x.opponent {
                            Some(o) if counts_played => (adjusted[o], false),
                            _ => {
                                // 16.4: the dummy opponent has the participant's own score.
                                let dummy = own[i];
                                let capped = match (self.options.rules, x.opponent) {
                                    (Rules::Fide2024, _) => dummy,
                                    // 16.4.1 (2026): at most the scheduled opponent's score.
                                    (Rules::Fide2026, Some(o)) => dummy.min(adjusted[o]),
                                    // 16.4.2 (2026): at most a draw in every round.
                                    (Rules::Fide2026, None) => dummy.min(draw * rounds as u64),
                                };
                                (capped, x.vur)
                            }
                        };
                        let value = if sb { score * x.points } else { score * 10 };
                        Contribution { vur, score, value }
                    })
                    .collect();
                let low = usize::from(cut.low).min(list.len());
                let high = usize::from(cut.high).min(list.len() - low);
                for _ in 0..low {
                    // 14.1 with 16.5: the lowest VUR contribution goes first, unless the least
                    // significant one is worth more.
                    let mut all = list.clone();
                    all.sort_by_key(|c| (c.score, c.value));
                    let mut vur_first = list.clone();
                    vur_first.sort_by_key(|c| (!c.vur, c.score, c.value));
                    list = if all[0].value > vur_first[0].value {
                        all
                    } else {
                        vur_first
                    };
                    list.remove(0);
                }
                for _ in 0..high {
                    list.sort_by_key(|c| (std::cmp::Reverse(c.score), std::cmp::Reverse(c.value)));
                    list.remove(0);
                }
                TieBreakValue::Points(Points::from_hundredths(list.iter().map(|c| c.value).sum()))
            })
            .collect()
    }
}
