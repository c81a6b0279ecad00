//! Orders: a sentence that opens with its verb (the task at hand) or with a standing verb
//! ("use", "prefer", "never": a way of working), the forms an order takes besides, and the
//! "never" of an incident, which is no rule. [`super::durable`] and [`super::tails`] read them.
//!
//! | class | example |
//! |---|---|
//! | a way of working put in a sequence of steps | "Now use the writing clearly skill on this document" |
//! | a verb (however spelt) taking a question about the task | "Ibvestiaget how we can solve this: `<issue link>`" |
//! | an incident's "never" | "… and make sure this never repeats again" |
//! | a change to the work, said as what we should do | "We should update the banner to also have a check mark" (not "… to any logging") |
//! | the same change in the passive | "All project docs regarding the metadata objects should be documented" (not "Every new endpoint should be documented …") |
//! | an answer to the agent that gives the next step | "Yes please commit, then …", "No don't set it", "B) why we have a fallback …", "If that's the case we need to …" |
//! | where a kind of thing goes, said as an order | "Add a README into the e2e dir … instead of in the global README" |

use std::borrow::Cow;
use std::sync::LazyLock;

use regex::Regex;

use super::kinds::is_verb;
use crate::text::re;

/// Words that come before an order's verb without changing it ("please", "ok", "now", "can
/// you", "let's").
static ORDER_LEAD: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r"(?i)^(?:(?:please|pls|ok(?:ay)?|just|now|then|first|next|either|also|and|so|maybe|perhaps|go ahead and|can you|could you|would you|will you|can we|could we|shall we|you can|you could|you may|let'?s)\b[,:]?\s*)+",
    )
});
/// Orders whatever the verb: "let's …", "can you …", and the Chinese forms.
static ORDER_FORM: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r"(?i)^(?:please |pls |ok(?:ay)?,? |just |now |then |so |also )*(?:let'?s|can you|could you|would you|will you|can we|could we|shall we|go ahead and)\s+\w|^(?:帮我|帮忙|麻烦|请你?|你先|你|先|把|给|跑|看|查|加|改|删|修|顺手|顺便|再|去|试试?|本地起|检查|确认|整理|写|提|打印|输出|清掉|处理|补|拉|切|升级|更新|重启|做|实现)",
    )
});
/// Verbs said to get attention before a statement ("Wait, we …", "Look, …").
const ATTENTION: &[&str] = &["wait", "look", "listen", "see", "hold", "remember", "note"];
/// Verbs that take a whole clause as their object: after them a noun and its verb is still
/// the order ("Make sure tests pass", "Check the build is green", "Verify CI is green").
const CLAUSE_VERBS: &[&str] = &[
    "make",
    "ensure",
    "check",
    "verify",
    "confirm",
    "see",
    "note",
    "remember",
    "assume",
    "imagine",
    "expect",
    "say",
    "tell",
    "guess",
    "suppose",
    "pretend",
    "double-check",
    "mention",
    "explain",
    "keep",
    "let",
    "have",
    "find",
    "figure",
    "investigate",
];
/// A verb's forms that show the word before them was its subject ("Testing is slow", "Build
/// times are long").
pub(super) const FINITE: &[&str] = &[
    "is",
    "are",
    "was",
    "were",
    "has",
    "have",
    "had",
    "does",
    "do",
    "did",
    "can",
    "could",
    "will",
    "would",
    "should",
    "must",
    "may",
    "might",
    "isn't",
    "aren't",
    "wasn't",
    "weren't",
    "doesn't",
    "don't",
    "didn't",
    "won't",
    "can't",
    "cannot",
    "shouldn't",
    "hasn't",
    "haven't",
    "needs",
    "seems",
    "looks",
    "lives",
    "runs",
    "goes",
    "takes",
    "breaks",
    "fails",
    "works",
    "belongs",
    "comes",
    "gets",
];
/// Verbs of being somewhere or depending on something, never orders, that follow a plural
/// subject ("Test files live in spec/").
const STATIVE: &[&str] = &["live", "exist", "belong", "sit", "happen", "depend", "rely", "remain", "mean"];
/// Words that begin the object of an order: after one of them the sentence is the order.
const OBJECT_START: &[&str] = &[
    "the", "a", "an", "this", "that", "these", "those", "it", "them", "all", "every", "each", "any", "some",
    "our", "my", "your", "its", "their", "me", "us", "him", "her", "to", "up", "out", "in", "on", "into",
    "onto", "off", "over", "with", "without", "for", "from", "at", "by", "of", "as", "sure", "back", "down",
    "away", "again", "both", "no", "not", "more", "less", "one", "two", "what", "how", "why", "whether",
    "if", "where", "when", "which", "who",
];

