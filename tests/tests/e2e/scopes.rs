//! End to end: token scopes and expiry on every RPC of every service (arbiter, accounts, rating,
//! scheduler in one server), on SQLite and (when configured) PostgreSQL. The scope each RPC needs
//! is read from the README's "Token scopes" table, so the table is what the server does.

use std::collections::BTreeMap;
use std::future::Future;
use std::pin::Pin;
use std::time::Duration;

use hanniball_arbiter_svc::{Arbiter, Clock, Options};
use hanniball_db::Db;
use hanniball_e2e::{ADMIN_TOKEN, Bearer, databases};
use hanniball_proto::accounts::v1 as apb;
use hanniball_proto::accounts::v1::accounts_client::AccountsClient;
use hanniball_proto::arbiter::v1 as pb;
use hanniball_proto::arbiter::v1::arbiter_client::ArbiterClient;
use hanniball_proto::rating::v1 as rpb;
use hanniball_proto::rating::v1::rating_client::RatingClient;
use hanniball_proto::scheduler::v1 as spb;
use hanniball_proto::scheduler::v1::scheduler_client::SchedulerClient;
use hanniball_rating_svc::{Rating, RatingOptions};
use hanniball_scheduler_svc::{Scheduler, SchedulerOptions};
use tokio_util::sync::CancellationToken;
use tonic::service::RoutesBuilder;
use tonic::service::interceptor::InterceptedService;
use tonic::transport::Channel;
use tonic::{Code, Status};

type Svc = InterceptedService<Channel, Bearer>;

/// Clients of every service with one token, and the ids the calls use.
#[derive(Clone)]
struct Clients {
    accounts: AccountsClient<Svc>,
    arbiter: ArbiterClient<Svc>,
    rating: RatingClient<Svc>,
    scheduler: SchedulerClient<Svc>,
    /// The token's player (the admin's calls use it too).
    me: i64,
    /// A game `me` plays White in.
    game: i64,
}

type Answer = Pin<Box<dyn Future<Output = Result<(), Status>> + Send>>;
type Call = fn(Clients) -> Answer;

fn player(id: i64) -> Option<rpb::PlayerRef> {
    Some(rpb::PlayerRef {
        player: Some(rpb::player_ref::Player::Id(id)),
    })
}

