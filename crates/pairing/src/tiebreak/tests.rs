//! The tie-breaks against hand-computed crosstables, article by article.

use super::rating::expected_hundredths;
use super::*;

/// Four players, three rounds: R1 1-2 1-0, 3-4 0-1; R2 1 half-point bye, 3-2 0-1, 4 PAB;
/// R3 1-4 forfeit (4 absent), 2-3 ½. Scores 2.5, 1.5, 0.5, 2; ratings 2000 to 1400.
fn four() -> Vec<PlayerRecord> {
    use Colour::{Black, White};
    let game = |o: u32, colour, outcome| RoundEntry::Played {
        opponent: PlayerNo(o),
        colour,
        outcome,
    };
    let un = RoundEntry::Unplayed;
    let rows = [
        (
            2000,
            [
                game(2, White, Outcome::Win),
                un(Unplayed::HalfPointBye),
                un(Unplayed::ForfeitWin {
                    opponent: PlayerNo(4),
                }),
            ],
        ),
        (
            1800,
            [
                game(1, Black, Outcome::Loss),
                game(3, Black, Outcome::Win),
                game(3, White, Outcome::Draw),
            ],
        ),
        (
            1600,
            [
                game(4, White, Outcome::Loss),
                game(2, White, Outcome::Loss),
                game(2, Black, Outcome::Draw),
            ],
        ),
        (
            1400,
            [
                game(3, Black, Outcome::Win),
                un(Unplayed::PairingBye),
                un(Unplayed::ForfeitLoss {
                    opponent: PlayerNo(1),
                }),
            ],
        ),
    ];
    rows.into_iter()
        .map(|(rating, rounds)| PlayerRecord {
            rating: Some(rating),
            rounds: rounds.to_vec(),
        })
        .collect()
}

fn value(table: &Crosstable, tb: &str, rules: Rules, player: u32) -> String {
    let tb: TieBreak = tb.parse().expect("a tie-break");
    let options = Options {
        rules,
        unrated: Unrated::Drop,
    };
    standings(table, &[tb], &options)
        .into_iter()
        .find(|s| s.player.0 == player)
        .expect("a player")
        .values[0]
        .to_string()
}

#[test]
fn each_tie_break_follows_its_article() {
    use Rules::{Fide2024 as R24, Fide2026 as R26};
    let table = Crosstable::new(four()).expect("consistent");
    // (article, tie-break, rules, player, value worked out by hand)
    let cases = [
        ("7.1 wins with or without playing", "WIN", R24, 4, "2"),
        ("7.1", "WIN", R24, 1, "2"),
        ("7.2 games won over the board", "WON", R24, 1, "1"),
        ("7.3 games with Black", "BPG", R24, 2, "2"),
        ("7.4 wins with Black", "BWG", R24, 4, "1"),
        ("7.5 progressive scores", "PS", R24, 1, "5"),
        ("14.1 PS cut: round 1 left out", "PS-C1", R24, 1, "4"),
        (
            "7.6 rounds elected to play: the PAB counts",
            "REP",
            R24,
            4,
            "2",
        ),
        (
            "7.6: a forfeit win counts, a requested bye not",
            "REP",
            R24,
            1,
            "2",
        ),
        ("16.1.2 VUR: half-point bye", "VUR", R24, 1, "1"),
        ("16.1.2 VUR: forfeit loss, not the PAB", "VUR", R24, 4, "1"),
        ("9.2 Koya: opponents on at least 1.5", "KS", R24, 1, "2"),
        ("9.2", "KS", R24, 3, "0.5"),
        ("8.1 + 16.4 dummy at own score", "BH", R24, 1, "6.5"),
        ("16.4.1-2 (2026) dummy capped", "BH", R26, 1, "5"),
        ("16.4.2 (2026) PAB dummy at most 1.5", "BH", R26, 4, "4"),
        ("16.5 VUR cut first (forfeit loss)", "BH-C1", R24, 4, "2.5"),
        ("16.5 (2026)", "BH-C1", R26, 4, "2"),
        ("16.5 half-point bye cut first", "BH-C1", R24, 1, "4"),
        ("9.1 SB with dummies", "SB", R24, 1, "5.25"),
        ("9.1 SB, 2026 caps", "SB", R26, 1, "4.25"),
        ("10.1 ARO rounded", "ARO", R24, 2, "1733"),
        ("10.1 + 14.1 ARO cut", "ARO-C1", R24, 2, "1800"),
        ("10.2 TPR", "TPR", R24, 1, "2600"),
        ("10.2 TPR at 50 %", "TPR", R24, 2, "1733"),
        (
            "10.4 PTP: a sole win needs 736 above",
            "PTP",
            R24,
            1,
            "2536",
        ),
        ("RTNG", "RTNG", R24, 4, "1400"),
        ("TPN", "TPN", R24, 3, "3"),
    ];
    for (article, tb, rules, player, expected) in cases {
        assert_eq!(
            value(&table, tb, rules, player),
            expected,
            "{article}: {tb} of player {player} under {rules}"
        );
    }
}