/// Does the sentence open with an order: an order's verb after the words that may lead it
/// ("please", "ok", "now", "can you"), or "let's …"? A verb that is also a noun is read as the
/// subject when its verb follows ("Test files live in spec/", "Build times are long").
pub fn is_imperative(sentence: &str) -> bool {
    let s = sentence.trim_start();
    if ORDER_FORM.is_match(s) {
        return true;
    }
    let rest = ORDER_LEAD.find(s).map_or(s, |m| &s[m.end()..]);
    // "https://…/pull/190 address the PR feedback": the link names what the order is about.
    let rest = match rest.split_once(char::is_whitespace) {
        Some((first, after)) if first.contains("://") => after.trim_start(),
        _ => rest,
    };
    let words: Vec<String> = rest
        .split_whitespace()
        .take(5)
        .map(|w| w.trim_matches(|c: char| !c.is_alphanumeric() && c != '\'' && c != '-').to_lowercase())
        .collect();
    let Some(first) = words.first() else { return false };
    if !is_verb(first.as_str()) {
        return false;
    }
    // "Fix: …" is a label, and "Wait, we …", "Look, …" are said to get attention: not orders.
    let lead = rest.split_whitespace().next().unwrap_or("");
    if lead.ends_with(':') || lead.ends_with(',') && ATTENTION.contains(&first.as_str()) {
        return false;
    }
    // "Continue, the network is back": the order is the one word before the comma.
    if lead.ends_with(',') {
        return true;
    }
    CLAUSE_VERBS.contains(&first.as_str()) || !opens_with_subject(&words)
}

/// Is the first word the subject (or part of it) of a verb that follows?
fn opens_with_subject(words: &[String]) -> bool {
    for (i, w) in words.iter().enumerate().skip(1).take(3) {
        if OBJECT_START.contains(&w.as_str()) {
            return false;
        }
        if FINITE.contains(&w.as_str()) || w.ends_with("'s") && i == 1 {
            return true;
        }
        // "Test files live in spec/": a plural noun and a verb in the plural.
        let verb = is_verb(w.as_str()) || STATIVE.contains(&w.as_str());
        if i >= 2 && verb && words[i - 1].ends_with('s') && !words[i - 1].ends_with("ss") {
            return true;
        }
    }
    false
}

/// Orders that set a standing way of working ("Use yarn, not npm", "Prefer …", "Avoid …").
pub static STANDING_IMPERATIVE: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r"(?i)^(?:please |pls |and |also )*(?:use|prefer|avoid|stick (?:to|with)|keep using|never|always|don'?t|do not|no more)\b",
    )
});
/// "Use this icon and resize it", "Stick with these colours", "Use a team of agents to execute
/// all 4": what "use" is said of, or what it is used for, is in hand (a file just handed over,
/// the agent's last proposal, the tasks listed), so the order makes no way of working. "Use
/// this instead of npm" still sets one way against another.
pub fn uses_the_thing_in_hand(body: &str) -> bool {
    static IN_HAND: LazyLock<Regex> =
        LazyLock::new(|| re(r"(?i)^(?:use|keep using|stick (?:to|with)) (?:this|that|these|those)\b"));
    // "Use a team of agents to execute all 4", "Use subagents to implement these tasks": the
    // means for the work in hand, which the words after "to" point at.
    static MEANS_FOR_IT: LazyLock<Regex> = LazyLock::new(|| {
        re(
            r"(?i)^(?:use|spin up|spawn) (?:[\w-]+ ){1,5}?to \w+(?: and \w+)? (?:(?:all|both|each of|every one of) )*(?:this|that|these|those|it|them|\d+)\b",
        )
    });
    static SETS_AGAINST: LazyLock<Regex> =
        LazyLock::new(|| re(r"(?i)\b(?:instead of|rather than|over|not)\b"));
    // "please", "also", "then" before the verb change nothing.
    let order = ORDER_LEAD.find(body).map_or(body, |m| &body[m.end()..]);
    (IN_HAND.is_match(order) || MEANS_FOR_IT.is_match(order)) && !SETS_AGAINST.is_match(body)
}

