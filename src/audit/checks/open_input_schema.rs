//! `open-input-schema`: a tool whose input schema is missing, is not an object schema, or
//! explicitly accepts any extra argument (`additionalProperties: true`). The model can then
//! send anything, and nothing tells the reviewer what the tool consumes. The implicit
//! JSON Schema default (no `additionalProperties`) is not reported: nearly every real server
//! relies on it.

use crate::model::pointer::Field as _;
use serde_json::Value;

use crate::audit::engine::Scan;
use crate::model::finding::{Confidence, Control, Finding, ItemKind, RuleMeta, Severity};
use crate::model::rule_id;

/// This check's entry in the registry.
pub const CHECK: super::Check = super::Check {
    name: "open_input_schema",
    kind: super::Kind::Item(check),
    meta: Some(meta),
};

pub fn meta() -> RuleMeta {
    super::meta(
        rule_id::OPEN_INPUT_SCHEMA,
        "A tool's input schema is missing, is not `type: object`, or explicitly allows any additional argument.",
        "An open schema lets the model pass arbitrary data (a side channel for exfiltration) and hides what the tool really consumes.",
        "\"inputSchema\": {\"type\": \"object\", \"additionalProperties\": true}",
        Severity::Low,
        Confidence::High,
        Control::ReviewDefinitions,
    )
}

pub fn check(scan: &Scan, si: usize, out: &mut Vec<Finding>) {
    let server = &scan.servers[si];
    for (ii, item) in server.items.iter().enumerate() {
        if item.kind != ItemKind::Tool {
            continue;
        }
        let Some(tool) = item.value else { continue };
        let schema = tool.field("inputSchema");
        let problem = match schema {
            None => Some(("", "has no inputSchema".to_owned())),
            Some(Value::Object(m)) => {
                let ty = m.field("type");
                if ty.is_some_and(|t| t != "object") {
                    Some((
                        "/type",
                        format!(
                            "has an input schema of type {}",
                            ty.map(Value::to_string).unwrap_or_default()
                        ),
                    ))
                } else if m.field("additionalProperties") == Some(&Value::Bool(true)) {
                    Some((
                        "/additionalProperties",
                        "accepts any additional argument (`additionalProperties: true`)".to_owned(),
                    ))
                } else {
                    None
                }
            }
            Some(_) => Some(("", "has an input schema that is not an object".to_owned())),
        };
        let Some((suffix, what)) = problem else {
            continue;
        };
        out.push(super::item_finding(scan, si, ii, super::Emit {
rule: rule_id::OPEN_INPUT_SCHEMA,
severity: Severity::Low,
confidence: Confidence::High,
pointer: format!("{}/inputSchema{suffix}", item.pointer),
message: format!("tool `{}` {what}", item.name),
evidence: None,
control: Control::ReviewDefinitions,
}));
    }
}

#[cfg(test)]
mod tests {
    use crate::audit::checks::testutil::{rules_of, run};
    use serde_json::json;

    #[test]
    fn explicit_openness_and_missing_schema_are_low() {
        let s = crate::model::snapshot::ServerSnapshot {
            server: "s".into(),
            tools: vec![
                json!({"name": "a", "inputSchema": {"type": "object", "additionalProperties": true}}),
                json!({"name": "b"}),
                json!({"name": "c", "inputSchema": {"type": "object", "properties": {}}}),
            ],
            ..Default::default()
        };
        let f = run(&[s]);
        assert_eq!(rules_of(&f), ["open-input-schema", "open-input-schema"]);
    }
}
