//! Sections 3 and 4 of the review: annotations are claims, not guarantees; output is data.

use serde_json::Value;

use super::decision::first;
use super::markdown::{Md, md_code, quote};
use super::render::Review;
use crate::model::finding::ItemKind;
use crate::model::rule_id;
use crate::model::snapshot::ServerSnapshot;
use crate::report::text::sentence;

/// Every annotated tool with its claims and the findings that contradict them.
pub(super) fn annotations(r: &Review, md: &mut Md) {
    md.line("## 3. Annotations are claims, not guarantees");
    md.blank();
    md.line(
        "Hints such as `readOnlyHint` are what the server says about its own tools. Hosts use \
         them to decide whether to ask before a call, but no hint limits what the code can do, \
         so they count only as far as the code was reviewed.",
    );
    md.blank();
    let annotated: Vec<(&str, &Value)> = r
        .server
        .snapshot
        .iter()
        .flat_map(|x| x.tools.iter())
        .filter_map(|t| {
            t.get("annotations")
                .filter(|a| a.as_object().is_some_and(|m| !m.is_empty()))
                .map(|a| (ServerSnapshot::item_name(t), a))
        })
        .collect();
    if annotated.is_empty() {
        md.line(
            "No tool carries annotations: hosts assume every tool may write, delete and reach the outside world.",
        );
    } else {
        md.line("| tool | claims | contradicted by |");
        md.line("|---|---|---|");
        for (name, ann) in annotated {
            annotation_row(r, name, ann, md);
        }
    }
    md.blank();
}

/// One tool's row of the annotations table.
fn annotation_row(r: &Review, name: &str, ann: &Value, md: &mut Md) {
    let claims: Vec<String> = ann
        .as_object()
        .into_iter()
        .flat_map(|m| m.iter())
        .filter(|(k, _)| k.as_str() != "title")
        .map(|(k, v)| md_code(&format!("{k}: {v}")))
        .collect();
    let against: Vec<String> = r
        .findings
        .iter()
        .filter(|f| {
            f.item
                .as_ref()
                .is_some_and(|i| i.kind == ItemKind::Tool && i.name == name)
                && matches!(
                    f.rule.as_str(),
                    rule_id::READONLY_CLAIM_MISMATCH | rule_id::SHELL_EXECUTION_TOOL
                )
        })
        .map(|f| f.rule.clone())
        .collect();
    md.line(&format!(
        "| {} | {} | {} |",
        md_code(name),
        claims.join(", "),
        if against.is_empty() {
            "nothing found".into()
        } else {
            format!("**{}**", against.join(", "))
        }
    ));
}

/// Why output is data, the output samples as the model receives them, and what to do instead
/// when the proposal marks the output as trusted.
pub(super) fn output_is_data(r: &Review, md: &mut Md) {
    md.line("## 4. Output is data");
    md.blank();
    md.line(
        "Even a trustworthy server returns text that other people wrote — issue bodies, log \
         lines, test names — and that text can carry instructions. The host must treat every \
         tool result as data; filtering out text that looks like an instruction cannot make it \
         trusted, because no filter recognises every way to phrase one.",
    );
    md.blank();
    for sample in &r.server.output_samples {
        let from = sample
            .source
            .as_ref()
            .map(|p| format!(" (saved in {})", md_code(&p.display().to_string())))
            .unwrap_or_default();
        md.line(&format!(
            "Output of {}{from} as the model receives it:",
            md_code(&sample.tool)
        ));
        md.blank();
        md.block(&quote(&sample.text));
        md.blank();
    }
    if let Some(f) = first(r.findings, &[rule_id::AUTO_TRUST]) {
        md.line(&format!(
            "**This proposal marks the server's output as trusted.** {} Trust removes the \
             confirmation that stops an instruction planted in the output from becoming a \
             tool call.",
            sentence(&f.message)
        ));
        md.blank();
        md.line(
            "Stripping text that looks like an instruction does not earn that trust: a filter \
             knows the phrasings it was written for, while the people who write the data (test \
             names, issue titles, log lines) can phrase an instruction any way they like, in any \
             language or encoding. Instead:",
        );
        md.blank();
        for line in [
            "- keep the output untrusted: the host passes it to the model as data and never \
             auto-approves the calls it suggests;",
            "- keep confirmation on every sensitive tool of every server (deploys, writes, \
             shells), so an instruction in the output cannot act on its own;",
            "- return the free text as structured data (`structuredContent` fields) so hosts and \
             people can see where data starts and ends;",
            "- where the source system allows it, restrict who can set the text and what it may \
             contain (e.g. test names matching a pattern).",
        ] {
            md.line(line);
        }
        md.blank();
    }
}
