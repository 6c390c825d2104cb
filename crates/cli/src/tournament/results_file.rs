use super::round_results;

#[test]
fn a_results_file_is_read_whole_and_every_bad_line_named() {
    let ok = round_results("# round 2\n1 1-0\n2 ½-½   # agreed\n\n3 -/+\n", 2).expect("reads");
    let read: Vec<(u32, u32, &str)> = ok
        .iter()
        .map(|r| (r.round, r.board, r.result.as_str()))
        .collect();
    assert_eq!(read, [(2, 1, "1-0"), (2, 2, "1/2-1/2"), (2, 3, "-/+")]);
    let bad =
        round_results("1 1-0\n2 2-0\nthree 1-0\n4 1-0 extra\n", 1).expect_err("three bad lines");
    for needle in [
        "line 2",
        "line 3",
        "line 4",
        "unknown result",
        "BOARD RESULT",
    ] {
        assert!(bad.contains(needle), "{needle}: {bad}");
    }
    assert!(!bad.contains("line 1:"), "{bad}");
}
