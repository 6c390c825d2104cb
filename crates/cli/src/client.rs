//! Client commands for people: register players, create games, show them as boards, play turns.

use std::path::PathBuf;

use anyhow::{Context, Result, bail};
use clap::{Args, Subcommand};
use hanniball_client::Bearer;
use hanniball_proto::accounts::v1 as apb;
use hanniball_proto::accounts::v1::accounts_client::AccountsClient;
use hanniball_proto::arbiter::v1 as pb;
use hanniball_proto::arbiter::v1::arbiter_client::ArbiterClient;
use hanniball_rules::record::GameRecord;
use tokio_stream::StreamExt;
use tonic::Status;
use tonic::service::interceptor::InterceptedService;
use tonic::transport::Channel;

use crate::settings::Settings;

/// How to reach the server.
#[derive(Debug, Args)]
pub struct Connection {
    /// Server URL; several, separated by commas, to balance every call over replicas.
    #[arg(
        long,
        env = "HANNIBALL_SERVER",
        default_value = "http://127.0.0.1:50051",
        global = true
    )]
    pub(crate) server: String,
    /// Bearer token (default: the admin token `hanniball serve` generated in ./hanniball-data).
    #[arg(long, env = "HANNIBALL_TOKEN", global = true, hide_env_values = true)]
    pub(crate) token: Option<String>,
    /// For an https:// server: trust this CA certificate (PEM) instead of the system's roots.
    #[arg(long, env = "HANNIBALL_CA_CERT", global = true, value_name = "FILE")]
    pub(crate) ca_cert: Option<PathBuf>,
    /// For an https:// server that requires one: present this client certificate (PEM).
    #[arg(
        long,
        env = "HANNIBALL_CLIENT_CERT",
        global = true,
        value_name = "FILE"
    )]
    pub(crate) client_cert: Option<PathBuf>,
    /// The key of --client-cert (PEM).
    #[arg(long, env = "HANNIBALL_CLIENT_KEY", global = true, value_name = "FILE")]
    pub(crate) client_key: Option<PathBuf>,
}

impl Connection {
    /// The TLS settings of this connection; an error when they are given for a plain URL
    /// (the user meant TLS, and would get plain text).
    pub(crate) fn tls(&self) -> Result<hanniball_client::ClientTls> {
        let tls = hanniball_client::ClientTls {
            ca: self.ca_cert.clone(),
            cert: self.client_cert.clone(),
            key: self.client_key.clone(),
        };
        if !tls.is_default() && !self.server.starts_with("https://") {
            anyhow::bail!(
                "--ca-cert/--client-cert are for TLS, but the server URL {} is not https://",
                self.server
            );
        }
        Ok(tls)
    }
}

#[derive(Debug, Subcommand)]
pub enum PlayerCommand {
    /// Register a player and print a first token.
    Register {
        name: String,
        /// The player is a bot.
        #[arg(long)]
        bot: bool,
    },
    /// Issue another token for a player (the admin), or for yourself (`me`, with a player
    /// token that holds the `tokens` scope).
    Token {
        name: String,
        /// Limit the token to these scopes (play, queue, read, tokens; repeat or separate with
        /// commas); default: all four (the admin), or the calling token's (a player).
        #[arg(long = "scope", value_delimiter = ',')]
        scopes: Vec<String>,
        /// Seconds until the token expires (default: never).
        #[arg(long)]
        expires_in: Option<i64>,
    },
    /// Revoke a token by id (a player: its own only).
    Revoke { token_id: i64 },
    /// List a player's tokens (default `me`: the calling player's own): ids, scopes, times.
    Tokens {
        #[arg(default_value = "me")]
        name: String,
    },
    /// List players.
    List,
    /// Find players by words of their names, case ignored in any script (a `read` token is
    /// enough): the exact name first, then by name.
    Search {
        /// Words that must all occur in the name (`ünal`, `nguyễn an`).
        #[arg(required = true, num_args = 1..)]
        query: Vec<String>,
        /// At most this many players (at most 200).
        #[arg(long, default_value_t = 50)]
        limit: u32,
    },
    /// Who the token belongs to.
    Whoami,
    /// Grant or take away the organiser right (admin): an organiser creates tournaments and
    /// runs its own, from the CLI or the pages' console.
    Organiser {
        name: String,
        /// Grant the right.
        #[arg(long, conflicts_with = "revoke", required_unless_present = "revoke")]
        grant: bool,
        /// Take it away (the player's tokens and sessions lose `organise` at once).
        #[arg(long)]
        revoke: bool,
    },
    /// Set a player's password for the pages' sign-in, read from the first line of standard
    /// input: the admin for anyone; a player for itself (`me`), the current password on the
    /// second line if one is set.
    Password {
        #[arg(default_value = "me")]
        name: String,
    },
}

