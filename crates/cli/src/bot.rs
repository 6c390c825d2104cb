//! `hanniball bot run`: a reference bot (random, greedy or search) playing over gRPC like any
//! bot. It follows its games through the arbiter's player stream, resumes every active game
//! after a reconnect (from the game's current turn), optionally waits in the matchmaking queue,
//! and thinks within what its clock allows so that it never loses on time by its own slowness.

use std::collections::{HashMap, HashSet};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use anyhow::{Context, Result};
use clap::Args;
use hanniball_bots::{BotKind, Deadline, Think};
use hanniball_client::{Bearer, pause};
use hanniball_proto::accounts::v1 as apb;
use hanniball_proto::accounts::v1::accounts_client::AccountsClient;
use hanniball_proto::arbiter::v1 as pb;
use hanniball_proto::arbiter::v1::arbiter_client::ArbiterClient;
use hanniball_proto::scheduler::v1 as spb;
use hanniball_proto::scheduler::v1::scheduler_client::SchedulerClient;
use hanniball_rules::{GameKind, GameOptions};
use tokio_stream::StreamExt;
use tokio_util::sync::CancellationToken;
use tonic::service::interceptor::InterceptedService;
use tonic::transport::Channel;

use crate::bot_report::{Ended, Report, Voice, seconds};

type Arbiter = ArbiterClient<InterceptedService<Channel, Bearer>>;

#[derive(Debug, Clone, Args)]
pub struct BotArgs {
    /// Strategy: random, greedy or search.
    #[arg(long, default_value = "search")]
    pub strategy: BotKind,
    /// Wait in the matchmaking queue for games (otherwise play the games given, e.g. tournaments).
    #[arg(long)]
    pub queue: bool,
    /// Queue: the game (hanniball or paper-football).
    #[arg(long, default_value = "hanniball")]
    pub kind: String,
    /// Queue: Fischer time control in seconds, `initial+increment`; none: untimed.
    #[arg(long)]
    pub time: Option<String>,
    /// Queue: rated games.
    #[arg(long)]
    pub rated: bool,
    /// Stop after this many finished games (0: never).
    #[arg(long, default_value_t = 0)]
    pub games: u32,
    /// Longest think per turn in milliseconds (the clock may allow less).
    #[arg(long, default_value_t = 1_000)]
    pub think_ms: u64,
    /// Shortest time per turn in milliseconds, a pace people can follow (the clock may allow
    /// less); 0: move as soon as the turn is chosen.
    #[arg(long, default_value_t = 0)]
    pub min_think_ms: u64,
    /// Say only what goes wrong, and the summary at the end.
    #[arg(long, conflicts_with = "json")]
    pub quiet: bool,
    /// One JSON object per event on standard output (connected, unreachable, lost,
    /// reconnected, game_started, game_over, error, summary), for scripts.
    #[arg(long)]
    pub json: bool,
    /// Accounts' URL, where it runs apart from the arbiter (`serve --only accounts`);
    /// default: the server's.
    #[arg(long)]
    pub accounts: Option<String>,
}

/// A deadline on the wall clock (the bots crate reads no clock itself).
struct WallDeadline(Instant);

impl Deadline for WallDeadline {
    fn expired(&mut self) -> bool {
        Instant::now() >= self.0
    }
}

/// How long to think: a slice of the remaining time plus most of the increment, never more than
/// `cap`, and always leaving a safety margin for the network.
fn budget(state: &pb::GameState, me: pb::Side, increment_ms: i64, cap: Duration) -> Duration {
    let Some(clocks) = &state.clocks else {
        return cap;
    };
    if clocks.running() == pb::Side::Unspecified {
        return cap;
    }
    let remaining = if me == pb::Side::White {
        clocks.white_ms
    } else {
        clocks.black_ms
    };
    let slice = remaining / 30 + increment_ms * 3 / 4;
    let safe = (remaining - 500).max(0) / 2;
    Duration::from_millis(slice.min(safe).max(5) as u64).min(cap)
}

