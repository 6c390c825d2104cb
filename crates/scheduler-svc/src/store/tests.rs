//! The scheduler tables on every database (SQLite, and PostgreSQL when configured): every change
//! of a tournament, its entrants, bye requests or boards bumps the tournament's version, and a
//! step that changes nothing leaves it, so a scheduler's copy of a tournament is current exactly
//! while the version it read is.

use hanniball_db::{search, testing};
use hanniball_ids::{GameId, PlayerId};
use sea_orm::ConnectionTrait;

use super::Store;
use crate::details::Details;
use crate::domain::{
    Board, BoardKind, BoardResult, ByeRequest, Entrant, System, Tournament, TournamentStatus,
};

fn tournament() -> Tournament {
    Tournament {
        id: 0,
        name: "Versioned".to_owned(),
        kind: hanniball_rules::GameKind::HanniBall,
        ruleset: String::new(),
        system: System::Swiss,
        rounds: 3,
        time_control: None,
        max_turns: 0,
        rated: false,
        bye_points: 2,
        tiebreaks: Vec::new(),
        tiebreak_options: hanniball_pairing::tiebreak::Options::default(),
        initial_colour: hanniball_pairing::Colour::White,
        forfeit_withdraws: false,
        auto_pair: true,
        self_entry: false,
        late_self_entry: false,
        status: TournamentStatus::Registration,
        current_round: 0,
        created_at: hanniball_ids::Timestamp(1),
        over_the_board: false,
        details: Details::default(),
    }
}

/// A new game board of round `round`.
fn game(tournament_id: i64, round: i32, number: i32, white: i64, black: i64) -> Board {
    Board {
        tournament_id,
        round,
        number,
        white: PlayerId(white),
        kind: BoardKind::Game {
            black: PlayerId(black),
        },
        game: None,
        result: None,
        corrected: false,
        short: false,
    }
}

fn entrant(tournament_id: i64, player: i64) -> Entrant {
    Entrant {
        tournament_id,
        player: PlayerId(player),
        start_rank: None,
        rating: 1500,
        joined_round: 1,
        withdrawn_from: None,
    }
}

/// A tournament reads back as it was stored, every setting typed.
#[tokio::test]
async fn a_tournament_reads_back_as_stored() {
    for url in testing::all_urls().await {
        let store = Store::connect(&url).await.expect("connect");
        let mut t = Tournament {
            name: "Round trip".to_owned(),
            kind: hanniball_rules::GameKind::PaperFootball,
            ruleset: "standard".to_owned(),
            system: System::DoubleRoundRobin,
            time_control: Some(hanniball_ids::TimeControl {
                initial_ms: 60_000,
                increment_ms: 2_000,
            }),
            max_turns: 80,
            bye_points: 1,
            tiebreaks: vec![
                "SB".parse().expect("a tie-break"),
                "BH-C1".parse().expect("a tie-break"),
            ],
            tiebreak_options: hanniball_pairing::tiebreak::Options {
                rules: hanniball_pairing::tiebreak::Rules::Fide2024,
                unrated: hanniball_pairing::tiebreak::Unrated::Rating(1400),
            },
            initial_colour: hanniball_pairing::Colour::Black,
            ..tournament()
        };
        t.id = store.create_tournament(&t, None).await.expect("create");
        assert_eq!(
            store.tournament(t.id).await.expect("read"),
            Some(t),
            "{url}"
        );
    }
}

