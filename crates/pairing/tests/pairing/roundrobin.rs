//! Round robin: the FIDE Berger tables (golden file) and the invariants of every schedule.

use std::collections::BTreeMap;

use hanniball_pairing::roundrobin::{
    Board, Cycles, MAX_PLAYERS, PairingNumber, RoundRobinError, berger,
};

const TABLES: &str = include_str!("../data/roundrobin/berger.txt");

/// The published tables: players -> rounds -> "w-b" strings.
fn published() -> BTreeMap<usize, Vec<Vec<String>>> {
    let mut tables: BTreeMap<usize, Vec<Vec<String>>> = BTreeMap::new();
    let mut current = 0;
    for line in TABLES
        .lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
    {
        if let Some(n) = line.strip_prefix("players ") {
            current = n.parse().expect("player count");
            tables.insert(current, Vec::new());
        } else {
            let (_, boards) = line.split_once(": ").expect("round line");
            let round = boards.split(' ').map(str::to_owned).collect();
            tables
                .get_mut(&current)
                .expect("a players line came first")
                .push(round);
        }
    }
    tables
}

fn text(round: &[Board], bye_as: u32) -> Vec<String> {
    round
        .iter()
        .map(|b| match *b {
            Board::Game { white, black } => format!("{white}-{black}"),
            // On paper the bye is a game against the highest number; put it back there.
            Board::Bye { player } => format!("{player}~{bye_as}"),
        })
        .collect()
}

fn check(players: usize, expected: &[Vec<String>]) {
    let rounds = berger(players, Cycles::Single).expect("valid field");
    assert_eq!(rounds.len(), expected.len(), "{players} players");
    let dummy = u32::try_from(players + 1).expect("small");
    for (r, (got, want)) in rounds.iter().zip(expected).enumerate() {
        let got = text(got, dummy);
        let want: Vec<String> = if players % 2 == 1 {
            // For the odd field, the game against the dummy (n+1) is a bye of the other player.
            want.iter()
                .map(|g| {
                    let (w, b) = g.split_once('-').expect("w-b");
                    if w == dummy.to_string() {
                        format!("{b}~{dummy}")
                    } else if b == dummy.to_string() {
                        format!("{w}~{dummy}")
                    } else {
                        g.clone()
                    }
                })
                .collect()
        } else {
            want.clone()
        };
        assert_eq!(got, want, "{players} players, round {}", r + 1);
    }
}

#[test]
fn published_fide_tables_even_fields() {
    let tables = published();
    assert_eq!(
        tables.keys().copied().collect::<Vec<_>>(),
        [4, 6, 8, 10, 12]
    );
    for (&n, rounds) in &tables {
        check(n, rounds);
    }
}

#[test]
fn published_fide_tables_odd_fields_use_the_highest_number_as_bye() {
    for (&n, rounds) in &published() {
        check(n - 1, rounds);
    }
}

/// Colour of every player in every round (None = bye) for a schedule.
fn colours(players: usize, rounds: &[Vec<Board>]) -> Vec<Vec<Option<bool>>> {
    let mut seen = vec![Vec::new(); players + 1];
    for round in rounds {
        let mut this = vec![None; players + 1];
        let mut present = vec![false; players + 1];
        for board in round {
            match *board {
                Board::Game { white, black } => {
                    for (p, is_white) in [(white, true), (black, false)] {
                        let i = p.0 as usize;
                        assert!(!present[i], "player {i} twice in one round");
                        present[i] = true;
                        this[i] = Some(is_white);
                    }
                }
                Board::Bye { player } => {
                    let i = player.0 as usize;
                    assert!(!present[i], "player {i} twice in one round");
                    present[i] = true;
                }
            }
        }
        assert!(
            present[1..].iter().all(|&p| p),
            "everyone appears in every round"
        );
        for (p, c) in this.into_iter().enumerate() {
            seen[p].push(c);
        }
    }
    seen
}

