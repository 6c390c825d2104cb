//! The arbiter's store tests, on SQLite and (when configured) PostgreSQL.

use hanniball_arbiter::{Actor, Match, Reason, TimeControl, TurnPlan};
use hanniball_rules::GameOptions;

use hanniball_db::testing;

use super::*;
use hanniball_arbiter::{Clocks, FinalResult, GameId, PlayerId, Setup, Status, Stored, Timestamp};
use hanniball_rules::Side;

fn setup(white: PlayerId, black: PlayerId) -> Setup {
    Setup {
        kind: hanniball_rules::GameKind::HanniBall,
        options: GameOptions::default(),
        white,
        black,
        time_control: Some(TimeControl {
            initial_ms: 60_000,
            increment_ms: 1_000,
        }),
        rated: true,
        tag: "test".to_owned(),
        over_the_board: false,
    }
}

async fn new_game(store: &Store, white: PlayerId, black: PlayerId, key: Option<&str>) -> Match {
    let now = Timestamp(1_000);
    let probe = Match::new(GameId(0), setup(white, black), now).expect("setup");
    let id = store.insert_game(&probe, key).await.expect("insert game");
    Match::new(id, setup(white, black), now).expect("setup")
}

/// A player as the arbiter knows one: an id (Accounts knows the rest).
struct Bot {
    id: PlayerId,
}

/// Two players' ids, different for each name pair's use in a test.
async fn two_bots(_store: &Store, _first: &str, _second: &str) -> (Bot, Bot) {
    (Bot { id: PlayerId(1) }, Bot { id: PlayerId(2) })
}

async fn play(
    store: &Store,
    m: &mut Match,
    who: PlayerId,
    n: u32,
    text: &str,
    at: i64,
) -> Result<(), StoreError> {
    let TurnPlan::New(t) = m
        .plan_turn(Actor::Player(who), n, text, Timestamp(at))
        .expect("legal")
    else {
        panic!("not a new turn")
    };
    let write = Write::of(m, &t);
    store.commit(&[write]).await.remove(0)?;
    m.apply(t);
    Ok(())
}

