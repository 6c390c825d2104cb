//! Paper football (RULES.md Part 2): rule cases as data, random-playout properties checked
//! against a small independent reading of the rules, and the seam.

use std::collections::HashSet;

use hanniball_rules::paper::{Direction, IllegalTurn, Point, Position, parse_turn};
use hanniball_rules::{EndReason, GameKind, GameOptions, Outcome, SetupError, Side, TurnError};

// ---------------------------------------------------------------------------------------------
// Rule cases: `check(input, expected)`.
//
// `input` is a position (the steps since the start), optionally followed by ` | ` and a turn to
// play from it with `Position::play_turn`. `expected` is one line:
//   `<side> to move at <ball> turns <n>: <legal steps in byte order>`
//   `<side> bounces (<why>) at <ball> turns <n>: <legal steps>`   (mid-turn, a bounce is owed)
//   `over: <result>`
//   `error: <message>`
// ---------------------------------------------------------------------------------------------

fn describe(position: &Position) -> String {
    if let Some(result) = position.result() {
        return format!("over: {result}");
    }
    let state = match position.bounce_owed() {
        None => "to move".to_owned(),
        Some(bounce) => format!("bounces ({bounce})"),
    };
    let legal = position.legal_steps();
    let names: Vec<&str> = Direction::BY_NAME
        .into_iter()
        .filter(|d| legal.contains(*d))
        .map(Direction::name)
        .collect();
    format!(
        "{} {state} at {} turns {}: {}",
        position.side_to_move(),
        position.ball(),
        position.turns_played(),
        names.join(" ")
    )
}

fn run(input: &str) -> String {
    let (history, turn) = match input.split_once(" | ") {
        Some((history, turn)) => (history, Some(turn)),
        None => match input.strip_prefix("| ") {
            Some(turn) => ("", Some(turn)),
            None => (input, None),
        },
    };
    let position = match Position::from_notation(history) {
        Ok(position) => position,
        Err(e) => return format!("error: {e}"),
    };
    let Some(turn) = turn else {
        return describe(&position);
    };
    let steps = match parse_turn(turn) {
        Ok(steps) => steps,
        Err(e) => return format!("error: {e}"),
    };
    match position.play_turn(&steps) {
        Ok(next) => describe(&next),
        Err(e) => format!("error: {e}"),
    }
}

#[track_caller]
fn check(input: &str, expected: &str) {
    assert_eq!(run(input), expected, "input: {input:?}");
}

#[test]
fn field() {
    // RULES 2.1 the ball starts at (4,6), nothing drawn, the first player (white) to move
    check("", "white to move at (4,6) turns 0: E N NE NW S SE SW W");
    // RULES 2.1 a fresh interior point: every direction but the way back
    check("N", "black to move at (4,7) turns 1: E N NE NW SE SW W");
    // RULES 2.1 corners absent: from (1,1) there is no SW neighbour
    check(
        "SW SW SW S S",
        "black to move at (1,1) turns 5: E NE NW S SE W",
    );
    check(
        "SW SW SW S S SW",
        "error: step 6 (SW) is illegal: there is no point SW of (1,1)",
    );
    // RULES 2.1 corners absent: (0,12) from (1,11)
    check(
        "NW NW NW N N NW",
        "error: step 6 (NW) is illegal: there is no point NW of (1,11)",
    );
    // RULES 2.1 the field ends at x = 8
    check(
        "E E E E NE",
        "error: step 5 (NE) is illegal: there is no point NE of (8,6)",
    );
}

#[test]
fn corners_do_not_exist() {
    // RULES 2.1 the four corners are not points; every other lattice point is
    let corners = [(0, 0), (8, 0), (0, 12), (8, 12)];
    for (x, y) in corners {
        assert_eq!(Point::new(x, y), None, "({x},{y})");
    }
    for (x, y) in [(9, 0), (0, 13), (9, 13), (255, 255)] {
        assert_eq!(Point::new(x, y), None, "({x},{y})");
    }
    assert_eq!(Point::all().count(), 9 * 13 - 4);
    assert!(Point::all().all(|p| !corners.contains(&(p.x(), p.y()))));
}

