//! `doctor`: everything that would stop dreams from reaching the agent, each with its fix.
//!
//! Each [`Check`] is `ok`, `warn` (works, but something is off) or `problem` (dreams do not
//! reach the agent, or not whole); [`Diagnosis::has_problems`] is the command's exit status.
//! The checks, in order:
//!
//! | check          | looks at                                                                 |
//! |----------------|--------------------------------------------------------------------------|
//! | binaries       | `autodream`, and `autodream-hook` next to it                             |
//! | hook           | an autodream hook in the user, project or local settings; its program    |
//! | memory_folder  | the folder the client loads (its own rules) against the one autodream writes, and any `--memory-dir` baked into a hook |
//! | auto_memory    | the client's auto memory switch (off: it loads no MEMORY.md)              |
//! | client_dream   | `autoDreamEnabled` (not `false`: the client's own dream may run too)      |
//! | index          | MEMORY.md against the client's limits (200 lines, 25,000 UTF-16 units)   |
//! | context        | what MEMORY.md adds to every session: bytes and estimated tokens         |
//! | lock           | the consolidation lock's holder, and the last dream                      |
//! | gates          | the gates' verdict                                                       |
//! | transcripts    | the project's transcripts parsed, and the lines skipped                  |
//!
//! The token estimate ([`estimate_tokens`]) is the usual ~4 bytes a token, for others to call.

use std::path::{Path, PathBuf};

use serde::Serialize;
use serde_json::Value;

use crate::clock::{Clock, human_ago};
use crate::config::LoadedConfig;
use crate::gates::{self, GateInput, GateName};
use crate::install::claude_code::{self, Homes, RegisteredHook};
use crate::memdir::index;
use crate::paths::Locations;
use crate::sessions;

/// Bytes per token in [`estimate_tokens`].
pub const BYTES_PER_TOKEN: usize = 4;
/// The most recent transcripts [`diagnose`] parses.
pub const TRANSCRIPTS_SAMPLED: usize = 20;

/// A rough token count for `bytes` of text: one token per [`BYTES_PER_TOKEN`] bytes, rounded up.
pub fn estimate_tokens(bytes: usize) -> usize {
    bytes.div_ceil(BYTES_PER_TOKEN)
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Status {
    Ok,
    Warn,
    Problem,
}

impl Status {
    pub fn as_str(self) -> &'static str {
        match self {
            Status::Ok => "ok",
            Status::Warn => "warn",
            Status::Problem => "problem",
        }
    }
}

/// One finding.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Check {
    /// A stable name: binaries, hook, memory_folder, …
    pub name: &'static str,
    pub status: Status,
    /// What was found, on one line.
    pub summary: String,
    /// What to do about it, on one line (none when all is well).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub fix: Option<String>,
}

impl Check {
    fn ok(name: &'static str, summary: impl Into<String>) -> Check {
        Check { name, status: Status::Ok, summary: summary.into(), fix: None }
    }
    fn warn(name: &'static str, summary: impl Into<String>, fix: impl Into<String>) -> Check {
        Check { name, status: Status::Warn, summary: summary.into(), fix: Some(fix.into()) }
    }
    fn problem(name: &'static str, summary: impl Into<String>, fix: impl Into<String>) -> Check {
        Check { name, status: Status::Problem, summary: summary.into(), fix: Some(fix.into()) }
    }
}

/// What MEMORY.md costs every session.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct ContextCost {
    /// Bytes of MEMORY.md the client loads (front matter and comments out, cut at its limits).
    pub bytes: usize,
    /// [`estimate_tokens`] of `bytes`.
    pub tokens: usize,
    pub lines: usize,
    /// The client cuts the file (too many lines or units).
    pub truncated: bool,
}

