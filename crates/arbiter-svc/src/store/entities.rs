//! sea-orm entities of the arbiter's tables. Domain types never carry these derives.

pub mod games {
    use sea_orm::entity::prelude::*;

    #[derive(Clone, Debug, PartialEq, Eq, DeriveEntityModel)]
    #[sea_orm(table_name = "games")]
    pub struct Model {
        #[sea_orm(primary_key)]
        pub id: i64,
        pub kind: String,
        pub ruleset: String,
        pub white_player_id: i64,
        pub black_player_id: i64,
        pub initial_ms: Option<i64>,
        pub increment_ms: Option<i64>,
        pub rated: bool,
        pub max_turns: i32,
        pub tag: String,
        pub idempotency_key: Option<String>,
        pub status: String,
        pub outcome: Option<String>,
        pub reason: Option<String>,
        pub position: String,
        pub turns_played: i32,
        pub white_ms: i64,
        pub black_ms: i64,
        pub clock_since: i64,
        pub draw_offer_by: Option<String>,
        pub created_at_ms: i64,
        pub finished_at_ms: Option<i64>,
        /// Bumped by every update of the row (migration 5).
        pub version: i64,
        pub over_the_board: bool,
        /// How often the result was corrected (`result_corrections` holds each).
        pub corrections: i32,
    }

    #[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
    pub enum Relation {}

    impl ActiveModelBehavior for ActiveModel {}
}

pub mod turns {
    use sea_orm::entity::prelude::*;

    #[derive(Clone, Debug, PartialEq, Eq, DeriveEntityModel)]
    #[sea_orm(table_name = "turns")]
    pub struct Model {
        #[sea_orm(primary_key, auto_increment = false)]
        pub game_id: i64,
        #[sea_orm(primary_key, auto_increment = false)]
        pub number: i32,
        pub side: String,
        pub text: String,
        pub position_after: String,
        pub white_ms: i64,
        pub black_ms: i64,
        pub played_at_ms: i64,
        pub spent_ms: i64,
    }

    #[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
    pub enum Relation {}

    impl ActiveModelBehavior for ActiveModel {}
}

pub mod results_outbox {
    use sea_orm::entity::prelude::*;

    #[derive(Clone, Debug, PartialEq, Eq, DeriveEntityModel)]
    #[sea_orm(table_name = "results_outbox")]
    pub struct Model {
        #[sea_orm(primary_key)]
        pub sequence: i64,
        #[sea_orm(unique)]
        pub game_id: i64,
        pub finished_at_ms: i64,
    }

    #[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
    pub enum Relation {}

    impl ActiveModelBehavior for ActiveModel {}
}

pub mod result_corrections {
    use sea_orm::entity::prelude::*;

    #[derive(Clone, Debug, PartialEq, Eq, DeriveEntityModel)]
    #[sea_orm(table_name = "result_corrections")]
    pub struct Model {
        #[sea_orm(primary_key, auto_increment = false)]
        pub game_id: i64,
        #[sea_orm(primary_key, auto_increment = false)]
        pub number: i32,
        pub previous_outcome: Option<String>,
        pub previous_reason: Option<String>,
        pub outcome: Option<String>,
        pub reason: String,
        pub corrected_by: String,
        pub note: String,
        pub at_ms: i64,
    }

    #[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
    pub enum Relation {}

    impl ActiveModelBehavior for ActiveModel {}
}
