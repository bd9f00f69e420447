//! The server-entry shape most hosts share (`command`/`args`/`env`/`cwd` or
//! `url`/`httpUrl`/`serverUrl` + `headers`), turned into a `ServerSpec` with field positions.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use super::ConfigError;
use super::tree::{Member, Node, Pos};
use crate::model::host::{Host, HostFormat};
use crate::model::spec::{Origin, ServerSpec, Transport};

/// Builds one `ServerSpec` while recording where each field came from.
pub struct SpecBuilder<'a> {
    pub file: &'a Path,
    pub host: HostFormat,
    pub name: String,
    pub origin: Pos,
    pub locations: BTreeMap<String, Origin>,
    pub settings: BTreeMap<String, serde_json::Value>,
    pub command: Option<String>,
    pub args: Vec<String>,
    pub env: BTreeMap<String, String>,
    pub cwd: Option<PathBuf>,
    pub url: Option<String>,
    pub headers: BTreeMap<String, String>,
}

impl<'a> SpecBuilder<'a> {
    pub fn new(file: &'a Path, host: HostFormat, name: &str, origin: Pos) -> Self {
        SpecBuilder {
            file,
            host,
            name: name.to_string(),
            origin,
            locations: BTreeMap::new(),
            settings: BTreeMap::new(),
            command: None,
            args: Vec::new(),
            env: BTreeMap::new(),
            cwd: None,
            url: None,
            headers: BTreeMap::new(),
        }
    }

    pub fn at(&mut self, pointer: &str, pos: Pos) {
        self.locations
            .insert(pointer.to_string(), pos.origin(self.file));
    }

    pub fn err(&self, pos: Pos, message: impl Into<String>) -> ConfigError {
        ConfigError::Parse {
            path: self.file.display().to_string(),
            line: pos.line as usize,
            column: pos.column as usize,
            message: message.into(),
        }
    }

    /// A string field, or an error naming the field when it has another type.
    pub fn string(&self, node: &Node, field: &str) -> Result<String, ConfigError> {
        node.as_str().map(str::to_string).ok_or_else(|| {
            self.err(
                node.pos,
                format!(
                    "server `{}`: `{field}` must be a string, found {}",
                    self.name,
                    node.kind()
                ),
            )
        })
    }

    pub fn set_command(&mut self, node: &Node, field: &str) -> Result<(), ConfigError> {
        self.command = Some(self.string(node, field)?);
        self.at("/command", node.pos);
        Ok(())
    }

    pub fn push_arg(&mut self, value: String, pos: Pos) {
        let i = self.args.len();
        self.args.push(value);
        self.at(&format!("/args/{i}"), pos);
    }

    pub fn set_args(&mut self, node: &Node, field: &str) -> Result<(), ConfigError> {
        let items = node.items().ok_or_else(|| {
            self.err(
                node.pos,
                format!(
                    "server `{}`: `{field}` must be an array of strings, found {}",
                    self.name,
                    node.kind()
                ),
            )
        })?;
        for item in items {
            let value = item.scalar_text().ok_or_else(|| {
                self.err(
                    item.pos,
                    format!(
                        "server `{}`: every `{field}` item must be a string, found {}",
                        self.name,
                        item.kind()
                    ),
                )
            })?;
            self.push_arg(value, item.pos);
        }
        Ok(())
    }

    /// A `{NAME: value}` map into `env` or `headers` (`kind` is `env` or `headers`).
    pub fn set_map(&mut self, node: &Node, field: &str, kind: &str) -> Result<(), ConfigError> {
        let members = node.members().ok_or_else(|| {
            self.err(
                node.pos,
                format!(
                    "server `{}`: `{field}` must be an object of strings, found {}",
                    self.name,
                    node.kind()
                ),
            )
        })?;
        for m in members {
            let value = match m.value.scalar_text() {
                Some(v) => v,
                None if matches!(m.value.value, super::tree::Value::Null) => String::new(),
                None => {
                    return Err(self.err(
                        m.value.pos,
                        format!(
                            "server `{}`: `{field}.{}` must be a string, found {}",
                            self.name,
                            m.key,
                            m.value.kind()
                        ),
                    ));
                }
            };
            self.insert_map(kind, &m.key, value, m.value.pos);
        }
        Ok(())
    }

