//! Relative dates in free text, resolved to absolute ones (English and Chinese).
//!
//! A fact kept in memory must still be true when it is read months later, so "yesterday"
//! in a note written on 2023-05-08 has to become "2023-05-07". The resolver anchors every
//! expression on the date of the statement that contains it (the session or log entry
//! date), never on today.
//!
//! The phrases are a static table of patterns, each with its own resolver function; the
//! table is compiled once into a single regular expression (one capture group per rule),
//! so a scan is one pass over the text whatever the number of rules. A separate, smaller
//! table recognises dates that are already absolute ([`find_absolute`]).
//!
//! Deliberately **not** resolved, because they do not name a period: "recently", "the
//! other day", "lately", "a while ago", "over the weekend", a bare weekday ("on Friday"),
//! "N days later" (relative to some event, not to the statement); in Chinese 刚才, 最近,
//! 前几天, 近日, a bare weekday (周五) and "N天后". Leaving them alone is better than
//! writing a precise-looking date that is wrong.
//!
//! Conventions (weeks start on Monday):
//! - `last <weekday>` is the most recent such day strictly before the anchor, "next" /
//!   `coming <weekday>` the first one strictly after it, `this <weekday>` the one in the
//!   anchor's week; Chinese 上周四 / 下周一 / 这周五 name the day in the previous / next /
//!   current week.
//! - "this weekend" is the coming Saturday, or the current one when the anchor falls on a
//!   Saturday or Sunday; "last weekend" is the one before that, "next weekend" the one after.
//! - "last week" / "N weeks ago" are the week (rendered by its Monday) N weeks before the
//!   anchor's week; months and years shift the calendar month or year.
//! - Seasons are meteorological (summer is June to August, winter December to February):
//!   "last summer" is the most recent one already over, "next" the first not yet begun.
//!
//! In memory, [`resolve`] writes the date in place of the words where it reads ("on
//! 2023-05-07", "the week of 2023-05-01", "in summer 2022"), and after them in parentheses
//! where it would not; [`annotate`] always writes the parenthesis.
//!
//! This module holds the types, [`resolve`] / [`annotate`] and the scanner the rule tables
//! share; the English rules, the Chinese rules and the absolute-date table are submodules
//! (`english`, `chinese`, `absolute`).

use std::fmt;
use std::sync::LazyLock;

use autodream_core::rules::{Hit, RuleSet};
use jiff::Span;
use jiff::civil::Date;
use regex::Regex;

pub use absolute::find_absolute;

mod absolute;
mod chinese;
mod english;

/// An absolute point or period on the calendar, as precise as the phrase allows.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum DatePoint {
    /// One calendar day.
    Day(Date),
    /// A Monday-to-Sunday week, identified by its Monday.
    Week(Date),
    /// A weekend, identified by its Saturday.
    Weekend(Date),
    /// A calendar month.
    Month { year: i16, month: i8 },
    /// A calendar year.
    Year(i16),
    /// A season of the northern meteorological calendar, by the year it starts in: spring
    /// is March to May, summer June to August, autumn September to November, winter
    /// December to February.
    Season { year: i16, season: Season },
}

/// The four seasons, in calendar order from March.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Season {
    Spring,
    Summer,
    Autumn,
    Winter,
}

impl Season {
    fn from_word(word: &str) -> Option<Season> {
        Some(match word.to_ascii_lowercase().as_str() {
            "spring" => Season::Spring,
            "summer" => Season::Summer,
            "autumn" | "fall" => Season::Autumn,
            "winter" => Season::Winter,
            _ => return None,
        })
    }

    /// The month the season starts in.
    fn first_month(self) -> i8 {
        match self {
            Season::Spring => 3,
            Season::Summer => 6,
            Season::Autumn => 9,
            Season::Winter => 12,
        }
    }

    fn name(self) -> &'static str {
        match self {
            Season::Spring => "spring",
            Season::Summer => "summer",
            Season::Autumn => "autumn",
            Season::Winter => "winter",
        }
    }
}

