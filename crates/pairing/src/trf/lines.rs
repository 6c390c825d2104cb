//! What the lines of a TRF text say, line by line: the header, the settings (rounds, colours,
//! points, accelerations, forbidden pairs, byes) and the `001` records, before the records are
//! checked against each other.

use super::error::TrfError;
use super::file::TrfNote;
use super::numbers::{number, tenths};
use super::record::{RawRecord, columns, parse_player};
use crate::tournament::{
    Colour, Forbidden, Player, PointSystem, RoundEntry, StartRank, TournamentInfo,
};

/// What the lines of a TRF text say, read line by line, before the player records are checked
/// against each other.
#[derive(Default)]
pub(super) struct Lines {
    pub(super) info: TournamentInfo,
    pub(super) notes: LineNotes,
    /// `XXR`/`142`.
    pub(super) rounds: Option<u32>,
    /// `XXC`/`152`.
    pub(super) initial: Option<Colour>,
    /// `XXC rank`: the `001` lines' order gives the effective pairing numbers.
    pub(super) rank_order: bool,
    pub(super) points: PointSystem,
    /// Whether the pairing-allocated bye's points were given (else they follow a win's).
    pab_given: bool,
    /// `XXW`: (line, rank, round).
    pub(super) withdrawals: Vec<(usize, u32, u32)>,
    pub(super) accelerations: Vec<Acceleration>,
    pub(super) forbidden: Vec<Forbidden>,
    /// `240`: (line, round, player, bye).
    pub(super) byes: Vec<(usize, u32, StartRank, RoundEntry)>,
    /// `192` asks for the Baku acceleration.
    pub(super) baku: bool,
    /// `001`: (line, player without entries, its columns), in file order.
    pub(super) records: Vec<(usize, Player, RawRecord)>,
}

/// The most notes about single lines a read keeps (ignored lines, byes not kept): a file of
/// junk is reported by its first lines and a count, in memory that does not grow with it.
pub const MAX_LINE_NOTES: usize = 100;

/// Notes about single lines: the first [`MAX_LINE_NOTES`], and how many more there were.
#[derive(Default)]
pub(super) struct LineNotes {
    kept: Vec<TrfNote>,
    skipped: usize,
}

impl LineNotes {
    /// Notes `line`; the text is only made for a note that is kept.
    pub(super) fn push(&mut self, line: usize, text: impl FnOnce() -> String) {
        if self.kept.len() < MAX_LINE_NOTES {
            self.kept.push(TrfNote { line, text: text() });
        } else {
            self.skipped += 1;
        }
    }

    /// The notes kept, then one saying how many were not (if any).
    pub(super) fn finish(self) -> Vec<TrfNote> {
        let mut notes = self.kept;
        if self.skipped > 0 {
            notes.push(TrfNote {
                line: 0,
                text: format!(
                    "{} more lines ignored or not kept, not listed (only the first {MAX_LINE_NOTES} are)",
                    self.skipped
                ),
            });
        }
        notes
    }
}

/// The lines of `text`, each ended by CR LF, LF or CR.
fn physical_lines(text: &str) -> impl Iterator<Item = &str> {
    let mut rest = text;
    std::iter::from_fn(move || {
        if rest.is_empty() {
            return None;
        }
        let (line, next) = match rest.find(['\r', '\n']) {
            Some(i) if rest[i..].starts_with("\r\n") => (&rest[..i], &rest[i + 2..]),
            Some(i) => (&rest[..i], &rest[i + 1..]),
            None => (rest, ""),
        };
        rest = next;
        Some(line)
    })
}

impl Lines {
    pub(super) fn read(text: &str) -> Result<Lines, TrfError> {
        let mut lines = Lines::default();
        // TRF files end lines with CR (bbpPairings), LF or CR LF (one line end, not two: the
        // line numbers in messages are the editor's).
        for (index, raw) in physical_lines(text).enumerate() {
            let line = raw.trim_end();
            if line.trim().is_empty() || line.starts_with("###") {
                continue;
            }
            lines.line(index + 1, line)?;
        }
        Ok(lines)
    }

