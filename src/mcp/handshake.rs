//! The dual-era handshake and the lists.
//!
//! The era is decided from answers, never from a clock. On stdio, one process gets
//! `server/discover` (with the 2026-07-28 `_meta`) and `initialize` (offering 2025-11-25)
//! back to back, and the first answer that decides wins:
//!
//! - a DiscoverResult means modern (a modern server then refuses `initialize`: mcp 2.x and
//!   fastmcp 4 answer -32022, ci-insights -32602; that late answer is skipped);
//! - an InitializeResult means legacy (a legacy server refused `server/discover` with
//!   -32601/-32602, or ignored it: nothing waits for that answer), and
//!   `notifications/initialized` follows on the same process;
//! - `initialize` refused with -32022 naming 2026-07-28 means modern: `server/discover` is
//!   sent once more on the same process (the server missed or refused the first);
//! - -32022 to `server/discover` naming only versions mcpvet cannot speak, with `initialize`
//!   refused too, is an error.
//!
//! A slow start is therefore not an era: the only clock is the per-server deadline
//! (`--timeout`). A **fresh** process, which gets `initialize` alone, is started only when
//! the first one exited, closed its stdout or wrote garbage before the era was decided (old
//! rmcp servers exit on any request before `initialize`), or refused both requests. Over
//! HTTP the same decision runs on one connection, one request at a time (every POST gets an
//! answer). How the era was decided is kept in the snapshot's `eraEvidence`. Then every page
//! of `tools/list`, and `prompts/list`, `resources/list` and `resources/templates/list`
//! where the server advertises them.

use std::collections::HashSet;

use serde_json::{Value, json};
use tokio::time::Instant;

use super::error::RpcError;
use super::jsonrpc::{self, ErrorObject, LEGACY_VERSION, MODERN_VERSION};
use super::{CallError, Conn, ProbeOptions, Session};
use crate::model::snapshot::{Era, EraDecider, EraEvidence, ServerSnapshot};

/// Opens a connection to the server under probe: for stdio, a fresh process each time.
pub trait Connect {
    /// Start the server (or open the connection) once more.
    fn connect(&mut self) -> impl std::future::Future<Output = Result<Conn, RpcError>> + Send;

    /// Done with a connection: close it. The default waits until it is closed; a connector
    /// may instead kill a stdio server at once and leave its reaping for later (the probe's
    /// [`super::probe::Teardown`]).
    fn retire(&mut self, conn: Conn) -> impl std::future::Future<Output = ()> + Send {
        conn.close()
    }
}

/// What one handshake request got so far: `None` while it is unanswered.
pub type Got = Option<Result<Value, CallError>>;

/// What the answers so far call for.
#[derive(Debug, Clone, PartialEq)]
pub enum Step {
    /// Modern: the DiscoverResult.
    Modern(Value),
    /// Legacy: the InitializeResult.
    Legacy(Value),
    /// The server names only protocol versions this client cannot speak.
    Unsupported(Vec<String>),
    /// `initialize` says the server is modern but `server/discover` got no DiscoverResult:
    /// ask again.
    RetryDiscover,
    /// Nothing has decided yet: wait for the next answer.
    Wait,
    /// Both requests were answered and neither answer decides (the text says what each got).
    Refused(String),
}

/// Decide the era from the answers so far. `retried`: `server/discover` was already sent a
/// second time. Pure: no clock takes part.
pub fn decide(discover: &Got, initialize: &Got, retried: bool) -> Step {
    if let Some(Ok(v)) = discover {
        if v.is_object() {
            return Step::Modern(v.clone());
        }
    }
    if let Some(Ok(v)) = initialize {
        if v.is_object() {
            return Step::Legacy(v.clone());
        }
    }
    let init_says_modern = matches!(initialize, Some(Err(CallError::Rpc(e)))
        if supported_versions(e).is_some_and(|l| l.iter().any(|v| v == MODERN_VERSION)));
    if init_says_modern {
        return match discover {
            None if retried => Step::Wait,
            Some(_) if retried => Step::Refused(refusal(discover, initialize)),
            _ => Step::RetryDiscover,
        };
    }
    let (Some(d), Some(_)) = (discover, initialize) else {
        return Step::Wait;
    };
    if let Err(CallError::Rpc(e)) = d {
        if let Some(list) = supported_versions(e) {
            if !list
                .iter()
                .any(|v| v == MODERN_VERSION || is_legacy_version(v))
            {
                return Step::Unsupported(list);
            }
        }
    }
    Step::Refused(refusal(discover, initialize))
}

