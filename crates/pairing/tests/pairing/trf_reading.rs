//! The variants real TRF files come in, each as a case with where it was found: encodings and
//! line ends, `XXC rank`, a points column that disagrees with the results, a round paired
//! without results, and the looser spellings of single fields.

use hanniball_pairing::trf::{self, Encoding, ReadOptions, TrfError};
use hanniball_pairing::{DutchOptions, StartRank, pair_next_round, recheck};

/// A `001` line in the exact TRF-16 columns (points in 81-84, rounds from column 92).
fn line(rank: u32, name: &str, points: &str, rounds: &[&str]) -> String {
    let mut l = format!(
        "001 {rank:>4} {:1}{:>3} {name:<33} {:>4} {:>3} {:>11} {:>10} {points:>4} {rank:>4}",
        "", "", "", "", "", ""
    );
    for r in rounds {
        l.push_str("  ");
        l.push_str(r);
    }
    l.trim_end().to_string()
}

/// Four players after round 1 (1-3 won by 1, 2-4 drawn), 3 rounds.
fn four(points: [&str; 4]) -> String {
    [
        line(1, "Alpha", points[0], &["0003 w 1"]),
        line(2, "Bravo", points[1], &["0004 b ="]),
        line(3, "Charlie", points[2], &["0001 b 0"]),
        line(4, "Delta", points[3], &["0002 w ="]),
        "XXR 3".to_string(),
    ]
    .join("\n")
}

fn read(bytes: &[u8]) -> Result<trf::TrfFile, TrfError> {
    trf::read(bytes, &ReadOptions::default())
}

#[test]
fn names_in_any_encoding_and_any_line_end_read_the_same() {
    let utf8 = format!("012 Zoë's Open\n{}\n", four(["1.0", "0.5", "0.0", "0.5"]));
    let expected = read(utf8.as_bytes()).expect("UTF-8 reads").tournament;
    // (where such files come from, the bytes, the note expected).
    let latin1: Vec<u8> = utf8.chars().map(|c| c as u32 as u8).collect();
    let cases: Vec<(&str, Vec<u8>, Option<&str>)> = vec![
        (
            "UTF-8, LF (this project, lichess)",
            utf8.clone().into_bytes(),
            None,
        ),
        (
            "UTF-8 with a byte-order mark and CR LF (Windows editors)",
            [
                b"\xEF\xBB\xBF".as_slice(),
                utf8.replace('\n', "\r\n").as_bytes(),
            ]
            .concat(),
            None,
        ),
        (
            "CR only (bbpPairings' own output)",
            utf8.replace('\n', "\r").into_bytes(),
            None,
        ),
        (
            "Windows-1252 / Latin-1 (Swiss-Manager's names with accents)",
            latin1.clone(),
            Some("read as Windows-1252"),
        ),
        (
            "UTF-16 with a byte-order mark (Windows 'Unicode' text)",
            [0xFF, 0xFE]
                .into_iter()
                .chain(utf8.encode_utf16().flat_map(u16::to_le_bytes))
                .collect(),
            Some("read as UTF-16LE"),
        ),
    ];
    for (source, bytes, note) in cases {
        let file = read(&bytes).unwrap_or_else(|e| panic!("{source}: {e}"));
        assert_eq!(file.tournament, expected, "{source}");
        assert_eq!(
            file.tournament.info.name.as_deref(),
            Some("Zoë's Open"),
            "{source}"
        );
        let said = file.notes.iter().find(|n| n.line == 0).map(|n| &n.text);
        match note {
            Some(note) => assert!(said.is_some_and(|s| s.contains(note)), "{source}: {said:?}"),
            None => assert_eq!(said, None, "{source}"),
        }
    }
    // Named, the encoding is not guessed: Latin-1 bytes named as UTF-8 are refused with the
    // line; named as Latin-1 they read without a note.
    let named = |e| {
        trf::read(
            &latin1,
            &ReadOptions {
                encoding: Some(e),
                ..Default::default()
            },
        )
    };
    assert_eq!(
        named(Encoding::Utf8).map(|f| f.tournament),
        Err(TrfError::NotInEncoding {
            encoding: Encoding::Utf8,
            line: 1,
            byte: 0xEB
        })
    );
    let file = named(Encoding::Latin1).expect("Latin-1");
    assert_eq!(file.tournament, expected);
    assert!(file.notes.iter().all(|n| n.line != 0), "{:?}", file.notes);
}

