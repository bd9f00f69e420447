//! The probe's orchestration: prepare one server's launch (environment, arguments,
//! headers, the bubblewrap sandbox unless `--no-sandbox`), start it through
//! [`super::process`] as often as the handshake asks (or connect: Streamable HTTP, or
//! HTTP+SSE where the config declares it), run the handshake under the `--timeout` deadline,
//! and clean up (kill what was launched, remove the scratch HOME) on every exit path.

use std::sync::{Arc, Mutex};

use tokio::time::Instant;

use super::error::RpcError;
use super::handshake::{self, Connect};
use super::legacy_sse::LegacySseConn;
use super::limits::{RingBuffer, human_duration};
use super::process::{self, Launch, LaunchEnv, LaunchPlan};
use super::sandbox;
use super::{Conn, ProbeFailure, ProbeOptions, Session, StderrBuf};
use crate::model::snapshot::{ProbeInfo, ServerSnapshot};
use crate::model::spec::{ServerSpec, Transport};

/// Everything needed to (re)start one server.
struct Launcher<'a> {
    spec: &'a ServerSpec,
    opts: &'a ProbeOptions,
    stderr: StderrBuf,
    env: LaunchEnv,
    bwrap: Option<std::path::PathBuf>,
    /// Whether the sandboxed server may use the network.
    net: bool,
    http_headers: std::collections::BTreeMap<String, String>,
    /// The stdio arguments after resolving passed references.
    args: Vec<String>,
    starts: usize,
    /// The scratch HOME and TMPDIR, shared by the first process and a fresh one when the
    /// handshake needs it (so an `npx` download is not repeated), removed when the probe ends.
    scratch: Option<tempfile::TempDir>,
    /// Stdio servers the handshake is done with: killed, not reaped yet ([`Teardown`]).
    retired: Vec<super::stdio::StdioConn>,
}

impl Launcher<'_> {
    fn scratch_dir(&mut self) -> Result<std::path::PathBuf, String> {
        if let Some(d) = &self.scratch {
            return Ok(d.path().to_path_buf());
        }
        let dir = tempfile::Builder::new()
            .prefix("mcpvet-probe-")
            .tempdir()
            .map_err(|e| format!("cannot create a scratch HOME: {e}"))?;
        // The private working directory is the sandbox's alone. (Every directory made here
        // is one more to remove after the server is killed; on a disk mounted with online
        // discard each removal takes milliseconds.)
        let subs: &[&str] = if self.bwrap.is_some() {
            &["home", "tmp", "work"]
        } else {
            &["home", "tmp"]
        };
        for sub in subs {
            std::fs::create_dir_all(dir.path().join(sub))
                .map_err(|e| format!("cannot create a scratch HOME: {e}"))?;
        }
        let path = dir.path().to_path_buf();
        self.scratch = Some(dir);
        Ok(path)
    }

    async fn start(&mut self) -> Result<Conn, String> {
        match &self.spec.transport {
            Transport::Http { url, .. } if self.spec.sse_declared_at().is_some() => {
                let c = LegacySseConn::new(url, &self.http_headers, &self.opts.caps)
                    .map_err(|e| e.to_string())?;
                Ok(Conn::LegacySse(Box::new(c)))
            }
            Transport::Http { url, .. } => {
                let c = super::http::HttpConn::new(url, &self.http_headers, &self.opts.caps)
                    .map_err(|e| e.to_string())?;
                Ok(Conn::Http(Box::new(c)))
            }
            Transport::Stdio { command, cwd, .. } => {
                let args = &self.args.clone();
                self.starts += 1;
                // Relative commands and arguments are relative to the config's `cwd`, else
                // to mcpvet's own working directory.
                let here = std::env::current_dir().ok();
                let cwd: Option<std::path::PathBuf> = match (cwd, &here) {
                    (Some(c), Some(h)) if c.is_relative() => Some(h.join(c)),
                    (Some(c), _) => Some(c.clone()),
                    (None, h) => h.clone(),
                };
                let command: &String = &if command.contains('/') && !command.starts_with('/') {
                    cwd.as_ref()
                        .map(|c| c.join(command).display().to_string())
                        .unwrap_or_else(|| command.clone())
                } else {
                    command.clone()
                };
                if self.starts > 1 {
                    if let Ok(mut b) = self.stderr.lock() {
                        b.push(b"\n[mcpvet: fresh process for the handshake]\n");
                    }
                }
                let scratch = self.scratch_dir()?;
                let launch = Launch {
                    command,
                    args,
                    env: &self.env,
                    cwd: cwd.as_deref(),
                    scratch: &scratch,
                };
                let plan: LaunchPlan = if let Some(bwrap) = &self.bwrap {
                    sandbox::sandbox_plan(
                        &bwrap.display().to_string(),
                        &launch,
                        &hidden_now(),
                        self.net,
                    )
                } else {
                    process::plain_plan(&launch)
                };
                // The arguments are not logged: passed references may have put secrets there.
                tracing::debug!(
                    program = ?plan.program,
                    arguments = plan.args.len(),
                    start = self.starts,
                    "starting the server"
                );
                let conn =
                    super::stdio::StdioConn::spawn(&plan, &self.opts.caps, self.stderr.clone())
                        .map_err(|e| {
                            if self.bwrap.is_some() {
                                format!("cannot start bubblewrap ({}): {e}", plan.program)
                            } else {
                                format!("cannot start `{command}`: {e}")
                            }
                        })?;
                Ok(Conn::Stdio(Box::new(conn)))
            }
        }
    }
}

