//! Knowledge updates: a newer statement that replaces what an older one said.
//!
//! People announce a change by naming what went away: "we moved from yarn to pnpm",
//! "Atlantis is gone", "Hannah moved to the payments team", "wandb 停用", "李娜调去风控团队了",
//! "test2 已经下线". Those words name the old value; every older current fact that holds it
//! is superseded (moved under `## Superseded` with the day it was replaced), in whichever
//! file it is. A value given a new version or port without naming the old one ("we upgraded
//! to Java 21", "the router now listens on 4100") replaces the fact that gave the same thing
//! another number. The statement of the change stays current: it names both values.

use std::sync::LazyLock;

use regex::Regex;

use crate::text::re;

use super::kinds::{FROM_TO, GOING_BACK, says_a_change};
use crate::text::is_cjk;

mod conditions;

static OFF: LazyLock<Regex> = LazyLock::new(|| re(r"(?i)\b(?:off(?: of)?|away from)\s+(\S+)"));
static GONE: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r"(?i)(?:^|[\s,;:(])((?:\S+\s+)?\S+)\s+(?:is|are|was|were|has been|have been)\s+(?:gone|retired|deprecated|dead|decommissioned|shut down|sunset|dropped|removed|deleted|offline)\b",
    )
});
static DROPPED: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r"(?i)\b(?:dropped|dropping|ditched|ditching|abandoned|abandoning|retired|retiring|replaced|replacing|swapping out|deprecated|stopped using|got rid of|moved off|migrated off|switched off)\s+(?:the\s+|our\s+)?(\S+)",
    )
});
/// "remove v14 from the service entirely", "drop v1alpha1 completely": a thing removed for
/// good, said as the order that does it. Without "entirely" an order to remove is an edit
/// ("remove the debug print"), not a change of what the project has.
static REMOVED_FOR_GOOD: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r"(?i)\b(?:remove|drop|delete|retire|kill)\s+(?:the\s+|our\s+)?(\S+)(?:\s+[^\s,;.]+){0,4}?\s+(?:entirely|completely|altogether|for good)\b",
    )
});
/// "p99 must be under 60 ms now, not 80": the value the new one replaces, said after it.
static NOW_NOT: LazyLock<Regex> =
    LazyLock::new(|| re(r"(?i)\bnow,?\s+not\s+(?:the\s+)?([^\s,;.]+(?:\.\d+)?)"));
/// "the old mlflow.ds.internal host is being decommissioned": a place called the old one.
static THE_OLD: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r"(?i)\bthe (?:old|previous|former) (\S+) (?:host|server|url|address|endpoint|domain|cluster|instance|bucket|database|db|box|machine|repo|repository|registry|region|account|project|workspace|channel)s?\b",
    )
});
/// "bumping MSRV to 1.80 (was 1.74)": the old value given in passing.
static WAS: LazyLock<Regex> =
    LazyLock::new(|| re(r"(?i)\(\s*(?:was|previously|formerly|used to be)\s+([^)]{1,40})\)"));
/// "instead of churn-v3", "instead of in the global README": what follows, up to four words
/// (the place a thing no longer goes is named after its preposition).
static INSTEAD_OF: LazyLock<Regex> = LazyLock::new(|| re(r"(?i)\binstead of\s+((?:\S+\s+){0,3}\S+)"));
/// "Until recently we used `go run` in the hooks", "We used to deploy with Capistrano": what
/// was used before, up to four words.
static USED_BEFORE: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r"(?i)\b(?:(?:until recently|previously|formerly),? (?:we|i|they|it) (?:used|had|ran|called|were using|was using)|(?:we|i|they) used to (?:use|run|call|have|deploy with|build with|test with))\s+((?:\S+\s+){0,3}\S+)",
    )
});
static NO_LONGER: LazyLock<Regex> = LazyLock::new(|| re(r"(?i)\bno longer\s+((?:\S+\s+){0,5}\S+)"));
static PERSON_LEFT: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r"\b(\p{Lu}\p{Ll}+)\s+(?:has\s+)?(?:moved to|left|is leaving|went to|joined|transferred to|is no longer|retired|is retired|stepped (?:back|down|away)|handed (?:off|over))\b",
    )
});
static ZH_FROM: LazyLock<Regex> = LazyLock::new(|| {
    re(r"从\s*([^\s，。,]+?)\s*(?:换成|改成|改为|升到|升级到|迁到|迁移到|切到|切换到|变成)")
});
/// "moment 全部换成 dayjs", "GetX 换成 Bloc": a name right before the change word is the old one.
/// ("ClickHouse 迁到新集群" moves the thing; it is not replaced.)
static ZH_SWAP: LazyLock<Regex> = LazyLock::new(|| {
    re(r"(?:^|[\s：:，,。])([A-Za-z][\w.+-]*)\s*(?:全部|都|统一|整体)?\s*(?:换成|改成|改为|替换成|替换为)")
});
static ZH_GONE: LazyLock<Regex> =
    LazyLock::new(|| re(r"([A-Za-z][\w.:-]*)[^，。,.;；]{0,10}?(?:停用|下线|废弃|退役|不用了)"));
