//! Claude Desktop (`claude_desktop_config.json`) and Claude Code (`.mcp.json`, `~/.claude.json`
//! with its user-scope `mcpServers` and per-project local scopes under `projects`).
//!
//! For a project `.mcp.json`, the project's `.claude/settings.json` and
//! `.claude/settings.local.json` are read too: `enableAllProjectMcpServers: true` and
//! `enabledMcpjsonServers: [name…]` approve servers without the per-user prompt, and are kept
//! on the specs as settings located in the settings file.

use std::path::Path;

use super::tree::Node;
use super::{ConfigError, entry, mcp_servers};
use crate::model::host::HostFormat;
use crate::model::spec::ServerSpec;

const SETTINGS: &[&str] = &["type", "disabled"];

pub fn parse_desktop(path: &Path, root: &Node) -> Result<Vec<ServerSpec>, ConfigError> {
    mcp_servers(path, root, HostFormat::ClaudeDesktop, SETTINGS)
}

pub fn parse_generic(path: &Path, root: &Node) -> Result<Vec<ServerSpec>, ConfigError> {
    mcp_servers(
        path,
        root,
        HostFormat::Generic,
        &["type", "disabled", "trust", "alwaysAllow", "autoApprove"],
    )
}

/// `.mcp.json` (project scope) or `~/.claude.json` (user scope plus `projects.<dir>.mcpServers`).
pub fn parse_code(path: &Path, root: &Node) -> Result<Vec<ServerSpec>, ConfigError> {
    let mut specs = mcp_servers(path, root, HostFormat::ClaudeCode, SETTINGS)?;
    let scope = if path.file_name().is_some_and(|n| n == ".claude.json") {
        "user"
    } else {
        "project"
    };
    for s in &mut specs {
        s.settings.insert("scope".into(), scope.into());
    }
    if scope == "project" {
        apply_project_approvals(path, &mut specs);
    }
    if let Some(projects) = root.get("projects").and_then(Node::members) {
        for project in projects {
            let Some(map) = project.value.get("mcpServers") else {
                continue;
            };
            let mut local = entry::server_map(
                path,
                HostFormat::ClaudeCode,
                map,
                "projects.*.mcpServers",
                SETTINGS,
            )?;
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

/// Copy the project's Claude Code approval settings onto the `.mcp.json` specs.
fn apply_project_approvals(mcp_json: &Path, specs: &mut [ServerSpec]) {
    let Some(dir) = mcp_json.parent() else {
        return;
    };
    for name in ["settings.json", "settings.local.json"] {
        let file = dir.join(".claude").join(name);
        let Ok(text) = crate::model::fsio::read_text(&file, crate::model::fsio::ReadKind::Config)
        else {
            continue;
        };
        let Ok((root, duplicates)) = super::jsonc::parse_with_duplicates(&text) else {
            continue;
        };
        // A second `enableAllProjectMcpServers` or `enabledMcpjsonServers` changes which
        // servers Claude Code starts without asking: the reader may have approved the first.
        for d in duplicates.iter().filter(|d| {
            d.pointer == "/enableAllProjectMcpServers" || d.pointer == "/enabledMcpjsonServers"
        }) {
            for s in specs.iter_mut() {
                s.duplicate_keys.push(crate::model::spec::DuplicateKey {
                    pointer: d.pointer.clone(),
                    ignored: d.first.origin(&file),
                    used: d.last.origin(&file),
                });
            }
        }
        if let Some(m) = root
            .member("enableAllProjectMcpServers")
            .filter(|m| m.value.as_bool() == Some(true))
        {
            for s in specs.iter_mut() {
                s.settings
                    .insert("enableAllProjectMcpServers".into(), true.into());
                s.locations.insert(
                    "/enableAllProjectMcpServers".into(),
                    m.value.pos.origin(&file),
                );
            }
        }
        for item in root
            .get("enabledMcpjsonServers")
            .and_then(Node::items)
            .unwrap_or_default()
        {
            if let Some(s) = specs
                .iter_mut()
                .find(|s| item.as_str() == Some(s.name.as_str()))
            {
                s.settings
                    .insert("enabledMcpjsonServers".into(), true.into());
                s.locations
                    .insert("/enabledMcpjsonServers".into(), item.pos.origin(&file));
            }
        }
    }
}
