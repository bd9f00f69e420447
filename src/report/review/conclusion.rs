//! Sections 5 to 8 of the review: each risk, the decision, the controls required, and the
//! team's pre-install checklist.

use super::decision::{Decision, remedy};
use super::markdown::{Md, control_title, md_cell, md_code, status_label};
use super::render::Review;
use crate::model::finding::Finding;
use crate::report::model::{LockState, Pinning};
use crate::report::text::sentence;

/// One subsection per finding, worst first.
pub(super) fn risks(r: &Review, md: &mut Md) {
    md.line("## 5. Risks");
    md.blank();
    if r.findings.is_empty() {
        md.line("mcpvet found no risk in the configuration or the definitions.");
        md.blank();
    }
    for f in r.findings {
        risk(r, f, md);
    }
}

/// A finding: heading, message, where, confidence, why it matters, the control.
fn risk(r: &Review, f: &Finding, md: &mut Md) {
    md.line(&format!(
        "### {} — {}{}",
        f.severity.as_str().to_uppercase(),
        md_code(&f.rule),
        super::markdown::item_code(f)
            .map(|l| format!(" ({l})"))
            .unwrap_or_default()
    ));
    md.blank();
    md.line(&sentence(&f.message));
    md.blank();
    let mut wher = Vec::new();
    if let Some(o) = &f.location.config {
        wher.push(md_code(&o.to_string()));
    }
    if let Some(p) = &f.location.pointer {
        wher.push(md_code(p));
    }
    if !wher.is_empty() {
        md.line(&format!("- Where: {}", wher.join(", ")));
    }
    md.line(&format!("- Confidence: {}", f.confidence));
    if let Some(meta) = r.report.rule(&f.rule) {
        md.line(&format!("- Why it matters: {}", meta.why));
    }
    md.line(&format!(
        "- Control: {}",
        remedy(&f.rule).unwrap_or_else(|| f.control.advice())
    ));
    md.blank();
}

/// The decision, its reasons, and the conditions or what would change it.
pub(super) fn decision(r: &Review, md: &mut Md) {
    let a = r.assessment;
    md.line(&format!("## 6. Decision: {}", a.decision.label()));
    md.blank();
    for reason in &a.reasons {
        md.line(&format!("- {}", sentence(reason)));
    }
    md.blank();
    if !a.would_change.is_empty() {
        md.line(match a.decision {
            Decision::Reject => "What would change the decision:",
            _ => "Conditions:",
        });
        md.blank();
        for w in &a.would_change {
            md.line(&format!("- {w}"));
        }
        md.blank();
    }
}

/// The controls table.
pub(super) fn controls(r: &Review, md: &mut Md) {
    md.line("## 7. Controls required");
    md.blank();
    md.line("| control | status | for this server |");
    md.line("|---|---|---|");
    for c in &r.assessment.controls {
        md.line(&format!(
            "| {} | {} | {} |",
            control_title(c.control),
            status_label(c.status),
            md_cell(&c.detail)
        ));
    }
    md.blank();
}

/// The team's pre-install checklist, with the boxes mcpvet could verify ticked.
pub(super) fn checklist(r: &Review, md: &mut Md) {
    let s = r.server;
    let fail_on = r.report.fail_on;
    md.line("## 8. Pre-install checklist");
    md.blank();
    md.line(
        "The team applies this before anyone installs a third-party MCP server. Boxes mcpvet \
         could verify are ticked; the rest need a person.",
    );
    md.blank();
    let gated = r.findings.iter().any(|f| f.severity >= fail_on);
    let pinned = matches!(s.pinning, Pinning::Pinned { .. });
    let check = |b: bool| if b { "[x]" } else { "[ ]" };
    let items = [
        (
            false,
            "Read the source and every definition the server shows the model (`mcpvet snapshot`, this review).".to_owned(),
        ),
        (
            pinned,
            "The launch command pins an exact version or digest, and its integrity was verified.".to_owned(),
        ),
        (
            !gated && s.error.is_none() && s.snapshot.is_some(),
            format!("`mcpvet scan` reports nothing at or above `--fail-on {fail_on}`."),
        ),
        (
            false,
            "It gets a dedicated credential with the narrowest scope its tools need — never a personal or admin token.".to_owned(),
        ),
        (
            false,
            "It runs sandboxed: no access to the home folder or other repositories, network limited to what it needs.".to_owned(),
        ),
        (
            false,
            "Sensitive calls need confirmation; no `trust`, `alwaysAllow` or auto-approve for it, whatever its annotations say.".to_owned(),
        ),
        (
            s.lock == LockState::Locked,
            "Its definitions are locked (`mcpvet lock`), the lockfile is committed, and CI runs `mcpvet diff`.".to_owned(),
        ),
        (
            false,
            "It is on the team allowlist (`mcpvet.toml`) with the reason it was approved.".to_owned(),
        ),
        (
            false,
            "Tool calls are logged, and someone owns re-reviewing it on every upgrade.".to_owned(),
        ),
    ];
    for (ok, text) in items {
        md.line(&format!("- {} {text}", check(ok)));
    }
}
