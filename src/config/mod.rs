//! Host configuration files → `ServerSpec`s with file:line:column origins. Never runs anything.
//!
//! One file per host format; [`load_path`] detects the format from the file name and content,
//! [`load_path_as`] takes it from the caller, and [`discover`] lists the known user and project
//! locations. JSON files are read as JSONC (comments and trailing commas are fine).

use std::path::Path;

use crate::model::spec::ServerSpec;

mod claude;
mod cline;
mod codex;
mod continue_dev;
mod cursor;
mod discover;
pub mod entry;
mod gemini;
pub mod jsonc;
mod junie;
mod mcpb;
mod registry;
pub mod toml_tree;
pub mod tree;
mod vscode;
mod windsurf;
pub mod yaml_tree;
mod zed;

pub use discover::{DiscoveredConfig, Scope, discover, discover_from_env};

use tree::Node;

/// Why a configuration file could not be read.
#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    #[error("cannot read {path}: {source}")]
    Io {
        path: String,
        #[source]
        source: std::io::Error,
    },
    #[error("{path}:{line}:{column}: {message}")]
    Parse {
        path: String,
        line: usize,
        column: usize,
        message: String,
    },
    #[error(
        "{path}: cannot tell which host this file belongs to (no `mcpServers`, `servers`, `context_servers`, `mcp_servers` …); pass the host explicitly (`--host`, one of: {known})"
    )]
    UnknownFormat { path: String, known: String },
}

/// The host configuration formats mcpvet reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum HostFormat {
    /// Claude Desktop `claude_desktop_config.json` (`mcpServers`).
    ClaudeDesktop,
    /// Claude Code `.mcp.json` and `~/.claude.json` (user and per-project local scopes).
    ClaudeCode,
    /// VS Code `.vscode/mcp.json`, user `mcp.json` (`servers` + `inputs`), `settings.json` `mcp.servers`.
    VsCode,
    /// Cursor `~/.cursor/mcp.json`, `.cursor/mcp.json`.
    Cursor,
    /// Windsurf `~/.codeium/windsurf/mcp_config.json` (`serverUrl` for remotes).
    Windsurf,
    /// Zed `settings.json` `context_servers` (all three historical shapes).
    Zed,
    /// Codex `~/.codex/config.toml` `[mcp_servers.*]`.
    Codex,
    /// Gemini CLI `settings.json` (`command`/`url`/`httpUrl`, `trust`).
    Gemini,
    /// Cline `cline_mcp_settings.json` (`alwaysAllow`, `autoApprove`).
    Cline,
    /// Continue `config.yaml` and `.continue/mcpServers/*.yaml` (a list of servers).
    Continue,
    /// JetBrains Junie `.junie/mcp/mcp.json`.
    Junie,
    /// The MCP registry's `server.json` (packages and remotes).
    Registry,
    /// An MCPB bundle `manifest.json`.
    Mcpb,
    /// Any other JSON file with a Claude-style `mcpServers` map.
    Generic,
}

impl HostFormat {
    pub const ALL: [HostFormat; 14] = [
        HostFormat::ClaudeDesktop,
        HostFormat::ClaudeCode,
        HostFormat::VsCode,
        HostFormat::Cursor,
        HostFormat::Windsurf,
        HostFormat::Zed,
        HostFormat::Codex,
        HostFormat::Gemini,
        HostFormat::Cline,
        HostFormat::Continue,
        HostFormat::Junie,
        HostFormat::Registry,
        HostFormat::Mcpb,
        HostFormat::Generic,
    ];

    /// The stable id used in `ServerSpec.host`, `--host` and reports.
    pub fn id(self) -> &'static str {
        match self {
            HostFormat::ClaudeDesktop => "claude-desktop",
            HostFormat::ClaudeCode => "claude-code",
            HostFormat::VsCode => "vscode",
            HostFormat::Cursor => "cursor",
            HostFormat::Windsurf => "windsurf",
            HostFormat::Zed => "zed",
            HostFormat::Codex => "codex",
            HostFormat::Gemini => "gemini",
            HostFormat::Cline => "cline",
            HostFormat::Continue => "continue",
            HostFormat::Junie => "junie",
            HostFormat::Registry => "registry",
            HostFormat::Mcpb => "mcpb",
            HostFormat::Generic => "mcp-json",
        }
    }

    fn known_ids() -> String {
        HostFormat::ALL
            .iter()
            .map(|h| h.id())
            .collect::<Vec<_>>()
            .join(", ")
    }
}

impl std::fmt::Display for HostFormat {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.id())
    }
}

impl std::str::FromStr for HostFormat {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        HostFormat::ALL
            .into_iter()
            .find(|h| h.id().eq_ignore_ascii_case(s))
            .ok_or_else(|| {
                format!(
                    "unknown host format `{s}` (expected one of: {})",
                    HostFormat::known_ids()
                )
            })
    }
}

