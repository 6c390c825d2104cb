//! `hanniball swiss ...` through the real binary: the pairing-program output format and exit codes.

use std::path::PathBuf;
use std::process::{Command, Output};

fn hanniball(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_hanniball"))
        .args(args)
        .output()
        .expect("the binary runs")
}

fn stdout(output: &Output) -> String {
    String::from_utf8(output.stdout.clone()).expect("utf-8")
}

fn write_temp(name: &str, text: &str) -> PathBuf {
    let path = std::env::temp_dir().join(format!("hb-swiss-{}-{name}", std::process::id()));
    std::fs::write(&path, text).expect("temp file");
    path
}

/// Splits a pairing case of the pairing crate's test data into its TRF and expected output.
fn case(name: &str) -> (String, String) {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../pairing/tests/data/dutch")
        .join(name);
    let text = std::fs::read_to_string(&path).expect("case file");
    let (trf, expected) = text.split_once("=== expected\n").expect("case format");
    (trf.to_owned(), expected.to_owned())
}

#[test]
fn pair_prints_the_number_of_pairs_then_boards_and_the_bye() {
    for name in ["bbp_dutch_2025_c5.txt", "round1_odd_black1.txt"] {
        let (trf, expected) = case(name);
        let file = write_temp(name, &trf);
        let out = hanniball(&["swiss", "pair", file.to_str().expect("utf-8 path")]);
        assert_eq!(out.status.code(), Some(0), "{name}");
        assert_eq!(stdout(&out), expected, "{name}");
    }
}

#[test]
fn a_round_that_cannot_be_paired_exits_1_with_the_reason() {
    // Two players who already met, and a second round to pair: no legal pairing exists.
    let trf = "\
001    1      A                                 1500                             1.0    1     2 w 1
001    2      B                                 1400                             0.0    2     1 b 0
XXR 2
";
    let file = write_temp("rematch.trf", trf);
    let out = hanniball(&["swiss", "pair", file.to_str().expect("utf-8 path")]);
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8(out.stderr).expect("utf-8");
    assert!(err.contains("absolute criteria"), "{err}");
}

#[test]
fn check_reports_a_rematch_and_exits_1() {
    let trf = "\
001    1      A                                 1500                             2.0    1     2 w 1     2 b 1
001    2      B                                 1400                             0.0    2     1 b 0     1 w 0
XXR 2
";
    let file = write_temp("check.trf", trf);
    let out = hanniball(&["swiss", "check", file.to_str().expect("utf-8 path")]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stdout(&out).to_lowercase().contains("round 2"),
        "{}",
        stdout(&out)
    );
    let (trf, _) = case("round2_colours.txt");
    let file = write_temp("ok.trf", &trf);
    let out = hanniball(&["swiss", "check", file.to_str().expect("utf-8 path")]);
    assert_eq!(out.status.code(), Some(0), "{}", stdout(&out));
}

