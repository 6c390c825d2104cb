//! Configuration: defaults, then an optional TOML file, then environment variables with the
//! `HANNIBALL__` prefix (`HANNIBALL__DATABASE__URL=postgres://...`). Later sources win.

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
}

#[derive(Clone, Debug, Deserialize)]
pub struct Services {
    /// The arbiter's URL for the services that call it (scheduler, rating); empty: this process.
    pub arbiter_url: String,
    /// The rating service's URL for the scheduler; empty: this process.
    pub rating_url: String,
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
}

#[derive(Clone, Debug, Deserialize)]
pub struct Database {
    /// `sqlite://...` or `postgres://...`; empty: `<data_dir>/hanniball.sqlite`.
    pub url: String,
}

#[derive(Clone, Debug, Deserialize)]
pub struct Auth {
    /// The admin bearer token; empty: generated once and kept in `<data_dir>/admin-token`.
    pub admin_token: String,
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
        let builder = config::Config::builder()
            .set_default("data_dir", "hanniball-data")?
            .set_default("server.listen", "127.0.0.1:50051")?
            .set_default("database.url", "")?
            .set_default("auth.admin_token", "")?
            .set_default("log.filter", "info")?
            .set_default("log.format", "text")?
            .set_default("services.arbiter_url", "")?
            .set_default("services.rating_url", "")?
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

    /// Where a generated admin token is kept.
    #[must_use]
    pub fn admin_token_file(&self) -> PathBuf {
        self.data_dir.join("admin-token")
    }
}
