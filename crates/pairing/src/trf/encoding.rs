//! A TRF file's bytes as text: UTF-8 with or without a byte-order mark, UTF-16 with one, or a
//! Western single-byte code page (Windows-1252, its subset Latin-1), which Swiss-Manager and
//! older programs write for names with accents. The format itself is ASCII; only names, places
//! and the like carry other letters.

use std::borrow::Cow;
use std::fmt;
use std::str::FromStr;

use super::TrfError;

/// A character encoding a TRF file may be in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Encoding {
    Utf8,
    /// UTF-16, little-endian (with or without its byte-order mark).
    Utf16Le,
    /// UTF-16, big-endian.
    Utf16Be,
    /// ISO-8859-1: every byte is the character of the same number.
    Latin1,
    /// Windows-1252: Latin-1 with printable characters (`€ ‚ „ … Š Œ Ž ‘ ’ “ ” – —` …) at
    /// 0x80–0x9F.
    Windows1252,
}

impl Encoding {
    /// The names accepted by [`FromStr`], for messages.
    pub const NAMES: &'static str = "utf-8, utf-16le, utf-16be, latin-1, windows-1252";
}

impl fmt::Display for Encoding {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Encoding::Utf8 => "UTF-8",
            Encoding::Utf16Le => "UTF-16LE",
            Encoding::Utf16Be => "UTF-16BE",
            Encoding::Latin1 => "Latin-1",
            Encoding::Windows1252 => "Windows-1252",
        })
    }
}

/// An encoding name that is not one of [`Encoding::NAMES`].
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("unknown encoding {0:?}: expected one of {names}", names = Encoding::NAMES)]
pub struct UnknownEncoding(pub String);

impl FromStr for Encoding {
    type Err = UnknownEncoding;

    /// Case and `-`/`_` do not matter: `UTF8`, `latin1`, `ISO-8859-1`, `cp1252`, `ansi`.
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let key: String = s
            .chars()
            .filter(|c| !matches!(c, '-' | '_' | ' '))
            .flat_map(char::to_lowercase)
            .collect();
        match key.as_str() {
            "utf8" => Ok(Encoding::Utf8),
            "utf16" | "utf16le" => Ok(Encoding::Utf16Le),
            "utf16be" => Ok(Encoding::Utf16Be),
            "latin1" | "iso88591" | "l1" => Ok(Encoding::Latin1),
            "windows1252" | "cp1252" | "win1252" | "ansi" => Ok(Encoding::Windows1252),
            _ => Err(UnknownEncoding(s.to_string())),
        }
    }
}

/// The text of `bytes` and the encoding it was read in: `named` if given, else by its
/// byte-order mark, else UTF-8 when the bytes are valid UTF-8, else Windows-1252 (every byte
/// sequence is Windows-1252 text, and a file that is not UTF-8 is most often that).
pub fn decode(bytes: &[u8], named: Option<Encoding>) -> Result<(String, Encoding), TrfError> {
    decode_borrowed(bytes, named).map(|(text, used)| (text.into_owned(), used))
}

/// [`decode`] without copying UTF-8 text: the reader holds the file once, not twice.
pub(super) fn decode_borrowed(
    bytes: &[u8],
    named: Option<Encoding>,
) -> Result<(Cow<'_, str>, Encoding), TrfError> {
    let encoding = named.unwrap_or_else(|| detect(bytes));
    let text = match encoding {
        Encoding::Utf8 => {
            let body = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes);
            match std::str::from_utf8(body) {
                Ok(s) => Cow::Borrowed(s),
                Err(e) => {
                    let at = e.valid_up_to();
                    return Err(TrfError::NotInEncoding {
                        encoding,
                        line: line_of(body[..at].iter().map(|&b| u32::from(b))),
                        byte: body[at],
                    });
                }
            }
        }
        Encoding::Utf16Le | Encoding::Utf16Be => Cow::Owned(utf16(bytes, encoding)?),
        Encoding::Latin1 => Cow::Owned(bytes.iter().map(|&b| char::from(b)).collect()),
        Encoding::Windows1252 => Cow::Owned(bytes.iter().map(|&b| windows_1252(b)).collect()),
    };
    Ok((text, encoding))
}

/// The 1-based line that the character after `before` (character codes) is on, lines ending
/// in CR LF, LF or CR as the reader splits them: the line numbers of an editor, also in a
/// file with old Mac line ends (CR alone, as bbpPairings writes).
fn line_of(before: impl Iterator<Item = u32>) -> usize {
    const CR: u32 = b'\r' as u32;
    const LF: u32 = b'\n' as u32;
    let mut line = 1;
    let mut after_cr = false;
    for c in before {
        match c {
            LF if after_cr => {}
            CR | LF => line += 1,
            _ => {}
        }
        after_cr = c == CR;
    }
    line
}

