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
//! | a numbered option with a bold title, when the agent asks to choose | "1. **Keep em dash** — matches the UX spec" … "What is your call? (1 / 2 / 3)" |
//! | any of these in a block quote | "> **B. Split into base + usage**" |
//!
//! With no question above the options, the nearest heading or bold line says what is decided
//! ("**`formatRange` separator: em dash vs double-hyphen**") and leads the line in its place;
//! a numbered list with neither is no list of options (it is as often the ways to go on with
//! the work), and a pick of "Dismiss" or "Defer" decides nothing.
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
/// "1. **Keep em dash** (` — `) — matches the UX spec": a numbered option with a bold title,
/// read only when the agent asks to choose (a numbered list is as often the steps of a plan).
static NUMBERED_OPTION: LazyLock<Regex> =
    LazyLock::new(|| re(r"^\s*([1-9])[.)]\s+\*\*([^*]+?)\*\*\s*(\([^)]*\))?\s*(?:[-—–:]\s*)?(.*)$"));
/// "Which do you prefer?", "What is your call? (1 / 2 / 3)": the agent asks to choose.
static ASKS_TO_CHOOSE: LazyLock<Regex> = LazyLock::new(|| {
    re(r"(?i)\b(?:which|prefer|your call|choose|pick|go with)\b[^?]*\?|\(\s*[1-9a-h]\s*/\s*[1-9a-h]")
});
/// "## Decision: `--color-accent-glow` token format", "**`formatRange` separator: em dash vs
/// double-hyphen**": a heading or a bold line that names what is to be decided.
static SUBJECT_LINE: LazyLock<Regex> = LazyLock::new(|| re(r"^\s*(?:#{1,4}\s+(.+?)|\*\*([^*]+)\*\*)\s*$"));
/// "Decision:", "Decision needed — D1": the lead of a subject, not the subject.
static DECISION_LEAD: LazyLock<Regex> = LazyLock::new(|| {
    re(r"(?i)^(?:decision(?: needed)?(?: \w{1,3})?|question|open question)\s*(?:[:—–-]\s*|$)")
});
/// "Recommended Path Forward", "Next steps": a heading over ways to go on with the work, not
/// over what is to be decided.
static WAY_FORWARD: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r"(?i)\b(?:path forward|way forward|next steps?|how to proceed|recommend\w*|options?|approach(?:es)?|summary|findings?|root cause|results?)\b",
    )
});
/// "Dismiss", "Defer", "Won't fix": picking to do nothing about a finding decides nothing.
static NOTHING_DONE: LazyLock<Regex> =
    LazyLock::new(|| re(r"(?i)^(?:dismiss|ignore|skip|defer|postpone|won'?t fix|do nothing|no action)\b"));
/// "(`src/styles/global.css:12`)": where in the code, which a later session cannot trust.
static LINE_CITATION: LazyLock<Regex> = LazyLock::new(|| re(r"\s*\(`?[^()`\s]+:\d+(?:-\d+)?`?\)"));

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
        let line = agreed(question, reply).unwrap_or_else(|| format!("{question} Answered: {reply}."));
        if line.chars().count() <= MAX_CHARS {
            out.push(Answer { line, reply: reply.to_string() });
        }
    }
    out
}

/// "yeah", "definitely, go for it": a reply that only says yes.
static ONLY_YES: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r"(?i)^(?:yes|yeah|yep|yup|sure|definitely|absolutely|of course|correct|ok(?:ay)?)\b[\s,.!]*(?:(?:please|go for it|do it|let'?s do (?:it|that))[\s,.!]*)*$",
    )
});
/// "Are you okay replacing the SDK entirely?", "Should we highlight the running session?": a
/// yes-or-no question of how things should be, and the way it proposes.
static YES_NO: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r"(?i)^(?:(?:are you|would you be|is it) (?:okay|ok|fine|happy|comfortable|good)(?: with| to)?|(?:should|shall|do) we(?: want to)?)\s+([^?]+?)\s*\?$",
    )
});

/// A yes to a yes-or-no question, said as what was agreed: "Are you okay replacing the PnP
/// Modal SDK entirely?" + "yeah" → "Agreed: replacing the PnP Modal SDK entirely." The question
/// with "Answered: yeah" after it reads as a question, and a question leads no index hook. An
/// either-or question ("…, or rightmost?") keeps its answer beside it.
fn agreed(question: &str, reply: &str) -> Option<String> {
    if !ONLY_YES.is_match(reply) {
        return None;
    }
    // "**Active session indicator**: Should we highlight …?": the question after its label.
    let question = question.split_once(": ").map_or(question, |(_, asked)| asked);
    let way = YES_NO.captures(question)?.get(1)?.as_str();
    (!way.contains(" or ")).then(|| format!("Agreed: {way}."))
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
    let (offers, question, _) = laid_out(agent);
    (offers, question)
}

