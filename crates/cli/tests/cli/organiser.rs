//! The organiser's story from the README, at the command line against a live server: create an
//! over-the-board Swiss, add players (one name misspelled, then the rerun), enter a round's
//! results from a file, correct a result before and after the next round is paired, export.
//! Nothing panics, every error names what was typed, and after each correction the board, the
//! game, the TRF, the standings and the rating history agree.

use std::process::{Command, Stdio};

use crate::common::{created, data_dir, serve, token_in};

/// Runs `hanniball args...` against `url` with `token`, `input` on standard input; returns
/// (exit code, stdout, stderr).
fn run_with(url: &str, token: &str, args: &[&str], input: &str) -> (i32, String, String) {
    use std::io::Write as _;
    let mut child = Command::new(env!("CARGO_BIN_EXE_hanniball"))
        .args(args)
        .args(["--server", url, "--token", token])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the binary runs");
    child
        .stdin
        .take()
        .expect("stdin")
        .write_all(input.as_bytes())
        .expect("input");
    let output = child.wait_with_output().expect("output");
    let err = String::from_utf8_lossy(&output.stderr).into_owned();
    assert!(!err.contains("panicked"), "{args:?} panicked: {err}");
    (
        output.status.code().unwrap_or(-1),
        String::from_utf8(output.stdout).expect("UTF-8 output"),
        err,
    )
}

fn run(url: &str, token: &str, args: &[&str]) -> (i32, String, String) {
    run_with(url, token, args, "")
}

fn ok(url: &str, token: &str, args: &[&str]) -> String {
    let (code, out, err) = run(url, token, args);
    assert_eq!(code, 0, "{args:?}: {err}");
    out
}

/// The board lines of round `round` in `tournament show`: (board, white, result, black).
fn boards(show: &str, round: u32) -> Vec<Vec<String>> {
    let mut lines = show.lines().skip_while(|l| *l != format!("round {round}"));
    lines.next();
    lines
        .skip(1)
        .take_while(|l| {
            l.trim_start()
                .chars()
                .next()
                .is_some_and(|c| c.is_ascii_digit())
        })
        .map(|l| l.split_whitespace().map(str::to_owned).collect())
        .collect()
}

