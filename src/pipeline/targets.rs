//! Targets: what to audit (config files, snapshot files, URLs, a command), resolved into
//! [`Target`]s without running anything, and obtaining a snapshot for each (probing live
//! servers concurrently, or reading files). Whether an unpinned package may be launched is
//! decided here, before the probe is called (`launch_audit::launch_refusal`).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use anyhow::{Context, bail};

use super::GatherOptions;
use crate::mcp::ProbeEvent;
use crate::model::snapshot::ServerSnapshot;
use crate::model::spec::{ServerSpec, Transport};

/// What to audit, as plain data.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct TargetList {
    /// Host config files or snapshot files.
    pub paths: Vec<PathBuf>,
    /// Streamable HTTP servers to probe.
    pub urls: Vec<String>,
    /// Headers sent to every URL server.
    pub headers: BTreeMap<String, String>,
    /// The server's name for a single URL or command; with config files, the entry to use.
    pub name: Option<String>,
    /// Also read every host config found in the known user and project locations.
    pub discover: bool,
    /// Read the project's own host configs in the current folder (`.mcp.json`,
    /// `.vscode/mcp.json`, …), as `check` does without files: set when no target was given.
    pub project: bool,
    /// A stdio server to launch: the command and its arguments.
    pub command: Vec<String>,
}

/// Resolved targets, with what discovery found and skipped.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Resolved {
    pub targets: Vec<Target>,
    /// One line per config file discovery read.
    pub sources: Vec<String>,
    /// Discovered files that did not parse, one warning each.
    pub skipped: Vec<String>,
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

/// Config files found, as `(path, description)`, and the warnings for those skipped.
pub type Discovered = (Vec<(PathBuf, String)>, Vec<String>);

