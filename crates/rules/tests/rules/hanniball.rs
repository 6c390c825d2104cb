//! HanniBall rules, section by section (each test names the RULES.md section it proves), plus
//! property tests over random playouts.

use hanniball_rules::hanniball::playout::{Playout, goal_seeking_turn, random_game, random_turn};
use hanniball_rules::hanniball::square::Square;
use hanniball_rules::hanniball::{
    INITIAL, IllegalTurn, Kind, Position, Ruleset, Step, StepRefusal, TurnTextError,
};
use hanniball_rules::{EndReason, GameKind, GameOptions, Outcome, Side};

// ---------------------------------------------------------------------------------------------
// Helpers: positions from a piece list, checks as data.

/// A position from `pieces` ("Ke1 Ed7 hd12": letter then square), the ball square and the rest of
/// the notation ("w 2 0 standard").
fn setup(pieces: &str, ball: &str, tail: &str) -> Position {
    let mut grid = [[None::<char>; 9]; 15];
    for item in pieces.split_whitespace() {
        let letter = item.chars().next().expect("piece letter");
        let square = Square::parse(&item[1..]).unwrap_or_else(|| panic!("square in {item}"));
        grid[square.rank() as usize][square.file() as usize] = Some(letter);
    }
    let mut ranks = Vec::new();
    for rank in (0..15u8).rev() {
        let files = if rank == 0 || rank == 14 { 3..6 } else { 0..9 };
        let mut text = String::new();
        let mut run = 0;
        for file in files {
            match grid[rank as usize][file as usize] {
                None => run += 1,
                Some(letter) => {
                    if run > 0 {
                        text.push_str(&run.to_string());
                        run = 0;
                    }
                    text.push(letter);
                }
            }
        }
        if run > 0 {
            text.push_str(&run.to_string());
        }
        ranks.push(text);
    }
    let notation = format!("{} {ball} {tail}", ranks.join("/"));
    Position::from_notation(&notation).unwrap_or_else(|e| panic!("{notation}: {e}"))
}

fn step(text: &str) -> Step {
    text.parse().unwrap_or_else(|e| panic!("{text}: {e}"))
}

/// Each step of `listed` is legal and listed; each of `refused` is not listed and is refused with
/// a reason whose text contains the given fragment.
fn check(position: &Position, listed: &[&str], refused: &[(&str, &str)]) {
    let texts = position.legal_step_texts();
    for text in listed {
        assert!(
            texts.iter().any(|t| t == text),
            "{text} should be listed at {position}; listed: {texts:?}"
        );
        assert_eq!(
            position.check_step(step(text)),
            Ok(()),
            "{text} at {position}"
        );
    }
    for (text, reason) in refused {
        assert!(
            !texts.iter().any(|t| t == text),
            "{text} should not be listed at {position}"
        );
        let error = position
            .play_step(step(text))
            .expect_err("refused step")
            .to_string();
        assert!(
            error.contains(reason),
            "{text} at {position}: {error:?} should mention {reason:?}"
        );
    }
}

fn turn(position: &Position, text: &str) -> Result<Position, TurnTextError> {
    position.play_turn_text(text)
}

fn played(position: &Position, text: &str) -> Position {
    turn(position, text).unwrap_or_else(|e| panic!("{text} at {position}: {e}"))
}

fn sq(text: &str) -> Square {
    Square::parse(text).expect("square")
}

// ---------------------------------------------------------------------------------------------
// RULES 1.1 board and coordinates

#[test]
fn board_has_123_squares_and_goals_on_ranks_1_and_15() {
    // RULES 1.1: nothing but d e f exists on ranks 1 and 15.
    let p = setup("Ke1 ke15 Ed2", "e8", "w 2 0 standard");
    check(&p, &["d2-d1", "d2-c3", "d2-e3"], &[]);
    for text in ["d2-c1", "e1-e0", "d2-j2"] {
        let error = text.parse::<Step>().expect_err(text).to_string();
        assert!(error.contains("not a square of the board"), "{error}");
    }
    for text in ["c1", "g15", "a1", "i15"] {
        assert!(Square::parse(text).is_none(), "{text}");
    }
}

// ---------------------------------------------------------------------------------------------
// RULES 1.2 pieces and initial position

#[test]
fn initial_position_matches_the_rules() {
    let initial = Position::initial(Ruleset::Standard);
    assert_eq!(initial.to_notation(), INITIAL);
    assert_eq!(Position::from_notation(INITIAL), Ok(initial));
    assert_eq!(initial.ball(), sq("e8"));
    assert_eq!(initial.ball_holder(), None);
    for side in [Side::White, Side::Black] {
        for kind in Kind::ALL {
            let count = (initial.pieces_of(side) & initial.pieces_of_kind(kind)).count_ones();
            assert_eq!(count, kind.initial_count(), "{side} {kind:?}");
        }
    }
    // Counted by hand: keeper 5, lions 6 + 6, elephants 4 × 6, horses 4 + 5 + 5 + 4.
    assert_eq!(initial.legal_steps().len(), 59);
}

// ---------------------------------------------------------------------------------------------
// RULES 1.3 possession

