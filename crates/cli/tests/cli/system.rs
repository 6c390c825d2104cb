//! The whole system through the binary: the demo (a Swiss tournament among reference bots), a bot
//! that resumes its game after the server is killed and restarted, and the three services as
//! separate processes playing a tournament to the end (on PostgreSQL when configured).

use crate::common::{self, http_get, wait_for};
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};

const ADMIN: &str = "system-test-admin-token";

fn temp_dir(name: &str) -> PathBuf {
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos());
    let dir = std::env::temp_dir().join(format!("hb-{name}-{}-{nanos}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    dir
}

fn hanniball(args: &[&str]) -> Output {
    common::hanniball_as(ADMIN, args)
}

fn ok(args: &[&str]) -> String {
    common::ok_as(ADMIN, args)
}

/// A server process that is killed when dropped.
struct Server(Child);

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// Starts `hanniball serve` on `port` (0: any free port; a restart reuses the first one); waits
/// for its "serving" line and returns the server and its URL.
fn serve(dir: &Path, port: u16) -> (Server, String) {
    let listen = format!("127.0.0.1:{port}");
    let mut command = Command::new(env!("CARGO_BIN_EXE_hanniball"));
    command
        .args(["serve", "--listen", &listen])
        .env("HANNIBALL__DATA_DIR", dir)
        .env("HANNIBALL__AUTH__ADMIN_TOKEN", ADMIN)
        .env("HANNIBALL__MATCHMAKING__TICK_MS", "100")
        .stdout(Stdio::piped())
        .stderr(Stdio::from(
            std::fs::File::create(dir.join(format!("log-{port}"))).expect("log file"),
        ));
    let mut child = command.spawn().expect("the binary starts");
    let stdout = child.stdout.take().expect("stdout");
    let mut line = String::new();
    BufReader::new(stdout)
        .read_line(&mut line)
        .expect("a first line");
    if !line.starts_with("hanniball serving on") {
        let tail = common::log_tail(&dir.join(format!("log-{port}")));
        panic!("unexpected {line:?}; the server's log ends:\n{tail}");
    }
    let url = line.trim()["hanniball serving on ".len()..].to_owned();
    (Server(child), url)
}

/// Registers a bot; returns its token.
fn register(server: &str, name: &str) -> String {
    register_with_id(server, name).1
}

/// Registers a bot; returns its id and token.
fn register_with_id(server: &str, name: &str) -> (String, String) {
    let out = ok(&["player", "register", name, "--bot", "--server", server]);
    let id = out
        .split_whitespace()
        .nth(1)
        .unwrap_or_else(|| panic!("no id in {out:?}"))
        .to_owned();
    let token = out
        .split_whitespace()
        .find(|w| w.starts_with("hb_"))
        .unwrap_or_else(|| panic!("no token in {out:?}"))
        .to_owned();
    (id, token)
}

fn bot(server: &str, token: &str, strategy: &str, games: u32) -> Server {
    let child = Command::new(env!("CARGO_BIN_EXE_hanniball"))
        .args([
            "bot",
            "run",
            "--server",
            server,
            "--token",
            token,
            "--strategy",
            strategy,
            "--think-ms",
            "20",
            "--games",
            &games.to_string(),
        ])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("the bot starts");
    Server(child)
}

#[test]
fn the_demo_runs_a_swiss_tournament_among_bots_and_rates_it() {
    let dir = temp_dir("demo");
    let out = ok(&[
        "demo",
        "--per-strategy",
        "1",
        "--rounds",
        "2",
        "--time",
        "10+0.1",
        "--think-ms",
        "20",
        "--data-dir",
        dir.to_str().expect("utf-8"),
        "--exit",
        "--fast",
    ]);
    assert!(out.contains("final standings after 2 rounds"), "{out}");
    assert!(out.contains("Watch it live: http://"), "{out}");
    // How to point the CLI at it, with the admin token saved for the owner only.
    let token = dir.join("admin-token");
    assert!(
        out.contains("export HANNIBALL_SERVER=http://")
            && out.contains(&format!("$(cat {})", token.display())),
        "{out}"
    );
    let saved = std::fs::read_to_string(&token).expect("the admin token file");
    assert!(saved.trim().len() >= 32, "{saved}");
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(&token)
            .expect("metadata")
            .permissions()
            .mode();
        assert_eq!(mode & 0o777, 0o600, "{mode:o}");
    }
    let standings: Vec<&str> = out
        .lines()
        .skip_while(|l| !l.starts_with("rank"))
        .skip(1)
        .take_while(|l| !l.trim().is_empty())
        .collect();
    assert_eq!(standings.len(), 3, "{out}");
    // Three players, two rounds: one game per round and a bye worth a win.
    let points: f64 = standings
        .iter()
        .map(|l| {
            l.split_whitespace()
                .nth(2)
                .expect("points")
                .parse::<f64>()
                .expect("number")
        })
        .sum();
    assert!((points - 4.0).abs() < 1e-9, "{out}");
    let changes: Vec<i64> = out
        .lines()
        .skip_while(|l| !(l.starts_with("player") && l.contains("before")))
        .skip(1)
        .take_while(|l| !l.trim().is_empty())
        .map(|l| {
            l.split_whitespace()
                .nth(3)
                .expect("change")
                .parse::<i64>()
                .expect("number")
        })
        .collect();
    assert_eq!(changes.len(), 3, "{out}");
    // Elo between players with the same K is zero-sum; and games were rated.
    assert_eq!(changes.iter().sum::<i64>(), 0, "{out}");
    assert!(changes.iter().any(|c| *c != 0), "{out}");
}

