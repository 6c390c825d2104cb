//! The matcher against brute force and its own optimality certificate.

use super::*;

use hanniball_rng::Rng;

#[allow(clippy::collapsible_if)]
/// The best perfect matching's weight by dynamic programming over vertex subsets.
fn best(n: usize, w: &[Vec<Option<u64>>]) -> Option<u64> {
    let full = (1usize << n) - 1;
    // f[mask]: best weight of a perfect matching of the vertices in `mask`.
    let mut f: Vec<Option<u64>> = vec![None; 1 << n];
    f[0] = Some(0);
    for mask in 1..=full {
        if mask.count_ones() % 2 == 1 {
            continue;
        }
        let a = mask.trailing_zeros() as usize;
        let rest = mask & !(1 << a);
        let mut best = None;
        for b in a + 1..n {
            if rest & (1 << b) != 0 {
                if let (Some(c), Some(r)) = (w[a][b], f[rest & !(1 << b)]) {
                    best = best.max(Some(r + c));
                }
            }
        }
        f[mask] = best;
    }
    f[full]
}

#[test]
fn warm_started_matching_stays_optimal_on_random_changes() {
    random_changes(7, 600, 2, 12, &[3, 10, 1000]);
}

/// Graphs of up to 46 vertices, many with few distinct weights (hence many blossoms), checked by the optimality
/// certificate after every warm-started solve.
#[test]
fn warm_started_solutions_carry_an_optimality_certificate() {
    let mut rng = Rng::new(23);
    for case in 0..3000 {
        let n = 6 + 2 * (rng.next_u64() % 21) as usize;
        let range = [2u64, 3, 6, 40, 1000][case % 5];
        let mut m = Matcher::<2>::new(n);
        for a in 0..n {
            // A perfect matching always exists: 2k-(2k+1) edges are never removed.
            m.set(a, a ^ 1, Some(Wide::from_u64(0)));
            for b in a + 1..n {
                if b != (a ^ 1) && rng.next_u64() % 100 < 70 {
                    m.set(a, b, Some(Wide::from_u64(rng.next_u64() % range)));
                }
            }
        }
        for step in 0..12 {
            assert!(m.solve().is_ok(), "case {case} step {step}");
            m.certify();
            let v = (rng.next_u64() % n as u64) as usize;
            for x in 0..n {
                if x != v && x != (v ^ 1) && rng.next_u64().is_multiple_of(3) {
                    let c = (!rng.next_u64().is_multiple_of(5))
                        .then(|| Wide::from_u64(rng.next_u64() % range));
                    m.set(v, x, c);
                }
            }
        }
    }
}

/// A random graph on `n` vertices (edges 2k-(2k+1) always present, so a perfect matching
/// exists; the others with probability `percent`), weights from `weight(rng, a, b)`, as a
/// weight table and a matcher holding the same edges.
#[allow(clippy::needless_range_loop)]
fn random_graph(
    rng: &mut Rng,
    n: usize,
    percent: u64,
    mut weight: impl FnMut(&mut Rng, usize, usize) -> u64,
) -> (Vec<Vec<Option<u64>>>, Matcher<2>) {
    let mut w = vec![vec![None; n]; n];
    let mut m = Matcher::<2>::new(n);
    for a in 0..n {
        for b in a + 1..n {
            if b == (a ^ 1) || rng.next_u64() % 100 < percent {
                let c = weight(rng, a, b);
                w[a][b] = Some(c);
                w[b][a] = Some(c);
                m.set(a, b, Some(Wide::from_u64(c)));
            }
        }
    }
    (w, m)
}

/// The weight of the matcher's (perfect) matching in the table `w`.
fn matched_weight(m: &Matcher<2>, w: &[Vec<Option<u64>>]) -> u64 {
    (0..w.len())
        .map(|a| {
            let b = m.mate(a).expect("perfect");
            if a < b { w[a][b].expect("an edge") } else { 0 }
        })
        .sum()
}

