//! `mcpvet rules` and `mcpvet rules explain ID`: the rule catalog for people (or as JSON).

use anyhow::bail;
use clap::{Args, Subcommand};

use super::Global;
use crate::catalog::catalog;
use crate::error::Exit;
use crate::report::{self, RenderOptions};

/// Arguments of `mcpvet rules`.
#[derive(Debug, Args)]
pub struct RulesArgs {
    #[command(subcommand)]
    pub command: Option<RulesCommand>,
    /// Output format.
    #[arg(long, value_enum, default_value_t = RulesFormat::Table)]
    pub format: RulesFormat,
    /// Deprecated spelling of `--format json`.
    #[arg(long, hide = true, conflicts_with = "format")]
    pub json: bool,
    #[command(flatten)]
    pub color: super::ColorArg,
}

/// `mcpvet rules --format`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum RulesFormat {
    /// A table (the list) or wrapped text (`explain`), for people.
    Table,
    /// JSON with camelCase keys.
    Json,
}

#[derive(Debug, Subcommand)]
pub enum RulesCommand {
    /// Explain one rule: what it checks, why it matters, an example, the control.
    Explain {
        /// The rule id, e.g. `hidden-instructions`, or `lexicon` for the intent analysis and
        /// its vocabulary in every language.
        id: String,
    },
}

pub fn run(args: RulesArgs, g: Global) -> anyhow::Result<Exit> {
    let json = super::json_format(args.format == RulesFormat::Json, args.json);
    let rules = catalog();
    let opts = RenderOptions::for_stdout(g.verbose, g.quiet, g.color);
    let text = match args.command {
        None if json => {
            let mut s = serde_json::to_string_pretty(&rules)?;
            s.push('\n');
            s
        }
        None => report::rules::render_list(&rules, &opts),
        Some(RulesCommand::Explain { id }) if id == "lexicon" => {
            let lex = crate::audit::lexicon::Lexicon::builtin()?;
            report::rules::render_lexicon(lex, &opts)
        }
        Some(RulesCommand::Explain { id }) => {
            let Some(rule) = rules.iter().find(|r| r.id == id) else {
                let shown = crate::model::escape::line(&id);
                let near = report::rules::suggest(&rules, &id);
                if near.is_empty() {
                    bail!("unknown rule `{shown}` (run `mcpvet rules` to list them)");
                }
                bail!(
                    "unknown rule `{shown}`; did you mean {}? (run `mcpvet rules` to list them)",
                    near.iter()
                        .map(|n| format!("`{n}`"))
                        .collect::<Vec<_>>()
                        .join(" or ")
                );
            };
            if json {
                let mut s = serde_json::to_string_pretty(rule)?;
                s.push('\n');
                s
            } else {
                report::rules::render_explain(rule, &opts)
            }
        }
    };
    report::write_stdout(text.as_bytes())?;
    Ok(Exit::Clean)
}
