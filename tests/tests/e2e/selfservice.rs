//! End to end (issue 19, items 4 and 5): players manage their own tokens, enter and leave
//! tournaments open for entry, and a stream whose token is revoked or expires ends with
//! `UNAUTHENTICATED` (on PostgreSQL also when another replica revokes it). SQLite and, when
//! configured, PostgreSQL.

use std::time::Duration;

use hanniball_db::Db;
use hanniball_e2e::{
    ADMIN_TOKEN, Bearer, Client, TestServer, check_turn, databases, start, turn_through_the_api,
};
use hanniball_proto::accounts::v1 as apb;
use hanniball_proto::arbiter::v1 as pb;
use hanniball_proto::scheduler::v1 as spb;
use hanniball_proto::scheduler::v1::scheduler_client::SchedulerClient;
use hanniball_scheduler_svc::{Scheduler, SchedulerOptions};
use tokio_stream::StreamExt;
use tokio_util::sync::CancellationToken;
use tonic::service::RoutesBuilder;
use tonic::service::interceptor::InterceptedService;
use tonic::transport::Channel;
use tonic::{Code, Status, Streaming};

/// Longest wait for something that should happen within about a second (the bound of a poll,
/// not a claim about speed).
const PATIENCE: Duration = Duration::from_secs(20);

async fn issue(
    client: &mut Client,
    player_id: i64,
    scopes: &[&str],
    expires_in_seconds: i64,
) -> Result<apb::IssuedToken, Status> {
    client
        .accounts
        .issue_token(apb::IssueTokenRequest {
            player_id,
            scopes: scopes.iter().map(|s| (*s).to_owned()).collect(),
            expires_in_seconds,
        })
        .await
        .map(|r| r.into_inner().token.expect("token"))
}

async fn list(client: &mut Client, player_id: i64) -> Result<Vec<apb::TokenInfo>, Status> {
    client
        .accounts
        .list_tokens(apb::ListTokensRequest {
            player_id,
            ..Default::default()
        })
        .await
        .map(|r| r.into_inner().tokens)
}

async fn revoke(client: &mut Client, token_id: i64) -> Result<bool, Status> {
    client
        .accounts
        .revoke_token(apb::RevokeTokenRequest { token_id })
        .await
        .map(|r| r.into_inner().revoked)
}

async fn token_id(client: &mut Client) -> i64 {
    client
        .accounts
        .who_am_i(apb::WhoAmIRequest {})
        .await
        .expect("who am i")
        .into_inner()
        .token_id
}

