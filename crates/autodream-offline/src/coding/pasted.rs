//! What the user typed vs what the user pasted: the form of a whole user turn.
//!
//! Line by line, [`super::said::prose_of`] drops what is plainly output (prompts, stack
//! frames, diff lines, code). What it cannot see line by line is a pasted *document*: a review
//! comment, an issue or advisory, the agent's own text quoted back. Those read as prose, one
//! line at a time; as a turn they have a form of their own: long, in several paragraphs, with
//! headings, bullets or bold markup, formal advice in the third person ("Consider extracting
//! …", "This means …"), references to lines and files, many identifiers, and often no start
//! (a turn that begins mid-thought, cut out of something longer). A typed instruction is short,
//! in the first or second person, and starts at its beginning.
//!
//! [`TurnForm`] measures that form; the confidence model ([`super::confidence`]) weighs it with
//! the sentence's own evidence. Nothing here looks for a particular tool's or project's words.
//! What the client and its front-ends inject ([`injected_block`]) is removed before any of it.

use std::sync::LazyLock;

use regex::Regex;

use super::orders::{STANDING_IMPERATIVE, is_imperative};

/// The form of one user turn, as numbers the confidence model reads.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct TurnForm {
    /// Characters of the turn as the user sent it (wrappers removed).
    pub chars: usize,
    /// Non-empty lines.
    pub lines: usize,
    /// Blocks separated by blank lines.
    pub paragraphs: usize,
    /// Lines dropped line by line as pasted output.
    pub pasted_lines: usize,
    /// Lines that are headings, bullets, tables, bold or link markup.
    pub markup_lines: usize,
    /// References to a line or a file position ("line 485", "main.go:12", "L40-L52").
    pub line_refs: usize,
    /// Sentences of formal advice or explanation in the third person.
    pub advice: usize,
    /// Sentences in the turn's prose.
    pub sentences: usize,
    /// Sentences that ask.
    pub questions: usize,
    /// Sentences with a person in them (I, we, you): typed to the agent, not about the code.
    pub personal: usize,
    /// Word tokens, and those of them that are identifiers (camelCase, snake_case, calls,
    /// paths, code spans).
    pub tokens: usize,
    pub identifiers: usize,
    /// Sentences that explain the code's behaviour or advise about it as a review does
    /// ("This causes …", "Consider …", "However, …").
    pub explanations: usize,
    /// Sentences of a review's advice ("Consider adding unit tests …").
    pub review_advice: usize,
    /// Sentences that open with an order, to the agent.
    pub orders: usize,
    /// Sentences that ask the agent for work on the task at hand ("Implement an indication …",
    /// "Can you check the VPS?", "I want you to rework the commits"), standing orders ("Use
    /// pnpm") and a review's advice ("Consider …") left out.
    pub requests: usize,
    /// Sentences that hold at least one identifier.
    pub ident_sentences: usize,
    /// The turn starts mid-thought: lower case, a conjunction, or punctuation first.
    pub starts_mid: bool,
    /// The turn attaches files to the prompt ("check @src/main.rs"): it is about that code.
    pub attaches_files: bool,
    /// Terminal escape sequences or other control characters.
    pub control: bool,
}

impl TurnForm {
    /// The turn is long enough that a single typed instruction is unlikely.
    pub fn is_long(&self) -> bool {
        self.chars > 600 || self.paragraphs >= 3
    }

    /// The turn asks the agent for work, or asks a question: its statements are mostly the
    /// task's context (what is wrong, what it should look like), not standing facts.
    pub fn is_task(&self) -> bool {
        self.requests > 0 || self.questions > 0
    }

    /// The turn asks for work on code it attaches ("Enforce the capacity limits. Use binary
    /// search insertion for book levels. Check @src/tui/app.rs"): a way of working said in it
    /// ("Use …") is how that work is to be done, unless a word makes it hold beyond it.
    pub fn is_work_on_attached_code(&self) -> bool {
        self.attaches_files && self.requests > 0
    }

