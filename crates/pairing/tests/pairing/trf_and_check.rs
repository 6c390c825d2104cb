//! TRF reading and writing, and the absolute-criteria checker, as tables of cases.

use hanniball_pairing::trf::{self, TrfError};
use hanniball_pairing::{
    Colour, DutchOptions, Forbidden, GameResult, PairingError, PointSystem, RoundEntry, Score,
    StartRank, Tournament, Violation, check, pair_next_round,
};

/// A `001` line in the exact TRF-16 columns (player columns padded, rounds from column 92).
fn line(rank: u32, name: &str, rating: &str, points: &str, rounds: &[&str]) -> String {
    let mut l = format!(
        "001 {rank:>4} {:1}{:>3} {name:<33} {rating:>4} {:>3} {:>11} {:>10} {points:>4} {rank:>4}",
        "", "", "", "", ""
    );
    for r in rounds {
        l.push_str("  ");
        l.push_str(r);
    }
    l.trim_end().to_string()
}

#[test]
fn write_uses_the_exact_columns() {
    let mut t = Tournament::new(3);
    t.info.name = Some("Spring open".into());
    let a = t.add_player("Ada", 2100);
    let b = t.add_player("Bob", 0);
    let c = t.add_player("Cy", 1900);
    t.record_game(1, a, b, GameResult::Draw);
    t.set_entry(c, 1, RoundEntry::PairingBye);
    let text = trf::write(&t).expect("writes");
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines[0], "012 Spring open");
    let ada = lines[1];
    assert_eq!(&ada[0..3], "001");
    assert_eq!(&ada[4..8], "   1");
    assert_eq!(ada[14..47].trim_end(), "Ada");
    assert_eq!(&ada[48..52], "2100");
    assert_eq!(&ada[80..84], " 0.5");
    assert_eq!(&ada[91..95], "0002"); // columns 92-95: opponent
    assert_eq!(&ada[96..97], "w"); // column 97: colour
    assert_eq!(&ada[98..99], "="); // column 99: result
    assert_eq!(&lines[3][91..99], "0000 - U");
    assert_eq!(&lines[3][80..84], " 1.0");
    assert!(text.contains("XXR 3\n") && text.contains("XXC white1\n"));
    assert_eq!(trf::parse(&text), Ok(t));
}

#[test]
fn a_field_too_large_for_the_columns_is_refused_not_garbled() {
    let mut t = Tournament::new(1);
    for i in 0..trf::MAX_PLAYERS {
        t.add_player(format!("P{i}"), 2000);
    }
    let last = StartRank(u32::try_from(trf::MAX_PLAYERS).expect("fits"));
    t.record_game(1, StartRank(1), last, GameResult::Win);
    let text = trf::write(&t).expect("9,999 players fit");
    assert!(
        text.contains("\n001 9999 "),
        "the last rank fills its four columns"
    );
    assert_eq!(trf::parse(&text), Ok(t.clone()));
    t.add_player("one too many", 2000);
    let refused = trf::write(&t);
    assert_eq!(refused, Err(TrfError::TooManyPlayers { count: 10_000 }));
    assert!(
        refused
            .unwrap_err()
            .to_string()
            .contains("at most 9999 players"),
        "the error says the limit"
    );
}

#[test]
fn every_result_code_round_trips() {
    let rounds = [
        "0002 w 1", "0002 b =", "0002 w 0", "0002 b W", "0002 w D", "0002 b L", "0002 w +",
        "0002 b -", "0000 - H", "0000 - F", "0000 - U", "0000 - Z", "0000 -  ",
    ];
    // One player with every code, plus the opponent.
    let text = format!(
        "{}\n{}\nXXR 13\nXXC black1\nXXW 2 14\n",
        line(1, "One", "", "", &rounds),
        line(2, "Two", "", "", &["0001 b 0"])
    );
    let t = trf::parse(&text).expect("parses");
    assert_eq!(t.initial_colour, Colour::Black);
    assert_eq!(t.players[1].withdrawn_from, Some(14));
    let e = &t.players[0].entries;
    assert_eq!(e.len(), 13);
    assert_eq!(
        e[6],
        RoundEntry::Forfeit {
            opponent: StartRank(2),
            colour: Some(Colour::White),
            won: true
        }
    );
    assert_eq!(
        e[3],
        RoundEntry::Game {
            opponent: StartRank(2),
            colour: Colour::Black,
            result: GameResult::Win,
            rated: false
        }
    );
    assert_eq!(e[12], RoundEntry::NotPaired);
    assert_eq!(trf::parse(&trf::write(&t).expect("writes")), Ok(t));
}