#[tokio::test]
async fn players_issue_list_and_revoke_only_their_own_tokens() {
    for db in databases().await {
        let server = start(&db).await;
        let mut admin = server.admin().await;
        let (alice, mut a) = server.player("alice").await;
        let (bob, mut b) = server.player("bob").await;
        let first = token_id(&mut a).await;
        assert!(first > 0);

        // "Me" (0) and its own id both work; the new token inherits the calling token's scopes.
        let own = issue(&mut a, 0, &[], 0).await.expect("own token");
        assert_eq!(own.scopes, ["play", "queue", "read", "tokens"]);
        let narrow = issue(&mut a, alice, &["read"], 3_600)
            .await
            .expect("own id");
        assert_eq!(narrow.scopes, ["read"]);
        let mut narrowed = server.client(Some(&narrow.token)).await;
        let me = narrowed
            .accounts
            .who_am_i(apb::WhoAmIRequest {})
            .await
            .expect("works")
            .into_inner();
        assert_eq!(me.player.expect("player").id, alice);
        assert_eq!(me.token_id, narrow.token_id);

        // Never for another player, never beyond its own scopes.
        let status = issue(&mut a, bob, &[], 0).await.expect_err("bob's");
        assert_eq!(status.code(), Code::PermissionDenied, "{status:?}");
        let tokens_only = issue(&mut a, 0, &["tokens"], 0).await.expect("tokens only");
        let mut minter = server.client(Some(&tokens_only.token)).await;
        let status = issue(&mut minter, 0, &["play"], 0)
            .await
            .expect_err("wider");
        assert_eq!(status.code(), Code::PermissionDenied, "{status:?}");
        assert!(status.message().contains("play"), "{status:?}");
        // A token that expires passes its expiry on, and cannot give a later one.
        let short = issue(&mut a, 0, &["read", "tokens"], 60)
            .await
            .expect("short");
        let mut short_client = server.client(Some(&short.token)).await;
        let child = issue(&mut short_client, 0, &["read"], 0)
            .await
            .expect("child");
        assert_eq!(child.expires_at_ms, short.expires_at_ms);
        let status = issue(&mut short_client, 0, &["read"], 3_600)
            .await
            .expect_err("outlives its parent");
        assert_eq!(status.code(), Code::InvalidArgument, "{status:?}");

        // Listing: its own (by 0 or id), never another's; the admin lists anyone's.
        let listed = list(&mut a, 0).await.expect("own list");
        let ids: Vec<i64> = listed.iter().map(|t| t.token_id).collect();
        assert!(
            ids.contains(&first) && ids.contains(&narrow.token_id),
            "{ids:?}"
        );
        assert!(listed.iter().all(|t| t.player_id == alice));
        let current: Vec<i64> = listed
            .iter()
            .filter(|t| t.current)
            .map(|t| t.token_id)
            .collect();
        assert_eq!(current, [first]);
        let narrow_info = listed
            .iter()
            .find(|t| t.token_id == narrow.token_id)
            .expect("listed");
        assert_eq!(narrow_info.scopes, ["read"]);
        assert_eq!(narrow_info.expires_at_ms, narrow.expires_at_ms);
        assert_eq!(narrow_info.revoked_at_ms, 0);
        assert_eq!(
            list(&mut a, alice).await.expect("by id").len(),
            listed.len()
        );
        let status = list(&mut a, bob).await.expect_err("bob's list");
        assert_eq!(status.code(), Code::PermissionDenied, "{status:?}");
        let by_admin = list(&mut admin, alice).await.expect("admin lists");
        assert_eq!(by_admin.len(), listed.len());
        assert!(by_admin.iter().all(|t| !t.current));
        let status = list(&mut admin, 0)
            .await
            .expect_err("the admin has no tokens");
        assert_eq!(status.code(), Code::InvalidArgument, "{status:?}");
        let status = list(&mut narrowed, 0).await.expect_err("read only");
        assert_eq!(status.code(), Code::PermissionDenied, "{status:?}");

        // Revoking: its own works; bob's answers exactly as an unknown id does.
        let bobs = token_id(&mut b).await;
        let unknown = revoke(&mut a, 999_999_999).await.expect_err("unknown");
        let others = revoke(&mut a, bobs).await.expect_err("bob's");
        assert_eq!(unknown.code(), Code::NotFound);
        assert_eq!(others.code(), Code::NotFound);
        assert_eq!(
            others.message().replace(&bobs.to_string(), "N"),
            unknown.message().replace("999999999", "N")
        );
        assert!(revoke(&mut a, narrow.token_id).await.expect("own"));
        assert!(!revoke(&mut a, narrow.token_id).await.expect("again"));
        let status = narrowed
            .accounts
            .who_am_i(apb::WhoAmIRequest {})
            .await
            .expect_err("revoked");
        assert_eq!(status.code(), Code::Unauthenticated);
        let revoked_at = list(&mut a, 0)
            .await
            .expect("list")
            .into_iter()
            .find(|t| t.token_id == narrow.token_id)
            .expect("still listed")
            .revoked_at_ms;
        assert!(revoked_at > 0);
        // Bob still works; the admin revokes anyone's.
        token_id(&mut b).await;
        assert!(revoke(&mut admin, bobs).await.expect("admin"));
        let status = b
            .accounts
            .who_am_i(apb::WhoAmIRequest {})
            .await
            .expect_err("revoked by the admin");
        assert_eq!(status.code(), Code::Unauthenticated);
        // Rotation: a token revokes itself after issuing its successor.
        let successor = issue(&mut a, 0, &[], 0).await.expect("successor");
        assert!(revoke(&mut a, first).await.expect("itself"));
        let mut next = server.client(Some(&successor.token)).await;
        assert_eq!(token_id(&mut next).await, successor.token_id);
    }
}

