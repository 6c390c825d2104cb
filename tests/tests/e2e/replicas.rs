//! Two arbiter replicas on one PostgreSQL database, every call sent to either of them as a
//! per-request load balancer would: turns, draw offers and reads agree whichever replica answers;
//! watchers on one replica hear what is played through the other; loading a game never touches its
//! clocks; a timed game ends on time when the replica that created it is gone.
//!
//! PostgreSQL only (`HANNIBALL_TEST_POSTGRES_URL`): a SQLite file belongs to one server process.

use std::time::Duration;

use hanniball_e2e::{Client, TestServer, game_of, goal_game, start, submit};
use hanniball_proto::arbiter::v1 as pb;
use tokio_stream::StreamExt;

/// Two replicas on a fresh PostgreSQL database, or `None` (with a message) without one.
async fn replicas() -> Option<(TestServer, TestServer)> {
    let Some(base) = hanniball_db::testing::postgres_base_url() else {
        eprintln!("skipped: replicas need PostgreSQL (HANNIBALL_TEST_POSTGRES_URL is not set)");
        return None;
    };
    let url = hanniball_db::testing::postgres_url(&base)
        .await
        .expect("a fresh database");
    let a = start(&url).await;
    let b = start(&url).await;
    Some((a, b))
}

/// The results stream of replica `on`, from the start.
async fn results_of(on: &TestServer) -> tonic::Streaming<pb::FinishedGame> {
    on.admin()
        .await
        .arbiter
        .watch_results(pb::WatchResultsRequest { after_sequence: 0 })
        .await
        .expect("results")
        .into_inner()
}

/// Waits up to `within` for `game` to finish on `results`, ended on time (as `client` reads it),
/// then makes sure no second result follows.
async fn ends_on_time_once(
    results: &mut tonic::Streaming<pb::FinishedGame>,
    client: &mut Client,
    game: i64,
    within: Duration,
) {
    let finished = tokio::time::timeout(within, results.next())
        .await
        .expect("the game ends on time")
        .expect("stream open")
        .expect("finished");
    assert_eq!(finished.game_id, game);
    let st = game_of(client, game).await.state.expect("state");
    assert_eq!(
        st.result.expect("result").reason,
        pb::EndReason::Time as i32
    );
    assert!(
        tokio::time::timeout(Duration::from_millis(500), results.next())
            .await
            .is_err(),
        "the game ended once"
    );
}

/// Clients of one player on both replicas.
async fn both(a: &TestServer, b: &TestServer, name: &str) -> (i64, [Client; 2]) {
    let (id, on_a) = a.player(name).await;
    let token = on_a.token.clone();
    let on_b = b.client(Some(&token)).await;
    (id, [on_a, on_b])
}

#[tokio::test]
async fn any_replica_serves_any_call_of_a_game() {
    let Some((a, b)) = replicas().await else {
        return;
    };
    let (white, mut w) = both(&a, &b, "white").await;
    let (black, mut k) = both(&a, &b, "black").await;
    let game = a.game(white, black, None).await;
    let turns = goal_game(7);
    for (i, turn) in turns.iter().enumerate() {
        let number = i as u32 + 1;
        // The replica changes every call, in a pattern that gives each player both.
        let replica = (i / 2 + i) % 2;
        let player = if i % 2 == 0 { &mut w } else { &mut k };
        submit(&mut player[replica], game.id, number, turn)
            .await
            .unwrap_or_else(|e| panic!("turn {number} through replica {replica}: {e}"));
        // The other replica's answer is current at once.
        let seen = game_of(&mut player[1 - replica], game.id).await;
        let state = seen.state.expect("state");
        assert_eq!(state.next_turn_number, number + 1, "turn {number}");
        assert_eq!(seen.turns.len(), number as usize);
        if state.status == pb::GameStatus::Active as i32 {
            let steps = player[1 - replica]
                .arbiter
                .get_legal_steps(pb::GetLegalStepsRequest {
                    game_id: game.id,
                    after: String::new(),
                })
                .await
                .expect("legal steps")
                .into_inner();
            assert_eq!(
                steps.state.expect("state").next_turn_number,
                number + 1,
                "GetLegalSteps on the other replica"
            );
        }
    }
    let end = game_of(&mut w[1], game.id).await;
    assert_eq!(
        end.state.expect("state").status,
        pb::GameStatus::Finished as i32
    );
    assert_eq!(end.turns.len(), turns.len());
}

