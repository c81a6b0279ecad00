//! Text primitives shared by every phase: words, sentences, CJK handling, and how much a
//! word tells.
//!
//! "How much a word tells" is its surprise in general English (−ln p, from a built-in
//! table of the 12,000 most frequent words, `words/frequency.txt`), with a hand-written
//! list of chat filler (`words/function.txt`) counted as telling nothing. A word missing
//! from the table is rare, and rare words are what later questions ask about (names,
//! titles, places, hobbies). Nothing here depends on the input being English: CJK text is
//! handled by character bigrams, and unknown scripts simply count as rare.

use std::collections::{HashMap, HashSet};
use std::sync::LazyLock;

use regex::Regex;

mod sentences;
pub use sentences::{split_clauses, split_clauses_about, split_sentences};

/// Is `c` a CJK ideograph, kana or hangul (text written without spaces between words)?
pub fn is_cjk(c: char) -> bool {
    matches!(c as u32,
        0x3040..=0x30FF   // hiragana, katakana
        | 0x3400..=0x4DBF // CJK extension A
        | 0x4E00..=0x9FFF // CJK unified ideographs
        | 0xAC00..=0xD7AF // hangul syllables
        | 0xF900..=0xFAFF // CJK compatibility ideographs
        | 0x20000..=0x2FFFF)
}

/// Characters that end a sentence.
pub fn is_terminator(c: char) -> bool {
    matches!(c, '.' | '!' | '?' | '…' | '。' | '！' | '？' | '；')
}

/// A word of running text: a run of letters and digits, with inner apostrophes and hyphens
/// kept (`don't`, `sci-fi`). CJK characters are never part of a word (see [`cjk_bigrams`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Word<'a> {
    pub text: &'a str,
    /// Byte offset in the source text.
    pub start: usize,
}

impl Word<'_> {
    pub fn end(&self) -> usize {
        self.start + self.text.len()
    }
}

fn is_word_char(c: char) -> bool {
    c.is_alphanumeric() && !is_cjk(c)
}

/// The words of `text`, in order.
pub fn words(text: &str) -> Vec<Word<'_>> {
    let mut out = Vec::new();
    let mut start: Option<usize> = None;
    let mut chars = text.char_indices().peekable();
    while let Some((i, c)) = chars.next() {
        if is_word_char(c) {
            if start.is_none() {
                start = Some(i);
            }
            continue;
        }
        // An apostrophe or hyphen between two word characters stays inside the word.
        let joins = matches!(c, '\'' | '’' | '-')
            && start.is_some()
            && chars.peek().is_some_and(|&(_, n)| is_word_char(n));
        if joins {
            continue;
        }
        if let Some(s) = start.take() {
            out.push(Word { text: &text[s..i], start: s });
        }
    }
    if let Some(s) = start {
        out.push(Word { text: &text[s..], start: s });
    }
    out
}

/// The lookup form of a word: lowercase, curly apostrophes straightened, apostrophes
/// dropped (`I'm` → `im`), possessive `'s` removed.
pub fn word_key(word: &str) -> String {
    let lower = word.to_lowercase().replace('’', "'");
    let base = lower.strip_suffix("'s").unwrap_or(&lower);
    base.replace('\'', "")
}

/// CJK character bigrams of `text` (single characters for isolated ones), used where
/// English would use words: near-duplicate detection and salience of Chinese text.
pub fn cjk_bigrams(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut run: Vec<char> = Vec::new();
    let flush = |run: &mut Vec<char>, out: &mut Vec<String>| {
        match run.len() {
            0 => {}
            1 => out.push(run[0].to_string()),
            _ => out.extend(run.windows(2).map(|w| w.iter().collect::<String>())),
        }
        run.clear();
    };
    for c in text.chars() {
        if is_cjk(c) {
            run.push(c);
        } else {
            flush(&mut run, &mut out);
        }
    }
    flush(&mut run, &mut out);
    out
}

/// Normalised tokens for comparing texts: lowercase word keys plus CJK bigrams.
pub fn compare_tokens(text: &str) -> Vec<String> {
    let mut toks: Vec<String> =
        words(text).iter().map(|w| word_key(w.text)).filter(|k| !k.is_empty()).collect();
    toks.extend(cjk_bigrams(text));
    toks
}

