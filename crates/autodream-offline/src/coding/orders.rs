//! Orders: a sentence that opens with its verb (the task at hand) or with a standing verb
//! ("use", "prefer", "never": a way of working), the forms an order takes besides, and the
//! "never" of an incident, which is no rule. [`super::durable`] and [`super::tails`] read them.
//!
//! | class | example |
//! |---|---|
//! | a way of working put in a sequence of steps | "Now use the writing clearly skill on this document" |
//! | a verb (however spelt) taking a question about the task | "Ibvestiaget how we can solve this: <issue link>" |
//! | an incident's "never" | "… and make sure this never repeats again" |
//! | a change to the work, said as what we should do | "We should update the banner to also have a check mark" (not "… to any logging") |
//! | the same change in the passive | "All project docs regarding the metadata objects should be documented" (not "Every new endpoint should be documented …") |
//! | an answer to the agent that gives the next step | "Yes please commit, then …", "No don't set it", "B) why we have a fallback …", "If that's the case we need to …" |
//! | where a kind of thing goes, said as an order | "Add a README into the e2e dir … instead of in the global README" |

use std::borrow::Cow;
use std::sync::LazyLock;

use regex::Regex;

use crate::text::re;

/// An order for the task at hand opens with its verb.
pub static IMPERATIVE: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r"(?i)^(?:please |pls |ok(?:ay)?,? |just |now |then |first |next,? |either |let'?s |go ahead and |can you |could you |can we |could we |shall we |you can |you could |maybe )*(?:add|fix|point|remove|delete|drop|rename|update|change|make|create|write|run|rerun|build|check|look|investigate|start|port|ship|push|pull|merge|squash|rebase|open|close|deploy|try|test|move|refactor|implement|set|show|tell|give|find|debug|clean|bump|mark|tag|send|ping|help|go|see|read|review|commit|install|generate|train|log|double-check|verify|confirm|continue|do|redo|revert|undo|copy|paste|print|dump|profile|benchmark|measure|split|extract|wire|hook|replace|switch|upgrade|downgrade|enable|disable|turn|restart|stop|kill|delegate|have|get|put|let|leave|keep|stick|finish|finalize|prepare|draft|summarise|summarize|explain|describe|list|compare|analy[sz]e|dig|grep|search|handle|address|resolve|sort|produce|hand|ask|note|validate|evaluate|assess|audit|research|explore|brainstorm)\b|^let'?s\s+\w|^(?:帮我|帮忙|麻烦|请你?|你先|你|先|把|给|跑|看|查|加|改|删|修|顺手|顺便|再|去|试试?|本地起|检查|确认|整理|写|提|打印|输出|清掉|处理|补|拉|切|升级|更新|重启|做|实现)",
    )
});
/// Orders that set a standing way of working ("Use yarn, not npm", "Prefer …", "Avoid …").
pub static STANDING_IMPERATIVE: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r"(?i)^(?:please |pls |and |also )*(?:use|prefer|avoid|stick (?:to|with)|keep using|never|always|don'?t|do not|no more)\b",
    )
});
/// "… this never happens again": about an incident, not a rule.
static INCIDENT: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r"(?i)\b(?:this|that|it) (?:will )?never (?:happens?|repeats?|occurs?|comes? back|breaks?)(?: again)?\b|\bnever (?:happens?|repeats?) again\b",
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

/// Is the sentence an order in one of these forms?
pub fn is_order_form(body: &str) -> bool {
    SEQUENCED.is_match(body)
        || WH_ORDER.is_match(body) && POINTS_AT_TASK.is_match(body)
        || WORK_CHANGE.is_match(body) && !EVERY_CASE.is_match(body)
        || PASSIVE_CHANGE.is_match(body) && !TO_COME.is_match(body)
}

/// The sentence without an incident's "never", for the test of a standing rule.
pub fn without_incident(text: &str) -> Cow<'_, str> {
    INCIDENT.replace_all(text, "")
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
        for change in [
            "We should update the banner to also have a check mark in front",
            "We need to make handleSessionStart the Claude one",
            "Yes please commit, then we should do a refactor",
            "No don't set it, let's see if it keeps happening",
            "No wait, so this branch adds the agent to logging",
            "B) why we have a fallback if it's not going to work",
            "3, but enabled by default",
            "If that's the case we need to rename the handler",
            "All project docs regarding the various file system metadata objects should be documented.",
        ] {
            assert!(is_order_form(change), "{change}");
        }
        for rule in [
            "We should add the agent name to any logging",
            "We should be using the strong types wherever we can",
            "We should not display AGENTS.md for Copilot instructions",
            "No one deploys on Fridays",
            "Every new endpoint should be documented in the OpenAPI file.",
            "Internal changes are never breaking changes.",
        ] {
            assert!(!is_order_form(rule), "{rule}");
        }
    }
}
