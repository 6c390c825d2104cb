//! Scheduler tables: tournaments, their players, byes requested ahead, the boards of each round;
//! the matchmaking queue and the matches it made; the scheduler's cursor in the results outbox.
//!
//! Every change of a tournament's state is one transaction guarded by the state it expects
//! (`current_round`, `status`, an empty result), so a retry, a restart or a second replica can
//! repeat a step without doing it twice.

use hanniball_ids::{GameId, PlayerId};
use sea_orm::DbBackend;

use sea_orm::sea_query::{Alias, CaseStatement, Expr, ExprTrait, OnConflict};
use sea_orm::{
    ActiveValue::Set, ColumnTrait, ConnectionTrait, EntityTrait, QueryFilter, QueryOrder,
    QuerySelect, TransactionTrait,
};

use hanniball_db::{Db, Sql, reread, search};

pub use hanniball_db::StoreError;

/// Rows one batched `UPDATE … CASE` changes at most: three bound values each stays far within
/// every backend's limit.
const UPDATES_PER_STATEMENT: usize = 500;

/// sea-orm entities of the scheduler's tables.
/// The scheduler's tables.
#[derive(Clone, Debug)]
pub struct Store {
    /// Its connection (pool); [`Store::db`] is the plumbing around it.
    conn: sea_orm::DatabaseConnection,
    plumbing: Db,
}

impl Store {
    /// The scheduler's tables in `db`, after applying their pending migrations.
    pub async fn open(db: &Db) -> Result<Store, StoreError> {
        db.migrate::<hanniball_migration_scheduler::Migrator>()
            .await?;
        // Tournaments that a binary from before search keys created (a rolling upgrade).
        search::fill_search_keys(db.connection(), "tournaments", "name", "search_key").await?;
        Ok(Store {
            conn: db.connection().clone(),
            plumbing: db.clone(),
        })
    }

    /// Connects to `url` and opens the scheduler's tables there.
    pub async fn connect(url: &str) -> Result<Store, StoreError> {
        Store::open(&Db::connect(url).await?).await
    }

    /// The database underneath.
    #[must_use]
    pub fn db(&self) -> &Db {
        &self.plumbing
    }

    /// The database backend in use.
    #[must_use]
    pub fn backend(&self) -> DbBackend {
        self.plumbing.backend()
    }
}

pub mod entities {
    pub mod tournaments {
        use sea_orm::entity::prelude::*;

        #[derive(Clone, Debug, PartialEq, Eq, DeriveEntityModel)]
        #[sea_orm(table_name = "tournaments")]
        pub struct Model {
            #[sea_orm(primary_key)]
            pub id: i64,
            pub name: String,
            pub kind: String,
            pub ruleset: String,
            pub system: super::super::System,
            pub rounds: i32,
            pub initial_ms: Option<i64>,
            pub increment_ms: Option<i64>,
            pub max_turns: i32,
            pub rated: bool,
            pub bye_points: i32,
            pub tiebreaks: String,
            /// C.07 text, "2024" or "2026"; empty: by the creation date (migration 10).
            pub tiebreak_rules: String,
            /// Unrated players in rating-based tie-breaks: "drop", "ignore" or a rating; empty:
            /// "drop".
            pub tiebreak_unrated: String,
            pub initial_colour: String,
            pub forfeit_withdraws: bool,
            pub auto_pair: bool,
            /// Players may enter and leave with their own tokens before the start.
            pub self_entry: bool,
            /// Players may also enter after the start (Swiss only; implies `self_entry`).
            pub late_self_entry: bool,
            pub status: super::super::TournamentStatus,
            pub current_round: i32,
            pub created_at_ms: i64,
            /// Played on physical boards: no games run on the server (migration 4).
            pub over_the_board: bool,
            /// What the organiser says of it (place, dates, arbiters...) as JSON; empty: nothing
            /// (migration 7; `details::Details`).
            pub details: String,
        }

        #[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
        pub enum Relation {}

        impl ActiveModelBehavior for ActiveModel {}
    }

    pub mod tournament_players {
        use sea_orm::entity::prelude::*;

        #[derive(Clone, Debug, PartialEq, Eq, DeriveEntityModel)]
        #[sea_orm(table_name = "tournament_players")]
        pub struct Model {
            #[sea_orm(primary_key, auto_increment = false)]
            pub tournament_id: i64,
            #[sea_orm(primary_key, auto_increment = false)]
            pub player_id: i64,
            pub start_rank: Option<i32>,
            pub rating: i32,
            pub joined_round: i32,
            pub withdrawn_from: Option<i32>,
        }

        #[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
        pub enum Relation {}

        impl ActiveModelBehavior for ActiveModel {}
    }

    pub mod bye_requests {
        use sea_orm::entity::prelude::*;

        #[derive(Clone, Debug, PartialEq, Eq, DeriveEntityModel)]
        #[sea_orm(table_name = "bye_requests")]
        pub struct Model {
            #[sea_orm(primary_key, auto_increment = false)]
            pub tournament_id: i64,
            #[sea_orm(primary_key, auto_increment = false)]
            pub player_id: i64,
            #[sea_orm(primary_key, auto_increment = false)]
            pub round: i32,
            pub points: i32,
        }

