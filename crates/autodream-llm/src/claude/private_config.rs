//! A config folder of the dream's own for the client (`CLAUDE_CONFIG_DIR`), so that under
//! Landlock the client never needs to write the user's config folder, where the live memory
//! folders and the transcripts are (`projects/`).
//!
//! It holds copies of what the client needs to run as the user: the login
//! (`.credentials.json`), the client's state file (`.claude.json`) and the user's
//! `settings.json` (model, environment, permissions). If the client refreshes the login
//! during the dream (an OAuth refresh token is used once, then replaced), the new login is
//! copied back to the user's folder afterwards, by autodream and outside the sandbox, unless
//! the user's own file changed meanwhile. Otherwise the user would find themselves logged out.

use std::io::Write;
use std::os::unix::fs::OpenOptionsExt;
use std::path::{Path, PathBuf};

use crate::shared::EnvLookup;

pub const CREDENTIALS: &str = ".credentials.json";
pub const STATE_FILE: &str = ".claude.json";
pub const SETTINGS: &str = "settings.json";

/// Where the user's client keeps its config: `$CLAUDE_CONFIG_DIR`, else `~/.claude` (with its
/// state file `~/.claude.json` beside it).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UserConfig {
    pub dir: PathBuf,
    pub state_file: PathBuf,
}

impl UserConfig {
    pub fn locate(env: &EnvLookup) -> Option<UserConfig> {
        if let Some(dir) = env("CLAUDE_CONFIG_DIR").filter(|d| !d.is_empty()).map(PathBuf::from) {
            let state_file = dir.join(STATE_FILE);
            return Some(UserConfig { dir, state_file });
        }
        let home = env("HOME").filter(|h| !h.is_empty()).map(PathBuf::from)?;
        Some(UserConfig { dir: home.join(".claude"), state_file: home.join(STATE_FILE) })
    }
}

/// The private config folder, prepared.
pub struct PrivateConfig {
    pub dir: PathBuf,
    user: UserConfig,
    /// The user's login as it was copied (`None`: there was none).
    credentials_before: Option<Vec<u8>>,
}

/// What [`PrivateConfig::finish`] did with the login.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LoginSync {
    Unchanged,
    /// The client refreshed the login; the user's file now has the new one.
    CopiedBack,
    /// The client refreshed the login, but the user's file changed during the dream: theirs
    /// was kept.
    KeptUsers,
    Failed(String),
}

fn read(path: &Path) -> std::io::Result<Option<Vec<u8>>> {
    match std::fs::read(path) {
        Ok(b) => Ok(Some(b)),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(e),
    }
}

/// Writes `bytes` to `path` with mode 0600 through a new temp file and a rename.
fn write_private(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let dir = path.parent().ok_or_else(|| std::io::Error::other("no parent folder"))?;
    let name = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    let tmp = dir.join(format!(".{name}.autodream-{}", std::process::id()));
    let result = (|| {
        let mut f = std::fs::OpenOptions::new().write(true).create_new(true).mode(0o600).open(&tmp)?;
        f.write_all(bytes)?;
        f.sync_all()?;
        std::fs::rename(&tmp, path)
    })();
    if result.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    result
}

impl PrivateConfig {
    /// Makes `dir` (which must not exist) and copies the user's login, state file and
    /// settings into it.
    pub fn prepare(dir: PathBuf, user: UserConfig) -> std::io::Result<PrivateConfig> {
        use std::os::unix::fs::DirBuilderExt;
        std::fs::DirBuilder::new().mode(0o700).create(&dir)?;
        let credentials_before = read(&user.dir.join(CREDENTIALS))?;
        for (from, to) in [
            (user.dir.join(CREDENTIALS), CREDENTIALS),
            (user.state_file.clone(), STATE_FILE),
            (user.dir.join(SETTINGS), SETTINGS),
        ] {
            if let Some(bytes) = read(&from)? {
                write_private(&dir.join(to), &bytes)?;
            }
        }
        Ok(PrivateConfig { dir, user, credentials_before })
    }

