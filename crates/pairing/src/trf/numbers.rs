//! Numbers and points as TRF lines write them.

use super::error::{MAX_TENTHS, TrfError};

pub(super) fn number(line: usize, field: &'static str, text: &str) -> Result<u32, TrfError> {
    text.trim().parse().map_err(|_| TrfError::BadNumber {
        line,
        field,
        text: text.trim().to_string(),
    })
}

/// Reads `1.0`, `0.5`, `1`, `2.5`, `0.3` as tenths of a point, at most [`MAX_TENTHS`].
pub(super) fn tenths(line: usize, field: &'static str, text: &str) -> Result<u32, TrfError> {
    let t = text.trim();
    let bad = || TrfError::BadNumber {
        line,
        field,
        text: t.to_string(),
    };
    let (whole, frac) = t.split_once('.').unwrap_or((t, "0"));
    if whole.is_empty() || !whole.bytes().all(|b| b.is_ascii_digit()) {
        return Err(bad());
    }
    let tenth = match frac.trim_end_matches('0').as_bytes() {
        [] => 0,
        [d] if d.is_ascii_digit() => u32::from(d - b'0'),
        _ => return Err(bad()),
    };
    let whole: u32 = whole.parse().map_err(|_| TrfError::TooManyPoints {
        line,
        field,
        text: t.to_string(),
    })?;
    match whole
        .checked_mul(10)
        .and_then(|tenths| tenths.checked_add(tenth))
    {
        Some(tenths) if tenths <= MAX_TENTHS => Ok(tenths),
        _ => Err(TrfError::TooManyPoints {
            line,
            field,
            text: t.to_string(),
        }),
    }
}

/// A points column (`dd.d`, or wider for a score of 100 points and more) in tenths.
pub(super) fn points_column(line: usize, text: &str) -> Result<u32, TrfError> {
    let bad = || TrfError::BadNumber {
        line,
        field: "points",
        text: text.to_string(),
    };
    let (whole, frac) = text.split_once('.').unwrap_or((text, "0"));
    let tenth = match frac.trim_end_matches('0').as_bytes() {
        [] => 0,
        [d] if d.is_ascii_digit() => u32::from(d - b'0'),
        _ => return Err(bad()),
    };
    if whole.is_empty() || !whole.bytes().all(|b| b.is_ascii_digit()) {
        return Err(bad());
    }
    whole
        .parse::<u32>()
        .ok()
        .and_then(|w| w.checked_mul(10))
        .and_then(|t| t.checked_add(tenth))
        .ok_or_else(bad)
}
