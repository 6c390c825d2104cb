//! A tournament's details (place, dates, arbiters, rules): what its organiser says of it,
//! checked once at the edge, stored as one JSON text, sent with its settings and written to its
//! TRF header (`022`-`132`), from which an import reads them.

use hanniball_pairing::TournamentInfo;
use hanniball_proto::scheduler::v1 as pb;
use serde::{Deserialize, Serialize};

use crate::error::ServiceError;

/// Most deputy arbiters (TRF `112` lines).
pub const MAX_DEPUTIES: usize = 10;
/// Most round dates (TRF `132`): a TRF file holds at most 99 rounds.
pub const MAX_ROUND_DATES: usize = 99;
/// Most bytes of any one text before it is looked at (a flood is refused unread).
const MAX_BYTES: usize = hanniball_svc_kit::limits::TEXT;

/// A tournament's details, every text one line (trimmed, NFC, nothing invisible, control or
/// direction-changing: a TRF line is never broken by it); empty: not said. Dates are ISO
/// (`yyyy-mm-dd`), real dates, the end not before the start.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct Details {
    pub place: String,
    /// Three upper-case ASCII letters, or empty.
    pub federation: String,
    pub start_date: String,
    pub end_date: String,
    pub organiser: String,
    pub chief_arbiter: String,
    /// None of them empty.
    pub deputies: Vec<String>,
    pub time_control: String,
    pub rating_type: String,
    pub rules: String,
    /// Round 1 first; an empty one: not said; never an empty one last.
    pub round_dates: Vec<String>,
    pub note: String,
}

/// A one-line text field: `value` trimmed and in NFC, or why it is refused (naming the field,
/// its TRF line if any, and the fix).
fn line(field: &'static str, value: &str, max: usize) -> Result<String, ServiceError> {
    if value.trim().is_empty() {
        return Ok(String::new());
    }
    if value.len() > MAX_BYTES {
        return Err(ServiceError::InvalidArgument(format!(
            "details.{field} is {} bytes long; the limit is {max} characters",
            value.len()
        )));
    }
    hanniball_names::checked_name(value, field, max).map_err(|e| {
        ServiceError::InvalidArgument(format!(
            "details.{field}: {e}: write it on one line, without control, invisible or \
             direction-changing characters, in at most {max} characters"
        ))
    })
}

/// Whether `y-m-d` is a day of the Gregorian calendar.
fn real_date(y: u32, m: u32, d: u32) -> bool {
    let leap = (y.is_multiple_of(4) && !y.is_multiple_of(100)) || y.is_multiple_of(400);
    let days = match m {
        1 | 3 | 5 | 7 | 8 | 10 | 12 => 31,
        4 | 6 | 9 | 11 => 30,
        2 if leap => 29,
        2 => 28,
        _ => return false,
    };
    (1..=days).contains(&d)
}

/// `value` read as a date in any of the ways TRF files write them (`2026/03/01`, `2026-03-01`,
/// `2026.03.01`, `01.03.2026`, `01/03/2026`, and `26/03/01` as TRF-16's `132` does), or `None`.
fn parse_date(value: &str) -> Option<(u32, u32, u32)> {
    let parts: Vec<&str> = value.trim().split(['-', '/', '.']).collect();
    let [a, b, c] = parts.as_slice() else {
        return None;
    };
    let digits = |s: &str| s.bytes().all(|b| b.is_ascii_digit()) && !s.is_empty();
    if !parts.iter().all(|p| digits(p)) {
        return None;
    }
    let n = |s: &str| s.parse::<u32>().ok();
    let (y, m, d) = match (a.len(), b.len(), c.len()) {
        (4, 1..=2, 1..=2) => (n(a)?, n(b)?, n(c)?),
        (1..=2, 1..=2, 4) => (n(c)?, n(b)?, n(a)?),
        (2, 2, 2) => (2000 + n(a)?, n(b)?, n(c)?),
        _ => return None,
    };
    real_date(y, m, d).then_some((y, m, d))
}

/// An ISO date field: `yyyy-mm-dd`, a real date (or empty).
fn date(field: &'static str, value: &str) -> Result<String, ServiceError> {
    let value = value.trim();
    if value.is_empty() {
        return Ok(String::new());
    }
    let iso = value.len() == 10 && value.as_bytes()[4] == b'-' && value.as_bytes()[7] == b'-';
    match parse_date(value).filter(|_| iso) {
        Some((y, m, d)) => Ok(format!("{y:04}-{m:02}-{d:02}")),
        None => Err(ServiceError::InvalidArgument(format!(
            "details.{field} {} is not a date: write it as yyyy-mm-dd (2026-03-01), a day the \
             calendar has",
            hanniball_svc_kit::limits::quote(value)
        ))),
    }
}

