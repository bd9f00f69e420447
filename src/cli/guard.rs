//! `mcpvet guard`: run one server behind the approved lock. The host launches
//! `mcpvet guard --lock lockfiles/NAME.lock.json -- CMD ARGS…` (or `--url URL`) instead of the
//! server and speaks MCP to it over stdio; see `docs/guard.md`.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::time::Duration;

use anyhow::Context;
use clap::Args;

use super::Global;
use crate::error::Exit;
use crate::guard::{GuardEnd, GuardOptions};
use crate::lock::Lockfile;
use crate::model::host::Host;
use crate::model::spec::{ServerSpec, Transport};
use crate::policy::Policy;

/// Arguments of `mcpvet guard`.
#[derive(Debug, Args)]
pub struct GuardArgs {
    /// The approved lockfile of the server (`lockfiles/NAME.lock.json`).
    #[arg(
        long,
        value_name = "FILE",
        conflicts_with_all = ["install", "uninstall"]
    )]
    pub lock: Option<PathBuf>,
    /// A remote Streamable HTTP server, presented to the host as stdio.
    #[arg(long, value_name = "URL", conflicts_with = "command")]
    pub url: Option<String>,
    /// A header for `--url` (repeatable): `NAME=env:VAR` takes the value from the
    /// environment variable VAR (keeps a secret out of the command line, which other users
    /// of the machine can read), `NAME=bearer-env:VAR` takes `Bearer ` and VAR's value;
    /// `Name: value` takes it as written.
    #[arg(long, value_name = "HEADER", requires = "url")]
    pub header: Vec<String>,
    /// Written by `--install` for a remote entry: the key that held the URL and the entry's
    /// `type` (`url` or `url;type=http`), or the remote keys of a Codex entry
    /// (`codex:url,…`), so `--uninstall` can give the entry back exactly.
    /// The guard itself does not use it.
    #[arg(long, value_name = "KEY", requires = "url", hide = true)]
    pub installed_from: Option<String>,
    /// Seconds the server may take to answer one request (and to start).
    #[arg(long, value_name = "SECONDS", default_value_t = 60.0)]
    pub timeout: f64,
    /// Largest single message the server may send (one stdio line or one HTTP body), e.g.
    /// `16MiB`; a larger one ends the session. The guard's memory grows with it.
    #[arg(long, value_name = "SIZE", default_value = "64MiB", value_parser = crate::model::fsio::parse_size)]
    pub max_message_size: u64,
    /// Run the stdio server inside bubblewrap (no network, the user's home hidden).
    #[arg(long)]
    pub sandbox: bool,
    /// Append one JSON line per tool call to this file (never argument or result values).
    #[arg(long, value_name = "FILE")]
    pub audit_log: Option<PathBuf>,
    /// The team policy (default: `mcpvet.toml` of the repository, if any); its
    /// `[guard.NAME]` section applies, NAME being the lock's server name.
    #[arg(long, value_name = "FILE")]
    pub policy: Option<PathBuf>,
    /// A variable of your environment the server may receive (repeatable; adds to the
    /// policy's `pass-env`).
    #[arg(long, value_name = "NAME")]
    pub pass_env: Vec<String>,
    /// The server command and its arguments.
    #[arg(last = true, value_name = "CMD")]
    pub command: Vec<String>,
    /// Install or uninstall the guard in a host config.
    #[command(flatten)]
    pub install: super::guard_install::InstallArgs,
}

pub fn run(args: GuardArgs, _g: Global) -> anyhow::Result<Exit> {
    let Some(lock_path) = args.lock.as_deref() else {
        let installing = args.install.install.is_some() || args.install.uninstall.is_some();
        let serving = args.url.is_some() || !args.command.is_empty();
        if !installing && serving {
            anyhow::bail!(
                "the guard needs the server's approved lock: `mcpvet guard --lock lockfiles/NAME.lock.json -- CMD ARGS…` (write it with `mcpvet lock`)"
            );
        }
        if !installing {
            anyhow::bail!(
                "say what to guard: `mcpvet guard --lock lockfiles/NAME.lock.json -- CMD ARGS…` runs a server behind its lock (or `--url URL` for a remote one); `mcpvet guard --install CONFIG` puts a host config's locked servers behind the guard"
            );
        }
        if serving {
            anyhow::bail!(
                "--install/--uninstall rewrite a host config and run no server: drop `--url` and the command after `--`"
            );
        }
        return super::guard_install::run_install(&args.install);
    };
    let lock = Lockfile::read(lock_path)
        .with_context(|| format!("cannot use the lockfile {}", lock_path.display()))?;
    if !(args.timeout.is_finite() && args.timeout > 0.0) {
        anyhow::bail!("--timeout must be a positive number of seconds");
    }
    let transport = match (&args.url, args.command.split_first()) {
        (Some(url), _) => {
            let mut headers = BTreeMap::new();
            for h in &args.header {
                let (k, v, from_env) = parse_header(h, |var| std::env::var(var).ok())?;
                let lower = k.to_ascii_lowercase();
                let credential = ["auth", "token", "key", "secret", "cookie", "pass"]
                    .iter()
                    .any(|w| lower.contains(w));
                if !from_env && (credential || crate::model::redact::secret_for_name(&k, &v)) {
                    crate::report::eprint_line(&format!(
                        "mcpvet guard: warning: the value of the header {} is on the command line, where other users of this machine can read it; pass it as `--header {}=env:VAR` with VAR set in the environment (a host config's `env` block)",
                        crate::model::escape::line(&k),
                        crate::model::escape::line(&k)
                    ));
                }
                headers.insert(k, v);
            }
            Transport::Http {
                url: url.clone(),
                headers,
            }
        }
        (None, Some((command, rest))) => Transport::Stdio {
            command: command.clone(),
            args: rest.to_vec(),
            env: BTreeMap::new(),
            cwd: None,
        },
        (None, None) => anyhow::bail!(
            "name the server to guard: `mcpvet guard --lock FILE -- CMD ARGS…` or `--url URL`"
        ),
    };
    let policy = match &args.policy {
        Some(p) => Some(Policy::load(p)?),
        None => {
            let here = std::env::current_dir().context("cannot read the current directory")?;
            Policy::find(&here).map(|p| Policy::load(&p)).transpose()?
        }
    };
    let rules = policy
        .as_ref()
        .and_then(|p| p.guard.get(&lock.server).cloned())
        .unwrap_or_default();
    let mut pass_env = rules.pass_env.clone();
    pass_env.extend(args.pass_env.iter().cloned());
    let opts = GuardOptions {
        spec: ServerSpec {
            name: lock.server.clone(),
            host: Host::CommandLine,
            origin: None,
            locations: BTreeMap::new(),
            transport,
            settings: BTreeMap::new(),
            duplicate_keys: Vec::new(),
        },
        lock,
        timeout: Duration::from_secs_f64(args.timeout),
        sandbox: args.sandbox,
        pass_env,
        policy: rules,
        audit_log: args.audit_log.clone(),
        caps: crate::mcp::Limits {
            max_message_bytes: usize::try_from(args.max_message_size).unwrap_or(usize::MAX),
            ..GuardOptions::default_caps()
        },
    };
    let diag = |m: &str| crate::report::eprint_line(&format!("mcpvet guard: {m}"));
    match crate::guard::run_stdio(&opts, &diag)? {
        GuardEnd::HostClosed => Ok(Exit::Clean),
        GuardEnd::ServerEnded(why) => {
            diag(&format!(
                "the server {} ended: {}",
                crate::model::escape::line(&opts.lock.server),
                crate::model::escape::line(&why)
            ));
            Ok(Exit::ProbeFailed)
        }
    }
}

