//! Lifecycle tests: clocks, turn numbers, draws, resignation, abort, restore.

use super::*;

const WHITE: PlayerId = PlayerId(1);
const BLACK: PlayerId = PlayerId(2);

fn setup(time_control: Option<TimeControl>) -> Setup {
    Setup {
        kind: GameKind::HanniBall,
        options: GameOptions::default(),
        white: WHITE,
        black: BLACK,
        time_control,
        rated: true,
        tag: String::new(),
        over_the_board: false,
    }
}

fn timed() -> Match {
    let tc = TimeControl {
        initial_ms: 60_000,
        increment_ms: 2_000,
    };
    Match::new(GameId(7), setup(Some(tc)), Timestamp(1_000)).expect("new game")
}

fn play(m: &mut Match, who: PlayerId, number: u32, text: &str, at: i64) -> TurnRecord {
    match m.plan_turn(Actor::Player(who), number, text, Timestamp(at)) {
        Ok(TurnPlan::New(t)) => {
            let record = t.record.clone().expect("a turn has a record");
            m.apply(t);
            record
        }
        other => panic!("turn {number} {text}: {other:?}"),
    }
}

#[test]
fn fischer_clocks_charge_thinking_time_and_add_the_increment() {
    let mut m = timed();
    let record = play(&mut m, WHITE, 1, "d4-c6", 6_000);
    assert_eq!(record.spent_ms, 5_000);
    assert_eq!((record.white_ms, record.black_ms), (57_000, 60_000));
    assert_eq!(m.clocks().running, Some(Side::Black));
    assert_eq!(m.clocks().remaining(Side::Black, Timestamp(16_000)), 50_000);
    assert_eq!(m.deadline(), Some(Timestamp(66_000)));
    let record = play(&mut m, BLACK, 2, "d12-c10", 16_000);
    assert_eq!((record.white_ms, record.black_ms), (57_000, 52_000));
}

#[test]
fn the_side_to_move_loses_on_time() {
    let m = timed();
    assert!(m.plan_time_out(Timestamp(60_999)).is_none());
    let t = m.plan_time_out(Timestamp(61_000)).expect("flag falls");
    let result = t.result.expect("game over");
    assert_eq!(result.outcome, Some(Outcome::Win(Side::Black)));
    assert_eq!(result.reason, Reason::Time);
    assert_eq!(t.clocks.white_ms, 0);
    let mut m = m;
    m.apply(t);
    assert_eq!(m.status(), Status::Finished);
    assert_eq!(m.deadline(), None);
    assert!(matches!(
        m.plan_turn(Actor::Player(WHITE), 1, "d4-c6", Timestamp(62_000)),
        Err(ActionError::GameOver(_))
    ));
}

#[test]
fn turn_numbers_make_retries_idempotent_and_refuse_stale_or_future_turns() {
    let mut m = timed();
    let first = play(&mut m, WHITE, 1, "d4-c6", 2_000);
    // The same turn again: the same record, nothing applied.
    match m.plan_turn(Actor::Player(WHITE), 1, "d4-c6", Timestamp(3_000)) {
        Ok(TurnPlan::Replay(record)) => assert_eq!(record, first),
        other => panic!("{other:?}"),
    }
    assert_eq!(m.next_turn_number(), 2);
    // A different turn for an old number is stale.
    assert!(matches!(
        m.plan_turn(Actor::Player(WHITE), 1, "d4-e6", Timestamp(3_000)),
        Err(ActionError::StaleTurn {
            given: 1,
            expected: 2
        })
    ));
    assert!(matches!(
        m.plan_turn(Actor::Player(BLACK), 3, "d12-c10", Timestamp(3_000)),
        Err(ActionError::FutureTurn {
            given: 3,
            expected: 2
        })
    ));
    assert!(matches!(
        m.plan_turn(Actor::Player(WHITE), 2, "c6-d8", Timestamp(3_000)),
        Err(ActionError::NotYourTurn {
            side_to_move: Side::Black
        })
    ));
    assert!(matches!(
        m.plan_turn(Actor::Player(PlayerId(99)), 2, "d12-c10", Timestamp(3_000)),
        Err(ActionError::NotAPlayer(PlayerId(99)))
    ));
    assert!(matches!(
        m.plan_turn(Actor::Player(BLACK), 2, "d12-d10", Timestamp(3_000)),
        Err(ActionError::Illegal(_))
    ));
    assert!(matches!(
        m.plan_turn(Actor::Player(BLACK), 2, "d12-", Timestamp(3_000)),
        Err(ActionError::Malformed(_))
    ));
    assert!(matches!(
        m.plan_turn(Actor::Player(BLACK), 0, "d12-c10", Timestamp(3_000)),
        Err(ActionError::Malformed(_))
    ));
}

