//! Configuration: defaults, then an optional TOML file, then environment variables with the
//! `HANNIBALL__` prefix (`HANNIBALL__DATABASE__URL=postgres://...`). Later sources win.

// Without the `server` feature only the admin token's file is read (client commands): the rest
// of the configuration is the server's.
#![cfg_attr(not(feature = "server"), allow(dead_code))]

use std::path::{Path, PathBuf};

use anyhow::{Context, Result};
use serde::Deserialize;

/// Everything `hanniball serve` reads.
#[derive(Clone, Debug, Deserialize)]
pub struct Settings {
    /// Where state lives by default: the SQLite file and the generated admin token.
    pub data_dir: PathBuf,
    pub server: Server,
    pub database: Database,
    pub auth: Auth,
    pub log: Log,
    pub services: Services,
    pub matchmaking: Matchmaking,
    /// The web pages (`[web]`).
    pub web: Web,
    /// The rating service (`[rating]`); every key has a default.
    #[serde(default)]
    pub rating: RatingSettings,
}

/// `[web]`: the web pages.
#[derive(Clone, Debug, Deserialize)]
pub struct Web {
    /// The token the pages call the API with (a `read` token is enough); empty: the admin token
    /// of this process.
    pub token: String,
    /// The pages' address as people reach them (`https://club.example/`), for the links the
    /// scheduler and the CLI give; empty: this process's own pages, if it serves them.
    pub public_url: String,
    /// The pages are reached over HTTPS (a proxy in front terminates TLS): session cookies are
    /// `Secure`. Also set for a request whose proxy sends `X-Forwarded-Proto: https`.
    pub secure_cookies: bool,
}

/// `server.web_listen` by default: a person opens this; when it is taken, any free port.
pub const DEFAULT_WEB_LISTEN: &str = "127.0.0.1:8080";

#[derive(Clone, Debug, Deserialize)]
pub struct Services {
    /// The arbiter's URL for the services that call it (scheduler, rating); empty: this process.
    pub arbiter_url: String,
    /// Accounts' URL when it runs in a process of its own (`serve --only accounts`); empty:
    /// served with the arbiter (this process, or `arbiter_url`).
    pub accounts_url: String,
    /// The rating service's URL for the scheduler and the web pages; empty: this process.
    pub rating_url: String,
    /// The scheduler's URL for the web pages; empty: this process.
    pub scheduler_url: String,
    /// How to reach the other services at `https://` URLs (`[services.tls]`).
    pub tls: ServicesTls,
}

/// `[services.tls]`: the client side of TLS between services. Empty paths: unset.
#[derive(Clone, Debug, Deserialize)]
pub struct ServicesTls {
    /// Trust only this CA (PEM) for the other services; empty: the system's roots.
    pub ca: String,
    /// A client certificate (PEM) to present to services that require one (mutual TLS).
    pub cert: String,
    /// Its key (PEM).
    pub key: String,
}

impl ServicesTls {
    /// As the clients take it.
    #[must_use]
    pub fn client(&self) -> hanniball_client::ClientTls {
        let path = |p: &str| (!p.is_empty()).then(|| PathBuf::from(p));
        hanniball_client::ClientTls {
            ca: path(&self.ca),
            cert: path(&self.cert),
            key: path(&self.key),
        }
    }
}

/// `[server.tls]`: TLS on the service port. Empty paths: unset.
#[derive(Clone, Debug, Deserialize)]
pub struct ServerTls {
    /// The certificate chain (PEM, leaf first); with `key`, the port speaks only TLS.
    pub cert: String,
    /// The private key (PEM).
    pub key: String,
    /// When set, every client must present a certificate issued by this CA (mutual TLS: for a
    /// service that only other services call).
    pub client_ca: String,
    /// How often the files are checked for a renewed certificate, in milliseconds (SIGHUP
    /// checks at once).
    pub reload_ms: u64,
}

