//! TLS on the gRPC port: rustls (on ring) in front of tonic, with the certificate reloaded when
//! its files change, so that a renewal needs no restart; and the connections the server accepts
//! (TLS from the network, plain from the loopback-only listener that services of one process use
//! to call each other).
//!
//! tonic's own `tls_config` fixes the certificate when the server starts; this acceptor reads the
//! current configuration for each new connection instead. Open connections keep the certificate
//! they were made with.

use std::path::{Path, PathBuf};
use std::sync::{Arc, RwLock};
use std::time::Duration;

use tokio::net::{TcpListener, TcpStream};
use tokio::sync::{Semaphore, mpsc};
use tokio_rustls::TlsAcceptor;
use tokio_rustls::rustls::pki_types::pem::PemObject;
use tokio_rustls::rustls::pki_types::{CertificateDer, PrivateKeyDer};
use tokio_rustls::rustls::server::WebPkiClientVerifier;
use tokio_rustls::rustls::sign::CertifiedKey;
use tokio_rustls::rustls::{self, RootCertStore, ServerConfig};
use tokio_util::sync::CancellationToken;

use crate::conn::Conn;

/// A TLS file that could not be used, with the setting and the file it names.
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub struct TlsError(String);

/// The files of the server's TLS configuration.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TlsFiles {
    /// The certificate chain (PEM), leaf first.
    pub cert: PathBuf,
    /// The private key (PEM: PKCS#8, PKCS#1 or SEC1).
    pub key: PathBuf,
    /// When set, clients must present a certificate issued by this CA (mutual TLS).
    pub client_ca: Option<PathBuf>,
}

/// How long a client may take over its TLS handshake before the connection is dropped.
const HANDSHAKE_TIMEOUT: Duration = Duration::from_secs(10);
/// Handshakes in progress at once; more connections wait for a slot (so a flood of slow
/// handshakes holds a bounded amount of memory).
const HANDSHAKES: usize = 256;
/// Handshakes in progress at once from one address. A new connection from an address at its
/// cap ends the address's oldest handshake: silent sockets (opened and never spoken on) cannot
/// hold the server's slots, and a real client, whose handshake takes milliseconds, is never the
/// oldest for long.
const HANDSHAKES_PER_ADDRESS: usize = 16;

/// The handshakes in progress per address: an id and what ends it, oldest first.
type Pending = std::sync::Mutex<
    std::collections::HashMap<
        Option<std::net::IpAddr>,
        std::collections::VecDeque<(u64, CancellationToken)>,
    >,
>;

/// Registers a handshake from `ip`, ending the address's oldest when it is at its cap.
fn start_handshake(pending: &Pending, ip: Option<std::net::IpAddr>, id: u64) -> CancellationToken {
    let token = CancellationToken::new();
    let mut pending = pending
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    let queue = pending.entry(ip).or_default();
    while queue.len() >= HANDSHAKES_PER_ADDRESS {
        if let Some((_, oldest)) = queue.pop_front() {
            oldest.cancel();
        }
    }
    queue.push_back((id, token.clone()));
    token
}

/// Forgets handshake `id` from `ip` (finished, failed, timed out or ended).
fn end_handshake(pending: &Pending, ip: Option<std::net::IpAddr>, id: u64) {
    let mut pending = pending
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    if let Some(queue) = pending.get_mut(&ip) {
        queue.retain(|(other, _)| *other != id);
        if queue.is_empty() {
            pending.remove(&ip);
        }
    }
}

fn read(setting: &str, path: &Path) -> Result<Vec<u8>, TlsError> {
    std::fs::read(path).map_err(|error| {
        TlsError(format!(
            "{setting}: cannot read {}: {error}",
            path.display()
        ))
    })
}

fn certificates(
    setting: &str,
    path: &Path,
    pem: &[u8],
) -> Result<Vec<CertificateDer<'static>>, TlsError> {
    let certs = CertificateDer::pem_slice_iter(pem)
        .collect::<Result<Vec<_>, _>>()
        .map_err(|error| TlsError(format!("{setting}: {} is not PEM: {error}", path.display())))?;
    if certs.is_empty() {
        return Err(TlsError(format!(
            "{setting}: {} holds no certificate (expected PEM `BEGIN CERTIFICATE` blocks)",
            path.display()
        )));
    }
    Ok(certs)
}