#[test]
fn errors_name_the_line() {
    let good = line(1, "One", "", "", &["0002 w 1"]);
    let two = line(2, "Two", "", "", &["0001 b 0"]);
    let cases: Vec<(String, TrfError)> = vec![
        (
            format!("012 x\n{good}\n{two}\nXXR x\n"),
            TrfError::BadNumber {
                line: 4,
                field: "number of rounds",
                text: "x".into(),
            },
        ),
        (
            format!("{good}\n{}\n", line(2, "Two", "", "", &["0001 b 7"])),
            TrfError::UnknownResult {
                line: 2,
                round: 1,
                code: '7',
            },
        ),
        (
            format!("{good}\n{}\n", line(2, "Two", "", "", &["0001 - 0"])),
            TrfError::GameWithoutColour {
                line: 2,
                round: 1,
                opponent: 1,
            },
        ),
        (
            format!("{good}\n{}\n", line(2, "Two", "", "", &["0009 b 0"])),
            TrfError::UnknownOpponent {
                line: 2,
                round: 1,
                opponent: 9,
            },
        ),
        (
            format!("{good}\n{}\n", line(2, "Two", "", "", &["0002 b 0"])),
            TrfError::SelfPairing {
                line: 2,
                round: 1,
                player: 2,
            },
        ),
        (
            format!("{good}\n{}\n", line(2, "Two", "", "", &["0001 b U"])),
            TrfError::ByeWithOpponent {
                line: 2,
                round: 1,
                code: 'U',
                opponent: 1,
            },
        ),
        (
            format!("{good}\n{good}\n"),
            TrfError::DuplicatePlayer { line: 2, rank: 1 },
        ),
        (
            format!("{good}\nXXC green1\n"),
            TrfError::BadInitialColour {
                line: 2,
                text: "green1".into(),
            },
        ),
        ("012 nobody\n".to_string(), TrfError::NoPlayers),
    ];
    for (text, expected) in cases {
        assert_eq!(trf::parse(&text), Err(expected), "{text}");
    }
}

