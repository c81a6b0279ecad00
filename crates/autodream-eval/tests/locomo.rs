//! The LoCoMo evaluation checked against the benchmark's own Python tools: the session
//! files must be what `locomo_to_sessions.py` writes, and the Rust scores must match
//! `memory_score.py` on the same memory trees within half a point.
//!
//! The data (CC BY-NC) is never part of the repository: these tests read it at run time from
//! `$AUTODREAM_LOCOMO` or `../shared/data/locomo/locomo_dev.json` (relative to the workspace
//! root) and skip, saying so, when it or `python3` is missing. The quick test uses one
//! conversation; the full runs are `#[ignore]`d (`cargo test -p autodream-eval --release
//! --test locomo -- --ignored`).

use std::path::{Path, PathBuf};
use std::process::Command;

use autodream_core::config::Config;
use autodream_eval::{EvalReport, LocomoOptions, offline_dreamer, run_locomo};
use autodream_offline::OfflineEngine;
use jiff::tz::TimeZone;
use serde_json::Value;

fn workspace_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// The data path: `$AUTODREAM_LOCOMO`, else `../shared/data/locomo/locomo_dev.json`
/// relative to the workspace root.
fn default_data_path(workspace_root: &Path) -> PathBuf {
    match std::env::var_os("AUTODREAM_LOCOMO") {
        Some(p) if !p.is_empty() => PathBuf::from(p),
        _ => workspace_root.join("../shared/data/locomo/locomo_dev.json"),
    }
}

/// The data file and the tools folder, or `None` (with a note) when either is missing.
fn inputs() -> Option<(PathBuf, PathBuf)> {
    let data = default_data_path(&workspace_root());
    let tools = match std::env::var_os("AUTODREAM_LOCOMO_TOOLS") {
        Some(t) => PathBuf::from(t),
        None => workspace_root().join("../shared/tools"),
    };
    let python = Command::new("python3").arg("--version").output().is_ok_and(|o| o.status.success());
    if !data.is_file() || !tools.join("memory_score.py").is_file() || !python {
        eprintln!("skipped: needs python3, {} and {}", data.display(), tools.display());
        return None;
    }
    Some((data, tools))
}

fn run(data: &Path, out: &Path, every: Option<usize>, samples: &[&str]) -> EvalReport {
    let mut opts = LocomoOptions::new(data, out);
    opts.every = every;
    opts.samples = samples.iter().map(|s| s.to_string()).collect();
    let engine = OfflineEngine::with_time_zone(TimeZone::UTC);
    let config = Config::default();
    let mut dreamer = offline_dreamer(&engine, &config);
    run_locomo(&opts, &mut dreamer).expect("evaluation runs")
}

/// `memory_score.py DATA OUT --json`: the JSON object it prints last.
fn python_scores(tools: &Path, data: &Path, out: &Path) -> Value {
    let output = Command::new("python3")
        .arg(tools.join("memory_score.py"))
        .arg(data)
        .arg(out)
        .arg("--json")
        .output()
        .expect("python3 runs");
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    let stdout = String::from_utf8_lossy(&output.stdout);
    serde_json::from_str(stdout.lines().last().expect("a JSON line")).expect("valid JSON")
}

fn assert_close(what: &str, ours: Option<f64>, theirs: &Value) {
    match (ours, theirs.as_f64()) {
        (Some(a), Some(b)) => assert!((a - b).abs() <= 0.5, "{what}: ours {a}, reference {b}"),
        (None, None) => {}
        (a, _) => panic!("{what}: ours {a:?}, reference {theirs}"),
    }
}

