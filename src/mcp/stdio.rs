//! The stdio transport: newline-delimited JSON-RPC on a launched process's stdin/stdout,
//! read with a per-message byte cap (a line is never buffered past the cap) and a total
//! byte cap, stderr kept in a bounded ring buffer, and the process group killed on drop.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::Value;
use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader};
use tokio::process::{Child, ChildStdin};
use tokio::sync::mpsc;
use tokio::task::JoinHandle;
use tokio::time::Instant;

use super::jsonrpc::{self, ErrorObject, Incoming, MessageError};
use super::limits::{Limits, RingBuffer, human_bytes};
use super::process::{LaunchPlan, ProcessGuard};
use super::{CallError, Session};

/// What a line reader ([`read_lines`]) reports.
#[derive(Debug)]
pub enum ReadEvent {
    Line(Vec<u8>),
    TooLong,
    TotalExceeded,
    Eof,
    Failed(String),
}

/// A running stdio server.
pub struct StdioConn {
    child: Child,
    guard: ProcessGuard,
    stdin: Option<ChildStdin>,
    rx: mpsc::Receiver<ReadEvent>,
    tasks: Vec<JoinHandle<()>>,
    limits: Limits,
    next_id: u64,
    garbage: usize,
    closed: bool,
    exited: Option<String>,
}

impl StdioConn {
    /// Start the process described by `plan` in its own process group.
    pub fn spawn(
        plan: &LaunchPlan,
        limits: &Limits,
        stderr_buf: Arc<Mutex<RingBuffer>>,
    ) -> Result<Self, std::io::Error> {
        let mut cmd = tokio::process::Command::new(&plan.program);
        cmd.args(&plan.args)
            .env_clear()
            .envs(&plan.env)
            .current_dir(&plan.cwd)
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .process_group(0)
            .kill_on_drop(true);
        let mut child = cmd.spawn()?;
        let guard = ProcessGuard::new(child.id().unwrap_or(0));
        let stdin = child.stdin.take();
        let stdout = child.stdout.take();
        let stderr = child.stderr.take();
        let (tx, rx) = mpsc::channel(16);
        let mut tasks = Vec::new();
        if let Some(out) = stdout {
            let max_line = limits.max_message_bytes;
            let max_total = limits.max_total_bytes;
            tasks.push(tokio::spawn(read_lines(out, tx, max_line, max_total)));
        }
        if let Some(mut err) = stderr {
            tasks.push(tokio::spawn(async move {
                let mut chunk = vec![0u8; 8192];
                loop {
                    match err.read(&mut chunk).await {
                        Ok(0) | Err(_) => break,
                        Ok(n) => {
                            if let Ok(mut b) = stderr_buf.lock() {
                                b.push(&chunk[..n]);
                            }
                        }
                    }
                }
            }));
        }
        Ok(Self {
            child,
            guard,
            stdin,
            rx,
            tasks,
            limits: limits.clone(),
            next_id: 0,
            garbage: 0,
            closed: false,
            exited: None,
        })
    }

    async fn write(&mut self, msg: &Value, deadline: Instant) -> Result<(), CallError> {
        self.write_line(msg.to_string().as_bytes(), deadline).await
    }

    fn exit_detail(&mut self) -> String {
        if let Some(e) = &self.exited {
            return format!("the server exited ({e})");
        }
        match self.child.try_wait() {
            Ok(Some(status)) => format!("the server exited ({status})"),
            _ => "the server closed its stdout".into(),
        }
    }

    /// The next event from stdout before `deadline`. When the server process itself exits
    /// while something it started keeps stdout open, waiting stops after a short grace
    /// period instead of lasting until the deadline.
    async fn next_event(&mut self, deadline: Instant) -> Result<Option<ReadEvent>, CallError> {
        if self.exited.is_none() {
            tokio::select! {
                biased;
                ev = tokio::time::timeout_at(deadline, self.rx.recv()) => {
                    return ev.map_err(|_| CallError::Silent);
                }
                status = self.child.wait() => {
                    self.exited = Some(match status {
                        Ok(s) => s.to_string(),
                        Err(e) => e.to_string(),
                    });
                }
            }
        }
        let grace = deadline.min(Instant::now() + Duration::from_millis(300));
        match tokio::time::timeout_at(grace, self.rx.recv()).await {
            Ok(ev) => Ok(ev),
            Err(_) if grace < deadline => Err(CallError::Closed(format!(
                "the server exited ({}) but a process it started still holds its stdout",
                self.exited.as_deref().unwrap_or("?")
            ))),
            Err(_) => Err(CallError::Silent),
        }
    }

