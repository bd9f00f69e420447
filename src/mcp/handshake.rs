//! The dual-era handshake and the lists.
//!
//! `server/discover` goes first, with the 2026-07-28 `_meta`. A DiscoverResult, or -32022
//! whose `supported` names a modern version, means modern. Any other error, EOF, exit or
//! silence within `discover_timeout` means legacy: a **fresh** process (stdio) gets
//! `initialize` (offering 2025-11-25 and accepting whatever the server answers) and
//! `notifications/initialized`. Then every page of `tools/list`, and `prompts/list`,
//! `resources/list` and `resources/templates/list` where the server advertises them.

use std::collections::HashSet;

use serde_json::{Value, json};
use tokio::time::Instant;

use super::error::RpcError;
use super::jsonrpc::{self, ErrorObject, LEGACY_VERSION, MODERN_VERSION};
use super::limits::human_duration;
use super::{CallError, Conn, ProbeOptions, Session};
use crate::model::snapshot::{Era, ServerSnapshot};

/// Opens a connection to the server under probe: for stdio, a fresh process each time.
pub trait Connect {
    /// Start the server (or open the connection) once more.
    fn connect(&mut self) -> impl std::future::Future<Output = Result<Conn, RpcError>> + Send;
}

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

/// The dual-era exchange: `server/discover` on a first connection, then the modern listing,
/// or `initialize` on a fresh one (stdio) and the legacy listing. Every connection opened
/// here is closed here.
pub async fn run(
    connector: &mut impl Connect,
    opts: &ProbeOptions,
    session: &mut Session,
    deadline: Instant,
) -> Result<ServerSnapshot, RpcError> {
    let mut conn = connector.connect().await?;
    let discover_deadline = deadline.min(Instant::now() + opts.discover_timeout);
    let answer = conn
        .call(
            "server/discover",
            jsonrpc::params(Era::Modern, None, &opts.client()),
            Era::Modern,
            discover_deadline,
            session,
        )
        .await;
    // A breach of a limit is never a reason to fall back: it is the server's answer.
    if let Err(CallError::Limit(m)) = answer {
        conn.close().await;
        return Err(RpcError::Transport {
            method: "server/discover".into(),
            error: CallError::Limit(m),
        });
    }
    let outcome = classify_discover(answer, opts.discover_timeout);
    match &outcome {
        DiscoverOutcome::Modern(_) => tracing::debug!("server/discover: modern"),
        DiscoverOutcome::Unsupported(list) => {
            tracing::debug!(supported = ?list, "server/discover: unsupported versions");
        }
        DiscoverOutcome::Legacy(why) => tracing::debug!(reason = ?why, "server/discover: legacy"),
    }
    let mut ex = Exchange {
        session,
        deadline,
        opts,
    };
    match outcome {
        DiscoverOutcome::Modern(result) => {
            let r = ex.modern(&mut conn, result).await;
            conn.close().await;
            r
        }
        DiscoverOutcome::Unsupported(supported) => {
            conn.close().await;
            Err(RpcError::UnsupportedVersion {
                supported,
                requested: MODERN_VERSION.into(),
            })
        }
        DiscoverOutcome::Legacy(reason) => {
            ex.session.note(format!("legacy handshake: {reason}"));
            let mut conn = if matches!(conn, Conn::Stdio(_)) {
                conn.close().await;
                connector.connect().await?
            } else {
                conn
            };
            let r = ex.legacy(&mut conn).await;
            conn.close().await;
            r
        }
    }
}

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

    async fn modern(
        &mut self,
        conn: &mut Conn,
        discover: Value,
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

    async fn legacy(&mut self, conn: &mut Conn) -> Result<ServerSnapshot, RpcError> {
        let params = json!({
            "protocolVersion": LEGACY_VERSION,
            "capabilities": {},
            "clientInfo": self.opts.client(),
        });
        let deadline = self.deadline;
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
                let params = jsonrpc::params(Era::Modern, None, &self.opts.client());
                let discover = self
                    .call(conn, "server/discover", params, Era::Modern)
                    .await
                    .map_err(|e| RpcError::from_call("server/discover", e, deadline))?;
                if !discover.is_object() {
                    return Err(RpcError::Malformed(
                        "server/discover returned a non-object result".into(),
                    ));
                }
                return self.modern(conn, discover).await;
            }
            Err(e) => return Err(RpcError::from_call("initialize", e, deadline)),
        };
        if !init.is_object() {
            return Err(RpcError::Malformed(format!(
                "initialize returned a non-object result ({})",
                short(&init)
            )));
        }
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

    async fn lists(
        &mut self,
        conn: &mut Conn,
        snap: &mut ServerSnapshot,
        caps: Option<&Value>,
        era: Era,
    ) -> Result<(), RpcError> {
        let advertises = |k: &str| caps.and_then(|c| c.get(k)).is_some_and(|v| !v.is_null());
        let mut items = 0usize;
        // Tools are asked for even when not advertised (hiding tools is no defence); then a
        // "method not found" is accepted, and a non-empty list is worth a note.
        let tools_advertised = advertises("tools");
        match self
            .list_all(conn, "tools/list", "tools", era, &mut items)
            .await
        {
            Ok(t) => {
                if !tools_advertised && !t.is_empty() {
                    self.session.note(
                        "the server lists tools without advertising the tools capability".into(),
                    );
                }
                snap.tools = t;
            }
            Err(e) if !tools_advertised && e.is_method_not_found() => {
                tracing::debug!(error = ?e, "tools/list is not implemented and not advertised");
            }
            Err(e) => return Err(e),
        }
        if advertises("prompts") {
            snap.prompts = self
                .list_all(conn, "prompts/list", "prompts", era, &mut items)
                .await?;
        }
        if advertises("resources") {
            snap.resources = self
                .list_all(conn, "resources/list", "resources", era, &mut items)
                .await?;
            match self
                .list_all(
                    conn,
                    "resources/templates/list",
                    "resourceTemplates",
                    era,
                    &mut items,
                )
                .await
            {
                Ok(t) => snap.resource_templates = t,
                Err(e) if e.is_method_not_found() => {
                    self.session
                        .note("resources/templates/list is not implemented (-32601)".into());
                }
                Err(e) => return Err(e),
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
            if let Some(rt) = result.get("resultType") {
                if rt.as_str() != Some("complete") {
                    return Err(RpcError::Malformed(format!(
                        "{method}: resultType {rt} is not \"complete\""
                    )));
                }
            }
            let list = match result.get(key) {
                Some(Value::Array(a)) => a,
                Some(_) => {
                    return Err(RpcError::Malformed(format!(
                        "{method}: `{key}` is not an array (page {page})"
                    )));
                }
                None => {
                    return Err(RpcError::Malformed(format!(
                        "{method}: the result has no `{key}` array (page {page})"
                    )));
                }
            };
            *items += list.len();
            tracing::debug!(method, page, items = list.len(), "list page received");
            if *items > caps.max_items {
                return Err(RpcError::ItemCap {
                    method: method.into(),
                    max: caps.max_items,
                });
            }
            out.extend(list.iter().cloned());
            match result.get("nextCursor") {
                None | Some(Value::Null) => break,
                Some(Value::String(c)) => {
                    if !seen.insert(c.clone()) {
                        return Err(RpcError::RepeatedCursor {
                            method: method.into(),
                            cursor: c.clone(),
                            page,
                        });
                    }
                    cursor = Some(c.clone());
                }
                Some(other) => {
                    return Err(RpcError::Malformed(format!(
                        "{method}: nextCursor {} is not a string",
                        short(other)
                    )));
                }
            }
        }
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    fn rpc(code: i64, data: Option<Value>) -> Result<Value, CallError> {
        Err(CallError::Rpc(ErrorObject {
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