#[tokio::test]
async fn games_turns_and_outbox_on_every_database() {
    for url in testing::all_urls().await {
        let store = Store::connect(&url).await.expect("connect");
        // Migrations are idempotent: connecting again is fine.
        let store2 = Store::connect(&url).await.expect("reconnect");

        let (alice, bob) = two_bots(&store, "alice", "bob").await;

        let mut m = new_game(&store, alice.id, bob.id, Some("key-1")).await;
        assert_eq!(
            store.game_by_idempotency_key("key-1").await.expect("q"),
            Some(m.id)
        );
        play(&store, &mut m, alice.id, 1, "d4-c6", 2_000)
            .await
            .expect("turn 1");
        play(&store, &mut m, bob.id, 2, "d12-c10", 3_000)
            .await
            .expect("turn 2");

        // A second writer that still believes the game is at turn 1 loses the race.
        let stale = store2.load_game(m.id).await.expect("q").expect("game");
        let mut other = Match::restore(Stored {
            turns: stale.turns[..1].to_vec(),
            ..stale.clone()
        })
        .expect("restore");
        let result = play(&store2, &mut other, bob.id, 2, "f12-e10", 3_500).await;
        assert!(matches!(result, Err(StoreError::Conflict(_))), "{result:?}");

        // Reload: identical history, clocks and position.
        let loaded = store.load_game(m.id).await.expect("q").expect("game");
        assert_eq!(loaded.turns, m.turns());
        assert_eq!(loaded.clocks.white_ms, m.clocks().white_ms);
        assert_eq!(loaded.clocks.black_ms, m.clocks().black_ms);
        assert_eq!(loaded.clocks.running, m.clocks().running);
        let back = Match::restore(loaded).expect("restore");
        assert_eq!(back.game().position(), m.game().position());
        assert_eq!(store.active_game_ids().await.expect("q"), vec![m.id]);

        // Several games in one batch.
        let mut g2 = new_game(&store, bob.id, alice.id, None).await;
        let mut g3 = new_game(&store, alice.id, bob.id, None).await;
        let TurnPlan::New(t2) = g2
            .plan_turn(Actor::Player(bob.id), 1, "b4-c6", Timestamp(4_000))
            .expect("ok")
        else {
            panic!()
        };
        let TurnPlan::New(t3) = g3
            .plan_turn(Actor::Player(alice.id), 1, "h4-g6", Timestamp(4_000))
            .expect("ok")
        else {
            panic!()
        };
        let writes = [Write::of(&g2, &t2), Write::of(&g3, &t3)];
        assert!(store.commit(&writes).await.iter().all(Result::is_ok));
        g2.apply(t2);
        g3.apply(t3);
        for g in [&g2, &g3] {
            let loaded = store.load_game(g.id).await.expect("q").expect("game");
            assert_eq!(loaded.turns, g.turns());
            assert_eq!(loaded.clocks, *g.clocks());
            let back = Match::restore(loaded).expect("restore");
            assert_eq!(back.game().position(), g.game().position());
        }

        // A batch with one stale write: the stale one is refused, the other is stored.
        let TurnPlan::New(t2) = g2
            .plan_turn(Actor::Player(alice.id), 2, "d12-c10", Timestamp(5_000))
            .expect("ok")
        else {
            panic!()
        };
        let TurnPlan::New(t3) = g3
            .plan_turn(Actor::Player(bob.id), 2, "d12-c10", Timestamp(5_000))
            .expect("ok")
        else {
            panic!()
        };
        // Stale: written by a copy of the game that has not seen turn 1 (so it is turn 1 again).
        let mut stale = Write::of(&g3, &t3);
        stale.expected_turns = 0;
        stale.turns_played = 1;
        if let Some(record) = &mut stale.record {
            record.number = 1;
        }
        let results = store.commit(&[Write::of(&g2, &t2), stale]).await;
        assert!(results[0].is_ok(), "{results:?}");
        assert!(
            matches!(results[1], Err(StoreError::Conflict(_))),
            "{results:?}"
        );
        g2.apply(t2);

        // Finishing writes the outbox, once.
        let t = m
            .plan_resign(Actor::Player(bob.id), Timestamp(5_000))
            .expect("resign");
        store
            .commit(&[Write::of(&m, &t)])
            .await
            .remove(0)
            .expect("resign stored");
        m.apply(t);
        let finished = store.results_after(0, 10).await.expect("q");
        assert_eq!(finished.len(), 1);
        assert_eq!(finished[0].game.id, m.id);
        assert_eq!(
            finished[0].game.result.map(|r| r.reason),
            Some(Reason::Resignation)
        );
        assert_eq!(
            store
                .results_after(finished[0].sequence, 10)
                .await
                .expect("q")
                .len(),
            0
        );
        assert_eq!(store.active_game_ids().await.expect("q").len(), 2);

        let listed = store
            .list_games(Some(alice.id), None, None, 10)
            .await
            .expect("q");
        assert_eq!(listed.len(), 3);
        assert!(listed.windows(2).all(|w| w[0].id > w[1].id), "newest first");
        let finished_games = store
            .list_games(None, Some(Status::Finished), None, 10)
            .await
            .expect("q");
        assert_eq!(finished_games.len(), 1);
        assert_eq!(store.turn_count().await.expect("q"), 5);
    }
}

#[tokio::test]
async fn new_games_share_a_group_commit_with_turns() {
    for url in testing::all_urls().await {
        let store = Store::connect(&url).await.expect("connect");
        let (ann, ben) = two_bots(&store, "ann", "ben").await;
        let m = new_game(&store, ann.id, ben.id, Some("first")).await;
        let TurnPlan::New(t) = m
            .plan_turn(Actor::Player(ann.id), 1, "d4-c6", Timestamp(2_000))
            .expect("legal")
        else {
            panic!("not a new turn")
        };
        let probe = Match::new(GameId(0), setup(ann.id, ben.id), Timestamp(2_000)).expect("setup");
        let batch = [
            Change::Create(NewGame::of(&probe, Some("second"))),
            Change::Write(Write::of(&m, &t)),
            // The key of a stored game: refused alone, the rest of the batch is stored.
            Change::Create(NewGame::of(&probe, Some("first"))),
            Change::Create(NewGame::of(&probe, None)),
        ];
        let results = store.commit_changes(&batch).await;
        let created = results[0].clone().expect("created").expect("an id");
        assert_eq!(results[1], Ok(None), "the turn is stored");
        assert!(
            matches!(results[2], Err(StoreError::Conflict(_))),
            "{results:?}"
        );
        let other = results[3].clone().expect("created").expect("an id");
        assert_ne!(created, other);
        assert_ne!(created, m.id);
        assert_eq!(
            store.game_by_idempotency_key("second").await.expect("q"),
            Some(created)
        );
        let stored = store.load_game(m.id).await.expect("q").expect("game");
        assert_eq!(stored.turns.len(), 1);
        let fresh = store.load_game(created).await.expect("q").expect("game");
        assert!(fresh.turns.is_empty());
        assert_eq!(store.active_game_ids().await.expect("q").len(), 3);
    }
}

