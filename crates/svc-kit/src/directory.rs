//! Who the players and tokens are, as every service asks Accounts (their one owner): its store
//! when Accounts runs in this process (behind [`Lookup`], which Accounts' service implements),
//! its gRPC API when it runs in another (admin calls, with revocations pushed by
//! `WatchRevocations`). Either way the same answers, the same [`TokenEvent`]s, so
//! [`crate::Auth`] works the same on both.

use std::collections::HashMap;
use std::pin::Pin;
use std::time::Duration;

use std::sync::Arc;

use hanniball_db::StoreError;
pub use hanniball_directory::{Player, Token, TokenEvent};
use hanniball_ids::{PlayerId, Timestamp};
use hanniball_proto::accounts::v1 as apb;
use hanniball_proto::accounts::v1::accounts_client::AccountsClient;
use tokio::sync::broadcast;
use tokio_stream::{Stream, StreamExt};
use tokio_util::sync::CancellationToken;
use tonic::Code;
use tonic::service::interceptor::InterceptedService;
use tonic::transport::Channel;

use crate::{AdminToken, ClientTls, ConnectError};

/// Accounts' answers in this process: what its store (or a test's stand-in) implements.
#[async_trait::async_trait]
pub trait Lookup: std::fmt::Debug + Send + Sync {
    /// Whether other processes may revoke tokens that only a database notification would tell
    /// of ([`Lookup::listen_tokens`]).
    fn shared_by_replicas(&self) -> bool;
    async fn player(&self, id: PlayerId) -> Result<Option<Player>, StoreError>;
    async fn player_by_name(&self, name: &str) -> Result<Option<Player>, StoreError>;
    /// Names of players by id (unknown ids are left out).
    async fn player_names(&self, ids: &[PlayerId])
    -> Result<HashMap<PlayerId, String>, StoreError>;
    /// The unrevoked token with this hash, expired or not.
    async fn token_by_hash(&self, hash: &str) -> Result<Option<Token>, StoreError>;
    /// One token by id, revoked or not.
    async fn token(&self, id: i64) -> Result<Option<Token>, StoreError>;
    /// Revocations made through this process from now on.
    fn token_events(&self) -> broadcast::Receiver<TokenEvent>;
    /// Every process's revocations, where only the database hears them all; `Ok(None)` where
    /// [`Lookup::token_events`] hears everything.
    async fn listen_tokens(&self) -> Result<Option<TokenEvents>, StoreError>;
}

/// Players and tokens, from Accounts.
#[derive(Clone, Debug)]
pub enum Directory {
    /// Accounts in this process.
    Local(Arc<dyn Lookup>),
    /// Accounts in another process, over gRPC.
    Remote(Remote),
}

/// Accounts in another process: its client (with the admin token) and the revocations it pushes.
#[derive(Clone, Debug)]
pub struct Remote {
    client: AccountsClient<InterceptedService<Channel, AdminToken>>,
    events: broadcast::Sender<TokenEvent>,
}

/// The most ids one `GetPlayerNames` call carries.
const NAMES_PER_CALL: usize = 10_000;

/// Room for revocations not yet read by a slow receiver (it then looks every token up again).
const EVENTS: usize = 1_024;

impl Directory {
    /// Accounts in this process.
    pub fn local(accounts: impl Lookup + 'static) -> Directory {
        Directory::Local(Arc::new(accounts))
    }

    /// Accounts served at `url` (connecting lazily), asked with the admin token; follows its
    /// revocations until `shutdown`.
    pub fn remote(
        url: &str,
        tls: &ClientTls,
        admin: AdminToken,
        shutdown: CancellationToken,
    ) -> Result<Directory, ConnectError> {
        let channel = crate::connect_with(url, tls)?;
        let remote = Remote {
            client: AccountsClient::with_interceptor(channel, admin)
                .max_decoding_message_size(crate::MAX_REQUEST_BYTES * 16),
            events: broadcast::channel(EVENTS).0,
        };
        tokio::spawn(remote.clone().follow(shutdown));
        Ok(Directory::Remote(remote))
    }

    /// Whether other processes may revoke tokens that only a database notification would tell
    /// of (local Accounts on PostgreSQL). A remote Accounts pushes every revocation itself.
    #[must_use]
    pub fn shared_by_replicas(&self) -> bool {
        match self {
            Directory::Local(accounts) => accounts.shared_by_replicas(),
            Directory::Remote(_) => false,
        }
    }

