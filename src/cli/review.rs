//! `mcpvet review`: a markdown trust review of one server, from a saved snapshot.
//!
//! Builds a [`ScanReport`] for the server and hands it to [`report::review::render_review`].
//! Exit code: 1 when the decision is driven by a finding at the gate (as `scan`), else 0.

use std::path::{Path, PathBuf};

use anyhow::{Context, bail};
use clap::Args;

use super::Global;
use crate::audit::catalog::catalog;
use crate::audit::finding::{Finding, Severity};
use crate::error::Exit;
use crate::report::{self, OutputSample, ScanReport, ServerReport};
use crate::snapshot::ServerSnapshot;

/// Arguments of `mcpvet review`.
#[derive(Debug, Args)]
pub struct ReviewArgs {
    /// A saved snapshot of the server (`mcpvet snapshot -o FILE`, or a `tools/list` result).
    pub target: PathBuf,
    /// The server's name in the review (defaults to the snapshot's).
    #[arg(long)]
    pub server: Option<String>,
    /// A saved `tools/call` result to show as the output the model reads (repeatable):
    /// `{"tool": NAME, "result": {...}}` or a JSON-RPC response with `--output-tool`.
    #[arg(long = "output-sample", value_name = "FILE")]
    pub output_samples: Vec<PathBuf>,
    /// The tool that produced the output samples, when the files do not name it.
    #[arg(long, value_name = "TOOL")]
    pub output_tool: Option<String>,
    /// Write the review to FILE (atomically) instead of stdout.
    #[arg(short, long, value_name = "FILE")]
    pub output: Option<PathBuf>,
    /// Findings at or above this severity reject the server.
    #[arg(long, default_value = "high", value_name = "SEVERITY")]
    pub fail_on: Severity,
}

pub fn run(args: ReviewArgs, g: Global) -> anyhow::Result<Exit> {
    let snapshot = ServerSnapshot::load(&args.target)?;
    let name = args
        .server
        .clone()
        .unwrap_or_else(|| snapshot.server.clone());
    let mut server = ServerReport::new(name.clone(), None, Some(snapshot));
    server.snapshot_path = Some(args.target.clone());
    for path in &args.output_samples {
        server
            .output_samples
            .push(read_sample(path, args.output_tool.as_deref())?);
    }
    let findings = audit(&server);
    let mut report = ScanReport::new(vec![server], findings, args.fail_on);
    report.rules = catalog();
    let Some(md) = report::review::render_review(&report, &name) else {
        bail!("no server named `{name}` in {}", args.target.display());
    };
    match &args.output {
        Some(path) => {
            report::write_file_atomic(path, md.as_bytes())
                .with_context(|| format!("cannot write the review to {}", path.display()))?;
            if !g.quiet {
                report::eprint_line(&format!("wrote {}", path.display()));
            }
        }
        None => report::write_stdout(md.as_bytes())?,
    }
    Ok(report::exit_for(&report))
}

/// The findings for a snapshot-only review: the definition audit's, once it is wired in here
/// (the rule families are built on other branches; this build carries their documentation
/// only, so it reports no finding of its own).
fn audit(_server: &ServerReport) -> Vec<Finding> {
    Vec::new()
}

fn read_sample(path: &Path, tool: Option<&str>) -> anyhow::Result<OutputSample> {
    let text = std::fs::read_to_string(path)
        .with_context(|| format!("cannot read output sample {}", path.display()))?;
    let value: serde_json::Value = serde_json::from_str(&text)
        .with_context(|| format!("output sample {} is not valid JSON", path.display()))?;
    Ok(OutputSample::from_value(
        &value,
        tool,
        Some(path.to_path_buf()),
    )?)
}