#[derive(Debug, Subcommand)]
pub enum GameCommand {
    /// Create a game (admin).
    Create {
        #[arg(long)]
        white: String,
        #[arg(long)]
        black: String,
        /// hanniball or paper-football.
        #[arg(long, default_value = "hanniball")]
        game: String,
        #[arg(long, default_value = "")]
        ruleset: String,
        /// Fischer time control in seconds, `initial+increment` (e.g. 300+5); none: untimed.
        #[arg(long)]
        time: Option<String>,
        #[arg(long)]
        rated: bool,
        #[arg(long, default_value_t = 0)]
        max_turns: u32,
    },
    /// Show a game: the board, clocks, status and the last turns.
    Show { id: i64 },
    /// Play a turn in a game (the next turn number is looked up).
    Play {
        id: i64,
        /// The turn, e.g. "d4-c6 f4-e6".
        #[arg(allow_hyphen_values = true)]
        turn: String,
    },
    /// Legal steps for the side to move, at the start of the turn or after some of its steps.
    Steps {
        id: i64,
        /// The steps already chosen this turn, e.g. "d4-c6".
        #[arg(long, default_value = "", allow_hyphen_values = true)]
        after: String,
    },
    /// List games.
    List {
        #[arg(long)]
        player: Option<String>,
        /// active, finished or aborted.
        #[arg(long)]
        status: Option<String>,
    },
    /// Resign a game.
    Resign { id: i64 },
    /// Follow a game as it is played.
    Watch { id: i64 },
    /// Print a game's record (tags, numbered turns, result; docs/RULES.md "Game records"), which
    /// `hanniball rules replay` checks.
    Export {
        id: i64,
        /// Write it to this file instead of standard output.
        #[arg(long, short)]
        output: Option<std::path::PathBuf>,
    },
}

struct Clients {
    arbiter: ArbiterClient<InterceptedService<Channel, Bearer>>,
    accounts: Accounts,
}

/// A connected channel to the server and the interceptor sending the chosen token: `--token`, or
/// the admin token `hanniball serve` generated (other command groups use it too).
pub(crate) async fn channel(connection: &Connection) -> Result<(Channel, Bearer)> {
    let token = match &connection.token {
        Some(token) => token.clone(),
        None => {
            let path: PathBuf = Settings::load(None)
                .map(|s| s.admin_token_file())
                .unwrap_or_else(|_| PathBuf::from("hanniball-data/admin-token"));
            std::fs::read_to_string(&path)
                .map(|t| t.trim().to_owned())
                .with_context(|| {
                    format!(
                        "no --token given and no admin token at {} (is `hanniball serve` running here?)",
                        path.display()
                    )
                })?
        }
    };
    let tls = connection.tls()?;
    let server = server_urls(&connection.server);
    let channel = if server.contains(',') {
        // Several replicas: every call balanced over them.
        hanniball_client::connect_with(&server, &tls)?
    } else {
        hanniball_client::endpoint(&server, &tls)?
            .connect()
            .await
            .map_err(|error| unreachable(&server, &error))?
    };
    Ok((channel, Bearer::new(&token)))
}

/// The server addresses as URLs: `127.0.0.1:50051` is taken as `http://127.0.0.1:50051` (each of
/// several, separated by commas).
pub(crate) fn server_urls(text: &str) -> String {
    text.split(',')
        .map(str::trim)
        .map(|part| {
            if part.contains("://") {
                part.to_owned()
            } else {
                format!("http://{part}")
            }
        })
        .collect::<Vec<_>>()
        .join(",")
}

