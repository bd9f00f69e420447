//! `mcpvet snapshot`: probe one server and save what it shows the model as a snapshot
//! file that `mcpvet scan --offline FILE` can audit and `mcpvet lock` can lock.

use std::path::{Path, PathBuf};

use anyhow::{Context, bail};
use clap::Args;

use super::Global;
use super::targets::{self, TargetArgs};
use crate::error::Exit;
use crate::model::escape::{MAX_SHOWN_BYTES, clip, line, sanitize};

/// Arguments of `mcpvet snapshot`.
#[derive(Debug, Args)]
pub struct SnapshotArgs {
    /// Where to write the snapshot (JSON; replaced atomically); `-` writes it to stdout.
    #[arg(short = 'o', long, value_name = "FILE")]
    pub output: PathBuf,
    #[command(flatten)]
    pub target: Box<TargetArgs>,
    #[command(flatten)]
    pub verbosity: super::Verbosity,
}

pub fn run(args: SnapshotArgs, g: Global) -> anyhow::Result<Exit> {
    if args.target.offline {
        bail!("`mcpvet snapshot` probes a live server; --offline makes no sense here");
    }
    if args.target.is_empty() {
        bail!(
            "nothing to snapshot: give `-- CMD ARGS…`, `--url URL`, or a config file with `--name ENTRY`"
        );
    }
    let resolved = args.target.resolve()?;
    if let Some(f) = resolved.iter().find_map(|t| t.snapshot_file.as_ref()) {
        bail!("{} is already a snapshot file", f.display());
    }
    let names: Vec<String> = resolved.iter().map(targets::Target::display_name).collect();
    let target = match resolved.len() {
        0 => bail!("the config holds no server to snapshot"),
        1 => &resolved[0],
        _ => bail!(
            "`mcpvet snapshot` saves one server; choose one with --name ({})",
            names.join(", ")
        ),
    };
    let cwd = std::env::current_dir().context("cannot read the current folder")?;
    let mut target_args = (*args.target).clone();
    target_args.sandbox_net_servers = crate::pipeline::sandbox_network(
        std::slice::from_ref(target),
        &crate::pipeline::PolicySource::Find,
        &cwd,
    )?;
    let opts = target_args.gather_options()?;
    let subjects = [crate::pipeline::Subject {
        spec: target.spec.clone(),
        snapshot: None,
        snapshot_path: None,
        error: None,
    }];
    let unsandboxed = crate::pipeline::unsandboxed(&subjects, &opts);
    let progress = targets::stderr_progress(g);
    let results = targets::obtain(std::slice::from_ref(target), &target_args, &progress);
    // Said once the server has run, as `scan` does: worded before, its redaction (built on
    // first use) held back the server's start.
    crate::report::warn_unsandboxed(&unsandboxed);
    let mut results = results?;
    let snap = results
        .pop()
        .context("no result")?
        .map_err(|e| e.context("the server could not be probed"))?;
    // A snapshot file may be committed or shared: its secrets are written as `REDACTED`.
    let stored = crate::model::redact::redact_snapshot(&snap, crate::model::redact::Style::Lock);
    let written = match super::output_file(Some(&args.output)) {
        Some(path) => {
            write_atomic(path, stored.to_pretty_json().as_bytes())?;
            format!("wrote {}", line(&path.display().to_string()))
        }
        None => {
            crate::report::write_stdout(stored.to_pretty_json().as_bytes())?;
            "wrote the snapshot to stdout".to_owned()
        }
    };
    if !g.quiet {
        let p = snap.probe.as_ref();
        crate::report::eprint_line(&format!(
            "{written}: {} — {} ({} ms)",
            line(&snap.server),
            line(&crate::mcp::summarize(&snap)),
            p.map(|p| p.elapsed_ms).unwrap_or(0)
        ));
        if g.verbose {
            for n in p.map(|p| p.notes.as_slice()).unwrap_or(&[]) {
                crate::report::eprint_line(&format!("  note: {}", line(&clip(n, MAX_SHOWN_BYTES))));
            }
            if let Some(err) = p.map(|p| p.stderr.trim()).filter(|e| !e.is_empty()) {
                crate::report::eprint_line(&format!(
                    "  server stderr:\n    │ {}",
                    sanitize(&clip(err, 4 * MAX_SHOWN_BYTES))
                        .lines()
                        .collect::<Vec<_>>()
                        .join("\n    │ ")
                ));
            }
        }
    }
    Ok(Exit::Clean)
}

/// Write `bytes` to `path` atomically, naming the file in the error.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> anyhow::Result<()> {
    crate::model::fsio::write_atomic(path, bytes)
        .with_context(|| format!("cannot write {}", path.display()))
}