    /// Send a notification.
    pub async fn notify(&mut self, method: &str, deadline: Instant) -> Result<(), CallError> {
        self.write(&jsonrpc::notification(method), deadline).await
    }

    /// Send a request and wait for its answer until `deadline`, answering server→client
    /// requests and skipping notifications, stray answers and (a bounded number of)
    /// non-JSON-RPC lines meanwhile.
    pub async fn call(
        &mut self,
        method: &str,
        params: Value,
        deadline: Instant,
        session: &mut Session,
    ) -> Result<Value, CallError> {
        let id = self.send(method, params, deadline).await?;
        self.answer(&[id], method, deadline, session)
            .await
            .and_then(|(_, outcome)| outcome.map_err(CallError::Rpc))
    }

    /// Write a request without waiting for its answer; returns its id (for [`Self::answer`]).
    pub async fn send(
        &mut self,
        method: &str,
        params: Value,
        deadline: Instant,
    ) -> Result<u64, CallError> {
        if self.closed {
            return Err(CallError::Closed(self.exit_detail()));
        }
        self.next_id += 1;
        let id = self.next_id;
        self.write(&jsonrpc::request(id, method, params), deadline)
            .await?;
        Ok(id)
    }

    /// Wait until `deadline` for the first answer to any of the requests `ids` (sent with
    /// [`Self::send`]); returns that id and the server's result or JSON-RPC error. Answers
    /// to earlier requests that are no longer awaited are skipped quietly; `waiting_for`
    /// names the requests in error messages.
    pub async fn answer(
        &mut self,
        ids: &[u64],
        waiting_for: &str,
        deadline: Instant,
        session: &mut Session,
    ) -> Result<(u64, Result<Value, ErrorObject>), CallError> {
        if self.closed {
            return Err(CallError::Closed(self.exit_detail()));
        }
        let mut seen = 0usize;
        loop {
            let next = self.next_event(deadline).await;
            let bytes = match next {
                Err(e) => return Err(e),
                Ok(None) | Ok(Some(ReadEvent::Eof)) => {
                    self.closed = true;
                    // Give a dying process a moment so its exit status can be reported.
                    let _ =
                        tokio::time::timeout(Duration::from_millis(50), self.child.wait()).await;
                    return Err(CallError::Closed(self.exit_detail()));
                }
                Ok(Some(ReadEvent::Line(b))) => b,
                Ok(Some(ReadEvent::TooLong)) => {
                    return Err(CallError::Limit(format!(
                        "a message on stdout is longer than the per-message cap of {}",
                        human_bytes(self.limits.max_message_bytes)
                    )));
                }
                Ok(Some(ReadEvent::TotalExceeded)) => {
                    return Err(CallError::Limit(format!(
                        "the server wrote more than the total cap of {} to stdout",
                        human_bytes(self.limits.max_total_bytes)
                    )));
                }
                Ok(Some(ReadEvent::Failed(e))) => {
                    return Err(CallError::Closed(format!("reading stdout failed: {e}")));
                }
            };
            if bytes.iter().all(u8::is_ascii_whitespace) {
                continue;
            }
            let messages = match jsonrpc::parse_message(&bytes) {
                Ok((m, lossy)) => {
                    if lossy {
                        session.note_once(
                            "the server sent invalid UTF-8; it was replaced with U+FFFD",
                        );
                    }
                    m
                }
                Err(MessageError::TooDeep) => {
                    return Err(CallError::Limit(
                        "a message nests JSON deeper than 128 levels (the nesting limit)".into(),
                    ));
                }
                Err(e) => {
                    self.garbage += 1;
                    if self.garbage == 1 {
                        let shown: String =
                            String::from_utf8_lossy(&bytes[..bytes.len().min(120)]).into_owned();
                        session.note(format!(
                            "ignored a stdout line that is not JSON-RPC ({e}): {shown:?}"
                        ));
                    }
                    if self.garbage > self.limits.max_garbage_lines {
                        return Err(CallError::Protocol(format!(
                            "the server wrote more than {} stdout lines that are not JSON-RPC messages ({e})",
                            self.limits.max_garbage_lines
                        )));
                    }
                    continue;
                }
            };
            for msg in messages {
                seen += 1;
                if seen > self.limits.max_messages_per_request {
                    return Err(CallError::Limit(format!(
                        "more than {} messages arrived while waiting for the answer to {waiting_for}",
                        self.limits.max_messages_per_request
                    )));
                }
                match msg {
                    Incoming::Response { id: rid, outcome } => {
                        if let Some(&id) = ids.iter().find(|&&id| jsonrpc::id_matches(&rid, id)) {
                            session.answered();
                            return Ok((id, outcome));
                        }
                        if jsonrpc::id_number(&rid).is_some_and(|n| (1..=self.next_id).contains(&n))
                        {
                            // A late answer to a request whose answer no longer matters
                            // (`server/discover` once `initialize` decided the era).
                            tracing::debug!(id = %rid, "skipped a late answer to an earlier request");
                            continue;
                        }
                        session.note_once(&format!(
                            "ignored an answer with an id mcpvet never sent ({rid})"
                        ));
                    }
                    Incoming::Request { id: rid, method: m } => {
                        session.note_once(&format!(
                            "the server sent a {m} request; mcpvet answered it without serving it"
                        ));
                        let answer = jsonrpc::answer_server_request(&rid, &m);
                        self.write(&answer, deadline).await?;
                    }
                    Incoming::Notification { .. } => {}
                }
            }
        }
    }

