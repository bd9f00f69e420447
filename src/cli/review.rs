//! `mcpvet review`: a markdown trust review of a proposed server — from a config entry, a
//! live server or a saved snapshot — judged by the same pipeline as `scan`.
//!
//! Builds the report and hands it to [`report::review::render_review`].
//! Exit code: 1 when the decision is driven by a finding at the gate (as `scan`), else 0.

use std::path::{Path, PathBuf};

use anyhow::{Context, bail};
use clap::Args;

use super::Global;
use super::pipeline::{self, JudgeArgs};
use super::targets::TargetArgs;
use crate::error::Exit;
use crate::report::{self, OutputSample};

/// Arguments of `mcpvet review`.
#[derive(Debug, Args)]
pub struct ReviewArgs {
    /// What to review: config files, snapshot files, `--url URL` or `-- CMD ARGS…`.
    #[command(flatten)]
    pub targets: TargetArgs,
    #[command(flatten)]
    pub judge: JudgeArgs,
    /// The server to review when the targets hold several (default: every one).
    #[arg(long, value_name = "NAME")]
    pub server: Option<String>,
    /// A saved `tools/call` result to show as the output the model reads (repeatable):
    /// `{"tool": NAME, "result": {...}}` or a JSON-RPC response with `--output-tool`.
    #[arg(long = "output-sample", value_name = "FILE")]
    pub output_samples: Vec<PathBuf>,
    /// The tool that produced the output samples, when the files do not name it.
    #[arg(long, value_name = "TOOL")]
    pub output_tool: Option<String>,
    /// Write the review to FILE (atomically) instead of stdout (`-` is stdout).
    #[arg(short, long, value_name = "FILE")]
    pub output: Option<PathBuf>,
    #[command(flatten)]
    pub verbosity: super::Verbosity,
}

pub fn run(args: ReviewArgs, g: Global) -> anyhow::Result<Exit> {
    let cwd = std::env::current_dir().context("cannot read the current folder")?;
    // The rules load while the servers start.
    let mut rules = pipeline::rules_ahead(&args.judge);
    let gathered = pipeline::gather_warming(
        &args.targets,
        &args.judge.options().policy,
        g,
        Some(&mut rules),
        false,
    )?;
    pipeline::announce_sources(&gathered, g);
    let mut report = pipeline::judge_with(gathered.subjects, &args.judge, &cwd, Vec::new(), rules)?;
    report.unsandboxed = gathered.unsandboxed;
    let names: Vec<String> = match &args.server {
        Some(n) => {
            if !report.servers.iter().any(|s| &s.name == n) {
                let have: Vec<&str> = report.servers.iter().map(|s| s.name.as_str()).collect();
                bail!(
                    "no server named `{n}` among the targets (they hold: {})",
                    have.join(", ")
                );
            }
            vec![n.clone()]
        }
        None => report.servers.iter().map(|s| s.name.clone()).collect(),
    };
    if !args.output_samples.is_empty() {
        let [name] = names.as_slice() else {
            bail!("--output-sample needs one server: pass --server NAME");
        };
        let mut samples = Vec::new();
        for path in &args.output_samples {
            samples.push(read_sample(path, args.output_tool.as_deref())?);
        }
        if let Some(server) = report.servers.iter_mut().find(|s| &s.name == name) {
            server.output_samples = samples;
        }
    }
    let output = super::output_file(args.output.as_deref());
    if output.is_some() && names.len() > 1 {
        bail!(
            "-o writes one review, but the targets hold {} servers: pass --server NAME",
            names.len()
        );
    }
    let mut md = String::new();
    for name in &names {
        if let Some(one) = report::review::render_review(&report, name) {
            if !md.is_empty() {
                md.push_str("\n---\n\n");
            }
            md.push_str(&one);
        }
    }
    match output {
        Some(path) => {
            crate::model::fsio::write_atomic(path, md.as_bytes())
                .with_context(|| format!("cannot write the review to {}", path.display()))?;
            if !g.quiet {
                report::eprint_line(&format!("wrote {}", path.display()));
            }
        }
        None => report::write_stdout(md.as_bytes())?,
    }
    report.servers.retain(|s| names.contains(&s.name));
    report.findings.retain(|f| names.contains(&f.server));
    Ok(report::exit_for(&report))
}

fn read_sample(path: &Path, tool: Option<&str>) -> anyhow::Result<OutputSample> {
    let text = crate::model::fsio::read_text(path, crate::model::fsio::ReadKind::Snapshot)
        .with_context(|| format!("cannot read output sample {}", path.display()))?;
    let value: serde_json::Value = serde_json::from_str(&text)
        .with_context(|| format!("output sample {} is not valid JSON", path.display()))?;
    Ok(OutputSample::from_value(
        &value,
        tool,
        Some(path.to_path_buf()),
    )?)
}