#[test]
fn possession_follows_the_ball_square() {
    // Moving onto the loose ball takes it.
    let p = setup("Ke1 Ed7 ke15 hd12", "e8", "w 2 0 standard");
    let q = p.play_step(step("d7-e8")).expect("pick-up");
    assert_eq!(
        q.ball_holder().map(|piece| piece.kind),
        Some(Kind::Elephant)
    );
    // A shot landing on a non-keeper piece of either colour is taken by it.
    let p = setup("Ke1 Ee8 Hd10 ke15 hf10", "e8", "w 2 0 standard");
    let q = p.play_step(step("e8>f10")).expect("shot to an opponent");
    assert_eq!(q.ball_holder().map(|piece| piece.side), Some(Side::Black));
    let q = p.play_step(step("e8>d10")).expect("pass");
    assert_eq!(q.ball_holder().map(|piece| piece.side), Some(Side::White));
    // A shot onto an empty square leaves the ball loose.
    let q = p.play_step(step("e8>c9")).expect("shot");
    assert_eq!((q.ball(), q.ball_holder()), (sq("c9"), None));
}

// ---------------------------------------------------------------------------------------------
// RULES 1.4 turns

#[test]
fn white_first_turn_has_two_steps_then_four() {
    let initial = Position::initial(Ruleset::Standard);
    let error = turn(&initial, "d4-c6 c6-d8 d8-e6").expect_err("three steps");
    assert!(error.to_string().contains("its 2 steps"), "{error}");
    let after = played(&initial, "d4-c6 c6-b8");
    assert_eq!(after.side_to_move(), Side::Black);
    assert_eq!((after.fullmove(), after.step_limit()), (1, 4));
    let after = played(&after, "d12-c10 c10-d8 f12-e10 e10-f8");
    assert_eq!((after.side_to_move(), after.fullmove()), (Side::White, 2));
    // A mid-turn position at its step limit lists nothing.
    let full = Position::from_notation(&INITIAL.replace("w 1 0", "w 1 2")).expect("valid");
    assert!(full.legal_steps().is_empty());
    assert!(matches!(
        full.check_step(step("d4-c6")),
        Err(StepRefusal::TurnFull { limit: 2 })
    ));
}

#[test]
fn a_turn_must_change_the_position() {
    let initial = Position::initial(Ruleset::Standard);
    for text in ["d4-c6 c6-d4", "b3-a2 a2-b3"] {
        assert_eq!(
            turn(&initial, text),
            Err(TurnTextError::Illegal(IllegalTurn::NoChange)),
            "{text}"
        );
    }
    // RULES 1.4: two pieces of the same colour and kind that swap squares change nothing ...
    let p = setup("Ke1 Ed7 Ee7 ke15 ha12", "i8", "w 3 0 standard");
    assert_eq!(
        turn(&p, "d7-d8 e7-d7 d8-e7"),
        Err(TurnTextError::Illegal(IllegalTurn::NoChange))
    );
    // ... but a horse and an elephant trading places do change it.
    let p = setup("Ke1 Ed7 Hf8 ke15 ha12", "i8", "w 3 0 standard");
    assert!(turn(&p, "d7-e7 f8-d7 e7-f8").is_ok());
    // A ricochet back onto the shooter is listed, but is not a turn on its own.
    let p = setup("Ke1 He14 ke15 ha12", "e14", "w 3 0 standard");
    check(&p, &["e14>e15>e14"], &[]);
    assert_eq!(
        turn(&p, "e14>e15>e14"),
        Err(TurnTextError::Illegal(IllegalTurn::NoChange))
    );
    // An empty turn is well formed and illegal.
    assert_eq!(
        turn(&initial, ""),
        Err(TurnTextError::Illegal(IllegalTurn::Empty))
    );
}

#[test]
fn the_game_ends_mid_turn_at_a_goal() {
    let p = setup("Ke1 Le13 ke15 ha12", "e13", "w 3 0 standard");
    let end = played(&p, "e13>d15");
    assert_eq!(end.to_notation().split(' ').nth(1), Some("d15"));
    assert_eq!((end.side_to_move(), end.steps_taken()), (Side::White, 1));
    assert!(end.legal_steps().is_empty());
    let error = turn(&p, "e13>d15 e13-e12").expect_err("step after the goal");
    assert!(error.to_string().contains("the game is over"), "{error}");
}

// ---------------------------------------------------------------------------------------------
// RULES 1.5 steps

#[test]
fn move_targets() {
    // Empty squares and the loose ball: yes. Own pieces, opponents without the ball: no.
    let p = setup("Ke1 Ed7 Hd8 ke15 he6", "e8", "w 2 0 standard");
    check(
        &p,
        &["d7-e8", "d7-c6"],
        &[
            ("d7-d8", "d8 holds a white horse"),
            ("d7-e6", "e6 holds a black horse"),
            ("d7-d9", "cannot go from d7 to d9"),
            ("e6-e7", "not a piece of the side to move"),
            ("c6-c7", "c6 is empty"),
        ],
    );
    // Capture: the opponent piece holding the ball is removed and the mover takes the ball.
    let p = setup("Ke1 Ed7 ke15 he8", "e8", "w 2 0 standard");
    check(&p, &["d7-e8"], &[]);
    let q = p.play_step(step("d7-e8")).expect("capture");
    assert_eq!(
        q.piece_at(sq("e8")).map(|piece| piece.side),
        Some(Side::White)
    );
    assert_eq!(q.pieces_of(Side::Black).count_ones(), 1);
    assert_eq!(q.ball(), sq("e8"));
}

