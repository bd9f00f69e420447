//! `mcpvet snapshot`.

use anyhow::bail;
use clap::Args;

use super::Global;
use crate::error::Exit;

/// Arguments of `mcpvet snapshot`.
#[derive(Debug, Args)]
pub struct SnapshotArgs {}

pub fn run(_args: SnapshotArgs, _g: Global) -> anyhow::Result<Exit> {
    bail!("`mcpvet snapshot` is not built yet")
}
