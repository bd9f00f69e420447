//! `mcpvet lock`.

use anyhow::bail;
use clap::Args;

use super::Global;
use crate::error::Exit;

/// Arguments of `mcpvet lock`.
#[derive(Debug, Args)]
pub struct LockArgs {}

pub fn run(_args: LockArgs, _g: Global) -> anyhow::Result<Exit> {
    bail!("`mcpvet lock` is not built yet")
}