impl Connect for Launcher<'_> {
    async fn connect(&mut self) -> Result<Conn, RpcError> {
        self.start().await.map_err(RpcError::Launch)
    }

    /// A stdio server is killed here and now; reaping it waits for the [`Teardown`].
    async fn retire(&mut self, conn: Conn) {
        match conn {
            Conn::Stdio(mut c) => {
                c.kill_now();
                self.retired.push(*c);
            }
            other => other.close().await,
        }
    }
}

/// What is left of a probe once its servers are killed: reaping them, then removing the
/// scratch HOME (only once nothing can write there any more). [`probe_deferred`] hands it
/// over with the snapshot so that it can run while the caller goes on.
#[derive(Default)]
pub struct Teardown {
    conns: Vec<super::stdio::StdioConn>,
    scratch: Option<tempfile::TempDir>,
}

impl Teardown {
    /// Reap every server (each was killed already) and remove the scratch HOME.
    pub async fn finish(self) {
        for c in self.conns {
            c.close().await;
        }
        if let Some(dir) = self.scratch {
            // Blocking file-system work, off the runtime's workers.
            let _ = tokio::task::spawn_blocking(move || drop(dir)).await;
        }
    }
}

/// What the sandbox hides for this process: the reviewer's `HOME` (and `/root`, `/home`,
/// `/tmp`), except the repository mcpvet runs in when that lies inside it.
fn hidden_now() -> sandbox::Hidden {
    let home = std::env::var_os("HOME").map(std::path::PathBuf::from);
    let here = std::env::current_dir().ok();
    sandbox::Hidden::new(home.as_deref(), here.as_deref())
}

/// The last lines of captured stderr, for error messages.
fn stderr_tail(buf: &StderrBuf) -> String {
    let text = buf.lock().map(|b| b.to_string_lossy()).unwrap_or_default();
    let lines: Vec<&str> = text.lines().filter(|l| !l.trim().is_empty()).collect();
    let tail: Vec<String> = lines[lines.len().saturating_sub(6)..]
        .iter()
        .map(|l| format!("│ {}", crate::model::escape::line(l)))
        .collect();
    // Each line marked as the server's: none can pass for mcpvet's own.
    let mut s = tail.join("\n    ");
    if s.len() > 1200 {
        let mut start = s.len() - 1200;
        while !s.is_char_boundary(start) {
            start += 1;
        }
        s = format!("…{}", &s[start..]);
    }
    s
}

fn with_stderr(message: String, buf: &StderrBuf) -> String {
    let tail = stderr_tail(buf);
    if tail.is_empty() {
        message
    } else {
        format!("{message}\n  server stderr (last lines):\n    {tail}")
    }
}

/// A server started (stdio) or connected (HTTP) for a long-lived session without the
/// handshake: the guard speaks to it through [`Conn`]. Dropping it kills a stdio server's
/// process group and removes its scratch HOME.
pub struct Opened {
    pub conn: Conn,
    /// The server's stderr, last bytes.
    pub stderr: StderrBuf,
    /// What the preparation noted (sandbox, withheld variables).
    pub notes: Vec<String>,
    /// The scratch HOME and TMPDIR, removed on drop (after the connection).
    _scratch: Option<tempfile::TempDir>,
}

/// Start or connect to one server exactly as the probe does (clean environment, the
/// bubblewrap sandbox when `opts.sandbox`, resolved headers), without any handshake.
pub async fn open(spec: &ServerSpec, opts: &ProbeOptions) -> Result<Opened, ProbeFailure> {
    let deadline = Instant::now() + opts.timeout;
    let mut session = Session::new();
    let stderr: StderrBuf = Arc::new(Mutex::new(RingBuffer::new(opts.caps.max_stderr_bytes)));
    let mut launcher = prepare(spec, opts, &mut session, stderr.clone())?;
    if let Some(b) = &launcher.bwrap {
        preflight(b, launcher.net, deadline)
            .await
            .map_err(|e| ProbeFailure::new(&spec.name, e))?;
    }
    let conn = launcher
        .start()
        .await
        .map_err(|m| ProbeFailure::new(&spec.name, m))?;
    Ok(Opened {
        conn,
        stderr,
        notes: session.notes,
        _scratch: launcher.scratch.take(),
    })
}

