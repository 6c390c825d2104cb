//! Matchmaking: exact optimality against brute force, and the queue rules as data.

use hanniball_pairing::matchmaking::{
    Colour, Game, MAX_QUEUE, MatchmakingError, PlayerId, QueueConfig, Waiting, match_queue,
    max_weight_matching,
};
use hanniball_rng::Rng;

/// Best value of `score` over all matchings of `edges` on `n` vertices (exhaustive).
fn brute_force<S: Ord + Copy>(
    n: usize,
    edges: &[(usize, usize, i64)],
    score: &dyn Fn(&[usize]) -> S,
) -> S {
    fn go<S: Ord + Copy>(
        v: usize,
        n: usize,
        used: &mut Vec<bool>,
        chosen: &mut Vec<usize>,
        edges: &[(usize, usize, i64)],
        score: &dyn Fn(&[usize]) -> S,
        best: &mut Option<S>,
    ) {
        if v == n {
            let s = score(chosen);
            if best.is_none_or(|b| s > b) {
                *best = Some(s);
            }
            return;
        }
        if used[v] {
            return go(v + 1, n, used, chosen, edges, score, best);
        }
        // v stays single...
        go(v + 1, n, used, chosen, edges, score, best);
        // ...or takes an edge to a later free vertex.
        for (k, &(a, b, _)) in edges.iter().enumerate() {
            let other = if a == v {
                b
            } else if b == v {
                a
            } else {
                continue;
            };
            if other > v && !used[other] {
                used[v] = true;
                used[other] = true;
                chosen.push(k);
                go(v + 1, n, used, chosen, edges, score, best);
                chosen.pop();
                used[v] = false;
                used[other] = false;
            }
        }
    }
    let mut best = None;
    go(
        0,
        n,
        &mut vec![false; n],
        &mut Vec::new(),
        edges,
        score,
        &mut best,
    );
    best.expect("the empty matching always exists")
}

fn random_graph(rng: &mut Rng, n: usize, weights: i64) -> Vec<(usize, usize, i64)> {
    let density = 1 + rng.below_u64(4); // 1/4 .. 4/4 of all pairs
    let mut edges = Vec::new();
    for a in 0..n {
        for b in a + 1..n {
            if rng.below_u64(4) < density {
                let w = i64::try_from(rng.below_u64(u64::try_from(weights).expect("positive")))
                    .expect("small")
                    - weights / 4;
                edges.push((a, b, w));
            }
        }
    }
    edges
}

fn matched_edges(mate: &[Option<usize>], edges: &[(usize, usize, i64)]) -> Vec<usize> {
    for (v, m) in mate.iter().enumerate() {
        if let Some(u) = *m {
            assert_eq!(mate[u], Some(v), "mates are symmetric");
        }
    }
    let mut ks = Vec::new();
    for (v, m) in mate.iter().enumerate() {
        if let Some(u) = *m
            && v < u
        {
            // The cheapest-index edge of the pair (inputs have no duplicates).
            let k = edges
                .iter()
                .position(|&(a, b, _)| (a, b) == (v, u) || (a, b) == (u, v))
                .expect("a matched pair is an edge");
            ks.push(k);
        }
    }
    ks
}

#[test]
fn blossom_matching_is_optimal_on_random_graphs() {
    let mut rng = Rng::new(0x5EED_2024);
    for case in 0..1500 {
        let n = 1 + (case % 11);
        let weights = [3, 10, 1000][case % 3];
        let edges = random_graph(&mut rng, n, weights);
        for max_cardinality in [false, true] {
            let mate = max_weight_matching(n, &edges, max_cardinality);
            let ks = matched_edges(&mate, &edges);
            let weight: i64 = ks.iter().map(|&k| edges[k].2).sum();
            let got = if max_cardinality {
                (ks.len() as i64, weight)
            } else {
                (0, weight)
            };
            let want = brute_force(n, &edges, &|chosen: &[usize]| {
                let w: i64 = chosen.iter().map(|&k| edges[k].2).sum();
                if max_cardinality {
                    (chosen.len() as i64, w)
                } else {
                    (0, w)
                }
            });
            assert_eq!(
                got, want,
                "case {case}, n {n}, max_cardinality {max_cardinality}, edges {edges:?}"
            );
        }
    }
}

fn player(id: u64, rating: i32, seconds: u64) -> Waiting {
    Waiting {
        id: PlayerId(id),
        rating,
        seconds_waited: seconds,
        last_opponent: None,
        colour_balance: 0,
        last_colour: None,
    }
}

