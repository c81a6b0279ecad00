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

use std::fmt;
use std::sync::LazyLock;

use autodream_core::rules::{Hit, RuleSet};
use jiff::Span;
use jiff::civil::Date;
use regex::Regex;

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

/// Finds explicit dates: `2023-05-08`, `2023/05/08`, `8 May 2023`, `May 8, 2023`,
/// `May 8` and `8 May` (year inferred: the most recent such date at most two months after
/// `anchor`), `May 2023`, `in 2023` (a year after a preposition), `2023年5月8日`,
/// `2023年5月`, `2023年`, `5月8日` / `5月8号` (year inferred). Returns byte spans, in order.
pub fn find_absolute(text: &str, anchor: Date) -> Vec<(usize, usize, DatePoint)> {
    let mut found = Vec::new();
    scan(&ABSOLUTE, text, anchor, |start, end, point| found.push((start, end, point)));
    found
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

/// Monday-based index (0..=6) of a weekday's English name.
fn english_weekday(name: &str) -> Option<i64> {
    const NAMES: [&str; 7] = ["monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"];
    NAMES.iter().position(|n| n.eq_ignore_ascii_case(name)).map(|i| i as i64)
}

/// Monday-based index of a Chinese weekday character (日 and 天 are Sunday).
fn chinese_weekday(name: &str) -> Option<i64> {
    match name {
        "一" => Some(0),
        "二" => Some(1),
        "三" => Some(2),
        "四" => Some(3),
        "五" => Some(4),
        "六" => Some(5),
        "日" | "天" => Some(6),
        _ => None,
    }
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

/// The day with Monday-based index `weekday` in the week `weeks` away from the anchor's.
fn weekday_in_week(anchor: Date, weeks: i64, weekday: i64) -> Option<DatePoint> {
    add_days(monday_of(anchor)?, weeks.checked_mul(7)?.checked_add(weekday)?).map(DatePoint::Day)
}

// ------------------------------------------------------------------------- English rules

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

fn english_rules() -> Vec<Rule> {
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

// ------------------------------------------------------------------------- Chinese rules

/// Chinese numerals up to 99 (一 … 九十九, 两 for 2), 几 ("a few") as 3, or digits.
fn chinese_count(text: &str) -> Option<i64> {
    if let Ok(n) = text.parse::<i64>() {
        return Some(n);
    }
    if text == "几" {
        return Some(3);
    }
    fn digit(c: char) -> Option<i64> {
        Some(match c {
            '一' => 1,
            '二' | '两' => 2,
            '三' => 3,
            '四' => 4,
            '五' => 5,
            '六' => 6,
            '七' => 7,
            '八' => 8,
            '九' => 9,
            _ => return None,
        })
    }
    let chars: Vec<char> = text.chars().collect();
    match chars.as_slice() {
        ['十'] => Some(10),
        [single] => digit(*single),
        ['十', units] => Some(10 + digit(*units)?),
        [tens, '十'] => Some(digit(*tens)? * 10),
        [tens, '十', units] => Some(digit(*tens)? * 10 + digit(*units)?),
        _ => None,
    }
}

/// 上 / 下 / 这 / 本 as a number of periods (上上 and 下下 are two).
fn chinese_direction(prefix: &str) -> Option<i64> {
    match prefix {
        "上上" => Some(-2),
        "上" => Some(-1),
        "这" | "本" => Some(0),
        "下" => Some(1),
        "下下" => Some(2),
        _ => None,
    }
}

/// Rejects a 上 / 下 prefix that really ends another word: 晚上 (evening), 马上
/// (at once), 一下 ("a bit", as in 看一下周报).
fn chinese_prefix_is_word_end(hit: &Hit<'_>, prefix: &str) -> bool {
    let Some(before) = hit.char_before() else {
        return false;
    };
    match prefix {
        "上" | "上上" => "晚早马路线以身网手桌加向往".contains(before),
        "下" | "下下" => "一以如两底".contains(before),
        _ => false,
    }
}

/// 前天 / 后天 that are really the ends and starts of other words: 然后天气, 之前天, 后天性.
fn chinese_day_word_is_split(hit: &Hit<'_>) -> bool {
    hit.char_before().is_some_and(|c| "之以然最先落背往向".contains(c))
        || hit.char_after().is_some_and(|c| "气性然空".contains(c))
}

fn chinese_rules() -> Vec<Rule> {
    vec![
        chinese(r"大前天", |hit, anchor| Some(hit.whole(day(anchor, -3)?))),
        chinese(r"前天", |hit, anchor| {
            if chinese_day_word_is_split(hit) {
                return None;
            }
            Some(hit.whole(day(anchor, -2)?))
        }),
        chinese(r"昨天|昨日|昨晚|昨夜", |hit, anchor| Some(hit.whole(day(anchor, -1)?))),
        chinese(r"今天|今日|今晚|今早|今夜", |hit, anchor| Some(hit.whole(DatePoint::Day(anchor)))),
        chinese(r"明天|明日|明晚|明早", |hit, anchor| Some(hit.whole(day(anchor, 1)?))),
        chinese(r"大后天", |hit, anchor| Some(hit.whole(day(anchor, 3)?))),
        chinese(r"后天", |hit, anchor| {
            if chinese_day_word_is_split(hit) {
                return None;
            }
            Some(hit.whole(day(anchor, 2)?))
        }),
        // Weekends before weeks: 上周末 is a weekend, not 上周 followed by 末.
        chinese(r"(?:(上上|上|下下|下|这|本)个?)?(?:周|星期|礼拜)末", |hit, anchor| {
            let direction = match hit.group(1) {
                Some(prefix) => {
                    if chinese_prefix_is_word_end(hit, prefix) {
                        return None;
                    }
                    chinese_direction(prefix)?
                }
                // A bare 周末 after a measure word (每个周末, 一个周末) names no weekend.
                None if hit.char_before().is_some_and(|c| "个每些几两有多等".contains(c)) => {
                    return None;
                }
                None => 0,
            };
            Some(hit.whole(weekend(anchor, direction)?))
        }),
        // A day of a named week: 上周四, 下星期一, 这个礼拜天. The optional trailing
        // character catches 上周一次 / 下周三天 / 上周一起, where the numeral counts
        // something and the phrase is only 上周.
        chinese(
            r"(上上|上|下下|下|这|本)个?(?:周([一二三四五六日])|(?:星期|礼拜)([一二三四五六日天]))([次共直起样些切般定整阵致同律半天个位名场篇份项条件回遍年种家期])?",
            |hit, anchor| {
                let prefix = hit.group(1)?;
                if chinese_prefix_is_word_end(hit, prefix) {
                    return None;
                }
                let direction = chinese_direction(prefix)?;
                if hit.group(4).is_some() {
                    let weekday_at = hit.group_start(2).or_else(|| hit.group_start(3))?;
                    return Some(Resolved {
                        point: week(anchor, direction)?,
                        start: hit.start(),
                        end: weekday_at,
                    });
                }
                let weekday = chinese_weekday(hit.group(2).or_else(|| hit.group(3))?)?;
                Some(hit.whole(weekday_in_week(anchor, direction, weekday)?))
            },
        ),
        chinese(
            r"(上上|上|下下|下|这|本)个?(?:周|星期|礼拜)([期围边折转刊报岁长])?",
            |hit, anchor| {
                let prefix = hit.group(1)?;
                // 周期 (cycle), 周围 (around), 周报 (weekly report) ... are other words.
                if hit.group(2).is_some() || chinese_prefix_is_word_end(hit, prefix) {
                    return None;
                }
                Some(hit.whole(week(anchor, chinese_direction(prefix)?)?))
            },
        ),
        chinese(r"(上上|上|下下|下|这|本)个?月([球亮光台饼])?", |hit, anchor| {
            let prefix = hit.group(1)?;
            // 上月球 (to the moon) and friends.
            if hit.group(2).is_some() || chinese_prefix_is_word_end(hit, prefix) {
                return None;
            }
            Some(hit.whole(month(anchor, chinese_direction(prefix)?)?))
        }),
        chinese(r"大前年|前年|去年|今年|明年|后年", |hit, anchor| {
            let phrase = hit.group(0)?;
            let offset = match phrase {
                "大前年" => -3,
                "前年" => -2,
                "去年" => -1,
                "今年" => 0,
                "明年" => 1,
                _ => 2,
            };
            // 之前年度 / 以后年份: the year word is split across two words.
            if matches!(phrase, "前年" | "后年")
                && hit.char_before().is_some_and(|c| "之以然最年".contains(c))
            {
                return None;
            }
            Some(hit.whole(year(anchor, offset)?))
        }),
        chinese(
            r"(\d{1,3}|[一二两三四五六七八九十]{1,3}|几|半)\s*(天|日|周|个星期|星期|个礼拜|礼拜|个月|年)\s*(?:以前|之前|前)",
            |hit, anchor| {
                // 2023年前 is "before 2023", not "23 years ago".
                if hit.char_before().is_some_and(|c| c.is_ascii_digit()) {
                    return None;
                }
                let count = hit.group(1)?;
                let unit = hit.group(2)?;
                let point = if count == "半" {
                    match unit {
                        "年" => month(anchor, -6)?,
                        "个月" => week(anchor, -2)?,
                        _ => return None,
                    }
                } else {
                    let n = chinese_count(count)?.checked_neg()?;
                    match unit {
                        "天" | "日" => day(anchor, n)?,
                        "周" | "个星期" | "星期" | "个礼拜" | "礼拜" => week(anchor, n)?,
                        "个月" => month(anchor, n)?,
                        _ => year(anchor, n)?,
                    }
                };
                Some(hit.whole(point))
            },
        ),
    ]
}

static RELATIVE: LazyLock<RuleSet<Resolver>> = LazyLock::new(|| {
    let mut rules = english_rules();
    rules.extend(chinese_rules());
    RuleSet::compile(rules)
});

// ------------------------------------------------------------------------ absolute dates

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
    fn resolved_dates_are_found_however_they_are_written() {
        let found = resolved_dates(
            "We met on 2023-05-07, moved in 2020, hiked the week of 2023-05-01 and (May 2023), swam in summer 2022.",
        );
        let want: Vec<&str> = vec!["2020", "2023-05-07", "May 2023", "summer 2022", "week of 2023-05-01"];
        assert_eq!(found.iter().map(String::as_str).collect::<Vec<_>>(), want);
        assert!(resolved_dates("The 2020 Olympics were on TV.").is_empty());
    }

    #[test]
    fn chinese_numerals() {
        let cases = [
            ("一", 1),
            ("两", 2),
            ("十", 10),
            ("十二", 12),
            ("二十", 20),
            ("二十五", 25),
            ("几", 3),
            ("7", 7),
            ("12", 12),
        ];
        for (text, n) in cases {
            assert_eq!(chinese_count(text), Some(n), "{text}");
        }
        assert_eq!(chinese_count("十十"), None);
        assert_eq!(chinese_count("三二"), None);
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
    fn a_day_without_its_year_takes_the_most_recent_plausible_one() {
        let anchor = date(2023, 5, 7);
        // Up to two months ahead still counts as this year.
        assert_eq!(day_without_year(7, 7, anchor), Some(DatePoint::Day(date(2023, 7, 7))));
        assert_eq!(day_without_year(7, 8, anchor), Some(DatePoint::Day(date(2022, 7, 8))));
        assert_eq!(day_without_year(2, 30, anchor), None);
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
