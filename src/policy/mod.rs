//! The team allowlist (`mcpvet.toml`): allow/deny entries, credentials, requirements, rule remaps.
//!
//! [`Policy::load`] reads the file (unknown keys and bad values are errors at line:column),
//! [`Policy::find`] locates it at the repository root, and [`Policy::evaluate`] turns server
//! specs plus the findings of the other stages into the gate's findings and warnings.
//! `mcpvet init` writes [`TEMPLATE`].

use std::ops::Range;
use std::path::{Path, PathBuf};

use serde::Deserialize;
use toml::Spanned;

use crate::config::tree::Pos;
use crate::model::finding::{Confidence, Control, Finding, Location, RuleMeta, Severity};
use crate::model::rule_id;
use crate::model::spec::{Origin, ServerSpec, Transport};

pub mod glob;

/// The commented policy template `mcpvet init` writes.
pub const TEMPLATE: &str = include_str!("template.toml");

/// The file name looked for at the repository root.
pub const FILE_NAME: &str = "mcpvet.toml";

/// Why a policy file could not be used.
#[derive(Debug, thiserror::Error)]
pub enum PolicyError {
    #[error("cannot read policy {path}: {source}")]
    Io {
        path: String,
        #[source]
        source: std::io::Error,
    },
    #[error("{path}:{line}:{column}: {message}")]
    Invalid {
        path: String,
        line: usize,
        column: usize,
        message: String,
    },
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
struct RawPolicy {
    #[serde(default)]
    fail_on: Option<Spanned<String>>,
    #[serde(default)]
    require_pinned: bool,
    #[serde(default)]
    require_lock: bool,
    #[serde(default)]
    allow: Vec<Spanned<RawEntry>>,
    #[serde(default)]
    deny: Vec<Spanned<RawEntry>>,
    #[serde(default)]
    remap: Vec<Spanned<RawRemap>>,
    #[serde(default)]
    ignore: Vec<Spanned<RawIgnore>>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawEntry {
    name: Option<String>,
    package: Option<Spanned<String>>,
    command: Option<String>,
    url: Option<String>,
    credentials: Option<Vec<Spanned<RawCredential>>>,
    reason: Spanned<String>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(untagged)]
enum RawCredential {
    Name(String),
    Scoped { name: String, scope: Option<String> },
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawRemap {
    rule: String,
    server: Option<String>,
    severity: Spanned<String>,
    reason: Spanned<String>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawIgnore {
    rule: String,
    server: Option<String>,
    reason: Spanned<String>,
}

/// The scope a policy grants a credential.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum CredentialScope {
    Read,
    Write,
    Admin,
}

/// A credential an allow entry grants.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Grant {
    pub name: String,
    pub scope: Option<CredentialScope>,
}

/// One allow or deny entry. All the matchers it gives must match.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Entry {
    pub name: Option<String>,
    pub package: Option<String>,
    pub command: Option<String>,
    pub url: Option<String>,
    /// `None`: no credential restriction. `Some([])`: no credential at all.
    pub credentials: Option<Vec<Grant>>,
    pub reason: String,
    pub origin: Origin,
}

/// A per-rule severity change.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Remap {
    pub rule: String,
    pub server: Option<String>,
    pub severity: Severity,
    pub reason: String,
    pub origin: Origin,
}

/// A per-rule ignore.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Ignore {
    pub rule: String,
    pub server: Option<String>,
    pub reason: String,
    pub origin: Origin,
}

/// A loaded, validated policy.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Policy {
    pub path: PathBuf,
    pub fail_on: Severity,
    pub require_pinned: bool,
    pub require_lock: bool,
    pub allow: Vec<Entry>,
    pub deny: Vec<Entry>,
    pub remap: Vec<Remap>,
    pub ignore: Vec<Ignore>,
}

/// Something in the policy that deserves attention but is not an error.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct PolicyWarning {
    pub origin: Origin,
    pub message: String,
}

impl std::fmt::Display for PolicyWarning {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}", self.origin, self.message)
    }
}

