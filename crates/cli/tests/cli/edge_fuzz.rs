//! The gRPC edge under arbitrary requests: every RPC of every service (found in the proto
//! descriptors, so a new RPC is covered without touching this file) gets generated requests
//! (arbitrary and mutated-valid field values, raw byte mutations, oversized fields), with no
//! token, a garbage token, a player's token and the admin's, against a real `hanniball serve`.
//! Every answer must be a code the README's error table documents for that RPC, the server log
//! must show no panic, and the game played before the storm must still be there, unchanged.
//!
//! `EDGE_FUZZ_REQUESTS=N` sets the number of requests (default 3,000).
//!
//! A second test holds the server to its abuse limits: a flood of bad tokens, a caller over its
//! rate, too many open streams; good clients keep being served.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;
use std::time::Duration;

use crate::common::{authed, data_dir, register_two, serve};

use hanniball_proto::accounts::v1 as apb;
use hanniball_proto::accounts::v1::accounts_client::AccountsClient;
use hanniball_proto::arbiter::v1 as pb;
use hanniball_proto::arbiter::v1::arbiter_client::ArbiterClient;
use hanniball_rng::Rng;
use prost::Message;
use prost::bytes::{Buf, BufMut};
use prost_reflect::{
    DescriptorPool, DynamicMessage, FieldDescriptor, Kind, MessageDescriptor, Value,
};
use tonic::Request;
use tonic::codec::{Codec, DecodeBuf, Decoder, EncodeBuf, Encoder};
use tonic::transport::Channel;

/// Raw bytes in and out: the requests are encoded here, whatever their type.
#[derive(Clone, Default)]
struct Raw;

impl Codec for Raw {
    type Encode = Vec<u8>;
    type Decode = Vec<u8>;
    type Encoder = Raw;
    type Decoder = Raw;
    fn encoder(&mut self) -> Raw {
        Raw
    }
    fn decoder(&mut self) -> Raw {
        Raw
    }
}

impl Encoder for Raw {
    type Item = Vec<u8>;
    type Error = tonic::Status;
    fn encode(&mut self, item: Vec<u8>, dst: &mut EncodeBuf<'_>) -> Result<(), tonic::Status> {
        dst.put_slice(&item);
        Ok(())
    }
}

impl Decoder for Raw {
    type Item = Vec<u8>;
    type Error = tonic::Status;
    fn decode(&mut self, src: &mut DecodeBuf<'_>) -> Result<Option<Vec<u8>>, tonic::Status> {
        let mut out = vec![0; src.remaining()];
        src.copy_to_slice(&mut out);
        Ok(Some(out))
    }
}

/// The README's error table: codes every call may return, and each RPC's own.
fn documented_codes() -> (BTreeSet<String>, BTreeMap<String, BTreeSet<String>>) {
    let readme = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../../README.md"))
        .expect("README");
    let mut common = BTreeSet::new();
    let mut per_rpc = BTreeMap::new();
    for line in readme.lines() {
        let cells: Vec<&str> = line.split('|').map(str::trim).collect();
        if cells.len() < 4 || !cells[1].starts_with('`') {
            continue;
        }
        let name = cells[1].trim_matches('`');
        let codes: BTreeSet<String> = cells[2]
            .split(',')
            .map(|c| c.trim().trim_matches('`').to_owned())
            .filter(|c| c.chars().all(|ch| ch.is_ascii_uppercase() || ch == '_') && !c.is_empty())
            .collect();
        if name == "every call" {
            common = codes;
        } else if name.contains('/') {
            per_rpc.insert(name.to_owned(), codes);
        }
    }
    (common, per_rpc)
}

fn code_name(code: tonic::Code) -> String {
    format!("{code:?}")
        .chars()
        .fold(String::new(), |mut out, c| {
            if c.is_uppercase() && !out.is_empty() {
                out.push('_');
            }
            out.push(c.to_ascii_uppercase());
            out
        })
        .replace("O_K", "OK")
}

