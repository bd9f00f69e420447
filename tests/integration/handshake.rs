//! Integration tests: the era is decided from answers, not from speed. A dual-era server
//! locked when it starts at once and probed again when it starts 8 s later keeps its era,
//! shows no drift in `diff` and no `server-identity-drift` in `scan`; a snapshot that records
//! no era is not compared on era and protocol version, and the output says so.

// Test helpers outside `#[test]` functions unwrap too.
#![allow(clippy::unwrap_used)]

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::time::{Duration, Instant};

use super::fixtures::{hostile_py, python};
use mcpvet::model::snapshot::{Era, EraDecider, ServerSnapshot};
use serde_json::{Value, json};

fn mcpvet(dir: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_mcpvet"))
        .args(args)
        .current_dir(dir)
        .env_remove("SOURCE_DATE_EPOCH")
        .env("NO_COLOR", "1")
        .output()
        .unwrap()
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

/// A config whose one server, `slow`, is the dual-era `slow_start` fixture sleeping
/// `seconds` before it reads its stdin. The sleep is the value of the `SLOW_START_SECONDS`
/// environment entry: the locked launch records entry names, not values, so the fast and
/// the slow start are the same launch.
fn config(dir: &Path, seconds: &str) -> PathBuf {
    let path = dir.join(".mcp.json");
    let cfg = json!({"mcpServers": {"slow": {
        "command": python(),
        "args": [hostile_py().display().to_string(), "slow_start"],
        "env": {"SLOW_START_SECONDS": seconds},
    }}});
    std::fs::write(&path, serde_json::to_string_pretty(&cfg).unwrap()).unwrap();
    path
}

/// The case: a server that takes longer to start than the old 5 s discover timeout
/// (a cold `npx`/`uvx` cache in CI). The 8 s are the issue's own figure: the test sleeps, it
/// does not compute, and runs beside the rest of the suite.
#[test]
fn a_server_that_starts_after_8_s_keeps_its_era_and_shows_no_drift() {
    let dir = tempfile::tempdir_in(env!("CARGO_TARGET_TMPDIR")).unwrap();
    let d = dir.path();
    let locks = d.join("locks");
    let locks_s = locks.to_str().unwrap();

    // Locked when it starts at once.
    let cfg = config(d, "0");
    let cfg_s = cfg.to_str().unwrap();
    let out = mcpvet(
        d,
        &[
            "lock",
            cfg_s,
            "--lock-dir",
            locks_s,
            "--by",
            "Ada",
            "--at",
            "2026-07-28T12:00:00Z",
        ],
    );
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let lock: Value =
        serde_json::from_str(&std::fs::read_to_string(locks.join("slow.lock.json")).unwrap())
            .unwrap();
    assert_eq!(lock["era"], "modern");
    assert_eq!(lock["protocolVersion"], "2026-07-28");

    // Probed again when it starts 8 s late: same era, nothing drifted.
    config(d, "8");
    let start = Instant::now();
    let snap_path = d.join("slow.json");
    let out = mcpvet(
        d,
        &[
            "snapshot",
            cfg_s,
            "--timeout",
            "60",
            "-o",
            snap_path.to_str().unwrap(),
        ],
    );
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert!(
        start.elapsed() >= Duration::from_secs(8),
        "the server slept"
    );
    let s = ServerSnapshot::load(&snap_path).unwrap();
    assert_eq!(s.era, Some(Era::Modern));
    let ev = s.era_evidence.unwrap();
    assert_eq!(ev.decided_by, EraDecider::DiscoverResult);
    assert!(!ev.fresh_process);

    let out = mcpvet(
        d,
        &["diff", cfg_s, "--lock-dir", locks_s, "--timeout", "60"],
    );
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}{}",
        text(&out.stdout),
        text(&out.stderr)
    );
    assert_eq!(text(&out.stdout), "slow: matches its lock\n");

    let out = mcpvet(
        d,
        &[
            "scan",
            cfg_s,
            "--lock-dir",
            locks_s,
            "--timeout",
            "60",
            "--no-policy",
            "--format",
            "json",
        ],
    );
    let j: Value = serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("{e}: {}{}", text(&out.stdout), text(&out.stderr)));
    let rules: Vec<&str> = j["findings"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|f| f["rule"].as_str())
        .collect();
    assert!(
        !rules.iter().any(|r| r.ends_with("-drift")),
        "{rules:?}\n{}",
        text(&out.stderr)
    );
    assert_eq!(j["servers"][0]["era"], "modern", "{j}");
}

