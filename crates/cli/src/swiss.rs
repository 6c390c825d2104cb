//! `hanniball swiss ...`: the pairing engine on TRF files, as FIDE pairing programs are used.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::Subcommand;
use hanniball_pairing::tiebreak::TieBreak;
use hanniball_pairing::{
    DutchOptions, Tournament, check, format_pairing, pair_next_round, recheck, trf,
};

/// Exit code when the tournament cannot be paired or breaks the rules.
const REFUSED: u8 = 1;
/// Exit code when the file cannot be read or is not a valid TRF.
const MALFORMED: u8 = 2;

#[derive(Debug, Subcommand)]
pub enum SwissCommand {
    /// Pair the next round (FIDE Dutch) of the tournament in a TRF file (XXR: total rounds, XXC:
    /// initial colour). Prints the number of pairs, then `white black` per board by starting
    /// rank, the pairing-allocated bye as `<rank> 0`. Exit 1 when the round cannot be paired.
    Pair {
        /// The TRF file (`-` for standard input).
        file: PathBuf,
    },
    /// Check every round of a TRF file against the FIDE absolute pairing criteria (no rematch,
    /// at most one bye, colour limits). Exit 1 and one line per violation when any is broken.
    /// With `--strict`, also re-pair every round from the state before it and report the first
    /// round whose pairing (pairs, colours, bye) is not the Dutch engine's (bbpPairings `-c`).
    Check {
        /// The TRF file (`-` for standard input).
        file: PathBuf,
        /// Also require every round to be exactly the engine's pairing.
        #[arg(long)]
        strict: bool,
    },
    /// Standings of a TRF file with tie-breaks.
    Standings {
        /// The TRF file (`-` for standard input).
        file: PathBuf,
        /// Tie-breaks in order, FIDE acronyms: BH, BH-C1, SB, PS, DE, WIN, WON, TPR.
        #[arg(long, value_delimiter = ',', default_value = "BH-C1,BH,SB")]
        tiebreaks: Vec<TieBreak>,
    },
}

fn fail(code: u8, message: &str) -> ExitCode {
    eprintln!("error: {message}");
    ExitCode::from(code)
}

fn load(file: &PathBuf) -> Result<Tournament, ExitCode> {
    let text = if file.as_os_str() == "-" {
        std::io::read_to_string(std::io::stdin())
    } else {
        std::fs::read_to_string(file)
    }
    .map_err(|error| {
        fail(
            MALFORMED,
            &format!("cannot read {}: {error}", file.display()),
        )
    })?;
    let (tournament, notes) = trf::parse_with_notes(&text)
        .map_err(|error| fail(MALFORMED, &format!("{}: {error}", file.display())))?;
    for note in notes {
        tracing::debug!(?note, "TRF line ignored");
    }
    Ok(tournament)
}

pub fn run(command: SwissCommand) -> ExitCode {
    match command {
        SwissCommand::Pair { file } => {
            let tournament = match load(&file) {
                Ok(t) => t,
                Err(code) => return code,
            };
            match pair_next_round(&tournament, &DutchOptions::for_tournament(&tournament)) {
                Ok(pairing) => {
                    print!("{}", format_pairing(&pairing));
                    ExitCode::SUCCESS
                }
                Err(error) => fail(REFUSED, &error.to_string()),
            }
        }
        SwissCommand::Check { file, strict } => {
            let tournament = match load(&file) {
                Ok(t) => t,
                Err(code) => return code,
            };
            let violations = check(&tournament);
            if violations.is_empty() && strict {
                return match recheck(&tournament, &DutchOptions::for_tournament(&tournament)) {
                    Ok(()) => {
                        println!(
                            "ok: {} rounds of {} players, every round is the Dutch engine's pairing",
                            tournament.rounds_paired(),
                            tournament.players.len()
                        );
                        ExitCode::SUCCESS
                    }
                    Err(mismatch) => {
                        println!("{mismatch}");
                        ExitCode::from(REFUSED)
                    }
                };
            }
            if violations.is_empty() {
                println!(
                    "ok: {} rounds of {} players, no violation of the absolute criteria",
                    tournament.rounds_paired(),
                    tournament.players.len()
                );
                ExitCode::SUCCESS
            } else {
                for violation in &violations {
                    println!("{violation}");
                }
                ExitCode::from(REFUSED)
            }
        }
        SwissCommand::Standings { file, tiebreaks } => {
            let tournament = match load(&file) {
                Ok(t) => t,
                Err(code) => return code,
            };
            let rounds = tournament.rounds_paired();
            match hanniball_pairing::standings::standings(&tournament, rounds, &tiebreaks) {
                Ok(table) => {
                    print!("{}", standings_table(&tournament, &table, &tiebreaks));
                    ExitCode::SUCCESS
                }
                Err(error) => fail(REFUSED, &error.to_string()),
            }
        }
    }
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
        let player = tournament.player(hanniball_pairing::PlayerId(standing.player.0));
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