/// How common a word is in general English.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Commonness {
    /// Function words, pronouns, chat filler: they identify nothing.
    Function,
    /// Very common words.
    Common,
    /// Frequent words (dog, guitar, beach).
    Frequent,
    /// Rarer than that: names, titles, specialised words.
    Rare,
}

/// Surprise (−ln p) given to a word missing from the frequency table.
pub const UNKNOWN_SURPRISE: f32 = 14.0;

/// The words of a list file: whitespace-separated, `#` lines are comments.
pub(crate) fn load_list(text: &'static str) -> HashSet<&'static str> {
    text.lines().filter(|l| !l.trim_start().starts_with('#')).flat_map(str::split_whitespace).collect()
}

/// A pattern the engine was built with: a bad one is a bug, caught by any test that runs it.
pub fn re(pattern: &str) -> Regex {
    Regex::new(pattern).expect("valid regex")
}

/// A document named in a line: "`docs/METADATA_EVOLUTION_PROTOCOL.md`", "README.md".
pub static DOCUMENT: LazyLock<Regex> = LazyLock::new(|| {
    re(r"`[\w./-]+\.(?:md|mdx|txt|rst|adoc)`|(?-u:\b)[\w./-]+\.(?:md|mdx|rst|adoc)(?-u:\b)")
});

/// Does the text open with a document ("`docs/PROTOCOL.md` -- formal rules for …")?
pub fn opens_with_a_document(text: &str) -> bool {
    DOCUMENT.find(text.trim_start()).is_some_and(|d| d.start() == 0)
}

static FUNCTION: LazyLock<HashSet<&'static str>> =
    LazyLock::new(|| load_list(include_str!("words/function.txt")));

/// word → surprise in nats, from `words/frequency.txt` (`<nats> <words…>` lines).
static SURPRISE: LazyLock<HashMap<&'static str, f32>> = LazyLock::new(|| {
    let mut map = HashMap::with_capacity(12_500);
    for line in include_str!("words/frequency.txt").lines().filter(|l| !l.starts_with('#')) {
        let mut parts = line.split_whitespace();
        let Some(nats) = parts.next().and_then(|n| n.parse::<f32>().ok()) else { continue };
        for w in parts {
            map.entry(w).or_insert(nats);
        }
    }
    map
});

/// Candidate base forms of an inflected word (the word itself excluded).
pub(crate) fn stems(key: &str) -> Vec<std::borrow::Cow<'_, str>> {
    use std::borrow::Cow;
    let mut out: Vec<Cow<'_, str>> = Vec::new();
    let n = key.len();
    if n > 4 {
        if let Some(s) = key.strip_suffix("ies") {
            out.push(Cow::Owned(format!("{s}y")));
        }
        if let Some(s) = key.strip_suffix("ing") {
            out.push(Cow::Borrowed(s));
            out.push(Cow::Owned(format!("{s}e")));
            if s.len() > 2 && s.as_bytes()[s.len() - 1] == s.as_bytes()[s.len() - 2] {
                out.push(Cow::Borrowed(&s[..s.len() - 1]));
            }
        }
        if let Some(s) = key.strip_suffix("ed") {
            out.push(Cow::Borrowed(s));
            out.push(Cow::Owned(format!("{s}e")));
            if let Some(t) = s.strip_suffix('i') {
                out.push(Cow::Owned(format!("{t}y")));
            }
        }
        if let Some(s) = key.strip_suffix("ly") {
            out.push(Cow::Borrowed(s));
        }
        if let Some(s) = key.strip_suffix("es") {
            out.push(Cow::Borrowed(s));
        }
    }
    if n > 3
        && let Some(s) = key.strip_suffix('s')
    {
        out.push(Cow::Borrowed(s));
    }
    out
}

/// Is `word` one the English frequency table knows ("active", "stored"), as opposed to a
/// name, an identifier or a made-up string ("Priya", "hunter2x")?
pub fn is_known_word(word: &str) -> bool {
    surprise_of_key(&word_key(word)) < UNKNOWN_SURPRISE
}

