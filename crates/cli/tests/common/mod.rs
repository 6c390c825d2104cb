//! What the tests that run `hanniball serve` as a process share: a fresh data directory, starting
//! the binary on a free port, bearer metadata, and two registered bot players.

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};

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
/// (its log, as JSON, goes to `<dir>/log`); returns the child and its URL.
pub fn serve(dir: &Path, env: &[(&str, &str)]) -> (Child, String) {
    std::fs::create_dir_all(dir).expect("data dir");
    let log = std::fs::File::create(dir.join("log")).expect("log file");
    let mut command = Command::new(env!("CARGO_BIN_EXE_hanniball"));
    command
        .args(["serve", "--listen", "127.0.0.1:0"])
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
        .unwrap_or_else(|| panic!("unexpected first line {line:?}"))
        .to_owned();
    (child, url)
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
