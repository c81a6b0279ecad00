//! Near-duplicate merging: MinHash over token shingles with banded locality-sensitive
//! hashing, then an exact Jaccard check on the candidate pairs.
//!
//! Tokens are lowercase words plus CJK character bigrams (Chinese has no spaces), date
//! annotations left out; shingles are single tokens and adjacent pairs, so a reworded
//! sentence ("went to the support group" / "went to a support group") still matches.
//! A cluster of duplicates keeps one fact: the richer wording, on the newest date. A hand
//! edit is never rewritten: a duplicate of it is dropped instead.

use std::collections::{BTreeSet, HashMap};

use crate::fact::{Fact, Origin};
use crate::text::{compare_tokens, is_function_word, stable_hash};

/// Facts whose shingle sets overlap at least this much are duplicates.
pub const DUPLICATE_JACCARD: f64 = 0.6;
/// A fact whose shingles lie this much inside a richer fact's says nothing more.
pub const DUPLICATE_CONTAINMENT: f64 = 0.8;
/// Containment is only trusted for facts with at least this many shingles.
const CONTAINMENT_MIN_SHINGLES: usize = 6;
const BANDS: usize = 10;
const ROWS: usize = 3;
const HASHES: usize = BANDS * ROWS;
/// A bucket this large is a very common shingle run: compare only its first members.
const MAX_BUCKET: usize = 64;

/// The shingle set of a text (hashes), its dates left out: a leading day (hand-edited lines
/// keep theirs in the text), annotations, and dates written in place of their words.
pub fn shingles(text: &str) -> BTreeSet<u64> {
    let text = crate::orient::without_line_day(text.trim_start());
    let stripped = crate::dates::without_dates(text);
    let toks: Vec<String> = compare_tokens(&stripped);
    let mut out = BTreeSet::new();
    for t in &toks {
        if !is_function_word(t) {
            out.insert(stable_hash(t.as_bytes()));
        }
    }
    for w in toks.windows(2) {
        out.insert(stable_hash(format!("{}\u{0}{}", w[0], w[1]).as_bytes()));
    }
    out
}

fn jaccard(a: &BTreeSet<u64>, b: &BTreeSet<u64>) -> f64 {
    let inter = a.intersection(b).count();
    let union = a.len() + b.len() - inter;
    if union == 0 { 0.0 } else { inter as f64 / union as f64 }
}

/// The resolved dates a text carries (its annotations): two mentions of "went camping"
/// on different dates are two events, not one fact said twice.
fn annotated_dates(text: &str) -> BTreeSet<String> {
    crate::dates::resolved_dates(text)
}

/// Are two facts (shingle sets and dates) the same fact?
fn same_fact(a: &BTreeSet<u64>, b: &BTreeSet<u64>, da: &BTreeSet<String>, db: &BTreeSet<String>) -> bool {
    if !da.is_empty() && !db.is_empty() && da != db {
        return false;
    }
    let inter = a.intersection(b).count();
    let small = a.len().min(b.len());
    jaccard(a, b) >= DUPLICATE_JACCARD
        || (small >= CONTAINMENT_MIN_SHINGLES && inter as f64 / small as f64 >= DUPLICATE_CONTAINMENT)
}

fn minhash(set: &BTreeSet<u64>) -> [u64; HASHES] {
    let mut sig = [u64::MAX; HASHES];
    for &h in set {
        for (i, slot) in sig.iter_mut().enumerate() {
            // A cheap independent-enough family: mix the shingle with a per-row constant.
            let x = (h ^ (0x9e37_79b9_7f4a_7c15u64.wrapping_mul(i as u64 + 1)))
                .wrapping_mul(0xff51_afd7_ed55_8ccd);
            let x = x ^ (x >> 33);
            if x < *slot {
                *slot = x;
            }
        }
    }
    sig
}

struct UnionFind(Vec<usize>);

impl UnionFind {
    fn find(&mut self, x: usize) -> usize {
        let mut r = x;
        while self.0[r] != r {
            r = self.0[r];
        }
        let mut c = x;
        while self.0[c] != r {
            let n = self.0[c];
            self.0[c] = r;
            c = n;
        }
        r
    }
    fn union(&mut self, a: usize, b: usize) {
        let (ra, rb) = (self.find(a), self.find(b));
        if ra != rb {
            // The smaller index is the root: deterministic whatever the union order.
            let (lo, hi) = if ra < rb { (ra, rb) } else { (rb, ra) };
            self.0[hi] = lo;
        }
    }
}

