//! The command-line surface of `mcpvet`: argument definitions and dispatch.
//!
//! Each subcommand lives in its own file with its arguments and a `run` function that
//! computes data and hands it to `report` for printing. Errors reach here as `anyhow`.

use std::process::ExitCode;

use clap::{Parser, Subcommand};

use crate::error::Exit;
use crate::report::style::ColorChoice;

pub mod baseline;
pub mod check;
pub mod diff;
pub mod guard;
pub mod guard_install;
pub mod init;
pub mod lock;
pub mod pipeline;
pub mod review;
pub mod rules;
pub mod scan;
pub mod snapshot;
pub mod targets;

/// Vet MCP servers before your coding assistants trust them, and again whenever they change.
#[derive(Debug, Parser)]
#[command(name = "mcpvet", version, about, long_about = None, propagate_version = true)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
    /// Largest config, policy, lockfile or snapshot file to read, e.g. `64MiB` (default: 8 MiB
    /// configs and policies, 32 MiB lockfiles, 256 MiB snapshots).
    #[arg(long, global = true, value_name = "SIZE", value_parser = crate::model::fsio::parse_size)]
    pub max_file_size: Option<u64>,
    /// Most tools + prompts + resources one snapshot file may hold (default: 10000).
    #[arg(long, global = true, value_name = "N", value_parser = clap::value_parser!(u64).range(1..))]
    pub max_items: Option<u64>,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Audit servers: host configs, snapshot files, a command after `--`, or `--url`.
    Scan(scan::ScanArgs),
    /// Probe one server and save what it shows the model as a snapshot file.
    Snapshot(snapshot::SnapshotArgs),
    /// Approve servers: record their definitions and hashes in lockfiles.
    Lock(lock::LockArgs),
    /// Compare servers against their lockfiles; exit 1 on drift.
    Diff(diff::DiffArgs),
    /// The fast static CI gate: configs, launch rules, policy and lockfiles; starts no server.
    Check(check::CheckArgs),
    /// Accept the current findings: write their fingerprints to a baseline file, each with a reason.
    Baseline(baseline::BaselineArgs),
    /// Write a commented policy template (`mcpvet.toml`).
    Init(init::InitArgs),
    /// Write a markdown trust review for a proposed server.
    Review(review::ReviewArgs),
    /// Run one server behind its approved lock (the host launches the guard instead);
    /// `--install CONFIG` puts a host config's locked servers behind it.
    Guard(guard::GuardArgs),
    /// List the rules, or explain one.
    Rules(rules::RulesArgs),
    /// Print shell completions.
    Completions {
        /// The shell to generate completions for.
        shell: clap_complete::Shell,
    },
}

/// `-q`/`-v`, flattened into the commands whose output they change (not `init` or
/// `completions`).
#[derive(Debug, Clone, Copy, Default, clap::Args)]
pub struct Verbosity {
    /// Less output: only findings (and errors).
    #[arg(short, long, conflicts_with = "verbose")]
    pub quiet: bool,
    /// More output: probe notes, timings, captured stderr.
    #[arg(short, long)]
    pub verbose: bool,
}

/// `--color`, flattened into the commands that colour their output.
#[derive(Debug, Clone, Copy, Default, clap::Args)]
pub struct ColorArg {
    /// When to colour: `auto` colours a terminal unless NO_COLOR is set (CLICOLOR_FORCE or
    /// FORCE_COLOR force it; CLICOLOR=0 or TERM=dumb turn it off); the flag beats them all.
    #[arg(long, global = true, value_enum, value_name = "WHEN", default_value_t = ColorChoice::Auto)]
    pub color: ColorChoice,
}

/// The file `-o` names; `-` (and no `-o`) means stdout.
pub(crate) fn output_file(output: Option<&std::path::Path>) -> Option<&std::path::Path> {
    output.filter(|p| p.as_os_str() != "-")
}

/// Whether JSON was asked for: `--format json`, or the deprecated `--json` (with a warning).
pub(crate) fn json_format(format_is_json: bool, deprecated_json: bool) -> bool {
    if deprecated_json {
        crate::report::eprint_line("warning: --json is deprecated; use --format json");
    }
    format_is_json || deprecated_json
}