/// English month names, January first (shared by the renderers and the evaluation).
pub const MONTH_NAMES: [&str; 12] = [
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

/// `8 May 2023`: the day a memory line opens with, written the way people write it.
pub fn long_date(d: Date) -> String {
    format!("{} {} {}", d.day(), MONTH_NAMES[(d.month() - 1) as usize], d.year())
}

impl DatePoint {
    /// The text written into memory: `2023-05-07`, `week of 2023-05-01`,
    /// `weekend of 2023-05-06`, `May 2023` or `2023` (forms that date parsers read back).
    pub fn render(&self) -> String {
        self.to_string()
    }

    /// The first calendar day the point covers (for ordering facts in time).
    pub fn first_day(&self) -> Option<Date> {
        match *self {
            DatePoint::Day(d) | DatePoint::Week(d) | DatePoint::Weekend(d) => Some(d),
            DatePoint::Month { year, month } => Date::new(year, month, 1).ok(),
            DatePoint::Year(year) => Date::new(year, 1, 1).ok(),
            DatePoint::Season { year, season } => Date::new(year, season.first_month(), 1).ok(),
        }
    }
}

impl fmt::Display for DatePoint {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            DatePoint::Day(d) => write!(f, "{d}"),
            DatePoint::Week(monday) => write!(f, "week of {monday}"),
            DatePoint::Weekend(saturday) => write!(f, "weekend of {saturday}"),
            DatePoint::Month { year, month } => match month_name(month) {
                Some(name) => write!(f, "{name} {year}"),
                None => write!(f, "{year}-{month:02}"),
            },
            DatePoint::Year(year) => write!(f, "{year}"),
            DatePoint::Season { year, season } => write!(f, "{} {year}", season.name()),
        }
    }
}

fn month_name(month: i8) -> Option<&'static str> {
    usize::try_from(month).ok().and_then(|m| m.checked_sub(1)).and_then(|i| MONTH_NAMES.get(i)).copied()
}

/// A relative time expression found in a text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Mention {
    /// Byte offset of the phrase in the text.
    pub start: usize,
    /// Byte offset just past the phrase.
    pub end: usize,
    /// The phrase as written.
    pub phrase: String,
    /// What it resolves to.
    pub point: DatePoint,
}

/// Finds the relative time expressions of `text` and resolves them against `anchor` (the
/// date the text was written). Mentions are non-overlapping and in text order.
pub fn find_relative(text: &str, anchor: Date) -> Vec<Mention> {
    let mut mentions = Vec::new();
    scan(&RELATIVE, text, anchor, |start, end, point| {
        mentions.push(Mention { start, end, phrase: text[start..end].to_string(), point });
    });
    mentions
}

/// Returns `text` with ` (<absolute date>)` inserted after each relative expression, e.g.
/// "we shipped it yesterday (2023-05-07)". A mention already followed by a parenthesis
/// holding a date (a previous annotation, or the author's own) is left as it is, so
/// annotating twice changes nothing.
pub fn annotate(text: &str, anchor: Date) -> String {
    let mut out: Option<String> = None;
    let mut copied = 0;
    scan(&RELATIVE, text, anchor, |_, end, point| {
        if already_annotated(&text[end..]) {
            return;
        }
        let buffer = out.get_or_insert_with(|| String::with_capacity(text.len() + 32));
        buffer.push_str(&text[copied..end]);
        buffer.push_str(" (");
        buffer.push_str(&point.render());
        buffer.push(')');
        copied = end;
    });
    match out {
        Some(mut buffer) => {
            buffer.push_str(&text[copied..]);
            buffer
        }
        None => text.to_string(),
    }
}

/// Words after which a replacement would not read ("since on 2023-05-07"): the mention
/// keeps its words and gets its date in parentheses.
const NO_REPLACE_AFTER: &[&str] = &[
    "since", "from", "until", "till", "til", "by", "for", "of", "in", "on", "at", "before", "after",
    "through", "during", "over", "within", "to", "than", "the", "a", "an", "about", "around", "like", "as",
    "between", "and", "or", "every",
];