/// HanniBall's opening position.
const OPENING: &str =
    "1k1/2l3l2/1e1e1e1e1/1h3h1h1/9/9/9/9/9/1H3H1H1/9/1H1H1H3/1E1E1E1E1/2L3L2/1K1 e8 w 1 0 standard";

/// A hand-made turn write (the store does not check rules): turn `number` of `game`, carrying
/// `text` as the turn.
fn raw_write(game: GameId, number: u32, text: &str) -> Write {
    let at = Timestamp(i64::from(number) * 1_000);
    Write {
        game_id: game,
        expected_turns: number - 1,
        expected_version: None,
        // Turn 2 makes a draw offer (below) and turn 3 lets it lapse.
        changes_row: matches!(number, 2 | 3),
        record: Some(hanniball_arbiter::TurnRecord {
            number,
            side: if number % 2 == 1 {
                Side::White
            } else {
                Side::Black
            },
            text: text.to_owned(),
            position_after: OPENING.to_owned(),
            white_ms: 60_000 - i64::from(number),
            black_ms: 50_000 + i64::from(number),
            played_at: at,
            spent_ms: i64::from(number) * 7,
            // What the store derives for a timed game that goes on.
            running: Some(if number % 2 == 1 {
                Side::Black
            } else {
                Side::White
            }),
        }),
        position: OPENING.to_owned(),
        turns_played: number,
        clocks: Clocks {
            white_ms: 60_000 - i64::from(number),
            black_ms: 50_000 + i64::from(number),
            running: Some(Side::White),
            since: at,
        },
        draw_offer: (number == 2).then_some(Side::Black),
        status: Status::Active,
        result: None,
        finished_at: None,
    }
}

/// A batch travels to the database as one JSON parameter: every field must come back exactly,
/// whatever characters the text holds, in live and ending writes alike, and a stale write in a
/// batch is refused alone.
#[tokio::test]
async fn batched_writes_come_back_exactly_on_every_database() {
    for url in testing::all_urls().await {
        let store = Store::connect(&url).await.expect("connect");
        let (white, black) = two_bots(&store, "w", "b").await;
        let mut ids = Vec::new();
        for _ in 0..3 {
            ids.push(new_game(&store, white.id, black.id, None).await.id);
        }
        let odd = [
            "quote \" backslash \\ slash / tab \t newline \n",
            "ünïcødé ⚽ and emoji 🦁",
            "[1, \"not json\"] {} null",
        ];
        let first: Vec<Write> = ids
            .iter()
            .zip(odd)
            .map(|(id, text)| raw_write(*id, 1, text))
            .collect();
        for result in store.commit(&first).await {
            result.expect("first turns");
        }
        // Turn 2 of every game; the third game's write is stale (it claims turn 1 again) and the
        // second game's ends it.
        let mut second: Vec<Write> = ids.iter().map(|id| raw_write(*id, 2, odd[0])).collect();
        second[1].status = Status::Finished;
        second[1].result = Some(FinalResult {
            outcome: Some(hanniball_rules::Outcome::Win(Side::White)),
            reason: Reason::Resignation,
        });
        second[1].finished_at = Some(Timestamp(2_500));
        second[1].clocks.running = None;
        second[2] = raw_write(ids[2], 1, "late");
        let results = store.commit(&second).await;
        assert!(results[0].is_ok() && results[1].is_ok(), "{results:?}");
        assert!(
            matches!(results[2], Err(StoreError::Conflict(_))),
            "{results:?}"
        );

        for (index, id) in ids.iter().enumerate() {
            let stored = store.load_game(*id).await.expect("q").expect("game");
            let expected: Vec<_> = first[index]
                .record
                .iter()
                .chain(second[index].record.iter().filter(|_| index < 2))
                .cloned()
                .collect();
            assert_eq!(stored.turns, expected, "game {index}");
            let last = if index < 2 {
                &second[index]
            } else {
                &first[index]
            };
            assert_eq!(stored.clocks, last.clocks, "game {index}");
            assert_eq!(stored.draw_offer, last.draw_offer, "game {index}");
            assert_eq!(stored.status, last.status, "game {index}");
            assert_eq!(stored.result, last.result, "game {index}");
            assert_eq!(stored.finished_at, last.finished_at, "game {index}");
        }
        let listed = store.list_games(None, None, None, 10).await.expect("list");
        let third = listed.iter().find(|g| g.id == ids[2]).expect("listed");
        assert_eq!(third.position, OPENING);
        assert_eq!(third.turns_played, 1);
        let finished = store.results_after(0, 10).await.expect("outbox");
        assert_eq!(
            finished.iter().map(|f| f.game.id).collect::<Vec<_>>(),
            vec![ids[1]]
        );
    }
}

