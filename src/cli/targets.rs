//! The target flags shared by `scan`, `snapshot`, `lock`, `diff` and `review` — config
//! files, snapshot files, a command after `--`, or `--url`, plus the probe options — mapped
//! onto the pipeline's [`TargetList`] and [`GatherOptions`] (`crate::pipeline::targets`
//! resolves the targets and obtains the snapshots).

use std::collections::BTreeMap;
use std::io::IsTerminal;
use std::path::PathBuf;
use std::time::Duration;

use anyhow::bail;
use clap::Args;

use super::Global;
use crate::mcp::{ProbeEvent, ProbeOptions};
use crate::model::escape::line;
use crate::model::snapshot::ServerSnapshot;
use crate::pipeline::{self, GatherOptions, Resolved, TargetList};

pub use crate::pipeline::targets::{
    Target, is_snapshot_file, looks_like_snapshot, name_from_command, name_from_url,
};

/// Targets and probe options.
#[derive(Debug, Clone, Args)]
pub struct TargetArgs {
    /// Host config files (e.g. `.mcp.json`) or snapshot files (JSON with a `tools` array).
    #[arg(value_name = "TARGET")]
    pub targets: Vec<PathBuf>,
    /// A Streamable HTTP server to probe (repeatable); an HTTP+SSE (2024-11-05) server is
    /// recognised when it refuses the POST with 404 or 405 and its GET opens an event stream.
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
    /// Kept for compatibility; it has no effect: the era is decided from the server's
    /// answers, and `--timeout` is the only clock.
    #[arg(long, value_name = "SECONDS", hide = true)]
    pub discover_timeout: Option<f64>,
    /// Run stdio servers WITHOUT the bubblewrap sandbox, with your user's full access to
    /// files, network and processes (every report says so).
    #[arg(long, conflicts_with_all = ["sandbox", "sandbox_net"])]
    pub no_sandbox: bool,
    /// The default, kept for compatibility: stdio servers always run in the sandbox
    /// (own PID namespace, read-only system, private HOME and /tmp, home hidden, no network).
    #[arg(long, hide = true)]
    pub sandbox: bool,
    /// Let sandboxed servers use the network (e.g. for `npx` to download the package).
    /// The policy can allow it for named servers instead (`[[sandbox-network]]`).
    #[arg(long)]
    pub sandbox_net: bool,
    /// Servers the team policy lets use the network inside the sandbox (filled in by the
    /// command from `[[sandbox-network]]`, not a flag).
    #[arg(skip)]
    pub sandbox_net_servers: Vec<String>,
    /// Pass this variable of your environment to the server, and resolve `${VAR}`
    /// references to it in the config (repeatable). Nothing else is passed.
    #[arg(long = "pass-env", value_name = "VAR")]
    pub pass_env: Vec<String>,
    /// Launch packages that are not pinned to an exact version.
    #[arg(long)]
    pub allow_unpinned: bool,
    /// How many servers are probed at once. Starting stdio servers is CPU work: more at once
    /// than the machine has cores does not finish sooner (the report says so when it
    /// happens); HTTP servers mostly wait on the network.
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
            discover_timeout: None,
            no_sandbox: false,
            sandbox: false,
            sandbox_net: false,
            sandbox_net_servers: Vec::new(),
            pass_env: Vec::new(),
            allow_unpinned: false,
            jobs: 8,
            discover: false,
            command: Vec::new(),
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
            sandbox: !self.no_sandbox,
            sandbox_net: self.sandbox_net,
            sandbox_net_servers: self.sandbox_net_servers.clone(),
            pass_env: self.pass_env.clone(),
            allow_unpinned: self.allow_unpinned,
            jobs: self.jobs,
            // `main` waits for the teardowns before it exits (`finish_teardown`).
            defer_teardown: true,
            ..ProbeOptions::default()
        })
    }

    /// Whether any target was given at all.
    pub fn is_empty(&self) -> bool {
        self.targets.is_empty() && self.urls.is_empty() && self.command.is_empty() && !self.discover
    }

    /// Resolve the arguments into targets, in the order: files, `--url`s, `-- CMD`.
    /// Config files are parsed (nothing runs); with `--name`, only that entry of each
    /// config is kept. Returns an empty list when no target was given.
    pub fn resolve(&self) -> anyhow::Result<Vec<Target>> {
        Ok(self.resolve_discovering()?.targets)
    }

    /// [`Self::resolve`], plus what `--discover` found (one line per config file read) and
    /// the discovered files it skipped, so the caller can report them without a second search.
    pub fn resolve_discovering(&self) -> anyhow::Result<Resolved> {
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
        pipeline::resolve(&TargetList {
            paths: self.targets.clone(),
            urls: self.urls.clone(),
            headers,
            name: self.name.clone(),
            discover: self.discover,
            project: self.is_empty(),
            command: self.command.clone(),
        })
    }

    /// The gathering options these flags describe.
    pub fn gather_options(&self) -> anyhow::Result<GatherOptions> {
        Ok(GatherOptions {
            probe: self.probe_options()?,
            offline: self.offline,
            snapshot_dir: self.snapshot_dir.clone(),
            defer_definitions: false,
        })
    }
}