/// Waits for the next item of a stream, within [`PATIENCE`].
async fn next<T>(stream: &mut Streaming<T>) -> Option<Result<T, Status>> {
    tokio::time::timeout(PATIENCE, stream.next())
        .await
        .expect("the stream answers within the patience bound")
}

/// Reads a stream until it ends with an error, which it returns; fails on a `YourTurn` of
/// `forbidden_game` and if the stream ends without an error.
async fn until_refused(stream: &mut Streaming<pb::PlayerEvent>, forbidden_game: i64) -> Status {
    loop {
        match next(stream).await {
            Some(Ok(event)) => assert_ne!(
                event.game_id, forbidden_game,
                "an event of a game created after the revocation arrived: {event:?}"
            ),
            Some(Err(status)) => return status,
            None => panic!("the stream ended without a status"),
        }
    }
}

async fn watch_player(client: &mut Client) -> Streaming<pb::PlayerEvent> {
    client
        .arbiter
        .watch_player(pb::WatchPlayerRequest {})
        .await
        .expect("watch player")
        .into_inner()
}

#[tokio::test]
async fn a_revoked_token_ends_its_streams_and_nothing_after_reaches_them() {
    for db in databases().await {
        let server = start(&db).await;
        let mut admin = server.admin().await;
        let (white, mut w) = server.player("white").await;
        let (black, _) = server.player("black").await;
        let spare = issue(&mut w, 0, &[], 0).await.expect("a second token");
        let mut w2 = server.client(Some(&spare.token)).await;
        // A game before: its YourTurn is the stream's first event.
        let before = server.game(white, black, None).await;
        let mut player_stream = watch_player(&mut w).await;
        let first = next(&mut player_stream).await.expect("event").expect("ok");
        assert_eq!(first.game_id, before.id);
        let mut game_stream = w
            .arbiter
            .watch_game(pb::WatchGameRequest {
                game_id: before.id,
                from_turn: 0,
            })
            .await
            .expect("watch game")
            .into_inner();
        // The same player's other token keeps its stream.
        let mut other_stream = watch_player(&mut w2).await;
        next(&mut other_stream).await.expect("event").expect("ok");

        let id = token_id(&mut w).await;
        assert!(revoke(&mut admin, id).await.expect("revoke"));
        let after = server.game(white, black, None).await;
        let status = until_refused(&mut player_stream, after.id).await;
        assert_eq!(status.code(), Code::Unauthenticated, "{status:?}");
        assert!(
            next(&mut player_stream).await.is_none(),
            "the stream is over"
        );
        let status = loop {
            match next(&mut game_stream).await {
                Some(Ok(_)) => {}
                Some(Err(status)) => break status,
                None => panic!("the game stream ended without a status"),
            }
        };
        assert_eq!(status.code(), Code::Unauthenticated, "{status:?}");
        // The other token's stream hears the new game.
        let event = next(&mut other_stream).await.expect("event").expect("ok");
        assert_eq!(event.game_id, after.id);
        // A player revoking its own token ends its own streams too.
        let third = issue(&mut w2, 0, &[], 0).await.expect("third");
        let mut w3 = server.client(Some(&third.token)).await;
        assert!(revoke(&mut w3, spare.token_id).await.expect("revoke own"));
        let status = until_refused(&mut other_stream, 0).await;
        assert_eq!(status.code(), Code::Unauthenticated, "{status:?}");
    }
}

#[tokio::test]
async fn a_stream_ends_when_its_token_expires() {
    for db in databases().await {
        let server: TestServer = start(&db).await;
        let (white, mut w) = server.player("white").await;
        let (black, _) = server.player("black").await;
        let game = server.game(white, black, None).await;
        // Expiry is judged by the server's clock (manual here).
        let short = issue(&mut w, 0, &["read"], 30).await.expect("short");
        let mut short_client = server.client(Some(&short.token)).await;
        let mut stream = watch_player(&mut short_client).await;
        let first = next(&mut stream).await.expect("event").expect("ok");
        assert_eq!(first.game_id, game.id);
        server.clock.advance(30_000);
        let status = until_refused(&mut stream, 0).await;
        assert_eq!(status.code(), Code::Unauthenticated, "{status:?}");
        assert_eq!(status.message(), "token expired");
    }
}

