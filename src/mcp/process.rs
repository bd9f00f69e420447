//! Launching a stdio server so that it cannot harm the reviewer: a clean environment
//! (PATH, LANG, the declared entries, a fresh HOME and TMPDIR), `${VAR}` references left
//! unresolved unless `--pass-env` names them, its own process group killed as a whole
//! (grandchildren included) on every exit path. The bubblewrap sandbox (the default) is
//! planned in [`super::sandbox`]. Outside it, [`harden_self`] makes mcpvet non-dumpable (a
//! same-user server cannot read its environment or memory through `/proc`) and a child
//! subreaper (double-forked daemons reparent to mcpvet), and [`kill_orphans`] kills and
//! reaps whatever is left when a command ends.

use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};

use nix::sys::signal::{Signal, kill, killpg};
use nix::sys::wait::{WaitPidFlag, waitpid};
use nix::unistd::Pid;

/// Default PATH when the reviewer's own is not set.
pub(super) const DEFAULT_PATH: &str = "/usr/local/bin:/usr/bin:/bin";

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

/// What the config asks to run, resolved: the command, its arguments and environment, its
/// directory, and the scratch folder holding the private HOME and TMPDIR.
#[derive(Debug, Clone, Copy)]
pub struct Launch<'a> {
    pub command: &'a str,
    pub args: &'a [String],
    pub env: &'a LaunchEnv,
    pub cwd: Option<&'a Path>,
    pub scratch: &'a Path,
}

/// Plan an unsandboxed launch: HOME and TMPDIR point into `scratch` (a fresh temp dir);
/// the server runs in `cwd` (the config's, else mcpvet's own directory).
pub fn plain_plan(launch: &Launch<'_>) -> LaunchPlan {
    let mut vars = launch.env.vars.clone();
    let home = launch.scratch.join("home");
    let tmp = launch.scratch.join("tmp");
    vars.insert("HOME".into(), home.display().to_string());
    vars.insert("TMPDIR".into(), tmp.display().to_string());
    LaunchPlan {
        program: launch.command.to_owned(),
        args: launch.args.to_vec(),
        env: vars,
        cwd: launch.cwd.map(Path::to_path_buf).unwrap_or(home),
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
        if let Some(ppid) = parent_of(&entry.path().join("stat")) {
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

/// The parent process id in a `/proc/PID/stat` file, read with one `read` (this runs over
/// every process on the machine, twice per probe): the parent is the second field after the
/// command name, which is in parentheses, may hold spaces and parentheses, and is at most
/// 64 bytes, so the first 512 bytes always hold it.
fn parent_of(stat: &Path) -> Option<i32> {
    use std::io::Read;
    let mut buf = [0u8; 512];
    let n = std::fs::File::open(stat).ok()?.read(&mut buf).ok()?;
    let head = buf.get(..n)?;
    let close = head.iter().rposition(|&b| b == b')')?;
    let rest = std::str::from_utf8(head.get(close + 1..)?).ok()?;
    let mut fields = rest.split_ascii_whitespace();
    let _state = fields.next()?;
    fields.next()?.parse().ok()
}

/// Protect mcpvet from the servers it launches, early in `main`: mark it non-dumpable, so
/// a process of the same user cannot read `/proc/<mcpvet>/environ` or its memory, and make
/// it a child subreaper, so a daemon that double-forks out of a server's tree reparents to
/// mcpvet (where [`kill_orphans`] finds it) instead of to init. Returns what could not be
/// done (an old kernel), for a warning.
pub fn harden_self() -> Vec<String> {
    let mut problems = Vec::new();
    if let Err(e) = nix::sys::prctl::set_dumpable(false) {
        problems.push(format!(
            "cannot mark mcpvet non-dumpable ({e}): a server run with --no-sandbox may read mcpvet's environment"
        ));
    }
    if let Err(e) = nix::sys::prctl::set_child_subreaper(true) {
        problems.push(format!(
            "cannot make mcpvet a child subreaper ({e}): a daemon started by a server run with --no-sandbox may survive the scan"
        ));
    }
    problems
}

/// Kill and reap every process still descending from mcpvet: daemons that escaped a
/// server's process tree and reparented to mcpvet (see [`harden_self`]), and zombies. Call
/// it only when no server is meant to be running any more (at the end of a command). The
/// tree is frozen with SIGSTOP before it is killed, and walked again until it is empty, so
/// a process forking in between is caught too.
pub fn kill_orphans() -> usize {
    let me = i32::try_from(std::process::id()).unwrap_or(i32::MAX);
    let mut killed = 0;
    for _round in 0..10 {
        let tree = descendants(me);
        if tree.is_empty() {
            break;
        }
        for &p in &tree {
            let _ = kill(Pid::from_raw(p), Signal::SIGSTOP);
        }
        for &p in &tree {
            let _ = kill(Pid::from_raw(p), Signal::SIGKILL);
        }
        // Only direct children can be reaped here; the others are reaped by their parents
        // (or, once those die, reparented to mcpvet and reaped in the next round).
        for &p in &tree {
            if waitpid(Pid::from_raw(p), Some(WaitPidFlag::__WALL)).is_ok() {
                killed += 1;
            }
        }
    }
    killed
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
    fn the_parent_is_read_past_any_command_name() {
        let ppid = i32::try_from(std::os::unix::process::parent_id()).unwrap();
        assert_eq!(parent_of(Path::new("/proc/self/stat")), Some(ppid));
        let dir = tempfile::tempdir().unwrap();
        let stat = dir.path().join("stat");
        let name = format!("a) S 1 (b {}", "x".repeat(40));
        std::fs::write(
            &stat,
            format!("42 ({name}) R 4242 42 42 0 -1 {}\n", "7 ".repeat(60)),
        )
        .unwrap();
        assert_eq!(parent_of(&stat), Some(4242));
        std::fs::write(&stat, "42 (no closing paren R 4242").unwrap();
        assert_eq!(parent_of(&stat), None);
        assert_eq!(parent_of(&dir.path().join("missing")), None);
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
