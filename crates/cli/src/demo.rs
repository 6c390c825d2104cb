//! `hanniball demo`: the whole system on the embedded default, with nothing set up. It starts the
//! services on a fresh SQLite file, registers a field of reference bots, runs a rated Swiss
//! tournament among them over gRPC with live progress, and ends with the standings (tie-breaks
//! included) and the rating changes. By default the bots play at a pace a person can watch (the
//! tournament takes a few minutes); `--fast` plays it in seconds. The server honours the settings
//! `serve` honours (listen address, TLS, limits, health, metrics and web addresses, the web
//! token), and the admin token is saved in the data directory, so that the CLI can be pointed at
//! the demo while it runs.

use std::collections::BTreeMap;
use std::time::Duration;

use anyhow::{Context, Result};
use clap::Args;
use hanniball_bots::BotKind;
use hanniball_db::Db;
use hanniball_proto::accounts::v1 as apb;
use hanniball_proto::accounts::v1::accounts_client::AccountsClient;
use hanniball_proto::scheduler::v1 as spb;
use hanniball_proto::scheduler::v1::scheduler_client::SchedulerClient;
use hanniball_svc_kit::Bearer;
use tokio_util::sync::CancellationToken;
use tonic::service::interceptor::InterceptedService;
use tonic::transport::Channel;

use crate::bot::{Bot, BotArgs};
use crate::client::rpc;
use crate::settings::Settings;

#[derive(Debug, Args)]
pub struct DemoArgs {
    /// Bots of each strategy (random, greedy, search).
    #[arg(long, default_value_t = 3)]
    per_strategy: u32,
    /// Swiss rounds.
    #[arg(long, default_value_t = 5)]
    rounds: u32,
    /// Fischer time control of the games in seconds, `initial+increment` (default 180+2, with
    /// `--fast` 20+0.2).
    #[arg(long)]
    time: Option<String>,
    /// Longest think per turn in milliseconds (default 800, with `--fast` 150).
    #[arg(long)]
    think_ms: Option<u64>,
    /// Shortest time per turn in milliseconds, so that a person can follow the games (default
    /// 500, with `--fast` 0).
    #[arg(long)]
    pace_ms: Option<u64>,
    /// Turns after which a game is drawn (default 150, so that two aimless bots do not hold up
    /// a round; with `--fast` the game's own limit).
    #[arg(long)]
    max_turns: Option<u32>,
    /// Play at full speed: the tournament is over in seconds.
    #[arg(long)]
    fast: bool,
    /// Where the demo's database goes (default: a new temporary directory).
    #[arg(long)]
    data_dir: Option<std::path::PathBuf>,
    /// Exit when the tournament is over (by default the web pages stay up until Ctrl-C).
    #[arg(long)]
    exit: bool,
}

impl DemoArgs {
    /// The time control, as given or by pace.
    fn time(&self) -> &str {
        self.time
            .as_deref()
            .unwrap_or(if self.fast { "20+0.2" } else { "180+2" })
    }

    fn think_ms(&self) -> u64 {
        self.think_ms.unwrap_or(if self.fast { 150 } else { 800 })
    }

    fn pace_ms(&self) -> u64 {
        self.pace_ms.unwrap_or(if self.fast { 0 } else { 500 })
    }

    /// 0: the game's own limit.
    fn max_turns(&self) -> u32 {
        self.max_turns.unwrap_or(if self.fast { 0 } else { 150 })
    }
}