/// "Make that standard in your workflow", "Do this every time from now on": the sentence makes
/// the order before it standing, and says nothing alone.
pub fn makes_the_last_standing(sentence: &str) -> bool {
    static MAKES_STANDING: LazyLock<Regex> = LazyLock::new(|| {
        re(
            r"(?i)^(?:and |so |please |ok,? )*(?:(?:make|keep) (?:that|this|it) (?:a |the |your |our )?(?:standard|default|habit|rule|norm|routine|standard practice)|(?:always )?do (?:that|this|it|so) (?:every time|each time|always|from now on|going forward))\b[^.!?]{0,40}[.!]?$",
        )
    });
    MAKES_STANDING.is_match(sentence.trim())
}

/// "… this never happens again": about an incident, not a rule. So is what follows a
/// question of why it happened ("Reflect why you didnt and how we can make you in the
/// future"): its "in the future" is the incident's. A thing to be made that always does
/// something ("Create a test to always verify this is working") is the work, and "in this
/// repo" after a look through ("review all agents.md files in this repo") says where to look.
static INCIDENT: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r"(?i)\b(?:this|that|it) (?:will )?never (?:happens?|repeats?|occurs?|comes? back|breaks?)(?: again)?\b|\bnever (?:happens?|repeats?) again\b|\bwhy (?:you|it|this|that) (?:did|didn'?t|didnt|did not|happened|went wrong|failed|missed|skipped|forgot)\b.*$|\b(?:tests?|checks?|hooks?|scripts?|jobs?|workflows?|guards?) (?:that|which|to) (?:always|never)\b.*$|^(?:please\s+)?(?:fix|solve|resolve|address|debug|investigate|handle)\s+(?:this|that|it|these|those|them)\b.*$|\b(?:review|check|audit|scan|search|go through|read|explore|look (?:at|through|into)|find|clean up)\b.{0,80}?\bin (?:this|the) (?:repo|repository|codebase|project)\b",
    )
});
/// A way of working put in a sequence of steps ("Now use …", "Then prefer …").
static SEQUENCED: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r"(?i)^(?:now|then|next|afterwards|after that),?\s+(?:use|prefer|avoid|stick (?:to|with)|keep using)\b",
    )
});
/// A verb taking a question for its object: "Investigate how we can …", "Check whether …".
static WH_ORDER: LazyLock<Regex> =
    LazyLock::new(|| re(r"(?i)^[a-z]{4,} (?:how|whether|why|if) (?:we|you|to|it|this|that|the|i)\b"));
/// "We should update X to also …", "Yes please commit, then …", "No don't set it": a change
/// to make in the work, said as what we should do or as the answer to the agent's question.
/// A quantifier over every case makes it a rule ("we should add the agent name to any
/// logging").
static WORK_CHANGE: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r"(?i)^(?:we|you) (?:should|need to|have to) (?:also |now |probably |first |then |just |at least )?(?:update|add|change|make|remove|fix|include|create|rename|move|put|record|implement|refactor|try|do|set|drop|delete|revert|write)\b|^(?:yes|yeah|yep|no|nope|ok(?:ay)?|sure)\b[,.!]?\s+(?:please|let'?s|do|don'?t|wait|go|just|then|so)\b|^(?:[a-d1-9]\)|\d+,)\s|^if that'?s (?:the case|true|so)\b",
    )
});
/// "We should spawn workers …", "We should have a look when …": the work the user means to do
/// next, said as what we should do, with any verb. "We should not …" sets a limit and is left
/// to the rules, and so is "we should be …" (a state to keep: "… be using strong types").
static WE_SHOULD: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r"(?i)^(?:so |and |then |now |ok(?:ay)?,? )?(?:we|you) (?:should|need to|have to|must) (?:(?:also|now|probably|first|then|just|at least|maybe|definitely|really|still|eventually|later|soon) )*([a-z-]+)\b",
    )
});

