//! `mcpvet check`: the fast static CI gate. Parses host configs, runs the launch rules, applies
//! the team policy and looks at the lockfiles on disk. Starts no server, opens no socket.
//!
//! The command computes a [`CheckReport`] and hands it to [`render`], the one call to swap for
//! the report module's renderers.

use std::path::{Path, PathBuf};

use anyhow::{Context, bail};
use clap::{Args, ValueEnum};

use super::Global;
use crate::audit::finding::{Finding, Severity};
use crate::config::{self, HostFormat, Scope};
use crate::error::Exit;
use crate::launch;
use crate::policy::{Policy, PolicyWarning};
use crate::spec::ServerSpec;

/// Output formats of `check` (the same as `scan`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Format {
    Table,
    Json,
    Sarif,
    Github,
}

/// Arguments of `mcpvet check`.
#[derive(Debug, Args)]
pub struct CheckArgs {
    /// Host configuration files (any supported host; the format is detected).
    /// Without files and without `--discover`, the project's own configs are checked.
    pub configs: Vec<PathBuf>,
    /// Read the given files as this host format instead of detecting it.
    #[arg(long, value_name = "HOST")]
    pub host: Option<String>,
    /// Also check every known user and project config location on this machine.
    #[arg(long)]
    pub discover: bool,
    /// The team policy (default: `mcpvet.toml` at the repository root, if any).
    #[arg(long, value_name = "FILE")]
    pub policy: Option<PathBuf>,
    /// Ignore any `mcpvet.toml` (launch rules and lockfile pins only).
    #[arg(long, conflicts_with = "policy")]
    pub no_policy: bool,
    /// Folder of approved lockfiles (`<server>.lock.json`).
    #[arg(long, value_name = "DIR", default_value = "lockfiles")]
    pub lockfiles: PathBuf,
    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Table)]
    pub format: Format,
    /// Fail (exit 1) when a finding reaches this severity (default: the policy's, else high).
    #[arg(long, value_name = "SEVERITY")]
    pub fail_on: Option<Severity>,
}

/// One configuration file that was read.
#[derive(Debug, Clone, serde::Serialize)]
pub struct Source {
    pub path: PathBuf,
    pub host: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub scope: Option<Scope>,
    pub servers: Vec<String>,
    /// A user-scope file found by `--discover` that could not be read (project files and
    /// files named on the command line are errors instead).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

/// Everything `check` found, ready to render.
#[derive(Debug, Clone, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct CheckReport {
    pub sources: Vec<Source>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub policy: Option<PathBuf>,
    pub findings: Vec<Finding>,
    pub warnings: Vec<PolicyWarning>,
    pub fail_on: Severity,
}

impl CheckReport {
    /// The findings at or above the gate.
    pub fn failing(&self) -> usize {
        self.findings
            .iter()
            .filter(|f| f.severity >= self.fail_on)
            .count()
    }
}

pub fn run(args: CheckArgs, g: Global) -> anyhow::Result<Exit> {
    let cwd = std::env::current_dir().context("cannot read the current folder")?;
    let report = build(&args, &cwd)?;
    let out = render(&report, args.format, g)?;
    crate::report::write_stdout(out.as_bytes())?;
    if matches!(args.format, Format::Json | Format::Sarif) {
        for w in &report.warnings {
            crate::report::eprint_line(&format!("warning: {w}"));
        }
    }
    Ok(if report.failing() > 0 {
        Exit::Findings
    } else {
        Exit::Clean
    })
}

