//! The Streamable HTTP transport (2026-07-28), asynchronous on axum/tokio, shared by every
//! kit server and ci-insights.
//!
//! One endpoint, `/mcp` (`/` is accepted too), POST only, one JSON-RPC message per POST, no
//! sessions. The response is JSON, except for a request carrying `params._meta.progressToken`
//! from a client that accepts `text/event-stream` whose handler reports progress: that one is
//! an SSE stream of `notifications/progress` events, then the response, then the end. Each POST passes these gates in order; the first
//! failure answers:
//!
//! 1. path `/mcp` or `/` (else 404, no JSON-RPC body);
//! 2. DNS-rebinding guard: a present `Origin` must be a loopback origin (`localhost`,
//!    `127.0.0.0/8`, `[::1]`, any scheme and port) or one of `HttpOptions::allowed_origins`,
//!    and when the server listens on loopback a present `Host` must name a loopback host
//!    (else 403);
//! 3. method POST (GET, DELETE and others get 405 with `Allow: POST`);
//! 4. `Content-Type: application/json` (else 415);
//! 5. body size at most `HttpOptions::max_body_bytes` (else 413);
//! 6. the body parses as JSON (else 400 with `-32700`, id `null`);
//! 7. the [`HttpService`] answers the message with the request's headers at hand: `None` (a
//!    notification) is 202 with no body. [`check_headers`] is the mirrored-header rule both
//!    services use: `MCP-Protocol-Version` must equal `_meta[protocolVersion]`, `Mcp-Method`
//!    must equal `method`, and for `tools/call` and `prompts/get` (`params.name`) and
//!    `resources/read` (`params.uri`) `Mcp-Name` must equal that value when it is a string
//!    (`=?base64?…?=` values are decoded first; surrounding whitespace is ignored; values are
//!    case-sensitive). A missing, malformed or different header is `-32020`. A kit server also
//!    checks `Mcp-Param-*` headers of `x-mcp-header` arguments ([`ToolServer`]).
//!
//! Status codes of JSON-RPC answers: a result is 200 (tool failures with `isError: true`
//! included), `-32601` is 404, `-32603` is 500, every other error is 400.
//!
//! The server binds loopback by default; [`HttpServer::bind`] refuses any other address unless
//! `HttpOptions::allow_remote` is set (and then it skips the `Host` check, not the `Origin`
//! check).

use std::future::Future;
use std::net::SocketAddr;
use std::sync::Arc;

use axum::Router;
use axum::body::{Body, Bytes};
use axum::extract::{Request as HttpRequest, State};
use axum::http::{HeaderMap, HeaderValue, Method, StatusCode, header};
use axum::response::{IntoResponse, Response};
use serde_json::Value;

use super::server::decode_sentinel;

use super::rpc::{INVALID_REQUEST, METHOD_NOT_FOUND, PARSE_ERROR, error_response};
use super::server::{BoxFuture, Notify, ToolServer, TransportCheck};

/// The endpoint path served (`/` is accepted as an alias).
pub const ENDPOINT_PATH: &str = "/mcp";

/// Knobs of the HTTP transport.
#[derive(Debug, Clone)]
pub struct HttpOptions {
    /// Allow binding a non-loopback address (off by default).
    pub allow_remote: bool,
    /// Largest accepted request body in bytes (413 above it).
    pub max_body_bytes: usize,
    /// Extra `Origin` values to accept besides loopback ones, compared exactly
    /// (e.g. `https://tools.example.com`).
    pub allowed_origins: Vec<String>,
}

impl Default for HttpOptions {
    fn default() -> Self {
        HttpOptions {
            allow_remote: false,
            max_body_bytes: 1024 * 1024,
            allowed_origins: Vec::new(),
        }
    }
}

