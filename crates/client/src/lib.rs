//! The client side of the HanniBall gRPC API, for the services calling each other, the web
//! pages, the CLI and bots in Rust: a bearer-token interceptor and a lazily connecting channel
//! (over TLS for `https://` URLs, balanced over several replicas).
//!
//! What this crate does NOT do: nothing of the server (no auth checks, no database, no edge):
//! a client linking it links no database driver.

use std::path::PathBuf;

use tokio::sync::mpsc::Sender;
use tonic::metadata::MetadataValue;
use tonic::transport::channel::Change;
use tonic::transport::{Certificate, Channel, ClientTlsConfig, Endpoint, Identity};
use tonic::{Request, Status};

/// Adds `authorization: Bearer <token>` to every call (nothing when there is no token).
#[derive(Clone, Debug, Default)]
pub struct Bearer(Option<String>);

impl Bearer {
    /// An interceptor sending `token`.
    #[must_use]
    pub fn new(token: &str) -> Bearer {
        Bearer(Some(token.to_owned()))
    }

    /// An interceptor sending no token.
    #[must_use]
    pub fn none() -> Bearer {
        Bearer(None)
    }
}

impl tonic::service::Interceptor for Bearer {
    fn call(&mut self, mut request: Request<()>) -> Result<Request<()>, Status> {
        if let Some(token) = &self.0 {
            let value: MetadataValue<_> = format!("Bearer {token}")
                .parse()
                .map_err(|_| Status::invalid_argument("the token is not ASCII"))?;
            request.metadata_mut().insert("authorization", value);
        }
        Ok(request)
    }
}

/// How a client checks the server, and proves who it is, over TLS (`https://` URLs).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ClientTls {
    /// Trust only this CA (PEM); `None`: the system's roots.
    pub ca: Option<PathBuf>,
    /// A client certificate (PEM) to present, for servers that require one (mutual TLS).
    pub cert: Option<PathBuf>,
    /// The key of `cert` (PEM).
    pub key: Option<PathBuf>,
}

impl ClientTls {
    /// True when nothing is set (system roots, no client certificate).
    #[must_use]
    pub fn is_default(&self) -> bool {
        *self == ClientTls::default()
    }
}

/// Why a channel could not be set up.
#[derive(Debug, thiserror::Error)]
pub enum ConnectError {
    #[error("bad server URL {url:?}: {source}")]
    Url {
        url: String,
        source: tonic::transport::Error,
    },
    #[error("cannot read {what} {path}: {source}")]
    File {
        what: &'static str,
        path: String,
        source: std::io::Error,
    },
    #[error("{0}")]
    Config(String),
}

fn read(what: &'static str, path: &std::path::Path) -> Result<Vec<u8>, ConnectError> {
    std::fs::read(path).map_err(|source| ConnectError::File {
        what,
        path: path.display().to_string(),
        source,
    })
}

/// The endpoint for `url`: TLS for `https://` (checked against `tls.ca` or the system roots,
/// with `tls`'s client certificate if any), plain for `http://` (where `tls` is not used).
pub fn endpoint(url: &str, tls: &ClientTls) -> Result<Endpoint, ConnectError> {
    let bad_url = |source| ConnectError::Url {
        url: url.to_owned(),
        source,
    };
    let endpoint = Endpoint::from_shared(url.to_owned())
        .map_err(bad_url)?
        .connect_timeout(std::time::Duration::from_secs(5))
        .tcp_nodelay(true);
    if !url.starts_with("https://") {
        return Ok(endpoint);
    }
    let mut config = ClientTlsConfig::new();
    config = match &tls.ca {
        Some(ca) => config.ca_certificate(Certificate::from_pem(read("the CA file", ca)?)),
        None => config.with_native_roots(),
    };
    match (&tls.cert, &tls.key) {
        (Some(cert), Some(key)) => {
            config = config.identity(Identity::from_pem(
                read("the client certificate", cert)?,
                read("the client key", key)?,
            ));
        }
        (None, None) => {}
        _ => {
            return Err(ConnectError::Config(
                "a client certificate needs both a certificate and a key file".to_owned(),
            ));
        }
    }
    endpoint.tls_config(config).map_err(bad_url)
}

