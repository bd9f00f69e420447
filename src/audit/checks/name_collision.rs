//! `tool-name-collision`: tools of different servers in one scan whose names collide —
//! exactly (ambiguous: which one does the model call?), after folding case and separators
//! (`Get_Stock_Prices` vs `get_stock_prices`: an imitation), or with a marketing affix
//! (`best_create_repository`, `create_repository_advanced`: an imitation that tries to win).
//! Inside one server, names equal after folding are reported too.

use std::collections::HashMap;

use crate::audit::engine::Scan;
use crate::model::finding::{Confidence, Control, Finding, ItemKind, RuleMeta, Severity};
use crate::model::rule_id;

pub fn meta() -> RuleMeta {
    super::meta(
        rule_id::TOOL_NAME_COLLISION,
        "Two tools in one scan have the same name, names that differ only in case or separators, or one name is another plus a marketing word.",
        "Hosts aggregate the tools of every server; a colliding or imitating name lets one server shadow another's tool so the model calls the wrong one.",
        "server A: create_repository; server B: Create_Repository or premium_create_repository",
        Severity::High,
        Confidence::Medium,
        Control::Allowlist,
    )
}

const AFFIXES: &[&str] = &[
    "best", "premium", "ultimate", "advanced", "enhanced", "pro", "new", "v2", "secure",
    "official", "better", "improved", "super", "fast", "plus", "tool", "for",
];

/// Case and separators folded away.
pub fn fold(name: &str) -> String {
    crate::model::words::name_words_shared(name).concat()
}

/// The name without marketing affixes, folded.
fn core(name: &str) -> Option<String> {
    let words = crate::model::words::name_words_shared(name);
    let kept: Vec<&String> = words
        .iter()
        .filter(|w| !AFFIXES.contains(&w.as_str()))
        .collect();
    (kept.len() < words.len() && kept.len() >= 2).then(|| kept.into_iter().cloned().collect())
}

/// This check's entry in the registry.
pub const CHECK: super::Check = super::Check {
    name: "name_collision",
    kind: super::Kind::Scan(check),
    meta: Some(meta),
};

/// Two config entries of one server (e.g. an approved server and a proposal that adds a tool
/// to it) expose the same tool: both report the same `serverInfo.name` and the definitions
/// are identical, so whichever the host picks, the model reads and calls the same thing.
/// A server that merely borrows another's name still collides when its definition differs.
fn same_tool_of_same_server(scan: &Scan, a: (usize, usize), b: (usize, usize)) -> bool {
    let (sa, sb) = (&scan.servers[a.0], &scan.servers[b.0]);
    let same_name = match (sa.snap.reported_name(), sb.snap.reported_name()) {
        (Some(x), Some(y)) => !x.is_empty() && x == y,
        _ => false,
    };
    same_name
        && match (
            sa.summaries.get(a.1).and_then(|s| s.digest),
            sb.summaries.get(b.1).and_then(|s| s.digest),
        ) {
            (Some(x), Some(y)) => x == y,
            _ => false,
        }
}

