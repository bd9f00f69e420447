//! Any other JSON file with a Claude-style `mcpServers` map.

use std::path::Path;

use super::tree::Node;
use super::{ConfigError, Sniff};
use crate::model::spec::ServerSpec;

pub fn parse(path: &Path, root: &Node) -> Result<Vec<ServerSpec>, ConfigError> {
    super::claude::parse_generic(path, root)
}

/// Any `mcpServers` member, when no other format claims the file.
pub fn sniff(s: &Sniff) -> Option<u8> {
    s.root.get("mcpServers").is_some().then_some(21)
}