/// The point system (`162`, `BBW`…`BBU`) scores every kind of round, is written back, and a
/// malformed one is refused with its line.
#[test]
fn point_systems_are_read_scored_and_written() {
    let players = [
        line(1, "One", "", "", &["0002 w 1", "0000 - H", "0003 b -"]),
        line(2, "Two", "", "", &["0001 b 0", "0003 w =", "0000 - U"]),
        line(3, "Three", "", "", &["0000 - Z", "0002 b =", "0001 w +"]),
    ]
    .join("\n");
    let usual = PointSystem::default();
    let cases: Vec<(&str, PointSystem, [u32; 3])> = vec![
        ("", usual, [15, 15, 15]),
        (
            "162  W 3.0    D 1.0",
            PointSystem {
                win: 30,
                draw: 10,
                pab: 30,
                ..usual
            },
            [40, 40, 40],
        ),
        ("162  P 0.5", PointSystem { pab: 5, ..usual }, [15, 10, 15]),
        (
            "162  W 3.0    D 2.0    L 1.0    A 0.5    X 2.0",
            PointSystem {
                win: 30,
                draw: 20,
                loss: 10,
                zero_bye: 5,
                forfeit_loss: 5,
                pab: 30,
            },
            [55, 60, 55],
        ),
        (
            "162 W2.5 L0.3 Z0.1 P0.7",
            PointSystem {
                win: 25,
                loss: 3,
                zero_bye: 1,
                forfeit_loss: 1,
                pab: 7,
                ..usual
            },
            [31, 15, 31],
        ),
        // A PAB value given first is not overwritten by a later win value.
        (
            "BBU 1.0\nBBW 2.0\nBBD 0.8\nBBF 0.2\nBBZ 0.4",
            PointSystem {
                win: 20,
                draw: 8,
                zero_bye: 4,
                forfeit_loss: 2,
                pab: 10,
                ..usual
            },
            [30, 18, 32],
        ),
    ];
    for (lines, points, scores) in cases {
        let text = format!("{players}\n{lines}\n");
        let t = trf::parse(&text).unwrap_or_else(|e| panic!("{lines}: {e}"));
        assert_eq!(t.points, points, "{lines}");
        let got: Vec<u32> = (1..=3).map(|i| t.score(StartRank(i)).0).collect();
        assert_eq!(got, scores, "{lines}");
        let again = trf::parse(&trf::write(&t).expect("writes")).expect("written TRF parses");
        assert_eq!(again.points, points, "{lines} written back");
    }
    assert_eq!(Score(31).to_string(), "3.1");
    let bad: Vec<(&str, TrfError)> = vec![
        (
            "162  Q 1.0",
            TrfError::BadPointSystem {
                line: 4,
                text: "Q 1.0".into(),
            },
        ),
        (
            "162  W",
            TrfError::BadPointSystem {
                line: 4,
                text: "W".into(),
            },
        ),
        (
            "162  W 1.25",
            TrfError::BadNumber {
                line: 4,
                field: "point system",
                text: "1.25".into(),
            },
        ),
        (
            "BBD -1",
            TrfError::BadNumber {
                line: 4,
                field: "draw points",
                text: "-1".into(),
            },
        ),
        (
            "BBW 100.0",
            TrfError::TooManyPoints {
                line: 4,
                field: "win points",
                text: "100.0".into(),
            },
        ),
    ];
    for (lines, expected) in bad {
        assert_eq!(
            trf::parse(&format!("{players}\n{lines}\n")),
            Err(expected),
            "{lines}"
        );
    }
}

/// TRF-2026 records: `240` byes of the round to pair become its entries, `250` accelerations,
/// `260` forbidden pairs in a range of rounds, `192` with `_BAKU`; written back and re-read
/// unchanged; malformed ones refused with their line.
#[test]
fn trf2026_records_are_read_written_and_checked() {
    let players: Vec<String> = (1..=6)
        .map(|i| {
            let opp = if i % 2 == 1 { i + 1 } else { i - 1 };
            let (c, r) = if i % 2 == 1 { ("w", "1") } else { ("b", "0") };
            line(i, &format!("P{i}"), "", "", &[&format!("{opp:04} {c} {r}")])
        })
        .collect();
    let players = players.join("\n");
    let text = format!(
        "{players}\nXXR 5\n240 H 002 0003 0004\n240 Z 004 0005\n\
         250      01.0 001 002 0001 0002\n250      00.5 002 003 0002 0003\n\
         260 002 003    1    5    6\n192 FIDE_DUTCH_2025\n"
    );
    let (t, notes) = trf::parse_with_notes(&text).expect("parses");
    assert_eq!(t.players[2].entries[1], RoundEntry::HalfPointBye);
    assert_eq!(t.players[3].entries[1], RoundEntry::HalfPointBye);
    assert_eq!(t.players[4].entries.len(), 1, "round 4's bye is not kept");
    assert_eq!(notes.len(), 1, "{notes:?}");
    assert_eq!(notes[0].line, 9);
    assert_eq!(t.players[0].accelerations, vec![10, 10]);
    assert_eq!(t.players[1].accelerations, vec![10, 5, 5]);
    assert_eq!(t.players[2].accelerations, vec![0, 5, 5]);
    assert_eq!(
        t.forbidden,
        vec![Forbidden {
            players: vec![StartRank(1), StartRank(5), StartRank(6)],
            rounds: Some((2, 3)),
        }]
    );
    assert!(!t.forbidden[0].applies_in(1) && t.forbidden[0].applies_in(3));
    let again = trf::parse(&trf::write(&t).expect("writes")).expect("written TRF parses");
    assert_eq!(again.players, t.players);
    assert_eq!(again.forbidden, t.forbidden);
    assert_eq!(again.info.system.as_deref(), Some("FIDE_DUTCH_2025"));

    // Baku: the top half (3 of 6) get a win's points in rounds 1..=2 of 5 (a draw's in round 3),
    // given up to the round to pair (2); an `XXR` of billions costs nothing.
    let baku =
        trf::parse(&format!("{players}\nXXR 5\n192 FIDE_DUTCH_2025_BAKU\n")).expect("parses");
    let acc: Vec<Vec<u32>> = baku
        .players
        .iter()
        .map(|p| p.accelerations.clone())
        .collect();
    assert_eq!(acc[..3], vec![vec![10, 10]; 3]);
    let huge = format!("{players}\nXXR 4294967295\n192 FIDE_DUTCH_2025_BAKU\n");
    let huge = trf::parse(&huge).expect("parses");
    assert_eq!(huge.players[0].accelerations, vec![10, 10]);
    assert!(acc[3..].iter().all(Vec::is_empty));
    assert_eq!(
        trf::parse(&format!(
            "{players}\n162  W 3.0    D 1.0\n192 FIDE_DUTCH_2025_BAKU\n"
        )),
        Err(TrfError::BakuPointSystem)
    );

    for bad in [
        "240 Q 002 0003",
        "240 H 002",
        "240 H x 0003",
        "250      01.0 001 0002",
        "250      00.0 001 002 0001 0002",
        "250 01.0 01.0 001 002 0001 0002",
        "250      01.0 003 002 0001 0002",
        "260 003 002 0001 0002",
        "260 001 002 0001",
    ] {
        match trf::parse(&format!("{players}\n{bad}\n")) {
            Err(TrfError::BadRecord { line: 7, .. }) => {}
            other => panic!("{bad}: {other:?}"),
        }
    }
}

