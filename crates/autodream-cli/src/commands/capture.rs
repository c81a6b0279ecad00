//! `autodream __capture` (formerly `__extract`): the detached capture the Stop hook starts when a transcript grew
//! (internal). It runs `autodream_core::capture::run` with the offline engine's rules
//! (`autodream_offline::extract_turns`), or with `extract = "agent"` the model's choice
//! among the same sentences (`autodream_llm::capture`), and notes a failure, or why the
//! model was not used, in the worker log.
//!
//! Exit codes: 0 done (or nothing new), 3 another capture holds the transcript or already
//! waits for it, 1 error.

use std::path::PathBuf;

use clap::Args;

use autodream_core::capture::{self, CaptureMode};
use autodream_core::clock::local_tz;
use autodream_core::memdir::daily_log::LogCursor;
use autodream_hookproc::log_line;
use autodream_llm::LlmCapture;
use autodream_offline::extract_turns::OfflineExtractor;

use crate::context;
use crate::global::GlobalArgs;

#[derive(Debug, Args)]
pub struct CaptureArgs {
    /// The transcript to read the new turns of
    #[arg(long, value_name = "PATH")]
    pub transcript: PathBuf,
}

pub fn run(global: &GlobalArgs, args: CaptureArgs) -> anyhow::Result<u8> {
    let ctx = context::build(global)?;
    let loc = &ctx.locations;
    // Off, or the client keeps no memory here.
    if ctx.cfg().extract == CaptureMode::Off || ctx.config.auto_memory_off.is_some() {
        return Ok(0);
    }
    // One capture waits per transcript: when another already does, it will read all that is
    // new, so this one leaves at once (busy, like one that finds the transcript's lock taken).
    let Some(slot) = capture::claim_wait(loc, &args.transcript) else {
        return Ok(3);
    };
    // The client writes its transcript asynchronously: a session's first Stop may come before
    // the file exists. Give it a moment; SessionEnd runs the capture again in any case.
    if !capture::wait_for_transcript(&args.transcript, std::time::Duration::from_secs(5)) {
        return Ok(0);
    }
    // An capture of this transcript still at work (the Stop one, when SessionEnd follows at
    // once): let it finish, so the rules below know what it wrote.
    capture::wait_for_holder(loc, &args.transcript, std::time::Duration::from_secs(10));
    // At work now: the next capture may wait for this one.
    drop(slot);
    let session = ctx.current_session.clone().unwrap_or_else(|| capture::key_for(&args.transcript));
    let now = ctx.clock.now_local();
    let offline = OfflineExtractor::new(
        &loc.memory_dir,
        LogCursor::of_last_dream(loc).as_ref(),
        now.timestamp(),
        local_tz(),
    );
    let result = if ctx.cfg().extract == CaptureMode::Agent {
        let mut rules = LlmCapture::new(offline, ctx.cfg(), &|name| std::env::var(name).ok());
        let result = capture::run(loc, &args.transcript, &session, &now, &mut rules);
        for note in rules.notes() {
            log_line(loc, ctx.clock, &format!("extraction from {}: {note}", args.transcript.display()));
        }
        result
    } else {
        let mut rules = offline;
        capture::run(loc, &args.transcript, &session, &now, &mut rules)
    };
    match result {
        Ok(report) if report.busy => Ok(3),
        Ok(report) => {
            // Shared with a team: deliver the new entries (detached, never in the hook).
            if report.written > 0 {
                crate::commands::team::after_capture(&ctx);
            }
            Ok(0)
        }
        Err(e) => {
            log_line(loc, ctx.clock, &format!("extraction from {} failed: {e}", args.transcript.display()));
            Err(e.into())
        }
    }
}