fn we_should_do(body: &str) -> bool {
    WE_SHOULD.captures(body).is_some_and(|c| {
        let verb = c[1].to_lowercase();
        verb != "be" && verb != "not" && verb != "never" && verb != "always" && is_verb(&verb)
    })
}

/// "All project docs regarding the metadata objects should be documented": the same change,
/// in the passive. What is to come ("every new endpoint", "any future schema") makes it a
/// rule; "all" of what is there now does not.
static PASSIVE_CHANGE: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r"(?i)^[^,;]*\b(?:should|needs? to|must) (?:also |now |first )?be (?:documented|updated|added|removed|created|fixed|changed|renamed|moved|refactored|implemented|deleted|cleaned up|rewritten|merged|reverted)\b[^,;]*$",
    )
});
/// What is to come, not what is there.
static TO_COME: LazyLock<Regex> =
    LazyLock::new(|| re(r"(?i)\b(?:new|future|every|each|any|whenever|always|from now on)\b"));
/// Every case, not the one in hand.
static EVERY_CASE: LazyLock<Regex> =
    LazyLock::new(|| re(r"(?i)\b(?:any|every|all|each|wherever|whenever|everywhere|everything)\b"));
/// What points at the task of the moment: "this", "that", an issue or PR link.
static POINTS_AT_TASK: LazyLock<Regex> =
    LazyLock::new(|| re(r"(?i)\b(?:this|that)\b|https?://\S+/(?:issues|pull|pulls)/\d+"));

/// "… instead of in the global README", "… rather than under `src/`": the order says where a
/// kind of thing goes, against the place it would otherwise go (a document, a folder, a file).
static PLACEMENT: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r"(?i)\b(?:instead of|rather than) (?:in|into|under|inside|next to)? ?(?:the |our |a )?(?:global |root |main |top-level |shared |central )?(?:(?:readme|docs?|documentation|wiki|folder|directory|dir|file)\b|`[^`]+`|[\w.-]+/[\w./-]*)",
    )
});

/// Does the order say where a kind of thing goes, a rule that outlives the task?
pub fn places(body: &str) -> bool {
    PLACEMENT.is_match(body)
}

/// "Let's instead replace our expectations with literal multiline strings", "I'd like all
/// those assertions replaced with a single comparison instead": a way set against another for
/// a kind of code, over all of it (our, all, every, each, any), is how that kind is written
/// from now on, whatever the order's form. One thing changed ("use `checkpointID` instead of
/// `cpID` in session.go", "rename it to steps instead") or a helper named ("review the plans
/// with Opus instead") sets no way for a kind.
static THE_WAY_FOR_A_KIND: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r"(?i)\b(?:our|all(?: of)?(?: the| our| those| these)?|every|each|any)\s+(?:[\w-]+\s+){0,2}?(?:expectations?|assertions?|asserts?|checks|tests?|test cases?|types|error messages|errors|strings|structs|enums|comments|imports|mocks|fixtures|snapshots|queries|log lines|logs|names|variables|functions|components)\b",
    )
});
static SET_AGAINST: LazyLock<Regex> = LazyLock::new(|| re(r"(?i)\binstead\b|\brather than\b"));

/// Does the order set a way against another for a kind of code, over all of it?
pub fn sets_the_way_for_a_kind(body: &str) -> bool {
    SET_AGAINST.is_match(body) && THE_WAY_FOR_A_KIND.is_match(body)
}

