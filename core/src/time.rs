//! Times as text: the ISO 8601 form tools show (`2026-11-24T12:00:00.000Z`, as JavaScript's
//! `Date.prototype.toISOString`) and the forms they accept. The core has no clock; times
//! come from the host ([`crate::model::Millis`]).

use alloc::format;
use alloc::string::String;

use crate::model::Millis;

/// Milliseconds in a day.
pub const DAY_MS: Millis = 86_400_000;

/// Milliseconds in an hour.
pub const HOUR_MS: Millis = 3_600_000;

/// Days since 1970-01-01 → (year, month, day) in the proleptic Gregorian calendar
/// (H. Hinnant's `civil_from_days`).
fn civil(days: i64) -> (i64, u32, u32) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let month = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    let year = yoe + era * 400 + i64::from(month <= 2);
    (year, month, day)
}

/// (year, month, day) → days since 1970-01-01 (`days_from_civil`).
fn days(year: i64, month: u32, day: u32) -> i64 {
    let year = year - i64::from(month <= 2);
    let era = year.div_euclid(400);
    let yoe = year.rem_euclid(400);
    let m = i64::from(month);
    let doy = (153 * (if m > 2 { m - 3 } else { m + 9 }) + 2) / 5 + i64::from(day) - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

/// The time as ISO 8601 in UTC with milliseconds, as JavaScript's `toISOString` writes it.
pub fn iso(ms: Millis) -> String {
    let (year, month, day) = civil((ms / DAY_MS) as i64);
    let of_day = ms % DAY_MS;
    format!(
        "{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}.{:03}Z",
        of_day / HOUR_MS,
        of_day / 60_000 % 60,
        of_day / 1000 % 60,
        of_day % 1000
    )
}

/// A time as ISO 8601, or `None` when it is not known (`0`).
pub fn iso_known(ms: Millis) -> Option<String> {
    (ms != 0).then(|| iso(ms))
}

/// Reads a time: ISO 8601 as a date (`2026-11-24`, midnight UTC) or a date and time
/// (`2026-11-24T12:00`, seconds and fractions optional, `Z` or an offset like `+02:00`;
/// none means UTC). The error says what is wrong, for the user.
pub fn parse(text: &str) -> Result<Millis, String> {
    let bad = |why: &str| {
        format!(
            "{text:?} is not a time: {why} (expected ISO 8601, like 2026-11-24 or 2026-11-24T12:00:00Z)"
        )
    };
    let b = text.as_bytes();
    let num = |from: usize, len: usize| -> Result<u32, String> {
        let part = text.get(from..from + len).ok_or_else(|| bad("too short"))?;
        if !part.bytes().all(|c| c.is_ascii_digit()) {
            return Err(bad("a digit is missing"));
        }
        part.parse().map_err(|_| bad("a number is out of range"))
    };
    if b.len() < 10 || b[4] != b'-' || b[7] != b'-' {
        return Err(bad("no YYYY-MM-DD date"));
    }
    let (year, month, day) = (num(0, 4)?, num(5, 2)?, num(8, 2)?);
    let month_days = [
        31,
        28 + u32::from(is_leap(year)),
        31,
        30,
        31,
        30,
        31,
        31,
        30,
        31,
        30,
        31,
    ];
    if !(1..=12).contains(&month) || day == 0 || day > month_days[month as usize - 1] {
        return Err(bad("no such date"));
    }
    let mut ms = days(i64::from(year), month, day) * DAY_MS as i64;
    let mut at = 10;
    if b.len() > 10 {
        if !matches!(b[10], b'T' | b't' | b' ') || b.len() < 16 || b[13] != b':' {
            return Err(bad("no THH:MM time after the date"));
        }
        let (hour, minute) = (num(11, 2)?, num(14, 2)?);
        let mut second = 0;
        at = 16;
        if b.get(at) == Some(&b':') {
            second = num(17, 2)?;
            at = 19;
            if b.get(at) == Some(&b'.') {
                let digits = b[at + 1..]
                    .iter()
                    .take_while(|c| c.is_ascii_digit())
                    .count();
                if digits == 0 {
                    return Err(bad("no digits after the decimal point"));
                }
                let fraction = &text[at + 1..at + 1 + digits.min(3)];
                let scale = 10i64.pow(3 - fraction.len() as u32);
                ms += i64::from(num(at + 1, fraction.len())?) * scale;
                at += 1 + digits;
            }
        }
        if hour > 23 || minute > 59 || second > 59 {
            return Err(bad("no such time of day"));
        }
        ms += (i64::from(hour) * 3600 + i64::from(minute) * 60 + i64::from(second)) * 1000;
        match b.get(at) {
            None => {}
            Some(b'Z' | b'z') if b.len() == at + 1 => {}
            Some(&sign @ (b'+' | b'-')) if b.len() == at + 6 && b[at + 3] == b':' => {
                let offset = i64::from(num(at + 1, 2)? * 60 + num(at + 4, 2)?) * 60_000;
                ms -= if sign == b'+' { offset } else { -offset };
            }
            _ => return Err(bad("unexpected text after the time")),
        }
        at = b.len();
    }
    if at != b.len() {
        return Err(bad("unexpected text after the date"));
    }
    u64::try_from(ms).map_err(|_| bad("before 1970"))
}

fn is_leap(year: u32) -> bool {
    year.is_multiple_of(4) && (!year.is_multiple_of(100) || year.is_multiple_of(400))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn iso_is_javascripts_to_iso_string() {
        assert_eq!(iso(0), "1970-01-01T00:00:00.000Z");
        // new Date(1700000000123).toISOString()
        assert_eq!(iso(1_700_000_000_123), "2023-11-14T22:13:20.123Z");
        // new Date(Date.UTC(2024, 1, 29, 23, 59, 59, 999)).toISOString()
        assert_eq!(iso(1_709_251_199_999), "2024-02-29T23:59:59.999Z");
    }

    #[test]
    fn parse_reads_what_iso_writes_and_the_shorter_forms() {
        for ms in [0, 1_700_000_000_123, 1_709_251_199_999, 4_102_444_800_000] {
            assert_eq!(parse(&iso(ms)), Ok(ms));
        }
        assert_eq!(parse("2023-11-14"), Ok(1_699_920_000_000));
        assert_eq!(parse("2023-11-14T22:13"), Ok(1_700_000_000_000 - 20_000));
        assert_eq!(parse("2023-11-14T22:13:20Z"), Ok(1_700_000_000_000));
        assert_eq!(parse("2023-11-14T23:13:20+01:00"), Ok(1_700_000_000_000));
        assert_eq!(parse("2023-11-14T22:13:20.5Z"), Ok(1_700_000_000_500));
        assert_eq!(parse("2023-11-14T22:13:20.123456Z"), Ok(1_700_000_000_123));
    }

    #[test]
    fn parse_refuses_what_is_not_a_time_and_says_why() {
        for (text, why) in [
            ("yesterday", "no YYYY-MM-DD date"),
            ("2023-02-29", "no such date"),
            ("2023-13-01", "no such date"),
            ("2023-11-14T25:00", "no such time of day"),
            ("2023-11-14T22:13:20Zx", "unexpected text after the time"),
            ("2023-11-14x", "no THH:MM time after the date"),
            ("1969-12-31", "before 1970"),
            ("2023-1a-14", "a digit is missing"),
        ] {
            let err = parse(text).unwrap_err();
            assert!(err.contains(why), "{text}: {err}");
        }
    }
}
