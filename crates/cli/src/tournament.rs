//! `hanniball tournament ...`: the organiser's commands (create, add players, start, pair, correct
//! a result) and everyone's views (pairings, standings, the TRF export), as terminal tables.

use anyhow::{Context, Result};
use clap::Subcommand;
use hanniball_proto::accounts::v1::accounts_client::AccountsClient;
use hanniball_proto::scheduler::v1 as spb;
use hanniball_proto::scheduler::v1::scheduler_client::SchedulerClient;

use crate::client::{Accounts, Connection, channel, name_of, parse_time, player_by_name, rpc};

#[derive(Debug, Subcommand)]
pub enum TournamentCommand {
    /// Create a tournament (an organiser or the admin); prints its id.
    Create {
        /// The tournament's name.
        name: String,
        /// swiss, round-robin or double-round-robin.
        #[arg(long, default_value = "swiss")]
        system: String,
        /// Swiss: the number of rounds.
        #[arg(long, default_value_t = 5)]
        rounds: u32,
        /// hanniball or paper-football.
        #[arg(long, default_value = "hanniball")]
        game: String,
        /// Fischer time control in seconds, `initial+increment`; none: untimed.
        #[arg(long)]
        time: Option<String>,
        #[arg(long)]
        rated: bool,
        /// Tie-breaks in order (FIDE acronyms), e.g. BH-C1,BH,SB.
        #[arg(long, value_delimiter = ',')]
        tiebreaks: Vec<String>,
        /// Which text of FIDE C.07 the tie-breaks follow: 2024 or 2026 (default: the one in
        /// force today).
        #[arg(long)]
        tiebreak_rules: Option<String>,
        /// Unrated players in rating-based tie-breaks: drop (default), ignore (rated opponents
        /// only) or a rating given to them.
        #[arg(long)]
        unrated: Option<String>,
        /// Points of the pairing-allocated bye in half-points (2: a win).
        #[arg(long, default_value_t = 2)]
        bye_points: u32,
        /// Withdraw a player who does not start a game.
        #[arg(long)]
        forfeit_withdraws: bool,
        /// Pair rounds only on `tournament pair` (default: as soon as a round is over).
        #[arg(long)]
        manual: bool,
        /// Open for entry: players enter and leave themselves (`tournament enter`/`leave`)
        /// before the start.
        #[arg(long)]
        self_entry: bool,
        /// Players may also enter after the start, from the next round (Swiss; implies
        /// --self-entry).
        #[arg(long)]
        late_entry: bool,
        /// Played over the board (physical boards): no games run on the server; the results
        /// you enter are played games, rated when the tournament is.
        #[arg(long)]
        over_the_board: bool,
    },
    /// Start a Swiss from a TRF file another program wrote (an organiser or the admin): its
    /// players (registered here when no player has their name), ratings and rounds played,
    /// checked as `swiss check --strict` checks them; then `tournament pair` pairs the next
    /// round as the file would be.
    Import {
        /// The TRF file (UTF-8, UTF-16 or Windows-1252); `-` reads standard input.
        file: String,
        /// The name (default: the file's, line 012).
        #[arg(long)]
        name: Option<String>,
        /// The number of rounds (default: the file's, XXR or 142).
        #[arg(long, default_value_t = 0)]
        rounds: u32,
        /// Fischer time control in seconds for the games to come, `initial+increment`.
        #[arg(long)]
        time: Option<String>,
        #[arg(long)]
        rated: bool,
        /// Played over the board (see `create`).
        #[arg(long)]
        over_the_board: bool,
        /// Pair rounds only on `tournament pair` (default: as soon as a round is over).
        #[arg(long)]
        manual: bool,
        /// Import rounds that `swiss check --strict` flags: the pairings made stand.
        #[arg(long)]
        accept_differences: bool,
    },
    /// Enter a tournament open for entry, with your own token (as a late entry once started,
    /// if the organiser allows).
    Enter { id: i64 },
    /// Leave a tournament with your own token: before the start the entry is gone; after it,
    /// you are withdrawn from the next round on.
    Leave { id: i64 },
    /// Register players by name or id (its organisers or the admin).
    Add {
        id: i64,
        players: Vec<String>,
        /// Seeding rating (default: the player's rating from the rating service).
        #[arg(long, default_value_t = 0)]
        rating: i32,
    },
    /// Withdraw a player from the next round on.
    Withdraw { id: i64, player: String },
    /// Request a half-point (or, with --zero, zero-point) bye in a future round.
    Bye {
        id: i64,
        player: String,
        round: u32,
        #[arg(long)]
        zero: bool,
    },
    /// Seed the players and pair round 1 (its organisers or the admin).
    Start { id: i64 },
    /// Pair the next round now (its organisers or the admin; when pairing is manual).
    Pair { id: i64 },
    /// Enter a board's result (its organisers or the admin): 1-0, 0-1, 1/2-1/2, +/-, -/+, -/-.
    /// A game that is on ends with it; a board that has a result keeps it (use `correct`).
    Result {
        id: i64,
        round: u32,
        board: u32,
        result: String,
    },
    /// Enter a round's results in one all-or-nothing call (its organisers or the admin): a line
    /// per board, `BOARD RESULT` (`3 1-0`), from FILE or standard input (`-`); blank lines and
    /// `#` comments are skipped. Any bad line or refused board changes nothing.
    Results { id: i64, round: u32, file: String },
    /// Correct a board's recorded result (its organisers or the admin): the game, the TRF, the
    /// standings and the ratings follow. After the next round is paired the pairings made stand.
    Correct {
        id: i64,
        round: u32,
        board: u32,
        result: String,
        /// Why (kept with the correction).
        #[arg(long, default_value = "")]
        note: String,
    },
    /// Show a tournament: its details, players and every round's pairings and results.
    Show { id: i64 },
    /// Set what is said of a tournament (its organisers or the admin): the flags given replace
    /// those fields, an empty value clears one; without flags, print them.
    Details(organise::DetailsArgs),
    /// Standings with tie-breaks.
    Standings {
        id: i64,
        /// After this round (default: the last complete one).
        #[arg(long, default_value_t = 0)]
        after: u32,
    },
    /// The tournament as a FIDE TRF file (stdout).
    Export { id: i64 },
    /// List tournaments.
    List,
    /// Delete a tournament that has not started (its organisers or the admin).
    Delete { id: i64 },
    /// Two entrants who must not be paired with each other from the next round on (a Swiss;
    /// its organisers or the admin); `--allow`: they may be again. Exported as `XXP`.
    Forbid {
        id: i64,
        /// The players, by name or id.
        first: String,
        second: String,
        #[arg(long)]
        allow: bool,
    },
    /// Add or remove a co-organiser (its organisers or the admin); the player must hold the
    /// organiser right (`player organiser NAME --grant`).
    Organisers {
        id: i64,
        /// `add` or `remove`.
        #[arg(value_parser = ["add", "remove"])]
        action: String,
        /// The player, by name or id.
        player: String,
    },
}