/// Every RPC with a request that reaches the service's own checks. Whether the call then
/// succeeds does not matter here; only whether auth let it through.
fn calls() -> Vec<(&'static str, Call)> {
    vec![
        ("Accounts/RegisterPlayer", |mut c| {
            Box::pin(async move {
                static NEXT: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
                let next = NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                let name = format!("new-{next}");
                let request = apb::RegisterPlayerRequest {
                    name,
                    ..Default::default()
                };
                c.accounts.register_player(request).await.map(drop)
            })
        }),
        ("Accounts/IssueToken", |mut c| {
            Box::pin(async move {
                let request = apb::IssueTokenRequest {
                    player_id: c.me,
                    ..Default::default()
                };
                c.accounts.issue_token(request).await.map(drop)
            })
        }),
        ("Accounts/RevokeToken", |mut c| {
            Box::pin(async move {
                let request = apb::RevokeTokenRequest {
                    token_id: 999_999_999,
                };
                c.accounts.revoke_token(request).await.map(drop)
            })
        }),
        ("Accounts/ListTokens", |mut c| {
            Box::pin(async move {
                let request = apb::ListTokensRequest {
                    player_id: c.me,
                    ..Default::default()
                };
                c.accounts.list_tokens(request).await.map(drop)
            })
        }),
        ("Accounts/GetPlayer", |mut c| {
            Box::pin(async move {
                let request = apb::GetPlayerRequest {
                    player: Some(apb::get_player_request::Player::Id(c.me)),
                };
                c.accounts.get_player(request).await.map(drop)
            })
        }),
        ("Accounts/ListPlayers", |mut c| {
            Box::pin(async move {
                let request = apb::ListPlayersRequest::default();
                c.accounts.list_players(request).await.map(drop)
            })
        }),
        ("Accounts/SearchPlayers", |mut c| {
            Box::pin(async move {
                let request = apb::SearchPlayersRequest {
                    query: "a".to_owned(),
                    limit: 0,
                };
                c.accounts.search_players(request).await.map(drop)
            })
        }),
        ("Accounts/WhoAmI", |mut c| {
            Box::pin(async move { c.accounts.who_am_i(apb::WhoAmIRequest {}).await.map(drop) })
        }),
        ("Accounts/GetPlayerNames", |mut c| {
            Box::pin(async move {
                let request = apb::GetPlayerNamesRequest { ids: vec![c.me] };
                c.accounts.get_player_names(request).await.map(drop)
            })
        }),
        ("Accounts/CheckToken", |mut c| {
            Box::pin(async move {
                let request = apb::CheckTokenRequest {
                    token: Some(apb::check_token_request::Token::TokenId(1)),
                };
                c.accounts.check_token(request).await.map(drop)
            })
        }),
        ("Accounts/WatchRevocations", |mut c| {
            Box::pin(async move {
                let request = apb::WatchRevocationsRequest {};
                c.accounts.watch_revocations(request).await.map(drop)
            })
        }),
        ("Accounts/SetPassword", |mut c| {
            Box::pin(async move {
                let request = apb::SetPasswordRequest {
                    new_password: "a long enough password".to_owned(),
                    ..Default::default()
                };
                c.accounts.set_password(request).await.map(drop)
            })
        }),
        ("Accounts/SignIn", |mut c| {
            Box::pin(async move {
                // With the calling token (no name or password): a session for its holder.
                let request = apb::SignInRequest::default();
                c.accounts.sign_in(request).await.map(drop)
            })
        }),
        ("Accounts/RevokeSessions", |mut c| {
            Box::pin(async move {
                let request = apb::RevokeSessionsRequest::default();
                c.accounts.revoke_sessions(request).await.map(drop)
            })
        }),
        ("Accounts/SetOrganiser", |mut c| {
            Box::pin(async move {
                let request = apb::SetOrganiserRequest {
                    player_id: 999_999_999,
                    organiser: false,
                };
                c.accounts.set_organiser(request).await.map(drop)
            })
        }),
        ("Arbiter/CreateGame", |mut c| {
            Box::pin(async move {
                let request = pb::CreateGameRequest {
                    white_player_id: c.me,
                    black_player_id: c.me + 1,
                    ..Default::default()
                };
                c.arbiter.create_game(request).await.map(drop)
            })
        }),
        ("Arbiter/CreateGames", |mut c| {
            Box::pin(async move {
                let request = pb::CreateGamesRequest {
                    games: vec![pb::CreateGameRequest {
                        white_player_id: c.me,
                        black_player_id: c.me + 1,
                        ..Default::default()
                    }],
                };
                c.arbiter.create_games(request).await.map(drop)
            })
        }),
        ("Arbiter/GetGame", |mut c| {
            Box::pin(async move {
                let request = pb::GetGameRequest { game_id: c.game };
                c.arbiter.get_game(request).await.map(drop)
            })
        }),
        ("Arbiter/ListGames", |mut c| {
            Box::pin(async move {
                let request = pb::ListGamesRequest::default();
                c.arbiter.list_games(request).await.map(drop)
            })
        }),
        ("Arbiter/GetLegalSteps", |mut c| {
            Box::pin(async move {
                let request = pb::GetLegalStepsRequest {
                    game_id: c.game,
                    after: String::new(),
                };
                c.arbiter.get_legal_steps(request).await.map(drop)
            })
        }),
        ("Arbiter/SubmitTurn", |mut c| {
            Box::pin(async move {
                // Malformed on purpose: the game goes on for the other tokens.
                let request = pb::SubmitTurnRequest {
                    game_id: c.game,
                    turn_number: 1,
                    turn: "not a turn".to_owned(),
                };
                c.arbiter.submit_turn(request).await.map(drop)
            })
        }),
        ("Arbiter/CheckTurn", |mut c| {
            Box::pin(async move {
                let request = pb::CheckTurnRequest {
                    game_id: c.game,
                    turn_number: 1,
                    turn: "not a turn".to_owned(),
                };
                c.arbiter.check_turn(request).await.map(drop)
            })
        }),
        ("Arbiter/Resign", |mut c| {
            Box::pin(async move {
                let request = pb::ResignRequest { game_id: 999_999 };
                c.arbiter.resign(request).await.map(drop)
            })
        }),
        ("Arbiter/OfferDraw", |mut c| {
            Box::pin(async move {
                let request = pb::OfferDrawRequest { game_id: 999_999 };
                c.arbiter.offer_draw(request).await.map(drop)
            })
        }),
        ("Arbiter/AcceptDraw", |mut c| {
            Box::pin(async move {
                let request = pb::AcceptDrawRequest { game_id: c.game };
                c.arbiter.accept_draw(request).await.map(drop)
            })
        }),
        ("Arbiter/DeclineDraw", |mut c| {
            Box::pin(async move {
                let request = pb::DeclineDrawRequest { game_id: c.game };
                c.arbiter.decline_draw(request).await.map(drop)
            })
        }),
        ("Arbiter/AbortGame", |mut c| {
            Box::pin(async move {
                let request = pb::AbortGameRequest { game_id: 999_999 };
                c.arbiter.abort_game(request).await.map(drop)
            })
        }),
        ("Arbiter/AdjudicateGame", |mut c| {
            Box::pin(async move {
                let request = pb::AdjudicateGameRequest {
                    game_id: 999_999,
                    outcome: pb::Outcome::Draw as i32,
                    forfeit: false,
                };
                c.arbiter.adjudicate_game(request).await.map(drop)
            })
        }),
        ("Arbiter/CorrectResult", |mut c| {
            Box::pin(async move {
                let request = pb::CorrectResultRequest {
                    game_id: 999_999,
                    outcome: pb::Outcome::Draw as i32,
                    ..Default::default()
                };
                c.arbiter.correct_result(request).await.map(drop)
            })
        }),
        ("Arbiter/WatchGame", |mut c| {
            Box::pin(async move {
                let request = pb::WatchGameRequest {
                    game_id: c.game,
                    ..Default::default()
                };
                c.arbiter.watch_game(request).await.map(drop)
            })
        }),
        ("Arbiter/WatchPlayer", |mut c| {
            Box::pin(async move {
                let request = pb::WatchPlayerRequest::default();
                c.arbiter.watch_player(request).await.map(drop)
            })
        }),
        ("Arbiter/WatchResults", |mut c| {
            Box::pin(async move {
                let request = pb::WatchResultsRequest::default();
                c.arbiter.watch_results(request).await.map(drop)
            })
        }),
        ("Arbiter/Ping", |mut c| {
            Box::pin(async move { c.arbiter.ping(pb::PingRequest {}).await.map(drop) })
        }),
        ("Rating/RecordResult", |mut c| {
            Box::pin(async move {
                let request = rpb::RecordResultRequest::default();
                c.rating.record_result(request).await.map(drop)
            })
        }),
        ("Rating/GetRating", |mut c| {
            Box::pin(async move {
                let request = rpb::GetRatingRequest {
                    player: player(c.me),
                    ladder: "hanniball".to_owned(),
                };
                c.rating.get_rating(request).await.map(drop)
            })
        }),
        ("Rating/GetRatings", |mut c| {
            Box::pin(async move {
                let request = rpb::GetRatingsRequest {
                    ladder: "hanniball".to_owned(),
                    player_ids: vec![c.me],
                };
                c.rating.get_ratings(request).await.map(drop)
            })
        }),
        ("Rating/Leaderboard", |mut c| {
            Box::pin(async move {
                let request = rpb::LeaderboardRequest {
                    ladder: "hanniball".to_owned(),
                    ..Default::default()
                };
                c.rating.leaderboard(request).await.map(drop)
            })
        }),
        ("Rating/History", |mut c| {
            Box::pin(async move {
                let request = rpb::HistoryRequest {
                    player: player(c.me),
                    ladder: "hanniball".to_owned(),
                    ..Default::default()
                };
                c.rating.history(request).await.map(drop)
            })
        }),
        ("Rating/HeadToHead", |mut c| {
            Box::pin(async move {
                let request = rpb::HeadToHeadRequest {
                    player: player(c.me),
                    opponent: player(c.me + 1),
                    ladder: "hanniball".to_owned(),
                };
                c.rating.head_to_head(request).await.map(drop)
            })
        }),
        ("Rating/Performance", |mut c| {
            Box::pin(async move {
                let request = rpb::PerformanceRequest {
                    player: player(c.me),
                    ladder: "hanniball".to_owned(),
                    game_ids: vec![c.game],
                };
                c.rating.performance(request).await.map(drop)
            })
        }),
        ("Rating/AdjustRating", |mut c| {
            Box::pin(async move {
                // No reason given: refused after auth, nothing adjusted.
                let request = rpb::AdjustRatingRequest {
                    player: player(c.me),
                    ladder: "hanniball".to_owned(),
                    rating: 1600.0,
                    ..Default::default()
                };
                c.rating.adjust_rating(request).await.map(drop)
            })
        }),
        ("Rating/ListAdjustments", |mut c| {
            Box::pin(async move {
                let request = rpb::ListAdjustmentsRequest::default();
                c.rating.list_adjustments(request).await.map(drop)
            })
        }),
        ("Rating/Rebuild", |mut c| {
            Box::pin(async move { c.rating.rebuild(rpb::RebuildRequest {}).await.map(drop) })
        }),
        ("Rating/ListLadders", |mut c| {
            Box::pin(async move {
                let request = rpb::ListLaddersRequest {};
                c.rating.list_ladders(request).await.map(drop)
            })
        }),
        ("Rating/Ping", |mut c| {
            Box::pin(async move { c.rating.ping(rpb::PingRequest {}).await.map(drop) })
        }),
        ("Scheduler/CreateTournament", |mut c| {
            Box::pin(async move {
                let request = spb::CreateTournamentRequest::default();
                c.scheduler.create_tournament(request).await.map(drop)
            })
        }),
        ("Scheduler/DeleteTournament", |mut c| {
            Box::pin(async move {
                let request = spb::DeleteTournamentRequest {
                    tournament_id: 999_999,
                };
                c.scheduler.delete_tournament(request).await.map(drop)
            })
        }),
        ("Scheduler/AddOrganiser", |mut c| {
            Box::pin(async move {
                let request = spb::AddOrganiserRequest {
                    tournament_id: 999_999,
                    player_id: c.me,
                };
                c.scheduler.add_organiser(request).await.map(drop)
            })
        }),
        ("Scheduler/RemoveOrganiser", |mut c| {
            Box::pin(async move {
                let request = spb::RemoveOrganiserRequest {
                    tournament_id: 999_999,
                    player_id: c.me,
                };
                c.scheduler.remove_organiser(request).await.map(drop)
            })
        }),
        ("Scheduler/SetForbiddenPair", |mut c| {
            Box::pin(async move {
                let request = spb::SetForbiddenPairRequest {
                    tournament_id: 999_999,
                    first_player_id: c.me,
                    second_player_id: c.me + 1,
                    forbidden: true,
                };
                c.scheduler.set_forbidden_pair(request).await.map(drop)
            })
        }),
        ("Scheduler/SetTournamentDetails", |mut c| {
            Box::pin(async move {
                let request = spb::SetTournamentDetailsRequest {
                    tournament_id: 999_999,
                    details: None,
                };
                c.scheduler.set_tournament_details(request).await.map(drop)
            })
        }),
        ("Scheduler/GetTournament", |mut c| {
            Box::pin(async move {
                let request = spb::GetTournamentRequest { tournament_id: 1 };
                c.scheduler.get_tournament(request).await.map(drop)
            })
        }),
        ("Scheduler/ListTournaments", |mut c| {
            Box::pin(async move {
                let request = spb::ListTournamentsRequest::default();
                c.scheduler.list_tournaments(request).await.map(drop)
            })
        }),
        ("Scheduler/AddPlayer", |mut c| {
            Box::pin(async move {
                let request = spb::AddPlayerRequest {
                    tournament_id: 999_999,
                    player_id: c.me,
                    rating: 0,
                };
                c.scheduler.add_player(request).await.map(drop)
            })
        }),
        ("Scheduler/AddPlayers", |mut c| {
            Box::pin(async move {
                let request = spb::AddPlayersRequest {
                    tournament_id: 999_999,
                    players: vec![spb::PlayerEntry {
                        player_id: c.me,
                        rating: 0,
                    }],
                };
                c.scheduler.add_players(request).await.map(drop)
            })
        }),
        ("Scheduler/WithdrawPlayer", |mut c| {
            Box::pin(async move {
                let request = spb::WithdrawPlayerRequest {
                    tournament_id: 999_999,
                    player_id: c.me,
                };
                c.scheduler.withdraw_player(request).await.map(drop)
            })
        }),
        ("Scheduler/RequestBye", |mut c| {
            Box::pin(async move {
                let request = spb::RequestByeRequest {
                    tournament_id: 999_999,
                    player_id: c.me,
                    round: 1,
                    half_point: true,
                };
                c.scheduler.request_bye(request).await.map(drop)
            })
        }),
        ("Scheduler/StartTournament", |mut c| {
            Box::pin(async move {
                let request = spb::StartTournamentRequest {
                    tournament_id: 999_999,
                };
                c.scheduler.start_tournament(request).await.map(drop)
            })
        }),
        ("Scheduler/PairNextRound", |mut c| {
            Box::pin(async move {
                let request = spb::PairNextRoundRequest {
                    tournament_id: 999_999,
                };
                c.scheduler.pair_next_round(request).await.map(drop)
            })
        }),
        ("Scheduler/SetResult", |mut c| {
            Box::pin(async move {
                let request = spb::SetResultRequest {
                    tournament_id: 999_999,
                    round: 1,
                    board: 1,
                    result: "1-0".to_owned(),
                };
                c.scheduler.set_result(request).await.map(drop)
            })
        }),
        ("Scheduler/ImportTournament", |mut c| {
            Box::pin(async move {
                let request = spb::ImportTournamentRequest {
                    trf: "XXR 1\n".to_owned(),
                    ..Default::default()
                };
                c.scheduler.import_tournament(request).await.map(drop)
            })
        }),
        ("Scheduler/CorrectResult", |mut c| {
            Box::pin(async move {
                let request = spb::CorrectResultRequest {
                    tournament_id: 999_999,
                    round: 1,
                    board: 1,
                    result: "1-0".to_owned(),
                    ..Default::default()
                };
                c.scheduler.correct_result(request).await.map(drop)
            })
        }),
        ("Scheduler/SetResults", |mut c| {
            Box::pin(async move {
                let request = spb::SetResultsRequest {
                    tournament_id: 999_999,
                    results: vec![spb::BoardResult {
                        round: 1,
                        board: 1,
                        result: "1-0".to_owned(),
                    }],
                };
                c.scheduler.set_results(request).await.map(drop)
            })
        }),
        ("Scheduler/GetStandings", |mut c| {
            Box::pin(async move {
                let request = spb::GetStandingsRequest {
                    tournament_id: 999_999,
                    after_round: 0,
                };
                c.scheduler.get_standings(request).await.map(drop)
            })
        }),
        ("Scheduler/ExportTrf", |mut c| {
            Box::pin(async move {
                let request = spb::ExportTrfRequest {
                    tournament_id: 999_999,
                };
                c.scheduler.export_trf(request).await.map(drop)
            })
        }),
        ("Scheduler/JoinQueue", |mut c| {
            Box::pin(async move {
                // An unknown game kind: refused after auth, nobody queued.
                let request = spb::JoinQueueRequest {
                    kind: "no-such-game".to_owned(),
                    ..Default::default()
                };
                c.scheduler.join_queue(request).await.map(drop)
            })
        }),
        ("Scheduler/LeaveQueue", |mut c| {
            Box::pin(async move {
                let request = spb::LeaveQueueRequest {};
                c.scheduler.leave_queue(request).await.map(drop)
            })
        }),
        ("Scheduler/GetQueue", |mut c| {
            Box::pin(async move {
                let request = spb::GetQueueRequest::default();
                c.scheduler.get_queue(request).await.map(drop)
            })
        }),
        ("Scheduler/Ping", |mut c| {
            Box::pin(async move { c.scheduler.ping(spb::PingRequest {}).await.map(drop) })
        }),
    ]
}

