//! The legacy HTTP+SSE transport of protocol revision 2024-11-05: a `GET` opens an event
//! stream whose first event, `endpoint`, names the URL to `POST` messages to; each answer
//! comes back as a `message` event on that stream.
//!
//! Used when the config declares it (`"type": "sse"`, Gemini CLI's `url`) and as the
//! fallback of the Streamable HTTP transport when a `POST` of `initialize` gets 404 or 405
//! and a `GET` of the same URL opens an event stream (the specification's
//! backwards-compatibility procedure). Only the legacy `initialize` handshake is carried.
//!
//! Same limits as [`super::http`], through the same client and helpers: the config's headers
//! on every request, no redirect to another origin, no proxy for loopback, the per-message
//! cap on each event and on each POST answer, one total byte cap over the stream and the
//! answers, and the probe's deadline on every await. The `endpoint` must be on the origin
//! (scheme, host and port) of the configured URL: a server cannot point our POSTs elsewhere.
//! Server notifications are skipped; server requests are answered as on the other transports
//! (`ping` with an empty result, `roots/list` with no roots, anything else with -32601).
//! Dropping the connection closes the stream.

use std::collections::{BTreeMap, VecDeque};

use reqwest::header::HeaderValue;
use serde_json::Value;
use tokio::time::Instant;

use super::http::{self, HttpConn, HttpSetupError};
use super::jsonrpc;
use super::limits::{Limits, human_bytes};
use super::sse::{SseEvent, SseParser};
use super::{CallError, Session};
use crate::model::escape::{clip, line};
use crate::model::snapshot::Era;

/// What [`crate::model::snapshot::ProbeInfo`]'s `transport` says for this transport.
pub const TRANSPORT: &str = "sse";

/// A connection to an HTTP+SSE server.
pub struct LegacySseConn {
    /// Posts go through this connection (client, headers, caps, byte count); once the
    /// `endpoint` event arrived, its URL is the message endpoint.
    http: HttpConn,
    /// The configured URL, where the stream is opened.
    stream_url: reqwest::Url,
    stream: Option<EventStream>,
    next_id: u64,
}

/// The open `GET` stream.
struct EventStream {
    resp: reqwest::Response,
    parser: SseParser,
    pending: VecDeque<SseEvent>,
}

/// Why the event stream could not be opened.
#[derive(Debug, Clone, PartialEq)]
pub enum OpenError {
    /// The `GET` was answered, but not with an event stream: not an HTTP+SSE server.
    NotSse(String),
    /// An event stream, but no usable `endpoint` (or the connection failed).
    Failed(CallError),
}

impl From<CallError> for OpenError {
    fn from(e: CallError) -> Self {
        OpenError::Failed(e)
    }
}

impl LegacySseConn {
    /// A connection to `url` (nothing is sent until the first request).
    pub fn new(
        url: &str,
        headers: &BTreeMap<String, String>,
        limits: &Limits,
    ) -> Result<Self, HttpSetupError> {
        Ok(Self::over(HttpConn::new(url, headers, limits)?))
    }

    /// The HTTP+SSE transport on the client, URL, headers and caps of a Streamable HTTP
    /// connection.
    pub fn over(http: HttpConn) -> Self {
        Self {
            stream_url: http.url.clone(),
            http,
            stream: None,
            next_id: 0,
        }
    }

    /// The fallback from Streamable HTTP: open the stream on the same URL.
    pub async fn fallback(
        from: &HttpConn,
        deadline: Instant,
        session: &mut Session,
    ) -> Result<Self, OpenError> {
        let mut conn = Self::over(from.fork());
        conn.open(deadline, session).await?;
        Ok(conn)
    }

    /// The configured URL, fit for a message (no user info or secret query values).
    fn shown_url(&self) -> String {
        line(&crate::model::redact::url_for_report(
            self.stream_url.as_str(),
        ))
    }