type Scheduler = SchedulerClient<
    tonic::service::interceptor::InterceptedService<
        tonic::transport::Channel,
        hanniball_client::Bearer,
    >,
>;

/// A player given by id (all digits) or by name.
async fn player_id(accounts: &mut Accounts, player: &str) -> Result<i64> {
    match player.parse::<i64>() {
        Ok(id) => Ok(id),
        Err(_) => player_by_name(accounts, player).await,
    }
}

fn system(name: &str) -> Result<spb::PairingSystem> {
    Ok(match name {
        "swiss" | "dutch" => spb::PairingSystem::SwissDutch,
        "round-robin" | "rr" => spb::PairingSystem::RoundRobin,
        "double-round-robin" | "drr" => spb::PairingSystem::DoubleRoundRobin,
        other => {
            anyhow::bail!("unknown system {other:?}: swiss, round-robin or double-round-robin")
        }
    })
}

async fn get(scheduler: &mut Scheduler, id: i64) -> Result<spb::Tournament> {
    scheduler
        .get_tournament(spb::GetTournamentRequest { tournament_id: id })
        .await
        .map_err(rpc)?
        .into_inner()
        .tournament
        .context("no tournament in the answer")
}

fn kind_name(kind: spb::BoardKind) -> &'static str {
    match kind {
        spb::BoardKind::PairingBye => "bye",
        spb::BoardKind::HalfPointBye => "half-point bye",
        spb::BoardKind::ZeroPointBye => "zero-point bye",
        spb::BoardKind::Absent => "not paired",
        spb::BoardKind::Game | spb::BoardKind::Unspecified => "",
    }
}