/// A channel to `url` that connects on first use and reconnects after a failure, so a service
/// can start before the one it calls; over TLS for `https://` URLs, trusting the system roots.
pub fn connect(url: &str) -> Result<Channel, ConnectError> {
    connect_with(url, &ClientTls::default())
}

/// [`connect`] with the given TLS settings. Several URLs separated by commas make one channel
/// that balances every call over them (client-side, per request: replicas without a balancer in
/// front). A replica that stops accepting connections is left out within about a second (a
/// background probe opens a TCP connection to each every [`PROBE_EVERY`]) and taken back when it
/// accepts again; while none accepts, all stay in, so calls fail at once with `UNAVAILABLE`
/// rather than wait.
pub fn connect_with(url: &str, tls: &ClientTls) -> Result<Channel, ConnectError> {
    if !url.contains(',') {
        return Ok(endpoint(url, tls)?.connect_lazy());
    }
    let endpoints = url
        .split(',')
        .map(str::trim)
        .filter(|u| !u.is_empty())
        .map(|u| endpoint(u, tls))
        .collect::<Result<Vec<_>, _>>()?;
    let (channel, changes) = Channel::balance_channel::<usize>(endpoints.len() * 2 + 1);
    for (key, endpoint) in endpoints.iter().enumerate() {
        changes
            .try_send(Change::Insert(key, endpoint.clone()))
            .map_err(|_| ConnectError::Config("the balancer did not start".to_owned()))?;
    }
    tokio::spawn(probe_replicas(endpoints, changes));
    Ok(channel)
}

/// How often [`connect_with`]'s balancer checks that each replica accepts connections.
pub const PROBE_EVERY: std::time::Duration = std::time::Duration::from_millis(500);

/// `host:port` of an endpoint, with the scheme's default port when the URL has none.
fn address(endpoint: &Endpoint) -> Option<String> {
    let uri = endpoint.uri();
    let authority = uri.authority()?;
    Some(match authority.port_u16() {
        Some(_) => authority.as_str().to_owned(),
        None if uri.scheme_str() == Some("https") => format!("{}:443", authority.host()),
        None => format!("{}:80", authority.host()),
    })
}

/// Keeps the balancer's set of replicas to those that accept a TCP connection (all of them when
/// none does); ends when the channel is dropped.
async fn probe_replicas(endpoints: Vec<Endpoint>, changes: Sender<Change<usize, Endpoint>>) {
    let addresses: Vec<Option<String>> = endpoints.iter().map(address).collect();
    let mut included = vec![true; endpoints.len()];
    loop {
        tokio::select! {
            () = changes.closed() => return,
            () = tokio::time::sleep(PROBE_EVERY) => {}
        }
        let mut alive = Vec::with_capacity(addresses.len());
        for address in &addresses {
            alive.push(match address {
                Some(address) => matches!(
                    tokio::time::timeout(PROBE_EVERY, tokio::net::TcpStream::connect(address))
                        .await,
                    Ok(Ok(_))
                ),
                None => true,
            });
        }
        let any_alive = alive.iter().any(|a| *a);
        for (key, endpoint) in endpoints.iter().enumerate() {
            let want = alive[key] || !any_alive;
            if want == included[key] {
                continue;
            }
            let change = if want {
                tracing::info!(replica = %endpoint.uri(), "replica accepts connections again");
                Change::Insert(key, endpoint.clone())
            } else {
                tracing::warn!(replica = %endpoint.uri(), "replica unreachable; left out");
                Change::Remove(key)
            };
            if changes.send(change).await.is_err() {
                return;
            }
            included[key] = want;
        }
    }
}

/// Waits `delay`, or less if `shutdown` comes first; false on shutdown. The retry loops of every
/// service and of the bot client back off with it.
pub async fn pause(
    delay: std::time::Duration,
    shutdown: &tokio_util::sync::CancellationToken,
) -> bool {
    tokio::select! {
        () = shutdown.cancelled() => false,
        () = tokio::time::sleep(delay) => true,
    }
}
