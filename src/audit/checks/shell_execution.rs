//! `shell-execution-tool`: a tool that runs shell commands or arbitrary code. Not poisoning
//! in itself, but the most powerful capability a server can hand the model: it needs a
//! sandbox and confirmation for every call.

use crate::audit::engine::Scan;
use crate::model::finding::{Confidence, Control, Finding, ItemKind, RuleMeta, Severity};
use crate::model::rule_id;

/// This check's entry in the registry.
pub const CHECK: super::Check = super::Check {
    name: "shell_execution",
    kind: super::Kind::Item(check),
    meta: Some(meta),
};

pub fn meta() -> RuleMeta {
    super::meta(
        rule_id::SHELL_EXECUTION_TOOL,
        "A tool executes shell commands or arbitrary code.",
        "Whatever steers the model (a poisoned definition, a prompt injection in tool output) can run commands with the server's privileges through this tool.",
        "run_shell(command: string): Runs a shell command.",
        Severity::Medium,
        Confidence::Medium,
        Control::Sandbox,
    )
}

pub fn check(scan: &Scan, si: usize, out: &mut Vec<Finding>) {
    let server = &scan.servers[si];
    for (ii, item) in server.items.iter().enumerate() {
        if item.kind != ItemKind::Tool {
            continue;
        }
        let Some(tool) = item.value else { continue };
        if !super::readonly_mismatch::effects_of(scan, si, tool).executes {
            continue;
        }
        out.push(super::item_finding(scan, si, ii, super::Emit {
rule: rule_id::SHELL_EXECUTION_TOOL,
severity: Severity::Medium,
confidence: Confidence::Medium,
pointer: format!("{}/name", item.pointer),
message: format!(
                "tool `{}` executes commands or code; run the server sandboxed and confirm every call",
                item.name
            ),
evidence: Some(item.name.clone()),
control: Control::Sandbox,
}));
    }
}

#[cfg(test)]
mod tests {
    use crate::audit::checks::testutil::*;
    use serde_json::json;

    #[test]
    fn shell_tools_are_reported_readers_are_not() {
        let f = run(&[snap(
            "s",
            vec![
                json!({"name": "run_shell", "inputSchema": {"type": "object", "properties": {"command": {"type": "string"}}}}),
                json!({"name": "read_file", "inputSchema": {"type": "object", "properties": {"path": {"type": "string"}}}}),
            ],
        )]);
        assert_eq!(rules_of(&f), ["shell-execution-tool"]);
    }
}
