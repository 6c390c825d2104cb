//! The engine's own tests that reach inside it (the rest are in `tests/pairing`).

use super::engine::pair_round_slots;
use super::recheck::recorded_pairing;

/// The committed bbpPairings tournaments (`tests/data/bbp`), every round paired with the
/// fewest score slots a bracket can have (three: moved-down players, residents, the next
/// scoregroup) and with two: the pairing must be the generator's either way, whether the
/// slots sufficed or the round was paired again with a slot for every scoregroup (both
/// happen, and are counted).
#[test]
fn score_slots_do_not_change_a_pairing() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/bbp");
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .expect("the reference tournaments")
        .map(|e| e.expect("directory entry").path())
        .filter(|p| p.extension().is_some_and(|x| x == "trf"))
        .collect();
    files.sort();
    let (mut narrow, mut widened) = (0, 0);
    for path in &files {
        let text = std::fs::read_to_string(path).expect("readable TRF");
        let t = crate::trf::parse(&text).expect("a valid TRF");
        for round in 1..=t.rounds_paired() {
            let recorded = recorded_pairing(&t, round);
            let mut expected = recorded.boards.clone();
            expected.sort_unstable();
            for slots in [2, 3] {
                let (p, wide) = pair_round_slots(&t, round, Some(slots)).expect("paired");
                let mut ours = p.boards.clone();
                ours.sort_unstable();
                assert_eq!(
                    (ours, p.bye),
                    (expected.clone(), recorded.bye),
                    "{} round {round} with {slots} slots (widened: {wide})",
                    path.display()
                );
                if wide {
                    widened += 1;
                } else {
                    narrow += 1;
                }
            }
        }
    }
    eprintln!("{narrow} rounds paired in their slots, {widened} widened");
    assert!(
        narrow > 100 && widened > 100,
        "{narrow} narrow, {widened} widened"
    );
}
