//! The lockfile v1 model: the serde types ([`Lockfile`], [`LockedItem`], [`LaunchSpec`],
//! [`Approval`], [`AcceptedFinding`]), how a lock is built from a snapshot, and the hashes it
//! carries.
//!
//! Hashes (all lower-case hex sha256 over RFC 8785 canonical JSON):
//! - per item `sha256`: the definition without its `annotations` member;
//!   `annotationsSha256`: the annotations alone (absent when the item has none);
//! - `instructionsSha256`: the instructions as a JSON string; `launchSha256`: the launch spec;
//! - `contentSha256`: the whole lock without `approval`, `contentSha256` and `sha256` — what
//!   the server shows the model plus how it is launched; it decides whether a re-lock changes
//!   anything;
//! - `sha256`: the whole lock without `sha256` itself (so the approval is covered too); it
//!   detects a hand-edited or tampered file.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::canon::{cmp_utf16, hash_value};
use crate::model::finding::{Finding, ItemKind, ItemRef, Severity};
use crate::model::redact;
use crate::model::snapshot::{Era, ServerSnapshot};
use crate::model::spec::{ServerSpec, Transport};

/// The lock format version this build reads and writes.
pub const LOCKFILE_VERSION: u32 = 1;

/// The normalised launch spec: what runs, without any secret values.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "transport", rename_all = "lowercase", deny_unknown_fields)]
pub enum LaunchSpec {
    Stdio {
        command: String,
        /// Arguments, with every secret value written as `REDACTED`.
        args: Vec<String>,
        /// Names of the environment variables the config sets; never their values.
        #[serde(rename = "envNames")]
        env_names: Vec<String>,
        cwd: Option<String>,
    },
    Http {
        /// The URL with any user-info removed and secret query values redacted
        /// ([`redact::url_for_lock`]).
        url: String,
        /// Lower-cased names of the headers the config sets; never their values.
        #[serde(rename = "headerNames")]
        header_names: Vec<String>,
    },
}

impl LaunchSpec {
    /// Normalise a server spec's transport; every secret in the command line, working
    /// directory or URL is written as `REDACTED`.
    pub fn from_spec(spec: &ServerSpec) -> LaunchSpec {
        match &spec.transport {
            Transport::Stdio {
                command,
                args,
                env,
                cwd,
            } => LaunchSpec::Stdio {
                command: redact::lock_text(command),
                args: redact::redact_argv(command, args, redact::Style::Lock),
                env_names: env.keys().cloned().collect(),
                cwd: cwd
                    .as_ref()
                    .map(|p| redact::lock_text(&p.display().to_string())),
            },
            Transport::Http { url, headers } => {
                let mut names: Vec<String> =
                    headers.keys().map(|k| k.to_ascii_lowercase()).collect();
                names.sort();
                names.dedup();
                LaunchSpec::Http {
                    url: redact::url_for_lock(url),
                    header_names: names,
                }
            }
        }
    }

    /// sha256 of the canonical JSON of this launch spec.
    pub fn sha256(&self) -> String {
        hash_value(&serde_json::to_value(self).unwrap_or(Value::Null))
    }

    /// One line for humans: the command line or the URL.
    pub fn display(&self) -> String {
        match self {
            LaunchSpec::Stdio { command, args, .. } => {
                let mut s = command.clone();
                for a in args {
                    s.push(' ');
                    s.push_str(a);
                }
                s
            }
            LaunchSpec::Http { url, .. } => url.clone(),
        }
    }
}

/// A finding accepted at approval time, with the approver's reason.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct AcceptedFinding {
    pub rule: String,
    pub severity: Severity,
    pub item: Option<ItemRef>,
    pub pointer: Option<String>,
    pub message: String,
    pub reason: String,
}

impl AcceptedFinding {
    /// Record a finding as accepted for `reason`.
    pub fn from_finding(f: &Finding, reason: &str) -> Self {
        AcceptedFinding {
            rule: f.rule.clone(),
            severity: f.severity,
            item: f.item.clone(),
            pointer: f.location.pointer.clone(),
            message: redact::lock_text(&f.message),
            reason: reason.to_owned(),
        }
    }