    /// After the client has exited: copies a refreshed login back to the user's folder.
    pub fn finish(&self) -> LoginSync {
        let after = match read(&self.dir.join(CREDENTIALS)) {
            Ok(a) => a,
            Err(e) => return LoginSync::Failed(e.to_string()),
        };
        if after.is_none() || after == self.credentials_before {
            return LoginSync::Unchanged;
        }
        let users = self.user.dir.join(CREDENTIALS);
        match read(&users) {
            Ok(now) if now == self.credentials_before => {}
            Ok(_) => return LoginSync::KeptUsers,
            Err(e) => return LoginSync::Failed(e.to_string()),
        }
        match write_private(&users, after.as_deref().unwrap_or_default()) {
            Ok(()) => LoginSync::CopiedBack,
            Err(e) => LoginSync::Failed(format!("{}: {e}", users.display())),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;

    fn user(tmp: &Path) -> UserConfig {
        let dir = tmp.join("home/.claude");
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join(CREDENTIALS), "old").unwrap();
        std::fs::write(dir.join(SETTINGS), "{\"model\":\"x\"}").unwrap();
        std::fs::write(tmp.join("home/.claude.json"), "{\"userID\":\"u\"}").unwrap();
        UserConfig { dir, state_file: tmp.join("home/.claude.json") }
    }

    #[test]
    fn the_user_folder_is_found_as_the_client_finds_it() {
        let env: EnvLookup = Arc::new(|k| match k {
            "HOME" => Some("/h".into()),
            _ => None,
        });
        let u = UserConfig::locate(&env).unwrap();
        assert_eq!((u.dir, u.state_file), (PathBuf::from("/h/.claude"), PathBuf::from("/h/.claude.json")));
        let env: EnvLookup = Arc::new(|k| match k {
            "HOME" => Some("/h".into()),
            "CLAUDE_CONFIG_DIR" => Some("/c".into()),
            _ => None,
        });
        let u = UserConfig::locate(&env).unwrap();
        assert_eq!((u.dir, u.state_file), (PathBuf::from("/c"), PathBuf::from("/c/.claude.json")));
    }

    #[test]
    fn a_refreshed_login_goes_back_unless_the_user_changed_theirs() {
        let tmp = tempfile::tempdir().unwrap();
        let u = user(tmp.path());
        let p = PrivateConfig::prepare(tmp.path().join("private"), u.clone()).unwrap();
        assert_eq!(std::fs::read_to_string(p.dir.join(STATE_FILE)).unwrap(), "{\"userID\":\"u\"}");
        assert_eq!(std::fs::read_to_string(p.dir.join(SETTINGS)).unwrap(), "{\"model\":\"x\"}");
        assert_eq!(p.finish(), LoginSync::Unchanged);
        std::fs::write(p.dir.join(CREDENTIALS), "new").unwrap();
        assert_eq!(p.finish(), LoginSync::CopiedBack);
        assert_eq!(std::fs::read_to_string(u.dir.join(CREDENTIALS)).unwrap(), "new");
        use std::os::unix::fs::PermissionsExt;
        assert_eq!(std::fs::metadata(u.dir.join(CREDENTIALS)).unwrap().permissions().mode() & 0o777, 0o600);

        // The user logged in again during the dream: their login stays.
        let p = PrivateConfig::prepare(tmp.path().join("private2"), u.clone()).unwrap();
        std::fs::write(u.dir.join(CREDENTIALS), "users-own").unwrap();
        std::fs::write(p.dir.join(CREDENTIALS), "refreshed").unwrap();
        assert_eq!(p.finish(), LoginSync::KeptUsers);
        assert_eq!(std::fs::read_to_string(u.dir.join(CREDENTIALS)).unwrap(), "users-own");
        assert!(
            std::fs::read_dir(&u.dir).unwrap().all(|e| !e
                .unwrap()
                .file_name()
                .to_string_lossy()
                .contains("autodream"))
        );
    }
}