/// What a person sees: `hanniball demo` (no `--exit`) prints one URL; its pages show the
/// tournament while it runs and its rounds as they are paired, then the final standings and every
/// player's new rating on the ladder, and stay up until Ctrl-C.
#[test]
fn the_demo_s_pages_follow_the_tournament_and_show_the_new_ratings() {
    let dir = temp_dir("demo-web");
    let metrics = format!("127.0.0.1:{}", common::free_port());
    let mut child = Command::new(env!("CARGO_BIN_EXE_hanniball"))
        .args(["demo", "--per-strategy", "1", "--rounds", "3"])
        // Bots that think a while: the rounds last seconds, so the page is seen while they run.
        .args([
            "--time",
            "30+0.5",
            "--think-ms",
            "400",
            "--fast",
            "--data-dir",
        ])
        .arg(&dir)
        .env("HANNIBALL__SERVER__WEB_LISTEN", "127.0.0.1:0")
        .env("HANNIBALL__SERVER__METRICS_LISTEN", &metrics)
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("the demo starts");
    let stdout = child.stdout.take().expect("stdout");
    let mut demo = Server(child);
    let (sender, lines) = std::sync::mpsc::channel::<String>();
    std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines() {
            let Ok(line) = line else { break };
            if sender.send(line).is_err() {
                break;
            }
        }
    });
    let mut out = String::new();
    // Reads the demo's output up to the line starting with `prefix`.
    let mut read_to = |prefix: &str| -> String {
        loop {
            let line = lines
                .recv_timeout(std::time::Duration::from_secs(300))
                .unwrap_or_else(|_| panic!("no {prefix:?} line in:\n{out}"));
            out.push_str(&line);
            out.push('\n');
            if line.starts_with(prefix) {
                return line;
            }
        }
    };
    // The metrics address `serve` honours, and how to point the CLI at the demo.
    assert_eq!(
        read_to("metrics on "),
        format!("metrics on http://{metrics}/metrics")
    );
    let server = read_to("  export HANNIBALL_SERVER=")
        .trim()
        .trim_start_matches("export HANNIBALL_SERVER=")
        .to_owned();
    let line = read_to("Watch it live: http://");
    let web = line["Watch it live: http://".len()..]
        .trim_end_matches('/')
        .to_owned();
    wait_for(60, "the tournament on the home page", || {
        http_get(&web, "/").1.contains("href=\"/tournaments/1\"")
    });
    // While it runs, the page shows the rounds paired so far; a later round appears by itself.
    wait_for(60, "the tournament running, live on its page", || {
        let (code, page) = http_get(&web, "/tournaments/1");
        code == 200 && page.contains("running") && page.contains("data-live")
    });
    wait_for(240, "round 3 on the tournament page", || {
        http_get(&web, "/tournaments/1")
            .1
            .contains("<h2>Round 3</h2>")
    });
    read_to("rating changes");
    read_to("player");
    let mut changes = Vec::new();
    loop {
        let line = read_to("");
        let cells: Vec<&str> = line.split_whitespace().collect();
        if cells.len() < 5 {
            break;
        }
        changes.push((
            cells[0].to_owned(),
            cells[2].to_owned(),
            cells[3].to_owned(),
        ));
    }
    assert_eq!(changes.len(), 3, "{out}");
    assert!(
        changes.iter().any(|(_, _, c)| c != "+0"),
        "games were rated: {out}"
    );
    read_to("The pages stay up");
    // The CLI, pointed at the demo with its saved admin token, reads the same tournament.
    let token = std::fs::read_to_string(dir.join("admin-token")).expect("the admin token");
    let standings = common::ok_as(
        token.trim(),
        &["tournament", "standings", "1", "--server", &server],
    );
    for (name, _, _) in &changes {
        assert!(standings.contains(name.as_str()), "{name}: {standings}");
    }
    let (code, scraped) = http_get(&metrics, "/metrics");
    assert_eq!(code, 200);
    assert!(
        scraped.contains("hanniball_rpc_requests_total"),
        "{scraped}"
    );
    // The ladder shows every player's new rating; the tournament page its final standings.
    let (code, ladder) = http_get(&web, "/ladders/hanniball");
    assert_eq!(code, 200, "{ladder}");
    // Names may break after a hyphen (`search-<wbr>1`): compare the text.
    let ladder = ladder.replace("<wbr>", "");
    for (name, after, _) in &changes {
        assert!(
            ladder.contains(&format!(">{name}</a></td><td>{after}")),
            "{name} at {after} on the ladder:\n{ladder}\n{out}"
        );
    }
    let (_, finished) = http_get(&web, "/tournaments/1");
    let finished = finished.replace("<wbr>", "");
    assert!(
        finished.contains("finished") && !finished.contains("data-live"),
        "{finished}"
    );
    for (name, _, _) in &changes {
        assert!(finished.contains(name.as_str()), "{name}: {finished}");
    }
    // Ctrl-C stops it cleanly.
    let pid = demo.0.id().to_string();
    assert!(
        Command::new("kill")
            .args(["-INT", &pid])
            .status()
            .expect("kill")
            .success()
    );
    read_to("demo database kept");
    assert!(demo.0.wait().expect("exit").success(), "{out}");
}

