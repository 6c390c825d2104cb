use std::sync::atomic::AtomicI64;

use super::*;

fn bearer(token: &str) -> MetadataMap {
    let mut metadata = MetadataMap::new();
    metadata.insert(
        "authorization",
        format!("Bearer {token}").parse().expect("ascii"),
    );
    metadata
}

/// Accounts' answers from memory: the tokens a test inserts, by hash.
#[derive(Clone, Debug, Default)]
struct Memory {
    tokens: Arc<Mutex<Vec<(String, crate::Token)>>>,
}

impl Memory {
    fn insert_token(
        &self,
        player: PlayerId,
        hash: &str,
        scopes: &str,
        expires_at: Option<Timestamp>,
    ) -> i64 {
        let mut tokens = self.tokens.lock().unwrap_or_else(PoisonError::into_inner);
        let id = tokens.len() as i64 + 1;
        tokens.push((
            hash.to_owned(),
            crate::Token {
                id,
                player,
                scopes: scopes.to_owned(),
                created_at: Timestamp(0),
                expires_at,
                revoked_at: None,
                session_label: None,
            },
        ));
        id
    }

    fn revoke_token(&self, id: i64) {
        let mut tokens = self.tokens.lock().unwrap_or_else(PoisonError::into_inner);
        for (_, token) in tokens.iter_mut().filter(|(_, t)| t.id == id) {
            token.revoked_at = Some(Timestamp(1));
        }
    }
}

#[async_trait::async_trait]
impl crate::Lookup for Memory {
    fn shared_by_replicas(&self) -> bool {
        false
    }
    async fn player(&self, _: PlayerId) -> Result<Option<crate::Player>, StoreError> {
        Ok(None)
    }
    async fn player_by_name(&self, _: &str) -> Result<Option<crate::Player>, StoreError> {
        Ok(None)
    }
    async fn player_names(&self, _: &[PlayerId]) -> Result<HashMap<PlayerId, String>, StoreError> {
        Ok(HashMap::new())
    }
    async fn token_by_hash(&self, hash: &str) -> Result<Option<crate::Token>, StoreError> {
        let tokens = self.tokens.lock().unwrap_or_else(PoisonError::into_inner);
        Ok(tokens
            .iter()
            .find(|(h, t)| h == hash && t.revoked_at.is_none())
            .map(|(_, t)| t.clone()))
    }
    async fn token(&self, id: i64) -> Result<Option<crate::Token>, StoreError> {
        let tokens = self.tokens.lock().unwrap_or_else(PoisonError::into_inner);
        Ok(tokens
            .iter()
            .find(|(_, t)| t.id == id)
            .map(|(_, t)| t.clone()))
    }
    fn token_events(&self) -> broadcast::Receiver<TokenEvent> {
        broadcast::channel(1).1
    }
    async fn listen_tokens(&self) -> Result<Option<crate::directory::TokenEvents>, StoreError> {
        Ok(None)
    }
}

#[tokio::test]
async fn the_token_cache_is_bounded_and_answers_as_the_database_did() {
    let accounts = Memory::default();
    let store = Directory::Local(Arc::new(accounts.clone()));
    let auth = Auth::with_cache_max("admin-secret".into(), 3);
    for i in 0..10 {
        let refused = auth
            .caller(&bearer(&format!("made-up-{i}")), &store, Scope::Read)
            .await;
        assert!(matches!(refused, Err(AuthError::BadToken)), "{refused:?}");
        let len = auth
            .cache
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .len();
        assert!(len <= 3, "{len} cached tokens, at most 3 allowed");
    }
    // A cached admin token still answers Admin, and a cached refusal still refuses.
    for _ in 0..2 {
        let admin = auth
            .caller(&bearer("admin-secret"), &store, Scope::Admin)
            .await;
        assert_eq!(admin.ok(), Some(Caller::Admin));
    }
    let again = auth.caller(&bearer("made-up-9"), &store, Scope::Read).await;
    assert!(matches!(again, Err(AuthError::BadToken)), "{again:?}");
}

#[test]
fn scopes_read_write_and_refuse_unknown_names() {
    assert_eq!(Scopes::PLAYER.to_stored(), "play queue read tokens");
    assert_eq!(
        Scopes::from_stored("play queue read tokens"),
        Ok(Scopes::PLAYER)
    );
    let read = Scopes::NONE.with(Scope::Read);
    assert!(read.is_subset(Scopes::PLAYER));
    assert!(!Scopes::PLAYER.is_subset(read));
    assert_eq!(
        Scopes::PLAYER.without(read).to_stored(),
        "play queue tokens"
    );
    assert_eq!(
        Scopes::parse(["read", "read"]),
        Ok(Scopes::NONE.with(Scope::Read))
    );
    assert_eq!(
        Scopes::ALL.to_string(),
        "play, queue, read, tokens, organise, admin"
    );
    assert_eq!(Scopes::NONE.to_string(), "none");
    let unknown = Scopes::parse(["read", "Play"]).unwrap_err();
    assert!(unknown.to_string().contains("\"Play\""), "{unknown}");
    let denied = Grant {
        caller: Caller::Player(PlayerId(1)),
        scopes: Scopes::NONE.with(Scope::Read),
        expires_at: None,
        token_id: None,
    }
    .require(Scope::Play)
    .unwrap_err();
    assert_eq!(
        denied.to_string(),
        "this call needs the `play` scope; the token has: read"
    );
    assert_eq!(
        tonic::Status::from(denied).code(),
        tonic::Code::PermissionDenied
    );
}