#[test]
fn turn_number_zero_is_refused_before_any_turn() {
    let m = timed();
    for number in [0, u32::MAX] {
        let r = m.plan_turn(Actor::Player(WHITE), number, "d4-c6", Timestamp(1_000));
        assert!(
            matches!(
                r,
                Err(ActionError::Malformed(_) | ActionError::FutureTurn { .. })
            ),
            "turn {number}: {r:?}"
        );
    }
    assert_eq!(m.next_turn_number(), 1);
}

#[test]
fn draw_offers() {
    let mut m = timed();
    assert!(matches!(
        m.plan_accept_draw(Actor::Player(BLACK), Timestamp(2_000)),
        Err(ActionError::NoDrawOffer)
    ));
    let t = m
        .plan_offer_draw(Actor::Player(WHITE), Timestamp(2_000))
        .expect("offer");
    m.apply(t);
    assert_eq!(m.draw_offer(), Some(Side::White));
    assert!(matches!(
        m.plan_offer_draw(Actor::Player(WHITE), Timestamp(2_000)),
        Err(ActionError::DrawAlreadyOffered)
    ));
    assert!(matches!(
        m.plan_accept_draw(Actor::Player(WHITE), Timestamp(2_000)),
        Err(ActionError::NoDrawOffer)
    ));
    // The offerer plays on: the offer stands. The opponent plays on: it lapses.
    play(&mut m, WHITE, 1, "d4-c6", 3_000);
    assert_eq!(m.draw_offer(), Some(Side::White));
    play(&mut m, BLACK, 2, "d12-c10", 4_000);
    assert_eq!(m.draw_offer(), None);
    // Declining.
    let t = m
        .plan_offer_draw(Actor::Player(BLACK), Timestamp(5_000))
        .expect("offer");
    m.apply(t);
    let t = m
        .plan_decline_draw(Actor::Player(WHITE), Timestamp(5_000))
        .expect("decline");
    assert_eq!(t.events, vec![Event::DrawDeclined(Side::White)]);
    m.apply(t);
    assert_eq!(m.draw_offer(), None);
    // Accepting.
    let t = m
        .plan_offer_draw(Actor::Player(BLACK), Timestamp(6_000))
        .expect("offer");
    m.apply(t);
    let t = m
        .plan_accept_draw(Actor::Player(WHITE), Timestamp(6_000))
        .expect("accept");
    m.apply(t);
    assert_eq!(
        m.result(),
        Some(FinalResult {
            outcome: Some(Outcome::Draw),
            reason: Reason::Agreement
        })
    );
}