#[test]
fn segments() {
    // RULES 2.2 border to border orthogonal segments are banned: (0,1) may only leave diagonally,
    // and the corner-cutting diagonal (0,1)-(1,0) exists
    check(
        "SW SW SW S S W",
        "black bounces (border) at (0,1) turns 5: NE SE",
    );
    check(
        "SW SW SW S S W N",
        "error: step 7 (N) is illegal: segment (0,1)-(0,2) runs along the border",
    );
    // RULES 2.2 diagonals at a corner: (0,11)-(1,12) and (0,11)-(1,10)
    check(
        "NW NW NW N N W",
        "black bounces (border) at (0,11) turns 5: NE SE",
    );
    // RULES 2.2 along the bottom border from (1,0)
    check(
        "SW SW SW S S W SE",
        "black bounces (border) at (1,0) turns 5: N NE",
    );
    check(
        "SW SW SW S S W SE E",
        "error: step 8 (E) is illegal: segment (1,0)-(2,0) runs along the border",
    );
    // RULES 2.2 along the goal line: (2,0)-(3,0) is banned, the diagonal into the goal is not
    check(
        "SW SW SW S S W SE NE S",
        "white bounces (border) at (2,0) turns 6: NE NW",
    );
    check(
        "SW SW SW S S W SE NE S E",
        "error: step 10 (E) is illegal: segment (2,0)-(3,0) runs along the border",
    );
    // RULES 2.2 along the side border at x = 8
    check("E E E E", "black bounces (border) at (8,6) turns 3: NW SW");
    check(
        "E E E E N",
        "error: step 5 (N) is illegal: segment (8,6)-(8,7) runs along the border",
    );
    check(
        "E E E E S",
        "error: step 5 (S) is illegal: segment (8,6)-(8,5) runs along the border",
    );
    // RULES 2.2 a segment touching the border from inside is fine
    check("E E E", "black to move at (7,6) turns 3: E N NE NW S SE SW");
    // RULES 2.2 segment reuse forbidden, back along the same segment
    check(
        "N S",
        "error: step 2 (S) is illegal: segment (4,7)-(4,6) is already drawn",
    );
    check(
        "NE SW",
        "error: step 2 (SW) is illegal: segment (5,7)-(4,6) is already drawn",
    );
    // RULES 2.2 segment reuse forbidden, in the direction it was first drawn
    check(
        "N E S W N",
        "error: step 5 (N) is illegal: segment (4,6)-(4,7) is already drawn",
    );
}

#[test]
fn bounces() {
    // RULES 2.3 bounce on a used point: (4,6) already had segments
    check(
        "N E S W",
        "black bounces (used-point) at (4,6) turns 3: NE NW S SE SW W",
    );
    // RULES 2.3 bounce on a used point, then the turn passes on a fresh point
    check(
        "N E S W SW",
        "white to move at (3,5) turns 4: E N NW S SE SW W",
    );
    // RULES 2.3 bounce on a border point
    check("E E E E", "black bounces (border) at (8,6) turns 3: NW SW");
    check(
        "E E E E NW",
        "white to move at (7,7) turns 4: E N NE NW S SW W",
    );
    // RULES 2.3 bounce on crossing the other diagonal of the same cell ((5,6)-(4,7) crosses
    // (4,6)-(5,7)); (4,7) was fresh and is not on the border
    check(
        "NE E S W NW",
        "white bounces (crossing) at (4,7) turns 4: E N NE NW S SW W",
    );
    // RULES 2.3 a diagonal whose cell has no other diagonal drawn, to a fresh interior point,
    // does not bounce
    check(
        "NE E S SW",
        "white to move at (5,5) turns 4: E N NW S SE SW W",
    );
    // RULES 2.3 a crossing bounce at a corner cell: (0,1)-(1,0) is crossed by nothing, since
    // (0,0) does not exist; landing on (1,0) bounces only because it is a border point
    check(
        "SW SW SW S S W SE",
        "black bounces (border) at (1,0) turns 5: N NE",
    );
    // RULES 2.3 several bounces in one turn, then the turn passes
    check(
        "SW SW SW S S W SE NE",
        "white to move at (2,1) turns 6: E N NE NW S SE W",
    );
}