const CONFIG: QueueConfig = QueueConfig {
    base_window: 100,
    widening_per_second: 10,
    max_window: 400,
};

/// The queue rules, written independently of the implementation: allowed pairs by index.
fn allowed(queue: &[Waiting], config: &QueueConfig) -> Vec<(usize, usize, i64)> {
    let window = |p: &Waiting| {
        (u64::from(config.base_window) + u64::from(config.widening_per_second) * p.seconds_waited)
            .min(u64::from(config.max_window))
    };
    let ok = |a: &Waiting, b: &Waiting| {
        let gap = u64::from(a.rating.abs_diff(b.rating));
        gap <= window(a) && gap <= window(b)
    };
    let again =
        |a: &Waiting, b: &Waiting| a.last_opponent == Some(b.id) || b.last_opponent == Some(a.id);
    let fresh = |x: usize| {
        (0..queue.len()).any(|c| c != x && ok(&queue[x], &queue[c]) && !again(&queue[x], &queue[c]))
    };
    let mut pairs = Vec::new();
    for a in 0..queue.len() {
        for b in a + 1..queue.len() {
            if ok(&queue[a], &queue[b])
                && (!again(&queue[a], &queue[b]) || (!fresh(a) && !fresh(b)))
            {
                pairs.push((a, b, i64::from(queue[a].rating.abs_diff(queue[b].rating))));
            }
        }
    }
    pairs
}

#[test]
fn queue_choice_is_lexicographically_optimal_against_brute_force() {
    let mut rng = Rng::new(42);
    for case in 0..800 {
        let n = (case % 10) + 1;
        let mut queue: Vec<Waiting> = (0..n)
            .map(|i| {
                let mut p = player(
                    100 + i as u64,
                    1200 + (rng.below_u64(40) as i32) * 10,
                    rng.below_u64(30),
                );
                p.last_opponent =
                    (rng.below_u64(3) == 0).then(|| PlayerId(100 + rng.below_u64(n as u64)));
                p
            })
            .collect();
        // Shuffle to show that input order does not matter.
        for i in (1..queue.len()).rev() {
            let j = rng.below_u64(i as u64 + 1) as usize;
            queue.swap(i, j);
        }
        let plan = match_queue(&queue, &CONFIG).expect("valid queue");
        let edges = allowed(&queue, &CONFIG);
        let waits: Vec<u64> = {
            let mut w: Vec<u64> = queue.iter().map(|p| p.seconds_waited).collect();
            w.sort_unstable();
            w.dedup();
            w
        };
        let rank = |i: usize| {
            waits
                .iter()
                .position(|&s| s == queue[i].seconds_waited)
                .expect("present") as i64
        };
        let score = |pairs: &[(usize, usize)]| -> (usize, i64, i64) {
            let gap: i64 = pairs
                .iter()
                .map(|&(a, b)| i64::from(queue[a].rating.abs_diff(queue[b].rating)))
                .sum();
            let waited: i64 = pairs.iter().map(|&(a, b)| rank(a) + rank(b)).sum();
            (pairs.len(), -gap, waited)
        };
        let index = |id: PlayerId| {
            queue
                .iter()
                .position(|p| p.id == id)
                .expect("a queued player")
        };
        let chosen: Vec<(usize, usize)> = plan
            .games
            .iter()
            .map(|g| (index(g.white), index(g.black)))
            .collect();
        for &(a, b) in &chosen {
            assert!(
                edges
                    .iter()
                    .any(|&(x, y, _)| (x, y) == (a.min(b), a.max(b))),
                "case {case}: pair {a}-{b} is not allowed"
            );
        }
        assert_eq!(
            plan.games.len() * 2 + plan.waiting.len(),
            n,
            "everyone is placed once"
        );
        let want = brute_force(n, &edges, &|ks: &[usize]| {
            score(
                &ks.iter()
                    .map(|&k| (edges[k].0, edges[k].1))
                    .collect::<Vec<_>>(),
            )
        });
        assert_eq!(score(&chosen), want, "case {case}: {queue:?}");
        // Same queue in another order: same plan.
        let mut reversed = queue.clone();
        reversed.reverse();
        assert_eq!(
            match_queue(&reversed, &CONFIG).expect("valid queue"),
            plan,
            "case {case}"
        );
    }
}

