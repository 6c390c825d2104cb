//! The edge every request crosses before a service sees it: per-caller rate limits, a cap on open
//! calls (streams included) per caller, a cap on failed authentications per peer address, and
//! panic containment.
//!
//! The caller is the bearer token (its SHA-256, so no token is kept in memory twice), or the peer
//! address when the call carries none. The rate limit is GCRA from `governor` (a burst, then a
//! steady rate); a refusal is `RESOURCE_EXHAUSTED` with the wait in the message and in the
//! `retry-after` (seconds) and `grpc-retry-pushback-ms` metadata that gRPC clients know. Failed
//! authentications are seen on the way out (an `UNAUTHENTICATED` answer), so the services keep
//! their own auth; a peer past the cap is refused up front until its window has passed.

use std::collections::HashMap;
use std::net::IpAddr;
use std::num::NonZeroU32;
use std::pin::Pin;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::task::{Context, Poll};
use std::time::{Duration, Instant};

use crate::conn::ConnInfo;
use governor::clock::{Clock, DefaultClock};
use governor::{DefaultKeyedRateLimiter, Quota};
use sha2::{Digest, Sha256};
use tonic::codegen::http::{Request, Response};
use tonic::codegen::{Bytes, Service};

/// The limits of [`EdgeLayer`]. The defaults are generous: a busy bot stays far below them.
#[derive(Clone, Debug, PartialEq)]
pub struct EdgeLimits {
    /// Steady calls per second per caller (token, or peer address without one); 0: no limit.
    pub calls_per_second: u32,
    /// Calls a caller may make at once above the steady rate.
    pub burst: u32,
    /// Calls (streams included) a caller may have open at once; 0: no limit.
    pub open_calls: u32,
    /// Failed authentications per peer address per minute before the address is refused for the
    /// rest of the minute; 0: no limit.
    pub failed_auth_per_minute: u32,
    /// Tokens exempt from the rate limit and the open-call cap: the admin token, which the
    /// services themselves use to call each other (a scheduler creating a round's games at once)
    /// and an operator's bulk tools use. Set by the process, never from a request.
    pub trusted_tokens: Vec<String>,
    /// The admin token in force, exempt like `trusted_tokens`; read at every call, so that after
    /// a rotation the new token is exempt and the old one is an ordinary (refused) caller.
    pub admin_token: Option<crate::auth::AdminToken>,
    /// How long a server stream's message may wait for its client before the connection is
    /// closed ([`crate::stream`]).
    pub stalled: Duration,
}

impl Default for EdgeLimits {
    fn default() -> Self {
        EdgeLimits {
            calls_per_second: 200,
            burst: 400,
            open_calls: 64,
            failed_auth_per_minute: 60,
            trusted_tokens: Vec::new(),
            admin_token: None,
            stalled: crate::limits::STALLED,
        }
    }
}

/// How long an accepted token passes a blocked address, and how many are remembered.
const GOOD_FOR: Duration = Duration::from_secs(600);
const GOOD_MAX: usize = 100_000;

/// Who a call is counted against.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
enum Key {
    Token([u8; 32]),
    Peer(IpAddr),
    /// No token and no peer address (an in-process transport): one shared key.
    Unknown,
}

#[derive(Debug)]
struct State {
    limits: EdgeLimits,
    calls: Option<DefaultKeyedRateLimiter<Key>>,
    /// Keys of [`EdgeLimits::trusted_tokens`].
    trusted: Vec<Key>,
    /// Failed authentications per peer address in its current minute: the minute's start and
    /// the count. Past [`EdgeLimits::failed_auth_per_minute`] the address is refused until the
    /// minute ends (a fixed window: a steady trickle cannot get more through than the cap).
    failures: Mutex<HashMap<IpAddr, (Instant, u32)>>,
    /// Peers refused until the given instant (too many failed authentications), except for
    /// calls with a token that was accepted recently: a flood of bad tokens from an address
    /// (or from behind the same NAT) does not lock out the good clients there.
    blocked: Mutex<HashMap<IpAddr, Instant>>,
    /// Tokens (hashed) that recently made an authenticated call, and when.
    good: Mutex<HashMap<[u8; 32], Instant>>,
    open: Mutex<HashMap<Key, u32>>,
    /// Calls seen, to clean the limiters' tables now and then.
    seen: AtomicU64,
}

/// The failed-authentication window.
const MINUTE: Duration = Duration::from_secs(60);

/// A tower layer applying [`EdgeLimits`] (and containing panics: see [`crate::serve`]).
#[derive(Clone, Debug)]
pub struct EdgeLayer {
    state: Arc<State>,
}