        #[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
        pub enum Relation {}

        impl ActiveModelBehavior for ActiveModel {}
    }

    pub mod boards {
        use sea_orm::entity::prelude::*;

        #[derive(Clone, Debug, PartialEq, Eq, DeriveEntityModel)]
        #[sea_orm(table_name = "boards")]
        pub struct Model {
            #[sea_orm(primary_key, auto_increment = false)]
            pub tournament_id: i64,
            #[sea_orm(primary_key, auto_increment = false)]
            pub round: i32,
            #[sea_orm(primary_key, auto_increment = false)]
            pub board: i32,
            pub kind: String,
            pub white_id: i64,
            pub black_id: Option<i64>,
            pub game_id: Option<i64>,
            pub result: Option<String>,
            pub corrected: bool,
            /// The game ended before each side had made a turn: it counts in the tournament but
            /// is not rated (TRF `W`/`D`/`L`).
            pub short: bool,
        }

        #[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
        pub enum Relation {}

        impl ActiveModelBehavior for ActiveModel {}
    }

    pub mod queue_entries {
        use sea_orm::entity::prelude::*;

        #[derive(Clone, Debug, PartialEq, Eq, DeriveEntityModel)]
        #[sea_orm(table_name = "queue_entries")]
        pub struct Model {
            #[sea_orm(primary_key, auto_increment = false)]
            pub player_id: i64,
            pub kind: String,
            pub ruleset: String,
            pub initial_ms: Option<i64>,
            pub increment_ms: Option<i64>,
            pub rated: bool,
            pub joined_at_ms: i64,
        }

        #[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
        pub enum Relation {}

        impl ActiveModelBehavior for ActiveModel {}
    }

    pub mod board_corrections {
        use sea_orm::entity::prelude::*;

        #[derive(Clone, Debug, PartialEq, Eq, DeriveEntityModel)]
        #[sea_orm(table_name = "board_corrections")]
        pub struct Model {
            #[sea_orm(primary_key, auto_increment = false)]
            pub tournament_id: i64,
            /// 1 for the tournament's first correction.
            #[sea_orm(primary_key, auto_increment = false)]
            pub number: i32,
            pub round: i32,
            pub board: i32,
            pub previous: String,
            pub result: String,
            pub corrected_by: String,
            pub note: String,
            pub at_ms: i64,
            /// A later round had been paired: its pairings stand.
            pub after_pairing: bool,
        }

        #[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
        pub enum Relation {}

        impl ActiveModelBehavior for ActiveModel {}
    }

    pub mod matches {
        use sea_orm::entity::prelude::*;

        #[derive(Clone, Debug, PartialEq, Eq, DeriveEntityModel)]
        #[sea_orm(table_name = "matches")]
        pub struct Model {
            #[sea_orm(primary_key)]
            pub id: i64,
            pub white_id: i64,
            pub black_id: i64,
            pub kind: String,
            pub ruleset: String,
            pub initial_ms: Option<i64>,
            pub increment_ms: Option<i64>,
            pub rated: bool,
            pub game_id: Option<i64>,
            pub created_at_ms: i64,
        }

        #[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
        pub enum Relation {}

        impl ActiveModelBehavior for ActiveModel {}
    }

    pub mod scheduler_cursor {
        use sea_orm::entity::prelude::*;

        #[derive(Clone, Debug, PartialEq, Eq, DeriveEntityModel)]
        #[sea_orm(table_name = "scheduler_cursor")]
        pub struct Model {
            #[sea_orm(primary_key, auto_increment = false)]
            pub id: i32,
            pub sequence: i64,
        }

        #[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
        pub enum Relation {}

        impl ActiveModelBehavior for ActiveModel {}
    }
}

use entities::{
    board_corrections, boards, bye_requests, matches, queue_entries, scheduler_cursor,
    tournament_players, tournaments,
};

/// Where a tournament stands (stored as its lowercase name).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, sea_orm::EnumIter, sea_orm::DeriveActiveEnum)]
#[sea_orm(rs_type = "String", db_type = "Text")]
pub enum TournamentStatus {
    /// Taking entries; not started.
    #[sea_orm(string_value = "registration")]
    Registration,
    /// Started: rounds being paired and played.
    #[sea_orm(string_value = "running")]
    Running,
    /// Its last round is complete.
    #[sea_orm(string_value = "finished")]
    Finished,
}

impl TournamentStatus {
    /// The stored name (`registration`, `running`, `finished`).
    #[must_use]
    pub const fn name(self) -> &'static str {
        match self {
            TournamentStatus::Registration => "registration",
            TournamentStatus::Running => "running",
            TournamentStatus::Finished => "finished",
        }
    }
}