#[test]
fn an_organiser_runs_a_club_night_from_the_command_line() {
    let dir = data_dir("organiser");
    let (_server, url) = serve(&dir, &[]);
    let admin = std::fs::read_to_string(dir.join("admin-token")).expect("admin token");
    let admin = admin.trim();
    let names = ["ann", "ben", "cat", "dan", "eva", "fay"];
    for name in names {
        ok(&url, admin, &["player", "register", name]);
    }
    let out = ok(
        &url,
        admin,
        &[
            "tournament",
            "create",
            "Club night",
            "--rounds",
            "3",
            "--rated",
            "--manual",
            "--over-the-board",
        ],
    );
    let id = out.split_whitespace().nth(1).expect("id").to_owned();
    // One name misspelled: it is named, and nobody is added.
    let (code, _, err) = run(
        &url,
        admin,
        &[
            "tournament",
            "add",
            &id,
            "ann",
            "ben",
            "cta",
            "dan",
            "eav",
            "fay",
        ],
    );
    assert_eq!(code, 1);
    assert!(err.contains("\"cta\"") && err.contains("\"eav\""), "{err}");
    assert!(err.contains("nobody was added"), "{err}");
    assert!(!ok(&url, admin, &["tournament", "show", &id]).contains("fay"));
    // The rerun with the names fixed adds everyone (and a second rerun changes nothing).
    let mut add = vec!["tournament", "add", id.as_str()];
    add.extend(names);
    let out = ok(&url, admin, &add);
    assert_eq!(out.matches(" added").count(), 6, "{out}");
    let out = ok(&url, admin, &add);
    assert_eq!(out.matches("already in tournament").count(), 6, "{out}");
    ok(&url, admin, &["tournament", "start", &id]);
    let show = ok(&url, admin, &["tournament", "show", &id]);
    assert!(show.contains("over the board"), "{show}");
    assert!(show.contains(&format!("/tournaments/{id}/print")), "{show}");
    let round1 = boards(&show, 1);
    assert_eq!(round1.len(), 3, "{show}");
    // A round's results from standard input, one call; a bad file changes nothing.
    let (code, _, err) = run_with(
        &url,
        admin,
        &["tournament", "results", &id, "1", "-"],
        "1 1-0\n2 2-0\n",
    );
    assert_eq!(code, 1);
    assert!(err.contains("line 2") && err.contains("\"2 2-0\""), "{err}");
    let show = ok(&url, admin, &["tournament", "show", &id]);
    assert!(boards(&show, 1).iter().all(|b| b[2] == "-"), "{show}");
    let out = run_with(
        &url,
        admin,
        &["tournament", "results", &id, "1", "-"],
        "# round 1\n1 1-0\n2 1/2-1/2\n3 0-1\n",
    );
    assert_eq!(out.0, 0, "{}", out.2);
    assert!(out.1.contains("3 results entered"), "{}", out.1);
    // Entering another result on a board that has one names the correction command.
    let (code, _, err) = run(&url, admin, &["tournament", "result", &id, "1", "1", "0-1"]);
    assert_eq!(code, 1);
    assert!(
        err.contains(&format!("hanniball tournament correct {id} 1 1 0-1")),
        "{err}"
    );
    // Correct board 1 before round 2 is paired.
    let out = ok(
        &url,
        admin,
        &[
            "tournament",
            "correct",
            &id,
            "1",
            "1",
            "0-1",
            "--note",
            "sheet misread",
        ],
    );
    assert!(out.contains("1-0 corrected to 0-1"), "{out}");
    let agree = |board: &str, result: &str| {
        let show = ok(&url, admin, &["tournament", "show", &id]);
        let row = boards(&show, 1)
            .into_iter()
            .find(|b| b[0] == board)
            .expect("the board");
        assert_eq!(row[2], result, "{show}");
        let white = row[1].clone();
        let black = row[3].clone();
        // The game says the same: the result the organiser reported over the board.
        let game = ok(&url, admin, &["game", "show", &row[4]]);
        assert!(
            game.contains(&format!("game over: {result} over-the-board")),
            "{game}"
        );
        // The standings and the TRF follow; the rating history says what changed.
        let standings = ok(&url, admin, &["tournament", "standings", &id]);
        let trf = ok(&url, admin, &["tournament", "export", &id]);
        let parsed = hanniball_pairing::trf::read(
            trf.as_bytes(),
            &hanniball_pairing::trf::ReadOptions::default(),
        )
        .expect("the export reads")
        .tournament;
        let score = |name: &str| {
            let p = parsed
                .players
                .iter()
                .find(|p| p.name == name)
                .expect("in the TRF");
            parsed.score(p.id).to_string()
        };
        let (w, b) = match result {
            "1-0" => ("1.0", "0.0"),
            "0-1" => ("0.0", "1.0"),
            "1/2-1/2" => ("0.5", "0.5"),
            "+/-" => ("1.0", "0.0"),
            _ => ("0.0", "1.0"),
        };
        assert!(
            score(&white).starts_with(w) || parsed.rounds_paired() > 1,
            "{trf}"
        );
        assert!(
            score(&black).starts_with(b) || parsed.rounds_paired() > 1,
            "{trf}"
        );
        assert!(standings.contains(&white), "{standings}");
        (white, black)
    };
    let (white, black) = agree("1", "0-1");
    let history = ok(&url, admin, &["ratings", "history", &white]);
    assert!(history.contains("result corrected"), "{history}");
    let history = ok(&url, admin, &["ratings", "history", &black]);
    assert!(history.contains("result corrected"), "{history}");
    // Round 2 is paired; then board 2 of round 1 is corrected: its pairings stand.
    ok(&url, admin, &["tournament", "pair", &id]);
    let before = boards(&ok(&url, admin, &["tournament", "show", &id]), 2);
    let out = ok(
        &url,
        admin,
        &["tournament", "correct", &id, "1", "2", "1-0"],
    );
    assert!(out.contains("pairings stand"), "{out}");
    agree("2", "1-0");
    let show = ok(&url, admin, &["tournament", "show", &id]);
    assert_eq!(boards(&show, 2), before, "{show}");
    assert!(
        show.contains("sheet misread") && show.contains("after the next round"),
        "{show}"
    );
    // The file of a round under way is not imported: it says which round to finish first.
    let file = dir.join("club.trf");
    std::fs::write(&file, ok(&url, admin, &["tournament", "export", &id])).expect("write");
    let file_arg = file.to_str().expect("path");
    let (code, _, err) = run(&url, admin, &["tournament", "import", file_arg]);
    assert_eq!(code, 1);
    assert!(
        err.contains("round 2") && err.contains("without a result"),
        "{err}"
    );
    // Round 2 over, the file is imported as a new tournament (its players found by name), which
    // pairs round 3 as the original does.
    run_with(
        &url,
        admin,
        &["tournament", "results", &id, "2", "-"],
        "1 1-0\n2 0-1\n3 1/2-1/2\n",
    );
    std::fs::write(&file, ok(&url, admin, &["tournament", "export", &id])).expect("write");
    // Round 2 was paired before round 1's second correction: the check names it, and the
    // organiser takes the pairings as they were made.
    let import = [
        "tournament",
        "import",
        file_arg,
        "--name",
        "Copy",
        "--manual",
    ];
    let (code, _, err) = run(&url, admin, &import);
    assert_eq!(code, 1);
    assert!(
        err.contains("round 2") && err.contains("--accept-differences"),
        "{err}"
    );
    let mut accepted = import.to_vec();
    accepted.push("--accept-differences");
    let out = ok(&url, admin, &accepted);
    assert!(out.contains("6 players, 2 rounds played of 3"), "{out}");
    assert!(!out.contains("registered"), "{out}");
    let copy = out
        .lines()
        .find_map(|l| l.strip_prefix("tournament "))
        .and_then(|l| l.split_whitespace().next())
        .expect("the new id")
        .to_owned();
    ok(&url, admin, &["tournament", "pair", &id]);
    ok(&url, admin, &["tournament", "pair", &copy]);
    let third = |t: &str| {
        let mut pairs: Vec<(String, String)> =
            boards(&ok(&url, admin, &["tournament", "show", t]), 3)
                .into_iter()
                .map(|b| (b[1].clone(), b[3].clone()))
                .collect();
        pairs.sort();
        pairs
    };
    assert_eq!(third(&id), third(&copy));
    assert_eq!(third(&id).len(), 3);
    // Refusals name the input: an unknown result, a round not paired yet.
    let (code, _, err) = run(
        &url,
        admin,
        &["tournament", "correct", &id, "1", "3", "2-0"],
    );
    assert_eq!(code, 1);
    assert!(err.contains("\"2-0\""), "{err}");
    let (code, _, err) = run(&url, admin, &["tournament", "result", &id, "4", "1", "1-0"]);
    assert_eq!(code, 1);
    assert!(
        err.contains("round 4") && err.contains("not paired yet"),
        "{err}"
    );
}

