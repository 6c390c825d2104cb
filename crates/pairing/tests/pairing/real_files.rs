//! Tournament files from public sources (`tests/data/real`, each beginning with a `### Source:`
//! line; the variants they carry: its README): every file loads; cut back round by round, every
//! round pairs as bbpPairings pairs it; the strict check names the rounds bbpPairings' `-c`
//! names. The expected values (`tests/data/real/expected.txt`) are bbpPairings' own output, made
//! by `tests/data/real/regenerate.sh` on the files this test writes when `REAL_TRF_CUTS` names a
//! directory.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use hanniball_pairing::trf::{self, ReadOptions};
use hanniball_pairing::{DutchOptions, Pairing, RoundEntry, Tournament, pair_next_round, recheck};

fn dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/real")
}

/// Every `.trf` file of the directory, by name, as read.
fn files() -> Vec<(String, trf::TrfFile)> {
    let mut names: Vec<String> = std::fs::read_dir(dir())
        .expect("the real tournament files")
        .map(|e| {
            e.expect("directory entry")
                .file_name()
                .to_string_lossy()
                .into_owned()
        })
        .filter(|n| n.ends_with(".trf"))
        .collect();
    names.sort();
    names
        .into_iter()
        .map(|name| {
            let bytes = std::fs::read(dir().join(&name)).expect("readable");
            let file = trf::read(&bytes, &ReadOptions::default())
                .unwrap_or_else(|e| panic!("{name}: {e}"));
            (name, file)
        })
        .collect()
}

/// The tournament as it stood before round `round` was paired: rounds from `round` on taken
/// out, except what was known before its pairing (byes, absences); a player with no entry in a
/// round that was paired (a line that ends earlier) is absent from it.
fn cut(t: &Tournament, round: u32) -> Tournament {
    let paired = t.round_is_paired(round);
    let mut cut = t.clone();
    for p in &mut cut.players {
        let known_before = match p.entry(round) {
            Some(e) if e.is_pairing() => None,
            Some(e) => Some(*e),
            None => paired.then_some(RoundEntry::NotPaired),
        };
        p.entries.truncate(round as usize - 1);
        if let Some(e) = known_before {
            p.entries.resize(round as usize - 1, RoundEntry::NotPaired);
            p.entries.push(e);
        }
    }
    cut
}

/// bbpPairings' answers: `pair FILE ROUND w-b ... [bye N]` or `pair FILE ROUND none`,
/// `check FILE ROUND ...` (the rounds `-c` shows as differing, on the file as this reader writes
/// it back) and `check-as-is FILE ROUND ...` (the same on the file as it is, or with the least
/// edit bbpPairings reads: the README's table).
struct Expected {
    pairings: BTreeMap<(String, u32), Option<Pairing>>,
    checks: BTreeMap<String, Vec<u32>>,
    checks_as_is: BTreeMap<String, Vec<u32>>,
}

fn expected() -> Expected {
    let text = std::fs::read_to_string(dir().join("expected.txt")).expect("expected.txt");
    let mut pairings = BTreeMap::new();
    let mut checks = BTreeMap::new();
    let mut checks_as_is = BTreeMap::new();
    for line in text
        .lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
    {
        let words: Vec<&str> = line.split_whitespace().collect();
        let number = |w: &str| w.parse::<u32>().unwrap_or_else(|_| panic!("{line}"));
        match words.as_slice() {
            ["pair", file, round, "none"] => {
                pairings.insert((file.to_string(), number(round)), None);
            }
            ["pair", file, round, rest @ ..] => {
                let mut p = Pairing::default();
                let mut rest = rest.iter();
                while let Some(w) = rest.next() {
                    if *w == "bye" {
                        let bye = rest.next().expect("bye's player");
                        p.bye = Some(hanniball_pairing::StartRank(number(bye)));
                    } else {
                        let (a, b) = w.split_once('-').expect("w-b");
                        p.boards.push((
                            hanniball_pairing::StartRank(number(a)),
                            hanniball_pairing::StartRank(number(b)),
                        ));
                    }
                }
                p.boards.sort();
                pairings.insert((file.to_string(), number(round)), Some(p));
            }
            ["check", file, rounds @ ..] => {
                checks.insert(file.to_string(), rounds.iter().map(|r| number(r)).collect());
            }
            ["check-as-is", file, rounds @ ..] => {
                checks_as_is.insert(file.to_string(), rounds.iter().map(|r| number(r)).collect());
            }
            _ => panic!("expected.txt: cannot read {line:?}"),
        }
    }
    Expected {
        pairings,
        checks,
        checks_as_is,
    }
}

/// The rounds to pair from each file: every paired round, and the next if the tournament has
/// one.
fn rounds(t: &Tournament) -> std::ops::RangeInclusive<u32> {
    1..=(t.rounds_paired() + 1).min(t.total_rounds)
}

