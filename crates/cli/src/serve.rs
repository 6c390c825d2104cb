//! `hanniball serve`: logging, configuration, the database, then the services: all of them on one
//! port by default, or one (`--only`) pointed at the others by configuration. Stops on Ctrl-C or
//! SIGTERM.

use std::path::PathBuf;

use anyhow::{Context, Result};
use clap::Args;
use hanniball_arbiter_svc::{Arbiter, Clock, Options};
use hanniball_db::Db;
use hanniball_pairing::matchmaking::QueueConfig;
use hanniball_scheduler_svc::{Scheduler, SchedulerOptions};
use hanniball_svc_kit::Directory;
use tokio_util::sync::CancellationToken;
use tonic::service::RoutesBuilder;
use tracing_subscriber::EnvFilter;

use crate::settings::Settings;

#[derive(Debug, Args)]
pub struct ServeArgs {
    /// A TOML configuration file (default: ./hanniball.toml if it exists).
    #[arg(long)]
    config: Option<PathBuf>,
    /// Listen address (overrides server.listen).
    #[arg(long)]
    listen: Option<String>,
    /// Database URL (overrides database.url).
    #[arg(long)]
    database: Option<String>,
    /// Run one service only, calling the others at `services.*_url` (default: all in one).
    #[arg(long, value_enum)]
    only: Option<Service>,
}

#[derive(Debug, Args)]
pub struct MigrateArgs {
    /// A TOML configuration file (default: ./hanniball.toml if it exists).
    #[arg(long)]
    config: Option<PathBuf>,
    /// Database URL (overrides database.url).
    #[arg(long)]
    database: Option<String>,
    /// Migrate one service's tables only (the arbiter's with Accounts', unless `accounts`), for
    /// a service that runs on a database of its own (default: every service's).
    #[arg(long, value_enum)]
    only: Option<Service>,
}

/// `hanniball migrate`: brings the database schema up to date, then exits.
pub async fn migrate(args: MigrateArgs) -> Result<()> {
    if args.only == Some(Service::Web) {
        anyhow::bail!(
            "the web pages have no tables (they are a client of the API): nothing to migrate; \
             --only takes accounts, arbiter, rating or scheduler"
        );
    }
    let mut settings = Settings::load(args.config.as_deref())?;
    if let Some(url) = args.database {
        settings.database.url = url;
    }
    init_logging(&settings);
    std::fs::create_dir_all(&settings.data_dir)
        .with_context(|| format!("creating {}", settings.data_dir.display()))?;
    let url = settings.database_url();
    migrate_all(&url, args.only)
        .await
        .with_context(|| format!("migrating the database ({})", redact(&url)))?;
    println!("database up to date: {}", redact(&url));
    Ok(())
}

/// Applies the pending migrations of the services `only` names (all when `None`) to the
/// database at `url`: each service's own, tracked apart (Accounts' go with the arbiter's).
async fn migrate_all(url: &str, only: Option<Service>) -> Result<(), hanniball_db::StoreError> {
    let runs = |service: Service| only.is_none_or(|only| only == service);
    let db = Db::connect(url).await?;
    if runs(Service::Accounts) || runs(Service::Arbiter) {
        hanniball_accounts_svc::Accounts::migrate(&db).await?;
    }
    if runs(Service::Arbiter) {
        hanniball_arbiter_svc::Arbiter::migrate(&db).await?;
    }
    if runs(Service::Rating) {
        hanniball_rating_svc::store::Store::open(&db).await?;
    }
    if runs(Service::Scheduler) {
        hanniball_scheduler_svc::store::Store::open(&db).await?;
    }
    Ok(())
}

/// The services of the backend.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Service {
    /// Players, tokens, passwords and sessions (served with the arbiter unless
    /// `services.accounts_url` names another process).
    Accounts,
    /// Games, rules, clocks (and Accounts, unless `services.accounts_url` is set).
    Arbiter,
    /// Ratings, leaderboards, history.
    Rating,
    /// Tournaments and the matchmaking queue.
    Scheduler,
    /// The web pages only (a client of the arbiter at `services.arbiter_url`).
    Web,
}

