//! JetBrains Junie: `.junie/mcp/mcp.json` and the user-level `~/.junie/mcp/mcp.json` (`mcpServers`).

use std::path::Path;

use super::Sniff;
use super::tree::Node;
use super::{ConfigError, mcp_servers};
use crate::model::host::HostFormat;
use crate::model::spec::ServerSpec;

pub fn parse(path: &Path, root: &Node) -> Result<Vec<ServerSpec>, ConfigError> {
    mcp_servers(path, root, HostFormat::Junie, &["type", "disabled"])
}

/// A file under `.junie/`.
pub fn sniff(s: &Sniff) -> Option<u8> {
    s.in_dir(".junie").then_some(13)
}
