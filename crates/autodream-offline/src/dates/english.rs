//! English relative-date rules: "yesterday", "last Friday", "three weeks ago", "in two
//! weeks", "next summer", "Wednesday the 18th" (weeks start on Monday; seasons are
//! meteorological).

use std::sync::LazyLock;

use autodream_core::rules::Hit;
use jiff::civil::Date;
use regex::Regex;

use super::{DatePoint, Rule, Season, Whole, day, english, month, week, weekday_in_week, weekend, year};

/// Monday-based index (0..=6) of a weekday's English name.
fn english_weekday(name: &str) -> Option<i64> {
    const NAMES: [&str; 7] = ["monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"];
    NAMES.iter().position(|n| n.eq_ignore_ascii_case(name)).map(|i| i as i64)
}

/// The most recent day with Monday-based index `weekday` strictly before `anchor`.
fn previous_weekday(anchor: Date, weekday: i64) -> Option<DatePoint> {
    let today = i64::from(anchor.weekday().to_monday_zero_offset());
    let back = (today - weekday).rem_euclid(7);
    day(anchor, -(if back == 0 { 7 } else { back }))
}

/// The first day with Monday-based index `weekday` strictly after `anchor`.
fn following_weekday(anchor: Date, weekday: i64) -> Option<DatePoint> {
    let today = i64::from(anchor.weekday().to_monday_zero_offset());
    let ahead = (weekday - today).rem_euclid(7);
    day(anchor, if ahead == 0 { 7 } else { ahead })
}

/// Counts written in words or digits, as in "a couple of weeks ago".
const ENGLISH_COUNT: &str = r"(\d{1,4}|a\s+few|a\s+couple(?:\s+of)?|couple\s+of|few|several|an?|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve)";

fn english_count(words: &str) -> Option<i64> {
    if let Ok(n) = words.parse::<i64>() {
        return Some(n);
    }
    let mut normalized = String::with_capacity(words.len());
    for word in words.split_whitespace() {
        if !normalized.is_empty() {
            normalized.push(' ');
        }
        normalized.push_str(&word.to_ascii_lowercase());
    }
    let n = match normalized.as_str() {
        "a" | "an" | "one" => 1,
        "a couple" | "a couple of" | "couple of" | "two" => 2,
        "a few" | "few" | "several" | "three" => 3,
        "four" => 4,
        "five" => 5,
        "six" => 6,
        "seven" => 7,
        "eight" => 8,
        "nine" => 9,
        "ten" => 10,
        "eleven" => 11,
        "twelve" => 12,
        _ => return None,
    };
    Some(n)
}

/// Shifts the anchor by `count` units of a period named in English.
fn english_shift(anchor: Date, unit: &str, count: i64) -> Option<DatePoint> {
    match unit.to_ascii_lowercase().as_str() {
        "day" => day(anchor, count),
        "week" => week(anchor, count),
        "fortnight" => week(anchor, count.checked_mul(2)?),
        "weekend" => weekend(anchor, count),
        "month" => month(anchor, count),
        "year" => year(anchor, count),
        _ => None,
    }
}

/// A time ahead, to the day where the unit allows: "in two weeks" said on 2026-03-04 is
/// 2026-03-18 (a deadline is a day), "in two months" is a month.
fn ahead_shift(anchor: Date, unit: &str, count: i64) -> Option<DatePoint> {
    match unit.to_ascii_lowercase().as_str() {
        "day" => day(anchor, count),
        "week" => day(anchor, count.checked_mul(7)?),
        "fortnight" => day(anchor, count.checked_mul(14)?),
        other => english_shift(anchor, other, count),
    }
}

/// "the 18th", "Wednesday the 18th": the first such day on or after the anchor (a day of
/// the month named without its month is almost always one ahead), on that weekday when
/// one is named.
fn day_of_month_ahead(anchor: Date, day_of_month: i8, weekday: Option<i64>) -> Option<DatePoint> {
    if !(1..=31).contains(&day_of_month) {
        return None;
    }
    let mut first = anchor.first_of_month();
    for _ in 0..12 {
        if let Ok(d) = Date::new(first.year(), first.month(), day_of_month)
            && d >= anchor
            && weekday.is_none_or(|w| i64::from(d.weekday().to_monday_zero_offset()) == w)
        {
            return Some(DatePoint::Day(d));
        }
        first = first.checked_add(jiff::Span::new().months(1)).ok()?;
    }
    None
}

/// The word that places a weekday or weekend relative to the anchor.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Qualifier {
    /// "last", "previous"
    Last,
    /// "this"
    This,
    /// "coming", "this coming"
    Coming,
    /// "next"
    Next,
}