fn refusal(discover: &Got, initialize: &Got) -> String {
    format!(
        "server/discover got {}; initialize got {}",
        describe(discover),
        describe(initialize)
    )
}

/// What a request got, in mcpvet's own words (no server text): for notes and `eraEvidence`.
pub fn describe(got: &Got) -> String {
    match got {
        None => "no answer".into(),
        Some(Ok(v)) if v.is_object() => "result".into(),
        Some(Ok(_)) => "a result that is not an object".into(),
        Some(Err(e)) => describe_error(e),
    }
}

fn describe_error(e: &CallError) -> String {
    match e {
        CallError::Rpc(e) => match supported_versions(e) {
            Some(list) if !list.is_empty() => {
                let list: Vec<String> = list
                    .iter()
                    .take(8)
                    .map(|v| crate::model::escape::line(&crate::model::escape::clip(v, 32)))
                    .collect();
                format!("error {} (supported: {})", e.code, list.join(", "))
            }
            _ => format!("error {}", e.code),
        },
        CallError::Closed(_) => "the connection closed (the server exited)".into(),
        CallError::Silent => "no answer".into(),
        CallError::Limit(_) => "a message over a cap".into(),
        CallError::Protocol(_) => "an answer that breaks the protocol".into(),
        CallError::SessionExpired(_) => "a forgotten session".into(),
    }
}

/// The note kept when `server/discover` is refused (or breaks down over HTTP).
fn refused_note(e: &CallError) -> String {
    match e {
        CallError::Rpc(o) => format!("server/discover was refused: {o}"),
        other => format!("server/discover was refused: {other}"),
    }
}

fn is_legacy_version(v: &str) -> bool {
    matches!(
        v,
        "2025-11-25" | "2025-06-18" | "2025-03-26" | "2024-11-05" | "2024-10-07"
    )
}

/// `data.supported` of a -32022 error.
fn supported_versions(e: &ErrorObject) -> Option<Vec<String>> {
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

/// The deciding step and what each request had got by then.
struct Decided {
    step: Step,
    discover: Got,
    initialize: Got,
}

/// How the first connection's exchange ended.
enum First {
    /// The era is decided.
    Decided(Box<Decided>),
    /// The process exited, wrote garbage or refused both requests before anything decided:
    /// a fresh process gets `initialize` alone. The text says what happened.
    Fresh { discover: String, why: String },
}

/// The dual-era exchange, every connection opened here retired here ([`Connect::retire`]):
/// decide the era on a first connection (see the module doc), on a fresh process only when
/// the first one could not decide it, then read the lists.
pub async fn run(
    connector: &mut impl Connect,
    opts: &ProbeOptions,
    session: &mut Session,
    deadline: Instant,
) -> Result<ServerSnapshot, RpcError> {
    let mut conn = connector.connect().await?;
    let mut ex = Exchange {
        session,
        deadline,
        opts,
    };
    let first = if let Conn::Stdio(c) = &mut conn {
        ex.pipelined(c).await
    } else {
        ex.sequential(&mut conn).await
    };
    let first = match first {
        Ok(f) => f,
        Err(e) => {
            connector.retire(conn).await;
            return Err(e);
        }
    };
    match first {
        First::Decided(decided) => {
            let Decided {
                step,
                discover,
                initialize,
            } = *decided;
            let modern = matches!(step, Step::Modern(_));
            let evidence = |decided_by| EraEvidence {
                decided_by,
                discover: describe(&discover),
                initialize: if initialize.is_none() && modern {
                    "no answer needed".into()
                } else {
                    describe(&initialize)
                },
                fresh_process: false,
            };
            let r = match step {
                Step::Modern(result) => {
                    let ev = evidence(EraDecider::DiscoverResult);
                    tracing::debug!(evidence = %ev, "era decided: modern");
                    ex.modern(&mut conn, result, ev).await
                }
                Step::Legacy(result) => {
                    let ev = evidence(EraDecider::InitializeResult);
                    tracing::debug!(evidence = %ev, "era decided: legacy");
                    ex.legacy_from(&mut conn, result, ev).await
                }
                Step::Unsupported(supported) => Err(RpcError::UnsupportedVersion {
                    supported,
                    requested: MODERN_VERSION.into(),
                }),
                Step::Refused(why) => {
                    ex.session.note(format!(
                        "neither server/discover nor initialize was accepted ({why})"
                    ));
                    Err(match initialize {
                        Some(Err(e)) => RpcError::from_call("initialize", e, deadline),
                        Some(Ok(v)) => RpcError::Malformed(format!(
                            "initialize returned a non-object result ({})",
                            short(&v)
                        )),
                        None => RpcError::Malformed(format!(
                            "neither server/discover nor initialize was accepted ({why})"
                        )),
                    })
                }
                Step::RetryDiscover | Step::Wait => Err(RpcError::Malformed(
                    "the handshake ended before the era was decided".into(),
                )),
            };
            connector.retire(conn).await;
            r
        }
        First::Fresh { discover, why } => {
            connector.retire(conn).await;
            ex.session
                .note(format!("legacy handshake on a fresh process: {why}"));
            let mut conn = connector.connect().await?;
            let r = ex.legacy(&mut conn, discover).await;
            connector.retire(conn).await;
            r
        }
    }
}

/// What every request of one handshake shares.
/// What every request of one handshake shares.
struct Exchange<'a> {
    session: &'a mut Session,
    deadline: Instant,
    opts: &'a ProbeOptions,
}