/// Who organises a tournament, as `show` and `organisers` print it: names, or the admin alone.
async fn organisers(accounts: &mut Accounts, ids: &[i64]) -> String {
    if ids.is_empty() {
        return "none (the admin's alone)".to_owned();
    }
    let mut names = Vec::with_capacity(ids.len());
    for &id in ids {
        names.push(name_of(accounts, id).await);
    }
    names.join(", ")
}

/// A tournament as text; `organisers` (names) when the answer carried them.
fn show(t: &spb::Tournament, organisers: Option<&str>) -> String {
    let settings = t.settings.clone().unwrap_or_default();
    let status = match t.status() {
        spb::TournamentStatus::Registration => "registration",
        spb::TournamentStatus::Running => "running",
        spb::TournamentStatus::Finished => "finished",
        spb::TournamentStatus::Unspecified => "?",
    };
    let mut out = format!(
        "tournament {} · {} · {} · {} rounds · round {} · {} · {}\n",
        t.id,
        settings.name,
        settings.kind,
        t.rounds,
        t.current_round,
        status,
        if settings.over_the_board {
            "over the board"
        } else {
            "online"
        }
    );
    out.push_str(&format!(
        "tie-breaks: {}{}\n",
        settings.tiebreaks.join(", "),
        rules_note(&settings.tiebreak_rules, &settings.tiebreak_unrated)
    ));
    if let Some(organisers) = organisers {
        out.push_str(&format!("organisers: {organisers}\n"));
    }
    out.push_str(&organise::details_text(settings.details.as_ref()));
    let name = |id: i64| {
        t.entrants
            .iter()
            .find(|e| e.player_id == id)
            .map_or_else(|| id.to_string(), |e| e.name.clone())
    };
    let mut rows = vec![vec![
        "no".to_owned(),
        "player".to_owned(),
        "rating".to_owned(),
        "points".to_owned(),
        "note".to_owned(),
    ]];
    for e in &t.entrants {
        rows.push(vec![
            if e.start_rank > 0 {
                e.start_rank.to_string()
            } else {
                "-".to_owned()
            },
            e.name.clone(),
            e.rating.to_string(),
            format!("{}", f64::from(e.score_halves) / 2.0),
            if e.withdrawn_from > 0 {
                format!("withdrawn from round {}", e.withdrawn_from)
            } else if e.joined_round > 1 {
                format!("late entry, round {}", e.joined_round)
            } else {
                String::new()
            },
        ]);
    }
    out.push_str(&crate::table::render(&rows));
    for round in 1..=t.current_round {
        out.push_str(&format!("\nround {round}\n"));
        let mut rows = vec![vec![
            "board".to_owned(),
            "white".to_owned(),
            "result".to_owned(),
            "black".to_owned(),
            "game".to_owned(),
        ]];
        for b in t.boards.iter().filter(|b| b.round == round) {
            if b.kind() == spb::BoardKind::Game {
                rows.push(vec![
                    b.number.to_string(),
                    name(b.white_player_id),
                    if b.result.is_empty() {
                        "-".to_owned()
                    } else {
                        b.result.clone()
                    },
                    name(b.black_player_id),
                    if b.game_id > 0 {
                        b.game_id.to_string()
                    } else {
                        "-".to_owned()
                    },
                ]);
            } else {
                rows.push(vec![
                    b.number.to_string(),
                    name(b.white_player_id),
                    kind_name(b.kind()).to_owned(),
                    String::new(),
                    String::new(),
                ]);
            }
        }
        out.push_str(&crate::table::render(&rows));
    }
    if !t.corrections.is_empty() {
        out.push_str("\ncorrections\n");
        let mut rows = vec![vec![
            "board".to_owned(),
            "was".to_owned(),
            "now".to_owned(),
            "by".to_owned(),
            "note".to_owned(),
        ]];
        for c in &t.corrections {
            rows.push(vec![
                format!("{}.{}", c.round, c.board),
                c.previous.clone(),
                c.result.clone(),
                c.by.clone(),
                if c.after_pairing {
                    format!("{} (after the next round was paired)", c.note)
                } else {
                    c.note.clone()
                },
            ]);
        }
        out.push_str(&crate::table::render(&rows));
    }
    out
}

