//! ci-insights: the read-only MCP server (2026-07-28) the project ships as a clean baseline.
//!
//! - [`config`]: [`ServerConfig`] (the contract's tables, the shipped identity, file loaders).
//! - [`handler`]: ci-insights as a kit configuration ([`tool_server`]: its tools, data and
//!   contract quirks as registry and options) and the pure [`handle_mcp_request`] over it.
//! - [`validate`]: the contract's JSON Schema subset and the integer rule.
//! - [`stdio`]: newline-delimited JSON over any reader/writer pair (synchronous).
//! - [`http`]: Streamable HTTP on axum (asynchronous, tokio), endpoint `/mcp` (and `/`).
//! - the connection loop under it is the kit's ([`crate::kit::accept`]).

pub mod config;
pub mod handler;
pub mod http;
pub mod stdio;
pub mod validate;

pub use config::{
    Build, CacheScope, ConfigError, DataFile, FlakyTest, PROTOCOL_VERSION, ServerConfig,
};
pub use handler::{contract_rules, handle_mcp_request, same_config, tool_server};
pub use http::{HttpOptions, HttpServer, ServeError, serve_http};
pub use stdio::{StdioStats, serve_stdio};
