//! `mcpvet scan`: audit servers (host configs, snapshot files, a command after `--`, or
//! `--url`) — what runs, with which credentials, what the model reads, and whether it still
//! matches its lockfile — and report the findings.

use std::path::PathBuf;

use anyhow::Context;
use clap::Args;

use super::Global;
use super::pipeline::{self, JudgeArgs};
use super::targets::TargetArgs;
use crate::error::Exit;
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
    /// Write the report to this file (atomically) instead of stdout.
    #[arg(short, long, value_name = "FILE")]
    pub output: Option<PathBuf>,
}

pub fn run(args: ScanArgs, g: Global) -> anyhow::Result<Exit> {
    let cwd = std::env::current_dir().context("cannot read the current folder")?;
    let subjects = pipeline::gather(&args.targets, g)?;
    let report = pipeline::judge(subjects, &args.judge, &cwd, Vec::new())?;
    match &args.output {
        Some(path) => {
            let text = report::render(args.format, &report, &report::RenderOptions::default());
            report::write_file_atomic(path, text.as_bytes())
                .with_context(|| format!("cannot write {}", path.display()))?;
            Ok(report::exit_for(&report))
        }
        None => Ok(report::emit(args.format, &report, g.verbose, g.quiet)?),
    }
}
