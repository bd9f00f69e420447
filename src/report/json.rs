//! JSON output, format version 1 (`--format json`), documented in `docs/json-v1.md`.
//!
//! The shape is public API: fields may be added in a minor release, never renamed or removed
//! without bumping `version`. Credential values never appear — only names and the variable a
//! value references.

use serde::Serialize;
use serde_json::{Value, json};

use super::model::{ScanReport, ServerOutcome, ServerReport};
use super::{RenderOptions, Renderer};
use crate::model::finding::{Confidence, Finding, ItemRef, Severity};
use crate::model::redact::url_for_report as redact_url;
use crate::model::secrets::env_reference;
use crate::model::spec::Origin;
use crate::model::spec::Transport;

/// The format version written in the `version` field.
pub const VERSION: u32 = 1;

/// `--format json`: JSON v1.
#[derive(Debug, Clone, Copy)]
pub struct JsonFormat;

impl Renderer for JsonFormat {
    fn render(&self, report: &ScanReport, _opts: &RenderOptions) -> String {
        render(report)
    }
}

/// Render the report as pretty JSON v1 (with a trailing newline).
pub fn render(report: &ScanReport) -> String {
    let mut buf = Vec::with_capacity(super::text_capacity(report));
    let s = match serde_json::to_writer_pretty(&mut buf, &document(report)) {
        Ok(()) => String::from_utf8(buf).unwrap_or_else(|_| "{}".into()),
        Err(_) => "{}".into(),
    };
    let mut s = s;
    s.push('\n');
    crate::model::escape::json_text(s)
}

/// The JSON v1 document as a value.
pub fn to_value(report: &ScanReport) -> Value {
    serde_json::to_value(document(report)).unwrap_or(Value::Null)
}

/// The document: small parts as values, findings (the bulk) as typed records.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Document<'a> {
    version: u32,
    tool: Value,
    fail_on: Severity,
    summary: Value,
    servers: Vec<Value>,
    findings: Findings<'a>,
    suppressed: &'a [super::model::Suppressed],
    warnings: &'a [String],
    /// Present only with `--no-sandbox`: `{"enabled": false, "unsandboxed": [names], "notice"}`.
    #[serde(skip_serializing_if = "Option::is_none")]
    sandbox: Option<Value>,
    #[serde(skip_serializing_if = "<[String]>::is_empty")]
    sources: &'a [String],
}

/// The findings, worst first, each written as it is reached: no list of records (and of
/// fingerprints) is built beside the findings.
struct Findings<'a> {
    sorted: Vec<&'a Finding>,
    fingerprints: crate::model::fingerprint::Fingerprinter<'a>,
}

impl Serialize for Findings<'_> {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeSeq;
        let mut seq = serializer.serialize_seq(Some(self.sorted.len()))?;
        for f in &self.sorted {
            seq.serialize_element(&finding(f, self.fingerprints.of(f)))?;
        }
        seq.end()
    }
}

#[derive(Serialize)]
struct FindingRecord<'a> {
    rule: &'a str,
    severity: Severity,
    confidence: Confidence,
    server: &'a str,
    item: Option<&'a ItemRef>,
    location: LocationRecord<'a>,
    message: &'a str,
    evidence: Option<&'a str>,
    control: ControlRecord,
    fingerprint: String,
}

#[derive(Serialize)]
struct LocationRecord<'a> {
    config: Option<&'a Origin>,
    pointer: Option<&'a str>,
}

#[derive(Serialize)]
struct ControlRecord {
    id: &'static str,
    advice: &'static str,
}