/// lichess writes `XXC rank white1` with its players' lines in its own order: the effective
/// pairing numbers follow the lines (bbpPairings, JaVaFo), not the starting ranks.
#[test]
fn xxc_rank_pairs_the_players_in_the_order_of_their_lines() {
    let players = |order: &[u32]| -> String {
        order
            .iter()
            .map(|&r| line(r, &format!("P{r}"), "", &[]))
            .collect::<Vec<_>>()
            .join("\n")
    };
    let pair = |text: &str| {
        let t = trf::parse(text).expect("reads");
        let mut p = pair_next_round(&t, &DutchOptions::for_tournament(&t)).expect("pairs");
        p.boards.sort();
        (t, p.boards)
    };
    // Starting ranks 1..4, lines in the order 2 1 3 4: with `rank`, 2 is the top seed and
    // plays 3 with White, 1 plays 4 with Black (top half 2 1 against bottom half 3 4).
    let lines = players(&[2, 1, 3, 4]);
    let (t, boards) = pair(&format!("{lines}\nXXR 3\nXXC rank white1\n"));
    assert_eq!(
        t.pairing_order,
        Some(vec![StartRank(2), StartRank(1), StartRank(3), StartRank(4)])
    );
    assert_eq!(
        boards,
        vec![(StartRank(2), StartRank(3)), (StartRank(4), StartRank(1))]
    );
    // Without `rank`, the same lines pair by starting rank: 1-3, and 4 White against 2.
    let (t, boards) = pair(&format!("{lines}\nXXR 3\nXXC white1\n"));
    assert_eq!(t.pairing_order, None);
    assert_eq!(
        boards,
        vec![(StartRank(1), StartRank(3)), (StartRank(4), StartRank(2))]
    );
    // Written back, the order and the flag are kept.
    let (t, _) = pair(&format!("{lines}\nXXR 3\nXXC rank white1\n"));
    let text = trf::write(&t).expect("writes");
    assert!(text.contains("XXC rank white1\n"), "{text}");
    assert_eq!(trf::parse(&text), Ok(t));
}

/// A points column that disagrees with the results is an error naming the players and a point
/// system that explains every column (bbpPairings refuses such a file without saying why).
#[test]
fn a_points_column_that_disagrees_names_the_players_and_the_point_system() {
    // Scored 3-1-0 (a club's football points) without a 162 line saying so.
    let text = four(["3.0", "1.0", "0.0", "1.0"]);
    let error = trf::parse(&text).expect_err("refused");
    let TrfError::PointsDisagree {
        players,
        explained_by,
        ..
    } = &error
    else {
        panic!("{error}");
    };
    assert_eq!(
        players.iter().map(|p| p.player).collect::<Vec<_>>(),
        vec![StartRank(1), StartRank(2), StartRank(4)]
    );
    assert_eq!(
        explained_by.as_deref(),
        Some("W 3.0 D 1.0 L 0.0 A 0.0 P 3.0")
    );
    let message = error.to_string();
    assert!(
        message.contains("player 1 has 3.0 in the file, 1.0 from the results")
            && message.contains("162 W 3.0 D 1.0 L 0.0"),
        "{message}"
    );
    // With the 162 line the file is what it says.
    let declared = format!("{text}\n162 W 3.0 D 1.0 L 0.0 A 0.0 P 3.0\n");
    assert!(trf::parse(&declared).is_ok());
    // Hand-edited: nothing usual explains it.
    let edited = four(["1.0", "0.5", "0.0", "2.5"]);
    let message = trf::parse(&edited).expect_err("refused").to_string();
    assert!(
        message.contains("player 4 has 2.5") && message.contains("no usual point system"),
        "{message}"
    );
    // Asked to, the reader scores by the results and says so.
    let file = trf::read(
        edited.as_bytes(),
        &ReadOptions {
            recompute_points: true,
            ..Default::default()
        },
    )
    .expect("recomputed");
    assert_eq!(file.tournament.score(StartRank(4)).to_string(), "0.5");
    assert!(
        file.notes
            .iter()
            .any(|n| n.text.contains("scored by the results"))
    );
    // Blank points columns (JaVaFo's generator, hand-made files) are not checked.
    assert!(trf::parse(&four(["", "", "", ""])).is_ok());
    // A decimal comma reads as a point (seen in files from Italian and German programs).
    assert!(trf::parse(&four(["1,0", "0,5", "0,0", "0,5"])).is_ok());
}

