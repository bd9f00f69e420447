//! Lockfile v1: the model, how it is built from a snapshot, read with hash verification,
//! rendered (pretty, sorted, stable) and written atomically; and [`approve`], the decision
//! behind `mcpvet lock`.
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
//!
//! Re-locking an unchanged server keeps the existing approval, so the file stays
//! byte-identical; `--force` records a new approval.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use super::canon::{cmp_utf16, hash_value, sha256_hex, sorted_members};
use crate::model::finding::{Finding, ItemKind, ItemRef, Severity};
use crate::model::snapshot::{Era, ServerSnapshot};
use crate::model::spec::{ServerSpec, Transport};

/// The lock format version this build reads and writes.
pub const LOCKFILE_VERSION: u32 = 1;

/// Why a lockfile could not be read, verified, written or approved.
#[derive(Debug, thiserror::Error)]
pub enum LockError {
    #[error("cannot read lock {path}: {source}")]
    Io {
        path: String,
        #[source]
        source: std::io::Error,
    },
    #[error("cannot write lock {path}: {source} (check that the lock directory is writable)")]
    Write {
        path: String,
        #[source]
        source: std::io::Error,
    },
    #[error(
        "lock {path} is not valid JSON at line {line}, column {column}: {message} (restore it from version control or re-create it with `mcpvet lock --force`)"
    )]
    Parse {
        path: String,
        line: usize,
        column: usize,
        message: String,
    },
    #[error(
        "lock {path} has lockfileVersion {found}; this mcpvet reads version {LOCKFILE_VERSION} (upgrade mcpvet, or re-create the lock)"
    )]
    Version { path: String, found: String },
    #[error(
        "lock {path} does not match the lockfile v1 format: {message} (see lockfiles/README.md)"
    )]
    Shape { path: String, message: String },
    #[error(
        "tampered or hand-edited lock {path}: {what} (restore it from version control, or review the server and re-create it with `mcpvet lock --force`)"
    )]
    Tampered { path: String, what: String },
    #[error(
        "refusing to lock {server}: {count} finding(s) at or above {fail_on}: {summary} (fix them, or approve anyway with --accept \"reason\", which is recorded in the lock)"
    )]
    Refused {
        server: String,
        count: usize,
        fail_on: Severity,
        summary: String,
    },
}

/// The normalised launch spec: what runs, without any secret values.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "transport", rename_all = "lowercase", deny_unknown_fields)]
pub enum LaunchSpec {
    Stdio {
        command: String,
        args: Vec<String>,
        /// Names of the environment variables the config sets; never their values.
        #[serde(rename = "envNames")]
        env_names: Vec<String>,
        cwd: Option<String>,
    },
    Http {
        /// The URL with any user-info removed and secret-looking query values redacted.
        url: String,
        /// Lower-cased names of the headers the config sets; never their values.
        #[serde(rename = "headerNames")]
        header_names: Vec<String>,
    },
}

