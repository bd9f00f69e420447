//! The controls a review requires of one server, in the trust model's order, each marked
//! blocking (a finding calls for it first), standard (every install) or in place (verified).

use super::decision::{ControlStatus, RequiredControl, first};
use super::markdown::md_code;
use crate::model::finding::{Control, Finding};
use crate::model::rule_id;
use crate::model::spec::Transport;
use crate::report::model::{LockState, Pinning, ServerReport};
use crate::report::text::sentence;

/// How one control stands for this server, and why.
type Standing = (ControlStatus, String);

/// Every control for `server`: the trust model's list, then anything else a finding asks for
/// (e.g. secure transport), blocking.
pub(super) fn controls(server: &ServerReport, findings: &[&Finding]) -> Vec<RequiredControl> {
    let mut out: Vec<RequiredControl> = [
        (Control::ReviewDefinitions, review_definitions(findings)),
        (Control::PinVersion, pin_version(server)),
        (
            Control::LeastPrivilegeCredential,
            credential(server, findings),
        ),
        (Control::Sandbox, sandbox(server, findings)),
        (Control::LockAndReapprove, lock(server)),
        (Control::ConfirmSensitiveCalls, confirmation(findings)),
        (Control::TreatAsUntrusted, untrusted(findings)),
        (
            Control::Allowlist,
            standard(&format!(
                "Add {} to the team allowlist (`mcpvet.toml`) with the reason it was approved.",
                md_code(&server.name)
            )),
        ),
        (
            Control::AuditLog,
            standard("Log the tool calls it receives so unnoticed actions can be traced."),
        ),
    ]
    .into_iter()
    .map(|(control, (status, detail))| RequiredControl {
        control,
        status,
        detail,
    })
    .collect();
    for f in findings {
        if !out.iter().any(|c| c.control == f.control) && f.control != Control::Reject {
            out.push(RequiredControl {
                control: f.control,
                status: ControlStatus::Blocking,
                detail: sentence(&f.message),
            });
        }
    }
    out
}

fn standard(detail: &str) -> Standing {
    (ControlStatus::Standard, detail.to_owned())
}

/// Blocking when a finding of one of `rules` is present: its message, then `then`.
fn flagged(findings: &[&Finding], rules: &[&str], then: &str) -> Option<Standing> {
    first(findings, rules).map(|f| {
        (
            ControlStatus::Blocking,
            format!("{} {then}", sentence(&f.message)),
        )
    })
}

/// Review the definitions.
fn review_definitions(findings: &[&Finding]) -> Standing {
    flagged(
        findings,
        &[
            rule_id::HIDDEN_INSTRUCTIONS,
            rule_id::CROSS_TOOL_INSTRUCTION,
        ],
        "Definitions that give the model orders are rejected, not worked around.",
    )
    .unwrap_or_else(|| {
        standard("Read the source and every definition in this review before approving.")
    })
}

/// Pin and verify.
fn pin_version(server: &ServerReport) -> Standing {
    match &server.pinning {
        Pinning::Unpinned { reference } => (
            ControlStatus::Blocking,
            format!(
                "{} resolves to whatever is newest at each launch; pin an exact \
                 version and verify its integrity.",
                md_code(reference)
            ),
        ),
        Pinning::Pinned { reference } => (
            ControlStatus::InPlace,
            format!(
                "Pinned to {}; verify integrity on every upgrade.",
                md_code(reference)
            ),
        ),
        Pinning::LocalCommand => standard(&format!(
            "{} is a program already on the machine: install it from a reviewed, \
             versioned release.",
            md_code(&server.what_runs())
        )),
        Pinning::Remote => {
            standard("A remote server cannot be pinned; rely on the lockfile to notice changes.")
        }
        Pinning::Unknown => {
            standard("The launch command is not known here; pin it where the server is configured.")
        }
    }
}

/// A dedicated, least-privilege credential.
fn credential(server: &ServerReport, findings: &[&Finding]) -> Standing {
    let creds = server.credential_sources();
    if let Some(s) = flagged(
        findings,
        &[rule_id::BROAD_CREDENTIAL, rule_id::LITERAL_SECRET],
        "Replace it with a dedicated, least-privilege credential.",
    ) {
        s
    } else if creds.is_empty() {
        (
            ControlStatus::InPlace,
            "The config passes no credentials.".to_owned(),
        )
    } else {
        standard(&format!(
            "{}: use a token issued for this server alone, with the narrowest scope its \
             tools need.",
            creds.join(", ")
        ))
    }
}

/// Sandbox: limited file and network access.
fn sandbox(server: &ServerReport, findings: &[&Finding]) -> Standing {
    let stdio = matches!(
        server.spec.as_ref().map(|s| &s.transport),
        Some(Transport::Stdio { .. }) | None
    );
    if let Some(s) = flagged(
        findings,
        &[
            rule_id::SENSITIVE_FILE_REFERENCE,
            rule_id::SHELL_EXECUTION_TOOL,
        ],
        "Run it with no access to the home folder and no network beyond what it needs.",
    ) {
        s
    } else if stdio {
        standard(
            "It runs as a local process with the developer's privileges; limit its file and \
             network access.",
        )
    } else {
        standard("A remote server runs elsewhere; limit what the token it receives can reach.")
    }
}

/// Lock the definitions and re-approve on change.
fn lock(server: &ServerReport) -> Standing {
    match server.lock {
        LockState::Locked => (
            ControlStatus::InPlace,
            "The definitions match the approved lockfile; `mcpvet diff` in CI catches changes."
                .to_owned(),
        ),
        LockState::Drifted => (
            ControlStatus::Blocking,
            "The definitions differ from the approved lockfile: review `mcpvet diff` and \
             re-approve."
                .to_owned(),
        ),
        LockState::Unlocked | LockState::NotApplicable => standard(&format!(
            "Record the approved definitions with {}, commit the lockfile and \
             run `mcpvet diff` in CI.",
            md_code(&format!("mcpvet lock {}", server.name))
        )),
    }
}

/// Confirmation for sensitive calls.
fn confirmation(findings: &[&Finding]) -> Standing {
    flagged(
        findings,
        &[
            rule_id::READONLY_CLAIM_MISMATCH,
            rule_id::SHELL_EXECUTION_TOOL,
            rule_id::AUTO_TRUST,
        ],
        "Hosts must ask before each such call; no auto-approval.",
    )
    .unwrap_or_else(|| {
        standard(
            "Keep the host's confirmation prompt on; annotations do not justify auto-approval.",
        )
    })
}

/// Treat output and annotations as untrusted.
fn untrusted(findings: &[&Finding]) -> Standing {
    flagged(
        findings,
        &[rule_id::AUTO_TRUST, rule_id::READONLY_CLAIM_MISMATCH],
        "Output and annotations are data, never instructions.",
    )
    .unwrap_or_else(|| {
        standard("Tool output can carry text other people wrote; the host treats it as data.")
    })
}
