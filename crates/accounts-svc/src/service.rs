//! The `hanniball.accounts.v1.Accounts` service: players, tokens, passwords and sessions.
//! Requests are decoded and checked once here and handed to Accounts' store.

use std::pin::Pin;
use std::sync::Arc;

use hanniball_accounts::{Player, TokenEvent};
use hanniball_ids::{PlayerId, Timestamp};
use hanniball_proto::accounts::v1 as apb;
use hanniball_svc_kit::auth::{Caller, Scope, Scopes, hash_token, new_token};
use hanniball_svc_kit::limits;
use hanniball_svc_kit::stream;
use tokio::sync::broadcast;
use tokio_stream::Stream;
use tonic::{Request, Response, Status};

use crate::Room;
use crate::error::{ServiceError, ServiceResult};

/// The most ids one `GetPlayerNames` call carries (a round of a 20,000-player Swiss).
const MAX_BATCH: usize = 10_000;

/// The `hanniball.accounts.v1.Accounts` service.
#[derive(Clone, Debug)]
pub struct AccountsService {
    pub room: Arc<Room>,
}

/// Longest token lifetime that can be asked for: 10 years.
const MAX_TOKEN_SECONDS: i64 = 10 * 365 * 24 * 3_600;

/// Most live (unrevoked, unexpired) tokens a player may hold when issuing its own: a bot that
/// rotates its token leaks none, and a runaway one cannot fill the table.
const MAX_OWN_TOKENS: u64 = 100;

/// The player whose tokens a call is about: the admin names any player (`player_id` > 0); a
/// player is its own (`player_id` 0, "me", or its own id), never another's.
pub(crate) fn tokens_of(caller: Caller, player_id: i64) -> ServiceResult<PlayerId> {
    own(caller, player_id, "tokens")
}

/// [`tokens_of`] for any of a player's own things (`what`: "tokens", "password", "sessions").
pub(crate) fn own(caller: Caller, player_id: i64, what: &str) -> ServiceResult<PlayerId> {
    match caller {
        Caller::Admin if player_id > 0 => Ok(PlayerId(player_id)),
        Caller::Admin => Err(ServiceError::InvalidArgument(format!(
            "player_id must be a positive id, not {player_id} (0 means \"me\" for a player token only)"
        ))),
        Caller::Player(me) if player_id == 0 || player_id == me.0 => Ok(me),
        Caller::Player(me) => Err(ServiceError::Denied(format!(
            "a player manages only its own {what}: player {player_id} is not you (player {me})"
        ))),
    }
}

/// A player's full rights: a player's scopes, and `organise` for an organiser.
pub(crate) fn rights(player: &Player) -> Scopes {
    if player.organiser {
        Scopes::ORGANISER
    } else {
        Scopes::PLAYER
    }
}

/// The scopes asked for a player token: by name, all of a player's when none are named; never
/// `admin`, which only the configured admin token holds.
fn token_scopes(names: &[String]) -> Result<Scopes, Status> {
    limits::list("scopes", names.len(), limits::SCOPES)?;
    for name in names {
        limits::text("scopes", name, limits::NAME)?;
    }
    if names.is_empty() {
        return Ok(Scopes::PLAYER);
    }
    let scopes = Scopes::parse(names.iter().map(String::as_str))
        .map_err(|error| ServiceError::InvalidArgument(error.to_string()))?;
    if scopes.contains(Scope::Admin) {
        return Err(ServiceError::InvalidArgument(
            "a player token cannot hold the admin scope; only the configured admin token does"
                .to_owned(),
        )
        .into());
    }
    Ok(scopes)
}

impl AccountsService {
    async fn issue(
        &self,
        player: PlayerId,
        scopes: Scopes,
        expires_at: Option<Timestamp>,
    ) -> ServiceResult<apb::IssuedToken> {
        let token = new_token()?;
        let now = self.room.clock.now();
        let token_id = self
            .room
            .accounts
            .insert_token(
                player,
                &hash_token(&token),
                now,
                &scopes.to_stored(),
                expires_at,
            )
            .await?;
        Ok(apb::IssuedToken {
            token_id,
            token,
            scopes: scopes.names(),
            expires_at_ms: expires_at.map_or(0, |at| at.0),
        })
    }