impl Exchange<'_> {
    async fn call(
        &mut self,
        conn: &mut Conn,
        method: &str,
        params: Value,
        era: Era,
    ) -> Result<Value, CallError> {
        conn.call(method, params, era, self.deadline, self.session)
            .await
    }

    fn init_params(&self) -> Value {
        json!({
            "protocolVersion": LEGACY_VERSION,
            "capabilities": {},
            "clientInfo": self.opts.client(),
        })
    }

    fn discover_params(&self) -> Value {
        jsonrpc::params(Era::Modern, None, &self.opts.client())
    }

    /// stdio: `server/discover` and `initialize` back to back on one process; the first
    /// deciding answer wins (see [`decide`]).
    async fn pipelined(&mut self, c: &mut super::stdio::StdioConn) -> Result<First, RpcError> {
        let deadline = self.deadline;
        let fresh = |discover: &Got, e: &CallError| First::Fresh {
            discover: match e {
                CallError::Closed(_) if discover.is_none() => describe_error(e),
                _ => describe(discover),
            },
            why: format!("the first process could not decide the era: {e}"),
        };
        let mut discover: Got = None;
        let mut initialize: Got = None;
        let mut discover_ids = Vec::with_capacity(2);
        let sent = async {
            let d = c
                .send("server/discover", self.discover_params(), deadline)
                .await?;
            let i = c.send("initialize", self.init_params(), deadline).await?;
            Ok::<_, CallError>((d, i))
        }
        .await;
        let init_id = match sent {
            Ok((d, i)) => {
                discover_ids.push(d);
                i
            }
            Err(CallError::Silent) => {
                return Err(RpcError::from_call(
                    "server/discover",
                    CallError::Silent,
                    deadline,
                ));
            }
            Err(e) => return Ok(fresh(&discover, &e)),
        };
        let mut retried = false;
        loop {
            let step = decide(&discover, &initialize, retried);
            match step {
                Step::Wait => {}
                Step::RetryDiscover => {
                    self.session.note(format!(
                        "initialize was refused with -32022 naming {MODERN_VERSION} while server/discover got {}; asking server/discover again on the same process",
                        describe(&discover)
                    ));
                    retried = true;
                    discover = None;
                    match c
                        .send("server/discover", self.discover_params(), deadline)
                        .await
                    {
                        Ok(id) => discover_ids.push(id),
                        Err(CallError::Silent) => {
                            return Err(RpcError::from_call(
                                "server/discover",
                                CallError::Silent,
                                deadline,
                            ));
                        }
                        Err(e) => return Ok(fresh(&discover, &e)),
                    }
                    continue;
                }
                Step::Refused(why) => {
                    return Ok(First::Fresh {
                        discover: describe(&discover),
                        why: format!("the first process refused both requests ({why})"),
                    });
                }
                Step::Modern(_) | Step::Legacy(_) | Step::Unsupported(_) => {
                    return Ok(First::Decided(Box::new(Decided {
                        step,
                        discover,
                        initialize,
                    })));
                }
            }
            let mut ids: Vec<u64> = Vec::with_capacity(3);
            if discover.is_none() {
                ids.extend(&discover_ids);
            }
            if initialize.is_none() {
                ids.push(init_id);
            }
            let pending = if discover.is_none() {
                "server/discover"
            } else {
                "initialize"
            };
            match c.answer(&ids, pending, deadline, self.session).await {
                Ok((id, outcome)) => {
                    let got = Some(outcome.map_err(CallError::Rpc));
                    if id == init_id {
                        initialize = got;
                    } else {
                        if let Some(Err(e)) = &got {
                            self.session.note(refused_note(e));
                        }
                        discover = got;
                    }
                }
                // A breach of a limit is the server's answer, never a reason to start again.
                Err(e @ (CallError::Limit(_) | CallError::Silent)) => {
                    return Err(RpcError::from_call(pending, e, deadline));
                }
                Err(e) => return Ok(fresh(&discover, &e)),
            }
        }
    }

    /// HTTP: `server/discover`, then `initialize` when that did not decide, on one
    /// connection (each POST is answered, so nothing waits on a clock here either).
    async fn sequential(&mut self, conn: &mut Conn) -> Result<First, RpcError> {
        let deadline = self.deadline;
        let mut discover: Got = None;
        let mut initialize: Got = None;
        let mut retried = false;
        let mut ask_discover = true;
        loop {
            if ask_discover {
                ask_discover = false;
                let params = self.discover_params();
                match self
                    .call(conn, "server/discover", params, Era::Modern)
                    .await
                {
                    Err(e @ (CallError::Limit(_) | CallError::Silent)) => {
                        return Err(RpcError::from_call("server/discover", e, deadline));
                    }
                    Err(e) => {
                        self.session.note(refused_note(&e));
                        discover = Some(Err(e));
                    }
                    Ok(v) => discover = Some(Ok(v)),
                }
            }
            match decide(&discover, &initialize, retried) {
                Step::Wait if initialize.is_none() => {
                    let params = self.init_params();
                    initialize = Some(
                        match self.call(conn, "initialize", params, Era::Legacy).await {
                            Err(e @ (CallError::Limit(_) | CallError::Silent)) => {
                                return Err(RpcError::from_call("initialize", e, deadline));
                            }
                            other => other,
                        },
                    );
                }
                Step::RetryDiscover => {
                    self.session.note(format!(
                        "initialize was refused with -32022 naming {MODERN_VERSION}; asking server/discover again"
                    ));
                    retried = true;
                    ask_discover = true;
                }
                Step::Wait => {
                    return Err(RpcError::Malformed(
                        "the handshake ended before the era was decided".into(),
                    ));
                }
                step => {
                    return Ok(First::Decided(Box::new(Decided {
                        step,
                        discover,
                        initialize,
                    })));
                }
            }
        }
    }

    async fn modern(
        &mut self,
        conn: &mut Conn,
        discover: Value,
        evidence: EraEvidence,
    ) -> Result<ServerSnapshot, RpcError> {
        if let Some(rt) = discover.get("resultType").and_then(Value::as_str) {
            if rt != "complete" {
                return Err(RpcError::Malformed(format!(
                    "server/discover returned resultType {rt:?}"
                )));
            }
        }
        if let Some(list) = discover.get("supportedVersions").and_then(Value::as_array) {
            if !list.iter().any(|v| v.as_str() == Some(MODERN_VERSION)) {
                self.session.note(format!(
                    "supportedVersions {} does not list {MODERN_VERSION}",
                    Value::Array(list.clone())
                ));
            }
        }
        let capabilities = discover.get("capabilities").cloned();
        let mut snap = ServerSnapshot {
            era: Some(Era::Modern),
            era_evidence: Some(evidence),
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
            self.session
                .note("server/discover has no ttlMs (treated as 0)".into());
        }
        self.lists(conn, &mut snap, capabilities.as_ref(), Era::Modern)
            .await?;
        Ok(snap)
    }

    /// The fresh process after the first one could not decide: `initialize` alone (then
    /// `server/discover` if it says the server is modern). `first_discover` is what
    /// `server/discover` got on the first process.
    async fn legacy(
        &mut self,
        conn: &mut Conn,
        first_discover: String,
    ) -> Result<ServerSnapshot, RpcError> {
        let deadline = self.deadline;
        let params = self.init_params();
        let init = match self.call(conn, "initialize", params, Era::Legacy).await {
            Ok(v) => v,
            Err(CallError::Rpc(e))
                if supported_versions(&e)
                    .is_some_and(|l| l.iter().any(|v| v == MODERN_VERSION)) =>
            {
                // The server fixed its era on the first request: it is modern after all.
                self.session.note(format!(
                    "initialize was refused with {e}; probing with {MODERN_VERSION} on the same connection"
                ));
                let params = self.discover_params();
                let discover = self
                    .call(conn, "server/discover", params, Era::Modern)
                    .await
                    .map_err(|e| RpcError::from_call("server/discover", e, deadline))?;
                if !discover.is_object() {
                    return Err(RpcError::Malformed(
                        "server/discover returned a non-object result".into(),
                    ));
                }
                let evidence = EraEvidence {
                    decided_by: EraDecider::DiscoverResult,
                    discover: "result".into(),
                    initialize: describe_error(&CallError::Rpc(e)),
                    fresh_process: true,
                };
                return self.modern(conn, discover, evidence).await;
            }
            Err(e) => return Err(RpcError::from_call("initialize", e, deadline)),
        };
        if !init.is_object() {
            return Err(RpcError::Malformed(format!(
                "initialize returned a non-object result ({})",
                short(&init)
            )));
        }
        let evidence = EraEvidence {
            decided_by: EraDecider::InitializeResult,
            discover: first_discover,
            initialize: "result".into(),
            fresh_process: true,
        };
        self.legacy_from(conn, init, evidence).await
    }

    /// Legacy, with the InitializeResult in hand: `notifications/initialized`, the lists.
    async fn legacy_from(
        &mut self,
        conn: &mut Conn,
        init: Value,
        evidence: EraEvidence,
    ) -> Result<ServerSnapshot, RpcError> {
        let deadline = self.deadline;
        let version = init
            .get("protocolVersion")
            .and_then(Value::as_str)
            .map(str::to_owned);
        if version.is_none() {
            self.session
                .note("initialize result has no protocolVersion".into());
        }
        if let (Conn::Http(h), Some(v)) = (&mut *conn, &version) {
            h.legacy_version = Some(v.clone());
        }
        let capabilities = init.get("capabilities").cloned();
        let mut snap = ServerSnapshot {
            era: Some(Era::Legacy),
            era_evidence: Some(evidence),
            protocol_version: version,
            server_info: init.get("serverInfo").cloned(),
            instructions: init
                .get("instructions")
                .and_then(Value::as_str)
                .map(str::to_owned),
            capabilities: capabilities.clone(),
            ..ServerSnapshot::default()
        };
        conn.notify("notifications/initialized", Era::Legacy, deadline)
            .await
            .map_err(|e| RpcError::from_call("notifications/initialized", e, deadline))?;
        self.lists(conn, &mut snap, capabilities.as_ref(), Era::Legacy)
            .await?;
        Ok(snap)
    }

    /// Every list the server advertises (tools always). Over stdio the first page of each
    /// is asked for at once and the answers are read as they come (see [`Self::lists_pipelined`]);
    /// over HTTP one request at a time.
    async fn lists(
        &mut self,
        conn: &mut Conn,
        snap: &mut ServerSnapshot,
        caps: Option<&Value>,
        era: Era,
    ) -> Result<(), RpcError> {
        let advertises = |k: &str| caps.and_then(|c| c.get(k)).is_some_and(|v| !v.is_null());
        // Tools are asked for even when not advertised (hiding tools is no defence); then a
        // "method not found" is accepted, and a non-empty list is worth a note.
        let tools_advertised = advertises("tools");
        let mut wanted = vec![List::new("tools/list", "tools", !tools_advertised)];
        if advertises("prompts") {
            wanted.push(List::new("prompts/list", "prompts", false));
        }
        if advertises("resources") {
            wanted.push(List::new("resources/list", "resources", false));
            wanted.push(List::new(
                "resources/templates/list",
                "resourceTemplates",
                true,
            ));
        }
        let got = if let Conn::Stdio(c) = &mut *conn {
            self.lists_pipelined(c, wanted, era).await?
        } else {
            let mut items = 0usize;
            let mut got = Vec::with_capacity(wanted.len());
            for list in wanted {
                let r = self
                    .list_all(conn, list.method, list.key, era, &mut items)
                    .await;
                match r {
                    Err(e) if !(list.may_be_missing && e.is_method_not_found()) => return Err(e),
                    r => got.push((list.method, r)),
                }
            }
            got
        };
        for (method, r) in got {
            match (method, r) {
                ("tools/list", Ok(t)) => {
                    if !tools_advertised && !t.is_empty() {
                        self.session.note(
                            "the server lists tools without advertising the tools capability"
                                .into(),
                        );
                    }
                    snap.tools = t;
                }
                ("tools/list", Err(e)) => {
                    tracing::debug!(error = ?e, "tools/list is not implemented and not advertised");
                }
                ("prompts/list", r) => snap.prompts = r?,
                ("resources/list", r) => snap.resources = r?,
                ("resources/templates/list", Ok(t)) => snap.resource_templates = t,
                ("resources/templates/list", Err(_)) => {
                    self.session
                        .note("resources/templates/list is not implemented (-32601)".into());
                }
                (_, r) => {
                    r?;
                }
            }
        }
        let mut seen = HashSet::new();
        for t in &snap.tools {
            let name = ServerSnapshot::item_name(t);
            if !seen.insert(name.to_owned()) {
                self.session.note(format!("duplicate tool name {name:?}"));
            }
        }
        Ok(())
    }

    /// stdio: the first page of every list at once, then each list's next page as soon as
    /// its previous one arrives, so the lists cost one round trip (per page) instead of one
    /// each. The answers may come in any order. A list refused with -32601 where that is
    /// allowed (`may_be_missing`) is returned as that error; any other failure ends the
    /// listing at once. Returns each list's items, in the order asked.
    async fn lists_pipelined(
        &mut self,
        c: &mut super::stdio::StdioConn,
        mut lists: Vec<List>,
        era: Era,
    ) -> Result<Vec<(&'static str, Result<Vec<Value>, RpcError>)>, RpcError> {
        let deadline = self.deadline;
        let client = self.opts.client();
        let mut items = 0usize;
        for list in &mut lists {
            let params = jsonrpc::params(era, None, &client);
            list.pending = Some(
                c.send(list.method, params, deadline)
                    .await
                    .map_err(|e| RpcError::from_call(list.method, e, deadline))?,
            );
        }
        loop {
            let ids: Vec<u64> = lists.iter().filter_map(|l| l.pending).collect();
            let Some(waiting) = lists.iter().find(|l| l.pending.is_some()) else {
                break;
            };
            let waiting_for = waiting.method;
            let (id, outcome) = c
                .answer(&ids, waiting_for, deadline, self.session)
                .await
                .map_err(|e| RpcError::from_call(waiting_for, e, deadline))?;
            let Some(list) = lists.iter_mut().find(|l| l.pending == Some(id)) else {
                continue;
            };
            list.pending = None;
            let method = list.method;
            let result = match outcome {
                Ok(v) => v,
                Err(e) => {
                    let e = RpcError::from_call(method, CallError::Rpc(e), deadline);
                    if list.may_be_missing && e.is_method_not_found() {
                        list.done = Some(Err(e));
                        continue;
                    }
                    return Err(e);
                }
            };
            list.page += 1;
            let page = list.page;
            let next = take_page(
                method,
                list.key,
                page,
                &result,
                &self.opts.caps,
                &mut items,
                &mut list.out,
                &mut list.seen,
            )
            .map_err(|e| *e)?;
            match next {
                None => list.done = Some(Ok(std::mem::take(&mut list.out))),
                Some(cursor) => {
                    if page + 1 > self.opts.caps.max_pages {
                        return Err(RpcError::PageCap {
                            method: method.into(),
                            max: self.opts.caps.max_pages,
                        });
                    }
                    let params = jsonrpc::params(era, Some(&cursor), &client);
                    list.pending = Some(
                        c.send(method, params, deadline)
                            .await
                            .map_err(|e| RpcError::from_call(method, e, deadline))?,
                    );
                }
            }
        }
        Ok(lists
            .into_iter()
            .map(|l| {
                let items = match l.done {
                    Some(done) => done,
                    None => Ok(Vec::new()),
                };
                (l.method, items)
            })
            .collect())
    }

    /// Every page of one list method, following `nextCursor` (an empty string is a cursor)
    /// up to the page cap; a repeated cursor is an error. `items` counts across lists.
    async fn list_all(
        &mut self,
        conn: &mut Conn,
        method: &str,
        key: &str,
        era: Era,
        items: &mut usize,
    ) -> Result<Vec<Value>, RpcError> {
        let caps = &self.opts.caps;
        let mut out = Vec::new();
        let mut cursor: Option<String> = None;
        let mut seen: HashSet<String> = HashSet::new();
        for page in 1.. {
            if page > caps.max_pages {
                return Err(RpcError::PageCap {
                    method: method.into(),
                    max: caps.max_pages,
                });
            }
            let params = jsonrpc::params(era, cursor.as_deref(), &self.opts.client());
            let result = self
                .call(conn, method, params, era)
                .await
                .map_err(|e| RpcError::from_call(method, e, self.deadline))?;
            let caps = &self.opts.caps;
            let next = take_page(method, key, page, &result, caps, items, &mut out, &mut seen);
            match next.map_err(|e| *e)? {
                None => break,
                Some(c) => cursor = Some(c),
            }
        }
        Ok(out)
    }
}

