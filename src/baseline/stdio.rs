//! The stdio transport (synchronous): one JSON message per line in, one per line out.
//!
//! A line that is not valid JSON (or not UTF-8) gets a `-32700 Parse error` response with
//! `id: null` and serving goes on; blank lines are skipped; a notification gets no output;
//! end of input ends serving (the binary then exits 0). Only protocol messages are written to
//! `output`; diagnostics go to the caller's `diagnostic` callback (the binary sends them to
//! stderr), so this module never prints.
//!
//! A line longer than [`MAX_LINE_BYTES`] (1 MiB, the HTTP transport's body cap) is discarded
//! as it streams in, never buffered whole, and answered with `-32600 Invalid Request`.

use std::io::{BufRead, Read as _, Write};

use serde_json::Value;

use super::config::ServerConfig;
use super::handler::{INVALID_REQUEST, PARSE_ERROR, error_response, handle_mcp_request};

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
/// `diagnostic` receives one human-readable line per unparsable input line. Returns an I/O
/// error only when reading or writing fails; a closed output (broken pipe) ends serving
/// normally.
pub fn serve_stdio<R: BufRead, W: Write>(
    mut input: R,
    mut output: W,
    server: &ServerConfig,
    diagnostic: &mut dyn FnMut(&str),
) -> std::io::Result<StdioStats> {
    let mut stats = StdioStats::default();
    let mut line = Vec::new();
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
                    "ci-insights: stdin line {line_no}: longer than {MAX_LINE_BYTES} bytes, discarded"
                ));
                Err(error_response(
                    &Value::Null,
                    INVALID_REQUEST,
                    "Invalid Request: message longer than 1 MiB",
                ))
            }
            _ => Ok(&line),
        };
        let response = match parsed.map(|line| serde_json::from_slice::<Value>(line)) {
            Err(too_long) => Some(too_long),
            Ok(Ok(message)) => handle_mcp_request(&message, server),
            Ok(Err(e)) => {
                stats.parse_errors += 1;
                diagnostic(&format!(
                    "ci-insights: stdin line {line_no}: parse error: {e}"
                ));
                Some(error_response(&Value::Null, PARSE_ERROR, "Parse error"))
            }
        };
        if let Some(response) = response {
            let mut bytes = serde_json::to_vec(&response)?;
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

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn run(input: &[u8]) -> (Vec<Value>, StdioStats, Vec<String>) {
        let mut out = Vec::new();
        let mut diags = Vec::new();
        let stats = serve_stdio(input, &mut out, &ServerConfig::contract(), &mut |d| {
            diags.push(d.to_string())
        })
        .unwrap();
        let lines = String::from_utf8(out).unwrap();
        let values = lines
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect();
        (values, stats, diags)
    }

    #[test]
    fn bad_lines_get_parse_errors_and_serving_continues() {
        let input = b"{not json\n\n\xff\xfe\n{\"jsonrpc\":\"2.0\",\"method\":\"n\"}\n[1]\n";
        let (values, stats, diags) = run(input);
        let parse =
            json!({"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error"}});
        let invalid =
            json!({"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"Invalid Request"}});
        assert_eq!(values, vec![parse.clone(), parse, invalid]);
        assert_eq!(
            stats,
            StdioStats {
                messages: 4,
                responses: 3,
                parse_errors: 2
            }
        );
        assert_eq!(diags.len(), 2);
        assert!(diags[0].contains("line 1"), "{}", diags[0]);
        assert!(diags[1].contains("line 3"), "{}", diags[1]);
    }

    /// A generated stream: `len` bytes of `x` then a newline, produced as they are read.
    struct LongLine {
        left: u64,
        then: &'static [u8],
        largest_read: usize,
    }

    impl std::io::Read for LongLine {
        fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
            self.largest_read = self.largest_read.max(buf.len());
            if self.left > 0 {
                let n = buf
                    .len()
                    .min(usize::try_from(self.left).unwrap_or(usize::MAX));
                buf[..n].fill(b'x');
                self.left -= n as u64;
                return Ok(n);
            }
            let n = buf.len().min(self.then.len());
            buf[..n].copy_from_slice(&self.then[..n]);
            self.then = &self.then[n..];
            Ok(n)
        }
    }

    /// A 500 MB line is discarded as it streams (never held: the reader's buffer stays small
    /// and the session goes on), answered with -32600, and the next request is served.
    #[test]
    fn a_line_over_one_mib_is_discarded_without_buffering_it() {
        let next = b"\n{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"tools/list\",\"params\":{\"_meta\":{\"io.modelcontextprotocol/protocolVersion\":\"2026-07-28\",\"io.modelcontextprotocol/clientCapabilities\":{}}}}\n";
        let stream = LongLine {
            left: 500_000_000,
            then: next,
            largest_read: 0,
        };
        let mut input = std::io::BufReader::with_capacity(64 * 1024, stream);
        let mut out = Vec::new();
        let mut diags = Vec::new();
        let stats = serve_stdio(&mut input, &mut out, &ServerConfig::contract(), &mut |d| {
            diags.push(d.to_string())
        })
        .unwrap();
        let lines: Vec<Value> = String::from_utf8(out)
            .unwrap()
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect();
        assert_eq!(lines.len(), 2, "{lines:?}");
        assert_eq!(lines[0]["error"]["code"], json!(-32600));
        assert_eq!(lines[1]["id"], json!(7));
        assert_eq!(stats.messages, 2);
        assert!(diags[0].contains("longer than"), "{diags:?}");
        assert!(input.get_ref().largest_read <= 64 * 1024);
        // Exactly at the cap is served (as a parse error here: it is not JSON).
        let mut exact = vec![b'x'; MAX_LINE_BYTES];
        exact.push(b'\n');
        let (values, stats, _) = run(&exact);
        assert_eq!(values[0]["error"]["code"], json!(-32700));
        assert_eq!(stats.parse_errors, 1);
    }

    struct ClosedPipe;

    impl Write for ClosedPipe {
        fn write(&mut self, _: &[u8]) -> std::io::Result<usize> {
            Err(std::io::ErrorKind::BrokenPipe.into())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }

    #[test]
    fn a_closed_output_ends_serving_cleanly() {
        let input: &[u8] = b"x\nx\n";
        let stats = serve_stdio(input, ClosedPipe, &ServerConfig::contract(), &mut |_| {}).unwrap();
        assert_eq!(stats.responses, 0);
        assert_eq!(stats.messages, 1);
    }

    #[test]
    fn last_line_without_newline_is_served() {
        let input = br#"{"jsonrpc":"2.0","id":7,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}"#;
        let (values, _, _) = run(input);
        assert_eq!(values.len(), 1);
        assert_eq!(values[0]["id"], json!(7));
        assert_eq!(values[0]["result"]["tools"].as_array().unwrap().len(), 2);
    }
}
