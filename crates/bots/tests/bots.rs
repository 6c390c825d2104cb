//! The bots through their public API: every chosen turn is legal on random positions of both
//! games, a seed and a node budget fix the choice, goals are taken and own goals avoided, and a
//! search stops at once on an expired deadline.

use std::time::{Duration, Instant};

use hanniball_bots::{BotError, BotKind, Deadline, NoDeadline, Think, choose_turn};
use hanniball_rules::hanniball::square::Square;
use hanniball_rules::hanniball::{HanniBallGame, Position};
use hanniball_rules::{EndReason, Game, GameKind, GameOptions, GameResult, Outcome, Side};

/// Node budget of the search in tests: small, so hundreds of positions take a few seconds.
const TEST_NODES: u64 = 4_000;

fn think(deadline: &mut dyn Deadline, seed: u64) -> Think<'_> {
    Think {
        deadline,
        max_nodes: Some(TEST_NODES),
        seed,
    }
}

fn choose(kind: BotKind, game: &dyn Game, seed: u64) -> String {
    choose_turn(kind, game, think(&mut NoDeadline, seed))
        .unwrap_or_else(|error| panic!("{kind} at {}: {error}", game.position()))
}

/// Positions from random games: `count` games, each stopped after a seeded number of random turns
/// below `max_turns` (or at its end, which is skipped).
fn random_positions(kind: GameKind, count: u64, max_turns: u64) -> Vec<Box<dyn Game>> {
    random_positions_under(kind, &GameOptions::default(), count, max_turns)
}

fn random_positions_under(
    kind: GameKind,
    options: &GameOptions,
    count: u64,
    max_turns: u64,
) -> Vec<Box<dyn Game>> {
    let mut positions = Vec::new();
    for seed in 0..count {
        let mut game = kind.new_game(options).expect("valid options");
        let stop = (seed * 7919) % max_turns;
        for turn in 0..stop {
            if game.result().is_some() {
                break;
            }
            let text = choose(BotKind::Random, game.as_ref(), seed * 1000 + turn);
            game = game.play_turn(&text).expect("random turns are legal");
        }
        if game.result().is_none() {
            positions.push(game);
        }
    }
    positions
}

/// A HanniBall position from a piece list ("Ke1 Ed7 hd12": letter then square), the ball's square
/// and the rest of the notation ("w 5 0 standard").
fn setup(pieces: &str, ball: &str, tail: &str) -> Box<dyn Game> {
    let mut grid = [[None::<char>; 9]; 15];
    for item in pieces.split_whitespace() {
        let letter = item.chars().next().expect("piece letter");
        let square = Square::parse(&item[1..]).expect("square");
        grid[square.rank() as usize][square.file() as usize] = Some(letter);
    }
    let mut ranks = Vec::new();
    for rank in (0..15usize).rev() {
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
        ranks.push(text);
    }
    let notation = format!("{} {ball} {tail}", ranks.join("/"));
    GameKind::HanniBall
        .load(&notation, &GameOptions::default())
        .unwrap_or_else(|error| panic!("{notation}: {error}"))
}

fn paper(history: &str) -> Box<dyn Game> {
    GameKind::PaperFootball
        .load(history, &GameOptions::default())
        .unwrap_or_else(|error| panic!("{history:?}: {error}"))
}

fn result_after(game: &dyn Game, turn: &str) -> Option<GameResult> {
    game.play_turn(turn).expect("legal turn").result()
}

#[test]
fn every_bot_plays_legal_turns_on_random_hanniball_positions() {
    let mut positions = random_positions(GameKind::HanniBall, 150, 80);
    // RULES 1.10: the other ruleset (leaps blocked by opponents only, no clustering).
    let zillions = GameOptions {
        ruleset: Some("zillions-2010".to_owned()),
        max_turns: None,
    };
    positions.extend(random_positions_under(
        GameKind::HanniBall,
        &zillions,
        40,
        80,
    ));
    // Some mid-turn positions too (the seam accepts the rest of a turn).
    let mid_turn: Vec<Box<dyn Game>> = positions
        .iter()
        .step_by(5)
        .filter_map(|game| {
            let position = Position::from_notation(&game.position()).expect("own notation");
            let step = *position.legal_steps().first()?;
            let next = position.apply(step);
            (next.result().is_none() && !next.legal_steps().is_empty())
                .then(|| Box::new(HanniBallGame::new(next)) as Box<dyn Game>)
        })
        .collect();
    positions.extend(mid_turn);
    assert!(positions.len() > 120, "{} positions", positions.len());
    for (i, game) in positions.iter().enumerate() {
        for kind in BotKind::ALL {
            let turn = choose(kind, game.as_ref(), i as u64);
            assert!(
                game.play_turn(&turn).is_ok(),
                "{kind} chose illegal {turn} at {}",
                game.position()
            );
        }
    }
}

