//! The pipeline flags `scan`, `check` and `review` share, mapped onto the library's
//! [`crate::pipeline`]: targets → snapshots → findings → one [`ScanReport`] for the
//! renderers.
//!
//! Nothing here prints (progress goes through the report layer).

use std::path::{Path, PathBuf};

use anyhow::Context;
use clap::Args;

use super::Global;
use super::targets::{self, TargetArgs};
use crate::model::finding::{Finding, Severity};
use crate::pipeline::{self as library, JudgeOptions, PolicySource};
use crate::report::ScanReport;

pub use crate::pipeline::Subject;

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
    /// Report only findings this baseline file (`mcpvet baseline`) does not list.
    #[arg(long, value_name = "FILE")]
    pub baseline: Option<PathBuf>,
    /// The definition rules alone: drop the learned scorer's `learned-intent-score` findings.
    #[arg(long)]
    pub no_learned: bool,
}

impl Default for JudgeArgs {
    fn default() -> Self {
        JudgeArgs {
            policy: None,
            no_policy: false,
            rules_dirs: Vec::new(),
            lock_dir: PathBuf::from("lockfiles"),
            fail_on: None,
            baseline: None,
            no_learned: false,
        }
    }
}

impl JudgeArgs {
    /// The judging options these flags describe.
    pub fn options(&self) -> JudgeOptions {
        JudgeOptions {
            policy: match (&self.policy, self.no_policy) {
                (_, true) => PolicySource::None,
                (Some(p), false) => PolicySource::File(p.clone()),
                (None, false) => PolicySource::Find,
            },
            rules_dirs: self.rules_dirs.clone(),
            lock_dir: self.lock_dir.clone(),
            fail_on: self.fail_on,
            baseline: self.baseline.clone(),
            learned: !self.no_learned,
        }
    }
}

/// What [`gather`] found: the subjects, the config files read, the warnings for the report
/// (config files skipped; more stdio servers started at once than there are CPU cores), and
/// the stdio servers launched without the sandbox.
#[derive(Debug, Clone)]
pub struct Gathered {
    pub subjects: Vec<Subject>,
    pub sources: Vec<String>,
    pub warnings: Vec<String>,
    pub unsandboxed: Vec<String>,
}

/// Resolve the targets and obtain a snapshot (or an error) for each: probe live servers
/// concurrently, or read snapshot files. A probe failure stays with its server. `policy`
/// names the servers allowed network inside the sandbox.
pub fn gather(args: &TargetArgs, policy: &PolicySource, g: Global) -> anyhow::Result<Gathered> {
    gather_warming(args, policy, g, None, false)
}

/// [`gather`] that, once the targets are resolved, tells the rules loading ahead whether any
/// server is to be probed live (only then is the audit's warm-up worth its CPU: see
/// [`library::RulesAhead`]). With `defer_definitions`, snapshot files are read without their
/// definitions, which the audit then reads one window at a time
/// ([`library::GatherOptions::defer_definitions`]): for a command whose output needs no
/// definition (`scan`).
pub fn gather_warming(
    args: &TargetArgs,
    policy: &PolicySource,
    g: Global,
    rules: Option<&mut library::RulesAhead>,
    defer_definitions: bool,
) -> anyhow::Result<Gathered> {
    let cwd = std::env::current_dir().context("cannot read the current folder")?;
    let resolved = args.resolve_discovering()?;
    if let Some(rules) = rules {
        let live = !args.offline && resolved.targets.iter().any(|t| t.snapshot_file.is_none());
        rules.warm(live);
    }
    if resolved.targets.is_empty() {
        anyhow::bail!(
            "nothing to audit: no project config (`.mcp.json`, `.vscode/mcp.json`, `.cursor/mcp.json`, …) in {}; give config or snapshot files, `--url URL`, `-- CMD ARGS…`, or --discover",
            cwd.display()
        );
    }
    let mut opts = args.gather_options()?;
    opts.defer_definitions = defer_definitions;
    opts.probe.sandbox_net_servers = library::sandbox_network(&resolved.targets, policy, &cwd)?;
    let progress = targets::stderr_progress(g);
    let started = std::time::Instant::now();
    let subjects = library::gather(resolved.targets, &opts, &progress)?;
    let cores = std::thread::available_parallelism().map_or(1, std::num::NonZeroUsize::get);
    let mut warnings = resolved.skipped;
    warnings.extend(library::concurrency_note(
        &subjects,
        &opts,
        cores,
        started.elapsed(),
    ));
    let unsandboxed = library::unsandboxed(&subjects, &opts);
    Ok(Gathered {
        subjects,
        sources: resolved.sources,
        warnings,
        unsandboxed,
    })
}

/// Say on stderr which config files were read (found in the project or by `--discover`), for
/// commands whose stdout is not a table (`lock`, `diff`, `review`); nothing with `--quiet`.
pub fn announce_sources(gathered: &Gathered, g: Global) {
    if g.quiet {
        return;
    }
    for s in &gathered.sources {
        crate::report::eprint_line(&format!("read {s}"));
    }
}

/// The policy file to use, if any: `--policy`, else `mcpvet.toml` found from `cwd` upwards.
pub fn policy_path(judge: &JudgeArgs, cwd: &Path) -> Option<PathBuf> {
    library::policy_path(&judge.options().policy, cwd)
}

/// Start loading the rules (`--rules` folders included) while the servers start (see
/// [`library::RulesAhead`]); [`judge_with`] takes the result.
pub fn rules_ahead(judge: &JudgeArgs) -> library::RulesAhead {
    library::RulesAhead::start(&judge.rules_dirs)
}

/// [`judge`] with the rules [`rules_ahead`] loaded.
pub fn judge_with(
    subjects: Vec<Subject>,
    judge: &JudgeArgs,
    cwd: &Path,
    extra_findings: Vec<Finding>,
    rules: library::RulesAhead,
) -> anyhow::Result<ScanReport> {
    let loaded = rules.finish()?;
    library::judge_with(subjects, &judge.options(), cwd, extra_findings, loaded)
}

/// Judge the subjects with the options the flags describe (see [`library::judge`]).
pub fn judge(
    subjects: Vec<Subject>,
    judge: &JudgeArgs,
    cwd: &Path,
    extra_findings: Vec<Finding>,
) -> anyhow::Result<ScanReport> {
    library::judge(subjects, &judge.options(), cwd, extra_findings)
}
