//! `mcpvet scan`.

use anyhow::bail;
use clap::Args;

use super::Global;
use crate::error::Exit;

/// Arguments of `mcpvet scan`.
#[derive(Debug, Args)]
pub struct ScanArgs {}

pub fn run(_args: ScanArgs, _g: Global) -> anyhow::Result<Exit> {
    bail!("`mcpvet scan` is not built yet")
}