/// Why the HTTP server could not start or stopped with an error.
#[derive(Debug, thiserror::Error)]
pub enum ServeError {
    /// The address is not loopback and `allow_remote` was not set.
    #[error(
        "refusing to listen on non-loopback address {0}: {1} has no authentication; bind 127.0.0.1 or pass --allow-remote if you really mean it"
    )]
    NonLoopback(SocketAddr, String),
    /// Binding failed.
    #[error("cannot listen on {addr}: {source}")]
    Bind {
        addr: SocketAddr,
        #[source]
        source: std::io::Error,
    },
    /// Serving failed.
    #[error("HTTP server failed: {0}")]
    Serve(#[source] std::io::Error),
    /// The server to serve could not be built (a registration the kit refused).
    #[error("cannot serve: {0}")]
    Unusable(String),
}

/// What answers the JSON-RPC messages that pass the transport's gates.
pub trait HttpService: Send + Sync + 'static {
    /// Answer one parsed message, with the request's headers at hand; `None` (a
    /// notification) is sent as 202 with no body.
    fn answer<'a>(
        &'a self,
        message: &'a Value,
        headers: &'a HeaderMap,
    ) -> BoxFuture<'a, Option<Value>>;

    /// [`HttpService::answer`] with a sink for notifications sent before the answer (the
    /// transport streams them as SSE events). The default sends none.
    fn answer_streaming<'a>(
        &'a self,
        message: &'a Value,
        headers: &'a HeaderMap,
        notify: Notify,
    ) -> BoxFuture<'a, Option<Value>> {
        drop(notify);
        self.answer(message, headers)
    }
}

/// A [`ToolServer`] over HTTP: [`check_headers`] at its step 3 and its `Mcp-Param-*` checks.
impl HttpService for ToolServer {
    fn answer<'a>(
        &'a self,
        message: &'a Value,
        headers: &'a HeaderMap,
    ) -> BoxFuture<'a, Option<Value>> {
        Box::pin(async move {
            let check = HeaderCheck(headers);
            self.handle_with(message, Some(&check)).await
        })
    }

    fn answer_streaming<'a>(
        &'a self,
        message: &'a Value,
        headers: &'a HeaderMap,
        notify: Notify,
    ) -> BoxFuture<'a, Option<Value>> {
        Box::pin(async move {
            let check = HeaderCheck(headers);
            self.handle_streaming(message, Some(&check), Some(notify))
                .await
        })
    }
}

/// A request's headers as a kit server's [`TransportCheck`].
pub struct HeaderCheck<'a>(pub &'a HeaderMap);

impl TransportCheck for HeaderCheck<'_> {
    fn check_request(
        &self,
        method: &str,
        params: &serde_json::Map<String, Value>,
        version: &str,
    ) -> Result<(), String> {
        check_headers(self.0, method, params, version)
    }

    fn header(&self, name: &str) -> Result<Option<String>, String> {
        let lower = name.to_ascii_lowercase();
        if self.0.get(lower.as_str()).is_none() {
            return Ok(None);
        }
        single_header(self.0, &lower, name).map(Some)
    }
}

struct AppState {
    service: Arc<dyn HttpService>,
    options: HttpOptions,
    check_host: bool,
}

/// A bound (not yet serving) HTTP server.
pub struct HttpServer {
    listener: tokio::net::TcpListener,
    local_addr: SocketAddr,
    state: Arc<AppState>,
}

impl HttpServer {
    /// Bind `addr` (port 0 picks a free port). Refuses non-loopback addresses unless
    /// `options.allow_remote` is set.
    /// `label` names the server in the refusal message.
    pub async fn bind(
        addr: SocketAddr,
        service: Arc<dyn HttpService>,
        options: HttpOptions,
        label: &str,
    ) -> Result<Self, ServeError> {
        let loopback = addr.ip().is_loopback();
        if !loopback && !options.allow_remote {
            return Err(ServeError::NonLoopback(addr, label.to_string()));
        }
        let listener = tokio::net::TcpListener::bind(addr)
            .await
            .map_err(|source| ServeError::Bind { addr, source })?;
        let local_addr = listener
            .local_addr()
            .map_err(|source| ServeError::Bind { addr, source })?;
        Ok(HttpServer {
            listener,
            local_addr,
            state: Arc::new(AppState {
                service,
                options,
                check_host: loopback,
            }),
        })
    }

