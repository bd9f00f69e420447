//! Reading `mcpvet.toml`: the raw TOML shapes (with their spans), validated into a
//! [`Policy`] whose errors point at line:column, and finding the file in a repository.

use std::ops::Range;
use std::path::{Path, PathBuf};

use serde::Deserialize;
use toml::Spanned;

use super::{
    CredentialScope, Entry, FILE_NAME, Grant, GuardServer, GuardTool, Ignore, NetworkGrant,
    OutputAction, Policy, Remap, ToolAction,
};
use crate::config::tree::Pos;
use crate::model::finding::Severity;

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
    #[serde(default)]
    sandbox_network: Vec<Spanned<RawSandboxNetwork>>,
    #[serde(default)]
    guard: std::collections::BTreeMap<String, Spanned<RawGuard>>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
struct RawGuard {
    output: Option<Spanned<String>>,
    #[serde(default)]
    pass_env: Vec<Spanned<String>>,
    calls_per_minute: Option<Spanned<i64>>,
    #[serde(default)]
    tools: std::collections::BTreeMap<String, Spanned<RawGuardTool>>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
struct RawGuardTool {
    action: Option<Spanned<String>>,
    calls_per_minute: Option<Spanned<i64>>,
    reason: Option<Spanned<String>>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawSandboxNetwork {
    name: Spanned<String>,
    reason: Spanned<String>,
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
    rule: Option<String>,
    server: Option<String>,
    fingerprint: Option<Spanned<String>>,
    tool: Option<String>,
    path: Option<String>,
    reason: Spanned<String>,
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
            sandbox_network: Vec::new(),
            guard: std::collections::BTreeMap::new(),
        }
    }

