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

/// A Swiss of `rounds` rounds, paired when the organiser says, with `players` entered; its id.
async fn manual_swiss(
    admin: &mut Sched,
    name: &str,
    rounds: u32,
    players: Vec<spb::PlayerEntry>,
) -> i64 {
    let tid = admin
        .create_tournament(spb::CreateTournamentRequest {
            settings: Some(spb::TournamentSettings {
                name: name.to_owned(),
                rounds,
                manual_pairing: true,
                ..Default::default()
            }),
        })
        .await
        .expect("create")
        .into_inner()
        .tournament
        .expect("tournament")
        .id;
    admin
        .add_players(spb::AddPlayersRequest {
            tournament_id: tid,
            players,
        })
        .await
        .expect("players");
    tid
}

/// Each side of a board's game makes one turn; their clients.
async fn both_move(url: &str, tokens: &BTreeMap<i64, String>, board: &spb::Board) -> (Arb, Arb) {
    let (_, mut white) = clients(url, &tokens[&board.white_player_id]).await;
    let (_, mut black) = clients(url, &tokens[&board.black_player_id]).await;
    hanniball_e2e::both_move(&mut white, &mut black, board.game_id).await;
    (white, black)
}

/// Plays one board: both sides move once, then a result decided by `pick` (0 white wins by
/// resignation, 1 black wins, 2 draw by agreement).
async fn play_board(url: &str, tokens: &BTreeMap<i64, String>, board: &spb::Board, pick: u64) {
    let (mut white, mut black) = both_move(url, tokens, board).await;
    hanniball_e2e::end_by(&mut white, &mut black, board.game_id, pick).await;
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
        // The tie-break text in force today is stored with the tournament; an unknown one is
        // refused.
        let stored = created.settings.as_ref().expect("settings");
        assert_eq!(
            (
                stored.tiebreak_rules.as_str(),
                stored.tiebreak_unrated.as_str()
            ),
            ("2026", "drop")
        );
        let refused = admin
            .create_tournament(spb::CreateTournamentRequest {
                settings: Some(spb::TournamentSettings {
                    name: "Old rules".to_owned(),
                    rounds: 4,
                    tiebreak_rules: "2025".to_owned(),
                    ..Default::default()
                }),
            })
            .await
            .expect_err("no 2025 text");
        assert_eq!(refused.code(), Code::InvalidArgument);
        assert!(
            refused.message().contains("expected 2024 or 2026"),
            "{refused:?}"
        );
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
            .get_standings(spb::GetStandingsRequest {
                tournament_id: tid,
                after_round: 0,
            })
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

        // A finished game's result is the arbiter's: the organiser cannot give its board
        // another one (the game, the board and the ratings would disagree), only the same.
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
        let refused = admin
            .set_result(spb::SetResultRequest {
                tournament_id: tid,
                round: first_game.round,
                board: first_game.number,
                result: flipped.to_owned(),
            })
            .await
            .expect_err("a finished game's result stands");
        assert_eq!(refused.code(), Code::FailedPrecondition);
        let same = admin
            .set_result(spb::SetResultRequest {
                tournament_id: tid,
                round: first_game.round,
                board: first_game.number,
                result: first_game.result.clone(),
            })
            .await
            .expect("the game's own result")
            .into_inner()
            .board
            .expect("board");
        assert_eq!(same.result, first_game.result);
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

/// A game's state as the arbiter tells it.
async fn game_state(arbiter: &mut Arb, game: i64) -> pb::GameState {
    arbiter
        .get_game(pb::GetGameRequest { game_id: game })
        .await
        .expect("game")
        .into_inner()
        .game
        .and_then(|g| g.state)
        .expect("state")
}

/// Rated games of `player` on the hanniball ladder.
async fn rated_games(url: &str, player: i64) -> u32 {
    use hanniball_proto::rating::v1 as rpb;
    let mut rating = rpb::rating_client::RatingClient::with_interceptor(
        channel(url).await,
        Bearer::new(ADMIN_TOKEN),
    );
    rating
        .get_rating(rpb::GetRatingRequest {
            player: Some(rpb::PlayerRef {
                player: Some(rpb::player_ref::Player::Id(player)),
            }),
            ladder: String::new(),
        })
        .await
        .expect("rating")
        .into_inner()
        .rating
        .expect("rating")
        .games
}

/// One result everywhere, with clocks running: the organiser's result ends the game (which then
/// cannot lose on time), a game's own end reaches its board, and the rating service rates played
/// games only (forfeits and games a side never moved in never), as the board says.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_result_is_the_same_on_the_board_in_the_game_and_in_the_ratings() {
    const CLOCK_MS: i64 = 3_000;
    for db in databases().await {
        let (url, shutdown) = hanniball_e2e::all_services(&db).await;
        let (mut admin, mut arbiter) = clients(&url, ADMIN_TOKEN).await;
        let mut tokens = BTreeMap::new();
        let mut names = BTreeMap::new();
        for i in 0..8 {
            let (id, token) = register(&url, &format!("timed-{i}")).await;
            tokens.insert(id, token);
            names.insert(id, format!("timed-{i}"));
        }
        let tid = admin
            .create_tournament(spb::CreateTournamentRequest {
                settings: Some(spb::TournamentSettings {
                    name: "Timed".to_owned(),
                    rounds: 1,
                    rated: true,
                    time_control: Some(pb::TimeControl {
                        initial_ms: CLOCK_MS,
                        increment_ms: 0,
                    }),
                    ..Default::default()
                }),
            })
            .await
            .expect("create")
            .into_inner()
            .tournament
            .expect("tournament")
            .id;
        for id in tokens.keys() {
            admin
                .add_player(spb::AddPlayerRequest {
                    tournament_id: tid,
                    player_id: *id,
                    rating: 0,
                })
                .await
                .expect("add");
        }
        admin
            .start_tournament(spb::StartTournamentRequest { tournament_id: tid })
            .await
            .expect("start");
        let t = until(&mut admin, tid, |t| {
            t.boards.len() == 4 && t.boards.iter().all(|b| b.game_id > 0)
        })
        .await;
        let started = std::time::Instant::now();
        let boards = t.boards.clone();
        let side = |board: &spb::Board, white: bool| {
            let player = if white {
                board.white_player_id
            } else {
                board.black_player_id
            };
            tokens[&player].clone()
        };
        let set = |board: &spb::Board, result: &str| spb::SetResultRequest {
            tournament_id: tid,
            round: 1,
            board: board.number,
            result: result.to_owned(),
        };
        // Board 1: both sides move, the organiser enters 1-0 while the game is on.
        both_move(&url, &tokens, &boards[0]).await;
        let board = admin
            .set_result(set(&boards[0], "1-0"))
            .await
            .expect("organiser's result")
            .into_inner()
            .board
            .expect("board");
        assert_eq!(board.result, "1-0");
        // Board 2: nobody moved; the organiser enters a forfeit.
        admin
            .set_result(set(&boards[1], "+/-"))
            .await
            .expect("forfeit");
        // Board 3: both move, White resigns; then the organiser's other result is refused and
        // the same one accepted.
        let (mut w3, _) = both_move(&url, &tokens, &boards[2]).await;
        w3.resign(pb::ResignRequest {
            game_id: boards[2].game_id,
        })
        .await
        .expect("resign");
        let refused = admin
            .set_result(set(&boards[2], "1-0"))
            .await
            .expect_err("the game's result stands");
        assert_eq!(refused.code(), Code::FailedPrecondition, "{refused:?}");
        assert!(refused.message().contains("0-1"), "{refused:?}");
        admin
            .set_result(set(&boards[2], "0-1"))
            .await
            .expect("the game's own result");
        // Board 4: Black resigns before either side moved: a forfeit, never rated.
        let (_, mut b4) = clients(&url, &side(&boards[3], false)).await;
        b4.resign(pb::ResignRequest {
            game_id: boards[3].game_id,
        })
        .await
        .expect("resign");
        assert!(
            started.elapsed() < Duration::from_millis(CLOCK_MS as u64),
            "the test was too slow to beat the clocks"
        );
        // Past every clock's flag: nothing may change any more.
        tokio::time::sleep(Duration::from_millis(CLOCK_MS as u64 + 500)).await;
        let t = until(&mut admin, tid, |t| {
            t.status() == spb::TournamentStatus::Finished
        })
        .await;
        let results: Vec<&str> = t.boards.iter().map(|b| b.result.as_str()).collect();
        assert_eq!(results, ["1-0", "+/-", "0-1", "+/-"]);
        let expected = [
            (pb::Outcome::WhiteWins, pb::EndReason::Adjudication),
            (pb::Outcome::WhiteWins, pb::EndReason::Forfeit),
            (pb::Outcome::BlackWins, pb::EndReason::Resignation),
            (pb::Outcome::WhiteWins, pb::EndReason::Resignation),
        ];
        for (board, (outcome, reason)) in t.boards.iter().zip(expected) {
            let state = game_state(&mut arbiter, board.game_id).await;
            let result = state.result.clone().expect("over");
            assert_eq!(state.status(), pb::GameStatus::Finished, "{state:?}");
            assert_eq!((result.outcome(), result.reason()), (outcome, reason));
            let clocks = state.clocks.expect("clocks");
            assert_eq!(clocks.running(), pb::Side::Unspecified);
            assert!(clocks.white_ms > 0 && clocks.black_ms > 0, "{clocks:?}");
        }
        // The TRF says the same: board 1 a played win, board 2 a forfeit.
        let trf = admin
            .export_trf(spb::ExportTrfRequest { tournament_id: tid })
            .await
            .expect("trf")
            .into_inner()
            .trf;
        // The file says its time control, rounds, initial colour, point system and pairing
        // system in TRF-2026's own lines, so another program need not guess them.
        for line in [
            "122 3+0",
            "142 1",
            "152 W",
            "162  W 1.0    D 0.5    L 0.0",
            "192 FIDE_DUTCH_2025",
        ] {
            assert!(trf.lines().any(|l| l.starts_with(line)), "{line}: {trf}");
        }
        let parsed = hanniball_pairing::trf::parse(&trf).expect("TRF parses");
        let entry = |player: i64| {
            let name = &names[&player];
            parsed
                .players
                .iter()
                .find(|p| &p.name == name)
                .and_then(|p| p.entry(1).copied())
                .expect("in the TRF")
        };
        assert!(
            matches!(
                entry(boards[0].white_player_id),
                hanniball_pairing::RoundEntry::Game {
                    result: hanniball_pairing::GameResult::Win,
                    rated: true,
                    ..
                }
            ),
            "{trf}"
        );
        for player in [boards[1].white_player_id, boards[3].white_player_id] {
            assert!(
                matches!(
                    entry(player),
                    hanniball_pairing::RoundEntry::Forfeit { won: true, .. }
                ),
                "{trf}"
            );
        }
        // Rated: boards 1 and 3 (played); never boards 2 and 4.
        for (board, rated) in t.boards.iter().zip([1, 0, 1, 0]) {
            for player in [board.white_player_id, board.black_player_id] {
                let mut games = 0;
                for _ in 0..100 {
                    games = rated_games(&url, player).await;
                    if games >= rated {
                        break;
                    }
                    tokio::time::sleep(Duration::from_millis(20)).await;
                }
                assert_eq!(games, rated, "board {}: player {player}", board.number);
            }
        }
        shutdown.cancel();
    }
}