/// The order without the place or the way it names before its verb: "Underneath the
/// tagline, add a rendered SVG" is an order after the place it goes; "Instead of force
/// installing, compare to the backup repo" is still an order, and "Instead of npm, use pnpm"
/// a way of working, as "Use pnpm" is.
pub fn without_place_or_way_before(body: &str) -> &str {
    static PLACE_LEAD: LazyLock<Regex> = LazyLock::new(|| {
        re(
            r"(?i)^(?:under(?:neath)?|above|below|beside|next to|after|before|at the (?:top|bottom|end|start) of)\b[^,]{0,100},\s*",
        )
    });
    static INSTEAD_LEAD: LazyLock<Regex> =
        LazyLock::new(|| re(r"(?i)^(?:instead of|rather than)\b[^,]{1,80},\s*"));
    let body = PLACE_LEAD.find(body).map_or(body, |m| &body[m.end()..]);
    INSTEAD_LEAD.find(body).map_or(body, |m| &body[m.end()..])
}

/// "I want you to …", "I need you to …", "you need to …", "we need to …": work asked for in the
/// form of a wish or a need.
static WORK_WISH: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r"(?i)^(?:(?:ok(?:ay)?|so|and|also|now|then|please|but)[,]?\s+)*(?:i(?:'d| would)? (?:want|need|like) you to|i'?d like you to|you (?:need|have) to|we (?:still |also |now |first )?need to|we have to|i need (?:a|an|the|some)|please\b)",
    )
});

/// Does the sentence ask the agent for work on the task at hand: an order that is not a
/// standing one ("Implement an indication for …", not "Use pnpm"), or a wish for work ("I want
/// you to rework the commits")? A standing word makes it a rule, not the task.
pub fn asks_for_work(sentence: &str) -> bool {
    let order =
        is_imperative(sentence) && !STANDING_IMPERATIVE.is_match(sentence) || WORK_WISH.is_match(sentence);
    order && !super::kinds::STRONG_STANDING.is_match(sentence)
}

/// Does a clause after a dash or a semicolon turn to an order ("… — update rust-version in
/// Cargo.toml")? "plan only, I review and apply" says how, and is no order.
pub fn turns_to_order(clause: &str) -> bool {
    let clause = clause.trim_start();
    if ORDER_FORM.is_match(clause) {
        return true;
    }
    let rest = ORDER_LEAD.find(clause).map_or(clause, |m| &clause[m.end()..]);
    let mut words =
        rest.split_whitespace().map(|w| w.trim_matches(|c: char| !c.is_alphanumeric()).to_lowercase());
    let (Some(verb), Some(next)) = (words.next(), words.next()) else { return false };
    is_imperative(clause)
        && is_verb(verb.as_str())
        && !["only", "later", "instead", "too", "as", "so"].contains(&next.as_str())
}

/// Is the sentence an order in one of these forms?
/// "Use subagents if you need", "run the e2e suite if needed": leave to do something in this
/// work, the order's whole content a way the agent may take now. A permission that names
/// what it is for ("ping Kofi if you need a token", "read .env.example if you need to know
/// which variables exist") tells where something is and stays.
pub fn is_leave_for_the_work(body: &str) -> bool {
    static LEAVE: LazyLock<Regex> = LazyLock::new(|| {
        re(
            r"(?i)\b(?:if (?:you |u )?(?:need|want|like|wish|prefer)(?: (?:to|it|them|so))?|if (?:needed|necessary|required|you must)|as (?:needed|necessary|required)|when needed)\s*[.!]?\s*$",
        )
    });
    (is_imperative(body) || STANDING_IMPERATIVE.is_match(body)) && (LEAVE.is_match(body) || is_a_tweak(body))
}

/// "Use a little bit more color on the pages", "make it slightly darker": a touch to the work
/// in hand, by how much more or less, not a way of working.
fn is_a_tweak(body: &str) -> bool {
    static TWEAK: LazyLock<Regex> = LazyLock::new(|| {
        re(
            r"(?i)^(?:please\s+)?(?:use|make|add|give|put|keep)\s+(?:(?:it|them|this|that|the \w+)\s+)?(?:a (?:little|tiny|touch|bit)(?: bit)?|a lot|slightly|much|way|even|just a (?:little|bit|touch)(?: bit)?)\s+(?:more|less|fewer|bigger|smaller|larger|darker|lighter|warmer|cooler|wider|narrower|taller|shorter|brighter)\b",
        )
    });
    TWEAK.is_match(body)
}

