//! VS Code: `.vscode/mcp.json` and the user `mcp.json` (`servers` + `inputs`), and the older
//! `settings.json` form (`"mcp": {"servers": …}`). `${input:id}` values are references to
//! inputs the user types in, never literal secrets; a `"chat.tools.autoApprove": true`
//! in the same settings file is kept on every server as an auto-trust setting.

use std::path::Path;

use super::Sniff;
use super::tree::Node;
use super::{ConfigError, entry};
use crate::model::host::HostFormat;
use crate::model::spec::ServerSpec;

const SETTINGS: &[&str] = &["type", "envFile", "dev", "disabled"];

pub fn parse(path: &Path, root: &Node) -> Result<Vec<ServerSpec>, ConfigError> {
    let (servers, inputs, field) = if let Some(s) = root.get("servers") {
        (Some(s), root.get("inputs"), "servers")
    } else if let Some(s) = root.path(&["mcp", "servers"]) {
        (Some(s), root.path(&["mcp", "inputs"]), "mcp.servers")
    } else if let Some(s) = root.get("mcp.servers") {
        (Some(s), root.get("mcp.inputs"), "mcp.servers")
    } else {
        (None, None, "servers")
    };
    let Some(servers) = servers else {
        return Ok(Vec::new());
    };
    let mut specs = entry::server_map(path, HostFormat::VsCode, servers, field, SETTINGS)?;
    let secret_inputs: Vec<String> = inputs
        .and_then(Node::items)
        .unwrap_or_default()
        .iter()
        .filter(|i| i.get("password").and_then(Node::as_bool) == Some(true))
        .filter_map(|i| i.get("id").and_then(Node::as_str).map(str::to_string))
        .collect();
    let auto_approve = root
        .member("chat.tools.autoApprove")
        .filter(|m| m.value.as_bool() == Some(true));
    for spec in &mut specs {
        if !secret_inputs.is_empty() {
            spec.settings.insert(
                "secretInputs".into(),
                serde_json::Value::from(secret_inputs.clone()),
            );
        }
        if let Some(m) = auto_approve {
            spec.settings
                .insert("chat.tools.autoApprove".into(), true.into());
            spec.locations
                .insert("/chat.tools.autoApprove".into(), m.value.pos.origin(path));
        }
    }
    Ok(specs)
}

/// `.vscode/`, or `servers` / `mcp.servers` without `mcpServers`.
pub fn sniff(s: &Sniff) -> Option<u8> {
    ((s.in_dir(".vscode")
        || s.root.get("servers").is_some()
        || s.root.path(&["mcp", "servers"]).is_some()
        || s.root.get("mcp.servers").is_some())
        && s.root.get("mcpServers").is_none())
    .then_some(10)
}
