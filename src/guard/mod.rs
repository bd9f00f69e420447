//! `mcpvet guard`: the approved lock made binding while the assistant runs.
//!
//! The host launches the guard instead of the server and speaks MCP to it over stdio (one
//! JSON-RPC message per line). The guard starts the server exactly as the probe does (clean
//! environment, own process group, `--sandbox` through bubblewrap; [`crate::mcp::probe::open`])
//! or connects to a remote Streamable HTTP server, and between the two:
//!
//! - lists (`tools/list`, `prompts/list`, `resources/list`, `resources/templates/list`) and
//!   server instructions are compared with the lock ([`lists`]); what matches passes as the
//!   server sent it, anything changed or unknown is withheld and named by one stand-in tool;
//!   `notifications/tools/list_changed` re-checks the tools;
//! - `tools/call` is refused for withheld or unknown tools, checked against the team policy
//!   (`[guard.NAME]` in `mcpvet.toml`: deny, confirm, rate limits) and validated against the
//!   *locked* input schema (`kit::schema`, no network `$ref`) before it reaches the server;
//! - tool results go through the audit's output profile ([`crate::audit::output`]); a hit is
//!   marked (`_meta["io.mcpvet/output-findings"]` and a warning block) or blocked;
//! - every call is logged ([`log`]) without argument or result values;
//! - a server that dies, hangs or sends garbage gives the host JSON-RPC errors within the
//!   timeout; the guard then exits, killing the server's process group.
//!
//! Both eras on both sides: the host's own handshake passes through when the server speaks
//! the same era; a legacy host's `initialize` is answered from a modern server's
//! `server/discover` (and its requests get the modern `_meta`), and a modern host's
//! `server/discover` from a legacy server's `initialize`.

use std::os::fd::AsFd;
use std::path::PathBuf;
use std::time::Duration;

use tokio::io::{AsyncRead, AsyncWrite};

use crate::lock::Lockfile;
use crate::mcp::{Limits, ProbeOptions};
use crate::model::spec::ServerSpec;
use crate::policy::GuardServer;

pub mod lists;
pub mod log;
mod proxy;
pub mod upstream;

pub use proxy::OUTPUT_MARKER;

/// How to guard one server.
#[derive(Debug, Clone)]
pub struct GuardOptions {
    /// The server to start (stdio) or connect to (HTTP).
    pub spec: ServerSpec,
    /// The approved lock.
    pub lock: Lockfile,
    /// How long one request may wait for the server's answer (and the start-up limit).
    pub timeout: Duration,
    /// Run a stdio server inside bubblewrap.
    pub sandbox: bool,
    /// Environment variables the server may receive (the policy's `pass-env`).
    pub pass_env: Vec<String>,
    /// The team policy's rules for this server.
    pub policy: GuardServer,
    /// Where to append the JSON-lines audit log.
    pub audit_log: Option<PathBuf>,
    /// Message caps (a result larger than `max_message_bytes` ends the session).
    pub caps: Limits,
}

impl GuardOptions {
    /// The guard's caps: one message up to 64 MiB, no total (a session is long).
    pub fn default_caps() -> Limits {
        Limits {
            max_message_bytes: 64 * 1024 * 1024,
            max_total_bytes: usize::MAX,
            ..Limits::default()
        }
    }
}

/// The era the locked server speaks: the lock's, else modern when it locked 2026-07-28.
pub fn server_era(lock: &Lockfile) -> crate::model::snapshot::Era {
    use crate::model::snapshot::Era;
    lock.era.unwrap_or(
        if lock.protocol_version.as_deref() == Some(crate::mcp::jsonrpc::MODERN_VERSION) {
            Era::Modern
        } else {
            Era::Legacy
        },
    )
}

/// Why the guard stopped.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum GuardEnd {
    /// The host closed stdin (the normal end).
    HostClosed,
    /// The server exited, broke a limit or could not be written to.
    ServerEnded(String),
}

/// Why the guard could not start.
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub struct GuardError(pub String);

