//! sea-orm entities of the scheduler's tables: private to the store, which turns them into the
//! domain types (`convert.rs`). Every text column holds a name the conversions read back.

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
        pub system: String,
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
        pub status: String,
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
