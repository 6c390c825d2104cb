//! `hanniball swiss ...`: the pairing engine on TRF files, as FIDE pairing programs are used.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Args, Subcommand};
use hanniball_pairing::tiebreak::{self, Options, Rules, TieBreak, Unrated};
use hanniball_pairing::trf::{Encoding, ReadOptions, TrfFile};
use hanniball_pairing::{
    DutchOptions, Tournament, check, format_pairing, pair_next_round, recheck, trf,
};

/// Exit code when the tournament cannot be paired or breaks the rules.
const REFUSED: u8 = 1;
/// Exit code when the file cannot be read or is not a valid TRF.
const MALFORMED: u8 = 2;

/// How to read the TRF file.
#[derive(Debug, Args)]
pub struct TrfInput {
    /// The TRF file (`-` for standard input).
    file: PathBuf,
    /// The file's character encoding (utf-8, utf-16le, utf-16be, latin-1, windows-1252);
    /// detected when not given: UTF-8 (with or without BOM), else Windows-1252, with a note.
    #[arg(long)]
    encoding: Option<Encoding>,
    /// Score every player by the results when the points column disagrees with them (by
    /// default such a file is refused, naming the players and a point system that explains it).
    #[arg(long)]
    recompute_points: bool,
    /// `H`: read an unpaired round (`0000 -` with a blank result, or Z) as a half-point bye
    /// where the player's points column counts it so (how some programs write requested byes).
    #[arg(long, value_name = "H", value_parser = ["H"])]
    blank_as: Option<String>,
}

#[derive(Debug, Subcommand)]
pub enum SwissCommand {
    /// Pair the next round (FIDE Dutch) of the tournament in a TRF file (XXR: total rounds, XXC:
    /// initial colour). Prints the number of pairs, then `white black` per board by starting
    /// rank, the pairing-allocated bye as `<rank> 0`. Exit 1 when the round cannot be paired
    /// (or the last round has games without results).
    Pair {
        #[command(flatten)]
        input: TrfInput,
    },
    /// Check every round of a TRF file against the FIDE absolute pairing criteria (no rematch,
    /// at most one bye, colour limits), a round paired without results included. Exit 1 and one
    /// line per violation when any is broken. With `--strict`, also re-pair every round from the
    /// file's history before it and list every round whose pairing (pairs, colours, bye) is not
    /// the Dutch engine's, then a summary line (as bbpPairings `-c` names rounds).
    Check {
        #[command(flatten)]
        input: TrfInput,
        /// Also require every round to be exactly the engine's pairing.
        #[arg(long)]
        strict: bool,
    },
    /// Standings of a TRF file with FIDE tie-breaks (C.07), in the file's point system (`162`).
    Standings {
        #[command(flatten)]
        input: TrfInput,
        /// Tie-breaks in order, FIDE acronyms: DE, WIN, WON, STD, BPG, BWG, PS, REP, BH, FB, AOB,
        /// SB, KS, ARO, TPR, APRO, PTP, APPO, VUR, RTNG, TPN; cuts as BH-C1, BH-C2, BH-M1, SB-C1,
        /// ARO-C1.
        #[arg(long, value_delimiter = ',', default_value = "BH-C1,BH,SB")]
        tiebreaks: Vec<TieBreak>,
        /// Which C.07 text: 2024 or 2026. Default: 2026 for events starting from 1 March 2026
        /// (the file's `042` start date, today's date without one), 2024 before.
        #[arg(long)]
        rules: Option<Rules>,
        /// Unrated players in rating-based tie-breaks (ARO, TPR, PTP, APRO, APPO, RTNG): `drop`
        /// (FIDE: no values when anyone is unrated), `ignore` (rated opponents only) or a rating
        /// given to every unrated player.
        #[arg(long, default_value = "drop")]
        unrated: Unrated,
    },
}

fn fail(code: u8, message: &str) -> ExitCode {
    eprintln!("error: {message}");
    ExitCode::from(code)
}

fn load(input: &TrfInput) -> Result<TrfFile, ExitCode> {
    let file = &input.file;
    let bytes = if file.as_os_str() == "-" {
        let mut bytes = Vec::new();
        std::io::Read::read_to_end(&mut std::io::stdin(), &mut bytes).map(|_| bytes)
    } else {
        std::fs::read(file)
    }
    .map_err(|error| {
        fail(
            MALFORMED,
            &format!("cannot read {}: {error}", file.display()),
        )
    })?;
    let options = ReadOptions {
        encoding: input.encoding,
        recompute_points: input.recompute_points,
        blank_as_half_point_bye: input.blank_as.is_some(),
    };
    let read = trf::read(&bytes, &options).map_err(|error| {
        let hint = match error {
            trf::TrfError::PointsDisagree { .. } => " (--recompute-points scores by the results)",
            trf::TrfError::NotInEncoding { .. } => " (--encoding names it)",
            _ => "",
        };
        fail(MALFORMED, &format!("{}: {error}{hint}", file.display()))
    })?;
    for note in &read.notes {
        // Lines a program wrote for itself are many and harmless; what changes the reading
        // (the encoding, recomputed points) is said.
        if note.line == 0 {
            eprintln!("note: {}: {}", file.display(), note.text);
        } else {
            tracing::debug!(?note, "TRF line ignored");
        }
    }
    Ok(read)
}

