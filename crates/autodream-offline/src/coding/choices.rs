//! Choices: the user picks one of the options the agent laid out.
//!
//! An agent that needs a design decision lays out labelled options ("**Option A — …**", a
//! table of "A. `auto_summarize: true`" rows) and asks; the user answers with the label ("A.",
//! "I like Option C", "I think B, nested in strategy options"). The answer alone says nothing
//! to a later session, and the option's words are the agent's. Together they are a decision
//! the user made explicitly, the strongest confirmation a proposal gets, so the dream writes
//! it: the question asked, the option chosen and what it was chosen over.
//!
//! | form | example |
//! |---|---|
//! | a label, alone or leading the answer | "A.", "A. is fine, ensure we log", "B, nested in …" |
//! | the label after a verb of choosing | "I like Option C", "let's go with option 2" |
//! | an option the agent offered, as a heading or bold lead | "**Option C — Thank you footer**" |
//! | an option in a table row | "\| **A. `auto_summarize: true`** \| Simple boolean … \|" |
//!
//! What the user says with the label is how they meant it, and goes beside the option chosen
//! ("A. just manual commit for now" → "Chosen: Manual-commit only (just manual commit for
//! now): …"); a pick that ends its line with a colon and spells out the option in the user's
//! own lines is written with those lines instead of the agent's description.
//!
//! A label the agent's last message did not offer picks nothing. An answer that numbers its
//! replies to the agent's numbered questions ("1. no, 2. left most, if all 3 lanes are active
//! we just show no line") picks no option either: each reply answers its question, and the
//! two are written together ("Should the active session always be lane 1, or rightmost?
//! Answered: left most, …"), since a reply alone is a fragment no later session can place.
//! Questions about the work at hand ("Should I commit now?", "Do you want me to research it
//! first?") decide nothing lasting and are left out.

use std::sync::LazyLock;

use regex::Regex;

use crate::text::re;

/// The longest decision line, in characters.
const MAX_CHARS: usize = 320;

/// "A.", "I like Option C", "let's go with option 2", "B, nested in …".
static PICK: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r"(?i)^\s*(?:(?:i(?:'d| would)? (?:like|prefer|think|go with|choose|pick|vote for)|let'?s (?:go with|do|take|pick)|go (?:with|for)|we(?:'ll| will) go with|ok(?:ay)?,?|yes,?)\s+)?(option\s+)?\(?([a-h]|[1-9])\)?(?:([.,:;!)]|\s+-\s)|\s*$|\s)",
    )
});
/// "**Option C — Thank you footer (Homebrew / many CLIs)**", "### Option 2: …".
static OPTION_HEADING: LazyLock<Regex> = LazyLock::new(|| {
    re(r"(?i)^\s*(?:#{1,4}\s*)?\**\s*option\s+([a-h1-9])\s*\**\s*[-—–:.)]*\s*\**\s*(.*?)\**\s*$")
});
/// "| **A. `auto_summarize: true` (Recommended)** | Simple boolean in … |".
static OPTION_ROW: LazyLock<Regex> =
    LazyLock::new(|| re(r"(?i)^\s*\|\s*\**\s*(?:option\s+)?([a-h])[.):]?\**\s+(.+?)\**\s*\|\s*(.*?)\s*\|"));
/// "**A)** Keep the flag", "B. Nested object": a lettered list item.
static OPTION_ITEM: LazyLock<Regex> = LazyLock::new(|| re(r"^\s*\**([A-H])[.)]\**\s+\**(.+?)\**\s*$"));
/// "(Recommended)", "(my original proposal)": the agent's own weighing, not the option.
static WEIGHING: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r"(?i)\s*\((?:recommended|simplest|most \w+|my (?:original )?(?:proposal|recommendation)|preferred|default)\)",
    )
});
/// "**Next question:** …", "Question 2: …".
static QUESTION_LEAD: LazyLock<Regex> =
    LazyLock::new(|| re(r"(?i)^\s*(?:\**\s*(?:next )?question(?: \d+)?\s*:?\s*\**\s*:?\s*)"));