#[tokio::test]
async fn draw_offers_are_seen_and_kept_across_replicas() {
    let Some((a, b)) = replicas().await else {
        return;
    };
    let (white, mut w) = both(&a, &b, "white").await;
    let (black, mut k) = both(&a, &b, "black").await;
    let game = a.game(white, black, None).await;
    // Both replicas hold a copy from before the offer.
    game_of(&mut w[0], game.id).await;
    game_of(&mut w[1], game.id).await;
    submit(&mut w[0], game.id, 1, "d4-c6")
        .await
        .expect("turn 1");
    w[0].arbiter
        .offer_draw(pb::OfferDrawRequest { game_id: game.id })
        .await
        .expect("white offers through A");
    // B knows of the offer.
    let seen = game_of(&mut k[1], game.id).await;
    assert_eq!(
        seen.state.expect("state").draw_offer_by,
        pb::Side::White as i32
    );
    // Black accepts through B: the game is drawn, on both replicas.
    k[1].arbiter
        .accept_draw(pb::AcceptDrawRequest { game_id: game.id })
        .await
        .expect("black accepts through B");
    for client in w.iter_mut() {
        let st = game_of(client, game.id).await.state.expect("state");
        assert_eq!(st.status, pb::GameStatus::Finished as i32);
        assert_eq!(st.result.expect("result").outcome, pb::Outcome::Draw as i32);
    }

    // Another game: an offer made through A is not lost when the next turn (which declines it,
    // by the rules) goes through B's older copy; nor does B's copy undo the offer's record.
    let game = a.game(white, black, None).await;
    game_of(&mut k[1], game.id).await;
    w[0].arbiter
        .offer_draw(pb::OfferDrawRequest { game_id: game.id })
        .await
        .expect("white offers through A");
    submit(&mut w[1], game.id, 1, "d4-c6")
        .await
        .expect("white plays through B");
    let st = game_of(&mut k[0], game.id).await.state.expect("state");
    assert_eq!(st.draw_offer_by, pb::Side::White as i32, "the offer stands");
    k[0].arbiter
        .accept_draw(pb::AcceptDrawRequest { game_id: game.id })
        .await
        .expect("black accepts through A");
}

#[tokio::test]
async fn watchers_on_one_replica_hear_what_the_other_does() {
    let Some((a, b)) = replicas().await else {
        return;
    };
    let (white, mut w) = both(&a, &b, "white").await;
    let (black, mut k) = both(&a, &b, "black").await;
    // Black listens on B; the game is created and played through A.
    let mut events = k[1]
        .arbiter
        .watch_player(pb::WatchPlayerRequest {})
        .await
        .expect("player events on B")
        .into_inner();
    let game = a.game(white, black, None).await;
    let next = async |events: &mut tonic::Streaming<pb::PlayerEvent>| {
        tokio::time::timeout(Duration::from_secs(10), events.next())
            .await
            .expect("an event in time")
            .expect("stream open")
            .expect("event")
            .event
            .expect("payload")
    };
    assert!(
        matches!(next(&mut events).await, pb::player_event::Event::GameStarted(g) if g.id == game.id)
    );
    let mut watch = w[1]
        .arbiter
        .watch_game(pb::WatchGameRequest {
            game_id: game.id,
            from_turn: 0,
        })
        .await
        .expect("watch on B")
        .into_inner();
    submit(&mut w[0], game.id, 1, "d4-c6")
        .await
        .expect("turn 1 through A");
    assert!(
        matches!(next(&mut events).await, pb::player_event::Event::YourTurn(s) if s.next_turn_number == 2)
    );
    let mut played = 0;
    while played == 0 {
        let event = tokio::time::timeout(Duration::from_secs(10), watch.next())
            .await
            .expect("a game event in time")
            .expect("stream open")
            .expect("event");
        if let Some(pb::game_event::Event::TurnPlayed(t)) = event.event {
            assert_eq!(t.record.expect("record").turn, "d4-c6");
            played += 1;
        }
    }
    // The end, through A, reaches B's watchers.
    k[0].arbiter
        .resign(pb::ResignRequest { game_id: game.id })
        .await
        .expect("black resigns through A");
    loop {
        if let pb::player_event::Event::GameOver(over) = next(&mut events).await {
            assert_eq!(
                over.result.expect("result").outcome,
                pb::Outcome::WhiteWins as i32
            );
            break;
        }
    }
}

