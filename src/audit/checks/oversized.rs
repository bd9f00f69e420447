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

/// Bytes of `v` written as compact JSON (what `serde_json::to_string` would hold), counted
/// as they are written rather than kept.
fn json_len(v: &serde_json::Value) -> usize {
    struct Count(usize);
    impl std::io::Write for Count {
        fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
            self.0 += buf.len();
            Ok(buf.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }
    let mut c = Count(0);
    match serde_json::to_writer(&mut c, v) {
        Ok(()) => c.0,
        Err(_) => 0,
    }
}

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
        // (No more characters than bytes: a string of at most MAX_STRING bytes is not
        // counted.)
        if field.text.len() <= MAX_STRING {
            continue;
        }
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
        let size = json_len(v);
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
    #[test]
    fn a_definition_is_measured_as_its_compact_json() {
        for v in [
            serde_json::json!({"name": "t", "description": "caf\u{e9} \"q\" \\ \n \u{1}",
                "inputSchema": {"type": "object", "properties": {"n": {"type": "number",
                "default": 1.5e300, "enum": [null, true, -3, "\u{1f389}"]}}}}),
            serde_json::json!([]),
            serde_json::json!("x".repeat(30_000)),
        ] {
            assert_eq!(super::json_len(&v), serde_json::to_string(&v).unwrap().len());
        }
    }

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
