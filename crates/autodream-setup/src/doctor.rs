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
//! | auto_memory    | the client's auto memory switch (off: it loads no MEMORY.md); its memory stores (`CLAUDE_MEMORY_STORES`: the hook stands down; how to use both) |
//! | client_dream   | `autoDreamEnabled` (not `false`: the client's own dream may run too)      |
//! | index          | MEMORY.md against the client's limits (200 lines, 25,000 UTF-16 units)   |
//! | context        | what MEMORY.md adds to every session: bytes and estimated tokens         |
//! | usage          | the follow rate: topics read in the last 20 sessions (`autodream_core::usage`) |
//! | lock           | the consolidation lock's holder, and the last dream                      |
//! | gates          | the gates' verdict                                                       |
//! | transcripts    | the project's transcripts parsed, and the lines skipped                  |
//!
//! What MEMORY.md costs every session ([`ContextCost`], with its ~4-bytes-a-token estimate) is
//! measured by `autodream_core::memdir::index`, the same figure `status` shows.

use std::path::{Path, PathBuf};

use serde::Serialize;
use serde_json::Value;

use autodream_core::clock::{Clock, human_ago};
use autodream_core::config::{LoadedConfig, stores};
use autodream_core::gates::{self, Evaluation, GateInput, GateName};
use autodream_core::memdir::index::{self, ContextCost, context_cost};
use autodream_core::paths::{Locations, MemorySource};
use autodream_core::sessions;
use autodream_core::usage;

use crate::install::claude_code::{self, Homes, RegisteredHook};

/// The most recent transcripts [`diagnose`] parses.
pub const TRANSCRIPTS_SAMPLED: usize = 20;

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

/// Runs every check, in the order of the table above.
pub fn diagnose(input: &DoctorInput<'_>) -> Diagnosis {
    let loc = input.locations;
    let cfg = &input.config.config;
    // What several checks look at, read once.
    let hooks = claude_code::registered_hooks(input.homes, &loc.project_dir);
    let client = autodream_core::paths::client_memory_dir(&loc.project_dir).ok();
    let context = context_cost(&loc.memory_dir, cfg.index_max_lines, cfg.index_max_units);
    let eval = gates::explain(&GateInput {
        locations: loc,
        config: input.config,
        clock: input.clock,
        current_session: None,
    });

    let mut checks = vec![binaries_check(input.autodream_exe.as_deref())];
    checks.extend(hook_checks(input, &hooks));
    checks.push(memory_folder_check(loc, client.as_ref(), &hooks));
    checks.push(auto_memory_check(input.config, &loc.memory_dir));
    checks.push(client_dream_check(&loc.project_dir, input.homes));
    checks.push(index_check(loc, input.config));
    checks.extend(context_check(context.as_ref()));
    checks.extend(usage_check(loc, cfg.sessions_format, input.clock));
    checks.push(lock_check(&eval, input.clock));
    checks.push(gates_check(&eval, input.config));
    checks.push(transcripts_check(loc, cfg.sessions_format));

    Diagnosis {
        memory_dir: loc.memory_dir.clone(),
        client_memory_dir: client.map(|(d, _)| d),
        context,
        checks,
    }
}

/// `binaries`: the running `autodream`, and `autodream-hook` next to it.
fn binaries_check(exe: Option<&Path>) -> Check {
    let Some(exe) = exe else {
        return Check::warn("binaries", "cannot tell where autodream runs from", "run autodream by its path");
    };
    match claude_code::Options::hook_beside(exe) {
        Some(h) if is_executable(&h) => {
            Check::ok("binaries", format!("{} and {}", exe.display(), h.display()))
        }
        Some(h) => Check::warn(
            "binaries",
            format!("{} is not executable", h.display()),
            format!("chmod +x '{}'", h.display()),
        ),
        None => Check::warn(
            "binaries",
            format!("{} has no {} next to it", exe.display(), claude_code::HOOK_BIN),
            "install both binaries into one folder (cargo install puts them together); the hook then starts faster",
        ),
    }
}

/// `hook`: the autodream hooks in Claude Code's settings, or its plugin, and whether their
/// programs run. One finding per broken hook, then one for the plugin and one for the events.
fn hook_checks(input: &DoctorInput<'_>, hooks: &[RegisteredHook]) -> Vec<Check> {
    let project = &input.locations.project_dir;
    let path_var = input.path_var.as_deref();
    let plugin = plugin_enabled(input.homes, project);
    if hooks.is_empty() && plugin.is_none() {
        return vec![Check::problem(
            "hook",
            "no autodream hook in Claude Code's settings (user, project or local): nothing starts a dream",
            "autodream install claude-code",
        )];
    }
    let mut checks = Vec::new();
    let mut hook_ok = false;
    // One line per settings file and command, naming its events.
    let mut seen: Vec<(&Path, &str)> = Vec::new();
    for h in hooks {
        if seen.contains(&(h.settings.as_path(), h.command.as_str())) {
            continue;
        }
        seen.push((h.settings.as_path(), h.command.as_str()));
        let events: Vec<&str> = hooks
            .iter()
            .filter(|o| o.settings == h.settings && o.command == h.command)
            .map(|o| o.event.as_str())
            .collect();
        match program_problem(h, &events.join(", "), path_var) {
            Some((summary, fix)) => checks.push(Check::problem("hook", summary, fix)),
            None => hook_ok = true,
        }
    }
    if let Some(source) = &plugin {
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
        checks.push(hook_events_check(hooks));
    }
    checks
}