#[cfg(feature = "server")]
impl ServerTls {
    /// The files, when TLS is configured; an error when only half of it is.
    pub fn files(&self) -> Result<Option<hanniball_svc_kit::TlsFiles>> {
        match (self.cert.is_empty(), self.key.is_empty()) {
            (true, true) => {
                if !self.client_ca.is_empty() {
                    anyhow::bail!(
                        "server.tls.client_ca is set but server.tls.cert and key are not"
                    );
                }
                Ok(None)
            }
            (false, false) => Ok(Some(hanniball_svc_kit::TlsFiles {
                cert: PathBuf::from(&self.cert),
                key: PathBuf::from(&self.key),
                client_ca: (!self.client_ca.is_empty()).then(|| PathBuf::from(&self.client_ca)),
            })),
            (true, false) => anyhow::bail!("server.tls.key is set but server.tls.cert is not"),
            (false, true) => anyhow::bail!("server.tls.cert is set but server.tls.key is not"),
        }
    }
}

#[derive(Clone, Debug, Deserialize)]
pub struct Matchmaking {
    /// Rating difference accepted at once.
    pub base_window: u32,
    /// Rating points the window grows per second of waiting.
    pub widening_per_second: u32,
    /// The window never grows past this.
    pub max_window: u32,
    /// How often the queue is matched, in milliseconds.
    pub tick_ms: u64,
}

#[derive(Clone, Debug, Deserialize)]
pub struct Server {
    /// Address to listen on.
    pub listen: String,
    /// Steady calls per second per caller (token, or peer address without one); 0: no limit.
    /// (The edge limits' defaults are the server's: absent, 0, in a client-only build.)
    #[serde(default)]
    pub calls_per_second: u32,
    /// Calls above the steady rate a caller may make at once.
    #[serde(default)]
    pub burst: u32,
    /// Calls (streams included) a caller may have open at once; 0: no limit.
    #[serde(default)]
    pub open_calls: u32,
    /// Failed authentications per peer address per minute before it is refused; 0: no limit.
    #[serde(default)]
    pub failed_auth_per_minute: u32,
    /// A second address serving only gRPC health, in plain text, for probes that cannot speak
    /// TLS (Kubernetes' `grpc` probe); empty: none.
    pub health_listen: String,
    /// An address serving `/metrics` in the Prometheus text format, in plain HTTP (for the
    /// scraper; keep it off the public network); empty: none.
    pub metrics_listen: String,
    /// The web pages' address (plain HTTP; put TLS in front for the public); empty: none.
    pub web_listen: String,
    /// Serve plain text on a non-loopback address without a warning (behind a proxy that
    /// terminates TLS).
    pub allow_plaintext: bool,
    /// TLS on the service port (`[server.tls]`).
    pub tls: ServerTls,
}

#[cfg(feature = "server")]
impl Server {
    /// The limits every request is held to.
    #[must_use]
    pub fn edge_limits(&self) -> hanniball_svc_kit::EdgeLimits {
        hanniball_svc_kit::EdgeLimits {
            calls_per_second: self.calls_per_second,
            burst: self.burst,
            open_calls: self.open_calls,
            failed_auth_per_minute: self.failed_auth_per_minute,
            trusted_tokens: Vec::new(),
            admin_token: None,
            stalled: hanniball_svc_kit::limits::STALLED,
        }
    }
}

#[derive(Clone, Debug, Deserialize)]
pub struct Database {
    /// `sqlite://...` or `postgres://...`; empty: `<data_dir>/hanniball.sqlite`.
    pub url: String,
}

#[derive(Clone, Debug, Deserialize)]
pub struct Auth {
    /// The admin bearer token; empty: read from `admin_token_file` (generated there once if the
    /// file does not exist), and read again while serving, so that replacing the file rotates it.
    pub admin_token: String,
    /// The file holding the admin token; empty: `<data_dir>/admin-token`.
    pub admin_token_file: String,
}

#[derive(Clone, Debug, Deserialize)]
pub struct Log {
    /// An env-filter directive (`info`, `hanniball_arbiter_svc=debug,info`); `RUST_LOG` wins.
    pub filter: String,
    /// `text` or `json`.
    pub format: String,
}

/// The default config file, read if present.
pub const DEFAULT_FILE: &str = "hanniball.toml";

