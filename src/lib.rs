//! mcpvet vets MCP (Model Context Protocol) servers before a team's coding assistants
//! trust them, and again whenever they change.
//!
//! The data flows one way:
//! `config` (host files → [`spec::ServerSpec`]) → `mcp` probe (→ [`snapshot::ServerSnapshot`])
//! → `audit` (→ [`audit::finding::Finding`]) → `report` (the only layer that prints).
//!
//! `baseline` is ci-insights, the read-only MCP server the project ships as a clean baseline.

#![forbid(unsafe_code)]

pub mod audit;
pub mod baseline;
pub mod catalog;
pub mod cli;
pub mod config;
pub mod error;
pub mod launch_audit;
pub mod lock;
pub mod mcp;
pub mod model;
pub mod pipeline;
pub mod policy;
pub mod report;