pub fn is_order_form(body: &str) -> bool {
    // "Need a date-range picker on the KPI row …": the speaker's "I" left out of a want for
    // something new ("Need the nightly export to go to the new bucket" states a change).
    static BARE_NEED: LazyLock<Regex> =
        LazyLock::new(|| re(r"(?i)^(?:need|want|would like)\s+(?:a|an|some)\b"));
    BARE_NEED.is_match(body)
        || SEQUENCED.is_match(body)
        || WH_ORDER.is_match(body) && POINTS_AT_TASK.is_match(body)
        || (WORK_CHANGE.is_match(body) || we_should_do(body)) && !EVERY_CASE.is_match(body)
        || PASSIVE_CHANGE.is_match(body) && !TO_COME.is_match(body)
}

/// The sentence without an incident's "never", for the test of a standing rule.
pub fn without_incident(text: &str) -> Cow<'_, str> {
    INCIDENT.replace_all(text, "")
}

/// A prohibition: "Don't …", "Do not …", "Never …", "Please dont …".
static PROHIBITION: LazyLock<Regex> =
    LazyLock::new(|| re(r"(?i)^(?:please\s+)?(?:don'?t|dont|do not|never)\b"));
/// An order that names the right way against a wrong one: "Fix the actual problem …", "…
/// instead", "do it properly".
static THE_WAY_INSTEAD: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r"(?i)\binstead\b|\brather\b|\b(?:the|its) (?:actual|real|underlying|root) (?:problem|cause|issue|fix)\b|\broot cause\b|\bproperly\b|\bthe right way\b",
    )
});

/// Does the fact forbid something ("Dont just push the migrations by hand")?
pub fn prohibits(text: &str) -> bool {
    PROHIBITION.is_match(text.trim())
}

/// Is the sentence an order that names the way to take instead of a wrong one?
pub fn names_the_way_instead(sentence: &str) -> bool {
    is_imperative(sentence) && THE_WAY_INSTEAD.is_match(sentence) && super::kinds::word_count(sentence) <= 30
}

/// "Drop support for the MSI package", "stop supporting Node 16", "deprecate support for
/// IE11": what the project supports, ended. An order in form, a lasting decision in what it says.
static ENDS_SUPPORT: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r"(?i)^(?:(?:ok(?:ay)?|so|and|also|please|let'?s|we(?:'ll| will| should)?)[,]?\s+)*(?:drop|remove|end|deprecate|discontinue|stop)\s+(?:the\s+|our\s+)?support\s+(?:for|of)\s+\S|^(?:(?:please|let'?s|we(?:'ll| will| should)?)\s+)?stop supporting\s+\S",
    )
});

/// "I only want to keep MSIX as of now, so …", "we'll only keep the arm64 build": what stays,
/// up to the clause that goes on to the work.
static STAYS: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r"(?i)^(?:i|we)(?:'ll| will)?\s+(?:only (?:want|need) to keep|want to keep only|only keep|keep only)\s+[^,;.!?]+",
    )
});

/// Does the sentence end the support of something ("Drop support for the MSI Windows package")?
pub fn ends_support(text: &str) -> bool {
    ENDS_SUPPORT.is_match(text.trim())
}

