//! Signing in and out, and one's account: password, sessions, "sign out everywhere".

use std::net::SocketAddr;

use axum::extract::{ConnectInfo, RawQuery, State};
use axum::http::{HeaderMap, Request, StatusCode, header};
use axum::response::{IntoResponse, Response};
use hanniball_proto::accounts::v1 as apb;
use maud::{Markup, html};

use super::{Form, act, guard, layout, outcome, said};
use crate::api::Api;
use crate::html as page;
use crate::i18n::tr;
use crate::session::cookies::cookie;
use crate::session::{self, PRE_COOKIE, SESSION_COOKIE, csrf_for};

/// A session cookie lives as long as its session: the API's default, 14 days.
const SESSION_SECONDS: u64 = 14 * 24 * 3_600;

/// The browser's address, as the connection shows it.
pub(crate) fn client_ip<B>(request: &Request<B>) -> Option<std::net::IpAddr> {
    request
        .extensions()
        .get::<ConnectInfo<SocketAddr>>()
        .map(|info| info.0.ip())
}

fn sign_in_form(csrf: &str, name: &str, problem: Option<&str>) -> Markup {
    html! {
        link rel="stylesheet" href="/console.css";
        h1 { (tr!("sign-in")) }
        @if let Some(problem) = problem {
            p.flash.error role="alert" { (problem) }
        }
        form.stack method="post" action="/sign-in" {
            input type="hidden" name="csrf" value=(csrf);
            label { (tr!("sign-in-name")) " " input type="text" name="name" value=(name) autocomplete="username" required maxlength="160"; }
            label { (tr!("sign-in-password")) " " input type="password" name="password" autocomplete="current-password" required maxlength="512"; }
            button.big type="submit" { (tr!("sign-in")) }
        }
        details {
            summary { (tr!("sign-in-token-instead")) }
            form.stack method="post" action="/sign-in" {
                input type="hidden" name="csrf" value=(csrf);
                label { (tr!("sign-in-token")) " " input type="password" name="token" autocomplete="off" required maxlength="200"; }
                button type="submit" { (tr!("sign-in-with-token")) }
            }
            p { (tr!("sign-in-token-note")) }
        }
    }
}

/// `GET /sign-in`.
pub(crate) async fn sign_in_page(State(api): State<Api>, headers: HeaderMap) -> Response {
    if session::visitor(&api, &headers).await.is_some() {
        return session::see_other("/console");
    }
    let (pre, set) = match cookie(&headers, PRE_COOKIE) {
        Some(pre) => (pre, None),
        None => {
            let pre = session::random_id();
            let cookie = session::set_cookie(&api, &headers, PRE_COOKIE, &pre, 86_400);
            (pre, Some(cookie))
        }
    };
    let body = sign_in_form(&csrf_for(&pre), "", None);
    let mut response = page::page(&tr!("sign-in"), body).into_response();
    if let Some(cookie) = set {
        response.headers_mut().append(header::SET_COOKIE, cookie);
    }
    response
}

/// `POST /sign-in`: name and password (or a token) for a session cookie.
pub(crate) async fn sign_in(
    State(api): State<Api>,
    request: Request<axum::body::Body>,
) -> Response {
    let ip = client_ip(&request);
    let headers = request.headers().clone();
    let Ok(body) = axum::body::to_bytes(request.into_body(), 64 * 1024).await else {
        return page::error_page(StatusCode::PAYLOAD_TOO_LARGE, &tr!("error-form-too-large"));
    };
    let form = Form(String::from_utf8_lossy(&body).into_owned());
    let pre = cookie(&headers, PRE_COOKIE).unwrap_or_default();
    if !session::form_ok(&headers, &pre, form.get("csrf").as_deref()) {
        return session::forbidden_form();
    }
    let refuse = |status: StatusCode, name: &str, problem: &str| {
        let body = sign_in_form(&csrf_for(&pre), name, Some(problem));
        (status, page::page(&tr!("sign-in"), body)).into_response()
    };
    if let Some(wait) = api.sign_ins.locked(ip) {
        return refuse(
            StatusCode::TOO_MANY_REQUESTS,
            "",
            &tr!("sign-in-locked", seconds = wait.as_secs() + 1),
        );
    }
    let name = form.get("name").unwrap_or_default();
    let label = headers
        .get(header::USER_AGENT)
        .and_then(|v| v.to_str().ok())
        .map_or_else(|| "browser".to_owned(), describe_browser);
    let request = apb::SignInRequest {
        name: name.clone(),
        password: form.get("password").unwrap_or_default(),
        label,
        expires_in_seconds: 0,
    };
    let answer = match form.get("token").filter(|t| !t.trim().is_empty()) {
        Some(token) => {
            let token = token.trim().to_owned();
            api.as_user(&token)
                .accounts
                .sign_in(apb::SignInRequest {
                    name: String::new(),
                    password: String::new(),
                    ..request
                })
                .await
        }
        // With the pages' own token: the API's failed-authentication limit counts addresses, and
        // every browser's wrong password would otherwise lock the pages' address out; the pages
        // keep that count per browser instead ([`crate::session::memory::SignInLimit`]).
        None => api.accounts.clone().sign_in(request).await,
    };
    let issued = match answer {
        Ok(answer) => answer.into_inner().token,
        Err(status)
            if matches!(
                status.code(),
                tonic::Code::Unauthenticated | tonic::Code::PermissionDenied
            ) =>
        {
            api.sign_ins.failed(ip);
            let problem = if form.get("token").is_some() {
                tr!("sign-in-bad-token")
            } else {
                tr!("sign-in-wrong")
            };
            return refuse(StatusCode::UNAUTHORIZED, &name, &problem);
        }
        Err(status) if status.code() == tonic::Code::InvalidArgument => {
            api.sign_ins.failed(ip);
            return refuse(StatusCode::UNAUTHORIZED, &name, status.message());
        }
        Err(status) => return refuse(StatusCode::SERVICE_UNAVAILABLE, &name, &said(&status)),
    };
    let Some(issued) = issued else {
        return refuse(StatusCode::BAD_GATEWAY, &name, &tr!("sign-in-no-session"));
    };
    let mut response = session::see_other("/console");
    let headers_out = response.headers_mut();
    headers_out.append(
        header::SET_COOKIE,
        session::set_cookie(
            &api,
            &headers,
            SESSION_COOKIE,
            &issued.token,
            SESSION_SECONDS,
        ),
    );
    headers_out.append(
        header::SET_COOKIE,
        session::set_cookie(&api, &headers, PRE_COOKIE, "", 0),
    );
    response
}

