//! Differential test: the HanniBall engine (`hanniball_rules::hanniball`) against the independent
//! oracle in `tests/rules/oracle/mod.rs`, both following RULES.md Part 1.
//!
//! Positions come from seeded random playouts under both rulesets (sampled at every step, at turn
//! start and mid-turn) and from random perturbations of those positions (pieces removed or moved,
//! the ball loose or on another piece, keepers in their goals, clusters, walled-in balls, side,
//! steps-taken, fullmove and ruleset changed). For each position the test compares the notation
//! round trip, the sorted legal step texts, the offences, the result, single steps applied, and a
//! few legal and illegal or malformed whole turns. Every disagreement is printed and fails the test.

use std::collections::BTreeMap;

use crate::oracle::{Color, Kind, Piece, Pos, Sq, Step, all_squares, in_zone};
use hanniball_rules::hanniball::{Position, Ruleset, playout::random_turn};

const INITIAL_BOARD: &str =
    "1k1/2l3l2/1e1e1e1e1/1h1h1h1h1/9/9/9/9/9/9/9/1H1H1H1H1/1E1E1E1E1/2L3L2/1K1";
const GAMES_PER_RULESET: usize = 300;
const TURNS_PER_GAME: usize = 30;
const PERTURBED_POSITIONS: usize = 16_000;
const POOL_LIMIT: usize = 6_000;
const SHOWN: usize = 25;

/// Known engine faults, reported and awaiting a fix: (category, what, which positions). A
/// disagreement matching an entry is counted and shown, but does not fail the test; any other does.
type PositionTest = fn(&str) -> bool;
const KNOWN_ENGINE_BUGS: &[(&str, &str, PositionTest)] = &[];

#[derive(Default)]
struct Stats {
    positions: usize,
    turn_start: usize,
    mid_turn: usize,
    finished: usize,
    with_offence: usize,
    steps_applied: usize,
    turns_legal_both: usize,
    turns_illegal_both: usize,
    rejected_by_both: usize,
    /// How often each interesting feature was seen (results, offences, step forms).
    coverage: BTreeMap<String, usize>,
}

struct Checker {
    rng: hanniball_rng::Rng,
    stats: Stats,
    disagreements: Vec<(String, String, String)>, // (category, position, detail)
    known: Vec<(String, String)>,
    engine_rejects: Vec<String>,
    pool: Vec<String>,
}

fn diff_lists(engine: &[String], oracle: &[String]) -> String {
    let only_engine: Vec<&String> = engine.iter().filter(|s| !oracle.contains(s)).collect();
    let only_oracle: Vec<&String> = oracle.iter().filter(|s| !engine.contains(s)).collect();
    format!(
        "engine {} steps, oracle {} steps; only engine: {only_engine:?}; only oracle: {only_oracle:?}{}",
        engine.len(),
        oracle.len(),
        if only_engine.is_empty() && only_oracle.is_empty() {
            " (same sets, different order or duplicates)"
        } else {
            ""
        }
    )
}

impl Checker {
    fn new(seed: u64) -> Checker {
        Checker {
            rng: hanniball_rng::Rng::new(seed),
            stats: Stats::default(),
            disagreements: Vec::new(),
            known: Vec::new(),
            engine_rejects: Vec::new(),
            pool: Vec::new(),
        }
    }

    fn disagree(&mut self, category: &str, position: &str, detail: String) {
        if let Some(&(_, what, _)) = KNOWN_ENGINE_BUGS
            .iter()
            .find(|&&(c, _, applies)| c == category && applies(position))
        {
            self.known.push((what.to_owned(), position.to_owned()));
            return;
        }
        if self.disagreements.len() < SHOWN {
            println!("DISAGREEMENT [{category}]\n  position: {position}\n  {detail}");
        }
        self.disagreements
            .push((category.to_owned(), position.to_owned(), detail));
    }

    fn remember(&mut self, text: &str) {
        if self.pool.len() < POOL_LIMIT {
            self.pool.push(text.to_owned());
        } else {
            let i = self.rng.usize(..self.pool.len() * 4);
            if i < self.pool.len() {
                self.pool[i] = text.to_owned();
            }
        }
    }