/// Verbs after which the expression before them is their subject.
const SUBJECT_VERBS: &[&str] = &[
    "was", "is", "were", "are", "has", "had", "have", "will", "would", "seemed", "felt", "feels", "went",
    "flew",
];

impl DatePoint {
    /// The words that can stand where a relative expression was: `on 2023-05-07`, `the
    /// week of 2023-05-01`, `the weekend of 2023-05-06`, `in May 2023`, `in 2023`.
    pub fn in_place(&self) -> String {
        match self {
            DatePoint::Day(_) => format!("on {self}"),
            DatePoint::Week(_) | DatePoint::Weekend(_) => format!("the {self}"),
            DatePoint::Month { .. } | DatePoint::Year(_) => format!("in {self}"),
            DatePoint::Season { .. } => format!("in {self}"),
        }
    }
}

/// Returns `text` with each relative expression replaced by the absolute date it means,
/// worded to read in its place: "we shipped it yesterday" → "we shipped it on 2023-05-07",
/// "last week" → "the week of 2023-05-01", "three years ago" → "in 2020". Memory is read
/// long after it was written, when "yesterday" means nothing, and the date alone is
/// shorter. Where a replacement would not read — after a preposition ("since last week"),
/// before a possessive ("last week's"), in Chinese — the words stay and the date follows
/// in parentheses, as [`annotate`] writes it. A mention already followed by a date in
/// parentheses is left as it is, so resolving twice changes nothing.
pub fn resolve(text: &str, anchor: Date) -> String {
    let mut out: Option<String> = None;
    let mut copied = 0;
    scan(&RELATIVE, text, anchor, |start, end, point| {
        let rest = &text[end..];
        let after_possessive = rest.strip_prefix("'s").or_else(|| rest.strip_prefix("’s")).unwrap_or(rest);
        if already_annotated(after_possessive) {
            return;
        }
        let buffer = out.get_or_insert_with(|| String::with_capacity(text.len() + 32));
        buffer.push_str(&text[copied..start]);
        copied = end;
        let phrase = &text[start..end];
        let before = text[..start].trim_end();
        let previous_word = before
            .rsplit(|c: char| !(c.is_alphanumeric() || c == '\'' || c == '’'))
            .next()
            .unwrap_or("")
            .to_lowercase();
        let possessive = rest.starts_with("'s") || rest.starts_with("’s");
        // "Yesterday was fun": the expression is the subject, and a date cannot be.
        let next_word = rest.trim_start().split(|c: char| !c.is_alphanumeric()).next().unwrap_or("");
        let subject = SUBJECT_VERBS.contains(&next_word.to_lowercase().as_str());
        let replaceable = phrase.is_ascii()
            && !possessive
            && !subject
            && !NO_REPLACE_AFTER.contains(&previous_word.as_str())
            && !previous_word.ends_with("'s")
            && !previous_word.ends_with("’s");
        if replaceable {
            let words = point.in_place();
            // A sentence that opened with the expression opens with its replacement.
            let opens_sentence = before.is_empty() || before.ends_with(['.', '!', '?', ':', '"', '“']);
            if opens_sentence && phrase.starts_with(|c: char| c.is_uppercase()) {
                buffer.push_str(&capitalise(&words));
            } else {
                buffer.push_str(&words);
            }
        } else {
            buffer.push_str(phrase);
            if possessive {
                // "last week's (week of 2023-05-01) game", not "last week (…)'s game".
                let mark = if rest.starts_with("'s") { "'s" } else { "’s" };
                buffer.push_str(mark);
                copied += mark.len();
            }
            buffer.push_str(" (");
            buffer.push_str(&point.render());
            buffer.push(')');
        }
    });
    match out {
        Some(mut buffer) => {
            buffer.push_str(&text[copied..]);
            buffer
        }
        None => text.to_string(),
    }
}

