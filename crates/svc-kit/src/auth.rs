//! Bearer tokens: random, shown once, stored only as SHA-256 hashes; the admin token comes from
//! configuration and may be replaced while the server runs ([`AdminToken::set`]). A player token
//! carries [`Scopes`] (what it may do) and may expire. Token lookups are cached briefly so that a
//! busy bot does not cost a query per call; a revocation takes effect at once, through this
//! server or (heard by [`Auth::follow`]) another replica. Expiry is checked on every call, cached or
//! not, and a replaced admin token makes every cached lookup stale.
//!
//! Revocations are heard ([`Auth::follow`]): through this process at once, and on PostgreSQL
//! from every replica (`LISTEN/NOTIFY`); each empties the cache and ends the streams opened with
//! the revoked token ([`Auth::ended`]), which also end when their token expires.

use std::collections::HashMap;
use std::fmt;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, PoisonError, RwLock};
use std::time::{Duration, Instant};

use hanniball_ids::{PlayerId, Timestamp};
use sha2::{Digest, Sha256};
use tokio::sync::broadcast;
use tokio_stream::StreamExt;
use tokio_util::sync::CancellationToken;
use tonic::metadata::{MetadataMap, MetadataValue};

use hanniball_db::StoreError;

use crate::{Directory, TokenEvent};

/// Why a caller was not accepted.
#[derive(Debug, thiserror::Error)]
pub enum AuthError {
    #[error("missing bearer token (send `authorization: Bearer <token>` metadata)")]
    NoToken,
    #[error("invalid or revoked token")]
    BadToken,
    #[error("token expired")]
    Expired,
    #[error("this call needs the admin token")]
    AdminOnly,
    /// The token is valid but not for this call.
    #[error("this call needs the `{needs}` scope; the token has: {has}")]
    MissingScope { needs: Scope, has: Scopes },
    #[error("no randomness for a token: {0}")]
    NoRandomness(String),
    #[error(transparent)]
    Store(#[from] StoreError),
}

type AuthResult<T> = Result<T, AuthError>;

/// How long a token lookup is trusted.
const CACHE_TTL: Duration = Duration::from_secs(10);
/// Most tokens remembered at once.
const CACHE_MAX: usize = 100_000;

/// What a token may do. Every RPC needs one scope (README, "Token scopes"), or none (`Ping`,
/// `WhoAmI`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Scope {
    /// Act in one's own games: turns, resignation, draws, abort.
    Play,
    /// Get games from the scheduler: the matchmaking queue, one's own tournament entries.
    Queue,
    /// Every call that changes nothing and is open to players.
    Read,
    /// Managing one's own tokens: issue (no more than the calling token holds), list, revoke.
    Tokens,
    /// Creating tournaments and running one's own (their owners'): only tokens of an account the
    /// admin made an organiser.
    Organise,
    /// The admin-only calls. Only the admin token holds it.
    Admin,
}

impl Scope {
    /// Every scope, in the order they are written.
    pub const ALL: [Scope; 6] = [
        Scope::Play,
        Scope::Queue,
        Scope::Read,
        Scope::Tokens,
        Scope::Organise,
        Scope::Admin,
    ];

    /// The scope's name on the wire and in the database.
    #[must_use]
    pub const fn name(self) -> &'static str {
        match self {
            Scope::Play => "play",
            Scope::Queue => "queue",
            Scope::Read => "read",
            Scope::Tokens => "tokens",
            Scope::Organise => "organise",
            Scope::Admin => "admin",
        }
    }

    const fn bit(self) -> u8 {
        match self {
            Scope::Play => 1,
            Scope::Queue => 2,
            Scope::Read => 4,
            Scope::Admin => 8,
            Scope::Tokens => 16,
            Scope::Organise => 32,
        }
    }
}

impl fmt::Display for Scope {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl std::str::FromStr for Scope {
    type Err = UnknownScope;

