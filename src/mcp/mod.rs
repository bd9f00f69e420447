//! MCP protocol types and the dual-era client (the probe): the only stage that starts
//! processes or opens sockets.

/// A server could not be probed (maps to exit code 3).
#[derive(Debug, thiserror::Error)]
#[error("{server}: {message}")]
pub struct ProbeFailure {
    pub server: String,
    pub message: String,
}
