//! CF calendars and reference times (`days since 2000-01-01 06:00`).
//!
//! UDUNITS-2 knows one calendar (the mixed Julian/Gregorian `standard`), so
//! the date arithmetic of reference times is done here, for every CF
//! calendar: `standard`/`gregorian` (Julian before 1582-10-15, Gregorian
//! from then), `proleptic_gregorian`, `julian`, `noleap`/`365_day`,
//! `all_leap`/`366_day` and `360_day`. Years are astronomical (year 0
//! exists), as in UDUNITS and cftime.

use crate::engine::error::*;
use crate::engine::{NcError, NcResult};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Calendar {
    Standard,
    ProlepticGregorian,
    Julian,
    NoLeap,
    AllLeap,
    Day360,
}

fn bad(what: impl Into<String>) -> NcError {
    NcError::with(NC_EINVAL, what)
}

impl Calendar {
    /// A CF calendar name (case-insensitive); none is `standard`.
    pub fn parse(name: Option<&str>) -> NcResult<Calendar> {
        let n = name.map(|s| s.trim().to_ascii_lowercase()).unwrap_or_default();
        Ok(match n.as_str() {
            "" | "standard" | "gregorian" => Calendar::Standard,
            "proleptic_gregorian" => Calendar::ProlepticGregorian,
            "julian" => Calendar::Julian,
            "noleap" | "365_day" => Calendar::NoLeap,
            "all_leap" | "366_day" => Calendar::AllLeap,
            "360_day" => Calendar::Day360,
            other => return Err(NcError::with(NC_ENOTBUILT, format!("calendar {other:?} is not supported"))),
        })
    }

    /// Days in month `m` of year `y`.
    fn month_days(self, y: i64, m: u32) -> u32 {
        const DAYS: [u32; 12] = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];
        let leap = match self {
            Calendar::ProlepticGregorian => y.rem_euclid(4) == 0 && (y.rem_euclid(100) != 0 || y.rem_euclid(400) == 0),
            Calendar::Julian => y.rem_euclid(4) == 0,
            Calendar::Standard if y > 1582 => {
                y.rem_euclid(4) == 0 && (y.rem_euclid(100) != 0 || y.rem_euclid(400) == 0)
            }
            Calendar::Standard => y.rem_euclid(4) == 0,
            Calendar::NoLeap => false,
            Calendar::AllLeap => true,
            Calendar::Day360 => return 30,
        };
        if m == 2 && leap {
            29
        } else {
            DAYS[(m - 1) as usize]
        }
    }

    /// Day number of a date (any fixed origin, the same for one calendar).
    pub fn day_number(self, y: i64, m: u32, d: u32) -> NcResult<i64> {
        if !(1..=12).contains(&m) || d < 1 || d > self.month_days(y, m) {
            return Err(bad(format!("{y}-{m}-{d} is not a date in the {self:?} calendar")));
        }
        if !(-1_000_000..=1_000_000).contains(&y) {
            return Err(bad(format!("year {y} is out of range")));
        }
        let (m, d) = (m as i64, d as i64);
        Ok(match self {
            Calendar::NoLeap => 365 * y + cumulative(m, false) + d - 1,
            Calendar::AllLeap => 366 * y + cumulative(m, true) + d - 1,
            Calendar::Day360 => 360 * y + 30 * (m - 1) + d - 1,
            Calendar::ProlepticGregorian => jdn(y, m, d, true),
            Calendar::Julian => jdn(y, m, d, false),
            Calendar::Standard => {
                if (y, m, d) >= (1582, 10, 15) {
                    jdn(y, m, d, true)
                } else if (y, m, d) > (1582, 10, 4) {
                    return Err(bad(format!("{y}-{m}-{d} is not a date in the standard calendar")));
                } else {
                    jdn(y, m, d, false)
                }
            }
        })
    }
}