#[tokio::test]
async fn clocks_are_the_same_on_every_replica_and_time_runs_out_without_the_creator() {
    let Some((a, b)) = replicas().await else {
        return;
    };
    let (white, mut w) = both(&a, &b, "white").await;
    let (black, _) = both(&a, &b, "black").await;
    let game = a.game(white, black, Some((600_000, 0))).await;
    a.clock.advance(10_000);
    b.clock.advance(10_000);
    // B loads (or has loaded) the game: White's clock has run since the creation.
    for client in w.iter_mut() {
        let clocks = game_of(client, game.id)
            .await
            .state
            .expect("state")
            .clocks
            .expect("clocks");
        assert_eq!(clocks.running, pb::Side::White as i32);
        // What the clocks say at the replicas' now: 590 s left.
        let left = clocks.white_ms - (a.clock_now() - clocks.as_of_ms);
        assert_eq!(left, 590_000, "{clocks:?}");
    }
    // A game created through A that nobody asks B about; then A goes away. B ends it on time,
    // once.
    let timed = a.game(white, black, Some((60_000, 0))).await;
    a.running.stop().await.expect("A stops");
    b.clock.advance(60_001);
    let mut results = results_of(&b).await;
    ends_on_time_once(&mut results, &mut w[1], timed.id, Duration::from_secs(10)).await;
}

/// The game's status as stored (read from the database, not through a replica: a call on a game
/// whose clock ran out would itself record the loss).
async fn stored_status(url: &str, game: i64) -> hanniball_arbiter::Status {
    let store = hanniball_arbiter_svc::store::Store::connect(url)
        .await
        .expect("store");
    store
        .load_game(hanniball_arbiter::GameId(game))
        .await
        .expect("load")
        .expect("the game")
        .status
}

#[tokio::test]
async fn one_live_replica_keeps_a_clock_and_another_takes_over_a_lapsed_lease() {
    let Some((a, b)) = replicas().await else {
        return;
    };
    let store = hanniball_arbiter_svc::store::Store::connect(&a.db_url)
        .await
        .expect("store");
    let (white, mut w) = both(&a, &b, "white").await;
    let (black, _) = both(&a, &b, "black").await;
    let game = a.game(white, black, Some((60_000, 0))).await;
    let id = hanniball_arbiter::GameId(game.id);
    // Both replicas hold the game; one of them takes its clock within a renewal or two, and keeps
    // it while it lives.
    game_of(&mut w[1], game.id).await;
    let deadline = tokio::time::Instant::now() + Duration::from_secs(10);
    let owner = loop {
        if let Some((owner, _)) = store.clock_owner(id).await.expect("lease") {
            break owner;
        }
        assert!(
            tokio::time::Instant::now() < deadline,
            "nobody keeps the clock"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    };
    tokio::time::sleep(Duration::from_millis(2_500)).await;
    let (still, _) = store.clock_owner(id).await.expect("lease").expect("held");
    assert_eq!(still, owner, "the lease moved while its owner lived");

    // A replica that died holding the lease (a lease nobody renews, until 100 s after the start).
    let start = a.clock_now();
    let taken = store
        .claim_clocks(&[id], "dead-replica", i64::MAX - 1, start + 100_000)
        .await
        .expect("claim");
    assert_eq!(taken, vec![id]);
    // White's time runs out at +60 s; the live replicas do not end the game while the dead
    // replica's lease has not lapsed...
    a.clock.advance(61_000);
    b.clock.advance(61_000);
    tokio::time::sleep(Duration::from_millis(2_500)).await;
    assert_eq!(
        stored_status(&a.db_url, game.id).await,
        hanniball_arbiter::Status::Active,
        "a replica ended a game whose clock another replica keeps"
    );
    let (holder, _) = store.clock_owner(id).await.expect("lease").expect("held");
    assert_eq!(holder, "dead-replica");
    // ...and once it has, one of them takes the game over and ends it on time, once.
    let mut results = results_of(&b).await;
    a.clock.advance(40_000);
    b.clock.advance(40_000);
    // Within 5 s of the lapse.
    ends_on_time_once(&mut results, &mut w[0], game.id, Duration::from_secs(5)).await;
    // The keeper gave the lease up with the game.
    let deadline = tokio::time::Instant::now() + Duration::from_secs(5);
    while let Some((holder, _)) = store.clock_owner(id).await.expect("lease") {
        assert_ne!(holder, "dead-replica");
        assert!(
            tokio::time::Instant::now() < deadline,
            "the lease of a finished game is kept by {holder}"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}
