//! sea-orm entities of the accounts tables. Domain types never carry these derives.

pub mod players {
    use sea_orm::entity::prelude::*;

    #[derive(Clone, Debug, PartialEq, Eq, DeriveEntityModel)]
    #[sea_orm(table_name = "players")]
    pub struct Model {
        #[sea_orm(primary_key)]
        pub id: i64,
        #[sea_orm(unique)]
        pub name: String,
        pub kind: String,
        pub created_at_ms: i64,
        /// The name as a search compares it (`hanniball_db::search::search_key`), written with it.
        pub search_key: String,
        /// The admin made this player an organiser: its tokens may hold `organise`.
        pub organiser: bool,
        /// How the name looks (`hanniball_names::look_alike_key`), written with it.
        pub look_alike_key: String,
    }

    #[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
    pub enum Relation {}

    impl ActiveModelBehavior for ActiveModel {}
}

pub mod tokens {
    use sea_orm::entity::prelude::*;

    #[derive(Clone, Debug, PartialEq, Eq, DeriveEntityModel)]
    #[sea_orm(table_name = "tokens")]
    pub struct Model {
        #[sea_orm(primary_key)]
        pub id: i64,
        pub player_id: i64,
        #[sea_orm(unique)]
        pub hash: String,
        pub created_at_ms: i64,
        pub revoked_at_ms: Option<i64>,
        /// Scope names separated by single spaces (`play queue read`).
        pub scopes: String,
        pub expires_at_ms: Option<i64>,
        /// A session's label (`Accounts::insert_session`); `None` for an API token.
        pub session_label: Option<String>,
    }

    #[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
    pub enum Relation {}

    impl ActiveModelBehavior for ActiveModel {}
}

pub mod passwords {
    use sea_orm::entity::prelude::*;

    #[derive(Clone, Debug, PartialEq, Eq, DeriveEntityModel)]
    #[sea_orm(table_name = "passwords")]
    pub struct Model {
        #[sea_orm(primary_key, auto_increment = false)]
        pub player_id: i64,
        /// A PHC string (the hash, its parameters and salt); never the password.
        pub hash: String,
        pub set_at_ms: i64,
    }

    #[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
    pub enum Relation {}

    impl ActiveModelBehavior for ActiveModel {}
}