#[test]
fn turns() {
    // RULES 2.3 a turn is one step when it lands on a fresh interior point
    check("| N", "black to move at (4,7) turns 1: E N NE NW SE SW W");
    // RULES 2.3 after the turn passes, further steps are not this player's
    check(
        "| N E",
        "error: turn passes to black after step 1; step E does not belong to this turn",
    );
    check(
        "N E S | W SW NE",
        "error: turn passes to white after step 2; step NE does not belong to this turn",
    );
    // RULES 2.3 bounces are compulsory: a turn may not stop while one is owed
    check(
        "N E S | W",
        "error: the turn is incomplete: a bounce is compulsory after step 1 (W), which ends on \
         the already used point (4,6)",
    );
    check(
        "E E E | E",
        "error: the turn is incomplete: a bounce is compulsory after step 1 (E), which ends on \
         the border point (8,6)",
    );
    check(
        "NE E S W | NW",
        "error: the turn is incomplete: a bounce is compulsory after step 1 (NW), which crosses \
         the diagonal (4,6)-(5,7)",
    );
    check(
        "N E S | W SW",
        "white to move at (3,5) turns 4: E N NW S SE SW W",
    );
    check(
        "SW SW SW S S | W SE NE",
        "white to move at (2,1) turns 6: E N NE NW S SE W",
    );
    // RULES 2.3 a position that ends mid-bounce: the turn in progress is completed
    check(
        "SW SW SW S S W | SE NE",
        "white to move at (2,1) turns 6: E N NE NW S SE W",
    );
    check(
        "SW SW SW S S W | SE",
        "error: the turn is incomplete: a bounce is compulsory after step 1 (SE), which ends on \
         the border point (1,0)",
    );
    // RULES 2.3 an illegal step inside a turn names its number in the turn
    check(
        "SW SW SW S S | W N",
        "error: step 2 (N) is illegal: segment (0,1)-(0,2) runs along the border",
    );
    // RULES 2.3 a turn has at least one step
    check("N | ", "error: a turn has at least one step");
}

#[test]
fn end_of_game() {
    // RULES 2.4 own goal: black draws into (4,12), its own goal
    check(
        "N N N N N",
        "black to move at (4,11) turns 5: E N NE NW SE SW W",
    );
    check("N N N N N N", "over: 1-0 own-goal");
    // RULES 2.4 goal: white draws into (5,12), black's goal
    check("N N N N N E N", "over: 1-0 goal");
    // RULES 2.4 goal: black draws into (4,0), white's goal
    check("S S S S S S", "over: 0-1 goal");
    // RULES 2.4 own goal: white draws into (5,0), its own goal
    check("S S S S S E S", "over: 0-1 own-goal");
    // RULES 2.4 a goal diagonally from the side of the goal
    check("SW SW SW S S W SE NE SE", "over: 0-1 own-goal");
    // RULES 2.4 no bounce after a goal, although the goal point is on the border: the game is
    // over and nothing more may be drawn
    check(
        "N N N N N E N N",
        "error: step 8 (N) is illegal: the game is over (1-0 goal)",
    );
    check(
        "N N N N N E | N N",
        "error: the game ended after step 1 (1-0 goal); step N does not belong to this turn",
    );
    check(
        "N N N N N E N | S",
        "error: step 1 (S) is illegal: the game is over (1-0 goal)",
    );
    check("N N N N N E | N", "over: 1-0 goal");
    // RULES 2.4 dead end: white bounces onto (1,0), whose three segments are all drawn
    check(
        "SW SW SW S S W SE NE W",
        "white bounces (used-point) at (1,1) turns 6: NE NW S SE",
    );
    check("SW SW SW S S W SE NE W S", "over: 0-1 dead-end");
    check("SW SW SW S S W SE NE | W S", "over: 0-1 dead-end");
    check(
        "SW SW SW S S W SE NE W S N",
        "error: step 11 (N) is illegal: the game is over (0-1 dead-end)",
    );
}

#[test]
fn end_of_game_details() {
    // RULES 2.4 after a goal the scorer stays recorded as the mover; the final turn is not a
    // completed turn (the turn never passed)
    let goal = Position::from_notation("N N N N N E N").expect("legal history");
    assert_eq!(goal.side_to_move(), Side::White);
    assert_eq!(goal.turns_played(), 6);
    assert_eq!(goal.ball(), Point::new(5, 12).expect("exists"));
    assert!(goal.legal_steps().is_empty());
    assert_eq!(goal.bounce_owed(), None);
    // RULES 2.4 after a dead end the stuck player is the side to move
    let dead = Position::from_notation("SW SW SW S S W SE NE W S").expect("legal history");
    assert_eq!(dead.side_to_move(), Side::White);
    let result = dead.result().expect("over");
    assert_eq!(result.outcome, Outcome::Win(Side::Black));
    assert_eq!(result.reason, EndReason::DeadEnd);
    assert_eq!(
        dead.current_turn(),
        parse_turn("W S").expect("turn").as_slice()
    );
}