/// How surprising a word (in [`word_key`] form) is in general English, in nats: 0 for
/// filler, up to [`UNKNOWN_SURPRISE`] for words the table does not know.
pub fn surprise_of_key(key: &str) -> f32 {
    if key.is_empty() || FUNCTION.contains(key) {
        return 0.0;
    }
    if let Some(&n) = SURPRISE.get(key) {
        return n;
    }
    // An inflection of a known word is about as common as the word.
    if let Some(n) = stems(key).iter().filter_map(|s| SURPRISE.get(s.as_ref()).copied()).reduce(f32::min) {
        return n + 0.5;
    }
    if let Some(n) = stems(key).iter().any(|s| FUNCTION.contains(s.as_ref())).then_some(0.0) {
        return n;
    }
    // A compound tells as much as its most telling part ("dairy-free", "self-care").
    if key.contains('-') {
        return key.split('-').filter(|p| !p.is_empty()).map(surprise_of_key).fold(0.0, f32::max);
    }
    UNKNOWN_SURPRISE
}

/// How common `word` is (any case, any inflection the light stemmer undoes).
pub fn commonness(word: &str) -> Commonness {
    let key = word_key(word);
    commonness_of_key(&key)
}

/// [`commonness`] of a word already in [`word_key`] form.
pub fn commonness_of_key(key: &str) -> Commonness {
    if key.is_empty() {
        return Commonness::Function;
    }
    if key.chars().all(|c| c.is_ascii_digit()) {
        return Commonness::Rare;
    }
    let s = surprise_of_key(key);
    if s < 7.5 {
        Commonness::Function
    } else if s < 9.5 {
        Commonness::Common
    } else if s < 11.5 {
        Commonness::Frequent
    } else {
        Commonness::Rare
    }
}

/// Is `word` a function word or filler (tier 0)?
pub fn is_function_word(word: &str) -> bool {
    commonness(word) == Commonness::Function
}

/// Does `word` look like a name or title word: capitalised, and not the pronoun `I`?
pub fn is_capitalised(word: &str) -> bool {
    let mut cs = word.chars();
    match cs.next() {
        Some(c) if c.is_uppercase() => word != "I" && !word.starts_with("I'") && !word.starts_with("I’"),
        _ => false,
    }
}

/// A list item's marker: a bullet (a "•" may touch its text), "1." or "1)", "1 -".
pub static LIST_ITEM: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"^(?:[-*]\s+|•\s*|\d{1,2}[.)]\s+|\d{1,2}\s?[-–]\s+)").expect("valid regex"));

static CODE_SPAN_RE: LazyLock<Regex> = LazyLock::new(|| Regex::new(r"`[^`\n]+`").expect("valid regex"));

/// The text with what each code span holds left out ("`x`" in its place): the words in a span
/// are a name the user quoted ("the `respects failOnDrift=false policy when drift exists`
/// test"), not words they said, so a rule that reads the sentence's own words reads around it.
pub fn without_code_spans(text: &str) -> std::borrow::Cow<'_, str> {
    if !text.contains('`') {
        return std::borrow::Cow::Borrowed(text);
    }
    CODE_SPAN_RE.replace_all(text, "`x`")
}

/// Intensifiers and hedges that add nothing a later reader needs ("really", "actually"),
/// written in lowercase (a capitalised one mid-sentence may open a title: "Just Mercy").
static INTENSIFIER_RE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r"\b(?:really|just|very|actually|definitely|truly|totally|basically|literally|honestly|absolutely|seriously|certainly) +",
    )
    .expect("valid regex")
});

/// The text without intensifiers and hedges: memory is kept to a byte budget, and every
/// byte they take is a byte a fact could use. Quoted text is left as it was said, and so
/// is a sentence-initial word (it is capitalised, and may begin a title).
pub fn drop_intensifiers(text: &str) -> std::borrow::Cow<'_, str> {
    if !INTENSIFIER_RE.is_match(text) {
        return std::borrow::Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len());
    let mut last = 0;
    for m in INTENSIFIER_RE.find_iter(text) {
        // Only before another word: "It was great, really." keeps its last word.
        let before_word = text[m.end()..].starts_with(char::is_alphanumeric);
        let quoted = text[..m.start()].matches(['"', '“', '”']).count() % 2 == 1;
        if !before_word || quoted {
            continue;
        }
        out.push_str(&text[last..m.start()]);
        last = m.end();
    }
    out.push_str(&text[last..]);
    std::borrow::Cow::Owned(out)
}