/// One option the agent offered.
#[derive(Debug, Clone, PartialEq)]
pub struct Offer {
    pub label: String,
    pub title: String,
    /// What the agent said the option means: a table's next cell, or the first sentence
    /// under the option's heading.
    pub detail: Option<String>,
}

/// "1. **Are you okay replacing the SDK entirely?** The login flow …": a numbered item of the
/// agent's message.
static NUMBERED_ITEM: LazyLock<Regex> = LazyLock::new(|| re(r"^\s*(?:\*\*)?([1-9])[.)]\s+(.+)$"));
/// "1 - yeah, 2 - definitely", "1. no 2. we show …": where each numbered reply starts.
static REPLY_NUMBER: LazyLock<Regex> = LazyLock::new(|| re(r"(?:^|[\s,;.])([1-9])\s*(?:[.):]|\s-)\s+"));
/// A question about how the work goes on, not about how things should be.
pub(super) static ABOUT_THE_WORK: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r"(?i)\b(?:should i|shall i|do you want me|want me to|would you like me|can i|may i|ready to|proceed|continue|go ahead|commit|push|merge|first|now|next|before (?:i|we)|right away|at this point)\b",
    )
});
/// "i like option 3": a reply that picks from another list than the one asked about.
static OTHER_PICK: LazyLock<Regex> = LazyLock::new(|| re(r"(?i)\boption\s+[a-h1-9]\b"));

/// "not sure what the current behaviour is, but …": a reply that does not know.
pub(super) static UNSURE: LazyLock<Regex> =
    LazyLock::new(|| re(r"(?i)^(?:not sure|maybe|perhaps|i don'?t know|no idea|hm+|i guess|dunno)\b"));

/// One reply to one of the agent's numbered questions.
#[derive(Debug, Clone, PartialEq)]
pub struct Answer {
    /// The question and the reply, as one line.
    pub line: String,
    /// The reply as the user typed it.
    pub reply: String,
}

/// The agent's numbered questions, by number.
fn numbered_questions(agent: &str) -> Vec<(u32, String)> {
    let mut out: Vec<(u32, String)> = Vec::new();
    let mut in_fence = false;
    for line in agent.lines() {
        if line.trim_start().starts_with("```") {
            in_fence = !in_fence;
            continue;
        }
        let Some(c) = NUMBERED_ITEM.captures(line).filter(|_| !in_fence) else { continue };
        let number: u32 = c[1].parse().expect("one digit");
        let item = c[2].replace("**", "");
        let Some(end) = item.find('?') else { continue };
        let question = clean(&item[..=end]);
        out.retain(|(n, _)| *n != number);
        out.push((number, question));
    }
    out
}

/// The replies of a numbered answer to the agent's numbered questions, each with its question,
/// or nothing when the answer is not numbered that way.
pub fn answers(agent: &str, answer: &str) -> Vec<Answer> {
    let questions = numbered_questions(agent);
    if questions.len() < 2 {
        return Vec::new();
    }
    let marks: Vec<(u32, usize, usize)> = REPLY_NUMBER
        .captures_iter(answer)
        .map(|c| {
            let number = c.get(1).expect("group");
            (number.as_str().parse().expect("one digit"), number.start(), c.get(0).expect("match").end())
        })
        .collect();
    // The replies are numbered 1, 2, … in order, and the first opens the answer.
    let in_order = marks.iter().enumerate().all(|(i, m)| m.0 == i as u32 + 1);
    if marks.len() < 2 || !in_order || !answer[..marks[0].1].trim().is_empty() {
        return Vec::new();
    }
    let mut out = Vec::new();
    for (i, &(number, _, start)) in marks.iter().enumerate() {
        let end = marks.get(i + 1).map_or(answer.len(), |next| next.1);
        // A reply is one line: what follows a line break is the user going on to other things.
        let reply = answer[start..end].lines().next().unwrap_or("");
        let reply = reply.trim().trim_end_matches([',', ';', '.', ' ']).trim();
        let Some((_, question)) = questions.iter().find(|(n, _)| *n == number) else { continue };
        if reply.is_empty()
            || reply.contains('?')
            || OTHER_PICK.is_match(reply)
            || UNSURE.is_match(reply)
            || ABOUT_THE_WORK.is_match(question)
        {
            continue;
        }
        let line = format!("{question} Answered: {reply}.");
        if line.chars().count() <= MAX_CHARS {
            out.push(Answer { line, reply: reply.to_string() });
        }
    }
    out
}

