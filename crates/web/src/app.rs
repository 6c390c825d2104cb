//! The router, the state every handler shares (the API clients and the live feeds), and serving.

use axum::Router;
use axum::http::header;
use axum::routing::{get, post};
use hanniball_client::{Bearer, ClientTls};
use hanniball_proto::accounts::v1 as apb;
use hanniball_proto::accounts::v1::accounts_client::AccountsClient;
use hanniball_proto::arbiter::v1 as pb;
use hanniball_proto::arbiter::v1::arbiter_client::ArbiterClient;
use hanniball_proto::rating::v1::rating_client::RatingClient;
use hanniball_proto::scheduler::v1::scheduler_client::SchedulerClient;
use tokio_util::sync::CancellationToken;
use tonic::service::interceptor::InterceptedService;
use tonic::transport::Channel;

use crate::console::{account, import, run};
use crate::i18n::tr;
use crate::live::{Feeds, TournamentFeeds};
use crate::session::{Done, SignInLimit};
use crate::{
    assets, card, console, game, home, html, ladder, live, player, record, rules, search,
    statistics, tournament,
};

type Arbiter = ArbiterClient<InterceptedService<Channel, Bearer>>;
pub(crate) type Accounts = AccountsClient<InterceptedService<Channel, Bearer>>;
pub(crate) type Scheduler = SchedulerClient<InterceptedService<Channel, Bearer>>;
type Rating = RatingClient<InterceptedService<Channel, Bearer>>;

/// Where the web part finds the API, and as whom it calls.
#[derive(Clone, Debug)]
pub struct WebOptions {
    /// The arbiter; several URLs separated by commas balance.
    pub arbiter_url: String,
    /// Accounts, when it runs apart from the arbiter (`None`: at `arbiter_url`).
    pub accounts_url: Option<String>,
    /// The scheduler, for tournament pages (`None`: none).
    pub scheduler_url: Option<String>,
    /// The rating service, for ladder pages (`None`: none).
    pub rating_url: Option<String>,
    /// The token the pages call with (read calls only).
    pub token: String,
    pub tls: ClientTls,
    /// Failed sign-ins per browser address per minute before the address must wait for the
    /// minute's end (the API's `server.failed_auth_per_minute`); 0: no limit.
    pub failed_sign_ins_per_minute: u32,
    /// Cookies are `Secure`: the pages are reached over HTTPS (also when a proxy in front says
    /// so with `X-Forwarded-Proto: https`).
    pub secure_cookies: bool,
}

impl WebOptions {
    /// Pages calling the arbiter at `arbiter_url` with `token`, with no scheduler or rating
    /// service, plain TLS defaults, 60 failed sign-ins a minute and cookies without `Secure`.
    #[must_use]
    pub fn new(arbiter_url: &str, token: &str) -> WebOptions {
        WebOptions {
            arbiter_url: arbiter_url.to_owned(),
            accounts_url: None,
            scheduler_url: None,
            rating_url: None,
            token: token.to_owned(),
            tls: ClientTls::default(),
            failed_sign_ins_per_minute: 60,
            secure_cookies: false,
        }
    }
}

/// API clients calling as a signed-in visitor (their session's token).
#[derive(Clone)]
pub(crate) struct UserApi {
    pub(crate) accounts: Accounts,
    pub(crate) scheduler: Option<Scheduler>,
}

/// What every handler shares: the API clients (a clone shares their connections) and the live
/// feeds.
#[derive(Clone)]
pub(crate) struct Api {
    pub(crate) arbiter: Arbiter,
    pub(crate) accounts: Accounts,
    pub(crate) scheduler: Option<Scheduler>,
    pub(crate) rating: Option<Rating>,
    pub(crate) feeds: std::sync::Arc<Feeds>,
    pub(crate) tournaments: std::sync::Arc<TournamentFeeds>,
    /// The connections, for calls made as a signed-in visitor (Accounts', the scheduler's).
    accounts_channel: Channel,
    scheduler_channel: Option<Channel>,
    pub(crate) sign_ins: std::sync::Arc<SignInLimit>,
    pub(crate) done: std::sync::Arc<Done>,
    pub(crate) secure_cookies: bool,
}