/// A round's results from text: a line per board, `BOARD RESULT`; blank lines and `#` comments
/// skipped. Every bad line is named (line number and text), not only the first.
fn round_results(text: &str, round: u32) -> Result<Vec<spb::BoardResult>, String> {
    const RESULTS: [&str; 6] = ["1-0", "0-1", "1/2-1/2", "+/-", "-/+", "-/-"];
    let mut results = Vec::new();
    let mut problems = Vec::new();
    for (index, raw) in text.lines().enumerate() {
        let line = raw.split('#').next().unwrap_or_default().trim();
        if line.is_empty() {
            continue;
        }
        let mut words = line.split_whitespace();
        let (board, result) = (words.next(), words.next());
        let parsed = match (board.map(str::parse::<u32>), result, words.next()) {
            (Some(Ok(board)), Some(result), None) if board > 0 => {
                let result = match result {
                    "½-½" | "=" | "0.5-0.5" => "1/2-1/2",
                    other => other,
                };
                if RESULTS.contains(&result) {
                    Ok(spb::BoardResult {
                        round,
                        board,
                        result: result.to_owned(),
                    })
                } else {
                    Err(format!("unknown result (one of {})", RESULTS.join(", ")))
                }
            }
            _ => Err("expected `BOARD RESULT`, e.g. `3 1-0`".to_owned()),
        };
        match parsed {
            Ok(r) => results.push(r),
            Err(why) => problems.push(format!(
                "line {}: {}: {why}",
                index + 1,
                crate::client::quoted(raw.trim())
            )),
        }
    }
    if problems.is_empty() {
        Ok(results)
    } else {
        Err(problems.join("; "))
    }
}

/// The C.07 text and unrated policy as `swiss standings` names them (nothing from a server
/// that does not say).
fn rules_note(rules: &str, unrated: &str) -> String {
    if rules.is_empty() {
        return String::new();
    }
    format!("; FIDE C.07, {rules} text; unrated players: {unrated}")
}

pub async fn run(connection: Connection, command: TournamentCommand) -> Result<()> {
    let (channel, bearer) = channel(&connection).await?;
    let mut calls = Calls {
        scheduler: SchedulerClient::with_interceptor(channel.clone(), bearer.clone()),
        accounts: AccountsClient::with_interceptor(channel, bearer),
    };
    match command {
        TournamentCommand::Create {
            name,
            system: sys,
            rounds,
            game,
            time,
            rated,
            tiebreaks,
            tiebreak_rules,
            unrated,
            bye_points,
            forfeit_withdraws,
            manual,
            self_entry,
            late_entry,
            over_the_board,
        } => {
            let settings = spb::TournamentSettings {
                name,
                kind: game,
                system: system(&sys)?.into(),
                rounds,
                time_control: time.as_deref().map(parse_time).transpose()?,
                rated,
                tiebreaks,
                tiebreak_rules: tiebreak_rules.unwrap_or_default(),
                tiebreak_unrated: unrated.unwrap_or_default(),
                bye_points,
                bye_points_set: true,
                forfeit_withdraws,
                manual_pairing: manual,
                self_entry,
                late_self_entry: late_entry,
                over_the_board,
                ..Default::default()
            };
            calls.create(settings).await
        }
        TournamentCommand::Add {
            id,
            players,
            rating,
        } => calls.add(id, &players, rating).await,
        TournamentCommand::Import {
            file,
            name,
            rounds,
            time,
            rated,
            over_the_board,
            manual,
            accept_differences,
        } => {
            let settings = spb::TournamentSettings {
                name: name.unwrap_or_default(),
                rounds,
                time_control: time.as_deref().map(parse_time).transpose()?,
                rated,
                over_the_board,
                manual_pairing: manual,
                ..Default::default()
            };
            calls.import(&file, settings, accept_differences).await
        }
        TournamentCommand::Enter { id } => calls.enter(id).await,
        TournamentCommand::Leave { id } => calls.leave(id).await,
        TournamentCommand::Withdraw { id, player } => calls.withdraw(id, &player).await,
        TournamentCommand::Bye {
            id,
            player,
            round,
            zero,
        } => calls.bye(id, &player, round, zero).await,
        TournamentCommand::Start { id } => calls.start(id).await,
        TournamentCommand::Pair { id } => calls.pair(id).await,
        TournamentCommand::Result {
            id,
            round,
            board,
            result,
        } => calls.set_result(id, round, board, result).await,
        TournamentCommand::Results { id, round, file } => calls.results(id, round, &file).await,
        TournamentCommand::Correct {
            id,
            round,
            board,
            result,
            note,
        } => calls.correct(id, round, board, result, note).await,
        TournamentCommand::Show { id } => calls.show(id).await,
        TournamentCommand::Details(args) => calls.details(args).await,
        TournamentCommand::Standings { id, after } => calls.standings(id, after).await,
        TournamentCommand::Export { id } => calls.export(id).await,
        TournamentCommand::List => calls.list().await,
        TournamentCommand::Forbid {
            id,
            first,
            second,
            allow,
        } => calls.forbid(id, &first, &second, allow).await,
        TournamentCommand::Delete { id } => calls.delete(id).await,
        TournamentCommand::Organisers { id, action, player } => {
            calls.organisers(id, &action, &player).await
        }
    }
}

