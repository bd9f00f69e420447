//! Target resolution shared by `scan`, `snapshot`, `lock`, `diff` and `review`:
//! config files, snapshot files, a command after `--`, or `--url`, plus the probe options,
//! and obtaining the snapshots (probing live servers concurrently, or reading files).

use std::collections::BTreeMap;
use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::time::Duration;

use anyhow::{Context, bail};
use clap::Args;
use serde_json::Value;

use super::Global;
use crate::mcp::{ProbeEvent, ProbeOptions};
use crate::model::snapshot::ServerSnapshot;
use crate::model::spec::{ServerSpec, Transport};

/// Targets and probe options.
#[derive(Debug, Clone, Args)]
pub struct TargetArgs {
    /// Host config files (e.g. `.mcp.json`) or snapshot files (JSON with a `tools` array).
    #[arg(value_name = "TARGET")]
    pub targets: Vec<PathBuf>,
    /// A Streamable HTTP server to probe (repeatable).
    #[arg(long = "url", value_name = "URL")]
    pub urls: Vec<String>,
    /// A header sent to every `--url` server, as `Name: value` (repeatable).
    #[arg(long = "header", value_name = "NAME: VALUE")]
    pub headers: Vec<String>,
    /// The server's name for `--url` / `-- CMD`; with a config file, the entry to use.
    #[arg(long, value_name = "NAME")]
    pub name: Option<String>,
    /// Start nothing and open no socket: read snapshot files instead of live servers.
    #[arg(long)]
    pub offline: bool,
    /// With --offline: a config entry named X is read from DIR/X.json.
    #[arg(long, value_name = "DIR")]
    pub snapshot_dir: Option<PathBuf>,
    /// Time allowed per server, in seconds (an `npx` download can be slow).
    #[arg(long, value_name = "SECONDS", default_value = "120")]
    pub timeout: f64,
    /// How long `server/discover` may stay unanswered before the server is taken as legacy.
    #[arg(long, value_name = "SECONDS", default_value = "5")]
    pub discover_timeout: f64,
    /// Run stdio servers in a bubblewrap sandbox: read-only system, private HOME and /tmp,
    /// the real home hidden, no network.
    #[arg(long)]
    pub sandbox: bool,
    /// With --sandbox: allow network access (e.g. for `npx` to download the package).
    #[arg(long, requires = "sandbox")]
    pub sandbox_net: bool,
    /// Pass this variable of your environment to the server, and resolve `${VAR}`
    /// references to it in the config (repeatable). Nothing else is passed.
    #[arg(long = "pass-env", value_name = "VAR")]
    pub pass_env: Vec<String>,
    /// Launch packages that are not pinned to an exact version.
    #[arg(long)]
    pub allow_unpinned: bool,
    /// How many servers are probed at once.
    #[arg(short = 'j', long, value_name = "N", default_value_t = 8)]
    pub jobs: usize,
    /// Also audit every host config found in the known user and project locations
    /// (Claude, VS Code, Cursor, Windsurf, Zed, Codex, Gemini CLI, Cline, Continue, Junie).
    #[arg(long)]
    pub discover: bool,
    /// A stdio server to launch: `-- CMD ARGS…`.
    #[arg(last = true, value_name = "CMD")]
    pub command: Vec<String>,
}

impl Default for TargetArgs {
    /// The same values as the command line's defaults.
    fn default() -> Self {
        Self {
            targets: Vec::new(),
            urls: Vec::new(),
            headers: Vec::new(),
            name: None,
            offline: false,
            snapshot_dir: None,
            timeout: 120.0,
            discover_timeout: 5.0,
            sandbox: false,
            sandbox_net: false,
            pass_env: Vec::new(),
            allow_unpinned: false,
            jobs: 8,
            discover: false,
            command: Vec::new(),
        }
    }
}

/// One thing to audit: a server to probe (or to find in `--snapshot-dir`), or a snapshot file.
#[derive(Debug, Clone, PartialEq)]
pub struct Target {
    pub spec: Option<ServerSpec>,
    pub snapshot_file: Option<PathBuf>,
}

