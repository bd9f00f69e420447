//! `broad-credential`: a server gets a credential broader than it should: a token format that
//! reveals account- or organisation-wide scope (GitHub classic PAT, Anthropic/OpenAI admin
//! keys, unrestricted Stripe secret keys), or a variable whose name (or the name of the variable
//! it references) says admin, root, owner, org-wide or write. The policy adds "more than the
//! policy grants" (see `policy`).

use super::{finding, meta as m};
use crate::model::finding::{Confidence, Control, Finding, RuleMeta, Severity};
use crate::model::rule_id;
use crate::model::secrets::{credentials, find_secrets, referenced_names};
use crate::model::spec::ServerSpec;
use crate::model::words::split_words;

pub fn meta() -> RuleMeta {
    m(
        rule_id::BROAD_CREDENTIAL,
        "A server receives an admin, org-wide or write credential (classic PATs, admin keys, ADMIN/ROOT/ORG-named tokens) or more than the policy grants.",
        "Whatever the server does (or is tricked into doing) runs with that credential: a read-only tool with an admin token can delete everything.",
        r#"{"env": {"TRACKER_TOKEN": "${TRACKER_ADMIN_TOKEN}"}}"#,
        Severity::High,
        Confidence::Medium,
        Control::LeastPrivilegeCredential,
    )
}

const BROAD_WORDS: &[&str] = &[
    "ADMIN",
    "ROOT",
    "SUPERUSER",
    "OWNER",
    "MASTER",
    "ORG",
    "ORGANIZATION",
    "ORGANISATION",
    "ENTERPRISE",
    "GLOBAL",
    "FULL",
];
const WRITE_WORDS: &[&str] = &["WRITE", "RW", "DELETE", "MANAGE"];

/// Why a name says the credential is broad, if it does.
pub fn broad_name(name: &str) -> Option<String> {
    let words = split_words(name);
    if let Some(w) = words.iter().find(|w| BROAD_WORDS.contains(&w.as_str())) {
        let w = w.to_ascii_lowercase();
        let article = if w.starts_with(['a', 'e', 'i', 'o', 'u']) {
            "an"
        } else {
            "a"
        };
        return Some(format!("names {article} {w} credential"));
    }
    words
        .iter()
        .find(|w| WRITE_WORDS.contains(&w.as_str()))
        .map(|w| format!("names a {}-scoped credential", w.to_ascii_lowercase()))
}

pub fn check(spec: &ServerSpec) -> Vec<Finding> {
    let meta = meta();
    let mut out = Vec::new();
    for (pointer, name, value) in credentials(spec) {
        let by_format = find_secrets(&value)
            .into_iter()
            .find_map(|s| s.kind.broad.map(|b| (s.kind.name, b)));
        let (why, confidence) = if let Some((kind, why)) = by_format {
            (format!("{kind}: {why}"), Confidence::High)
        } else if let Some(why) = broad_name(&name) {
            (format!("`{name}` {why}"), Confidence::Medium)
        } else if let Some(why) = referenced_names(&value)
            .iter()
            .find_map(|r| broad_name(r).map(|w| format!("its value comes from `{r}`, which {w}")))
        {
            (why, Confidence::Medium)
        } else {
            continue;
        };
        out.push(finding(
            spec,
            &meta,
            meta.default_severity,
            confidence,
            &pointer,
            format!("credential `{name}` is broader than a server needs: {why}; give it a dedicated least-privilege token"),
            Some(format!("{name} = {}", crate::model::redact::redact_field(Some(&name), &value))),
        ));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::super::testutil::stdio;
    use super::*;

    #[test]
    fn seed_admin_token_is_broad() {
        let f = check(&stdio(
            "npx",
            &["-y", "example-tracker-mcp@latest"],
            &[("TRACKER_TOKEN", "${TRACKER_ADMIN_TOKEN}")],
        ));
        assert_eq!(f.len(), 1);
        assert!(f[0].message.contains("admin"), "{}", f[0].message);
        let pat = format!("ghp_{}", "Ab3dEf5hIj7lMn9pQr1tUv3xYz5bCd7fGh9j");
        let f = check(&stdio("x", &[], &[("TRACKER_TOKEN", &pat)]));
        assert_eq!((f.len(), f[0].confidence), (1, Confidence::High));
        assert!(!f[0].evidence.clone().unwrap_or_default().contains(&pat));
        assert!(check(&stdio("x", &[], &[("CI_TOKEN", "${CI_READ_TOKEN}")])).is_empty());
        assert_eq!(
            check(&stdio("x", &[], &[("GITHUB_ORG_ADMIN_TOKEN", "${T}")])).len(),
            1
        );
    }
}
