//! Player names as people write them: Müller, Nguyễn Văn An, 李明, Zoë_Ünal. Any script; the
//! name is trimmed and put in Unicode NFC (so that a name typed with combining accents is the
//! same name as one typed with precomposed letters), and must be 1 to [`MAX_NAME_CHARS`]
//! characters. Refused, because they are invisible or change how the text around them is shown
//! (a name is printed in tables, TRF files and web pages): control characters, format
//! characters (bidi overrides and isolates, zero-width spaces and joiners, the byte-order
//! mark), line and paragraph separators, spaces other than the plain space, private-use and
//! unassigned code points.

use unicode_normalization::UnicodeNormalization;
use unicode_properties::{GeneralCategory, UnicodeGeneralCategory};

/// The most characters (Unicode scalar values, after NFC) a player name may have.
pub const MAX_NAME_CHARS: usize = 40;

/// The most characters a tournament's (or a ladder's) name may have.
pub const MAX_TITLE_CHARS: usize = 100;

/// The most characters of a refused name quoted in a message (README, "Errors").
const QUOTED_CHARS: usize = 64;

/// Why a name was refused; `what` names the field ("player name", "tournament name").
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum NameError {
    #[error("a {what} cannot be empty")]
    Empty { what: &'static str },
    #[error("{what} {shown} has {chars} characters; at most {max}")]
    TooLong {
        what: &'static str,
        shown: String,
        chars: usize,
        max: usize,
    },
    #[error("{what} {shown} contains {kind} U+{code:04X} (character {at})")]
    Refused {
        what: &'static str,
        shown: String,
        kind: &'static str,
        code: u32,
        /// 1-based position in the trimmed name.
        at: usize,
    },
}

/// The name as it is stored and shown: trimmed, in NFC; or why it is refused.
pub fn player_name(raw: &str) -> Result<String, NameError> {
    checked_name(raw, "player name", MAX_NAME_CHARS)
}

/// A tournament's (or any other title's) name, by the same rule as a player's: trimmed, NFC,
/// nothing invisible or direction-changing, no line breaks (a name is a line of a TRF file).
pub fn tournament_name(raw: &str) -> Result<String, NameError> {
    checked_name(raw, "tournament name", MAX_TITLE_CHARS)
}

/// The one rule for every name field: `raw` trimmed and in NFC, 1 to `max` characters, none of
/// them refused ([`refused`]), and not starting with a combining mark (it would join whatever
/// is printed before the name).
pub fn checked_name(raw: &str, what: &'static str, max: usize) -> Result<String, NameError> {
    // Runs of spaces are one space: `Zoë  Ünal` is `Zoë Ünal`, not a second name like it.
    let name: String = raw
        .split(' ')
        .filter(|w| !w.is_empty())
        .collect::<Vec<_>>()
        .join(" ")
        .trim()
        .nfc()
        .collect();
    let chars = name.chars().count();
    if chars == 0 {
        return Err(NameError::Empty { what });
    }
    if chars > max {
        return Err(NameError::TooLong {
            what,
            shown: shown(&name),
            chars,
            max,
        });
    }
    for (i, c) in name.chars().enumerate() {
        let kind = refused(c).or_else(|| {
            (i == 0 && is_mark(c)).then_some("a combining mark with nothing to combine with:")
        });
        if let Some(kind) = kind {
            return Err(NameError::Refused {
                what,
                shown: shown(&name),
                kind,
                code: u32::from(c),
                at: i + 1,
            });
        }
    }
    Ok(name)
}

/// The key names are put in alphabetical order by (the C.04.2 order of equal ratings): letters
/// without their accents and case, so that `Åsa`, `adam` and `Zoë` sort as a person expects
/// (by bytes, capitals and accented letters come apart). Ties are for the caller to break.
#[must_use]
pub fn collation_key(name: &str) -> String {
    name.nfd()
        .filter(|c| !is_mark(*c))
        .flat_map(char::to_lowercase)
        .collect()
}

/// The key of how a name looks: two names with the same key are taken for one another and
/// cannot both be registered. The name in NFKC (`ﬁ` is `fi`, full-width letters are letters),
/// fully case-folded (`ß` is `ss`), without accents (`Zoe` looks like `Zoë`), runs of spaces as
/// one, then mapped to its confusable skeleton (Unicode TS #39: a Cyrillic `а` is a Latin `a`,
/// `rn` is `m`, `1` is `l`).
#[must_use]
pub fn look_alike_key(name: &str) -> String {
    let folded: String = name
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
        .nfkc()
        .flat_map(char::to_lowercase)
        .flat_map(|c| match c {
            'ß' => "ss".chars().collect::<Vec<_>>(),
            'ς' => vec!['σ'],
            'ſ' => vec!['s'],
            c => vec![c],
        })
        .collect();
    let skeleton: String = unicode_security::confusable_detection::skeleton(&folded).collect();
    // The skeleton again without accents and case: mapping may bring back capitals or marks.
    skeleton
        .nfd()
        .filter(|c| !is_mark(*c))
        .flat_map(char::to_lowercase)
        .collect()
}

fn is_mark(c: char) -> bool {
    matches!(
        c.general_category(),
        GeneralCategory::NonspacingMark
            | GeneralCategory::SpacingMark
            | GeneralCategory::EnclosingMark
    )
}

/// What kind of character `c` is, if a name may not hold it.
fn refused(c: char) -> Option<&'static str> {
    if invisible(c) {
        return Some("the invisible character");
    }
    match c.general_category() {
        GeneralCategory::Control => Some("the control character"),
        GeneralCategory::Format => Some(
            if matches!(c, '\u{202A}'..='\u{202E}' | '\u{2066}'..='\u{2069}') {
                "the bidirectional control"
            } else {
                "the invisible format character"
            },
        ),
        GeneralCategory::LineSeparator | GeneralCategory::ParagraphSeparator => {
            Some("the line separator")
        }
        GeneralCategory::SpaceSeparator if c != ' ' => {
            Some("the space character (only plain spaces)")
        }
        GeneralCategory::PrivateUse => Some("the private-use character"),
        GeneralCategory::Unassigned | GeneralCategory::Surrogate => {
            Some("the unassigned code point")
        }
        _ => None,
    }
}

