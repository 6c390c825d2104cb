//! Bearer tokens: random, shown once, stored only as SHA-256 hashes; the admin token comes from
//! configuration. Token lookups are cached briefly so that a busy bot does not cost a query per
//! call; a revocation through this server takes effect at once, through another replica within
//! the cache's lifetime.

use std::collections::HashMap;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use hanniball_arbiter::PlayerId;
use hanniball_store::Store;
use sha2::{Digest, Sha256};
use tonic::metadata::MetadataMap;

use hanniball_store::StoreError;

/// Why a caller was not accepted.
#[derive(Debug, thiserror::Error)]
pub enum AuthError {
    #[error("missing bearer token (send `authorization: Bearer <token>` metadata)")]
    NoToken,
    #[error("invalid or revoked token")]
    BadToken,
    #[error("this call needs the admin token")]
    AdminOnly,
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

/// Who is calling.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Caller {
    Admin,
    Player(PlayerId),
}

/// Checks tokens.
#[derive(Debug)]
pub struct Auth {
    admin_hash: String,
    /// Recent lookups by token (refusals too, so that a bad token costs one query per TTL).
    cache: Mutex<HashMap<String, (Option<Caller>, Instant)>>,
    /// Most entries in `cache`.
    cache_max: usize,
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
    #[must_use]
    pub fn new(admin_token: &str) -> Auth {
        Auth::with_cache_max(admin_token, CACHE_MAX)
    }

    fn with_cache_max(admin_token: &str, cache_max: usize) -> Auth {
        Auth {
            admin_hash: hash_token(admin_token),
            cache: Mutex::new(HashMap::new()),
            cache_max,
        }
    }

    /// The caller named by the request's `authorization: Bearer <token>` metadata.
    pub async fn caller(&self, metadata: &MetadataMap, store: &Store) -> AuthResult<Caller> {
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
        // The cache is keyed by the token itself, so that a cached call costs no hashing; the
        // database still sees only hashes.
        if let Some((caller, at)) = self
            .cache
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .get(token)
            && at.elapsed() < CACHE_TTL
        {
            return caller.ok_or(AuthError::BadToken);
        }
        // Boxed: the query's state is large, and every call's future would otherwise carry room
        // for it (and be copied whole when the RPC layer boxes it) although nearly every call is
        // answered from the cache.
        Box::pin(self.look_up(token, store)).await
    }

    /// Asks the database who holds `token`, and remembers the answer.
    async fn look_up(&self, token: &str, store: &Store) -> AuthResult<Caller> {
        let hash = hash_token(token);
        let caller = if hash == self.admin_hash {
            Some(Caller::Admin)
        } else {
            store
                .player_by_token_hash(&hash)
                .await?
                .map(|row| Caller::Player(row.id))
        };
        let mut cache = self
            .cache
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        // Bound the memory a stream of made-up tokens can take.
        if cache.len() >= self.cache_max {
            cache.retain(|_, (_, at)| at.elapsed() < CACHE_TTL);
            if cache.len() >= self.cache_max {
                cache.clear();
            }
        }
        cache.insert(token.to_owned(), (caller, Instant::now()));
        caller.ok_or(AuthError::BadToken)
    }

    /// Forgets cached lookups (after a revocation).
    pub fn forget_all(&self) {
        self.cache
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .clear();
    }
}

impl Caller {
    /// Fails unless the caller is the admin.
    pub fn require_admin(self) -> AuthResult<()> {
        match self {
            Caller::Admin => Ok(()),
            Caller::Player(_) => Err(AuthError::AdminOnly),
        }
    }

    /// The arbiter's view of the caller.
    #[must_use]
    pub const fn actor(self) -> hanniball_arbiter::Actor {
        match self {
            Caller::Admin => hanniball_arbiter::Actor::Admin,
            Caller::Player(id) => hanniball_arbiter::Actor::Player(id),
        }
    }
}

impl From<AuthError> for tonic::Status {
    fn from(error: AuthError) -> Self {
        match error {
            AuthError::NoToken | AuthError::BadToken => {
                tonic::Status::unauthenticated(error.to_string())
            }
            AuthError::AdminOnly => tonic::Status::permission_denied(error.to_string()),
            AuthError::Store(StoreError::Unavailable(detail)) => {
                tracing::warn!(%detail, "database unavailable");
                tonic::Status::unavailable("the database is unavailable; retry later")
            }
            AuthError::NoRandomness(detail)
            | AuthError::Store(
                StoreError::Conflict(detail)
                | StoreError::Corrupt(detail)
                | StoreError::Database(detail),
            ) => {
                tracing::error!(%detail, "internal error");
                tonic::Status::internal("internal error")
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn bearer(token: &str) -> MetadataMap {
        let mut metadata = MetadataMap::new();
        metadata.insert(
            "authorization",
            format!("Bearer {token}").parse().expect("ascii"),
        );
        metadata
    }

    #[tokio::test]
    async fn the_token_cache_is_bounded_and_answers_as_the_database_did() {
        let store = Store::connect(&hanniball_store::testing::sqlite_url())
            .await
            .expect("store");
        let auth = Auth::with_cache_max("admin-secret", 3);
        for i in 0..10 {
            let refused = auth.caller(&bearer(&format!("made-up-{i}")), &store).await;
            assert!(matches!(refused, Err(AuthError::BadToken)), "{refused:?}");
            let len = auth
                .cache
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner)
                .len();
            assert!(len <= 3, "{len} cached tokens, at most 3 allowed");
        }
        // A cached admin token still answers Admin, and a cached refusal still refuses.
        for _ in 0..2 {
            let admin = auth.caller(&bearer("admin-secret"), &store).await;
            assert_eq!(admin.ok(), Some(Caller::Admin));
        }
        let again = auth.caller(&bearer("made-up-9"), &store).await;
        assert!(matches!(again, Err(AuthError::BadToken)), "{again:?}");
    }
}
