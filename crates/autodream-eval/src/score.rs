//! LLM-free memory-quality scores, the same metrics as the benchmark's reference scorer
//! (`shared/tools/memory_score.py`), reimplemented so the evaluation needs no Python.
//!
//! - **M1** answer containment: a QA of categories 1–4 is a hit when its normalised answer
//!   (NFKD, accents dropped, lowercase, every non-alphanumeric → space) occurs
//!   token-aligned in the memory text. *Specific*: answers found verbatim in their own
//!   transcript and in no other conversation of the pool; *scorable* (M1b): in their own.
//! - **M3** temporal anchoring: for category-2 QAs with a dated gold answer, one memory
//!   line must hold at least half the question's content words (names and stop words
//!   removed, 5-character prefixes match) and a date compatible with the gold.
//! - Size ratio (memory bytes / rendered transcript bytes) and index checks (MEMORY.md
//!   lines and UTF-16 units, dangling links, orphan topic files).
//!
//! Normalisation, date parsing, QA subsets and the M3 rule follow the reference line by
//! line; a test checks both give the same numbers on the same memory trees.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;
use std::sync::LazyLock;

use jiff::civil::Date;
use regex::Regex;
use serde::{Deserialize, Serialize};
use unicode_normalization::UnicodeNormalization;
use unicode_normalization::char::canonical_combining_class;

use super::locomo::Sample;

/// Scored QA categories: 1 multi-hop, 2 temporal, 3 open-domain, 4 single-hop.
pub const CATEGORIES: [u32; 4] = [1, 2, 3, 4];
/// Kinds of dated gold answers for M3.
pub const KINDS: [&str; 5] = ["relative", "abs-day", "abs-month", "abs-year", "abs-day-noyear"];
pub const INDEX_MAX_LINES: usize = 200;
pub const INDEX_MAX_UTF16: usize = 25_000;

pub fn category_name(c: u32) -> &'static str {
    match c {
        1 => "multi-hop",
        2 => "temporal",
        3 => "open-domain",
        4 => "single-hop",
        _ => "adversarial",
    }
}

// ------------------------------------------------------------------------ normalisation

/// Accents folded (NFKD), lowercase, every non-alphanumeric character → space, collapsed.
pub fn norm(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut space = true;
    for c in s.nfkd().filter(|c| canonical_combining_class(*c) == 0) {
        for l in c.to_lowercase() {
            if l.is_ascii_lowercase() || l.is_ascii_digit() {
                out.push(l);
                space = false;
            } else if !space {
                out.push(' ');
                space = true;
            }
        }
    }
    while out.ends_with(' ') {
        out.pop();
    }
    out
}

/// `" " + norm(s) + " "`, for token-aligned containment.
pub fn padded(s: &str) -> String {
    format!(" {} ", norm(s))
}

/// Token-aligned containment of a normalised answer in a padded normalised text.
pub fn contains(padded_text: &str, answer_norm: &str) -> bool {
    !answer_norm.is_empty() && padded_text.contains(&format!(" {answer_norm} "))
}

static STOP: LazyLock<BTreeSet<&'static str>> = LazyLock::new(|| {
    "a an the and or but of to in on at for from by with about as is are was were be been being
do does did done has have had having i you he she it we they me him her them my your his its our their
this that these those what which who whom whose when where why how there here so than then too very can
could would should will shall may might must not no yes if into over after before during up down out off
again further once any both each few more most other some such only own same just also s t ll ve re d m
likely would kind type sort things thing something someone get got go went going make made one ones"
        .split_whitespace()
        .collect()
});

/// Content tokens of a question: normalised, stop words, `drop` and 1-letter tokens removed.
pub fn content_tokens(s: &str, drop: &BTreeSet<String>) -> Vec<String> {
    norm(s)
        .split(' ')
        .filter(|t| !t.is_empty() && !STOP.contains(t) && !drop.contains(*t) && t.len() > 1)
        .map(str::to_string)
        .collect()
}

// -------------------------------------------------------------------------------- dates

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

// ----------------------------------------------------------------------- QA subsets