#[test]
fn resignation_and_abort() {
    let mut m = timed();
    let t = m
        .plan_abort(Actor::Player(BLACK), Timestamp(2_000))
        .expect("abort before moves");
    assert_eq!(t.result.map(|r| r.outcome), Some(None));
    play(&mut m, WHITE, 1, "d4-c6", 2_000);
    assert!(m.plan_abort(Actor::Player(WHITE), Timestamp(2_500)).is_ok());
    play(&mut m, BLACK, 2, "d12-c10", 3_000);
    assert!(matches!(
        m.plan_abort(Actor::Player(WHITE), Timestamp(4_000)),
        Err(ActionError::TooLateToAbort(2))
    ));
    assert!(m.plan_abort(Actor::Admin, Timestamp(4_000)).is_ok());
    assert!(matches!(
        m.plan_resign(Actor::Admin, Timestamp(4_000)),
        Err(ActionError::AdminOnly)
    ));
    let t = m
        .plan_resign(Actor::Player(WHITE), Timestamp(4_000))
        .expect("resign");
    m.apply(t);
    assert_eq!(m.status(), Status::Finished);
    assert_eq!(
        m.result().map(|r| r.summary()).as_deref(),
        Some("0-1 resignation")
    );
}

#[test]
fn a_goal_ends_the_game_and_stops_the_clocks() {
    let options = GameOptions::default();
    let start = "1k1/9/4L4/9/9/9/9/9/9/9/9/9/9/9/1K1 e13 w 3 0 standard";
    let mut m = timed();
    // Put the game at a position one shot from a goal by replaying nothing: load a position.
    m.game = GameKind::HanniBall.load(start, &options).expect("position");
    let record = play(&mut m, WHITE, 1, "e13>d15", 5_000);
    assert_eq!(record.position_after.split(' ').nth(1), Some("d15"));
    assert_eq!(m.status(), Status::Finished);
    assert_eq!(m.result().map(|r| r.summary()).as_deref(), Some("1-0 goal"));
    assert_eq!(m.clocks().running, None);
    assert_eq!(
        record.running, None,
        "the record says no clock runs after the goal"
    );
}

#[test]
fn a_turn_record_names_the_clock_that_runs_after_it() {
    let mut m = timed();
    let record = play(&mut m, WHITE, 1, "d4-c6", 6_000);
    assert_eq!(record.running, Some(Side::Black));
    assert_eq!(record.running, m.clocks().running);
    let record = play(&mut m, BLACK, 2, "d12-c10", 9_000);
    assert_eq!(record.running, Some(Side::White));
    assert_eq!(record.running, m.clocks().running);

    // Untimed: no clock runs, before or after.
    let mut untimed = Match::new(GameId(8), setup(None), Timestamp(0)).expect("new game");
    let record = play(&mut untimed, WHITE, 1, "d4-c6", 10);
    assert_eq!((record.running, untimed.clocks().running), (None, None));

    // The turn that reaches the turn limit ends the game: no clock runs after it.
    let tc = TimeControl {
        initial_ms: 60_000,
        increment_ms: 0,
    };
    let mut short = Setup {
        options: GameOptions {
            ruleset: None,
            max_turns: Some(2),
        },
        ..setup(Some(tc))
    };
    short.tag = "two turns".to_owned();
    let mut m = Match::new(GameId(9), short, Timestamp(0)).expect("new game");
    assert_eq!(
        play(&mut m, WHITE, 1, "d4-c6", 10).running,
        Some(Side::Black)
    );
    let last = play(&mut m, BLACK, 2, "d12-c10", 20);
    assert_eq!(m.status(), Status::Finished);
    assert_eq!((last.running, m.clocks().running), (None, None));
}