/// The README's "Token scopes" table: the scope each RPC needs (`None`: no scope, any live
/// token or none at all).
fn documented_scopes() -> BTreeMap<String, Option<String>> {
    let readme = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../README.md"))
        .expect("README");
    let section = readme
        .split("### Token scopes")
        .nth(1)
        .expect("README has a Token scopes section");
    let mut scopes = BTreeMap::new();
    for line in section.lines().skip_while(|l| !l.starts_with('|')) {
        if !line.starts_with('|') {
            break;
        }
        let cells: Vec<&str> = line.split('|').map(str::trim).collect();
        let scope = cells[1].trim_matches('`');
        if !matches!(
            scope,
            "play" | "queue" | "read" | "tokens" | "organise" | "admin" | "none"
        ) {
            continue;
        }
        for rpc in cells[2].split(',').map(|r| r.trim().trim_matches('`')) {
            let previous =
                scopes.insert(rpc.to_owned(), (scope != "none").then(|| scope.to_owned()));
            assert!(previous.is_none(), "{rpc} is listed twice in Token scopes");
        }
    }
    scopes
}

/// Arbiter, rating and scheduler in one server on 127.0.0.1:0.
async fn serve(db: &str) -> (String, CancellationToken) {
    let db = Db::connect(db).await.expect("database");
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("port");
    let url = format!("http://{}", listener.local_addr().expect("addr"));
    let shutdown = CancellationToken::new();
    let options = Options {
        admin_token: ADMIN_TOKEN.into(),
        clock: Clock::System,
    };
    let (accounts_room, arbiter) = hanniball_e2e::arbiter_and_accounts(&db, options, &shutdown)
        .await
        .expect("arbiter");
    let accounts = accounts_room.directory().clone();
    let rating = Rating::build(
        db.clone(),
        accounts.clone(),
        RatingOptions::new(ADMIN_TOKEN),
        shutdown.clone(),
    )
    .await
    .expect("rating");
    let mut options = SchedulerOptions::new(ADMIN_TOKEN, &url);
    options.rating_url = None;
    let scheduler = Scheduler::build(db, accounts, &options, shutdown.clone())
        .await
        .expect("scheduler");
    let mut routes = RoutesBuilder::default();
    accounts_room.add_to(&mut routes);
    arbiter.add_to(&mut routes);
    rating.add_to(&mut routes);
    scheduler.add_to(&mut routes);
    let mut names = Arbiter::SERVICE_NAMES.to_vec();
    names.extend(hanniball_accounts_svc::Accounts::SERVICE_NAMES);
    names.extend(Rating::SERVICE_NAMES);
    names.extend(Scheduler::SERVICE_NAMES);
    hanniball_svc_kit::serve(listener, routes, &names, shutdown.clone())
        .await
        .expect("serve");
    (url, shutdown)
}