    /// Parses `text` with both sides and compares everything about the position. Runs `turns`
    /// rounds of whole-turn checks. Returns both positions when both accept the text.
    fn compare(&mut self, text: &str, turns: usize) -> Option<(Position, Pos)> {
        let engine = Position::from_notation(text);
        let oracle = Pos::parse(text);
        let (e, o) = match (engine, oracle) {
            (Ok(e), Ok(o)) => (e, o),
            (Err(err), Ok(_)) => {
                self.engine_rejects.push(format!("{text}   ({err})"));
                return None;
            }
            (Ok(_), Err(err)) => {
                self.disagree(
                    "parse",
                    text,
                    format!("engine accepts, oracle rejects: {err}"),
                );
                return None;
            }
            (Err(_), Err(_)) => {
                self.stats.rejected_by_both += 1;
                return None;
            }
        };
        self.stats.positions += 1;
        let e_text = e.to_notation();
        if e_text != text {
            self.disagree(
                "round trip (engine)",
                text,
                format!("engine writes {e_text}"),
            );
        }
        let o_text = o.to_notation();
        if o_text != text {
            self.disagree(
                "round trip (oracle)",
                text,
                format!("oracle writes {o_text}"),
            );
        }
        let e_steps = e.legal_step_texts();
        let o_list = o.legal_steps();
        let o_steps: Vec<String> = o_list.iter().map(|(t, _)| t.clone()).collect();
        if e_steps != o_steps {
            self.disagree("legal steps", text, diff_lists(&e_steps, &o_steps));
        }
        let e_off = e.offences().names();
        let o_off = o.offences();
        if e_off != o_off {
            self.disagree(
                "offences",
                text,
                format!("engine {e_off:?}, oracle {o_off:?}"),
            );
        }
        if !o_off.is_empty() {
            self.stats.with_offence += 1;
        }
        let e_res = e.result().map(|r| r.to_string());
        let o_res = o.result();
        if e_res != o_res {
            self.disagree(
                "result",
                text,
                format!("engine {e_res:?}, oracle {o_res:?}"),
            );
        }
        if o_res.is_some() {
            self.stats.finished += 1;
        } else if o.steps == 0 {
            self.stats.turn_start += 1;
        } else {
            self.stats.mid_turn += 1;
        }
        let mut seen: Vec<String> = o_off.iter().map(|&n| n.to_owned()).collect();
        seen.extend(o_res.iter().map(|r| format!("result {r}")));
        for (feature, test) in [
            (
                "removal listed",
                (|w: &String| w.starts_with('x')) as fn(&String) -> bool,
            ),
            ("ricochet listed", |w| w.matches('>').count() == 2),
            ("ricochet back to shooter", |w| {
                let parts: Vec<&str> = w.split('>').collect();
                parts.len() == 3 && parts[0] == parts[2]
            }),
            ("carry listed", |w| w.contains('=')),
            ("keeper on goal square ricochets", |w| {
                w.split('>')
                    .nth(1)
                    .is_some_and(|k| k.ends_with("15") || (k.ends_with('1') && k.len() == 2))
                    && w.matches('>').count() == 2
            }),
        ] {
            if o_steps.iter().any(test) {
                seen.push(feature.to_owned());
            }
        }
        for feature in seen {
            *self.stats.coverage.entry(feature).or_default() += 1;
        }
        // Single steps: apply a few listed steps on both sides.
        let e_list = e.legal_steps();
        for _ in 0..2 {
            if e_list.is_empty() {
                break;
            }
            let step = e_list[self.rng.usize(..e_list.len())];
            let word = step.to_string();
            let after = e.apply(step);
            self.stats.steps_applied += 1;
            match o_list.iter().find(|(t, _)| *t == word) {
                None => self.disagree(
                    "apply step",
                    text,
                    format!("engine lists step {word}, oracle does not"),
                ),
                Some(&(_, o_step)) => {
                    let o_after = o.apply(o_step);
                    let (a, b) = (after.to_notation(), o_after.to_notation());
                    if a != b {
                        self.disagree(
                            "apply step",
                            text,
                            format!("step {word}: engine gives {a}, oracle gives {b}"),
                        );
                    }
                    let (ra, rb) = (after.result().map(|r| r.to_string()), o_after.result());
                    if ra != rb {
                        self.disagree(
                            "apply step result",
                            text,
                            format!("step {word}: engine {ra:?}, oracle {rb:?}"),
                        );
                    }
                }
            }
        }
        for _ in 0..turns {
            self.turn_checks(&e, &o);
        }
        Some((e, o))
    }

    /// One round of whole-turn checks: legal turns from both sides' generators and a few illegal
    /// or malformed ones.
    fn turn_checks(&mut self, e: &Position, o: &Pos) {
        let mut legal = Vec::new();
        if let Some(turn) = self.engine_random_turn(e) {
            legal.push(turn);
        }
        if let Some(turn) = self.oracle_random_turn(o) {
            legal.push(turn);
        }
        let mut turns = legal.clone();
        for _ in 0..3 {
            let t = self.illegal_turn(o, &legal);
            turns.push(t);
        }
        for t in turns {
            self.compare_turn(e, o, &t);
        }
    }

    /// The engine's random legal turn, as text. The engine must never ask for a pick out of 0.
    fn engine_random_turn(&mut self, e: &Position) -> Option<String> {
        let rng = &mut self.rng;
        let mut empty_pick = false;
        let turn = random_turn(e, &mut |n| {
            if n == 0 {
                empty_pick = true;
                0
            } else {
                rng.usize(..n)
            }
        });
        if empty_pick {
            self.disagree(
                "random turn",
                &e.to_notation(),
                format!(
                    "engine's random_turn asked to pick among 0 choices (returned {:?})",
                    turn.as_ref().map(ToString::to_string)
                ),
            );
            return None;
        }
        turn.map(|t| t.to_string())
    }

    fn compare_turn(&mut self, e: &Position, o: &Pos, turn: &str) {
        let text = o.to_notation();
        match (e.play_turn_text(turn), o.play_turn(turn)) {
            (Ok(a), Ok(b)) => {
                self.stats.turns_legal_both += 1;
                let (na, nb) = (a.to_notation(), b.to_notation());
                if na != nb {
                    self.disagree(
                        "turn result position",
                        &text,
                        format!("turn {turn:?}: engine gives {na}, oracle gives {nb}"),
                    );
                }
                let (ra, rb) = (a.result().map(|r| r.to_string()), b.result());
                if ra != rb {
                    self.disagree(
                        "turn result",
                        &text,
                        format!("turn {turn:?} -> {nb}: engine {ra:?}, oracle {rb:?}"),
                    );
                }
            }
            (Err(_), Err(_)) => self.stats.turns_illegal_both += 1,
            (Ok(a), Err(why)) => self.disagree(
                "turn legality",
                &text,
                format!(
                    "turn {turn:?}: engine accepts (-> {a}), oracle refuses: {why}",
                    a = a.to_notation()
                ),
            ),
            (Err(why), Ok(b)) => self.disagree(
                "turn legality",
                &text,
                format!(
                    "turn {turn:?}: engine refuses ({why}), oracle accepts (-> {b})",
                    b = b.to_notation()
                ),
            ),
        }
    }