/// A server that cannot be reached, said once, with the innermost reason and what to check.
fn unreachable(server: &str, error: &(dyn std::error::Error + 'static)) -> anyhow::Error {
    let mut reason = error.to_string();
    let mut source = error.source();
    while let Some(inner) = source {
        reason = inner.to_string();
        source = inner.source();
    }
    anyhow::anyhow!(
        "cannot reach the server at {server} ({reason}): is `hanniball serve` running there? \
         (--server or HANNIBALL_SERVER names another)"
    )
}

async fn connect(connection: &Connection) -> Result<Clients> {
    let (channel, bearer) = channel(connection).await?;
    Ok(Clients {
        arbiter: ArbiterClient::with_interceptor(channel.clone(), bearer.clone()),
        accounts: AccountsClient::with_interceptor(channel, bearer),
    })
}

pub(crate) fn rpc(status: Status) -> anyhow::Error {
    anyhow::anyhow!("{:?}: {}", status.code(), status.message())
}

/// The Accounts client of a connection.
pub(crate) type Accounts = AccountsClient<InterceptedService<Channel, Bearer>>;

/// A player's id from their name (the Accounts service resolves it). The name is looked up as
/// it is stored (trimmed, in Unicode NFC: `hanniball_names`), so `Müller` typed with a
/// combining accent, or with a space around it, finds the player.
pub(crate) async fn player_by_name(accounts: &mut Accounts, name: &str) -> Result<i64> {
    let stored = hanniball_names::player_name(name).unwrap_or_else(|_| name.to_owned());
    let request = apb::GetPlayerRequest {
        player: Some(apb::get_player_request::Player::Name(stored)),
    };
    let player = match accounts.get_player(request).await {
        Ok(answer) => answer.into_inner().player,
        Err(status) if status.code() == tonic::Code::NotFound => {
            anyhow::bail!(
                "no player named {}: `hanniball player search {}` finds players by part of \
                 their names",
                quoted(name),
                quoted(name)
            )
        }
        Err(status) => return Err(rpc(status)),
    };
    Ok(player.context("no player in the answer")?.id)
}

/// User input as it may be shown in a message: quoted, control characters escaped, at most 64
/// characters.
pub(crate) fn quoted(text: &str) -> String {
    let mut shown: String = text.chars().take(64).collect();
    if shown.len() < text.len() {
        shown.push('…');
    }
    format!("{shown:?}")
}

pub(crate) fn parse_time(text: &str) -> Result<pb::TimeControl> {
    let (initial, increment) = text.split_once('+').unwrap_or((text, "0"));
    let seconds = |s: &str| -> Result<i64> {
        match s.trim().parse::<f64>() {
            Ok(value) if value.is_finite() && value >= 0.0 => Ok((value * 1000.0).round() as i64),
            _ => anyhow::bail!(
                "time control {}: write it in seconds as INITIAL+INCREMENT, e.g. 300+5 (five \
                 minutes and five seconds a turn) or 600+0.5",
                quoted(text)
            ),
        }
    };
    Ok(pb::TimeControl {
        initial_ms: seconds(initial)?,
        increment_ms: seconds(increment)?,
    })
}

fn side(value: i32) -> &'static str {
    match pb::Side::try_from(value) {
        Ok(pb::Side::White) => "white",
        Ok(pb::Side::Black) => "black",
        _ => "-",
    }
}

fn clock(ms: i64) -> String {
    format!(
        "{}:{:02}.{}",
        ms / 60_000,
        (ms / 1000) % 60,
        (ms % 1000) / 100
    )
}

/// A player's name for a listing (its id when Accounts does not say).
async fn listed_name(
    clients: &mut Clients,
    id: i64,
    cache: &mut std::collections::HashMap<i64, String>,
) -> String {
    if let Some(name) = cache.get(&id) {
        return name.clone();
    }
    let name = clients
        .accounts
        .get_player(apb::GetPlayerRequest {
            player: Some(apb::get_player_request::Player::Id(id)),
        })
        .await
        .ok()
        .and_then(|r| r.into_inner().player)
        .map_or_else(|| format!("player {id}"), |p| p.name);
    cache.insert(id, name.clone());
    name
}

/// A game for the terminal, its players by name.
async fn print_game(clients: &mut Clients, game: &pb::Game) {
    let mut names = std::collections::HashMap::new();
    let white = listed_name(clients, game.white_player_id, &mut names).await;
    let black = listed_name(clients, game.black_player_id, &mut names).await;
    show_game(game, &white, &black);
}

