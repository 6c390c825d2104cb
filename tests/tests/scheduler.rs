//! End to end: a whole Swiss tournament through the scheduler and the arbiter over real gRPC, on
//! SQLite and (when configured) PostgreSQL; and the matchmaking queue.

use std::collections::{BTreeMap, BTreeSet};
use std::time::Duration;

use hanniball_e2e::{ADMIN_TOKEN, Bearer, databases};
use hanniball_proto::accounts::v1::accounts_client::AccountsClient;
use hanniball_proto::arbiter::v1 as pb;
use hanniball_proto::arbiter::v1::arbiter_client::ArbiterClient;
use hanniball_proto::scheduler::v1 as spb;
use hanniball_proto::scheduler::v1::scheduler_client::SchedulerClient;
use tokio_util::sync::CancellationToken;
use tonic::Code;
use tonic::service::interceptor::InterceptedService;
use tonic::transport::Channel;

type Sched = SchedulerClient<InterceptedService<Channel, Bearer>>;
type Arb = ArbiterClient<InterceptedService<Channel, Bearer>>;

struct Server {
    url: String,
    shutdown: CancellationToken,
}

/// Arbiter and scheduler in one server on 127.0.0.1:0, on `db`.
async fn serve(db: &str) -> Server {
    let (url, shutdown) = hanniball_e2e::arbiter_and_scheduler(db).await;
    Server { url, shutdown }
}

async fn channel(url: &str) -> Channel {
    Channel::from_shared(url.to_owned())
        .expect("url")
        .connect()
        .await
        .expect("connect")
}

async fn clients(url: &str, token: &str) -> (Sched, Arb) {
    let channel = channel(url).await;
    (
        SchedulerClient::with_interceptor(channel.clone(), Bearer::new(token)),
        ArbiterClient::with_interceptor(channel, Bearer::new(token)),
    )
}

/// Registers a bot; returns its id and token.
async fn register(url: &str, name: &str) -> (i64, String) {
    let mut accounts =
        AccountsClient::with_interceptor(channel(url).await, Bearer::new(ADMIN_TOKEN));
    hanniball_e2e::register_bot(&mut accounts, name).await
}

async fn tournament(s: &mut Sched, id: i64) -> spb::Tournament {
    s.get_tournament(spb::GetTournamentRequest { tournament_id: id })
        .await
        .expect("get tournament")
        .into_inner()
        .tournament
        .expect("tournament")
}

/// Waits (bounded) until `done` holds for the tournament.
async fn until(s: &mut Sched, id: i64, done: impl Fn(&spb::Tournament) -> bool) -> spb::Tournament {
    for _ in 0..400 {
        let t = tournament(s, id).await;
        if done(&t) {
            return t;
        }
        tokio::time::sleep(Duration::from_millis(25)).await;
    }
    panic!(
        "tournament {id} did not reach the expected state: {:?}",
        tournament(s, id).await
    );
}