/// One named scenario: a queue, and the games expected as "white-black" ids (sorted by smaller id).
fn check(name: &str, queue: &[Waiting], expected_games: &[&str], expected_waiting: &[u64]) {
    let plan = match_queue(queue, &CONFIG).expect("valid queue");
    let games: Vec<String> = plan
        .games
        .iter()
        .map(|g| format!("{}-{}", g.white, g.black))
        .collect();
    assert_eq!(games, expected_games, "{name}");
    let waiting: Vec<u64> = plan.waiting.iter().map(|p| p.0).collect();
    assert_eq!(waiting, expected_waiting, "{name}");
}

#[test]
fn windows_widen_with_waiting_time_up_to_the_maximum() {
    // window = min(100 + 10 x seconds, 400)
    check(
        "fresh arrivals 150 apart wait",
        &[player(1, 1500, 0), player(2, 1650, 0)],
        &[],
        &[1, 2],
    );
    check(
        "one has waited 5 s (150) but the other's window is still 100",
        &[player(1, 1500, 5), player(2, 1650, 0)],
        &[],
        &[1, 2],
    );
    check(
        "both windows reach 150",
        &[player(1, 1500, 5), player(2, 1650, 5)],
        &["1-2"],
        &[],
    );
    check(
        "exactly on the edge counts",
        &[player(1, 1500, 0), player(2, 1600, 0)],
        &["1-2"],
        &[],
    );
    check(
        "the window stops at 400",
        &[player(1, 1000, 1000), player(2, 1401, 1000)],
        &[],
        &[1, 2],
    );
    check(
        "400 is still inside",
        &[player(1, 1000, 1000), player(2, 1400, 1000)],
        &["1-2"],
        &[],
    );
    let huge = QueueConfig {
        base_window: 0,
        widening_per_second: u32::MAX,
        max_window: 50,
    };
    assert_eq!(huge.window(u64::MAX), 50, "no overflow");
}

#[test]
fn most_pairs_first_then_smallest_total_gap_then_longest_waiters() {
    // Greedy closest-pair would take 2-3 (gap 10) and strand 1 and 4; two pairs beat one.
    check(
        "cardinality before gap",
        &[
            player(1, 1400, 0),
            player(2, 1490, 0),
            player(3, 1500, 0),
            player(4, 1590, 0),
        ],
        &["1-2", "3-4"],
        &[],
    );
    // Three players, all compatible: the closest pair plays.
    check(
        "smallest gap",
        &[player(1, 1500, 0), player(2, 1520, 0), player(3, 1560, 0)],
        &["1-2"],
        &[3],
    );
    // Equal gaps: the player who waited least stays in the queue.
    check(
        "longest waiters first",
        &[player(1, 1500, 3), player(2, 1550, 9), player(3, 1600, 1)],
        &["1-2"],
        &[3],
    );
    check(
        "longest waiters first, mirrored",
        &[player(1, 1500, 1), player(2, 1550, 9), player(3, 1600, 3)],
        &["2-3"],
        &[1],
    );
}

fn rematch(id: u64, rating: i32, last: u64) -> Waiting {
    Waiting {
        last_opponent: Some(PlayerId(last)),
        ..player(id, rating, 0)
    }
}

#[test]
fn no_rematch_while_another_opponent_is_available() {
    check(
        "only each other: they play again",
        &[rematch(1, 1500, 2), rematch(2, 1500, 1)],
        &["1-2"],
        &[],
    );
    check(
        "3 is available to 1: 1 and 2 do not meet again, 2 waits",
        &[rematch(1, 1500, 2), rematch(2, 1500, 1), player(3, 1590, 0)],
        &["1-3"],
        &[2],
    );
    check(
        "one-sided memory is enough",
        &[rematch(1, 1500, 2), player(2, 1500, 0), player(3, 1590, 0)],
        &["1-3"],
        &[2],
    );
    check(
        "3 is out of 1's window but available to 2: still no rematch",
        &[rematch(1, 1400, 2), rematch(2, 1480, 1), player(3, 1570, 0)],
        &["2-3"],
        &[1],
    );
    // 1-2 and 3-4 would make two pairs, but 1 has 3 available, so 1-2 is barred and only
    // one pair is possible (1-3 or 3-4, both 90 apart; 1 has waited longer).
    check(
        "the rule holds even when it costs a pair",
        &[
            Waiting {
                seconds_waited: 1,
                ..rematch(1, 1500, 2)
            },
            rematch(2, 1410, 1),
            player(3, 1590, 0),
            player(4, 1680, 0),
        ],
        &["1-3"],
        &[2, 4],
    );
}

