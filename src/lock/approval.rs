//! The approval workflow behind `mcpvet lock`: [`approve`] gates a server's findings, keeps
//! an unchanged lock (and its approval) byte-identical, records `--accept` reasons, and
//! writes the new lock atomically. `--force` records a new approval.

use std::path::{Path, PathBuf};

use super::error::LockError;
use super::io::path_for;
use super::model::{AcceptedFinding, Approval, Lockfile, kind_word};
use crate::model::finding::{Finding, Severity};
use crate::model::snapshot::ServerSnapshot;
use crate::model::spec::ServerSpec;

/// Options of an approval (`mcpvet lock`).
#[derive(Debug, Clone)]
pub struct ApproveOptions {
    pub by: String,
    /// RFC 3339 time to record.
    pub at: String,
    pub note: Option<String>,
    /// `--accept "reason"`: approve despite gate findings, recording them with this reason.
    pub accept: Option<String>,
    /// The gate: findings at or above this severity block the approval.
    pub fail_on: Severity,
    /// Record a new approval even when nothing changed, and replace an unreadable lock.
    pub force: bool,
}

/// What [`approve`] did.
#[derive(Debug, Clone, PartialEq)]
pub enum LockOutcome {
    /// A new or changed lock was written.
    Written {
        path: PathBuf,
        lock: Lockfile,
        /// The content hash of the lock it replaced, if any.
        previous: Option<String>,
        /// The previous file was unreadable or tampered with and was replaced (`--force`).
        replaced_invalid: bool,
    },
    /// Nothing changed: the existing lock (and its approval) stays as it is.
    Unchanged { path: PathBuf, lock: Lockfile },
}

/// Approve one server: gate its findings, then write its lock to `dir` unless an existing,
/// valid lock already records the same content.
///
/// `findings` are the audit's findings (any server; only this server's count). A finding an
/// existing lock of identical content already accepted does not block again.
pub fn approve(
    dir: &Path,
    snapshot: &ServerSnapshot,
    spec: Option<&ServerSpec>,
    findings: &[Finding],
    opts: &ApproveOptions,
) -> Result<LockOutcome, LockError> {
    let mut candidate = Lockfile::from_snapshot(snapshot, spec, Approval::new(&opts.by, &opts.at));
    let path = path_for(dir, &candidate.server);
    let mut replaced_invalid = false;
    let existing = if path.exists() {
        match Lockfile::read_for(dir, &candidate.server).and_then(|l| {
            l.ok_or_else(|| LockError::Io {
                path: path.display().to_string(),
                source: std::io::Error::from(std::io::ErrorKind::NotFound),
            })
        }) {
            Ok(l) => Some(l),
            Err(e @ (LockError::Io { .. } | LockError::Write { .. })) => return Err(e),
            Err(_) if opts.force => {
                replaced_invalid = true;
                None
            }
            Err(e) => return Err(e),
        }
    } else {
        None
    };
    // Locking from a snapshot file says nothing about the launch: keep the approved one.
    if let (None, Some(e)) = (spec, existing.as_ref()) {
        if e.launch.is_some() {
            candidate = candidate.with_launch(e.launch.clone());
        }
    }
    let same_content = existing
        .as_ref()
        .filter(|e| e.content_sha256 == candidate.content_sha256);
    let server = candidate.server.clone();
    let gate: Vec<&Finding> = findings
        .iter()
        .filter(|f| f.server == server || f.server == snapshot.server)
        .filter(|f| f.severity >= opts.fail_on)
        .filter(|f| !same_content.is_some_and(|e| e.approval.covers(f)))
        .collect();
    if let (Some(existing), false, true) = (same_content, opts.force, gate.is_empty()) {
        return Ok(LockOutcome::Unchanged {
            path,
            lock: existing.clone(),
        });
    }
    let accepted = if gate.is_empty() {
        Vec::new()
    } else if let Some(reason) = &opts.accept {
        let mut v: Vec<AcceptedFinding> = gate
            .iter()
            .map(|f| AcceptedFinding::from_finding(f, reason))
            .collect();
        v.sort_by(|a, b| {
            (&a.rule, &a.item, &a.pointer, &a.message)
                .cmp(&(&b.rule, &b.item, &b.pointer, &b.message))
        });
        v.dedup();
        v
    } else {
        let mut names: Vec<String> = gate
            .iter()
            .map(|f| match &f.item {
                Some(i) => format!("{} ({} `{}`)", f.rule, kind_word(i.kind), i.name),
                None => f.rule.clone(),
            })
            .collect();
        names.sort();
        names.dedup();
        return Err(LockError::Refused {
            server,
            count: gate.len(),
            fail_on: opts.fail_on,
            summary: names.join(", "),
        });
    };
    // Acceptances the previous approval recorded for this same content stay recorded.
    let mut all_accepted = same_content.map_or_else(Vec::new, |e| e.approval.accepted.clone());
    for a in accepted {
        if !all_accepted.contains(&a) {
            all_accepted.push(a);
        }
    }
    candidate = candidate.with_approval(Approval {
        by: opts.by.clone(),
        at: opts.at.clone(),
        note: opts.note.clone(),
        accepted: all_accepted,
    });
    let previous = existing.map(|e| e.content_sha256);
    let path = candidate.write_atomic(dir)?;
    Ok(LockOutcome::Written {
        path,
        lock: candidate,
        previous,
        replaced_invalid,
    })
}