/// What the client loads of MEMORY.md at `memory_dir`, measured as it loads it; `None` when
/// there is no MEMORY.md.
pub fn context_cost(memory_dir: &Path, max_lines: usize, max_units: usize) -> Option<ContextCost> {
    let raw = std::fs::read_to_string(memory_dir.join(crate::memdir::INDEX_FILE)).ok()?;
    let m = index::measure(&raw);
    let body = crate::memdir::topic::split_front_matter(&raw).map_or(raw.as_str(), |(_, body, _)| body);
    let trimmed = strip_comments(body);
    let trimmed = trimmed.trim();
    let mut loaded: String = trimmed.split('\n').take(max_lines).collect::<Vec<_>>().join("\n");
    let units: usize = loaded.encode_utf16().count();
    if units > max_units {
        // Cut at the last newline before the limit, as the client does.
        let mut cut = String::new();
        let mut n = 0;
        for c in loaded.chars() {
            n += c.len_utf16();
            if n > max_units {
                break;
            }
            cut.push(c);
        }
        loaded = match cut.rfind('\n') {
            Some(i) if i > 0 => cut[..i].to_string(),
            _ => cut,
        };
    }
    let truncated = m.lines > max_lines || m.units > max_units;
    Some(ContextCost {
        bytes: loaded.len(),
        tokens: estimate_tokens(loaded.len()),
        lines: m.lines.min(max_lines),
        truncated,
    })
}

fn strip_comments(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(start) = rest.find("<!--") {
        out.push_str(&rest[..start]);
        match rest[start..].find("-->") {
            Some(end) => rest = &rest[start + end + 3..],
            None => {
                rest = "";
            }
        }
    }
    out.push_str(rest);
    out
}

/// The whole diagnosis.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Diagnosis {
    pub memory_dir: PathBuf,
    /// The folder the client loads for this project.
    pub client_memory_dir: Option<PathBuf>,
    pub context: Option<ContextCost>,
    pub checks: Vec<Check>,
}

impl Diagnosis {
    /// Something stops dreams from reaching the agent.
    pub fn has_problems(&self) -> bool {
        self.checks.iter().any(|c| c.status == Status::Problem)
    }

    pub fn count(&self, status: Status) -> usize {
        self.checks.iter().filter(|c| c.status == status).count()
    }
}

/// What [`diagnose`] looks at.
pub struct DoctorInput<'a> {
    pub locations: &'a Locations,
    pub config: &'a LoadedConfig,
    pub clock: Clock,
    pub homes: &'a Homes,
    /// The running `autodream` binary.
    pub autodream_exe: Option<PathBuf>,
    /// `PATH`, for hooks that name their program without a path.
    pub path_var: Option<std::ffi::OsString>,
}

