//! `unpinned-package`: a runner (npx, npm exec, pnpm dlx, yarn dlx, bunx, uvx/`--from`,
//! `uv tool run`, pipx run, deno, go run) fetches a package without one exact version
//! (no version, `@latest`, a tag, or a range).

use super::{finding, meta as m};
use crate::model::finding::{Confidence, Control, Finding, RuleMeta, Severity};
use crate::model::package::{self as launcher, unpinned_why};
use crate::model::redact::argv_evidence;
use crate::model::rule_id;
use crate::model::spec::ServerSpec;

pub fn meta() -> RuleMeta {
    m(
        rule_id::UNPINNED_PACKAGE,
        "A package runner fetches the server without an exact version (no version, @latest, a tag or a range).",
        "Every launch runs whatever was published last: a compromised or hijacked release reaches every developer with their credentials, and the definitions you reviewed can change without notice.",
        r#"{"command": "npx", "args": ["-y", "example-tracker-mcp@latest"]}"#,
        Severity::Medium,
        Confidence::High,
        Control::PinVersion,
    )
}

pub fn check(spec: &ServerSpec) -> Vec<Finding> {
    let meta = meta();
    launcher::packages(spec)
        .into_iter()
        .filter_map(|p| {
            let why = unpinned_why(&p)?;
            let pointer = p
                .arg
                .map_or("/command".to_string(), |i| format!("/args/{i}"));
            Some(finding(
                spec,
                &meta,
                meta.default_severity,
                meta.default_confidence,
                &pointer,
                match &p.via {
                    Some(via) => format!(
                        "`{}` inside `{via}` runs package `{}` unpinned: {why}",
                        p.runner, p.raw
                    ),
                    None => format!("`{}` runs package `{}` unpinned: {why}", p.runner, p.raw),
                },
                Some(argv_evidence(spec)),
            ))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::super::testutil::stdio;
    use super::*;

    #[test]
    fn flags_latest_and_points_at_the_argument() {
        let f = check(&stdio("npx", &["-y", "example-tracker-mcp@latest"], &[]));
        assert_eq!(f.len(), 1);
        assert_eq!(f[0].location.config.as_ref().map(|o| o.line), Some(11));
        assert!(f[0].message.contains("@latest"));
        assert!(check(&stdio("npx", &["-y", "ci-insights@0.1.0"], &[])).is_empty());
    }
}