#[test]
fn organisers_run_their_own_tournaments_with_their_own_tokens() {
    let dir = data_dir("organisers");
    let (_server, url) = serve(&dir, &[]);
    let admin = std::fs::read_to_string(dir.join("admin-token")).expect("admin token");
    let admin = admin.trim();
    for name in ["ann", "ben", "cat", "dan"] {
        ok(&url, admin, &["player", "register", name]);
    }
    let create = ["tournament", "create", "Olga's night", "--rounds", "1"];
    let create = [&create[..], &["--manual", "--over-the-board"]].concat();
    // A player's token, before the right: no `organise`, no tournament.
    let olga = token_in(&ok(&url, admin, &["player", "register", "olga"]));
    let (code, _, err) = run(&url, &olga, &create);
    assert_eq!(code, 1);
    assert!(err.contains("`organise`"), "{err}");

    // The admin grants the right; a token issued then holds it.
    let out = ok(&url, admin, &["player", "organiser", "olga", "--grant"]);
    assert!(
        out.contains("olga") && out.contains("is now an organiser"),
        "{out}"
    );
    let olga = token_in(&ok(&url, admin, &["player", "token", "olga"]));
    let mut others = Vec::new();
    for name in ["petra", "carl"] {
        ok(&url, admin, &["player", "register", name]);
        ok(&url, admin, &["player", "organiser", name, "--grant"]);
        others.push(token_in(&ok(&url, admin, &["player", "token", name])));
    }
    let [petra, carl] = <[String; 2]>::try_from(others).expect("two");
    let id = created(&ok(&url, &olga, &create));
    ok(
        &url,
        &olga,
        &["tournament", "add", &id, "ann", "ben", "cat", "dan"],
    );
    let out = ok(
        &url,
        &olga,
        &["tournament", "organisers", &id, "add", "petra"],
    );
    assert!(out.contains("organisers: olga, petra"), "{out}");
    let show = ok(&url, &carl, &["tournament", "show", &id]);
    assert!(show.contains("organisers: olga, petra"), "{show}");

    // Another organiser is refused, naming why, and nothing changes.
    for args in [
        &["tournament", "start", id.as_str()][..],
        &["tournament", "delete", &id],
        &["tournament", "organisers", &id, "add", "carl"],
        &["tournament", "add", &id, "olga"],
    ] {
        let (code, _, err) = run(&url, &carl, args);
        assert_eq!(code, 1, "{args:?}");
        assert!(
            err.contains(&format!("you do not organise tournament {id}")),
            "{args:?}: {err}"
        );
    }
    assert_eq!(ok(&url, &carl, &["tournament", "show", &id]), show);

    // The co-organiser starts it, the owner enters a result; started, it is kept.
    ok(&url, &petra, &["tournament", "start", &id]);
    ok(&url, &olga, &["tournament", "result", &id, "1", "1", "1-0"]);
    let (code, _, err) = run(&url, &olga, &["tournament", "delete", &id]);
    assert_eq!(code, 1);
    assert!(err.contains("has started"), "{err}");
    let spare = created(&ok(&url, &olga, &create));
    let out = ok(&url, &olga, &["tournament", "delete", &spare]);
    assert!(
        out.contains(&format!("tournament {spare} deleted")),
        "{out}"
    );
    let (code, _, _) = run(&url, admin, &["tournament", "show", &spare]);
    assert_eq!(code, 1, "deleted");

    // Petra leaves; the right taken away ends olga's at once.
    let out = ok(
        &url,
        &petra,
        &["tournament", "organisers", &id, "remove", "petra"],
    );
    assert!(out.contains("organisers: olga"), "{out}");
    let out = ok(&url, admin, &["player", "organiser", "olga", "--revoke"]);
    assert!(out.contains("is no longer an organiser"), "{out}");
    let (code, _, err) = run(&url, &olga, &create);
    assert_eq!(code, 1);
    assert!(err.contains("`organise`"), "{err}");
    let (code, _, err) = run(&url, &olga, &["tournament", "result", &id, "1", "2", "1-0"]);
    assert_eq!(code, 1);
    assert!(err.contains("`organise`"), "{err}");
}
