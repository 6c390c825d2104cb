//! Tie-breaks: hand-computed and FIDE-published values as data, plus crosstable checks.

use hanniball_pairing::tiebreak::{
    Colour, Crosstable, CrosstableError, Options, Outcome, PlayerNo, PlayerRecord, Points,
    RoundEntry, Rules, TieBreak, TieBreakValue, Unplayed, Unrated, direct_encounter,
};

/// The hand-computed files follow the 2024 text, with TPR over rated opponents only.
const HAND: Options = Options {
    rules: Rules::Fide2024,
    unrated: Unrated::Ignore,
};

fn standings(table: &Crosstable, order: &[TieBreak]) -> Vec<hanniball_pairing::tiebreak::Standing> {
    hanniball_pairing::tiebreak::standings(table, order, &HAND)
}

/// Parses one entry in FIDE's exercise notation: `+W5`, `=B4`, `-F6`, `+BYE`, `=BYE`, `--`.
fn entry(text: &str) -> RoundEntry {
    match text {
        "+BYE" => return RoundEntry::Unplayed(Unplayed::PairingBye),
        "=BYE" => return RoundEntry::Unplayed(Unplayed::HalfPointBye),
        "--" => return RoundEntry::Unplayed(Unplayed::ZeroPointBye),
        _ => {}
    }
    let outcome = match &text[..1] {
        "+" => Outcome::Win,
        "=" => Outcome::Draw,
        "-" => Outcome::Loss,
        other => panic!("bad result {other:?} in {text:?}"),
    };
    let opponent = PlayerNo(text[2..].parse().expect("opponent number"));
    match (&text[1..2], outcome) {
        ("W", _) => RoundEntry::Played {
            opponent,
            colour: Colour::White,
            outcome,
        },
        ("B", _) => RoundEntry::Played {
            opponent,
            colour: Colour::Black,
            outcome,
        },
        ("F", Outcome::Win) => RoundEntry::Unplayed(Unplayed::ForfeitWin { opponent }),
        ("F", Outcome::Loss) => RoundEntry::Unplayed(Unplayed::ForfeitLoss { opponent }),
        _ => panic!("bad entry {text:?}"),
    }
}

/// One crosstable of a data file and the checks that follow it.
#[derive(Default)]
struct Case {
    name: String,
    players: Vec<PlayerRecord>,
    values: Vec<(PlayerNo, TieBreak, String)>,
    standings: Vec<(Vec<TieBreak>, Vec<String>)>,
    de: Vec<(Vec<PlayerNo>, Vec<u32>)>,
}

fn parse(file: &str) -> Vec<Case> {
    assert!(
        file.starts_with("# Source: "),
        "golden files start with their source"
    );
    let mut cases = vec![Case::default()];
    for line in file
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
    {
        let words: Vec<&str> = line.split_whitespace().collect();
        let case = cases.last_mut().expect("one case at least");
        match words[0] {
            "table" => {
                if case.players.is_empty() {
                    case.name = words[1].to_owned();
                } else {
                    cases.push(Case {
                        name: words[1].to_owned(),
                        ..Case::default()
                    });
                }
            }
            "player" => {
                let number: usize = words[1].parse().expect("player number");
                assert_eq!(number, case.players.len() + 1, "players listed in order");
                let rating = (words[2] != "-").then(|| words[2].parse().expect("rating"));
                let rounds = words[3..].iter().map(|w| entry(w)).collect();
                case.players.push(PlayerRecord { rating, rounds });
            }
            "value" => case.values.push((
                PlayerNo(words[1].parse().expect("player")),
                words[2].parse().expect("tie-break"),
                words[3].to_owned(),
            )),
            "standings" => case.standings.push((
                words[1..]
                    .iter()
                    .map(|w| w.parse().expect("tie-break"))
                    .collect(),
                Vec::new(),
            )),
            "rank" => case
                .standings
                .last_mut()
                .expect("standings first")
                .1
                .push(words[1..].join(" ")),
            "de" => {
                let arrow = words
                    .iter()
                    .position(|w| *w == "=>")
                    .expect("de ... => ...");
                case.de.push((
                    words[1..arrow]
                        .iter()
                        .map(|w| PlayerNo(w.parse().expect("player")))
                        .collect(),
                    words[arrow + 1..]
                        .iter()
                        .map(|w| w.parse().expect("position"))
                        .collect(),
                ));
            }
            other => panic!("unknown line kind {other:?}"),
        }
    }
    cases
}

