//! Accounts tests, on SQLite and (when configured) PostgreSQL.

use hanniball_db::testing;
use sea_orm::Database;

use super::*;

#[tokio::test]
async fn players_and_tokens_on_every_database() {
    for url in testing::all_urls().await {
        let store = Accounts::connect(&url).await.expect("connect");
        // Migrations are idempotent: opening again is fine.
        Accounts::connect(&url).await.expect("reconnect");

        let alice = store
            .create_player("alice", "bot", Timestamp(1))
            .await
            .expect("alice");
        let bob = store
            .create_player("bob", "human", Timestamp(2))
            .await
            .expect("bob");
        assert!(matches!(
            store.create_player("alice", "bot", Timestamp(3)).await,
            Err(StoreError::Conflict(_))
        ));
        assert_eq!(
            store.player_by_name("bob").await.expect("q"),
            Some(bob.clone())
        );
        assert_eq!(store.list_players(0, 10).await.expect("q").len(), 2);

        let token = store
            .insert_token(alice.id, "hash-a", Timestamp(4), "play queue read", None)
            .await
            .expect("token");
        assert_eq!(
            store.player_by_token_hash("hash-a").await.expect("q"),
            Some(alice.clone())
        );
        // Scopes and expiry come back as stored; an expired token is still found (the caller
        // tells "expired" from "unknown").
        let limited = store
            .insert_token(bob.id, "hash-b", Timestamp(4), "read", Some(Timestamp(10)))
            .await
            .expect("token");
        assert_eq!(
            store.token_by_hash("hash-b").await.expect("q"),
            Some(Token {
                id: limited,
                player: bob.id,
                scopes: "read".to_owned(),
                created_at: Timestamp(4),
                expires_at: Some(Timestamp(10)),
                revoked_at: None,
                session_label: None,
            })
        );
        assert_eq!(
            store
                .live_token_count(bob.id, Timestamp(9))
                .await
                .expect("q"),
            1
        );
        assert_eq!(
            store
                .live_token_count(bob.id, Timestamp(10))
                .await
                .expect("q"),
            0
        );
        let mut revocations = store.token_events();
        assert_eq!(store.token_by_hash("hash-unknown").await.expect("q"), None);
        assert_eq!(
            store.revoke_token(token, Timestamp(5)).await.expect("q"),
            Some(true)
        );
        assert_eq!(
            store.revoke_token(token, Timestamp(6)).await.expect("q"),
            Some(false)
        );
        // Announced once, after the commit; the row keeps the first revocation's time.
        assert_eq!(revocations.try_recv(), Ok(TokenEvent::Revoked(token)));
        assert!(revocations.try_recv().is_err());
        let listed = store.list_tokens(alice.id, 0, 10).await.expect("q");
        assert_eq!(listed.len(), 1);
        assert_eq!(listed[0].revoked_at, Some(Timestamp(5)));
        assert_eq!(
            store.token(token).await.expect("q"),
            Some(listed[0].clone())
        );
        assert!(
            store
                .list_tokens(alice.id, token, 10)
                .await
                .expect("q")
                .is_empty()
        );
        assert_eq!(
            store.revoke_token(999, Timestamp(6)).await.expect("q"),
            None
        );
        assert_eq!(store.player_by_token_hash("hash-a").await.expect("q"), None);
        let names = store
            .player_names(&[alice.id, bob.id, PlayerId(999)])
            .await
            .expect("q");
        assert_eq!(names.len(), 2);
        assert_eq!(names.get(&bob.id).map(String::as_str), Some("bob"));
    }
}

#[tokio::test]
async fn text_with_nul_is_refused_as_invalid_or_unmatched_never_a_database_error() {
    for url in testing::all_urls().await {
        let store = Accounts::connect(&url).await.expect("connect");
        // must come back as `Invalid` (or no match), never as an internal database error.
        match store.player_by_name("a\0b").await {
            Ok(found) => assert_eq!(found, None, "{url}"),
            Err(StoreError::Invalid(message)) => assert!(message.contains("NUL"), "{message}"),
            Err(other) => panic!("{url}: {other:?}"),
        }
        match store.create_player("nul\0name", "bot", Timestamp(1)).await {
            Ok(_) => assert!(url.starts_with("sqlite"), "{url} stored a NUL"),
            Err(StoreError::Invalid(_)) => assert!(url.starts_with("postgres"), "{url}"),
            Err(other) => panic!("{url}: {other:?}"),
        }
    }
}

