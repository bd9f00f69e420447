//! SARIF 2.1.0 output (`--format sarif`) for GitHub code scanning and other SARIF consumers.
//!
//! One run; `tool.driver.rules` documents every rule the report carries (plus a minimal
//! descriptor for any rule a finding uses that the catalog does not know). Results point at the
//! config entry that launches the server (the exact field when known, else the entry; else the
//! snapshot file) and name the JSON Pointer of definition findings in the message.
//! `partialFingerprints` are [`crate::model::fingerprint`]s — never line numbers or an item's
//! position — so alerts survive edits elsewhere in the file.

use std::path::{Component, Path};

use serde::Serialize;
use serde_json::{Value, json};

use super::model::ScanReport;
use super::table::item_label;
use super::{RenderOptions, Renderer};
use crate::model::finding::{Confidence, Finding, RuleMeta, Severity};
use crate::model::spec::Origin;

const SCHEMA: &str = "https://json.schemastore.org/sarif-2.1.0.json";

/// `--format sarif`: SARIF 2.1.0.
#[derive(Debug, Clone, Copy)]
pub struct SarifFormat;

impl Renderer for SarifFormat {
    fn render(&self, report: &ScanReport, _opts: &RenderOptions) -> String {
        render(report)
    }
}

/// Render the report as SARIF 2.1.0 (pretty JSON, trailing newline).
pub fn render(report: &ScanReport) -> String {
    let mut s = serde_json::to_string_pretty(&log(report)).unwrap_or_else(|_| "{}".into());
    s.push('\n');
    crate::model::escape::json_text(s)
}

/// The SARIF log as a value.
pub fn to_value(report: &ScanReport) -> Value {
    serde_json::to_value(log(report)).unwrap_or(Value::Null)
}

// Typed results (the bulk of a large log) serialize without building a value tree.

#[derive(Serialize)]
struct Log<'a> {
    #[serde(rename = "$schema")]
    schema: &'static str,
    version: &'static str,
    runs: [Run<'a>; 1],
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Run<'a> {
    tool: Value,
    column_kind: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    original_uri_base_ids: Option<Value>,
    /// With `--no-sandbox`: one invocation whose notification says the servers ran unconfined.
    #[serde(skip_serializing_if = "Option::is_none")]
    invocations: Option<Value>,
    results: Vec<SarifResult<'a>>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct SarifResult<'a> {
    rule_id: &'a str,
    rule_index: usize,
    level: &'static str,
    message: Message,
    locations: [ResultLocation; 1],
    partial_fingerprints: Fingerprints,
    properties: ResultProperties<'a>,
}

#[derive(Serialize)]
struct Message {
    text: String,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct ResultLocation {
    #[serde(skip_serializing_if = "Option::is_none")]
    physical_location: Option<PhysicalLocation>,
    logical_locations: [LogicalLocation; 1],
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct PhysicalLocation {
    artifact_location: Artifact,
    region: Region,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Artifact {
    uri: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    uri_base_id: Option<&'static str>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Region {
    start_line: u32,
    start_column: u32,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct LogicalLocation {
    fully_qualified_name: String,
    kind: &'static str,
}

#[derive(Serialize)]
struct Fingerprints {
    #[serde(rename = "mcpvet/v1")]
    v1: String,
}

#[derive(Serialize)]
struct ResultProperties<'a> {
    severity: Severity,
    confidence: Confidence,
    #[serde(rename = "security-severity")]
    security_severity: &'static str,
    server: &'a str,
    pointer: Option<&'a str>,
    control: &'static str,
}

fn log(report: &ScanReport) -> Log<'_> {
    let rules = rule_list(report);
    let results: Vec<SarifResult<'_>> = report
        .sorted_findings()
        .into_iter()
        .map(|f| result(report, &rules, f))
        .collect();
    let mut tool = json!({
        "driver": {
            "name": report.tool.name,
            "version": report.tool.version,
            "semanticVersion": report.tool.version,
            "rules": rules.iter().map(rule_descriptor).collect::<Vec<_>>(),
        }
    });
    if let Some(uri) = &report.tool.information_uri {
        tool["driver"]["informationUri"] = json!(uri);
    }
    let original_uri_base_ids = report
        .root
        .as_deref()
        .filter(|r| r.is_absolute())
        .map(|root| json!({"SRCROOT": {"uri": dir_uri(root)}}));
    Log {
        schema: SCHEMA,
        version: "2.1.0",
        runs: [Run {
            tool,
            column_kind: "unicodeCodePoints",
            original_uri_base_ids,
            invocations: invocations(report),
            results,
        }],
    }
}

/// The run's invocation, when there is something to say about it: every server that could not
/// be probed (an `error` notification each; the run was not successful, exit 3) and the
/// `--no-sandbox` warning.
fn invocations(report: &ScanReport) -> Option<Value> {
    let mut notes: Vec<Value> = report
        .servers
        .iter()
        .filter_map(|s| {
            let error = s.error.as_deref()?;
            Some(json!({
                "level": "error",
                "message": {"text": crate::model::escape::sanitize(&format!(
                    "{} could not be probed: {}",
                    s.name,
                    crate::model::escape::clip(error, 4 * crate::model::escape::MAX_SHOWN_BYTES)
                ))},
                "descriptor": {"id": "probe-failed"},
                "properties": {"server": s.name},
            }))
        })
        .collect();
    let failed = !notes.is_empty();
    let notice = super::unsandboxed_notice(&report.unsandboxed);
    if let Some(notice) = &notice {
        notes.push(json!({
            "level": "warning",
            "message": {"text": notice},
            "descriptor": {"id": "no-sandbox"},
        }));
    }
    if notes.is_empty() {
        return None;
    }
    let mut invocation = json!({
        "executionSuccessful": !failed,
        "toolExecutionNotifications": notes,
    });
    if notice.is_some() {
        invocation["properties"] = json!({"sandbox": false, "unsandboxed": report.unsandboxed});
    }
    Some(json!([invocation]))
}

/// The rules to describe: those the report documents, plus a stub for any rule id a finding
/// uses that has no documentation, so every `ruleIndex` resolves.
fn rule_list(report: &ScanReport) -> Vec<RuleMeta> {
    let mut rules = report.rules.clone();
    for f in &report.findings {
        if !rules.iter().any(|r| r.id == f.rule) {
            rules.push(RuleMeta {
                id: f.rule.clone(),
                family: "unknown".into(),
                summary: format!("Findings of rule {}.", f.rule),
                why: "This rule has no documentation in this build.".into(),
                example: String::new(),
                default_severity: f.severity,
                default_confidence: f.confidence,
                control: f.control,
            });
        }
    }
    rules.sort_by(|a, b| a.id.cmp(&b.id));
    rules.dedup_by(|a, b| a.id == b.id);
    rules
}

/// GitHub's `security-severity`: a score 0.0–10.0 as a string (≥9 critical, ≥7 high, ≥4 medium).
pub fn security_severity(s: Severity) -> &'static str {
    match s {
        Severity::Critical => "9.5",
        Severity::High => "8.0",
        Severity::Medium => "5.5",
        Severity::Low => "3.0",
        Severity::Info => "1.0",
    }
}

/// SARIF `level` for a severity.
pub fn level(s: Severity) -> &'static str {
    match s {
        Severity::Critical | Severity::High => "error",
        Severity::Medium => "warning",
        Severity::Low | Severity::Info => "note",
    }
}

fn precision(c: Confidence) -> &'static str {
    match c {
        Confidence::High => "high",
        Confidence::Medium => "medium",
        Confidence::Low => "low",
    }
}

