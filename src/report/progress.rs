//! A progress display on stderr for long scans: one status line, redrawn in place on a
//! terminal (and, for the probe, a permanent line per server as each one ends).

use super::eprint_line;

/// Progress over a known number of servers.
#[derive(Debug)]
pub struct Progress {
    total: usize,
    done: usize,
    enabled: bool,
}

impl Progress {
    /// `enabled` should be `stderr is a terminal && !quiet`; use [`Progress::for_stderr`].
    pub fn new(total: usize, enabled: bool) -> Self {
        Progress {
            total,
            done: 0,
            enabled: enabled && total > 0,
        }
    }

    /// Enabled only when stderr is a terminal and output is not quiet.
    pub fn for_stderr(total: usize, quiet: bool) -> Self {
        Progress::new(total, !quiet && super::style::stderr_is_terminal())
    }

    /// The status line for the current state (pure, for tests).
    pub fn line(&self, current: &str) -> String {
        format!("[{}/{}] probing {current}…", self.done, self.total)
    }

    /// Show that `server` is being probed.
    pub fn start(&self, server: &str) {
        if self.enabled {
            redraw(&self.line(server));
        }
    }

    /// Record that a server finished.
    pub fn finish_one(&mut self, server: &str) {
        self.done = (self.done + 1).min(self.total);
        if self.enabled {
            redraw(&format!("[{}/{}] done {server}", self.done, self.total));
        }
    }

    /// Clear the status line (call before printing the report).
    pub fn clear(&self) {
        if self.enabled {
            redraw("");
        }
    }
}

/// Show `text` as the one status line on a terminal's stderr, replacing the last one (no
/// newline: the next status line or [`clear_status`] overwrites it).
pub fn status_line(text: &str) {
    redraw(text);
}

/// Erase the status line, so that what is printed next starts on a clean line.
pub fn clear_status() {
    redraw("");
}

fn redraw(text: &str) {
    use std::io::Write;
    let mut e = std::io::stderr().lock();
    let shown = crate::model::escape::line(&crate::model::redact::redact_text(text));
    let r = write!(e, "\r\x1b[2K{shown}").and_then(|()| e.flush());
    if r.is_err() {
        eprint_line(text);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_and_never_overflows() {
        let mut p = Progress::new(2, false);
        assert_eq!(p.line("a"), "[0/2] probing a…");
        p.finish_one("a");
        p.finish_one("b");
        p.finish_one("c");
        assert_eq!(p.line("x"), "[2/2] probing x…");
    }
}
