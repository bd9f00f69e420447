//! The report model: everything the renderers need, built by the pipeline before rendering.
//!
//! The pipeline builds a [`ScanReport`] from the other stages (specs from `config`,
//! snapshots from the probe or saved files, findings from the audit after policy); the
//! renderers of `report` are pure functions over it. Nothing here does I/O.

use std::path::PathBuf;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::model::finding::{Finding, RuleMeta, Severity};
use crate::model::snapshot::ServerSnapshot;
use crate::model::spec::{ServerSpec, Transport};

/// The tool that wrote the report.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ToolInfo {
    pub name: String,
    pub version: String,
    /// Where to learn about the tool (SARIF `informationUri`): the package's `repository`
    /// or `homepage` from Cargo.toml, when set.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub information_uri: Option<String>,
}

impl Default for ToolInfo {
    fn default() -> Self {
        let uri = [env!("CARGO_PKG_REPOSITORY"), env!("CARGO_PKG_HOMEPAGE")]
            .into_iter()
            .find(|u| !u.is_empty())
            .map(str::to_owned);
        ToolInfo {
            name: env!("CARGO_PKG_NAME").to_owned(),
            version: env!("CARGO_PKG_VERSION").to_owned(),
            information_uri: uri,
        }
    }
}

/// Where a server stands against its lockfile.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum LockState {
    /// A lockfile exists and the server matches it.
    Locked,
    /// No lockfile exists for the server.
    Unlocked,
    /// A lockfile exists and the server no longer matches it.
    Drifted,
    /// Not checked (e.g. the server could not be probed, or locks were not consulted).
    #[default]
    NotApplicable,
}

impl LockState {
    pub fn as_str(self) -> &'static str {
        match self {
            LockState::Locked => "locked",
            LockState::Unlocked => "unlocked",
            LockState::Drifted => "drifted",
            LockState::NotApplicable => "n/a",
        }
    }
}

/// Whether what runs is pinned to exact bytes.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "kebab-case")]
pub enum Pinning {
    /// A package or image pinned to an exact version or digest (`pkg@1.2.3`, `image@sha256:…`).
    Pinned { reference: String },
    /// A package runner without an exact version (`npx -y pkg`, `pkg@latest`, `uvx pkg`).
    Unpinned { reference: String },
    /// A program already on the machine (a path or a command on `PATH`): pinned by whoever installed it.
    LocalCommand,
    /// A remote endpoint: the code is not under the team's control at all.
    Remote,
    /// Not known (no spec).
    #[default]
    Unknown,
}

impl Pinning {
    pub fn label(&self) -> String {
        match self {
            Pinning::Pinned { reference } => format!("pinned ({reference})"),
            Pinning::Unpinned { reference } => format!("NOT pinned ({reference})"),
            Pinning::LocalCommand => "local command".into(),
            Pinning::Remote => "remote (not pinnable)".into(),
            Pinning::Unknown => "unknown".into(),
        }
    }

    /// Classify a launch spec with the launch audit's own analysis (the same one that
    /// raises `unpinned-package`, `unpinned-image` and `unpinned-git`).
    pub fn infer(spec: &ServerSpec) -> Pinning {
        if matches!(spec.transport, Transport::Http { .. }) {
            return Pinning::Remote;
        }
        let identity = crate::model::package::package_identity(spec);
        match (crate::launch_audit::unpinned_reason(spec), identity) {
            (Some(reason), id) => Pinning::Unpinned {
                reference: id.unwrap_or(reason),
            },
            (None, Some(id)) => Pinning::Pinned { reference: id },
            (None, None) => Pinning::LocalCommand,
        }
    }
}

/// A tool result the reviewer saved (e.g. `tools/call` output) to show what text the server
/// passes to the model at run time.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct OutputSample {
    /// The tool that produced it.
    pub tool: String,
    /// Where the sample was read from (shown in the review).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub source: Option<PathBuf>,
    /// The text content blocks (and structured content as JSON), joined by newlines.
    pub text: String,
}

/// Why a saved tool result could not be used as an output sample.
#[derive(Debug, thiserror::Error)]
#[error(
    "output sample {source_name}: {problem} (expected a tools/call result, a JSON-RPC response \
     holding one, or {{\"tool\": NAME, \"result\": RESULT}})"
)]
pub struct OutputSampleError {
    pub source_name: String,
    pub problem: String,
}

