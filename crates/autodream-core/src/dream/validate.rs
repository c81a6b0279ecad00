//! Validation of a dream's result before anything is applied.
//!
//! A dream may not leave the index over the agent's limits or pointing at missing files,
//! and may not delete a topic file or drop more than a quarter of its facts unless the
//! engine says it moved that many facts to an archive section.

use std::path::Path;

use crate::config::Config;
use crate::memdir::index::{self, Severity};
use crate::memdir::topic::count_facts;
use crate::memdir::{INDEX_FILE, list_topic_files};

/// The share of a file's facts a dream may drop without archiving them.
pub const MAX_SILENT_LOSS: f64 = 0.25;

/// Checks `work` (the dream's result) against `base` (the memory as the dream found it).
/// Returns every reason the result is refused.
pub fn validate(base: &Path, work: &Path, cfg: &Config, archived_facts: usize) -> Vec<String> {
    let mut problems = Vec::new();
    match index::check(work, cfg.index_max_lines, cfg.index_max_units) {
        Ok(report) => {
            for f in report.findings.iter().filter(|f| f.severity == Severity::Error) {
                let at = f.line.map(|l| format!(":{l}")).unwrap_or_default();
                problems.push(format!("{}{at}: {}", f.file, f.message));
            }
        }
        Err(e) => problems.push(format!("cannot check the index: {e}")),
    }
    let Ok(before) = list_topic_files(base) else { return problems };
    let mut lost_total = 0;
    let mut heavy = Vec::new();
    for topic in before.topics.iter().filter(|t| *t != INDEX_FILE) {
        let old = std::fs::read_to_string(base.join(topic)).map(|t| count_facts(&t)).unwrap_or(0);
        if old == 0 {
            continue;
        }
        let new = std::fs::read_to_string(work.join(topic)).ok().map(|t| count_facts(&t));
        let kept = new.unwrap_or(0);
        if kept >= old {
            continue;
        }
        let lost = old - kept;
        if new.is_none() || lost as f64 > old as f64 * MAX_SILENT_LOSS {
            lost_total += lost;
            heavy.push(match new {
                None => format!("{topic} deleted ({old} facts)"),
                Some(_) => format!("{topic} lost {lost} of {old} facts"),
            });
        }
    }
    if lost_total > archived_facts {
        problems.push(format!(
            "refusing a mass deletion: {} — {lost_total} facts gone but only {archived_facts} moved to an archive",
            heavy.join(", ")
        ));
    }
    problems
}

#[cfg(test)]
mod tests {
    use super::*;

    fn write(dir: &Path, name: &str, text: &str) {
        std::fs::create_dir_all(dir).unwrap();
        std::fs::write(dir.join(name), text).unwrap();
    }

    #[test]
    fn refuses_mass_deletion_unless_archived() {
        let tmp = tempfile::tempdir().unwrap();
        let (base, work) = (tmp.path().join("base"), tmp.path().join("work"));
        let facts: String = (0..8).map(|i| format!("- fact {i}\n")).collect();
        write(&base, "a.md", &facts);
        write(&base, "b.md", "- one\n");
        write(&base, INDEX_FILE, "- [A](a.md) — a\n- [B](b.md) — b\n");
        write(&work, "a.md", "- fact 0\n- fact 1\n- fact 2\n- fact 3\n- fact 4\n");
        write(&work, INDEX_FILE, "- [A](a.md) — a\n");
        let cfg = Config::default();
        let problems = validate(&base, &work, &cfg, 0);
        assert_eq!(problems.len(), 1, "{problems:?}");
        assert!(problems[0].contains("a.md lost 3 of 8 facts"));
        assert!(problems[0].contains("b.md deleted (1 facts)"));
        assert!(validate(&base, &work, &cfg, 4).is_empty());
        // Losing a quarter or less is an ordinary edit.
        write(&work, "a.md", "- fact 0\n- fact 1\n- fact 2\n- fact 3\n- fact 4\n- fact 5\n");
        write(&work, "b.md", "- one\n");
        write(&work, INDEX_FILE, "- [A](a.md) — a\n- [B](b.md) — b\n");
        assert!(validate(&base, &work, &cfg, 0).is_empty());
    }

    #[test]
    fn refuses_a_broken_index() {
        let tmp = tempfile::tempdir().unwrap();
        let (base, work) = (tmp.path().join("base"), tmp.path().join("work"));
        std::fs::create_dir_all(&base).unwrap();
        write(&work, INDEX_FILE, "- [Gone](gone.md) — missing\n");
        let problems = validate(&base, &work, &Config::default(), 0);
        assert!(problems[0].contains("gone.md"), "{problems:?}");
    }
}
