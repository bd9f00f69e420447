//! `mcpvet init`: write the commented policy template (`mcpvet.toml`), atomically, and never
//! over an existing file unless `--force` is given.

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
    crate::model::fsio::write_atomic(&args.path, crate::policy::TEMPLATE.as_bytes())
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