    fn from_str(name: &str) -> Result<Scope, UnknownScope> {
        Scope::ALL
            .into_iter()
            .find(|scope| scope.name() == name)
            .ok_or_else(|| UnknownScope(name.to_owned()))
    }
}

/// A scope name that is none of `play`, `queue`, `read`, `tokens`, `organise`, `admin`.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error(
    "unknown scope {}: the scopes are play, queue, read, tokens, organise and admin",
    crate::limits::quote(.0)
)]
pub struct UnknownScope(pub String);

/// A set of scopes.
#[derive(Clone, Copy, Default, PartialEq, Eq, Hash)]
pub struct Scopes(u8);

impl Scopes {
    /// No scope at all.
    pub const NONE: Scopes = Scopes(0);
    /// A player token's full rights: what it gets when none are asked for.
    pub const PLAYER: Scopes =
        Scopes(Scope::Play.bit() | Scope::Queue.bit() | Scope::Read.bit() | Scope::Tokens.bit());
    /// An organiser's full rights: a player's and `organise`.
    pub const ORGANISER: Scopes = Scopes(Scopes::PLAYER.0 | Scope::Organise.bit());
    /// The admin token's: everything.
    pub const ALL: Scopes = Scopes(Scopes::ORGANISER.0 | Scope::Admin.bit());

    #[must_use]
    pub const fn contains(self, scope: Scope) -> bool {
        self.0 & scope.bit() != 0
    }

    #[must_use]
    pub const fn with(self, scope: Scope) -> Scopes {
        Scopes(self.0 | scope.bit())
    }

    /// Whether every scope of `self` is in `other`.
    #[must_use]
    pub const fn is_subset(self, other: Scopes) -> bool {
        self.0 & !other.0 == 0
    }

    /// The scopes of `self` that are not in `other`.
    #[must_use]
    pub const fn without(self, other: Scopes) -> Scopes {
        Scopes(self.0 & !other.0)
    }

    #[must_use]
    pub const fn is_empty(self) -> bool {
        self.0 == 0
    }

    /// The scopes held, in [`Scope::ALL`] order.
    pub fn iter(self) -> impl Iterator<Item = Scope> {
        Scope::ALL.into_iter().filter(move |s| self.contains(*s))
    }

    /// The names held, in [`Scope::ALL`] order.
    #[must_use]
    pub fn names(self) -> Vec<String> {
        self.iter().map(|s| s.name().to_owned()).collect()
    }

    /// Scopes from names (repeats allowed), refusing an unknown name.
    pub fn parse<'a>(names: impl IntoIterator<Item = &'a str>) -> Result<Scopes, UnknownScope> {
        names
            .into_iter()
            .try_fold(Scopes::NONE, |set, name| Ok(set.with(name.parse()?)))
    }

    /// The stored form: names separated by single spaces.
    #[must_use]
    pub fn to_stored(self) -> String {
        self.names().join(" ")
    }

    /// Reads the stored form.
    pub fn from_stored(text: &str) -> Result<Scopes, UnknownScope> {
        Scopes::parse(text.split_whitespace())
    }
}

impl fmt::Display for Scopes {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.is_empty() {
            return f.write_str("none");
        }
        f.write_str(&self.names().join(", "))
    }
}

impl fmt::Debug for Scopes {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Scopes({self})")
    }
}

/// Who is calling.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Caller {
    Admin,
    Player(PlayerId),
}

/// What the presented token grants: who, which scopes, until when.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Grant {
    pub caller: Caller,
    pub scopes: Scopes,
    /// `None`: never expires.
    pub expires_at: Option<Timestamp>,
    /// The token's id; `None` for the admin token.
    pub token_id: Option<i64>,
}

impl Grant {
    /// The caller, if the token holds `scope`.
    pub fn require(self, scope: Scope) -> AuthResult<Caller> {
        if self.scopes.contains(scope) {
            Ok(self.caller)
        } else {
            Err(AuthError::MissingScope {
                needs: scope,
                has: self.scopes,
            })
        }
    }
}

