//! ci-insights: the read-only MCP server (2026-07-28) the project ships as a clean baseline.