/// Restarting from given duals: potentials of weights that are (nearly) sums of vertex
/// potentials are accepted and the solution is optimal (dynamic programming) with its
/// certificate; infeasible duals are refused and change nothing.
#[test]
#[allow(clippy::needless_range_loop)]
fn a_restart_from_potentials_solves_to_the_optimum() {
    let mut rng = Rng::new(41);
    let mut refused = 0;
    for case in 0..800 {
        let n = 4 + 2 * (rng.next_u64() % 5) as usize;
        let p: Vec<u64> = (0..n).map(|_| rng.next_u64() % 6).collect();
        // A potential sum, sometimes one more (a "pair of top scorers").
        let (w, mut m) = random_graph(&mut rng, n, 75, |rng, a, b| {
            p[a] + p[b] + u64::from(rng.next_u64() % 100 < 10)
        });
        // w2 = 2w + 2, so 2p + 2 covers the pure sums; 2p + 2 with one vertex None too.
        let mut duals: Vec<Option<Wide<2>>> =
            (0..n).map(|v| Some(Wide::from_u64(2 * p[v] + 2))).collect();
        if case % 4 == 0 {
            duals[n - 1] = None;
        }
        if case % 5 == 0 {
            // Too low for some edge: refused.
            duals[0] = Some(Wide::ZERO.sub_u64(1));
            assert!(
                !m.restart_from(&duals),
                "case {case}: infeasible duals accepted"
            );
            refused += 1;
            assert!(m.solve().is_ok());
            m.certify();
            continue;
        }
        assert!(
            m.restart_from(&duals),
            "case {case}: feasible duals refused"
        );
        assert!(m.solve().is_ok(), "case {case}");
        m.certify();
        assert_eq!(Some(matched_weight(&m, &w)), best(n, &w), "case {case}");
    }
    assert!(refused > 100);
}

/// Solving with the lower field parked: graphs whose edges with an end from `k` on are flat
/// (a sum of two potentials, or absent; a "dummy" last vertex weighs 0 to everyone), the
/// upper vertices' edges among themselves changed at random, then solved as `solve_parked`
/// does, step by step. The relaxation parks pairs and pairs vertices into the reservoir
/// often, and the final matching is optimal on the whole graph (dynamic programming) with
/// its certificate.
#[test]
#[allow(clippy::needless_range_loop)]
fn solving_with_the_lower_field_parked_is_optimal() {
    let mut rng = Rng::new(47);
    let (mut parked, mut floated) = (0, 0);
    for case in 0..700 {
        let n = 6 + 2 * (rng.next_u64() % 6) as usize;
        let dummy = case % 3 == 0;
        let players = if dummy { n - 1 } else { n };
        let k = 2 + (rng.next_u64() % (players as u64 - 3)) as usize;
        let p: Vec<u64> = (0..n).map(|_| rng.next_u64() % 5).collect();
        let (mut w, mut m) = random_graph(&mut rng, n, 80, |_, a, b| {
            if dummy && b == n - 1 { 0 } else { p[a] + p[b] }
        });
        let phi: Vec<Wide<2>> = (0..players).map(|v| Wide::from_u64(2 * p[v] + 1)).collect();
        let duals: Vec<Option<Wide<2>>> = (0..n).map(|v| phi.get(v).copied()).collect();
        assert!(m.restart_from(&duals), "case {case}");
        assert!(m.solve().is_ok(), "case {case}");
        for _ in 0..3 {
            for a in 0..k {
                for b in a + 1..k {
                    let c = match rng.next_u64() % 10 {
                        0 => None,
                        1..=3 => w[a][b],
                        _ => Some(p[a] + p[b] + rng.next_u64() % 12),
                    };
                    w[a][b] = c;
                    w[b][a] = c;
                    m.set(a, b, c.map(Wide::from_u64));
                }
            }
            m.park(k, &phi);
            parked += usize::from(!m.parked_list.is_empty());
            let _ = m.solve();
            floated += usize::from(m.mate.contains(&RES));
            m.unpark();
            assert!(m.parked_list.is_empty() && !m.mate.contains(&RES));
            let solved = m.solve();
            let optimum = best(n, &w);
            assert_eq!(solved.is_ok(), optimum.is_some(), "case {case}");
            if solved.is_err() {
                break;
            }
            m.certify();
            assert_eq!(Some(matched_weight(&m, &w)), optimum, "case {case}");
        }
    }
    assert!(parked > 500, "parked in {parked} solves");
    assert!(
        floated > 100,
        "paired into the reservoir in {floated} solves"
    );
}

