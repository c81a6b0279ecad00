//! Qwen Code's memory-recall evaluation (QwenLM/qwen-code,
//! `packages/core/src/memory/__fixtures__/auto-memory-recall-eval.json`, Apache-2.0; see
//! `tests/fixtures/qwen-recall/ATTRIBUTION.md`), run through the search `memory_search` uses.
//! Each of its 22 memory files becomes a topic file (front matter `name`, `description`,
//! `type`, then the body); each of its 48 queries is searched. A case with an expected top
//! file passes when that file holds the best hit; a `no-result` case passes when nothing is
//! found. The `semantic-no-lexical` cases share no word with their file: a lexical search is
//! not expected to find them, and they are counted, not asserted.

use serde::Deserialize;

use super::*;

const FIXTURE: &str = include_str!("../../../tests/fixtures/qwen-recall/auto-memory-recall-eval.json");

#[derive(Deserialize)]
struct Eval {
    docs: Vec<Doc>,
    cases: Vec<Case>,
}

#[derive(Deserialize)]
struct Doc {
    id: String,
    #[serde(rename = "type")]
    kind: String,
    title: String,
    description: String,
    body: String,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct Case {
    id: String,
    category: String,
    query: String,
    relevant_ids: Vec<String>,
    expected_top_id: Option<String>,
}

/// What one query found: the file of the best hit (without `.md`), and how many hits.
fn run(mem: &Path, query: &str) -> (Option<String>, usize) {
    match search(mem, query, SearchOptions { limit: 50, include_logs: false }) {
        Ok(hits) => (hits.first().map(|h| h.file.trim_end_matches(".md").to_string()), hits.len()),
        Err(e) => panic!("{query:?}: {e}"),
    }
}

#[test]
fn qwen_recall_eval() {
    let eval: Eval = serde_json::from_str(FIXTURE).unwrap();
    assert_eq!((eval.docs.len(), eval.cases.len()), (22, 48));
    let tmp = tempfile::tempdir().unwrap();
    let mem = tmp.path().join("memory");
    std::fs::create_dir_all(&mem).unwrap();
    for d in &eval.docs {
        let text = format!(
            "---\nname: {}\ndescription: {}\ntype: {}\n---\n{}\n",
            d.title, d.description, d.kind, d.body
        );
        std::fs::write(mem.join(format!("{}.md", d.id)), text).unwrap();
    }
    let mut failed = Vec::new();
    let (mut ranked, mut ranked_ok, mut empty, mut empty_ok, mut semantic_found) = (0, 0, 0, 0, 0);
    for c in &eval.cases {
        let (top, n) = run(&mem, &c.query);
        if let Some(want) = &c.expected_top_id {
            ranked += 1;
            if top.as_deref() == Some(want.as_str()) {
                ranked_ok += 1;
            } else {
                failed.push(format!("{} ({:?}): top {top:?}, wanted {want}", c.id, c.query));
            }
        } else if c.relevant_ids.is_empty() {
            empty += 1;
            if n == 0 {
                empty_ok += 1;
            } else {
                failed.push(format!("{} ({:?}): {n} hits, top {top:?}, wanted none", c.id, c.query));
            }
        } else {
            assert_eq!(c.category, "semantic-no-lexical", "{}", c.id);
            semantic_found +=
                usize::from(top.as_deref().is_some_and(|t| c.relevant_ids.iter().any(|r| r == t)));
        }
    }
    let summary = format!(
        "right file first: {ranked_ok} of {ranked}; nothing found where nothing should be: \
         {empty_ok} of {empty}; semantic cases found: {semantic_found} of 3"
    );
    eprintln!("{summary}");
    assert!(failed.is_empty(), "{summary}\n{}", failed.join("\n"));
    assert_eq!((ranked, empty), (36, 9));
    // Lexical search shares no word with these; finding one would mean a scoring change.
    assert_eq!(semantic_found, 0);
}