impl EdgeLayer {
    #[must_use]
    pub fn new(limits: EdgeLimits) -> EdgeLayer {
        let calls = NonZeroU32::new(limits.calls_per_second).map(|rate| {
            let burst = NonZeroU32::new(limits.burst.max(limits.calls_per_second)).unwrap_or(rate);
            DefaultKeyedRateLimiter::hashmap(Quota::per_second(rate).allow_burst(burst))
        });
        // The key is the hash of the whole header value, as a client sends it.
        let trusted = limits
            .trusted_tokens
            .iter()
            .filter(|t| !t.is_empty())
            .flat_map(|t| [format!("Bearer {t}"), format!("bearer {t}")])
            .map(|header| Key::Token(Sha256::digest(header.as_bytes()).into()))
            .collect();
        EdgeLayer {
            state: Arc::new(State {
                limits,
                calls,
                trusted,
                failures: Mutex::new(HashMap::new()),
                blocked: Mutex::new(HashMap::new()),
                good: Mutex::new(HashMap::new()),
                open: Mutex::new(HashMap::new()),
                seen: AtomicU64::new(0),
            }),
        }
    }
}

impl<S> tower_layer::Layer<S> for EdgeLayer {
    type Service = Edge<S>;

    fn layer(&self, inner: S) -> Edge<S> {
        Edge {
            inner,
            state: self.state.clone(),
        }
    }
}

/// The service of [`EdgeLayer`].
#[derive(Clone, Debug)]
pub struct Edge<S> {
    inner: S,
    state: Arc<State>,
}

/// A refusal as a trailers-only gRPC response.
fn refuse(
    code: tonic::Code,
    message: String,
    retry_after: Option<Duration>,
) -> Response<tonic::body::Body> {
    let mut status = tonic::Status::new(code, message);
    if let Some(wait) = retry_after {
        let metadata = status.metadata_mut();
        let secs = wait.as_secs() + u64::from(wait.subsec_nanos() > 0);
        if let Ok(v) = secs.max(1).to_string().parse() {
            metadata.insert("retry-after", v);
        }
        if let Ok(v) = (wait.as_millis().max(1)).to_string().parse() {
            metadata.insert("grpc-retry-pushback-ms", v);
        }
    }
    status.into_http()
}

/// Releases one open call of its key when the response body is dropped (the call ended).
#[derive(Debug)]
struct OpenGuard {
    state: Arc<State>,
    /// `None`: a trusted caller, not counted.
    key: Option<Key>,
}

impl Drop for OpenGuard {
    fn drop(&mut self) {
        let mut open = self
            .state
            .open
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        let Some(key) = &self.key else {
            return;
        };
        if let Some(n) = open.get_mut(key) {
            *n = n.saturating_sub(1);
            if *n == 0 {
                open.remove(key);
            }
        }
    }
}

/// A response body that holds its call's [`OpenGuard`].
struct Guarded<B> {
    inner: Pin<Box<B>>,
    _guard: OpenGuard,
}

impl<B: http_body::Body<Data = Bytes>> http_body::Body for Guarded<B> {
    type Data = Bytes;
    type Error = B::Error;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<http_body::Frame<Bytes>, B::Error>>> {
        self.inner.as_mut().poll_frame(cx)
    }

    fn is_end_stream(&self) -> bool {
        self.inner.is_end_stream()
    }

    fn size_hint(&self) -> http_body::SizeHint {
        self.inner.size_hint()
    }
}

/// Longest status message sent (a safety net: services quote client input briefly anyway).
const MESSAGE_MAX: usize = 1_024;

