//! The Streamable HTTP transport: one JSON-RPC message per POST, answers as JSON or SSE,
//! 2026-07-28 headers on modern requests, `Mcp-Session-Id` and `MCP-Protocol-Version` on
//! legacy ones, the config's headers, TLS verification on, no redirect to another host,
//! deadlines and byte caps on every body.

use std::collections::BTreeMap;

use reqwest::header::{HeaderMap, HeaderName, HeaderValue};
use serde_json::Value;
use tokio::time::Instant;

use super::jsonrpc::{self, MODERN_VERSION};
use super::limits::{Limits, human_bytes};
use super::sse::SseParser;
use super::{CallError, Session};
use crate::model::snapshot::Era;

/// A connection to one HTTP endpoint.
pub struct HttpConn {
    pub(super) client: reqwest::Client,
    /// Where requests are posted (for the HTTP+SSE transport, its message endpoint).
    pub(super) url: reqwest::Url,
    /// The config's headers, sent on every request.
    pub(super) headers: HeaderMap,
    pub(super) limits: Limits,
    total: usize,
    next_id: u64,
    /// The status of the last answer to a request (404 or 405 to `initialize` starts the
    /// HTTP+SSE fallback in [`super::Conn::call`]).
    last_status: Option<u16>,
    /// Legacy session id returned by `initialize`.
    pub session_id: Option<String>,
    /// Legacy negotiated version, sent as `MCP-Protocol-Version` after `initialize`.
    pub legacy_version: Option<String>,
    /// The `initialize` params, kept to re-initialize a forgotten session once.
    init_params: Option<Value>,
    reinitialized: bool,
    /// Set by the guard: what the server sends inside the stream of an answer (its requests
    /// and notifications) is relayed instead of answered here.
    relay: Option<Relay>,
}

/// The guard's relay of a server's requests and notifications met inside the stream of an
/// answer: they go out on `to_host` (one JSON line each) and the host's answers, arriving on
/// `answers`, are posted back to the server while the stream stays open (or later).
pub struct Relay {
    pub to_host: tokio::sync::mpsc::Sender<Vec<u8>>,
    pub answers: tokio::sync::mpsc::Receiver<Value>,
}

/// What ended a wait on an SSE stream: a chunk (or its failure) or a host answer to relay.
enum StreamWait<C> {
    Chunk(C),
    Answer(Value),
}

/// Why an HTTP connection could not be set up.
#[derive(Debug, thiserror::Error)]
pub enum HttpSetupError {
    #[error("invalid URL {url:?}: {reason}")]
    Url { url: String, reason: String },
    #[error("invalid header {name:?} (check the config's headers or --header): {reason}")]
    Header { name: String, reason: String },
    #[error("cannot build the HTTP client: {0}")]
    Client(String),
}

/// Follow a redirect only within the same scheme, host and port, at most 5 times.
fn redirect_policy() -> reqwest::redirect::Policy {
    reqwest::redirect::Policy::custom(|attempt| {
        let same = attempt.previous().first().is_some_and(|first| {
            first.host_str() == attempt.url().host_str()
                && first.port_or_known_default() == attempt.url().port_or_known_default()
                && first.scheme() == attempt.url().scheme()
        });
        if attempt.previous().len() > 5 || !same {
            attempt.stop()
        } else {
            attempt.follow()
        }
    })
}

