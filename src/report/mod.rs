//! The report layer: the only code that writes to stdout or stderr.
//!
//! Renderers (table, json v1, sarif, github, markdown review) are pure functions that return
//! strings; the `write_*`/`print_*` helpers here do the actual I/O (a broken pipe is success).

#![allow(clippy::print_stdout, clippy::print_stderr)]

use std::io::Write;

/// Write bytes to stdout; a closed pipe (`mcpvet … | head`) is not an error.
pub fn write_stdout(bytes: &[u8]) -> std::io::Result<()> {
    let mut out = std::io::stdout().lock();
    match out.write_all(bytes).and_then(|()| out.flush()) {
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(()),
        other => other,
    }
}

/// Write a line to stderr (diagnostics, progress, warnings).
pub fn eprint_line(line: &str) {
    let _ = writeln!(std::io::stderr().lock(), "{line}");
}

/// Print an error with its chain of causes.
pub fn print_error(e: &anyhow::Error) {
    let mut s = format!("error: {e}");
    for cause in e.chain().skip(1) {
        s.push_str(&format!("\n  caused by: {cause}"));
    }
    eprint_line(&s);
}

/// Print a clap parse error (or help/version) where clap wants it.
pub fn print_clap(e: &clap::Error) {
    let _ = e.print();
}
