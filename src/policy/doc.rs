//! The policy's documentation: the rules it emits (for `rules`, SARIF and reviews) and the
//! commented template `mcpvet init` writes.

use crate::model::finding::{Confidence, Control, RuleMeta, Severity};
use crate::model::rule_id;

/// The commented policy template `mcpvet init` writes.
pub const TEMPLATE: &str = include_str!("template.toml");

/// The rules the policy emits (it also adds `broad-credential` findings, documented by `launch`).
pub fn rule_meta() -> Vec<RuleMeta> {
    let m = |id: &str, summary: &str, why: &str, example: &str, sev: Severity, control: Control| {
        RuleMeta::new(
            id,
            "policy",
            [summary, why, example],
            sev,
            Confidence::High,
            control,
        )
    };
    vec![
        m(
            rule_id::NOT_ALLOWLISTED,
            "A configured server matches no [[allow]] entry of the team policy.",
            "Servers run with developers' privileges and feed text to the model; only reviewed servers belong in the team's assistants.",
            "[[allow]] name = \"ci-insights\" … and a config that also launches `random-mcp`",
            Severity::High,
            Control::Allowlist,
        ),
        m(
            rule_id::DENIED_SERVER,
            "A configured server matches a [[deny]] entry of the team policy.",
            "The team reviewed this server (or package) and decided it must not run.",
            "[[deny]] package = \"npm:example-tracker-mcp*\"",
            Severity::Critical,
            Control::Reject,
        ),
        m(
            rule_id::PIN_MISMATCH,
            "A server runs a different package or version than the allowlist or its lockfile approved.",
            "The approval was for specific code; a different version is unreviewed code under a trusted name.",
            "allowlist approves npm:ci-insights@0.1.0, config runs ci-insights@latest",
            Severity::High,
            Control::PinVersion,
        ),
        m(
            rule_id::UNLOCKED_SERVER,
            "The policy requires a lockfile and this server has none.",
            "Without a recorded approval, a change to the server's definitions cannot be noticed.",
            "require-lock = true and no lockfiles/<server>.lock.json",
            Severity::High,
            Control::LockAndReapprove,
        ),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::policy::{Policy, PolicyError};
    use std::path::Path;

    fn parse(text: &str) -> Result<Policy, PolicyError> {
        Policy::parse(Path::new("mcpvet.toml"), text)
    }

    #[test]
    fn template_is_a_valid_policy() {
        let p = parse(TEMPLATE).expect("template parses");
        assert_eq!(p.fail_on, Severity::High);
        assert!(p.require_pinned && !p.require_lock);
        let uncommented: String = TEMPLATE
            .lines()
            .map(|l| {
                l.strip_prefix("# ")
                    .filter(|r| r.starts_with('[') || r.contains(" = "))
                    .unwrap_or(l)
            })
            .collect::<Vec<_>>()
            .join("\n");
        let p = parse(&uncommented).expect("examples parse");
        assert_eq!(
            (p.allow.len(), p.deny.len(), p.remap.len(), p.ignore.len()),
            (1, 1, 1, 2)
        );
        assert!(p.allows_sandbox_network("fetch"));
        assert!(!p.allows_sandbox_network("other"));
        assert_eq!(
            p.guard["ci-insights"].tools["deploy_service"].action,
            crate::policy::ToolAction::Confirm
        );
    }
}
