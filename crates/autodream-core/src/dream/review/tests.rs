use super::*;
use crate::clock::Clock;

fn record(task: &str) -> Pending {
    let now: Timestamp = "2026-05-08T12:00:00Z".parse().unwrap();
    Pending {
        task: task.into(),
        engine: "test".into(),
        started_at: now,
        planned_at: now,
        since: None,
        summary: String::new(),
        notes: vec![],
        files: vec![],
        log_cursor: None,
        sessions_reviewed: 0,
        tokens: TokenUsage::default(),
        cost_usd: None,
    }
}

/// A dream's staging copy kept for review: `prepare`, then `keep`.
fn kept(l: &Locations, task: &str) -> Pending {
    std::fs::create_dir_all(&l.memory_dir).unwrap();
    std::fs::write(l.memory_dir.join("a.md"), "old a\n").unwrap();
    let s = transaction::prepare(l, task).unwrap();
    std::fs::write(s.work.join("a.md"), "dream a\n").unwrap();
    let planned = transaction::plan(&s);
    keep(l, &s, &planned, record(task)).unwrap()
}

#[test]
fn recovery_never_removes_a_pending_dream_and_a_newer_one_replaces_it() {
    let tmp = tempfile::tempdir().unwrap();
    let l = Locations::under(tmp.path());
    let first = kept(&l, "t1");
    assert_eq!(first.files.len(), 1);
    assert!(!transaction::staging_dir(&l, "t1").exists(), "moved out of staging/");
    recover(&l, Clock::System, &Config::default()).unwrap();
    let lock =
        crate::lock::ConsolidationLock::new(&l.memory_dir, Clock::System, Config::default().stale_lock());
    transaction::remove_stale_staging(&l, &lock);
    assert_eq!(load(&l).map(|p| p.task).as_deref(), Some("t1"));
    assert_eq!(diff(&l, &first), "--- a/a.md\n+++ b/a.md\n@@ -1 +1 @@\n-old a\n+dream a\n");

    kept(&l, "t2");
    assert_eq!(load(&l).map(|p| p.task).as_deref(), Some("t2"));
    assert!(!staging_of(&l, "t1").root.exists(), "the older pending dream was removed");
    // A pending dream already in the history (accepted, then killed before its folder went)
    // is not pending.
    history::save_manifest(&l, &Manifest::for_test("t2")).unwrap();
    assert!(load(&l).is_none());
}