fn compare(report: &EvalReport, reference: &Value) {
    let pooled = &reference["pooled"];
    assert_close("pooled M1 specific", report.pooled.summary.m1_specific, &pooled["m1_specific"]);
    assert_close("pooled M1b scorable", report.pooled.summary.m1_scorable, &pooled["m1_scorable"]);
    assert_close("pooled M3 temporal", report.pooled.summary.m3_temporal, &pooled["m3_temporal"]);
    assert_eq!(report.pooled.summary.bytes as u64, pooled["bytes"].as_u64().unwrap());
    assert_eq!(report.pooled.summary.raw_bytes as u64, pooled["raw_bytes"].as_u64().unwrap());
    assert_eq!(Some(report.pooled.index_pass as u64), pooled["index_pass"].as_u64());
    assert_eq!(Some(report.pooled.dangling_lines as u64), pooled["dangling_lines"].as_u64());
    assert_eq!(Some(report.pooled.orphans as u64), pooled["orphans"].as_u64());
    let theirs = reference["per_sample"].as_array().unwrap();
    assert_eq!(theirs.len(), report.per_sample.len());
    for (ours, theirs) in report.per_sample.iter().zip(theirs) {
        assert_eq!(ours.sample_id, theirs["sample_id"].as_str().unwrap());
        assert_close("M1 specific", ours.summary.m1_specific, &theirs["m1_specific"]);
        assert_close("M1b scorable", ours.summary.m1_scorable, &theirs["m1_scorable"]);
        assert_close("M3 temporal", ours.summary.m3_temporal, &theirs["m3_temporal"]);
        for cat in ["1", "2", "3", "4"] {
            assert_close(
                "M1 by category",
                ours.summary.m1_specific_by_cat[cat],
                &theirs["m1_specific_by_cat"][cat],
            );
        }
        assert_eq!(ours.index_ok, theirs["index_ok"].as_bool().unwrap());
        assert_eq!(
            ours.counts.m1_specific["all"][1] as u64,
            theirs["counts"]["m1_specific"]["all"][1].as_u64().unwrap()
        );
        assert_eq!(
            ours.counts.m3_temporal["all"][1] as u64,
            theirs["counts"]["m3_temporal"]["all"][1].as_u64().unwrap()
        );
    }
}

#[test]
fn sessions_and_scores_match_the_reference_tools_on_one_conversation() {
    let Some((data, tools)) = inputs() else { return };
    let tmp = tempfile::tempdir().unwrap();
    let report = run(&data, tmp.path(), None, &["conv-30"]);
    assert_eq!(report.per_sample.len(), 1);
    assert!(report.pooled.index_ok);
    compare(&report, &python_scores(&tools, &data, tmp.path()));

    // The session files are byte for byte what the reference converter writes, same mtimes.
    let py_out = tempfile::tempdir().unwrap();
    let status = Command::new("python3")
        .arg(tools.join("locomo_to_sessions.py"))
        .arg(&data)
        .arg(py_out.path())
        .args(["--sample", "conv-30"])
        .output()
        .expect("python3 runs");
    assert!(status.status.success(), "{}", String::from_utf8_lossy(&status.stderr));
    let ours = tmp.path().join("conv-30/sessions");
    let theirs = py_out.path().join("conv-30/sessions");
    let mut names: Vec<_> = std::fs::read_dir(&theirs).unwrap().map(|e| e.unwrap().file_name()).collect();
    names.sort();
    assert_eq!(names.len(), 19);
    for name in names {
        let (a, b) = (ours.join(&name), theirs.join(&name));
        assert_eq!(std::fs::read(&a).unwrap(), std::fs::read(&b).unwrap(), "{name:?}");
        let mtime = |p: &Path| std::fs::metadata(p).unwrap().modified().unwrap();
        assert_eq!(mtime(&a), mtime(&b), "{name:?}");
    }
}

/// The whole dev half, one dream at the end and one every five sessions: scores agree with
/// the reference, the index is always within limits with no dangling pointer, the
/// incremental series keeps at least 95% of what one dream keeps, and one dream meets the
/// recall and temporal targets.
#[test]
#[ignore = "runs the whole LoCoMo dev half (a few seconds in release mode)"]
fn full_dev_half_one_shot_and_incremental() {
    let Some((data, tools)) = inputs() else { return };
    let one = tempfile::tempdir().unwrap();
    let every = tempfile::tempdir().unwrap();
    let one_shot = run(&data, one.path(), None, &[]);
    let incremental = run(&data, every.path(), Some(5), &[]);
    compare(&one_shot, &python_scores(&tools, &data, one.path()));
    compare(&incremental, &python_scores(&tools, &data, every.path()));
    for r in [&one_shot, &incremental] {
        assert!(r.pooled.index_ok, "{}", r.render_table());
        assert_eq!(r.pooled.dangling_lines, 0);
        assert!(r.pooled.summary.ratio <= 0.20, "{}", r.render_table());
    }
    let (a, b) =
        (one_shot.pooled.summary.m1_specific.unwrap(), incremental.pooled.summary.m1_specific.unwrap());
    assert!(b >= 0.95 * a, "incremental {b} vs one-shot {a}");
    // The engine's targets on this half: M1 specific and M3 at least 80% at a ratio of 0.20.
    assert!(a >= 80.0, "M1 specific {a} < 80\n{}", one_shot.render_table());
    let m3 = one_shot.pooled.summary.m3_temporal.unwrap();
    assert!(m3 >= 80.0, "M3 temporal {m3} < 80\n{}", one_shot.render_table());
    println!("{}{}", one_shot.render_table(), incremental.render_table());
}
