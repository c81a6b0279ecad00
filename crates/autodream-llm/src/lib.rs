//! autodream-llm: the dream engines that use a language model, and the sandbox they run in.
//!
//! | room | what it is |
//! |------|------------|
//! | [`api`] | the `api` engine (formerly `agent`): a model driven through an HTTP API (Anthropic Messages, OpenAI-compatible chat completions) with our own sandboxed tools, in a tool-use loop |
//! | [`claude`] | the `claude` engine: the user's own Claude Code client in print mode, working in the staging copy |
//! | [`sandbox`] | what a dream may touch: the path resolver of our tools, the Landlock exec behind Bash, the client's confinement |
//! | [`prompt`] | the four-phase dream prompt both engines send; each brings its own tools section |
//! | [`shared`] | the rest both engines use: the environment lookup, redaction, cutting text, counting archived facts |
//! | [`capture`] | per-turn capture: the model picks which of the user's sentences go to the daily log |
//!
//! Neither engine reaches into the other: what they share lives in [`prompt`] and [`shared`].

pub mod api;
pub mod capture;
pub mod claude;
pub mod prompt;
pub mod sandbox;
pub mod shared;

pub use api::{ApiEngine, ApiOptions, Launcher};
pub use capture::LlmCapture;
pub use claude::{ClaudeEngine, ClaudeOptions};
pub use sandbox::landlock::{LandlockStatus, landlock_status, sandbox_exec_main};
pub use shared::EnvLookup;