/// The label the user's answer picks, upper-cased.
pub fn picked(answer: &str) -> Option<String> {
    let c = PICK.captures(answer)?;
    // A bare letter must be set off ("A.", "B,"): "a new approach" picks nothing.
    let set_off = c.get(1).is_some()
        || c.get(3).is_some()
        || answer[c.get(2)?.end()..].trim_start_matches(')').trim().is_empty();
    if !set_off {
        return None;
    }
    // "1. no 2. we show …": answers numbered to several questions.
    let label = c[2].to_uppercase();
    if label.chars().all(|ch| ch.is_ascii_digit()) && c.get(1).is_none() && answer.contains(" 2.") {
        return None;
    }
    Some(label)
}

/// The options an agent's message lays out, in order, and the question it asked about them.
pub fn offered(agent: &str) -> (Vec<Offer>, Option<String>) {
    let lines: Vec<&str> = agent.lines().collect();
    let mut offers: Vec<Offer> = Vec::new();
    let mut question = None;
    let mut first_offer_line = None;
    let mut in_fence = false;
    for (i, line) in lines.iter().enumerate() {
        if line.trim_start().starts_with("```") {
            in_fence = !in_fence;
            continue;
        }
        if in_fence {
            continue;
        }
        let found = if let Some(c) = OPTION_ROW.captures(line) {
            Some((c[1].to_uppercase(), c[2].to_string(), Some(c[3].to_string())))
        } else {
            OPTION_HEADING
                .captures(line)
                .or_else(|| OPTION_ITEM.captures(line))
                .map(|c| (c[1].to_uppercase(), c[2].to_string(), first_sentence_after(&lines[i + 1..])))
        };
        let Some((label, title, detail)) = found else { continue };
        let title = clean(&title);
        if title.is_empty() || offers.iter().any(|o| o.label == label) {
            continue;
        }
        first_offer_line.get_or_insert(i);
        offers.push(Offer { label, title, detail: detail.map(|d| clean(&d)).filter(|d| !d.is_empty()) });
    }
    if let Some(first) = first_offer_line {
        question = lines[..first]
            .iter()
            .rev()
            .map(|l| QUESTION_LEAD.replace(l.trim(), "").trim().to_string())
            .find(|l| l.ends_with('?') && !l.starts_with('|'))
            .map(|l| clean(&l));
    }
    (offers, question)
}

