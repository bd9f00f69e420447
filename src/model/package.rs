//! What a stdio command line launches: which package manager runner, which package spec (and
//! at which argument), which container image, which git ref. Pure argv analysis, no I/O.

use std::sync::LazyLock;

use regex::Regex;

use crate::model::spec::{ServerSpec, Transport};

pub use super::container::{ImageRef, git_sources, image};

/// Package ecosystems whose runners fetch and run code.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Ecosystem {
    Npm,
    Pypi,
    Go,
    Jsr,
    /// A module fetched by URL (deno).
    Url,
    /// An archive or wheel fetched by URL (`npx https://…/pkg.tgz`, `uvx --from https://…whl`,
    /// `pip install https://…`): nothing but a checked hash pins what is behind a URL.
    Archive,
}

/// A package the command line fetches and runs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PackageRef {
    pub ecosystem: Ecosystem,
    /// The runner as written (`npx`, `uvx --from`, `pnpm dlx`, …).
    pub runner: String,
    pub name: String,
    /// The version or specifier as written (`1.2.3`, `latest`, `^1`, `==1.2.3`, `>=1`), if any.
    pub version: Option<String>,
    /// The argument as written.
    pub raw: String,
    /// Index into `spec.args` (`None` when it is the command itself). For a launch inside a
    /// shell string, the argument that holds the string.
    pub arg: Option<usize>,
    /// The shell string it runs inside (`sh -c`, `cmd /c`, …), if any.
    pub via: Option<String>,
}

/// Why a package spec does not name one exact version (`None` when it does).
pub fn unpinned_why(p: &PackageRef) -> Option<String> {
    static SEMVER: LazyLock<Option<Regex>> = LazyLock::new(|| {
        Regex::new(r"^v?\d+\.\d+\.\d+(?:-[0-9A-Za-z.\-]+)?(?:\+[0-9A-Za-z.\-]+)?$").ok()
    });
    static PEP440: LazyLock<Option<Regex>> =
        LazyLock::new(|| Regex::new(r"^\d+(?:\.\d+)*(?:(?:a|b|rc|\.post|\.dev)\d+)*$").ok());
    let exact = |v: &str| SEMVER.as_ref().is_some_and(|r| r.is_match(v));
    let Some(v) = p.version.as_deref() else {
        if p.ecosystem == Ecosystem::Archive {
            return Some(
                "a remote archive is whatever the URL serves at launch time; no version or checked hash pins it".into(),
            );
        }
        return Some(
            "no version is given, so every launch runs whatever was published last".into(),
        );
    };
    let pinned = match p.ecosystem {
        // `version` holds a hash the runner checks (pip and uv check `#sha256=`).
        Ecosystem::Archive => true,
        Ecosystem::Npm | Ecosystem::Jsr => exact(v),
        Ecosystem::Go => exact(v) || v.starts_with("v0.0.0-"),
        Ecosystem::Url => exact(v),
        Ecosystem::Pypi => {
            let bare = v
                .strip_prefix("===")
                .or_else(|| v.strip_prefix("=="))
                .or_else(|| v.strip_prefix('@'));
            bare.is_some_and(|b| {
                !b.contains('*')
                    && !b.contains(',')
                    && PEP440.as_ref().is_some_and(|r| r.is_match(b))
            })
        }
    };
    if pinned {
        return None;
    }
    let bare = v.trim_start_matches(['@', '=']);
    if bare.eq_ignore_ascii_case("latest") {
        Some("`@latest` floats to every new release".into())
    } else if bare.chars().next().is_some_and(|c| c.is_ascii_alphabetic())
        && !bare.contains(['<', '>', '=', '^', '~', '*'])
    {
        Some(format!(
            "`{bare}` is a tag, which can be moved to any release"
        ))
    } else {
        Some(format!("`{v}` is a version range, not one exact version"))
    }
}

/// The program name without folders and Windows extensions, lower-case.
pub fn program_name(command: &str) -> String {
    let base = command
        .rsplit(['/', '\\'])
        .next()
        .unwrap_or(command)
        .to_ascii_lowercase();
    for ext in [".exe", ".cmd", ".bat", ".ps1"] {
        if let Some(b) = base.strip_suffix(ext) {
            return b.to_string();
        }
    }
    base
}

