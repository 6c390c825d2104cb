//! The boards of a tournament's rounds: a round stored whole, its games linked, results entered
//! and corrected (with the correction's record).

use sea_orm::sea_query::{CaseStatement, Expr};
use sea_orm::{ColumnTrait, EntityTrait, QueryFilter, QueryOrder, QuerySelect};

use hanniball_db::reread;
use hanniball_ids::{GameId, PlayerId};

use super::entities::{board_corrections, boards, tournament_players, tournaments};
use super::{Store, StoreError, UPDATES_PER_STATEMENT, bump, convert};
use crate::domain::{Board, BoardResult, Correction, TournamentStatus};

impl Store {
    /// Every board of a tournament, by round then board.
    pub async fn boards(&self, tournament: i64) -> Result<Vec<Board>, StoreError> {
        let rows = reread(|| async move {
            Ok(boards::Entity::find()
                .filter(boards::Column::TournamentId.eq(tournament))
                .order_by_asc(boards::Column::Round)
                .order_by_asc(boards::Column::Board)
                .all(&self.conn)
                .await?)
        })
        .await?;
        rows.into_iter().map(convert::board).collect()
    }

    /// Stores round `round` whole and makes it the current round, if the tournament is still at
    /// `round - 1` (and, for round 1, still in registration: `ranks` are then the start ranks).
    /// `Conflict` when another writer got there first.
    pub async fn store_round(
        &self,
        tournament: i64,
        round: i32,
        ranks: &[(PlayerId, i32)],
        boards: &[Board],
    ) -> Result<(), StoreError> {
        let txn = self.plumbing.begin_write().await?;
        let expected_status = if round == 1 {
            TournamentStatus::Registration
        } else {
            TournamentStatus::Running
        };
        let done = tournaments::Entity::update_many()
            .col_expr(tournaments::Column::CurrentRound, Expr::value(round))
            .col_expr(
                tournaments::Column::Status,
                Expr::value(TournamentStatus::Running.name()),
            )
            .filter(tournaments::Column::Id.eq(tournament))
            .filter(tournaments::Column::CurrentRound.eq(round - 1))
            .filter(tournaments::Column::Status.eq(expected_status.name()))
            .exec(&txn)
            .await?;
        if done.rows_affected != 1 {
            return Err(StoreError::Conflict(format!(
                "tournament {tournament} is no longer before round {round}"
            )));
        }
        // A few hundred ranks a statement (`CASE player_id WHEN …`), not one each.
        for chunk in ranks.chunks(UPDATES_PER_STATEMENT) {
            let mut rank = CaseStatement::new();
            for (player, r) in chunk {
                rank = rank.case(tournament_players::Column::PlayerId.eq(player.0), *r);
            }
            tournament_players::Entity::update_many()
                .col_expr(tournament_players::Column::StartRank, rank.into())
                .filter(tournament_players::Column::TournamentId.eq(tournament))
                .filter(tournament_players::Column::PlayerId.is_in(chunk.iter().map(|(p, _)| p.0)))
                .exec(&txn)
                .await?;
        }
        // A thousand boards a statement: 11 values each stays within every backend's limit of
        // bound values (SQLite's 32,766) however large the round.
        for chunk in boards.chunks(1_000) {
            let active: Vec<boards::ActiveModel> =
                chunk.iter().map(|b| convert::board_row(b).into()).collect();
            boards::Entity::insert_many(active)
                .exec_without_returning(&txn)
                .await?;
        }
        bump(&txn, tournament).await?;
        txn.commit().await?;
        Ok(())
    }

    /// Links boards (round, board) to the arbiter's games created for them, in one
    /// transaction; returns the new version.
    pub async fn set_board_games(
        &self,
        tournament: i64,
        games: &[(i32, i32, GameId)],
    ) -> Result<i64, StoreError> {
        let txn = self.plumbing.begin_write().await?;
        // A few hundred boards a statement, each chunk of one round (`CASE board WHEN …`).
        let chunks = games
            .chunk_by(|a, b| a.0 == b.0)
            .flat_map(|round| round.chunks(UPDATES_PER_STATEMENT));
        for chunk in chunks {
            let round = chunk[0].0;
            let mut game = CaseStatement::new();
            for (_, board, id) in chunk {
                game = game.case(boards::Column::Board.eq(*board), id.0);
            }
            boards::Entity::update_many()
                .col_expr(boards::Column::GameId, game.into())
                .filter(boards::Column::TournamentId.eq(tournament))
                .filter(boards::Column::Round.eq(round))
                .filter(boards::Column::Board.is_in(chunk.iter().map(|(_, b, _)| *b)))
                .exec(&txn)
                .await?;
        }
        let version = bump(&txn, tournament).await?;
        txn.commit().await?;
        Ok(version)
    }

    /// The board played as `game`, if any.
    pub async fn board_of_game(&self, game: GameId) -> Result<Option<Board>, StoreError> {
        let row = reread(|| async move {
            Ok(boards::Entity::find()
                .filter(boards::Column::GameId.eq(game.0))
                .one(&self.conn)
                .await?)
        })
        .await?;
        row.map(convert::board).transpose()
    }

