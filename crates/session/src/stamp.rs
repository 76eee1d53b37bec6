//! Wall-clock times of a session's answers: UTC, written as RFC 3339 with milliseconds
//! (`2026-11-29T07:40:05.123Z`), by hand (no date library: the civil calendar of
//! [`bohf_core::calendar`], proleptic Gregorian, years 1970 to 9999).
//!
//! Times are a record for the researcher only: they never reach the algorithm, so a replayed
//! session asks the same queries whatever its times.

use bohf_core::calendar::{civil_from_days, days_from_civil};
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use std::time::{SystemTime, UNIX_EPOCH};

/// An instant, in milliseconds since 1970-01-01T00:00:00Z, stored as RFC 3339 text in UTC with
/// milliseconds (`YYYY-MM-DDTHH:MM:SS.mmmZ`, the only form read back, so that a file's text is
/// exactly what writing it again gives).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub struct Stamp(pub u64);

/// The last millisecond of 9999-12-31, the latest time written.
const MAX_MS: u64 = 253_402_300_799_999;

impl Stamp {
    /// The system clock now (a clock before 1970 reads as 1970-01-01T00:00:00.000Z).
    pub fn now() -> Self {
        let ms = SystemTime::now().duration_since(UNIX_EPOCH).map(|d| d.as_millis()).unwrap_or(0);
        Stamp(u64::try_from(ms).unwrap_or(MAX_MS).min(MAX_MS))
    }

    /// Seconds from `earlier` to `self` (negative if `self` is earlier: a clock set back).
    pub fn seconds_since(self, earlier: Stamp) -> f64 {
        (self.0 as f64 - earlier.0 as f64) / 1000.0
    }

    /// The RFC 3339 text, e.g. `1970-01-01T00:00:00.000Z`.
    pub fn rfc3339(self) -> String {
        let ms = self.0.min(MAX_MS);
        let (days, rest) = (ms / 86_400_000, ms % 86_400_000);
        let (y, m, d) = civil_from_days(days as i64);
        let (h, min, s, milli) = (rest / 3_600_000, rest / 60_000 % 60, rest / 1000 % 60, rest % 1000);
        format!("{y:04}-{m:02}-{d:02}T{h:02}:{min:02}:{s:02}.{milli:03}Z")
    }

    /// Reads the text [`Stamp::rfc3339`] writes; anything else is an error naming the form.
    pub fn parse(text: &str) -> Result<Self, String> {
        let bad = || format!("`{text}` is not a UTC time of the form YYYY-MM-DDTHH:MM:SS.mmmZ");
        let b = text.as_bytes();
        if b.len() != 24 || [4, 7, 10, 13, 16, 19, 23].map(|i| b[i]) != *b"--T::.Z" {
            return Err(bad());
        }
        let num = |r: std::ops::Range<usize>| -> Result<u64, String> {
            let s = &text[r];
            if s.bytes().all(|c| c.is_ascii_digit()) { s.parse().map_err(|_| bad()) } else { Err(bad()) }
        };
        let (y, m, d) = (num(0..4)?, num(5..7)?, num(8..10)?);
        let (h, min, s, milli) = (num(11..13)?, num(14..16)?, num(17..19)?, num(20..23)?);
        if y < 1970 || !(1..=12).contains(&m) || d < 1 || d > days_in_month(y, m) || h > 23 || min > 59 || s > 59 {
            return Err(bad());
        }
        let days = days_from_civil(y as i64, m as u32, d as u32) as u64;
        Ok(Stamp(((days * 24 + h) * 60 + min) * 60_000 + s * 1000 + milli))
    }
}

fn days_in_month(y: u64, m: u64) -> u64 {
    match m {
        2 if y.is_multiple_of(4) && (!y.is_multiple_of(100) || y.is_multiple_of(400)) => 29,
        2 => 28,
        4 | 6 | 9 | 11 => 30,
        _ => 31,
    }
}

impl Serialize for Stamp {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&self.rfc3339())
    }
}

impl<'de> Deserialize<'de> for Stamp {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let text = String::deserialize(d)?;
        Stamp::parse(&text).map_err(serde::de::Error::custom)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn known_dates_are_written_and_read_back() {
        // Unix times of known instants (from `date -u -d … +%s`, times 1000 plus the milliseconds).
        let known = [
            (0, "1970-01-01T00:00:00.000Z"),
            (951_782_400_000, "2000-02-29T00:00:00.000Z"), // a leap day of a year divisible by 400
            (1_709_164_799_999, "2024-02-28T23:59:59.999Z"),
            (1_709_251_200_001, "2024-03-01T00:00:00.001Z"),
            (1_735_689_599_000, "2024-12-31T23:59:59.000Z"),
            (4_107_542_400_000, "2100-03-01T00:00:00.000Z"), // 2100 is no leap year
            (MAX_MS, "9999-12-31T23:59:59.999Z"),
        ];
        for (ms, text) in known {
            assert_eq!(Stamp(ms).rfc3339(), text);
            assert_eq!(Stamp::parse(text), Ok(Stamp(ms)), "{text}");
        }
        // Every day of 1970..=2100 round-trips, and consecutive days are one day apart.
        let mut last = None;
        for day in 0..=47_540u64 {
            let s = Stamp(day * 86_400_000 + 12_345);
            let back = Stamp::parse(&s.rfc3339()).unwrap();
            assert_eq!(back, s);
            if let Some(l) = last {
                assert_eq!(s.seconds_since(l), 86_400.0);
            }
            last = Some(s);
        }
    }

    #[test]
    fn other_forms_are_refused_naming_the_form() {
        for bad in [
            "2024-02-30T00:00:00.000Z",
            "2023-02-29T00:00:00.000Z",
            "2024-13-01T00:00:00.000Z",
            "2024-01-01T24:00:00.000Z",
            "2024-01-01T00:00:00Z",
            "2024-01-01T00:00:00.000+00:00",
            "2024-01-01 00:00:00.000Z",
            "1969-12-31T23:59:59.999Z",
            "2024-01-01T00:00:0a.000Z",
            "+024-01-01T00:00:00.000Z",
            "",
        ] {
            let e = Stamp::parse(bad).unwrap_err();
            assert!(e.contains("YYYY-MM-DDTHH:MM:SS.mmmZ"), "{bad}: {e}");
        }
        assert_eq!(Stamp(2_500).seconds_since(Stamp(1_000)), 1.5);
    }
}