    /// A random sequence of legal steps (1 to the remaining limit); may be a null turn.
    fn oracle_random_turn(&mut self, o: &Pos) -> Option<String> {
        let remaining = o.limit().saturating_sub(o.steps) as usize;
        if remaining == 0 {
            return None;
        }
        let n = 1 + self.rng.usize(..remaining);
        let mut current = o.clone();
        let mut words = Vec::new();
        for _ in 0..n {
            let steps = current.legal_steps();
            if steps.is_empty() {
                break;
            }
            let (word, step) = steps[self.rng.usize(..steps.len())].clone();
            current = current.apply(step);
            words.push(word);
        }
        if words.is_empty() {
            None
        } else {
            Some(words.join(" "))
        }
    }

    fn random_square_name(&mut self) -> String {
        const ODD: [&str; 10] = [
            "a1", "c1", "g15", "i15", "j3", "e0", "e16", "e08", "E8", "e",
        ];
        if self.rng.usize(..6) == 0 {
            ODD[self.rng.usize(..ODD.len())].to_owned()
        } else {
            let squares = all_squares();
            squares[self.rng.usize(..squares.len())].name()
        }
    }

    /// A turn that is probably illegal or malformed.
    fn illegal_turn(&mut self, o: &Pos, legal: &[String]) -> String {
        let base = if legal.is_empty() {
            String::new()
        } else {
            legal[self.rng.usize(..legal.len())].clone()
        };
        let start_steps = o.legal_steps();
        let random_start_word = |rng: &mut hanniball_rng::Rng| -> String {
            if start_steps.is_empty() {
                "e8-e9".to_owned()
            } else {
                start_steps[rng.usize(..start_steps.len())].0.clone()
            }
        };
        match self.rng.usize(..9) {
            // One step of a legal turn mutated.
            0 | 1 => {
                let mut words: Vec<String> = base.split(' ').map(str::to_owned).collect();
                let i = self.rng.usize(..words.len());
                let word = words[i].clone();
                words[i] = match self.rng.usize(..6) {
                    0 => {
                        // replace the last square
                        let cut = word.rfind(['-', '=', '>', 'x']).map_or(0, |c| c + 1);
                        format!("{}{}", &word[..cut], self.random_square_name())
                    }
                    1 => {
                        // replace the first square
                        let cut = word.find(['-', '=', '>']).unwrap_or(word.len());
                        format!("{}{}", self.random_square_name(), &word[cut..])
                    }
                    2 => {
                        let seps = ['-', '=', '>'];
                        let new = seps[self.rng.usize(..3)];
                        word.replacen(['-', '=', '>'], &new.to_string(), 1)
                    }
                    3 => random_start_word(&mut self.rng),
                    4 => format!("{word} {word}"),
                    _ => format!("{word}>{}", self.random_square_name()),
                };
                words.join(" ")
            }
            // A removal, allowed or not, maybe followed by more steps.
            2 => {
                let squares = all_squares();
                let mut candidates: Vec<Sq> = squares
                    .iter()
                    .copied()
                    .filter(|&s| o.piece(s).is_some())
                    .collect();
                if candidates.is_empty() {
                    candidates = squares.to_vec();
                }
                let sq = candidates[self.rng.usize(..candidates.len())];
                match self.rng.usize(..3) {
                    0 => format!("x{}", sq.name()),
                    1 => format!("x{} {base}", sq.name()),
                    _ => {
                        // a legal removal (if any) followed by a second removal
                        let removal = start_steps.iter().find(|(t, _)| t.starts_with('x'));
                        match removal {
                            Some((t, _)) => format!("{t} x{}", sq.name()),
                            None => format!("x{} x{}", sq.name(), sq.name()),
                        }
                    }
                }
            }
            // Steps after a goal.
            3 => {
                let mut current = o.clone();
                let mut prefix: Vec<String> = Vec::new();
                for _ in 0..4 {
                    let steps = current.legal_steps();
                    if steps.is_empty() {
                        break;
                    }
                    if let Some((goal, _)) =
                        steps.iter().find(|(_, s)| current.apply(*s).ball.is_goal())
                    {
                        prefix.push(goal.clone());
                        prefix.push(random_start_word(&mut self.rng));
                        return prefix.join(" ");
                    }
                    let (word, step) = steps[self.rng.usize(..steps.len())].clone();
                    current = current.apply(step);
                    prefix.push(word);
                }
                format!("{base} {}", random_start_word(&mut self.rng))
            }
            // Too many steps: a full turn plus one more.
            4 => {
                let mut current = o.clone();
                let mut words: Vec<String> = Vec::new();
                loop {
                    let steps = current.legal_steps();
                    if steps.is_empty() {
                        break;
                    }
                    let (word, step) = steps[self.rng.usize(..steps.len())].clone();
                    current = current.apply(step);
                    words.push(word);
                }
                words.push(random_start_word(&mut self.rng));
                words.join(" ")
            }
            // A null turn: a move or carry and its reverse, or a ricochet back to the shooter.
            5 => {
                if let Some((word, _)) = start_steps
                    .iter()
                    .find(|(_, s)| matches!(s, Step::Ricochet(a, _, b) if a == b))
                    && self.rng.bool()
                {
                    return word.clone();
                }
                for _ in 0..6 {
                    if start_steps.is_empty() {
                        break;
                    }
                    let (word, step) = start_steps[self.rng.usize(..start_steps.len())].clone();
                    let back = match step {
                        Step::Move(a, b) => Step::Move(b, a),
                        Step::Carry(a, b) => Step::Carry(b, a),
                        _ => continue,
                    };
                    let after = o.apply(step);
                    if after.apply_text(&back.text()).is_some() {
                        return format!("{word} {}", back.text());
                    }
                }
                format!("{base} {base}")
            }
            // A null turn by a swap of two pieces of the same colour and kind: a-c b-a c-b.
            6 => self.swap_turn(o, &start_steps).unwrap_or(base),
            // Malformed text.
            7 => {
                let forms = [
                    String::new(),
                    " ".to_owned(),
                    format!("{base} "),
                    format!(" {base}"),
                    base.replacen(' ', "  ", 1),
                    base.to_uppercase(),
                    base.replacen('-', " - ", 1),
                    base.replace(' ', ","),
                    format!("{base}\t"),
                    "e8-".to_owned(),
                    "x".to_owned(),
                    "e8>e9>".to_owned(),
                    "pass".to_owned(),
                ];
                forms[self.rng.usize(..forms.len())].clone()
            }
            // A legal turn with a random extra or missing step.
            _ => {
                let mut words: Vec<String> = base.split(' ').map(str::to_owned).collect();
                if self.rng.bool() && words.len() > 1 {
                    let i = self.rng.usize(..words.len());
                    words.remove(i);
                } else {
                    let i = self.rng.usize(..=words.len());
                    words.insert(i, random_start_word(&mut self.rng));
                }
                words.join(" ")
            }
        }
    }

