//! mcpvet vets MCP (Model Context Protocol) servers before a team's coding assistants
//! trust them, and again whenever they change.
//!
//! The data flows one way, and imports follow it (`docs/architecture.md`):
//! [`config`] (host files → [`model::spec::ServerSpec`]) → [`mcp`] probe
//! (→ [`model::snapshot::ServerSnapshot`]) → the rule families [`audit`], [`launch_audit`],
//! [`lock`], [`policy`] (→ [`model::finding::Finding`]) → [`catalog`] → [`pipeline`]
//! (`gather`, `judge`) → [`report`] (the only layer that prints) → [`cli`].
//! [`model`] is the ground floor every layer shares.
//!
//! [`kit`] is the server kit (a registry, a pure handler, stdio and Streamable HTTP, a policy
//! gate and audit sink); `baseline` is ci-insights, the read-only MCP server the project ships
//! as a clean baseline.

#![forbid(unsafe_code)]

pub mod audit;
pub mod baseline;
pub mod catalog;
pub mod cli;
pub mod config;
pub mod error;
pub mod guard;
pub mod kit;
pub mod launch_audit;
pub mod lock;
pub mod mcp;
pub mod model;
pub mod pipeline;
pub mod policy;
pub mod report;
