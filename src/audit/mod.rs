//! The audit: rules over server specs and snapshots that produce findings.

pub mod catalog;
pub mod finding;