    /// The whole turn is a pasted document about the code (a review comment, a bug report,
    /// an analysis the agent wrote, quoted back): several sentences, not one of which has a
    /// person in it or gives an order, that name identifiers and explain, or that advise as a
    /// review does ("… but it lacks unit tests. Consider adding unit tests …")
    /// ("When a file has staged changes, calculateAtStart reads from the index … This causes
    /// user edits to be undercounted."). People type project facts impersonally too, many
    /// identifiers and all ("ViewModel tests are plain unit tests in src/test, using Turbine
    /// …"), but as statements, not as an explanation that argues.
    pub fn is_document(&self) -> bool {
        self.sentences >= 2
            && self.personal == 0
            && self.orders == 0
            && (self.explanations >= 1 && self.ident_sentences >= 1 || self.review_advice >= 1)
    }
}

/// A sentence about a code symbol, the way a review or an explanation is written: its subject
/// is an identifier ("parseConfig() returns …", "The `retry_loop` helper is …").
pub(crate) static IDENT_SUBJECT: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r"^(?:(?i:the|this|that|a|an|additionally|similarly|also|however),?\s+(?:\p{Ll}+\s+)?)?(?:`[^`]+`|\w*[a-z][A-Z]\w*(?:\(\))?|\w+_\w+(?:\(\))?|\w+\(\)|\w+\.\w+\(?\)?)(?:\s+(?:function|method|field|variable|test|helper|struct|class|type|call|comment|constant|parameter|argument|property|attribute|flag|option|value|member|interface|enum|package|module))?(?:\s+\w+ly)?\s+(?:is|are|was|has|does|doesn'?t|returns|uses|calls|checks|reads|writes|creates|only|never|always|can|could|will|would|should|may|might|must|gets|sets|takes|ignores|relies|runs|tracks|contains|lacks|skips|handles|applies|treats|appends|stores|loads|writes|emits|includes|retains|returns|resets|passes|prints)\b",
    )
    .expect("valid regex")
});
/// A review's remark about a piece of code named by what it is: "The inline comment for
/// AgentLines is misleading", "The function should use the existing GetGitDir() helper",
/// "The existing test TestX is close but …". (Generic "the code" is left out: "the code
/// should be formatted with gofmt" is a rule.)
static CODE_ARTIFACT_SUBJECT: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r"^(?i:the|this|that)\s+(?:[\w.-]+\s+){0,2}(?i:function|method|comment|docstring|test|handler|helper|variable|field|struct|call|loop|condition|flag|parameter|argument|prefix|log message|error message)(?:\s+`?[\w.()/-]*[A-Z_.(][\w.()/-]*`?)?(?:\s+(?:on|for|in|of|at)\s+(?:lines?\s+)?\S+)?\s+(?:is|are|was|has|does|doesn'?t|isn'?t|should|claims|says|uses|returns|calls|only|never|can|could|will|would|seems|looks|appears|lacks|needs|still|now)\b",
    )
    .expect("valid regex")
});
/// A review's explanation placed in a symbol: "In CalculateAttributionWithAccumulated, the
/// post-checkpoint edits are only calculated for …".
static IN_SYMBOL: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r"^(?i:in|inside|within)\s+(?:the\s+)?(?:`[^`]+`|\w*[a-z][A-Z]\w*(?:\(\))?|\w+_\w+(?:\(\))?|\w+\(\))(?:\s+(?i:function|method|helper|struct|class|type))?,\s+",
    )
    .expect("valid regex")
});
/// Advice as a review tool or a colleague's comment words it ("Consider extracting …").
static REVIEW_ADVICE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r"^(?i:consider|it is (?:recommended|suggested|advisable)|it would be (?:better|cleaner|safer) to)\b",
    )
    .expect("valid regex")
});
/// A compiler's or a tool's diagnostic: "Cannot use err (variable of interface type error) as
/// string value in argument to fmt.Fprintf", "undefined: parseArgs", "expected `;`, found `}`".
static DIAGNOSTIC: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r"^(?:[\w ]{1,20}:\s*)?(?i:cannot|can't|could not|couldn't|unable to|undefined|unresolved|unexpected|mismatched|no such|no method|no field|not found|invalid|expected|error|warning)\b[^.]*(?:\(|`|\w\.\w|::|:\s*\w)",
    )
    .expect("valid regex")
});
/// A person in a sentence: the user, the team, the agent.
static PERSON: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)\b(?:i|i'm|i've|i'd|me|my|we|we're|our|us|you|your|let'?s)\b|我|你")
        .expect("valid regex")
});

