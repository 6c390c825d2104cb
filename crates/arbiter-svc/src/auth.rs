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

use crate::error::{ServiceError, ServiceResult};

/// How long a token lookup is trusted.
const CACHE_TTL: Duration = Duration::from_secs(10);

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
    cache: Mutex<HashMap<String, (Option<PlayerId>, Instant)>>,
}

/// SHA-256 of a token, in hex: what the database keeps.
#[must_use]
pub fn hash_token(token: &str) -> String {
    hex::encode(Sha256::digest(token.as_bytes()))
}

/// A new random token: `hb_` and 32 random bytes in hex.
pub fn new_token() -> ServiceResult<String> {
    let mut bytes = [0u8; 32];
    getrandom::fill(&mut bytes)
        .map_err(|error| ServiceError::Internal(format!("no randomness: {error}")))?;
    Ok(format!("hb_{}", hex::encode(bytes)))
}

impl Auth {
    #[must_use]
    pub fn new(admin_token: &str) -> Auth {
        Auth {
            admin_hash: hash_token(admin_token),
            cache: Mutex::new(HashMap::new()),
        }
    }

    /// The caller named by the request's `authorization: Bearer <token>` metadata.
    pub async fn caller(&self, metadata: &MetadataMap, store: &Store) -> ServiceResult<Caller> {
        let value = metadata
            .get("authorization")
            .ok_or(ServiceError::NoToken)?
            .to_str()
            .map_err(|_| ServiceError::BadToken)?;
        let token = value
            .strip_prefix("Bearer ")
            .or_else(|| value.strip_prefix("bearer "))
            .ok_or(ServiceError::BadToken)?
            .trim();
        let hash = hash_token(token);
        if hash == self.admin_hash {
            return Ok(Caller::Admin);
        }
        if let Some((player, at)) = self.cache.lock().expect("cache lock").get(&hash)
            && at.elapsed() < CACHE_TTL
        {
            return player.map(Caller::Player).ok_or(ServiceError::BadToken);
        }
        let player = store.player_by_token_hash(&hash).await?.map(|row| row.id);
        self.cache
            .lock()
            .expect("cache lock")
            .insert(hash, (player, Instant::now()));
        player.map(Caller::Player).ok_or(ServiceError::BadToken)
    }

    /// Forgets cached lookups (after a revocation).
    pub fn forget_all(&self) {
        self.cache.lock().expect("cache lock").clear();
    }
}

impl Caller {
    /// Fails unless the caller is the admin.
    pub fn require_admin(self) -> ServiceResult<()> {
        match self {
            Caller::Admin => Ok(()),
            Caller::Player(_) => Err(ServiceError::AdminOnly),
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