    /// Whether this acceptance covers a finding (same rule, item and pointer).
    pub fn covers(&self, f: &Finding) -> bool {
        self.rule == f.rule && self.item == f.item && self.pointer == f.location.pointer
    }
}

/// Who approved, when, and what they accepted.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Approval {
    pub by: String,
    /// RFC 3339 time of the approval.
    pub at: String,
    pub note: Option<String>,
    pub accepted: Vec<AcceptedFinding>,
}

impl Approval {
    /// An approval with no note and nothing accepted.
    pub fn new(by: impl Into<String>, at: impl Into<String>) -> Self {
        Approval {
            by: by.into(),
            at: at.into(),
            note: None,
            accepted: Vec::new(),
        }
    }

    /// Whether a finding was accepted by this approval.
    pub fn covers(&self, f: &Finding) -> bool {
        self.accepted.iter().any(|a| a.covers(f))
    }
}

/// One approved tool, prompt, resource or resource template.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct LockedItem {
    /// `name` (tools, prompts), `uri` (resources) or `uriTemplate` (resource templates).
    pub name: String,
    /// The full definition as the server sent it, except `annotations` (kept below).
    pub definition: Value,
    /// sha256 of the canonical JSON of `definition`.
    pub sha256: String,
    pub annotations: Option<Value>,
    pub annotations_sha256: Option<String>,
}

impl LockedItem {
    /// Split a definition into its hashed parts.
    pub fn from_definition(kind: ItemKind, def: &Value) -> LockedItem {
        let mut definition = def.clone();
        let annotations = definition
            .as_object_mut()
            .and_then(|m| m.remove("annotations"));
        LockedItem {
            name: item_key(kind, def),
            sha256: hash_value(&definition),
            annotations_sha256: annotations.as_ref().map(hash_value),
            annotations,
            definition,
        }
    }

    /// The definition with its annotations put back, as the server sent it.
    pub fn full_definition(&self) -> Value {
        let mut def = self.definition.clone();
        if let (Some(map), Some(a)) = (def.as_object_mut(), &self.annotations) {
            map.insert("annotations".into(), a.clone());
        }
        def
    }
}

/// The identity of an item inside its list.
pub fn item_key(kind: ItemKind, def: &Value) -> String {
    let field = match kind {
        ItemKind::Resource => "uri",
        ItemKind::ResourceTemplate => "uriTemplate",
        _ => "name",
    };
    def.get(field)
        .and_then(Value::as_str)
        .map(str::to_owned)
        .unwrap_or_else(|| ServerSnapshot::item_name(def).to_owned())
}

/// What the server shows the model, in lock form (also used to compare two listings).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Content {
    pub server_info: Option<Value>,
    pub era: Option<Era>,
    pub protocol_version: Option<String>,
    pub instructions: Option<String>,
    pub tools: Vec<LockedItem>,
    pub prompts: Vec<LockedItem>,
    pub resources: Vec<LockedItem>,
    pub resource_templates: Vec<LockedItem>,
}

impl Content {
    /// Hash and sort what a snapshot shows, with every secret in it redacted first (a
    /// lockfile never contains a secret value; a secret that changes only inside its
    /// redacted span is not drift).
    pub fn from_snapshot(s: &ServerSnapshot) -> Content {
        let s = &redact::redact_snapshot(s, redact::Style::Lock);
        let items = |kind: ItemKind, defs: &[Value]| {
            let mut v: Vec<LockedItem> = defs
                .iter()
                .map(|d| LockedItem::from_definition(kind, d))
                .collect();
            v.sort_by(|a, b| cmp_utf16(&a.name, &b.name).then_with(|| a.sha256.cmp(&b.sha256)));
            v
        };
        Content {
            server_info: s.server_info.clone(),
            era: s.era,
            protocol_version: s.protocol_version.clone(),
            instructions: s.instructions.clone(),
            tools: items(ItemKind::Tool, &s.tools),
            prompts: items(ItemKind::Prompt, &s.prompts),
            resources: items(ItemKind::Resource, &s.resources),
            resource_templates: items(ItemKind::ResourceTemplate, &s.resource_templates),
        }
    }

