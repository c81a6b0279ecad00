//! The sandbox's room for the claude engine: the Landlock confinement of the Claude Code
//! client. It may read everything and write only beneath the paths it is given (the staging
//! copy, its private temp folder, its credentials files).
//!
//! The ruleset is built in the parent, before the fork (building it allocates); the child,
//! between fork and exec, only makes the three async-signal-safe system calls that apply it:
//! die with the parent (`PR_SET_PDEATHSIG`), `no_new_privs`, `landlock_restrict_self`.
//! Network access is left alone: the client must reach its API.

use std::path::{Path, PathBuf};
use std::process::Command;

/// A ruleset ready to be applied in a child, or the reason there is none.
pub enum Confinement {
    #[cfg(target_os = "linux")]
    Ready(std::os::fd::OwnedFd),
    Unavailable(String),
}

impl Confinement {
    /// Builds the ruleset: read (and execute) anywhere, write beneath `writable` only (a file
    /// in `writable` may be written in place, not replaced). Paths that do not exist are
    /// skipped.
    #[cfg(target_os = "linux")]
    pub fn build(writable: &[PathBuf]) -> Confinement {
        use landlock::{ABI, Access, AccessFs, Ruleset, RulesetAttr, RulesetCreatedAttr, path_beneath_rules};
        let status = crate::sandbox::landlock::landlock_status();
        if !status.is_available() {
            return Confinement::Unavailable(status.to_string());
        }
        let abi = ABI::V6;
        let existing: Vec<&Path> = writable.iter().map(PathBuf::as_path).filter(|p| p.exists()).collect();
        let built = Ruleset::default()
            .handle_access(AccessFs::from_all(abi))
            .and_then(|r| r.create())
            .and_then(|r| r.add_rules(path_beneath_rules(["/"], AccessFs::from_read(abi))))
            .and_then(|r| r.add_rules(path_beneath_rules(existing, AccessFs::from_all(abi))));
        match built {
            Ok(created) => match Option::<std::os::fd::OwnedFd>::from(created) {
                Some(fd) => Confinement::Ready(fd),
                None => Confinement::Unavailable("the kernel enforces no Landlock rules here".into()),
            },
            Err(e) => Confinement::Unavailable(format!("cannot set up Landlock: {e}")),
        }
    }

    #[cfg(not(target_os = "linux"))]
    pub fn build(_writable: &[PathBuf]) -> Confinement {
        Confinement::Unavailable(crate::sandbox::landlock::landlock_status().to_string())
    }

    pub fn is_ready(&self) -> bool {
        !matches!(self, Confinement::Unavailable(_))
    }

    /// Makes `command`'s child apply the ruleset before it executes, and die with this
    /// thread. Without a ruleset, only the latter.
    pub fn apply_to(&self, command: &mut Command) {
        #[cfg(target_os = "linux")]
        {
            use std::os::fd::AsRawFd;
            use std::os::unix::process::CommandExt;
            let fd = match self {
                Confinement::Ready(fd) => Some(fd.as_raw_fd()),
                Confinement::Unavailable(_) => None,
            };
            // SAFETY: the closure runs in the forked child before exec and only makes raw
            // system calls (prctl, landlock_restrict_self) and reads errno: no allocation, no
            // lock, async-signal-safe.
            unsafe {
                command.pre_exec(move || {
                    if libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL, 0, 0, 0) != 0 {
                        return Err(std::io::Error::last_os_error());
                    }
                    if let Some(fd) = fd {
                        if libc::prctl(libc::PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0 {
                            return Err(std::io::Error::last_os_error());
                        }
                        if libc::syscall(libc::SYS_landlock_restrict_self, fd, 0) != 0 {
                            return Err(std::io::Error::last_os_error());
                        }
                    }
                    Ok(())
                });
            }
        }
        #[cfg(not(target_os = "linux"))]
        let _ = command;
    }
}
