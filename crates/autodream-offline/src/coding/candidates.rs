//! Candidates: statements heard but not yet worth a line in memory.
//!
//! A statement whose confidence ([`super::confidence`]) is under the threshold is not thrown
//! away: it waits in the engine's record (engine state, never the memory folder) with its
//! evidence. When it is heard again in another session, each further session adds to its
//! log-odds, and once it clears the threshold it is written like any other fact. A candidate
//! not heard again for [`EXPIRE_DAYS`] expires; the record holds at most [`MAX_CANDIDATES`],
//! the most confident first.

use std::collections::{BTreeMap, BTreeSet};

use jiff::civil::Date;

use super::confidence::{Evidence, MODEL};
use super::memo::{Source, key_of};
use super::provenance::{Candidate, Provenance};
use super::said::{Said, SaidIn};

/// Days a candidate waits for more evidence.
pub const EXPIRE_DAYS: i64 = 90;
/// The most candidates the record keeps.
pub const MAX_CANDIDATES: usize = 500;

/// The session (or log file) a sentence was said in.
pub fn session_of(source: &SaidIn) -> &str {
    match source {
        SaidIn::Session { id, .. } => id,
        SaidIn::Log { file, .. } => file,
    }
}

/// Where each statement was heard: the candidates' record plus this dream's sentences.
#[derive(Debug, Default)]
pub struct Heard {
    sessions: BTreeMap<String, BTreeSet<String>>,
}

impl Heard {
    /// Gathers, by the statement's comparison key, the sessions that said it: those the record
    /// remembers and those of `texts` (the kept text of each candidate and where it was said).
    pub fn new<'a>(record: &Provenance, texts: impl IntoIterator<Item = (&'a str, &'a SaidIn)>) -> Heard {
        let mut sessions: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
        for (key, c) in &record.candidates {
            sessions.entry(key.clone()).or_default().extend(c.sessions.iter().cloned());
        }
        for (text, source) in texts {
            sessions.entry(key_of(text)).or_default().insert(session_of(source).to_string());
        }
        Heard { sessions }
    }

    /// In how many sessions was `text` said (at least one)?
    pub fn sessions(&self, text: &str) -> usize {
        self.sessions.get(&key_of(text)).map_or(1, |s| s.len().max(1))
    }
}

/// The verdict of the threshold on one candidate.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Judged {
    pub confidence: f32,
    pub admitted: bool,
}

/// Judges a candidate said in `sessions` sessions. A daily-log note is always admitted: the
/// agent chose to write it down, and a note kept by per-turn extraction already passed.
pub fn judge(e: &Evidence<'_>, sessions: usize, note: bool) -> Judged {
    let confidence = MODEL.confidence(e, sessions);
    Judged { confidence, admitted: note || confidence >= MODEL.threshold }
}

/// Holds a candidate back in the record, with its evidence.
pub fn hold(record: &mut Provenance, text: &str, said: &Said, e: &Evidence<'_>, source: Source) {
    let key = key_of(text);
    let (for_it, against) = MODEL.strongest(e, 3);
    let confidence = MODEL.confidence(e, 1);
    let day = said.date.to_string();
    let c = record.candidates.entry(key).or_insert_with(|| Candidate {
        text: text.to_string(),
        confidence,
        sessions: Vec::new(),
        sources: Vec::new(),
        last_seen: day.clone(),
        for_it: Vec::new(),
        against: Vec::new(),
    });
    let session = session_of(&said.source).to_string();
    if !c.sessions.contains(&session) {
        c.sessions.push(session);
    }
    if !c.sources.contains(&source) {
        c.sources.push(source);
    }
    c.confidence = c.confidence.max(confidence);
    c.last_seen = c.last_seen.clone().max(day);
    c.for_it = for_it.iter().map(|s| s.to_string()).collect();
    c.against = against.iter().map(|s| s.to_string()).collect();
}

/// Forgets a candidate that became a fact.
pub fn promoted(record: &mut Provenance, text: &str) {
    record.candidates.remove(&key_of(text));
}

/// Drops candidates not heard for [`EXPIRE_DAYS`], then the least confident over
/// [`MAX_CANDIDATES`].
pub fn expire(record: &mut Provenance, today: Date) {
    let cutoff = today.checked_sub(jiff::Span::new().days(EXPIRE_DAYS)).unwrap_or(today).to_string();
    record.candidates.retain(|_, c| c.last_seen >= cutoff);
    if record.candidates.len() > MAX_CANDIDATES {
        let mut by: Vec<(String, f32, usize)> =
            record.candidates.iter().map(|(k, c)| (k.clone(), c.confidence, c.sessions.len())).collect();
        by.sort_by(|a, b| b.2.cmp(&a.2).then(b.1.total_cmp(&a.1)));
        for (k, _, _) in by.into_iter().skip(MAX_CANDIDATES) {
            record.candidates.remove(&k);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::coding::durable::Kind;
    use crate::coding::pasted::TurnForm;

    fn said(text: &str, session: &str, date: Date) -> Said {
        Said {
            text: text.to_string(),
            at: jiff::Timestamp::UNIX_EPOCH,
            date,
            source: SaidIn::Session { id: session.to_string(), line: 3 },
            index: 0,
            note: false,
            form: TurnForm::default(),
            confirmed: false,
        }
    }

    #[test]
    fn a_candidate_said_in_more_sessions_gains_and_an_old_one_expires() {
        let mut record = Provenance::default();
        let day = jiff::civil::date(2026, 3, 2);
        let text = "The nightly export job writes to the archive bucket.";
        let form = TurnForm { chars: 900, paragraphs: 4, lines: 8, sentences: 9, ..TurnForm::default() };
        for session in ["a", "b"] {
            let s = said(text, session, day);
            let e = Evidence { sentence: text, index: 3, form: &form, kind: Kind::Fact };
            hold(&mut record, text, &s, &e, Source { from: session.into(), at: String::new(), line: 3 });
        }
        let c = &record.candidates[&key_of(text)];
        assert_eq!(c.sessions, ["a", "b"]);
        let heard = Heard::new(&record, []);
        assert_eq!(heard.sessions(text), 2);
        let e = Evidence { sentence: text, index: 3, form: &form, kind: Kind::Fact };
        assert!(judge(&e, 3, false).confidence > judge(&e, 1, false).confidence);
        assert!(judge(&e, 1, true).admitted, "a note is always admitted");
        expire(&mut record, day.checked_add(jiff::Span::new().days(EXPIRE_DAYS - 1)).unwrap());
        assert_eq!(record.candidates.len(), 1);
        expire(&mut record, day.checked_add(jiff::Span::new().days(EXPIRE_DAYS + 1)).unwrap());
        assert!(record.candidates.is_empty());
        promoted(&mut record, text);
    }
}