#[test]
fn carry_and_move_of_the_ball_holder() {
    let p = setup("Ke1 Ee8 Hd9 ke15 hf9", "e8", "w 2 0 standard");
    check(
        &p,
        &["e8=e9", "e8-e9", "e8=d7"],
        &[
            ("e8=d9", "d9 holds a white horse"),
            ("e8=f9", "f9 holds a black horse"),
            ("d9=d10", "does not hold the ball"),
        ],
    );
    let carried = p.play_step(step("e8=e9")).expect("carry");
    assert_eq!(carried.ball(), sq("e9"));
    let moved = p.play_step(step("e8-e9")).expect("move leaving the ball");
    assert_eq!((moved.ball(), moved.ball_holder()), (sq("e8"), None));
}

#[test]
fn the_keeper_never_leaves_the_ball_behind() {
    let p = setup("Ke2 ke15 ha12", "e2", "w 2 0 standard");
    check(
        &p,
        &["e2=e3", "e2=d1"],
        &[
            ("e2-e3", "may not leave the ball"),
            ("e2=d4", "outside the keeper's zone"),
        ],
    );
}

#[test]
fn a_keeper_holding_the_ball_can_be_captured() {
    let p = setup("Ke2 Ea2 ke15 hd4", "e2", "b 2 0 standard");
    check(&p, &["d4-e2"], &[]);
    let q = p.play_step(step("d4-e2")).expect("capture the keeper");
    assert_eq!(q.pieces_of_kind(Kind::Keeper).count_ones(), 1);
    // A side without a keeper plays on.
    let q = played(&p, "d4-e2 e2=f4");
    assert_eq!(q.side_to_move(), Side::White);
    assert!(q.result().is_none());
}

// ---------------------------------------------------------------------------------------------
// RULES 1.6 how pieces move and shoot

#[test]
fn horse_leaps_are_blocked_by_two_pieces_in_standard() {
    // Two pieces of either colour on both intermediate squares block; one does not; the ball never.
    let both = setup("Ke1 Hd4 Ed5 ke15 he5", "i8", "w 2 0 standard");
    check(
        &both,
        &["d4-f5"],
        &[("d4-e6", "blocked by the pieces on d5 and e5")],
    );
    let one = setup("Ke1 Hd4 Ed5 ke15", "e5", "w 2 0 standard");
    check(&one, &["d4-e6"], &[]);
    // A leap with a non-existent intermediate square is never blocked: b2-d1 over c2 and c1.
    let edge = setup("Ke2 Hb2 Ec2 ke15", "i8", "w 2 0 standard");
    check(&edge, &["b2-d1"], &[]);
}

#[test]
fn horse_leaps_are_blocked_by_opponent_pieces_only_in_zillions() {
    let mixed = setup("Ke1 Hd4 Ed5 ke15 he5", "i8", "w 2 0 zillions-2010");
    check(&mixed, &["d4-e6"], &[]);
    let opponents = setup("Ke1 Hd4 ke15 ed5 he5", "i8", "w 2 0 zillions-2010");
    check(&opponents, &[], &[("d4-e6", "blocked")]);
    let own = setup("Ke1 Hd4 Ed5 Ee5 ke15", "i8", "w 2 0 zillions-2010");
    check(&own, &["d4-e6"], &[]);
}

#[test]
fn lions_move_and_shoot_as_horse_and_elephant() {
    let p = setup("Ke1 Le8 ke15", "e8", "w 2 0 standard");
    let shots: Vec<String> = p
        .legal_step_texts()
        .into_iter()
        .filter(|t| t.contains('>'))
        .collect();
    assert_eq!(shots.len(), 16, "{shots:?}");
    check(
        &p,
        &["e8=f10", "e8-e9", "e8>e9", "e8>f10"],
        &[("e8>e10", "cannot go")],
    );
}

#[test]
fn shots_fly_over_pieces() {
    // RULES 1.6: an elephant's knight shot is never blocked.
    let p = setup("Ke1 Ee8 Ee9 Ef9 ke15 hd9", "e8", "w 2 0 standard");
    check(&p, &["e8>f10", "e8>d10"], &[]);
    // A keeper's straight shot flies over pieces on its path.
    let p = setup("Ke3 Ee4 ke15 he5", "e3", "w 2 0 standard");
    check(&p, &["e3>e6", "e3>e8", "e3>e5"], &[("e3>e9", "cannot go")]);
}

#[test]
fn horse_shoots_adjacent_elephant_shoots_knight() {
    let horse = setup("Ke1 He8 ke15", "e8", "w 2 0 standard");
    check(&horse, &["e8>e9", "e8>d7"], &[("e8>f10", "cannot go")]);
    let elephant = setup("Ke1 Ee8 ke15", "e8", "w 2 0 standard");
    check(&elephant, &["e8>f10", "e8>c7"], &[("e8>e9", "cannot go")]);
}

