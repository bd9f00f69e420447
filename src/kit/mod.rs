//! The server kit: build a small, exact MCP 2026-07-28 server in Rust.
//!
//! [`ToolServer`] is the seeds' minimal tool server grown into a library: register tools
//! (name, description, input schema, optional output schema, annotations, an async handler),
//! resources, resource templates and prompts; then `handle(message)` answers one parsed
//! JSON-RPC message, or gives `None` for a notification. Around it:
//!
//! - [`rpc`]: error codes, `_meta` keys, response builders (shared with ci-insights);
//! - [`rules`]: how strictly and in which order requests are checked ([`RequestRules`]; the
//!   seed's order by default, ci-insights' contract as configuration);
//! - [`schema`]: JSON Schema 2020-12 validation (the `jsonschema` crate, no network `$ref`)
//!   and `x-mcp-header` declarations;
//! - [`policy`]: the per-call gate (allow / deny / approval bound to the sha256 of the
//!   canonical arguments) and the redacted audit sink;
//! - [`state`]: MRTR `requestState` sealing (HMAC-SHA256, per-process key);
//! - [`stdio`]: newline-delimited JSON over any reader/writer (shared with ci-insights);
//! - [`http`]: Streamable HTTP (shared with ci-insights): loopback by default, Origin/Host
//!   checks, POST only, 202 for notifications, 404/405/413/415, mirrored-header checks;
//! - [`accept`]: the connection loop under the HTTP transport.
//!
//! # Example
//!
//! The seed's example server, `demo` 0.1 with `add` and `boom`:
//!
//! ```
//! use mcpvet::kit::{Tool, ToolError, ToolOutput, ToolServer};
//! use serde_json::json;
//!
//! let mut server = ToolServer::new("demo", "0.1");
//! let numbers = json!({"type": "object",
//!     "properties": {"a": {"type": "number"}, "b": {"type": "number"}},
//!     "required": ["a", "b"]});
//! server.add_tool(Tool::sync("add", "Add a and b", numbers, |args| {
//!     let sum = args["a"].as_f64().unwrap_or(0.0) + args["b"].as_f64().unwrap_or(0.0);
//!     Ok(ToolOutput::value(&json!(sum as i64)))
//! }))?;
//! server.add_tool(Tool::sync("boom", "Always fails", json!({"type": "object"}), |_| {
//!     Err(ToolError::from("city not found"))
//! }))?;
//!
//! let request = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {
//!     "_meta": {"io.modelcontextprotocol/protocolVersion": "2026-07-28",
//!               "io.modelcontextprotocol/clientCapabilities": {}},
//!     "name": "add", "arguments": {"a": 2, "b": 3}}});
//! let runtime = tokio::runtime::Builder::new_current_thread().build()?;
//! let response = runtime.block_on(server.handle(&request)).expect("a request is answered");
//! assert_eq!(response["result"]["content"][0]["text"], "5");
//! assert_eq!(response["result"]["isError"], false);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! Serve it with [`stdio::serve_tool_server`] or [`http::KitHttp`].

pub mod accept;
pub mod http;
pub mod policy;
pub mod rpc;
pub mod rules;
pub mod schema;
pub mod server;
pub mod state;
pub mod stdio;

pub use policy::{
    Approval, AuditDecision, AuditEntry, AuditOutcome, AuditSink, CallInfo, Decision, MemoryAudit,
    Policy, ToolPolicy, arguments_digest,
};
pub use rules::{CallParams, Cursors, MetaCheck, MethodCheck, RequestRules};
pub use server::{
    ArgumentCheckFn, BoxFuture, CacheHint, CacheHints, CacheScope, CallContext, InputRequired,
    Interaction, KitError, Notify, PROTOCOL_VERSION, Prompt, PromptArgument, Resource,
    ResourceTemplate, ServerInfo, SyncToolFn, Tool, ToolError, ToolOutput, ToolServer,
    TransportCheck,
};