    /// The bound address (with the real port when 0 was asked for).
    pub fn local_addr(&self) -> SocketAddr {
        self.local_addr
    }

    /// The endpoint URL, e.g. `http://127.0.0.1:41234/mcp`.
    pub fn endpoint_url(&self) -> String {
        format!("http://{}{ENDPOINT_PATH}", self.local_addr)
    }

    /// Serve until `shutdown` completes, then finish in-flight requests and return.
    pub async fn serve_until<F>(self, shutdown: F) -> Result<(), ServeError>
    where
        F: Future<Output = ()> + Send + 'static,
    {
        let app = Router::new().fallback(endpoint).with_state(self.state);
        super::accept::serve(self.listener, app, shutdown)
            .await
            .map_err(ServeError::Serve)
    }
}

/// Bind `addr`, report the endpoint URL through `on_bound`, then serve until Ctrl-C or
/// SIGTERM.
pub async fn serve_http(
    addr: SocketAddr,
    service: Arc<dyn HttpService>,
    options: HttpOptions,
    label: &str,
    on_bound: impl FnOnce(&str),
) -> Result<(), ServeError> {
    let http = HttpServer::bind(addr, service, options, label).await?;
    // The handlers are installed before the address is announced, so a SIGTERM sent as soon
    // as a client knows the address stops the server cleanly.
    let shutdown = shutdown_signal();
    on_bound(&http.endpoint_url());
    http.serve_until(shutdown).await
}

fn shutdown_signal() -> impl Future<Output = ()> + Send + 'static {
    #[cfg(unix)]
    let term = tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate());
    async move {
        shutdown_on(
            #[cfg(unix)]
            term,
        )
        .await;
    }
}

async fn shutdown_on(#[cfg(unix)] term: std::io::Result<tokio::signal::unix::Signal>) {
    let ctrl_c = async {
        let _ = tokio::signal::ctrl_c().await;
    };
    #[cfg(unix)]
    {
        let term = async {
            match term {
                Ok(mut s) => {
                    s.recv().await;
                }
                Err(_) => std::future::pending::<()>().await,
            }
        };
        tokio::select! {
            () = ctrl_c => {},
            () = term => {},
        }
    }
    #[cfg(not(unix))]
    ctrl_c.await;
}

async fn endpoint(State(state): State<Arc<AppState>>, request: HttpRequest) -> Response {
    let (parts, body) = request.into_parts();
    let path = parts.uri.path();
    if path != ENDPOINT_PATH && path != "/" {
        return (
            StatusCode::NOT_FOUND,
            "not found: the MCP endpoint is /mcp\n",
        )
            .into_response();
    }
    if let Err(why) = check_origin(&parts.headers, &state) {
        return transport_error(StatusCode::FORBIDDEN, &why);
    }
    if parts.method != Method::POST {
        let mut response = transport_error(
            StatusCode::METHOD_NOT_ALLOWED,
            "Method not allowed: this 2026-07-28 endpoint accepts POST only",
        );
        response
            .headers_mut()
            .insert(header::ALLOW, HeaderValue::from_static("POST"));
        return response;
    }
    if !is_json_content_type(&parts.headers) {
        return transport_error(
            StatusCode::UNSUPPORTED_MEDIA_TYPE,
            "Unsupported Media Type: send Content-Type: application/json",
        );
    }
    let limit = state.options.max_body_bytes;
    let declared = parts
        .headers
        .get(header::CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.parse::<u64>().ok());
    if declared.is_some_and(|n| n > limit as u64) {
        return too_large(limit);
    }
    let bytes: Bytes = match axum::body::to_bytes(body, limit).await {
        Ok(bytes) => bytes,
        Err(_) => return too_large(limit),
    };
    let message: Value = match serde_json::from_slice(&bytes) {
        Ok(v) => v,
        Err(_) => {
            return json_response(
                StatusCode::BAD_REQUEST,
                &error_response(&Value::Null, PARSE_ERROR, "Parse error"),
            );
        }
    };
    if wants_stream(&message, &parts.headers) {
        return streamed(Arc::clone(&state.service), message, parts.headers).await;
    }
    match state.service.answer(&message, &parts.headers).await {
        None => StatusCode::ACCEPTED.into_response(),
        Some(answer) => json_response(status_for(&answer), &answer),
    }
}

