//! The ci-insights server configuration and its data: the contract's tables, the shipped
//! identity, and loaders for `--data FILE` (builds and flaky tests) and `--config FILE`
//! (a whole configuration), with errors that name the file and the bad field.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

/// The protocol revision ci-insights implements.
pub const PROTOCOL_VERSION: &str = "2026-07-28";

/// The name the shipped server reports in `_meta["io.modelcontextprotocol/serverInfo"]`.
pub const SERVER_NAME: &str = "ci-insights";

/// Who may reuse a cached list: every caller (`public`) or one authorization context (`private`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum CacheScope {
    /// No caller-specific data: any client or shared cache may reuse the list.
    Public,
    /// Reuse is limited to one authorization context.
    Private,
}

impl CacheScope {
    /// The wire spelling (`"public"` or `"private"`).
    pub fn as_str(self) -> &'static str {
        match self {
            CacheScope::Public => "public",
            CacheScope::Private => "private",
        }
    }
}

/// One CI build row (`server.builds`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Build {
    pub pipeline: String,
    pub build: i64,
    pub status: String,
    pub minutes: i64,
}

/// One flaky-test row (`server.flakyTests`), stored most failures first.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FlakyTest {
    pub pipeline: String,
    pub test: String,
    pub failures: i64,
}

/// Everything the handler reads: a plain value the tests can vary.
///
/// Keys are camelCase on the wire (`supportedVersions`, `cacheTtlMs`, `cacheScope`, `tools`,
/// `builds`, `flakyTests`, `serverInfo`). The handler never mutates it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ServerConfig {
    /// Protocol revisions the server accepts (checked at step 5).
    pub supported_versions: Vec<String>,
    /// `ttlMs` of `server/discover` and `tools/list`.
    pub cache_ttl_ms: u64,
    /// `cacheScope` of `server/discover` and `tools/list`.
    pub cache_scope: CacheScope,
    /// Tool definitions in declared order, returned as deep copies by `tools/list`.
    pub tools: Vec<Value>,
    /// Builds that `get_build_status` looks up.
    #[serde(default)]
    pub builds: Vec<Build>,
    /// Flaky tests that `list_flaky_tests` lists, in stored order.
    #[serde(default)]
    pub flaky_tests: Vec<FlakyTest>,
    /// When present, every result carries `_meta["io.modelcontextprotocol/serverInfo"]`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub server_info: Option<Value>,
}

impl ServerConfig {
    /// Exactly the seed contract's configuration: version `2026-07-28`, TTL 300000 ms, public
    /// scope, the two tools, the builds and flaky-test tables, and no server info (the contract
    /// fixtures compare whole responses without it).
    pub fn contract() -> Self {
        ServerConfig {
            supported_versions: vec![PROTOCOL_VERSION.to_string()],
            cache_ttl_ms: 300_000,
            cache_scope: CacheScope::Public,
            tools: contract_tools(),
            builds: contract_builds(),
            flaky_tests: contract_flaky_tests(),
            server_info: None,
        }
    }

    /// The configuration the `ci-insights` binary ships: [`ServerConfig::contract`] plus
    /// server info (name `ci-insights`, the crate version).
    pub fn shipped() -> Self {
        ServerConfig {
            server_info: Some(json!({"name": SERVER_NAME, "version": env!("CARGO_PKG_VERSION")})),
            ..Self::contract()
        }
    }

    /// Replace the builds and/or flaky tests with those of a data file (absent keys keep the
    /// current tables).
    pub fn with_data(mut self, data: DataFile) -> Self {
        if let Some(builds) = data.builds {
            self.builds = builds;
        }
        if let Some(flaky) = data.flaky_tests {
            self.flaky_tests = flaky;
        }
        self
    }

    /// Parse a whole configuration from JSON text (`origin` names the source in errors).
    pub fn from_json_str(text: &str, origin: &Path) -> Result<Self, ConfigError> {
        let config: ServerConfig = parse_json(text, origin)?;
        config.validate(origin)?;
        Ok(config)
    }

    /// Load a whole configuration file (`ci-insights --config FILE`).
    pub fn load(path: &Path) -> Result<Self, ConfigError> {
        let text = read(path)?;
        Self::from_json_str(&text, path)
    }