/// Runs every check.
pub fn diagnose(input: &DoctorInput<'_>) -> Diagnosis {
    let loc = input.locations;
    let cfg = &input.config.config;
    let project = &loc.project_dir;
    let mut checks = Vec::new();

    // Binaries.
    match &input.autodream_exe {
        Some(exe) => match claude_code::Options::hook_beside(exe) {
            Some(h) if is_executable(&h) => {
                checks.push(Check::ok("binaries", format!("{} and {}", exe.display(), h.display())))
            }
            Some(h) => checks.push(Check::warn(
                "binaries",
                format!("{} is not executable", h.display()),
                format!("chmod +x '{}'", h.display()),
            )),
            None => checks.push(Check::warn(
                "binaries",
                format!("{} has no {} next to it", exe.display(), claude_code::HOOK_BIN),
                "install both binaries into one folder (cargo install puts them together); the hook then starts faster",
            )),
        },
        None => checks.push(Check::warn("binaries", "cannot tell where autodream runs from", "run autodream by its path")),
    }

    // The hook.
    let hooks = claude_code::registered_hooks(input.homes, project);
    let plugin = plugin_enabled(input.homes, project);
    let mut hook_ok = false;
    if hooks.is_empty() && plugin.is_none() {
        checks.push(Check::problem(
            "hook",
            "no autodream hook in Claude Code's settings (user, project or local): nothing starts a dream",
            "autodream install claude-code",
        ));
    } else {
        // One line per settings file and command, naming its events.
        let mut seen: Vec<(&Path, &str)> = Vec::new();
        for h in &hooks {
            if seen.contains(&(h.settings.as_path(), h.command.as_str())) {
                continue;
            }
            seen.push((h.settings.as_path(), h.command.as_str()));
            let events: Vec<&str> = hooks
                .iter()
                .filter(|o| o.settings == h.settings && o.command == h.command)
                .map(|o| o.event.as_str())
                .collect();
            match program_problem(h, &events.join(", "), input.path_var.as_deref()) {
                Some((summary, fix)) => checks.push(Check::problem("hook", summary, fix)),
                None => {
                    hook_ok = true;
                }
            }
        }
        if let Some(source) = &plugin {
            let path_var = input.path_var.as_deref();
            let found = [claude_code::HOOK_BIN, "autodream"]
                .iter()
                .find_map(|name| find_on_path(Path::new(name), path_var).filter(|p| is_executable(p)));
            match found {
                Some(p) => {
                    hook_ok = true;
                    checks.push(Check::ok(
                        "hook",
                        format!("the autodream plugin is enabled in {}; it runs {}", source.display(), p.display()),
                    ));
                }
                None => checks.push(Check::problem(
                    "hook",
                    format!(
                        "the autodream plugin is enabled in {} but neither autodream-hook nor autodream is on PATH",
                        source.display()
                    ),
                    "put both binaries on PATH (cargo install), or run `autodream install claude-code` for absolute paths",
                )),
            }
        }
        if hook_ok && !hooks.is_empty() {
            let events: Vec<&str> = {
                let mut e: Vec<&str> = hooks.iter().map(|h| h.event.as_str()).collect();
                e.sort();
                e.dedup();
                e
            };
            let scopes: Vec<String> = {
                let mut s: Vec<String> = hooks.iter().map(|h| h.scope.to_string()).collect();
                s.dedup();
                s
            };
            if events.contains(&"Stop") {
                checks.push(Check::ok(
                    "hook",
                    format!(
                        "registered on {} in the {} settings: {}",
                        events.join(", "),
                        scopes.join(", "),
                        hooks[0].command
                    ),
                ));
            } else {
                checks.push(Check::warn(
                    "hook",
                    format!(
                        "registered on {} but not on Stop: a finished dream is never announced",
                        events.join(", ")
                    ),
                    "autodream install claude-code",
                ));
            }
        }
    }

    // The memory folder the client loads.
    let client = crate::paths::client_memory_dir(project).ok();
    match &client {
        Some((dir, source)) => {
            let mut mismatch = Vec::new();
            if !same_dir(dir, &loc.memory_dir) {
                mismatch.push(format!("autodream writes {}", loc.memory_dir.display()));
            }
            for h in &hooks {
                if let Some(m) = &h.memory_dir
                    && !same_dir(dir, m)
                {
                    mismatch.push(format!("the {} hook writes {}", h.scope, m.display()));
                }
            }
            mismatch.dedup();
            if mismatch.is_empty() {
                checks.push(Check::ok("memory_folder", format!("{} (from {source})", dir.display())));
            } else {
                checks.push(Check::problem(
                    "memory_folder",
                    format!("the client loads {} (from {source}) but {}", dir.display(), mismatch.join("; ")),
                    "drop --memory-dir / AUTODREAM_MEMORY_DIR so autodream follows the client, then run \
                     `autodream install claude-code` again",
                ));
            }
        }
        None => checks.push(Check::warn(
            "memory_folder",
            "cannot tell which folder the client loads (no home folder?)",
            "set HOME",
        )),
    }

    // Auto memory in the client.
    match &input.config.auto_memory_off {
        Some(off) => checks.push(Check::problem(
            "auto_memory",
            format!("auto memory is off in the client ({}): it loads no MEMORY.md", off.reason),
            "remove autoMemoryEnabled: false from the settings, or unset CLAUDE_CODE_DISABLE_AUTO_MEMORY",
        )),
        None => checks.push(Check::ok("auto_memory", "on")),
    }

    // The client's own dream.
    match auto_dream_setting(project, input.homes) {
        Some((false, path)) => {
            checks.push(Check::ok("client_dream", format!("off (autoDreamEnabled: false in {})", path.display())))
        }
        Some((true, path)) => checks.push(Check::warn(
            "client_dream",
            format!("autoDreamEnabled is true in {}: the client's own dream may also run", path.display()),
            "set autoDreamEnabled to false (autodream install claude-code does)",
        )),
        None => checks.push(Check::warn(
            "client_dream",
            "autoDreamEnabled is not set: the client's own dream may also run when its server-side flag is on",
            "set autoDreamEnabled: false (autodream install claude-code does)",
        )),
    }

    // MEMORY.md and what it costs.
    let context = context_cost(&loc.memory_dir, cfg.index_max_lines, cfg.index_max_units);
    match index::check(&loc.memory_dir, cfg.index_max_lines, cfg.index_max_units) {
        Ok(r) if !r.index_exists => checks.push(Check::warn(
            "index",
            format!("no MEMORY.md in {} yet", loc.memory_dir.display()),
            "the first dream writes it; `autodream run` dreams now",
        )),
        Ok(r) => {
            let over: Vec<&index::Finding> = r
                .findings
                .iter()
                .filter(|f| matches!(f.code, "over_lines" | "over_units" | "symlink"))
                .collect();
            if over.is_empty() {
                checks.push(Check::ok(
                    "index",
                    format!(
                        "MEMORY.md: {} of {} lines, {} of {} units",
                        r.lines, r.max_lines, r.units, r.max_units
                    ),
                ));
            } else {
                checks.push(Check::problem(
                    "index",
                    over.iter().map(|f| f.message.clone()).collect::<Vec<_>>().join("; "),
                    "the client loads only the start: `autodream run` shortens the index; `autodream check` lists the lines",
                ));
            }
        }
        Err(e) => {
            checks.push(Check::problem("index", e.to_string(), "check the memory folder's permissions"))
        }
    }
    if let Some(c) = &context {
        let cut = if c.truncated { ", cut at the client's limit" } else { "" };
        checks.push(Check::ok(
            "context",
            format!("MEMORY.md adds {} bytes (~{} tokens) to every session{cut}", c.bytes, c.tokens),
        ));
    }

    // Lock, last dream, gates.
    let eval = gates::explain(&GateInput {
        locations: loc,
        config: input.config,
        clock: input.clock,
        current_session: None,
    });
    let now = input.clock.now();
    let last = match eval.last_consolidated_at {
        Some(t) => format!("last dream {}", human_ago(t, now)),
        None => "no dream yet".to_string(),
    };
    // A live holder is a dream running now: nothing wrong with that.
    match eval.gates.iter().find(|g| g.name == GateName::Lock) {
        Some(lock) => checks.push(Check::ok("lock", format!("{}; {last}", lock.detail))),
        None => checks.push(Check::ok("lock", last)),
    }
    match eval.failed {
        None => checks.push(Check::ok("gates", "all open: a dream starts at the next hook")),
        Some(GateName::Enabled) => {
            let detail = eval.gates.first().map(|g| g.detail.clone()).unwrap_or_default();
            if input.config.auto_memory_off.is_some() {
                checks.push(Check::problem(
                    "gates",
                    format!("closed at enabled: {detail}"),
                    "see auto_memory above",
                ));
            } else {
                checks.push(Check::problem(
                    "gates",
                    format!("closed at enabled: {detail}"),
                    "set enabled = true in autodream's config (autodream status shows where it is set)",
                ));
            }
        }
        Some(name) => {
            let detail =
                eval.gates.iter().find(|g| g.name == name).map(|g| g.detail.clone()).unwrap_or_default();
            checks.push(Check::ok("gates", format!("waiting on {}: {detail}", name.as_str())));
        }
    }

    // Transcripts.
    checks.push(transcripts_check(loc, cfg.sessions_format));

    Diagnosis {
        memory_dir: loc.memory_dir.clone(),
        client_memory_dir: client.map(|(d, _)| d),
        context,
        checks,
    }
}

