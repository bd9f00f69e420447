//! Windsurf: `~/.codeium/windsurf/mcp_config.json` (`mcpServers`; remotes use `serverUrl`).

use std::path::Path;

use super::Sniff;
use super::tree::Node;
use super::{ConfigError, mcp_servers};
use crate::model::host::HostFormat;
use crate::model::spec::ServerSpec;

pub fn parse(path: &Path, root: &Node) -> Result<Vec<ServerSpec>, ConfigError> {
    mcp_servers(path, root, HostFormat::Windsurf, &["disabled", "disabledTools"])
}

/// `mcp_config.json`, or a file under a Windsurf folder.
pub fn sniff(s: &Sniff) -> Option<u8> {
    if s.name == "mcp_config.json" {
        return Some(4);
    }
    (s.in_dir("windsurf") || s.in_dir(".windsurf")).then_some(14)
}