    /// `GET` the stream (once) and wait for its `endpoint` event.
    pub async fn open(
        &mut self,
        deadline: Instant,
        session: &mut Session,
    ) -> Result<(), OpenError> {
        if self.stream.is_some() {
            return Ok(());
        }
        let mut headers = self.http.headers.clone();
        headers.insert(
            reqwest::header::ACCEPT,
            HeaderValue::from_static("text/event-stream"),
        );
        let send = self
            .http
            .client
            .get(self.stream_url.clone())
            .headers(headers)
            .send();
        let resp = match tokio::time::timeout_at(deadline, send).await {
            Err(_) => return Err(CallError::Silent.into()),
            Ok(Err(e)) if e.is_timeout() => return Err(CallError::Silent.into()),
            Ok(Err(e)) => {
                return Err(CallError::Closed(format!(
                    "the GET of the HTTP+SSE stream failed: {}",
                    http::error_chain(&e)
                ))
                .into());
            }
            Ok(Ok(r)) => r,
        };
        let status = resp.status();
        if status.is_redirection() {
            return Err(http::redirect_refused(&resp).into());
        }
        if let Some(e) = http::credentials_wanted(status) {
            return Err(e.into());
        }
        let content_type = resp
            .headers()
            .get(reqwest::header::CONTENT_TYPE)
            .and_then(|v| v.to_str().ok())
            .unwrap_or("")
            .to_ascii_lowercase();
        if !status.is_success() || !content_type.starts_with("text/event-stream") {
            let what = if status.is_success() {
                format!("{status} with {}", line(&clip(&content_type, 80)))
            } else {
                status.to_string()
            };
            return Err(OpenError::NotSse(format!(
                "a GET of {} answered HTTP {what}, not an event stream",
                self.shown_url()
            )));
        }
        // Relative endpoints resolve against the stream's URL (after same-origin redirects).
        let base = resp.url().clone();
        self.stream = Some(EventStream {
            resp,
            parser: SseParser::new(self.http.limits.max_message_bytes),
            pending: VecDeque::new(),
        });
        let first = match self.next_event(deadline).await {
            Ok(ev) => ev,
            Err(CallError::Silent) => {
                return Err(CallError::Protocol(format!(
                    "the HTTP+SSE stream of {} sent no `endpoint` event before the --timeout limit",
                    self.shown_url()
                ))
                .into());
            }
            Err(e) => return Err(e.into()),
        };
        if first.event != "endpoint" {
            return Err(CallError::Protocol(format!(
                "the first event of the HTTP+SSE stream is `{}`, not `endpoint` (the message endpoint)",
                line(&clip(&first.event, 80))
            ))
            .into());
        }
        let endpoint = endpoint_url(&base, &self.stream_url, first.data.trim())?;
        self.http.url = endpoint;
        session.note_once(
            "HTTP+SSE transport (2024-11-05): messages are posted to the stream's `endpoint`",
        );
        Ok(())
    }

    /// The next event of the stream, within the deadline and the caps.
    async fn next_event(&mut self, deadline: Instant) -> Result<SseEvent, CallError> {
        loop {
            let Some(stream) = self.stream.as_mut() else {
                return Err(CallError::Closed("the HTTP+SSE stream is not open".into()));
            };
            if let Some(ev) = stream.pending.pop_front() {
                return Ok(ev);
            }
            let chunk = match tokio::time::timeout_at(deadline, stream.resp.chunk()).await {
                Err(_) => return Err(CallError::Silent),
                Ok(Err(e)) if e.is_timeout() || Instant::now() >= deadline => {
                    return Err(CallError::Silent);
                }
                Ok(Err(e)) => {
                    return Err(CallError::Closed(format!(
                        "the HTTP+SSE stream failed: {}",
                        http::error_chain(&e)
                    )));
                }
                Ok(Ok(c)) => c,
            };
            match chunk {
                None => {
                    let last = stream.parser.finish();
                    self.stream = None;
                    return last.ok_or_else(|| {
                        CallError::Closed("the server closed the HTTP+SSE stream".into())
                    });
                }
                Some(c) => {
                    self.http.count(c.len())?;
                    let events = stream.parser.feed(&c).map_err(|_| {
                        CallError::Limit(format!(
                            "an HTTP+SSE event is longer than the per-message cap of {}",
                            human_bytes(self.http.limits.max_message_bytes)
                        ))
                    })?;
                    stream.pending.extend(events);
                }
            }
        }
    }

    /// `POST` one message to the endpoint; any 2xx is accepted (202 is the rule).
    async fn post(&mut self, body: &Value, what: &str, deadline: Instant) -> Result<(), CallError> {
        let resp = self.http.post(body, what, Era::Legacy, deadline).await?;
        let status = resp.status();
        if status.is_redirection() {
            return Err(http::redirect_refused(&resp));
        }
        if let Some(e) = http::credentials_wanted(status) {
            return Err(e);
        }
        // The answer comes on the stream; the body ("Accepted") is read, bounded, and dropped.
        self.http.read_body(resp, deadline).await?;
        if status.is_success() {
            Ok(())
        } else {
            Err(CallError::Protocol(format!(
                "the HTTP+SSE message endpoint answered {what} with HTTP {status}"
            )))
        }
    }

    /// Send a request and wait for its answer on the stream.
    pub async fn call(
        &mut self,
        method: &str,
        params: Value,
        era: Era,
        deadline: Instant,
        session: &mut Session,
    ) -> Result<Value, CallError> {
        if era == Era::Modern {
            return Err(CallError::Protocol(format!(
                "not sent: the HTTP+SSE transport (2024-11-05) carries only the legacy initialize handshake, not {method}"
            )));
        }
        self.open(deadline, session).await.map_err(|e| match e {
            OpenError::NotSse(m) => CallError::Protocol(format!(
                "{m}: the config selects the HTTP+SSE transport, which this server does not speak (if it speaks Streamable HTTP, configure it as such)"
            )),
            OpenError::Failed(e) => e,
        })?;
        self.next_id += 1;
        let id = self.next_id;
        self.post(&jsonrpc::request(id, method, params), method, deadline)
            .await?;
        let cap = self.http.limits.max_messages_per_request;
        for _ in 0..cap {
            let ev = self.next_event(deadline).await.map_err(|e| match e {
                CallError::Closed(m) => CallError::Closed(format!("{m} before answering {method}")),
                other => other,
            })?;
            if ev.event != "message" {
                session.note_once(&format!(
                    "ignored an HTTP+SSE event of type `{}`",
                    line(&clip(&ev.event, 80))
                ));
                continue;
            }
            if let Some(outcome) = self
                .handle(ev.data.as_bytes(), id, deadline, session)
                .await?
            {
                return outcome;
            }
        }
        Err(CallError::Limit(format!(
            "more than {cap} messages without an answer to {method} (the per-request message cap)"
        )))
    }

