//! End to end: over-the-board tournaments (the organiser's results are played games, rated) and
//! result corrections (the board, the game, the TRF, the standings and the ratings follow), on
//! SQLite and (when configured) PostgreSQL, with every service in one server.

use std::time::Duration;

use hanniball_e2e::{ADMIN_TOKEN, Bearer, databases};
use hanniball_proto::accounts::v1::accounts_client::AccountsClient;
use hanniball_proto::arbiter::v1 as pb;
use hanniball_proto::arbiter::v1::arbiter_client::ArbiterClient;
use hanniball_proto::rating::v1 as rpb;
use hanniball_proto::rating::v1::rating_client::RatingClient;
use hanniball_proto::scheduler::v1 as spb;
use hanniball_proto::scheduler::v1::scheduler_client::SchedulerClient;
use tonic::Code;
use tonic::service::interceptor::InterceptedService;
use tonic::transport::Channel;

type Sched = SchedulerClient<InterceptedService<Channel, Bearer>>;
type Arb = ArbiterClient<InterceptedService<Channel, Bearer>>;
type Rate = RatingClient<InterceptedService<Channel, Bearer>>;

struct Admin {
    sched: Sched,
    arbiter: Arb,
    rating: Rate,
    url: String,
}

async fn admin(url: &str) -> Admin {
    let channel = Channel::from_shared(url.to_owned())
        .expect("url")
        .connect()
        .await
        .expect("connect");
    Admin {
        sched: SchedulerClient::with_interceptor(channel.clone(), Bearer::new(ADMIN_TOKEN)),
        arbiter: ArbiterClient::with_interceptor(channel.clone(), Bearer::new(ADMIN_TOKEN)),
        rating: RatingClient::with_interceptor(channel, Bearer::new(ADMIN_TOKEN)),
        url: url.to_owned(),
    }
}

impl Admin {
    async fn players(&self, prefix: &str, n: usize) -> Vec<i64> {
        let channel = Channel::from_shared(self.url.clone())
            .expect("url")
            .connect()
            .await
            .expect("connect");
        let mut accounts = AccountsClient::with_interceptor(channel, Bearer::new(ADMIN_TOKEN));
        let mut ids = Vec::new();
        for i in 0..n {
            let (id, _) =
                hanniball_e2e::register_bot(&mut accounts, &format!("{prefix}-{i}")).await;
            ids.push(id);
        }
        ids
    }

    async fn create(&mut self, settings: spb::TournamentSettings, players: &[i64]) -> i64 {
        let id = self
            .sched
            .create_tournament(spb::CreateTournamentRequest {
                settings: Some(settings),
            })
            .await
            .expect("create")
            .into_inner()
            .tournament
            .expect("tournament")
            .id;
        for (i, player) in players.iter().enumerate() {
            self.sched
                .add_player(spb::AddPlayerRequest {
                    tournament_id: id,
                    player_id: *player,
                    // Distinct seeds: the pairings do not depend on ties.
                    rating: 2000 - 10 * i as i32,
                })
                .await
                .expect("add");
        }
        self.sched
            .start_tournament(spb::StartTournamentRequest { tournament_id: id })
            .await
            .expect("start");
        id
    }

    async fn tournament(&mut self, id: i64) -> spb::Tournament {
        self.sched
            .get_tournament(spb::GetTournamentRequest { tournament_id: id })
            .await
            .expect("get")
            .into_inner()
            .tournament
            .expect("tournament")
    }

    async fn result(&mut self, id: i64, round: u32, board: u32, result: &str) -> spb::Board {
        self.sched
            .set_result(spb::SetResultRequest {
                tournament_id: id,
                round,
                board,
                result: result.to_owned(),
            })
            .await
            .unwrap_or_else(|e| panic!("result {round}.{board} {result}: {e:?}"))
            .into_inner()
            .board
            .expect("board")
    }

    async fn correct(
        &mut self,
        id: i64,
        round: u32,
        board: u32,
        result: &str,
    ) -> Result<spb::CorrectResultResponse, tonic::Status> {
        self.sched
            .correct_result(spb::CorrectResultRequest {
                tournament_id: id,
                round,
                board,
                result: result.to_owned(),
                note: format!("score sheet of board {board} misread"),
            })
            .await
            .map(tonic::Response::into_inner)
    }