    fn line(&mut self, line_no: usize, line: &str) -> Result<(), TrfError> {
        let tag = line.get(..3).unwrap_or(line);
        let rest = line.get(3..).unwrap_or("").trim();
        if self.header(tag, rest, line) || self.points_line(line_no, tag, rest)? {
            return Ok(());
        }
        match tag {
            "001" => self.records.push(parse_player(line_no, line)?),
            "192" => self.system(line_no, rest),
            "XXR" | "142" => self.rounds = Some(number(line_no, "number of rounds", rest)?),
            "XXC" => {
                let (colour, rank) = initial_colour_xxc(line_no, rest)?;
                if let Some(colour) = colour {
                    self.initial = Some(colour);
                }
                self.rank_order |= rank;
            }
            "152" => self.initial = Some(initial_colour_152(line_no, rest)?),
            "XXA" => self.accelerations.push(acceleration_each(line_no, rest)?),
            "250" => self.accelerations.push(accelerated_rounds(line_no, line)?),
            "XXP" => {
                let group = rest
                    .split_whitespace()
                    .map(|w| number(line_no, "XXP player", w).map(StartRank))
                    .collect::<Result<Vec<StartRank>, _>>()?;
                self.forbidden.push(Forbidden::always(group));
            }
            "260" => self.forbidden.push(prohibited(line_no, rest)?),
            "240" => self.byes.extend(
                bye_record(line_no, rest)?
                    .into_iter()
                    .map(|(round, id, e)| (line_no, round, id, e)),
            ),
            "XXW" => self.withdrawals.push(withdrawal(line_no, rest)?),
            // The tag as three characters, never the whole line (a line may be megabytes).
            _ => self.notes.push(line_no, || {
                let tag: String = line.chars().take(3).collect();
                format!("ignored line {tag:?}")
            }),
        }
        Ok(())
    }

    /// A header line kept in [`TournamentInfo`]; whether `tag` is one.
    fn header(&mut self, tag: &str, rest: &str, line: &str) -> bool {
        let keep = || (!rest.is_empty()).then(|| rest.to_string());
        let info = &mut self.info;
        match tag {
            "012" => info.name = keep(),
            "022" => info.city = keep(),
            "032" => info.federation = keep(),
            "042" => info.start_date = keep(),
            "052" => info.end_date = keep(),
            "092" => info.kind = keep(),
            "102" => info.chief_arbiter = keep(),
            "112" => info.deputies.push(rest.to_string()),
            "122" => info.time_control = keep(),
            "132" => info.round_dates = round_dates(line),
            _ => return false,
        }
        true
    }

    /// A `192` line: the type of tournament.
    fn system(&mut self, line_no: usize, rest: &str) {
        self.info.system = (!rest.is_empty()).then(|| rest.to_string());
        self.baku = rest.to_ascii_uppercase().ends_with("_BAKU");
        if !rest.to_ascii_uppercase().starts_with("FIDE_DUTCH") {
            self.notes.push(line_no, || {
                format!("{rest:?} is not the Dutch system, which pairs here")
            });
        }
    }

    /// The point system's lines (`162`, bbpPairings' `BBW BBD BBL BBZ BBF BBU`); whether `tag`
    /// is one.
    fn points_line(&mut self, line_no: usize, tag: &str, rest: &str) -> Result<bool, TrfError> {
        let points = &mut self.points;
        match tag {
            "162" => point_system(line_no, rest, points, &mut self.pab_given)?,
            "BBW" => {
                points.win = tenths(line_no, "win points", rest)?;
                if !self.pab_given {
                    points.pab = points.win;
                }
            }
            "BBD" => points.draw = tenths(line_no, "draw points", rest)?,
            "BBL" => points.loss = tenths(line_no, "loss points", rest)?,
            "BBZ" => points.zero_bye = tenths(line_no, "zero-point bye points", rest)?,
            "BBF" => points.forfeit_loss = tenths(line_no, "forfeit loss points", rest)?,
            "BBU" => {
                points.pab = tenths(line_no, "bye points", rest)?;
                self.pab_given = true;
            }
            _ => return Ok(false),
        }
        Ok(true)
    }
}

/// A `132` line's dates, round 1 first (trailing empty rounds left out): in the round columns
/// (ten a round from column 92, eight of them the date), or, when something is written before
/// column 92, the line's words after the tag.
fn round_dates(line: &str) -> Vec<String> {
    let chars: Vec<char> = line.chars().collect();
    let head: String = chars.iter().take(91).skip(3).collect();
    let mut dates: Vec<String> = if head.trim().is_empty() {
        chars
            .get(91..)
            .unwrap_or_default()
            .chunks(10)
            .map(|round| round.iter().take(8).collect::<String>().trim().to_owned())
            .collect()
    } else {
        chars[3..]
            .iter()
            .collect::<String>()
            .split_whitespace()
            .map(str::to_owned)
            .collect()
    };
    while dates.last().is_some_and(String::is_empty) {
        dates.pop();
    }
    dates
}

