//! `ci-insights`: the read-only MCP server mcpvet ships as its clean baseline.
//!
//! `ci-insights` serves stdio (one JSON message per line); `ci-insights --http 127.0.0.1:PORT`
//! serves Streamable HTTP at `/mcp` and prints `ci-insights listening on http://ADDR/mcp` on
//! stderr once bound (port 0 picks a free port). Only protocol messages go to stdout.

use std::io::BufReader;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Context;
use clap::Parser;
use mcpvet::baseline::{DataFile, HttpOptions, ServerConfig, serve_http, serve_stdio};
use mcpvet::error::Exit;
use mcpvet::report::eprint_line;

/// The read-only CI-insights MCP server (protocol 2026-07-28), stdio by default.
#[derive(Debug, Parser)]
#[command(
    name = "ci-insights",
    version,
    about = "ci-insights: the read-only CI-insights MCP server (protocol 2026-07-28), stdio by default.",
    long_about = None
)]
struct Args {
    /// Serve Streamable HTTP on this address instead of stdio (e.g. 127.0.0.1:8080; port 0
    /// picks a free port). The endpoint is /mcp.
    #[arg(long, value_name = "ADDR")]
    http: Option<SocketAddr>,
    /// Allow --http to bind a non-loopback address (the server has no authentication).
    #[arg(long, requires = "http")]
    allow_remote: bool,
    /// Also accept this exact Origin on HTTP besides loopback origins (repeatable).
    #[arg(long, value_name = "ORIGIN", requires = "http")]
    allow_origin: Vec<String>,
    /// Largest HTTP request body in bytes.
    #[arg(long, value_name = "BYTES", default_value_t = 1024 * 1024, requires = "http")]
    max_body_bytes: usize,
    /// Load the builds and flaky tests from this JSON file:
    /// {"builds": [{"pipeline","build","status","minutes"}], "flakyTests": [{"pipeline","test","failures"}]}.
    #[arg(long, value_name = "FILE")]
    data: Option<PathBuf>,
    /// Load the whole server configuration (supportedVersions, cacheTtlMs, cacheScope, tools,
    /// builds, flakyTests, serverInfo) from this JSON file instead of the shipped one.
    #[arg(long, value_name = "FILE")]
    config: Option<PathBuf>,
}

fn main() -> ExitCode {
    let args = match Args::try_parse() {
        Ok(args) => args,
        Err(e) => {
            mcpvet::report::print_clap(&e);
            return if e.use_stderr() {
                Exit::Usage.into()
            } else {
                ExitCode::SUCCESS
            };
        }
    };
    match run(args) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            mcpvet::report::print_error(&e);
            Exit::Usage.into()
        }
    }
}

fn run(args: Args) -> anyhow::Result<()> {
    let mut server = match &args.config {
        Some(path) => ServerConfig::load(path)?,
        None => ServerConfig::shipped(),
    };
    if let Some(path) = &args.data {
        server = server.with_data(DataFile::load(path)?);
    }
    match args.http {
        None => {
            let stdin = std::io::stdin();
            let stdout = std::io::stdout();
            serve_stdio(
                BufReader::new(stdin.lock()),
                stdout.lock(),
                &server,
                &mut |line| eprint_line(line),
            )
            .context("stdio transport failed")?;
            Ok(())
        }
        Some(addr) => {
            let options = HttpOptions {
                allow_remote: args.allow_remote,
                max_body_bytes: args.max_body_bytes,
                allowed_origins: args.allow_origin,
            };
            let runtime = tokio::runtime::Builder::new_multi_thread()
                .worker_threads(2)
                .enable_all()
                .build()
                .context("cannot start the async runtime")?;
            runtime.block_on(serve_http(addr, server, options, |url| {
                eprint_line(&format!("ci-insights listening on {url}"));
            }))?;
            Ok(())
        }
    }
}
