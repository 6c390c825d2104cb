//! Reading and writing the FIDE Tournament Report File (TRF-16 with the JaVaFo/bbpPairings lines).
//!
//! Recognised lines:
//! - `001` player records, in the exact TRF-16 columns: starting rank 5–8, sex 10, title 11–13,
//!   name 15–47, rating 49–52, federation 54–56, FIDE id 58–68, birth date 70–79, points 81–84,
//!   rank 86–89, then ten columns per round from column 92: opponent 92–95 (`0000`, `0` or blank
//!   when there is none), colour 97 (`w`, `b`, `-`), result 99 (`1 = 0 W D L + - H F U Z`, blank
//!   ≡ Z; blank after an opponent: a game without a result yet).
//! - `012 022 032 042 052 092 102 112 122 132` header lines, kept in [`TournamentInfo`] (`132`:
//!   the round dates in the round columns, 92-99 for round 1, 102-109 for round 2, ...; a line
//!   with words before column 92 is read word by word); `062 072 082` are recomputable and are
//!   dropped with a note (`062` and `072` are written from the players when asked).
//! - `XXR <rounds>` (or `142 <rounds>`): total rounds; `XXC [rank] white1|black1` (or `152 W|B`): the
//!   top seed's colour in round 1. Without either, the colour is taken from round 1 (as bbpPairings
//!   does) and the number of rounds from the longest player record.
//! - `162 W 3.0 D 1.0 L 0.0 A 0.0 P 1.0` (TRF-2026's point system; `A`, or bbpPairings' `Z`, is
//!   an absence: a zero-point bye and a forfeit loss) and bbpPairings' `BBW BBD BBL BBZ BBF BBU`:
//!   points for a win (also a forfeit win and a full-point bye), a draw (also a half-point bye),
//!   a loss, a zero-point bye (also an absence), a forfeit loss and the pairing-allocated bye
//!   (a win's unless given). Defaults 1.0, 0.5, 0, 0, 0, 1.0. These and the `XXA` values are in
//!   tenths, at most 99.9, the most the TRF points format holds.
//! - `XXW <rank> <round>`: this crate's extension, the player is withdrawn from that round on.
//! - `XXA <rank> <points> <points> ...`: accelerated pairing, points added to the player's pairing
//!   score in rounds 1, 2, ... (JaVaFo/bbpPairings; values separated by spaces).
//! - `XXP <rank> <rank> ...`: these players must not meet each other in any round.
//! - TRF-2026 records: `240 T RRR PPPP PPPP ...` byes (`T` = `F`, `H` or `Z`) of the round to be
//!   paired, which become that round's entries (a bye for another round is noted and not kept,
//!   as bbpPairings does); `250 MMMM GGGG RRF RRL PPPF PPPL` (columns 5-8, 10-13, 15-17, 19-21,
//!   23-26, 28-31) fictitious points `GGGG` for rounds `RRF..=RRL` of players `PPPF..=PPPL`, like
//!   `XXA`; `260 RRF RRL PPPP PPPP ...` players who must not meet in rounds `RRF..=RRL`; `192`
//!   the type of tournament, where a name ending in `_BAKU` (`FIDE_DUTCH_2025_BAKU`) asks for the
//!   Baku acceleration as bbpPairings applies it when no `XXA`/`250` is given: the top half in
//!   pairing order (`⌈n / 2⌉` players; by `XXC rank`, the first `001` lines) get a win's points in rounds 1 to `⌊(rounds − 1) / 4⌋ + 1`
//!   and a draw's from there to round `⌈rounds / 2⌉`, which needs the point system's loss to be
//!   0 and its win two draws.
//! - `###` comments are ignored; any other line (a column ruler, a header row, a program's own
//!   record) is ignored with a [`TrfNote`]; only the first [`MAX_LINE_NOTES`] such notes are
//!   kept, then one counting the rest, so that a file of junk takes no more memory than itself.
//!
//! Forgiving where the meaning is unambiguous ([`read`]): the bytes may be UTF-8 (with or
//! without a byte-order mark), UTF-16 with one, or Windows-1252/Latin-1 (detected, with a note,
//! or named: [`Encoding`]); lines end in CR, LF or CR LF. `XXC rank` takes the players in the
//! order of the `001` lines for the effective pairing numbers (bbpPairings, JaVaFo; lichess
//! writes `XXC rank white1`). A round paired whose games have no results yet (`   8 w  `, how
//! programs save mid-round) is read as an [`UnfinishedRound`]: it can be checked, not paired
//! past. The points column (81–84) must be the score of the results, as bbpPairings requires
//! ([`points`]); a column that disagrees is an error naming the players and a point system
//! that would explain it, unless [`ReadOptions::recompute_points`] asks to score by the results.
//! Pre-entered byes of the round being paired (`0000 - H`, `0000 - Z`, `0000 - F`) are
//! ordinary entries: the engine does not pair those players.

