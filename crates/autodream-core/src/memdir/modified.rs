//! The `modified` timestamp in a topic file's front matter, as the client writes it (2.1.214+):
//! when a memory file that begins with front matter is written, its front matter records the
//! write time as an ISO 8601 `modified` field (`2026-05-08T10:00:00.000Z`, UTC, milliseconds,
//! as JavaScript's `toISOString` writes it). A file without front matter never gets one.
//!
//! [`stamp_changed`] does that for a dream: on the staging copy every engine's result passes
//! through, for each topic file whose text the dream changed (new, or different from before
//! the dream when the `modified` line itself is left out of the comparison). A file the
//! engine wrote anew with the same text but without its stamp gets its stamp back: unchanged,
//! it stays byte for byte as it was.

use std::path::Path;

use jiff::Timestamp;

use super::topic::split_front_matter;
use super::{INDEX_FILE, MemoryRoot, SafePathError, list_topic_files};

/// The front matter key.
pub const MODIFIED_KEY: &str = "modified";

/// `at` as the client writes it: `YYYY-MM-DDTHH:MM:SS.mmmZ`.
pub fn iso(at: Timestamp) -> String {
    let dt = at.to_zoned(jiff::tz::TimeZone::UTC).datetime();
    format!(
        "{:04}-{:02}-{:02}T{:02}:{:02}:{:02}.{:03}Z",
        dt.year(),
        dt.month(),
        dt.day(),
        dt.hour(),
        dt.minute(),
        dt.second(),
        dt.subsec_nanosecond() / 1_000_000
    )
}

/// Whether a front matter line is the top-level `modified` key.
fn is_modified_line(line: &str) -> bool {
    line.strip_prefix(MODIFIED_KEY).is_some_and(|r| r.trim_start().starts_with(':'))
}

/// `text` with `modified: <stamp>` in its front matter (replacing the one there, else
/// added as its last key); `None` when the text has no front matter.
pub fn with_modified(text: &str, stamp: &str) -> Option<String> {
    let (yaml, body, _) = split_front_matter(text)?;
    let newline = if text.starts_with("---\r\n") { "\r\n" } else { "\n" };
    let mut out = format!("---{newline}");
    let mut replaced = false;
    for line in yaml.split_inclusive('\n') {
        if is_modified_line(line) {
            if !replaced {
                out.push_str(&format!("{MODIFIED_KEY}: {stamp}{newline}"));
                replaced = true;
            }
        } else {
            out.push_str(line);
            if !line.ends_with('\n') {
                out.push_str(newline);
            }
        }
    }
    if !replaced {
        out.push_str(&format!("{MODIFIED_KEY}: {stamp}{newline}"));
    }
    out.push_str(&format!("---{newline}"));
    out.push_str(body);
    Some(out)
}

/// `text` without its front matter's `modified` line, to compare two versions of a file.
fn without_modified(text: &str) -> String {
    match split_front_matter(text) {
        Some((yaml, body, _)) => {
            let yaml: String = yaml.split_inclusive('\n').filter(|l| !is_modified_line(l)).collect();
            format!("{yaml}\u{0}{body}")
        }
        None => text.to_string(),
    }
}

