//! `autodream install daemon`: the service that runs `autodream daemon` for one memory
//! folder. A systemd user unit on Linux, a launchd agent on macOS; both renderers are here,
//! whichever the machine is, and the target OS picks the default.
//!
//! Installing writes the file and nothing else: it never enables or starts the service. The
//! caller prints the one command that does ([`Unit::enable_command`]). Uninstalling removes
//! exactly the file that install wrote, and refuses a file that differs from it (edited by
//! hand, or written for another binary or folder) unless forced.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use sha2::{Digest, Sha256};

use autodream_core::paths::Locations;

/// Which service manager a unit is for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Manager {
    /// A systemd user unit (`~/.config/systemd/user/NAME.service`).
    Systemd,
    /// A launchd agent (`~/Library/LaunchAgents/LABEL.plist`).
    Launchd,
}

impl Manager {
    /// The service manager of the OS autodream was built for.
    pub fn native() -> Manager {
        if cfg!(target_os = "macos") { Manager::Launchd } else { Manager::Systemd }
    }

    pub fn parse(s: &str) -> Option<Manager> {
        match s.trim().to_ascii_lowercase().as_str() {
            "systemd" => Some(Manager::Systemd),
            "launchd" => Some(Manager::Launchd),
            _ => None,
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            Manager::Systemd => "systemd",
            Manager::Launchd => "launchd",
        }
    }
}

/// What the service runs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UnitSpec {
    /// The absolute path of the `autodream` binary.
    pub exe: PathBuf,
    pub memory_dir: PathBuf,
    pub sessions_dir: PathBuf,
    pub project_dir: PathBuf,
    /// `--config FILE`, when one was given.
    pub config: Option<PathBuf>,
}

impl UnitSpec {
    pub fn new(exe: PathBuf, loc: &Locations, config: Option<PathBuf>) -> UnitSpec {
        UnitSpec {
            exe,
            memory_dir: loc.memory_dir.clone(),
            sessions_dir: loc.sessions_dir.clone(),
            project_dir: loc.project_dir.clone(),
            config,
        }
    }

    /// The command line: the binary, the folders, `daemon`.
    pub fn argv(&self) -> Vec<String> {
        let mut argv = vec![self.exe.display().to_string()];
        let mut push = |flag: &str, p: &Path| {
            argv.push(flag.to_string());
            argv.push(p.display().to_string());
        };
        push("--memory-dir", &self.memory_dir);
        push("--sessions-dir", &self.sessions_dir);
        push("--project", &self.project_dir);
        if let Some(c) = &self.config {
            push("--config", c);
        }
        argv.push("daemon".into());
        argv
    }

    /// `autodream-<project>-<8 hex of the memory folder>`: one service per memory folder,
    /// readable in `systemctl --user list-units`.
    pub fn name(&self) -> String {
        let base = self.project_dir.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
        let mut slug: String = base
            .chars()
            .map(|c| if c.is_ascii_alphanumeric() { c.to_ascii_lowercase() } else { '-' })
            .collect::<String>()
            .split('-')
            .filter(|s| !s.is_empty())
            .collect::<Vec<_>>()
            .join("-");
        slug.truncate(40);
        let hash = Sha256::digest(self.memory_dir.as_os_str().as_encoded_bytes());
        let hex: String = hash.iter().take(4).map(|b| format!("{b:02x}")).collect();
        if slug.is_empty() { format!("autodream-{hex}") } else { format!("autodream-{slug}-{hex}") }
    }
}

/// A rendered unit: where it goes and what it says.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Unit {
    pub manager: Manager,
    /// `autodream-x-1a2b3c4d.service` (systemd) or `dev.autodream.autodream-x-1a2b3c4d` (launchd).
    pub name: String,
    pub path: PathBuf,
    pub contents: String,
    /// launchd: the log file of the agent's output (its folder is created on install,
    /// launchd does not create it).
    pub log: Option<PathBuf>,
}

