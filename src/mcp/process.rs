//! Launching a stdio server so that it cannot harm the reviewer: a clean environment
//! (PATH, LANG, the declared entries, a fresh HOME and TMPDIR), `${VAR}` references left
//! unresolved unless `--pass-env` names them, its own process group killed as a whole
//! (grandchildren included) on every exit path, and optionally a bubblewrap sandbox.

use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};

use nix::sys::signal::{Signal, kill, killpg};
use nix::unistd::Pid;

use super::ProbeOptions;

/// Default PATH when the reviewer's own is not set.
const DEFAULT_PATH: &str = "/usr/local/bin:/usr/bin:/bin";

/// The environment a launched server receives, and notes about what was withheld.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct LaunchEnv {
    pub vars: BTreeMap<String, String>,
    pub notes: Vec<String>,
}

/// One `${VAR}` / `${env:VAR}` / `$VAR` / `${input:id}` reference inside a value.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Piece {
    Text(String),
    Var(String),
    Input(String),
}

/// Split a config value into literal text and variable references.
fn pieces(value: &str) -> Vec<Piece> {
    let mut out = Vec::new();
    let mut text = String::new();
    let chars: Vec<char> = value.chars().collect();
    let mut i = 0;
    let is_start = |c: char| c.is_ascii_alphabetic() || c == '_';
    let is_cont = |c: char| c.is_ascii_alphanumeric() || c == '_';
    while i < chars.len() {
        let c = chars[i];
        if c == '$' && i + 1 < chars.len() {
            if chars[i + 1] == '{' {
                if let Some(end) = chars[i + 2..].iter().position(|&c| c == '}') {
                    let inner: String = chars[i + 2..i + 2 + end].iter().collect();
                    let piece = if let Some(v) = inner.strip_prefix("env:") {
                        Piece::Var(v.to_owned())
                    } else if let Some(v) = inner.strip_prefix("input:") {
                        Piece::Input(v.to_owned())
                    } else {
                        Piece::Var(inner)
                    };
                    if !text.is_empty() {
                        out.push(Piece::Text(std::mem::take(&mut text)));
                    }
                    out.push(piece);
                    i += end + 3;
                    continue;
                }
            } else if is_start(chars[i + 1]) {
                let mut j = i + 1;
                while j < chars.len() && is_cont(chars[j]) {
                    j += 1;
                }
                if !text.is_empty() {
                    out.push(Piece::Text(std::mem::take(&mut text)));
                }
                out.push(Piece::Var(chars[i + 1..j].iter().collect()));
                i = j;
                continue;
            }
        }
        text.push(c);
        i += 1;
    }
    if !text.is_empty() {
        out.push(Piece::Text(text));
    }
    out
}

/// Build the server's environment: PATH and LANG from the reviewer, the declared entries
/// with references resolved only for variables in `pass_env`, and every `pass_env` variable
/// that is set. `lookup` reads the reviewer's environment.
pub fn build_env(
    declared: &BTreeMap<String, String>,
    pass_env: &[String],
    lookup: &dyn Fn(&str) -> Option<String>,
) -> LaunchEnv {
    let mut env = LaunchEnv::default();
    env.vars.insert(
        "PATH".into(),
        lookup("PATH").unwrap_or_else(|| DEFAULT_PATH.into()),
    );
    env.vars.insert(
        "LANG".into(),
        lookup("LANG").unwrap_or_else(|| "C.UTF-8".into()),
    );
    let (vars, notes) = resolve_values("environment entry", declared, pass_env, lookup);
    env.vars.extend(vars);
    env.notes = notes;
    for name in pass_env {
        if !env.vars.contains_key(name) && !declared.contains_key(name) {
            if let Some(val) = lookup(name) {
                env.vars.insert(name.clone(), val);
            }
        }
    }
    env
}

