//! Who said what: the user's own sentences out of an agent transcript.
//!
//! In a coding agent's transcript every user text turn is the user, but not every byte of it
//! is the user speaking: people paste logs, stack traces, diffs and command output, quote the
//! agent back, and the client itself writes into user entries (slash-command wrappers, hook
//! output, reminders, interruption markers, compaction summaries). Only the user's prose is a
//! candidate for memory. The assistant's text is never one: what it guessed is not a fact, and
//! what the user confirmed is in the user's own words.
//!
//! The arguments of a slash command (`<command-args>`) are the user's words and are read; the
//! rest of a meta entry is not. Daily-log notes (`autodream log`, the agent's deliberate
//! notes) are statements too.

use std::collections::HashSet;
use std::hash::{Hash, Hasher};
use std::sync::LazyLock;

use jiff::Timestamp;
use jiff::civil::Date;
use jiff::tz::TimeZone;
use regex::Regex;

use autodream_core::memdir::daily_log::LogEntry;
use autodream_core::sessions::{ParsedSession, Role, TurnKind};

use super::pasted::{self, TurnForm};
#[cfg(test)]
use segment::split_before_order;

mod segment;

/// Where a sentence was said.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub enum SaidIn {
    /// A session transcript: the session id and the 1-based line of the entry.
    Session { id: String, line: usize },
    /// A daily-log note: the log file (relative to the memory folder) and its line.
    Log { file: String, line: usize },
}

/// One sentence the user said (or a note the agent logged), cleaned of pasted content.
#[derive(Debug, Clone, PartialEq)]
pub struct Said {
    pub text: String,
    pub at: Timestamp,
    /// The local day of `at`: what relative dates are resolved against.
    pub date: Date,
    pub source: SaidIn,
    /// The sentence's position in its turn (0-based): a sentence that refers back ("That's
    /// how we do all tests") may take the one before it along.
    pub index: usize,
    /// Every sentence of a daily-log note is kept: the agent chose to write it down.
    pub note: bool,
    /// The form of the turn the sentence was said in (pasted or typed), for its confidence.
    pub form: TurnForm,
    /// The turn picks one of the options the agent laid out ([`super::choices`]): what the
    /// user adds to the pick is part of a decision made explicitly. Or the sentence is an item
    /// of a list the user declares standing ([`super::declared`]).
    pub confirmed: bool,
}

impl Said {
    /// A statement as deliberate as a daily-log note (a plan's check commands, a pick among
    /// options, what the user asked to be remembered): kept whole, its turn's form not weighed.
    fn deliberate(
        text: String,
        at: Timestamp,
        date: Date,
        source: SaidIn,
        index: usize,
        confirmed: bool,
    ) -> Said {
        Said { text, at, date, source, index, note: true, form: TurnForm::default(), confirmed }
    }
}

/// What the gathering saw, for the dream's summary.
#[derive(Debug, Default)]
pub struct Heard {
    /// Sentences, oldest first; sentences of one turn are consecutive.
    pub sentences: Vec<Said>,
    pub sessions: usize,
    pub user_turns: usize,
    pub log_entries: usize,
    /// Lines dropped as pasted content (code, logs, traces, quoted text).
    pub pasted_lines: usize,
    /// User turns left out as copies of a turn another session already holds.
    pub copied_turns: usize,
}

fn text_hash(text: &str) -> u64 {
    let mut h = std::collections::hash_map::DefaultHasher::new();
    text.hash(&mut h);
    h.finish()
}

/// The opening tag of a block the client, a front-end or another agent wraps around injected
/// text: `<system-reminder>`, `<ide_opened_file>`, `<teammate-message teammate_id="lead">`.
static OPEN_TAG_RE: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r#"<([a-z][a-z0-9_-]*)(?:\s+[a-z_:-]+="[^"]*")*\s*>"#).expect("valid regex"));