impl Settings {
    /// Loads settings; `file` must exist when given, `hanniball.toml` is read if it exists.
    pub fn load(file: Option<&Path>) -> Result<Settings> {
        let builder = config::Config::builder();
        #[cfg(feature = "server")]
        let builder = {
            let edge = hanniball_svc_kit::EdgeLimits::default();
            builder
                .set_default("server.calls_per_second", edge.calls_per_second)?
                .set_default("server.burst", edge.burst)?
                .set_default("server.open_calls", edge.open_calls)?
                .set_default("server.failed_auth_per_minute", edge.failed_auth_per_minute)?
        };
        let builder = builder
            .set_default("data_dir", "hanniball-data")?
            .set_default("server.listen", "127.0.0.1:50051")?
            .set_default("server.allow_plaintext", false)?
            .set_default("server.health_listen", "")?
            .set_default("server.metrics_listen", "")?
            .set_default("server.web_listen", DEFAULT_WEB_LISTEN)?
            .set_default("web.token", "")?
            .set_default("web.public_url", "")?
            .set_default("web.secure_cookies", false)?
            .set_default("server.tls.cert", "")?
            .set_default("server.tls.key", "")?
            .set_default("server.tls.client_ca", "")?
            .set_default("server.tls.reload_ms", 10_000)?
            .set_default("services.tls.ca", "")?
            .set_default("services.tls.cert", "")?
            .set_default("services.tls.key", "")?
            .set_default("database.url", "")?
            .set_default("auth.admin_token", "")?
            .set_default("auth.admin_token_file", "")?
            .set_default("log.filter", "info")?
            .set_default("log.format", "text")?
            .set_default("services.arbiter_url", "")?
            .set_default("services.accounts_url", "")?
            .set_default("services.rating_url", "")?
            .set_default("services.scheduler_url", "")?
            .set_default("matchmaking.base_window", 100)?
            .set_default("matchmaking.widening_per_second", 20)?
            .set_default("matchmaking.max_window", 1000)?
            .set_default("matchmaking.tick_ms", 500)?;
        let builder = match file {
            Some(path) => builder.add_source(config::File::from(path).required(true)),
            None => builder.add_source(config::File::with_name(DEFAULT_FILE).required(false)),
        };
        let settings: Settings = builder
            .add_source(
                config::Environment::with_prefix("HANNIBALL")
                    .prefix_separator("__")
                    .separator("__"),
            )
            .build()
            .context("reading configuration")?
            .try_deserialize()
            .context("configuration has a wrong value")?;
        if !matches!(settings.log.format.as_str(), "text" | "json") {
            anyhow::bail!(
                "log.format must be text or json, not {:?}",
                settings.log.format
            );
        }
        Ok(settings)
    }

    /// The database URL, defaulting to a SQLite file in the data directory.
    #[must_use]
    pub fn database_url(&self) -> String {
        if self.database.url.is_empty() {
            format!(
                "sqlite://{}?mode=rwc",
                self.data_dir.join("hanniball.sqlite").display()
            )
        } else {
            self.database.url.clone()
        }
    }

    /// The admin token's file (`auth.admin_token_file`, default `<data_dir>/admin-token`).
    #[must_use]
    pub fn admin_token_file(&self) -> PathBuf {
        if self.auth.admin_token_file.is_empty() {
            self.data_dir.join("admin-token")
        } else {
            PathBuf::from(&self.auth.admin_token_file)
        }
    }
}