fn show(standing: &hanniball_pairing::tiebreak::Standing) -> String {
    let mut words = vec![
        standing.rank.to_string(),
        standing.player.to_string(),
        standing.points.to_string(),
    ];
    words.extend(standing.values.iter().map(ToString::to_string));
    words.join(" ")
}

/// Runs every check of a data file; returns how many values were compared.
fn check(file: &str) -> usize {
    let mut compared = 0;
    for case in parse(file) {
        let table =
            Crosstable::new(case.players).expect("the data file's crosstable is consistent");
        for (player, tb, expected) in &case.values {
            let line = standings(&table, &[*tb])
                .into_iter()
                .find(|s| s.player == *player)
                .expect("every player has a standing");
            assert_eq!(
                line.values[0].to_string(),
                *expected,
                "table {} player {player} {tb}",
                case.name
            );
            compared += 1;
        }
        for (order, expected) in &case.standings {
            let got: Vec<String> = standings(&table, order).iter().map(show).collect();
            assert_eq!(&got, expected, "table {} standings {order:?}", case.name);
            compared += expected.len();
        }
        for (tied, expected) in &case.de {
            assert_eq!(
                &direct_encounter(&table, tied),
                expected,
                "table {} DE {tied:?}",
                case.name
            );
            compared += 1;
        }
    }
    compared
}

#[test]
fn hand_computed_swiss_with_byes_forfeit_and_withdrawal() {
    assert_eq!(check(include_str!("../data/tiebreak/swiss8.txt")), 64 + 16);
}

#[test]
fn fide_tie_break_exercise() {
    assert_eq!(
        check(include_str!("../data/tiebreak/fide-exercise-2024.txt")),
        11
    );
}

#[test]
fn direct_encounter_cases() {
    assert_eq!(
        check(include_str!("../data/tiebreak/direct-encounter.txt")),
        11
    );
}

#[test]
fn acronyms_round_trip() {
    for tb in TieBreak::ALL {
        let name = tb.to_string();
        assert_eq!(name.parse::<TieBreak>(), Ok(tb), "{name}");
    }
    // Aliases and the tie-break server's spelling of modifiers.
    for (name, shown) in [
        ("GE", "REP"),
        ("bh/c1", "BH-C1"),
        ("ARO-M1", "ARO-M1"),
        ("TPN", "TPN"),
    ] {
        let tb: TieBreak = name.parse().expect("a FIDE acronym");
        assert_eq!(tb.to_string(), shown);
    }
    for bad in ["XYZ", "SB-M1", "KS-C1", "BH-C0", "BH-X1", "BH-"] {
        let err = bad.parse::<TieBreak>().expect_err("not a tie-break");
        assert!(
            err.to_string().starts_with(&format!(
                "unknown tie-break {bad:?}: expected one of DE, WIN"
            )),
            "{err}"
        );
    }
}

fn played(opponent: u32, colour: Colour, outcome: Outcome) -> RoundEntry {
    RoundEntry::Played {
        opponent: PlayerNo(opponent),
        colour,
        outcome,
    }
}

fn record(rounds: Vec<RoundEntry>) -> PlayerRecord {
    PlayerRecord {
        rating: Some(1500),
        rounds,
    }
}

