//! `mcpvet diff`: compare servers (live, or snapshot files) against their lockfiles and show
//! every added, removed and changed definition with a readable text diff. Exit 1 on drift.

use std::path::PathBuf;

use crate::model::escape::line;
use anyhow::Context;
use clap::Args;
use serde::Serialize;

use super::Global;
use super::targets::TargetArgs;
use crate::error::Exit;
use crate::lock::{LockDiff, Lockfile, diff_with_spec, path_for};

/// Arguments of `mcpvet diff`.
#[derive(Debug, Args)]
pub struct DiffArgs {
    /// What to compare: config files, snapshot files, `--url URL` or `-- CMD ARGS…`.
    #[command(flatten)]
    pub targets: TargetArgs,
    /// Directory holding the lockfiles.
    #[arg(long, value_name = "DIR", default_value = "lockfiles")]
    pub lock_dir: PathBuf,
    /// Output format.
    #[arg(long, value_enum, default_value_t = DiffFormat::Text)]
    pub format: DiffFormat,
    /// Deprecated spelling of `--format json`.
    #[arg(long, hide = true, conflicts_with = "format")]
    pub json: bool,
    #[command(flatten)]
    pub verbosity: super::Verbosity,
}

/// `mcpvet diff --format`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum DiffFormat {
    /// A readable text diff per server.
    Text,
    /// The structured diff as JSON (camelCase keys).
    Json,
}

/// One server's comparison.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct DiffEntry {
    pub server: String,
    pub lock: PathBuf,
    /// False when the server has no lock yet (which counts as drift).
    pub locked: bool,
    pub diff: Option<LockDiff>,
}

pub fn run(args: DiffArgs, g: Global) -> anyhow::Result<Exit> {
    let json = super::json_format(args.format == DiffFormat::Json, args.json);
    let obtained = super::lock::obtain(&args.targets, g)?;
    let mut entries = Vec::new();
    for (spec, snap) in &obtained.servers {
        let name = spec
            .as_ref()
            .map_or(snap.server.as_str(), |s| s.name.as_str());
        let path = path_for(&args.lock_dir, name);
        let lock = Lockfile::read_for(&args.lock_dir, name)
            .with_context(|| format!("cannot compare `{name}` with its lock"))?;
        entries.push(DiffEntry {
            server: name.to_owned(),
            diff: lock
                .as_ref()
                .map(|l| diff_with_spec(l, spec.as_ref(), snap)),
            locked: lock.is_some(),
            lock: path,
        });
    }
    let drifted = entries
        .iter()
        .any(|e| e.diff.as_ref().is_none_or(|d| !d.is_empty()));
    let text = if json {
        let mut s = serde_json::to_string_pretty(&entries)?;
        s.push('\n');
        s
    } else {
        entries
            .iter()
            .filter(|e| !g.quiet || e.diff.as_ref().is_none_or(|d| !d.is_empty()))
            .map(|e| match &e.diff {
                None => format!(
                    "{}: no lock at {} (review it and approve it with `mcpvet lock`)\n",
                    line(&e.server),
                    line(&e.lock.display().to_string())
                ),
                Some(d) => d.to_text(),
            })
            .collect()
    };
    crate::report::write_stdout(text.as_bytes())?;
    let verdict = if drifted { Exit::Findings } else { Exit::Clean };
    Ok(super::lock::worse(
        verdict,
        obtained.report_failures("compared"),
    ))
}