/// The batch calls a large event needs: players entered, a round's results entered and a
/// round's games created in one call each, every item checked first (a refusal changes nothing).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn batch_calls_check_everything_first_and_change_nothing_on_a_refusal() {
    for db in databases().await {
        let server = serve(&db).await;
        let url = server.url.clone();
        let (mut admin, mut arbiter) = clients(&url, ADMIN_TOKEN).await;
        let mut ids = Vec::new();
        for i in 0..6 {
            ids.push(register(&url, &format!("batch-{i}")).await.0);
        }
        let tid = admin
            .create_tournament(spb::CreateTournamentRequest {
                settings: Some(spb::TournamentSettings {
                    name: "Batch".to_owned(),
                    rounds: 2,
                    manual_pairing: true,
                    ..Default::default()
                }),
            })
            .await
            .expect("create")
            .into_inner()
            .tournament
            .expect("tournament")
            .id;
        let entries = |players: &[i64]| spb::AddPlayersRequest {
            tournament_id: tid,
            players: players
                .iter()
                .map(|id| spb::PlayerEntry {
                    player_id: *id,
                    rating: 1_500,
                })
                .collect(),
        };
        let unknown = admin
            .add_players(entries(&[ids[0], 999_999]))
            .await
            .expect_err("an unknown player");
        assert_eq!(unknown.code(), Code::NotFound);
        let twice = admin
            .add_players(entries(&[ids[0], ids[1], ids[0]]))
            .await
            .expect_err("listed twice");
        assert_eq!(twice.code(), Code::AlreadyExists);
        assert!(tournament(&mut admin, tid).await.entrants.is_empty());
        let added = admin
            .add_players(entries(&ids))
            .await
            .expect("all")
            .into_inner()
            .entrants;
        assert_eq!(
            added.iter().map(|e| e.player_id).collect::<Vec<_>>(),
            ids,
            "in the order asked"
        );
        assert_eq!(tournament(&mut admin, tid).await.entrants.len(), 6);
        let again = admin
            .add_players(entries(&ids[..1]))
            .await
            .expect_err("already in");
        assert_eq!(again.code(), Code::AlreadyExists);

        admin
            .start_tournament(spb::StartTournamentRequest { tournament_id: tid })
            .await
            .expect("start");
        let t = until(&mut admin, tid, |t| {
            t.boards.len() == 3 && t.boards.iter().all(|b| b.game_id > 0)
        })
        .await;
        let results = |items: &[(u32, &str)]| spb::SetResultsRequest {
            tournament_id: tid,
            results: items
                .iter()
                .map(|(board, result)| spb::BoardResult {
                    round: 1,
                    board: *board,
                    result: (*result).to_owned(),
                })
                .collect(),
        };
        let bad = admin
            .set_results(results(&[(1, "1-0"), (2, "2-0")]))
            .await
            .expect_err("an unknown result");
        assert_eq!(bad.code(), Code::InvalidArgument);
        let missing = admin
            .set_results(results(&[(1, "1-0"), (9, "1-0")]))
            .await
            .expect_err("no board 9");
        assert_eq!(missing.code(), Code::NotFound);
        let t = tournament(&mut admin, t.id).await;
        assert!(t.boards.iter().all(|b| b.result.is_empty()), "{t:?}");
        for board in &t.boards {
            assert_eq!(
                game_state(&mut arbiter, board.game_id).await.status(),
                pb::GameStatus::Active
            );
        }
        let boards = admin
            .set_results(results(&[(3, "1/2-1/2"), (1, "1-0"), (2, "-/+")]))
            .await
            .expect("a round's results")
            .into_inner()
            .boards;
        let stored: Vec<(u32, &str)> = boards
            .iter()
            .map(|b| (b.number, b.result.as_str()))
            .collect();
        assert_eq!(stored, [(3, "1/2-1/2"), (1, "1-0"), (2, "-/+")]);
        for board in &boards {
            let state = game_state(&mut arbiter, board.game_id).await;
            assert_eq!(state.status(), pb::GameStatus::Finished, "{state:?}");
        }
        // The round is complete: the organiser pairs the next one.
        admin
            .pair_next_round(spb::PairNextRoundRequest { tournament_id: tid })
            .await
            .expect("round 2");

        // CreateGames: a refusal creates none; keys make a retry return the same games.
        let request = |white: i64, black: i64, key: &str| pb::CreateGameRequest {
            white_player_id: white,
            black_player_id: black,
            idempotency_key: key.to_owned(),
            ..Default::default()
        };
        let before = arbiter
            .list_games(pb::ListGamesRequest::default())
            .await
            .expect("list")
            .into_inner()
            .games
            .len();
        let refused = arbiter
            .create_games(pb::CreateGamesRequest {
                games: vec![
                    request(ids[0], ids[1], "b-1"),
                    request(ids[2], 999_999, "b-2"),
                ],
            })
            .await
            .expect_err("an unknown player");
        assert_eq!(refused.code(), Code::NotFound);
        assert!(refused.message().contains("games[1]"), "{refused:?}");
        let after = arbiter
            .list_games(pb::ListGamesRequest::default())
            .await
            .expect("list")
            .into_inner()
            .games
            .len();
        assert_eq!(after, before, "nothing created");
        let batch = pb::CreateGamesRequest {
            games: vec![
                request(ids[0], ids[1], "b-1"),
                request(ids[2], ids[3], "b-2"),
            ],
        };
        let first: Vec<i64> = arbiter
            .create_games(batch.clone())
            .await
            .expect("created")
            .into_inner()
            .games
            .iter()
            .map(|g| g.id)
            .collect();
        let retry: Vec<i64> = arbiter
            .create_games(batch)
            .await
            .expect("retried")
            .into_inner()
            .games
            .iter()
            .map(|g| g.id)
            .collect();
        assert_eq!(first.len(), 2);
        assert_eq!(first, retry, "the same games");
        // Two creators of the same games at once (a retry racing the first call): both get the
        // same games, created once.
        let batch = pb::CreateGamesRequest {
            games: (0..40)
                .map(|i| request(ids[i % 6], ids[(i + 1) % 6], &format!("race-{i}")))
                .collect(),
        };
        let (mut one, mut two) = (arbiter.clone(), arbiter.clone());
        let (a, b) = tokio::join!(
            one.create_games(batch.clone()),
            two.create_games(batch.clone())
        );
        let ids_of = |r: Result<tonic::Response<pb::CreateGamesResponse>, tonic::Status>| {
            r.expect("created")
                .into_inner()
                .games
                .iter()
                .map(|g| g.id)
                .collect::<Vec<_>>()
        };
        let (a, b) = (ids_of(a), ids_of(b));
        assert_eq!(a.len(), 40);
        assert_eq!(a, b, "the same games for both");
        server.shutdown.cancel();
    }
}