/// `text` without the tagged blocks that are closed by their own tag (each replaced by a line
/// break). `<a>x</b>` is left alone: it is prose that mentions tags.
fn without_tag_blocks(text: &str) -> std::borrow::Cow<'_, str> {
    let mut out = String::new();
    let mut copied = 0;
    let mut from = 0;
    while let Some(c) = OPEN_TAG_RE.captures_at(text, from) {
        let open = c.get(0).expect("match");
        let close = format!("</{}>", &c[1]);
        match text[open.end()..].find(&close) {
            Some(at) => {
                out.push_str(&text[copied..open.start()]);
                out.push('\n');
                copied = open.end() + at + close.len();
                from = copied;
            }
            None => from = open.end(),
        }
    }
    if copied == 0 {
        return std::borrow::Cow::Borrowed(text);
    }
    out.push_str(&text[copied..]);
    std::borrow::Cow::Owned(out)
}

static COMMAND_ARGS_RE: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"(?s)<command-args>(.*?)</command-args>").expect("valid regex"));
/// "Which approach do you think is better?", "What would be the best option here?": a question
/// that weighs the ways listed after it.
static WEIGHS_WAYS_RE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r"(?i)(?:\b(?:which|what)\b[^?]{0,80}\b(?:approach|option|way|solution|one|better|best)\b|\b(?:better|best|prefer(?:able|red)?)\b)[^?]{0,40}\?\s*$",
    )
    .expect("valid regex")
});
/// A preference that introduces a list without a colon: "I'd prefer that" and then bullets.
static PREFERS_THAT_RE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)^(?:i'?d (?:prefer|like)|i (?:prefer|want)|we (?:prefer|want))(?: it)?(?: that| if)?$")
        .expect("valid regex")
});
static ASKS_RE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)^(?:can|could|would|will|please|look|check|review|see|take|consider|what|how|why|is|are|do|does)\b|\?")
        .expect("valid regex")
});
/// A line that rejects what was just quoted ("this is not fully true, …").
static REJECTS_RE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)^(?:this|that|it)(?: is|'s) (?:not|wrong|incorrect)\b|^(?:not (?:fully |quite |entirely )?(?:true|right|correct))\b|^(?:这|那)(?:不对|不是)").expect("valid regex")
});
/// A line that announces that what follows it is pasted: someone else's text or a program's
/// document ("We got a complaint:", "Their review:", "See below mistake.", "Can you check
/// this?:"). A program's output ("Logs:") is told line by line instead, so that the user's words
/// after it stay; the user's own list after "The rules are:" is not announced this way.
static ANNOUNCES_PASTE_RE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)(?:\bsee below\b[^.!?:]*|\bbelow (?:is|are) (?:the|a|an|my|some)\b[^.!?:]*|\bas follows|\?|\b(?:responses?|messages?|reports?|mistakes?|comments?|reviews?|e-?mails?|complaints?|complain|findings|advisory|advisories|answer))\s*[.:]\s*$").expect("valid regex")
});
/// A short request that opens a turn and works on the text after its colon ("explain the
/// diff:", "Fix these issues:", "How to fix this:", "consider:"): what follows is the material
/// the request is about (the agent's output, a log, a document), not the user's statements.
/// A line that introduces the user's own rules ("Consider these rules:", "Read this and
/// remember:") is not one, nor "Evaluate:" inside a prompt the user wrote.
static WORKS_ON_WHAT_FOLLOWS_RE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)^(?:please\s+)?(?:(?:can|could) you\s+)?(?:explain|fix|check|review|look at|analy[sz]e|debug|investigate|consider|evaluate|read|compare|summari[sz]e|translate|address|what about|thoughts on|what do you think (?:of|about)|how (?:to|do (?:i|we)|can (?:i|we)|would you) (?:fix|solve|handle|read))\b(?:\s+[^\s:.!?]+){0,5}\s*:\s*$").expect("valid regex")
});
/// Words of a line that introduces the user's own rules.
static NAMES_OWN_RULES_RE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)\b(?:remember|rules?|always|never|notes?|conventions?|preferences?|guidelines?)\b")
        .expect("valid regex")
});
/// A program's warning or error message quoted inside a line, to the line's end.
static QUOTED_DIAGNOSTIC_RE: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"(?m)[*`]?\b[A-Z]\w*(?:Warning|Error|Exception):.*$").expect("valid regex"));
/// A shell prompt inside a line, and the terminal text after it.
static PROMPT_INSIDE_RE: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"(?m)[ \t][❯➜][ \t].*$").expect("valid regex"));
/// Client markers inside user text.
static MARKER_RE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"\[(?:Image #\d+|Pasted text #\d+[^\]]*|Request interrupted by user[^\]]*)\]")
        .expect("valid regex")
});
/// A whole user entry the client or a hook wrote.
static INJECTED_TURN_RE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r"(?i)^\s*(?:Operation stopped by hook|Stop hook feedback|PreToolUse:|PostToolUse:|\[Request interrupted|This session is being continued from a previous conversation|Caveat: The messages below|API Error|Implement the following plan)",
    )
    .expect("valid regex")
});
/// Lines that are output, not prose: log stamps, stack frames, prompts, diff lines.
static PASTED_LINE_RE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r#"(?x)^(?:
            >                                   # quoted (the agent's words, an email)
          | \$\ |\#\ |PS\ [A-Z]:|[❯➜»]\ |[\w.-]+@[\w.-]+\ [^\ ]*\ ?[%$\#]\  # a shell prompt
          | \[[\w.-]{2,24}\]\ \S                # a tool's tagged log line: "[build] Compiling …"
          | [✓✔✗✘⏺⎿]                            # a tool's status line
          | ={3,}\                               # a script's banner: "=== Step 3 ==="
          | \d{4}-\d\d-\d\d[T\ ]\d\d:\d\d       # a log time stamp
          | (?:[A-Z][a-z]{2}\ +\d{1,2}\ +)?\d\d:\d\d:\d\d\b  # a syslog or clock stamp: "Feb  8 22:02:21"
          | .*\|(?:DEBU|INFO|WARN|ERRO|TRAC|FATA)\|  # a logger's level column: "|DEBU|"
          | \[\d{1,4}[-:/]                      # [2026-… or [12:…
          | (?:at|from)\ \S+\ ?\(                  # a stack frame
          | (?:Traceback|File\ "|goroutine\ \d|panic:|thread\ '|Caused\ by:|Exception\ in|\s*\^)
          | (?:diff\ --git|index\ [0-9a-f]|@@\ |\+\+\+\ |---\ )
          | [+-](?:\ {2,}|\t)                  # a diff line of indented code
          | [+-]?\s*(?://|/\*)                 # a comment of code, or its diff line
          | (?:ERROR|WARN|WARNING|INFO|DEBUG|TRACE|FATAL)\b
          | (?:error|warning)(?:\[\w+\])?:
          | (?:[^\w\s]{1,4}\s*)?(?:warn|warning|error|info|debug|notice|verbose)\s+(?:\p{Lu}|=)  # "🦋  warn You are …"
          | \d+→                                # a numbered file listing
          | [│├└┌┐┘┬┴┼─]
        )"#,
    )
    .expect("valid regex")
});