static ZH_GONE_HAN: LazyLock<Regex> =
    LazyLock::new(|| re(r"(\p{Han}{2,4}?)(?:已经)?(?:停用|下线|废弃|退役)"));
static ZH_PERSON_LEFT: LazyLock<Regex> = LazyLock::new(|| re(r"(\p{Han}{2,3})(?:调去|调到|离职|转去)"));
static ZH_NOT_ANY_MORE: LazyLock<Regex> = LazyLock::new(|| re(r"([A-Za-z][\w.-]*|\p{Han}{1,4})不再是"));
/// "不要再用 npm", "stop using yarn", "no more Jenkins": the thing given up.
static NO_MORE: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r"(?:不要再用|别再用|不再用|停止使用|停用|不留|弃用)\s*([A-Za-z][\w.+-]*)|(?i:\b(?:stop using|no more|don'?t use|do not use)\s+)([A-Za-z][\w.+-]*)(?i:\s+(?:anymore|any more))?",
    )
});
/// `Java 17`, `iOS 16`, `Go 1.23`, `SDK 2.5`, `Node 20`.
static NAME_VERSION: LazyLock<Regex> = LazyLock::new(|| re(r"\b(\p{L}[\p{L}+#-]*)\s+v?(\d+(?:\.\d+)*)\b"));
static PORT: LazyLock<Regex> = LazyLock::new(|| {
    re(r"(?i)\b(?:port|listens? on|serves? on|runs? on|answers? on)\s+(?:port\s+)?(\d{2,5})\b")
});
static ZH_BUMP: LazyLock<Regex> =
    LazyLock::new(|| re(r"把\s*([^\s，。,]+?)\s*(?:升到|升级到|换成|改成|切到)了?\s*([^\s，。,]+)"));
/// "minSdk 提到 26", "Node 升到 22": a name and the number it goes to.
static ZH_RAISE: LazyLock<Regex> = LazyLock::new(|| {
    re(r"([A-Za-z][\w.+-]*)\s*(?:提到|提高到|升到|升级到|降到|降低到)了?\s*v?(\d+(?:\.\d+)*)")
});
static VERSION_NUMBER: LazyLock<Regex> = LazyLock::new(|| re(r"\b\d+\.\d+(?:\.\d+)?\b"));

/// Words that are never a value ("with" in "… are replaced with hashes").
const NOT_VALUES: &[&str] = &[
    "it",
    "them",
    "that",
    "this",
    "the",
    "a",
    "an",
    "our",
    "we",
    "us",
    "you",
    "there",
    "here",
    "one",
    "all",
    "everything",
    "default",
    "old",
    "current",
    "last",
    "week",
    "month",
    "now",
    "then",
    "and",
    "but",
    "so",
    "with",
    "by",
];