/// A conversation with its rendered transcript and QA subsets.
pub struct Conversation<'a> {
    pub sample: &'a Sample,
    pub raw_padded: String,
    pub raw_bytes: usize,
    names: BTreeSet<String>,
    /// (category, normalised answer, specific?)
    scorable: Vec<(u32, String, bool)>,
    /// (kind, target, question tokens, tokens needed)
    temporal: Vec<(&'static str, DateTuple, Vec<String>, usize)>,
}

impl<'a> Conversation<'a> {
    pub fn new(sample: &'a Sample) -> Conversation<'a> {
        let raw = sample.render_raw();
        let mut names = BTreeSet::new();
        for n in [&sample.speaker_a, &sample.speaker_b] {
            names.extend(norm(n).split(' ').filter(|t| !t.is_empty()).map(str::to_string));
        }
        Conversation {
            sample,
            raw_padded: padded(&raw),
            raw_bytes: raw.len(),
            names,
            scorable: Vec::new(),
            temporal: Vec::new(),
        }
    }

    /// Finds the scorable and specific QAs; `others` are the padded transcripts of the
    /// other conversations of the specificity pool.
    pub fn prepare(&mut self, others: &[&str]) {
        let mut drop = self.names.clone();
        drop.extend(["when", "date", "year", "month", "week"].map(str::to_string));
        self.scorable.clear();
        self.temporal.clear();
        for q in &self.sample.qa {
            if !CATEGORIES.contains(&q.category) {
                continue;
            }
            let a = norm(&q.answer);
            if contains(&self.raw_padded, &a) {
                let specific = !others.iter().any(|o| contains(o, &a));
                self.scorable.push((q.category, a, specific));
            }
            if q.category == 2 {
                let (kind, target) = classify_temporal(&q.answer);
                if let Some(target) = target {
                    let qtok = content_tokens(&q.question, &drop);
                    let need = qtok.len().div_ceil(2).max(1);
                    self.temporal.push((kind, target, qtok, need));
                }
            }
        }
    }
}

// -------------------------------------------------------------------- memory directory

/// Relative paths of the memory's `*.md` files: MEMORY.md first, then sorted. Skips the
/// top-level `logs/`, dot-folders, dot-files and symbolic links.
pub fn memory_files(memdir: &Path) -> Vec<String> {
    let mut out = Vec::new();
    walk(memdir, memdir, &mut out);
    out.sort_by(|a, b| (a != "MEMORY.md", a).cmp(&(b != "MEMORY.md", b)));
    out
}

fn walk(root: &Path, dir: &Path, out: &mut Vec<String>) {
    let Ok(entries) = std::fs::read_dir(dir) else { return };
    let mut entries: Vec<_> = entries.flatten().collect();
    entries.sort_by_key(|e| e.file_name());
    for e in entries {
        let name = e.file_name().to_string_lossy().into_owned();
        let Ok(ft) = e.file_type() else { continue };
        if ft.is_symlink() || name.starts_with('.') {
            continue;
        }
        if ft.is_dir() {
            if dir == root && name == "logs" {
                continue;
            }
            walk(root, &e.path(), out);
        } else if ft.is_file() && name.to_lowercase().ends_with(".md") {
            let rel =
                e.path().strip_prefix(root).map(|p| p.to_string_lossy().replace('\\', "/")).unwrap_or(name);
            out.push(rel);
        }
    }
}

static LINK_RE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r#"\[(?:[^\]\\]|\\.)*\]\(\s*(<[^>]*>|[^)\s]+)(?:\s+(?:"[^"]*"|'[^']*'))?\s*\)"#)
        .expect("valid regex")
});
static SCHEME_RE: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"^[a-zA-Z][a-zA-Z0-9+.-]*:").expect("valid regex"));