    pub(crate) async fn player(&self, id: i64) -> ServiceResult<Player> {
        self.room
            .accounts
            .player(PlayerId(id))
            .await?
            .ok_or_else(|| ServiceError::NotFound {
                what: "player",
                id: id.to_string(),
            })
    }
}

#[tonic::async_trait]
impl apb::accounts_server::Accounts for AccountsService {
    async fn register_player(
        &self,
        request: Request<apb::RegisterPlayerRequest>,
    ) -> Result<Response<apb::RegisterPlayerResponse>, Status> {
        let caller = self.room.caller(&request, Scope::Organise).await?;
        let mut r = request.into_inner();
        if caller != Caller::Admin && (r.issue_token || r.kind == apb::PlayerKind::Bot as i32) {
            return Err(ServiceError::Denied(
                "an organiser registers human players without tokens; bots and tokens are the admin's"
                    .to_owned(),
            )
            .into());
        }
        r.name = hanniball_names::player_name(&r.name)
            .map_err(|e| ServiceError::InvalidArgument(e.to_string()))?;
        let kind = match apb::PlayerKind::try_from(r.kind) {
            Ok(apb::PlayerKind::Bot) => "bot",
            Ok(apb::PlayerKind::Human | apb::PlayerKind::Unspecified) => "human",
            Err(_) => {
                return Err(ServiceError::InvalidArgument(format!(
                    "unknown player kind {}",
                    r.kind
                ))
                .into());
            }
        };
        let now = self.room.clock.now();
        let row = match self.room.accounts.create_player(&r.name, kind, now).await {
            Ok(row) => row,
            Err(hanniball_db::StoreError::Conflict(why)) => {
                let why = if why.contains("looks the same as") {
                    format!("{why}: choose a name people can tell apart")
                } else {
                    format!("a player named {} already exists", limits::quote(&r.name))
                };
                return Err(ServiceError::AlreadyExists(why).into());
            }
            Err(error) => return Err(ServiceError::from(error).into()),
        };
        let token = if r.issue_token {
            Some(self.issue(row.id, Scopes::PLAYER, None).await?)
        } else {
            None
        };
        tracing::info!(player_id = %row.id, name = %row.name, by_admin = caller == Caller::Admin, "player registered");
        Ok(Response::new(apb::RegisterPlayerResponse {
            player: Some(player_message(&row)),
            token,
        }))
    }

    async fn issue_token(
        &self,
        request: Request<apb::IssueTokenRequest>,
    ) -> Result<Response<apb::IssueTokenResponse>, Status> {
        let grant = self.room.grant(&request, Scope::Tokens).await?;
        let r = request.get_ref();
        let asked = token_scopes(&r.scopes)?;
        if !(0..=MAX_TOKEN_SECONDS).contains(&r.expires_in_seconds) {
            return Err(ServiceError::InvalidArgument(format!(
                "expires_in_seconds must be 0 (never) to {MAX_TOKEN_SECONDS} (10 years), not {}",
                r.expires_in_seconds
            ))
            .into());
        }
        let now = self.room.clock.now();
        let mut expires_at = (r.expires_in_seconds > 0)
            .then(|| Timestamp(now.0.saturating_add(r.expires_in_seconds * 1_000)));
        let player = tokens_of(grant.caller, r.player_id)?;
        let scopes = match grant.caller {
            Caller::Admin => asked,
            Caller::Player(_) => {
                // Never more than the calling token: a narrowed token cannot widen itself, and
                // a token that expires cannot outlive itself through a successor.
                let scopes = if r.scopes.is_empty() {
                    grant.scopes
                } else {
                    asked
                };
                if !scopes.is_subset(grant.scopes) {
                    return Err(ServiceError::Denied(format!(
                        "a token cannot grant scopes it lacks: {} (the calling token has: {})",
                        scopes.without(grant.scopes),
                        grant.scopes
                    ))
                    .into());
                }
                if let Some(limit) = grant.expires_at {
                    match expires_at {
                        None => expires_at = Some(limit),
                        Some(at) if at > limit => {
                            return Err(ServiceError::InvalidArgument(format!(
                                "expires_in_seconds {} is past the calling token's expiry at {} ms",
                                r.expires_in_seconds, limit.0
                            ))
                            .into());
                        }
                        Some(_) => {}
                    }
                }
                let live = self
                    .room
                    .accounts
                    .live_token_count(player, now)
                    .await
                    .map_err(ServiceError::from)?;
                if live >= MAX_OWN_TOKENS {
                    return Err(ServiceError::TooMany(format!(
                        "player {player} holds {live} live tokens, at most {MAX_OWN_TOKENS}; revoke some first"
                    ))
                    .into());
                }
                scopes
            }
        };
        let player = self.player(player.0).await?;
        let scopes = if grant.caller == Caller::Admin && r.scopes.is_empty() {
            rights(&player)
        } else {
            scopes
        };
        if scopes.contains(Scope::Organise) && !player.organiser {
            return Err(ServiceError::Denied(format!(
                "player {} is not an organiser: the admin grants the right first (SetOrganiser)",
                player.id
            ))
            .into());
        }
        let token = self.issue(player.id, scopes, expires_at).await?;
        tracing::info!(player_id = %player.id, token_id = token.token_id, by_admin = grant.caller == Caller::Admin, "token issued");
        Ok(Response::new(apb::IssueTokenResponse {
            token: Some(token),
        }))
    }