/// The services the tournament commands call, with a method per command.
struct Calls {
    scheduler: Scheduler,
    accounts: Accounts,
}

impl Calls {
    async fn create(&mut self, settings: spb::TournamentSettings) -> Result<()> {
        let t = self
            .scheduler
            .create_tournament(spb::CreateTournamentRequest {
                settings: Some(settings),
            })
            .await
            .map_err(rpc)?
            .into_inner()
            .tournament
            .context("no tournament in the answer")?;
        println!("tournament {} created", t.id);
        Ok(())
    }

    /// All or nothing: every name is looked up first (all the unknown ones are named, and
    /// nobody is added), players already entered are skipped (a rerun after a fix adds the
    /// rest), and the others are entered in one `AddPlayers` call.
    async fn add(&mut self, id: i64, players: &[String], rating: i32) -> Result<()> {
        let mut found: Vec<(&str, i64)> = Vec::with_capacity(players.len());
        let mut unknown: Vec<String> = Vec::new();
        for player in players {
            match player_id(&mut self.accounts, player).await {
                Ok(player_id) => found.push((player, player_id)),
                Err(error) if error.to_string().starts_with("no player named") => {
                    unknown.push(crate::client::quoted(player));
                }
                Err(error) => return Err(error),
            }
        }
        if !unknown.is_empty() {
            anyhow::bail!(
                "nobody was added: no player named {} (`hanniball player search NAME` finds \
                 players; `hanniball player register NAME` registers one); fix the names and run \
                 the command again",
                unknown.join(", ")
            );
        }
        let t = get(&mut self.scheduler, id).await?;
        let entered: std::collections::HashSet<i64> =
            t.entrants.iter().map(|e| e.player_id).collect();
        let mut entries = Vec::new();
        let mut seen = std::collections::HashSet::new();
        for (name, player_id) in found {
            if entered.contains(&player_id) {
                println!("{name} is already in tournament {id}");
            } else if seen.insert(player_id) {
                entries.push(spb::PlayerEntry { player_id, rating });
            }
        }
        if entries.is_empty() {
            return Ok(());
        }
        let added = self
            .scheduler
            .add_players(spb::AddPlayersRequest {
                tournament_id: id,
                players: entries,
            })
            .await
            .map_err(rpc)?
            .into_inner()
            .entrants;
        for entrant in added {
            println!(
                "{} ({}) added, rating {}",
                entrant.name, entrant.player_id, entrant.rating
            );
        }
        Ok(())
    }

    async fn enter(&mut self, id: i64) -> Result<()> {
        let entrant = self
            .scheduler
            .add_player(spb::AddPlayerRequest {
                tournament_id: id,
                player_id: 0,
                rating: 0,
            })
            .await
            .map_err(rpc)?
            .into_inner()
            .entrant
            .context("no entrant in the answer")?;
        if entrant.joined_round > 1 {
            println!(
                "entered tournament {id} as {}, a late entry from round {}",
                entrant.name, entrant.joined_round
            );
        } else {
            println!("entered tournament {id} as {}", entrant.name);
        }
        Ok(())
    }

    async fn leave(&mut self, id: i64) -> Result<()> {
        let answer = self
            .scheduler
            .withdraw_player(spb::WithdrawPlayerRequest {
                tournament_id: id,
                player_id: 0,
            })
            .await
            .map_err(rpc)?
            .into_inner();
        if answer.removed {
            println!("left tournament {id} (before the start: the entry is gone)");
        } else {
            println!(
                "withdrawn from tournament {id} from round {} on",
                answer.from_round
            );
        }
        Ok(())
    }

