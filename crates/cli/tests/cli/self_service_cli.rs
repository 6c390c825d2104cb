//! `hanniball` as a player would use it with its own token: enter and leave a tournament open for
//! entry, issue and list its own tokens; a closed tournament refuses it (exit 1).

use crate::common::{created, data_dir, register_two, serve};

use std::process::Command;

/// Runs `hanniball args... --server URL --token TOKEN`; returns (exit code, stdout, stderr).
fn run(url: &str, token: &str, args: &[&str]) -> (i32, String, String) {
    let output = Command::new(env!("CARGO_BIN_EXE_hanniball"))
        .args(args)
        .args(["--server", url, "--token", token])
        .output()
        .expect("the binary runs");
    (
        output.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&output.stdout).into_owned(),
        String::from_utf8_lossy(&output.stderr).into_owned(),
    )
}

#[tokio::test]
async fn a_player_enters_leaves_and_manages_its_tokens_from_the_command_line() {
    let dir = data_dir("self-service-cli");
    let (_server, url) = serve(&dir, &[]);
    let admin = std::fs::read_to_string(dir.join("admin-token")).expect("admin token");
    let admin = admin.trim();
    let (tokens, _) = register_two(&url, admin).await;
    let me = &tokens[0];

    let (code, out, err) = run(
        &url,
        admin,
        &["tournament", "create", "Open", "--self-entry"],
    );
    assert_eq!(code, 0, "{err}");
    let open = created(&out);
    let (code, out, err) = run(&url, admin, &["tournament", "create", "Closed"]);
    assert_eq!(code, 0, "{err}");
    let closed = created(&out);

    let (code, out, err) = run(&url, me, &["tournament", "enter", &open]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(out.trim(), format!("entered tournament {open} as white"));
    let (code, _, err) = run(&url, me, &["tournament", "enter", &closed]);
    assert_eq!(code, 1, "refused: {err}");
    assert!(err.contains("not open for entry"), "{err}");
    let (code, out, err) = run(&url, me, &["tournament", "leave", &open]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("the entry is gone"), "{out}");

    let (code, out, err) = run(&url, me, &["player", "token", "me", "--scope", "read"]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("scopes: read"), "{out}");
    let (code, out, err) = run(&url, me, &["player", "tokens"]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("this token"), "{out}");
    assert!(out.contains("play,queue,read,tokens"), "{out}");
    assert!(!out.contains("hb_"), "never a token's secret: {out}");
}
