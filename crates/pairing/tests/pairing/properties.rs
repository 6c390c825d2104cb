//! Property tests over thousands of random tournaments (seeded SplitMix64 from `hanniball-rng`):
//! every round the engine pairs passes the checker, a round is refused only when no pairing
//! satisfying the absolute criteria exists (brute-force oracle on small fields), the bye goes to
//! the lowest possible score (C5), pairing is deterministic, and the TRF text round-trips.

use hanniball_pairing::history::{compatible, states_before};
use hanniball_pairing::{
    DutchOptions, GameResult, Pairing, PairingError, RoundEntry, StartRank, Tournament, check,
    pair_next_round, trf,
};
use hanniball_rng::Rng;

/// Brute force: the scores a bye can go to in some pairing satisfying C1–C3 (None if no
/// complete pairing exists). Small fields only.
fn oracle(t: &Tournament, round: u32) -> Option<Vec<u32>> {
    let states = states_before(t, round);
    let players: Vec<usize> = t
        .players
        .iter()
        .filter(|p| p.entry(round).is_none() && p.withdrawn_from.is_none_or(|w| w > round))
        .map(|p| p.id.0 as usize - 1)
        .collect();
    fn go(rest: &[usize], states: &[hanniball_pairing::history::PlayerState]) -> bool {
        let Some(&a) = rest.first() else { return true };
        for i in 1..rest.len() {
            let b = rest[i];
            if compatible(&states[a], &states[b]) {
                let next: Vec<usize> = rest.iter().copied().filter(|&x| x != a && x != b).collect();
                if go(&next, states) {
                    return true;
                }
            }
        }
        false
    }
    if players.len().is_multiple_of(2) {
        return go(&players, &states).then(Vec::new);
    }
    let mut scores = Vec::new();
    for &b in &players {
        if states[b].pab_blocked {
            continue;
        }
        let rest: Vec<usize> = players.iter().copied().filter(|&x| x != b).collect();
        if go(&rest, &states) {
            scores.push(states[b].score.0);
        }
    }
    (!scores.is_empty()).then_some(scores)
}

fn random_result(rng: &mut Rng) -> GameResult {
    match rng.below_u64(10) {
        0..=3 => GameResult::Win,
        4..=5 => GameResult::Draw,
        _ => GameResult::Loss,
    }
}

/// Plays a pairing with random results, some of them forfeits.
fn play(t: &mut Tournament, round: u32, p: &Pairing, rng: &mut Rng) {
    for &(w, b) in &p.boards {
        if rng.chance(4) {
            let white_wins = rng.chance(50);
            t.set_entry(
                w,
                round,
                RoundEntry::Forfeit {
                    opponent: b,
                    colour: Some(hanniball_pairing::Colour::White),
                    won: white_wins,
                },
            );
            t.set_entry(
                b,
                round,
                RoundEntry::Forfeit {
                    opponent: w,
                    colour: Some(hanniball_pairing::Colour::Black),
                    won: !white_wins && rng.chance(80),
                },
            );
        } else {
            t.record_game(round, w, b, random_result(rng));
        }
    }
    if let Some(b) = p.bye {
        t.set_entry(b, round, RoundEntry::PairingBye);
    }
}

/// Pairs a whole random tournament, checking the properties after each round. Returns the
/// number of rounds paired.
fn run(seed: u64, max_players: u64, use_oracle: bool) -> u32 {
    let mut rng = Rng::new(seed);
    let n = 2 + rng.below_u64(max_players - 1) as u32;
    let rounds = 1 + rng.below_u64(u64::from(n.min(11))) as u32;
    let mut t = Tournament::new(rounds);
    if rng.chance(50) {
        t.initial_colour = hanniball_pairing::Colour::Black;
    }
    // Late entries: some players join in a later round (not paired before).
    let mut joins = Vec::new();
    for i in 0..n {
        t.add_player(format!("Player {}", i + 1), 2500 - 10 * i);
        joins.push(if rng.chance(10) {
            1 + rng.below_u64(u64::from(rounds)) as u32
        } else {
            1
        });
    }
    let mut paired = 0;
    for round in 1..=rounds {
        for i in 0..n {
            let id = StartRank(i + 1);
            if round < joins[i as usize] {
                t.set_entry(id, round, RoundEntry::NotPaired);
            } else if t.players[i as usize].withdrawn_from.is_none() {
                match rng.below_u64(100) {
                    0..=2 => t.set_entry(id, round, RoundEntry::HalfPointBye),
                    3..=4 => t.set_entry(id, round, RoundEntry::ZeroPointBye),
                    5 => t.set_entry(id, round, RoundEntry::FullPointBye),
                    6 if round > 1 => t.players[i as usize].withdrawn_from = Some(round),
                    _ => {}
                }
            }
        }
        let options = DutchOptions::default();
        let result = pair_next_round(&t, &options);
        let expected = if use_oracle {
            Some(oracle(&t, round))
        } else {
            None
        };
        match result {
            Ok(p) => {
                assert_eq!(
                    pair_next_round(&t, &options).as_ref(),
                    Ok(&p),
                    "seed {seed}: deterministic"
                );
                if let Some(Some(scores)) = &expected {
                    if let Some(b) = p.bye {
                        let s = t.score_before(b, round).0;
                        assert_eq!(
                            Some(&s),
                            scores.iter().min(),
                            "seed {seed} round {round}: C5"
                        );
                    }
                } else if let Some(None) = expected {
                    panic!(
                        "seed {seed} round {round}: paired although the oracle finds no pairing"
                    );
                }
                play(&mut t, round, &p, &mut rng);
                paired += 1;
                let violations = check(&t);
                assert!(
                    violations.is_empty(),
                    "seed {seed} round {round}: {violations:?}\n{}",
                    trf::write(&t).unwrap_or_else(|e| e.to_string())
                );
            }
            Err(PairingError::NoValidPairing { .. }) => {
                if let Some(e) = expected {
                    assert_eq!(
                        e,
                        None,
                        "seed {seed} round {round}: refused but a pairing exists\n{}",
                        trf::write(&t).unwrap_or_else(|e| e.to_string())
                    );
                }
                // Nothing can be paired: end this tournament here.
                break;
            }
            Err(e) => panic!("seed {seed} round {round}: {e}"),
        }
        let text = trf::write(&t).expect("writes");
        assert_eq!(
            trf::parse(&text).as_ref(),
            Ok(&t),
            "seed {seed}: TRF round trip\n{text}"
        );
    }
    paired
}

#[test]
fn small_tournaments_against_the_oracle() {
    let mut rounds = 0;
    for seed in 0..1500 {
        rounds += run(seed, 13, true);
    }
    assert!(rounds > 3000, "only {rounds} rounds paired");
}

#[test]
fn larger_tournaments_pass_the_checker() {
    for seed in 10_000..10_600 {
        run(seed, 60, false);
    }
}
