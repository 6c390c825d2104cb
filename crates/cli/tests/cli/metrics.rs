//! `/metrics` on a served process (`server.metrics_listen`): the Prometheus text format, checked
//! line by line against the exposition grammar, with the RPC, turn, game, pool and consumer
//! metrics the operators' dashboard reads, moving as calls are made.

use crate::common::{self, ServedGame, authed, data_dir, free_port};

use std::collections::{BTreeMap, BTreeSet};

use hanniball_proto::arbiter::v1 as pb;
use hanniball_proto::arbiter::v1::arbiter_client::ArbiterClient;

/// GET `path` from the metrics listener, which must answer 200; the body.
fn get(addr: &str, path: &str) -> String {
    let (code, body) = common::http_get(addr, path);
    assert_eq!(code, 200, "{body}");
    body
}

fn name_ok(name: &str) -> bool {
    let mut chars = name.chars();
    chars
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_' || c == ':')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_' || c == ':')
}

/// Parses the Prometheus text format strictly enough to catch what a scraper refuses: every
/// sample's family has one TYPE line before it, names and labels are well formed, values are
/// numbers. Returns each sample (name with its sorted labels) and its value.
fn parse(text: &str) -> BTreeMap<String, f64> {
    let mut typed: BTreeMap<String, String> = BTreeMap::new();
    let mut samples = BTreeMap::new();
    for line in text.lines().filter(|l| !l.trim().is_empty()) {
        if let Some(comment) = line.strip_prefix("# ") {
            let mut words = comment.splitn(3, ' ');
            match (words.next(), words.next(), words.next()) {
                (Some("TYPE"), Some(name), Some(kind)) => {
                    assert!(name_ok(name), "bad family name in {line:?}");
                    assert!(
                        ["counter", "gauge", "histogram", "summary", "untyped"].contains(&kind),
                        "bad type in {line:?}"
                    );
                    assert!(
                        typed.insert(name.to_owned(), kind.to_owned()).is_none(),
                        "family {name} typed twice"
                    );
                }
                (Some("HELP"), Some(name), _) => assert!(name_ok(name), "{line:?}"),
                _ => {}
            }
            continue;
        }
        let (series, value) = line.rsplit_once(' ').expect("a sample is `series value`");
        let value: f64 = match value {
            "+Inf" => f64::INFINITY,
            "-Inf" => f64::NEG_INFINITY,
            v => v
                .parse()
                .unwrap_or_else(|_| panic!("bad value in {line:?}")),
        };
        let (name, labels) = match series.split_once('{') {
            Some((name, labels)) => {
                let labels = labels.strip_suffix('}').expect("labels end with }");
                let mut set = BTreeSet::new();
                for pair in labels.split(',').filter(|p| !p.is_empty()) {
                    let (key, quoted) = pair.split_once('=').expect("label=value");
                    assert!(name_ok(key) && !key.contains(':'), "bad label in {line:?}");
                    assert!(
                        quoted.len() >= 2 && quoted.starts_with('"') && quoted.ends_with('"'),
                        "unquoted label value in {line:?}"
                    );
                    set.insert(pair.to_owned());
                }
                (name, set.into_iter().collect::<Vec<_>>().join(","))
            }
            None => (series, String::new()),
        };
        assert!(name_ok(name), "bad sample name in {line:?}");
        let family = ["_bucket", "_sum", "_count"]
            .iter()
            .find_map(|suffix| {
                name.strip_suffix(suffix)
                    .filter(|base| typed.get(*base).is_some_and(|k| k == "histogram"))
            })
            .unwrap_or(name);
        assert!(
            typed.contains_key(family),
            "{name} has no TYPE line before it"
        );
        samples.insert(format!("{name}{{{labels}}}"), value);
    }
    samples
}

fn value(samples: &BTreeMap<String, f64>, key: &str) -> f64 {
    *samples
        .get(key)
        .unwrap_or_else(|| panic!("no {key} in {:#?}", samples.keys().collect::<Vec<_>>()))
}

#[tokio::test]
async fn metrics_scrape_cleanly_and_count_what_happens() {
    let metrics = format!("127.0.0.1:{}", free_port());
    let dir = data_dir("metrics-test");
    let mut served = ServedGame::start(
        &dir,
        &[("HANNIBALL__SERVER__METRICS_LISTEN", &metrics)],
        None,
    )
    .await;
    let (url, admin, game) = (
        served.url.clone(),
        served.admin.clone(),
        served.game.clone(),
    );
    let admin = admin.as_str();
    served.play(1, "d4-c6").await.expect("turn 1");
    served.play(2, "d12-c10").await.expect("turn 2");
    let refused = served.play(3, "not a turn").await.expect_err("malformed");
    assert_eq!(refused.code(), tonic::Code::InvalidArgument);

    let mut samples = BTreeMap::new();
    for _ in 0..100 {
        samples = parse(&get(&metrics, "/metrics"));
        if samples.contains_key("hanniball_db_connections{state=\"idle\"}") {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    }
    assert_eq!(
        value(
            &samples,
            "hanniball_rpc_requests_total{code=\"ok\",method=\"SubmitTurn\"}"
        ),
        2.0
    );
    assert_eq!(
        value(
            &samples,
            "hanniball_rpc_requests_total{code=\"invalid_argument\",method=\"SubmitTurn\"}"
        ),
        1.0
    );
    assert_eq!(
        value(
            &samples,
            "hanniball_rpc_duration_seconds_count{method=\"SubmitTurn\"}"
        ),
        3.0
    );
    assert_eq!(value(&samples, "hanniball_turns_committed_total{}"), 2.0);
    assert!(value(&samples, "hanniball_commit_batch_size_count{}") >= 3.0);
    assert!(value(&samples, "hanniball_games_loaded{}") >= 1.0);
    assert!(value(&samples, "hanniball_db_connections{state=\"idle\"}") >= 0.0);
    assert_eq!(
        value(&samples, "hanniball_outbox_lag{consumer=\"rating\"}"),
        0.0
    );

    // A stream is counted while it is open.
    let mut watcher = ArbiterClient::connect(url.clone()).await.expect("connect");
    let _stream = watcher
        .watch_game(authed(
            pb::WatchGameRequest {
                game_id: game.id,
                from_turn: 0,
            },
            admin,
        ))
        .await
        .expect("watch");
    let samples = parse(&get(&metrics, "/metrics"));
    assert_eq!(
        value(&samples, "hanniball_rpc_in_flight{method=\"WatchGame\"}"),
        1.0
    );
    // Calls to a method nobody serves share one label.
    let mut channel = tonic::client::Grpc::new(
        tonic::transport::Channel::from_shared(url.clone())
            .expect("url")
            .connect()
            .await
            .expect("connect"),
    );
    channel.ready().await.expect("ready");
    for name in ["/x.Y/Nope1", "/x.Y/Nope2"] {
        let status = channel
            .unary::<_, (), _>(
                tonic::Request::new(()),
                tonic::codegen::http::uri::PathAndQuery::from_static(name),
                tonic_prost::ProstCodec::<(), ()>::default(),
            )
            .await
            .expect_err("unimplemented");
        assert_eq!(status.code(), tonic::Code::Unimplemented);
        channel.ready().await.expect("ready");
    }
    let samples = parse(&get(&metrics, "/metrics"));
    assert_eq!(
        value(
            &samples,
            "hanniball_rpc_requests_total{code=\"unimplemented\",method=\"unknown\"}"
        ),
        2.0
    );
    assert!(!samples.keys().any(|k| k.contains("Nope")));
    std::fs::remove_dir_all(&dir).ok();
}
