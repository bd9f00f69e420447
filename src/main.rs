//! The `mcpvet` command: parse the command line, run, map the outcome to an exit code.

use std::process::ExitCode;

fn main() -> ExitCode {
    mcpvet::cli::main()
}
