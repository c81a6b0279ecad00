//! Candidate scoring: how sure the engine is that a sentence the rules kept is worth loading.
//!
//! The rules of [`super::durable`] say what a sentence *could* be (a rule, a fact, a
//! decision); whether it is the user's standing word or a passing remark, a pasted review, a
//! guess, an order for the task at hand, depends on evidence around it. Each candidate gets a
//! confidence, the logistic of a weighted sum of general features of form and context:
//!
//! - the turn's form ([`super::pasted::TurnForm`]): length, paragraphs, markup, line and file
//!   references, third-person advice, identifier density, a start mid-thought;
//! - the sentence: its length, identifiers, scope words ("in this repo", "always", "we use"),
//!   hedges ("maybe", "I think"), pointers to the moment ("this", "here", "now", "the PR"),
//!   an order or a question, a correction, first or second person, its place in the turn, and
//!   the kind the rules gave it.
//!
//! The weights are learned on labelled real turns (`scripts/precision/train.py`, fitted and
//! reported leave-one-project-out) and shipped in `data/confidence.json`; the threshold in it
//! was chosen there for precision. Evidence that arrives later (the same statement in another
//! session) adds [`Model::repeat_bonus`] in log-odds per extra session.

use std::sync::LazyLock;

use regex::Regex;
use serde::Deserialize;

use super::kinds::Kind;
use super::pasted::{self, TurnForm};

/// The features, in the order the weights file lists them.
pub const FEATURES: &[&str] = &[
    "turn_long",
    "turn_chars_log",
    "turn_paragraphs",
    "turn_pasted_share",
    "turn_markup_share",
    "turn_line_refs",
    "turn_advice_share",
    "turn_question_share",
    "turn_ident_share",
    "turn_starts_mid",
    "turn_sentences_log",
    "words_log",
    "ident_share",
    "advice",
    "scope",
    "hedge",
    "moment",
    "order",
    "asks",
    "correction",
    "first_person_i",
    "first_person_we",
    "second_person",
    "first_in_turn",
    "code_or_path",
    "url",
    "starts_lower",
    "kind_preference",
    "kind_correction",
    "kind_decision",
    "kind_fact",
    "kind_reference",
    "kind_date",
    "kind_person_or_user",
    "kind_update",
    "symptom",
    "identifier_subject",
    "impersonal",
];

/// The shipped model: feature names, weights, bias and the threshold chosen for precision.
#[derive(Debug, Clone, Deserialize)]
pub struct Model {
    pub features: Vec<String>,
    pub weights: Vec<f32>,
    pub bias: f32,
    /// Candidates at or above it become lines in memory.
    pub threshold: f32,
    /// Log-odds added for each further session that says the same thing.
    pub repeat_bonus: f32,
}

/// The weights file, compiled in.
pub const MODEL_JSON: &str = include_str!("../../data/confidence.json");

/// Names a weights file to use instead of the compiled-in one (for evaluating a newly fitted
/// model without a rebuild; see `docs/precision.md`). One that does not load is ignored.
pub const MODEL_ENV: &str = "AUTODREAM_OFFLINE_CONFIDENCE";

/// The model, read once. A compiled-in weights file that does not fit [`FEATURES`] is a build
/// defect, caught by the tests.
pub static MODEL: LazyLock<Model> = LazyLock::new(|| {
    std::env::var_os(MODEL_ENV)
        .and_then(|p| std::fs::read_to_string(p).ok())
        .and_then(|json| load(&json).ok())
        .unwrap_or_else(|| load(MODEL_JSON).expect("data/confidence.json is valid"))
});

/// Reads a weights file, checking it names exactly [`FEATURES`].
pub fn load(json: &str) -> Result<Model, String> {
    let model: Model = serde_json::from_str(json).map_err(|e| format!("confidence.json: {e}"))?;
    if model.features.len() != FEATURES.len() || model.features.iter().zip(FEATURES).any(|(a, b)| a != b) {
        return Err(format!(
            "confidence.json: features {:?} do not match the engine's {:?}",
            model.features, FEATURES
        ));
    }
    if model.weights.len() != FEATURES.len() {
        return Err(format!(
            "confidence.json: {} weights for {} features",
            model.weights.len(),
            FEATURES.len()
        ));
    }
    if !(0.0..=1.0).contains(&model.threshold) {
        return Err(format!("confidence.json: threshold {} is not in 0..1", model.threshold));
    }
    Ok(model)
}