/// How every program saves mid-round: the round paired, its results blank (`0003 w  `).
#[test]
fn a_round_paired_without_results_is_checked_and_not_paired_past() {
    let text = [
        line(1, "Alpha", "1.0", &["0003 w 1", "0002 b  "]),
        line(2, "Bravo", "0.5", &["0004 b =", "0001 w  "]),
        line(3, "Charlie", "0.0", &["0001 b 0", "0004 w  "]),
        line(4, "Delta", "0.5", &["0002 w =", "0003 b  "]),
        "XXR 3".to_string(),
    ]
    .join("\n");
    let file = read(text.as_bytes()).expect("reads");
    let unfinished = file.unfinished.clone().expect("round 2 is unfinished");
    assert_eq!(unfinished.round, 2);
    assert_eq!(
        unfinished.games,
        vec![(StartRank(2), StartRank(1)), (StartRank(3), StartRank(4))]
    );
    assert_eq!(file.tournament.rounds_paired(), 1);
    // Checked as paired: round 2 is the engine's own pairing (1 drops to meet 2; 3 has White).
    let paired = file.as_paired();
    assert_eq!(paired.rounds_paired(), 2);
    assert!(hanniball_pairing::check(&paired).is_empty());
    assert_eq!(
        recheck(&paired, &DutchOptions::for_tournament(&paired)),
        vec![]
    );
    // Pairing past it is refused with what to do.
    let error = file.clone().finished().expect_err("unfinished");
    assert_eq!(
        error.to_string(),
        "round 2 is paired but 2 of its games have no result yet: enter the results before pairing round 3"
    );
    assert_eq!(trf::parse(&text), Err(error));
    // Results entered for some games only: still unfinished, the finished game kept.
    let part = [
        line(1, "Alpha", "1.0", &["0003 w 1", "0002 b 1"]),
        line(2, "Bravo", "0.5", &["0004 b =", "0001 w 0"]),
        line(3, "Charlie", "0.0", &["0001 b 0", "0004 w  "]),
        line(4, "Delta", "0.5", &["0002 w =", "0003 b  "]),
        "XXR 3".to_string(),
    ]
    .join("\n");
    let file = read(part.as_bytes()).expect("reads");
    assert_eq!(
        file.unfinished.as_ref().map(|u| u.games.clone()),
        Some(vec![(StartRank(3), StartRank(4))])
    );
    assert_eq!(file.tournament.score(StartRank(1)).to_string(), "2.0");
    // A game without a result before a round with results is an error, not a guess.
    let early = [
        line(1, "Alpha", "", &["0002 w  ", "0002 b 1"]),
        line(2, "Bravo", "", &["0001 b  ", "0001 w 0"]),
    ]
    .join("\n");
    assert!(matches!(
        trf::parse(&early),
        Err(TrfError::UnfinishedNotLast { round: 1, .. })
    ));
    // And the opponent must say the same.
    let lopsided = [
        line(1, "Alpha", "", &["0002 w  "]),
        line(2, "Bravo", "", &["0000 - H"]),
    ]
    .join("\n");
    assert!(matches!(
        trf::parse(&lopsided),
        Err(TrfError::UnfinishedMismatch { round: 1, .. })
    ));
}