#[test]
fn unknown_lines_are_noted() {
    let text = format!("012 x\nZZZ what\n{}\n", line(1, "One", "", "", &[]));
    let (_, notes) = trf::parse_with_notes(&text).expect("parses");
    assert_eq!(notes.len(), 1);
    assert_eq!(notes[0].line, 2);
}

/// Builds a tournament from `(round, white, black, white's result)` games.
fn games(players: u32, rounds: u32, list: &[(u32, u32, u32, GameResult)]) -> Tournament {
    let mut t = Tournament::new(rounds);
    for i in 0..players {
        t.add_player(format!("P{}", i + 1), 2000 - i);
    }
    for &(r, w, b, res) in list {
        t.record_game(r, StartRank(w), StartRank(b), res);
    }
    t
}

#[test]
fn checker_finds_each_violation() {
    use GameResult::*;
    // C1: 1 and 2 meet twice.
    let t = games(2, 3, &[(1, 1, 2, Win), (2, 2, 1, Win)]);
    assert_eq!(
        check(&t),
        vec![Violation::Rematch {
            round: 2,
            a: StartRank(1),
            b: StartRank(2)
        }]
    );
    // A forfeit does not count as a meeting (C.04.2 3.5): no violation.
    let mut t = games(2, 3, &[(2, 2, 1, Win)]);
    t.set_entry(
        StartRank(1),
        1,
        RoundEntry::Forfeit {
            opponent: StartRank(2),
            colour: Some(Colour::White),
            won: true,
        },
    );
    t.set_entry(
        StartRank(2),
        1,
        RoundEntry::Forfeit {
            opponent: StartRank(1),
            colour: Some(Colour::Black),
            won: false,
        },
    );
    assert_eq!(check(&t), vec![]);
    // C2: a second PAB, and a PAB after a forfeit win.
    let mut t = games(3, 3, &[(1, 1, 2, Win), (2, 1, 2, Draw)]);
    t.set_entry(StartRank(3), 1, RoundEntry::PairingBye);
    t.set_entry(StartRank(3), 2, RoundEntry::PairingBye);
    let v = check(&t);
    assert!(
        v.contains(&Violation::ByeNotAllowed {
            round: 2,
            player: StartRank(3)
        }),
        "{v:?}"
    );
    // C3: 1 and 3 both had White twice; they are not topscorers in round 3 of 4.
    let t = games(
        4,
        4,
        &[
            (1, 1, 2, Win),
            (1, 3, 4, Win),
            (2, 1, 4, Win),
            (2, 3, 2, Win),
            (3, 1, 3, Draw),
        ],
    );
    assert_eq!(
        check(&t),
        vec![Violation::ColourClash {
            round: 3,
            a: StartRank(1),
            b: StartRank(3),
            colour: Colour::Black
        }]
    );
    // The same in the final round between topscorers is allowed.
    let t = games(
        4,
        3,
        &[
            (1, 1, 2, Win),
            (1, 3, 4, Win),
            (2, 1, 4, Win),
            (2, 3, 2, Win),
            (3, 1, 3, Draw),
        ],
    );
    assert_eq!(check(&t), vec![]);
    // Records that disagree.
    let mut t = games(2, 3, &[(1, 1, 2, Win)]);
    t.set_entry(
        StartRank(2),
        1,
        RoundEntry::Game {
            opponent: StartRank(1),
            colour: Colour::Black,
            result: Draw,
            rated: true,
        },
    );
    assert_eq!(check(&t).len(), 2);
    assert!(matches!(
        pair_next_round(&t, &DutchOptions::default()),
        Err(PairingError::Inconsistent(_))
    ));
}

