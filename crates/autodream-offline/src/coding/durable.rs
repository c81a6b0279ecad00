//! Durable or one-off: which of the user's sentences a new session should know.
//!
//! The test a careful curator applies is "would the next session act differently for knowing
//! this?". Standing instructions ("always …", "never …", "we use …", "don't X, do Y"),
//! corrections ("no, specs live in spec/"), project facts (names, ports, branches, commands,
//! paths, environments, versions), people and their roles, decisions with their reasons,
//! dates and deadlines, and where things live pass it. One-off task requests ("Add a filter",
//! "Pull main and rebase"), questions, approvals, status chatter and problem reports ("the
//! job blows up") do not: they expire with the task.
//!
//! The rules read the shape of a sentence (does it open with an order? ask? report a
//! failure? bind a name to a value?) and a few families of words, in English and Chinese; no
//! rule looks for a particular project's vocabulary.

use std::sync::LazyLock;

use jiff::civil::Date;
use regex::Regex;

use crate::text::re;

use crate::dates;

pub use super::secrets::{holds_secret, looks_random};
use crate::text::is_cjk;

use super::kinds::STRONG_STANDING;
pub use super::kinds::{Dropped, Kind, is_rule, says_a_change, word_count};
use super::orders::{STANDING_IMPERATIVE, is_imperative};

mod leads;
mod people;
mod questions;

use leads::{MEANINGFUL_LABEL, REMEMBER_LEAD, label};
pub use leads::{names_the_rules_home, without_lead, writes_a_rule_down};
pub(super) use people::names_a_person;
use people::{about_the_user, in_third_person};
use questions::{asks_by_its_words, is_question};

/// A sentence judged worth keeping.
#[derive(Debug, Clone, PartialEq)]
pub struct Kept {
    pub kind: Kind,
    /// The sentence without its discourse lead-in ("OK, so", "Heads up:", "另外").
    pub text: String,
    /// It refers back to the sentence before it ("That's how we do all tests here").
    pub refers_back: bool,
    /// Said in one of the forms of [`super::standing`]: the form is evidence that it lasts.
    pub standing: bool,
}

/// The verdict on one sentence.
#[derive(Debug, Clone, PartialEq)]
pub enum Verdict {
    Keep(Kept),
    /// Dropped; an order is remembered so that a kept sentence referring back to it can
    /// take it along.
    Drop(Dropped),
}

/// "Constructor injection only", "Tailwind only, no CSS modules", "no malloc": a restriction
/// said as the thing allowed or the thing banned, without a verb.
static ONLY_OR_NONE: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r"(?i)^(?:[\w@./+-]+ ){1,3}only\b(?: please)?[,;.!]?(?:\s|$)|^no [\w@./+-]+(?: [\w@./+-]+)?(?:[,;.!—–-]|\s*$)",
    )
});
/// "no worries", "no idea": the short "no …" of conversation.
static NO_CHATTER: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r"(?i)^no (?:worries|problem|problems|thanks|thank|idea|clue|way|rush|need|luck|prob|biggie|issue|issues|change|changes|more|longer|one|doubt|kidding|matter)\b",
    )
});

/// Is the sentence a restriction without a verb ("X only", "no X")?
fn restricts(text: &str) -> bool {
    // "I only want to keep X as of now" is a wish of the moment, not "X only".
    static PERSON_FIRST: LazyLock<Regex> = LazyLock::new(|| re(r"(?i)^(?:i|we|you|they|it|this|that)\b"));
    if !ONLY_OR_NONE.is_match(text) || NO_CHATTER.is_match(text) || PERSON_FIRST.is_match(text) {
        return false;
    }
    // "Tailwind only", "`pnpm` only": a tool or a name of code. "Bug report only" is the
    // pick of the moment among plain words (which form to fill in), not a rule.
    static ONLY_WORD: LazyLock<Regex> = LazyLock::new(|| re(r"(?i) only\b"));
    // "No floats", "no malloc", "No H2": a tool, a name (capitalised after "no"), a name of
    // code or a word of the trade.
    // "No water", "no writing style" say what the user sees on the screen now.
    let names_a_tool = |t: &str| !super::vocabulary::VOCABULARY.values_in(t).is_empty() || has_value(t);
    let names_a_thing = |t: &str| {
        names_a_tool(t)
            || t.split(|c: char| !c.is_alphanumeric()).any(|w| {
                w.starts_with(char::is_uppercase)
                    || w.chars().any(|c| c.is_ascii_digit())
                    || w.len() > 2
                        && crate::text::surprise_of_key(&crate::text::word_key(w)) >= TRADE_WORD_SURPRISE
            })
    };
    match ONLY_WORD.find(text) {
        Some(m) if !text[..m.start()].to_lowercase().starts_with("no ") => names_a_tool(text),
        _ => names_a_thing(text.get(3..).unwrap_or_default()),
    }
}

