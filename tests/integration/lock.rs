//! Integration tests: lock.
