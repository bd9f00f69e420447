//! The pipeline `scan`, `check` and `review` share: targets → snapshots → findings (launch
//! rules, definition audit, lockfiles, policy) → one [`ScanReport`] for the renderers.
//!
//! Data flows one way; nothing here prints (progress goes through the report layer).

use std::path::{Path, PathBuf};

use anyhow::Context;
use clap::Args;

use super::Global;
use super::targets::{self, TargetArgs};
use crate::audit::{self, RuleSet};
use crate::lock::{self, Lockfile};
use crate::model::finding::{Finding, Severity};
use crate::model::snapshot::ServerSnapshot;
use crate::model::spec::ServerSpec;
use crate::policy::{LockLookup, Policy, PolicyWarning};
use crate::report::{LockState, ScanReport, ServerReport, Suppressed};

/// What to judge the servers against: rules, lockfiles, policy and the gate.
#[derive(Debug, Clone, Args)]
pub struct JudgeArgs {
    /// The team policy (default: `mcpvet.toml` in the current folder or a parent, if any).
    #[arg(long, value_name = "FILE")]
    pub policy: Option<PathBuf>,
    /// Ignore any `mcpvet.toml`.
    #[arg(long, conflicts_with = "policy")]
    pub no_policy: bool,
    /// Extra pattern rules: a folder of `*.toml` rule files (repeatable).
    #[arg(long = "rules", value_name = "DIR")]
    pub rules_dirs: Vec<PathBuf>,
    /// Folder of approved lockfiles (`<server>.lock.json`).
    #[arg(long, value_name = "DIR", default_value = "lockfiles")]
    pub lock_dir: PathBuf,
    /// Fail (exit 1) when a finding reaches this severity (default: the policy's, else high).
    #[arg(long, value_name = "SEVERITY")]
    pub fail_on: Option<Severity>,
}

impl Default for JudgeArgs {
    fn default() -> Self {
        JudgeArgs {
            policy: None,
            no_policy: false,
            rules_dirs: Vec::new(),
            lock_dir: PathBuf::from("lockfiles"),
            fail_on: None,
        }
    }
}

/// One server as the pipeline sees it before judging.
#[derive(Debug, Clone)]
pub struct Subject {
    pub spec: Option<ServerSpec>,
    pub snapshot: Option<ServerSnapshot>,
    pub snapshot_path: Option<PathBuf>,
    pub error: Option<String>,
}

impl Subject {
    /// The configured name, else the snapshot's.
    pub fn name(&self) -> String {
        self.spec
            .as_ref()
            .map(|s| s.name.clone())
            .or_else(|| self.snapshot.as_ref().map(|s| s.server.clone()))
            .or_else(|| self.snapshot_path.as_ref().map(|p| p.display().to_string()))
            .unwrap_or_else(|| "unnamed".into())
    }
}

/// Resolve the targets and obtain a snapshot (or an error) for each: probe live servers
/// concurrently, or read snapshot files. A probe failure stays with its server.
pub fn gather(args: &TargetArgs, g: Global) -> anyhow::Result<Vec<Subject>> {
    Ok(gather_discovering(args, g)?.0)
}

/// [`gather`], plus the config files `--discover` read and the ones it skipped.
pub fn gather_discovering(
    args: &TargetArgs,
    g: Global,
) -> anyhow::Result<(Vec<Subject>, Vec<String>, Vec<String>)> {
    let (resolved, sources, skipped) = args.resolve_discovering()?;
    if resolved.is_empty() {
        anyhow::bail!(
            "nothing to audit: give config or snapshot files, `--url URL`, or `-- CMD ARGS…`"
        );
    }
    let progress = targets::stderr_progress(g);
    let results = targets::obtain(&resolved, args, &progress)?;
    let subjects = resolved
        .into_iter()
        .zip(results)
        .map(|(t, r)| {
            let (snapshot, error) = match r {
                Ok(s) => (Some(s), None),
                Err(e) => (None, Some(format!("{e:#}"))),
            };
            // With --offline --snapshot-dir, a config entry's snapshot is DIR/NAME.json.
            let snapshot_path = t.snapshot_file.or_else(|| {
                let dir = args.snapshot_dir.as_ref().filter(|_| args.offline)?;
                let spec = t.spec.as_ref()?;
                Some(dir.join(format!("{}.json", spec.name)))
            });
            Subject {
                spec: t.spec,
                snapshot,
                snapshot_path,
                error,
            }
        })
        .collect();
    Ok((subjects, sources, skipped))
}

/// The policy file to use, if any: `--policy`, else `mcpvet.toml` found from `cwd` upwards.
pub fn policy_path(judge: &JudgeArgs, cwd: &Path) -> Option<PathBuf> {
    if judge.no_policy {
        return None;
    }
    judge.policy.clone().or_else(|| {
        Policy::find(cwd).map(|p| p.strip_prefix(cwd).map_or(p.clone(), Path::to_path_buf))
    })
}

/// The rule set: built-in rules plus every `--rules DIR`.
pub fn rule_set(judge: &JudgeArgs) -> anyhow::Result<RuleSet> {
    let mut rules = RuleSet::builtin().context("loading the built-in rules")?;
    for dir in &judge.rules_dirs {
        rules.extend_from_dir(dir)?;
    }
    Ok(rules)
}

/// Lockfiles on disk, as the policy asks about them.
struct DiskLocks<'a> {
    dir: &'a Path,
}

impl LockLookup for DiskLocks<'_> {
    fn is_locked(&self, server: &str) -> bool {
        lock::path_for(self.dir, server).is_file()
    }
    // Launch identity changes are reported by `lock::launch_spec_findings` (`pin-mismatch`,
    // comparing the whole normalised launch), so the policy need not compare identities too.
}