fn show_game(game: &pb::Game, white: &str, black: &str) {
    let Some(state) = &game.state else { return };
    println!(
        "game {} · {} ({}) · white {white} vs black {black}{}",
        game.id,
        game.kind,
        game.ruleset,
        if game.rated { " · rated" } else { "" }
    );
    print!("{}", state.board);
    if !state.board.ends_with('\n') {
        println!();
    }
    if let (Some(_), Some(clocks)) = (&game.time_control, &state.clocks) {
        let now = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_millis() as i64);
        let (white_ms, black_ms) = clocks_at(clocks, now);
        println!(
            "clocks: white {} · black {}",
            clock(white_ms),
            clock(black_ms)
        );
    }
    match &state.result {
        Some(result) => println!("game over: {}", result.summary),
        None => println!(
            "{} to move, turn {}{}",
            side(state.side_to_move),
            state.next_turn_number,
            if state.notices.is_empty() {
                String::new()
            } else {
                format!(" (penalty removal available: {})", state.notices.join(", "))
            }
        ),
    }
    for turn in game.turns.iter().rev().take(6).rev() {
        println!("  {:>3}. {:<5} {}", turn.number, side(turn.side), turn.turn);
    }
    println!("position: {}", state.position);
}

pub async fn player(connection: Connection, command: PlayerCommand) -> Result<()> {
    let mut clients = connect(&connection).await?;
    match command {
        PlayerCommand::Register { name, bot } => {
            let kind = if bot {
                apb::PlayerKind::Bot
            } else {
                apb::PlayerKind::Human
            };
            let answer = clients
                .accounts
                .register_player(apb::RegisterPlayerRequest {
                    name,
                    kind: kind as i32,
                    issue_token: true,
                })
                .await
                .map_err(rpc)?
                .into_inner();
            let player = answer.player.context("no player in the answer")?;
            let token = answer.token.context("no token in the answer")?;
            println!("player {} ({}) registered", player.id, player.name);
            println!("token (shown once; id {}): {}", token.token_id, token.token);
        }
        PlayerCommand::Token {
            name,
            scopes,
            expires_in,
        } => issue_token(&mut clients, &name, scopes, expires_in).await?,
        PlayerCommand::Tokens { name } => list_tokens(&mut clients, &name).await?,
        PlayerCommand::Revoke { token_id } => {
            let revoked = clients
                .accounts
                .revoke_token(apb::RevokeTokenRequest { token_id })
                .await
                .map_err(rpc)?
                .into_inner()
                .revoked;
            println!(
                "{}",
                if revoked {
                    "revoked"
                } else {
                    "was already revoked"
                }
            );
        }
        PlayerCommand::Organiser { name, grant, .. } => {
            let player_id = player_by_name(&mut clients.accounts, &name).await?;
            let answer = clients
                .accounts
                .set_organiser(apb::SetOrganiserRequest {
                    player_id,
                    organiser: grant,
                })
                .await
                .map_err(rpc)?
                .into_inner();
            let what = match (grant, answer.changed) {
                (true, true) => "is now an organiser",
                (true, false) => "was already an organiser",
                (false, true) => "is no longer an organiser (its tokens lost `organise`)",
                (false, false) => "was not an organiser",
            };
            println!("{name} (player {player_id}) {what}");
        }
        PlayerCommand::Password { name } => {
            let player_id = if name == "me" {
                0
            } else {
                player_by_name(&mut clients.accounts, &name).await?
            };
            let mut lines = std::io::stdin().lines();
            let new_password = lines
                .next()
                .transpose()
                .context("reading the password from standard input")?
                .context("no password on standard input: give it on the first line")?;
            let current_password = lines.next().transpose().ok().flatten().unwrap_or_default();
            let answer = clients
                .accounts
                .set_password(apb::SetPasswordRequest {
                    player_id,
                    new_password,
                    current_password,
                })
                .await
                .map_err(rpc)?
                .into_inner();
            println!(
                "password {} for {name}",
                if answer.replaced { "changed" } else { "set" }
            );
        }
        PlayerCommand::List => {
            let players = clients
                .accounts
                .list_players(apb::ListPlayersRequest::default())
                .await
                .map_err(rpc)?
                .into_inner()
                .players;
            print_players(&players);
        }
        PlayerCommand::Search { query, limit } => {
            let found = clients
                .accounts
                .search_players(apb::SearchPlayersRequest {
                    query: query.join(" "),
                    limit,
                })
                .await
                .map_err(rpc)?
                .into_inner();
            if found.players.is_empty() {
                println!("no player found");
            } else {
                print_players(&found.players);
            }
            if found.more {
                println!("(more players match: add words to narrow the search)");
            }
        }
        PlayerCommand::Whoami => {
            let me = clients
                .accounts
                .who_am_i(apb::WhoAmIRequest {})
                .await
                .map_err(rpc)?
                .into_inner();
            match me.player {
                Some(p) => println!("player {} ({})", p.id, p.name),
                None => println!("admin"),
            }
            println!("scopes: {}", me.scopes.join(", "));
            if me.expires_at_ms > 0 {
                println!("expires {}", utc(me.expires_at_ms));
            }
        }
    }
    Ok(())
}