pub fn check(scan: &Scan, out: &mut Vec<Finding>) {
    // folded name → (server, item index, exact name)
    let mut folded: HashMap<String, Vec<(usize, usize, &str)>> = HashMap::new();
    for (si, s) in scan.servers.iter().enumerate() {
        for (ii, item) in s.items.iter().enumerate() {
            if item.kind == ItemKind::Tool && !item.name.is_empty() {
                folded
                    .entry(fold(&item.name))
                    .or_default()
                    .push((si, ii, item.name.as_str()));
            }
        }
    }
    for (si, s) in scan.servers.iter().enumerate() {
        for (ii, item) in s.items.iter().enumerate() {
            if item.kind != ItemKind::Tool || item.name.is_empty() {
                continue;
            }
            let f = fold(&item.name);
            let mut best: Option<(Severity, String, String)> = None;
            let mut consider = |sev: Severity, msg: String, other: String| {
                if best.as_ref().is_none_or(|b| sev > b.0) {
                    best = Some((sev, msg, other));
                }
            };
            // Bounded: a hostile scan with thousands of equal names stays linear.
            for &(osi, oii, oname) in folded.get(&f).into_iter().flatten().take(64) {
                if osi == si && oii == ii {
                    continue;
                }
                let oserver = &scan.servers[osi].snap.server;
                if oname == item.name {
                    if osi != si && !same_tool_of_same_server(scan, (si, ii), (osi, oii)) {
                        consider(
                            Severity::Medium,
                            format!(
                                "has the same name as a tool of server `{oserver}`; the host must disambiguate"
                            ),
                            oname.to_owned(),
                        );
                    }
                } else if osi != si {
                    consider(
                        Severity::High,
                        format!(
                            "collides with `{oname}` of server `{oserver}` (same name up to case and separators: one imitates the other)"
                        ),
                        oname.to_owned(),
                    );
                } else {
                    consider(
                        Severity::Medium,
                        format!(
                            "differs from `{oname}` of the same server only in case or separators"
                        ),
                        oname.to_owned(),
                    );
                }
            }
            if let Some(c) = core(&item.name) {
                for &(osi, _, oname) in folded.get(&c).into_iter().flatten().take(64) {
                    if oname == item.name || osi == si {
                        continue;
                    }
                    let oserver = &scan.servers[osi].snap.server;
                    consider(
                        Severity::High,
                        format!(
                            "imitates `{oname}` of server `{oserver}` with a marketing word added"
                        ),
                        oname.to_owned(),
                    );
                }
            }
            if let Some((severity, msg, other)) = best {
                out.push(super::item_finding(scan, si, ii, super::Emit {
rule: rule_id::TOOL_NAME_COLLISION,
severity,
confidence: Confidence::Medium,
pointer: format!("{}/name", item.pointer),
message: format!("tool `{}` {msg}", item.name),
evidence: Some(format!("{} ~ {other}", item.name)),
control: Control::Allowlist,
}));
            }
        }
    }
}

#[cfg(test)]
mod same_server_tests {
    use crate::audit::{RuleSet, audit_snapshots};
    use crate::model::snapshot::ServerSnapshot;
    use serde_json::json;

    fn snap(server: &str, reported: &str, desc: &str) -> ServerSnapshot {
        ServerSnapshot {
            server: server.into(),
            server_info: Some(json!({"name": reported, "version": "1.0.0"})),
            tools: vec![json!({"name": "get_status", "description": desc,
                               "inputSchema": {"type": "object"}})],
            ..Default::default()
        }
    }

    #[test]
    fn two_entries_of_one_server_do_not_collide_but_an_impostor_does() {
        let rules = RuleSet::builtin().unwrap();
        let same = [
            snap("ci", "ci-insights", "Get the status."),
            snap("ci-proposal", "ci-insights", "Get the status."),
        ];
        assert!(
            audit_snapshots(&same, &rules)
                .iter()
                .all(|f| f.rule != "tool-name-collision")
        );
        let impostor = [
            snap("ci", "ci-insights", "Get the status."),
            snap("other", "ci-insights", "Get the status of anything."),
        ];
        assert!(
            audit_snapshots(&impostor, &rules)
                .iter()
                .any(|f| f.rule == "tool-name-collision")
        );
    }
}

#[cfg(test)]
mod tests {
    use crate::audit::checks::testutil::*;
    use crate::model::finding::Severity;
    use serde_json::json;

    #[test]
    fn exact_collision_is_medium_imitation_is_high() {
        let a = snap(
            "a",
            vec![
                json!({"name": "create_repository"}),
                json!({"name": "list_issues"}),
            ],
        );
        let b = snap(
            "b",
            vec![
                json!({"name": "Create_Repository"}),
                json!({"name": "list_issues"}),
                json!({"name": "best_create_repository"}),
            ],
        );
        let f = run(&[a, b]);
        let sev = |srv: &str, name: &str| {
            f.iter()
                .find(|f| {
                    f.rule == "tool-name-collision"
                        && f.server == srv
                        && f.item.as_ref().unwrap().name == name
                })
                .map(|f| f.severity)
        };
        assert_eq!(sev("b", "Create_Repository"), Some(Severity::High));
        assert_eq!(sev("b", "best_create_repository"), Some(Severity::High));
        assert_eq!(sev("b", "list_issues"), Some(Severity::Medium));
    }

    #[test]
    fn distinct_names_pass() {
        let a = snap("a", vec![json!({"name": "read_file"})]);
        let b = snap("b", vec![json!({"name": "write_file"})]);
        assert!(run(&[a, b]).is_empty());
    }
}