/// The effective program and its arguments, unwrapping `cmd /c X …`, `env A=B X …` and
/// `mcpvet guard … -- X …` (the guard runs X: a guarded launch is judged as X's launch).
/// Returns (program, arguments, index of the first argument in `spec.args`).
pub fn effective(command: &str, args: &[String]) -> (String, Vec<String>, usize) {
    let mut program = program_name(command);
    let mut offset = 0;
    loop {
        let rest = args.get(offset..).unwrap_or_default();
        if program == "cmd"
            && rest.first().is_some_and(|a| a.eq_ignore_ascii_case("/c"))
            && rest.len() >= 2
        {
            program = program_name(&rest[1]);
            offset += 2;
        } else if program == "mcpvet"
            && rest.first().is_some_and(|a| a == "guard")
            && let Some(dash) = rest.iter().position(|a| a == "--")
            && dash + 1 < rest.len()
        {
            program = program_name(&rest[dash + 1]);
            offset += dash + 2;
        } else if program == "env" {
            let skip = rest
                .iter()
                .take_while(|a| a.contains('=') || a.starts_with('-'))
                .count();
            match rest.get(skip) {
                Some(p) => {
                    program = program_name(p);
                    offset += skip + 1;
                }
                None => break,
            }
        } else {
            break;
        }
    }
    (
        program,
        args.get(offset..).unwrap_or_default().to_vec(),
        offset,
    )
}

fn split_npm(spec: &str) -> (String, Option<String>) {
    let (scope, rest) = match spec.strip_prefix('@') {
        Some(r) => ("@", r),
        None => ("", spec),
    };
    match rest.split_once('@') {
        Some((n, v)) => (format!("{scope}{n}"), Some(v.to_string())),
        None => (spec.to_string(), None),
    }
}

fn split_pypi(spec: &str) -> (String, Option<String>) {
    let spec = spec.trim();
    if let Some(i) = spec.find(['=', '<', '>', '~', '!', '@']) {
        let (n, v) = spec.split_at(i);
        let n = n.split('[').next().unwrap_or(n);
        (n.trim().to_string(), Some(v.trim().to_string()))
    } else {
        (spec.split('[').next().unwrap_or(spec).to_string(), None)
    }
}

/// How many shell strings deep a command line is looked into (`sh -c "bash -c '…'"`).
const MAX_NESTING: usize = 4;
/// How many command lines one spec may yield (a hostile string of a thousand `;` is cut here).
const MAX_LINES: usize = 64;

/// Shells whose `-c` argument is a command string.
const POSIX_SHELLS: &[&str] = &["sh", "bash", "zsh", "dash", "ksh", "ash", "mksh", "fish"];

/// One command line a spec runs: the command itself, or a simple command inside a shell string
/// (`sh -c "…"`, `bash -lc "…"`, `cmd /c "…"`, `pwsh -Command "…"`, `npx -c "…"`), split into
/// words as the shell splits them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CommandLine {
    pub command: String,
    pub args: Vec<String>,
    /// For a line inside a shell string: the index in `spec.args` of the string that holds it.
    pub holder: Option<usize>,
    /// The shell string it runs inside (`sh -c`), for messages.
    pub via: Option<String>,
}

impl CommandLine {
    /// The index in `spec.args` that argument `i` of this line comes from.
    pub fn outer(&self, i: usize) -> usize {
        self.holder.unwrap_or(i)
    }
}

/// Every command line the spec runs: its own, then those inside shell strings, depth first,
/// at most [`MAX_NESTING`] strings deep.
pub fn command_lines(spec: &ServerSpec) -> Vec<CommandLine> {
    let Transport::Stdio { command, args, .. } = &spec.transport else {
        return Vec::new();
    };
    let mut out = vec![CommandLine {
        command: command.clone(),
        args: args.clone(),
        holder: None,
        via: None,
    }];
    let mut i = 0;
    while i < out.len() && out.len() < MAX_LINES {
        let line = out[i].clone();
        let depth = line
            .via
            .as_deref()
            .map_or(0, |v| v.matches(" → ").count() + 1);
        if depth < MAX_NESTING {
            for (idx, via, text) in shell_strings(&line.command, &line.args) {
                let via = match &line.via {
                    Some(outer) => format!("{outer} → {via}"),
                    None => via,
                };
                for (command, args) in simple_commands(&text) {
                    if out.len() >= MAX_LINES {
                        break;
                    }
                    out.push(CommandLine {
                        command,
                        args,
                        holder: Some(line.outer(idx)),
                        via: Some(via.clone()),
                    });
                }
            }
        }
        i += 1;
    }
    out
}

