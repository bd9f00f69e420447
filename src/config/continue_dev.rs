//! Continue: `config.yaml` (`mcpServers:` a list of `{name, command, args, env, type, url}`)
//! and block files under `.continue/mcpServers/` (YAML with the same list, or JSON in the
//! Claude-style map shape), plus the older `config.json`
//! (`experimental.modelContextProtocolServers: [{transport: {type, command, args, env, url}}]`).

use std::path::Path;

use super::Sniff;
use super::tree::Node;
use super::{ConfigError, entry};
use crate::model::host::HostFormat;
use crate::model::spec::ServerSpec;

const SETTINGS: &[&str] = &["type", "connectionTimeout"];

pub fn parse(path: &Path, root: &Node) -> Result<Vec<ServerSpec>, ConfigError> {
    let mut specs = legacy_json(path, root)?;
    let Some(servers) = root.get("mcpServers") else {
        return Ok(specs);
    };
    if servers.members().is_some() {
        specs.extend(entry::server_map(
            path,
            HostFormat::Continue,
            servers,
            "mcpServers",
            SETTINGS,
        )?);
        return Ok(specs);
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
    for (i, item) in items.iter().enumerate() {
        let name = item
            .get("name")
            .and_then(Node::as_str)
            .map_or_else(|| format!("mcpServers[{i}]"), str::to_string);
        let mut b = entry::read_entry(path, HostFormat::Continue, &name, item.pos, item, SETTINGS)?;
        if let Some(h) = item.path(&["requestOptions", "headers"]) {
            b.set_map(h, "requestOptions.headers", "headers")?;
        }
        specs.push(b.build()?);
    }
    Ok(specs)
}

/// The older `config.json` form: each server's launch lives under `transport`.
fn legacy_json(path: &Path, root: &Node) -> Result<Vec<ServerSpec>, ConfigError> {
    let Some(items) = root
        .path(&["experimental", "modelContextProtocolServers"])
        .and_then(Node::items)
    else {
        return Ok(Vec::new());
    };
    let mut specs = Vec::new();
    for (i, item) in items.iter().enumerate() {
        let name = item.get("name").and_then(Node::as_str).map_or_else(
            || format!("modelContextProtocolServers[{i}]"),
            str::to_string,
        );
        let transport = item.get("transport").unwrap_or(item);
        let b = entry::read_entry(path, HostFormat::Continue, &name, item.pos, transport, &["type"])?;
        specs.push(b.build()?);
    }
    Ok(specs)
}

/// YAML files; JSON with `experimental.modelContextProtocolServers`, an `mcpServers` list, or
/// `mcpServers` under `.continue/`.
pub fn sniff(s: &Sniff) -> Option<u8> {
    if s.ext == "yaml" || s.ext == "yml" {
        return Some(6);
    }
    if s.root
        .path(&["experimental", "modelContextProtocolServers"])
        .is_some()
    {
        return Some(18);
    }
    match s.root.get("mcpServers").map(|n| &n.value) {
        Some(super::tree::Value::Arr(_)) => Some(19),
        Some(_) if s.in_dir(".continue") => Some(20),
        _ => None,
    }
}