    /// Handle one `message` event; `Some` when it answered request `id`.
    async fn handle(
        &mut self,
        bytes: &[u8],
        id: u64,
        deadline: Instant,
        session: &mut Session,
    ) -> Result<Option<Result<Value, CallError>>, CallError> {
        let triage = jsonrpc::triage_payload(bytes, id, session)?;
        for (answer, method) in &triage.to_answer {
            // An answer the server refuses is its problem, not the probe's.
            let _ = self.post(answer, method, deadline).await;
        }
        Ok(triage.outcome)
    }

    /// Send a notification.
    pub async fn notify(&mut self, method: &str, deadline: Instant) -> Result<(), CallError> {
        if self.stream.is_none() {
            return Err(CallError::Closed(format!(
                "{method} was not sent: the HTTP+SSE stream is not open"
            )));
        }
        self.post(&jsonrpc::notification(method), method, deadline)
            .await
    }

    /// Close the stream (dropping the response closes its connection).
    pub fn close(mut self) {
        self.stream = None;
    }
}

/// The message endpoint named by an `endpoint` event, resolved against the stream's URL
/// `base`; refused unless it has the scheme, host and port of the configured URL.
fn endpoint_url(
    base: &reqwest::Url,
    configured: &reqwest::Url,
    data: &str,
) -> Result<reqwest::Url, CallError> {
    let url = base.join(data).map_err(|e| {
        CallError::Protocol(format!(
            "the `endpoint` event holds no valid URL ({e}): {}",
            line(&clip(data, 120))
        ))
    })?;
    let same = url.scheme() == configured.scheme()
        && url.host_str() == configured.host_str()
        && url.port_or_known_default() == configured.port_or_known_default();
    if !same {
        return Err(CallError::Protocol(format!(
            "refused the HTTP+SSE message endpoint on {}: mcpvet posts only to the origin it was given ({})",
            line(&clip(&url.origin().ascii_serialization(), 200)),
            configured.origin().ascii_serialization()
        )));
    }
    Ok(url)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn url(s: &str) -> reqwest::Url {
        reqwest::Url::parse(s).unwrap()
    }

    #[test]
    fn relative_and_absolute_endpoints_on_the_same_origin_are_accepted() {
        let base = url("http://127.0.0.1:8000/sse");
        let got = endpoint_url(&base, &base, "/messages/?session_id=abc").unwrap();
        assert_eq!(
            got.as_str(),
            "http://127.0.0.1:8000/messages/?session_id=abc"
        );
        let got = endpoint_url(&base, &base, "messages?s=1").unwrap();
        assert_eq!(got.as_str(), "http://127.0.0.1:8000/messages?s=1");
        let got = endpoint_url(&base, &base, "http://127.0.0.1:8000/m").unwrap();
        assert_eq!(got.path(), "/m");
        let https = url("https://mcp.example.test/sse");
        assert!(endpoint_url(&https, &https, "https://mcp.example.test:443/m").is_ok());
    }

    #[test]
    fn endpoints_on_another_scheme_host_or_port_are_refused() {
        let base = url("http://127.0.0.1:8000/sse");
        for other in [
            "http://localhost:8000/messages",
            "http://127.0.0.1:8001/messages",
            "https://127.0.0.1:8000/messages",
            "//attacker.example.test/messages",
            "http://127.0.0.1:8000@attacker.example.test/m",
        ] {
            let e = endpoint_url(&base, &base, other).unwrap_err().to_string();
            assert!(
                e.contains("refused the HTTP+SSE message endpoint"),
                "{other}: {e}"
            );
            assert!(e.contains("(http://127.0.0.1:8000)"), "{other}: {e}");
        }
        let e = endpoint_url(&base, &base, "http://[::1")
            .unwrap_err()
            .to_string();
        assert!(e.contains("no valid URL"), "{e}");
    }

    #[test]
    fn a_refused_endpoint_is_shown_escaped() {
        let base = url("http://127.0.0.1:8000/sse");
        let e = endpoint_url(&base, &base, "http://evil\u{1b}[31m.test/m")
            .unwrap_err()
            .to_string();
        assert!(e.contains("evil\\e[31m"), "{e}");
        assert!(!e.contains('\u{1b}'), "{e}");
    }
}
