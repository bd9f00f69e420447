//! What the trust review concludes about a server: the [`Decision`], the reasons for it, the
//! changes that would alter it, and the controls it requires ([`Assessment`]).
//!
//! Pure functions over the report data that return plain data; nothing here writes markdown
//! (that is [`super::render`]). [`decide`] is separate so `scan`/`check` can reuse it.

use super::controls::controls;
use crate::model::finding::{Control, Finding, Severity};
use crate::model::rule_id;
use crate::report::model::{LockState, Pinning, ScanReport, ServerReport};

/// The reviewer's decision about a server as proposed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Decision {
    /// Acceptable as proposed; the team's standard controls apply.
    Accept,
    /// Acceptable only once the blocking controls are in place.
    AcceptWithConditions,
    /// Must not be installed as proposed.
    Reject,
}

impl Decision {
    /// The decision in words ("Accept with conditions").
    pub fn label(self) -> &'static str {
        match self {
            Decision::Accept => "Accept",
            Decision::AcceptWithConditions => "Accept with conditions",
            Decision::Reject => "Reject",
        }
    }
}

/// How a control stands for this server.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum ControlStatus {
    /// Must be in place before the server may be installed (it is what changes the decision).
    Blocking,
    /// Applies to every server the team installs; do it as part of the install.
    Standard,
    /// mcpvet verified it is already in place.
    InPlace,
}

/// One control the decision requires, with the server-specific reason.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct RequiredControl {
    pub control: Control,
    pub status: ControlStatus,
    /// Why, for this server, in one or two sentences.
    pub detail: String,
}

/// The decision with its reasons and controls.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Assessment {
    pub decision: Decision,
    /// Why the decision is what it is (one line each).
    pub reasons: Vec<String>,
    /// For a rejection or conditions: the changes that would make the server acceptable.
    pub would_change: Vec<String>,
    /// Every control, in the trust model's order.
    pub controls: Vec<RequiredControl>,
}

/// The change that resolves a rule's finding, where a rule needs more than its control's advice.
pub(super) fn remedy(rule: &str) -> Option<&'static str> {
    Some(match rule {
        rule_id::READONLY_CLAIM_MISMATCH => {
            "Drop the false `readOnlyHint: true` (declare `readOnlyHint: false`, \
             `destructiveHint: true`) so every host asks before each call."
        }
        rule_id::SHELL_EXECUTION_TOOL => {
            "Replace the free-form command with a narrow tool whose arguments are validated \
             (e.g. rerun one named test of one pipeline); if a shell is truly needed, confirm \
             every call and run it in a sandbox."
        }
        rule_id::CROSS_TOOL_INSTRUCTION | rule_id::HIDDEN_INSTRUCTIONS => {
            "The definition must be fixed upstream — a tool describes what it does and gives \
             the model no orders — and the fixed version re-reviewed from its snapshot."
        }
        rule_id::SENSITIVE_FILE_REFERENCE => {
            "No definition may point the model at local secret files; run the server in a \
             sandbox that cannot read the home folder."
        }
        rule_id::UNPINNED_PACKAGE => {
            "Pin an exact version (`package@x.y.z`, `pkg==x.y.z` or an image digest) and verify \
             its integrity before every upgrade."
        }
        rule_id::BROAD_CREDENTIAL => {
            "Issue a dedicated token for this server with the narrowest scope its tools need \
             (read-only, only the projects in use) instead of a personal or admin token."
        }
        rule_id::AUTO_TRUST => {
            "Remove the trust / auto-approve setting and keep the server's output untrusted. \
             Stripping instruction-like text does not make output safe: output is data that \
             other people write, and no filter recognises every instruction."
        }
        rule_id::LITERAL_SECRET => {
            "Rotate the secret, remove it from the config, and reference it from the environment \
             or a secret store."
        }
        _ => return None,
    })
}

/// Whether any finding is of one of `rules`.
fn has(findings: &[&Finding], rules: &[&str]) -> bool {
    findings.iter().any(|f| rules.contains(&f.rule.as_str()))
}

/// The first finding of one of `rules`, in the findings' order.
pub(super) fn first<'a>(findings: &[&'a Finding], rules: &[&str]) -> Option<&'a Finding> {
    findings
        .iter()
        .copied()
        .find(|f| rules.contains(&f.rule.as_str()))
}

/// Decide about one server from its facts and its findings (after policy).
///
/// Reject when the server could not be probed or any finding reaches `fail_on`; accept with
/// conditions when findings below the gate (or an unpinned launch) need a control first;
/// accept otherwise. Controls come in the trust model's order, each marked blocking, standard
/// or in place.
pub fn decide(server: &ServerReport, findings: &[&Finding], fail_on: Severity) -> Assessment {
    let gated: Vec<&Finding> = findings
        .iter()
        .copied()
        .filter(|f| f.severity >= fail_on)
        .collect();
    let below: Vec<&Finding> = findings
        .iter()
        .copied()
        .filter(|f| f.severity < fail_on && f.severity > Severity::Info)
        .collect();
    let facts = Facts {
        server,
        findings,
        gated: &gated,
        below: &below,
        unpinned: matches!(server.pinning, Pinning::Unpinned { .. }),
        drifted: server.lock == LockState::Drifted,
    };
    let mut reasons = Vec::new();
    let mut would_change = Vec::new();
    let decision = conclude(&facts, fail_on, &mut reasons, &mut would_change);
    if decision != Decision::Accept {
        changes(&facts, &mut would_change);
    }
    Assessment {
        decision,
        reasons,
        would_change,
        controls: controls(server, findings),
    }
}

