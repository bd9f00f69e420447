//! `ServerSpec`: what a host configuration (or the command line) says to run, and where it said so.
//!
//! Produced by `config` (and by `mcpvet scan -- CMD…` / `--url`), consumed by the probe,
//! the launch audit, the policy and the lockfile. Nothing here runs anything.

use std::collections::BTreeMap;
use std::path::PathBuf;

use serde::{Deserialize, Serialize};

use super::host::{Host, HostFormat};

/// A position in a configuration file, 1-based line and column.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
pub struct Origin {
    pub file: PathBuf,
    pub line: u32,
    pub column: u32,
}

impl std::fmt::Display for Origin {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}:{}:{}", self.file.display(), self.line, self.column)
    }
}

/// How a server is reached.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "lowercase")]
pub enum Transport {
    /// A local process speaking newline-delimited JSON-RPC on stdin/stdout.
    Stdio {
        command: String,
        #[serde(default)]
        args: Vec<String>,
        /// Environment entries the config declares. Values may be variable references
        /// (`${VAR}`, `${env:VAR}`, `${input:id}`, `$VAR`) or literals.
        #[serde(default)]
        env: BTreeMap<String, String>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        cwd: Option<PathBuf>,
    },
    /// A Streamable HTTP endpoint (or an HTTP+SSE one: see [`ServerSpec::sse_declared_at`]).
    Http {
        url: String,
        #[serde(default)]
        headers: BTreeMap<String, String>,
    },
}

/// One server entry: the unit that is probed, audited, locked and allowlisted.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ServerSpec {
    /// The key the host config uses for it (or a name derived from the command line).
    pub name: String,
    /// Which host format it came from (`claude-desktop`, `vscode`, `codex`, …), or `cli`.
    pub host: Host,
    /// Where the entry starts, when it came from a file.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub origin: Option<Origin>,
    /// Positions of fields inside the entry, keyed by JSON Pointer relative to the entry
    /// (e.g. `/command`, `/args/2`, `/env/GITHUB_TOKEN`, `/headers/Authorization`).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub locations: BTreeMap<String, Origin>,
    pub transport: Transport,
    /// Host settings that matter for security but are not part of the launch
    /// (e.g. Gemini `trust`, Cline `alwaysAllow`/`autoApprove`, `disabled`), as found.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub settings: BTreeMap<String, serde_json::Value>,
    /// Keys written twice in the entry or in the config around it (the host reads the last one,
    /// and so does the spec); reported by the `duplicate-config-key` rule.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub duplicate_keys: Vec<DuplicateKey>,
}

/// A key written twice in a host config: where the ignored value and the used one are.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct DuplicateKey {
    /// JSON Pointer of the key from the document root (e.g. `/mcpServers/docs/args`).
    pub pointer: String,
    /// The first occurrence (ignored by the host).
    pub ignored: Origin,
    /// The last occurrence (the one the host uses).
    pub used: Origin,
}

impl ServerSpec {
    /// The most precise origin for a field pointer, falling back to the entry's origin.
    pub fn origin_of(&self, pointer: &str) -> Option<&Origin> {
        self.locations.get(pointer).or(self.origin.as_ref())
    }

    /// Where the config says the transport is the legacy HTTP+SSE one of 2024-11-05: the
    /// pointer of the key that says so (`/type` or `/transport` set to `sse`, or Gemini CLI's
    /// `/url` without `httpUrl`). The probe then speaks HTTP+SSE, and the
    /// `deprecated-transport` launch rule reports the key.
    pub fn sse_declared_at(&self) -> Option<&'static str> {
        if !matches!(self.transport, Transport::Http { .. }) {
            return None;
        }
        for key in ["type", "transport"] {
            let says_sse = self
                .settings
                .get(key)
                .and_then(|v| v.as_str())
                .is_some_and(|v| v.trim().eq_ignore_ascii_case("sse"));
            if says_sse {
                return Some(if key == "type" { "/type" } else { "/transport" });
            }
        }
        // Gemini CLI: `url` is an SSE endpoint, `httpUrl` a Streamable HTTP one.
        (self.host == Host::Format(HostFormat::Gemini)
            && !self.settings.contains_key("type")
            && !self.locations.contains_key("/httpUrl"))
        .then_some("/url")
    }
}