impl std::fmt::Display for TournamentStatus {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// How a tournament is paired (stored as its name).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, sea_orm::EnumIter, sea_orm::DeriveActiveEnum)]
#[sea_orm(rs_type = "String", db_type = "Text")]
pub enum System {
    /// FIDE Dutch Swiss.
    #[sea_orm(string_value = "swiss-dutch")]
    Swiss,
    /// Berger tables, each pair once.
    #[sea_orm(string_value = "round-robin")]
    RoundRobin,
    /// Berger tables, each pair twice with colours reversed.
    #[sea_orm(string_value = "double-round-robin")]
    DoubleRoundRobin,
}

impl System {
    /// The stored name (`swiss-dutch`, `round-robin`, `double-round-robin`).
    #[must_use]
    pub const fn name(self) -> &'static str {
        match self {
            System::Swiss => "swiss-dutch",
            System::RoundRobin => "round-robin",
            System::DoubleRoundRobin => "double-round-robin",
        }
    }
}

impl std::fmt::Display for System {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// A tournament's settings and state, as stored.
pub type TournamentRow = tournaments::Model;
/// A player registered in a tournament.
pub type EntrantRow = tournament_players::Model;
/// A bye requested ahead for a round (`points`: 1 half-point bye, 0 zero-point bye).
pub type ByeRow = bye_requests::Model;
/// One board of a round: a game (`kind` "game"), or a player's bye/absence (`black_id` None).
pub type BoardRow = boards::Model;
/// A board's result corrected by the organiser.
pub type CorrectionRow = board_corrections::Model;
/// A player waiting in the matchmaking queue.
pub type QueueRow = queue_entries::Model;
/// A game made by the matchmaking queue.
pub type MatchRow = matches::Model;

/// Bumps tournament `id`'s version: part of the transaction of every change of the tournament,
/// its entrants, bye requests or boards, so a copy loaded after reading version `v` is current
/// while the version is still `v` (see [`Store::tournament_version`]). Returns the new version:
/// a writer whose copy was at the version before it may bring its copy up to date itself.
async fn bump<C: ConnectionTrait>(db: &C, id: i64) -> Result<i64, StoreError> {
    let mut sql = Sql::new(
        db.get_database_backend(),
        "UPDATE tournaments SET version = version + 1 WHERE id = ",
    );
    sql.bind(id);
    sql.push(" RETURNING version");
    let row = db
        .query_one_raw(sql.statement())
        .await?
        .ok_or_else(|| StoreError::Conflict(format!("no tournament {id} to change")))?;
    Ok(row.try_get_by_index(0)?)
}

async fn insert_organiser<C: ConnectionTrait>(
    db: &C,
    tournament: i64,
    player: PlayerId,
) -> Result<(), StoreError> {
    let mut sql = Sql::new(
        db.get_database_backend(),
        "INSERT INTO tournament_organisers (tournament_id, player_id) VALUES (",
    );
    sql.bind(tournament);
    sql.push(", ");
    sql.bind(player.0);
    sql.push(")");
    db.execute_raw(sql.statement()).await?;
    Ok(())
}

/// Inserts a tournament's row (its id from the database) with its search key; returns the id.
async fn insert_tournament<C: ConnectionTrait>(
    db: &C,
    t: &TournamentRow,
) -> Result<i64, StoreError> {
    let mut row: tournaments::ActiveModel = t.clone().into();
    row.id = sea_orm::ActiveValue::NotSet;
    let id = tournaments::Entity::insert(row)
        .exec(db)
        .await?
        .last_insert_id;
    // Like `version`, a column the entity leaves out: the store's own, kept from the name.
    let mut sql = Sql::new(
        db.get_database_backend(),
        "UPDATE tournaments SET search_key = ",
    );
    sql.bind(search::search_key(&t.name));
    sql.push(" WHERE id = ");
    sql.bind(id);
    db.execute_raw(sql.statement()).await?;
    Ok(id)
}

impl Store {
    /// Tournament `id`'s version (`None`: no such tournament). Read it *before* loading the
    /// tournament: the copy is then at least as new as the version, and stays current while the
    /// version does not change.
    pub async fn tournament_version(&self, id: i64) -> Result<Option<i64>, StoreError> {
        reread(|| async move {
            let mut sql = Sql::new(
                self.conn.get_database_backend(),
                "SELECT version FROM tournaments WHERE id = ",
            );
            sql.bind(id);
            let row = self.conn.query_one_raw(sql.statement()).await?;
            Ok(match row {
                Some(row) => Some(row.try_get_by_index(0)?),
                None => None,
            })
        })
        .await
    }

    /// Stores a new tournament (its `id` is assigned) with the search key of its name and its
    /// first organiser (`None`: the admin's alone); returns the id.
    pub async fn create_tournament(
        &self,
        t: &TournamentRow,
        owner: Option<PlayerId>,
    ) -> Result<i64, StoreError> {
        let txn = self.conn.begin().await?;
        let id = insert_tournament(&txn, t).await?;
        if let Some(owner) = owner {
            insert_organiser(&txn, id, owner).await?;
        }
        txn.commit().await?;
        Ok(id)
    }

