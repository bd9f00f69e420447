//! The bubblewrap sandbox (`--sandbox`): finding `bwrap`, checking that it can create a
//! sandbox here, refusing commands that live inside the directories it hides, and planning
//! a launch inside it (read-only system, private HOME and /tmp, the real home hidden, no
//! network unless `--sandbox-net`).

use std::path::{Path, PathBuf};

use super::ProbeOptions;
use super::process::{DEFAULT_PATH, Launch, LaunchPlan};

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
pub fn sandbox_plan(
    bwrap: &str,
    launch: &Launch<'_>,
    real_home: Option<&Path>,
    opts: &ProbeOptions,
) -> LaunchPlan {
    let Launch {
        command,
        args,
        env,
        cwd,
        scratch,
    } = *launch;
    let mut b = bwrap_isolation(opts);
    let push =
        |b: &mut Vec<String>, items: &[&str]| b.extend(items.iter().map(|s| (*s).to_owned()));
    push(&mut b, SYSTEM_MOUNTS);
    push(&mut b, &["--tmpfs", "/tmp"]);
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

/// The system as the sandbox sees it: read-only root, fresh `/dev` and `/proc`.
const SYSTEM_MOUNTS: &[&str] = &["--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc"];

/// Check that bubblewrap can actually create the sandbox here (user namespaces allowed…).
pub async fn bwrap_preflight(bwrap: &Path, opts: &ProbeOptions) -> Result<(), String> {
    let mut cmd = tokio::process::Command::new(bwrap);
    cmd.args(bwrap_isolation(opts))
        .args(SYSTEM_MOUNTS)
        .args(["--", "true"])
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mcp::process::{LaunchEnv, build_env, plain_plan};
    use std::collections::BTreeMap;

    fn lookup(name: &str) -> Option<String> {
        (name == "PATH").then(|| "/bin".to_owned())
    }

    fn launch<'a>(args: &'a [String], env: &'a LaunchEnv, scratch: &'a Path) -> Launch<'a> {
        Launch {
            command: "srv",
            args,
            env,
            cwd: None,
            scratch,
        }
    }

    #[test]
    fn plans_set_private_home_and_tmp() {
        let env = build_env(&BTreeMap::new(), &[], &lookup);
        let args = vec!["-x".to_owned()];
        let p = plain_plan(&launch(&args, &env, Path::new("/tmp/s")));
        assert_eq!(p.env["HOME"], "/tmp/s/home");
        assert_eq!(p.env["TMPDIR"], "/tmp/s/tmp");
        assert_eq!(p.cwd, PathBuf::from("/tmp/s/home"));

        let opts = ProbeOptions::default();
        let home = tempfile::tempdir().unwrap();
        let p = sandbox_plan(
            "bwrap",
            &launch(&[], &env, Path::new("/tmp/s")),
            Some(home.path()),
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
        let p = sandbox_plan("bwrap", &launch(&[], &env, Path::new("/s")), None, &opts);
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
}