impl OutputSample {
    /// Read a saved `tools/call` outcome: `{"tool", "arguments"?, "result"}`, a JSON-RPC
    /// response (`{"jsonrpc", "id", "result"}`), or a bare result. `tool` names the tool when
    /// the value does not. The sample's text is every text content block, then the structured
    /// content as compact JSON when no text block mirrors it.
    pub fn from_value(
        value: &Value,
        tool: Option<&str>,
        source: Option<PathBuf>,
    ) -> Result<Self, OutputSampleError> {
        let err = |problem: &str| OutputSampleError {
            source_name: source
                .as_ref()
                .map_or_else(|| "(inline)".into(), |p| p.display().to_string()),
            problem: problem.into(),
        };
        let tool = value
            .get("tool")
            .and_then(Value::as_str)
            .or(tool)
            .ok_or_else(|| err("the tool is not named: add \"tool\" or pass it explicitly"))?
            .to_owned();
        let result = value.get("result").unwrap_or(value);
        let Some(content) = result.get("content").and_then(Value::as_array) else {
            return Err(err("`content` is missing or not an array"));
        };
        let mut parts: Vec<String> = content
            .iter()
            .filter_map(|b| b.get("text").and_then(Value::as_str))
            .map(str::to_owned)
            .collect();
        if let Some(sc) = result.get("structuredContent") {
            let compact = sc.to_string();
            if !parts.contains(&compact) {
                parts.push(compact);
            }
        }
        if parts.is_empty() {
            return Err(err("the result holds no text content"));
        }
        Ok(OutputSample {
            tool,
            source,
            text: parts.join("\n"),
        })
    }
}

/// One server in the report.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct ServerReport {
    /// The configured name (matches `Finding::server`).
    pub name: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub spec: Option<ServerSpec>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub snapshot: Option<ServerSnapshot>,
    /// The saved snapshot file the definitions came from, when they were not probed live.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub snapshot_path: Option<PathBuf>,
    /// Why the server could not be probed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    #[serde(default)]
    pub lock: LockState,
    #[serde(default)]
    pub pinning: Pinning,
    /// Saved tool output supplied for the review.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub output_samples: Vec<OutputSample>,
    /// Tools, prompts and resources (incl. templates) the server showed, kept when a copy for
    /// rendering leaves the definitions out ([`ScanReport::redacted_outline`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub counts: Option<(usize, usize, usize)>,
}

impl ServerReport {
    /// A server report with pinning inferred from the spec and no lock information.
    pub fn new(
        name: impl Into<String>,
        spec: Option<ServerSpec>,
        snapshot: Option<ServerSnapshot>,
    ) -> Self {
        let pinning = spec.as_ref().map(Pinning::infer).unwrap_or_default();
        ServerReport {
            name: name.into(),
            spec,
            snapshot,
            pinning,
            ..ServerReport::default()
        }
    }

    /// A copy without the snapshot and the output samples (the parts that grow with what
    /// the server sent).
    fn clone_without_snapshot(&self) -> ServerReport {
        ServerReport {
            name: self.name.clone(),
            spec: self.spec.clone(),
            snapshot: None,
            snapshot_path: self.snapshot_path.clone(),
            error: self.error.clone(),
            lock: self.lock,
            pinning: self.pinning.clone(),
            output_samples: Vec::new(),
            counts: self.counts,
        }
    }

    /// The exact command line (or URL) that runs, untruncated.
    /// The command line or URL, with secrets redacted.
    pub fn what_runs(&self) -> String {
        match &self.spec {
            Some(spec) => crate::model::redact::argv_evidence(spec),
            None => match &self.snapshot_path {
                Some(p) => format!("(snapshot file {})", p.display()),
                None => "(unknown)".into(),
            },
        }
    }

    pub fn credential_names(&self) -> Vec<String> {
        match self.spec.as_ref().map(|s| &s.transport) {
            Some(Transport::Stdio { env, .. }) => env.keys().cloned().collect(),
            Some(Transport::Http { headers, .. }) => {
                headers.keys().map(|h| format!("header {h}")).collect()
            }
            None => Vec::new(),
        }
    }