/// `[rating]`: the rating service's ladders and systems. Environment variables override single
/// keys: `HANNIBALL__RATING__SYSTEM=glicko2`, `HANNIBALL__RATING__ELO__INITIAL=1200`.
///
/// ```toml
/// [rating]
/// system = "elo"                 # every ladder's system unless named below: elo or glicko2
/// split_by_time_control = false  # true: ladders per category (hanniball/blitz, ...)
/// consume_results = true         # rate the arbiter's finished games (services.arbiter_url)
/// [rating.ladders]
/// paper-football = "glicko2"     # by game kind or by ladder name
/// [rating.elo]
/// initial = 1500
/// [rating.glicko2]
/// tau = 0.5
/// ```
#[derive(Clone, Debug, Deserialize)]
#[serde(default)]
pub struct RatingSettings {
    /// `elo` (default) or `glicko2`.
    pub system: String,
    /// One ladder per game kind and time-control category instead of one per game kind.
    pub split_by_time_control: bool,
    /// Take finished games from the arbiter; false: only the `RecordResult` call records games.
    pub consume_results: bool,
    /// Systems by ladder name or game kind: `elo` or `glicko2`.
    pub ladders: std::collections::BTreeMap<String, String>,
    /// Parameters of Elo ladders (defaults: FIDE 2024, initial 1500).
    pub elo: EloSettings,
    /// Parameters of Glicko-2 ladders (defaults: Glickman's, one idle period per day).
    pub glicko2: Glicko2Settings,
}

impl Default for RatingSettings {
    fn default() -> Self {
        RatingSettings {
            system: "elo".to_owned(),
            split_by_time_control: false,
            consume_results: true,
            ladders: std::collections::BTreeMap::new(),
            elo: EloSettings::default(),
            glicko2: Glicko2Settings::default(),
        }
    }
}

/// `[rating.elo]`: the fields of `hanniball_rating::EloConfig`.
#[derive(Clone, Debug, Deserialize)]
#[serde(default)]
pub struct EloSettings {
    pub initial: i32,
    pub provisional_games: u32,
    pub new_player_games: u32,
    pub k_new: u32,
    pub k_standard: u32,
    pub k_master: u32,
    pub master_threshold: i32,
    pub period_k_cap: u32,
    pub difference_cap: i32,
    /// The 1 October 2025 amendment (no 400-point cap from this rating on); 0: off.
    pub uncapped_from: i32,
}

impl Default for EloSettings {
    fn default() -> Self {
        let c = hanniball_rating::EloConfig::default();
        EloSettings {
            initial: c.initial,
            provisional_games: c.provisional_games,
            new_player_games: c.new_player_games,
            k_new: c.k_new,
            k_standard: c.k_standard,
            k_master: c.k_master,
            master_threshold: c.master_threshold,
            period_k_cap: c.period_k_cap,
            difference_cap: c.difference_cap,
            uncapped_from: c.uncapped_from.unwrap_or(0),
        }
    }
}

/// `[rating.glicko2]`: the fields of `hanniball_rating::Glicko2Config`.
#[derive(Clone, Debug, Deserialize)]
#[serde(default)]
pub struct Glicko2Settings {
    pub initial_rating: f64,
    pub initial_deviation: f64,
    pub initial_volatility: f64,
    pub tau: f64,
    pub min_deviation: f64,
    pub max_deviation: f64,
    pub min_volatility: f64,
    pub max_volatility: f64,
    pub period_seconds: i64,
    pub provisional_deviation: f64,
}

impl Default for Glicko2Settings {
    fn default() -> Self {
        let c = hanniball_rating::Glicko2Config::default();
        Glicko2Settings {
            initial_rating: c.initial_rating,
            initial_deviation: c.initial_deviation,
            initial_volatility: c.initial_volatility,
            tau: c.tau,
            min_deviation: c.min_deviation,
            max_deviation: c.max_deviation,
            min_volatility: c.min_volatility,
            max_volatility: c.max_volatility,
            period_seconds: c.period_seconds,
            provisional_deviation: c.provisional_deviation,
        }
    }
}

