//! The referents of one fact line, found conservatively: only what clearly names a thing of
//! the project. URLs, absolute and home paths, globs, placeholders and prose words are never
//! referents.

use std::collections::BTreeSet;
use std::sync::LazyLock;

use regex::Regex;

use super::{Referent, Runner};

/// File extensions that make a token a path, besides the source ones ([`super::SOURCE_EXTENSIONS`]).
const OTHER_PATH_EXTENSIONS: &[&str] = &[
    "md", "jsonc", "erl", "sql", "html", "css", "scss", "txt", "lock", "xml", "proto", "graphql", "csv",
    "ipynb",
];

/// Top-level folders whose entries are paths even without an extension (`bin/` entries).
const PATH_PREFIXES: &[&str] = &["./", "bin/", "scripts/", "script/"];

/// Environment variables every shell has: never "read by the code" in a way we can check.
const SYSTEM_VARS: &[&str] = &[
    "HOME",
    "PATH",
    "USER",
    "SHELL",
    "PWD",
    "OLDPWD",
    "TMPDIR",
    "TMP",
    "TEMP",
    "LANG",
    "LC_ALL",
    "TERM",
    "EDITOR",
    "VISUAL",
    "PAGER",
    "HOSTNAME",
    "LOGNAME",
    "DISPLAY",
    "CI",
    "XDG_CONFIG_HOME",
    "XDG_DATA_HOME",
    "XDG_STATE_HOME",
    "XDG_CACHE_HOME",
    "XDG_RUNTIME_DIR",
    "SSH_AUTH_SOCK",
    "GOPATH",
    "CARGO_HOME",
    "RUSTUP_HOME",
    "JAVA_HOME",
    "NODE_ENV",
    "RUST_LOG",
    "RUST_BACKTRACE",
    "GITHUB_TOKEN",
];

/// Words after pnpm / yarn / bun that are their own commands, not scripts.
const PM_BUILTINS: &[&str] = &[
    "install",
    "i",
    "add",
    "remove",
    "rm",
    "update",
    "up",
    "upgrade",
    "exec",
    "dlx",
    "create",
    "init",
    "publish",
    "link",
    "unlink",
    "why",
    "list",
    "ls",
    "outdated",
    "audit",
    "config",
    "store",
    "import",
    "prune",
    "patch",
    "pack",
    "run",
    "test",
    "start",
    "info",
    "x",
    "global",
    "cache",
    "workspace",
    "workspaces",
    "set",
    "version",
    "help",
    "login",
    "logout",
    "env",
    "rebuild",
    "dedupe",
    "fetch",
];

/// cargo's own commands (and common plugins): not aliases.
const CARGO_BUILTINS: &[&str] = &[
    "build",
    "b",
    "check",
    "c",
    "clean",
    "doc",
    "d",
    "new",
    "init",
    "add",
    "remove",
    "run",
    "r",
    "test",
    "t",
    "bench",
    "update",
    "search",
    "publish",
    "install",
    "uninstall",
    "fmt",
    "clippy",
    "fix",
    "tree",
    "vendor",
    "metadata",
    "package",
    "login",
    "logout",
    "owner",
    "yank",
    "help",
    "version",
    "generate-lockfile",
    "locate-project",
    "pkgid",
    "report",
    "rustc",
    "rustdoc",
    "fetch",
    "verify-project",
    "config",
    "info",
    "nextest",
    "insta",
    "llvm-cov",
    "tarpaulin",
    "audit",
    "deny",
    "expand",
    "watch",
    "udeps",
    "outdated",
    "edit",
    "upgrade",
    "set-version",
    "release",
    "dist",
    "binstall",
    "fuzz",
    "miri",
    "bloat",
    "machete",
    "hack",
    "make",
    "xtask",
];

/// Words that make a fact about history (a rename, a removal): its old referent being gone is
/// what it says, so it is never moved.
const HISTORY_WORDS: &[&str] = &[
    "renamed",
    "rename",
    "moved",
    "removed",
    "deleted",
    "replaced",
    "deprecated",
    "no longer",
    "used to",
    "instead of",
    "formerly",
    "was dropped",
    "dropped",
    "gone",
    "retired",
    "migrated",
    "superseded",
    "obsolete",
    "legacy",
    "don't use",
    "do not use",
    "never use",
    "not use",
    "old ",
    "previously",
];

