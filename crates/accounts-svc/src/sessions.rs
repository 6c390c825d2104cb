//! Passwords and sessions: the calls behind the pages' sign-in. A session is a token (the same
//! table, checks, cache and revocation as any) marked with a label and always expiring, so every
//! service accepts it and a revocation ends it everywhere at once.

use hanniball_ids::Timestamp;
use hanniball_proto::accounts::v1 as apb;
use hanniball_svc_kit::auth::{Caller, Scope, hash_token, new_token};
use hanniball_svc_kit::limits;
use tonic::{Request, Status};

use crate::error::{ServiceError, ServiceResult};
use crate::password;
use crate::service::AccountsService;

/// A session's lifetime when none is asked for, and the longest.
const DEFAULT_SESSION_SECONDS: i64 = 14 * 24 * 3_600;
const MAX_SESSION_SECONDS: i64 = 30 * 24 * 3_600;
/// The shortest session that can be asked for.
const MIN_SESSION_SECONDS: i64 = 60;
/// Longest session label, in characters.
const MAX_LABEL: usize = 80;

/// The answer to a wrong name or password: the same for both, so that it tells no one which
/// names exist.
fn wrong_name_or_password() -> Status {
    Status::unauthenticated("wrong name or password")
}

/// Runs a password hash or check off the async threads.
async fn blocking<T: Send + 'static>(
    work: impl FnOnce() -> T + Send + 'static,
) -> ServiceResult<T> {
    tokio::task::spawn_blocking(work)
        .await
        .map_err(|error| ServiceError::Internal(format!("password hashing stopped: {error}")))
}

/// The label as stored: control characters dropped, spaces collapsed, cut at [`MAX_LABEL`].
fn clean_label(label: &str) -> String {
    let words: Vec<&str> = label
        .split(|c: char| c.is_whitespace() || c.is_control())
        .filter(|w| !w.is_empty())
        .collect();
    let label: String = words
        .join(" ")
        .chars()
        .filter(|c| !c.is_control())
        .take(MAX_LABEL)
        .collect();
    if label.is_empty() {
        "session".to_owned()
    } else {
        label
    }
}

impl AccountsService {
    pub(crate) async fn set_password_call(
        &self,
        request: Request<apb::SetPasswordRequest>,
    ) -> Result<apb::SetPasswordResponse, Status> {
        let grant = self.room.grant(&request, Scope::Tokens).await?;
        let r = request.into_inner();
        limits::text("new_password", &r.new_password, 4 * password::MAX_CHARS)?;
        limits::text(
            "current_password",
            &r.current_password,
            4 * password::MAX_CHARS,
        )?;
        password::check(&r.new_password)
            .map_err(|why| Status::from(ServiceError::InvalidArgument(why)))?;
        let player = crate::service::own(grant.caller, r.player_id, "password")?;
        let player = self.player(player.0).await?.id;
        let accounts = &self.room.accounts;
        if let Caller::Player(_) = grant.caller
            && let Some(stored) = accounts
                .password_hash(player)
                .await
                .map_err(ServiceError::from)?
        {
            let current = r.current_password.clone();
            if !blocking(move || password::verify(&current, &stored)).await? {
                return Err(ServiceError::Denied(
                    "the current password is wrong; nothing was changed".to_owned(),
                )
                .into());
            }
        }
        let new = r.new_password;
        let hash = blocking(move || password::hash(&new))
            .await?
            .map_err(ServiceError::Internal)?;
        let now = self.room.clock.now();
        let replaced = accounts
            .set_password(player, &hash, now)
            .await
            .map_err(ServiceError::from)?;
        tracing::info!(player_id = %player, by_admin = grant.caller == Caller::Admin, replaced, "password set");
        Ok(apb::SetPasswordResponse { replaced })
    }