    /// Whether `player` organises tournament `id`.
    pub async fn is_organiser(&self, id: i64, player: PlayerId) -> Result<bool, StoreError> {
        reread(|| async move {
            let mut sql = Sql::new(
                self.conn.get_database_backend(),
                "SELECT 1 FROM tournament_organisers WHERE tournament_id = ",
            );
            sql.bind(id);
            sql.push(" AND player_id = ");
            sql.bind(player.0);
            Ok(self.conn.query_one_raw(sql.statement()).await?.is_some())
        })
        .await
    }

    /// The organisers of each of `ids` (by player id; a tournament without any is left out).
    pub async fn organisers(
        &self,
        ids: &[i64],
    ) -> Result<std::collections::HashMap<i64, Vec<i64>>, StoreError> {
        let mut found: std::collections::HashMap<i64, Vec<i64>> = std::collections::HashMap::new();
        for chunk in ids.chunks(500) {
            let rows = reread(|| async move {
                let mut sql = Sql::new(
                    self.conn.get_database_backend(),
                    "SELECT tournament_id, player_id FROM tournament_organisers WHERE tournament_id IN (",
                );
                for (i, id) in chunk.iter().enumerate() {
                    if i > 0 {
                        sql.push(", ");
                    }
                    sql.bind(*id);
                }
                sql.push(") ORDER BY tournament_id, player_id");
                Ok(self.conn.query_all_raw(sql.statement()).await?)
            })
            .await?;
            for row in rows {
                let (t, p): (i64, i64) = (row.try_get_by_index(0)?, row.try_get_by_index(1)?);
                found.entry(t).or_default().push(p);
            }
        }
        Ok(found)
    }

    /// Adds an organiser to tournament `id`: whether it was not one already; `None` when there is
    /// no such tournament (a row for an id not yet used would hand its player that tournament).
    pub async fn add_organiser(
        &self,
        id: i64,
        player: PlayerId,
    ) -> Result<Option<bool>, StoreError> {
        let txn = self.plumbing.begin_write().await?;
        if tournaments::Entity::find_by_id(id)
            .one(&txn)
            .await?
            .is_none()
        {
            return Ok(None);
        }
        let mut sql = Sql::new(
            self.conn.get_database_backend(),
            "SELECT 1 FROM tournament_organisers WHERE tournament_id = ",
        );
        sql.bind(id);
        sql.push(" AND player_id = ");
        sql.bind(player.0);
        if txn.query_one_raw(sql.statement()).await?.is_some() {
            return Ok(Some(false));
        }
        insert_organiser(&txn, id, player).await?;
        txn.commit().await?;
        Ok(Some(true))
    }

    /// Removes an organiser from tournament `id`: whether it was one.
    pub async fn remove_organiser(&self, id: i64, player: PlayerId) -> Result<bool, StoreError> {
        let mut sql = Sql::new(
            self.conn.get_database_backend(),
            "DELETE FROM tournament_organisers WHERE tournament_id = ",
        );
        sql.bind(id);
        sql.push(" AND player_id = ");
        sql.bind(player.0);
        Ok(self
            .conn
            .execute_raw(sql.statement())
            .await?
            .rows_affected()
            > 0)
    }

    /// The pairs of entrants of tournament `id` who must not meet (smaller id first), in order.
    pub async fn forbidden_pairs(&self, id: i64) -> Result<Vec<(i64, i64)>, StoreError> {
        reread(|| async move {
            let mut sql = Sql::new(
                self.conn.get_database_backend(),
                "SELECT first_id, second_id FROM forbidden_pairs WHERE tournament_id = ",
            );
            sql.bind(id);
            sql.push(" ORDER BY first_id, second_id");
            let rows = self.conn.query_all_raw(sql.statement()).await?;
            rows.iter()
                .map(|row| Ok((row.try_get_by_index(0)?, row.try_get_by_index(1)?)))
                .collect()
        })
        .await
    }

    /// Forbids (or allows again) the pair `first < second` in tournament `id`: the tournament's
    /// new version when something changed, `None` when nothing did.
    pub async fn set_forbidden_pair(
        &self,
        id: i64,
        first: i64,
        second: i64,
        forbidden: bool,
    ) -> Result<Option<i64>, StoreError> {
        let txn = self.plumbing.begin_write().await?;
        let backend = txn.get_database_backend();
        let pair = |sql: &mut Sql| {
            sql.bind(id);
            sql.push(" AND first_id = ");
            sql.bind(first);
            sql.push(" AND second_id = ");
            sql.bind(second);
        };
        let mut sql = Sql::new(
            backend,
            "SELECT 1 FROM forbidden_pairs WHERE tournament_id = ",
        );
        pair(&mut sql);
        let present = txn.query_one_raw(sql.statement()).await?.is_some();
        if present == forbidden {
            return Ok(None);
        }
        let sql = if forbidden {
            let mut sql = Sql::new(
                backend,
                "INSERT INTO forbidden_pairs (tournament_id, first_id, second_id) VALUES (",
            );
            sql.bind(id);
            sql.push(", ");
            sql.bind(first);
            sql.push(", ");
            sql.bind(second);
            sql.push(")");
            sql
        } else {
            let mut sql = Sql::new(
                backend,
                "DELETE FROM forbidden_pairs WHERE tournament_id = ",
            );
            pair(&mut sql);
            sql
        };
        txn.execute_raw(sql.statement()).await?;
        let version = bump(&txn, id).await?;
        txn.commit().await?;
        Ok(Some(version))
    }