#[test]
fn a_point_system_counts_in_points_and_scores() {
    // Article 5 with the tournament's points (3-1-0).
    let ps = PointSystem {
        win: 30,
        draw: 10,
        loss: 0,
        forfeit_loss: 0,
        zero_bye: 0,
        pab: 30,
    };
    let table = Crosstable::with_points(four(), ps).expect("consistent");
    assert_eq!(table.points(PlayerNo(1)), Points::from_tenths(70));
    assert_eq!(value(&table, "BH", Rules::Fide2024, 1), "18");
    // Limit 4.5 (half of 3 × 3): player 2 (4) is below it, player 4 (6) not.
    assert_eq!(value(&table, "KS", Rules::Fide2024, 1), "3");
    let order: Vec<u32> = standings(&table, &[], &Options::default())
        .iter()
        .map(|s| s.player.0)
        .collect();
    assert_eq!(order, [1, 4, 2, 3]);
}

#[test]
fn unrated_players_drop_rating_tie_breaks_or_take_the_given_rating() {
    let mut players = four();
    players[1].rating = None;
    let table = Crosstable::new(players).expect("consistent");
    let tpr = |unrated| {
        let options = Options {
            rules: Rules::Fide2026,
            unrated,
        };
        standings(&table, &[TieBreak::Performance], &options)
            .into_iter()
            .find(|s| s.player.0 == 1)
            .expect("player 1")
            .values[0]
            .to_string()
    };
    assert_eq!(tpr(Unrated::Drop), "-");
    assert_eq!(tpr(Unrated::Rating(1000)), "1800");
    assert_eq!(tpr(Unrated::Ignore), "-");
}

#[test]
fn dp_table_is_fide_s() {
    assert_eq!(dp(50), 0);
    assert_eq!(dp(100), 800);
    assert_eq!(dp(0), -800);
    assert_eq!(dp(75), 193);
    assert_eq!(dp(25), -193);
    assert_eq!(dp(99), 677);
    assert_eq!(dp(83), 273);
}

#[test]
fn expected_scores_follow_fide_s_table() {
    // Rating Regulations 8.1.2: (difference, expected score of the higher-rated player).
    for (diff, pd) in [
        (0, 50),
        (3, 50),
        (4, 51),
        (100, 64),
        (344, 88),
        (345, 89),
        (735, 99),
        (736, 100),
    ] {
        assert_eq!(expected_hundredths(2000 + diff, 2000), pd, "diff {diff}");
        assert_eq!(
            expected_hundredths(2000, 2000 + diff),
            100 - pd,
            "diff -{diff}"
        );
    }
}

#[test]
fn points_print_exactly() {
    let shown: Vec<String> = [0, 25, 50, 75, 100, 110, 105, 3000]
        .into_iter()
        .map(|h| Points::from_hundredths(h).to_string())
        .collect();
    assert_eq!(
        shown,
        ["0", "0.25", "0.5", "0.75", "1", "1.1", "1.05", "30"]
    );
}

#[test]
fn rules_follow_the_start_date() {
    // C.07 2026: in force for events starting from 1 March 2026.
    for (text, rules) in [
        ("2026/03/01", Rules::Fide2026),
        ("2026-02-28", Rules::Fide2024),
        ("01.03.2026", Rules::Fide2026),
        ("28/02/2026", Rules::Fide2024),
        ("2024.08.01 10:00", Rules::Fide2024),
    ] {
        let date = parse_date(text).expect("a date");
        assert_eq!(Rules::for_start(date), rules, "{text}");
    }
    assert_eq!(parse_date("next week"), None);
    assert_eq!(date_from_unix_days(0), (1970, 1, 1));
    assert_eq!(date_from_unix_days(20_513), (2026, 3, 1));
    assert_eq!(date_from_unix_days(20_512), (2026, 2, 28));
    assert_eq!(date_from_unix_days(11_016), (2000, 2, 29));
    assert_eq!(parse_date("2026/13/01"), None);
}
