//! What several stages of the coding path share about a sentence: the kind of memory a kept
//! one is, the patterns of an update and of a standing rule, and a fact's clauses. It sits
//! below the verdict (`durable`), the memo, the subjects and the updates, so that none of them
//! needs another for these.

use std::collections::HashSet;
use std::sync::LazyLock;

use regex::Regex;

use crate::text::{is_cjk, re};

/// What kind of memory a kept sentence is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Kind {
    /// A standing instruction or preference ("always …", "we use …", "X, not Y").
    Preference,
    /// A correction of the agent ("No, specs live in spec/").
    Correction,
    /// Who someone is and what they own or approve.
    Person,
    /// A choice, with its reason.
    Decision,
    /// Something changed ("we moved from X to Y").
    Update,
    /// A deadline or a dated event ahead.
    Date,
    /// Where something lives (a URL, a document, a dashboard).
    Reference,
    /// A fact about the project (a name, port, branch, command, path, environment, version).
    Fact,
    /// Who the user is ("I'm a data engineer on the payments team").
    User,
}

/// Going back to a value: "we're going back to Google Maps", "reverted to Postgres 15"; or
/// calling off a move away from it: "we're staying on Linkerd", "we'll stick with Postgres" (not
/// "the cache stays on disk", which says where a thing is).
pub const GOING_BACK: &str = r"(?:going|went|go|switching|switched|moving|moved) back to|back to using|revert(?:ing|ed)? (?:\w+ )?(?:back )?to|roll(?:ing|ed)? back to|(?:we|i)(?:'re|'m| are| am|'ll| will)? (?:staying|stay|sticking|stick) (?:on|with)";

/// English verbs in their base form (`data/verbs.txt`).
static VERBS: LazyLock<HashSet<&'static str>> =
    LazyLock::new(|| crate::text::load_list(include_str!("../../data/verbs.txt")));

/// Is `word` (lowercase) an English verb in its base form?
pub fn is_verb(word: &str) -> bool {
    VERBS.contains(word)
}

/// Something changed, said by the words of a change (the move from one value to another is
/// [`says_a_change`]'s to tell).
static UPDATE: LazyLock<Regex> = LazyLock::new(|| {
    re(&format!(
        r"(?i)\b(?:switched|switching|moved|moving|migrated|migrating|replaced|replacing|upgraded|upgrading|bumped|bumping|raised|raising|dropped|dropping|changed|change of plan|retired|deprecated|no longer|anymore|until recently|(?:we|i|they) used to|提到\s*\d+|降到\s*\d+|(?:is|are) gone|(?:is|are) now|now (?:is|are|uses?|lives?|listens?|runs?|owns?|goes|handles|approves)|instead of|now,? not|{GOING_BACK})\b|换成|改成|改用|改为|升到|升级到|迁到|迁移到|切到|停用|下线|不再|调去|调到|现在归|以后都用|换了|改了|迁到"
    ))
});

/// "from yarn to pnpm", "from 16 to 18": a move from one value (up to seven words) to
/// another, and the word it moves to.
pub static FROM_TO: LazyLock<Regex> =
    LazyLock::new(|| re(r"(?i)\bfrom\s+((?:\S+\s+){0,6}?\S+)\s+to\s+(\S+)"));

/// Does the sentence say that something changed ("we moved to pnpm", "from 16 to 18", "换成
/// pnpm")? "Examples from other frameworks to understand the problem" does not: "to" before a
/// verb gives a purpose, not the value moved to.
pub fn says_a_change(text: &str) -> bool {
    UPDATE.is_match(text)
        || FROM_TO.captures_iter(text).any(|c| {
            // A value of a few words: a longer run before "to" is a clause, not a value.
            let from_a_value = c[1].split_whitespace().count() <= 4;
            let to = c[2].trim_matches(|ch: char| !ch.is_alphanumeric());
            from_a_value && !(to.chars().all(|ch| ch.is_ascii_lowercase()) && is_verb(to))
        })
}

/// Is this fact a standing rule ("always …", "never …", "一律 …")?
pub fn is_rule(text: &str) -> bool {
    STRONG_STANDING.is_match(text) || RULE_WORDS.is_match(text)
}

static RULE_WORDS: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r"(?i)\b(?:never|always|must(?:n'?t)?|don'?t|do not|rules?|conventions?|only through|only via|no exceptions)\b|不要|别|禁止|必须|一律|统一",
    )
});