/// How rare in general English (in nats) a word must be to count as a word of the trade
/// ("floats" 12.5, "tabs" 11.5; "water" 8.5, "style" 9.0).
const TRADE_WORD_SURPRISE: f32 = 10.5;

/// "We're using X", "We use X", "X is our Y".
static USES_TOOL: LazyLock<Regex> =
    LazyLock::new(|| re(r"(?i)^(?:we(?:'re| are)? (?:using|use|on)|(?:it'?s|that'?s) [\w.-]+ now)\b"));
/// "That needs 1.80, so we're …": a reason that points back, then its consequence.
static POINTER_THEN_SO: LazyLock<Regex> =
    LazyLock::new(|| re(r"(?i)^(?:that|this|it)\b[^,]{0,60}, so ((?:we|i|the|our)\b.+)$"));
/// A clause that opens with its subject: a pronoun or "the/our …".
static SUBJECT_FIRST: LazyLock<Regex> =
    LazyLock::new(|| re(r"(?i)^(?:we|we'?re|we'?ve|i|i'?m|they|it|it'?s|our|the|this|that)\b"));
/// "… and not the current branch", "…, not stdout", "instead of …": two ways, one chosen.
static CONTRAST: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r"(?i)(?:,|\band|\bbut) not (?:the |a |an |on |in |from |off |to |into |with )?[\w`./-]|\binstead of\b|\brather than\b",
    )
});
/// Words that tie a sentence to the work in hand.
static IN_HAND: LazyLock<Regex> =
    LazyLock::new(|| re(r"(?i)\b(?:this|that|these|those|it|them|here|yet|for now|today|right now)\b"));

/// Is the sentence a reminder ("don't forget to", "remember to") of one way over another?
fn reminds_of_a_choice(sentence: &str, rest: &str) -> bool {
    let s = leads::after_discourse_lead(sentence);
    REMEMBER_LEAD.find(s).is_some_and(|m| {
        m.as_str().to_lowercase().contains("forget") || m.as_str().to_lowercase().ends_with("to ")
    }) && CONTRAST.is_match(rest)
        && !IN_HAND.is_match(rest)
        && super::moment::of_the_moment(rest).is_none()
}
/// "Keep in mind …", "Bear in mind that …", "Remember that …", "Note that …": said for the
/// agent to keep, not a reminder to do something now ("remember to …", "don't forget to …").
fn asks_to_keep_in_mind(sentence: &str) -> bool {
    static KEEP_IN_MIND: LazyLock<Regex> = LazyLock::new(|| {
        re(
            r"(?i)^(?:please\s+)?(?:keep|bear) in mind\b(?:\s+that)?[,:]?\s|^(?:please\s+)?(?:remember|note|don'?t forget)\s+that\s",
        )
    });
    KEEP_IN_MIND.is_match(leads::after_discourse_lead(sentence))
}
/// Words that make a sentence a standing rule. "Next time, …" and "Next time you …" at the
/// start say it to the agent for every time after; "I'll fix it next time" and "bump the
/// version for next time" are one more time, not a rule.
static STANDING: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r"(?i)\b(?:always|never|every(?:thing| time| change| pr| commit| model| test)?|whenever|from now on|going forward|in the future|by default|no exceptions|conventions?|rules?|polic(?:y|ies)|must(?:n'?t)?|should(?:n'?t| not| never)|should\b[^.;]*\b(?:any|every|each|all)\b|don'?t|do not|not allowed|prefer(?:red|s)?|rather than|instead of|(?:we|they) (?:use|rely on|manage|keep|run|deploy|do|write|name|prefer|test|build|follow|ship|release|store|host|track)|we'?re on|we are on|in this (?:repo|repository|codebase|project|app|service)|across (?:the |this |our |all (?:of )?(?:our |the )?)(?:\w+ )?(?:code ?base|repos?|repository|repositories|projects?|code|apps?|stack|monolith|monorepo|workspace|services?|packages?|modules?|crates?|files?|components?|teams?|environments?|platforms?|languages?|charts)|only (?:for|in|through|via|ever|go|goes|after|before)|all (?:of )?(?:our|the|new|dependency|tests|prs|changes|commands|code|components|dags|models|subgraph|schemas?))\b|\b(?:use|uses|using) \S+(?: \S+)?,? (?:not|never|instead of|rather than) |一律|统一|都用|都要|都得|都必须|全部|所有|禁止|不要|别再?|必须|以后|只能|只在|规矩|规范|不收|要先|之前要|每个|每次|每周|每(?:天|晚|周.)\s*\d{1,2}[:：]\d{2}|^(?:(?:and|so|but|also|please|ok(?:ay)?),?\s+)*next time(?:,|\s+you\b)",
    )
});
/// Does the fact tell the agent how to work ("Use the british spelling", "Specs should …")?
/// The index leads with those: they apply to every session.
pub fn prescribes(text: &str) -> bool {
    STANDING_IMPERATIVE.is_match(text) || STANDING.is_match(text)
}