#[test]
fn restore_replays_turns_and_keeps_the_clocks_as_stored() {
    let mut m = timed();
    play(&mut m, WHITE, 1, "d4-c6", 6_000);
    play(&mut m, BLACK, 2, "d12-c10", 9_000);
    let stored = Stored {
        id: m.id,
        setup: m.setup.clone(),
        turns: m.turns().to_vec(),
        clocks: *m.clocks(),
        status: m.status(),
        result: m.result(),
        draw_offer: m.draw_offer(),
        created_at: m.created_at,
        finished_at: m.finished_at(),
        corrections: m.corrections,
    };
    let back = Match::restore(stored.clone()).expect("restore");
    assert_eq!(back.game().position(), m.game().position());
    // The cached notation follows the game through turns and a restore.
    assert_eq!(m.position(), m.game().position());
    assert_eq!(back.position(), m.game().position());
    assert_ne!(m.position(), timed().position(), "the turns moved pieces");
    assert_eq!(back.turns(), m.turns());
    assert_eq!(back.clocks().white_ms, m.clocks().white_ms);
    // Loading changes no clock: White's has run since Black's turn at 9 s, wherever the game
    // is loaded and whenever.
    assert_eq!(back.clocks(), m.clocks());
    assert_eq!(
        back.clocks().remaining(Side::White, Timestamp(10_000)),
        m.clocks().remaining(Side::White, Timestamp(10_000))
    );
    assert_eq!(
        back.clocks().remaining(Side::White, Timestamp(10_000)),
        back.clocks().stored(Side::White) - 1_000
    );
    // A tampered log is refused.
    let mut bad = stored;
    bad.turns[1].position_after = "x".to_owned();
    assert!(matches!(
        Match::restore(bad),
        Err(RestoreError::Diverged { number: 2, .. })
    ));
}

fn stored_of(m: &Match) -> Stored {
    Stored {
        id: m.id,
        setup: m.setup.clone(),
        turns: m.turns().to_vec(),
        clocks: *m.clocks(),
        status: m.status(),
        result: m.result(),
        draw_offer: m.draw_offer(),
        created_at: m.created_at,
        finished_at: m.finished_at(),
        corrections: m.corrections,
    }
}

#[test]
fn catch_up_replays_only_the_new_turns_to_what_a_restore_gives() {
    let mut m = timed();
    play(&mut m, WHITE, 1, "d4-c6", 6_000);
    // A replica's copy from after turn 1.
    let mut copy = Match::restore(stored_of(&m)).expect("restore");
    play(&mut m, BLACK, 2, "d12-c10", 9_000);
    play(&mut m, WHITE, 3, "f4-e6", 12_000);
    let offer = m
        .plan_offer_draw(Actor::Player(BLACK), Timestamp(13_000))
        .expect("offer");
    m.apply(offer);
    let mut tail = stored_of(&m);
    tail.turns.drain(..1);
    // A tail that does not follow the copy is refused and changes nothing.
    let mut gap = tail.clone();
    gap.turns.remove(0);
    let before = copy.clone();
    assert!(matches!(
        copy.catch_up(gap),
        Err(RestoreError::Replay { number: 3, .. })
    ));
    assert_eq!(copy.turns(), before.turns());
    assert_eq!(copy.clocks(), before.clocks());
    let mut tampered = tail.clone();
    tampered.turns[1].position_after = "x".to_owned();
    assert!(matches!(
        copy.catch_up(tampered),
        Err(RestoreError::Diverged { number: 3, .. })
    ));
    assert_eq!(copy.position(), before.position());
    // The tail brings the copy to exactly what a full restore gives.
    copy.catch_up(tail).expect("catch up");
    let full = Match::restore(stored_of(&m)).expect("restore");
    assert_eq!(copy.turns(), full.turns());
    assert_eq!(copy.position(), full.position());
    assert_eq!(copy.game().position(), full.game().position());
    assert_eq!(copy.clocks(), full.clocks());
    assert_eq!(copy.draw_offer(), Some(Side::Black));
    assert_eq!(copy.status(), full.status());
    // Nothing new but the end: the copy takes the stored end.
    let resign = m
        .plan_resign(Actor::Player(WHITE), Timestamp(14_000))
        .expect("resign");
    m.apply(resign);
    let mut end = stored_of(&m);
    end.turns.clear();
    copy.catch_up(end).expect("catch up");
    assert_eq!(copy.status(), Status::Finished);
    assert_eq!(copy.result(), m.result());
    assert_eq!(copy.finished_at(), m.finished_at());
}

