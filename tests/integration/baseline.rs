//! Integration tests: baseline.