async fn clients(url: &str, token: &str, me: i64, game: i64) -> Clients {
    let channel = Channel::from_shared(url.to_owned())
        .expect("url")
        .connect()
        .await
        .expect("connect");
    let bearer = Bearer::new(token);
    Clients {
        accounts: AccountsClient::with_interceptor(channel.clone(), bearer.clone()),
        arbiter: ArbiterClient::with_interceptor(channel.clone(), bearer.clone()),
        rating: RatingClient::with_interceptor(channel.clone(), bearer.clone()),
        scheduler: SchedulerClient::with_interceptor(channel, bearer),
        me,
        game,
    }
}

/// Registers white and black and starts a game between them; returns (white, white's token
/// from registration, game).
async fn setup(admin: &mut Clients) -> (i64, String, i64) {
    let mut ids = Vec::new();
    let mut tokens = Vec::new();
    for name in ["white", "black"] {
        let (id, token) = hanniball_e2e::register_bot(&mut admin.accounts, name).await;
        ids.push(id);
        tokens.push(token);
    }
    let game = admin
        .arbiter
        .create_game(pb::CreateGameRequest {
            white_player_id: ids[0],
            black_player_id: ids[1],
            ..Default::default()
        })
        .await
        .expect("game")
        .into_inner()
        .game
        .expect("game")
        .id;
    (ids[0], tokens.swap_remove(0), game)
}

