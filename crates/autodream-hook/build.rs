//! Links the hook as a fixed-address (non-PIE) executable on Linux.
//!
//! The hook runs at every agent turn end, so its start-up is its cost. A position-independent
//! executable makes the dynamic loader rewrite every relocated pointer before `main`; a
//! fixed-address one has those resolved at link time. Only this binary is affected: build
//! scripts and proc macros keep their defaults.

fn main() {
    let os = std::env::var("CARGO_CFG_TARGET_OS").unwrap_or_default();
    let env = std::env::var("CARGO_CFG_TARGET_ENV").unwrap_or_default();
    if os == "linux" && env == "gnu" {
        println!("cargo:rustc-link-arg-bins=-no-pie");
    }
}