/// A short description of a browser from its `User-Agent`, for the session list.
fn describe_browser(agent: &str) -> String {
    let browser = ["Firefox", "Edg", "OPR", "Chrome", "Safari"]
        .into_iter()
        .find(|b| agent.contains(b))
        .map_or("A browser", |b| match b {
            "Edg" => "Edge",
            "OPR" => "Opera",
            b => b,
        });
    let system = ["Android", "iPhone", "iPad", "Windows", "Mac OS", "Linux"]
        .into_iter()
        .find(|s| agent.contains(s))
        .map_or("", |s| if s == "Mac OS" { "macOS" } else { s });
    if system.is_empty() {
        browser.to_owned()
    } else {
        format!("{browser} on {system}")
    }
}

/// `POST /sign-out`: the session is revoked (everywhere at once) and its cookie removed.
pub(crate) async fn sign_out(State(api): State<Api>, headers: HeaderMap, body: String) -> Response {
    let form = Form(body);
    let Some(visitor) = session::visitor(&api, &headers).await else {
        let mut response = session::see_other("/");
        response.headers_mut().append(
            header::SET_COOKIE,
            session::set_cookie(&api, &headers, SESSION_COOKIE, "", 0),
        );
        return response;
    };
    if !session::form_ok(&headers, &visitor.token, form.get("csrf").as_deref()) {
        return session::forbidden_form();
    }
    let revoked = api
        .as_user(&visitor.token)
        .accounts
        .revoke_token(apb::RevokeTokenRequest {
            token_id: visitor.token_id,
        })
        .await;
    if let Err(status) = revoked {
        return page::error_page(
            StatusCode::SERVICE_UNAVAILABLE,
            &tr!("sign-out-failed", reason = said(&status)),
        );
    }
    let mut response = session::see_other("/");
    response.headers_mut().append(
        header::SET_COOKIE,
        session::set_cookie(&api, &headers, SESSION_COOKIE, "", 0),
    );
    response
}