pub async fn run(args: DemoArgs) -> Result<()> {
    // Warnings only unless RUST_LOG says otherwise (the demo's own output is the show), in the
    // configured log format.
    let settings = Settings::load(None)?;
    let filter = tracing_subscriber::EnvFilter::try_from_default_env()
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("warn"));
    let logs = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_ansi(crate::serve::logs_in_colour())
        .with_writer(std::io::stderr);
    if settings.log.format == "json" {
        logs.json().init();
    } else {
        logs.init();
    }
    let services = Services::start(args.data_dir.clone()).await?;
    let server = services.server.clone();

    let channel = hanniball_svc_kit::connect(&server)?;
    let admin = Bearer::new(&services.token);
    let mut accounts = AccountsClient::with_interceptor(channel.clone(), admin.clone());
    let mut scheduler = SchedulerClient::with_interceptor(channel.clone(), admin.clone());

    let stop = CancellationToken::new();
    let (names, bots) = register_bots(&mut accounts, &args, &server, &stop).await?;
    let tid = create_tournament(&mut scheduler, &args, names.keys().copied()).await?;
    let before = crate::ratings_demo::snapshot(&channel, &admin, names.keys().copied()).await;
    scheduler
        .start_tournament(spb::StartTournamentRequest { tournament_id: tid })
        .await
        .map_err(rpc)?;
    println!(
        "tournament {tid}: {} rounds, FIDE Dutch pairing, time control {}\n",
        args.rounds,
        args.time()
    );
    let finished = follow(&mut scheduler, tid, &names).await?;
    print_standings(&mut scheduler, tid).await?;

    // Ratings follow the results through the arbiter's outbox: wait until all are counted.
    let games = finished
        .boards
        .iter()
        .filter(|b| b.kind() == spb::BoardKind::Game)
        .count() as u32;
    let after =
        crate::ratings_demo::settled(&channel, &admin, names.keys().copied(), &before, games).await;
    println!("\nrating changes (ladder hanniball)");
    print!("{}", crate::ratings_demo::table(&names, &before, &after));

    stop.cancel();
    for bot in bots {
        let _ = bot.await;
    }
    services.stop(args.exit).await
}

/// A listener on `server.listen`; when the address is taken, any free port on loopback (a demo
/// beside a running server still starts).
async fn listen(address: &str) -> Result<tokio::net::TcpListener> {
    match tokio::net::TcpListener::bind(address).await {
        Ok(listener) => Ok(listener),
        Err(error) if error.kind() == std::io::ErrorKind::AddrInUse => {
            tracing::warn!(%address, "the address is taken; serving the demo on a free port");
            tokio::net::TcpListener::bind("127.0.0.1:0")
                .await
                .context("listening")
        }
        Err(error) => Err(error).with_context(|| format!("listening on {address} (server.listen)")),
    }
}

type Accounts = AccountsClient<InterceptedService<Channel, Bearer>>;
type Scheduler = SchedulerClient<InterceptedService<Channel, Bearer>>;

/// The demo's services (and web pages, when configured) on a fresh database.
struct Services {
    served: hanniball_svc_kit::Served,
    shutdown: CancellationToken,
    /// The gRPC URL.
    server: String,
    /// The admin token.
    token: String,
    /// Where the pages are served, if they are.
    web: Option<std::net::SocketAddr>,
    /// The database's directory.
    dir: std::path::PathBuf,
}