/// A round under way is written as programs save mid-round: its byes and finished games with
/// their results, its other games with a blank result; the file reads back as the same
/// unfinished round (`swiss pair` then asks for the results), and with the rest of the file
/// unchanged.
#[test]
fn a_round_under_way_is_written_and_read_back_whole() {
    let text = [
        line(1, "Alpha", "1.0", &["0003 w 1", "0002 b  "]),
        line(2, "Bravo", "0.5", &["0004 b =", "0001 w  "]),
        line(3, "Charlie", "1.0", &["0001 b 0", "0005 w 1"]),
        line(4, "Delta", "1.5", &["0002 w =", "0000 - U"]),
        line(5, "Echo", "1.0", &["0000 - U", "0003 b 0"]),
        "XXR 3".to_string(),
    ]
    .join("\n");
    let file = read(text.as_bytes()).expect("reads");
    let unfinished = file.unfinished.clone().expect("round 2 under way");
    let written = trf::write_unfinished(&file.tournament, Some(&unfinished)).expect("writes");
    let back = read(written.as_bytes()).expect("reads back");
    assert_eq!(back.unfinished, Some(unfinished), "{written}");
    assert_eq!(
        back.tournament.players, file.tournament.players,
        "{written}"
    );
    // Without the unfinished round the same tournament is written as before.
    assert_eq!(
        trf::write(&file.tournament),
        trf::write_unfinished(&file.tournament, None)
    );
}

/// Single fields written more loosely than TRF-16 says, each seen in a public file (see
/// `tests/data/real/README.md`): read where the meaning is unambiguous.
#[test]
fn loose_spellings_of_single_fields_read_as_meant() {
    // (where seen, the file, what must hold).
    type Check = fn(&trf::TrfFile) -> bool;
    let cases: Vec<(&str, String, Check)> = vec![
        (
            "FIDE C.07 exercise (TieBreakServer): a bye's opponent written `   0`, not `0000`",
            [
                line(1, "Alyx", "1.5", &["0002 w 1", "   0 - H"]),
                line(2, "Bruno", "0.0", &["0001 b 0", "   0 - Z"]),
            ]
            .join("\n"),
            |f| f.tournament.players[0].entries[1] == hanniball_pairing::RoundEntry::HalfPointBye,
        ),
        (
            "FIDE C.07 exercise after 5 rounds: lines in final-rank order",
            [
                line(2, "Bruno", "1.0", &["0001 b 1"]),
                line(1, "Alyx", "0.0", &["0002 w 0"]),
            ]
            .join("\n"),
            |f| f.tournament.players[0].name == "Alyx",
        ),
        (
            "chesspairing: opponents with leading zeros, sex and title run together (`wWGM`)",
            [
                "001    1 wWGM Polgar, Judit                     2735 HUN 700070      1976/07/23  1.0    1  0002 w 1"
                    .to_string(),
                line(2, "Kasparov", "0.0", &["0001 b 0"]),
            ]
            .join("\n"),
            |f| f.tournament.players[0].name == "Polgar, Judit" && f.tournament.players[0].rating == 2735,
        ),
        (
            "Swiss-Manager layout: column rulers, a field legend, `062 15 (12)`",
            format!(
                "062 2 (2)\n{}\n{}\nDDD SSSS sTTT NNNN\n{}\n{}",
                "         1         2",
                "1234567890123456789012345678901234567890",
                line(1, "A", "1.0", &["0002 w 1"]),
                line(2, "B", "0.0", &["0001 b 0"])
            ),
            |f| f.notes.iter().filter(|n| n.text.contains("ignored line")).count() == 4,
        ),
        (
            "TieBreakServer fixture: a 162 line after the players, with an `X` (adjourned) value",
            format!(
                "{}\n{}\n162  W 1.0    D 0.5    L 0.0    A 0.0    P 1.0    X 0.5",
                line(1, "A", "1.0", &["0002 w +"]),
                line(2, "B", "0.0", &["0001 b -"])
            ),
            |f| f.tournament.points == hanniball_pairing::PointSystem::default(),
        ),
        (
            "Vega: CR LF, each line ending in a blank round column, a double forfeit",
            [
                line(1, "A", "0.0", &["0002 w -"]) + "          ",
                line(2, "B", "0.0", &["0001 b -"]) + "          ",
                "XXR 3".to_string(),
            ]
            .join("\r\n"),
            |f| {
                f.tournament.players.iter().all(|p| {
                    matches!(
                        p.entries.as_slice(),
                        [hanniball_pairing::RoundEntry::Forfeit { won: false, .. }]
                    )
                })
            },
        ),
    ];
    for (source, text, holds) in cases {
        let file = read(text.as_bytes()).unwrap_or_else(|e| panic!("{source}: {e}"));
        assert!(holds(&file), "{source}: {file:?}");
    }
}

