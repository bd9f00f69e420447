//! Lockfile v1, as callers name it: one path (`lock::lockfile::…`) for the model, reading with
//! hash verification, atomic writes, the approval behind `mcpvet lock`, and RFC 3339 times.
//!
//! The code lives by job in sibling files of `src/lock/`: `model.rs` (the types, serde and
//! the hashes), `verify.rs` (tamper checks), `io.rs` (parse, read, render, write,
//! [`path_for`]), `approval.rs` ([`approve`]), `error.rs` ([`LockError`]) and `time.rs`
//! (RFC 3339).

pub use super::approval::{ApproveOptions, LockOutcome, approve};
pub use super::error::LockError;
pub use super::io::{path_for, sort_keys};
pub use super::model::{
    AcceptedFinding, Approval, Content, LOCKFILE_VERSION, LaunchSpec, LockedItem, Lockfile,
    item_key, kind_word, list_name,
};
pub use super::time::{is_rfc3339, rfc3339_from_unix};
