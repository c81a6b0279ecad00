//! Facts checked against the repository: what a fact names that the project can confirm.
//!
//! A fact line may name a path (`` `scripts/deploy.sh` ``), a script (`npm run test:unit`,
//! `` `make deploy` ``, `` `just lint` ``, a cargo alias), an environment variable
//! (`$DATABASE_URL`, `API_TOKEN=`), a branch (branch `` `release` ``) or a command's binary.
//! [`extract`] finds those referents in one line; a [`ProjectChecker`] says for each whether
//! the project has it ([`Status`]); [`stale`] moves a fact whose every checkable referent is
//! gone under `## Superseded` ("no longer in the repository as of DATE"), moves it back when
//! its referents return, and keeps the day each present referent was last confirmed in the
//! engine data (`.engine/repository/confirmed.json`).
//!
//! The core only extracts and decides; it never walks the project. The walk (one pass of the
//! project honouring `.gitignore`, bounded in files and time) is the `autodream-repo` crate's
//! `ProjectIndex`, handed in through [`ProjectChecker`] like an engine through `Engine`, so the
//! hook, which links the core, carries no walker. A binary registers its checker once with
//! [`register`]; every dream in that process then runs the check.

mod extract;

/// Extensions of source, script and config files: the files a check scans for the environment
/// variables the code reads, and tokens that name a path.
pub const SOURCE_EXTENSIONS: &[&str] = &[
    "rs",
    "js",
    "mjs",
    "cjs",
    "ts",
    "tsx",
    "jsx",
    "mts",
    "py",
    "rb",
    "go",
    "java",
    "kt",
    "kts",
    "swift",
    "c",
    "h",
    "cc",
    "cpp",
    "hpp",
    "cs",
    "php",
    "ex",
    "exs",
    "lua",
    "sh",
    "bash",
    "zsh",
    "fish",
    "ps1",
    "toml",
    "yaml",
    "yml",
    "json",
    "env",
    "example",
    "sample",
    "tf",
    "nix",
    "mk",
    "dockerfile",
    "vue",
    "svelte",
    "scala",
    "dart",
    "zig",
    "pl",
    "r",
    "cfg",
    "ini",
    "conf",
    "properties",
    "gradle",
];

pub mod stale;

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;
use std::sync::OnceLock;

use serde::Serialize;

pub use extract::{extract, looks_like_history};

/// What a script referent runs through.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Runner {
    /// package.json `scripts` (npm, pnpm, yarn, bun).
    Npm,
    /// A Makefile target.
    Make,
    /// A justfile recipe.
    Just,
    /// A cargo alias (`.cargo/config.toml` `[alias]`).
    Cargo,
}

/// Something a fact names that the project can confirm.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(tag = "kind", content = "name", rename_all = "lowercase")]
pub enum Referent {
    /// A path relative to the project root (or a file name found anywhere in it).
    Path(String),
    Script(Runner, String),
    /// An environment variable the code reads.
    Env(String),
    Branch(String),
    /// A command's binary: confirmed when found, never declared gone (it belongs to the
    /// machine, not the repository).
    Binary(String),
}

impl Referent {
    /// Whether a missing referent of this kind can make a fact stale.
    pub fn can_be_gone(&self) -> bool {
        !matches!(self, Referent::Binary(_))
    }
}

impl std::fmt::Display for Referent {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Referent::Path(p) => write!(f, "path `{p}`"),
            Referent::Script(Runner::Npm, s) => write!(f, "package.json script `{s}`"),
            Referent::Script(Runner::Make, s) => write!(f, "Makefile target `{s}`"),
            Referent::Script(Runner::Just, s) => write!(f, "justfile recipe `{s}`"),
            Referent::Script(Runner::Cargo, s) => write!(f, "cargo alias `{s}`"),
            Referent::Env(v) => write!(f, "environment variable `{v}`"),
            Referent::Branch(b) => write!(f, "branch `{b}`"),
            Referent::Binary(b) => write!(f, "command `{b}`"),
        }
    }
}

/// What the project says about one referent.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Status {
    Present,
    /// Clearly checkable and clearly absent.
    Gone,
    /// Cannot tell (no manifest to look in, a walk cut short, an include we do not follow).
    Unknown,
}

/// The project's answer for a set of referents.
#[derive(Debug, Clone, Default, Serialize)]
pub struct Checked {
    pub status: BTreeMap<Referent, Status>,
    /// Files the walk saw.
    pub files: usize,
    /// Why nothing could be declared gone (the walk was cut short by its bound), if so.
    pub incomplete: Option<String>,
    pub elapsed_ms: u64,
}

impl Checked {
    pub fn of(&self, r: &Referent) -> Status {
        self.status.get(r).copied().unwrap_or(Status::Unknown)
    }
}

/// The door to the project: checks every referent of a dream in one pass.
pub trait ProjectChecker: Send + Sync {
    fn check(&self, project: &Path, referents: &BTreeSet<Referent>) -> Checked;
}

static CHECKER: OnceLock<&'static dyn ProjectChecker> = OnceLock::new();

/// Registers the process's checker (once; later calls are ignored).
pub fn register(checker: &'static dyn ProjectChecker) {
    let _ = CHECKER.set(checker);
}

/// The registered checker, if any.
pub fn registered() -> Option<&'static dyn ProjectChecker> {
    CHECKER.get().copied()
}

/// Whether `project` is a repository we may check: a git work tree (a `.git` folder, or a
/// `.git` file for a linked work tree). Anything else may not be the project at all.
pub fn is_repository(project: &Path) -> bool {
    std::fs::symlink_metadata(project.join(".git")).is_ok()
}
