//! `network-schema-ref`: a `$ref` (or `$dynamicRef`) in a schema that points at a network
//! location. Schemas must be self-contained: a remote reference can change after approval
//! and a client that fetches it leaks that the tool was listed.

use crate::model::pointer::Field as _;
use serde_json::Value;

use crate::audit::engine::Scan;
use crate::model::finding::{Confidence, Control, Finding, RuleMeta, Severity};
use crate::model::rule_id;

pub fn meta() -> RuleMeta {
    super::meta(
        rule_id::NETWORK_SCHEMA_REF,
        "A tool's input or output schema references a network location with `$ref`.",
        "A remote schema can change after approval (a rug pull the lockfile cannot see) and fetching it contacts a third party; clients must never dereference it automatically.",
        "\"inputSchema\": {\"$ref\": \"https://schemas.example.com/tool.json\"}",
        Severity::Medium,
        Confidence::High,
        Control::LockAndReapprove,
    )
}

fn is_network(r: &str) -> bool {
    let l = r.trim().to_ascii_lowercase();
    l.starts_with("http://")
        || l.starts_with("https://")
        || l.starts_with("//")
        || l.starts_with("ftp://")
        || l.starts_with("file:")
}

/// This check's entry in the registry.
pub const CHECK: super::Check = super::Check {
    name: "network_schema_ref",
    kind: super::Kind::Item(check),
    meta: Some(meta),
};

/// `path` holds the JSON Pointer of `v` (one buffer for the whole walk, extended and cut
/// back: a pointer is copied only for a reference found).
/// One step of the path from a schema to a value: an object key or an array index.
enum Step<'v> {
    Key(&'v str),
    Index(usize),
}

/// The JSON Pointer of the value at `steps` below `base`.
fn pointer_of(base: &str, steps: &[Step]) -> String {
    use std::fmt::Write;
    let mut path = base.to_owned();
    for step in steps {
        match step {
            Step::Key(k) => {
                path.push('/');
                path.push_str(&crate::model::pointer::token(k));
            }
            Step::Index(i) => {
                let _ = write!(path, "/{i}");
            }
        }
    }
    path
}

/// Every network reference below `v` with its pointer (the path is kept as steps and spelled
/// only for a reference found: most schemas hold none).
fn find_refs<'v>(
    v: &'v Value,
    base: &str,
    steps: &mut Vec<Step<'v>>,
    depth: usize,
    out: &mut Vec<(String, String)>,
) {
    if depth > 64 || out.len() > 16 {
        return;
    }
    match v {
        Value::Object(m) => {
            for (k, x) in m {
                steps.push(Step::Key(k));
                if matches!(k.as_str(), "$ref" | "$dynamicRef" | "$recursiveRef") {
                    if let Some(s) = x.as_str().filter(|s| is_network(s)) {
                        out.push((pointer_of(base, steps), s.to_owned()));
                    }
                } else {
                    find_refs(x, base, steps, depth + 1, out);
                }
                steps.pop();
            }
        }
        Value::Array(a) => {
            for (i, x) in a.iter().enumerate() {
                steps.push(Step::Index(i));
                find_refs(x, base, steps, depth + 1, out);
                steps.pop();
            }
        }
        _ => {}
    }
}

pub fn check(scan: &Scan, si: usize, out: &mut Vec<Finding>) {
    let server = &scan.servers[si];
    for (ii, item) in server.items.iter().enumerate() {
        let Some(v) = item.value else { continue };
        let mut refs = Vec::new();
        for key in ["inputSchema", "outputSchema"] {
            if let Some(s) = v.field(key) {
                let base = format!("{}/{key}", item.pointer);
                find_refs(s, &base, &mut Vec::new(), 0, &mut refs);
            }
        }
        for (pointer, target) in refs {
            out.push(super::item_finding(scan, si, ii, super::Emit {
rule: rule_id::NETWORK_SCHEMA_REF,
severity: Severity::Medium,
confidence: Confidence::High,
pointer,
message: format!(
                    "{} references a schema on the network; it can change after approval and must not be fetched",
                    crate::audit::engine::kind_label(item.kind, &item.name)
                ),
evidence: Some(target),
control: Control::LockAndReapprove,
}));
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::audit::checks::testutil::*;
    use serde_json::json;

    #[test]
    fn remote_refs_flagged_local_refs_and_schema_uris_not() {
        let f = run(&[snap(
            "s",
            vec![
                json!({"name": "t", "inputSchema": {"type": "object", "$schema": "http://json-schema.org/draft-07/schema#",
                "properties": {"a": {"$ref": "https://evil.example/a.json"}, "b": {"$ref": "#/$defs/b"}}}}),
            ],
        )]);
        assert_eq!(rules_of(&f), ["network-schema-ref"]);
        assert_eq!(
            f[0].location.pointer.as_deref(),
            Some("/tools/0/inputSchema/properties/a/$ref")
        );
    }
}
