//! Dates in gold answers and memory lines, parsed as the reference scorer parses them, and
//! the M3 rule for whether a memory line's date fits a gold answer.

use super::*;

/// A parsed date: year, month, day, each possibly missing.
pub type DateTuple = (Option<i32>, Option<i32>, Option<i32>);

const MON: &str = "(january|february|march|april|may|june|july|august|september|october|november|december|jan|feb|mar|apr|jun|jul|aug|sep|sept|oct|nov|dec)";

fn month_number(name: &str) -> Option<i32> {
    if name == "sept" {
        return Some(9);
    }
    autodream_offline::dates::MONTH_NAMES
        .iter()
        .map(|m| m.to_ascii_lowercase())
        .position(|m| m == name || (name.len() == 3 && m.starts_with(name)))
        .map(|i| i as i32 + 1)
}

struct DateRegexes {
    ordinal: Regex,
    glued: Regex,
    iso: Regex,
    day_mon_year: Regex,
    mon_day_year: Regex,
    mon_year: Regex,
    day_mon: Regex,
    year: Regex,
}

static DATE_RES: LazyLock<DateRegexes> = LazyLock::new(|| {
    let re = |s: String| Regex::new(&s).expect("valid regex");
    DateRegexes {
        ordinal: re(r"(\d)(st|nd|rd|th)\b".to_string()),
        glued: re(format!(r"(\d){MON}")),
        iso: re(r"\b(\d{4})-(\d{1,2})-(\d{1,2})\b".to_string()),
        day_mon_year: re(format!(r"\b(\d{{1,2}})\s+{MON}\.?,?\s+(\d{{4}})\b")),
        mon_day_year: re(format!(r"\b{MON}\.?\s+(\d{{1,2}}),?\s+(\d{{4}})\b")),
        mon_year: re(format!(r"\b{MON}\.?,?\s+(\d{{4}})\b")),
        day_mon: re(format!(r"\b(\d{{1,2}})\s+{MON}\b")),
        year: re(r"\b(19\d\d|20\d\d)\b".to_string()),
    }
});

fn int(s: &str) -> Option<i32> {
    s.parse().ok()
}

/// All dates in free text, in the reference's order (by pattern, then position).
pub fn parse_dates(text: &str) -> Vec<DateTuple> {
    let r = &*DATE_RES;
    let t: String = text.nfkd().collect::<String>().to_lowercase();
    let t = r.ordinal.replace_all(&t, "${1}");
    let t = r.glued.replace_all(&t, "${1} ${2}");
    let mut found: Vec<DateTuple> = Vec::new();
    let mut spans: Vec<(usize, usize)> = Vec::new();
    let free = |spans: &[(usize, usize)], s: usize, e: usize| spans.iter().all(|&(a, b)| e <= a || s >= b);
    for c in r.iso.captures_iter(&t) {
        let m = c.get(0).expect("match");
        spans.push((m.start(), m.end()));
        found.push((int(&c[1]), int(&c[2]), int(&c[3])));
    }
    for c in r.day_mon_year.captures_iter(&t) {
        let m = c.get(0).expect("match");
        spans.push((m.start(), m.end()));
        found.push((int(&c[3]), month_number(&c[2]), int(&c[1])));
    }
    for c in r.mon_day_year.captures_iter(&t) {
        let m = c.get(0).expect("match");
        spans.push((m.start(), m.end()));
        found.push((int(&c[3]), month_number(&c[1]), int(&c[2])));
    }
    for c in r.mon_year.captures_iter(&t) {
        let m = c.get(0).expect("match");
        if free(&spans, m.start(), m.end()) {
            spans.push((m.start(), m.end()));
            found.push((int(&c[2]), month_number(&c[1]), None));
        }
    }
    for c in r.day_mon.captures_iter(&t) {
        let m = c.get(0).expect("match");
        if free(&spans, m.start(), m.end()) {
            spans.push((m.start(), m.end()));
            found.push((None, month_number(&c[2]), int(&c[1])));
        }
    }
    for c in r.year.captures_iter(&t) {
        let m = c.get(0).expect("match");
        if free(&spans, m.start(), m.end()) {
            spans.push((m.start(), m.end()));
            found.push((int(&c[1]), None, None));
        }
    }
    found
}

fn truthy(x: Option<i32>) -> Option<i32> {
    x.filter(|v| *v != 0)
}

fn to_date(t: DateTuple) -> Option<Date> {
    match (truthy(t.0), truthy(t.1), truthy(t.2)) {
        (Some(y), Some(m), Some(d)) => {
            Date::new(i16::try_from(y).ok()?, i8::try_from(m).ok()?, i8::try_from(d).ok()?).ok()
        }
        _ => None,
    }
}

static RELATIVE_ANSWER: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"\b(before|after|week of|weekend of|ago|since|prior|around|few days|last|next|earlier)\b")
        .expect("valid regex")
});

/// The kind of a gold answer and its target date (the last date found).
pub fn classify_temporal(answer: &str) -> (&'static str, Option<DateTuple>) {
    let ds = parse_dates(answer);
    let Some(&tup) = ds.last() else { return ("non-date", None) };
    if RELATIVE_ANSWER.is_match(&answer.to_lowercase()) {
        return ("relative", Some(tup));
    }
    let (y, m, d) = (truthy(tup.0), truthy(tup.1), truthy(tup.2));
    let kind = if d.is_some() && y.is_some() {
        "abs-day"
    } else if m.is_some() && y.is_some() {
        "abs-month"
    } else if m.is_some() && d.is_some() {
        "abs-day-noyear"
    } else {
        "abs-year"
    };
    (kind, Some(tup))
}

/// Does one of a line's dates satisfy the gold?
pub fn date_ok(kind: &str, target: DateTuple, unit_dates: &[DateTuple]) -> bool {
    for &u in unit_dates {
        match kind {
            "abs-day" if u == target => return true,
            "abs-month" if u.0 == target.0 && u.1 == target.1 => return true,
            "abs-year" if u.0 == target.0 => return true,
            "abs-day-noyear" if u.1 == target.1 && u.2 == target.2 => return true,
            "relative" => {
                let (td, ud) = (to_date(target), to_date(u));
                if let (Some(td), Some(ud)) = (td, ud) {
                    let days = (td - ud).get_days();
                    if (0..=31).contains(&days) {
                        return true;
                    }
                }
                if td.is_none() && u.0 == target.0 && (target.1.is_none() || u.1 == target.1) {
                    return true;
                }
            }
            _ => {}
        }
    }
    false
}