    /// The next non-blank stdout line before `deadline`, as the server wrote it (the guard
    /// forwards lines byte for byte). The caps of [`Limits`] apply; end of stream, a dead
    /// process and a breached cap are errors, after which the connection is closed.
    pub async fn next_line(&mut self, deadline: Instant) -> Result<Vec<u8>, CallError> {
        if self.closed {
            return Err(CallError::Closed(self.exit_detail()));
        }
        loop {
            let event = match self.next_event(deadline).await {
                Err(CallError::Silent) => return Err(CallError::Silent),
                Err(e) => {
                    self.closed = true;
                    return Err(e);
                }
                Ok(ev) => ev,
            };
            let failure = match event {
                Some(ReadEvent::Line(b)) if b.iter().all(u8::is_ascii_whitespace) => continue,
                Some(ReadEvent::Line(b)) => return Ok(b),
                None | Some(ReadEvent::Eof) => {
                    let _ =
                        tokio::time::timeout(Duration::from_millis(50), self.child.wait()).await;
                    CallError::Closed(self.exit_detail())
                }
                Some(ReadEvent::TooLong) => CallError::Limit(format!(
                    "a message on stdout is longer than the per-message cap of {}",
                    human_bytes(self.limits.max_message_bytes)
                )),
                Some(ReadEvent::TotalExceeded) => CallError::Limit(format!(
                    "the server wrote more than the total cap of {} to stdout",
                    human_bytes(self.limits.max_total_bytes)
                )),
                Some(ReadEvent::Failed(e)) => {
                    CallError::Closed(format!("reading stdout failed: {e}"))
                }
            };
            self.closed = true;
            return Err(failure);
        }
    }

    /// Write one message line (a newline is added) before `deadline`.
    pub async fn write_line(&mut self, line: &[u8], deadline: Instant) -> Result<(), CallError> {
        let Some(stdin) = self.stdin.as_mut() else {
            return Err(CallError::Closed("stdin is closed".into()));
        };
        let write = async {
            stdin.write_all(line).await?;
            stdin.write_all(b"\n").await?;
            stdin.flush().await
        };
        match tokio::time::timeout_at(deadline, write).await {
            Err(_) => Err(CallError::Silent),
            Ok(Err(e)) => Err(CallError::Closed(format!(
                "the server stopped reading its stdin ({e})"
            ))),
            Ok(Ok(())) => Ok(()),
        }
    }

    /// The server's process id (the leader of its process group).
    pub fn pid(&self) -> Option<u32> {
        self.child.id()
    }

    /// Kill the process group now and close its stdin, without waiting for anything: the
    /// server runs no further; [`Self::close`] reaps it later.
    pub fn kill_now(&mut self) {
        self.guard.kill_all();
        drop(self.stdin.take());
    }

    /// Kill the process group, reap the child and stop the reader tasks.
    pub async fn close(mut self) {
        self.guard.kill_all();
        drop(self.stdin.take());
        let _ = tokio::time::timeout(Duration::from_secs(2), self.child.wait()).await;
        for t in &self.tasks {
            t.abort();
        }
    }
}

impl Drop for StdioConn {
    fn drop(&mut self) {
        self.guard.kill_all();
        for t in &self.tasks {
            t.abort();
        }
    }
}

/// Lines at least this long wait for an empty queue (see [`send_line`]).
const BIG_LINE: usize = 1024 * 1024;

/// Queue one line. A big line ([`BIG_LINE`] or more) is queued only once the queue is empty,
/// so the queue never holds more than one big line: what a reader keeps buffered is at most
/// one line being read, one queued big line and a queue of small ones, whatever the
/// server writes while the consumer is busy.
async fn send_line(tx: &mpsc::Sender<ReadEvent>, line: Vec<u8>) -> Result<(), ()> {
    if line.len() < BIG_LINE {
        return tx.send(ReadEvent::Line(line)).await.map_err(|_| ());
    }
    let mut permits = tx.reserve_many(tx.max_capacity()).await.map_err(|_| ())?;
    match permits.next() {
        Some(p) => {
            p.send(ReadEvent::Line(line));
            Ok(())
        }
        None => Err(()),
    }
}

