//! Plans the user approved: the project's check commands they name.
//!
//! When the user accepts a plan the agent wrote in plan mode, the client sends the plan back
//! as a user turn ("Implement the following plan: …"). The plan is the agent's text, so its
//! prose is never read as the user's words (see [`super::said`]); but the user approved it,
//! and one part of it is a project fact rather than a proposal: the commands its
//! verification section runs (`bun run lint`, `mise run test:ci`). Those are the commands a
//! later session needs to check its own work, and they are the same from plan to plan, so
//! they become one line in memory that grows as plans name more of them.
//!
//! Only the verification section is read, and in it only commands that run a check, a build
//! or the dev server; a manual test's one-off steps (`mkdir /tmp/x`, `git init`, the
//! project's own binary with made-up arguments) are not facts about the project.
//!
//! The other part is the plan's stated goal, when it says how things will be ("**Goal**:
//! When both files coexist, AGENTS.md becomes the source of truth."): approving the plan
//! made that the project's design. A goal that is a task ("Fix the NameError", "Change the
//! numbering to 1-based", "Introduce a pipeline: …") or the lead-in to a list says what this
//! plan does, not how the project is, and is not read.

use std::sync::LazyLock;

use regex::Regex;

/// How the line in memory starts: the dream recognises its own verification line by it.
pub const PREFIX: &str = "Verify changes with ";
/// The most commands the line holds: a long history names many; the first ones stay.
const MAX_COMMANDS: usize = 8;

static HANDOFF_RE: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"(?i)^\s*Implement the following plan\b").expect("valid regex"));
/// A heading that opens the verification section of a plan.
static SECTION_RE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r"(?i)^(#{1,6})\s*(?:\d+[.)]\s*)?(?:verification|verifying|verify|testing|test plan|how to (?:test|verify)|validation|checks)\b",
    )
    .expect("valid regex")
});
/// The plan's goal: a "**Goal**:" or "Goal:" lead, or a heading of its own.
static GOAL_LEAD_RE: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"(?i)^(?:\*\*goal\*\*\s*:?|\*\*goal:\*\*|goal:)\s*").expect("valid regex"));
static GOAL_HEADING_RE: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"(?i)^#{1,6}\s*(?:\d+[.)]\s*)?goals?\s*$").expect("valid regex"));
/// The longest goal taken: a longer one is a description of the work, not a decision.
const MAX_GOAL_CHARS: usize = 400;
static HEADING_RE: LazyLock<Regex> = LazyLock::new(|| Regex::new(r"^(#{1,6})\s").expect("valid regex"));
static CODE_SPAN_RE: LazyLock<Regex> = LazyLock::new(|| Regex::new(r"`([^`\n]+)`").expect("valid regex"));
/// A program name: what a command starts with.
static PROGRAM_RE: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"^[a-z][a-z0-9._-]*$").expect("valid regex"));
/// Programs whose commands are steps of a manual test, not the project's checks.
const ONE_OFF_PROGRAMS: &[&str] = &[
    "git", "gh", "curl", "wget", "cat", "echo", "ls", "mkdir", "rm", "cp", "mv", "open", "export", "source",
    "touch", "sudo", "kill", "ssh", "docker", "cd", "grep", "head", "tail", "chmod",
];
/// What a check command does, as a word of it (`test`, `test:ci`, `css:build`, `e2e`).
const CHECK_WORDS: &[&str] = &[
    "test",
    "tests",
    "lint",
    "fmt",
    "format",
    "typecheck",
    "type-check",
    "check",
    "build",
    "vet",
    "clippy",
    "e2e",
    "ci",
    "dev",
    "verify",
];

/// Is this user turn a plan the user approved?
pub fn is_handoff(text: &str) -> bool {
    HANDOFF_RE.is_match(text)
}

/// The statement an approved plan gives memory: its check commands, or `None` when its
/// verification section names none.
pub fn verification(plan: &str) -> Option<String> {
    let commands = check_commands(plan);
    (!commands.is_empty()).then(|| statement(&commands))
}