    /// Where each credential comes from: `NAME ← ${VAR}` for references, `NAME (literal)`
    /// otherwise. Literal values are never shown.
    pub fn credential_sources(&self) -> Vec<String> {
        let describe = |k: &str, v: &str| match crate::model::secrets::env_reference(v) {
            Some(var) => format!("{k} ← ${{{var}}}"),
            None => format!("{k} (literal value in the config)"),
        };
        match self.spec.as_ref().map(|s| &s.transport) {
            Some(Transport::Stdio { env, .. }) => env.iter().map(|(k, v)| describe(k, v)).collect(),
            Some(Transport::Http { headers, .. }) => headers
                .iter()
                .map(|(k, v)| describe(&format!("header {k}"), v))
                .collect(),
            None => Vec::new(),
        }
    }

    /// `modern 2026-07-28`, `legacy 2025-11-25`, or `-`.
    pub fn era_label(&self) -> String {
        let Some(s) = &self.snapshot else {
            return "-".into();
        };
        match (&s.era, &s.protocol_version) {
            (Some(e), Some(v)) => format!("{e} {v}"),
            (Some(e), None) => e.to_string(),
            (None, Some(v)) => v.clone(),
            (None, None) => "-".into(),
        }
    }

    /// Number of tools, prompts and resources (incl. templates) the server shows.
    pub fn item_counts(&self) -> Option<(usize, usize, usize)> {
        if self.counts.is_some() {
            return self.counts;
        }
        self.snapshot.as_ref().map(ServerSnapshot::counts)
    }
}

/// Whether a run that judged `servers` could have produced a baseline entry's finding: the
/// entry's server was judged, and its definitions were read when the entry is about them.
/// Entries it could have produced but did not are stale.
pub fn judged(servers: &[ServerReport], e: &crate::policy::suppress::BaselineEntry) -> bool {
    servers
        .iter()
        .any(|s| e.is_about(&s.name) && (!e.needs_definitions() || s.snapshot.is_some()))
}

/// A finding that policy suppressed, with the reason the policy gave.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Suppressed {
    pub rule: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub server: Option<String>,
    pub reason: String,
    /// How many findings the entry suppressed.
    #[serde(default = "one")]
    pub count: usize,
}

fn one() -> usize {
    1
}

/// Everything one run of `scan`/`check`/`review` has to say.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ScanReport {
    #[serde(default)]
    pub tool: ToolInfo,
    pub servers: Vec<ServerReport>,
    /// Findings after policy (remaps applied, ignored ones moved to `suppressed`).
    pub findings: Vec<Finding>,
    #[serde(default)]
    pub suppressed: Vec<Suppressed>,
    /// Non-fatal problems (unmatched policy entries, skipped servers, …).
    #[serde(default)]
    pub warnings: Vec<String>,
    /// Stdio servers launched WITHOUT the sandbox (`--no-sandbox`), by name: every format
    /// says so.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub unsandboxed: Vec<String>,
    /// What was read, for people: e.g. `.mcp.json (claude-code, project scope): a, b`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub sources: Vec<String>,
    /// The gate: a finding at or above this severity fails the run.
    pub fail_on: Severity,
    /// Documentation of the rules (all of them, or at least those the findings use).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub rules: Vec<RuleMeta>,
    /// The repository root that SARIF `uri`s are made relative to (usually the working
    /// directory). Paths outside it are written as absolute `file://` URIs.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub root: Option<PathBuf>,
}

impl ScanReport {
    /// A copy fit to show: every secret in specs, snapshots, findings, errors, warnings,
    /// sources and output samples redacted by [`crate::model::redact`]. Every renderer works
    /// on this copy.
    pub fn redacted(&self) -> ScanReport {
        self.redacted_with(false, ServerSnapshot::clone)
    }

    /// Like [`ScanReport::redacted`], but each snapshot keeps only what the summary formats
    /// (table, JSON, SARIF, GitHub) show about it — identity, era, probe notes and the counts
    /// of its definitions — not the definitions themselves. Redacting every string of every
    /// definition costs time in proportion to what the server sent, and these formats never
    /// show it.
    pub fn redacted_outline(&self) -> ScanReport {
        self.redacted_with(true, |x| ServerSnapshot {
            server: x.server.clone(),
            server_info: x.server_info.clone(),
            era: x.era,
            protocol_version: x.protocol_version.clone(),
            capabilities: x.capabilities.clone(),
            instructions: x.instructions.clone(),
            probe: x.probe.clone(),
            ..ServerSnapshot::default()
        })
    }