#[test]
fn notation() {
    // RULES 2.5 the empty text is the initial position
    check("", "white to move at (4,6) turns 0: E N NE NW S SE SW W");
    // RULES 2.5 every direction name, and nothing else
    check("NW", "black to move at (3,7) turns 1: E N NE NW S SW W");
    check(
        "n",
        "error: unknown step \"n\" at token 1 (expected one of: N NE E SE S SW W NW)",
    );
    check(
        "N ne",
        "error: unknown step \"ne\" at token 2 (expected one of: N NE E SE S SW W NW)",
    );
    check(
        "N NNE",
        "error: unknown step \"NNE\" at token 2 (expected one of: N NE E SE S SW W NW)",
    );
    check(
        "N,E",
        "error: unknown step \"N,E\" at token 1 (expected one of: N NE E SE S SW W NW)",
    );
    check(
        "N\tE",
        "error: unknown step \"N\\tE\" at token 1 (expected one of: N NE E SE S SW W NW)",
    );
    check(
        "N E\n",
        "error: unknown step \"E\\n\" at token 2 (expected one of: N NE E SE S SW W NW)",
    );
    check(
        "N 北",
        "error: unknown step \"北\" at token 2 (expected one of: N NE E SE S SW W NW)",
    );
    check(
        "NORTHNORTHNORTHNORTHNORTHNORTH",
        "error: unknown step \"NORTHNORTHNORTHNORTHNORT...\" at token 1 (expected one of: N NE \
         E SE S SW W NW)",
    );
    // RULES 2.5 single spaces between steps, none at either end
    check(
        " N",
        "error: leading space: steps are separated by single spaces, with none at either end",
    );
    check(
        " ",
        "error: leading space: steps are separated by single spaces, with none at either end",
    );
    check(
        "N ",
        "error: trailing space: steps are separated by single spaces, with none at either end",
    );
    check(
        "N  E",
        "error: more than one space after token 1: steps are separated by single spaces",
    );
    check(
        "N E   S",
        "error: more than one space after token 2: steps are separated by single spaces",
    );
    // RULES 2.5 a turn is parsed the same way
    check(
        "| N x",
        "error: unknown step \"x\" at token 2 (expected one of: N NE E SE S SW W NW)",
    );
    check(
        "|  N",
        "error: leading space: steps are separated by single spaces, with none at either end",
    );
    // RULES 2.5 an illegal history is a malformed position, naming the step and why
    check(
        "N N S",
        "error: step 3 (S) is illegal: segment (4,8)-(4,7) is already drawn",
    );
}

#[test]
fn notation_round_trip() {
    // RULES 2.5 positions are written canonically and read back exactly
    for text in [
        "",
        "N",
        "NE E S W NW",
        "SW SW SW S S W SE NE W S",
        "N N N N N E N",
    ] {
        let position = Position::from_notation(text).expect("legal history");
        assert_eq!(position.to_notation(), text);
        assert_eq!(position.to_string(), text);
        assert_eq!(text.parse::<Position>().expect("legal"), position);
    }
    for d in Direction::ALL {
        assert_eq!(d.name().parse::<Direction>(), Ok(d));
    }
}

#[test]
fn render_shows_the_position() {
    let position = Position::from_notation("NE E S W NW").expect("legal history");
    let picture = position.render();
    let expected = "\
paper football: white to move again, bouncing (the last segment crossed a diagonal)
turns played 4, steps 5, ball at (4,7), this turn so far: NW
    0   1   2   3   4   5   6   7   8
                ┌───────┐
12      ·═══·═══·   ·   ·═══·═══·       black's goal (white attacks)

11  ·   ·   ·   ·   ·   ·   ·   ·   ·
    ║                               ║
10  ·   ·   ·   ·   ·   ·   ·   ·   ·
    ║                               ║
 9  ·   ·   ·   ·   ·   ·   ·   ·   ·
    ║                               ║
 8  ·   ·   ·   ·   ·   ·   ·   ·   ·
    ║                               ║
 7  ·   ·   ·   ·   ●   •───•   ·   ·
    ║                 ╳     │       ║
 6  ·   ·   ·   ·   •   •───•   ·   ·
    ║                               ║
 5  ·   ·   ·   ·   ·   ·   ·   ·   ·
    ║                               ║
 4  ·   ·   ·   ·   ·   ·   ·   ·   ·
    ║                               ║
 3  ·   ·   ·   ·   ·   ·   ·   ·   ·
    ║                               ║
 2  ·   ·   ·   ·   ·   ·   ·   ·   ·
    ║                               ║
 1  ·   ·   ·   ·   ·   ·   ·   ·   ·

 0      ·═══·═══·   ·   ·═══·═══·       white's goal (black attacks)
                └───────┘
    0   1   2   3   4   5   6   7   8
";
    assert_eq!(picture, expected, "\n{picture}");
    let over = Position::from_notation("N N N N N E N").expect("legal history");
    assert!(
        over.render()
            .starts_with("paper football: game over, 1-0 goal (white scored; white wins)\n"),
        "{}",
        over.render()
    );
}

