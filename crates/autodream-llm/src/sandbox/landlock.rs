//! The sandbox's Landlock room: the restricted exec behind the API engine's Bash tool, a
//! process that takes away its own right to write anywhere (Linux Landlock), then becomes the
//! requested program.
//!
//! The Bash tool runs `<launcher> __sandbox-exec --read DIR… -- PROGRAM ARGS…`, where the
//! launcher is the `autodream` binary itself (its hidden subcommand calls
//! [`sandbox_exec_main`]). The child builds a Landlock ruleset that handles every file-system
//! right the kernel knows, grants only read and execute beneath the given folders and the
//! system folders a program needs to start (`/usr`, `/lib`, `/bin`, `/etc`, …), forbids TCP
//! and signals to the outside where the kernel supports it, sets `no_new_privs`, and `exec`s.
//! Nothing it runs — nor anything that runs — can create, change or delete a file.
//!
//! Where Landlock is missing (macOS, old or unconfigured kernels) [`landlock_status`] says so;
//! the Bash tool then runs programs directly and the in-process checks stand alone.

use std::ffi::OsString;
use std::fmt;
use std::sync::OnceLock;

use serde::Serialize;

/// The hidden subcommand of the `autodream` binary that leads to [`sandbox_exec_main`].
pub const SANDBOX_EXEC_SUBCOMMAND: &str = "__sandbox-exec";

/// Exit status when the restriction could not be put in place (nothing was run).
pub const EXIT_RESTRICT_FAILED: i32 = 125;
/// Exit status when the program could not be executed.
pub const EXIT_EXEC_FAILED: i32 = 127;
/// Exit status for malformed arguments.
pub const EXIT_USAGE: i32 = 2;

/// Folders any program needs to read to start (loader, libraries, locale, magic database).
pub const SYSTEM_READ_DIRS: &[&str] =
    &["/usr", "/lib", "/lib64", "/lib32", "/bin", "/sbin", "/etc", "/dev/null"];

/// Whether this kernel can restrict processes with Landlock.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "state", rename_all = "lowercase")]
pub enum LandlockStatus {
    /// Supported; `abi` is the kernel's Landlock ABI version.
    Available { abi: u32 },
    /// Not usable here, and why.
    Unavailable { reason: String },
}

impl LandlockStatus {
    pub fn is_available(&self) -> bool {
        matches!(self, LandlockStatus::Available { .. })
    }
}

impl fmt::Display for LandlockStatus {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            LandlockStatus::Available { abi } => write!(f, "landlock: available (ABI {abi})"),
            LandlockStatus::Unavailable { reason } => write!(f, "landlock: unavailable ({reason})"),
        }
    }
}

/// Asks the kernel (once per process) whether Landlock is there.
pub fn landlock_status() -> LandlockStatus {
    static STATUS: OnceLock<LandlockStatus> = OnceLock::new();
    STATUS.get_or_init(probe).clone()
}

#[cfg(target_os = "linux")]
fn probe() -> LandlockStatus {
    const LANDLOCK_CREATE_RULESET_VERSION: u32 = 1;
    // SAFETY: with a null attribute pointer, size 0 and the VERSION flag, the call only
    // returns the ABI version (or an error); it creates nothing and touches no memory.
    let version = unsafe {
        libc::syscall(
            libc::SYS_landlock_create_ruleset,
            std::ptr::null::<libc::c_void>(),
            0usize,
            LANDLOCK_CREATE_RULESET_VERSION,
        )
    };
    if version > 0 {
        return LandlockStatus::Available { abi: version as u32 };
    }
    let reason = match std::io::Error::last_os_error().raw_os_error() {
        Some(libc::EOPNOTSUPP) => "built into the kernel but not enabled at boot".to_string(),
        Some(libc::ENOSYS) => "not built into this kernel".to_string(),
        Some(libc::EPERM) => "blocked by a seccomp filter".to_string(),
        other => format!("the kernel answered {other:?}"),
    };
    LandlockStatus::Unavailable { reason }
}

#[cfg(not(target_os = "linux"))]
fn probe() -> LandlockStatus {
    LandlockStatus::Unavailable { reason: "Landlock is a Linux feature".into() }
}

/// What `__sandbox-exec` was asked to do.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ExecRequest {
    /// Folders (or files) the program may read.
    pub read: Vec<OsString>,
    /// The program, then its arguments.
    pub command: Vec<OsString>,
}

/// Parses `[…] [__sandbox-exec] (--read PATH)* -- PROGRAM ARGS…`. Everything up to the
/// subcommand word (e.g. the binary's own name) is skipped when the subcommand is present.
pub fn parse_exec_args(args: Vec<OsString>) -> Result<ExecRequest, String> {
    let separator = args.iter().position(|a| a == "--").ok_or("missing `--` before the program")?;
    let start = args[..separator].iter().position(|a| a == SANDBOX_EXEC_SUBCOMMAND).map_or(0, |i| i + 1);
    let mut read = Vec::new();
    let mut options = args[start..separator].iter();
    while let Some(option) = options.next() {
        if option == "--read" {
            read.push(options.next().ok_or("--read needs a path")?.clone());
        } else {
            return Err(format!("unknown option {}", option.to_string_lossy()));
        }
    }
    let command: Vec<OsString> = args[separator + 1..].to_vec();
    if command.is_empty() {
        return Err("no program after `--`".into());
    }
    Ok(ExecRequest { read, command })
}