/// The decision an answer makes among the options the agent's last message offered:
/// "When should summaries be generated? Chosen: At commit time: …; not At every checkpoint,
/// nor On-demand."
pub fn decision(agent: &str, answer: &str) -> Option<String> {
    let label = picked(answer)?;
    let (offers, question) = offered(agent);
    if offers.len() < 2 {
        return None;
    }
    let chosen = offers.iter().find(|o| o.label == label)?;
    // With neither the question nor a description, the option's title alone ("Show the
    // current branch") says nothing a later session can place.
    // Without the question, a description of a few words ("Pre-extract key content: Controlled
    // size, cheaper") does not say what was decided either.
    if question.is_none() && chosen.detail.as_deref().is_none_or(|d| super::kinds::word_count(d) < 5) {
        return None;
    }
    // "## Root Cause Found … Option 3: Wait for the build to complete": with no question of
    // how things should be, options laid out as remedies for a problem found now decide the
    // task at hand, not the project.
    if question.is_none()
        && (remedies_a_problem(agent) || offers.iter().any(|o| HOW_TO_GO_ON.is_match(&o.title)))
    {
        return None;
    }
    // "Initialize missing fields when conflict resolves (here at line 928-935)": options that
    // point at lines of the code are ways to change that code now, not how the project goes.
    if offers.iter().any(|o| {
        super::pasted::cites_a_line(&o.title) || o.detail.as_deref().is_some_and(super::pasted::cites_a_line)
    }) {
        return None;
    }
    let asked = question.map(|q| format!("{q} ")).unwrap_or_default();
    // The label meant something only beside the agent's list; what the user said with it
    // ("A. just manual commit for now") is how they meant it.
    let chose = match refinement(answer) {
        Some(words) => format!("Chosen: {} ({words})", chosen.title),
        None => format!("Chosen: {}", chosen.title),
    };
    // What the user spelled out for the option says what was decided better than the agent's
    // description of it.
    let detail = match spelled_out(answer) {
        Some(terms) => format!(": {}", terms.join("; ")),
        None => {
            chosen.detail.as_deref().map(|d| format!(": {}", d.trim_end_matches('.'))).unwrap_or_default()
        }
    };
    let others: Vec<&str> = offers.iter().filter(|o| o.label != label).map(|o| o.title.as_str()).collect();
    let over = format!("; not {}", others.join(", nor "));
    // Within the limit, what goes first is what was chosen over what, then the detail.
    [
        format!("{asked}{chose}{detail}{over}."),
        format!("{asked}{chose}{detail}."),
        format!("{asked}{chose}."),
        format!("{chose}."),
    ]
    .into_iter()
    .find(|line| line.chars().count() <= MAX_CHARS)
}

/// "is fine, ", "sounds good, ": the answer's assent, before what it adds.
static ASSENT: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r"(?i)^(?:is|sounds|looks|seems)? ?(?:fine|good|great|ok(?:ay)?|perfect|works(?: for me)?)\b[,.;:!]*\s*",
    )
});

/// Words about when or whether to do the work, which a pick's refinement may be made of alone.
static WHEN_TO_DO_IT: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r"(?i)\b(?:straight away|right away|right now|asap|now|first|then|please|go ahead|go for it|let'?s (?:do|go with) (?:it|that)|do it|and|thanks?(?: you)?)\b",
    )
});

/// What the user says with the label, in the same sentence: "A. just manual commit for now
/// (can we update the issue?)" → "just manual commit for now"; "I think B, nested in strategy
/// options - it leaves us space" → "nested in strategy options - it leaves us space". Nothing
/// when the label stands alone, ends its line with a colon (then [`spelled_out`] reads the
/// lines under it), or what follows asks.
pub fn refinement(answer: &str) -> Option<String> {
    let c = PICK.captures(answer)?;
    let rest = answer[c.get(0).expect("match").end()..].trim_start_matches([' ', ',', '.', ':', ')', '-']);
    let first = rest.lines().next().unwrap_or("").trim();
    if first.is_empty() && rest.trim().is_empty()
        || answer.lines().next().is_some_and(|l| l.trim_end().ends_with(':'))
    {
        return None;
    }
    // The first sentence, without an aside that asks and without the assent.
    let sentence = crate::text::split_sentences(first).into_iter().next()?;
    let sentence = match sentence.find(" (") {
        Some(at) if sentence[at..].contains('?') => &sentence[..at],
        _ => sentence,
    };
    let words = ASSENT.replace(sentence.trim(), "");
    let words = words.trim().trim_end_matches(['.', ',', ';', '!', ' ']);
    // "straight away", "go for it, please": when to do it, not how it was meant.
    let meant = WHEN_TO_DO_IT.replace_all(words, "");
    (super::kinds::word_count(&meant) >= 2 && !words.contains('?')).then(|| words.to_string())
}