    async fn game(&mut self, game: i64) -> pb::Game {
        self.arbiter
            .get_game(pb::GetGameRequest { game_id: game })
            .await
            .expect("game")
            .into_inner()
            .game
            .expect("game")
    }

    async fn rating(&mut self, player: i64) -> Option<rpb::PlayerRating> {
        match self
            .rating
            .get_rating(rpb::GetRatingRequest {
                player: Some(rpb::PlayerRef {
                    player: Some(rpb::player_ref::Player::Id(player)),
                }),
                ladder: String::new(),
            })
            .await
        {
            Ok(r) => r.into_inner().rating,
            Err(status) if status.code() == Code::NotFound => None,
            Err(status) => panic!("rating of {player}: {status:?}"),
        }
    }

    /// Waits (bounded) until the player's rating satisfies `done`; returns it.
    async fn rating_until(
        &mut self,
        player: i64,
        done: impl Fn(&rpb::PlayerRating) -> bool,
    ) -> rpb::PlayerRating {
        for _ in 0..200 {
            if let Some(r) = self.rating(player).await
                && done(&r)
            {
                return r;
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        panic!(
            "player {player}'s rating did not follow: {:?}",
            self.rating(player).await
        );
    }

    async fn trf(&mut self, id: i64) -> hanniball_pairing::Tournament {
        let text = self
            .sched
            .export_trf(spb::ExportTrfRequest { tournament_id: id })
            .await
            .expect("trf")
            .into_inner()
            .trf;
        // A round under way is written unfinished: its games without results are not entries.
        hanniball_pairing::trf::read(
            text.as_bytes(),
            &hanniball_pairing::trf::ReadOptions::default(),
        )
        .expect("the TRF reads")
        .tournament
    }

    async fn points(&mut self, id: i64) -> Vec<(i64, String)> {
        let mut standings: Vec<(i64, String)> = self
            .sched
            .get_standings(spb::GetStandingsRequest {
                tournament_id: id,
                after_round: 0,
            })
            .await
            .expect("standings")
            .into_inner()
            .standings
            .into_iter()
            .map(|s| (s.player_id, s.points))
            .collect();
        standings.sort();
        standings
    }
}

fn settings(name: &str, over_the_board: bool) -> spb::TournamentSettings {
    spb::TournamentSettings {
        name: name.to_owned(),
        rounds: 3,
        rated: true,
        manual_pairing: true,
        over_the_board,
        time_control: Some(pb::TimeControl {
            initial_ms: 5_400_000,
            increment_ms: 30_000,
        }),
        ..Default::default()
    }
}

/// The TRF entry of `player` (by start rank) in `round`.
fn entry(
    trf: &hanniball_pairing::Tournament,
    start_rank: u32,
    round: u32,
) -> hanniball_pairing::RoundEntry {
    trf.players
        .iter()
        .find(|p| p.id.0 == start_rank)
        .and_then(|p| p.entry(round).copied())
        .expect("an entry")
}

fn rank_of(t: &spb::Tournament, player: i64) -> u32 {
    t.entrants
        .iter()
        .find(|e| e.player_id == player)
        .map(|e| e.start_rank)
        .expect("entered")
}

/// An over-the-board Swiss: results typed in are played games (rated, `1`/`=`/`0` in the TRF),
/// with no live game or clock on the server; a correction before the next round is paired and
/// one after it change the board, the game, the TRF, the standings and the ratings, the
/// pairings made standing; a correction to a forfeit takes the rating back.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn over_the_board_results_are_rated_and_corrections_follow_everywhere() {
    for db in databases().await {
        let (url, shutdown) = hanniball_e2e::all_services(&db).await;
        let mut a = admin(&url).await;
        let players = a.players("otb", 4).await;
        let id = a.create(settings("Club night", true), &players).await;
        let t = a.tournament(id).await;
        assert!(t.settings.as_ref().expect("settings").over_the_board);
        assert_eq!(t.boards.len(), 2);
        // No game runs on the server while the boards are played.
        assert!(t.boards.iter().all(|b| b.game_id == 0), "{t:?}");
        let r1 = t.boards.clone();
        let b1 = a.result(id, 1, 1, "1-0").await;
        let b2 = a.result(id, 1, 2, "1/2-1/2").await;
        // The same result again (a form sent twice) changes nothing; another is refused with
        // the way out, and nothing changes.
        let again = a.result(id, 1, 1, "1-0").await;
        assert_eq!(again, b1);
        let refused = a
            .sched
            .set_result(spb::SetResultRequest {
                tournament_id: id,
                round: 1,
                board: 1,
                result: "0-1".to_owned(),
            })
            .await
            .expect_err("a board with a result is corrected, not re-entered");
        assert_eq!(refused.code(), Code::FailedPrecondition);
        assert!(
            refused.message().contains("tournament correct"),
            "{refused:?}"
        );
        for board in [&b1, &b2] {
            assert!(
                board.game_id > 0,
                "the result is recorded as a game: {board:?}"
            );
            let game = a.game(board.game_id).await;
            assert!(game.over_the_board);
            let state = game.state.expect("state");
            assert_eq!(state.next_turn_number, 1, "no turn stored");
            let result = state.result.expect("over");
            assert_eq!(result.reason(), pb::EndReason::OverTheBoard);
            assert_eq!(
                state.clocks.expect("clocks").running(),
                pb::Side::Unspecified
            );
        }
        // Rated once each: 1-0 at 2000 against 1990 (table 8.1.2) and a draw.
        let white1 = a
            .rating_until(r1[0].white_player_id, |r| r.games == 1)
            .await;
        let black1 = a
            .rating_until(r1[0].black_player_id, |r| r.games == 1)
            .await;
        assert!(white1.rating > 1500.0 && black1.rating < 1500.0);
        assert_eq!((white1.wins, black1.losses), (1, 1));
        let drawn = a
            .rating_until(r1[1].white_player_id, |r| r.games == 1)
            .await;
        assert_eq!(drawn.draws, 1);
        let trf = a.trf(id).await;
        let t = a.tournament(id).await;
        assert!(matches!(
            entry(&trf, rank_of(&t, r1[0].white_player_id), 1),
            hanniball_pairing::RoundEntry::Game {
                result: hanniball_pairing::GameResult::Win,
                rated: true,
                ..
            }
        ));
        // Correction before the next round is paired: 1-0 was 0-1.
        let corrected = a.correct(id, 1, 1, "0-1").await.expect("correct");
        let record = corrected.correction.expect("a correction");
        assert_eq!(
            (record.previous.as_str(), record.result.as_str()),
            ("1-0", "0-1")
        );
        assert!(!record.after_pairing);
        assert_eq!(corrected.board.expect("board").result, "0-1");
        // Sent twice: nothing more.
        let twice = a.correct(id, 1, 1, "0-1").await.expect("same");
        assert!(twice.correction.is_none());
        let game = a.game(b1.game_id).await;
        assert_eq!(game.corrections, 1);
        let result = game.state.expect("state").result.expect("result");
        assert_eq!(
            (result.outcome(), result.reason()),
            (pb::Outcome::BlackWins, pb::EndReason::OverTheBoard)
        );
        // The ratings: the win taken back, the loss rated; one game each still.
        let white = a
            .rating_until(r1[0].white_player_id, |r| r.losses == 1)
            .await;
        let black = a.rating_until(r1[0].black_player_id, |r| r.wins == 1).await;
        assert_eq!((white.games, white.wins), (1, 0));
        assert_eq!((black.games, black.losses), (1, 0));
        assert!(
            white.rating < 1500.0 && black.rating > 1500.0,
            "{white:?} {black:?}"
        );
        assert_eq!(
            white.rating + black.rating,
            3000.0,
            "Elo changes of one game are symmetric here (K 40 both, provisional)"
        );
        let trf = a.trf(id).await;
        assert!(matches!(
            entry(&trf, rank_of(&t, r1[0].white_player_id), 1),
            hanniball_pairing::RoundEntry::Game {
                result: hanniball_pairing::GameResult::Loss,
                rated: true,
                ..
            }
        ));
        let points = a.points(id).await;
        let of = |p: i64| {
            points
                .iter()
                .find(|(id, _)| *id == p)
                .expect("standing")
                .1
                .clone()
        };
        assert_eq!(of(r1[0].white_player_id), "0");
        assert_eq!(of(r1[0].black_player_id), "1");
        // Round 2 is paired from the corrected standings, then a round-1 result is corrected
        // again: the pairings made stand.
        a.sched
            .pair_next_round(spb::PairNextRoundRequest { tournament_id: id })
            .await
            .expect("pair round 2");
        let t = a.tournament(id).await;
        let r2: Vec<spb::Board> = t.boards.iter().filter(|b| b.round == 2).cloned().collect();
        assert_eq!(r2.len(), 2);
        let corrected = a
            .correct(id, 1, 2, "+/-")
            .await
            .expect("correct after pairing");
        assert!(corrected.correction.expect("record").after_pairing);
        let t2 = a.tournament(id).await;
        let r2_after: Vec<spb::Board> =
            t2.boards.iter().filter(|b| b.round == 2).cloned().collect();
        assert_eq!(r2, r2_after, "the pairings made stand");
        // A forfeit is not a played game: the draw's rating is taken back.
        let white = a
            .rating_until(r1[1].white_player_id, |r| r.games == 0)
            .await;
        let black = a
            .rating_until(r1[1].black_player_id, |r| r.games == 0)
            .await;
        assert_eq!((white.rating, black.rating), (1500.0, 1500.0));
        let trf = a.trf(id).await;
        assert!(matches!(
            entry(&trf, rank_of(&t2, r1[1].white_player_id), 1),
            hanniball_pairing::RoundEntry::Forfeit { won: true, .. }
        ));
        // The record lists both, oldest first, with who and why.
        let record = t2.corrections;
        assert_eq!(record.len(), 2, "{record:?}");
        assert_eq!((record[0].round, record[0].board), (1, 1));
        assert_eq!((record[1].round, record[1].board), (1, 2));
        assert!(
            record
                .iter()
                .all(|c| c.by == "admin" && c.note.contains("misread"))
        );
        // The rating history says what happened.
        let history = a
            .rating
            .history(rpb::HistoryRequest {
                player: Some(rpb::PlayerRef {
                    player: Some(rpb::player_ref::Player::Id(r1[0].white_player_id)),
                }),
                ..Default::default()
            })
            .await
            .expect("history")
            .into_inner()
            .points;
        let kinds: Vec<rpb::PointKind> = history.iter().map(|p| p.kind()).collect();
        assert!(kinds.contains(&rpb::PointKind::Correction), "{history:?}");
        // A rebuild replays corrections to the same ratings.
        let report = a
            .rating
            .rebuild(rpb::RebuildRequest::default())
            .await
            .expect("rebuild")
            .into_inner();
        assert!(report.matched, "{report:?}");
        // Refusals change nothing: an unknown result, a board with none, a round not paired.
        for (round, board, result, code) in [
            (1, 1, "2-0", Code::InvalidArgument),
            (2, 1, "1-0", Code::FailedPrecondition),
            (3, 1, "1-0", Code::FailedPrecondition),
            (1, 9, "1-0", Code::NotFound),
        ] {
            let refused = a
                .correct(id, round, board, result)
                .await
                .expect_err("refused");
            assert_eq!(
                refused.code(),
                code,
                "{round}.{board} {result}: {refused:?}"
            );
        }
        assert_eq!(a.tournament(id).await.corrections.len(), 2);
        shutdown.cancel();
    }
}

/// Online, the game is the truth: a played game's result corrected takes its rating back and
/// rates the new result; a game nobody moved in stays unrated whatever it is corrected to.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_online_result_corrected_changes_the_game_and_its_rating_once() {
    for db in databases().await {
        let (url, shutdown) = hanniball_e2e::all_services(&db).await;
        let mut a = admin(&url).await;
        let channel = Channel::from_shared(url.clone())
            .expect("url")
            .connect()
            .await
            .expect("connect");
        let mut accounts = AccountsClient::with_interceptor(channel, Bearer::new(ADMIN_TOKEN));
        // Timed and untimed games alike.
        for timed in [true, false] {
            let mut players = Vec::new();
            let mut tokens = std::collections::BTreeMap::new();
            for i in 0..4 {
                let (id, token) =
                    hanniball_e2e::register_bot(&mut accounts, &format!("online-{timed}-{i}"))
                        .await;
                players.push(id);
                tokens.insert(id, token);
            }
            let mut kind = settings(&format!("Online {timed}"), false);
            if !timed {
                kind.time_control = None;
            }
            let id = a.create(kind, &players).await;
            let mut t = a.tournament(id).await;
            for _ in 0..200 {
                if t.boards.iter().all(|b| b.game_id > 0) {
                    break;
                }
                tokio::time::sleep(Duration::from_millis(20)).await;
                t = a.tournament(id).await;
            }
            let board = t.boards[0].clone();
            let arbiter = |token: &str| {
                let url = url.clone();
                let token = token.to_owned();
                async move {
                    let channel = Channel::from_shared(url)
                        .expect("url")
                        .connect()
                        .await
                        .expect("connect");
                    ArbiterClient::with_interceptor(channel, Bearer::new(&token))
                }
            };
            let mut white = arbiter(&tokens[&board.white_player_id]).await;
            let mut black = arbiter(&tokens[&board.black_player_id]).await;
            hanniball_e2e::both_move(&mut white, &mut black, board.game_id).await;
            a.result(id, 1, 1, "1-0").await;
            a.rating_until(board.white_player_id, |r| r.games == 1 && r.wins == 1)
                .await;
            // Player actions on the finished game change nothing; the organiser corrects it.
            let corrected = a.correct(id, 1, 1, "1/2-1/2").await.expect("correct");
            assert_eq!(corrected.board.expect("board").result, "1/2-1/2");
            let white_r = a
                .rating_until(board.white_player_id, |r| r.draws == 1)
                .await;
            let black_r = a
                .rating_until(board.black_player_id, |r| r.draws == 1)
                .await;
            // Equal ratings: the win taken back exactly, and a draw between equals moves nothing.
            assert_eq!(
                (white_r.games, white_r.wins, white_r.rating),
                (1, 0, 1500.0)
            );
            assert_eq!(
                (black_r.games, black_r.losses, black_r.rating),
                (1, 0, 1500.0)
            );
            let game = a.game(board.game_id).await;
            let result = game.state.expect("state").result.expect("result");
            assert_eq!(
                (result.outcome(), result.reason()),
                (pb::Outcome::Draw, pb::EndReason::Adjudication)
            );
            // The arbiter refuses a correction of a game that is on, and a player's.
            let board2 = t.boards[1].clone();
            let on = a
                .arbiter
                .correct_result(pb::CorrectResultRequest {
                    game_id: board2.game_id,
                    outcome: pb::Outcome::WhiteWins as i32,
                    ..Default::default()
                })
                .await
                .expect_err("a game that is on is adjudicated");
            assert_eq!(on.code(), Code::FailedPrecondition, "{on:?}");
            let mut player = arbiter(&tokens[&board.white_player_id]).await;
            let denied = player
                .correct_result(pb::CorrectResultRequest {
                    game_id: board.game_id,
                    outcome: pb::Outcome::WhiteWins as i32,
                    ..Default::default()
                })
                .await
                .expect_err("admin only");
            assert_eq!(denied.code(), Code::PermissionDenied, "{denied:?}");
            // Board 2: nobody moved, the organiser enters 1-0 (a short game, unrated); corrected
            // to 0-1 it stays unrated.
            a.result(id, 1, 2, "1-0").await;
            a.correct(id, 1, 2, "0-1").await.expect("correct");
            tokio::time::sleep(Duration::from_millis(300)).await;
            assert!(
                a.rating(board2.white_player_id)
                    .await
                    .is_none_or(|r| r.games == 0)
            );
        }
        shutdown.cancel();
    }
}