/// Compute the report (no printing), relative to `cwd`.
pub fn build(args: &CheckArgs, cwd: &Path) -> anyhow::Result<CheckReport> {
    let forced: Option<HostFormat> = args
        .host
        .as_deref()
        .map(str::parse)
        .transpose()
        .map_err(anyhow::Error::msg)?;
    let mut targets: Vec<(PathBuf, Option<HostFormat>, Option<Scope>)> = args
        .configs
        .iter()
        .map(|p| (p.clone(), forced, None))
        .collect();
    if args.discover || args.configs.is_empty() {
        let home = std::env::var_os("HOME")
            .or_else(|| std::env::var_os("USERPROFILE"))
            .map(PathBuf::from);
        let found = config::discover(home.as_deref().unwrap_or(cwd), cwd);
        for d in found {
            if !args.discover && d.scope == Scope::User {
                continue;
            }
            // Paths under the working folder stay relative, as CI annotations expect.
            let path = d
                .path
                .strip_prefix(cwd)
                .map_or(d.path.clone(), Path::to_path_buf);
            if !targets.iter().any(|(p, _, _)| p == &path || p == &d.path) {
                targets.push((path, Some(d.host), Some(d.scope)));
            }
        }
    }
    if targets.is_empty() {
        bail!(
            "no configuration files given and none found in {} (pass files, or --discover)",
            cwd.display()
        );
    }
    let mut sources = Vec::new();
    let mut specs: Vec<ServerSpec> = Vec::new();
    for (path, host, scope) in targets {
        let parsed = match host {
            Some(h) => config::load_path_as(&path, h),
            None => config::load_path(&path),
        };
        let parsed = match (parsed, scope) {
            (Ok(p), _) => p,
            (Err(e), Some(Scope::User)) => {
                sources.push(Source {
                    path: path.clone(),
                    host: host.map_or("unknown".into(), |h| h.id().to_string()),
                    scope,
                    servers: Vec::new(),
                    error: Some(e.to_string()),
                });
                continue;
            }
            (Err(e), _) => return Err(e.into()),
        };
        sources.push(Source {
            path: path.clone(),
            host: host.map_or_else(
                || parsed.first().map_or("unknown".into(), |s| s.host.clone()),
                |h| h.id().to_string(),
            ),
            scope,
            servers: parsed.iter().map(|s| s.name.clone()).collect(),
            error: None,
        });
        specs.extend(parsed);
    }
    let findings: Vec<Finding> = specs.iter().flat_map(launch::audit_spec).collect();
    let policy_path = if args.no_policy {
        None
    } else {
        args.policy.clone().or_else(|| {
            Policy::find(cwd).map(|p| p.strip_prefix(cwd).map_or(p.clone(), Path::to_path_buf))
        })
    };
    let locked = DiskLocks {
        dir: if args.lockfiles.is_absolute() {
            args.lockfiles.clone()
        } else {
            cwd.join(&args.lockfiles)
        },
    };
    let policy = match &policy_path {
        Some(p) => Policy::load(p)?,
        None => Policy::empty(),
    };
    let outcome = policy.evaluate(&specs, findings, &locked);
    let (mut findings, warnings, policy_fail_on) =
        (outcome.findings, outcome.warnings, outcome.fail_on);
    findings.sort_by(|a, b| a.sort_key().cmp(&b.sort_key()));
    Ok(CheckReport {
        sources,
        policy: policy_path,
        findings,
        warnings,
        fail_on: args.fail_on.unwrap_or(policy_fail_on),
    })
}

/// The lockfiles on disk: `<dir>/<server>.lock.json`. Until `mcpvet::lock` is wired in, the
/// approved package identity is read tolerantly from the lockfile's launch spec (a
/// `ServerSpec` or `Transport` under `spec`, `launch` or `transport`), when present.
struct DiskLocks {
    dir: PathBuf,
}

impl DiskLocks {
    fn path(&self, server: &str) -> PathBuf {
        let safe: String = server
            .chars()
            .map(|c| {
                if c.is_alphanumeric() || matches!(c, '-' | '_' | '.') {
                    c
                } else {
                    '_'
                }
            })
            .collect();
        self.dir.join(format!("{safe}.lock.json"))
    }
}

impl crate::policy::LockLookup for DiskLocks {
    fn is_locked(&self, server: &str) -> bool {
        self.path(server).is_file()
    }

    fn locked_identity(&self, server: &str) -> Option<String> {
        let text = std::fs::read_to_string(self.path(server)).ok()?;
        let value: serde_json::Value = serde_json::from_str(&text).ok()?;
        ["spec", "launch", "transport"].iter().find_map(|key| {
            let v = value.get(key)?;
            let spec = serde_json::from_value::<ServerSpec>(v.clone())
                .ok()
                .or_else(|| {
                    let transport =
                        serde_json::from_value::<crate::spec::Transport>(v.clone()).ok()?;
                    Some(ServerSpec {
                        name: server.to_string(),
                        host: "lockfile".into(),
                        origin: None,
                        locations: Default::default(),
                        transport,
                        settings: Default::default(),
                    })
                })?;
            launch::package_identity(&spec)
        })
    }
}

/// Render the report in the requested format (swap point for the report module).
pub fn render(report: &CheckReport, format: Format, g: Global) -> anyhow::Result<String> {
    Ok(match format {
        Format::Table => render_plain(report, g),
        Format::Json => {
            let mut s =
                serde_json::to_string_pretty(&serde_json::json!({"version": 1, "check": report}))?;
            s.push('\n');
            s
        }
        Format::Github => render_github(report),
        Format::Sarif => {
            let mut s = serde_json::to_string_pretty(&render_sarif(report))?;
            s.push('\n');
            s
        }
    })
}

fn location(f: &Finding) -> String {
    f.location
        .config
        .as_ref()
        .map_or_else(|| "-".to_string(), ToString::to_string)
}