/// Shifting a vertex's dual ahead of changing its edges to a set by the same amount: when
/// accepted, the solution after the changes is still optimal (certificate and dynamic
/// programming), and it is accepted often.
#[test]
#[allow(clippy::needless_range_loop)]
fn a_dual_shift_keeps_the_solution_optimal() {
    let mut rng = Rng::new(43);
    let mut accepted = 0;
    for case in 0..1500 {
        let n = 4 + 2 * (rng.next_u64() % 5) as usize;
        let range = [3u64, 20, 1000][case % 3];
        let (mut w, mut m) =
            random_graph(&mut rng, n, 70, |rng, _, _| range + rng.next_u64() % range);
        assert!(m.solve().is_ok());
        let v = (rng.next_u64() % n as u64) as usize;
        let mate = m.mate(v).expect("perfect");
        let set: Vec<bool> = (0..n)
            .map(|x| x == mate || (x != v && rng.next_u64().is_multiple_of(2)))
            .collect();
        // Every changed edge moves by d (w units), or goes, but not the matched one.
        let d = (rng.next_u64() % range) as i64 - (range / 2) as i64;
        let delta = if d < 0 {
            Wide::ZERO.sub_u64(2 * d.unsigned_abs())
        } else {
            Wide::from_u64(2 * d as u64)
        };
        if !m.shift_dual(v, delta, |x| set[x]) {
            continue;
        }
        accepted += 1;
        for x in 0..n {
            if !set[x] {
                continue;
            }
            let c = w[v][x].and_then(|c| {
                (x == mate || !rng.next_u64().is_multiple_of(4)).then(|| (c as i64 + d) as u64)
            });
            w[v][x] = c;
            w[x][v] = c;
            m.set(v, x, c.map(Wide::from_u64));
        }
        assert!(m.solve().is_ok(), "case {case}");
        m.certify();
        assert_eq!(Some(matched_weight(&m, &w)), best(n, &w), "case {case}");
    }
    assert!(accepted > 300, "accepted {accepted} times");
}

/// Larger graphs with few distinct weights: many tight edges, so nested blossoms form and
/// T-blossoms expand in nearly every stage.
#[test]
fn warm_started_matching_stays_optimal_with_many_ties() {
    random_changes(11, 160, 14, 16, &[2, 3, 5]);
}

/// A certified answer of `forced_mate` is the only mate of `v` in every optimal matching
/// under the changed weights (checked by dynamic programming), and the certificate answers
/// often enough to matter.
#[test]
#[allow(clippy::needless_range_loop)]
fn a_forced_mate_is_the_mate_in_every_optimal_matching() {
    let mut rng = Rng::new(31);
    let (mut answered, mut swapped) = (0, 0);
    for case in 0..1500 {
        let n = 4 + 2 * (rng.next_u64() % 5) as usize;
        let range = [3u64, 20, 1000][case % 3];
        let (w, mut m) = random_graph(&mut rng, n, 70, |rng, _, _| rng.next_u64() % range);
        assert!(m.solve().is_ok(), "case {case}");
        let v = (rng.next_u64() % n as u64) as usize;
        let mut changes = Vec::new();
        let mut changed = w.clone();
        for x in 0..n {
            if x != v && rng.next_u64().is_multiple_of(3) {
                let c = (!rng.next_u64().is_multiple_of(4)).then(|| rng.next_u64() % range);
                if x == (v ^ 1) && c.is_none() {
                    continue;
                }
                changes.push((x, c.map(Wide::from_u64)));
                changed[v][x] = c;
                changed[x][v] = c;
            }
        }
        let before = m.mate(v);
        let Some(u) = m.forced_mate(v, &changes) else {
            continue;
        };
        answered += 1;
        if before != Some(u) {
            // Swapped onto u: still a perfect matching of tight edges.
            swapped += 1;
            m.certify_except(v);
            assert_eq!(m.mate(v), Some(u), "case {case}");
        }
        let best_all = best(n, &changed).expect("a perfect matching");
        // The best matching with v-x fixed: v and x keep only their own edge, of weight 0.
        let with = |x: usize| -> Option<u64> {
            let c = changed[v][x]?;
            let mut only = changed.clone();
            for y in 0..n {
                for z in [v, x] {
                    only[z][y] = None;
                    only[y][z] = None;
                }
            }
            only[v][x] = Some(0);
            only[x][v] = Some(0);
            best(n, &only).map(|r| r + c)
        };
        assert_eq!(with(u), Some(best_all), "case {case}: {v}-{u} is optimal");
        for x in 0..n {
            if x != v && x != u {
                assert!(
                    with(x).is_none_or(|b| b < best_all),
                    "case {case}: {v}-{x} is optimal too"
                );
            }
        }
    }
    assert!(answered > 300, "the certificate answered {answered} times");
    assert!(swapped > 30, "a swap answered {swapped} times");
}