fn percent_decode(s: &str) -> String {
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'%'
            && i + 2 < b.len()
            && let Ok(v) = u8::from_str_radix(std::str::from_utf8(&b[i + 1..i + 3]).unwrap_or("zz"), 16)
        {
            out.push(v);
            i += 3;
            continue;
        }
        out.push(b[i]);
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// Local link targets of a Markdown line (URLs, `mailto:` and `#anchors` excluded).
pub fn link_targets(line: &str) -> Vec<String> {
    let mut out = Vec::new();
    for c in LINK_RE.captures_iter(line) {
        let t = c[1].trim_matches(['<', '>']).trim();
        if t.is_empty() || t.starts_with('#') || SCHEME_RE.is_match(t) {
            continue;
        }
        let t = t.split('#').next().unwrap_or("").split('?').next().unwrap_or("");
        let t = percent_decode(t);
        if !t.is_empty() {
            out.push(t);
        }
    }
    out
}

/// MEMORY.md limits, dangling index lines and orphan topic files.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct IndexCheck {
    pub exists: bool,
    pub lines: usize,
    pub utf16_units: usize,
    pub links: usize,
    pub dangling_lines: usize,
    pub dangling: Vec<String>,
    pub orphans: Vec<String>,
    pub ok: bool,
}

pub fn check_index(memdir: &Path, md_files: &[String]) -> IndexCheck {
    let path = memdir.join("MEMORY.md");
    let is_link = std::fs::symlink_metadata(&path).is_ok_and(|m| m.file_type().is_symlink());
    let mut res = IndexCheck { exists: path.is_file() && !is_link, ..Default::default() };
    let mut linked = BTreeSet::new();
    if res.exists {
        let text = String::from_utf8_lossy(&std::fs::read(&path).unwrap_or_default()).into_owned();
        res.lines = text.matches('\n').count() + usize::from(!(text.is_empty() || text.ends_with('\n')));
        res.utf16_units = text.encode_utf16().count();
        let root = std::fs::canonicalize(memdir).unwrap_or_else(|_| memdir.to_path_buf());
        for line in text.split('\n') {
            let mut bad = false;
            for t in link_targets(line) {
                res.links += 1;
                let real = std::fs::canonicalize(memdir.join(&t)).ok();
                match real {
                    Some(real) if real.starts_with(&root) && real.is_file() => {
                        if let Ok(rel) = real.strip_prefix(&root) {
                            linked.insert(rel.to_string_lossy().replace('\\', "/"));
                        }
                    }
                    _ => {
                        bad = true;
                        res.dangling.push(t);
                    }
                }
            }
            res.dangling_lines += usize::from(bad);
        }
    }
    res.ok = res.exists && res.lines <= INDEX_MAX_LINES && res.utf16_units <= INDEX_MAX_UTF16;
    res.orphans =
        md_files.iter().filter(|f| f.as_str() != "MEMORY.md" && !linked.contains(*f)).cloned().collect();
    res
}

/// The scored text of one memory directory.
pub struct Memory {
    pub files: Vec<String>,
    pub bytes: usize,
    pub text: String,
    pub index: IndexCheck,
}

impl Memory {
    pub fn read(memdir: &Path) -> Memory {
        let files = memory_files(memdir);
        let mut parts = Vec::new();
        let mut bytes = 0;
        for rel in &files {
            let b = std::fs::read(memdir.join(rel)).unwrap_or_default();
            bytes += b.len();
            parts.push(String::from_utf8_lossy(&b).into_owned());
        }
        let index = check_index(memdir, &files);
        Memory { files, bytes, text: parts.join("\n"), index }
    }
}

// ---------------------------------------------------------------------------- scoring

struct LineIndex {
    lines: Vec<String>,
    toks: Vec<BTreeSet<String>>,
    prefixes: Vec<BTreeSet<String>>,
}

impl LineIndex {
    fn new(text: &str) -> LineIndex {
        let lines: Vec<String> =
            text.split('\n').filter(|l| !l.trim().is_empty()).map(str::to_string).collect();
        let toks: Vec<BTreeSet<String>> = lines
            .iter()
            .map(|l| norm(l).split(' ').filter(|t| !t.is_empty()).map(str::to_string).collect())
            .collect();
        let prefixes = toks
            .iter()
            .map(|ts| ts.iter().filter(|u| u.len() >= 5).map(|u| u[..5].to_string()).collect())
            .collect();
        LineIndex { lines, toks, prefixes }
    }