/// An export while a round is played writes the whole round as programs save mid-round: its
/// bye and finished game with their results, the game still on with a blank result; read back,
/// it is an unfinished round that `swiss pair` will not pair past.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_export_mid_round_writes_the_round_whole() {
    let db = databases().await.remove(0);
    let (url, shutdown) = hanniball_e2e::all_services(&db).await;
    let mut a = admin(&url).await;
    let players = a.players("mid", 5).await;
    let id = a.create(settings("Mid-round", true), &players).await;
    let t = a.tournament(id).await;
    let games: Vec<&spb::Board> = t
        .boards
        .iter()
        .filter(|b| b.kind() == spb::BoardKind::Game)
        .collect();
    assert_eq!(games.len(), 2);
    a.result(id, 1, games[0].number, "1-0").await;
    let text = a
        .sched
        .export_trf(spb::ExportTrfRequest { tournament_id: id })
        .await
        .expect("trf")
        .into_inner()
        .trf;
    let file = hanniball_pairing::trf::read(
        text.as_bytes(),
        &hanniball_pairing::trf::ReadOptions::default(),
    )
    .expect("the export reads");
    let unfinished = file.unfinished.clone().expect("round 1 under way");
    assert_eq!(unfinished.round, 1);
    assert_eq!(
        unfinished.games,
        vec![(
            hanniball_pairing::StartRank(rank_of(&t, games[1].white_player_id)),
            hanniball_pairing::StartRank(rank_of(&t, games[1].black_player_id)),
        )],
        "{text}"
    );
    // The bye and the finished game are there, with their points.
    let bye = t
        .boards
        .iter()
        .find(|b| b.kind() == spb::BoardKind::PairingBye)
        .expect("a bye");
    assert_eq!(
        entry(&file.tournament, rank_of(&t, bye.white_player_id), 1),
        hanniball_pairing::RoundEntry::PairingBye
    );
    assert!(matches!(
        entry(&file.tournament, rank_of(&t, games[0].white_player_id), 1),
        hanniball_pairing::RoundEntry::Game { .. }
    ));
    let refused = hanniball_pairing::trf::parse(&text).expect_err("not paired past");
    assert!(
        refused.to_string().contains("enter the results"),
        "{refused}"
    );
    shutdown.cancel();
}

