//! Cline: `cline_mcp_settings.json` (`mcpServers` with `alwaysAllow`, `autoApprove`, `disabled`).

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
        HostFormat::Cline,
        &["alwaysAllow", "autoApprove", "disabled", "type", "timeout"],
    )
}

/// `cline_mcp_settings.json`, or a file under the Cline extension's folder.
pub fn sniff(s: &Sniff) -> Option<u8> {
    if s.name == "cline_mcp_settings.json" {
        return Some(3);
    }
    s.in_dir("saoudrizwan.claude-dev").then_some(15)
}