impl Target {
    /// The name shown for this target before it is probed.
    pub fn display_name(&self) -> String {
        match (&self.spec, &self.snapshot_file) {
            (Some(s), _) => s.name.clone(),
            (None, Some(p)) => p.display().to_string(),
            (None, None) => "(none)".into(),
        }
    }
}

fn seconds(flag: &str, s: f64) -> anyhow::Result<Duration> {
    if !(s.is_finite() && s > 0.0 && s < 1.0e7) {
        bail!("{flag} must be a positive number of seconds, not {s}");
    }
    Ok(Duration::from_secs_f64(s))
}

impl TargetArgs {
    /// The probe options these flags describe.
    pub fn probe_options(&self) -> anyhow::Result<ProbeOptions> {
        if self.jobs == 0 {
            bail!("-j/--jobs must be at least 1");
        }
        Ok(ProbeOptions {
            timeout: seconds("--timeout", self.timeout)?,
            discover_timeout: seconds("--discover-timeout", self.discover_timeout)?,
            sandbox: self.sandbox,
            sandbox_net: self.sandbox_net,
            pass_env: self.pass_env.clone(),
            allow_unpinned: self.allow_unpinned,
            jobs: self.jobs,
            ..ProbeOptions::default()
        })
    }

    /// Whether any target was given at all.
    pub fn is_empty(&self) -> bool {
        self.targets.is_empty() && self.urls.is_empty() && self.command.is_empty() && !self.discover
    }

    /// The config files `--discover` finds, as `(path, description)`; a discovered file that
    /// does not parse is skipped with a warning rather than stopping the scan.
    pub fn discovered(&self) -> (Vec<(PathBuf, String)>, Vec<String>) {
        if !self.discover {
            return (Vec::new(), Vec::new());
        }
        let mut found = Vec::new();
        let mut warnings = Vec::new();
        for d in crate::config::discover_from_env() {
            match crate::config::load_path_as(&d.path, d.host) {
                Ok(specs) => {
                    let names: Vec<String> = specs.iter().map(|s| s.name.clone()).collect();
                    found.push((
                        d.path.clone(),
                        format!(
                            "{} ({}, {} scope): {}",
                            d.path.display(),
                            d.host.id(),
                            d.scope.as_str(),
                            if names.is_empty() {
                                "no servers".into()
                            } else {
                                names.join(", ")
                            }
                        ),
                    ));
                }
                Err(e) => warnings.push(format!("skipped {}: {e}", d.path.display())),
            }
        }
        (found, warnings)
    }

    /// Resolve the arguments into targets, in the order: files, `--url`s, `-- CMD`.
    /// Config files are parsed (nothing runs); with `--name`, only that entry of each
    /// config is kept. Returns an empty list when no target was given.
    pub fn resolve(&self) -> anyhow::Result<Vec<Target>> {
        Ok(self.resolve_discovering()?.0)
    }

