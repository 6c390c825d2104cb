//! Decoding a TRF file's bytes: the encoding named, or detected from a byte-order mark and the
//! bytes themselves.

use std::borrow::Cow;

use super::encoding::Encoding;
use super::error::TrfError;

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
}