/// The web pages as an axum router.
///
/// # Errors
/// A bad arbiter URL or TLS file.
pub fn router(options: &WebOptions) -> Result<Router, hanniball_client::ConnectError> {
    let channel = hanniball_client::connect_with(&options.arbiter_url, &options.tls)?;
    let bearer = Bearer::new(&options.token);
    let other = |url: &Option<String>| {
        url.as_deref()
            .map(|url| hanniball_client::connect_with(url, &options.tls))
            .transpose()
    };
    let scheduler_channel = other(&options.scheduler_url)?;
    let accounts_channel = other(&options.accounts_url)?.unwrap_or_else(|| channel.clone());
    let api = Api {
        arbiter: ArbiterClient::with_interceptor(channel.clone(), bearer.clone()),
        accounts: AccountsClient::with_interceptor(accounts_channel.clone(), bearer.clone()),
        scheduler: scheduler_channel
            .clone()
            .map(|c| SchedulerClient::with_interceptor(c, bearer.clone())),
        rating: other(&options.rating_url)?.map(|c| RatingClient::with_interceptor(c, bearer)),
        feeds: std::sync::Arc::default(),
        tournaments: std::sync::Arc::default(),
        accounts_channel,
        scheduler_channel,
        sign_ins: std::sync::Arc::new(SignInLimit::new(options.failed_sign_ins_per_minute)),
        done: std::sync::Arc::default(),
        secure_cookies: options.secure_cookies,
    };
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

impl Api {
    /// Clients that call as the visitor whose session token this is.
    pub(crate) fn as_user(&self, token: &str) -> UserApi {
        let bearer = Bearer::new(token);
        UserApi {
            accounts: AccountsClient::with_interceptor(
                self.accounts_channel.clone(),
                bearer.clone(),
            ),
            scheduler: self
                .scheduler_channel
                .clone()
                .map(|c| SchedulerClient::with_interceptor(c, bearer)),
        }
    }

    pub(crate) async fn name(&mut self, id: i64) -> String {
        let request = apb::GetPlayerRequest {
            player: Some(apb::get_player_request::Player::Id(id)),
        };
        match self.accounts.get_player(request).await {
            Ok(answer) => answer
                .into_inner()
                .player
                .map_or_else(|| tr!("player-number", id = id), |p| p.name),
            Err(_) => tr!("player-number", id = id),
        }
    }

    /// The names of `ids` (each asked for once, all at once).
    pub(crate) async fn names(
        &self,
        ids: impl IntoIterator<Item = i64>,
    ) -> std::collections::HashMap<i64, String> {
        let ids: std::collections::BTreeSet<i64> = ids.into_iter().filter(|id| *id > 0).collect();
        let mut asks = tokio::task::JoinSet::new();
        for id in ids {
            let mut api = self.clone();
            asks.spawn(async move { (id, api.name(id).await) });
        }
        let mut names = std::collections::HashMap::new();
        while let Some(answer) = asks.join_next().await {
            if let Ok((id, name)) = answer {
                names.insert(id, name);
            }
        }
        names
    }

    pub(crate) async fn game(&mut self, id: i64) -> Result<pb::Game, tonic::Status> {
        self.arbiter
            .get_game(pb::GetGameRequest { game_id: id })
            .await?
            .into_inner()
            .game
            .ok_or_else(|| tonic::Status::internal("no game in the answer"))
    }

    pub(crate) async fn games(
        &mut self,
        status: pb::GameStatus,
    ) -> Result<Vec<pb::Game>, tonic::Status> {
        Ok(self
            .arbiter
            .list_games(pb::ListGamesRequest {
                status: status.into(),
                limit: 30,
                ..Default::default()
            })
            .await?
            .into_inner()
            .games)
    }
}
