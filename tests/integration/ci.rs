//! CI integration, run locally with the built binary and no network: the GitHub Action's
//! script (`scripts/mcpvet-action.sh`: install, run, finish) and its `action.yml`, and the
//! pre-commit hooks of `.pre-commit-hooks.yaml` (their entry command and their file pattern).

#![allow(clippy::unwrap_used)]

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;
use yaml_rust2::{Yaml, YamlLoader};

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn bin() -> &'static str {
    env!("CARGO_BIN_EXE_mcpvet")
}

fn fresh(name: &str) -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(format!("ci-{name}"));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(dir.join(".git")).unwrap();
    dir
}

const CLEAN: &str = r#"{
  "mcpServers": {
    "ci-insights": { "command": "ci-insights", "env": { "CI_TOKEN": "${CI_READ_TOKEN}" } }
  }
}
"#;

const LEAKY: &str = r#"{
  "mcpServers": {
    "tracker": {
      "command": "npx",
      "args": ["-y", "example-tracker-mcp@latest"],
      "env": { "TRACKER_TOKEN": "ghp_0123456789abcdefghijklmnopqrstuvwxyzAB" }
    }
  }
}
"#;

/// Run the action script in `dir` with `env`; returns (status, stdout, stderr, outputs).
fn action(dir: &Path, step: &str, env: &[(&str, &str)]) -> (i32, String, String, String) {
    let outputs = dir.join("github-output.txt");
    let _ = std::fs::remove_file(&outputs);
    let out = Command::new("bash")
        .arg(root().join("scripts/mcpvet-action.sh"))
        .arg(step)
        .current_dir(dir)
        .env_remove("MCPVET_BIN")
        .env("GITHUB_OUTPUT", &outputs)
        .env("NO_COLOR", "1")
        .envs(env.iter().copied())
        .output()
        .expect("bash runs");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
        std::fs::read_to_string(&outputs).unwrap_or_default(),
    )
}

#[test]
fn action_run_writes_sarif_records_the_code_and_finish_gates_on_it() {
    let dir = fresh("action-run");
    std::fs::write(dir.join(".mcp.json"), LEAKY).unwrap();
    let (code, out, err, outputs) = action(&dir, "run", &[("MCPVET_BIN", bin())]);
    assert_eq!(code, 0, "the upload step must still run: {out}{err}");
    assert!(outputs.contains("exit-code=1\n"), "{outputs}");
    assert!(outputs.contains("sarif=mcpvet.sarif\n"), "{outputs}");
    let sarif: Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("mcpvet.sarif")).unwrap()).unwrap();
    let results = sarif["runs"][0]["results"].as_array().unwrap();
    assert!(
        results.iter().any(|r| r["ruleId"] == "literal-secret"),
        "{sarif}"
    );
    // Annotations for the pull request, from the same static check; the token never shows.
    assert!(out.contains("::error file=.mcp.json,line="), "{out}");
    assert!(
        !out.contains("ghp_0123456789abcdefghijklmnopqrstuvwxyzAB"),
        "{out}"
    );
    let (code, _, err, _) = action(&dir, "finish", &[("MCPVET_EXIT_CODE", "1")]);
    assert_eq!(code, 1, "{err}");
    assert!(err.contains("findings at the gate"), "{err}");

    // A clean project passes, and the job with it.
    std::fs::write(dir.join(".mcp.json"), CLEAN).unwrap();
    let (code, _, err, outputs) = action(&dir, "run", &[("MCPVET_BIN", bin())]);
    assert_eq!(code, 0, "{err}");
    assert!(outputs.contains("exit-code=0\n"), "{outputs}");
    assert_eq!(action(&dir, "finish", &[("MCPVET_EXIT_CODE", "0")]).0, 0);
    assert_eq!(
        action(&dir, "finish", &[]).0,
        2,
        "no recorded code is an error"
    );
}