/// A preference stated in the first person.
static FIRST_PERSON_PREFERENCE: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r"(?i)^i (?:prefer|'d rather|would rather|like|love|hate|don'?t like|always|never|usually|want (?:all|every|you to always|you to never))\b|^我(?:喜欢|不喜欢|习惯|希望以后)",
    )
});
/// The speaker's own plans and state for the moment ("I'll watch Jenkins").
static FIRST_PERSON_MOMENT: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r"(?i)^(?:i'?ll|i will|i'?m|i am|i (?:do not|don'?t|dont) have|i (?:do |really |also |still )?need|i want|i'?d like|i just|i think|i guess|i have|i'?ve|i was|i did|i can|let me|i'?ll give|here'?s|here is|below|see below|we (?:still |then |also |first |now |just )?need to|we have to|we'?ve got to)\b|^(?:我先|我来|我已经|我刚|我要|我想|我放|我用|我把)",
    )
});
/// A failure or the state of the moment.
static PROBLEM: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r"(?i)\b(?:fail(?:s|ed|ing)?|broken|breaks|broke|crash(?:es|ed|ing)?|blows? up|panics?|panicking|throws?|throwing|is red|are red|timing out|times out|timeouts?|is slow|got slow|too slow|flaky|looks (?:wrong|off)|is wrong|wrong|doesn'?t work|isn'?t working|not working|lagging|oom|hangs?|hanging|stuck|keeps? (?:crashing|failing)|regressed|(?:an?|the) (?:bug|error)|has (?:the|an?|this|that) (?:issue|problem)|the (?:issue|problem) is|out of sync|out of date|won'?t start|doesn'?t start|(?:is|are)n'?t arriving|not arriving|keeps? \w+ing|(?:is|are) killing (?:us|me|our)|kills? (?:us|me))\b|挂了|报错|报了|崩溃|闪退|超时|不对|有问题|出了|失败|太丑|太吵|对不上",
    )
});
static CONDITIONAL: LazyLock<Regex> =
    LazyLock::new(|| re(r"(?i)\b(?:if|when|whenever|unless|in case)\b|如果|要是|万一"));
/// A condition with its imagined outcome: "if we rebase now, the diff would …".
static HYPOTHETICAL: LazyLock<Regex> =
    LazyLock::new(|| re(r"(?i)\bif\b.*\b(?:would|could|might)\b|如果.*(?:会|就会)"));
static DECISION: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r"(?i)\b(?:decided|decision|we'?re going with|we are going with|we'?ll go with|we'?re moving forward with|we are moving forward with|we'?ll move forward with|chose|chosen|settled on|let me just decide|because|so that|so nobody|so we can|the reason|that'?s why)\b|决定|因为|所以|为了",
    )
});
static EVENT: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r"(?i)\b(?:release[sd]?|freeze|launch(?:es|ed)?|goes out|go(?:es)? live|ships?|shipping|deadline|due|playtest|demo|submission|submit|review|expires?|expiry|cut-?over|planning|kickoff|sprint|milestone|v?\d+\.\d+(?:\.\d+)?)\b|上线|交付|提交|审核|截止|发布|过期|评审|演示|版本",
    )
});
static URL: LazyLock<Regex> = LazyLock::new(|| re(r"https?://\S+"));
static REFERENCE_WORDS: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r"(?i)\b(?:runbooks?|dashboards?|wiki|docs?/|documentation|figma|notion|confluence|design doc|spec doc|postmortem|readme|playbook|channel)\b|\S+\.md\b|文档|设计稿|复盘",
    )
});
/// A value a later session would need verbatim: code spans, paths, identifiers, versions,
/// ports, names.
static SPECIFIC: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r"`[^`]+`|\b\w+[./_:@#-]\w[\w./:@#-]*|\b\d+(?:\.\d+)*\b|\b\p{Lu}[\p{L}\d]*\p{Lu}[\p{L}\d]*\b|\b\p{Lu}\p{Ll}+\b|[A-Za-z]{2,}",
    )
});
static DECLARATIVE: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r"(?i)\b(?:is|are|was|were|lives?|runs?|listens?|serves?|uses?|goes|go|stays?|has|have|called|named|hosted|stored|kept|points?|holds?|sits?|comes? from|belongs?|means|requires?|needs?|owns?|handles|reviews|approves|manage|live|wrote|exists?|(?:auto-)?deploy(?:s|ed)|publish(?:es|ed)|syncs|mirrors|defaults to|depends on)\b|是|在|用|叫|走|归|存|放|跑在|地址|端口|锁在",
    )
});