    pub async fn player(&self, id: PlayerId) -> Result<Option<Player>, StoreError> {
        match self {
            Directory::Local(accounts) => accounts.player(id).await,
            Directory::Remote(remote) => {
                remote
                    .get_player(apb::get_player_request::Player::Id(id.0))
                    .await
            }
        }
    }

    pub async fn player_by_name(&self, name: &str) -> Result<Option<Player>, StoreError> {
        match self {
            Directory::Local(accounts) => accounts.player_by_name(name).await,
            Directory::Remote(remote) => {
                remote
                    .get_player(apb::get_player_request::Player::Name(name.to_owned()))
                    .await
            }
        }
    }

    /// Names of players by id (unknown ids are left out).
    pub async fn player_names(
        &self,
        ids: &[PlayerId],
    ) -> Result<HashMap<PlayerId, String>, StoreError> {
        match self {
            Directory::Local(accounts) => accounts.player_names(ids).await,
            Directory::Remote(remote) => {
                let mut names = HashMap::with_capacity(ids.len());
                for chunk in ids.chunks(NAMES_PER_CALL) {
                    let request = apb::GetPlayerNamesRequest {
                        ids: chunk.iter().map(|p| p.0).collect(),
                    };
                    let found = read(|| {
                        let mut client = remote.client.clone();
                        let request = request.clone();
                        async move { client.get_player_names(request).await }
                    })
                    .await;
                    for player in found.map_err(unreachable)?.into_inner().players {
                        names.insert(PlayerId(player.id), player.name);
                    }
                }
                Ok(names)
            }
        }
    }

    /// The unrevoked token with this hash, expired or not.
    pub async fn token_by_hash(&self, hash: &str) -> Result<Option<Token>, StoreError> {
        match self {
            Directory::Local(accounts) => accounts.token_by_hash(hash).await,
            Directory::Remote(remote) => {
                remote
                    .check_token(apb::check_token_request::Token::Hash(hash.to_owned()))
                    .await
            }
        }
    }

    /// One token by id, revoked or not.
    pub async fn token(&self, id: i64) -> Result<Option<Token>, StoreError> {
        match self {
            Directory::Local(accounts) => accounts.token(id).await,
            Directory::Remote(remote) => {
                remote
                    .check_token(apb::check_token_request::Token::TokenId(id))
                    .await
            }
        }
    }

    /// Revocations from now on: through this process (local), or as the remote Accounts pushes
    /// them ([`TokenEvent::Missed`] after its stream was lost and made again).
    #[must_use]
    pub fn token_events(&self) -> broadcast::Receiver<TokenEvent> {
        match self {
            Directory::Local(accounts) => accounts.token_events(),
            Directory::Remote(remote) => remote.events.subscribe(),
        }
    }

    /// Local Accounts on PostgreSQL: every process's revocations (`LISTEN`). `Ok(None)` where
    /// [`Directory::token_events`] hears everything.
    pub async fn listen_tokens(&self) -> Result<Option<TokenEvents>, StoreError> {
        match self {
            Directory::Local(accounts) => accounts.listen_tokens().await,
            Directory::Remote(_) => Ok(None),
        }
    }
}

/// A stream of revocations heard from the database.
pub type TokenEvents = Pin<Box<dyn Stream<Item = TokenEvent> + Send>>;

impl Remote {
    async fn get_player(
        &self,
        player: apb::get_player_request::Player,
    ) -> Result<Option<Player>, StoreError> {
        let request = apb::GetPlayerRequest {
            player: Some(player),
        };
        let found = read(|| {
            let mut client = self.client.clone();
            let request = request.clone();
            async move { client.get_player(request).await }
        })
        .await;
        match found {
            Ok(found) => Ok(found.into_inner().player.map(player_of)),
            Err(status) if status.code() == Code::NotFound => Ok(None),
            Err(status) => Err(unreachable(status)),
        }
    }