/// What the policy made of the specs and findings.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PolicyOutcome {
    /// All findings after the policy's additions, escalations, remaps and ignores.
    pub findings: Vec<Finding>,
    pub warnings: Vec<PolicyWarning>,
    /// The severity at which the gate fails.
    pub fail_on: Severity,
}

/// What the lockfiles on disk say, as the policy needs it. Any `Fn(&str) -> bool` closure
/// ("is this server locked?") works; implement the trait for pin checks against lockfiles.
pub trait LockLookup {
    /// Is there an approved lockfile for this server?
    fn is_locked(&self, server: &str) -> bool;
    /// The package identity the lockfile approved (see `launch::package_identity`), if recorded.
    fn locked_identity(&self, _server: &str) -> Option<String> {
        None
    }
}

impl<F: Fn(&str) -> bool + ?Sized> LockLookup for F {
    fn is_locked(&self, server: &str) -> bool {
        self(server)
    }
}

const IDENTITY_PREFIXES: &[&str] = &["npm:", "pypi:", "oci:", "go:", "jsr:", "git:", "url:"];

impl Policy {
    /// The policy in force when there is no `mcpvet.toml`: no allowlist, nothing required,
    /// fail on high. Evaluating it still checks pins against the lockfiles.
    pub fn empty() -> Policy {
        Policy {
            path: PathBuf::new(),
            fail_on: Severity::High,
            require_pinned: false,
            require_lock: false,
            allow: Vec::new(),
            deny: Vec::new(),
            remap: Vec::new(),
            ignore: Vec::new(),
        }
    }

    /// Read and validate a policy file.
    pub fn load(path: &Path) -> Result<Policy, PolicyError> {
        let text = std::fs::read_to_string(path).map_err(|source| PolicyError::Io {
            path: path.display().to_string(),
            source,
        })?;
        Policy::parse(path, &text)
    }

    /// Validate policy text as if read from `path`.
    pub fn parse(path: &Path, text: &str) -> Result<Policy, PolicyError> {
        let err = |span: Range<usize>, message: String| {
            let pos = Pos::of_offset(text, span.start);
            PolicyError::Invalid {
                path: path.display().to_string(),
                line: pos.line as usize,
                column: pos.column as usize,
                message,
            }
        };
        let raw: RawPolicy = toml::from_str(text)
            .map_err(|e| err(e.span().unwrap_or(0..0), e.message().trim().to_string()))?;
        let origin = |span: Range<usize>| Pos::of_offset(text, span.start).origin(path);
        let severity = |s: &Spanned<String>| {
            s.get_ref()
                .parse::<Severity>()
                .map_err(|m| err(s.span(), m))
        };
        let reason = |r: &Spanned<String>, what: &str| {
            if r.get_ref().trim().is_empty() {
                Err(err(
                    r.span(),
                    format!("{what}: `reason` must say why (it is empty)"),
                ))
            } else {
                Ok(r.get_ref().trim().to_string())
            }
        };
        let entry = |e: &Spanned<RawEntry>, kind: &str| -> Result<Entry, PolicyError> {
            let r = e.get_ref();
            if r.name.is_none() && r.package.is_none() && r.command.is_none() && r.url.is_none() {
                return Err(err(
                    e.span(),
                    format!(
                        "[[{kind}]] entry needs at least one of `name`, `package`, `command`, `url`"
                    ),
                ));
            }
            if let Some(p) = &r.package {
                if !IDENTITY_PREFIXES
                    .iter()
                    .any(|pre| p.get_ref().starts_with(pre))
                {
                    return Err(err(
                        p.span(),
                        format!(
                            "package `{}` must be a package identity such as npm:@scope/pkg@1.2.3, pypi:pkg==1.2.3 or oci:image@sha256:…",
                            p.get_ref()
                        ),
                    ));
                }
            }
            let credentials = match &r.credentials {
                None => None,
                Some(list) => Some(
                    list.iter()
                        .map(|c| match c.get_ref() {
                            RawCredential::Name(n) => Ok(Grant { name: n.clone(), scope: None }),
                            RawCredential::Scoped { name, scope } => {
                                let scope = match scope {
                                    None => None,
                                    Some(s) => Some(match s.as_str() {
                                        "read" => CredentialScope::Read,
                                        "write" => CredentialScope::Write,
                                        "admin" => CredentialScope::Admin,
                                        other => {
                                            return Err(err(c.span(), format!(
                                                "unknown credential scope `{other}` (expected read, write or admin)"
                                            )));
                                        }
                                    }),
                                };
                                Ok(Grant { name: name.clone(), scope })
                            }
                        })
                        .collect::<Result<Vec<_>, _>>()?,
                ),
            };
            Ok(Entry {
                name: r.name.clone(),
                package: r.package.as_ref().map(|p| p.get_ref().clone()),
                command: r.command.clone(),
                url: r.url.clone(),
                credentials,
                reason: reason(&r.reason, &format!("[[{kind}]]"))?,
                origin: origin(e.span()),
            })
        };
        Ok(Policy {
            path: path.to_path_buf(),
            fail_on: raw
                .fail_on
                .as_ref()
                .map(severity)
                .transpose()?
                .unwrap_or(Severity::High),
            require_pinned: raw.require_pinned,
            require_lock: raw.require_lock,
            allow: raw
                .allow
                .iter()
                .map(|e| entry(e, "allow"))
                .collect::<Result<_, _>>()?,
            deny: raw
                .deny
                .iter()
                .map(|e| entry(e, "deny"))
                .collect::<Result<_, _>>()?,
            remap: raw
                .remap
                .iter()
                .map(|r| {
                    let v = r.get_ref();
                    Ok(Remap {
                        rule: v.rule.clone(),
                        server: v.server.clone(),
                        severity: severity(&v.severity)?,
                        reason: reason(&v.reason, "[[remap]]")?,
                        origin: origin(r.span()),
                    })
                })
                .collect::<Result<_, PolicyError>>()?,
            ignore: raw
                .ignore
                .iter()
                .map(|r| {
                    let v = r.get_ref();
                    Ok(Ignore {
                        rule: v.rule.clone(),
                        server: v.server.clone(),
                        reason: reason(&v.reason, "[[ignore]]")?,
                        origin: origin(r.span()),
                    })
                })
                .collect::<Result<_, PolicyError>>()?,
        })
    }