/// What a sentence says stays supported ("I only want to keep MSIX as of now"), without the
/// work it goes on to.
pub fn what_stays_supported(text: &str) -> Option<&str> {
    STAYS.find(text.trim()).map(|m| m.as_str().trim_end())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn orders_in_other_forms_and_the_incident_never() {
        assert!(is_order_form("Now use the writing clearly skills on this document."));
        assert!(is_order_form("Ibvestiaget how we can solve this: https://github.com/acme/app/issues/5992"));
        assert!(!is_order_form("Use the writing clearly skill for public text."));
        assert!(!is_order_form("Releases happen whether we like it or not."));
        assert_eq!(without_incident("ensure this never repeats again"), "ensure ");
        assert_eq!(without_incident("never push to main"), "never push to main");
        assert!(places("Add a README into the e2e dir instead of in the global README."));
        assert!(places("Put the fixtures next to the tests rather than under `testdata/`"));
        assert!(!places("Return early instead of nesting the loop."));
        for way in [
            "Let's instead replace our expectations with literal multiline strings, nice and obvious.",
            "Instead, i'd like all those assertions replaced with a single comparison to what the result should be.",
            "For every test in redact_test.go i'd like literal expectations instead of strings.Contains checks.",
            "Use errors.Is rather than string matching for all error checks",
        ] {
            assert!(sets_the_way_for_a_kind(way), "{way}");
        }
        for one_thing in [
            "can we use `checkpointID` instead of `cpID` in cmd/entire/cli/session.go",
            "ok, let's rename to \"steps\" instead.",
            "review the plans with Opus 5 instead",
            "Replace our expectations with literal strings",
            "Could we show all the commit messages instead?",
        ] {
            assert!(!sets_the_way_for_a_kind(one_thing), "{one_thing}");
        }
        for change in [
            "We should update the banner to also have a check mark in front",
            "We need to make handleSessionStart the Claude one",
            "Yes please commit, then we should do a refactor",
            "No don't set it, let's see if it keeps happening",
            "No wait, so this branch adds the agent to logging",
            "B) why we have a fallback if it's not going to work",
            "3, but enabled by default",
            "If that's the case we need to rename the handler",
            "We should spawn workers to implement the sdk after this",
            "We should have a look when we start code review",
            "All project docs regarding the various file system metadata objects should be documented.",
        ] {
            assert!(is_order_form(change), "{change}");
        }
        for rule in [
            "We should add the agent name to any logging",
            "We should be using the strong types wherever we can",
            "We should not display AGENTS.md for Copilot instructions",
            "We should be using the strong types in new code",
            "No one deploys on Fridays",
            "Every new endpoint should be documented in the OpenAPI file.",
            "Internal changes are never breaking changes.",
        ] {
            assert!(!is_order_form(rule), "{rule}");
        }
    }

    #[test]
    fn leave_for_the_work_is_told_from_where_something_is() {
        for leave in
            ["Use subagents if you need", "run the e2e suite if needed.", "Use the LSP tool as needed"]
        {
            assert!(is_leave_for_the_work(leave), "{leave}");
        }
        for stays in [
            "Ping Kofi if you need a token",
            "Read .env.example if you need to know which variables exist",
            "Our dashboards are in Grafana if you need numbers",
            "Use pnpm, never npm",
        ] {
            assert!(!is_leave_for_the_work(stays), "{stays}");
        }
    }

    #[test]
    fn use_said_of_the_thing_in_hand_or_for_the_work_in_hand_is_an_order() {
        for in_hand in [
            "Use this icon and configure tauri app icons to use this",
            "Stick with these colours",
            "Use a team of agents to execute all all 4",
            "Use subagents to implement these three tasks.",
        ] {
            assert!(uses_the_thing_in_hand(in_hand), "{in_hand}");
        }
        for way in [
            "Use this instead of npm",
            "Use pnpm to install dependencies.",
            "Use the staging database to test migrations.",
            "Use act to test and run locally where we can with github actions",
            "Use subagents to handle all actions",
        ] {
            assert!(!uses_the_thing_in_hand(way), "{way}");
        }
        assert!(makes_the_last_standing("Make that standard in your workflow."));
        assert!(makes_the_last_standing("Do this every time from now on"));
        assert!(!makes_the_last_standing("Make that button the default action"));
    }

    #[test]
    fn an_order_opens_with_any_verb_of_the_lexicon_but_not_with_a_subject() {
        for order in [
            "Spawn worker to use the research wiki",
            "Create a worktree off latest origin/main",
            "please mention it in the changelog",
            "Make sure tests pass before you push",
            "Continue, the network is back",
        ] {
            assert!(is_imperative(order), "{order}");
        }
        for statement in [
            "Test files live in spec/",
            "Build times are long",
            "Release notes go out on Mondays",
            "Wait, we name files in snake_case",
            "Fix: the parser drops the last line",
            "Google Maps pricing is ugly",
        ] {
            assert!(!is_imperative(statement), "{statement}");
        }
        // After a dash, "plan only" says how, and is no order.
        assert!(turns_to_order("update rust-version in Cargo.toml"));
        assert!(!turns_to_order("plan only, I review and apply"));
    }
}