    fn anchored(&self, kind: &str, target: DateTuple, qtok: &[String], need: usize) -> bool {
        for i in 0..self.lines.len() {
            let (ts, pf) = (&self.toks[i], &self.prefixes[i]);
            let got =
                qtok.iter().filter(|t| ts.contains(*t) || (t.len() >= 5 && pf.contains(&t[..5]))).count();
            if got >= need && date_ok(kind, target, &parse_dates(&self.lines[i])) {
                return true;
            }
        }
        false
    }
}

/// `[hit, n]` per key.
pub type Counts = BTreeMap<String, [u32; 2]>;

/// Hit counts of one conversation or the pool.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct CountSet {
    pub m1_specific: Counts,
    pub m1_scorable: Counts,
    pub m3_temporal: Counts,
}

/// Percent, rounded to 2 decimals; `None` for an empty subset.
pub fn pct(c: [u32; 2]) -> Option<f64> {
    (c[1] > 0).then(|| (10_000.0 * f64::from(c[0]) / f64::from(c[1])).round() / 100.0)
}

fn total(c: &Counts) -> [u32; 2] {
    c.iter().filter(|(k, _)| k.as_str() != "all").fold([0, 0], |acc, (_, v)| [acc[0] + v[0], acc[1] + v[1]])
}

/// What a conversation's scores and the pool's have in common: memory size and the recalls,
/// all derived from the byte counts and a [`CountSet`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ScoreSummary {
    pub bytes: usize,
    pub raw_bytes: usize,
    pub ratio: f64,
    pub m1_specific: Option<f64>,
    pub m1_scorable: Option<f64>,
    pub m3_temporal: Option<f64>,
    pub m1_specific_by_cat: BTreeMap<String, Option<f64>>,
    pub m1_scorable_by_cat: BTreeMap<String, Option<f64>>,
    pub m3_by_kind: BTreeMap<String, Option<f64>>,
}

impl ScoreSummary {
    /// The summary of `bytes` of memory for `raw_bytes` of transcript with hit `counts`
    /// (totals under `"all"`, as `finish_counts` leaves them).
    fn new(bytes: usize, raw_bytes: usize, counts: &CountSet) -> ScoreSummary {
        ScoreSummary {
            bytes,
            raw_bytes,
            ratio: ratio(bytes, raw_bytes),
            m1_specific: pct(counts.m1_specific["all"]),
            m1_scorable: pct(counts.m1_scorable["all"]),
            m3_temporal: pct(counts.m3_temporal["all"]),
            m1_specific_by_cat: by(&counts.m1_specific, &cat_keys()),
            m1_scorable_by_cat: by(&counts.m1_scorable, &cat_keys()),
            m3_by_kind: by(&counts.m3_temporal, &kind_keys()),
        }
    }
}

/// Scores of one memory directory.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SampleScore {
    pub sample_id: String,
    // Flattened, so the JSON keeps the reference scorer's flat layout. `counts` stays out of
    // the summary because it is the last key of both objects: inside, it would move up.
    #[serde(flatten)]
    pub summary: ScoreSummary,
    pub index_ok: bool,
    pub files: usize,
    pub index: IndexCheck,
    pub counts: CountSet,
}

/// Scores pooled over conversations.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PooledScore {
    pub samples: usize,
    #[serde(flatten)]
    pub summary: ScoreSummary,
    pub index_pass: usize,
    pub index_ok: bool,
    pub dangling_lines: usize,
    pub orphans: usize,
    pub counts: CountSet,
}

fn finish_counts(m1: Counts, m1b: Counts, m3: Counts) -> CountSet {
    let mut set = CountSet { m1_specific: m1, m1_scorable: m1b, m3_temporal: m3 };
    for c in [&mut set.m1_specific, &mut set.m1_scorable, &mut set.m3_temporal] {
        let t = total(c);
        c.insert("all".into(), t);
    }
    set
}

