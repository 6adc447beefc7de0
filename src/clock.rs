//! Calendar dates and UTC timestamps, without a date crate.
//!
//! Owns the two time formats in gate's files: [`Date`] (`YYYY-MM-DD`, e.g.
//! `brief.required_since`) and [`Timestamp`] (RFC 3339 in UTC with seconds
//! and a `Z`, `YYYY-MM-DDTHH:MM:SSZ`, e.g. a task's `created_at`). Both parse
//! strictly: exact widths, real calendar days (leap years included), no
//! offsets other than `Z`, no fractions, no leap seconds. Arithmetic uses
//! Howard Hinnant's `days_from_civil` / `civil_from_days` on the proleptic
//! Gregorian calendar.
//!
//! [`Timestamp::now`] is where gate reads the date and time it records or
//! judges with; the pure cores take them as an argument so tests can pin
//! them (`checks::build` reads today's date once for the brief check, and
//! the binding's input gathering reads the time once for a task being
//! started, whose receipts count only from then: `checks::binding::derive`).
//! Two places read `SystemTime` directly, needing more than whole seconds:
//! `gate verify`'s start (the receipt's `started_at`, via
//! [`Timestamp::from_system_time`], and the nanoseconds that order its
//! attempts) and the age of a task file's leftover temporaries.

use std::fmt;
use std::time::{SystemTime, UNIX_EPOCH};

const SECONDS_PER_DAY: i64 = 86_400;

/// A calendar day (proleptic Gregorian), written `YYYY-MM-DD`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Date {
    pub year: i32,
    /// 1..=12
    pub month: u8,
    /// 1..=31, valid for the month
    pub day: u8,
}

impl Date {
    /// A date if the day exists (`2000-02-29` does, `2100-02-29` does not).
    pub fn new(year: i32, month: u8, day: u8) -> Option<Date> {
        if !(1..=12).contains(&month) || day == 0 || day > days_in_month(year, month) {
            return None;
        }
        Some(Date { year, month, day })
    }

    /// Parse exactly `YYYY-MM-DD` (four-digit year, zero-padded month and day).
    pub fn parse(text: &str) -> Result<Date, String> {
        let b = text.as_bytes();
        let shaped = b.len() == 10
            && b[4] == b'-'
            && b[7] == b'-'
            && [0, 1, 2, 3, 5, 6, 8, 9]
                .iter()
                .all(|&i| b[i].is_ascii_digit());
        if !shaped {
            return Err(format!("{text:?} is not a date: use YYYY-MM-DD"));
        }
        let year = digits(&b[0..4]) as i32;
        let month = digits(&b[5..7]) as u8;
        let day = digits(&b[8..10]) as u8;
        if !(1..=12).contains(&month) {
            return Err(format!("{text:?} is not a date: there is no month {month}"));
        }
        let last = days_in_month(year, month);
        if day == 0 || day > last {
            return Err(format!(
                "{text:?} is not a date: {} {year} has {last} days",
                MONTHS[usize::from(month) - 1]
            ));
        }
        Ok(Date { year, month, day })
    }

    /// Days since 1970-01-01 (negative before it).
    pub fn days_since_epoch(self) -> i64 {
        days_from_civil(i64::from(self.year), self.month, self.day)
    }

    /// The date `days` days after 1970-01-01.
    pub fn from_days_since_epoch(days: i64) -> Date {
        let (year, month, day) = civil_from_days(days);
        Date {
            year: saturate_year(year),
            month,
            day,
        }
    }

    /// Days from `self` to `later` (negative when `later` is earlier).
    pub fn days_until(self, later: Date) -> i64 {
        later.days_since_epoch() - self.days_since_epoch()
    }

    /// Midnight UTC at the start of this day.
    pub fn start(self) -> Timestamp {
        Timestamp(self.days_since_epoch() * SECONDS_PER_DAY)
    }
}

/// Days from `from` to `to` (negative when `to` is earlier).
pub fn days_between(from: Date, to: Date) -> i64 {
    from.days_until(to)
}

impl fmt::Display for Date {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:04}-{:02}-{:02}", self.year, self.month, self.day)
    }
}

