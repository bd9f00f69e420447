//! Windsurf: `~/.codeium/windsurf/mcp_config.json` (`mcpServers`; remotes use `serverUrl`).

use std::path::Path;

use super::tree::Node;
use super::{ConfigError, mcp_servers};
use crate::model::spec::ServerSpec;

pub fn parse(path: &Path, root: &Node) -> Result<Vec<ServerSpec>, ConfigError> {
    mcp_servers(path, root, "windsurf", &["disabled", "disabledTools"])
}