/// Is this line pasted output rather than something the user wrote?
pub fn is_pasted_line(line: &str) -> bool {
    // Indented or space-padded lines come from a terminal or another document.
    if line.starts_with("  ") || line.starts_with('\t') || line.ends_with("          ") {
        return true;
    }
    // Bold markup and headings are written by tools and agents, not typed in a prompt.
    if line.contains("**") || line.trim_start().starts_with('#') || line.trim_start().starts_with('|') {
        return true;
    }
    let t = line.trim();
    if t.is_empty() {
        return false;
    }
    if PASTED_LINE_RE.is_match(t) {
        return true;
    }
    // A terminal UI's frame: copied from the screen, border and all.
    if t.contains(['┃', '│', '╎', '║']) {
        return true;
    }
    // Code and data: many symbols per letter.
    let symbols = t
        .chars()
        .filter(|c| matches!(c, '{' | '}' | ';' | '=' | '<' | '>' | '(' | ')' | '[' | ']' | '|' | '\\' | '"'))
        .count();
    let letters = t.chars().filter(|c| c.is_alphabetic()).count();
    if symbols >= 3 && symbols * 4 > letters.max(1) {
        return true;
    }
    // A line with no space and no CJK is a token, a path or a value, not a sentence.
    let cjk = t.chars().any(crate::text::is_cjk);
    !cjk && !t.contains(' ') && t.len() > 20
}