/// The plan's goal, when it states how things will be; `None` when the plan has no goal, or
/// its goal is a task, a lead-in to a list, or too long to be one decision.
pub fn goal(plan: &str) -> Option<String> {
    let mut paragraph: Vec<&str> = Vec::new();
    let mut open = false;
    for line in plan.lines().map(str::trim) {
        if open {
            if line.is_empty() {
                if paragraph.is_empty() {
                    continue;
                }
                break;
            }
            if line.starts_with('#') || line.starts_with("```") || line.starts_with("---") {
                break;
            }
            paragraph.push(line);
            continue;
        }
        if GOAL_HEADING_RE.is_match(line) {
            open = true;
        } else if let Some(m) = GOAL_LEAD_RE.find(line) {
            open = true;
            let rest = line[m.end()..].trim();
            if !rest.is_empty() {
                paragraph.push(rest);
            }
        }
    }
    let text = paragraph.join(" ").replace("**", "");
    let text = text.trim();
    let first = text.split_whitespace().next()?.trim_matches(|c: char| !c.is_alphanumeric()).to_lowercase();
    let is_statement = !text.ends_with(':')
        && text.chars().count() <= MAX_GOAL_CHARS
        && !paragraph
            .iter()
            .any(|l| l.starts_with(['-', '*', '|']) || l.starts_with(|c: char| c.is_ascii_digit()))
        && !super::kinds::is_verb(&first);
    is_statement.then(|| text.to_string())
}

/// Is this memo's text the verification line?
pub fn is_verification(text: &str) -> bool {
    text.starts_with(PREFIX)
}

/// The verification line holding the commands of both: the older line's first, then what
/// the newer adds. `None` when the newer adds nothing.
pub fn union(older: &str, newer: &str) -> Option<String> {
    let mut commands = commands_of(older);
    let mut changed = false;
    for c in commands_of(newer) {
        changed |= add_command(&mut commands, c);
    }
    changed.then(|| statement(&commands))
}

fn statement(commands: &[String]) -> String {
    let listed: Vec<String> = commands.iter().map(|c| format!("`{c}`")).collect();
    format!("{PREFIX}{}.", listed.join(", "))
}

fn commands_of(line: &str) -> Vec<String> {
    CODE_SPAN_RE.captures_iter(line).map(|c| c[1].to_string()).collect()
}

/// The check commands of the plan's verification sections, in order, each once.
fn check_commands(plan: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    let mut section: Option<usize> = None;
    let mut fenced = false;
    // A shell line that ends in a backslash goes on on the next one: the command is both.
    let mut continued = String::new();
    for line in plan.lines() {
        let t = line.trim();
        if t.starts_with("```") {
            fenced = !fenced;
            continued.clear();
            continue;
        }
        if fenced && let Some(head) = t.strip_suffix('\\') {
            continued.push_str(head.trim_end());
            continued.push(' ');
            continue;
        }
        let joined =
            if fenced && !continued.is_empty() { std::mem::take(&mut continued) + t } else { t.to_string() };
        let t = joined.as_str();
        if !fenced && let Some(h) = HEADING_RE.captures(t) {
            let level = h[1].len();
            if SECTION_RE.is_match(t) {
                section = Some(level);
                continue;
            }
            if section.is_some_and(|open| level <= open) {
                section = None;
            }
        }
        if section.is_none() {
            continue;
        }
        let found: Vec<String> = if fenced {
            vec![without_comment(t)]
        } else {
            CODE_SPAN_RE.captures_iter(t).map(|c| without_comment(&c[1])).collect()
        };
        for command in found.iter().flat_map(|c| split_chain(c)) {
            if is_check_command(&command) {
                add_command(&mut out, command);
            }
        }
    }
    out
}

/// "npm run build  # No regressions" → "npm run build": a shell comment says what the command
/// checks, and the command is what a later session runs.
fn without_comment(command: &str) -> String {
    let cut = command.find(" # ").map_or(command, |at| &command[..at]);
    cut.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// `a && b && c` as its commands; `cd dir && x` stays one, the directory being part of `x`.
fn split_chain(chain: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    let mut pending_cd: Option<&str> = None;
    for part in chain.split("&&").map(str::trim).filter(|p| !p.is_empty()) {
        // "cd ../.." after "cd web/frontend && npm run build" goes back to where the plan
        // started: the command after it runs at the root.
        if part.starts_with("cd ") && part[3..].trim().split('/').all(|step| matches!(step, ".." | "")) {
            pending_cd = None;
            continue;
        }
        if part.starts_with("cd ") {
            pending_cd = Some(part);
            continue;
        }
        match pending_cd.take() {
            Some(cd) => out.push(format!("{cd} && {part}")),
            None => out.push(part.to_string()),
        }
    }
    out
}

/// What runs a project's tool without being the tool: `uv run mypy`, `npx tsc`, `python -m
/// pytest`. The tool after it is the program the command is judged by.
static RUNNER_RE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r"^(?:(?:uv|poetry|pdm|hatch|pipenv|rye|bundle|pipx) (?:run|exec)|(?:pnpm|yarn) (?:exec|dlx)|npx|bunx|uvx|python3? -m) ",
    )
    .expect("valid regex")
});

