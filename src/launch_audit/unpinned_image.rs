//! `unpinned-image`: `docker`/`podman run` of an image without an `@sha256:` digest.

use std::sync::LazyLock;

use regex::Regex;

use super::{finding, meta as m};
use crate::model::finding::{Confidence, Control, Finding, RuleMeta, Severity};
use crate::model::package as launcher;
use crate::model::redact::argv_evidence;
use crate::model::rule_id;
use crate::model::spec::ServerSpec;

pub fn meta() -> RuleMeta {
    m(
        rule_id::UNPINNED_IMAGE,
        "A container image is run by tag instead of by `@sha256:` digest.",
        "Tags (including version tags) can be re-pushed: the image that runs tomorrow may not be the one you reviewed.",
        r#"{"command": "docker", "args": ["run", "-i", "--rm", "ghcr.io/acme/mcp:latest"]}"#,
        Severity::Medium,
        Confidence::High,
        Control::PinVersion,
    )
}

static DIGEST: LazyLock<Option<Regex>> =
    LazyLock::new(|| Regex::new(r"@sha256:[0-9a-fA-F]{64}$").ok());

pub fn check(spec: &ServerSpec) -> Vec<Finding> {
    let Some(img) = launcher::image(spec) else {
        return Vec::new();
    };
    if DIGEST.as_ref().is_some_and(|r| r.is_match(&img.image)) {
        return Vec::new();
    }
    let last = img.image.rsplit('/').next().unwrap_or(&img.image);
    let why = match last.split_once(':') {
        Some((_, "latest")) => "the `latest` tag floats".to_string(),
        Some((_, tag)) => format!("tag `{tag}` can be re-pushed"),
        None => "no tag means `latest`, which floats".to_string(),
    };
    let meta = meta();
    vec![finding(
        spec,
        &meta,
        meta.default_severity,
        meta.default_confidence,
        &format!("/args/{}", img.arg),
        format!(
            "`{} run` starts image `{}` without a digest: {why}",
            img.runtime, img.image
        ),
        Some(argv_evidence(spec)),
    )]
}

#[cfg(test)]
mod tests {
    use super::super::testutil::stdio;
    use super::*;

    #[test]
    fn digests_pass_tags_do_not() {
        assert_eq!(
            check(&stdio("docker", &["run", "-i", "img:1.0"], &[])).len(),
            1
        );
        let pinned = format!("img@sha256:{}", "0".repeat(64));
        assert!(check(&stdio("docker", &["run", "-i", &pinned], &[])).is_empty());
        assert!(
            check(&stdio("podman", &["run", "img"], &[]))[0]
                .message
                .contains("latest")
        );
    }
}
