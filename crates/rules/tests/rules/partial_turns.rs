//! Partial turns through the seam ([`Game::partial_turn`]), for both games: cases as data, then
//! properties over random playouts that hold the partial-turn answers to `legal_steps` and
//! `play_turn` (RULES.md 1.4 for HanniBall's turns, 2.3 for paper football's).

use hanniball_rules::hanniball::playout::{goal_seeking_turn, random_turn};
use hanniball_rules::hanniball::{HanniBallGame, Position, Ruleset, Turn};
use hanniball_rules::paper::{Direction, PaperGame, StepOutcome, write_steps};
use hanniball_rules::{Game, GameKind, GameOptions, PartialTurn, TurnError};

fn hanniball() -> Box<dyn Game> {
    GameKind::HanniBall
        .new_game(&GameOptions::default())
        .expect("a new game")
}

fn paper() -> Box<dyn Game> {
    GameKind::PaperFootball
        .new_game(&GameOptions::default())
        .expect("a new game")
}

/// What a partial turn answers, compactly: `next` count, may/must flags, the position, and the
/// result, or the error.
fn describe(game: &dyn Game, steps: &str) -> String {
    match game.partial_turn(steps) {
        Ok(p) => format!(
            "{} next, may_end {}, must_end {}, {}{}",
            p.next.len(),
            p.may_end,
            p.must_end,
            p.position,
            p.result.map(|r| format!(" ({r})")).unwrap_or_default()
        ),
        Err(TurnError::Malformed(reason)) => format!("malformed: {reason}"),
        Err(TurnError::Illegal(reason)) => format!("illegal: {reason}"),
    }
}

fn check(game: &dyn Game, steps: &str, expected: &str) {
    assert_eq!(describe(game, steps), expected, "partial turn {steps:?}");
}

const START_BOARD: &str =
    "1k1/2l3l2/1e1e1e1e1/1h1h1h1h1/9/9/9/9/9/9/9/1H1H1H1H1/1E1E1E1E1/2L3L2/1K1";

// RULES 1.4 (two steps on White's first turn, the must-change rule) and 1.11 (the mid-turn
// position is written with the same side to move and the steps taken so far).
#[test]
fn hanniball_cases() {
    let game = hanniball();
    let moved = "1k1/2l3l2/1e1e1e1e1/1h1h1h1h1/9/9/9/9/9/2H6/9/1H3H1H1/1E1E1E1E1/2L3L2/1K1";
    let cases: &[(&str, String)] = &[
        (
            "",
            format!(
                "{} next, may_end false, must_end false, {START_BOARD} e8 w 1 0 standard",
                game.legal_steps().len()
            ),
        ),
        (
            "d4-c6",
            format!(
                "{} next, may_end true, must_end false, {moved} e8 w 1 1 standard",
                Position::from_notation(&format!("{moved} e8 w 1 1 standard"))
                    .expect("mid-turn position")
                    .legal_steps()
                    .len()
            ),
        ),
        // Back where it started: two steps (the first turn's limit) that change nothing.
        (
            "d4-c6 c6-d4",
            format!("0 next, may_end false, must_end true, {START_BOARD} e8 w 1 2 standard"),
        ),
        // The turn is full and changed the board: the position is play_turn's, Black to move.
        (
            "d4-c6 f4-e6",
            format!(
                "0 next, may_end true, must_end true, {}",
                game.play_turn("d4-c6 f4-e6").expect("legal").position()
            ),
        ),
        (
            "d4-c6 f4-e6 e6-f4",
            "illegal: step e6-f4 is illegal: the turn already has its 2 steps".to_owned(),
        ),
        (
            "d4-d3",
            "illegal: step d4-d3 is illegal: d3 holds a white elephant".to_owned(),
        ),
        (
            "d4-c6  f4-e6",
            "malformed: turn \"d4-c6  f4-e6\": steps must be separated by single spaces".to_owned(),
        ),
        ("d4c6", describe_malformed(&*game, "d4c6")),
    ];
    for (steps, expected) in cases {
        check(&*game, steps, expected);
    }
    assert_eq!(
        game.partial_turn("").expect("turn start").next,
        game.legal_steps()
    );
}

/// The malformed-turn message `play_turn` gives, which a partial turn must repeat.
fn describe_malformed(game: &dyn Game, steps: &str) -> String {
    match game.play_turn(steps) {
        Err(TurnError::Malformed(reason)) => format!("malformed: {reason}"),
        other => panic!("{steps:?} should be malformed, got {other:?}"),
    }
}