    /// Sets tournament `id`'s details (as stored, JSON): its new version when they changed,
    /// `None` when they were these already (or there is no such tournament).
    pub async fn set_details(&self, id: i64, details: &str) -> Result<Option<i64>, StoreError> {
        let txn = self.plumbing.begin_write().await?;
        let Some(t) = tournaments::Entity::find_by_id(id).one(&txn).await? else {
            return Ok(None);
        };
        if t.details == details {
            return Ok(None);
        }
        let mut sql = Sql::new(
            txn.get_database_backend(),
            "UPDATE tournaments SET details = ",
        );
        sql.bind(details.to_owned());
        sql.push(" WHERE id = ");
        sql.bind(id);
        txn.execute_raw(sql.statement()).await?;
        let version = bump(&txn, id).await?;
        txn.commit().await?;
        Ok(Some(version))
    }

    /// Deletes a tournament that has not started, with its entries, byes and organisers: false
    /// when there is none, or it has started (the status is checked in the same transaction).
    pub async fn delete_tournament(&self, id: i64) -> Result<bool, StoreError> {
        let txn = self.plumbing.begin_write().await?;
        let Some(t) = tournaments::Entity::find_by_id(id).one(&txn).await? else {
            return Ok(false);
        };
        if t.status != TournamentStatus::Registration {
            return Ok(false);
        }
        for table in [
            "bye_requests",
            "tournament_players",
            "tournament_organisers",
            "forbidden_pairs",
        ] {
            let mut sql = Sql::new(
                txn.get_database_backend(),
                &format!("DELETE FROM {table} WHERE tournament_id = "),
            );
            sql.bind(id);
            txn.execute_raw(sql.statement()).await?;
        }
        tournaments::Entity::delete_by_id(id).exec(&txn).await?;
        txn.commit().await?;
        Ok(true)
    }

    /// One tournament.
    pub async fn tournament(&self, id: i64) -> Result<Option<TournamentRow>, StoreError> {
        reread(async || Ok(tournaments::Entity::find_by_id(id).one(&self.conn).await?)).await
    }

    /// Tournaments, newest first, optionally with one status, and only those whose names hold
    /// every word of `name` (case ignored, in any script: [`search`]; no words: any name), and
    /// (`entrant`) only those that player entered.
    pub async fn tournaments(
        &self,
        status: Option<TournamentStatus>,
        name: &search::Words,
        entrant: Option<i64>,
        limit: u64,
    ) -> Result<Vec<TournamentRow>, StoreError> {
        reread(|| async move {
            let mut query = tournaments::Entity::find().order_by_desc(tournaments::Column::Id);
            if let Some(status) = status {
                query = query.filter(tournaments::Column::Status.eq(status));
            }
            if !name.is_empty() {
                query = query.filter(name.condition(Alias::new("search_key")));
            }
            if let Some(player) = entrant {
                query = query.filter(
                    tournaments::Column::Id.in_subquery(
                        sea_orm::sea_query::Query::select()
                            .column(tournament_players::Column::TournamentId)
                            .from(tournament_players::Entity)
                            .and_where(tournament_players::Column::PlayerId.eq(player))
                            .to_owned(),
                    ),
                );
            }
            Ok(query.limit(limit).all(&self.conn).await?)
        })
        .await
    }

    /// The players of a tournament (by start rank once it has started, else by registration).
    pub async fn entrants(&self, tournament: i64) -> Result<Vec<EntrantRow>, StoreError> {
        reread(|| async move {
            Ok(tournament_players::Entity::find()
                .filter(tournament_players::Column::TournamentId.eq(tournament))
                .order_by_asc(tournament_players::Column::StartRank)
                .order_by_asc(tournament_players::Column::PlayerId)
                .all(&self.conn)
                .await?)
        })
        .await
    }

    /// Registers a player; `Conflict` when already registered. Returns the tournament's new
    /// version.
    pub async fn add_entrant(&self, row: &EntrantRow) -> Result<i64, StoreError> {
        let tournament = row.tournament_id;
        let row: tournament_players::ActiveModel = row.clone().into();
        let txn = self.conn.begin().await?;
        tournament_players::Entity::insert(row)
            .exec_without_returning(&txn)
            .await?;
        let version = bump(&txn, tournament).await?;
        txn.commit().await?;
        Ok(version)
    }