/// One bot connected to a server.
#[derive(Clone)]
pub struct Bot {
    pub args: BotArgs,
    pub server: String,
    pub token: String,
    /// How to reach an `https://` server.
    pub tls: hanniball_client::ClientTls,
    /// Finished games seen (to stop after `--games`).
    finished: Arc<Mutex<HashSet<i64>>>,
    /// Games with a task playing them.
    playing: Arc<Mutex<HashSet<i64>>>,
    /// What the bot tells its runner.
    pub report: Arc<Report>,
    /// Players' names, by id (opponents in the report).
    names: Arc<Mutex<HashMap<i64, String>>>,
    /// Games announced as started, and as over.
    announced: Arc<Mutex<HashSet<i64>>>,
    reported: Arc<Mutex<HashSet<i64>>>,
}

/// How long a bot waits for the server's first answer before saying it cannot reach it.
const FIRST_ANSWER: Duration = Duration::from_millis(1_500);
/// Until the first answer: wait 1 s, doubling up to this, between tries.
const RETRY_MAX: Duration = Duration::from_secs(10);
/// After a lost connection: the first wait, doubling up to the last.
const RECONNECT_FIRST: Duration = Duration::from_millis(200);
const RECONNECT_MAX: Duration = Duration::from_secs(5);
/// A game's stream lost: watch again after this times the failures in a row (at most 8), and
/// give up after so many failures in a row (the session follows it again on reconnecting).
const GAME_RETRY: Duration = Duration::from_millis(200);
const GAME_RETRIES: u32 = 20;

impl Bot {
    #[must_use]
    pub fn new(args: BotArgs, server: &str, token: &str) -> Bot {
        let voice = if args.json {
            Voice::Json
        } else if args.quiet {
            Voice::Quiet
        } else {
            Voice::Text
        };
        Bot {
            args,
            server: server.to_owned(),
            token: token.to_owned(),
            tls: hanniball_client::ClientTls::default(),
            finished: Arc::default(),
            playing: Arc::default(),
            report: Arc::new(Report::new(voice)),
            names: Arc::default(),
            announced: Arc::default(),
            reported: Arc::default(),
        }
    }

    /// True the first time a game is announced as started (a resumed game is not announced
    /// twice).
    fn announce(&self, game: i64) -> bool {
        self.announced.lock().expect("announced lock").insert(game)
    }

    /// Reports a game's end once (its last turn and its end both say so).
    fn ended(
        &self,
        game_id: i64,
        colour: pb::Side,
        opponent: &str,
        game: Option<&pb::Game>,
        state: &pb::GameState,
    ) {
        if !self.reported.lock().expect("reported lock").insert(game_id) {
            return;
        }
        let time_left_ms = game
            .and_then(|g| g.time_control)
            .and(state.clocks)
            .map(|c| {
                if colour == pb::Side::White {
                    c.white_ms
                } else {
                    c.black_ms
                }
            });
        self.report.ended(&Ended {
            game: game_id,
            colour,
            opponent,
            result: state.result.as_ref(),
            turns: state.next_turn_number.saturating_sub(1),
            time_left_ms,
        });
    }

    /// A player's name for the report (its id when Accounts does not say).
    async fn name_of(&self, id: i64, game: i64, stop: &CancellationToken) -> String {
        if let Some(name) = self.names.lock().expect("names lock").get(&id) {
            return name.clone();
        }
        let Ok(channel) = self.accounts_channel() else {
            return format!("player {id}");
        };
        let accounts = AccountsClient::with_interceptor(channel, Bearer::new(&self.token));
        let get = || {
            let mut accounts = accounts.clone();
            async move {
                accounts
                    .get_player(apb::GetPlayerRequest {
                        player: Some(apb::get_player_request::Player::Id(id)),
                    })
                    .await
            }
        };
        match self.patiently(Some(game), stop, get).await {
            Ok(Some(apb::GetPlayerResponse {
                player: Some(player),
            })) => {
                self.names
                    .lock()
                    .expect("names lock")
                    .insert(id, player.name.clone());
                player.name
            }
            // Not known now (the server away, say): the id, and the name next time.
            _ => format!("player {id}"),
        }
    }

    fn channel(&self) -> Result<Channel> {
        hanniball_client::connect_with(&self.server, &self.tls).context("bad server URL")
    }