/// A sentence cut short: no closing punctuation and a last word that needs a next one.
static CUT_SHORT: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r"(?i)(?:\b(?:the|a|an|are|is|was|were|to|of|when|with|and|or|but|in|on|for|that|which|not|if|because|from|by|as|at|into|than|then|be|been|being|has|have|had|do|does|its|their|our|your|my)|[:,;(—–-])\s*$",
    )
});
/// Words that mark the state of the moment rather than how things are.
static MOMENT: LazyLock<Regex> =
    LazyLock::new(|| re(r"(?i)\b(?:already|right now|at the moment|just now)\b"));
/// Words that limit an order to the task at hand.
static FOR_NOW: LazyLock<Regex> = LazyLock::new(|| {
    re(r"(?i)\b(?:yet|for now|for the moment|until (?:i|we) say|this time|right now|today)\b|暂时|先不|这次")
});
/// A passing opinion of the speaker's ("I would describe …", "I feel like …").
static OPINION: LazyLock<Regex> = LazyLock::new(|| {
    re(r"(?i)\bI (?:would|feel|mean|guess|think|believe|suppose|just tried|noticed)\b|\bI'd (?:like|say)\b")
});
/// A verb with no subject after an adverb ("Still reads for the quick reader …"); a purpose
/// cut from the clause it serves ("just so we can have more options").
static FRAGMENT: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r"(?i)^(?:(?:still|also|just|again|then|now)\s+[a-z]+s\b|just so (?:we|i|they|it|the|users?|people|he|she)\s)",
    )
});
/// A commit or object hash: git has it, memory does not need it.
static HASH: LazyLock<Regex> = LazyLock::new(|| re(r"\b[0-9a-f]*[0-9][0-9a-f]*[a-f][0-9a-f]*\b"));

/// "We're moving CI to Buildkite, we already have agents": two sentences joined by a comma,
/// each with its own subject.
fn comma_splices(clause: &str) -> Vec<&str> {
    static SPLICE: LazyLock<Regex> =
        LazyLock::new(|| re(r"(?i),\s+(?:we|i|you|they|it|he|she)(?:'re|'ve|'ll|'s)?\s+\w"));
    let mut out = Vec::new();
    let mut start = 0;
    for m in SPLICE.find_iter(clause) {
        out.push(clause[start..m.start()].trim());
        start = m.start() + 1;
    }
    out.push(clause[start..].trim());
    out.retain(|c| !c.is_empty());
    out
}

fn is_cut_short(text: &str) -> bool {
    // "… what about like the .": a stop after an article ends no sentence.
    static ENDS_ON_ARTICLE: LazyLock<Regex> =
        LazyLock::new(|| re(r"(?:\b(?i:the|an|my|our|your|their)|\b(?-i:a))\s*[.!]?$"));
    let t = text.trim_end();
    ENDS_ON_ARTICLE.is_match(t)
        || !t.ends_with(['.', '!', '?', '。', '！', '？', ')', '）', '`', '"', '”']) && CUT_SHORT.is_match(t)
        || t.ends_with(':')
        || t.ends_with('：')
        || opens_an_aside_it_never_closes(t)
}

/// "(don't add too many, just the core issue(s)": a sentence that opens with a parenthesis it
/// never closes was cut out of something longer.
fn opens_an_aside_it_never_closes(text: &str) -> bool {
    text.starts_with('(') && text.matches('(').count() > text.matches(')').count()
        || text.starts_with('[') && text.matches('[').count() > text.matches(']').count()
}

fn has_hash(text: &str) -> bool {
    HASH.find_iter(text).any(|m| (7..=40).contains(&m.as_str().len()))
}

/// Is the sentence written mostly in Latin letters or in CJK, the scripts the rules read?
/// ("Создай мне промт …" is not: its orders and questions cannot be told from its facts.)
fn in_a_language_the_rules_read(text: &str) -> bool {
    let (mut read, mut other) = (0usize, 0usize);
    // Names, paths and addresses are Latin whatever the language around them.
    let prose = text.split_whitespace().filter(|w| !w.contains(['/', '.', '_', ':', '@', '`']));
    for c in prose.flat_map(str::chars).filter(|c| c.is_alphabetic()) {
        if c.is_ascii_alphabetic() || is_cjk(c) || ('\u{00C0}'..='\u{024F}').contains(&c) {
            read += 1;
        } else {
            other += 1;
        }
    }
    other <= read
}

