//! Shows how the offline engine judges sentences of a coding session: one sentence per
//! line on standard input; for each, the verdict, the topic it would go to and the old
//! values it names as replaced.
//!
//! `cargo run -p autodream-offline --example judge <<< "We moved from yarn to pnpm."`
//!
//! With `JUDGE_NOTE=1` each line is judged whole, as a deliberate note (a decision line the
//! engine builds, a line of the daily log) is.

use std::io::BufRead;

use autodream_offline::coding::{durable, subjects, updates};

fn main() {
    let day = jiff::Zoned::now().date();
    for line in std::io::stdin().lock().lines().map_while(Result::ok) {
        if line.trim().is_empty() {
            continue;
        }
        let whole = std::env::var_os("JUDGE_NOTE").is_some();
        let sentences =
            if whole { vec![line.as_str()] } else { autodream_offline::text::split_sentences(&line) };
        for sentence in sentences {
            match durable::judge(sentence, day, std::env::var_os("JUDGE_NOTE").is_some()) {
                durable::Verdict::Keep(k) => {
                    let subject = subjects::subject_of(&k.text, k.kind);
                    let old = updates::replaced_values(&k.text);
                    println!("KEEP {:?} -> {}.md {:?}: {}", k.kind, subject.slug, old, k.text);
                }
                durable::Verdict::Drop(why) => println!("DROP {why:?}: {sentence}"),
            }
        }
    }
}
