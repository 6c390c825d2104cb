//! The API the pages call: where it is ([`WebOptions`]), its clients, and the state every
//! handler shares (the clients, the live feeds, what the process remembers of sign-ins and forms).

use hanniball_client::{Bearer, ClientTls};
use hanniball_proto::accounts::v1 as apb;
use hanniball_proto::accounts::v1::accounts_client::AccountsClient;
use hanniball_proto::arbiter::v1 as pb;
use hanniball_proto::arbiter::v1::arbiter_client::ArbiterClient;
use hanniball_proto::rating::v1::rating_client::RatingClient;
use hanniball_proto::scheduler::v1::scheduler_client::SchedulerClient;
use tonic::service::interceptor::InterceptedService;
use tonic::transport::Channel;

use crate::i18n::tr;
use crate::live::channels::{Feeds, TournamentFeeds};
use crate::session::memory::{Done, SignInLimit};

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

impl Api {
    /// The clients of the API `options` names, with no page watched yet.
    ///
    /// # Errors
    /// A bad URL or TLS file.
    pub(crate) fn connect(options: &WebOptions) -> Result<Api, hanniball_client::ConnectError> {
        let channel = hanniball_client::connect_with(&options.arbiter_url, &options.tls)?;
        let bearer = Bearer::new(&options.token);
        let other = |url: &Option<String>| {
            url.as_deref()
                .map(|url| hanniball_client::connect_with(url, &options.tls))
                .transpose()
        };
        let scheduler_channel = other(&options.scheduler_url)?;
        let accounts_channel = other(&options.accounts_url)?.unwrap_or_else(|| channel.clone());
        Ok(Api {
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
        })
    }

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