/// A request that may be answered as an SSE stream: it carries `params._meta.progressToken`
/// and its `Accept` header names `text/event-stream`.
fn wants_stream(message: &Value, headers: &HeaderMap) -> bool {
    let has_token = message
        .get("params")
        .and_then(|p| p.get("_meta"))
        .and_then(|m| m.get("progressToken"))
        .is_some();
    has_token
        && headers.get_all(header::ACCEPT).iter().any(|v| {
            v.to_str().unwrap_or("").split(',').any(|media| {
                media
                    .split(';')
                    .next()
                    .is_some_and(|m| m.trim().eq_ignore_ascii_case("text/event-stream"))
            })
        })
}

/// What the handling task sends to the response.
enum Streamed {
    Note(Value),
    Done(Option<Value>),
}

/// Answer on a task; until the first notification nothing is committed, so an answer without
/// notifications is the plain JSON response (its status mapped as usual). From the first
/// notification on, the response is `text/event-stream`: one `message` event per
/// notification, then the answer, then the end of the stream.
async fn streamed(service: Arc<dyn HttpService>, message: Value, headers: HeaderMap) -> Response {
    let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel::<Streamed>();
    let notes = tx.clone();
    let notify: Notify = Arc::new(move |note| {
        let _ = notes.send(Streamed::Note(note));
    });
    tokio::spawn(async move {
        let answer = service.answer_streaming(&message, &headers, notify).await;
        let _ = tx.send(Streamed::Done(answer));
    });
    match rx.recv().await {
        None | Some(Streamed::Done(None)) => StatusCode::ACCEPTED.into_response(),
        Some(Streamed::Done(Some(answer))) => json_response(status_for(&answer), &answer),
        Some(Streamed::Note(first)) => {
            let stream = SseStream {
                first: Some(sse_event(&first)),
                rx,
                done: false,
            };
            (
                StatusCode::OK,
                [
                    (
                        header::CONTENT_TYPE,
                        HeaderValue::from_static("text/event-stream"),
                    ),
                    (header::CACHE_CONTROL, HeaderValue::from_static("no-cache")),
                ],
                Body::from_stream(stream),
            )
                .into_response()
        }
    }
}

fn sse_event(message: &Value) -> Bytes {
    let json = serde_json::to_string(message).unwrap_or_default();
    Bytes::from(format!("event: message\ndata: {json}\n\n"))
}

/// The SSE body: the first event, then each notification, then the answer.
struct SseStream {
    first: Option<Bytes>,
    rx: tokio::sync::mpsc::UnboundedReceiver<Streamed>,
    done: bool,
}

impl futures_core::Stream for SseStream {
    type Item = Result<Bytes, std::convert::Infallible>;

    fn poll_next(
        mut self: std::pin::Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
    ) -> std::task::Poll<Option<Self::Item>> {
        use std::task::Poll;
        if let Some(first) = self.first.take() {
            return Poll::Ready(Some(Ok(first)));
        }
        if self.done {
            return Poll::Ready(None);
        }
        match self.rx.poll_recv(cx) {
            Poll::Pending => Poll::Pending,
            Poll::Ready(None) | Poll::Ready(Some(Streamed::Done(None))) => {
                self.done = true;
                Poll::Ready(None)
            }
            Poll::Ready(Some(Streamed::Note(note))) => Poll::Ready(Some(Ok(sse_event(&note)))),
            Poll::Ready(Some(Streamed::Done(Some(answer)))) => {
                self.done = true;
                Poll::Ready(Some(Ok(sse_event(&answer))))
            }
        }
    }
}

