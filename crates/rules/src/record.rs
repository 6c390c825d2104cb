//! Game records: one game, both kinds, as a text file a person can read and a program can replay
//! (docs/RULES.md, "Game records").
//!
//! ```text
//! [Game "hanniball"]
//! [Ruleset "standard"]
//! [White "alice"]
//! [Black "bob"]
//! [Result "1-0"]
//! [Reason "goal"]
//!
//! 1. d4-c6
//! 2. c10-c9 e10-e9
//! 1-0
//! ```
//!
//! Header tags first, one per line: `[Name "value"]`, the value in double quotes with `\"` and
//! `\\` escaped; names are letters and digits; order is kept; a name appears at most once. Then
//! the turns, one per line, `N. turn` with N counting from 1 without gaps, the turn in the game's
//! notation. The last line is the result: `1-0`, `0-1`, `1/2-1/2`, or `*` for a game not over.
//! Blank lines and lines starting with `;` (comments) are ignored.
//!
//! The tags a replay reads: `Game` (the kind; default `hanniball`), `Ruleset`, `MaxTurns`. Others
//! (`White`, `Black`, `WhiteRating`, `Date`, `TimeControl`, `Reason`, …) are for people and tools.

use std::fmt::Write as _;

use crate::{Game, GameKind, GameOptions, GameResult};

/// Longest tag value kept (longer values are refused when parsing, cut when writing).
pub const MAX_TAG_VALUE: usize = 1_000;

/// One game's record.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct GameRecord {
    /// Header tags in file order.
    pub tags: Vec<(String, String)>,
    /// The turns, first to last, in the game's notation.
    pub turns: Vec<String>,
    /// `1-0`, `0-1` or `1/2-1/2`; `None` for a game not over (`*`).
    pub result: Option<String>,
}

/// Why a record could not be read or replayed; `line` is 1-based (0: the record as a whole).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{}{message}", if *line > 0 { format!("line {line}: ") } else { String::new() })]
pub struct RecordError {
    pub line: usize,
    pub message: String,
}

fn error(line: usize, message: impl Into<String>) -> RecordError {
    RecordError {
        line,
        message: message.into(),
    }
}

/// What replaying a record found.
#[derive(Debug)]
pub struct Replay {
    /// The game after the last turn.
    pub game: Box<dyn Game>,
    /// The result by the rules, when the turns ended the game (a goal, the turn limit, …).
    pub result: Option<GameResult>,
}

const RESULTS: [&str; 3] = ["1-0", "0-1", "1/2-1/2"];

impl GameRecord {
    /// The value of tag `name`, if present.
    #[must_use]
    pub fn tag(&self, name: &str) -> Option<&str> {
        self.tags
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    }

    /// Sets tag `name` (replacing its value if present, else appending it). Line breaks in
    /// `value` become spaces and it is cut to [`MAX_TAG_VALUE`] characters.
    pub fn set_tag(&mut self, name: &str, value: &str) {
        let value: String = value
            .chars()
            .map(|c| if c.is_control() { ' ' } else { c })
            .take(MAX_TAG_VALUE)
            .collect();
        match self.tags.iter_mut().find(|(n, _)| n == name) {
            Some(tag) => tag.1 = value,
            None => self.tags.push((name.to_owned(), value)),
        }
    }

    /// The record as text (see the module documentation).
    #[must_use]
    pub fn to_text(&self) -> String {
        let mut out = String::new();
        for (name, value) in &self.tags {
            let escaped = value.replace('\\', "\\\\").replace('"', "\\\"");
            let _ = writeln!(out, "[{name} \"{escaped}\"]");
        }
        out.push('\n');
        for (i, turn) in self.turns.iter().enumerate() {
            let _ = writeln!(out, "{}. {turn}", i + 1);
        }
        out.push_str(self.result.as_deref().unwrap_or("*"));
        out.push('\n');
        out
    }

