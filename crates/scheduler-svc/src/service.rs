//! The Scheduler gRPC service: requests decoded and checked here, work done by [`Core`].

use std::sync::Arc;

use crate::domain::{
    Board, BoardKind, BoardResult, ByeRequest, Correction, Entrant, QueueEntry, System, Tournament,
    TournamentStatus, rules_in_force,
};
use hanniball_ids::{GameId, PlayerId, TimeControl};
use hanniball_pairing::Colour;
use hanniball_pairing::tiebreak::{Cut, Options, Rules, TieBreak, Unrated};
use hanniball_proto::scheduler::v1 as pb;
use hanniball_rules::GameKind;
use hanniball_svc_kit::limits;
use hanniball_svc_kit::{Auth, Caller, Scope};
use tonic::{Request, Response, Status};

use crate::core::{Core, now, time_control};
use crate::details::Details;
use crate::error::{ServiceError, ServiceResult};
use crate::model::{Loaded, Unpairable};

/// The service.
#[derive(Debug)]
pub struct SchedulerService {
    pub core: Core,
    pub auth: Arc<Auth>,
    pub pages: crate::PagesUrl,
}

impl SchedulerService {
    /// The caller, if its token holds `scope` (README, "Token scopes").
    async fn caller<T>(&self, request: &Request<T>, scope: Scope) -> ServiceResult<Caller> {
        Ok(self
            .auth
            .caller(request.metadata(), &self.core.accounts, scope)
            .await?)
    }

    /// Who may change tournament `id`: the admin, or one of its organisers with the `organise`
    /// scope; anyone else is refused before anything is read or changed. `Organiser::Player`
    /// carries the organiser's id.
    async fn organiser<T>(&self, request: &Request<T>, id: i64) -> ServiceResult<Caller> {
        let caller = self.caller(request, Scope::Organise).await?;
        self.organises(caller, id).await?;
        Ok(caller)
    }

    /// Fails unless `caller` (holding `organise`) may change tournament `id`.
    async fn organises(&self, caller: Caller, id: i64) -> ServiceResult<()> {
        let Caller::Player(me) = caller else {
            return Ok(());
        };
        let id = positive(id, "tournament_id")?;
        if self.core.store.is_organiser(id, me).await? {
            return Ok(());
        }
        if self.core.store.tournament_version(id).await?.is_none() {
            return Err(ServiceError::NotFound {
                what: "tournament",
                id: id.to_string(),
            });
        }
        Err(ServiceError::Denied(format!(
            "you do not organise tournament {id}: only its organisers and the admin change it"
        )))
    }

    /// The player a tournament-entry call is about, with who asks: the admin or one of the
    /// tournament's organisers names any player (answered as `Caller::Admin`: the organiser's
    /// rights); a player (with the `queue` scope: an entry is how a bot gets games from the
    /// scheduler) only itself, as its own id or 0 ("me").
    async fn entrant(
        &self,
        request: &Request<impl Sized>,
        tournament: i64,
        player: i64,
    ) -> ServiceResult<(Caller, i64)> {
        let grant = self
            .auth
            .grant(request.metadata(), &self.core.accounts)
            .await?;
        match grant.caller {
            Caller::Admin => Ok((Caller::Admin, positive(player, "player_id")?)),
            Caller::Player(id) if player == 0 || id.0 == player => {
                grant.require(Scope::Queue)?;
                Ok((Caller::Player(id), id.0))
            }
            Caller::Player(_) if grant.scopes.contains(Scope::Organise) => {
                self.organises(grant.caller, tournament).await?;
                Ok((Caller::Admin, positive(player, "player_id")?))
            }
            Caller::Player(_) => Err(ServiceError::Denied(format!(
                "only the organiser (admin) or player {player} may do this"
            ))),
        }
    }

    /// Who made a change, as the records say it: "admin", or the organiser's name.
    async fn by(&self, caller: Caller) -> String {
        match caller {
            Caller::Admin => "admin".to_owned(),
            Caller::Player(id) => match self.core.accounts.player(id).await {
                Ok(Some(row)) => row.name,
                _ => format!("player {id}"),
            },
        }
    }

    /// The organisers of the tournaments in `sent`, filled in.
    async fn with_organisers(&self, sent: &mut [pb::Tournament]) -> ServiceResult<()> {
        let ids: Vec<i64> = sent.iter().map(|t| t.id).collect();
        let mut found = self.core.store.organisers(&ids).await?;
        for t in sent {
            let organisers = found.remove(&t.id).unwrap_or_default();
            t.organiser_ids = organisers.into_iter().map(|p| p.0).collect();
        }
        Ok(())
    }
}

/// The largest TRF file `ImportTournament` reads (within the 256 KiB request limit).
const MAX_TRF_BYTES: usize = 200_000;

/// The most items one batch call carries.
const MAX_BATCH: usize = 10_000;
/// Adjudications in flight at once while entering many results.
const IN_FLIGHT: usize = 64;

impl SchedulerService {
    /// The organiser's results (`SetResult`, `SetResults`): every board checked first, then the
    /// boards' live games ended with their results in the arbiter, then all the results stored
    /// in one transaction, the cached tournament changed in place, and the next round paired
    /// when this completed the round. The boards as stored, in the order given.
    async fn enter_results(
        &self,
        tournament: i64,
        items: Vec<pb::BoardResult>,
    ) -> ServiceResult<Vec<pb::Board>> {
        let id = positive(tournament, "tournament_id")?;
        let loaded = self.core.load(id).await?;
        let mut seen = std::collections::HashSet::new();
        let mut todo: Vec<Entry> = Vec::with_capacity(items.len());
        let mut unchanged: Vec<(i32, i32)> = Vec::new();
        for item in &items {
            let result = result_of(item.round, item.board, &item.result)?;
            let (round, number) = (
                i32::try_from(item.round).unwrap_or(i32::MAX),
                i32::try_from(item.board).unwrap_or(i32::MAX),
            );
            let row = loaded.board(round, number).ok_or_else(|| {
                if round > loaded.tournament.current_round {
                    ServiceError::FailedPrecondition(format!(
                        "round {} of tournament {id} is not paired yet (the current round is {})",
                        item.round, loaded.tournament.current_round
                    ))
                } else {
                    ServiceError::NotFound {
                        what: "board",
                        id: format!("{}.{} of tournament {id}", item.round, item.board),
                    }
                }
            })?;
            if !row.kind.is_game() {
                return Err(ServiceError::FailedPrecondition(format!(
                    "board {}.{} is a {}, not a game",
                    item.round,
                    item.board,
                    row.kind.words()
                )));
            }
            if !seen.insert((round, number)) {
                return Err(ServiceError::InvalidArgument(format!(
                    "board {}.{} is listed twice",
                    item.round, item.board
                )));
            }
            if let Some(known) = row.result {
                if known == result {
                    // Entered already (a form sent twice, a retry): nothing changes.
                    unchanged.push((round, number));
                    continue;
                }
                return Err(ServiceError::FailedPrecondition(format!(
                    "board {}.{} already has the result {known}: to change it, correct it \
                     (CorrectResult; `hanniball tournament correct {id} {} {} {}`)",
                    item.round, item.board, item.round, item.board, item.result
                )));
            }
            let record = if loaded.tournament.over_the_board && row.game.is_none() {
                crate::core::board_game(&loaded.tournament, row)
            } else {
                None
            };
            todo.push((round, number, result, row.game, record));
        }
        let advances =
            loaded.tournament.auto_pair && loaded.tournament.status == TournamentStatus::Running;
        let unchanged: Vec<pb::Board> = unchanged
            .iter()
            .filter_map(|(round, number)| loaded.board(*round, *number).map(board))
            .collect();
        // Not held while the arbiter works: a copy no call holds is changed in place, one still
        // held would be copied whole.
        drop(loaded);
        // A board with a game: the game ends with this result first (one result everywhere).
        let (decided, refusal) = self.end_games(todo).await?;
        if decided.is_empty() {
            return match refusal {
                Some(refusal) => Err(refusal),
                None => Ok(unchanged),
            };
        }
        let version = self.core.store.set_board_results(id, &decided).await?;
        self.core
            .loaded
            .update(id, version, |loaded| {
                for (round, number, result, short, game) in &decided {
                    if let Some(board) = loaded.board_mut(*round, *number) {
                        board.result = Some(*result);
                        board.short = *short;
                        board.corrected = true;
                        if let Some(game) = game {
                            board.game = Some(*game);
                        }
                    }
                }
            })
            .await;
        tracing::info!(tournament = id, boards = decided.len(), "results entered");
        if let Some(refusal) = refusal {
            return Err(late_refusal(refusal, &decided));
        }
        if advances {
            // The results are stored whatever the next round does: a round that cannot be paired
            // is the organiser's to resolve (`PairNextRound` says why), not a refused result.
            if let Err(Unpairable(why)) = self.core.advance(id).await? {
                tracing::warn!(tournament = id, %why, "the next round cannot be paired");
            }
        }
        let loaded = self.core.load(id).await?;
        Ok(items
            .iter()
            .filter_map(|item| {
                let round = i32::try_from(item.round).ok()?;
                let number = i32::try_from(item.board).ok()?;
                loaded.board(round, number).map(board)
            })
            .collect())
    }
}