/// Judges one sentence. `anchor` is the day it was said (for dates ahead).
pub fn judge(sentence: &str, anchor: Date, note: bool) -> Verdict {
    // A pick among the agent's options or a reply with its question ("… WCAG level? Answered:
    // keep it simple."): one decision, whose question and reply stand or fall together; the
    // rules that cut a dash's aside or an order's tail would leave half of it.
    if note && super::choices::is_pick(sentence) && !holds_secret(sentence) {
        // A pick about one commit ("Task 2.3 (`2c315c1`) pushed to PR #13. Chosen: Apply the
        // fix now") is a step of that moment's work, as a statement naming a hash is.
        if has_hash(sentence) {
            return Verdict::Drop(Dropped::Status);
        }
        // Its lead ("First question: …") goes, as any sentence's does.
        let (text, _) = without_lead(sentence);
        return Verdict::Keep(Kept {
            kind: Kind::Decision,
            text: text.trim().to_string(),
            refers_back: false,
            standing: true,
        });
    }
    let (text, correction) = without_lead(sentence);
    // "That needs 1.80, so we're bumping MSRV to 1.80": the reason points back, the statement
    // after "so" stands alone.
    let text = match POINTER_THEN_SO.captures(&text) {
        Some(c) if word_count(&c[1]) >= 4 => crate::render::capitalise_first(&c[1]),
        _ => text,
    };
    let text = super::tails::trim_trailing_requests(&text);
    let trimmed = text.trim();
    if holds_secret(trimmed) {
        return Verdict::Drop(Dropped::Secret);
    }
    // 'If you have access to the server"', '8i48KY) can be accessed at …': a piece cut out of
    // a quotation or a list, whatever form the rest of it has.
    if !note && super::moment::is_a_cut_piece(trimmed) {
        return Verdict::Drop(Dropped::NotDurable);
    }
    // A language the rules cannot read is never written from what they would guess.
    if !note && !in_a_language_the_rules_read(trimmed) {
        return Verdict::Drop(Dropped::NotDurable);
    }
    // "I like Option C", "you described it well", "brb": said to the agent about the moment.
    if !note && super::reactions::reaction(trimmed).is_some() {
        return Verdict::Drop(Dropped::Chatter);
    }
    // "Make that standard in your workflow": the order before it, made standing (the
    // consolidation joins the two, or leaves this out).
    if !note && super::orders::makes_the_last_standing(trimmed) {
        return Verdict::Keep(Kept {
            kind: Kind::Preference,
            text: trimmed.to_string(),
            refers_back: true,
            standing: true,
        });
    }
    // "The security review is next Thursday, so I need a checklist": the dated event stays,
    // the order goes. A standing rule that names a day is left whole.
    if !note
        && !STANDING.is_match(trimmed)
        && !names_a_person(trimmed)
        && let Some(event) = super::dated::dated_event(trimmed, anchor)
    {
        return Verdict::Keep(Kept {
            kind: Kind::Date,
            text: in_third_person(&event),
            refers_back: false,
            standing: false,
        });
    }
    // "今天实验室停电，只能看代码": the day's situation, whatever rule words it has.
    // Someone else in it ("今天把文档整理一下，孙悦要评审") is left to the rules below.
    if !note && super::moment::is_the_speakers_day(trimmed) && !names_a_person(trimmed) {
        return Verdict::Drop(Dropped::Status);
    }
    // "docker isn't relevant, we can solve that using GitHub Runners on PR's": one way set
    // aside for another is a decision, as explicit as "X, not Y".
    if !note && sets_aside_for_another(trimmed) {
        return Verdict::Keep(Kept {
            kind: Kind::Decision,
            text: trimmed.to_string(),
            refers_back: false,
            standing: true,
        });
    }
    // "… but the problem is that NuShell does not support it", "GitHub also creates
    // .github/instructions": what a tool does or cannot do holds until the tool changes,
    // whatever the speaker was about to do.
    if !note && tells_what_a_tool_does(trimmed) {
        return Verdict::Keep(Kept {
            kind: Kind::Fact,
            text: trimmed.to_string(),
            refers_back: false,
            standing: false,
        });
    }
    // "Dont forget to branch off main and not the current branch": a reminder of a choice
    // between two ways is a way of working, not the task at hand.
    if !note && reminds_of_a_choice(sentence, trimmed) && !asks_by_its_words(trimmed) {
        return Verdict::Keep(Kept {
            kind: Kind::Preference,
            text: trimmed.to_string(),
            refers_back: false,
            standing: true,
        });
    }
    // "Keep in mind, you need to run `test:env` to have the env locally": the user asks for
    // it to be kept, and how a thing is done here, with the command that does it, is what
    // memory is for. What it is said of must be named ("keep in mind that this file is
    // generated" points at the work in hand); "remember to push" is a reminder for the task.
    if !note
        && asks_to_keep_in_mind(sentence)
        && has_value(trimmed)
        && !IN_HAND.is_match(trimmed)
        && !is_question(trimmed)
    {
        return Verdict::Keep(Kept {
            kind: kind_of(trimmed, anchor, false).unwrap_or(Kind::Preference),
            text: trimmed.to_string(),
            refers_back: false,
            standing: true,
        });
    }
    // "I think it's better not to …", "use X where possible" inside an order: a way of
    // working said in a form the rules below read as the moment. Asked, it is none ("do you
    // have access to past conversations about it", typed without its mark).
    if !note
        && !asks_by_its_words(trimmed)
        && let Some((kind, text)) = super::standing::standing_form(trimmed)
    {
        return Verdict::Keep(Kept { kind, text, refers_back: false, standing: true });
    }
    // "However, …", "X is not set correctly", "shouldn't be too hard": talk of the moment.
    if !note && let Some(why) = super::moment::of_the_moment(trimmed) {
        return Verdict::Drop(why);
    }
    let words = word_count(trimmed);
    if note {
        if words == 0 {
            return Verdict::Drop(Dropped::Chatter);
        }
        let kind = kind_of(trimmed, anchor, correction).unwrap_or(Kind::Fact);
        return Verdict::Keep(Kept { kind, text: trimmed.to_string(), refers_back: false, standing: false });
    }
    // "We're using cargo-dist.": a tool the project uses is a fact however short; "No malloc."
    // is a rule however short.
    if words < 4
        && !(super::vocabulary::VOCABULARY.values_in(trimmed).len() == 1 && USES_TOOL.is_match(trimmed))
        && !restricts(trimmed)
    {
        return Verdict::Drop(Dropped::Chatter);
    }
    if is_question(trimmed) {
        return Verdict::Drop(Dropped::Question);
    }
    // Never a sentence with a hole: a cut-off line, a lead-in to a list that is not there.
    if is_cut_short(trimmed) {
        return Verdict::Drop(Dropped::NotDurable);
    }
    // The state of the moment ("pyproject is already converted") is left out, clause by
    // clause, and so is a clause that is talk of the moment on its own ("…, and then we look
    // at 50 commits"); a sentence that is nothing else is dropped.
    let text = if MOMENT.is_match(trimmed) && !STRONG_STANDING.is_match(trimmed) {
        let lasting: Vec<&str> = super::kinds::clauses(trimmed)
            .into_iter()
            .flat_map(comma_splices)
            .filter(|c| !MOMENT.is_match(c) && super::moment::of_the_moment(c).is_none())
            .collect();
        if lasting.is_empty() {
            return Verdict::Drop(Dropped::Status);
        }
        let joined = lasting.join("; ");
        let stop = if joined.chars().any(is_cjk) { "。" } else { "." };
        format!("{}{stop}", joined.trim_end_matches(['.', '。', ';', ',']))
    } else {
        trimmed.to_string()
    };
    let trimmed = text.as_str();
    // "I'd like all our assertions replaced with one comparison instead": how a kind is written.
    let for_a_kind = super::orders::sets_the_way_for_a_kind(trimmed);
    if has_hash(trimmed)
        || OPINION.is_match(trimmed) && !FIRST_PERSON_PREFERENCE.is_match(trimmed) && !for_a_kind
    {
        return Verdict::Drop(Dropped::Status);
    }
    if FRAGMENT.is_match(trimmed) {
        return Verdict::Drop(Dropped::NotDurable);
    }
    // A rule's label ("Firmware rule:", "先说两条规矩：") stays in the text, but the order
    // test reads what follows it.
    let body = match label(trimmed) {
        Some(c) if MEANINGFUL_LABEL.is_match(&c[1]) => &trimmed[c.get(0).expect("match").end()..],
        // "Change of heart on the NAS: we're switching it to Podman": the label names what the
        // statement after it is about; the statement is what is judged an order or not.
        Some(c)
            if word_count(&c[1]) <= 8
                && SUBJECT_FIRST.is_match(&trimmed[c.get(0).expect("match").end()..]) =>
        {
            &trimmed[c.get(0).expect("match").end()..]
        }
        _ => trimmed,
    };
    let standing = STANDING.is_match(&crate::text::without_code_spans(trimmed));
    // "… if we now rebase, the diff would not be correct anymore": a change imagined, not made.
    let update = says_a_change(trimmed) && !HYPOTHETICAL.is_match(trimmed);
    let decision = DECISION.is_match(trimmed);
    let cjk = trimmed.chars().filter(|&c| is_cjk(c)).count();
    let specific = SPECIFIC.is_match(trimmed) || cjk >= 6;
    let how_to = HOW_TO.is_match(body) || for_a_kind;
    // "Use subagents if you need": leave for this work, not a way of working.
    if super::orders::is_leave_for_the_work(body) && !STRONG_STANDING.is_match(trimmed) {
        return Verdict::Drop(Dropped::Request);
    }
    // "Do not change the code yet": a limit on this task, not a rule.
    let for_now = FOR_NOW.is_match(trimmed) && !STRONG_STANDING.is_match(trimmed);
    if for_now && (is_imperative(body) || STANDING_IMPERATIVE.is_match(body)) {
        return Verdict::Drop(Dropped::Request);
    }
    let body = super::orders::without_place_or_way_before(body);
    // "… and ensure this never repeats again": the incident's "never" makes no rule.
    let standing_words = super::orders::without_incident(trimmed);
    let ordered = is_imperative(body)
        && (!STANDING_IMPERATIVE.is_match(body) || super::orders::uses_the_thing_in_hand(body))
        && !how_to
        || super::orders::is_order_form(body);
    // A long order is the task's specification, whatever standing word it holds ("Create a
    // worktree …, never force-push, add tests, run the linter …").
    let long_order = ordered && word_count(trimmed) > 40;
    if ordered
        && (!STRONG_STANDING.is_match(&standing_words) || long_order)
        && !super::orders::places(body)
        && !(for_a_kind || super::orders::ends_support(body))
    {
        // "Please write that as a table-driven test" is an order; with "always", "from now
        // on", "in this repo" it is a rule.
        return Verdict::Drop(Dropped::Request);
    }
    if let Some(about_user) = about_the_user(body) {
        return Verdict::Keep(Kept {
            kind: Kind::User,
            text: about_user,
            refers_back: false,
            standing: false,
        });
    }
    // "I'm raising the minimum to iOS 17": a change the user makes is news, not their moment.
    let announces_change = update && has_value(trimmed) && !is_imperative(body);
    if FIRST_PERSON_MOMENT.is_match(body)
        && !FIRST_PERSON_PREFERENCE.is_match(body)
        && !STRONG_STANDING.is_match(&standing_words)
        && !announces_change
        && !for_a_kind
    {
        return Verdict::Drop(Dropped::Status);
    }
    if is_problem_report(trimmed, anchor) && !(update || decision || standing) {
        return Verdict::Drop(Dropped::Status);
    }
    let kind = if how_to { Some(Kind::Preference) } else { kind_of(trimmed, anchor, correction) };
    match kind {
        Some(kind) if specific || kind == Kind::Preference => Verdict::Keep(Kept {
            kind,
            text: in_third_person(trimmed),
            refers_back: REFERS_BACK.is_match(trimmed),
            standing: writes_a_rule_down(sentence) || leads::labelled_a_rule(trimmed),
        }),
        _ => Verdict::Drop(Dropped::NotDurable),
    }
}

