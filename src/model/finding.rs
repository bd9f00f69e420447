//! The finding model: findings are data (rule id, severity, confidence, where, what, evidence,
//! and the control that mitigates it). Every stage that judges something produces these;
//! only the report layer renders them.

use serde::{Deserialize, Serialize};

use crate::model::spec::Origin;

/// How bad a finding is. Ordered: `Info < Low < Medium < High < Critical`.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize, Default,
)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    #[default]
    Info,
    Low,
    Medium,
    High,
    Critical,
}

impl Severity {
    pub const ALL: [Severity; 5] = [
        Severity::Info,
        Severity::Low,
        Severity::Medium,
        Severity::High,
        Severity::Critical,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            Severity::Info => "info",
            Severity::Low => "low",
            Severity::Medium => "medium",
            Severity::High => "high",
            Severity::Critical => "critical",
        }
    }

    /// One step more or less severe, saturating.
    pub fn raised(self) -> Severity {
        match self {
            Severity::Info => Severity::Low,
            Severity::Low => Severity::Medium,
            Severity::Medium => Severity::High,
            _ => Severity::Critical,
        }
    }
    pub fn lowered(self) -> Severity {
        match self {
            Severity::Critical => Severity::High,
            Severity::High => Severity::Medium,
            Severity::Medium => Severity::Low,
            _ => Severity::Info,
        }
    }
}

impl std::fmt::Display for Severity {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

impl std::str::FromStr for Severity {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Severity::ALL
            .into_iter()
            .find(|v| v.as_str().eq_ignore_ascii_case(s))
            .ok_or_else(|| {
                format!(
                    "unknown severity `{s}` (expected one of: info, low, medium, high, critical)"
                )
            })
    }
}

/// How sure the rule is that the finding is real.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize, Default,
)]
#[serde(rename_all = "lowercase")]
pub enum Confidence {
    Low,
    #[default]
    Medium,
    High,
}

impl Confidence {
    pub fn as_str(self) -> &'static str {
        match self {
            Confidence::Low => "low",
            Confidence::Medium => "medium",
            Confidence::High => "high",
        }
    }
}

impl std::fmt::Display for Confidence {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The control that mitigates a finding (the seed's trust-model table, plus a few).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Control {
    /// Review the source and the complete tool definitions.
    ReviewDefinitions,
    /// Pin an exact version (or digest, or commit) and verify its integrity.
    PinVersion,
    /// Record what the server shows the model in a lockfile; re-approve on change.
    LockAndReapprove,
    /// A dedicated, least-privilege credential.
    LeastPrivilegeCredential,
    /// Keep secrets out of config files: reference them from the environment or a secret store.
    SecretReference,
    /// Run the server in a sandbox with limited file and network access.
    Sandbox,
    /// Require confirmation for sensitive calls.
    ConfirmSensitiveCalls,
    /// A team allowlist of reviewed servers.
    Allowlist,
    /// Audit logs of tool calls.
    AuditLog,
    /// Use an encrypted, authenticated transport.
    SecureTransport,
    /// Move a remote server off the deprecated HTTP+SSE transport onto Streamable HTTP.
    StreamableHttp,
    /// Treat tool output and annotations as untrusted data.
    TreatAsUntrusted,
    /// Do not install / remove the offending definition.
    Reject,
}

impl Control {
    pub fn id(self) -> &'static str {
        match self {
            Control::ReviewDefinitions => "review-definitions",
            Control::PinVersion => "pin-version",
            Control::LockAndReapprove => "lock-and-reapprove",
            Control::LeastPrivilegeCredential => "least-privilege-credential",
            Control::SecretReference => "secret-reference",
            Control::Sandbox => "sandbox",
            Control::ConfirmSensitiveCalls => "confirm-sensitive-calls",
            Control::Allowlist => "allowlist",
            Control::AuditLog => "audit-log",
            Control::SecureTransport => "secure-transport",
            Control::StreamableHttp => "streamable-http",
            Control::TreatAsUntrusted => "treat-as-untrusted",
            Control::Reject => "reject",
        }
    }

