//! Deterministic fuzzing of every reader of client text in this crate, as a test CI runs.
//!
//! Readers covered: HanniBall `Square::parse`, `Step` and `Turn` (`FromStr`),
//! `Position::from_notation` (and its `FromStr`), `Position::play_turn_text`; paper football
//! `Direction` (`FromStr`), `parse_turn`, `Position::from_notation` (and its `FromStr`); the seam:
//! `GameKind` (`FromStr`), `GameKind::load` (with random options) and `Game::play_turn`.
//!
//! Inputs come from the seeded SplitMix64 of `hanniball-rng` (through `hanniball-fuzz-kit`; no
//! nightly, no cargo-fuzz) with a fixed seed, so every run sees the same inputs. Each reader gets,
//! in turn: (a) random bytes made text by `String::from_utf8_lossy`; (b) random strings over the
//! notation's own alphabet (squares, separators, piece letters, direction names, numbers at the
//! integer limits, unicode); (c) mutations of valid inputs taken from random legal playouts and
//! from the notation tests (bytes deleted, duplicated, swapped, replaced, truncated, segments
//! repeated, numbers replaced); (d) inputs built from the grammar with random content, so that many
//! parse and go on to the engine; and every 500th input is about 1 MB long.
//!
//! Every input must give `Ok` or `Err` without a panic. Text read `Ok` must write back to the
//! very same text (these notations are canonical). Parsed steps and turns are played on a pool of
//! positions (both initial positions and positions reached by legal turns, mid-turn and finished
//! ones included), typed and through the seam, which must agree; a refusal must leave the game as
//! it was. Parsed positions go on to the engine: their legal steps read back, a random legal turn
//! from them is accepted. The tests also fail if unmutated valid inputs stop parsing, if mutated
//! valid inputs are seldom refused, or if random bytes are ever accepted as a HanniBall position.
//!
//! Run: `cargo test -p hanniball-rules --test rules fuzz_readers::` (3,000 inputs per reader,
//! seconds). Longer: `FUZZ_ITERATIONS=200000 cargo test -p hanniball-rules --test rules
//! fuzz_readers:: -- --nocapture` (prints inputs, `Ok`/`Err` counts and time per reader);
//! `FUZZ_SEED=<u64>` draws other inputs. A panicking input is reported with the seed, its number
//! and its text; keep it as a case in `regressions` below once the reader is fixed.

use std::collections::HashSet;

use hanniball_rules::hanniball::playout::{goal_seeking_turn, random_turn};
use hanniball_rules::hanniball::{
    INITIAL, Position as HPosition, Ruleset, Square, Step, Turn, TurnTextError,
};
use hanniball_rules::paper::{
    Direction, Position as PPosition, StepOutcome, parse_turn, write_steps,
};
use hanniball_rules::{Game, GameKind, GameOptions, TurnError};

use hanniball_fuzz_kit::*;

// ---------------------------------------------------------------------------------------------
// HanniBall.

/// Pick function for the playout helpers.
fn picker(rng: &mut Rng) -> impl FnMut(usize) -> usize + '_ {
    move |n| rng.below(n)
}

/// Valid HanniBall material: positions to play on, their texts, legal turns and steps.
struct HanniBall {
    /// Positions turns and steps are played on: both initial positions, turn starts and
    /// mid-turn positions from random games, finished games.
    pool: Vec<HPosition>,
    /// The legal steps of each pool position.
    legal: Vec<HashSet<Step>>,
    /// The seam's view of each pool position.
    games: Vec<Box<dyn Game>>,
    positions: Vec<String>,
    /// Legal turns as text, each legal where it was drawn: a few per pool position, and the
    /// turns of the random games.
    turns: Vec<String>,
    steps: Vec<String>,
}