    fn swap_turn(&mut self, o: &Pos, start_steps: &[(String, Step)]) -> Option<String> {
        if o.limit() - o.steps < 3 {
            return None;
        }
        for _ in 0..4 {
            if start_steps.is_empty() {
                return None;
            }
            let (_, step) = start_steps[self.rng.usize(..start_steps.len())];
            let Step::Move(a, c) = step else { continue };
            let piece = o.piece(a)?;
            if o.piece(c).is_some() || o.ball == c || o.ball == a {
                continue;
            }
            let p1 = o.apply(step);
            for (b, q) in p1.pieces(piece.color) {
                if q != piece || b == c {
                    continue;
                }
                let second = Step::Move(b, a);
                let Some(p2) = p1.apply_text(&second.text()) else {
                    continue;
                };
                let third = Step::Move(c, b);
                if p2.apply_text(&third.text()).is_some() {
                    return Some(format!(
                        "{} {} {}",
                        step.text(),
                        second.text(),
                        third.text()
                    ));
                }
            }
        }
        None
    }

    // ----- position sources -----

    fn playout(&mut self, ruleset: Ruleset, name: &str) {
        let mut e = Position::initial(ruleset);
        let expected = format!("{INITIAL_BOARD} e8 w 1 0 {name}");
        if e.to_notation() != expected {
            self.disagree(
                "initial position",
                &expected,
                format!("engine writes {}", e.to_notation()),
            );
        }
        for _ in 0..TURNS_PER_GAME {
            let text = e.to_notation();
            let Some((_, o)) = self.compare(&text, 1) else {
                return;
            };
            self.remember(&text);
            if e.result().is_some() {
                return;
            }
            let Some(turn) = self.engine_random_turn(&e) else {
                self.disagree(
                    "random turn",
                    &text,
                    "engine gives no random turn but no result".into(),
                );
                return;
            };
            // Step by step, comparing every mid-turn position.
            let mut es = e;
            let mut os = o.clone();
            for word in turn.split(' ') {
                let Some(step) = es.legal_steps().into_iter().find(|s| s.to_string() == word)
                else {
                    self.disagree(
                        "random turn",
                        &es.to_notation(),
                        format!("engine's random turn {turn:?} has unlisted step {word}"),
                    );
                    return;
                };
                es = es.apply(step);
                let Some(next) = os.apply_text(word) else {
                    self.disagree(
                        "apply step",
                        &os.to_notation(),
                        format!("step {word} of engine turn {turn:?} is illegal for the oracle"),
                    );
                    return;
                };
                os = next;
                let mid = es.to_notation();
                if mid != os.to_notation() {
                    self.disagree(
                        "apply step",
                        &text,
                        format!(
                            "turn {turn:?} at {word}: engine {mid}, oracle {}",
                            os.to_notation()
                        ),
                    );
                    return;
                }
                let rounds = usize::from(self.rng.usize(..5) == 0);
                if self.compare(&mid, rounds).is_some() {
                    self.remember(&mid);
                }
            }
            let next = match e.play_turn_text(&turn) {
                Ok(next) => next,
                Err(err) => {
                    self.disagree(
                        "random turn",
                        &text,
                        format!("engine refuses its own random turn {turn:?}: {err}"),
                    );
                    return;
                }
            };
            match o.play_turn(&turn) {
                Ok(b) if b.to_notation() == next.to_notation() => {}
                other => {
                    self.disagree(
                        "turn result position",
                        &text,
                        format!(
                            "turn {turn:?}: engine gives {}, oracle {:?}",
                            next.to_notation(),
                            other.map(|p| p.to_notation())
                        ),
                    );
                    return;
                }
            }
            e = next;
        }
    }

    fn random_empty_square(&mut self, o: &Pos, allow_goal: bool) -> Option<Sq> {
        let squares: Vec<Sq> = all_squares()
            .iter()
            .copied()
            .filter(|&s| o.piece(s).is_none() && s != o.ball && (allow_goal || !s.is_goal()))
            .collect();
        if squares.is_empty() {
            None
        } else {
            Some(squares[self.rng.usize(..squares.len())])
        }
    }

