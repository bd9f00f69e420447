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

/// A bound no smaller than [`json_len`] of `v`: every byte of a string or a key written as
/// `\uXXXX` (six bytes, the longest escape; the compact form writes a byte outside ASCII as
/// itself), a number as 32 bytes (an integer or a shortest round-trip float takes at most 24:
/// `-2.2250738585072014e-308`), `true`, `false` and `null` as five, and a comma or colon after
/// every element and member.
fn json_len_bound(v: &serde_json::Value) -> usize {
    use serde_json::Value;
    match v {
        Value::Null | Value::Bool(_) => 5,
        Value::Number(_) => 32,
        Value::String(s) => 2 + 6 * s.len(),
        Value::Array(a) => 2 + a.iter().map(|x| 1 + json_len_bound(x)).sum::<usize>(),
        Value::Object(m) => {
            2 + m
                .iter()
                .map(|(k, x)| 4 + 6 * k.len() + json_len_bound(x))
                .sum::<usize>()
        }
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
        // (Most definitions are far below the limit: a bound read off the tree, without
        // writing it out, says so.)
        if json_len_bound(v) <= MAX_DEFINITION {
            continue;
        }
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
            assert!(super::json_len_bound(&v) >= super::json_len(&v));
        }
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(2000))]

        /// The bound is never below the length of the compact form, whatever the strings'
        /// escapes and the numbers' forms.
        #[test]
        fn the_bound_is_never_below_the_compact_length(
            text in "[a-z\"\\\n\u{1}\u{7f}é\u{1f389}]{0,12}",
            key in "[a-z\"\u{1}]{0,6}",
            int in proptest::num::i64::ANY,
            uint in proptest::num::u64::ANY,
            float in proptest::num::f64::NORMAL | proptest::num::f64::SUBNORMAL | proptest::num::f64::ZERO,
            nest in 0usize..4,
        ) {
            let mut v = serde_json::json!({
                key.clone(): text, "i": int, "u": uint, "f": float, "b": [true, false, null],
                "e": [], "o": {},
            });
            for _ in 0..nest {
                v = serde_json::json!([v, {key.clone(): v.clone()}]);
            }
            let len = serde_json::to_string(&v).map(|s| s.len()).unwrap_or(0);
            proptest::prop_assert!(super::json_len_bound(&v) >= len, "{} < {}", super::json_len_bound(&v), len);
            proptest::prop_assert_eq!(super::json_len(&v), len);
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