    /// Reads a record (see the module documentation for the format).
    ///
    /// # Errors
    /// The first line that is not a tag, a numbered turn or the result, a turn out of sequence,
    /// a repeated tag, anything after the result, or no result line.
    pub fn parse(text: &str) -> Result<GameRecord, RecordError> {
        let mut record = GameRecord::default();
        let mut ended = false;
        for (i, raw) in text.lines().enumerate() {
            let number = i + 1;
            let line = raw.trim();
            if line.is_empty() || line.starts_with(';') {
                continue;
            }
            if ended {
                return Err(error(number, "text after the result line"));
            }
            if line.starts_with('[') {
                if !record.turns.is_empty() {
                    return Err(error(number, "a tag after the turns"));
                }
                let (name, value) = parse_tag(line).map_err(|m| error(number, m))?;
                if record.tag(&name).is_some() {
                    return Err(error(number, format!("tag {name} given twice")));
                }
                record.tags.push((name, value));
            } else if line == "*" || RESULTS.contains(&line) {
                record.result = (line != "*").then(|| line.to_owned());
                ended = true;
            } else {
                let (n, turn) = line.split_once('.').ok_or_else(|| {
                    error(
                        number,
                        format!(
                            "expected a tag, `N. turn` or a result, found {}",
                            quote(line)
                        ),
                    )
                })?;
                let expected = record.turns.len() + 1;
                if n.trim().parse::<usize>().ok() != Some(expected) {
                    return Err(error(
                        number,
                        format!("expected turn {expected}, found {}", quote(line)),
                    ));
                }
                let turn = turn.trim();
                if turn.is_empty() {
                    return Err(error(number, format!("turn {expected} is empty")));
                }
                record.turns.push(turn.to_owned());
            }
        }
        if !ended {
            return Err(error(
                0,
                "no result line at the end (1-0, 0-1, 1/2-1/2 or *)",
            ));
        }
        Ok(record)
    }

    /// Plays the turns through the rules from the start: every turn must be legal, none may come
    /// after the game ended, and when the turns end the game by the rules, the `Result` line must
    /// say the same. (A result the rules did not decide, such as a resignation or a loss on time,
    /// is taken as recorded.)
    ///
    /// # Errors
    /// An unknown kind, ruleset or turn limit; the first illegal turn (its line counted as the
    /// turn number); a result that contradicts the rules.
    pub fn replay(&self) -> Result<Replay, RecordError> {
        let kind: GameKind = self
            .tag("Game")
            .unwrap_or("hanniball")
            .parse()
            .map_err(|e: crate::SetupError| error(0, e.to_string()))?;
        let max_turns = self
            .tag("MaxTurns")
            .map(|v| {
                v.parse::<u32>()
                    .map_err(|_| error(0, format!("MaxTurns {} is not a number", quote(v))))
            })
            .transpose()?
            .filter(|m| *m > 0);
        let options = GameOptions {
            ruleset: self.tag("Ruleset").map(str::to_owned),
            max_turns,
        };
        let mut game = kind
            .new_game(&options)
            .map_err(|e| error(0, e.to_string()))?;
        for (i, turn) in self.turns.iter().enumerate() {
            let number = i + 1;
            if let Some(result) = game.result() {
                return Err(error(
                    0,
                    format!("turn {number} comes after the end of the game ({result})"),
                ));
            }
            game = game
                .play_turn(turn)
                .map_err(|e| error(0, format!("turn {number} {}: {e}", quote(turn))))?;
        }
        let result = game.result();
        if let Some(by_rules) = result {
            let score = by_rules.outcome.score();
            if self.result.as_deref() != Some(score) {
                return Err(error(
                    0,
                    format!(
                        "the result line says {}, but the turns end the game {by_rules}",
                        self.result.as_deref().unwrap_or("*")
                    ),
                ));
            }
        }
        Ok(Replay { game, result })
    }
}

/// A Fischer time control in seconds, `initial+increment`, as a record's `TimeControl` tag and a
/// TRF's `122` line write it: `600+5`, `20+0.2` (fractions to the millisecond, never truncated).
#[must_use]
pub fn time_control(initial_ms: i64, increment_ms: i64) -> String {
    fn seconds(ms: i64) -> String {
        let whole = ms.div_euclid(1_000);
        let fraction = ms.rem_euclid(1_000);
        if fraction == 0 {
            whole.to_string()
        } else {
            format!("{whole}.{fraction:03}")
                .trim_end_matches('0')
                .to_owned()
        }
    }
    format!("{}+{}", seconds(initial_ms), seconds(increment_ms))
}