    fn random_piece(&mut self, o: &Pos, color: Option<Color>, keeper: bool) -> Option<Sq> {
        let squares: Vec<Sq> = all_squares()
            .iter()
            .copied()
            .filter(|&s| {
                o.piece(s).is_some_and(|p| {
                    color.is_none_or(|c| c == p.color) && (keeper || p.kind != Kind::Keeper)
                })
            })
            .collect();
        if squares.is_empty() {
            None
        } else {
            Some(squares[self.rng.usize(..squares.len())])
        }
    }

    /// Moves the piece on `from` to `to` (empty); the ball stays where it is.
    fn relocate(o: &mut Pos, from: Sq, to: Sq) {
        let piece = o.piece(from);
        o.set(from, None);
        o.set(to, piece);
    }

    /// Random changes to a position, keeping it well formed: keepers in their zones, at most one
    /// per side, the ball loose off the goals (except on purpose).
    fn perturb(&mut self, o: &mut Pos) {
        let ops = 1 + self.rng.usize(..4);
        for _ in 0..ops {
            match self.rng.usize(..18) {
                0 if self.rng.usize(..4) == 0 => {
                    // Extra pieces (RULES.md limits only the keepers).
                    let kinds = [Kind::Lion, Kind::Elephant, Kind::Horse];
                    for _ in 0..=self.rng.usize(..3) {
                        let piece = Piece {
                            color: if self.rng.bool() {
                                Color::White
                            } else {
                                Color::Black
                            },
                            kind: kinds[self.rng.usize(..3)],
                        };
                        if let Some(sq) = self.random_empty_square(o, true) {
                            o.set(sq, Some(piece));
                        }
                    }
                }
                0 => {
                    for _ in 0..=self.rng.usize(..4) {
                        let keeper = self.rng.usize(..8) == 0;
                        if let Some(sq) = self.random_piece(o, None, keeper) {
                            o.set(sq, None);
                        }
                    }
                }
                1 | 2 => {
                    for _ in 0..=self.rng.usize(..3) {
                        let Some(from) = self.random_piece(o, None, false) else {
                            break;
                        };
                        if let Some(to) = self.random_empty_square(o, true) {
                            Checker::relocate(o, from, to);
                        }
                    }
                }
                3 => {
                    if let Some(sq) = self.random_empty_square(o, false) {
                        o.ball = sq;
                    }
                }
                4 => {
                    let color = if self.rng.bool() { Some(o.side) } else { None };
                    if let Some(sq) = self.random_piece(o, color, true)
                        && !sq.is_goal()
                    {
                        o.ball = sq;
                    }
                }
                5 => self.keeper_shuffle(o),
                6 | 7 => self.cluster(o),
                8 | 9 => self.wall_ball(o),
                10 => o.side = o.side.other(),
                11 => {
                    o.steps = if self.rng.bool() {
                        0
                    } else {
                        self.rng.u32(..=o.limit())
                    };
                    let choices = [1, 2, 3, 149, 150, 151, 152];
                    o.fullmove = if self.rng.bool() {
                        choices[self.rng.usize(..choices.len())]
                    } else {
                        self.rng.u32(1..150)
                    };
                }
                12 => o.zillions = !o.zillions,
                13 => self.strip_and_box(o),
                14 => {
                    if let Some(sq) = self.random_piece(o, Some(o.side), true)
                        && !sq.is_goal()
                    {
                        o.ball = sq;
                    }
                }
                15 => self.attacker(o),
                _ => self.keeper_duel(o),
            }
        }
        if o.steps > o.limit() {
            o.steps = o.limit();
        }
        // Rarely: a finished game, the ball in a goal.
        if self.rng.usize(..60) == 0 {
            let goals: Vec<Sq> = all_squares()
                .iter()
                .copied()
                .filter(|s| s.is_goal())
                .collect();
            let g = goals[self.rng.usize(..goals.len())];
            if o.piece(g).is_none_or(|p| p.kind != Kind::Keeper) {
                o.ball = g;
                if self.rng.usize(..4) != 0 {
                    o.steps = 1 + self.rng.u32(..o.limit());
                }
            }
        }
    }

    /// Gives the ball to a piece of the side to move placed near a goal or a keeper, where shots
    /// score, ricochet or land in the own goal.
    fn attacker(&mut self, o: &mut Pos) {
        let Some(from) = self.random_piece(o, Some(o.side), false) else {
            return;
        };
        let near: Vec<Sq> = all_squares()
            .iter()
            .copied()
            .filter(|&s| {
                !s.is_goal() && o.piece(s).is_none() && (s.rank <= 5 || s.rank >= 11) && s != o.ball
            })
            .collect();
        if near.is_empty() {
            return;
        }
        let to = near[self.rng.usize(..near.len())];
        Checker::relocate(o, from, to);
        o.ball = to;
    }

    /// Gives the ball to the opponent's keeper and brings a piece of the side to move next to it
    /// (adjacent or a knight's leap away), so that the keeper can be captured.
    fn keeper_duel(&mut self, o: &mut Pos) {
        let keeper = Piece {
            color: o.side.other(),
            kind: Kind::Keeper,
        };
        let Some(&(k, _)) = o.pieces(keeper.color).iter().find(|(_, p)| *p == keeper) else {
            return;
        };
        if k.is_goal() && self.rng.bool() {
            return; // a ball held on a goal square would end the game
        }
        let Some(from) = self.random_piece(o, Some(o.side), false) else {
            return;
        };
        let offsets = [
            (1, 0),
            (-1, 0),
            (0, 1),
            (0, -1),
            (1, 1),
            (1, -1),
            (-1, 1),
            (-1, -1),
            (1, 2),
            (2, 1),
            (2, -1),
            (1, -2),
            (-1, -2),
            (-2, -1),
            (-2, 1),
            (-1, 2),
        ];
        let (df, dr) = offsets[self.rng.usize(..offsets.len())];
        let to = k.plus(df, dr);
        if !to.exists() || o.piece(to).is_some() || to == o.ball {
            return;
        }
        Checker::relocate(o, from, to);
        if !k.is_goal() {
            o.ball = k;
        }
    }