/// The admin token of the running server, shared by everything that checks or sends it (the
/// services' auth, the edge's rate-limit exemption, the services' own clients): replacing it
/// here replaces it everywhere at once. Cloning shares it.
#[derive(Clone)]
pub struct AdminToken(Arc<AdminShared>);

struct AdminShared {
    current: RwLock<Arc<AdminCurrent>>,
    /// Bumped by every change, so that caches can tell their answers are stale.
    generation: AtomicU64,
}

/// One admin token and what is derived from it once.
#[derive(Debug)]
pub struct AdminCurrent {
    pub token: String,
    /// [`hash_token`] of it.
    pub hash: String,
    /// SHA-256 of the whole `authorization` header as a client sends it (`Bearer <token>` and
    /// `bearer <token>`): the edge's key for it.
    pub header_hashes: [[u8; 32]; 2],
}

impl AdminCurrent {
    fn new(token: &str) -> AdminCurrent {
        AdminCurrent {
            token: token.to_owned(),
            hash: hash_token(token),
            header_hashes: [
                Sha256::digest(format!("Bearer {token}").as_bytes()).into(),
                Sha256::digest(format!("bearer {token}").as_bytes()).into(),
            ],
        }
    }
}

impl AdminToken {
    #[must_use]
    pub fn new(token: &str) -> AdminToken {
        AdminToken(Arc::new(AdminShared {
            current: RwLock::new(Arc::new(AdminCurrent::new(token))),
            generation: AtomicU64::new(0),
        }))
    }

    /// The token now in force.
    #[must_use]
    pub fn current(&self) -> Arc<AdminCurrent> {
        Arc::clone(
            &self
                .0
                .current
                .read()
                .unwrap_or_else(PoisonError::into_inner),
        )
    }

    /// The token now in force, as text.
    #[must_use]
    pub fn token(&self) -> String {
        self.current().token.clone()
    }

    /// Replaces the token: from now on only `token` is the admin's. False (and nothing changes)
    /// when it is the token already in force.
    pub fn set(&self, token: &str) -> bool {
        let mut current = self
            .0
            .current
            .write()
            .unwrap_or_else(PoisonError::into_inner);
        if current.token == token {
            return false;
        }
        *current = Arc::new(AdminCurrent::new(token));
        self.0.generation.fetch_add(1, Ordering::AcqRel);
        true
    }

    /// Changes so far (0 for the first token).
    #[must_use]
    pub fn generation(&self) -> u64 {
        self.0.generation.load(Ordering::Acquire)
    }
}

impl fmt::Debug for AdminToken {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // Never the token itself: options and limits are logged.
        write!(f, "AdminToken(generation {})", self.generation())
    }
}

/// Two handles are equal when they share the token (not when two tokens happen to be equal).
impl PartialEq for AdminToken {
    fn eq(&self, other: &AdminToken) -> bool {
        Arc::ptr_eq(&self.0, &other.0)
    }
}

impl From<&str> for AdminToken {
    fn from(token: &str) -> AdminToken {
        AdminToken::new(token)
    }
}

impl From<String> for AdminToken {
    fn from(token: String) -> AdminToken {
        AdminToken::new(&token)
    }
}

impl From<&AdminToken> for AdminToken {
    fn from(token: &AdminToken) -> AdminToken {
        token.clone()
    }
}

/// The services' own clients send the admin token in force at each call.
impl tonic::service::Interceptor for AdminToken {
    fn call(
        &mut self,
        mut request: tonic::Request<()>,
    ) -> Result<tonic::Request<()>, tonic::Status> {
        let value: MetadataValue<_> = format!("Bearer {}", self.current().token)
            .parse()
            .map_err(|_| tonic::Status::invalid_argument("the token is not ASCII"))?;
        request.metadata_mut().insert("authorization", value);
        Ok(request)
    }
}

/// The time expiry is judged by, in milliseconds since the Unix epoch.
type Now = Arc<dyn Fn() -> Timestamp + Send + Sync>;

