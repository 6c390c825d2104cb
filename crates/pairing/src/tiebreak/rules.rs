//! Which C.07 text applies, from which start date, and how unrated players count.

use std::fmt;
use std::str::FromStr;

use thiserror::Error;

/// Which text of C.07 applies.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum Rules {
    /// In force from 1 August 2024 to the end of February 2026.
    Fide2024,
    /// In force for events starting from 1 March 2026.
    #[default]
    Fide2026,
}

impl Rules {
    /// The rules for an event starting on `(year, month, day)`.
    pub fn for_start(date: (u32, u32, u32)) -> Rules {
        if date >= (2026, 3, 1) {
            Rules::Fide2026
        } else {
            Rules::Fide2024
        }
    }

    /// The year that names the text.
    pub fn year(self) -> u32 {
        match self {
            Rules::Fide2024 => 2024,
            Rules::Fide2026 => 2026,
        }
    }
}

/// A `--rules` value that is neither 2024 nor 2026.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[error("unknown tie-break rules {name:?}: expected 2024 or 2026")]
pub struct UnknownRules {
    pub name: String,
}

impl FromStr for Rules {
    type Err = UnknownRules;

    fn from_str(s: &str) -> Result<Rules, UnknownRules> {
        match s.trim() {
            "2024" => Ok(Rules::Fide2024),
            "2026" => Ok(Rules::Fide2026),
            _ => Err(UnknownRules { name: s.to_owned() }),
        }
    }
}

impl fmt::Display for Rules {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.year())
    }
}

/// A date as TRF files write it (`042`): `2026/03/01`, `2026-03-01`, `2026.03.01`, `01.03.2026`,
/// `01/03/2026`, optionally followed by a time; `(year, month, day)`.
pub fn parse_date(text: &str) -> Option<(u32, u32, u32)> {
    let date = text.split_whitespace().next()?;
    let parts: Vec<&str> = date.split(['/', '-', '.']).collect();
    let [a, b, c] = parts.as_slice() else {
        return None;
    };
    let number = |s: &str| s.parse::<u32>().ok();
    let (year, month, day) = if a.len() == 4 {
        (number(a)?, number(b)?, number(c)?)
    } else if c.len() == 4 {
        (number(c)?, number(b)?, number(a)?)
    } else {
        return None;
    };
    ((1..=12).contains(&month) && (1..=31).contains(&day)).then_some((year, month, day))
}

/// The civil date `(year, month, day)` of a day counted from 1 January 1970.
pub fn date_from_unix_days(days: u64) -> (u32, u32, u32) {
    // Days to civil date in the proleptic Gregorian calendar, by 400-year eras.
    let z = days + 719_468;
    let era = z / 146_097;
    let doe = z % 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + u64::from(month <= 2);
    let fit = |v: u64| u32::try_from(v).expect("a calendar field");
    (fit(year), fit(month), fit(day))
}

/// How unrated participants count in rating-based tie-breaks.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum Unrated {
    /// C.07: with any unrated participant, rating-based tie-breaks are dropped (no values).
    #[default]
    Drop,
    /// Regulations give every unrated participant this rating.
    Rating(u16),
    /// Regulations count rated opponents only.
    Ignore,
}

/// A `--unrated` value that is not `drop`, `ignore` or a rating.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[error("unknown unrated policy {name:?}: expected drop, ignore or a rating (0 to 4000)")]
pub struct UnknownUnrated {
    pub name: String,
}

impl FromStr for Unrated {
    type Err = UnknownUnrated;

    fn from_str(s: &str) -> Result<Unrated, UnknownUnrated> {
        match s.trim() {
            "drop" => Ok(Unrated::Drop),
            "ignore" => Ok(Unrated::Ignore),
            n => n
                .parse::<u16>()
                .ok()
                .filter(|r| *r <= 4000)
                .map(Unrated::Rating)
                .ok_or_else(|| UnknownUnrated { name: s.to_owned() }),
        }
    }
}

impl fmt::Display for Unrated {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Unrated::Drop => f.write_str("drop"),
            Unrated::Ignore => f.write_str("ignore"),
            Unrated::Rating(r) => write!(f, "{r}"),
        }
    }
}

/// How the tie-breaks are computed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct Options {
    pub rules: Rules,
    pub unrated: Unrated,
}