fn init_logging(settings: &Settings) {
    let filter = EnvFilter::try_from_default_env()
        .or_else(|_| EnvFilter::try_new(&settings.log.filter))
        .unwrap_or_else(|_| EnvFilter::new("info"));
    // Logs go to stderr; stdout carries only the "serving on" line for scripts.
    let builder = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_ansi(logs_in_colour())
        .with_writer(std::io::stderr);
    if settings.log.format == "json" {
        builder.json().init();
    } else {
        builder.init();
    }
}

/// Whether log lines carry colour: only on a terminal, and never with `NO_COLOR` set
/// (no-color.org), so a log file or a pipe gets plain text.
pub(crate) fn logs_in_colour() -> bool {
    use std::io::IsTerminal as _;
    std::io::stderr().is_terminal() && std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty())
}

/// The admin token: configured inline, or read from its file (`auth.admin_token_file`, default
/// `<data_dir>/admin-token`), generated there once (owner-only) if the file does not exist.
pub(crate) fn admin_token(settings: &Settings) -> Result<String> {
    if !settings.auth.admin_token.is_empty() {
        return Ok(settings.auth.admin_token.clone());
    }
    let path = settings.admin_token_file();
    if path.exists() {
        return read_admin_token(&path);
    }
    let token = hanniball_svc_kit::auth::new_token().map_err(|error| anyhow::anyhow!("{error}"))?;
    write_private(&path, &token).with_context(|| format!("writing {}", path.display()))?;
    tracing::info!(path = %path.display(), "generated an admin token");
    Ok(token)
}

/// The token in an admin token file: its text without surrounding whitespace; not empty.
fn read_admin_token(path: &std::path::Path) -> Result<String> {
    let text =
        std::fs::read_to_string(path).with_context(|| format!("reading {}", path.display()))?;
    let token = text.trim();
    if token.is_empty() {
        anyhow::bail!("{} holds no admin token", path.display());
    }
    if token.chars().any(|c| !c.is_ascii_graphic()) {
        anyhow::bail!(
            "{} holds an admin token with spaces or non-ASCII characters",
            path.display()
        );
    }
    Ok(token.to_owned())
}

/// SIGHUP, where there is one.
#[cfg(unix)]
type Hangup = tokio::signal::unix::Signal;
#[cfg(not(unix))]
type Hangup = std::convert::Infallible;

/// How often the admin token file is read again.
const ADMIN_TOKEN_POLL: std::time::Duration = std::time::Duration::from_secs(2);

/// Keeps `admin` equal to the token in `path`: reads the file every [`ADMIN_TOKEN_POLL`], and at
/// once on SIGHUP. The file is read whole each time (it is tiny), so an in-place edit, a rename
/// over it and a Kubernetes secret update are all seen, whatever the file system's timestamp
/// resolution. A missing, empty or malformed file keeps the token in force (logged once), so
/// that a half-done edit never locks the operator out.
async fn watch_admin_token(
    path: PathBuf,
    admin: hanniball_svc_kit::AdminToken,
    mut hangup: Option<Hangup>,
    shutdown: CancellationToken,
) {
    let mut complained = false;
    loop {
        let hup = async {
            match hangup.as_mut() {
                #[cfg(unix)]
                Some(signal) => {
                    signal.recv().await;
                }
                _ => std::future::pending().await,
            }
        };
        tokio::select! {
            () = shutdown.cancelled() => return,
            () = tokio::time::sleep(ADMIN_TOKEN_POLL) => {}
            () = hup => tracing::info!("SIGHUP: reading the admin token file again"),
        }
        match read_admin_token(&path) {
            Ok(token) => {
                complained = false;
                if admin.set(&token) {
                    tracing::info!(path = %path.display(), "admin token replaced; the old one no longer works");
                }
            }
            Err(error) if !complained => {
                complained = true;
                tracing::warn!(
                    error = format!("{error:#}"),
                    "keeping the admin token in force"
                );
            }
            Err(_) => {}
        }
    }
}

fn write_private(path: &std::path::Path, text: &str) -> std::io::Result<()> {
    use std::io::Write;
    #[cfg(unix)]
    use std::os::unix::fs::OpenOptionsExt;
    let mut options = std::fs::OpenOptions::new();
    options.write(true).create_new(true);
    #[cfg(unix)]
    options.mode(0o600);
    options.open(path)?.write_all(text.as_bytes())
}

