//! Golden files: FIDE tables, K, rounding, performance, the ladder and the Glicko-2 paper.

use std::collections::HashMap;
use std::fmt::Debug;

use hanniball_rating::{EloConfig, Rating, Score, System, fide, glicko2, period};

/// One data line of a golden file: its line number and whitespace-separated fields.
struct Line {
    number: usize,
    fields: Vec<String>,
}

/// The data lines of `tests/data/<name>`, which must begin with a `# Source:` line.
/// Comments (`#` to the end of the line) and blank lines are skipped.
fn load(name: &str) -> Vec<Line> {
    let path = format!("{}/tests/data/{name}", env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(&path).expect("golden file is readable");
    assert!(
        text.starts_with("# Source:"),
        "{name} must begin with a `# Source:` line"
    );
    text.lines()
        .enumerate()
        .filter_map(|(i, raw)| {
            let data = raw.split('#').next().unwrap_or("").trim();
            (!data.is_empty()).then(|| Line {
                number: i + 1,
                fields: data.split_whitespace().map(str::to_string).collect(),
            })
        })
        .collect()
}

/// Collects mismatches so that one run reports every failing case of a file.
#[derive(Default)]
struct Checker {
    failures: Vec<String>,
    cases: usize,
}

impl Checker {
    fn check<I: Debug, T: PartialEq + Debug>(
        &mut self,
        at: &str,
        input: I,
        actual: T,
        expected: T,
    ) {
        self.cases += 1;
        if actual != expected {
            self.failures.push(format!(
                "{at}: {input:?}: got {actual:?}, expected {expected:?}"
            ));
        }
    }

    fn close(&mut self, at: &str, what: &str, actual: f64, expected: f64, tolerance: f64) {
        self.cases += 1;
        if (actual - expected).abs() > tolerance {
            self.failures.push(format!(
                "{at}: {what}: got {actual}, expected {expected} ± {tolerance}"
            ));
        }
    }

    fn finish(self, name: &str) {
        assert!(self.cases > 0, "{name} has no cases");
        assert!(
            self.failures.is_empty(),
            "{name}: {} of {} cases failed:\n{}",
            self.failures.len(),
            self.cases,
            self.failures.join("\n")
        );
    }
}

fn int(s: &str) -> i64 {
    s.parse().expect("an integer")
}

fn yes(s: &str) -> bool {
    match s {
        "yes" => true,
        "no" => false,
        other => panic!("expected yes or no, got {other}"),
    }
}

fn score(s: &str) -> Score {
    match s {
        "W" => Score::Win,
        "D" => Score::Draw,
        "L" => Score::Loss,
        other => panic!("expected W, D or L, got {other}"),
    }
}

/// A two-decimal probability such as `.92` or `1.00` in hundredths.
fn hundredths(s: &str) -> u8 {
    let (whole, frac) = s.split_once('.').expect("a decimal point");
    let whole: u8 = if whole.is_empty() {
        0
    } else {
        whole.parse().expect("digits")
    };
    whole * 100 + frac.parse::<u8>().expect("two decimals")
}

fn elo_player(rating: i64, games: u32, reached: bool, month: Option<i64>, in_month: u32) -> Rating {
    Rating {
        rating: rating as f64,
        games,
        wins: games,
        peak: rating as f64,
        reached_2400: reached,
        period: month,
        period_games: in_month,
        ..System::default().initial()
    }
}

#[test]
fn fide_expectation_table() {
    let config = EloConfig::default();
    let mut c = Checker::default();
    for line in load("fide_expectation.txt") {
        let at = format!("fide_expectation.txt:{}", line.number);
        let f = &line.fields;
        let (own, opponent) = (int(&f[0]), int(&f[1]));
        c.check(
            &at,
            (own, opponent, "table"),
            fide::table_expectation(own - opponent),
            hundredths(&f[2]),
        );
        c.check(
            &at,
            (own, opponent, "400-point rule"),
            fide::expectation(&config, own, opponent),
            hundredths(&f[3]),
        );
    }
    c.finish("fide_expectation.txt");
}

#[test]
fn fide_k_factor() {
    let system = System::default();
    // 2024-03-15, month 650.
    let at = 1_710_460_800;
    let month = period::month_index(at);
    let mut c = Checker::default();
    for line in load("fide_k.txt") {
        let f = &line.fields;
        let games = u32::try_from(int(&f[1])).expect("games");
        let nth = u32::try_from(int(&f[3])).expect("n");
        let player = elo_player(int(&f[0]), games, yes(&f[2]), Some(month), nth - 1);
        c.check(
            &format!("fide_k.txt:{}", line.number),
            &f[..4],
            system.elo_k(&player, at),
            Some(u32::try_from(int(&f[4])).expect("K")),
        );
    }
    c.finish("fide_k.txt");
}

#[test]
fn fide_rating_change_and_rounding() {
    let config = EloConfig::default();
    let mut c = Checker::default();
    for line in load("fide_change.txt") {
        let f = &line.fields;
        let (own, opponent) = (int(&f[0]), int(&f[1]));
        let k = u32::try_from(int(&f[2])).expect("K");
        let pd = fide::expectation(&config, own, opponent);
        c.check(
            &format!("fide_change.txt:{}", line.number),
            &f[..4],
            fide::rating_change(k, score(&f[3]), pd),
            int(&f[4]),
        );
    }
    c.finish("fide_change.txt");
}

#[test]
fn elo_ladder_sequence() {
    let system = System::default();
    let mut players: HashMap<String, Rating> = HashMap::new();
    let mut c = Checker::default();
    for line in load("elo_ladder.txt") {
        let at = format!("elo_ladder.txt:{}", line.number);
        let f = &line.fields;
        match f[0].as_str() {
            "player" => {
                let month = (f[5] != "-").then(|| int(&f[5]));
                let in_month = if f[6] == "-" { 0 } else { int(&f[6]) };
                let games = u32::try_from(int(&f[3])).expect("games");
                let r = elo_player(
                    int(&f[2]),
                    games,
                    yes(&f[4]),
                    month,
                    u32::try_from(in_month).expect("games in month"),
                );
                players.insert(f[1].clone(), r);
            }
            "game" => {
                let time = int(&f[1]);
                let first = players[&f[2]].clone();
                let second = players[&f[3]].clone();
                let (a, b) = system.rate(&first, &second, score(&f[4]), time);
                c.check(
                    &at,
                    &f[1..5],
                    (a.rating, b.rating),
                    (int(&f[5]) as f64, int(&f[6]) as f64),
                );
                c.check(
                    &at,
                    "games counted",
                    (a.games, b.games),
                    (first.games + 1, second.games + 1),
                );
                players.insert(f[2].clone(), a);
                players.insert(f[3].clone(), b);
            }
            other => panic!("{at}: unknown record {other}"),
        }
    }
    c.check(
        "elo_ladder.txt",
        "F reached 2400",
        players["F"].reached_2400,
        true,
    );
    c.check("elo_ladder.txt", "D peak", players["D"].peak, 1806.0);
    c.finish("elo_ladder.txt");
}

#[test]
fn fide_performance() {
    let mut c = Checker::default();
    for line in load("performance.txt") {
        let f = &line.fields;
        let arrow = f.iter().position(|x| x == "=>").expect("=>");
        let games: Vec<(f64, Score)> = f[..arrow]
            .iter()
            .map(|g| {
                let (rating, s) = g.split_once(':').expect("rating:score");
                (int(rating) as f64, score(s))
            })
            .collect();
        let expected = match f[arrow + 1].as_str() {
            "none" => None,
            x => Some(int(x) as f64),
        };
        c.check(
            &format!("performance.txt:{}", line.number),
            &f[..arrow],
            hanniball_rating::performance(&games),
            expected,
        );
    }
    c.finish("performance.txt");
}

#[test]
fn glicko2_paper_example() {
    let mut player = None;
    let mut tau = None;
    let mut games = Vec::new();
    let mut expected = Vec::new();
    for line in load("glicko2_paper.txt") {
        let f = &line.fields;
        let num = |i: usize| -> f64 { f[i].parse().expect("a number") };
        match f[0].as_str() {
            "player" => {
                player = Some(glicko2::Player {
                    rating: num(1),
                    deviation: num(2),
                    volatility: num(3),
                })
            }
            "tau" => tau = Some(num(1)),
            "opponent" => games.push((
                glicko2::Player {
                    rating: num(1),
                    deviation: num(2),
                    volatility: 0.06,
                },
                num(3),
            )),
            "printed" | "exact" => {
                expected.push((line.number, format!("{} {}", f[0], f[1]), num(2), num(3)))
            }
            other => panic!("glicko2_paper.txt:{}: unknown record {other}", line.number),
        }
    }
    let player = player.expect("a player line");
    let tau = tau.expect("a tau line");
    let trace = glicko2::trace_period(&player, &games, tau).expect("games were played");
    let new = glicko2::rate_period(&player, &games, tau);
    let mut c = Checker::default();
    for (number, name, value, tolerance) in expected {
        let quantity = name.split_whitespace().nth(1).unwrap_or("");
        let actual = match quantity {
            "v" => trace.v,
            "delta" => trace.delta,
            "sigma" => trace.sigma,
            "phi" => trace.phi,
            "mu" => trace.mu,
            "rating" => new.rating,
            "deviation" => new.deviation,
            "volatility" => new.volatility,
            other => panic!("glicko2_paper.txt:{number}: unknown quantity {other}"),
        };
        c.close(
            &format!("glicko2_paper.txt:{number}"),
            &name,
            actual,
            value,
            tolerance,
        );
    }
    c.finish("glicko2_paper.txt");
}

#[test]
fn glicko2_ladder() {
    let system = System::Glicko2(Default::default());
    let num = |s: &str| -> f64 { s.parse().expect("a number") };
    let player = |f: &[String]| Rating {
        rating: num(&f[0]),
        deviation: Some(num(&f[1])),
        volatility: Some(num(&f[2])),
        ..system.initial()
    };
    let mut c = Checker::default();
    for line in load("glicko2_ladder.txt") {
        let at = format!("glicko2_ladder.txt:{}", line.number);
        let f = &line.fields;
        match f[0].as_str() {
            "idle" => {
                let r = Rating {
                    last_played: (f[3] != "-").then(|| int(&f[3])),
                    ..player(&["1500".to_string(), f[1].clone(), f[2].clone()])
                };
                let shown = system.current(&r, int(&f[4]));
                let rd = shown.deviation.expect("a Glicko-2 deviation");
                c.close(&at, "deviation", rd, num(&f[5]), 1e-6);
                c.check(
                    &at,
                    "unchanged",
                    (shown.rating, shown.games),
                    (r.rating, r.games),
                );
            }
            "game" => {
                let (a, b) = system.rate(&player(&f[1..4]), &player(&f[4..7]), score(&f[7]), 0);
                for (who, r, e) in [("first", &a, &f[8..11]), ("second", &b, &f[11..14])] {
                    c.close(&at, &format!("{who} rating"), r.rating, num(&e[0]), 1e-6);
                    let rd = r.deviation.expect("a deviation");
                    c.close(&at, &format!("{who} deviation"), rd, num(&e[1]), 1e-6);
                    let vol = r.volatility.expect("a volatility");
                    c.close(&at, &format!("{who} volatility"), vol, num(&e[2]), 1e-6);
                    c.check(&at, "last played", r.last_played, Some(0));
                }
            }
            other => panic!("{at}: unknown record {other}"),
        }
    }
    c.finish("glicko2_ladder.txt");
}