/// How rich a wording is: distinct informative tokens, then length.
fn richness(f: &Fact, sh: &BTreeSet<u64>) -> (usize, usize) {
    (sh.len(), f.text.len())
}

/// Merges near-duplicate facts within each topic; returns how many facts were merged away.
/// Superseded facts are history and are left alone. `extra` are texts from files the
/// engine does not own: new facts duplicating them are dropped.
pub fn merge_duplicates(facts: &mut Vec<Fact>, foreign: &[String]) -> usize {
    let n = facts.len();
    let sets: Vec<BTreeSet<u64>> = facts.iter().map(|f| shingles(&f.text)).collect();
    let dates: Vec<BTreeSet<String>> = facts.iter().map(|f| annotated_dates(&f.text)).collect();
    let foreign_sets: Vec<BTreeSet<u64>> =
        foreign.iter().map(|t| shingles(t)).filter(|s| !s.is_empty()).collect();
    let mut uf = UnionFind((0..n).collect());
    // Buckets keyed by (topic, band, band hash); foreign texts use topic "" and index n + k.
    let mut buckets: HashMap<(u64, usize, u64), Vec<usize>> = HashMap::new();
    let eligible = |f: &Fact| f.superseded_on.is_none();
    for (i, f) in facts.iter().enumerate() {
        if !eligible(f) || sets[i].is_empty() {
            continue;
        }
        let topic = stable_hash(f.topic.as_bytes());
        let sig = minhash(&sets[i]);
        for b in 0..BANDS {
            let key = stable_hash(bytemuck_band(&sig[b * ROWS..(b + 1) * ROWS]).as_slice());
            buckets.entry((topic, b, key)).or_default().push(i);
        }
    }
    let mut foreign_dupes = vec![false; n];
    if !foreign_sets.is_empty() {
        for (i, f) in facts.iter().enumerate() {
            if f.origin == Origin::New && !sets[i].is_empty() {
                let none = BTreeSet::new();
                foreign_dupes[i] = foreign_sets.iter().any(|s| same_fact(&sets[i], s, &dates[i], &none));
            }
        }
    }
    let mut keys: Vec<_> = buckets.keys().copied().collect();
    keys.sort_unstable();
    for key in keys {
        let members = &buckets[&key];
        let members = &members[..members.len().min(MAX_BUCKET)];
        for (a_pos, &a) in members.iter().enumerate() {
            for &b in &members[a_pos + 1..] {
                if uf.find(a) != uf.find(b) && same_fact(&sets[a], &sets[b], &dates[a], &dates[b]) {
                    uf.union(a, b);
                }
            }
        }
    }
    let mut clusters: HashMap<usize, Vec<usize>> = HashMap::new();
    for (i, f) in facts.iter().enumerate() {
        if eligible(f) {
            let r = uf.find(i);
            clusters.entry(r).or_default().push(i);
        }
    }
    let mut remove = vec![false; n];
    let mut roots: Vec<usize> = clusters.keys().copied().collect();
    roots.sort_unstable();
    for r in roots {
        let members = &clusters[&r];
        if members.len() < 2 {
            continue;
        }
        // The newest member decides date and line; an edited fact always survives as is.
        let newest = *members
            .iter()
            .max_by(|&&a, &&b| facts[a].date.cmp(&facts[b].date).then_with(|| b.cmp(&a)))
            .unwrap_or(&members[0]);
        let survivor =
            members.iter().copied().find(|&i| facts[i].origin == Origin::Edited).unwrap_or_else(|| {
                *members
                    .iter()
                    .max_by(|&&a, &&b| {
                        richness(&facts[a], &sets[a])
                            .cmp(&richness(&facts[b], &sets[b]))
                            .then_with(|| b.cmp(&a))
                    })
                    .unwrap_or(&members[0])
            });
        let pinned = members.iter().any(|&i| facts[i].pinned);
        let context = members.iter().map(|&i| facts[i].context).fold(1.0, f32::max);
        if facts[survivor].origin != Origin::Edited {
            let (date, group, seq) = (facts[newest].date, facts[newest].group, facts[newest].seq);
            // Was it in memory already? Then it still is (it was not learned anew).
            let origin = [Origin::Kept, Origin::Archived]
                .into_iter()
                .find(|o| members.iter().any(|&i| facts[i].origin == *o))
                .unwrap_or(Origin::New);
            let s = &mut facts[survivor];
            s.date = date;
            s.group = group;
            s.seq = seq;
            s.origin = origin;
        }
        facts[survivor].pinned = pinned;
        facts[survivor].context = context;
        for &m in members {
            if m != survivor {
                remove[m] = true;
            }
        }
    }
    let mut merged = 0;
    let mut i = 0;
    facts.retain(|_| {
        let drop = remove[i] || foreign_dupes[i];
        i += 1;
        if drop {
            merged += 1;
        }
        !drop
    });
    merged
}

