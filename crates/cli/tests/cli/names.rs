//! Players registered with the names people write (any script), shown and exported as written,
//! and found by the command line however the name was typed.

use std::process::Command;

use crate::common::{data_dir, serve};

/// Runs `hanniball args... --server URL --token TOKEN`; returns (exit code, stdout, stderr).
fn run(url: &str, token: &str, args: &[&str]) -> (i32, String, String) {
    let output = Command::new(env!("CARGO_BIN_EXE_hanniball"))
        .args(args)
        .args(["--server", url, "--token", token])
        .output()
        .expect("the binary runs");
    (
        output.status.code().unwrap_or(-1),
        String::from_utf8(output.stdout).expect("UTF-8 output"),
        String::from_utf8_lossy(&output.stderr).into_owned(),
    )
}

#[test]
fn a_club_registers_its_players_with_their_real_names() {
    let dir = data_dir("names");
    let (_server, url) = serve(&dir, &[]);
    let admin = std::fs::read_to_string(dir.join("admin-token")).expect("admin token");
    let admin = admin.trim();
    let names = ["Zoë_Ünal", "Müller", "Nguyễn Văn An", "李明"];
    let mut ids = Vec::new();
    for name in names {
        let (code, out, err) = run(&url, admin, &["player", "register", name]);
        assert_eq!(code, 0, "{name}: {err}");
        assert!(
            out.starts_with("player ") && out.contains(&format!("({name}) registered")),
            "{out}"
        );
        ids.push(out.split_whitespace().nth(1).expect("id").to_owned());
    }
    // Typed with spaces around it, the name is stored trimmed; a name that hides its direction
    // or an invisible character is refused with what it holds, and nothing is registered.
    let (code, out, err) = run(&url, admin, &["player", "register", "  Ольга Петрова "]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("(Ольга Петрова) registered"), "{out}");
    for (bad, why) in [
        ("Eve\u{202E}evE".to_string(), "bidirectional control U+202E"),
        (
            "Ad\u{200B}min".to_string(),
            "invisible format character U+200B",
        ),
        ("x".repeat(41), "at most 40"),
    ] {
        let (code, _, err) = run(&url, admin, &["player", "register", &bad]);
        assert_eq!(code, 1, "{bad:?} refused");
        assert!(err.contains(why), "{bad:?}: {err}");
    }
    let (_, list, _) = run(&url, admin, &["player", "list"]);
    assert!(!list.contains("Eve") && !list.contains("Admin"), "{list}");

    // Found by part of the name with a read-only token, case ignored in any script.
    let (code, out, err) = run(
        &url,
        admin,
        &["player", "token", "Müller", "--scope", "read"],
    );
    assert_eq!(code, 0, "{err}");
    let reader = out
        .split_whitespace()
        .find(|w| w.starts_with("hb_"))
        .expect("a token")
        .to_owned();
    for (query, name) in [
        (vec!["ünal"], "Zoë_Ünal"),
        (vec!["NGUYỄN", "an"], "Nguyễn Văn An"),
        (vec!["李"], "李明"),
        (vec!["петрова"], "Ольга Петрова"),
    ] {
        let mut args = vec!["player", "search"];
        args.extend(query.iter().copied());
        let (code, out, err) = run(&url, &reader, &args);
        assert_eq!(code, 0, "{query:?}: {err}");
        let rows: Vec<&str> = out.lines().skip(1).collect();
        assert_eq!(rows.len(), 1, "{query:?}: {out}");
        assert!(rows[0].contains(name), "{query:?}: {out}");
    }
    let (code, out, _) = run(&url, &reader, &["player", "search", "nobody"]);
    assert_eq!((code, out.trim()), (0, "no player found"));
    let (code, out, _) = run(&url, &reader, &["player", "search", "n", "--limit", "1"]);
    assert_eq!(code, 0);
    assert!(out.contains("more players match"), "{out}");
    let (code, _, err) = run(&url, &reader, &["player", "search", &"x".repeat(101)]);
    assert_eq!(code, 1);
    assert!(err.contains("100 characters"), "{err}");

    // Found by name, however the accents were typed (here a combining diaeresis).
    let (code, out, err) = run(&url, admin, &["player", "token", "Mu\u{308}ller"]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("hb_"), "{out}");
    let (code, _, err) = run(&url, admin, &["player", "token", "Nguyễn Văn An"]);
    assert_eq!(code, 0, "{err}");

    // A Swiss tournament: the TRF export (UTF-8) and the standings carry the names as written.
    let (code, out, err) = run(
        &url,
        admin,
        &["tournament", "create", "Club night", "--rounds", "3"],
    );
    assert_eq!(code, 0, "{err}");
    let tid = out
        .split_whitespace()
        .nth(1)
        .expect("tournament id")
        .to_owned();
    let mut add = vec!["tournament", "add", tid.as_str()];
    add.extend(ids.iter().map(String::as_str));
    let (code, _, err) = run(&url, admin, &add);
    assert_eq!(code, 0, "{err}");
    let (code, _, err) = run(&url, admin, &["tournament", "start", &tid]);
    assert_eq!(code, 0, "{err}");
    let (code, trf, err) = run(&url, admin, &["tournament", "export", &tid]);
    assert_eq!(code, 0, "{err}");
    // Round 1 is under way: the export has it unfinished (its games without results).
    let parsed = hanniball_pairing::trf::read(
        trf.as_bytes(),
        &hanniball_pairing::trf::ReadOptions::default(),
    )
    .expect("the export reads back")
    .tournament;
    let exported: Vec<&str> = parsed.players.iter().map(|p| p.name.as_str()).collect();
    for name in names {
        assert!(exported.contains(&name), "{name} in {exported:?}");
        assert!(
            trf.lines()
                .any(|l| l.starts_with("001") && l.contains(name)),
            "{trf}"
        );
    }
    let (code, standings, err) = run(&url, admin, &["tournament", "standings", &tid]);
    assert_eq!(code, 0, "{err}");
    for name in names {
        assert!(standings.contains(name), "{name}: {standings}");
    }
}