/// The refusal of a batch some of whose boards were entered before a game ended on its own.
fn late_refusal(refusal: ServiceError, entered: &[Decided]) -> ServiceError {
    if entered.is_empty() {
        return refusal;
    }
    let boards: Vec<String> = entered
        .iter()
        .map(|(round, number, result, _, _)| format!("{round}.{number} {result}"))
        .collect();
    match refusal {
        ServiceError::FailedPrecondition(why) => ServiceError::FailedPrecondition(format!(
            "{why}; that game ended on its own while the batch was entered, after these boards \
             had been: {} (send the others again)",
            boards.join(", ")
        )),
        other => other,
    }
}

impl SchedulerService {
    /// Ends the games of a batch's boards with their results: every game is asked how it
    /// stands first, so that one over already refuses the batch before any game is ended.
    /// Returns the boards decided and, when a game ended on its own meanwhile, the refusal.
    async fn end_games(
        &self,
        todo: Vec<Entry>,
    ) -> ServiceResult<(Vec<Decided>, Option<ServiceError>)> {
        use futures_util::StreamExt;
        // First every game is asked how it stands, so that a game over already (ended on its
        // own, its board not yet told) refuses the batch before any other game is ended. One
        // game alone needs no asking: its adjudication refuses by itself.
        let games: Vec<(i32, i32, BoardResult, GameId)> = todo
            .iter()
            .filter_map(|(round, number, result, game, _)| {
                game.map(|g| (*round, *number, *result, g))
            })
            .collect();
        let games = if todo.len() > 1 { games } else { Vec::new() };
        let checks: Vec<ServiceResult<()>> = futures_util::stream::iter(
            games
                .into_iter()
                .map(|(round, number, result, game)| self.still_on(round, number, result, game)),
        )
        .buffered(IN_FLIGHT)
        .collect()
        .await;
        checks.into_iter().collect::<ServiceResult<()>>()?;
        let decided: Vec<ServiceResult<Decided>> =
            futures_util::stream::iter(todo.into_iter().map(|item| decide(&self.core, item)))
                .buffered(IN_FLIGHT)
                .collect()
                .await;
        // A game that ended on its own between the check and its adjudication (a flag falling
        // in that millisecond) refuses the batch late: the boards whose games did end with the
        // organiser's result are stored all the same, so board and game agree, and the refusal
        // names them.
        let mut refusal = None;
        let decided: Vec<Decided> = decided
            .into_iter()
            .filter_map(|d| d.map_err(|e| refusal = refusal.take().or(Some(e))).ok())
            .collect();
        Ok((decided, refusal))
    }

    /// Refuses a board of a batch whose game is over in the arbiter with another result than
    /// `wanted`; a game still on, or over with that very result, passes.
    async fn still_on(
        &self,
        round: i32,
        number: i32,
        wanted: BoardResult,
        game: GameId,
    ) -> ServiceResult<()> {
        match self.core.ended(game).await? {
            Some((board, summary)) if board.result != wanted => {
                Err(ServiceError::FailedPrecondition(format!(
                    "board {round}.{number}: game {game} is over ({summary}) with the result {}: \
                     nothing of this batch was entered; to change that result, correct it \
                     (CorrectResult; `hanniball tournament correct`)",
                    board.result
                )))
            }
            _ => Ok(()),
        }
    }
}

/// One board of [`SchedulerService::enter_results`]: its game (if any) ended with the result.
/// A board to enter a result on: (round, board, the result, its game, the game to record when
/// the board is played over the board and has none yet).
type Entry = (
    i32,
    i32,
    BoardResult,
    Option<GameId>,
    Option<hanniball_proto::arbiter::v1::CreateGameRequest>,
);
/// A board's result as decided: (round, board, result, short, the game recorded for it).
type Decided = (i32, i32, BoardResult, bool, Option<GameId>);

/// The result written `text` on board `round`.`board` of a request.
fn result_of(round: u32, board: u32, text: &str) -> ServiceResult<BoardResult> {
    BoardResult::parse(text).ok_or_else(|| {
        ServiceError::InvalidArgument(format!(
            "board {round}.{board}: unknown result {}: expected one of {}",
            limits::quote(text),
            BoardResult::listed()
        ))
    })
}

async fn decide(
    core: &Core,
    (round, number, result, game, record): Entry,
) -> ServiceResult<Decided> {
    if let Some(request) = record {
        let (game, decided) = core.record_over_the_board(request, result).await?;
        return Ok((round, number, decided.result, decided.short, Some(game)));
    }
    let Some(game) = game else {
        return Ok((round, number, result, false, None));
    };
    let decided = core.adjudicate(game, result).await.map_err(|e| match e {
        ServiceError::FailedPrecondition(why) => {
            ServiceError::FailedPrecondition(format!("board {round}.{number}: {why}"))
        }
        other => other,
    })?;
    Ok((round, number, decided.result, decided.short, None))
}

impl SchedulerService {
    /// A board's result corrected by `by` ([`Core::correct_game`] for its game, then the board
    /// with the correction's record); the result it has already changes nothing.
    async fn correct(
        &self,
        tournament: i64,
        round: u32,
        number: u32,
        text: &str,
        by: &str,
        note: &str,
    ) -> ServiceResult<(pb::Board, Option<pb::ResultCorrection>)> {
        let id = positive(tournament, "tournament_id")?;
        let result = result_of(round, number, text)?;
        let loaded = self.core.load(id).await?;
        let (r, n) = (
            i32::try_from(round).unwrap_or(i32::MAX),
            i32::try_from(number).unwrap_or(i32::MAX),
        );
        let row = loaded.board(r, n).ok_or_else(|| {
            if r > loaded.tournament.current_round {
                ServiceError::FailedPrecondition(format!(
                    "round {round} of tournament {id} is not paired yet (the current round is \
                     {})",
                    loaded.tournament.current_round
                ))
            } else {
                ServiceError::NotFound {
                    what: "board",
                    id: format!("{round}.{number} of tournament {id}"),
                }
            }
        })?;
        if !row.kind.is_game() {
            return Err(ServiceError::FailedPrecondition(format!(
                "board {round}.{number} is a {}: only a game's result is corrected",
                row.kind.words()
            )));
        }
        let Some(previous) = row.result else {
            return Err(ServiceError::FailedPrecondition(format!(
                "board {round}.{number} has no result yet: enter it (SetResult; `hanniball \
                 tournament result {id} {round} {number} {result}`)"
            )));
        };
        if previous == result {
            return Ok((board(row), None));
        }
        let (short, game) = match row.game {
            Some(game) => {
                let decided = self.core.correct_game(game, result, by, note).await?;
                (decided.short, None)
            }
            None if loaded.tournament.over_the_board => {
                // A result from before the board's game was recorded: record it now.
                let request = crate::core::board_game(&loaded.tournament, row)
                    .ok_or_else(|| ServiceError::Internal("a game board without Black".into()))?;
                let (game, decided) = self.core.record_over_the_board(request, result).await?;
                (decided.short, Some(game))
            }
            None => (false, None),
        };
        let record = Correction {
            tournament_id: id,
            number: 0,
            round: r,
            board: n,
            previous,
            result,
            corrected_by: by.to_owned(),
            note: note.to_owned(),
            at: now(),
            after_pairing: loaded.tournament.current_round > r,
        };
        let version = self
            .core
            .store
            .correct_board_result(&record, short, game)
            .await?;
        self.core
            .loaded
            .update(id, version, |loaded| {
                if let Some(b) = loaded.board_mut(r, n) {
                    b.result = Some(result);
                    b.short = short;
                    b.corrected = true;
                    if let Some(game) = game {
                        b.game = Some(game);
                    }
                }
            })
            .await;
        tracing::info!(
            tournament = id,
            round,
            board = number,
            previous = %record.previous,
            %result,
            by,
            after_pairing = record.after_pairing,
            "result corrected"
        );
        let loaded = self.core.load(id).await?;
        let sent = loaded.board(r, n).map_or_else(|| board(row), board);
        Ok((sent, Some(correction(&record))))
    }
}