/// "X isn't relevant/needed, we can solve that using Y": a way set aside, then the one taken.
static SET_ASIDE: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r"(?i)^(?P<old>[\w`'./-]+(?: [\w`'./-]+)?) (?:isn'?t|is not|aren'?t|are not) (?:relevant|needed|necessary|required|an option|worth it)(?: here)?[,;:—–-]+\s*(?:we|you)(?:'ll| can| will| could| should)? (?:solve|handle|do|cover|get|achieve|run|test) (?:that|this|it|them) (?:using|with|via|through|in|on) (?P<new>\S.+)$",
    )
});

/// Does the sentence set a way aside for another it names ("docker isn't relevant, we can
/// solve that using GitHub Runners")? One of the two must be a name, not plain words.
fn sets_aside_for_another(text: &str) -> bool {
    SET_ASIDE.captures(text).is_some_and(|c| {
        let names = |s: &str| !super::vocabulary::VOCABULARY.values_in(s).is_empty() || has_value(s);
        (names(&c["old"]) || names(&c["new"])) && !is_question(text)
    })
}

/// A tool and what it does or cannot do: "NuShell does not support it", "GitHub also creates
/// `.github/instructions`", "pnpm ignores …". The word before the verb is the tool's name.
static TOOL_BEHAVIOUR: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r"(?i)([\w`'.-]+)\s+(?:also\s+|still\s+|only\s+)?(?:(?:does not|doesn'?t|cannot|can'?t|won'?t|will not|never)\s+(?:support|handle|allow|work with|read|load|pick up|respect|honou?r|follow|expand|resolve)|(?:creates?|reads?|loads?|supports?|ignores?|requires?|generates?|picks up|expects?))\b([^.;!?,]*)",
    )
});
/// Pointers to the state of the moment in what the tool is said to do.
static TOOL_MOMENT: LazyLock<Regex> = LazyLock::new(|| {
    re(r"(?i)\b(?:this|that|these|those|here|yet|anymore|any more|right now|for now|today|currently|my|me)\b")
});