pub fn run(command: SwissCommand) -> ExitCode {
    match command {
        SwissCommand::Pair { input } => {
            let read = match load(&input) {
                Ok(t) => t,
                Err(code) => return code,
            };
            let tournament = match read.finished() {
                Ok(t) => t,
                Err(error) => return fail(REFUSED, &error.to_string()),
            };
            match pair_next_round(&tournament, &DutchOptions::for_tournament(&tournament)) {
                Ok(pairing) => {
                    print!("{}", format_pairing(&pairing));
                    ExitCode::SUCCESS
                }
                Err(error) => fail(REFUSED, &error.to_string()),
            }
        }
        SwissCommand::Check { input, strict } => {
            let read = match load(&input) {
                Ok(t) => t,
                Err(code) => return code,
            };
            check_command(&read, strict)
        }
        SwissCommand::Standings {
            input,
            tiebreaks,
            rules,
            unrated,
        } => {
            let read = match load(&input) {
                Ok(t) => t,
                Err(code) => return code,
            };
            let tournament = &read.tournament;
            let rounds = match &read.unfinished {
                Some(u) => {
                    eprintln!(
                        "note: round {} has games without results: standings after round {}",
                        u.round,
                        u.round - 1
                    );
                    u.round - 1
                }
                None => tournament.rounds_paired(),
            };
            let start = tournament.info.start_date.as_deref();
            let rules = match (rules, start) {
                (Some(rules), _) => rules,
                (None, Some(text)) => match tiebreak::parse_date(text) {
                    Some(date) => Rules::for_start(date),
                    None => {
                        return fail(
                            MALFORMED,
                            &format!(
                                "{}: start date {text:?} (042) is not a date; give --rules 2024 or 2026",
                                input.file.display()
                            ),
                        );
                    }
                },
                (None, None) => Rules::for_start(today()),
            };
            let options = Options { rules, unrated };
            match hanniball_pairing::standings::standings(tournament, rounds, &tiebreaks, &options)
            {
                Ok(table) => {
                    print!("{}", standings_table(tournament, &table, &tiebreaks));
                    println!(
                        "tie-breaks: FIDE C.07, {rules} text; unrated players: {unrated}; points W {} D {} L {} PAB {}",
                        hanniball_pairing::Score(tournament.points.win),
                        hanniball_pairing::Score(tournament.points.draw),
                        hanniball_pairing::Score(tournament.points.loss),
                        hanniball_pairing::Score(tournament.points.pab),
                    );
                    ExitCode::SUCCESS
                }
                Err(error) => fail(REFUSED, &error.to_string()),
            }
        }
    }
}

/// `swiss check`: every breach of the absolute criteria, then (strict) every round that is not
/// the Dutch engine's, then one summary line. Rounds paired without results are checked as
/// paired.
fn check_command(read: &TrfFile, strict: bool) -> ExitCode {
    let tournament = read.as_paired();
    let rounds = tournament.rounds_paired();
    let players = tournament.players.len();
    if let Some(u) = &read.unfinished {
        println!(
            "round {}: {} games without results yet; checked as paired",
            u.round,
            u.games.len()
        );
    }
    let violations = check(&tournament);
    for violation in &violations {
        println!("{violation}");
    }
    let mismatches = if strict {
        recheck(&tournament, &DutchOptions::for_tournament(&tournament))
    } else {
        Vec::new()
    };
    for mismatch in &mismatches {
        println!("{mismatch}");
    }
    let list = |rounds: &mut Vec<u32>| {
        rounds.dedup();
        rounds
            .iter()
            .map(ToString::to_string)
            .collect::<Vec<_>>()
            .join(", ")
    };
    let mut breached: Vec<u32> = violations.iter().map(|v| v.round()).collect();
    breached.sort_unstable();
    let mut differing: Vec<u32> = mismatches.iter().map(|m| m.round).collect();
    let mut summary = format!("{rounds} rounds of {players} players: ");
    if breached.is_empty() {
        summary.push_str("no breach of the absolute criteria");
    } else {
        let n = violations.len();
        summary.push_str(&format!(
            "{n} {} of the absolute criteria (rounds {})",
            if n == 1 { "breach" } else { "breaches" },
            list(&mut breached)
        ));
    }
    if strict {
        if differing.is_empty() {
            summary.push_str("; every round is the Dutch engine's pairing");
        } else {
            summary.push_str(&format!(
                "; {} of {rounds} rounds differ from the Dutch engine: {}",
                differing.len(),
                list(&mut differing)
            ));
        }
    }
    if violations.is_empty() && mismatches.is_empty() {
        println!("ok: {summary}");
        ExitCode::SUCCESS
    } else {
        println!("{summary}");
        ExitCode::from(REFUSED)
    }
}

/// Today's date (UTC), `(year, month, day)`.
fn today() -> (u32, u32, u32) {
    let secs = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    tiebreak::date_from_unix_days(secs / 86_400)
}

/// A standings table for a terminal.
pub fn standings_table(
    tournament: &Tournament,
    table: &[hanniball_pairing::tiebreak::Standing],
    tiebreaks: &[TieBreak],
) -> String {
    let mut rows = vec![{
        let mut header = vec![
            "rank".to_owned(),
            "no".to_owned(),
            "name".to_owned(),
            "rating".to_owned(),
            "points".to_owned(),
        ];
        header.extend(tiebreaks.iter().map(ToString::to_string));
        header
    }];
    for standing in table {
        let player = tournament.player(hanniball_pairing::StartRank(standing.player.0));
        let mut row = vec![
            standing.rank.to_string(),
            standing.player.0.to_string(),
            player.map_or_else(String::new, |p| p.name.clone()),
            player.map_or_else(String::new, |p| p.rating.to_string()),
            standing.points.to_string(),
        ];
        row.extend(standing.values.iter().map(ToString::to_string));
        rows.push(row);
    }
    crate::table::render(&rows)
}