fn system_now() -> Timestamp {
    let ms = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| i64::try_from(d.as_millis()).unwrap_or(i64::MAX));
    Timestamp(ms)
}

/// One remembered lookup.
#[derive(Clone, Copy, Debug)]
struct Cached {
    /// `None`: refused.
    grant: Option<Grant>,
    at: Instant,
    /// The admin token's generation when looked up: after a change the answer is stale.
    generation: u64,
}

/// Checks tokens.
pub struct Auth {
    admin: AdminToken,
    /// Recent lookups by token (refusals too, so that a bad token costs one query per TTL).
    /// Shared with [`Auth::follow`], which empties it on a revocation.
    cache: Arc<Mutex<HashMap<String, Cached>>>,
    /// Revocations as heard (by [`Auth::follow`] and [`Auth::revoked`]): what ends streams.
    events: broadcast::Sender<TokenEvent>,
    /// Most entries in `cache`.
    cache_max: usize,
    now: Now,
}

impl fmt::Debug for Auth {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Auth")
            .field("admin", &self.admin)
            .field("cache_max", &self.cache_max)
            .finish_non_exhaustive()
    }
}

/// SHA-256 of a token, in hex: what the database keeps.
#[must_use]
pub fn hash_token(token: &str) -> String {
    hex::encode(Sha256::digest(token.as_bytes()))
}

/// A new random token: `hb_` and 32 random bytes in hex.
pub fn new_token() -> AuthResult<String> {
    let mut bytes = [0u8; 32];
    getrandom::fill(&mut bytes).map_err(|error| AuthError::NoRandomness(error.to_string()))?;
    Ok(format!("hb_{}", hex::encode(bytes)))
}

impl Auth {
    /// Checks tokens against `admin` (a `&str` for a fixed token, or a shared [`AdminToken`]
    /// that can be replaced while running) and the tokens table; expiry by the system clock.
    #[must_use]
    pub fn new(admin: impl Into<AdminToken>) -> Auth {
        Auth::with_cache_max(admin.into(), CACHE_MAX)
    }

    fn with_cache_max(admin: AdminToken, cache_max: usize) -> Auth {
        Auth {
            admin,
            cache: Arc::new(Mutex::new(HashMap::new())),
            events: broadcast::channel(EVENTS).0,
            cache_max,
            now: Arc::new(system_now),
        }
    }

    /// Judges expiry by `now` instead of the system clock (the arbiter's clock, manual in tests).
    #[must_use]
    pub fn with_clock(mut self, now: impl Fn() -> Timestamp + Send + Sync + 'static) -> Auth {
        self.now = Arc::new(now);
        self
    }

    /// The admin token it checks against.
    #[must_use]
    pub fn admin_token(&self) -> &AdminToken {
        &self.admin
    }

    /// The caller named by the request's `authorization: Bearer <token>` metadata, if the token
    /// holds `scope`.
    pub async fn caller(
        &self,
        metadata: &MetadataMap,
        store: &Directory,
        scope: Scope,
    ) -> AuthResult<Caller> {
        self.grant(metadata, store).await?.require(scope)
    }

    /// What the request's token grants, whatever the call (expired tokens are refused).
    pub async fn grant(&self, metadata: &MetadataMap, store: &Directory) -> AuthResult<Grant> {
        let value = metadata
            .get("authorization")
            .ok_or(AuthError::NoToken)?
            .to_str()
            .map_err(|_| AuthError::BadToken)?;
        let token = value
            .strip_prefix("Bearer ")
            .or_else(|| value.strip_prefix("bearer "))
            .ok_or(AuthError::BadToken)?
            .trim();
        let generation = self.admin.generation();
        // The cache is keyed by the token itself, so that a cached call costs no hashing; the
        // database still sees only hashes.
        let cached = self
            .cache
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .get(token)
            .copied();
        let grant = match cached {
            Some(hit) if hit.at.elapsed() < CACHE_TTL && hit.generation == generation => hit.grant,
            // Boxed: the query's state is large, and every call's future would otherwise carry
            // room for it (and be copied whole when the RPC layer boxes it) although nearly
            // every call is answered from the cache.
            _ => Box::pin(self.look_up(token, store, generation)).await?,
        };
        let grant = grant.ok_or(AuthError::BadToken)?;
        // Checked on every call: a cached token is refused from the moment it expires.
        if grant.expires_at.is_some_and(|at| (self.now)() >= at) {
            return Err(AuthError::Expired);
        }
        Ok(grant)
    }