/// `hidden-instructions` → `HiddenInstructions`.
/// The rule's SARIF `name`: the id in PascalCase, which SARIF requires to differ from the id
/// (ignoring case), so a one-word id gets a suffix.
fn rule_name(id: &str) -> String {
    let name = pascal(id);
    if name.eq_ignore_ascii_case(id) {
        format!("{name}Detected")
    } else {
        name
    }
}

fn pascal(id: &str) -> String {
    id.split(['-', '_'])
        .map(|w| {
            let mut c = w.chars();
            match c.next() {
                Some(first) => first.to_ascii_uppercase().to_string() + c.as_str(),
                None => String::new(),
            }
        })
        .collect()
}

fn sentence(s: &str) -> String {
    let t = s.trim();
    if t.ends_with(['.', '!', '?']) {
        t.to_owned()
    } else {
        format!("{t}.")
    }
}

fn rule_descriptor(r: &RuleMeta) -> Value {
    let mut md = format!(
        "**{}** ({} rule, default severity {}, confidence {})\n\n{}\n\n**Why it matters.** {}\n\n",
        r.id, r.family, r.default_severity, r.default_confidence, r.summary, r.why
    );
    if !r.example.is_empty() {
        md.push_str(&format!("**Example.**\n\n```\n{}\n```\n\n", r.example));
    }
    md.push_str(&format!(
        "**Control ({}).** {}\n\nRun `mcpvet rules explain {}` for details.",
        r.control.id(),
        r.control.advice(),
        r.id
    ));
    let text = format!(
        "{} Why it matters: {} Control: {}",
        sentence(&r.summary),
        sentence(&r.why),
        r.control.advice()
    );
    json!({
        "id": r.id,
        "name": rule_name(&r.id),
        "shortDescription": {"text": sentence(super::text::headline(&r.summary))},
        "fullDescription": {"text": sentence(&format!("{} {}", r.summary, r.why))},
        "help": {"text": text, "markdown": md},
        "defaultConfiguration": {"level": level(r.default_severity)},
        "properties": {
            "security-severity": security_severity(r.default_severity),
            "precision": precision(r.default_confidence),
            "tags": ["security", "mcp", r.family],
        },
    })
}