fn capitalise(s: &str) -> String {
    let mut cs = s.chars();
    match cs.next() {
        Some(first) => first.to_uppercase().chain(cs).collect(),
        None => String::new(),
    }
}

/// A resolved date as fact text carries it: in parentheses after the words that said it
/// (`(2023-05-07)`, `(week of 2023-05-01)`, `(May 2023)`, `(2020)`), or in their place
/// (`on 2023-05-07`, `the week of 2023-05-01`, `in May 2023`, `in 2020`).
pub static RESOLVED_DATE_RE: LazyLock<Regex> = LazyLock::new(|| {
    let point = r"(?:\d{4}-\d{2}-\d{2}|(?:January|February|March|April|May|June|July|August|September|October|November|December) \d{4}|\d{4})";
    let season = r"(?:spring|summer|autumn|winter)";
    Regex::new(&format!(
        r"\((?<paren>(?:week of |weekend of |{season} )?{point})\)|\b(?:[Oo]n|[Ii]n) (?<prep>(?:{season} )?{point})\b|\b[Tt]he (?<period>(?:week|weekend) of \d{{4}}-\d{{2}}-\d{{2}})\b"
    ))
    .expect("valid regex")
});

/// Parenthesised remarks holding a year: date annotations, the author's or ours.
static DATE_REMARK_RE: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"\s?\((?:[^()]*?\b\d{4}\b[^()]*)\)").expect("valid regex"));

/// A fact text without the dates it carries (annotations in parentheses and dates written
/// in place of their words), for judging and comparing what it says.
pub fn without_dates(text: &str) -> std::borrow::Cow<'_, str> {
    match DATE_REMARK_RE.replace_all(text, "") {
        std::borrow::Cow::Borrowed(t) => RESOLVED_DATE_RE.replace_all(t, ""),
        std::borrow::Cow::Owned(t) => {
            std::borrow::Cow::Owned(RESOLVED_DATE_RE.replace_all(&t, "").into_owned())
        }
    }
}

/// The resolved dates a fact text carries, as [`DatePoint`] renders them (`2023-05-07`,
/// `week of 2023-05-01`), however they are written.
pub fn resolved_dates(text: &str) -> std::collections::BTreeSet<String> {
    RESOLVED_DATE_RE
        .captures_iter(text)
        .filter_map(|c| c.name("paren").or_else(|| c.name("prep")).or_else(|| c.name("period")))
        .map(|m| m.as_str().to_string())
        .collect()
}

/// Is `rest` (the text right after a mention) a parenthesis holding a date?
fn already_annotated(rest: &str) -> bool {
    let rest = rest.trim_start_matches([' ', '\t']);
    let Some(inner) = rest.strip_prefix('(').or_else(|| rest.strip_prefix('（')) else {
        return false;
    };
    let Some(close) = inner.find([')', '）']) else {
        return false;
    };
    // A long parenthesis is a remark, not a date annotation.
    let content = &inner[..close];
    // A year makes it a date: "(Wednesday the 18th)" is the author's hint, not a resolution.
    content.len() <= 64
        && !content.contains(['(', '（'])
        && content.as_bytes().windows(4).any(|w| w.iter().all(u8::is_ascii_digit))
}

// ---------------------------------------------------------------------------------- engine

/// What a rule made of its match: the point, and where the phrase really is (a rule may
/// match surrounding words only to decide what the phrase means).
struct Resolved {
    point: DatePoint,
    start: usize,
    end: usize,
}

/// A resolution whose phrase is the whole match.
trait Whole {
    fn whole(&self, point: DatePoint) -> Resolved;
}

impl Whole for Hit<'_> {
    fn whole(&self, point: DatePoint) -> Resolved {
        Resolved { point, start: self.start(), end: self.end() }
    }
}

