//! Cursor: `~/.cursor/mcp.json` and the project's `.cursor/mcp.json` (`mcpServers`).

use std::path::Path;

use super::Sniff;
use super::tree::Node;
use super::{ConfigError, mcp_servers};
use crate::model::host::HostFormat;
use crate::model::spec::ServerSpec;

pub fn parse(path: &Path, root: &Node) -> Result<Vec<ServerSpec>, ConfigError> {
    mcp_servers(path, root, HostFormat::Cursor, &["type", "disabled"])
}

/// A file under `.cursor/`.
pub fn sniff(s: &Sniff) -> Option<u8> {
    s.in_dir(".cursor").then_some(11)
}