/// Strips quotes, punctuation and leading determiners off a captured value.
fn clean_value(raw: &str) -> Option<String> {
    let raw = raw.trim();
    // A quoted value is the value: "the default 'Sonar way'" → "Sonar way".
    for (open, close) in [('\'', '\''), ('"', '"'), ('`', '`'), ('‘', '’'), ('“', '”')] {
        if let Some(start) = raw.find(open) {
            let rest = &raw[start + open.len_utf8()..];
            if let Some(end) = rest.find(close) {
                let inner = rest[..end].trim();
                if !inner.is_empty() {
                    return Some(inner.to_string());
                }
            }
        }
    }
    let mut words: Vec<&str> = raw
        .split_whitespace()
        .map(|w| {
            w.trim_matches(|c: char| matches!(c, ',' | '.' | ';' | ':' | '(' | ')' | '!' | '?' | '，' | '。'))
        })
        .filter(|w| !w.is_empty())
        .collect();
    while words.first().is_some_and(|w| NOT_VALUES.contains(&w.to_lowercase().as_str())) {
        words.remove(0);
    }
    while words.last().is_some_and(|w| NOT_VALUES.contains(&w.to_lowercase().as_str())) {
        words.pop();
    }
    let value = words.join(" ");
    if value.chars().count() < 2 || NOT_VALUES.contains(&value.to_lowercase().as_str()) {
        return None;
    }
    Some(value)
}

/// Words that introduce or join a value but are never one: "instead of *in* the README".
const FUNCTION_WORDS: &[&str] = &[
    "in", "on", "at", "into", "onto", "to", "for", "with", "from", "by", "via", "of", "using", "through",
    "as", "or", "because", "since", "when", "which", "who", "if", "while", "where",
];

/// The value after "instead of": past a preposition and a determiner, one word, or two when
/// they read as one name ("global README", "yarn install").
fn instead_of_value(words: &str) -> Option<String> {
    let is = |w: &str, list: &[&str]| list.contains(&w.to_lowercase().as_str());
    let mut rest: Vec<&str> = words.split_whitespace().collect();
    while rest.first().is_some_and(|w| is(w, FUNCTION_WORDS) || is(w, NOT_VALUES)) {
        rest.remove(0);
    }
    let first = *rest.first()?;
    let ends_phrase = |w: &str| w.ends_with([',', '.', ';', ':', ')', '!', '?']);
    let value = match rest.get(1) {
        Some(second) if !ends_phrase(first) && !is(second, FUNCTION_WORDS) && !is(second, NOT_VALUES) => {
            format!("{first} {second}")
        }
        _ => first.to_string(),
    };
    clean_value(&value)
}

/// The first token that looks like a value (a path, an identifier, a number, a name).
fn first_specific(words: &str) -> Option<String> {
    words
        .split_whitespace()
        .map(|w| w.trim_matches(|c: char| matches!(c, ',' | '.' | ';' | ':' | '(' | ')')))
        .find(|w| {
            w.chars().any(|c| c.is_ascii_digit() || c.is_uppercase() || matches!(c, '/' | '_' | '.' | '-'))
        })
        .map(str::to_string)
}

/// "`go run` in the hooks" → "go run": a code span at the start is the value, spaces and all.
fn code_span_first(words: &str) -> Option<String> {
    let rest = words.strip_prefix('`')?;
    rest.find('`').map(|end| rest[..end].to_string()).filter(|v| !v.trim().is_empty())
}

/// A change only weighed, not made: "alternatively we could write …", "maybe we move to Vite".
pub fn is_tentative(text: &str) -> bool {
    static TENTATIVE: LazyLock<Regex> = LazyLock::new(|| {
        re(
            r"(?i)\b(?:could|would|might|maybe|perhaps|alternatively|what if|or we|not sure|thinking about|considering)\b|要不要|也许|或者",
        )
    });
    TENTATIVE.is_match(text)
}

