//! MCP protocol types and the dual-era client (the probe): the only stage that starts
//! processes or opens sockets.
//!
//! [`probe`] turns one [`ServerSpec`] into a [`ServerSnapshot`]; [`probe_all`] probes many
//! concurrently. Both are synchronous and build their own tokio runtime. Nothing here
//! prints: progress is reported through [`ProbeEvent`] callbacks.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::Value;
use tokio::time::Instant;

use crate::model::snapshot::{Era, ServerSnapshot};
use crate::model::spec::ServerSpec;

pub mod error;
pub mod handshake;
pub mod http;
pub mod jsonrpc;
pub mod legacy_sse;
pub mod limits;
pub mod probe;
pub mod process;
pub mod sandbox;
pub mod sse;
pub mod stdio;

pub use error::RpcError;
pub use limits::Limits;

/// A server could not be probed (maps to exit code 3).
#[derive(Debug, thiserror::Error)]
#[error("{}: {message}", crate::model::escape::line(server))]
pub struct ProbeFailure {
    pub server: String,
    pub message: String,
}

impl ProbeFailure {
    pub fn new(server: impl Into<String>, message: impl Into<String>) -> Self {
        let message: String = message.into();
        Self {
            server: server.into(),
            // What a server wrote into the message (stderr, an error) is bounded here.
            message: crate::model::escape::clip(
                &message,
                4 * crate::model::escape::MAX_SHOWN_BYTES,
            )
            .into_owned(),
        }
    }
}

/// How to probe.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProbeOptions {
    /// Overall time allowed per server (`--timeout`), generous enough for an npx download.
    /// It is the probe's only clock: the era is decided from answers (see [`handshake`]).
    pub timeout: Duration,
    /// Run stdio servers inside bubblewrap (the default; off with `--no-sandbox`).
    pub sandbox: bool,
    /// Let every sandboxed server use the network (`--sandbox-net`).
    pub sandbox_net: bool,
    /// Servers the team policy lets use the network inside the sandbox
    /// (`[[sandbox-network]]` entries), by name.
    pub sandbox_net_servers: Vec<String>,
    /// Variables of the reviewer's environment the server may receive (`--pass-env`).
    pub pass_env: Vec<String>,
    /// Launch packages that are not pinned to an exact version (`--allow-unpinned`).
    pub allow_unpinned: bool,
    /// Byte, page and item caps.
    pub caps: Limits,
    /// How many servers are probed at once (`-j`).
    pub jobs: usize,
    /// The `clientInfo` to present (default `{name: "mcpvet", version}`); the cloaking check
    /// lists a second time claiming a popular host's identity.
    pub client_info: Option<serde_json::Value>,
    /// Hand each snapshot over as soon as its server has answered and been killed, and
    /// finish the teardown (reaping the server, removing its scratch HOME) in the
    /// background, while the caller judges and writes; [`finish_teardown`] waits for it.
    /// Off by default: then every probe function returns with its teardown done.
    pub defer_teardown: bool,
}

impl ProbeOptions {
    /// The `clientInfo` value this probe presents.
    pub fn client(&self) -> serde_json::Value {
        self.client_info
            .clone()
            .unwrap_or_else(jsonrpc::client_info)
    }
}

impl Default for ProbeOptions {
    fn default() -> Self {
        Self {
            timeout: Duration::from_secs(120),
            sandbox: true,
            sandbox_net: false,
            sandbox_net_servers: Vec::new(),
            pass_env: Vec::new(),
            allow_unpinned: false,
            caps: Limits::default(),
            jobs: 8,
            client_info: None,
            defer_teardown: false,
        }
    }
}

/// Progress of [`probe_all`], for a display on stderr.
#[derive(Debug, Clone, PartialEq)]
pub enum ProbeEvent {
    /// Probing of `specs[index]` started.
    Started { index: usize, server: String },
    /// Probing of `specs[index]` ended; `summary` is e.g. `modern 2026-07-28, 2 tools` or
    /// the error.
    Finished {
        index: usize,
        server: String,
        ok: bool,
        summary: String,
        elapsed: Duration,
    },
}

/// Why one request did not produce a result.
#[derive(Debug, Clone, PartialEq)]
pub enum CallError {
    /// The server answered with a JSON-RPC error.
    Rpc(jsonrpc::ErrorObject),
    /// The process exited, closed its stdout or the connection failed.
    Closed(String),
    /// No answer before the deadline.
    Silent,
    /// A byte, message or item cap was exceeded.
    Limit(String),
    /// The server broke the protocol (garbage, bad shapes, HTTP errors without JSON-RPC).
    Protocol(String),
    /// An HTTP server forgot the legacy session (handled inside the HTTP transport).
    SessionExpired(String),
}

impl std::error::Error for CallError {}

impl std::fmt::Display for CallError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            CallError::Rpc(e) => write!(f, "the server answered {e}"),
            CallError::Closed(s)
            | CallError::Limit(s)
            | CallError::Protocol(s)
            | CallError::SessionExpired(s) => f.write_str(s),
            CallError::Silent => f.write_str("no answer"),
        }
    }
}