    async fn revoke_token(
        &self,
        request: Request<apb::RevokeTokenRequest>,
    ) -> Result<Response<apb::RevokeTokenResponse>, Status> {
        let grant = self.room.grant(&request, Scope::Tokens).await?;
        let id = request.get_ref().token_id;
        let not_found = || ServiceError::NotFound {
            what: "token",
            id: id.to_string(),
        };
        let accounts = &self.room.accounts;
        if let Caller::Player(me) = grant.caller {
            // Another player's token answers as an unknown one: ids reveal nothing.
            let row = accounts.token(id).await.map_err(ServiceError::from)?;
            if row.is_none_or(|row| row.player != me) {
                return Err(not_found().into());
            }
        }
        let now = self.room.clock.now();
        let revoked = accounts
            .revoke_token(id, now)
            .await
            .map_err(ServiceError::from)?
            .ok_or_else(not_found)?;
        // Before answering: the token's streams here end, its cached lookups go.
        self.room.auth.revoked(id);
        tracing::info!(token_id = id, revoked, "token revoked");
        Ok(Response::new(apb::RevokeTokenResponse { revoked }))
    }

    async fn list_tokens(
        &self,
        request: Request<apb::ListTokensRequest>,
    ) -> Result<Response<apb::ListTokensResponse>, Status> {
        let grant = self.room.grant(&request, Scope::Tokens).await?;
        let r = request.get_ref();
        let player = tokens_of(grant.caller, r.player_id)?;
        let player = self.player(player.0).await?.id;
        let limit = if r.limit == 0 {
            100
        } else {
            r.limit.min(1_000)
        };
        let rows = self
            .room
            .accounts
            .list_tokens(player, r.after_id, u64::from(limit))
            .await
            .map_err(ServiceError::from)?;
        let tokens = rows
            .into_iter()
            .map(|row| {
                let scopes = Scopes::from_stored(&row.scopes).map_err(|error| {
                    ServiceError::Internal(format!("token {}: {error}", row.id))
                })?;
                Ok(apb::TokenInfo {
                    token_id: row.id,
                    player_id: row.player.0,
                    scopes: scopes.names(),
                    created_at_ms: row.created_at.0,
                    expires_at_ms: row.expires_at.map_or(0, |at| at.0),
                    revoked_at_ms: row.revoked_at.map_or(0, |at| at.0),
                    current: grant.token_id == Some(row.id),
                    session: row.session_label.is_some(),
                    label: row.session_label.unwrap_or_default(),
                })
            })
            .collect::<ServiceResult<Vec<_>>>()?;
        Ok(Response::new(apb::ListTokensResponse { tokens }))
    }

    async fn get_player(
        &self,
        request: Request<apb::GetPlayerRequest>,
    ) -> Result<Response<apb::GetPlayerResponse>, Status> {
        self.room.caller(&request, Scope::Read).await?;
        let row = match &request.get_ref().player {
            Some(apb::get_player_request::Player::Id(id)) => self.player(*id).await?,
            Some(apb::get_player_request::Player::Name(name)) => {
                limits::text("name", name, limits::NAME)?;
                // Looked up as registered: trimmed and in NFC (a name the rule refuses is no
                // player's).
                let stored = hanniball_names::player_name(name).ok();
                let found = match &stored {
                    Some(stored) => self
                        .room
                        .accounts
                        .player_by_name(stored)
                        .await
                        .map_err(ServiceError::from)?,
                    None => None,
                };
                found.ok_or_else(|| ServiceError::NotFound {
                    what: "player",
                    id: limits::quote(name),
                })?
            }
            None => {
                return Err(
                    ServiceError::InvalidArgument("give a player id or name".to_owned()).into(),
                );
            }
        };
        Ok(Response::new(apb::GetPlayerResponse {
            player: Some(player_message(&row)),
        }))
    }

