//! Host configuration files → `ServerSpec`s with file:line:column origins. Never runs anything.
//!
//! One file per host format; [`load_path`] detects the format from the file name and content,
//! [`load_path_as`] takes it from the caller, and [`discover`] lists the known user and project
//! locations. JSON files are read as JSONC (comments and trailing commas are fine).

use std::path::Path;

pub use crate::model::host::HostFormat;
use crate::model::spec::ServerSpec;

mod claude;
mod discover;
pub mod entry;
pub mod install;
pub mod jsonc;
pub mod toml_tree;
pub mod tree;
pub mod yaml_tree;

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

/// What a format's `sniff` sees of a file: its lower-cased name, folders and extension, and
/// its parsed content.
pub struct Sniff<'a> {
    pub name: String,
    pub dirs: Vec<String>,
    pub ext: String,
    pub root: &'a Node,
}

impl Sniff<'_> {
    /// Is the file inside a folder of this (lower-case) name?
    pub fn in_dir(&self, d: &str) -> bool {
        self.dirs.iter().any(|x| x == d)
    }
}

/// The parser and detector of every host format, from the one registry in
/// [`crate::model::host`]: each format is a module (one file) with `parse(path, root)` and
/// `sniff(&Sniff) -> Option<u8>`. `sniff` claims a file with a priority (lower wins; each
/// priority belongs to one format), so detection is the same ordered cascade whatever order
/// the registry lines are in.
macro_rules! host_format_registry {
    ($($(#[doc = $doc:literal])* $variant:ident = $id:literal in $module:ident;)*) => {
        $(mod $module;)*

        fn parse_with(
            format: HostFormat,
            path: &Path,
            root: &Node,
        ) -> Result<Vec<ServerSpec>, ConfigError> {
            match format {
                $(HostFormat::$variant => $module::parse(path, root),)*
            }
        }

        fn sniff_with(format: HostFormat, s: &Sniff) -> Option<u8> {
            match format {
                $(HostFormat::$variant => $module::sniff(s),)*
            }
        }
    };
}

crate::model::host::host_format_list!(host_format_registry);

/// Parse one host configuration file into server specs (format detected from the file).
pub fn load_path(path: &Path) -> Result<Vec<ServerSpec>, ConfigError> {
    let doc = read(path)?;
    let format = detect(path, &doc.root).ok_or_else(|| ConfigError::UnknownFormat {
        path: path.display().to_string(),
        known: HostFormat::known_ids(),
    })?;
    parse_as(path, &doc, format)
}

/// Parse one host configuration file as the given format.
pub fn load_path_as(path: &Path, format: HostFormat) -> Result<Vec<ServerSpec>, ConfigError> {
    let doc = read(path)?;
    parse_as(path, &doc, format)
}

/// Parse configuration text as if it came from `path` (format detected), without touching disk.
pub fn load_str(path: &Path, text: &str) -> Result<Vec<ServerSpec>, ConfigError> {
    let doc = parse_text(path, text)?;
    let format = detect(path, &doc.root).ok_or_else(|| ConfigError::UnknownFormat {
        path: path.display().to_string(),
        known: HostFormat::known_ids(),
    })?;
    parse_as(path, &doc, format)
}

/// The format `path` would be read as, if it can be told.
pub fn detect_path(path: &Path) -> Result<Option<HostFormat>, ConfigError> {
    let doc = read(path)?;
    Ok(detect(path, &doc.root))
}

/// A parsed config file: its tree (duplicate keys resolved as the host resolves them) and the
/// duplicate keys found on the way.
struct Document {
    root: Node,
    duplicates: Vec<tree::Duplicate>,
}

fn read(path: &Path) -> Result<Document, ConfigError> {
    let text = crate::model::fsio::read_text(path, crate::model::fsio::ReadKind::Config).map_err(
        |source| ConfigError::Io {
            path: path.display().to_string(),
            source,
        },
    )?;
    parse_text(path, &text)
}

fn extension(path: &Path) -> String {
    path.extension()
        .and_then(|e| e.to_str())
        .unwrap_or_default()
        .to_ascii_lowercase()
}

/// Parse a config file's text the way its host parses it. JSON and JSONC hosts (`JSON.parse`,
/// VS Code's JSONC reader) keep the last of two equal keys, and so does the tree; TOML (Codex,
/// the `toml` crate) and YAML (Continue, the `yaml` package) refuse duplicate keys, and so do
/// these readers, with the line of the second key.
fn parse_text(path: &Path, text: &str) -> Result<Document, ConfigError> {
    let result = match extension(path).as_str() {
        "toml" => toml_tree::parse(text).map(|root| (root, Vec::new())),
        "yaml" | "yml" => yaml_tree::parse(text).map(|root| (root, Vec::new())),
        _ => jsonc::parse_with_duplicates(text),
    };
    let (root, duplicates) = result.map_err(|e| ConfigError::Parse {
        path: path.display().to_string(),
        line: e.pos.line as usize,
        column: e.pos.column as usize,
        message: e.message,
    })?;
    Ok(Document { root, duplicates })
}

fn parse_as(
    path: &Path,
    doc: &Document,
    format: HostFormat,
) -> Result<Vec<ServerSpec>, ConfigError> {
    let mut specs = parse_with(format, path, &doc.root)?;
    attach_duplicates(path, &doc.duplicates, &mut specs);
    Ok(specs)
}

/// Give each spec the duplicate keys that change it: inside its entry, its own name, or a key
/// that holds it (a second `mcpServers`). Duplicates elsewhere in the file (an editor setting)
/// concern no server.
fn attach_duplicates(path: &Path, duplicates: &[tree::Duplicate], specs: &mut [ServerSpec]) {
    for spec in specs {
        let Some(origin) = spec.origin.as_ref().filter(|o| o.file == path) else {
            continue;
        };
        let at = tree::Pos {
            line: origin.line,
            column: origin.column,
        };
        spec.duplicate_keys
            .extend(duplicates.iter().filter(|d| d.concerns(at)).map(|d| {
                crate::model::spec::DuplicateKey {
                    pointer: d.pointer.clone(),
                    ignored: d.first.origin(path),
                    used: d.last.origin(path),
                }
            }));
    }
}

/// Tell the host format from the file name, its folders, then its content: every format
/// sniffs the file and the lowest priority claimed wins.
fn detect(path: &Path, root: &Node) -> Option<HostFormat> {
    let sniff = Sniff {
        name: path
            .file_name()
            .and_then(|n| n.to_str())
            .unwrap_or_default()
            .to_ascii_lowercase(),
        dirs: path
            .parent()
            .map(|p| {
                p.components()
                    .map(|c| c.as_os_str().to_string_lossy().to_ascii_lowercase())
                    .collect()
            })
            .unwrap_or_default(),
        ext: extension(path),
        root,
    };
    HostFormat::ALL
        .into_iter()
        .filter_map(|f| Some((sniff_with(f, &sniff)?, f)))
        .min()
        .map(|(_, f)| f)
}

/// The `mcpServers` map of a Claude-style file (absent → no servers).
pub(crate) fn mcp_servers(
    path: &Path,
    root: &Node,
    host: HostFormat,
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
                let _ = parse_with(format, &PathBuf::from("f.json"), &root);
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