    /// The `mcpvet.toml` of the repository `start_dir` is in: the nearest one walking up,
    /// stopping at the repository root (the folder holding `.git`).
    pub fn find(start_dir: &Path) -> Option<PathBuf> {
        for dir in start_dir.ancestors() {
            let candidate = dir.join(FILE_NAME);
            if candidate.is_file() {
                return Some(candidate);
            }
            if dir.join(".git").exists() {
                break;
            }
        }
        None
    }

    /// Apply the policy. `findings` are those of the other stages (launch rules, definition
    /// rules, lockfile checks) for the same specs.
    pub fn evaluate(
        &self,
        specs: &[ServerSpec],
        findings: Vec<Finding>,
        locks: &dyn LockLookup,
    ) -> PolicyOutcome {
        let mut findings = findings;
        let mut warnings = Vec::new();
        let mut allow_used = vec![false; self.allow.len()];
        let mut deny_used = vec![false; self.deny.len()];
        for spec in specs {
            let identity = crate::model::package::package_identity(spec);
            let mut denied = false;
            for (i, d) in self.deny.iter().enumerate() {
                if entry_matches(d, spec, identity.as_deref()) == Match::Full {
                    deny_used[i] = true;
                    denied = true;
                    findings.push(policy_finding(
                        spec,
                        rule_id::DENIED_SERVER,
                        Severity::Critical,
                        "/command",
                        format!(
                            "server `{}` is denied by the policy: {}",
                            spec.name, d.reason
                        ),
                        Some(format!(
                            "{} ({})",
                            crate::model::redact::argv_evidence(spec),
                            d.origin
                        )),
                    ));
                }
            }
            // A denied server is not also reported as missing from the allowlist.
            if !self.allow.is_empty() && !denied {
                let mut allowed: Option<&Entry> = None;
                let mut mismatch: Option<&Entry> = None;
                for (i, a) in self.allow.iter().enumerate() {
                    match entry_matches(a, spec, identity.as_deref()) {
                        Match::Full => {
                            allow_used[i] = true;
                            allowed.get_or_insert(a);
                        }
                        Match::NameOnly => {
                            allow_used[i] = true;
                            mismatch.get_or_insert(a);
                        }
                        Match::No => {}
                    }
                }
                match (allowed, mismatch) {
                    (Some(entry), _) => {
                        self.check_credentials(spec, entry, &mut findings, &mut warnings);
                    }
                    (None, Some(entry)) => findings.push(policy_finding(
                        spec,
                        rule_id::PIN_MISMATCH,
                        Severity::High,
                        &package_pointer(spec),
                        format!(
                            "server `{}` runs `{}` but the allowlist approved `{}`",
                            spec.name,
                            identity.as_deref().unwrap_or("a different command"),
                            entry.package.as_deref().unwrap_or("another launch")
                        ),
                        Some(crate::model::redact::argv_evidence(spec)),
                    )),
                    (None, None) => findings.push(policy_finding(
                        spec,
                        rule_id::NOT_ALLOWLISTED,
                        Severity::High,
                        "/command",
                        format!(
                            "server `{}` is not on the team allowlist ({})",
                            spec.name,
                            self.path.display()
                        ),
                        Some(crate::model::redact::argv_evidence(spec)),
                    )),
                }
            }
            if self.require_lock && !locks.is_locked(&spec.name) {
                findings.push(policy_finding(
                    spec,
                    rule_id::UNLOCKED_SERVER,
                    Severity::High,
                    "/command",
                    format!(
                        "server `{}` has no approved lockfile; review it and run `mcpvet lock`",
                        spec.name
                    ),
                    None,
                ));
            }
            if let (Some(locked), Some(id)) =
                (locks.locked_identity(&spec.name), identity.as_deref())
            {
                if locked != id {
                    findings.push(policy_finding(
                        spec,
                        rule_id::PIN_MISMATCH,
                        Severity::High,
                        &package_pointer(spec),
                        format!(
                            "server `{}` runs `{id}` but its lockfile approved `{locked}`",
                            spec.name
                        ),
                        Some(crate::model::redact::argv_evidence(spec)),
                    ));
                }
            }
        }
        if self.require_pinned {
            for f in &mut findings {
                if matches!(
                    f.rule.as_str(),
                    rule_id::UNPINNED_PACKAGE | rule_id::UNPINNED_IMAGE | rule_id::UNPINNED_GIT
                ) && f.severity < Severity::High
                {
                    f.severity = Severity::High;
                    f.message.push_str(" (the policy requires pinned launches)");
                }
            }
        }
        for ig in &self.ignore {
            let before = findings.len();
            findings.retain(|f| {
                !(f.rule == ig.rule
                    && ig
                        .server
                        .as_deref()
                        .is_none_or(|s| glob::matches(s, &f.server)))
            });
            if findings.len() == before {
                warnings.push(PolicyWarning {
                    origin: ig.origin.clone(),
                    message: format!("ignore of `{}` matched no finding; remove it", ig.rule),
                });
            }
        }
        for rm in &self.remap {
            let mut hit = false;
            for f in findings.iter_mut().filter(|f| {
                f.rule == rm.rule
                    && rm
                        .server
                        .as_deref()
                        .is_none_or(|s| glob::matches(s, &f.server))
            }) {
                hit = true;
                f.severity = rm.severity;
            }
            if !hit {
                warnings.push(PolicyWarning {
                    origin: rm.origin.clone(),
                    message: format!("remap of `{}` matched no finding; remove it", rm.rule),
                });
            }
        }
        for (e, used) in self.allow.iter().zip(&allow_used).filter(|(_, u)| !**u) {
            let _ = used;
            warnings.push(PolicyWarning {
                origin: e.origin.clone(),
                message: format!("allow entry {} matched no configured server", describe(e)),
            });
        }
        for (e, used) in self.deny.iter().zip(&deny_used).filter(|(_, u)| !**u) {
            let _ = used;
            warnings.push(PolicyWarning {
                origin: e.origin.clone(),
                message: format!("deny entry {} matched no configured server", describe(e)),
            });
        }
        findings.sort_by(|a, b| a.sort_key().cmp(&b.sort_key()));
        PolicyOutcome {
            findings,
            warnings,
            fail_on: self.fail_on,
        }
    }