/// One `--header`: `NAME=env:VAR` (the value of the environment variable VAR, looked up with
/// `env`), `NAME=bearer-env:VAR` (`Bearer ` and that value) or `Name: value`. Returns the name, the value and whether it came from the
/// environment.
fn parse_header(
    text: &str,
    env: impl Fn(&str) -> Option<String>,
) -> anyhow::Result<(String, String, bool)> {
    let token = |s: &str| {
        !s.is_empty()
            && s.bytes()
                .all(|b| b.is_ascii_alphanumeric() || b"!#$%&'*+-.^_`|~".contains(&b))
    };
    // `NAME=env:VAR` (the whole value) or `NAME=bearer-env:VAR` (`Bearer ` and the value, as
    // Codex's `bearer_token_env_var` sends it).
    if let Some((name, form, var)) = text
        .split_once('=')
        .and_then(|(n, rest)| {
            rest.strip_prefix("env:")
                .map(|v| (n, "env", v))
                .or_else(|| {
                    rest.strip_prefix("bearer-env:")
                        .map(|v| (n, "bearer-env", v))
                })
        })
        .filter(|(n, _, _)| token(n))
    {
        let shown = crate::model::escape::line(var);
        if var.is_empty() || !var.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_') {
            anyhow::bail!(
                "--header {}={form}:{shown}: `{shown}` is not an environment variable name",
                crate::model::escape::line(name)
            );
        }
        let value = env(var).with_context(|| {
            format!(
                "--header {}={form}:{shown}: the environment variable {shown} is not set (set it where the guard is launched, e.g. in the host config's `env` block)",
                crate::model::escape::line(name)
            )
        })?;
        let value = value.trim();
        let value = if form == "bearer-env" {
            format!("Bearer {value}")
        } else {
            value.to_owned()
        };
        return Ok((name.to_owned(), value, true));
    }
    let (k, v) = text.split_once(':').with_context(|| {
        format!(
            "--header {:?} is neither `Name: value` nor `NAME=env:VAR`",
            crate::model::escape::clip(text, 80)
        )
    })?;
    Ok((k.trim().to_owned(), v.trim().to_owned(), false))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn env(var: &str) -> Option<String> {
        (var == "TOKEN").then(|| "Bearer s3cr3t".to_owned())
    }

    #[test]
    fn headers_from_the_environment_and_as_written() {
        assert_eq!(
            parse_header("Authorization=env:TOKEN", env).unwrap(),
            ("Authorization".into(), "Bearer s3cr3t".into(), true)
        );
        assert_eq!(
            parse_header("X-Api: a=env:b", env).unwrap(),
            ("X-Api".into(), "a=env:b".into(), false)
        );
        let e = parse_header("Authorization=env:MISSING", env)
            .unwrap_err()
            .to_string();
        assert!(e.contains("MISSING") && e.contains("not set"), "{e}");
        let e = parse_header("Authorization=env:a-b", env)
            .unwrap_err()
            .to_string();
        assert!(e.contains("not an environment variable name"), "{e}");
        assert!(parse_header("nothing", env).is_err());
        let plain = |var: &str| (var == "T").then(|| " abc ".to_owned());
        assert_eq!(
            parse_header("Authorization=bearer-env:T", plain).unwrap(),
            ("Authorization".into(), "Bearer abc".into(), true)
        );
        let e = parse_header("Authorization=bearer-env:U", plain)
            .unwrap_err()
            .to_string();
        assert!(e.contains("bearer-env:U") && e.contains("not set"), "{e}");
    }
}