/// An `XXC` line: `white1` or `black1` (neither: no colour), and whether it says `rank`.
fn initial_colour_xxc(line_no: usize, rest: &str) -> Result<(Option<Colour>, bool), TrfError> {
    let mut initial = None;
    let mut rank = false;
    for word in rest.split_whitespace() {
        match word.to_ascii_lowercase().as_str() {
            "white1" => initial = Some(Colour::White),
            "black1" => initial = Some(Colour::Black),
            "rank" => rank = true,
            _ => {
                return Err(TrfError::BadInitialColour {
                    line: line_no,
                    text: word.to_string(),
                });
            }
        }
    }
    Ok((initial, rank))
}

/// A `152` line: `W` or `B`.
fn initial_colour_152(line_no: usize, rest: &str) -> Result<Colour, TrfError> {
    match rest.to_ascii_uppercase().as_str() {
        "W" => Ok(Colour::White),
        "B" => Ok(Colour::Black),
        _ => Err(TrfError::BadInitialColour {
            line: line_no,
            text: rest.to_string(),
        }),
    }
}

/// An `XXA` line: a player's rank, then its values for rounds 1, 2, ...
fn acceleration_each(line_no: usize, rest: &str) -> Result<Acceleration, TrfError> {
    let mut words = rest.split_whitespace();
    let rank = number(line_no, "XXA player", words.next().unwrap_or(""))?;
    let values = words
        .map(|w| tenths(line_no, "acceleration", w))
        .collect::<Result<Vec<u32>, _>>()?;
    Ok(Acceleration::Each(rank, values))
}

/// An `XXW` line: a rank and the round from which it is withdrawn; (line, rank, round).
fn withdrawal(line_no: usize, rest: &str) -> Result<(usize, u32, u32), TrfError> {
    let mut words = rest.split_whitespace().map(str::parse::<u32>);
    match (words.next(), words.next(), words.next()) {
        (Some(Ok(rank)), Some(Ok(round)), None) if round >= 1 => Ok((line_no, rank, round)),
        _ => Err(TrfError::BadWithdrawal {
            line: line_no,
            text: rest.to_string(),
        }),
    }
}

/// Accelerated-pairing points as the file gives them, applied in file order.
pub(super) enum Acceleration {
    /// `XXA`: a player's values for rounds 1, 2, ...
    Each(u32, Vec<u32>),
    /// `250`: `points` for rounds `first..=last` of ranks `from..=to`.
    Range {
        points: u32,
        rounds: (u32, u32),
        ranks: (u32, u32),
    },
}

impl Acceleration {
    pub(super) fn apply(self, players: &mut [Player]) {
        match self {
            Acceleration::Each(rank, values) => {
                if let Some(p) = (rank as usize)
                    .checked_sub(1)
                    .and_then(|i| players.get_mut(i))
                {
                    p.accelerations = values;
                }
            }
            Acceleration::Range {
                points,
                rounds: (first, last),
                ranks: (from, to),
            } => {
                for p in players.iter_mut().filter(|p| (from..=to).contains(&p.id.0)) {
                    if p.accelerations.len() < last as usize {
                        p.accelerations.resize(last as usize, 0);
                    }
                    p.accelerations[first as usize - 1..last as usize].fill(points);
                }
            }
        }
    }
}

/// A `250` line (fixed columns, the match points blank for individuals).
fn accelerated_rounds(line_no: usize, line: &str) -> Result<Acceleration, TrfError> {
    let bad = || TrfError::BadRecord {
        line: line_no,
        record: "250",
        text: line.to_string(),
        expected: "points in columns 10-13, rounds in 15-17 and 19-21, players in 23-26 and 28-31",
    };
    let chars: Vec<char> = line.chars().collect();
    let field = |a, b| Some(columns(&chars, a, b)).filter(|s| !s.is_empty());
    let points = tenths(
        line_no,
        "fictitious points",
        &field(10, 13).ok_or_else(bad)?,
    )?;
    let n = |a, b| -> Result<u32, TrfError> {
        field(a, b)
            .and_then(|s| s.parse::<u32>().ok())
            .ok_or_else(bad)
    };
    let rounds = (n(15, 17)?, n(19, 21)?);
    let ranks = (n(23, 26)?, n(28, 31)?);
    if points == 0 || rounds.0 == 0 || rounds.0 > rounds.1 || ranks.0 > ranks.1 {
        return Err(bad());
    }
    if field(5, 8).is_some_and(|m| tenths(line_no, "match points", &m) != Ok(0))
        || chars.len() > 31 && field(32, chars.len()).is_some()
    {
        return Err(bad());
    }
    Ok(Acceleration::Range {
        points,
        rounds,
        ranks,
    })
}

