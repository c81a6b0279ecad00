//! Standard output: every byte the CLI writes there goes through this module.
//!
//! `println!` panics when standard output is closed (`autodream status | head -1` would die
//! with "failed printing to stdout: Broken pipe", exit 101). Here every write returns an
//! [`io::Result`] instead, so a command stops at its first failed write with `?`, the error
//! travels up like any other (destructors run: a lock taken is rolled back), and `main`
//! turns it into a quiet exit 0 ([`is_closed_stdout`]), the way ripgrep treats a reader that
//! has seen enough.
//!
//! - [`outln!`] and [`out!`]: `println!` and `print!` that return `io::Result<()>`;
//! - [`json`]: a value as pretty JSON, one line break after it;
//! - [`Stdout`]: a [`Write`] for code that takes a writer (the terminal UI of `watch`);
//! - [`AsyncStdout`]: the same for the MCP server's transport, with a callback that ends the
//!   server when the client stops reading;
//! - [`clap_message`]: clap's `--help` and `--version` text.
//!
//! A write that fails because the reader went away is remembered ([`closed`]), so `main`
//! tells a closed standard output from a broken pipe of some other kind (a socket of an LLM
//! provider, a child process), which stays an error.

// The one place that may name the process's standard output.
#![allow(clippy::disallowed_methods)]

use std::io::{self, IsTerminal, Write};
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, Ordering};
use std::task::{Context, Poll};

/// Set when a write to standard output failed with a broken pipe.
static CLOSED: AtomicBool = AtomicBool::new(false);

/// Has a write to standard output found its reader gone?
pub fn closed() -> bool {
    CLOSED.load(Ordering::Relaxed)
}

/// Passes `e` through, remembering a broken pipe.
fn note(e: io::Error) -> io::Error {
    if e.kind() == io::ErrorKind::BrokenPipe {
        CLOSED.store(true, Ordering::Relaxed);
    }
    e
}

/// Is standard output a terminal (`watch` draws its live view only there)?
pub fn is_terminal() -> bool {
    io::stdout().is_terminal()
}

/// Writes `args` to standard output (what [`out!`] expands to).
pub fn write_fmt(args: std::fmt::Arguments<'_>) -> io::Result<()> {
    io::stdout().lock().write_fmt(args).map_err(note)
}

/// Writes `args` and a line break to standard output (what [`outln!`] expands to).
pub fn write_line(args: std::fmt::Arguments<'_>) -> io::Result<()> {
    let mut out = io::stdout().lock();
    out.write_fmt(args).and_then(|()| out.write_all(b"\n")).map_err(note)
}

/// Sends what is still buffered (text written without a final line break) to the reader.
pub fn flush() -> io::Result<()> {
    io::stdout().lock().flush().map_err(note)
}

/// `print!` that returns `io::Result<()>` instead of panicking.
macro_rules! out {
    ($($arg:tt)*) => {
        $crate::output::write_fmt(format_args!($($arg)*))
    };
}

/// `println!` that returns `io::Result<()>` instead of panicking.
macro_rules! outln {
    () => {
        $crate::output::write_line(format_args!(""))
    };
    ($($arg:tt)*) => {
        $crate::output::write_line(format_args!($($arg)*))
    };
}

pub(crate) use {out, outln};

/// A value as pretty JSON on standard output, with a line break after it.
pub fn json<T: serde::Serialize>(value: &T) -> anyhow::Result<()> {
    // Serialised first: a value that cannot be is an error of its own, not a broken pipe.
    let text = serde_json::to_string_pretty(value)?;
    outln!("{text}")?;
    Ok(())
}

/// Standard output as a writer; every error passes through [`closed`]'s bookkeeping.
#[derive(Debug, Default, Clone, Copy)]
pub struct Stdout;

impl Write for Stdout {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        io::stdout().lock().write(buf).map_err(note)
    }

    fn flush(&mut self) -> io::Result<()> {
        flush()
    }
}

/// clap's message for `--help` and `--version` (standard output) or a usage mistake
/// (standard error).
pub fn clap_message(e: &clap::Error) -> io::Result<()> {
    e.print().map_err(|err| if e.use_stderr() { err } else { note(err) })
}

/// Is `e` standard output closed by its reader? A broken pipe in the error's chain, after
/// a write to standard output did fail with one: then the command is done, not failed.
pub fn is_closed_stdout(e: &anyhow::Error) -> bool {
    closed() && has_broken_pipe(e)
}

/// A broken pipe anywhere in `e`'s chain, or inside an `io::Error` that wraps another error.
fn has_broken_pipe(e: &anyhow::Error) -> bool {
    e.chain().any(|cause| {
        let mut io = cause.downcast_ref::<io::Error>();
        while let Some(err) = io {
            if err.kind() == io::ErrorKind::BrokenPipe {
                return true;
            }
            io = err.get_ref().and_then(|inner| inner.downcast_ref::<io::Error>());
        }
        false
    })
}

/// Standard output for an async transport (the MCP server's): `on_closed` runs once, at the
/// first write that finds the reader gone, so the server can stop instead of answering into
/// a closed pipe until its input ends.
pub struct AsyncStdout {
    inner: tokio::io::Stdout,
    on_closed: Option<Box<dyn FnOnce() + Send>>,
}

impl AsyncStdout {
    pub fn new(on_closed: impl FnOnce() + Send + 'static) -> AsyncStdout {
        AsyncStdout { inner: tokio::io::stdout(), on_closed: Some(Box::new(on_closed)) }
    }

    fn check<T>(&mut self, r: Poll<io::Result<T>>) -> Poll<io::Result<T>> {
        match r {
            Poll::Ready(Err(e)) => {
                let e = note(e);
                if e.kind() == io::ErrorKind::BrokenPipe
                    && let Some(f) = self.on_closed.take()
                {
                    f();
                }
                Poll::Ready(Err(e))
            }
            other => other,
        }
    }
}

impl tokio::io::AsyncWrite for AsyncStdout {
    fn poll_write(mut self: Pin<&mut Self>, cx: &mut Context<'_>, buf: &[u8]) -> Poll<io::Result<usize>> {
        let r = Pin::new(&mut self.inner).poll_write(cx, buf);
        self.check(r)
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        let r = Pin::new(&mut self.inner).poll_flush(cx);
        self.check(r)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        let r = Pin::new(&mut self.inner).poll_shutdown(cx);
        self.check(r)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_broken_pipe_is_found_through_context_and_wrapped_io_errors() {
        let pipe = || io::Error::from(io::ErrorKind::BrokenPipe);
        let wrapped = io::Error::other(pipe());
        assert!(has_broken_pipe(&anyhow::Error::from(pipe()).context("writing the report")));
        assert!(has_broken_pipe(&anyhow::Error::from(wrapped).context("a")));
        let other = io::Error::from(io::ErrorKind::PermissionDenied);
        assert!(!has_broken_pipe(&anyhow::Error::from(other).context("writing the report")));
        assert!(!has_broken_pipe(&anyhow::anyhow!("broken pipe, in words only")));
    }
}
