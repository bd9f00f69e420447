//! `mcpvet review`.

use anyhow::bail;
use clap::Args;

use super::Global;
use crate::error::Exit;

/// Arguments of `mcpvet review`.
#[derive(Debug, Args)]
pub struct ReviewArgs {}

pub fn run(_args: ReviewArgs, _g: Global) -> anyhow::Result<Exit> {
    bail!("`mcpvet review` is not built yet")
}