#[test]
fn keeper_moves_only_within_its_zone() {
    let p = setup("Kd3 ke15", "i8", "w 2 0 standard");
    check(
        &p,
        &["d3-c2", "d3-e1", "d3-f2", "d3-e3"],
        &[
            ("d3-d4", "outside the keeper's zone"),
            ("d3-b2", "outside the keeper's zone"),
        ],
    );
    let black = setup("Ke1 kf13", "i8", "b 2 0 standard");
    check(
        &black,
        &["f13-e15", "f13-g14"],
        &[("f13-f12", "outside the keeper's zone")],
    );
}

#[test]
fn keeper_shoots_straight_one_to_five_landing_outside_its_zone() {
    let p = setup("Ke3 ke15", "e3", "w 2 0 standard");
    let mut shots: Vec<String> = p
        .legal_step_texts()
        .into_iter()
        .filter(|t| t.contains('>'))
        .collect();
    shots.sort();
    let mut expected: Vec<String> = [
        "a3", "a7", "b3", "b6", "c5", "d4", "e4", "e5", "e6", "e7", "e8", "f4", "g5", "h3", "h6",
        "i3", "i7",
    ]
    .iter()
    .map(|to| format!("e3>{to}"))
    .collect();
    expected.sort();
    assert_eq!(shots, expected);
    check(&p, &[], &[("e3>g3", "inside"), ("e3>e9", "cannot go")]);
}

#[test]
fn ricochet_off_a_keeper_is_the_shooters_choice() {
    // d13 shoots onto the black keeper on e15 (a knight offset): 13 landing squares, no goal square.
    let p = setup("Ke1 Ed13 ke15 hf14", "d13", "w 2 0 standard");
    let ricochets: Vec<String> = p
        .legal_step_texts()
        .into_iter()
        .filter(|t| t.starts_with("d13>e15>"))
        .collect();
    assert_eq!(ricochets.len(), 13, "{ricochets:?}");
    check(
        &p,
        &["d13>e15>e11", "d13>e15>a11", "d13>e15>f14", "d13>e15>e10"],
        &[
            ("d13>e15", "ricochets off the keeper on e15"),
            ("d13>e15>d15", "cannot land in a goal"),
            ("d13>e15>e9", "not 1 to 5 squares"),
            ("d13>f14>f13", "no keeper stands on f14"),
            ("d13>e15>f13", "not 1 to 5 squares"),
        ],
    );
    // It lands as any shot: on a non-keeper piece it is taken.
    let q = p
        .play_step(step("d13>e15>f14"))
        .expect("ricochet to a black horse");
    assert_eq!(q.ball_holder().map(|piece| piece.side), Some(Side::Black));
    // Own keepers ricochet too.
    let own = setup("Kd2 Le4 ke15", "e4", "w 2 0 standard");
    check(&own, &["e4>d2>e3", "e4>d2>d7"], &[("e4>d2", "ricochets")]);
}

#[test]
fn a_keeper_in_goal_saves_its_square() {
    // RULES 1.6 decision: the keeper on a goal square ricochets the ball.
    let p = setup("Ke1 Lf14 ke15", "f14", "w 2 0 standard");
    check(&p, &["f14>e15>e10", "f14>f15"], &[("f14>e15", "ricochets")]);
}

// ---------------------------------------------------------------------------------------------
// RULES 1.7 goals

#[test]
fn goals_and_own_goals() {
    let shot = setup("Ke1 Le13 ke15 ha12", "e13", "w 3 0 standard");
    let end = played(&shot, "e13>d15");
    let win = end.result().expect("goal");
    assert_eq!(
        (win.outcome, win.reason),
        (Outcome::Win(Side::White), EndReason::Goal)
    );

    let carry = setup("Ke1 Le14 ke15 ha12", "e14", "w 3 0 standard");
    let end = played(&carry, "e14=f15");
    let win = end.result().expect("goal by carry");
    assert_eq!(
        (win.outcome, win.reason),
        (Outcome::Win(Side::White), EndReason::Goal)
    );

    let own = setup("Kd2 Le3 ke15 ha12", "e3", "w 3 0 standard");
    let end = played(&own, "e3>f1");
    let loss = end.result().expect("own goal");
    assert_eq!(
        (loss.outcome, loss.reason),
        (Outcome::Win(Side::Black), EndReason::OwnGoal)
    );

    // Black scores into White's goal on rank 1.
    let black = setup("Ke2 ke15 le3", "e3", "b 3 0 standard");
    let end = played(&black, "e3>d1");
    let win = end.result().expect("black goal");
    assert_eq!(
        (win.outcome, win.reason),
        (Outcome::Win(Side::Black), EndReason::Goal)
    );
}

#[test]
fn a_shot_onto_a_piece_standing_in_goal_is_a_goal() {
    let p = setup("Ke1 Le13 ke14 hd15", "e13", "w 3 0 standard");
    let end = played(&p, "e13>d15");
    let win = end.result().expect("the ball is in the goal");
    assert_eq!(win.outcome, Outcome::Win(Side::White));
    // Pieces may stand in either goal without the ball.
    let q = setup("Ke1 Le13 ke14", "a8", "w 3 0 standard");
    let in_goal = played(&q, "e13-f15");
    assert!(in_goal.result().is_none());
}