/// When the lock records how the server is launched, the guarded command must be that
/// launch: the same command and arguments (compared with secrets redacted, as the lock
/// stores them) for stdio, the same URL and header names for HTTP. Environment variable
/// names and the working folder are not compared: the host sets them on the guard's own
/// entry. A lock without a recorded launch (locked from a snapshot file) binds no command.
pub fn check_launch(lock: &Lockfile, spec: &ServerSpec) -> Result<(), GuardError> {
    use crate::lock::LaunchSpec;
    let Some(locked) = &lock.launch else {
        return Ok(());
    };
    let now = LaunchSpec::from_spec(spec);
    let same = match (locked, &now) {
        (
            LaunchSpec::Stdio { command, args, .. },
            LaunchSpec::Stdio {
                command: c2,
                args: a2,
                ..
            },
        ) => command == c2 && args == a2,
        (
            LaunchSpec::Http { url, header_names },
            LaunchSpec::Http {
                url: u2,
                header_names: h2,
            },
        ) => url == u2 && header_names == h2,
        _ => false,
    };
    if same {
        return Ok(());
    }
    let show =
        |l: &LaunchSpec| crate::model::escape::line(&crate::model::escape::clip(&l.display(), 300));
    Err(GuardError(format!(
        "refusing to start: the lock of {} approved the launch `{}`, but the guard was asked to run `{}`. Run the approved command, or review the new one with `mcpvet diff` and approve it with `mcpvet lock`.",
        crate::model::escape::line(&lock.server),
        show(locked),
        show(&now)
    )))
}

/// Start the server and serve the host on `host_in`/`host_out` until one side ends.
/// Diagnostics (never protocol) go to `diag`.
pub async fn serve<R, W>(
    opts: &GuardOptions,
    host_in: R,
    host_out: W,
    diag: &(dyn Fn(&str) + Sync),
) -> Result<GuardEnd, GuardError>
where
    R: AsyncRead + Unpin + Send + 'static,
    W: AsyncWrite + Unpin,
{
    let probe = ProbeOptions {
        timeout: opts.timeout,
        sandbox: opts.sandbox,
        pass_env: opts.pass_env.clone(),
        caps: opts.caps.clone(),
        ..ProbeOptions::default()
    };
    check_launch(&opts.lock, &opts.spec)?;
    let proxy = proxy::Proxy::new(opts, diag).map_err(GuardError)?;
    let opened = crate::mcp::probe::open(&opts.spec, &probe)
        .await
        .map_err(|e| GuardError(e.to_string()))?;
    for n in &opened.notes {
        diag(n);
    }
    let era = server_era(&opts.lock);
    let crate::mcp::probe::Opened { conn, stderr, .. } = opened;
    let up = upstream::Upstream::new(conn, era, opts.timeout).map_err(GuardError)?;
    let end = proxy.run(up, host_in, host_out).await;
    if let GuardEnd::ServerEnded(_) = &end {
        let tail = stderr
            .lock()
            .map(|b| b.to_string_lossy())
            .unwrap_or_default();
        for l in tail
            .lines()
            .rev()
            .take(5)
            .collect::<Vec<_>>()
            .into_iter()
            .rev()
        {
            diag(&format!(
                "server stderr │ {}",
                crate::model::escape::line(l)
            ));
        }
    }
    Ok(end)
}

/// [`serve`] on the process's own stdin and stdout, on a runtime of its own.
pub fn run_stdio(
    opts: &GuardOptions,
    diag: &(dyn Fn(&str) + Sync),
) -> Result<GuardEnd, GuardError> {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .map_err(|e| GuardError(format!("cannot start the async runtime: {e}")))?;
    let end = rt.block_on(async {
        let host_in = host_stdin();
        let host_out = host_stdout();
        serve(opts, host_in, host_out, diag).await
    });
    // Reading a stdin that is not a pipe blocks a worker thread; do not wait for it.
    rt.shutdown_timeout(Duration::from_millis(100));
    end
}

/// The host's side of the guard's stdin. A pipe (how every host launches a server) is read
/// through the runtime's reactor; anything else (a terminal, a file) through tokio's
/// blocking-thread stdin.
///
/// The reactor path is not a nicety: under CPU load the blocking-thread stdout once left a
/// write pending with no thread working on it and no timer armed, so a guard facing a
/// flooding server never exited (`guard::the_hostile_suite_runs_behind_the_guard`).
fn host_stdin() -> Box<dyn AsyncRead + Unpin + Send> {
    let pipe = std::io::stdin()
        .as_fd()
        .try_clone_to_owned()
        .ok()
        .and_then(|fd| tokio::net::unix::pipe::Receiver::from_file(std::fs::File::from(fd)).ok());
    match pipe {
        Some(p) => Box::new(p),
        None => Box::new(tokio::io::stdin()),
    }
}

/// The host's side of the guard's stdout: a pipe through the reactor, anything else through
/// tokio's blocking-thread stdout (see [`host_stdin`]).
fn host_stdout() -> Box<dyn AsyncWrite + Unpin + Send> {
    let pipe = std::io::stdout()
        .as_fd()
        .try_clone_to_owned()
        .ok()
        .and_then(|fd| tokio::net::unix::pipe::Sender::from_file(std::fs::File::from(fd)).ok());
    match pipe {
        Some(p) => Box::new(p),
        None => Box::new(tokio::io::stdout()),
    }
}