    async fn list_players(
        &self,
        request: Request<apb::ListPlayersRequest>,
    ) -> Result<Response<apb::ListPlayersResponse>, Status> {
        self.room.admin(&request).await?;
        let r = request.get_ref();
        let limit = if r.limit == 0 {
            100
        } else {
            r.limit.min(1_000)
        };
        let rows = self
            .room
            .accounts
            .list_players(r.after_id, u64::from(limit))
            .await
            .map_err(ServiceError::from)?;
        Ok(Response::new(apb::ListPlayersResponse {
            players: rows.iter().map(player_message).collect(),
        }))
    }

    async fn search_players(
        &self,
        request: Request<apb::SearchPlayersRequest>,
    ) -> Result<Response<apb::SearchPlayersResponse>, Status> {
        self.room.caller(&request, Scope::Read).await?;
        let r = request.get_ref();
        let words = limits::query("query", &r.query)?;
        if words.is_empty() {
            return Err(ServiceError::InvalidArgument(
                "query must hold at least one word".to_owned(),
            )
            .into());
        }
        let limit = match r.limit {
            0 => 50,
            n => n.min(200),
        };
        let (rows, more) = self
            .room
            .accounts
            .search_players(&words, u64::from(limit))
            .await
            .map_err(ServiceError::from)?;
        Ok(Response::new(apb::SearchPlayersResponse {
            players: rows.iter().map(player_message).collect(),
            more,
        }))
    }

    async fn who_am_i(
        &self,
        request: Request<apb::WhoAmIRequest>,
    ) -> Result<Response<apb::WhoAmIResponse>, Status> {
        // No scope needed: any live token may learn what it may do.
        let grant = self
            .room
            .auth
            .grant(request.metadata(), &self.room.directory)
            .await
            .map_err(ServiceError::from)?;
        let (player, admin) = match grant.caller {
            Caller::Admin => (None, true),
            Caller::Player(id) => (Some(player_message(&self.player(id.0).await?)), false),
        };
        let response = apb::WhoAmIResponse {
            player,
            admin,
            scopes: grant.scopes.names(),
            expires_at_ms: grant.expires_at.map_or(0, |at| at.0),
            token_id: grant.token_id.unwrap_or(0),
        };
        Ok(Response::new(response))
    }
    async fn get_player_names(
        &self,
        request: Request<apb::GetPlayerNamesRequest>,
    ) -> Result<Response<apb::GetPlayerNamesResponse>, Status> {
        self.room.admin(&request).await?;
        let ids = &request.get_ref().ids;
        if ids.len() > MAX_BATCH {
            return Err(ServiceError::InvalidArgument(format!(
                "at most {MAX_BATCH} ids per call, not {}",
                ids.len()
            ))
            .into());
        }
        let ids: Vec<PlayerId> = ids.iter().copied().map(PlayerId).collect();
        let rows = self.room.accounts.players(&ids).await;
        let players = rows.map_err(ServiceError::from)?;
        Ok(Response::new(apb::GetPlayerNamesResponse {
            players: players.iter().map(player_message).collect(),
        }))
    }

    async fn check_token(
        &self,
        request: Request<apb::CheckTokenRequest>,
    ) -> Result<Response<apb::CheckTokenResponse>, Status> {
        self.room.admin(&request).await?;
        let accounts = &self.room.accounts;
        let found = match &request.get_ref().token {
            Some(apb::check_token_request::Token::Hash(hash)) => accounts.token_by_hash(hash).await,
            Some(apb::check_token_request::Token::TokenId(id)) => accounts.token(*id).await,
            None => {
                return Err(
                    ServiceError::InvalidArgument("give a token hash or id".to_owned()).into(),
                );
            }
        };
        let token = found
            .map_err(ServiceError::from)?
            .map(|t| apb::StoredToken {
                token_id: t.id,
                player_id: t.player.0,
                scopes: t.scopes,
                created_at_ms: t.created_at.0,
                expires_at_ms: t.expires_at.map_or(0, |at| at.0),
                revoked_at_ms: t.revoked_at.map_or(0, |at| at.0),
            });
        Ok(Response::new(apb::CheckTokenResponse { token }))
    }