/// Plain turns are stored in the log alone on SQLite (the row keeps its last other change):
/// every reader must see the log's state all the same, and the guards must refuse what the row's
/// turn count refused before: a turn stored twice, a gap, a turn after the end, a stale change.
/// Run on every database, so that both write paths answer alike.
#[tokio::test]
async fn the_log_is_the_state_of_a_game_on_every_database() {
    for url in testing::all_urls().await {
        let store = Store::connect(&url).await.expect("connect");
        let (ann, ben) = two_bots(&store, "ann", "ben").await;
        let mut m = new_game(&store, ann.id, ben.id, None).await;
        let turns = [(ann.id, "d4-c6"), (ben.id, "d12-c10"), (ann.id, "c6-b8")];
        for (n, (who, text)) in (1..).zip(turns) {
            play(&store, &mut m, who, n, text, 1_000 + i64::from(n) * 1_500)
                .await
                .unwrap_or_else(|e| panic!("turn {n}: {e}"));
        }
        let stored = store.load_game(m.id).await.expect("load").expect("game");
        assert_eq!(stored.clocks, *m.clocks());
        // Only the turns after a copy's: the same state, and a copy caught up with them is the
        // game restored from its whole log.
        for held in 0..=3u32 {
            let (tail, _) = store
                .load_game_after(m.id, held)
                .await
                .expect("load after")
                .expect("game");
            let numbers: Vec<u32> = tail.turns.iter().map(|t| t.number).collect();
            assert_eq!(
                numbers,
                ((held + 1)..=3).collect::<Vec<_>>(),
                "after {held}"
            );
            assert_eq!(tail.turns[..], stored.turns[held as usize..]);
            assert_eq!(
                (tail.clocks, tail.status, tail.draw_offer),
                (stored.clocks, stored.status, stored.draw_offer)
            );
            let mut prefix = stored.clone();
            prefix.turns.truncate(held as usize);
            let mut copy = Match::restore(prefix).expect("restore a prefix");
            copy.catch_up(tail).expect("catch up");
            assert_eq!((copy.position(), copy.turns()), (m.position(), m.turns()));
        }
        let restored = Match::restore(stored).expect("restore");
        assert_eq!(restored.position(), m.position());
        assert_eq!(restored.turns(), m.turns());
        assert_eq!(restored.clocks(), m.clocks());
        let listed = store.list_games(None, None, None, 10).await.expect("list");
        let row = listed.iter().find(|g| g.id == m.id).expect("listed");
        assert_eq!(
            (row.position.as_str(), row.turns_played, row.clocks),
            (m.position(), 3, *m.clocks())
        );

        // Turn 3 again, and turn 5 after a gap: refused, nothing stored.
        for (number, expected) in [(3, 2), (5, 4)] {
            let mut write = raw_write(m.id, number, "e4-e5");
            write.expected_turns = expected;
            write.changes_row = false;
            let refused = store.commit(&[write]).await.remove(0);
            assert!(
                matches!(refused, Err(StoreError::Conflict(_))),
                "turn {number}: {refused:?}"
            );
        }
        assert_eq!(store.turn_count().await.expect("count"), 3);

        // A change of the row from a writer that has not seen turn 3: refused.
        let mut stale = raw_write(m.id, 3, "unused");
        stale.record = None;
        stale.changes_row = true;
        stale.expected_turns = 2;
        stale.turns_played = 2;
        stale.draw_offer = Some(Side::White);
        let refused = store.commit(&[stale]).await.remove(0);
        assert!(
            matches!(refused, Err(StoreError::Conflict(_))),
            "{refused:?}"
        );

        // The game ends (resignation after turn 3); a turn after it is refused.
        let t = m
            .plan_resign(Actor::Player(ben.id), Timestamp(7_000))
            .expect("resign");
        store
            .commit(&[Write::of(&m, &t)])
            .await
            .remove(0)
            .expect("resignation");
        m.apply(t);
        let mut late = raw_write(m.id, 4, "e4-e5");
        late.changes_row = false;
        let refused = store.commit(&[late]).await.remove(0);
        assert!(
            matches!(refused, Err(StoreError::Conflict(_))),
            "{refused:?}"
        );
        let stored = store.load_game(m.id).await.expect("load").expect("game");
        assert_eq!((stored.turns.len(), stored.status), (3, Status::Finished));
        let finished = store.results_after(0, 10).await.expect("outbox");
        assert_eq!(finished.len(), 1);
        assert_eq!(
            (
                finished[0].game.position.as_str(),
                finished[0].game.turns_played
            ),
            (m.position(), 3)
        );
    }
}