/// Read newline-delimited messages without ever holding more than `max_line` bytes of one
/// line; stop at the first breach.
pub async fn read_lines<R: tokio::io::AsyncRead + Unpin>(
    out: R,
    tx: mpsc::Sender<ReadEvent>,
    max_line: usize,
    max_total: usize,
) {
    let mut reader = BufReader::with_capacity(64 * 1024, out);
    let mut line: Vec<u8> = Vec::new();
    let mut total = 0usize;
    loop {
        let buf = match reader.fill_buf().await {
            Ok(b) => b,
            Err(e) => {
                let _ = tx.send(ReadEvent::Failed(e.to_string())).await;
                return;
            }
        };
        if buf.is_empty() {
            if !line.is_empty() {
                let _ = tx.send(ReadEvent::Line(std::mem::take(&mut line))).await;
            }
            let _ = tx.send(ReadEvent::Eof).await;
            return;
        }
        let (take, complete) = match buf.iter().position(|&b| b == b'\n') {
            Some(i) => (i + 1, true),
            None => (buf.len(), false),
        };
        total += take;
        if total > max_total {
            let _ = tx.send(ReadEvent::TotalExceeded).await;
            return;
        }
        let content = if complete { take - 1 } else { take };
        if line.len() + content > max_line {
            let _ = tx.send(ReadEvent::TooLong).await;
            return;
        }
        // A line past 1 MiB gets room for the whole cap at once: the pages are touched only as
        // bytes arrive, and the doubling steps' freed buffers (kept by the allocator, more or
        // fewer depending on which thread ran each step) no longer add up to twice the cap.
        // (At most 256 MiB at once: a cap set higher grows by doubling past that.)
        let need = line.len() + content;
        if need > line.capacity() && need > BIG_LINE {
            let room = max_line.min(256 * 1024 * 1024).max(need);
            line.reserve_exact(room - line.len());
        }
        line.extend_from_slice(&buf[..content]);
        reader.consume(take);
        if complete {
            if line.last() == Some(&b'\r') {
                line.pop();
            }
            if send_line(&tx, std::mem::take(&mut line)).await.is_err() {
                return;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    async fn collect(input: &'static [u8], max_line: usize, max_total: usize) -> Vec<String> {
        let (tx, mut rx) = mpsc::channel(64);
        read_lines(input, tx, max_line, max_total).await;
        let mut out = Vec::new();
        while let Some(e) = rx.recv().await {
            out.push(match e {
                ReadEvent::Line(l) => String::from_utf8_lossy(&l).into_owned(),
                other => format!("{other:?}"),
            });
        }
        out
    }

    #[tokio::test]
    async fn splits_lines_and_reports_eof() {
        assert_eq!(
            collect(b"a\r\nbb\n\nccc", 10, 100).await,
            vec!["a", "bb", "", "ccc", "Eof"]
        );
    }

    #[tokio::test]
    async fn stops_at_the_line_cap() {
        assert_eq!(
            collect(b"ok\n0123456789abc\nnever\n", 10, 100).await,
            vec!["ok", "TooLong"]
        );
    }

    #[tokio::test]
    async fn a_big_line_is_queued_only_when_the_queue_is_empty() {
        let big = vec![b'x'; BIG_LINE];
        let mut input = Vec::new();
        for _ in 0..4 {
            input.extend_from_slice(&big);
            input.push(b'\n');
        }
        let (tx, mut rx) = mpsc::channel(8);
        let reader = tokio::spawn(read_lines(
            std::io::Cursor::new(input),
            tx,
            2 * BIG_LINE,
            usize::MAX,
        ));
        tokio::time::sleep(Duration::from_millis(100)).await;
        assert_eq!(rx.len(), 1, "one big line queued at a time");
        let mut lines = 0;
        while let Some(e) = rx.recv().await {
            if let ReadEvent::Line(l) = e {
                assert_eq!(l.len(), BIG_LINE);
                lines += 1;
            }
        }
        assert_eq!(lines, 4);
        reader.await.expect("reader");
    }

    #[tokio::test]
    async fn stops_at_the_total_cap() {
        assert_eq!(
            collect(b"aaaa\nbbbb\ncccc\n", 10, 12).await,
            vec!["aaaa", "bbbb", "TotalExceeded"]
        );
    }
}
