//! Process exit codes shared by every command, and the small error helpers the library uses.
//!
//! Each module defines its own `thiserror` error type; the CLI edge wraps them with `anyhow`.

use std::process::ExitCode;

/// The documented exit codes of `mcpvet`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Exit {
    /// Nothing reached the gate.
    Clean = 0,
    /// At least one finding reached `--fail-on` (or drift was found by `diff`).
    Findings = 1,
    /// Usage, configuration, policy or input-file error.
    Usage = 2,
    /// A server could not be probed.
    ProbeFailed = 3,
}

impl From<Exit> for ExitCode {
    fn from(e: Exit) -> Self {
        ExitCode::from(e as u8)
    }
}