/// The UTC date of a moment (ms since the epoch) as a record's `Date` tag: `YYYY.MM.DD`.
#[must_use]
pub fn date(ms_since_epoch: i64) -> String {
    // Days to the civil calendar (proleptic Gregorian), after H. Hinnant's `civil_from_days`.
    let days = ms_since_epoch.div_euclid(86_400_000) + 719_468;
    let era = days.div_euclid(146_097);
    let day_of_era = days.rem_euclid(146_097);
    let year_of_era =
        (day_of_era - day_of_era / 1_460 + day_of_era / 36_524 - day_of_era / 146_096) / 365;
    let day_of_year = day_of_era - (365 * year_of_era + year_of_era / 4 - year_of_era / 100);
    let mp = (5 * day_of_year + 2) / 153;
    let day = day_of_year - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = year_of_era + era * 400 + i64::from(month <= 2);
    format!("{year:04}.{month:02}.{day:02}")
}

/// `[Name "value"]` → (name, value).
fn parse_tag(line: &str) -> Result<(String, String), String> {
    let inner = line
        .strip_prefix('[')
        .and_then(|l| l.strip_suffix(']'))
        .ok_or_else(|| format!("a tag must be [Name \"value\"], found {}", quote(line)))?;
    let (name, rest) = inner
        .split_once(' ')
        .ok_or_else(|| format!("a tag must be [Name \"value\"], found {}", quote(line)))?;
    if name.is_empty() || !name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') {
        return Err(format!("bad tag name {}", quote(name)));
    }
    let quoted = rest.trim();
    let body = quoted
        .strip_prefix('"')
        .and_then(|q| q.strip_suffix('"'))
        .ok_or_else(|| format!("the value of tag {name} must be in double quotes"))?;
    let mut value = String::new();
    let mut chars = body.chars();
    while let Some(c) = chars.next() {
        match c {
            '\\' => match chars.next() {
                Some(e @ ('\\' | '"')) => value.push(e),
                _ => return Err(format!("bad escape in the value of tag {name}")),
            },
            '"' => return Err(format!("unescaped quote in the value of tag {name}")),
            c => value.push(c),
        }
    }
    if value.chars().count() > MAX_TAG_VALUE {
        return Err(format!(
            "the value of tag {name} is longer than {MAX_TAG_VALUE} characters"
        ));
    }
    Ok((name.to_owned(), value))
}