    fn validate(&self, origin: &Path) -> Result<(), ConfigError> {
        let bad = |field: String, problem: &str| ConfigError::Invalid {
            path: origin.to_path_buf(),
            field,
            problem: problem.to_string(),
        };
        if self.supported_versions.is_empty() {
            return Err(bad(
                "supportedVersions".into(),
                "must list at least one protocol version, e.g. \"2026-07-28\"",
            ));
        }
        for (i, tool) in self.tools.iter().enumerate() {
            let Some(obj) = tool.as_object() else {
                return Err(bad(
                    format!("tools[{i}]"),
                    "must be a tool definition object",
                ));
            };
            if !obj.get("name").is_some_and(Value::is_string) {
                return Err(bad(format!("tools[{i}].name"), "must be a string"));
            }
            if !obj.get("inputSchema").is_some_and(Value::is_object) {
                return Err(bad(
                    format!("tools[{i}].inputSchema"),
                    "must be a JSON Schema object",
                ));
            }
        }
        // What the kit refuses to register (a duplicate name, a non-object input schema, an
        // unusable x-mcp-header) is refused here, naming the file.
        super::handler::tool_server(self).map_err(|why| bad("tools".into(), &why.to_string()))?;
        Ok(())
    }
}

/// The `--data FILE` document: `{"builds": [...], "flakyTests": [...]}`; either key may be
/// left out to keep the seed table.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct DataFile {
    #[serde(default)]
    pub builds: Option<Vec<Build>>,
    #[serde(default)]
    pub flaky_tests: Option<Vec<FlakyTest>>,
}

impl DataFile {
    /// Parse a data document from JSON text (`origin` names the source in errors).
    pub fn from_json_str(text: &str, origin: &Path) -> Result<Self, ConfigError> {
        parse_json(text, origin)
    }

    /// Load a data file (`ci-insights --data FILE`).
    pub fn load(path: &Path) -> Result<Self, ConfigError> {
        let text = read(path)?;
        Self::from_json_str(&text, path)
    }
}

/// Why a configuration or data file could not be used.
#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    /// The file could not be read.
    #[error("cannot read {path}: {source}; check the path and its permissions")]
    Read {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    /// The JSON did not parse, or a field had the wrong shape.
    #[error(
        "{path}: field `{field}`: {message} (line {line}, column {column}); fix that field and retry"
    )]
    Field {
        path: PathBuf,
        field: String,
        message: String,
        line: usize,
        column: usize,
    },
    /// The document parsed but a field's value is unusable.
    #[error("{path}: field `{field}` {problem}")]
    Invalid {
        path: PathBuf,
        field: String,
        problem: String,
    },
}

fn read(path: &Path) -> Result<String, ConfigError> {
    std::fs::read_to_string(path).map_err(|source| ConfigError::Read {
        path: path.to_path_buf(),
        source,
    })
}

fn parse_json<T: serde::de::DeserializeOwned>(text: &str, origin: &Path) -> Result<T, ConfigError> {
    let field_error = |field: String, inner: serde_json::Error| ConfigError::Field {
        path: origin.to_path_buf(),
        field,
        message: strip_position(&inner.to_string()),
        line: inner.line(),
        column: inner.column(),
    };
    let mut de = serde_json::Deserializer::from_str(text);
    let parsed: T = serde_path_to_error::deserialize(&mut de).map_err(|e| {
        let field = e.path().to_string();
        let field = if field == "." {
            "(document)".to_string()
        } else {
            field
        };
        field_error(field, e.into_inner())
    })?;
    de.end()
        .map_err(|e| field_error("(document)".to_string(), e))?;
    Ok(parsed)
}

/// serde_json appends " at line L column C"; the error already reports the position.
fn strip_position(message: &str) -> String {
    match message.rfind(" at line ") {
        Some(i) => message[..i].to_string(),
        None => message.to_string(),
    }
}

fn contract_tools() -> Vec<Value> {
    vec![
        json!({
            "name": "get_build_status",
            "description": "Get the result and duration of one CI build. Read-only.",
            "inputSchema": {
                "type": "object",
                "properties": {
                    "pipeline": { "type": "string", "enum": ["web", "api", "mobile"] },
                    "build": { "type": "integer", "minimum": 1 }
                },
                "required": ["pipeline", "build"],
                "additionalProperties": false
            },
            "annotations": { "readOnlyHint": true, "openWorldHint": false }
        }),
        json!({
            "name": "list_flaky_tests",
            "description": "List the flakiest tests of a CI pipeline, most failures first. Read-only.",
            "inputSchema": {
                "type": "object",
                "properties": {
                    "pipeline": { "type": "string", "enum": ["web", "api", "mobile"] },
                    "limit": { "type": "integer", "minimum": 1, "maximum": 20, "default": 3 }
                },
                "required": ["pipeline"],
                "additionalProperties": false
            },
            "annotations": { "readOnlyHint": true, "openWorldHint": false }
        }),
    ]
}