/// Checkers whose name says what they do, as `pytest` does: a type checker or a linter needs
/// no "check" word after it.
const CHECK_TOOLS: &[&str] = &[
    "mypy",
    "pyright",
    "ruff",
    "flake8",
    "pylint",
    "black",
    "isort",
    "eslint",
    "tsc",
    "prettier",
    "biome",
    "stylelint",
    "rubocop",
    "golangci-lint",
    "staticcheck",
    "shellcheck",
    "ktlint",
    "swiftlint",
    "phpstan",
];

/// `src/`, `tests/`, `.`: a top directory of the tree is the whole of a part of it, as
/// `./...` is; `./cmd/x/`, `tests/unit/test_a.py` or a bare word (`cargo test e2e`, a filter)
/// picks one piece.
fn is_a_top_directory(word: &str) -> bool {
    let w = word.trim_start_matches("./");
    w == "." || w.len() > 1 && w.ends_with('/') && !w.trim_end_matches('/').contains(['/', '.'])
}

fn is_check_command(command: &str) -> bool {
    let run = command.rsplit("&& ").next().unwrap_or(command);
    let run = RUNNER_RE.find(run).map_or(run, |m| &run[m.end()..]);
    let mut tokens = run.split_whitespace();
    let Some(program) = tokens.next() else { return false };
    if command.len() > 80
        || !PROGRAM_RE.is_match(program)
        || ONE_OFF_PROGRAMS.contains(&program)
        || command.contains(['<', '>', '|', '$', '~'])
        || command.split_whitespace().any(|t| t.starts_with('/'))
        // A test of one package or file (`go test ./cmd/x/ -v`) is a step of this plan; the
        // whole tree (`go test ./...`) is the project's check.
        || run.split_whitespace().skip(1).any(|t| t.contains('/') && t != "./..." && !is_a_top_directory(t))
    {
        return false;
    }
    let words: Vec<&str> = tokens.collect();
    // "cargo test simulation": tests picked by name are this plan's step; the flags of a run
    // ("--workspace", "-scheme Vault") and the whole tree ("./...") are not a pick.
    let test_word = |w: &str| w.split([':', '.', '_']).any(|part| TEST_WORDS.contains(&part));
    let picked = if program.ends_with("test") {
        &words[..]
    } else {
        match words.iter().position(|w| test_word(w)) {
            Some(at) => &words[at + 1..],
            None => &[][..],
        }
    };
    // A plan may elide what does not change ("xcodebuild test ... -only-testing:VaultTests").
    let after_flag = |i: usize| i > 0 && picked[i - 1].starts_with('-') && !picked[i - 1].contains('=');
    if picked.iter().enumerate().any(|(i, w)| {
        !w.starts_with('-')
            && !after_flag(i)
            && !matches!(*w, "./..." | "..." | "…")
            && !is_a_top_directory(w)
    }) {
        return false;
    }
    // `pytest`, `vitest`, `mypy`: the tool's name says what it does.
    if program.ends_with("test") || CHECK_TOOLS.contains(&program) {
        return true;
    }
    !words.is_empty()
        && words.iter().any(|w| {
            w.split([':', '/', '.', '_']).any(|part| CHECK_WORDS.contains(&part.trim_start_matches('-')))
        })
}

/// The words that run tests: what follows them, other than flags, picks which.
const TEST_WORDS: &[&str] = &["test", "tests", "e2e"];

/// "manage.py check" when "python manage.py check" is listed: the end of a command already
/// there, copied from the plan's prose.
fn is_fragment_of(short: &str, long: &str) -> bool {
    let Some(before) = long.strip_suffix(short) else { return false };
    // "cd web && npm test" is another command than "npm test": it runs elsewhere.
    !before.is_empty() && before.ends_with(' ') && !before.trim_end().ends_with("&&")
}

/// `uv run pytest tests/ -v` beside `uv run pytest`: the same run told in more words (the top
/// directories it names and how loud it is change nothing it checks).
fn same_run(a: &str, b: &str) -> bool {
    let bare = |c: &str| {
        c.split_whitespace()
            .filter(|w| {
                !is_a_top_directory(w) && !matches!(*w, "-v" | "-vv" | "--verbose" | "-q" | "--quiet")
            })
            .collect::<Vec<_>>()
            .join(" ")
    };
    bare(a) == bare(b)
}