// RULES 1.7: a goal ends the turn (and the game) mid-turn.
#[test]
fn hanniball_goal_ends_the_partial_turn() {
    // White's lion on e13 holds the ball next to Black's goal: shooting in wins at once.
    let position = "1k1/4L4/9/9/9/9/9/9/9/9/9/9/9/9/1K1 e14 w 5 0 standard";
    let game = GameKind::HanniBall
        .load(position, &GameOptions::default())
        .expect("position");
    let p = game.partial_turn("e14>d15").expect("a goal");
    assert!(p.may_end && p.must_end && p.next.is_empty(), "{p:?}");
    assert_eq!(p.result.map(|r| r.to_string()).as_deref(), Some("1-0 goal"));
    assert_eq!(
        p.position,
        game.play_turn("e14>d15").expect("legal").position()
    );
    check(
        &*game,
        "e14>d15 e1-e2",
        "illegal: step e1-e2 is illegal: the game is over (1-0 goal)",
    );
}

// RULES 2.3: bounces keep the turn open; a step that does not bounce passes it.
#[test]
fn paper_cases() {
    let game = paper();
    check(&*game, "", "8 next, may_end false, must_end false, ");
    check(&*game, "N", "0 next, may_end true, must_end true, N");
    // The turn passed after N: S belongs to the opponent's turn.
    check(
        &*game,
        "N S",
        &format!(
            "illegal: {}",
            match game.play_turn("N S") {
                Err(TurnError::Illegal(reason)) => reason,
                other => panic!("N S should be illegal, got {other:?}"),
            }
        ),
    );
    let after_n = game.play_turn("N").expect("legal");
    // Black from (4,7): E to the unused (5,7) passes the turn.
    check(&*after_n, "E", "0 next, may_end true, must_end true, N E");
    // White from (5,7): SW lands on the used kick-off point (4,6), so a bounce is owed.
    let after_ne = after_n.play_turn("E").expect("legal");
    let p = after_ne.partial_turn("SW").expect("a legal step");
    assert!(!p.may_end && !p.must_end, "{p:?}");
    assert_eq!(p.position, "N E SW");
    assert_eq!(p.result, None);
    assert!(!p.next.is_empty());
    assert!(after_ne.play_turn("SW").is_err(), "a bounce is owed");
    check(
        &*game,
        "X",
        &format!("malformed: {}", malformed_reason(&*game, "X")),
    );
}

fn malformed_reason(game: &dyn Game, steps: &str) -> String {
    match game.play_turn(steps) {
        Err(TurnError::Malformed(reason)) => reason,
        other => panic!("{steps:?} should be malformed, got {other:?}"),
    }
}

// ---------------------------------------------------------------------------------------------
// Properties.

/// Checks every prefix of a turn `steps` played from `game` (the turn is legal): the next played
/// step is listed, "may end" agrees with `play_turn`, a turn-start answer lists `legal_steps`, and
/// the whole turn's answer agrees with the position `play_turn` gives. Returns the game after it.
fn check_played_turn(game: &dyn Game, steps: &[String]) -> Box<dyn Game> {
    let whole = steps.join(" ");
    let played = game
        .play_turn(&whole)
        .unwrap_or_else(|e| panic!("{whole:?} at {}: {e}", game.position()));
    for k in 0..=steps.len() {
        let prefix = steps[..k].join(" ");
        let p = game
            .partial_turn(&prefix)
            .unwrap_or_else(|e| panic!("{prefix:?} at {}: {e}", game.position()));
        if k == 0 {
            assert_eq!(
                p.next,
                game.legal_steps(),
                "turn start at {}",
                game.position()
            );
        }
        if let Some(next) = steps.get(k) {
            assert!(
                p.next.contains(next),
                "{next} not listed after {prefix:?} at {}: {:?}",
                game.position(),
                p.next
            );
            assert!(!p.must_end, "{prefix:?} must end, yet {next} followed");
        }
        assert_eq!(
            p.may_end,
            game.play_turn(&prefix).is_ok(),
            "may_end after {prefix:?} at {}",
            game.position()
        );
        assert_eq!(p.must_end, p.next.is_empty());
        if k == steps.len() {
            assert!(p.may_end);
            if p.must_end {
                assert_eq!(p.position, played.position(), "after {whole:?}");
                assert_eq!(p.result, played.result(), "after {whole:?}");
            }
        }
    }
    played
}

/// Builds one turn step by step from the listed next steps only (ending at random where it may),
/// and checks that `play_turn` accepts it and agrees on the position once the turn had to end.
/// Returns false on a dead end (no step listed and the turn may not end there).
fn check_built_turn(game: &dyn Game, rng: &mut hanniball_rng::Rng) -> bool {
    let mut steps: Vec<String> = Vec::new();
    loop {
        let text = steps.join(" ");
        let p: PartialTurn = game.partial_turn(&text).unwrap_or_else(|e| {
            panic!("listed steps {text:?} refused at {}: {e}", game.position())
        });
        assert_eq!(p.may_end, game.play_turn(&text).is_ok(), "{text:?}");
        if p.may_end && (p.must_end || rng.u8(..3) == 0) {
            let played = game.play_turn(&text).expect("may_end");
            if p.must_end {
                assert_eq!(p.position, played.position());
            }
            return true;
        }
        if p.next.is_empty() {
            assert!(p.must_end && !p.may_end);
            return false;
        }
        steps.push(p.next[rng.usize(..p.next.len())].clone());
    }
}

