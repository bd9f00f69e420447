//! `mcpvet baseline`: write the current findings' fingerprints to a baseline file
//! (`mcpvet-baseline.toml`), each with a `reason` a reviewer fills in, so that
//! `scan`/`check --baseline FILE` report only new findings.
//!
//! The findings are those of `mcpvet scan` with the same targets and flags (or of
//! `mcpvet check` with `--check`), after the policy's remaps and ignores. An existing file is
//! rewritten: reasons of entries still found are kept, entries whose finding is gone are
//! dropped, entries this run could not check (their server was not judged) are kept. The
//! format and its rules are documented in [`crate::policy::suppress`].

use std::path::PathBuf;

use anyhow::{Context, bail};
use clap::Args;

use super::Global;
use super::check::{self, CheckArgs};
use super::pipeline::{self, JudgeArgs};
use super::targets::TargetArgs;
use crate::error::Exit;
use crate::policy::suppress::{self, Baseline, BaselineEntry};
use crate::report::{self, Format};

/// Arguments of `mcpvet baseline`.
#[derive(Debug, Args)]
pub struct BaselineArgs {
    #[command(flatten)]
    pub targets: TargetArgs,
    #[command(flatten)]
    pub verbosity: super::Verbosity,
    #[command(flatten)]
    pub judge: JudgeArgs,
    /// Take the findings of `mcpvet check` (configs, launch rules, policy, lockfiles; starts
    /// nothing) instead of those of `mcpvet scan`. TARGETs are then config files.
    #[arg(long)]
    pub check: bool,
    /// The baseline file to write; an existing one is updated (reasons kept). `-` writes a
    /// new baseline to stdout.
    #[arg(short, long, value_name = "FILE", default_value = suppress::DEFAULT_FILE)]
    pub output: PathBuf,
    /// The reason recorded for every new entry (and every kept one still without a reason).
    /// Without it new entries get an empty `reason`, and the file is refused until a reviewer
    /// fills each one in.
    #[arg(long, value_name = "TEXT")]
    pub reason: Option<String>,
}

pub fn run(args: BaselineArgs, g: Global) -> anyhow::Result<Exit> {
    let cwd = std::env::current_dir().context("cannot read the current folder")?;
    if args.judge.baseline.is_some() {
        bail!(
            "`mcpvet baseline` writes a baseline; it does not apply one (the file to write is `-o FILE`)"
        );
    }
    if args.reason.as_deref().is_some_and(|r| r.trim().is_empty()) {
        bail!("--reason must say why the findings are accepted (it is empty)");
    }
    let report = if args.check {
        let t = &args.targets;
        if !t.urls.is_empty() || !t.command.is_empty() {
            bail!("--check reads config files only: drop `--url` and `-- CMD`");
        }
        check::build(
            &CheckArgs {
                configs: t.targets.clone(),
                host: None,
                discover: t.discover,
                judge: args.judge.clone(),
                format: Format::Table,
                output: None,
                verbosity: args.verbosity,
                color: super::ColorArg::default(),
            },
            &cwd,
        )?
    } else {
        let gathered = pipeline::gather(&args.targets, &args.judge.options().policy, g)?;
        pipeline::judge(gathered.subjects, &args.judge, &cwd, Vec::new())?
    };

    let to_stdout = args.output.as_os_str() == "-";
    let previous = if !to_stdout && args.output.exists() {
        Baseline::load_draft(&args.output).with_context(|| {
            format!(
                "{} exists but is not a baseline this mcpvet can update (move it away to start over)",
                args.output.display()
            )
        })?
    } else {
        Baseline::default()
    };
    let prints = report.fingerprinter();
    let judged = |e: &BaselineEntry| crate::pipeline::model::judged(&report.servers, e);
    let (baseline, stats) = previous.updated(
        &args.output,
        &report.findings,
        &prints,
        args.reason.as_deref(),
        &judged,
    );
    if to_stdout {
        report::write_stdout(baseline.to_toml().as_bytes())?;
    } else {
        crate::model::fsio::write_atomic(&args.output, baseline.to_toml().as_bytes())
            .with_context(|| format!("cannot write {}", args.output.display()))?;
    }
    let unprobed: Vec<&str> = report
        .servers
        .iter()
        .filter(|s| s.error.is_some())
        .map(|s| s.name.as_str())
        .collect();
    report::suppress::baseline_written(&args.output, &stats, &unprobed, g.quiet);
    Ok(if unprobed.is_empty() {
        Exit::Clean
    } else {
        Exit::ProbeFailed
    })
}
