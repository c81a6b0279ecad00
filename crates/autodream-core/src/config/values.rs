//! The configuration's own value types: settings whose values are more than a number or a
//! word. They live with the configuration, so that reading it needs nothing from the rooms
//! that use the values (the daemon's schedule, per-turn extraction), and those rooms depend on
//! the configuration, never the other way round.

use std::fmt;
use std::str::FromStr;
use std::time::Duration;

use jiff::Zoned;
use jiff::civil::Time;
use serde::{Serialize, Serializer};

/// `extract = …` in the configuration.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum CaptureMode {
    /// No per-turn extraction: only dreams read the sessions.
    Off,
    /// The offline engine's rules, no network (the default).
    #[default]
    Offline,
    /// The configured model picks among the user's sentences, with a small token budget;
    /// only the extractor writes, to the daily log (`autodream-llm`'s `capture`).
    Agent,
}

impl CaptureMode {
    /// Reads a configured value.
    pub fn parse(value: &str) -> Result<CaptureMode, String> {
        match value {
            "off" => Ok(CaptureMode::Off),
            "offline" => Ok(CaptureMode::Offline),
            "agent" => Ok(CaptureMode::Agent),
            other => Err(format!("{other:?} is not one of off, offline, agent")),
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            CaptureMode::Off => "off",
            CaptureMode::Offline => "offline",
            CaptureMode::Agent => "agent",
        }
    }
}

const DAY_MINUTES: u16 = 24 * 60;

/// The daily stretch of local time in which the daemon may start a dream. `start` is
/// inside, `end` is not; when `end` is not after `start` the window wraps midnight
/// (`22:00-04:00`). `00:00-24:00` is the whole day.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DreamWindow {
    /// Minutes after midnight, `0..1440`.
    start: u16,
    /// Minutes after midnight, `1..=1440`.
    end: u16,
}

/// Why a `dream_window` value was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum WindowError {
    #[error("{0:?} is not a window: expected HH:MM-HH:MM in local time, e.g. \"02:00-05:00\"")]
    Shape(String),
    #[error("{0:?} is not a time of day (00:00 to 23:59, or 24:00 as the end)")]
    Time(String),
    #[error("{0:?} is empty: start and end are the same (use \"00:00-24:00\" for the whole day)")]
    Empty(String),
}

impl DreamWindow {
    /// 02:00–05:00, the default: the small hours, when an always-on assistant is idle.
    pub const NIGHT: DreamWindow = DreamWindow { start: 2 * 60, end: 5 * 60 };

    /// Is `t` (a local time of day) inside the window?
    pub fn contains(&self, t: Time) -> bool {
        let m = minutes_of(t);
        if self.start < self.end { self.start <= m && m < self.end } else { m >= self.start || m < self.end }
    }

    /// Does the window wrap midnight?
    pub fn wraps(&self) -> bool {
        self.end <= self.start && self.end != DAY_MINUTES
    }

    /// When the window next opens after `now` (`now` itself when it is open).
    pub fn next_opening(&self, now: &Zoned) -> Zoned {
        if self.contains(now.time()) {
            return now.clone();
        }
        let today = now.date();
        let m = minutes_of(now.time());
        let day = if m < self.start { today } else { today.tomorrow().unwrap_or(today) };
        let start =
            Time::new((self.start / 60) as i8, (self.start % 60) as i8, 0, 0).unwrap_or(Time::midnight());
        day.to_datetime(start).to_zoned(now.time_zone().clone()).unwrap_or_else(|_| now.clone())
    }

    /// "01:00 is outside 02:00-05:00; it opens in 1h" or "03:00 is inside 02:00-05:00".
    pub fn describe(&self, now: &Zoned) -> String {
        let hm = now.strftime("%H:%M");
        if self.contains(now.time()) {
            format!("{hm} is inside {self}")
        } else {
            let wait = self.next_opening(now).timestamp().as_second() - now.timestamp().as_second();
            let wait = crate::clock::human_duration(Duration::from_secs(wait.max(0) as u64));
            format!("{hm} is outside {self}; it opens in {wait}")
        }
    }
}

impl Default for DreamWindow {
    fn default() -> Self {
        DreamWindow::NIGHT
    }
}

fn minutes_of(t: Time) -> u16 {
    t.hour() as u16 * 60 + t.minute() as u16
}

fn parse_hm(s: &str, allow_24: bool) -> Option<u16> {
    let (h, m) = s.trim().split_once(':')?;
    if h.is_empty()
        || h.len() > 2
        || m.len() != 2
        || !(h.bytes().chain(m.bytes()).all(|b| b.is_ascii_digit()))
    {
        return None;
    }
    let (h, m): (u16, u16) = (h.parse().ok()?, m.parse().ok()?);
    match (h, m) {
        (24, 0) if allow_24 => Some(DAY_MINUTES),
        (0..=23, 0..=59) => Some(h * 60 + m),
        _ => None,
    }
}

impl FromStr for DreamWindow {
    type Err = WindowError;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let text = s.trim();
        let Some((a, b)) = text.split_once('-') else { return Err(WindowError::Shape(s.to_string())) };
        let start = parse_hm(a, false).ok_or_else(|| {
            if a.contains(':') {
                WindowError::Time(a.trim().to_string())
            } else {
                WindowError::Shape(s.to_string())
            }
        })?;
        let end = parse_hm(b, true).ok_or_else(|| {
            if b.contains(':') {
                WindowError::Time(b.trim().to_string())
            } else {
                WindowError::Shape(s.to_string())
            }
        })?;
        if start == end {
            return Err(WindowError::Empty(s.to_string()));
        }
        Ok(DreamWindow { start, end })
    }
}

impl fmt::Display for DreamWindow {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let hm = |m: u16| format!("{:02}:{:02}", m / 60, m % 60);
        write!(f, "{}-{}", hm(self.start), hm(self.end))
    }
}

impl Serialize for DreamWindow {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}