#[test]
fn malformed_files_exit_2() {
    let file = write_temp("bad.trf", "001 this is not a player line\n");
    let out = hanniball(&["swiss", "pair", file.to_str().expect("utf-8 path")]);
    assert_eq!(out.status.code(), Some(2));
    let out = hanniball(&["swiss", "pair", "/nonexistent/file.trf"]);
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn standings_show_points_and_tie_breaks() {
    let (trf, _) = case("bbp_dutch_2025_c5.txt");
    let file = write_temp("standings.trf", &trf);
    let out = hanniball(&[
        "swiss",
        "standings",
        file.to_str().expect("utf-8 path"),
        "--tiebreaks",
        "BH,SB",
    ]);
    assert_eq!(out.status.code(), Some(0));
    let text = stdout(&out);
    let header = text.lines().next().expect("header");
    assert!(header.contains("BH") && header.contains("SB"), "{text}");
    // Players 1 and 3 have 2 points and lead.
    let leaders: Vec<&str> = text
        .lines()
        .skip(1)
        .take(2)
        .map(|l| l.split_whitespace().nth(1).expect("no column"))
        .collect();
    assert!(leaders.contains(&"1") && leaders.contains(&"3"), "{text}");
}

/// Standings in the file's point system (`162 W 3 D 2 L 1`), under the text asked for, with the
/// whole C.07 list available; an unknown text is refused.
#[test]
fn standings_follow_the_file_s_points_and_the_rules_asked_for() {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../pairing/tests/data/bbp/dutch-p10-r6-s9101.trf");
    let file = path.to_str().expect("utf-8 path");
    let run = |rules: &str| {
        hanniball(&[
            "swiss",
            "standings",
            file,
            "--rules",
            rules,
            "--tiebreaks",
            "BH-M1,FB,KS,REP,PTP",
            "--unrated",
            "1400",
        ])
    };
    let out = run("2024");
    assert_eq!(out.status.code(), Some(0), "{}", stdout(&out));
    let text = stdout(&out);
    let header = text.lines().next().expect("header");
    assert!(header.contains("BH-M1") && header.contains("PTP"), "{text}");
    // Player 1 leads with 14 points (2 wins, 4 draws at 3 and 2).
    let first: Vec<&str> = text
        .lines()
        .nth(1)
        .expect("a line")
        .split_whitespace()
        .collect();
    assert_eq!((first[1], first[5]), ("1", "14"), "{text}");
    assert!(
        text.lines()
            .last()
            .expect("a line")
            .contains("C.07, 2024 text; unrated players: 1400; points W 3.0 D 2.0 L 1.0"),
        "{text}"
    );
    let out = run("2025");
    assert_eq!(out.status.code(), Some(2));
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("expected 2024 or 2026"),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// `check --strict` accepts a tournament bbpPairings paired and refuses the same tournament with
/// the colours of one game of the last round swapped, naming that round.
#[test]
fn strict_check_accepts_bbp_tournaments_and_refuses_a_tampered_round() {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../pairing/tests/data/bbp/dutch-p57-r8-s6108.trf");
    let text = std::fs::read_to_string(&path).expect("reference tournament");
    let out = hanniball(&[
        "swiss",
        "check",
        "--strict",
        path.to_str().expect("utf-8 path"),
    ]);
    assert!(out.status.success(), "{}", stdout(&out));
    assert!(stdout(&out).contains("every round is the Dutch engine's pairing"));

    // Swap White and Black of player 1's last-round game, on both lines.
    let mut lines: Vec<String> = text.split('\r').map(str::to_owned).collect();
    let first = lines
        .iter()
        .position(|l| l.starts_with("001"))
        .expect("a player");
    let line = lines[first].trim_end().to_owned();
    let col = 91 + 10 * ((line.len() - 91) / 10);
    let opponent: u32 = line[col..col + 4]
        .trim()
        .parse()
        .expect("player 1 played the last round");
    let flip = |l: &mut String| {
        let c = if &l[col + 5..col + 6] == "w" {
            "b"
        } else {
            "w"
        };
        l.replace_range(col + 5..col + 6, c);
    };
    flip(&mut lines[first]);
    let other = lines
        .iter()
        .position(|l| l.starts_with("001") && l[4..8].trim().parse() == Ok(opponent))
        .expect("the opponent's line");
    flip(&mut lines[other]);
    let rounds = (line.len() - 91) / 10 + 1;
    let tampered = write_temp("tampered.trf", &lines.join("\n"));
    let out = hanniball(&[
        "swiss",
        "check",
        "--strict",
        tampered.to_str().expect("utf-8 path"),
    ]);
    assert_eq!(out.status.code(), Some(1), "{}", stdout(&out));
    assert!(
        stdout(&out).starts_with(&format!("round {rounds}: the pairing differs")),
        "{}",
        stdout(&out)
    );
    // Without --strict the tampered file still meets the absolute criteria.
    let out = hanniball(&["swiss", "check", tampered.to_str().expect("utf-8 path")]);
    assert!(out.status.success(), "{}", stdout(&out));
}

fn real(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../pairing/tests/data/real")
        .join(name)
}

/// Like bbpPairings' `-c`, the strict check goes on past a breach and names every round that is
/// not the engine's (the same rounds bbpPairings names: `tests/data/real/expected.txt`), then
/// sums up.
#[test]
fn strict_check_lists_every_breach_and_every_differing_round_then_a_summary() {
    let file = real("tbs-87-players-pre-entered-absence.trf");
    let out = hanniball(&["swiss", "check", "--strict", file.to_str().expect("utf-8")]);
    assert_eq!(out.status.code(), Some(1));
    let text = stdout(&out);
    let lines: Vec<&str> = text.lines().collect();
    assert!(
        lines.contains(&"round 7: 72 and 84 are paired although they have already played (C1)"),
        "{text}"
    );
    let differing: Vec<u32> = lines
        .iter()
        .filter(|l| l.contains("differs from the Dutch engine's"))
        .map(|l| {
            l["round ".len()..l.find(':').expect("round N:")]
                .parse()
                .expect("round")
        })
        .collect();
    assert_eq!(differing, vec![4, 5, 6, 7, 8, 9, 10], "{text}");
    assert_eq!(
        lines.last().copied(),
        Some(
            "10 rounds of 87 players: 3 breaches of the absolute criteria (rounds 4, 7, 9); \
             7 of 10 rounds differ from the Dutch engine: 4, 5, 6, 7, 8, 9, 10"
        )
    );
}

const MID_ROUND: &str = "\
001    1      Alpha                             1500                             1.0    1     3 w 1     2 b
001    2      Bravo                             1500                             0.5    2     4 b =     1 w
001    3      Charlie                           1500                             0.0    3     1 b 0     4 w
001    4      Delta                             1500                             0.5    4     2 w =     3 b
XXR 3
";

/// A file saved mid-round (round 2 paired, no results): checked as paired; not paired past.
#[test]
fn a_file_saved_mid_round_is_checked_and_pairing_past_it_asks_for_results() {
    let file = write_temp("mid-round.trf", MID_ROUND);
    let path = file.to_str().expect("utf-8");
    let out = hanniball(&["swiss", "pair", path]);
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8(out.stderr).expect("utf-8");
    assert!(
        err.contains("round 2 is paired but 2 of its games have no result yet"),
        "{err}"
    );
    let out = hanniball(&["swiss", "check", "--strict", path]);
    assert_eq!(out.status.code(), Some(0), "{}", stdout(&out));
    let text = stdout(&out);
    assert!(
        text.starts_with("round 2: 2 games without results yet; checked as paired\n")
            && text.contains("ok: 2 rounds of 4 players"),
        "{text}"
    );
}

/// Swiss-Manager writes names in Windows-1252: read, with a note, or as named.
#[test]
fn a_latin1_file_reads_with_a_note_and_its_encoding_can_be_named() {
    let utf8 = MID_ROUND
        .replace("Alpha  ", "Müller ")
        .replace(" 2 b\n", " 2 b 1\n")
        .replace(" 1 w\n", " 1 w 0\n")
        .replace(" 4 w\n", " 4 w 1\n")
        .replace(" 3 b\n", " 3 b 0\n")
        .replace("1.0    1", "2.0    1")
        .replace("0.0    3", "1.0    3");
    let latin1: Vec<u8> = utf8
        .chars()
        .map(|c| u8::try_from(u32::from(c)).expect("Latin-1"))
        .collect();
    let path = std::env::temp_dir().join(format!("hb-swiss-{}-latin1.trf", std::process::id()));
    std::fs::write(&path, &latin1).expect("temp file");
    let path = path.to_str().expect("utf-8");
    let out = hanniball(&["swiss", "standings", path]);
    assert_eq!(out.status.code(), Some(0));
    assert!(stdout(&out).contains("Müller"), "{}", stdout(&out));
    let err = String::from_utf8(out.stderr).expect("utf-8");
    assert!(err.contains("read as Windows-1252"), "{err}");
    let out = hanniball(&["swiss", "standings", path, "--encoding", "latin-1"]);
    assert_eq!(out.status.code(), Some(0));
    assert!(
        out.stderr.is_empty(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let out = hanniball(&["swiss", "standings", path, "--encoding", "utf-8"]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8(out.stderr).expect("utf-8");
    assert!(
        err.contains("line 1: byte 0xFC is not UTF-8 text") && err.contains("--encoding"),
        "{err}"
    );
}

/// A points column from another point system is refused with the players and the system;
/// `--recompute-points` scores by the results.
#[test]
fn a_points_column_that_disagrees_is_refused_unless_recomputed() {
    let trf = "\
001    1      A                                 1500                             3.0    1     2 w 1
001    2      B                                 1400                             0.0    2     1 b 0
XXR 3
";
    let file = write_temp("points.trf", trf);
    let path = file.to_str().expect("utf-8");
    let out = hanniball(&["swiss", "pair", path]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8(out.stderr).expect("utf-8");
    assert!(
        err.contains("player 1 has 3.0 in the file, 1.0 from the results")
            && err.contains("W 3.0 D")
            && err.contains("--recompute-points"),
        "{err}"
    );
    let out = hanniball(&["swiss", "pair", path, "--recompute-points"]);
    // Two players who met: nothing to pair, but the file was read.
    assert_eq!(
        out.status.code(),
        Some(1),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let err = String::from_utf8(out.stderr).expect("utf-8");
    assert!(err.contains("scored by the results"), "{err}");
}

/// A reader that goes away (`hanniball swiss standings FILE | head -2`) ends the command
/// quietly as a program killed by SIGPIPE does: no panic, exit 141.
#[test]
fn a_closed_pipe_ends_a_command_quietly() {
    let file = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../pairing/tests/data/bbp/dutch-p1000-r5-s5055.trf"
    );
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_hanniball"))
        .args(["swiss", "standings", file])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("runs");
    // The reader is gone before the first line is written.
    drop(child.stdout.take());
    let out = child.wait_with_output().expect("ends");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!err.contains("panicked"), "{err}");
    assert_eq!(out.status.code(), Some(141), "{err}");
}