/// A new tournament from its settings, every setting checked (`CreateTournament`,
/// `ImportTournament`).
fn settings_row(s: &pb::TournamentSettings) -> Result<Tournament, Status> {
    limits::text("settings.name", &s.name, limits::TEXT)?;
    limits::text("settings.kind", &s.kind, limits::NAME)?;
    limits::text("settings.ruleset", &s.ruleset, limits::NAME)?;
    limits::list("settings.tiebreaks", s.tiebreaks.len(), 16)?;
    for t in &s.tiebreaks {
        limits::text("settings.tiebreaks", t, limits::NAME)?;
    }
    let (kind, ruleset) = game_kind(&s.kind, &s.ruleset)?;
    check_time_control(s.time_control.as_ref())?;
    let system = system_name(s.system());
    if system == System::Swiss && !(1..=99).contains(&s.rounds) {
        return Err(ServiceError::InvalidArgument(format!(
            "a Swiss tournament needs 1 to 99 rounds, got {}",
            s.rounds
        ))
        .into());
    }
    let bye_points = if s.bye_points_set || s.bye_points != 0 {
        s.bye_points
    } else {
        2
    };
    if bye_points > 2 {
        return Err(ServiceError::InvalidArgument(format!(
            "bye points are half-points: 0, 1 or 2, got {bye_points}"
        ))
        .into());
    }
    let tiebreaks: Vec<TieBreak> = if s.tiebreaks.is_empty() {
        if system == System::Swiss {
            vec![
                TieBreak::Buchholz(Cut::C1),
                TieBreak::Buchholz(Cut::NONE),
                TieBreak::SonnebornBerger(Cut::NONE),
            ]
        } else {
            vec![
                TieBreak::SonnebornBerger(Cut::NONE),
                TieBreak::DirectEncounter,
                TieBreak::Wins,
            ]
        }
    } else {
        s.tiebreaks
            .iter()
            .map(|name| {
                name.parse()
                    .map_err(|e: hanniball_pairing::tiebreak::UnknownTieBreak| {
                        ServiceError::InvalidArgument(e.to_string())
                    })
            })
            .collect::<ServiceResult<_>>()?
    };
    let created_at = now();
    let tiebreak_rules = if s.tiebreak_rules.trim().is_empty() {
        rules_in_force(created_at)
    } else {
        s.tiebreak_rules
            .parse::<Rules>()
            .map_err(|e| ServiceError::InvalidArgument(e.to_string()))?
    };
    let tiebreak_unrated = if s.tiebreak_unrated.trim().is_empty() {
        Unrated::Drop
    } else {
        s.tiebreak_unrated
            .parse::<Unrated>()
            .map_err(|e| ServiceError::InvalidArgument(e.to_string()))?
    };
    // One rule for every name: no line breaks (a TRF line), nothing invisible or
    // direction-changing, at most 100 characters.
    let name = hanniball_names::tournament_name(&s.name)
        .map_err(|e| ServiceError::InvalidArgument(e.to_string()))?;
    if s.late_self_entry && system != System::Swiss {
        return Err(ServiceError::InvalidArgument(
            "late_self_entry is for Swiss tournaments: a round robin takes no late entries"
                .to_owned(),
        )
        .into());
    }
    let row = Tournament {
        id: 0,
        name,
        kind,
        ruleset,
        system,
        rounds: s.rounds,
        time_control: time_control_of(s.time_control),
        max_turns: s.max_turns,
        rated: s.rated,
        bye_points,
        tiebreaks,
        tiebreak_options: Options {
            rules: tiebreak_rules,
            unrated: tiebreak_unrated,
        },
        initial_colour: if s.top_seed_black {
            Colour::Black
        } else {
            Colour::White
        },
        forfeit_withdraws: s.forfeit_withdraws,
        auto_pair: !s.manual_pairing,
        self_entry: s.self_entry || s.late_self_entry,
        late_self_entry: s.late_self_entry,
        status: TournamentStatus::Registration,
        current_round: 0,
        created_at,
        over_the_board: s.over_the_board,
        details: Details::check(&s.details.clone().unwrap_or_default())?,
    };
    Ok(row)
}

/// A time control as the wire sent it.
fn time_control_of(tc: Option<hanniball_proto::arbiter::v1::TimeControl>) -> Option<TimeControl> {
    tc.map(|tc| TimeControl {
        initial_ms: tc.initial_ms,
        increment_ms: tc.increment_ms,
    })
}

fn system_name(system: pb::PairingSystem) -> System {
    match system {
        pb::PairingSystem::RoundRobin => System::RoundRobin,
        pb::PairingSystem::DoubleRoundRobin => System::DoubleRoundRobin,
        pb::PairingSystem::SwissDutch | pb::PairingSystem::Unspecified => System::Swiss,
    }
}

fn system_of(system: System) -> pb::PairingSystem {
    match system {
        System::RoundRobin => pb::PairingSystem::RoundRobin,
        System::DoubleRoundRobin => pb::PairingSystem::DoubleRoundRobin,
        System::Swiss => pb::PairingSystem::SwissDutch,
    }
}

fn status_of(status: TournamentStatus) -> pb::TournamentStatus {
    match status {
        TournamentStatus::Registration => pb::TournamentStatus::Registration,
        TournamentStatus::Running => pb::TournamentStatus::Running,
        TournamentStatus::Finished => pb::TournamentStatus::Finished,
    }
}

const fn kind_of(kind: BoardKind) -> pb::BoardKind {
    match kind {
        BoardKind::Game { .. } => pb::BoardKind::Game,
        BoardKind::PairingBye => pb::BoardKind::PairingBye,
        BoardKind::HalfPointBye => pb::BoardKind::HalfPointBye,
        BoardKind::ZeroPointBye => pb::BoardKind::ZeroPointBye,
        BoardKind::Absent => pb::BoardKind::Absent,
    }
}

fn board(row: &Board) -> pb::Board {
    pb::Board {
        round: row.round as u32,
        number: row.number as u32,
        kind: kind_of(row.kind).into(),
        white_player_id: row.white.0,
        black_player_id: row.kind.black().map_or(0, |p| p.0),
        game_id: row.game.map_or(0, |g| g.0),
        result: row
            .result
            .map(|r| r.as_str().to_owned())
            .unwrap_or_default(),
        corrected: row.corrected,
    }
}

/// The settings of a tournament, as sent: the tie-break rules and unrated policy the standings
/// use.
fn settings(t: &Tournament) -> pb::TournamentSettings {
    let tiebreak = t.tiebreak_options;
    pb::TournamentSettings {
        name: t.name.clone(),
        kind: t.kind.name().to_owned(),
        ruleset: t.ruleset.clone(),
        system: system_of(t.system).into(),
        rounds: t.rounds,
        time_control: time_control(t.time_control),
        max_turns: t.max_turns,
        rated: t.rated,
        bye_points: t.bye_points,
        bye_points_set: true,
        tiebreaks: t.tiebreaks.iter().map(ToString::to_string).collect(),
        tiebreak_rules: tiebreak.rules.to_string(),
        tiebreak_unrated: tiebreak.unrated.to_string(),
        top_seed_black: t.initial_colour == Colour::Black,
        forfeit_withdraws: t.forfeit_withdraws,
        manual_pairing: !t.auto_pair,
        self_entry: t.self_entry,
        late_self_entry: t.late_self_entry,
        over_the_board: t.over_the_board,
        details: Some(t.details.to_pb()),
    }
}