#[derive(Debug, thiserror::Error)]
pub enum UnitError {
    #[error("no home directory: set HOME")]
    NoHome,
    #[error(
        "{path} already exists and differs from the unit autodream would write (edited by hand, or written for another binary or folder); --force replaces it"
    )]
    ExistsDiffering { path: PathBuf },
    #[error(
        "{path} differs from the unit autodream would write (edited by hand, or written for another binary or folder); --force removes it anyway"
    )]
    Edited { path: PathBuf },
    #[error("{path}: {source}")]
    Io { path: PathBuf, source: std::io::Error },
}

/// What [`Unit::install`] or [`Unit::uninstall`] did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Change {
    Written,
    Replaced,
    Unchanged,
    Removed,
    Absent,
}

impl Unit {
    /// Renders the unit for `spec`, placed under `home` (systemd honours `xdg_config_home`).
    pub fn render(manager: Manager, spec: &UnitSpec, home: &Path, xdg_config_home: Option<&Path>) -> Unit {
        let base = spec.name();
        match manager {
            Manager::Systemd => {
                let name = format!("{base}.service");
                let dir = xdg_config_home.map_or_else(|| home.join(".config"), Path::to_path_buf);
                Unit {
                    manager,
                    path: dir.join("systemd/user").join(&name),
                    contents: systemd(spec),
                    name,
                    log: None,
                }
            }
            Manager::Launchd => {
                let name = format!("dev.autodream.{base}");
                let path = home.join("Library/LaunchAgents").join(format!("{name}.plist"));
                let log = home.join("Library/Logs/autodream").join(format!("{base}.log"));
                Unit { manager, contents: launchd(spec, &name, &log), path, name, log: Some(log) }
            }
        }
    }

    /// Renders for this user: `HOME` and `XDG_CONFIG_HOME` from the environment.
    pub fn for_user(manager: Manager, spec: &UnitSpec) -> Result<Unit, UnitError> {
        let home = autodream_core::paths::home_dir().ok_or(UnitError::NoHome)?;
        let xdg = std::env::var_os("XDG_CONFIG_HOME").filter(|v| !v.is_empty()).map(PathBuf::from);
        Ok(Unit::render(manager, spec, &home, xdg.as_deref()))
    }

    /// The one command that enables and starts the service (never run by autodream).
    pub fn enable_command(&self) -> String {
        match self.manager {
            Manager::Systemd => {
                format!("systemctl --user daemon-reload && systemctl --user enable --now {}", self.name)
            }
            Manager::Launchd => {
                format!("launchctl load -w {}", shell_quote(&self.path.display().to_string()))
            }
        }
    }

    /// The command that stops and disables it, to run before uninstalling.
    pub fn disable_command(&self) -> String {
        match self.manager {
            Manager::Systemd => format!("systemctl --user disable --now {}", self.name),
            Manager::Launchd => {
                format!("launchctl unload -w {}", shell_quote(&self.path.display().to_string()))
            }
        }
    }

    /// Writes the file (atomically, creating its folder). Idempotent; a different file in
    /// its place is replaced only when `force`.
    pub fn install(&self, force: bool) -> Result<Change, UnitError> {
        let io = |source| UnitError::Io { path: self.path.clone(), source };
        let existed = match std::fs::read(&self.path) {
            Ok(bytes) if bytes == self.contents.as_bytes() => return Ok(Change::Unchanged),
            Ok(_) if !force => return Err(UnitError::ExistsDiffering { path: self.path.clone() }),
            Ok(_) => true,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => false,
            Err(e) => return Err(io(e)),
        };
        let dir = self.path.parent().expect("a unit path has a folder");
        std::fs::create_dir_all(dir).map_err(io)?;
        if let Some(log_dir) = self.log.as_deref().and_then(Path::parent) {
            std::fs::create_dir_all(log_dir)
                .map_err(|source| UnitError::Io { path: log_dir.to_path_buf(), source })?;
        }
        let tmp = dir.join(format!(".{}.{}.tmp", self.file_name(), std::process::id()));
        std::fs::write(&tmp, &self.contents).map_err(io)?;
        std::fs::rename(&tmp, &self.path).map_err(|e| {
            let _ = std::fs::remove_file(&tmp);
            io(e)
        })?;
        Ok(if existed { Change::Replaced } else { Change::Written })
    }