mod encoding;
pub mod points;
mod write;

use encoding::decode_borrowed;
pub use encoding::{Encoding, UnknownEncoding, decode};
pub use points::PointsMismatch;
pub use write::{write, write_unfinished};

use thiserror::Error;

use crate::tournament::{
    Colour, Forbidden, GameResult, Player, PointSystem, RoundEntry, Score, StartRank, Tournament,
    TournamentInfo,
};

/// Why a TRF text was refused. Line numbers are 1-based.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum TrfError {
    #[error("line {line}: {field} {text:?} is not a number")]
    BadNumber {
        line: usize,
        field: &'static str,
        text: String,
    },
    #[error(
        "line {line}: {field} {text:?} is more than {} points",
        Score(MAX_TENTHS)
    )]
    TooManyPoints {
        line: usize,
        field: &'static str,
        text: String,
    },
    #[error("line {line}: player record is too short ({len} characters, at least 8 needed)")]
    ShortPlayerLine { line: usize, len: usize },
    #[error("line {line}: starting rank {rank} appears twice")]
    DuplicatePlayer { line: usize, rank: u32 },
    #[error("starting ranks must be 1..={count} without gaps; {missing} is missing")]
    MissingPlayer { count: usize, missing: u32 },
    #[error("line {line}: round {round}: unknown result code {code:?}")]
    UnknownResult { line: usize, round: u32, code: char },
    #[error("line {line}: round {round}: unknown colour {code:?}")]
    UnknownColour { line: usize, round: u32, code: char },
    #[error("line {line}: round {round}: a game against {opponent} needs colour w or b")]
    GameWithoutColour {
        line: usize,
        round: u32,
        opponent: u32,
    },
    #[error("line {line}: round {round}: result {code:?} needs an opponent")]
    ResultWithoutOpponent { line: usize, round: u32, code: char },
    #[error("line {line}: round {round}: result {code:?} cannot have opponent {opponent}")]
    ByeWithOpponent {
        line: usize,
        round: u32,
        code: char,
        opponent: u32,
    },
    #[error("line {line}: round {round}: opponent {opponent} is not a registered player")]
    UnknownOpponent {
        line: usize,
        round: u32,
        opponent: u32,
    },
    #[error("line {line}: round {round}: player {player} is paired with itself")]
    SelfPairing {
        line: usize,
        round: u32,
        player: u32,
    },
    #[error("line {line}: {text:?} is not white1 or black1")]
    BadInitialColour { line: usize, text: String },
    #[error("line {line}: withdrawal line needs a known rank and a round, got {text:?}")]
    BadWithdrawal { line: usize, text: String },
    #[error("line {line}: point system {text:?}: expected codes W D L A Z P, each with points")]
    BadPointSystem { line: usize, text: String },
    #[error("line {line}: {record} line {text:?}: expected {expected}")]
    BadRecord {
        line: usize,
        record: &'static str,
        text: String,
        expected: &'static str,
    },
    #[error("the Baku acceleration needs a loss worth 0 and a win worth two draws")]
    BakuPointSystem,
    #[error("no player records")]
    NoPlayers,
    #[error("line {line}: byte 0x{byte:02X} is not {encoding} text (name the file's encoding)")]
    NotInEncoding {
        encoding: Encoding,
        line: usize,
        byte: u8,
    },
    #[error(
        "the points column disagrees with the results under the point system {system}: {}{}; {}",
        list_mismatches(players),
        if players.len() > 5 { format!(" and {} more", players.len() - 5) } else { String::new() },
        match (explained_by, blank_byes) {
            (Some(other), _) => format!("the point system {other} explains every player's points (a `162 {other}` line says so), or recompute the points from the results"),
            (None, Some(rounds)) => format!("every difference is half a point for each of those players' {rounds} unpaired rounds (`0000 -` with a blank result, or Z): the program that wrote the file counts them as half-point byes; read them so (--blank-as H), or recompute the points from the results"),
            (None, None) => "no usual point system explains them: correct the file, or recompute the points from the results".to_string(),
        }
    )]
    PointsDisagree {
        players: Vec<PointsMismatch>,
        /// The file's point system, as a `162` body.
        system: String,
        /// A point system under which every column agrees, as a `162` body.
        explained_by: Option<String>,
        /// `Some(n)`: reading the `n` unpaired rounds (blank or `Z`) of the players who disagree
        /// as half-point byes explains every column ([`ReadOptions::blank_as_half_point_bye`]).
        blank_byes: Option<usize>,
    },
    #[error(
        "line {line}: round {round}: a game against {opponent} without a result before a later round with results: only the last round may be unfinished"
    )]
    UnfinishedNotLast {
        line: usize,
        round: u32,
        opponent: u32,
    },
    #[error(
        "line {line}: round {round}: player {player} has a game against {opponent} without a result, but {opponent}'s record does not name {player} with the other colour"
    )]
    UnfinishedMismatch {
        line: usize,
        round: u32,
        player: u32,
        opponent: u32,
    },
    #[error(
        "round {round} is paired but {unfinished} of its games have no result yet: enter the results before pairing round {next}"
    )]
    RoundUnfinished {
        round: u32,
        unfinished: usize,
        next: u32,
    },
    #[error(
        "{count} players do not fit in a TRF file: starting ranks have four digits, so at most {} players",
        MAX_PLAYERS
    )]
    TooManyPlayers { count: usize },
}

