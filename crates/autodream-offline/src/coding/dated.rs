//! Facts inside task turns: a dated event the user mentions on the way to an order.
//!
//! "The security review is next Thursday, so I need a checklist of …", "后天提审，今天要把订单确认页
//! 做完": the order expires with the task, the date does not. The next session should know the
//! review is on the 10th, and nothing about the checklist. So a sentence whose first clause
//! names an event (a release, a freeze, a launch, a demo, a trial, a review, an audit …) and a
//! day is kept as that clause alone; the rest of the sentence, the order or the reason tied to
//! it ("so I want …", "today we need …"), is cut. The day is written as an absolute date later,
//! with the rest of the memo's dates.
//!
//! The class of sentence this serves: a scheduled event with its day, said in passing. It does
//! not keep an appointment of the user's own day ("I have a dentist appointment at 3"), a
//! report of what went wrong, or a clause that is itself an order ("Run the check on Friday").

use std::sync::LazyLock;

use jiff::civil::Date;
use regex::Regex;

use crate::text::re;

use crate::dates;
use crate::text::is_cjk;

/// Events that happen on a day and matter beyond it: releases and launches, freezes,
/// reviews and audits, demos and talks, trials and pilots, upgrades and cut-overs.
static EVENT: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r"(?i)\b(?:releases?|released|release date|launch(?:es|ed)?|go-?live|goes live|ga|beta|alpha|rc\d*|freeze|code freeze|deadline|due|review|audit|pen-?test|penetration test|demo|presentation|talk|meetup|conference|offsite|workshop|webinar|hackathon|(?:game )?jam|compo|readout|playtest|pilot|trial|experiment|cut-?over|upgrade|migration|rollout|roll-out|submission|sign-?off|kick-?off|milestone|sprint|go/no-go|ships|goes out|by\s+(?:next\s+|this\s+)?(?:monday|tuesday|wednesday|thursday|friday|saturday|sunday))\b|迁到|迁移到|上线|全量|灰度|发版|发布|提审|审核|评审|封版|冻结|截止|交付|演示|汇报|答辩|分享会?|迁移|切换|割接|内测|公测",
    )
});

/// Does `text` name an event that happens on a day?
pub fn names_event(text: &str) -> bool {
    EVENT.is_match(text)
}

/// A verb of scheduling: the clause says the event is on a day, not that it happened badly.
static SCHEDULED: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r"(?i)\b(?:is|are|'s|was|will be|have|has|got|at|in|starts?|starting|begins?|ends?|ending|opens?|closes?|ships?|goes(?: out| live)?|go(?: out| live)|lands?|happens?|kicks? off|wraps?(?: up)?|due|scheduled|planned|set for|moved to|pushed to|on|by|until|before)\b|定在|放在|在|是|开始|结束|之前|前|要",
    )
});

/// A clause that only carries on from the event: its consequence or an order ("so I want …",
/// "— can you …", "，今天要把 … 做完").
static BOUNDARY: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r"(?i)\s*(?:,\s*(?:so|and|but|then|which means)\b|\s+so\s+(?:i|we|you|this|that|it|let'?s|please|the)\b|\s+[—–]\s+|\s+-\s+|[;:]\s+)|[，；：、]",
    )
});

/// An order, a question or a wish: not a statement of the event.
static NOT_A_STATEMENT: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r"(?i)^(?:please |pls |ok(?:ay)?,? |so,? |and |also,? |then,? |now,? )*(?:can|could|would|should|shall|will) (?:you|we|i)\b|^(?:please|pls|let'?s|make sure|remember to|don'?t forget)\b|^(?:run|add|fix|write|check|send|ship|push|deploy|build|test|make|create|update|prepare|set up|get|put|do|try)\b|\?|^(?:what|when|where|why|how|who|which|is|are|does|do|did)\b|^(?:帮我|请|麻烦|把|给)",
    )
});

/// What went wrong, not what is planned.
static INCIDENT: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r"(?i)\b(?:fail(?:s|ed)?|broke(?:n)?|crash(?:ed|es)?|outage|went (?:fine|well|badly|wrong|ok)|is red|went down)\b|挂了|报错|失败|停电|事故",
    )
});