/// A table of players: id, name, kind.
fn print_players(players: &[apb::Player]) {
    // Columns by display width: a CJK name takes two columns a character.
    let mut rows = vec![["id", "name", "kind"].map(str::to_owned).to_vec()];
    for p in players {
        let kind = if p.kind == apb::PlayerKind::Bot as i32 {
            "bot"
        } else {
            "human"
        };
        rows.push(vec![p.id.to_string(), p.name.clone(), kind.to_owned()]);
    }
    print!("{}", crate::table::render(&rows));
}

/// An answer's error, saying what to do when "me" was asked with a token that is no player's
/// (the admin's).
fn me_or_rpc(id: i64, status: Status) -> anyhow::Error {
    if id == 0 && status.code() == tonic::Code::InvalidArgument {
        return anyhow::anyhow!(
            "this token is the admin's, not a player's: name the player (e.g. `hanniball player \
             tokens alice`) instead of `me`"
        );
    }
    rpc(status)
}

/// The id of player `name`, `me` (0) for the calling token's own player.
async fn player_or_me(clients: &mut Clients, name: &str) -> Result<i64> {
    if name == "me" {
        Ok(0)
    } else {
        player_by_name(&mut clients.accounts, name).await
    }
}

/// `player token`: a new token for `name`.
async fn issue_token(
    clients: &mut Clients,
    name: &str,
    scopes: Vec<String>,
    expires_in: Option<i64>,
) -> Result<()> {
    let id = player_or_me(clients, name).await?;
    let token = clients
        .accounts
        .issue_token(apb::IssueTokenRequest {
            player_id: id,
            scopes,
            expires_in_seconds: expires_in.unwrap_or(0),
        })
        .await
        .map_err(|status| me_or_rpc(id, status))?
        .into_inner()
        .token
        .context("no token in the answer")?;
    println!("token (shown once; id {}): {}", token.token_id, token.token);
    println!("scopes: {}", token.scopes.join(", "));
    if token.expires_at_ms > 0 {
        println!("expires {}", utc(token.expires_at_ms));
    }
    Ok(())
}

/// A moment (ms since the epoch) as people read it: `2026-11-28 20:40 UTC`.
pub(crate) fn utc(ms: i64) -> String {
    let date = hanniball_rules::record::date(ms).replace('.', "-");
    let minutes = ms.rem_euclid(86_400_000) / 60_000;
    format!("{date} {:02}:{:02} UTC", minutes / 60, minutes % 60)
}

/// `player tokens`: the tokens of `name`, as a table.
async fn list_tokens(clients: &mut Clients, name: &str) -> Result<()> {
    let id = player_or_me(clients, name).await?;
    let tokens = clients
        .accounts
        .list_tokens(apb::ListTokensRequest {
            player_id: id,
            ..Default::default()
        })
        .await
        .map_err(|status| me_or_rpc(id, status))?
        .into_inner()
        .tokens;
    let when = |ms: i64| {
        if ms == 0 { "-".to_owned() } else { utc(ms) }
    };
    let mut rows = vec![
        ["id", "scopes", "created", "expires", "revoked", ""]
            .map(str::to_owned)
            .to_vec(),
    ];
    for t in tokens {
        rows.push(vec![
            t.token_id.to_string(),
            t.scopes.join(","),
            when(t.created_at_ms),
            when(t.expires_at_ms),
            when(t.revoked_at_ms),
            if t.current { "this token" } else { "" }.to_owned(),
        ]);
    }
    print!("{}", crate::table::render(&rows));
    Ok(())
}