/// A line that was read but not used.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TrfNote {
    pub line: usize,
    pub text: String,
}

fn list_mismatches(players: &[PointsMismatch]) -> String {
    let shown: Vec<String> = players.iter().take(5).map(ToString::to_string).collect();
    shown.join(", ")
}

/// How to read a TRF file.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ReadOptions {
    /// The file's encoding; `None`: detected ([`decode`]).
    pub encoding: Option<Encoding>,
    /// Score every player by the results and ignore a points column that disagrees (else such
    /// a column is [`TrfError::PointsDisagree`]).
    pub recompute_points: bool,
    /// Read an unpaired round (`0000 -` with a blank result, or `Z`) of a player whose points
    /// column counts it as half a point as a half-point bye: how some programs (the Irish Chess
    /// Union's) write a requested bye. Only players whose every such round explains the column.
    pub blank_as_half_point_bye: bool,
}

/// A TRF file as read: the tournament, what was noted while reading, and the round paired
/// without results, if any.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TrfFile {
    /// Every round with its results; the unfinished round's games are not in it (their
    /// players have no entry for that round yet), its byes and finished games are.
    pub tournament: Tournament,
    pub notes: Vec<TrfNote>,
    pub unfinished: Option<UnfinishedRound>,
}

/// The last round of a file, paired but with games that have no result yet.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UnfinishedRound {
    pub round: u32,
    /// `(white, black)` of each game without a result, by white's starting rank.
    pub games: Vec<(StartRank, StartRank)>,
}

impl TrfFile {
    /// The tournament with the unfinished round's games entered, so that its pairing can be
    /// checked: their results are placeholders (unrated draws), which no check of that round
    /// reads (a round is checked against the rounds before it). Not for standings.
    pub fn as_paired(&self) -> Tournament {
        let mut t = self.tournament.clone();
        if let Some(u) = &self.unfinished {
            for &(white, black) in &u.games {
                for (id, colour, opponent) in
                    [(white, Colour::White, black), (black, Colour::Black, white)]
                {
                    t.set_entry(
                        id,
                        u.round,
                        RoundEntry::Game {
                            opponent,
                            colour,
                            result: GameResult::Draw,
                            rated: false,
                        },
                    );
                }
            }
        }
        t
    }

    /// The tournament, or [`TrfError::RoundUnfinished`] when a round has games without
    /// results: what pairing the next round, or importing a tournament, needs.
    pub fn finished(self) -> Result<Tournament, TrfError> {
        match self.unfinished {
            Some(u) => Err(TrfError::RoundUnfinished {
                round: u.round,
                unfinished: u.games.len(),
                next: u.round + 1,
            }),
            None => Ok(self.tournament),
        }
    }
}

/// Reads a TRF file's bytes (see the module notes).
pub fn read(bytes: &[u8], options: &ReadOptions) -> Result<TrfFile, TrfError> {
    let (text, used) = decode_borrowed(bytes, options.encoding)?;
    let mut file = read_text(&text, options)?;
    if options.encoding.is_none() && matches!(used, Encoding::Windows1252) {
        file.notes.insert(
            0,
            TrfNote {
                line: 0,
                text: "the file is not UTF-8: read as Windows-1252 (Latin-1); name the encoding if it is another".to_string(),
            },
        );
    } else if options.encoding.is_none() && used != Encoding::Utf8 {
        file.notes.insert(
            0,
            TrfNote {
                line: 0,
                text: format!("read as {used} (byte-order mark)"),
            },
        );
    }
    Ok(file)
}

