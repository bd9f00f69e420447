//! Lockfiles: canonical JSON (RFC 8785), lockfile v1, and the diff against a live server.
//!
//! - [`canon`]: RFC 8785 canonical JSON and sha256 helpers.
//! - [`lockfile`]: the v1 lockfile as callers name it ([`Lockfile`]), re-exported from its
//!   parts: `model` (types and hashes), `verify` (tamper checks), `io` (read, render, write),
//!   `approval` ([`approve`]), `error` ([`LockError`]) and `time` (RFC 3339).
//! - [`diff`](mod@diff): the structured [`LockDiff`] between a lock and a snapshot (or two listings).
//! - [`drift`]: drift findings for `scan` and the static `pin-mismatch` check.
//! - [`cloak`]: `cloaked-definitions`, comparing two listings of the same server.

pub mod canon;
pub mod cloak;
pub mod diff;
pub mod drift;
pub mod lockfile;

mod approval;
mod error;
mod io;
mod model;
mod strict;
mod time;
mod verify;

pub use canon::{canonical_json, hash_value, sha256_hex};
pub use cloak::cloak_findings;
pub use diff::{ChangeKind, FieldChange, ItemChange, LockDiff, diff, diff_with_spec};
pub use drift::{drift_findings, drift_findings_in, launch_spec_findings, rule_meta};
pub use lockfile::{
    AcceptedFinding, Approval, ApproveOptions, LOCKFILE_VERSION, LaunchSpec, LockError,
    LockOutcome, LockedItem, Lockfile, approve, path_for,
};