#[test]
fn action_scan_offline_with_policy_baseline_and_paths() {
    let dir = fresh("action-scan");
    std::fs::copy(root().join("examples/mcp.json"), dir.join("mcp.json")).unwrap();
    let snapshots = root().join("examples/snapshots");
    let args = format!("--offline\n--snapshot-dir\n{}\n", snapshots.display());
    let env = |extra: &[(&'static str, &'static str)]| -> Vec<(&'static str, String)> {
        let mut v = vec![
            ("MCPVET_BIN", bin().to_owned()),
            ("MCPVET_COMMAND", "scan".to_owned()),
            ("MCPVET_PATHS", "mcp.json\n".to_owned()),
            ("MCPVET_ARGS", args.clone()),
            ("MCPVET_SARIF", "out/scan.sarif".to_owned()),
        ];
        v.extend(extra.iter().map(|(k, x)| (*k, (*x).to_owned())));
        v
    };
    std::fs::create_dir_all(dir.join("out")).unwrap();
    let e = env(&[]);
    let e: Vec<(&str, &str)> = e.iter().map(|(k, v)| (*k, v.as_str())).collect();
    let (code, out, err, outputs) = action(&dir, "run", &e);
    assert_eq!(code, 0, "{out}{err}");
    assert!(outputs.contains("exit-code=1\n") && outputs.contains("sarif=out/scan.sarif\n"));
    assert!(
        out.contains("+ mcpvet scan --offline --snapshot-dir"),
        "{out}"
    );
    assert!(
        out.contains("hidden-instructions"),
        "annotations of an offline scan: {out}"
    );

    // The baseline flow through the action: accepted findings no longer fail the job.
    let status = Command::new(bin())
        .args([
            "baseline",
            "--reason",
            "accepted in PLAT-1",
            "--offline",
            "mcp.json",
        ])
        .arg("--snapshot-dir")
        .arg(&snapshots)
        .current_dir(&dir)
        .status()
        .unwrap();
    assert!(status.success());
    let e = env(&[
        ("MCPVET_BASELINE", "mcpvet-baseline.toml"),
        ("MCPVET_FAIL_ON", "low"),
    ]);
    let e: Vec<(&str, &str)> = e.iter().map(|(k, v)| (*k, v.as_str())).collect();
    let (code, out, err, outputs) = action(&dir, "run", &e);
    assert_eq!(code, 0, "{out}{err}");
    assert!(outputs.contains("exit-code=0\n"), "{outputs}{out}{err}");
    assert!(
        out.contains("--baseline mcpvet-baseline.toml --fail-on low"),
        "{out}"
    );

    // A policy that does not exist: a config error, no SARIF, and the step fails at once.
    let e = env(&[("MCPVET_POLICY", "nope.toml")]);
    let e: Vec<(&str, &str)> = e.iter().map(|(k, v)| (*k, v.as_str())).collect();
    let (code, _, err, outputs) = action(&dir, "run", &e);
    assert_eq!(code, 2, "{err}");
    assert!(
        outputs.contains("exit-code=2\n") && outputs.contains("sarif=\n"),
        "{outputs}"
    );
    assert!(err.contains("nope.toml"), "{err}");
}

#[test]
fn action_inputs_are_arguments_never_shell_code() {
    let dir = fresh("action-hostile");
    std::fs::write(dir.join(".mcp.json"), CLEAN).unwrap();
    let (code, _, _, outputs) = action(
        &dir,
        "run",
        &[
            ("MCPVET_BIN", bin()),
            ("MCPVET_PATHS", "$(touch pwned-paths)\n`touch pwned-tick`"),
            (
                "MCPVET_ARGS",
                "; touch pwned-args\n--fail-on=$(touch pwned-flag)",
            ),
            ("MCPVET_POLICY", "x\"; touch pwned-policy; \""),
        ],
    );
    assert_ne!(code, 0);
    assert!(outputs.contains("exit-code=2\n"), "{outputs}");
    let left: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .filter_map(Result::ok)
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with("pwned"))
        .collect();
    assert!(left.is_empty(), "{left:?}");
    let (code, _, err, _) = action(
        &dir,
        "run",
        &[("MCPVET_BIN", bin()), ("MCPVET_COMMAND", "lock")],
    );
    assert_eq!(code, 2);
    assert!(err.contains("check or scan"), "{err}");
}

#[test]
fn action_install_uses_a_given_binary_or_builds_from_the_source_with_cargo() {
    let dir = fresh("action-install");
    // A prebuilt binary: used as is, and put on PATH for later steps.
    let path_file = dir.join("github-path.txt");
    let (code, out, err, outputs) = action(
        &dir,
        "install",
        &[
            ("MCPVET_BIN", bin()),
            ("GITHUB_PATH", path_file.to_str().unwrap()),
        ],
    );
    assert_eq!(code, 0, "{out}{err}");
    assert_eq!(outputs, format!("mcpvet={}\n", bin()));
    let bin_dir = Path::new(bin()).parent().unwrap().display().to_string();
    assert_eq!(
        std::fs::read_to_string(&path_file).unwrap(),
        format!("{bin_dir}\n")
    );
    assert!(out.contains("mcpvet 0."), "{out}");
    let (code, _, err, _) = action(&dir, "install", &[("MCPVET_BIN", "/nonexistent/mcpvet")]);
    assert_eq!(code, 2);
    assert!(err.contains("not an executable"), "{err}");

    // No binary: `cargo install --locked --path SOURCE` (a stand-in cargo records the call).
    let fake = dir.join("fakebin");
    std::fs::create_dir_all(&fake).unwrap();
    let script = format!(
        "#!/bin/sh\nprintf '%s\\n' \"$@\" > {log}\nroot=''\nwhile [ $# -gt 0 ]; do [ \"$1\" = --root ] && root=$2; shift; done\nmkdir -p \"$root/bin\" && ln -sf {bin} \"$root/bin/mcpvet\"\n",
        log = dir.join("cargo-args.txt").display(),
        bin = bin()
    );
    std::fs::write(fake.join("cargo"), script).unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(fake.join("cargo"), std::fs::Permissions::from_mode(0o755)).unwrap();
    let path = format!("{}:/usr/bin:/bin", fake.display());
    let install_root = dir.join("tools");
    let (code, out, err, outputs) = action(
        &dir,
        "install",
        &[
            ("PATH", &path),
            ("MCPVET_INSTALL_ROOT", install_root.to_str().unwrap()),
        ],
    );
    assert_eq!(code, 0, "{out}{err}");
    let args = std::fs::read_to_string(dir.join("cargo-args.txt")).unwrap();
    assert_eq!(
        args.lines().collect::<Vec<_>>(),
        [
            "install",
            "--locked",
            "--path",
            root().to_str().unwrap(),
            "--root",
            install_root.to_str().unwrap(),
            "--bin",
            "mcpvet"
        ]
    );
    assert_eq!(
        outputs,
        format!("mcpvet={}/bin/mcpvet\n", install_root.display())
    );
}