/// The clock moves only when told: expiry is tested without waiting.
fn manual_clock(auth: Auth, start: i64) -> (Auth, Arc<AtomicI64>) {
    let now = Arc::new(AtomicI64::new(start));
    let read = Arc::clone(&now);
    (
        auth.with_clock(move || Timestamp(read.load(Ordering::SeqCst))),
        now,
    )
}

#[tokio::test]
async fn a_cached_token_is_refused_from_the_moment_it_expires() {
    let accounts = Memory::default();
    let store = Directory::Local(Arc::new(accounts.clone()));
    let player = PlayerId(7);
    accounts.insert_token(
        player,
        &hash_token("hb_short"),
        "read",
        Some(Timestamp(1_000)),
    );
    let (auth, now) = manual_clock(Auth::new("admin-secret"), 999);
    let grant = auth
        .grant(&bearer("hb_short"), &store)
        .await
        .expect("valid");
    assert_eq!(grant.caller, Caller::Player(player));
    assert_eq!(grant.scopes, Scopes::NONE.with(Scope::Read));
    // Cached now; one millisecond later it has expired all the same.
    now.store(1_000, Ordering::SeqCst);
    let expired = auth.grant(&bearer("hb_short"), &store).await;
    assert!(matches!(expired, Err(AuthError::Expired)), "{expired:?}");
    assert_eq!(
        tonic::Status::from(expired.unwrap_err()).code(),
        tonic::Code::Unauthenticated
    );
}

#[tokio::test]
async fn a_revocation_forgets_only_its_token_and_ends_its_streams() {
    let accounts = Memory::default();
    let store = Directory::Local(Arc::new(accounts.clone()));
    let ids: Vec<i64> = ["hb_one", "hb_two"]
        .into_iter()
        .map(|token| accounts.insert_token(PlayerId(8), &hash_token(token), "read", None))
        .collect();
    let auth = Auth::new("admin-secret");
    let one = auth.grant(&bearer("hb_one"), &store).await.expect("one");
    auth.grant(&bearer("hb_two"), &store).await.expect("two");
    assert_eq!(one.token_id, Some(ids[0]));
    let ended = tokio::spawn(auth.ended(one, &store));
    // Revoked in the store, and the revocation heard by this Auth (as RevokeToken does).
    accounts.revoke_token(ids[0]);
    auth.revoked(ids[0]);
    let refused = auth.grant(&bearer("hb_one"), &store).await;
    assert!(matches!(refused, Err(AuthError::BadToken)), "{refused:?}");
    assert!(matches!(ended.await.expect("task"), AuthError::BadToken));
    // The other token's lookup stayed cached (and still works).
    let cached: Vec<Option<i64>> = auth
        .cache
        .lock()
        .unwrap_or_else(PoisonError::into_inner)
        .values()
        .map(|hit| hit.grant.and_then(|g| g.token_id))
        .collect();
    assert!(cached.contains(&Some(ids[1])), "{cached:?}");
    assert!(auth.grant(&bearer("hb_two"), &store).await.is_ok());
}

#[tokio::test]
async fn a_replaced_admin_token_stops_working_at_once_even_when_cached() {
    let accounts = Memory::default();
    let store = Directory::Local(Arc::new(accounts.clone()));
    let admin = AdminToken::new("old-admin");
    let auth = Auth::new(admin.clone());
    // Cached as the admin, and the next admin token cached as a refusal.
    assert_eq!(
        auth.caller(&bearer("old-admin"), &store, Scope::Admin)
            .await
            .ok(),
        Some(Caller::Admin)
    );
    assert!(auth.grant(&bearer("new-admin"), &store).await.is_err());
    assert!(admin.set("new-admin"));
    assert!(
        !admin.set("new-admin"),
        "setting the same token changes nothing"
    );
    let old = auth.grant(&bearer("old-admin"), &store).await;
    assert!(matches!(old, Err(AuthError::BadToken)), "{old:?}");
    assert_eq!(
        auth.caller(&bearer("new-admin"), &store, Scope::Admin)
            .await
            .ok(),
        Some(Caller::Admin)
    );
    // The services' clients send the new token.
    let mut interceptor = admin.clone();
    let request = tonic::service::Interceptor::call(&mut interceptor, tonic::Request::new(()))
        .expect("ascii");
    assert_eq!(
        request
            .metadata()
            .get("authorization")
            .map(|v| v.to_str().ok()),
        Some(Some("Bearer new-admin"))
    );
}