/// A loaded tournament, as sent (with or without its boards).
fn tournament(loaded: &Loaded, with_boards: bool) -> pb::Tournament {
    let t = &loaded.tournament;
    let model = loaded.model();
    let entrants = loaded
        .entrants
        .iter()
        .map(|(e, name)| pb::Entrant {
            player_id: e.player.0,
            name: name.clone(),
            start_rank: e.start_rank.unwrap_or(0) as u32,
            rating: e.rating,
            joined_round: e.joined_round as u32,
            withdrawn_from: e.withdrawn_from.unwrap_or(0) as u32,
            score_halves: e.start_rank.map_or(0, |r| {
                model
                    .score(hanniball_pairing::StartRank(r as u32))
                    .half_points()
            }),
        })
        .collect();
    pb::Tournament {
        id: t.id,
        settings: Some(settings(t)),
        status: status_of(t.status).into(),
        current_round: t.current_round as u32,
        rounds: loaded.total_rounds(),
        entrants,
        boards: if with_boards {
            loaded.boards.iter().map(board).collect()
        } else {
            Vec::new()
        },
        created_at_ms: t.created_at.0,
        corrections: Vec::new(),
        entrant_count: loaded.entrants.len() as u32,
        organiser_ids: Vec::new(),
        forbidden_pairs: if with_boards {
            forbidden_pairs(&loaded.forbidden)
        } else {
            Vec::new()
        },
    }
}

/// A tournament for lists: its settings and state, the number of its entrants, nothing that
/// grows with the field.
fn summary(loaded: &Loaded) -> pb::Tournament {
    let t = &loaded.tournament;
    pb::Tournament {
        id: t.id,
        settings: Some(settings(t)),
        status: status_of(t.status).into(),
        current_round: t.current_round as u32,
        rounds: loaded.total_rounds(),
        entrants: Vec::new(),
        boards: Vec::new(),
        created_at_ms: t.created_at.0,
        corrections: Vec::new(),
        entrant_count: loaded.entrants.len() as u32,
        organiser_ids: Vec::new(),
        forbidden_pairs: Vec::new(),
    }
}

/// Forbidden pairs as sent.
fn forbidden_pairs(pairs: &[(PlayerId, PlayerId)]) -> Vec<pb::ForbiddenPair> {
    pairs
        .iter()
        .map(|&(first, second)| pb::ForbiddenPair {
            first_player_id: first.0,
            second_player_id: second.0,
        })
        .collect()
}

/// A result correction, as sent.
fn correction(row: &Correction) -> pb::ResultCorrection {
    pb::ResultCorrection {
        round: row.round as u32,
        board: row.board as u32,
        previous: row.previous.as_str().to_owned(),
        result: row.result.as_str().to_owned(),
        by: row.corrected_by.clone(),
        note: row.note.clone(),
        at_ms: row.at.0,
        after_pairing: row.after_pairing,
    }
}

/// Whether a tournament takes entries now: not once over, and a round robin not once started.
fn takes_entries(t: &Tournament) -> ServiceResult<()> {
    if t.status == TournamentStatus::Finished {
        return Err(ServiceError::FailedPrecondition(format!(
            "tournament {} is over",
            t.id
        )));
    }
    if t.status == TournamentStatus::Running && t.system != System::Swiss {
        return Err(ServiceError::FailedPrecondition(
            "a round robin takes no late entries".to_owned(),
        ));
    }
    Ok(())
}

fn positive(id: i64, what: &'static str) -> ServiceResult<i64> {
    if id > 0 {
        Ok(id)
    } else {
        Err(ServiceError::InvalidArgument(format!(
            "{what} must be a positive id, got {id}"
        )))
    }
}

fn game_kind(kind: &str, ruleset: &str) -> ServiceResult<(GameKind, String)> {
    let (kind_text, ruleset_text) = (limits::quote(kind), limits::quote(ruleset));
    let kind: GameKind = if kind.is_empty() {
        GameKind::HanniBall
    } else {
        kind.parse().map_err(|_| {
            ServiceError::InvalidArgument(format!(
                "unknown game kind {kind_text}: expected hanniball or paper-football"
            ))
        })?
    };
    let ruleset = if ruleset.is_empty() {
        kind.rulesets()[0].to_owned()
    } else if kind.rulesets().contains(&ruleset) {
        ruleset.to_owned()
    } else {
        return Err(ServiceError::InvalidArgument(format!(
            "unknown ruleset {ruleset_text} for {}: expected one of {}",
            kind.name(),
            kind.rulesets().join(", ")
        )));
    };
    Ok((kind, ruleset))
}

/// Longest initial clock time (30 days) and increment (1 day), as the arbiter accepts them.
const MAX_INITIAL_MS: i64 = 30 * 24 * 3_600_000;
const MAX_INCREMENT_MS: i64 = 24 * 3_600_000;

fn check_time_control(tc: Option<&hanniball_proto::arbiter::v1::TimeControl>) -> ServiceResult<()> {
    if let Some(tc) = tc
        && (!(1..=MAX_INITIAL_MS).contains(&tc.initial_ms)
            || !(0..=MAX_INCREMENT_MS).contains(&tc.increment_ms))
    {
        return Err(ServiceError::InvalidArgument(format!(
            "time control needs 0 < initial_ms <= {MAX_INITIAL_MS} (30 days) and \
             0 <= increment_ms <= {MAX_INCREMENT_MS} (1 day), got {} and {}",
            tc.initial_ms, tc.increment_ms
        )));
    }
    Ok(())
}

#[tonic::async_trait]
impl pb::scheduler_server::Scheduler for SchedulerService {
    async fn create_tournament(
        &self,
        request: Request<pb::CreateTournamentRequest>,
    ) -> Result<Response<pb::CreateTournamentResponse>, Status> {
        let owner = owner(self.caller(&request, Scope::Organise).await?);
        let s = request
            .into_inner()
            .settings
            .ok_or_else(|| ServiceError::InvalidArgument("settings are required".to_owned()))?;
        let new = settings_row(&s)?;
        let id = self
            .core
            .store
            .create_tournament(&new, owner)
            .await
            .map_err(ServiceError::from)?;
        tracing::info!(tournament = id, "tournament created");
        let loaded = self.core.load(id).await?;
        Ok(Response::new(pb::CreateTournamentResponse {
            tournament: Some(created(&loaded, owner)),
        }))
    }

    async fn import_tournament(
        &self,
        request: Request<pb::ImportTournamentRequest>,
    ) -> Result<Response<pb::ImportTournamentResponse>, Status> {
        let owner = owner(self.caller(&request, Scope::Organise).await?);
        let r = request.into_inner();
        if r.trf.len() > MAX_TRF_BYTES {
            return Err(ServiceError::InvalidArgument(format!(
                "trf is {} bytes; the limit is {MAX_TRF_BYTES}",
                r.trf.len()
            ))
            .into());
        }
        limits::list("player_ids", r.player_ids.len(), MAX_BATCH)?;
        let mut settings = r.settings.unwrap_or_default();
        let system = system_name(settings.system());
        if system != System::Swiss {
            return Err(ServiceError::InvalidArgument(
                "an imported tournament is a Swiss (system SWISS_DUTCH)".to_owned(),
            )
            .into());
        }
        let accept = r.accept_differences;
        let text = r.trf;
        let imported = crate::core::off_runtime(move || crate::import::read(&text, accept)).await?;
        if settings.rounds == 0 {
            settings.rounds = imported.tournament.total_rounds.max(imported.played);
        }
        if settings.name.trim().is_empty() {
            settings.name = imported.tournament.info.name.clone().unwrap_or_default();
        }
        // The details sent, or else the file's header.
        if settings
            .details
            .as_ref()
            .is_none_or(|d| *d == Default::default())
        {
            let details = Details::read_from(&imported.tournament.info)?;
            settings.details = Some(details.to_pb());
        }
        let base = settings_row(&settings)?;
        let typed: Vec<PlayerId> = r.player_ids.iter().copied().map(PlayerId).collect();
        let known = self
            .core
            .accounts
            .player_names(&typed)
            .await
            .map_err(ServiceError::from)?;
        if let Some((i, missing)) = r
            .player_ids
            .iter()
            .enumerate()
            .find(|(_, id)| !known.contains_key(&PlayerId(**id)))
        {
            return Err(ServiceError::NotFound {
                what: "player",
                id: format!("{missing} (player_ids[{i}], starting rank {})", i + 1),
            }
            .into());
        }
        let (t, entrants, boards) = crate::import::rows(&imported, &r.player_ids, base)?;
        let id = self
            .core
            .store
            .import_tournament(&t, &entrants, &boards, owner)
            .await
            .map_err(ServiceError::from)?;
        tracing::info!(
            tournament = id,
            players = entrants.len(),
            rounds = imported.played,
            "tournament imported"
        );
        let loaded = self.core.load(id).await?;
        Ok(Response::new(pb::ImportTournamentResponse {
            tournament: Some(created(&loaded, owner)),
        }))
    }