#[tokio::test]
async fn a_revocation_through_another_replica_ends_the_stream() {
    let Some(base) = hanniball_db::testing::postgres_base_url() else {
        eprintln!("skipped: replicas need PostgreSQL (HANNIBALL_TEST_POSTGRES_URL is not set)");
        return;
    };
    let url = hanniball_db::testing::postgres_url(&base)
        .await
        .expect("a fresh database");
    let a = start(&url).await;
    let b = start(&url).await;
    let (white, mut on_a) = a.player("white").await;
    let (black, _) = a.player("black").await;
    let token = on_a.token.clone();
    let mut on_b = b.client(Some(&token)).await;
    let game = a.game(white, black, None).await;
    // The stream on A; the token cached on B too (a call there), then revoked through B.
    let mut stream = watch_player(&mut on_a).await;
    let first = next(&mut stream).await.expect("event").expect("ok");
    assert_eq!(first.game_id, game.id);
    let id = token_id(&mut on_b).await;
    token_id(&mut on_a).await;
    let mut admin_b = b.admin().await;
    assert!(revoke(&mut admin_b, id).await.expect("revoke through B"));
    let status = until_refused(&mut stream, 0).await;
    assert_eq!(status.code(), Code::Unauthenticated, "{status:?}");
    // A's token cache forgot it too: refused there at once, not after the cache's lifetime.
    let status = on_a
        .accounts
        .who_am_i(apb::WhoAmIRequest {})
        .await
        .expect_err("refused on A");
    assert_eq!(status.code(), Code::Unauthenticated);
}

type Sched = SchedulerClient<InterceptedService<Channel, Bearer>>;

/// A scheduler (no rating service) in front of `server`'s arbiter, on the same database.
async fn scheduler(server: &TestServer) -> (String, CancellationToken) {
    let db = Db::connect(&server.db_url).await.expect("database");
    let accounts = hanniball_e2e::local_accounts(&db).await;
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("port");
    let url = format!("http://{}", listener.local_addr().expect("addr"));
    let shutdown = CancellationToken::new();
    let mut options = SchedulerOptions::new(ADMIN_TOKEN, &server.url());
    options.rating_url = None;
    let scheduler = Scheduler::build(db, accounts, &options, shutdown.clone())
        .await
        .expect("scheduler");
    let mut routes = RoutesBuilder::default();
    scheduler.add_to(&mut routes);
    hanniball_svc_kit::serve(
        listener,
        routes,
        &Scheduler::SERVICE_NAMES,
        shutdown.clone(),
    )
    .await
    .expect("serve");
    (url, shutdown)
}

async fn sched(url: &str, token: &str) -> Sched {
    let channel = Channel::from_shared(url.to_owned())
        .expect("url")
        .connect()
        .await
        .expect("connect");
    SchedulerClient::with_interceptor(channel, Bearer::new(token))
}

async fn create(s: &mut Sched, settings: spb::TournamentSettings) -> Result<i64, Status> {
    s.create_tournament(spb::CreateTournamentRequest {
        settings: Some(settings),
    })
    .await
    .map(|r| r.into_inner().tournament.expect("tournament").id)
}

async fn enter(
    s: &mut Sched,
    id: i64,
    player_id: i64,
    rating: i32,
) -> Result<spb::Entrant, Status> {
    s.add_player(spb::AddPlayerRequest {
        tournament_id: id,
        player_id,
        rating,
    })
    .await
    .map(|r| r.into_inner().entrant.expect("entrant"))
}

async fn leave(
    s: &mut Sched,
    id: i64,
    player_id: i64,
) -> Result<spb::WithdrawPlayerResponse, Status> {
    s.withdraw_player(spb::WithdrawPlayerRequest {
        tournament_id: id,
        player_id,
    })
    .await
    .map(tonic::Response::into_inner)
}