/// One list the probe reads: its method, the result's array key, whether -32601 is an
/// acceptable answer (tools when not advertised, resource templates), and, while it is read
/// over stdio, its state.
struct List {
    method: &'static str,
    key: &'static str,
    may_be_missing: bool,
    pending: Option<u64>,
    page: usize,
    out: Vec<Value>,
    seen: HashSet<String>,
    done: Option<Result<Vec<Value>, RpcError>>,
}

impl List {
    fn new(method: &'static str, key: &'static str, may_be_missing: bool) -> Self {
        List {
            method,
            key,
            may_be_missing,
            pending: None,
            page: 0,
            out: Vec::new(),
            seen: HashSet::new(),
            done: None,
        }
    }
}

/// Check one page of a list and keep its items: `resultType` must be complete, `key` an
/// array; `items` counts across lists against the item cap. Returns the next cursor, if
/// any (an empty string is a cursor; a cursor seen before in this list is an error).
#[allow(clippy::too_many_arguments)]
fn take_page(
    method: &str,
    key: &str,
    page: usize,
    result: &Value,
    caps: &super::limits::Limits,
    items: &mut usize,
    out: &mut Vec<Value>,
    seen: &mut HashSet<String>,
) -> Result<Option<String>, Box<RpcError>> {
    if let Some(rt) = result.get("resultType") {
        if rt.as_str() != Some("complete") {
            return Err(Box::new(RpcError::Malformed(format!(
                "{method}: resultType {rt} is not \"complete\""
            ))));
        }
    }
    let list = match result.get(key) {
        Some(Value::Array(a)) => a,
        Some(_) => {
            return Err(Box::new(RpcError::Malformed(format!(
                "{method}: `{key}` is not an array (page {page})"
            ))));
        }
        None => {
            return Err(Box::new(RpcError::Malformed(format!(
                "{method}: the result has no `{key}` array (page {page})"
            ))));
        }
    };
    *items += list.len();
    tracing::debug!(method, page, items = list.len(), "list page received");
    if *items > caps.max_items {
        return Err(Box::new(RpcError::ItemCap {
            method: method.into(),
            max: caps.max_items,
        }));
    }
    out.extend(list.iter().cloned());
    match result.get("nextCursor") {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(c)) => {
            if !seen.insert(c.clone()) {
                return Err(Box::new(RpcError::RepeatedCursor {
                    method: method.into(),
                    cursor: c.clone(),
                    page,
                }));
            }
            Ok(Some(c.clone()))
        }
        Some(other) => Err(Box::new(RpcError::Malformed(format!(
            "{method}: nextCursor {} is not a string",
            short(other)
        )))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rpc(code: i64, data: Option<Value>) -> Got {
        Some(Err(CallError::Rpc(ErrorObject {
            code,
            message: "m".into(),
            data,
        })))
    }

    fn ok(v: Value) -> Got {
        Some(Ok(v))
    }

    #[test]
    fn a_discover_result_decides_modern_whatever_initialize_got() {
        let d = ok(json!({"supportedVersions": ["2026-07-28"]}));
        for init in [None, rpc(-32022, None), rpc(-32602, None), ok(json!({}))] {
            assert!(
                matches!(decide(&d, &init, false), Step::Modern(_)),
                "{init:?}"
            );
        }
    }

    #[test]
    fn an_initialize_result_decides_legacy_without_waiting_for_discover() {
        let init = ok(json!({"protocolVersion": "2025-11-25"}));
        for d in [
            None,
            rpc(-32601, None),
            rpc(-32602, None),
            ok(json!("x")),
            rpc(-32022, Some(json!({"supported": ["2025-06-18"]}))),
        ] {
            assert!(matches!(decide(&d, &init, false), Step::Legacy(_)), "{d:?}");
        }
    }

    #[test]
    fn nothing_decides_until_an_answer_does() {
        // Silence, however long, is never an era.
        assert_eq!(decide(&None, &None, false), Step::Wait);
        assert_eq!(decide(&rpc(-32601, None), &None, false), Step::Wait);
        assert_eq!(decide(&None, &rpc(-32601, None), false), Step::Wait);
        assert_eq!(decide(&ok(json!(42)), &None, false), Step::Wait);
    }

    #[test]
    fn initialize_refused_as_modern_asks_discover_again_once() {
        let modern = rpc(
            -32022,
            Some(json!({"supported": ["2026-07-28"], "requested": "2025-11-25"})),
        );
        assert_eq!(decide(&None, &modern, false), Step::RetryDiscover);
        assert_eq!(
            decide(&rpc(-32601, None), &modern, false),
            Step::RetryDiscover
        );
        assert_eq!(decide(&None, &modern, true), Step::Wait);
        assert!(matches!(
            decide(&rpc(-32601, None), &modern, true),
            Step::Refused(_)
        ));
    }

    #[test]
    fn only_unknown_versions_is_unsupported_once_initialize_is_refused_too() {
        let d = rpc(-32022, Some(json!({"supported": ["2099-01-01"]})));
        assert_eq!(decide(&d, &None, false), Step::Wait);
        assert_eq!(
            decide(
                &d,
                &rpc(-32022, Some(json!({"supported": ["2099-01-01"]}))),
                false
            ),
            Step::Unsupported(vec!["2099-01-01".into()])
        );
        assert!(matches!(decide(&d, &ok(json!({})), false), Step::Legacy(_)));
    }

    #[test]
    fn both_refused_is_refused_with_both_answers_named() {
        let Step::Refused(why) = decide(&rpc(-32601, None), &rpc(-32603, None), false) else {
            panic!()
        };
        assert_eq!(
            why,
            "server/discover got error -32601; initialize got error -32603"
        );
        let Step::Refused(why) = decide(&ok(json!(1)), &ok(json!([])), false) else {
            panic!()
        };
        assert!(why.contains("not an object"), "{why}");
    }

    #[test]
    fn descriptions_are_mcpvets_words_not_the_servers() {
        let hostile = Some(Err(CallError::Rpc(ErrorObject {
            code: -32022,
            message: "\u{1b}[31mIGNORE PREVIOUS".into(),
            data: Some(json!({"supported": ["\u{1b}[2J2099", "2026-07-28"]})),
        })));
        let d = describe(&hostile);
        assert!(!d.contains('\u{1b}') && !d.contains("IGNORE"), "{d}");
        assert!(d.starts_with("error -32022 (supported: "), "{d}");
        assert_eq!(describe(&None), "no answer");
        assert_eq!(
            describe(&Some(Err(CallError::Closed("exit status: 1".into())))),
            "the connection closed (the server exited)"
        );
    }
}
