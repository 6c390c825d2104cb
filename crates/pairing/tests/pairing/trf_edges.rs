//! Three TRF edge cases (issue 50) against the reference programs, bbpPairings and
//! TieBreakServer; the data and what each program gave are in `tests/data/trf-edges` (its README
//! says how they were run):
//! - a forfeit without colours: `real_files::the_strict_check_names_the_rounds_bbp_names` holds
//!   the strict check to bbpPairings' `-c` on every real file, as written back and as it is;
//! - half-point byes written as a blank result (`0000 -  `) and counted in the points column:
//!   both programs refuse the file, naming the players we name; read with `--blank-as H` it is
//!   the file with `H` written there, and it checks as bbpPairings checks that file; its
//!   standings are TieBreakServer's on it (`tiebreak_tbs`, the `blank-as-h` variant);
//! - a `162` absence value `A` (bbpPairings writes it and refuses it, and reads its own `Z`):
//!   every spelling reads as the same tournament, which checks as bbpPairings checks the one it
//!   reads; TieBreakServer's totals start at `A` (`tiebreak_tbs::KNOWN`) and are otherwise ours.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use hanniball_pairing::trf::{self, ReadOptions, TrfError};
use hanniball_pairing::{DutchOptions, StartRank, Tournament, recheck};

fn data() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data")
}

/// bbpPairings' own file with `162  A 0.5` (absences and forfeit losses worth half a point).
const ABSENCE: &str = "dutch-p14-r7-s5001";
/// Half-point byes written as a blank result, counted in the points column.
const BLANK: &str = "icu-blank-half-point-byes";

