//! `hanniball serve`: logging, configuration, the database, then the services: all of them on one
//! port by default, or one (`--only`) pointed at the others by configuration. Stops on Ctrl-C or
//! SIGTERM.

use std::path::PathBuf;

use anyhow::{Context, Result};
use clap::Args;
use hanniball_arbiter_svc::{Arbiter, Clock, Options};
use hanniball_pairing::matchmaking::QueueConfig;
use hanniball_scheduler_svc::{Scheduler, SchedulerOptions};
use hanniball_store::Store;
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
}

/// `hanniball migrate`: brings the database schema up to date, then exits.
pub async fn migrate(args: MigrateArgs) -> Result<()> {
    let mut settings = Settings::load(args.config.as_deref())?;
    if let Some(url) = args.database {
        settings.database.url = url;
    }
    init_logging(&settings);
    std::fs::create_dir_all(&settings.data_dir)
        .with_context(|| format!("creating {}", settings.data_dir.display()))?;
    let url = settings.database_url();
    Store::connect(&url)
        .await
        .with_context(|| format!("migrating the database ({})", redact(&url)))?;
    println!("database up to date: {}", redact(&url));
    Ok(())
}

/// The services of the backend.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Service {
    /// Games, rules, clocks, accounts.
    Arbiter,
    /// Ratings, leaderboards, history.
    Rating,
    /// Tournaments and the matchmaking queue.
    Scheduler,
}

fn init_logging(settings: &Settings) {
    let filter = EnvFilter::try_from_default_env()
        .or_else(|_| EnvFilter::try_new(&settings.log.filter))
        .unwrap_or_else(|_| EnvFilter::new("info"));
    // Logs go to stderr; stdout carries only the "serving on" line for scripts.
    let builder = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr);
    if settings.log.format == "json" {
        builder.json().init();
    } else {
        builder.init();
    }
}

/// The admin token: configured, or generated once and kept (owner-only) in the data directory.
fn admin_token(settings: &Settings) -> Result<String> {
    if !settings.auth.admin_token.is_empty() {
        return Ok(settings.auth.admin_token.clone());
    }
    let path = settings.admin_token_file();
    if let Ok(token) = std::fs::read_to_string(&path) {
        return Ok(token.trim().to_owned());
    }
    let token = hanniball_svc_kit::auth::new_token().map_err(|error| anyhow::anyhow!("{error}"))?;
    write_private(&path, &token).with_context(|| format!("writing {}", path.display()))?;
    tracing::info!(path = %path.display(), "generated an admin token");
    Ok(token)
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

async fn stop_signal() {
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
    let token = admin_token(&settings)?;
    let url = settings.database_url();
    let store = Store::connect(&url)
        .await
        .with_context(|| format!("opening the database ({})", redact(&url)))?;
    let listener = tokio::net::TcpListener::bind(&settings.server.listen)
        .await
        .with_context(|| format!("listening on {}", settings.server.listen))?;
    let shutdown = CancellationToken::new();
    let (running, names) = launch(
        &settings,
        store,
        listener,
        &token,
        args.only,
        shutdown.clone(),
    )
    .await?;
    // A line for people and scripts: where to connect.
    println!("hanniball serving on http://{}", running.addr);
    tracing::info!(addr = %running.addr, database = %redact(&url), services = ?names, "serving");
    stop_signal().await;
    tracing::info!("stopping");
    shutdown.cancel();
    running.wait().await.context("server error")?;
    Ok(())
}

/// Starts the services `only` names (all when `None`) on `listener`; services of this process
/// call each other over gRPC like any client, at its own address unless `services.*_url` say
/// otherwise.
pub async fn launch(
    settings: &Settings,
    store: Store,
    listener: tokio::net::TcpListener,
    token: &str,
    only: Option<Service>,
    shutdown: CancellationToken,
) -> Result<(hanniball_svc_kit::Served, Vec<&'static str>)> {
    let addr = listener.local_addr().context("no local address")?;
    let here = format!("http://{addr}");
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
    if runs(Service::Arbiter) {
        let options = Options {
            admin_token: token.to_owned(),
            clock: Clock::System,
        };
        let arbiter = Arbiter::build(store.clone(), options, shutdown.clone())
            .await
            .map_err(|error| anyhow::anyhow!("{error}"))?;
        arbiter.add_to(&mut routes);
        names.extend(Arbiter::SERVICE_NAMES);
    }
    if runs(Service::Rating) {
        let mut options = hanniball_rating_svc::RatingOptions::new(token);
        options.arbiter_url = Some(or_here(&settings.services.arbiter_url));
        crate::settings::apply_rating(settings, &mut options)?;
        let rating = hanniball_rating_svc::Rating::build(store.clone(), options, shutdown.clone())
            .await
            .map_err(|error| anyhow::anyhow!("{error}"))?;
        rating.add_to(&mut routes);
        names.extend(hanniball_rating_svc::Rating::SERVICE_NAMES);
    }
    if runs(Service::Scheduler) {
        let mut options = SchedulerOptions::new(token, &or_here(&settings.services.arbiter_url));
        options.rating_url = Some(or_here(&settings.services.rating_url));
        options.queue = QueueConfig {
            base_window: settings.matchmaking.base_window,
            widening_per_second: settings.matchmaking.widening_per_second,
            max_window: settings.matchmaking.max_window,
        };
        options.tick = std::time::Duration::from_millis(settings.matchmaking.tick_ms.max(10));
        let scheduler = Scheduler::build(store.clone(), &options, shutdown.clone())
            .map_err(|error| anyhow::anyhow!("{error}"))?;
        scheduler.add_to(&mut routes);
        names.extend(Scheduler::SERVICE_NAMES);
    }
    let served = hanniball_svc_kit::serve_with(
        listener,
        routes,
        &names,
        shutdown,
        hanniball_svc_kit::EdgeLimits {
            trusted_tokens: vec![token.to_owned()],
            ..settings.server.edge_limits()
        },
    )
    .await
    .context("serving")?;
    Ok((served, names))
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