#[test]
fn every_real_file_loads_and_says_what_it_skipped() {
    let files = files();
    assert!(files.len() >= 10, "{} files", files.len());
    for (name, file) in &files {
        assert!(
            !file.tournament.players.is_empty() && file.tournament.rounds_paired() > 0,
            "{name}"
        );
        // The `### Source:` line is a TRF comment; the column rulers of a Swiss-Manager file
        // are noted, not refused.
        if name.starts_with("swiss-manager") {
            assert!(
                file.notes.iter().any(|n| n.text.contains("ignored line")),
                "{name}: {:?}",
                file.notes
            );
        }
        // A written file reads back as the same tournament.
        let again = trf::parse(&trf::write(&file.tournament).expect("writes")).expect("reads");
        assert_eq!(again, file.tournament, "{name}");
    }
}

#[test]
fn cut_back_round_by_round_every_round_pairs_as_bbp_pairs_it() {
    if let Some(out) = std::env::var_os("REAL_TRF_CUTS").map(PathBuf::from) {
        // The files bbpPairings is run on (`regenerate.sh`): each whole, and each cut back.
        for (name, file) in files() {
            let mut t = file.as_paired();
            // bbpPairings refuses a `192` type it does not know (`FIDE_DUTCH_2017`); the Dutch
            // rules are the same.
            if t.info
                .system
                .as_ref()
                .is_some_and(|s| !s.starts_with("FIDE_DUTCH_2025"))
            {
                t.info.system = None;
            }
            let t = &t;
            std::fs::write(out.join(&name), trf::write(t).expect("writes")).expect("writes");
            for round in rounds(&file.tournament) {
                let text = trf::write(&cut(t, round)).expect("writes");
                std::fs::write(out.join(format!("{name}.r{round}")), text).expect("writes a cut");
            }
        }
    }
    let expected = expected();
    let (mut compared, mut differing) = (0, Vec::new());
    for (name, file) in files() {
        let t = &file.as_paired();
        for round in rounds(&file.tournament) {
            let before = cut(t, round);
            let ours = pair_next_round(&before, &DutchOptions::for_tournament(&before))
                .ok()
                .map(|mut p| {
                    p.boards.sort();
                    p
                });
            let Some(theirs) = expected.pairings.get(&(name.clone(), round)) else {
                differing.push(format!("{name} round {round}: no expected pairing"));
                continue;
            };
            compared += 1;
            if &ours != theirs {
                differing.push(format!(
                    "{name} round {round}: ours {ours:?}, bbpPairings {theirs:?}"
                ));
            }
        }
    }
    assert!(compared >= 40, "{compared} rounds compared");
    assert!(differing.is_empty(), "{}", differing.join("\n"));
    eprintln!("{compared} rounds of real files: every round paired as bbpPairings pairs it");
}

/// `hanniball swiss check --strict` lists `recheck`'s rounds; on every file of the directory they
/// are the rounds bbpPairings' `-c` lists, on the file as this reader writes it back and on the
/// file as it is.
#[test]
fn the_strict_check_names_the_rounds_bbp_names() {
    let expected = expected();
    let mut differing = Vec::new();
    let files = files();
    let names: Vec<&String> = files.iter().map(|(name, _)| name).collect();
    assert_eq!(
        names,
        expected.checks_as_is.keys().collect::<Vec<_>>(),
        "a check-as-is line for every file, and only those"
    );
    for (name, file) in files {
        let t = file.as_paired();
        let ours: Vec<u32> = recheck(&t, &DutchOptions::for_tournament(&t))
            .iter()
            .map(|m| m.round)
            .collect();
        let theirs = expected
            .checks
            .get(&name)
            .unwrap_or_else(|| panic!("{name}: no expected check"));
        if &ours != theirs {
            differing.push(format!("{name}: ours {ours:?}, bbpPairings -c {theirs:?}"));
        }
        let as_is = &expected.checks_as_is[&name];
        if &ours != as_is {
            differing.push(format!(
                "{name}: ours {ours:?}, bbpPairings -c on the file as it is {as_is:?}"
            ));
        }
    }
    assert!(differing.is_empty(), "{}", differing.join("\n"));
}

/// The check of a whole file (its states walked from round to round) finds what checking each
/// round from scratch finds, on every real file, and `states_before` equals the walk's states.
#[test]
fn the_whole_file_check_equals_each_round_checked_alone() {
    use hanniball_pairing::history::{Walk, states_before};
    for (name, file) in files() {
        let t = &file.tournament;
        let mut one_by_one = Vec::new();
        let mut walk = Walk::new(t);
        for round in 1..=t.rounds_paired() {
            hanniball_pairing::check::check_round(t, round, &mut one_by_one);
            assert_eq!(
                walk.states(),
                &states_before(t, round)[..],
                "{name}: round {round}"
            );
            walk.advance();
        }
        assert_eq!(hanniball_pairing::check(t), one_by_one, "{name}");
    }
}