    pub fn insert_map(&mut self, kind: &str, key: &str, value: String, pos: Pos) {
        self.at(
            &format!("/{kind}/{}", crate::model::pointer::token(key)),
            pos,
        );
        if kind == "env" {
            self.env.insert(key.to_string(), value);
        } else {
            self.headers.insert(key.to_string(), value);
        }
    }

    pub fn set_url(&mut self, node: &Node, field: &str) -> Result<(), ConfigError> {
        self.url = Some(self.string(node, field)?);
        self.at("/url", node.pos);
        if field != "url" {
            self.at(&format!("/{field}"), node.pos);
        }
        Ok(())
    }

    pub fn setting(&mut self, member: &Member) {
        self.settings
            .insert(member.key.clone(), member.value.to_json());
        self.at(
            &format!("/{}", crate::model::pointer::token(&member.key)),
            member.value.pos,
        );
    }

    pub fn build(self) -> Result<ServerSpec, ConfigError> {
        let transport = match (self.command, self.url) {
            (Some(command), _) => Transport::Stdio {
                command,
                args: self.args,
                env: self.env,
                cwd: self.cwd,
            },
            (None, Some(url)) => Transport::Http {
                url,
                headers: self.headers,
            },
            (None, None) => {
                return Err(ConfigError::Parse {
                    path: self.file.display().to_string(),
                    line: self.origin.line as usize,
                    column: self.origin.column as usize,
                    message: format!(
                        "server `{}` has neither a `command` nor a `url`; add one or remove the entry",
                        self.name
                    ),
                });
            }
        };
        Ok(ServerSpec {
            name: self.name,
            host: Host::Format(self.host),
            origin: Some(self.origin.origin(self.file)),
            locations: self.locations,
            transport,
            settings: self.settings,
            duplicate_keys: Vec::new(),
        })
    }
}

/// Read the common entry fields. `settings_keys` are host settings kept as found.
pub fn read_entry<'a>(
    file: &'a Path,
    host: HostFormat,
    name: &str,
    key_pos: Pos,
    node: &Node,
    settings_keys: &[&str],
) -> Result<SpecBuilder<'a>, ConfigError> {
    let mut b = SpecBuilder::new(file, host, name, key_pos);
    let Some(members) = node.members() else {
        return Err(b.err(
            node.pos,
            format!("server `{name}` must be an object, found {}", node.kind()),
        ));
    };
    for m in members {
        match m.key.as_str() {
            "command" => b.set_command(&m.value, "command")?,
            "args" => b.set_args(&m.value, "args")?,
            "env" => b.set_map(&m.value, "env", "env")?,
            "headers" => b.set_map(&m.value, "headers", "headers")?,
            "cwd" => {
                b.cwd = Some(PathBuf::from(b.string(&m.value, "cwd")?));
                b.at("/cwd", m.value.pos);
            }
            // Gemini prefers `httpUrl` over `url` when both are given.
            "url" | "httpUrl" | "serverUrl" if b.url.is_none() || m.key == "httpUrl" => {
                b.set_url(&m.value, &m.key)?;
            }
            // The transport a host is told to use (`"type": "sse"` is the deprecated
            // HTTP+SSE transport); kept for every host, as the launch rules read it.
            key if settings_keys.contains(&key) || key == "type" || key == "transport" => {
                b.setting(m)
            }
            _ => {}
        }
    }
    Ok(b)
}

/// Every entry of a `{name: entry}` map, in file order.
pub fn server_map(
    file: &Path,
    host: HostFormat,
    map: &Node,
    field: &str,
    settings_keys: &[&str],
) -> Result<Vec<ServerSpec>, ConfigError> {
    let Some(members) = map.members() else {
        return Err(ConfigError::Parse {
            path: file.display().to_string(),
            line: map.pos.line as usize,
            column: map.pos.column as usize,
            message: format!(
                "`{field}` must be an object of servers, found {}",
                map.kind()
            ),
        });
    };
    members
        .iter()
        .map(|m| read_entry(file, host, &m.key, m.key_pos, &m.value, settings_keys)?.build())
        .collect()
}