// ---------------------------------------------------------------------------------------------
// RULES 1.8 red cards and penalty removal

fn offences(p: &Position) -> Vec<&'static str> {
    p.offences().names()
}

#[test]
fn obstruction() {
    // The ball in the a14 corner, walled by black on a13 b13 b14: no white piece can reach it;
    // horse leaps into a14 are blocked by two black pieces each. (Zillions: no clustering here.)
    let walled = "Ke1 Ee8 Hd10 Lg8 ke15 ea13 eb13 eb14";
    let p = setup(walled, "a14", "w 3 0 zillions-2010");
    assert_eq!(offences(&p), ["obstruction"]);
    // One gap and the elephant walks in.
    let p = setup("Ke1 Ee8 ke15 ea13 eb13", "a14", "w 3 0 zillions-2010");
    assert!(offences(&p).is_empty());
    // Only the keeper: no obstruction (RULES 1.8 needs a piece other than the keeper).
    let p = setup("Ke1 ke15 ea13 eb13 eb14", "a14", "w 3 0 zillions-2010");
    assert!(offences(&p).is_empty());
    // Holding the ball: no obstruction.
    let p = setup("Ke1 Ea14 ke15 ea13 eb13 eb14", "a14", "w 3 0 zillions-2010");
    assert!(offences(&p).is_empty());
    // Reaching the opponent's ball holder is reaching the ball.
    let p = setup("Ke1 Ee8 ke15 ea13 eb13 eb14", "b13", "w 3 0 zillions-2010");
    assert!(offences(&p).is_empty());
    // The player's own pieces are absent for the search: a white piece in the gap does not wall.
    let p = setup("Ke1 Ee8 Hb14 ke15 ea13 eb13", "a14", "w 3 0 zillions-2010");
    assert!(offences(&p).is_empty());
}

#[test]
fn obstruction_leaps_are_blocked_only_by_two_opponent_pieces() {
    // A horse alone, the ball loose on a14 behind black a13 b13 b14 c13: c13 is a wall, and the
    // only other leap into a14, from b12, is blocked by a13 and b13 (both black).
    let p = setup(
        "Ke1 Hd11 ke15 ea13 eb13 eb14 ec13",
        "a14",
        "w 3 0 zillions-2010",
    );
    assert_eq!(offences(&p), ["obstruction"]);
    // With b13 white instead: white pieces are absent, so the leap b12-a14 is open.
    let p = setup(
        "Ke1 Hd11 Hb13 ke15 ea13 eb14 ec13",
        "a14",
        "w 3 0 zillions-2010",
    );
    assert!(offences(&p).is_empty());
}

#[test]
fn obstruction_keeper_searches_only_its_zone() {
    // White: keeper and one horse walled away; the ball loose at c3, inside the white zone,
    // reachable by the keeper only.
    let p = setup(
        "Kd1 Ha14 ke15 ea12 eb12 ec13 ec14",
        "c3",
        "w 3 0 zillions-2010",
    );
    assert!(offences(&p).is_empty(), "the keeper reaches c3");
    // The ball just outside the zone (b3) and the horse boxed in: the keeper may not go there.
    let p = setup(
        "Kd1 Ha14 ke15 ea12 eb12 ec13 ec14",
        "b3",
        "w 3 0 zillions-2010",
    );
    assert_eq!(offences(&p), ["obstruction"]);
}

#[test]
fn clustering() {
    // Four black pieces in a row: clustering. Three: none. Diagonal contact does not connect.
    for (pieces, ball, expected) in [
        ("Ke1 Ea2 ke15 hd10 he10 hf10 hg10", "a8", true),
        ("Ke1 Ea2 ke15 hd10 he10 hf10", "a8", false),
        ("Ke1 Ea2 ke15 hd10 he11 hf10 hg11", "a8", false),
        ("Ke1 Ea2 ke15 hd10 hd11 he11 he12", "a8", true),
        // A loose ball counts for both colours ...
        ("Ke1 Ea2 ke15 hd10 he10 hf10", "g10", true),
        // ... a held ball adds nothing beyond its holder's square.
        ("Ke1 Ea2 ke15 hd10 he10 hf10", "f10", false),
        // The keeper counts.
        ("Ke1 Ea2 ke15 ld14 le14 hf13", "a8", false),
        ("Ke1 Ea2 ke15 le14 ld14 hc14", "a8", true),
        // Own pieces do not make an offence for the side to move.
        ("Ke1 Ea2 Ed10 Ee10 Ef10 Eg10 ke15", "a8", false),
    ] {
        let p = setup(pieces, ball, "w 3 0 standard");
        assert_eq!(p.offences().clustering, expected, "{pieces} ball {ball}");
        let z = setup(pieces, ball, "w 3 0 zillions-2010");
        assert!(
            !z.offences().clustering,
            "zillions-2010 has no clustering: {pieces}"
        );
    }
}

