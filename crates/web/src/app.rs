//! The router (a route per page, the headers every answer carries, ETags) and serving.

use axum::Router;
use axum::http::header;
use axum::routing::{get, post};
use tokio_util::sync::CancellationToken;

use crate::api::{Api, WebOptions};
use crate::console::{account, import, run};
use crate::{
    assets, card, console, game, home, html, ladder, live, player, record, rules, search,
    statistics, tournament,
};

/// The web pages as an axum router.
///
/// # Errors
/// A bad arbiter URL or TLS file.
pub fn router(options: &WebOptions) -> Result<Router, hanniball_client::ConnectError> {
    let api = Api::connect(options)?;
    let router = Router::new()
        .route("/", get(home::home))
        .route("/fragments/games", get(home::games_fragment))
        .route("/rules", get(rules::rules_page))
        .route("/tournaments/{id}", get(tournament::tournament_page))
        .route("/tournaments/{id}/trf", get(tournament::trf_download))
        .route("/tournaments/{id}/players/{player}", get(card::card_page))
        .route(
            "/tournaments/{id}/statistics",
            get(statistics::statistics_page),
        )
        .route("/tournaments/{id}/print", get(tournament::print_page))
        .route("/search", get(search::search_page))
        .route("/tournaments/{id}/events", get(live::tournament_events))
        .route("/ladders/{*name}", get(ladder::ladder_page))
        .route("/players/{id}", get(player::player_page))
        .route("/games/{id}", get(game::game_page))
        .route("/games/{id}/record", get(record::record_download))
        .route("/games/{id}/events", get(live::game_events))
        .route(
            "/sign-in",
            get(account::sign_in_page).post(account::sign_in),
        )
        .route("/sign-out", post(account::sign_out))
        .route("/account", get(account::account_page))
        .route("/account/password", post(account::change_password))
        .route("/account/sessions/revoke", post(account::revoke_session))
        .route("/account/sessions/revoke-all", post(account::revoke_all))
        .route("/console", get(console::console_page))
        .route("/console.css", get(console::style))
        .route("/console/tournaments", post(console::create))
        .route(
            "/console/import",
            get(import::import_page).post(import::import),
        )
        .route("/console/tournaments/{id}", get(run::tournament_page))
        .route("/console/tournaments/{id}/start", post(run::start))
        .route("/console/tournaments/{id}/pair", post(run::pair))
        .route("/console/tournaments/{id}/delete", post(run::delete))
        .route("/console/tournaments/{id}/result", post(run::result))
        .route("/console/tournaments/{id}/correct", post(run::correct))
        .route("/console/tournaments/{id}/withdraw", post(run::withdraw))
        .route("/console/tournaments/{id}/bye", post(run::bye))
        .route("/console/tournaments/{id}/forbid", post(run::forbid))
        .route("/console/tournaments/{id}/details", post(run::set_details))
        .route("/console/tournaments/{id}/add", post(run::add))
        .route("/console/tournaments/{id}/register", post(run::register))
        .route("/assets/{name}", get(assets::script))
        .route("/favicon.ico", get(assets::favicon))
        .route("/favicon.svg", get(assets::favicon))
        .fallback(html::not_found)
        .with_state(api);
    // What every answer carries: security headers (scripts and styles only from the page
    // itself, no framing, no MIME sniffing, no referrer beyond the site), `Cache-Control` (pages
    // are live: revalidate; the icon sets its own) and gzip for clients that accept it.
    let fixed = |name, value: &'static str| {
        tower_http::set_header::SetResponseHeaderLayer::if_not_present(
            name,
            axum::http::HeaderValue::from_static(value),
        )
    };
    Ok(router
        // Innermost: the language switch's redirect gets the headers below too, and the ETag
        // layer hashes each language's own body.
        .layer(axum::middleware::from_fn(crate::i18n::language))
        .layer(fixed(
            header::CONTENT_SECURITY_POLICY,
            "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; \
             img-src 'self' data:; connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; \
             form-action 'self'",
        ))
        .layer(fixed(header::X_CONTENT_TYPE_OPTIONS, "nosniff"))
        .layer(fixed(header::X_FRAME_OPTIONS, "DENY"))
        .layer(fixed(header::REFERRER_POLICY, "same-origin"))
        .layer(fixed(header::CACHE_CONTROL, "no-cache"))
        .layer(axum::middleware::from_fn(etag))
        .layer(tower_http::compression::CompressionLayer::new()))
}

/// The largest answer given an ETag (a bigger one is sent without).
const ETAG_MAX: usize = 8 << 20;

/// Answers to `GET` of pages and assets carry an ETag (a hash of the body); a request whose
/// `If-None-Match` names it gets `304 Not Modified` and no body, so a reload or a revisit of a
/// page that did not change costs a few bytes. Event streams and other answers pass untouched.
async fn etag(
    request: axum::extract::Request,
    next: axum::middleware::Next,
) -> axum::response::Response {
    use axum::response::IntoResponse;
    use sha2::Digest;
    let asked = (request.method() == axum::http::Method::GET)
        .then(|| request.headers().get(header::IF_NONE_MATCH).cloned())
        .flatten();
    let is_get = request.method() == axum::http::Method::GET;
    let response = next.run(request).await;
    let cacheable = is_get
        && response.status() == axum::http::StatusCode::OK
        && response
            .headers()
            .get(header::CONTENT_TYPE)
            .and_then(|v| v.to_str().ok())
            .is_some_and(|t| !t.starts_with("text/event-stream"));
    if !cacheable {
        return response;
    }
    let (mut parts, body) = response.into_parts();
    let Ok(bytes) = axum::body::to_bytes(body, ETAG_MAX).await else {
        parts.status = axum::http::StatusCode::INTERNAL_SERVER_ERROR;
        return parts.into_response();
    };
    let hash = sha2::Sha256::digest(&bytes);
    let tag = format!("W/\"{}\"", hex::encode(&hash[..12]));
    let matches = asked
        .as_ref()
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.split(',').any(|t| t.trim() == tag || t.trim() == "*"));
    if let Ok(value) = axum::http::HeaderValue::from_str(&tag) {
        parts.headers.insert(header::ETAG, value);
    }
    if matches {
        parts.status = axum::http::StatusCode::NOT_MODIFIED;
        parts.headers.remove(header::CONTENT_LENGTH);
        return (parts, axum::body::Body::empty()).into_response();
    }
    (parts, axum::body::Body::from(bytes)).into_response()
}

/// Serves `router` on `listener` until `shutdown`.
///
/// # Errors
/// The listener fails.
pub async fn serve(
    listener: tokio::net::TcpListener,
    router: Router,
    shutdown: CancellationToken,
) -> std::io::Result<()> {
    // The browser's address, for the failed sign-in limit.
    axum::serve(
        listener,
        router.into_make_service_with_connect_info::<std::net::SocketAddr>(),
    )
    .with_graceful_shutdown(shutdown.cancelled_owned())
    .await
}