/// The events and scopes the working hooks are registered on: without Stop, a finished
/// dream is never announced.
fn hook_events_check(hooks: &[RegisteredHook]) -> Check {
    let mut events: Vec<&str> = hooks.iter().map(|h| h.event.as_str()).collect();
    events.sort();
    events.dedup();
    let mut scopes: Vec<String> = hooks.iter().map(|h| h.scope.to_string()).collect();
    scopes.dedup();
    if events.contains(&"Stop") {
        Check::ok(
            "hook",
            format!(
                "registered on {} in the {} settings: {}",
                events.join(", "),
                scopes.join(", "),
                hooks[0].command
            ),
        )
    } else {
        Check::warn(
            "hook",
            format!(
                "registered on {} but not on Stop: a finished dream is never announced",
                events.join(", ")
            ),
            "autodream install claude-code",
        )
    }
}

/// `memory_folder`: the folder the client loads against the one autodream writes and any
/// `--memory-dir` baked into a hook.
fn memory_folder_check(
    loc: &Locations,
    client: Option<&(PathBuf, MemorySource)>,
    hooks: &[RegisteredHook],
) -> Check {
    let Some((dir, source)) = client else {
        return Check::warn(
            "memory_folder",
            "cannot tell which folder the client loads (no home folder?)",
            "set HOME",
        );
    };
    let mut mismatch = Vec::new();
    if !same_dir(dir, &loc.memory_dir) {
        mismatch.push(format!("autodream writes {}", loc.memory_dir.display()));
    }
    for h in hooks {
        if let Some(m) = &h.memory_dir
            && !same_dir(dir, m)
        {
            mismatch.push(format!("the {} hook writes {}", h.scope, m.display()));
        }
    }
    mismatch.dedup();
    if mismatch.is_empty() {
        Check::ok("memory_folder", format!("{} (from {source})", dir.display()))
    } else {
        Check::problem(
            "memory_folder",
            format!("the client loads {} (from {source}) but {}", dir.display(), mismatch.join("; ")),
            "drop --memory-dir / AUTODREAM_MEMORY_DIR so autodream follows the client, then run \
             `autodream install claude-code` again",
        )
    }
}

/// `auto_memory`: the client's auto memory switch; off, it loads no MEMORY.md. With the
/// client's memory stores configured, what they mean for autodream and how to use both.
fn auto_memory_check(config: &LoadedConfig, memory_dir: &Path) -> Check {
    if let Some(Ok(list)) = stores::configured_stores()
        && !list.is_empty()
    {
        return memory_stores_check(&list, memory_dir);
    }
    match &config.auto_memory_off {
        Some(off) => Check::problem(
            "auto_memory",
            format!("auto memory is off in the client ({}): it loads no MEMORY.md", off.reason),
            "remove autoMemoryEnabled: false from the settings, or unset CLAUDE_CODE_DISABLE_AUTO_MEMORY",
        ),
        None => Check::ok("auto_memory", "on"),
    }
}

/// `auto_memory` under the client's memory stores: the hook stands down, and a store the
/// client may write that holds autodream's folder would be a second writer.
fn memory_stores_check(list: &[stores::MemoryStore], memory_dir: &Path) -> Check {
    let owner = list.iter().find(|s| s.writable() && memory_dir.starts_with(&s.path));
    let how = format!(
        "to use both, let autodream write a folder no `rw` store holds and give it to the client as a \
         read-only store ({{\"path\": \"{}\", \"mode\": \"ro\", \"scope\": \"user\"}}) so the client \
         recalls what autodream consolidates; the hook stands down while {var} is set, so dream from a \
         process started without it (`autodream daemon`, or `autodream run`); or unset {var} to go back \
         to MEMORY.md",
        memory_dir.display(),
        var = stores::MEMORY_STORES_VAR,
    );
    let detail = match owner {
        Some(s) => format!(
            "{} is set and its `rw` store {} holds {}: the client writes that folder, so autodream must not",
            stores::MEMORY_STORES_VAR,
            s.path,
            memory_dir.display()
        ),
        None => format!("{}: the hook does not dream", stores::stand_down_reason(list)),
    };
    Check::problem("auto_memory", detail, how)
}