#[allow(clippy::needless_range_loop)]
fn random_changes(seed: u64, cases: usize, min: usize, max: usize, ranges: &[u64]) {
    let mut rng = Rng::new(seed);
    for case in 0..cases {
        let n = min + 2 * (rng.next_u64() % ((max - min) / 2 + 1) as u64) as usize;
        let density = 40 + rng.next_u64() % 60;
        let range = ranges[case % ranges.len()];
        let mut w = vec![vec![None; n]; n];
        // Every other case with a tiled weight table (as on large fields).
        let mut m = if case % 2 == 0 {
            Matcher::<2>::new(n)
        } else {
            Matcher::<2>::with_tile_bits(n, 1 + case as u32 % 3)
        };
        for a in 0..n {
            for b in a + 1..n {
                if rng.next_u64() % 100 < density {
                    let c = rng.next_u64() % range;
                    w[a][b] = Some(c);
                    w[b][a] = Some(c);
                    m.set(a, b, Some(Wide::from_u64(c)));
                }
            }
        }
        let mut retired = vec![false; n];
        for step in 0..8 {
            let expected = best(n, &w);
            let got = m.solve();
            match expected {
                None => {
                    assert!(got.is_err(), "case {case} step {step}: no perfect matching");
                    break;
                }
                Some(e) => {
                    assert!(got.is_ok(), "case {case} step {step}");
                    let mut total = 0;
                    for v in 0..n {
                        let u = m.mate(v).expect("perfect");
                        assert_eq!(m.mate(u), Some(v));
                        if v < u {
                            total += w[v][u].expect("matched on an edge");
                        }
                    }
                    assert_eq!(total, e, "case {case} step {step}");
                }
            }
            // Now and then a matched pair is decided for good, as the Dutch procedure does:
            // it leaves the graph (for the reference: it keeps only its own edge).
            if rng.next_u64().is_multiple_of(4) {
                let v = (rng.next_u64() % n as u64) as usize;
                if !retired[v] {
                    let u = m.mate(v).expect("perfect");
                    m.retire(v, u);
                    for x in 0..n {
                        for (a, b) in [(v, u), (u, v)] {
                            if x != b && x != a {
                                w[a][x] = None;
                                w[x][a] = None;
                            }
                        }
                    }
                    retired[v] = true;
                    retired[u] = true;
                }
            }
            // Change the edges of one vertex, as the Dutch procedure does.
            let v = (rng.next_u64() % n as u64) as usize;
            if retired[v] {
                continue;
            }
            for x in 0..n {
                if x != v && !retired[x] && rng.next_u64().is_multiple_of(3) {
                    let c = if rng.next_u64().is_multiple_of(5) {
                        None
                    } else {
                        Some(rng.next_u64() % range)
                    };
                    w[v][x] = c;
                    w[x][v] = c;
                    m.set(v, x, c.map(Wide::from_u64));
                }
            }
        }
    }
}
