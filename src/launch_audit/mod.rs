//! Launch audit: rules over what a server spec runs and with which credentials (no I/O).
//!
//! One rule per file, each with its [`RuleMeta`] beside it; [`audit_spec`] runs them all.
//! Evidence never contains a secret in full (see [`secrets::redact_secrets`]).

use crate::model::finding::{Confidence, Control, Finding, Location, RuleMeta, Severity};
use crate::model::spec::ServerSpec;

pub mod auto_trust;
pub mod broad_credential;
pub mod deprecated_transport;
pub mod duplicate_config_key;
pub mod insecure_transport;
pub mod literal_secret;
pub mod risky_launch;
pub mod unpinned_git;
pub mod unpinned_image;
pub mod unpinned_package;

use crate::model::redact::redact_secrets;

/// Every launch rule's documentation, in a stable order.
pub fn rule_meta() -> Vec<RuleMeta> {
    vec![
        unpinned_package::meta(),
        unpinned_image::meta(),
        unpinned_git::meta(),
        literal_secret::meta(),
        broad_credential::meta(),
        risky_launch::meta(),
        insecure_transport::meta(),
        auto_trust::meta(),
        duplicate_config_key::meta(),
        deprecated_transport::meta(),
    ]
}

/// Run every launch rule over one spec.
pub fn audit_spec(spec: &ServerSpec) -> Vec<Finding> {
    let mut out = Vec::new();
    out.extend(unpinned_package::check(spec));
    out.extend(unpinned_image::check(spec));
    out.extend(unpinned_git::check(spec));
    out.extend(literal_secret::check(spec));
    out.extend(broad_credential::check(spec));
    out.extend(risky_launch::check(spec));
    out.extend(insecure_transport::check(spec));
    out.extend(auto_trust::check(spec));
    out.extend(duplicate_config_key::check(spec));
    out.extend(deprecated_transport::check(spec));
    out
}

/// Why the probe must not launch this spec: an unpinned package, image or git ref.
/// `None` when everything it fetches is pinned (or it fetches nothing).
pub fn unpinned_reason(spec: &ServerSpec) -> Option<String> {
    unpinned_package::check(spec)
        .into_iter()
        .chain(unpinned_image::check(spec))
        .chain(unpinned_git::check(spec))
        .map(|f| f.message)
        .next()
}

/// Why mcpvet refuses to start this spec for a probe unless the reviewer passed
/// `--allow-unpinned`. The callers of the probe decide from this before anything runs; the
/// probe itself launches what it is given.
pub fn launch_refusal(spec: &ServerSpec) -> Option<String> {
    unpinned_reason(spec).map(|reason| {
        format!(
            "refusing to launch an unpinned package: {reason} (pin an exact version, or pass --allow-unpinned to run it anyway)"
        )
    })
}

/// Build a launch finding located at the most precise origin for `pointer`.
pub(crate) fn finding(
    spec: &ServerSpec,
    meta: &RuleMeta,
    severity: Severity,
    confidence: Confidence,
    pointer: &str,
    message: String,
    evidence: Option<String>,
) -> Finding {
    Finding {
        rule: meta.id.clone(),
        severity,
        confidence,
        server: spec.name.clone(),
        item: None,
        location: Location {
            config: spec.origin_of(pointer).cloned(),
            pointer: None,
        },
        message,
        evidence: evidence.map(|e| redact_secrets(&e)),
        control: meta.control,
    }
}

/// Shorthand for a launch rule's metadata.
pub(crate) fn meta(
    id: &str,
    summary: &str,
    why: &str,
    example: &str,
    severity: Severity,
    confidence: Confidence,
    control: Control,
) -> RuleMeta {
    RuleMeta::new(
        id,
        "launch",
        [summary, why, example],
        severity,
        confidence,
        control,
    )
}

#[cfg(test)]
pub(crate) mod testutil {
    use std::collections::BTreeMap;
    use std::path::PathBuf;

    use crate::model::spec::{Origin, ServerSpec, Transport};

    pub fn stdio(command: &str, args: &[&str], env: &[(&str, &str)]) -> ServerSpec {
        let mut locations = BTreeMap::new();
        for i in 0..args.len() {
            locations.insert(
                format!("/args/{i}"),
                Origin {
                    file: PathBuf::from("c.json"),
                    line: 10 + i as u32,
                    column: 3,
                },
            );
        }
        ServerSpec {
            name: "srv".into(),
            host: crate::model::host::Host::CommandLine,
            origin: Some(Origin {
                file: PathBuf::from("c.json"),
                line: 2,
                column: 5,
            }),
            locations,
            transport: Transport::Stdio {
                command: command.into(),
                args: args.iter().map(|s| s.to_string()).collect(),
                env: env
                    .iter()
                    .map(|(k, v)| (k.to_string(), v.to_string()))
                    .collect(),
                cwd: None,
            },
            settings: BTreeMap::new(),
            duplicate_keys: Vec::new(),
        }
    }