/// Days before month `m` in a 365- or 366-day year.
fn cumulative(m: i64, leap: bool) -> i64 {
    const CUM: [i64; 12] = [0, 31, 59, 90, 120, 151, 181, 212, 243, 273, 304, 334];
    CUM[(m - 1) as usize] + i64::from(leap && m > 2)
}

/// Julian day number in the Gregorian or the Julian calendar.
fn jdn(y: i64, m: i64, d: i64, gregorian: bool) -> i64 {
    let a = (14 - m).div_euclid(12);
    let y2 = y + 4800 - a;
    let m2 = m + 12 * a - 3;
    let base = d + (153 * m2 + 2).div_euclid(5) + 365 * y2 + y2.div_euclid(4);
    if gregorian {
        base - y2.div_euclid(100) + y2.div_euclid(400) - 32045
    } else {
        base - 32083
    }
}

/// A reference time: date, seconds into the day (UTC).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RefTime {
    pub y: i64,
    pub m: u32,
    pub d: u32,
    pub secs: f64,
}

impl RefTime {
    /// Seconds from the calendar's origin.
    pub fn seconds(&self, cal: Calendar) -> NcResult<f64> {
        Ok(cal.day_number(self.y, self.m, self.d)? as f64 * 86400.0 + self.secs)
    }
}

/// Splits time units into the unit and the reference time text
/// (`"days since 2000-1-1"` -> `("days", "2000-1-1")`); `None` if they are
/// not reference-time units.
pub fn split_since(units: &str) -> Option<(&str, &str)> {
    let lower = units.to_ascii_lowercase();
    let i = lower.find(" since ")?;
    Some((units[..i].trim(), units[i + 7..].trim()))
}