fn contract_builds() -> Vec<Build> {
    let row = |pipeline: &str, build, status: &str, minutes| Build {
        pipeline: pipeline.into(),
        build,
        status: status.into(),
        minutes,
    };
    vec![
        row("api", 412, "failed", 14),
        row("api", 413, "passed", 11),
        row("web", 87, "passed", 6),
        row("mobile", 230, "failed", 22),
    ]
}

fn contract_flaky_tests() -> Vec<FlakyTest> {
    let row = |pipeline: &str, test: &str, failures| FlakyTest {
        pipeline: pipeline.into(),
        test: test.into(),
        failures,
    };
    vec![
        row("api", "checkout-timeout", 7),
        row("web", "login-redirect", 5),
        row("api", "refund-webhook-retry", 4),
        row("api", "rate-card-cache", 2),
        row("api", "invoice-pdf-render", 2),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn contract_has_the_seed_tables_and_no_server_info() {
        let c = ServerConfig::contract();
        assert_eq!(c.supported_versions, vec!["2026-07-28"]);
        assert_eq!(c.cache_ttl_ms, 300_000);
        assert_eq!(c.cache_scope, CacheScope::Public);
        assert_eq!(c.tools.len(), 2);
        assert_eq!(c.builds.len(), 4);
        assert_eq!(c.flaky_tests.len(), 5);
        assert!(c.server_info.is_none());
    }

    #[test]
    fn shipped_adds_server_info_only() {
        let s = ServerConfig::shipped();
        assert_eq!(
            s.server_info,
            Some(json!({"name": "ci-insights", "version": env!("CARGO_PKG_VERSION")}))
        );
        assert_eq!(
            ServerConfig {
                server_info: None,
                ..s
            },
            ServerConfig::contract()
        );
    }

    #[test]
    fn config_round_trips_with_camel_case_keys() {
        let text = serde_json::to_string(&ServerConfig::shipped()).unwrap();
        assert!(text.contains("\"supportedVersions\""));
        assert!(text.contains("\"flakyTests\""));
        assert!(text.contains("\"cacheTtlMs\""));
        let back = ServerConfig::from_json_str(&text, Path::new("x.json")).unwrap();
        assert_eq!(back, ServerConfig::shipped());
    }

    #[test]
    fn data_error_names_the_bad_field() {
        let text =
            r#"{"builds": [{"pipeline": "api", "build": 1, "status": "passed", "minutes": "x"}]}"#;
        let err = DataFile::from_json_str(text, Path::new("data.json")).unwrap_err();
        let msg = err.to_string();
        assert!(msg.contains("data.json"), "{msg}");
        assert!(msg.contains("builds[0].minutes"), "{msg}");
        assert!(msg.contains("invalid type"), "{msg}");
    }

    #[test]
    fn data_unknown_key_is_named() {
        let err = DataFile::from_json_str(r#"{"flaky": []}"#, Path::new("d.json")).unwrap_err();
        let msg = err.to_string();
        assert!(msg.contains("unknown field `flaky`"), "{msg}");
    }

    #[test]
    fn data_trailing_garbage_is_an_error() {
        let err = DataFile::from_json_str(r#"{} x"#, Path::new("d.json")).unwrap_err();
        assert!(err.to_string().contains("trailing characters"), "{err}");
    }

    #[test]
    fn data_replaces_only_given_tables() {
        let data = DataFile::from_json_str(
            r#"{"flakyTests": [{"pipeline": "web", "test": "t", "failures": 1}]}"#,
            Path::new("d.json"),
        )
        .unwrap();
        let c = ServerConfig::contract().with_data(data);
        assert_eq!(c.builds, ServerConfig::contract().builds);
        assert_eq!(c.flaky_tests.len(), 1);
    }

    #[test]
    fn config_rejects_a_tool_without_a_name() {
        let mut c = serde_json::to_value(ServerConfig::contract()).unwrap();
        c["tools"][1].as_object_mut().unwrap().remove("name");
        let err = ServerConfig::from_json_str(&c.to_string(), Path::new("c.json")).unwrap_err();
        assert!(err.to_string().contains("tools[1].name"), "{err}");
    }

    #[test]
    fn config_rejects_a_bad_scope() {
        let mut c = serde_json::to_value(ServerConfig::contract()).unwrap();
        c["cacheScope"] = json!("shared");
        let err = ServerConfig::from_json_str(&c.to_string(), Path::new("c.json")).unwrap_err();
        assert!(err.to_string().contains("cacheScope"), "{err}");
    }
}