#[tokio::test]
async fn every_change_of_a_tournament_bumps_its_version_and_nothing_else_does() {
    for url in testing::all_urls().await {
        let store = Store::connect(&url).await.expect("connect");
        // The scheduler keeps player ids only (Accounts knows the players).
        let players = vec![PlayerId(1), PlayerId(2), PlayerId(3)];
        let id = store
            .create_tournament(&tournament(), None)
            .await
            .expect("create");
        let other = store
            .create_tournament(&tournament(), None)
            .await
            .expect("create another");
        assert_eq!(store.tournament_version(999_999).await.expect("read"), None);
        let mut expected = store.tournament_version(id).await.expect("read");
        assert!(expected.is_some());
        let mut step = |changed: bool, what: &str, now: Option<i64>| {
            if changed {
                expected = expected.map(|v| v + 1);
            }
            assert_eq!(now, expected, "{url}: after {what}");
        };
        let entrant = |player: PlayerId| entrant(id, player.0);
        for p in &players {
            store.add_entrant(&entrant(*p)).await.expect("add");
            step(
                true,
                "an entry",
                store.tournament_version(id).await.unwrap(),
            );
        }
        assert!(store.add_entrant(&entrant(players[0])).await.is_err());
        step(
            false,
            "a refused entry",
            store.tournament_version(id).await.unwrap(),
        );
        let bye = ByeRequest {
            tournament_id: id,
            player: players[2],
            round: 2,
            half_point: true,
        };
        store.request_bye(&bye).await.expect("bye");
        step(
            true,
            "a bye request",
            store.tournament_version(id).await.unwrap(),
        );
        assert!(store.remove_entrant(id, players[2]).await.expect("remove"));
        step(
            true,
            "a removal",
            store.tournament_version(id).await.unwrap(),
        );
        assert!(
            !store
                .remove_entrant(id, players[2])
                .await
                .expect("remove again")
        );
        step(
            false,
            "removing nobody",
            store.tournament_version(id).await.unwrap(),
        );
        let board = game(id, 1, 1, players[0].0, players[1].0);
        store
            .store_round(id, 1, &[(players[0], 1), (players[1], 2)], &[board])
            .await
            .expect("round 1");
        step(true, "a round", store.tournament_version(id).await.unwrap());
        assert!(store.store_round(id, 1, &[], &[]).await.is_err());
        step(
            false,
            "a round stored twice",
            store.tournament_version(id).await.unwrap(),
        );
        let version = store
            .set_board_games(id, &[(1, 1, GameId(7))])
            .await
            .expect("game");
        assert_eq!(Some(version), store.tournament_version(id).await.unwrap());
        step(
            true,
            "a board's game",
            store.tournament_version(id).await.unwrap(),
        );
        assert_eq!(
            store
                .set_board_result(id, 1, 1, BoardResult::WhiteWins, false, false)
                .await
                .expect("result"),
            Some(version + 1),
            "the new version"
        );
        step(
            true,
            "a result",
            store.tournament_version(id).await.unwrap(),
        );
        assert!(
            store
                .set_board_result(id, 1, 1, BoardResult::BlackWins, false, false)
                .await
                .expect("result again")
                .is_none()
        );
        step(
            false,
            "a result arriving twice",
            store.tournament_version(id).await.unwrap(),
        );
        assert!(
            store
                .set_board_result(id, 1, 1, BoardResult::BlackWins, false, true)
                .await
                .expect("correction")
                .is_some()
        );
        step(
            true,
            "a correction",
            store.tournament_version(id).await.unwrap(),
        );
        assert!(
            store
                .withdraw_entrant(id, players[1], 2)
                .await
                .expect("withdraw")
        );
        step(
            true,
            "a withdrawal",
            store.tournament_version(id).await.unwrap(),
        );
        assert!(store.finish_tournament(id).await.expect("finish"));
        step(true, "the end", store.tournament_version(id).await.unwrap());
        assert!(!store.finish_tournament(id).await.expect("finish again"));
        step(
            false,
            "ending twice",
            store.tournament_version(id).await.unwrap(),
        );
        // Another tournament's changes are not this one's.
        assert_eq!(
            store.tournament_version(other).await.expect("read"),
            Some(0)
        );
    }
}

/// A round of a 10,000-player Swiss (5,000 boards: more bound values than SQLite takes in one
/// statement) is stored whole, and read back in order.
#[tokio::test]
async fn a_round_of_five_thousand_boards_is_stored_whole() {
    for url in testing::all_urls().await {
        let store = Store::connect(&url).await.expect("connect");
        let id = store
            .create_tournament(&tournament(), None)
            .await
            .expect("create");
        let rows: Vec<Board> = (1..=5_000)
            .map(|board| game(id, 1, board, i64::from(board) * 2, i64::from(board) * 2 + 1))
            .collect();
        store.store_round(id, 1, &[], &rows).await.expect("stored");
        let stored = store.boards(id).await.expect("read");
        assert_eq!(stored, rows);
    }
}