// ---------------------------------------------------------------------------------------------
// The seam.
// ---------------------------------------------------------------------------------------------

fn options(ruleset: Option<&str>, max_turns: Option<u32>) -> GameOptions {
    GameOptions {
        ruleset: ruleset.map(str::to_owned),
        max_turns,
    }
}

#[test]
fn seam_new_and_load() {
    let kind = GameKind::PaperFootball;
    let game = kind
        .new_game(&GameOptions::default())
        .expect("default options");
    assert_eq!(game.kind(), kind);
    assert_eq!(game.ruleset(), "standard");
    assert_eq!(game.position(), "");
    assert_eq!(game.side_to_move(), Side::White);
    assert_eq!(game.turns_played(), 0);
    assert_eq!(game.result(), None);
    assert!(game.notices().is_empty());
    assert_eq!(
        game.legal_steps(),
        ["E", "N", "NE", "NW", "S", "SE", "SW", "W"]
    );
    assert!(game.render().contains("white to move"));
    assert_eq!(kind.rulesets(), ["standard"]);

    let loaded = kind
        .load("NE E S W NW", &options(Some("standard"), None))
        .expect("legal history");
    assert_eq!(loaded.position(), "NE E S W NW");
    assert_eq!(loaded.side_to_move(), Side::White);
    assert_eq!(loaded.turns_played(), 4);
    assert_eq!(loaded.legal_steps(), ["E", "N", "NE", "NW", "S", "SW", "W"]);
    assert_eq!(loaded.clone_box().position(), "NE E S W NW");

    let cases: [(&str, GameOptions, SetupError); 5] = [
        (
            "",
            options(Some("zillions-2010"), None),
            SetupError::UnknownRuleset {
                kind,
                ruleset: "zillions-2010".into(),
                expected: "standard".into(),
            },
        ),
        (
            "",
            options(None, Some(300)),
            SetupError::InvalidOption {
                kind,
                reason: "max_turns must not be set (got 300): paper football has no turn limit, \
                         every game ends with a goal or a dead end"
                    .into(),
            },
        ),
        (
            "N S",
            GameOptions::default(),
            SetupError::MalformedPosition(
                "step 2 (S) is illegal: segment (4,7)-(4,6) is already drawn".into(),
            ),
        ),
        (
            "N  E",
            GameOptions::default(),
            SetupError::MalformedPosition(
                "more than one space after token 1: steps are separated by single spaces".into(),
            ),
        ),
        (
            "N Q",
            GameOptions::default(),
            SetupError::MalformedPosition(
                "unknown step \"Q\" at token 2 (expected one of: N NE E SE S SW W NW)".into(),
            ),
        ),
    ];
    for (position, options, expected) in cases {
        let error = kind.load(position, &options).expect_err("refused");
        assert_eq!(error, expected, "{position:?} {options:?}");
        if position.is_empty() {
            let error = kind.new_game(&options).expect_err("refused");
            assert_eq!(error, expected, "{options:?}");
        }
    }
}

