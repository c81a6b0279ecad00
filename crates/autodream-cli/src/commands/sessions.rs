//! `autodream sessions`: the transcripts a dream would review, parsed.

use clap::Args;
use serde::Serialize;

use autodream_core::clock::to_system_time;
use autodream_core::gates::GateInput;
use autodream_core::sessions::{self, SessionFormat, SessionWindow};

use crate::commands::print_json;
use crate::context;
use crate::global::GlobalArgs;
use crate::output::outln;

#[derive(Debug, Args)]
pub struct SessionsArgs {
    /// Every transcript, not only those touched since the last dream
    #[arg(long)]
    pub all: bool,
    /// Print one JSON object
    #[arg(long)]
    pub json: bool,
}

#[derive(Debug, Serialize)]
struct Row {
    id: String,
    path: std::path::PathBuf,
    format: SessionFormat,
    modified_at: jiff::Timestamp,
    turns: usize,
    conversation_turns: usize,
    skipped_lines: usize,
}

pub fn run(global: &GlobalArgs, args: SessionsArgs) -> anyhow::Result<u8> {
    let ctx = context::build(global)?;
    let since = if args.all {
        None
    } else {
        let eval = autodream_core::gates::explain(&GateInput {
            locations: &ctx.locations,
            config: &ctx.config,
            clock: ctx.clock,
            current_session: None,
        });
        eval.last_consolidated_at
    };
    let files = SessionWindow::for_project(
        &ctx.locations,
        ctx.cfg().sessions_format,
        since.map(to_system_time),
        ctx.clock.now(),
        ctx.current_session.as_deref(),
    )
    .files()?;
    let mut rows = Vec::with_capacity(files.len());
    for f in files {
        let parsed = sessions::parse_session_file(&f, ctx.cfg().sessions_format)?;
        rows.push(Row {
            id: f.id,
            path: f.path,
            format: parsed.format,
            modified_at: f.modified_at,
            turns: parsed.turns.len(),
            conversation_turns: parsed.turns.iter().filter(|t| t.is_conversation()).count(),
            skipped_lines: parsed.skipped_lines,
        });
    }
    if args.json {
        print_json(
            &serde_json::json!({ "since": since, "sessions_dir": ctx.locations.sessions_dir, "sessions": rows }),
        )?;
        return Ok(0);
    }
    context::print_warnings(&ctx);
    let scope = match since {
        Some(t) if !args.all => {
            format!("touched since the last dream ({})", t.strftime("%Y-%m-%d %H:%M UTC"))
        }
        _ => "all".to_string(),
    };
    outln!("{} sessions {scope} in {}", rows.len(), ctx.locations.sessions_dir.display())?;
    for r in &rows {
        let skipped = match r.skipped_lines {
            0 => String::new(),
            1 => ", 1 line skipped".to_string(),
            n => format!(", {n} lines skipped"),
        };
        outln!(
            "  {}  {}  {:<8} {} turns ({} conversation){skipped}",
            r.modified_at.strftime("%Y-%m-%d %H:%M"),
            r.id,
            r.format.to_string(),
            r.turns,
            r.conversation_turns
        )?;
    }
    Ok(0)
}