/// Characters that show nothing though they are letters, marks or symbols: Unicode's
/// Default_Ignorable_Code_Point outside the format characters (Hangul fillers, the combining
/// grapheme joiner, variation selectors, Khmer inherent vowels, Mongolian free variation
/// selectors), and the blank braille pattern.
fn invisible(c: char) -> bool {
    matches!(
        c,
        '\u{034F}'
            | '\u{115F}'
            | '\u{1160}'
            | '\u{17B4}'
            | '\u{17B5}'
            | '\u{180B}'..='\u{180F}'
            | '\u{2800}'
            | '\u{3164}'
            | '\u{FE00}'..='\u{FE0F}'
            | '\u{FFA0}'
            | '\u{E0100}'..='\u{E01EF}'
    )
}

/// The name quoted for a message, cut at [`QUOTED_CHARS`] characters (a refused name may be long).
fn shown(name: &str) -> String {
    let mut s: String = name.chars().take(QUOTED_CHARS).collect();
    if s.len() < name.len() {
        s.push('…');
    }
    format!("{s:?}")
}

#[cfg(test)]
mod tests {
    use super::*;

    /// (as typed, as stored) for names that are accepted.
    const ACCEPTED: &[(&str, &str)] = &[
        ("Zoë_Ünal", "Zoë_Ünal"),
        ("Müller", "Müller"),
        // The same name typed with a combining diaeresis is stored precomposed.
        ("Mu\u{308}ller", "Müller"),
        ("Nguyễn Văn An", "Nguyễn Văn An"),
        ("李明", "李明"),
        ("  Ольга Петрова \t", "Ольга Петрова"),
        ("Zoë   Ünal", "Zoë Ünal"),
        ("عبد الله", "عبد الله"),
        ("Søren Ågård-Østergaard", "Søren Ågård-Østergaard"),
        ("O'Brien, Seán", "O'Brien, Seán"),
        ("bot-42.v2", "bot-42.v2"),
        ("a", "a"),
        // 40 characters, the most.
        (
            "ąąąąąąąąąąąąąąąąąąąąąąąąąąąąąąąąąąąąąąąą",
            "ąąąąąąąąąąąąąąąąąąąąąąąąąąąąąąąąąąąąąąąą",
        ),
    ];