/// A name that holds a line break cannot add lines to the file it is written in.
#[test]
fn names_with_line_breaks_stay_on_their_line() {
    let mut t = read(four(["1.0", "0.5", "0.0", "0.5"]).as_bytes())
        .expect("reads")
        .tournament;
    t.info.name = Some("Evil\n001    9 Injected\nXXR 1".to_owned());
    t.players[0].name = "Al\r\npha".to_owned();
    let written = trf::write(&t).expect("writes");
    assert_eq!(
        written.lines().filter(|l| l.starts_with("001")).count(),
        4,
        "{written}"
    );
    assert_eq!(
        written.lines().filter(|l| l.starts_with("XXR")).count(),
        1,
        "{written}"
    );
    let back = read(written.as_bytes()).expect("reads back");
    assert_eq!(back.tournament.players.len(), 4);
}

/// Messages name the line as an editor counts it (CR LF is one line end), the starting rank
/// that is missing, and never print a name's control characters.
#[test]
fn messages_name_the_line_the_missing_rank_and_no_control_characters() {
    let error = trf::parse("012 T\r\n062 2\r\n001 xx broken\r\n").expect_err("bad rank");
    assert!(error.to_string().starts_with("line 3:"), "{error}");
    let mixed = trf::parse("012 T\n\r\n\r062 2\r001 xx broken\n").expect_err("bad rank");
    assert!(mixed.to_string().starts_with("line 5:"), "{mixed}");
    let gap = [
        line(1, "Alpha", "0.0", &[]),
        line(2, "Bravo", "0.0", &[]),
        line(4, "Delta", "0.0", &[]),
    ]
    .join("\n");
    let error = trf::parse(&gap).expect_err("a gap");
    assert!(error.to_string().contains("3 is missing"), "{error}");
    let escape = [
        line(1, "Al\u{1b}[31mpha", "0.0", &[]),
        line(2, "Bravo", "0.0", &[]),
    ]
    .join("\n");
    let t = trf::parse(&escape).expect("reads");
    assert!(
        !t.players[0].name.chars().any(char::is_control),
        "{:?}",
        t.players[0].name
    );
}