/// `GET /account`: password change and the list of one's sessions.
pub(crate) async fn account_page(
    State(api): State<Api>,
    headers: HeaderMap,
    RawQuery(query): RawQuery,
) -> Response {
    let Some(visitor) = session::visitor(&api, &headers).await else {
        return session::see_other("/sign-in");
    };
    let done = outcome(&api, query.as_deref(), &visitor);
    let listed = api
        .as_user(&visitor.token)
        .accounts
        .list_tokens(apb::ListTokensRequest {
            limit: 1_000,
            ..Default::default()
        })
        .await;
    let tokens = match listed {
        Ok(answer) => answer.into_inner().tokens,
        Err(status) => return page::api_error(&status),
    };
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| i64::try_from(d.as_millis()).unwrap_or(i64::MAX));
    let sessions: Vec<&apb::TokenInfo> = tokens
        .iter()
        .filter(|t| t.session && t.revoked_at_ms == 0 && t.expires_at_ms > now)
        .collect();
    let body = html! {
        h1 { (tr!("account-heading", name = visitor.player.name.as_str())) }
        p { (tr!("account-rights", rights = visitor.scopes.join(", "))) }
        h2 { (tr!("account-sessions")) }
        table.sessions {
            thead { tr {
                th scope="col" { (tr!("account-signed-in")) } th scope="col" { (tr!("account-where")) }
                th scope="col" { (tr!("account-ends")) } th scope="col" { "" }
            } }
            tbody {
                @for s in &sessions {
                    tr {
                        td { (when(s.created_at_ms)) }
                        td { (s.label) @if s.current { " " (tr!("account-this-one")) } }
                        td { (when(s.expires_at_ms)) }
                        td {
                            form.inline method="post" action="/account/sessions/revoke" {
                                (guard(&visitor))
                                input type="hidden" name="token_id" value=(s.token_id);
                                button type="submit" { (tr!("sign-out")) }
                            }
                        }
                    }
                }
            }
        }
        form method="post" action="/account/sessions/revoke-all" {
            (guard(&visitor))
            button type="submit" { (tr!("sign-out-everywhere")) }
        }
        h2 { (tr!("password-change")) }
        form.stack method="post" action="/account/password" {
            (guard(&visitor))
            label { (tr!("password-current")) " " input type="password" name="current" autocomplete="current-password" maxlength="512"; }
            label { (tr!("password-new")) " " input type="password" name="new" autocomplete="new-password" required minlength="8" maxlength="128"; }
            label { (tr!("password-again")) " " input type="password" name="again" autocomplete="new-password" required minlength="8" maxlength="128"; }
            button type="submit" { (tr!("password-change")) }
        }
    };
    layout(&tr!("account-title"), &visitor, done.as_ref(), body)
}

/// A time in UTC as people read it in their language, short enough for the sessions' table
/// (`2026-11-29, 14:05 UTC`, `29.11.2026, 14:05 UTC`).
fn when(ms: i64) -> String {
    crate::i18n::date_time_short(ms)
}

/// `POST /account/password`.
pub(crate) async fn change_password(
    State(api): State<Api>,
    headers: HeaderMap,
    body: String,
) -> Response {
    act(
        &api,
        &headers,
        body,
        "/account",
        |_visitor, mut user, form| async move {
            let new = form.get("new").unwrap_or_default();
            if form.get("again").unwrap_or_default() != new {
                return Err(tr!("password-differ"));
            }
            user.accounts
                .set_password(apb::SetPasswordRequest {
                    player_id: 0,
                    new_password: new,
                    current_password: form.get("current").unwrap_or_default(),
                })
                .await
                .map_err(|s| said(&s))?;
            Ok((tr!("password-changed"), None))
        },
    )
    .await
}

/// `POST /account/sessions/revoke`: one session ends.
pub(crate) async fn revoke_session(
    State(api): State<Api>,
    headers: HeaderMap,
    body: String,
) -> Response {
    act(
        &api,
        &headers,
        body,
        "/account",
        |visitor, mut user, form| async move {
            let token_id: i64 = form.number("token_id", &tr!("field-session"))?;
            let answer = user
                .accounts
                .revoke_token(apb::RevokeTokenRequest { token_id })
                .await
                .map_err(|s| said(&s))?
                .into_inner();
            if token_id == visitor.token_id {
                return Ok((tr!("session-this-out"), Some("/sign-in".to_owned())));
            }
            Ok((
                if answer.revoked {
                    tr!("session-out")
                } else {
                    tr!("session-already-out")
                },
                None,
            ))
        },
    )
    .await
}

/// `POST /account/sessions/revoke-all`: "sign out everywhere", this browser included.
pub(crate) async fn revoke_all(
    State(api): State<Api>,
    headers: HeaderMap,
    body: String,
) -> Response {
    act(
        &api,
        &headers,
        body,
        "/account",
        |_visitor, mut user, _form| async move {
            let answer = user
                .accounts
                .revoke_sessions(apb::RevokeSessionsRequest { player_id: 0 })
                .await
                .map_err(|s| said(&s))?
                .into_inner();
            Ok((
                tr!("signed-out-everywhere", count = answer.revoked),
                Some("/sign-in".to_owned()),
            ))
        },
    )
    .await
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn browsers_are_described_shortly() {
        let android = "Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/130.0 Mobile Safari/537.36";
        assert_eq!(describe_browser(android), "Chrome on Android");
        assert_eq!(
            describe_browser(
                "Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0"
            ),
            "Firefox on Linux"
        );
        assert_eq!(describe_browser("curl/8"), "A browser");
    }

    #[test]
    fn times_are_written_in_utc() {
        assert_eq!(when(0), "1970-01-01, 00:00 UTC");
        assert_eq!(when(1_795_910_400_000), "2026-11-29, 00:00 UTC");
        assert_eq!(
            crate::i18n::within(crate::i18n::Lang::Fr, "/", || when(1_795_910_400_000)),
            "29/11/2026 à 00:00 UTC"
        );
    }
}
