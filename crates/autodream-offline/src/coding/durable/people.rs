//! People in a sentence: a name bound to a role ("Priya is the PM", "王磊是前端负责人"), and
//! the user speaking of themselves ("I prefer …" → "The user prefers …").

use std::sync::LazyLock;

use regex::Regex;

use crate::text::re;

static ROLE: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r"(?i)\b(?:pm|product manager|project manager|(?:tech |team |sre |design |ds |qa |engineering |marketing )?lead|owners?|owns|manager|architect|designer|reviewers?|reviews|approves?|approval|signs? off|sign-?off|in charge|runs the|handles|(?:cuts|ships|does|publishes|deploys|merges|writes|tags) the \w+ (?:usually|normally|always|now)|contact|maintainers?|responsible|on-?call|go(?:es)? (?:to|through) (?:her|him|them)|designs the|ask (?:her|him|them)|ping (?:her|him|them)|talk to (?:her|him|them))\b|负责人|负责|产品经理|经理|归|审批|点头|找(?:她|他)|设计师|测试负责人|评审|架构师|组长|owner|review",
    )
});
/// A CJK name before or after a role word (王磊是…, 归赵强).
static ZH_NAME_ROLE: LazyLock<Regex> =
    LazyLock::new(|| re(r"\p{Han}{2,3}(?:是|(?:在|来)?负责|调去|调到|已经批)|(?:归|找|给|问)\p{Han}{2,3}"));

/// "I prefer short commit messages" → "The user prefers short commit messages": memory is
/// read by the agent, for whom "I" is itself.
pub(super) fn in_third_person(text: &str) -> String {
    static FIRST: LazyLock<Regex> = LazyLock::new(|| {
        re(r"(?i)^i (prefer|like|love|hate|want|always|never|usually|don'?t like|'d rather|would rather)\b")
    });
    static I_AM: LazyLock<Regex> = LazyLock::new(|| re(r"^(?:I'?m|I am) "));
    if let Some(m) = I_AM.find(text) {
        return format!("The user is {}", in_their_words(&text[m.end()..]));
    }
    let Some(c) = FIRST.captures(text) else { return text.to_string() };
    let verb = c[1].to_lowercase();
    let verb = match verb.as_str() {
        "prefer" => "prefers".to_string(),
        "like" => "likes".to_string(),
        "love" => "loves".to_string(),
        "hate" => "hates".to_string(),
        "want" => "wants".to_string(),
        "'d rather" | "would rather" => "would rather".to_string(),
        v if v.starts_with("don") => "doesn't like".to_string(),
        v => v.to_string(),
    };
    format!("The user {verb}{}", in_their_words(&text[c.get(0).expect("match").end()..]))
}

/// The user saying who they are: "I'm a data engineer on …", "I work on …", "My role is …".
static USER_IDENTITY: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r"(?i)^(?:i'?m|i am) (?:an? |the )(?P<rest>[^,;]{0,80}?(?:engineer|developer|designer|manager|lead|scientist|analyst|maintainer|student|researcher|architect|admin|administrator|founder|consultant|owner|sre|devops|programmer|intern|tester|dev|coder|artist|hobbyist|sysadmin|freelancer|contractor|beginner)\b.*)$|^i (?P<years>(?:did|have done|spent|have) (?:\d+|many|several|a few|some) years? (?:of|in|doing|writing|with|on) .+)$|^我是(?P<zh>(?:做|搞|写|学)\s*\S.*)$|^i work (?P<work>(?:on|at|as|for|in) .+)$|^i'?m (?P<background>(?:coming|new|used|moving|switching) (?:from|to) .+)$|^my (?:role|job|title) is (?P<role>.+)$",
    )
});

/// "I'm a data engineer on the payments team." → "The user is a data engineer on the
/// payments team."
pub(super) fn about_the_user(text: &str) -> Option<String> {
    let c = USER_IDENTITY.captures(text)?;
    let out = if let Some(rest) = c.name("rest") {
        let article = &text[text.find(' ')? + 1..];
        let article =
            article.split_whitespace().nth(if text.to_lowercase().starts_with("i am") { 1 } else { 0 })?;
        format!("The user is {article} {}", in_their_words(rest.as_str()))
    } else if let Some(years) = c.name("years") {
        format!("The user {}", in_their_words(years.as_str()))
    } else if let Some(zh) = c.name("zh") {
        format!("用户是{}", zh.as_str())
    } else if let Some(background) = c.name("background") {
        format!("The user is {}", background.as_str())
    } else if let Some(work) = c.name("work") {
        format!("The user works {}", work.as_str())
    } else {
        format!("The user's role is {}", c.name("role")?.as_str())
    };
    Some(out)
}