    /// The item lists with their kinds.
    pub fn lists(&self) -> [(ItemKind, &[LockedItem]); 4] {
        [
            (ItemKind::Tool, &self.tools),
            (ItemKind::Prompt, &self.prompts),
            (ItemKind::Resource, &self.resources),
            (ItemKind::ResourceTemplate, &self.resource_templates),
        ]
    }
}

/// A lockfile v1: what was approved for one server.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Lockfile {
    pub lockfile_version: u32,
    pub server: String,
    /// How the server is launched; `null` when it was locked from a snapshot file.
    pub launch: Option<LaunchSpec>,
    pub launch_sha256: Option<String>,
    pub server_info: Option<Value>,
    pub era: Option<Era>,
    pub protocol_version: Option<String>,
    pub instructions: Option<String>,
    pub instructions_sha256: Option<String>,
    pub tools: Vec<LockedItem>,
    pub prompts: Vec<LockedItem>,
    pub resources: Vec<LockedItem>,
    pub resource_templates: Vec<LockedItem>,
    pub content_sha256: String,
    pub approval: Approval,
    pub sha256: String,
}

impl Lockfile {
    /// Build a lock for what a snapshot shows (and how its spec launches it).
    pub fn from_snapshot(
        snapshot: &ServerSnapshot,
        spec: Option<&ServerSpec>,
        approval: Approval,
    ) -> Lockfile {
        let content = Content::from_snapshot(snapshot);
        let launch = spec.map(LaunchSpec::from_spec);
        let mut lock = Lockfile {
            lockfile_version: LOCKFILE_VERSION,
            server: spec.map_or_else(|| snapshot.server.clone(), |s| s.name.clone()),
            launch_sha256: launch.as_ref().map(LaunchSpec::sha256),
            launch,
            server_info: content.server_info,
            era: content.era,
            protocol_version: content.protocol_version,
            instructions_sha256: content
                .instructions
                .as_ref()
                .map(|i| hash_value(&Value::String(i.clone()))),
            instructions: content.instructions,
            tools: content.tools,
            prompts: content.prompts,
            resources: content.resources,
            resource_templates: content.resource_templates,
            content_sha256: String::new(),
            approval,
            sha256: String::new(),
        };
        lock.content_sha256 = lock.compute_content_sha256();
        lock.sha256 = lock.compute_sha256();
        lock
    }

    /// What this lock approved, in comparable form.
    pub fn content(&self) -> Content {
        Content {
            server_info: self.server_info.clone(),
            era: self.era,
            protocol_version: self.protocol_version.clone(),
            instructions: self.instructions.clone(),
            tools: self.tools.clone(),
            prompts: self.prompts.clone(),
            resources: self.resources.clone(),
            resource_templates: self.resource_templates.clone(),
        }
    }

    /// The item lists with their kinds.
    pub fn lists(&self) -> [(ItemKind, &[LockedItem]); 4] {
        [
            (ItemKind::Tool, &self.tools),
            (ItemKind::Prompt, &self.prompts),
            (ItemKind::Resource, &self.resources),
            (ItemKind::ResourceTemplate, &self.resource_templates),
        ]
    }

    fn value_without(&self, drop: &[&str]) -> Value {
        let mut v = serde_json::to_value(self).unwrap_or(Value::Null);
        if let Some(m) = v.as_object_mut() {
            for k in drop {
                m.remove(*k);
            }
        }
        v
    }

    /// sha256 over everything except the approval and the two aggregate hashes.
    pub fn compute_content_sha256(&self) -> String {
        hash_value(&self.value_without(&["approval", "contentSha256", "sha256"]))
    }

    /// sha256 over everything except `sha256` itself.
    pub fn compute_sha256(&self) -> String {
        hash_value(&self.value_without(&["sha256"]))
    }

    /// Replace the launch spec and recompute the hashes that cover it.
    pub fn with_launch(mut self, launch: Option<LaunchSpec>) -> Lockfile {
        self.launch_sha256 = launch.as_ref().map(LaunchSpec::sha256);
        self.launch = launch;
        self.content_sha256 = self.compute_content_sha256();
        self.sha256 = self.compute_sha256();
        self
    }