    /// [`ScanReport::redacted_outline`] that takes this report's findings instead of cloning
    /// them (a million findings are hundreds of megabytes): they are redacted where they are
    /// ([`crate::model::redact::redact_finding`]) and moved into the copy. Give them back with
    /// [`ScanReport::give_back_findings`].
    pub fn redacted_outline_taking_findings(&mut self) -> ScanReport {
        let mut findings = std::mem::take(&mut self.findings);
        for f in &mut findings {
            crate::model::redact::redact_finding(f);
        }
        let mut r = self.redacted_outline();
        r.findings = findings;
        r
    }

    /// The findings `outline` took (redacted now) back into this report.
    pub fn give_back_findings(&mut self, outline: ScanReport) {
        self.findings = outline.findings;
    }

    /// A redacted copy whose snapshots are `keep` of the originals; `outline` when `keep`
    /// leaves the definitions out (their counts are kept then).
    fn redacted_with(
        &self,
        outline: bool,
        keep: impl Fn(&ServerSnapshot) -> ServerSnapshot,
    ) -> ScanReport {
        use crate::model::redact::{Style, redact_snapshot, redact_spec, redact_text};
        let mut r = self.clone_without_servers();
        for f in &mut r.findings {
            crate::model::redact::redact_finding(f);
        }
        for s in &self.servers {
            let mut copy = s.clone_without_snapshot();
            if outline {
                copy.counts = s.item_counts();
            }
            copy.spec = s.spec.as_ref().map(redact_spec);
            copy.snapshot = s
                .snapshot
                .as_ref()
                .map(|x| redact_snapshot(&keep(x), Style::Show));
            copy.error = s.error.as_deref().map(redact_text);
            copy.output_samples = s
                .output_samples
                .iter()
                .map(|o| OutputSample {
                    text: redact_text(&o.text),
                    ..o.clone()
                })
                .collect();
            r.servers.push(copy);
        }
        for w in r.warnings.iter_mut().chain(r.sources.iter_mut()) {
            *w = redact_text(w);
        }
        for x in &mut r.suppressed {
            x.reason = redact_text(&x.reason);
        }
        r
    }

    fn clone_without_servers(&self) -> ScanReport {
        ScanReport {
            tool: self.tool.clone(),
            servers: Vec::new(),
            findings: self.findings.clone(),
            suppressed: self.suppressed.clone(),
            warnings: self.warnings.clone(),
            unsandboxed: self.unsandboxed.clone(),
            sources: self.sources.clone(),
            fail_on: self.fail_on,
            rules: self.rules.clone(),
            root: self.root.clone(),
        }
    }

    pub fn new(servers: Vec<ServerReport>, findings: Vec<Finding>, fail_on: Severity) -> Self {
        ScanReport {
            tool: ToolInfo::default(),
            servers,
            findings,
            suppressed: Vec::new(),
            warnings: Vec::new(),
            unsandboxed: Vec::new(),
            sources: Vec::new(),
            fail_on,
            rules: Vec::new(),
            root: None,
        }
    }

