//! `hanniball swiss ...`: the pairing engine on TRF files, as FIDE pairing programs are used.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::Subcommand;
use hanniball_pairing::tiebreak::{self, Options, Rules, TieBreak, Unrated};
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
    /// Standings of a TRF file with FIDE tie-breaks (C.07), in the file's point system (`162`).
    Standings {
        /// The TRF file (`-` for standard input).
        file: PathBuf,
        /// Tie-breaks in order, FIDE acronyms: DE, WIN, WON, BPG, BWG, PS, REP, BH, FB, AOB, SB,
        /// KS, ARO, TPR, APRO, PTP, APPO, VUR, RTNG, TPN; cuts as BH-C1, BH-C2, BH-M1, SB-C1,
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
        SwissCommand::Standings {
            file,
            tiebreaks,
            rules,
            unrated,
        } => {
            let tournament = match load(&file) {
                Ok(t) => t,
                Err(code) => return code,
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
                                file.display()
                            ),
                        );
                    }
                },
                (None, None) => Rules::for_start(today()),
            };
            let options = Options { rules, unrated };
            let rounds = tournament.rounds_paired();
            match hanniball_pairing::standings::standings(&tournament, rounds, &tiebreaks, &options)
            {
                Ok(table) => {
                    print!("{}", standings_table(&tournament, &table, &tiebreaks));
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
