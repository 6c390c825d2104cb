//! Messages that name what was typed and say what to do, at the command line against a live
//! server (issue: the CLI talks to people).

use std::process::Command;

use crate::common::{data_dir, serve};

fn run(url: &str, token: &str, args: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_hanniball"))
        .args(args)
        .args(["--server", url, "--token", token])
        .output()
        .expect("runs");
    let err = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(!err.contains("panicked"), "{args:?}: {err}");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8(out.stdout).expect("UTF-8"),
        err,
    )
}

fn ok(url: &str, token: &str, args: &[&str]) -> String {
    let (code, out, err) = run(url, token, args);
    assert_eq!(code, 0, "{args:?}: {err}");
    out
}

fn refused(url: &str, token: &str, args: &[&str]) -> String {
    let (code, _, err) = run(url, token, args);
    assert_eq!(code, 1, "{args:?} should be refused");
    err
}

#[test]
fn errors_name_the_input_and_say_what_to_do() {
    let dir = data_dir("messages");
    let (_server, url) = serve(&dir, &[]);
    let admin = std::fs::read_to_string(dir.join("admin-token")).expect("admin token");
    let admin = admin.trim();
    for name in ["ann", "ben", "cat", "李明"] {
        ok(&url, admin, &["player", "register", name]);
    }
    // Times as people read them, not milliseconds.
    let out = ok(
        &url,
        admin,
        &["player", "token", "ann", "--expires-in", "3600"],
    );
    assert!(out.contains(" UTC") && !out.contains("ms since"), "{out}");
    let out = ok(&url, admin, &["player", "tokens", "ann"]);
    assert!(out.contains(" UTC") && out.contains("expires"), "{out}");
    // The admin token asked for "me": what to do instead.
    let err = refused(&url, admin, &["player", "tokens"]);
    assert!(
        err.contains("admin's") && err.contains("tokens alice"),
        "{err}"
    );
    // A time control written another way: the text and the form.
    let err = refused(
        &url,
        admin,
        &[
            "game", "create", "--white", "ann", "--black", "ben", "--time", "5min",
        ],
    );
    assert!(
        err.contains("\"5min\"") && err.contains("INITIAL+INCREMENT"),
        "{err}"
    );
    // An unknown name: the name and how to find players.
    let err = refused(
        &url,
        admin,
        &["game", "create", "--white", "ann", "--black", "bne"],
    );
    assert!(
        err.contains("\"bne\"") && err.contains("player search"),
        "{err}"
    );
    // A control character: its code point and what to do, not a message cut short.
    let err = refused(&url, admin, &["tournament", "create", "Club\u{7} night"]);
    assert!(err.contains("U+0007"), "{err}");
    // Games are listed and shown with their players' names, in aligned columns.
    ok(
        &url,
        admin,
        &["game", "create", "--white", "ann", "--black", "李明"],
    );
    let list = ok(&url, admin, &["game", "list"]);
    assert!(list.contains("ann") && list.contains("李明"), "{list}");
    let show = ok(&url, admin, &["game", "show", "1"]);
    assert!(show.contains("white ann vs black 李明"), "{show}");
    let players = ok(&url, admin, &["player", "list"]);
    let kind_column: Vec<usize> = players
        .lines()
        .map(|l| {
            let at = l.rfind(['b', 'h', 'k']).unwrap_or(0);
            unicode_width::UnicodeWidthStr::width(&l[..at])
        })
        .collect();
    assert!(kind_column.windows(2).all(|w| w[0] == w[1]), "{players}");
    // --late-entry implies --self-entry, as its help says.
    let out = ok(
        &url,
        admin,
        &[
            "tournament",
            "create",
            "Open",
            "--rounds",
            "3",
            "--late-entry",
        ],
    );
    let id = out.split_whitespace().nth(1).expect("id").to_owned();
    ok(
        &url,
        admin,
        &["tournament", "add", &id, "ann", "ben", "cat"],
    );
    ok(&url, admin, &["tournament", "start", &id]);
    // A second withdrawal is refused, as README says; an entrant who is not one is named.
    ok(&url, admin, &["tournament", "withdraw", &id, "cat"]);
    let err = refused(&url, admin, &["tournament", "withdraw", &id, "cat"]);
    assert!(err.contains("already withdrawn"), "{err}");
    let err = refused(&url, admin, &["tournament", "withdraw", &id, "李明"]);
    assert!(err.contains(&format!("in tournament {id}")), "{err}");
    // A bye board is named as a bye.
    let show = ok(&url, admin, &["tournament", "show", &id]);
    let bye = show
        .lines()
        .skip_while(|l| *l != "round 1")
        .find(|l| l.contains(" bye"))
        .and_then(|l| l.split_whitespace().next())
        .expect("a bye board")
        .to_owned();
    let err = refused(
        &url,
        admin,
        &["tournament", "result", &id, "1", &bye, "1-0"],
    );
    assert!(err.contains("pairing-allocated bye"), "{err}");
    // A server that is down: said once, with what to check.
    let (code, _, err) = run("127.0.0.1:1", admin, &["player", "list"]);
    assert_eq!(code, 1);
    assert!(
        err.contains("cannot reach the server at http://127.0.0.1:1"),
        "{err}"
    );
    assert!(err.contains("is `hanniball serve` running there?"), "{err}");
    assert_eq!(err.matches("connect error").count(), 0, "{err}");
}

/// `migrate --only web` is refused (the pages have no tables) and creates no database.
#[test]
fn migrating_the_web_pages_is_refused_and_creates_nothing() {
    let dir = data_dir("migrate-web");
    let out = Command::new(env!("CARGO_BIN_EXE_hanniball"))
        .args(["migrate", "--only", "web"])
        .env("HANNIBALL__DATA_DIR", &dir)
        .output()
        .expect("runs");
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(err.contains("no tables"), "{err}");
    assert!(!dir.exists(), "a data directory was made");
}