/// Resolve `${VAR}`-style references in config values (environment entries, HTTP
/// headers) for variables named in `pass_env` only. An entry with a reference that is not
/// passed (or not set, or an interactive `${input:…}`) is withheld entirely, with a note.
pub fn resolve_values(
    what: &str,
    declared: &BTreeMap<String, String>,
    pass_env: &[String],
    lookup: &dyn Fn(&str) -> Option<String>,
) -> (BTreeMap<String, String>, Vec<String>) {
    let mut out = BTreeMap::new();
    let mut notes = Vec::new();
    for (key, value) in declared {
        let mut resolved = String::new();
        let mut withheld = Vec::new();
        for piece in pieces(value) {
            match piece {
                Piece::Text(t) => resolved.push_str(&t),
                Piece::Var(v) if pass_env.iter().any(|p| p == &v) => match lookup(&v) {
                    Some(val) => resolved.push_str(&val),
                    None => withheld.push(format!("${{{v}}} is not set")),
                },
                Piece::Var(v) => withheld.push(format!(
                    "${{{v}}} is not passed (use --pass-env {v} to pass it)"
                )),
                Piece::Input(id) => withheld.push(format!(
                    "${{input:{id}}} is an interactive input mcpvet cannot answer"
                )),
            }
        }
        if withheld.is_empty() {
            out.insert(key.clone(), resolved);
        } else {
            notes.push(format!("{what} {key} withheld: {}", withheld.join("; ")));
        }
    }
    (out, notes)
}

/// Resolve references in command-line arguments: an argument whose references are all
/// passed (and set) is resolved; any other is kept literally (`${VAR}` reaches the server
/// as text, never the secret), with a note.
pub fn resolve_args(
    args: &[String],
    pass_env: &[String],
    lookup: &dyn Fn(&str) -> Option<String>,
) -> (Vec<String>, Vec<String>) {
    let mut notes = Vec::new();
    let out = args
        .iter()
        .enumerate()
        .map(|(i, a)| {
            let ps = pieces(a);
            if ps.iter().all(|p| matches!(p, Piece::Text(_))) {
                return a.clone();
            }
            let mut resolved = String::new();
            for p in &ps {
                match p {
                    Piece::Text(t) => resolved.push_str(t),
                    Piece::Var(v) if pass_env.iter().any(|x| x == v) => match lookup(v) {
                        Some(val) => resolved.push_str(&val),
                        None => {
                            notes.push(format!("argument {i} kept literally: ${{{v}}} is not set"));
                            return a.clone();
                        }
                    },
                    Piece::Var(v) => {
                        notes.push(format!(
                            "argument {i} kept literally: ${{{v}}} is not passed (use --pass-env {v} to pass it)"
                        ));
                        return a.clone();
                    }
                    Piece::Input(id) => {
                        notes.push(format!(
                            "argument {i} kept literally: ${{input:{id}}} is an interactive input"
                        ));
                        return a.clone();
                    }
                }
            }
            resolved
        })
        .collect();
    (out, notes)
}

/// What to execute: the program, its arguments, environment and directory, possibly
/// wrapped in bubblewrap.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LaunchPlan {
    pub program: String,
    pub args: Vec<String>,
    pub env: BTreeMap<String, String>,
    pub cwd: PathBuf,
}

/// Plan an unsandboxed launch: HOME and TMPDIR point into `scratch` (a fresh temp dir);
/// the server runs in `cwd` (the config's, else mcpvet's own directory).
pub fn plain_plan(
    command: &str,
    args: &[String],
    env: &LaunchEnv,
    cwd: Option<&Path>,
    scratch: &Path,
) -> LaunchPlan {
    let mut vars = env.vars.clone();
    let home = scratch.join("home");
    let tmp = scratch.join("tmp");
    vars.insert("HOME".into(), home.display().to_string());
    vars.insert("TMPDIR".into(), tmp.display().to_string());
    LaunchPlan {
        program: command.to_owned(),
        args: args.to_vec(),
        env: vars,
        cwd: cwd.map(Path::to_path_buf).unwrap_or(home),
    }
}

