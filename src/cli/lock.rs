//! `mcpvet lock`: approve servers — audit them, then record what they show the model in
//! `lockfiles/<server>.lock.json`.
//!
//! Getting the servers ([`obtain`]) and getting the findings that gate the approval
//! ([`gate_findings`]) are separate calls so the probe and the audit plug in here.

use std::path::PathBuf;

use anyhow::{Context, bail};
use clap::Args;

use super::Global;
use super::targets::TargetArgs;
use crate::error::Exit;
use crate::lock::lockfile::{is_rfc3339, rfc3339_from_unix};
use crate::lock::{ApproveOptions, LockError, LockOutcome, approve};
use crate::model::escape::line;
use crate::model::finding::{Finding, Severity};
use crate::model::snapshot::ServerSnapshot;
use crate::model::spec::ServerSpec;

/// Arguments of `mcpvet lock`.
#[derive(Debug, Args)]
pub struct LockArgs {
    /// What to approve: config files, snapshot files, `--url URL` or `-- CMD ARGS…`.
    #[command(flatten)]
    pub targets: TargetArgs,
    /// Extra pattern rules for the gate: a folder of `*.toml` rule files (repeatable).
    #[arg(long = "rules", value_name = "DIR")]
    pub rules_dirs: Vec<PathBuf>,
    /// Directory holding the lockfiles.
    #[arg(long, value_name = "DIR", default_value = "lockfiles")]
    pub lock_dir: PathBuf,
    /// Who approves (default: git's user.name).
    #[arg(long, value_name = "NAME")]
    pub by: Option<String>,
    /// Approval time to record, RFC 3339 (default: $SOURCE_DATE_EPOCH, else now).
    #[arg(long, value_name = "TIME")]
    pub at: Option<String>,
    /// A note to record with the approval.
    #[arg(long, value_name = "TEXT")]
    pub note: Option<String>,
    /// Approve despite findings at or above --fail-on, recording them with this reason.
    #[arg(long, value_name = "REASON")]
    pub accept: Option<String>,
    /// Findings at or above this severity block the approval.
    #[arg(long, value_name = "SEVERITY", default_value = "high")]
    pub fail_on: Severity,
    /// Record a new approval even when nothing changed; replace an unreadable or tampered lock.
    #[arg(long)]
    pub force: bool,
    #[command(flatten)]
    pub verbosity: super::Verbosity,
}

/// What [`obtain`] got: the servers it could read or probe, and the ones it could not.
#[derive(Debug, Default)]
pub struct Obtained {
    /// Each server with its spec when it came from a config or command line.
    pub servers: Vec<(Option<ServerSpec>, ServerSnapshot)>,
    /// The servers that could not be probed, with why (exit code 3).
    pub failed: Vec<crate::mcp::ProbeFailure>,
}

impl Obtained {
    /// Say on stderr which servers could not be probed, one line each; [`Exit::ProbeFailed`]
    /// when there was one, so a caller can fold it into its own verdict (1 beats 3 beats 0).
    pub fn report_failures(&self, doing: &str) -> Exit {
        for f in &self.failed {
            crate::report::eprint_line(&format!(
                "error: {}: could not be probed, so nothing was {doing} for it: {}",
                line(&f.server),
                f.message
            ));
        }
        if self.failed.is_empty() {
            Exit::Clean
        } else {
            Exit::ProbeFailed
        }
    }
}

/// The servers to approve: live servers are probed (concurrently), snapshot files are read.
/// A server that cannot be probed is kept aside in [`Obtained::failed`]: nothing is approved
/// that was not seen, and every other server is still done.
pub fn obtain(targets: &TargetArgs, g: Global) -> anyhow::Result<Obtained> {
    let gathered = super::pipeline::gather(targets, &crate::pipeline::PolicySource::Find, g)?;
    crate::report::warn_unsandboxed(&gathered.unsandboxed);
    super::pipeline::announce_sources(&gathered, g);
    let mut out = Obtained::default();
    for s in gathered.subjects {
        let name = s.name();
        match (s.snapshot, s.error) {
            (Some(mut snap), _) => {
                if let Some(spec) = &s.spec {
                    snap.server = spec.name.clone();
                }
                out.servers.push((s.spec, snap));
            }
            (None, error) => out.failed.push(crate::mcp::ProbeFailure::new(
                name,
                error.unwrap_or_else(|| "no snapshot".into()),
            )),
        }
    }
    Ok(out)
}

/// The worse of two verdicts: findings (1) beat a probe failure (3) beat clean (0).
pub fn worse(a: Exit, b: Exit) -> Exit {
    let rank = |e: Exit| match e {
        Exit::Clean => 0,
        Exit::ProbeFailed => 1,
        Exit::Findings => 2,
        Exit::Usage => 3,
    };
    if rank(b) > rank(a) { b } else { a }
}

/// The findings that gate an approval: the launch rules over each spec and the definition
/// audit over all snapshots together (so cross-server checks see every server).
pub fn gate_findings(
    servers: &[(Option<ServerSpec>, ServerSnapshot)],
    rules_dirs: &[PathBuf],
) -> anyhow::Result<Vec<Finding>> {
    let rules = crate::pipeline::rule_set(rules_dirs)?;
    let mut findings: Vec<Finding> = servers
        .iter()
        .filter_map(|(spec, _)| spec.as_ref())
        .flat_map(crate::launch_audit::audit_spec)
        .collect();
    let snaps: Vec<ServerSnapshot> = servers.iter().map(|(_, s)| s.clone()).collect();
    findings.extend(crate::audit::audit_snapshots(&snaps, &rules));
    Ok(findings)
}