/// Generic scope: the statement is meant to hold beyond this task.
static SCOPE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r"(?i)\b(?:always|never|every ?time|whenever|from now on|going forward|by default|in (?:this|our|the) (?:repo|repository|codebase|project|team)|we (?:use|prefer|keep|want|don'?t|do not|never|always)|our \w+ (?:is|are|lives?|runs?)|convention|rule|policy|standard|all (?:of )?(?:our|the) )\b|一律|统一|以后|总是|从不",
    )
    .expect("valid regex")
});
/// A hedge: a guess, not a statement.
static HEDGE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r"(?i)\b(?:maybe|perhaps|probably|possibly|i t(?:h?ink|hnk|hik)|i guess|i believe|i feel|i suppose|not sure|seems?|might|could be|i'?m (?:not )?sure|kind of|sort of|hmm+|or so|looks like|ideally|if we)\b|也许|可能|好像",
    )
    .expect("valid regex")
});
/// Pointers to the state of the moment.
static MOMENT: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r"(?i)\b(?:this|that|these|those|here|now|currently|right now|at the moment|yet|still|anymore|the (?:pr|issue|test|error|bug|branch|commit|change|diff|file|output|screenshot|result)s?|above|below|just)\b|这个|现在",
    )
    .expect("valid regex")
});
/// An order or a request for the task at hand.
static ORDER: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r"(?i)^(?:please |pls |ok(?:ay)?,? |so,? |now,? |then,? |ah+,? |hm+,? )*(?:can (?:you|we)|could (?:you|we)|would you|should we|let'?s|go ahead|add|create|make|fix|update|remove|delete|implement|write|run|check|look|try|change|move|rename|build|commit|push|open|show|give|help|review|investigate|test|refactor|proceed|continue|start|set ?up|use the|do)\b",
    )
    .expect("valid regex")
});
/// A sentence that asks, directly or not.
static ASKS: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)\?|^(?:i wonder|wonder(?:ing)? if|not sure (?:if|whether)|any idea|do you know)\b")
        .expect("valid regex")
});
/// A correction of the agent.
static CORRECTION: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r"(?i)^(?:no[,.!]|nope|actually|wrong|that'?s (?:not|wrong|incorrect)|this is not|not (?:quite|true|correct|right))|\b(?:instead of|rather than|not \w+ but)\b|不对|不是",
    )
    .expect("valid regex")
});
/// A report of what is seen going wrong: the trouble of the moment, not a standing fact.
static SYMPTOM: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r"(?i)\b(?:(?:does|do|is|are|was|were|did|can|could|would|will)n'?t (?:work|show|see|render|load|run|change|appear|seem|build|start|stop|match)|(?:doesn'?t|don'?t) (?:really )?(?:feel|look)|i (?:can'?t|don'?t) see|no longer works|broken|weird|fails?|failing|crash(?:es|ing)?|error(?:s)? (?:out|pops?)|i'?d expect|i still (?:see|feel|get))\b",
    )
    .expect("valid regex")
});
static FIRST_I: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"(?i)\b(?:i|i'm|i've|i'd|i'll|me|my)\b|我").expect("valid regex"));
static FIRST_WE: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"(?i)\b(?:we|we're|we've|we'll|our|us)\b|我们").expect("valid regex"));
static SECOND: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"(?i)\b(?:you|your|you're|you've)\b|你").expect("valid regex"));
static CODE: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"`[^`]+`|\w/\w|\.\w{1,5}\b|--\w").expect("valid regex"));
static URL: LazyLock<Regex> = LazyLock::new(|| Regex::new(r"https?://").expect("valid regex"));

/// One candidate's evidence: the sentence, its place in its turn, the turn's form, and the
/// kind the rules gave it.
#[derive(Debug, Clone, Copy)]
pub struct Evidence<'a> {
    pub sentence: &'a str,
    pub index: usize,
    pub form: &'a TurnForm,
    pub kind: Kind,
}

fn flag(b: bool) -> f32 {
    if b { 1.0 } else { 0.0 }
}

fn share(part: usize, whole: usize) -> f32 {
    if whole == 0 { 0.0 } else { part as f32 / whole as f32 }
}

