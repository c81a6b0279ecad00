//! The fact: the unit the engine gathers, merges, supersedes, budgets and writes.
//!
//! A fact is one sentence (or clause) with the day it was learned and the topic file it
//! belongs to. Facts that came from the same turn share a `group` and are written on one
//! line, so a line reads like the original statement with its noise removed.

use jiff::civil::Date;

use autodream_core::memdir::topic::MemoryType;

/// Where a fact came from in this dream.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Origin {
    /// Extracted from this dream's sessions or daily-log entries.
    New,
    /// A line the engine wrote into a topic file in an earlier dream.
    Kept,
    /// A line the budget moved to `.archive/` in an earlier dream.
    Archived,
    /// A line in one of our topic files that we did not write (a hand edit): kept verbatim.
    Edited,
}

/// A topic file: who or what it is about, and its memory type.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TopicInfo {
    /// File stem (`caroline` → `caroline.md`).
    pub slug: String,
    /// Title and front matter `name`.
    pub title: String,
    pub kind: MemoryType,
    /// The person the file is about, when it is a person's file (facts are attributed to them).
    pub person: Option<String>,
}

impl TopicInfo {
    pub fn file_name(&self) -> String {
        format!("{}.md", self.slug)
    }
}

/// One fact.
#[derive(Debug, Clone, PartialEq)]
pub struct Fact {
    /// Topic slug.
    pub topic: String,
    /// The day the fact was learned.
    pub date: Date,
    /// Final text (attributed, dates annotated, redacted).
    pub text: String,
    /// Facts with the same group are written on one line, in `seq` order.
    pub group: u64,
    /// Position within the line: statement line, sentence and clause, packed.
    pub seq: u64,
    /// The text that joined this clause to the previous clause of its sentence (", ",
    /// " - ", " "); empty when the fact starts a sentence.
    pub lead: String,
    pub origin: Origin,
    /// Where it was learned (session id, log file, or the topic file it was read from).
    pub source: String,
    /// How much the fact is worth keeping, before recency (see [`crate::salience`]).
    pub salience: f32,
    /// Set when a newer fact on the same subject and attribute replaced this one: the
    /// newer fact's date.
    pub superseded_on: Option<Date>,
    /// A bonus for facts the user asked to keep or wrote themselves (daily-log notes,
    /// "remember …" requests): they are pruned last.
    pub pinned: bool,
    /// How the statement was made, as a weight on salience: information given in reply to
    /// a question, or as the news that opens a conversation, is what people ask about later.
    pub context: f32,
}

impl Fact {
    /// A fact of `topic` learned on `date`, on a line of its own, with no weight of its own
    /// yet: the caller sets what differs (group and position, salience, context, …).
    pub fn new(topic: &str, date: Date, text: &str, origin: Origin, source: &str) -> Fact {
        Fact {
            topic: topic.to_string(),
            date,
            text: text.to_string(),
            group: 0,
            seq: 0,
            lead: String::new(),
            origin,
            source: source.to_string(),
            salience: 0.0,
            superseded_on: None,
            pinned: false,
            context: 1.0,
        }
    }

    /// Bytes this fact adds when it starts a new line: `- 8 May 2023: text\n`.
    pub fn line_cost(&self) -> usize {
        if self.origin == Origin::Edited {
            // Hand-edited lines are written back exactly as they were: `- text\n`.
            return 2 + self.text.len() + 1;
        }
        let day = crate::dates::long_date(self.date).len();
        match self.superseded_on {
            // `- 8 May 2023 (superseded 1 June 2023): text\n`
            Some(on) => 2 + day + 13 + crate::dates::long_date(on).len() + 3 + self.text.len() + 2,
            None => 2 + day + 2 + self.text.len() + 2,
        }
    }

    /// Bytes this fact adds when it joins a line already started by its group (its
    /// separator, its text, a terminator).
    pub fn join_cost(&self) -> usize {
        self.lead.len().max(1) + self.text.len() + 1
    }
}