fn transcripts_check(loc: &Locations, format: sessions::SessionFormat) -> Check {
    let dir = &loc.sessions_dir;
    let files = match sessions::list_sessions(dir, format) {
        Ok(f) => f,
        Err(e) => {
            return Check::warn(
                "transcripts",
                format!("cannot list {}: {e}", dir.display()),
                "start a session in this project",
            );
        }
    };
    if files.is_empty() {
        return Check::warn(
            "transcripts",
            format!("no transcripts in {} yet", dir.display()),
            "start a Claude Code session in this project (or pass --sessions-dir)",
        );
    }
    let mut recent = files;
    recent.sort_by_key(|f| std::cmp::Reverse(f.modified_at));
    let total = recent.len();
    recent.truncate(TRANSCRIPTS_SAMPLED);
    let (mut turns, mut skipped, mut unreadable) = (0, 0, 0);
    for f in &recent {
        match sessions::parse_session_file(f, format) {
            Ok(p) => {
                turns += p.turns.len();
                skipped += p.skipped_lines;
            }
            Err(_) => unreadable += 1,
        }
    }
    let summary = format!(
        "{} of {total} transcripts parsed: {turns} turns, {skipped} lines skipped{}",
        recent.len(),
        if unreadable > 0 { format!(", {unreadable} unreadable") } else { String::new() }
    );
    if unreadable > 0 || (turns == 0 && skipped > 0) {
        Check::warn("transcripts", summary, "`autodream sessions` lists them; check --sessions-format")
    } else {
        Check::ok("transcripts", summary)
    }
}