/// Parses a TRF text into a tournament whose rounds all have results (the points column must
/// agree with them).
pub fn parse(text: &str) -> Result<Tournament, TrfError> {
    parse_with_notes(text).map(|(t, _)| t)
}

/// Parses a TRF text and also returns notes about the lines that were ignored.
pub fn parse_with_notes(text: &str) -> Result<(Tournament, Vec<TrfNote>), TrfError> {
    let file = read_text(text, &ReadOptions::default())?;
    let notes = file.notes.clone();
    file.finished().map(|t| (t, notes))
}

/// Reads a TRF text (see the module notes); the encoding option is not used.
pub fn read_text(text: &str, options: &ReadOptions) -> Result<TrfFile, TrfError> {
    let mut lines = Lines::read(text)?;
    let records = std::mem::take(&mut lines.records);
    let pairing_order = lines
        .rank_order
        .then(|| records.iter().map(|(_, p, _)| p.id).collect::<Vec<_>>());
    let columns_by_rank: Vec<(u32, Option<u32>)> = records
        .iter()
        .map(|(_, p, raw)| (p.id.0, raw.points))
        .collect();
    let (mut players, unfinished) = players(records)?;
    for &(line_no, rank, round) in &lines.withdrawals {
        let p = (rank as usize)
            .checked_sub(1)
            .and_then(|i| players.get_mut(i))
            .ok_or_else(|| TrfError::BadWithdrawal {
                line: line_no,
                text: format!("{rank} {round}"),
            })?;
        p.withdrawn_from = Some(round);
    }
    let longest = players
        .iter()
        .map(|p| p.entries.len() as u32)
        .max()
        .unwrap_or(0);
    let initial_colour = lines
        .initial
        .unwrap_or_else(|| inferred_initial_colour(&players));
    let total_rounds = lines.rounds.unwrap_or(longest);
    if lines.baku && lines.accelerations.is_empty() {
        // As bbpPairings, only up to the round to be paired: later rounds' values do not count
        // yet (and `XXR` may be any number).
        let rounds = total_rounds.min(longest + 1);
        // The top half in pairing order: with `XXC rank`, the `001` lines' order.
        let order: Vec<u32> = match &pairing_order {
            Some(order) => order.iter().map(|id| id.0).collect(),
            None => players.iter().map(|p| p.id.0).collect(),
        };
        lines.accelerations = baku_accelerations(&lines.points, &order, total_rounds, rounds)?;
    }
    for a in lines.accelerations {
        a.apply(&mut players);
    }
    let mut tournament = Tournament {
        forbidden: lines.forbidden,
        info: lines.info,
        total_rounds,
        initial_colour,
        points: lines.points,
        players,
        pairing_order,
    };
    let mut line_notes = lines.notes;
    enter_byes(&mut tournament, lines.byes, &mut line_notes);
    let mut notes = line_notes.finish();
    let mut columns = vec![None; tournament.players.len()];
    for (rank, column) in columns_by_rank {
        columns[rank as usize - 1] = column;
    }
    let unfinished_round = unfinished.as_ref().map(|u| u.round);
    let mut wrong = points::mismatches(&tournament, &columns, unfinished_round);
    let blank = points::blank_half_point_byes(&tournament, &wrong, unfinished_round);
    if options.blank_as_half_point_bye
        && !wrong.is_empty()
        && let Some(rounds) = &blank
    {
        for (player, round) in rounds {
            tournament.set_entry(*player, *round, RoundEntry::HalfPointBye);
        }
        notes.push(TrfNote {
            line: 0,
            text: format!(
                "{} unpaired rounds read as half-point byes, as the points column counts them",
                rounds.len()
            ),
        });
        wrong = points::mismatches(&tournament, &columns, unfinished_round);
    }
    if !wrong.is_empty() {
        if options.recompute_points {
            notes.push(TrfNote {
                line: 0,
                text: format!(
                    "the points column of {} players disagrees with the results; scored by the results",
                    wrong.len()
                ),
            });
        } else {
            return Err(TrfError::PointsDisagree {
                system: points::system_text(&tournament.points),
                explained_by: points::explaining_system(&tournament, &columns, unfinished_round)
                    .map(|ps| points::system_text(&ps)),
                blank_byes: blank.map(|rounds| rounds.len()),
                players: wrong,
            });
        }
    }
    Ok(TrfFile {
        tournament,
        notes,
        unfinished,
    })
}

