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
    /// Index into `spec.args` (`None` when it is the command itself).
    pub arg: Option<usize>,
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
        return Some(
            "no version is given, so every launch runs whatever was published last".into(),
        );
    };
    let pinned = match p.ecosystem {
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

/// The effective program and its arguments, unwrapping `cmd /c X …` and `env A=B X …`.
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

/// Every package the command line fetches from a registry (git sources are left to
/// [`git_sources`]; local paths are not packages).
pub fn packages(spec: &ServerSpec) -> Vec<PackageRef> {
    let Transport::Stdio { command, args, .. } = &spec.transport else {
        return Vec::new();
    };
    let (program, argv, offset) = effective(command, args);
    let mut out = Vec::new();
    let mut push = |eco: Ecosystem, runner: &str, raw: &str, idx: usize| {
        if raw.is_empty()
            || is_local(raw)
            || is_git_source(raw)
            || raw.contains("://") && eco != Ecosystem::Url
        {
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
        Ecosystem::Url => format!("url:{}", p.name),
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