    /// Read and validate a policy file.
    pub fn load(path: &Path) -> Result<Policy, PolicyError> {
        let text = crate::model::fsio::read_text(path, crate::model::fsio::ReadKind::Config)
            .map_err(|source| PolicyError::Io {
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
                    if v.rule.is_none()
                        && v.fingerprint.is_none()
                        && v.tool.is_none()
                        && v.path.is_none()
                    {
                        return Err(err(
                            r.span(),
                            "[[ignore]] entry needs at least one of `rule`, `fingerprint`, `tool`, `path` (a server alone would hide everything about it)".into(),
                        ));
                    }
                    if let Some(fp) = &v.fingerprint {
                        if !crate::model::fingerprint::is_fingerprint(fp.get_ref()) {
                            return Err(err(
                                fp.span(),
                                format!(
                                    "[[ignore]]: `fingerprint` must be 32 lowercase hex digits as in `--format json` output, not {:?}",
                                    crate::model::escape::line(fp.get_ref())
                                ),
                            ));
                        }
                    }
                    Ok(Ignore {
                        rule: v.rule.clone(),
                        server: v.server.clone(),
                        fingerprint: v.fingerprint.as_ref().map(|f| f.get_ref().clone()),
                        tool: v.tool.clone(),
                        path: v.path.clone(),
                        reason: reason(&v.reason, "[[ignore]]")?,
                        origin: origin(r.span()),
                    })
                })
                .collect::<Result<_, PolicyError>>()?,
            sandbox_network: raw
                .sandbox_network
                .iter()
                .map(|r| {
                    let v = r.get_ref();
                    if v.name.get_ref().trim().is_empty() {
                        return Err(err(
                            v.name.span(),
                            "[[sandbox-network]]: `name` must name a server (or a glob)".into(),
                        ));
                    }
                    Ok(NetworkGrant {
                        name: v.name.get_ref().clone(),
                        reason: reason(&v.reason, "[[sandbox-network]]")?,
                        origin: origin(r.span()),
                    })
                })
                .collect::<Result<_, PolicyError>>()?,
            guard: {
                let rate = |r: &Option<Spanned<i64>>, what: &str| match r {
                    None => Ok(None),
                    Some(n) => u32::try_from(*n.get_ref())
                        .ok()
                        .filter(|&n| n > 0)
                        .map(Some)
                        .ok_or_else(|| {
                            err(
                                n.span(),
                                format!("{what}: `calls-per-minute` must be a whole number from 1 up"),
                            )
                        }),
                };
                let mut out = std::collections::BTreeMap::new();
                for (name, g) in &raw.guard {
                    let g_span = g.span();
                    let g = g.get_ref();
                    let what = format!("[guard.{name}]");
                    let output = match g.output.as_ref().map(|o| (o.get_ref().as_str(), o.span())) {
                        None | Some(("mark", _)) => OutputAction::Mark,
                        Some(("block", _)) => OutputAction::Block,
                        Some((other, span)) => {
                            return Err(err(
                                span,
                                format!("{what}: unknown output action `{other}` (expected mark or block)"),
                            ));
                        }
                    };
                    let mut tools = std::collections::BTreeMap::new();
                    for (tool, t) in &g.tools {
                        let t_span = t.span();
                        let t = t.get_ref();
                        let what = format!("[guard.{name}.tools.{tool}]");
                        let action = match t.action.as_ref().map(|a| (a.get_ref().as_str(), a.span())) {
                            None | Some(("allow", _)) => ToolAction::Allow,
                            Some(("deny", _)) => ToolAction::Deny,
                            Some(("confirm", _)) => ToolAction::Confirm,
                            Some((other, span)) => {
                                return Err(err(
                                    span,
                                    format!("{what}: unknown action `{other}` (expected allow, deny or confirm)"),
                                ));
                            }
                        };
                        let reason = match &t.reason {
                            Some(r) => Some(reason(r, &what)?),
                            None if action != ToolAction::Allow => {
                                return Err(err(
                                    t_span,
                                    format!("{what}: a `deny` or `confirm` action needs a `reason` (it is shown to the user)"),
                                ));
                            }
                            None => None,
                        };
                        tools.insert(
                            tool.clone(),
                            GuardTool {
                                action,
                                calls_per_minute: rate(&t.calls_per_minute, &what)?,
                                reason,
                                origin: origin(t_span.clone()),
                            },
                        );
                    }
                    let mut pass_env = Vec::new();
                    for v in &g.pass_env {
                        let n = v.get_ref();
                        if n.is_empty() || !n.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') {
                            return Err(err(
                                v.span(),
                                format!("{what}: `pass-env` holds variable names such as GITHUB_TOKEN, not `{}`", crate::model::escape::line(n)),
                            ));
                        }
                        pass_env.push(n.clone());
                    }
                    let _ = g_span;
                    out.insert(
                        name.clone(),
                        GuardServer {
                            output,
                            pass_env,
                            calls_per_minute: rate(&g.calls_per_minute, &what)?,
                            tools,
                        },
                    );
                }
                out
            },
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
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> Result<Policy, PolicyError> {
        Policy::parse(Path::new("mcpvet.toml"), text)
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
    fn guard_sections_give_per_tool_actions_rates_output_and_env() {
        let p = parse(
            "[guard.ci]\noutput = \"block\"\npass-env = [\"CI_TOKEN\"]\ncalls-per-minute = 100\n\n[guard.ci.tools.deploy]\naction = \"confirm\"\ncalls-per-minute = 2\nreason = \"deploys\"\n\n[guard.ci.tools.wipe]\naction = \"deny\"\nreason = \"never\"\n",
        )
        .expect("valid");
        let g = &p.guard["ci"];
        assert_eq!(g.output, OutputAction::Block);
        assert_eq!(g.pass_env, vec!["CI_TOKEN"]);
        assert_eq!(g.calls_per_minute, Some(100));
        assert_eq!(g.tools["deploy"].action, ToolAction::Confirm);
        assert_eq!(g.tools["deploy"].calls_per_minute, Some(2));
        assert_eq!(g.tools["wipe"].action, ToolAction::Deny);
        assert_eq!(g.tools["wipe"].origin.line, 11);
        let e = parse("[guard.ci]\noutput = \"hide\"\n").expect_err("bad output");
        assert!(e.to_string().starts_with("mcpvet.toml:2:10:"), "{e}");
        let e = parse("[guard.ci.tools.x]\naction = \"deny\"\n").expect_err("no reason");
        assert!(e.to_string().contains("needs a `reason`"), "{e}");
        let e = parse("[guard.ci]\ncalls-per-minute = 0\n").expect_err("zero");
        assert!(e.to_string().contains("calls-per-minute"), "{e}");
        let e = parse("[guard.ci]\npass-env = [\"A=B\"]\n").expect_err("not a name");
        assert!(e.to_string().contains("pass-env"), "{e}");
        let e = parse("[guard.ci]\nconfirm = true\n").expect_err("unknown key");
        assert!(e.to_string().starts_with("mcpvet.toml:2:1:"), "{e}");
    }

    #[test]
    fn sandbox_network_entries_need_a_name_and_a_reason_and_warn_when_unused() {
        let e = parse("[[sandbox-network]]\nname = \"x\"\n").expect_err("no reason");
        assert!(e.to_string().contains("reason"), "{e}");
        let e = parse("[[sandbox-network]]\nname = \" \"\nreason = \"r\"\n").expect_err("empty");
        assert!(e.to_string().starts_with("mcpvet.toml:2:"), "{e}");
        let e = parse("[[sandbox-network]]\nname = \"x\"\nreason = \"r\"\nport = 1\n")
            .expect_err("unknown key");
        assert!(e.to_string().starts_with("mcpvet.toml:"), "{e}");
        let p = parse("[[sandbox-network]]\nname = \"fetch-*\"\nreason = \"r\"\n").unwrap();
        assert!(p.allows_sandbox_network("fetch-web"));
        assert!(!p.allows_sandbox_network("other"));
        let spec = |name: &str| crate::model::spec::ServerSpec {
            name: name.into(),
            host: crate::model::host::Host::CommandLine,
            origin: None,
            locations: Default::default(),
            transport: crate::model::spec::Transport::Stdio {
                command: "x".into(),
                args: Vec::new(),
                env: Default::default(),
                cwd: None,
            },
            settings: Default::default(),
            duplicate_keys: Vec::new(),
        };
        let used = p.evaluate(&[spec("fetch-web")], Vec::new(), &|_: &str| false);
        assert!(used.warnings.is_empty(), "{:?}", used.warnings);
        let unused = p.evaluate(&[spec("other")], Vec::new(), &|_: &str| false);
        assert!(
            unused.warnings[0]
                .message
                .contains("sandbox-network entry `fetch-*` matched no"),
            "{:?}",
            unused.warnings
        );
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
