//! The rating tables on every database (SQLite, and PostgreSQL when configured): recording is
//! idempotent per game, a rebuild reproduces the incremental ratings, leaderboards page by keyset.

use std::collections::HashMap;

use hanniball_db::testing;
use hanniball_ids::{GameId, PlayerId, Timestamp};
use hanniball_rating::{Glicko2Config, Rating, Score, System};

use super::{BoardFilter, Change, NewEvent, Rater, Recorded, Store};

/// Ladder "elo" rates with FIDE Elo, ladder "glicko" with Glicko-2 (floating point: the hard
/// case for "exactly the same").
struct TestRater;

impl TestRater {
    fn system(ladder: &str) -> System {
        match ladder {
            "glicko" => System::Glicko2(Glicko2Config::default()),
            _ => System::default(),
        }
    }
}

impl Rater for TestRater {
    fn initial(&self, ladder: &str) -> Rating {
        Self::system(ladder).initial()
    }

    fn apply(
        &self,
        ladder: &str,
        at: Timestamp,
        change: &Change,
        first: &Rating,
        second: Option<&Rating>,
    ) -> (Rating, Option<Rating>) {
        match (change, second) {
            (Change::Game { score, .. }, Some(second)) => {
                let (a, b) = Self::system(ladder).rate(first, second, *score, at.0 / 1000);
                (a, Some(b))
            }
            (Change::Adjustment { rating, .. }, _) => (
                Rating {
                    rating: *rating,
                    peak: first.peak.max(*rating),
                    ..first.clone()
                },
                None,
            ),
            (
                Change::Correction {
                    score, previous, ..
                },
                Some(second),
            ) => {
                // The service's rule (ladders.rs), for the store's tests: take back, re-rate.
                let (mut a, mut b) = (first.clone(), second.clone());
                if let Some(p) = previous {
                    a.rating -= p.first_delta;
                    b.rating -= p.second_delta;
                    a.games -= 1;
                    b.games -= 1;
                }
                match score {
                    Some(score) => {
                        let (a, b) = Self::system(ladder).rate(&a, &b, *score, at.0 / 1000);
                        (a, Some(b))
                    }
                    None => (a, Some(b)),
                }
            }
            (Change::Game { .. } | Change::Correction { .. }, None) => {
                unreachable!("games come with two ratings")
            }
        }
    }
}

async fn stores() -> Vec<Store> {
    let mut stores = Vec::new();
    for url in testing::all_urls().await {
        stores.push(Store::connect(&url).await.expect("connect"));
    }
    stores
}

/// `n` player ids: the rating tables keep ids only (Accounts knows the players).
async fn players(_store: &Store, n: usize) -> Vec<PlayerId> {
    (1..=n as i64).map(PlayerId).collect()
}

fn game(
    ladder: &str,
    id: i64,
    first: PlayerId,
    second: PlayerId,
    score: Score,
    at_s: i64,
) -> NewEvent {
    NewEvent {
        ladder: ladder.to_owned(),
        at: Timestamp(at_s * 1000),
        change: Change::Game {
            game_id: GameId(id),
            first,
            second,
            score,
        },
    }
}

/// Random games on both ladders with adjustments in between.
fn random_events(players: &[PlayerId], n: usize, seed: u64) -> Vec<NewEvent> {
    let mut rng = hanniball_rng::Rng::new(seed);
    let mut at = 1_700_000_000_i64;
    let mut events = Vec::new();
    for id in 1..=n as i64 {
        at += rng.i64(0..200_000);
        let ladder = if rng.bool() { "elo" } else { "glicko" };
        let a = players[rng.usize(..players.len())];
        let mut b = players[rng.usize(..players.len())];
        while b == a {
            b = players[rng.usize(..players.len())];
        }
        let score = [Score::Win, Score::Draw, Score::Loss][rng.usize(..3)];
        events.push(game(ladder, id, a, b, score, at));
        if rng.u8(..20) == 0 {
            events.push(NewEvent {
                ladder: ladder.to_owned(),
                at: Timestamp(at * 1000),
                change: Change::Adjustment {
                    player: a,
                    rating: f64::from(rng.u16(1000..2600)),
                    reason: format!("test {id}"),
                    actor: "admin".to_owned(),
                },
            });
        }
    }
    events
}