    /// [`Self::resolve`], plus what `--discover` found (one line per config file read) and
    /// the discovered files it skipped, so the caller can report them without a second search.
    pub fn resolve_discovering(&self) -> anyhow::Result<(Vec<Target>, Vec<String>, Vec<String>)> {
        let mut out = Vec::new();
        let mut headers = BTreeMap::new();
        for h in &self.headers {
            let Some((k, v)) = h.split_once(':') else {
                bail!("--header {h:?} must look like `Name: value`");
            };
            if k.trim().is_empty() {
                bail!("--header {h:?} has an empty name");
            }
            headers.insert(k.trim().to_owned(), v.trim().to_owned());
        }
        if !headers.is_empty() && self.urls.is_empty() {
            bail!("--header applies to --url servers, but no --url was given");
        }
        let (discovered, skipped) = self.discovered();
        let sources: Vec<String> = discovered.iter().map(|(_, what)| what.clone()).collect();
        let mut paths: Vec<PathBuf> = self.targets.clone();
        for (p, _) in discovered {
            if !paths.contains(&p) {
                paths.push(p);
            }
        }
        for path in &paths {
            if is_snapshot_file(path)? {
                out.push(Target {
                    spec: None,
                    snapshot_file: Some(path.clone()),
                });
                continue;
            }
            let specs = crate::config::load_path(path)
                .with_context(|| format!("reading config {}", path.display()))?;
            let names: Vec<String> = specs.iter().map(|s| s.name.clone()).collect();
            let chosen: Vec<ServerSpec> = match &self.name {
                Some(n) => specs.into_iter().filter(|s| &s.name == n).collect(),
                None => specs,
            };
            if let (Some(n), true) = (&self.name, chosen.is_empty()) {
                bail!(
                    "{} has no server named {n:?} (it has: {})",
                    path.display(),
                    if names.is_empty() {
                        "none".into()
                    } else {
                        names.join(", ")
                    }
                );
            }
            out.extend(chosen.into_iter().map(|s| Target {
                spec: Some(s),
                snapshot_file: None,
            }));
        }
        let single = self.urls.len() + usize::from(!self.command.is_empty()) == 1;
        for url in &self.urls {
            let name = match (&self.name, single) {
                (Some(n), true) => n.clone(),
                _ => name_from_url(url),
            };
            out.push(Target {
                spec: Some(ServerSpec {
                    name,
                    host: "cli".into(),
                    origin: None,
                    locations: BTreeMap::new(),
                    transport: Transport::Http {
                        url: url.clone(),
                        headers: headers.clone(),
                    },
                    settings: BTreeMap::new(),
                }),
                snapshot_file: None,
            });
        }
        if let Some((cmd, args)) = self.command.split_first() {
            let name = match (&self.name, single) {
                (Some(n), true) => n.clone(),
                _ => name_from_command(cmd, args),
            };
            out.push(Target {
                spec: Some(ServerSpec {
                    name,
                    host: "cli".into(),
                    origin: None,
                    locations: BTreeMap::new(),
                    transport: Transport::Stdio {
                        command: cmd.clone(),
                        args: args.to_vec(),
                        env: BTreeMap::new(),
                        cwd: None,
                    },
                    settings: BTreeMap::new(),
                }),
                snapshot_file: None,
            });
        }
        Ok((out, sources, skipped))
    }
}

/// Whether `path` holds a snapshot (JSON with a top-level `tools` array, or a JSON-RPC
/// response with a `result`) rather than a host config.
pub fn is_snapshot_file(path: &Path) -> anyhow::Result<bool> {
    let text =
        std::fs::read_to_string(path).with_context(|| format!("cannot read {}", path.display()))?;
    Ok(looks_like_snapshot(&text))
}

/// The content test behind [`is_snapshot_file`].
pub fn looks_like_snapshot(text: &str) -> bool {
    match serde_json::from_str::<Value>(text) {
        Ok(Value::Object(m)) => {
            m.get("tools").is_some_and(Value::is_array)
                || (m.contains_key("jsonrpc") && m.contains_key("result"))
        }
        _ => false,
    }
}

/// A server name derived from a URL: its host, plus the port when it is not the default.
pub fn name_from_url(url: &str) -> String {
    match reqwest::Url::parse(url) {
        Ok(u) => {
            let host = u
                .host_str()
                .unwrap_or("server")
                .trim_matches(['[', ']'])
                .replace(':', "-");
            match u.port() {
                Some(p) => format!("{host}-{p}"),
                None => host,
            }
        }
        Err(_) => "server".into(),
    }
}

/// A server name derived from a command line: the package a runner (`npx`, `uvx`, …)
/// starts, without scope or version; a script's stem; else the command's file name.
pub fn name_from_command(cmd: &str, args: &[String]) -> String {
    let base = Path::new(cmd)
        .file_name()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_else(|| cmd.to_owned());
    let first_operand = |skip: usize| {
        args.iter()
            .skip(skip)
            .find(|a| !a.starts_with('-'))
            .cloned()
    };
    let runner = matches!(base.as_str(), "npx" | "bunx" | "uvx");
    let script = base.starts_with("python") || matches!(base.as_str(), "node" | "deno" | "bun");
    let pick = if runner {
        first_operand(0)
    } else if base == "pipx"
        || (matches!(base.as_str(), "pnpm" | "yarn") && args.first().is_some_and(|a| a == "dlx"))
    {
        first_operand(1)
    } else if script {
        first_operand(0).map(|p| {
            Path::new(&p)
                .file_stem()
                .map(|s| s.to_string_lossy().into_owned())
                .unwrap_or(p)
        })
    } else {
        None
    };
    let name = match pick {
        Some(p) if runner || !script => {
            let unscoped = p.rsplit('/').next().unwrap_or(&p).to_owned();
            let no_ver = unscoped
                .split("==")
                .next()
                .unwrap_or(&unscoped)
                .split('@')
                .next()
                .unwrap_or(&unscoped)
                .to_owned();
            if no_ver.is_empty() { unscoped } else { no_ver }
        }
        Some(p) => p,
        None => base,
    };
    let clean: String = name
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.') {
                c
            } else {
                '-'
            }
        })
        .collect();
    if clean.is_empty() {
        "server".into()
    } else {
        clean
    }
}

