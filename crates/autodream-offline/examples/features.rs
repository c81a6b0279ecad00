//! Prints the confidence features of every candidate the rules keep in the given session
//! transcripts, one JSON object a line: the transcript's file name, the entry's line, the
//! sentence (those the engine drops as pasted text left out), the kind the rules gave it, the feature vector and the shipped model's
//! confidence. `scripts/precision/train.py` learns the weights from this output.
//!
//! `cargo run --release -p autodream-offline --example features -- SESSION.jsonl …`

use std::path::Path;

use autodream_core::sessions::{SessionFormat, parse_session, session_file_for};
use autodream_offline::coding::confidence::{self, Evidence, MODEL};
use autodream_offline::coding::durable::{self, Verdict};
use autodream_offline::coding::pasted;
use autodream_offline::coding::said::{self, SaidIn};

fn main() {
    let now = jiff::Timestamp::now();
    let tz = jiff::tz::TimeZone::UTC;
    for arg in std::env::args().skip(1) {
        let path = Path::new(&arg);
        let name = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
        let (file, text) = match (session_file_for(path), std::fs::read(path)) {
            (Ok(f), Ok(bytes)) => (f, String::from_utf8_lossy(&bytes).into_owned()),
            _ => {
                eprintln!("{arg}: cannot read");
                continue;
            }
        };
        let session = parse_session(file, &text, SessionFormat::Auto);
        let heard = said::hear(std::slice::from_ref(&session), &[], now, &tz);
        for s in &heard.sentences {
            let SaidIn::Session { line, .. } = s.source else { continue };
            let kept = match durable::judge(&s.text, s.date, s.note) {
                Verdict::Keep(kept) => kept,
                // With `FEATURES_DROPPED=1`, what the rules drop is shown too, with the reason.
                Verdict::Drop(why) => {
                    if std::env::var_os("FEATURES_DROPPED").is_some() {
                        let row = serde_json::json!({"source": name, "line": line, "dropped": format!("{why:?}"), "sentence": s.text});
                        println!("{row}");
                    }
                    continue;
                }
            };
            // What the engine drops as pasted text is never scored.
            if pasted::reads_as_pasted(&s.text, &s.form) || s.form.is_document() {
                if std::env::var_os("FEATURES_DROPPED").is_some() {
                    let row = serde_json::json!({"source": name, "line": line, "dropped": "Pasted", "sentence": s.text});
                    println!("{row}");
                }
                continue;
            }
            let e = Evidence { sentence: &s.text, index: s.index, form: &s.form, kind: kept.kind };
            let row = serde_json::json!({
                "source": name,
                "line": line,
                "text": kept.text,
                "sentence": s.text,
                "kind": format!("{:?}", kept.kind),
                "x": confidence::features(&e),
                "p": MODEL.confidence(&e, 1),
            });
            println!("{row}");
        }
    }
}
