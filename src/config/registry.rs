//! The MCP registry's `server.json`: each entry of `packages` (npm, pypi, oci, nuget) becomes
//! the command a host would run, each entry of `remotes` an HTTP server. Both the current
//! camelCase schema and the first snake_case one are read.
//!
//! Registry values write variables as `{name}`; they are turned into `${name}` references.
//! Environment variables without a value become `${NAME}` (the user supplies them at install).
//! `mcpb` packages (a downloadable bundle) carry no command and are skipped.

use std::path::Path;

use super::Sniff;
use super::ConfigError;
use super::entry::SpecBuilder;
use super::tree::{Node, Pos};
use crate::model::host::HostFormat;
use crate::model::spec::ServerSpec;

fn field<'n>(node: &'n Node, camel: &str, snake: &str) -> Option<&'n Node> {
    node.get(camel).or_else(|| node.get(snake))
}

fn text<'n>(node: &'n Node, camel: &str, snake: &str) -> Option<&'n str> {
    field(node, camel, snake).and_then(Node::as_str)
}

/// `{var}` → `${var}` (a registry placeholder is a reference, not a literal).
fn references(value: &str) -> String {
    let mut out = String::with_capacity(value.len() + 4);
    let mut prev = '\0';
    for c in value.chars() {
        if c == '{' && prev != '$' {
            out.push('$');
        }
        out.push(c);
        prev = c;
    }
    out
}

pub fn parse(path: &Path, root: &Node) -> Result<Vec<ServerSpec>, ConfigError> {
    let server = root
        .get("name")
        .and_then(Node::as_str)
        .unwrap_or("server")
        .to_string();
    let packages = root
        .get("packages")
        .and_then(Node::items)
        .unwrap_or_default();
    let remotes = root
        .get("remotes")
        .and_then(Node::items)
        .unwrap_or_default();
    let several = packages.len() + remotes.len() > 1;
    let mut specs = Vec::new();
    for (i, p) in packages.iter().enumerate() {
        let kind = text(p, "registryType", "registry_name")
            .unwrap_or("npm")
            .to_ascii_lowercase();
        let name = if several {
            format!("{server}/packages/{i}")
        } else {
            server.clone()
        };
        if kind == "mcpb" {
            continue;
        }
        specs.push(package(path, &name, &kind, p)?);
    }
    for (i, r) in remotes.iter().enumerate() {
        let name = if several {
            format!("{server}/remotes/{i}")
        } else {
            server.clone()
        };
        let mut b = SpecBuilder::new(path, HostFormat::Registry, &name, r.pos);
        let url = r
            .get("url")
            .ok_or_else(|| b.err(r.pos, format!("remote {i} has no `url`")))?;
        b.set_url(url, "url")?;
        for h in r.get("headers").and_then(Node::items).unwrap_or_default() {
            let Some(hname) = h.get("name").and_then(Node::as_str) else {
                continue;
            };
            let value = h
                .get("value")
                .and_then(Node::as_str)
                .map_or_else(|| format!("${{{hname}}}"), references);
            b.insert_map("headers", hname, value, h.pos);
        }
        if let Some(t) = r.member("type") {
            b.setting(t);
        }
        specs.push(b.build()?);
    }
    Ok(specs)
}

fn package(path: &Path, name: &str, kind: &str, p: &Node) -> Result<ServerSpec, ConfigError> {
    let mut b = SpecBuilder::new(path, HostFormat::Registry, name, p.pos);
    let ident_node = field(p, "identifier", "name")
        .ok_or_else(|| b.err(p.pos, "package has no `identifier`"))?;
    let ident = b.string(ident_node, "identifier")?;
    let version = text(p, "version", "version").map(str::to_string);
    let hint = field(p, "runtimeHint", "runtime_hint");
    let default_cmd = match kind {
        "pypi" => "uvx",
        "oci" | "docker" => "docker",
        "nuget" => "dnx",
        _ => "npx",
    };
    let (cmd, cmd_pos) = match hint.and_then(|h| h.as_str().map(|s| (s.to_string(), h.pos))) {
        Some(h) => h,
        None => (default_cmd.to_string(), ident_node.pos),
    };
    b.command = Some(cmd);
    b.at("/command", cmd_pos);
    let version_pos = field(p, "version", "version").map_or(ident_node.pos, |v| v.pos);
    if matches!(kind, "oci" | "docker") {
        b.push_arg("run".into(), ident_node.pos);
        b.push_arg("-i".into(), ident_node.pos);
        b.push_arg("--rm".into(), ident_node.pos);
    }
    push_arguments(&mut b, field(p, "runtimeArguments", "runtime_arguments"))?;
    let spec = match (kind, &version) {
        ("pypi", Some(v)) => format!("{ident}=={v}"),
        ("oci" | "docker", Some(v)) if !image_has_ref(&ident) => format!("{ident}:{v}"),
        ("oci" | "docker", _) => ident.clone(),
        (_, Some(v)) => format!("{ident}@{v}"),
        (_, None) => ident.clone(),
    };
    b.push_arg(spec, version_pos);
    push_arguments(&mut b, field(p, "packageArguments", "package_arguments"))?;
    for v in field(p, "environmentVariables", "environment_variables")
        .and_then(Node::items)
        .unwrap_or_default()
    {
        let Some(var) = v.get("name").and_then(Node::as_str) else {
            continue;
        };
        let value = v
            .get("value")
            .or_else(|| v.get("default"))
            .and_then(Node::as_str)
            .map_or_else(|| format!("${{{var}}}"), references);
        b.insert_map("env", var, value, v.pos);
    }
    if let Some(t) = field(p, "transport", "transport_type") {
        b.settings.insert("transport".into(), t.to_json());
    }
    b.build()
}

fn image_has_ref(image: &str) -> bool {
    let last = image.rsplit('/').next().unwrap_or(image);
    image.contains('@') || last.contains(':')
}

fn push_arguments(b: &mut SpecBuilder<'_>, args: Option<&Node>) -> Result<(), ConfigError> {
    for a in args.and_then(Node::items).unwrap_or_default() {
        let pos: Pos = a.pos;
        if let Some(s) = a.as_str() {
            b.push_arg(references(s), pos);
            continue;
        }
        let value = a
            .get("value")
            .or_else(|| a.get("default"))
            .and_then(Node::as_str)
            .map(references)
            .or_else(|| {
                a.get("valueHint")
                    .or_else(|| a.get("value_hint"))
                    .and_then(Node::as_str)
                    .map(|h| format!("${{{h}}}"))
            });
        match a.get("type").and_then(Node::as_str) {
            Some("named") => {
                let Some(n) = a.get("name").and_then(Node::as_str) else {
                    return Err(b.err(pos, "named argument has no `name`"));
                };
                b.push_arg(n.to_string(), pos);
                if let Some(v) = value {
                    b.push_arg(v, pos);
                }
            }
            _ => {
                if let Some(v) = value {
                    b.push_arg(v, pos);
                }
            }
        }
    }
    Ok(())
}

/// `server.json` with `packages` or `remotes` (any file with them, at lower priority).
pub fn sniff(s: &Sniff) -> Option<u8> {
    let listed = s.root.get("packages").is_some() || s.root.get("remotes").is_some();
    match (listed, s.name == "server.json") {
        (true, true) => Some(8),
        (true, false) => Some(17),
        _ => None,
    }
}