    /// Removes the file install wrote; refuses one that differs unless `force`.
    pub fn uninstall(&self, force: bool) -> Result<Change, UnitError> {
        let io = |source| UnitError::Io { path: self.path.clone(), source };
        match std::fs::read(&self.path) {
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(Change::Absent),
            Err(e) => Err(io(e)),
            Ok(bytes) if bytes != self.contents.as_bytes() && !force => {
                Err(UnitError::Edited { path: self.path.clone() })
            }
            Ok(_) => {
                std::fs::remove_file(&self.path).map_err(io)?;
                Ok(Change::Removed)
            }
        }
    }

    fn file_name(&self) -> String {
        self.path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default()
    }
}

/// A systemd user unit.
pub fn systemd(spec: &UnitSpec) -> String {
    let exec: Vec<String> = spec.argv().iter().map(|a| systemd_quote(a)).collect();
    let mut s = String::new();
    let _ = writeln!(s, "# Written by `autodream install daemon`; `autodream uninstall daemon` removes it.");
    let _ = writeln!(s, "[Unit]");
    let _ = writeln!(
        s,
        "Description=autodream: dream on a schedule for {}",
        systemd_escape(&spec.memory_dir.display().to_string())
    );
    let _ = writeln!(s, "Documentation=https://github.com/autodream/autodream/blob/main/docs/daemon.md");
    let _ = writeln!(s);
    let _ = writeln!(s, "[Service]");
    let _ = writeln!(s, "Type=simple");
    let _ = writeln!(s, "ExecStart={}", exec.join(" "));
    let _ = writeln!(s, "Restart=on-failure");
    let _ = writeln!(s, "RestartSec=30");
    // 2: a setting it cannot read; 3: another daemon already runs. Restarting fixes neither.
    let _ = writeln!(s, "RestartPreventExitStatus=2 3");
    // SIGTERM cancels a running dream, which rolls back; give it time to.
    let _ = writeln!(s, "KillMode=mixed");
    let _ = writeln!(s, "TimeoutStopSec=60");
    let _ = writeln!(s);
    let _ = writeln!(s, "[Install]");
    let _ = writeln!(s, "WantedBy=default.target");
    s
}

/// `%` and `$` are special everywhere in a unit file; `\` and `"` inside a quoted word.
fn systemd_escape(s: &str) -> String {
    s.replace('%', "%%").replace('$', "$$")
}

fn systemd_quote(arg: &str) -> String {
    let escaped = systemd_escape(arg);
    if !arg.is_empty() && arg.chars().all(|c| c.is_ascii_alphanumeric() || "/._-+:=@,".contains(c)) {
        return escaped;
    }
    format!("\"{}\"", escaped.replace('\\', "\\\\").replace('"', "\\\""))
}