fn by(c: &Counts, keys: &[String]) -> BTreeMap<String, Option<f64>> {
    keys.iter().map(|k| (k.clone(), pct(c.get(k).copied().unwrap_or([0, 0])))).collect()
}

fn cat_keys() -> Vec<String> {
    CATEGORIES.iter().map(|c| c.to_string()).collect()
}

fn kind_keys() -> Vec<String> {
    KINDS.iter().map(|k| k.to_string()).collect()
}

/// Scores one conversation's memory.
pub fn score(conv: &Conversation<'_>, mem: &Memory) -> SampleScore {
    let pad = format!(" {} ", norm(&mem.text));
    let mut m1: Counts = cat_keys().into_iter().map(|k| (k, [0, 0])).collect();
    let mut m1b = m1.clone();
    for (c, a, specific) in &conv.scorable {
        let hit = u32::from(contains(&pad, a));
        let key = c.to_string();
        let e = m1b.entry(key.clone()).or_default();
        e[0] += hit;
        e[1] += 1;
        if *specific {
            let e = m1.entry(key).or_default();
            e[0] += hit;
            e[1] += 1;
        }
    }
    let mut m3: Counts = kind_keys().into_iter().map(|k| (k, [0, 0])).collect();
    let lines = LineIndex::new(&mem.text);
    for (kind, target, qtok, need) in &conv.temporal {
        let e = m3.entry(kind.to_string()).or_default();
        e[0] += u32::from(lines.anchored(kind, *target, qtok, *need));
        e[1] += 1;
    }
    let counts = finish_counts(m1, m1b, m3);
    SampleScore {
        sample_id: conv.sample.sample_id.clone(),
        summary: ScoreSummary::new(mem.bytes, conv.raw_bytes, &counts),
        index_ok: mem.index.ok,
        files: mem.files.len(),
        index: mem.index.clone(),
        counts,
    }
}

fn ratio(bytes: usize, raw: usize) -> f64 {
    if raw == 0 { 0.0 } else { (10_000.0 * bytes as f64 / raw as f64).round() / 10_000.0 }
}