/// Reloads the TLS files on SIGHUP (as well as when the periodic check sees them change).
fn reload_on_hangup(tls: &std::sync::Arc<hanniball_svc_kit::ServerTls>) {
    #[cfg(unix)]
    {
        let tls = std::sync::Arc::clone(tls);
        match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::hangup()) {
            Ok(mut hangups) => {
                tokio::spawn(async move {
                    while hangups.recv().await.is_some() {
                        match tls.reload() {
                            Ok(changed) => tracing::info!(changed, "SIGHUP: TLS files checked"),
                            Err(error) => {
                                tracing::error!(%error, "SIGHUP: the TLS files are not usable; keeping the old ones")
                            }
                        }
                    }
                });
            }
            Err(error) => {
                tracing::warn!(%error, "no SIGHUP handler; TLS files are still checked periodically")
            }
        }
    }
    #[cfg(not(unix))]
    let _ = tls;
}

pub(crate) async fn stop_signal() {
    let ctrl_c = tokio::signal::ctrl_c();
    #[cfg(unix)]
    {
        let mut term = tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate())
            .expect("a SIGTERM handler can be installed");
        tokio::select! {
            _ = ctrl_c => {}
            _ = term.recv() => {}
        }
    }
    #[cfg(not(unix))]
    let _ = ctrl_c.await;
}

pub async fn run(args: ServeArgs) -> Result<()> {
    let mut settings = Settings::load(args.config.as_deref())?;
    if let Some(listen) = args.listen {
        settings.server.listen = listen;
    }
    if let Some(url) = args.database {
        settings.database.url = url;
    }
    init_logging(&settings);
    std::fs::create_dir_all(&settings.data_dir)
        .with_context(|| format!("creating {}", settings.data_dir.display()))?;
    let token = hanniball_svc_kit::AdminToken::new(&admin_token(&settings)?);
    let url = settings.database_url();
    let db = Db::connect(&url)
        .await
        .with_context(|| format!("opening the database ({})", redact(&url)))?;
    let tls = match settings.server.tls.files()? {
        Some(files) => {
            Some(hanniball_svc_kit::ServerTls::load(files).context("setting up TLS (server.tls)")?)
        }
        None => None,
    };
    let listener = tokio::net::TcpListener::bind(&settings.server.listen)
        .await
        .with_context(|| format!("listening on {}", settings.server.listen))?;
    let shutdown = CancellationToken::new();
    if let Some(tls) = &tls {
        tls.watch(
            std::time::Duration::from_millis(settings.server.tls.reload_ms.max(100)),
            shutdown.clone(),
        );
        reload_on_hangup(tls);
    }
    // A token from a file can be replaced while running; one configured inline cannot.
    if settings.auth.admin_token.is_empty() {
        // Installed before serving, so that a SIGHUP never meets the default action (exit).
        #[cfg(unix)]
        let hangup = tokio::signal::unix::signal(tokio::signal::unix::SignalKind::hangup()).ok();
        #[cfg(not(unix))]
        let hangup = None;
        tokio::spawn(watch_admin_token(
            settings.admin_token_file(),
            token.clone(),
            hangup,
            shutdown.clone(),
        ));
    }
    let metrics_addr = if settings.server.metrics_listen.is_empty() {
        None
    } else {
        Some(serve_metrics(&settings.server.metrics_listen)?)
    };
    let (running, names, here, pages) = launch(
        &settings,
        db.clone(),
        listener,
        &token,
        args.only,
        shutdown.clone(),
        tls.clone(),
    )
    .await?;
    if metrics_addr.is_some() {
        // After the launch: the services' migrations have run.
        tokio::spawn(sample_metrics(db, args.only, shutdown.clone()));
    }
    let scheme = if tls.is_some() { "https" } else { "http" };
    if tls.is_none() && !running.addr.ip().is_loopback() {
        if settings.server.allow_plaintext {
            tracing::info!(addr = %running.addr, "plain text on a public address (server.allow_plaintext)");
        } else {
            tracing::warn!(
                addr = %running.addr,
                "PLAIN TEXT ON A PUBLIC ADDRESS: bearer tokens (the admin's too) cross the network \
                 in clear. Set server.tls.cert and server.tls.key, or, behind a proxy that \
                 terminates TLS, server.allow_plaintext = true"
            );
        }
    }
    let web = if args.only.is_none_or(|only| only == Service::Web)
        && !settings.server.web_listen.is_empty()
    {
        Some(start_web(&settings, &token, &here, shutdown.clone()).await?)
    } else {
        None
    };
    // A line for people and scripts: where to connect.
    println!("hanniball serving on {scheme}://{}", running.addr);
    if let Some(addr) = web {
        use std::io::Write as _;
        set_pages(&pages, &format!("http://{addr}"));
        let _ = writeln!(std::io::stdout(), "web pages on http://{addr}/");
        tracing::info!(%addr, "web pages on http://{addr}/");
    }
    if let Some(addr) = metrics_addr {
        // Not println!: a script that read only the first line may have closed the pipe.
        use std::io::Write as _;
        let _ = writeln!(std::io::stdout(), "metrics on http://{addr}/metrics");
        tracing::info!(%addr, "metrics on http://{addr}/metrics");
    }
    tracing::info!(addr = %running.addr, database = %redact(&url), services = ?names, "serving");
    stop_signal().await;
    tracing::info!("stopping");
    shutdown.cancel();
    running.wait().await.context("server error")?;
    Ok(())
}