/// Plausible and hostile values for one field.
fn value(rng: &mut Rng, field: &FieldDescriptor, ids: &[i64], depth: u32) -> Value {
    match field.kind() {
        Kind::Int64 | Kind::Sint64 | Kind::Sfixed64 => Value::I64(match rng.below(6) {
            0 => 0,
            1 => -1,
            2 => i64::MAX,
            3 => i64::MIN,
            4 => rng.next_u64() as i64,
            _ => ids[rng.below(ids.len())],
        }),
        Kind::Int32 | Kind::Sint32 | Kind::Sfixed32 => Value::I32(match rng.below(5) {
            0 => 0,
            1 => -1,
            2 => i32::MAX,
            3 => i32::MIN,
            _ => rng.below(3000) as i32,
        }),
        Kind::Uint32 | Kind::Fixed32 => Value::U32(match rng.below(5) {
            0 => 0,
            1 => 1,
            2 => u32::MAX,
            3 => rng.next_u64() as u32,
            _ => rng.below(20) as u32,
        }),
        Kind::Uint64 | Kind::Fixed64 => Value::U64(match rng.below(3) {
            0 => 0,
            1 => u64::MAX,
            _ => rng.below(20) as u64,
        }),
        Kind::Bool => Value::Bool(rng.chance(50)),
        Kind::Float => Value::F32([0.0, -1.0, f32::NAN, f32::INFINITY, 1500.0][rng.below(5)]),
        Kind::Double => {
            Value::F64([0.0, -1.0, f64::NAN, f64::INFINITY, 1500.0, 1e300][rng.below(6)])
        }
        Kind::String => Value::String(text(rng)),
        Kind::Bytes => Value::Bytes(text(rng).into_bytes().into()),
        Kind::Enum(e) => {
            let values: Vec<i32> = e.values().map(|v| v.number()).collect();
            Value::EnumNumber(if rng.chance(80) {
                values[rng.below(values.len())]
            } else {
                rng.next_u64() as i32
            })
        }
        Kind::Message(m) => Value::Message(message(rng, &m, ids, depth + 1)),
    }
}

fn text(rng: &mut Rng) -> String {
    const PLAUSIBLE: [&str; 16] = [
        "",
        "d4-c6",
        "d12-c10",
        "d4-d3",
        "hanniball",
        "paper-football",
        "standard",
        "white",
        "black",
        "1-0",
        "0-1",
        "1/2-1/2",
        "hanniball/untimed",
        "elo",
        "x",
        "a1-a2,b3-b4",
    ];
    match rng.below(8) {
        0 => "é\u{0}\u{202e}🎲\n\t\"'".repeat(1 + rng.below(4)),
        1 => "x".repeat([65, 129, 257, 1_001, 5_000, 100_000][rng.below(6)]),
        2 => (0..rng.below(40))
            .map(|_| char::from(32 + rng.below(95) as u8))
            .collect(),
        _ => PLAUSIBLE[rng.below(PLAUSIBLE.len())].to_owned(),
    }
}

fn message(rng: &mut Rng, desc: &MessageDescriptor, ids: &[i64], depth: u32) -> DynamicMessage {
    let mut m = DynamicMessage::new(desc.clone());
    if depth > 3 {
        return m;
    }
    for field in desc.fields() {
        if !rng.chance(70) {
            continue;
        }
        let v = if field.is_list() {
            let n = if rng.chance(5) { 2_000 } else { rng.below(4) };
            Value::List((0..n).map(|_| value(rng, &field, ids, depth)).collect())
        } else if field.is_map() {
            continue;
        } else {
            value(rng, &field, ids, depth)
        };
        m.set_field(&field, v);
    }
    m
}

/// The encoded request, sometimes mangled at the byte level.
fn mangle(rng: &mut Rng, mut bytes: Vec<u8>) -> Vec<u8> {
    match rng.below(10) {
        0 if !bytes.is_empty() => {
            for _ in 0..1 + rng.below(4) {
                let i = rng.below(bytes.len());
                bytes[i] = rng.next_u64() as u8;
            }
        }
        1 => bytes.truncate(rng.below(bytes.len() + 1)),
        // A string field (number 1..=9) holding invalid UTF-8.
        2 => {
            let field = 1 + rng.below(9) as u8;
            bytes.extend_from_slice(&[(field << 3) | 2, 3, 0xff, 0xfe, 0xc0]);
        }
        3 => bytes.extend((0..rng.below(64)).map(|_| rng.next_u64() as u8)),
        _ => {}
    }
    bytes
}

