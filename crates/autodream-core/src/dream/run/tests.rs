use super::*;
use crate::clock::to_system_time;
use crate::config::Config;
use crate::gates::{GateInput, GateName};
use jiff::Timestamp;

fn at(s: &str) -> Timestamp {
    s.parse().unwrap()
}

fn touch(path: &Path, t: Timestamp) {
    std::fs::write(path, "{}\n").unwrap();
    filetime::set_file_mtime(path, filetime::FileTime::from_system_time(to_system_time(t))).unwrap();
}

/// Two dreams in the same second that change nothing (so neither leaves a history folder)
/// still get different ids: the last task's id is never reused.
#[test]
fn task_ids_in_one_second_never_repeat_even_without_history() {
    let tmp = tempfile::tempdir().unwrap();
    let loc = Locations {
        memory_dir: tmp.path().join("memory"),
        state_dir: tmp.path().join("state"),
        sessions_dir: tmp.path().join("sessions"),
        project_dir: tmp.path().into(),
    };
    std::fs::create_dir_all(&loc.state_dir).unwrap();
    let clock = Clock::Fixed(at("2026-05-08T12:00:00Z"));
    let mut seen = Vec::new();
    for _ in 0..12 {
        let id = new_task_id(&loc, clock);
        assert!(!seen.contains(&id), "{id} reused after {seen:?}");
        super::super::task::save(&loc, &Task::new(id.clone(), "hygiene", 1, clock.now())).unwrap();
        seen.push(id);
    }
    assert_eq!(seen[0], "20260508T120000Z");
    assert_eq!(seen[1], "20260508T120000Z-2");
    assert_eq!(seen[11], "20260508T120000Z-12");
    // A staging copy of that name, left by anything, is not reused either.
    std::fs::create_dir_all(transaction::staging_dir(&loc, "20260508T120000Z-13")).unwrap();
    assert_eq!(new_task_id(&loc, clock), "20260508T120000Z-14");
}

/// With an injected "now", the worker's re-check under the lock and the hook's gates
/// give the same verdict: sessions touched after "now" count for neither.
#[test]
fn the_recheck_agrees_with_the_gates_under_an_injected_now() {
    let tmp = tempfile::tempdir().unwrap();
    let loc = Locations {
        memory_dir: tmp.path().join("memory"),
        state_dir: tmp.path().join("state"),
        sessions_dir: tmp.path().join("sessions"),
        project_dir: tmp.path().into(),
    };
    std::fs::create_dir_all(&loc.memory_dir).unwrap();
    std::fs::create_dir_all(&loc.sessions_dir).unwrap();
    let now = at("2026-05-08T12:00:00Z");
    let last = at("2026-05-06T12:00:00Z");
    touch(&loc.lock_path(), last);
    // Four sessions since the last dream, two more "after now" (written in real time).
    for (i, when) in
        ["2026-05-07T00:00:00Z", "2026-05-07T06:00:00Z", "2026-05-08T01:00:00Z", "2026-05-08T11:00:00Z"]
            .into_iter()
            .chain(["2026-05-09T00:00:00Z", "2026-05-10T00:00:00Z"])
            .enumerate()
    {
        touch(&loc.sessions_dir.join(format!("00000000-0000-4000-8000-00000000000{i}.jsonl")), at(when));
    }
    let clock = Clock::Fixed(now);
    let token = LockToken { pid: 1, prior_mtime: Some(to_system_time(last)), started_at: now };
    for (min_sessions, min_hours, agreed) in
        [(4, 24.0, None), (5, 24.0, Some(GateName::Sessions)), (4, 72.0, Some(GateName::Time))]
    {
        let config = LoadedConfig {
            config: Config { min_sessions, min_hours, ..Config::default() },
            warnings: vec![],
            file: None,
            auto_memory_off: None,
            client_auto_dream: None,
            enabled_source: "default".into(),
        };
        let _ = std::fs::remove_file(crate::gates::scan_stamp_path(&loc));
        let gates = crate::gates::check(&GateInput {
            locations: &loc,
            config: &config,
            clock,
            current_session: None,
        });
        assert_eq!(gates.failed, agreed, "gates at min_sessions {min_sessions}, min_hours {min_hours}");
        let recheck = recheck(&loc, &config, clock, &token, None);
        match agreed {
            None => assert_eq!(recheck, Ok(())),
            Some(GateName::Time) => {
                assert!(recheck.unwrap_err().starts_with("time gate closed"), "{min_hours}")
            }
            Some(_) => {
                assert_eq!(recheck.unwrap_err(), "sessions gate closed: sessions 4/5: 1 more needed")
            }
        }
    }
}

/// The skipped-lines sentence counts in the singular for one line and says nothing for none.
#[test]
fn the_skipped_lines_sentence_pluralises_and_is_absent_for_none() {
    assert_eq!(skipped_lines_sentence(0), None);
    assert_eq!(skipped_lines_sentence(1).as_deref(), Some("1 unreadable transcript line skipped"));
    assert_eq!(skipped_lines_sentence(2).as_deref(), Some("2 unreadable transcript lines skipped"));
}
