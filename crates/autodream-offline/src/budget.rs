//! Prune: fill the size budget with the facts most worth keeping.
//!
//! The budget is a share (`memory_budget_ratio`) of all input reviewed so far, capped by
//! `memory_budget_max_bytes`. Facts are chosen greedily by worth per byte: salience ×
//! recency × a weight (how it was said, pinned notes first, superseded history last),
//! divided by the bytes the fact adds — a fact joining a line already started costs less
//! than one opening it, so the greedy requeues a day's facts when a line opens.

use std::cmp::Reverse;
use std::collections::{BinaryHeap, HashMap, HashSet};

use jiff::civil::Date;

use crate::fact::{Fact, Origin};
use crate::salience::Scored;

/// Pinned facts (daily-log notes, "remember …", hand edits) are worth this much more.
const PINNED_WEIGHT: f32 = 4.0;
/// Superseded facts are history: kept when there is room.
const SUPERSEDED_WEIGHT: f32 = 0.3;
/// At most this many facts share the cost of opening a line or a day, for ranking.
const OPENING_SHARERS: usize = 4;
/// Recency: a fact learned today weighs 1; the weight falls to `RECENCY_FLOOR` with age.
const RECENCY_FLOOR: f32 = 0.9;
const RECENCY_DAYS: f32 = 180.0;

/// The budget in bytes for the whole memory (index and topic files).
pub fn budget_bytes(reviewed_bytes: u64, ratio: f64, max_bytes: u64, floor: u64) -> u64 {
    let share = (reviewed_bytes as f64 * ratio.clamp(0.0, 1.0)).floor() as u64;
    share.max(floor).min(max_bytes)
}

/// Weight of a fact learned on `date`, seen from `today`.
pub fn recency(date: Date, today: Date) -> f32 {
    let age = (today - date).get_days().max(0) as f32;
    RECENCY_FLOOR + (1.0 - RECENCY_FLOOR) * (-age / RECENCY_DAYS).exp()
}

fn weight(f: &Fact) -> f32 {
    let mut w = f.context;
    if f.pinned {
        w *= PINNED_WEIGHT;
    }
    if f.superseded_on.is_some() {
        w *= SUPERSEDED_WEIGHT;
    }
    w
}

