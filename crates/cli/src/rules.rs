//! `hanniball rules ...`: the rules engine on the command line, one position per call.

use std::process::ExitCode;

use clap::{Args, Subcommand};
use hanniball_rules::hanniball::Position;
use hanniball_rules::record::GameRecord;
use hanniball_rules::{Game, GameKind, GameOptions, TurnError};

/// Exit code for input the rules refuse.
const ILLEGAL: u8 = 1;
/// Exit code for input that is not valid notation.
const MALFORMED: u8 = 2;

#[derive(Debug, Subcommand)]
pub enum RulesCommand {
    /// Print every legal step from a position, one per line, in byte order.
    Steps(PositionArgs),
    /// Print `obstruction` and/or `clustering`: offences by the opponent of the side to move
    /// (HanniBall only).
    Offences(PositionArgs),
    /// Play a whole turn; print the resulting position, then the result if the game ended.
    Play {
        #[command(flatten)]
        at: PositionArgs,
        /// The turn: steps separated by single spaces, e.g. "d4-c6 f4-e6".
        #[arg(long, allow_hyphen_values = true)]
        turn: String,
    },
    /// Draw a position as a board on the terminal.
    Show(PositionArgs),
    /// Replay a game record (`hanniball game export`; "-" reads standard input) through the
    /// rules: print the final position and the result, or the first turn that is not legal.
    Replay {
        /// The record file.
        file: std::path::PathBuf,
    },
}

#[derive(Debug, Args)]
pub struct PositionArgs {
    /// The game: hanniball or paper-football.
    #[arg(long, default_value = "hanniball")]
    game: GameKind,
    /// The position in the game's notation (HanniBall: RULES.md 1.11; paper football: the steps
    /// since the start, empty for the initial position).
    #[arg(long, allow_hyphen_values = true)]
    position: String,
    /// The game's turn limit (HanniBall; default 300).
    #[arg(long)]
    max_turns: Option<u32>,
}

impl PositionArgs {
    fn load(&self) -> Result<Box<dyn Game>, ExitCode> {
        let options = GameOptions {
            ruleset: None,
            max_turns: self.max_turns,
        };
        self.game
            .load(&self.position, &options)
            .map_err(|error| fail(MALFORMED, &error.to_string()))
    }
}

fn fail(code: u8, message: &str) -> ExitCode {
    eprintln!("error: {message}");
    ExitCode::from(code)
}

/// Runs one `rules` command and returns the process exit code.
pub fn run(command: RulesCommand) -> ExitCode {
    match run_inner(command) {
        Ok(()) => ExitCode::SUCCESS,
        Err(code) => code,
    }
}

fn run_inner(command: RulesCommand) -> Result<(), ExitCode> {
    match command {
        RulesCommand::Steps(at) => {
            let game = at.load()?;
            let mut out = String::new();
            for step in game.legal_steps() {
                out.push_str(&step);
                out.push('\n');
            }
            print!("{out}");
        }
        RulesCommand::Offences(at) => {
            if at.game != GameKind::HanniBall {
                return Err(fail(
                    MALFORMED,
                    &format!("offences exist only in hanniball, not in {}", at.game),
                ));
            }
            let position = Position::from_notation(&at.position)
                .map_err(|error| fail(MALFORMED, &format!("malformed position: {error}")))?;
            for name in position.offences().names() {
                println!("{name}");
            }
        }
        RulesCommand::Play { at, turn } => {
            let game = at.load()?;
            let next = game.play_turn(&turn).map_err(|error| match error {
                TurnError::Malformed(_) => fail(MALFORMED, &error.to_string()),
                TurnError::Illegal(_) => fail(ILLEGAL, &error.to_string()),
            })?;
            println!("{}", next.position());
            if let Some(result) = next.result() {
                println!("{result}");
            }
        }
        RulesCommand::Show(at) => {
            let game = at.load()?;
            print!("{}", game.render());
        }
        RulesCommand::Replay { file } => {
            let text = if file.as_os_str() == "-" {
                std::io::read_to_string(std::io::stdin())
            } else {
                std::fs::read_to_string(&file)
            }
            .map_err(|error| {
                fail(
                    MALFORMED,
                    &format!("cannot read {}: {error}", file.display()),
                )
            })?;
            let record = GameRecord::parse(&text)
                .map_err(|error| fail(MALFORMED, &format!("{}: {error}", file.display())))?;
            let replay = record
                .replay()
                .map_err(|error| fail(ILLEGAL, &format!("{}: {error}", file.display())))?;
            println!("{}", replay.game.position());
            match (replay.result, &record.result) {
                (Some(result), _) => println!("{result}"),
                (None, Some(score)) => println!(
                    "{score} {}",
                    record.tag("Reason").unwrap_or("(not by the rules)")
                ),
                (None, None) => println!("* (not over)"),
            }
        }
    }
    Ok(())
}
