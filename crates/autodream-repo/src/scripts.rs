//! The scripts a project defines: package.json `scripts`, Makefile targets, justfile recipes,
//! cargo aliases. Each manifest is read at most once per check, and only when a fact names
//! one of its scripts. A manifest we cannot read whole (an `include`, a pattern rule, a
//! justfile `import`) says `Unknown` for what it does not list, never `Gone`.

use std::collections::BTreeSet;
use std::path::Path;
use std::sync::LazyLock;

use regex::Regex;

use autodream_core::referents::{Runner, Status};

/// What one manifest defines: `None` when there is none to look in.
#[derive(Debug, Default, Clone)]
struct Defined {
    names: BTreeSet<String>,
    /// The manifest may define more than we read (includes, patterns).
    open: bool,
}

#[derive(Debug, Default)]
pub(crate) struct Manifests {
    npm: Option<Option<Defined>>,
    make: Option<Option<Defined>>,
    just: Option<Option<Defined>>,
    cargo: Option<Option<Defined>>,
}

static MAKE_TARGET: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"^([^\s:#=][^:=#]*?)\s*::?(?:[^=]|$)").expect("valid"));
static JUST_RECIPE: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"^@?([A-Za-z_][A-Za-z0-9_-]*)(\s[^:]*)?:(?:[^=]|$)").expect("valid"));
static JUST_ALIAS: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"^alias\s+([A-Za-z_][A-Za-z0-9_-]*)\s*:=").expect("valid"));

impl Manifests {
    /// Whether `runner` defines `name` in the project.
    pub(crate) fn status(
        &mut self,
        project: &Path,
        files: &[String],
        runner: Runner,
        name: &str,
        walk_complete: bool,
    ) -> Status {
        let slot = match runner {
            Runner::Npm => &mut self.npm,
            Runner::Make => &mut self.make,
            Runner::Just => &mut self.just,
            Runner::Cargo => &mut self.cargo,
        };
        let defined = slot.get_or_insert_with(|| match runner {
            Runner::Npm => npm_scripts(project, files, walk_complete),
            Runner::Make => {
                first_of(project, &["Makefile", "makefile", "GNUmakefile"]).map(|t| make_targets(&t))
            }
            Runner::Just => {
                first_of(project, &["justfile", "Justfile", ".justfile"]).map(|t| just_recipes(&t))
            }
            Runner::Cargo => cargo_aliases(project),
        });
        match defined {
            Some(d) if d.names.contains(name) => Status::Present,
            Some(d) if !d.open => {
                if runner == Runner::Cargo && on_path(&format!("cargo-{name}")) {
                    Status::Present
                } else {
                    Status::Gone
                }
            }
            _ => Status::Unknown,
        }
    }
}

fn first_of(project: &Path, names: &[&str]) -> Option<String> {
    names.iter().find_map(|n| std::fs::read_to_string(project.join(n)).ok())
}

/// Every package.json's scripts (workspace packages too; never `node_modules`).
fn npm_scripts(project: &Path, files: &[String], walk_complete: bool) -> Option<Defined> {
    let mut out = Defined { open: !walk_complete, ..Defined::default() };
    let mut any = false;
    for f in files {
        if !(f == "package.json" || f.ends_with("/package.json")) || f.split('/').any(|c| c == "node_modules")
        {
            continue;
        }
        let Ok(text) = std::fs::read_to_string(project.join(f)) else { continue };
        let Ok(json) = serde_json::from_str::<serde_json::Value>(&text) else {
            out.open = true;
            continue;
        };
        any = true;
        if let Some(scripts) = json.get("scripts").and_then(|s| s.as_object()) {
            out.names.extend(scripts.keys().cloned());
        }
    }
    any.then_some(out)
}

fn make_targets(text: &str) -> Defined {
    let mut out = Defined::default();
    for line in text.lines() {
        if line.starts_with(['\t', ' ']) {
            continue;
        }
        let l = line.trim_end();
        if l.starts_with("include") || l.starts_with("-include") || l.starts_with("sinclude") {
            out.open = true;
        }
        if let Some(c) = MAKE_TARGET.captures(l) {
            for t in c[1].split_whitespace() {
                if t.contains('%') || t.contains('$') {
                    out.open = true;
                } else {
                    out.names.insert(t.to_string());
                }
            }
        }
    }
    out
}

fn just_recipes(text: &str) -> Defined {
    let mut out = Defined::default();
    for line in text.lines() {
        if line.starts_with(['\t', ' ']) {
            continue;
        }
        if line.starts_with("import") || line.starts_with("mod ") || line.starts_with("mod?") {
            out.open = true;
        }
        if let Some(c) = JUST_ALIAS.captures(line) {
            out.names.insert(c[1].to_string());
        } else if let Some(c) = JUST_RECIPE.captures(line)
            && !matches!(&c[1], "set" | "export" | "alias")
        {
            out.names.insert(c[1].to_string());
        }
    }
    out
}

/// `[alias]` of `.cargo/config.toml` (or the older `.cargo/config`).
fn cargo_aliases(project: &Path) -> Option<Defined> {
    let text = first_of(project, &[".cargo/config.toml", ".cargo/config"])?;
    let Ok(doc) = text.parse::<toml::Table>() else {
        return Some(Defined { open: true, ..Defined::default() });
    };
    let names = doc.get("alias").and_then(|a| a.as_table()).map(|t| t.keys().cloned().collect());
    Some(Defined { names: names.unwrap_or_default(), open: false })
}

fn on_path(name: &str) -> bool {
    std::env::var_os("PATH").is_some_and(|p| std::env::split_paths(&p).any(|dir| dir.join(name).is_file()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn make_targets_and_what_makes_a_makefile_open() {
        let d = make_targets(
            ".PHONY: build deploy\nbuild: src\n\tcargo build\ndeploy:\n\t./ship\nVERSION := 1\nCC = gcc\n",
        );
        assert!(d.names.contains("build") && d.names.contains("deploy") && !d.names.contains("VERSION"));
        assert!(!d.open);
        assert!(make_targets("include other.mk\nx:\n").open);
        assert!(make_targets("%.o: %.c\n").open);
    }

    #[test]
    fn just_recipes_with_arguments_and_aliases() {
        let d = just_recipes(
            "set shell := [\"bash\"]\nlint:\n  cargo clippy\ntest filter='':\n  cargo test\nalias t := test\n",
        );
        assert_eq!(d.names.iter().map(String::as_str).collect::<Vec<_>>(), ["lint", "t", "test"]);
        assert!(just_recipes("import 'more.just'\n").open);
    }
}
