//! Continue: `config.yaml` (`mcpServers:` a list of `{name, command, args, env, type, url}`)
//! and block files under `.continue/mcpServers/` (YAML with the same list, or JSON in the
//! Claude-style map shape).

use std::path::Path;

use super::tree::Node;
use super::{ConfigError, entry};
use crate::spec::ServerSpec;

const SETTINGS: &[&str] = &["type", "connectionTimeout"];

pub fn parse(path: &Path, root: &Node) -> Result<Vec<ServerSpec>, ConfigError> {
    let Some(servers) = root.get("mcpServers") else {
        return Ok(Vec::new());
    };
    if servers.members().is_some() {
        return entry::server_map(path, "continue", servers, "mcpServers", SETTINGS);
    }
    let Some(items) = servers.items() else {
        return Err(ConfigError::Parse {
            path: path.display().to_string(),
            line: servers.pos.line as usize,
            column: servers.pos.column as usize,
            message: format!(
                "`mcpServers` must be a list of servers, found {}",
                servers.kind()
            ),
        });
    };
    let mut specs = Vec::new();
    for (i, item) in items.iter().enumerate() {
        let name = item
            .get("name")
            .and_then(Node::as_str)
            .map_or_else(|| format!("mcpServers[{i}]"), str::to_string);
        let mut b = entry::read_entry(path, "continue", &name, item.pos, item, SETTINGS)?;
        if let Some(h) = item.path(&["requestOptions", "headers"]) {
            b.set_map(h, "requestOptions.headers", "headers")?;
        }
        specs.push(b.build()?);
    }
    Ok(specs)
}