    async fn get_tournament(
        &self,
        request: Request<pb::GetTournamentRequest>,
    ) -> Result<Response<pb::GetTournamentResponse>, Status> {
        self.caller(&request, Scope::Read).await?;
        let id = positive(request.get_ref().tournament_id, "tournament_id")?;
        let loaded = self.core.load(id).await?;
        let mut sent = tournament(&loaded, true);
        self.with_organisers(std::slice::from_mut(&mut sent))
            .await?;
        sent.corrections = self
            .core
            .store
            .corrections(id)
            .await
            .map_err(ServiceError::from)?
            .iter()
            .map(correction)
            .collect();
        let base = self
            .pages
            .read()
            .map(|b| b.trim_end_matches('/').to_owned())
            .unwrap_or_default();
        Ok(Response::new(pb::GetTournamentResponse {
            tournament: Some(sent),
            page_url: if base.is_empty() {
                String::new()
            } else {
                format!("{base}/tournaments/{id}")
            },
        }))
    }

    async fn correct_result(
        &self,
        request: Request<pb::CorrectResultRequest>,
    ) -> Result<Response<pb::CorrectResultResponse>, Status> {
        let caller = self
            .organiser(&request, request.get_ref().tournament_id)
            .await?;
        let r = request.into_inner();
        limits::text("note", &r.note, limits::TEXT)?;
        let by = self.by(caller).await;
        let (board, correction) = self
            .correct(r.tournament_id, r.round, r.board, &r.result, &by, &r.note)
            .await?;
        Ok(Response::new(pb::CorrectResultResponse {
            board: Some(board),
            correction,
        }))
    }

    async fn list_tournaments(
        &self,
        request: Request<pb::ListTournamentsRequest>,
    ) -> Result<Response<pb::ListTournamentsResponse>, Status> {
        self.caller(&request, Scope::Read).await?;
        let status = match request.get_ref().status() {
            pb::TournamentStatus::Unspecified => None,
            pb::TournamentStatus::Registration => Some(TournamentStatus::Registration),
            pb::TournamentStatus::Running => Some(TournamentStatus::Running),
            pb::TournamentStatus::Finished => Some(TournamentStatus::Finished),
        };
        let limit = match request.get_ref().limit {
            0 => 50,
            n => u64::from(n.min(500)),
        };
        let name = limits::query("name_contains", &request.get_ref().name_contains)?;
        let entrant = match request.get_ref().player_id {
            0 => None,
            id => Some(PlayerId(positive(id, "player_id")?)),
        };
        let found = self
            .core
            .store
            .tournaments(status, &name, entrant, limit)
            .await
            .map_err(ServiceError::from)?;
        let mut tournaments = Vec::with_capacity(found.len());
        for t in found {
            let loaded = self.core.load(t.id).await?;
            tournaments.push(summary(&loaded));
        }
        self.with_organisers(&mut tournaments).await?;
        Ok(Response::new(pb::ListTournamentsResponse { tournaments }))
    }

    async fn add_player(
        &self,
        request: Request<pb::AddPlayerRequest>,
    ) -> Result<Response<pb::AddPlayerResponse>, Status> {
        let (caller, player) = self
            .entrant(
                &request,
                request.get_ref().tournament_id,
                request.get_ref().player_id,
            )
            .await?;
        let r = request.into_inner();
        let id = positive(r.tournament_id, "tournament_id")?;
        let loaded = self.core.load(id).await?;
        if let Caller::Player(_) = caller {
            let t = &loaded.tournament;
            if r.rating != 0 {
                return Err(ServiceError::Denied(format!(
                    "only the organiser sets a seeding rating (rating {}); enter with rating 0 to be \
                     seeded by your rating",
                    r.rating
                ))
                .into());
            }
            let open = match t.status {
                TournamentStatus::Registration => t.self_entry,
                TournamentStatus::Running => t.late_self_entry,
                TournamentStatus::Finished => true, // refused below: the tournament is over
            };
            if !open {
                let why = if t.self_entry {
                    "open for entry only before the start"
                } else {
                    "not open for entry"
                };
                return Err(ServiceError::Denied(format!(
                    "tournament {id} is {why}; ask the organiser to add you"
                ))
                .into());
            }
        }
        let name = self
            .core
            .accounts
            .player(PlayerId(player))
            .await
            .map_err(ServiceError::from)?
            .ok_or_else(|| ServiceError::NotFound {
                what: "player",
                id: player.to_string(),
            })?
            .name;
        let t = loaded.tournament.clone();
        let entrants = loaded.entrants.len();
        // Not held across the calls below: a copy no call holds is changed in place.
        drop(loaded);
        let t = &t;
        takes_entries(t)?;
        let rating = if r.rating > 0 {
            r.rating
        } else {
            self.core
                .ratings(t.kind, &[PlayerId(player)])
                .await
                .and_then(|m| m.get(&PlayerId(player)).copied())
                .unwrap_or(0)
        };
        let late = t.status == TournamentStatus::Running;
        let row = Entrant {
            tournament_id: id,
            player: PlayerId(player),
            // A late entry is ranked after everyone (TRF pairing numbers never change).
            start_rank: late.then(|| entrants as i32 + 1),
            rating,
            joined_round: if late { t.current_round + 1 } else { 1 },
            withdrawn_from: None,
        };
        let version = self
            .core
            .store
            .add_entrant(&row)
            .await
            .map_err(|e| match e {
                crate::store::StoreError::Conflict(_) => ServiceError::AlreadyExists(format!(
                    "player {player} is already in tournament {id}"
                )),
                other => other.into(),
            })?;
        let entered = (row.clone(), name.clone());
        self.core
            .loaded
            .update(id, version, |loaded| loaded.enter(vec![entered]))
            .await;
        Ok(Response::new(pb::AddPlayerResponse {
            entrant: Some(pb::Entrant {
                player_id: player,
                name,
                start_rank: row.start_rank.unwrap_or(0) as u32,
                rating,
                joined_round: row.joined_round as u32,
                withdrawn_from: 0,
                score_halves: 0,
            }),
        }))
    }