    type WatchRevocationsStream =
        Pin<Box<dyn Stream<Item = Result<apb::Revocation, Status>> + Send>>;

    async fn watch_revocations(
        &self,
        request: Request<apb::WatchRevocationsRequest>,
    ) -> Result<Response<Self::WatchRevocationsStream>, Status> {
        self.room.admin(&request).await?;
        // Every revocation this arbiter's auth hears: through this process, and on PostgreSQL
        // through any replica.
        let mut heard = self.room.auth.revocations();
        let shutdown = self.room.shutdown.clone();
        let (outbox, delivery) = stream::outbox(&request);
        tokio::spawn(async move {
            // A heartbeat (token 0, nothing missed) now and then: a client that cannot take
            // even that is found while nothing is revoked, and its connection closed.
            let mut heartbeat = tokio::time::interval(outbox.heartbeat_every());
            loop {
                let note = tokio::select! {
                    () = shutdown.cancelled() => return,
                    () = outbox.closed() => return,
                    () = outbox.stalled() => return outbox.cut(),
                    _ = heartbeat.tick() => Ok(TokenEvent::Revoked(0)),
                    note = heard.recv() => note,
                };
                let note = match note {
                    Ok(TokenEvent::Revoked(token_id)) => apb::Revocation {
                        token_id,
                        missed: false,
                    },
                    Ok(TokenEvent::Missed) | Err(broadcast::error::RecvError::Lagged(_)) => {
                        apb::Revocation {
                            token_id: 0,
                            missed: true,
                        }
                    }
                    Err(broadcast::error::RecvError::Closed) => return,
                };
                if outbox.send(Ok(note)).await.is_err() {
                    return;
                }
            }
        });
        Ok(Response::new(Box::pin(delivery)))
    }

    async fn set_password(
        &self,
        request: Request<apb::SetPasswordRequest>,
    ) -> Result<Response<apb::SetPasswordResponse>, Status> {
        Ok(Response::new(self.set_password_call(request).await?))
    }

    async fn sign_in(
        &self,
        request: Request<apb::SignInRequest>,
    ) -> Result<Response<apb::SignInResponse>, Status> {
        Ok(Response::new(self.sign_in_call(request).await?))
    }

    async fn revoke_sessions(
        &self,
        request: Request<apb::RevokeSessionsRequest>,
    ) -> Result<Response<apb::RevokeSessionsResponse>, Status> {
        Ok(Response::new(self.revoke_sessions_call(request).await?))
    }

    async fn set_organiser(
        &self,
        request: Request<apb::SetOrganiserRequest>,
    ) -> Result<Response<apb::SetOrganiserResponse>, Status> {
        self.room.admin(&request).await?;
        let r = request.into_inner();
        let changed = self
            .room
            .accounts
            .set_organiser(PlayerId(r.player_id), r.organiser)
            .await
            .map_err(ServiceError::from)?
            .ok_or_else(|| ServiceError::NotFound {
                what: "player",
                id: r.player_id.to_string(),
            })?;
        if changed && !r.organiser {
            // Before answering, as a revocation: this service's cached lookups go (the other
            // services' and replicas' hear it through `Auth::follow`).
            self.room.auth.forget_all();
        }
        let player = self.player(r.player_id).await?;
        tracing::info!(
            player_id = r.player_id,
            organiser = r.organiser,
            changed,
            "organiser right set"
        );
        Ok(Response::new(apb::SetOrganiserResponse {
            changed,
            player: Some(player_message(&player)),
        }))
    }
}

pub fn player_message(row: &Player) -> hanniball_proto::accounts::v1::Player {
    use hanniball_proto::accounts::v1::PlayerKind;
    let kind = match row.kind.as_str() {
        "bot" => PlayerKind::Bot,
        "human" => PlayerKind::Human,
        _ => PlayerKind::Unspecified,
    };
    hanniball_proto::accounts::v1::Player {
        id: row.id.0,
        name: row.name.clone(),
        kind: kind as i32,
        created_at_ms: row.created_at.0,
        organiser: row.organiser,
    }
}