pub async fn game(connection: Connection, command: GameCommand) -> Result<()> {
    let mut clients = connect(&connection).await?;
    match command {
        GameCommand::Create {
            white,
            black,
            game,
            ruleset,
            time,
            rated,
            max_turns,
        } => {
            let request = pb::CreateGameRequest {
                kind: game,
                ruleset,
                white_player_id: player_by_name(&mut clients.accounts, &white).await?,
                black_player_id: player_by_name(&mut clients.accounts, &black).await?,
                time_control: time.as_deref().map(parse_time).transpose()?,
                rated,
                max_turns,
                ..Default::default()
            };
            let game = clients
                .arbiter
                .create_game(request)
                .await
                .map_err(rpc)?
                .into_inner()
                .game
                .context("no game in the answer")?;
            print_game(&mut clients, &game).await;
        }
        GameCommand::Show { id } => {
            let game = get(&mut clients, id).await?;
            print_game(&mut clients, &game).await;
        }
        GameCommand::Export { id, output } => export(&mut clients, id, output).await?,
        GameCommand::Play { id, turn } => play(&mut clients, id, turn).await?,
        GameCommand::Steps { id, after } => steps(&mut clients, id, after).await?,
        GameCommand::List { player, status } => {
            list_games(&mut clients, player, status.as_deref()).await?;
        }
        GameCommand::Resign { id } => {
            clients
                .arbiter
                .resign(pb::ResignRequest { game_id: id })
                .await
                .map_err(rpc)?;
            let game = get(&mut clients, id).await?;
            print_game(&mut clients, &game).await;
        }
        GameCommand::Watch { id } => watch(&mut clients, id).await?,
    }
    Ok(())
}

/// `game export`: the record of game `id`, to `output` or standard output.
async fn export(clients: &mut Clients, id: i64, output: Option<PathBuf>) -> Result<()> {
    let game = get(clients, id).await?;
    let text = record_of(clients, &game).await.to_text();
    match output {
        Some(path) => std::fs::write(&path, text)
            .with_context(|| format!("cannot write {}", path.display()))?,
        None => print!("{text}"),
    }
    Ok(())
}

/// `game play`: `turn` as the game's next turn.
async fn play(clients: &mut Clients, id: i64, turn: String) -> Result<()> {
    let game = get(clients, id).await?;
    let number = game.state.as_ref().map_or(1, |s| s.next_turn_number);
    clients
        .arbiter
        .submit_turn(pb::SubmitTurnRequest {
            game_id: id,
            turn_number: number,
            turn,
        })
        .await
        .map_err(rpc)?;
    let game = get(clients, id).await?;
    print_game(clients, &game).await;
    Ok(())
}

/// `game steps`: the legal steps after `after`.
async fn steps(clients: &mut Clients, id: i64, after: String) -> Result<()> {
    let answer = clients
        .arbiter
        .get_legal_steps(pb::GetLegalStepsRequest { game_id: id, after })
        .await
        .map_err(rpc)?
        .into_inner();
    for step in answer.steps {
        println!("{step}");
    }
    if answer.may_end {
        println!("(the turn may end here)");
    }
    Ok(())
}

/// `game list`: the games of `player` (default: everyone's) in `status` (default: any).
async fn list_games(
    clients: &mut Clients,
    player: Option<String>,
    status: Option<&str>,
) -> Result<()> {
    let player_id = match player {
        Some(name) => player_by_name(&mut clients.accounts, &name).await?,
        None => 0,
    };
    let status = match status {
        None => pb::GameStatus::Unspecified,
        Some("active") => pb::GameStatus::Active,
        Some("finished") => pb::GameStatus::Finished,
        Some("aborted") => pb::GameStatus::Aborted,
        Some(other) => bail!("unknown status {other:?} (active, finished, aborted)"),
    };
    let games = clients
        .arbiter
        .list_games(pb::ListGamesRequest {
            player_id,
            status: status as i32,
            ..Default::default()
        })
        .await
        .map_err(rpc)?
        .into_inner()
        .games;
    let mut names = std::collections::HashMap::new();
    let mut rows = vec![
        ["id", "kind", "white", "black", "turns", "result"]
            .map(str::to_owned)
            .to_vec(),
    ];
    for g in games {
        let state = g.state.unwrap_or_default();
        let result = state.result.map_or_else(|| "on".to_owned(), |r| r.summary);
        rows.push(vec![
            g.id.to_string(),
            g.kind,
            listed_name(clients, g.white_player_id, &mut names).await,
            listed_name(clients, g.black_player_id, &mut names).await,
            state.next_turn_number.saturating_sub(1).to_string(),
            result,
        ]);
    }
    print!("{}", crate::table::render(&rows));
    Ok(())
}