fn coloured(id: u64, balance: i32, last: Option<Colour>) -> Waiting {
    Waiting {
        colour_balance: balance,
        last_colour: last,
        ..player(id, 1500, 0)
    }
}

fn colours(a: Waiting, b: Waiting) -> String {
    let plan = match_queue(&[a, b], &CONFIG).expect("valid queue");
    let Game { white, black, .. } = plan.games[0];
    format!("{white}-{black}")
}

#[test]
fn colours_alternate_and_balance() {
    use Colour::{Black, White};
    let cases = [
        (
            "more Blacks gets White",
            coloured(1, 1, Some(Black)),
            coloured(2, -1, Some(White)),
            "2-1",
        ),
        (
            "balance beats last colour",
            coloured(1, -1, Some(White)),
            coloured(2, 0, Some(Black)),
            "1-2",
        ),
        (
            "equal balance: Black last gets White",
            coloured(1, 0, Some(White)),
            coloured(2, 0, Some(Black)),
            "2-1",
        ),
        (
            "no game yet sits between",
            coloured(1, 0, None),
            coloured(2, 0, Some(White)),
            "1-2",
        ),
        (
            "no game yet sits between, other side",
            coloured(1, 0, None),
            coloured(2, 0, Some(Black)),
            "2-1",
        ),
        (
            "full tie: lower id is White",
            coloured(2, 0, None),
            coloured(1, 0, None),
            "1-2",
        ),
        (
            "full tie with history: lower id is White",
            coloured(7, 1, Some(White)),
            coloured(3, 1, Some(White)),
            "3-7",
        ),
    ];
    for (name, a, b, expected) in cases {
        assert_eq!(colours(a.clone(), b.clone()), expected, "{name}");
        assert_eq!(colours(b, a), expected, "{name}, swapped input");
    }
}

#[test]
fn rating_gap_is_reported() {
    let plan =
        match_queue(&[player(1, 1500, 0), player(2, 1433, 0)], &CONFIG).expect("valid queue");
    assert_eq!(plan.games[0].rating_gap, 67);
}

#[test]
fn bad_input_is_refused() {
    assert_eq!(
        match_queue(&[player(1, 1500, 0), player(1, 1500, 0)], &CONFIG),
        Err(MatchmakingError::DuplicatePlayer { id: PlayerId(1) })
    );
    let config = QueueConfig {
        base_window: 500,
        widening_per_second: 1,
        max_window: 400,
    };
    assert_eq!(
        match_queue(&[], &config),
        Err(MatchmakingError::WindowOrder {
            base: 500,
            max: 400
        })
    );
    assert_eq!(
        MatchmakingError::WindowOrder {
            base: 500,
            max: 400
        }
        .to_string(),
        "base window 500 is larger than the maximum window 400"
    );
    let crowd: Vec<Waiting> = (0..=MAX_QUEUE as u64).map(|i| player(i, 1500, 0)).collect();
    assert_eq!(
        match_queue(&crowd, &CONFIG),
        Err(MatchmakingError::TooManyPlayers {
            players: MAX_QUEUE + 1,
            max: MAX_QUEUE
        })
    );
    assert_eq!(
        match_queue(&[], &CONFIG)
            .expect("an empty queue is fine")
            .games,
        []
    );
}

#[test]
fn a_few_hundred_players_are_matched_completely_when_all_are_compatible() {
    let mut rng = Rng::new(7);
    let queue: Vec<Waiting> = (0..400)
        .map(|i| player(i, 1000 + rng.below_u64(1000) as i32, 100))
        .collect();
    let wide = QueueConfig {
        base_window: 2000,
        widening_per_second: 0,
        max_window: 2000,
    };
    let plan = match_queue(&queue, &wide).expect("valid queue");
    assert_eq!(plan.games.len(), 200);
    // With everyone compatible the optimum pairs neighbours in rating order.
    let mut ratings: Vec<i32> = queue.iter().map(|p| p.rating).collect();
    ratings.sort_unstable();
    let best: u32 = ratings.chunks(2).map(|c| c[0].abs_diff(c[1])).sum();
    assert_eq!(plan.games.iter().map(|g| g.rating_gap).sum::<u32>(), best);
}
