//! `mcpvet init`: write the commented policy template (`mcpvet.toml`), atomically, and never
//! over an existing file unless `--force` is given.

use std::io::Write;
use std::path::PathBuf;

use anyhow::{Context, bail};
use clap::Args;

use super::Global;
use crate::error::Exit;

/// Arguments of `mcpvet init`.
#[derive(Debug, Args)]
pub struct InitArgs {
    /// Where to write the policy.
    #[arg(default_value = crate::policy::FILE_NAME)]
    pub path: PathBuf,
    /// Replace an existing file.
    #[arg(long)]
    pub force: bool,
}

pub fn run(args: InitArgs, g: Global) -> anyhow::Result<Exit> {
    if args.path.exists() && !args.force {
        bail!(
            "{} already exists; pass --force to replace it",
            args.path.display()
        );
    }
    let dir = match args.path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
        _ => PathBuf::from("."),
    };
    let mut tmp = tempfile::NamedTempFile::new_in(&dir)
        .with_context(|| format!("cannot create a temporary file in {}", dir.display()))?;
    tmp.write_all(crate::policy::TEMPLATE.as_bytes())
        .and_then(|()| tmp.as_file().sync_all())
        .with_context(|| format!("cannot write {}", args.path.display()))?;
    tmp.persist(&args.path)
        .with_context(|| format!("cannot write {}", args.path.display()))?;
    if !g.quiet {
        crate::report::write_stdout(
            format!(
                "wrote {}: review it, add an [[allow]] entry per approved server, and run `mcpvet check`\n",
                args.path.display()
            )
            .as_bytes(),
        )?;
    }
    Ok(Exit::Clean)
}