/// Per-probe bookkeeping shared by the transports: notes and the first answer's time.
#[derive(Debug)]
pub struct Session {
    pub start: Instant,
    pub first_response: Option<Duration>,
    pub notes: Vec<String>,
    /// The transport spoken when it is not the one the spec names (`sse`: the HTTP+SSE
    /// transport of 2024-11-05, declared or reached by the fallback).
    pub transport: Option<&'static str>,
}

impl Session {
    pub fn new() -> Self {
        Self {
            start: Instant::now(),
            first_response: None,
            notes: Vec::new(),
            transport: None,
        }
    }

    pub fn answered(&mut self) {
        if self.first_response.is_none() {
            self.first_response = Some(self.start.elapsed());
        }
    }

    pub fn note(&mut self, note: String) {
        // Every note, kept or not, is visible to a maintainer with `-v` (as Debug, so that
        // server-controlled text cannot reach the terminal raw).
        tracing::debug!(note = ?note, "probe note");
        if self.notes.len() < 50 {
            self.notes.push(note);
        }
    }

    pub fn note_once(&mut self, note: &str) {
        if !self.notes.iter().any(|n| n == note) {
            self.note(note.to_owned());
        }
    }
}

impl Default for Session {
    fn default() -> Self {
        Self::new()
    }
}

/// One open connection: stdio, Streamable HTTP, or the legacy HTTP+SSE transport.
pub enum Conn {
    Stdio(Box<stdio::StdioConn>),
    Http(Box<http::HttpConn>),
    LegacySse(Box<legacy_sse::LegacySseConn>),
}

impl Conn {
    /// Send a request of the given era and wait for its result.
    pub async fn call(
        &mut self,
        method: &str,
        params: Value,
        era: Era,
        deadline: Instant,
        session: &mut Session,
    ) -> Result<Value, CallError> {
        match self {
            Conn::Stdio(c) => c.call(method, params, deadline, session).await,
            Conn::Http(c) => {
                // The specification's backwards-compatibility procedure: an `initialize`
                // POST refused with 404 or 405, then a GET that opens an event stream with
                // an `endpoint` event, means the HTTP+SSE transport of 2024-11-05.
                let retry = (method == "initialize").then(|| params.clone());
                let out = c.call(method, params, era, deadline, session).await;
                let (Err(refused), Some(params), Some(status)) = (&out, retry, c.post_refused())
                else {
                    return out;
                };
                match legacy_sse::LegacySseConn::fallback(c, deadline, session).await {
                    Ok(mut sse) => {
                        session.note(format!(
                            "initialize was refused with HTTP {status} and a GET opened an event stream: the server speaks the HTTP+SSE transport of 2024-11-05"
                        ));
                        session.transport = Some(legacy_sse::TRANSPORT);
                        let out = sse.call(method, params, era, deadline, session).await;
                        *self = Conn::LegacySse(sse.into());
                        out
                    }
                    Err(legacy_sse::OpenError::NotSse(why)) => Err(CallError::Protocol(format!(
                        "{refused}; {why} (so not the HTTP+SSE transport of 2024-11-05 either)"
                    ))),
                    Err(legacy_sse::OpenError::Failed(e)) => Err(match e {
                        CallError::Protocol(m) => CallError::Protocol(format!(
                            "initialize was refused with HTTP {status}; the HTTP+SSE transport of 2024-11-05: {m}"
                        )),
                        other => other,
                    }),
                }
            }
            Conn::LegacySse(c) => {
                session.transport = Some(legacy_sse::TRANSPORT);
                c.call(method, params, era, deadline, session).await
            }
        }
    }

    /// Send a notification.
    pub async fn notify(
        &mut self,
        method: &str,
        era: Era,
        deadline: Instant,
    ) -> Result<(), CallError> {
        match self {
            Conn::Stdio(c) => c.notify(method, deadline).await,
            Conn::Http(c) => c.notify(method, era, deadline).await,
            Conn::LegacySse(c) => c.notify(method, deadline).await,
        }
    }

    /// Close it (kills a stdio server's process group).
    pub async fn close(self) {
        match self {
            Conn::Stdio(c) => c.close().await,
            Conn::Http(c) => c.end_session().await,
            Conn::LegacySse(c) => c.close(),
        }
    }
}

/// The threads finishing teardowns deferred by [`ProbeOptions::defer_teardown`].
static FINISHING: std::sync::Mutex<Vec<std::thread::JoinHandle<()>>> =
    std::sync::Mutex::new(Vec::new());

/// Wait until every teardown deferred by [`ProbeOptions::defer_teardown`] is done: each
/// server reaped, each scratch HOME removed. Call it before the process exits.
pub fn finish_teardown() {
    let pending = match FINISHING.lock() {
        Ok(mut v) => std::mem::take(&mut *v),
        Err(poisoned) => std::mem::take(&mut *poisoned.into_inner()),
    };
    for h in pending {
        let _ = h.join();
    }
}

/// Shared stderr capture for one probe (kept across a fresh process, when one is needed).
pub type StderrBuf = Arc<Mutex<limits::RingBuffer>>;