/// The plain text list.
pub fn render_plain(report: &CheckReport, g: Global) -> String {
    let mut s = String::new();
    let servers: usize = report.sources.iter().map(|x| x.servers.len()).sum();
    if !g.quiet {
        s.push_str(&format!(
            "checked {servers} server(s) in {} file(s)",
            report.sources.len()
        ));
        match &report.policy {
            Some(p) => s.push_str(&format!(" against policy {}\n", p.display())),
            None => s.push_str(" (no policy)\n"),
        }
        for src in &report.sources {
            let scope = src
                .scope
                .map(|sc| format!(", {} scope", sc.as_str()))
                .unwrap_or_default();
            s.push_str(&format!(
                "  {} ({}{scope}): {}\n",
                src.path.display(),
                src.host,
                if src.error.is_some() {
                    "not read (see warnings)".to_string()
                } else if src.servers.is_empty() {
                    "no servers".to_string()
                } else {
                    src.servers.join(", ")
                }
            ));
        }
        s.push('\n');
    }
    for f in &report.findings {
        s.push_str(&format!(
            "{:<8} {:<18} {:<20} {}\n",
            f.severity.as_str().to_uppercase(),
            f.rule,
            f.server,
            location(f)
        ));
        s.push_str(&format!("         {}\n", f.message));
        if let Some(e) = &f.evidence {
            s.push_str(&format!(
                "         evidence: {}\n",
                launch::redact_secrets(e)
            ));
        }
        if g.verbose || !g.quiet {
            s.push_str(&format!("         control: {}\n", f.control.advice()));
        }
    }
    for w in &report.warnings {
        s.push_str(&format!("warning: {w}\n"));
    }
    for (src, e) in report
        .sources
        .iter()
        .filter_map(|x| x.error.as_ref().map(|e| (x, e)))
    {
        s.push_str(&format!("warning: skipped {}: {e}\n", src.path.display()));
    }
    let failing = report.failing();
    s.push_str(&format!(
        "{} finding(s), {failing} at or above {}: {}\n",
        report.findings.len(),
        report.fail_on,
        if failing > 0 { "FAIL" } else { "pass" }
    ));
    s
}

fn github_escape(s: &str) -> String {
    s.replace('%', "%25")
        .replace('\r', "%0D")
        .replace('\n', "%0A")
}

/// GitHub Actions workflow commands (annotations).
pub fn render_github(report: &CheckReport) -> String {
    let mut s = String::new();
    for f in &report.findings {
        let level = if f.severity >= report.fail_on {
            "error"
        } else if f.severity >= Severity::Medium {
            "warning"
        } else {
            "notice"
        };
        let loc = f.location.config.as_ref().map_or_else(String::new, |o| {
            format!(
                " file={},line={},col={},",
                github_escape(&o.file.display().to_string()).replace(',', "%2C"),
                o.line,
                o.column
            )
        });
        let loc = if loc.is_empty() { " ".to_string() } else { loc };
        s.push_str(&format!(
            "::{level}{loc}title={} ({})::{}\n",
            f.rule,
            f.server.replace([',', ':'], " "),
            github_escape(&launch::redact_secrets(&f.message))
        ));
    }
    for (src, e) in report
        .sources
        .iter()
        .filter_map(|x| x.error.as_ref().map(|e| (x, e)))
    {
        s.push_str(&format!(
            "::warning::skipped {}: {}\n",
            src.path.display(),
            github_escape(e)
        ));
    }
    for w in &report.warnings {
        s.push_str(&format!(
            "::warning file={},line={},col={}::{}\n",
            w.origin.file.display(),
            w.origin.line,
            w.origin.column,
            github_escape(&w.message)
        ));
    }
    s
}

/// A minimal SARIF 2.1.0 log (rules from the launch and policy families).
pub fn render_sarif(report: &CheckReport) -> serde_json::Value {
    let metas: Vec<_> = launch::rule_meta()
        .into_iter()
        .chain(crate::policy::rule_meta())
        .collect();
    let rules: Vec<serde_json::Value> = metas
        .iter()
        .map(|m| {
            serde_json::json!({
                "id": m.id,
                "shortDescription": {"text": m.summary},
                "fullDescription": {"text": m.why},
                "help": {"text": m.control.advice()},
            })
        })
        .collect();
    let results: Vec<serde_json::Value> = report
        .findings
        .iter()
        .map(|f| {
            let level = match f.severity {
                Severity::Critical | Severity::High => "error",
                Severity::Medium => "warning",
                _ => "note",
            };
            let mut r = serde_json::json!({
                "ruleId": f.rule,
                "level": level,
                "message": {"text": format!("{}: {}", f.server, f.message)},
                "properties": {"severity": f.severity, "confidence": f.confidence, "server": f.server, "control": f.control},
            });
            if let Some(o) = &f.location.config {
                r["locations"] = serde_json::json!([{"physicalLocation": {
                    "artifactLocation": {"uri": o.file.display().to_string().replace('\\', "/")},
                    "region": {"startLine": o.line, "startColumn": o.column},
                }}]);
            }
            r
        })
        .collect();
    serde_json::json!({
        "version": "2.1.0",
        "$schema": "https://json.schemastore.org/sarif-2.1.0.json",
        "runs": [{
            "tool": {"driver": {"name": "mcpvet", "version": env!("CARGO_PKG_VERSION"), "rules": rules}},
            "results": results,
        }],
    })
}