impl Services {
    /// Starts the services on a new SQLite file in `data_dir` (default: a new temporary
    /// directory), with the server settings `serve` takes (configuration file and environment).
    async fn start(data_dir: Option<std::path::PathBuf>) -> Result<Self> {
        let mut settings = Settings::load(None)?;
        let dir = match data_dir {
            Some(dir) => dir,
            None => std::env::temp_dir().join(format!("hanniball-demo-{}", std::process::id())),
        };
        std::fs::create_dir_all(&dir).with_context(|| format!("creating {}", dir.display()))?;
        settings.data_dir.clone_from(&dir);
        settings.database.url = String::new();
        let url = settings.database_url();
        // As `serve`: `auth.admin_token`, else the token file (default `<data dir>/admin-token`,
        // owner-only), made once.
        let token = crate::serve::admin_token(&settings)?;
        let db = Db::connect(&url).await.context("opening the database")?;
        let listener = listen(&settings.server.listen).await?;
        let shutdown = CancellationToken::new();
        let tls = match settings.server.tls.files()? {
            Some(files) => {
                let tls = hanniball_svc_kit::ServerTls::load(files)
                    .context("setting up TLS (server.tls)")?;
                tls.watch(
                    std::time::Duration::from_millis(settings.server.tls.reload_ms.max(100)),
                    shutdown.clone(),
                );
                Some(tls)
            }
            None => None,
        };
        let metrics = if settings.server.metrics_listen.is_empty() {
            None
        } else {
            Some(crate::serve::serve_metrics(
                &settings.server.metrics_listen,
            )?)
        };
        let admin_token = hanniball_svc_kit::AdminToken::new(&token);
        let (served, _, here, pages) = crate::serve::launch(
            &settings,
            db.clone(),
            listener,
            &admin_token,
            None,
            shutdown.clone(),
            tls.clone(),
        )
        .await?;
        // After the launch, as in `serve`: the launch has migrated every service's tables, and
        // the sampler only opens them.
        if metrics.is_some() {
            tokio::spawn(crate::serve::sample_metrics(db, None, shutdown.clone()));
        }
        let scheme = if tls.is_some() { "https" } else { "http" };
        let public = format!("{scheme}://{}", served.addr);
        println!("HanniBall demo: services on {public}, database {url}");
        if let Some(addr) = metrics {
            println!("metrics on http://{addr}/metrics");
        }
        let token_line = if settings.auth.admin_token.is_empty() {
            format!(
                "export HANNIBALL_TOKEN=\"$(cat {})\"",
                settings.admin_token_file().display()
            )
        } else {
            "export HANNIBALL_TOKEN=... (auth.admin_token of your configuration)".to_owned()
        };
        println!(
            "Point the CLI at it (admin token in {}):\n  export HANNIBALL_SERVER={public}\n  {token_line}\n  \
             hanniball tournament standings 1",
            settings.admin_token_file().display()
        );
        let web = if settings.server.web_listen.is_empty() {
            None
        } else {
            let web =
                crate::serve::start_web(&settings, &admin_token, &here, shutdown.clone()).await?;
            crate::serve::set_pages(&pages, &format!("http://{web}"));
            println!("Watch it live: http://{web}/");
            Some(web)
        };
        Ok(Services {
            served,
            shutdown,
            // The demo's own clients and bots use the plain loopback address when TLS is on.
            server: here,
            token,
            web,
            dir,
        })
    }

    /// Stops the services: at once with `exit` or without web pages, else on Ctrl-C (the pages
    /// stay up until then).
    async fn stop(self, exit: bool) -> Result<()> {
        if let Some(web) = self.web
            && !exit
        {
            println!(
                "\nThe pages stay up at http://{web}/ (games, standings, ratings); Ctrl-C to stop."
            );
            crate::serve::stop_signal().await;
        }
        self.shutdown.cancel();
        self.served.wait().await.context("server error")?;
        println!("\ndemo database kept in {}", self.dir.display());
        Ok(())
    }
}

/// The field: bots of every strategy, each a real gRPC client with its own token, playing until
/// `stop`. Their names by player id, and their tasks.
async fn register_bots(
    accounts: &mut Accounts,
    args: &DemoArgs,
    server: &str,
    stop: &CancellationToken,
) -> Result<(
    BTreeMap<i64, String>,
    Vec<tokio::task::JoinHandle<Result<()>>>,
)> {
    let mut names: BTreeMap<i64, String> = BTreeMap::new();
    let mut bots = Vec::new();
    for strategy in [BotKind::Search, BotKind::Greedy, BotKind::Random] {
        for i in 1..=args.per_strategy {
            let name = format!("{strategy}-{i}");
            let answer = accounts
                .register_player(apb::RegisterPlayerRequest {
                    name: name.clone(),
                    kind: apb::PlayerKind::Bot.into(),
                    issue_token: true,
                })
                .await
                .map_err(rpc)?
                .into_inner();
            let id = answer.player.context("no player")?.id;
            let bot_token = answer.token.context("no token")?.token;
            names.insert(id, name);
            let bot = Bot::new(
                BotArgs {
                    strategy,
                    queue: false,
                    kind: "hanniball".to_owned(),
                    time: None,
                    rated: false,
                    games: 0,
                    think_ms: args.think_ms(),
                    min_think_ms: args.pace_ms(),
                    // The demo tells the story itself; its bots speak only of trouble.
                    quiet: true,
                    json: false,
                    accounts: None,
                },
                server,
                &bot_token,
            );
            let stop = stop.clone();
            bots.push(tokio::spawn(async move { bot.run(stop).await }));
        }
    }
    println!(
        "registered {} bots: {}",
        names.len(),
        names.values().cloned().collect::<Vec<_>>().join(", ")
    );
    Ok((names, bots))
}