#[test]
fn every_bot_plays_legal_turns_on_random_paper_positions() {
    let mut positions = random_positions(GameKind::PaperFootball, 400, 20);
    // Mid-turn positions too: a history that ends with a bounce still owed (RULES 2.5).
    let mid_turn: Vec<Box<dyn Game>> = positions
        .iter()
        .enumerate()
        .filter_map(|(i, game)| {
            let turn = choose(BotKind::Random, game.as_ref(), i as u64);
            let (first, _rest) = turn.split_once(' ')?;
            let history = game.position();
            let history = if history.is_empty() {
                first.to_owned()
            } else {
                format!("{history} {first}")
            };
            Some(paper(&history))
        })
        .collect();
    assert!(!mid_turn.is_empty());
    positions.extend(mid_turn);
    assert!(positions.len() > 250, "{} positions", positions.len());
    for (i, game) in positions.iter().enumerate() {
        for kind in BotKind::ALL {
            let turn = choose(kind, game.as_ref(), i as u64);
            assert!(
                game.play_turn(&turn).is_ok(),
                "{kind} chose illegal {turn} at {:?}",
                game.position()
            );
        }
    }
}

#[test]
fn a_seed_and_a_node_budget_fix_the_choice() {
    for kind in [GameKind::HanniBall, GameKind::PaperFootball] {
        for game in random_positions(kind, 12, 30) {
            for bot in BotKind::ALL {
                let first = choose(bot, game.as_ref(), 42);
                let again = choose(bot, game.as_ref(), 42);
                assert_eq!(first, again, "{bot} at {}", game.position());
            }
        }
    }
}

#[test]
fn greedy_and_search_take_an_immediate_hanniball_goal() {
    // RULES 1.7: the elephant carries to e13 and shoots to d15 or f15 (the keeper guards e15),
    // or another way in; every way in wins.
    let cases = [
        ("Ke1 Ee12 ke15 hd12 hf12", "e12", "w 5 0 standard"),
        ("Ke1 Lc8 ke15 ee10", "c8", "w 5 0 standard"),
        // Black attacks rank 1; the horse shoots into d1 or f1 next to White's keeper.
        ("Ke1 he3 Ef3 ke15", "e3", "b 5 0 standard"),
    ];
    for (pieces, ball, tail) in cases {
        let game = setup(pieces, ball, tail);
        let mover = game.side_to_move();
        for bot in [BotKind::Greedy, BotKind::Search] {
            let turn = choose(bot, game.as_ref(), 1);
            assert_eq!(
                result_after(game.as_ref(), &turn),
                Some(GameResult {
                    outcome: Outcome::Win(mover),
                    reason: EndReason::Goal
                }),
                "{bot} played {turn} at {}",
                game.position()
            );
        }
    }
}

#[test]
fn greedy_and_search_never_score_an_own_hanniball_goal() {
    // RULES 1.7: a white horse with the ball on e2 can shoot into d1, f1 or carry into them; it
    // must not. Black pieces nearby make staying put unattractive.
    let cases = [
        ("Ke1 He2 ke15 hd4 hf4", "e2", "w 5 0 standard"),
        ("Kd1 Ee2 Lf2 ke15 ld5", "e2", "w 5 0 standard"),
        ("Ke1 ke15 Hd14 he14", "e14", "b 5 0 standard"),
    ];
    for (pieces, ball, tail) in cases {
        let game = setup(pieces, ball, tail);
        let mover = game.side_to_move();
        for bot in [BotKind::Greedy, BotKind::Search] {
            for seed in 0..4 {
                let turn = choose(bot, game.as_ref(), seed);
                let result = result_after(game.as_ref(), &turn);
                assert_ne!(
                    result.map(|result| result.outcome),
                    Some(Outcome::Win(mover.opponent())),
                    "{bot} played {turn} at {}",
                    game.position()
                );
            }
        }
    }
}

#[test]
fn greedy_and_search_take_an_immediate_paper_goal_and_avoid_an_own_goal() {
    // RULES 2.4: White at (5,11) steps N or NW into the goal at y = 12.
    let scoring = paper("N N N N N E");
    // White at (3,1) beside its own goal (3,0) (4,0): S and SE are own goals.
    let own_goal_risk = paper("S S S S S W");
    for bot in [BotKind::Greedy, BotKind::Search] {
        let turn = choose(bot, scoring.as_ref(), 3);
        assert_eq!(
            result_after(scoring.as_ref(), &turn).map(|result| result.outcome),
            Some(Outcome::Win(Side::White)),
            "{bot} played {turn}"
        );
        let turn = choose(bot, own_goal_risk.as_ref(), 3);
        assert_ne!(
            result_after(own_goal_risk.as_ref(), &turn).map(|result| result.reason),
            Some(EndReason::OwnGoal),
            "{bot} played {turn}"
        );
    }
}

