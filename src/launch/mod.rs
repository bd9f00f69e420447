//! Launch audit: rules over what a server spec runs and with which credentials (no I/O).
//!
//! One rule per file, each with its [`RuleMeta`] beside it; [`audit_spec`] runs them all.
//! Evidence never contains a secret in full (see [`secrets::redact_secrets`]).

use crate::audit::finding::{Confidence, Control, Finding, Location, RuleMeta, Severity};
use crate::spec::{ServerSpec, Transport};

pub mod auto_trust;
pub mod broad_credential;
pub mod insecure_transport;
pub mod launcher;
pub mod literal_secret;
pub mod risky_launch;
pub mod secrets;
pub mod unpinned_git;
pub mod unpinned_image;
pub mod unpinned_package;

pub use secrets::redact_secrets;

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

/// The identity of what the spec runs, for allowlists and lockfiles:
/// `npm:@scope/pkg@1.2.3`, `pypi:pkg==1.2.3`, `oci:image@sha256:…`, `go:module@v1.2.3`,
/// `jsr:@scope/pkg@1.2.3`, `git:<url>` (version or tag as written; no version → the bare name).
/// `None` for a local command or a remote URL.
pub fn package_identity(spec: &ServerSpec) -> Option<String> {
    if let Some(img) = launcher::image(spec) {
        return Some(format!("oci:{}", img.image));
    }
    if let Some((_, src, _)) = launcher::git_sources(spec).into_iter().next() {
        return Some(format!("git:{src}"));
    }
    let p = launcher::packages(spec).into_iter().next()?;
    Some(match p.ecosystem {
        launcher::Ecosystem::Npm => match &p.version {
            Some(v) => format!("npm:{}@{v}", p.name),
            None => format!("npm:{}", p.name),
        },
        launcher::Ecosystem::Jsr => match &p.version {
            Some(v) => format!("jsr:{}@{v}", p.name),
            None => format!("jsr:{}", p.name),
        },
        launcher::Ecosystem::Pypi => match &p.version {
            Some(v) if v.starts_with('@') => format!("pypi:{}=={}", p.name, &v[1..]),
            Some(v) => format!("pypi:{}{v}", p.name),
            None => format!("pypi:{}", p.name),
        },
        launcher::Ecosystem::Go => match &p.version {
            Some(v) => format!("go:{}@{v}", p.name),
            None => format!("go:{}", p.name),
        },
        launcher::Ecosystem::Url => format!("url:{}", p.name),
    })
}

/// Is this literal value a credential, given what its field name says?
pub fn is_literal_secret_for(name: &str, value: &str) -> bool {
    if secrets::has_reference(value) {
        return false;
    }
    match credential_name(name) {
        Some(CredentialName::Strong) => secrets::is_literal_credential(value),
        Some(CredentialName::Weak) => secrets::looks_like_secret(value),
        None => false,
    }
}

/// A field value that is safe to show: known-format secrets redacted; the whole value
/// redacted when `name` says it is a credential and the value is a literal one; credential
/// query parameters of URLs redacted.
pub fn redact_field(name: Option<&str>, value: &str) -> String {
    if !secrets::find_secrets(value).is_empty() {
        return redact_secrets(value);
    }
    if name.is_some_and(|n| is_literal_secret_for(n, value)) {
        return secrets::redact_generic(value);
    }
    secrets::redact_query(value)
}

/// How argument `i` names its value: `--token=V`, `--token V`, or `KEY=V` (as in docker
/// `-e KEY=V` or `env KEY=V`). Returns (name, text before the value, value).
pub fn arg_field(args: &[String], i: usize) -> (Option<String>, String, String) {
    let a = args.get(i).cloned().unwrap_or_default();
    if let Some((k, v)) = a.split_once('=') {
        let is_key = k.starts_with('-')
            || (!k.is_empty() && k.chars().all(|c| c.is_ascii_alphanumeric() || c == '_'));
        if is_key && !k.contains("://") {
            return (Some(k.to_string()), format!("{k}="), v.to_string());
        }
    }
    if i > 0 && args[i - 1].starts_with('-') && !args[i - 1].contains('=') {
        return (Some(args[i - 1].clone()), String::new(), a);
    }
    (None, String::new(), a)
}

/// Each argument with any secret it carries redacted (`--token V`, `--token=V`, `KEY=V`,
/// known token formats, credential query parameters).
pub fn redacted_args(args: &[String]) -> Vec<String> {
    (0..args.len())
        .map(|i| {
            let (name, prefix, value) = arg_field(args, i);
            format!("{prefix}{}", redact_field(name.as_deref(), &value))
        })
        .collect()
}