    /// Asks the database who holds `token`, and remembers the answer.
    async fn look_up(
        &self,
        token: &str,
        store: &Directory,
        generation: u64,
    ) -> AuthResult<Option<Grant>> {
        let hash = hash_token(token);
        let grant = if hash == self.admin.current().hash {
            Some(Grant {
                caller: Caller::Admin,
                scopes: Scopes::ALL,
                expires_at: None,
                token_id: None,
            })
        } else {
            match store.token_by_hash(&hash).await? {
                None => None,
                Some(row) => Some(Grant {
                    caller: Caller::Player(row.player),
                    // A player token never holds `admin`, whatever a row says.
                    scopes: Scopes::from_stored(&row.scopes)
                        .map_err(|error| StoreError::Corrupt(format!("token {}: {error}", row.id)))?
                        .iter()
                        .filter(|s| *s != Scope::Admin)
                        .fold(Scopes::NONE, Scopes::with),
                    expires_at: row.expires_at,
                    token_id: Some(row.id),
                }),
            }
        };
        let mut cache = self.cache.lock().unwrap_or_else(PoisonError::into_inner);
        // Bound the memory a stream of made-up tokens can take.
        if cache.len() >= self.cache_max {
            cache.retain(|_, hit| hit.at.elapsed() < CACHE_TTL && hit.generation == generation);
            if cache.len() >= self.cache_max {
                cache.clear();
            }
        }
        cache.insert(
            token.to_owned(),
            Cached {
                grant,
                at: Instant::now(),
                generation,
            },
        );
        Ok(grant)
    }

    /// Revocations as this `Auth` hears them (through this process, and from wherever
    /// [`Auth::follow`] listens), from now on: what `WatchRevocations` passes on.
    #[must_use]
    pub fn revocations(&self) -> broadcast::Receiver<TokenEvent> {
        self.events.subscribe()
    }

    /// Forgets cached lookups (after a revocation).
    pub fn forget_all(&self) {
        self.cache
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clear();
    }

    /// A token was revoked through this service: forget cached lookups and end the streams
    /// opened with it, before the revocation is answered (so that nothing that happens after
    /// the answer reaches them). [`Auth::follow`] hears it too, later; twice is harmless.
    pub fn revoked(&self, token_id: i64) {
        forget(&self.cache, TokenEvent::Revoked(token_id));
        // No receiver: no stream open.
        let _ = self.events.send(TokenEvent::Revoked(token_id));
    }

