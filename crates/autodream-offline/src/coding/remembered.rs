//! What the user asked the agent to remember, and the agent wrote into its memory folder.
//!
//! "Make sure to memorize the setup and ensure this never repeats again": the request holds
//! no fact, the agent's answer does. The agent writes it into the client's memory folder
//! (`~/.claude/projects/<project>/memory/MEMORY.md`, an Edit or Write tool call) and the
//! transcript records the call. When that folder is the one this dream tends, the lines are
//! there already and merge with what is heard here; when it is not (a teammate's sessions, a
//! history recorded on another machine), they would be lost. So the lines the agent added
//! right after such a request are heard as the user's own deliberate notes: the request is
//! the user's confirmation.
//!
//! The write may be a sub-agent's: the main agent hands the request to an executor, and the
//! session reader puts the executor's file writes into the session where they happened.
//!
//! Of the lines written, the rules are heard (at most three): what must or must not be done;
//! the story of the incident around them is the session's. A rule that points at "these docs"
//! names the documents the lines above it named, since it is read without them. Only a write
//! into a memory folder counts (a `memory/` directory, a Markdown file), and only while the
//! request stands (until the user's next turn). A write the agent made on its own is its
//! guess, and stays out.

use std::sync::LazyLock;

use regex::Regex;
use serde_json::Value;

use crate::text::re;

/// At most this many lines from one write: a request to remember is for a few rules, not
/// for a document.
const MAX_LINES: usize = 3;

/// The user asks for memory: "memorize the setup", "remember this for next time", "add it
/// to your memory", "referenced in claude memory", "save this to memory". Read on every user
/// turn, pasted documents included: its word boundaries are ASCII ones (`(?-u:\b)`, the words
/// are English) so that the fast automaton runs on any text; a Unicode `\b` made the regex
/// crate fall back to its slowest engine on every turn with a non-ASCII character in it.
static ASKS_TO_REMEMBER: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r"(?i)(?-u:\b)memori[sz]e(?-u:\b)|(?-u:\b)(?:remember|note) (?:this|that|it)(?-u:\b)[^.?!]*(?-u:\b)(?:next time|future|from now on|going forward)(?-u:\b)|(?-u:\b)(?:add|save|put|store|write|record|keep)(?-u:\b)[^.?!]{0,40}(?-u:\b)(?:in|to|into) (?:your |the |claude(?:'s)? |our )?memory(?-u:\b)|(?-u:\b)referenced in (?:your |the |claude(?:'s)? )?memory(?-u:\b)|记住|记下来",
    )
});

/// A tool call as the transcript reader renders it: `Edit: {…}`, `Write: {…}`.
static WRITE_CALL: LazyLock<Regex> = LazyLock::new(|| re(r"^(?:Edit|Write|MultiEdit): (\{.*)$"));

/// A path inside a memory folder, Unix or Windows.
static MEMORY_PATH: LazyLock<Regex> = LazyLock::new(|| re(r"(?i)[/\\]memory[/\\][^/\\]+\.md$"));

/// Does the user's turn ask the agent to remember something?
pub fn asks_to_remember(turn: &str) -> bool {
    ASKS_TO_REMEMBER.is_match(turn)
}

/// "these docs", "both files": a pointer to the documents the lines above named.
static THESE_DOCUMENTS: LazyLock<Regex> =
    LazyLock::new(|| re(r"(?i)(?-u:\b)(?:these|those|both|the two) (?:docs|documents|files|guides)(?-u:\b)"));

/// "Evolution protocol: `docs/PROTOCOL.md` -- formal rules for …": a line that opens with a
/// document (after a label of a few words) says what the document holds.
fn describes_a_document(statement: &str) -> bool {
    let body = statement.split_once(": ").filter(|(label, _)| label.split_whitespace().count() <= 4);
    crate::text::opens_with_a_document(body.map_or(statement, |(_, said)| said))
}

/// "ALWAYS consult these docs before …", the lines above having named two documents: the
/// rule says which ("ALWAYS consult `docs/SCHEMAS.md` and `docs/PROTOCOL.md` before …"); a
/// later session reads it without the lines around it.
fn with_the_documents_named_before(statement: &str, named: &[String]) -> String {
    if named.is_empty() || !THESE_DOCUMENTS.is_match(statement) {
        return statement.to_string();
    }
    THESE_DOCUMENTS.replace(statement, named.join(" and ").replace('$', "$$")).into_owned()
}

/// The statements an Edit or Write call adds to a memory file, markup removed; `None` when
/// the call writes somewhere else.
pub fn memory_write(tool_text: &str) -> Option<Vec<String>> {
    let input = WRITE_CALL.captures(tool_text)?.get(1).expect("group").as_str();
    let path = field(input, "file_path")?;
    if !MEMORY_PATH.is_match(&path) {
        return None;
    }
    let added = field(input, "new_string").or_else(|| field(input, "content"))?;
    let before = field(input, "old_string").unwrap_or_default();
    let old: std::collections::HashSet<&str> = before.lines().map(str::trim).collect();
    // The documents the lines name, in order: "these docs" in a later line means them.
    let mut named: Vec<String> = Vec::new();
    let statements: Vec<String> = added
        .lines()
        .map(str::trim)
        .filter(|l| !old.contains(l))
        .filter_map(statement)
        .map(|s| {
            let said = with_the_documents_named_before(&s, &named);
            for path in crate::text::DOCUMENT.find_iter(&s) {
                if !named.iter().any(|n| n == path.as_str()) {
                    named.push(path.as_str().to_string());
                }
            }
            said
        })
        // The rules of what was written ("Every new entity MUST have …"); the story of the
        // incident around them ("Phase 14 hit this exact bug …") is the session's, and what a
        // document holds ("`docs/PROTOCOL.md` -- formal rules for …") is the document's: the
        // rule that points at it names it.
        .filter(|s| super::kinds::is_rule(s) || super::orders::STANDING_IMPERATIVE.is_match(s))
        .filter(|s| !describes_a_document(s))
        .take(MAX_LINES)
        .collect();
    (!statements.is_empty()).then_some(statements)
}

