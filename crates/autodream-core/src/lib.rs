//! autodream-core: the rooms of the autodream engine.
//!
//! Everything that touches the user's memory lives here, with no network and no async
//! runtime: where memory and sessions are ([`paths`]), what time it is ([`clock`]), how the
//! user configured us ([`config`]) and what they said on the command line ([`overrides`]), the memory directory itself ([`memdir`]), the agent's
//! transcripts ([`sessions`]), the consolidation lock ([`lock`]), the cheapest-first gates
//! ([`gates`]), the engine interface ([`engine`]) and the dream lifecycle ([`dream`]).
//! Secrets are taken out of what is written and read by [`redact`], on the one-pass rule
//! scanner of [`rules`] (which the offline engine's date resolver uses too).
//!
//! The hook's decision is [`hook`]; the hook hot path touches only `overrides`, `paths`,
//! `clock`, `config`, `lock` and `gates`. The hook's process (stdin, the detached worker, its
//! log) is the `autodream-hookproc` crate's.

pub mod agents_md;
pub mod capture;
pub mod clock;
pub mod config;
pub mod daemon;
pub mod dream;
pub mod engine;
pub mod gates;
pub mod hook;
pub mod hygiene;
pub mod lock;
pub mod memdir;
pub mod overrides;
pub mod paths;
pub mod redact;
pub mod referents;
pub mod rules;
pub mod sessions;
pub mod usage;

pub use clock::Clock;
pub use config::Config;
pub use overrides::Overrides;