#[test]
fn penalty_removal() {
    let p = setup("Ke1 Ea2 ke15 hd10 he10 hf10 hg10", "g10", "w 3 0 standard");
    assert_eq!(offences(&p), ["clustering"]);
    check(
        &p,
        &["xd10", "xe10", "xg10"],
        &[
            ("xe15", "the keeper on e15 can never be removed"),
            ("xa2", "only opponent pieces"),
            ("xa3", "a3 is empty"),
        ],
    );
    // Removing the ball holder leaves the ball loose on its square.
    let q = p.play_step(step("xg10")).expect("removal");
    assert_eq!((q.ball(), q.ball_holder()), (sq("g10"), None));
    // Only as the first step, once per turn.
    check(&q, &[], &[("xd10", "only allowed as the first step")]);
    assert!(turn(&p, "xg10 xf10").is_err());
    assert!(turn(&p, "a2-a3 xd10").is_err());
    // A removal counts as a step of the turn, and is a turn on its own.
    let after = played(&p, "xd10");
    assert_eq!(after.side_to_move(), Side::Black);
    // No offence, no removal.
    let calm = setup("Ke1 Ea2 ke15 hd10 he10", "a8", "w 3 0 standard");
    check(&calm, &[], &[("xd10", "no offence")]);
    // The offence is the opponent's: Black to move here has nothing to punish.
    let black = setup("Ke1 Ea2 ke15 hd10 he10 hf10 hg10", "a8", "b 3 0 standard");
    assert!(offences(&black).is_empty());
}

#[test]
fn removal_on_white_first_turn_is_one_of_its_two_steps() {
    // A contrived first position with a black cluster.
    let p = setup("Ke1 Hd4 ke15 hd10 he10 hf10 hg10", "a8", "w 1 0 standard");
    assert!(turn(&p, "xd10 d4-c6").is_ok());
    assert!(turn(&p, "xd10 d4-c6 c6-d8").is_err());
}

// ---------------------------------------------------------------------------------------------
// RULES 1.9 end of game

#[test]
fn no_legal_turn_loses() {
    // White has only its keeper, boxed in by black pieces without the ball (zillions: no
    // clustering, so no removal either).
    let p = setup(
        "Ke1 ke15 hd1 hf1 hd2 ee2 ef2 lc2 lg2 ed3",
        "a8",
        "w 5 0 zillions-2010",
    );
    assert!(p.legal_steps().is_empty());
    let result = p.result().expect("no legal turn");
    assert_eq!(
        (result.outcome, result.reason),
        (Outcome::Win(Side::Black), EndReason::NoLegalTurn)
    );
    // The leap e1-f3 stays shut (e2 and f2 both black), even to capture the ball holder on f3.
    let q = setup(
        "Ke1 ke15 hd1 hf1 hd2 ee2 ef2 lc2 lg2 ed3 hf3",
        "f3",
        "w 5 0 zillions-2010",
    );
    assert_eq!(q.result().map(|r| r.reason), Some(EndReason::NoLegalTurn));
    // Open f2 and the keeper has a move.
    let open = setup(
        "Ke1 ke15 hd1 hf1 hd2 ee2 lc2 lg2 ed3",
        "a8",
        "w 5 0 zillions-2010",
    );
    assert!(open.result().is_none());
    assert!(open.legal_step_texts().contains(&"e1-f2".to_owned()));
}

#[test]
fn max_turns_is_a_draw() {
    let p = setup("Ke1 Ea2 ke15 ea13", "e8", "w 151 0 standard");
    let result = p.result().expect("300 turns played");
    assert_eq!(
        (result.outcome, result.reason),
        (Outcome::Draw, EndReason::MaxTurns)
    );
    assert!(p.legal_steps().is_empty());
    let longer = p.with_max_turns(400);
    assert!(longer.result().is_none());
    // One turn before the limit, the last turn is still played, then the game is drawn.
    let before = setup("Ke1 Ea2 ke15 ea13", "e8", "b 150 0 standard");
    assert!(before.result().is_none());
    let after = played(&before, "a13-a12");
    assert_eq!(after.result().map(|r| r.reason), Some(EndReason::MaxTurns));
}

// ---------------------------------------------------------------------------------------------
// RULES 1.10 rulesets — covered above for blocking and clustering; here through the seam.

#[test]
fn rulesets_through_the_seam() {
    for ruleset in ["standard", "zillions-2010"] {
        let options = GameOptions {
            ruleset: Some(ruleset.to_owned()),
            max_turns: Some(10),
        };
        let game = GameKind::HanniBall.new_game(&options).expect("new game");
        assert!(game.position().ends_with(ruleset));
        let loaded = GameKind::HanniBall
            .load(&game.position(), &options)
            .expect("load");
        assert_eq!(loaded.position(), game.position());
    }
    let unknown = GameOptions {
        ruleset: Some("fifa".to_owned()),
        max_turns: None,
    };
    assert!(GameKind::HanniBall.new_game(&unknown).is_err());
}

// ---------------------------------------------------------------------------------------------
// RULES 1.11 notation