#[test]
fn seam_play_turn() {
    let kind = GameKind::PaperFootball;
    // (position, turn, expected: new position or error)
    let cases = [
        ("", "N", Ok("N")),
        ("N E S", "W SW", Ok("N E S W SW")),
        ("SW SW SW S S W", "SE NE", Ok("SW SW SW S S W SE NE")),
        ("N N N N N E", "N", Ok("N N N N N E N")),
        (
            "",
            "",
            Err(TurnError::Illegal("a turn has at least one step".into())),
        ),
        (
            "",
            "n",
            Err(TurnError::Malformed(
                "unknown step \"n\" at token 1 (expected one of: N NE E SE S SW W NW)".into(),
            )),
        ),
        (
            "",
            "N ",
            Err(TurnError::Malformed(
                "trailing space: steps are separated by single spaces, with none at either end"
                    .into(),
            )),
        ),
        (
            "",
            "N E",
            Err(TurnError::Illegal(
                "turn passes to black after step 1; step E does not belong to this turn".into(),
            )),
        ),
        (
            "N",
            "S",
            Err(TurnError::Illegal(
                "step 1 (S) is illegal: segment (4,7)-(4,6) is already drawn".into(),
            )),
        ),
        (
            "E E E",
            "E",
            Err(TurnError::Illegal(
                "the turn is incomplete: a bounce is compulsory after step 1 (E), which ends on \
                 the border point (8,6)"
                    .into(),
            )),
        ),
        (
            "N N N N N E N",
            "S",
            Err(TurnError::Illegal(
                "step 1 (S) is illegal: the game is over (1-0 goal)".into(),
            )),
        ),
    ];
    for (position, turn, expected) in cases {
        let game = kind
            .load(position, &GameOptions::default())
            .expect("legal history");
        let got = game.play_turn(turn).map(|next| next.position());
        assert_eq!(got, expected.map(str::to_owned), "{position:?} + {turn:?}");
        assert_eq!(game.position(), position, "a refused turn changes nothing");
    }

    let over = kind
        .load("N N N N N E N", &GameOptions::default())
        .expect("legal history");
    assert!(over.legal_steps().is_empty());
    assert_eq!(
        over.result().map(|r| r.to_string()),
        Some("1-0 goal".into())
    );
}

// ---------------------------------------------------------------------------------------------
// Properties over random playouts, against an independent, deliberately naive reading of
// RULES.md Part 2 (points as pairs, segments in a hash set).
// ---------------------------------------------------------------------------------------------

type Pt = (i32, i32);

#[derive(Debug, Clone, PartialEq, Eq)]
enum RefState {
    /// Side to move (0 first player, 1 second), and whether it owes a bounce.
    Playing { side: usize, bouncing: bool },
    /// Winner (0 or 1) and reason.
    Over { winner: usize, reason: EndReason },
}

struct Reference {
    segments: HashSet<(Pt, Pt)>,
    ball: Pt,
    state: RefState,
    turns: u32,
}

const NAMES: [(&str, Pt); 8] = [
    ("N", (0, 1)),
    ("NE", (1, 1)),
    ("E", (1, 0)),
    ("SE", (1, -1)),
    ("S", (0, -1)),
    ("SW", (-1, -1)),
    ("W", (-1, 0)),
    ("NW", (-1, 1)),
];

impl Reference {
    fn new() -> Self {
        Reference {
            segments: HashSet::new(),
            ball: (4, 6),
            state: RefState::Playing {
                side: 0,
                bouncing: false,
            },
            turns: 0,
        }
    }

    fn exists((x, y): Pt) -> bool {
        (0..=8).contains(&x) && (0..=12).contains(&y) && !matches!((x, y), (0 | 8, 0 | 12))
    }

    fn border((x, y): Pt) -> bool {
        x == 0 || x == 8 || y == 0 || y == 12
    }

    fn key(a: Pt, b: Pt) -> (Pt, Pt) {
        if a < b { (a, b) } else { (b, a) }
    }

    fn legal(&self) -> Vec<&'static str> {
        if matches!(self.state, RefState::Over { .. }) {
            return Vec::new();
        }
        let mut names: Vec<&str> = NAMES
            .iter()
            .filter(|(_, (dx, dy))| {
                let to = (self.ball.0 + dx, self.ball.1 + dy);
                let orthogonal = *dx == 0 || *dy == 0;
                Self::exists(to)
                    && !(orthogonal && Self::border(self.ball) && Self::border(to))
                    && !self.segments.contains(&Self::key(self.ball, to))
            })
            .map(|(name, _)| *name)
            .collect();
        names.sort_unstable();
        names
    }

    fn play(&mut self, name: &str) {
        assert!(self.legal().contains(&name), "reference: {name} not legal");
        let RefState::Playing { side, .. } = self.state else {
            unreachable!("legal() is empty once over")
        };
        let (dx, dy) = NAMES.iter().find(|(n, _)| *n == name).expect("known").1;
        let from = self.ball;
        let to = (from.0 + dx, from.1 + dy);
        let used = self.segments.iter().any(|&(a, b)| a == to || b == to);
        let crossing = dx != 0
            && dy != 0
            && self
                .segments
                .contains(&Self::key((from.0 + dx, from.1), (from.0, from.1 + dy)));
        self.segments.insert(Self::key(from, to));
        self.ball = to;
        if (3..=5).contains(&to.0) && (to.1 == 0 || to.1 == 12) {
            let own = if to.1 == 0 { 0 } else { 1 };
            self.state = if own == side {
                RefState::Over {
                    winner: 1 - side,
                    reason: EndReason::OwnGoal,
                }
            } else {
                RefState::Over {
                    winner: side,
                    reason: EndReason::Goal,
                }
            };
            return;
        }
        let bouncing = used || Self::border(to) || crossing;
        let next = if bouncing {
            side
        } else {
            self.turns += 1;
            1 - side
        };
        self.state = RefState::Playing {
            side: next,
            bouncing,
        };
        if self.legal().is_empty() {
            self.state = RefState::Over {
                winner: 1 - next,
                reason: EndReason::DeadEnd,
            };
        }
    }
}

