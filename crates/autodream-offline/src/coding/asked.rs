//! Either-or questions: the agent asks which of two ways things should go, and the user
//! answers by naming one.
//!
//! "What's your take on accessibility — keep it simple, or aim for a specific WCAG level?" and
//! the answer "keep it simple": the answer alone is an idiom no later session can place, the
//! question alone decides nothing. Together they are a decision the user made, so the dream
//! writes them as one line ("… WCAG level? Answered: keep it simple."), as it writes replies
//! to numbered questions ([`super::choices::answers`]).
//!
//! Only a clear answer counts: the agent's last paragraph asks one question of how things
//! should be ("should the …", "need to", "what's your take on …"), that question has two ways
//! joined by "or", and the short reply shares words with one way and none with the other. Not
//! counted:
//! - questions about the work at hand ("Want me to fix it now, or track it as a follow-up?",
//!   "Should I keep it at 50 or revert to 20?");
//! - questions about the moment ("Which interface are you testing with — the app, or …?",
//!   "Does this breakdown work for you, or would you like to adjust it?");
//! - a reply that asks, hesitates, or only assents ("works for me").

use std::collections::BTreeSet;
use std::sync::LazyLock;

use regex::Regex;

use super::choices::{ABOUT_THE_WORK, Answer, UNSURE};
use crate::text::re;

/// The longest line written, in characters, as for the other replies.
const MAX_CHARS: usize = 320;
/// The longest reply read as naming a way: a longer one says more than a pick.
const MAX_REPLY_CHARS: usize = 120;

/// A question about the user's moment or about the agent's last output, not about how
/// things should be.
static ABOUT_THE_MOMENT: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r"(?i)\b(?:are you \w+ing|were you|did you|have you|do you know|do you (?:see|have)|anything else|work(?:s)? for you|look(?:s)? (?:good|right)|would you like to|do you want to)\b",
    )
});

/// A question of how things should be: "Should the limit be global or per project?", "Does
/// the dashboard need to be responsive, or …?", "What's your take on accessibility — …?". Not
/// "Do you want the report as a table or as a list?", which asks about the output at hand.
static HOW_IT_SHOULD_BE: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r"(?i)\b(?:should (?:we|it|they|the|this|that|these|those|our|\w+s)|needs? to|what'?s your (?:take|preference|call)|(?:do|would) you prefer|must|by default|always)\b",
    )
});

/// "works for me", "sounds good", "it is fine": assent, which names no way.
static ONLY_ASSENT: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r"(?i)^(?:(?:yes|yeah|yep|ok(?:ay)?|sure|it|that|this)[,!. ]*)?(?:is |'s )?(?:fine|good|great|perfect|works?(?: for me)?|sounds (?:good|great|fine)|looks (?:good|great|fine)|lgtm)[.! ]*$",
    )
});

/// The words of a text that can tell the two ways apart: three letters or more, and no
/// function word ([`crate::text::is_function_word`]).
fn words(text: &str) -> BTreeSet<String> {
    static WORD: LazyLock<Regex> = LazyLock::new(|| re(r"[\p{L}][\p{L}\p{N}_'-]*"));
    WORD.find_iter(text)
        .map(|w| w.as_str().to_lowercase())
        .filter(|w| w.chars().count() >= 3 && !crate::text::is_function_word(w))
        .collect()
}

/// The agent's last paragraph outside code fences, without bold markup.
fn last_paragraph(agent: &str) -> String {
    let mut in_fence = false;
    let mut paragraphs: Vec<Vec<&str>> = vec![Vec::new()];
    for line in agent.lines() {
        if line.trim_start().starts_with("```") {
            in_fence = !in_fence;
            continue;
        }
        if in_fence {
            continue;
        }
        if line.trim().is_empty() {
            paragraphs.push(Vec::new());
        } else {
            paragraphs.last_mut().expect("one paragraph").push(line.trim());
        }
    }
    let last = paragraphs.into_iter().rev().find(|p| !p.is_empty()).unwrap_or_default();
    last.join(" ").replace("**", "")
}