#[test]
fn step_notation_round_trips_and_names_bad_tokens() {
    for text in ["d4-e6", "e8=e9", "f6>g8", "e10>e15>e11", "xg7", "d15-e15"] {
        assert_eq!(step(text).to_string(), text);
    }
    for (text, fragment) in [
        ("d4", "expected from-to"),
        ("d4-e66", "\"e66\" is not a square"),
        ("x", "\"\" is not a square"),
        ("xa1", "\"a1\" is not a square"),
        ("d4>e5>", "\"\" is not a square"),
        ("d4*e5", "expected from-to"),
        ("D4-e5", "\"D4\" is not a square"),
        ("d04-e5", "\"d04\" is not a square"),
        ("d4-e5-e6", "\"e5-e6\" is not a square"),
        ("e10>e15>e11>e12", "\"e11>e12\" is not a square"),
    ] {
        let error = text.parse::<Step>().expect_err(text).to_string();
        assert!(error.contains(fragment), "{text}: {error}");
        assert!(error.contains(text), "{text}: {error} names the token");
    }
}

#[test]
fn position_notation_rejects_malformed_text() {
    let cases = [
        (INITIAL.replace(" standard", ""), "expected 6 fields"),
        (INITIAL.replace(" w ", "  w "), "expected 6 fields"),
        (INITIAL.replace("1k1/", "1k2/"), "covers 4 squares"),
        (
            INITIAL.replace("/9/9/9/9/", "/9/9/45/9/"),
            "two digits side by side",
        ),
        (INITIAL.replace("/9/9/9/9/", "/9/9/0/9/"), "one digit 1-9"),
        (
            INITIAL.replace("/9/9/9/9/", "/9/9/8/9/"),
            "covers 8 squares",
        ),
        (
            INITIAL.replace("/9/9/9/9/", "/9/9/4x4/9/"),
            "'x' is not a piece letter",
        ),
        (INITIAL.replace(" e8 ", " a1 "), "ball square \"a1\""),
        (INITIAL.replace(" w ", " x "), "side \"x\""),
        (INITIAL.replace(" 1 0 ", " 0 0 "), "fullmove \"0\""),
        (INITIAL.replace(" 1 0 ", " 01 0 "), "fullmove \"01\""),
        (INITIAL.replace(" 1 0 ", " 1 3 "), "at most 2 steps"),
        (INITIAL.replace(" 1 0 ", " 2 5 "), "at most 4 steps"),
        (INITIAL.replace("standard", "fifa"), "ruleset \"fifa\""),
        (INITIAL.replace("1K1", "1KK"), "a second white keeper"),
        (
            INITIAL.replace("/9/9/9/9/", "/9/9/4K4/9/"),
            "outside its zone",
        ),
        (INITIAL.replace("1k1/", "1k1/1/"), "expected 15 ranks"),
        (String::new(), "expected 6 fields"),
    ];
    for (text, fragment) in cases {
        let error = Position::from_notation(&text).expect_err(&text).to_string();
        assert!(error.contains(fragment), "{text}: {error}");
    }
    // Positions in mid-turn, with a held ball, Black to move, keepers in goal, round trip.
    for text in [
        "1k1/2l3l2/1e1e1e1e1/1h1h1h1h1/9/9/9/4H4/9/9/9/1H1H3H1/1E1E1E1E1/2L3L2/1K1 e8 w 1 1 standard",
        "k2/9/9/9/9/9/9/4E4/9/9/9/9/9/9/2K e8 b 17 3 zillions-2010",
        "3/9/2k6/9/9/9/9/9/9/9/9/9/9/4K4/3 a8 w 2 4 standard",
    ] {
        let position = Position::from_notation(text).expect(text);
        assert_eq!(position.to_notation(), text);
    }
}

#[test]
fn turn_notation() {
    let initial = Position::initial(Ruleset::Standard);
    for (text, fragment) in [
        (" d4-c6", "single spaces"),
        ("d4-c6 ", "single spaces"),
        ("d4-c6  c6-d8", "single spaces"),
        ("d4-c6,c6-d8", "not a square"),
    ] {
        let error = turn(&initial, text).expect_err(text);
        assert!(
            matches!(error, TurnTextError::Malformed(_)),
            "{text}: {error}"
        );
        assert!(error.to_string().contains(fragment), "{text}: {error}");
    }
}

// ---------------------------------------------------------------------------------------------
// Property tests over random playouts.

/// Every square that could possibly be named as a step from this position.
fn candidate_steps(p: &Position) -> Vec<Step> {
    let own = p.pieces_of(p.side_to_move());
    let keepers = p.pieces_of_kind(Kind::Keeper);
    let mut candidates = Vec::new();
    for to in Square::all() {
        candidates.push(Step::Remove(to));
    }
    for from in Square::all().filter(|s| own & s.bit() != 0) {
        for to in Square::all() {
            candidates.push(Step::Move { from, to });
            candidates.push(Step::Carry { from, to });
            candidates.push(Step::Shoot { from, to });
            for keeper in Square::all().filter(|s| keepers & s.bit() != 0) {
                candidates.push(Step::Ricochet { from, keeper, to });
            }
        }
    }
    candidates
}