/// The old values an update sentence names as gone or replaced.
pub fn replaced_values(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let updating = says_a_change(text);
    let mut push = |v: Option<String>| {
        if let Some(v) = v
            && !out.contains(&v)
        {
            out.push(v);
        }
    };
    if updating {
        for c in FROM_TO.captures_iter(text) {
            push(clean_value(&c[1]));
        }
        for c in OFF.captures_iter(text) {
            push(clean_value(&c[1]));
        }
        for c in DROPPED.captures_iter(text) {
            push(clean_value(&c[1]));
        }
        for c in WAS.captures_iter(text) {
            push(clean_value(&c[1]));
        }
        for c in THE_OLD.captures_iter(text) {
            push(clean_value(&c[1]));
        }
        for c in NOW_NOT.captures_iter(text) {
            push(clean_value(&c[1]));
        }
        for c in INSTEAD_OF.captures_iter(text) {
            let value = instead_of_value(&c[1]);
            // "instead of poetry shell": the tool is replaced, not only its command.
            if let Some(v) = &value
                && let Some(first) = v.split_whitespace().next().filter(|f| *f != v)
                && !super::vocabulary::VOCABULARY.values_in(first).is_empty()
            {
                push(Some(first.to_string()));
            }
            push(value);
        }
        for c in NO_LONGER.captures_iter(text) {
            push(first_specific(&c[1]));
        }
        for c in USED_BEFORE.captures_iter(text) {
            push(code_span_first(&c[1]).or_else(|| first_specific(&c[1])));
        }
        for c in ZH_FROM.captures_iter(text) {
            push(clean_value(&c[1]));
        }
        for c in ZH_SWAP.captures_iter(text) {
            push(clean_value(&c[1]));
        }
        for c in ZH_NOT_ANY_MORE.captures_iter(text) {
            push(clean_value(&c[1]));
        }
        for c in NO_MORE.captures_iter(text) {
            push(clean_value(c.get(1).or(c.get(2)).map_or("", |m| m.as_str())));
        }
    }
    for c in GONE.captures_iter(text) {
        let captured = &c[1];
        // "… and rev C is retired": two words when they read as one name ("rev C").
        let words: Vec<&str> = captured.split_whitespace().collect();
        let value = match words.as_slice() {
            [a, b] if NOT_VALUES.contains(&a.to_lowercase().as_str()) || a.ends_with([',', ';', ':']) => {
                b.to_string()
            }
            [a, b] if b.chars().count() <= 2 || b.chars().all(|c| c.is_ascii_digit() || c == '.') => {
                format!("{a} {b}")
            }
            [.., b] => b.to_string(),
            [] => continue,
        };
        push(clean_value(&value));
    }
    for c in PERSON_LEFT.captures_iter(text) {
        push(Some(c[1].to_string()));
    }
    for c in REMOVED_FOR_GOOD.captures_iter(text) {
        push(clean_value(&c[1]));
    }
    for c in ZH_GONE.captures_iter(text) {
        push(clean_value(&c[1]));
    }
    for c in ZH_GONE_HAN.captures_iter(text) {
        // "旧的那台已经下线": a pointer to the thing, not its name.
        if !c[1].starts_with(['那', '这']) {
            push(clean_value(&c[1]));
        }
    }
    for c in ZH_PERSON_LEFT.captures_iter(text) {
        push(Some(c[1].to_string()));
    }
    out
}

/// The old things (not people) an update names as gone or replaced: [`replaced_values`]
/// without those who moved on ("Tomasz stepped back", "李娜调去风控团队").
pub fn replaced_things(text: &str) -> Vec<String> {
    let people: Vec<String> = PERSON_LEFT
        .captures_iter(text)
        .chain(ZH_PERSON_LEFT.captures_iter(text))
        .map(|c| c[1].to_string())
        .collect();
    replaced_values(text).into_iter().filter(|v| !people.contains(v)).collect()
}

/// The superseded line for an old value that an update names when memory never held it
/// ("We're moving from Poetry to uv" → "Package manager: Poetry, replaced by uv"). Only a
/// value the vocabulary knows gets one: its category says what the value was, which a bare
/// "5.7" or "Starter" under Superseded would not.
pub fn history_line(text: &str, old: &str) -> Option<String> {
    let vocabulary = &super::vocabulary::VOCABULARY;
    let old_key = old.to_lowercase();
    let (category, _) = vocabulary.values_in(old).into_iter().find(|(_, name)| *name == old_key)?;
    let category = &vocabulary.categories[category];
    let what = display_category(&category.name);
    // The value of the same slot the update names besides the old one is its successor.
    let successors: Vec<String> = vocabulary
        .values_in(text)
        .into_iter()
        .filter(|(c, name)| category.name == vocabulary.categories[*c].name && *name != old_key)
        .map(|(_, name)| name)
        .collect();
    let successor = match successors.as_slice() {
        [one] => text_spelling(text, one),
        _ => None,
    };
    Some(match successor {
        Some(new) => format!("{what}: {old}, replaced by {new}"),
        None => format!("{what}: {old}"),
    })
}