/// Plays one board: both sides move once, then a result decided by `pick` (0 white wins by
/// resignation, 1 black wins, 2 draw by agreement).
async fn play_board(url: &str, tokens: &BTreeMap<i64, String>, board: &spb::Board, pick: u64) {
    let (_, mut white) = clients(url, &tokens[&board.white_player_id]).await;
    let (_, mut black) = clients(url, &tokens[&board.black_player_id]).await;
    let game = board.game_id;
    for (client, number, turn) in [(&mut white, 1, "d4-c6"), (&mut black, 2, "d12-c10")] {
        client
            .submit_turn(pb::SubmitTurnRequest {
                game_id: game,
                turn_number: number,
                turn: turn.to_owned(),
            })
            .await
            .expect("turn");
    }
    match pick % 3 {
        0 => {
            black
                .resign(pb::ResignRequest { game_id: game })
                .await
                .expect("resign");
        }
        1 => {
            white
                .resign(pb::ResignRequest { game_id: game })
                .await
                .expect("resign");
        }
        _ => {
            white
                .offer_draw(pb::OfferDrawRequest { game_id: game })
                .await
                .expect("offer");
            black
                .accept_draw(pb::AcceptDrawRequest { game_id: game })
                .await
                .expect("accept");
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_swiss_tournament_runs_to_final_standings() {
    for db in databases().await {
        let server = serve(&db).await;
        let url = server.url.clone();
        let (mut admin, _) = clients(&url, ADMIN_TOKEN).await;
        let mut tokens = BTreeMap::new();
        let mut ids = Vec::new();
        for i in 0..7 {
            let (id, token) = register(&url, &format!("bot-{i}")).await;
            tokens.insert(id, token);
            ids.push(id);
        }
        let created = admin
            .create_tournament(spb::CreateTournamentRequest {
                settings: Some(spb::TournamentSettings {
                    name: "Club Swiss".to_owned(),
                    kind: "hanniball".to_owned(),
                    rounds: 4,
                    rated: false,
                    forfeit_withdraws: true,
                    ..Default::default()
                }),
            })
            .await
            .expect("create")
            .into_inner()
            .tournament
            .expect("tournament");
        let tid = created.id;
        for (i, id) in ids.iter().enumerate() {
            admin
                .add_player(spb::AddPlayerRequest {
                    tournament_id: tid,
                    player_id: *id,
                    rating: 2000 - 50 * i as i32,
                })
                .await
                .expect("add");
        }
        // Registering twice is refused; a player may not start the tournament.
        let twice = admin
            .add_player(spb::AddPlayerRequest {
                tournament_id: tid,
                player_id: ids[0],
                rating: 0,
            })
            .await
            .expect_err("already in");
        assert_eq!(twice.code(), Code::AlreadyExists);
        let (mut player, _) = clients(&url, &tokens[&ids[1]]).await;
        let denied = player
            .start_tournament(spb::StartTournamentRequest { tournament_id: tid })
            .await
            .expect_err("not an organiser");
        assert_eq!(denied.code(), Code::PermissionDenied);
        // The lowest seed asks for a half-point bye in round 2.
        player = clients(&url, &tokens[&ids[6]]).await.0;
        player
            .request_bye(spb::RequestByeRequest {
                tournament_id: tid,
                player_id: ids[6],
                round: 2,
                half_point: true,
            })
            .await
            .expect("bye request");

        admin
            .start_tournament(spb::StartTournamentRequest { tournament_id: tid })
            .await
            .expect("start");
        let mut seen_pairs = BTreeSet::new();
        for round in 1..=4u32 {
            let t = until(&mut admin, tid, |t| {
                t.current_round == round
                    && t.boards
                        .iter()
                        .filter(|b| b.round == round && b.kind() == spb::BoardKind::Game)
                        .all(|b| b.game_id > 0)
            })
            .await;
            let boards: Vec<spb::Board> = t
                .boards
                .iter()
                .filter(|b| b.round == round)
                .cloned()
                .collect();
            let games: Vec<&spb::Board> = boards
                .iter()
                .filter(|b| b.kind() == spb::BoardKind::Game)
                .collect();
            // 7 players: 3 games and a pairing-allocated bye; in round 2 the requested bye
            // leaves 6 to pair: 3 games and no pairing-allocated bye.
            assert_eq!(games.len(), 3, "round {round}: {boards:?}");
            let byes: Vec<spb::BoardKind> = boards
                .iter()
                .filter(|b| b.kind() != spb::BoardKind::Game)
                .map(spb::Board::kind)
                .collect();
            if round == 2 {
                assert_eq!(byes, vec![spb::BoardKind::HalfPointBye], "round 2");
            } else {
                assert_eq!(byes, vec![spb::BoardKind::PairingBye], "round {round}");
            }
            for (i, board) in games.iter().enumerate() {
                let pair = (
                    board.white_player_id.min(board.black_player_id),
                    board.white_player_id.max(board.black_player_id),
                );
                assert!(seen_pairs.insert(pair), "rematch {pair:?} in round {round}");
                play_board(&url, &tokens, board, u64::from(round) + i as u64).await;
            }
        }
        let t = until(&mut admin, tid, |t| {
            t.status() == spb::TournamentStatus::Finished
        })
        .await;
        assert!(
            t.boards
                .iter()
                .all(|b| b.kind() != spb::BoardKind::Game || !b.result.is_empty())
        );

        let standings = admin
            .get_standings(spb::GetStandingsRequest { tournament_id: tid })
            .await
            .expect("standings")
            .into_inner();
        assert_eq!(standings.rounds, 4);
        assert_eq!(standings.tiebreak_names, vec!["BH-C1", "BH", "SB"]);
        assert_eq!(standings.standings.len(), 7);
        // Points add up: 3 games of 1 point per round, plus the byes (a win, a half point).
        let total: f64 = standings
            .standings
            .iter()
            .map(|s| s.points.parse::<f64>().expect("points"))
            .sum();
        assert!(
            (total - (4.0 * 3.0 + 3.0 + 0.5)).abs() < 1e-9,
            "total {total}"
        );
        assert!(standings.standings.windows(2).all(|w| {
            w[0].points.parse::<f64>().expect("p") >= w[1].points.parse::<f64>().expect("p")
        }));

        // The TRF export reads back and passes the absolute-criteria checker.
        let trf = admin
            .export_trf(spb::ExportTrfRequest { tournament_id: tid })
            .await
            .expect("trf")
            .into_inner()
            .trf;
        let parsed = hanniball_pairing::trf::parse(&trf).expect("TRF parses");
        assert_eq!(parsed.players.len(), 7);
        assert_eq!(parsed.rounds_paired(), 4);
        assert!(hanniball_pairing::check(&parsed).is_empty(), "{trf}");

        // A corrected result changes the standings.
        let first_game = t
            .boards
            .iter()
            .find(|b| b.kind() == spb::BoardKind::Game)
            .expect("a game");
        let flipped = if first_game.result == "1-0" {
            "0-1"
        } else {
            "1-0"
        };
        let corrected = admin
            .set_result(spb::SetResultRequest {
                tournament_id: tid,
                round: first_game.round,
                board: first_game.number,
                result: flipped.to_owned(),
            })
            .await
            .expect("correction")
            .into_inner()
            .board
            .expect("board");
        assert_eq!(corrected.result, flipped);
        assert!(corrected.corrected);
        let bad = admin
            .set_result(spb::SetResultRequest {
                tournament_id: tid,
                round: 1,
                board: 1,
                result: "2-0".to_owned(),
            })
            .await
            .expect_err("bad result");
        assert_eq!(bad.code(), Code::InvalidArgument);
        let unknown = admin
            .get_tournament(spb::GetTournamentRequest {
                tournament_id: 9_999,
            })
            .await
            .expect_err("unknown");
        assert_eq!(unknown.code(), Code::NotFound);
        server.shutdown.cancel();
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_queue_pairs_waiting_players_and_they_learn_of_their_game() {
    for db in databases().await {
        let server = serve(&db).await;
        let url = server.url.clone();
        let (a, a_token) = register(&url, "queue-a").await;
        let (b, b_token) = register(&url, "queue-b").await;
        let (mut sa, mut arb_a) = clients(&url, &a_token).await;
        let (mut sb, _) = clients(&url, &b_token).await;
        let mut events = arb_a
            .watch_player(pb::WatchPlayerRequest {})
            .await
            .expect("watch")
            .into_inner();
        let join = spb::JoinQueueRequest {
            kind: "hanniball".to_owned(),
            ruleset: String::new(),
            time_control: Some(pb::TimeControl {
                initial_ms: 60_000,
                increment_ms: 1_000,
            }),
            rated: false,
        };
        sa.join_queue(join.clone()).await.expect("join a");
        // The admin does not queue; a bad time control is refused.
        let (mut admin, _) = clients(&url, ADMIN_TOKEN).await;
        assert_eq!(
            admin
                .join_queue(join.clone())
                .await
                .expect_err("admin")
                .code(),
            Code::InvalidArgument
        );
        let mut bad = join.clone();
        bad.time_control = Some(pb::TimeControl {
            initial_ms: -1,
            increment_ms: 0,
        });
        assert_eq!(
            sb.join_queue(bad).await.expect_err("bad").code(),
            Code::InvalidArgument
        );
        sb.join_queue(join.clone()).await.expect("join b");
        let started = tokio::time::timeout(Duration::from_secs(10), async {
            use tokio_stream::StreamExt;
            while let Some(event) = events.next().await {
                let event = event.expect("event");
                if let Some(pb::player_event::Event::GameStarted(game)) = event.event {
                    return game;
                }
            }
            panic!("stream ended");
        })
        .await
        .expect("a game starts");
        let players = BTreeSet::from([started.white_player_id, started.black_player_id]);
        assert_eq!(players, BTreeSet::from([a, b]));
        let queue = sa
            .get_queue(spb::GetQueueRequest {})
            .await
            .expect("queue")
            .into_inner();
        assert!(queue.waiting.is_empty(), "{queue:?}");
        // Leaving when not waiting is fine.
        let left = sa
            .leave_queue(spb::LeaveQueueRequest {})
            .await
            .expect("leave")
            .into_inner();
        assert!(!left.was_waiting);
        server.shutdown.cancel();
    }
}
