//! `mcpvet guard --install CONFIG` and `--uninstall CONFIG`: rewrite a host config so every
//! locked server runs behind `mcpvet guard` (or back). A dry run by default: the diff is
//! printed and nothing is written; `--apply` saves a backup next to the config (never over an
//! existing one) and replaces the config atomically. The rewriting is
//! [`crate::config::install`]; the output is [`crate::report::guard_install`].

use std::cell::RefCell;
use std::path::{Path, PathBuf};

use anyhow::{Context, bail};
use clap::Args;

use crate::config::install::{self, Mode, Options};
use crate::error::Exit;
use crate::report::guard_install::{Applied, render};

/// The `--install`/`--uninstall` arguments of `mcpvet guard` (flattened into its arguments).
#[derive(Debug, Clone, Default, Args)]
pub struct InstallArgs {
    /// Rewrite the host config CONFIG so every server with a lockfile runs behind the guard
    /// (a dry run printing the diff unless --apply is given).
    #[arg(long, value_name = "CONFIG", conflicts_with = "uninstall")]
    pub install: Option<PathBuf>,
    /// Restore the original command of every guarded server of CONFIG (a dry run unless
    /// --apply is given).
    #[arg(long, value_name = "CONFIG")]
    pub uninstall: Option<PathBuf>,
    /// Write the change: a backup `CONFIG.mcpvet-backup` (or a timestamped one when that
    /// exists), then the new config, atomically.
    #[arg(long)]
    pub apply: bool,
    /// Folder of the lockfiles (`NAME.lock.json`), as written by `mcpvet lock`.
    #[arg(long, value_name = "DIR", default_value = "lockfiles")]
    pub lock_dir: PathBuf,
}

/// Run `--install` or `--uninstall`.
pub fn run_install(args: &InstallArgs) -> anyhow::Result<Exit> {
    let (config, mode) = match (&args.install, &args.uninstall) {
        (Some(c), None) => (c.as_path(), Mode::Install),
        (None, Some(c)) => (c.as_path(), Mode::Uninstall),
        _ => bail!("give `--install CONFIG` or `--uninstall CONFIG`"),
    };
    let shown = config.display().to_string();
    refuse_symlink(config)?;
    let text = crate::model::fsio::read_text(config, crate::model::fsio::ReadKind::Config)
        .with_context(|| format!("cannot read {shown}"))?;
    let lock_dir = std::path::absolute(&args.lock_dir)
        .with_context(|| format!("cannot resolve {}", args.lock_dir.display()))?;
    let bad_locks: RefCell<Vec<String>> = RefCell::new(Vec::new());
    let lock_for = |name: &str| -> Option<String> {
        match crate::lock::Lockfile::read_for(&lock_dir, name) {
            Ok(Some(_)) => Some(crate::lock::path_for(&lock_dir, name).display().to_string()),
            Ok(None) => None,
            Err(e) => {
                bad_locks.borrow_mut().push(e.to_string());
                None
            }
        }
    };
    let program = std::env::current_exe()
        .ok()
        .and_then(|p| p.to_str().map(str::to_string))
        .unwrap_or_else(|| "mcpvet".into());
    let opts = Options {
        program,
        lock_for: &lock_for,
    };
    let plan = install::plan(config, &text, mode, &opts)?;
    if let Some(first) = bad_locks.borrow().first() {
        bail!("{first}; fix or re-create the lockfile (`mcpvet lock`) and retry");
    }
    let applied = if args.apply && plan.changed() {
        let backup = write_backup(config, &text)?;
        crate::model::fsio::write_atomic(config, plan.after.as_bytes())
            .with_context(|| format!("cannot write {shown} (the backup {backup} is kept)"))?;
        Applied::Written { backup }
    } else {
        Applied::DryRun
    };
    crate::report::write_stdout(render(&plan, &shown, mode, &applied).as_bytes())?;
    Ok(Exit::Clean)
}

/// A config that is a symlink is refused: the file to change is its target, named in the error.
fn refuse_symlink(config: &Path) -> anyhow::Result<()> {
    let meta = std::fs::symlink_metadata(config)
        .with_context(|| format!("cannot read {}", config.display()))?;
    if meta.file_type().is_symlink() {
        let target = std::fs::canonicalize(config)
            .map_or_else(|_| "?".to_owned(), |t| t.display().to_string());
        bail!(
            "{} is a symlink to {target}; run this on the file it names so the backup and the new file sit beside it",
            config.display()
        );
    }
    Ok(())
}

/// Save the original bytes as `CONFIG.mcpvet-backup`, or, when that exists, as
/// `CONFIG.mcpvet-backup-<UTC time>`; never over an existing file.
fn write_backup(config: &Path, text: &str) -> anyhow::Result<String> {
    let base = format!("{}.mcpvet-backup", config.display());
    let stamp = jiff::Timestamp::now()
        .strftime("%Y%m%dT%H%M%SZ")
        .to_string();
    for candidate in [base.clone(), format!("{base}-{stamp}")] {
        match crate::model::fsio::write_new(Path::new(&candidate), text.as_bytes(), config) {
            Ok(()) => return Ok(candidate),
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {}
            Err(e) => {
                return Err(e).with_context(|| format!("cannot write the backup {candidate}"));
            }
        }
    }
    bail!("{base} and {base}-{stamp} both exist; move one away and retry")
}
