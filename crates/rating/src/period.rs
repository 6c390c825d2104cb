//! Calendar maths for rating periods: unix seconds to a UTC month index, integers only.

/// Seconds in a UTC day (unix time has no leap seconds).
const SECONDS_PER_DAY: i64 = 86_400;

/// The FIDE rating period of a game played at `at` (unix seconds): the calendar month in
/// UTC, numbered from January 1970 (`0`); December 1969 is `-1`.
///
/// Pure integer maths, defined for every `i64`, so that a replay never depends on a clock
/// or a time-zone database.
pub fn month_index(at: i64) -> i64 {
    let (year, month, _day) = civil_from_days(at.div_euclid(SECONDS_PER_DAY));
    (year - 1970) * 12 + i64::from(month) - 1
}

/// The proleptic Gregorian date `(year, month 1..=12, day 1..=31)` of a day count since
/// 1970-01-01. Howard Hinnant's `civil_from_days`, which works in 400-year eras so that
/// every step is exact integer arithmetic.
pub fn civil_from_days(days: i64) -> (i64, u32, u32) {
    let z = days + 719_468; // days since 0000-03-01
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097); // day of era, 0..=146_096
    let yoe = (doe - doe / 1_460 + doe / 36_524 - doe / 146_096) / 365; // 0..=399
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100); // day of the year from March, 0..=365
    let mp = (5 * doy + 2) / 153; // month from March, 0..=11
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    // `day` is in 1..=31 and `month` in 1..=12 by construction.
    (year, month as u32, day as u32)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn known_dates() {
        let cases: &[(i64, (i64, u32, u32), i64)] = &[
            (0, (1970, 1, 1), 0),
            (-1, (1969, 12, 31), -1),
            (951_782_400, (2000, 2, 29), 361), // leap day of a 400-year leap year
            (1_709_251_199, (2024, 2, 29), 649), // last second of February 2024
            (1_709_251_200, (2024, 3, 1), 650), // FIDE regulations in force
            (4_107_542_400, (2100, 3, 1), 1562), // 2100 is not a leap year
        ];
        for &(at, date, month) in cases {
            assert_eq!(
                civil_from_days(at.div_euclid(SECONDS_PER_DAY)),
                date,
                "{at}"
            );
            assert_eq!(month_index(at), month, "{at}");
        }
    }

    #[test]
    fn extremes_do_not_overflow() {
        assert!(month_index(i64::MIN) < month_index(i64::MAX));
    }

    #[test]
    fn months_are_contiguous_day_by_day() {
        // Every day from 1900 to 2200 is in the same month as the day before or the next one.
        let mut previous = month_index(-2_208_988_800);
        for day in -25_567..84_000_i64 {
            let month = month_index(day * SECONDS_PER_DAY);
            assert!(month == previous || month == previous + 1, "day {day}");
            previous = month;
        }
    }
}
