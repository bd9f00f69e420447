//! `mcpvet rules`.

use anyhow::bail;
use clap::Args;

use super::Global;
use crate::error::Exit;

/// Arguments of `mcpvet rules`.
#[derive(Debug, Args)]
pub struct RulesArgs {}

pub fn run(_args: RulesArgs, _g: Global) -> anyhow::Result<Exit> {
    bail!("`mcpvet rules` is not built yet")
}