    /// Fingerprints of this report's findings ([`crate::model::fingerprint`]): config paths
    /// relative to [`ScanReport::root`], config fields named from the servers' specs.
    pub fn fingerprinter(&self) -> crate::model::fingerprint::Fingerprinter<'_> {
        crate::model::fingerprint::Fingerprinter::new(
            self.servers.iter().filter_map(|s| s.spec.as_ref()),
            self.root.as_deref(),
        )
    }

    pub fn server(&self, name: &str) -> Option<&ServerReport> {
        self.servers.iter().find(|s| s.name == name)
    }

    /// The findings about one server, worst first.
    pub fn findings_for<'a>(&'a self, server: &str) -> Vec<&'a Finding> {
        let mut v: Vec<&Finding> = self
            .findings
            .iter()
            .filter(|f| f.server == server)
            .collect();
        v.sort_by(|a, b| a.sort_key().cmp(&b.sort_key()));
        v
    }

    /// All findings, worst first.
    pub fn sorted_findings(&self) -> Vec<&Finding> {
        let mut v: Vec<&Finding> = self.findings.iter().collect();
        v.sort_by(|a, b| a.sort_key().cmp(&b.sort_key()));
        v
    }

    /// Findings at or above the gate.
    pub fn gated(&self) -> impl Iterator<Item = &Finding> {
        self.findings.iter().filter(|f| f.severity >= self.fail_on)
    }

    /// Count of findings per severity for one server (or all with `None`), indexed like
    /// [`Severity::ALL`].
    pub fn counts(&self, server: Option<&str>) -> [usize; 5] {
        let mut c = [0; 5];
        for f in &self.findings {
            if server.is_none_or(|s| s == f.server) {
                c[f.severity as usize] += 1;
            }
        }
        c
    }

    /// The documentation of a rule, if the report carries it.
    pub fn rule(&self, id: &str) -> Option<&RuleMeta> {
        self.rules.iter().find(|r| r.id == id)
    }

    /// How each server fares at the gate.
    pub fn outcome(&self, server: &ServerReport) -> ServerOutcome {
        if server.error.is_some() {
            return ServerOutcome::NotProbed;
        }
        if self.gated().any(|f| f.server == server.name) {
            ServerOutcome::Fails
        } else {
            ServerOutcome::Passes
        }
    }

    /// One line a person reads last, e.g.
    /// `2 servers must not be installed (high findings or worse); 1 passes`.
    pub fn verdict(&self) -> String {
        let (mut fail, mut pass, mut err) = (0, 0, 0);
        for s in &self.servers {
            match self.outcome(s) {
                ServerOutcome::Fails => fail += 1,
                ServerOutcome::Passes => pass += 1,
                ServerOutcome::NotProbed => err += 1,
            }
        }
        // Findings about servers that are not in `servers` still count against the gate.
        let orphan = self
            .gated()
            .map(|f| f.server.as_str())
            .filter(|n| self.server(n).is_none())
            .collect::<std::collections::BTreeSet<_>>()
            .len();
        fail += orphan;
        let plural = |n: usize| if n == 1 { "server" } else { "servers" };
        let gate = if self.fail_on == Severity::Critical {
            "critical findings".to_owned()
        } else {
            format!("{} findings or worse", self.fail_on)
        };
        let mut parts = Vec::new();
        if fail > 0 {
            parts.push(format!(
                "{fail} {} must not be installed ({gate})",
                plural(fail)
            ));
        }
        if err > 0 {
            parts.push(format!("{err} {} could not be probed", plural(err)));
        }
        if pass > 0 || parts.is_empty() {
            let verb = if pass == 1 { "passes" } else { "pass" };
            parts.push(format!("{pass} {verb}"));
        }
        parts.join("; ")
    }
}