#[test]
fn engine_refuses_what_it_cannot_pair() {
    use GameResult::*;
    // Over: both rounds paired.
    let t = games(2, 1, &[(1, 1, 2, Win)]);
    assert_eq!(
        pair_next_round(&t, &DutchOptions::default()),
        Err(PairingError::TournamentOver { rounds: 1 })
    );
    // Two players who have met have no legal pairing.
    let t = games(2, 2, &[(1, 1, 2, Win)]);
    assert_eq!(
        pair_next_round(&t, &DutchOptions::default()),
        Err(PairingError::NoValidPairing {
            round: 2,
            players: 2
        })
    );
    // A withdrawn player is not paired; the remaining three need a bye.
    let mut t = games(4, 3, &[(1, 1, 3, Win), (1, 4, 2, Draw)]);
    t.players[0].withdrawn_from = Some(2);
    let p = pair_next_round(&t, &DutchOptions::default()).expect("pairs");
    assert_eq!(p.boards.len(), 1);
    assert!(p.bye.is_some() && p.bye != Some(StartRank(1)));
    assert!(
        p.boards
            .iter()
            .all(|&(w, b)| w != StartRank(1) && b != StartRank(1))
    );
}

/// Accelerations (`XXA`) and forbidden pairs (`XXP`) are read and written back unchanged.
#[test]
fn accelerations_and_forbidden_pairs_round_trip() {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data/dutch/bbp_xxa_xxp_dutch-p9-r6-s1001.txt");
    let text = std::fs::read_to_string(path).expect("case file");
    let trf_text: String = text
        .split("=== expected")
        .next()
        .expect("TRF part")
        .lines()
        .filter(|l| !l.starts_with("# "))
        .map(|l| format!("{l}\n"))
        .collect();
    let t = trf::parse(&trf_text).expect("parses");
    assert_eq!(
        t.players[0].accelerations,
        vec![10; 7],
        "1.0 point, in tenths"
    );
    assert_eq!(
        t.players[2].accelerations,
        vec![5; 7],
        "0.5 point, in tenths"
    );
    assert!(t.players[5].accelerations.is_empty());
    assert_eq!(
        t.forbidden,
        vec![
            Forbidden::always(vec![StartRank(1), StartRank(2), StartRank(3)]),
            Forbidden::always(vec![StartRank(5), StartRank(9)])
        ]
    );
    let again = trf::parse(&trf::write(&t).expect("writes")).expect("written TRF parses");
    assert_eq!(again.players, t.players);
    assert_eq!(again.forbidden, t.forbidden);
}