static BACKTICKS: LazyLock<Regex> = LazyLock::new(|| Regex::new(r"`([^`\n]+)`").expect("valid"));
static BRANCH: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"(?i)\bbranch(?:es)?\s+`([^`\s]+)`|`([^`\s]+)`\s+branch\b").expect("valid"));
static DOLLAR_VAR: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"\$\{?([A-Z][A-Z0-9_]{2,})\}?").expect("valid"));
static ASSIGN_VAR: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"(?:^|[\s`(])([A-Z][A-Z0-9]*_[A-Z0-9_]+)=").expect("valid"));
static PROSE_RUN: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"\b(?:npm|pnpm|yarn|bun) run ([A-Za-z0-9][\w:.\-]*)").expect("valid"));
static SCRIPT_NAME: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"^[A-Za-z0-9][A-Za-z0-9_:.\-]*$").expect("valid"));
static BRANCH_NAME: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"^[A-Za-z0-9][A-Za-z0-9._/\-]*$").expect("valid"));
static BINARY_NAME: LazyLock<Regex> = LazyLock::new(|| Regex::new(r"^[a-z][a-z0-9_\-]*$").expect("valid"));

static HISTORY: LazyLock<Regex> = LazyLock::new(|| {
    let words: Vec<String> = HISTORY_WORDS.iter().map(|w| regex::escape(w.trim())).collect();
    Regex::new(&format!(r"(?i)\b(?:{})\b", words.join("|"))).expect("valid")
});

/// Whether a fact line is about history (a rename, a removal, what not to use any more),
/// in its prose: a word inside a code span (`src/gone/`) says nothing.
pub fn looks_like_history(fact: &str) -> bool {
    HISTORY.is_match(&BACKTICKS.replace_all(fact, " "))
}

/// The referents a fact line names.
pub fn extract(fact: &str) -> BTreeSet<Referent> {
    let mut out = BTreeSet::new();
    // Branches first: their backticked names are not paths.
    let mut branch_spans = Vec::new();
    for c in BRANCH.captures_iter(fact) {
        let m = c.get(1).or_else(|| c.get(2)).expect("one group matched");
        if BRANCH_NAME.is_match(m.as_str()) && !m.as_str().ends_with('/') {
            out.insert(Referent::Branch(m.as_str().to_string()));
            branch_spans.push(m.start());
        }
    }
    for c in BACKTICKS.captures_iter(fact) {
        let span = c.get(1).expect("group");
        if branch_spans.contains(&span.start()) {
            continue;
        }
        code_span(span.as_str().trim(), &mut out);
    }
    // Prose outside code spans: `npm run X`, `$VAR`, `VAR=`, and paths with a folder and an
    // extension (`scripts/deploy.sh`).
    let prose = BACKTICKS.replace_all(fact, " ");
    for c in PROSE_RUN.captures_iter(&prose) {
        out.insert(Referent::Script(Runner::Npm, trim_script(&c[1]).to_string()));
    }
    env_vars(fact, &mut out);
    for word in prose.split_whitespace() {
        let word = word.trim_matches(|c: char| matches!(c, ',' | ';' | '(' | ')' | '"' | '\'' | '!' | '?'));
        let word = word.strip_suffix('.').unwrap_or(word);
        if word.contains('/')
            && has_extension(word)
            && let Some(p) = repo_path(word)
        {
            out.insert(Referent::Path(p));
        }
    }
    out
}

/// `$VAR`, `${VAR}` and `VAR=` anywhere in the line.
fn env_vars(fact: &str, out: &mut BTreeSet<Referent>) {
    let names =
        DOLLAR_VAR.captures_iter(fact).chain(ASSIGN_VAR.captures_iter(fact)).map(|c| c[1].to_string());
    for name in names {
        if !SYSTEM_VARS.contains(&name.as_str()) {
            out.insert(Referent::Env(name));
        }
    }
}

/// What a script name looks like once trailing punctuation of the sentence is gone.
fn trim_script(s: &str) -> &str {
    s.trim_end_matches(['.', ':', ','])
}