    /// Puts a keeper (existing or new) on a goal square or elsewhere in its zone.
    fn keeper_shuffle(&mut self, o: &mut Pos) {
        let color = if self.rng.bool() {
            Color::White
        } else {
            Color::Black
        };
        let keeper = Piece {
            color,
            kind: Kind::Keeper,
        };
        let zone: Vec<Sq> = all_squares()
            .iter()
            .copied()
            .filter(|&s| in_zone(color, s) && o.piece(s).is_none())
            .filter(|&s| s != o.ball || self.rng.usize(..4) == 0)
            .collect();
        let goals: Vec<Sq> = zone.iter().copied().filter(|s| s.is_goal()).collect();
        let pool = if !goals.is_empty() && self.rng.bool() {
            goals
        } else {
            zone
        };
        if pool.is_empty() {
            return;
        }
        let to = pool[self.rng.usize(..pool.len())];
        if to.is_goal() && to == o.ball {
            return;
        }
        for (sq, p) in o.pieces(color) {
            if p == keeper {
                o.set(sq, None);
            }
        }
        o.set(to, Some(keeper));
    }

    /// Builds an orthogonal chain of 3–6 squares of one colour (usually the opponent of the side
    /// to move), sometimes through the loose ball.
    fn cluster(&mut self, o: &mut Pos) {
        let color = if self.rng.usize(..5) == 0 {
            o.side
        } else {
            o.side.other()
        };
        let squares = all_squares();
        let mut at = squares[self.rng.usize(..squares.len())];
        let length = 3 + self.rng.usize(..4);
        let mut chain: Vec<Sq> = Vec::new();
        for _ in 0..30 {
            if chain.len() >= length {
                break;
            }
            let ok = match o.piece(at) {
                Some(p) => p.color == color,
                None => !at.is_goal() || at != o.ball,
            };
            if ok && !chain.contains(&at) {
                chain.push(at);
            }
            let dirs = [(1, 0), (-1, 0), (0, 1), (0, -1)];
            let (df, dr) = dirs[self.rng.usize(..4)];
            let next = at.plus(df, dr);
            if next.exists() {
                at = next;
            }
        }
        let loose_ok = self.rng.bool();
        for &sq in &chain {
            if o.piece(sq).is_some() || (loose_ok && sq == o.ball) {
                continue;
            }
            let movable: Vec<Sq> = o
                .pieces(color)
                .into_iter()
                .filter(|(s, p)| p.kind != Kind::Keeper && !chain.contains(s))
                .map(|(s, _)| s)
                .collect();
            if movable.is_empty() {
                break;
            }
            let from = movable[self.rng.usize(..movable.len())];
            Checker::relocate(o, from, sq);
        }
    }

    /// Surrounds the ball (loose, or held by an opponent piece) with opponent pieces, often on an
    /// edge or near a goal so that few pieces suffice.
    fn wall_ball(&mut self, o: &mut Pos) {
        let player = o.side;
        let opponent = player.other();
        let edge: Vec<Sq> = all_squares()
            .iter()
            .copied()
            .filter(|s| !s.is_goal() && (s.file == 0 || s.file == 8 || s.rank == 2 || s.rank == 14))
            .collect();
        let b = if self.rng.bool() {
            edge[self.rng.usize(..edge.len())]
        } else {
            match self.random_empty_square(o, false) {
                Some(s) => s,
                None => return,
            }
        };
        if o.piece(b).is_some_and(|p| p.kind == Kind::Keeper) {
            return;
        }
        // The square of the ball: empty (loose ball) or an opponent piece holding it.
        let hold = self.rng.usize(..3) == 0;
        if let Some(p) = o.piece(b) {
            if p.color == player {
                let Some(to) = self.random_empty_square(o, false) else {
                    return;
                };
                Checker::relocate(o, b, to);
            } else if !hold {
                o.set(b, None);
            }
        }
        if hold && o.piece(b).is_none() {
            let Some(from) = self.random_piece(o, Some(opponent), false) else {
                return;
            };
            Checker::relocate(o, from, b);
        }
        o.ball = b;
        let mut wall: Vec<Sq> = Vec::new();
        for (df, dr) in [
            (-1, -1),
            (0, -1),
            (1, -1),
            (-1, 0),
            (1, 0),
            (-1, 1),
            (0, 1),
            (1, 1),
        ] {
            let n = b.plus(df, dr);
            if n.exists() {
                wall.push(n);
            }
        }
        // Leave a gap now and then, for near misses, sometimes filled with a horse of the player
        // (which reaches the ball only by a leap; the player's own pieces never block it).
        if self.rng.usize(..4) == 0 {
            let i = self.rng.usize(..wall.len());
            let gap = wall.remove(i);
            if self.rng.bool() && o.piece(gap).is_none() {
                let horses: Vec<Sq> = o
                    .pieces(player)
                    .into_iter()
                    .filter(|(s, p)| p.kind == Kind::Horse && !wall.contains(s) && *s != b)
                    .map(|(s, _)| s)
                    .collect();
                if !horses.is_empty() {
                    let from = horses[self.rng.usize(..horses.len())];
                    Checker::relocate(o, from, gap);
                }
            }
        }
        for &n in &wall {
            match o.piece(n) {
                Some(p) if p.color == opponent => {}
                Some(p) => {
                    if p.kind == Kind::Keeper {
                        continue;
                    }
                    let Some(to) = self.random_empty_square(o, false) else {
                        return;
                    };
                    if touches_any(to, &wall) {
                        o.set(n, None);
                    } else {
                        Checker::relocate(o, n, to);
                    }
                }
                None => {}
            }
            if o.piece(n).is_none() {
                let movable: Vec<Sq> = o
                    .pieces(opponent)
                    .into_iter()
                    .filter(|(s, p)| p.kind != Kind::Keeper && !wall.contains(s) && *s != b)
                    .map(|(s, _)| s)
                    .collect();
                if movable.is_empty() {
                    return;
                }
                let from = movable[self.rng.usize(..movable.len())];
                Checker::relocate(o, from, n);
            }
        }
    }