/// `client_dream`: `autoDreamEnabled`; unless it is `false` the client's own dream may run too.
fn client_dream_check(project: &Path, homes: &Homes) -> Check {
    match auto_dream_setting(project, homes) {
        Some((false, path)) => {
            Check::ok("client_dream", format!("off (autoDreamEnabled: false in {})", path.display()))
        }
        Some((true, path)) => Check::warn(
            "client_dream",
            format!("autoDreamEnabled is true in {}: the client's own dream may also run", path.display()),
            "set autoDreamEnabled to false (autodream install claude-code does)",
        ),
        None => Check::warn(
            "client_dream",
            "autoDreamEnabled is not set: the client's own dream may also run when its server-side flag is on",
            "set autoDreamEnabled: false (autodream install claude-code does)",
        ),
    }
}

/// `index`: MEMORY.md against the client's limits; what is over them is never loaded.
fn index_check(loc: &Locations, config: &LoadedConfig) -> Check {
    let cfg = &config.config;
    match index::check(&loc.memory_dir, cfg.index_max_lines, cfg.index_max_units) {
        Ok(r) if !r.index_exists => Check::warn(
            "index",
            format!("no MEMORY.md in {} yet", loc.memory_dir.display()),
            "the first dream writes it; `autodream run` dreams now",
        ),
        Ok(r) => {
            let over: Vec<&index::Finding> = r
                .findings
                .iter()
                .filter(|f| matches!(f.code, "over_lines" | "over_units" | "symlink"))
                .collect();
            if over.is_empty() {
                Check::ok(
                    "index",
                    format!(
                        "MEMORY.md: {} of {} lines, {} of {} units",
                        r.lines, r.max_lines, r.units, r.max_units
                    ),
                )
            } else {
                Check::problem(
                    "index",
                    over.iter().map(|f| f.message.clone()).collect::<Vec<_>>().join("; "),
                    "the client loads only the start: `autodream run` shortens the index; `autodream check` lists the lines",
                )
            }
        }
        Err(e) => Check::problem("index", e.to_string(), "check the memory folder's permissions"),
    }
}

/// `context`: what MEMORY.md adds to every session; no finding without a MEMORY.md.
fn context_check(context: Option<&ContextCost>) -> Option<Check> {
    let c = context?;
    let cut = if c.truncated { ", cut at the client's limit" } else { "" };
    Some(Check::ok(
        "context",
        format!("MEMORY.md adds {} bytes (~{} tokens) to every session{cut}", c.bytes, c.tokens),
    ))
}

/// `lock`: the consolidation lock's holder and the last dream. A live holder is a dream
/// running now: nothing wrong with that.
fn lock_check(eval: &Evaluation, clock: Clock) -> Check {
    let last = match eval.last_consolidated_at {
        Some(t) => format!("last dream {}", human_ago(t, clock.now())),
        None => "no dream yet".to_string(),
    };
    match eval.gates.iter().find(|g| g.name == GateName::Lock) {
        Some(lock) => Check::ok("lock", format!("{}; {last}", lock.detail)),
        None => Check::ok("lock", last),
    }
}

/// `usage`: how much of the memory the agent follows ("3 of 9 topics read in the last 20
/// sessions"); nothing when there is no topic file.
fn usage_check(loc: &Locations, format: sessions::SessionFormat, clock: Clock) -> Option<Check> {
    let used = usage::refresh(loc, format, clock.now());
    let rate = usage::follow_rate(&used, &loc.memory_dir, usage::FOLLOW_WINDOW);
    (rate.topics > 0).then(|| Check::ok("usage", rate.sentence()))
}

/// `gates`: the gates' verdict. Only a closed `enabled` gate is a problem; the others wait
/// for time or sessions, as they should.
fn gates_check(eval: &Evaluation, config: &LoadedConfig) -> Check {
    match eval.failed {
        None => Check::ok("gates", "all open: a dream starts at the next hook"),
        Some(GateName::Enabled) => {
            let detail = eval.gates.first().map(|g| g.detail.clone()).unwrap_or_default();
            let fix = if config.auto_memory_off.is_some() {
                "see auto_memory above"
            } else {
                "set enabled = true in autodream's config (autodream status shows where it is set)"
            };
            Check::problem("gates", format!("closed at enabled: {detail}"), fix)
        }
        Some(name) => {
            let detail =
                eval.gates.iter().find(|g| g.name == name).map(|g| g.detail.clone()).unwrap_or_default();
            Check::ok("gates", format!("waiting on {}: {detail}", name.as_str()))
        }
    }
}

/// `transcripts`: the project's most recent transcripts parsed, and the lines skipped.
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
mod tests;
