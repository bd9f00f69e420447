//! The team allowlist (`mcpvet.toml`): allow/deny entries, credentials, requirements, rule remaps.
//!
//! [`Policy::load`] reads the file (unknown keys and bad values are errors at line:column),
//! [`Policy::find`] locates it at the repository root, and [`Policy::evaluate`] turns server
//! specs plus the findings of the other stages into the gate's findings and warnings.
//! `mcpvet init` writes [`TEMPLATE`].
//!
//! This file holds the policy's public model; the work is split by job: `parse` (the raw
//! TOML shapes, validated with their spans), `evaluate` (the gate), `doc` (the rule
//! documentation and the template), and [`suppress`] (baseline files: findings accepted by
//! fingerprint).

use std::path::PathBuf;

use crate::model::finding::{Finding, Severity};
use crate::model::spec::Origin;

mod doc;
mod evaluate;
pub mod glob;
mod parse;
pub mod suppress;

pub use doc::{TEMPLATE, rule_meta};
pub use parse::PolicyError;

/// The file name looked for at the repository root.
pub const FILE_NAME: &str = "mcpvet.toml";

/// The scope a policy grants a credential.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum CredentialScope {
    Read,
    Write,
    Admin,
}

/// A credential an allow entry grants.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Grant {
    pub name: String,
    pub scope: Option<CredentialScope>,
}

/// One allow or deny entry. All the matchers it gives must match.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Entry {
    pub name: Option<String>,
    pub package: Option<String>,
    pub command: Option<String>,
    pub url: Option<String>,
    /// `None`: no credential restriction. `Some([])`: no credential at all.
    pub credentials: Option<Vec<Grant>>,
    pub reason: String,
    pub origin: Origin,
}

/// A per-rule severity change.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Remap {
    pub rule: String,
    pub server: Option<String>,
    pub severity: Severity,
    pub reason: String,
    pub origin: Origin,
}

/// An ignore: drops the findings that match every key it gives (at least one of `rule`,
/// `fingerprint`, `tool`, `path`; `server` narrows any of them).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Ignore {
    /// A rule id.
    pub rule: Option<String>,
    /// A server name or glob.
    pub server: Option<String>,
    /// One finding's fingerprint (`mcpvet scan --format json` shows it).
    pub fingerprint: Option<String>,
    /// A tool name or glob (findings about that tool).
    pub tool: Option<String>,
    /// A config file path or glob, relative to the repository root (findings located in it).
    pub path: Option<String>,
    pub reason: String,
    pub origin: Origin,
}

impl Ignore {
    /// What the entry names, for warnings: `rule = "x", server = "y"`.
    pub fn describe(&self) -> String {
        [
            ("rule", &self.rule),
            ("fingerprint", &self.fingerprint),
            ("tool", &self.tool),
            ("path", &self.path),
            ("server", &self.server),
        ]
        .into_iter()
        .filter_map(|(k, v)| v.as_ref().map(|v| format!("{k} = {v:?}")))
        .collect::<Vec<_>>()
        .join(", ")
    }
}

/// Findings one `[[ignore]]` entry dropped, per rule.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct IgnoreHit {
    /// Index of the entry in [`Policy::ignore`].
    pub entry: usize,
    pub rule: String,
    pub count: usize,
}

/// A server the policy lets use the network inside the sandbox (`[[sandbox-network]]`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NetworkGrant {
    /// A server name or a glob over names.
    pub name: String,
    pub reason: String,
    pub origin: Origin,
}

/// A loaded, validated policy.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Policy {
    pub path: PathBuf,
    pub fail_on: Severity,
    pub require_pinned: bool,
    pub require_lock: bool,
    pub allow: Vec<Entry>,
    pub deny: Vec<Entry>,
    pub remap: Vec<Remap>,
    pub ignore: Vec<Ignore>,
    /// Servers allowed network access inside the probe's sandbox.
    pub sandbox_network: Vec<NetworkGrant>,
    /// Run-time rules for `mcpvet guard`, per server name (`[guard.NAME]`).
    pub guard: std::collections::BTreeMap<String, GuardServer>,
}

/// What `mcpvet guard` does with a tool result whose text tries to steer the model.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum OutputAction {
    /// Pass it with a `_meta` marker and a warning block in front (the default).
    #[default]
    Mark,
    /// Replace it with an error result naming what it tried.
    Block,
}

/// What `mcpvet guard` does with a call of one tool.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum ToolAction {
    /// Forward it (after the lock and schema checks).
    #[default]
    Allow,
    /// Refuse it with a tool error naming the reason.
    Deny,
    /// Ask the user first (an elicitation when the host supports it, else refuse).
    Confirm,
}

/// `[guard.NAME.tools.TOOL]`: one tool's run-time rule.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GuardTool {
    pub action: ToolAction,
    /// Most calls of this tool in any 60-second window.
    pub calls_per_minute: Option<u32>,
    pub reason: Option<String>,
    pub origin: Origin,
}

/// `[guard.NAME]`: the run-time rules for one server.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct GuardServer {
    /// What to do with a result whose text tries to steer the model.
    pub output: OutputAction,
    /// Environment variables of the user's environment the server may receive.
    pub pass_env: Vec<String>,
    /// Most calls of all tools together in any 60-second window.
    pub calls_per_minute: Option<u32>,
    /// Per-tool rules by tool name.
    pub tools: std::collections::BTreeMap<String, GuardTool>,
}

impl Policy {
    /// Whether the policy lets the server named `server` use the network inside the
    /// sandbox (any `[[sandbox-network]]` entry whose name or glob matches).
    pub fn allows_sandbox_network(&self, server: &str) -> bool {
        self.sandbox_network
            .iter()
            .any(|g| glob::matches(&g.name, server))
    }
}

/// Something in the policy that deserves attention but is not an error.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct PolicyWarning {
    pub origin: Origin,
    pub message: String,
}

impl std::fmt::Display for PolicyWarning {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}", self.origin, self.message)
    }
}

/// What the policy made of the specs and findings.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PolicyOutcome {
    /// All findings after the policy's additions, escalations, remaps and ignores.
    pub findings: Vec<Finding>,
    pub warnings: Vec<PolicyWarning>,
    /// The severity at which the gate fails.
    pub fail_on: Severity,
    /// What each `[[ignore]]` entry dropped.
    pub ignored: Vec<IgnoreHit>,
}

/// What the lockfiles on disk say, as the policy needs it. Any `Fn(&str) -> bool` closure
/// ("is this server locked?") works; implement the trait for pin checks against lockfiles.
pub trait LockLookup {
    /// Is there an approved lockfile for this server?
    fn is_locked(&self, server: &str) -> bool;
    /// The package identity the lockfile approved (see `model::package::package_identity`), if recorded.
    fn locked_identity(&self, _server: &str) -> Option<String> {
        None
    }
}

impl<F: Fn(&str) -> bool + ?Sized> LockLookup for F {
    fn is_locked(&self, server: &str) -> bool {
        self(server)
    }
}
