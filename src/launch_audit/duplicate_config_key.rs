//! `duplicate-config-key`: a key written twice in a host config entry (two `args`, two `url`,
//! two `command`, two `env`) or around it (two servers of one name, two `mcpServers`).
//!
//! The spec already holds what the host runs (the last value, as `JSON.parse` keeps it); this
//! rule says that a reader of the file may have approved the other one.

use super::{finding, meta as m};
use crate::model::finding::{Confidence, Control, Finding, RuleMeta, Severity};
use crate::model::rule_id;
use crate::model::spec::ServerSpec;

pub fn meta() -> RuleMeta {
    m(
        rule_id::DUPLICATE_CONFIG_KEY,
        "A key is written twice in a server's config entry (or a server name twice): the host uses the last value, a reader may have approved the first.",
        "JSON hosts keep the last of two equal keys, so a second `args` or `url` further down an entry silently replaces the launch a reviewer reads first in a diff. mcpvet judges the value the host uses and reports the duplicate.",
        r#"{"mcpServers": {"x": {"command": "npx", "args": ["-y", "pkg@1.2.3"], "args": ["-y", "evil@latest"]}}}"#,
        Severity::High,
        Confidence::High,
        Control::Allowlist,
    )
}

pub fn check(spec: &ServerSpec) -> Vec<Finding> {
    let meta = meta();
    spec.duplicate_keys
        .iter()
        .map(|d| {
            let key = d.pointer.rsplit('/').next().unwrap_or(&d.pointer);
            let mut f = finding(
                spec,
                &meta,
                meta.default_severity,
                meta.default_confidence,
                "",
                format!(
                    "`{key}` is written twice (`{}`, lines {} and {}); the host uses the last one, line {}, and so does this review",
                    d.pointer, d.ignored.line, d.used.line, d.used.line
                ),
                Some(format!("ignored: {}; used: {}", d.ignored, d.used)),
            );
            f.location.config = Some(d.used.clone());
            f
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::super::testutil::stdio;
    use super::*;
    use crate::model::spec::{DuplicateKey, Origin};

    #[test]
    fn each_duplicate_is_reported_at_the_key_the_host_uses() {
        let mut spec = stdio("npx", &["-y", "evil@latest"], &[]);
        assert!(check(&spec).is_empty());
        let at = |line| Origin {
            file: "/r/.mcp.json".into(),
            line,
            column: 5,
        };
        spec.duplicate_keys.push(DuplicateKey {
            pointer: "/mcpServers/t/args".into(),
            ignored: at(4),
            used: at(9),
        });
        let f = check(&spec);
        assert_eq!(f.len(), 1);
        assert_eq!(f[0].location.config, Some(at(9)));
        assert!(
            f[0].message.contains("`args` is written twice"),
            "{}",
            f[0].message
        );
    }
}