/// The namespace flags both the preflight check and the real launch use.
fn bwrap_isolation(opts: &ProbeOptions) -> Vec<String> {
    let mut v: Vec<String> = ["--die-with-parent", "--new-session", "--unshare-all"]
        .iter()
        .map(|s| (*s).to_owned())
        .collect();
    if opts.sandbox_net {
        v.push("--share-net".into());
    }
    v
}

/// Plan a launch inside bubblewrap: the whole filesystem read-only, private `/tmp`
/// (HOME at `/tmp/home` and TMPDIR at `/tmp/tmp`, bound from `scratch`), the reviewer's
/// home (and `/root`, `/home`) hidden behind empty tmpfs mounts, no network unless
/// `--sandbox-net`, killed when mcpvet dies.
#[allow(clippy::too_many_arguments)]
pub fn sandbox_plan(
    bwrap: &str,
    command: &str,
    args: &[String],
    env: &LaunchEnv,
    cwd: Option<&Path>,
    real_home: Option<&Path>,
    scratch: &Path,
    opts: &ProbeOptions,
) -> LaunchPlan {
    let mut b = bwrap_isolation(opts);
    let push =
        |b: &mut Vec<String>, items: &[&str]| b.extend(items.iter().map(|s| (*s).to_owned()));
    push(
        &mut b,
        &[
            "--ro-bind",
            "/",
            "/",
            "--dev",
            "/dev",
            "--proc",
            "/proc",
            "--tmpfs",
            "/tmp",
        ],
    );
    let hidden = hidden_dirs(real_home);
    for h in &hidden {
        if h.exists() {
            b.push("--tmpfs".into());
            b.push(h.display().to_string());
        }
    }
    for (sub, inside) in [("home", "/tmp/home"), ("tmp", "/tmp/tmp")] {
        b.extend([
            "--bind".into(),
            scratch.join(sub).display().to_string(),
            inside.to_owned(),
        ]);
    }
    // The working directory is visible read-only, unless it would reveal a hidden home.
    let work = match cwd {
        Some(c) if c.is_absolute() && !hidden.iter().any(|h| h.starts_with(c)) => {
            let c = c.display().to_string();
            b.extend(["--ro-bind".into(), c.clone(), c.clone()]);
            c
        }
        _ => "/tmp/home".to_owned(),
    };
    b.extend(["--chdir".into(), work, "--".into(), command.to_owned()]);
    b.extend(args.iter().cloned());
    let mut vars = env.vars.clone();
    vars.insert("HOME".into(), "/tmp/home".into());
    vars.insert("TMPDIR".into(), "/tmp/tmp".into());
    LaunchPlan {
        program: bwrap.to_owned(),
        args: b,
        env: vars,
        cwd: PathBuf::from("/"),
    }
}

/// The directories the sandbox hides: the reviewer's home, `/root` and `/home`.
pub fn hidden_dirs(real_home: Option<&Path>) -> Vec<PathBuf> {
    let mut hidden: Vec<PathBuf> = Vec::new();
    if let Some(h) = real_home.filter(|h| h.is_absolute() && *h != Path::new("/")) {
        hidden.push(h.to_path_buf());
    }
    for p in ["/root", "/home"] {
        let p = PathBuf::from(p);
        if p.is_dir() && !hidden.iter().any(|h| h == &p) {
            hidden.push(p);
        }
    }
    hidden
}

/// Why `command` cannot run in the sandbox, if it (through `path_var`, symlinks or its
/// `#!` interpreter) needs a file inside a directory the sandbox hides — e.g. a Python or
/// Node installed under the reviewer's home (`~/.pyenv`, `~/.nvm`).
pub fn hidden_command(command: &str, path_var: Option<&str>, hidden: &[PathBuf]) -> Option<String> {
    let resolved = resolve_program(command, path_var)?;
    let mut needs = vec![resolved.clone()];
    if let Some(interp) = shebang_interpreter(&resolved, path_var) {
        needs.push(interp);
    }
    for path in needs {
        let real = std::fs::canonicalize(&path).unwrap_or_else(|_| path.clone());
        for candidate in [&path, &real] {
            if let Some(h) = hidden.iter().find(|h| candidate.starts_with(h)) {
                return Some(format!(
                    "`{command}` needs {}, inside {}, which the sandbox hides; install it outside your home or give a path outside it",
                    candidate.display(),
                    h.display()
                ));
            }
        }
    }
    None
}