/// The referents of one code span: a command (its runner's script, its binary, its path
/// arguments) or a single path.
fn code_span(span: &str, out: &mut BTreeSet<Referent>) {
    let words: Vec<&str> = span.split_whitespace().collect();
    let Some(&first) = words.first() else { return };
    if words.len() == 1 {
        if let Some(p) = repo_path(first).filter(|p| is_path_like(p)) {
            out.insert(Referent::Path(p));
        }
        return;
    }
    // Leading `VAR=value` assignments are environment, then the command.
    let mut i = 0;
    while i < words.len() && words[i].contains('=') && !words[i].starts_with('-') {
        i += 1;
    }
    let Some(&cmd) = words.get(i) else { return };
    let rest = &words[i + 1..];
    let arg = |n: usize| rest.get(n).copied().filter(|w| !w.starts_with('-') && !w.contains('='));
    match cmd {
        "npm" | "pnpm" | "yarn" | "bun" => {
            let script = match arg(0) {
                Some("run") => arg(1),
                Some(w) if cmd != "npm" && !PM_BUILTINS.contains(&w) => Some(w),
                _ => None,
            };
            // `pnpm --filter x run y`, `npm -w pkg run y`: another package's scripts, unchecked.
            if rest.first().is_some_and(|w| w.starts_with('-')) {
                return;
            }
            if let Some(s) = script.map(trim_script).filter(|s| SCRIPT_NAME.is_match(s)) {
                out.insert(Referent::Script(Runner::Npm, s.to_string()));
            }
        }
        "make" | "just" => {
            // `make -C dir x`, `just -f other x`: another file's targets, unchecked.
            if rest.iter().any(|w| w.starts_with('-')) {
                return;
            }
            let runner = if cmd == "make" { Runner::Make } else { Runner::Just };
            if let Some(t) = arg(0).filter(|t| SCRIPT_NAME.is_match(t)) {
                out.insert(Referent::Script(runner, t.to_string()));
            }
        }
        "cargo" => {
            if let Some(a) = arg(0).filter(|a| !CARGO_BUILTINS.contains(a) && SCRIPT_NAME.is_match(a)) {
                out.insert(Referent::Script(Runner::Cargo, a.to_string()));
            }
        }
        _ => {
            if let Some(p) = repo_path(cmd).filter(|p| is_path_like(p)) {
                out.insert(Referent::Path(p));
            } else if BINARY_NAME.is_match(cmd) {
                out.insert(Referent::Binary(cmd.to_string()));
            }
        }
    }
    // Path arguments with a folder and an extension (`python tools/gen.py`).
    for w in rest {
        if w.contains('/')
            && has_extension(w)
            && let Some(p) = repo_path(w)
        {
            out.insert(Referent::Path(p));
        }
    }
}

/// A token as a path relative to the project root, or `None` when it cannot be one: a URL,
/// an absolute or home path, a glob, a placeholder, a scoped package, a parent folder.
fn repo_path(token: &str) -> Option<String> {
    // `src/lib.rs:42` and `src/lib.rs#L42` name a line of a file.
    let token = token.split_once('#').map_or(token, |(p, _)| p);
    let token = match token.rsplit_once(':') {
        Some((p, line)) if !line.is_empty() && line.chars().all(|c| c.is_ascii_digit()) => p,
        _ => token,
    };
    let bad_start = ['/', '~', '$', '-', '@', '%', '<', '{', '.'];
    let rel = token.strip_prefix("./").unwrap_or(token);
    if rel.is_empty()
        || rel.starts_with(bad_start) && !rel.starts_with(".github/") && !is_dotfile(rel)
        || rel.contains("://")
        || rel.contains(|c: char| {
            c.is_whitespace()
                || matches!(
                    c,
                    '*' | '?'
                        | '['
                        | ']'
                        | '{'
                        | '}'
                        | '<'
                        | '>'
                        | '|'
                        | '"'
                        | '\''
                        | ':'
                        | '='
                        | '\\'
                        | '$'
                        | '`'
                        | ','
                        | '('
                        | ')'
                )
        })
        || rel.split('/').any(|c| c == ".." || c == ".")
        || rel.contains("//")
    {
        return None;
    }
    Some(rel.to_string())
}

/// `.env.example`, `.github/…`, `.cargo/config.toml`: dot names that are project files.
fn is_dotfile(rel: &str) -> bool {
    let first = rel.split('/').next().unwrap_or(rel);
    first.len() > 1
        && first[1..].chars().all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-'))
        && (has_extension(rel) || rel.contains('/'))
}

fn has_extension(token: &str) -> bool {
    let name = token.trim_end_matches('/').rsplit('/').next().unwrap_or(token);
    match name.rsplit_once('.') {
        Some((stem, ext)) => {
            !stem.is_empty()
                && {
                    let ext = ext.to_ascii_lowercase();
                    super::SOURCE_EXTENSIONS.contains(&ext.as_str())
                        || OTHER_PATH_EXTENSIONS.contains(&ext.as_str())
                }
                && !is_product_name(name)
        }
        None => false,
    }
}