/// A refused partial turn is refused by `play_turn` with the same error.
fn check_refusal(game: &dyn Game, text: &str) {
    if let Err(error) = game.partial_turn(text) {
        assert_eq!(
            game.play_turn(text).err(),
            Some(error),
            "{text:?} at {}",
            game.position()
        );
    }
}

#[test]
fn hanniball_partial_turns_agree_with_play_turn_in_random_games() {
    let mut rng = hanniball_rng::Rng::new(19);
    let (mut turns, mut built, mut dead_ends, mut goals) = (0, 0, 0, 0);
    // The initial position, and a sparse one where White's lion can shoot at once into Black's
    // goal (random play from the start scores rarely: keepers ricochet shots).
    let sparse = "1k1/9/4L4/9/9/9/2h3e2/9/2H3E2/9/9/9/9/9/1K1 e13 w 5 0 standard";
    for game_index in 0..60 {
        let ruleset = if game_index % 2 == 0 {
            Ruleset::Standard
        } else {
            Ruleset::Zillions2010
        };
        let mut position = if game_index % 4 == 3 {
            Position::from_notation(sparse).expect("sparse position")
        } else {
            Position::initial(ruleset)
        }
        .with_max_turns(80);
        loop {
            let game: Box<dyn Game> = Box::new(HanniBallGame::new(position));
            let mut pick = |n: usize| rng.usize(..n);
            let turn: Option<Turn> = if game_index % 3 == 0 {
                random_turn(&position, &mut pick)
            } else {
                goal_seeking_turn(&position, &mut pick)
            };
            let Some(turn) = turn else { break };
            let steps: Vec<String> = turn.0.iter().map(ToString::to_string).collect();
            let played = check_played_turn(&*game, &steps);
            turns += 1;
            if check_built_turn(&*game, &mut rng) {
                built += 1;
            } else {
                dead_ends += 1;
            }
            // A wrong step after a legal prefix: the played step from another square, a step
            // listed at turn start but played later, arbitrary text.
            let k = rng.usize(..=steps.len());
            let mut wrong = steps[..k].to_vec();
            let start = game.legal_steps();
            wrong.push(start[rng.usize(..start.len())].clone());
            check_refusal(&*game, &wrong.join(" "));
            check_refusal(&*game, &format!("{} e8-e9 xa1", steps.join(" ")));
            check_refusal(&*game, "xe8");
            position = position.play_turn(&turn).expect("a playout turn is legal");
            assert_eq!(played.position(), position.to_notation());
            if position.result_is_goal() {
                goals += 1;
            }
            let _ = played;
        }
    }
    assert!(turns > 500, "only {turns} turns checked");
    assert!(built > 500, "only {built} turns built from listed steps");
    assert!(
        goals > 5,
        "only {goals} goals: the goal path was hardly tested"
    );
    // Dead ends (four steps back to the start) are possible but rare; nothing to assert.
    let _ = dead_ends;
}

/// A random paper-football game through the typed API, cut into turns by what each step did.
fn paper_game_turns(rng: &mut hanniball_rng::Rng) -> Vec<Vec<Direction>> {
    let mut position = hanniball_rules::paper::Position::initial();
    let mut turns = Vec::new();
    let mut current = Vec::new();
    while !position.is_over() {
        let legal: Vec<Direction> = position.legal_steps().into_iter().collect();
        let step = legal[rng.usize(..legal.len())];
        let outcome = position.apply_step(step).expect("a listed step is legal");
        current.push(step);
        if !matches!(outcome, StepOutcome::Bounce(_)) {
            turns.push(std::mem::take(&mut current));
        }
    }
    turns
}

#[test]
fn paper_partial_turns_agree_with_play_turn_in_random_games() {
    let mut rng = hanniball_rng::Rng::new(2013);
    let (mut turns, mut bounces) = (0, 0);
    for _ in 0..60 {
        let mut game: Box<dyn Game> =
            Box::new(PaperGame::new(&GameOptions::default()).expect("new"));
        for turn in paper_game_turns(&mut rng) {
            let steps: Vec<String> = turn.iter().map(|d| d.name().to_owned()).collect();
            bounces += steps.len() - 1;
            let played = check_played_turn(&*game, &steps);
            assert!(
                check_built_turn(&*game, &mut rng),
                "paper turns never dead-end mid-turn"
            );
            let mut wrong = steps.clone();
            wrong.push(Direction::BY_NAME[rng.usize(..8)].name().to_owned());
            check_refusal(&*game, &wrong.join(" "));
            check_refusal(&*game, &write_steps(&[Direction::N, Direction::S]));
            game = played;
            turns += 1;
        }
        assert!(game.result().is_some());
    }
    assert!(turns > 300, "only {turns} turns checked");
    assert!(
        bounces > 100,
        "only {bounces} bounces: mid-turn answers were hardly tested"
    );
}