/// The rest of what the user says of themselves, told of them: "… this is my first Rust
/// project, so explain it to me" → "… this is their first Rust project, so explain it to them".
fn in_their_words(rest: &str) -> String {
    static FIRST_PERSON: LazyLock<Regex> = LazyLock::new(|| re(r"\b(?:I'm|I am|I've|I|my|me|mine|myself)\b"));
    FIRST_PERSON
        .replace_all(rest, |c: &regex::Captures<'_>| {
            match &c[0] {
                "I'm" | "I am" => "they're",
                "I've" => "they've",
                "I" => "they",
                "my" => "their",
                "me" => "them",
                "mine" => "theirs",
                _ => "themselves",
            }
            .to_string()
        })
        .into_owned()
}

/// Has the sentence a name bound to a role ("Priya is the PM", "Dana owns the nightly jobs",
/// "王磊是前端负责人")?
pub(crate) fn names_a_person(text: &str) -> bool {
    if !ROLE.is_match(text) {
        return false;
    }
    if ZH_NAME_ROLE.is_match(text) {
        return true;
    }
    // A name in a person's place: the subject of a role verb, the value of a role, or the
    // one to ask ("Priya is the PM", "our PM is Priya", "ask Kofi").
    PERSON_PLACE.captures_iter(text).any(|c| {
        let w = c.iter().skip(1).flatten().next().map_or("", |m| m.as_str());
        // "Active handles, branches, and worktree paths": an English word before a word of a
        // list, with no object after it, is no name ("Chen reviews, as usual" still is one).
        let lower = w.to_lowercase();
        let listed = c.get(1).is_some()
            && text[c.get(0).expect("match").end()..].starts_with([',', ';', '.'])
            && crate::text::is_known_word(w);
        !w.is_empty() && !COMMON_CAPITALISED.contains(&lower.as_str()) && !listed
    })
}

static PERSON_PLACE: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r"\b(\p{Lu}\p{Ll}+)(?:'s)?(?:\s*\((?:our|the|my|a|an) [^()]{1,40}\)|,\s*(?:our|the|my) [^,]{1,40},)?\s+(?:is|was|owns|reviews|approves|handles|runs|leads|manages|maintains|designs|signs|decides|set|wrote|has|moved|left|joined|does|starts|will|should|must|needs|approved|confirmed|answered|cuts|ships|publishes|deploys|merges|writes|tags)\b|\b(?:is|are|now)\s+(\p{Lu}\p{Ll}+)\b|(?i:\b(?:ask|ping|tag|talk to|go to|goes to|go through|goes through|find|contact)\s+)(\p{Lu}\p{Ll}+)\b|(?:^|[,;]\s*)(\p{Lu}\p{Ll}+)\s+(?:and|or)\s+\p{Lu}\p{Ll}+\s+(?:are|own|review|approve)\b",
    )
});

/// Capitalised words that are not names when they open a clause.
const COMMON_CAPITALISED: &[&str] = &[
    "the",
    "a",
    "an",
    "this",
    "that",
    "these",
    "those",
    "we",
    "our",
    "you",
    "your",
    "they",
    "their",
    "it",
    "its",
    "he",
    "she",
    "his",
    "her",
    "if",
    "when",
    "and",
    "but",
    "so",
    "also",
    "please",
    "any",
    "every",
    "all",
    "no",
    "never",
    "always",
    "use",
    "don't",
    "do",
    "pr",
    "ci",
    "api",
    "prs",
    "tests",
    "staging",
    "prod",
    "production",
    "main",
    "monday",
    "tuesday",
    "wednesday",
    "thursday",
    "friday",
    "saturday",
    "sunday",
    "january",
    "february",
    "march",
    "april",
    "may",
    "june",
    "july",
    "august",
    "september",
    "october",
    "november",
    "december",
];
