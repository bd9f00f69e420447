//! Throughput of the server kit (run: `cargo bench --bench kit`; `-- --quick` for a short run).
//!
//! Not a timed test: it measures and prints requests/second through `ToolServer::handle` (on a
//! current-thread tokio runtime, as the kit's stdio transport runs it) for discovery, a list and
//! a few calls of the seed's `demo` server, with and without the policy gate and audit sink,
//! and through the stdio transport (a buffer of request lines in, response lines out). Compare
//! with `cargo bench --bench handler` (ci-insights' handler).

use std::hint::black_box;
use std::sync::Arc;
use std::time::{Duration, Instant};

use mcpvet::kit::stdio::serve_tool_server;
use std::sync::atomic::{AtomicU64, Ordering};

use mcpvet::kit::{
    AuditEntry, AuditSink, Decision, Tool, ToolError, ToolOutput, ToolPolicy, ToolServer,
};
use serde_json::{Value, json};

fn request(method: &str, params: Value) -> Value {
    let mut params = params;
    params["_meta"] = json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {},
        "io.modelcontextprotocol/clientInfo": {"name": "bench", "version": "1"}
    });
    json!({"jsonrpc": "2.0", "id": 1, "method": method, "params": params})
}

/// Counts entries (a growing in-memory log would measure the allocator).
#[derive(Default)]
struct CountingAudit(AtomicU64);

impl AuditSink for CountingAudit {
    fn record(&self, entry: AuditEntry) {
        black_box(entry);
        self.0.fetch_add(1, Ordering::Relaxed);
    }
}

fn demo() -> ToolServer {
    let mut server = ToolServer::new("demo", "0.1");
    let schema = json!({"type": "object",
        "properties": {"a": {"type": "number"}, "b": {"type": "number"}},
        "required": ["a", "b"], "additionalProperties": false});
    let added = server.add_tool(Tool::sync("add", "Add a and b", schema, |args| {
        let sum = args["a"].as_i64().unwrap_or(0) + args["b"].as_i64().unwrap_or(0);
        Ok(ToolOutput::value(&json!(sum)))
    }));
    let boom = Tool::sync("boom", "Always fails", json!({"type": "object"}), |_| {
        Err(ToolError::from("city not found"))
    });
    if added.and_then(|s| s.add_tool(boom)).is_err() {
        std::process::exit(2);
    }
    server
}

/// Handle `message` repeatedly for at least `budget`; returns requests/second.
fn measure(message: &Value, server: &ToolServer, budget: Duration) -> f64 {
    let Ok(runtime) = tokio::runtime::Builder::new_current_thread().build() else {
        return 0.0;
    };
    for _ in 0..1_000 {
        black_box(runtime.block_on(server.handle(black_box(message))));
    }
    let start = Instant::now();
    let mut done: u64 = 0;
    while start.elapsed() < budget {
        for _ in 0..1_000 {
            black_box(runtime.block_on(server.handle(black_box(message))));
        }
        done += 1_000;
    }
    done as f64 / start.elapsed().as_secs_f64()
}

/// Serve `lines` request lines over the stdio transport; returns requests/second.
fn measure_stdio(message: &Value, server: &ToolServer, lines: usize) -> f64 {
    let mut input = Vec::new();
    let line = message.to_string();
    for _ in 0..lines {
        input.extend_from_slice(line.as_bytes());
        input.push(b'\n');
    }
    let mut output = Vec::with_capacity(input.len() * 2);
    let start = Instant::now();
    let served = serve_tool_server(server, &input[..], &mut output, &mut |_| {});
    let elapsed = start.elapsed().as_secs_f64();
    match served {
        Ok(stats) if stats.responses == lines as u64 => lines as f64 / elapsed,
        _ => 0.0,
    }
}

fn main() {
    let quick = std::env::args().any(|a| a == "--quick");
    let budget = Duration::from_millis(if quick { 200 } else { 2_000 });
    let plain = demo();
    let audit = Arc::new(CountingAudit::default());
    let gated = demo()
        .with_policy(Arc::new(
            ToolPolicy::new(Decision::Allow).tool("boom", Decision::Deny("off".into())),
        ))
        .with_audit(audit.clone());
    let add = request(
        "tools/call",
        json!({"name": "add", "arguments": {"a": 2, "b": 3}}),
    );
    let cases = [
        (
            "server/discover",
            request("server/discover", json!({})),
            &plain,
        ),
        ("tools/list", request("tools/list", json!({})), &plain),
        ("tools/call add (success)", add.clone(), &plain),
        (
            "tools/call add (schema failure)",
            request(
                "tools/call",
                json!({"name": "add", "arguments": {"a": "x", "b": 3}}),
            ),
            &plain,
        ),
        (
            "tools/call boom (tool error)",
            request("tools/call", json!({"name": "boom"})),
            &plain,
        ),
        ("tools/call add + policy + audit", add.clone(), &gated),
    ];
    let mut report = String::from("server kit handler throughput (single thread)\n");
    for (label, message, server) in &cases {
        let rps = measure(message, server, budget);
        report.push_str(&format!("{label:<48} {rps:>12.0} requests/s\n"));
    }
    let lines = if quick { 20_000 } else { 200_000 };
    let rps = measure_stdio(&add, &plain, lines);
    report.push_str(&format!(
        "{:<48} {rps:>12.0} requests/s\n",
        format!("stdio, tools/call add ({lines} lines)")
    ));
    let _ = mcpvet::report::write_stdout(report.as_bytes());
}