/// `Node.js`, `Vue.js`, `Next.js`: names of things, not files.
fn is_product_name(name: &str) -> bool {
    name.strip_suffix(".js").is_some_and(|stem| {
        stem.chars().next().is_some_and(char::is_uppercase) && !stem.contains(['.', '-', '_'])
    })
}

/// A single code span that is a path: an extension, a folder (`docs/`), or an entry of a
/// folder of commands (`bin/release`). `owner/repo` and `feature/x` alone are not.
fn is_path_like(rel: &str) -> bool {
    has_extension(rel)
        || (rel.ends_with('/') && rel.len() > 1)
        || PATH_PREFIXES.iter().any(|p| rel.starts_with(p) && rel.len() > p.len())
        || matches!(
            rel,
            "Makefile" | "justfile" | "Justfile" | "Dockerfile" | "Procfile" | "Gemfile" | "Rakefile"
        )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn refs(s: &str) -> Vec<String> {
        extract(s).iter().map(|r| r.to_string()).collect()
    }

    #[test]
    fn paths_in_code_spans_and_prose() {
        assert_eq!(refs("Deploy with `scripts/deploy.sh` (2026-01-02)."), ["path `scripts/deploy.sh`"]);
        assert_eq!(refs("Specs live in `spec/`."), ["path `spec/`"]);
        assert_eq!(refs("The config is in config/app.yml now"), ["path `config/app.yml`"]);
        assert_eq!(refs("See `src/lib.rs:42` and `README.md`."), ["path `README.md`", "path `src/lib.rs`"]);
        assert_eq!(refs("Run `./bin/release` to ship"), ["path `bin/release`"]);
        assert_eq!(refs("Secrets in `.env.example`"), ["path `.env.example`"]);
    }

    #[test]
    fn never_urls_home_paths_globs_or_product_names() {
        for s in [
            "Docs at https://example.org/docs/index.html",
            "Notes in `~/notes/todo.md`",
            "Logs in `/var/log/app.log`",
            "Tests match `src/**/*.test.ts`",
            "We use `Node.js` and `Vue.js`",
            "The upstream is `acme/billing`",
            "Install `@acme/ui`",
            "It lives in `../other/file.rs`",
            "We use yarn/pnpm and CI/CD",
            "Make sure the tests pass",
        ] {
            assert!(refs(s).is_empty(), "{s}: {:?}", refs(s));
        }
    }

    #[test]
    fn scripts_of_each_runner() {
        assert_eq!(refs("Run `npm run test:unit` before pushing."), ["package.json script `test:unit`"]);
        assert_eq!(refs("Unit tests: npm run test:unit."), ["package.json script `test:unit`"]);
        assert_eq!(refs("`pnpm lint` checks it"), ["package.json script `lint`"]);
        assert!(refs("`pnpm install` first").is_empty());
        assert_eq!(refs("`make deploy` ships"), ["Makefile target `deploy`"]);
        assert!(refs("`make -C docs html`").is_empty());
        assert_eq!(refs("`just lint`"), ["justfile recipe `lint`"]);
        assert_eq!(refs("`cargo xt-ci` runs CI locally"), ["cargo alias `xt-ci`"]);
        assert!(refs("`cargo test --workspace`").is_empty());
    }

    #[test]
    fn env_vars_branches_and_binaries() {
        assert_eq!(refs("Set $DATABASE_URL for tests"), ["environment variable `DATABASE_URL`"]);
        assert_eq!(refs("`STRIPE_KEY=sk_test cargo run` starts it"), ["environment variable `STRIPE_KEY`"]);
        assert!(refs("$HOME and $PATH").is_empty());
        assert_eq!(refs("Releases are cut from branch `release/2.x`"), ["branch `release/2.x`"]);
        assert_eq!(refs("the `main` branch is protected"), ["branch `main`"]);
        assert_eq!(refs("Search with `rg -n foo`"), ["command `rg`"]);
        assert_eq!(
            refs("`python tools/gen.py` makes the schema"),
            ["path `tools/gen.py`", "command `python`"]
        );
    }

    #[test]
    fn history_facts_are_recognised() {
        assert!(looks_like_history("`scripts/old.sh` was renamed to `scripts/new.sh`"));
        assert!(looks_like_history("We no longer use `Makefile`"));
        assert!(!looks_like_history("Deploy with `scripts/deploy.sh`"));
        assert!(!looks_like_history("Module x lives in `src/gone/old.rs`"), "words in a code span");
        assert!(!looks_like_history("The bold theme is in `theme.css`"), "whole words only");
    }
}
