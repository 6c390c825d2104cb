//! `hanniball bot run` says what it does: a line when it connects, for each game it starts and
//! ends, and a summary; with the server down, within 2 s, that it cannot connect and when it
//! tries again; when a server it played on goes away and comes back. `--json` gives the same as
//! one object per line.

use std::io::{BufRead as _, BufReader, Read as _};
use std::process::{Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use crate::common::{KillOnDrop, data_dir, free_port, serve, serve_args};

fn run(url: &str, token: &str, args: &[&str]) -> String {
    let out = Command::new(env!("CARGO_BIN_EXE_hanniball"))
        .args(args)
        .args(["--server", url, "--token", token])
        .output()
        .expect("runs");
    assert!(
        out.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).expect("UTF-8")
}

/// `player register NAME --bot`: (name, token).
fn bot_player(url: &str, admin: &str, name: &str) -> String {
    let out = run(url, admin, &["player", "register", name, "--bot"]);
    out.lines()
        .find_map(|l| l.split(": ").nth(1).filter(|t| t.starts_with("hb_")))
        .expect("a token")
        .to_owned()
}

#[test]
fn a_bot_says_what_it_plays_and_sums_it_up() {
    let dir = data_dir("bot-runner");
    let (_server, url) = serve(&dir, &[]);
    let admin = std::fs::read_to_string(dir.join("admin-token")).expect("admin token");
    let admin = admin.trim();
    let white = bot_player(&url, admin, "talker");
    let black = bot_player(&url, admin, "listener");
    let spawn = |token: &str, extra: &[&str]| {
        let mut command = Command::new(env!("CARGO_BIN_EXE_hanniball"));
        command
            .args([
                "bot",
                "run",
                "--strategy",
                "random",
                "--games",
                "2",
                "--think-ms",
                "5",
            ])
            .args(extra)
            .args(["--server", &url, "--token", token])
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        KillOnDrop(command.spawn().expect("the bot starts"))
    };
    let mut text = spawn(&white, &[]);
    let mut json = spawn(&black, &["--json"]);
    std::thread::sleep(Duration::from_millis(500));
    for (w, b) in [("talker", "listener"), ("listener", "talker")] {
        run(
            &url,
            admin,
            &[
                "game",
                "create",
                "--white",
                w,
                "--black",
                b,
                "--time",
                "60+0",
                "--max-turns",
                "12",
            ],
        );
    }
    let wait = |bot: &mut KillOnDrop| {
        let deadline = Instant::now() + Duration::from_secs(60);
        loop {
            if let Some(status) = bot.0.try_wait().expect("wait") {
                assert!(status.success(), "the bot exited with {status}");
                break;
            }
            assert!(
                Instant::now() < deadline,
                "the bot did not finish its two games"
            );
            std::thread::sleep(Duration::from_millis(100));
        }
        let mut out = String::new();
        let mut err = String::new();
        bot.0
            .stdout
            .take()
            .expect("stdout")
            .read_to_string(&mut out)
            .expect("read");
        bot.0
            .stderr
            .take()
            .expect("stderr")
            .read_to_string(&mut err)
            .expect("read");
        (out, err)
    };
    let (_, said) = wait(&mut text);
    assert!(
        said.contains("connected to") && said.contains("as talker"),
        "{said}"
    );
    assert_eq!(
        said.matches("playing White against listener").count(),
        1,
        "{said}"
    );
    assert_eq!(
        said.matches("playing Black against listener").count(),
        1,
        "{said}"
    );
    // game N: RESULT REASON: won|drawn|lost as COLOUR against NAME after N turns, T left…
    let ends: Vec<&str> = said.lines().filter(|l| l.contains(" turns")).collect();
    assert_eq!(ends.len(), 2, "{said}");
    for end in ends {
        let (_, tail) = end.split_once(": ").expect("game N: …");
        let (result, tail) = tail.split_once(": ").expect("…: the result: …");
        assert!(
            ["1-0 ", "0-1 ", "1/2-1/2 "]
                .iter()
                .any(|r| result.starts_with(r)),
            "a result with its reason: {end}"
        );
        assert!(
            ["won as ", "drawn as ", "lost as "]
                .iter()
                .any(|s| tail.starts_with(s))
                && tail.contains(" against listener after "),
            "{end}"
        );
    }
    assert!(said.contains("left on its clock"), "{said}");
    assert!(
        said.lines()
            .last()
            .unwrap_or_default()
            .starts_with("2 games:"),
        "{said}"
    );
    assert!(
        !said.contains('\u{1b}') && !said.contains("panicked"),
        "{said}"
    );
    let (lines, _) = wait(&mut json);
    let events: Vec<&str> = lines
        .lines()
        .map(|l| {
            assert!(l.starts_with("{\"event\":\"") && l.ends_with('}'), "{l}");
            l.split('"').nth(3).expect("an event name")
        })
        .collect();
    assert_eq!(events.first(), Some(&"connected"), "{lines}");
    assert_eq!(
        events.iter().filter(|e| **e == "game_started").count(),
        2,
        "{lines}"
    );
    assert_eq!(
        events.iter().filter(|e| **e == "game_over").count(),
        2,
        "{lines}"
    );
    assert_eq!(events.last(), Some(&"summary"), "{lines}");
}

#[test]
fn a_bot_says_within_two_seconds_that_it_cannot_connect() {
    let port = free_port();
    let started = Instant::now();
    // --quiet keeps the errors (this one) and the summary.
    let mut bot = KillOnDrop(
        Command::new(env!("CARGO_BIN_EXE_hanniball"))
            .args(["bot", "run", "--quiet", "--token", "hb_nothing"])
            .args(["--server", &format!("127.0.0.1:{port}")])
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .expect("the bot starts"),
    );
    let mut stderr = bot.0.stderr.take().expect("stderr");
    let mut said = String::new();
    let mut buf = [0_u8; 256];
    while !said.contains('\n') {
        let n = stderr.read(&mut buf).expect("read");
        assert!(n > 0, "the bot said nothing");
        said.push_str(&String::from_utf8_lossy(&buf[..n]));
    }
    assert!(
        started.elapsed() < Duration::from_secs(2),
        "{:?}",
        started.elapsed()
    );
    assert!(
        said.starts_with(&format!("cannot reach http://127.0.0.1:{port}")),
        "{said}"
    );
    assert!(said.contains("trying again in 1 s"), "{said}");
    let status = Command::new("kill")
        .args(["-TERM", &bot.0.id().to_string()])
        .status()
        .expect("kill");
    assert!(status.success());
    stderr.read_to_string(&mut said).expect("read");
    let last = said.lines().last().unwrap_or_default();
    assert_eq!(last, "0 games: 0 won, 0 drawn, 0 lost", "{said}");
    assert!(
        said.lines()
            .all(|l| l.starts_with("cannot reach ") || l == last),
        "{said}"
    );
}

/// The lines a process writes to a pipe, as they come.
fn lines(pipe: impl std::io::Read + Send + 'static) -> mpsc::Receiver<String> {
    let (send, receive) = mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(pipe).lines() {
            let Ok(line) = line else { break };
            if send.send(line).is_err() {
                break;
            }
        }
    });
    receive
}

