//! Rule tables scanned in one pass: the engine shared by the secret redactor
//! ([`crate::redact`]) and the relative-date resolver of the offline engine.
//!
//! Both keep a table of rules, each a regular expression plus whatever decides what its
//! match means (a Rust function, a kind ...), because some decisions need more than a
//! pattern can say: the text around the match (the regex engine has no look-around), or
//! a calendar. A [`RuleSet`] compiles the whole table into one regular expression with
//! one capture group wrapping each rule, so a scan is one pass over the text whatever
//! the number of rules, and [`RuleSet::scan`] hands each match to the caller as a [`Hit`]
//! that sees only its own rule's capture groups.
//!
//! A scan takes the leftmost match; when several rules match there, the first one in
//! table order wins. The caller accepts the match by saying where scanning continues,
//! or rejects it, and then a shorter match may still start one character later.

use regex::{CaptureLocations, Regex};

/// A table of rules compiled into one regular expression. `R` is what the caller attached
/// to each pattern (a function, a kind, ...).
pub struct RuleSet<R> {
    regex: Regex,
    /// The rules in table order, each with the capture group that wraps it in `regex`
    /// (visible in the crate so that tests can check what a table compiled to).
    pub(crate) rules: Vec<(usize, R)>,
}

impl<R> RuleSet<R> {
    /// Compiles `(pattern, rule)` pairs, in table order: earlier rules win ties.
    ///
    /// # Panics
    /// If a pattern is not a valid regular expression: rule tables are built into the
    /// program, so that is a programming error.
    pub fn compile<P: AsRef<str>>(rules: impl IntoIterator<Item = (P, R)>) -> RuleSet<R> {
        let mut combined = String::new();
        let mut compiled = Vec::new();
        let mut next_group = 1;
        for (pattern, rule) in rules {
            let pattern = pattern.as_ref();
            let own = Regex::new(pattern)
                .unwrap_or_else(|error| panic!("built-in rule pattern {pattern:?} is invalid: {error}"));
            if !combined.is_empty() {
                combined.push('|');
            }
            combined.push('(');
            combined.push_str(pattern);
            combined.push(')');
            compiled.push((next_group, rule));
            next_group += own.captures_len();
        }
        let regex = Regex::new(&combined).expect("built-in rule patterns combine");
        RuleSet { regex, rules: compiled }
    }

    /// Runs the rules over `text`, left to right, allocating nothing when nothing matches.
    ///
    /// For each match, `decide` gets the rule that matched and the [`Hit`], and returns
    /// where scanning continues (past the match, or past what the rule ruled out), or
    /// `None` to reject the match. After a rejection, or a position not past the start
    /// of the match, scanning goes on one character after the start of the match.
    pub fn scan(&self, text: &str, mut decide: impl FnMut(&R, &Hit<'_>) -> Option<usize>) {
        let Some(first) = self.regex.find(text) else {
            return;
        };
        let mut locations = self.regex.capture_locations();
        let mut position = first.start();
        while position < text.len() {
            let Some(found) = self.regex.captures_read_at(&mut locations, text, position) else {
                break;
            };
            let (start, end) = (found.start(), found.end());
            let next = self.rules.iter().find(|(group, _)| locations.get(*group).is_some()).and_then(
                |(group, rule)| {
                    decide(rule, &Hit { text, locations: &locations, group_base: *group, start, end })
                },
            );
            position = match next {
                Some(next) if next > start => next,
                // Rejected: a shorter match may still start one character later.
                _ => start + text[start..].chars().next().map_or(1, char::len_utf8),
            };
        }
    }
}

/// One rule's view of a match: its own capture groups, numbered from 1 (0 is the whole
/// match), and the text around the match. Offsets are bytes into the scanned text.
pub struct Hit<'a> {
    text: &'a str,
    locations: &'a CaptureLocations,
    group_base: usize,
    start: usize,
    end: usize,
}

impl<'a> Hit<'a> {
    /// Where the match starts.
    pub fn start(&self) -> usize {
        self.start
    }

    /// Where the match ends.
    pub fn end(&self) -> usize {
        self.end
    }