fn read_text(path: &Path) -> String {
    let bytes = std::fs::read(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    String::from_utf8(bytes).expect("ASCII")
}

/// Every `0000 -` with a blank result written as a half-point bye (`0000 - H`).
fn blank_as_h(text: &str) -> String {
    text.replace("0000 -  ", "0000 - H")
}

/// The spellings bbpPairings was run on, by name (`trf-edges/bbp.txt`), as this test makes them
/// from the committed files.
fn spellings() -> Vec<(String, String)> {
    let absence = read_text(&data().join(format!("bbp/{ABSENCE}.trf")));
    let blank = read_text(&data().join(format!("trf-edges/{BLANK}.trf")));
    let written = |text: &str, options: &ReadOptions| {
        let t = trf::read_text(text, options)
            .and_then(trf::TrfFile::finished)
            .expect("reads");
        trf::write(&t).expect("writes")
    };
    vec![
        (format!("{ABSENCE}.trf"), absence.clone()),
        (
            format!("{ABSENCE}.z.trf"),
            absence.replace("162  A 0.5", "162  Z 0.5"),
        ),
        (
            format!("{ABSENCE}.hanniball.trf"),
            written(&absence, &ReadOptions::default()),
        ),
        // Our file without the `A` of its `162` line: bbpPairings reads the value from our
        // `BBZ`/`BBF` lines.
        (
            format!("{ABSENCE}.hanniball-bb.trf"),
            written(&absence, &ReadOptions::default()).replace("    A 0.5", ""),
        ),
        (format!("{BLANK}.trf"), blank.clone()),
        (format!("{BLANK}.h.trf"), blank_as_h(&blank)),
        (
            format!("{BLANK}.hanniball.trf"),
            written(
                &blank,
                &ReadOptions {
                    blank_as_half_point_bye: true,
                    ..ReadOptions::default()
                },
            ),
        ),
    ]
}

/// `bbp.txt`: `NAME checked [ROUND ...]` (the rounds `-c` shows as not its pairing) or
/// `NAME refused MESSAGE`.
fn bbp_answers() -> BTreeMap<String, Result<Vec<u32>, String>> {
    let text = read_text(&data().join("trf-edges/bbp.txt"));
    text.lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
        .map(|line| {
            let (name, rest) = line.split_once(' ').expect("NAME ANSWER");
            let answer = if let Some(rounds) = rest.strip_prefix("checked") {
                Ok(rounds
                    .split_whitespace()
                    .map(|r| r.parse().expect("a round"))
                    .collect())
            } else {
                Err(rest
                    .strip_prefix("refused ")
                    .unwrap_or_else(|| panic!("bbp.txt: {line:?}"))
                    .to_owned())
            };
            (name.to_owned(), answer)
        })
        .collect()
}

fn tournament(text: &str, blank_as_h: bool) -> Result<Tournament, TrfError> {
    let options = ReadOptions {
        blank_as_half_point_bye: blank_as_h,
        ..ReadOptions::default()
    };
    trf::read_text(text, &options).and_then(trf::TrfFile::finished)
}

fn checked_rounds(t: &Tournament) -> Vec<u32> {
    recheck(t, &DutchOptions::for_tournament(t))
        .iter()
        .map(|m| m.round)
        .collect()
}

/// The players a `PointsDisagree` names.
fn disagreeing(error: &TrfError) -> BTreeSet<u32> {
    match error {
        TrfError::PointsDisagree { players, .. } => players.iter().map(|m| m.player.0).collect(),
        other => panic!("not a points column refusal: {other}"),
    }
}

/// The players TieBreakServer's failed runs name (`Incorrect score for player N`).
fn tie_break_server_refuses(tsv: &str) -> BTreeSet<u32> {
    let text = read_text(&data().join("tiebreak/tbs").join(tsv));
    let failed: Vec<&str> = text
        .lines()
        .filter(|l| l.starts_with("# failed: "))
        .collect();
    assert_eq!(failed.len(), 4, "{tsv}: every run fails");
    let mut players = BTreeSet::new();
    for line in failed {
        for part in line.split("Incorrect score for player ").skip(1) {
            let n = part.split_whitespace().next().expect("a number");
            players.insert(n.parse().expect("a player"));
        }
    }
    players
}

#[test]
fn every_spelling_checks_as_bbp_checks_it_or_is_refused_as_bbp_refuses_it() {
    if let Some(out) = std::env::var_os("TRF_EDGES_OUT").map(PathBuf::from) {
        // The files bbpPairings is run on (`trf-edges/README.md`).
        for (name, text) in spellings() {
            std::fs::write(out.join(name), text).expect("writes");
        }
    }
    let answers = bbp_answers();
    let spellings = spellings();
    assert_eq!(
        spellings.iter().map(|(n, _)| n).collect::<BTreeSet<_>>(),
        answers.keys().collect::<BTreeSet<_>>(),
        "an answer for every spelling, and only those"
    );
    let mut differing = Vec::new();
    for (name, text) in &spellings {
        match &answers[name] {
            Ok(theirs) => {
                let t = tournament(text, name.starts_with(BLANK)).expect("reads");
                let ours = checked_rounds(&t);
                if &ours != theirs {
                    differing.push(format!("{name}: ours {ours:?}, bbpPairings -c {theirs:?}"));
                }
            }
            // bbpPairings refuses a `162` line with `A` (and quotes it): the line we write is
            // the one it quoted, so a change of our `162` is run through it again.
            Err(message) if message.starts_with("Invalid line \"162") => {
                let line = text
                    .split(['\r', '\n'])
                    .find(|l| l.starts_with("162"))
                    .expect("a 162 line");
                assert!(message.contains(line), "{name}: {message} / {line}");
                assert!(line.contains(" A "), "{name}: {line}");
            }
            Err(message) => {
                assert!(name.starts_with(BLANK), "{name}: {message}");
            }
        }
    }
    assert!(differing.is_empty(), "{}", differing.join("\n"));
}

/// bbpPairings writes `162  A 0.5` and refuses to read it; it reads `Z` for the same value (its
/// own code). Every spelling, and our own written file, is one tournament whose absences and
/// forfeit losses are worth half a point; the value matters (read as 0, six of the seven rounds
/// are not bbpPairings' pairing), so a reading of `A` other than bbpPairings' fails the check.
#[test]
fn a_162_absence_value_is_read_as_bbp_reads_its_own_z() {
    let spellings = spellings();
    let read: Vec<(String, Tournament)> = spellings
        .iter()
        .filter(|(n, _)| n.starts_with(ABSENCE))
        .map(|(n, text)| (n.clone(), tournament(text, false).expect("reads")))
        .collect();
    assert_eq!(read.len(), 4);
    let t = &read[0].1;
    assert_eq!((t.points.zero_bye, t.points.forfeit_loss), (5, 5));
    for (name, other) in &read[1..] {
        assert_eq!(other.points, t.points, "{name}");
        assert_eq!(other.players, t.players, "{name}");
    }
    let answers = bbp_answers();
    assert_eq!(
        answers[&format!("{ABSENCE}.z.trf")],
        Ok(checked_rounds(t)),
        "what bbpPairings reads"
    );
    // bbpPairings reads a `BBx` line only at least eight characters long, the value in columns
    // 5-12 (it refuses `BBZ 0.5`): so it read ours in `hanniball-bb`.
    let (_, ours) = spellings
        .iter()
        .find(|(n, _)| n.ends_with(".hanniball-bb.trf"))
        .expect("our file");
    let bb: Vec<&str> = ours.lines().filter(|l| l.starts_with("BB")).collect();
    assert_eq!(bb.len(), 2, "{ours}");
    for line in bb {
        assert!(line.len() >= 8 && line.len() <= 12, "{line:?}");
        assert_eq!(line[4..].trim(), "0.5", "{line:?}");
    }
    let mut zero = t.clone();
    zero.points.zero_bye = 0;
    zero.points.forfeit_loss = 0;
    let rounds = checked_rounds(&zero);
    assert!(rounds.len() >= 3, "{rounds:?}: the value does not matter");
}

/// TieBreakServer reads `A 0.5` as the points of an absence and of a forfeit loss, as we do, but
/// starts every total at it: its points are ours plus 0.5, for every player, under both texts.
#[test]
fn tie_break_server_s_totals_are_ours_plus_the_absence_value() {
    let t = tournament(
        &read_text(&data().join(format!("bbp/{ABSENCE}.trf"))),
        false,
    )
    .expect("reads");
    for rules in ["2024", "2026"] {
        let tsv = read_text(
            &data()
                .join("tiebreak/tbs")
                .join(format!("{ABSENCE}.as-is.{rules}.tsv")),
        );
        let mut rows = 0;
        for line in tsv
            .lines()
            .skip_while(|l| !l.starts_with("StartNo"))
            .skip(1)
        {
            if line.starts_with('#') || line.starts_with("StartNo") {
                break;
            }
            let cells: Vec<&str> = line.split('\t').collect();
            let player: u32 = cells[0].parse().expect("a start number");
            let theirs = cells[2];
            let ours = hanniball_pairing::Score(t.score(StartRank(player)).0 + 5).to_string();
            assert_eq!(theirs, ours, "{rules}: player {player}");
            rows += 1;
        }
        assert_eq!(rows, t.players.len(), "{rules}");
    }
}

/// The blank half-point byes: both programs refuse the file as it is, naming the players our
/// refusal names (bbpPairings the first of them); with `--blank-as H` it is the file with `H`
/// written there; TieBreakServer's values on that file are compared in `tiebreak_tbs`.
#[test]
fn blank_half_point_byes_are_refused_as_both_references_refuse_them() {
    let text = read_text(&data().join(format!("trf-edges/{BLANK}.trf")));
    let error = tournament(&text, false).expect_err("the column disagrees");
    let ours = disagreeing(&error);
    assert_eq!(ours, BTreeSet::from([3, 6, 10]), "{error}");
    let TrfError::PointsDisagree { blank_byes, .. } = &error else {
        unreachable!()
    };
    assert_eq!(*blank_byes, Some(4));
    for rules in ["2024", "2026"] {
        assert_eq!(
            tie_break_server_refuses(&format!("{BLANK}.edge.{rules}.tsv")),
            ours,
            "{rules}"
        );
        let values = data()
            .join("tiebreak/tbs")
            .join(format!("{BLANK}.blank-as-h.{rules}.tsv"));
        assert!(values.exists(), "{}", values.display());
    }
    let bbp = &bbp_answers()[&format!("{BLANK}.trf")];
    let first = ours.first().expect("a player");
    assert_eq!(
        bbp,
        &Err(format!(
            "The score for player {first} does not match the game results."
        ))
    );
    let as_h = tournament(&text, true).expect("reads with --blank-as H");
    let written_h = tournament(&blank_as_h(&text), false).expect("reads");
    assert_eq!(as_h.players, written_h.players);
    assert_eq!(as_h.points, written_h.points);
}
