//! Cline: `cline_mcp_settings.json` (`mcpServers` with `alwaysAllow`, `autoApprove`, `disabled`).

use std::path::Path;

use super::tree::Node;
use super::{ConfigError, mcp_servers};
use crate::model::spec::ServerSpec;

pub fn parse(path: &Path, root: &Node) -> Result<Vec<ServerSpec>, ConfigError> {
    mcp_servers(
        path,
        root,
        "cline",
        &["alwaysAllow", "autoApprove", "disabled", "type", "timeout"],
    )
}