/// The longest line of a pick's terms, and the most lines read.
const MAX_TERM_CHARS: usize = 160;
const MAX_TERMS: usize = 4;

/// "I like Option 1, from an enabling perspective:" and then the user's own lines for it
/// ("entire enable -> just works as before", "entire enable --local-dev -> creates the wrapper
/// script"): the terms of the option as the user means it, up to the first blank line after
/// them. Nothing when the pick does not end its line with a colon, or a line asks or runs long.
pub fn spelled_out(answer: &str) -> Option<Vec<String>> {
    let answer = answer.trim_start();
    let (lead, rest) = answer.split_once('\n')?;
    if !lead.trim_end().ends_with(':') || picked(lead).is_none() {
        return None;
    }
    let mut terms = Vec::new();
    for line in rest.lines().map(str::trim) {
        if line.is_empty() {
            if terms.is_empty() {
                continue;
            }
            break;
        }
        let term = line.trim_start_matches(['-', '*', ' ']).trim_end_matches(['.', ';', ',']).trim();
        if term.is_empty()
            || term.contains('?')
            || term.chars().count() > MAX_TERM_CHARS
            || terms.len() == MAX_TERMS
        {
            return None;
        }
        terms.push(term.to_string());
    }
    (!terms.is_empty()).then_some(terms)
}

/// The agent frames its options as the ways out of a problem it just found.
static PROBLEM_FRAME: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r"(?i)\b(?:root cause|the (?:issue|problem|error|bug|failure|slowness|crash) (?:is|was)|caused by|is (?:failing|broken|down|slow)|solution options|options to (?:fix|resolve|solve)|to (?:fix|resolve|solve) (?:this|it|the)|workaround|quick fix|how (?:would you like|do you want) to proceed|(?:is|are) returning (?:an? )?(?:\d{3}|errors?)|[45]\d\d (?:errors?|bad gateway|not found|forbidden|unauthori[sz]ed))\b|^[#\s]*(?:solutions?|fixes|possible fixes|remedies)\s*:",
    )
});

/// "Proceed As-Is", "Stop here", "Wait for the build": an option about how the work goes on.
static HOW_TO_GO_ON: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r"(?i)^(?:proceed|continue|stop|skip|wait|abort|cancel|keep going|leave it|defer|postpone|pause|retry)\b|\bas[- ]is\b",
    )
});

fn remedies_a_problem(agent: &str) -> bool {
    let before = agent
        .lines()
        .take_while(|l| !OPTION_HEADING.is_match(l) && !OPTION_ITEM.is_match(l) && !OPTION_ROW.is_match(l));
    before.into_iter().any(|l| PROBLEM_FRAME.is_match(l))
}

/// Is this memo a pick ("… Chosen: X: …; not Y") or a reply with its question ("…? Answered:
/// …")? What was chosen and what it was chosen over are one decision: its clauses stand or
/// fall together.
pub fn is_pick(text: &str) -> bool {
    text.starts_with("Chosen: ") || text.contains("? Chosen: ") || text.contains("? Answered: ")
}

/// The first prose sentence under an option's heading, before the next option or a blank
/// line after prose.
fn first_sentence_after(lines: &[&str]) -> Option<String> {
    for line in lines.iter().take(6) {
        let t = line.trim();
        if t.is_empty() || t.starts_with("```") || t.starts_with('|') || t.starts_with('#') {
            continue;
        }
        if OPTION_HEADING.is_match(t) || OPTION_ITEM.is_match(t) || t.starts_with("---") {
            return None;
        }
        // Columns of a listing ("Branch        Description") are no sentence.
        if t.contains("   ") {
            return None;
        }
        let t = t.trim_start_matches(['-', '*', ' ']);
        return crate::text::split_sentences(t).first().map(|s| s.to_string());
    }
    None
}