fn english_qualifier(words: &str) -> Option<Qualifier> {
    let mut words = words.split_whitespace().map(str::to_ascii_lowercase);
    let first = words.next()?;
    let second = words.next();
    match (first.as_str(), second.as_deref()) {
        ("last" | "previous", None) => Some(Qualifier::Last),
        ("this", None) => Some(Qualifier::This),
        ("coming", None) | ("this", Some("coming")) => Some(Qualifier::Coming),
        ("next", None) => Some(Qualifier::Next),
        _ => None,
    }
}

/// How many periods away a qualified period is: "the coming weekend" is this one.
fn periods_away(qualifier: Qualifier) -> i64 {
    match qualifier {
        Qualifier::Last => -1,
        Qualifier::This | Qualifier::Coming => 0,
        Qualifier::Next => 1,
    }
}

/// Does the clause before the match deny something ("haven't talked in a few days")?
fn negated_before(hit: &Hit<'_>) -> bool {
    static NEGATION_RE: LazyLock<Regex> =
        LazyLock::new(|| Regex::new(r"(?i)\b(?:not|never|no)\b|n[’']t\b").expect("valid regex"));
    let before = hit.before();
    let clause_start = before.rfind(['.', '!', '?', ',', ';']).map_or(0, |i| i + 1);
    NEGATION_RE.is_match(&before[clause_start..])
}

pub(super) fn english_rules() -> Vec<Rule> {
    let ago = format!(r"{ENGLISH_COUNT}\s+(day|week|weekend|fortnight|month|year)s?\s+ago");
    let ahead = format!(r"in\s+{ENGLISH_COUNT}\s+(day|week|fortnight|month|year)s?");
    let from_now = format!(r"{ENGLISH_COUNT}\s+(day|week|fortnight|month|year)s?\s+from\s+(?:now|today)");
    vec![
        english(r"the\s+day\s+before\s+yesterday", |hit, anchor| Some(hit.whole(day(anchor, -2)?))),
        english(r"the\s+day\s+after\s+tomorrow", |hit, anchor| Some(hit.whole(day(anchor, 2)?))),
        english(r"yesterday|last\s+night", |hit, anchor| Some(hit.whole(day(anchor, -1)?))),
        english(r"today|tonight|this\s+(?:morning|afternoon|evening)", |hit, anchor| {
            Some(hit.whole(DatePoint::Day(anchor)))
        }),
        english(r"tomorrow", |hit, anchor| Some(hit.whole(day(anchor, 1)?))),
        english(r"(last|this\s+coming|this|next|coming)\s+weekend", |hit, anchor| {
            let qualifier = english_qualifier(hit.group(1)?)?;
            Some(hit.whole(weekend(anchor, periods_away(qualifier))?))
        }),
        english(
            r"(last|this\s+coming|this|next|coming)\s+(monday|tuesday|wednesday|thursday|friday|saturday|sunday)",
            |hit, anchor| {
                let weekday = english_weekday(hit.group(2)?)?;
                let point = match english_qualifier(hit.group(1)?)? {
                    Qualifier::Last => previous_weekday(anchor, weekday)?,
                    Qualifier::This => weekday_in_week(anchor, 0, weekday)?,
                    Qualifier::Coming | Qualifier::Next => following_weekday(anchor, weekday)?,
                };
                Some(hit.whole(point))
            },
        ),
        english(
            r"(last|this\s+past|past|this\s+coming|this|next|coming)\s+(spring|summer|autumn|fall|winter)",
            |hit, anchor| {
                let words = hit.group(1)?.to_ascii_lowercase();
                let qualifier =
                    if words.ends_with("past") { Qualifier::Last } else { english_qualifier(&words)? };
                Some(hit.whole(season(anchor, Season::from_word(hit.group(2)?)?, qualifier)?))
            },
        ),
        english(r"(?:(?:earlier|later)\s+)?this\s+(week|month|year)", |hit, anchor| {
            Some(hit.whole(english_shift(anchor, hit.group(1)?, 0)?))
        }),
        english(r"(last|previous|next)\s+(week|month|year)", |hit, anchor| {
            let qualifier = english_qualifier(hit.group(1)?)?;
            Some(hit.whole(english_shift(anchor, hit.group(2)?, periods_away(qualifier))?))
        }),
        english(&ago, |hit, anchor| {
            let count = english_count(hit.group(1)?)?;
            Some(hit.whole(english_shift(anchor, hit.group(2)?, count.checked_neg()?)?))
        }),
        english(&ahead, |hit, anchor| {
            // "Haven't talked in a few days" is how long, not when.
            if negated_before(hit) {
                return None;
            }
            let count = english_count(hit.group(1)?)?;
            Some(hit.whole(ahead_shift(anchor, hit.group(2)?, count)?))
        }),
        english(&from_now, |hit, anchor| {
            let count = english_count(hit.group(1)?)?;
            Some(hit.whole(ahead_shift(anchor, hit.group(2)?, count)?))
        }),
        english(
            r"(?:(monday|tuesday|wednesday|thursday|friday|saturday|sunday),?\s+)?the\s+(\d{1,2})(?:st|nd|rd|th)",
            |hit, anchor| {
                let day_of_month: i8 = hit.group(2)?.parse().ok()?;
                let weekday = match hit.group(1) {
                    Some(name) => Some(english_weekday(name)?),
                    None => None,
                };
                Some(hit.whole(day_of_month_ahead(anchor, day_of_month, weekday)?))
            },
        ),
    ]
}