/// A `260` line: first round, last round, then the players.
fn prohibited(line: usize, rest: &str) -> Result<Forbidden, TrfError> {
    let bad = || TrfError::BadRecord {
        line,
        record: "260",
        text: rest.to_string(),
        expected: "a first and a last round, then two players or more",
    };
    let words: Vec<u32> = rest
        .split_whitespace()
        .map(|w| w.parse::<u32>().map_err(|_| bad()))
        .collect::<Result<_, _>>()?;
    match words.as_slice() {
        [first, last, players @ ..] if *first >= 1 && first <= last && players.len() >= 2 => {
            Ok(Forbidden {
                players: players.iter().map(|&p| StartRank(p)).collect(),
                rounds: Some((*first, *last)),
            })
        }
        _ => Err(bad()),
    }
}

/// A `240` line: the kind of bye (`F`, `H`, `Z`), the round, then the players.
fn bye_record(line: usize, rest: &str) -> Result<Vec<(u32, StartRank, RoundEntry)>, TrfError> {
    let bad = || TrfError::BadRecord {
        line,
        record: "240",
        text: rest.to_string(),
        expected: "F, H or Z, a round, then players",
    };
    let mut words = rest.split_whitespace();
    let entry = match words.next().map(str::to_ascii_uppercase).as_deref() {
        Some("F") => RoundEntry::FullPointBye,
        Some("H") => RoundEntry::HalfPointBye,
        Some("Z") => RoundEntry::ZeroPointBye,
        _ => return Err(bad()),
    };
    let number = |w: &str| w.parse::<u32>().ok().filter(|&n| n >= 1).ok_or_else(bad);
    let round = number(words.next().ok_or_else(bad)?)?;
    let byes = words
        .map(|w| Ok((round, StartRank(number(w)?), entry)))
        .collect::<Result<Vec<_>, TrfError>>()?;
    if byes.is_empty() {
        return Err(bad());
    }
    Ok(byes)
}

/// The Baku acceleration as bbpPairings applies it (see the module notes): the first half of
/// `order` (starting ranks in pairing order) is accelerated. `rounds` of the tournament; values
/// are given up to round `upto`.
pub(super) fn baku_accelerations(
    points: &PointSystem,
    order: &[u32],
    rounds: u32,
    upto: u32,
) -> Result<Vec<Acceleration>, TrfError> {
    if points.loss != 0 || points.draw * 2 != points.win {
        return Err(TrfError::BakuPointSystem);
    }
    if order.is_empty() || rounds == 0 || upto == 0 {
        return Ok(Vec::new());
    }
    let last = rounds.div_ceil(2).min(upto);
    let last_full = ((rounds - 1) / 2 / 2 + 1).min(upto);
    let mut values = vec![points.win; last_full as usize];
    values.resize(last.max(last_full) as usize, points.draw);
    let top = order.len().div_ceil(2);
    Ok(order[..top]
        .iter()
        .map(|&rank| Acceleration::Each(rank, values.clone()))
        .collect())
}

/// A `162` line (TRF-2026: `W D L A P X`): codes, each followed by its points (`W 3.0    D 1.0`, as bbpPairings writes it,
/// or `W3.0 D1.0`).
fn point_system(
    line: usize,
    text: &str,
    points: &mut PointSystem,
    pab_given: &mut bool,
) -> Result<(), TrfError> {
    let bad = || TrfError::BadPointSystem {
        line,
        text: text.to_string(),
    };
    let mut rest = text.trim_start();
    if rest.is_empty() {
        return Err(bad());
    }
    while let Some(code) = rest.chars().next() {
        let after = rest[code.len_utf8()..].trim_start();
        let end = after
            .find(|c: char| c.is_whitespace() || c.is_ascii_alphabetic())
            .unwrap_or(after.len());
        if end == 0 {
            return Err(bad());
        }
        let value = tenths(line, "point system", &after[..end])?;
        match code {
            'W' => {
                points.win = value;
                if !*pab_given {
                    points.pab = value;
                }
            }
            'D' => points.draw = value,
            'L' => points.loss = value,
            // TRF-2026: `A`, an absence (zero-point bye or forfeit loss); bbpPairings reads `Z`.
            'A' | 'Z' => {
                points.zero_bye = value;
                points.forfeit_loss = value;
            }
            'P' => {
                points.pab = value;
                *pab_given = true;
            }
            // An unknown result (an adjourned game): no entry of ours has one.
            'X' => {}
            _ => return Err(bad()),
        }
        rest = after[end..].trim_start();
    }
    Ok(())
}