/// A field of the call's input. The reader cuts long calls short, so the JSON may end in the
/// middle of a string: what is there of it is read.
fn field(input: &str, name: &str) -> Option<String> {
    if let Ok(Value::Object(map)) = serde_json::from_str::<Value>(input) {
        return map.get(name).and_then(Value::as_str).map(str::to_string);
    }
    let key = format!("\"{name}\":\"");
    let start = input.find(&key)? + key.len();
    let mut out = String::new();
    let mut chars = input[start..].chars();
    while let Some(c) = chars.next() {
        match c {
            '"' => return Some(out),
            '\\' => match chars.next() {
                Some('n') => out.push('\n'),
                Some('t') => out.push('\t'),
                Some('u') => {
                    let hex: String = chars.by_ref().take(4).collect();
                    if let Some(c) = u32::from_str_radix(&hex, 16).ok().and_then(char::from_u32) {
                        out.push(c);
                    }
                }
                Some(other) => out.push(other),
                None => break,
            },
            c => out.push(c),
        }
    }
    // Cut short: the last line may be cut too, and is left out.
    out.rfind('\n').map(|cut| out[..cut].to_string())
}

/// A line of the added text as a statement: a bullet or a sentence, bold and list markers
/// removed. Headings, code, tables and lines too short to say anything are no statement.
fn statement(line: &str) -> Option<String> {
    let t = line.trim_start_matches(['-', '*', '+', ' ']).trim();
    if line.starts_with('#') || line.starts_with('|') || line.starts_with("```") || t.ends_with('…') {
        return None;
    }
    let t = t.replace("**", "");
    let t = t.trim().trim_end_matches(':').trim();
    (t.split_whitespace().count() >= 5).then(|| t.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_request_to_remember_is_recognised_in_its_forms() {
        for asks in [
            "ok can we please log an entry and also make sure to memorize the setup",
            "Ensure that this documentation is referenced in claude memory for future tickets",
            "add this to your memory please",
            "remember this for next time: staging has no seed data",
            // Text around it that is not ASCII changes nothing.
            "Das Deployment läuft — memorize the setup 🚀",
            "请记住：我们用 pnpm",
        ] {
            assert!(asks_to_remember(asks), "{asks}");
        }
        for not in [
            "Do you remember what the flag was called?",
            "The memory usage is too high",
            "remember to push",
            "rememberización — memorizedß",
        ] {
            assert!(!asks_to_remember(not), "{not}");
        }
    }

    #[test]
    fn the_lines_an_edit_adds_to_a_memory_file_are_read_and_nothing_else() {
        let call = r##"Edit: {"file_path":"/home/u/.claude/projects/-app/memory/MEMORY.md","old_string":"# Memory\n- Old line stays as it was here","new_string":"# Memory\n- Old line stays as it was here\n## CRITICAL: Migrations\n- **Every new `@Entity()` MUST have a `CREATE TABLE` migration** — check before merging\n- ok\n"}"##;
        assert_eq!(
            memory_write(call),
            Some(vec![
                "Every new `@Entity()` MUST have a `CREATE TABLE` migration — check before merging"
                    .to_string()
            ])
        );
        // Anywhere else is the agent's work, not memory.
        assert_eq!(memory_write(&call.replace("/memory/MEMORY.md", "/src/notes.md")), None);
        assert_eq!(memory_write("Bash: {\"command\":\"ls\"}"), None);
    }

    #[test]
    fn these_docs_are_the_documents_the_lines_above_named() {
        let call = r###"Edit: {"file_path":"/p/memory/MEMORY.md","old_string":"","new_string":"## Metadata Schema Documentation\n- **Schema reference:** `docs/METADATA_SCHEMAS.md` -- documents all 10 metadata objects\n- **Evolution protocol:** `docs/METADATA_EVOLUTION_PROTOCOL.md` -- formal rules for evolving schemas\n- **ALWAYS consult these docs** before any ticket that changes fields on metadata objects\n"}"###;
        assert_eq!(
            memory_write(call),
            Some(vec![
                "ALWAYS consult `docs/METADATA_SCHEMAS.md` and `docs/METADATA_EVOLUTION_PROTOCOL.md` before any ticket that changes fields on metadata objects".to_string()
            ])
        );
        // With no document named before, the words stay as they are.
        let alone = r#"Write: {"file_path":"/p/memory/notes.md","content":"- Always read these docs before changing the schema\n"}"#;
        assert_eq!(
            memory_write(alone),
            Some(vec!["Always read these docs before changing the schema".to_string()])
        );
    }

    #[test]
    fn a_call_cut_short_is_read_up_to_its_last_whole_line() {
        let call = r#"Write: {"file_path":"C:\\Users\\u\\.claude\\projects\\app\\memory\\deploys.md","content":"- Deploys always go through the release branch\n- Phase 14 hit this exact bug on staging\n- Never seed staging by hand, use the fixtures\n- The third line is cut off in the midd"#;
        assert_eq!(
            memory_write(call),
            Some(vec![
                "Deploys always go through the release branch".to_string(),
                "Never seed staging by hand, use the fixtures".to_string()
            ])
        );
    }
}
