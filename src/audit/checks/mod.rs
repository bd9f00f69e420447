//! Coded checks: what regexes cannot do, one check per file, each with its documentation.
//!
//! Three kinds, run by the engine:
//! - *cue* checks add evidence to an item that the engine combines with the pattern hits
//!   (`cross_tool`, `invisible_unicode`, `encoded_payload`, `exfil_params`, `name_marketing`);
//! - *item* checks judge one definition on its own (`readonly_mismatch`, `shell_execution`,
//!   `network_schema_ref`, `secret_parameter`, `open_input_schema`, `oversized`,
//!   `confusable_name`);
//! - *scan* checks compare the servers of one scan (`name_collision`, `duplicate_definition`).

use crate::audit::engine::{Hit, Scan};
use crate::model::finding::{Confidence, Control, Finding, RuleMeta, Severity};
use crate::model::rule_id;

pub mod confusable_name;
pub mod cross_tool;
pub mod duplicate_definition;
pub mod encoded_payload;
pub mod exfil_params;
pub mod invisible_unicode;
pub mod name_collision;
pub mod name_marketing;
pub mod network_schema_ref;
pub mod open_input_schema;
pub mod oversized;
pub mod readonly_mismatch;
pub mod secret_parameter;
pub mod shell_execution;

/// Rule ids owned by coded checks (pattern files may not define them).
pub const CODED_RULES: &[&str] = &[
    rule_id::INVISIBLE_UNICODE,
    rule_id::CONFUSABLE_NAME,
    rule_id::ENCODED_PAYLOAD,
    rule_id::READONLY_CLAIM_MISMATCH,
    rule_id::SHELL_EXECUTION_TOOL,
    rule_id::NETWORK_SCHEMA_REF,
    rule_id::SECRET_PARAMETER,
    rule_id::OPEN_INPUT_SCHEMA,
    rule_id::TOOL_NAME_COLLISION,
    rule_id::DUPLICATE_TOOL_DEFINITION,
    rule_id::OVERSIZED_DEFINITION,
];

#[allow(clippy::too_many_arguments)]
pub(crate) fn meta(
    id: &str,
    summary: &str,
    why: &str,
    example: &str,
    severity: Severity,
    confidence: Confidence,
    control: Control,
) -> RuleMeta {
    RuleMeta::new(
        id,
        "definition",
        summary,
        why,
        example,
        severity,
        confidence,
        control,
    )
}

/// Documentation of the coded rules.
pub fn coded_rule_docs() -> Vec<RuleMeta> {
    vec![
        invisible_unicode::meta(),
        confusable_name::meta(),
        encoded_payload::meta(),
        readonly_mismatch::meta(),
        shell_execution::meta(),
        network_schema_ref::meta(),
        secret_parameter::meta(),
        open_input_schema::meta(),
        name_collision::meta(),
        duplicate_definition::meta(),
        oversized::meta(),
    ]
}

/// Checks that add evidence to items.
pub fn cue_checks(scan: &Scan, si: usize, hits: &mut Vec<Hit>) {
    cross_tool::check(scan, si, hits);
    invisible_unicode::check(scan, si, hits);
    encoded_payload::check(scan, si, hits);
    exfil_params::check(scan, si, hits);
    name_marketing::check(scan, si, hits);
}

/// Checks that judge one definition on its own.
pub fn item_checks(scan: &Scan, si: usize, out: &mut Vec<Finding>) {
    readonly_mismatch::check(scan, si, out);
    shell_execution::check(scan, si, out);
    network_schema_ref::check(scan, si, out);
    secret_parameter::check(scan, si, out);
    open_input_schema::check(scan, si, out);
    oversized::check(scan, si, out);
    confusable_name::check(scan, si, out);
}

/// Checks across the servers of a scan.
pub fn scan_checks(scan: &Scan, out: &mut Vec<Finding>) {
    name_collision::check(scan, out);
    duplicate_definition::check(scan, out);
}

/// A finding about one item of one server.
#[allow(clippy::too_many_arguments)]
pub(crate) fn item_finding(
    scan: &Scan,
    si: usize,
    item: usize,
    rule: &str,
    severity: Severity,
    confidence: Confidence,
    pointer: String,
    message: String,
    evidence: Option<String>,
    control: Control,
) -> Finding {
    let server = &scan.servers[si];
    let it = &server.items[item];
    Finding {
        rule: rule.into(),
        severity,
        confidence,
        server: server.snap.server.clone(),
        item: Some(it.item_ref()),
        location: crate::model::finding::Location {
            config: None,
            pointer: Some(pointer),
        },
        message,
        evidence,
        control,
    }
}

#[cfg(test)]
pub(crate) mod testutil {
    use crate::audit::{RuleSet, audit_snapshots};
    use crate::model::finding::Finding;
    use crate::model::snapshot::ServerSnapshot;
    use serde_json::Value;

    /// A snapshot; tools without an `inputSchema` get a closed empty one.
    pub fn snap(server: &str, tools: Vec<Value>) -> ServerSnapshot {
        let tools = tools
            .into_iter()
            .map(|mut t| {
                if let Some(m) = t.as_object_mut() {
                    m.entry("inputSchema").or_insert_with(
                        || serde_json::json!({"type": "object", "additionalProperties": false}),
                    );
                }
                t
            })
            .collect();
        ServerSnapshot {
            server: server.into(),
            tools,
            ..Default::default()
        }
    }

    pub fn run(snaps: &[ServerSnapshot]) -> Vec<Finding> {
        audit_snapshots(snaps, &RuleSet::builtin().unwrap())
    }

    pub fn rules_of(f: &[Finding]) -> Vec<&str> {
        f.iter().map(|f| f.rule.as_str()).collect()
    }
}
