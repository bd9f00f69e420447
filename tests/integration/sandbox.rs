//! Integration tests: the sandbox every stdio server runs in by default, and what protects
//! the reviewer with `--no-sandbox`. The server is `tests/fixtures/hostile/snoop.py`, which
//! tries what a hostile server would (read mcpvet's environment through `/proc`, list its
//! working directory, connect to a loopback port, leave daemons behind) and reports what it
//! got as its tool's description.

// Test helpers outside `#[test]` functions unwrap too.
#![allow(clippy::unwrap_used)]

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::time::{Duration, Instant};

use super::fixtures::python;
use mcpvet::model::snapshot::ServerSnapshot;

fn snoop() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/hostile/snoop.py")
}

fn which(cmd: &str) -> Option<PathBuf> {
    std::env::split_paths(&std::env::var_os("PATH")?)
        .map(|d| d.join(cmd))
        .find(|p| p.is_file())
}

/// Whether bubblewrap can run here; in CI it must. (A skip is said on the test's stderr.)
#[allow(clippy::print_stderr)]
fn have_bwrap() -> bool {
    if which("bwrap").is_some() {
        return true;
    }
    assert!(
        std::env::var_os("CI").is_none(),
        "bubblewrap (bwrap) must be installed in CI"
    );
    eprintln!("skipping: bwrap not installed");
    false
}

/// A folder outside /tmp and outside any home (the sandbox hides both), removed on drop.
fn target_dir() -> tempfile::TempDir {
    tempfile::tempdir_in(env!("CARGO_TARGET_TMPDIR")).unwrap()
}

fn mcpvet_in(cwd: &Path, args: &[&str], envs: &[(&str, &str)]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_mcpvet"))
        .current_dir(cwd)
        .args(args)
        .envs(envs.iter().copied())
        .output()
        .unwrap()
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// `mcpvet snapshot [extra…] -o OUT -- python3 snoop.py ARGS…`; the report the server
/// wrote into its tool description, and the whole snapshot file's text.
fn snoop_report(
    extra: &[&str],
    args: &[&str],
    envs: &[(&str, &str)],
) -> (serde_json::Value, String) {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("s.json");
    let py = python();
    let script = snoop();
    let mut argv = vec!["snapshot"];
    argv.extend_from_slice(extra);
    argv.extend([
        "--timeout",
        "20",
        "-o",
        out.to_str().unwrap(),
        "--",
        &py,
        script.to_str().unwrap(),
    ]);
    argv.extend_from_slice(args);
    let o = mcpvet_in(Path::new(env!("CARGO_MANIFEST_DIR")), &argv, envs);
    assert!(o.status.success(), "{}", stderr(&o));
    let text = std::fs::read_to_string(&out).unwrap();
    (description(&ServerSnapshot::load(&out).unwrap()), text)
}

fn description(s: &ServerSnapshot) -> serde_json::Value {
    serde_json::from_str(s.tools[0]["description"].as_str().unwrap()).unwrap()
}

const CANARY_VALUE: &str = "canary-4c1d9e-reviewer-token";

/// A stdio server walks up from its parent to pid 1 reading every `/proc/<pid>/environ`:
/// mcpvet's environment (a canary variable) never reaches it, in the sandbox (its own PID
/// namespace: mcpvet is not there) and with `--no-sandbox` (mcpvet is non-dumpable; checked
/// as an unprivileged user, since root may read any process's environment).
#[test]
fn environment_of_mcpvet_is_unreadable_by_the_server() {
    if have_bwrap() {
        let (r, text) = snoop_report(&[], &["environ"], &[("MCPVET_CANARY", CANARY_VALUE)]);
        let ancestors = r["ancestors"].as_array().unwrap();
        assert!(!ancestors.is_empty(), "{r}");
        // Its own PID namespace: mcpvet is not even among the processes it can see.
        assert!(ancestors.iter().all(|a| a["comm"] != "mcpvet"), "{r}");
        assert!(!text.contains(CANARY_VALUE), "{r}");
        assert!(!text.contains("FOUND"), "{r}");
    }

    // --no-sandbox, as nobody: mcpvet, the fixture and the output folder must be usable by
    // that user, so they are copied into a world-readable folder.
    let Some(setpriv) = which("setpriv") else {
        eprintln!("skipping the --no-sandbox half: setpriv (util-linux) is not installed");
        return;
    };
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().unwrap();
    std::fs::set_permissions(dir.path(), std::fs::Permissions::from_mode(0o777)).unwrap();
    let bin = dir.path().join("mcpvet");
    std::fs::copy(env!("CARGO_BIN_EXE_mcpvet"), &bin).unwrap();
    std::fs::set_permissions(&bin, std::fs::Permissions::from_mode(0o755)).unwrap();
    let script = dir.path().join("snoop.py");
    std::fs::copy(snoop(), &script).unwrap();
    std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o644)).unwrap();
    let out = dir.path().join("s.json");
    let py = python();
    let o = Command::new(setpriv)
        .args(["--reuid=65534", "--regid=65534", "--clear-groups"])
        .arg(&bin)
        .args([
            "snapshot",
            "--no-sandbox",
            "--timeout",
            "20",
            "-o",
            out.to_str().unwrap(),
            "--",
            &py,
            script.to_str().unwrap(),
            "environ",
        ])
        .current_dir(dir.path())
        .env_clear()
        .env("PATH", "/usr/local/bin:/usr/bin:/bin")
        .env("HOME", dir.path())
        .env("MCPVET_CANARY", CANARY_VALUE)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", stderr(&o));
    // The notice says the server was not confined.
    assert!(stderr(&o).contains("NOT SANDBOXED"), "{}", stderr(&o));
    let text = std::fs::read_to_string(&out).unwrap();
    let r = description(&ServerSnapshot::load(&out).unwrap());
    assert!(!text.contains(CANARY_VALUE), "{r}");
    assert!(!text.contains("FOUND"), "{r}");
    // The server did reach mcpvet (its parent) and was refused: the test can fail.
    let parent = &r["ancestors"][0];
    assert_eq!(parent["comm"], "mcpvet", "{r}");
    assert!(
        parent["environ"].as_str().unwrap().starts_with("DENIED"),
        "{r}"
    );
}

