//! Zed: `settings.json` `context_servers`, in its three historical shapes:
//! 1. `{"command": {"path", "args", "env"}, "settings": {…}}` (the first release),
//! 2. `{"source": "custom", "command": "…", "args": […], "env": {…}}` (and the same without
//!    `source`), or a remote `{"url": "…", "headers": {…}}`,
//! 3. `{"source": "extension", "settings": {…}}`: an extension supplies the command, so the
//!    file says nothing about what runs; such entries are skipped (their `settings` are not
//!    audited: a known gap).
//!
//! The `settings` object of shapes 1 and 2 is kept in `ServerSpec.settings["settings"]`, where
//! the literal-secret rule looks for credentials.

use std::path::{Path, PathBuf};

use super::entry::SpecBuilder;
use super::Sniff;
use super::tree::Node;
use super::{ConfigError, entry};
use crate::model::host::HostFormat;
use crate::model::spec::ServerSpec;

pub fn parse(path: &Path, root: &Node) -> Result<Vec<ServerSpec>, ConfigError> {
    let Some(map) = root.get("context_servers") else {
        return Ok(Vec::new());
    };
    let Some(members) = map.members() else {
        return Err(ConfigError::Parse {
            path: path.display().to_string(),
            line: map.pos.line as usize,
            column: map.pos.column as usize,
            message: format!("`context_servers` must be an object, found {}", map.kind()),
        });
    };
    let mut specs = Vec::new();
    for m in members {
        let node = &m.value;
        if node.get("source").and_then(Node::as_str) == Some("extension") {
            continue;
        }
        match node.get("command") {
            Some(cmd) if cmd.members().is_some() => {
                let mut b = SpecBuilder::new(path, HostFormat::Zed, &m.key, m.key_pos);
                read_nested(&mut b, cmd)?;
                for s in node.members().unwrap_or_default() {
                    if matches!(s.key.as_str(), "enabled" | "source" | "settings") {
                        b.setting(s);
                    }
                }
                specs.push(b.build()?);
            }
            Some(_) => {
                specs.push(
                    entry::read_entry(
                        path,
                        HostFormat::Zed,
                        &m.key,
                        m.key_pos,
                        node,
                        &["enabled", "source"],
                    )?
                    .build()?,
                );
            }
            None if node.get("url").is_some() => {
                specs.push(
                    entry::read_entry(
                        path,
                        HostFormat::Zed,
                        &m.key,
                        m.key_pos,
                        node,
                        &["enabled", "source"],
                    )?
                        .build()?,
                );
            }
            None => {
                // Settings-only entries belong to an extension that provides the command.
                if node.get("settings").is_none() {
                    let b = SpecBuilder::new(path, HostFormat::Zed, &m.key, m.key_pos);
                    return Err(b.err(
                        m.key_pos,
                        format!(
                            "context server `{}` has no `command`, `url` or `source`",
                            m.key
                        ),
                    ));
                }
            }
        }
    }
    Ok(specs)
}

/// Shape 1: `"command": {"path": …, "args": […], "env": {…}}`.
fn read_nested(b: &mut SpecBuilder<'_>, cmd: &Node) -> Result<(), ConfigError> {
    for f in cmd.members().unwrap_or_default() {
        match f.key.as_str() {
            "path" => b.set_command(&f.value, "command.path")?,
            "args" => b.set_args(&f.value, "command.args")?,
            "env" => b.set_map(&f.value, "command.env", "env")?,
            "cwd" => {
                b.cwd = Some(PathBuf::from(b.string(&f.value, "command.cwd")?));
                b.at("/cwd", f.value.pos);
            }
            _ => {}
        }
    }
    if b.command.is_none() {
        return Err(b.err(
            cmd.pos,
            format!("context server `{}`: `command.path` is missing", b.name),
        ));
    }
    Ok(())
}

/// A `context_servers` member.
pub fn sniff(s: &Sniff) -> Option<u8> {
    s.root.get("context_servers").is_some().then_some(7)
}