/// Tokens issued before scopes existed keep a player's rights: the accounts migration gives them
/// `play queue read` and no expiry, on a database made by the single migration set of before the
/// split, taken back to before its fourth migration (which added both columns).
#[tokio::test]
async fn tokens_from_before_scopes_get_play_queue_and_read() {
    for url in testing::all_urls().await {
        testing::old_schema(&url).await.expect("old schema");
        let db = Database::connect(url.as_str()).await.expect("connect");
        for sql in [
            "ALTER TABLE tokens DROP COLUMN scopes",
            "ALTER TABLE tokens DROP COLUMN expires_at_ms",
            "INSERT INTO players (name, kind, created_at_ms) VALUES ('old-bot', 'bot', 1)",
            "INSERT INTO tokens (player_id, hash, created_at_ms) \
             SELECT id, 'old-hash', 2 FROM players WHERE name = 'old-bot'",
        ] {
            db.execute_unprepared(sql).await.expect(sql);
        }
        db.close().await.expect("close");
        let store = Accounts::connect(&url).await.expect("migrates");
        let old = store
            .token_by_hash("old-hash")
            .await
            .expect("q")
            .expect("the old token is still live");
        assert_eq!(old.scopes, "play queue read");
        assert_eq!(old.expires_at, None);
        assert_eq!(old.created_at, Timestamp(2));
    }
}

/// The names of a search's players, and whether more match.
async fn found(store: &Accounts, query: &str, limit: u64) -> (Vec<String>, bool) {
    let (rows, more) = store
        .search_players(&search::Words::new(query), limit)
        .await
        .expect("search");
    (rows.into_iter().map(|row| row.name).collect(), more)
}

/// Every word of the query somewhere in the name, case ignored in any script, however accents
/// were typed; an exact name first, then by name; wildcards match only themselves.
#[tokio::test]
async fn players_are_found_by_words_of_their_names_in_any_script() {
    for url in testing::all_urls().await {
        let store = Accounts::connect(&url).await.expect("connect");
        for name in [
            "Zoë Ünal",
            "Müller",
            "Hans MÜLLER-Lüdenscheidt",
            "Nguyễn Văn An",
            "李明",
            "Malice",
            "Alice Smith",
            "alice",
            "50%_off",
            "under_score",
            "wow!",
            "ΟΔΥΣΣΕΥΣ",
        ] {
            store
                .create_player(name, "human", Timestamp(1))
                .await
                .expect(name);
        }
        let cases: &[(&str, &[&str])] = &[
            ("ünal", &["Zoë Ünal"]),
            ("ÜNAL zoë", &["Zoë Ünal"]),
            ("müller", &["Müller", "Hans MÜLLER-Lüdenscheidt"]),
            // A combining diaeresis finds the precomposed letter.
            ("mu\u{308}ller-l", &["Hans MÜLLER-Lüdenscheidt"]),
            ("nguyễn an", &["Nguyễn Văn An"]),
            ("an nguyễn", &["Nguyễn Văn An"]),
            ("李", &["李明"]),
            ("alice", &["alice", "Alice Smith", "Malice"]),
            ("  ALICE   smith ", &["Alice Smith"]),
            ("οδυσσευς", &["ΟΔΥΣΣΕΥΣ"]),
            ("%", &["50%_off"]),
            ("_", &["50%_off", "under_score"]),
            ("%_", &["50%_off"]),
            ("!", &["wow!"]),
            ("müller nobody", &[]),
            ("   ", &[]),
        ];
        for (query, expected) in cases {
            assert_eq!(
                found(&store, query, 50).await,
                (expected.iter().map(|n| (*n).to_owned()).collect(), false),
                "{url}: {query:?}"
            );
        }
        assert_eq!(
            found(&store, "l", 2).await,
            (vec!["alice".to_owned(), "Alice Smith".to_owned()], true),
            "{url}: a capped search says more match"
        );
        assert!(
            !found(&store, "li", 3).await.1,
            "{url}: exactly the limit is not more"
        );
    }
}