/// A forfeit recorded without colours (`0002 - +` / `0001 - -`, as Swiss-Manager writes one)
/// has no colour to compare: the strict check does not flag its round, as bbpPairings `-c` does
/// not; the same forfeit with the other colours recorded is flagged.
#[test]
fn a_forfeit_without_colours_is_not_a_colour_difference() {
    let file = |a: &str, b: &str| {
        [
            line(1, "Alpha", "2.0", &["0003 w 1", a]),
            line(2, "Bravo", "1.0", &["0004 b 1", b]),
            line(3, "Charlie", "0.0", &["0001 b 0", "0004 w 0"]),
            line(4, "Delta", "1.0", &["0002 w 0", "0003 b 1"]),
            "XXR 3".to_string(),
        ]
        .join("\n")
    };
    let t = read(file("0002 - +", "0001 - -").as_bytes())
        .expect("reads")
        .tournament;
    let options = DutchOptions::for_tournament(&t);
    assert_eq!(recheck(&t, &options), vec![], "a colourless forfeit");
    // With colours recorded, they are compared: one of the two orientations differs.
    let flagged: usize = [("0002 w +", "0001 b -"), ("0002 b +", "0001 w -")]
        .iter()
        .map(|(a, b)| {
            let t = read(file(a, b).as_bytes()).expect("reads").tournament;
            recheck(&t, &DutchOptions::for_tournament(&t)).len()
        })
        .sum();
    assert_eq!(flagged, 1);
}

/// A requested half-point bye written as an unpaired round with a blank result (`0000 -`, as the
/// Irish Chess Union's program writes one) and counted in the points column: refused with what
/// explains it, and read as a half-point bye when asked.
#[test]
fn blank_unpaired_rounds_counted_as_half_points_read_as_half_point_byes() {
    let text = [
        line(1, "Alpha", "2.0", &["0003 w 1", "0002 b 1"]),
        line(2, "Bravo", "1.0", &["0004 b 1", "0001 w 0"]),
        line(3, "Charlie", "0.0", &["0001 b 0", "0000 -  "]),
        line(4, "Delta", "0.5", &["0002 w 0", "0000 -  "]),
        "XXR 3".to_string(),
    ]
    .join("\n");
    // Delta's 0.5 is the blank round 2 as a half-point bye; Charlie's blank round is an absence.
    let error = read(text.as_bytes()).expect_err("the column disagrees");
    let TrfError::PointsDisagree { blank_byes, .. } = &error else {
        panic!("{error}");
    };
    assert_eq!(*blank_byes, Some(1), "{error}");
    assert!(error.to_string().contains("--blank-as H"), "{error}");
    let options = ReadOptions {
        blank_as_half_point_bye: true,
        ..ReadOptions::default()
    };
    let file = trf::read(text.as_bytes(), &options).expect("read with the option");
    let t = &file.tournament;
    assert_eq!(
        t.players[3].entry(2),
        Some(&hanniball_pairing::RoundEntry::HalfPointBye)
    );
    assert_eq!(
        t.players[2].entry(2),
        Some(&hanniball_pairing::RoundEntry::NotPaired)
    );
    assert_eq!(t.score(StartRank(4)).to_string(), "0.5");
    assert_eq!(t.score(StartRank(3)).to_string(), "0.0");
    assert!(
        file.notes
            .iter()
            .any(|n| n.text.contains("half-point byes"))
    );
}

/// TRF-2026's `162` with a non-zero absence value (`A`: a zero-point bye or a forfeit loss, the
/// value bbpPairings writes and does not read back): read as both, written back as `A`, and read
/// again to the same point system.
#[test]
fn a_162_absence_value_round_trips() {
    let text = [
        "162  W 1.0    D 0.5    L 0.0    A 0.5    P 1.0".to_string(),
        line(1, "Alpha", "1.0", &["0002 w 1"]),
        line(2, "Bravo", "0.0", &["0001 b 0"]),
        line(3, "Charlie", "0.5", &["0000 - Z"]),
        "XXR 2".to_string(),
    ]
    .join("\n");
    let t = read(text.as_bytes()).expect("reads").tournament;
    assert_eq!((t.points.zero_bye, t.points.forfeit_loss), (5, 5));
    assert_eq!(t.score(StartRank(3)).to_string(), "0.5");
    let written = trf::write(&t).expect("writes");
    let line_162 = written
        .lines()
        .find(|l| l.starts_with("162"))
        .expect("a 162 line");
    assert!(line_162.contains(" A 0.5"), "{line_162}");
    let back = read(written.as_bytes()).expect("reads back").tournament;
    assert_eq!(back.points, t.points);
    assert_eq!(back.players, t.players);
}