/// A batch of results whose game has just ended on its own (resigned an instant before, its
/// board perhaps not told yet) is refused whole: no other game of the batch is ended. Done a
/// few times per database, since the scheduler may or may not have heard of the resignation.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_batch_with_a_game_just_over_ends_no_other_game() {
    for db in databases().await {
        let server = serve(&db).await;
        let url = server.url.clone();
        let (mut admin, mut arbiter) = clients(&url, ADMIN_TOKEN).await;
        for attempt in 0..3 {
            let mut tokens = BTreeMap::new();
            for i in 0..4 {
                let (id, token) = register(&url, &format!("race-{attempt}-{i}")).await;
                tokens.insert(id, token);
            }
            let entries = tokens
                .keys()
                .map(|id| spb::PlayerEntry {
                    player_id: *id,
                    rating: 1_500,
                })
                .collect();
            let tid = manual_swiss(&mut admin, &format!("Race {attempt}"), 1, entries).await;
            admin
                .start_tournament(spb::StartTournamentRequest { tournament_id: tid })
                .await
                .expect("start");
            let t = until(&mut admin, tid, |t| {
                t.boards.len() == 2 && t.boards.iter().all(|b| b.game_id > 0)
            })
            .await;
            let (first, second) = (&t.boards[0], &t.boards[1]);
            let (_, mut white) = clients(&url, &tokens[&first.white_player_id]).await;
            white
                .resign(pb::ResignRequest {
                    game_id: first.game_id,
                })
                .await
                .expect("resign");
            // At once: board 1 is 0-1 by resignation, so its 1-0 refuses the whole batch.
            let refused = admin
                .set_results(spb::SetResultsRequest {
                    tournament_id: tid,
                    results: [(second.number, "1-0"), (first.number, "1-0")]
                        .iter()
                        .map(|(board, result)| spb::BoardResult {
                            round: 1,
                            board: *board,
                            result: (*result).to_owned(),
                        })
                        .collect(),
                })
                .await
                .expect_err("board 1 is over with another result");
            assert_eq!(refused.code(), Code::FailedPrecondition, "{refused:?}");
            assert_eq!(
                game_state(&mut arbiter, second.game_id).await.status(),
                pb::GameStatus::Active,
                "attempt {attempt}: the refused batch ended board 2's game: {refused:?}"
            );
            let t = tournament(&mut admin, tid).await;
            assert!(t.boards[1].result.is_empty(), "{:?}", t.boards[1]);
        }
        server.shutdown.cancel();
    }
}