    /// A tournament started elsewhere (a TRF file), in one transaction: its row as given (status
    /// and current round included), its entrants with their start ranks and its boards with
    /// their results. Returns its id; the entrants' and boards' `tournament_id` are ignored.
    pub async fn import_tournament(
        &self,
        t: &TournamentRow,
        entrants: &[EntrantRow],
        rows: &[BoardRow],
        owner: Option<PlayerId>,
    ) -> Result<i64, StoreError> {
        let txn = self.conn.begin().await?;
        let id = insert_tournament(&txn, t).await?;
        if let Some(owner) = owner {
            insert_organiser(&txn, id, owner).await?;
        }
        for chunk in entrants.chunks(500) {
            let active: Vec<tournament_players::ActiveModel> = chunk
                .iter()
                .map(|e| EntrantRow {
                    tournament_id: id,
                    ..e.clone()
                })
                .map(Into::into)
                .collect();
            tournament_players::Entity::insert_many(active)
                .exec_without_returning(&txn)
                .await?;
        }
        for chunk in rows.chunks(1_000) {
            let active: Vec<boards::ActiveModel> = chunk
                .iter()
                .map(|b| BoardRow {
                    tournament_id: id,
                    ..b.clone()
                })
                .map(Into::into)
                .collect();
            boards::Entity::insert_many(active)
                .exec_without_returning(&txn)
                .await?;
        }
        txn.commit().await?;
        Ok(id)
    }

    /// Registers players in one transaction, all or none (`Conflict` when one is already
    /// registered); returns the tournament's new version.
    pub async fn add_entrants(&self, rows: &[EntrantRow]) -> Result<Option<i64>, StoreError> {
        let Some(tournament) = rows.first().map(|row| row.tournament_id) else {
            return Ok(None);
        };
        let txn = self.conn.begin().await?;
        // A few hundred rows a statement: within every backend's limit of bound values.
        for chunk in rows.chunks(500) {
            let active: Vec<tournament_players::ActiveModel> =
                chunk.iter().cloned().map(Into::into).collect();
            tournament_players::Entity::insert_many(active)
                .exec_without_returning(&txn)
                .await?;
        }
        let version = bump(&txn, tournament).await?;
        txn.commit().await?;
        Ok(Some(version))
    }

    /// Removes a player's entry, and the byes it asked for, while the tournament has not
    /// started: true if it was removed, false if there was no entry or the tournament has
    /// started (the status is checked in the same statement).
    pub async fn remove_entrant(
        &self,
        tournament: i64,
        player: PlayerId,
    ) -> Result<bool, StoreError> {
        let txn = self.conn.begin().await?;
        let in_registration = sea_orm::sea_query::Query::select()
            .column(tournaments::Column::Id)
            .from(tournaments::Entity)
            .and_where(tournaments::Column::Id.eq(tournament))
            .and_where(tournaments::Column::Status.eq(TournamentStatus::Registration))
            .to_owned();
        let done = tournament_players::Entity::delete_many()
            .filter(tournament_players::Column::TournamentId.eq(tournament))
            .filter(tournament_players::Column::PlayerId.eq(player.0))
            .filter(tournament_players::Column::TournamentId.in_subquery(in_registration))
            .exec(&txn)
            .await?;
        if done.rows_affected == 1 {
            bye_requests::Entity::delete_many()
                .filter(bye_requests::Column::TournamentId.eq(tournament))
                .filter(bye_requests::Column::PlayerId.eq(player.0))
                .exec(&txn)
                .await?;
            bump(&txn, tournament).await?;
        }
        txn.commit().await?;
        Ok(done.rows_affected == 1)
    }

    /// Withdraws a player from `round` on (the earliest withdrawal stands); false if unknown.
    pub async fn withdraw_entrant(
        &self,
        tournament: i64,
        player: PlayerId,
        round: i32,
    ) -> Result<bool, StoreError> {
        let txn = self.conn.begin().await?;
        let done = tournament_players::Entity::update_many()
            .col_expr(
                tournament_players::Column::WithdrawnFrom,
                Expr::value(round),
            )
            .filter(tournament_players::Column::TournamentId.eq(tournament))
            .filter(tournament_players::Column::PlayerId.eq(player.0))
            .filter(
                tournament_players::Column::WithdrawnFrom
                    .is_null()
                    .or(tournament_players::Column::WithdrawnFrom.gt(round)),
            )
            .exec(&txn)
            .await?;
        if done.rows_affected == 1 {
            bump(&txn, tournament).await?;
        }
        txn.commit().await?;
        Ok(done.rows_affected == 1)
    }

    /// Stores (or replaces) a bye request.
    pub async fn request_bye(&self, row: &ByeRow) -> Result<(), StoreError> {
        let tournament = row.tournament_id;
        let active: bye_requests::ActiveModel = row.clone().into();
        let txn = self.conn.begin().await?;
        bye_requests::Entity::insert(active)
            .on_conflict(
                OnConflict::columns([
                    bye_requests::Column::TournamentId,
                    bye_requests::Column::PlayerId,
                    bye_requests::Column::Round,
                ])
                .update_column(bye_requests::Column::Points)
                .to_owned(),
            )
            .exec_without_returning(&txn)
            .await?;
        bump(&txn, tournament).await?;
        txn.commit().await?;
        Ok(())
    }

    /// The bye requests of a tournament.
    pub async fn bye_requests(&self, tournament: i64) -> Result<Vec<ByeRow>, StoreError> {
        reread(|| async move {
            Ok(bye_requests::Entity::find()
                .filter(bye_requests::Column::TournamentId.eq(tournament))
                .all(&self.conn)
                .await?)
        })
        .await
    }