async fn get(s: &mut Sched, id: i64) -> spb::Tournament {
    s.get_tournament(spb::GetTournamentRequest { tournament_id: id })
        .await
        .expect("get")
        .into_inner()
        .tournament
        .expect("tournament")
}

fn swiss(name: &str, self_entry: bool, late: bool) -> spb::TournamentSettings {
    spb::TournamentSettings {
        name: name.to_owned(),
        rounds: 3,
        manual_pairing: true,
        self_entry,
        late_self_entry: late,
        ..Default::default()
    }
}

#[tokio::test]
async fn players_enter_and_leave_tournaments_open_for_entry() {
    for db in databases().await {
        let server = start(&db).await;
        let (url, shutdown) = scheduler(&server).await;
        let mut admin = sched(&url, ADMIN_TOKEN).await;
        let mut players = Vec::new();
        for name in ["p1", "p2", "p3", "p4"] {
            let (id, client) = server.player(name).await;
            players.push((id, sched(&url, &client.token).await));
        }
        let closed = create(&mut admin, swiss("closed", false, false))
            .await
            .expect("closed");
        let open = create(&mut admin, swiss("open", true, false))
            .await
            .expect("open");
        let late = create(&mut admin, swiss("late", false, true))
            .await
            .expect("late");
        let status = create(
            &mut admin,
            spb::TournamentSettings {
                system: spb::PairingSystem::RoundRobin.into(),
                ..swiss("rr", true, true)
            },
        )
        .await
        .expect_err("a round robin takes no late entries");
        assert_eq!(status.code(), Code::InvalidArgument, "{status:?}");
        // Shown in GetTournament (late implies open).
        let shown = get(&mut admin, open).await.settings.expect("settings");
        assert!(shown.self_entry && !shown.late_self_entry);
        let shown = get(&mut admin, late).await.settings.expect("settings");
        assert!(shown.self_entry && shown.late_self_entry);
        let shown = get(&mut admin, closed).await.settings.expect("settings");
        assert!(!shown.self_entry && !shown.late_self_entry);

        let (p1, s1) = &mut players[0];
        let p1 = *p1;
        // Closed: only the organiser adds players.
        let status = enter(s1, closed, 0, 0).await.expect_err("closed");
        assert_eq!(status.code(), Code::PermissionDenied, "{status:?}");
        assert!(
            status.message().contains("not open for entry"),
            "{status:?}"
        );
        // Open: "me" (0) or its own id; never another player, never its own seeding rating.
        let status = enter(s1, open, p1 + 1, 0)
            .await
            .expect_err("another player");
        assert_eq!(status.code(), Code::PermissionDenied, "{status:?}");
        let status = enter(s1, open, 0, 2_900).await.expect_err("own rating");
        assert_eq!(status.code(), Code::PermissionDenied, "{status:?}");
        assert!(status.message().contains("seeding rating"), "{status:?}");
        let entrant = enter(s1, open, 0, 0).await.expect("enter");
        assert_eq!(entrant.player_id, p1);
        assert_eq!(entrant.joined_round, 1);
        let status = enter(s1, open, p1, 0).await.expect_err("twice");
        assert_eq!(status.code(), Code::AlreadyExists, "{status:?}");
        // Leaving before the start takes the entry back entirely, and it can be made again.
        let left = leave(s1, open, 0).await.expect("leave");
        assert!(left.removed);
        assert!(get(&mut admin, open).await.entrants.is_empty());
        let status = leave(s1, open, 0).await.expect_err("not entered");
        assert_eq!(status.code(), Code::NotFound, "{status:?}");
        enter(s1, open, p1, 0).await.expect("enter again");
        // A player's token without the queue scope cannot enter.
        let read_token = issue(&mut server.admin().await, p1, &["read"], 0)
            .await
            .expect("read token")
            .token;
        let mut read_only = sched(&url, &read_token).await;
        let status = enter(&mut read_only, late, 0, 0)
            .await
            .expect_err("no queue scope");
        assert_eq!(status.code(), Code::PermissionDenied, "{status:?}");
        assert!(status.message().contains("`queue` scope"), "{status:?}");
        // The admin still does everything, closed tournaments included.
        enter(&mut admin, closed, p1, 1_500)
            .await
            .expect("organiser adds");
        for (_, s) in players.iter_mut().skip(1) {
            enter(s, open, 0, 0).await.expect("enter open");
        }
        for (_, s) in players.iter_mut().take(3) {
            enter(s, late, 0, 0).await.expect("enter late");
        }
        for id in [open, late] {
            admin
                .start_tournament(spb::StartTournamentRequest { tournament_id: id })
                .await
                .expect("start");
        }
        // After the start: no entry into a tournament open only before it.
        let (p4, s4) = &mut players[3];
        let p4 = *p4;
        let status = enter(s4, open, 0, 0).await.expect_err("started");
        assert_eq!(status.code(), Code::PermissionDenied, "{status:?}");
        assert!(status.message().contains("before the start"), "{status:?}");
        // Late entry where allowed: from the next round.
        let entrant = enter(s4, late, 0, 0).await.expect("late entry");
        assert_eq!(entrant.player_id, p4);
        assert_eq!(entrant.joined_round, 2);
        // Leaving after the start withdraws from the next round; the entry stays.
        let (_, s2) = &mut players[1];
        let left = leave(s2, open, 0).await.expect("withdraw");
        assert!(!left.removed);
        assert_eq!(left.from_round, 2);
        assert_eq!(get(&mut admin, open).await.entrants.len(), 4);
        shutdown.cancel();
    }
}