    fn check_credentials(
        &self,
        spec: &ServerSpec,
        entry: &Entry,
        findings: &mut Vec<Finding>,
        warnings: &mut Vec<PolicyWarning>,
    ) {
        let Some(grants) = &entry.credentials else {
            return;
        };
        let received = crate::model::secrets::credentials(spec);
        for g in grants {
            if !received.iter().any(|(_, name, _)| name == &g.name) {
                warnings.push(PolicyWarning {
                    origin: entry.origin.clone(),
                    message: format!(
                        "credential `{}` is granted to `{}` but its config does not pass it; remove the grant",
                        g.name, spec.name
                    ),
                });
            }
        }
        for (pointer, name, value) in received {
            let at = spec.origin_of(&pointer).cloned();
            match grants.iter().find(|g| g.name == name) {
                None => {
                    let granted = if grants.is_empty() {
                        "none".to_string()
                    } else {
                        grants
                            .iter()
                            .map(|g| g.name.as_str())
                            .collect::<Vec<_>>()
                            .join(", ")
                    };
                    findings.push(policy_finding(spec, rule_id::BROAD_CREDENTIAL, Severity::High, &pointer,
                        format!("server `{}` receives credential `{name}`, which the policy does not grant (granted: {granted})", spec.name),
                        Some(format!("{name} = {}", crate::model::redact::redact_field(Some(&name), &value)))));
                }
                Some(Grant {
                    scope: Some(CredentialScope::Admin | CredentialScope::Write),
                    ..
                }) => {
                    // The team granted a broad credential on purpose: keep the finding visible, not failing.
                    for f in findings.iter_mut().filter(|f| {
                        f.rule == rule_id::BROAD_CREDENTIAL
                            && f.server == spec.name
                            && f.location.config == at
                    }) {
                        f.severity = Severity::Info;
                        f.message
                            .push_str(&format!(" (granted by the policy: {})", entry.reason));
                    }
                }
                Some(Grant {
                    scope: Some(CredentialScope::Read),
                    ..
                }) => {
                    for f in findings.iter_mut().filter(|f| {
                        f.rule == rule_id::BROAD_CREDENTIAL
                            && f.server == spec.name
                            && f.location.config == at
                    }) {
                        f.message.push_str(" (the policy grants only read access)");
                        f.severity = f.severity.max(Severity::High);
                    }
                }
                Some(_) => {}
            }
        }
    }
}