    /// Hears revocations until `shutdown`: those through this process (any service sharing
    /// `store`'s clones) and, on PostgreSQL, every replica's. Each empties the cache and ends
    /// the streams of the revoked token. Run it once per `Auth`, as a task.
    pub fn follow(
        &self,
        store: &Directory,
        shutdown: CancellationToken,
    ) -> impl std::future::Future<Output = ()> + Send + 'static {
        let cache = Arc::clone(&self.cache);
        let events = self.events.clone();
        let mut local = store.token_events();
        let store = store.clone();
        async move {
            let hear = |event: TokenEvent| {
                forget(&cache, event);
                let _ = events.send(event);
            };
            let mut remote = None;
            loop {
                if remote.is_none() {
                    match store.listen_tokens().await {
                        Ok(Some(stream)) => {
                            remote = Some(Box::pin(stream));
                            // Anything revoked while not listening: look again.
                            hear(TokenEvent::Missed);
                        }
                        Ok(None) => {}
                        Err(error) => {
                            tracing::warn!(%error, "cannot listen for token revocations; retrying");
                        }
                    }
                }
                let listening = remote.is_some() || !store.shared_by_replicas();
                tokio::select! {
                    () = shutdown.cancelled() => return,
                    heard = local.recv() => match heard {
                        Ok(event) => hear(event),
                        Err(broadcast::error::RecvError::Lagged(_)) => hear(TokenEvent::Missed),
                        Err(broadcast::error::RecvError::Closed) => return,
                    },
                    Some(event) = async {
                        match remote.as_mut() {
                            Some(stream) => stream.next().await,
                            None => std::future::pending().await,
                        }
                    } => hear(event),
                    () = tokio::time::sleep(Duration::from_secs(1)), if !listening => {}
                }
            }
        }
    }

    /// Resolves when the token of `grant` stops working: revoked (as heard by this `Auth`), or
    /// expired by this `Auth`'s clock. Never for the admin token (see ARCHITECTURE, "Revocation
    /// ends streams"). A stream selects on it and ends with the error it gives.
    pub fn ended(
        &self,
        grant: Grant,
        store: &Directory,
    ) -> impl std::future::Future<Output = AuthError> + Send + 'static {
        let mut events = self.events.subscribe();
        let now = Arc::clone(&self.now);
        let store = store.clone();
        async move {
            let Some(id) = grant.token_id else {
                return std::future::pending().await;
            };
            loop {
                // The clock may not be the system's (a manual one in tests): look at least
                // every second.
                let wait = grant.expires_at.map(|at| {
                    let left = at.0.saturating_sub(now().0);
                    Duration::from_millis(u64::try_from(left).unwrap_or(0)).min(EXPIRY_LOOK)
                });
                if grant.expires_at.is_some_and(|at| now() >= at) {
                    return AuthError::Expired;
                }
                tokio::select! {
                    biased;
                    heard = events.recv() => match heard {
                        Ok(TokenEvent::Revoked(revoked)) if revoked == id => {
                            return AuthError::BadToken;
                        }
                        Ok(TokenEvent::Revoked(_)) => {}
                        Ok(TokenEvent::Missed) | Err(broadcast::error::RecvError::Lagged(_)) => {
                            // Ask the database; if it cannot answer, keep the stream.
                            if let Ok(row) = store.token(id).await
                                && row.is_none_or(|row| row.revoked_at.is_some())
                            {
                                return AuthError::BadToken;
                            }
                        }
                        Err(broadcast::error::RecvError::Closed) => {
                            return std::future::pending().await;
                        }
                    },
                    () = async {
                        match wait {
                            Some(wait) => tokio::time::sleep(wait).await,
                            None => std::future::pending().await,
                        }
                    } => {}
                }
            }
        }
    }
}

/// Forgets what `event` makes stale: the revoked token's lookups, or every lookup when events
/// may have been missed. Other tokens stay cached: a revocation among many bots does not send
/// them all to the database.
fn forget(cache: &Mutex<HashMap<String, Cached>>, event: TokenEvent) {
    let mut cache = cache.lock().unwrap_or_else(PoisonError::into_inner);
    match event {
        TokenEvent::Revoked(id) => {
            cache.retain(|_, hit| hit.grant.is_none_or(|grant| grant.token_id != Some(id)));
        }
        TokenEvent::Missed => cache.clear(),
    }
}

/// Room for revocations not yet read by a stream (a lagging one asks the database).
const EVENTS: usize = 1_024;
/// Longest sleep between two looks at an expiring stream's clock.
const EXPIRY_LOOK: Duration = Duration::from_secs(1);

impl Caller {
    /// Fails unless the caller is the admin.
    pub fn require_admin(self) -> AuthResult<()> {
        match self {
            Caller::Admin => Ok(()),
            Caller::Player(_) => Err(AuthError::AdminOnly),
        }
    }
}

#[cfg(test)]
mod tests;
