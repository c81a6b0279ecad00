//! The sandbox both engines run in: what a dream may read and write, enforced in three rooms.
//!
//! | room | for | used by |
//! |------|-----|---------|
//! | paths (this module's [`Sandbox`]) | which file a path names, and opening it without being fooled: reads under the memory, sessions and project folders, writes only in the staging copy | the API engine's tools |
//! | [`landlock`] | the restricted exec behind Bash (`autodream __sandbox-exec`): a child that can write nowhere, then becomes the program | the API engine's Bash |
//! | [`confine`] | the Landlock ruleset of the Claude Code client: it may write only the staging copy and its own temp folder | the claude engine |
//!
//! Where the kernel has no Landlock (macOS, old kernels), [`landlock_status`] says so and the
//! in-process checks (the path resolver, Bash's command-line checks, the client's own
//! permissions) stand alone.

pub mod confine;
pub mod landlock;
mod paths;

pub use landlock::{LandlockStatus, landlock_status};
pub use paths::{
    Access, AccessError, Denial, MAX_COMPONENT_BYTES, MAX_PATH_BYTES, Resolved, Root, RootKind, Sandbox,
    SandboxError, SandboxRoots,
};
