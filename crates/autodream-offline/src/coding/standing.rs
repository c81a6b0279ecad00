//! Ways of working said in the forms the other rules read as the moment.
//!
//! The rules in [`super::durable`] drop a sentence that opens with "I think", "I want", an
//! order, or "already": most such sentences are opinions, wishes and orders for the task at
//! hand. A few forms of them are not, and each is named here with the class of sentence it
//! serves:
//!
//! | class | example | kept as |
//! |---|---|---|
//! | a judgement of what is better | "given the privacy focus, I think it's better not to store PII in local storage" | the judgement, without "I think" |
//! | a wish for where or how something lives, with its reason | "I want the instructions to live in AGENTS.md, not a skill, because …" | the wish |
//! | a standing clause inside an order | "add the two gaps, use table driven tests where possible" | the clause |
//! | something that already exists at a path | "there's already checkpoint-scoped transcript helpers in explain.go" | the sentence |
//! | where our things are kept | "keep our working documentation in Linear" | the order |
//! | what the agent has access to | "you have access to the ssh keys" | the sentence |
//! | where a service is, with its address | "the grafana dashboard is deployed here: https://…" | the sentence |
//! | what is always or never done in a named case | "if error is type of cli.SilentError, do not print anything" | the sentence |
//!
//! Each returns the text to keep; a sentence of none of these forms is left to the rules.

use std::sync::LazyLock;

use regex::Regex;

use crate::text::re;

use super::kinds::Kind;

/// "I think it's better not to …", "I think its best to …".
static BETTER: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r"(?i)\bI (?:think|feel|believe) (?:that )?(it'?s|its|it is|it would be|it'd be) (better|best|safer|cleaner|wiser|preferable) (not )?to\b",
    )
});
/// "I want the instructions to live in …, … because …".
static WANT_PLACE: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r"(?i)^I (?:want|'d like|would like) (?:the|our|all|every|each) [^,.;]{1,60}? to (?:live|be|stay|go|sit|use|follow|come)\b",
    )
});
static BECAUSE: LazyLock<Regex> = LazyLock::new(|| re(r"(?i)\b(?:because|since|so that|as it|as they)\b"));
/// A clause that sets a way of working for every case ("use X where possible").
static STANDING_CLAUSE: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r"(?i)^(?:and |also )?(?:use|prefer|avoid|never|always|don'?t|do not)\b[^;]*\b(?:where(?:ever)? possible|whenever possible|by default|from now on|going forward|in general|everywhere|in every \w+)\b",
    )
});
/// "there's already X in explain.go": where an existing thing lives.
static EXISTS_AT: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r"(?i)^there(?:'s| is| are) already (?:an? |some )?[\w-]+(?: [\w-]+){0,5} in (?:the )?`?[\w./-]*(?:\.[a-z]{1,5}|/)`?\s*[.!]?$",
    )
});
/// "keep our working documentation in Linear".
static KEEP_OURS: LazyLock<Regex> =
    LazyLock::new(|| re(r"(?i)^keep (?:our|all(?: of)? our|all the) [\w -]{2,40} (?:in|on|under|inside) \S"));
/// "you have access to the ssh keys".
static ACCESS: LazyLock<Regex> = LazyLock::new(|| {
    re(r"(?i)\byou (?:have|'ve got|have got) (?:full |read |write |ssh |admin )?access to (?:the |our )?\w")
});

/// "the grafana dashboard is deployed here: https://…".
static DEPLOYED_AT: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r"(?i)^(?:the |our )?[\w -]{2,40} (?:is|are) (?:deployed|hosted|located|running|available|live|published) (?:here|at|on|under)\b:?\s*<?https?://\S+>?\s*[.!]?$",
    )
});
/// "if error is type of cli.SilentError, do not print anything": a case, then what is always
/// or never done in it. The case must name its own thing: "if that fails, don't push" is about
/// the task at hand, and "if you see it, don't worry" is reassurance.
static IN_CASE: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r"(?i)^(?:and |also )?(?:if|when|whenever) (?P<case>[^,;]{3,80}),\s*(?:(?:we|you|it) (?:should |must )?)?(?:do not|don'?t|never|always|must not|should not|shouldn'?t) (?P<what>\w+)",
    )
});
static CASE_OF_THE_MOMENT: LazyLock<Regex> = LazyLock::new(|| {
    re(r"(?i)\b(?:this|that|it|these|those|now|here|yet|still|again|you (?:see|get|find|can'?t))\b")
});
static REASSURANCE: LazyLock<Regex> =
    LazyLock::new(|| re(r"(?i)^(?:worry|bother|hesitate|panic|mind|forget|wait|stop)$"));

