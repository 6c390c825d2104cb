//! The bench's seeded 1,000-player tournament (`benches/support/field.rs`) paired round by
//! round and compared with the pairings recorded before the matcher's rework (digests of
//! `format_pairing`): the matcher's speedups must not change a single board. The bench
//! compares every round of 1,000, 5,000 and 10,000 players the same way.

#[path = "../../benches/support/field.rs"]
mod field;

#[test]
fn the_first_rounds_of_1000_players_pair_as_recorded() {
    let rounds = 4;
    let mut f = field::Field::new(1_000, 11, false);
    for round in 1..=rounds {
        let p = f.round(round);
        let want = field::recorded(1_000, round).expect("a recorded digest");
        assert_eq!(
            format!("{:016x}", field::digest(&p)),
            format!("{want:016x}"),
            "round {round} of 1,000 players paired differently from the recorded pairing"
        );
    }
}
