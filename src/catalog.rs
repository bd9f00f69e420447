//! The rule catalog: the documentation of every rule, for `mcpvet rules`, SARIF and reviews.
//!
//! Each rule family owns its rules' metadata; this module collects them into one list. Rule ids
//! are public API (policy files, SARIF `ruleId`, docs), so they never change meaning.

use crate::model::finding::RuleMeta;

/// Every rule's documentation, sorted by id: the definition audit, the launch audit, the
/// lockfile checks and the policy. An id owned by two families (e.g. `unlocked-server`, which
/// both a live scan and the policy emit) is documented once, by the first family listed.
pub fn catalog() -> Vec<RuleMeta> {
    let mut v = crate::audit::definition_rules();
    v.extend(crate::launch_audit::rule_meta());
    v.extend(crate::lock::rule_meta());
    v.extend(crate::policy::rule_meta());
    let mut seen = std::collections::BTreeSet::new();
    v.retain(|r| seen.insert(r.id.clone()));
    v.sort_by(|a, b| a.id.cmp(&b.id));
    v
}

/// The documentation of one rule.
pub fn find(id: &str) -> Option<RuleMeta> {
    catalog().into_iter().find(|r| r.id == id)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_are_unique_kebab_case_and_documented() {
        let c = catalog();
        let mut ids: Vec<&str> = c.iter().map(|r| r.id.as_str()).collect();
        ids.dedup();
        assert_eq!(ids.len(), c.len(), "duplicate rule ids");
        for r in &c {
            assert!(
                r.id.chars().all(|ch| ch.is_ascii_lowercase() || ch == '-'),
                "{}",
                r.id
            );
            assert!(["definition", "launch", "lock", "policy"].contains(&r.family.as_str()));
            for (field, text) in [
                ("summary", &r.summary),
                ("why", &r.why),
                ("example", &r.example),
            ] {
                assert!(text.len() > 20, "{} has a short {field}", r.id);
            }
        }
    }
}