/// The options, the question asked before them, and, when no question is, the subject the
/// heading or bold line before them names.
fn laid_out(agent: &str) -> (Vec<Offer>, Option<String>, Option<String>) {
    // Options set in a block quote ("> **A. Keep as-is**") are read as any others.
    let lines: Vec<&str> =
        agent.lines().map(|l| l.trim_start().strip_prefix('>').map_or(l, str::trim_start)).collect();
    let asks_to_choose =
        agent.lines().rev().find(|l| l.contains('?')).is_some_and(|l| ASKS_TO_CHOOSE.is_match(l));
    let mut offers: Vec<Offer> = Vec::new();
    let mut question = None;
    let mut first_offer_line = None;
    let mut in_fence = false;
    // Were the options a numbered list? Then only a question or a subject makes them options.
    let mut numbered = false;
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
        } else if let Some(c) = NUMBERED_OPTION.captures(line).filter(|_| asks_to_choose) {
            numbered = true;
            let title = match c.get(3) {
                Some(aside) => format!("{} {}", &c[2], aside.as_str()),
                None => c[2].to_string(),
            };
            Some((c[1].to_string(), title, Some(c[4].to_string())))
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
    let mut subject = None;
    if let Some(first) = first_offer_line {
        question = lines[..first]
            .iter()
            .rev()
            .map(|l| QUESTION_LEAD.replace(l.trim(), "").trim().to_string())
            .find(|l| l.ends_with('?') && !l.starts_with('|'))
            .map(|l| clean(&l));
        if question.is_none() {
            subject = subject_before(&lines[..first]);
        }
    }
    // "1. **Subagent-Driven (this session)** … Which approach?": a numbered list with nothing
    // above it to say what it decides is as often how to go on with the work.
    if numbered && question.is_none() && subject.is_none() {
        offers.clear();
    }
    (offers, question, subject)
}

/// The nearest heading or bold line above the options that names what is to be decided:
/// "## Decision: `--color-accent-glow` token format (`src/styles/global.css:12`)" → "`--color-
/// accent-glow` token format". Lead-ins ("**Your options:**") are passed over; a bare label
/// ("Decision needed — D1"), a heading over ways to go on, or nothing within twenty lines up
/// names no subject.
fn subject_before(lines: &[&str]) -> Option<String> {
    // The nearest heading or bold line that is no lead-in decides: a subject, or nothing.
    let nearest = lines.iter().rev().take(20).find_map(|line| {
        let c = SUBJECT_LINE.captures(line)?;
        let text = c.get(1).or(c.get(2))?.as_str().trim();
        (!text.ends_with(':')).then_some(text)
    })?;
    let text = DECISION_LEAD.replace(nearest, "");
    let text = LINE_CITATION.replace_all(&text, "");
    let text = clean(&text);
    (super::kinds::word_count(&text) >= 2 && !WAY_FORWARD.is_match(&text)).then_some(text)
}

/// The decision an answer makes among the options the agent's last message offered:
/// "When should summaries be generated? Chosen: At commit time: …; not At every checkpoint,
/// nor On-demand."
pub fn decision(agent: &str, answer: &str) -> Option<String> {
    let label = picked(answer)?;
    let (offers, question, subject) = laid_out(agent);
    if offers.len() < 2 {
        return None;
    }
    let chosen = offers.iter().find(|o| o.label == label).filter(|o| !NOTHING_DONE.is_match(&o.title))?;
    // With neither the question nor a description, the option's title alone ("Show the
    // current branch") says nothing a later session can place.
    // Without the question, a description of a few words ("Pre-extract key content: Controlled
    // size, cheaper") does not say what was decided either.
    if question.is_none()
        && subject.is_none()
        && chosen.detail.as_deref().is_none_or(|d| super::kinds::word_count(d) < 5)
    {
        return None;
    }
    // "## Root Cause Found … Option 3: Wait for the build to complete": with no question of
    // how things should be, options laid out as remedies for a problem found now decide the
    // task at hand, not the project. Under a subject of what is to be decided ("`formatRange`
    // separator: em dash vs double-hyphen"), "Defer" is one way among others.
    if question.is_none()
        && (remedies_a_problem(agent)
            || subject.is_none() && offers.iter().any(|o| HOW_TO_GO_ON.is_match(&o.title)))
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
    let asked = match (question, subject) {
        (Some(q), _) => format!("{q} "),
        (None, Some(subject)) => format!("{}. ", subject.trim_end_matches('.')),
        (None, None) => String::new(),
    };
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
    text.starts_with("Chosen: ")
        || text.starts_with("Agreed: ")
        || text.contains("? Chosen: ")
        || text.contains(". Chosen: ")
        || text.contains("? Answered: ")
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
mod tests;
