//! `mcpvet check`: the fast static CI gate. Parses host configs, runs the launch rules, applies
//! the team policy and looks at the lockfiles on disk. Starts no server, opens no socket.
//!
//! The command computes a [`CheckReport`] and hands it to [`render`], the one call to swap for
//! the report module's renderers.

use std::path::{Path, PathBuf};

use anyhow::{Context, bail};
use clap::Args;

use super::Global;
use super::pipeline::{self, JudgeArgs, Subject};
use crate::config::{self, HostFormat, Scope};
use crate::error::Exit;
use crate::model::spec::ServerSpec;
use crate::report::{self, Format, ScanReport};

/// Arguments of `mcpvet check`.
#[derive(Debug, Args)]
pub struct CheckArgs {
    /// Host configuration files (any supported host; the format is detected).
    /// Without files and without `--discover`, the project's own configs are checked.
    pub configs: Vec<PathBuf>,
    /// Read the given files as this host format instead of detecting it.
    #[arg(long, value_name = "HOST")]
    pub host: Option<String>,
    /// Also check every known user and project config location on this machine.
    #[arg(long)]
    pub discover: bool,
    #[command(flatten)]
    pub judge: JudgeArgs,
    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Table)]
    pub format: Format,
    /// Write the report to this file (atomically) instead of stdout (`-` is stdout).
    #[arg(short, long, value_name = "FILE")]
    pub output: Option<PathBuf>,
    #[command(flatten)]
    pub verbosity: super::Verbosity,
    #[command(flatten)]
    pub color: super::ColorArg,
}

/// One configuration file that was read (or skipped).
#[derive(Debug, Clone, serde::Serialize)]
pub struct Source {
    pub path: PathBuf,
    pub host: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub scope: Option<Scope>,
    pub servers: Vec<String>,
    /// Why a discovered user-scope file was skipped.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

impl std::fmt::Display for Source {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let scope = self
            .scope
            .map(|sc| format!(", {} scope", sc.as_str()))
            .unwrap_or_default();
        let servers = if self.servers.is_empty() {
            "no servers".to_string()
        } else {
            self.servers.join(", ")
        };
        write!(
            f,
            "{} ({}{scope}): {servers}",
            self.path.display(),
            self.host
        )
    }
}

pub fn run(args: CheckArgs, g: Global) -> anyhow::Result<Exit> {
    let cwd = std::env::current_dir().context("cannot read the current folder")?;
    let mut report = build(&args, &cwd)?;
    match super::output_file(args.output.as_deref()) {
        Some(path) => {
            let text = report::render_in_place(
                args.format,
                &mut report,
                &report::RenderOptions::default(),
            );
            crate::model::fsio::write_atomic(path, text.as_bytes())
                .with_context(|| format!("cannot write {}", path.display()))?;
            Ok(report::exit_for(&report))
        }
        None => {
            if !args.format.for_people() {
                for w in &report.warnings {
                    report::eprint_line(&format!("warning: {w}"));
                }
            }
            Ok(report::emit(
                args.format,
                &mut report,
                g.verbose,
                g.quiet,
                g.color,
            )?)
        }
    }
}

/// Compute the report (no printing), relative to `cwd`.
pub fn build(args: &CheckArgs, cwd: &Path) -> anyhow::Result<ScanReport> {
    let forced: Option<HostFormat> = args
        .host
        .as_deref()
        .map(str::parse)
        .transpose()
        .map_err(anyhow::Error::msg)?;
    let mut targets: Vec<(PathBuf, Option<HostFormat>, Option<Scope>)> = args
        .configs
        .iter()
        .map(|p| (p.clone(), forced, None))
        .collect();
    if args.discover || args.configs.is_empty() {
        let home = std::env::var_os("HOME")
            .or_else(|| std::env::var_os("USERPROFILE"))
            .map(PathBuf::from);
        let found = config::discover(home.as_deref().unwrap_or(cwd), cwd);
        for d in found {
            if !args.discover && d.scope == Scope::User {
                continue;
            }
            // Paths under the working folder stay relative, as CI annotations expect.
            let path = d
                .path
                .strip_prefix(cwd)
                .map_or(d.path.clone(), Path::to_path_buf);
            if !targets.iter().any(|(p, _, _)| p == &path || p == &d.path) {
                targets.push((path, Some(d.host), Some(d.scope)));
            }
        }
    }
    if targets.is_empty() {
        bail!(
            "no configuration files given and none found in {} (pass files, or --discover)",
            cwd.display()
        );
    }
    let mut sources = Vec::new();
    let mut specs: Vec<ServerSpec> = Vec::new();
    for (path, host, scope) in targets {
        let parsed = match host {
            Some(h) => config::load_path_as(&path, h),
            None => config::load_path(&path),
        };
        let parsed = match (parsed, scope) {
            (Ok(p), _) => p,
            (Err(e), Some(Scope::User)) => {
                sources.push(Source {
                    path: path.clone(),
                    host: host.map_or("unknown".into(), |h| h.id().to_string()),
                    scope,
                    servers: Vec::new(),
                    error: Some(e.to_string()),
                });
                continue;
            }
            (Err(e), _) => return Err(e.into()),
        };
        sources.push(Source {
            path: path.clone(),
            host: host.map_or_else(
                || {
                    parsed
                        .first()
                        .map_or("unknown".into(), |s| s.host.to_string())
                },
                |h| h.id().to_string(),
            ),
            scope,
            servers: parsed.iter().map(|s| s.name.clone()).collect(),
            error: None,
        });
        specs.extend(parsed);
    }
    let subjects: Vec<Subject> = specs
        .into_iter()
        .map(|spec| Subject {
            spec: Some(spec),
            snapshot: None,
            snapshot_path: None,
            error: None,
        })
        .collect();
    let mut report = pipeline::judge(subjects, &args.judge, cwd, Vec::new())?;
    let skipped: Vec<String> = sources
        .iter()
        .filter_map(|s| {
            s.error
                .as_ref()
                .map(|e| format!("skipped {} ({}): {e}", s.path.display(), s.host))
        })
        .collect();
    report.sources = sources
        .iter()
        .filter(|s| s.error.is_none())
        .map(ToString::to_string)
        .collect();
    report.warnings.splice(0..0, skipped);
    Ok(report)
}
