//! `mcpvet init`.

use anyhow::bail;
use clap::Args;

use super::Global;
use crate::error::Exit;

/// Arguments of `mcpvet init`.
#[derive(Debug, Args)]
pub struct InitArgs {}

pub fn run(_args: InitArgs, _g: Global) -> anyhow::Result<Exit> {
    bail!("`mcpvet init` is not built yet")
}