/// Probe one server (async). Every exit path kills what was launched; it returns once what
/// was launched is reaped and its scratch HOME removed.
pub async fn probe_async(
    spec: &ServerSpec,
    opts: &ProbeOptions,
) -> Result<ServerSnapshot, ProbeFailure> {
    let (out, teardown) = probe_deferred(spec, opts).await;
    teardown.finish().await;
    out
}

/// Probe one server (async), handing the snapshot over as soon as the servers are killed: the
/// [`Teardown`] (reaping, removing the scratch HOME) is the caller's to finish. After a
/// failure it is finished here, before the error is worded (so that the error quotes all the
/// server wrote on stderr), and the one returned is empty.
pub async fn probe_deferred(
    spec: &ServerSpec,
    opts: &ProbeOptions,
) -> (Result<ServerSnapshot, ProbeFailure>, Teardown) {
    // One deadline for the whole probe of this server: sandbox check, launches, listing.
    let deadline = Instant::now() + opts.timeout;
    let mut session = Session::new();
    let stderr: StderrBuf = Arc::new(Mutex::new(RingBuffer::new(opts.caps.max_stderr_bytes)));
    let fail = |m: String| ProbeFailure::new(&spec.name, m);
    let mut launcher = match prepare(spec, opts, &mut session, stderr.clone()) {
        Ok(l) => l,
        Err(e) => return (Err(e), Teardown::default()),
    };
    // The sandbox check runs beside the first launch instead of before it: a bubblewrap
    // that cannot build the sandbox never runs the server at all (it exits first), so
    // nothing runs unsandboxed meanwhile, and its failure is the one reported.
    let check = launcher.bwrap.clone().map(|b| (b, launcher.net));
    let preflight = async {
        match &check {
            Some((b, net)) => preflight(b, *net, deadline).await,
            None => Ok(()),
        }
    };
    let result = {
        let handshake = tokio::time::timeout_at(
            deadline,
            handshake::run(&mut launcher, opts, &mut session, deadline),
        );
        tokio::pin!(preflight, handshake);
        tokio::select! {
            checked = &mut preflight => match checked {
                Ok(()) => Ok(handshake.await),
                Err(e) => Err(e),
            },
            result = &mut handshake => match preflight.await {
                Ok(()) => Ok(result),
                Err(e) => Err(e),
            },
        }
    };
    let mut teardown = Teardown {
        conns: std::mem::take(&mut launcher.retired),
        scratch: launcher.scratch.take(),
    };
    drop(launcher);
    if !matches!(result, Ok(Ok(Ok(_)))) {
        teardown.finish().await;
        teardown = Teardown::default();
    }
    let out = match result {
        Err(e) => Err(fail(e)),
        Ok(r) => probe_outcome(spec, opts, r, session, &stderr, deadline).map_err(fail),
    };
    (out, teardown)
}

/// Check that bubblewrap can build the sandbox here ([`sandbox::bwrap_preflight`], once per
/// process) before `deadline`; the error refuses the server.
async fn preflight(bwrap: &std::path::Path, net: bool, deadline: Instant) -> Result<(), String> {
    tokio::time::timeout_at(deadline, sandbox::bwrap_preflight(bwrap, net))
        .await
        .unwrap_or_else(|_| Err("bubblewrap did not start before the --timeout limit".into()))
        .map_err(|e| {
            format!(
                "sandbox: {e}; refusing to run the server unsandboxed: make user namespaces available to bubblewrap, or {}",
                sandbox::INSTALL_HINT
            )
        })
}

