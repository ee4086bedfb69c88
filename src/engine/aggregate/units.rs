//! Units of a partition -> units of the master array.
//!
//! The engine knows no units itself: a [`UnitSystem`] (UDUNITS-2, which the
//! C layer loads at run time) answers how values in one unit are expressed
//! in another, as an affine map `a * x + b` (`K @ 273.15` -> `K` is
//! `x + 273.15`). Reference times (`days since ...`) are split here: the
//! unit (`days`) goes to the unit system, the reference dates are placed
//! on their CF calendar by [`super::calendar`], so every CF calendar works.

use super::calendar::{parse_ref_time, split_since, Calendar};
use crate::engine::error::*;
use crate::engine::{NcError, NcResult};

/// A units library.
pub trait UnitSystem: Send + Sync {
    /// `(a, b)` such that a value `x` in `from` is `a * x + b` in `to`; an
    /// error (`NC_EINVAL` with the reason) if the two are not convertible.
    fn linear(&self, from: &str, to: &str) -> NcResult<(f64, f64)>;
}

/// An affine conversion of values.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Linear {
    pub a: f64,
    pub b: f64,
}

impl Linear {
    pub fn apply(&self, x: f64) -> f64 {
        self.a * x + self.b
    }
}

fn no_units_library() -> NcError {
    NcError::with(
        NC_ENOTBUILT,
        "converting units needs UDUNITS-2 (libudunits2.so.0), which could not be loaded".to_string(),
    )
}

fn empty(s: Option<&str>) -> bool {
    s.is_none_or(|s| s.trim().is_empty())
}

/// How values in units `from` (calendar `from_cal`) become values in `to`
/// (`to_cal`): `None` if they are the same. No units on the partition: no
/// conversion (as cfdm).
pub fn plan(
    sys: Option<&dyn UnitSystem>,
    from: Option<&str>,
    from_cal: Option<&str>,
    to: Option<&str>,
    to_cal: Option<&str>,
) -> NcResult<Option<Linear>> {
    if empty(from) {
        return Ok(None);
    }
    let from = from.unwrap_or_default().trim();
    if empty(to) {
        return Err(NcError::with(
            NC_EINVAL,
            format!("units {from:?} cannot be converted: the aggregated variable has no units"),
        ));
    }
    let to = to.unwrap_or_default().trim();
    let (fs, ts) = (split_since(from), split_since(to));
    if fs.is_some() || ts.is_some() {
        let (Some((fu, fref)), Some((tu, tref))) = (fs, ts) else {
            return Err(NcError::with(NC_EINVAL, format!("units {from:?} and {to:?} are not convertible")));
        };
        let (fc, tc) = (Calendar::parse(from_cal)?, Calendar::parse(to_cal)?);
        if fc != tc {
            return Err(NcError::with(
                NC_EINVAL,
                format!(
                    "calendar {:?} cannot be converted to {:?}",
                    from_cal.unwrap_or("standard"),
                    to_cal.unwrap_or("standard")
                ),
            ));
        }
        if from == to {
            return Ok(None);
        }
        let (f1, f2) = (seconds_per(sys, fu)?, seconds_per(sys, tu)?);
        let (t1, t2) = (parse_ref_time(fref)?.seconds(fc)?, parse_ref_time(tref)?.seconds(tc)?);
        // x f1 seconds after t1 = (x f1 + t1 - t2) / f2 units after t2
        return Ok(Some(Linear { a: f1 / f2, b: (t1 - t2) / f2 }));
    }
    if from == to {
        return Ok(None);
    }
    let sys = sys.ok_or_else(no_units_library)?;
    let (a, b) = sys.linear(from, to)?;
    Ok(Some(Linear { a, b }))
}

/// Seconds in one `unit` of time (`days`, `h`, `months` as UDUNITS has them).
fn seconds_per(sys: Option<&dyn UnitSystem>, unit: &str) -> NcResult<f64> {
    let builtin = match unit.to_ascii_lowercase().as_str() {
        "s" | "sec" | "secs" | "second" | "seconds" => Some(1.0),
        "min" | "mins" | "minute" | "minutes" => Some(60.0),
        "h" | "hr" | "hrs" | "hour" | "hours" => Some(3600.0),
        "d" | "day" | "days" => Some(86400.0),
        _ => None,
    };
    let (a, b) = match (sys, builtin) {
        (Some(s), _) => s.linear(unit, "s")?,
        (None, Some(a)) => (a, 0.0),
        (None, None) => return Err(no_units_library()),
    };
    if b != 0.0 || !a.is_finite() || a <= 0.0 {
        return Err(NcError::with(NC_EINVAL, format!("{unit:?} is not a unit of time")));
    }
    Ok(a)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plans() {
        // the planning that needs no units library (UDUNITS-2 itself is
        // tested through the C API: tests/aggregate.rs)
        assert_eq!(plan(None, Some("K"), None, Some("K"), None).unwrap(), None);
        assert_eq!(plan(None, None, None, Some("K"), None).unwrap(), None);
        assert_eq!(plan(None, Some("degC"), None, Some("K"), None).unwrap_err().code(), NC_ENOTBUILT);
        assert_eq!(plan(None, Some("K"), None, None, None).unwrap_err().code(), NC_EINVAL);
        // hours since 2000-01-02 -> days since 2000-01-01: x/24 + 1
        let l = plan(None, Some("hours since 2000-01-02"), None, Some("days since 2000-01-01"), None).unwrap().unwrap();
        assert!((l.apply(12.0) - 1.5).abs() < 1e-12);
        let cal = |c: &str, d: &str| {
            plan(None, Some("days since 2000-03-01"), Some(c), Some("days since 2000-02-01"), Some(d))
                .unwrap()
                .unwrap()
                .apply(0.0)
        };
        assert_eq!(cal("360_day", "360_day"), 30.0);
        assert_eq!(cal("noleap", "365_day"), 28.0);
        assert_eq!(cal("all_leap", "366_day"), 29.0);
        assert_eq!(cal("standard", "gregorian"), 29.0);
        assert_eq!(cal("julian", "julian"), 29.0);
        assert!(plan(None, Some("days since 2000-03-01"), Some("noleap"), Some("days since 2000-02-01"), None).is_err());
        assert!(plan(None, Some("days since 2000-03-01"), None, Some("K"), None).is_err());
        let l =
            plan(None, Some("days since 2000-01-02"), Some("julian"), Some("hours since 2000-01-01"), Some("julian"))
                .unwrap()
                .unwrap();
        assert_eq!(l.apply(1.0), 48.0);
    }
}