fn runtime(threads: usize) -> Result<tokio::runtime::Runtime, std::io::Error> {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(threads.clamp(1, 4))
        .enable_all()
        .build()
}

/// Probe one server: launch or connect, run the dual-era handshake, read every list.
pub fn probe(spec: &ServerSpec, opts: &ProbeOptions) -> Result<ServerSnapshot, ProbeFailure> {
    let rt = runtime(2).map_err(|e| {
        ProbeFailure::new(&spec.name, format!("cannot start the async runtime: {e}"))
    })?;
    rt.block_on(probe::probe_async(spec, opts))
}

/// Probe many servers concurrently (at most `opts.jobs` at once); results are in the order
/// of `specs`. `progress` is called on the calling thread. Each server is killed before its
/// result is reported; with [`ProbeOptions::defer_teardown`] the reaping and the removal of
/// scratch HOMEs may still run when this returns (see [`finish_teardown`]).
pub fn probe_all(
    specs: &[ServerSpec],
    opts: &ProbeOptions,
    progress: &dyn Fn(ProbeEvent),
) -> Vec<Result<ServerSnapshot, ProbeFailure>> {
    if specs.is_empty() {
        return Vec::new();
    }
    let rt = match runtime(2) {
        Ok(rt) => rt,
        Err(e) => {
            return specs
                .iter()
                .map(|s| {
                    Err(ProbeFailure::new(
                        &s.name,
                        format!("cannot start the async runtime: {e}"),
                    ))
                })
                .collect();
        }
    };
    let mut tasks = Vec::with_capacity(specs.len());
    let results = rt.block_on(async {
        let jobs = opts.jobs.max(1);
        let sem = Arc::new(tokio::sync::Semaphore::new(jobs));
        let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel();
        for (index, spec) in specs.iter().enumerate() {
            let sem = sem.clone();
            let tx = tx.clone();
            let spec = spec.clone();
            let opts = opts.clone();
            tasks.push(tokio::spawn(async move {
                let _permit = sem.acquire_owned().await;
                let _ = tx.send((index, None));
                let started = std::time::Instant::now();
                let (out, teardown) = probe::probe_deferred(&spec, &opts).await;
                let _ = tx.send((index, Some((out, started.elapsed()))));
                // The result is reported: the loop below need not wait for the teardown.
                drop(tx);
                teardown.finish().await;
            }));
        }
        drop(tx);
        let mut results: Vec<Option<Result<ServerSnapshot, ProbeFailure>>> =
            specs.iter().map(|_| None).collect();
        while let Some((index, msg)) = rx.recv().await {
            let server = specs[index].name.clone();
            match msg {
                None => progress(ProbeEvent::Started { index, server }),
                Some((out, elapsed)) => {
                    let (ok, summary) = match &out {
                        Ok(s) => (true, summarize(s)),
                        Err(e) => (false, e.message.clone()),
                    };
                    progress(ProbeEvent::Finished {
                        index,
                        server,
                        ok,
                        summary,
                        elapsed,
                    });
                    results[index] = Some(out);
                }
            }
        }
        results
            .into_iter()
            .enumerate()
            .map(|(i, r)| {
                r.unwrap_or_else(|| {
                    Err(ProbeFailure::new(
                        &specs[i].name,
                        "the probe task ended without a result",
                    ))
                })
            })
            .collect()
    });
    let finish = async move {
        for t in tasks {
            let _ = t.await;
        }
    };
    if opts.defer_teardown {
        // The runtime goes on (reaping, removing scratch HOMEs) on a thread of its own.
        let (rt_tx, rt_rx) = std::sync::mpsc::sync_channel(1);
        let spawned = std::thread::Builder::new()
            .name("mcpvet-teardown".into())
            .spawn(move || {
                if let Ok((rt, finish)) = rt_rx.recv() {
                    let rt: tokio::runtime::Runtime = rt;
                    rt.block_on(finish);
                }
            });
        match spawned {
            Ok(handle) => {
                let _ = rt_tx.send((rt, finish));
                match FINISHING.lock() {
                    Ok(mut v) => v.push(handle),
                    Err(poisoned) => poisoned.into_inner().push(handle),
                }
            }
            Err(_) => rt.block_on(finish),
        }
    } else {
        rt.block_on(finish);
    }
    results
}

/// A one-line description of a snapshot: `modern 2026-07-28, 2 tools, 1 prompt`.
pub fn summarize(s: &ServerSnapshot) -> String {
    let era = s.era.map(|e| e.to_string()).unwrap_or_else(|| "?".into());
    let version = s.protocol_version.as_deref().unwrap_or("?");
    let mut parts = vec![format!("{era} {version}"), plural(s.tools.len(), "tool")];
    if !s.prompts.is_empty() {
        parts.push(plural(s.prompts.len(), "prompt"));
    }
    if !s.resources.is_empty() {
        parts.push(plural(s.resources.len(), "resource"));
    }
    if !s.resource_templates.is_empty() {
        parts.push(plural(s.resource_templates.len(), "resource template"));
    }
    parts.join(", ")
}

fn plural(n: usize, word: &str) -> String {
    if n == 1 {
        format!("1 {word}")
    } else {
        format!("{n} {word}s")
    }
}