/// The HTTP status of a JSON-RPC answer.
pub fn status_for(answer: &Value) -> StatusCode {
    match answer
        .get("error")
        .and_then(|e| e.get("code"))
        .and_then(Value::as_i64)
    {
        None => StatusCode::OK,
        Some(METHOD_NOT_FOUND) => StatusCode::NOT_FOUND,
        Some(-32603) => StatusCode::INTERNAL_SERVER_ERROR,
        Some(_) => StatusCode::BAD_REQUEST,
    }
}

fn json_response(status: StatusCode, body: &Value) -> Response {
    let bytes = serde_json::to_vec(body).unwrap_or_default();
    (
        status,
        [(
            header::CONTENT_TYPE,
            HeaderValue::from_static("application/json"),
        )],
        Body::from(bytes),
    )
        .into_response()
}

fn transport_error(status: StatusCode, message: &str) -> Response {
    json_response(
        status,
        &error_response(&Value::Null, INVALID_REQUEST, message),
    )
}

fn too_large(limit: usize) -> Response {
    transport_error(
        StatusCode::PAYLOAD_TOO_LARGE,
        &format!("Payload too large: the limit is {limit} bytes"),
    )
}

fn is_json_content_type(headers: &HeaderMap) -> bool {
    headers
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.split(';').next())
        .is_some_and(|media| media.trim().eq_ignore_ascii_case("application/json"))
}

fn check_origin(headers: &HeaderMap, state: &AppState) -> Result<(), String> {
    for origin in headers.get_all(header::ORIGIN) {
        let origin = origin.to_str().unwrap_or("").trim();
        let allowed = origin_host(origin).is_some_and(crate::model::net::is_loopback_host)
            || state.options.allowed_origins.iter().any(|o| o == origin);
        if !allowed {
            return Err(format!(
                "Forbidden: Origin {origin:?} is not allowed (DNS rebinding protection)"
            ));
        }
    }
    if state.check_host {
        for host in headers.get_all(header::HOST) {
            let host = host.to_str().unwrap_or("").trim();
            if !crate::model::net::is_loopback_host(strip_port(host)) {
                return Err(format!(
                    "Forbidden: Host {host:?} is not a loopback host (DNS rebinding protection)"
                ));
            }
        }
    }
    Ok(())
}

/// The host part of `scheme://host[:port]`, or `None` when the origin is not of that form
/// (such as the opaque origin `null`).
fn origin_host(origin: &str) -> Option<&str> {
    let (scheme, rest) = origin.split_once("://")?;
    if scheme.is_empty() || rest.contains(['/', '@', '?', '#']) {
        return None;
    }
    Some(strip_port(rest))
}

fn strip_port(authority: &str) -> &str {
    if let Some(rest) = authority.strip_prefix('[') {
        return match rest.find(']') {
            Some(end) => &authority[..end + 2],
            None => authority,
        };
    }
    match authority.rsplit_once(':') {
        Some((host, port)) if port.bytes().all(|b| b.is_ascii_digit()) => host,
        _ => authority,
    }
}

/// The mirrored-header rule (see the module docs); `Err` is the `-32020` message.
pub fn check_headers(
    headers: &HeaderMap,
    method: &str,
    params: &serde_json::Map<String, Value>,
    protocol_version: &str,
) -> Result<(), String> {
    let version = single_header(headers, "mcp-protocol-version", "MCP-Protocol-Version")?;
    if version != protocol_version {
        return Err(mismatch("MCP-Protocol-Version", &version, protocol_version));
    }
    let header_method = single_header(headers, "mcp-method", "Mcp-Method")?;
    if header_method != method {
        return Err(mismatch("Mcp-Method", &header_method, method));
    }
    let name_field = match method {
        "tools/call" | "prompts/get" => "name",
        "resources/read" => "uri",
        _ => return Ok(()),
    };
    let Some(body_name) = params.get(name_field).and_then(Value::as_str) else {
        return Ok(());
    };
    let raw = single_header(headers, "mcp-name", "Mcp-Name")?;
    let name = decode_sentinel(&raw).ok_or_else(|| {
        "Header mismatch: Mcp-Name header has an invalid Base64 value".to_string()
    })?;
    if name != body_name {
        return Err(mismatch("Mcp-Name", &name, body_name));
    }
    Ok(())
}