/// Adds a command unless the list holds it or holds it whole; a fuller form of a command
/// listed takes its place.
fn add_command(commands: &mut Vec<String>, command: String) -> bool {
    if commands.iter().any(|c| *c == command || is_fragment_of(&command, c) || same_run(c, &command)) {
        return false;
    }
    if let Some(at) = commands.iter().position(|c| is_fragment_of(c, &command)) {
        commands[at] = command;
        return true;
    }
    if commands.len() >= MAX_COMMANDS {
        return false;
    }
    commands.push(command);
    true
}

#[cfg(test)]
mod tests {
    use super::*;

    const PLAN: &str = "Implement the following plan:\n\n# Plan: Tree view\n\n## Context\n\nRun `bun run build` once the tree lands.\n\n## Verification\n\n1. `bun run test` - All existing tests pass\n1. `go test ./cmd/entire/cli/versioncheck/ -v -count=1`\n2. `bun run lint` - No lint errors\n3. `cd frontend && bun run css:build` - CSS rebuilds\n3. `cd packages/web && npm test`\n4. Manual test: `mkdir /tmp/x && cd /tmp/x && git init`, then `entire enable` should warn\n\n```bash\nmise run fmt && mise run lint && mise run test:ci\n```\n\n## Notes\n\n`bun run typecheck` is slow.\n";

    #[test]
    fn the_verification_section_gives_the_check_commands() {
        assert_eq!(
            verification(PLAN).as_deref(),
            Some(
                "Verify changes with `bun run test`, `bun run lint`, `cd frontend && bun run css:build`, `cd packages/web && npm test`, `mise run fmt`, `mise run lint`, `mise run test:ci`."
            )
        );
    }

    #[test]
    fn a_shell_line_continued_with_a_backslash_is_one_command() {
        let plan = "Implement the following plan:\n\n# Plan: Queue\n\n## Verification\n```bash\nxcodebuild test -project Vault.xcodeproj -scheme Vault \\\n  -only-testing:VaultTests\n```\n";
        assert_eq!(
            verification(plan).as_deref(),
            Some(
                "Verify changes with `xcodebuild test -project Vault.xcodeproj -scheme Vault -only-testing:VaultTests`."
            )
        );
    }

    #[test]
    fn commands_outside_the_section_and_manual_steps_are_not_read() {
        let v = verification(PLAN).expect("commands");
        for absent in ["bun run build", "bun run typecheck", "mkdir", "git init", "entire enable"] {
            assert!(!v.contains(absent), "{absent} in {v}");
        }
        assert_eq!(verification("Implement the following plan:\n\n## Steps\n\n`bun run test`\n"), None);
        // A command's shell comment and its padding are not the command.
        assert_eq!(
            verification("Implement the following plan:\n\n## Verification\n\n```bash\nnpm run build   # No regressions\ncd backend && pytest        # Tests pass\n```\n").as_deref(),
            Some("Verify changes with `npm run build`, `cd backend && pytest`.")
        );
        assert_eq!(
            verification("Implement the following plan:\n\n## Verification\n\nOpen the page and look.\n"),
            None
        );
    }

    #[test]
    fn picked_tests_and_fragments_are_not_the_projects_checks() {
        let plan = "Implement the following plan:\n\n## Verification\n\n```bash\ncargo check\ncargo test simulation\ncargo test risk::config\ncargo test --workspace\ngo test ./...\nxcodebuild test ... -only-testing:VaultTests\npython manage.py migrate --check\n```\n\nThen `migrate --check` and `manage.py check` again, and `python manage.py check`.\n";
        assert_eq!(
            verification(plan).as_deref(),
            Some(
                "Verify changes with `cargo check`, `cargo test --workspace`, `go test ./...`, `xcodebuild test ... -only-testing:VaultTests`, `python manage.py migrate --check`, `python manage.py check`."
            )
        );
        // A fuller form said by a later plan takes the place of the fragment.
        assert_eq!(
            union(
                "Verify changes with `pytest`, `manage.py check`.",
                "Verify changes with `python manage.py check`."
            )
            .as_deref(),
            Some("Verify changes with `pytest`, `python manage.py check`.")
        );
        assert_eq!(union("Verify changes with `uv run pytest`.", "Verify changes with `pytest`."), None);
        // Elsewhere is another command; back up to the root is none.
        assert_eq!(
            union(
                "Verify changes with `go build ./...`.",
                "Verify changes with `cd web && npm test`, `npm test`."
            )
            .as_deref(),
            Some("Verify changes with `go build ./...`, `cd web && npm test`, `npm test`.")
        );
        let plan = "Implement the following plan:\n\n## Verification\n\n1. `go build ./...`\n2. `cd web/frontend && npm run build`\n3. `cd ../.. && go build ./...` and `go test ./...`\n";
        assert_eq!(
            verification(plan).as_deref(),
            Some(
                "Verify changes with `go build ./...`, `cd web/frontend && npm run build`, `go test ./...`."
            )
        );
    }