/// The feature vector of a candidate, in [`FEATURES`] order.
pub fn features(e: &Evidence<'_>) -> Vec<f32> {
    let f = e.form;
    let s = e.sentence;
    let words = s.split_whitespace().count();
    vec![
        flag(f.is_long()),
        (1.0 + f.chars as f32).ln() / 7.0,
        (f.paragraphs.min(8) as f32) / 8.0,
        share(f.pasted_lines, f.lines + f.pasted_lines),
        share(f.markup_lines, f.lines),
        (f.line_refs.min(4) as f32) / 4.0,
        share(f.advice, f.sentences),
        share(f.questions, f.sentences),
        share(f.identifiers, f.tokens),
        flag(f.starts_mid),
        (1.0 + f.sentences as f32).ln() / 3.0,
        (1.0 + words as f32).ln() / 4.0,
        pasted::identifier_share(s),
        flag(pasted::is_advice(s)),
        flag(SCOPE.is_match(s)),
        flag(HEDGE.is_match(s)),
        (MOMENT.find_iter(s).count().min(3) as f32) / 3.0,
        flag(ORDER.is_match(s)),
        flag(ASKS.is_match(s)),
        flag(CORRECTION.is_match(s)),
        flag(FIRST_I.is_match(s)),
        flag(FIRST_WE.is_match(s)),
        flag(SECOND.is_match(s)),
        flag(e.index == 0),
        flag(CODE.is_match(s)),
        flag(URL.is_match(s)),
        flag(s.chars().next().is_some_and(char::is_lowercase)),
        flag(e.kind == Kind::Preference),
        flag(e.kind == Kind::Correction),
        flag(e.kind == Kind::Decision),
        flag(e.kind == Kind::Fact),
        flag(e.kind == Kind::Reference),
        flag(e.kind == Kind::Date),
        flag(matches!(e.kind, Kind::Person | Kind::User)),
        flag(e.kind == Kind::Update),
        flag(SYMPTOM.is_match(s)),
        flag(pasted::about_a_symbol(s)),
        flag(words >= 12 && !FIRST_I.is_match(s) && !FIRST_WE.is_match(s) && !SECOND.is_match(s)),
    ]
}

impl Model {
    /// The log-odds of a candidate.
    pub fn log_odds(&self, x: &[f32]) -> f32 {
        self.bias + self.weights.iter().zip(x).map(|(w, v)| w * v).sum::<f32>()
    }

    /// The confidence of a candidate said in `sessions` distinct sessions.
    pub fn confidence(&self, e: &Evidence<'_>, sessions: usize) -> f32 {
        let z = self.log_odds(&features(e)) + self.repeat_bonus * sessions.saturating_sub(1) as f32;
        1.0 / (1.0 + (-z).exp())
    }

    /// The feature names whose weighted values pushed a candidate's confidence most, for and
    /// against (`why` shows them).
    pub fn strongest(&self, e: &Evidence<'_>, n: usize) -> (Vec<&'static str>, Vec<&'static str>) {
        let x = features(e);
        let mut parts: Vec<(f32, &'static str)> =
            self.weights.iter().zip(&x).zip(FEATURES).map(|((w, v), name)| (w * v, *name)).collect();
        parts.sort_by(|a, b| b.0.total_cmp(&a.0));
        let pro = parts.iter().filter(|p| p.0 > 0.05).take(n).map(|p| p.1).collect();
        let con = parts.iter().rev().filter(|p| p.0 < -0.05).take(n).map(|p| p.1).collect();
        (pro, con)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn confidence(raw: &str, index: usize, kind: Kind) -> f32 {
        let (prose, dropped) = super::super::said::prose_of(raw);
        let form = pasted::measure(raw, &prose, dropped);
        let sentences = crate::text::split_sentences(&prose);
        MODEL.confidence(&Evidence { sentence: sentences[index], index, form: &form, kind }, 1)
    }

    #[test]
    fn the_weights_file_loads_and_fits_the_features() {
        let m = load(MODEL_JSON).expect("loads");
        assert_eq!(m.weights.len(), FEATURES.len());
        assert!(m.threshold > 0.0 && m.threshold < 1.0);
        let bad = MODEL_JSON.replacen("turn_long", "turn_length", 1);
        assert!(load(&bad).unwrap_err().contains("do not match"));
    }

    #[test]
    fn a_typed_standing_rule_outranks_the_same_words_in_a_pasted_review() {
        let typed = confidence("In this repo we always use pnpm, never npm.", 0, Kind::Preference);
        let pasted = "## Review\n\nThe `installDeps()` helper at line 88 calls npm directly.\n\nConsider \
                      switching to pnpm across the workspace. This means the lockfile in `web/package.json:3` \
                      changes too.\n\n**Nit:** unused import at line 12.";
        let review = confidence(pasted, 1, Kind::Preference);
        assert!(typed > review, "typed {typed} vs pasted {review}");
        assert!(typed >= MODEL.threshold, "typed {typed} under {}", MODEL.threshold);
        assert!(review < MODEL.threshold, "pasted {review} over {}", MODEL.threshold);
    }

    #[test]
    fn a_hedge_lowers_confidence_and_another_session_raises_it() {
        let plain = confidence("We deploy the API with Fly, the config is fly.toml.", 0, Kind::Fact);
        let hedged =
            confidence("Maybe we deploy the API with Fly, I think the config is fly.toml.", 0, Kind::Fact);
        assert!(plain > hedged, "{plain} vs {hedged}");
        let raw = "Maybe we deploy the API with Fly, I think the config is fly.toml.";
        let form = pasted::measure(raw, raw, 0);
        let e = Evidence { sentence: raw, index: 0, form: &form, kind: Kind::Fact };
        assert!(MODEL.confidence(&e, 3) > MODEL.confidence(&e, 1));
    }
}