/// Get a snapshot for every target, in order: probe live servers concurrently (or, with
/// `--offline`, read `--snapshot-dir/NAME.json`), read snapshot files. A probe failure is
/// an `anyhow::Error` wrapping [`crate::mcp::ProbeFailure`] (exit code 3).
pub fn obtain(
    targets: &[Target],
    args: &TargetArgs,
    progress: &dyn Fn(ProbeEvent),
) -> anyhow::Result<Vec<anyhow::Result<ServerSnapshot>>> {
    let opts = args.probe_options()?;
    let mut out: Vec<Option<anyhow::Result<ServerSnapshot>>> =
        targets.iter().map(|_| None).collect();
    let mut live: Vec<(usize, ServerSpec)> = Vec::new();
    for (i, t) in targets.iter().enumerate() {
        match (&t.spec, &t.snapshot_file) {
            (_, Some(path)) => {
                out[i] = Some(ServerSnapshot::load(path).map_err(anyhow::Error::from))
            }
            (Some(spec), None) if args.offline => {
                out[i] = Some(match &args.snapshot_dir {
                    Some(dir) => {
                        let path = dir.join(format!("{}.json", spec.name));
                        ServerSnapshot::load(&path)
                            .map(|mut s| {
                                s.server = spec.name.clone();
                                s
                            })
                            .map_err(anyhow::Error::from)
                    }
                    None => Err(anyhow::anyhow!(
                        "--offline: no snapshot for server {:?}; pass --snapshot-dir DIR holding {}.json, or drop --offline",
                        spec.name,
                        spec.name
                    )),
                });
            }
            (Some(spec), None) => match crate::launch_audit::launch_refusal(spec) {
                Some(why) if !args.allow_unpinned => {
                    out[i] = Some(Err(anyhow::Error::new(crate::mcp::ProbeFailure::new(
                        &spec.name, why,
                    ))))
                }
                _ => live.push((i, spec.clone())),
            },
            (None, None) => out[i] = Some(Err(anyhow::anyhow!("empty target"))),
        }
    }
    if !live.is_empty() {
        let specs: Vec<ServerSpec> = live.iter().map(|(_, s)| s.clone()).collect();
        let remap = |e: ProbeEvent| match e {
            ProbeEvent::Started { index, server } => ProbeEvent::Started {
                index: live[index].0,
                server,
            },
            ProbeEvent::Finished {
                index,
                server,
                ok,
                summary,
                elapsed,
            } => ProbeEvent::Finished {
                index: live[index].0,
                server,
                ok,
                summary,
                elapsed,
            },
        };
        let results = crate::mcp::probe_all(&specs, &opts, &|e| progress(remap(e)));
        for ((i, _), r) in live.iter().zip(results) {
            out[*i] = Some(r.map_err(anyhow::Error::new));
        }
    }
    Ok(out
        .into_iter()
        .map(|r| r.unwrap_or_else(|| Err(anyhow::anyhow!("target was not processed"))))
        .collect())
}

/// A progress printer for [`obtain`]: one line per start and end on stderr, only when
/// stderr is a terminal and `--quiet` is off.
pub fn stderr_progress(g: Global) -> impl Fn(ProbeEvent) {
    let show = !g.quiet && std::io::stderr().is_terminal();
    move |e| {
        if !show {
            return;
        }
        crate::report::eprint_line(&progress_line(&e));
    }
}

