//! What `hanniball bot run` tells the person (or the script) running it: a line when it
//! connects, for each game it starts and ends, for each error with the retry it will make, and a
//! summary at the end. Text on stderr (stdout stays free), or with `--json` one JSON object per
//! event on stdout; `--quiet` keeps the errors and the summary.

use std::sync::Mutex;
use std::time::Duration;

use hanniball_proto::arbiter::v1 as pb;

/// How much to say, and in which form.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Voice {
    /// Every event, as text on stderr.
    Text,
    /// Errors and the summary only.
    Quiet,
    /// Every event as a JSON line on stdout.
    Json,
}

/// Wins, draws and losses so far.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Tally {
    pub won: u32,
    pub drawn: u32,
    pub lost: u32,
    /// Games that ended with no result (aborted, a double forfeit).
    pub other: u32,
}

impl Tally {
    pub fn games(&self) -> u32 {
        self.won + self.drawn + self.lost + self.other
    }
}

/// The reporter a bot shares between its tasks.
#[derive(Debug)]
pub struct Report {
    voice: Voice,
    tally: Mutex<Tally>,
}

/// One game's end as the bot saw it.
pub struct Ended<'a> {
    pub game: i64,
    pub colour: pb::Side,
    pub opponent: &'a str,
    pub result: Option<&'a pb::GameResult>,
    pub turns: u32,
    /// The bot's own clock at the end (`None`: untimed).
    pub time_left_ms: Option<i64>,
}

impl Report {
    pub fn new(voice: Voice) -> Report {
        Report {
            voice,
            tally: Mutex::new(Tally::default()),
        }
    }

    pub fn tally(&self) -> Tally {
        *self
            .tally
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    fn say(&self, text: &str, json: &str, error: bool) {
        match self.voice {
            Voice::Json => {
                use std::io::Write as _;
                // A closed stdout (a script that stopped reading) is not an error of the bot.
                let _ = writeln!(std::io::stdout(), "{json}");
            }
            Voice::Quiet if !error => {}
            Voice::Text | Voice::Quiet => eprintln!("{text}"),
        }
    }

    pub fn connected(&self, server: &str, name: &str, id: i64, strategy: &str, queue: bool) {
        let waiting = if queue {
            "joining the matchmaking queue"
        } else {
            "waiting for its games (tournaments, challenges)"
        };
        self.say(
            &format!("connected to {server} as {name} (player {id}), strategy {strategy}; {waiting}"),
            &format!(
                "{{\"event\":\"connected\",\"server\":{},\"player\":{id},\"name\":{},\"strategy\":{}}}",
                js(server),
                js(name),
                js(strategy)
            ),
            false,
        );
    }

    /// The server cannot be reached (or refused the call); the bot tries again after `retry`.
    pub fn unreachable(&self, server: &str, reason: &str, retry: Duration) {
        self.say(
            &format!(
                "cannot reach {server} ({reason}); trying again in {} (Ctrl-C stops)",
                seconds(retry)
            ),
            &format!(
                "{{\"event\":\"unreachable\",\"server\":{},\"reason\":{},\"retry_ms\":{}}}",
                js(server),
                js(reason),
                retry.as_millis()
            ),
            true,
        );
    }

    /// A working connection failed; the bot connects again after `retry`.
    pub fn lost(&self, server: &str, reason: &str, retry: Duration) {
        self.say(
            &format!(
                "lost the connection to {server} ({reason}); reconnecting in {}",
                seconds(retry)
            ),
            &format!(
                "{{\"event\":\"lost\",\"server\":{},\"reason\":{},\"retry_ms\":{}}}",
                js(server),
                js(reason),
                retry.as_millis()
            ),
            true,
        );
    }

    /// Connected again after a failure; `active`: games in progress it resumes.
    pub fn reconnected(&self, server: &str, active: usize) {
        self.say(
            &format!(
                "connected again to {server}; {}",
                match active {
                    0 => "no game in progress".to_owned(),
                    1 => "resuming its game in progress".to_owned(),
                    n => format!("resuming its {n} games in progress"),
                }
            ),
            &format!(
                "{{\"event\":\"reconnected\",\"server\":{},\"active_games\":{active}}}",
                js(server)
            ),
            false,
        );
    }

    /// The server refused a call for its rate limit; the bot makes it again after `wait`, as
    /// the answer's back-off says.
    pub fn rate_limited(&self, game: Option<i64>, message: &str, wait: Duration) {
        self.error(
            game,
            message,
            &format!("trying again in {} as the server asks", seconds(wait)),
        );
    }

    /// Something failed; the bot does `then` (a retry, after how long).
    pub fn error(&self, game: Option<i64>, error: &str, then: &str) {
        let at = game.map_or_else(String::new, |g| format!("game {g}: "));
        self.say(
            &format!("{at}{error}; {then}"),
            &format!(
                "{{\"event\":\"error\",\"game\":{},\"error\":{},\"then\":{}}}",
                game.map_or_else(|| "null".to_owned(), |g| g.to_string()),
                js(error),
                js(then)
            ),
            true,
        );
    }

    pub fn started(
        &self,
        game: i64,
        colour: pb::Side,
        opponent: &str,
        time: Option<&pb::TimeControl>,
    ) {
        let time = time.map_or_else(
            || "untimed".to_owned(),
            |tc| hanniball_rules::record::time_control(tc.initial_ms, tc.increment_ms),
        );
        self.say(
            &format!(
                "game {game}: playing {} against {opponent}, {time}",
                side(colour)
            ),
            &format!(
                "{{\"event\":\"game_started\",\"game\":{game},\"colour\":{},\"opponent\":{},\"time_control\":{}}}",
                js(side(colour)),
                js(opponent),
                js(&time)
            ),
            false,
        );
    }

    pub fn ended(&self, e: &Ended<'_>) {
        let outcome = e.result.map_or(pb::Outcome::Unspecified, |r| r.outcome());
        let score = match (outcome, e.colour) {
            (pb::Outcome::WhiteWins, pb::Side::White)
            | (pb::Outcome::BlackWins, pb::Side::Black) => "won",
            (pb::Outcome::WhiteWins | pb::Outcome::BlackWins, _) => "lost",
            (pb::Outcome::Draw, _) => "drawn",
            _ => "no result",
        };
        {
            let mut tally = self
                .tally
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner);
            match score {
                "won" => tally.won += 1,
                "lost" => tally.lost += 1,
                "drawn" => tally.drawn += 1,
                _ => tally.other += 1,
            }
        }
        let summary = e.result.map_or("over", |r| r.summary.as_str());
        let left = e.time_left_ms.map_or_else(String::new, |ms| {
            format!(
                ", {} left on its clock",
                seconds(Duration::from_millis(ms.max(0) as u64))
            )
        });
        self.say(
            &format!(
                "game {}: {summary}: {score} as {} against {} after {} turns{left}",
                e.game,
                side(e.colour),
                e.opponent,
                e.turns
            ),
            &format!(
                "{{\"event\":\"game_over\",\"game\":{},\"result\":{},\"score\":{},\"colour\":{},\"opponent\":{},\"turns\":{},\"time_left_ms\":{}}}",
                e.game,
                js(summary),
                js(score),
                js(side(e.colour)),
                js(e.opponent),
                e.turns,
                e.time_left_ms.map_or_else(|| "null".to_owned(), |ms| ms.to_string())
            ),
            false,
        );
    }