#[test]
fn names_round_trip() {
    for status in [Status::Active, Status::Finished, Status::Aborted] {
        assert_eq!(Status::from_name(status.name()), Some(status));
    }
    for reason in [
        Reason::Rules(EndReason::Goal),
        Reason::Rules(EndReason::DeadEnd),
        Reason::Time,
        Reason::Aborted,
        Reason::Adjudication,
        Reason::Forfeit,
    ] {
        assert_eq!(Reason::from_name(reason.name()), Some(reason));
    }
    assert_eq!(Reason::from_name("nonsense"), None);
}

#[test]
fn the_organiser_adjudicates_a_game_that_is_on_and_the_clocks_stop() {
    let mut m = timed();
    play(&mut m, WHITE, 1, "d4-c6", 6_000);
    let decided = FinalResult::decided(Some(Outcome::Win(Side::White)), false).expect("valid");
    assert_eq!(
        m.plan_adjudicate(Actor::Player(WHITE), decided, Timestamp(9_000))
            .map(|_| ()),
        Err(ActionError::OrganiserOnly)
    );
    let t = m
        .plan_adjudicate(Actor::Admin, decided, Timestamp(9_000))
        .expect("the admin decides");
    // Black's clock ran from 6 s to 9 s and stops there.
    assert_eq!((t.clocks.black_ms, t.clocks.running), (57_000, None));
    m.apply(t);
    assert_eq!(m.status(), Status::Finished);
    assert_eq!(m.result(), Some(decided));
    assert_eq!(decided.summary(), "1-0 adjudication");
    assert_eq!(m.deadline(), None);
    assert!(m.plan_time_out(Timestamp(1_000_000)).is_none());
    // One turn only: an adjudicated game that Black never moved in is not played.
    assert!(!decided.played(1));
    assert!(decided.played(2));
    assert!(matches!(
        m.plan_adjudicate(Actor::Admin, decided, Timestamp(10_000)),
        Err(ActionError::GameOver(_))
    ));
}

#[test]
fn forfeits_are_never_played_and_a_double_forfeit_counts_for_nothing() {
    let white_by_forfeit = FinalResult::decided(Some(Outcome::Win(Side::White)), true).expect("ok");
    assert_eq!(white_by_forfeit.reason, Reason::Forfeit);
    assert!(!white_by_forfeit.played(40));
    let neither = FinalResult::decided(None, true).expect("ok");
    assert_eq!(neither.status(), Status::Aborted);
    assert!(!neither.played(40));
    assert!(FinalResult::decided(Some(Outcome::Draw), true).is_err());
    assert!(FinalResult::decided(None, false).is_err());
    let mut m = timed();
    let t = m
        .plan_adjudicate(Actor::Admin, neither, Timestamp(2_000))
        .expect("decided");
    m.apply(t);
    assert_eq!(m.status(), Status::Aborted);
    // Only the organiser's reasons are adjudications.
    let resigned = FinalResult {
        outcome: Some(Outcome::Draw),
        reason: Reason::Agreement,
    };
    assert!(
        timed()
            .plan_adjudicate(Actor::Admin, resigned, Timestamp(2_000))
            .is_err()
    );
}

#[test]
fn a_game_counts_as_played_once_both_sides_made_a_turn() {
    assert!(!counts_as_played(0, false, false));
    assert!(!counts_as_played(1, false, false));
    assert!(counts_as_played(2, false, false));
    assert!(!counts_as_played(2, true, false));
}

#[test]
fn a_loss_on_time_noticed_late_is_stamped_when_the_flag_fell() {
    let mut m = timed();
    // White's 60 s run out at 61 s; the server only gets to it at 85 s (down, or its database
    // unreachable meanwhile).
    let t = m.plan_time_out(Timestamp(85_000)).expect("flag fell");
    assert_eq!(t.at, Timestamp(61_000));
    assert_eq!((t.clocks.white_ms, t.clocks.black_ms), (0, 60_000));
    m.apply(t);
    assert_eq!(m.finished_at(), Some(Timestamp(61_000)));
}

