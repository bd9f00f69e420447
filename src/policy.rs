//! The team allowlist (`mcpvet.toml`): allow/deny entries, credentials, requirements, rule remaps.
