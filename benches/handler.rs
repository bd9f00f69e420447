//! Throughput of ci-insights for `tools/call` (run: `cargo bench --bench handler`).
//!
//! Not a timed test: it measures and prints requests/second for a few representative calls
//! (a success, a schema failure and a business failure) through ci-insights' kit server, built
//! once from the shipped configuration (`baseline::tool_server`, then `handle_blocking`: what
//! its stdio transport runs per line), through `handle_mcp_request` (the contract's pure
//! function, which keeps the kit server it built for the configuration and checks on every
//! call that the configuration is still the same), and through the stdio transport.

use std::hint::black_box;
use std::time::{Duration, Instant};

use mcpvet::baseline::{ServerConfig, handle_mcp_request, serve_stdio, tool_server};
use mcpvet::kit::ToolServer;
use serde_json::{Value, json};

fn call(name: &str, arguments: Value) -> Value {
    json!({
        "jsonrpc": "2.0",
        "id": 1,
        "method": "tools/call",
        "params": {
            "_meta": {
                "io.modelcontextprotocol/protocolVersion": "2026-07-28",
                "io.modelcontextprotocol/clientCapabilities": {},
                "io.modelcontextprotocol/clientInfo": {"name": "bench", "version": "1"}
            },
            "name": name,
            "arguments": arguments
        }
    })
}

/// Run `handle` repeatedly for at least `budget`; returns requests/second.
fn measure(message: &Value, budget: Duration, handle: &dyn Fn(&Value) -> Option<Value>) -> f64 {
    // Warm up.
    for _ in 0..1_000 {
        black_box(handle(black_box(message)));
    }
    let start = Instant::now();
    let mut done: u64 = 0;
    while start.elapsed() < budget {
        for _ in 0..1_000 {
            black_box(handle(black_box(message)));
        }
        done += 1_000;
    }
    done as f64 / start.elapsed().as_secs_f64()
}

/// Serve `lines` copies of `message` over the stdio transport; returns requests/second.
fn measure_stdio(message: &Value, server: &ServerConfig, lines: usize) -> f64 {
    let mut input = Vec::new();
    let line = message.to_string();
    for _ in 0..lines {
        input.extend_from_slice(line.as_bytes());
        input.push(b'\n');
    }
    let mut output = Vec::with_capacity(input.len() * 2);
    let start = Instant::now();
    let served = serve_stdio(&input[..], &mut output, server, &mut |_| {});
    let elapsed = start.elapsed().as_secs_f64();
    match served {
        Ok(stats) if stats.responses == lines as u64 => lines as f64 / elapsed,
        _ => 0.0,
    }
}

fn main() {
    let server = ServerConfig::shipped();
    let quick = std::env::args().any(|a| a == "--quick");
    let budget = Duration::from_millis(if quick { 200 } else { 2_000 });
    let cases = [
        (
            "tools/call get_build_status (found)",
            call("get_build_status", json!({"pipeline": "api", "build": 412})),
        ),
        (
            "tools/call list_flaky_tests (default limit)",
            call("list_flaky_tests", json!({"pipeline": "api"})),
        ),
        (
            "tools/call schema failure (enum)",
            call(
                "get_build_status",
                json!({"pipeline": "staging", "build": 3}),
            ),
        ),
        (
            "tools/call business failure (no build)",
            call("get_build_status", json!({"pipeline": "api", "build": 999})),
        ),
    ];
    let Ok(kit) = tool_server(&server) else {
        let _ = mcpvet::report::write_stdout(b"the shipped configuration did not register\n");
        return;
    };
    let kit: &ToolServer = &kit;
    let mut report = String::from(
        "ci-insights on the kit, built once (ToolServer::handle_blocking), single thread\n",
    );
    for (label, message) in &cases {
        let rps = measure(message, budget, &|m| kit.handle_blocking(m));
        report.push_str(&format!("{label:<48} {rps:>12.0} requests/s\n"));
    }
    report.push_str(
        "handle_mcp_request (server kept per configuration, compared per call), single thread\n",
    );
    for (label, message) in &cases {
        let rps = measure(message, budget, &|m| handle_mcp_request(m, &server));
        report.push_str(&format!("{label:<48} {rps:>12.0} requests/s\n"));
    }
    let lines = if quick { 20_000 } else { 200_000 };
    let rps = measure_stdio(&cases[0].1, &server, lines);
    report.push_str(&format!(
        "{:<48} {rps:>12.0} requests/s\n",
        format!("stdio, get_build_status ({lines} lines)")
    ));
    let _ = mcpvet::report::write_stdout(report.as_bytes());
}
