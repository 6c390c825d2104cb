//! The `hanniball` binary. Only glue: argument parsing, printing and exit codes; the rules live in
//! `hanniball-rules`.
//!
//! Exit codes: 0 success; 1 the input was well formed but refused by the rules (an illegal turn);
//! 2 malformed input (bad arguments, notation that does not parse).

mod rules;

use std::process::ExitCode;

use clap::{Parser, Subcommand};

/// HanniBall tournament and matchmaking backend.
#[derive(Debug, Parser)]
#[command(name = "hanniball", version, about)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Ask the rules engine: legal steps, offences, play a turn, show a position.
    #[command(subcommand)]
    Rules(rules::RulesCommand),
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    match cli.command {
        Command::Rules(command) => rules::run(command),
    }
}