    #[test]
    fn a_tool_run_through_its_runner_on_the_top_directories_is_a_check() {
        let plan = "Implement the following plan:\n\n## Verification\n\n```bash\nuv run ruff check src/ tests/ && uv run mypy src/ tests/ && uv run pytest tests/ -v && uv run pytest tests/unit/test_cli.py && cargo test e2e && npx tsc --noEmit && uv run python scripts/seed.py\n```\n";
        assert_eq!(
            verification(plan).as_deref(),
            Some(
                "Verify changes with `uv run ruff check src/ tests/`, `uv run mypy src/ tests/`, `uv run pytest tests/ -v`, `npx tsc --noEmit`."
            )
        );
        // The same run in more words adds nothing.
        assert_eq!(
            union("Verify changes with `uv run pytest`.", "Verify changes with `uv run pytest tests/ -v`."),
            None
        );
    }

    #[test]
    fn a_newer_plan_adds_its_commands_once() {
        let older = "Verify changes with `bun run test`, `bun run lint`.";
        let newer = verification(
            "Implement the following plan:\n## Verification\n- `bun run test`\n- `bun run typecheck`\n",
        )
        .expect("commands");
        assert_eq!(
            union(older, &newer).as_deref(),
            Some("Verify changes with `bun run test`, `bun run lint`, `bun run typecheck`.")
        );
        assert_eq!(union(&newer, "Verify changes with `bun run test`."), None);
        assert!(is_verification(older) && !is_verification("We verify with bun."));
    }

    #[test]
    fn the_statement_survives_the_rules_whole() {
        // The dream recognises the line by its start: the rules must not cut it as a label.
        let statement = verification(PLAN).expect("commands");
        let day = jiff::civil::date(2026, 7, 1);
        match super::super::durable::judge(&statement, day, true) {
            super::super::durable::Verdict::Keep(k) => assert_eq!(k.text, statement),
            other => panic!("dropped: {other:?}"),
        }
    }

    #[test]
    fn a_goal_that_says_how_things_will_be_is_the_design_approved() {
        let plan = "Implement the following plan:\n\n# Plan: Consolidate\n\n## Context\n\nBoth files drift.\n\n**Goal**: When both files coexist, AGENTS.md becomes the source of truth.\nCLAUDE.md is reduced to `@AGENTS.md`.\n\n## Changes\n\n### 1. Add a type\n";
        assert_eq!(
            goal(plan).as_deref(),
            Some(
                "When both files coexist, AGENTS.md becomes the source of truth. CLAUDE.md is reduced to `@AGENTS.md`."
            )
        );
        // A goal under a heading of its own.
        assert_eq!(
            goal("Implement the following plan:\n## Goal\n\nEach suggestion **states** whether it creates a file.\n\n## Changes\n").as_deref(),
            Some("Each suggestion states whether it creates a file.")
        );
    }

    #[test]
    fn a_goal_that_is_the_task_or_a_list_is_not_read() {
        for plan in [
            // The work of this plan, in the imperative.
            "Implement the following plan:\n**Goal**: Change session folder numbering from `1/` to `0/`.\n",
            "Implement the following plan:\n**Goal**: Introduce a 4-phase pipeline: plan, then execute.\n",
            // A lead-in to the list that holds it.
            "Implement the following plan:\n## Goal\nError handling with this priority:\n\n1. **SilentError** → print nothing\n",
            "Implement the following plan:\n## Goal\nThe fields go:\n- `session_ids`\n",
            // No goal at all; a goal heading with more words is another section.
            "Implement the following plan:\n## Context\nThe cache is slow.\n",
            "Implement the following plan:\n## Goals and non-goals\nThe cache stays on disk.\n",
        ] {
            assert_eq!(goal(plan), None, "{plan}");
        }
        let long =
            format!("Implement the following plan:\n**Goal**: The cache {}.\n", "stays warm ".repeat(40));
        assert_eq!(goal(&long), None);
    }

    #[test]
    fn only_an_approved_plan_is_a_handoff() {
        assert!(is_handoff("Implement the following plan:\n\n# Plan: x"));
        assert!(!is_handoff("Please implement the plan we discussed"));
    }
}