/// Players from before search keys are found: the migration fills their keys in, and so does
/// opening the store for a player that an older binary registered after the migration.
#[tokio::test]
async fn players_from_before_search_keys_are_found() {
    for url in testing::all_urls().await {
        testing::old_schema(&url).await.expect("old schema");
        let db = Database::connect(url.as_str()).await.expect("connect");
        db.execute_unprepared(
            "INSERT INTO players (name, kind, created_at_ms) VALUES ('Zoë Ünal', 'human', 1)",
        )
        .await
        .expect("an old player");
        let store = Accounts::connect(&url).await.expect("migrates");
        assert_eq!(found(&store, "ünal", 10).await.0, ["Zoë Ünal"], "{url}");
        db.execute_unprepared(
            "INSERT INTO players (name, kind, created_at_ms) VALUES ('Ünal Late', 'human', 2)",
        )
        .await
        .expect("a player without a key");
        assert_eq!(found(&store, "ünal", 10).await.0, ["Zoë Ünal"], "{url}");
        let store = Accounts::connect(&url).await.expect("reopens");
        assert_eq!(
            found(&store, "ünal", 10).await.0,
            // By search key (case and accents folded): unal before zoe.
            ["Ünal Late", "Zoë Ünal"],
            "{url}"
        );
        db.close().await.expect("close");
    }
}

/// A name that looks like a registered one (TS #39 confusables: Cyrillic letters for Latin,
/// `rn` for `m`) is refused, naming the player it looks like; so is one like a player from
/// before look-alike keys (filled when the store opens), and a name merely close is accepted.
#[tokio::test]
async fn names_that_look_like_a_registered_one_are_refused() {
    for url in testing::all_urls().await {
        let store = Accounts::connect(&url).await.expect("connect");
        let admin = store
            .create_player("Admin", "human", Timestamp(1))
            .await
            .expect("Admin");
        for alike in ["\u{410}dmin", "\u{410}dm\u{456}n", "Adrnin"] {
            match store.create_player(alike, "human", Timestamp(2)).await {
                Err(StoreError::Conflict(why)) => assert!(
                    why.contains("\"Admin\"") && why.contains(&admin.id.0.to_string()),
                    "{url}: {why}"
                ),
                other => panic!("{url}: {alike:?} was not refused: {other:?}"),
            }
        }
        store
            .create_player("Admiral", "human", Timestamp(3))
            .await
            .expect("a name merely close");
        // A player that a binary from before the keys wrote (no key) is found when reopened.
        store
            .db()
            .connection()
            .execute_unprepared(
                "INSERT INTO players (name, kind, created_at_ms, search_key) \
                 VALUES ('paypal', 'bot', 4, 'paypal')",
            )
            .await
            .expect("an old player");
        let store = Accounts::connect(&url).await.expect("reopens");
        let refused = store
            .create_player("\u{440}\u{430}y\u{440}\u{430}l", "bot", Timestamp(5))
            .await;
        assert!(
            matches!(&refused, Err(StoreError::Conflict(why)) if why.contains("paypal")),
            "{url}: {refused:?}"
        );
    }
}