async fn issue(admin: &mut Clients, player: i64, scopes: &[&str], expires: i64) -> String {
    admin
        .accounts
        .issue_token(apb::IssueTokenRequest {
            player_id: player,
            scopes: scopes.iter().map(|s| (*s).to_owned()).collect(),
            expires_in_seconds: expires,
        })
        .await
        .expect("issue")
        .into_inner()
        .token
        .expect("token")
        .token
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_call_needs_its_scope() {
    let documented = documented_scopes();
    let calls = calls();
    let tested: Vec<&str> = calls.iter().map(|(name, _)| *name).collect();
    assert_eq!(
        documented.keys().map(String::as_str).collect::<Vec<_>>(),
        {
            let mut sorted = tested.clone();
            sorted.sort_unstable();
            sorted
        },
        "the README's Token scopes table and this test must both list every RPC"
    );
    for db in databases().await {
        let (url, shutdown) = serve(&db).await;
        let mut admin = clients(&url, ADMIN_TOKEN, 0, 0).await;
        let (white, registered, game) = setup(&mut admin).await;
        admin.me = white;
        admin.game = game;
        let mut tokens = vec![
            (
                "admin",
                vec!["play", "queue", "read", "tokens", "organise", "admin"],
                ADMIN_TOKEN.to_owned(),
            ),
            (
                "default",
                vec!["play", "queue", "read", "tokens"],
                registered,
            ),
        ];
        // White is an organiser too, so that its tokens may hold `organise`.
        admin
            .accounts
            .set_organiser(apb::SetOrganiserRequest {
                player_id: white,
                organiser: true,
            })
            .await
            .expect("organiser");
        for scopes in [
            vec!["read"],
            vec!["play"],
            vec!["queue"],
            vec!["tokens"],
            vec!["organise"],
            vec!["play", "queue"],
        ] {
            let token = issue(&mut admin, white, &scopes, 0).await;
            tokens.push(("limited", scopes, token));
        }
        for (kind, scopes, token) in &tokens {
            let client = clients(&url, token, white, game).await;
            // WhoAmI reports the token's scopes, in their fixed order, and no expiry.
            let me = client
                .accounts
                .clone()
                .who_am_i(apb::WhoAmIRequest {})
                .await
                .expect("who am i")
                .into_inner();
            assert_eq!(&me.scopes, scopes, "{kind} token");
            assert_eq!(me.expires_at_ms, 0);
            assert_eq!(me.admin, *kind == "admin");
            for (rpc, call) in &calls {
                let needs = &documented[*rpc];
                let answer = call(client.clone()).await;
                let denied = matches!(&answer, Err(s) if s.code() == Code::PermissionDenied
                    && s.message().contains("scope"));
                match needs {
                    Some(scope) if !scopes.contains(&scope.as_str()) => {
                        let status = answer.expect_err(rpc);
                        assert_eq!(status.code(), Code::PermissionDenied, "{rpc} {status:?}");
                        let expected = format!(
                            "this call needs the `{scope}` scope; the token has: {}",
                            scopes.join(", ")
                        );
                        assert_eq!(status.message(), expected, "{rpc}");
                    }
                    _ => {
                        assert!(!denied, "{rpc} refused a {scopes:?} token: {answer:?}");
                        assert!(
                            !matches!(&answer, Err(s) if s.code() == Code::Unauthenticated),
                            "{rpc}: {answer:?}"
                        );
                    }
                }
            }
        }
        shutdown.cancel();
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_expired_token_is_refused_everywhere_with_unauthenticated() {
    for db in databases().await {
        let (url, shutdown) = serve(&db).await;
        let mut admin = clients(&url, ADMIN_TOKEN, 0, 0).await;
        let (white, _, game) = setup(&mut admin).await;
        let token = issue(&mut admin, white, &[], 1).await;
        let mut client = clients(&url, &token, white, game).await;
        let me = client
            .accounts
            .who_am_i(apb::WhoAmIRequest {})
            .await
            .expect("valid for a second")
            .into_inner();
        assert_eq!(me.scopes, ["play", "queue", "read", "tokens"]);
        assert!(me.expires_at_ms > 0);
        // Wait until it has expired (the server's clock decides; bounded).
        let mut refused = None;
        for _ in 0..100 {
            match client.accounts.who_am_i(apb::WhoAmIRequest {}).await {
                Ok(_) => tokio::time::sleep(Duration::from_millis(50)).await,
                Err(status) => {
                    refused = Some(status);
                    break;
                }
            }
        }
        let refused = refused.expect("the token expires after a second");
        assert_eq!(refused.code(), Code::Unauthenticated, "{refused:?}");
        assert_eq!(refused.message(), "token expired");
        for (rpc, call) in calls() {
            let answer = call(client.clone()).await;
            if rpc.ends_with("/Ping") {
                assert!(answer.is_ok(), "{rpc} needs no token: {answer:?}");
                continue;
            }
            let status = answer.expect_err(rpc);
            assert_eq!(status.code(), Code::Unauthenticated, "{rpc} {status:?}");
            assert_eq!(status.message(), "token expired", "{rpc}");
        }
        shutdown.cancel();
    }
}

#[tokio::test]
async fn issue_token_refuses_bad_scopes_and_expiries() {
    for db in databases().await {
        let (url, shutdown) = serve(&db).await;
        let mut admin = clients(&url, ADMIN_TOKEN, 0, 0).await;
        let (white, registered, _) = setup(&mut admin).await;
        let cases: [(&[&str], i64, &str); 6] = [
            (&["read", "write"], 0, "unknown scope \"write\""),
            (&["admin"], 0, "cannot hold the admin scope"),
            (&[" read"], 0, "unknown scope"),
            (&["read"], -1, "expires_in_seconds"),
            (&["read"], i64::MAX, "expires_in_seconds"),
            (&["read"; 17], 0, "scopes has 17 items"),
        ];
        for (scopes, expires, message) in cases {
            let status = admin
                .accounts
                .issue_token(apb::IssueTokenRequest {
                    player_id: white,
                    scopes: scopes.iter().map(|s| (*s).to_owned()).collect(),
                    expires_in_seconds: expires,
                })
                .await
                .expect_err("refused");
            assert_eq!(status.code(), Code::InvalidArgument, "{scopes:?} {expires}");
            assert!(
                status.message().contains(message),
                "{scopes:?} {expires}: {status:?}"
            );
        }
        // A good one reports what it grants; repeats collapse, the order is fixed.
        let issued = admin
            .accounts
            .issue_token(apb::IssueTokenRequest {
                player_id: white,
                scopes: vec!["read".to_owned(), "play".to_owned(), "read".to_owned()],
                expires_in_seconds: 3_600,
            })
            .await
            .expect("issued")
            .into_inner()
            .token
            .expect("token");
        assert_eq!(issued.scopes, ["play", "read"]);
        assert!(issued.expires_at_ms > 0);
        let me = clients(&url, &issued.token, white, 0)
            .await
            .accounts
            .who_am_i(apb::WhoAmIRequest {})
            .await
            .expect("who am i")
            .into_inner();
        assert_eq!(me.scopes, ["play", "read"]);
        assert_eq!(me.expires_at_ms, issued.expires_at_ms);
        // A player token issues tokens only for its own player.
        let status = clients(&url, &registered, white, 0)
            .await
            .accounts
            .issue_token(apb::IssueTokenRequest {
                player_id: white + 1,
                ..Default::default()
            })
            .await
            .expect_err("not its own");
        assert_eq!(status.code(), Code::PermissionDenied);
        assert!(
            status.message().contains("only its own tokens"),
            "{status:?}"
        );
        // And without the `tokens` scope, not at all.
        let status = clients(&url, &issued.token, white, 0)
            .await
            .accounts
            .issue_token(apb::IssueTokenRequest {
                player_id: white,
                ..Default::default()
            })
            .await
            .expect_err("no tokens scope");
        assert_eq!(status.code(), Code::PermissionDenied);
        assert!(status.message().contains("`tokens` scope"), "{status:?}");
        shutdown.cancel();
    }
}

/// A registered human player made an organiser; its id and a token with its full rights.
async fn organiser(admin: &mut Clients, name: &str) -> (i64, String) {
    let id = admin
        .accounts
        .register_player(apb::RegisterPlayerRequest {
            name: name.to_owned(),
            ..Default::default()
        })
        .await
        .expect("register")
        .into_inner()
        .player
        .expect("player")
        .id;
    admin
        .accounts
        .set_organiser(apb::SetOrganiserRequest {
            player_id: id,
            organiser: true,
        })
        .await
        .expect("grant");
    (id, issue(admin, id, &[], 0).await)
}

async fn tournament(c: &mut Clients, id: i64) -> spb::Tournament {
    c.scheduler
        .get_tournament(spb::GetTournamentRequest { tournament_id: id })
        .await
        .expect("get")
        .into_inner()
        .tournament
        .expect("tournament")
}

fn denied<T: std::fmt::Debug>(what: &str, answer: Result<T, Status>) {
    let status = answer.expect_err(what);
    assert_eq!(status.code(), Code::PermissionDenied, "{what}: {status:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn organisers_change_only_their_own_tournaments() {
    for db in databases().await {
        let (url, shutdown) = serve(&db).await;
        let mut admin = clients(&url, ADMIN_TOKEN, 0, 0).await;
        let (olga, olga_token) = organiser(&mut admin, "Olga").await;
        let (petra, petra_token) = organiser(&mut admin, "Petra").await;
        let mut olga_c = clients(&url, &olga_token, olga, 0).await;
        let mut petra_c = clients(&url, &petra_token, petra, 0).await;
        let mut players = Vec::new();
        let mut player_token = String::new();
        for name in ["p1", "p2", "p3", "p4", "p5"] {
            let (id, token) = hanniball_e2e::register_bot(&mut admin.accounts, name).await;
            players.push(id);
            player_token = token;
        }
        // An organiser's default token holds `organise`; a player's does not, and cannot create.
        let who = olga_c
            .accounts
            .who_am_i(apb::WhoAmIRequest {})
            .await
            .expect("who")
            .into_inner();
        assert!(who.scopes.contains(&"organise".to_owned()), "{who:?}");
        let mut plain = clients(&url, &player_token, players[4], 0).await;
        let settings = || spb::TournamentSettings {
            name: "Olga's Swiss".to_owned(),
            rounds: 2,
            over_the_board: true,
            manual_pairing: true,
            ..Default::default()
        };
        let create = |settings| spb::CreateTournamentRequest {
            settings: Some(settings),
        };
        denied(
            "a player creating",
            plain.scheduler.create_tournament(create(settings())).await,
        );
        let id = olga_c
            .scheduler
            .create_tournament(create(settings()))
            .await
            .expect("create")
            .into_inner()
            .tournament
            .expect("t")
            .id;
        assert_eq!(tournament(&mut admin, id).await.organiser_ids, vec![olga]);
        for &p in &players[..4] {
            olga_c
                .scheduler
                .add_player(spb::AddPlayerRequest {
                    tournament_id: id,
                    player_id: p,
                    rating: 1500,
                })
                .await
                .expect("add");
        }
        olga_c
            .scheduler
            .start_tournament(spb::StartTournamentRequest { tournament_id: id })
            .await
            .expect("start");
        let result = |board, result: &str| spb::SetResultRequest {
            tournament_id: id,
            round: 1,
            board,
            result: result.to_owned(),
        };
        olga_c
            .scheduler
            .set_result(result(1, "1-0"))
            .await
            .expect("olga's result");

        // Another organiser changes nothing, through any call.
        let before = tournament(&mut admin, id).await;
        let s = &mut petra_c.scheduler;
        let add = spb::AddPlayerRequest {
            tournament_id: id,
            player_id: players[4],
            rating: 0,
        };
        denied("add", s.add_player(add).await);
        let withdraw = spb::WithdrawPlayerRequest {
            tournament_id: id,
            player_id: players[0],
        };
        denied("withdraw", s.withdraw_player(withdraw).await);
        let bye = spb::RequestByeRequest {
            tournament_id: id,
            player_id: players[0],
            round: 2,
            half_point: true,
        };
        denied("bye", s.request_bye(bye).await);
        denied("result", s.set_result(result(2, "0-1")).await);
        let results = spb::SetResultsRequest {
            tournament_id: id,
            results: vec![spb::BoardResult {
                round: 1,
                board: 2,
                result: "0-1".to_owned(),
            }],
        };
        denied("results", s.set_results(results).await);
        let correct = spb::CorrectResultRequest {
            tournament_id: id,
            round: 1,
            board: 1,
            result: "0-1".to_owned(),
            note: String::new(),
        };
        denied("correct", s.correct_result(correct.clone()).await);
        let pair = spb::PairNextRoundRequest { tournament_id: id };
        denied("pair", s.pair_next_round(pair).await);
        let forbid = spb::SetForbiddenPairRequest {
            tournament_id: id,
            first_player_id: players[0],
            second_player_id: players[1],
            forbidden: true,
        };
        denied("forbid", s.set_forbidden_pair(forbid).await);
        // Refused for want of the right, before the state is looked at (it has started).
        let start = spb::StartTournamentRequest { tournament_id: id };
        denied("start", s.start_tournament(start).await);
        let add_many = spb::AddPlayersRequest {
            tournament_id: id,
            players: vec![spb::PlayerEntry {
                player_id: players[4],
                rating: 0,
            }],
        };
        denied("add players", s.add_players(add_many).await);
        let delete = spb::DeleteTournamentRequest { tournament_id: id };
        denied("delete", s.delete_tournament(delete).await);
        let oust = spb::RemoveOrganiserRequest {
            tournament_id: id,
            player_id: olga,
        };
        denied("remove organiser", s.remove_organiser(oust).await);
        let join = spb::AddOrganiserRequest {
            tournament_id: id,
            player_id: petra,
        };
        let status = s.add_organiser(join).await.expect_err("join");
        assert!(
            status.message().contains("you do not organise tournament"),
            "{status:?}"
        );
        assert_eq!(tournament(&mut admin, id).await, before, "nothing changed");

        // A co-organiser may; the admin may; a correction says who made it.
        olga_c
            .scheduler
            .add_organiser(spb::AddOrganiserRequest {
                tournament_id: id,
                player_id: petra,
            })
            .await
            .expect("co-organiser");
        petra_c
            .scheduler
            .set_result(result(2, "1/2-1/2"))
            .await
            .expect("petra's result");
        let corrected = petra_c
            .scheduler
            .correct_result(correct)
            .await
            .expect("petra corrects")
            .into_inner();
        assert_eq!(corrected.correction.expect("correction").by, "Petra");
        admin
            .scheduler
            .pair_next_round(spb::PairNextRoundRequest { tournament_id: id })
            .await
            .expect("the admin pairs");
        let removed = petra_c
            .scheduler
            .remove_organiser(spb::RemoveOrganiserRequest {
                tournament_id: id,
                player_id: olga,
            })
            .await
            .expect("remove olga")
            .into_inner();
        assert_eq!(removed.organiser_ids, vec![petra]);
        let last = petra_c
            .scheduler
            .remove_organiser(spb::RemoveOrganiserRequest {
                tournament_id: id,
                player_id: petra,
            })
            .await
            .expect_err("the last organiser stays");
        assert_eq!(last.code(), Code::FailedPrecondition);

        // Deletion: before the start only.
        let started = olga_c
            .scheduler
            .delete_tournament(spb::DeleteTournamentRequest { tournament_id: id })
            .await
            .expect_err("olga no longer organises it");
        assert_eq!(started.code(), Code::PermissionDenied);
        let started = petra_c
            .scheduler
            .delete_tournament(spb::DeleteTournamentRequest { tournament_id: id })
            .await
            .expect_err("started");
        assert_eq!(started.code(), Code::FailedPrecondition, "{started:?}");
        let fresh = olga_c
            .scheduler
            .create_tournament(create(settings()))
            .await
            .expect("create")
            .into_inner()
            .tournament
            .expect("t")
            .id;
        olga_c
            .scheduler
            .delete_tournament(spb::DeleteTournamentRequest {
                tournament_id: fresh,
            })
            .await
            .expect("delete before the start");
        let gone = admin
            .scheduler
            .get_tournament(spb::GetTournamentRequest {
                tournament_id: fresh,
            })
            .await
            .expect_err("deleted");
        assert_eq!(gone.code(), Code::NotFound);

        // The right taken away ends at once, for tokens already issued.
        admin
            .accounts
            .set_organiser(apb::SetOrganiserRequest {
                player_id: olga,
                organiser: false,
            })
            .await
            .expect("take away");
        let status = olga_c
            .scheduler
            .create_tournament(create(settings()))
            .await
            .expect_err("no longer an organiser");
        assert_eq!(status.code(), Code::PermissionDenied);
        assert!(status.message().contains("`organise`"), "{status:?}");
        // Nor can a new token bring it back: from the admin (by default a player's rights
        // only) or from the old token.
        let status = admin
            .accounts
            .issue_token(apb::IssueTokenRequest {
                player_id: olga,
                scopes: vec!["organise".to_owned()],
                expires_in_seconds: 0,
            })
            .await
            .expect_err("not an organiser");
        assert_eq!(status.code(), Code::PermissionDenied, "{status:?}");
        let fresh = clients(&url, &issue(&mut admin, olga, &[], 0).await, olga, 0).await;
        let who = fresh
            .accounts
            .clone()
            .who_am_i(apb::WhoAmIRequest {})
            .await
            .expect("who")
            .into_inner();
        assert_eq!(who.scopes, ["play", "queue", "read", "tokens"]);
        let status = olga_c
            .accounts
            .issue_token(apb::IssueTokenRequest {
                player_id: 0,
                scopes: vec!["organise".to_owned()],
                expires_in_seconds: 0,
            })
            .await
            .expect_err("the old token lost it");
        assert_eq!(status.code(), Code::PermissionDenied, "{status:?}");
        shutdown.cancel();
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_tournament_the_admin_creates_is_the_admins_until_it_adds_organisers() {
    for db in databases().await {
        let (url, shutdown) = serve(&db).await;
        let mut admin = clients(&url, ADMIN_TOKEN, 0, 0).await;
        let (olga, olga_token) = organiser(&mut admin, "Olga").await;
        let mut olga_c = clients(&url, &olga_token, olga, 0).await;
        let (bot, _) = hanniball_e2e::register_bot(&mut admin.accounts, "bot").await;
        let (plain, _) = hanniball_e2e::register_bot(&mut admin.accounts, "plain").await;
        let created = admin
            .scheduler
            .create_tournament(spb::CreateTournamentRequest {
                settings: Some(spb::TournamentSettings {
                    name: "The admin's".to_owned(),
                    rounds: 1,
                    ..Default::default()
                }),
            })
            .await
            .expect("create")
            .into_inner()
            .tournament
            .expect("t");
        let id = created.id;
        assert!(created.organiser_ids.is_empty(), "{created:?}");
        let add = spb::AddPlayerRequest {
            tournament_id: id,
            player_id: bot,
            rating: 0,
        };
        let status = olga_c
            .scheduler
            .add_player(add)
            .await
            .expect_err("not hers");
        assert_eq!(status.code(), Code::PermissionDenied);
        assert!(
            status
                .message()
                .contains(&format!("you do not organise tournament {id}")),
            "{status:?}"
        );
        let delete = spb::DeleteTournamentRequest { tournament_id: id };
        denied("delete", olga_c.scheduler.delete_tournament(delete).await);
        assert!(tournament(&mut admin, id).await.entrants.is_empty());

        // Only players holding the right become organisers, only of tournaments that exist.
        let status = admin
            .scheduler
            .add_organiser(spb::AddOrganiserRequest {
                tournament_id: id,
                player_id: plain,
            })
            .await
            .expect_err("not an organiser");
        assert_eq!(status.code(), Code::FailedPrecondition, "{status:?}");
        let status = admin
            .scheduler
            .add_organiser(spb::AddOrganiserRequest {
                tournament_id: id + 1_000,
                player_id: olga,
            })
            .await
            .expect_err("no such tournament");
        assert_eq!(status.code(), Code::NotFound, "{status:?}");
        let added = admin
            .scheduler
            .add_organiser(spb::AddOrganiserRequest {
                tournament_id: id,
                player_id: olga,
            })
            .await
            .expect("the admin adds olga")
            .into_inner();
        assert!(added.added);
        assert_eq!(added.organiser_ids, vec![olga]);
        olga_c
            .scheduler
            .add_player(add)
            .await
            .expect("now hers too");
        let listed = olga_c
            .scheduler
            .list_tournaments(spb::ListTournamentsRequest::default())
            .await
            .expect("list")
            .into_inner()
            .tournaments;
        let summary = listed.iter().find(|t| t.id == id).expect("listed");
        assert_eq!(summary.organiser_ids, vec![olga]);
        // The admin may take the last organiser away: the tournament is the admin's alone again.
        let removed = admin
            .scheduler
            .remove_organiser(spb::RemoveOrganiserRequest {
                tournament_id: id,
                player_id: olga,
            })
            .await
            .expect("the admin removes olga")
            .into_inner();
        assert!(removed.removed && removed.organiser_ids.is_empty());
        let start = spb::StartTournamentRequest { tournament_id: id };
        denied("start", olga_c.scheduler.start_tournament(start).await);
        admin
            .scheduler
            .delete_tournament(spb::DeleteTournamentRequest { tournament_id: id })
            .await
            .expect("the admin deletes it");
        shutdown.cancel();
    }
}

/// Polls `call` until it is refused for want of the `organise` scope, for at most two seconds
/// (a token cache alone would keep the right for ten).
async fn until_not_organising(
    mut call: impl FnMut() -> Pin<Box<dyn Future<Output = Result<(), Status>> + Send>>,
) {
    let deadline = tokio::time::Instant::now() + Duration::from_secs(2);
    loop {
        match call().await {
            Err(s) if s.code() == Code::PermissionDenied && s.message().contains("`organise`") => {
                return;
            }
            other => assert!(
                tokio::time::Instant::now() < deadline,
                "still organising after 2 s: {other:?}"
            ),
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_right_taken_away_on_one_replica_ends_on_the_other() {
    let Some(base) = hanniball_db::testing::postgres_base_url() else {
        eprintln!("skipped: replicas need PostgreSQL (HANNIBALL_TEST_POSTGRES_URL is not set)");
        return;
    };
    let db = hanniball_db::testing::postgres_url(&base)
        .await
        .expect("a fresh database");
    let (url_a, shutdown_a) = serve(&db).await;
    let (url_b, shutdown_b) = serve(&db).await;
    let mut admin_a = clients(&url_a, ADMIN_TOKEN, 0, 0).await;
    let (olga, token) = organiser(&mut admin_a, "Olga").await;
    let on_b = clients(&url_b, &token, olga, 0).await;
    // Every cache of B holds the token with `organise`: its accounts' and its scheduler's.
    let who = on_b
        .accounts
        .clone()
        .who_am_i(apb::WhoAmIRequest {})
        .await
        .expect("who")
        .into_inner();
    assert!(who.scopes.contains(&"organise".to_owned()), "{who:?}");
    on_b.scheduler
        .clone()
        .create_tournament(spb::CreateTournamentRequest {
            settings: Some(spb::TournamentSettings {
                name: "On B".to_owned(),
                rounds: 1,
                ..Default::default()
            }),
        })
        .await
        .expect("olga creates on B");

    admin_a
        .accounts
        .set_organiser(apb::SetOrganiserRequest {
            player_id: olga,
            organiser: false,
        })
        .await
        .expect("taken away through A");
    // A deletion of a tournament that does not exist changes nothing: NOT_FOUND while the token
    // organises, PERMISSION_DENIED (scope) once B has heard.
    until_not_organising(|| {
        let mut scheduler = on_b.scheduler.clone();
        Box::pin(async move {
            scheduler
                .delete_tournament(spb::DeleteTournamentRequest {
                    tournament_id: 999_999,
                })
                .await
                .map(drop)
        })
    })
    .await;
    until_not_organising(|| {
        let mut accounts = on_b.accounts.clone();
        Box::pin(async move {
            accounts
                .register_player(apb::RegisterPlayerRequest {
                    name: String::new(),
                    ..Default::default()
                })
                .await
                .map(drop)
        })
    })
    .await;
    shutdown_a.cancel();
    shutdown_b.cancel();
}
