//! The stdio transport shared by kit servers and ci-insights: one JSON message per line in,
//! one per line out.
//!
//! A line that is not valid JSON (or not UTF-8) gets a `-32700 Parse error` response with
//! `id: null` and serving goes on; blank lines are skipped; a notification gets no output;
//! end of input ends serving. Only protocol messages are written to `output`; diagnostics go to
//! the caller's `diagnostic` callback (binaries send them to stderr), so this module never
//! prints.
//!
//! A line longer than [`MAX_LINE_BYTES`] (1 MiB, the HTTP transport's body cap) is discarded
//! as it streams in, never buffered whole, and answered with `-32600 Invalid Request`.
//!
//! [`serve_lines`] takes any synchronous `handle`; [`serve_tool_server`] runs a
//! [`ToolServer`]'s asynchronous handler on a private current-thread runtime and writes the
//! notifications a request causes (`notifications/progress`) as lines before its response.

use std::io::{BufRead, Read as _, Write};

use serde_json::Value;

use super::rpc::{INVALID_REQUEST, PARSE_ERROR, error_response};
use super::server::ToolServer;

/// The longest message line served: 1 MiB, as over HTTP.
pub const MAX_LINE_BYTES: usize = 1024 * 1024;

/// What one read from the input gave.
enum Line {
    /// End of input.
    End,
    /// A line (without its end) is in the buffer.
    Read,
    /// A line over the cap, skipped to its end; the buffer is empty.
    TooLong,
}

/// Read one line into `line`, holding at most `MAX_LINE_BYTES + 1` bytes of it.
fn read_line<R: BufRead>(input: &mut R, line: &mut Vec<u8>) -> std::io::Result<Line> {
    line.clear();
    let cap = MAX_LINE_BYTES as u64 + 1;
    if input.by_ref().take(cap).read_until(b'\n', line)? == 0 {
        return Ok(Line::End);
    }
    if line.last() == Some(&b'\n') || line.len() <= MAX_LINE_BYTES {
        return Ok(Line::Read);
    }
    line.clear();
    loop {
        let buf = input.fill_buf()?;
        if buf.is_empty() {
            return Ok(Line::TooLong);
        }
        match buf.iter().position(|&b| b == b'\n') {
            Some(i) => {
                input.consume(i + 1);
                return Ok(Line::TooLong);
            }
            None => {
                let n = buf.len();
                input.consume(n);
            }
        }
    }
}

/// What one stdio session did.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct StdioStats {
    /// Non-blank lines read.
    pub messages: u64,
    /// Responses written.
    pub responses: u64,
    /// Lines that were not JSON.
    pub parse_errors: u64,
}

/// Serve `input` until end of input, writing one compact JSON response per line to `output`.
///
/// `handle` answers one parsed message (`None`: nothing is written). `label` starts every
/// diagnostic (`"<label>: stdin line N: …"`). `diagnostic` receives one human-readable line per
/// unparsable or over-long input line. Returns an I/O error only when reading or writing
/// fails; a closed output (broken pipe) ends serving normally.
pub fn serve_lines<R: BufRead, W: Write>(
    input: R,
    output: W,
    label: &str,
    handle: &mut dyn FnMut(&Value) -> Option<Value>,
    diagnostic: &mut dyn FnMut(&str),
) -> std::io::Result<StdioStats> {
    serve_lines_streaming(
        input,
        output,
        label,
        &mut |message, _| handle(message),
        diagnostic,
    )
}

/// Writes one message line at once (given to a streaming handler).
pub type Emit<'e> = &'e mut dyn FnMut(&Value);

/// [`serve_lines`] where `handle` also gets an emitter that writes a message line at once
/// (a notification such as `notifications/progress`, sent before the response).
pub fn serve_lines_streaming<R: BufRead, W: Write>(
    mut input: R,
    mut output: W,
    label: &str,
    handle: &mut dyn FnMut(&Value, Emit<'_>) -> Option<Value>,
    diagnostic: &mut dyn FnMut(&str),
) -> std::io::Result<StdioStats> {
    let mut stats = StdioStats::default();
    let mut line = Vec::new();
    // One response line's bytes, reused from line to line.
    let mut bytes = Vec::new();
    let mut line_no: u64 = 0;
    loop {
        let read = read_line(&mut input, &mut line)?;
        if matches!(read, Line::End) {
            return Ok(stats);
        }
        line_no += 1;
        if matches!(read, Line::Read) && line.iter().all(u8::is_ascii_whitespace) {
            continue;
        }
        stats.messages += 1;
        let parsed = match read {
            Line::TooLong => {
                diagnostic(&format!(
                    "{label}: stdin line {line_no}: longer than {MAX_LINE_BYTES} bytes, discarded"
                ));
                Err(error_response(
                    &Value::Null,
                    INVALID_REQUEST,
                    "Invalid Request: message longer than 1 MiB",
                ))
            }
            _ => Ok(&line),
        };
        let mut closed = false;
        let response = match parsed.map(|line| serde_json::from_slice::<Value>(line)) {
            Err(too_long) => Some(too_long),
            Ok(Ok(message)) => {
                let mut emit = |note: &Value| {
                    if closed {
                        return;
                    }
                    let mut bytes = serde_json::to_vec(note).unwrap_or_default();
                    bytes.push(b'\n');
                    if output
                        .write_all(&bytes)
                        .and_then(|()| output.flush())
                        .is_err()
                    {
                        closed = true;
                    }
                };
                handle(&message, &mut emit)
            }
            Ok(Err(e)) => {
                stats.parse_errors += 1;
                diagnostic(&format!("{label}: stdin line {line_no}: parse error: {e}"));
                Some(error_response(&Value::Null, PARSE_ERROR, "Parse error"))
            }
        };
        if closed {
            return Ok(stats);
        }
        if let Some(response) = response {
            bytes.clear();
            serde_json::to_writer(&mut bytes, &response)?;
            bytes.push(b'\n');
            match output.write_all(&bytes).and_then(|()| output.flush()) {
                Ok(()) => stats.responses += 1,
                // The client closed its end: the session is over, which is not an error.
                Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => return Ok(stats),
                Err(e) => return Err(e),
            }
        }
    }
}

/// Serve a [`ToolServer`] over `input`/`output` (see [`serve_lines`]); diagnostics are labelled
/// with the server's name. Each message is handled to completion before the next line is read.
/// Must not be called from inside a tokio runtime (it starts its own current-thread one).
pub fn serve_tool_server<R: BufRead, W: Write>(
    server: &ToolServer,
    input: R,
    output: W,
    diagnostic: &mut dyn FnMut(&str),
) -> std::io::Result<StdioStats> {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?;
    let label = server.info().name.clone();
    serve_lines_streaming(
        input,
        output,
        &label,
        &mut |message, emit| {
            runtime.block_on(async {
                let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel::<Value>();
                let notify: super::server::Notify = std::sync::Arc::new(move |note| {
                    let _ = tx.send(note);
                });
                let handled = server.handle_streaming(message, None, Some(notify));
                let mut handled = std::pin::pin!(handled);
                loop {
                    tokio::select! {
                        biased;
                        Some(note) = rx.recv() => emit(&note),
                        answer = &mut handled => {
                            while let Ok(note) = rx.try_recv() {
                                emit(&note);
                            }
                            return answer;
                        }
                    }
                }
            })
        },
        diagnostic,
    )
}