#[tokio::test]
async fn passwords_are_replaced_and_sessions_are_told_from_tokens() {
    for url in testing::all_urls().await {
        let store = Accounts::connect(&url).await.expect("connect");
        let carol = store
            .create_player("carol", "human", Timestamp(1))
            .await
            .expect("carol");
        assert_eq!(store.password_hash(carol.id).await.expect("q"), None);
        assert!(
            !store
                .set_password(carol.id, "$argon2id$first", Timestamp(2))
                .await
                .expect("set")
        );
        assert!(
            store
                .set_password(carol.id, "$argon2id$second", Timestamp(3))
                .await
                .expect("replace")
        );
        assert_eq!(
            store.password_hash(carol.id).await.expect("q").as_deref(),
            Some("$argon2id$second")
        );

        let api = store
            .insert_token(carol.id, "hash-api", Timestamp(4), "read", None)
            .await
            .expect("token");
        let phone = store
            .insert_session(
                carol.id,
                "hash-phone",
                Timestamp(5),
                "read",
                Timestamp(100),
                "phone",
            )
            .await
            .expect("session");
        let old = store
            .insert_session(
                carol.id,
                "hash-old",
                Timestamp(5),
                "read",
                Timestamp(6),
                "old",
            )
            .await
            .expect("session");
        // Only live sessions: not the API token, not the expired session.
        assert_eq!(
            store
                .live_sessions(carol.id, Timestamp(50))
                .await
                .expect("q"),
            vec![phone]
        );
        let listed = store.list_tokens(carol.id, 0, 10).await.expect("q");
        let labels: Vec<_> = listed
            .iter()
            .map(|t| (t.id, t.session_label.clone()))
            .collect();
        assert_eq!(
            labels,
            vec![
                (api, None),
                (phone, Some("phone".to_owned())),
                (old, Some("old".to_owned()))
            ]
        );
        store
            .revoke_token(phone, Timestamp(7))
            .await
            .expect("revoke");
        assert!(
            store
                .live_sessions(carol.id, Timestamp(50))
                .await
                .expect("q")
                .is_empty()
        );
    }
}

#[tokio::test]
async fn the_organiser_right_is_granted_and_taken_from_every_token_at_once() {
    for url in testing::all_urls().await {
        let store = Accounts::connect(&url).await.expect("connect");
        let olga = store
            .create_player("olga", "human", Timestamp(1))
            .await
            .expect("olga");
        assert!(!olga.organiser, "nobody is an organiser at first");
        assert_eq!(
            store
                .set_organiser(PlayerId(999_999), true)
                .await
                .expect("q"),
            None,
            "an unknown player"
        );
        assert_eq!(
            store.set_organiser(olga.id, true).await.expect("grant"),
            Some(true)
        );
        assert_eq!(
            store.set_organiser(olga.id, true).await.expect("again"),
            Some(false)
        );
        assert!(
            store
                .player(olga.id)
                .await
                .expect("q")
                .expect("olga")
                .organiser
        );
        let full = store
            .insert_token(
                olga.id,
                "hash-full",
                Timestamp(2),
                "play read organise",
                None,
            )
            .await
            .expect("token");
        let scopes = |hash: &'static str| {
            let store = store.clone();
            async move {
                store
                    .token_by_hash(hash)
                    .await
                    .expect("q")
                    .expect("token")
                    .scopes
            }
        };
        assert_eq!(scopes("hash-full").await, "play read organise");
        let mut events = store.token_events();

        assert_eq!(
            store.set_organiser(olga.id, false).await.expect("take"),
            Some(true)
        );
        assert!(
            !store
                .player(olga.id)
                .await
                .expect("q")
                .expect("olga")
                .organiser
        );
        // The stored row lost the scope; every cache is told to look again.
        assert_eq!(
            store.token(full).await.expect("q").expect("row").scopes,
            "play read"
        );
        assert_eq!(events.try_recv().expect("an event"), TokenEvent::Missed);
        // A token that names `organise` for a player who no longer holds the right (one issued
        // while the right was being taken away) does not hold it.
        store
            .insert_token(olga.id, "hash-late", Timestamp(3), "read organise", None)
            .await
            .expect("late token");
        assert_eq!(scopes("hash-late").await, "read");
        // Granted again, tokens from before are not widened behind anyone's back.
        assert_eq!(
            store.set_organiser(olga.id, true).await.expect("grant"),
            Some(true)
        );
        assert_eq!(scopes("hash-full").await, "play read");
    }
}