impl HttpConn {
    pub fn new(
        url: &str,
        headers: &BTreeMap<String, String>,
        limits: &Limits,
    ) -> Result<Self, HttpSetupError> {
        let parsed = reqwest::Url::parse(url).map_err(|e| HttpSetupError::Url {
            url: url.to_owned(),
            reason: e.to_string(),
        })?;
        if !matches!(parsed.scheme(), "http" | "https") {
            return Err(HttpSetupError::Url {
                url: url.to_owned(),
                reason: "only http and https URLs can be probed".into(),
            });
        }
        let mut map = HeaderMap::new();
        for (k, v) in headers {
            let name =
                HeaderName::from_bytes(k.as_bytes()).map_err(|e| HttpSetupError::Header {
                    name: k.clone(),
                    reason: e.to_string(),
                })?;
            let value = HeaderValue::from_str(v).map_err(|e| HttpSetupError::Header {
                name: k.clone(),
                reason: e.to_string(),
            })?;
            map.insert(name, value);
        }
        let loopback = parsed.host_str().is_some_and(|h| {
            h.eq_ignore_ascii_case("localhost")
                || h.trim_matches(['[', ']'])
                    .parse::<std::net::IpAddr>()
                    .is_ok_and(|ip| ip.is_loopback())
        });
        let mut builder = reqwest::Client::builder();
        if loopback {
            // A proxy from the environment must not see (or break) loopback traffic.
            builder = builder.no_proxy();
        }
        let client = builder
            .redirect(redirect_policy())
            .connect_timeout(std::time::Duration::from_secs(15))
            .user_agent(concat!("mcpvet/", env!("CARGO_PKG_VERSION")))
            .build()
            .map_err(|e| HttpSetupError::Client(e.to_string()))?;
        Ok(Self {
            client,
            url: parsed,
            headers: map,
            limits: limits.clone(),
            total: 0,
            next_id: 0,
            session_id: None,
            legacy_version: None,
            init_params: None,
            reinitialized: false,
            last_status: None,
            relay: None,
        })
    }

    /// Relay the server's requests and notifications met inside answers (the guard) instead
    /// of answering them here (the probe).
    pub fn set_relay(&mut self, relay: Relay) {
        self.relay = Some(relay);
    }

    /// The next host answer to relay (pending forever without a relay).
    pub async fn next_relay_answer(&mut self) -> Option<Value> {
        match self.relay.as_mut() {
            Some(r) => r.answers.recv().await,
            None => std::future::pending().await,
        }
    }

    /// Post the host's answer to a server request back to the server (best effort: the
    /// server's request fails on its side if this does not arrive).
    pub async fn post_answer(&mut self, answer: &Value, era: Era, deadline: Instant) {
        if let Ok(resp) = self.post(answer, "", era, deadline).await {
            let _ = self.read_body(resp, deadline).await;
        }
    }

    /// A second connection with the same client, URL, headers and caps, and the bytes read
    /// so far counted against the same total (the HTTP+SSE transport posts through it).
    pub(super) fn fork(&self) -> Self {
        Self {
            client: self.client.clone(),
            url: self.url.clone(),
            headers: self.headers.clone(),
            limits: self.limits.clone(),
            total: self.total,
            next_id: 0,
            session_id: None,
            legacy_version: None,
            init_params: None,
            reinitialized: false,
            last_status: None,
            relay: None,
        }
    }

    /// The status of the last request's answer when it was 404 or 405: the server does not
    /// take POSTs at this URL, which is how an HTTP+SSE (2024-11-05) server answers.
    pub(super) fn post_refused(&self) -> Option<u16> {
        self.last_status.filter(|s| matches!(s, 404 | 405))
    }

    fn request_headers(&self, method: &str, era: Era) -> HeaderMap {
        let mut h = self.headers.clone();
        h.insert(
            reqwest::header::ACCEPT,
            HeaderValue::from_static("application/json, text/event-stream"),
        );
        h.insert(
            reqwest::header::CONTENT_TYPE,
            HeaderValue::from_static("application/json"),
        );
        let version = if era == Era::Modern {
            Some(MODERN_VERSION.to_owned())
        } else {
            self.legacy_version.clone()
        };
        if let Some(v) = version.and_then(|v| HeaderValue::from_str(&v).ok()) {
            h.insert("mcp-protocol-version", v);
        }
        if era == Era::Modern {
            if let Ok(v) = HeaderValue::from_str(method) {
                h.insert("mcp-method", v);
            }
        } else if let Some(s) = self
            .session_id
            .as_deref()
            .and_then(|s| HeaderValue::from_str(s).ok())
        {
            h.insert("mcp-session-id", s);
        }
        h
    }