    async fn add_players(
        &self,
        request: Request<pb::AddPlayersRequest>,
    ) -> Result<Response<pb::AddPlayersResponse>, Status> {
        self.organiser(&request, request.get_ref().tournament_id)
            .await?;
        let r = request.into_inner();
        limits::list("players", r.players.len(), MAX_BATCH)?;
        let id = positive(r.tournament_id, "tournament_id")?;
        let loaded = self.core.load(id).await?;
        let t = &loaded.tournament;
        takes_entries(t)?;
        let entered: std::collections::HashSet<i64> =
            loaded.entrants.iter().map(|(e, _)| e.player.0).collect();
        let mut asked = std::collections::HashSet::new();
        for entry in &r.players {
            let player = positive(entry.player_id, "player_id")?;
            if entered.contains(&player) || !asked.insert(player) {
                return Err(ServiceError::AlreadyExists(format!(
                    "player {player} is already in tournament {id} (or listed twice)"
                ))
                .into());
            }
        }
        let ids: Vec<PlayerId> = r.players.iter().map(|e| PlayerId(e.player_id)).collect();
        let names = self
            .core
            .accounts
            .player_names(&ids)
            .await
            .map_err(ServiceError::from)?;
        if let Some(missing) = ids.iter().find(|p| !names.contains_key(p)) {
            return Err(ServiceError::NotFound {
                what: "player",
                id: missing.0.to_string(),
            }
            .into());
        }
        let unrated: Vec<PlayerId> = r
            .players
            .iter()
            .filter(|e| e.rating <= 0)
            .map(|e| PlayerId(e.player_id))
            .collect();
        let ratings = if unrated.is_empty() {
            std::collections::BTreeMap::new()
        } else {
            self.core
                .ratings(t.kind, &unrated)
                .await
                .unwrap_or_default()
        };
        // Late entries are ranked after everyone, in the order given (TRF pairing numbers
        // never change).
        let late = t.status == TournamentStatus::Running;
        let rows: Vec<Entrant> = r
            .players
            .iter()
            .enumerate()
            .map(|(i, e)| Entrant {
                tournament_id: id,
                player: PlayerId(e.player_id),
                start_rank: late.then(|| (loaded.entrants.len() + i + 1) as i32),
                rating: if e.rating > 0 {
                    e.rating
                } else {
                    ratings.get(&PlayerId(e.player_id)).copied().unwrap_or(0)
                },
                joined_round: if late { t.current_round + 1 } else { 1 },
                withdrawn_from: None,
            })
            .collect();
        let version = self
            .core
            .store
            .add_entrants(&rows)
            .await
            .map_err(|e| match e {
                crate::store::StoreError::Conflict(_) => {
                    ServiceError::AlreadyExists(format!("a player is already in tournament {id}"))
                }
                other => other.into(),
            })?;
        let named: Vec<(Entrant, String)> = rows
            .into_iter()
            .map(|row| {
                let name = names.get(&row.player).cloned().unwrap_or_default();
                (row, name)
            })
            .collect();
        let entrants = named
            .iter()
            .map(|(row, name)| pb::Entrant {
                player_id: row.player.0,
                name: name.clone(),
                start_rank: row.start_rank.unwrap_or(0) as u32,
                rating: row.rating,
                joined_round: row.joined_round as u32,
                withdrawn_from: 0,
                score_halves: 0,
            })
            .collect();
        if let Some(version) = version {
            self.core
                .loaded
                .update(id, version, |loaded| loaded.enter(named))
                .await;
        }
        tracing::info!(
            tournament = id,
            players = r.players.len(),
            "players entered"
        );
        Ok(Response::new(pb::AddPlayersResponse { entrants }))
    }

    async fn withdraw_player(
        &self,
        request: Request<pb::WithdrawPlayerRequest>,
    ) -> Result<Response<pb::WithdrawPlayerResponse>, Status> {
        let id = request.get_ref().tournament_id;
        let (_, player) = self
            .entrant(&request, id, request.get_ref().player_id)
            .await?;
        let mut loaded = self.core.load(positive(id, "tournament_id")?).await?;
        let not_entered = || ServiceError::NotFound {
            what: "player",
            id: format!("{player} in tournament {id}"),
        };
        let Some((entry, name)) = loaded.entrants.iter().find(|(e, _)| e.player.0 == player) else {
            return Err(not_entered().into());
        };
        if let Some(from) = entry.withdrawn_from {
            return Err(ServiceError::FailedPrecondition(format!(
                "{name} is already withdrawn from tournament {id} (from round {from})"
            ))
            .into());
        }
        if loaded.tournament.status == TournamentStatus::Registration {
            // Before the start an entry is only a wish: leaving takes it back entirely (no
            // start rank, no absence in the standings, free to enter again).
            if self
                .core
                .store
                .remove_entrant(id, PlayerId(player))
                .await
                .map_err(ServiceError::from)?
            {
                tracing::info!(tournament = id, player, "entry removed before the start");
                return Ok(Response::new(pb::WithdrawPlayerResponse {
                    from_round: 1,
                    removed: true,
                }));
            }
            // Started (or left) meanwhile: look again.
            loaded = self.core.load(id).await?;
            if loaded.tournament.status == TournamentStatus::Registration {
                return Err(not_entered().into());
            }
        }
        let from = loaded.tournament.current_round + 1;
        self.core
            .store
            .withdraw_entrant(id, PlayerId(player), from)
            .await
            .map_err(ServiceError::from)?;
        tracing::info!(tournament = id, player, from, "player withdrawn");
        Ok(Response::new(pb::WithdrawPlayerResponse {
            from_round: from as u32,
            removed: false,
        }))
    }

    async fn request_bye(
        &self,
        request: Request<pb::RequestByeRequest>,
    ) -> Result<Response<pb::RequestByeResponse>, Status> {
        let mut r = *request.get_ref();
        (_, r.player_id) = self.entrant(&request, r.tournament_id, r.player_id).await?;
        let loaded = self
            .core
            .load(positive(r.tournament_id, "tournament_id")?)
            .await?;
        if !loaded
            .entrants
            .iter()
            .any(|(e, _)| e.player.0 == r.player_id)
        {
            return Err(ServiceError::NotFound {
                what: "player",
                id: format!("{} in tournament {}", r.player_id, r.tournament_id),
            }
            .into());
        }
        let round = r.round as i32;
        if round <= loaded.tournament.current_round || r.round > loaded.total_rounds().max(1) {
            return Err(ServiceError::FailedPrecondition(format!(
                "round {} is not a future round of tournament {} (now at round {})",
                r.round, r.tournament_id, loaded.tournament.current_round
            ))
            .into());
        }
        self.core
            .store
            .request_bye(&ByeRequest {
                tournament_id: r.tournament_id,
                player: PlayerId(r.player_id),
                round,
                half_point: r.half_point,
            })
            .await
            .map_err(ServiceError::from)?;
        Ok(Response::new(pb::RequestByeResponse {}))
    }

    async fn start_tournament(
        &self,
        request: Request<pb::StartTournamentRequest>,
    ) -> Result<Response<pb::StartTournamentResponse>, Status> {
        self.organiser(&request, request.get_ref().tournament_id)
            .await?;
        let id = positive(request.get_ref().tournament_id, "tournament_id")?;
        self.core.start(id).await?;
        let loaded = self.core.load(id).await?;
        Ok(Response::new(pb::StartTournamentResponse {
            tournament: Some(tournament(&loaded, true)),
        }))
    }

    async fn pair_next_round(
        &self,
        request: Request<pb::PairNextRoundRequest>,
    ) -> Result<Response<pb::PairNextRoundResponse>, Status> {
        self.organiser(&request, request.get_ref().tournament_id)
            .await?;
        let id = positive(request.get_ref().tournament_id, "tournament_id")?;
        if !self.core.advance(id).await?.map_err(ServiceError::from)? {
            let loaded = self.core.load(id).await?;
            return Err(ServiceError::FailedPrecondition(format!(
                "round {} of tournament {id} still has unfinished games",
                loaded.tournament.current_round
            ))
            .into());
        }
        let loaded = self.core.load(id).await?;
        Ok(Response::new(pb::PairNextRoundResponse {
            tournament: Some(tournament(&loaded, true)),
        }))
    }

    async fn set_result(
        &self,
        request: Request<pb::SetResultRequest>,
    ) -> Result<Response<pb::SetResultResponse>, Status> {
        self.organiser(&request, request.get_ref().tournament_id)
            .await?;
        let r = request.into_inner();
        let item = pb::BoardResult {
            round: r.round,
            board: r.board,
            result: r.result,
        };
        let boards = self.enter_results(r.tournament_id, vec![item]).await?;
        Ok(Response::new(pb::SetResultResponse {
            board: boards.into_iter().next(),
        }))
    }

    async fn set_results(
        &self,
        request: Request<pb::SetResultsRequest>,
    ) -> Result<Response<pb::SetResultsResponse>, Status> {
        self.organiser(&request, request.get_ref().tournament_id)
            .await?;
        let r = request.into_inner();
        limits::list("results", r.results.len(), MAX_BATCH)?;
        let boards = self.enter_results(r.tournament_id, r.results).await?;
        Ok(Response::new(pb::SetResultsResponse { boards }))
    }