#[derive(Debug, PartialEq, Eq)]
enum Match {
    Full,
    /// The name matched but the package identity did not.
    NameOnly,
    No,
}

fn command_line(spec: &ServerSpec) -> Option<String> {
    match &spec.transport {
        Transport::Stdio { command, args, .. } => Some(
            std::iter::once(command.as_str())
                .chain(args.iter().map(String::as_str))
                .collect::<Vec<_>>()
                .join(" "),
        ),
        Transport::Http { .. } => None,
    }
}

fn entry_matches(e: &Entry, spec: &ServerSpec, identity: Option<&str>) -> Match {
    let name_ok = e
        .name
        .as_deref()
        .is_none_or(|n| glob::matches(n, &spec.name));
    let command_ok = e
        .command
        .as_deref()
        .is_none_or(|c| command_line(spec).is_some_and(|l| glob::matches(c, &l)));
    let url_ok = e.url.as_deref().is_none_or(
        |u| matches!(&spec.transport, Transport::Http { url, .. } if glob::matches(u, url)),
    );
    let package_ok = e
        .package
        .as_deref()
        .is_none_or(|p| identity.is_some_and(|id| glob::matches(p, id)));
    if name_ok && command_ok && url_ok && package_ok {
        Match::Full
    } else if e.name.is_some() && name_ok && command_ok && url_ok && !package_ok {
        Match::NameOnly
    } else {
        Match::No
    }
}