/// What the lines of a TRF text say, read line by line, before the player records are checked
/// against each other.
#[derive(Default)]
struct Lines {
    info: TournamentInfo,
    notes: LineNotes,
    /// `XXR`/`142`.
    rounds: Option<u32>,
    /// `XXC`/`152`.
    initial: Option<Colour>,
    /// `XXC rank`: the `001` lines' order gives the effective pairing numbers.
    rank_order: bool,
    points: PointSystem,
    /// Whether the pairing-allocated bye's points were given (else they follow a win's).
    pab_given: bool,
    /// `XXW`: (line, rank, round).
    withdrawals: Vec<(usize, u32, u32)>,
    accelerations: Vec<Acceleration>,
    forbidden: Vec<Forbidden>,
    /// `240`: (line, round, player, bye).
    byes: Vec<(usize, u32, StartRank, RoundEntry)>,
    /// `192` asks for the Baku acceleration.
    baku: bool,
    /// `001`: (line, player without entries, its columns), in file order.
    records: Vec<(usize, Player, RawRecord)>,
}

/// The most notes about single lines a read keeps (ignored lines, byes not kept): a file of
/// junk is reported by its first lines and a count, in memory that does not grow with it.
pub const MAX_LINE_NOTES: usize = 100;

/// Notes about single lines: the first [`MAX_LINE_NOTES`], and how many more there were.
#[derive(Default)]
struct LineNotes {
    kept: Vec<TrfNote>,
    skipped: usize,
}

impl LineNotes {
    /// Notes `line`; the text is only made for a note that is kept.
    fn push(&mut self, line: usize, text: impl FnOnce() -> String) {
        if self.kept.len() < MAX_LINE_NOTES {
            self.kept.push(TrfNote { line, text: text() });
        } else {
            self.skipped += 1;
        }
    }