/// Does the sentence say what a tool the vocabulary knows does or cannot do, as a statement
/// (not an order, not a question, not of the moment)?
fn tells_what_a_tool_does(text: &str) -> bool {
    let names_a_tool = TOOL_BEHAVIOUR.captures_iter(text).any(|c| {
        let tool = c[1].trim_matches(|ch: char| matches!(ch, '`' | '\'' | '"'));
        super::vocabulary::VOCABULARY.values_in(tool).iter().any(|(_, name)| name.len() == tool.len())
            && !TOOL_MOMENT.is_match(&c[2])
    });
    names_a_tool
        && !OPINION.is_match(text)
        && !is_question(text)
        && !is_imperative(text)
        && word_count(text) >= 4
}

/// "Flash with `west flash --runner jlink`", "Deploy with `fly deploy -c fly.staging.toml`":
/// how a thing is done here, said as an order.
static HOW_TO: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r"(?i)^\w+(?: \w+)? (?:with|using|via|through) (?:`[^`]+`|\S*[./-]\S*)[.!]?$|^\w+(?: [\w']+){0,4}: `[^`]+ [^`]+`[.!]?$",
    )
});
/// A sentence that only makes sense with the one before it.
static REFERS_BACK: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r"(?i)^(?:that'?s|that is|this is|it'?s|it is|those are|these are|same (?:rule|drill|thing))\b|^(?:这是|这就是|那是)",
    )
});

