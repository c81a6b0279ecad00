//! `autodream __sandbox-exec` (internal): runs a read-only command under the sandbox, for
//! the API engine's Bash tool.

use clap::Args;

/// Arguments passed through to the sandboxed exec.
#[derive(Debug, Args)]
pub struct SandboxExecArgs {
    #[arg(trailing_var_arg = true, allow_hyphen_values = true)]
    pub args: Vec<std::ffi::OsString>,
}

/// The exit code of the sandboxed command, clamped to what a process can return.
pub fn run(args: SandboxExecArgs) -> u8 {
    autodream_llm::sandbox_exec_main(args.args).clamp(0, 255) as u8
}