/// A moment in UTC, in whole seconds since 1970-01-01T00:00:00Z, written
/// `YYYY-MM-DDTHH:MM:SSZ`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Timestamp(pub i64);

impl Timestamp {
    /// The current time, truncated to whole seconds.
    pub fn now() -> Timestamp {
        Timestamp::from_system_time(SystemTime::now())
    }

    /// `time` truncated to whole seconds (towards the past, also before 1970).
    pub fn from_system_time(time: SystemTime) -> Timestamp {
        match time.duration_since(UNIX_EPOCH) {
            Ok(after) => Timestamp(i64::try_from(after.as_secs()).unwrap_or(i64::MAX)),
            Err(before) => {
                let before = before.duration();
                let secs = i64::try_from(before.as_secs()).unwrap_or(i64::MAX);
                let partial = i64::from(before.subsec_nanos() > 0);
                Timestamp(-secs - partial)
            }
        }
    }

    /// Seconds since 1970-01-01T00:00:00Z.
    pub fn seconds(self) -> i64 {
        self.0
    }

    /// Parse exactly `YYYY-MM-DDTHH:MM:SSZ` (RFC 3339, UTC, no fraction).
    pub fn parse(text: &str) -> Result<Timestamp, String> {
        let usage = || format!("{text:?} is not a UTC time: use YYYY-MM-DDTHH:MM:SSZ");
        let b = text.as_bytes();
        let shaped = b.len() == 20
            && b[10] == b'T'
            && b[13] == b':'
            && b[16] == b':'
            && b[19] == b'Z'
            && [11, 12, 14, 15, 17, 18]
                .iter()
                .all(|&i| b[i].is_ascii_digit());
        if !shaped {
            return Err(usage());
        }
        let date = Date::parse(&text[..10]).map_err(|_| usage())?;
        let hour = digits(&b[11..13]);
        let minute = digits(&b[14..16]);
        let second = digits(&b[17..19]);
        if hour > 23 || minute > 59 || second > 59 {
            return Err(format!("{text:?} is not a UTC time: no such time of day"));
        }
        Ok(Timestamp(
            date.days_since_epoch() * SECONDS_PER_DAY + hour * 3600 + minute * 60 + second,
        ))
    }

    /// The UTC date this moment falls on.
    pub fn date(self) -> Date {
        Date::from_days_since_epoch(self.0.div_euclid(SECONDS_PER_DAY))
    }
}

impl fmt::Display for Timestamp {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let secs = self.0.rem_euclid(SECONDS_PER_DAY);
        write!(
            f,
            "{}T{:02}:{:02}:{:02}Z",
            self.date(),
            secs / 3600,
            secs / 60 % 60,
            secs % 60
        )
    }
}

const MONTHS: [&str; 12] = [
    "January",
    "February",
    "March",
    "April",
    "May",
    "June",
    "July",
    "August",
    "September",
    "October",
    "November",
    "December",
];

/// Whether `year` has a February 29th.
pub fn is_leap_year(year: i32) -> bool {
    year % 4 == 0 && (year % 100 != 0 || year % 400 == 0)
}

fn days_in_month(year: i32, month: u8) -> u8 {
    match month {
        2 if is_leap_year(year) => 29,
        2 => 28,
        4 | 6 | 9 | 11 => 30,
        _ => 31,
    }
}

/// The value of ASCII digits (the caller has checked they are digits).
fn digits(bytes: &[u8]) -> i64 {
    bytes
        .iter()
        .fold(0, |acc, &b| acc * 10 + i64::from(b - b'0'))
}

fn saturate_year(year: i64) -> i32 {
    i32::try_from(year).unwrap_or(if year < 0 { i32::MIN } else { i32::MAX })
}

/// Days since 1970-01-01 of a proleptic Gregorian date (Hinnant).
fn days_from_civil(year: i64, month: u8, day: u8) -> i64 {
    let (month, day) = (i64::from(month), i64::from(day));
    let year = if month <= 2 { year - 1 } else { year };
    let era = year.div_euclid(400);
    let yoe = year.rem_euclid(400); // [0, 399]
    let mp = (month + 9) % 12; // March = 0
    let doy = (153 * mp + 2) / 5 + day - 1; // [0, 365]
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy; // [0, 146096]
    era * 146_097 + doe - 719_468
}