/// A category's name as a line starts it: "CI system", "Headless CMS".
fn display_category(name: &str) -> String {
    const ACRONYMS: &[&str] =
        &["ci", "cms", "cdn", "dns", "api", "os", "orm", "sdk", "ide", "ui", "css", "sql"];
    let words: Vec<String> = name
        .split(' ')
        .enumerate()
        .map(|(i, w)| {
            if ACRONYMS.contains(&w) {
                w.to_uppercase()
            } else if i == 0 {
                let mut c = w.chars();
                c.next().map(|f| f.to_uppercase().chain(c).collect()).unwrap_or_default()
            } else {
                w.to_string()
            }
        })
        .collect();
    words.join(" ")
}

/// How `text` spells a name the vocabulary gives lower-cased.
fn text_spelling(text: &str, lower: &str) -> Option<String> {
    let name = regex::RegexBuilder::new(&regex::escape(lower)).case_insensitive(true).build().ok()?;
    name.find(text).map(|m| m.as_str().to_string())
}

/// Does `text` hold `value`: as whole words for Latin text, as a substring for CJK?
pub fn holds(text: &str, value: &str) -> bool {
    if value.chars().any(is_cjk) {
        return text.contains(value);
    }
    let lower = text.to_lowercase();
    let value = value.to_lowercase();
    let is_word = |c: char| c.is_alphanumeric() || c == '_';
    let mut from = 0;
    while let Some(pos) = lower[from..].find(&value) {
        let start = from + pos;
        let end = start + value.len();
        let before_ok = lower[..start].chars().next_back().is_none_or(|c| !is_word(c));
        // "ch01" holds in "ch01.data.internal", "TRANSFORM_WH" not in "TRANSFORM_WH_M".
        let after_ok = lower[end..].chars().next().is_none_or(|c| !is_word(c));
        if before_ok && after_ok {
            return true;
        }
        from = start + value.len().max(1);
        while !lower.is_char_boundary(from) {
            from += 1;
        }
    }
    false
}

/// The words of the few before each address of a text, with the address.
fn named_addresses(text: &str) -> Vec<(String, Vec<String>)> {
    static ADDRESS: LazyLock<Regex> = LazyLock::new(|| re(r"https?://[^\s)>,;]+"));
    ADDRESS
        .find_iter(text)
        .map(|m| {
            let before =
                words_beside(text, m.range(), 4, 0, &["moved", "now", "new", "old", "points", "lives"]);
            (m.as_str().trim_end_matches(['.', '/']).to_lowercase(), before)
        })
        .collect()
}

/// The naming words ([`words_of`]) among the `before` words right before `at` in `text` and
/// the `after` words right after it: what the name or address there is said of.
fn words_beside(
    text: &str,
    at: std::ops::Range<usize>,
    before: usize,
    after: usize,
    besides: &[&str],
) -> Vec<String> {
    let split = |t: &str| -> Vec<String> {
        t.split(|c: char| !c.is_alphanumeric()).filter(|w| !w.is_empty()).map(String::from).collect()
    };
    let lead = split(&text[..at.start]);
    let tail = split(&text[at.end..]);
    let few = [&lead[lead.len().saturating_sub(before)..], &tail[..tail.len().min(after)]].concat();
    words_of(&few.join(" "), 3, besides)
}

