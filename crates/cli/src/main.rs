//! The `hanniball` binary. Only glue: argument parsing, logging and configuration set-up,
//! printing and exit codes; everything else lives in the library crates.
//!
//! Exit codes: 0 success; 1 refused (an illegal turn, a failed call); 2 malformed input (bad
//! arguments, notation that does not parse).

mod bot;
mod bot_report;
mod client;
#[cfg(feature = "server")]
mod demo;
mod ratings;
#[cfg(feature = "server")]
mod ratings_demo;
mod rules;
#[cfg(feature = "server")]
mod serve;
mod settings;
mod swiss;
mod table;
mod tournament;

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
    /// Run the backend (arbiter, rating, scheduler; or one with --only) on the configured database;
    /// SQLite by default.
    #[cfg(feature = "server")]
    Serve(serve::ServeArgs),
    /// Players and tokens (admin).
    Player {
        #[command(flatten)]
        connection: client::Connection,
        #[command(subcommand)]
        command: client::PlayerCommand,
    },
    /// Games: create, show, play, watch.
    Game {
        #[command(flatten)]
        connection: client::Connection,
        #[command(subcommand)]
        command: client::GameCommand,
    },
    /// Ask the rules engine: legal steps, offences, play a turn, show a position.
    #[command(subcommand)]
    Rules(rules::RulesCommand),
    /// Apply the database migrations and exit (deployments run this once before the services).
    #[cfg(feature = "server")]
    Migrate(serve::MigrateArgs),
    /// Try the whole system: services, reference bots, a Swiss tournament, ratings.
    #[cfg(feature = "server")]
    Demo(demo::DemoArgs),
    /// Run a reference bot against a server.
    Bot {
        #[command(flatten)]
        connection: client::Connection,
        #[command(subcommand)]
        command: BotCommand,
    },
    /// Swiss pairing on TRF files: pair the next round, check rounds, standings.
    #[command(subcommand)]
    Swiss(swiss::SwissCommand),
    /// Tournaments: create, add players, start, pairings, standings, TRF export.
    Tournament {
        #[command(flatten)]
        connection: client::Connection,
        #[command(subcommand)]
        command: tournament::TournamentCommand,
    },
    /// Ratings: the leaderboard, a player's rating and history; adjustments and rebuilds (admin).
    Ratings {
        #[command(flatten)]
        connection: client::Connection,
        #[command(flatten)]
        args: ratings::RatingsArgs,
        #[command(subcommand)]
        command: ratings::RatingsCommand,
    },
}

#[derive(Debug, Subcommand)]
enum BotCommand {
    /// Play every game given to the bot (tournaments) and, with --queue, games from the queue.
    Run(bot::BotArgs),
}

/// mimalloc instead of the system allocator: the services allocate small buffers on every call
/// from many threads, where it is markedly cheaper (see ARCHITECTURE.md, performance).
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// Exit code of a command whose reader went away (`hanniball game list | head -4`), as a
/// program killed by `SIGPIPE` exits in a shell (128 + 13).
const CLOSED_PIPE: i32 = 141;

/// A closed stdout is the reader's choice, not a bug: `println!` panics on it, so the panic hook
/// ends the process quietly with [`CLOSED_PIPE`] instead of printing a panic; every other panic
/// is reported as before.
fn quiet_on_closed_pipe() {
    let default = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        let message = info
            .payload()
            .downcast_ref::<String>()
            .map(String::as_str)
            .or_else(|| info.payload().downcast_ref::<&str>().copied())
            .unwrap_or_default();
        if message.starts_with("failed printing to stdout") && message.contains("Broken pipe") {
            std::process::exit(CLOSED_PIPE);
        }
        default(info);
    }));
}

fn main() -> ExitCode {
    quiet_on_closed_pipe();
    let cli = Cli::parse();
    let command = match cli.command {
        Command::Rules(command) => return rules::run(command),
        Command::Swiss(command) => return swiss::run(command),
        other => other,
    };
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
    {
        Ok(runtime) => runtime,
        Err(error) => {
            eprintln!("error: cannot start the async runtime: {error}");
            return ExitCode::FAILURE;
        }
    };
    let result = runtime.block_on(async move {
        match command {
            #[cfg(feature = "server")]
            Command::Serve(args) => serve::run(args).await,
            Command::Player {
                connection,
                command,
            } => client::player(connection, command).await,
            Command::Game {
                connection,
                command,
            } => client::game(connection, command).await,
            #[cfg(feature = "server")]
            Command::Demo(args) => demo::run(args).await,
            #[cfg(feature = "server")]
            Command::Migrate(args) => serve::migrate(args).await,
            Command::Bot {
                connection,
                command: BotCommand::Run(args),
            } => bot::run(connection, args).await,
            Command::Tournament {
                connection,
                command,
            } => tournament::run(connection, command).await,
            Command::Ratings {
                connection,
                args,
                command,
            } => ratings::run(connection, args, command).await,
            Command::Rules(_) | Command::Swiss(_) => unreachable!("handled above"),
        }
    });
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("error: {error:#}");
            ExitCode::FAILURE
        }
    }
}
