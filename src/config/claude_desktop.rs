//! Claude Desktop: `claude_desktop_config.json` (`mcpServers`).

use std::path::Path;

use super::tree::Node;
use super::{ConfigError, Sniff};
use crate::model::spec::ServerSpec;

pub fn parse(path: &Path, root: &Node) -> Result<Vec<ServerSpec>, ConfigError> {
    super::claude::parse_desktop(path, root)
}

/// `claude_desktop_config.json`, or a file under a `Claude` folder.
pub fn sniff(s: &Sniff) -> Option<u8> {
    if s.name == "claude_desktop_config.json" {
        return Some(1);
    }
    s.in_dir("claude").then_some(16)
}