/// The server's configuration from `files`, or what is wrong with them.
fn server_config(files: &TlsFiles) -> Result<ServerConfig, TlsError> {
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let cert_pem = read("server.tls.cert", &files.cert)?;
    let key_pem = read("server.tls.key", &files.key)?;
    let chain = certificates("server.tls.cert", &files.cert, &cert_pem)?;
    let key = PrivateKeyDer::from_pem_slice(&key_pem).map_err(|error| {
        TlsError(format!(
            "server.tls.key: {} holds no usable private key: {error}",
            files.key.display()
        ))
    })?;
    let certified = CertifiedKey::from_der(chain, key, &provider).map_err(|error| {
        TlsError(format!(
            "server.tls.key: the key in {} does not go with the certificate in {}: {error}",
            files.key.display(),
            files.cert.display()
        ))
    })?;
    let builder = ServerConfig::builder_with_provider(provider.clone())
        .with_safe_default_protocol_versions()
        .map_err(|error| TlsError(format!("TLS versions: {error}")))?;
    let builder = match &files.client_ca {
        None => builder.with_no_client_auth(),
        Some(path) => {
            let pem = read("server.tls.client_ca", path)?;
            let mut roots = RootCertStore::empty();
            for cert in certificates("server.tls.client_ca", path, &pem)? {
                roots.add(cert).map_err(|error| {
                    TlsError(format!(
                        "server.tls.client_ca: a certificate in {} cannot be a CA: {error}",
                        path.display()
                    ))
                })?;
            }
            let verifier = WebPkiClientVerifier::builder_with_provider(Arc::new(roots), provider)
                .build()
                .map_err(|error| TlsError(format!("server.tls.client_ca: {error}")))?;
            builder.with_client_cert_verifier(verifier)
        }
    };
    let mut config =
        builder.with_cert_resolver(Arc::new(rustls::sign::SingleCertAndKey::from(certified)));
    // gRPC is HTTP/2 only.
    config.alpn_protocols = vec![b"h2".to_vec()];
    Ok(config)
}

/// The server's TLS: the current acceptor, replaced when the files change.
#[derive(Debug)]
pub struct ServerTls {
    files: TlsFiles,
    current: RwLock<(Vec<Vec<u8>>, Arc<ServerConfig>)>,
}

impl ServerTls {
    /// Loads `files`; the error names the setting and the file that is wrong (missing,
    /// unreadable, not PEM, a key that does not match the certificate).
    pub fn load(files: TlsFiles) -> Result<Arc<ServerTls>, TlsError> {
        let config = server_config(&files)?;
        let contents = Self::contents(&files);
        Ok(Arc::new(ServerTls {
            current: RwLock::new((contents, Arc::new(config))),
            files,
        }))
    }

    fn contents(files: &TlsFiles) -> Vec<Vec<u8>> {
        [
            Some(&files.cert),
            Some(&files.key),
            files.client_ca.as_ref(),
        ]
        .into_iter()
        .flatten()
        .map(|path| std::fs::read(path).unwrap_or_default())
        .collect()
    }

    fn acceptor(&self) -> TlsAcceptor {
        TlsAcceptor::from(Arc::clone(
            &self
                .current
                .read()
                .unwrap_or_else(std::sync::PoisonError::into_inner)
                .1,
        ))
    }

    /// Reads the files again and, if they changed and make a valid configuration, uses them for
    /// new connections. `Ok(true)`: reloaded; `Ok(false)`: unchanged; an error keeps the
    /// configuration in use (a renewal half written is retried at the next check).
    pub fn reload(&self) -> Result<bool, TlsError> {
        let contents = Self::contents(&self.files);
        if self
            .current
            .read()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .0
            == contents
        {
            return Ok(false);
        }
        let config = server_config(&self.files)?;
        *self
            .current
            .write()
            .unwrap_or_else(std::sync::PoisonError::into_inner) = (contents, Arc::new(config));
        Ok(true)
    }

