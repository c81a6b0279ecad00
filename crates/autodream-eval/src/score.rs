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

mod dates;
pub use dates::*;

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

mod memory;
pub use memory::*;

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
