//! Dates that are already absolute: `2023-05-08`, `8 May 2023`, `May 8`, `in 2023`,
//! `2023年5月8日`, `5月8号` ([`find_absolute`]).

use std::sync::LazyLock;

use autodream_core::rules::{Hit, RuleSet};
use jiff::Span;
use jiff::civil::Date;

use super::{DatePoint, Resolved, Resolver, Rule, Whole, chinese, english, scan};

/// Finds explicit dates: `2023-05-08`, `2023/05/08`, `8 May 2023`, `May 8, 2023`,
/// `May 8` and `8 May` (year inferred: the most recent such date at most two months after
/// `anchor`), `May 2023`, `in 2023` (a year after a preposition), `2023年5月8日`,
/// `2023年5月`, `2023年`, `5月8日` / `5月8号` (year inferred). Returns byte spans, in order.
pub fn find_absolute(text: &str, anchor: Date) -> Vec<(usize, usize, DatePoint)> {
    let mut found = Vec::new();
    scan(&ABSOLUTE, text, anchor, |start, end, point| found.push((start, end, point)));
    found
}

const MONTH_PATTERN: &str = r"((?i:january|february|april|june|july|august|september|october|november|december|jan|feb|mar|apr|jun|jul|aug|sept|sep|oct|nov|dec)|May|MAY|March|MARCH)";

/// Month number from an English month name or abbreviation (the first three letters
/// are unique).
fn month_number(name: &str) -> Option<i8> {
    let prefix = name.get(..3)?.to_ascii_lowercase();
    const PREFIXES: [&str; 12] =
        ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"];
    PREFIXES.iter().position(|p| *p == prefix).and_then(|i| i8::try_from(i + 1).ok())
}

fn number<T: std::str::FromStr>(text: Option<&str>) -> Option<T> {
    text?.parse().ok()
}

fn full_date(year: i16, month: i8, day: i8) -> Option<DatePoint> {
    Date::new(year, month, day).ok().map(DatePoint::Day)
}

/// A day written without its year: the most recent such date that is not more than two
/// months after the anchor (so "Jan 5" written on 2023-12-20 is 2024-01-05, and "Dec 25"
/// written on 2023-05-07 is 2022-12-25). February 29 goes back to the last leap year.
fn day_without_year(month: i8, day: i8, anchor: Date) -> Option<DatePoint> {
    let limit = anchor.checked_add(Span::new().months(2)).unwrap_or(anchor);
    let this_year = anchor.year();
    (this_year.saturating_sub(8)..=this_year.saturating_add(1))
        .rev()
        .filter_map(|year| Date::new(year, month, day).ok())
        .find(|date| *date <= limit)
        .map(DatePoint::Day)
}

/// Words after a year that say it is a quantity, not a date ("in 2048 bytes").
fn followed_by_unit(rest: &str) -> bool {
    let rest = rest.trim_start();
    let word: String = rest.chars().take_while(|c| c.is_ascii_alphanumeric() || *c == '%').collect();
    let word = word.to_ascii_lowercase();
    word.starts_with(|c: char| c.is_ascii_digit() || c == '%')
        || matches!(
            word.as_str(),
            "ms" | "s"
                | "sec"
                | "secs"
                | "seconds"
                | "b"
                | "byte"
                | "bytes"
                | "kb"
                | "mb"
                | "gb"
                | "px"
                | "line"
                | "lines"
                | "items"
                | "rows"
                | "tokens"
                | "users"
                | "files"
                | "times"
                | "tests"
                | "steps"
        )
}

fn no_digit_around(hit: &Hit<'_>) -> bool {
    !hit.char_before().is_some_and(|c| c.is_ascii_digit())
        && !hit.char_after().is_some_and(|c| c.is_ascii_digit())
}

