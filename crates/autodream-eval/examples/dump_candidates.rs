//! Dumps the candidate facts the engine extracts from LoCoMo conversations, one JSON object
//! per line with the features salience uses, for studying the ranking offline.
//!
//! ```sh
//! cargo run --release -p autodream-eval --example dump_candidates -- DATA.json OUT_DIR > facts.jsonl
//! ```

use std::path::PathBuf;

use autodream_core::sessions::{SessionFormat, parse_session_file, session_file_for};
use autodream_eval::locomo;
use autodream_offline::extract::{Topics, extract};
use autodream_offline::gather::{Voice, gather};
use autodream_offline::salience::Scorer;
use autodream_offline::text::{surprise_of_key, word_key, words};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (data, out) = match args.as_slice() {
        [d, o] => (PathBuf::from(d), PathBuf::from(o)),
        _ => return Err("usage: dump_candidates DATA.json OUT_DIR".into()),
    };
    for sample in locomo::load(&data)? {
        let sessions = locomo::write_sessions(&sample, &out)?;
        let mut parsed = Vec::new();
        for s in &sessions {
            parsed.push(parse_session_file(&session_file_for(&s.path)?, SessionFormat::Generic)?);
        }
        let now = sessions.last().map(|s| s.start).unwrap_or_default();
        let g = gather(&parsed, &[], now, &jiff::tz::TimeZone::UTC, &|t| (t.to_string(), 0));
        let mut people: Vec<String> = g
            .statements
            .iter()
            .filter_map(|s| if let Voice::Person(p) = &s.voice { Some(p.clone()) } else { None })
            .collect();
        people.sort();
        people.dedup();
        let scorer = Scorer::new(&people);
        let mut topics = Topics::default();
        let ex = extract(&g.statements, &mut topics, &people, &scorer);
        let mut scores: Vec<_> = ex
            .facts
            .iter()
            .map(|f| {
                let subject = topics.by_slug.get(&f.topic).and_then(|t| t.person.clone());
                scorer.score_about(&f.text, subject.as_deref())
            })
            .collect();
        autodream_offline::salience::discount_repeated_words(&mut scores);
        for (f, s) in ex.facts.iter().zip(&scores) {
            let line = serde_json::json!({
                "sample": sample.sample_id, "topic": f.topic, "date": f.date.to_string(), "group": f.group,
                "seq": f.seq, "text": f.text, "value": s.value, "words": s.words, "factor": s.factor,
                "keys": s.keys.iter().map(|(k, v)| serde_json::json!([format!("{k:x}"), v])).collect::<Vec<_>>(),
                "context": f.context,
                "tokens": words(&f.text).iter().map(|w| { let k = word_key(w.text); let n = surprise_of_key(&k); serde_json::json!([k, n, w.text.chars().next().is_some_and(char::is_uppercase)]) }).collect::<Vec<_>>(),
            });
            println!("{line}");
        }
    }
    Ok(())
}