/// Creates the demo's rated Swiss tournament with `players` entered; its id.
async fn create_tournament(
    scheduler: &mut Scheduler,
    args: &DemoArgs,
    players: impl Iterator<Item = i64>,
) -> Result<i64> {
    let time_control = crate::client::parse_time(args.time())?;
    let created = scheduler
        .create_tournament(spb::CreateTournamentRequest {
            settings: Some(spb::TournamentSettings {
                name: "HanniBall demo Swiss".to_owned(),
                kind: "hanniball".to_owned(),
                rounds: args.rounds,
                time_control: Some(time_control),
                max_turns: args.max_turns(),
                rated: true,
                ..Default::default()
            }),
        })
        .await
        .map_err(rpc)?
        .into_inner()
        .tournament
        .context("no tournament")?;
    let tid = created.id;
    for id in players {
        scheduler
            .add_player(spb::AddPlayerRequest {
                tournament_id: tid,
                player_id: id,
                rating: 0,
            })
            .await
            .map_err(rpc)?;
    }
    Ok(tid)
}

/// Live progress until tournament `tid` is finished: every round's pairings, then each result as
/// it comes in. The finished tournament.
async fn follow(
    scheduler: &mut Scheduler,
    tid: i64,
    names: &BTreeMap<i64, String>,
) -> Result<spb::Tournament> {
    let name = |id: i64| names.get(&id).cloned().unwrap_or_else(|| id.to_string());
    let mut shown_round = 0;
    let mut shown_results = std::collections::BTreeSet::new();
    let started = std::time::Instant::now();
    loop {
        let t = scheduler
            .get_tournament(spb::GetTournamentRequest { tournament_id: tid })
            .await
            .map_err(rpc)?
            .into_inner()
            .tournament
            .context("no tournament")?;
        if t.current_round > shown_round {
            shown_round = t.current_round;
            print_pairings(&t, shown_round, &name);
        }
        for b in &t.boards {
            if !b.result.is_empty() && shown_results.insert((b.round, b.number)) {
                println!(
                    "  result  round {} board {:>2}  {:<10} {:>7}  {}",
                    b.round,
                    b.number,
                    name(b.white_player_id),
                    b.result,
                    name(b.black_player_id)
                );
            }
        }
        if t.status() == spb::TournamentStatus::Finished {
            return Ok(t);
        }
        if started.elapsed() > Duration::from_secs(1_800) {
            anyhow::bail!("the demo tournament did not finish within 30 minutes");
        }
        tokio::time::sleep(Duration::from_millis(250)).await;
    }
}

/// The pairings of `round`.
fn print_pairings(t: &spb::Tournament, round: u32, name: &impl Fn(i64) -> String) {
    println!("round {round}");
    for b in t.boards.iter().filter(|b| b.round == round) {
        match b.kind() {
            spb::BoardKind::Game => println!(
                "  board {:>2}  {:<10} - {:<10}",
                b.number,
                name(b.white_player_id),
                name(b.black_player_id)
            ),
            kind => println!(
                "  {:<10} {}",
                name(b.white_player_id),
                match kind {
                    spb::BoardKind::PairingBye => "bye",
                    spb::BoardKind::HalfPointBye => "half-point bye",
                    spb::BoardKind::ZeroPointBye => "zero-point bye",
                    _ => "not paired",
                }
            ),
        }
    }
}

async fn print_standings(scheduler: &mut Scheduler, tid: i64) -> Result<()> {
    let standings = scheduler
        .get_standings(spb::GetStandingsRequest {
            tournament_id: tid,
            after_round: 0,
        })
        .await
        .map_err(rpc)?
        .into_inner();
    println!("\nfinal standings after {} rounds", standings.rounds);
    let mut rows = vec![{
        let mut header = vec!["rank".to_owned(), "player".to_owned(), "points".to_owned()];
        header.extend(standings.tiebreak_names.iter().cloned());
        header
    }];
    for s in &standings.standings {
        let mut row = vec![s.rank.to_string(), s.name.clone(), s.points.clone()];
        row.extend(s.tiebreaks.iter().cloned());
        rows.push(row);
    }
    print!("{}", crate::table::render(&rows));
    Ok(())
}