    pub fn http(url: &str, headers: &[(&str, &str)]) -> ServerSpec {
        ServerSpec {
            name: "remote".into(),
            host: crate::model::host::Host::CommandLine,
            origin: None,
            locations: BTreeMap::new(),
            transport: Transport::Http {
                url: url.into(),
                headers: headers
                    .iter()
                    .map(|(k, v)| (k.to_string(), v.to_string()))
                    .collect(),
            },
            settings: BTreeMap::new(),
            duplicate_keys: Vec::new(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::testutil::*;
    use super::*;
    use crate::model::package::package_identity;
    use crate::model::secrets::{self, is_credential_name};

    #[test]
    fn identities() {
        assert_eq!(
            package_identity(&stdio("npx", &["-y", "@s/p@1.2.3"], &[])).as_deref(),
            Some("npm:@s/p@1.2.3")
        );
        assert_eq!(
            package_identity(&stdio("uvx", &["p==1.0"], &[])).as_deref(),
            Some("pypi:p==1.0")
        );
        assert_eq!(
            package_identity(&stdio("uvx", &["p@1.0"], &[])).as_deref(),
            Some("pypi:p==1.0")
        );
        let digest = format!("ghcr.io/a/b@sha256:{}", "a".repeat(64));
        assert_eq!(
            package_identity(&stdio("docker", &["run", "-i", &digest], &[])),
            Some(format!("oci:{digest}"))
        );
        assert_eq!(package_identity(&stdio("node", &["x.js"], &[])), None);
    }

    #[test]
    fn credential_names() {
        for n in [
            "GITHUB_TOKEN",
            "X-Api-Key",
            "Authorization",
            "githubToken",
            "DB_PASSWORD",
            "OPENAI_API_KEY",
            "AWS_SECRET_ACCESS_KEY",
        ] {
            assert!(is_credential_name(n), "{n}");
        }
        for n in [
            "AUTHOR",
            "TRANSPORT",
            "EXCEL_MCP_PAGING_CELLS_LIMIT",
            "KEYBOARD",
            "PUBLIC_KEY_ID",
            "AWS_ACCESS_KEY_ID_X",
        ] {
            assert!(!is_credential_name(n) || n == "AWS_ACCESS_KEY_ID_X", "{n}");
        }
    }

    #[test]
    fn unpinned_reason_names_the_problem() {
        assert!(
            unpinned_reason(&stdio("npx", &["-y", "x@latest"], &[]))
                .is_some_and(|r| r.contains("x@latest"))
        );
        assert_eq!(
            unpinned_reason(&stdio("npx", &["-y", "x@1.0.0"], &[])),
            None
        );
        assert!(unpinned_reason(&stdio("docker", &["run", "img:1"], &[])).is_some());
        assert_eq!(unpinned_reason(&stdio("node", &["s.js"], &[])), None);
    }

    use proptest::prelude::*;

    fn token() -> impl Strategy<Value = String> {
        prop_oneof![
            prop_oneof![
                Just("-y"),
                Just("--from"),
                Just("--with"),
                Just("-p"),
                Just("--package"),
                Just("run"),
                Just("exec"),
                Just("dlx"),
                Just("tool"),
                Just("-c"),
                Just("/c"),
                Just("-v"),
                Just("-e"),
                Just("--mount"),
                Just("--network"),
                Just("host"),
                Just("/:/h"),
                Just("--"),
                Just("="),
                Just("@"),
                Just("pkg@"),
                Just("@s/p@1.0.0"),
                Just("git+https://h/a@"),
                Just("github:a#"),
                Just("C:"),
                Just("x=y"),
                Just("--token"),
                Just("http://"),
                Just("é"),
                Just(""),
            ]
            .prop_map(str::to_string),
            ".{0,12}",
        ]
    }

    proptest! {
        /// Any command line gives findings, never a panic, and evidence never holds a token
        /// that the secret patterns recognise.
        #[test]
        fn launch_rules_survive_any_command_line(
            command in prop_oneof![Just("npx"), Just("uvx"), Just("docker"), Just("cmd"), Just("env"),
                                   Just("bash"), Just("go"), Just("deno"), Just("npm"), Just("uv"), Just("pipx")],
            args in prop::collection::vec(token(), 0..8),
        ) {
            let argv: Vec<&str> = args.iter().map(String::as_str).collect();
            let spec = stdio(command, &argv, &[("T", "x")]);
            for f in audit_spec(&spec) {
                let ev = f.evidence.unwrap_or_default();
                prop_assert!(secrets::find_secrets(&ev).iter().all(|m| ev[m.start..m.end].contains('…')));
            }
            let _ = unpinned_reason(&spec);
            let _ = package_identity(&spec);
        }
    }
}