    async fn get_standings(
        &self,
        request: Request<pb::GetStandingsRequest>,
    ) -> Result<Response<pb::GetStandingsResponse>, Status> {
        self.caller(&request, Scope::Read).await?;
        let id = positive(request.get_ref().tournament_id, "tournament_id")?;
        let after = request.get_ref().after_round;
        let loaded = self.core.load(id).await?;
        let current = loaded.tournament.current_round;
        let complete = if loaded.round_complete(current) {
            current
        } else {
            current - 1
        }
        .max(0) as u32;
        if after > complete {
            return Err(ServiceError::FailedPrecondition(format!(
                "tournament {id} has no standings after round {after}: {}",
                match complete {
                    0 => "no round is complete yet".to_owned(),
                    n => format!("the last complete round is {n}"),
                }
            ))
            .into());
        }
        let rounds = if after == 0 { complete } else { after };
        // The standings of a big field take a while: off the async workers.
        let response = crate::core::off_runtime(move || {
            let model = loaded.model();
            let order = &loaded.tournament.tiebreaks;
            let options = loaded.tournament.tiebreak_options;
            let table = hanniball_pairing::standings::standings(&model, rounds, order, &options)
                .map_err(|e| ServiceError::Internal(format!("inconsistent tournament: {e}")))?;
            let ids: std::collections::HashMap<i32, i64> = loaded
                .entrants
                .iter()
                .filter_map(|(e, _)| e.start_rank.map(|rank| (rank, e.player.0)))
                .collect();
            let standings = table
                .iter()
                .map(|s| {
                    let player = model.player(hanniball_pairing::StartRank(s.player.0));
                    pb::Standing {
                        rank: s.rank,
                        player_id: ids.get(&(s.player.0 as i32)).copied().unwrap_or(0),
                        name: player.map_or_else(String::new, |p| p.name.clone()),
                        start_rank: s.player.0,
                        rating: player.map_or(0, |p| p.rating as i32),
                        points: s.points.to_string(),
                        tiebreaks: s.values.iter().map(ToString::to_string).collect(),
                    }
                })
                .collect();
            Ok(pb::GetStandingsResponse {
                tiebreak_names: order.iter().map(ToString::to_string).collect(),
                standings,
                rounds,
                tiebreak_rules: options.rules.to_string(),
                tiebreak_unrated: options.unrated.to_string(),
            })
        })
        .await?;
        Ok(Response::new(response))
    }

    async fn export_trf(
        &self,
        request: Request<pb::ExportTrfRequest>,
    ) -> Result<Response<pb::ExportTrfResponse>, Status> {
        self.caller(&request, Scope::Read).await?;
        let loaded = self
            .core
            .load(positive(request.get_ref().tournament_id, "tournament_id")?)
            .await?;
        let mut model = loaded.model();
        let details = &loaded.tournament.details;
        if let Some(tc) = loaded.tournament.time_control {
            model.info.time_control = Some(hanniball_rules::record::time_control(
                tc.initial_ms,
                tc.increment_ms,
            ));
        }
        // TRF-2026 `192`: the pairing system, so another program need not guess it.
        if loaded.tournament.system == System::Swiss {
            model.info.system = Some("FIDE_DUTCH_2025".to_owned());
        }
        model.info.kind = Some(format!(
            "{} {}",
            loaded.tournament.system, loaded.tournament.kind
        ));
        details.write_to(&mut model.info);
        // A round under way is written as programs save mid-round: its byes and finished games
        // with their results, its other games with a blank result (read back as unfinished).
        let ranks = loaded.by_rank();
        let rank =
            |id: PlayerId| hanniball_pairing::StartRank(ranks.get(&id).copied().unwrap_or(0));
        let current = loaded.tournament.current_round;
        let pending: Vec<_> = loaded
            .round_boards(current)
            .iter()
            .filter(|b| b.result.is_none())
            .filter_map(|b| Some((rank(b.white), rank(b.kind.black()?))))
            .collect();
        let unfinished = (!pending.is_empty()).then_some(hanniball_pairing::trf::UnfinishedRound {
            round: current as u32,
            games: pending,
        });
        let trf = hanniball_pairing::trf::write_unfinished(&model, unfinished.as_ref())
            .map_err(|e| Status::failed_precondition(e.to_string()))?;
        Ok(Response::new(pb::ExportTrfResponse { trf }))
    }

    async fn join_queue(
        &self,
        request: Request<pb::JoinQueueRequest>,
    ) -> Result<Response<pb::JoinQueueResponse>, Status> {
        let Caller::Player(player) = self.caller(&request, Scope::Queue).await? else {
            return Err(ServiceError::InvalidArgument(
                "the admin does not play: join the queue with a player's token".to_owned(),
            )
            .into());
        };
        let r = request.into_inner();
        limits::text("kind", &r.kind, limits::NAME)?;
        limits::text("ruleset", &r.ruleset, limits::NAME)?;
        let (kind, ruleset) = game_kind(&r.kind, &r.ruleset)?;
        check_time_control(r.time_control.as_ref())?;
        self.core
            .store
            .join_queue(&QueueEntry {
                player,
                kind,
                ruleset,
                time_control: time_control_of(r.time_control),
                rated: r.rated,
                joined_at: now(),
            })
            .await
            .map_err(ServiceError::from)?;
        tracing::info!(player = player.0, "joined the queue");
        Ok(Response::new(pb::JoinQueueResponse {}))
    }

    async fn leave_queue(
        &self,
        request: Request<pb::LeaveQueueRequest>,
    ) -> Result<Response<pb::LeaveQueueResponse>, Status> {
        let Caller::Player(player) = self.caller(&request, Scope::Queue).await? else {
            return Err(ServiceError::InvalidArgument(
                "the admin is never in the queue".to_owned(),
            )
            .into());
        };
        let was_waiting = self
            .core
            .store
            .leave_queue(player)
            .await
            .map_err(ServiceError::from)?;
        Ok(Response::new(pb::LeaveQueueResponse { was_waiting }))
    }

    async fn get_queue(
        &self,
        request: Request<pb::GetQueueRequest>,
    ) -> Result<Response<pb::GetQueueResponse>, Status> {
        self.caller(&request, Scope::Read).await?;
        let rows = self.core.store.queue().await.map_err(ServiceError::from)?;
        Ok(Response::new(pb::GetQueueResponse {
            waiting: rows
                .into_iter()
                .map(|r| pb::QueueEntry {
                    player_id: r.player.0,
                    kind: r.kind.name().to_owned(),
                    ruleset: r.ruleset,
                    time_control: time_control(r.time_control),
                    rated: r.rated,
                    joined_at_ms: r.joined_at.0,
                })
                .collect(),
        }))
    }

    async fn ping(
        &self,
        _request: Request<pb::PingRequest>,
    ) -> Result<Response<pb::PingResponse>, Status> {
        Ok(Response::new(pb::PingResponse {}))
    }

    async fn set_forbidden_pair(
        &self,
        request: Request<pb::SetForbiddenPairRequest>,
    ) -> Result<Response<pb::SetForbiddenPairResponse>, Status> {
        Ok(Response::new(self.forbid(request).await?))
    }

    async fn set_tournament_details(
        &self,
        request: Request<pb::SetTournamentDetailsRequest>,
    ) -> Result<Response<pb::SetTournamentDetailsResponse>, Status> {
        Ok(Response::new(self.set_details(request).await?))
    }

    async fn delete_tournament(
        &self,
        request: Request<pb::DeleteTournamentRequest>,
    ) -> Result<Response<pb::DeleteTournamentResponse>, Status> {
        let id = request.get_ref().tournament_id;
        self.organiser(&request, id).await?;
        let id = positive(id, "tournament_id")?;
        if !self
            .core
            .store
            .delete_tournament(id)
            .await
            .map_err(ServiceError::from)?
        {
            return Err(match self.core.store.tournament_version(id).await.map_err(ServiceError::from)? {
                None => ServiceError::NotFound {
                    what: "tournament",
                    id: id.to_string(),
                },
                Some(_) => ServiceError::FailedPrecondition(format!(
                    "tournament {id} has started: a started tournament is kept (withdraw players, or let it finish)"
                )),
            }
            .into());
        }
        tracing::info!(tournament = id, "tournament deleted");
        Ok(Response::new(pb::DeleteTournamentResponse {}))
    }