    /// Checks the files every `interval` until `shutdown`, logging each reload and each failed one.
    pub fn watch(self: &Arc<Self>, interval: Duration, shutdown: CancellationToken) {
        let tls = Arc::clone(self);
        tokio::spawn(async move {
            while crate::pause(interval, &shutdown).await {
                match tls.reload() {
                    Ok(true) => tracing::info!(
                        cert = %tls.files.cert.display(),
                        "reloaded the TLS certificate"
                    ),
                    Ok(false) => {}
                    Err(error) => {
                        tracing::error!(%error, "the changed TLS files are not usable; keeping the old ones");
                    }
                }
            }
        });
    }
}

/// Accepts on `listener` (through `tls` when given) and, plain, on `internal`, until `shutdown`;
/// the connections come out of the returned channel. Handshakes run in their own tasks, so a
/// slow client never holds up the next one.
pub(crate) fn accept(
    listener: TcpListener,
    tls: Option<Arc<ServerTls>>,
    internal: Option<TcpListener>,
    stalled: Duration,
    shutdown: CancellationToken,
) -> mpsc::Receiver<Conn> {
    let (sender, receiver) = mpsc::channel(64);
    let handshakes = Arc::new(Semaphore::new(HANDSHAKES));
    let pending: Arc<Pending> = Arc::default();
    let mut next_id: u64 = 0;
    {
        let sender = sender.clone();
        let shutdown = shutdown.clone();
        tokio::spawn(async move {
            while let Some(stream) = accept_one(&listener, &shutdown).await {
                let Some(tls) = &tls else {
                    if sender.send(Conn::plain(stream, stalled)).await.is_err() {
                        return;
                    }
                    continue;
                };
                let peer = stream.peer_addr().ok();
                let ip = peer.map(|p| p.ip());
                next_id += 1;
                let id = next_id;
                // Before waiting for a slot: ending this address's oldest handshake may free one.
                let ended = start_handshake(&pending, ip, id);
                let Ok(permit) = Arc::clone(&handshakes).acquire_owned().await else {
                    return;
                };
                let acceptor = tls.acceptor();
                let sender = sender.clone();
                let pending = Arc::clone(&pending);
                tokio::spawn(async move {
                    let handshake =
                        tokio::time::timeout(HANDSHAKE_TIMEOUT, acceptor.accept(stream));
                    let outcome = tokio::select! {
                        () = ended.cancelled() => None,
                        outcome = handshake => Some(outcome),
                    };
                    end_handshake(&pending, ip, id);
                    match outcome {
                        Some(Ok(Ok(stream))) => {
                            drop(permit);
                            let _ = sender.send(Conn::tls(stream, stalled)).await;
                        }
                        Some(Ok(Err(error))) => {
                            tracing::debug!(?peer, %error, "TLS handshake failed");
                        }
                        Some(Err(_)) => tracing::debug!(?peer, "TLS handshake timed out"),
                        None => tracing::debug!(
                            ?peer,
                            "TLS handshake ended: newer connections from the address"
                        ),
                    }
                });
            }
        });
    }
    if let Some(internal) = internal {
        tokio::spawn(async move {
            while let Some(stream) = accept_one(&internal, &shutdown).await {
                if sender.send(Conn::plain(stream, stalled)).await.is_err() {
                    return;
                }
            }
        });
    }
    receiver
}

/// The next connection on `listener` (with Nagle off), or `None` at shutdown. Accept errors
/// (too many open files, a connection reset before it was accepted) are logged and waited out.
async fn accept_one(listener: &TcpListener, shutdown: &CancellationToken) -> Option<TcpStream> {
    loop {
        let accepted = tokio::select! {
            () = shutdown.cancelled() => return None,
            accepted = listener.accept() => accepted,
        };
        match accepted {
            Ok((stream, _)) => {
                let _ = stream.set_nodelay(true);
                return Some(stream);
            }
            Err(error) => {
                tracing::warn!(%error, "accepting a connection failed");
                if !crate::pause(Duration::from_millis(50), shutdown).await {
                    return None;
                }
            }
        }
    }
}
