//! The stdio transport (synchronous): one JSON message per line in, one per line out.
//!
//! A line that is not valid JSON (or not UTF-8) gets a `-32700 Parse error` response with
//! `id: null` and serving goes on; blank lines are skipped; a notification gets no output;
//! end of input ends serving (the binary then exits 0). Only protocol messages are written to
//! `output`; diagnostics go to the caller's `diagnostic` callback (the binary sends them to
//! stderr), so this module never prints.

use std::io::{BufRead, Write};

use serde_json::Value;

use super::config::ServerConfig;
use super::handler::{PARSE_ERROR, error_response, handle_mcp_request};

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
        line.clear();
        if input.read_until(b'\n', &mut line)? == 0 {
            return Ok(stats);
        }
        line_no += 1;
        if line.iter().all(u8::is_ascii_whitespace) {
            continue;
        }
        stats.messages += 1;
        let response = match serde_json::from_slice::<Value>(&line) {
            Ok(message) => handle_mcp_request(&message, server),
            Err(e) => {
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