fn hanniball() -> HanniBall {
    let mut rng = Rng::new(DEFAULT_SEED);
    let mut pool = vec![
        HPosition::initial(Ruleset::Standard),
        HPosition::initial(Ruleset::Zillions2010),
    ];
    // From the notation tests: mid-turn, Black to move, keepers in goal.
    let mut positions: Vec<String> = [
        INITIAL,
        "1k1/2l3l2/1e1e1e1e1/1h1h1h1h1/9/9/9/4H4/9/9/9/1H1H3H1/1E1E1E1E1/2L3L2/1K1 e8 w 1 1 standard",
        "k2/9/9/9/9/9/9/4E4/9/9/9/9/9/9/2K e8 b 17 3 zillions-2010",
        "3/9/2k6/9/9/9/9/9/9/9/9/9/9/4K4/3 a8 w 2 4 standard",
    ]
    .map(str::to_owned)
    .to_vec();
    let mut turns = vec!["d4-c6".to_owned(), "d4-c6 c6-d8".to_owned()];
    for game in 0..8 {
        let ruleset = if game % 2 == 0 {
            Ruleset::Standard
        } else {
            Ruleset::Zillions2010
        };
        let mut position = HPosition::initial(ruleset);
        for ply in 0..40 {
            let turn = if game >= 6 {
                goal_seeking_turn(&position, &mut picker(&mut rng))
            } else {
                random_turn(&position, &mut picker(&mut rng))
            };
            let Some(turn) = turn else { break };
            positions.push(position.to_notation());
            turns.push(turn.to_string());
            if ply % 7 == 3 && pool.len() < 24 {
                pool.push(position);
                // The same turn's first step leaves a position in mid-turn.
                if let Ok(mid) = position.play_step(turn.0[0]) {
                    positions.push(mid.to_notation());
                    pool.push(mid);
                }
            }
            position = position.play_turn(&turn).expect("a random turn is legal");
        }
        positions.push(position.to_notation());
        if position.result().is_some() {
            pool.push(position);
        }
    }
    // Mutations of turns legal in the pool are legal in the pool now and then.
    for position in &pool {
        for _ in 0..5 {
            if let Some(turn) = random_turn(position, &mut picker(&mut rng)) {
                turns.push(turn.to_string());
            }
        }
    }
    let legal: Vec<HashSet<Step>> = pool
        .iter()
        .map(|p| p.legal_steps().into_iter().collect())
        .collect();
    let mut steps: Vec<String> = pool.iter().flat_map(HPosition::legal_step_texts).collect();
    steps.extend(["d4-e6", "e8=e9", "f6>g8", "e10>e15>e11", "xg7", "d15-e15"].map(str::to_owned));
    let games = pool
        .iter()
        .map(|p| {
            GameKind::HanniBall
                .load(&p.to_notation(), &GameOptions::default())
                .expect("pool positions load")
        })
        .collect();
    HanniBall {
        pool,
        legal,
        games,
        positions,
        turns,
        steps,
    }
}

const FILES: &[&str] = &["a", "b", "c", "d", "e", "f", "g", "h", "i", "j", "A", "z"];
const STEP_SEPARATORS: &[&str] = &["-", "=", ">", "x", " ", "", ",", "  "];

fn random_square(rng: &mut Rng) -> String {
    if rng.one_in(8) {
        return format!("{}{}", rng.pick(FILES), rng.pick(NUMBERS));
    }
    format!("{}{}", rng.pick(&FILES[..9]), 1 + rng.below(15))
}

fn random_step(rng: &mut Rng) -> String {
    let a = random_square(rng);
    let b = random_square(rng);
    match rng.below(6) {
        0 => format!("{a}-{b}"),
        1 => format!("{a}={b}"),
        2 => format!("{a}>{b}"),
        3 => format!("{a}>{b}>{}", random_square(rng)),
        4 => format!("x{a}"),
        _ => format!("{a}{}{b}", rng.pick(STEP_SEPARATORS)),
    }
}

fn random_turn_text(rng: &mut Rng) -> String {
    let steps: Vec<String> = (0..rng.below(6)).map(|_| random_step(rng)).collect();
    let mut text = steps.join(" ");
    if rng.one_in(10) {
        text.push(' ');
    }
    text
}