/// Each name of a text that is an identifier with a variant's shape ("TRANSFORMING_WH_M",
/// "churn-v4"), with the words that say what it is: the few on either side.
fn named_identifiers(text: &str) -> Vec<(String, Vec<String>)> {
    static IDENTIFIER: LazyLock<Regex> = LazyLock::new(|| {
        re(r"\b[A-Za-z][A-Za-z0-9]*(?:_[A-Za-z0-9]+)+\b|\b[a-z][a-z0-9]*(?:-[a-z]*[0-9]+[a-z0-9]*)+\b")
    });
    IDENTIFIER
        .find_iter(text)
        // Not a piece of a path, a file name or a call ("src/load_config.rs", "load_config()").
        .filter(|m| {
            let after = &text[m.end()..];
            let extension =
                after.strip_prefix('.').is_some_and(|rest| rest.starts_with(char::is_alphanumeric));
            let in_a_path = text[..m.start()].ends_with(['/', '.', '$']) || after.starts_with(['/', '(']);
            !in_a_path && !extension
        })
        .map(|m| {
            let besides = ["moved", "now", "new", "old", "runs", "run", "uses", "use", "switched", "points"];
            (m.as_str().to_string(), words_beside(text, m.range(), 3, 3, &besides))
        })
        .collect()
}

/// "Platform moved our runs to TRANSFORMING_WH_M, the medium warehouse" after "Everything runs
/// on the TRANSFORMING_WH warehouse": another variant of the same name (its first part the
/// same), said of the same thing (a word beside each), where neither names the other.
fn moved_identifier(new: &str, old: &str) -> bool {
    let first_part = |name: &str| name.split(['_', '-']).next().unwrap_or("").to_lowercase();
    let olds = named_identifiers(old);
    named_identifiers(new).iter().any(|(name, around)| {
        !holds(old, name)
            && olds.iter().any(|(was, said)| {
                was != name
                    && !holds(new, was)
                    && first_part(was) == first_part(name)
                    && around.iter().any(|w| said.contains(w))
            })
    })
}

fn moved_address(new: &str, old: &str) -> bool {
    let olds = named_addresses(old);
    named_addresses(new).iter().any(|(address, names)| {
        olds.iter().any(|(was, named)| was != address && names.iter().any(|w| named.contains(w)))
    })
}

/// Does a sentence beside a change give its reason: it names a value the change retired and
/// is no change of its own? "Mapbox changed their pricing again" names the value left; "RocksDB
/// builds are slow, we're going with redb" names a third value of the slot, a change of its own.
pub fn gives_a_reason(text: &str, retired: &[String], change: &str) -> bool {
    if retired.is_empty()
        || !replaced_values(text).is_empty()
        || !retired.iter().any(|value| holds(text, value))
    {
        return false;
    }
    let vocabulary = &super::vocabulary::VOCABULARY;
    let named = vocabulary.values_in(text);
    let in_change = vocabulary.values_in(change);
    let slots: Vec<usize> =
        named.iter().filter(|(_, name)| retired.contains(name)).map(|(slot, _)| *slot).collect();
    named
        .iter()
        .all(|value| !slots.contains(&value.0) || retired.contains(&value.1) || in_change.contains(value))
}

/// Do two statements share a word of three letters or more that is neither a function word
/// nor a number ("SLO", "p99")?
fn share_a_word(a: &str, b: &str) -> bool {
    let of_a = words_of(a, 3, &[]);
    words_of(b, 3, &[]).iter().any(|w| of_a.contains(w))
}

fn content_words(text: &str) -> Vec<String> {
    words_of(text, 4, &["port", "listens", "serves", "runs", "answers", "locally", "everywhere", "now"])
}

/// The words of a text that can name a thing, lower-cased: at least `shortest` characters, not
/// a bare number, not a function word, and none of `besides` (the verbs and adverbs a change
/// is said with, which name nothing).
fn words_of(text: &str, shortest: usize, besides: &[&str]) -> Vec<String> {
    text.split(|c: char| !c.is_alphanumeric())
        .filter(|w| w.chars().count() >= shortest && !w.chars().all(|c| c.is_ascii_digit()))
        .filter(|w| !crate::text::is_function_word(w))
        .map(str::to_lowercase)
        .filter(|w| !besides.contains(&w.as_str()))
        .collect()
}