/// Reads lines until one satisfies `wanted` (panics, with what was said, if none does within a
/// minute: a guard against a hang, not a timing check).
fn wait_for(said: &mpsc::Receiver<String>, all: &mut Vec<String>, wanted: &str) -> String {
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        let left = deadline.saturating_duration_since(Instant::now());
        match said.recv_timeout(left) {
            Ok(line) => {
                all.push(line.clone());
                if line.contains(wanted) {
                    return line;
                }
            }
            Err(_) => panic!("no line with {wanted:?}; the bot said:\n{}", all.join("\n")),
        }
    }
}

#[test]
fn a_bot_says_when_its_server_goes_and_comes_back_and_sums_up_on_sigterm() {
    let dir = data_dir("bot-runner-outage");
    let port = free_port();
    let listen = format!("127.0.0.1:{port}");
    let (server, url) = serve_args(&dir, &["--listen", &listen], &[]);
    let admin = std::fs::read_to_string(dir.join("admin-token")).expect("admin token");
    let token = bot_player(&url, admin.trim(), "steadfast");
    let mut bot = KillOnDrop(
        Command::new(env!("CARGO_BIN_EXE_hanniball"))
            .args(["bot", "run", "--strategy", "random"])
            .args(["--server", &url, "--token", &token])
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .expect("the bot starts"),
    );
    let said = lines(bot.0.stderr.take().expect("stderr"));
    let mut all = Vec::new();
    wait_for(&said, &mut all, "connected to");
    drop(server);
    let lost = wait_for(&said, &mut all, "lost the connection to");
    assert!(
        lost.starts_with(&format!("lost the connection to {url} ("))
            && lost.contains("reconnecting in 0.2 s"),
        "{lost}"
    );
    let down = wait_for(&said, &mut all, "cannot reach");
    assert!(
        down.starts_with(&format!("cannot reach {url} ("))
            && down.contains("trying again in 0.4 s"),
        "{down}"
    );
    let (_server, again) = serve_args(&dir, &["--listen", &listen], &[]);
    assert_eq!(again, url);
    let back = wait_for(&said, &mut all, "connected again");
    assert_eq!(
        back,
        format!("connected again to {url}; no game in progress")
    );
    let status = Command::new("kill")
        .args(["-TERM", &bot.0.id().to_string()])
        .status()
        .expect("kill");
    assert!(status.success());
    let summary = wait_for(&said, &mut all, " games: ");
    assert_eq!(summary, "0 games: 0 won, 0 drawn, 0 lost");
    let status = bot.0.wait().expect("the bot ends");
    assert!(status.success(), "{status}");
    assert!(
        !all.iter()
            .any(|l| l.contains("panicked") || l.contains("tonic::")),
        "{}",
        all.join("\n")
    );
}