#[test]
fn lines_of_junk_are_counted_and_only_the_first_hundred_noted() {
    let mut text = four(["1.0", "0.5", "0.0", "0.5"]);
    for i in 0..1_000 {
        text.push_str(&format!("\nZZZ junk line {i}"));
    }
    // A line whose first three bytes are not three characters: noted by its first three
    // characters, not the whole line.
    text.push_str(&format!("\n\u{e9}\u{e9}{}", "x".repeat(10_000)));
    let file = read(text.as_bytes()).expect("reads");
    assert_eq!(
        file.notes.len(),
        trf::MAX_LINE_NOTES + 1,
        "{:?}",
        file.notes
    );
    assert_eq!(file.notes[0].line, 6);
    assert_eq!(file.notes[0].text, "ignored line \"ZZZ\"");
    assert_eq!(file.notes[99].line, 105);
    let last = file.notes.last().expect("a summary");
    assert_eq!(last.line, 0);
    assert!(
        last.text.starts_with("901 more lines ignored"),
        "{}",
        last.text
    );
    // The long line alone: its note is short.
    let text = format!(
        "{}\n\u{e9}\u{e9}{}",
        four(["1.0", "0.5", "0.0", "0.5"]),
        "x".repeat(10_000)
    );
    let file = read(text.as_bytes()).expect("reads");
    assert_eq!(file.notes.len(), 1);
    assert_eq!(file.notes[0].text, "ignored line \"\u{e9}\u{e9}x\"");
}

#[test]
fn bad_bytes_are_reported_on_their_line_whatever_the_line_ends() {
    let good = four(["1.0", "0.5", "0.0", "0.5"]);
    // The fourth line's name has a byte that is not UTF-8.
    for end in ["\n", "\r\n", "\r"] {
        let text = good.replace('\n', end).replace("Delta", "D\u{1}lta");
        let bytes: Vec<u8> = text
            .bytes()
            .map(|b| if b == 1 { 0xFF } else { b })
            .collect();
        let named = trf::read(
            &bytes,
            &ReadOptions {
                encoding: Some(Encoding::Utf8),
                ..ReadOptions::default()
            },
        );
        assert_eq!(
            named.map(|_| ()),
            Err(TrfError::NotInEncoding {
                encoding: Encoding::Utf8,
                line: 4,
                byte: 0xFF
            }),
            "line ends {end:?}"
        );
        // UTF-16 with an unpaired surrogate on the same line.
        let mut units: Vec<u16> = vec![0xFEFF];
        for c in text.chars() {
            units.push(if c == '\u{1}' { 0xD800 } else { c as u16 });
        }
        let bytes: Vec<u8> = units.iter().flat_map(|u| u.to_le_bytes()).collect();
        match read(&bytes) {
            Err(TrfError::NotInEncoding {
                encoding: Encoding::Utf16Le,
                line,
                ..
            }) => assert_eq!(line, 4, "UTF-16, line ends {end:?}"),
            other => panic!("UTF-16, line ends {end:?}: {other:?}"),
        }
    }
}