    /// The last line: what was played.
    pub fn summary(&self) {
        let t = self.tally();
        self.say(
            &format!(
                "{} game{}: {} won, {} drawn, {} lost{}",
                t.games(),
                if t.games() == 1 { "" } else { "s" },
                t.won,
                t.drawn,
                t.lost,
                if t.other > 0 {
                    format!(", {} without a result", t.other)
                } else {
                    String::new()
                }
            ),
            &format!(
                "{{\"event\":\"summary\",\"games\":{},\"won\":{},\"drawn\":{},\"lost\":{},\"other\":{}}}",
                t.games(),
                t.won,
                t.drawn,
                t.lost,
                t.other
            ),
            true,
        );
    }
}

fn side(side: pb::Side) -> &'static str {
    match side {
        pb::Side::White => "White",
        pb::Side::Black => "Black",
        pb::Side::Unspecified => "?",
    }
}

/// A wait as people read it: `5 s`, `0.4 s`, `1.6 s`, or `35 ms` under a tenth of a second.
pub(crate) fn seconds(d: Duration) -> String {
    let ms = d.as_millis();
    if ms.is_multiple_of(1000) {
        format!("{} s", ms / 1000)
    } else if ms < 100 {
        format!("{ms} ms")
    } else {
        format!("{:.1} s", ms as f64 / 1000.0)
    }
}

/// A JSON string.
fn js(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 2);
    out.push('"');
    for c in text.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            c if (c as u32) < 0x20 => out.push_str(&format!("\\u{:04x}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn games_are_counted_from_the_bots_side() {
        let report = Report::new(Voice::Quiet);
        let result = |outcome: pb::Outcome| pb::GameResult {
            outcome: outcome as i32,
            reason: pb::EndReason::Goal as i32,
            summary: "x".to_owned(),
        };
        for (outcome, colour) in [
            (pb::Outcome::WhiteWins, pb::Side::White),
            (pb::Outcome::WhiteWins, pb::Side::Black),
            (pb::Outcome::Draw, pb::Side::Black),
            (pb::Outcome::BlackWins, pb::Side::Black),
            (pb::Outcome::None, pb::Side::White),
        ] {
            let r = result(outcome);
            report.ended(&Ended {
                game: 1,
                colour,
                opponent: "o",
                result: Some(&r),
                turns: 2,
                time_left_ms: None,
            });
        }
        assert_eq!(
            report.tally(),
            Tally {
                won: 2,
                drawn: 1,
                lost: 1,
                other: 1
            }
        );
        assert_eq!(js("a\"b\\\n"), "\"a\\\"b\\\\\\u000a\"");
        for (ms, shown) in [
            (5_000, "5 s"),
            (400, "0.4 s"),
            (1_600, "1.6 s"),
            (35, "35 ms"),
        ] {
            assert_eq!(seconds(Duration::from_millis(ms)), shown);
        }
    }
}