/// Stamps `modified: <at>` into every topic file of `work` that begins with front matter and
/// whose text differs from the same file in `base` (or is new there). Returns the files stamped.
pub fn stamp_changed(base: &Path, work: &Path, at: Timestamp) -> Result<Vec<String>, SafePathError> {
    let root = MemoryRoot::open(work)?;
    let before = MemoryRoot::open(base).ok();
    let stamp = iso(at);
    let mut stamped = Vec::new();
    let topics = list_topic_files(work).map(|l| l.topics).unwrap_or_default();
    for rel in topics.into_iter().filter(|r| r != INDEX_FILE && !r.starts_with("logs/")) {
        let Some(now) = root.read(&rel)? else { continue };
        let now = String::from_utf8_lossy(&now).into_owned();
        let then = before.as_ref().and_then(|b| b.read(&rel).ok().flatten());
        let then = then.map(|b| String::from_utf8_lossy(&b).into_owned());
        if let Some(then) = then.as_deref()
            && without_modified(then) == without_modified(&now)
        {
            // Unchanged but for the stamp (an engine that renders the file anew drops it):
            // the file stays as it was.
            if then != now {
                root.write_atomic(&rel, then.as_bytes())?;
            }
            continue;
        }
        if let Some(text) = with_modified(&now, &stamp)
            && text != now
        {
            root.write_atomic(&rel, text.as_bytes())?;
            stamped.push(rel);
        }
    }
    Ok(stamped)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(s: &str) -> Timestamp {
        s.parse().unwrap()
    }

    #[test]
    fn the_stamp_is_utc_with_milliseconds() {
        assert_eq!(iso(at("2026-05-08T10:00:00Z")), "2026-05-08T10:00:00.000Z");
        assert_eq!(iso(at("2026-05-08T12:00:00.1234+02:00")), "2026-05-08T10:00:00.123Z");
    }

    #[test]
    fn modified_is_added_or_replaced_and_never_creates_front_matter() {
        let s = "2026-05-08T10:00:00.000Z";
        assert_eq!(
            with_modified("---\nname: deploy\nmetadata:\n  type: project\n---\n# Deploy\n", s).unwrap(),
            "---\nname: deploy\nmetadata:\n  type: project\nmodified: 2026-05-08T10:00:00.000Z\n---\n# Deploy\n"
        );
        assert_eq!(
            with_modified("---\nmodified: 2020-01-01T00:00:00.000Z\nname: x\n---\nbody\n", s).unwrap(),
            "---\nmodified: 2026-05-08T10:00:00.000Z\nname: x\n---\nbody\n"
        );
        // A nested `modified` under another key is not the file's.
        assert_eq!(
            with_modified("---\nmetadata:\n  modified: old\n---\n", s).unwrap(),
            "---\nmetadata:\n  modified: old\nmodified: 2026-05-08T10:00:00.000Z\n---\n"
        );
        assert_eq!(with_modified("# No front matter\n- a fact\n", s), None);
        assert_eq!(with_modified("---\nunclosed\n", s), None);
    }

    #[test]
    fn only_changed_topic_files_with_front_matter_are_stamped() {
        let tmp = tempfile::tempdir().unwrap();
        let (base, work) = (tmp.path().join("base"), tmp.path().join("work"));
        let fm = |body: &str| format!("---\nname: t\nmodified: 2020-01-01T00:00:00.000Z\n---\n{body}");
        for d in [&base, &work] {
            std::fs::create_dir_all(d.join("sub")).unwrap();
            std::fs::write(d.join("same.md"), fm("- unchanged\n")).unwrap();
            std::fs::write(d.join("plain.md"), "# Plain\n- old\n").unwrap();
            std::fs::write(d.join("changed.md"), fm("- old\n")).unwrap();
            std::fs::write(d.join(INDEX_FILE), "---\nx: y\n---\n- [a](same.md)\n").unwrap();
        }
        std::fs::write(work.join("changed.md"), fm("- new\n")).unwrap();
        // Rendered anew without its stamp, the text otherwise the same.
        std::fs::write(work.join("same.md"), "---\nname: t\n---\n- unchanged\n").unwrap();
        std::fs::write(work.join("plain.md"), "# Plain\n- new\n").unwrap();
        std::fs::write(work.join("sub/new.md"), "---\nname: n\n---\n- fresh\n").unwrap();
        std::fs::write(work.join(INDEX_FILE), "---\nx: y\n---\n- [b](same.md)\n").unwrap();
        let stamped = stamp_changed(&base, &work, at("2026-05-08T10:00:00Z")).unwrap();
        assert_eq!(stamped, ["changed.md", "sub/new.md"]);
        let read = |p: &str| std::fs::read_to_string(work.join(p)).unwrap();
        assert_eq!(read("changed.md"), "---\nname: t\nmodified: 2026-05-08T10:00:00.000Z\n---\n- new\n");
        assert_eq!(read("sub/new.md"), "---\nname: n\nmodified: 2026-05-08T10:00:00.000Z\n---\n- fresh\n");
        assert_eq!(read("same.md"), fm("- unchanged\n"));
        assert_eq!(read("plain.md"), "# Plain\n- new\n");
        assert!(!read(INDEX_FILE).contains("modified"));
        // A second pass over the stamped copy changes nothing more.
        std::fs::write(base.join("changed.md"), read("changed.md")).unwrap();
        std::fs::write(base.join("sub/new.md"), read("sub/new.md")).unwrap();
        assert!(stamp_changed(&base, &work, at("2026-05-09T10:00:00Z")).unwrap().is_empty());
    }
}