/// Adverbs that may stand between a subject and its verb ("I really love").
pub const ADVERBS: &[&str] = &[
    "really",
    "just",
    "also",
    "always",
    "usually",
    "never",
    "still",
    "even",
    "totally",
    "definitely",
    "finally",
    "actually",
    "often",
    "sometimes",
    "recently",
    "truly",
    "honestly",
    "absolutely",
    "kinda",
    "only",
    "already",
    "mostly",
    "seriously",
    "literally",
    "personally",
    "now",
    "then",
    "too",
    "basically",
    "both",
    "all",
    "certainly",
    "def",
    "so",
    "sure",
    "generally",
    "normally",
    "rarely",
    "barely",
    "hardly",
    "especially",
    "particularly",
    "simply",
    "officially",
    "currently",
    "lately",
    "absolutely",
    "genuinely",
    "secretly",
    "already",
];

/// Modal and semi-modal verbs: the verb after them keeps its base form.
pub const MODALS: &[&str] = &[
    "can",
    "could",
    "will",
    "would",
    "should",
    "shall",
    "may",
    "might",
    "must",
    "can't",
    "cannot",
    "won't",
    "wouldn't",
    "couldn't",
    "shouldn't",
    "mustn't",
    "gonna",
    "wanna",
    "gotta",
    "used",
    "ought",
    "need",
];

/// Irregular past tenses (and a few past forms that do not end in -ed).
pub const IRREGULAR_PAST: &[&str] = &[
    "went",
    "got",
    "made",
    "took",
    "saw",
    "had",
    "did",
    "felt",
    "found",
    "thought",
    "knew",
    "came",
    "gave",
    "told",
    "said",
    "bought",
    "brought",
    "began",
    "left",
    "met",
    "ran",
    "wrote",
    "won",
    "lost",
    "kept",
    "heard",
    "held",
    "sent",
    "spent",
    "built",
    "taught",
    "caught",
    "sat",
    "stood",
    "understood",
    "became",
    "chose",
    "drew",
    "drove",
    "ate",
    "fell",
    "flew",
    "forgot",
    "grew",
    "hid",
    "hung",
    "led",
    "lent",
    "paid",
    "rode",
    "rang",
    "rose",
    "sang",
    "shook",
    "slept",
    "sold",
    "spoke",
    "stole",
    "swam",
    "threw",
    "wore",
    "woke",
    "broke",
    "dug",
    "fed",
    "fought",
    "froze",
    "quit",
    "shut",
    "sought",
    "struck",
    "swore",
    "tore",
    "wept",
    "mean't",
    "was",
    "were",
    "didn't",
    "wasn't",
    "weren't",
    "hadn't",
    "started",
    "got",
    "lit",
    "dealt",
    "meant",
    "read",
    "put",
    "cut",
    "set",
    "let",
    "hit",
    "hurt",
    "burnt",
    "learnt",
    "dreamt",
    "spelt",
    "felt",
];

/// A stable 64-bit FNV-1a hash (same value on every platform and run).
pub fn stable_hash(bytes: &[u8]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for &b in bytes {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0100_0000_01b3);
    }
    h
}

/// Makes `name` a file-name stem: ASCII letters and digits lowercased, other runs → `-`.
/// Non-ASCII names keep their letters (a Chinese name stays readable).
pub fn slug(name: &str) -> String {
    let mut out = String::new();
    let mut dash = false;
    for c in name.chars() {
        if c.is_alphanumeric() {
            if dash && !out.is_empty() {
                out.push('-');
            }
            dash = false;
            out.extend(c.to_lowercase());
        } else {
            dash = true;
        }
    }
    if out.is_empty() { "topic".to_string() } else { out }
}

#[cfg(test)]
mod tests;
