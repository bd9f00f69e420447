//! The stdio transport of ci-insights: one JSON message per line in, one per line out, the
//! kit's ([`crate::kit::stdio::serve_tool_server`]) serving ci-insights' kit server built once
//! ([`super::handler::tool_server`]): `-32700` on bad lines, blank lines skipped, over-long
//! lines (more than [`MAX_LINE_BYTES`]) discarded as they stream with `-32600`, diagnostics
//! (labelled `ci-insights:`) to the caller's callback only.

use std::io::{BufRead, Write};

use super::config::ServerConfig;
use super::handler::tool_server;

pub use crate::kit::stdio::{MAX_LINE_BYTES, StdioStats};

/// Serve `input` until end of input, writing one compact JSON response per line to `output`.
///
/// `diagnostic` receives one human-readable line per unparsable input line. Returns an I/O
/// error only when reading or writing fails; a closed output (broken pipe) ends serving
/// normally. A configuration the kit cannot register is an error of kind `InvalidInput`
/// before anything is read.
pub fn serve_stdio<R: BufRead, W: Write>(
    input: R,
    output: W,
    server: &ServerConfig,
    diagnostic: &mut dyn FnMut(&str),
) -> std::io::Result<StdioStats> {
    let kit = tool_server(server)
        .map_err(|why| std::io::Error::new(std::io::ErrorKind::InvalidInput, why.to_string()))?;
    crate::kit::stdio::serve_lines(
        input,
        output,
        "ci-insights",
        &mut |message| kit.handle_blocking(message),
        diagnostic,
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::{Value, json};

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
