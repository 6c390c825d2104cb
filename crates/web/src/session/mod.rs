//! Who is signed in, and the guards every changing form passes: sessions carried in a cookie,
//! CSRF tokens, a cap on failed sign-ins per address, and forms that act once (`memory`).
//!
//! A session is an Accounts token of its own (`SignIn`), kept only in an `HttpOnly`,
//! `SameSite=Strict` cookie (`Secure` over TLS); the pages call the API with it, so the services
//! decide what the visitor may do, exactly as for a bot. Its CSRF token is derived from it (a
//! hash: another session's does not fit), and the sign-in form's from a cookie set before any
//! session exists. No token or session id is ever put in a URL or a log.

pub(crate) mod cookies;
pub(crate) mod memory;

use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use hanniball_proto::accounts::v1 as apb;
use sha2::{Digest, Sha256};

use crate::api::Api;
use crate::html;
use crate::session::cookies::cookie;

/// The session cookie's name.
pub(crate) const SESSION_COOKIE: &str = "hb_session";
/// The cookie the sign-in form's CSRF token is derived from, before there is a session.
pub(crate) const PRE_COOKIE: &str = "hb_pre";

/// A signed-in visitor: the session's token (never shown) and whom it belongs to.
#[derive(Clone)]
pub(crate) struct Visitor {
    pub(crate) token: String,
    pub(crate) player: apb::Player,
    pub(crate) scopes: Vec<String>,
    pub(crate) token_id: i64,
}

impl Visitor {
    /// The CSRF token this session's forms carry.
    pub(crate) fn csrf(&self) -> String {
        csrf_for(&self.token)
    }

    pub(crate) fn organises(&self) -> bool {
        self.scopes.iter().any(|s| s == "organise")
    }
}

/// A CSRF token for a secret (a session's token, or the sign-in cookie): a hash, so that it
/// tells nothing of the secret and fits no other one.
pub(crate) fn csrf_for(secret: &str) -> String {
    let mut hash = Sha256::new();
    hash.update(b"hanniball-csrf\0");
    hash.update(secret.as_bytes());
    hex::encode(&hash.finalize()[..16])
}

/// Compares in time independent of where the texts differ.
fn same(a: &str, b: &str) -> bool {
    a.len() == b.len()
        && a.bytes()
            .zip(b.bytes())
            .fold(0u8, |acc, (x, y)| acc | (x ^ y))
            == 0
}

/// A random value for cookies and form ids: 16 bytes in hex.
pub(crate) fn random_id() -> String {
    let mut bytes = [0u8; 16];
    if getrandom::fill(&mut bytes).is_err() {
        // No randomness: a value no one can guess is impossible; refuse by making it unusable.
        return String::new();
    }
    hex::encode(bytes)
}

/// Whether cookies must be `Secure`: the server says it is reached over TLS, or a proxy in front
/// says the request came over HTTPS.
fn secure(api: &Api, headers: &HeaderMap) -> bool {
    api.secure_cookies
        || headers
            .get("x-forwarded-proto")
            .is_some_and(|v| v.as_bytes().eq_ignore_ascii_case(b"https"))
}

/// A `Set-Cookie` value: `HttpOnly`, `SameSite=Strict`, the whole site, `Secure` over TLS;
/// `max_age` 0 deletes it.
pub(crate) fn set_cookie(
    api: &Api,
    headers: &HeaderMap,
    name: &str,
    value: &str,
    max_age: u64,
) -> HeaderValue {
    let secure = if secure(api, headers) { "; Secure" } else { "" };
    HeaderValue::from_str(&format!(
        "{name}={value}; Path=/; HttpOnly; SameSite=Strict; Max-Age={max_age}{secure}"
    ))
    .unwrap_or_else(|_| HeaderValue::from_static("hb_invalid=; Max-Age=0"))
}

/// The visitor whose session cookie this request carries, if it is still good.
pub(crate) async fn visitor(api: &Api, headers: &HeaderMap) -> Option<Visitor> {
    let token = cookie(headers, SESSION_COOKIE)?;
    if !token.starts_with("hb_") || token.len() > 200 {
        return None;
    }
    let mut accounts = api.as_user(&token).accounts;
    let who = accounts
        .who_am_i(apb::WhoAmIRequest {})
        .await
        .ok()?
        .into_inner();
    Some(Visitor {
        player: who.player?,
        scopes: who.scopes,
        token_id: who.token_id,
        token,
    })
}

/// A redirect after a form (303: the browser follows with GET, so a reload sends nothing again).
pub(crate) fn see_other(location: &str) -> Response {
    (
        StatusCode::SEE_OTHER,
        [(header::LOCATION, location.to_owned())],
    )
        .into_response()
}

/// The answer to a changing request whose CSRF token is missing or wrong: nothing was done.
pub(crate) fn forbidden_form() -> Response {
    html::error_page(
        StatusCode::FORBIDDEN,
        "This form is out of date or did not come from this site's page, so nothing was changed. \
         Open the page again and resubmit.",
    )
}

/// Whether a changing request may go on: its `Origin`, when sent, is this site, and its CSRF
/// token fits `secret`.
pub(crate) fn form_ok(headers: &HeaderMap, secret: &str, given: Option<&str>) -> bool {
    if let (Some(origin), Some(host)) = (headers.get(header::ORIGIN), headers.get(header::HOST)) {
        let origin = origin.to_str().unwrap_or_default();
        let host = host.to_str().unwrap_or_default();
        let origin_host = origin.split_once("://").map_or(origin, |(_, rest)| rest);
        if origin_host != host {
            return false;
        }
    }
    !secret.is_empty() && given.is_some_and(|given| same(given, &csrf_for(secret)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_csrf_token_fits_its_secret_only() {
        let mut headers = HeaderMap::new();
        let token = csrf_for("hb_one");
        assert!(form_ok(&headers, "hb_one", Some(&token)));
        assert!(!form_ok(&headers, "hb_two", Some(&token)));
        assert!(!form_ok(&headers, "hb_one", None));
        assert!(!form_ok(&headers, "", Some(&csrf_for(""))));
        assert!(!form_ok(&headers, "hb_one", Some(&token[1..])));
        headers.insert(header::HOST, HeaderValue::from_static("club.example"));
        headers.insert(
            header::ORIGIN,
            HeaderValue::from_static("https://club.example"),
        );
        assert!(form_ok(&headers, "hb_one", Some(&token)));
        headers.insert(
            header::ORIGIN,
            HeaderValue::from_static("https://evil.example"),
        );
        assert!(!form_ok(&headers, "hb_one", Some(&token)));
    }
}