/// At most 64 characters of `text`, quoted, for messages.
fn quote(text: &str) -> String {
    let cut: String = text.chars().take(64).collect();
    if cut.len() < text.len() {
        format!("{cut:?}…")
    } else {
        format!("{cut:?}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::hanniball::playout::goal_seeking_turn;

    #[test]
    fn time_controls_keep_their_fractions() {
        assert_eq!(time_control(600_000, 5_000), "600+5");
        assert_eq!(time_control(20_000, 200), "20+0.2");
        assert_eq!(time_control(90_500, 1_250), "90.5+1.25");
        assert_eq!(time_control(60_000, 0), "60+0");
    }
    use crate::hanniball::{Position, Ruleset};

    /// A HanniBall game that ends in a goal, by goal-seeking play from a seed.
    fn goal_game(seed: u64) -> (Vec<String>, Position) {
        let mut state = seed | 1;
        let mut pick = |n: usize| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            (state % n as u64) as usize
        };
        loop {
            let mut position = Position::initial(Ruleset::Standard);
            let mut turns = Vec::new();
            while position.result().is_none() {
                let turn = goal_seeking_turn(&position, &mut pick).expect("game on");
                position = position.play_turn(&turn).expect("legal");
                turns.push(turn.to_string());
            }
            if position.result_is_goal() {
                return (turns, position);
            }
        }
    }

    fn record(turns: Vec<String>, result: Option<&str>) -> GameRecord {
        let mut record = GameRecord {
            turns,
            result: result.map(str::to_owned),
            ..GameRecord::default()
        };
        record.set_tag("Game", "hanniball");
        record.set_tag("White", "alice \"the wall\" \\ smith");
        record.set_tag("Black", "bob\nnewline");
        record
    }

    #[test]
    fn text_round_trips_and_replays_to_the_rules_result() {
        let (turns, position) = goal_game(3);
        let score = position.result().expect("over").outcome.score();
        let written = record(turns.clone(), Some(score));
        let text = written.to_text();
        let read = GameRecord::parse(&text).expect("parses");
        assert_eq!(read, written, "{text}");
        assert_eq!(read.tag("White"), Some("alice \"the wall\" \\ smith"));
        assert_eq!(read.tag("Black"), Some("bob newline"));
        let replay = read.replay().expect("replays");
        assert_eq!(replay.game.position(), position.to_string());
        assert_eq!(replay.result.map(|r| r.outcome.score()), Some(score));
    }

    #[test]
    fn replay_refuses_wrong_results_illegal_turns_and_turns_after_the_end() {
        let (turns, _) = goal_game(5);
        let good = record(turns.clone(), None);
        // The turns end the game in a goal: `*` (not over) contradicts them.
        let message = good.replay().expect_err("contradicts").to_string();
        assert!(message.contains("the turns end the game"), "{message}");
        // A turn after the goal.
        let mut longer = turns.clone();
        longer.push(turns[1].clone());
        let message = record(longer, Some("1-0"))
            .replay()
            .expect_err("after the end")
            .to_string();
        assert!(message.contains("after the end of the game"), "{message}");
        // An illegal turn names its number.
        let mut bad = turns[..3].to_vec();
        bad[2] = "a1-a2".to_owned();
        let message = record(bad, None).replay().expect_err("illegal").to_string();
        assert!(message.starts_with("turn 3 \"a1-a2\""), "{message}");
        // A game not over, recorded as not over (or as resigned): accepted as recorded.
        let part = record(turns[..4].to_vec(), None);
        assert!(part.replay().expect("replays").result.is_none());
        assert!(
            record(turns[..4].to_vec(), Some("0-1"))
                .replay()
                .expect("a resignation")
                .result
                .is_none()
        );
    }

    #[test]
    fn dates_are_utc_calendar_days() {
        assert_eq!(date(0), "1970.01.01");
        assert_eq!(date(1_700_000_000_000), "2023.11.14");
        assert_eq!(date(951_782_400_000), "2000.02.29");
        assert_eq!(date(-86_400_000), "1969.12.31");
    }

    #[test]
    fn parse_names_the_bad_line() {
        for (text, line, part) in [
            (
                "[Game \"hanniball\"]\n1. d4-c6\n3. c10-c9\n*\n",
                3,
                "expected turn 2",
            ),
            ("[Game hanniball]\n*\n", 1, "double quotes"),
            ("[Game \"a\"]\n[Game \"b\"]\n*\n", 2, "twice"),
            ("1. d4-c6\n[Game \"a\"]\n*\n", 2, "after the turns"),
            ("1. d4-c6\n*\n2. c10-c9\n", 3, "after the result"),
            ("1. d4-c6\nhello\n*\n", 2, "expected a tag"),
            ("[Game \"a\\x\"]\n*\n", 1, "bad escape"),
        ] {
            let e = GameRecord::parse(text).expect_err(text);
            assert_eq!(e.line, line, "{text}: {e}");
            assert!(e.to_string().contains(part), "{text}: {e}");
        }
        let e = GameRecord::parse("1. d4-c6\n").expect_err("no result");
        assert!(e.to_string().contains("no result line"), "{e}");
        let long = format!("[White \"{}\"]\n*\n", "x".repeat(MAX_TAG_VALUE + 1));
        assert!(GameRecord::parse(&long).is_err());
    }

    #[test]
    fn paper_football_records_replay_too() {
        let mut game = GameKind::PaperFootball
            .new_game(&GameOptions::default())
            .expect("new");
        let mut turns = Vec::new();
        let mut k = 0usize;
        while game.result().is_none() && turns.len() < 400 {
            // Steps one at a time until the turn may end.
            let mut steps: Vec<String> = Vec::new();
            loop {
                let partial = game.partial_turn(&steps.join(" ")).expect("listed");
                if partial.may_end && !steps.is_empty() {
                    break;
                }
                k = k.wrapping_mul(31).wrapping_add(7);
                steps.push(partial.next[k % partial.next.len()].clone());
            }
            let turn = steps.join(" ");
            game = game.play_turn(&turn).expect("legal");
            turns.push(turn);
        }
        let mut record = GameRecord {
            turns,
            result: game.result().map(|r| r.outcome.score().to_owned()),
            ..GameRecord::default()
        };
        record.set_tag("Game", "paper-football");
        let read = GameRecord::parse(&record.to_text()).expect("parses");
        let replay = read.replay().expect("replays");
        assert_eq!(replay.game.position(), game.position());
    }
}
