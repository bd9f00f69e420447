//! `mcpvet check`.

use anyhow::bail;
use clap::Args;

use super::Global;
use crate::error::Exit;

/// Arguments of `mcpvet check`.
#[derive(Debug, Args)]
pub struct CheckArgs {}

pub fn run(_args: CheckArgs, _g: Global) -> anyhow::Result<Exit> {
    bail!("`mcpvet check` is not built yet")
}
