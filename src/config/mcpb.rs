//! MCPB bundle `manifest.json` (formerly DXT): `server.mcp_config` says what the host runs
//! (`command`, `args`, `env`); `${__dirname}` and `${user_config.*}` are references.
//! Without `mcp_config`, the command follows from `server.type` and `entry_point`.

use std::path::Path;

use super::ConfigError;
use super::entry::{self, SpecBuilder};
use super::Sniff;
use super::tree::Node;
use crate::model::host::HostFormat;
use crate::model::spec::ServerSpec;

pub fn parse(path: &Path, root: &Node) -> Result<Vec<ServerSpec>, ConfigError> {
    let name = root
        .get("name")
        .and_then(Node::as_str)
        .unwrap_or("bundle")
        .to_string();
    let Some(server) = root.member("server") else {
        return Ok(Vec::new());
    };
    let mut b = if let Some(cfg) = server.value.member("mcp_config") {
        entry::read_entry(path, HostFormat::Mcpb, &name, cfg.key_pos, &cfg.value, &[])?
    } else {
        let mut b = SpecBuilder::new(path, HostFormat::Mcpb, &name, server.key_pos);
        let entry_point = server.value.get("entry_point");
        let kind = server
            .value
            .get("type")
            .and_then(Node::as_str)
            .unwrap_or("binary");
        let ep = entry_point
            .and_then(Node::as_str)
            .unwrap_or_default()
            .to_string();
        let pos = entry_point.map_or(server.key_pos, |n| n.pos);
        let (cmd, args) = match kind {
            "node" => ("node".to_string(), vec![format!("${{__dirname}}/{ep}")]),
            "python" => ("python".to_string(), vec![format!("${{__dirname}}/{ep}")]),
            "uv" => (
                "uv".to_string(),
                vec!["run".into(), format!("${{__dirname}}/{ep}")],
            ),
            _ => (format!("${{__dirname}}/{ep}"), Vec::new()),
        };
        b.command = Some(cmd);
        b.at("/command", pos);
        for a in args {
            b.push_arg(a, pos);
        }
        b
    };
    if let Some(t) = server.value.member("type") {
        b.settings.insert("server_type".into(), t.value.to_json());
    }
    Ok(vec![b.build()?])
}

/// `manifest.json` (or a `manifest_version`/`dxt_version` member) with a `server`.
pub fn sniff(s: &Sniff) -> Option<u8> {
    ((s.name == "manifest.json"
        || s.root.get("manifest_version").is_some()
        || s.root.get("dxt_version").is_some())
        && s.root.get("server").is_some())
    .then_some(9)
}
