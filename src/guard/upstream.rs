//! The guard's side toward the server: the probe's own connections ([`crate::mcp::Conn`])
//! seen as a stream of message lines. A stdio server's lines are read and written as they
//! are (byte for byte); a Streamable HTTP server is driven by one task that posts each
//! request through [`crate::mcp::http::HttpConn`] and turns its answer back into a line; the
//! server's requests and notifications inside the stream of an answer come out as lines too,
//! and the host's answers to them are posted back (the stream stays open meanwhile).

use serde_json::{Value, json};
use tokio::sync::mpsc;
use tokio::task::JoinHandle;
use tokio::time::Instant;

use crate::mcp::http::Relay;
use crate::mcp::stdio::StdioConn;
use crate::mcp::{CallError, Conn, Session};
use crate::model::snapshot::Era;

/// How long an HTTP request may take (the guard's `--timeout`).
pub struct HttpUpstream {
    tx: mpsc::Sender<Value>,
    /// The host's answers to the server's requests (relayed from the streams of answers).
    answers: mpsc::Sender<Value>,
    rx: mpsc::Receiver<Vec<u8>>,
    task: JoinHandle<()>,
}

/// One server connection.
pub enum Upstream {
    Stdio(Box<StdioConn>),
    Http(HttpUpstream),
}

/// The far deadline used while waiting for the next server line (per-request deadlines are
/// the guard's own).
fn far() -> Instant {
    Instant::now() + std::time::Duration::from_secs(365 * 24 * 3600)
}

impl Upstream {
    /// Wrap an opened connection. HTTP needs the server's era (its requests carry headers
    /// that depend on it) and the per-request timeout.
    pub fn new(conn: Conn, era: Era, timeout: std::time::Duration) -> Result<Upstream, String> {
        match conn {
            Conn::Stdio(c) => Ok(Upstream::Stdio(c)),
            Conn::Http(mut c) => {
                let (tx, mut req_rx) = mpsc::channel::<Value>(64);
                let (line_tx, rx) = mpsc::channel::<Vec<u8>>(64);
                let (answers, answer_rx) = mpsc::channel::<Value>(64);
                c.set_relay(Relay {
                    to_host: line_tx.clone(),
                    answers: answer_rx,
                });
                let task = tokio::spawn(async move {
                    let mut session = Session::new();
                    loop {
                        // Between requests, a late host answer still goes to the server.
                        let msg = tokio::select! {
                            m = req_rx.recv() => match m {
                                Some(m) => m,
                                None => break,
                            },
                            Some(a) = c.next_relay_answer() => {
                                c.post_answer(&a, era, Instant::now() + timeout).await;
                                continue;
                            }
                        };
                        let deadline = Instant::now() + timeout;
                        let method = msg.get("method").and_then(Value::as_str).unwrap_or("");
                        let Some(id) = msg.get("id").cloned() else {
                            if !method.is_empty() {
                                let _ = c.notify(method, era, deadline).await;
                            }
                            continue;
                        };
                        if method.is_empty() {
                            // Answers to server requests travel on `answers`.
                            continue;
                        }
                        let params = msg.get("params").cloned().unwrap_or_else(|| json!({}));
                        let answer = match c.call(method, params, era, deadline, &mut session).await
                        {
                            Ok(result) => json!({"jsonrpc": "2.0", "id": id, "result": result}),
                            Err(CallError::Rpc(e)) => {
                                let mut err = json!({"code": e.code, "message": e.message});
                                if let Some(d) = e.data {
                                    err["data"] = d;
                                }
                                json!({"jsonrpc": "2.0", "id": id, "error": err})
                            }
                            Err(e) => crate::kit::rpc::error_response(
                                &id,
                                -32603,
                                &format!("mcpvet guard: the HTTP server failed: {e}"),
                            ),
                        };
                        if line_tx.send(answer.to_string().into_bytes()).await.is_err() {
                            break;
                        }
                    }
                    c.end_session().await;
                });
                Ok(Upstream::Http(HttpUpstream {
                    tx,
                    answers,
                    rx,
                    task,
                }))
            }
            Conn::LegacySse(_) => {
                Err("the guard does not speak the HTTP+SSE transport of 2024-11-05".into())
            }
        }
    }

    /// Send one message (a line without its newline) before `deadline`.
    pub async fn send(&mut self, line: &[u8], deadline: Instant) -> Result<(), CallError> {
        match self {
            Upstream::Stdio(c) => c.write_line(line, deadline).await,
            Upstream::Http(h) => {
                let msg: Value = serde_json::from_slice(line)
                    .map_err(|e| CallError::Protocol(format!("not JSON: {e}")))?;
                let to = if msg.get("method").is_none() && msg.get("id").is_some() {
                    &h.answers
                } else {
                    &h.tx
                };
                to.send(msg)
                    .await
                    .map_err(|_| CallError::Closed("the HTTP connection ended".into()))
            }
        }
    }

    /// The next message line from the server (cancel-safe).
    pub async fn next(&mut self) -> Result<Vec<u8>, CallError> {
        match self {
            Upstream::Stdio(c) => c.next_line(far()).await,
            Upstream::Http(h) => {
                h.rx.recv()
                    .await
                    .ok_or_else(|| CallError::Closed("the HTTP connection ended".into()))
            }
        }
    }

    /// Close: kill a stdio server's process group, end an HTTP session.
    pub async fn close(self) {
        match self {
            Upstream::Stdio(c) => c.close().await,
            Upstream::Http(h) => {
                drop(h.tx);
                let _ = tokio::time::timeout(std::time::Duration::from_secs(2), h.task).await;
            }
        }
    }
}