    /// Replace the approval and recompute the aggregate hash.
    pub fn with_approval(mut self, approval: Approval) -> Lockfile {
        self.approval = approval;
        self.sha256 = self.compute_sha256();
        self
    }
}

/// The JSON member name of an item list.
pub fn list_name(kind: ItemKind) -> &'static str {
    match kind {
        ItemKind::Tool => "tools",
        ItemKind::Prompt => "prompts",
        ItemKind::Resource => "resources",
        ItemKind::ResourceTemplate => "resourceTemplates",
        ItemKind::Instructions => "instructions",
    }
}

/// The word for one item of a kind, for messages.
pub fn kind_word(kind: ItemKind) -> &'static str {
    match kind {
        ItemKind::Tool => "tool",
        ItemKind::Prompt => "prompt",
        ItemKind::Resource => "resource",
        ItemKind::ResourceTemplate => "resource template",
        ItemKind::Instructions => "instructions",
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use serde_json::json;
    use std::path::Path;

    /// A small snapshot with two tools (one annotated), shared by the lock tests.
    pub(crate) fn snap() -> ServerSnapshot {
        ServerSnapshot {
            server: "demo".into(),
            server_info: Some(json!({"name": "demo", "version": "1.0.0"})),
            era: Some(Era::Modern),
            protocol_version: Some("2026-07-28".into()),
            instructions: Some("Be nice.".into()),
            tools: vec![
                json!({"name": "b", "description": "B", "inputSchema": {"type": "object"},
                       "annotations": {"readOnlyHint": true}}),
                json!({"name": "a", "description": "A", "inputSchema": {"type": "object"}}),
            ],
            ..Default::default()
        }
    }

    #[test]
    fn items_are_sorted_and_annotations_hashed_apart() {
        let l = Lockfile::from_snapshot(&snap(), None, Approval::new("me", "2026-01-01T00:00:00Z"));
        assert_eq!(l.tools[0].name, "a");
        assert_eq!(l.tools[1].name, "b");
        assert!(l.tools[1].definition.get("annotations").is_none());
        assert_eq!(l.tools[1].annotations, Some(json!({"readOnlyHint": true})));
        assert_eq!(
            l.tools[1].sha256,
            hash_value(
                &json!({"name": "b", "description": "B", "inputSchema": {"type": "object"}})
            )
        );
        assert!(l.tools[0].annotations_sha256.is_none());
        l.verify(Path::new("x")).unwrap();
        let back = Lockfile::from_json_str(&l.to_pretty_json(), Path::new("x")).unwrap();
        assert_eq!(back, l);
    }

    #[test]
    fn launch_spec_keeps_names_not_values() {
        let spec = ServerSpec {
            name: "gh".into(),
            host: crate::model::host::Host::CommandLine,
            origin: None,
            locations: Default::default(),
            transport: Transport::Stdio {
                command: "npx".into(),
                args: vec!["-y".into(), "pkg@1.2.3".into()],
                env: [("GITHUB_TOKEN".to_string(), "ghp_secret".to_string())].into(),
                cwd: None,
            },
            settings: Default::default(),
            duplicate_keys: Vec::new(),
        };
        let l = LaunchSpec::from_spec(&spec);
        let text = serde_json::to_string(&l).unwrap();
        assert!(
            text.contains("GITHUB_TOKEN") && !text.contains("ghp_secret"),
            "{text}"
        );
        let http = ServerSpec {
            transport: Transport::Http {
                url: "https://user:pw@example.test/mcp?api_key=abc&v=2#x".into(),
                headers: [("Authorization".to_string(), "Bearer t".to_string())].into(),
            },
            ..spec
        };
        let l = LaunchSpec::from_spec(&http);
        assert_eq!(
            l,
            LaunchSpec::Http {
                url: "https://example.test/mcp?api_key=REDACTED&v=2#x".into(),
                header_names: vec!["authorization".into()],
            }
        );
    }
}
