//! Codex: `~/.codex/config.toml` (and a project `.codex/config.toml`), one `[mcp_servers.NAME]`
//! table per server: `command`/`args`/`env`/`env_vars`/`cwd` for stdio, `url` with
//! `bearer_token` (a literal, deprecated), `bearer_token_env_var`, `http_headers` and
//! `env_http_headers` for streamable HTTP, plus `enabled`, `enabled_tools`, `disabled_tools`.
//!
//! `env_vars` names variables passed through from the user's environment; they appear in the
//! spec as `NAME = "${NAME}"` references so the credential rules see them.

use std::path::{Path, PathBuf};

use super::ConfigError;
use super::entry::SpecBuilder;
use super::Sniff;
use super::tree::Node;
use crate::model::host::HostFormat;
use crate::model::spec::ServerSpec;

pub fn parse(path: &Path, root: &Node) -> Result<Vec<ServerSpec>, ConfigError> {
    let Some(map) = root.get("mcp_servers") else {
        return Ok(Vec::new());
    };
    let Some(members) = map.members() else {
        return Err(ConfigError::Parse {
            path: path.display().to_string(),
            line: map.pos.line as usize,
            column: map.pos.column as usize,
            message: format!("`mcp_servers` must be a table, found {}", map.kind()),
        });
    };
    let mut specs = Vec::new();
    for m in members {
        let mut b = SpecBuilder::new(path, HostFormat::Codex, &m.key, m.key_pos);
        let Some(fields) = m.value.members() else {
            return Err(b.err(
                m.value.pos,
                format!(
                    "`mcp_servers.{}` must be a table, found {}",
                    m.key,
                    m.value.kind()
                ),
            ));
        };
        for f in fields {
            match f.key.as_str() {
                "command" => b.set_command(&f.value, "command")?,
                "args" => b.set_args(&f.value, "args")?,
                "env" => b.set_map(&f.value, "env", "env")?,
                "http_headers" => b.set_map(&f.value, "http_headers", "headers")?,
                "cwd" => {
                    b.cwd = Some(PathBuf::from(b.string(&f.value, "cwd")?));
                    b.at("/cwd", f.value.pos);
                }
                "url" => b.set_url(&f.value, "url")?,
                "env_vars" => {
                    for (i, item) in f.value.items().unwrap_or_default().iter().enumerate() {
                        let name = item
                            .as_str()
                            .or_else(|| item.get("name").and_then(Node::as_str))
                            .ok_or_else(|| {
                                b.err(
                                    item.pos,
                                    format!(
                                        "server `{}`: `env_vars` items must be variable names",
                                        m.key
                                    ),
                                )
                            })?
                            .to_string();
                        b.at(&format!("/env_vars/{i}"), item.pos);
                        b.insert_map("env", &name, format!("${{{name}}}"), item.pos);
                    }
                }
                "bearer_token" => {
                    let token = b.string(&f.value, "bearer_token")?;
                    b.at("/bearer_token", f.value.pos);
                    b.insert_map(
                        "headers",
                        "Authorization",
                        format!("Bearer {token}"),
                        f.value.pos,
                    );
                }
                "bearer_token_env_var" => {
                    let var = b.string(&f.value, "bearer_token_env_var")?;
                    b.at("/bearer_token_env_var", f.value.pos);
                    b.insert_map(
                        "headers",
                        "Authorization",
                        format!("Bearer ${{{var}}}"),
                        f.value.pos,
                    );
                }
                "env_http_headers" => {
                    for h in f.value.members().unwrap_or_default() {
                        let var = b.string(&h.value, "env_http_headers")?;
                        b.insert_map("headers", &h.key, format!("${{{var}}}"), h.value.pos);
                    }
                }
                "enabled" | "enabled_tools" | "disabled_tools" => b.setting(f),
                _ => {}
            }
        }
        specs.push(b.build()?);
    }
    Ok(specs)
}

/// Any TOML file.
pub fn sniff(s: &Sniff) -> Option<u8> {
    (s.ext == "toml").then_some(5)
}