/// A file attached to the prompt: "@src/tui/app.rs", "@docs/PLAN.md".
static ATTACHED_FILE: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"(?:^|\s)@[\w.-]*[/.][\w./-]*\w").expect("valid regex"));
/// A line or file position.
static LINE_REF: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)\b(?:lines?|ln\.?)\s+\d+|\bL\d+(?:-L?\d+)?\b|\w\.[a-z]{1,5}:\d+|#L\d+")
        .expect("valid regex")
});
/// The explanation of a review or an analysis: advice, a consequence, a turn of the argument
/// ("Consider …", "This causes …", "However, …").
const EXPLAINS: &str = r"consider|it is (?:recommended|suggested|advisable|worth)|it would be (?:better|cleaner|safer)|this (?:means|results|causes|leads|allows|ensures|makes|could|can|may|might|will|would|appears|seems)|these \w+ (?:are|could|can|may|should)|(?:additionally|furthermore|moreover|however|therefore|alternatively|similarly|otherwise),";
/// An explanation may open with the case it explains: "Since .env files are commonly used by
/// other tools, this can cause all hooks to fail."
static EXPLANATION: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(&format!(
        "(?i)^(?:(?:since|because|as|when|once) (?:[^,(]|\\([^)]*\\)){{3,200}},\\s*)?(?:{EXPLAINS})"
    ))
    .expect("valid regex")
});
/// Formal advice or explanation, written about the code rather than to the agent: the
/// explanations above, and statements about "the X" or "a X" in the third person.
static ADVICE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(&format!(
        r"(?i)^(?:{EXPLAINS}|the (?:\w+ ){{1,3}}(?:is|are|was|were|does|did|has|returns|calls|uses|contains|should|could|can|may|will) |an? (?:\w+ ){{1,3}}(?:is|are|can|could|may|should) )"
    ))
    .expect("valid regex")
});
/// Markup a prompt box does not invite: headings, bullets, tables, bold, links.
static MARKUP: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^\s*(?:#{1,6}\s|[-*•]\s|\d{1,2}[.)]\s|\|)|\*\*|\]\(|^\s*>").expect("valid regex")
});
/// A start that continues something not shown.
static MID_START: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^(?:[a-z]|(?:and|but|or|so|which|because|then|also|that)\b|[,;:)\]}.…])")
        .expect("valid regex")
});
/// A sentence that asks.
static ASKS: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r"(?i)\?\s*$|^(?:can|could|would|will|should|is|are|do|does|did|what|why|how|where|when|which|who)\b",
    )
    .expect("valid regex")
});
/// A symbol of the code written bare, as a review or the agent writes about code: a member of
/// a value ("state.PromptAttributions", "cfg.Raw") or a call weighs two; camelCase and
/// snake_case weigh one, since people type the names of libraries and tables that way too
/// ("StateFlow", "order_db"). What the user put in a code span is not counted: typing one is a
/// deliberate act.
static MEMBER_OR_CALL: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"[a-z]\.[A-Z]|\w\(").expect("valid regex"));
static CASED_NAME: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"[a-z][A-Z]|[A-Z]{3,}[a-z]{2}|[a-z0-9]_[a-z0-9]").expect("valid regex"));
static CODE_SPAN: LazyLock<Regex> = LazyLock::new(|| Regex::new(r"`[^`]*`").expect("valid regex"));

/// "After condensation in PostCommit, state.PromptAttributions … are not cleared": a sentence
/// where no person speaks, that gives no order and states no rule, and that is made of bare
/// code symbols (weight four or more) is a description of the code as a review or the agent's
/// analysis words it, wherever in the sentence the symbols stand.
fn describes_code(sentence: &str, personal: bool) -> bool {
    // A rule is the user's, however many symbols it names ("… always timezone.now(), never
    // datetime.now() …").
    if personal
        || is_imperative(sentence)
        || STANDING_IMPERATIVE.is_match(sentence)
        || super::kinds::is_rule(sentence)
    {
        return false;
    }
    let bare = CODE_SPAN.replace_all(sentence, " ");
    let weight: usize = bare
        .split_whitespace()
        .map(|t| if MEMBER_OR_CALL.is_match(t) { 2 } else { usize::from(CASED_NAME.is_match(t)) })
        .sum();
    weight >= 3
}

