//! `unpinned-git`: a package fetched from git at a branch or tag (or no ref at all)
//! instead of a full commit hash.

use super::{finding, meta as m};
use crate::model::finding::{Confidence, Control, Finding, RuleMeta, Severity};
use crate::model::package as launcher;
use crate::model::redact::argv_evidence;
use crate::model::rule_id;
use crate::model::spec::ServerSpec;

pub fn meta() -> RuleMeta {
    m(
        rule_id::UNPINNED_GIT,
        "A server is installed from git at a branch, a tag or the default branch instead of a full commit hash.",
        "Branches move and tags can be re-pointed; only a full commit hash names the code you reviewed.",
        r#"{"command": "uvx", "args": ["--from", "git+https://github.com/acme/mcp@main", "acme-mcp"]}"#,
        Severity::Medium,
        Confidence::High,
        Control::PinVersion,
    )
}

fn is_commit(r: &str) -> bool {
    (r.len() == 40 || r.len() == 64) && r.chars().all(|c| c.is_ascii_hexdigit())
}

pub fn check(spec: &ServerSpec) -> Vec<Finding> {
    let meta = meta();
    launcher::git_sources(spec)
        .into_iter()
        .filter(|(_, _, r)| !r.as_deref().is_some_and(is_commit))
        .map(|(i, src, r)| {
            let why = match r {
                Some(r) => format!("ref `{r}` is not a full commit hash"),
                None => "no ref means the default branch".into(),
            };
            finding(
                spec,
                &meta,
                meta.default_severity,
                meta.default_confidence,
                &format!("/args/{i}"),
                format!("git source `{src}` is not pinned: {why}"),
                Some(argv_evidence(spec)),
            )
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::super::testutil::stdio;
    use super::*;

    #[test]
    fn only_full_hashes_pass() {
        assert_eq!(
            check(&stdio(
                "uvx",
                &["--from", "git+https://github.com/a/b@v1.0", "b"],
                &[]
            ))
            .len(),
            1
        );
        let pinned = format!("git+https://github.com/a/b@{}", "ab12".repeat(10));
        assert!(check(&stdio("uvx", &["--from", &pinned, "b"], &[])).is_empty());
        assert_eq!(check(&stdio("npx", &["github:a/b"], &[])).len(), 1);
    }
}