/// What [`launch`] started: the server, its services' names, the address the process's own
/// services call, and where the pages are (to be set once they listen).
type Launched = (
    hanniball_svc_kit::Served,
    Vec<&'static str>,
    String,
    hanniball_scheduler_svc::PagesUrl,
);

/// Sets where the pages are, unless `web.public_url` already said (it wins).
pub(crate) fn set_pages(pages: &hanniball_scheduler_svc::PagesUrl, url: &str) {
    if let Ok(mut known) = pages.write()
        && known.is_empty()
    {
        *known = url.to_owned();
    }
}

/// Starts the web pages on `server.web_listen` (the default port taken: any free port), calling
/// the arbiter at `services.arbiter_url` or this process's own address `here`, with `web.token`
/// or else the admin token (the pages make read calls only). Returns the address.
pub(crate) async fn start_web(
    settings: &Settings,
    token: &hanniball_svc_kit::AdminToken,
    here: &str,
    shutdown: CancellationToken,
) -> Result<std::net::SocketAddr> {
    let listen = &settings.server.web_listen;
    let listener = match tokio::net::TcpListener::bind(listen).await {
        Ok(listener) => listener,
        Err(error)
            if error.kind() == std::io::ErrorKind::AddrInUse
                && listen == crate::settings::DEFAULT_WEB_LISTEN =>
        {
            tracing::warn!(%listen, "the default web port is taken; serving the pages on a free port");
            tokio::net::TcpListener::bind("127.0.0.1:0")
                .await
                .context("listening for the web pages")?
        }
        Err(error) => {
            return Err(error)
                .with_context(|| format!("listening on {listen} (server.web_listen)"));
        }
    };
    let addr = listener.local_addr().context("no local address")?;
    let or_here = |url: &str| {
        if url.is_empty() {
            here.to_owned()
        } else {
            url.to_owned()
        }
    };
    let options = hanniball_web::WebOptions {
        arbiter_url: or_here(&settings.services.arbiter_url),
        accounts_url: (!settings.services.accounts_url.is_empty())
            .then(|| settings.services.accounts_url.clone()),
        scheduler_url: Some(or_here(&settings.services.scheduler_url)),
        rating_url: Some(or_here(&settings.services.rating_url)),
        token: if settings.web.token.is_empty() {
            token.token()
        } else {
            settings.web.token.clone()
        },
        tls: if settings.services.arbiter_url.is_empty() {
            hanniball_svc_kit::ClientTls::default()
        } else {
            settings.services.tls.client()
        },
        failed_sign_ins_per_minute: settings.server.failed_auth_per_minute,
        secure_cookies: settings.web.secure_cookies,
    };
    let router = hanniball_web::router(&options).context("setting up the web pages")?;
    tokio::spawn(async move {
        if let Err(error) = hanniball_web::serve(listener, router, shutdown).await {
            tracing::error!(%error, "the web pages stopped");
        }
    });
    Ok(addr)
}