/// A deadline that expires after `allowed` polls and counts the polls after that.
struct PollCounter {
    allowed: u32,
    polls: u32,
}

impl Deadline for PollCounter {
    fn expired(&mut self) -> bool {
        self.polls += 1;
        self.polls > self.allowed
    }
}

#[test]
fn search_answers_at_once_with_a_legal_turn_when_the_deadline_has_passed() {
    let mut games = random_positions(GameKind::HanniBall, 10, 40);
    games.extend(random_positions(GameKind::PaperFootball, 10, 30));
    games.push(
        GameKind::HanniBall
            .new_game(&GameOptions::default())
            .expect("new"),
    );
    for game in &games {
        for allowed in [0, 3] {
            let mut deadline = PollCounter { allowed, polls: 0 };
            let started = Instant::now();
            let turn = choose_turn(
                BotKind::Search,
                game.as_ref(),
                Think {
                    deadline: &mut deadline,
                    max_nodes: None,
                    seed: 9,
                },
            )
            .expect("a legal turn");
            let elapsed = started.elapsed();
            assert!(
                game.play_turn(&turn).is_ok(),
                "{turn} at {}",
                game.position()
            );
            assert!(
                elapsed < Duration::from_millis(250),
                "{elapsed:?} at {}",
                game.position()
            );
            // Once expired, the search looks again only a handful of times on its way out.
            assert!(
                deadline.polls <= allowed + 3,
                "{} polls at {}",
                deadline.polls,
                game.position()
            );
        }
    }
}

#[test]
fn a_finished_game_has_no_turn_to_choose() {
    let scoring = paper("N N N N N E N");
    assert!(scoring.result().is_some());
    for bot in BotKind::ALL {
        let error =
            choose_turn(bot, scoring.as_ref(), think(&mut NoDeadline, 0)).expect_err("game over");
        assert!(matches!(error, BotError::GameOver { .. }), "{error}");
    }
}

#[test]
fn bot_kinds_round_trip_through_their_names() {
    for bot in BotKind::ALL {
        assert_eq!(bot.to_string().parse::<BotKind>(), Ok(bot));
    }
    assert!(matches!(
        "minimax".parse::<BotKind>(),
        Err(BotError::UnknownBotKind(name)) if name == "minimax"
    ));
}

#[test]
fn greedy_and_search_leave_no_goal_to_the_opponent_when_they_can_help_it() {
    // A black horse holds the ball on e4, near White's goal; White's elephant on d5 (or the
    // lion) can take it. Whatever White does, Black (playing greedy, which always takes a goal
    // it can see) must not score on its next turn.
    let cases = [
        ("Ke1 Ed5 Lb8 ke15 he4 hg6", "e4", "w 5 0 standard"),
        ("Ke2 Ef6 Lc3 ke15 hd5 ee7", "d5", "w 5 0 standard"),
    ];
    for (pieces, ball, tail) in cases {
        let game = setup(pieces, ball, tail);
        for bot in [BotKind::Greedy, BotKind::Search] {
            let turn = choose(bot, game.as_ref(), 5);
            let after = game.play_turn(&turn).expect("legal");
            assert!(after.result().is_none(), "{bot} ended the game with {turn}");
            let reply = choose(BotKind::Greedy, after.as_ref(), 5);
            assert_eq!(
                result_after(after.as_ref(), &reply),
                None,
                "{bot} played {turn} at {}, then black {reply}",
                game.position()
            );
        }
    }
}

#[test]
fn greedy_and_search_do_not_end_a_quiet_turn_in_a_punishable_offence() {
    // RULES 1.8: White's c8 d8 e8 and the loose ball on f8 are a group of four. White has time
    // to pick the ball up and break the group; it must not hand Black a penalty removal.
    let game = setup("Ke1 Hc8 Hd8 Ee8 Lb3 ke15 hd12 hf12", "f8", "w 5 0 standard");
    for bot in [BotKind::Greedy, BotKind::Search] {
        for seed in 0..3 {
            let turn = choose(bot, game.as_ref(), seed);
            let after = game.play_turn(&turn).expect("legal");
            assert_eq!(
                after.notices(),
                Vec::<String>::new(),
                "{bot} played {turn} at {}",
                game.position()
            );
        }
    }
}
