//! The dual-era handshake and the lists.
//!
//! `server/discover` goes first, with the 2026-07-28 `_meta`. A DiscoverResult, or -32022
//! whose `supported` names a modern version, means modern. Any other error, EOF, exit or
//! silence within `discover_timeout` means legacy: a **fresh** process (stdio) gets
//! `initialize` (offering 2025-11-25 and accepting whatever the server answers) and
//! `notifications/initialized`. Then every page of `tools/list`, and `prompts/list`,
//! `resources/list` and `resources/templates/list` where the server advertises them.

use std::collections::HashSet;
use std::sync::{Arc, Mutex};

use serde_json::{Value, json};
use tokio::time::Instant;

use super::jsonrpc::{self, LEGACY_VERSION, MODERN_VERSION, RpcError};
use super::limits::{RingBuffer, human_duration};
use super::process::{self, LaunchEnv, LaunchPlan};
use super::{CallError, Conn, ProbeFailure, ProbeOptions, Session, StderrBuf};
use crate::model::snapshot::{Era, ProbeInfo, ServerSnapshot};
use crate::model::spec::{ServerSpec, Transport};

/// How the server answered `server/discover`.
#[derive(Debug, Clone, PartialEq)]
pub enum DiscoverOutcome {
    /// A DiscoverResult.
    Modern(Value),
    /// -32022 with `supported` naming only versions this client cannot speak.
    Unsupported(Vec<String>),
    /// Anything else: fall back to `initialize` on a fresh process; the reason is kept.
    Legacy(String),
}

/// Decide the era from the answer to `server/discover`.
pub fn classify_discover(
    answer: Result<Value, CallError>,
    silence: std::time::Duration,
) -> DiscoverOutcome {
    match answer {
        Ok(v) if v.is_object() => DiscoverOutcome::Modern(v),
        Ok(other) => DiscoverOutcome::Legacy(format!(
            "server/discover returned a non-object result ({})",
            short(&other)
        )),
        Err(CallError::Rpc(e)) => match supported_versions(&e) {
            Some(list) if list.iter().any(|v| v == MODERN_VERSION) => {
                // It claims to support what we sent yet refused it; treat as legacy quirk.
                DiscoverOutcome::Legacy(format!(
                    "server/discover was refused with {e} although `supported` lists {MODERN_VERSION}"
                ))
            }
            Some(list) if list.iter().any(|v| is_legacy_version(v)) => {
                DiscoverOutcome::Legacy(format!(
                    "server/discover: -32022, the server supports {}",
                    list.join(", ")
                ))
            }
            Some(list) => DiscoverOutcome::Unsupported(list),
            None => DiscoverOutcome::Legacy(format!("server/discover: {e}")),
        },
        Err(CallError::Silent) => DiscoverOutcome::Legacy(format!(
            "server/discover: no answer within {}",
            human_duration(silence)
        )),
        Err(e) => DiscoverOutcome::Legacy(format!("server/discover: {e}")),
    }
}

fn is_legacy_version(v: &str) -> bool {
    matches!(
        v,
        "2025-11-25" | "2025-06-18" | "2025-03-26" | "2024-11-05" | "2024-10-07"
    )
}

/// `data.supported` of a -32022 error.
fn supported_versions(e: &RpcError) -> Option<Vec<String>> {
    if e.code != -32022 {
        return None;
    }
    let list = e.data.as_ref()?.get("supported")?.as_array()?;
    Some(
        list.iter()
            .filter_map(Value::as_str)
            .map(str::to_owned)
            .collect(),
    )
}

fn short(v: &Value) -> String {
    let s = v.to_string();
    if s.len() > 80 {
        let mut end = 80;
        while !s.is_char_boundary(end) {
            end -= 1;
        }
        format!("{}…", &s[..end])
    } else {
        s
    }
}