/// A position text from the grammar: a random board (mostly the right width per rank), a ball
/// square, a side, counters and a ruleset, each now and then wrong.
fn random_position_text(rng: &mut Rng) -> String {
    const MEN: &[char] = &['L', 'E', 'H', 'l', 'e', 'h'];
    // grid[rank][file], ranks 0..15 from White's side; ranks 1 and 15 have files d-f only.
    let mut grid = [[None::<char>; 9]; 15];
    let fill = rng.below(5);
    for (rank, row) in grid.iter_mut().enumerate() {
        for (file, cell) in row.iter_mut().enumerate() {
            let exists = !(rank == 0 || rank == 14) || (3..6).contains(&file);
            if exists && rng.below(12) < fill {
                *cell = Some(rng.pick(MEN));
            }
        }
    }
    // Keepers mostly once each and in their zones (files c-g of ranks 2-3, or the goal), now and
    // then missing, doubled or outside.
    for (letter, ranks) in [('K', [0usize, 1, 2]), ('k', [14, 13, 12])] {
        for _ in 0..[1, 1, 1, 1, 1, 1, 0, 2][rng.below(8)] {
            let rank = rng.pick(&ranks);
            let file = if rank == 0 || rank == 14 {
                3 + rng.below(3)
            } else {
                2 + rng.below(5)
            };
            let (rank, file) = if rng.one_in(10) {
                (1 + rng.below(13), rng.below(9))
            } else {
                (rank, file)
            };
            grid[rank][file] = Some(letter);
        }
    }
    let mut ranks = Vec::new();
    for rank in (0..15).rev() {
        let files = if rank == 0 || rank == 14 { 3..6 } else { 0..9 };
        let mut text = String::new();
        let mut run = 0;
        for file in files {
            match grid[rank][file] {
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
        if rng.one_in(200) {
            text = alphabet_string(rng, &position_source_alphabet());
        }
        ranks.push(text);
    }
    let board = ranks.join("/");
    let ball = random_square(rng);
    let side = if rng.one_in(50) {
        "x"
    } else if rng.one_in(2) {
        "w"
    } else {
        "b"
    };
    let fullmove = if rng.one_in(10) {
        rng.pick(NUMBERS).to_owned()
    } else {
        (1 + rng.below(200)).to_string()
    };
    let steps = if rng.one_in(10) {
        rng.pick(NUMBERS).to_owned()
    } else {
        rng.below(5).to_string()
    };
    let ruleset = if rng.one_in(20) {
        rng.pick(&["Standard", "fifa", "", "standard "])
    } else {
        rng.pick(&["standard", "zillions-2010"])
    };
    format!("{board} {ball} {side} {fullmove} {steps} {ruleset}")
}

fn position_source_alphabet() -> Source<'static> {
    Source {
        alphabet: POSITION_ALPHABET,
        separators: &["/", " ", ""],
        valid: &[],
        grammar: &no_grammar,
    }
}

/// For sources used only for their alphabet.
fn no_grammar(_: &mut Rng) -> String {
    String::new()
}

const SQUARE_ALPHABET: &[&str] = &[
    "a", "b", "c", "d", "e", "f", "g", "h", "i", "j", "A", "D", "z", "x", "0", "1", "2", "5", "9",
    "10", "14", "15", "16", "e8", "d1", "f15", "a2",
];
const STEP_ALPHABET: &[&str] = &[
    "d4", "e6", "e8", "e9", "f6", "g8", "e10", "e15", "e11", "g7", "d15", "a1", "i14", "j3", "d0",
    "d16", "x", "-", "=", ">", "D4", "d04", "e", "4",
];
const POSITION_ALPHABET: &[&str] = &[
    "K",
    "L",
    "E",
    "H",
    "k",
    "l",
    "e",
    "h",
    "1",
    "2",
    "3",
    "4",
    "8",
    "9",
    "0",
    "/",
    "1k1",
    "1K1",
    "2l3l2",
    "1e1e1e1e1",
    "1h1h1h1h1",
    "e8",
    "w",
    "b",
    "standard",
    "zillions-2010",
    "x",
];

#[test]
fn hanniball_square() {
    let valid: Vec<String> = Square::all().map(|s| s.to_string()).collect();
    for text in &valid {
        assert_eq!(
            Square::parse(text).map(|s| s.to_string()).as_ref(),
            Some(text)
        );
    }
    let grammar = |rng: &mut Rng| random_square(rng);
    let source = Source {
        alphabet: SQUARE_ALPHABET,
        separators: &["", " ", "-"],
        valid: &valid,
        grammar: &grammar,
    };
    let tally = fuzz(
        "hanniball square",
        &source,
        generate,
        |text| match Square::parse(text) {
            Some(square) => {
                assert_eq!(square.to_string(), text, "a square reads back as written");
                true
            }
            None => false,
        },
    );
    assert!(tally.refused_share(Class::Mutation) > 0.5, "{tally:?}");
}

#[test]
fn hanniball_step() {
    let corpus = hanniball();
    let grammar = |rng: &mut Rng| random_step(rng);
    let source = Source {
        alphabet: STEP_ALPHABET,
        separators: STEP_SEPARATORS,
        valid: &corpus.steps,
        grammar: &grammar,
    };
    for text in &corpus.steps {
        assert_eq!(
            text.parse::<Step>().map(|s| s.to_string()).as_ref(),
            Ok(text)
        );
    }
    let mut legal_played = 0;
    let tally = fuzz("hanniball step", &source, generate, |text| {
        let step = match text.parse::<Step>() {
            Ok(step) => step,
            Err(error) => {
                assert!(!error.to_string().is_empty());
                return false;
            }
        };
        assert_eq!(step.to_string(), text, "a step reads back as written");
        for (position, legal) in corpus.pool.iter().zip(&corpus.legal) {
            let checked = position.check_step(step);
            let played = position.play_step(step);
            assert_eq!(checked.is_ok(), played.is_ok(), "{text} at {position}");
            assert_eq!(
                checked.is_ok(),
                legal.contains(&step),
                "check_step and legal_steps agree on {text} at {position}"
            );
            if let Ok(next) = played {
                legal_played += 1;
                assert_eq!(HPosition::from_notation(&next.to_notation()), Ok(next));
            }
        }
        true
    });
    assert!(tally.refused_share(Class::Mutation) > 0.3, "{tally:?}");
    assert!(
        legal_played > 0,
        "no fuzzed step was ever legal: the pool is broken"
    );
}

/// How many pool positions an input is played on: all, but only three for very long inputs
/// (the pool's first: an initial position and two from early in a game), to keep runs short.
fn pool_share(text: &str) -> usize {
    if text.len() > 4096 { 3 } else { usize::MAX }
}

/// Plays `text` on the pool positions, typed and through the seam; both must agree, and a
/// refusal must leave the game as it was. Returns how many plays were legal.
fn play_hanniball_turn(corpus: &HanniBall, text: &str, turn: Option<&Turn>) -> usize {
    let mut legal = 0;
    for (position, game) in corpus.pool.iter().zip(&corpus.games).take(pool_share(text)) {
        let before = *position;
        let typed = position.play_turn_text(text);
        assert_eq!(*position, before);
        match (&typed, turn) {
            (Err(TurnTextError::Malformed(_)), None) => {}
            (Err(TurnTextError::Malformed(error)), Some(_)) => {
                panic!("{text:?} parses but play_turn_text calls it malformed: {error}")
            }
            (_, None) => panic!("{text:?} does not parse but play_turn_text read it"),
            (result, Some(turn)) => assert_eq!(
                result.as_ref().ok(),
                position.play_turn(turn).as_ref().ok(),
                "{text} at {position}"
            ),
        }
        let written = game.position();
        match (game.play_turn(text), &typed) {
            (Ok(next), Ok(typed)) => {
                legal += 1;
                assert_eq!(next.position(), typed.to_notation());
                let reloaded = GameKind::HanniBall
                    .load(&next.position(), &GameOptions::default())
                    .expect("a played position loads");
                assert_eq!(reloaded.position(), next.position());
            }
            (Err(TurnError::Malformed(_)), Err(TurnTextError::Malformed(_)))
            | (Err(TurnError::Illegal(_)), Err(TurnTextError::Illegal(_))) => {
                assert_eq!(game.position(), written, "a refused turn changes nothing");
            }
            (seam, typed) => panic!("{text} at {position}: seam {seam:?}, typed {typed:?}"),
        }
    }
    legal
}

#[test]
fn hanniball_turn() {
    let corpus = hanniball();
    // The valid turns were played where they were drawn when the corpus was made.
    for text in &corpus.turns {
        let turn: Turn = text.parse().expect("a written turn parses");
        assert_eq!(&turn.to_string(), text);
    }
    let grammar = |rng: &mut Rng| random_turn_text(rng);
    let source = Source {
        alphabet: STEP_ALPHABET,
        separators: STEP_SEPARATORS,
        valid: &corpus.turns,
        grammar: &grammar,
    };
    let mut legal = 0;
    let mut longest_message = 0;
    let tally = fuzz("hanniball turn", &source, generate, |text| {
        let parsed = text.parse::<Turn>();
        match &parsed {
            Ok(turn) => assert_eq!(turn.to_string(), text, "a turn reads back as written"),
            Err(error) => longest_message = longest_message.max(error.to_string().len()),
        }
        legal += play_hanniball_turn(&corpus, text, parsed.as_ref().ok());
        parsed.is_ok()
    });
    // Messages quote at most 64 characters of the input, whatever its length (1 MB inputs
    // included): what they add is bounded.
    println!(
        "hanniball turn: {legal} fuzzed turns were legal where played; longest error message \
         {longest_message} bytes"
    );
    assert!(
        longest_message < 1_024,
        "an error message of {longest_message} bytes: the input is quoted whole"
    );
    assert!(
        legal > 0,
        "no fuzzed turn was ever legal: the pool is broken"
    );
    assert!(tally.refused_share(Class::Bytes) > 0.9, "{tally:?}");
}

/// The engine on a position just read: legal steps read back, a random legal turn is accepted,
/// the seam agrees.
fn exercise_hanniball_position(position: &HPosition, text: &str, rng: &mut Rng) {
    let game = GameKind::HanniBall
        .load(text, &GameOptions::default())
        .unwrap_or_else(|error| panic!("from_notation read it, load refused it: {error}"));
    assert_eq!(game.position(), text);
    let steps = position.legal_step_texts();
    assert_eq!(game.legal_steps(), steps);
    for step_text in &steps {
        let step: Step = step_text.parse().expect("a listed step parses");
        assert_eq!(&step.to_string(), step_text);
        assert_eq!(position.check_step(step), Ok(()), "{step_text} at {text}");
    }
    let _ = (
        game.result(),
        game.notices(),
        game.render(),
        game.turns_played(),
    );
    let _ = position.offences();
    if let Some(turn) = random_turn(position, &mut picker(rng)) {
        let turn_text = turn.to_string();
        let next = position
            .play_turn_text(&turn_text)
            .unwrap_or_else(|error| panic!("random legal turn {turn_text} refused: {error}"));
        assert_eq!(
            HPosition::from_notation(&next.to_notation())
                .map(|p| p.with_max_turns(next.max_turns())),
            Ok(next)
        );
        let seam = game
            .play_turn(&turn_text)
            .unwrap_or_else(|error| panic!("seam refused random legal turn {turn_text}: {error}"));
        assert_eq!(seam.position(), next.to_notation());
    }
}

#[test]
fn hanniball_position() {
    let corpus = hanniball();
    for text in &corpus.positions {
        let position = HPosition::from_notation(text).expect("a written position parses");
        assert_eq!(&position.to_notation(), text);
    }
    let source = Source {
        alphabet: POSITION_ALPHABET,
        separators: &["/", " ", "", "  "],
        valid: &corpus.positions,
        grammar: &random_position_text,
    };
    let tally = fuzz("hanniball position", &source, generate, |text| {
        let parsed = HPosition::from_notation(text);
        assert_eq!(text.parse::<HPosition>(), parsed);
        match parsed {
            Ok(position) => {
                assert_eq!(
                    position.to_notation(),
                    text,
                    "a position reads back as written"
                );
                let mut rng = input_rng("hanniball position engine", text.len());
                exercise_hanniball_position(&position, text, &mut rng);
                true
            }
            Err(error) => {
                assert!(!error.to_string().is_empty());
                assert!(
                    GameKind::HanniBall
                        .load(text, &GameOptions::default())
                        .is_err()
                );
                false
            }
        }
    });
    let mutated = Class::Mutation as usize;
    assert_eq!(
        tally.ok[Class::Bytes as usize],
        0,
        "random bytes read as a position"
    );
    assert!(tally.refused_share(Class::Mutation) > 0.5, "{tally:?}");
    assert!(
        tally.ok[mutated] > 0,
        "no mutation was ever still valid: {tally:?}"
    );
    assert!(
        tally.ok[Class::Grammar as usize] > 0,
        "the grammar never made a valid position"
    );
}

// ---------------------------------------------------------------------------------------------
// Paper football.

/// Valid paper-football material.
struct Paper {
    pool: Vec<PPosition>,
    games: Vec<Box<dyn Game>>,
    positions: Vec<String>,
    turns: Vec<String>,
}

/// A random legal turn of the side to move (from mid-turn: the rest of it). `None` when over.
fn paper_turn(position: &PPosition, rng: &mut Rng) -> Option<Vec<Direction>> {
    let mut next = position.clone();
    let mut steps = Vec::new();
    loop {
        let legal = next.legal_steps();
        if legal.is_empty() {
            return (!steps.is_empty()).then_some(steps);
        }
        let step = legal.nth(rng.below(legal.len())).expect("n < len");
        let outcome = next.apply_step(step).expect("a listed step is legal");
        steps.push(step);
        if !matches!(outcome, StepOutcome::Bounce(_)) {
            return Some(steps);
        }
    }
}

fn paper() -> Paper {
    let mut rng = Rng::new(DEFAULT_SEED);
    let mut pool = vec![PPosition::initial()];
    let mut positions: Vec<String> = [
        "",
        "N N N N N E N",
        "SW SW SW S S W SE NE W S",
        "NE E S W NW",
    ]
    .map(str::to_owned)
    .to_vec();
    let mut turns = vec!["N".to_owned(), "NE E SE".to_owned()];
    for game in 0..8 {
        let mut position = PPosition::initial();
        let mut ply = 0;
        while let Some(turn) = paper_turn(&position, &mut rng) {
            turns.push(write_steps(&turn));
            if ply % 9 == 4 && pool.len() < 24 {
                pool.push(position.clone());
                // Stop after the first step: in mid-turn when that step bounced.
                if let Ok(mid) = position.play_step(turn[0])
                    && mid.must_bounce()
                {
                    positions.push(mid.to_notation());
                    pool.push(mid);
                }
            }
            position = position.play_turn(&turn).expect("a random turn is legal");
            positions.push(position.to_notation());
            ply += 1;
        }
        if game % 2 == 0 {
            pool.push(position);
        }
    }
    let games = pool
        .iter()
        .map(|p| {
            GameKind::PaperFootball
                .load(&p.to_notation(), &GameOptions::default())
                .expect("pool positions load")
        })
        .collect();
    Paper {
        pool,
        games,
        positions,
        turns,
    }
}

const DIRECTIONS: &[&str] = &["N", "NE", "E", "SE", "S", "SW", "W", "NW"];
const PAPER_ALPHABET: &[&str] = &[
    "N", "NE", "E", "SE", "S", "SW", "W", "NW", "n", "ne", "NNE", "NEE", "X", "Q", "0", "1", "8",
];
const PAPER_SEPARATORS: &[&str] = &[" ", " ", " ", "", "  ", ",", "-", "\t"];
/// The longest paper-football error message allowed: a hostile input must not make a huge one.
const PAPER_MESSAGE_LIMIT: usize = 512;

fn random_directions(rng: &mut Rng) -> String {
    let steps: Vec<&str> = (0..rng.below(12)).map(|_| rng.pick(DIRECTIONS)).collect();
    let mut text = steps.join(" ");
    if rng.one_in(10) {
        text = mutate(
            rng,
            &text,
            &Source {
                alphabet: PAPER_ALPHABET,
                separators: PAPER_SEPARATORS,
                valid: &[],
                grammar: &no_grammar,
            },
        );
    }
    text
}

#[test]
fn paper_direction() {
    let valid: Vec<String> = DIRECTIONS.iter().map(|d| (*d).to_owned()).collect();
    let source = Source {
        alphabet: PAPER_ALPHABET,
        separators: &["", " "],
        valid: &valid,
        grammar: &|rng| rng.pick(DIRECTIONS).to_owned(),
    };
    let tally = fuzz(
        "paper direction",
        &source,
        generate,
        |text| match text.parse::<Direction>() {
            Ok(direction) => {
                assert_eq!(
                    direction.to_string(),
                    text,
                    "a direction reads back as written"
                );
                assert_eq!(direction.name(), text);
                true
            }
            Err(_) => false,
        },
    );
    let grammar = Class::Grammar as usize;
    assert!(
        tally.ok[grammar] > 0 && tally.err[grammar] == 0,
        "{tally:?}"
    );
    assert!(tally.refused_share(Class::Mutation) > 0.5, "{tally:?}");
}

fn play_paper_turn(corpus: &Paper, text: &str, steps: Option<&[Direction]>) -> usize {
    let mut legal = 0;
    for (position, game) in corpus.pool.iter().zip(&corpus.games).take(pool_share(text)) {
        let written = game.position();
        let typed = steps.map(|steps| position.play_turn(steps));
        if let Some(Err(error)) = &typed {
            assert!(error.to_string().len() <= PAPER_MESSAGE_LIMIT, "{error}");
        }
        match (game.play_turn(text), typed) {
            (Ok(next), Some(Ok(typed))) => {
                legal += 1;
                assert_eq!(next.position(), typed.to_notation());
                assert_eq!(PPosition::from_notation(&next.position()), Ok(typed));
            }
            (Err(error), typed) => {
                assert!(error.to_string().len() <= PAPER_MESSAGE_LIMIT, "{error}");
                match (&error, typed) {
                    (TurnError::Malformed(_), None) | (TurnError::Illegal(_), Some(Err(_))) => {}
                    (error, typed) => panic!("{text:?}: seam {error}, typed {typed:?}"),
                }
                assert_eq!(game.position(), written, "a refused turn changes nothing");
            }
            (seam, typed) => panic!(
                "{text:?}: seam {:?}, typed {typed:?}",
                seam.map(|g| g.position())
            ),
        }
    }
    legal
}

#[test]
fn paper_turn_notation() {
    let corpus = paper();
    for text in &corpus.turns {
        assert_eq!(parse_turn(text).map(|s| write_steps(&s)).as_ref(), Ok(text));
    }
    let source = Source {
        alphabet: PAPER_ALPHABET,
        separators: PAPER_SEPARATORS,
        valid: &corpus.turns,
        grammar: &random_directions,
    };
    let mut legal = 0;
    let tally = fuzz("paper turn", &source, generate, |text| {
        let parsed = parse_turn(text);
        match &parsed {
            Ok(steps) => assert_eq!(write_steps(steps), text, "a turn reads back as written"),
            Err(error) => assert!(error.to_string().len() <= PAPER_MESSAGE_LIMIT, "{error}"),
        }
        legal += play_paper_turn(&corpus, text, parsed.as_deref().ok());
        parsed.is_ok()
    });
    println!("paper turn: {legal} fuzzed turns were legal where played");
    assert!(
        legal > 0,
        "no fuzzed turn was ever legal: the pool is broken"
    );
    assert!(tally.refused_share(Class::Bytes) > 0.9, "{tally:?}");
}

/// A legal history, sometimes with one more step that may well be illegal.
fn random_history(rng: &mut Rng) -> String {
    let mut position = PPosition::initial();
    for _ in 0..rng.below(60) {
        let legal = position.legal_steps();
        if legal.is_empty() {
            break;
        }
        let step = legal.nth(rng.below(legal.len())).expect("n < len");
        position.apply_step(step).expect("listed");
    }
    let mut text = position.to_notation();
    if rng.one_in(3) {
        if !text.is_empty() {
            text.push(' ');
        }
        text.push_str(rng.pick(DIRECTIONS));
    }
    text
}

#[test]
fn paper_position() {
    let corpus = paper();
    for text in &corpus.positions {
        let position = PPosition::from_notation(text).expect("a written position parses");
        assert_eq!(&position.to_notation(), text);
    }
    let source = Source {
        alphabet: PAPER_ALPHABET,
        separators: PAPER_SEPARATORS,
        valid: &corpus.positions,
        grammar: &random_history,
    };
    let tally = fuzz("paper position", &source, generate, |text| {
        let parsed = PPosition::from_notation(text);
        assert_eq!(text.parse::<PPosition>(), parsed);
        let loaded = GameKind::PaperFootball.load(text, &GameOptions::default());
        let position = match parsed {
            Ok(position) => position,
            Err(error) => {
                assert!(error.to_string().len() <= PAPER_MESSAGE_LIMIT, "{error}");
                assert!(loaded.is_err());
                // A history that is a list of steps fails where its steps replayed fail.
                if let Ok(steps) = parse_turn(text) {
                    assert_eq!(PPosition::from_steps(&steps), Err(error));
                }
                return false;
            }
        };
        assert_eq!(
            position.to_notation(),
            text,
            "a position reads back as written"
        );
        let steps = parse_turn(text).expect("a readable history is a list of steps");
        assert_eq!(PPosition::from_steps(&steps).as_ref(), Ok(&position));
        let game =
            loaded.unwrap_or_else(|error| panic!("from_notation read it, load refused: {error}"));
        assert_eq!(game.position(), text);
        let _ = (
            game.result(),
            game.render(),
            game.legal_steps(),
            position.current_turn(),
        );
        let mut rng = input_rng("paper position engine", text.len());
        if let Some(turn) = paper_turn(&position, &mut rng) {
            let turn_text = write_steps(&turn);
            let next = game
                .play_turn(&turn_text)
                .unwrap_or_else(|error| panic!("random legal turn {turn_text} refused: {error}"));
            assert_eq!(
                PPosition::from_notation(&next.position()).ok(),
                position.play_turn(&turn).ok()
            );
        } else {
            assert!(position.is_over());
        }
        true
    });
    assert!(tally.refused_share(Class::Mutation) > 0.5, "{tally:?}");
    assert!(tally.ok[Class::Grammar as usize] > 0, "{tally:?}");
}

// ---------------------------------------------------------------------------------------------
// The seam: game kind names and loading with options.

#[test]
fn seam_kind_and_options() {
    let valid: Vec<String> = GameKind::ALL.iter().map(|k| k.name().to_owned()).collect();
    let source = Source {
        alphabet: &[
            "hanniball",
            "paper-football",
            "paper",
            "-",
            "football",
            "HanniBall",
            "standard",
        ],
        separators: &["", " ", "-"],
        valid: &valid,
        grammar: &|rng| rng.pick(&["hanniball", "paper-football"]).to_owned(),
    };
    let hanni = hanniball();
    let paper = paper();
    let tally = fuzz("seam kind and options", &source, generate, |text| {
        let kind = text.parse::<GameKind>();
        if let Ok(kind) = kind {
            assert_eq!(kind.name(), text);
        }
        // The same text as a ruleset option, with positions that load without options.
        let mut rng = input_rng("seam options", text.len());
        let max_turns = rng.pick(&[None, Some(0), Some(1), Some(300), Some(u32::MAX)]);
        let ruleset = if rng.one_in(2) {
            Some(text.to_owned())
        } else {
            rng.pick_ref(&[
                None,
                Some("standard".to_owned()),
                Some("zillions-2010".to_owned()),
            ])
            .clone()
        };
        let options = GameOptions { ruleset, max_turns };
        for (kind, position) in [
            (GameKind::HanniBall, rng.pick_ref(&hanni.positions)),
            (GameKind::PaperFootball, rng.pick_ref(&paper.positions)),
        ] {
            let new = kind.new_game(&options);
            match kind.load(position, &options) {
                Ok(game) => {
                    assert!(
                        new.is_ok(),
                        "{kind}: load accepted options new_game refused"
                    );
                    assert_eq!(&game.position(), position);
                    assert!(kind.rulesets().contains(&game.ruleset()));
                }
                Err(error) => assert!(!error.to_string().is_empty()),
            }
        }
        kind.is_ok()
    });
    let grammar = Class::Grammar as usize;
    assert!(
        tally.ok[grammar] > 0 && tally.err[grammar] == 0,
        "{tally:?}"
    );
}

// ---------------------------------------------------------------------------------------------
// Regression cases: inputs that once made a reader panic stay here, checked on every run.

#[test]
fn regressions() {
    let cases: &[&str] = &[];
    for text in cases {
        let _ = text.parse::<Step>();
        let _ = text.parse::<Turn>();
        let _ = HPosition::from_notation(text);
        let _ = parse_turn(text);
        let _ = PPosition::from_notation(text);
    }
}