    /// Leaves the side to move 0–2 pieces and crowds one of them with opponent pieces on its
    /// move targets, for positions with few or no steps.
    fn strip_and_box(&mut self, o: &mut Pos) {
        let mine = o.pieces(o.side);
        let keep = self.rng.usize(..3);
        let mut kept = Vec::new();
        for (i, &(sq, _)) in mine.iter().enumerate() {
            if i < mine.len().saturating_sub(keep) && self.rng.usize(..5) != 0 {
                o.set(sq, None);
            } else {
                kept.push(sq);
            }
        }
        if kept.is_empty() {
            return;
        }
        let sq = kept[self.rng.usize(..kept.len())];
        let Some(piece) = o.piece(sq) else { return };
        for target in o.move_pattern(sq, piece) {
            if o.piece(target).is_some() || target == o.ball {
                continue;
            }
            if let Some(from) = self.random_piece(o, Some(o.side.other()), false)
                && from != o.ball
            {
                Checker::relocate(o, from, target);
            }
        }
    }
}

/// True when `sq` is on or next to one of `squares`.
fn touches_any(sq: Sq, squares: &[Sq]) -> bool {
    squares
        .iter()
        .any(|s| (s.file - sq.file).abs() <= 1 && (s.rank - sq.rank).abs() <= 1)
}

/// A few hand-made positions for situations random play rarely reaches.
fn hand_made() -> Vec<String> {
    let mut out = Vec::new();
    // White keeper in its goal, Black horse holding the ball next to it.
    let mut p = Pos::empty();
    let put =
        |p: &mut Pos, name: &str, letter: Piece| p.set(Sq::parse(name).unwrap(), Some(letter));
    let w = |kind| Piece {
        color: Color::White,
        kind,
    };
    let b = |kind| Piece {
        color: Color::Black,
        kind,
    };
    put(&mut p, "e1", w(Kind::Keeper));
    put(&mut p, "e15", b(Kind::Keeper));
    put(&mut p, "d2", b(Kind::Horse));
    put(&mut p, "f2", b(Kind::Lion));
    put(&mut p, "g3", b(Kind::Elephant));
    put(&mut p, "h8", w(Kind::Horse));
    p.ball = Sq::parse("d2").unwrap();
    p.side = Color::Black;
    p.fullmove = 7;
    out.push(p.to_notation());
    p.ball = Sq::parse("f2").unwrap();
    out.push(p.to_notation());
    p.ball = Sq::parse("g3").unwrap();
    out.push(p.to_notation());
    // Side to move without pieces (no legal turn), and the same with a cluster to remove from.
    let mut q = Pos::empty();
    put(&mut q, "e5", b(Kind::Horse));
    q.ball = Sq::parse("a7").unwrap();
    q.fullmove = 30;
    out.push(q.to_notation());
    put(&mut q, "e6", b(Kind::Elephant));
    put(&mut q, "e7", b(Kind::Lion));
    put(&mut q, "e8", b(Kind::Elephant));
    out.push(q.to_notation());
    q.zillions = true;
    out.push(q.to_notation());
    // Only a keeper, boxed in its goal by opponents without the ball.
    let mut r = Pos::empty();
    put(&mut r, "e1", w(Kind::Keeper));
    for (name, kind) in [
        ("d1", Kind::Elephant),
        ("f1", Kind::Elephant),
        ("d2", Kind::Lion),
        ("e2", Kind::Elephant),
        ("f2", Kind::Lion),
        ("c2", Kind::Horse),
        ("g2", Kind::Horse),
        ("d3", Kind::Horse),
        ("f3", Kind::Horse),
    ] {
        put(&mut r, name, b(kind));
    }
    r.ball = Sq::parse("e9").unwrap();
    r.fullmove = 40;
    out.push(r.to_notation());
    r.zillions = true;
    out.push(r.to_notation());
    // The initial position with each side to move, and at the turn limit.
    out.push(format!("{INITIAL_BOARD} e8 w 1 0 standard"));
    out.push(format!("{INITIAL_BOARD} e8 w 1 2 standard"));
    out.push(format!("{INITIAL_BOARD} e8 b 1 0 zillions-2010"));
    out.push(format!("{INITIAL_BOARD} e8 w 151 0 standard"));
    out.push(format!("{INITIAL_BOARD} e8 b 150 0 standard"));
    out.push(format!("{INITIAL_BOARD} e8 w 150 3 standard"));
    // More pieces of a kind than the setup has (RULES.md sets no limit but one keeper).
    out.push(
        "1k1/2l3l2/1e1e1e1e1/1h1h1h1h1/9/9/9/9/9/9/9/1H1H1H1H1/EE1E1E1E1/2L3L2/1K1 e8 w 3 0 standard"
            .to_owned(),
    );
    // No black keeper; the black keeper in its goal.
    out.push(format!("3{} e8 w 1 0 standard", &INITIAL_BOARD[3..]));
    out.push(format!("k2{} e8 b 1 0 standard", &INITIAL_BOARD[3..]));
    out
}