    pub(crate) async fn sign_in_call(
        &self,
        request: Request<apb::SignInRequest>,
    ) -> Result<apb::SignInResponse, Status> {
        let r = request.get_ref();
        limits::text("name", &r.name, limits::NAME)?;
        limits::text("password", &r.password, 4 * password::MAX_CHARS)?;
        limits::text("label", &r.label, 4 * MAX_LABEL)?;
        let seconds = match r.expires_in_seconds {
            0 => DEFAULT_SESSION_SECONDS,
            s if (MIN_SESSION_SECONDS..=MAX_SESSION_SECONDS).contains(&s) => s,
            s => {
                return Err(ServiceError::InvalidArgument(format!(
                    "expires_in_seconds must be 0 (14 days) or {MIN_SESSION_SECONDS} to {MAX_SESSION_SECONDS} (30 days), not {s}"
                ))
                .into());
            }
        };
        let now = self.room.clock.now();
        let mut expires_at = Timestamp(now.0.saturating_add(seconds * 1_000));
        let accounts = &self.room.accounts;
        let (player, scopes) = if r.name.is_empty() && r.password.is_empty() {
            // A pasted token: a session for its holder, never more than it.
            // Any live token: a session never holds more than the token that opened it.
            let grant = self
                .room
                .auth
                .grant(request.metadata(), &self.room.directory)
                .await
                .map_err(ServiceError::from)?;
            let Caller::Player(me) = grant.caller else {
                return Err(ServiceError::InvalidArgument(
                    "the admin token opens no session: sign in with an account's name and password or a player token".to_owned(),
                )
                .into());
            };
            if let Some(limit) = grant.expires_at {
                expires_at = expires_at.min(limit);
            }
            (self.player(me.0).await?, grant.scopes)
        } else {
            let found = match hanniball_names::player_name(&r.name) {
                Ok(name) => accounts
                    .player_by_name(&name)
                    .await
                    .map_err(ServiceError::from)?,
                Err(_) => None,
            };
            let stored = match &found {
                Some(row) => accounts
                    .password_hash(row.id)
                    .await
                    .map_err(ServiceError::from)?,
                None => None,
            };
            let given = r.password.clone();
            let matches = blocking(move || match stored {
                Some(stored) => password::verify(&given, &stored),
                None => {
                    // The same work as a real check: the timing tells nothing.
                    let _ = password::verify(&given, password::decoy());
                    false
                }
            })
            .await?;
            match found {
                Some(row) if matches => {
                    let rights = crate::service::rights(&row);
                    (row, rights)
                }
                _ => {
                    tracing::info!("sign-in refused: wrong name or password");
                    return Err(wrong_name_or_password());
                }
            }
        };
        let label = clean_label(&r.label);
        let token = new_token().map_err(ServiceError::from)?;
        let token_id = accounts
            .insert_session(
                player.id,
                &hash_token(&token),
                now,
                &scopes.to_stored(),
                expires_at,
                &label,
            )
            .await
            .map_err(ServiceError::from)?;
        tracing::info!(player_id = %player.id, token_id, "signed in");
        Ok(apb::SignInResponse {
            token: Some(apb::IssuedToken {
                token_id,
                token,
                scopes: scopes.names(),
                expires_at_ms: expires_at.0,
            }),
            player: Some(crate::service::player_message(&player)),
        })
    }

    pub(crate) async fn revoke_sessions_call(
        &self,
        request: Request<apb::RevokeSessionsRequest>,
    ) -> ServiceResult<apb::RevokeSessionsResponse> {
        let grant = self.room.grant(&request, Scope::Tokens).await?;
        let player_id = request.get_ref().player_id;
        let player = crate::service::own(grant.caller, player_id, "sessions")?;
        let player = self.player(player.0).await?.id;
        let accounts = &self.room.accounts;
        let now = self.room.clock.now();
        let mut revoked = 0u32;
        for id in accounts.live_sessions(player, now).await? {
            if accounts.revoke_token(id, now).await? == Some(true) {
                revoked += 1;
            }
            self.room.auth.revoked(id);
        }
        tracing::info!(player_id = %player, revoked, "sessions revoked");
        Ok(apb::RevokeSessionsResponse { revoked })
    }
}

#[cfg(test)]
mod tests {
    use super::clean_label;

    #[test]
    fn labels_lose_control_characters_and_length() {
        assert_eq!(clean_label(" Firefox\n on\tAndroid "), "Firefox on Android");
        assert_eq!(clean_label("\u{7}\u{1b}"), "session");
        assert_eq!(clean_label(&"x".repeat(200)).chars().count(), 80);
    }
}
