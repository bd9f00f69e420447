//! Claude Desktop (`claude_desktop_config.json`) and Claude Code (`.mcp.json`, `~/.claude.json`
//! with its user-scope `mcpServers` and per-project local scopes under `projects`).

use std::path::Path;

use super::tree::Node;
use super::{ConfigError, entry, mcp_servers};
use crate::spec::ServerSpec;

const SETTINGS: &[&str] = &["type", "disabled"];

pub fn parse_desktop(path: &Path, root: &Node) -> Result<Vec<ServerSpec>, ConfigError> {
    mcp_servers(path, root, "claude-desktop", SETTINGS)
}

pub fn parse_generic(path: &Path, root: &Node) -> Result<Vec<ServerSpec>, ConfigError> {
    mcp_servers(
        path,
        root,
        "mcp-json",
        &["type", "disabled", "trust", "alwaysAllow", "autoApprove"],
    )
}

/// `.mcp.json` (project scope) or `~/.claude.json` (user scope plus `projects.<dir>.mcpServers`).
pub fn parse_code(path: &Path, root: &Node) -> Result<Vec<ServerSpec>, ConfigError> {
    let mut specs = mcp_servers(path, root, "claude-code", SETTINGS)?;
    let scope = if path.file_name().is_some_and(|n| n == ".claude.json") {
        "user"
    } else {
        "project"
    };
    for s in &mut specs {
        s.settings.insert("scope".into(), scope.into());
    }
    if let Some(projects) = root.get("projects").and_then(Node::members) {
        for project in projects {
            let Some(map) = project.value.get("mcpServers") else {
                continue;
            };
            let mut local =
                entry::server_map(path, "claude-code", map, "projects.*.mcpServers", SETTINGS)?;
            for s in &mut local {
                s.settings.insert("scope".into(), "local".into());
                s.settings
                    .insert("project".into(), project.key.clone().into());
            }
            specs.extend(local);
        }
    }
    Ok(specs)
}