/// The command line as one redacted string, for evidence.
pub fn argv_evidence(spec: &ServerSpec) -> String {
    match &spec.transport {
        Transport::Stdio { command, args, .. } => {
            let mut s = redact_field(None, command);
            for shown in redacted_args(args) {
                s.push(' ');
                if shown.is_empty() || shown.contains(char::is_whitespace) {
                    s.push_str(&format!("{shown:?}"));
                } else {
                    s.push_str(&shown);
                }
            }
            s
        }
        Transport::Http { url, .. } => redact_field(None, url),
    }
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
        id, "launch", summary, why, example, severity, confidence, control,
    )
}

/// How surely a variable or header name says it holds a credential.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum CredentialName {
    /// `KEY` or `AUTH` alone: a credential only if the value looks random.
    Weak,
    /// `TOKEN`, `SECRET`, `PASSWORD`, `API_KEY`, `Authorization`, …: any literal value is one.
    Strong,
}

/// Whether (and how surely) a name says it carries a credential. Names that describe
/// something about a credential (`TOKEN_URL`, `CLIENT_ID`, `MAX_TOKENS`, `SECRET_NAME`) do not.
pub fn credential_name(name: &str) -> Option<CredentialName> {
    const STRONG: &[&str] = &[
        "TOKEN",
        "SECRET",
        "SECRETS",
        "PASSWORD",
        "PASSWD",
        "PWD",
        "PASS",
        "PASSPHRASE",
        "APIKEY",
        "CREDENTIAL",
        "CREDENTIALS",
        "AUTHORIZATION",
        "PAT",
        "COOKIE",
        "BEARER",
    ];
    const KEY_KINDS: &[&str] = &[
        "API",
        "ACCESS",
        "PRIVATE",
        "SECRET",
        "AUTH",
        "MASTER",
        "ENCRYPTION",
        "SIGNING",
        "LICENSE",
        "SERVICE",
        "SUBSCRIPTION",
        "APP",
        "CLIENT",
        "X",
    ];
    const NOT_THE_SECRET: &[&str] = &[
        "ID", "IDS", "URL", "URI", "ENDPOINT", "FILE", "PATH", "DIR", "NAME", "TYPE", "SCOPE",
        "SCOPES", "LIMIT", "MODE", "PROVIDER", "AUDIENCE", "HEADER", "EXPIRY", "EXPIRES", "TTL",
        "LENGTH", "COUNT", "MAX", "MIN", "SIZE", "ENV", "VAR", "REGION", "HOST", "PORT", "USER",
        "USERNAME", "EMAIL", "ENABLED", "DISABLED", "TOKENS", "METHOD", "ISSUER", "PREFIX",
    ];
    let words = split_words(name);
    let last = words.last()?;
    if NOT_THE_SECRET.contains(&last.as_str()) {
        return None;
    }
    if words.iter().any(|w| STRONG.contains(&w.as_str())) {
        return Some(CredentialName::Strong);
    }
    for (i, w) in words.iter().enumerate() {
        if w == "KEY" || w == "KEYS" {
            let strong = i > 0 && KEY_KINDS.contains(&words[i - 1].as_str());
            return Some(if strong {
                CredentialName::Strong
            } else {
                CredentialName::Weak
            });
        }
    }
    words
        .iter()
        .any(|w| w == "AUTH")
        .then_some(CredentialName::Weak)
}

/// Is an environment variable or header name one that carries a credential?
pub fn is_credential_name(name: &str) -> bool {
    credential_name(name).is_some()
}

/// Upper-case words of an identifier (`X-Api-Key` → `X`,`API`,`KEY`; `githubToken` → `GITHUB`,`TOKEN`).
pub fn split_words(name: &str) -> Vec<String> {
    crate::audit::checks::name_words(name)
        .into_iter()
        .map(|w| w.to_uppercase())
        .collect()
}

/// Every credential a spec hands the server: (JSON Pointer, name, value) for env entries and
/// headers whose name says they carry a credential, plus any value holding a known secret.
pub fn credentials(spec: &ServerSpec) -> Vec<(String, String, String)> {
    let mut out = Vec::new();
    let (map, kind) = match &spec.transport {
        Transport::Stdio { env, .. } => (env, "env"),
        Transport::Http { headers, .. } => (headers, "headers"),
    };
    for (k, v) in map {
        if is_credential_name(k) || !secrets::find_secrets(v).is_empty() {
            out.push((
                format!("/{kind}/{}", crate::config::entry::pointer_token(k)),
                k.clone(),
                v.clone(),
            ));
        }
    }
    out
}

#[cfg(test)]
pub(crate) mod testutil {
    use std::collections::BTreeMap;
    use std::path::PathBuf;

    use crate::spec::{Origin, ServerSpec, Transport};

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
            host: "test".into(),
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
        }
    }

    pub fn http(url: &str, headers: &[(&str, &str)]) -> ServerSpec {
        ServerSpec {
            name: "remote".into(),
            host: "test".into(),
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
        }
    }
}

#[cfg(test)]
mod tests {
    use super::testutil::*;
    use super::*;

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