fn bytemuck_band(rows: &[u64]) -> Vec<u8> {
    rows.iter().flat_map(|r| r.to_le_bytes()).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use jiff::civil::Date;

    #[test]
    fn shingles_leave_dates_out_however_they_are_written() {
        let plain = shingles("Jon went to Rome.");
        for dated in [
            "8 May 2023: Jon went to Rome.",
            "2023-05-08: Jon went to Rome.",
            "Jon went to Rome on 2023-05-07.",
            "Jon went to Rome yesterday (2023-05-07).",
        ] {
            let words = shingles(dated);
            assert!(plain.is_subset(&words) && words.len() <= plain.len() + 2, "{dated}");
        }
        assert_eq!(shingles("Jon went to Rome on 2023-05-07."), plain);
        assert_eq!(shingles("8 May 2023: Jon went to Rome."), plain);
    }

    fn fact(text: &str, date: &str, origin: Origin) -> Fact {
        Fact {
            group: stable_hash(text.as_bytes()),
            salience: 1.0,
            ..Fact::new("t", date.parse::<Date>().unwrap(), text, origin, "s")
        }
    }

    #[test]
    fn near_duplicates_merge_into_the_richer_wording_on_the_newest_date() {
        let mut facts = vec![
            fact("Caroline went to the LGBTQ support group.", "2023-05-08", Origin::Kept),
            fact("Caroline went to a LGBTQ support group and it was so powerful.", "2023-05-01", Origin::New),
            fact("Melanie ran a charity race for mental health.", "2023-05-25", Origin::New),
        ];
        let merged = merge_duplicates(&mut facts, &[]);
        assert_eq!(merged, 1);
        assert_eq!(facts.len(), 2);
        assert_eq!(facts[0].text, "Caroline went to a LGBTQ support group and it was so powerful.");
        assert_eq!(facts[0].date, "2023-05-08".parse::<Date>().unwrap());
        assert_eq!(facts[0].origin, Origin::Kept);
    }

    #[test]
    fn the_same_event_on_different_dates_is_two_facts() {
        let mut facts = vec![
            fact(
                "Melanie went camping with the kids last weekend (weekend of 2023-06-17).",
                "2023-06-27",
                Origin::New,
            ),
            fact(
                "Melanie went camping with the kids last weekend (weekend of 2023-07-08).",
                "2023-07-17",
                Origin::New,
            ),
        ];
        assert_eq!(merge_duplicates(&mut facts, &[]), 0);
    }

    #[test]
    fn cjk_duplicates_are_found_by_bigrams() {
        let mut facts = vec![
            fact("用户喜欢用变基而不是合并。", "2024-01-01", Origin::New),
            fact("用户喜欢用变基，而不是合并。", "2024-02-01", Origin::New),
            fact("项目在五月发布。", "2024-02-01", Origin::New),
        ];
        assert_eq!(merge_duplicates(&mut facts, &[]), 1);
        assert_eq!(facts.len(), 2);
    }

    #[test]
    fn edited_facts_survive_and_foreign_duplicates_drop_new_facts() {
        let mut facts = vec![
            fact("2023-01-01: Jon works at the bank downtown.", "2023-01-01", Origin::Edited),
            fact("Jon works at the bank downtown now.", "2023-02-01", Origin::New),
            fact("Gina opened an online clothing store.", "2023-03-16", Origin::New),
        ];
        let merged = merge_duplicates(&mut facts, &["Gina opened an online clothing store!".to_string()]);
        assert_eq!(merged, 2);
        assert_eq!(facts.len(), 1);
        assert_eq!(facts[0].origin, Origin::Edited);
        assert_eq!(facts[0].text, "2023-01-01: Jon works at the bank downtown.");
    }
}