#[test]
fn a_rate_limited_bot_waits_as_the_server_asks_and_finishes_its_game() {
    let dir = data_dir("bot-runner-rate");
    // Two calls a second per token: connecting alone (WhoAmI, WatchPlayer, ListGames) is over.
    let (_server, url) = serve(
        &dir,
        &[
            ("HANNIBALL__SERVER__CALLS_PER_SECOND", "2"),
            ("HANNIBALL__SERVER__BURST", "2"),
        ],
    );
    let admin = std::fs::read_to_string(dir.join("admin-token")).expect("admin token");
    let admin = admin.trim();
    let bots: Vec<_> = ["patient", "prudent"]
        .iter()
        .map(|name| {
            let token = bot_player(&url, admin, name);
            let mut bot = KillOnDrop(
                Command::new(env!("CARGO_BIN_EXE_hanniball"))
                    .args(["bot", "run", "--strategy", "random", "--games", "1"])
                    .args(["--think-ms", "5", "--server", &url, "--token", &token])
                    .stdout(Stdio::null())
                    .stderr(Stdio::piped())
                    .spawn()
                    .expect("the bot starts"),
            );
            let said = lines(bot.0.stderr.take().expect("stderr"));
            (bot, said)
        })
        .collect();
    run(
        &url,
        admin,
        &[
            "game",
            "create",
            "--white",
            "patient",
            "--black",
            "prudent",
            "--time",
            "60+0",
            "--max-turns",
            "12",
        ],
    );
    for (mut bot, said) in bots {
        let mut all = Vec::new();
        wait_for(&said, &mut all, "1 game: ");
        let status = bot.0.wait().expect("the bot ends");
        assert!(status.success(), "{status}: {}", all.join("\n"));
        let text = all.join("\n");
        // "[game N: ]rate limit: …; retry after T; trying again in T as the server asks"
        let waits: Vec<&String> = all
            .iter()
            .filter(|l| l.ends_with(" as the server asks"))
            .collect();
        assert!(!waits.is_empty(), "never rate-limited:\n{text}");
        assert!(
            waits
                .iter()
                .all(|l| l.contains("rate limit: ") && l.contains("; trying again in ")),
            "{text}"
        );
        assert!(
            !text.contains("lost the connection") && !text.contains("cannot reach"),
            "a rate limit taken for an outage:\n{text}"
        );
        let ends = all
            .iter()
            .filter(|l| l.contains(" against ") && l.contains(" turns"))
            .count();
        assert_eq!(ends, 1, "{text}");
    }
}
