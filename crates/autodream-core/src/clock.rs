//! What time it is.
//!
//! Every instant autodream reads or records goes through [`Clock`], so a whole history of
//! hooks and dreams can be replayed in tests by setting `AUTODREAM_NOW` (RFC 3339).
//! Calendar dates (daily log files, `[HH:MM]` stamps, "updated" fields) use the local time
//! zone from `TZ`, like every other date autodream writes.

use std::time::{Duration, SystemTime};

use jiff::{Timestamp, Zoned, tz::TimeZone};

/// The environment variable that pins "now".
pub const NOW_ENV: &str = "AUTODREAM_NOW";

/// A source of "now": the system clock, or a fixed instant.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Clock {
    System,
    Fixed(Timestamp),
}

/// `AUTODREAM_NOW` was set but is not an RFC 3339 instant.
#[derive(Debug, thiserror::Error)]
#[error("{NOW_ENV}={value:?} is not an RFC 3339 instant (e.g. 2026-05-08T13:56:00Z): {source}")]
pub struct ClockError {
    pub value: String,
    #[source]
    pub source: jiff::Error,
}

impl Clock {
    /// The clock the environment asks for: fixed when `AUTODREAM_NOW` is set.
    pub fn from_env() -> Result<Clock, ClockError> {
        match std::env::var(NOW_ENV) {
            Ok(value) if !value.trim().is_empty() => Self::parse(&value),
            _ => Ok(Clock::System),
        }
    }

    /// Parses an RFC 3339 instant into a fixed clock.
    pub fn parse(value: &str) -> Result<Clock, ClockError> {
        value
            .trim()
            .parse::<Timestamp>()
            .map(Clock::Fixed)
            .map_err(|source| ClockError { value: value.to_string(), source })
    }

    pub fn now(&self) -> Timestamp {
        match self {
            Clock::System => Timestamp::now(),
            Clock::Fixed(t) => *t,
        }
    }

    pub fn now_system_time(&self) -> SystemTime {
        to_system_time(self.now())
    }

    /// Now, in the local time zone (`TZ`).
    pub fn now_local(&self) -> Zoned {
        self.now().to_zoned(local_tz())
    }

    pub fn is_fixed(&self) -> bool {
        matches!(self, Clock::Fixed(_))
    }
}

/// The local time zone: `TZ` when set and valid, else the system's, else UTC.
pub fn local_tz() -> TimeZone {
    TimeZone::try_system().unwrap_or(TimeZone::UTC)
}

pub fn to_system_time(t: Timestamp) -> SystemTime {
    SystemTime::from(t)
}

pub fn from_system_time(t: SystemTime) -> Timestamp {
    Timestamp::try_from(t).unwrap_or(Timestamp::UNIX_EPOCH)
}

/// Hours from `earlier` to `later` as a float (negative when `later` is before `earlier`).
pub fn hours_between(earlier: Timestamp, later: Timestamp) -> f64 {
    let secs = later.as_millisecond() as f64 / 1000.0 - earlier.as_millisecond() as f64 / 1000.0;
    secs / 3600.0
}

/// "3h12m", "2 days", "45s": a short human duration for status lines.
pub fn human_duration(d: Duration) -> String {
    let secs = d.as_secs();
    if secs < 60 {
        format!("{secs}s")
    } else if secs < 3600 {
        format!("{}m", secs / 60)
    } else if secs < 48 * 3600 {
        let (h, m) = (secs / 3600, (secs % 3600) / 60);
        if m == 0 { format!("{h}h") } else { format!("{h}h{m:02}m") }
    } else {
        format!("{} days", secs / 86_400)
    }
}

/// "just now", "5 minutes ago", "3 hours ago", "yesterday", "2 days ago".
pub fn human_ago(then: Timestamp, now: Timestamp) -> String {
    let secs = (now.as_second() - then.as_second()).max(0) as u64;
    match secs {
        0..60 => "just now".to_string(),
        60..3600 => plural(secs / 60, "minute"),
        3600..86_400 => plural(secs / 3600, "hour"),
        86_400..172_800 => "yesterday".to_string(),
        _ => plural(secs / 86_400, "day"),
    }
}

fn plural(n: u64, unit: &str) -> String {
    if n == 1 { format!("1 {unit} ago") } else { format!("{n} {unit}s ago") }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fixed_clock_parses_rfc3339_and_rejects_garbage() {
        let c = Clock::parse("2026-05-08T13:56:00Z").unwrap();
        assert_eq!(c.now().to_string(), "2026-05-08T13:56:00Z");
        let err = Clock::parse("yesterday").unwrap_err();
        assert!(err.to_string().contains("AUTODREAM_NOW"));
    }

    #[test]
    fn human_durations_read_naturally() {
        assert_eq!(human_duration(Duration::from_secs(3 * 3600 + 12 * 60)), "3h12m");
        assert_eq!(human_duration(Duration::from_secs(90)), "1m");
        assert_eq!(human_duration(Duration::from_secs(5 * 86_400)), "5 days");
        let now: Timestamp = "2026-05-08T13:56:00Z".parse().unwrap();
        let two_days: Timestamp = "2026-05-06T10:00:00Z".parse().unwrap();
        assert_eq!(human_ago(two_days, now), "2 days ago");
        assert_eq!(human_ago(now, now), "just now");
    }

    #[test]
    fn hours_between_is_signed_float() {
        let a: Timestamp = "2026-05-08T00:00:00Z".parse().unwrap();
        let b: Timestamp = "2026-05-08T01:30:00Z".parse().unwrap();
        assert_eq!(hours_between(a, b), 1.5);
        assert_eq!(hours_between(b, a), -1.5);
    }
}