/// Days said the way a plan says them, which the shared date rules leave alone because in a
/// story they point back ("on Saturday we went hiking"): a bare weekday, "Thursday next
/// week", "a week from tomorrow", "the end of the month", "月底". In a scheduled event they
/// point ahead.
static PLAN_DAY: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r"(?i)\b(?P<qual>(?:last|this coming|this|next|coming|past)\s+)?(?P<wd>monday|tuesday|wednesday|thursday|friday|saturday|sunday)\b(?P<next>,?\s+next\s+week)?(?P<nth>\s+the\s+\d)?|\ba\s+week\s+from\s+(?P<from>tomorrow|today)\b|\b(?:the\s+)?end\s+of\s+(?:the|this)\s+month\b|月底",
    )
});

/// The plan days of `text`: (start, end, day), in text order.
fn plan_days(text: &str, anchor: Date) -> Vec<(usize, usize, Date)> {
    let mut out = Vec::new();
    for c in PLAN_DAY.captures_iter(text) {
        let whole = c.get(0).expect("match");
        let day = if let Some(wd) = c.name("wd") {
            // "next Friday", "this Friday", "Wednesday the 18th": the shared rules' own.
            if c.name("qual").is_some() || c.name("nth").is_some() {
                continue;
            }
            const NAMES: [&str; 7] =
                ["monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"];
            let Some(target) = NAMES.iter().position(|n| wd.as_str().eq_ignore_ascii_case(n)) else {
                continue;
            };
            let today = anchor.weekday().to_monday_zero_offset() as i64;
            let ahead = if c.name("next").is_some() {
                7 - today + target as i64
            } else {
                match (target as i64 - today).rem_euclid(7) {
                    0 => 7,
                    n => n,
                }
            };
            anchor.checked_add(jiff::Span::new().days(ahead)).ok()
        } else if let Some(from) = c.name("from") {
            let extra = if from.as_str().eq_ignore_ascii_case("tomorrow") { 8 } else { 7 };
            anchor.checked_add(jiff::Span::new().days(extra)).ok()
        } else {
            Some(anchor.last_of_month())
        };
        if let Some(day) = day {
            out.push((whole.start(), whole.end(), day));
        }
    }
    out
}

/// `text` with the date of each plan day after it, in parentheses: "Design review is
/// Wednesday (2026-06-24)". The words stay: they say how the user put it.
fn pin_plan_days(text: &str, anchor: Date) -> String {
    let mut out = String::with_capacity(text.len() + 16);
    let mut copied = 0;
    for (_, end, day) in plan_days(text, anchor) {
        // Already pinned ("Monday (2026-04-27)"); an aside of words ("Friday (both stores)")
        // is not a date.
        if text[end..]
            .trim_start()
            .strip_prefix('(')
            .is_some_and(|r| r.starts_with(|c: char| c.is_ascii_digit()))
        {
            continue;
        }
        out.push_str(&text[copied..end]);
        out.push_str(&format!(" ({day})"));
        copied = end;
    }
    out.push_str(&text[copied..]);
    out
}

/// The first clause of `sentence` that states a scheduled event with its day, without the
/// order or consequence tied to it; `None` when the sentence holds no such clause.
pub fn dated_event(sentence: &str, anchor: Date) -> Option<String> {
    let text = sentence.trim().trim_end_matches(['.', '!', '。', '！']);
    let mut start = 0;
    let mut clauses = Vec::new();
    for m in BOUNDARY.find_iter(text) {
        clauses.push(&text[start..m.start()]);
        start = m.end();
    }
    clauses.push(&text[start..]);
    // Every clause that states one ("这周五 code freeze，下周一发版"), and nothing else.
    let events: Vec<String> = clauses
        .into_iter()
        .map(|c| c.trim().trim_end_matches([',', ';', ':', '，', '；', '：']))
        // "… ships Friday next week btw": the aside word is not part of the event.
        .map(|c| c.strip_suffix(" btw").or_else(|| c.strip_suffix(" by the way")).unwrap_or(c))
        .filter(|c| states_dated_event(c, anchor))
        .map(|c| pin_plan_days(c, anchor))
        .collect();
    if events.is_empty() {
        return None;
    }
    let cjk = events.iter().any(|c| c.chars().any(is_cjk));
    let (join, stop) = if cjk { ("，", "。") } else { ("; ", ".") };
    Some(format!("{}{stop}", crate::render::capitalise_first(&events.join(join))))
}