/// Every live process whose command line holds `marker` (zombies have none).
fn with_marker(marker: &str) -> Vec<i32> {
    let mut out = Vec::new();
    for e in std::fs::read_dir("/proc").unwrap().flatten() {
        let Some(pid) = e.file_name().to_str().and_then(|s| s.parse::<i32>().ok()) else {
            continue;
        };
        if let Ok(cmd) = std::fs::read(e.path().join("cmdline")) {
            if String::from_utf8_lossy(&cmd).contains(marker) {
                out.push(pid);
            }
        }
    }
    out
}

fn assert_none_left(marker: &str, what: &str) {
    let until = Instant::now() + Duration::from_secs(3);
    loop {
        let left = with_marker(marker);
        if left.is_empty() {
            return;
        }
        assert!(
            Instant::now() < until,
            "{what}: processes left running: {left:?}"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// A server that double-forks, calls `setsid`, ignores SIGTERM and starts a sleeper (also
/// ignoring SIGTERM) leaves nothing running once mcpvet exits: in the sandbox (the PID
/// namespace dies with it) and with `--no-sandbox` (mcpvet is a child subreaper and kills
/// and reaps what reparented to it), also when the server hangs past `--timeout`.
#[test]
fn no_process_survives_a_hostile_server() {
    let sandboxed = have_bwrap();
    let py = python();
    let script = snoop();
    for (mode, extra) in [("sandbox", &[][..]), ("no-sandbox", &["--no-sandbox"][..])] {
        if mode == "sandbox" && !sandboxed {
            continue;
        }
        for scenario in ["daemon", "hang"] {
            let what = format!("{mode}/{scenario}");
            let marker = format!(
                "mcpvet-test-marker-{}-{mode}-{scenario}",
                std::process::id()
            );
            let dir = tempfile::tempdir().unwrap();
            let out = dir.path().join("s.json");
            let pids = dir.path().join("pids");
            let mut argv = vec!["snapshot"];
            argv.extend_from_slice(extra);
            argv.extend([
                "--timeout",
                "3",
                "-o",
                out.to_str().unwrap(),
                "--",
                &py,
                script.to_str().unwrap(),
                scenario,
                &marker,
                pids.to_str().unwrap(),
            ]);
            let start = Instant::now();
            let o = mcpvet_in(Path::new(env!("CARGO_MANIFEST_DIR")), &argv, &[]);
            let took = start.elapsed();
            if scenario == "hang" {
                assert_eq!(o.status.code(), Some(3), "{what}: {}", stderr(&o));
                assert!(stderr(&o).contains("--timeout"), "{what}: {}", stderr(&o));
                assert!(took < Duration::from_secs(5), "{what}: took {took:?}");
            } else {
                assert!(o.status.success(), "{what}: {}", stderr(&o));
            }
            assert_none_left(&marker, &what);
            if mode == "no-sandbox" {
                // Outside the sandbox the daemon and its sleeper recorded their pids: the
                // test saw them start.
                let recorded: Vec<i32> = std::fs::read_to_string(&pids)
                    .unwrap_or_default()
                    .lines()
                    .filter_map(|l| l.trim().parse().ok())
                    .collect();
                assert!(recorded.len() >= 2, "{what}: {recorded:?}");
                for p in recorded {
                    assert!(
                        !Path::new(&format!("/proc/{p}")).exists()
                            || std::fs::read_to_string(format!("/proc/{p}/stat"))
                                .map(|s| s.contains(") Z"))
                                .unwrap_or(true),
                        "{what}: pid {p} survived"
                    );
                }
            }
        }
    }
}

/// A config whose `cwd` is a `.ssh`-like folder inside the reviewer's HOME: in the sandbox
/// the server starts in an empty private folder and sees neither the key's name nor its
/// content (with `--no-sandbox` it sees both: the test can fail).
#[test]
fn cwd_under_home_is_not_visible_in_the_sandbox() {
    if !have_bwrap() {
        return;
    }
    let home = target_dir();
    let ssh = home.path().join(".ssh");
    std::fs::create_dir_all(&ssh).unwrap();
    std::fs::write(ssh.join("id_canary_key"), "PRIVATE-KEY-CANARY").unwrap();
    let work = tempfile::tempdir().unwrap();
    let config = work.path().join(".mcp.json");
    let cfg = serde_json::json!({"mcpServers": {"keys": {
        "command": python(),
        "args": [snoop().display().to_string(), "listcwd"],
        "cwd": ssh.display().to_string(),
    }}});
    std::fs::write(&config, cfg.to_string()).unwrap();
    let out = work.path().join("s.json");
    let home_s = home.path().to_str().unwrap();
    let run = |extra: &[&str]| {
        let mut argv = vec!["snapshot"];
        argv.extend_from_slice(extra);
        argv.extend([
            config.to_str().unwrap(),
            "--name",
            "keys",
            "--timeout",
            "20",
            "-o",
            out.to_str().unwrap(),
        ]);
        let o = mcpvet_in(work.path(), &argv, &[("HOME", home_s)]);
        assert!(o.status.success(), "{}", stderr(&o));
        std::fs::read_to_string(&out).unwrap()
    };
    let text = run(&["--no-sandbox"]);
    assert!(text.contains("id_canary_key") && text.contains("PRIVATE-KEY-CANARY"));
    let text = run(&[]);
    assert!(!text.contains("id_canary_key"), "{text}");
    assert!(!text.contains("PRIVATE-KEY-CANARY"), "{text}");
    let r = description(&ServerSnapshot::load(&out).unwrap());
    assert_eq!(r["cwd"], "/tmp/work", "{r}");
    assert_eq!(r["files"], serde_json::json!({}), "{r}");
    let notes = ServerSnapshot::load(&out).unwrap().probe.unwrap().notes;
    assert!(
        notes.iter().any(|n| n.contains("hidden by the sandbox")),
        "{notes:?}"
    );
}

/// Run from a repository inside the reviewer's home, a server in that repository works in
/// the sandbox (the repository is shown read-only) while the rest of the home stays hidden,
/// also through a symlink in the repository.
#[test]
fn a_repository_inside_home_is_shown_read_only_and_the_rest_of_home_is_not() {
    if !have_bwrap() {
        return;
    }
    let home = target_dir();
    let h = std::fs::canonicalize(home.path()).unwrap();
    std::fs::write(h.join("secret.txt"), "HOME-SECRET-CANARY").unwrap();
    let proj = h.join("proj");
    std::fs::create_dir_all(proj.join(".git")).unwrap();
    std::fs::copy(snoop(), proj.join("server.py")).unwrap();
    std::os::unix::fs::symlink(h.join("secret.txt"), proj.join("leak")).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("s.json");
    let py = python();
    let argv = [
        "snapshot",
        "--timeout",
        "20",
        "-o",
        out.to_str().unwrap(),
        "--",
        &py,
        "server.py",
        "listcwd",
    ];
    let o = mcpvet_in(&proj, &argv, &[("HOME", h.to_str().unwrap())]);
    assert!(o.status.success(), "{}", stderr(&o));
    let text = std::fs::read_to_string(&out).unwrap();
    assert!(!text.contains("HOME-SECRET-CANARY"), "{text}");
    let r = description(&ServerSnapshot::load(&out).unwrap());
    assert_eq!(r["cwd"], proj.display().to_string(), "{r}");
    assert!(
        r["files"]["server.py"]
            .as_str()
            .unwrap()
            .contains("stdio MCP server"),
        "{r}"
    );
    assert!(
        r["files"]["leak"].as_str().unwrap().starts_with("DENIED"),
        "{r}"
    );
    // Unsandboxed the link leads to the secret: the test can fail.
    let mut unsandboxed = argv.to_vec();
    unsandboxed.insert(1, "--no-sandbox");
    let o = mcpvet_in(&proj, &unsandboxed, &[("HOME", h.to_str().unwrap())]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(
        std::fs::read_to_string(&out)
            .unwrap()
            .contains("HOME-SECRET-CANARY")
    );
}

/// Without bubblewrap nothing runs: exit 3 and an error naming the package to install and
/// `--no-sandbox`.
#[test]
fn missing_bwrap_fails_closed_with_install_hint() {
    let marker = format!("mcpvet-test-marker-{}-nobwrap", std::process::id());
    let dir = tempfile::tempdir().unwrap();
    let pids = dir.path().join("pids");
    let out = dir.path().join("s.json");
    let py = python();
    let script = snoop();
    let o = mcpvet_in(
        dir.path(),
        &[
            "snapshot",
            "-o",
            out.to_str().unwrap(),
            "--",
            &py,
            script.to_str().unwrap(),
            "daemon",
            &marker,
            pids.to_str().unwrap(),
        ],
        &[("PATH", "/nonexistent")],
    );
    assert_eq!(o.status.code(), Some(3), "{}", stderr(&o));
    let e = stderr(&o);
    assert!(e.contains("bubblewrap"), "{e}");
    assert!(e.contains("apt-get install bubblewrap"), "{e}");
    assert!(e.contains("dnf install bubblewrap"), "{e}");
    assert!(e.contains("--no-sandbox"), "{e}");
    assert!(!pids.exists(), "the server ran unsandboxed");
    assert!(!out.exists());
}

/// The sandbox has no network (a loopback listener of the test is unreachable from its
/// own network namespace); `--sandbox-net` allows it, and so does a policy
/// `[[sandbox-network]]` entry naming the server — only that server.
#[test]
fn sandbox_has_no_network_unless_the_flag_or_the_policy_allows_it() {
    if !have_bwrap() {
        return;
    }
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port().to_string();
    let work = tempfile::tempdir().unwrap();
    std::fs::create_dir(work.path().join(".git")).unwrap();
    let out = work.path().join("s.json");
    let py = python();
    let script = snoop();
    let connect = |extra: &[&str], name: &str| -> String {
        let mut argv = vec!["snapshot", "--name", name];
        argv.extend_from_slice(extra);
        argv.extend([
            "--timeout",
            "20",
            "-o",
            out.to_str().unwrap(),
            "--",
            &py,
            script.to_str().unwrap(),
            "connect",
            &port,
        ]);
        let o = mcpvet_in(work.path(), &argv, &[]);
        assert!(o.status.success(), "{}", stderr(&o));
        let r = description(&ServerSnapshot::load(&out).unwrap());
        r["connect"].as_str().unwrap().to_owned()
    };
    assert!(connect(&[], "peer").starts_with("DENIED"));
    assert_eq!(connect(&["--sandbox-net"], "peer"), "OK");
    std::fs::write(
        work.path().join("mcpvet.toml"),
        "[[sandbox-network]]\nname = \"pe*\"\nreason = \"calls its API at start-up\"\n",
    )
    .unwrap();
    assert_eq!(connect(&[], "peer"), "OK");
    assert!(connect(&[], "other").starts_with("DENIED"));
}

/// `--no-sandbox` is loud in every report format: the table's first line, a `sandbox`
/// object in JSON, a SARIF tool notification, a GitHub warning and the review's warning.
#[test]
fn no_sandbox_is_announced_in_every_format() {
    let py = python();
    let script = snoop();
    let dir = tempfile::tempdir().unwrap();
    let run = |format: &str, extra: &[&str]| -> String {
        let mut argv = vec!["scan", "--no-policy", "--format", format];
        argv.extend_from_slice(extra);
        argv.extend(["--", &py, script.to_str().unwrap(), "listcwd"]);
        let o = mcpvet_in(dir.path(), &argv, &[]);
        assert!(o.status.code().unwrap() <= 1, "{}", stderr(&o));
        String::from_utf8_lossy(&o.stdout).into_owned()
    };
    let table = run("table", &["--no-sandbox"]);
    assert!(
        table.lines().next().unwrap().contains("NOT SANDBOXED"),
        "{table}"
    );
    let json: serde_json::Value = serde_json::from_str(&run("json", &["--no-sandbox"])).unwrap();
    assert_eq!(json["sandbox"]["enabled"], false, "{json}");
    assert_eq!(json["sandbox"]["unsandboxed"][0], "snoop", "{json}");
    let sarif: serde_json::Value = serde_json::from_str(&run("sarif", &["--no-sandbox"])).unwrap();
    let note = &sarif["runs"][0]["invocations"][0]["toolExecutionNotifications"][0];
    assert!(
        note["message"]["text"]
            .as_str()
            .unwrap()
            .contains("NOT SANDBOXED"),
        "{sarif}"
    );
    assert!(run("github", &["--no-sandbox"]).starts_with("::warning "));
    let o = mcpvet_in(
        dir.path(),
        &[
            "review",
            "--no-policy",
            "--no-sandbox",
            "--",
            &py,
            script.to_str().unwrap(),
            "listcwd",
        ],
        &[],
    );
    let review = String::from_utf8_lossy(&o.stdout);
    assert!(review.contains("WITHOUT the sandbox"), "{review}");
    // Sandboxed (the default), none of it.
    if have_bwrap() {
        assert!(!run("table", &[]).contains("NOT SANDBOXED"));
        let json: serde_json::Value = serde_json::from_str(&run("json", &[])).unwrap();
        assert!(json.get("sandbox").is_none(), "{json}");
    }
}

/// A server run by an interpreter from a script inside the reviewer's HOME: the sandbox hides
/// it, and the probe says which file and what to do instead of passing on the interpreter's
/// "can't open file" from inside the sandbox (with `--no-sandbox` it starts: the test can fail).
#[test]
fn a_script_inside_home_is_named_when_the_sandbox_hides_it() {
    if !have_bwrap() {
        return;
    }
    let home = target_dir();
    let servers = home.path().join("servers");
    std::fs::create_dir_all(&servers).unwrap();
    let script = servers.join("snoop.py");
    std::fs::copy(snoop(), &script).unwrap();
    let work = tempfile::tempdir().unwrap();
    let home_s = home.path().to_str().unwrap();
    let run = |extra: &[&str]| {
        let mut argv = vec!["snapshot"];
        argv.extend_from_slice(extra);
        let py = python();
        argv.extend([
            "--timeout",
            "20",
            "-o",
            "-",
            "--",
            py.as_str(),
            script.to_str().unwrap(),
            "listcwd",
        ]);
        mcpvet_in(work.path(), &argv, &[("HOME", home_s)])
    };
    let o = run(&["--no-sandbox"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let o = run(&[]);
    assert!(!o.status.success());
    let err = stderr(&o);
    assert!(err.contains(&format!("runs {}", script.display())), "{err}");
    assert!(
        err.contains("which the sandbox hides") && err.contains("--no-sandbox"),
        "{err}"
    );
    assert!(!err.contains("can't open file"), "{err}");
}
