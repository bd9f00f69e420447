//! `ci-insights`: the read-only MCP server mcpvet ships as its clean baseline.

fn main() {}