async fn call(
    channel: &Channel,
    path: &str,
    streaming: bool,
    body: Vec<u8>,
    token: Option<&str>,
) -> tonic::Status {
    let ok = || tonic::Status::ok("");
    let mut grpc = tonic::client::Grpc::new(channel.clone());
    if grpc.ready().await.is_err() {
        return tonic::Status::unavailable("channel not ready");
    }
    let request = match token {
        Some(t) => authed(body, t),
        None => Request::new(body),
    };
    let path: tonic::codegen::http::uri::PathAndQuery = path.parse().expect("path");
    if streaming {
        match grpc.server_streaming(request, path, Raw).await {
            Ok(response) => {
                let mut stream = response.into_inner();
                // Read what comes at once; an open stream is a good answer.
                match tokio::time::timeout(Duration::from_millis(20), stream.message()).await {
                    Ok(Err(status)) => status,
                    _ => ok(),
                }
            }
            Err(status) => status,
        }
    } else {
        match grpc.unary(request, path, Raw).await {
            Ok(_) => ok(),
            Err(status) => status,
        }
    }
}

/// Registers two players and starts a game between them; returns (tokens, ids, game id).
async fn set_up(url: &str, admin: &str) -> (Vec<String>, Vec<i64>, i64) {
    let mut arbiter = ArbiterClient::connect(url.to_owned())
        .await
        .expect("connect");
    let (tokens, ids) = register_two(url, admin).await;
    let game = arbiter
        .create_game(authed(
            pb::CreateGameRequest {
                white_player_id: ids[0],
                black_player_id: ids[1],
                ..Default::default()
            },
            admin,
        ))
        .await
        .expect("create")
        .into_inner()
        .game
        .expect("game")
        .id;
    arbiter
        .submit_turn(authed(
            pb::SubmitTurnRequest {
                game_id: game,
                turn_number: 1,
                turn: "d4-c6".to_owned(),
            },
            &tokens[0],
        ))
        .await
        .expect("first turn");
    (tokens, ids, game)
}

async fn game_state(url: &str, token: &str, game: i64) -> pb::Game {
    let mut arbiter = ArbiterClient::connect(url.to_owned())
        .await
        .expect("connect");
    arbiter
        .get_game(authed(pb::GetGameRequest { game_id: game }, token))
        .await
        .expect("get game")
        .into_inner()
        .game
        .expect("game")
}