#[test]
fn inconsistent_crosstables_are_refused() {
    use Colour::{Black, White};
    use Outcome::{Draw, Loss, Win};
    let cases: Vec<(Vec<PlayerRecord>, CrosstableError)> = vec![
        (
            vec![
                record(vec![played(2, White, Win)]),
                record(vec![played(1, Black, Win)]),
            ],
            CrosstableError::Mismatch {
                player: PlayerNo(1),
                round: 1,
                opponent: PlayerNo(2),
            },
        ),
        (
            vec![
                record(vec![played(2, White, Draw)]),
                record(vec![played(1, White, Draw)]),
            ],
            CrosstableError::Mismatch {
                player: PlayerNo(1),
                round: 1,
                opponent: PlayerNo(2),
            },
        ),
        (
            vec![
                record(vec![played(3, White, Win)]),
                record(vec![RoundEntry::Unplayed(Unplayed::PairingBye)]),
            ],
            CrosstableError::UnknownOpponent {
                player: PlayerNo(1),
                round: 1,
                opponent: PlayerNo(3),
            },
        ),
        (
            vec![record(vec![played(1, White, Win)])],
            CrosstableError::OwnOpponent {
                player: PlayerNo(1),
                round: 1,
            },
        ),
        (
            vec![
                record(vec![played(2, White, Loss)]),
                record(vec![played(1, Black, Win), played(1, White, Draw)]),
            ],
            CrosstableError::RoundCount {
                player: PlayerNo(2),
                rounds: 2,
                expected: 1,
            },
        ),
        (
            // A forfeit win must face a forfeit loss.
            vec![
                record(vec![RoundEntry::Unplayed(Unplayed::ForfeitWin {
                    opponent: PlayerNo(2),
                })]),
                record(vec![RoundEntry::Unplayed(Unplayed::ZeroPointBye)]),
            ],
            CrosstableError::Mismatch {
                player: PlayerNo(1),
                round: 1,
                opponent: PlayerNo(2),
            },
        ),
    ];
    for (players, expected) in cases {
        assert_eq!(Crosstable::new(players), Err(expected));
    }
    assert_eq!(
        CrosstableError::Mismatch {
            player: PlayerNo(1),
            round: 3,
            opponent: PlayerNo(2)
        }
        .to_string(),
        "player 1 in round 3 meets player 2, whose round 3 does not show the same game"
    );
}

#[test]
fn double_forfeit_is_accepted_and_scores_nothing() {
    let table = Crosstable::new(vec![
        record(vec![RoundEntry::Unplayed(Unplayed::ForfeitLoss {
            opponent: PlayerNo(2),
        })]),
        record(vec![RoundEntry::Unplayed(Unplayed::ForfeitLoss {
            opponent: PlayerNo(1),
        })]),
    ])
    .expect("a double forfeit is consistent");
    assert_eq!(table.points(PlayerNo(1)), Points::from_halves(0));
    let lines = standings(
        &table,
        &[
            TieBreak::Performance,
            TieBreak::Buchholz(Default::default()),
        ],
    );
    assert_eq!(lines.iter().map(|s| s.rank).collect::<Vec<_>>(), [1, 1]);
    assert_eq!(
        lines[0].values,
        [
            TieBreakValue::Rating(None),
            TieBreakValue::Points(Points::from_halves(0))
        ]
    );
}

#[test]
fn empty_crosstable_has_empty_standings() {
    let table = Crosstable::new(Vec::new()).expect("nobody is consistent");
    assert!(standings(&table, &TieBreak::ALL).is_empty());
}

/// STD (C.07 2026, standard points): every round is 1, ½ or 0 as its points are more than,
/// equal to or less than a draw's, whatever the point system. Hand-computed on a 3-1-0
/// crosstable (PAB 3): 1 beats 2, 3 has the PAB, 4 a half-point bye (a draw's 1 point); 1
/// beats 3, 2 beats 4; 1 draws with 4, 2 wins by forfeit against 3.
#[test]
fn standard_points_read_any_point_system_as_one_half_zero() {
    use hanniball_pairing::tiebreak::PointSystem;
    let (w, b) = (Colour::White, Colour::Black);
    let forfeit = |win: bool, opponent: u32| {
        let opponent = PlayerNo(opponent);
        RoundEntry::Unplayed(if win {
            Unplayed::ForfeitWin { opponent }
        } else {
            Unplayed::ForfeitLoss { opponent }
        })
    };
    let players = vec![
        record(vec![
            played(2, w, Outcome::Win),
            played(3, w, Outcome::Win),
            played(4, w, Outcome::Draw),
        ]),
        record(vec![
            played(1, b, Outcome::Loss),
            played(4, w, Outcome::Win),
            forfeit(true, 3),
        ]),
        record(vec![
            RoundEntry::Unplayed(Unplayed::PairingBye),
            played(1, b, Outcome::Loss),
            forfeit(false, 2),
        ]),
        record(vec![
            RoundEntry::Unplayed(Unplayed::HalfPointBye),
            played(2, b, Outcome::Loss),
            played(1, b, Outcome::Draw),
        ]),
    ];
    let check = |points: PointSystem, expected: [&str; 4]| {
        let table = Crosstable::with_points(players.clone(), points).expect("consistent");
        for rules in [Rules::Fide2024, Rules::Fide2026] {
            let options = Options {
                rules,
                unrated: Unrated::Drop,
            };
            let lines = hanniball_pairing::tiebreak::standings(
                &table,
                &[TieBreak::StandardPoints],
                &options,
            );
            let mut std: Vec<(u32, String)> = lines
                .iter()
                .map(|s| (s.player.0, s.values[0].to_string()))
                .collect();
            std.sort();
            let shown: Vec<&str> = std.iter().map(|(_, v)| v.as_str()).collect();
            assert_eq!(shown, expected, "{points:?} {rules:?}");
        }
    };
    let three_one_zero = PointSystem {
        win: 30,
        draw: 10,
        loss: 0,
        forfeit_loss: 0,
        zero_bye: 0,
        pab: 30,
    };
    check(three_one_zero, ["2.5", "2", "1", "1"]);
    // The same under 1-½-0: standard points are the points.
    check(PointSystem::default(), ["2.5", "2", "1", "1"]);
    // A PAB worth a draw's points counts ½; a loss worth points (W 3 D 2 L 1) still counts 0.
    let pab_draw = PointSystem {
        win: 30,
        draw: 20,
        loss: 10,
        forfeit_loss: 10,
        zero_bye: 0,
        pab: 20,
    };
    check(pab_draw, ["2.5", "2", "0.5", "1"]);
    assert_eq!("std".parse::<TieBreak>(), Ok(TieBreak::StandardPoints));
    assert!("STD-C1".parse::<TieBreak>().is_err());
}