/// A snapshot that records no era (a saved `tools/list`) against a lock that does: era and
/// protocol version are not compared, and `diff` and `scan` say so instead of reporting drift.
#[test]
fn an_undecided_era_is_not_drift_and_is_said_so() {
    let dir = tempfile::tempdir_in(env!("CARGO_TARGET_TMPDIR")).unwrap();
    let d = dir.path();
    let locks = d.join("locks");
    let locks_s = locks.to_str().unwrap();
    let tools =
        json!([{"name": "echo", "description": "A tool.", "inputSchema": {"type": "object"}}]);
    let info = json!({"name": "slow-start", "version": "3.1.0"});
    let decided = d.join("slow.json");
    std::fs::write(
        &decided,
        json!({"server": "slow", "serverInfo": info, "era": "modern",
               "protocolVersion": "2026-07-28", "tools": tools})
        .to_string(),
    )
    .unwrap();
    let out = mcpvet(
        d,
        &[
            "lock",
            decided.to_str().unwrap(),
            "--lock-dir",
            locks_s,
            "--by",
            "Ada",
        ],
    );
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));

    let undecided_dir = d.join("undecided");
    std::fs::create_dir_all(&undecided_dir).unwrap();
    let undecided = undecided_dir.join("slow.json");
    std::fs::write(
        &undecided,
        json!({"server": "slow", "serverInfo": info, "tools": tools}).to_string(),
    )
    .unwrap();
    let u = undecided.to_str().unwrap();
    let out = mcpvet(d, &["diff", u, "--lock-dir", locks_s]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stdout));
    assert_eq!(
        text(&out.stdout),
        "slow: matches its lock (era and protocol version not compared: the snapshot records no era (nothing decided it))\n"
    );
    let out = mcpvet(d, &["diff", u, "--lock-dir", locks_s, "--json"]);
    let j: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(j[0]["diff"]["identity"], json!([]));
    assert!(j[0]["diff"]["eraNotCompared"].is_string(), "{j}");

    // A real change still shows, next to the note.
    std::fs::write(
        &undecided,
        json!({"server": "slow", "serverInfo": {"name": "slow-start", "version": "3.2.0"},
               "tools": tools})
        .to_string(),
    )
    .unwrap();
    let out = mcpvet(d, &["diff", u, "--lock-dir", locks_s]);
    assert_eq!(out.status.code(), Some(1));
    let t = text(&out.stdout);
    assert!(
        t.starts_with(
            "slow: drifted from its lock (1 change)\n  ? era and protocol version not compared"
        ),
        "{t}"
    );
    assert!(t.contains("serverInfo/version changed"), "{t}");

    // scan: no identity drift for the era, and a warning that says why.
    std::fs::write(
        &undecided,
        json!({"server": "slow", "serverInfo": info, "tools": tools}).to_string(),
    )
    .unwrap();
    let out = mcpvet(
        d,
        &[
            "scan",
            u,
            "--lock-dir",
            locks_s,
            "--no-policy",
            "--format",
            "json",
        ],
    );
    let j: Value = serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("{e}: {}{}", text(&out.stdout), text(&out.stderr)));
    let rules: Vec<&str> = j["findings"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|f| f["rule"].as_str())
        .collect();
    assert!(!rules.contains(&"server-identity-drift"), "{rules:?}");
    let warnings = j["warnings"].as_array().unwrap();
    assert!(
        warnings.iter().any(|w| w
            .as_str()
            .unwrap()
            .contains("`slow`: era and protocol version not compared with the lock")),
        "{warnings:?}"
    );

    // The same file with the era recorded as legacy is drift: the check can fail.
    std::fs::write(
        &undecided,
        json!({"server": "slow", "serverInfo": info, "era": "legacy",
               "protocolVersion": "2025-11-25", "tools": tools})
        .to_string(),
    )
    .unwrap();
    let out = mcpvet(d, &["diff", u, "--lock-dir", locks_s]);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out.stdout));
    assert!(
        text(&out.stdout).contains("era changed"),
        "{}",
        text(&out.stdout)
    );
}

/// `--discover-timeout` is still accepted (scripts pass it) and changes nothing: a server that
/// ignores `server/discover` is decided by its `initialize` answer, on one process.
#[test]
fn the_old_discover_timeout_flag_is_accepted_and_no_clock_decides() {
    let dir = tempfile::tempdir_in(env!("CARGO_TARGET_TMPDIR")).unwrap();
    let d = dir.path();
    let out_path = d.join("s.json");
    let py = python();
    let script = hostile_py();
    let out = mcpvet(
        d,
        &[
            "snapshot",
            "--discover-timeout",
            "30",
            "--timeout",
            "60",
            "-o",
            out_path.to_str().unwrap(),
            "--",
            &py,
            script.to_str().unwrap(),
            "ignore_discover",
        ],
    );
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let s = ServerSnapshot::load(&out_path).unwrap();
    assert_eq!(s.era, Some(Era::Legacy));
    let ev = s.era_evidence.unwrap();
    assert_eq!(ev.decided_by, EraDecider::InitializeResult);
    assert_eq!(ev.discover, "no answer");
    // Had the 30 s been a wait, the probe would have taken them.
    assert!(
        s.probe.unwrap().elapsed_ms < 20_000,
        "the probe waited on a clock"
    );
}