/// A program name resolved the way `execvp` would.
fn resolve_program(command: &str, path_var: Option<&str>) -> Option<PathBuf> {
    if command.contains('/') {
        Some(PathBuf::from(command))
    } else {
        std::env::split_paths(path_var.unwrap_or(DEFAULT_PATH))
            .map(|d| d.join(command))
            .find(|p| p.is_file())
    }
}

/// The interpreter a `#!` script names (through `/usr/bin/env NAME` too).
fn shebang_interpreter(script: &Path, path_var: Option<&str>) -> Option<PathBuf> {
    use std::io::Read;
    let mut head = [0u8; 256];
    let n = std::fs::File::open(script).ok()?.read(&mut head).ok()?;
    let text = std::str::from_utf8(head.get(..n)?).ok()?;
    let line = text.strip_prefix("#!")?.lines().next()?;
    let mut words = line.split_whitespace();
    let interp = words.next()?;
    if interp.ends_with("/env") {
        let name = words.find(|w| !w.starts_with('-'))?;
        resolve_program(name, path_var)
    } else {
        Some(PathBuf::from(interp))
    }
}

/// Find `bwrap` on the reviewer's PATH.
pub fn find_bwrap(path_var: Option<&str>) -> Option<PathBuf> {
    let path = path_var.unwrap_or(DEFAULT_PATH);
    std::env::split_paths(path)
        .map(|d| d.join("bwrap"))
        .find(|p| p.is_file())
}

/// Check that bubblewrap can actually create the sandbox here (user namespaces allowed…).
pub async fn bwrap_preflight(bwrap: &Path, opts: &ProbeOptions) -> Result<(), String> {
    let mut cmd = tokio::process::Command::new(bwrap);
    cmd.args(bwrap_isolation(opts))
        .args([
            "--ro-bind",
            "/",
            "/",
            "--dev",
            "/dev",
            "--proc",
            "/proc",
            "--",
            "true",
        ])
        .env_clear()
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .kill_on_drop(true);
    let out = tokio::time::timeout(std::time::Duration::from_secs(10), cmd.output())
        .await
        .map_err(|_| "bubblewrap did not start within 10 s".to_owned())?
        .map_err(|e| format!("cannot run {}: {e}", bwrap.display()))?;
    if out.status.success() {
        Ok(())
    } else {
        Err(format!(
            "{} cannot create the sandbox ({}): {}",
            bwrap.display(),
            out.status,
            String::from_utf8_lossy(&out.stderr).trim()
        ))
    }
}

/// All live descendants of `root` (children, grandchildren, …), read from `/proc`. This
/// also finds processes that left the process group with `setsid`.
pub fn descendants(root: i32) -> Vec<i32> {
    let Ok(dir) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    let mut children: HashMap<i32, Vec<i32>> = HashMap::new();
    for entry in dir.flatten() {
        let Some(pid) = entry
            .file_name()
            .to_str()
            .and_then(|s| s.parse::<i32>().ok())
        else {
            continue;
        };
        let Ok(stat) = std::fs::read_to_string(entry.path().join("stat")) else {
            continue;
        };
        // The command name is in parentheses and may contain spaces; fields follow the last ')'.
        let Some(rest) = stat.rfind(')').map(|i| &stat[i + 1..]) else {
            continue;
        };
        let mut fields = rest.split_whitespace();
        let _state = fields.next();
        if let Some(ppid) = fields.next().and_then(|s| s.parse::<i32>().ok()) {
            children.entry(ppid).or_default().push(pid);
        }
    }
    let mut out = Vec::new();
    let mut stack = vec![root];
    while let Some(p) = stack.pop() {
        if let Some(kids) = children.get(&p) {
            for &k in kids {
                if !out.contains(&k) && k != root {
                    out.push(k);
                    stack.push(k);
                }
            }
        }
    }
    out
}