/// Parses a reference time: `Y-M-D`, then optionally `[ T]h:m[:s[.f]]`,
/// then optionally a time zone (`Z`, `UTC`, `+h`, `-h:mm`, `+hhmm`).
pub fn parse_ref_time(text: &str) -> NcResult<RefTime> {
    let err = || bad(format!("reference time {text:?} is not a date"));
    let t = text.trim();
    let (neg, t) = match t.strip_prefix('-') {
        Some(r) => (true, r),
        None => (false, t),
    };
    let mut split = t.splitn(2, [' ', 'T']);
    let date = split.next().ok_or_else(err)?;
    let rest = split.next().unwrap_or("").trim();
    let dp: Vec<&str> = date.split('-').collect();
    if dp.len() != 3 {
        return Err(err());
    }
    let y: i64 = dp[0].parse().map_err(|_| err())?;
    let y = if neg { -y } else { y };
    let m: u32 = dp[1].parse().map_err(|_| err())?;
    let d: u32 = dp[2].parse().map_err(|_| err())?;
    let mut secs = 0.0;
    let mut zone = "";
    if !rest.is_empty() {
        let mut parts = rest.splitn(2, [' ', 'Z', '+', '-']);
        let clock = parts.next().unwrap_or("");
        zone = &rest[clock.len()..];
        if !clock.is_empty() {
            let cp: Vec<&str> = clock.split(':').collect();
            if cp.len() > 3 {
                return Err(err());
            }
            let h: f64 = cp[0].parse().map_err(|_| err())?;
            let mi: f64 = cp.get(1).map_or(Ok(0.0), |s| s.parse()).map_err(|_| err())?;
            let s: f64 = cp.get(2).map_or(Ok(0.0), |s| s.parse()).map_err(|_| err())?;
            if !(0.0..24.0).contains(&h) || !(0.0..60.0).contains(&mi) || !(0.0..=61.0).contains(&s) {
                return Err(err());
            }
            secs = h * 3600.0 + mi * 60.0 + s;
        }
    }
    let zone = zone.trim();
    let zone = zone.strip_prefix("UTC").or_else(|| zone.strip_prefix("Z")).unwrap_or(zone).trim();
    if !zone.is_empty() {
        let (sign, z) = match zone.as_bytes()[0] {
            b'+' => (1.0, &zone[1..]),
            b'-' => (-1.0, &zone[1..]),
            _ => return Err(err()),
        };
        let (h, mi) = match z.split_once(':') {
            Some((h, m)) => (h, m),
            None if z.len() == 4 => (&z[..2], &z[2..]),
            None => (z, "0"),
        };
        let h: f64 = h.trim().parse().map_err(|_| err())?;
        let mi: f64 = mi.trim().parse().map_err(|_| err())?;
        // local time = UTC + offset
        secs -= sign * (h * 3600.0 + mi * 60.0);
    }
    Ok(RefTime { y, m, d, secs })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn days(cal: Calendar, a: (i64, u32, u32), b: (i64, u32, u32)) -> i64 {
        cal.day_number(b.0, b.1, b.2).unwrap() - cal.day_number(a.0, a.1, a.2).unwrap()
    }

    #[test]
    fn calendars() {
        use Calendar::*;
        assert_eq!(days(ProlepticGregorian, (1970, 1, 1), (2000, 1, 1)), 10957);
        assert_eq!(days(Standard, (1970, 1, 1), (2000, 1, 1)), 10957);
        assert_eq!(days(NoLeap, (1970, 1, 1), (2000, 1, 1)), 30 * 365);
        assert_eq!(days(AllLeap, (1970, 1, 1), (2000, 1, 1)), 30 * 366);
        assert_eq!(days(Day360, (1970, 1, 1), (2000, 1, 1)), 30 * 360);
        assert_eq!(days(Day360, (2000, 2, 30), (2000, 3, 1)), 1);
        assert_eq!(days(Julian, (1900, 2, 28), (1900, 3, 1)), 2);
        assert_eq!(days(ProlepticGregorian, (1900, 2, 28), (1900, 3, 1)), 1);
        // the Gregorian reform: 1582-10-04 is followed by 1582-10-15
        assert_eq!(days(Standard, (1582, 10, 4), (1582, 10, 15)), 1);
        assert_eq!(days(ProlepticGregorian, (1582, 10, 4), (1582, 10, 15)), 11);
        assert!(Standard.day_number(1582, 10, 10).is_err());
        assert!(NoLeap.day_number(2000, 2, 29).is_err());
        assert!(AllLeap.day_number(2001, 2, 29).is_ok());
        // the julian and standard calendars agree before the reform
        assert_eq!(days(Julian, (0, 1, 1), (1000, 3, 1)), days(Standard, (0, 1, 1), (1000, 3, 1)));
        // JDN of 2000-01-01 (Gregorian) is 2451545
        assert_eq!(ProlepticGregorian.day_number(2000, 1, 1).unwrap(), 2451545);
        assert_eq!(Calendar::parse(Some("365_day")).unwrap(), NoLeap);
        assert!(Calendar::parse(Some("lunar")).is_err());
    }

    #[test]
    fn reference_times() {
        assert_eq!(split_since("days since 2000-1-1"), Some(("days", "2000-1-1")));
        assert_eq!(split_since("K"), None);
        let t = parse_ref_time("2000-01-02 06:30:15.5").unwrap();
        assert_eq!((t.y, t.m, t.d), (2000, 1, 2));
        assert_eq!(t.secs, 6.0 * 3600.0 + 30.0 * 60.0 + 15.5);
        assert_eq!(parse_ref_time("2000-1-1T00:00:00Z").unwrap().secs, 0.0);
        assert_eq!(parse_ref_time("2000-1-1 00:00:00 UTC").unwrap().secs, 0.0);
        assert_eq!(parse_ref_time("2000-1-1 06:00 +06:00").unwrap().secs, 0.0);
        assert_eq!(parse_ref_time("0000-1-1").unwrap().y, 0);
        assert!(parse_ref_time("yesterday").is_err());
        assert!(parse_ref_time("2000-1-1 25:00").is_err());
    }
}