/// Three crosstables with C.07 2026 values for BH, BH-C1 and SB (the dummy opponent's capped
/// score, 16.4; a last-round requested bye, 16.2.5; the cut exception for VURs, 16.5.1), as
/// gnutterts/chesspairing's `tiebreaker/c07_2026_test.go` (commit 52bda0a, Apache-2.0) gives
/// them: a third reading of the 2026 text beside ours and TieBreakServer's.
#[test]
fn c07_2026_articles_16_values_as_another_reading_gives_them() {
    let r26 = Options {
        rules: Rules::Fide2026,
        unrated: Unrated::Drop,
    };
    let check = |name: &str, rows: &[&[&str]], expected: &[(TieBreak, &[&str])]| {
        let players = rows
            .iter()
            .map(|r| record(r.iter().map(|e| entry(e)).collect()))
            .collect();
        let table = Crosstable::new(players).expect("consistent");
        for (tb, want) in expected {
            let lines = hanniball_pairing::tiebreak::standings(&table, &[*tb], &r26);
            let mut got: Vec<(u32, String)> = lines
                .iter()
                .map(|s| (s.player.0, s.values[0].to_string()))
                .collect();
            got.sort();
            let got: Vec<&str> = got.iter().map(|(_, v)| v.as_str()).collect();
            assert_eq!(&got, want, "{name} {tb}");
        }
    };
    let (bh, bh_c1, sb) = (
        TieBreak::Buchholz(Default::default()),
        TieBreak::Buchholz(hanniball_pairing::tiebreak::Cut::C1),
        TieBreak::SonnebornBerger(Default::default()),
    );
    check(
        "16.2-16.4",
        &[
            &["+W2", "+F3", "+W4"],
            &["-B1", "+W4", "+BYE"],
            &["=W4", "-F1", "--"],
            &["=B3", "-B2", "-B1"],
        ],
        &[
            (bh, &["3.5", "5", "1.5", "6"]),
            (bh_c1, &["3", "4.5", "1", "5"]),
            (sb, &["3.5", "2", "0.25", "0.5"]),
        ],
    );
    check(
        "16.2.5",
        &[
            &["+W2", "=W3", "+W4"],
            &["-B1", "+W4", "+BYE"],
            &["=W4", "=B1", "=BYE"],
            &["=B3", "-B2", "-B1"],
        ],
        &[
            (bh, &["4", "4.5", "4.5", "6"]),
            (bh_c1, &["3.5", "4", "3", "4.5"]),
            (sb, &["3.25", "2", "2.25", "0.75"]),
        ],
    );
    check(
        "16.5.1",
        &[
            &["+W4", "=BYE", "=W2"],
            &["+W3", "+W4", "=B1"],
            &["-B2", "+W5", "+W4"],
            &["-B1", "-B2", "-B3"],
            &["+BYE", "-B3", "--"],
        ],
        &[
            (bh, &["4", "4", "4", "6.5", "4"]),
            (bh_c1, &["2.5", "4", "4", "4.5", "3"]),
        ],
    );
}