fn absolute_rules() -> Vec<Rule> {
    let ordinal = r"(?:st|nd|rd|th)?";
    let day_month_year = format!(r"(\d{{1,2}}){ordinal}\s+(?:of\s+)?{MONTH_PATTERN}\.?,?\s+(\d{{4}})");
    let month_day_year = format!(r"{MONTH_PATTERN}\.?\s+(\d{{1,2}}){ordinal},?\s+(\d{{4}})");
    let month_year = format!(r"{MONTH_PATTERN}\.?,?\s+(?:of\s+)?(\d{{4}})");
    let month_day = format!(r"{MONTH_PATTERN}\.?\s+(\d{{1,2}}){ordinal}");
    let day_month = format!(r"(\d{{1,2}}){ordinal}\s+(?:of\s+)?{MONTH_PATTERN}");
    let bare_word = |p: &str| format!(r"(?-u:\b)(?:{p})(?-u:\b)");
    vec![
        chinese(r"(?-u:\b)(\d{4})-(\d{1,2})-(\d{1,2})|(?-u:\b)(\d{4})/(\d{1,2})/(\d{1,2})", |hit, _| {
            if hit.char_after().is_some_and(|c| c.is_ascii_digit()) {
                return None;
            }
            let (y, m, d) = if hit.group(1).is_some() { (1, 2, 3) } else { (4, 5, 6) };
            Some(hit.whole(full_date(number(hit.group(y))?, number(hit.group(m))?, number(hit.group(d))?)?))
        }),
        chinese(&bare_word(&day_month_year), |hit, _| {
            let month = month_number(hit.group(2)?)?;
            Some(hit.whole(full_date(number(hit.group(3))?, month, number(hit.group(1))?)?))
        }),
        chinese(&bare_word(&month_day_year), |hit, _| {
            let month = month_number(hit.group(1)?)?;
            Some(hit.whole(full_date(number(hit.group(3))?, month, number(hit.group(2))?)?))
        }),
        chinese(&bare_word(&month_year), |hit, _| {
            let month = month_number(hit.group(1)?)?;
            Some(hit.whole(DatePoint::Month { year: number(hit.group(2))?, month }))
        }),
        chinese(&bare_word(&month_day), |hit, anchor| {
            let month = month_number(hit.group(1)?)?;
            Some(hit.whole(day_without_year(month, number(hit.group(2))?, anchor)?))
        }),
        chinese(&bare_word(&day_month), |hit, anchor| {
            let month = month_number(hit.group(2)?)?;
            Some(hit.whole(day_without_year(month, number(hit.group(1))?, anchor)?))
        }),
        chinese(r"(\d{4})\s*年\s*(\d{1,2})\s*月\s*(\d{1,2})\s*[日号]", |hit, _| {
            if !no_digit_around(hit) {
                return None;
            }
            Some(hit.whole(full_date(number(hit.group(1))?, number(hit.group(2))?, number(hit.group(3))?)?))
        }),
        chinese(r"(\d{4})\s*年\s*(\d{1,2})\s*月", |hit, _| {
            let month: i8 = number(hit.group(2))?;
            if !no_digit_around(hit) || !(1..=12).contains(&month) {
                return None;
            }
            Some(hit.whole(DatePoint::Month { year: number(hit.group(1))?, month }))
        }),
        chinese(r"(\d{1,2})\s*月\s*(\d{1,2})\s*[日号]", |hit, anchor| {
            if !no_digit_around(hit) {
                return None;
            }
            Some(hit.whole(day_without_year(number(hit.group(1))?, number(hit.group(2))?, anchor)?))
        }),
        chinese(r"(\d{4})\s*年", |hit, _| {
            if !no_digit_around(hit) {
                return None;
            }
            Some(hit.whole(DatePoint::Year(number(hit.group(1))?)))
        }),
        // A bare year only after a preposition ("in 2022", "since 2019"): alone, a four-digit
        // number is as likely a port, a count or an issue number.
        english(
            r"(?:in|since|during|until|till|by|before|after|from|of|early|late|mid-?)\s+((?:19|20)\d\d)",
            |hit, _| {
                if followed_by_unit(hit.rest()) {
                    return None;
                }
                // The date is the year alone, not the preposition.
                let year_at = hit.group_start(1)?;
                Some(Resolved {
                    point: DatePoint::Year(number(hit.group(1))?),
                    start: year_at,
                    end: hit.end(),
                })
            },
        ),
    ]
}

static ABSOLUTE: LazyLock<RuleSet<Resolver>> = LazyLock::new(|| RuleSet::compile(absolute_rules()));

#[cfg(test)]
mod tests {
    use super::*;
    use jiff::civil::date;

    #[test]
    fn a_day_without_its_year_takes_the_most_recent_plausible_one() {
        let anchor = date(2023, 5, 7);
        // Up to two months ahead still counts as this year.
        assert_eq!(day_without_year(7, 7, anchor), Some(DatePoint::Day(date(2023, 7, 7))));
        assert_eq!(day_without_year(7, 8, anchor), Some(DatePoint::Day(date(2022, 7, 8))));
        assert_eq!(day_without_year(2, 30, anchor), None);
    }
}