/// A Swiss started elsewhere: bbpPairings' tournaments and a Vega file, cut back before their
/// last round, are imported with their players, ratings and results, and the next round the
/// server pairs is the one the engine pairs from the file (and bbpPairings paired).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_tournament_imported_from_a_trf_file_pairs_on_as_the_file() {
    let data = concat!(env!("CARGO_MANIFEST_DIR"), "/../crates/pairing/tests/data/");
    let files = [
        "bbp/dutch-p10-r7-s1002.trf",
        "bbp/dutch-p13-r10-s3040.trf",
        "bbp/dutch-p21-r10-s1012.trf",
        "real/vega-sample-after-round-4.trf",
        "real/fide-c07-exercise-r9.trf",
    ];
    let db = databases().await.remove(0);
    let (url, shutdown) = hanniball_e2e::all_services(&db).await;
    let mut a = admin(&url).await;
    for (n, file) in files.iter().enumerate() {
        let bytes = std::fs::read(format!("{data}{file}")).expect("the file");
        let read =
            hanniball_pairing::trf::read(&bytes, &hanniball_pairing::trf::ReadOptions::default())
                .expect("reads");
        let mut cut = read.tournament.clone();
        let played = cut.rounds_paired() - 1;
        for p in &mut cut.players {
            p.entries.truncate(played as usize);
            p.withdrawn_from = p.withdrawn_from.filter(|r| *r <= played + 1);
        }
        let text = hanniball_pairing::trf::write(&cut).expect("writes");
        let players = a.players(&format!("imp{n}"), cut.players.len()).await;
        let import = |accept: bool| spb::ImportTournamentRequest {
            settings: Some(spb::TournamentSettings {
                name: format!("Imported {n}"),
                manual_pairing: true,
                ..Default::default()
            }),
            trf: text.clone(),
            player_ids: players.clone(),
            accept_differences: accept,
        };
        let answer = match a.sched.import_tournament(import(false)).await {
            Ok(answer) => answer,
            // A file whose own rounds are not the engine's (Vega's round 5, FIDE's exercise):
            // refused with the rounds named, then taken as it stands when asked.
            Err(status) => {
                assert_eq!(
                    status.code(),
                    Code::FailedPrecondition,
                    "{file}: {status:?}"
                );
                assert!(
                    status.message().contains("swiss check --strict"),
                    "{status:?}"
                );
                a.sched.import_tournament(import(true)).await.expect(file)
            }
        };
        let t = answer.into_inner().tournament.expect("tournament");
        assert_eq!(t.current_round, played, "{file}");
        assert_eq!(t.entrants.len(), cut.players.len());
        // Its TRF has the same results.
        let exported = a.trf(t.id).await;
        for (p, q) in cut.players.iter().zip(&exported.players) {
            assert_eq!(p.entries, q.entries, "{file}: player {}", p.id);
            assert_eq!(cut.score(p.id), exported.score(q.id), "{file}");
        }
        let expected = hanniball_pairing::pair_next_round(
            &cut,
            &hanniball_pairing::DutchOptions::for_tournament(&cut),
        );
        let paired = a
            .sched
            .pair_next_round(spb::PairNextRoundRequest {
                tournament_id: t.id,
            })
            .await;
        let Ok(expected) = expected else {
            assert!(
                paired.is_err(),
                "{file}: the engine cannot pair it, the server did"
            );
            continue;
        };
        let t = paired
            .expect(file)
            .into_inner()
            .tournament
            .expect("tournament");
        let rank = |id: i64| {
            hanniball_pairing::StartRank(
                players.iter().position(|p| *p == id).expect("a player") as u32 + 1,
            )
        };
        let mut got: Vec<(hanniball_pairing::StartRank, hanniball_pairing::StartRank)> = t
            .boards
            .iter()
            .filter(|b| b.round == played + 1 && b.kind() == spb::BoardKind::Game)
            .map(|b| (rank(b.white_player_id), rank(b.black_player_id)))
            .collect();
        let mut want = expected.boards.clone();
        got.sort();
        want.sort();
        assert_eq!(got, want, "{file}");
        let bye = t
            .boards
            .iter()
            .find(|b| b.round == played + 1 && b.kind() == spb::BoardKind::PairingBye)
            .map(|b| rank(b.white_player_id));
        assert_eq!(bye, expected.bye, "{file}");
    }
    // Refusals create nothing: too few players named, an unfinished round, a malformed file.
    let before = a
        .sched
        .list_tournaments(spb::ListTournamentsRequest::default())
        .await
        .expect("list")
        .into_inner()
        .tournaments
        .len();
    for (trf, ids, code) in [
        (
            "001    1      Alpha                             1500                             0.0    1\n001    2      Bravo                             1500                             0.0    2\nXXR 3\n",
            vec![1],
            Code::InvalidArgument,
        ),
        ("garbage\n", vec![], Code::InvalidArgument),
    ] {
        let refused = a
            .sched
            .import_tournament(spb::ImportTournamentRequest {
                trf: trf.to_owned(),
                player_ids: ids,
                ..Default::default()
            })
            .await
            .expect_err("refused");
        assert_eq!(refused.code(), code, "{refused:?}");
    }
    let after = a
        .sched
        .list_tournaments(spb::ListTournamentsRequest::default())
        .await
        .expect("list")
        .into_inner()
        .tournaments
        .len();
    assert_eq!(before, after);
    shutdown.cancel();
}