    async fn check_token(
        &self,
        token: apb::check_token_request::Token,
    ) -> Result<Option<Token>, StoreError> {
        let request = apb::CheckTokenRequest { token: Some(token) };
        let found = read(|| {
            let mut client = self.client.clone();
            let request = request.clone();
            async move { client.check_token(request).await }
        })
        .await;
        let stored = found.map_err(unreachable)?.into_inner().token;
        Ok(stored.map(|t| Token {
            id: t.token_id,
            player: PlayerId(t.player_id),
            scopes: t.scopes,
            created_at: Timestamp(t.created_at_ms),
            expires_at: (t.expires_at_ms > 0).then_some(Timestamp(t.expires_at_ms)),
            revoked_at: (t.revoked_at_ms > 0).then_some(Timestamp(t.revoked_at_ms)),
            // Auth needs no label: whether a token is a session matters to Accounts alone.
            session_label: None,
        }))
    }

    /// Follows `WatchRevocations` until `shutdown`, making the stream again when it is lost
    /// (after which anything may have been missed).
    async fn follow(self, shutdown: CancellationToken) {
        let mut client = self.client.clone();
        loop {
            match client
                .watch_revocations(apb::WatchRevocationsRequest {})
                .await
            {
                Ok(stream) => {
                    let mut stream = stream.into_inner();
                    // Revoked while not watching: look again.
                    let _ = self.events.send(TokenEvent::Missed);
                    loop {
                        let heard = tokio::select! {
                            () = shutdown.cancelled() => return,
                            heard = stream.next() => heard,
                        };
                        match heard {
                            Some(Ok(note)) if note.missed => {
                                let _ = self.events.send(TokenEvent::Missed);
                            }
                            // A heartbeat: nothing was revoked.
                            Some(Ok(note)) if note.token_id == 0 => {}
                            Some(Ok(note)) => {
                                let _ = self.events.send(TokenEvent::Revoked(note.token_id));
                            }
                            Some(Err(error)) => {
                                tracing::warn!(%error, "revocations from Accounts: stream lost");
                                break;
                            }
                            None => break,
                        }
                    }
                }
                Err(error) => {
                    tracing::debug!(%error, "revocations from Accounts: cannot watch yet");
                }
            }
            let _ = self.events.send(TokenEvent::Missed);
            if !crate::pause(Duration::from_millis(250), &shutdown).await {
                return;
            }
        }
    }
}

fn player_of(player: apb::Player) -> Player {
    let kind = match apb::PlayerKind::try_from(player.kind) {
        Ok(apb::PlayerKind::Bot) => "bot",
        Ok(apb::PlayerKind::Human) => "human",
        _ => "unknown",
    };
    Player {
        id: PlayerId(player.id),
        name: player.name,
        kind: kind.to_owned(),
        created_at: Timestamp(player.created_at_ms),
        organiser: player.organiser,
    }
}

/// How long a read from Accounts may take, retries included: a frozen Accounts (a stopped
/// process, a socket that accepts and never answers) costs the caller this, then `UNAVAILABLE`,
/// never the client's whole deadline.
pub const ACCOUNTS_DEADLINE: Duration = Duration::from_secs(1);

/// Tries a read from Accounts again (twice, 150 ms apart) when it answered `UNAVAILABLE`: a
/// replica that has just died stays in the balanced channel until its probe fails, and another
/// replica can answer. All within [`ACCOUNTS_DEADLINE`], after which the read is
/// `UNAVAILABLE` ("did not answer in time").
async fn read<T, F, Fut>(call: F) -> Result<tonic::Response<T>, tonic::Status>
where
    F: Fn() -> Fut,
    Fut: std::future::Future<Output = Result<tonic::Response<T>, tonic::Status>>,
{
    let tries = async {
        let mut tries = 0;
        loop {
            match call().await {
                Err(status) if status.code() == Code::Unavailable && tries < 2 => {
                    tries += 1;
                    tokio::time::sleep(Duration::from_millis(150)).await;
                }
                answer => return answer,
            }
        }
    };
    match tokio::time::timeout(ACCOUNTS_DEADLINE, tries).await {
        Ok(answer) => answer,
        Err(_) => Err(tonic::Status::unavailable(format!(
            "no answer within {} ms",
            ACCOUNTS_DEADLINE.as_millis()
        ))),
    }
}

/// A failed call to Accounts, as the stores' failures read: the caller answers UNAVAILABLE and
/// may retry.
fn unreachable(status: tonic::Status) -> StoreError {
    StoreError::unavailable("the accounts service cannot be reached", status)
}
