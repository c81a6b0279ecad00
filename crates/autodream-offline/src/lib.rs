//! autodream-offline: the deterministic dream engine (placeholder: being built).

pub mod dates;