/// Installs the Prometheus recorder and its scrape listener on `listen` (`server.metrics_listen`).
pub(crate) fn serve_metrics(listen: &str) -> Result<std::net::SocketAddr> {
    use metrics_exporter_prometheus::{Matcher, PrometheusBuilder};
    let addr: std::net::SocketAddr = listen
        .parse()
        .with_context(|| format!("server.metrics_listen {listen:?} is not an address:port"))?;
    // Seconds: 0.1 ms to 10 s (RPCs, commits); streams that live longer land in +Inf.
    let seconds = [
        0.000_1, 0.000_25, 0.000_5, 0.001, 0.002_5, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0,
        2.5, 10.0,
    ];
    let sizes = [
        1.0, 2.0, 4.0, 8.0, 16.0, 32.0, 64.0, 128.0, 256.0, 512.0, 1024.0, 2048.0,
    ];
    PrometheusBuilder::new()
        .with_http_listener(addr)
        .set_buckets_for_metric(Matcher::Suffix("_seconds".to_owned()), &seconds)?
        .set_buckets_for_metric(
            Matcher::Full("hanniball_commit_batch_size".to_owned()),
            &sizes,
        )?
        .install()
        .with_context(|| format!("serving metrics on {listen} (server.metrics_listen)"))?;
    describe_metrics();
    Ok(addr)
}

/// HELP lines for every metric the services record (README "Metrics").
fn describe_metrics() {
    use metrics::{Unit, describe_counter, describe_gauge, describe_histogram};
    describe_counter!(
        "hanniball_rpc_requests_total",
        "Finished gRPC calls by method and code."
    );
    describe_histogram!(
        "hanniball_rpc_duration_seconds",
        Unit::Seconds,
        "gRPC calls from the request to the end of the answer (a stream's whole life)."
    );
    describe_gauge!(
        "hanniball_rpc_in_flight",
        "Answers open now by method (the Watch methods: open streams)."
    );
    describe_counter!(
        "hanniball_turns_committed_total",
        "Turns stored by the arbiter."
    );
    describe_histogram!(
        "hanniball_commit_seconds",
        Unit::Seconds,
        "Time per group-commit transaction of the arbiter."
    );
    describe_histogram!(
        "hanniball_commit_batch_size",
        "Writes per group-commit transaction of the arbiter."
    );
    describe_gauge!(
        "hanniball_games_loaded",
        "Games the arbiter holds in memory."
    );
    describe_gauge!(
        "hanniball_matchmaking_queue_length",
        "Players waiting in the matchmaking queue."
    );
    describe_gauge!(
        "hanniball_outbox_lag",
        "Finished games a results consumer has not consumed yet."
    );
    describe_gauge!(
        "hanniball_db_connections",
        "Database pool connections by state."
    );
}

/// What the services do not record as it happens, sampled every few seconds: the database pool's
/// use, and, when the arbiter runs in this process beside a results consumer, how far that
/// consumer is behind the outbox (each reads its own tables: the outbox is the arbiter's).
pub(crate) async fn sample_metrics(db: Db, only: Option<Service>, shutdown: CancellationToken) {
    let runs = |service: Service| only.is_none_or(|only| only == service);
    // Opening runs no migration here: the launch has applied them.
    let outbox = match runs(Service::Arbiter) {
        true => hanniball_arbiter_svc::store::Store::open(&db).await.ok(),
        false => None,
    };
    let rating = match outbox.is_some() && runs(Service::Rating) {
        true => hanniball_rating_svc::store::Store::open(&db).await.ok(),
        false => None,
    };
    let scheduler = match outbox.is_some() && runs(Service::Scheduler) {
        true => hanniball_scheduler_svc::store::Store::open(&db).await.ok(),
        false => None,
    };
    loop {
        let (open, idle) = db.pool_use();
        metrics::gauge!("hanniball_db_connections", "state" => "idle").set(idle as f64);
        metrics::gauge!("hanniball_db_connections", "state" => "in_use")
            .set(f64::from(open).max(idle as f64) - idle as f64);
        if let Some(outbox) = &outbox
            && let Ok(latest) = outbox.latest_result_sequence().await
        {
            if let Some(rating) = &rating
                && let Ok(cursor) = rating.rating_cursor(hanniball_rating_svc::CONSUMER).await
            {
                metrics::gauge!("hanniball_outbox_lag", "consumer" => "rating")
                    .set((latest - cursor).max(0) as f64);
            }
            if let Some(scheduler) = &scheduler
                && let Ok(cursor) = scheduler.scheduler_cursor().await
            {
                metrics::gauge!("hanniball_outbox_lag", "consumer" => "scheduler")
                    .set((latest - cursor).max(0) as f64);
            }
        }
        if !hanniball_svc_kit::pause(std::time::Duration::from_secs(5), &shutdown).await {
            return;
        }
    }
}