fn side_index(side: Side) -> usize {
    side.index()
}

/// A random legal step. Uniform playouts mostly end in a goal within a few dozen steps; a
/// goal-shy player (who scores only when nothing else is legal) reaches crowded fields, long
/// bounce chains and dead ends.
fn pick(position: &Position, rng: &mut hanniball_rng::Rng, goal_shy: bool) -> Direction {
    let legal = position.legal_steps();
    let mut choices = legal.to_vec();
    if goal_shy {
        let ball = position.ball();
        let scoring = |d: &Direction| ball.neighbour(*d).is_some_and(|p| p.goal_of().is_some());
        if choices.iter().any(|d| !scoring(d)) {
            choices.retain(|d| !scoring(d));
        }
    }
    choices[rng.usize(..choices.len())]
}

/// Random games from a fixed seed, every position checked against the reference.
#[test]
fn random_playouts_agree_with_the_rules() {
    let mut rng = hanniball_rng::Rng::new(0x5eed_2013);
    let mut lengths = Vec::new();
    let mut reasons = HashSet::new();
    for game in 0..2_000 {
        let mut position = Position::initial();
        let mut reference = Reference::new();
        // Turn boundaries, to replay the game turn by turn afterwards.
        let mut turns: Vec<Vec<Direction>> = vec![Vec::new()];
        loop {
            let legal = position.legal_steps();
            let listed: Vec<&str> = Direction::BY_NAME
                .into_iter()
                .filter(|d| legal.contains(*d))
                .map(Direction::name)
                .collect();
            assert_eq!(listed, reference.legal(), "game {game}: {position}");
            match (position.result(), &reference.state) {
                (None, RefState::Playing { side, bouncing }) => {
                    assert_eq!(side_index(position.side_to_move()), *side, "game {game}");
                    assert_eq!(position.bounce_owed().is_some(), *bouncing, "game {game}");
                }
                (Some(result), RefState::Over { winner, reason }) => {
                    assert_eq!(
                        result.outcome,
                        Outcome::Win([Side::White, Side::Black][*winner])
                    );
                    assert_eq!(result.reason, *reason, "game {game}: {position}");
                }
                (ours, theirs) => panic!("game {game}: {ours:?} vs {theirs:?} at {position}"),
            }
            assert_eq!(position.turns_played(), reference.turns, "game {game}");

            // Every listed step applies, no other direction does, and a refusal changes nothing.
            for d in Direction::ALL {
                let mut probe = position.clone();
                match probe.apply_step(d) {
                    Ok(_) => assert!(legal.contains(d), "game {game}: {d} applied, unlisted"),
                    Err(e) => {
                        assert!(!legal.contains(d), "game {game}: listed {d} refused: {e}");
                        assert_eq!(probe, position, "a refused step changes nothing");
                        assert_eq!(position.play_step(d), Err(e));
                    }
                }
            }

            // The position survives a text round trip.
            let text = position.to_notation();
            assert_eq!(
                Position::from_notation(&text).as_ref(),
                Ok(&position),
                "game {game}"
            );

            if legal.is_empty() {
                break;
            }
            let step = pick(&position, &mut rng, game % 2 == 1);
            let before = position.side_to_move();
            position.apply_step(step).expect("listed step applies");
            reference.play(step.name());
            turns.last_mut().expect("non-empty").push(step);
            if position.result().is_none() && position.side_to_move() != before {
                turns.push(Vec::new());
            }
        }

        // Every random game ends with a winner; there are no draws.
        let result = position
            .result()
            .expect("a game with no legal step is over");
        assert!(matches!(result.outcome, Outcome::Win(_)), "game {game}");
        reasons.insert(result.reason);
        lengths.push(position.steps().len());
        // No segment can be drawn twice, so a game has at most as many steps as the field has
        // drawable segments (88 across + 84 up + 188 diagonals).
        assert!(position.steps().len() <= 360);

        // Replaying the notation reproduces the same result.
        let replayed = Position::from_notation(&position.to_notation()).expect("legal");
        assert_eq!(replayed.result(), Some(result));
        // Replaying turn by turn, through the seam, reproduces the same game.
        let mut seam = GameKind::PaperFootball
            .new_game(&GameOptions::default())
            .expect("default options");
        for turn in &turns {
            let text = turn.iter().map(|d| d.name()).collect::<Vec<_>>().join(" ");
            seam = seam
                .play_turn(&text)
                .unwrap_or_else(|e| panic!("game {game}: turn {text:?} refused: {e}"));
        }
        assert_eq!(seam.position(), position.to_notation(), "game {game}");
        assert_eq!(seam.result(), Some(result), "game {game}");
        assert_eq!(seam.turns_played(), position.turns_played(), "game {game}");
        assert_eq!(seam.turns_played() as usize, turns.len() - 1, "game {game}");
    }
    // The sample is rich enough to mean something: all three endings occur.
    assert_eq!(reasons.len(), 3, "{reasons:?}");
    assert!(lengths.iter().any(|&n| n > 120), "{lengths:?}");
}