/// The ratings a replay in memory gives, by (ladder, player).
fn replay(events: &[NewEvent]) -> HashMap<(String, PlayerId), Rating> {
    let mut state: HashMap<(String, PlayerId), Rating> = HashMap::new();
    let mut seen = std::collections::HashSet::new();
    for event in events {
        if let Change::Game { game_id, .. } = event.change
            && !seen.insert(game_id)
        {
            continue;
        }
        let get = |state: &HashMap<_, Rating>, p: PlayerId| {
            state
                .get(&(event.ladder.clone(), p))
                .cloned()
                .unwrap_or_else(|| TestRater.initial(&event.ladder))
        };
        let first = get(&state, event.change.first());
        let second = event.change.second().map(|p| get(&state, p));
        let (a, b) = TestRater.apply(
            &event.ladder,
            event.at,
            &event.change,
            &first,
            second.as_ref(),
        );
        state.insert((event.ladder.clone(), event.change.first()), a);
        if let (Some(p), Some(b)) = (event.change.second(), b) {
            state.insert((event.ladder.clone(), p), b);
        }
    }
    state
}

async fn stored(store: &Store, players: &[PlayerId]) -> HashMap<(String, PlayerId), Rating> {
    let mut all = HashMap::new();
    for ladder in ["elo", "glicko"] {
        for row in store.ratings(ladder, players).await.expect("ratings") {
            all.insert((ladder.to_owned(), row.player), row.rating);
        }
    }
    all
}

#[tokio::test]
async fn recording_twice_equals_recording_once() {
    for store in stores().await {
        let ids = players(&store, 6).await;
        let events = random_events(&ids, 40, 1);
        let first = store
            .record_rating_events(&events, None, Timestamp(5), &TestRater)
            .await
            .expect("record");
        assert!(first.iter().all(|r| matches!(r, Recorded::New { .. })));
        assert_eq!(stored(&store, &ids).await, replay(&events));
        // Again as one batch, and game by game: nothing changes, the first points come back.
        let again = store
            .record_rating_events(&events, None, Timestamp(6), &TestRater)
            .await
            .expect("record again");
        for (before, after) in first.iter().zip(&again) {
            match (before, after) {
                (
                    Recorded::New { sequence, points },
                    Recorded::Duplicate {
                        sequence: s,
                        points: p,
                    },
                ) => {
                    assert_eq!((sequence, Some(points)), (s, p.as_ref()));
                }
                // Adjustments have no game id: each is a new event (left out below).
                (Recorded::New { .. }, Recorded::New { .. }) => {}
                other => panic!("unexpected {other:?}"),
            }
        }
        // Games only, on a fresh database: recorded once, then each again, equals once.
        let games: Vec<NewEvent> = events
            .iter()
            .filter(|e| matches!(e.change, Change::Game { .. }))
            .cloned()
            .collect();
        let store2 = Store::connect(&testing::sqlite_url()).await.expect("fresh");
        let ids2 = players(&store2, 6).await;
        assert_eq!(ids, ids2, "same ids on a fresh database");
        store2
            .record_rating_events(&games, None, Timestamp(5), &TestRater)
            .await
            .expect("games");
        for event in &games {
            let again = store2
                .record_rating_events(std::slice::from_ref(event), None, Timestamp(6), &TestRater)
                .await
                .expect("one game again");
            assert!(matches!(again[0], Recorded::Duplicate { .. }));
        }
        assert_eq!(stored(&store2, &ids2).await, replay(&games));
        // A game given twice in one batch counts once.
        let twice = vec![games[0].clone(), games[0].clone()];
        let fresh = Store::connect(&testing::sqlite_url()).await.expect("fresh");
        let ids3 = players(&fresh, 6).await;
        let recorded = fresh
            .record_rating_events(&twice, None, Timestamp(5), &TestRater)
            .await
            .expect("twice");
        assert!(matches!(recorded[0], Recorded::New { .. }));
        assert!(matches!(recorded[1], Recorded::Duplicate { .. }));
        assert_eq!(stored(&fresh, &ids3).await, replay(&games[..1]));
    }
}

