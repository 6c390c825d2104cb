//! Measured strength: bot-vs-bot matches with alternating colours, deterministic seeds and a
//! fixed node budget per turn (the deadline never expires), so every run prints the same table.
//!
//! `cargo bench -p hanniball-bots --bench strength [-- <filter> [games]]`, where the filter is a
//! substring of a match name (`hanniball greedy-random`, `paper search-greedy`, ...).

use std::time::{Duration, Instant};

use hanniball_bots::{BotKind, NoDeadline, Think, choose_turn};
use hanniball_rules::{GameKind, GameOptions, Outcome, Side};

/// The search's node budget per turn (the time per move is printed with each match); the
/// environment variable `STRENGTH_NODES` overrides it for experiments.
const SEARCH_NODES: u64 = 200_000;

fn search_nodes() -> u64 {
    std::env::var("STRENGTH_NODES")
        .ok()
        .and_then(|text| text.parse().ok())
        .unwrap_or(SEARCH_NODES)
}

struct Match {
    game: GameKind,
    bot: BotKind,
    opponent: BotKind,
    games: u32,
    target: f64,
}

#[derive(Default)]
struct Tally {
    wins: u32,
    draws: u32,
    losses: u32,
    turns: u64,
    /// Thinking time and turns of the bot under test, then of its opponent.
    time: [Duration; 2],
    moves: [u64; 2],
    /// The longest think of the bot under test.
    slowest: Duration,
}

fn seed(game: u32, turn: u32) -> u64 {
    (u64::from(game) << 32 | u64::from(turn)).wrapping_mul(0x9E37_79B9_7F4A_7C15)
}

/// Random turns that open each game, so that the games differ; the two games of a pair (one per
/// colour for the bot under test) share their opening.
const OPENING_TURNS: u32 = 2;

/// One game; `bot_side` is the colour of the bot under test. Returns its outcome.
fn play(spec: &Match, index: u32, bot_side: Side, tally: &mut Tally) -> Outcome {
    let mut game = spec
        .game
        .new_game(&GameOptions::default())
        .expect("default options are valid");
    let mut turn = 0;
    while turn < OPENING_TURNS && game.result().is_none() {
        let think = Think {
            deadline: &mut NoDeadline,
            max_nodes: None,
            seed: seed(index / 2, turn) ^ 0x0123_4567,
        };
        let text = choose_turn(BotKind::Random, game.as_ref(), think).expect("not over");
        game = game.play_turn(&text).expect("bots choose legal turns");
        turn += 1;
    }
    loop {
        if let Some(result) = game.result() {
            tally.turns += u64::from(game.turns_played());
            return result.outcome;
        }
        let mover = game.side_to_move();
        let (kind, who) = if mover == bot_side {
            (spec.bot, 0)
        } else {
            (spec.opponent, 1)
        };
        let started = Instant::now();
        let text = choose_turn(
            kind,
            game.as_ref(),
            Think {
                deadline: &mut NoDeadline,
                max_nodes: Some(search_nodes()),
                seed: seed(index, turn),
            },
        )
        .expect("a game that is not over has a turn");
        let spent = started.elapsed();
        tally.time[who] += spent;
        if who == 0 {
            tally.slowest = tally.slowest.max(spent);
        }
        tally.moves[who] += 1;
        game = game.play_turn(&text).expect("bots choose legal turns");
        turn += 1;
    }
}

fn run(spec: &Match) {
    let started = Instant::now();
    let mut tally = Tally::default();
    for index in 0..spec.games {
        let bot_side = if index % 2 == 0 {
            Side::White
        } else {
            Side::Black
        };
        match play(spec, index, bot_side, &mut tally) {
            Outcome::Win(side) if side == bot_side => tally.wins += 1,
            Outcome::Win(_) => tally.losses += 1,
            Outcome::Draw => tally.draws += 1,
        }
    }
    let rate = f64::from(tally.wins) / f64::from(spec.games);
    let per_move =
        |who: usize| tally.time[who].as_secs_f64() * 1e3 / tally.moves[who].max(1) as f64;
    println!(
        "{:<15} {:>6} vs {:<6} games {:>4}  W {:>4} D {:>4} L {:>4}  win rate {:>5.1}% (target {:>3.0}%) {}  \
         turns/game {:>5.1}  ms/move {:.2} (max {:.0}) vs {:.2}  ({:.1} s)",
        spec.game.name(),
        spec.bot.name(),
        spec.opponent.name(),
        spec.games,
        tally.wins,
        tally.draws,
        tally.losses,
        rate * 100.0,
        spec.target * 100.0,
        if rate >= spec.target { "ok" } else { "MISSED" },
        tally.turns as f64 / f64::from(spec.games),
        per_move(0),
        tally.slowest.as_secs_f64() * 1e3,
        per_move(1),
        started.elapsed().as_secs_f64(),
    );
}

fn main() {
    // `cargo bench` passes `--bench`; everything else is ours.
    let args: Vec<String> = std::env::args()
        .skip(1)
        .filter(|arg| !arg.starts_with("--"))
        .collect();
    let filter = args.first().cloned().unwrap_or_default();
    let games: Option<u32> = args.get(1).and_then(|text| text.parse().ok());
    let matches = [
        Match {
            game: GameKind::HanniBall,
            bot: BotKind::Greedy,
            opponent: BotKind::Random,
            games: 200,
            target: 0.95,
        },
        Match {
            game: GameKind::HanniBall,
            bot: BotKind::Search,
            opponent: BotKind::Greedy,
            games: 100,
            target: 0.70,
        },
        Match {
            game: GameKind::PaperFootball,
            bot: BotKind::Greedy,
            opponent: BotKind::Random,
            games: 200,
            target: 0.95,
        },
        Match {
            game: GameKind::PaperFootball,
            bot: BotKind::Search,
            opponent: BotKind::Greedy,
            games: 100,
            target: 0.70,
        },
    ];
    println!(
        "search node budget per turn: {}; deadline: never",
        search_nodes()
    );
    for spec in matches {
        let name = format!(
            "{} {}-{}",
            spec.game.name(),
            spec.bot.name(),
            spec.opponent.name()
        );
        if !name.contains(&filter) {
            continue;
        }
        run(&Match {
            games: games.unwrap_or(spec.games),
            ..spec
        });
    }
}