/// The user's prose in a turn's text: injected blocks, fences, markers and pasted lines
/// removed. Returns the kept text (one line per kept line) and the number of lines dropped.
pub fn prose_of(raw: &str) -> (String, usize) {
    let raw = super::declared::without_invisible(raw);
    let text = crate::gather::FENCE_RE.replace_all(&raw, "\n");
    let text = without_tag_blocks(&text);
    let text = MARKER_RE.replace_all(&text, " ");
    // "There is a warning: *UserWarning: The `x` argument is deprecated.* coming from …": a
    // program's message quoted inside the line is output, to the end of the line.
    let text = QUOTED_DIAGNOSTIC_RE.replace_all(&text, "");
    // "… nothing in the logs ❯ Commit the changes": a terminal pasted onto the end of a line.
    let text = PROMPT_INSIDE_RE.replace_all(&text, "");
    let mut kept = String::with_capacity(text.len());
    let mut dropped = 0;
    // A line ending in a colon followed by a short list reads as one sentence:
    // "The rules are: pragmatic solution; no breaking changes."
    let mut list_open = false;
    // The list opened on "I'd prefer that" (no colon), and the items joined to it so far.
    let mut list_prefers = false;
    let mut list_items = 0;
    // Set once a line announces that what follows is pasted ("We got a complaint:", "See
    // below mistake.", "Can you check this?:").
    let mut pasted_from_here = false;
    // Set after "Which approach do you think is better?": the items that follow are the ways
    // the user weighs, not ways decided.
    let mut weighing = false;
    for line in text.lines() {
        let t = line.trim();
        if pasted_from_here {
            if !t.is_empty() {
                dropped += 1;
            }
            continue;
        }
        let item = crate::text::LIST_ITEM.find(t).map(|m| t[m.end()..].trim());
        if weighing && item.is_some() {
            continue;
        }
        if !t.is_empty() {
            weighing = item.is_none() && WEIGHS_WAYS_RE.is_match(t);
        }
        // The items of "I'd prefer that" are the preference, however long each is.
        let longest = if list_prefers { 30 } else { 14 };
        if list_open
            && let Some(item) = item.filter(|i| !i.is_empty() && i.split_whitespace().count() <= longest)
            && !is_pasted_line(item)
        {
            kept.push_str(if list_items == 0 { " " } else { "; " });
            kept.push_str(item.trim_end_matches(['.', ';', ',']));
            list_items += 1;
            continue;
        }
        if list_open {
            kept.push_str(if kept.ends_with(':') { "\n" } else { ".\n" });
            list_open = false;
        }
        if is_pasted_line(line) {
            dropped += 1;
            continue;
        }
        if t.is_empty() {
            continue;
        }
        // A list item is read as the sentence it holds: "- what was the trigger" is a question.
        let t = item.filter(|i| !i.is_empty()).unwrap_or(t);
        kept.push_str(t);
        let opens_the_turn = kept.len() == t.len();
        if ANNOUNCES_PASTE_RE.is_match(t)
            || (opens_the_turn && WORKS_ON_WHAT_FOLLOWS_RE.is_match(t) && !NAMES_OWN_RULES_RE.is_match(t))
        {
            pasted_from_here = true;
            kept.push('\n');
            continue;
        }
        // A question or an order before the list ("Can you look at this idea:") does not
        // swallow it: the items are statements of their own.
        let last_sentence = crate::text::split_sentences(t).last().copied().unwrap_or(t);
        // A list the user declares standing ("My engineering preferences:") is read item by
        // item: each is a statement of its own (see `declared`).
        if (t.ends_with(':') || PREFERS_THAT_RE.is_match(t))
            && item.is_none()
            && !ASKS_RE.is_match(last_sentence)
            && !super::declared::is_lead(t)
        {
            list_open = true;
            list_prefers = !t.ends_with(':');
            list_items = 0;
        } else {
            kept.push('\n');
        }
    }
    if list_open {
        kept.push_str(if kept.ends_with(':') { "\n" } else { ".\n" });
    }
    (without_rejected_quotes(&kept), dropped)
}