/// The proleptic Gregorian date of a day count since 1970-01-01 (Hinnant).
fn civil_from_days(days: i64) -> (i64, u8, u8) {
    // Shift the epoch to 0000-03-01; clamp so the shift cannot overflow.
    let z = days.clamp(i64::MIN / 2, i64::MAX / 2) + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097); // [0, 146096]
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365; // [0, 399]
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100); // [0, 365]
    let mp = (5 * doy + 2) / 153; // [0, 11]
    let day = (doy - (153 * mp + 2) / 5 + 1) as u8; // [1, 31]
    let month = if mp < 10 { mp + 3 } else { mp - 9 } as u8; // [1, 12]
    let year = yoe + era * 400 + i64::from(month <= 2);
    (year, month, day)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    fn date(text: &str) -> Date {
        Date::parse(text).unwrap()
    }

    #[test]
    fn parses_dates_strictly() {
        assert_eq!(
            date("2026-11-29"),
            Date {
                year: 2026,
                month: 11,
                day: 29
            }
        );
        assert_eq!(date("1970-01-01").days_since_epoch(), 0);
        assert_eq!(date("0000-03-01").to_string(), "0000-03-01");
        for bad in [
            "",
            "2026-1-29",
            "2026-11-9",
            "26-11-29",
            "2026/11/29",
            "2026-11-29 ",
            " 2026-11-29",
            "2026-11-29T00:00:00Z",
            "+2026-11-29",
            "2026-00-10",
            "2026-13-01",
            "2026-01-00",
            "2026-01-32",
            "2026-04-31",
            "2026-06-31",
            "2026-09-31",
            "2026-11-31",
            "2026-02-29",
            "1900-02-29",
            "2100-02-29",
            "2026-1a-01",
            "２０２６-11-29",
        ] {
            assert!(Date::parse(bad).is_err(), "{bad:?}");
        }
        assert_eq!(
            Date::parse("2100-02-29").unwrap_err(),
            "\"2100-02-29\" is not a date: February 2100 has 28 days"
        );
        assert_eq!(
            Date::parse("2026-13-01").unwrap_err(),
            "\"2026-13-01\" is not a date: there is no month 13"
        );
    }

    #[test]
    fn leap_years() {
        assert!(is_leap_year(2000));
        assert!(is_leap_year(2024));
        assert!(!is_leap_year(1900));
        assert!(!is_leap_year(2100));
        assert!(!is_leap_year(2026));
        assert_eq!(date("2000-02-29").to_string(), "2000-02-29");
        assert_eq!(date("2024-02-29").to_string(), "2024-02-29");
        assert!(Date::new(2000, 2, 29).is_some());
        assert!(Date::new(2100, 2, 29).is_none());
        assert!(Date::new(2026, 0, 1).is_none());
        assert!(Date::new(2026, 12, 31).is_some());
    }

    #[test]
    fn day_counts_match_known_values() {
        assert_eq!(date("1970-01-02").days_since_epoch(), 1);
        assert_eq!(date("1969-12-31").days_since_epoch(), -1);
        assert_eq!(date("2000-01-01").days_since_epoch(), 10_957);
        assert_eq!(date("2000-03-01").days_since_epoch(), 11_017);
        assert_eq!(date("2026-11-29").days_since_epoch(), 20_786);
        assert_eq!(date("0000-03-01").days_since_epoch(), -719_468);
        assert_eq!(days_between(date("2024-02-28"), date("2024-03-01")), 2);
        assert_eq!(days_between(date("2023-02-28"), date("2023-03-01")), 1);
        assert_eq!(days_between(date("2026-11-29"), date("2026-10-30")), -30);
        assert_eq!(date("2000-01-01").days_until(date("2001-01-01")), 366);
        assert_eq!(date("2100-01-01").days_until(date("2101-01-01")), 365);
    }

    #[test]
    fn every_day_round_trips() {
        // 1600-01-01 to 2500-12-31: both conversions agree with each other,
        // and with the calendar, one day at a time.
        let mut days = date("1600-01-01").days_since_epoch();
        let mut expected = date("1600-01-01");
        while expected.year <= 2500 {
            let d = Date::from_days_since_epoch(days);
            assert_eq!(d, expected);
            assert_eq!(d.days_since_epoch(), days);
            assert_eq!(Date::parse(&d.to_string()), Ok(d));
            expected = match Date::new(d.year, d.month, d.day + 1) {
                Some(next) => next,
                None if d.month < 12 => Date::new(d.year, d.month + 1, 1).unwrap(),
                None => Date::new(d.year + 1, 1, 1).unwrap(),
            };
            days += 1;
        }
    }

    #[test]
    fn timestamps_parse_and_format() {
        let t = Timestamp::parse("2026-11-29T22:40:00Z").unwrap();
        assert_eq!(t.seconds(), 20_786 * 86_400 + 22 * 3600 + 40 * 60);
        assert_eq!(t.to_string(), "2026-11-29T22:40:00Z");
        assert_eq!(t.date(), date("2026-11-29"));
        assert_eq!(Timestamp(0).to_string(), "1970-01-01T00:00:00Z");
        assert_eq!(Timestamp(-1).to_string(), "1969-12-31T23:59:59Z");
        assert_eq!(Timestamp(-1).date(), date("1969-12-31"));
        assert_eq!(
            Timestamp::parse("2000-02-29T23:59:59Z")
                .unwrap()
                .to_string(),
            "2000-02-29T23:59:59Z"
        );
        assert_eq!(
            date("2026-11-29").start().to_string(),
            "2026-11-29T00:00:00Z"
        );
        for bad in [
            "",
            "2026-11-29",
            "2026-11-29T22:40:00",
            "2026-11-29T22:40:00z",
            "2026-11-29t22:40:00Z",
            "2026-11-29 22:40:00Z",
            "2026-11-29T22:40:00+00:00",
            "2026-11-29T22:40:00.5Z",
            "2026-11-29T22:40Z",
            "2026-11-29T24:00:00Z",
            "2026-11-29T23:60:00Z",
            "2026-11-29T23:59:60Z",
            "2100-02-29T00:00:00Z",
            "2026-11-29T2a:40:00Z",
        ] {
            assert!(Timestamp::parse(bad).is_err(), "{bad:?}");
        }
    }

    #[test]
    fn timestamps_round_trip() {
        for secs in [
            0,
            1,
            59,
            86_399,
            86_400,
            951_782_400, // 2000-02-29
            1_764_456_000,
            4_102_444_799,   // 2099-12-31T23:59:59Z
            253_402_300_799, // 9999-12-31T23:59:59Z
            -62_167_219_200, // 0000-01-01T00:00:00Z
        ] {
            let t = Timestamp(secs);
            assert_eq!(Timestamp::parse(&t.to_string()), Ok(t), "{t}");
        }
        assert_eq!(
            Timestamp(253_402_300_799).to_string(),
            "9999-12-31T23:59:59Z"
        );
    }

    #[test]
    fn from_system_time_truncates_towards_the_past() {
        let after = UNIX_EPOCH + Duration::from_millis(1_500);
        assert_eq!(Timestamp::from_system_time(after), Timestamp(1));
        let before = UNIX_EPOCH - Duration::from_millis(1_500);
        assert_eq!(Timestamp::from_system_time(before), Timestamp(-2));
        assert_eq!(Timestamp::from_system_time(UNIX_EPOCH), Timestamp(0));
        assert!(Timestamp::now().date().year >= 2024);
    }

    #[test]
    fn extreme_day_counts_do_not_panic() {
        let _ = Date::from_days_since_epoch(i64::MAX);
        let _ = Date::from_days_since_epoch(i64::MIN);
        let _ = Timestamp(i64::MAX).to_string();
        let _ = Timestamp(i64::MIN).to_string();
    }
}