fn yaml(path: &str) -> Yaml {
    let text = std::fs::read_to_string(root().join(path)).unwrap();
    YamlLoader::load_from_str(&text).unwrap().remove(0)
}

#[test]
fn action_yml_is_a_composite_that_passes_inputs_through_the_environment() {
    let doc = yaml("action.yml");
    assert_eq!(doc["runs"]["using"].as_str(), Some("composite"));
    let steps = doc["runs"]["steps"].as_vec().unwrap();
    let mut env_text = String::new();
    for step in steps {
        if let Some(run) = step["run"].as_str() {
            // Expressions in `run:` are spliced into shell code before it runs: never.
            assert!(!run.contains("${{"), "{run}");
            assert!(run.contains("scripts/mcpvet-action.sh"), "{run}");
            assert_eq!(step["shell"].as_str(), Some("bash"));
        }
        if let Some(env) = step["env"].as_hash() {
            for v in env.values() {
                env_text.push_str(v.as_str().unwrap_or_default());
            }
        }
    }
    let uploads: Vec<&Yaml> = steps
        .iter()
        .filter(|s| {
            s["uses"]
                .as_str()
                .is_some_and(|u| u.starts_with("github/codeql-action/upload-sarif@"))
        })
        .collect();
    assert_eq!(uploads.len(), 1);
    let upload_inputs = format!("{:?}{:?}", uploads[0]["with"], uploads[0]["if"]);
    for (name, _) in doc["inputs"].as_hash().unwrap() {
        let name = name.as_str().unwrap();
        let used = env_text.contains(&format!("inputs.{name} }}}}"))
            || upload_inputs.contains(&format!("inputs.{name}"));
        assert!(used, "input `{name}` reaches no step");
    }
}

/// The hooks of `.pre-commit-hooks.yaml`, by id.
fn hooks() -> Vec<Yaml> {
    yaml(".pre-commit-hooks.yaml").as_vec().unwrap().clone()
}

#[test]
fn pre_commit_hook_entry_passes_a_clean_project_and_stops_a_leaky_one() {
    let hooks = hooks();
    let ids: Vec<&str> = hooks.iter().map(|h| h["id"].as_str().unwrap()).collect();
    assert_eq!(ids, ["mcpvet", "mcpvet-system"]);
    for h in &hooks {
        assert_eq!(h["entry"].as_str(), Some("mcpvet check"));
        assert_eq!(h["pass_filenames"].as_bool(), Some(false));
        assert_eq!(h["files"], hooks[0]["files"]);
    }
    // The entry as pre-commit runs it: from the repository root, no file names.
    let dir = fresh("pre-commit");
    let entry: Vec<String> = hooks[1]["entry"]
        .as_str()
        .unwrap()
        .split_whitespace()
        .map(str::to_owned)
        .collect();
    assert_eq!(entry[0], "mcpvet");
    let run = || {
        let out = Command::new(bin())
            .args(&entry[1..])
            .current_dir(&dir)
            .env("NO_COLOR", "1")
            .output()
            .unwrap();
        (
            out.status.code().unwrap_or(-1),
            String::from_utf8_lossy(&out.stdout).into_owned(),
        )
    };
    std::fs::write(dir.join(".mcp.json"), CLEAN).unwrap();
    let (code, out) = run();
    assert_eq!(code, 0, "{out}");
    std::fs::create_dir_all(dir.join(".vscode")).unwrap();
    std::fs::write(
        dir.join(".vscode/mcp.json"),
        LEAKY.replace("mcpServers", "servers"),
    )
    .unwrap();
    let (code, out) = run();
    assert_eq!(code, 1, "{out}");
    assert!(
        out.contains("literal-secret") && out.contains(".vscode/mcp.json"),
        "{out}"
    );
}