fn detect(bytes: &[u8]) -> Encoding {
    if bytes.starts_with(b"\xFF\xFE") {
        Encoding::Utf16Le
    } else if bytes.starts_with(b"\xFE\xFF") {
        Encoding::Utf16Be
    } else if std::str::from_utf8(bytes).is_ok() {
        Encoding::Utf8
    } else {
        Encoding::Windows1252
    }
}

fn utf16(bytes: &[u8], encoding: Encoding) -> Result<String, TrfError> {
    let units = bytes.chunks(2).map(|pair| match (pair, encoding) {
        ([a, b], Encoding::Utf16Be) => u16::from_be_bytes([*a, *b]),
        ([a, b], _) => u16::from_le_bytes([*a, *b]),
        ([a], _) => u16::from(*a),
        _ => 0,
    });
    let mut text = String::with_capacity(bytes.len() / 2);
    for unit in char::decode_utf16(units) {
        match unit {
            Ok(c) => text.push(c),
            Err(e) => {
                return Err(TrfError::NotInEncoding {
                    encoding,
                    line: line_of(text.chars().map(u32::from)),
                    byte: (e.unpaired_surrogate() >> 8) as u8,
                });
            }
        }
    }
    if bytes.len() % 2 == 1 {
        return Err(TrfError::NotInEncoding {
            encoding,
            line: line_of(text.chars().map(u32::from)),
            byte: bytes[bytes.len() - 1],
        });
    }
    Ok(text.strip_prefix('\u{FEFF}').unwrap_or(&text).to_string())
}

/// A Windows-1252 byte as a character (the five bytes it leaves undefined read as the Latin-1
/// control characters of the same number, as web browsers read them).
fn windows_1252(b: u8) -> char {
    const HIGH: [char; 32] = [
        '€', '\u{81}', '‚', 'ƒ', '„', '…', '†', '‡', 'ˆ', '‰', 'Š', '‹', 'Œ', '\u{8D}', 'Ž',
        '\u{8F}', '\u{90}', '‘', '’', '“', '”', '•', '–', '—', '˜', '™', 'š', '›', 'œ', '\u{9D}',
        'ž', 'Ÿ',
    ];
    match b {
        0x80..=0x9F => HIGH[usize::from(b - 0x80)],
        _ => char::from(b),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn files_are_read_in_the_encoding_they_are_in() {
        // (bytes, encoding named or none, text, encoding used)
        let cases: &[(&[u8], Option<Encoding>, &str, Encoding)] = &[
            (b"M\xC3\xBCller", None, "Müller", Encoding::Utf8),
            (b"\xEF\xBB\xBFM\xC3\xBCller", None, "Müller", Encoding::Utf8),
            (b"M\xFCller", None, "Müller", Encoding::Windows1252),
            (
                b"\x8Aimon \x96 \xC9mile",
                None,
                "Šimon – Émile",
                Encoding::Windows1252,
            ),
            (
                b"M\xFCller",
                Some(Encoding::Latin1),
                "Müller",
                Encoding::Latin1,
            ),
            (b"\x80", Some(Encoding::Latin1), "\u{80}", Encoding::Latin1),
            (
                b"\x80",
                Some(Encoding::Windows1252),
                "€",
                Encoding::Windows1252,
            ),
            (b"\xFF\xFEM\x00\xFC\x00", None, "Mü", Encoding::Utf16Le),
            (b"\xFE\xFF\x00M\x00\xFC", None, "Mü", Encoding::Utf16Be),
            (
                b"M\x00\xFC\x00",
                Some(Encoding::Utf16Le),
                "Mü",
                Encoding::Utf16Le,
            ),
            // UTF-8 stays UTF-8 even where every byte is also Windows-1252.
            ("李明".as_bytes(), None, "李明", Encoding::Utf8),
        ];
        for &(bytes, named, text, used) in cases {
            assert_eq!(
                decode(bytes, named),
                Ok((text.to_string(), used)),
                "{bytes:?}"
            );
        }
    }

    #[test]
    fn bytes_that_are_not_in_the_named_encoding_are_refused_with_their_line() {
        assert_eq!(
            decode(b"012 x\n001 M\xFCller", Some(Encoding::Utf8)),
            Err(TrfError::NotInEncoding {
                encoding: Encoding::Utf8,
                line: 2,
                byte: 0xFC
            })
        );
        assert!(decode(b"\xFF\xFEM", None).is_err());
    }

    #[test]
    fn encoding_names_are_read_as_people_write_them() {
        for (name, e) in [
            ("UTF-8", Encoding::Utf8),
            ("utf8", Encoding::Utf8),
            ("latin1", Encoding::Latin1),
            ("ISO-8859-1", Encoding::Latin1),
            ("cp1252", Encoding::Windows1252),
            ("Windows-1252", Encoding::Windows1252),
            ("utf-16", Encoding::Utf16Le),
        ] {
            assert_eq!(name.parse::<Encoding>(), Ok(e), "{name}");
        }
        assert!("ebcdic".parse::<Encoding>().is_err());
    }
}