    /// The matched text.
    pub fn as_str(&self) -> &'a str {
        &self.text[self.start..self.end]
    }

    /// Where the rule's capture group `k` matched, if it took part in the match.
    pub fn span(&self, k: usize) -> Option<(usize, usize)> {
        self.locations.get(self.group_base + k)
    }

    /// The text of the rule's capture group `k`, if it took part in the match.
    pub fn group(&self, k: usize) -> Option<&'a str> {
        self.span(k).map(|(start, end)| &self.text[start..end])
    }

    /// Where the rule's capture group `k` starts, if it took part in the match.
    pub fn group_start(&self, k: usize) -> Option<usize> {
        self.span(k).map(|(start, _)| start)
    }

    /// The text before the match.
    pub fn before(&self) -> &'a str {
        &self.text[..self.start]
    }

    /// The text after the match.
    pub fn rest(&self) -> &'a str {
        &self.text[self.end..]
    }

    /// The character right before the match.
    pub fn char_before(&self) -> Option<char> {
        self.before().chars().next_back()
    }

    /// The character right after the match.
    pub fn char_after(&self) -> Option<char> {
        self.rest().chars().next()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Scans `text`, deciding with `decide`, and lists each accepted match as `rule: text`.
    fn accepted(set: &RuleSet<&str>, text: &str, decide: impl Fn(&Hit<'_>) -> Option<usize>) -> Vec<String> {
        let mut found = Vec::new();
        set.scan(text, |rule, hit| {
            let next = decide(hit)?;
            found.push(format!("{rule}: {}", hit.as_str()));
            Some(next)
        });
        found
    }

    #[test]
    fn the_first_rule_in_table_order_wins_and_sees_only_its_own_groups() {
        let set = RuleSet::compile([(r"(a)(b)", "ab"), (r"a(b)", "ab-again"), (r"(x)y", "xy")]);
        assert_eq!(set.rules.iter().map(|(group, _)| *group).collect::<Vec<_>>(), [1, 4, 6]);
        let mut seen = Vec::new();
        set.scan("ab xy", |rule, hit| {
            let groups = (hit.group(0), hit.group(1), hit.group(2), hit.group_start(1));
            seen.push(format!("{rule}: {groups:?}"));
            Some(hit.end())
        });
        assert_eq!(
            seen,
            [
                r#"ab: (Some("ab"), Some("a"), Some("b"), Some(0))"#,
                r#"xy: (Some("xy"), Some("x"), None, Some(3))"#
            ]
        );
    }

    #[test]
    fn a_rejected_match_is_retried_one_character_later() {
        let set = RuleSet::compile([(r"[a-zé]+", "word")]);
        // Rejecting words of more than two letters finds their last two letters; the retry
        // steps over a whole character, not one byte.
        let two_letters = |hit: &Hit<'_>| (hit.as_str().chars().count() <= 2).then(|| hit.end());
        assert_eq!(accepted(&set, "éab bcd", two_letters), ["word: ab", "word: cd"]);
    }

    #[test]
    fn scanning_continues_where_the_rule_says() {
        let set = RuleSet::compile([(r"\d+", "number")]);
        // Continuing past "12 34" skips "34".
        let skip_one = |hit: &Hit<'_>| Some(if hit.as_str() == "12" { hit.end() + 3 } else { hit.end() });
        assert_eq!(accepted(&set, "12 34 56", skip_one), ["number: 12", "number: 56"]);
        // A position not past the start of the match is a rejection: retried one character on.
        let stay = |hit: &Hit<'_>| Some(hit.start());
        assert_eq!(accepted(&set, "12", stay), ["number: 12", "number: 2"]);
    }

    #[test]
    fn a_rule_sees_the_text_around_its_match() {
        let set = RuleSet::compile([(r"b", "b")]);
        let mut calls = 0;
        set.scan("aé b c", |_, hit| {
            calls += 1;
            assert_eq!((hit.before(), hit.rest()), ("aé ", " c"));
            assert_eq!((hit.char_before(), hit.char_after()), (Some(' '), Some(' ')));
            assert_eq!(hit.span(0), Some((hit.start(), hit.end())));
            None
        });
        assert_eq!(calls, 1);
        set.scan("no match here", |_, _| panic!("nothing matches"));
    }
}