impl RatingSettings {
    /// The system called `name` with this section's parameters.
    fn system(&self, name: &str) -> Result<hanniball_rating::System> {
        let e = &self.elo;
        let g = &self.glicko2;
        match name {
            "elo" => Ok(hanniball_rating::System::Elo(hanniball_rating::EloConfig {
                initial: e.initial,
                provisional_games: e.provisional_games,
                new_player_games: e.new_player_games,
                k_new: e.k_new,
                k_standard: e.k_standard,
                k_master: e.k_master,
                master_threshold: e.master_threshold,
                period_k_cap: e.period_k_cap,
                difference_cap: e.difference_cap,
                uncapped_from: (e.uncapped_from > 0).then_some(e.uncapped_from),
            })),
            "glicko2" => Ok(hanniball_rating::System::Glicko2(
                hanniball_rating::Glicko2Config {
                    initial_rating: g.initial_rating,
                    initial_deviation: g.initial_deviation,
                    initial_volatility: g.initial_volatility,
                    tau: g.tau,
                    min_deviation: g.min_deviation,
                    max_deviation: g.max_deviation,
                    min_volatility: g.min_volatility,
                    max_volatility: g.max_volatility,
                    period_seconds: g.period_seconds,
                    provisional_deviation: g.provisional_deviation,
                },
            )),
            other => anyhow::bail!("rating system must be elo or glicko2, not {other:?}"),
        }
    }
}

/// Puts the `[rating]` settings into the rating service's options (the service checks the
/// systems' parameters and the ladder names when it starts).
#[cfg(feature = "server")]
pub fn apply_rating(
    settings: &Settings,
    options: &mut hanniball_rating_svc::RatingOptions,
) -> Result<()> {
    let rating = &settings.rating;
    options.default_system = rating.system(&rating.system).context("rating.system")?;
    options.ladders = rating
        .ladders
        .iter()
        .map(|(ladder, system)| {
            Ok((
                ladder.clone(),
                rating
                    .system(system)
                    .with_context(|| format!("rating.ladders.{ladder}"))?,
            ))
        })
        .collect::<Result<_>>()?;
    options.split_by_time_control = rating.split_by_time_control;
    if !rating.consume_results {
        options.arbiter_url = None;
    }
    Ok(())
}

#[cfg(all(test, feature = "server"))]
mod rating_tests {
    use super::*;

    #[test]
    fn rating_defaults_and_overrides() {
        let settings = Settings::load(Some(Path::new("/dev/null/none.toml")));
        assert!(settings.is_err(), "a named file must exist");
        let dir = std::env::temp_dir().join(format!("hb-settings-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("dir");
        let file = dir.join("rating.toml");
        std::fs::write(
            &file,
            "[rating]\nsplit_by_time_control = true\n[rating.ladders]\npaper-football = \"glicko2\"\n\
             [rating.elo]\ninitial = 1200\n",
        )
        .expect("write");
        let settings = Settings::load(Some(&file)).expect("settings");
        let mut options = hanniball_rating_svc::RatingOptions::new("t");
        options.arbiter_url = Some("http://x".to_owned());
        apply_rating(&settings, &mut options).expect("apply");
        assert!(options.split_by_time_control);
        assert_eq!(options.arbiter_url.as_deref(), Some("http://x"));
        assert!(
            matches!(&options.default_system, hanniball_rating::System::Elo(c) if c.initial == 1200)
        );
        assert!(matches!(
            options.ladders.get("paper-football"),
            Some(hanniball_rating::System::Glicko2(_))
        ));
        let defaults = Settings::load(None).expect("defaults");
        assert_eq!(defaults.rating.system, "elo");
        assert!(defaults.rating.consume_results);
        std::fs::remove_dir_all(&dir).ok();
    }
}

#[cfg(test)]
mod example {
    use super::Settings;

    /// `deploy/hanniball.example.toml` loads, and its [rating] section says what the defaults
    /// are (no placeholder, no drift).
    #[test]
    fn the_example_configuration_states_the_rating_defaults() {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../../deploy/hanniball.example.toml");
        let example = Settings::load(Some(&path)).expect("the example loads");
        let defaults = Settings::load(None).expect("defaults");
        let (a, b) = (&example.rating, &defaults.rating);
        assert_eq!(a.system, b.system);
        assert_eq!(a.split_by_time_control, b.split_by_time_control);
        assert_eq!(a.consume_results, b.consume_results);
        assert_eq!(format!("{:?}", a.elo), format!("{:?}", b.elo));
        assert_eq!(format!("{:?}", a.glicko2), format!("{:?}", b.glicko2));
        let text = std::fs::read_to_string(&path).expect("read");
        assert!(!text.contains("PLACEHOLDER"));
    }
}