/// Is a `name number` pair in `text` a thing and its version ("Java 17"), not a
/// preposition and a number ("on 8081") or a date ("on 2026-03-10")?
fn names_a_version(text: &str, c: &regex::Captures<'_>) -> bool {
    let name = &c[1];
    let number = c.get(2).expect("group");
    let is_date = number.as_str().len() == 4 && text[number.end()..].starts_with('-');
    name.chars().count() >= 2 && !crate::text::is_function_word(&name.to_lowercase()) && !is_date
}

/// Does the newer `new` replace what the older `old` says?
/// "We're going back to Google Maps" after "we're switching the map to Mapbox — Google Maps
/// pricing is ugly": the value gone back to was the one left, so the fact that moved to
/// another value of its slot is over, though it names both.
fn goes_back_from(new: &str, old: &str) -> bool {
    static BACK_TO: LazyLock<Regex> = LazyLock::new(|| re(&format!(r"(?i)\b(?:{GOING_BACK})\s+(.+)")));
    let vocabulary = &super::vocabulary::VOCABULARY;
    let Some(c) = BACK_TO.captures(new) else { return false };
    let back_to = vocabulary.values_in(&c[1]);
    let in_old = vocabulary.values_in(old);
    says_a_change(old)
        && back_to.iter().any(|(category, value)| {
            vocabulary.categories[*category].exclusive
                && in_old.contains(&(*category, value.clone()))
                && in_old.iter().any(|(oc, ov)| oc == category && ov != value)
        })
}

/// "The Istio migration is cancelled" after "we're moving the mesh from Linkerd to Istio next
/// sprint": a change called off. The fact that announced the move to the value it names is over
/// (not a fact that only names that value, nor one moving away from it).
fn calls_off(new: &str, old: &str) -> bool {
    static CALLED_OFF: LazyLock<Regex> = LazyLock::new(|| {
        re(r"(?i)\b(?:is|was|has been|got|gets) (?:cancell?ed|called off|scrapped|shelved|abandoned)\b")
    });
    if !CALLED_OFF.is_match(new) || !says_a_change(old) {
        return false;
    }
    let retired = replaced_values(old);
    super::vocabulary::VOCABULARY
        .values_in(new)
        .iter()
        .any(|(_, value)| holds(old, value) && !retired.iter().any(|r| holds(r, value)))
}

pub fn supersedes(new: &str, old: &str) -> bool {
    // "Noor signed off on dropping 16" after "we're raising the minimum from iOS 16 to
    // iOS 17": the old fact already retires that value; the two agree.
    let retired_by_old = replaced_values(old);
    // A bare number after "now, not" ("…, not 80") is another fact's number unless the two
    // share a word.
    let after_now_not: Vec<Option<String>> = NOW_NOT.captures_iter(new).map(|c| clean_value(&c[1])).collect();
    let same_thing = |v: &str| {
        !after_now_not.iter().flatten().any(|n| n == v)
            || !v.chars().all(|c| c.is_ascii_digit() || c == '.')
            || share_a_word(new, old)
    };
    if replaced_values(new)
        .iter()
        .any(|v| holds(old, v) && !retired_by_old.iter().any(|r| holds(r, v)) && same_thing(v))
    {
        return true;
    }
    // A new value of a one-value slot ("the pipeline runs on CircleCI" after "CI runs on
    // Jenkins"), said without a change word.
    if super::vocabulary::VOCABULARY.replaces(new, old) {
        return true;
    }
    if goes_back_from(new, old) || calls_off(new, old) || conditions::reruled(new, old) {
        return true;
    }
    // The same statement with another value: "we use Kysely for the API" after "we use Prisma
    // for the API", whether or not the vocabulary knows the names.
    if differ_only_in_value(new, old) {
        return true;
    }
    if !says_a_change(new) {
        return false;
    }
    // The same thing given another version number: "Java 17" → "Java 21", or "minSdk 提到 26"
    // (a name raised or lowered to a number) after "minSdk 24".
    let given = NAME_VERSION
        .captures_iter(new)
        .filter(|c| names_a_version(new, c))
        .chain(ZH_RAISE.captures_iter(new))
        .map(|c| (c[1].to_string(), c[2].to_string()));
    for (name, version) in given {
        for o in NAME_VERSION.captures_iter(old).filter(|c| names_a_version(old, c)) {
            if name.eq_ignore_ascii_case(&o[1])
                && version != o[2]
                && !holds(old, &format!("{name} {version}"))
            {
                return true;
            }
        }
    }
    // "把 Flutter 升到 3.22.2": a fact naming Flutter with another version number.
    for c in ZH_BUMP.captures_iter(new) {
        let (thing, to) = (&c[1], &c[2]);
        if holds(old, thing)
            && VERSION_NUMBER.find_iter(old).any(|v| v.as_str() != to && !to.contains(v.as_str()))
        {
            return true;
        }
    }
    // The same thing at another address: "the dev API moved to https://dev-api.fleetco.net"
    // after "API for dev is https://api-dev.fleetco.io". The words that name each address
    // (the few before it) share one.
    if moved_address(new, old) || moved_identifier(new, old) {
        return true;
    }
    // The same service on another port: shares a content word besides the port words.
    let new_ports: Vec<&str> = PORT.captures_iter(new).map(|c| c.get(1).expect("group").as_str()).collect();
    if !new_ports.is_empty() {
        let shared = {
            let a = content_words(new);
            content_words(old).into_iter().any(|w| a.contains(&w))
        };
        for o in PORT.captures_iter(old) {
            if shared && !new_ports.contains(&&o[1]) {
                return true;
            }
        }
    }
    false
}