/// A loaded turn record names the clock that runs after it, as the record made by the arbiter
/// does: the opponent's while the game goes on (also for the last turn of a resigned game), none
/// after the turn that ended the game by the rules.
#[tokio::test]
async fn loaded_turn_records_name_the_running_clock_on_every_database() {
    for url in testing::all_urls().await {
        let store = Store::connect(&url).await.expect("connect");
        let (ann, ben) = two_bots(&store, "ann", "ben").await;

        // Two turns reach the turn limit: the second ends the game.
        let mut short = Setup {
            options: GameOptions {
                ruleset: None,
                max_turns: Some(2),
            },
            ..setup(ann.id, ben.id)
        };
        short.tag = "short".to_owned();
        let probe = Match::new(GameId(0), short.clone(), Timestamp(1_000)).expect("setup");
        let id = store.insert_game(&probe, None).await.expect("insert game");
        let mut m = Match::new(id, short, Timestamp(1_000)).expect("setup");
        play(&store, &mut m, ann.id, 1, "d4-c6", 2_000)
            .await
            .expect("turn 1");
        play(&store, &mut m, ben.id, 2, "d12-c10", 3_000)
            .await
            .expect("turn 2");
        assert_eq!(m.status(), Status::Finished);
        let running: Vec<_> = m.turns().iter().map(|t| t.running).collect();
        assert_eq!(running, [Some(Side::Black), None]);
        let loaded = store.load_game(m.id).await.expect("load").expect("game");
        assert_eq!(loaded.turns, m.turns());

        // A turn, then a resignation: the clock ran after the turn.
        let mut r = new_game(&store, ann.id, ben.id, None).await;
        play(&store, &mut r, ann.id, 1, "d4-c6", 2_000)
            .await
            .expect("turn 1");
        let t = r
            .plan_resign(Actor::Player(ben.id), Timestamp(2_500))
            .expect("resign");
        store
            .commit(&[Write::of(&r, &t)])
            .await
            .remove(0)
            .expect("stored");
        r.apply(t);
        assert_eq!(r.result().map(|x| x.reason), Some(Reason::Resignation));
        let loaded = store.load_game(r.id).await.expect("load").expect("game");
        assert_eq!(loaded.turns, r.turns());
        assert_eq!(loaded.turns[0].running, Some(Side::Black));
    }
}