    async fn withdraw(&mut self, id: i64, player: &str) -> Result<()> {
        let player_id = player_id(&mut self.accounts, player).await?;
        let answer = self
            .scheduler
            .withdraw_player(spb::WithdrawPlayerRequest {
                tournament_id: id,
                player_id,
            })
            .await
            .map_err(rpc)?
            .into_inner();
        if answer.removed {
            println!("{player}'s entry removed (the tournament had not started)");
        } else {
            println!("{player} withdrawn from round {} on", answer.from_round);
        }
        Ok(())
    }

    async fn bye(&mut self, id: i64, player: &str, round: u32, zero: bool) -> Result<()> {
        let player_id = player_id(&mut self.accounts, player).await?;
        self.scheduler
            .request_bye(spb::RequestByeRequest {
                tournament_id: id,
                player_id,
                round,
                half_point: !zero,
            })
            .await
            .map_err(rpc)?;
        println!("bye recorded for {player} in round {round}");
        Ok(())
    }

    async fn start(&mut self, id: i64) -> Result<()> {
        let t = self
            .scheduler
            .start_tournament(spb::StartTournamentRequest { tournament_id: id })
            .await
            .map_err(rpc)?
            .into_inner()
            .tournament
            .context("no tournament in the answer")?;
        print!("{}", show(&t, None));
        Ok(())
    }

    async fn pair(&mut self, id: i64) -> Result<()> {
        let t = self
            .scheduler
            .pair_next_round(spb::PairNextRoundRequest { tournament_id: id })
            .await
            .map_err(rpc)?
            .into_inner()
            .tournament
            .context("no tournament in the answer")?;
        print!("{}", show(&t, None));
        Ok(())
    }

    async fn set_result(&mut self, id: i64, round: u32, board: u32, result: String) -> Result<()> {
        self.scheduler
            .set_result(spb::SetResultRequest {
                tournament_id: id,
                round,
                board,
                result: result.clone(),
            })
            .await
            .map_err(rpc)?;
        println!("round {round} board {board}: {result}");
        Ok(())
    }

    async fn import(
        &mut self,
        file: &str,
        settings: spb::TournamentSettings,
        accept_differences: bool,
    ) -> Result<()> {
        use hanniball_proto::accounts::v1 as apb;
        let bytes = if file == "-" {
            let mut bytes = Vec::new();
            std::io::Read::read_to_end(&mut std::io::stdin(), &mut bytes)
                .context("reading standard input")?;
            bytes
        } else {
            std::fs::read(file).with_context(|| format!("reading {file}"))?
        };
        let (text, _) = hanniball_pairing::trf::decode(&bytes, None)
            .map_err(|e| anyhow::anyhow!("{file}: {e}"))?;
        let read = hanniball_pairing::trf::read(
            text.as_bytes(),
            &hanniball_pairing::trf::ReadOptions::default(),
        )
        .map_err(|e| anyhow::anyhow!("{file}: {e}; nothing was imported"))?;
        // Each starting rank's player: the account of that name, or a new one.
        let mut ids = Vec::with_capacity(read.tournament.players.len());
        let mut registered = Vec::new();
        for p in &read.tournament.players {
            let name = p.name.trim();
            match player_id(&mut self.accounts, name).await {
                Ok(id) => ids.push(id),
                Err(error) if error.to_string().starts_with("no player named") => {
                    let player = self
                        .accounts
                        .register_player(apb::RegisterPlayerRequest {
                            name: name.to_owned(),
                            kind: apb::PlayerKind::Human as i32,
                            issue_token: false,
                        })
                        .await
                        .map_err(|status| {
                            anyhow::anyhow!(
                                "{file}: starting rank {}: {}; nothing was imported",
                                p.id,
                                rpc(status)
                            )
                        })?
                        .into_inner()
                        .player
                        .context("no player in the answer")?;
                    registered.push(player.name.clone());
                    ids.push(player.id);
                }
                Err(error) => return Err(error),
            }
        }
        if !registered.is_empty() {
            println!(
                "registered {} new players: {}",
                registered.len(),
                registered.join(", ")
            );
        }
        let t = self
            .scheduler
            .import_tournament(spb::ImportTournamentRequest {
                settings: Some(settings),
                trf: text,
                player_ids: ids,
                accept_differences,
            })
            .await
            .map_err(|status| anyhow::anyhow!("{file}: {}; nothing was imported", rpc(status)))?
            .into_inner()
            .tournament
            .context("no tournament in the answer")?;
        println!(
            "tournament {} imported: {} players, {} rounds played of {}",
            t.id,
            t.entrants.len(),
            t.current_round,
            t.rounds
        );
        if t.status() == spb::TournamentStatus::Running {
            println!(
                "pair round {} with `hanniball tournament pair {}`",
                t.current_round + 1,
                t.id
            );
        }
        Ok(())
    }