/// Everything before the first launch: environment, arguments, headers, which sandbox (the
/// caller runs its check, [`preflight`]).
fn prepare<'a>(
    spec: &'a ServerSpec,
    opts: &'a ProbeOptions,
    session: &mut Session,
    stderr: StderrBuf,
) -> Result<Launcher<'a>, ProbeFailure> {
    let fail = |m: String| ProbeFailure::new(&spec.name, m);
    let mut bwrap = None;
    let mut net = false;
    let mut env = LaunchEnv::default();
    let mut launch_args: Vec<String> = Vec::new();
    if let Transport::Stdio { env: declared, .. } = &spec.transport {
        env = process::build_env(declared, &opts.pass_env, &|k| std::env::var(k).ok());
        if let Transport::Stdio { args, .. } = &spec.transport {
            let (resolved, notes) =
                process::resolve_args(args, &opts.pass_env, &|k| std::env::var(k).ok());
            launch_args = resolved;
            for n in notes {
                session.note(n);
            }
        }
        for n in &env.notes {
            session.note(n.clone());
        }
        if opts.sandbox {
            let path = std::env::var("PATH").ok();
            let Some(b) = sandbox::find_bwrap(path.as_deref()) else {
                return Err(fail(format!(
                    "the sandbox needs bubblewrap (`bwrap`), which is not on PATH; {}",
                    sandbox::INSTALL_HINT
                )));
            };
            if let Transport::Stdio { command, cwd, .. } = &spec.transport {
                if let Some(why) = sandbox::hidden_command(command, path.as_deref(), &hidden_now())
                {
                    return Err(fail(format!("sandbox: {why}")));
                }
                // (A relative script is looked for where the server starts.)
                let here =
                    std::env::current_dir().unwrap_or_else(|_| std::path::PathBuf::from("/"));
                let start = cwd.as_ref().map_or_else(|| here.clone(), |c| here.join(c));
                if let Some(why) =
                    sandbox::hidden_script(command, &launch_args, &start, &hidden_now())
                {
                    return Err(fail(format!("sandbox: {why}")));
                }
            }
            if let Transport::Stdio { cwd: Some(c), .. } = &spec.transport {
                let c = std::env::current_dir()
                    .map(|here| here.join(c))
                    .unwrap_or_else(|_| c.clone());
                if hidden_now().hides(&c) {
                    session.note(format!(
                        "the working directory {} is hidden by the sandbox; the server started in the empty {}",
                        c.display(),
                        sandbox::PRIVATE_CWD
                    ));
                }
            }
            net = opts.sandbox_net || opts.sandbox_net_servers.iter().any(|n| n == &spec.name);
            session.note(format!(
                "sandboxed with bubblewrap ({})",
                if opts.sandbox_net {
                    "network allowed by --sandbox-net"
                } else if net {
                    "network allowed by the policy"
                } else {
                    "no network"
                }
            ));
            bwrap = Some(b);
        }
    }
    let mut http_headers = std::collections::BTreeMap::new();
    if let Transport::Http { headers, .. } = &spec.transport {
        let (h, notes) = process::resolve_values("header", headers, &opts.pass_env, &|k| {
            std::env::var(k).ok()
        });
        http_headers = h;
        for n in notes {
            session.note(n);
        }
    }
    Ok(Launcher {
        spec,
        opts,
        stderr,
        env,
        bwrap,
        net,
        http_headers,
        args: launch_args,
        starts: 0,
        scratch: None,
        retired: Vec::new(),
    })
}

/// The snapshot of a finished handshake, or why there is none.
fn probe_outcome(
    spec: &ServerSpec,
    opts: &ProbeOptions,
    result: Result<Result<ServerSnapshot, RpcError>, tokio::time::error::Elapsed>,
    session: Session,
    stderr: &StderrBuf,
    deadline: Instant,
) -> Result<ServerSnapshot, String> {
    let fail = |m: String| m;
    let mut snap = match result {
        Err(_) => {
            return Err(fail(with_stderr(
                format!(
                    "timed out after {} (the --timeout limit)",
                    human_duration(opts.timeout)
                ),
                stderr,
            )));
        }
        Ok(Err(e)) => {
            tracing::debug!(server = ?spec.name, error = ?e, "the probe failed");
            return Err(fail(with_stderr(e.to_string(), stderr)));
        }
        Ok(Ok(s)) => s,
    };
    snap.server = spec.name.clone();
    // With -v: what the server wrote on stderr (its last lines, each escaped and marked).
    for line in stderr_tail(stderr).lines() {
        tracing::debug!(server = ?spec.name, "server stderr {}", line.trim_start());
    }
    snap.probe = Some(ProbeInfo {
        transport: match (session.transport, &spec.transport) {
            (Some(spoken), _) => spoken.into(),
            (None, Transport::Stdio { .. }) => "stdio".into(),
            (None, Transport::Http { .. }) => "http".into(),
        },
        elapsed_ms: u64::try_from(session.start.elapsed().as_millis()).unwrap_or(u64::MAX),
        first_response_ms: session
            .first_response
            .map(|d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX)),
        stderr: stderr
            .lock()
            .map(|b| b.to_string_lossy())
            .unwrap_or_default(),
        notes: session.notes,
        deadline: Some(deadline.into_std()),
    });
    Ok(snap)
}