impl Details {
    /// The details sent, checked: every field's refusal names it and the fix.
    pub fn check(sent: &pb::TournamentDetails) -> Result<Details, ServiceError> {
        let federation = sent.federation.trim().to_ascii_uppercase();
        let letters = federation.len() == 3 && federation.bytes().all(|b| b.is_ascii_uppercase());
        if !federation.is_empty() && !letters {
            return Err(ServiceError::InvalidArgument(format!(
                "details.federation {} is not a federation: write its three letters (FRA, GER, \
                 RUS) or leave it empty",
                hanniball_svc_kit::limits::quote(&sent.federation)
            )));
        }
        for (field, len, max) in [
            ("deputy_arbiters", sent.deputy_arbiters.len(), MAX_DEPUTIES),
            ("round_dates", sent.round_dates.len(), MAX_ROUND_DATES),
        ] {
            if len > max {
                return Err(ServiceError::InvalidArgument(format!(
                    "details.{field} has {len} items; the limit is {max}"
                )));
            }
        }
        let mut deputies = Vec::new();
        for deputy in &sent.deputy_arbiters {
            let deputy = line("deputy_arbiters", deputy, 100)?;
            if !deputy.is_empty() {
                deputies.push(deputy);
            }
        }
        let mut round_dates = sent
            .round_dates
            .iter()
            .map(|d| date("round_dates", d))
            .collect::<Result<Vec<_>, _>>()?;
        while round_dates.last().is_some_and(String::is_empty) {
            round_dates.pop();
        }
        let details = Details {
            place: line("place", &sent.place, 100)?,
            federation,
            start_date: date("start_date", &sent.start_date)?,
            end_date: date("end_date", &sent.end_date)?,
            organiser: line("organiser", &sent.organiser, 100)?,
            chief_arbiter: line("chief_arbiter", &sent.chief_arbiter, 100)?,
            deputies,
            time_control: line("time_control", &sent.time_control, 100)?,
            rating_type: line("rating_type", &sent.rating_type, 100)?,
            rules: line("rules", &sent.rules, 300)?,
            round_dates,
            note: line("note", &sent.note, 500)?,
        };
        // ISO dates compare as text.
        if !details.start_date.is_empty()
            && !details.end_date.is_empty()
            && details.end_date < details.start_date
        {
            return Err(ServiceError::InvalidArgument(format!(
                "details.end_date {} is before details.start_date {}: the end is the last day, \
                 on or after the first",
                details.end_date, details.start_date
            )));
        }
        Ok(details)
    }

    /// As sent.
    pub fn to_pb(&self) -> pb::TournamentDetails {
        pb::TournamentDetails {
            place: self.place.clone(),
            federation: self.federation.clone(),
            start_date: self.start_date.clone(),
            end_date: self.end_date.clone(),
            organiser: self.organiser.clone(),
            chief_arbiter: self.chief_arbiter.clone(),
            deputy_arbiters: self.deputies.clone(),
            time_control: self.time_control.clone(),
            rating_type: self.rating_type.clone(),
            rules: self.rules.clone(),
            round_dates: self.round_dates.clone(),
            note: self.note.clone(),
        }
    }

    /// As stored: JSON, or empty for no details.
    pub fn to_json(&self) -> String {
        if *self == Details::default() {
            return String::new();
        }
        serde_json::to_string(self).expect("strings and lists of strings serialise")
    }

    /// As stored by [`Details::to_json`] (empty: none). Only this crate writes the column, so
    /// a text it cannot read is no details rather than a tournament that cannot be shown.
    pub fn from_json(stored: &str) -> Details {
        if stored.is_empty() {
            return Details::default();
        }
        serde_json::from_str(stored).unwrap_or_else(|e| {
            tracing::error!(error = %e, "stored tournament details unreadable");
            Details::default()
        })
    }

    /// Into a TRF header: `022 032 042 052` (TRF-2026's `YYYY/MM/DD`), `062 072`, `102`, `112`,
    /// `122` (when given; else the caller's) and `132` (`YY/MM/DD` in the round columns).
    pub fn write_to(&self, info: &mut TournamentInfo) {
        let some = |s: &str| (!s.is_empty()).then(|| s.to_owned());
        info.city = some(&self.place);
        info.federation = some(&self.federation);
        info.start_date = some(&self.start_date.replace('-', "/"));
        info.end_date = some(&self.end_date.replace('-', "/"));
        info.chief_arbiter = some(&self.chief_arbiter);
        info.deputies = self.deputies.clone();
        if !self.time_control.is_empty() {
            info.time_control = Some(self.time_control.clone());
        }
        info.round_dates = self
            .round_dates
            .iter()
            .map(|d| d.get(2..).unwrap_or_default().replace('-', "/"))
            .collect();
        info.player_counts = true;
    }