/// The entry point of `autodream __sandbox-exec`: restricts this process so it can write
/// nowhere, then executes the program. Returns only on failure, with the exit status to use
/// ([`EXIT_USAGE`], [`EXIT_RESTRICT_FAILED`] or [`EXIT_EXEC_FAILED`]).
///
/// `args` may be the whole argument vector or only the words after the subcommand.
pub fn sandbox_exec_main(args: Vec<OsString>) -> i32 {
    let request = match parse_exec_args(args) {
        Ok(r) => r,
        Err(message) => {
            eprintln!("{SANDBOX_EXEC_SUBCOMMAND}: {message}");
            eprintln!("usage: autodream {SANDBOX_EXEC_SUBCOMMAND} [--read DIR]... -- PROGRAM [ARGS]...");
            return EXIT_USAGE;
        }
    };
    if let Err(message) = restrict_self_read_only(&request.read) {
        eprintln!("{SANDBOX_EXEC_SUBCOMMAND}: {message}");
        return EXIT_RESTRICT_FAILED;
    }
    exec(&request.command)
}

fn exec(command: &[OsString]) -> i32 {
    use std::os::unix::process::CommandExt;
    let error = std::process::Command::new(&command[0]).args(&command[1..]).exec();
    eprintln!("{SANDBOX_EXEC_SUBCOMMAND}: cannot run {}: {error}", command[0].to_string_lossy());
    EXIT_EXEC_FAILED
}

/// Applies the Landlock ruleset to the current process (and everything it will exec).
/// Fails — so nothing runs unrestricted by surprise — when the kernel enforces nothing.
#[cfg(target_os = "linux")]
pub fn restrict_self_read_only(read: &[OsString]) -> Result<(), String> {
    use landlock::{
        ABI, Access, AccessFs, AccessNet, Ruleset, RulesetAttr, RulesetCreatedAttr, RulesetStatus, Scope,
        path_beneath_rules,
    };
    // The newest ABI this code was written against; older kernels get the subset they know.
    let abi = ABI::V6;
    let mut paths: Vec<std::path::PathBuf> = read.iter().map(std::path::PathBuf::from).collect();
    paths.extend(SYSTEM_READ_DIRS.iter().map(std::path::PathBuf::from));
    let status = Ruleset::default()
        .handle_access(AccessFs::from_all(abi))
        .and_then(|r| r.handle_access(AccessNet::from_all(abi)))
        .and_then(|r| r.scope(Scope::from_all(abi)))
        .and_then(|r| r.create())
        .and_then(|r| r.add_rules(path_beneath_rules(&paths, AccessFs::from_read(abi))))
        .and_then(|r| r.restrict_self())
        .map_err(|e| format!("cannot set up Landlock: {e}"))?;
    match status.ruleset {
        RulesetStatus::FullyEnforced | RulesetStatus::PartiallyEnforced => Ok(()),
        RulesetStatus::NotEnforced => Err(format!("Landlock is not enforced here ({})", landlock_status())),
    }
}

/// Without Landlock there is nothing to restrict with: refuse rather than pretend.
#[cfg(not(target_os = "linux"))]
pub fn restrict_self_read_only(_read: &[OsString]) -> Result<(), String> {
    Err(landlock_status().to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn os(words: &[&str]) -> Vec<OsString> {
        words.iter().map(OsString::from).collect()
    }

    #[test]
    fn arguments_parse_with_or_without_the_binary_and_subcommand() {
        let want = ExecRequest { read: os(&["/a", "/b"]), command: os(&["/usr/bin/ls", "-l"]) };
        let full =
            os(&["autodream", "__sandbox-exec", "--read", "/a", "--read", "/b", "--", "/usr/bin/ls", "-l"]);
        assert_eq!(parse_exec_args(full).unwrap(), want);
        let bare = os(&["--read", "/a", "--read", "/b", "--", "/usr/bin/ls", "-l"]);
        assert_eq!(parse_exec_args(bare).unwrap(), want);
    }

    #[test]
    fn malformed_arguments_are_refused() {
        assert!(parse_exec_args(os(&["--read", "/a", "/usr/bin/ls"])).is_err());
        assert!(parse_exec_args(os(&["--read", "/a", "--"])).is_err());
        assert!(parse_exec_args(os(&["--write", "/a", "--", "ls"])).is_err());
        assert!(parse_exec_args(os(&["--read"])).is_err());
    }

    #[test]
    fn the_status_is_stable_and_printable() {
        let status = landlock_status();
        assert_eq!(status, landlock_status());
        assert!(status.to_string().starts_with("landlock: "));
    }
}
