//! A TRF file's bytes as text: UTF-8 with or without a byte-order mark, UTF-16 with one, or a
//! Western single-byte code page (Windows-1252, its subset Latin-1), which Swiss-Manager and
//! older programs write for names with accents. The format itself is ASCII; only names, places
//! and the like carry other letters.

use std::fmt;
use std::str::FromStr;

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

#[cfg(test)]
mod tests {
    use super::*;

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
