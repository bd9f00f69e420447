//! Gemini CLI: `~/.gemini/settings.json` and `.gemini/settings.json` (`mcpServers` with
//! `command`, `url` (SSE) or `httpUrl` (streamable HTTP), and `trust`, which skips every
//! confirmation for the server's tools).

use std::path::Path;

use super::Sniff;
use super::tree::Node;
use super::{ConfigError, mcp_servers};
use crate::model::host::HostFormat;
use crate::model::spec::ServerSpec;

pub fn parse(path: &Path, root: &Node) -> Result<Vec<ServerSpec>, ConfigError> {
    mcp_servers(
        path,
        root,
        HostFormat::Gemini,
        &["trust", "includeTools", "excludeTools", "timeout", "type"],
    )
}

/// A file under `.gemini/`.
pub fn sniff(s: &Sniff) -> Option<u8> {
    s.in_dir(".gemini").then_some(12)
}