#[tokio::test]
async fn rebuild_equals_incremental() {
    for store in stores().await {
        let ids = players(&store, 20).await;
        let events = random_events(&ids, 400, 2);
        // Incrementally, in batches of varying size (the consumer's way), with a cursor.
        let mut rng = hanniball_rng::Rng::new(3);
        let mut rest = &events[..];
        let mut cursor = 0;
        while !rest.is_empty() {
            let n = rng.usize(1..=rest.len().min(25));
            cursor += 1;
            store
                .record_rating_events(&rest[..n], Some(("test", cursor)), Timestamp(9), &TestRater)
                .await
                .expect("record");
            rest = &rest[n..];
        }
        assert_eq!(store.rating_cursor("test").await.expect("cursor"), cursor);
        assert_eq!(store.rating_cursor("other").await.expect("cursor"), 0);
        let incremental = stored(&store, &ids).await;
        assert_eq!(
            incremental,
            replay(&events),
            "incremental = an in-memory replay"
        );
        let report = store.rebuild_ratings(&TestRater).await.expect("rebuild");
        assert!(report.matched(), "{report:?}");
        assert_eq!(report.events as usize, events.len());
        assert_eq!(report.ratings as usize, incremental.len());
        assert!(report.adjustments > 0, "{report:?}");
        assert_eq!(stored(&store, &ids).await, incremental);

        // Imported history (no points, no ratings) is not matched; a rebuild computes it, and
        // the next one matches.
        let more: Vec<NewEvent> = random_events(&ids, 100, 4)
            .into_iter()
            .map(|mut e| {
                if let Change::Game { game_id, .. } = &mut e.change {
                    game_id.0 += 10_000;
                }
                e
            })
            .collect();
        store
            .import_rating_events(&more, Timestamp(10))
            .await
            .expect("import");
        let report = store.rebuild_ratings(&TestRater).await.expect("rebuild");
        assert!(!report.matched());
        assert_eq!(report.changed_points as usize, more.len());
        let all: Vec<NewEvent> = events.iter().chain(&more).cloned().collect();
        assert_eq!(stored(&store, &ids).await, replay(&all));
        let report = store
            .rebuild_ratings(&TestRater)
            .await
            .expect("rebuild again");
        assert!(report.matched(), "{report:?}");
        // Recording goes on from the rebuilt state.
        let next = game("elo", 99_999, ids[0], ids[1], Score::Draw, 1_800_000_000);
        store
            .record_rating_events(std::slice::from_ref(&next), None, Timestamp(11), &TestRater)
            .await
            .expect("one more");
        let mut all = all;
        all.push(next);
        assert_eq!(stored(&store, &ids).await, replay(&all));
        assert!(
            store
                .rebuild_ratings(&TestRater)
                .await
                .expect("rebuild")
                .matched()
        );
    }
}

#[tokio::test]
async fn leaderboard_pages_with_filters() {
    for store in stores().await {
        let ids = players(&store, 60).await;
        let mut events = random_events(&ids, 300, 5);
        events.retain(|e| e.ladder == "elo");
        store
            .record_rating_events(&events, None, Timestamp(1), &TestRater)
            .await
            .expect("record");
        let expected = replay(&events);
        let times: Vec<i64> = expected.values().filter_map(|r| r.last_played).collect();
        let median = {
            let mut t = times.clone();
            t.sort_unstable();
            t[t.len() / 2]
        };
        for filter in [
            BoardFilter::default(),
            BoardFilter {
                min_games: 10,
                active_since: None,
            },
            BoardFilter {
                min_games: 3,
                active_since: Some(median),
            },
        ] {
            let mut want: Vec<(f64, PlayerId)> = expected
                .iter()
                .filter(|(_, r)| r.games >= filter.min_games)
                .filter(|(_, r)| filter.active_since.is_none_or(|s| r.last_played >= Some(s)))
                .map(|((_, p), r)| (r.rating, *p))
                .collect();
            want.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)));
            for page_size in [1, 7, 100] {
                let mut got = Vec::new();
                let mut after = None;
                loop {
                    let page = store
                        .leaderboard("elo", filter, after, page_size)
                        .await
                        .expect("page");
                    assert!(page.len() as u64 <= page_size);
                    for row in &page {
                        // Names are Accounts': the rating tables give none.
                        assert_eq!(row.name, None);
                    }
                    got.extend(page.iter().map(|r| (r.rating.rating, r.player)));
                    match page.last() {
                        Some(last) if page.len() as u64 == page_size => {
                            after = Some((last.rating.rating, last.player));
                        }
                        _ => break,
                    }
                }
                assert_eq!(got, want, "{filter:?} pages of {page_size}");
            }
        }
        // Rank: players strictly above.
        let (top_rating, _) = {
            let mut all: Vec<(f64, PlayerId)> =
                expected.iter().map(|((_, p), r)| (r.rating, *p)).collect();
            all.sort_by(|a, b| b.0.total_cmp(&a.0));
            all[0]
        };
        assert_eq!(
            store.players_above("elo", top_rating).await.expect("rank"),
            0
        );
        assert_eq!(
            store.players_above("elo", f64::MIN).await.expect("rank") as usize,
            expected.len()
        );
    }
}

