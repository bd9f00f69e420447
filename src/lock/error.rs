//! [`LockError`]: why a lockfile could not be read, verified, written or approved.

use super::model::LOCKFILE_VERSION;
use crate::model::finding::Severity;

/// Why a lockfile could not be read, verified, written or approved.
#[derive(Debug, thiserror::Error)]
pub enum LockError {
    #[error("cannot read lock {path}: {source}")]
    Io {
        path: String,
        #[source]
        source: std::io::Error,
    },
    #[error("cannot write lock {path}: {source} (check that the lock directory is writable)")]
    Write {
        path: String,
        #[source]
        source: std::io::Error,
    },
    #[error(
        "lock {path} is not valid JSON at line {line}, column {column}: {message} (restore it from version control or re-create it with `mcpvet lock --force`)"
    )]
    Parse {
        path: String,
        line: usize,
        column: usize,
        message: String,
    },
    #[error(
        "lock {path} has lockfileVersion {found}; this mcpvet reads version {LOCKFILE_VERSION} (upgrade mcpvet, or re-create the lock)"
    )]
    Version { path: String, found: String },
    #[error(
        "lock {path} does not match the lockfile v1 format: {message} (see lockfiles/README.md)"
    )]
    Shape { path: String, message: String },
    #[error(
        "tampered or hand-edited lock {path}: {what} (restore it from version control, or review the server and re-create it with `mcpvet lock --force`)"
    )]
    Tampered { path: String, what: String },
    #[error(
        "refusing to lock {server}: {count} finding(s) at or above {fail_on}: {summary} (fix them, or approve anyway with --accept \"reason\", which is recorded in the lock)"
    )]
    Refused {
        server: String,
        count: usize,
        fail_on: Severity,
        summary: String,
    },
}