#[test]
fn pre_commit_hook_runs_for_every_config_mcpvet_check_reads_and_nothing_else() {
    let pattern = hooks()[0]["files"].as_str().unwrap().to_owned();
    let re = regex::Regex::new(&pattern).unwrap();
    // Every project config `mcpvet check` would read, created in a scratch project.
    let dir = fresh("pre-commit-files");
    let files = [
        ".mcp.json",
        ".vscode/mcp.json",
        ".vscode/settings.json",
        ".cursor/mcp.json",
        ".windsurf/mcp_config.json",
        ".zed/settings.json",
        ".codex/config.toml",
        ".gemini/settings.json",
        ".continue/config.yaml",
        ".continue/mcpServers/a.yaml",
        ".junie/mcp/mcp.json",
        "server.json",
    ];
    for f in files {
        let p = dir.join(f);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(&p, "{\"mcp\": {}, \"context_servers\": {}}\n").unwrap();
    }
    let home = fresh("pre-commit-home");
    let found = mcpvet::config::discover(&home, &dir);
    assert_eq!(found.len(), files.len(), "{found:?}");
    for d in &found {
        let rel = d
            .path
            .strip_prefix(&dir)
            .unwrap()
            .to_str()
            .unwrap()
            .to_owned();
        assert!(
            re.is_match(&rel),
            "{rel} is read by `mcpvet check` but does not trigger the hook"
        );
    }
    for also in [
        "mcpvet.toml",
        "mcpvet-baseline.toml",
        "lockfiles/ci-insights.lock.json",
    ] {
        assert!(re.is_match(also), "{also}");
    }
    for not in [
        "README.md",
        "src/mcp.json",
        "examples/mcp.json",
        ".mcp.json.bak",
        "lockfiles/README.md",
    ] {
        assert!(!re.is_match(not), "{not}");
    }
}

#[test]
fn the_release_archive_is_where_cargo_binstall_looks() {
    let manifest: toml::Table = std::fs::read_to_string(root().join("Cargo.toml"))
        .unwrap()
        .parse()
        .unwrap();
    let package = &manifest["package"];
    let binstall = &package["metadata"]["binstall"];
    assert_eq!(binstall["pkg-fmt"].as_str(), Some("tgz"));
    let version = package["version"].as_str().unwrap();
    let target = "x86_64-unknown-linux-gnu";
    let render = |t: &str| {
        t.replace("{ name }", "mcpvet")
            .replace("{ version }", version)
            .replace("{ target }", target)
            .replace("{ archive-suffix }", ".tar.gz")
            .replace("{ bin }", "mcpvet")
            .replace("{ binary-ext }", "")
    };
    let url = render(binstall["pkg-url"].as_str().unwrap());
    let archive = url.rsplit('/').next().unwrap().to_owned();
    let inside = render(binstall["bin-dir"].as_str().unwrap());

    let dist = fresh("dist");
    let out = Command::new("bash")
        .arg(root().join("scripts/package-release.sh"))
        .arg(target)
        .env("MCPVET_PREBUILT_DIR", Path::new(bin()).parent().unwrap())
        .env("MCPVET_DIST_DIR", &dist)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        dist.join(&archive).is_file(),
        "{archive} not in {}",
        dist.display()
    );
    let list = Command::new("tar")
        .arg("-tzf")
        .arg(dist.join(&archive))
        .output()
        .unwrap();
    let list = String::from_utf8_lossy(&list.stdout);
    assert!(
        list.lines().any(|l| l == inside),
        "{inside} not in:\n{list}"
    );
}

/// `.ci/run` in a checkout under the host's /tmp (which the sandbox hides from the servers the
/// tests start) stops at once, before any step, with exit code 2 and a message saying why and
/// where to clone instead. (A copy of the script in a scratch folder under /tmp stands for the
/// checkout: the check runs before the script touches anything.)
#[test]
fn ci_run_refuses_a_checkout_under_tmp_up_front() {
    let scratch = tempfile::Builder::new()
        .prefix("mcpvet-ci-run-")
        .tempdir_in("/tmp")
        .unwrap();
    std::fs::create_dir_all(scratch.path().join(".ci")).unwrap();
    std::fs::copy(root().join(".ci/run"), scratch.path().join(".ci/run")).unwrap();
    let out = Command::new("bash")
        .arg(scratch.path().join(".ci/run"))
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(
        err.contains("under /tmp") && err.contains("clone the repository elsewhere"),
        "{err}"
    );
    assert!(
        out.stdout.is_empty(),
        "no step ran: {}",
        String::from_utf8_lossy(&out.stdout)
    );
}