/// What a bot written only against the proto did with one token until its stream ended.
struct BotRun {
    /// Games it saw end (`GameOver` on its player stream).
    games_over: usize,
    /// Turns it submitted (each checked with `CheckTurn` first).
    turns: usize,
    /// Turns of more than one step.
    multi_step_turns: usize,
    /// How its player stream ended, and when.
    ended: Status,
    ended_at: tokio::time::Instant,
}

/// A bot that knows no rules: it follows its player stream, and whenever a game of its is its
/// turn it builds the turn from `GetLegalSteps`, checks it with `CheckTurn`, and submits it.
async fn proto_only_bot(mut client: Client, me: i64, seed: u64) -> BotRun {
    let mut rng = hanniball_rng::Rng::new(seed);
    let mut events = watch_player(&mut client).await;
    let mut run = BotRun {
        games_over: 0,
        turns: 0,
        multi_step_turns: 0,
        ended: Status::ok(""),
        ended_at: tokio::time::Instant::now(),
    };
    loop {
        let event = match events.next().await {
            Some(Ok(event)) => event,
            Some(Err(status)) => {
                run.ended = status;
                run.ended_at = tokio::time::Instant::now();
                return run;
            }
            None => {
                run.ended = Status::ok("the stream ended without a status");
                run.ended_at = tokio::time::Instant::now();
                return run;
            }
        };
        match event.event {
            Some(pb::player_event::Event::GameOver(_)) => run.games_over += 1,
            Some(
                pb::player_event::Event::GameStarted(_) | pb::player_event::Event::YourTurn(_),
            ) => {
                let game = hanniball_e2e::game_of(&mut client, event.game_id).await;
                let state = game.state.clone().expect("state");
                let mine = if game.white_player_id == me {
                    pb::Side::White
                } else {
                    pb::Side::Black
                };
                if state.status() != pb::GameStatus::Active || state.side_to_move() != mine {
                    continue;
                }
                let (turn, _) = turn_through_the_api(&mut client, game.id, &mut rng)
                    .await
                    .expect("listed steps are legal");
                let number = state.next_turn_number;
                let dry = check_turn(&mut client, game.id, number, &turn)
                    .await
                    .expect("the check accepts the turn");
                let done = hanniball_e2e::submit(&mut client, game.id, number, &turn)
                    .await
                    .expect("the turn is accepted");
                assert_eq!(
                    dry.state.map(|s| s.position),
                    done.state.map(|s| s.position)
                );
                run.turns += 1;
                run.multi_step_turns += usize::from(turn.contains(' '));
            }
            _ => {}
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_bot_that_knows_only_the_proto_serves_itself_enters_an_open_tournament_and_plays_it() {
    for db in databases().await {
        let server = start(&db).await;
        let (url, shutdown) = scheduler(&server).await;
        let mut organiser = sched(&url, ADMIN_TOKEN).await;
        let tournament = create(
            &mut organiser,
            spb::TournamentSettings {
                manual_pairing: false,
                rounds: 2,
                max_turns: 12,
                ..swiss("open for bots", true, false)
            },
        )
        .await
        .expect("create");
        let mut bots = Vec::new();
        let mut own_tokens = Vec::new();
        for (seed, name) in ["proto-1", "proto-2", "proto-3", "proto-4"]
            .iter()
            .enumerate()
        {
            // The organiser registers the bot once; from then on it serves itself: a token of its
            // own (the registration token is revoked), and its entry into the tournament.
            let (me, mut first) = server.player(name).await;
            let issued = issue(&mut first, 0, &["play", "queue", "read", "tokens"], 0)
                .await
                .expect("a token of its own");
            let first_id = token_id(&mut first).await;
            let mut client = server.client(Some(&issued.token)).await;
            assert!(
                revoke(&mut client, first_id)
                    .await
                    .expect("revoke the first")
            );
            let status = first
                .accounts
                .who_am_i(apb::WhoAmIRequest {})
                .await
                .expect_err("the first token is revoked");
            assert_eq!(status.code(), Code::Unauthenticated, "{status:?}");
            let mut entry = sched(&url, &issued.token).await;
            let entrant = enter(&mut entry, tournament, 0, 0).await.expect("enter");
            assert_eq!(entrant.player_id, me);
            own_tokens.push((me, issued.token.clone(), token_id(&mut client).await));
            bots.push(tokio::spawn(proto_only_bot(client, me, seed as u64)));
        }
        // Streams are open before the start, so no GameStarted is missed.
        tokio::time::sleep(Duration::from_millis(300)).await;
        organiser
            .start_tournament(spb::StartTournamentRequest {
                tournament_id: tournament,
            })
            .await
            .expect("start");
        let deadline = tokio::time::Instant::now() + Duration::from_secs(120);
        loop {
            let shown = get(&mut organiser, tournament).await;
            if shown.status() == spb::TournamentStatus::Finished {
                assert_eq!(shown.current_round, 2);
                break;
            }
            assert!(
                tokio::time::Instant::now() < deadline,
                "the tournament did not finish: {shown:?}"
            );
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
        // Every bot revokes its own token; its stream ends with UNAUTHENTICATED within a second.
        let mut runs = Vec::new();
        for ((me, token, id), bot) in own_tokens.into_iter().zip(bots) {
            let mut client = server.client(Some(&token)).await;
            let revoked_at = tokio::time::Instant::now();
            assert!(revoke(&mut client, id).await.expect("revoke its own token"));
            let run = tokio::time::timeout(PATIENCE, bot)
                .await
                .expect("the stream ends")
                .expect("the bot did not panic");
            assert_eq!(run.ended.code(), Code::Unauthenticated, "{:?}", run.ended);
            let after = run.ended_at.saturating_duration_since(revoked_at);
            assert!(
                after < Duration::from_secs(1),
                "player {me}: ended {after:?} after the revocation"
            );
            runs.push(run);
        }
        // Two rounds of two boards: every bot played two whole games, with multi-step turns.
        for run in &runs {
            assert_eq!(run.games_over, 2, "games seen ending");
            assert!(run.turns >= 2 * 5, "only {} turns", run.turns);
        }
        let multi: usize = runs.iter().map(|r| r.multi_step_turns).sum();
        let turns: usize = runs.iter().map(|r| r.turns).sum();
        assert!(
            multi * 4 >= turns,
            "only {multi} of {turns} turns had several steps"
        );
        shutdown.cancel();
        server.running.stop().await.expect("stop");
    }
}
