//! Integration tests: audit.