/// Start ranks and the games of boards are written a few hundred a statement: every entrant
/// gets its own rank and every board its own game, across statements and rounds.
#[tokio::test]
async fn start_ranks_and_board_games_are_written_in_batches() {
    for url in testing::all_urls().await {
        let store = Store::connect(&url).await.expect("connect");
        let id = store
            .create_tournament(&tournament(), None)
            .await
            .expect("create");
        let players: Vec<i64> = (1..=1_202).collect();
        assert_eq!(players.len(), 1_202);
        let entrants: Vec<Entrant> = players.iter().map(|&p| entrant(id, p)).collect();
        store.add_entrants(&entrants).await.expect("entrants");
        // Ranks in reverse order of registration.
        let ranks: Vec<(PlayerId, i32)> = players
            .iter()
            .rev()
            .zip(1..)
            .map(|(&p, rank)| (PlayerId(p), rank))
            .collect();
        let round = |round: i32| -> Vec<Board> {
            players
                .chunks(2)
                .zip(1..)
                .map(|(pair, board)| game(id, round, board, pair[0], pair[1]))
                .collect()
        };
        store
            .store_round(id, 1, &ranks, &round(1))
            .await
            .expect("1");
        store.store_round(id, 2, &[], &round(2)).await.expect("2");
        for entrant in store.entrants(id).await.expect("entrants") {
            let rank = ranks.iter().find(|(p, _)| *p == entrant.player);
            assert_eq!(entrant.start_rank, rank.map(|(_, r)| *r), "{url}");
        }
        // Games for both rounds in one call, round 2 first, boards in reverse.
        let game = |round: i32, board: i32| GameId(i64::from(round) * 10_000 + i64::from(board));
        let games: Vec<(i32, i32, GameId)> = [2, 1]
            .into_iter()
            .flat_map(|r| (1..=601).rev().map(move |b| (r, b, game(r, b))))
            .collect();
        store.set_board_games(id, &games).await.expect("games");
        let boards = store.boards(id).await.expect("boards");
        assert_eq!(boards.len(), 1_202);
        for board in boards {
            assert_eq!(
                board.game,
                Some(game(board.round, board.number)),
                "{url}: round {} board {}",
                board.round,
                board.number
            );
        }
    }
}

/// Tournaments found by the words of their names, case ignored in any script, newest first;
/// wildcards match only themselves; a status narrows the search; no words: every tournament.
#[tokio::test]
async fn tournaments_are_found_by_words_of_their_names() {
    for url in testing::all_urls().await {
        let store = Store::connect(&url).await.expect("connect");
        for name in [
            "Riverside Open",
            "Zoë's ÜNAL Memorial",
            "Open 100%",
            "Kraków Open_Blitz",
            "北京 Cup",
        ] {
            let row = Tournament {
                name: name.to_owned(),
                ..tournament()
            };
            store.create_tournament(&row, None).await.expect(name);
        }
        let found = |query: &'static str, status| {
            let store = store.clone();
            async move {
                store
                    .tournaments(status, &search::Words::new(query), None, 50)
                    .await
                    .expect("search")
                    .into_iter()
                    .map(|t| t.name)
                    .collect::<Vec<_>>()
            }
        };
        let cases: &[(&str, &[&str])] = &[
            (
                "open",
                &["Kraków Open_Blitz", "Open 100%", "Riverside Open"],
            ),
            ("OPEN riverside", &["Riverside Open"]),
            ("ünal memorial", &["Zoë's ÜNAL Memorial"]),
            ("kraków", &["Kraków Open_Blitz"]),
            ("北京", &["北京 Cup"]),
            ("%", &["Open 100%"]),
            ("_", &["Kraków Open_Blitz"]),
            ("open nowhere", &[]),
        ];
        for (query, expected) in cases {
            assert_eq!(found(query, None).await, *expected, "{url}: {query:?}");
        }
        assert_eq!(found("", None).await.len(), 5, "{url}");
        // A key left empty (a tournament created by a binary from before the keys, as the
        // migration finds them all) is filled in when the store opens.
        store
            .db()
            .connection()
            .execute_unprepared("UPDATE tournaments SET search_key = ''")
            .await
            .expect("keys emptied");
        assert!(found("riverside", None).await.is_empty(), "{url}");
        let store = Store::connect(&url).await.expect("reopens");
        let names = store
            .tournaments(None, &search::Words::new("riverside"), None, 50)
            .await
            .expect("search");
        assert_eq!(names.len(), 1, "{url}: {names:?}");
        assert!(
            found("open", Some(TournamentStatus::Running))
                .await
                .is_empty(),
            "{url}"
        );
        assert_eq!(
            found("open", Some(TournamentStatus::Registration))
                .await
                .len(),
            3,
            "{url}"
        );
    }
}

#[tokio::test]
async fn a_players_tournaments_are_those_it_entered_withdrawn_or_not() {
    for url in testing::all_urls().await {
        let store = Store::connect(&url).await.expect("connect");
        let mut ids = Vec::new();
        for _ in 0..3 {
            ids.push(
                store
                    .create_tournament(&tournament(), None)
                    .await
                    .expect("create"),
            );
        }
        let enter = |tournament_id: i64, player: i64, withdrawn_from: Option<i32>| Entrant {
            withdrawn_from,
            ..entrant(tournament_id, player)
        };
        for row in [
            enter(ids[0], 7, None),
            enter(ids[1], 8, None),
            enter(ids[2], 7, Some(2)),
            enter(ids[2], 8, None),
        ] {
            store.add_entrant(&row).await.expect("enter");
        }
        let of = |player: Option<i64>, limit: u64| {
            let store = store.clone();
            async move {
                store
                    .tournaments(None, &search::Words::default(), player.map(PlayerId), limit)
                    .await
                    .expect("list")
                    .into_iter()
                    .map(|t| t.id)
                    .collect::<Vec<_>>()
            }
        };
        assert_eq!(of(Some(7), 50).await, [ids[2], ids[0]], "{url}");
        assert_eq!(of(Some(8), 50).await, [ids[2], ids[1]], "{url}");
        assert_eq!(of(Some(8), 1).await, [ids[2]], "{url}: the limit holds");
        assert!(of(Some(9), 50).await.is_empty(), "{url}");
        assert_eq!(of(None, 50).await.len(), 3, "{url}");
    }
}