    /// One imperative sentence a reviewer can act on.
    pub fn advice(self) -> &'static str {
        match self {
            Control::ReviewDefinitions => {
                "Review the source and the complete tool definitions before approving the server."
            }
            Control::PinVersion => {
                "Pin an exact version (or image digest, or commit) and verify its integrity."
            }
            Control::LockAndReapprove => {
                "Record what the server shows the model with `mcpvet lock` and re-approve every change."
            }
            Control::LeastPrivilegeCredential => {
                "Give the server a dedicated, least-privilege credential scoped to what its tools need."
            }
            Control::SecretReference => {
                "Remove the literal secret from the config, rotate it, and reference it from the environment or a secret store."
            }
            Control::Sandbox => {
                "Run the server in a sandbox with no access to your home folder and limited network."
            }
            Control::ConfirmSensitiveCalls => {
                "Require human confirmation for every call of this tool; never auto-approve it."
            }
            Control::Allowlist => {
                "Admit only servers on the team allowlist (`mcpvet check --policy mcpvet.toml`)."
            }
            Control::AuditLog => "Keep an audit log of the tool calls this server receives.",
            Control::SecureTransport => {
                "Use https (or a loopback address) so tokens and tool traffic are not exposed."
            }
            Control::StreamableHttp => {
                "Configure the server's Streamable HTTP endpoint (protocol 2025-03-26 or later) instead of HTTP+SSE."
            }
            Control::TreatAsUntrusted => {
                "Treat annotations and tool output as untrusted data, never as instructions."
            }
            Control::Reject => {
                "Do not install this server until the definition is removed or fixed."
            }
        }
    }
}

impl std::fmt::Display for Control {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.id())
    }
}

/// What kind of thing inside a server a finding is about.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum ItemKind {
    Tool,
    Prompt,
    Resource,
    ResourceTemplate,
    Instructions,
}

/// The tool, prompt or resource a finding is about.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct ItemRef {
    pub kind: ItemKind,
    pub name: String,
}

/// Where a finding is: a config position, a JSON Pointer into the snapshot, or both.
#[derive(Debug, Clone, Default, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
pub struct Location {
    /// The config file position (the entry, or the exact field) that launches the server.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub config: Option<Origin>,
    /// JSON Pointer into the server snapshot, e.g. `/tools/3/inputSchema/properties/x/description`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pointer: Option<String>,
}

/// One thing a rule found.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Finding {
    /// Stable kebab-case rule id (public API: used in policy files, SARIF and docs).
    pub rule: String,
    pub severity: Severity,
    pub confidence: Confidence,
    /// The server's configured name.
    pub server: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub item: Option<ItemRef>,
    pub location: Location,
    pub message: String,
    /// The matched text, with invisible characters made visible and hidden text decoded.
    /// Secrets are redacted before they get here.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub evidence: Option<String>,
    pub control: Control,
}

impl Finding {
    /// Sort key: worst first, then server, then location, then rule.
    pub fn sort_key(&self) -> impl Ord + '_ {
        (
            std::cmp::Reverse(self.severity),
            &self.server,
            &self.location,
            &self.rule,
            std::cmp::Reverse(self.confidence),
        )
    }
}

/// A rule's documentation, shown by `mcpvet rules explain ID` and embedded in SARIF.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RuleMeta {
    pub id: String,
    /// Which family the rule belongs to: `definition`, `launch`, `lock`, `policy`.
    pub family: String,
    /// One line: what the rule flags.
    pub summary: String,
    /// Why it matters.
    pub why: String,
    /// A short example that triggers it.
    pub example: String,
    pub default_severity: Severity,
    pub default_confidence: Confidence,
    pub control: Control,
}

impl RuleMeta {
    /// A rule's documentation; each family's `meta` shorthand calls this with its name.
    /// `text` is the summary, why it matters, and an example, in that order.
    pub fn new(
        id: &str,
        family: &str,
        text: [&str; 3],
        severity: Severity,
        confidence: Confidence,
        control: Control,
    ) -> RuleMeta {
        let [summary, why, example] = text;
        RuleMeta {
            id: id.into(),
            family: family.into(),
            summary: summary.into(),
            why: why.into(),
            example: example.into(),
            default_severity: severity,
            default_confidence: confidence,
            control,
        }
    }
}