/// Malformed or impossible notations that both sides must refuse.
fn bad_notations() -> Vec<String> {
    let mut out = Vec::new();
    for bad in [
        format!("{INITIAL_BOARD} e8 w 1 3 standard"),
        format!("{INITIAL_BOARD} e8 w 0 0 standard"),
        format!("{INITIAL_BOARD} e8 w 01 0 standard"),
        format!("{INITIAL_BOARD} e8 x 1 0 standard"),
        format!("{INITIAL_BOARD} e8 w 1 0 zillions"),
        format!("{INITIAL_BOARD} a1 w 1 0 standard"),
        format!("{INITIAL_BOARD} e8 w 1 0"),
        format!("{INITIAL_BOARD}  e8 w 1 0 standard"),
        format!("{INITIAL_BOARD} e8 w 1 5 standard"),
        "1k1/2l3l2/1e1e1e1e1/1h1h1h1h1/9/9/9/54/9/9/9/1H1H1H1H1/1E1E1E1E1/2L3L2/1K1 e8 w 1 0 standard"
            .to_owned(),
        "1k1/2l3l2/1e1e1e1e1/1h1h1h1h1/9/9/9/8/9/9/9/1H1H1H1H1/1E1E1E1E1/2L3L2/1K1 e8 w 1 0 standard"
            .to_owned(),
        "1k1/2l3l2/1e1e1e1e1/1h1h1h1h1/9/9/9/9/9/9/9/1H1H1H1H1/1E1E1E1E1/2L3L2/1K1/ e8 w 1 0 standard"
            .to_owned(),
        "1k1/k8/1e1e1e1e1/1h1h1h1h1/9/9/9/9/9/9/9/1H1H1H1H1/1E1E1E1E1/2L3L2/1K1 e8 w 1 0 standard"
            .to_owned(),
        "1k1/2l3l2/1e1e1e1e1/1h1h1h1h1/9/9/9/4K4/9/9/9/1H1H1H1H1/1E1E1E1E1/2L3L2/3 e8 w 1 0 standard"
            .to_owned(),
        "1k1/2l3l2/1e1e1e1e1/1h1h1h1h1/9/9/9/9/9/9/9/1H1H1H1H1/1E1E1E1E1/2L3L2/KK1 e8 w 3 0 standard"
            .to_owned(),
        "1k1/2l3l2/1e1e1e1e1/1h1h1h1h1/9/9/9/9/9/9/9/1H1H1H1H1/1E1E1E1E1/2LK2L2/1K1 e8 w 3 0 standard"
            .to_owned(),
    ] {
        out.push(bad);
    }
    out
}

#[test]
fn engine_agrees_with_oracle() {
    let started = std::time::Instant::now();
    let mut checker = Checker::new(0x4a11_ba11);

    for text in hand_made() {
        if checker.compare(&text, 4).is_none() {
            checker.disagree("hand-made", &text, "refused by engine or oracle".into());
        }
    }
    for text in bad_notations() {
        if checker.compare(&text, 0).is_some() {
            checker.disagree("bad notation", &text, "accepted by both".into());
        }
    }
    for (ruleset, name) in [
        (Ruleset::Standard, "standard"),
        (Ruleset::Zillions2010, "zillions-2010"),
    ] {
        for _ in 0..GAMES_PER_RULESET {
            checker.playout(ruleset, name);
        }
    }
    let from_playouts = checker.stats.positions;
    let playout_time = started.elapsed();

    for _ in 0..PERTURBED_POSITIONS {
        if checker.pool.is_empty() {
            break;
        }
        let base = checker.pool[checker.rng.usize(..checker.pool.len())].clone();
        let mut o = Pos::parse(&base).expect("pool positions parse");
        checker.perturb(&mut o);
        let text = o.to_notation();
        let turns = usize::from(checker.rng.usize(..2) == 0) + 1;
        if checker.compare(&text, turns).is_some() && checker.rng.usize(..4) == 0 {
            checker.remember(&text);
        }
    }

    let s = &checker.stats;
    println!(
        "compared {} positions ({} from playouts, {} perturbed or hand-made): {} at turn start, {} mid-turn, {} finished, {} with an offence",
        s.positions,
        from_playouts,
        s.positions - from_playouts,
        s.turn_start,
        s.mid_turn,
        s.finished,
        s.with_offence
    );
    println!(
        "single steps applied: {}; whole turns: {} legal for both, {} refused by both; notations refused by both: {}",
        s.steps_applied, s.turns_legal_both, s.turns_illegal_both, s.rejected_by_both
    );
    println!("coverage (positions): {:?}", s.coverage);
    println!(
        "engine rejected {} positions the oracle accepts",
        checker.engine_rejects.len()
    );
    for sample in checker.engine_rejects.iter().take(10) {
        println!("  engine rejects: {sample}");
    }
    let mut by_category: BTreeMap<&str, usize> = BTreeMap::new();
    for (category, _, _) in &checker.disagreements {
        *by_category.entry(category).or_default() += 1;
    }
    println!(
        "disagreements: {} {by_category:?}; known engine bugs hit: {}",
        checker.disagreements.len(),
        checker.known.len()
    );
    let mut known: BTreeMap<&str, (usize, &str)> = BTreeMap::new();
    for (what, position) in &checker.known {
        known.entry(what).or_insert((0, position)).0 += 1;
    }
    for (what, (count, sample)) in known {
        println!("KNOWN ENGINE BUG ({count} times): {what}\n  e.g. {sample}");
    }
    println!(
        "elapsed: {:?} ({playout_time:?} in playouts)",
        started.elapsed()
    );
    assert!(
        checker.disagreements.is_empty(),
        "{} disagreements between engine and oracle (see output)",
        checker.disagreements.len()
    );
}