/// A large round is paired off the async runtime: on a server whose runtime has one worker
/// thread, `Ping` keeps answering while `PairNextRound` of 1,000 players runs: no gap between two
/// answers as long as a tenth of the call (paired on the worker, the gap is the pairing, about a
/// fifth of the call; off it, about a fiftieth).
#[tokio::test(flavor = "multi_thread", worker_threads = 1)]
async fn ping_answers_while_a_large_round_is_paired() {
    let server = serve(&hanniball_db::testing::sqlite_url()).await;
    let url = server.url.clone();
    let (mut admin, arbiter) = clients(&url, ADMIN_TOKEN).await;
    let mut accounts =
        AccountsClient::with_interceptor(channel(&url).await, Bearer::new(ADMIN_TOKEN));
    let mut entries = Vec::new();
    for i in 0..1_000 {
        let (id, _) = hanniball_e2e::register_bot(&mut accounts, &format!("big-{i}")).await;
        entries.push(spb::PlayerEntry {
            player_id: id,
            rating: 2_000 - i,
        });
    }
    let tid = manual_swiss(&mut admin, "Big", 3, entries).await;
    admin
        .start_tournament(spb::StartTournamentRequest { tournament_id: tid })
        .await
        .expect("start");
    let t = until(&mut admin, tid, |t| {
        t.boards.len() == 500 && t.boards.iter().all(|b| b.game_id > 0)
    })
    .await;
    let results = t
        .boards
        .iter()
        .map(|b| spb::BoardResult {
            round: 1,
            board: b.number,
            result: ["1-0", "0-1", "1/2-1/2"][b.number as usize % 3].to_owned(),
        })
        .collect();
    admin
        .set_results(spb::SetResultsRequest {
            tournament_id: tid,
            results,
        })
        .await
        .expect("results");

    let pairing = CancellationToken::new();
    let pinger = {
        let pairing = pairing.clone();
        let mut arbiter = arbiter.clone();
        tokio::spawn(async move {
            let mut longest = Duration::ZERO;
            let mut last = std::time::Instant::now();
            while !pairing.is_cancelled() {
                arbiter
                    .ping(pb::PingRequest::default())
                    .await
                    .expect("ping");
                longest = longest.max(last.elapsed());
                last = std::time::Instant::now();
                tokio::time::sleep(Duration::from_millis(2)).await;
            }
            longest
        })
    };
    let started = std::time::Instant::now();
    admin
        .pair_next_round(spb::PairNextRoundRequest { tournament_id: tid })
        .await
        .expect("round 2");
    let took = started.elapsed();
    pairing.cancel();
    let longest = pinger.await.expect("pinger");
    assert!(
        longest < took / 10,
        "Ping waited {longest:?} while PairNextRound took {took:?}"
    );
    server.shutdown.cancel();
}