/// Everything needed to (re)start one server.
struct Launcher<'a> {
    spec: &'a ServerSpec,
    opts: &'a ProbeOptions,
    stderr: StderrBuf,
    env: LaunchEnv,
    bwrap: Option<std::path::PathBuf>,
    http_headers: std::collections::BTreeMap<String, String>,
    /// The stdio arguments after resolving passed references.
    args: Vec<String>,
    starts: usize,
    /// The scratch HOME and TMPDIR, shared by the discover process and the fresh legacy
    /// one (so an `npx` download is not repeated) and removed when the probe ends.
    scratch: Option<tempfile::TempDir>,
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
        for sub in ["home", "tmp"] {
            std::fs::create_dir_all(dir.path().join(sub))
                .map_err(|e| format!("cannot create a scratch HOME: {e}"))?;
        }
        let path = dir.path().to_path_buf();
        self.scratch = Some(dir);
        Ok(path)
    }

    async fn connect(&mut self) -> Result<Conn, String> {
        match &self.spec.transport {
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
                        b.push(b"\n[mcpvet: fresh process for the legacy handshake]\n");
                    }
                }
                let scratch = self.scratch_dir()?;
                let plan: LaunchPlan = if let Some(bwrap) = &self.bwrap {
                    let home = std::env::var_os("HOME").map(std::path::PathBuf::from);
                    process::sandbox_plan(
                        &bwrap.display().to_string(),
                        command,
                        args,
                        &self.env,
                        cwd.as_deref(),
                        home.as_deref(),
                        &scratch,
                        self.opts,
                    )
                } else {
                    process::plain_plan(command, args, &self.env, cwd.as_deref(), &scratch)
                };
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

