//! `mcpvet diff`.

use anyhow::bail;
use clap::Args;

use super::Global;
use crate::error::Exit;

/// Arguments of `mcpvet diff`.
#[derive(Debug, Args)]
pub struct DiffArgs {}

pub fn run(_args: DiffArgs, _g: Global) -> anyhow::Result<Exit> {
    bail!("`mcpvet diff` is not built yet")
}
