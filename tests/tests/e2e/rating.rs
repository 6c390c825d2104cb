//! The rating service end to end: the real arbiter and rating servers on 127.0.0.1:0 over one
//! database, the rating service consuming the arbiter's results through gRPC. Every test runs on
//! SQLite and, when `HANNIBALL_TEST_POSTGRES_URL` is set, on PostgreSQL.

use std::time::{Duration, Instant};

use hanniball_db::Db;
use hanniball_e2e::{ADMIN_TOKEN, Bearer, TestServer, databases, start};
use hanniball_proto::arbiter::v1 as apb;
use hanniball_proto::rating::v1 as pb;
use hanniball_proto::rating::v1::rating_client::RatingClient;
use hanniball_rating_svc::{RatingOptions, Running};
use tokio::net::TcpListener;
use tokio_util::sync::CancellationToken;
use tonic::Code;
use tonic::service::interceptor::InterceptedService;
use tonic::transport::Channel;

type Rating = RatingClient<InterceptedService<Channel, Bearer>>;

/// Starts the rating service on `db_url`, consuming the results of the arbiter at `arbiter`
/// (`None`: no consumer).
async fn start_rating(db_url: &str, arbiter: Option<String>) -> Running {
    let db = Db::connect(db_url).await.expect("database");
    let accounts = hanniball_e2e::local_accounts(&db).await;
    let listener = TcpListener::bind("127.0.0.1:0").await.expect("port");
    let options = RatingOptions {
        arbiter_url: arbiter,
        max_backoff: Duration::from_millis(200),
        ..RatingOptions::new(ADMIN_TOKEN)
    };
    hanniball_rating_svc::start(db, accounts, listener, options, CancellationToken::new())
        .await
        .expect("rating starts")
}

async fn client(rating: &Running, token: Option<&str>) -> Rating {
    let channel = Channel::from_shared(format!("http://{}", rating.addr))
        .expect("url")
        .connect()
        .await
        .expect("connect");
    RatingClient::with_interceptor(channel, token.map_or_else(Bearer::none, Bearer::new))
}

fn id(player: i64) -> Option<pb::PlayerRef> {
    Some(pb::PlayerRef {
        player: Some(pb::player_ref::Player::Id(player)),
    })
}

async fn rating_of(client: &mut Rating, player: i64) -> pb::PlayerRating {
    client
        .get_rating(pb::GetRatingRequest {
            player: id(player),
            ladder: String::new(),
        })
        .await
        .expect("get rating")
        .into_inner()
        .rating
        .expect("rating")
}