#[test]
fn a_file_of_many_rounds_reads_with_the_scores_of_its_results() {
    // Twelve players over 3,000 rounds (a round robin over and over), written as its lines
    // are and read back: every entry and every score as a plain sum says.
    let (players, rounds) = (12usize, 3_000usize);
    let mut entries = vec![Vec::new(); players];
    let mut seed = 12_345u64;
    for round in 0..rounds {
        let r = round % (players - 1);
        let at = |k: usize| {
            if k == players - 1 {
                k
            } else {
                (k + r) % (players - 1)
            }
        };
        for k in 0..players / 2 {
            let (white, black) = if (round + k).is_multiple_of(2) {
                (at(k), at(players - 1 - k))
            } else {
                (at(players - 1 - k), at(k))
            };
            seed = seed.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1);
            let (w, b) = match (seed >> 33) % 3 {
                0 => ('1', '0'),
                1 => ('=', '='),
                _ => ('0', '1'),
            };
            entries[white].push(format!("{:04} w {w}", black + 1));
            entries[black].push(format!("{:04} b {b}", white + 1));
        }
    }
    let tenths = |code: &str| match code.as_bytes()[7] {
        b'1' => 10,
        b'=' => 5,
        _ => 0,
    };
    let mut text = String::new();
    for (i, cells) in entries.iter().enumerate() {
        let total: u32 = cells.iter().map(|c| tenths(c)).sum();
        let points = format!("{}.{}", total / 10, total % 10);
        let cells: Vec<&str> = cells.iter().map(String::as_str).collect();
        let l = line(i as u32 + 1, &format!("P{i}"), "", &cells);
        // The points end in column 84, spilling left over the blank birth date.
        let (head, tail) = l.split_at(84);
        text.push_str(&head[..84 - points.len()]);
        text.push_str(&points);
        text.push_str(tail);
        text.push('\r');
    }
    text.push_str(&format!("XXR {rounds}\r"));
    let t = read(text.as_bytes())
        .expect("reads")
        .finished()
        .expect("finished");
    assert_eq!(t.rounds_paired(), rounds as u32);
    for (i, cells) in entries.iter().enumerate() {
        let p = &t.players[i];
        assert_eq!(p.entries.len(), rounds);
        let total: u32 = cells.iter().map(|c| tenths(c)).sum();
        assert_eq!(t.score(p.id).0, total, "player {}", i + 1);
        let halfway: u32 = cells[..rounds / 2].iter().map(|c| tenths(c)).sum();
        assert_eq!(
            t.score_before(p.id, rounds as u32 / 2 + 1).0,
            halfway,
            "player {}",
            i + 1
        );
    }
}

/// TRF-16 `132`: each round's date in the round columns (92-99 for round 1, 102-109 for round 2,
/// ...), read into the header and written back in the same columns, a round without a date
/// left blank; a line written word by word (dates before column 92) is read too.
#[test]
fn round_dates_are_read_and_written_in_their_columns() {
    let dates = format!("{:<91}26/03/01            26/03/03", "132");
    let text = format!(
        "012 Spring\n022 Lyon\n032 FRA\n042 2026/03/01\n052 2026/03/03\n102 Ivanova, Anna\n\
         112 Dupont, Jean\n112 Moreau, Lea\n122 90'+30''\n{dates}\n{}\n{}\nXXR 3\n",
        line(1, "A", "1.0", &["0002 w 1"]),
        line(2, "B", "0.0", &["0001 b 0"])
    );
    let file = read(text.as_bytes()).expect("reads");
    let info = &file.tournament.info;
    assert_eq!(info.round_dates, ["26/03/01", "", "26/03/03"]);
    assert_eq!(info.deputies, ["Dupont, Jean", "Moreau, Lea"]);
    let written = trf::write(&file.tournament).expect("writes");
    let header = |t: &str| -> Vec<String> {
        t.lines()
            .filter(|l| ("012".."133").contains(&l.get(..3).unwrap_or_default()))
            .map(str::to_owned)
            .collect()
    };
    assert_eq!(header(&written), header(&text), "{written}");
    assert!(
        !file.notes.iter().any(|n| n.text.contains("132")),
        "{:?}",
        file.notes
    );
    let words = read(b"132 2026/03/01 2026/03/02\n001    1      A").expect("reads");
    assert_eq!(
        words.tournament.info.round_dates,
        ["2026/03/01", "2026/03/02"]
    );
    let again = trf::write(&words.tournament).expect("writes");
    assert!(
        again.lines().any(|l| l == "132 2026/03/01 2026/03/02"),
        "{again}"
    );
}