    /// From a TRF file's header, checked as sent details are (a date in any form TRF files
    /// write, read as ISO); a refusal names the line.
    pub fn read_from(info: &TournamentInfo) -> Result<Details, ServiceError> {
        let text = |v: &Option<String>| v.clone().unwrap_or_default();
        let iso = |v: &str| match parse_date(v) {
            Some((y, m, d)) => format!("{y:04}-{m:02}-{d:02}"),
            None => v.to_owned(),
        };
        let sent = pb::TournamentDetails {
            place: text(&info.city),
            federation: text(&info.federation),
            start_date: iso(&text(&info.start_date)),
            end_date: iso(&text(&info.end_date)),
            chief_arbiter: text(&info.chief_arbiter),
            deputy_arbiters: info.deputies.clone(),
            time_control: text(&info.time_control),
            round_dates: info.round_dates.iter().map(|d| iso(d)).collect(),
            ..Default::default()
        };
        Details::check(&sent).map_err(|e| {
            ServiceError::InvalidArgument(format!(
                "the TRF file's header (lines 022 place, 032 federation, 042/052 dates, 102/112 \
                 arbiters, 122 time control, 132 round dates): {e}; correct the line in the \
                 file, or remove it"
            ))
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn full() -> pb::TournamentDetails {
        pb::TournamentDetails {
            place: "  Saint-Étienne ".to_owned(),
            federation: "fra".to_owned(),
            start_date: "2026-03-01".to_owned(),
            end_date: "2026-03-09".to_owned(),
            organiser: "Club <b>Échecs</b>".to_owned(),
            chief_arbiter: "Ivanova, Anna".to_owned(),
            deputy_arbiters: vec!["Dupont, Jean".to_owned(), " ".to_owned()],
            time_control: "90'+30''".to_owned(),
            rating_type: "FIDE Elo".to_owned(),
            rules: "FIDE Laws; C.04.3 Dutch".to_owned(),
            round_dates: vec!["2026-03-01".to_owned(), String::new(), String::new()],
            note: "Rest day on 5 March".to_owned(),
        }
    }

    #[test]
    fn details_are_trimmed_and_round_trip_through_json_and_trf() {
        let details = Details::check(&full()).expect("valid");
        assert_eq!(details.place, "Saint-Étienne");
        assert_eq!(details.federation, "FRA");
        assert_eq!(details.deputies, ["Dupont, Jean"]);
        assert_eq!(details.round_dates, ["2026-03-01"]);
        assert_eq!(Details::from_json(&details.to_json()), details);
        assert_eq!(Details::default().to_json(), "");
        assert_eq!(Details::check(&details.to_pb()).expect("again"), details);
        let mut info = TournamentInfo::default();
        details.write_to(&mut info);
        assert_eq!(info.start_date.as_deref(), Some("2026/03/01"));
        assert_eq!(info.round_dates, ["26/03/01"]);
        let back = Details::read_from(&info).expect("reads");
        assert_eq!(back.place, details.place);
        assert_eq!(back.start_date, details.start_date);
        assert_eq!(back.round_dates, details.round_dates);
        assert_eq!(back.deputies, details.deputies);
    }

    #[test]
    fn every_bad_field_is_refused_by_name() {
        type Change = fn(&mut pb::TournamentDetails);
        let cases: &[(&str, Change)] = &[
            ("details.federation", |d| d.federation = "FR".to_owned()),
            ("details.federation", |d| d.federation = "FR1".to_owned()),
            ("details.start_date", |d| {
                d.start_date = "2026-02-30".to_owned()
            }),
            ("details.start_date", |d| {
                d.start_date = "01.03.2026".to_owned()
            }),
            ("details.end_date", |d| d.end_date = "2026-02-28".to_owned()),
            ("details.round_dates", |d| {
                d.round_dates = vec!["soon".to_owned()]
            }),
            ("details.round_dates", |d| {
                d.round_dates = vec![String::new(); 100]
            }),
            ("details.deputy_arbiters", |d| {
                d.deputy_arbiters = vec!["x".to_owned(); 11]
            }),
            ("deputy_arbiters", |d| {
                d.deputy_arbiters = vec!["a\nb".to_owned()]
            }),
            ("place", |d| d.place = "Paris\r\n022 Lyon".to_owned()),
            ("chief_arbiter", |d| {
                d.chief_arbiter = "A\u{202E}B".to_owned()
            }),
            ("organiser", |d| d.organiser = "x".repeat(101)),
            ("rules", |d| d.rules = "r".repeat(301)),
            ("note", |d| d.note = "n".repeat(2_000)),
            ("time_control", |d| d.time_control = "90\u{200B}".to_owned()),
            ("rating_type", |d| d.rating_type = "\u{7}".to_owned()),
        ];
        for (field, change) in cases {
            let mut sent = full();
            change(&mut sent);
            let error = Details::check(&sent).expect_err(field).to_string();
            assert!(error.contains(field), "{field}: {error}");
        }
    }

    #[test]
    fn trf_dates_are_read_in_the_forms_files_write() {
        for (text, expected) in [
            ("2026/03/01", Some((2026, 3, 1))),
            ("2026-3-1", Some((2026, 3, 1))),
            ("01.03.2026", Some((2026, 3, 1))),
            ("26/03/01", Some((2026, 3, 1))),
            ("2024/02/29", Some((2024, 2, 29))),
            ("2023/02/29", None),
            ("2026/13/01", None),
            ("March 1", None),
            ("", None),
        ] {
            assert_eq!(parse_date(text), expected, "{text}");
        }
    }
}