    pub(super) async fn post(
        &self,
        body: &Value,
        method: &str,
        era: Era,
        deadline: Instant,
    ) -> Result<reqwest::Response, CallError> {
        let remaining = deadline.saturating_duration_since(Instant::now());
        let mut headers = self.request_headers(method, era);
        // 2026-07-28: `Mcp-Name` names the tool, prompt or resource of the request (the
        // guard forwards these; the probe itself never sends them).
        let name_field = match method {
            "tools/call" | "prompts/get" => Some("name"),
            "resources/read" => Some("uri"),
            _ => None,
        };
        if let (Era::Modern, Some(field)) = (era, name_field) {
            if let Some(v) = body
                .get("params")
                .and_then(|p| p.get(field))
                .and_then(Value::as_str)
                .and_then(|n| HeaderValue::from_str(n).ok())
            {
                headers.insert("mcp-name", v);
            }
        }
        let send = self
            .client
            .post(self.url.clone())
            .headers(headers)
            .body(body.to_string())
            .timeout(remaining)
            .send();
        match tokio::time::timeout_at(deadline, send).await {
            Err(_) => Err(CallError::Silent),
            Ok(Err(e)) if e.is_timeout() => Err(CallError::Silent),
            Ok(Err(e)) => Err(CallError::Closed(format!(
                "HTTP request failed: {}",
                error_chain(&e)
            ))),
            Ok(Ok(r)) => Ok(r),
        }
    }

    /// End a legacy session (`DELETE` with its id), best effort within one second.
    pub async fn end_session(&self) {
        let Some(sid) = self
            .session_id
            .as_deref()
            .and_then(|s| HeaderValue::from_str(s).ok())
        else {
            return;
        };
        let mut h = self.headers.clone();
        h.insert("mcp-session-id", sid);
        if let Some(v) = self
            .legacy_version
            .as_deref()
            .and_then(|v| HeaderValue::from_str(v).ok())
        {
            h.insert("mcp-protocol-version", v);
        }
        let req = self
            .client
            .delete(self.url.clone())
            .headers(h)
            .timeout(std::time::Duration::from_secs(1))
            .send();
        let _ = tokio::time::timeout(std::time::Duration::from_secs(1), req).await;
    }

    /// Send a notification (expects 202 or any 2xx).
    pub async fn notify(
        &mut self,
        method: &str,
        era: Era,
        deadline: Instant,
    ) -> Result<(), CallError> {
        let resp = self
            .post(&jsonrpc::notification(method), method, era, deadline)
            .await?;
        let status = resp.status();
        // Drain (bounded) so the connection can be reused.
        let _ = self.read_body(resp, deadline).await;
        if status.is_success() {
            Ok(())
        } else {
            Err(CallError::Protocol(format!(
                "the server answered the {method} notification with HTTP {status}"
            )))
        }
    }

    pub(super) async fn read_body(
        &mut self,
        mut resp: reqwest::Response,
        deadline: Instant,
    ) -> Result<Vec<u8>, CallError> {
        let mut body = Vec::new();
        loop {
            let chunk = match tokio::time::timeout_at(deadline, resp.chunk()).await {
                Err(_) => return Err(CallError::Silent),
                // reqwest's own timeout (the time left) ends a body as a failed read.
                Ok(Err(e)) if e.is_timeout() || Instant::now() >= deadline => {
                    return Err(CallError::Silent);
                }
                Ok(Err(e)) => {
                    return Err(CallError::Closed(format!(
                        "reading the HTTP body failed: {}",
                        error_chain(&e)
                    )));
                }
                Ok(Ok(None)) => return Ok(body),
                Ok(Ok(Some(c))) => c,
            };
            self.count(chunk.len())?;
            if body.len() + chunk.len() > self.limits.max_message_bytes {
                return Err(CallError::Limit(format!(
                    "an HTTP body is longer than the per-message cap of {}",
                    human_bytes(self.limits.max_message_bytes)
                )));
            }
            body.extend_from_slice(&chunk);
        }
    }

    pub(super) fn count(&mut self, n: usize) -> Result<(), CallError> {
        self.total += n;
        if self.total > self.limits.max_total_bytes {
            return Err(CallError::Limit(format!(
                "the server sent more than the total cap of {}",
                human_bytes(self.limits.max_total_bytes)
            )));
        }
        Ok(())
    }