pub fn run(args: LockArgs, g: Global) -> anyhow::Result<Exit> {
    let obtained = obtain(&args.targets, g)?;
    let findings = gate_findings(&obtained.servers, &args.rules_dirs)?;
    let exit = lock_servers(&args, g, &obtained.servers, &findings)?;
    Ok(worse(exit, obtained.report_failures("locked")))
}

/// Approve every server against `findings` and report what was written.
pub fn lock_servers(
    args: &LockArgs,
    g: Global,
    servers: &[(Option<ServerSpec>, ServerSnapshot)],
    findings: &[Finding],
) -> anyhow::Result<Exit> {
    if args.accept.as_deref().is_some_and(|r| r.trim().is_empty()) {
        bail!("--accept needs a reason (it is recorded in the lock for reviewers)");
    }
    let opts = ApproveOptions {
        by: approver(args.by.as_deref())?,
        at: approval_time(args.at.as_deref())?,
        note: args.note.clone(),
        accept: args.accept.clone(),
        fail_on: args.fail_on,
        force: args.force,
    };
    let mut exit = Exit::Clean;
    let mut out = String::new();
    for (spec, snap) in servers {
        match approve(&args.lock_dir, snap, spec.as_ref(), findings, &opts) {
            Ok(LockOutcome::Written {
                path,
                lock,
                previous,
                replaced_invalid,
            }) => {
                let counts = counts(&lock);
                let what = match (previous, replaced_invalid) {
                    (_, true) => " (replaced an unreadable lock)",
                    (Some(_), _) => " (updated)",
                    (None, _) => "",
                };
                out.push_str(&format!(
                    "locked {} → {}{what}: {counts}; approved by {} at {}\n",
                    line(&lock.server),
                    line(&path.display().to_string()),
                    line(&lock.approval.by),
                    line(&lock.approval.at)
                ));
                for a in &lock.approval.accepted {
                    out.push_str(&format!(
                        "  accepted {} ({}): {} — {}\n",
                        line(&a.rule),
                        a.severity,
                        line(&a.message),
                        line(&a.reason)
                    ));
                }
            }
            Ok(LockOutcome::Unchanged { path, lock }) => {
                out.push_str(&format!(
                    "unchanged {} ({}): keeps the approval by {} at {}\n",
                    line(&lock.server),
                    line(&path.display().to_string()),
                    line(&lock.approval.by),
                    line(&lock.approval.at)
                ));
            }
            Err(e @ LockError::Refused { .. }) => {
                crate::report::eprint_line(&format!("error: {e}"));
                exit = Exit::Findings;
            }
            Err(e) => return Err(e).context(format!("cannot lock `{}`", line(&snap.server))),
        }
    }
    if !g.quiet {
        crate::report::write_stdout(out.as_bytes())?;
    }
    Ok(exit)
}

fn counts(lock: &crate::lock::Lockfile) -> String {
    let mut parts = vec![format!("{} tool(s)", lock.tools.len())];
    for (n, word) in [
        (lock.prompts.len(), "prompt(s)"),
        (lock.resources.len(), "resource(s)"),
        (lock.resource_templates.len(), "resource template(s)"),
    ] {
        if n > 0 {
            parts.push(format!("{n} {word}"));
        }
    }
    if lock.instructions.is_some() {
        parts.push("instructions".into());
    }
    parts.join(", ")
}

/// `--by`, else git's `user.name`.
fn approver(by: Option<&str>) -> anyhow::Result<String> {
    if let Some(by) = by.map(str::trim).filter(|s| !s.is_empty()) {
        return Ok(by.to_owned());
    }
    let name = std::process::Command::new("git")
        .args(["config", "user.name"])
        .output()
        .ok()
        .filter(|o| o.status.success())
        .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_owned())
        .filter(|s| !s.is_empty());
    match name {
        Some(n) => Ok(n),
        None => bail!("no approver: pass --by NAME (or set git's user.name)"),
    }
}

/// 0001-01-01T00:00:00Z and 9999-12-31T23:59:59Z: RFC 3339 writes a year in four digits, so a
/// `SOURCE_DATE_EPOCH` outside these is an error rather than a timestamp no reader accepts.
const RFC3339_FIRST: i64 = -62_135_596_800;
const RFC3339_LAST: i64 = 253_402_300_799;

/// `--at`, else `$SOURCE_DATE_EPOCH`, else now; always RFC 3339.
fn approval_time(at: Option<&str>) -> anyhow::Result<String> {
    if let Some(at) = at {
        if !is_rfc3339(at) {
            bail!("--at `{at}` is not an RFC 3339 time (e.g. 2026-07-28T12:00:00Z)");
        }
        return Ok(at.to_owned());
    }
    if let Ok(epoch) = std::env::var("SOURCE_DATE_EPOCH") {
        let secs: i64 = epoch.trim().parse().with_context(|| {
            format!("SOURCE_DATE_EPOCH `{epoch}` is not a number of seconds since 1970")
        })?;
        if !(RFC3339_FIRST..=RFC3339_LAST).contains(&secs) {
            bail!(
                "SOURCE_DATE_EPOCH `{epoch}` is outside the years 0001–9999 that an RFC 3339 time can name (unset it, or pass --at)"
            );
        }
        return Ok(rfc3339_from_unix(secs));
    }
    let secs = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs() as i64)
        .unwrap_or(0);
    Ok(rfc3339_from_unix(secs))
}