/// The last result of a round after which no round can be paired (four players, a fourth round)
/// is stored and answered as any result; pairing the next round is what says why it cannot.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_result_stands_when_the_next_round_cannot_be_paired() {
    let db = databases().await.remove(0);
    let (url, shutdown) = hanniball_e2e::all_services(&db).await;
    let mut a = admin(&url).await;
    let players = a.players("stuck", 4).await;
    let mut auto = settings("Four of four", true);
    auto.rounds = 4;
    auto.manual_pairing = false;
    let id = a.create(auto, &players).await;
    for round in 1..=3 {
        let t = a.tournament(id).await;
        assert_eq!(t.current_round, round, "{t:?}");
        for board in t.boards.iter().filter(|b| b.round == round) {
            let stored = a.result(id, round, board.number, "1/2-1/2").await;
            assert_eq!(stored.result, "1/2-1/2");
        }
    }
    let t = a.tournament(id).await;
    assert_eq!(t.current_round, 3, "no fourth round: every pair has played");
    assert!(t.boards.iter().all(|b| b.round < 4));
    let refused = a
        .sched
        .pair_next_round(spb::PairNextRoundRequest { tournament_id: id })
        .await
        .expect_err("cannot be paired");
    assert_eq!(refused.code(), Code::FailedPrecondition, "{refused:?}");
    shutdown.cancel();
}