/// A server's result at the gate.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ServerOutcome {
    Passes,
    Fails,
    NotProbed,
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::redact::url_for_report as redact_url;
    use crate::model::secrets::env_reference;
    use std::collections::BTreeMap;

    fn stdio(command: &str, args: &[&str]) -> ServerSpec {
        ServerSpec {
            name: "s".into(),
            host: crate::model::host::Host::Format(crate::model::host::HostFormat::ClaudeCode),
            origin: None,
            locations: BTreeMap::new(),
            transport: Transport::Stdio {
                command: command.into(),
                args: args.iter().map(|s| s.to_string()).collect(),
                env: BTreeMap::from([
                    ("TOKEN".into(), "${ADMIN}".into()),
                    ("K".into(), "abc".into()),
                ]),
                cwd: None,
            },
            settings: BTreeMap::new(),
            duplicate_keys: Vec::new(),
        }
    }

    #[test]
    fn pinning_is_inferred_from_the_runner_and_reference() {
        let p = |c: &str, a: &[&str]| Pinning::infer(&stdio(c, a));
        assert!(matches!(
            p("npx", &["-y", "pkg@latest"]),
            Pinning::Unpinned { .. }
        ));
        assert!(matches!(p("npx", &["-y", "pkg"]), Pinning::Unpinned { .. }));
        assert!(matches!(
            p("npx", &["-y", "@scope/pkg@1.2.3"]),
            Pinning::Pinned { .. }
        ));
        assert!(matches!(
            p("npx", &["-y", "@scope/pkg@^1.2.3"]),
            Pinning::Unpinned { .. }
        ));
        assert!(matches!(
            p("uvx", &["mcp-server-time==2026.10.19"]),
            Pinning::Pinned { .. }
        ));
        assert!(matches!(
            p("uvx", &["mcp-server-time"]),
            Pinning::Unpinned { .. }
        ));
        assert!(matches!(
            p(
                "docker",
                &[
                    "run",
                    "-i",
                    "--rm",
                    "ghcr.io/x/y@sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"
                ]
            ),
            Pinning::Pinned { .. }
        ));
        assert!(matches!(
            p("docker", &["run", "-i", "img:latest"]),
            Pinning::Unpinned { .. }
        ));
        assert!(matches!(
            p(
                "docker",
                &["run", "-i", "--rm", "-e", "TOKEN", "ghcr.io/x/y:1.2.3"]
            ),
            // A tag can be moved: only a digest pins an image.
            Pinning::Unpinned { .. }
        ));
        assert!(matches!(
            p("npx", &["-y", "-p", "pkg@1.2.3", "pkg-cmd"]),
            Pinning::Pinned { .. }
        ));
        assert!(matches!(
            p("npx", &["-y", "--package=pkg@1.2.3", "cmd"]),
            Pinning::Pinned { .. }
        ));
        assert!(matches!(
            p("uvx", &["--from", "pkg", "cmd"]),
            Pinning::Unpinned { .. }
        ));
        assert_eq!(p("ci-insights", &[]), Pinning::LocalCommand);
        assert_eq!(p("/usr/bin/node", &["server.js"]), Pinning::LocalCommand);
    }

    #[test]
    fn credentials_show_names_and_sources_never_literal_values() {
        let r = ServerReport::new("s", Some(stdio("x", &[])), None);
        assert_eq!(r.credential_names(), vec!["K", "TOKEN"]);
        let src = r.credential_sources().join("; ");
        assert!(src.contains("TOKEN ← ${ADMIN}"), "{src}");
        assert!(src.contains("K (literal value"), "{src}");
        assert!(!src.contains("abc"), "{src}");
    }

    #[test]
    fn urls_lose_their_secrets() {
        assert_eq!(
            redact_url("https://u:p@mcp.example.com/v1?api_key=abc&team=x"),
            "https://***@mcp.example.com/v1?api_key=***&team=x"
        );
        assert_eq!(
            redact_url("http://127.0.0.1:8080/mcp"),
            "http://127.0.0.1:8080/mcp"
        );
    }

    #[test]
    fn env_references_are_recognised() {
        assert_eq!(env_reference("${A_B}"), Some("A_B"));
        assert_eq!(env_reference("${env:A}"), Some("A"));
        assert_eq!(env_reference("$A"), Some("A"));
        assert_eq!(env_reference("ghp_abc"), None);
        assert_eq!(env_reference("${}"), None);
    }

    #[test]
    fn output_samples_read_results_and_responses() {
        let v = serde_json::json!({"tool": "t", "result": {"content": [{"type": "text", "text": "{\"a\":1}"}],
            "structuredContent": {"a": 1}, "isError": false}});
        let s = OutputSample::from_value(&v, None, None).unwrap();
        assert_eq!((s.tool.as_str(), s.text.as_str()), ("t", "{\"a\":1}"));
        let v = serde_json::json!({"jsonrpc": "2.0", "id": 1, "result": {"content": [{"type": "text", "text": "x"}]}});
        assert_eq!(
            OutputSample::from_value(&v, Some("u"), None).unwrap().text,
            "x"
        );
        let e = OutputSample::from_value(&serde_json::json!({"content": 1}), Some("u"), None)
            .unwrap_err()
            .to_string();
        assert!(e.contains("`content`"), "{e}");
        assert!(OutputSample::from_value(&serde_json::json!({}), None, None).is_err());
    }

    #[test]
    fn what_runs_quotes_words_that_need_it() {
        let r = ServerReport::new("s", Some(stdio("npx", &["-y", "a b", "it's"])), None);
        assert_eq!(r.what_runs(), "npx -y \"a b\" it's");
    }
}