/// Where a config-less subject's findings point: nowhere in a config.
fn fill_config_origin(f: &mut Finding, spec: Option<&ServerSpec>) {
    if f.location.config.is_none() {
        f.location.config = spec.and_then(|s| s.origin.clone());
    }
}

/// Judge the subjects and build the report. Subjects without snapshots (the static `check`,
/// or servers that could not be probed) get the launch, lockfile and policy checks only.
pub fn judge(
    subjects: Vec<Subject>,
    judge: &JudgeArgs,
    cwd: &Path,
    extra_findings: Vec<Finding>,
) -> anyhow::Result<ScanReport> {
    let policy_file = policy_path(judge, cwd);
    let policy = policy_file.as_deref().map(Policy::load).transpose()?;
    let rules = rule_set(judge)?;
    let lock_dir = if judge.lock_dir.is_absolute() {
        judge.lock_dir.clone()
    } else {
        cwd.join(&judge.lock_dir)
    };

    let mut findings: Vec<Finding> = extra_findings;
    let mut suppressed: Vec<Suppressed> = Vec::new();
    let mut servers: Vec<ServerReport> = Vec::new();

    // Launch rules: what runs and with which credentials.
    for s in &subjects {
        if let Some(spec) = &s.spec {
            findings.extend(crate::launch_audit::audit_spec(spec));
        }
    }

    // Definition audit over every snapshot at once (cross-server checks need them all).
    let snaps: Vec<ServerSnapshot> = subjects
        .iter()
        .filter_map(|s| {
            s.snapshot.clone().map(|mut snap| {
                snap.server = s.name();
                snap
            })
        })
        .collect();
    let mut definition = audit::audit_snapshots(&snaps, &rules);
    for f in &mut definition {
        let spec = subjects
            .iter()
            .find(|s| s.name() == f.server)
            .and_then(|s| s.spec.as_ref());
        fill_config_origin(f, spec);
    }
    findings.extend(definition);

    // Lockfiles: drift, accepted findings, launch changes.
    let mut locks: Vec<(String, Option<Lockfile>)> = Vec::new();
    for s in &subjects {
        let name = s.name();
        let lock = Lockfile::read_for(&lock_dir, &name)
            .with_context(|| format!("reading the lockfile of server `{name}`"))?;
        let mut state = match &lock {
            Some(_) => LockState::Locked,
            None => LockState::Unlocked,
        };
        if let Some(lock) = &lock {
            let mut drift = Vec::new();
            if let Some(spec) = &s.spec {
                drift.extend(lock::launch_spec_findings(spec, lock));
            }
            if let Some(snap) = &s.snapshot {
                drift.extend(lock::drift_findings(
                    s.spec.as_ref(),
                    Some(lock),
                    snap,
                    false,
                ));
            } else if s.error.is_some() {
                state = LockState::NotApplicable;
            }
            if !drift.is_empty() {
                state = LockState::Drifted;
            }
            findings.extend(drift);
        } else if s.snapshot.is_none() && (s.spec.is_none() || s.error.is_some()) {
            state = LockState::NotApplicable;
        }
        let mut report = ServerReport::new(name.clone(), s.spec.clone(), s.snapshot.clone());
        report.snapshot_path = s.snapshot_path.clone();
        report.error = s.error.clone();
        report.lock = state;
        servers.push(report);
        locks.push((name, lock));
    }
    // Findings accepted at approval (same rule, item and pointer) are suppressed.
    findings.retain(|f| {
        let Some((_, Some(lock))) = locks.iter().find(|(n, _)| n == &f.server) else {
            return true;
        };
        match lock.approval.accepted.iter().find(|a| a.covers(f)) {
            Some(a) => {
                suppressed.push(Suppressed {
                    rule: f.rule.clone(),
                    server: Some(f.server.clone()),
                    reason: format!(
                        "accepted at approval by {} ({}): {}",
                        lock.approval.by, lock.approval.at, a.reason
                    ),
                    count: 1,
                });
                false
            }
            None => true,
        }
    });

    // Policy: allowlist, credentials, requirements, remaps and ignores.
    let specs: Vec<ServerSpec> = subjects.iter().filter_map(|s| s.spec.clone()).collect();
    let (mut findings, warnings, policy_fail_on) = match &policy {
        Some(p) => {
            let before = findings.clone();
            let outcome = p.evaluate(&specs, findings, &DiskLocks { dir: &lock_dir });
            for ig in &p.ignore {
                let count = before
                    .iter()
                    .filter(|f| {
                        f.rule == ig.rule
                            && ig
                                .server
                                .as_deref()
                                .is_none_or(|s| crate::policy::glob::matches(s, &f.server))
                    })
                    .count();
                if count > 0 {
                    suppressed.push(Suppressed {
                        rule: ig.rule.clone(),
                        server: ig.server.clone(),
                        reason: format!("ignored by policy ({}): {}", ig.origin, ig.reason),
                        count,
                    });
                }
            }
            (outcome.findings, outcome.warnings, outcome.fail_on)
        }
        None => (findings, Vec::new(), Severity::High),
    };
    findings.sort_by(|a, b| a.sort_key().cmp(&b.sort_key()));
    findings.dedup();

    let mut report = ScanReport::new(servers, findings, judge.fail_on.unwrap_or(policy_fail_on));
    report.suppressed = suppressed;
    report.warnings = warnings.iter().map(PolicyWarning::to_string).collect();
    report.rules = crate::catalog::catalog();
    report.root = Some(cwd.to_path_buf());
    Ok(report)
}