fn result<'a>(report: &'a ScanReport, rules: &[RuleMeta], f: &'a Finding) -> SarifResult<'a> {
    let rule_index = rules.iter().position(|r| r.id == f.rule).unwrap_or(0);
    let mut msg = format!("[{}] {}", f.server, sentence(&f.message));
    if let Some(item) = item_label(f) {
        msg.push_str(&format!(" Item: {item}."));
    }
    if let Some(p) = &f.location.pointer {
        msg.push_str(&format!(
            " JSON Pointer: {p} (in the server's definitions)."
        ));
    }
    if let Some(ev) = &f.evidence {
        msg.push_str(&format!(
            " Evidence: \"{}\".",
            super::text::truncate(ev, 600)
        ));
    }
    msg.push_str(&format!(" Fix: {}", f.control.advice()));

    let server = report.server(&f.server);
    let origin: Option<&Origin> = f.location.config.as_ref().or_else(|| {
        server
            .and_then(|s| s.spec.as_ref())
            .and_then(|s| s.origin.as_ref())
    });
    let physical_location = if let Some(o) = origin {
        Some(PhysicalLocation {
            artifact_location: artifact(report, &o.file),
            region: Region {
                start_line: o.line.max(1),
                start_column: o.column.max(1),
            },
        })
    } else {
        server
            .and_then(|s| s.snapshot_path.as_ref())
            .map(|p| PhysicalLocation {
                artifact_location: artifact(report, p),
                region: Region {
                    start_line: 1,
                    start_column: 1,
                },
            })
    };
    SarifResult {
        rule_id: &f.rule,
        rule_index,
        level: level(f.severity),
        message: Message {
            text: crate::model::escape::line(&msg),
        },
        locations: [ResultLocation {
            physical_location,
            logical_locations: [LogicalLocation {
                fully_qualified_name: crate::model::escape::line(&logical_name(f)),
                kind: if f.item.is_some() { "member" } else { "module" },
            }],
        }],
        partial_fingerprints: Fingerprints {
            v1: report.fingerprinter().of(f),
        },
        properties: ResultProperties {
            severity: f.severity,
            confidence: f.confidence,
            security_severity: security_severity(f.severity),
            server: &f.server,
            pointer: f.location.pointer.as_deref(),
            control: f.control.id(),
        },
    }
}

fn logical_name(f: &Finding) -> String {
    match &f.item {
        Some(i) if !i.name.is_empty() => format!("{}/{}", f.server, i.name),
        _ => f.server.clone(),
    }
}

/// An `artifactLocation` for a path: relative to the report root when it lies inside it
/// (or is already relative), else an absolute `file://` URI.
fn artifact(report: &ScanReport, path: &Path) -> Artifact {
    let base = report
        .root
        .as_deref()
        .is_some_and(Path::is_absolute)
        .then_some("SRCROOT");
    if path.is_relative() {
        return Artifact {
            uri: rel_uri(path),
            uri_base_id: base,
        };
    }
    if let Some(rel) = report.root.as_ref().and_then(|r| path.strip_prefix(r).ok()) {
        return Artifact {
            uri: rel_uri(rel),
            uri_base_id: base,
        };
    }
    Artifact {
        uri: file_uri(path),
        uri_base_id: None,
    }
}

fn rel_uri(p: &Path) -> String {
    let parts: Vec<String> = p
        .components()
        .filter_map(|c| match c {
            Component::Normal(s) => Some(percent(&s.to_string_lossy())),
            Component::ParentDir => Some("..".into()),
            _ => None,
        })
        .collect();
    parts.join("/")
}

fn file_uri(p: &Path) -> String {
    format!("file:///{}", rel_uri(p))
}

fn dir_uri(p: &Path) -> String {
    let mut s = file_uri(p);
    if !s.ends_with('/') {
        s.push('/');
    }
    s
}

fn percent(s: &str) -> String {
    let mut out = String::new();
    for b in s.bytes() {
        if b.is_ascii_alphanumeric() || b"-._~@+,=".contains(&b) {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::PathBuf;

    #[test]
    fn uris_are_relative_inside_the_root_and_encoded() {
        let mut r = ScanReport::new(vec![], vec![], Severity::High);
        assert_eq!(
            artifact(&r, Path::new("examples/my mcp.json")).uri,
            "examples/my%20mcp.json"
        );
        r.root = Some(PathBuf::from("/repo"));
        let a = artifact(&r, Path::new("/repo/.vscode/mcp.json"));
        assert_eq!(a.uri, ".vscode/mcp.json");
        assert_eq!(a.uri_base_id, Some("SRCROOT"));
        let a = artifact(&r, Path::new("/home/u/.claude.json"));
        assert_eq!(a.uri, "file:///home/u/.claude.json");
        assert_eq!(a.uri_base_id, None);
    }

    #[test]
    fn names_and_scores() {
        assert_eq!(pascal("hidden-instructions"), "HiddenInstructions");
        assert_eq!(security_severity(Severity::High), "8.0");
        assert_eq!(level(Severity::Medium), "warning");
    }
}