/// Random positions, also those that end mid-bounce, load through the seam to the same state.
#[test]
fn random_histories_load_through_the_seam() {
    let mut rng = hanniball_rng::Rng::new(7);
    for game in 0..300 {
        let mut position = Position::initial();
        let stop = rng.usize(0..120);
        while position.steps().len() < stop {
            let legal = position.legal_steps();
            let Some(step) = legal.nth(rng.usize(..legal.len().max(1))) else {
                break;
            };
            position.apply_step(step).expect("listed step applies");
        }
        let text = position.to_notation();
        let game_box = GameKind::PaperFootball
            .load(&text, &GameOptions::default())
            .unwrap_or_else(|e| panic!("game {game}: {e}"));
        assert_eq!(game_box.position(), text);
        assert_eq!(game_box.side_to_move(), position.side_to_move());
        assert_eq!(game_box.turns_played(), position.turns_played());
        assert_eq!(game_box.result(), position.result());
        let legal = position.legal_steps();
        let mut expected: Vec<String> = legal.iter().map(|d| d.name().to_owned()).collect();
        expected.sort_unstable();
        assert_eq!(game_box.legal_steps(), expected, "game {game}");
        // A single listed step is a whole turn exactly when it does not call for a bounce.
        for step in legal {
            let single = position.play_step(step).expect("listed");
            let whole = single.is_over() || single.bounce_owed().is_none();
            let played = position.play_turn(&[step]);
            match played {
                Ok(next) => {
                    assert!(whole, "game {game}: {step}");
                    assert_eq!(next, single);
                }
                Err(IllegalTurn::Incomplete { .. }) => assert!(!whole, "game {game}: {step}"),
                Err(e) => panic!("game {game}: {step}: {e}"),
            }
        }
    }
}

/// Arbitrary text never panics: it loads as a position that writes back to the same text, or it
/// is refused with a lowercase message; as a turn, likewise.
#[test]
fn arbitrary_text_is_loaded_or_refused() {
    const PIECES: [&str; 16] = [
        "N", "NE", "E", "SE", "S", "SW", "W", "NW", " ", " ", " ", "  ", "n", "X", "\t", "é",
    ];
    let mut rng = hanniball_rng::Rng::new(11);
    let (mut loaded, mut refused) = (0, 0);
    for _ in 0..20_000 {
        let text: String = (0..rng.usize(0..12))
            .map(|_| PIECES[rng.usize(..PIECES.len())])
            .collect();
        match Position::from_notation(&text) {
            Ok(position) => {
                assert_eq!(position.to_notation(), text);
                loaded += 1;
            }
            Err(e) => {
                let message = e.to_string();
                assert!(
                    message.starts_with(char::is_lowercase),
                    "{text:?}: {message}"
                );
                refused += 1;
            }
        }
        let game = GameKind::PaperFootball
            .new_game(&GameOptions::default())
            .expect("default options");
        match game.play_turn(&text) {
            Ok(next) => assert_eq!(next.position(), text),
            Err(TurnError::Malformed(m) | TurnError::Illegal(m)) => {
                assert!(m.starts_with(char::is_lowercase), "{text:?}: {m}");
            }
        }
    }
    assert!(
        loaded > 100 && refused > 100,
        "{loaded} loaded, {refused} refused"
    );
}