/// The last lines of captured stderr, for error messages.
fn stderr_tail(buf: &StderrBuf) -> String {
    let text = buf.lock().map(|b| b.to_string_lossy()).unwrap_or_default();
    let lines: Vec<&str> = text.lines().filter(|l| !l.trim().is_empty()).collect();
    let tail = &lines[lines.len().saturating_sub(6)..];
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

/// Probe one server (async). Every exit path kills what was launched.
pub async fn probe_async(
    spec: &ServerSpec,
    opts: &ProbeOptions,
) -> Result<ServerSnapshot, ProbeFailure> {
    let fail = |m: String| ProbeFailure::new(&spec.name, m);
    let mut session = Session::new();
    let stderr: StderrBuf = Arc::new(Mutex::new(RingBuffer::new(opts.caps.max_stderr_bytes)));
    let mut bwrap = None;
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
            let Some(b) = process::find_bwrap(path.as_deref()) else {
                return Err(fail(
                    "--sandbox needs bubblewrap (`bwrap`), which is not on PATH; install it (e.g. `apt-get install bubblewrap`) or drop --sandbox".into(),
                ));
            };
            if let Transport::Stdio { command, .. } = &spec.transport {
                let home = std::env::var_os("HOME").map(std::path::PathBuf::from);
                let hidden = process::hidden_dirs(home.as_deref());
                if let Some(why) = process::hidden_command(command, path.as_deref(), &hidden) {
                    return Err(fail(format!("--sandbox: {why}")));
                }
            }
            process::bwrap_preflight(&b, opts).await.map_err(|e| {
                fail(format!(
                    "--sandbox: {e}; refusing to run the server unsandboxed"
                ))
            })?;
            session.note(format!(
                "sandboxed with bubblewrap ({})",
                if opts.sandbox_net {
                    "network allowed"
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
        if opts.sandbox {
            session.note("--sandbox has no effect on an HTTP server".into());
        }
    }
    let mut launcher = Launcher {
        spec,
        opts,
        stderr: stderr.clone(),
        env,
        bwrap,
        http_headers,
        args: launch_args,
        starts: 0,
        scratch: None,
    };
    let deadline = Instant::now() + opts.timeout;
    let result =
        tokio::time::timeout_at(deadline, run(&mut launcher, &mut session, deadline)).await;
    let mut snap = match result {
        Err(_) => {
            return Err(fail(with_stderr(
                format!(
                    "timed out after {} (the --timeout limit)",
                    human_duration(opts.timeout)
                ),
                &stderr,
            )));
        }
        Ok(Err(m)) => return Err(fail(with_stderr(m, &stderr))),
        Ok(Ok(s)) => s,
    };
    snap.server = spec.name.clone();
    snap.probe = Some(ProbeInfo {
        transport: match spec.transport {
            Transport::Stdio { .. } => "stdio".into(),
            Transport::Http { .. } => "http".into(),
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
    });
    Ok(snap)
}

/// Explain a failed call in the probe's error message.
fn describe(method: &str, e: CallError, deadline: Instant) -> String {
    match e {
        CallError::Silent if Instant::now() >= deadline => {
            format!("{method}: no answer before the --timeout limit")
        }
        CallError::Silent => format!("{method}: no answer"),
        other => format!("{method}: {other}"),
    }
}

async fn run(
    launcher: &mut Launcher<'_>,
    session: &mut Session,
    deadline: Instant,
) -> Result<ServerSnapshot, String> {
    let opts = launcher.opts;
    let mut conn = launcher.connect().await?;
    let discover_deadline = deadline.min(Instant::now() + opts.discover_timeout);
    let answer = conn
        .call(
            "server/discover",
            jsonrpc::params(true, None, &opts.client()),
            true,
            discover_deadline,
            session,
        )
        .await;
    // A breach of a limit is never a reason to fall back: it is the server's answer.
    if let Err(CallError::Limit(m)) = &answer {
        conn.close().await;
        return Err(format!("server/discover: {m}"));
    }
    match classify_discover(answer, opts.discover_timeout) {
        DiscoverOutcome::Modern(result) => {
            let r = modern(&mut conn, result, session, deadline, opts).await;
            conn.close().await;
            r
        }
        DiscoverOutcome::Unsupported(list) => {
            conn.close().await;
            Err(format!(
                "the server only supports protocol versions {}; mcpvet speaks {MODERN_VERSION} and the legacy revisions",
                list.join(", ")
            ))
        }
        DiscoverOutcome::Legacy(reason) => {
            session.note(format!("legacy handshake: {reason}"));
            let mut conn = if matches!(conn, Conn::Stdio(_)) {
                conn.close().await;
                launcher.connect().await?
            } else {
                conn
            };
            let r = legacy(&mut conn, session, deadline, opts).await;
            conn.close().await;
            r
        }
    }
}

async fn modern(
    conn: &mut Conn,
    discover: Value,
    session: &mut Session,
    deadline: Instant,
    opts: &ProbeOptions,
) -> Result<ServerSnapshot, String> {
    if let Some(rt) = discover.get("resultType").and_then(Value::as_str) {
        if rt != "complete" {
            return Err(format!("server/discover returned resultType {rt:?}"));
        }
    }
    if let Some(list) = discover.get("supportedVersions").and_then(Value::as_array) {
        if !list.iter().any(|v| v.as_str() == Some(MODERN_VERSION)) {
            session.note(format!(
                "supportedVersions {} does not list {MODERN_VERSION}",
                Value::Array(list.clone())
            ));
        }
    }
    let capabilities = discover.get("capabilities").cloned();
    let mut snap = ServerSnapshot {
        era: Some(Era::Modern),
        protocol_version: Some(MODERN_VERSION.into()),
        server_info: discover
            .get("_meta")
            .and_then(|m| m.get("io.modelcontextprotocol/serverInfo"))
            .or_else(|| discover.get("serverInfo"))
            .cloned(),
        instructions: discover
            .get("instructions")
            .and_then(Value::as_str)
            .map(str::to_owned),
        capabilities: capabilities.clone(),
        ..ServerSnapshot::default()
    };
    if discover.get("ttlMs").is_none() {
        session.note("server/discover has no ttlMs (treated as 0)".into());
    }
    lists(
        conn,
        &mut snap,
        capabilities.as_ref(),
        true,
        session,
        deadline,
        opts,
    )
    .await?;
    Ok(snap)
}

async fn legacy(
    conn: &mut Conn,
    session: &mut Session,
    deadline: Instant,
    opts: &ProbeOptions,
) -> Result<ServerSnapshot, String> {
    let params = json!({
        "protocolVersion": LEGACY_VERSION,
        "capabilities": {},
        "clientInfo": opts.client(),
    });
    let init = match conn
        .call("initialize", params, false, deadline, session)
        .await
    {
        Ok(v) => v,
        Err(CallError::Rpc(e))
            if supported_versions(&e).is_some_and(|l| l.iter().any(|v| v == MODERN_VERSION)) =>
        {
            // The server fixed its era on the first request: it is modern after all.
            session.note(format!(
                "initialize was refused with {e}; probing with {MODERN_VERSION} on the same connection"
            ));
            let discover = conn
                .call(
                    "server/discover",
                    jsonrpc::params(true, None, &opts.client()),
                    true,
                    deadline,
                    session,
                )
                .await
                .map_err(|e| describe("server/discover", e, deadline))?;
            if !discover.is_object() {
                return Err("server/discover returned a non-object result".into());
            }
            return modern(conn, discover, session, deadline, opts).await;
        }
        Err(e) => return Err(describe("initialize", e, deadline)),
    };
    if !init.is_object() {
        return Err(format!(
            "initialize returned a non-object result ({})",
            short(&init)
        ));
    }
    let version = init
        .get("protocolVersion")
        .and_then(Value::as_str)
        .map(str::to_owned);
    if version.is_none() {
        session.note("initialize result has no protocolVersion".into());
    }
    if let (Conn::Http(h), Some(v)) = (&mut *conn, &version) {
        h.legacy_version = Some(v.clone());
    }
    let capabilities = init.get("capabilities").cloned();
    let mut snap = ServerSnapshot {
        era: Some(Era::Legacy),
        protocol_version: version,
        server_info: init.get("serverInfo").cloned(),
        instructions: init
            .get("instructions")
            .and_then(Value::as_str)
            .map(str::to_owned),
        capabilities: capabilities.clone(),
        ..ServerSnapshot::default()
    };
    conn.notify("notifications/initialized", false, deadline)
        .await
        .map_err(|e| describe("notifications/initialized", e, deadline))?;
    lists(
        conn,
        &mut snap,
        capabilities.as_ref(),
        false,
        session,
        deadline,
        opts,
    )
    .await?;
    Ok(snap)
}

async fn lists(
    conn: &mut Conn,
    snap: &mut ServerSnapshot,
    caps: Option<&Value>,
    modern: bool,
    session: &mut Session,
    deadline: Instant,
    opts: &ProbeOptions,
) -> Result<(), String> {
    let advertises = |k: &str| caps.and_then(|c| c.get(k)).is_some_and(|v| !v.is_null());
    let mut items = 0usize;
    // Tools are asked for even when not advertised (hiding tools is no defence); then a
    // "method not found" is accepted, and a non-empty list is worth a note.
    let tools_advertised = advertises("tools");
    match list_all(
        conn,
        "tools/list",
        "tools",
        modern,
        session,
        deadline,
        opts,
        &mut items,
    )
    .await
    {
        Ok(t) => {
            if !tools_advertised && !t.is_empty() {
                session
                    .note("the server lists tools without advertising the tools capability".into());
            }
            snap.tools = t;
        }
        Err(e) if !tools_advertised && e.contains("-32601") => {}
        Err(e) => return Err(e),
    }
    if advertises("prompts") {
        snap.prompts = list_all(
            conn,
            "prompts/list",
            "prompts",
            modern,
            session,
            deadline,
            opts,
            &mut items,
        )
        .await?;
    }
    if advertises("resources") {
        snap.resources = list_all(
            conn,
            "resources/list",
            "resources",
            modern,
            session,
            deadline,
            opts,
            &mut items,
        )
        .await?;
        match list_all(
            conn,
            "resources/templates/list",
            "resourceTemplates",
            modern,
            session,
            deadline,
            opts,
            &mut items,
        )
        .await
        {
            Ok(t) => snap.resource_templates = t,
            Err(e) if e.contains("-32601") => {
                session.note("resources/templates/list is not implemented (-32601)".into());
            }
            Err(e) => return Err(e),
        }
    }
    let mut seen = HashSet::new();
    for t in &snap.tools {
        let name = ServerSnapshot::item_name(t);
        if !seen.insert(name.to_owned()) {
            session.note(format!("duplicate tool name {name:?}"));
        }
    }
    Ok(())
}

/// Every page of one list method, following `nextCursor` (an empty string is a cursor)
/// up to the page cap; a repeated cursor is an error.
#[allow(clippy::too_many_arguments)]
async fn list_all(
    conn: &mut Conn,
    method: &str,
    key: &str,
    modern: bool,
    session: &mut Session,
    deadline: Instant,
    opts: &ProbeOptions,
    items: &mut usize,
) -> Result<Vec<Value>, String> {
    let mut out = Vec::new();
    let mut cursor: Option<String> = None;
    let mut seen: HashSet<String> = HashSet::new();
    for page in 1.. {
        if page > opts.caps.max_pages {
            return Err(format!(
                "{method}: more than {} pages (the page cap); the server keeps returning a nextCursor",
                opts.caps.max_pages
            ));
        }
        let result = conn
            .call(
                method,
                jsonrpc::params(modern, cursor.as_deref(), &opts.client()),
                modern,
                deadline,
                session,
            )
            .await
            .map_err(|e| describe(method, e, deadline))?;
        if let Some(rt) = result.get("resultType") {
            if rt.as_str() != Some("complete") {
                return Err(format!("{method}: resultType {rt} is not \"complete\""));
            }
        }
        let list = match result.get(key) {
            Some(Value::Array(a)) => a,
            Some(_) => return Err(format!("{method}: `{key}` is not an array (page {page})")),
            None => {
                return Err(format!(
                    "{method}: the result has no `{key}` array (page {page})"
                ));
            }
        };
        *items += list.len();
        if *items > opts.caps.max_items {
            return Err(format!(
                "{method}: more than {} items in total (the item cap)",
                opts.caps.max_items
            ));
        }
        out.extend(list.iter().cloned());
        match result.get("nextCursor") {
            None | Some(Value::Null) => break,
            Some(Value::String(c)) => {
                if !seen.insert(c.clone()) {
                    return Err(format!(
                        "{method}: the server repeated cursor {c:?} on page {page} (it would loop forever)"
                    ));
                }
                cursor = Some(c.clone());
            }
            Some(other) => {
                return Err(format!(
                    "{method}: nextCursor {} is not a string",
                    short(other)
                ));
            }
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    fn rpc(code: i64, data: Option<Value>) -> Result<Value, CallError> {
        Err(CallError::Rpc(RpcError {
            code,
            message: "m".into(),
            data,
        }))
    }

    #[test]
    fn discover_classification() {
        let d = Duration::from_secs(3);
        assert!(matches!(
            classify_discover(Ok(json!({"supportedVersions": ["2026-07-28"]})), d),
            DiscoverOutcome::Modern(_)
        ));
        assert!(matches!(
            classify_discover(rpc(-32601, None), d),
            DiscoverOutcome::Legacy(_)
        ));
        assert!(matches!(
            classify_discover(rpc(-32602, None), d),
            DiscoverOutcome::Legacy(_)
        ));
        assert!(matches!(
            classify_discover(Err(CallError::Closed("exit".into())), d),
            DiscoverOutcome::Legacy(_)
        ));
        let DiscoverOutcome::Legacy(why) = classify_discover(Err(CallError::Silent), d) else {
            panic!()
        };
        assert!(why.contains("3 s"), "{why}");
        assert_eq!(
            classify_discover(rpc(-32022, Some(json!({"supported": ["2027-01-01"]}))), d),
            DiscoverOutcome::Unsupported(vec!["2027-01-01".into()])
        );
        assert!(matches!(
            classify_discover(rpc(-32022, Some(json!({"supported": ["2025-06-18"]}))), d),
            DiscoverOutcome::Legacy(_)
        ));
        assert!(matches!(
            classify_discover(Ok(json!("x")), d),
            DiscoverOutcome::Legacy(_)
        ));
    }
}