/// An identifier: camelCase, snake_case, a call, a path, a code span.
static IDENT: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"^`|[a-z][A-Z]|\w_\w|\w\(|\(\)|\w[./:]\w|^--?\w|::").expect("valid regex"));
/// A block the client or a front-end wraps around injected text, even left unclosed.
static INJECTED_OPEN: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r#"(?s)<(task-notification|system-reminder|system_instruction|system-instruction|local-command-stdout|local-command-caveat|bash-stdout|bash-stderr|bash-input|user-prompt-submit-hook|teammate-message|ide_opened_file|ide_selection)(?:\s+[a-z_:-]+="[^"]*")*\s*>.*"#,
    )
    .expect("valid regex")
});

/// `raw` with an injected block that is never closed cut off where it opens: everything after
/// `<task-notification>` or `<system_instruction>` is the client's, not the user's.
pub fn injected_block(raw: &str) -> Option<usize> {
    INJECTED_OPEN.captures(raw).and_then(|c| {
        let tag = c.get(1).expect("group").as_str();
        (!raw.contains(&format!("</{tag}>"))).then(|| c.get(0).expect("match").start())
    })
}

/// Measures a turn: `raw` is the turn as the user sent it (wrappers removed), `prose` what
/// [`super::said::prose_of`] kept of it, `pasted_lines` how many lines it dropped.
pub fn measure(raw: &str, prose: &str, pasted_lines: usize) -> TurnForm {
    let mut form = TurnForm { chars: raw.chars().count(), pasted_lines, ..TurnForm::default() };
    let mut blank = true;
    for line in raw.lines() {
        if line.trim().is_empty() {
            blank = true;
            continue;
        }
        if blank {
            form.paragraphs += 1;
            blank = false;
        }
        form.lines += 1;
        if MARKUP.is_match(line) {
            form.markup_lines += 1;
        }
    }
    form.line_refs = LINE_REF.find_iter(raw).count();
    form.control = raw.chars().any(|c| c.is_control() && !matches!(c, '\n' | '\t' | '\r'));
    form.starts_mid = MID_START.is_match(raw.trim_start());
    form.attaches_files = ATTACHED_FILE.is_match(raw);
    for sentence in crate::text::split_sentences(prose) {
        form.sentences += 1;
        if ADVICE.is_match(sentence) {
            form.advice += 1;
        }
        if EXPLANATION.is_match(sentence) {
            form.explanations += 1;
        }
        if REVIEW_ADVICE.is_match(sentence) {
            form.review_advice += 1;
        }
        // "Consider copying …" is a review's advice, not an order to the agent.
        if (is_imperative(sentence) || STANDING_IMPERATIVE.is_match(sentence))
            && !REVIEW_ADVICE.is_match(sentence)
        {
            form.orders += 1;
        }
        if sentence.split_whitespace().any(|token| IDENT.is_match(token)) {
            form.ident_sentences += 1;
        }
        if ASKS.is_match(sentence) {
            form.questions += 1;
        }
        if super::orders::asks_for_work(sentence) && !REVIEW_ADVICE.is_match(sentence) {
            form.requests += 1;
        }
        if PERSON.is_match(sentence) {
            form.personal += 1;
        }
    }
    for token in prose.split_whitespace() {
        form.tokens += 1;
        if IDENT.is_match(token) {
            form.identifiers += 1;
        }
    }
    form
}

/// Does a person speak in the sentence (I, we, you, let's)?
pub fn has_a_person(sentence: &str) -> bool {
    PERSON.is_match(sentence)
}

/// Is the sentence about a code symbol ("parseConfig() returns early …")?
pub fn about_a_symbol(sentence: &str) -> bool {
    IDENT_SUBJECT.is_match(sentence)
}

/// Does the sentence read as pasted review or explanation text rather than the user's own
/// words? Its subject is a code symbol and no person speaks in it, or it cites a line position
/// beside identifiers. Hand-weighted evidence: a typed instruction names a person or gives an
/// order; reviews and explanations are written about the code. (A turn of impersonal statements
/// is not enough: that is how people state project facts too.)
pub fn reads_as_pasted(sentence: &str, form: &TurnForm) -> bool {
    let personal = PERSON.is_match(sentence);
    ((IDENT_SUBJECT.is_match(sentence)
        || CODE_ARTIFACT_SUBJECT.is_match(sentence)
        || IN_SYMBOL.is_match(sentence)
        || REVIEW_ADVICE.is_match(sentence)
        || DIAGNOSTIC.is_match(sentence))
        && !personal)
        || describes_code(sentence, personal)
        || (LINE_REF.is_match(sentence) && identifier_share(sentence) > 0.0 && form.line_refs > 0)
}