fn states_dated_event(clause: &str, anchor: Date) -> bool {
    let cjk = clause.chars().filter(|&c| is_cjk(c)).count();
    let words = clause.split_whitespace().count();
    if words < 3 && cjk < 4 {
        return false;
    }
    if NOT_A_STATEMENT.is_match(clause) || INCIDENT.is_match(clause) {
        return false;
    }
    let Some(event) = EVENT.find(clause) else { return false };
    let dated = !dates::find_relative(clause, anchor).is_empty()
        || !dates::find_absolute(clause, anchor).is_empty()
        || !plan_days(clause, anchor).is_empty();
    // "后天提审": in Chinese the day before the event is the whole statement.
    if dated && cjk >= 2 {
        return true;
    }
    // The day must belong to the event: "the beta opens Saturday", not "Saturday I fixed the
    // beta's login and …" (a scheduling verb after the event word, or the day before it).
    // "The redesign ships Friday", "… by Friday": the event word schedules itself.
    dated
        && (SCHEDULED.is_match(event.as_str())
            || SCHEDULED.is_match(&clause[event.end()..])
            || SCHEDULED.is_match(&clause[..event.start()]))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn day() -> Date {
        jiff::civil::date(2026, 9, 10)
    }

    #[test]
    fn the_event_and_its_day_are_kept_and_the_order_is_cut() {
        let cases = [
            (
                "Design review for the schedule API is Wednesday, so I want the BackupSchedule controller working by then.",
                "Design review for the schedule API is Wednesday (2026-09-16).",
            ),
            (
                "We have a demo with the clinic tomorrow so I'd love the backend working today.",
                "We have a demo with the clinic tomorrow.",
            ),
            ("Upgrade cutover is Saturday night.", "Upgrade cutover is Saturday (2026-09-12) night."),
            ("1.0 launch is Friday (both stores).", "1.0 launch is Friday (2026-09-11) (both stores)."),
            (
                "The redesign ships Friday next week btw, so this needs to be in Storybook.",
                "The redesign ships Friday next week (2026-09-18).",
            ),
            (
                "We need a TestFlight build for the team by Friday.",
                "We need a TestFlight build for the team by Friday (2026-09-11).",
            ),
            (
                "月底前要把所有服务的日志迁到 SLS，先出个方案。",
                "月底 (2026-09-30)前要把所有服务的日志迁到 SLS。",
            ),
            (
                "The beta opens to the hiking club on Saturday, ~40 people.",
                "The beta opens to the hiking club on Saturday (2026-09-12), ~40 people.",
            ),
            (
                "We're prepping for the external pentest, which starts on Monday the 14th.",
                "We're prepping for the external pentest, which starts on Monday the 14th.",
            ),
            ("launch is Thursday 😬", "Launch is Thursday (2026-09-17) 😬."),
            (
                "The experiment ends Sunday. Wire the split in the router.",
                "The experiment ends Sunday (2026-09-13).",
            ),
            ("We upgrade prod on Thursday next week.", "We upgrade prod on Thursday next week (2026-09-17)."),
            (
                "The readout is a week from tomorrow, so we have six days.",
                "The readout is a week from tomorrow (2026-09-18).",
            ),
            (
                "The dbt upgrade is due by the end of the month.",
                "The dbt upgrade is due by the end of the month (2026-09-30).",
            ),
            ("后天提审，今天要把订单确认页做完。", "后天提审。"),
            ("定了：正式全量上线放在下周五。", "正式全量上线放在下周五。"),
            ("排期定了：这周五 code freeze，下周一发版。", "这周五 code freeze，下周一发版。"),
            (
                "I'm presenting in 10 min so quick: the 3.0 docs launch is Tuesday.",
                "The 3.0 docs launch is Tuesday (2026-09-15).",
            ),
        ];
        for (said, kept) in cases {
            let first = crate::text::split_sentences(said)[0].to_string();
            assert_eq!(dated_event(&first, day()).as_deref(), Some(kept), "{said}");
        }
    }

    #[test]
    fn orders_incidents_and_the_users_own_day_are_not_dated_events() {
        for said in [
            "Run pg_upgrade --check against the 16 binaries on Friday.",
            "Can you get the release build ready by Friday?",
            "I have a dentist appointment at 3 so let's get the migration done first.",
            "The deploy failed yesterday after the upgrade.",
            "Cutover went fine, we're on 16.",
            "The release pipeline uses GoReleaser.",
            "今天实验室停电，板子都用不了。",
        ] {
            assert_eq!(dated_event(said, day()), None, "{said}");
        }
    }
}
