//! The markdown trust review of one server: the sections in order, and the opening (title,
//! decision line and summary table). Each later section has its own function in a sibling
//! file; all of them read the same [`Review`].

use serde_json::Value;

use super::decision::{Assessment, Decision, decide};
use super::markdown::{Md, code_list, md_cell, md_code, md_name};
use super::{claims, conclusion, reads, runs};
use crate::model::finding::{Finding, Severity};
use crate::report::model::{ScanReport, ServerReport};

/// What every section of one server's review reads.
pub(super) struct Review<'a> {
    pub(super) report: &'a ScanReport,
    pub(super) server: &'a ServerReport,
    /// The server's findings, worst first.
    pub(super) findings: &'a [&'a Finding],
    pub(super) assessment: &'a Assessment,
}

/// One section of the review.
type Section = fn(&Review, &mut Md);

/// The review's sections, in order.
const SECTIONS: &[Section] = &[
    opening,
    summary,
    runs::what_runs,
    reads::what_the_model_reads,
    claims::annotations,
    claims::output_is_data,
    conclusion::risks,
    conclusion::decision,
    conclusion::controls,
    conclusion::checklist,
];

/// Render the markdown trust review of one server in the report, or `None` if the report has
/// no server (and no finding) by that name.
pub fn render_review(report: &ScanReport, server: &str) -> Option<String> {
    let report = &report.redacted();
    let fallback;
    let s = match report.server(server) {
        Some(s) => s,
        None if report.findings.iter().any(|f| f.server == server) => {
            fallback = ServerReport::new(server, None, None);
            &fallback
        }
        None => return None,
    };
    let findings = report.findings_for(server);
    let assessment = decide(s, &findings, report.fail_on);
    let review = Review {
        report,
        server: s,
        findings: &findings,
        assessment: &assessment,
    };
    let mut md = Md::default();
    for section in SECTIONS {
        section(&review, &mut md);
    }
    Some(crate::model::redact::redact_text(&md.into_string()))
}

/// Title, the decision in one line, and who wrote the review from what.
fn opening(r: &Review, md: &mut Md) {
    let decision = r.assessment.decision;
    md.line(&format!("# Trust review: {}", md_name(&r.server.name)));
    md.blank();
    md.line(&format!(
        "**Decision: {}.** {}",
        decision.label(),
        match decision {
            Decision::Accept => "The server may be installed with the team's standard controls.",
            Decision::AcceptWithConditions =>
                "The server may be installed once the controls marked *required first* are in place.",
            Decision::Reject => "The server must not be installed as proposed.",
        }
    ));
    md.blank();
    md.line(&format!(
        "*Written by {} {} from the server's configuration and the definitions it shows the \
         model. Findings are judged at `--fail-on {}`. Re-run `mcpvet review` after any change.*",
        r.report.tool.name, r.report.tool.version, r.report.fail_on
    ));
    md.blank();
    if r.report.unsandboxed.iter().any(|n| n == &r.server.name) {
        md.line(
            "> **Warning: probed WITHOUT the sandbox (`--no-sandbox`).** The server ran with the \
             reviewer's full access to files, network and processes while it was listed; what it \
             did then is not part of this review.",
        );
        md.blank();
    }
}

/// The summary table: what runs, where configured, pinning, credentials, server, findings,
/// lock.
fn summary(r: &Review, md: &mut Md) {
    let s = r.server;
    md.line("| | |");
    md.line("|---|---|");
    md.line(&format!("| Runs | {} |", md_cell(&md_code(&s.what_runs()))));
    if let Some(spec) = &s.spec {
        let at = spec
            .origin
            .as_ref()
            .map(|o| format!(" at {}", md_code(&o.to_string())))
            .unwrap_or_default();
        md.line(&format!("| Configured in | {}{at} |", spec.host));
    }
    md.line(&format!("| Pinned | {} |", md_cell(&s.pinning.label())));
    let creds = s.credential_sources();
    md.line(&format!(
        "| Credentials | {} |",
        if creds.is_empty() {
            "none".to_owned()
        } else {
            md_cell(&code_list(&creds))
        }
    ));
    if let Some(snap) = &s.snapshot {
        let info = snap
            .server_info
            .as_ref()
            .map(|i| {
                format!(
                    "{} {}",
                    i.get("name").and_then(Value::as_str).unwrap_or("?"),
                    i.get("version").and_then(Value::as_str).unwrap_or("")
                )
                .trim()
                .to_owned()
            })
            .unwrap_or_else(|| "(no serverInfo)".into());
        md.line(&format!(
            "| Server | {} — {} |",
            md_cell(&info),
            s.era_label()
        ));
    }
    if let Some(e) = &s.error {
        md.line(&format!("| Probe | failed: {} |", md_cell(e)));
    }
    md.line(&format!("| Findings | {} |", finding_counts(r)));
    md.line(&format!("| Lock | {} |", s.lock.as_str()));
    md.blank();
}

/// `2 high, 1 medium`, worst first, or `none`.
fn finding_counts(r: &Review) -> String {
    let c = r.report.counts(Some(&r.server.name));
    let counts: Vec<String> = Severity::ALL
        .iter()
        .rev()
        .filter(|x| c[**x as usize] > 0)
        .map(|x| format!("{} {}", c[*x as usize], x))
        .collect();
    if counts.is_empty() {
        "none".into()
    } else {
        counts.join(", ")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unknown_server_has_no_review() {
        let r = ScanReport::new(vec![], vec![], Severity::High);
        assert!(render_review(&r, "nope").is_none());
    }
}
