//! TLS end to end, through the binary, with certificates this test makes (rcgen): clients that
//! trust the CA are served and others refused; the services as separate processes with mutual
//! TLS between them, a tournament game played by bots over TLS; a renewed certificate picked up
//! without a restart; clear start-up errors; the warning for plain text on a public address.

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use crate::common::{self, KillOnDrop, data_dir, serve_args, wait_for};
use rcgen::{BasicConstraints, CertificateParams, CertifiedIssuer, DnType, IsCa, KeyPair};

const ADMIN: &str = "tls-test-admin-token";

/// A CA that issues certificates into `dir`.
struct Ca {
    issuer: CertifiedIssuer<'static, KeyPair>,
    /// The CA certificate (PEM file).
    cert: PathBuf,
    dir: PathBuf,
}

impl Ca {
    fn new(dir: &Path, name: &str) -> Ca {
        std::fs::create_dir_all(dir).expect("dir");
        let mut params = CertificateParams::new(Vec::<String>::new()).expect("params");
        params.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
        params
            .distinguished_name
            .push(DnType::CommonName, format!("{name} test CA"));
        let issuer = CertifiedIssuer::self_signed(params, KeyPair::generate().expect("key"))
            .expect("CA certificate");
        let cert = dir.join(format!("{name}-ca.pem"));
        std::fs::write(&cert, issuer.pem()).expect("write CA");
        Ca {
            issuer,
            cert,
            dir: dir.to_owned(),
        }
    }

    /// A certificate for `names` (DNS names or IP addresses) and its key: (cert, key) files named
    /// after `file`.
    fn issue(&self, file: &str, names: &[&str]) -> (PathBuf, PathBuf) {
        let params =
            CertificateParams::new(names.iter().map(|n| (*n).to_owned()).collect::<Vec<_>>())
                .expect("params");
        let key = KeyPair::generate().expect("key");
        let cert = params.signed_by(&key, &self.issuer).expect("signed");
        let (cert_file, key_file) = (
            self.dir.join(format!("{file}.pem")),
            self.dir.join(format!("{file}-key.pem")),
        );
        std::fs::write(&cert_file, cert.pem()).expect("write cert");
        std::fs::write(&key_file, key.serialize_pem()).expect("write key");
        (cert_file, key_file)
    }
}

fn path(p: &Path) -> &str {
    p.to_str().expect("utf-8 path")
}

fn hanniball(args: &[&str]) -> Output {
    common::hanniball_as(ADMIN, args)
}

fn ok(args: &[&str]) -> String {
    common::ok_as(ADMIN, args)
}

fn refused(args: &[&str]) -> String {
    let out = hanniball(args);
    assert!(
        !out.status.success(),
        "hanniball {args:?} should have been refused: {}",
        String::from_utf8_lossy(&out.stdout)
    );
    String::from_utf8_lossy(&out.stderr).into_owned()
}

