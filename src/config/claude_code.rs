//! Claude Code: `.mcp.json` and `~/.claude.json` (user and per-project local scopes).

use std::path::Path;

use super::tree::Node;
use super::{ConfigError, Sniff};
use crate::model::spec::ServerSpec;

pub fn parse(path: &Path, root: &Node) -> Result<Vec<ServerSpec>, ConfigError> {
    super::claude::parse_code(path, root)
}

/// `.mcp.json` or `.claude.json`.
pub fn sniff(s: &Sniff) -> Option<u8> {
    (s.name == ".mcp.json" || s.name == ".claude.json").then_some(2)
}