/// Get a snapshot for every target, in order (see [`pipeline::obtain`]), with the options
/// these flags describe. A probe failure is an `anyhow::Error` wrapping
/// [`crate::mcp::ProbeFailure`] (exit code 3).
pub fn obtain(
    targets: &[Target],
    args: &TargetArgs,
    progress: &dyn Fn(ProbeEvent),
) -> anyhow::Result<Vec<anyhow::Result<ServerSnapshot>>> {
    Ok(pipeline::obtain(targets, &args.gather_options()?, progress))
}

/// A progress printer for [`obtain`]: one line when a server's probe starts and one when it
/// ends, on stderr, unless `--quiet` — on a terminal and in a CI log alike, so a slow start
/// (a cold `npx` download) is never silence.
/// On a terminal, "probing X …" is a status line redrawn in place, and only the result of
/// each server stays on the screen.
pub fn stderr_progress(g: Global) -> impl Fn(ProbeEvent) {
    let show = !g.quiet;
    let terminal = std::io::stderr().is_terminal();
    move |e| {
        if !show {
            return;
        }
        match (&e, terminal) {
            (ProbeEvent::Started { .. }, true) => {
                crate::report::progress::status_line(&progress_line(&e));
            }
            (ProbeEvent::Finished { .. }, true) => {
                crate::report::progress::clear_status();
                crate::report::eprint_line(&progress_line(&e));
            }
            _ => crate::report::eprint_line(&progress_line(&e)),
        }
    }
}

/// The text of one progress line.
pub fn progress_line(e: &ProbeEvent) -> String {
    match e {
        ProbeEvent::Started { server, .. } => format!("probing {} …", line(server)),
        ProbeEvent::Finished {
            server,
            ok,
            summary,
            elapsed,
            ..
        } => {
            let first = summary.lines().next().unwrap_or("");
            format!(
                "{} {}: {} ({} ms)",
                if *ok { "ok  " } else { "FAIL" },
                line(server),
                line(first),
                elapsed.as_millis()
            )
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::spec::Transport;
    use clap::Parser;
    use std::time::Duration;

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
        assert!(!parse(&["--no-sandbox"]).probe_options().unwrap().sandbox);
        assert!(parse(&["--sandbox"]).probe_options().unwrap().sandbox);
        assert!(T::try_parse_from(["x", "--no-sandbox", "--sandbox-net"]).is_err());
        assert_eq!(o.pass_env, vec!["A".to_owned()]);
        assert_eq!(o.jobs, 3);
        assert!(parse(&["--timeout", "0"]).probe_options().is_err());
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
        // The command line's only difference from the library's defaults: `main` finishes
        // the teardowns, so the probe need not wait for them.
        assert_eq!(
            d.probe_options().unwrap(),
            ProbeOptions {
                defer_teardown: true,
                ..ProbeOptions::default()
            }
        );
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