/// Parse one host configuration file into server specs (format detected from the file).
pub fn load_path(path: &Path) -> Result<Vec<ServerSpec>, ConfigError> {
    let (text, root) = read(path)?;
    let _ = text;
    let format = detect(path, &root).ok_or_else(|| ConfigError::UnknownFormat {
        path: path.display().to_string(),
        known: HostFormat::known_ids(),
    })?;
    parse_as(path, &root, format)
}

/// Parse one host configuration file as the given format.
pub fn load_path_as(path: &Path, format: HostFormat) -> Result<Vec<ServerSpec>, ConfigError> {
    let (_, root) = read(path)?;
    parse_as(path, &root, format)
}

/// Parse configuration text as if it came from `path` (format detected), without touching disk.
pub fn load_str(path: &Path, text: &str) -> Result<Vec<ServerSpec>, ConfigError> {
    let root = parse_text(path, text)?;
    let format = detect(path, &root).ok_or_else(|| ConfigError::UnknownFormat {
        path: path.display().to_string(),
        known: HostFormat::known_ids(),
    })?;
    parse_as(path, &root, format)
}

/// The format `path` would be read as, if it can be told.
pub fn detect_path(path: &Path) -> Result<Option<HostFormat>, ConfigError> {
    let (_, root) = read(path)?;
    Ok(detect(path, &root))
}

fn read(path: &Path) -> Result<(String, Node), ConfigError> {
    let text = std::fs::read_to_string(path).map_err(|source| ConfigError::Io {
        path: path.display().to_string(),
        source,
    })?;
    let root = parse_text(path, &text)?;
    Ok((text, root))
}

fn extension(path: &Path) -> String {
    path.extension()
        .and_then(|e| e.to_str())
        .unwrap_or_default()
        .to_ascii_lowercase()
}

fn parse_text(path: &Path, text: &str) -> Result<Node, ConfigError> {
    let result = match extension(path).as_str() {
        "toml" => toml_tree::parse(text),
        "yaml" | "yml" => yaml_tree::parse(text),
        _ => jsonc::parse(text),
    };
    result.map_err(|e| ConfigError::Parse {
        path: path.display().to_string(),
        line: e.pos.line as usize,
        column: e.pos.column as usize,
        message: e.message,
    })
}

fn parse_as(path: &Path, root: &Node, format: HostFormat) -> Result<Vec<ServerSpec>, ConfigError> {
    match format {
        HostFormat::ClaudeDesktop => claude::parse_desktop(path, root),
        HostFormat::ClaudeCode => claude::parse_code(path, root),
        HostFormat::VsCode => vscode::parse(path, root),
        HostFormat::Cursor => cursor::parse(path, root),
        HostFormat::Windsurf => windsurf::parse(path, root),
        HostFormat::Zed => zed::parse(path, root),
        HostFormat::Codex => codex::parse(path, root),
        HostFormat::Gemini => gemini::parse(path, root),
        HostFormat::Cline => cline::parse(path, root),
        HostFormat::Continue => continue_dev::parse(path, root),
        HostFormat::Junie => junie::parse(path, root),
        HostFormat::Registry => registry::parse(path, root),
        HostFormat::Mcpb => mcpb::parse(path, root),
        HostFormat::Generic => claude::parse_generic(path, root),
    }
}

/// Tell the host format from the file name, its folders, then its content.
fn detect(path: &Path, root: &Node) -> Option<HostFormat> {
    let name = path
        .file_name()
        .and_then(|n| n.to_str())
        .unwrap_or_default()
        .to_ascii_lowercase();
    let dirs: Vec<String> = path
        .parent()
        .map(|p| {
            p.components()
                .map(|c| c.as_os_str().to_string_lossy().to_ascii_lowercase())
                .collect()
        })
        .unwrap_or_default();
    let in_dir = |d: &str| dirs.iter().any(|x| x == d);
    let ext = extension(path);
    match name.as_str() {
        "claude_desktop_config.json" => return Some(HostFormat::ClaudeDesktop),
        ".mcp.json" | ".claude.json" => return Some(HostFormat::ClaudeCode),
        "cline_mcp_settings.json" => return Some(HostFormat::Cline),
        "mcp_config.json" => return Some(HostFormat::Windsurf),
        _ => {}
    }
    if ext == "toml" {
        return Some(HostFormat::Codex);
    }
    if ext == "yaml" || ext == "yml" {
        return Some(HostFormat::Continue);
    }
    if root.get("context_servers").is_some() {
        return Some(HostFormat::Zed);
    }
    if name == "server.json" && (root.get("packages").is_some() || root.get("remotes").is_some()) {
        return Some(HostFormat::Registry);
    }
    if (name == "manifest.json"
        || root.get("manifest_version").is_some()
        || root.get("dxt_version").is_some())
        && root.get("server").is_some()
    {
        return Some(HostFormat::Mcpb);
    }
    if (in_dir(".vscode")
        || root.get("servers").is_some()
        || root.path(&["mcp", "servers"]).is_some()
        || root.get("mcp.servers").is_some())
        && root.get("mcpServers").is_none()
    {
        return Some(HostFormat::VsCode);
    }
    if in_dir(".cursor") {
        return Some(HostFormat::Cursor);
    }
    if in_dir(".gemini") {
        return Some(HostFormat::Gemini);
    }
    if in_dir(".junie") {
        return Some(HostFormat::Junie);
    }
    if in_dir("windsurf") || in_dir(".windsurf") {
        return Some(HostFormat::Windsurf);
    }
    if in_dir("saoudrizwan.claude-dev") {
        return Some(HostFormat::Cline);
    }
    if in_dir("claude") {
        return Some(HostFormat::ClaudeDesktop);
    }
    if root.get("packages").is_some() || root.get("remotes").is_some() {
        return Some(HostFormat::Registry);
    }
    if root
        .path(&["experimental", "modelContextProtocolServers"])
        .is_some()
    {
        return Some(HostFormat::Continue);
    }
    match root.get("mcpServers").map(|n| &n.value) {
        Some(tree::Value::Arr(_)) => Some(HostFormat::Continue),
        Some(_) if in_dir(".continue") => Some(HostFormat::Continue),
        Some(_) => Some(HostFormat::Generic),
        None => None,
    }
}

