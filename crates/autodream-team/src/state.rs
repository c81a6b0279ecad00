//! What team memory keeps in the state folder, under `team/`: which remote and branch this
//! memory folder joined (`team.json`), how the last sync went (`sync.json`: the base commit
//! of the next three-way merge, last success, last error, a dream waiting to land), the
//! bare clone (`repo.git/`) and the lock that lets one sync run at a time on this machine.

use std::path::PathBuf;

use autodream_core::memdir::safe_path::MemoryRoot;
use autodream_core::paths::Locations;
use jiff::Timestamp;
use serde::{Deserialize, Serialize};

/// The folder inside the state folder.
pub use autodream_core::paths::state::TEAM_DIR;
const JOINED_FILE: &str = "team.json";
const SYNC_FILE: &str = "sync.json";
const REPO_DIR: &str = "repo.git";
const SYNC_LOCK: &str = "sync.lock";

/// The choice `team init` recorded for this memory folder.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Joined {
    /// The remote as given (`origin`), for display.
    pub remote: String,
    /// The URL it resolved to when joining.
    pub url: String,
    pub branch: String,
    pub machine: String,
    pub joined_at: Timestamp,
}

/// A dream that took the lease and has not landed or been given back yet.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Pending {
    pub token: u64,
    /// The lease commit: the base its result is merged over.
    pub lease_commit: String,
    /// The local dream's task, once it finished.
    pub task: Option<String>,
    /// When the lease was taken: a dream in history since then is this one.
    pub started: Timestamp,
}

/// How syncing went.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct SyncState {
    /// The commit this memory folder was last merged with: the base of the next merge.
    pub base: Option<String>,
    pub last_sync: Option<Timestamp>,
    pub last_attempt: Option<Timestamp>,
    /// Why the last attempt failed; cleared by the next success.
    pub last_error: Option<String>,
    pub last_error_at: Option<Timestamp>,
    /// Commits pushed and received by the last sync.
    #[serde(default)]
    pub pushed: u64,
    #[serde(default)]
    pub received: u64,
    pub pending: Option<Pending>,
    /// A digest of this machine's files right after the last successful round, which left
    /// them equal to `base`: when neither they nor the branch changed since, a sync has
    /// nothing to do past its fetch.
    #[serde(default)]
    pub digest: Option<String>,
}

/// The team folder's files for one memory folder.
#[derive(Debug, Clone)]
pub struct TeamFiles {
    pub dir: PathBuf,
}

impl TeamFiles {
    pub fn of(loc: &Locations) -> TeamFiles {
        TeamFiles { dir: loc.state_dir.join(TEAM_DIR) }
    }

    pub fn repo_dir(&self) -> PathBuf {
        self.dir.join(REPO_DIR)
    }

    pub fn lock_path(&self) -> PathBuf {
        self.dir.join(SYNC_LOCK)
    }

    /// The recorded choice; `None` when this memory folder never joined (or left).
    pub fn joined(&self) -> Option<Joined> {
        serde_json::from_slice(&std::fs::read(self.dir.join(JOINED_FILE)).ok()?).ok()
    }

    pub fn save_joined(&self, j: &Joined) -> std::io::Result<()> {
        self.write(JOINED_FILE, &serde_json::to_vec_pretty(j).unwrap_or_default())
    }

    /// Leaving: the record goes; the clone and the sync state go with it.
    pub fn forget(&self) -> std::io::Result<bool> {
        match std::fs::remove_dir_all(&self.dir) {
            Ok(()) => Ok(true),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(false),
            Err(e) => Err(e),
        }
    }

    pub fn sync_state(&self) -> SyncState {
        std::fs::read(self.dir.join(SYNC_FILE))
            .ok()
            .and_then(|b| serde_json::from_slice(&b).ok())
            .unwrap_or_default()
    }

    pub fn save_sync_state(&self, s: &SyncState) -> std::io::Result<()> {
        self.write(SYNC_FILE, &serde_json::to_vec_pretty(s).unwrap_or_default())
    }

    fn write(&self, name: &str, bytes: &[u8]) -> std::io::Result<()> {
        MemoryRoot::create(&self.dir).and_then(|r| r.write_atomic(name, bytes)).map_err(std::io::Error::other)
    }
}