/// The season a day falls in, with the year it started in (January is last year's winter).
fn season_of(d: Date) -> (i16, Season) {
    match d.month() {
        3..=5 => (d.year(), Season::Spring),
        6..=8 => (d.year(), Season::Summer),
        9..=11 => (d.year(), Season::Autumn),
        12 => (d.year(), Season::Winter),
        _ => (d.year() - 1, Season::Winter),
    }
}

/// "last summer", "this winter", "next spring" seen from `anchor`: "last" is the most
/// recent one already over, "next" the first one not yet begun, "this" the current one or,
/// out of season, the one of the current year.
fn season(anchor: Date, season: Season, qualifier: Qualifier) -> Option<DatePoint> {
    let (now_year, now_season) = season_of(anchor);
    let starts = |year: i16| Date::new(year, season.first_month(), 1).ok();
    let year = match qualifier {
        Qualifier::This | Qualifier::Coming if now_season == season => now_year,
        Qualifier::This => {
            // Out of season: the one of the year the anchor is in (winter: the coming one).
            if season == Season::Winter && anchor.month() <= 2 { anchor.year() - 1 } else { anchor.year() }
        }
        Qualifier::Last => {
            if now_season == season || starts(anchor.year())? > anchor {
                now_year.checked_sub(1)?
            } else {
                anchor.year()
            }
        }
        Qualifier::Next | Qualifier::Coming => {
            if starts(anchor.year())? > anchor {
                anchor.year()
            } else {
                anchor.year().checked_add(1)?
            }
        }
    };
    Some(DatePoint::Season { year, season })
}

#[cfg(test)]
mod tests {
    use super::*;
    use jiff::civil::date;

    #[test]
    fn seasons_are_placed_by_the_anchor() {
        let summer = |y| DatePoint::Season { year: y, season: Season::Summer };
        let winter = |y| DatePoint::Season { year: y, season: Season::Winter };
        // In August, "last summer" is last year's; in October it is this year's.
        assert_eq!(season(date(2023, 8, 11), Season::Summer, Qualifier::Last), Some(summer(2022)));
        assert_eq!(season(date(2023, 10, 2), Season::Summer, Qualifier::Last), Some(summer(2023)));
        assert_eq!(season(date(2023, 3, 2), Season::Summer, Qualifier::Last), Some(summer(2022)));
        assert_eq!(season(date(2023, 8, 11), Season::Summer, Qualifier::This), Some(summer(2023)));
        assert_eq!(season(date(2023, 8, 11), Season::Summer, Qualifier::Next), Some(summer(2024)));
        assert_eq!(season(date(2023, 4, 1), Season::Summer, Qualifier::Next), Some(summer(2023)));
        // January belongs to the winter that began in December.
        assert_eq!(season(date(2024, 1, 15), Season::Winter, Qualifier::This), Some(winter(2023)));
        assert_eq!(season(date(2024, 1, 15), Season::Winter, Qualifier::Last), Some(winter(2022)));
        assert_eq!(season(date(2023, 5, 1), Season::Winter, Qualifier::Last), Some(winter(2022)));
        assert_eq!(summer(2022).to_string(), "summer 2022");
        assert_eq!(summer(2022).first_day(), Some(date(2022, 6, 1)));
    }

    #[test]
    fn english_counts() {
        let cases =
            [("A  couple of", 2), ("couple of", 2), ("an", 1), ("Several", 3), ("a few", 3), ("twelve", 12)];
        for (text, n) in cases {
            assert_eq!(english_count(text), Some(n), "{text}");
        }
        assert_eq!(english_count("dozen"), None);
    }
}