/// The command strings a command line hands to a shell: (argument index, `sh -c`, text).
fn shell_strings(command: &str, args: &[String]) -> Vec<(usize, String, String)> {
    let raw = program_name(command);
    // `cmd /c "npx -y pkg"`: one string after /c (several words are unwrapped by `effective`).
    if raw == "cmd" {
        let c = args
            .iter()
            .position(|a| a.eq_ignore_ascii_case("/c") || a.eq_ignore_ascii_case("/k"));
        return match c {
            Some(c) if args.len() == c + 2 && args[c + 1].contains(char::is_whitespace) => {
                vec![(c + 1, format!("cmd {}", args[c]), args[c + 1].clone())]
            }
            _ => Vec::new(),
        };
    }
    let (program, argv, offset) = effective(command, args);
    if matches!(program.as_str(), "pwsh" | "powershell") {
        // Every word after -Command is joined into the command text.
        return argv
            .iter()
            .position(|a| a.eq_ignore_ascii_case("-command") || a.eq_ignore_ascii_case("-c"))
            .filter(|&c| c + 1 < argv.len())
            .map(|c| {
                vec![(
                    offset + c + 1,
                    format!("{program} -Command"),
                    argv[c + 1..].join(" "),
                )]
            })
            .unwrap_or_default();
    }
    let is_shell = POSIX_SHELLS.contains(&program.as_str());
    let is_call = matches!(program.as_str(), "npx" | "npm" | "pnpm");
    if !is_shell && !is_call {
        return Vec::new();
    }
    let mut out = Vec::new();
    let mut i = 0;
    let mut want = false;
    while i < argv.len() {
        let a = argv[i].as_str();
        if want && !a.starts_with('-') {
            out.push((offset + i, format!("{program} -c"), a.to_string()));
            want = false;
        } else if (is_shell
            && a.len() > 1
            && a.starts_with('-')
            && !a.starts_with("--")
            && a[1..].chars().all(|c| c.is_ascii_alphabetic())
            && a.contains('c'))
            || (is_call && (a == "-c" || a == "--call"))
        {
            want = true;
        } else if is_call && a.starts_with("--call=") {
            out.push((offset + i, format!("{program} --call"), a[7..].to_string()));
        } else if !(a.starts_with('-') || is_call && i == 0 && matches!(a, "exec" | "x" | "dlx")) {
            // `bash script.sh` runs a file; `npx pkg -c x` passes `-c` to the package.
            break;
        }
        i += 1;
    }
    out
}

/// Split a shell command string into simple commands (program, arguments): words as the shell
/// splits them (unbalanced quotes: at white space), cut at `;`, `&&`, `||`, `|`, `&` and
/// parentheses, with leading `NAME=value` assignments and `exec` dropped.
fn simple_commands(text: &str) -> Vec<(String, Vec<String>)> {
    let words =
        shlex::split(text).unwrap_or_else(|| text.split_whitespace().map(str::to_string).collect());
    let mut out = Vec::new();
    let mut current: Vec<String> = Vec::new();
    let flush = |current: &mut Vec<String>, out: &mut Vec<(String, Vec<String>)>| {
        let start = current
            .iter()
            .position(|w| !is_assignment(w) && !matches!(w.as_str(), "exec" | "command" | "nohup"))
            .unwrap_or(current.len());
        let mut words = current.drain(..).skip(start);
        if let Some(program) = words.next() {
            out.push((program, words.collect()));
        }
    };
    for word in words {
        let mut w = word.as_str();
        let mut cut_after = false;
        if matches!(w, ";" | "&&" | "||" | "|" | "&" | "(" | ")" | "{" | "}") {
            flush(&mut current, &mut out);
            continue;
        }
        for op in [";", "&&", "||", "|", "&", ")"] {
            if let Some(stripped) = w.strip_suffix(op) {
                w = stripped;
                cut_after = true;
                break;
            }
        }
        let w = w.trim_start_matches('(');
        if !w.is_empty() {
            current.push(w.to_string());
        }
        if cut_after {
            flush(&mut current, &mut out);
        }
    }
    flush(&mut current, &mut out);
    out
}

fn is_assignment(word: &str) -> bool {
    word.split_once('=').is_some_and(|(name, _)| {
        !name.is_empty()
            && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
            && !name.starts_with(|c: char| c.is_ascii_digit())
    })
}

/// Is this argument a git source rather than a registry package?
pub fn is_git_source(a: &str) -> bool {
    a.starts_with("git+")
        || a.starts_with("github:")
        || a.starts_with("gitlab:")
        || a.starts_with("bitbucket:")
        || a.starts_with("git://")
        || (a.starts_with("https://") && a.contains(".git"))
}

fn is_local(a: &str) -> bool {
    a.starts_with('.')
        || a.starts_with('/')
        || a.starts_with('~')
        || a.starts_with("file:")
        || a.contains('\\')
}