/// Starts the services `only` names (all when `None`) on `listener`; services of this process
/// call each other over gRPC like any client, at its own address unless `services.*_url` say
/// otherwise.
pub async fn launch(
    settings: &Settings,
    db: Db,
    listener: tokio::net::TcpListener,
    token: &hanniball_svc_kit::AdminToken,
    only: Option<Service>,
    shutdown: CancellationToken,
    tls: Option<std::sync::Arc<hanniball_svc_kit::ServerTls>>,
) -> Result<Launched> {
    let pages = hanniball_scheduler_svc::PagesUrl::default();
    if !settings.web.public_url.is_empty() {
        set_pages(&pages, &settings.web.public_url);
    }
    let addr = listener.local_addr().context("no local address")?;
    // Services of this process call each other like any client. With TLS on the service port
    // they do so over a second, plain listener on loopback, so that they need not trust (or
    // name) the certificate the public sees, and nothing leaves the machine in clear.
    let internal = match &tls {
        Some(_) => Some(
            tokio::net::TcpListener::bind((std::net::Ipv4Addr::LOCALHOST, 0))
                .await
                .context("listening on loopback for the services' own calls")?,
        ),
        None => None,
    };
    let here = match &internal {
        Some(internal) => format!(
            "http://{}",
            internal.local_addr().context("no local address")?
        ),
        None => format!("http://{addr}"),
    };
    // `[services.tls]` is for the services configured by URL; this process's own are plain.
    let tls_for = |url: &str| {
        if url.is_empty() {
            hanniball_svc_kit::ClientTls::default()
        } else {
            settings.services.tls.client()
        }
    };
    let or_here = |url: &str| {
        if url.is_empty() {
            here.clone()
        } else {
            url.to_owned()
        }
    };
    let runs = |service: Service| only.is_none_or(|only| only == service);
    let mut routes = RoutesBuilder::default();
    let mut names: Vec<&'static str> = Vec::new();
    let accounts = launch_accounts(
        settings,
        &db,
        token,
        only,
        &here,
        (&mut routes, &mut names),
        &shutdown,
    )
    .await?;
    let accounts = || {
        accounts
            .clone()
            .expect("made when the arbiter, rating or the scheduler runs here")
    };
    if runs(Service::Arbiter) {
        let options = Options {
            admin_token: token.clone(),
            clock: Clock::System,
        };
        let arbiter = Arbiter::build(db.clone(), accounts(), options, shutdown.clone())
            .await
            .map_err(|error| anyhow::anyhow!("{error}"))?;
        arbiter.add_to(&mut routes);
        names.extend(Arbiter::SERVICE_NAMES);
    }
    if runs(Service::Rating) {
        let mut options = hanniball_rating_svc::RatingOptions::new(token);
        options.arbiter_url = Some(or_here(&settings.services.arbiter_url));
        options.tls = tls_for(&settings.services.arbiter_url);
        crate::settings::apply_rating(settings, &mut options)?;
        let rating =
            hanniball_rating_svc::Rating::build(db.clone(), accounts(), options, shutdown.clone())
                .await
                .map_err(|error| anyhow::anyhow!("{error}"))?;
        rating.add_to(&mut routes);
        names.extend(hanniball_rating_svc::Rating::SERVICE_NAMES);
    }
    if runs(Service::Scheduler) {
        let mut options = SchedulerOptions::new(token, &or_here(&settings.services.arbiter_url));
        options.rating_url = Some(or_here(&settings.services.rating_url));
        // One TLS setting for both URLs: configure both or neither.
        options.tls = tls_for(&settings.services.arbiter_url);
        options.queue = QueueConfig {
            base_window: settings.matchmaking.base_window,
            widening_per_second: settings.matchmaking.widening_per_second,
            max_window: settings.matchmaking.max_window,
        };
        options.tick = std::time::Duration::from_millis(settings.matchmaking.tick_ms.max(10));
        options.pages = std::sync::Arc::clone(&pages);
        let scheduler = Scheduler::build(db.clone(), accounts(), &options, shutdown.clone())
            .await
            .map_err(|error| anyhow::anyhow!("{error}"))?;
        scheduler.add_to(&mut routes);
        names.extend(Scheduler::SERVICE_NAMES);
    }
    let health = if settings.server.health_listen.is_empty() {
        None
    } else {
        Some(
            tokio::net::TcpListener::bind(&settings.server.health_listen)
                .await
                .with_context(|| {
                    format!(
                        "listening on {} (server.health_listen)",
                        settings.server.health_listen
                    )
                })?,
        )
    };
    let listeners = hanniball_svc_kit::Listeners {
        public: listener,
        tls,
        internal,
        health,
    };
    let served = hanniball_svc_kit::serve_on(
        listeners,
        routes,
        &names,
        shutdown,
        hanniball_svc_kit::EdgeLimits {
            admin_token: Some(token.clone()),
            ..settings.server.edge_limits()
        },
    )
    .await
    .context("serving")?;
    Ok((served, names, here, pages))
}