    /// Every board of a tournament, by round then board.
    pub async fn boards(&self, tournament: i64) -> Result<Vec<BoardRow>, StoreError> {
        reread(|| async move {
            Ok(boards::Entity::find()
                .filter(boards::Column::TournamentId.eq(tournament))
                .order_by_asc(boards::Column::Round)
                .order_by_asc(boards::Column::Board)
                .all(&self.conn)
                .await?)
        })
        .await
    }

    /// Stores round `round` whole and makes it the current round, if the tournament is still at
    /// `round - 1` (and, for round 1, still in registration: `ranks` are then the start ranks).
    /// `Conflict` when another writer got there first.
    pub async fn store_round(
        &self,
        tournament: i64,
        round: i32,
        ranks: &[(PlayerId, i32)],
        rows: &[BoardRow],
    ) -> Result<(), StoreError> {
        let txn = self.conn.begin().await?;
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
            .filter(tournaments::Column::Status.eq(expected_status))
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
        for chunk in rows.chunks(1_000) {
            let active: Vec<boards::ActiveModel> = chunk.iter().cloned().map(Into::into).collect();
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
        let txn = self.conn.begin().await?;
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
    pub async fn board_of_game(&self, game: GameId) -> Result<Option<BoardRow>, StoreError> {
        reread(|| async move {
            Ok(boards::Entity::find()
                .filter(boards::Column::GameId.eq(game.0))
                .one(&self.conn)
                .await?)
        })
        .await
    }

    /// Sets a board's result (`short`: the game ended before each side made a turn). Without
    /// `correction`, only a board with no result yet changes (a result arriving twice is stored
    /// once); returns the tournament's new version if it changed.
    pub async fn set_board_result(
        &self,
        tournament: i64,
        round: i32,
        board: i32,
        result: &str,
        short: bool,
        correction: bool,
    ) -> Result<Option<i64>, StoreError> {
        let mut update = boards::Entity::update_many()
            .col_expr(boards::Column::Result, Expr::value(result))
            .col_expr(boards::Column::Short, Expr::value(short))
            .filter(boards::Column::TournamentId.eq(tournament))
            .filter(boards::Column::Round.eq(round))
            .filter(boards::Column::Board.eq(board));
        if correction {
            update = update.col_expr(boards::Column::Corrected, Expr::value(true));
        } else {
            update = update.filter(boards::Column::Result.is_null());
        }
        let txn = self.conn.begin().await?;
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
        row: &CorrectionRow,
        short: bool,
        game: Option<GameId>,
    ) -> Result<i64, StoreError> {
        let txn = self.conn.begin().await?;
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
        let mut record = row.clone();
        record.number = last.unwrap_or(0) + 1;
        board_corrections::Entity::insert(board_corrections::ActiveModel::from(record))
            .exec_without_returning(&txn)
            .await?;
        let version = bump(&txn, row.tournament_id).await?;
        txn.commit().await?;
        Ok(version)
    }

    /// A tournament's result corrections, oldest first.
    pub async fn corrections(&self, tournament: i64) -> Result<Vec<CorrectionRow>, StoreError> {
        reread(|| async move {
            Ok(board_corrections::Entity::find()
                .filter(board_corrections::Column::TournamentId.eq(tournament))
                .order_by_asc(board_corrections::Column::Number)
                .all(&self.conn)
                .await?)
        })
        .await
    }

    /// The organiser's results of boards (round, board, result, short, the game when the call
    /// created one: over the board) in one transaction, as [`Store::set_board_result`] with
    /// `correction`; returns the tournament's new version.
    pub async fn set_board_results(
        &self,
        tournament: i64,
        results: &[(i32, i32, &str, bool, Option<GameId>)],
    ) -> Result<i64, StoreError> {
        let txn = self.conn.begin().await?;
        for (round, board, result, short, game) in results {
            let mut update = boards::Entity::update_many();
            if let Some(game) = game {
                update = update.col_expr(boards::Column::GameId, Expr::value(game.0));
            }
            update
                .col_expr(boards::Column::Result, Expr::value(*result))
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

    /// Marks a tournament finished (once its last round is complete).
    pub async fn finish_tournament(&self, tournament: i64) -> Result<bool, StoreError> {
        let txn = self.conn.begin().await?;
        let done = tournaments::Entity::update_many()
            .col_expr(
                tournaments::Column::Status,
                Expr::value(TournamentStatus::Finished.name()),
            )
            .filter(tournaments::Column::Id.eq(tournament))
            .filter(tournaments::Column::Status.eq(TournamentStatus::Running))
            .exec(&txn)
            .await?;
        if done.rows_affected == 1 {
            bump(&txn, tournament).await?;
        }
        txn.commit().await?;
        Ok(done.rows_affected == 1)
    }

    /// Where the scheduler is in the results outbox (0 at first).
    pub async fn scheduler_cursor(&self) -> Result<i64, StoreError> {
        reread(|| async move {
            Ok(scheduler_cursor::Entity::find_by_id(1)
                .one(&self.conn)
                .await?
                .map_or(0, |row| row.sequence))
        })
        .await
    }

    /// Moves the scheduler's cursor forward (never back).
    pub async fn set_scheduler_cursor(&self, sequence: i64) -> Result<(), StoreError> {
        let row = scheduler_cursor::ActiveModel {
            id: Set(1),
            sequence: Set(sequence),
        };
        scheduler_cursor::Entity::insert(row)
            .on_conflict(
                OnConflict::column(scheduler_cursor::Column::Id)
                    .update_column(scheduler_cursor::Column::Sequence)
                    .to_owned(),
            )
            .exec_without_returning(&self.conn)
            .await?;
        Ok(())
    }

    // ---------------------------------------------------------------------------------------------
    // Matchmaking

    /// Puts a player in the queue, or updates what they wait for (keeping their waiting time when
    /// nothing changed).
    pub async fn join_queue(&self, row: &QueueRow) -> Result<(), StoreError> {
        let existing = queue_entries::Entity::find_by_id(row.player_id)
            .one(&self.conn)
            .await?;
        let row = row.clone();
        if let Some(old) = existing {
            if (
                &old.kind,
                &old.ruleset,
                old.initial_ms,
                old.increment_ms,
                old.rated,
            ) == (
                &row.kind,
                &row.ruleset,
                row.initial_ms,
                row.increment_ms,
                row.rated,
            ) {
                return Ok(());
            }
            queue_entries::Entity::delete_by_id(old.player_id)
                .exec(&self.conn)
                .await?;
        }
        let active: queue_entries::ActiveModel = row.into();
        queue_entries::Entity::insert(active)
            .exec_without_returning(&self.conn)
            .await?;
        Ok(())
    }

    /// Takes a player out of the queue; false if they were not waiting.
    pub async fn leave_queue(&self, player: PlayerId) -> Result<bool, StoreError> {
        Ok(queue_entries::Entity::delete_by_id(player.0)
            .exec(&self.conn)
            .await?
            .rows_affected
            == 1)
    }

    /// Everyone waiting, longest first.
    pub async fn queue(&self) -> Result<Vec<QueueRow>, StoreError> {
        reread(|| async move {
            Ok(queue_entries::Entity::find()
                .order_by_asc(queue_entries::Column::JoinedAtMs)
                .all(&self.conn)
                .await?)
        })
        .await
    }

    /// Takes both players out of the queue and records their match, in one transaction; `None`
    /// when either has left (or was matched by another replica) meanwhile.
    pub async fn make_match(&self, row: &MatchRow) -> Result<Option<i64>, StoreError> {
        let txn = self.conn.begin().await?;
        let done = queue_entries::Entity::delete_many()
            .filter(queue_entries::Column::PlayerId.is_in([row.white_id, row.black_id]))
            .exec(&txn)
            .await?;
        if done.rows_affected != 2 {
            txn.rollback().await?;
            return Ok(None);
        }
        let mut active: matches::ActiveModel = row.clone().into();
        active.id = sea_orm::ActiveValue::NotSet;
        let id = matches::Entity::insert(active)
            .exec(&txn)
            .await?
            .last_insert_id;
        txn.commit().await?;
        Ok(Some(id))
    }

    /// Matches whose game is not created yet.
    pub async fn matches_without_game(&self) -> Result<Vec<MatchRow>, StoreError> {
        reread(|| async move {
            Ok(matches::Entity::find()
                .filter(matches::Column::GameId.is_null())
                .all(&self.conn)
                .await?)
        })
        .await
    }

    /// Links a match to its game.
    pub async fn set_match_game(&self, id: i64, game: GameId) -> Result<(), StoreError> {
        matches::Entity::update_many()
            .col_expr(matches::Column::GameId, Expr::value(game.0))
            .filter(matches::Column::Id.eq(id))
            .exec(&self.conn)
            .await?;
        Ok(())
    }

    /// A player's most recent match, if any.
    pub async fn last_match(&self, player: PlayerId) -> Result<Option<MatchRow>, StoreError> {
        reread(|| async move {
            Ok(matches::Entity::find()
                .filter(
                    matches::Column::WhiteId
                        .eq(player.0)
                        .or(matches::Column::BlackId.eq(player.0)),
                )
                .order_by_desc(matches::Column::Id)
                .one(&self.conn)
                .await?)
        })
        .await
    }

    /// How many times a player had White and Black in matches.
    pub async fn match_colours(&self, player: PlayerId) -> Result<(u64, u64), StoreError> {
        reread(|| async move {
            use sea_orm::PaginatorTrait;
            let white = matches::Entity::find()
                .filter(matches::Column::WhiteId.eq(player.0))
                .count(&self.conn)
                .await?;
            let black = matches::Entity::find()
                .filter(matches::Column::BlackId.eq(player.0))
                .count(&self.conn)
                .await?;
            Ok((white, black))
        })
        .await
    }
}

#[cfg(test)]
mod tests;
