//! `autodream watch`: a live view of the running dream; `x` kills it, `q` quits.

use std::io::{IsTerminal, Write};
use std::time::Duration;

use clap::Args;
use crossterm::event::{self, Event, KeyCode, KeyEventKind};
use crossterm::{cursor, execute, terminal};

use autodream_core::dream::task::{Task, TaskState};

use crate::context;
use crate::global::GlobalArgs;
use crate::output::outln;

#[derive(Debug, Args)]
pub struct WatchArgs {}

fn render(task: Option<&Task>, now: jiff::Timestamp) -> Vec<String> {
    let Some(t) = task else { return vec!["no dream has run yet".into()] };
    let mut lines = vec![format!("dream {}  {}", t.id, t.one_line(now))];
    if !t.files_touched.is_empty() {
        lines.push(format!("files: {}", t.files_touched.join(", ")));
    }
    if t.tokens.total() > 0 {
        lines.push(format!(
            "tokens: {} in, {} out, {} cache read, {} cache write{}",
            t.tokens.input,
            t.tokens.output,
            t.tokens.cache_read,
            t.tokens.cache_write,
            t.cost_usd.map(|c| format!(" (≈ ${c:.4})")).unwrap_or_default()
        ));
    }
    lines.push(String::new());
    for turn in t.turns.iter().rev().take(6).rev() {
        lines.push(format!("· {}", turn.display_line()));
    }
    lines
}

/// Per-turn extraction: the mode and totals, then the three most recent sessions.
fn extraction_lines(ctx: &context::Ctx) -> Vec<String> {
    let summary = autodream_core::capture::Summary::read(
        &ctx.locations,
        ctx.cfg().extract,
        ctx.clock.now_local().date(),
    );
    let mut lines: Vec<String> = summary
        .lines(ctx.clock.now(), 3)
        .into_iter()
        .enumerate()
        .map(|(i, l)| if i == 0 { format!("extraction: {l}") } else { format!("  {l}") })
        .collect();
    lines.push(String::new());
    lines
}

pub fn run(global: &GlobalArgs, _args: WatchArgs) -> anyhow::Result<u8> {
    let ctx = context::build(global)?;
    let load = || autodream_core::dream::task::load_effective(&ctx.locations, ctx.clock, ctx.cfg());
    let interactive = crate::output::is_terminal() && std::io::stdin().is_terminal();
    if !interactive {
        // Piped: print each new state until the dream ends.
        let mut last = String::new();
        loop {
            let task = load();
            let mut lines = crate::commands::daemon::watch_lines(&ctx);
            lines.extend(extraction_lines(&ctx));
            lines.extend(render(task.as_ref(), ctx.clock.now()));
            let text = lines.join("\n");
            if text != last {
                outln!("{text}\n")?;
                last = text;
            }
            if task.as_ref().is_none_or(|t| t.state != TaskState::Running) {
                return Ok(0);
            }
            std::thread::sleep(Duration::from_millis(250));
        }
    }
    let mut out = crate::output::Stdout;
    terminal::enable_raw_mode()?;
    execute!(out, terminal::EnterAlternateScreen, cursor::Hide)?;
    let result = (|| -> anyhow::Result<()> {
        loop {
            let task = load();
            execute!(out, cursor::MoveTo(0, 0), terminal::Clear(terminal::ClearType::All))?;
            let daemon = crate::commands::daemon::watch_lines(&ctx);
            let extraction = extraction_lines(&ctx);
            for l in daemon.into_iter().chain(extraction).chain(render(task.as_ref(), ctx.clock.now())) {
                write!(out, "{l}\r\n")?;
            }
            let running = task.as_ref().is_some_and(|t| t.state == TaskState::Running);
            write!(out, "\r\n{}\r\n", if running { "x: kill the dream · q: quit" } else { "q: quit" })?;
            out.flush()?;
            if event::poll(Duration::from_millis(250))?
                && let Event::Key(k) = event::read()?
                && k.kind == KeyEventKind::Press
            {
                match k.code {
                    KeyCode::Char('q') | KeyCode::Esc => return Ok(()),
                    KeyCode::Char('x') if running => {
                        if let Some(t) = &task {
                            write!(out, "killing…\r\n")?;
                            out.flush()?;
                            autodream_core::dream::kill::stop(
                                &ctx.locations,
                                ctx.clock,
                                ctx.cfg(),
                                t.pid,
                                Duration::from_secs(10),
                            )?;
                        }
                    }
                    _ => {}
                }
            }
        }
    })();
    // The terminal is given back whatever ended the loop; the loop's own error comes first.
    let restored = execute!(out, cursor::Show, terminal::LeaveAlternateScreen);
    let raw_off = terminal::disable_raw_mode();
    result?;
    restored?;
    raw_off?;
    Ok(0)
}
