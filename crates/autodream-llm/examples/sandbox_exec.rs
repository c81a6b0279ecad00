//! A stand-in for `autodream __sandbox-exec` so this crate's tests can run the Landlock
//! launcher without the CLI binary: `sandbox_exec __sandbox-exec --read DIR -- PROGRAM ARGS…`.
//!
//! `cargo test` builds examples, and the tests find this one next to their own executable
//! (`target/<profile>/examples/sandbox_exec`).

fn main() {
    let args: Vec<std::ffi::OsString> = std::env::args_os().skip(1).collect();
    std::process::exit(autodream_llm::sandbox_exec_main(args));
}
