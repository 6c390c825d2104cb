//! What the tests that run `hanniball serve` as a process share: a fresh data directory, starting
//! the binary on a free port, bearer metadata, and two registered bot players.
#![allow(dead_code)] // each test file uses some of these

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};

use hanniball_proto::accounts::v1 as apb;
use hanniball_proto::accounts::v1::accounts_client::AccountsClient;
use tonic::Request;

/// A fresh data directory under the system's temp dir, named after `tag`.
pub fn data_dir(tag: &str) -> PathBuf {
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos());
    std::env::temp_dir().join(format!("hanniball-{tag}-{}-{nanos}", std::process::id()))
}

/// Starts `hanniball serve` on a free port with `dir` as its data directory and `env` on top
/// (its log, as JSON, goes to `<dir>/log`); returns the child (killed when dropped) and its URL.
pub fn serve(dir: &Path, env: &[(&str, &str)]) -> (KillOnDrop, String) {
    serve_args(dir, &[], env)
}

/// [`serve`] with more arguments (`--listen` among them replaces the free loopback port).
pub fn serve_args(dir: &Path, args: &[&str], env: &[(&str, &str)]) -> (KillOnDrop, String) {
    std::fs::create_dir_all(dir).expect("data dir");
    let log = std::fs::File::create(dir.join("log")).expect("log file");
    let mut command = Command::new(env!("CARGO_BIN_EXE_hanniball"));
    command.arg("serve").args(args);
    if !args.contains(&"--listen") {
        command.args(["--listen", "127.0.0.1:0"]);
    }
    command
        .env("HANNIBALL__DATA_DIR", dir)
        .env("HANNIBALL__LOG__FORMAT", "json")
        .stdout(Stdio::piped())
        .stderr(Stdio::from(log));
    for (k, v) in env {
        command.env(k, v);
    }
    let mut child = command.spawn().expect("the binary starts");
    let stdout = child.stdout.take().expect("stdout");
    let mut line = String::new();
    BufReader::new(stdout)
        .read_line(&mut line)
        .expect("a first line");
    let url = line
        .trim()
        .strip_prefix("hanniball serving on ")
        .unwrap_or_else(|| {
            let tail = log_tail(&dir.join("log"));
            panic!("unexpected first line {line:?}; the server's log ends:\n{tail}")
        })
        .to_owned();
    (KillOnDrop(child), url)
}

/// The web pages alone (`serve --only web`, data in `dir`) on a free port, calling every service
/// at `api` with `token` (as deployed: a `read` token); returns the process and the pages'
/// address.
pub fn web_only(dir: &Path, api: &str, token: &str) -> (KillOnDrop, String) {
    let web = format!("127.0.0.1:{}", free_port());
    let env = [
        ("HANNIBALL__SERVER__WEB_LISTEN", web.as_str()),
        ("HANNIBALL__SERVICES__ARBITER_URL", api),
        ("HANNIBALL__SERVICES__SCHEDULER_URL", api),
        ("HANNIBALL__SERVICES__RATING_URL", api),
        ("HANNIBALL__WEB__TOKEN", token),
    ];
    let (process, _) = serve_args(dir, &["--only", "web"], &env);
    (process, web)
}

/// Issues a `read`-only token for player `name` with the admin token of the server at `url`.
pub fn read_token(url: &str, admin: &str, name: &str) -> String {
    let out = ok_as(
        admin,
        &["player", "token", name, "--scope", "read", "--server", url],
    );
    token_in(&out)
}

/// The token a command printed (`player register`, `player token`: shown once, `hb_…`).
pub fn token_in(out: &str) -> String {
    out.split_whitespace()
        .find(|w| w.starts_with("hb_"))
        .unwrap_or_else(|| panic!("no token in {out:?}"))
        .to_owned()
}

/// The tournament id from `tournament N created`.
pub fn created(stdout: &str) -> String {
    stdout
        .trim()
        .strip_prefix("tournament ")
        .and_then(|rest| rest.strip_suffix(" created"))
        .unwrap_or_else(|| panic!("unexpected output {stdout:?}"))
        .to_owned()
}

/// The last 3,000 characters of the log file at `path` (empty when there is none).
pub fn log_tail(path: &Path) -> String {
    let log = std::fs::read_to_string(path).unwrap_or_default();
    let skip = log.chars().count().saturating_sub(3000);
    log.chars().skip(skip).collect()
}

/// A served child that is killed when dropped, so a failing test leaves no server behind.
pub struct KillOnDrop(pub Child);

impl Drop for KillOnDrop {
    fn drop(&mut self) {
        self.0.kill().ok();
        self.0.wait().ok();
    }
}

/// `message` with `authorization: Bearer <token>` metadata.
pub fn authed<T>(message: T, token: &str) -> Request<T> {
    let mut request = Request::new(message);
    request.metadata_mut().insert(
        "authorization",
        format!("Bearer {token}").parse().expect("ascii"),
    );
    request
}