fn turns_played(server: &str, game: &str) -> u32 {
    let out = hanniball(&["game", "show", game, "--server", server]);
    let text = String::from_utf8_lossy(&out.stdout);
    text.lines()
        .filter_map(|l| l.trim().split_once(". "))
        .filter_map(|(n, _)| n.parse::<u32>().ok())
        .max()
        .unwrap_or(0)
}

#[test]
fn a_bot_resumes_its_game_after_the_server_is_killed_and_restarted() {
    let dir = temp_dir("resume");
    let (server, url) = serve(&dir, 0);
    let port: u16 = url
        .rsplit(':')
        .next()
        .and_then(|p| p.parse().ok())
        .expect("a port");
    let a = register(&url, "resumer-a");
    let b = register(&url, "resumer-b");
    ok(&[
        "game",
        "create",
        "--white",
        "resumer-a",
        "--black",
        "resumer-b",
        "--max-turns",
        "120",
        "--server",
        &url,
    ]);
    let mut bots = vec![bot(&url, &a, "random", 1), bot(&url, &b, "random", 1)];
    wait_for(60, "a few turns", || turns_played(&url, "1") >= 6);
    drop(server); // kill -9 while the game is on
    let before = turns_played(&url, "1");
    assert_eq!(before, 0, "the server is down");
    let (_server, _) = serve(&dir, port);
    // Both bots reconnect, resume from the current turn and play the game to its end.
    wait_for(120, "the bots to finish their game", || {
        bots.iter_mut()
            .all(|b| b.0.try_wait().expect("wait").is_some())
    });
    for b in &mut bots {
        assert!(b.0.wait().expect("exit").success());
    }
    let shown = ok(&["game", "show", "1", "--server", &url]);
    assert!(shown.contains("game over"), "{shown}");
}