    /// Send a request and wait for its answer (JSON body or SSE stream) until `deadline`.
    ///
    /// A legacy session the server forgot (HTTP 404, or 400 naming the session) is
    /// re-initialized once with the same `initialize` parameters and the request retried.
    pub async fn call(
        &mut self,
        method: &str,
        params: Value,
        era: Era,
        deadline: Instant,
        session: &mut Session,
    ) -> Result<Value, CallError> {
        if method == "initialize" {
            self.init_params = Some(params.clone());
        }
        let first = self
            .call_once(method, params.clone(), era, deadline, session)
            .await;
        let expired = matches!(&first, Err(CallError::SessionExpired(_)));
        if !expired || self.reinitialized {
            return first.map_err(|e| match e {
                CallError::SessionExpired(m) => CallError::Protocol(m),
                other => other,
            });
        }
        self.reinitialized = true;
        let Some(init) = self.init_params.clone() else {
            return first;
        };
        session.note(format!(
            "the server forgot the legacy session during {method}; initialized a new one"
        ));
        self.session_id = None;
        self.call_once("initialize", init, Era::Legacy, deadline, session)
            .await
            .map_err(|e| CallError::Protocol(format!("re-initializing the session: {e}")))?;
        self.notify("notifications/initialized", Era::Legacy, deadline)
            .await?;
        self.call_once(method, params, era, deadline, session)
            .await
            .map_err(|e| match e {
                CallError::SessionExpired(m) => CallError::Protocol(m),
                other => other,
            })
    }

    async fn call_once(
        &mut self,
        method: &str,
        params: Value,
        era: Era,
        deadline: Instant,
        session: &mut Session,
    ) -> Result<Value, CallError> {
        self.next_id += 1;
        let id = self.next_id;
        let resp = self
            .post(&jsonrpc::request(id, method, params), method, era, deadline)
            .await?;
        let status = resp.status();
        self.last_status = Some(status.as_u16());
        if status.is_redirection() {
            return Err(redirect_refused(&resp));
        }
        if let Some(sid) = resp
            .headers()
            .get("mcp-session-id")
            .and_then(|v| v.to_str().ok())
        {
            if method == "initialize" {
                self.session_id = Some(sid.to_owned());
            }
        }
        let is_sse = resp
            .headers()
            .get(reqwest::header::CONTENT_TYPE)
            .and_then(|v| v.to_str().ok())
            .is_some_and(|ct| ct.to_ascii_lowercase().starts_with("text/event-stream"));
        if is_sse && status.is_success() {
            return self
                .read_sse(resp, id, method, era, deadline, session)
                .await;
        }
        let sent_session =
            era == Era::Legacy && self.session_id.is_some() && method != "initialize";
        if sent_session && status.as_u16() == 404 {
            return Err(CallError::SessionExpired(format!(
                "HTTP {status} for {method}: the server no longer knows the session"
            )));
        }
        if let Some(e) = credentials_wanted(status) {
            return Err(e);
        }
        let body = self.read_body(resp, deadline).await?;
        if body.iter().all(u8::is_ascii_whitespace) {
            return Err(CallError::Protocol(format!(
                "HTTP {status} with an empty body in answer to {method}"
            )));
        }
        match self.handle_payload(&body, id, deadline, session).await {
            Ok(Some(Err(CallError::Rpc(e))))
                if sent_session
                    && status.as_u16() == 400
                    && e.message.to_ascii_lowercase().contains("session") =>
            {
                Err(CallError::SessionExpired(format!(
                    "HTTP {status} for {method}: {e}"
                )))
            }
            Ok(Some(outcome)) => outcome,
            Ok(None) => Err(CallError::Protocol(format!(
                "HTTP {status}: the body holds no answer to request {id} ({method})"
            ))),
            Err(e) if !status.is_success() => Err(CallError::Protocol(format!(
                "HTTP {status} and the body is not a JSON-RPC message ({e})"
            ))),
            Err(e) => Err(e),
        }
    }