/// Chooses facts for `available` bytes. Hand-edited facts are always kept (their cost is
/// taken first). Returns the keep flags and each fact's static priority (worth per byte of
/// a line of its own), used to trim when the rendered size overshoots.
pub fn select(facts: &[Fact], scores: &[Scored], available: usize, today: Date) -> (Vec<bool>, Vec<f32>) {
    let n = facts.len();
    let worth: Vec<f32> = facts
        .iter()
        .zip(scores)
        .map(|(f, s)| s.value.max(0.0) * recency(f.date, today) * weight(f))
        .collect();
    let static_priority: Vec<f32> = facts.iter().zip(&worth).map(|(f, w)| w / f.line_cost() as f32).collect();
    let mut keep = vec![false; n];
    let mut done = vec![false; n];
    let mut remaining = available as i64;
    // Lines already opened: (topic, group, day).
    let mut open_lines: HashSet<(&str, u64, Date)> = HashSet::new();
    let mut by_day: HashMap<(&str, Date), Vec<usize>> = HashMap::new();
    for (i, f) in facts.iter().enumerate() {
        by_day.entry((f.topic.as_str(), f.date)).or_default().push(i);
    }
    // The bytes a fact adds now: its text, plus the line prefix when it would be the first
    // of its line.
    let cost = |f: &Fact, open_lines: &HashSet<(&str, u64, Date)>| {
        if f.superseded_on.is_some() || f.origin == Origin::Edited {
            return (f.line_cost(), 0);
        }
        if open_lines.contains(&(f.topic.as_str(), f.group, f.date)) {
            (f.join_cost(), 0)
        } else {
            (f.join_cost(), f.line_cost() - f.join_cost())
        }
    };
    // For ranking, a line's opening cost is shared by the facts of its day that may join
    // it: charged whole to the first, it would keep a line of several good facts from ever
    // opening because no single one of them pays for the prefix.
    let sharers = |f: &Fact| by_day[&(f.topic.as_str(), f.date)].len().clamp(1, OPENING_SHARERS) as f32;
    for (i, f) in facts.iter().enumerate().filter(|(_, f)| f.origin == Origin::Edited) {
        let (text, opening) = cost(f, &open_lines);
        remaining -= (text + opening) as i64;
        keep[i] = true;
        done[i] = true;
    }
    let priority = |i: usize, ol: &HashSet<(&str, u64, Date)>| {
        let (text, opening) = cost(&facts[i], ol);
        (worth[i] / (text as f32 + opening as f32 / sharers(&facts[i]))).to_bits()
    };
    // Priorities are non-negative floats, whose bit patterns order like the floats.
    let mut heap: BinaryHeap<(u32, Reverse<usize>)> =
        (0..n).filter(|&i| !done[i]).map(|i| (priority(i, &open_lines), Reverse(i))).collect();
    while let Some((bits, Reverse(i))) = heap.pop() {
        // Opening a line only makes facts cheaper, so a fact's newest entry is its highest:
        // anything else popped is a stale entry of a fact already decided.
        if done[i] || bits != priority(i, &open_lines) {
            continue;
        }
        done[i] = true;
        let f = &facts[i];
        let (text, opening) = cost(f, &open_lines);
        let c = text + opening;
        if c as i64 > remaining {
            continue;
        }
        keep[i] = true;
        remaining -= c as i64;
        if f.superseded_on.is_some() {
            continue;
        }
        if open_lines.insert((f.topic.as_str(), f.group, f.date)) {
            // The line's other facts just became cheaper: queue them at their new worth.
            for &j in &by_day[&(f.topic.as_str(), f.date)] {
                if !done[j] {
                    heap.push((priority(j, &open_lines), Reverse(j)));
                }
            }
        }
    }
    (keep, static_priority)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::salience::Scorer;

    fn fact(text: &str, date: &str, group: u64) -> Fact {
        Fact { group, ..Fact::new("t", date.parse().unwrap(), text, Origin::New, "s") }
    }

    #[test]
    fn budget_is_a_share_with_floor_and_cap() {
        assert_eq!(budget_bytes(100_000, 0.2, 1 << 20, 4096), 20_000);
        assert_eq!(budget_bytes(1_000, 0.2, 1 << 20, 4096), 4096);
        assert_eq!(budget_bytes(10_000_000, 0.2, 262_144, 4096), 262_144);
    }

    #[test]
    fn recency_weighs_new_facts_more_but_never_below_the_floor() {
        let today: Date = "2024-01-01".parse().unwrap();
        assert!((recency(today, today) - 1.0).abs() < 1e-6);
        let old = recency("2020-01-01".parse().unwrap(), today);
        assert!((RECENCY_FLOOR..RECENCY_FLOOR + 0.01).contains(&old));
    }

    #[test]
    fn greedy_prefers_informative_facts_and_respects_the_budget() {
        let scorer = Scorer::new(["Jon"]);
        let facts = vec![
            fact("Jon thinks it is really great and so awesome.", "2023-01-01", 1),
            fact("Jon opened a dance studio in Rome with Marley flooring.", "2023-01-01", 2),
            fact("Jon visited Paris and Rome.", "2023-01-02", 3),
            fact("Jon loves the Lean Startup by Eric Ries.", "2023-01-03", 4),
        ];
        let scores: Vec<_> = facts.iter().map(|f| scorer.score(&f.text)).collect();
        let today: Date = "2023-01-03".parse().unwrap();
        let budget = facts[1].line_cost() + facts[3].line_cost();
        let (keep, _) = select(&facts, &scores, budget, today);
        // Small talk is never worth its bytes; two of the three informative facts fit.
        assert!(!keep[0]);
        assert_eq!(keep.iter().filter(|k| **k).count(), 2);
        let used: usize = facts.iter().zip(&keep).filter(|(_, k)| **k).map(|(f, _)| f.line_cost()).sum();
        assert!(used <= budget);
        // With room for everything, everything informative is kept.
        let (all, _) = select(&facts, &scores, 10_000, today);
        assert_eq!(all, [true, true, true, true]);
    }

    #[test]
    fn joining_an_open_line_is_cheaper_than_opening_one() {
        let scorer = Scorer::default();
        let mut a = fact("Kundalini yoga helps.", "2023-01-01", 7);
        let mut b = fact("Aerial yoga too.", "2023-01-01", 7);
        a.seq = 0;
        b.seq = 1;
        let facts = vec![a, b];
        let scores: Vec<_> = facts.iter().map(|f| scorer.score(&f.text)).collect();
        let budget = facts[0].line_cost() + facts[1].join_cost();
        let (keep, _) = select(&facts, &scores, budget, "2023-01-01".parse().unwrap());
        assert_eq!(keep, [true, true]);
    }

    #[test]
    fn edited_facts_are_always_kept() {
        let scorer = Scorer::default();
        let mut e = fact("2023-01-01: my own note", "2023-01-01", 1);
        e.origin = Origin::Edited;
        let facts = vec![e, fact("Kundalini yoga.", "2023-01-01", 2)];
        let scores: Vec<_> = facts.iter().map(|f| scorer.score(&f.text)).collect();
        let (keep, _) = select(&facts, &scores, 5, "2023-01-01".parse().unwrap());
        assert_eq!(keep, [true, false]);
    }
}