/// The one question of the agent's last paragraph, split into its two ways.
fn either_or(agent: &str) -> Option<(String, String, String)> {
    static QUESTION: LazyLock<Regex> = LazyLock::new(|| re(r"[^.?!:]*\?"));
    let paragraph = last_paragraph(agent);
    let mut questions = QUESTION.find_iter(&paragraph);
    let question = questions.next()?.as_str().trim().to_string();
    if questions.next().is_some()
        || !HOW_IT_SHOULD_BE.is_match(&question)
        || ABOUT_THE_WORK.is_match(&question)
        || ABOUT_THE_MOMENT.is_match(&question)
        || question.to_lowercase().starts_with("or ")
    {
        return None;
    }
    let at = question.rfind(" or ")?;
    let (first, second) = (question[..at].to_string(), question[at + 4..].to_string());
    Some((question, first, second))
}

/// The reply to the agent's either-or question, with the question, when the reply names one
/// of its two ways and not the other.
pub fn either_answer(agent: &str, answer: &str) -> Option<Answer> {
    let reply = answer.trim();
    if reply.is_empty()
        || reply.lines().count() > 1
        || reply.chars().count() > MAX_REPLY_CHARS
        || reply.contains('?')
        || UNSURE.is_match(reply)
        || ONLY_ASSENT.is_match(reply)
    {
        return None;
    }
    let (question, first, second) = either_or(agent)?;
    let (first, second) = (words(&first), words(&second));
    let said = words(reply);
    let names_first = said.iter().any(|w| first.contains(w) && !second.contains(w));
    let names_second = said.iter().any(|w| second.contains(w) && !first.contains(w));
    if names_first == names_second {
        return None;
    }
    let reply = reply.trim_end_matches(['.', '!', ',', ';', ' ']);
    let line = format!("{question} Answered: {reply}.");
    (line.chars().count() <= MAX_CHARS).then(|| Answer { line, reply: reply.to_string() })
}

#[cfg(test)]
mod tests {
    use super::*;

    const ACCESSIBILITY: &str = "Good. Next, quality attributes.\n\nWhat's your take on **accessibility** — keep it simple, or aim for a specific WCAG level?";

    #[test]
    fn a_reply_that_names_one_way_is_written_with_the_question() {
        let a = either_answer(ACCESSIBILITY, "keep it simple").expect("answered");
        assert_eq!(
            a.line,
            "What's your take on accessibility — keep it simple, or aim for a specific WCAG level? Answered: keep it simple."
        );
        let responsive = "The scope is set.\n\nOne question to confirm: **Does the dashboard need to be responsive / mobile-friendly**, or will it always be viewed on a desktop/laptop?";
        let a = either_answer(responsive, "yes, lets make it responsive").expect("answered");
        assert!(a.line.starts_with("Does the dashboard need to be responsive"), "{}", a.line);
        assert!(a.line.ends_with("Answered: yes, lets make it responsive."), "{}", a.line);
        // The other way, named.
        assert!(either_answer(ACCESSIBILITY, "aim for WCAG AA").is_some());
    }

    #[test]
    fn no_clear_answer_no_line() {
        for (agent, reply) in [
            // The reply names both ways, or neither.
            (ACCESSIBILITY, "simple, but aim for WCAG AA later"),
            (ACCESSIBILITY, "surprise me"),
            // It asks back, hesitates, assents, or says more than a pick.
            (ACCESSIBILITY, "keep it simple?"),
            (ACCESSIBILITY, "maybe keep it simple"),
            (ACCESSIBILITY, "keep it simple\nand also fix the header"),
            // Questions about the work at hand and about the moment.
            ("Want me to fix it now, or track it as a follow-up?", "track it as a follow-up"),
            ("Should I keep it at 50 or revert to 20?", "revert to 20"),
            (
                "Which Mistral interface are you testing with — a separate chat app using your MCP server, or something else?",
                "the chat with MCP server.",
            ),
            (
                "Does this breakdown work for you, or would you like to adjust the scope of any story?",
                "work for me",
            ),
            (
                "Do you know if the other dev was on a feature branch or main when this happened?",
                "yes, that was it",
            ),
            // Two questions: which one the reply answers is not clear.
            ("Should the limit be global or per project? And in bytes or in lines?", "per project"),
            // No "or": nothing to choose between.
            ("What should the limit be?", "per project"),
            // A question about the output at hand, not about how things should be.
            ("Do you want the report as a table or as a list?", "as a table please"),
        ] {
            assert_eq!(either_answer(agent, reply), None, "{agent} / {reply}");
        }
        assert!(either_answer("Should the limit be global or per project?", "per project").is_some());
        assert_eq!(either_answer(ACCESSIBILITY, "works for me"), None);
    }
}