/// The text of one progress line.
pub fn progress_line(e: &ProbeEvent) -> String {
    match e {
        ProbeEvent::Started { server, .. } => format!("probing {server} …"),
        ProbeEvent::Finished {
            server,
            ok,
            summary,
            elapsed,
            ..
        } => {
            let first = summary.lines().next().unwrap_or("");
            format!(
                "{} {server}: {first} ({} ms)",
                if *ok { "ok  " } else { "FAIL" },
                elapsed.as_millis()
            )
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::Parser;

    #[derive(Debug, Parser)]
    struct T {
        #[command(flatten)]
        t: TargetArgs,
    }

    fn parse(args: &[&str]) -> TargetArgs {
        T::try_parse_from(std::iter::once("x").chain(args.iter().copied()))
            .unwrap()
            .t
    }

    #[test]
    fn command_and_urls_become_specs() {
        let a = parse(&[
            "--url",
            "http://127.0.0.1:8080/mcp",
            "--header",
            "Authorization: Bearer x",
            "--",
            "npx",
            "-y",
            "@modelcontextprotocol/server-memory@2026.8.31",
        ]);
        let t = a.resolve().unwrap();
        assert_eq!(t.len(), 2);
        let s = t[0].spec.as_ref().unwrap();
        assert_eq!(s.name, "127.0.0.1-8080");
        let Transport::Http { headers, .. } = &s.transport else {
            panic!()
        };
        assert_eq!(headers["Authorization"], "Bearer x");
        assert_eq!(t[1].spec.as_ref().unwrap().name, "server-memory");
        let a = parse(&["--name", "mine", "--", "python3", "srv.py"]);
        assert_eq!(a.resolve().unwrap()[0].spec.as_ref().unwrap().name, "mine");
    }

    #[test]
    fn options_follow_flags() {
        let a = parse(&[
            "--timeout",
            "2.5",
            "--sandbox",
            "--sandbox-net",
            "--pass-env",
            "A",
            "-j",
            "3",
            "--allow-unpinned",
        ]);
        let o = a.probe_options().unwrap();
        assert_eq!(o.timeout, Duration::from_millis(2500));
        assert!(o.sandbox && o.sandbox_net && o.allow_unpinned);
        assert_eq!(o.pass_env, vec!["A".to_owned()]);
        assert_eq!(o.jobs, 3);
        assert!(parse(&["--timeout", "0"]).probe_options().is_err());
        assert!(T::try_parse_from(["x", "--sandbox-net"]).is_err());
        assert!(
            parse(&["--header", "nocolon", "--url", "http://h/"])
                .resolve()
                .is_err()
        );
    }

    #[test]
    fn names_from_commands() {
        let s = |v: &[&str]| v.iter().map(|s| (*s).to_owned()).collect::<Vec<_>>();
        assert_eq!(
            name_from_command("npx", &s(&["-y", "@scope/server-x@1.2.3"])),
            "server-x"
        );
        assert_eq!(
            name_from_command("uvx", &s(&["mcp-server-time==2026.10.19"])),
            "mcp-server-time"
        );
        assert_eq!(
            name_from_command("/usr/bin/python3", &s(&["-u", "dir/hostile.py", "flood"])),
            "hostile"
        );
        assert_eq!(
            name_from_command("/opt/bin/ci-insights", &[]),
            "ci-insights"
        );
        assert_eq!(
            name_from_url("https://mcp.example.com/x"),
            "mcp.example.com"
        );
    }

    #[test]
    fn default_matches_the_command_line() {
        let parsed = parse(&[]);
        let d = TargetArgs::default();
        assert_eq!(parsed.timeout, d.timeout);
        assert_eq!(parsed.discover_timeout, d.discover_timeout);
        assert_eq!(parsed.jobs, d.jobs);
        assert_eq!(d.probe_options().unwrap(), ProbeOptions::default());
    }

    #[test]
    fn snapshot_detection() {
        assert!(looks_like_snapshot(r#"{"tools": []}"#));
        assert!(looks_like_snapshot(
            r#"{"jsonrpc":"2.0","id":1,"result":{"tools":[]}}"#
        ));
        assert!(!looks_like_snapshot(r#"{"mcpServers": {}}"#));
        assert!(!looks_like_snapshot("[mcp_servers.x]\ncommand = \"y\""));
    }
}