#[test]
fn three_services_as_separate_processes_play_a_tournament() {
    let dir = temp_dir("split");
    let database = match std::env::var("HANNIBALL_TEST_POSTGRES_URL") {
        Ok(base) if !base.is_empty() => tokio::runtime::Runtime::new()
            .expect("runtime")
            .block_on(hanniball_db::testing::postgres_url(&base))
            .expect("a fresh PostgreSQL database"),
        _ => format!("sqlite://{}?mode=rwc", dir.join("shared.sqlite").display()),
    };
    ok(&["migrate", "--database", &database]);
    // Each on a port of its own choosing (a port picked in advance can be taken by a client's
    // ephemeral port meanwhile), started in the order they need each other: the arbiter needs no
    // other service, rating calls the arbiter, the scheduler calls both.
    let common_env = [
        ("HANNIBALL__DATABASE__URL", database.as_str()),
        ("HANNIBALL__AUTH__ADMIN_TOKEN", ADMIN),
        ("HANNIBALL__MATCHMAKING__TICK_MS", "100"),
    ];
    let (_arbiter, arbiter_url) =
        common::serve_args(&dir.join("arbiter"), &["--only", "arbiter"], &common_env);
    let (_rating, rating_url) = common::serve_args(
        &dir.join("rating"),
        &["--only", "rating"],
        &[
            common_env.as_slice(),
            &[("HANNIBALL__SERVICES__ARBITER_URL", &arbiter_url)],
        ]
        .concat(),
    );
    let (_scheduler, scheduler_url) = common::serve_args(
        &dir.join("scheduler"),
        &["--only", "scheduler"],
        &[
            common_env.as_slice(),
            &[
                ("HANNIBALL__SERVICES__ARBITER_URL", &arbiter_url),
                ("HANNIBALL__SERVICES__RATING_URL", &rating_url),
            ],
        ]
        .concat(),
    );
    let names = ["split-1", "split-2", "split-3", "split-4"];
    let mut bots = Vec::new();
    let mut ids = Vec::new();
    for (i, name) in names.iter().enumerate() {
        let (id, token) = register_with_id(&arbiter_url, name);
        ids.push(id);
        let strategy = if i % 2 == 0 { "greedy" } else { "random" };
        bots.push(bot(&arbiter_url, &token, strategy, 0));
    }
    let created = ok(&[
        "tournament",
        "create",
        "Split",
        "--rounds",
        "3",
        "--time",
        "30+0.5",
        "--rated",
        "--server",
        &scheduler_url,
    ]);
    let id = created
        .split_whitespace()
        .nth(1)
        .expect("tournament id")
        .to_owned();
    // Players by id: names are resolved by the Accounts service, which the arbiter's process serves.
    let mut add = vec!["tournament", "add", id.as_str()];
    add.extend(ids.iter().map(String::as_str));
    add.extend(["--server", &scheduler_url]);
    ok(&add);
    ok(&["tournament", "start", &id, "--server", &scheduler_url]);
    wait_for(240, "the tournament to finish", || {
        ok(&["tournament", "show", &id, "--server", &scheduler_url]).contains("finished")
    });
    let standings = ok(&["tournament", "standings", &id, "--server", &scheduler_url]);
    assert!(
        standings.contains("standings after 3 rounds"),
        "{standings}"
    );
    let trf = ok(&["tournament", "export", &id, "--server", &scheduler_url]);
    let parsed = hanniball_pairing::trf::parse(&trf).expect("the export is a TRF");
    assert_eq!(parsed.rounds_paired(), 3);
    assert!(hanniball_pairing::check(&parsed).is_empty(), "{trf}");
    // The rating service (its own process) took the six rated games from the arbiter's outbox.
    wait_for(30, "the ratings", || {
        let top = ok(&["ratings", "top", "--json", "--server", &rating_url]);
        names.iter().all(|n| top.contains(n))
    });
}