    async fn read_sse(
        &mut self,
        mut resp: reqwest::Response,
        id: u64,
        method: &str,
        era: Era,
        deadline: Instant,
        session: &mut Session,
    ) -> Result<Value, CallError> {
        let mut parser = SseParser::new(self.limits.max_message_bytes);
        loop {
            let waited = {
                let relay = self.relay.as_mut().map(|r| &mut r.answers);
                tokio::select! {
                    c = tokio::time::timeout_at(deadline, resp.chunk()) => StreamWait::Chunk(c),
                    Some(a) = async move {
                        match relay {
                            Some(rx) => rx.recv().await,
                            None => std::future::pending().await,
                        }
                    } => StreamWait::Answer(a),
                }
            };
            let waited = match waited {
                StreamWait::Chunk(c) => c,
                StreamWait::Answer(a) => {
                    self.post_answer(&a, era, deadline).await;
                    continue;
                }
            };
            let chunk = match waited {
                Err(_) => return Err(CallError::Silent),
                // reqwest's own timeout (the time left) ends a body as a failed read.
                Ok(Err(e)) if e.is_timeout() || Instant::now() >= deadline => {
                    return Err(CallError::Silent);
                }
                Ok(Err(e)) => {
                    return Err(CallError::Closed(format!(
                        "the SSE stream failed: {}",
                        error_chain(&e)
                    )));
                }
                Ok(Ok(c)) => c,
            };
            let events = match chunk {
                None => {
                    let last = parser.finish();
                    if last.is_none() {
                        return Err(CallError::Closed(format!(
                            "the SSE stream ended without an answer to {method}"
                        )));
                    }
                    last.into_iter().collect()
                }
                Some(c) => {
                    self.count(c.len())?;
                    parser
                        .feed(&c)
                        .map_err(|e| CallError::Limit(e.to_string()))?
                }
            };
            for ev in events {
                if let Some(outcome) = self
                    .handle_payload(ev.data.as_bytes(), id, deadline, session)
                    .await?
                {
                    return outcome;
                }
            }
        }
    }

    /// Handle one JSON-RPC payload; `Some` when it answered our request.
    async fn handle_payload(
        &mut self,
        bytes: &[u8],
        id: u64,
        deadline: Instant,
        session: &mut Session,
    ) -> Result<Option<Result<Value, CallError>>, CallError> {
        let triage = jsonrpc::triage_payload(bytes, id, session)?;
        if let Some(relay) = &self.relay {
            relay_messages(bytes, &relay.to_host).await;
            return Ok(triage.outcome);
        }
        for (answer, method) in &triage.to_answer {
            if let Ok(resp) = self.post(answer, method, Era::Legacy, deadline).await {
                let _ = self.read_body(resp, deadline).await;
            }
        }
        Ok(triage.outcome)
    }
}

/// Send the requests and notifications of one payload (a message or a batch) to the host,
/// each as its own line; a single message keeps its bytes.
async fn relay_messages(bytes: &[u8], to_host: &tokio::sync::mpsc::Sender<Vec<u8>>) {
    let Ok(value) = serde_json::from_slice::<Value>(bytes) else {
        return;
    };
    let is_message = |v: &Value| v.get("method").and_then(Value::as_str).is_some();
    match &value {
        Value::Array(items) => {
            for item in items.iter().filter(|v| is_message(v)) {
                let _ = to_host.send(item.to_string().into_bytes()).await;
            }
        }
        v if is_message(v) => {
            let _ = to_host.send(bytes.trim_ascii().to_vec()).await;
        }
        _ => {}
    }
}

/// A redirect that the policy did not follow (it leads to another scheme, host or port).
pub(super) fn redirect_refused(resp: &reqwest::Response) -> CallError {
    let to = resp
        .headers()
        .get(reqwest::header::LOCATION)
        .and_then(|v| v.to_str().ok())
        .unwrap_or("?");
    CallError::Protocol(format!(
        "HTTP {}: a redirect to {} was not followed (mcpvet never follows a redirect to another host)",
        resp.status(),
        crate::model::escape::line(&crate::model::redact::url_for_report(to))
    ))
}

/// 401 and 403 name the way to give credentials.
pub(super) fn credentials_wanted(status: reqwest::StatusCode) -> Option<CallError> {
    matches!(status.as_u16(), 401 | 403).then(|| {
        CallError::Protocol(format!(
            "HTTP {status}: the server wants credentials (give them with --header, or in the config's headers with --pass-env for ${{VAR}} references)"
        ))
    })
}

/// An error with its sources, for messages (reqwest hides the useful part in the chain).
pub(super) fn error_chain(e: &dyn std::error::Error) -> String {
    let mut s = e.to_string();
    let mut cur = e.source();
    while let Some(c) = cur {
        let t = c.to_string();
        if !s.contains(&t) {
            s.push_str(": ");
            s.push_str(&t);
        }
        cur = c.source();
    }
    s
}