#[test]
fn everyone_meets_everyone_once_per_cycle_for_2_to_24_players() {
    for n in 2..=24 {
        for (cycles, times) in [
            (Cycles::Single, 1),
            (Cycles::Double, 2),
            (Cycles::DoubleUnswapped, 2),
        ] {
            let rounds = berger(n, cycles).expect("valid field");
            let per_cycle = if n % 2 == 0 { n - 1 } else { n };
            assert_eq!(rounds.len(), per_cycle * times, "{n} players {cycles:?}");
            let mut met: BTreeMap<(u32, u32), (usize, usize)> = BTreeMap::new();
            let mut byes = vec![0; n + 1];
            for round in &rounds {
                let round_byes = round
                    .iter()
                    .filter(|b| matches!(b, Board::Bye { .. }))
                    .count();
                assert_eq!(round_byes, n % 2, "{n} players: one bye per round iff odd");
                for board in round {
                    match *board {
                        Board::Game { white, black } => {
                            let key = (white.0.min(black.0), white.0.max(black.0));
                            let entry = met.entry(key).or_default();
                            if white.0 < black.0 {
                                entry.0 += 1
                            } else {
                                entry.1 += 1
                            }
                        }
                        Board::Bye { player } => byes[player.0 as usize] += 1,
                    }
                }
            }
            assert_eq!(
                met.len(),
                n * (n - 1) / 2,
                "{n} players {cycles:?}: every pair meets"
            );
            for (pair, (a, b)) in &met {
                if times == 1 {
                    assert_eq!(a + b, 1, "{pair:?}");
                } else {
                    // Double: once with each colour.
                    assert_eq!((*a, *b), (1, 1), "{n} players {cycles:?} pair {pair:?}");
                }
            }
            let expected_byes = if n % 2 == 1 { times } else { 0 };
            assert!(
                byes[1..].iter().all(|&b| b == expected_byes),
                "{n} players: byes {byes:?}"
            );
        }
    }
}

#[test]
fn colour_balance_in_one_cycle() {
    for n in 2..=24 {
        let rounds = berger(n, Cycles::Single).expect("valid field");
        for (p, seq) in colours(n, &rounds).iter().enumerate().skip(1) {
            let whites = seq.iter().filter(|c| **c == Some(true)).count() as i64;
            let blacks = seq.iter().filter(|c| **c == Some(false)).count() as i64;
            let bound = if n % 2 == 0 { 1 } else { 0 };
            assert!(
                (whites - blacks).abs() <= bound,
                "{n} players, player {p}: {whites}W {blacks}B"
            );
            // Never three games in a row with the same colour inside a cycle (byes skipped).
            let played: Vec<bool> = seq.iter().flatten().copied().collect();
            assert!(
                played.windows(3).all(|w| !(w[0] == w[1] && w[1] == w[2])),
                "{n} players, player {p}: {played:?}"
            );
        }
    }
}

#[test]
fn fide_swap_avoids_three_same_colours_across_the_cycle_change() {
    for n in (4..=24).step_by(2) {
        let swapped = berger(n, Cycles::Double).expect("valid field");
        for (p, seq) in colours(n, &swapped).iter().enumerate().skip(1) {
            let played: Vec<bool> = seq.iter().flatten().copied().collect();
            assert!(
                played.windows(3).all(|w| !(w[0] == w[1] && w[1] == w[2])),
                "{n} players, player {p}: {played:?}"
            );
        }
        // Without the swap, player 1 gets three in a row (the reason for the recommendation).
        let plain = berger(n, Cycles::DoubleUnswapped).expect("valid field");
        let runs = colours(n, &plain).iter().skip(1).any(|seq| {
            let played: Vec<bool> = seq.iter().flatten().copied().collect();
            played.windows(3).any(|w| w[0] == w[1] && w[1] == w[2])
        });
        assert!(runs, "{n} players: the unswapped double has a run of three");
    }
}

#[test]
fn double_cycle_layout() {
    let single = berger(6, Cycles::Single).expect("valid field");
    let double = berger(6, Cycles::Double).expect("valid field");
    let flip = |r: &Vec<Board>| -> Vec<Board> {
        r.iter()
            .map(|b| match *b {
                Board::Game { white, black } => Board::Game {
                    white: black,
                    black: white,
                },
                bye => bye,
            })
            .collect()
    };
    // Cycle one: rounds 1..3 as printed, then 5 and 4 swapped.
    assert_eq!(double[..3], single[..3]);
    assert_eq!(double[3], single[4]);
    assert_eq!(double[4], single[3]);
    // Cycle two: the printed table, colours reversed.
    for r in 0..5 {
        assert_eq!(double[5 + r], flip(&single[r]), "round {}", 6 + r);
    }
}

#[test]
fn field_size_errors() {
    assert_eq!(
        berger(0, Cycles::Single),
        Err(RoundRobinError::TooFewPlayers { players: 0 })
    );
    assert_eq!(
        berger(1, Cycles::Double),
        Err(RoundRobinError::TooFewPlayers { players: 1 })
    );
    assert_eq!(
        berger(MAX_PLAYERS + 1, Cycles::Single),
        Err(RoundRobinError::TooManyPlayers {
            players: MAX_PLAYERS + 1,
            max: MAX_PLAYERS
        })
    );
    assert_eq!(
        RoundRobinError::TooFewPlayers { players: 1 }.to_string(),
        "a round robin needs at least 2 players, got 1"
    );
    let two = berger(2, Cycles::Double).expect("valid field");
    assert_eq!(
        two,
        [
            vec![Board::Game {
                white: PairingNumber(1),
                black: PairingNumber(2)
            }],
            vec![Board::Game {
                white: PairingNumber(2),
                black: PairingNumber(1)
            }],
        ]
    );
}