    /// The notes kept, then one saying how many were not (if any).
    fn finish(self) -> Vec<TrfNote> {
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
    fn read(text: &str) -> Result<Lines, TrfError> {
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

/// The players in starting-rank order, their round cells resolved (every rank from 1 to the
/// number of records exactly once), and the unfinished round, if any.
fn players(
    records: Vec<(usize, Player, RawRecord)>,
) -> Result<(Vec<Player>, Option<UnfinishedRound>), TrfError> {
    if records.is_empty() {
        return Err(TrfError::NoPlayers);
    }
    let count = records.len();
    // The first rank without a record (1, 2, 4 in a file of three: 3).
    let missing = || {
        let present: std::collections::HashSet<u32> =
            records.iter().map(|(_, p, _)| p.id.0).collect();
        (1..).find(|r| !present.contains(r)).unwrap_or(1)
    };
    if records
        .iter()
        .any(|(_, p, _)| p.id.0 == 0 || p.id.0 as usize > count)
    {
        return Err(TrfError::MissingPlayer {
            count,
            missing: missing(),
        });
    }
    let mut slots: Vec<Option<(usize, Player, RawRecord)>> = vec![None; count];
    for (line_no, player, raw) in records {
        let rank = player.id.0;
        let slot = (rank as usize)
            .checked_sub(1)
            .and_then(|i| slots.get_mut(i))
            .ok_or(TrfError::MissingPlayer { count, missing: 1 })?;
        if slot.is_some() {
            return Err(TrfError::DuplicatePlayer {
                line: line_no,
                rank,
            });
        }
        *slot = Some((line_no, player, raw));
    }
    let mut players = Vec::with_capacity(count);
    // Games without a result: (line, round, player, opponent, colour).
    let mut pending = Vec::new();
    for (i, slot) in slots.into_iter().enumerate() {
        let Some((line_no, mut player, raw)) = slot else {
            return Err(TrfError::MissingPlayer {
                count,
                missing: i as u32 + 1,
            });
        };
        for (r, e) in raw.cells.into_iter().enumerate() {
            let round = r as u32 + 1;
            match e.resolve(line_no, round, player.id.0, count as u32)? {
                Cell::Entry(entry) => player.entries.push(entry),
                Cell::Pending { opponent, colour } => {
                    pending.push((line_no, round, player.id, opponent, colour));
                    // Only blank cells may follow (checked below, with the other players'
                    // later rounds).
                    player.entries.push(RoundEntry::NotPaired);
                }
            }
        }
        players.push(player);
    }
    let unfinished = unfinished_round(&mut players, pending)?;
    Ok((players, unfinished))
}

/// The round of the games without a result (at most one, the last with a pairing in it):
/// their players' entries for it and after are taken out (they are blank), and each game must
/// be mirrored by its opponent's record.
fn unfinished_round(
    players: &mut [Player],
    pending: Vec<(usize, u32, StartRank, StartRank, Colour)>,
) -> Result<Option<UnfinishedRound>, TrfError> {
    let Some(round) = pending.iter().map(|p| p.1).max() else {
        return Ok(None);
    };
    let last_with_results = players
        .iter()
        .filter_map(|p| p.entries.iter().rposition(RoundEntry::is_pairing))
        .map(|i| i as u32 + 1)
        .max()
        .unwrap_or(0);
    for &(line, r, _, opponent, _) in &pending {
        if r < round || r < last_with_results {
            return Err(TrfError::UnfinishedNotLast {
                line,
                round: r,
                opponent: opponent.0,
            });
        }
    }
    // Every pending game is of `round` now, so a player has at most one: its opponent and
    // colour by player, for a lookup instead of a scan of every other pending game.
    let mut game_of: Vec<Option<(StartRank, Colour)>> = vec![None; players.len()];
    for &(_, _, me, opponent, colour) in &pending {
        game_of[me.index()] = Some((opponent, colour));
    }
    let mut games = Vec::new();
    for &(line, _, me, opponent, colour) in &pending {
        let mirrored = game_of[opponent.index()] == Some((me, colour.opposite()));
        if !mirrored {
            return Err(TrfError::UnfinishedMismatch {
                line,
                round,
                player: me.0,
                opponent: opponent.0,
            });
        }
        if colour == Colour::White {
            games.push((me, opponent));
        }
        let p = &mut players[me.index()];
        p.entries.truncate(round as usize - 1);
    }
    games.sort();
    Ok(Some(UnfinishedRound { round, games }))
}

/// Without `XXC`, the initial colour as bbpPairings infers it from round 1: the round-1 colour
/// of the highest player who took part in the pairing; if that one has no colour listed (the
/// PAB), the next one's, reversed, and so on.
fn inferred_initial_colour(players: &[Player]) -> Colour {
    players
        .iter()
        .filter(|p| p.entry(1).is_some_and(RoundEntry::is_pairing))
        .enumerate()
        .find_map(|(k, p)| {
            let c = match p.entry(1) {
                Some(RoundEntry::Game { colour, .. }) => Some(*colour),
                Some(RoundEntry::Forfeit { colour, .. }) => *colour,
                _ => None,
            }?;
            Some(if k % 2 == 0 { c } else { c.opposite() })
        })
        .unwrap_or(Colour::White)
}

/// `240` byes become entries of the round to be paired; a bye for another round, or of a
/// player not registered, is noted and not kept (as bbpPairings does).
fn enter_byes(
    tournament: &mut Tournament,
    byes: Vec<(usize, u32, StartRank, RoundEntry)>,
    notes: &mut LineNotes,
) {
    let next = tournament.rounds_paired() + 1;
    for (line, round, id, entry) in byes {
        let p = (id.0 as usize)
            .checked_sub(1)
            .and_then(|i| tournament.players.get_mut(i));
        match p {
            Some(p) if round == next && p.entries.len() < round as usize => {
                p.entries
                    .resize(round as usize - 1, RoundEntry::NotPaired);
                p.entries.push(entry);
            }
            Some(_) if round == next => {}
            Some(_) => notes.push(line, || {
                format!("bye of player {id} in round {round} is not for the round to pair ({next}); not kept")
            }),
            None => notes.push(line, || {
                format!("bye of player {id}, who is not registered; not kept")
            }),
        }
    }
}

/// Accelerated-pairing points as the file gives them, applied in file order.
enum Acceleration {
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
    fn apply(self, players: &mut [Player]) {
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
fn baku_accelerations(
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

fn number(line: usize, field: &'static str, text: &str) -> Result<u32, TrfError> {
    text.trim().parse().map_err(|_| TrfError::BadNumber {
        line,
        field,
        text: text.trim().to_string(),
    })
}

/// The most a point value (`162`, `BBx`, `XXA`) may be, in tenths: 99.9 points, the most the TRF
/// points format (`dd.d`) holds. Scores are sums of such values, and must not overflow.
const MAX_TENTHS: u32 = 999;

/// Reads `1.0`, `0.5`, `1`, `2.5`, `0.3` as tenths of a point, at most [`MAX_TENTHS`].
fn tenths(line: usize, field: &'static str, text: &str) -> Result<u32, TrfError> {
    let t = text.trim();
    let bad = || TrfError::BadNumber {
        line,
        field,
        text: t.to_string(),
    };
    let (whole, frac) = t.split_once('.').unwrap_or((t, "0"));
    if whole.is_empty() || !whole.bytes().all(|b| b.is_ascii_digit()) {
        return Err(bad());
    }
    let tenth = match frac.trim_end_matches('0').as_bytes() {
        [] => 0,
        [d] if d.is_ascii_digit() => u32::from(d - b'0'),
        _ => return Err(bad()),
    };
    let whole: u32 = whole.parse().map_err(|_| TrfError::TooManyPoints {
        line,
        field,
        text: t.to_string(),
    })?;
    match whole
        .checked_mul(10)
        .and_then(|tenths| tenths.checked_add(tenth))
    {
        Some(tenths) if tenths <= MAX_TENTHS => Ok(tenths),
        _ => Err(TrfError::TooManyPoints {
            line,
            field,
            text: t.to_string(),
        }),
    }
}

/// A points column (`dd.d`, or wider for a score of 100 points and more) in tenths.
fn points_column(line: usize, text: &str) -> Result<u32, TrfError> {
    let bad = || TrfError::BadNumber {
        line,
        field: "points",
        text: text.to_string(),
    };
    let (whole, frac) = text.split_once('.').unwrap_or((text, "0"));
    let tenth = match frac.trim_end_matches('0').as_bytes() {
        [] => 0,
        [d] if d.is_ascii_digit() => u32::from(d - b'0'),
        _ => return Err(bad()),
    };
    if whole.is_empty() || !whole.bytes().all(|b| b.is_ascii_digit()) {
        return Err(bad());
    }
    whole
        .parse::<u32>()
        .ok()
        .and_then(|w| w.checked_mul(10))
        .and_then(|t| t.checked_add(tenth))
        .ok_or_else(bad)
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

/// A `001` line's columns before they are checked against the other players.
#[derive(Clone, Debug, Default)]
struct RawRecord {
    /// The points column (81–84), in tenths; `None` when blank.
    points: Option<u32>,
    cells: Vec<RawEntry>,
}

/// One round's columns before the opponent is checked against the player list.
#[derive(Clone, Copy, Debug)]
struct RawEntry {
    opponent: u32,
    colour: char,
    result: char,
}

/// One round of a player's record.
enum Cell {
    Entry(RoundEntry),
    /// A game paired whose result is not in yet (result column blank).
    Pending {
        opponent: StartRank,
        colour: Colour,
    },
}

impl RawEntry {
    fn resolve(self, line: usize, round: u32, me: u32, count: u32) -> Result<Cell, TrfError> {
        if self.opponent != 0 && self.result == ' ' && self.opponent <= count && self.opponent != me
        {
            let colour = match self.colour {
                'w' | 'W' => Colour::White,
                'b' | 'B' => Colour::Black,
                _ => {
                    return Err(TrfError::GameWithoutColour {
                        line,
                        round,
                        opponent: self.opponent,
                    });
                }
            };
            return Ok(Cell::Pending {
                opponent: StartRank(self.opponent),
                colour,
            });
        }
        self.resolve_entry(line, round, me, count).map(Cell::Entry)
    }

    fn resolve_entry(
        self,
        line: usize,
        round: u32,
        me: u32,
        count: u32,
    ) -> Result<RoundEntry, TrfError> {
        let colour = match self.colour {
            'w' | 'W' => Some(Colour::White),
            'b' | 'B' => Some(Colour::Black),
            '-' | ' ' => None,
            code => return Err(TrfError::UnknownColour { line, round, code }),
        };
        let code = self.result.to_ascii_uppercase();
        if self.opponent == 0 {
            return match code {
                'U' => Ok(RoundEntry::PairingBye),
                'F' | '+' => Ok(RoundEntry::FullPointBye),
                'H' | '=' => Ok(RoundEntry::HalfPointBye),
                'Z' | '-' => Ok(RoundEntry::ZeroPointBye),
                ' ' => Ok(RoundEntry::NotPaired),
                '1' | '0' | 'W' | 'D' | 'L' => {
                    Err(TrfError::ResultWithoutOpponent { line, round, code })
                }
                code => Err(TrfError::UnknownResult { line, round, code }),
            };
        }
        if self.opponent > count {
            return Err(TrfError::UnknownOpponent {
                line,
                round,
                opponent: self.opponent,
            });
        }
        if self.opponent == me {
            return Err(TrfError::SelfPairing {
                line,
                round,
                player: me,
            });
        }
        let opponent = StartRank(self.opponent);
        let game = |result, rated| match colour {
            Some(colour) => Ok(RoundEntry::Game {
                opponent,
                colour,
                result,
                rated,
            }),
            None => Err(TrfError::GameWithoutColour {
                line,
                round,
                opponent: self.opponent,
            }),
        };
        match code {
            '1' => game(GameResult::Win, true),
            '=' => game(GameResult::Draw, true),
            '0' => game(GameResult::Loss, true),
            'W' => game(GameResult::Win, false),
            'D' => game(GameResult::Draw, false),
            'L' => game(GameResult::Loss, false),
            '+' => Ok(RoundEntry::Forfeit {
                opponent,
                colour,
                won: true,
            }),
            '-' => Ok(RoundEntry::Forfeit {
                opponent,
                colour,
                won: false,
            }),
            'U' | 'F' | 'H' | 'Z' | ' ' => Err(TrfError::ByeWithOpponent {
                line,
                round,
                code,
                opponent: self.opponent,
            }),
            code => Err(TrfError::UnknownResult { line, round, code }),
        }
    }
}

/// Characters of a line by 1-based column, blank past the end.
fn column(chars: &[char], col: usize) -> char {
    chars.get(col - 1).copied().unwrap_or(' ')
}

fn columns(chars: &[char], from: usize, to: usize) -> String {
    (from..=to)
        .map(|c| column(chars, c))
        .collect::<String>()
        .trim()
        .to_string()
}

/// [`columns`] in `buffer`, without allocating once the buffer holds a few characters.
fn columns_into<'b>(chars: &[char], from: usize, to: usize, buffer: &'b mut String) -> &'b str {
    buffer.clear();
    buffer.extend((from..=to).map(|c| column(chars, c)));
    buffer.trim()
}

fn parse_player(line_no: usize, line: &str) -> Result<(usize, Player, RawRecord), TrfError> {
    let chars: Vec<char> = line.chars().collect();
    if chars.len() < 8 {
        return Err(TrfError::ShortPlayerLine {
            line: line_no,
            len: chars.len(),
        });
    }
    let rank = number(line_no, "starting rank", &columns(&chars, 5, 8))?;
    // A control character (a tab, an escape sequence) is no part of a name: shown as U+FFFD,
    // never sent to a terminal or page as it is.
    let name: String = columns(&chars, 15, 47)
        .chars()
        .map(|c| if c.is_control() { '\u{FFFD}' } else { c })
        .collect();
    let rating_text = columns(&chars, 49, 52);
    let rating = if rating_text.is_empty() {
        0
    } else {
        number(line_no, "rating", &rating_text)?
    };
    let mut raw = Vec::with_capacity(chars.len().saturating_sub(91).div_ceil(10));
    let mut start = 92;
    // One buffer for every round's opponent, not a string a round.
    let mut buffer = String::new();
    while start <= chars.len() {
        let opp_text = columns_into(&chars, start, start + 3, &mut buffer);
        let colour = column(&chars, start + 5);
        let result = column(&chars, start + 7);
        let opponent = if opp_text.is_empty() {
            0
        } else {
            number(line_no, "opponent", opp_text)?
        };
        raw.push(RawEntry {
            opponent,
            colour,
            result,
        });
        start += 10;
    }
    // A score of 100 points or more spills left of column 81 (this writer, as others, moves it
    // left rather than shift the rounds); some programs write a decimal comma (`4,5`).
    let mut from = 81;
    while from > 71 && matches!(column(&chars, from - 1), '0'..='9' | '.' | ',') {
        from -= 1;
    }
    let points_text = columns(&chars, from, 84).replace(',', ".");
    let points = if points_text.is_empty() {
        None
    } else {
        Some(points_column(line_no, &points_text)?)
    };
    let mut player = Player::new(StartRank(rank), name, rating);
    player.entries.reserve(raw.len());
    Ok((line_no, player, RawRecord { points, cells: raw }))
}

/// The most players a TRF file can hold: a starting rank, and each round's opponent, has four
/// columns (bbpPairings stops at the same number).
pub const MAX_PLAYERS: usize = 9_999;