/// The `mcpServers` map of a Claude-style file (absent → no servers).
pub(crate) fn mcp_servers(
    path: &Path,
    root: &Node,
    host: &'static str,
    settings_keys: &[&str],
) -> Result<Vec<ServerSpec>, ConfigError> {
    match root.get("mcpServers") {
        Some(map) => entry::server_map(path, host, map, "mcpServers", settings_keys),
        None => Ok(Vec::new()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::PathBuf;

    #[test]
    fn host_ids_round_trip() {
        for h in HostFormat::ALL {
            assert_eq!(h.id().parse::<HostFormat>(), Ok(h));
        }
        assert!("nope".parse::<HostFormat>().is_err());
    }

    #[test]
    fn detection_uses_names_folders_and_content() {
        let root = jsonc::parse(r#"{"mcpServers": {}}"#).expect("json");
        let d = |p: &str| detect(&PathBuf::from(p), &root);
        assert_eq!(d("/h/.cursor/mcp.json"), Some(HostFormat::Cursor));
        assert_eq!(d("/h/.gemini/settings.json"), Some(HostFormat::Gemini));
        assert_eq!(d("/r/.mcp.json"), Some(HostFormat::ClaudeCode));
        assert_eq!(d("/r/whatever.json"), Some(HostFormat::Generic));
        let zed = jsonc::parse(r#"{"context_servers": {}}"#).expect("json");
        assert_eq!(
            detect(&PathBuf::from("/x/settings.json"), &zed),
            Some(HostFormat::Zed)
        );
        let none = jsonc::parse(r#"{"editor.fontSize": 12}"#).expect("json");
        assert_eq!(detect(&PathBuf::from("/x/settings.json"), &none), None);
    }

    use proptest::prelude::*;

    fn json_value() -> impl Strategy<Value = serde_json::Value> {
        let leaf = prop_oneof![
            Just(serde_json::Value::Null),
            any::<bool>().prop_map(serde_json::Value::Bool),
            any::<i32>().prop_map(serde_json::Value::from),
            prop_oneof![
                Just("command"),
                Just("args"),
                Just("env"),
                Just("url"),
                Just("x"),
                Just("${T}")
            ]
            .prop_map(|s| serde_json::Value::String(s.to_string())),
        ];
        leaf.prop_recursive(4, 40, 5, |inner| {
            let key = prop_oneof![
                Just("command"),
                Just("args"),
                Just("env"),
                Just("url"),
                Just("headers"),
                Just("httpUrl"),
                Just("servers"),
                Just("mcpServers"),
                Just("context_servers"),
                Just("mcp_servers"),
                Just("packages"),
                Just("remotes"),
                Just("server"),
                Just("mcp_config"),
                Just("source"),
                Just("settings"),
                Just("path"),
                Just("name"),
                Just("projects"),
                Just("trust"),
            ]
            .prop_map(str::to_string);
            prop_oneof![
                prop::collection::vec(inner.clone(), 0..4).prop_map(serde_json::Value::Array),
                prop::collection::vec((key, inner), 0..5)
                    .prop_map(|kv| serde_json::Value::Object(kv.into_iter().collect())),
            ]
        })
    }

    proptest! {
        /// Any document shape, read as any host format, gives specs or an error, never a panic.
        #[test]
        fn every_host_parser_survives_any_shape(v in json_value()) {
            let text = serde_json::to_string_pretty(&v).unwrap_or_default();
            let root = jsonc::parse(&text).map_err(|e| TestCaseError::fail(e.message))?;
            for format in HostFormat::ALL {
                let _ = parse_as(&PathBuf::from("f.json"), &root, format);
            }
            let _ = detect(&PathBuf::from("f.json"), &root);
        }

        #[test]
        fn yaml_and_toml_readers_never_panic(text in ".{0,120}") {
            let _ = yaml_tree::parse(&text);
            let _ = toml_tree::parse(&text);
        }
    }
}