fn assert_no_panic(dir: &Path) {
    let log = std::fs::read_to_string(dir.join("log")).expect("log");
    for line in log.lines() {
        assert!(
            !line.contains("\"panic\"") && !line.contains("panicked"),
            "the server panicked: {line}"
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_rpc_answers_arbitrary_requests_with_a_documented_code() {
    // On SQLite, and on PostgreSQL too when the tests have one: the databases differ in what
    // text they accept (PostgreSQL refuses NUL), and either must answer a client's mistake.
    let mut databases = vec![None];
    if let Some(base) = hanniball_db::testing::postgres_base_url() {
        let url = hanniball_db::testing::postgres_url(&base).await.expect(
            "HANNIBALL_TEST_POSTGRES_URL is set, so PostgreSQL must accept CREATE DATABASE",
        );
        databases.push(Some(url));
    }
    for database in databases {
        eprintln!(
            "database: {}",
            database.as_deref().unwrap_or("SQLite (default)")
        );
        storm(database.as_deref()).await;
    }
}

async fn storm(database: Option<&str>) {
    let dir = data_dir("edge-fuzz");
    // No rate limits here: the storm comes from one token; the limits have their own test.
    let mut env = vec![
        ("HANNIBALL__SERVER__CALLS_PER_SECOND", "0"),
        ("HANNIBALL__SERVER__FAILED_AUTH_PER_MINUTE", "0"),
        ("HANNIBALL__MATCHMAKING__TICK_MS", "100000"),
    ];
    if let Some(url) = database {
        env.push(("HANNIBALL__DATABASE__URL", url));
    }
    let (child, url) = serve(&dir, &env);
    let admin = std::fs::read_to_string(dir.join("admin-token")).expect("admin token");
    let admin = admin.trim().to_owned();
    let (tokens, mut ids, game) = set_up(&url, &admin).await;
    ids.push(game);
    let before = game_state(&url, &admin, game).await;

    let pool = DescriptorPool::decode(hanniball_proto::FILE_DESCRIPTOR_SET).expect("descriptors");
    let methods: Vec<(String, MessageDescriptor, bool)> = pool
        .services()
        .filter(|s| s.full_name().starts_with("hanniball."))
        .flat_map(|s| {
            s.methods()
                .map(|m| {
                    (
                        format!("/{}/{}", s.full_name(), m.name()),
                        m.input(),
                        m.is_server_streaming(),
                    )
                })
                .collect::<Vec<_>>()
        })
        .collect();
    assert!(methods.len() >= 40, "found only {} RPCs", methods.len());
    let (common, documented) = documented_codes();
    assert!(
        !common.is_empty(),
        "the README lists the codes of every call"
    );
    for (path, _, _) in &methods {
        let short = path.rsplit('.').next().unwrap_or(path);
        assert!(
            documented.contains_key(short),
            "the README's error table has no row for {short}"
        );
    }

    let requests: usize = std::env::var("EDGE_FUZZ_REQUESTS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(3_000);
    let channel = Channel::from_shared(url.clone())
        .expect("url")
        .connect()
        .await
        .expect("connect");
    let mut rng = Rng::new(0x005e_ed0f_ed9e);
    let mut seen: BTreeMap<String, usize> = BTreeMap::new();
    let mut undocumented: BTreeSet<String> = BTreeSet::new();
    let mut internal: Vec<String> = Vec::new();
    // Mutating calls that could legitimately change the watched game are skipped for it.
    let changes_games = [
        "SubmitTurn",
        "Resign",
        "OfferDraw",
        "AcceptDraw",
        "DeclineDraw",
        "AbortGame",
        "AdjudicateGame",
        "CorrectResult",
    ];
    for i in 0..requests {
        let (path, input, streaming) = &methods[i % methods.len()];
        let short = path.rsplit('.').next().unwrap_or(path).to_owned();
        let mut m = message(&mut rng, input, &ids, 0);
        if changes_games.iter().any(|c| short.ends_with(c))
            && let Some(f) = input.get_field_by_name("game_id")
            && m.get_field(&f).as_i64() == Some(game)
        {
            m.set_field(&f, Value::I64(game + 1_000));
        }
        let body = mangle(&mut rng, m.encode_to_vec());
        let token = match rng.below(5) {
            0 => None,
            1 => Some("hb_garbage".to_owned()),
            2 => Some(admin.clone()),
            _ => Some(tokens[rng.below(2)].clone()),
        };
        let status = call(&channel, path, *streaming, body, token.as_deref()).await;
        let name = code_name(status.code());
        // INTERNAL is documented for bugs; arbitrary input must never reach one.
        if status.code() == tonic::Code::Internal {
            internal.push(format!("{short}: {}", status.message()));
        }
        let allowed = name == "OK"
            || common.contains(&name)
            || documented.get(&short).is_some_and(|c| c.contains(&name));
        if !allowed {
            undocumented.insert(format!("{short} answered {name}"));
        }
        *seen.entry(name).or_default() += 1;
    }
    assert!(internal.is_empty(), "INTERNAL answers: {internal:?}");
    assert!(
        undocumented.is_empty(),
        "answers the README's error table does not list: {undocumented:?}"
    );
    // The storm reached the services, not only the edge.
    assert!(
        seen.get("OK").copied().unwrap_or(0) > requests / 50,
        "{seen:?}"
    );
    assert!(seen.contains_key("INVALID_ARGUMENT"), "{seen:?}");
    assert!(seen.contains_key("UNAUTHENTICATED"), "{seen:?}");

    // The watched game is unchanged and still plays (with a fresh token: the storm's admin
    // calls may have revoked black's).
    let after = game_state(&url, &admin, game).await;
    assert_eq!(before, after, "the game changed during the storm");
    let mut accounts = AccountsClient::connect(url.clone()).await.expect("connect");
    let black = accounts
        .issue_token(authed(
            apb::IssueTokenRequest {
                player_id: ids[1],
                ..Default::default()
            },
            &admin,
        ))
        .await
        .expect("a token for black")
        .into_inner()
        .token
        .expect("token")
        .token;
    let mut arbiter = ArbiterClient::connect(url.clone()).await.expect("connect");
    arbiter
        .submit_turn(authed(
            pb::SubmitTurnRequest {
                game_id: game,
                turn_number: 2,
                turn: "d12-c10".to_owned(),
            },
            &black,
        ))
        .await
        .expect("the game goes on");
    // What is stored replays to the same position on a fresh start.
    let live = game_state(&url, &admin, game).await;
    drop(child);
    assert_no_panic(&dir);
    std::fs::rename(dir.join("log"), dir.join("log.1")).expect("keep the first log");
    let (child, url) = serve(&dir, &env);
    let replayed = game_state(&url, &admin, game).await;
    assert_eq!(
        live.state, replayed.state,
        "the stored game replays to another position"
    );
    assert_eq!(live.turns, replayed.turns);
    drop(child);
    eprintln!("{requests} requests: {seen:?}");
    std::fs::remove_dir_all(&dir).ok();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn floods_are_refused_and_good_clients_are_served() {
    let dir = data_dir("edge-limits");
    let (child, url) = serve(
        &dir,
        &[
            ("HANNIBALL__SERVER__CALLS_PER_SECOND", "20"),
            ("HANNIBALL__SERVER__BURST", "20"),
            ("HANNIBALL__SERVER__OPEN_CALLS", "4"),
            ("HANNIBALL__SERVER__FAILED_AUTH_PER_MINUTE", "10"),
        ],
    );
    let admin = std::fs::read_to_string(dir.join("admin-token")).expect("admin token");
    let admin = admin.trim().to_owned();
    let (tokens, _, game) = set_up(&url, &admin).await;
    let mut arbiter = ArbiterClient::connect(url.clone()).await.expect("connect");

    // One caller over its rate: refused with a hint, another caller unaffected.
    let mut limited = None;
    for _ in 0..60 {
        if let Err(status) = arbiter
            .get_game(authed(pb::GetGameRequest { game_id: game }, &tokens[1]))
            .await
        {
            assert_eq!(status.code(), tonic::Code::ResourceExhausted, "{status:?}");
            assert!(
                status.message().contains("rate limit"),
                "{}",
                status.message()
            );
            limited = Some(status);
            break;
        }
    }
    let status = limited.expect("the rate limit holds");
    assert!(status.metadata().get("grpc-retry-pushback-ms").is_some());
    // The admin token (what the services call each other with) is not rate limited.
    for _ in 0..60 {
        arbiter
            .get_game(authed(pb::GetGameRequest { game_id: game }, &admin))
            .await
            .expect("the admin is not rate limited");
    }

    // A flood of made-up tokens: refused as such, then the address is cut off for them...
    let mut exhausted = None;
    for i in 0..40 {
        let r = arbiter
            .get_game(authed(
                pb::GetGameRequest { game_id: game },
                &format!("hb_bad{i}"),
            ))
            .await;
        let status = r.expect_err("a made-up token is refused");
        match status.code() {
            tonic::Code::Unauthenticated => {}
            tonic::Code::ResourceExhausted => {
                exhausted = Some(status);
                break;
            }
            other => panic!("made-up token answered {other:?}"),
        }
    }
    let status = exhausted.expect("the failed-auth cap cut the flood off");
    assert!(
        status.message().contains("retry after"),
        "{}",
        status.message()
    );
    assert!(status.metadata().get("retry-after").is_some());
    // ... but a player whose token was accepted before is still served from that address.
    arbiter
        .get_game(authed(pb::GetGameRequest { game_id: game }, &tokens[0]))
        .await
        .expect("a good client is served during the flood");

    // Open streams per caller are capped; closing one frees its place.
    tokio::time::sleep(Duration::from_secs(1)).await;
    let mut streams = Vec::new();
    for _ in 0..4 {
        let s = arbiter
            .watch_player(authed(pb::WatchPlayerRequest::default(), &tokens[0]))
            .await
            .expect("a stream within the cap");
        streams.push(s.into_inner());
    }
    let refused = arbiter
        .watch_player(authed(pb::WatchPlayerRequest::default(), &tokens[0]))
        .await
        .expect_err("a fifth stream is refused");
    assert_eq!(refused.code(), tonic::Code::ResourceExhausted);
    assert!(
        refused.message().contains("open calls"),
        "{}",
        refused.message()
    );
    streams.pop();
    tokio::time::sleep(Duration::from_millis(300)).await;
    arbiter
        .watch_player(authed(pb::WatchPlayerRequest::default(), &tokens[0]))
        .await
        .expect("a closed stream frees its place");

    drop(child);
    assert_no_panic(&dir);
    std::fs::remove_dir_all(&dir).ok();
}