fn mismatch(header: &str, header_value: &str, body_value: &str) -> String {
    format!(
        "Header mismatch: {header} header value '{header_value}' does not match body value '{body_value}'"
    )
}

/// The one value of a required header, trimmed of surrounding whitespace.
fn single_header(headers: &HeaderMap, lower: &str, display: &str) -> Result<String, String> {
    let mut values = headers.get_all(lower).iter();
    let Some(value) = values.next() else {
        return Err(format!(
            "Header mismatch: missing required header {display}"
        ));
    };
    if values.next().is_some() {
        return Err(format!(
            "Header mismatch: header {display} appears more than once"
        ));
    }
    let text = value
        .to_str()
        .map_err(|_| format!("Header mismatch: header {display} contains invalid characters"))?;
    if text.chars().any(|c| c.is_control() && c != '\t') {
        return Err(format!(
            "Header mismatch: header {display} contains invalid characters"
        ));
    }
    Ok(text.trim_matches([' ', '\t']).to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn origin_hosts() {
        assert_eq!(origin_host("http://localhost:3000"), Some("localhost"));
        assert_eq!(origin_host("https://[::1]:8"), Some("[::1]"));
        assert_eq!(origin_host("http://127.0.0.1"), Some("127.0.0.1"));
        assert_eq!(origin_host("null"), None);
        assert_eq!(origin_host("http://localhost@evil.com"), None);
        assert!(!crate::model::net::is_loopback_host(
            origin_host("http://localhost.evil.com").unwrap()
        ));
        assert!(!crate::model::net::is_loopback_host(strip_port(
            "evil.example.com:80"
        )));
        assert!(crate::model::net::is_loopback_host(strip_port(
            "LOCALHOST:80"
        )));
        assert!(crate::model::net::is_loopback_host(strip_port(
            "127.0.0.2:80"
        )));
        assert!(crate::model::net::is_loopback_host(strip_port("[::1]:80")));
        assert!(!crate::model::net::is_loopback_host(strip_port("::1")));
        assert!(!crate::model::net::is_loopback_host(strip_port(
            "10.0.0.1:80"
        )));
        assert!(!crate::model::net::is_loopback_host(strip_port(
            "127.0.0.1.nip.io"
        )));
    }

    #[test]
    fn sentinel_decoding() {
        assert_eq!(
            decode_sentinel("get_build_status").as_deref(),
            Some("get_build_status")
        );
        assert_eq!(
            decode_sentinel("=?base64?SGVsbG8=?=").as_deref(),
            Some("Hello")
        );
        assert_eq!(decode_sentinel("=?base64?SGVsbG8?="), None);
        assert_eq!(decode_sentinel("=?base64?SGVs!!!bG8=?="), None);
        assert_eq!(
            decode_sentinel("=?base64?SGVsbG8=").as_deref(),
            Some("=?base64?SGVsbG8=")
        );
    }

    #[test]
    fn statuses() {
        assert_eq!(
            status_for(&serde_json::json!({"result": {}})),
            StatusCode::OK
        );
        assert_eq!(
            status_for(&error_response(&Value::Null, METHOD_NOT_FOUND, "x")),
            StatusCode::NOT_FOUND
        );
        assert_eq!(
            status_for(&error_response(&Value::Null, -32602, "x")),
            StatusCode::BAD_REQUEST
        );
    }
}
