//! Group commits: new games and changes of stored ones, in one transaction per batch; and
//! the PostgreSQL announcements of what other processes committed.

use hanniball_arbiter::{GameId, Match, Status};
use hanniball_db::StoreError;
use sea_orm::{ConnectionTrait, DbBackend, EntityTrait, TransactionTrait};

use super::Store;
use super::batch::{
    GAMES_CHANNEL, GameColumns, insert_outbox, insert_turns, notify_games, update_games,
};
use super::changes::{Change, NewGame, Write, created_id};
use super::entities::games;

impl Store {
    /// Inserts a new game and returns its id. `game` is the new match as [`Match::new`] made it
    /// (its own id is a placeholder: the database assigns the real one).
    pub async fn insert_game(
        &self,
        game: &Match,
        idempotency_key: Option<&str>,
    ) -> Result<GameId, StoreError> {
        let create = Change::Create(NewGame::of(game, idempotency_key));
        created_id(
            self.commit_changes(std::slice::from_ref(&create))
                .await
                .remove(0),
        )
    }

    /// Inserts new games in one transaction, all or none (a key already taken is `Conflict`);
    /// their ids in order.
    pub async fn insert_games(&self, games: &[NewGame]) -> Result<Vec<GameId>, StoreError> {
        let changes: Vec<Change> = games.iter().cloned().map(Change::Create).collect();
        self.commit_all(&changes)
            .await?
            .into_iter()
            .map(|id| created_id(Ok(id)))
            .collect()
    }

    /// Stores several games' changes in one transaction (group commit: one disk sync for all).
    /// If the batch fails, each write is retried alone so that one conflicting write cannot sink
    /// the others. Results are in the order of `writes`.
    pub async fn commit(&self, writes: &[Write]) -> Vec<Result<(), StoreError>> {
        let changes: Vec<Change> = writes.iter().cloned().map(Change::Write).collect();
        self.commit_changes(&changes)
            .await
            .into_iter()
            .map(|result| result.map(drop))
            .collect()
    }

    /// [`Store::commit`] for new games and changes together: a created game's result carries its
    /// id. New games are inserted first (no change in a batch refers to a game created in it).
    pub async fn commit_changes(
        &self,
        changes: &[Change],
    ) -> Vec<Result<Option<GameId>, StoreError>> {
        if changes.len() > 1 {
            match self.commit_all(changes).await {
                Ok(ids) => return ids.into_iter().map(Ok).collect(),
                Err(error @ StoreError::Unavailable { .. }) => {
                    return changes.iter().map(|_| Err(error.clone())).collect();
                }
                Err(error) => {
                    tracing::debug!(%error, batch = changes.len(), "batch commit failed; committing one by one");
                }
            }
        }
        let mut results = Vec::with_capacity(changes.len());
        for change in changes {
            let result = self.commit_all(std::slice::from_ref(change)).await;
            results.push(result.map(|mut ids| ids.remove(0)));
        }
        results
    }

    async fn commit_all(&self, changes: &[Change]) -> Result<Vec<Option<GameId>>, StoreError> {
        let txn = self.commits.begin().await?;
        let mut created = Vec::with_capacity(changes.len());
        let mut writes = Vec::with_capacity(changes.len());
        for change in changes {
            match change {
                Change::Create(new) => {
                    let row = games::Entity::insert((*new.0).clone())
                        .exec_with_returning(&txn)
                        .await?;
                    created.push(Some(GameId(row.id)));
                }
                Change::Write(write) => {
                    writes.push(write);
                    created.push(None);
                }
            }
        }
        // All the batch's turns in one statement; the (game, number) key still refuses a double.
        let turns: Vec<(GameId, &hanniball_arbiter::TurnRecord)> = writes
            .iter()
            .filter_map(|write| write.record.as_ref().map(|r| (write.game_id, r)))
            .collect();
        insert_turns(&txn, &turns).await?;
        let mut ids: Vec<i64> = writes.iter().map(|w| w.game_id.0).collect();
        ids.sort_unstable();
        ids.dedup();
        if ids.len() == writes.len() {
            let (mut live, ending): (Vec<&Write>, Vec<&Write>) =
                writes.iter().partition(|w| w.status == Status::Active);
            // SQLite: a plain turn is in the log alone; the row keeps what the last other change
            // wrote and readers take the live columns from the log's last turn (`log_tail`).
            // Writers there take the whole database in turn, so the log's key and the guards of
            // `insert_turns` and `update_games` are exact. PostgreSQL: other replicas may write
            // the same game at the same time, and the row update is what orders them (its row
            // lock and turn-count guard), so every write still updates the row.
            if txn.get_database_backend() == DbBackend::Sqlite {
                live.retain(|write| write.changes_row);
            }
            update_games(&txn, &live, GameColumns::Live).await?;
            update_games(&txn, &ending, GameColumns::All).await?;
        } else {
            // Two writes of one game: each must see the other's row, so one statement each.
            for write in &writes {
                update_games(&txn, std::slice::from_ref(write), GameColumns::All).await?;
            }
        }
        for write in &writes {
            insert_outbox(&txn, write).await?;
        }
        if txn.get_database_backend() == DbBackend::Postgres {
            let mut changed: Vec<i64> = created.iter().flatten().map(|id| id.0).collect();
            changed.extend(writes.iter().map(|w| w.game_id.0));
            notify_games(&txn, &changed).await?;
        }
        txn.commit().await?;
        Ok(created)
    }

    /// PostgreSQL: the games other processes changed, as they commit (`LISTEN` on
    /// [`GAMES_CHANNEL`]): each item is a game and its row's version after the change. `None`
    /// from the stream means notifications may have been missed (the connection was lost and
    /// re-made): the caller should compare every copy it holds. `Ok(None)` on SQLite, where one
    /// process owns the database.
    pub async fn listen_games(
        &self,
    ) -> Result<Option<impl tokio_stream::Stream<Item = Option<(GameId, i64)>> + use<>>, StoreError>
    {
        let Some(notes) = self.plumbing.listen(GAMES_CHANNEL, "game changes").await? else {
            return Ok(None);
        };
        Ok(Some(tokio_stream::StreamExt::filter_map(
            notes,
            |note| match note {
                Some(payload) => {
                    let mut parts = payload.split(' ');
                    match (
                        parts.next().map(str::parse::<i64>),
                        parts.next().map(str::parse::<i64>),
                    ) {
                        (Some(Ok(id)), Some(Ok(version))) => Some(Some((GameId(id), version))),
                        _ => None,
                    }
                }
                None => Some(None),
            },
        )))
    }
}