/// What [`decide`] weighs: the server, its findings, and those at and below the gate.
struct Facts<'a> {
    server: &'a ServerReport,
    findings: &'a [&'a Finding],
    /// Findings at or above the gate.
    gated: &'a [&'a Finding],
    /// Findings below the gate and above info.
    below: &'a [&'a Finding],
    unpinned: bool,
    drifted: bool,
}

/// The decision, with a reason per line; an unprobed server also gets its one change.
fn conclude(
    facts: &Facts,
    fail_on: Severity,
    reasons: &mut Vec<String>,
    would_change: &mut Vec<String>,
) -> Decision {
    let finding_reason = |f: &&Finding| format!("{} ({}): {}", f.rule, f.severity, f.message);
    if let Some(e) = &facts.server.error {
        reasons.push(format!(
            "The server could not be probed ({e}), so what it shows the model is unknown."
        ));
        would_change
            .push("Probe it successfully (or review a saved snapshot) before deciding.".to_owned());
        Decision::Reject
    } else if !facts.gated.is_empty() {
        reasons.extend(facts.gated.iter().map(finding_reason));
        Decision::Reject
    } else if !facts.below.is_empty() || facts.unpinned || facts.drifted {
        reasons.extend(facts.below.iter().map(finding_reason));
        if facts.unpinned && !has(facts.findings, &[rule_id::UNPINNED_PACKAGE]) {
            reasons.push(format!(
                "What runs is not pinned: {}.",
                facts.server.pinning.label()
            ));
        }
        if facts.drifted {
            reasons.push(
                "The definitions changed since they were approved (lockfile drift).".to_owned(),
            );
        }
        Decision::AcceptWithConditions
    } else {
        reasons.push(format!(
            "No finding at or above the gate ({fail_on}) and nothing that needs a control first."
        ));
        Decision::Accept
    }
}

/// The changes that would make a rejected or conditional server acceptable: each rule's
/// remedy once (gated first), then pinning and re-approval where they apply.
fn changes(facts: &Facts, would_change: &mut Vec<String>) {
    let mut seen = Vec::new();
    for f in facts.gated.iter().chain(facts.below.iter()) {
        if seen.contains(&f.rule) {
            continue;
        }
        seen.push(f.rule.clone());
        let text = remedy(&f.rule).unwrap_or_else(|| f.control.advice());
        if !would_change.iter().any(|w| w == text) {
            would_change.push(text.to_owned());
        }
    }
    if facts.unpinned && !seen.iter().any(|r| r == rule_id::UNPINNED_PACKAGE) {
        if let Some(r) = remedy(rule_id::UNPINNED_PACKAGE) {
            would_change.push(r.to_owned());
        }
    }
    if facts.drifted {
        would_change.push(
            "Review the changes (`mcpvet diff`) and re-approve with `mcpvet lock`.".to_owned(),
        );
    }
}

/// [`decide`] for a server of the report by name (findings and gate from the report).
pub fn assess(report: &ScanReport, server: &str) -> Option<Assessment> {
    let s = report.server(server)?;
    Some(decide(s, &report.findings_for(server), report.fail_on))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::finding::{Confidence, Location};

    fn finding(rule: &str, sev: Severity, control: Control) -> Finding {
        Finding {
            rule: rule.into(),
            severity: sev,
            confidence: Confidence::High,
            server: "s".into(),
            item: None,
            location: Location::default(),
            message: format!("{rule} found"),
            evidence: None,
            control,
        }
    }

    #[test]
    fn gate_decides_reject_below_gate_needs_conditions_clean_accepts() {
        let s = ServerReport::new("s", None, None);
        let high = finding("auto-trust", Severity::High, Control::TreatAsUntrusted);
        let med = finding(
            "shell-execution-tool",
            Severity::Medium,
            Control::ConfirmSensitiveCalls,
        );
        let info = finding("x", Severity::Info, Control::AuditLog);
        assert_eq!(
            decide(&s, &[&high, &med], Severity::High).decision,
            Decision::Reject
        );
        assert_eq!(
            decide(&s, &[&med], Severity::High).decision,
            Decision::AcceptWithConditions
        );
        // The gate is configurable: at --fail-on critical a high finding is a condition.
        assert_eq!(
            decide(&s, &[&high], Severity::Critical).decision,
            Decision::AcceptWithConditions
        );
        assert_eq!(
            decide(&s, &[&info], Severity::High).decision,
            Decision::Accept
        );
        assert_eq!(decide(&s, &[], Severity::High).decision, Decision::Accept);
    }

    #[test]
    fn rejection_names_what_would_change_it_and_blocks_the_controls() {
        let s = ServerReport::new("s", None, None);
        let high = finding(
            "readonly-claim-mismatch",
            Severity::High,
            Control::TreatAsUntrusted,
        );
        let a = decide(&s, &[&high], Severity::High);
        assert!(a.would_change.iter().any(|w| w.contains("readOnlyHint")));
        let blocking: Vec<Control> = a
            .controls
            .iter()
            .filter(|c| c.status == ControlStatus::Blocking)
            .map(|c| c.control)
            .collect();
        assert!(blocking.contains(&Control::ConfirmSensitiveCalls));
        assert!(blocking.contains(&Control::TreatAsUntrusted));
    }

    #[test]
    fn unprobed_server_is_rejected_and_unpinned_needs_a_pin() {
        let mut s = ServerReport::new("s", None, None);
        s.error = Some("timed out".into());
        assert_eq!(decide(&s, &[], Severity::High).decision, Decision::Reject);
        let mut s = ServerReport::new("s", None, None);
        s.pinning = Pinning::Unpinned {
            reference: "x@latest".into(),
        };
        let a = decide(&s, &[], Severity::High);
        assert_eq!(a.decision, Decision::AcceptWithConditions);
        assert!(
            a.controls
                .iter()
                .any(|c| c.control == Control::PinVersion && c.status == ControlStatus::Blocking)
        );
    }
}