/// tonic answers a request it cannot decode with codes meant for the server's own failures:
/// `OUT_OF_RANGE` for a message over the size limit and `INTERNAL` for bytes that are not the
/// message (invalid UTF-8 in a string, say). Both are the client's doing: say so with the codes
/// clients expect (`RESOURCE_EXHAUSTED`, `INVALID_ARGUMENT`).
fn reclassify(headers: &mut tonic::codegen::http::HeaderMap) {
    let code = headers.get("grpc-status").map(|v| v.as_bytes().to_vec());
    let message = headers
        .get("grpc-message")
        .map(|v| String::from_utf8_lossy(v.as_bytes()).replace("%20", " "))
        .unwrap_or_default();
    let new = match code.as_deref() {
        Some(b"11") if message.contains("message length too large") => Some((
            tonic::Code::ResourceExhausted,
            format!(
                "request too large: the limit is {} bytes",
                crate::limits::MAX_REQUEST_BYTES
            ),
        )),
        Some(b"13") if message.contains("failed to decode Protobuf message") => Some((
            tonic::Code::InvalidArgument,
            "the request is not a valid protobuf message of this call's type (strings must be UTF-8)"
                .to_owned(),
        )),
        // Whatever a service put in a message, it must fit the response headers.
        Some(c) if message.len() > MESSAGE_MAX => {
            let code = std::str::from_utf8(c)
                .ok()
                .and_then(|c| c.parse::<i32>().ok())
                .map_or(tonic::Code::Unknown, tonic::Code::from_i32);
            let mut cut = MESSAGE_MAX;
            while !message.is_char_boundary(cut) {
                cut -= 1;
            }
            Some((code, format!("{}…", &message[..cut])))
        }
        _ => None,
    };
    if let Some((code, text)) = new {
        let status = tonic::Status::new(code, text);
        let fresh: Response<()> = status.into_http();
        for name in ["grpc-status", "grpc-message"] {
            if let Some(v) = fresh.headers().get(name) {
                headers.insert(name, v.clone());
            }
        }
    }
}

fn seconds(d: Duration) -> String {
    format!("{:.1} s", d.as_secs_f64().max(0.1))
}

impl State {
    fn peer<B>(request: &Request<B>) -> Option<IpAddr> {
        request
            .extensions()
            .get::<ConnInfo>()
            .and_then(|c| c.tcp.remote_addr())
            .map(|a| a.ip())
    }

    fn key<B>(request: &Request<B>, peer: Option<IpAddr>) -> Key {
        match request.headers().get("authorization") {
            Some(value) => Key::Token(Sha256::digest(value.as_bytes()).into()),
            None => peer.map_or(Key::Unknown, Key::Peer),
        }
    }

    /// A refusal for this call, if any; otherwise the call counts as open until the guard drops.
    fn admit(
        self: &Arc<Self>,
        peer: Option<IpAddr>,
        key: &Key,
    ) -> Result<OpenGuard, Box<Response<tonic::body::Body>>> {
        if self.seen.fetch_add(1, Ordering::Relaxed) % 4096 == 4095 {
            self.clean();
        }
        let known_good = match key {
            Key::Token(hash) => self
                .good
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .contains_key(hash),
            _ => false,
        };
        if let Some(ip) = peer
            && !known_good
        {
            let blocked = self.blocked.lock().unwrap_or_else(PoisonError::into_inner);
            if let Some(&until) = blocked.get(&ip) {
                let now = Instant::now();
                if until > now {
                    let wait = until - now;
                    return Err(Box::new(refuse(
                        tonic::Code::ResourceExhausted,
                        format!(
                            "too many failed authentications from this address (limit {} a minute); retry after {}",
                            self.limits.failed_auth_per_minute,
                            seconds(wait)
                        ),
                        Some(wait),
                    )));
                }
            }
        }
        if self.trusted.contains(key) || self.is_admin(key) {
            return Ok(OpenGuard {
                state: self.clone(),
                key: None,
            });
        }
        if let Some(calls) = &self.calls
            && let Err(not_until) = calls.check_key(key)
        {
            let wait = not_until.wait_time_from(DefaultClock::default().now());
            return Err(Box::new(refuse(
                tonic::Code::ResourceExhausted,
                format!(
                    "rate limit: more than {} calls a second (burst {}) by this caller; retry after {}",
                    self.limits.calls_per_second,
                    self.limits.burst,
                    seconds(wait)
                ),
                Some(wait),
            )));
        }
        let mut open = self.open.lock().unwrap_or_else(PoisonError::into_inner);
        let n = open.entry(key.clone()).or_insert(0);
        if self.limits.open_calls > 0 && *n >= self.limits.open_calls {
            return Err(Box::new(refuse(
                tonic::Code::ResourceExhausted,
                format!(
                    "too many open calls by this caller (limit {}, streams included); close some first",
                    self.limits.open_calls
                ),
                Some(Duration::from_secs(1)),
            )));
        }
        *n += 1;
        Ok(OpenGuard {
            state: self.clone(),
            key: Some(key.clone()),
        })
    }

    /// Whether `key` is the admin token in force.
    fn is_admin(&self, key: &Key) -> bool {
        match (key, &self.limits.admin_token) {
            (Key::Token(hash), Some(admin)) => admin.current().header_hashes.contains(hash),
            _ => false,
        }
    }