/// Kills a launched server's whole process group and every descendant when dropped, so
/// no exit path (success, error, timeout, panic) leaves a process behind.
#[derive(Debug)]
pub struct ProcessGuard {
    pid: i32,
    done: bool,
}

impl ProcessGuard {
    pub fn new(pid: u32) -> Self {
        Self {
            pid: i32::try_from(pid).unwrap_or(i32::MAX),
            done: false,
        }
    }

    /// Send SIGKILL to the group and to every descendant (idempotent).
    pub fn kill_all(&mut self) {
        if self.done || self.pid <= 1 {
            return;
        }
        self.done = true;
        // Stop the tree from growing first, then collect it, then kill it.
        let _ = killpg(Pid::from_raw(self.pid), Signal::SIGSTOP);
        let tree = descendants(self.pid);
        for &p in &tree {
            let _ = kill(Pid::from_raw(p), Signal::SIGSTOP);
        }
        let _ = killpg(Pid::from_raw(self.pid), Signal::SIGKILL);
        let _ = kill(Pid::from_raw(self.pid), Signal::SIGKILL);
        for p in tree {
            let _ = kill(Pid::from_raw(p), Signal::SIGKILL);
        }
    }
}

impl Drop for ProcessGuard {
    fn drop(&mut self) {
        self.kill_all();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lookup(name: &str) -> Option<String> {
        match name {
            "PATH" => Some("/bin".into()),
            "GITHUB_TOKEN" => Some("ghp_secret".into()),
            "REGION" => Some("eu".into()),
            _ => None,
        }
    }

    #[test]
    fn references_are_withheld_unless_passed() {
        let declared: BTreeMap<String, String> = [
            ("TOKEN", "${GITHUB_TOKEN}"),
            ("ALT", "${env:GITHUB_TOKEN}"),
            ("URL", "https://$REGION.example/x"),
            ("LITERAL", "plain"),
            ("ASK", "${input:token}"),
            ("PRICE", "$5"),
        ]
        .iter()
        .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
        .collect();
        let env = build_env(&declared, &[], &lookup);
        assert_eq!(env.vars.get("LITERAL").map(String::as_str), Some("plain"));
        assert_eq!(env.vars.get("PRICE").map(String::as_str), Some("$5"));
        assert_eq!(env.vars.get("PATH").map(String::as_str), Some("/bin"));
        assert_eq!(env.vars.get("LANG").map(String::as_str), Some("C.UTF-8"));
        for k in ["TOKEN", "ALT", "URL", "ASK"] {
            assert!(!env.vars.contains_key(k), "{k} leaked");
        }
        assert!(!env.vars.values().any(|v| v.contains("ghp_secret")));
        assert_eq!(env.notes.len(), 4, "{:?}", env.notes);
        assert!(
            env.notes
                .iter()
                .any(|n| n.contains("--pass-env GITHUB_TOKEN"))
        );

        let env = build_env(
            &declared,
            &["GITHUB_TOKEN".into(), "REGION".into()],
            &lookup,
        );
        assert_eq!(
            env.vars.get("TOKEN").map(String::as_str),
            Some("ghp_secret")
        );
        assert_eq!(env.vars.get("ALT").map(String::as_str), Some("ghp_secret"));
        assert_eq!(
            env.vars.get("URL").map(String::as_str),
            Some("https://eu.example/x")
        );
        assert!(!env.vars.contains_key("ASK"));
    }

    #[test]
    fn arguments_are_resolved_only_when_passed() {
        let args: Vec<String> = ["--token", "${GITHUB_TOKEN}", "--region=$REGION", "x"]
            .iter()
            .map(|s| (*s).to_owned())
            .collect();
        let (out, notes) = resolve_args(&args, &[], &lookup);
        assert_eq!(out, args);
        assert_eq!(notes.len(), 2, "{notes:?}");
        let (out, notes) = resolve_args(&args, &["GITHUB_TOKEN".into()], &lookup);
        assert_eq!(out[1], "ghp_secret");
        assert_eq!(out[2], "--region=$REGION");
        assert_eq!(notes.len(), 1);
    }

    #[test]
    fn pass_env_passes_undeclared_variables_only_when_named() {
        let env = build_env(&BTreeMap::new(), &["REGION".into(), "NOPE".into()], &lookup);
        assert_eq!(env.vars.get("REGION").map(String::as_str), Some("eu"));
        assert!(!env.vars.contains_key("NOPE"));
        assert!(!env.vars.contains_key("GITHUB_TOKEN"));
    }

    #[test]
    fn plans_set_private_home_and_tmp() {
        let env = build_env(&BTreeMap::new(), &[], &lookup);
        let p = plain_plan("srv", &["-x".into()], &env, None, Path::new("/tmp/s"));
        assert_eq!(p.env["HOME"], "/tmp/s/home");
        assert_eq!(p.env["TMPDIR"], "/tmp/s/tmp");
        assert_eq!(p.cwd, PathBuf::from("/tmp/s/home"));

        let opts = ProbeOptions::default();
        let home = tempfile::tempdir().unwrap();
        let p = sandbox_plan(
            "bwrap",
            "srv",
            &[],
            &env,
            None,
            Some(home.path()),
            Path::new("/tmp/s"),
            &opts,
        );
        let joined = p.args.join(" ");
        assert!(joined.contains("--unshare-all"), "{joined}");
        assert!(!joined.contains("--share-net"), "{joined}");
        assert!(
            joined.contains(&format!("--tmpfs {}", home.path().display())),
            "{joined}"
        );
        assert!(joined.contains("--die-with-parent"), "{joined}");
        assert!(joined.contains("--bind /tmp/s/home /tmp/home"), "{joined}");
        assert!(joined.ends_with("-- srv"), "{joined}");
        assert_eq!(p.env["HOME"], "/tmp/home");
        let opts = ProbeOptions {
            sandbox_net: true,
            ..ProbeOptions::default()
        };
        let p = sandbox_plan(
            "bwrap",
            "srv",
            &[],
            &env,
            None,
            None,
            Path::new("/s"),
            &opts,
        );
        assert!(p.args.contains(&"--share-net".to_owned()));
    }

    #[test]
    fn commands_inside_hidden_dirs_are_named() {
        let home = tempfile::tempdir().unwrap();
        let bin = home.path().join("bin");
        std::fs::create_dir_all(&bin).unwrap();
        std::fs::write(bin.join("node"), "").unwrap();
        let hidden = hidden_dirs(Some(home.path()));
        let path = bin.display().to_string();
        let why = hidden_command("node", Some(&path), &hidden).unwrap();
        assert!(why.contains("which the sandbox hides"), "{why}");
        assert!(hidden_command("/usr/bin/env", None, &hidden).is_none());
        // A script outside the home whose interpreter is inside it.
        let elsewhere = tempfile::tempdir().unwrap();
        let script = elsewhere.path().join("tool");
        std::fs::write(&script, format!("#!{}/node\n", bin.display())).unwrap();
        let why = hidden_command(script.to_str().unwrap(), Some(&path), &hidden).unwrap();
        assert!(why.contains("node"), "{why}");
        std::fs::write(&script, "#!/usr/bin/env node\n").unwrap();
        assert!(hidden_command(script.to_str().unwrap(), Some(&path), &hidden).is_some());
        std::fs::write(&script, "#!/bin/sh\n").unwrap();
        assert!(hidden_command(script.to_str().unwrap(), Some(&path), &hidden).is_none());
        assert!(hidden_command("no-such-command", Some(&path), &hidden).is_none());
    }

    #[test]
    fn descendants_of_self_include_a_spawned_child() {
        let mut child = std::process::Command::new("sleep")
            .arg("5")
            .spawn()
            .unwrap();
        let me = i32::try_from(std::process::id()).unwrap();
        let kids = descendants(me);
        assert!(kids.contains(&i32::try_from(child.id()).unwrap()));
        child.kill().unwrap();
        child.wait().unwrap();
    }
}