fn over_the_board() -> Match {
    let tc = TimeControl {
        initial_ms: 60_000,
        increment_ms: 0,
    };
    let setup = Setup {
        over_the_board: true,
        ..setup(Some(tc))
    };
    Match::new(GameId(8), setup, Timestamp(1_000)).expect("new game")
}

#[test]
fn an_over_the_board_game_runs_no_clock_and_takes_no_player_action() {
    let m = over_the_board();
    assert_eq!(m.deadline(), None);
    assert!(m.plan_time_out(Timestamp(10_000_000)).is_none());
    let refused = |r: Result<Transition, ActionError>| matches!(r, Err(ActionError::OverTheBoard));
    assert!(matches!(
        m.plan_turn(Actor::Player(WHITE), 1, "d4-c6", Timestamp(2_000)),
        Err(ActionError::OverTheBoard)
    ));
    assert!(refused(
        m.plan_resign(Actor::Player(BLACK), Timestamp(2_000))
    ));
    assert!(refused(
        m.plan_offer_draw(Actor::Player(WHITE), Timestamp(2_000))
    ));
    assert!(refused(
        m.plan_abort(Actor::Player(WHITE), Timestamp(2_000))
    ));
}

#[test]
fn the_organisers_result_over_the_board_is_a_played_game() {
    let mut m = over_the_board();
    let decided = FinalResult::decided(Some(Outcome::Draw), false).expect("a draw");
    let t = m
        .plan_adjudicate(Actor::Admin, decided, Timestamp(5_000))
        .expect("the organiser's result");
    m.apply(t);
    let result = m.result().expect("over");
    assert_eq!(result.reason, Reason::OverTheBoard);
    assert!(
        result.played(0),
        "played over the board without a stored turn"
    );
    assert_eq!(result.summary(), "1/2-1/2 over-the-board");
    // A forfeit over the board is still a forfeit.
    let mut f = over_the_board();
    let forfeit = FinalResult::decided(Some(Outcome::Win(Side::White)), true).expect("forfeit");
    let t = f
        .plan_adjudicate(Actor::Admin, forfeit, Timestamp(5_000))
        .expect("a forfeit");
    f.apply(t);
    assert!(!f.result().expect("over").played(0));
    assert_eq!(
        Reason::from_name("over-the-board"),
        Some(Reason::OverTheBoard)
    );
}

#[test]
fn a_correction_needs_the_admin_a_game_over_and_another_result() {
    let mut m = over_the_board();
    let white = FinalResult::decided(Some(Outcome::Win(Side::White)), false).expect("1-0");
    let black = FinalResult::decided(Some(Outcome::Win(Side::Black)), false).expect("0-1");
    assert!(matches!(
        m.plan_correction(Actor::Admin, black),
        Err(ActionError::NotOverYet)
    ));
    let t = m
        .plan_adjudicate(Actor::Admin, white, Timestamp(5_000))
        .expect("1-0");
    m.apply(t);
    assert!(matches!(
        m.plan_correction(Actor::Player(WHITE), black),
        Err(ActionError::OrganiserOnly)
    ));
    // The same result again is nothing to do (a form sent twice).
    assert_eq!(m.plan_correction(Actor::Admin, white).expect("same"), None);
    let corrected = m
        .plan_correction(Actor::Admin, black)
        .expect("0-1")
        .expect("a change");
    assert_eq!(corrected.reason, Reason::OverTheBoard);
    m.apply_correction(corrected);
    assert_eq!(m.result(), Some(corrected));
    assert_eq!(
        m.finished_at(),
        Some(Timestamp(5_000)),
        "the end time stays"
    );
    // To a double forfeit: the game counts for nothing.
    let none = FinalResult::decided(None, true).expect("-/-");
    let c = m
        .plan_correction(Actor::Admin, none)
        .expect("ok")
        .expect("change");
    m.apply_correction(c);
    assert_eq!(m.status(), Status::Aborted);
    assert!(!m.result().expect("result").played(0));
}