#[test]
fn split_services_with_mutual_tls_and_bots_playing_over_tls() {
    let dir = data_dir("tls-split");
    let ca = Ca::new(&dir, "ours");
    let other = Ca::new(&dir, "other");
    let (server_cert, server_key) = ca.issue("server", &["localhost", "127.0.0.1"]);
    let (client_cert, client_key) = ca.issue("client", &["scheduler.internal"]);
    let (stranger_cert, stranger_key) = other.issue("stranger", &["stranger.internal"]);
    let database = format!("sqlite://{}?mode=rwc", dir.join("shared.sqlite").display());
    ok(&["migrate", "--database", &database]);

    // The arbiter speaks only TLS and requires a client certificate from our CA.
    let tls_env = [
        ("HANNIBALL__DATABASE__URL", database.as_str()),
        ("HANNIBALL__AUTH__ADMIN_TOKEN", ADMIN),
        ("HANNIBALL__SERVER__TLS__CERT", path(&server_cert)),
        ("HANNIBALL__SERVER__TLS__KEY", path(&server_key)),
        ("HANNIBALL__SERVER__TLS__CLIENT_CA", path(&ca.cert)),
    ];
    let (_arbiter, arbiter_url) =
        serve_args(&dir.join("arbiter"), &["--only", "arbiter"], &tls_env);
    assert!(arbiter_url.starts_with("https://"), "{arbiter_url}");
    // Connect by name, as a certificate names it.
    let arbiter_url = arbiter_url.replace("127.0.0.1", "localhost");

    // The rating service and the scheduler call it with our client certificate; they serve
    // their own port over TLS too (no client certificate required there).
    let client_env = |extra: &[(&'static str, String)]| {
        let mut env: Vec<(&'static str, String)> = vec![
            ("HANNIBALL__DATABASE__URL", database.clone()),
            ("HANNIBALL__AUTH__ADMIN_TOKEN", ADMIN.to_owned()),
            ("HANNIBALL__MATCHMAKING__TICK_MS", "100".to_owned()),
            (
                "HANNIBALL__SERVER__TLS__CERT",
                path(&server_cert).to_owned(),
            ),
            ("HANNIBALL__SERVER__TLS__KEY", path(&server_key).to_owned()),
            ("HANNIBALL__SERVICES__ARBITER_URL", arbiter_url.clone()),
            ("HANNIBALL__SERVICES__TLS__CA", path(&ca.cert).to_owned()),
            (
                "HANNIBALL__SERVICES__TLS__CERT",
                path(&client_cert).to_owned(),
            ),
            (
                "HANNIBALL__SERVICES__TLS__KEY",
                path(&client_key).to_owned(),
            ),
        ];
        env.extend(extra.iter().cloned());
        env
    };
    let rating_env = client_env(&[]);
    let rating_env: Vec<(&str, &str)> = rating_env.iter().map(|(k, v)| (*k, v.as_str())).collect();
    let (_rating, rating_url) = serve_args(&dir.join("rating"), &["--only", "rating"], &rating_env);
    let rating_url = rating_url.replace("127.0.0.1", "localhost");
    let scheduler_env = client_env(&[("HANNIBALL__SERVICES__RATING_URL", rating_url.clone())]);
    let scheduler_env: Vec<(&str, &str)> = scheduler_env
        .iter()
        .map(|(k, v)| (*k, v.as_str()))
        .collect();
    let (_scheduler, scheduler_url) = serve_args(
        &dir.join("scheduler"),
        &["--only", "scheduler"],
        &scheduler_env,
    );
    let scheduler_url = scheduler_url.replace("127.0.0.1", "localhost");

    let trusted = ["--ca-cert", path(&ca.cert)];
    let with_cert = [
        "--ca-cert",
        path(&ca.cert),
        "--client-cert",
        path(&client_cert),
        "--client-key",
        path(&client_key),
    ];
    // Refused: no client certificate, one from another CA, a client that does not trust the
    // server's CA, one that trusts only the system roots, and plain text.
    let whoami = |server: &str, extra: &[&str]| {
        let mut args = vec!["player", "whoami", "--server", server];
        args.extend(extra);
        args.iter()
            .map(|a| (*a).to_owned())
            .collect::<Vec<String>>()
    };
    let top = |server: &str, extra: &[&str]| {
        let mut args = vec!["ratings", "top", "--server", server];
        args.extend(extra);
        args.iter()
            .map(|a| (*a).to_owned())
            .collect::<Vec<String>>()
    };
    let run = |args: Vec<String>| args;
    for args in [
        run(whoami(&arbiter_url, &trusted)),
        run(whoami(
            &arbiter_url,
            &[
                "--ca-cert",
                path(&ca.cert),
                "--client-cert",
                path(&stranger_cert),
                "--client-key",
                path(&stranger_key),
            ],
        )),
        run(whoami(&arbiter_url, &["--ca-cert", path(&other.cert)])),
        run(top(&rating_url, &["--ca-cert", path(&other.cert)])),
        run(top(&rating_url, &[])),
        run(whoami(&arbiter_url.replace("https://", "http://"), &[])),
    ] {
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        refused(&args);
    }
    let untrusted = refused(
        &top(&rating_url, &["--ca-cert", path(&other.cert)])
            .iter()
            .map(String::as_str)
            .collect::<Vec<_>>(),
    );
    assert!(untrusted.contains("certificate"), "{untrusted}");
    // Served: the right CA (and, at the arbiter, our client certificate).
    let mut args = whoami(&arbiter_url, &with_cert);
    let who = ok(&args.iter().map(String::as_str).collect::<Vec<_>>());
    assert_eq!(who.lines().next(), Some("admin"), "{who}");
    args = top(&rating_url, &trusted);
    ok(&args.iter().map(String::as_str).collect::<Vec<_>>());

    // Two bots, registered at the arbiter, play a one-round tournament the scheduler pairs: the
    // scheduler creates the game at the arbiter and learns its result through mutual TLS.
    let mut tokens = Vec::new();
    let mut ids = Vec::new();
    for name in ["tls-white", "tls-black"] {
        let mut args = vec![
            "player",
            "register",
            name,
            "--bot",
            "--server",
            &arbiter_url,
        ];
        args.extend(with_cert);
        let out = ok(&args);
        ids.push(out.split_whitespace().nth(1).expect("id").to_owned());
        tokens.push(
            out.split_whitespace()
                .find(|w| w.starts_with("hb_"))
                .expect("token")
                .to_owned(),
        );
    }
    let mut bots = Vec::new();
    for token in &tokens {
        let mut command = Command::new(env!("CARGO_BIN_EXE_hanniball"));
        command
            .args(["bot", "run", "--server", &arbiter_url, "--token", token])
            .args(["--strategy", "greedy", "--think-ms", "20", "--games", "1"])
            .args(with_cert)
            .stdout(Stdio::null())
            .stderr(Stdio::null());
        bots.push(KillOnDrop(command.spawn().expect("the bot starts")));
    }
    let mut args = vec![
        "tournament",
        "create",
        "TLS",
        "--rounds",
        "1",
        "--time",
        "30+0.5",
    ];
    args.extend(["--server", &scheduler_url]);
    args.extend(trusted);
    let created = ok(&args);
    let id = created.split_whitespace().nth(1).expect("id").to_owned();
    let mut add = vec!["tournament", "add", id.as_str()];
    add.extend(ids.iter().map(String::as_str));
    add.extend(["--server", &scheduler_url]);
    add.extend(trusted);
    ok(&add);
    ok(&[
        "tournament",
        "start",
        &id,
        "--server",
        &scheduler_url,
        trusted[0],
        trusted[1],
    ]);
    wait_for(120, "the tournament to finish", || {
        ok(&[
            "tournament",
            "show",
            &id,
            "--server",
            &scheduler_url,
            trusted[0],
            trusted[1],
        ])
        .contains("finished")
    });
    let standings = ok(&[
        "tournament",
        "standings",
        &id,
        "--server",
        &scheduler_url,
        trusted[0],
        trusted[1],
    ]);
    assert!(standings.contains("standings after 1 round"), "{standings}");
    // The bots saw their game end and stopped by themselves.
    for mut bot in bots {
        let status = bot.0.wait().expect("the bot ends");
        assert!(status.success(), "a bot failed: {status:?}");
    }
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn a_renewed_certificate_is_used_without_a_restart() {
    let dir = data_dir("tls-reload");
    let first = Ca::new(&dir, "first");
    let second = Ca::new(&dir, "second");
    let (cert, key) = first.issue("server", &["localhost"]);
    let health = std::net::TcpListener::bind("127.0.0.1:0")
        .expect("a free port")
        .local_addr()
        .expect("addr")
        .to_string();
    let env = [
        ("HANNIBALL__AUTH__ADMIN_TOKEN", ADMIN),
        ("HANNIBALL__SERVER__TLS__CERT", path(&cert)),
        ("HANNIBALL__SERVER__TLS__KEY", path(&key)),
        ("HANNIBALL__SERVER__TLS__RELOAD_MS", "100"),
        ("HANNIBALL__SERVER__HEALTH_LISTEN", health.as_str()),
    ];
    let (server, url) = serve_args(&dir.join("data"), &[], &env);
    let url = url.replace("127.0.0.1", "localhost");
    health_on_the_plain_port(&format!("http://{health}"));
    let works_with = |ca: &Ca| {
        hanniball(&[
            "player",
            "whoami",
            "--server",
            &url,
            "--ca-cert",
            path(&ca.cert),
        ])
        .status
        .success()
    };
    assert!(works_with(&first));
    assert!(!works_with(&second));

    // Renewal: the new certificate and key replace the files (as certbot or cert-manager do).
    let (new_cert, new_key) = second.issue("renewed", &["localhost"]);
    std::fs::copy(&new_key, &key).expect("key");
    std::fs::copy(&new_cert, &cert).expect("cert");
    wait_for(30, "the renewed certificate", || works_with(&second));
    assert!(!works_with(&first));

    // A broken renewal (a key that is not PEM) is refused and the certificate in use stays.
    std::fs::write(&key, "not a key").expect("key");
    wait_for(30, "the refusal to be logged", || {
        std::fs::read_to_string(dir.join("data/log")).is_ok_and(|log| log.contains("not usable"))
    });
    assert!(works_with(&second));
    drop(server);
    std::fs::remove_dir_all(&dir).ok();
}

/// The plain health port (for probes that cannot speak TLS) answers health, and nothing else.
fn health_on_the_plain_port(url: &str) {
    use tonic_health::pb::HealthCheckRequest;
    use tonic_health::pb::health_client::HealthClient;
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("runtime");
    runtime.block_on(async {
        let channel = tonic::transport::Endpoint::from_shared(url.to_owned())
            .expect("url")
            .connect()
            .await
            .expect("the health port answers in plain text");
        let mut health = HealthClient::new(channel.clone());
        let status = health
            .check(HealthCheckRequest {
                service: "hanniball.arbiter.v1.Arbiter".to_owned(),
            })
            .await
            .expect("health")
            .into_inner()
            .status;
        assert_eq!(status, 1, "SERVING");
        let mut arbiter = hanniball_proto::arbiter::v1::arbiter_client::ArbiterClient::new(channel);
        let refused = arbiter
            .get_game(hanniball_proto::arbiter::v1::GetGameRequest { game_id: 1 })
            .await
            .expect_err("only health is served there");
        assert_eq!(refused.code(), tonic::Code::Unimplemented);
    });
}

#[test]
fn bad_tls_files_stop_the_start_with_a_clear_error() {
    let dir = data_dir("tls-bad");
    let ca = Ca::new(&dir, "ca");
    let (cert, _) = ca.issue("one", &["localhost"]);
    let (_, other_key) = ca.issue("two", &["localhost"]);
    let missing = dir.join("missing.pem");
    let start = |cert: &Path, key: &Path| {
        Command::new(env!("CARGO_BIN_EXE_hanniball"))
            .args(["serve", "--listen", "127.0.0.1:0"])
            .env("HANNIBALL__DATA_DIR", dir.join("data"))
            .env("HANNIBALL__SERVER__TLS__CERT", cert)
            .env("HANNIBALL__SERVER__TLS__KEY", key)
            .output()
            .expect("the binary runs")
    };
    for (cert, key, expected) in [
        (&cert, &other_key, "does not go with"),
        (&missing, &other_key, "cannot read"),
        (&cert, &missing, "cannot read"),
        (&cert, &ca.cert, "no usable private key"),
    ] {
        let out = start(cert, key);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(!out.status.success(), "started with {cert:?} and {key:?}");
        assert!(stderr.contains(expected), "{expected:?} not in {stderr}");
        assert!(
            stderr.contains("server.tls"),
            "the setting is named: {stderr}"
        );
    }
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn plain_text_on_a_public_address_is_warned_about() {
    let warned = |env: &[(&str, &str)]| {
        let dir = data_dir("tls-plain");
        let (server, _) = serve_args(&dir, &["--listen", "0.0.0.0:0"], env);
        drop(server);
        let log = std::fs::read_to_string(dir.join("log")).expect("log");
        std::fs::remove_dir_all(&dir).ok();
        log.contains("PLAIN TEXT ON A PUBLIC ADDRESS")
    };
    assert!(warned(&[]));
    assert!(!warned(&[("HANNIBALL__SERVER__ALLOW_PLAINTEXT", "true")]));
    // Loopback is not warned about.
    let dir = data_dir("tls-loopback");
    let (server, _) = serve_args(&dir, &[], &[]);
    drop(server);
    let log = std::fs::read_to_string(dir.join("log")).expect("log");
    std::fs::remove_dir_all(&dir).ok();
    assert!(!log.contains("PLAIN TEXT"), "{log}");
}

#[test]
fn silent_connections_from_one_address_do_not_lock_out_a_new_client() {
    let dir = data_dir("tls-idle");
    let ca = Ca::new(&dir, "idle");
    let (cert, key) = ca.issue("server", &["localhost"]);
    let env = [
        ("HANNIBALL__AUTH__ADMIN_TOKEN", ADMIN),
        ("HANNIBALL__SERVER__TLS__CERT", path(&cert)),
        ("HANNIBALL__SERVER__TLS__KEY", path(&key)),
    ];
    let (server, url) = serve_args(&dir.join("data"), &[], &env);
    let addr = url.trim_start_matches("https://").to_owned();
    let url = url.replace("127.0.0.1", "localhost");
    // 300 sockets that never say a word: more than the server's handshake slots (256).
    let idle: Vec<std::net::TcpStream> = (0..300)
        .map(|_| std::net::TcpStream::connect(&addr).expect("connect"))
        .collect();
    std::thread::sleep(std::time::Duration::from_millis(200));
    let started = std::time::Instant::now();
    let whoami = hanniball(&[
        "player",
        "whoami",
        "--server",
        &url,
        "--ca-cert",
        path(&ca.cert),
    ]);
    let took = started.elapsed();
    assert!(
        whoami.status.success(),
        "{}",
        String::from_utf8_lossy(&whoami.stderr)
    );
    // Before the per-address cap, the client waited for a silent socket's 10 s handshake
    // deadline; now the address's oldest handshakes give way at once.
    assert!(took < std::time::Duration::from_secs(5), "took {took:?}");
    drop(idle);
    drop(server);
    std::fs::remove_dir_all(&dir).ok();
}