/// The sentence's standing form: the kind and the text to keep, or `None`.
pub fn standing_form(sentence: &str) -> Option<(Kind, String)> {
    let s = sentence.trim();
    if s.ends_with('?') {
        return None;
    }
    if let Some(c) = BETTER.captures(s) {
        let m = c.get(0).expect("match");
        let rest = format!("it's {} {}to{}", &c[2], c.get(3).map_or("", |n| n.as_str()), &s[m.end()..]);
        let before = s[..m.start()].trim_end();
        let text = if before.is_empty() { capitalise(&rest) } else { format!("{before} {rest}") };
        return Some((Kind::Preference, capitalise(&text)));
    }
    if WANT_PLACE.is_match(s) && BECAUSE.is_match(s) {
        return Some((Kind::Preference, s.to_string()));
    }
    for clause in s.split([',', ';']).map(str::trim) {
        if STANDING_CLAUSE.is_match(clause) && clause.split_whitespace().count() >= 4 {
            let clause = clause.trim_start_matches("and ").trim_start_matches("also ");
            return Some((Kind::Preference, capitalise(clause)));
        }
    }
    if EXISTS_AT.is_match(s) {
        return Some((Kind::Reference, capitalise(s)));
    }
    if KEEP_OURS.is_match(s) {
        return Some((Kind::Preference, capitalise(s)));
    }
    if DEPLOYED_AT.is_match(s) {
        return Some((Kind::Reference, capitalise(s)));
    }
    if let Some(c) = IN_CASE.captures(s)
        && !CASE_OF_THE_MOMENT.is_match(&c["case"])
        && !REASSURANCE.is_match(&c["what"])
    {
        return Some((Kind::Preference, capitalise(s)));
    }
    if ACCESS.is_match(s) {
        return Some((Kind::Fact, capitalise(s)));
    }
    None
}

fn capitalise(s: &str) -> String {
    crate::render::capitalise_first(s.trim())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_standing_forms_keep_their_fact() {
        for (said, kind, kept) in [
            (
                "given the privacy focus of the app, I think its better not to store any PII in local storage.",
                Kind::Preference,
                "Given the privacy focus of the app, it's better not to store any PII in local storage.",
            ),
            (
                "I want the instructions to live in Agents.md, not a skill, because it needs to apply to every language.",
                Kind::Preference,
                "I want the instructions to live in Agents.md, not a skill, because it needs to apply to every language.",
            ),
            (
                "add the two gaps as well with correct test cases, use table driven tests where possible (also for e2e)",
                Kind::Preference,
                "Use table driven tests where possible (also for e2e)",
            ),
            (
                "there's already checkpoint-scoped transcript helpers in explain.go",
                Kind::Reference,
                "There's already checkpoint-scoped transcript helpers in explain.go",
            ),
            (
                "keep our working documentation in linear.",
                Kind::Preference,
                "Keep our working documentation in linear.",
            ),
            (
                "the grafana dashboard is deployed here: https://cipherbox.grafana.net/",
                Kind::Reference,
                "The grafana dashboard is deployed here: https://cipherbox.grafana.net/",
            ),
            (
                "you can check everything on the server yourself, you have access to the ssh keys.",
                Kind::Fact,
                "You can check everything on the server yourself, you have access to the ssh keys.",
            ),
            (
                "if error is type of cli.SilentError, do not print anything",
                Kind::Preference,
                "If error is type of cli.SilentError, do not print anything",
            ),
            (
                "When a migration touches the users table, always take a backup first.",
                Kind::Preference,
                "When a migration touches the users table, always take a backup first.",
            ),
        ] {
            assert_eq!(standing_form(said), Some((kind, kept.to_string())), "{said}");
        }
    }

    #[test]
    fn the_moment_in_the_same_words_is_left_to_the_rules() {
        for said in [
            "I think it's better to wait for CI on this one?",
            "I want the tests to pass before lunch.",
            "add the two gaps as well with correct test cases",
            "there's already a PR open for that",
            "keep going with the migration",
            "do you have access to the ssh keys?",
            "use table driven tests",
            "the fix is deployed here: https://example.com/pr/3 but it still fails",
            "if that fails, don't push",
            "if you see a warning about the lockfile, don't worry",
            "if the build is green now, do not wait for me",
        ] {
            assert_eq!(standing_form(said), None, "{said}");
        }
    }
}