/// Does the text cite a line or a file position ("line 485", "main.go:12", "L40-L52")?
pub fn cites_a_line(text: &str) -> bool {
    LINE_REF.is_match(text)
}

/// Is this sentence formal advice or explanation in the third person?
pub fn is_advice(sentence: &str) -> bool {
    ADVICE.is_match(sentence)
}

/// The share of a text's tokens that are identifiers.
pub fn identifier_share(text: &str) -> f32 {
    let (mut n, mut ids) = (0usize, 0usize);
    for token in text.split_whitespace() {
        n += 1;
        if IDENT.is_match(token) {
            ids += 1;
        }
    }
    if n == 0 { 0.0 } else { ids as f32 / n as f32 }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn remarks_about_a_named_piece_of_code_read_as_review() {
        let typed = TurnForm::default();
        for remark in [
            "The inline comment for AgentLines is misleading.",
            "The function should use the existing GetGitDir() helper instead of duplicating the logic.",
            "The existing test TestSessionIDConflict_OrphanedBranchIsReset is close but doesn't test the exact scenario.",
            "The comment on lines 212-213 is outdated.",
            "The testenv.go comment claims the env var bypasses agent installation checks.",
            "LoadEntireSettings applies a default when strategy is empty.",
            "After condensation in PostCommit, state.PromptAttributions and state.PendingPromptAttribution are not cleared.",
            "Including APIKey in EventPayload means spawnDetachedAnalytics() passes the key as an argument.",
            "Cfg.Raw.Section(\"commit\").SetOption(\"gpgsign\", \"false\") assumes cfg.Raw is non-nil.",
        ] {
            assert!(reads_as_pasted(remark, &typed), "{remark}");
        }
        for rule in [
            "The code should be formatted with gofmt before every commit.",
            "The test suite runs on every PR.",
            "The release branch is cut on Mondays.",
            "We keep `checkpoint_count` readable but always write `steps_count`.",
            "Keep backwards compatibility to read checkpoint_count but always write steps_count.",
            "The session state lives in `.git/entire-sessions/` as JSON.",
            "And make that a rule: always django.utils.timezone.now(), never datetime.now() anywhere.",
            "ViewModel tests are plain unit tests in src/test, using Turbine and a MainDispatcherRule.",
            "All new code uses StateFlow + collectAsStateWithLifecycle.",
        ] {
            assert!(!reads_as_pasted(rule, &typed), "{rule}");
        }
    }

    fn form(raw: &str) -> TurnForm {
        let (prose, dropped) = super::super::said::prose_of(raw);
        measure(raw, &prose, dropped)
    }

    #[test]
    fn a_pasted_review_has_the_form_of_a_document() {
        let review = "## Suggestion\n\nConsider moving the retry loop into a helper. The `fetchAll()` function \
                      at line 212 duplicates the logic in `sync.rs:88`.\n\nThis means a fix in one place is \
                      easily missed in the other.\n\n**Severity:** minor";
        let f = form(review);
        assert!(f.is_long(), "{f:?}");
        assert!(f.paragraphs >= 4);
        assert!(f.markup_lines >= 2);
        assert!(f.line_refs >= 2);
        assert!(f.advice >= 2, "{f:?}");
        assert!(f.identifiers >= 2);
    }

    #[test]
    fn a_typed_instruction_is_short_and_plain() {
        let f = form("From now on run the linter before every commit, we keep main green.");
        assert!(!f.is_long());
        assert_eq!((f.paragraphs, f.markup_lines, f.line_refs, f.advice), (1, 0, 0, 0));
        assert!(!f.starts_mid);
        assert!(form("and then the parser gives up on the second file").starts_mid);
    }

    #[test]
    fn a_sentence_about_a_code_symbol_reads_as_review_text() {
        for s in [
            "parseConfig() returns early when the file is empty.",
            "The `retry_loop` helper is never awaited.",
        ] {
            assert!(about_a_symbol(s), "{s}");
        }
        for s in ["We use pnpm for every package.", "Deploys go through the release branch."] {
            assert!(!about_a_symbol(s), "{s}");
        }
    }

    #[test]
    fn review_text_about_the_code_reads_as_pasted_and_a_typed_rule_does_not() {
        let review = "The `flushQueue()` helper is called twice on shutdown. This means the last batch \
                      is written again. close_writer() only checks the first handle.";
        let f = form(review);
        let sentences = crate::text::split_sentences(review);
        // About a symbol, no person in it: pasted. The explanation between is left to the
        // confidence model (its form: third-person advice in a turn of them).
        assert!(reads_as_pasted(sentences[0], &f) && reads_as_pasted(sentences[2], &f));
        assert!(!reads_as_pasted(sentences[1], &f) && is_advice(sentences[1]));
        let typed = "We keep `flushQueue()` idempotent, never call it from tests. I want that documented.";
        let f = form(typed);
        for s in crate::text::split_sentences(typed) {
            assert!(!reads_as_pasted(s, &f), "{s}");
        }
        let advice = "Consider moving the retry loop into a helper so both callers share it.";
        assert!(reads_as_pasted(advice, &form(advice)));
        let line = "Unused variable retryCount at line 88.";
        assert!(reads_as_pasted(line, &form(line)));
        for diagnostic in [
            "Cannot use err (variable of interface type error) as string value in argument to fmt.Fprintf",
            "undefined: parseArgs",
            "expected `;`, found `}`",
            "fix this: cannot use err (variable of interface type error) as string value in argument to fmt.Fprintf",
        ] {
            assert!(reads_as_pasted(diagnostic, &form(diagnostic)), "{diagnostic}");
        }
        for review in [
            "TrackCommandDetached unconditionally calls spawnDetachedAnalytics.",
            "The simpler CalculateAttribution function correctly uses the actual commit diff.",
            "In CalculateAttributionWithAccumulated, the post-checkpoint user edits are only calculated for files in filesTouched.",
        ] {
            assert!(reads_as_pasted(review, &form(review)), "{review}");
        }
        let typed = "In this repo, the CLI uses go-git for shadow branches.";
        assert!(!reads_as_pasted(typed, &form(typed)));
        let typed = "Expected behaviour is that we never retry a payment twice.";
        assert!(!reads_as_pasted(typed, &form(typed)));
    }

    #[test]
    fn a_turn_that_explains_the_code_with_no_person_in_it_is_a_pasted_document() {
        for pasted in [
            "When a file has staged changes, calculateAtStart reads from the git index, but \
             WriteTemporary captures from the worktree. If a user has both staged and unstaged \
             changes, the unstaged ones are not counted. This causes user contributions to be undercounted.",
            "AllProtectedDirs() holds registryMu.RLock() while invoking factory(). Calling external \
             code while holding the lock risks deadlocks. Consider copying the factories under the lock.",
            "The RunGitCommand function is defined in testenv.go but never called. However, \
             a grep for env.RunGitCommand returns no matches.",
            // The consequence after the case it follows from.
            "The wrapper script sources the .env file while set -u is active. Since .env files \
             are used by other tools (Docker Compose, Rails, etc.), this can cause all hooks to fail. The script only needs \
             ENTIRE_LOCAL_DEV.",
        ] {
            assert!(form(pasted).is_document(), "{pasted}");
        }
        for typed in [
            // A person speaks, or the turn gives an order: typed to the agent.
            "When a file has staged changes, calculateAtStart reads from the index. I think this \
             causes the undercount.",
            "The trailer is `Checkpoint:`. Use `git log --grep` to find it. This means no parsing.",
            // Impersonal facts one after another, with no identifier: how people state them.
            "Deploys go out on Tuesdays. The staging server is rebuilt every night.",
            "Since we moved to pnpm, this means one lockfile. The CI cache key is pnpm-lock.yaml.",
            // Facts typed tersely, identifiers and all: statements, no argument.
            "No. ViewModel tests are plain unit tests in src/test, using Turbine for flows and a \
             MainDispatcherRule. AndroidTest is only for Compose UI tests.",
            // One sentence is no document.
            "The validation package is now the single source of truth for `CheckpointID`.",
        ] {
            assert!(!form(typed).is_document(), "{typed}");
        }
    }

    #[test]
    fn an_unclosed_injected_block_is_cut_where_it_opens() {
        let raw = "Ship it on Friday.\n<task-notification>\n<task-id>7</task-id>\n<summary>done";
        assert_eq!(injected_block(raw), Some("Ship it on Friday.\n".len()));
        assert_eq!(injected_block("<system-reminder>x</system-reminder> fine"), None);
        assert!(form("colour \u{1b}[31mred\u{1b}[0m").control);
    }
}
