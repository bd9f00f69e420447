//! Applying a [`Policy`]: allow/deny matching, credential grants, required locks and pins,
//! then the ignores and remaps, with a warning for every entry that matched nothing.

use std::path::Path;

use super::glob;
use super::{
    CredentialScope, Entry, Grant, Ignore, IgnoreHit, LockLookup, Policy, PolicyOutcome,
    PolicyWarning,
};
use crate::model::finding::ItemKind;
use crate::model::finding::{Confidence, Control, Finding, Location, Severity};
use crate::model::fingerprint::Fingerprinter;
use crate::model::rule_id;
use crate::model::spec::{ServerSpec, Transport};

impl Policy {
    /// Apply the policy. `findings` are those of the other stages (launch rules, definition
    /// rules, lockfile checks) for the same specs.
    pub fn evaluate(
        &self,
        specs: &[ServerSpec],
        findings: Vec<Finding>,
        locks: &dyn LockLookup,
    ) -> PolicyOutcome {
        self.evaluate_in(None, specs, findings, locks)
    }

    /// [`Policy::evaluate`] for a run whose config paths are relative to `root` (the
    /// working folder): `[[ignore]]` fingerprints and paths are matched as the report shows
    /// them.
    pub fn evaluate_in(
        &self,
        root: Option<&Path>,
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
        let prints = Fingerprinter::new(specs, root);
        let mut ignored: Vec<IgnoreHit> = Vec::new();
        for (i, ig) in self.ignore.iter().enumerate() {
            let before = findings.len();
            findings.retain(|f| {
                if !ignore_matches(ig, f, &prints) {
                    return true;
                }
                match ignored
                    .iter_mut()
                    .find(|h| h.entry == i && h.rule == f.rule)
                {
                    Some(hit) => hit.count += 1,
                    None => ignored.push(IgnoreHit {
                        entry: i,
                        rule: f.rule.clone(),
                        count: 1,
                    }),
                }
                false
            });
            if findings.len() == before {
                warnings.push(PolicyWarning {
                    origin: ig.origin.clone(),
                    message: format!(
                        "ignore {{ {} }} matched no finding; remove it",
                        crate::model::escape::line(&ig.describe())
                    ),
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
        for g in &self.sandbox_network {
            if !specs.iter().any(|s| glob::matches(&g.name, &s.name)) {
                warnings.push(PolicyWarning {
                    origin: g.origin.clone(),
                    message: format!(
                        "sandbox-network entry `{}` matched no configured server",
                        g.name
                    ),
                });
            }
        }
        findings.sort_by(|a, b| a.sort_key().cmp(&b.sort_key()));
        PolicyOutcome {
            findings,
            warnings,
            fail_on: self.fail_on,
            ignored,
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

/// Whether one `[[ignore]]` entry covers a finding: every key it gives matches.
fn ignore_matches(ig: &Ignore, f: &Finding, prints: &Fingerprinter<'_>) -> bool {
    ig.rule.as_deref().is_none_or(|r| r == f.rule)
        && ig
            .server
            .as_deref()
            .is_none_or(|s| glob::matches(s, &f.server))
        && ig.tool.as_deref().is_none_or(|t| {
            f.item
                .as_ref()
                .is_some_and(|i| i.kind == ItemKind::Tool && glob::matches(t, &i.name))
        })
        && ig.path.as_deref().is_none_or(|p| {
            f.location
                .config
                .as_ref()
                .is_some_and(|o| glob::matches(p, &prints.config_path(&o.file)))
        })
        && ig
            .fingerprint
            .as_deref()
            .is_none_or(|want| prints.of(f) == want)
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
    let control = super::rule_meta()
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
