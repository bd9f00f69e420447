//! `oversized-definition`: a definition far larger than a tool needs. Long text is where
//! instructions hide from a reviewer who skims, and it crowds the model's context.

use crate::audit::engine::Scan;
use crate::model::finding::{Confidence, Control, Finding, RuleMeta, Severity};
use crate::model::rule_id;

/// A single string longer than this (characters) is reported.
pub const MAX_STRING: usize = 6_000;
/// A whole definition larger than this (bytes of JSON) is reported.
pub const MAX_DEFINITION: usize = 24_000;

/// This check's entry in the registry.
pub const CHECK: super::Check = super::Check {
    name: "oversized",
    kind: super::Kind::Item(check),
    meta: Some(meta),
};

pub fn meta() -> RuleMeta {
    super::meta(
        rule_id::OVERSIZED_DEFINITION,
        "A tool, prompt or resource definition (or one of its strings) is unusually large.",
        "Reviewers skim long definitions; attackers pad them to hide instructions, and every byte is spent from the model's context on every request.",
        "A tool description of 20,000 characters.",
        Severity::Low,
        Confidence::High,
        Control::ReviewDefinitions,
    )
}

pub fn check(scan: &Scan, si: usize, out: &mut Vec<Finding>) {
    let server = &scan.servers[si];
    let mut reported = std::collections::HashSet::new();
    for field in &server.fields {
        let n = field.text.chars().count();
        if n > MAX_STRING && reported.insert(field.item) {
            let item = &server.items[field.item];
            out.push(super::item_finding(scan, si, field.item, super::Emit {
rule: rule_id::OVERSIZED_DEFINITION,
severity: Severity::Low,
confidence: Confidence::High,
pointer: field.pointer.clone(),
message: format!(
                    "{} has a {} of {n} characters (limit {MAX_STRING})",
                    crate::audit::engine::kind_label(item.kind, &item.name),
                    field.kind.as_str()
                ),
evidence: Some(crate::audit::text::clip(field.text, 80)),
control: Control::ReviewDefinitions,
}));
        }
    }
    for (ii, item) in server.items.iter().enumerate() {
        if reported.contains(&ii) {
            continue;
        }
        let Some(v) = item.value else { continue };
        let size = serde_json::to_string(v).map(|s| s.len()).unwrap_or(0);
        if size > MAX_DEFINITION {
            out.push(super::item_finding(scan, si, ii, super::Emit {
rule: rule_id::OVERSIZED_DEFINITION,
severity: Severity::Low,
confidence: Confidence::High,
pointer: item.pointer.clone(),
message: format!(
                    "{} is {size} bytes of JSON (limit {MAX_DEFINITION})",
                    crate::audit::engine::kind_label(item.kind, &item.name)
                ),
evidence: None,
control: Control::ReviewDefinitions,
}));
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::audit::checks::testutil::*;
    use serde_json::json;

    #[test]
    fn long_description_is_low() {
        let f = run(&[snap(
            "s",
            vec![json!({"name": "t", "description": "word ".repeat(2000)})],
        )]);
        assert_eq!(rules_of(&f), ["oversized-definition"]);
        let f = run(&[snap(
            "s",
            vec![json!({"name": "t", "description": "word ".repeat(100)})],
        )]);
        assert!(f.is_empty());
    }
}
