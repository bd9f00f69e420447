//! The per-call policy gate and the audit sink (the seeds' capstone: `policy_decide`, approval
//! records bound to an `arguments_digest`, an audit sink of redacted entries).
//!
//! Every `tools/call` whose arguments passed validation asks the server's [`Policy`] for a
//! [`Decision`]: allow, deny (with a reason), or require approval. An approval is an
//! [`Approval`] record naming the tool and the sha256 of the RFC 8785 canonical JSON of the
//! exact arguments ([`arguments_digest`]); a call with any other arguments is not approved.
//! Denied and unapproved calls are tool results with `isError: true` that say why (the model
//! can read them), never a run of the tool.
//!
//! Every call that reached a tool (known name) leaves one [`AuditEntry`] in the server's
//! [`AuditSink`]: the tool, the digest, the decision, the outcome and the arguments with every
//! secret redacted ([`crate::model::redact::redact_json`]).

use std::collections::BTreeMap;
use std::sync::Mutex;

use serde::Serialize;
use serde_json::{Map, Value};

use crate::lock::canon::hash_value;
use crate::model::redact::{Style, redact_json};

/// sha256 (lower-case hex) of the RFC 8785 canonical JSON of a call's arguments.
pub fn arguments_digest(arguments: &Map<String, Value>) -> String {
    hash_value(&Value::Object(arguments.clone()))
}

/// What the gate decided for one call.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Decision {
    /// Run the tool.
    Allow,
    /// Do not run it; the reason is shown to the caller.
    Deny(String),
    /// Run it only when an [`Approval`] for exactly these arguments is on record.
    RequireApproval,
}

/// What a [`Policy`] sees of one call.
#[derive(Debug, Clone, Copy)]
pub struct CallInfo<'a> {
    /// The tool name.
    pub tool: &'a str,
    /// The validated arguments.
    pub arguments: &'a Map<String, Value>,
    /// [`arguments_digest`] of them.
    pub arguments_sha256: &'a str,
    /// The tool's declared annotations (untrusted hints), if any.
    pub annotations: Option<&'a Value>,
}

/// A per-call gate.
pub trait Policy: Send + Sync {
    /// Decide one call.
    fn decide(&self, call: &CallInfo<'_>) -> Decision;
}

impl<F> Policy for F
where
    F: Fn(&CallInfo<'_>) -> Decision + Send + Sync,
{
    fn decide(&self, call: &CallInfo<'_>) -> Decision {
        self(call)
    }
}

/// A table policy: a decision per tool name and a default for the rest.
#[derive(Debug, Clone)]
pub struct ToolPolicy {
    default: Decision,
    per_tool: BTreeMap<String, Decision>,
}

impl ToolPolicy {
    /// Every tool gets `default` unless [`ToolPolicy::tool`] says otherwise.
    pub fn new(default: Decision) -> Self {
        ToolPolicy {
            default,
            per_tool: BTreeMap::new(),
        }
    }

    /// Decide `name` with `decision`.
    pub fn tool(mut self, name: impl Into<String>, decision: Decision) -> Self {
        self.per_tool.insert(name.into(), decision);
        self
    }
}

impl Policy for ToolPolicy {
    fn decide(&self, call: &CallInfo<'_>) -> Decision {
        self.per_tool
            .get(call.tool)
            .unwrap_or(&self.default)
            .clone()
    }
}

/// An approval record: this tool may run with exactly the arguments whose digest this is.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Serialize)]
pub struct Approval {
    /// The tool name.
    pub tool: String,
    /// [`arguments_digest`] of the approved arguments.
    pub arguments_sha256: String,
}

impl Approval {
    /// An approval of `tool` with exactly `arguments`.
    pub fn for_arguments(tool: impl Into<String>, arguments: &Map<String, Value>) -> Self {
        Approval {
            tool: tool.into(),
            arguments_sha256: arguments_digest(arguments),
        }
    }
}

/// The decision as recorded in an audit entry.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum AuditDecision {
    /// Allowed by the policy (or no policy is set).
    Allow,
    /// Denied by the policy.
    Deny,
    /// Needed approval and had one.
    Approved,
    /// Needed approval and had none.
    ApprovalRequired,
    /// Not asked: the arguments failed validation first.
    NotAsked,
}

/// What came of a call.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum AuditOutcome {
    /// The tool ran and succeeded.
    Ok,
    /// The tool ran and failed (or its result broke its `outputSchema`).
    ToolError,
    /// The arguments failed the input schema; the tool did not run.
    InvalidArguments,
    /// The gate stopped the call; the tool did not run.
    Blocked,
}