/// Polls until `player` has played `games` rated games (at most 5 s).
async fn wait_for_games(client: &mut Rating, player: i64, games: u32) -> pb::PlayerRating {
    let deadline = Instant::now() + Duration::from_secs(5);
    loop {
        let rating = rating_of(client, player).await;
        if rating.games >= games {
            return rating;
        }
        assert!(
            Instant::now() < deadline,
            "player {player} still has {} games, waited for {games}",
            rating.games
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

/// The admin creates a game and each side makes a turn (a game a side never moved in is never
/// rated); the caller then ends it.
async fn resigned_game(
    server: &TestServer,
    (white, w): (i64, &mut hanniball_e2e::Client),
    (black, b): (i64, &mut hanniball_e2e::Client),
    rated: bool,
) -> i64 {
    let mut admin = server.admin().await;
    let game = admin
        .arbiter
        .create_game(apb::CreateGameRequest {
            kind: "hanniball".to_owned(),
            white_player_id: white,
            black_player_id: black,
            rated,
            ..Default::default()
        })
        .await
        .expect("create")
        .into_inner()
        .game
        .expect("game");
    admin
        .arbiter
        .resign(apb::ResignRequest { game_id: game.id })
        .await
        .expect_err("the admin does not play");
    for (client, number, turn) in [(w, 1, "d4-c6"), (b, 2, "d12-c10")] {
        hanniball_e2e::submit(client, game.id, number, turn)
            .await
            .expect("turn");
    }
    game.id
}

async fn resign(client: &mut hanniball_e2e::Client, game: i64) {
    client
        .arbiter
        .resign(apb::ResignRequest { game_id: game })
        .await
        .expect("resign");
}

#[tokio::test]
async fn a_finished_rated_game_changes_both_ratings() {
    for db in databases().await {
        let server = start(&db).await;
        let rating = start_rating(&db, Some(server.url())).await;
        let (white, mut w) = server.player("white").await;
        let (black, mut b) = server.player("black").await;
        let (c, mut c_client) = server.player("carol").await;
        let (d, mut d_client) = server.player("dave").await;
        let mut reader = client(&rating, Some(ADMIN_TOKEN)).await;
        // An unrated game first, then a rated one: results are handled in order, so once the
        // rated one shows, the unrated one has been seen (and changed nothing).
        let unrated = resigned_game(&server, (c, &mut c_client), (d, &mut d_client), false).await;
        resign(&mut c_client, unrated).await;
        let game = resigned_game(&server, (white, &mut w), (black, &mut b), true).await;
        resign(&mut w, game).await;
        let loser = wait_for_games(&mut reader, white, 1).await;
        let winner = wait_for_games(&mut reader, black, 1).await;
        assert_eq!((loser.rating, loser.losses), (1480.0, 1), "{loser:?}");
        assert_eq!((winner.rating, winner.wins), (1520.0, 1), "{winner:?}");
        assert!(winner.provisional);
        assert_eq!(winner.rank, 1);
        assert_eq!(winner.peak, 1520.0);
        for player in [c, d] {
            let untouched = rating_of(&mut reader, player).await;
            assert_eq!((untouched.games, untouched.rating), (0, 1500.0));
        }
        // The same game through RecordResult: already recorded, nothing changes.
        let again = reader
            .record_result(pb::RecordResultRequest {
                game_id: game,
                kind: "hanniball".to_owned(),
                white_player_id: white,
                black_player_id: black,
                outcome: pb::Outcome::BlackWins as i32,
                rated: true,
                finished_at_ms: 1,
                ..Default::default()
            })
            .await
            .expect("record")
            .into_inner();
        assert_eq!(again.status, pb::RecordStatus::AlreadyRecorded as i32);
        assert_eq!(again.black.expect("black").after, 1520.0);
        assert_eq!(rating_of(&mut reader, black).await.games, 1);
        // An aborted rated game changes nothing either.
        let aborted = resigned_game(&server, (white, &mut w), (black, &mut b), true).await;
        server
            .admin()
            .await
            .arbiter
            .abort_game(apb::AbortGameRequest { game_id: aborted })
            .await
            .expect("abort");
        // A rated game resigned before either side moved is not played: never rated.
        let unplayed = server.game(white, black, None).await.id;
        resign(&mut w, unplayed).await;
        let last = resigned_game(&server, (c, &mut c_client), (d, &mut d_client), true).await;
        resign(&mut c_client, last).await;
        wait_for_games(&mut reader, c, 1).await;
        assert_eq!(rating_of(&mut reader, black).await.games, 1);
        // History: one point for the game.
        let history = reader
            .history(pb::HistoryRequest {
                player: id(black),
                ..Default::default()
            })
            .await
            .expect("history")
            .into_inner();
        assert_eq!(history.points.len(), 1);
        let point = &history.points[0];
        assert_eq!((point.game_id, point.opponent_id), (game, white));
        assert_eq!(point.opponent_name, "white");
        assert_eq!((point.rating_before, point.rating_after), (1500.0, 1520.0));
        assert_eq!(point.score, pb::Score::Win as i32);
        rating.stop().await.expect("stop rating");
        server.running.stop().await.expect("stop arbiter");
    }
}

#[tokio::test]
async fn a_game_that_finished_while_the_rating_service_was_down_counts_once() {
    for db in databases().await {
        let server = start(&db).await;
        let (white, mut w) = server.player("white").await;
        let (black, mut b) = server.player("black").await;
        let game = resigned_game(&server, (white, &mut w), (black, &mut b), true).await;
        resign(&mut w, game).await;
        // Now the rating service starts, on the same database, and catches up.
        let rating = start_rating(&db, Some(server.url())).await;
        let mut reader = client(&rating, Some(ADMIN_TOKEN)).await;
        assert_eq!(wait_for_games(&mut reader, white, 1).await.rating, 1480.0);
        assert_eq!(wait_for_games(&mut reader, black, 1).await.rating, 1520.0);
        rating.stop().await.expect("stop rating");
        // Down again while another game finishes; a restart takes only the new one.
        let second = resigned_game(&server, (white, &mut w), (black, &mut b), true).await;
        resign(&mut w, second).await;
        let rating = start_rating(&db, Some(server.url())).await;
        let mut reader = client(&rating, Some(ADMIN_TOKEN)).await;
        let loser = wait_for_games(&mut reader, white, 2).await;
        let winner = wait_for_games(&mut reader, black, 2).await;
        assert_eq!((loser.games, winner.games), (2, 2));
        assert!(loser.rating < 1480.0 && winner.rating > 1520.0);
        let rebuilt = reader
            .rebuild(pb::RebuildRequest {})
            .await
            .expect("rebuild")
            .into_inner();
        assert!(rebuilt.matched, "{rebuilt:?}");
        assert_eq!((rebuilt.games, rebuilt.ratings), (2, 2));
        rating.stop().await.expect("stop rating");
        server.running.stop().await.expect("stop arbiter");
    }
}

#[tokio::test]
async fn the_consumer_waits_for_an_arbiter_that_starts_later() {
    for db in databases().await {
        // Nothing listens on this port yet: the consumer retries with backoff.
        let addr = TcpListener::bind("127.0.0.1:0")
            .await
            .expect("port")
            .local_addr()
            .expect("addr");
        let rating = start_rating(&db, Some(format!("http://{addr}"))).await;
        let mut reader = client(&rating, Some(ADMIN_TOKEN)).await;
        // Now the arbiter comes up on that port and a rated game finishes.
        let store = Db::connect(&db).await.expect("database");
        let listener = TcpListener::bind(addr).await.expect("the same port again");
        let (clock, _) =
            hanniball_arbiter_svc::Clock::manual(hanniball_arbiter::Timestamp(1_700_000_000_000));
        let options = hanniball_arbiter_svc::Options {
            admin_token: ADMIN_TOKEN.into(),
            clock,
        };
        let running =
            hanniball_e2e::start_arbiter(store, listener, options, CancellationToken::new())
                .await
                .expect("arbiter starts");
        let server = TestServer {
            running,
            clock: hanniball_arbiter_svc::Clock::manual(hanniball_arbiter::Timestamp(0)).1,
            db_url: db.clone(),
        };
        let (white, mut w) = server.player("white").await;
        let (black, mut b) = server.player("black").await;
        let game = resigned_game(&server, (white, &mut w), (black, &mut b), true).await;
        resign(&mut w, game).await;
        wait_for_games(&mut reader, white, 1).await;
        wait_for_games(&mut reader, black, 1).await;
        rating.stop().await.expect("stop rating");
        server.running.stop().await.expect("stop arbiter");
    }
}

fn code<T: std::fmt::Debug>(result: Result<T, tonic::Status>) -> Code {
    result.expect_err("the call should fail").code()
}

#[tokio::test]
async fn auth_errors_and_unknown_players() {
    for db in databases().await {
        let server = start(&db).await;
        let rating = start_rating(&db, None).await;
        let (alice, _) = server.player("alice").await;
        let token = server
            .admin()
            .await
            .accounts
            .issue_token(hanniball_proto::accounts::v1::IssueTokenRequest {
                player_id: alice,
                ..Default::default()
            })
            .await
            .expect("token")
            .into_inner()
            .token
            .expect("token")
            .token;
        let mut nobody = client(&rating, None).await;
        let mut stranger = client(&rating, Some("hb_not_a_token")).await;
        let mut player = client(&rating, Some(&token)).await;
        let mut admin = client(&rating, Some(ADMIN_TOKEN)).await;
        let get = pb::GetRatingRequest {
            player: id(alice),
            ladder: String::new(),
        };
        assert_eq!(
            code(nobody.get_rating(get.clone()).await),
            Code::Unauthenticated
        );
        assert_eq!(
            code(stranger.get_rating(get.clone()).await),
            Code::Unauthenticated
        );
        nobody
            .ping(pb::PingRequest {})
            .await
            .expect("ping needs no token");
        // Reads with any valid token; writes with the admin's only.
        assert_eq!(
            player
                .get_rating(get.clone())
                .await
                .expect("read")
                .into_inner()
                .rating
                .expect("r")
                .games,
            0
        );
        let adjust = pb::AdjustRatingRequest {
            player: id(alice),
            ladder: String::new(),
            rating: 1700.0,
            reason: "imported from another club".to_owned(),
            operator: "carol".to_owned(),
        };
        assert_eq!(
            code(player.adjust_rating(adjust.clone()).await),
            Code::PermissionDenied
        );
        assert_eq!(
            code(player.rebuild(pb::RebuildRequest {}).await),
            Code::PermissionDenied
        );
        assert_eq!(
            code(
                player
                    .record_result(pb::RecordResultRequest::default())
                    .await
            ),
            Code::PermissionDenied
        );
        assert_eq!(
            code(
                player
                    .list_adjustments(pb::ListAdjustmentsRequest::default())
                    .await
            ),
            Code::PermissionDenied
        );
        // Unknown player, ladder, game; bad input.
        let unknown = pb::GetRatingRequest {
            player: id(999_999),
            ladder: String::new(),
        };
        assert_eq!(code(player.get_rating(unknown).await), Code::NotFound);
        let by_name = pb::GetRatingRequest {
            player: Some(pb::PlayerRef {
                player: Some(pb::player_ref::Player::Name("nobody".to_owned())),
            }),
            ladder: String::new(),
        };
        assert_eq!(code(player.get_rating(by_name).await), Code::NotFound);
        let chess = pb::GetRatingRequest {
            player: id(alice),
            ladder: "chess".to_owned(),
        };
        assert_eq!(code(player.get_rating(chess).await), Code::NotFound);
        assert_eq!(
            code(
                player
                    .get_ratings(pb::GetRatingsRequest {
                        ladder: String::new(),
                        player_ids: vec![alice, 999_999]
                    })
                    .await
            ),
            Code::NotFound
        );
        assert_eq!(
            code(
                player
                    .performance(pb::PerformanceRequest {
                        player: id(alice),
                        ladder: String::new(),
                        game_ids: vec![5]
                    })
                    .await
            ),
            Code::NotFound
        );
        assert_eq!(
            code(
                admin
                    .adjust_rating(pb::AdjustRatingRequest {
                        reason: String::new(),
                        ..adjust.clone()
                    })
                    .await
            ),
            Code::InvalidArgument
        );
        assert_eq!(
            code(
                admin
                    .adjust_rating(pb::AdjustRatingRequest {
                        rating: 1700.5,
                        ..adjust.clone()
                    })
                    .await
            ),
            Code::InvalidArgument
        );
        assert_eq!(
            code(
                admin
                    .record_result(pb::RecordResultRequest {
                        game_id: 1,
                        kind: "hanniball".to_owned(),
                        white_player_id: alice,
                        black_player_id: 999_999,
                        outcome: pb::Outcome::Draw as i32,
                        rated: true,
                        ..Default::default()
                    })
                    .await
            ),
            Code::NotFound
        );
        assert_eq!(
            code(
                admin
                    .record_result(pb::RecordResultRequest {
                        game_id: 1,
                        kind: "chess".to_owned(),
                        white_player_id: alice,
                        black_player_id: alice,
                        outcome: pb::Outcome::Draw as i32,
                        rated: true,
                        ..Default::default()
                    })
                    .await
            ),
            Code::InvalidArgument
        );
        // The admin adjusts; the audit says who, why and when.
        let adjusted = admin
            .adjust_rating(adjust)
            .await
            .expect("adjust")
            .into_inner()
            .adjustment
            .expect("record");
        assert_eq!(
            (adjusted.rating_before, adjusted.rating_after),
            (1500.0, 1700.0)
        );
        assert_eq!(adjusted.by, "admin:carol");
        let listed = admin
            .list_adjustments(pb::ListAdjustmentsRequest::default())
            .await
            .expect("list")
            .into_inner()
            .adjustments;
        assert_eq!(listed, vec![adjusted]);
        assert_eq!(
            player
                .get_rating(get)
                .await
                .expect("read")
                .into_inner()
                .rating
                .expect("r")
                .rating,
            1700.0
        );
        rating.stop().await.expect("stop rating");
        server.running.stop().await.expect("stop arbiter");
    }
}

#[tokio::test]
async fn explicit_results_leaderboard_and_queries() {
    for db in databases().await {
        let server = start(&db).await;
        let rating = start_rating(&db, None).await;
        let mut ids = Vec::new();
        for name in ["ann", "ben", "cid", "dot", "eve"] {
            ids.push(server.player(name).await.0);
        }
        let mut admin = client(&rating, Some(ADMIN_TOKEN)).await;
        // A round robin: the lower index wins, except draws between neighbours.
        let mut game_id = 100;
        let mut ann_games = Vec::new();
        for i in 0..ids.len() {
            for j in i + 1..ids.len() {
                game_id += 1;
                let outcome = if j == i + 1 {
                    pb::Outcome::Draw
                } else {
                    pb::Outcome::WhiteWins
                };
                let answer = admin
                    .record_result(pb::RecordResultRequest {
                        game_id,
                        kind: "hanniball".to_owned(),
                        ruleset: "standard".to_owned(),
                        white_player_id: ids[i],
                        black_player_id: ids[j],
                        outcome: outcome as i32,
                        finished_at_ms: 1_700_000_000_000 + game_id * 1000,
                        rated: true,
                        time_control: None,
                    })
                    .await
                    .expect("record")
                    .into_inner();
                assert_eq!(answer.status, pb::RecordStatus::Recorded as i32);
                assert_eq!(answer.ladder, "hanniball");
                if i == 0 {
                    ann_games.push(game_id);
                }
            }
        }
        // Unrated: ignored.
        let ignored = admin
            .record_result(pb::RecordResultRequest {
                game_id: 999,
                kind: "hanniball".to_owned(),
                white_player_id: ids[0],
                black_player_id: ids[1],
                outcome: pb::Outcome::WhiteWins as i32,
                rated: false,
                ..Default::default()
            })
            .await
            .expect("record")
            .into_inner();
        assert_eq!(ignored.status, pb::RecordStatus::Ignored as i32);
        // The leaderboard in pages of two: ann first, ranks 1..5, names.
        let mut entries = Vec::new();
        let mut token = String::new();
        loop {
            let page = admin
                .leaderboard(pb::LeaderboardRequest {
                    page_size: 2,
                    page_token: token.clone(),
                    ..Default::default()
                })
                .await
                .expect("page")
                .into_inner();
            entries.extend(page.entries);
            if page.next_page_token.is_empty() {
                break;
            }
            token = page.next_page_token;
        }
        let names: Vec<&str> = entries.iter().map(|e| e.name.as_str()).collect();
        assert_eq!(names, ["ann", "ben", "cid", "dot", "eve"]);
        assert_eq!(
            entries.iter().map(|e| e.rank).collect::<Vec<_>>(),
            [1, 2, 3, 4, 5]
        );
        assert!(entries.windows(2).all(|w| w[0].rating > w[1].rating));
        // A token from other filters is refused; filters filter.
        let other = admin
            .leaderboard(pb::LeaderboardRequest {
                page_size: 2,
                page_token: token,
                min_games: 3,
                ..Default::default()
            })
            .await;
        assert_eq!(code(other), Code::InvalidArgument);
        let late = admin
            .leaderboard(pb::LeaderboardRequest {
                active_since_ms: 1_700_000_000_000 + 110 * 1000,
                ..Default::default()
            })
            .await
            .expect("filtered")
            .into_inner()
            .entries;
        // Only games 110 (dot-eve) finished that late.
        let late: Vec<&str> = late.iter().map(|e| e.name.as_str()).collect();
        assert_eq!(late, ["dot", "eve"]);
        // GetRatings: in the request's order, players without games at the initial rating.
        let (newcomer, _) = server.player("newcomer").await;
        let ratings = admin
            .get_ratings(pb::GetRatingsRequest {
                ladder: "hanniball".to_owned(),
                player_ids: vec![ids[4], newcomer, ids[0]],
            })
            .await
            .expect("ratings")
            .into_inner()
            .ratings;
        assert_eq!(ratings.len(), 3);
        assert_eq!(ratings[0].name, "eve");
        assert_eq!((ratings[1].rating, ratings[1].games), (1500.0, 0));
        assert_eq!(ratings[2].rating, entries[0].rating);
        // Head to head and performance.
        let h2h = admin
            .head_to_head(pb::HeadToHeadRequest {
                player: id(ids[1]),
                opponent: id(ids[0]),
                ladder: String::new(),
            })
            .await
            .expect("h2h")
            .into_inner();
        assert_eq!((h2h.games, h2h.wins, h2h.draws, h2h.losses), (1, 0, 1, 0));
        let performance = admin
            .performance(pb::PerformanceRequest {
                player: id(ids[0]),
                ladder: String::new(),
                game_ids: ann_games.clone(),
            })
            .await
            .expect("performance")
            .into_inner();
        assert_eq!((performance.games, performance.score), (4, 3.5));
        // 87.5 % rounds to 0.88: dp 336 (FIDE table 8.1.1) over the opponents' pre-game average.
        assert_eq!(
            performance.performance,
            performance.average_opponent.round() + 336.0,
            "{performance:?}"
        );
        let wrong = admin
            .performance(pb::PerformanceRequest {
                player: id(ids[4]),
                ladder: String::new(),
                game_ids: vec![ann_games[0]],
            })
            .await;
        assert_eq!(code(wrong), Code::InvalidArgument);
        // Ladders, and the rebuild matching.
        let ladders = admin
            .list_ladders(pb::ListLaddersRequest {})
            .await
            .expect("ladders")
            .into_inner();
        let names: Vec<&str> = ladders.ladders.iter().map(|l| l.name.as_str()).collect();
        assert_eq!(names, ["hanniball", "paper-football"]);
        assert_eq!(ladders.ladders[0].system, "elo");
        let rebuilt = admin
            .rebuild(pb::RebuildRequest {})
            .await
            .expect("rebuild")
            .into_inner();
        assert!(rebuilt.matched, "{rebuilt:?}");
        assert_eq!((rebuilt.games, rebuilt.ratings), (10, 5));
        rating.stop().await.expect("stop rating");
        server.running.stop().await.expect("stop arbiter");
    }
}