/// `game watch`: each event of game `id` as it comes, until the stream ends.
async fn watch(clients: &mut Clients, id: i64) -> Result<()> {
    let mut stream = clients
        .arbiter
        .watch_game(pb::WatchGameRequest {
            game_id: id,
            from_turn: 0,
        })
        .await
        .map_err(rpc)?
        .into_inner();
    while let Some(event) = stream.next().await {
        match event.map_err(rpc)?.event {
            Some(pb::game_event::Event::Snapshot(game)) => print_game(clients, &game).await,
            Some(pb::game_event::Event::TurnPlayed(played)) => {
                if let (Some(r), Some(s)) = (played.record, played.state) {
                    println!("{:>3}. {:<5} {}", r.number, side(r.side), r.turn);
                    print!("{}", s.board);
                }
            }
            Some(pb::game_event::Event::DrawOffered(o)) => {
                println!("{} offers a draw", side(o.by));
            }
            Some(pb::game_event::Event::DrawDeclined(d)) => {
                println!("{} declines the draw", side(d.by));
            }
            Some(pb::game_event::Event::GameOver(over)) => {
                println!(
                    "game over: {}",
                    over.result.map(|r| r.summary).unwrap_or_default()
                );
            }
            None => {}
        }
    }
    Ok(())
}

/// A player's name to show (the id if it cannot be looked up).
pub(crate) async fn name_of(accounts: &mut Accounts, id: i64) -> String {
    let request = apb::GetPlayerRequest {
        player: Some(apb::get_player_request::Player::Id(id)),
    };
    match accounts.get_player(request).await {
        Ok(answer) => answer
            .into_inner()
            .player
            .map_or_else(|| id.to_string(), |p| p.name),
        Err(_) => id.to_string(),
    }
}

/// The record of `game` (with its turns) in the format of `hanniball_rules::record`: the one
/// the web pages offer for download.
async fn record_of(clients: &mut Clients, game: &pb::Game) -> GameRecord {
    let white = name_of(&mut clients.accounts, game.white_player_id).await;
    let black = name_of(&mut clients.accounts, game.black_player_id).await;
    hanniball_web::record(game, &white, &black)
}

async fn get(clients: &mut Clients, id: i64) -> Result<pb::Game> {
    clients
        .arbiter
        .get_game(pb::GetGameRequest { game_id: id })
        .await
        .map_err(rpc)?
        .into_inner()
        .game
        .context("no game in the answer")
}

/// White's and Black's time at `now`: the running side's clock has run on since the server's
/// `as_of_ms` (a game shown 15 s into Black's turn shows Black 15 s less than stored).
fn clocks_at(clocks: &pb::Clocks, now: i64) -> (i64, i64) {
    let ran = (now - clocks.as_of_ms).max(0);
    let at = |ms: i64, side: pb::Side| {
        if clocks.running == side as i32 {
            (ms - ran).max(0)
        } else {
            ms
        }
    };
    (
        at(clocks.white_ms, pb::Side::White),
        at(clocks.black_ms, pb::Side::Black),
    )
}

#[cfg(test)]
mod clock_tests {
    use super::*;

    #[test]
    fn the_running_clock_is_shown_as_of_now_not_as_of_the_last_turn() {
        let clocks = pb::Clocks {
            white_ms: 118_000,
            black_ms: 120_000,
            running: pb::Side::Black as i32,
            as_of_ms: 1_000_000,
        };
        assert_eq!(clocks_at(&clocks, 1_015_000), (118_000, 105_000));
        assert_eq!(
            clocks_at(&clocks, 1_500_000),
            (118_000, 0),
            "never below zero"
        );
        let stopped = pb::Clocks {
            running: pb::Side::Unspecified as i32,
            ..clocks
        };
        assert_eq!(clocks_at(&stopped, 1_015_000), (118_000, 120_000));
    }
}