/// The program of a registered hook, when something is wrong with it: (summary, fix).
fn program_problem(
    h: &RegisteredHook,
    events: &str,
    path_var: Option<&std::ffi::OsStr>,
) -> Option<(String, String)> {
    let reinstall = format!("autodream install claude-code --scope {}", h.scope);
    let program = if h.program.components().count() > 1 {
        h.program.clone()
    } else {
        match find_on_path(&h.program, path_var) {
            Some(p) => p,
            None => {
                return Some((
                    format!(
                        "the {} hook on {events} runs {}, which is not on PATH",
                        h.scope,
                        h.program.display()
                    ),
                    reinstall,
                ));
            }
        }
    };
    if !program.exists() {
        return Some((
            format!("the {} hook on {events} runs {}, which does not exist", h.scope, program.display()),
            reinstall,
        ));
    }
    if !is_executable(&program) {
        return Some((
            format!("the {} hook on {events} runs {}, which is not executable", h.scope, program.display()),
            format!("chmod +x '{}'", program.display()),
        ));
    }
    None
}

fn find_on_path(name: &Path, path_var: Option<&std::ffi::OsStr>) -> Option<PathBuf> {
    std::env::split_paths(path_var?).map(|d| d.join(name)).find(|p| p.is_file())
}

fn is_executable(p: &Path) -> bool {
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::metadata(p).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
    }
    #[cfg(not(unix))]
    {
        p.is_file()
    }
}

fn same_dir(a: &Path, b: &Path) -> bool {
    let norm = |p: &Path| p.canonicalize().unwrap_or_else(|_| p.components().collect());
    norm(a) == norm(b)
}

fn read_json(path: &Path) -> Option<Value> {
    serde_json::from_str(&std::fs::read_to_string(path).ok()?).ok()
}

/// The settings file saying the autodream plugin is enabled (`enabledPlugins` with a key
/// `autodream@…` set to true), if any.
fn plugin_enabled(homes: &Homes, project: &Path) -> Option<PathBuf> {
    [claude_code::Scope::Local, claude_code::Scope::Project, claude_code::Scope::User].into_iter().find_map(
        |s| {
            let path = claude_code::settings_path(homes, s, project);
            let v = read_json(&path)?;
            let on = v
                .get("enabledPlugins")?
                .as_object()?
                .iter()
                .any(|(k, v)| k.starts_with("autodream@") && v.as_bool() == Some(true));
            on.then_some(path)
        },
    )
}

/// `autoDreamEnabled` as the client sees it (local over project over user) and where it is set.
fn auto_dream_setting(project: &Path, homes: &Homes) -> Option<(bool, PathBuf)> {
    [claude_code::Scope::Local, claude_code::Scope::Project, claude_code::Scope::User].into_iter().find_map(
        |s| {
            let path = claude_code::settings_path(homes, s, project);
            let v = read_json(&path)?.get("autoDreamEnabled")?.as_bool()?;
            Some((v, path))
        },
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tokens_are_about_four_bytes_each() {
        assert_eq!(estimate_tokens(0), 0);
        assert_eq!(estimate_tokens(1), 1);
        assert_eq!(estimate_tokens(4), 1);
        assert_eq!(estimate_tokens(4001), 1001);
    }

    #[test]
    fn context_cost_is_what_the_client_loads() {
        let tmp = tempfile::tempdir().unwrap();
        std::fs::write(
            tmp.path().join("MEMORY.md"),
            "<!-- note -->\n- [a](a.md) — one\n- [b](b.md) — two\n\n",
        )
        .unwrap();
        let c = context_cost(tmp.path(), 200, 25_000).unwrap();
        assert_eq!(c.bytes, "- [a](a.md) — one\n- [b](b.md) — two".len());
        assert_eq!(c.lines, 2);
        assert!(!c.truncated);
        let long: String = (0..300).map(|i| format!("- line {i}\n")).collect();
        std::fs::write(tmp.path().join("MEMORY.md"), &long).unwrap();
        let c = context_cost(tmp.path(), 200, 25_000).unwrap();
        assert!(c.truncated);
        assert_eq!(c.lines, 200);
        assert_eq!(c.bytes, long.lines().take(200).collect::<Vec<_>>().join("\n").len());
        assert!(context_cost(&tmp.path().join("none"), 200, 25_000).is_none());
    }
}