    /// (as typed, the start of the refusal).
    const REFUSED: &[(&str, &str)] = &[
        ("", "a player name cannot be empty"),
        ("   ", "a player name cannot be empty"),
        (
            "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa",
            "player name \"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\" has 41 characters",
        ),
        (
            "Ann\u{202E}nimda",
            "player name \"Ann\\u{202e}nimda\" contains the bidirectional control U+202E (character 4)",
        ),
        (
            "Ann\u{2067}x\u{2069}",
            "player name \"Ann\\u{2067}x\\u{2069}\" contains the bidirectional control U+2067",
        ),
        (
            "Ad\u{200B}min",
            "player name \"Ad\\u{200b}min\" contains the invisible format character U+200B",
        ),
        (
            "Ad\u{200D}min",
            "player name \"Ad\\u{200d}min\" contains the invisible format character U+200D",
        ),
        (
            "\u{FEFF}Bob",
            "player name \"\\u{feff}Bob\" contains the invisible format character U+FEFF",
        ),
        (
            "Bo\u{AD}b",
            "player name \"Bo\\u{ad}b\" contains the invisible format character U+00AD",
        ),
        (
            "Bob\nAlice",
            "player name \"Bob\\nAlice\" contains the control character U+000A",
        ),
        (
            "Bob\u{7}",
            "player name \"Bob\\u{7}\" contains the control character U+0007",
        ),
        (
            "Bob\u{2028}x",
            "player name \"Bob\\u{2028}x\" contains the line separator U+2028",
        ),
        (
            "Bob\u{A0}Smith",
            "player name \"Bob\\u{a0}Smith\" contains the space character (only plain spaces) U+00A0",
        ),
        (
            "Bob\u{E000}",
            "player name \"Bob\\u{e000}\" contains the private-use character U+E000",
        ),
        (
            "Bob\u{378}",
            "player name \"Bob\\u{378}\" contains the unassigned code point U+0378",
        ),
        // Invisible though not format characters: fillers, blanks, joiners, selectors.
        (
            "Ad\u{3164}min",
            "player name \"Ad\u{3164}min\" contains the invisible character U+3164",
        ),
        (
            "\u{115F}Bob",
            "player name \"\u{115F}Bob\" contains the invisible character U+115F",
        ),
        (
            "Bo\u{FFA0}b",
            "player name \"Bo\u{FFA0}b\" contains the invisible character U+FFA0",
        ),
        (
            "Bo\u{2800}b",
            "player name \"Bo\u{2800}b\" contains the invisible character U+2800",
        ),
        (
            "Bo\u{34F}b",
            "player name \"Bo\\u{34f}b\" contains the invisible character U+034F",
        ),
        (
            "Bob\u{FE0F}",
            "player name \"Bob\\u{fe0f}\" contains the invisible character U+FE0F",
        ),
        (
            "Bo\u{17B4}b",
            "player name \"Bo\\u{17b4}b\" contains the invisible character U+17B4",
        ),
        (
            "\u{301}",
            "player name \"\\u{301}\" contains a combining mark",
        ),
    ];

    #[test]
    fn names_as_people_write_them_are_accepted_as_written() {
        for &(typed, stored) in ACCEPTED {
            assert_eq!(player_name(typed).as_deref(), Ok(stored), "{typed:?}");
        }
    }

    #[test]
    fn invisible_and_direction_changing_characters_are_refused_with_what_they_are() {
        for &(typed, message) in REFUSED {
            let error = player_name(typed).expect_err(typed).to_string();
            assert!(error.starts_with(message), "{typed:?}: {error}");
        }
    }

    #[test]
    fn names_sort_by_their_letters_not_their_bytes() {
        let mut names = vec!["Zoë", "adam", "Åsa", "Émile", "bob", "Ärger"];
        names.sort_by_key(|n| collation_key(n));
        assert_eq!(names, ["adam", "Ärger", "Åsa", "bob", "Émile", "Zoë"]);
    }

    #[test]
    fn a_long_refused_name_is_cut_in_the_message() {
        let long = "x".repeat(10_000);
        let error = player_name(&long).expect_err("too long").to_string();
        assert!(error.len() < 200 && error.contains('…'), "{error}");
    }

    #[test]
    fn names_that_look_the_same_have_one_key() {
        for (a, b) in [
            ("Admin", "\u{410}dmin"),                     // Cyrillic capital A
            ("paypal", "\u{440}\u{430}y\u{440}\u{430}l"), // Cyrillic р, а
            ("Zoë Ünal", "zoe  unal"),
            ("Straße", "STRASSE"),
            ("Arnold", "Amold"),
            ("Bill", "Bi11"),
            ("ﬁsh", "fish"),
        ] {
            assert_eq!(look_alike_key(a), look_alike_key(b), "{a} / {b}");
        }
        for (a, b) in [("Anna", "Hanna"), ("Zoë", "Zoey"), ("Олег", "Oleg")] {
            assert_ne!(look_alike_key(a), look_alike_key(b), "{a} / {b}");
        }
    }
}
