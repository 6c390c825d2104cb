//! Results: entered by the organiser (one, or many in one transaction), with each board's
//! game ended the same way in the arbiter, and corrected with a record of the correction.

use hanniball_ids::GameId;
use hanniball_proto::scheduler::v1 as pb;
use hanniball_svc_kit::limits;
use tonic::{Request, Response, Status};

use super::convert::{board, correction};
use super::{IN_FLIGHT, MAX_BATCH, SchedulerService, positive};
use crate::core::{Core, now};
use crate::domain::{BoardResult, Correction, TournamentStatus};
use crate::error::{ServiceError, ServiceResult};
use crate::model::Unpairable;

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
        let games: Vec<(i32, i32, BoardResult, GameId)> = if todo.len() > 1 {
            todo.iter()
                .filter_map(|(round, number, result, game, _)| {
                    game.map(|g| (*round, *number, *result, g))
                })
                .collect()
        } else {
            Vec::new()
        };
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

/// A board of [`SchedulerService::enter_results`] to enter a result on: (round, board, the result, its game, the game to record when
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

impl SchedulerService {
    /// `CorrectResult`: a board's result corrected, with who and why.
    pub(super) async fn corrected(
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

    /// `SetResult`: one board's result.
    pub(super) async fn one_result(
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

    /// `SetResults`: many boards' results, all or none.
    pub(super) async fn many_results(
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
}
