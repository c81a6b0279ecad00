use std::os::unix::fs::symlink;

use super::*;

fn write(path: &Path, text: &str) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

/// A memory folder with an index, two topic files and a log, plus a file outside it.
fn memory() -> (tempfile::TempDir, PathBuf) {
    let tmp = tempfile::tempdir().unwrap();
    let mem = tmp.path().join("memory");
    write(
        &mem.join("MEMORY.md"),
        "# Memory\n- [Deploy](deploy.md) — how a release reaches production\n- [Testing](testing.md) — how tests run\n",
    );
    write(
        &mem.join("deploy.md"),
        "---\nname: Deploy\ndescription: how a release reaches production\ntype: project\n---\n# Deploy\n\n\
         - deployments go out on Thursday\n- the deploy goes to staging first, then to the canary\n\
         - rollback is one command\n",
    );
    write(
        &mem.join("testing.md"),
        "# Testing\n\n- integration tests use a real database\n- 周四部署前跑测试\n",
    );
    write(&mem.join("logs/2026/05/2026-05-08.md"), "- [09:00] the deploy to staging failed twice\n");
    write(&mem.join("logs/2026/05/2026-05-09.md"), "- [10:00] staging deploy fixed by a retry\n");
    write(&tmp.path().join("outside.md"), "secret outside the memory: deploy staging\n");
    (tmp, mem)
}

fn found(hits: &[SearchHit]) -> Vec<(String, usize, u32)> {
    hits.iter().map(|h| (h.file.clone(), h.line, h.score)).collect()
}

#[test]
fn query_words_are_folded_split_and_deduplicated() {
    assert_eq!(query_words("Deploy, STAGING deploy!"), ["deploy", "staging"]);
    assert_eq!(query_words("Ünïcode straße"), ["ünïcode", "straße"]);
    assert_eq!(query_words("a deploy b"), ["deploy"]);
    assert_eq!(query_words("a"), ["a"]);
    assert_eq!(query_words("部署"), ["部署"]);
    assert!(query_words(" ,.;- ").is_empty());
}

#[test]
fn the_line_with_more_whole_words_ranks_first() {
    let (_tmp, mem) = memory();
    let hits = search(&mem, "deploy staging", SearchOptions::default()).unwrap();
    // Both words whole and as a phrase: the log line "staging deploy" has both but not in
    // query order; the topic line has "deploy … staging" apart. Whole words outrank prefixes.
    assert_eq!(
        found(&hits),
        [
            ("deploy.md".to_string(), 9, 4),
            ("logs/2026/05/2026-05-09.md".to_string(), 1, 4),
            ("logs/2026/05/2026-05-08.md".to_string(), 1, 4),
            // One whole word: the index before the topic file, then file order.
            ("MEMORY.md".to_string(), 2, 2),
            ("deploy.md".to_string(), 2, 2),
            ("deploy.md".to_string(), 6, 2),
            ("deploy.md".to_string(), 8, 1),
        ]
    );
    assert_eq!(hits[0].text, "- the deploy goes to staging first, then to the canary");
    assert_eq!(hits[0].matched, ["deploy", "staging"]);
    assert_eq!(hits[3].matched, ["deploy"]);
    // "deployments" only starts with the word: it counts, below a whole match.
    assert_eq!(hits[6].text, "- deployments go out on Thursday");
    // Nothing outside the memory folder is searched.
    assert!(hits.iter().all(|h| !h.text.contains("secret")));
}

#[test]
fn a_phrase_in_query_order_gets_a_bonus() {
    let (_tmp, mem) = memory();
    let hits = search(&mem, "staging deploy", SearchOptions::default()).unwrap();
    assert_eq!(hits[0].file, "logs/2026/05/2026-05-09.md");
    assert_eq!(hits[0].score, 5);
    assert_eq!(hits[1].score, 4);
}

#[test]
fn case_and_unicode_are_folded_and_unspaced_scripts_match_inside_words() {
    let (_tmp, mem) = memory();
    let hits = search(&mem, "THURSDAY", SearchOptions::default()).unwrap();
    assert_eq!(found(&hits), [("deploy.md".to_string(), 8, 2)]);
    let hits = search(&mem, "部署", SearchOptions::default()).unwrap();
    assert_eq!(found(&hits), [("testing.md".to_string(), 4, 2)]);
}

#[test]
fn limit_and_logs_are_options() {
    let (_tmp, mem) = memory();
    let hits = search(&mem, "staging", SearchOptions { limit: 1, include_logs: true }).unwrap();
    assert_eq!(hits.len(), 1);
    let hits = search(&mem, "staging", SearchOptions { limit: 10, include_logs: false }).unwrap();
    assert!(hits.iter().all(|h| h.kind != FileKind::Log), "{hits:?}");
    assert_eq!(hits.len(), 1);
}

#[test]
fn an_empty_query_is_an_error_and_a_missing_folder_finds_nothing() {
    let (tmp, mem) = memory();
    assert!(matches!(search(&mem, " - ", SearchOptions::default()), Err(SearchError::EmptyQuery)));
    assert!(search(&tmp.path().join("nope"), "deploy", SearchOptions::default()).unwrap().is_empty());
}

#[test]
fn a_linked_topic_or_log_folder_is_not_searched() {
    let (tmp, mem) = memory();
    symlink(tmp.path().join("outside.md"), mem.join("linked.md")).unwrap();
    std::fs::create_dir_all(tmp.path().join("elsewhere/05")).unwrap();
    std::fs::copy(tmp.path().join("outside.md"), tmp.path().join("elsewhere/05/2026-05-10.md")).unwrap();
    symlink(tmp.path().join("elsewhere"), mem.join("logs/2025")).unwrap();
    let hits = search(&mem, "secret", SearchOptions::default()).unwrap();
    assert!(hits.is_empty(), "{hits:?}");
}