#[tokio::test]
async fn organisers_are_kept_per_tournament_and_go_with_a_deleted_one() {
    for url in testing::all_urls().await {
        let store = Store::connect(&url).await.expect("connect");
        let (olga, petra) = (PlayerId(7), PlayerId(8));
        let id = store
            .create_tournament(&tournament(), Some(olga))
            .await
            .expect("create");
        let admins = store
            .create_tournament(&tournament(), None)
            .await
            .expect("the admin's");
        assert!(store.is_organiser(id, olga).await.expect("q"));
        assert!(!store.is_organiser(id, petra).await.expect("q"));
        assert!(!store.is_organiser(admins, olga).await.expect("q"));
        let organisers = store.organisers(&[id, admins]).await.expect("q");
        assert_eq!(organisers.get(&id), Some(&vec![olga]));
        assert_eq!(organisers.get(&admins), None, "the admin's alone");

        assert_eq!(
            store.add_organiser(id, petra).await.expect("add"),
            Some(true)
        );
        assert_eq!(
            store.add_organiser(id, petra).await.expect("again"),
            Some(false)
        );
        assert_eq!(
            store.add_organiser(999_999, petra).await.expect("unknown"),
            None,
            "no row for a tournament that does not exist"
        );
        assert!(!store.is_organiser(999_999, petra).await.expect("q"));
        assert_eq!(
            store.organisers(&[id]).await.expect("q").get(&id),
            Some(&vec![olga, petra])
        );
        assert!(store.remove_organiser(id, olga).await.expect("remove"));
        assert!(!store.remove_organiser(id, olga).await.expect("again"));
        assert!(!store.is_organiser(id, olga).await.expect("q"));
        assert!(store.is_organiser(id, petra).await.expect("q"));

        // Deleted before the start, with its entries and organisers; never after it.
        store.add_entrant(&entrant(id, 1)).await.expect("entrant");
        assert!(store.delete_tournament(id).await.expect("delete"));
        assert_eq!(store.tournament_version(id).await.expect("q"), None);
        assert!(store.entrants(id).await.expect("q").is_empty());
        assert!(!store.is_organiser(id, petra).await.expect("q"));
        assert!(!store.delete_tournament(id).await.expect("gone"));
        // Ids are never used again: a scheduler's cached copy or an organiser's row of a
        // deleted tournament never stands for a new one.
        let next = store
            .create_tournament(&tournament(), None)
            .await
            .expect("create");
        assert!(next > admins, "{next} after {admins}");
        assert!(!store.is_organiser(next, petra).await.expect("q"));

        store
            .store_round(admins, 1, &[], &[])
            .await
            .expect("started");
        assert!(!store.delete_tournament(admins).await.expect("started"));
        assert!(store.tournament_version(admins).await.expect("q").is_some());
    }
}

#[tokio::test]
async fn details_are_stored_once_and_the_same_again_changes_nothing() {
    for url in testing::all_urls().await {
        let store = Store::connect(&url).await.expect("connect");
        let id = store
            .create_tournament(&tournament(), None)
            .await
            .expect("create");
        let before = store.tournament_version(id).await.expect("read");
        let details = Details {
            place: "Lyon".to_owned(),
            chief_arbiter: "Anna <b>".to_owned(),
            ..Details::default()
        };
        let version = store.set_details(id, &details).await.expect("set");
        assert_eq!(version, before.map(|v| v + 1), "{url}");
        assert_eq!(
            store.tournament(id).await.unwrap().unwrap().details,
            details
        );
        assert_eq!(store.set_details(id, &details).await.expect("again"), None);
        assert_eq!(store.tournament_version(id).await.unwrap(), version);
        assert_eq!(
            store.set_details(999_999, &details).await.expect("none"),
            None
        );
        let none = Details::default();
        assert_eq!(
            store.set_details(id, &none).await.expect("clear"),
            version.map(|v| v + 1)
        );
        assert_eq!(store.tournament(id).await.unwrap().unwrap().details, none);
    }
}