/// One audited call; the arguments are redacted.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct AuditEntry {
    /// The tool name.
    pub tool: String,
    /// [`arguments_digest`] of the arguments as received.
    pub arguments_sha256: String,
    /// The arguments with every recognised secret redacted.
    pub arguments: Value,
    /// The gate's decision.
    pub decision: AuditDecision,
    /// What came of it.
    pub outcome: AuditOutcome,
}

impl AuditEntry {
    /// An entry for `tool` called with `arguments` (redacted here).
    pub fn new(
        tool: &str,
        arguments: &Map<String, Value>,
        arguments_sha256: &str,
        decision: AuditDecision,
        outcome: AuditOutcome,
    ) -> Self {
        AuditEntry {
            tool: tool.to_string(),
            arguments_sha256: arguments_sha256.to_string(),
            arguments: redact_json(&Value::Object(arguments.clone()), Style::Show),
            decision,
            outcome,
        }
    }
}

/// Where audit entries go.
pub trait AuditSink: Send + Sync {
    /// Record one entry.
    fn record(&self, entry: AuditEntry);
}

/// An in-memory sink (for tests and for callers that drain it themselves).
#[derive(Debug, Default)]
pub struct MemoryAudit {
    entries: Mutex<Vec<AuditEntry>>,
}

impl MemoryAudit {
    /// An empty sink.
    pub fn new() -> Self {
        Self::default()
    }

    /// A copy of the entries so far, oldest first.
    pub fn entries(&self) -> Vec<AuditEntry> {
        self.entries.lock().map(|e| e.clone()).unwrap_or_default()
    }
}

impl AuditSink for MemoryAudit {
    fn record(&self, entry: AuditEntry) {
        if let Ok(mut entries) = self.entries.lock() {
            entries.push(entry);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn args(v: Value) -> Map<String, Value> {
        v.as_object().unwrap().clone()
    }

    #[test]
    fn digest_is_canonical() {
        let a = arguments_digest(&args(json!({"b": 1, "a": [1.0, "x"]})));
        let b = arguments_digest(&args(json!({"a": [1, "x"], "b": 1})));
        assert_eq!(a, b);
        assert_eq!(a.len(), 64);
        assert_ne!(a, arguments_digest(&args(json!({"a": [1, "x"], "b": 2}))));
    }

    #[test]
    fn audit_entries_are_redacted() {
        let key = "ghp_abcdefghijklmnopqrstuvwxyz0123456789";
        let entry = AuditEntry::new(
            "t",
            &args(json!({"token": key, "q": "hello"})),
            "d",
            AuditDecision::Allow,
            AuditOutcome::Ok,
        );
        let text = entry.arguments.to_string();
        assert!(!text.contains(key), "{text}");
        assert!(text.contains("hello"));
    }

    #[test]
    fn tool_policy_defaults() {
        let p = ToolPolicy::new(Decision::Allow).tool("rm", Decision::Deny("no".into()));
        let a = Map::new();
        let call = |tool| CallInfo {
            tool,
            arguments: &a,
            arguments_sha256: "",
            annotations: None,
        };
        assert_eq!(p.decide(&call("rm")), Decision::Deny("no".into()));
        assert_eq!(p.decide(&call("ls")), Decision::Allow);
    }
}