    async fn add_organiser(
        &self,
        request: Request<pb::AddOrganiserRequest>,
    ) -> Result<Response<pb::AddOrganiserResponse>, Status> {
        let r = *request.get_ref();
        self.organiser(&request, r.tournament_id).await?;
        let player = self
            .core
            .accounts
            .player(PlayerId(r.player_id))
            .await
            .map_err(ServiceError::from)?
            .ok_or_else(|| ServiceError::NotFound {
                what: "player",
                id: r.player_id.to_string(),
            })?;
        if !player.organiser {
            return Err(ServiceError::FailedPrecondition(format!(
                "{} (player {}) is not an organiser: the admin grants the right first",
                limits::quote(&player.name),
                player.id
            ))
            .into());
        }
        let added = self
            .core
            .store
            .add_organiser(r.tournament_id, player.id)
            .await
            .map_err(ServiceError::from)?
            .ok_or_else(|| ServiceError::NotFound {
                what: "tournament",
                id: r.tournament_id.to_string(),
            })?;
        let organiser_ids = self.organiser_ids(r.tournament_id).await?;
        tracing::info!(
            tournament = r.tournament_id,
            player = r.player_id,
            added,
            "organiser added"
        );
        Ok(Response::new(pb::AddOrganiserResponse {
            added,
            organiser_ids,
        }))
    }

    async fn remove_organiser(
        &self,
        request: Request<pb::RemoveOrganiserRequest>,
    ) -> Result<Response<pb::RemoveOrganiserResponse>, Status> {
        let r = *request.get_ref();
        let caller = self.organiser(&request, r.tournament_id).await?;
        let store = &self.core.store;
        if caller == Caller::Admin
            && store
                .tournament_version(r.tournament_id)
                .await
                .map_err(ServiceError::from)?
                .is_none()
        {
            return Err(ServiceError::NotFound {
                what: "tournament",
                id: r.tournament_id.to_string(),
            }
            .into());
        }
        let before = self.organiser_ids(r.tournament_id).await?;
        if caller == Caller::Player(PlayerId(r.player_id)) && before == [r.player_id] {
            return Err(ServiceError::FailedPrecondition(format!(
                "you are the last organiser of tournament {}: add another first (or ask the admin)",
                r.tournament_id
            ))
            .into());
        }
        let removed = self
            .core
            .store
            .remove_organiser(r.tournament_id, PlayerId(r.player_id))
            .await
            .map_err(ServiceError::from)?;
        let organiser_ids = self.organiser_ids(r.tournament_id).await?;
        tracing::info!(
            tournament = r.tournament_id,
            player = r.player_id,
            removed,
            "organiser removed"
        );
        Ok(Response::new(pb::RemoveOrganiserResponse {
            removed,
            organiser_ids,
        }))
    }
}

impl SchedulerService {
    async fn forbid(
        &self,
        request: Request<pb::SetForbiddenPairRequest>,
    ) -> ServiceResult<pb::SetForbiddenPairResponse> {
        let r = *request.get_ref();
        self.organiser(&request, r.tournament_id).await?;
        let id = positive(r.tournament_id, "tournament_id")?;
        let (first, second) = (
            r.first_player_id.min(r.second_player_id),
            r.first_player_id.max(r.second_player_id),
        );
        if first == second {
            return Err(ServiceError::InvalidArgument(format!(
                "player {first} twice: a pair is two players"
            )));
        }
        let loaded = self.core.load(id).await?;
        if loaded.tournament.system != System::Swiss {
            return Err(ServiceError::FailedPrecondition(format!(
                "tournament {id} is a round robin: its pairings are Berger tables, so no pair can be forbidden"
            )));
        }
        if loaded.tournament.status == TournamentStatus::Finished {
            return Err(ServiceError::FailedPrecondition(format!(
                "tournament {id} is finished"
            )));
        }
        for player in [first, second] {
            if !loaded.entrants.iter().any(|(e, _)| e.player.0 == player) {
                return Err(ServiceError::NotFound {
                    what: "player",
                    id: format!("{player} in tournament {id}"),
                });
            }
        }
        let (first, second) = (PlayerId(first), PlayerId(second));
        let mut pairs = loaded.forbidden.clone();
        let version = self
            .core
            .store
            .set_forbidden_pair(id, first, second, r.forbidden)
            .await?;
        if let Some(version) = version {
            let change = |pairs: &mut Vec<(PlayerId, PlayerId)>| {
                pairs.retain(|p| *p != (first, second));
                if r.forbidden {
                    pairs.push((first, second));
                    pairs.sort_unstable();
                }
            };
            change(&mut pairs);
            self.core
                .loaded
                .update(id, version, |loaded| change(&mut loaded.forbidden))
                .await;
            tracing::info!(
                tournament = id,
                first = first.0,
                second = second.0,
                forbidden = r.forbidden,
                "forbidden pair set"
            );
        }
        Ok(pb::SetForbiddenPairResponse {
            changed: version.is_some(),
            forbidden_pairs: forbidden_pairs(&pairs),
        })
    }

    /// `SetTournamentDetails`: checked whole before anything is stored; the same details again
    /// store nothing.
    async fn set_details(
        &self,
        request: Request<pb::SetTournamentDetailsRequest>,
    ) -> ServiceResult<pb::SetTournamentDetailsResponse> {
        let id = request.get_ref().tournament_id;
        self.organiser(&request, id).await?;
        let id = positive(id, "tournament_id")?;
        let details = Details::check(&request.into_inner().details.unwrap_or_default())?;
        // An unknown tournament is NOT_FOUND (the admin passes the organiser check unread).
        self.core.load(id).await?;
        let version = self.core.store.set_details(id, &details).await?;
        if let Some(version) = version {
            let kept = details.clone();
            self.core
                .loaded
                .update(id, version, |loaded| loaded.tournament.details = kept)
                .await;
            tracing::info!(tournament = id, "details set");
        }
        Ok(pb::SetTournamentDetailsResponse {
            changed: version.is_some(),
            details: Some(details.to_pb()),
        })
    }

    async fn organiser_ids(&self, id: i64) -> ServiceResult<Vec<i64>> {
        Ok(self
            .core
            .store
            .organisers(&[id])
            .await?
            .remove(&id)
            .unwrap_or_default()
            .into_iter()
            .map(|p| p.0)
            .collect())
    }
}

/// Who organises a tournament `caller` creates: a player organises its own; the admin's has none.
fn owner(caller: Caller) -> Option<PlayerId> {
    match caller {
        Caller::Player(me) => Some(me),
        Caller::Admin => None,
    }
}

/// A tournament just created or imported, as sent: its one organiser, if any, included.
fn created(loaded: &Loaded, owner: Option<PlayerId>) -> pb::Tournament {
    let mut sent = tournament(loaded, true);
    sent.organiser_ids = owner.map(|me| me.0).into_iter().collect();
    sent
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A Tournament carries the C.07 text and unrated policy its standings follow (the store
    /// reads an older row's empty columns as the text in force at its creation: `store::convert`).
    #[test]
    fn settings_carry_the_tiebreak_rules_the_standings_follow() {
        let check = |rules: Rules, unrated: Unrated, expected: (&str, &str)| {
            let mut t = settings_row(&pb::TournamentSettings {
                name: "Club".to_owned(),
                rounds: 5,
                ..Default::default()
            })
            .expect("valid settings");
            t.tiebreak_options = Options { rules, unrated };
            let sent = settings(&t);
            assert_eq!(
                (sent.tiebreak_rules.as_str(), sent.tiebreak_unrated.as_str()),
                expected
            );
        };
        check(Rules::Fide2024, Unrated::Drop, ("2024", "drop"));
        check(Rules::Fide2026, Unrated::Drop, ("2026", "drop"));
        check(Rules::Fide2024, Unrated::Rating(1400), ("2024", "1400"));
        check(Rules::Fide2026, Unrated::Ignore, ("2026", "ignore"));
    }

    /// The settings sent back are the settings asked for: parsed once, and written from the
    /// typed values.
    #[test]
    fn settings_survive_the_round_trip() {
        let asked = pb::TournamentSettings {
            name: "Club".to_owned(),
            kind: "hanniball".to_owned(),
            ruleset: GameKind::HanniBall.rulesets()[0].to_owned(),
            system: pb::PairingSystem::SwissDutch.into(),
            rounds: 5,
            tiebreaks: vec!["BH-C1".to_owned(), "SB".to_owned(), "DE".to_owned()],
            tiebreak_rules: "2024".to_owned(),
            tiebreak_unrated: "1400".to_owned(),
            top_seed_black: true,
            bye_points: 1,
            bye_points_set: true,
            details: Some(pb::TournamentDetails::default()),
            ..Default::default()
        };
        let sent = settings(&settings_row(&asked).expect("valid settings"));
        assert_eq!(sent, asked);
    }
}