/// The config files `--discover` finds, as `(path, description)`; a discovered file that
/// does not parse is skipped with a warning rather than stopping the scan.
/// With only `project`, the project-scope files of the current folder are read (their paths
/// relative to it), and one that does not parse is an error: the user is auditing it.
pub fn discovered(discover: bool, project: bool) -> anyhow::Result<Discovered> {
    if !discover && !project {
        return Ok((Vec::new(), Vec::new()));
    }
    let cwd = std::env::current_dir().ok();
    let mut found = Vec::new();
    let mut warnings = Vec::new();
    for mut d in crate::config::discover_from_env() {
        if !discover {
            if d.scope != crate::config::Scope::Project {
                continue;
            }
            if let Some(rel) = cwd.as_deref().and_then(|c| d.path.strip_prefix(c).ok()) {
                d.path = rel.to_path_buf();
            }
            crate::config::load_path_as(&d.path, d.host)
                .with_context(|| format!("reading config {}", d.path.display()))?;
        }
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
    Ok((found, warnings))
}

/// Resolve a target list, in the order: files (given, then discovered), URLs, the command.
/// Config files are parsed (nothing runs); with a `name`, only that entry of each config
/// is kept. Also returns what discovery found (one line per config file read) and the
/// discovered files it skipped, so the caller can report them without a second search.
pub fn resolve(list: &TargetList) -> anyhow::Result<Resolved> {
    let mut out = Vec::new();
    let (discovered, skipped) = discovered(list.discover, list.project)?;
    let sources: Vec<String> = discovered.iter().map(|(_, what)| what.clone()).collect();
    let mut paths: Vec<PathBuf> = list.paths.clone();
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
        let chosen: Vec<ServerSpec> = match &list.name {
            Some(n) => specs.into_iter().filter(|s| &s.name == n).collect(),
            None => specs,
        };
        if let (Some(n), true) = (&list.name, chosen.is_empty()) {
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
    let single = list.urls.len() + usize::from(!list.command.is_empty()) == 1;
    for url in &list.urls {
        let name = match (&list.name, single) {
            (Some(n), true) => n.clone(),
            _ => name_from_url(url),
        };
        out.push(Target {
            spec: Some(ServerSpec {
                name,
                host: crate::model::host::Host::CommandLine,
                origin: None,
                locations: BTreeMap::new(),
                transport: Transport::Http {
                    url: url.clone(),
                    headers: list.headers.clone(),
                },
                settings: BTreeMap::new(),
                duplicate_keys: Vec::new(),
            }),
            snapshot_file: None,
        });
    }
    if let Some((cmd, args)) = list.command.split_first() {
        let name = match (&list.name, single) {
            (Some(n), true) => n.clone(),
            _ => name_from_command(cmd, args),
        };
        out.push(Target {
            spec: Some(ServerSpec {
                name,
                host: crate::model::host::Host::CommandLine,
                origin: None,
                locations: BTreeMap::new(),
                transport: Transport::Stdio {
                    command: cmd.clone(),
                    args: args.to_vec(),
                    env: BTreeMap::new(),
                    cwd: None,
                },
                settings: BTreeMap::new(),
                duplicate_keys: Vec::new(),
            }),
            snapshot_file: None,
        });
    }
    Ok(Resolved {
        targets: out,
        sources,
        skipped,
    })
}

/// Whether `path` holds a snapshot (JSON with a top-level `tools` array, or a JSON-RPC
/// response with a `result`) rather than a host config.
pub fn is_snapshot_file(path: &Path) -> anyhow::Result<bool> {
    // A snapshot (possibly of a million tools) is told through a buffer; anything else is
    // read whole as before, so a file that is not one fails the same way.
    if crate::model::snapshot::items::file_looks_like_snapshot(path) {
        return Ok(true);
    }
    let text = crate::model::fsio::read_text(path, crate::model::fsio::ReadKind::Snapshot)
        .with_context(|| format!("cannot read {}", path.display()))?;
    Ok(looks_like_snapshot(&text))
}

/// The content test behind [`is_snapshot_file`] (told without building the document, so a
/// snapshot of a million tools costs no memory to recognise).
pub fn looks_like_snapshot(text: &str) -> bool {
    crate::model::snapshot::items::looks_like_snapshot(text)
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

/// `dir/NAME.json`, the saved snapshot of server `name`, only when it stays inside `dir`: a
/// name is a relative path of plain components (`io.github.x/y` is a subfolder), never absolute,
/// never with `..` or `.` (a config-controlled `../../secret` must not read outside the folder).
pub fn snapshot_path_for(dir: &std::path::Path, name: &str) -> Option<std::path::PathBuf> {
    let file = format!("{name}.json");
    let rel = std::path::Path::new(&file);
    let plain = !name.is_empty()
        && !name.contains('\\')
        && rel
            .components()
            .all(|c| matches!(c, std::path::Component::Normal(_)));
    plain.then(|| dir.join(rel))
}

/// Read a snapshot file, its definitions deferred when the options say so.
fn read(
    path: &Path,
    opts: &GatherOptions,
) -> Result<ServerSnapshot, crate::model::snapshot::SnapshotError> {
    if opts.defer_definitions {
        ServerSnapshot::load_deferred(path)
    } else {
        ServerSnapshot::load(path)
    }
}

/// Get a snapshot for every target, in order: probe live servers concurrently (or, with
/// offline, read `snapshot_dir/NAME.json`), read snapshot files. A probe failure is
/// an `anyhow::Error` wrapping [`crate::mcp::ProbeFailure`] (exit code 3).
pub fn obtain(
    targets: &[Target],
    opts: &GatherOptions,
    progress: &dyn Fn(ProbeEvent),
) -> Vec<anyhow::Result<ServerSnapshot>> {
    let mut out: Vec<Option<anyhow::Result<ServerSnapshot>>> =
        targets.iter().map(|_| None).collect();
    let mut live: Vec<(usize, ServerSpec)> = Vec::new();
    for (i, t) in targets.iter().enumerate() {
        match (&t.spec, &t.snapshot_file) {
            (_, Some(path)) => out[i] = Some(read(path, opts).map_err(anyhow::Error::from)),
            (Some(spec), None) if opts.offline => {
                out[i] = Some(match &opts.snapshot_dir {
                    Some(dir) => match snapshot_path_for(dir, &spec.name) {
                        Some(path) => read(&path, opts)
                            .map(|mut s| {
                                s.server = spec.name.clone();
                                s
                            })
                            .map_err(anyhow::Error::from),
                        None => Err(anyhow::anyhow!(
                            "--offline: server name {:?} cannot name a snapshot inside --snapshot-dir (it is empty, absolute or contains `..`); pass the snapshot file itself instead",
                            spec.name
                        )),
                    },
                    None => Err(anyhow::anyhow!(
                        "--offline: no snapshot for server {:?}; pass --snapshot-dir DIR holding {}.json, or drop --offline",
                        spec.name,
                        spec.name
                    )),
                });
            }
            (Some(spec), None) => match crate::launch_audit::launch_refusal(spec) {
                Some(why) if !opts.probe.allow_unpinned => {
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
        let results = crate::mcp::probe_all(&specs, &opts.probe, &|e| progress(remap(e)));
        for ((i, _), r) in live.iter().zip(results) {
            out[*i] = Some(r.map_err(anyhow::Error::new));
        }
    }
    out.into_iter()
        .map(|r| r.unwrap_or_else(|| Err(anyhow::anyhow!("target was not processed"))))
        .collect()
}