/// Rules that hold even inside an order: "always", "never", "from now on", "every …".
pub(super) static STRONG_STANDING: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r"(?i)\b(?:always|never|whenever|everywhere|from now on|going forward|next time|from here on|in the future\s+(?:we|you|i|all|every|please|always|never|use|make|do|don'?t|avoid|prefer)|no exceptions|every time|(?:that'?s|this is) (?:how|the way|the convention|the rule)|all (?:of )?our|in this (?:repo|repository|codebase|project)|across (?:the |this |our )(?:code ?base|repo|repository|project|code|app|stack)|across (?:all (?:of )?(?:our |the )?|our )(?:services|repos|repositories|projects|packages|modules))\b|\bin the future(?:\s*[,.;!]|\s*$)|一律|统一|以后都|以后要|禁止|不要再|别再|每次|今天起|从今天起|从今天开始",
    )
});

/// The clauses of a fact: where a superseded value sits in one clause, the others stay
/// current ("Deployment target is iOS 16, and new code uses Swift Concurrency").
pub fn clauses(text: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut start = 0;
    let bytes = text.as_bytes();
    let mut i = 0;
    // A code span is one name: "`xcodebuild test ... -only-testing:VaultTests`" has no clauses.
    let mut in_code = false;
    while i < text.len() {
        let rest = &text[i..];
        if let Some(after) = rest.strip_prefix('`') {
            in_code = !in_code && after.contains('`');
        }
        let cut = [". ", "; ", ", and ", ", but ", "。", "；", "，另外", "，还有"]
            .iter()
            .find(|c| !in_code && rest.starts_with(**c));
        if let Some(c) = cut {
            let piece = text[start..i].trim();
            if !piece.is_empty() {
                out.push(piece);
            }
            i += c.len();
            start = i;
            continue;
        }
        i += 1;
        while i < bytes.len() && !text.is_char_boundary(i) {
            i += 1;
        }
    }
    let piece = text[start..].trim();
    if !piece.is_empty() {
        out.push(piece);
    }
    out
}

/// The clauses of a fact for a supersession: [`clauses`], and the items of a list of facts
/// ("DB is SQLDelight, networking Ktor, DI is Koin"), so that a new value of one item leaves
/// the others current.
pub fn items(text: &str) -> Vec<&str> {
    clauses(text)
        .into_iter()
        .flat_map(|c| {
            let parts: Vec<&str> = c.split(", ").map(str::trim).filter(|p| !p.is_empty()).collect();
            // A list: three items or more, each of a few words.
            if parts.len() >= 3 && parts.iter().all(|p| word_count(p) <= 6) {
                return parts;
            }
            // A Chinese list of facts: each clause between full-width commas names its own thing
            // ("这个项目是个小 KV 服务，异步运行时用 tokio，存储引擎现在是 sled"). A clause that names
            // nothing ("想了一下", "生产不敢用") leans on the others: no list.
            let parts: Vec<&str> = c.split('，').map(str::trim).filter(|p| !p.is_empty()).collect();
            if parts.len() >= 3
                && parts.iter().all(|p| word_count(p) <= 6 && p.chars().any(|ch| ch.is_ascii_alphanumeric()))
            {
                return parts;
            }
            // "…: Pinia stores, vue-i18n, API for dev is https://api-dev.fleetco.io": an address
            // said last, as a statement of its own, is an item of its own ("…, console at
            // https://…" is the console of what the line is about, and goes with it).
            static OWN_ADDRESS: LazyLock<Regex> = LazyLock::new(|| {
                re(r"(?i)^\S.*\b(?:is|are|lives?|runs?|sits?|points? (?:at|to))\s+(?:at\s+|on\s+)?<?https?://")
            });
            match c.rfind(", ") {
                Some(cut) if OWN_ADDRESS.is_match(&c[cut + 2..]) && !c[..cut].contains("://") => {
                    vec![c[..cut].trim(), c[cut + 2..].trim()]
                }
                _ => vec![c],
            }
        })
        .collect()
}

/// Why a sentence was not kept (counted in the dream's summary).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Dropped {
    /// Too short to stand alone, or nothing but chatter.
    Chatter,
    /// A question.
    Question,
    /// An order for the task at hand.
    Request,
    /// A report of a failure, or the state of the moment.
    Status,
    /// It holds a secret or personal data.
    Secret,
    /// Nothing in it a later session could use.
    NotDurable,
    /// Review or explanation text the user pasted, not their own words.
    Pasted,
}

/// Words in a sentence, CJK counted two characters to a word.
pub fn word_count(text: &str) -> usize {
    let latin =
        text.split_whitespace().filter(|w| w.chars().any(|c| c.is_alphanumeric() && !is_cjk(c))).count();
    let cjk = text.chars().filter(|&c| is_cjk(c)).count();
    latin + cjk.div_ceil(2)
}