/// A launchd agent.
pub fn launchd(spec: &UnitSpec, label: &str, log: &Path) -> String {
    let mut s = String::new();
    let _ = writeln!(s, r#"<?xml version="1.0" encoding="UTF-8"?>"#);
    let _ = writeln!(
        s,
        r#"<!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">"#
    );
    let _ = writeln!(
        s,
        "<!-- Written by `autodream install daemon`; `autodream uninstall daemon` removes it. -->"
    );
    let _ = writeln!(s, r#"<plist version="1.0">"#);
    let _ = writeln!(s, "<dict>");
    let _ = writeln!(s, "  <key>Label</key>\n  <string>{}</string>", xml(label));
    let _ = writeln!(s, "  <key>ProgramArguments</key>\n  <array>");
    for a in spec.argv() {
        let _ = writeln!(s, "    <string>{}</string>", xml(&a));
    }
    let _ = writeln!(s, "  </array>");
    let _ = writeln!(s, "  <key>RunAtLoad</key>\n  <true/>");
    // Restart after a crash, not after a clean stop; at most every 30 s (launchd has no
    // equivalent of systemd's RestartPreventExitStatus for exit 2 and 3).
    let _ = writeln!(
        s,
        "  <key>KeepAlive</key>\n  <dict>\n    <key>SuccessfulExit</key>\n    <false/>\n  </dict>"
    );
    let _ = writeln!(s, "  <key>ThrottleInterval</key>\n  <integer>30</integer>");
    let _ = writeln!(s, "  <key>ProcessType</key>\n  <string>Background</string>");
    let _ =
        writeln!(s, "  <key>StandardOutPath</key>\n  <string>{}</string>", xml(&log.display().to_string()));
    let _ =
        writeln!(s, "  <key>StandardErrorPath</key>\n  <string>{}</string>", xml(&log.display().to_string()));
    let _ = writeln!(s, "</dict>");
    let _ = writeln!(s, "</plist>");
    s
}

fn xml(s: &str) -> String {
    s.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;").replace('"', "&quot;")
}

fn shell_quote(s: &str) -> String {
    if s.chars().all(|c| c.is_ascii_alphanumeric() || "/._-+:=@,".contains(c)) {
        s.to_string()
    } else {
        format!("'{}'", s.replace('\'', "'\\''"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec(project: &str) -> UnitSpec {
        UnitSpec {
            exe: "/usr/local/bin/autodream".into(),
            memory_dir: "/home/u/.claude/projects/-home-u-My-Repo/memory".into(),
            sessions_dir: "/home/u/.claude/projects/-home-u-My-Repo".into(),
            project_dir: project.into(),
            config: None,
        }
    }

    #[test]
    fn names_are_readable_and_differ_by_memory_folder() {
        let a = spec("/home/u/My Repo");
        assert!(a.name().starts_with("autodream-my-repo-"), "{}", a.name());
        assert_eq!(a.name().len(), "autodream-my-repo-".len() + 8);
        let b = UnitSpec { memory_dir: "/elsewhere".into(), ..a.clone() };
        assert_ne!(a.name(), b.name());
        assert!(spec("/").name().starts_with("autodream-") && !spec("/").name().contains("--"));
    }

    #[test]
    fn systemd_quotes_what_it_must() {
        assert_eq!(systemd_quote("/usr/bin/autodream"), "/usr/bin/autodream");
        assert_eq!(systemd_quote("/home/u/My Repo"), "\"/home/u/My Repo\"");
        assert_eq!(systemd_quote("/a%b$c\"d"), "\"/a%%b$$c\\\"d\"");
        let unit = systemd(&spec("/home/u/My Repo"));
        assert!(unit.contains("--project \"/home/u/My Repo\" daemon\n"), "{unit}");
    }

    #[test]
    fn launchd_escapes_xml() {
        let s = UnitSpec { project_dir: "/a&b<c>".into(), ..spec("/x") };
        let plist = launchd(&s, "dev.autodream.x", Path::new("/l.log"));
        assert!(plist.contains("<string>/a&amp;b&lt;c&gt;</string>"), "{plist}");
    }

    #[test]
    fn install_is_idempotent_and_uninstall_refuses_an_edited_file() {
        let tmp = tempfile::tempdir().unwrap();
        let unit = Unit::render(Manager::Systemd, &spec("/p"), tmp.path(), None);
        assert!(unit.path.starts_with(tmp.path().join(".config/systemd/user")));
        assert_eq!(unit.install(false).unwrap(), Change::Written);
        assert_eq!(unit.install(false).unwrap(), Change::Unchanged);
        std::fs::write(&unit.path, "edited").unwrap();
        assert!(matches!(unit.install(false), Err(UnitError::ExistsDiffering { .. })));
        assert!(matches!(unit.uninstall(false), Err(UnitError::Edited { .. })));
        assert_eq!(std::fs::read_to_string(&unit.path).unwrap(), "edited");
        assert_eq!(unit.install(true).unwrap(), Change::Replaced);
        assert_eq!(unit.uninstall(false).unwrap(), Change::Removed);
        assert!(!unit.path.exists());
        assert_eq!(unit.uninstall(false).unwrap(), Change::Absent);
        let leftovers: Vec<_> = std::fs::read_dir(unit.path.parent().unwrap()).unwrap().collect();
        assert!(leftovers.is_empty(), "no temporary file is left");
    }
}