/// A database URL without its password.
fn redact(url: &str) -> String {
    match (url.find("://"), url.rfind('@')) {
        (Some(scheme), Some(at)) if at > scheme => {
            let userinfo = &url[scheme + 3..at];
            let user = userinfo.split(':').next().unwrap_or_default();
            format!("{}://{}:***@{}", &url[..scheme], user, &url[at + 1..])
        }
        _ => url.to_owned(),
    }
}

/// Accounts for [`launch`]: served here when asked alone, in the whole process, or beside the
/// arbiter when no `services.accounts_url` names another process (the other services of this
/// process then ask it directly); else, when a service here needs it, reached over gRPC (at
/// `services.accounts_url`, or the arbiter's URL). `None` when nothing here needs it.
async fn launch_accounts(
    settings: &Settings,
    db: &Db,
    token: &hanniball_svc_kit::AdminToken,
    only: Option<Service>,
    here: &str,
    (routes, names): (&mut RoutesBuilder, &mut Vec<&'static str>),
    shutdown: &CancellationToken,
) -> Result<Option<Directory>> {
    let runs = |service: Service| only.is_none_or(|only| only == service);
    let configured_or_here = |url: &str| {
        if url.is_empty() {
            (here.to_owned(), hanniball_svc_kit::ClientTls::default())
        } else {
            (url.to_owned(), settings.services.tls.client())
        }
    };
    let accounts_elsewhere = !settings.services.accounts_url.is_empty();
    let accounts_here = match only {
        None => !accounts_elsewhere,
        Some(Service::Accounts) => true,
        Some(Service::Arbiter) => !accounts_elsewhere,
        Some(_) => false,
    };
    Ok(if accounts_here {
        let room = hanniball_accounts_svc::Accounts::build(
            db,
            token.clone(),
            Clock::System,
            shutdown.clone(),
        )
        .await
        .map_err(|error| anyhow::anyhow!("{error}"))?;
        room.add_to(routes);
        names.extend(hanniball_accounts_svc::Accounts::SERVICE_NAMES);
        Some(room.directory().clone())
    } else if runs(Service::Arbiter) || runs(Service::Rating) || runs(Service::Scheduler) {
        let configured = if accounts_elsewhere {
            &settings.services.accounts_url
        } else {
            &settings.services.arbiter_url
        };
        let (url, tls) = configured_or_here(configured);
        Some(
            Directory::remote(&url, &tls, token.clone(), shutdown.clone())
                .with_context(|| format!("services.accounts_url {url:?} (Accounts)"))?,
        )
    } else {
        None
    })
}