    /// Notes a failed authentication by `ip`; past the cap the address is refused for the rest
    /// of its minute.
    fn failed_auth(&self, ip: IpAddr) {
        let cap = self.limits.failed_auth_per_minute;
        if cap == 0 {
            return;
        }
        let now = Instant::now();
        let until = {
            let mut failures = self.failures.lock().unwrap_or_else(PoisonError::into_inner);
            let (start, count) = failures.entry(ip).or_insert((now, 0));
            if now.duration_since(*start) >= MINUTE {
                (*start, *count) = (now, 0);
            }
            *count += 1;
            if *count < cap {
                return;
            }
            *start + MINUTE
        };
        tracing::warn!(%ip, "too many failed authentications: refusing the address for {}", seconds(until - now));
        self.blocked
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .insert(ip, until);
    }

    /// Forgets limiter states and blocks that no longer matter (bounded memory under floods of
    /// made-up tokens or addresses).
    fn clean(&self) {
        if let Some(calls) = &self.calls {
            calls.retain_recent();
            calls.shrink_to_fit();
        }
        let now = Instant::now();
        self.failures
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .retain(|_, (start, _)| now.duration_since(*start) < MINUTE);
        self.blocked
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .retain(|_, until| *until > now);
        self.good
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .retain(|_, at| now.duration_since(*at) < GOOD_FOR);
    }

    /// Notes that a call with `key` was answered with something else than `UNAUTHENTICATED`.
    fn authenticated(&self, key: &Key) {
        if let Key::Token(hash) = key {
            let mut good = self.good.lock().unwrap_or_else(PoisonError::into_inner);
            if good.len() < GOOD_MAX || good.contains_key(hash) {
                good.insert(*hash, Instant::now());
            }
        }
    }
}

impl<S, B, R> Service<Request<B>> for Edge<S>
where
    S: Service<Request<B>, Response = Response<R>> + Clone + Send + 'static,
    S::Future: Send + 'static,
    B: Send + 'static,
    R: http_body::Body<Data = Bytes> + Send + 'static,
    R::Error: Into<Box<dyn std::error::Error + Send + Sync>>,
{
    type Response = Response<tonic::body::Body>;
    type Error = S::Error;
    type Future =
        Pin<Box<dyn std::future::Future<Output = Result<Self::Response, Self::Error>> + Send>>;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), Self::Error>> {
        self.inner.poll_ready(cx)
    }

    fn call(&mut self, request: Request<B>) -> Self::Future {
        let peer = State::peer(&request);
        let key = State::key(&request, peer);
        let guard = match self.state.admit(peer, &key) {
            Ok(guard) => guard,
            Err(refusal) => return Box::pin(async move { Ok(*refusal) }),
        };
        // The clone is ready only if the original is; take the ready one (tower's idiom).
        let clone = self.inner.clone();
        let mut inner = std::mem::replace(&mut self.inner, clone);
        let state = self.state.clone();
        Box::pin(async move {
            let response = inner.call(request).await?;
            let refused = response
                .headers()
                .get("grpc-status")
                .is_some_and(|v| v.as_bytes() == b"16");
            match peer {
                Some(ip) if refused => state.failed_auth(ip),
                _ if !refused => state.authenticated(&key),
                _ => {}
            }
            let (mut parts, body) = response.into_parts();
            reclassify(&mut parts.headers);
            let body = tonic::body::Body::new(Guarded {
                inner: Box::pin(body),
                _guard: guard,
            });
            Ok(Response::from_parts(parts, body))
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_address_past_its_failed_authentications_is_refused_for_the_rest_of_the_minute() {
        let layer = EdgeLayer::new(EdgeLimits {
            failed_auth_per_minute: 3,
            ..EdgeLimits::default()
        });
        let state = &layer.state;
        let ip: IpAddr = [192, 0, 2, 7].into();
        let other: IpAddr = [192, 0, 2, 8].into();
        let key = Key::Peer(ip);
        for _ in 0..2 {
            state.failed_auth(ip);
            assert!(state.admit(Some(ip), &key).is_ok(), "under the cap");
        }
        state.failed_auth(ip);
        let Err(refused) = state.admit(Some(ip), &key) else {
            panic!("past the cap the address is refused");
        };
        assert_eq!(
            refused.headers().get("grpc-status").map(|v| v.as_bytes()),
            Some(&b"8"[..]),
            "RESOURCE_EXHAUSTED"
        );
        // Refused until the minute that began with the first failure ends, not for a second.
        let until = state.blocked.lock().expect("blocked")[&ip];
        assert!(
            until > Instant::now() + Duration::from_secs(55),
            "{until:?}"
        );
        // Another address is not affected.
        assert!(state.admit(Some(other), &Key::Peer(other)).is_ok());
    }
}