/// Pools per-conversation scores.
pub fn pool(per_sample: &[SampleScore]) -> PooledScore {
    let sum = |get: &dyn Fn(&CountSet) -> &Counts, keys: &[String]| -> Counts {
        keys.iter()
            .map(|k| {
                let v = per_sample.iter().fold([0, 0], |acc, p| {
                    let c = get(&p.counts).get(k).copied().unwrap_or([0, 0]);
                    [acc[0] + c[0], acc[1] + c[1]]
                });
                (k.clone(), v)
            })
            .collect()
    };
    let counts = finish_counts(
        sum(&|c| &c.m1_specific, &cat_keys()),
        sum(&|c| &c.m1_scorable, &cat_keys()),
        sum(&|c| &c.m3_temporal, &kind_keys()),
    );
    let bytes = per_sample.iter().map(|p| p.summary.bytes).sum();
    let raw_bytes = per_sample.iter().map(|p| p.summary.raw_bytes).sum();
    let index_pass = per_sample.iter().filter(|p| p.index_ok).count();
    PooledScore {
        samples: per_sample.len(),
        summary: ScoreSummary::new(bytes, raw_bytes, &counts),
        index_pass,
        index_ok: index_pass == per_sample.len() && !per_sample.is_empty(),
        dangling_lines: per_sample.iter().map(|p| p.index.dangling_lines).sum(),
        orphans: per_sample.iter().map(|p| p.index.orphans.len()).sum(),
        counts,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn normalisation_folds_accents_case_and_punctuation() {
        assert_eq!(norm("Café — “Becoming Nicole”!"), "cafe becoming nicole");
        assert_eq!(norm("  sci-fi & 2023-05-07 "), "sci fi 2023 05 07");
        assert_eq!(padded("A"), " a ");
        assert!(contains(" the blue vase ", "blue vase"));
        assert!(!contains(" the bluevase ", "blue"));
        assert!(!contains(" anything ", ""));
    }

    #[test]
    fn dates_parse_like_the_reference() {
        assert_eq!(parse_dates("on 8 May, 2023"), vec![(Some(2023), Some(5), Some(8))]);
        assert_eq!(parse_dates("2023-05-07: went"), vec![(Some(2023), Some(5), Some(7))]);
        assert_eq!(parse_dates("May 8, 2023"), vec![(Some(2023), Some(5), Some(8))]);
        assert_eq!(parse_dates("in June 2023"), vec![(Some(2023), Some(6), None)]);
        assert_eq!(parse_dates("the 14August"), vec![(None, Some(8), Some(14))]);
        assert_eq!(parse_dates("since 2016"), vec![(Some(2016), None, None)]);
        assert_eq!(parse_dates("Sept 2021"), vec![(Some(2021), Some(9), None)]);
        assert!(parse_dates("no date here 12345").is_empty());
    }

    #[test]
    fn temporal_kinds_and_compatibility() {
        assert_eq!(classify_temporal("7 May 2023").0, "abs-day");
        assert_eq!(classify_temporal("The week before 9 June 2023").0, "relative");
        assert_eq!(classify_temporal("June 2023").0, "abs-month");
        assert_eq!(classify_temporal("2022").0, "abs-year");
        assert_eq!(classify_temporal("13 August").0, "abs-day-noyear");
        assert_eq!(classify_temporal("Sweden").0, "non-date");
        let target = (Some(2023), Some(6), Some(9));
        assert!(date_ok("relative", target, &[(Some(2023), Some(6), Some(1))]));
        assert!(date_ok("relative", target, &[(Some(2023), Some(6), Some(9))]));
        assert!(!date_ok("relative", target, &[(Some(2023), Some(6), Some(10))]));
        assert!(date_ok("abs-month", (Some(2023), Some(6), None), &[(Some(2023), Some(6), Some(30))]));
        assert!(!date_ok("abs-day", (Some(2023), Some(6), Some(1)), &[(Some(2023), Some(6), None)]));
    }

    #[test]
    fn the_summary_serialises_flat_in_the_reference_order() {
        let counts = finish_counts(Counts::new(), Counts::new(), Counts::new());
        let sample = SampleScore {
            sample_id: "c".into(),
            summary: ScoreSummary::new(10, 100, &counts),
            index_ok: true,
            files: 1,
            index: IndexCheck::default(),
            counts,
        };
        let json = serde_json::to_string(&sample).unwrap();
        let keys = ["sample_id", "bytes", "ratio", "m3_by_kind", "index_ok", "files", "index", "counts"];
        let at: Vec<usize> = keys.iter().map(|k| json.find(&format!("\"{k}\":")).unwrap()).collect();
        assert!(at.windows(2).all(|w| w[0] < w[1]), "{json}");
        assert!(!json.contains("\"summary\""), "{json}");
        assert_eq!(serde_json::from_str::<SampleScore>(&json).unwrap(), sample);
    }

    #[test]
    fn index_check_counts_lines_dangling_and_orphans() {
        let tmp = tempfile::tempdir().unwrap();
        std::fs::write(
            tmp.path().join("MEMORY.md"),
            "- [A](a.md) — x\n- [B](b%20c.md) — y\n- [Web](https://x.y)",
        )
        .unwrap();
        std::fs::write(tmp.path().join("a.md"), "a").unwrap();
        std::fs::write(tmp.path().join("orphan.md"), "o").unwrap();
        std::fs::create_dir(tmp.path().join(".archive")).unwrap();
        std::fs::write(tmp.path().join(".archive/z.md"), "z").unwrap();
        let files = memory_files(tmp.path());
        assert_eq!(files, ["MEMORY.md", "a.md", "orphan.md"]);
        let ix = check_index(tmp.path(), &files);
        assert_eq!((ix.lines, ix.links, ix.dangling_lines), (3, 2, 1));
        assert_eq!(ix.dangling, ["b c.md"]);
        assert_eq!(ix.orphans, ["orphan.md"]);
        assert!(ix.ok);
    }
}