fn assert_invariants(p: &Position) {
    let white = p.pieces_of(Side::White);
    let black = p.pieces_of(Side::Black);
    assert_eq!(white & black, 0, "{p}");
    let kinds = Kind::ALL
        .iter()
        .fold(0u128, |acc, kind| acc | p.pieces_of_kind(*kind));
    assert_eq!(kinds, white | black, "{p}");
    let kind_total: u32 = Kind::ALL
        .iter()
        .map(|kind| p.pieces_of_kind(*kind).count_ones())
        .sum();
    assert_eq!(
        kind_total,
        (white | black).count_ones(),
        "a square holds one kind: {p}"
    );
    // The ball is loose or held by exactly the piece on its square.
    let on_ball = (white | black) & p.ball().bit();
    assert_eq!(p.ball_holder().is_some(), on_ball != 0, "{p}");
    // Text round trip.
    let text = p.to_notation();
    let back = Position::from_notation(&text).expect("written positions parse");
    assert_eq!(back.to_notation(), text);
    assert!(back.same_placement(p) && back.side_to_move() == p.side_to_move());
}

#[test]
fn random_playouts_keep_every_invariant() {
    let mut rng = hanniball_rng::Rng::new(2024);
    let mut positions_checked = 0;
    for game in 0..60 {
        let ruleset = if game % 2 == 0 {
            Ruleset::Standard
        } else {
            Ruleset::Zillions2010
        };
        let mut position = Position::initial(ruleset).with_max_turns(80);
        while position.result().is_none() {
            // Walk the turn step by step, checking every intermediate position.
            let start = position;
            let turn = random_turn(&position, &mut |n| rng.usize(..n)).expect("game not over");
            let mut current = start;
            for step in &turn.0 {
                assert_invariants(&current);
                let listed = current.legal_steps();
                assert!(listed.contains(step), "random turns use listed steps");
                // Every listed step applies; no unlisted one does (checked on a sample of positions,
                // as the candidate set is large).
                for s in &listed {
                    assert_eq!(current.check_step(*s), Ok(()), "{s} at {current}");
                }
                if positions_checked % 7 == 0 {
                    for candidate in candidate_steps(&current) {
                        let ok = current.check_step(candidate).is_ok();
                        assert_eq!(ok, listed.contains(&candidate), "{candidate} at {current}");
                    }
                }
                positions_checked += 1;
                current = current.play_step(*step).expect("listed step applies");
            }
            position = start.play_turn(&turn).expect("random turn is legal");
            assert_invariants(&position);
        }
    }
    assert!(positions_checked > 1_000, "checked {positions_checked}");
}

/// A random game of goal-seeking turns, so that games end by goals and own goals too.
fn goal_seeking_game(start: &Position, rng: &mut hanniball_rng::Rng) -> Playout {
    let mut position = *start;
    let mut playout = Playout::default();
    while let Some(turn) = goal_seeking_turn(&position, &mut |n| rng.usize(..n)) {
        playout.steps += turn.0.len();
        position = position.play_turn(&turn).expect("legal turn");
        playout.turns.push(turn);
    }
    playout.end = Some(position);
    playout
}

#[test]
fn replaying_a_games_turns_reproduces_its_result() {
    let mut rng = hanniball_rng::Rng::new(99);
    let mut decisive = 0;
    for game in 0..200 {
        let ruleset = if game % 3 == 0 {
            Ruleset::Zillions2010
        } else {
            Ruleset::Standard
        };
        let start = Position::initial(ruleset).with_max_turns(120);
        let playout = if game % 2 == 0 {
            random_game(&start, &mut |n| rng.usize(..n))
        } else {
            goal_seeking_game(&start, &mut rng)
        };
        let end = playout.end.expect("a finished playout has an end");
        let result = end.result().expect("random games end");
        if matches!(result.outcome, Outcome::Win(_)) {
            decisive += 1;
        }
        // Replay from the texts alone, through the seam.
        let options = GameOptions {
            ruleset: Some(ruleset.name().to_owned()),
            max_turns: Some(120),
        };
        let mut replay = GameKind::HanniBall.new_game(&options).expect("new game");
        for turn in &playout.turns {
            replay = replay
                .play_turn(&turn.to_string())
                .expect("replayed turn is legal");
        }
        assert_eq!(replay.position(), end.to_notation());
        assert_eq!(replay.result(), Some(result));
    }
    assert!(decisive > 0, "some random games end in a goal");
}

#[test]
fn offences_occur_in_random_play_and_removals_are_listed_exactly_then() {
    let mut rng = hanniball_rng::Rng::new(5);
    let mut seen = [0usize; 2];
    for _ in 0..40 {
        let mut position = Position::initial(Ruleset::Standard).with_max_turns(100);
        while let Some(turn) = random_turn(&position, &mut |n| rng.usize(..n)) {
            let offences = position.offences();
            seen[0] += usize::from(offences.obstruction);
            seen[1] += usize::from(offences.clustering);
            let removals = position
                .legal_steps()
                .iter()
                .filter(|s| matches!(s, Step::Remove(_)))
                .count();
            let opponent = position.side_to_move().opponent();
            let removable = (position.pieces_of(opponent) & !position.pieces_of_kind(Kind::Keeper))
                .count_ones() as usize;
            let expected = if offences.any() { removable } else { 0 };
            assert_eq!(removals, expected, "{position}");
            position = position.play_turn(&turn).expect("legal");
        }
    }
    assert!(seen[1] > 0, "clustering happens in random play");
}