fn document(report: &ScanReport) -> Document<'_> {
    let c = report.counts(None);
    let gated = report.gated().count();
    let exit = super::exit_for(report) as u8;
    Document {
        version: VERSION,
        tool: json!({"name": report.tool.name, "version": report.tool.version}),
        fail_on: report.fail_on,
        summary: json!({
            "servers": report.servers.len(),
            "findings": severity_counts(&c),
            "atOrAboveGate": gated,
            "suppressed": report.suppressed.iter().map(|s| s.count).sum::<usize>(),
            "verdict": report.verdict(),
            "exitCode": exit,
        }),
        servers: report.servers.iter().map(|s| server(report, s)).collect(),
        findings: Findings {
            sorted: report.sorted_findings(),
            fingerprints: report.fingerprinter(),
        },
        suppressed: &report.suppressed,
        warnings: &report.warnings,
        sandbox: super::unsandboxed_notice(&report.unsandboxed).map(|notice| {
            json!({"enabled": false, "unsandboxed": report.unsandboxed, "notice": notice})
        }),
        sources: &report.sources,
    }
}

fn severity_counts(c: &[usize; 5]) -> Value {
    let mut m = serde_json::Map::new();
    for s in Severity::ALL.iter().rev() {
        m.insert(s.as_str().into(), json!(c[*s as usize]));
    }
    Value::Object(m)
}

fn server(report: &ScanReport, s: &ServerReport) -> Value {
    let spec = s.spec.as_ref();
    let (transport, credentials) = match spec.map(|x| &x.transport) {
        Some(Transport::Stdio {
            command,
            args,
            env,
            cwd,
        }) => (
            json!({"type": "stdio", "command": crate::model::redact::redact_field(None, command), "args": crate::model::redact::redacted_args(args), "cwd": cwd}),
            env.iter()
                .map(|(k, v)| credential(k, v))
                .collect::<Vec<_>>(),
        ),
        Some(Transport::Http { url, headers }) => (
            json!({"type": "http", "url": crate::model::redact::redact_field(None, &redact_url(url))}),
            headers
                .iter()
                .map(|(k, v)| {
                    let mut c = credential(k, v);
                    c["kind"] = json!("header");
                    c
                })
                .collect(),
        ),
        None => (Value::Null, Vec::new()),
    };
    let snap = s.snapshot.as_ref();
    let outcome = match report.outcome(s) {
        ServerOutcome::Passes => "pass",
        ServerOutcome::Fails => "fail",
        ServerOutcome::NotProbed => "not-probed",
    };
    json!({
        "name": s.name,
        "host": spec.map(|x| x.host.id()),
        "origin": spec.and_then(|x| x.origin.clone()),
        "runs": s.what_runs(),
        "transport": transport,
        "pinning": s.pinning,
        "credentials": credentials,
        "settings": spec.map(|x| x.settings.clone()).unwrap_or_default(),
        "serverInfo": snap.and_then(|x| x.server_info.clone()),
        "era": snap.and_then(|x| x.era),
        "protocolVersion": snap.and_then(|x| x.protocol_version.clone()),
        "counts": {
            "tools": s.item_counts().map_or(0, |c| c.0),
            "prompts": s.item_counts().map_or(0, |c| c.1),
            "resources": s.item_counts().map_or(0, |c| c.2),
        },
        "snapshotPath": s.snapshot_path,
        "lock": s.lock,
        "error": s.error,
        "findings": severity_counts(&report.counts(Some(&s.name))),
        "outcome": outcome,
        "decision": super::review::assess(report, &s.name).map(|a| a.decision),
    })
}

fn credential(name: &str, value: &str) -> Value {
    match env_reference(value) {
        Some(var) => json!({"name": name, "kind": "env", "from": var, "literal": false}),
        None => json!({"name": name, "kind": "env", "from": null, "literal": true}),
    }
}

fn finding(f: &Finding, fingerprint: String) -> FindingRecord<'_> {
    FindingRecord {
        rule: &f.rule,
        severity: f.severity,
        confidence: f.confidence,
        server: &f.server,
        item: f.item.as_ref(),
        location: LocationRecord {
            config: f.location.config.as_ref(),
            pointer: f.location.pointer.as_deref(),
        },
        message: &f.message,
        evidence: f.evidence.as_deref(),
        control: ControlRecord {
            id: f.control.id(),
            advice: f.control.advice(),
        },
        fingerprint,
    }
}