/// An option's words without markup and the agent's weighing.
fn clean(s: &str) -> String {
    let s = WEIGHING.replace_all(s, "");
    s.replace("**", "")
        .trim()
        .trim_matches('|')
        .trim()
        .trim_end_matches([':', '—', '-', '–'])
        .trim()
        .to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    const TABLE: &str = "**Next question:** How should the configuration key be named?\n\n| Option | Description |\n|--------|-------------|\n| **A. `auto_summarize: true` (Recommended)** | Simple boolean in `strategy_options`. Clear intent. |\n| **B. `summarize: { enabled: true }`** | Nested object allowing future model override. |\n| **C. `generate_summaries: true`** | Alternative naming. |\n\nWhich naming do you prefer?";

    const HEADINGS: &str = "Here are the common patterns:\n\n**Option A — \"New Contributors\" section (GitHub Releases style)**\n\nGitHub auto-generates this in release notes.\n\n```markdown\n### New Contributors\n```\n\n**Option B — Inline attribution (Rails style) (most common)**\n\nMention the author in each entry.\n\n**Option C — Thank you footer (Homebrew / many CLIs)**\n\nA short callout at the bottom of each release:\n\n```markdown\n### Thanks\n```\n\nWant me to update the changelog?";

    #[test]
    fn the_answer_names_a_label() {
        for (answer, label) in [
            ("A.", "A"),
            ("A. is fine, ensure we log", "A"),
            ("I like Option C", "C"),
            ("I think B, nested in strategy options - it leaves us space", "B"),
            ("let's go with option 2", "2"),
            ("option 3", "3"),
            ("C)", "C"),
        ] {
            assert_eq!(picked(answer).as_deref(), Some(label), "{answer}");
        }
        for answer in [
            "a new approach would be better",
            "1. no 2. we show the active checkpoints",
            "I think we should drop it",
            "Add a README",
        ] {
            assert_eq!(picked(answer), None, "{answer}");
        }
    }

    #[test]
    fn options_in_a_table_and_under_headings_are_read() {
        let (offers, question) = offered(TABLE);
        assert_eq!(offers.len(), 3);
        assert_eq!(offers[1].title, "B. `summarize: { enabled: true }`".trim_start_matches("B. "));
        assert_eq!(offers[1].detail.as_deref(), Some("Nested object allowing future model override."));
        assert_eq!(question.as_deref(), Some("How should the configuration key be named?"));
        let (offers, question) = offered(HEADINGS);
        let titles: Vec<&str> = offers.iter().map(|o| o.title.as_str()).collect();
        assert_eq!(
            titles,
            [
                "\"New Contributors\" section (GitHub Releases style)",
                "Inline attribution (Rails style)",
                "Thank you footer (Homebrew / many CLIs)"
            ]
        );
        assert_eq!(offers[2].detail.as_deref(), Some("A short callout at the bottom of each release"));
        assert_eq!(question, None, "the question after the options is not the one they answer");
    }

    #[test]
    fn the_decision_says_what_was_chosen_over_what() {
        assert_eq!(
            decision(TABLE, "I think B.").as_deref(),
            Some(
                "How should the configuration key be named? Chosen: `summarize: { enabled: true }`: Nested object allowing future model override; not `auto_summarize: true`, nor `generate_summaries: true`."
            )
        );
        let d = decision(HEADINGS, "I like Option C").expect("a decision");
        assert!(d.starts_with("Chosen: Thank you footer (Homebrew / many CLIs): A short callout"), "{d}");
        // A label the agent did not offer, or a message with one option, decides nothing.
        assert_eq!(decision(HEADINGS, "D."), None);
        assert_eq!(decision("**Option A — Do it now**\n\nOk?", "A."), None);
        assert_eq!(decision("Shall I go on?", "A."), None);
        // Columns of a listing under an option are no description of it.
        let listing = "**Option A — Show the current branch**\n\nBranch        Description\n\n\
                       **Option B — Show the original branch**\n\nSimple and historical.";
        assert_eq!(decision(listing, "A"), None, "no question and no description: nothing to place");
        // Remedies for a problem found now decide the task at hand.
        let remedies = "## Root Cause Found\n\nThe slowness is caused by a background archive build.\n\n\
                        **Option 1: Disable JSON Archive (Recommended for now)**\nRemove the archive flag.\n\n\
                        **Option 2: Wait for Build to Complete**\nLet it finish (30+ more minutes).\n\nWhich would you prefer?";
        assert_eq!(decision(remedies, "Option 2"), None);
        let gateway = "CloudFront is returning 502 errors for the endpoint.\n\n## Solutions:\n\n\
                       ### Option 1: CloudFront Cache Invalidation (Recommended)\nCreate an invalidation.\n\n\
                       ### Option 2: Quick Test - Access Map via IP\nBypass the CDN for now.";
        assert_eq!(decision(gateway, "Option 1"), None);
        let go_on = "Here is where we stand.\n\n**Option A — Compromise: Implement Phase 1 only**\nSmaller change.\n\n\
                     **Option B — Proceed As-Is**\nKeep the plan.";
        assert_eq!(decision(go_on, "A."), None);
        // Options that point at lines of the code change that code now.
        let at_lines = "How should the conflict state be fixed?\n\n**Option A — Set BaseCommit when creating the state**\nComplete from the start.\n\n\
                        **Option B — Initialize missing fields when the conflict resolves**\nHere at line 928-935.";
        assert_eq!(decision(at_lines, "A."), None);
        let terse = "**Option A — Pre-extract key content**\nControlled size, cheaper.\n\n\
                     **Option B — Full transcript via stdin**\nEverything, costly.";
        assert_eq!(decision(terse, "A"), None, "no question and a description of three words");
        let described = listing.replace("Branch        Description", "Shows where the session is now.");
        assert_eq!(
            decision(&described, "A").as_deref(),
            Some(
                "Chosen: Show the current branch: Shows where the session is now; not Show the original branch."
            )
        );
    }

    #[test]
    fn what_the_user_says_with_the_label_says_how_it_was_meant() {
        for (answer, words) in [
            ("A. is fine, ensure we log", Some("ensure we log")),
            (
                "A. just manual commit for now (Can we update the linear issue ENT-96 to reflect this?)",
                Some("just manual commit for now"),
            ),
            (
                "I think B, nested in strategy options - it leaves us space to further customise later on. please use the british spelling :)",
                Some("nested in strategy options - it leaves us space to further customise later on"),
            ),
            ("A.", None),
            ("I like Option C", None),
            ("B, why not?", None),
            ("C. sounds good", None),
            ("1 straight away", None),
            ("B, go for it please", None),
            ("I like Option 1, from a enabling perspective:\n\nentire enable -> as before", None),
        ] {
            assert_eq!(refinement(answer).as_deref(), words, "{answer}");
        }
        assert_eq!(
            decision(TABLE, "I think B, nested in strategy options").as_deref(),
            Some(
                "How should the configuration key be named? Chosen: `summarize: { enabled: true }` (nested in strategy options): Nested object allowing future model override; not `auto_summarize: true`, nor `generate_summaries: true`."
            )
        );
    }

    #[test]
    fn the_users_own_terms_for_the_option_picked_are_the_decision() {
        let options = "## Options\n\n### Option 1: Wrapper in committed file (Simplest)\n- **Commit** `.claude/settings.json` with wrapper script\n- Wrapper checks `ENTIRE_LOCAL_DEV`\n\n\
                       ### Option 2: Local dev requires removing settings.json hooks\n- Keep settings.json with direct commands\n\nWhat do you think?";
        let answer = "I like Option 1, from a enabling perspective: \n\nentire enable -> just works as before, entire from path\nentire enable --local-dev -> creates the wrapper script, using ENTIRE_LOCAL_DEV\n\nin this repo we want to commit `entire enable --local-dev` state";
        assert_eq!(
            decision(options, answer).as_deref(),
            Some(
                "Chosen: Wrapper in committed file: entire enable -> just works as before, entire from path; entire enable --local-dev -> creates the wrapper script, using ENTIRE_LOCAL_DEV; not Local dev requires removing settings.json hooks."
            )
        );
        // Without the colon, or with a question among the lines, the agent's description stands.
        for answer in [
            "I like Option 1\n\nentire enable -> just works as before",
            "I like Option 1:\nwhat does the wrapper do?\n",
        ] {
            assert_eq!(spelled_out(answer), None, "{answer}");
            let d = decision(options, answer).expect("a decision");
            assert!(d.contains("Commit `.claude/settings.json` with wrapper script"), "{d}");
        }
        assert_eq!(spelled_out("Add these:\n- one\n- two"), None, "no pick");
    }

    const QUESTIONS: &str = "Here are the scenarios.\n\n```\n1. not a question?\n```\n\n**Questions for you:**\n1. Do you prefer the ending indicators (`╭╰•`) or just continuous lines with implicit gaps?\n2. Should the active session always be lane 1 (leftmost), or rightmost?\n3. For >3 sessions, should we cycle lanes or just show space (no line)?";

    #[test]
    fn numbered_replies_are_written_with_their_questions() {
        let got = answers(
            QUESTIONS,
            "1. i like option 3, 2. left most, if all 3 lanes are active we just show no line",
        );
        assert_eq!(
            got,
            vec![Answer {
                line: "Should the active session always be lane 1 (leftmost), or rightmost? Answered: left most, if all 3 lanes are active we just show no line.".to_string(),
                reply: "left most, if all 3 lanes are active we just show no line".to_string(),
            }]
        );
        let got = answers(QUESTIONS, "1 - continuous lines, 2 - leftmost, 3 - cycle");
        assert_eq!(got.len(), 3, "{got:?}");
        assert_eq!(
            got[2].line,
            "For >3 sessions, should we cycle lanes or just show space (no line)? Answered: cycle."
        );
        // A reply ends with its line; a reply that does not know answers nothing.
        let got = answers(QUESTIONS, "1. not sure yet, 2. leftmost\n\nI've also updated the issue.");
        assert_eq!(got.len(), 1, "{got:?}");
        assert_eq!(got[0].reply, "leftmost");
    }

    #[test]
    fn replies_that_are_not_numbered_answers_give_nothing() {
        // Not numbered from 1, not numbered at all, numbers inside a sentence, a question back.
        for answer in [
            "2. leftmost",
            "leftmost and cycle",
            "we need 2 lanes and 3 colours",
            "1. is the runner not the same as the session creator? 2. yes",
        ] {
            let got = answers(QUESTIONS, answer);
            assert!(got.iter().all(|a| !a.line.contains("Do you prefer")), "{answer}: {got:?}");
            assert!(got.len() <= 1, "{answer}: {got:?}");
        }
        assert!(answers(QUESTIONS, "2. leftmost, 3. cycle").is_empty());
        assert!(answers(QUESTIONS, "leftmost and cycle").is_empty());
        // One question is no numbered list.
        assert!(answers("1. Should the rail be green?", "1. yes, 2. no").is_empty());
        // Questions about the work at hand decide nothing lasting.
        let work = "Two questions:\n1. **Are you okay replacing the PnP Modal SDK entirely?** You'd build the login screens yourself.\n2. **Do you want to research the Core Kit options first** before replanning?";
        let got = answers(work, "1 - yeah, 2 - definitely, go for it.");
        assert_eq!(got.len(), 1, "{got:?}");
        assert_eq!(got[0].line, "Are you okay replacing the PnP Modal SDK entirely? Answered: yeah.");
    }
}