/// Scan runner arguments: `value_flags` take the next argument; stop at the first positional.
/// Returns (flag values keyed by flag, index of the first positional).
fn scan_flags<'a>(
    args: &'a [String],
    value_flags: &[&str],
) -> (Vec<(&'a str, usize)>, Option<usize>) {
    let mut values = Vec::new();
    let mut i = 0;
    while i < args.len() {
        let a = args[i].as_str();
        if a == "--" {
            return (values, (i + 1 < args.len()).then_some(i + 1));
        }
        if let Some((flag, _)) = a.split_once('=').filter(|_| a.starts_with('-')) {
            if value_flags.contains(&flag) {
                values.push((flag, i));
            }
            i += 1;
            continue;
        }
        if a.starts_with('-') {
            if value_flags.contains(&a) {
                values.push((a, i + 1));
                i += 2;
            } else {
                i += 1;
            }
            continue;
        }
        return (values, Some(i));
    }
    (values, None)
}

fn flag_value(args: &[String], flag: &str, idx: usize) -> Option<String> {
    let a = args.get(idx)?;
    if a.starts_with(flag) && a.contains('=') {
        a.split_once('=').map(|(_, v)| v.to_string())
    } else {
        Some(a.clone())
    }
}

/// Every package the command line fetches from a registry or a URL, including launches inside
/// shell strings (`sh -c "npx -y pkg@1.2.3"`); git sources are left to [`git_sources`]; local
/// paths are not packages.
pub fn packages(spec: &ServerSpec) -> Vec<PackageRef> {
    command_lines(spec)
        .into_iter()
        .flat_map(|line| {
            packages_of(&line.command, &line.args)
                .into_iter()
                .map(move |mut p| {
                    p.arg = p.arg.map(|i| line.outer(i));
                    p.via.clone_from(&line.via);
                    p
                })
                .collect::<Vec<_>>()
        })
        .collect()
}

/// A remote archive's checked hash: `#sha256=<64 hex>` (pip and uv verify it; npm does not).
fn archive_hash(runner: &str, url: &str) -> Option<String> {
    let python = ["uvx", "uv ", "pipx", "pip"]
        .iter()
        .any(|r| runner.starts_with(r));
    let (_, fragment) = url.split_once('#')?;
    let hex = fragment.strip_prefix("sha256=")?;
    (python && hex.len() == 64 && hex.chars().all(|c| c.is_ascii_hexdigit()))
        .then(|| format!("sha256:{hex}"))
}

fn packages_of(command: &str, args: &[String]) -> Vec<PackageRef> {
    let (program, argv, offset) = effective(command, args);
    let mut out = Vec::new();
    let mut push = |eco: Ecosystem, runner: &str, raw: &str, idx: usize| {
        if raw.is_empty() || is_local(raw) || is_git_source(raw) {
            return;
        }
        if eco != Ecosystem::Url && raw.contains("://") {
            out.push(PackageRef {
                ecosystem: Ecosystem::Archive,
                runner: runner.to_string(),
                name: raw.split('#').next().unwrap_or(raw).to_string(),
                version: archive_hash(runner, raw),
                raw: raw.to_string(),
                arg: Some(offset + idx),
                via: None,
            });
            return;
        }
        let (name, version) = match eco {
            Ecosystem::Pypi => split_pypi(raw),
            Ecosystem::Go => match raw.split_once('@') {
                Some((n, v)) => (n.to_string(), Some(v.to_string())),
                None => (raw.to_string(), None),
            },
            _ => split_npm(raw),
        };
        out.push(PackageRef {
            ecosystem: eco,
            runner: runner.to_string(),
            name,
            version,
            raw: raw.to_string(),
            arg: Some(offset + idx),
            via: None,
        });
    };
    let node_runner = |argv: &[String], skip: usize| -> (Vec<usize>, Option<usize>) {
        let rest = argv.get(skip..).unwrap_or_default();
        let (flags, first) = scan_flags(
            rest,
            &[
                "-p",
                "--package",
                "-c",
                "--call",
                "--registry",
                "--cache",
                "--userconfig",
            ],
        );
        let pkgs: Vec<usize> = flags
            .iter()
            .filter(|(f, _)| matches!(*f, "-p" | "--package"))
            .map(|(_, i)| skip + i)
            .collect();
        (pkgs, first.map(|f| skip + f))
    };
    let (runner, skip): (Option<&str>, usize) =
        match (program.as_str(), argv.first().map(String::as_str)) {
            ("npx" | "pnpx" | "bunx", _) => (Some(program.as_str()), 0),
            ("npm", Some("exec" | "x")) => (Some("npm exec"), 1),
            ("pnpm", Some("dlx")) => (Some("pnpm dlx"), 1),
            ("yarn", Some("dlx")) => (Some("yarn dlx"), 1),
            ("bun", Some("x")) => (Some("bun x"), 1),
            _ => (None, 0),
        };
    if let Some(runner) = runner {
        let (pkgs, first) = node_runner(&argv, skip);
        if pkgs.is_empty() {
            if let Some(f) = first {
                push(Ecosystem::Npm, runner, &argv[f], f);
            }
        } else {
            for i in pkgs {
                if let Some(v) = flag_value(&argv, "--package", i) {
                    push(Ecosystem::Npm, runner, &v, i);
                }
            }
        }
        return out;
    }
    let py_runner: Option<(&str, usize)> = match (
        program.as_str(),
        argv.first().map(String::as_str),
        argv.get(1).map(String::as_str),
    ) {
        ("uvx", _, _) => Some(("uvx", 0)),
        ("uv", Some("tool"), Some("run")) => Some(("uv tool run", 2)),
        ("uv", Some("x"), _) => Some(("uv x", 1)),
        ("pipx", Some("run"), _) => Some(("pipx run", 1)),
        _ => None,
    };
    if let Some((runner, skip)) = py_runner {
        let rest = argv.get(skip..).unwrap_or_default();
        let value_flags = [
            "--from",
            "--with",
            "-w",
            "--spec",
            "--python",
            "-p",
            "--index",
            "--index-url",
            "--default-index",
            "--extra-index-url",
            "--with-requirements",
            "--with-editable",
            "--find-links",
            "-f",
            "--pip-args",
            "--directory",
            "--cache-dir",
            "--config-file",
        ];
        let (flags, first) = scan_flags(rest, &value_flags);
        let mut has_from = false;
        for (f, i) in &flags {
            if matches!(*f, "--from" | "--spec" | "--with" | "-w") {
                has_from |= matches!(*f, "--from" | "--spec");
                if let Some(v) = flag_value(rest, f, *i) {
                    for part in v.split(',') {
                        push(Ecosystem::Pypi, runner, part.trim(), skip + i);
                    }
                }
            }
        }
        if !has_from {
            if let Some(f) = first {
                push(Ecosystem::Pypi, runner, &rest[f], skip + f);
            }
        }
        return out;
    }
    let pip_skip = match (
        program.as_str(),
        argv.first().map(String::as_str),
        argv.get(1).map(String::as_str),
        argv.get(2).map(String::as_str),
    ) {
        ("pip" | "pip3", Some("install"), _, _) | ("uv", Some("pip"), Some("install"), _) => {
            Some(if program == "uv" { 2 } else { 1 })
        }
        (p, Some("-m"), Some("pip"), Some("install")) if p.starts_with("python") => Some(3),
        _ => None,
    };
    if let Some(skip) = pip_skip {
        let rest = argv.get(skip..).unwrap_or_default();
        let value_flags = [
            "-r",
            "--requirement",
            "-c",
            "--constraint",
            "-e",
            "--editable",
            "-t",
            "--target",
            "-i",
            "--index-url",
            "--extra-index-url",
            "-f",
            "--find-links",
            "--prefix",
            "--root",
            "--python",
        ];
        // Every positional is a requirement: `pip install a==1.0 https://…/b.whl`.
        let mut i = 0;
        while i < rest.len() {
            let a = rest[i].as_str();
            if a.starts_with('-') {
                i += if value_flags.contains(&a) { 2 } else { 1 };
                continue;
            }
            push(Ecosystem::Pypi, "pip install", a, skip + i);
            i += 1;
        }
        return out;
    }
    if program == "go" && argv.first().is_some_and(|a| a == "run") {
        let rest = argv.get(1..).unwrap_or_default();
        let (_, first) = scan_flags(
            rest,
            &[
                "-C", "-exec", "-tags", "-ldflags", "-gcflags", "-mod", "-modfile", "-o", "-p",
            ],
        );
        if let Some(f) = first.filter(|&f| !rest[f].ends_with(".go")) {
            // `go run ./cmd` is local; a module path contains a dot in its first element.
            if rest[f].split('/').next().is_some_and(|h| h.contains('.')) {
                push(Ecosystem::Go, "go run", &rest[f], 1 + f);
            }
        }
        return out;
    }
    if program == "deno" && argv.first().is_some_and(|a| a == "run" || a == "x") {
        let rest = argv.get(1..).unwrap_or_default();
        let (_, first) = scan_flags(
            rest,
            &[
                "--config",
                "-c",
                "--import-map",
                "--lock",
                "--cert",
                "--location",
                "--seed",
                "--v8-flags",
                "--env-file",
            ],
        );
        if let Some(f) = first {
            let a = &rest[f];
            if let Some(npm) = a.strip_prefix("npm:") {
                push(Ecosystem::Npm, "deno", npm, 1 + f);
            } else if let Some(jsr) = a.strip_prefix("jsr:") {
                push(Ecosystem::Jsr, "deno", jsr, 1 + f);
            } else if a.starts_with("https://") || a.starts_with("http://") {
                static URL_VERSION: LazyLock<Option<Regex>> =
                    LazyLock::new(|| Regex::new(r"@(v?\d+\.\d+\.\d+[0-9A-Za-z.\-+]*)/").ok());
                let version = URL_VERSION
                    .as_ref()
                    .and_then(|r| r.captures(a))
                    .and_then(|c| c.get(1))
                    .map(|m| m.as_str().to_string());
                out.push(PackageRef {
                    ecosystem: Ecosystem::Url,
                    runner: "deno".into(),
                    name: a.clone(),
                    version,
                    raw: a.clone(),
                    arg: Some(offset + 1 + f),
                    via: None,
                });
            }
        }
    }
    out
}

/// The identity of what the spec runs, for allowlists and lockfiles:
/// `npm:@scope/pkg@1.2.3`, `pypi:pkg==1.2.3`, `oci:image@sha256:…`, `go:module@v1.2.3`,
/// `jsr:@scope/pkg@1.2.3`, `git:<url>` (version or tag as written; no version → the bare name).
/// `None` for a local command or a remote URL.
pub fn package_identity(spec: &ServerSpec) -> Option<String> {
    if let Some(img) = image(spec) {
        return Some(format!("oci:{}", img.image));
    }
    if let Some((_, src, _)) = git_sources(spec).into_iter().next() {
        return Some(format!("git:{src}"));
    }
    let p = packages(spec).into_iter().next()?;
    Some(match p.ecosystem {
        Ecosystem::Npm => match &p.version {
            Some(v) => format!("npm:{}@{v}", p.name),
            None => format!("npm:{}", p.name),
        },
        Ecosystem::Jsr => match &p.version {
            Some(v) => format!("jsr:{}@{v}", p.name),
            None => format!("jsr:{}", p.name),
        },
        Ecosystem::Pypi => match &p.version {
            Some(v) if v.starts_with('@') => format!("pypi:{}=={}", p.name, &v[1..]),
            Some(v) => format!("pypi:{}{v}", p.name),
            None => format!("pypi:{}", p.name),
        },
        Ecosystem::Go => match &p.version {
            Some(v) => format!("go:{}@{v}", p.name),
            None => format!("go:{}", p.name),
        },
        Ecosystem::Url | Ecosystem::Archive => format!("url:{}", p.name),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeMap;

    pub(crate) fn stdio(command: &str, args: &[&str]) -> ServerSpec {
        ServerSpec {
            name: "t".into(),
            host: crate::model::host::Host::CommandLine,
            origin: None,
            locations: BTreeMap::new(),
            transport: Transport::Stdio {
                command: command.into(),
                args: args.iter().map(|s| s.to_string()).collect(),
                env: BTreeMap::new(),
                cwd: None,
            },
            settings: BTreeMap::new(),
            duplicate_keys: Vec::new(),
        }
    }

    fn one(command: &str, args: &[&str]) -> PackageRef {
        let p = packages(&stdio(command, args));
        assert_eq!(p.len(), 1, "{command} {args:?} → {p:?}");
        p.into_iter().next().expect("one")
    }

    #[test]
    fn npm_runners() {
        let p = one("npx", &["-y", "@scope/pkg@1.2.3", "--port", "1"]);
        assert_eq!(
            (p.name.as_str(), p.version.as_deref(), p.arg),
            ("@scope/pkg", Some("1.2.3"), Some(1))
        );
        assert!(unpinned_why(&p).is_none());
        assert!(
            unpinned_why(&one("npx", &["-y", "pkg@latest"])).is_some_and(|w| w.contains("@latest"))
        );
        assert!(unpinned_why(&one("npx", &["pkg@^1.2.0"])).is_some_and(|w| w.contains("range")));
        assert!(unpinned_why(&one("npx", &["pkg@next"])).is_some_and(|w| w.contains("tag")));
        assert!(unpinned_why(&one("npx", &["pkg"])).is_some_and(|w| w.contains("no version")));
        assert_eq!(one("npx", &["-p", "a@1.0.0", "bin"]).name, "a");
        assert_eq!(
            one("npx", &["--package=a@1.0.0", "bin"]).version.as_deref(),
            Some("1.0.0")
        );
        assert_eq!(one("npm", &["exec", "--yes", "b"]).runner, "npm exec");
        assert_eq!(one("pnpm", &["dlx", "c@2.0.0"]).runner, "pnpm dlx");
        assert_eq!(one("yarn", &["dlx", "d"]).name, "d");
        assert_eq!(one("bunx", &["e@1.0.0"]).version.as_deref(), Some("1.0.0"));
        assert_eq!(one("cmd", &["/c", "npx", "-y", "f"]).arg, Some(3));
        assert_eq!(one("C:\\nodejs\\npx.cmd", &["g"]).name, "g");
        assert!(packages(&stdio("node", &["./server.js"])).is_empty());
        assert!(packages(&stdio("npx", &["./local"])).is_empty());
    }

    #[test]
    fn python_go_deno_runners() {
        let p = one("uvx", &["mcp-server-time==2026.10.19"]);
        assert_eq!(p.name, "mcp-server-time");
        assert!(unpinned_why(&p).is_none());
        assert!(unpinned_why(&one("uvx", &["pkg@1.2.3"])).is_none());
        assert!(unpinned_why(&one("uvx", &["pkg>=1.0"])).is_some());
        assert!(unpinned_why(&one("uvx", &["-n", "music"])).is_some());
        let p = one(
            "uvx",
            &["--from", "office-word-mcp-server", "word_mcp_server"],
        );
        assert_eq!(
            (p.name.as_str(), p.arg),
            ("office-word-mcp-server", Some(1))
        );
        let both = packages(&stdio("uvx", &["--with", "mcp==1.9.0", "sitemap"]));
        assert_eq!(both.len(), 2);
        assert!(unpinned_why(&both[0]).is_none() && unpinned_why(&both[1]).is_some());
        assert_eq!(
            one("uv", &["tool", "run", "arxiv", "--storage-path", "x"]).name,
            "arxiv"
        );
        assert_eq!(one("pipx", &["run", "--spec", "a==1.0", "b"]).name, "a");
        assert!(unpinned_why(&one("go", &["run", "github.com/x/y@v1.2.3"])).is_none());
        assert!(unpinned_why(&one("go", &["run", "github.com/x/y@latest"])).is_some());
        assert!(packages(&stdio("go", &["run", "./cmd/server"])).is_empty());
        assert!(unpinned_why(&one("deno", &["run", "-A", "npm:pkg@1.0.0"])).is_none());
        assert!(unpinned_why(&one("deno", &["run", "jsr:@s/p"])).is_some());
    }

    #[test]
    fn launches_inside_shell_strings_are_found_and_located_at_the_string() {
        let p = one("sh", &["-c", "npx -y evil@latest"]);
        assert_eq!(
            (
                p.name.as_str(),
                p.version.as_deref(),
                p.arg,
                p.via.as_deref()
            ),
            ("evil", Some("latest"), Some(1), Some("sh -c"))
        );
        assert!(unpinned_why(&p).is_some());
        let p = one(
            "bash",
            &["-lc", "cd /srv && FOO=1 exec uvx mcp-x==1.0.0 --port 1"],
        );
        assert_eq!((p.name.as_str(), p.arg), ("mcp-x", Some(1)));
        assert!(unpinned_why(&p).is_none());
        assert_eq!(one("cmd", &["/c", "npx -y evil@latest"]).arg, Some(1));
        assert_eq!(
            one("zsh", &["-c", "bash -c 'npx -y evil'"]).via.as_deref(),
            Some("zsh -c → bash -c")
        );
        assert_eq!(one("pwsh", &["-Command", "npx", "-y", "evil"]).name, "evil");
        assert_eq!(one("npx", &["-c", "uvx evil"]).ecosystem, Ecosystem::Pypi);
        assert_eq!(one("env", &["A=1", "sh", "-c", "npx evil"]).arg, Some(3));
        // A launch behind `mcpvet guard` is the guarded command's launch.
        let g = one(
            "mcpvet",
            &[
                "guard",
                "--lock",
                "l.json",
                "--",
                "npx",
                "-y",
                "evil@latest",
            ],
        );
        assert_eq!((g.name.as_str(), g.arg), ("evil", Some(6)));
        assert!(unpinned_why(&g).is_some());
        assert!(packages(&stdio("bash", &["./start.sh", "npx evil"])).is_empty());
        assert_eq!(
            packages(&stdio("npx", &["-y", "a@1.0.0", "-c", "npx b"])).len(),
            1
        );
        assert_eq!(one("npm", &["exec", "-c", "uvx evil"]).name, "evil");
        // Unbalanced quotes still split (at white space): nothing hides behind a stray quote.
        assert_eq!(one("sh", &["-c", "npx -y evil@1.0.0 '"]).name, "evil");
        let g = git_sources(&stdio("sh", &["-c", "npx -y github:a/b"]));
        assert_eq!(g, vec![(1, "github:a/b".to_string(), None)]);
        let i = image(&stdio("sh", &["-c", "docker run --rm -v /:/host img:1"])).expect("image");
        assert_eq!((i.image.as_str(), i.arg), ("img:1", 1));
        assert!(i.options.iter().all(|o| o.2 == 1));
        assert_eq!(
            package_identity(&stdio("sh", &["-c", "npx -y evil@latest"])).as_deref(),
            Some("npm:evil@latest")
        );
    }

    #[test]
    fn shell_strings_are_looked_into_only_so_deep() {
        let mut line = "npx -y evil".to_string();
        for _ in 0..MAX_NESTING {
            line = format!("sh -c {}", shlex::try_quote(&line).expect("quote"));
        }
        let spec = |l: &str| {
            let (cmd, rest) = l.split_once(' ').expect("words");
            let words = shlex::split(rest).expect("split");
            stdio(cmd, &words.iter().map(String::as_str).collect::<Vec<_>>())
        };
        assert_eq!(packages(&spec(&line)).len(), 1, "{line}");
        let deeper = format!("sh -c {}", shlex::try_quote(&line).expect("quote"));
        assert!(packages(&spec(&deeper)).is_empty(), "{deeper}");
        let many = vec!["true;"; 1000].concat();
        assert!(command_lines(&stdio("sh", &["-c", &many])).len() <= MAX_LINES);
    }

    #[test]
    fn remote_archives_are_unpinned_unless_a_checked_hash_pins_them() {
        for (cmd, args) in [
            ("npx", vec!["-y", "https://example.test/pkg.tgz"]),
            ("npm", vec!["exec", "--yes", "https://example.test/pkg.tgz"]),
            ("pnpm", vec!["dlx", "https://example.test/pkg.tgz"]),
            ("bunx", vec!["https://example.test/pkg.tgz"]),
            (
                "uvx",
                vec!["--from", "https://example.test/p-1.0-py3-none-any.whl", "p"],
            ),
            ("pip", vec!["install", "https://example.test/p-1.0.tar.gz"]),
            (
                "sh",
                vec!["-c", "pip install https://example.test/p.tgz && p"],
            ),
        ] {
            let p = one(cmd, &args);
            assert_eq!(p.ecosystem, Ecosystem::Archive, "{cmd} {args:?}");
            assert!(
                unpinned_why(&p).is_some_and(|w| w.contains("remote archive")),
                "{cmd} {args:?}"
            );
        }
        let hash = "ab".repeat(32);
        let pinned = format!("https://example.test/p-1.0-py3-none-any.whl#sha256={hash}");
        assert!(unpinned_why(&one("uvx", &["--from", &pinned, "p"])).is_none());
        // npm does not check a hash fragment.
        let npm = format!("https://example.test/pkg.tgz#sha256={hash}");
        assert!(unpinned_why(&one("npx", &[&npm])).is_some());
        assert!(unpinned_why(&one("pip", &["install", "a==1.0"])).is_none());
        assert!(unpinned_why(&one("python3", &["-m", "pip", "install", "a"])).is_some());
    }

    #[test]
    fn images_and_git() {
        let i = image(&stdio(
            "docker",
            &[
                "run",
                "-i",
                "--rm",
                "-e",
                "TOKEN",
                "ghcr.io/x/y:1.0",
                "serve",
            ],
        ))
        .expect("image");
        assert_eq!((i.image.as_str(), i.arg), ("ghcr.io/x/y:1.0", 5));
        assert_eq!(i.options.len(), 3);
        assert!(image(&stdio("docker", &["ps"])).is_none());
        let g = git_sources(&stdio(
            "uvx",
            &["--from", "git+https://github.com/a/b@main", "b"],
        ));
        assert_eq!(
            g,
            vec![(
                1,
                "git+https://github.com/a/b@main".to_string(),
                Some("main".to_string())
            )]
        );
        let g = git_sources(&stdio(
            "npx",
            &["github:a/b#0123456789abcdef0123456789abcdef01234567"],
        ));
        assert_eq!(g[0].2.as_deref().map(str::len), Some(40));
        assert_eq!(
            git_sources(&stdio("npx", &["git+ssh://git@github.com/a/b.git"]))[0].2,
            None
        );
    }
}
