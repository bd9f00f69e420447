//! `auto-trust`: host settings that skip the human confirmation for a server's tools:
//! Gemini `trust: true`, Cline `alwaysAllow` / `autoApprove`, VS Code `chat.tools.autoApprove`.

use super::{finding, meta as m};
use crate::model::finding::{Confidence, Control, Finding, RuleMeta, Severity};
use crate::model::rule_id;
use crate::model::spec::ServerSpec;

pub fn meta() -> RuleMeta {
    m(
        rule_id::AUTO_TRUST,
        "Host settings skip the confirmation for this server or its tool calls (Gemini trust, Cline alwaysAllow/autoApprove, VS Code autoApprove, Claude Code enableAllProjectMcpServers).",
        "Confirmation is the last control between a poisoned tool description and an action; auto-approval removes it for every call.",
        r#"{"mcpServers": {"x": {"command": "…", "trust": true}}}"#,
        Severity::High,
        Confidence::High,
        Control::ConfirmSensitiveCalls,
    )
}

pub fn check(spec: &ServerSpec) -> Vec<Finding> {
    let meta = meta();
    let mut out = Vec::new();
    for (key, value) in &spec.settings {
        let pointer = format!("/{key}");
        match (key.as_str(), value) {
            ("trust", serde_json::Value::Bool(true)) => out.push(finding(spec, &meta, Severity::High, Confidence::High, &pointer,
                "`trust: true` makes the host run every tool of this server without asking".into(), Some("trust: true".into()))),
            ("chat.tools.autoApprove", serde_json::Value::Bool(true)) => out.push(finding(spec, &meta, Severity::High, Confidence::High, &pointer,
                "`chat.tools.autoApprove` runs every tool call without asking, including this server's".into(), Some("chat.tools.autoApprove: true".into()))),
            ("enableAllProjectMcpServers", serde_json::Value::Bool(true)) => out.push(finding(
                spec,
                &meta,
                Severity::High,
                Confidence::High,
                &pointer,
                "`enableAllProjectMcpServers: true` approves every server of the project's .mcp.json for everyone who opens the repository, without the per-user prompt".into(),
                Some("enableAllProjectMcpServers: true".into()),
            )),
            ("enabledMcpjsonServers", serde_json::Value::Bool(true)) => out.push(finding(
                spec,
                &meta,
                Severity::Medium,
                Confidence::High,
                &pointer,
                "the project's Claude settings pre-approve this server (`enabledMcpjsonServers`), so nobody is asked before it starts".into(),
                Some(format!("enabledMcpjsonServers: [\"{}\"]", spec.name)),
            )),
            ("alwaysAllow" | "autoApprove", serde_json::Value::Bool(true)) => out.push(finding(spec, &meta, Severity::High, Confidence::High, &pointer,
                format!("`{key}: true` approves every tool of this server without asking"), Some(format!("{key}: true")))),
            ("alwaysAllow" | "autoApprove", serde_json::Value::Array(tools)) if !tools.is_empty() => {
                let names: Vec<String> = tools.iter().map(|t| t.as_str().map_or_else(|| t.to_string(), str::to_string)).collect();
                let all = names.iter().any(|n| n == "*");
                out.push(finding(spec, &meta, if all { Severity::High } else { Severity::Medium }, Confidence::High, &pointer,
                    format!("`{key}` runs {} without asking", if all { "every tool".to_string() } else { format!("{} tool(s)", names.len()) }),
                    Some(format!("{key}: {}", names.join(", ")))));
            }
            _ => {}
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::super::testutil::stdio;
    use super::*;

    #[test]
    fn trust_and_auto_approve() {
        let mut s = stdio("x", &[], &[]);
        s.settings.insert("trust".into(), true.into());
        s.settings
            .insert("alwaysAllow".into(), serde_json::json!(["read_file"]));
        s.settings
            .insert("autoApprove".into(), serde_json::json!([]));
        let f = check(&s);
        assert_eq!(f.len(), 2);
        s.settings.insert("trust".into(), false.into());
        assert_eq!(check(&s).len(), 1);
    }
}