impl Command {
    /// The output options this command was given (defaults where it takes none).
    pub fn global(&self) -> Global {
        let with = |v: &Verbosity, color: ColorChoice| Global {
            quiet: v.quiet,
            verbose: v.verbose,
            color,
        };
        match self {
            Command::Scan(a) => with(&a.verbosity, a.color.color),
            Command::Check(a) => with(&a.verbosity, a.color.color),
            Command::Snapshot(a) => with(&a.verbosity, ColorChoice::Auto),
            Command::Lock(a) => with(&a.verbosity, ColorChoice::Auto),
            Command::Diff(a) => with(&a.verbosity, ColorChoice::Auto),
            Command::Review(a) => with(&a.verbosity, ColorChoice::Auto),
            Command::Baseline(a) => with(&a.verbosity, ColorChoice::Auto),
            Command::Rules(a) => with(&Verbosity::default(), a.color.color),
            Command::Init(_) | Command::Guard(_) | Command::Completions { .. } => Global::default(),
        }
    }
}

/// Parse arguments, run the command and map the outcome to an exit code.
pub fn main() -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => {
            let code = if e.use_stderr() {
                Exit::Usage
            } else {
                Exit::Clean
            };
            crate::report::print_clap(&e);
            return code.into();
        }
    };
    if cli.command.global().verbose {
        init_tracing();
    }
    if let Some(bytes) = cli.max_file_size {
        crate::model::fsio::set_max_file_size(bytes);
    }
    if let Some(items) = cli.max_items {
        crate::model::fsio::set_max_items(usize::try_from(items).unwrap_or(usize::MAX));
    }
    // Before any server starts: no same-user process may read mcpvet's environment or
    // memory, and daemons that escape a server's tree reparent to mcpvet.
    for problem in crate::mcp::process::harden_self() {
        crate::report::eprint_line(&format!("warning: {problem}"));
    }
    let outcome = run(cli);
    // Nothing mcpvet launched outlives the command: the teardowns that ran while the
    // command judged and wrote are waited for, then anything left is killed and reaped.
    crate::mcp::finish_teardown();
    crate::mcp::process::kill_orphans();
    match outcome {
        Ok(exit) => exit.into(),
        Err(e) => {
            crate::report::print_error(&e);
            if e.downcast_ref::<crate::mcp::ProbeFailure>().is_some() {
                Exit::ProbeFailed.into()
            } else {
                Exit::Usage.into()
            }
        }
    }
}

/// With `-v`: the library's debug events (what a server did during the probe) on stderr.
/// Without it no subscriber is installed and the events cost nothing.
fn init_tracing() {
    use tracing_subscriber::layer::SubscriberExt;
    use tracing_subscriber::util::SubscriberInitExt;
    let only_mcpvet =
        tracing_subscriber::filter::Targets::new().with_target("mcpvet", tracing::Level::DEBUG);
    let fmt = tracing_subscriber::fmt::layer()
        .with_writer(crate::report::redacted_stderr)
        .with_ansi(false)
        .without_time();
    // A subscriber already set (a test harness) is kept.
    let _ = tracing_subscriber::registry()
        .with(fmt)
        .with(only_mcpvet)
        .try_init();
}

/// Output options every command receives.
#[derive(Debug, Clone, Copy, Default)]
pub struct Global {
    pub quiet: bool,
    pub verbose: bool,
    pub color: ColorChoice,
}

fn run(cli: Cli) -> anyhow::Result<Exit> {
    let g = cli.command.global();
    match cli.command {
        Command::Scan(a) => scan::run(a, g),
        Command::Snapshot(a) => snapshot::run(a, g),
        Command::Lock(a) => lock::run(a, g),
        Command::Diff(a) => diff::run(a, g),
        Command::Check(a) => check::run(a, g),
        Command::Baseline(a) => baseline::run(a, g),
        Command::Init(a) => init::run(a, g),
        Command::Review(a) => review::run(a, g),
        Command::Guard(a) => guard::run(a, g),
        Command::Rules(a) => rules::run(a, g),
        Command::Completions { shell } => {
            let mut cmd = <Cli as clap::CommandFactory>::command();
            let mut buf = Vec::new();
            clap_complete::generate(shell, &mut cmd, "mcpvet", &mut buf);
            crate::report::write_stdout(&buf)?;
            Ok(Exit::Clean)
        }
    }
}