fn describe(e: &Entry) -> String {
    let mut parts = Vec::new();
    for (k, v) in [
        ("name", &e.name),
        ("package", &e.package),
        ("command", &e.command),
        ("url", &e.url),
    ] {
        if let Some(v) = v {
            parts.push(format!("{k} = {v:?}"));
        }
    }
    format!("{{ {} }}", parts.join(", "))
}

fn package_pointer(spec: &ServerSpec) -> String {
    crate::model::package::packages(spec)
        .first()
        .and_then(|p| p.arg)
        .or_else(|| crate::model::package::image(spec).map(|i| i.arg))
        .map_or("/command".into(), |i| format!("/args/{i}"))
}

fn policy_finding(
    spec: &ServerSpec,
    rule: &str,
    severity: Severity,
    pointer: &str,
    message: String,
    evidence: Option<String>,
) -> Finding {
    let control = rule_meta()
        .into_iter()
        .find(|m| m.id == rule)
        .map_or(Control::LeastPrivilegeCredential, |m| m.control);
    Finding {
        rule: rule.into(),
        severity,
        confidence: Confidence::High,
        server: spec.name.clone(),
        item: None,
        location: Location {
            config: spec.origin_of(pointer).cloned(),
            pointer: None,
        },
        message,
        evidence: evidence.map(|e| crate::model::redact::redact_secrets(&e)),
        control,
    }
}

/// The rules the policy emits (it also adds `broad-credential` findings, documented by `launch`).
pub fn rule_meta() -> Vec<RuleMeta> {
    let m = |id: &str, summary: &str, why: &str, example: &str, sev: Severity, control: Control| {
        RuleMeta::new(
            id,
            "policy",
            summary,
            why,
            example,
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
            (1, 1, 1, 1)
        );
    }

    #[test]
    fn errors_point_at_the_line() {
        let e = parse("fail-on = \"high\"\nrequire-pined = true\n").expect_err("unknown key");
        assert!(e.to_string().starts_with("mcpvet.toml:2:1:"), "{e}");
        let e = parse("fail-on = \"hgih\"\n").expect_err("bad severity");
        assert!(
            e.to_string().starts_with("mcpvet.toml:1:11:")
                && e.to_string().contains("unknown severity"),
            "{e}"
        );
        let e = parse("[[allow]]\nname = \"x\"\n").expect_err("no reason");
        assert!(e.to_string().contains("reason"), "{e}");
        let e = parse("[[allow]]\nname = \"x\"\nreason = \" \"\n").expect_err("empty reason");
        assert!(e.to_string().starts_with("mcpvet.toml:3:"), "{e}");
        let e = parse("[[allow]]\npackage = \"ci-insights\"\nreason = \"r\"\n")
            .expect_err("bad identity");
        assert!(e.to_string().starts_with("mcpvet.toml:2:11:"), "{e}");
        let e = parse("[[allow]]\nname = \"x\"\ncredentials = [{ name = \"T\", scope = \"all\" }]\nreason = \"r\"\n").expect_err("bad scope");
        assert!(e.to_string().contains("scope"), "{e}");
        let e = parse("[[deny]]\nreason = \"r\"\n").expect_err("no matcher");
        assert!(e.to_string().contains("at least one"), "{e}");
    }

    #[test]
    fn find_stops_at_the_repository_root() {
        let dir = tempfile::tempdir().expect("tmp");
        let repo = dir.path().join("repo");
        let sub = repo.join("a/b");
        std::fs::create_dir_all(&sub).expect("mkdir");
        std::fs::create_dir_all(repo.join(".git")).expect("mkdir");
        assert_eq!(Policy::find(&sub), None);
        std::fs::write(dir.path().join(FILE_NAME), "").expect("write");
        assert_eq!(Policy::find(&sub), None, "outside the repository");
        std::fs::write(repo.join(FILE_NAME), "").expect("write");
        assert_eq!(Policy::find(&sub), Some(repo.join(FILE_NAME)));
    }
}