/// Registers the bots `white` and `black` with the admin token; returns (tokens, ids).
pub async fn register_two(url: &str, admin: &str) -> (Vec<String>, Vec<i64>) {
    let mut accounts = AccountsClient::connect(url.to_owned())
        .await
        .expect("connect");
    let mut tokens = Vec::new();
    let mut ids = Vec::new();
    for name in ["white", "black"] {
        let answer = accounts
            .register_player(authed(
                apb::RegisterPlayerRequest {
                    name: name.to_owned(),
                    kind: apb::PlayerKind::Bot as i32,
                    issue_token: true,
                },
                admin,
            ))
            .await
            .expect("register")
            .into_inner();
        ids.push(answer.player.expect("player").id);
        tokens.push(answer.token.expect("token").token);
    }
    (tokens, ids)
}

/// Runs the binary with `token` as `HANNIBALL_TOKEN` and `args`.
pub fn hanniball_as(token: &str, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_hanniball"))
        .args(args)
        .env("HANNIBALL_TOKEN", token)
        .output()
        .expect("the binary runs")
}

/// [`hanniball_as`], which must succeed; its stdout.
pub fn ok_as(token: &str, args: &[&str]) -> String {
    let out = hanniball_as(token, args);
    assert!(
        out.status.success(),
        "hanniball {args:?} failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).expect("utf-8")
}

/// Polls `check` every 100 ms for at most `seconds`.
pub fn wait_for(seconds: u64, what: &str, mut check: impl FnMut() -> bool) {
    let start = std::time::Instant::now();
    while start.elapsed() < std::time::Duration::from_secs(seconds) {
        if check() {
            return;
        }
        std::thread::sleep(std::time::Duration::from_millis(100));
    }
    panic!("timed out waiting for {what}");
}

/// A free loopback port (bound and let go: another process may take it, rarely).
pub fn free_port() -> u16 {
    // The kernel may hand the same free port to two binds in a row once the first is released;
    // the port is only bound later, by another process, so never give one out twice.
    static GIVEN: std::sync::Mutex<Vec<u16>> = std::sync::Mutex::new(Vec::new());
    let mut given = GIVEN.lock().expect("not poisoned");
    loop {
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .expect("a free port")
            .local_addr()
            .expect("addr")
            .port();
        if !given.contains(&port) {
            given.push(port);
            return port;
        }
    }
}

/// `hanniball serve` with two registered bots (`white`, `black`) and a game between them.
pub struct ServedGame {
    pub server: KillOnDrop,
    pub url: String,
    pub admin: String,
    pub arbiter:
        hanniball_proto::arbiter::v1::arbiter_client::ArbiterClient<tonic::transport::Channel>,
    /// White's and Black's tokens.
    pub tokens: Vec<String>,
    pub game: hanniball_proto::arbiter::v1::Game,
}

impl ServedGame {
    /// [`ServedGame::start`] with the web pages on a free port and a game of 5 minutes + 5 s;
    /// returns the pages' address too.
    pub async fn start_with_web(dir: &Path) -> (ServedGame, String) {
        let web = format!("127.0.0.1:{}", free_port());
        let served = ServedGame::start(
            dir,
            &[("HANNIBALL__SERVER__WEB_LISTEN", &web)],
            Some((300_000, 5_000)),
        )
        .await;
        (served, web)
    }

    /// Serves from `dir` with `env`, and creates a game (`time`: initial and increment in ms).
    pub async fn start(dir: &Path, env: &[(&str, &str)], time: Option<(i64, i64)>) -> ServedGame {
        use hanniball_proto::arbiter::v1 as pb;
        let (server, url) = serve(dir, env);
        let admin = std::fs::read_to_string(dir.join("admin-token")).expect("admin token");
        let admin = admin.trim().to_owned();
        let mut arbiter =
            hanniball_proto::arbiter::v1::arbiter_client::ArbiterClient::connect(url.clone())
                .await
                .expect("connect");
        let (tokens, ids) = register_two(&url, &admin).await;
        let game = arbiter
            .create_game(authed(
                pb::CreateGameRequest {
                    white_player_id: ids[0],
                    black_player_id: ids[1],
                    time_control: time.map(|(initial_ms, increment_ms)| pb::TimeControl {
                        initial_ms,
                        increment_ms,
                    }),
                    ..Default::default()
                },
                &admin,
            ))
            .await
            .expect("create")
            .into_inner()
            .game
            .expect("game");
        ServedGame {
            server,
            url,
            admin,
            arbiter,
            tokens,
            game,
        }
    }

    /// Another game between the same two players (`kind`: "hanniball" or "paper-football").
    pub async fn another_game(
        &mut self,
        kind: &str,
        rated: bool,
    ) -> hanniball_proto::arbiter::v1::Game {
        let request = authed(
            hanniball_proto::arbiter::v1::CreateGameRequest {
                kind: kind.to_owned(),
                white_player_id: self.game.white_player_id,
                black_player_id: self.game.black_player_id,
                rated,
                ..Default::default()
            },
            &self.admin,
        );
        self.arbiter
            .create_game(request)
            .await
            .expect("create")
            .into_inner()
            .game
            .expect("game")
    }

    /// Black resigns game `id` (White wins).
    pub async fn black_resigns(&mut self, id: i64) {
        let request = authed(
            hanniball_proto::arbiter::v1::ResignRequest { game_id: id },
            &self.tokens[1],
        );
        self.arbiter.resign(request).await.expect("black resigns");
    }

    /// Submits turn `number` for the side whose turn it is by number (odd: White).
    pub async fn play(
        &mut self,
        number: u32,
        turn: &str,
    ) -> Result<hanniball_proto::arbiter::v1::SubmitTurnResponse, tonic::Status> {
        self.play_in(self.game.id, number, turn).await
    }

    /// Each side makes one turn in HanniBall game `id`: a game both sides moved in is played,
    /// so rated if it is a rated game (README, "What is rated").
    pub async fn both_move(&mut self, id: i64) {
        for (number, turn) in [(1, "d4-c6"), (2, "d12-c10")] {
            self.play_in(id, number, turn).await.expect("turn");
        }
    }

    /// [`Self::play`] in game `id`.
    pub async fn play_in(
        &mut self,
        id: i64,
        number: u32,
        turn: &str,
    ) -> Result<hanniball_proto::arbiter::v1::SubmitTurnResponse, tonic::Status> {
        let request = authed(
            hanniball_proto::arbiter::v1::SubmitTurnRequest {
                game_id: id,
                turn_number: number,
                turn: turn.to_owned(),
            },
            &self.tokens[(number as usize + 1) % 2],
        );
        self.arbiter
            .submit_turn(request)
            .await
            .map(tonic::Response::into_inner)
    }
}

/// GET `path` from `addr` over plain HTTP/1.1 (a connection per request): the status code and the
/// body, de-chunked when the answer is chunked.
pub fn http_get(addr: &str, path: &str) -> (u16, String) {
    let (code, _, body) = http_get_with(addr, path, "");
    (code, body)
}

/// [`http_get`] with `extra` request headers (each line ending in `\r\n`): the status code, the
/// head in lower case and the body.
pub fn http_get_with(addr: &str, path: &str, extra: &str) -> (u16, String, String) {
    use std::io::{Read, Write};
    let mut stream = std::net::TcpStream::connect(addr).expect("connect");
    write!(
        stream,
        "GET {path} HTTP/1.1\r\nHost: {addr}\r\n{extra}Connection: close\r\n\r\n"
    )
    .expect("request");
    let mut answer = Vec::new();
    stream.read_to_end(&mut answer).expect("answer");
    let split = answer
        .windows(4)
        .position(|w| w == b"\r\n\r\n")
        .expect("an HTTP answer");
    let head = String::from_utf8_lossy(&answer[..split]).to_ascii_lowercase();
    let body = &answer[split + 4..];
    let code = head
        .split_whitespace()
        .nth(1)
        .and_then(|c| c.parse().ok())
        .expect("a status code");
    if !head.contains("transfer-encoding: chunked") {
        return (code, head, String::from_utf8(body.to_vec()).expect("UTF-8"));
    }
    // Chunk sizes count bytes: a chunk may end inside a character.
    let mut out = Vec::new();
    let mut rest = body;
    loop {
        let line = rest
            .windows(2)
            .position(|w| w == b"\r\n")
            .expect("chunk size");
        let size = std::str::from_utf8(&rest[..line]).expect("size");
        let size = usize::from_str_radix(size.trim(), 16).expect("hex size");
        if size == 0 {
            break;
        }
        out.extend_from_slice(&rest[line + 2..line + 2 + size]);
        rest = &rest[line + 4 + size..];
    }
    (code, head, String::from_utf8(out).expect("UTF-8"))
}

impl ServedGame {
    /// A one-round Swiss tournament `name` of the two players, started; its id.
    pub fn tournament(&self, name: &str) -> String {
        let url = self.url.as_str();
        let created = ok_as(
            &self.admin,
            &[
                "tournament",
                "create",
                name,
                "--rounds",
                "1",
                "--server",
                url,
            ],
        );
        let id = created.split_whitespace().nth(1).expect("id").to_owned();
        ok_as(
            &self.admin,
            &["tournament", "add", &id, "white", "black", "--server", url],
        );
        ok_as(&self.admin, &["tournament", "start", &id, "--server", url]);
        id
    }
}

/// Sets `name`'s password (`hanniball player password`, the password on standard input) with the
/// admin token of the server at `url`.
pub fn set_password(url: &str, admin: &str, name: &str, password: &str) {
    use std::io::Write as _;
    let mut child = Command::new(env!("CARGO_BIN_EXE_hanniball"))
        .args([
            "player", "password", name, "--server", url, "--token", admin,
        ])
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .spawn()
        .expect("the binary runs");
    child
        .stdin
        .take()
        .expect("stdin")
        .write_all(format!("{password}\n").as_bytes())
        .expect("password");
    assert!(
        child.wait().expect("waits").success(),
        "player password {name}"
    );
}