impl LaunchSpec {
    /// Normalise a server spec's transport.
    pub fn from_spec(spec: &ServerSpec) -> LaunchSpec {
        match &spec.transport {
            Transport::Stdio {
                command,
                args,
                env,
                cwd,
            } => LaunchSpec::Stdio {
                command: command.clone(),
                args: args.clone(),
                env_names: env.keys().cloned().collect(),
                cwd: cwd.as_ref().map(|p| p.display().to_string()),
            },
            Transport::Http { url, headers } => {
                let mut names: Vec<String> =
                    headers.keys().map(|k| k.to_ascii_lowercase()).collect();
                names.sort();
                names.dedup();
                LaunchSpec::Http {
                    url: crate::model::redact::url_for_lock(url),
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
            message: f.message.clone(),
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
    /// Hash and sort what a snapshot shows.
    pub fn from_snapshot(s: &ServerSnapshot) -> Content {
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

    /// Check every stored hash against the stored content. `path` names the file in errors.
    pub fn verify(&self, path: &Path) -> Result<(), LockError> {
        let tampered = |what: String| LockError::Tampered {
            path: path.display().to_string(),
            what,
        };
        for (kind, items) in self.lists() {
            let list = list_name(kind);
            for item in items {
                let key = item_key(kind, &item.definition);
                if key != item.name {
                    return Err(tampered(format!(
                        "{list} entry `{}` holds a definition named `{key}`",
                        item.name
                    )));
                }
                let got = hash_value(&item.definition);
                if got != item.sha256 {
                    return Err(tampered(format!(
                        "the definition of {} `{}` does not match its sha256 (stored {}, content hashes to {got})",
                        kind_word(kind),
                        item.name,
                        item.sha256
                    )));
                }
                let got_a = item.annotations.as_ref().map(hash_value);
                if got_a != item.annotations_sha256 {
                    return Err(tampered(format!(
                        "the annotations of {} `{}` do not match annotationsSha256 (stored {}, content hashes to {})",
                        kind_word(kind),
                        item.name,
                        item.annotations_sha256.as_deref().unwrap_or("null"),
                        got_a.as_deref().unwrap_or("null")
                    )));
                }
            }
        }
        let got_i = self
            .instructions
            .as_ref()
            .map(|i| hash_value(&Value::String(i.clone())));
        if got_i != self.instructions_sha256 {
            return Err(tampered(
                "the instructions do not match instructionsSha256".into(),
            ));
        }
        if self.launch.as_ref().map(LaunchSpec::sha256) != self.launch_sha256 {
            return Err(tampered(
                "the launch spec does not match launchSha256".into(),
            ));
        }
        let got = self.compute_content_sha256();
        if got != self.content_sha256 {
            return Err(tampered(format!(
                "contentSha256 is {} but the content hashes to {got} (a field outside the items was changed: server, serverInfo, era, protocolVersion or an item list)",
                self.content_sha256
            )));
        }
        let got = self.compute_sha256();
        if got != self.sha256 {
            return Err(tampered(format!(
                "sha256 is {} but the lock hashes to {got} (the approval was changed)",
                self.sha256
            )));
        }
        Ok(())
    }

    /// Parse and verify lock text. `path` names the file in errors.
    pub fn from_json_str(text: &str, path: &Path) -> Result<Lockfile, LockError> {
        let shown = path.display().to_string();
        let value: Value = serde_json::from_str(text).map_err(|e| LockError::Parse {
            path: shown.clone(),
            line: e.line(),
            column: e.column(),
            message: e.to_string(),
        })?;
        match value.get("lockfileVersion") {
            Some(v) if v.as_u64() == Some(u64::from(LOCKFILE_VERSION)) => {}
            Some(v) => {
                return Err(LockError::Version {
                    path: shown,
                    found: v.to_string(),
                });
            }
            None => {
                return Err(LockError::Shape {
                    path: shown,
                    message: "`lockfileVersion` is missing".into(),
                });
            }
        }
        let lock: Lockfile = serde_json::from_value(value).map_err(|e| LockError::Shape {
            path: shown.clone(),
            message: e.to_string(),
        })?;
        lock.verify(path)?;
        Ok(lock)
    }

    /// Read and verify a lockfile: a lock that does not parse, or whose hashes do not match
    /// its content, is an error.
    pub fn read(path: impl AsRef<Path>) -> Result<Lockfile, LockError> {
        let path = path.as_ref();
        let text = std::fs::read_to_string(path).map_err(|source| LockError::Io {
            path: path.display().to_string(),
            source,
        })?;
        Self::from_json_str(&text, path)
    }

    /// Read the lock for `server` from `dir`, or `None` when there is none.
    pub fn read_for(dir: &Path, server: &str) -> Result<Option<Lockfile>, LockError> {
        let path = path_for(dir, server);
        if !path.exists() {
            return Ok(None);
        }
        let lock = Self::read(&path)?;
        if lock.server != server {
            return Err(LockError::Shape {
                path: path.display().to_string(),
                message: format!(
                    "it is the lock of `{}`, not of `{server}` (was it copied or renamed?)",
                    lock.server
                ),
            });
        }
        Ok(Some(lock))
    }

    /// Pretty JSON with keys sorted (RFC 8785 order), two-space indent, trailing newline.
    pub fn to_pretty_json(&self) -> String {
        let v = sort_keys(&serde_json::to_value(self).unwrap_or(Value::Null));
        let mut s = serde_json::to_string_pretty(&v).unwrap_or_else(|_| "{}".into());
        s.push('\n');
        s
    }

    /// Write `dir/<server>.lock.json` atomically (temporary file in `dir`, then rename).
    pub fn write_atomic(&self, dir: impl AsRef<Path>) -> Result<PathBuf, LockError> {
        let dir = dir.as_ref();
        let path = path_for(dir, &self.server);
        let werr = |source: std::io::Error| LockError::Write {
            path: path.display().to_string(),
            source,
        };
        crate::model::fsio::write_atomic(&path, self.to_pretty_json().as_bytes()).map_err(werr)?;
        Ok(path)
    }
}

/// A copy of `v` whose objects list their members in RFC 8785 order.
pub fn sort_keys(v: &Value) -> Value {
    match v {
        Value::Object(map) => {
            let mut out = Map::new();
            for (k, item) in sorted_members(map) {
                out.insert(k.clone(), sort_keys(item));
            }
            Value::Object(out)
        }
        Value::Array(items) => Value::Array(items.iter().map(sort_keys).collect()),
        other => other.clone(),
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

/// `dir/<server>.lock.json`. Names are sanitised to `[A-Za-z0-9._-]`; a name that needed
/// changing gets a short hash suffix so two different names never share a file.
pub fn path_for(dir: impl AsRef<Path>, server_name: &str) -> PathBuf {
    let mut clean: String = server_name
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-') {
                c
            } else {
                '_'
            }
        })
        .collect();
    let trimmed = clean.trim_start_matches('.').to_owned();
    clean = if trimmed.len() > 100 {
        trimmed[..100].to_owned()
    } else {
        trimmed
    };
    if clean != server_name || clean.is_empty() {
        let h = sha256_hex(server_name.as_bytes());
        clean = if clean.is_empty() {
            format!("server-{}", &h[..8])
        } else {
            format!("{clean}-{}", &h[..8])
        };
    }
    dir.as_ref().join(format!("{clean}.lock.json"))
}

/// Options of an approval (`mcpvet lock`).
#[derive(Debug, Clone)]
pub struct ApproveOptions {
    pub by: String,
    /// RFC 3339 time to record.
    pub at: String,
    pub note: Option<String>,
    /// `--accept "reason"`: approve despite gate findings, recording them with this reason.
    pub accept: Option<String>,
    /// The gate: findings at or above this severity block the approval.
    pub fail_on: Severity,
    /// Record a new approval even when nothing changed, and replace an unreadable lock.
    pub force: bool,
}

/// What [`approve`] did.
#[derive(Debug, Clone, PartialEq)]
pub enum LockOutcome {
    /// A new or changed lock was written.
    Written {
        path: PathBuf,
        lock: Lockfile,
        /// The content hash of the lock it replaced, if any.
        previous: Option<String>,
        /// The previous file was unreadable or tampered with and was replaced (`--force`).
        replaced_invalid: bool,
    },
    /// Nothing changed: the existing lock (and its approval) stays as it is.
    Unchanged { path: PathBuf, lock: Lockfile },
}

/// Approve one server: gate its findings, then write its lock to `dir` unless an existing,
/// valid lock already records the same content.
///
/// `findings` are the audit's findings (any server; only this server's count). A finding an
/// existing lock of identical content already accepted does not block again.
pub fn approve(
    dir: &Path,
    snapshot: &ServerSnapshot,
    spec: Option<&ServerSpec>,
    findings: &[Finding],
    opts: &ApproveOptions,
) -> Result<LockOutcome, LockError> {
    let mut candidate = Lockfile::from_snapshot(snapshot, spec, Approval::new(&opts.by, &opts.at));
    let path = path_for(dir, &candidate.server);
    let mut replaced_invalid = false;
    let existing = if path.exists() {
        match Lockfile::read_for(dir, &candidate.server).and_then(|l| {
            l.ok_or_else(|| LockError::Io {
                path: path.display().to_string(),
                source: std::io::Error::from(std::io::ErrorKind::NotFound),
            })
        }) {
            Ok(l) => Some(l),
            Err(e @ (LockError::Io { .. } | LockError::Write { .. })) => return Err(e),
            Err(_) if opts.force => {
                replaced_invalid = true;
                None
            }
            Err(e) => return Err(e),
        }
    } else {
        None
    };
    // Locking from a snapshot file says nothing about the launch: keep the approved one.
    if let (None, Some(e)) = (spec, existing.as_ref()) {
        if e.launch.is_some() {
            candidate = candidate.with_launch(e.launch.clone());
        }
    }
    let same_content = existing
        .as_ref()
        .filter(|e| e.content_sha256 == candidate.content_sha256);
    let server = candidate.server.clone();
    let gate: Vec<&Finding> = findings
        .iter()
        .filter(|f| f.server == server || f.server == snapshot.server)
        .filter(|f| f.severity >= opts.fail_on)
        .filter(|f| !same_content.is_some_and(|e| e.approval.covers(f)))
        .collect();
    if let (Some(existing), false, true) = (same_content, opts.force, gate.is_empty()) {
        return Ok(LockOutcome::Unchanged {
            path,
            lock: existing.clone(),
        });
    }
    let accepted = if gate.is_empty() {
        Vec::new()
    } else if let Some(reason) = &opts.accept {
        let mut v: Vec<AcceptedFinding> = gate
            .iter()
            .map(|f| AcceptedFinding::from_finding(f, reason))
            .collect();
        v.sort_by(|a, b| {
            (&a.rule, &a.item, &a.pointer, &a.message)
                .cmp(&(&b.rule, &b.item, &b.pointer, &b.message))
        });
        v.dedup();
        v
    } else {
        let mut names: Vec<String> = gate
            .iter()
            .map(|f| match &f.item {
                Some(i) => format!("{} ({} `{}`)", f.rule, kind_word(i.kind), i.name),
                None => f.rule.clone(),
            })
            .collect();
        names.sort();
        names.dedup();
        return Err(LockError::Refused {
            server,
            count: gate.len(),
            fail_on: opts.fail_on,
            summary: names.join(", "),
        });
    };
    // Acceptances the previous approval recorded for this same content stay recorded.
    let mut all_accepted = same_content.map_or_else(Vec::new, |e| e.approval.accepted.clone());
    for a in accepted {
        if !all_accepted.contains(&a) {
            all_accepted.push(a);
        }
    }
    candidate = candidate.with_approval(Approval {
        by: opts.by.clone(),
        at: opts.at.clone(),
        note: opts.note.clone(),
        accepted: all_accepted,
    });
    let previous = existing.map(|e| e.content_sha256);
    let path = candidate.write_atomic(dir)?;
    Ok(LockOutcome::Written {
        path,
        lock: candidate,
        previous,
        replaced_invalid,
    })
}

/// Format seconds since the Unix epoch as RFC 3339 UTC (`2026-07-28T12:00:00Z`).
pub fn rfc3339_from_unix(secs: i64) -> String {
    let days = secs.div_euclid(86_400);
    let rem = secs.rem_euclid(86_400);
    // Civil-from-days (Howard Hinnant's algorithm).
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let y = yoe + era * 400;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = if m <= 2 { y + 1 } else { y };
    format!(
        "{y:04}-{m:02}-{d:02}T{:02}:{:02}:{:02}Z",
        rem / 3600,
        rem % 3600 / 60,
        rem % 60
    )
}

/// Whether `s` is an RFC 3339 date-time (`YYYY-MM-DDTHH:MM:SS[.frac](Z|±HH:MM)`).
pub fn is_rfc3339(s: &str) -> bool {
    let b = s.as_bytes();
    let digits =
        |r: std::ops::Range<usize>| b.get(r).is_some_and(|x| x.iter().all(u8::is_ascii_digit));
    if b.len() < 20
        || !digits(0..4)
        || b[4] != b'-'
        || !digits(5..7)
        || b[7] != b'-'
        || !digits(8..10)
        || !matches!(b[10], b'T' | b't')
        || !digits(11..13)
        || b[13] != b':'
        || !digits(14..16)
        || b[16] != b':'
        || !digits(17..19)
    {
        return false;
    }
    let num = |r: std::ops::Range<usize>| s[r].parse::<u32>().unwrap_or(99);
    if !(1..=12).contains(&num(5..7))
        || !(1..=31).contains(&num(8..10))
        || num(11..13) > 23
        || num(14..16) > 59
        || num(17..19) > 60
    {
        return false;
    }
    let mut i = 19;
    if b[i] == b'.' {
        i += 1;
        let start = i;
        while i < b.len() && b[i].is_ascii_digit() {
            i += 1;
        }
        if i == start {
            return false;
        }
    }
    match &s[i..] {
        "Z" | "z" => true,
        off => {
            let o = off.as_bytes();
            o.len() == 6
                && matches!(o[0], b'+' | b'-')
                && o[1..3].iter().all(u8::is_ascii_digit)
                && o[3] == b':'
                && o[4..6].iter().all(u8::is_ascii_digit)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn snap() -> ServerSnapshot {
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
    fn tampering_is_detected_per_field() {
        let l = Lockfile::from_snapshot(&snap(), None, Approval::new("me", "2026-01-01T00:00:00Z"));
        let mut t = l.clone();
        t.tools[0].definition["description"] = json!("A!");
        let e = t.verify(Path::new("l.json")).unwrap_err().to_string();
        assert!(e.contains("tampered or hand-edited lock l.json"), "{e}");
        assert!(e.contains("tool `a`"), "{e}");
        let mut t = l.clone();
        t.approval.by = "mallory".into();
        let e = t.verify(Path::new("l.json")).unwrap_err().to_string();
        assert!(e.contains("approval"), "{e}");
        let mut t = l.clone();
        t.protocol_version = Some("2025-11-25".into());
        let e = t.verify(Path::new("l.json")).unwrap_err().to_string();
        assert!(e.contains("contentSha256"), "{e}");
        let mut t = l;
        t.tools[1].annotations = Some(json!({"readOnlyHint": false}));
        let e = t.verify(Path::new("l.json")).unwrap_err().to_string();
        assert!(e.contains("annotations of tool `b`"), "{e}");
    }

    #[test]
    fn launch_spec_keeps_names_not_values() {
        let spec = ServerSpec {
            name: "gh".into(),
            host: "cli".into(),
            origin: None,
            locations: Default::default(),
            transport: Transport::Stdio {
                command: "npx".into(),
                args: vec!["-y".into(), "pkg@1.2.3".into()],
                env: [("GITHUB_TOKEN".to_string(), "ghp_secret".to_string())].into(),
                cwd: None,
            },
            settings: Default::default(),
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

    #[test]
    fn path_for_sanitises_and_disambiguates() {
        assert_eq!(
            path_for("d", "ci-insights"),
            Path::new("d/ci-insights.lock.json")
        );
        let p = path_for("d", "../etc/passwd").display().to_string();
        assert!(
            p.starts_with("d/_etc_passwd-") && p.ends_with(".lock.json"),
            "{p}"
        );
        assert_ne!(path_for("d", "a/b"), path_for("d", "a_b"));
        assert_ne!(path_for("d", "a/b"), path_for("d", "a:b"));
        let p = path_for("d", "").display().to_string();
        assert!(p.starts_with("d/server-"), "{p}");
    }

    #[test]
    fn rfc3339() {
        assert_eq!(rfc3339_from_unix(0), "1970-01-01T00:00:00Z");
        assert_eq!(rfc3339_from_unix(1_785_240_000), "2026-07-28T12:00:00Z");
        assert_eq!(rfc3339_from_unix(951_782_400), "2000-02-29T00:00:00Z");
        assert!(is_rfc3339("2026-07-28T12:00:00Z"));
        assert!(is_rfc3339("2026-07-28T12:00:00.123+02:00"));
        assert!(!is_rfc3339("2026-07-28 12:00"));
        assert!(!is_rfc3339("2026-13-28T12:00:00Z"));
        assert!(!is_rfc3339("yesterday"));
    }
}
