//! Accounts' store as the services of this process look callers up in it
//! ([`hanniball_svc_kit::Lookup`]): the same answers Accounts' gRPC API gives other processes.

use std::collections::HashMap;

use hanniball_accounts::{Accounts, Player, StoreError, Token, TokenEvent};
use hanniball_ids::PlayerId;
use hanniball_svc_kit::directory::TokenEvents;
use tokio::sync::broadcast;

/// Accounts in this process.
#[derive(Clone, Debug)]
pub struct LocalAccounts(pub Accounts);

#[async_trait::async_trait]
impl hanniball_svc_kit::Lookup for LocalAccounts {
    fn shared_by_replicas(&self) -> bool {
        self.0.shared_by_replicas()
    }

    async fn player(&self, id: PlayerId) -> Result<Option<Player>, StoreError> {
        self.0.player(id).await
    }

    async fn player_by_name(&self, name: &str) -> Result<Option<Player>, StoreError> {
        self.0.player_by_name(name).await
    }

    async fn player_names(
        &self,
        ids: &[PlayerId],
    ) -> Result<HashMap<PlayerId, String>, StoreError> {
        self.0.player_names(ids).await
    }

    async fn token_by_hash(&self, hash: &str) -> Result<Option<Token>, StoreError> {
        self.0.token_by_hash(hash).await
    }

    async fn token(&self, id: i64) -> Result<Option<Token>, StoreError> {
        self.0.token(id).await
    }

    fn token_events(&self) -> broadcast::Receiver<TokenEvent> {
        self.0.token_events()
    }

    async fn listen_tokens(&self) -> Result<Option<TokenEvents>, StoreError> {
        Ok(self
            .0
            .listen_tokens()
            .await?
            .map(|stream| Box::pin(stream) as TokenEvents))
    }
}