type Resolver = fn(&Hit<'_>, Date) -> Option<Resolved>;

/// A phrase family: a pattern and the function that turns its match into a date.
type Rule = (String, Resolver);

/// English patterns are case-insensitive and must stand as whole words. The boundary is
/// the ASCII one so that a Chinese character next to an English phrase still counts as a
/// boundary, and so the lazy DFA never has to give up on non-ASCII text.
fn english(pattern: &str, resolve: Resolver) -> Rule {
    (format!(r"(?-u:\b)(?i:{pattern})(?-u:\b)"), resolve)
}

/// Chinese has no spaces between words, so no boundary assertion: context checks in the
/// resolvers reject the known look-alikes (然后天气, 周期, 一下周报 ...).
fn chinese(pattern: &str, resolve: Resolver) -> Rule {
    (pattern.to_string(), resolve)
}

/// Runs a rule set over `text`, calling `emit` for each resolved phrase, left to right,
/// without overlaps. Allocates nothing when there is no match. A rejected match (or an
/// empty phrase) is retried one character later; a resolved one continues after its phrase.
fn scan(set: &RuleSet<Resolver>, text: &str, anchor: Date, mut emit: impl FnMut(usize, usize, DatePoint)) {
    set.scan(text, |resolve, hit| {
        let Resolved { point, start, end } =
            resolve(hit, anchor).filter(|phrase| phrase.end > phrase.start)?;
        emit(start, end, point);
        Some(end)
    });
}

// ------------------------------------------------------------------------ date arithmetic

fn add_days(date: Date, days: i64) -> Option<Date> {
    date.checked_add(Span::new().try_days(days).ok()?).ok()
}

fn day(anchor: Date, days: i64) -> Option<DatePoint> {
    add_days(anchor, days).map(DatePoint::Day)
}

fn monday_of(date: Date) -> Option<Date> {
    add_days(date, -i64::from(date.weekday().to_monday_zero_offset()))
}

fn week(anchor: Date, weeks: i64) -> Option<DatePoint> {
    add_days(monday_of(anchor)?, weeks.checked_mul(7)?).map(DatePoint::Week)
}

/// The Saturday of "this weekend" is the Monday of the anchor's week plus five days,
/// which is the coming Saturday on weekdays and the current one on Saturday and Sunday.
fn weekend(anchor: Date, weekends: i64) -> Option<DatePoint> {
    add_days(monday_of(anchor)?, weekends.checked_mul(7)?.checked_add(5)?).map(DatePoint::Weekend)
}

fn month(anchor: Date, months: i64) -> Option<DatePoint> {
    let index = i64::from(anchor.year()) * 12 + i64::from(anchor.month() - 1) + months;
    let year = i16::try_from(index.div_euclid(12)).ok().filter(|y| (-9999..=9999).contains(y))?;
    let month = i8::try_from(index.rem_euclid(12) + 1).ok()?;
    Some(DatePoint::Month { year, month })
}

fn year(anchor: Date, years: i64) -> Option<DatePoint> {
    let year = i64::from(anchor.year()).checked_add(years)?;
    i16::try_from(year).ok().filter(|y| (-9999..=9999).contains(y)).map(DatePoint::Year)
}

/// The day with Monday-based index `weekday` in the week `weeks` away from the anchor's.
fn weekday_in_week(anchor: Date, weeks: i64, weekday: i64) -> Option<DatePoint> {
    add_days(monday_of(anchor)?, weeks.checked_mul(7)?.checked_add(weekday)?).map(DatePoint::Day)
}

static RELATIVE: LazyLock<RuleSet<Resolver>> = LazyLock::new(|| {
    let mut rules = english::english_rules();
    rules.extend(chinese::chinese_rules());
    RuleSet::compile(rules)
});

#[cfg(test)]
mod tests {
    use super::*;
    use jiff::civil::date;

    #[test]
    fn resolved_in_place_where_the_date_reads_in_parentheses_where_it_would_not() {
        let anchor = date(2023, 5, 8);
        let cases = [
            ("I went to a support group yesterday.", "I went to a support group on 2023-05-07."),
            ("Last Friday, we went out.", "On 2023-05-05, we went out."),
            ("Tomorrow I fly.", "On 2023-05-09 I fly."),
            (
                "We moved three years ago and adopted a dog last week.",
                "We moved in 2020 and adopted a dog the week of 2023-05-01.",
            ),
            ("The show is next month!", "The show is in June 2023!"),
            ("We went camping last weekend.", "We went camping the weekend of 2023-05-06."),
            ("We hiked a lot last summer.", "We hiked a lot in summer 2022."),
            ("This past winter was cold.", "This past winter (winter 2022) was cold."),
            ("Yesterday was fun.", "Yesterday (2023-05-07) was fun."),
            // After a preposition, before a possessive, in Chinese: the date in parentheses.
            ("Busy since last week.", "Busy since last week (week of 2023-05-01)."),
            ("Can't wait for tomorrow!", "Can't wait for tomorrow (2023-05-09)!"),
            ("Last week's game was fun.", "Last week's (week of 2023-05-01) game was fun."),
            ("我昨天去了杭州。", "我昨天 (2023-05-07)去了杭州。"),
            // Resolving twice changes nothing.
            ("We met yesterday (2023-05-07).", "We met yesterday (2023-05-07)."),
            ("We met on 2023-05-07.", "We met on 2023-05-07."),
        ];
        for (text, want) in cases {
            assert_eq!(resolve(text, anchor), want, "{text}");
            assert_eq!(resolve(want, anchor), want, "twice: {text}");
        }
    }

    #[test]
    fn resolved_dates_are_found_however_they_are_written() {
        let found = resolved_dates(
            "We met on 2023-05-07, moved in 2020, hiked the week of 2023-05-01 and (May 2023), swam in summer 2022.",
        );
        let want: Vec<&str> = vec!["2020", "2023-05-07", "May 2023", "summer 2022", "week of 2023-05-01"];
        assert_eq!(found.iter().map(String::as_str).collect::<Vec<_>>(), want);
        assert!(resolved_dates("The 2020 Olympics were on TV.").is_empty());
    }

    #[test]
    fn the_edges_of_the_calendar_yield_nothing_instead_of_panicking() {
        let last = date(9999, 12, 31);
        assert!(find_relative("tomorrow, next week, next month, next year, in 3 days", last).is_empty());
        let first = date(-9999, 1, 1);
        assert!(find_relative("yesterday, last week, last month, 去年, 9999 years ago", first).is_empty());
        // Only the phrase that fits is kept.
        let mentions = find_relative("yesterday and tomorrow", last);
        assert_eq!(mentions.len(), 1);
        assert_eq!(mentions[0].point, DatePoint::Day(date(9999, 12, 30)));
    }

    #[test]
    fn a_parenthesis_counts_as_an_annotation_only_when_it_holds_a_date() {
        assert!(already_annotated(" (2023-05-07) and"));
        assert!(already_annotated("（2023年5月7日）"));
        assert!(already_annotated("(= 7 May 2023)"));
        assert!(!already_annotated(" (see below)"));
        assert!(!already_annotated(" and (2023-05-07)"));
        assert!(!already_annotated(" (unclosed 2023"));
    }

    #[test]
    fn month_shifts_roll_over_years_both_ways() {
        assert_eq!(month(date(2023, 1, 31), -1), Some(DatePoint::Month { year: 2022, month: 12 }));
        assert_eq!(month(date(2023, 12, 1), 1), Some(DatePoint::Month { year: 2024, month: 1 }));
        assert_eq!(month(date(2023, 5, 1), -29), Some(DatePoint::Month { year: 2020, month: 12 }));
    }

    #[test]
    fn first_day_orders_points_in_time() {
        assert_eq!(DatePoint::Month { year: 2023, month: 5 }.first_day(), Some(date(2023, 5, 1)));
        assert_eq!(DatePoint::Year(2022).first_day(), Some(date(2022, 1, 1)));
        assert_eq!(DatePoint::Month { year: 2023, month: 13 }.first_day(), None);
    }
}