    async fn results(&mut self, id: i64, round: u32, file: &str) -> Result<()> {
        let text = if file == "-" {
            std::io::read_to_string(std::io::stdin()).context("reading standard input")?
        } else {
            std::fs::read_to_string(file).with_context(|| format!("reading {file}"))?
        };
        let results = round_results(&text, round)
            .map_err(|e| anyhow::anyhow!("{file}: {e}; no result was entered"))?;
        if results.is_empty() {
            anyhow::bail!(
                "{file}: no results in it (a line per board: `BOARD RESULT`, e.g. `3 1-0`)"
            );
        }
        let boards = self
            .scheduler
            .set_results(spb::SetResultsRequest {
                tournament_id: id,
                results,
            })
            .await
            .map_err(|status| anyhow::anyhow!("{}; no result was entered", rpc(status)))?
            .into_inner()
            .boards;
        for b in &boards {
            println!("round {} board {}: {}", b.round, b.number, b.result);
        }
        println!("{} results entered", boards.len());
        Ok(())
    }

    async fn correct(
        &mut self,
        id: i64,
        round: u32,
        board: u32,
        result: String,
        note: String,
    ) -> Result<()> {
        let answer = self
            .scheduler
            .correct_result(spb::CorrectResultRequest {
                tournament_id: id,
                round,
                board,
                result: result.clone(),
                note,
            })
            .await
            .map_err(rpc)?
            .into_inner();
        match answer.correction {
            None => println!("round {round} board {board}: {result} already; nothing changed"),
            Some(c) => {
                println!(
                    "round {round} board {board}: {} corrected to {}",
                    c.previous, c.result
                );
                if c.after_pairing {
                    println!(
                        "a later round was already paired: its pairings stand; the standings, \
                         TRF and ratings follow the correction"
                    );
                }
            }
        }
        Ok(())
    }

    async fn standings(&mut self, id: i64, after_round: u32) -> Result<()> {
        let s = self
            .scheduler
            .get_standings(spb::GetStandingsRequest {
                tournament_id: id,
                after_round,
            })
            .await
            .map_err(rpc)?
            .into_inner();
        println!("standings after {} rounds", s.rounds);
        let mut rows = vec![{
            let mut header = vec![
                "rank".to_owned(),
                "no".to_owned(),
                "player".to_owned(),
                "rating".to_owned(),
                "points".to_owned(),
            ];
            header.extend(s.tiebreak_names.iter().cloned());
            header
        }];
        for st in &s.standings {
            let mut row = vec![
                st.rank.to_string(),
                st.start_rank.to_string(),
                st.name.clone(),
                st.rating.to_string(),
                st.points.clone(),
            ];
            row.extend(st.tiebreaks.iter().cloned());
            rows.push(row);
        }
        print!("{}", crate::table::render(&rows));
        println!(
            "tie-breaks: {}{}",
            s.tiebreak_names.join(", "),
            rules_note(&s.tiebreak_rules, &s.tiebreak_unrated)
        );
        Ok(())
    }

    async fn export(&mut self, id: i64) -> Result<()> {
        let trf = self
            .scheduler
            .export_trf(spb::ExportTrfRequest { tournament_id: id })
            .await
            .map_err(rpc)?
            .into_inner()
            .trf;
        print!("{trf}");
        Ok(())
    }

    async fn list(&mut self) -> Result<()> {
        let list = self
            .scheduler
            .list_tournaments(spb::ListTournamentsRequest {
                status: spb::TournamentStatus::Unspecified.into(),
                limit: 100,
                ..Default::default()
            })
            .await
            .map_err(rpc)?
            .into_inner()
            .tournaments;
        let mut rows = vec![vec![
            "id".to_owned(),
            "name".to_owned(),
            "game".to_owned(),
            "round".to_owned(),
            "players".to_owned(),
        ]];
        for t in list {
            let s = t.settings.unwrap_or_default();
            rows.push(vec![
                t.id.to_string(),
                s.name,
                s.kind,
                format!("{}/{}", t.current_round, t.rounds),
                t.entrant_count.to_string(),
            ]);
        }
        print!("{}", crate::table::render(&rows));
        Ok(())
    }
}

mod organise;

#[cfg(test)]
mod results_file;
