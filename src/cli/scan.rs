//! `mcpvet scan`: audit servers (host configs, snapshot files, a command after `--`, or
//! `--url`) — what runs, with which credentials, what the model reads, and whether it still
//! matches its lockfile — and report the findings.

use std::path::PathBuf;

use anyhow::Context;
use clap::Args;

use super::Global;
use super::pipeline::{self, JudgeArgs, Subject};
use super::targets::TargetArgs;
use crate::error::Exit;
use crate::mcp::ProbeOptions;
use crate::model::finding::{Confidence, Control, Finding, Location, Severity};
use crate::model::rule_id;
use crate::model::snapshot::ServerSnapshot;
use crate::model::spec::ServerSpec;
use crate::report::{self, Format};

/// Arguments of `mcpvet scan`.
#[derive(Debug, Args)]
pub struct ScanArgs {
    #[command(flatten)]
    pub targets: TargetArgs,
    #[command(flatten)]
    pub judge: JudgeArgs,
    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Table)]
    pub format: Format,
    /// Write the report to this file (atomically) instead of stdout (`-` is stdout).
    #[arg(short, long, value_name = "FILE")]
    pub output: Option<PathBuf>,
    /// List every live server twice more — once again as mcpvet, once claiming to be a popular
    /// host — and report any difference as `cloaked-definitions`.
    #[arg(long, conflicts_with = "offline")]
    pub cloak_check: bool,
    #[command(flatten)]
    pub verbosity: super::Verbosity,
    #[command(flatten)]
    pub color: super::ColorArg,
}

/// The identity the cloaking check claims: a widely used coding assistant.
const POPULAR_HOST: (&str, &str) = ("claude-code", "2.1.0");

pub fn run(args: ScanArgs, g: Global) -> anyhow::Result<Exit> {
    let cwd = std::env::current_dir().context("cannot read the current folder")?;
    let policy = args.judge.options().policy;
    // The rules load (and the audit's matchers compile) while the servers start.
    let mut rules = pipeline::rules_ahead(&args.judge);
    // The report shows no definition: snapshot files are audited one window at a time, never
    // held whole.
    let gathered = pipeline::gather_warming(&args.targets, &policy, g, Some(&mut rules), true)?;
    let cloaking = if args.cloak_check {
        cloak_check(&gathered.subjects, &args.targets, &policy)?
    } else {
        Vec::new()
    };
    let mut report = pipeline::judge_with(gathered.subjects, &args.judge, &cwd, cloaking, rules)?;
    report.sources = gathered.sources;
    report.warnings.extend(gathered.warnings);
    report.unsandboxed = gathered.unsandboxed;
    // The renderer redacts the findings in the report rather than in a copy.
    let exit = match super::output_file(args.output.as_deref()) {
        Some(path) => {
            let text = report::render_in_place(
                args.format,
                &mut report,
                &report::RenderOptions::default(),
            );
            crate::model::fsio::write_atomic(path, text.as_bytes())
                .with_context(|| format!("cannot write {}", path.display()))?;
            report::exit_for(&report)
        }
        None => report::emit(args.format, &mut report, g.verbose, g.quiet, g.color)?,
    };
    // The report holds every definition read: for a large scan, millions of small
    // allocations. Freeing them one by one just before the process exits takes time and
    // gives nothing back to anyone, so they are left, deliberately and only here at the
    // edge, to the operating system (the report is written and flushed by now).
    std::mem::forget(report);
    Ok(exit)
}

/// Re-list every live server that answered, as mcpvet and as a popular host, and compare
/// both listings with the first one. A server that answers differently depending on who
/// asks, or from one listing to the next, shows the model something other than what was
/// reviewed.
fn cloak_check(
    subjects: &[Subject],
    targets: &TargetArgs,
    policy: &crate::pipeline::PolicySource,
) -> anyhow::Result<Vec<Finding>> {
    let live: Vec<(&ServerSpec, &ServerSnapshot)> = subjects
        .iter()
        .filter_map(|s| Some((s.spec.as_ref()?, s.snapshot.as_ref()?)))
        .collect();
    if live.is_empty() {
        return Ok(Vec::new());
    }
    let specs: Vec<ServerSpec> = live.iter().map(|(spec, _)| (*spec).clone()).collect();
    let mut opts = targets.probe_options()?;
    let cwd = std::env::current_dir().context("cannot read the current folder")?;
    let resolved: Vec<crate::pipeline::Target> = specs
        .iter()
        .map(|s| crate::pipeline::Target {
            spec: Some(s.clone()),
            snapshot_file: None,
        })
        .collect();
    opts.sandbox_net_servers = crate::pipeline::sandbox_network(&resolved, policy, &cwd)?;
    let again = crate::mcp::probe_all(&specs, &opts, &|_| {});
    let as_host = ProbeOptions {
        client_info: Some(serde_json::json!({"name": POPULAR_HOST.0, "version": POPULAR_HOST.1})),
        ..opts
    };
    let disguised = crate::mcp::probe_all(&specs, &as_host, &|_| {});
    let mut out = Vec::new();
    for (((spec, first), second), third) in live.iter().zip(again).zip(disguised) {
        for (other, what) in [
            (second, "a second listing as mcpvet".to_string()),
            (
                third,
                format!("a listing that claimed to be `{}`", POPULAR_HOST.0),
            ),
        ] {
            match other {
                Ok(snap) => {
                    out.extend(crate::lock::cloak_findings(&spec.name, first, &snap, &what))
                }
                Err(e) => out.push(Finding {
                    rule: rule_id::CLOAKED_DEFINITIONS.into(),
                    severity: Severity::High,
                    confidence: Confidence::Low,
                    server: spec.name.clone(),
                    item: None,
                    location: Location {
                        config: spec.origin.clone(),
                        pointer: None,
                    },
                    message: format!(
                        "`{}` answered the first listing but failed {what}: {}",
                        spec.name, e.message
                    ),
                    evidence: None,
                    control: Control::LockAndReapprove,
                }),
            }
        }
    }
    Ok(out)
}