    /// Sets a board's result (`short`: the game ended before each side made a turn). Without
    /// `correction`, only a board with no result yet changes (a result arriving twice is stored
    /// once); returns the tournament's new version if it changed.
    pub async fn set_board_result(
        &self,
        tournament: i64,
        round: i32,
        board: i32,
        result: BoardResult,
        short: bool,
        correction: bool,
    ) -> Result<Option<i64>, StoreError> {
        let mut update = boards::Entity::update_many()
            .col_expr(boards::Column::Result, Expr::value(result.as_str()))
            .col_expr(boards::Column::Short, Expr::value(short))
            .filter(boards::Column::TournamentId.eq(tournament))
            .filter(boards::Column::Round.eq(round))
            .filter(boards::Column::Board.eq(board));
        if correction {
            update = update.col_expr(boards::Column::Corrected, Expr::value(true));
        } else {
            update = update.filter(boards::Column::Result.is_null());
        }
        let txn = self.plumbing.begin_write().await?;
        let changed = update.exec(&txn).await?.rows_affected == 1;
        let version = if changed {
            Some(bump(&txn, tournament).await?)
        } else {
            None
        };
        txn.commit().await?;
        Ok(version)
    }

    /// A board's result corrected (`row` says from what, to what, by whom and why), with the
    /// correction's record, in one transaction: only while the board still has `row.previous`
    /// (else `Conflict`: corrected meanwhile). `game`: the board's game when it has one now (an
    /// over-the-board result's). Returns the tournament's new version.
    pub async fn correct_board_result(
        &self,
        row: &Correction,
        short: bool,
        game: Option<GameId>,
    ) -> Result<i64, StoreError> {
        let txn = self.plumbing.begin_write().await?;
        let mut update = boards::Entity::update_many()
            .col_expr(boards::Column::Result, Expr::value(row.result.as_str()))
            .col_expr(boards::Column::Short, Expr::value(short))
            .col_expr(boards::Column::Corrected, Expr::value(true));
        if let Some(game) = game {
            update = update.col_expr(boards::Column::GameId, Expr::value(game.0));
        }
        let done = update
            .filter(boards::Column::TournamentId.eq(row.tournament_id))
            .filter(boards::Column::Round.eq(row.round))
            .filter(boards::Column::Board.eq(row.board))
            // The new result may be there already: the arbiter's correction reached the board
            // through its results first.
            .filter(boards::Column::Result.is_in([row.previous.as_str(), row.result.as_str()]))
            .exec(&txn)
            .await?;
        if done.rows_affected != 1 {
            return Err(StoreError::Conflict(format!(
                "board {}.{} no longer has the result {}",
                row.round, row.board, row.previous
            )));
        }
        let last: Option<i32> = board_corrections::Entity::find()
            .select_only()
            .column(board_corrections::Column::Number)
            .filter(board_corrections::Column::TournamentId.eq(row.tournament_id))
            .order_by_desc(board_corrections::Column::Number)
            .into_tuple()
            .one(&txn)
            .await?;
        let mut record = convert::correction_row(row);
        record.number = last.unwrap_or(0) + 1;
        board_corrections::Entity::insert(board_corrections::ActiveModel::from(record))
            .exec_without_returning(&txn)
            .await?;
        let version = bump(&txn, row.tournament_id).await?;
        txn.commit().await?;
        Ok(version)
    }

    /// A tournament's result corrections, oldest first.
    pub async fn corrections(&self, tournament: i64) -> Result<Vec<Correction>, StoreError> {
        let rows = reread(|| async move {
            Ok(board_corrections::Entity::find()
                .filter(board_corrections::Column::TournamentId.eq(tournament))
                .order_by_asc(board_corrections::Column::Number)
                .all(&self.conn)
                .await?)
        })
        .await?;
        rows.into_iter().map(convert::correction).collect()
    }

    /// The organiser's results of boards (round, board, result, short, the game when the call
    /// created one: over the board) in one transaction, as [`Store::set_board_result`] with
    /// `correction`; returns the tournament's new version.
    pub async fn set_board_results(
        &self,
        tournament: i64,
        results: &[(i32, i32, BoardResult, bool, Option<GameId>)],
    ) -> Result<i64, StoreError> {
        let txn = self.plumbing.begin_write().await?;
        for (round, board, result, short, game) in results {
            let mut update = boards::Entity::update_many();
            if let Some(game) = game {
                update = update.col_expr(boards::Column::GameId, Expr::value(game.0));
            }
            update
                .col_expr(boards::Column::Result, Expr::value(result.as_str()))
                .col_expr(boards::Column::Short, Expr::value(*short))
                .col_expr(boards::Column::Corrected, Expr::value(true))
                .filter(boards::Column::TournamentId.eq(tournament))
                .filter(boards::Column::Round.eq(*round))
                .filter(boards::Column::Board.eq(*board))
                .exec(&txn)
                .await?;
        }
        let version = bump(&txn, tournament).await?;
        txn.commit().await?;
        Ok(version)
    }
}
