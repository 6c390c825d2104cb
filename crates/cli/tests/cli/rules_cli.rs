//! `hanniball rules ...` through the real binary: output format and exit codes.

use std::process::{Command, Output};

const INITIAL: &str =
    "1k1/2l3l2/1e1e1e1e1/1h1h1h1h1/9/9/9/9/9/9/9/1H1H1H1H1/1E1E1E1E1/2L3L2/1K1 e8 w 1 0 standard";

fn hanniball(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_hanniball"))
        .args(args)
        .output()
        .expect("the binary runs")
}

fn stdout(output: &Output) -> String {
    String::from_utf8(output.stdout.clone()).expect("utf-8")
}

fn stderr(output: &Output) -> String {
    String::from_utf8(output.stderr.clone()).expect("utf-8")
}

#[test]
fn steps_are_sorted_in_byte_order_one_per_line() {
    let out = hanniball(&["rules", "steps", "--position", INITIAL]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let lines: Vec<String> = stdout(&out).lines().map(str::to_owned).collect();
    assert_eq!(lines.len(), 59);
    let mut sorted = lines.clone();
    sorted.sort();
    assert_eq!(lines, sorted);
    assert!(lines.contains(&"d4-e6".to_owned()));
    assert!(lines.contains(&"e1-d2".to_owned()));
}

#[test]
fn steps_of_a_finished_game_are_empty() {
    let goal = "1k1/9/9/9/9/9/9/9/9/9/9/9/9/9/1K1 d15 w 3 1 standard";
    let out = hanniball(&["rules", "steps", "--position", goal]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(stdout(&out), "");
}

#[test]
fn offences_lists_obstruction_and_clustering() {
    // Black cluster d10-g10 holding the ball on g10, walled? No: clustering only.
    let cluster = "1k1/9/9/9/9/3hhhh2/9/9/9/9/9/9/E8/9/1K1 g10 w 3 0 standard";
    let out = hanniball(&["rules", "offences", "--position", cluster]);
    assert_eq!(
        (out.status.code(), stdout(&out)),
        (Some(0), "clustering\n".to_owned())
    );
    let zillions = cluster.replace("standard", "zillions-2010");
    let out = hanniball(&["rules", "offences", "--position", &zillions]);
    assert_eq!((out.status.code(), stdout(&out)), (Some(0), String::new()));
    // Ball in the a14 corner walled by black a13 b13 b14, plus a black cluster of four.
    let both = "1k1/1e7/ee7/9/9/9/3hhhh2/9/9/9/9/9/4E4/9/1K1 a14 w 3 0 standard";
    let out = hanniball(&["rules", "offences", "--position", both]);
    assert_eq!(stdout(&out), "obstruction\nclustering\n");
}

#[test]
fn play_prints_the_position_and_the_result() {
    let out = hanniball(&[
        "rules",
        "play",
        "--position",
        INITIAL,
        "--turn",
        "d4-c6 c6-b8",
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(
        stdout(&out),
        "1k1/2l3l2/1e1e1e1e1/1h1h1h1h1/9/9/9/1H7/9/9/9/1H3H1H1/1E1E1E1E1/2L3L2/1K1 e8 b 1 0 standard\n"
    );
    let shot = "1k1/9/4L4/9/9/9/9/9/9/9/9/9/9/9/1K1 e13 w 3 0 standard";
    let out = hanniball(&["rules", "play", "--position", shot, "--turn", "e13>d15"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(
        stdout(&out),
        "1k1/9/4L4/9/9/9/9/9/9/9/9/9/9/9/1K1 d15 w 3 1 standard\n1-0 goal\n"
    );
}

#[test]
fn illegal_turns_exit_1_with_the_reason() {
    let out = hanniball(&[
        "rules",
        "play",
        "--position",
        INITIAL,
        "--turn",
        "d4-e6 e6-e8",
    ]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stderr(&out).contains("step e6-e8 is illegal"),
        "{}",
        stderr(&out)
    );
    assert_eq!(stdout(&out), "");
    let out = hanniball(&["rules", "play", "--position", INITIAL, "--turn", "d4-d3"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stderr(&out).contains("d3 holds a white elephant"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn malformed_input_exits_2() {
    for args in [
        vec!["rules", "play", "--position", INITIAL, "--turn", "d4-e66"],
        vec!["rules", "play", "--position", "nonsense", "--turn", "d4-c6"],
        vec!["rules", "steps", "--position", "1k1 e8 w 1 0 standard"],
        vec!["rules", "offences", "--position", ""],
        vec!["rules", "steps"],
        vec!["rules", "steps", "--game", "chess", "--position", INITIAL],
    ] {
        let out = hanniball(&args);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {}", stderr(&out));
        assert!(!stderr(&out).is_empty());
    }
}

#[test]
fn show_draws_the_board() {
    let out = hanniball(&["rules", "show", "--position", INITIAL]);
    assert_eq!(out.status.code(), Some(0));
    let text = stdout(&out);
    assert!(text.contains(" o "), "the loose ball is drawn");
    assert!(text.contains("white to move"));
    assert_eq!(text.lines().count(), 17);
}

/// The rules document in the repository shows the initial positions exactly as the engine draws
/// them, and its notation section gives the engine's initial position.
#[test]
fn the_rules_document_agrees_with_the_engine() {
    let doc = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../../docs/RULES.md"))
        .expect("docs/RULES.md");
    let initial = doc
        .split("Initial position:\n```\n")
        .nth(1)
        .and_then(|rest| rest.lines().next())
        .expect("the initial position in 1.11");
    assert_eq!(initial, INITIAL);
    for args in [
        vec!["rules", "show", "--position", INITIAL],
        vec![
            "rules",
            "show",
            "--game",
            "paper-football",
            "--position",
            "",
        ],
    ] {
        let out = hanniball(&args);
        assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
        let drawn = stdout(&out);
        assert!(
            doc.contains(drawn.trim_end()),
            "docs/RULES.md does not show what `hanniball {}` draws:\n{drawn}",
            args.join(" ")
        );
    }
}
