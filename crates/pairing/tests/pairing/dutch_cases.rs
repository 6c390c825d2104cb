//! Dutch pairing cases as data: `tests/data/dutch/*.txt` hold a TRF and the expected pairing.
//!
//! File format: a `# Source:` line (and any further `#` comment lines), the TRF text, a line
//! `=== expected`, then the expected output of `format_pairing` (JaVaFo's format).

use hanniball_pairing::{DutchOptions, format_pairing, pair_next_round, trf};

fn check(name: &str, text: &str) {
    let (input, expected) = text
        .split_once("=== expected\n")
        .unwrap_or_else(|| panic!("{name}: no expected part"));
    assert!(
        input.starts_with("# Source:"),
        "{name}: must begin with a # Source: line"
    );
    let trf_text: String = input
        .lines()
        .filter(|l| !l.starts_with("# "))
        .map(|l| format!("{l}\n"))
        .collect();
    let t = trf::parse(&trf_text).unwrap_or_else(|e| panic!("{name}: {e}"));
    let pairing = pair_next_round(&t, &DutchOptions::for_tournament(&t))
        .unwrap_or_else(|e| panic!("{name}: {e}"));
    assert_eq!(format_pairing(&pairing), expected, "{name}");
}

#[test]
fn dutch_cases() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/dutch");
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .expect("data dir")
        .map(|e| e.expect("entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "txt"))
        .collect();
    files.sort();
    assert!(files.len() >= 5);
    for f in files {
        let name = f.file_name().expect("name").to_string_lossy().to_string();
        let text = std::fs::read_to_string(&f).expect("read");
        check(&name, &text);
    }
}