#[test]
fn reads_a_memory_file_by_relative_or_absolute_path() {
    let (_tmp, mem) = memory();
    let f = read_memory_file(&mem, "deploy.md").unwrap();
    assert_eq!(f.file, "deploy.md");
    assert!(f.text.contains("rollback is one command"));
    assert_eq!(read_memory_file(&mem, "./MEMORY.md").unwrap().file, "MEMORY.md");
    let abs = mem.join("testing.md");
    assert_eq!(read_memory_file(&mem, abs.to_str().unwrap()).unwrap().file, "testing.md");
    assert_eq!(
        read_memory_file(&mem, "logs/2026/05/2026-05-08.md").unwrap().text,
        "- [09:00] the deploy to staging failed twice\n"
    );
}

#[test]
fn refuses_every_way_out_and_what_is_not_memory() {
    let (tmp, mem) = memory();
    symlink(tmp.path().join("outside.md"), mem.join("linked.md")).unwrap();
    symlink(tmp.path(), mem.join("up")).unwrap();
    std::fs::create_dir_all(mem.join(".dream")).unwrap();
    std::fs::write(mem.join(".dream/task.md"), "state").unwrap();
    std::fs::write(mem.join("notes.txt"), "text").unwrap();
    let outside = tmp.path().join("outside.md");
    let cases = [
        ("../outside.md", "`..` leads out of the memory folder"),
        ("logs/../../outside.md", "`..` leads out of the memory folder"),
        (outside.to_str().unwrap(), "an absolute path outside the memory folder"),
        ("/etc/passwd", "an absolute path outside the memory folder"),
        ("linked.md", "linked.md is a symbolic link, and reads stay inside the memory folder"),
        ("up/outside.md", "up is a symbolic link, and reads stay inside the memory folder"),
        (".dream/task.md", "a hidden file or folder is not memory"),
        ("notes.txt", "only Markdown memory files (.md) can be read"),
        ("", "an empty path names no file"),
        (".", "the path names the memory folder itself, not a file"),
    ];
    for (path, reason) in cases {
        let err = read_memory_file(&mem, path).unwrap_err();
        assert!(
            matches!(&err, ReadError::Refused { reason: r, .. } if r == reason),
            "{path:?}: {err} (wanted {reason:?})"
        );
    }
    let err = read_memory_file(&mem, "missing.md").unwrap_err();
    assert_eq!(err.to_string(), "missing.md: no such memory file");
}

#[test]
fn memory_files_lists_the_index_then_topics_with_titles() {
    let (tmp, mem) = memory();
    symlink(tmp.path().join("outside.md"), mem.join("linked.md")).unwrap();
    let files = memory_files(&mem).unwrap();
    let names: Vec<&str> = files.iter().map(|f| f.file.as_str()).collect();
    assert_eq!(names, ["MEMORY.md", "deploy.md", "testing.md"]);
    assert_eq!(files[1].title.as_deref(), Some("Deploy"));
    assert_eq!(files[1].description.as_deref(), Some("how a release reaches production"));
    assert_eq!(files[2].title.as_deref(), Some("Testing"));
    assert_eq!(files[0].kind, FileKind::Index);
    assert!(memory_files(&tmp.path().join("nope")).unwrap().is_empty());
}

#[test]
fn full_width_queries_and_lines_are_folded_with_nfkc() {
    let (_tmp, mem) = memory();
    write(&mem.join("api.md"), "# API\n- Qwen API 限流 dashboard\n- ｈａｌｆ ｗｉｄｔｈ ｎｏｔｅ and ｶﾀｶﾅ\n");
    assert_eq!(query_words("ＱＷＥＮ ＡＰＩ"), ["qwen", "api"]);
    let hits = search(&mem, "ＱＷＥＮ ＡＰＩ", SearchOptions::default()).unwrap();
    assert_eq!(found(&hits), [("api.md".to_string(), 2, 5), ("api.md".to_string(), 1, 2)]);
    // The hit shows the line as written; the folding is only for matching.
    let hits = search(&mem, "width note", SearchOptions::default()).unwrap();
    assert_eq!(hits[0].text, "- ｈａｌｆ ｗｉｄｔｈ ｎｏｔｅ and ｶﾀｶﾅ");
    assert_eq!(hits[0].score, 5);
    // Half-width katakana in the line, full-width in the query.
    let hits = search(&mem, "カタカナ", SearchOptions::default()).unwrap();
    assert_eq!(found(&hits), [("api.md".to_string(), 3, 2)]);
}

#[test]
fn a_one_letter_cjk_query_is_too_vague_to_match() {
    let (_tmp, mem) = memory();
    write(&mem.join("ko.md"), "# 배포\n- 배포 절차\n- 認証設定\n");
    for q in ["部", "認", "배", " 部 ", "部 認", "ｶ"] {
        assert!(query_words(q).is_empty(), "{q:?}");
        let hits = search(&mem, q, SearchOptions::default()).unwrap();
        assert!(hits.is_empty(), "{q:?}: {hits:?}");
    }
    // Among longer words a one-letter CJK word is dropped, the rest still match.
    assert_eq!(query_words("部 部署"), ["部署"]);
    assert_eq!(
        found(&search(&mem, "배 절차", SearchOptions::default()).unwrap()),
        [("ko.md".to_string(), 2, 2)]
    );
    // Two letters are a word.
    assert_eq!(found(&search(&mem, "배포", SearchOptions::default()).unwrap()).len(), 2);
    // A query without any letter is still an error, not an empty result.
    assert!(matches!(search(&mem, " - ", SearchOptions::default()), Err(SearchError::EmptyQuery)));
}