#[tokio::test]
async fn history_head_to_head_and_adjustments() {
    for store in stores().await {
        let ids = players(&store, 3).await;
        let (a, b, c) = (ids[0], ids[1], ids[2]);
        let events = vec![
            game("elo", 1, a, b, Score::Win, 1_700_000_000),
            game("elo", 2, b, a, Score::Win, 1_700_000_100),
            game("elo", 3, a, c, Score::Draw, 1_700_000_200),
            game("glicko", 4, a, b, Score::Win, 1_700_000_300),
            NewEvent {
                ladder: "elo".to_owned(),
                at: Timestamp(1_700_000_400_000),
                change: Change::Adjustment {
                    player: a,
                    rating: 1600.0,
                    reason: "fair play review".to_owned(),
                    actor: "admin:alice".to_owned(),
                },
            },
            game("elo", 5, c, a, Score::Loss, 1_700_000_500),
        ];
        store
            .record_rating_events(&events, None, Timestamp(1), &TestRater)
            .await
            .expect("record");
        let history = store
            .rating_history("elo", a, None, 10)
            .await
            .expect("history");
        assert_eq!(history.len(), 5, "a's elo events");
        assert!(history.windows(2).all(|w| w[0].sequence > w[1].sequence));
        // Each point's before is the previous point's after.
        for w in history.windows(2) {
            let newer = w[0].points.expect("points");
            let older = w[1].points.expect("points");
            let own = |e: &super::EventRow, p: super::Points, after: bool| {
                if e.event.change.first() == a {
                    if after { p.first_after } else { p.first_before }
                } else if after {
                    p.second_after.expect("game")
                } else {
                    p.second_before.expect("game")
                }
            };
            assert_eq!(own(&w[0], newer, false), own(&w[1], older, true));
        }
        let page2 = store
            .rating_history("elo", a, Some(history[1].sequence), 10)
            .await
            .expect("page");
        assert_eq!(page2, history[2..].to_vec());
        let h2h = store.head_to_head("elo", a, b).await.expect("h2h");
        assert_eq!((h2h.wins, h2h.draws, h2h.losses), (1, 0, 1));
        assert_eq!(h2h.last_played, Some(Timestamp(1_700_000_100_000)));
        let h2h = store.head_to_head("elo", c, a).await.expect("h2h");
        assert_eq!((h2h.wins, h2h.draws, h2h.losses), (0, 1, 1));
        let adjustments = store
            .rating_adjustments(Some("elo"), Some(a), None, 10)
            .await
            .expect("adjustments");
        assert_eq!(adjustments.len(), 1);
        assert!(matches!(
            &adjustments[0].event.change,
            Change::Adjustment { reason, actor, .. } if reason == "fair play review" && actor == "admin:alice"
        ));
        assert_eq!(adjustments[0].points.expect("points").first_after, 1600.0);
        assert!(
            store
                .rating_adjustments(Some("glicko"), None, None, 10)
                .await
                .expect("none")
                .is_empty()
        );
        let found = store
            .rating_events_of_games(&[GameId(3), GameId(1), GameId(77)])
            .await
            .expect("games");
        assert_eq!(found.len(), 2);
    }
}