fn is_problem_report(text: &str, anchor: Date) -> bool {
    let Some(m) = PROBLEM.find(text) else { return false };
    // "… if a build fails" states where to look, not a failure.
    if CONDITIONAL.is_match(&text[..m.start()]) {
        return false;
    }
    // "接口设计有问题找孙悦": who to go to with a problem, not a problem.
    static GO_TO: LazyLock<Regex> =
        LazyLock::new(|| re(r"^[，,]?\s*(?:就|请|可以|都|直接)?(?:找|问|联系|去找)\p{Han}"));
    if GO_TO.is_match(&text[m.end()..]) {
        return false;
    }
    // A dated incident with its write-up ("上周五出了一次超卖事故，复盘文档在 docs/…") is history
    // worth keeping, not the state of the moment.
    let dated =
        !dates::find_relative(text, anchor).is_empty() || !dates::find_absolute(text, anchor).is_empty();
    !(dated && (URL.is_match(text) || REFERENCE_WORDS.is_match(text)))
}

fn kind_of(text: &str, anchor: Date, correction: bool) -> Option<Kind> {
    if correction && (STANDING.is_match(text) || DECLARATIVE.is_match(text)) {
        return Some(Kind::Correction);
    }
    if names_a_person(text) {
        return Some(Kind::Person);
    }
    if says_a_change(text)
        && (DECLARATIVE.is_match(text)
            || STANDING.is_match(text)
            || has_value(text)
            || !super::updates::replaced_values(text).is_empty())
    {
        return Some(Kind::Update);
    }
    let dated =
        !dates::find_relative(text, anchor).is_empty() || !dates::find_absolute(text, anchor).is_empty();
    if dated && (EVENT.is_match(text) || super::dated::names_event(text)) {
        return Some(Kind::Date);
    }
    if STANDING.is_match(&crate::text::without_code_spans(text))
        || STANDING_IMPERATIVE.is_match(text)
        || FIRST_PERSON_PREFERENCE.is_match(text)
        || restricts(text)
        || label(text).is_some_and(|c| MEANINGFUL_LABEL.is_match(&c[1]))
    {
        return Some(Kind::Preference);
    }
    if DECISION.is_match(text) || super::orders::ends_support(text) {
        return Some(Kind::Decision);
    }
    if URL.is_match(text) || REFERENCE_WORDS.is_match(text) && DECLARATIVE.is_match(text) {
        return Some(Kind::Reference);
    }
    if (DECLARATIVE.is_match(text) || USES_TOOL.is_match(text)) && has_value(text) {
        return Some(Kind::Fact);
    }
    None
}

/// Does the sentence name something concrete: a code span, a path or identifier, an
/// annotation or handle ("@Autowired"), a number,
/// a product or person name, a CJK term next to Latin text?
fn has_value(text: &str) -> bool {
    static VALUE: LazyLock<Regex> = LazyLock::new(|| {
        re(
            r"`[^`]+`|\b\w+[./_:@#-]\w[\w./:@#-]*|(?:^|\s)@\w+|\b\d+(?:\.\d+)*\b|(?:^|\s)\p{Lu}[\p{L}\d]*\p{Lu}[\p{L}\d]*\b|[\s(]\p{Lu}\p{Ll}+|\b[a-z]+[A-Z]\w*\b",
        )
    });
    // "called trunk", "trunk, not main": a name given as the answer is a value.
    static NAMED: LazyLock<Regex> = LazyLock::new(|| re(r"(?i)\b(?:called|named)\s+\S+|,\s*not\s+\w+"));
    VALUE.is_match(text)
        || NAMED.is_match(text)
        || (text.chars().any(is_cjk) && text.chars().any(|c| c.is_ascii_alphabetic()))
}

#[cfg(test)]
mod tests;
