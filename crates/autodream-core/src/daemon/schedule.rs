//! When the daemon ticks and when it may dream: the dream window (`dream_window`, local
//! time, e.g. `02:00-05:00`, possibly wrapping midnight) and the instants of the ticks.
//!
//! Time is injectable: with `AUTODREAM_NOW` set, the first tick happens at that instant and
//! tick `n` at that instant plus `n × tick_minutes`, whatever the real time between ticks is.
//! So a test can walk the daemon across a window in a few milliseconds and get the same
//! answer every time.

use std::time::Duration;

use jiff::tz::TimeZone;
use jiff::{SignedDuration, Timestamp, Zoned};

use crate::clock::Clock;

pub use crate::config::values::{DreamWindow, WindowError};

/// The instants of the daemon's ticks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Ticks {
    /// The injected first instant (`AUTODREAM_NOW`); `None`: the system clock.
    first: Option<Timestamp>,
    /// The time between ticks, in the daemon's clock.
    every: Duration,
}

impl Ticks {
    /// Ticks every `every`, starting at `clock`'s now: a fixed clock makes them virtual.
    pub fn new(clock: Clock, every: Duration) -> Ticks {
        let first = match clock {
            Clock::Fixed(t) => Some(t),
            Clock::System => None,
        };
        Ticks { first, every }
    }

    /// The clock of tick `n` (0-based): fixed at the injected instant plus `n` ticks, or the
    /// system clock.
    pub fn clock_of(&self, n: u64) -> Clock {
        match self.first {
            Some(first) => {
                let offset = SignedDuration::try_from(self.every).unwrap_or(SignedDuration::ZERO);
                let at = (0..n).try_fold(first, |t, _| t.checked_add(offset)).unwrap_or(Timestamp::MAX);
                Clock::Fixed(at)
            }
            None => Clock::System,
        }
    }

    /// When the tick after one at `now` happens, in the daemon's clock.
    pub fn next_after(&self, now: Timestamp) -> Timestamp {
        SignedDuration::try_from(self.every)
            .ok()
            .and_then(|d| now.checked_add(d).ok())
            .unwrap_or(Timestamp::MAX)
    }

    pub fn every(&self) -> Duration {
        self.every
    }

    /// Is the daemon's time injected?
    pub fn is_virtual(&self) -> bool {
        self.first.is_some()
    }
}

/// `now` in the local time zone (`TZ`).
pub fn local(now: Timestamp) -> Zoned {
    now.to_zoned(crate::clock::local_tz())
}

/// `now` in a given zone (tests).
pub fn zoned_in(now: Timestamp, tz: &TimeZone) -> Zoned {
    now.to_zoned(tz.clone())
}

#[cfg(test)]
mod tests {
    use super::*;
    use jiff::civil::Time;

    fn w(s: &str) -> DreamWindow {
        s.parse().unwrap()
    }

    fn t(s: &str) -> Time {
        s.parse().unwrap()
    }

    fn utc(s: &str) -> Zoned {
        zoned_in(s.parse().unwrap(), &TimeZone::UTC)
    }

    #[test]
    fn a_window_holds_its_start_and_not_its_end() {
        let night = w("02:00-05:00");
        assert!(!night.contains(t("01:59")));
        assert!(night.contains(t("02:00")));
        assert!(night.contains(t("04:59")));
        assert!(!night.contains(t("05:00")));
        assert!(!night.wraps());
        assert_eq!(night.to_string(), "02:00-05:00");
    }

    #[test]
    fn a_window_may_wrap_midnight() {
        let late = w("22:30-04:00");
        assert!(late.wraps());
        for inside in ["22:30", "23:59", "00:00", "03:59"] {
            assert!(late.contains(t(inside)), "{inside}");
        }
        for outside in ["04:00", "12:00", "22:29"] {
            assert!(!late.contains(t(outside)), "{outside}");
        }
        let all_day = w("00:00-24:00");
        assert!(!all_day.wraps());
        assert!(all_day.contains(t("00:00")) && all_day.contains(t("23:59")));
        assert!(w(" 9:05 - 17:00 ").contains(t("09:05")));
    }

    #[test]
    fn bad_windows_say_what_is_wrong() {
        let err = |s: &str| s.parse::<DreamWindow>().unwrap_err().to_string();
        assert_eq!(
            err("2am"),
            "\"2am\" is not a window: expected HH:MM-HH:MM in local time, e.g. \"02:00-05:00\""
        );
        assert_eq!(
            err("25:00-03:00"),
            "\"25:00\" is not a time of day (00:00 to 23:59, or 24:00 as the end)"
        );
        assert_eq!(
            err("02:00-05:60"),
            "\"05:60\" is not a time of day (00:00 to 23:59, or 24:00 as the end)"
        );
        assert_eq!(
            err("24:00-03:00"),
            "\"24:00\" is not a time of day (00:00 to 23:59, or 24:00 as the end)"
        );
        assert!(err("03:00-03:00").contains("is empty"));
        assert!(err("02-05").contains("is not a window"));
        assert!(err("").contains("is not a window"));
    }

    #[test]
    fn the_next_opening_is_today_or_tomorrow() {
        let night = w("02:00-05:00");
        assert_eq!(
            night.next_opening(&utc("2026-05-08T01:00:00Z")).timestamp().to_string(),
            "2026-05-08T02:00:00Z"
        );
        assert_eq!(
            night.next_opening(&utc("2026-05-08T05:00:00Z")).timestamp().to_string(),
            "2026-05-09T02:00:00Z"
        );
        assert_eq!(
            night.next_opening(&utc("2026-05-08T03:00:00Z")).timestamp().to_string(),
            "2026-05-08T03:00:00Z"
        );
        let late = w("22:00-04:00");
        assert_eq!(
            late.next_opening(&utc("2026-05-08T12:00:00Z")).timestamp().to_string(),
            "2026-05-08T22:00:00Z"
        );
        assert_eq!(
            night.describe(&utc("2026-05-08T00:30:00Z")),
            "00:30 is outside 02:00-05:00; it opens in 1h30m"
        );
        assert_eq!(night.describe(&utc("2026-05-08T02:30:00Z")), "02:30 is inside 02:00-05:00");
    }

    #[test]
    fn injected_ticks_advance_by_whole_ticks() {
        let first: Timestamp = "2026-05-08T00:30:00Z".parse().unwrap();
        let ticks = Ticks::new(Clock::Fixed(first), Duration::from_secs(3600));
        assert!(ticks.is_virtual());
        assert_eq!(ticks.clock_of(0).now(), first);
        assert_eq!(ticks.clock_of(3).now().to_string(), "2026-05-08T03:30:00Z");
        assert_eq!(ticks.next_after(first).to_string(), "2026-05-08T01:30:00Z");
        assert_eq!(Ticks::new(Clock::System, Duration::from_secs(60)).clock_of(5), Clock::System);
    }
}