/// Do two statements say the same thing of one slot with a different value ("we use Prisma for
/// the API" / "we use Kysely for the API")? Then they are two values, never one fact: the
/// newer replaces the older. A value is a name, a number, a version, a path or an identifier,
/// not a word of plain English ("… for the API" / "… for the worker" are two subjects).
pub fn differ_only_in_value(a: &str, b: &str) -> bool {
    let (ta, tb) = (value_words(a), value_words(b));
    let only_a: Vec<&(String, bool)> = ta.iter().filter(|w| !tb.iter().any(|v| v.0 == w.0)).collect();
    let only_b: Vec<&(String, bool)> = tb.iter().filter(|w| !ta.iter().any(|v| v.0 == w.0)).collect();
    if !(only_a.len() == 1 && only_b.len() == 1 && only_a[0].1 && only_b[0].1 && ta.len() >= 4) {
        return false;
    }
    // "… for the API" / "… for the CLI": the word names the part of the project, not a value.
    let (sa, sb) = (super::vocabulary::scopes(a), super::vocabulary::scopes(b));
    !sa.contains(&only_a[0].0) && !sb.contains(&only_b[0].0)
}

/// The words of a statement (dates left out), each lower-cased with whether it reads as a
/// value: capitalised past the first word, holding a digit or code punctuation.
fn value_words(text: &str) -> Vec<(String, bool)> {
    // The day a fact was learned is no value of it ("… (2026-03-02).").
    static DAY: LazyLock<Regex> = LazyLock::new(|| re(r"\(?\b\d{4}-\d{2}-\d{2}\b\)?"));
    let without = DAY.replace_all(text, "");
    let mut out: Vec<(String, bool)> = Vec::new();
    for (i, w) in without.split_whitespace().enumerate() {
        let w = w.trim_matches(|c: char| !(c.is_alphanumeric() || matches!(c, '.' | '/' | '_' | '-' | '@')));
        let w = w.trim_end_matches('.');
        if w.is_empty() {
            continue;
        }
        let value = w.chars().any(|c| c.is_ascii_digit())
            || w.contains(['/', '_', '@'])
            || w.contains('.') && !w.ends_with('.')
            || i > 0 && w.chars().next().is_some_and(char::is_uppercase)
            || w.chars().skip(1).any(char::is_uppercase);
        let key = w.to_lowercase();
        if !out.iter().any(|(k, _)| *k == key) {
            out.push((key, value));
        }
    }
    out
}

#[cfg(test)]
mod tests;