/// Drops the line before a line that rejects it: text the user quoted to say it is wrong is
/// not the user's statement.
fn without_rejected_quotes(prose: &str) -> String {
    let lines: Vec<&str> = prose.lines().collect();
    let mut out = String::with_capacity(prose.len());
    for (i, line) in lines.iter().enumerate() {
        if lines.get(i + 1).is_some_and(|next| REJECTS_RE.is_match(next)) {
            continue;
        }
        out.push_str(line);
        out.push('\n');
    }
    out
}

fn local_date(at: Timestamp, tz: &TimeZone) -> Date {
    at.to_zoned(tz.clone()).date()
}

/// The user's words: user text turns and slash-command arguments of every session, and
/// the daily-log entries, split into sentences, oldest first.
pub fn hear(sessions: &[ParsedSession], log_entries: &[LogEntry], now: Timestamp, tz: &TimeZone) -> Heard {
    let mut heard = Heard::default();
    // A resumed or forked session starts with a copy of the history it continues: the same
    // turn, at the same instant, in another file. It was said once, and counts once.
    let mut seen: HashSet<(Timestamp, u64)> = HashSet::new();
    for session in sessions {
        let mut any = false;
        // The agent's last words before the user's turn: the options a pick answers.
        let mut agent_said: Option<&str> = None;
        // The user's last turn asked the agent to remember something.
        let mut asked_to_remember = false;
        // "MSI X" is MSIX wherever the session writes it so.
        let spelling = super::spelling::SessionSpelling::new(&session.turns);
        for turn in &session.turns {
            if turn.role == Role::Assistant
                && turn.kind == TurnKind::Conversation
                && !turn.text.trim().is_empty()
            {
                agent_said = Some(&turn.text);
            }
            // What the agent wrote into its memory folder because the user asked it to.
            if asked_to_remember
                && turn.role == Role::Assistant
                && turn.kind == TurnKind::ToolNoise
                && let Some(lines) = super::remembered::memory_write(&turn.text)
                && turn.time.is_none_or(|at| seen.insert((at, text_hash(&turn.text))))
            {
                let at = turn.time.unwrap_or(now);
                let source = SaidIn::Session { id: session.file.id.clone(), line: turn.line };
                for (index, text) in lines.into_iter().enumerate() {
                    heard.sentences.push(Said::deliberate(
                        text,
                        at,
                        local_date(at, tz),
                        source.clone(),
                        index,
                        true,
                    ));
                }
            }
            if turn.role != Role::User {
                continue;
            }
            if turn.kind != TurnKind::ToolNoise {
                asked_to_remember = super::remembered::asks_to_remember(&turn.text);
            }
            let offered = if turn.kind == TurnKind::Conversation { agent_said.take() } else { None };
            if let Some(at) = turn.time
                && !seen.insert((at, text_hash(&turn.text)))
            {
                heard.copied_turns += 1;
                continue;
            }
            let raw: String = match turn.kind {
                TurnKind::Conversation => {
                    if INJECTED_TURN_RE.is_match(&turn.text) && !turn.text.contains("<command-args>") {
                        // A plan the user approved is the agent's text, but the design its
                        // goal states and the check commands it names are the project's now:
                        // as deliberate as a note.
                        if super::plans::is_handoff(&turn.text) {
                            let at = turn.time.unwrap_or(now);
                            let source = SaidIn::Session { id: session.file.id.clone(), line: turn.line };
                            let approved =
                                [super::plans::goal(&turn.text), super::plans::verification(&turn.text)];
                            for (index, statement) in approved.into_iter().flatten().enumerate() {
                                heard.sentences.push(Said::deliberate(
                                    statement,
                                    at,
                                    local_date(at, tz),
                                    source.clone(),
                                    index,
                                    false,
                                ));
                            }
                        }
                        continue;
                    }
                    turn.text.clone()
                }
                // The one part of a slash command the user typed.
                TurnKind::Meta => match COMMAND_ARGS_RE.captures(&turn.text) {
                    Some(c) => c[1].to_string(),
                    None => continue,
                },
                TurnKind::ToolNoise => continue,
            };
            let raw = COMMAND_ARGS_RE.replace_all(&raw, "$1");
            // What follows an injected block left open is the client's, not the user's.
            let raw = match pasted::injected_block(&raw) {
                Some(cut) => &raw[..cut],
                None => &raw[..],
            };
            any = true;
            heard.user_turns += 1;
            let at = turn.time.unwrap_or(now);
            let (prose, dropped) = prose_of(raw);
            let prose = spelling.respell(&prose);
            heard.pasted_lines += dropped;
            // What the user sent, without the client's blocks: read for its form, the answers
            // it gives and the lists it declares.
            let typed = user_part(raw);
            let form = pasted::measure(&typed, &prose, dropped);
            let source = SaidIn::Session { id: session.file.id.clone(), line: turn.line };
            let date = local_date(at, tz);
            // "I like Option C": the pick, with the option's words, is a decision of the
            // user's, as deliberate as a note.
            let decided = offered.and_then(|agent| super::choices::decision(agent, prose.trim()));
            // "1. no, 2. left most, …": replies to the agent's numbered questions are written
            // with their questions, and leave the user's prose.
            // "keep it simple" after "… keep it simple, or aim for a WCAG level?": the reply
            // to an either-or question, likewise.
            let answered = match (offered, &decided) {
                (Some(agent), None) => {
                    let numbered = super::choices::answers(agent, typed.trim());
                    if numbered.is_empty() {
                        super::asked::either_answer(agent, typed.trim()).into_iter().collect()
                    } else {
                        numbered
                    }
                }
                _ => Vec::new(),
            };
            let mut rest = prose.clone();
            for a in &answered {
                rest = rest.replacen(&a.reply, " ", 1);
            }
            // The terms the user spelled out for the pick are in its decision line.
            if decided.is_some() {
                let said_with_it = super::choices::refinement(prose.trim());
                for term in super::choices::spelled_out(prose.trim())
                    .unwrap_or_default()
                    .into_iter()
                    .chain(said_with_it)
                {
                    rest = rest.replacen(&term, " ", 1);
                }
            }
            let confirmed = decided.is_some();
            let first = heard.sentences.len();
            push_sentences(&mut heard.sentences, &rest, at, date, source.clone(), false, form);
            let declared = super::declared::items(&typed);
            for s in &mut heard.sentences[first..] {
                s.confirmed = confirmed;
                // An item of a list the user declares standing: its turn's form is not weighed.
                if !declared.is_empty() && super::declared::is_item(&s.text, &declared) {
                    s.form = TurnForm::default();
                    s.confirmed = true;
                }
            }
            let made = decided.into_iter().chain(answered.into_iter().map(|a| a.line));
            for text in made {
                let index = heard.sentences.len() - first;
                let source = source.clone();
                heard.sentences.push(Said {
                    text,
                    at,
                    date,
                    source,
                    index,
                    note: true,
                    form,
                    confirmed: true,
                });
            }
        }
        if any {
            heard.sessions += 1;
        }
    }
    for entry in log_entries {
        heard.log_entries += 1;
        let (prose, dropped) = prose_of(&entry.text);
        heard.pasted_lines += dropped;
        let source = SaidIn::Log { file: entry.file.clone(), line: entry.line };
        push_sentences(&mut heard.sentences, &prose, entry.at, entry.date, source, true, TurnForm::default());
    }
    // Oldest first; a turn's sentences stay together and in order.
    heard.sentences.sort_by(|a, b| {
        a.at.cmp(&b.at).then_with(|| a.source.cmp(&b.source)).then_with(|| a.index.cmp(&b.index))
    });
    heard
}

/// The turn without the blocks the client wraps around injected text: what the user sent.
fn user_part(raw: &str) -> std::borrow::Cow<'_, str> {
    let text = without_tag_blocks(raw);
    match MARKER_RE.replace_all(&text, " ") {
        std::borrow::Cow::Borrowed(_) => text,
        std::borrow::Cow::Owned(s) => std::borrow::Cow::Owned(s),
    }
}

fn push_sentences(
    out: &mut Vec<Said>,
    prose: &str,
    at: Timestamp,
    date: Date,
    source: SaidIn,
    note: bool,
    form: TurnForm,
) {
    for (index, text) in segment::sentences(prose).into_iter().enumerate() {
        out.push(Said { text, at, date, source: source.clone(), index, note, form, confirmed: false });
    }
}

#[cfg(test)]
mod tests;