    /// Accounts' channel: `--accounts`, else the server's.
    fn accounts_channel(&self) -> Result<Channel> {
        match &self.args.accounts {
            Some(url) => {
                hanniball_client::connect_with(url, &self.tls).context("bad --accounts URL")
            }
            None => self.channel(),
        }
    }

    fn arbiter(&self) -> Result<Arbiter> {
        Ok(ArbiterClient::with_interceptor(
            self.channel()?,
            Bearer::new(&self.token),
        ))
    }

    fn done(&self) -> bool {
        self.args.games > 0
            && self.finished.lock().expect("finished lock").len() >= self.args.games as usize
    }

    /// Plays until `--games` games are finished or `stop` is cancelled; reconnects after any
    /// failure of the connection, saying so and when it tries again.
    pub async fn run(&self, stop: CancellationToken) -> Result<()> {
        // A bad --time is the user's to fix: say so now, not as a lost connection forever.
        if let Some(time) = &self.args.time {
            crate::client::parse_time(time)
                .with_context(|| format!("--time {}", crate::client::quoted(time)))?;
        }
        let mut accounts =
            AccountsClient::with_interceptor(self.accounts_channel()?, Bearer::new(&self.token));
        let mut retry = Duration::from_secs(1);
        let me = loop {
            let mut request = tonic::Request::new(apb::WhoAmIRequest {});
            request.set_timeout(FIRST_ANSWER);
            let answer = tokio::select! {
                () = stop.cancelled() => return Ok(()),
                answer = tokio::time::timeout(FIRST_ANSWER, accounts.who_am_i(request)) => answer,
            };
            match answer {
                Ok(Ok(answer)) => {
                    break answer
                        .into_inner()
                        .player
                        .context("this token is the admin's: a bot needs a player token")?;
                }
                Ok(Err(status)) if is_refusal(&status) => return Err(refused_token(&status)),
                Ok(Err(status)) => {
                    if let Some(wait) = pushback(&status) {
                        self.report.rate_limited(None, status.message(), wait);
                        if !pause(wait, &stop).await {
                            return Ok(());
                        }
                        continue;
                    }
                    self.report
                        .unreachable(&self.server, &status_reason(&status), retry);
                    if !pause(retry, &stop).await {
                        return Ok(());
                    }
                }
                Err(_) => {
                    self.report.unreachable(
                        &self.server,
                        &format!("no answer within {} ms", FIRST_ANSWER.as_millis()),
                        retry,
                    );
                    if !pause(retry, &stop).await {
                        return Ok(());
                    }
                }
            }
            retry = (retry * 2).min(RETRY_MAX);
        };
        self.report.connected(
            &self.server,
            &me.name,
            me.id,
            &self.args.strategy.to_string(),
            self.args.queue,
        );
        let mut backoff = RECONNECT_FIRST;
        // What the runner was last told: that the bot is connected (a failure now is a lost
        // connection, and its back-off starts again) or that it cannot reach the server.
        let mut working = true;
        while !stop.is_cancelled() && !self.done() {
            let mut up = false;
            let result = self.session(me.id, !working, &mut up, &stop).await;
            if up {
                working = true;
                backoff = RECONNECT_FIRST;
            }
            match result {
                Ok(()) => {}
                Err(error) if is_refusal_error(&error) => {
                    return Err(error.context("the server no longer takes this bot's token"));
                }
                // A rate limit is no outage: wait as the server says, back-off untouched.
                Err(error) if rate_limit(&error).is_some() => {
                    let (message, wait) = rate_limit(&error).expect("a rate limit");
                    self.report.rate_limited(None, &message, wait);
                    if !pause(wait, &stop).await {
                        break;
                    }
                }
                Err(error) => {
                    if working {
                        self.report.lost(&self.server, &why(&error), backoff);
                    } else {
                        self.report.unreachable(&self.server, &why(&error), backoff);
                    }
                    working = false;
                    if !pause(backoff, &stop).await {
                        break;
                    }
                    backoff = (backoff * 2).min(RECONNECT_MAX);
                }
            }
        }
        // The games' own tasks tell their ends (the player stream may have told first): let
        // them, briefly, so that the summary counts every game.
        let settled = Instant::now() + Duration::from_secs(2);
        while !self.playing.lock().expect("playing lock").is_empty() && Instant::now() < settled {
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        Ok(())
    }

    /// One connection: resume active games, join the queue, then follow the player stream.
    /// `again`: the last connection failed (say when this one works); `up`: set once the
    /// player stream and the active games are read.
    async fn session(
        &self,
        me: i64,
        again: bool,
        up: &mut bool,
        stop: &CancellationToken,
    ) -> Result<()> {
        let arbiter = self.arbiter()?;
        let watch = || {
            let mut arbiter = arbiter.clone();
            async move { arbiter.watch_player(pb::WatchPlayerRequest {}).await }
        };
        let Some(mut events) = self.patiently(None, stop, watch).await? else {
            return Ok(());
        };
        // Games that started while we were away: resume each from its current turn.
        let list = || {
            let mut arbiter = arbiter.clone();
            async move {
                arbiter
                    .list_games(pb::ListGamesRequest {
                        player_id: me,
                        status: pb::GameStatus::Active.into(),
                        before_id: 0,
                        limit: 500,
                    })
                    .await
            }
        };
        let Some(listed) = self.patiently(None, stop, list).await? else {
            return Ok(());
        };
        let active = listed.games;
        *up = true;
        if again {
            self.report.reconnected(&self.server, active.len());
        }
        for game in active {
            self.spawn_game(game.id, me, stop);
        }
        self.join_queue(stop).await?;
        loop {
            let event = tokio::select! {
                () = stop.cancelled() => return Ok(()),
                event = events.next() => event,
            };
            let Some(event) = event else {
                anyhow::bail!("the server closed the player stream");
            };
            let event = event?;
            match event.event {
                Some(pb::player_event::Event::GameStarted(game)) => {
                    self.spawn_game(game.id, me, stop);
                }
                Some(pb::player_event::Event::YourTurn(_)) => {
                    self.spawn_game(event.game_id, me, stop);
                }
                Some(pb::player_event::Event::GameOver(_)) => {
                    self.finished
                        .lock()
                        .expect("finished lock")
                        .insert(event.game_id);
                    if self.done() {
                        return Ok(());
                    }
                    self.join_queue(stop).await?;
                }
                _ => {}
            }
        }
    }

    async fn join_queue(&self, stop: &CancellationToken) -> Result<()> {
        if !self.args.queue || self.done() {
            return Ok(());
        }
        let scheduler =
            SchedulerClient::with_interceptor(self.channel()?, Bearer::new(&self.token));
        let time_control = self
            .args
            .time
            .as_deref()
            .map(crate::client::parse_time)
            .transpose()?;
        let request = spb::JoinQueueRequest {
            kind: self.args.kind.clone(),
            ruleset: String::new(),
            time_control,
            rated: self.args.rated,
        };
        let join = || {
            let mut scheduler = scheduler.clone();
            let request = request.clone();
            async move { scheduler.join_queue(request).await }
        };
        self.patiently(None, stop, join).await?;
        Ok(())
    }

    /// Makes a call, and makes it again as long as the server refuses it for its rate limit,
    /// after the wait its answer asks for (saying so each time). `None`: stopped meanwhile.
    async fn patiently<T, F, Fut>(
        &self,
        game: Option<i64>,
        stop: &CancellationToken,
        mut call: F,
    ) -> Result<Option<T>, tonic::Status>
    where
        F: FnMut() -> Fut,
        Fut: std::future::Future<Output = Result<tonic::Response<T>, tonic::Status>>,
    {
        loop {
            let status = match call().await {
                Ok(answer) => return Ok(Some(answer.into_inner())),
                Err(status) => status,
            };
            let Some(wait) = pushback(&status) else {
                return Err(status);
            };
            self.report.rate_limited(game, status.message(), wait);
            if !pause(wait, stop).await {
                return Ok(None);
            }
        }
    }

    /// Starts a task playing `game` unless one already does.
    fn spawn_game(&self, game: i64, me: i64, stop: &CancellationToken) {
        if !self.playing.lock().expect("playing lock").insert(game) {
            return;
        }
        let bot = self.clone();
        let stop = stop.clone();
        tokio::spawn(async move {
            let result = bot.play(game, me, &stop).await;
            bot.playing.lock().expect("playing lock").remove(&game);
            match result {
                Ok(()) if !stop.is_cancelled() => {
                    bot.finished.lock().expect("finished lock").insert(game);
                }
                Ok(()) => {}
                Err(error) => bot.report.error(
                    Some(game),
                    &why(&error),
                    "stopped following it; followed again on reconnecting or at its next turn",
                ),
            }
        });
    }

    /// Plays one game to its end: watch it (snapshot first), move whenever it is our turn, and
    /// watch again from a fresh snapshot whenever the stream or a turn's delivery fails.
    async fn play(&self, game_id: i64, me: i64, stop: &CancellationToken) -> Result<()> {
        let arbiter = self.arbiter()?;
        // Failures since the game last told something: the first of a run is reported (the
        // others say the same while the server is away), and too many end the task.
        let mut failures = 0_u32;
        loop {
            let watch = || {
                let mut arbiter = arbiter.clone();
                async move {
                    arbiter
                        .watch_game(pb::WatchGameRequest {
                            game_id,
                            from_turn: 0,
                        })
                        .await
                }
            };
            let failure = match self.patiently(Some(game_id), stop, watch).await {
                Ok(None) => return Ok(()),
                Ok(Some(stream)) => {
                    let followed = self.follow(&arbiter, game_id, me, stream, stop).await?;
                    match followed {
                        Followed::Done => return Ok(()),
                        Followed::Failed { what, progress } => {
                            if progress {
                                failures = 0;
                            }
                            what
                        }
                    }
                }
                Err(status) => format!("cannot watch it ({})", status_reason(&status)),
            };
            failures += 1;
            if failures > GAME_RETRIES {
                anyhow::bail!("{failure}, {GAME_RETRIES} times in a row");
            }
            let wait = GAME_RETRY * failures.min(8);
            if failures == 1 {
                self.report.error(
                    Some(game_id),
                    &failure,
                    &format!(
                        "watching it again in {} (then up to every {}, {GAME_RETRIES} tries)",
                        seconds(wait),
                        seconds(GAME_RETRY * 8)
                    ),
                );
            }
            if !pause(wait, stop).await {
                return Ok(());
            }
        }
    }

    /// Follows one watch of a game: reports its start and end, moves on the bot's turns.
    async fn follow(
        &self,
        arbiter: &Arbiter,
        game_id: i64,
        me: i64,
        mut stream: tonic::Streaming<pb::GameEvent>,
        stop: &CancellationToken,
    ) -> Result<Followed> {
        let mut game: Option<pb::Game> = None;
        let mut colour = pb::Side::Unspecified;
        let mut opponent = String::new();
        let mut progress = false;
        loop {
            let event = tokio::select! {
                () = stop.cancelled() => return Ok(Followed::Done),
                event = stream.next() => event,
            };
            let event = match event {
                Some(Ok(event)) => event,
                Some(Err(status)) => {
                    return Ok(Followed::Failed {
                        what: format!("its stream failed ({})", status_reason(&status)),
                        progress,
                    });
                }
                None => {
                    return Ok(Followed::Failed {
                        what: "the server ended its stream".to_owned(),
                        progress,
                    });
                }
            };
            progress = true;
            let state = match event.event {
                Some(pb::game_event::Event::Snapshot(snapshot)) => {
                    let state = snapshot.state.clone();
                    if game.is_none() {
                        colour = if snapshot.white_player_id == me {
                            pb::Side::White
                        } else {
                            pb::Side::Black
                        };
                        let other = if colour == pb::Side::White {
                            snapshot.black_player_id
                        } else {
                            snapshot.white_player_id
                        };
                        opponent = self.name_of(other, game_id, stop).await;
                        if state
                            .as_ref()
                            .is_some_and(|s| s.status() == pb::GameStatus::Active)
                            && self.announce(game_id)
                        {
                            self.report.started(
                                game_id,
                                colour,
                                &opponent,
                                snapshot.time_control.as_ref(),
                            );
                        }
                    }
                    game = Some(snapshot);
                    state
                }
                Some(pb::game_event::Event::TurnPlayed(played)) => played.state,
                Some(pb::game_event::Event::GameOver(over)) => {
                    let mut state = over.state.unwrap_or_default();
                    if state.result.is_none() {
                        state.result = over.result;
                    }
                    self.ended(game_id, colour, &opponent, game.as_ref(), &state);
                    return Ok(Followed::Done);
                }
                _ => None,
            };
            let (Some(game), Some(state)) = (&game, state) else {
                continue;
            };
            if state.status() != pb::GameStatus::Active {
                if self
                    .announced
                    .lock()
                    .expect("announced lock")
                    .contains(&game_id)
                {
                    self.ended(game_id, colour, &opponent, Some(game), &state);
                }
                return Ok(Followed::Done);
            }
            if state.side_to_move() == colour {
                match self.move_once(arbiter, game, &state, colour, stop).await {
                    Ok(()) => {}
                    // The server (or the replica the call went to) is away: watch again from
                    // a fresh snapshot and move from there, rather than leave the clock
                    // running with nobody to move.
                    Err(error) if is_transient(&error) => {
                        return Ok(Followed::Failed {
                            what: format!("turn not delivered ({})", why(&error)),
                            progress,
                        });
                    }
                    Err(error) => return Err(error),
                }
            }
        }
    }

    async fn move_once(
        &self,
        arbiter: &Arbiter,
        game: &pb::Game,
        state: &pb::GameState,
        mine: pb::Side,
        stop: &CancellationToken,
    ) -> Result<()> {
        let kind: GameKind = game
            .kind
            .parse()
            .map_err(|_| anyhow::anyhow!("unknown game kind {:?} from the server", game.kind))?;
        let options = GameOptions {
            ruleset: (!game.ruleset.is_empty()).then(|| game.ruleset.clone()),
            max_turns: (game.max_turns > 0).then_some(game.max_turns),
        };
        let position = state.position.clone();
        let increment = game.time_control.map_or(0, |tc| tc.increment_ms);
        let think = budget(
            state,
            mine,
            increment,
            Duration::from_millis(self.args.think_ms),
        );
        // The pace: at least this long a turn, within the same share of the clock as a think.
        let pace = budget(
            state,
            mine,
            increment,
            Duration::from_millis(self.args.min_think_ms),
        );
        let started = Instant::now();
        let strategy = self.args.strategy;
        let seed = (game.id as u64) << 16 | u64::from(state.next_turn_number);
        let turn = tokio::task::spawn_blocking(move || -> Result<String> {
            let loaded = kind
                .load(&position, &options)
                .map_err(|e| anyhow::anyhow!("cannot read the position: {e}"))?;
            let mut deadline = WallDeadline(Instant::now() + think);
            hanniball_bots::choose_turn(
                strategy,
                loaded.as_ref(),
                Think {
                    deadline: &mut deadline,
                    max_nodes: None,
                    seed,
                },
            )
            .map_err(|e| anyhow::anyhow!("{e}"))
        })
        .await
        .context("the thinking task failed")??;
        if self.args.min_think_ms > 0 {
            tokio::time::sleep(pace.saturating_sub(started.elapsed())).await;
        }
        let submit = || {
            let mut arbiter = arbiter.clone();
            let request = pb::SubmitTurnRequest {
                game_id: game.id,
                turn_number: state.next_turn_number,
                turn: turn.clone(),
            };
            async move { arbiter.submit_turn(request).await }
        };
        // A retry after a rate limit is idempotent: the turn number makes it so.
        match self.patiently(Some(game.id), stop, submit).await {
            Ok(_) => Ok(()),
            // Stale (we already moved, or the game ended meanwhile): the stream tells what's
            // next.
            Err(status)
                if matches!(
                    status.code(),
                    tonic::Code::FailedPrecondition | tonic::Code::Aborted
                ) =>
            {
                tracing::debug!(game = game.id, message = status.message(), "turn not taken");
                Ok(())
            }
            Err(status) => Err(anyhow::Error::new(status))
                .with_context(|| format!("submitting {turn:?} in game {}", game.id)),
        }
    }
}

/// How one watch of a game ended.
enum Followed {
    /// The game is over, or the bot is stopping.
    Done,
    /// The stream or a turn's delivery failed (`what`); `progress`: the watch told something
    /// first (the game is not stuck on this failure).
    Failed { what: String, progress: bool },
}

/// What went wrong with a call, in a few words: for a transport failure its innermost reason
/// (`Connection refused (os error 111)`), otherwise the code and the server's message.
fn status_reason(status: &tonic::Status) -> String {
    let mut source = std::error::Error::source(status);
    let mut innermost = None;
    while let Some(inner) = source {
        innermost = Some(inner.to_string());
        source = inner.source();
    }
    innermost.unwrap_or_else(|| format!("{:?}: {}", status.code(), status.message()))
}

/// [`status_reason`] of the call that failed in `error`, or the error itself.
fn why(error: &anyhow::Error) -> String {
    error
        .chain()
        .find_map(|cause| cause.downcast_ref::<tonic::Status>())
        .map_or_else(|| format!("{error:#}"), status_reason)
}

/// The server's back-off when it refused a call for a limit: `RESOURCE_EXHAUSTED` with
/// `grpc-retry-pushback-ms` (or `retry-after`, in seconds), as `svc-kit`'s edge sends them.
fn pushback(status: &tonic::Status) -> Option<Duration> {
    if status.code() != tonic::Code::ResourceExhausted {
        return None;
    }
    let number =
        |key: &str| -> Option<u64> { status.metadata().get(key)?.to_str().ok()?.parse().ok() };
    number("grpc-retry-pushback-ms")
        .map(Duration::from_millis)
        .or_else(|| number("retry-after").map(Duration::from_secs))
        .map(|wait| wait.clamp(Duration::from_millis(1), RETRY_MAX))
}

/// The server's message and back-off when `error` is a call refused for a limit.
fn rate_limit(error: &anyhow::Error) -> Option<(String, Duration)> {
    let status = error
        .chain()
        .find_map(|cause| cause.downcast_ref::<tonic::Status>())?;
    Some((status.message().to_owned(), pushback(status)?))
}

/// True when the server refuses the token itself: retrying cannot help.
fn is_refusal(status: &tonic::Status) -> bool {
    status.code() == tonic::Code::Unauthenticated
}

fn is_refusal_error(error: &anyhow::Error) -> bool {
    error.chain().any(|cause| {
        cause
            .downcast_ref::<tonic::Status>()
            .is_some_and(is_refusal)
    })
}

fn refused_token(status: &tonic::Status) -> anyhow::Error {
    anyhow::anyhow!(
        "the server refused the token ({}): give the bot its player's token \
         (--token or HANNIBALL_TOKEN; `hanniball player token NAME` issues one)",
        status.message()
    )
}

/// True when `error` comes from a call that may succeed if made again: the server (or one
/// replica of it) unreachable, a timeout, a transport failure.
fn is_transient(error: &anyhow::Error) -> bool {
    error.chain().any(|cause| {
        cause.downcast_ref::<tonic::Status>().is_some_and(|status| {
            matches!(
                status.code(),
                tonic::Code::Unavailable
                    | tonic::Code::Unknown
                    | tonic::Code::DeadlineExceeded
                    | tonic::Code::Cancelled
                    | tonic::Code::ResourceExhausted
            )
        })
    })
}

/// `hanniball bot run`.
pub async fn run(connection: crate::client::Connection, args: BotArgs) -> Result<()> {
    let token = connection
        .token
        .clone()
        .context("a bot needs its player token: --token or HANNIBALL_TOKEN")?;
    let server = crate::client::server_urls(&connection.server);
    let mut bot = Bot::new(args, &server, &token);
    bot.tls = connection.tls()?;
    let stop = CancellationToken::new();
    let on_signal = stop.clone();
    tokio::spawn(async move {
        stop_signal().await;
        on_signal.cancel();
    });
    let result = bot.run(stop).await;
    bot.report.summary();
    result
}

/// Ctrl-C, or SIGTERM (a service manager's stop): the bot ends and sums up either way.
async fn stop_signal() {
    let ctrl_c = async {
        if tokio::signal::ctrl_c().await.is_err() {
            // No handler could be installed: this signal will not stop the bot.
            std::future::pending::<()>().await;
        }
    };
    #[cfg(unix)]
    if let Ok(mut term) = tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate())
    {
        tokio::select! {
            () = ctrl_c => {}
            _ = term.recv() => {}
        }
        return;
    }
    ctrl_c.await;
}
