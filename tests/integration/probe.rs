//! Integration tests: probe. Hostile stdio servers (tests/fixtures/hostile/hostile.py),
//! a hostile HTTP server (tests/fixtures/hostile/http_server.py), process hygiene, the
//! clean environment, the sandbox, and `mcpvet snapshot`.

// Test helpers outside `#[test]` functions unwrap too.
#![allow(clippy::unwrap_used)]

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use super::fixtures::python;
use mcpvet::mcp::{Limits, ProbeEvent, ProbeOptions, probe, probe_all};
use mcpvet::model::snapshot::{Era, EraDecider, ServerSnapshot};
use mcpvet::model::spec::{ServerSpec, Transport};

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/hostile")
}

struct PidFile(tempfile::TempDir);

impl PidFile {
    fn new() -> Self {
        Self(tempfile::tempdir().unwrap())
    }
    fn path(&self) -> PathBuf {
        self.0.path().join("pids")
    }
    fn pids(&self) -> Vec<i32> {
        std::fs::read_to_string(self.path())
            .unwrap_or_default()
            .lines()
            .filter_map(|l| l.trim().parse().ok())
            .collect()
    }
    /// Every recorded process is gone (or a zombie awaiting its reaper).
    fn assert_all_gone(&self, at_least: usize) {
        let pids = self.pids();
        assert!(
            pids.len() >= at_least,
            "expected ≥{at_least} pids, got {pids:?}"
        );
        let until = Instant::now() + Duration::from_secs(3);
        loop {
            let alive: Vec<i32> = pids.iter().copied().filter(|p| alive(*p)).collect();
            if alive.is_empty() {
                return;
            }
            assert!(Instant::now() < until, "processes left running: {alive:?}");
            std::thread::sleep(Duration::from_millis(50));
        }
    }
}

fn alive(pid: i32) -> bool {
    match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        Ok(stat) => {
            let state = stat
                .rsplit(')')
                .next()
                .and_then(|r| r.split_whitespace().next());
            !matches!(state, Some("Z") | Some("X"))
        }
        Err(_) => false,
    }
}

fn stdio_spec(name: &str, args: Vec<String>) -> ServerSpec {
    ServerSpec {
        name: name.into(),
        host: mcpvet::model::host::Host::CommandLine,
        origin: None,
        locations: BTreeMap::new(),
        transport: Transport::Stdio {
            command: python(),
            args,
            env: BTreeMap::new(),
            cwd: None,
        },
        settings: BTreeMap::new(),
        duplicate_keys: Vec::new(),
    }
}

fn hostile(scenario: &str, pids: &PidFile) -> ServerSpec {
    stdio_spec(
        scenario,
        vec![
            fixtures().join("hostile.py").display().to_string(),
            scenario.into(),
            pids.path().display().to_string(),
        ],
    )
}

/// The hostile-protocol tests call the library unsandboxed: each server appends its pid to a
/// file the test reads, which the read-only sandbox (with its own PID namespace) would not
/// allow. They check the protocol and the process guard; `sandbox.rs` checks the default
/// (sandboxed) launch, process hygiene included.
fn opts() -> ProbeOptions {
    ProbeOptions {
        sandbox: false,
        timeout: Duration::from_secs(5),
        caps: Limits {
            max_message_bytes: 1024 * 1024,
            max_total_bytes: 4 * 1024 * 1024,
            max_pages: 20,
            max_stderr_bytes: 4096,
            ..Limits::default()
        },
        ..ProbeOptions::default()
    }
}

/// Probe a hostile scenario; check it ended within the timeout and left nothing running.
fn run(scenario: &str, min_pids: usize) -> Result<ServerSnapshot, String> {
    run_counting(scenario, min_pids).0
}

/// [`run`], also returning how many processes the server started (each start of
/// `hostile.py` records one).
fn run_counting(scenario: &str, min_pids: usize) -> (Result<ServerSnapshot, String>, usize) {
    let pids = PidFile::new();
    let o = opts();
    let start = Instant::now();
    let out = probe(&hostile(scenario, &pids), &o);
    let took = start.elapsed();
    assert!(
        took < o.timeout + Duration::from_secs(2),
        "{scenario} took {took:?}"
    );
    pids.assert_all_gone(min_pids);
    (out.map_err(|e| e.to_string()), pids.pids().len())
}

fn err(scenario: &str, min_pids: usize) -> String {
    match run(scenario, min_pids) {
        Ok(s) => panic!("{scenario}: expected an error, got {s:?}"),
        Err(e) => {
            assert!(
                e.starts_with(&format!("{scenario}: ")),
                "server not named: {e}"
            );
            e
        }
    }
}

fn names(items: &[serde_json::Value]) -> Vec<&str> {
    items.iter().map(ServerSnapshot::item_name).collect()
}

#[test]
fn legacy_server_gets_initialize_on_the_same_process() {
    let (s, processes) = run_counting("legacy", 1);
    let s = s.unwrap();
    assert_eq!(processes, 1, "the server was started more than once");
    assert_eq!(s.era, Some(Era::Legacy));
    assert_eq!(s.protocol_version.as_deref(), Some("2025-06-18"));
    assert_eq!(s.reported_name(), Some("hostile-legacy"));
    assert_eq!(names(&s.tools), ["echo"]);
    let ev = s.era_evidence.unwrap();
    assert_eq!(ev.decided_by, EraDecider::InitializeResult);
    assert_eq!(ev.discover, "error -32601");
    assert_eq!(ev.initialize, "result");
    assert!(!ev.fresh_process);
    let p = s.probe.unwrap();
    assert_eq!(p.transport, "stdio");
    assert!(
        p.notes.iter().any(|n| n.contains("-32601")),
        "{:?}",
        p.notes
    );
}

#[test]
fn modern_server_pages_through_an_empty_cursor_with_meta_on_every_request() {
    let s = run("modern", 1).unwrap();
    assert_eq!(s.era, Some(Era::Modern));
    assert_eq!(s.protocol_version.as_deref(), Some("2026-07-28"));
    assert_eq!(names(&s.tools), ["alpha", "beta", "gamma", "delta"]);
    assert_eq!(names(&s.prompts), ["review"]);
    assert_eq!(names(&s.resources), ["a"]);
    assert_eq!(s.resource_templates.len(), 1);
    assert_eq!(s.instructions.as_deref(), Some("Use alpha first."));
    assert_eq!(s.reported_name(), Some("hostile-modern"));
    let ev = s.era_evidence.unwrap();
    assert_eq!(ev.decided_by, EraDecider::DiscoverResult);
    assert_eq!(ev.discover, "result");
    assert!(!ev.fresh_process);
}

#[test]
fn old_server_that_exits_before_initialize_is_restarted() {
    let (s, processes) = run_counting("exit_before_initialize", 2);
    let s = s.unwrap();
    assert_eq!(processes, 2);
    assert_eq!(s.era, Some(Era::Legacy));
    assert_eq!(names(&s.tools), ["echo"]);
    let ev = s.era_evidence.unwrap();
    assert_eq!(ev.decided_by, EraDecider::InitializeResult);
    assert!(ev.fresh_process);
    assert_eq!(ev.discover, "the connection closed (the server exited)");
    let notes = s.probe.unwrap().notes;
    assert!(
        notes
            .iter()
            .any(|n| n.starts_with("legacy handshake on a fresh process")),
        "{notes:?}"
    );
}

#[test]
fn modern_server_that_refuses_initialize_is_probed_as_modern() {
    // The server misses the first server/discover and refuses initialize with -32022
    // naming 2026-07-28: server/discover is asked again on the same process.
    let (s, processes) = run_counting("modern_late", 1);
    let s = s.unwrap();
    assert_eq!(processes, 1);
    assert_eq!(s.era, Some(Era::Modern));
    assert_eq!(names(&s.tools), ["late"]);
    let ev = s.era_evidence.unwrap();
    assert_eq!(ev.decided_by, EraDecider::DiscoverResult);
    assert_eq!(ev.initialize, "error -32022 (supported: 2026-07-28)");
    let notes = s.probe.unwrap().notes;
    assert!(
        notes.iter().any(|n| n.contains("initialize was refused")),
        "{notes:?}"
    );
}

#[test]
fn a_legacy_server_that_ignores_discover_is_decided_by_its_initialize_answer() {
    // No clock decides: the answer to initialize does, on the one process.
    let (s, processes) = run_counting("ignore_discover", 1);
    let s = s.unwrap();
    assert_eq!(processes, 1);
    assert_eq!(s.era, Some(Era::Legacy));
    let ev = s.era_evidence.unwrap();
    assert_eq!(ev.decided_by, EraDecider::InitializeResult);
    assert_eq!(ev.discover, "no answer");
    assert!(!ev.fresh_process);
}

#[test]
fn the_lists_are_asked_for_together_and_read_in_any_order() {
    // The fixture answers no list before it has been asked for all four, then answers in
    // reverse order: a probe that waits for each list before asking the next times out.
    let s = run("lists_together", 1).unwrap();
    assert_eq!(names(&s.tools), ["first", "second"]);
    assert_eq!(names(&s.prompts), ["p"]);
    assert_eq!(s.resources.len(), 1);
    assert_eq!(s.resource_templates.len(), 1);
}

#[test]
fn garbage_answer_to_discover_then_correct_initialize() {
    let (s, processes) = run_counting("discover_garbage", 1);
    let s = s.unwrap();
    assert_eq!(processes, 1);
    assert_eq!(s.era, Some(Era::Legacy));
    assert_eq!(names(&s.tools), ["echo"]);
    let ev = s.era_evidence.unwrap();
    assert_eq!(ev.discover, "a result that is not an object");
}

#[test]
fn stdout_flood_hits_the_total_byte_cap() {
    let e = err("flood", 1);
    assert!(e.contains("total cap of 4 MiB"), "{e}");
}

#[test]
fn silence_times_out() {
    let e = err("silence", 1);
    assert!(e.contains("--timeout"), "{e}");
}

#[test]
fn garbage_lines_are_rejected_after_a_bound() {
    let e = err("garbage", 2);
    assert!(e.contains("not JSON-RPC"), "{e}");
}

#[test]
fn huge_single_message_hits_the_message_cap_with_bounded_memory() {
    let e = err("huge", 1);
    assert!(e.contains("per-message cap of 1 MiB"), "{e}");
}

#[test]
fn deeply_nested_json_is_an_error() {
    let e = err("deep", 1);
    assert!(
        e.contains("server/discover: a message nests JSON deeper than 128"),
        "{e}"
    );
}

#[test]
fn endless_pagination_hits_the_page_cap() {
    let e = err("endless_pages", 1);
    assert!(e.contains("more than 20 pages"), "{e}");
}

#[test]
fn repeated_cursor_is_an_error_not_a_loop() {
    let e = err("repeat_cursor", 1);
    assert!(e.contains("repeated cursor \"a\""), "{e}");
}

#[test]
fn duplicate_tool_names_are_kept_and_noted() {
    let s = run("dup_names", 1).unwrap();
    assert_eq!(names(&s.tools), ["read_file", "read_file"]);
    let notes = s.probe.unwrap().notes;
    assert!(
        notes
            .iter()
            .any(|n| n.contains("duplicate tool name \"read_file\"")),
        "{notes:?}"
    );
}

#[test]
fn invalid_utf8_is_replaced_and_noted() {
    let s = run("bad_utf8", 1).unwrap();
    assert_eq!(s.tools[0]["description"], "bad \u{fffd}\u{fffd} bytes");
    let notes = s.probe.unwrap().notes;
    assert!(
        notes.iter().any(|n| n.contains("invalid UTF-8")),
        "{notes:?}"
    );
}

#[test]
fn early_exit_is_reported_with_status_and_stderr() {
    let e = err("early_exit", 2);
    assert!(
        e.contains("initialize: the server exited (exit status: 3)"),
        "{e}"
    );
    assert!(e.contains("fatal: refusing to start"), "{e}");
}

#[test]
fn grandchildren_holding_the_pipes_are_killed_even_in_their_own_session() {
    // The server leaves two sleeping grandchildren (one after setsid) holding its pipes.
    let s = run("grandchild", 3).unwrap();
    assert_eq!(names(&s.tools), ["echo"]);
}

#[test]
fn exited_server_whose_grandchild_holds_stdout_fails_fast() {
    let start = Instant::now();
    let e = err("orphan_pipes", 2);
    assert!(e.contains("still holds its stdout"), "{e}");
    assert!(
        start.elapsed() < Duration::from_secs(4),
        "{:?}",
        start.elapsed()
    );
}

#[test]
fn stderr_flood_is_bounded() {
    let s = run("stderr_flood", 1).unwrap();
    assert_eq!(names(&s.tools), ["echo"]);
    let stderr = s.probe.unwrap().stderr;
    assert!(stderr.len() <= 4096 + 200, "{}", stderr.len());
}

#[test]
fn server_to_client_requests_are_answered_without_being_served() {
    let s = run("server_requests", 1).unwrap();
    let desc: serde_json::Value =
        serde_json::from_str(s.tools[0]["description"].as_str().unwrap()).unwrap();
    assert_eq!(desc["s0"], serde_json::json!({}), "ping: {desc}");
    assert_eq!(
        desc["s1"],
        serde_json::json!({"roots": []}),
        "roots: {desc}"
    );
    assert_eq!(desc["s2"]["code"], -32601, "sampling: {desc}");
    assert_eq!(desc["s3"]["code"], -32601, "elicitation: {desc}");
}

#[test]
fn answers_with_unknown_ids_are_skipped() {
    let s = run("mismatched_ids", 1).unwrap();
    assert_eq!(names(&s.tools), ["echo"]);
    let notes = s.probe.unwrap().notes;
    assert!(
        notes.iter().any(|n| n.contains("id mcpvet never sent")),
        "{notes:?}"
    );
}

#[test]
fn only_wrong_ids_ends_at_the_timeout() {
    let e = err("wrong_ids_only", 1);
    assert!(e.contains("--timeout"), "{e}");
}

#[test]
fn modern_server_with_only_unknown_versions_is_a_clear_error() {
    let e = err("modern_only_refuses_initialize", 1);
    assert!(e.contains("2099-01-01"), "{e}");
}

#[test]
fn unpinned_packages_are_refused_before_anything_runs() {
    let spec = ServerSpec {
        transport: Transport::Stdio {
            command: "npx".into(),
            args: vec!["-y".into(), "some-server@latest".into()],
            env: BTreeMap::new(),
            cwd: None,
        },
        ..stdio_spec("tracker", vec![])
    };
    let start = Instant::now();
    let target = mcpvet::cli::targets::Target {
        spec: Some(spec),
        snapshot_file: None,
    };
    let args = mcpvet::cli::targets::TargetArgs::default();
    let mut results = mcpvet::cli::targets::obtain(&[target], &args, &|_| {}).unwrap();
    let e = format!("{:#}", results.remove(0).unwrap_err());
    assert!(e.contains("refusing to launch an unpinned package"), "{e}");
    assert!(e.contains("--allow-unpinned"), "{e}");
    assert!(start.elapsed() < Duration::from_secs(1));
}

fn env_probe(extra: Vec<String>, env: BTreeMap<String, String>) -> ServerSpec {
    let mut args = vec![
        fixtures().join("hostile.py").display().to_string(),
        "env_probe".into(),
        String::new(),
    ];
    args.extend(extra);
    let mut s = stdio_spec("env", args);
    if let Transport::Stdio { env: e, .. } = &mut s.transport {
        *e = env;
    }
    s
}

fn report(s: &ServerSnapshot) -> serde_json::Value {
    serde_json::from_str(s.tools[0]["description"].as_str().unwrap()).unwrap()
}

#[test]
fn launch_environment_is_clean_and_references_are_not_resolved() {
    // The test process's own environment stands in for the reviewer's secrets: CARGO and
    // CARGO_MANIFEST_DIR are set for every test binary.
    let env: BTreeMap<String, String> = [
        ("LITERAL", "plain"),
        ("SECRET", "${CARGO_MANIFEST_DIR}"),
        ("PASSED", "${env:CARGO_PKG_NAME}"),
    ]
    .iter()
    .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
    .collect();
    let o = ProbeOptions {
        pass_env: vec!["CARGO_PKG_NAME".into()],
        ..opts()
    };
    let s = probe(&env_probe(vec![], env), &o).unwrap();
    let r = report(&s);
    let e = r["env"].as_object().unwrap();
    let keys: Vec<&str> = e.keys().map(String::as_str).collect();
    for k in &keys {
        assert!(
            [
                "PATH",
                "LANG",
                "HOME",
                "TMPDIR",
                "LITERAL",
                "PASSED",
                "CARGO_PKG_NAME",
                "LC_CTYPE"
            ]
            .contains(k),
            "unexpected variable {k} in {keys:?}"
        );
    }
    assert_eq!(e["LITERAL"], "plain");
    assert_eq!(e["PASSED"], "mcpvet");
    assert!(!e.contains_key("SECRET"));
    assert!(!e.contains_key("CARGO_MANIFEST_DIR"));
    let home = e["HOME"].as_str().unwrap();
    assert!(home.contains("mcpvet-probe-"), "{home}");
    assert_ne!(Some(home), std::env::var("HOME").ok().as_deref());
    let notes = s.probe.unwrap().notes;
    assert!(
        notes
            .iter()
            .any(|n| n.contains("SECRET withheld") && n.contains("--pass-env CARGO_MANIFEST_DIR")),
        "{notes:?}"
    );
    // The scratch HOME is removed afterwards.
    assert!(!Path::new(home).exists());
}

#[test]
fn probe_all_runs_concurrently_and_keeps_input_order() {
    let pids = PidFile::new();
    let specs: Vec<ServerSpec> = [
        "slow_start",
        "dup_names",
        "slow_start",
        "early_exit",
        "slow_start",
        "slow_start",
    ]
    .iter()
    .map(|s| {
        let mut spec = hostile(s, &pids);
        if let Transport::Stdio { args, .. } = &mut spec.transport {
            args.push("0.8".into());
        }
        spec
    })
    .collect();
    let events = std::sync::Mutex::new(Vec::new());
    let start = Instant::now();
    let out = probe_all(&specs, &ProbeOptions { jobs: 6, ..opts() }, &|e| {
        events.lock().unwrap().push(e)
    });
    let took = start.elapsed();
    // Each slow_start server sleeps 800 ms before it reads: serially that is ≥ 3.2 s.
    assert!(took < Duration::from_millis(2400), "{took:?}");
    assert_eq!(out.len(), 6);
    assert_eq!(out[0].as_ref().unwrap().server, "slow_start");
    assert_eq!(out[1].as_ref().unwrap().server, "dup_names");
    assert!(out[3].is_err());
    assert!(out[5].is_ok());
    let events = events.into_inner().unwrap();
    assert_eq!(
        events
            .iter()
            .filter(|e| matches!(e, ProbeEvent::Started { .. }))
            .count(),
        6
    );
    assert!(events.iter().any(|e| matches!(
        e,
        ProbeEvent::Finished {
            index: 3,
            ok: false,
            ..
        }
    )));
    pids.assert_all_gone(7);
}

/// Run the mcpvet binary.
fn mcpvet(args: &[&str], envs: &[(&str, &str)]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_mcpvet"))
        .args(args)
        .envs(envs.iter().copied())
        .output()
        .unwrap()
}

#[test]
fn snapshot_command_writes_a_snapshot_that_loads_back() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("modern.json");
    let script = fixtures().join("hostile.py");
    // Under the default sandbox (no pid file: the sandbox's filesystem is read-only).
    let o = mcpvet(
        &[
            "snapshot",
            "-o",
            out.to_str().unwrap(),
            "--name",
            "mine",
            "--",
            &python(),
            script.to_str().unwrap(),
            "modern",
        ],
        &[],
    );
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert!(
        stderr.contains("mine — modern 2026-07-28, 4 tools, 1 prompt"),
        "{stderr}"
    );
    let s = ServerSnapshot::load(&out).unwrap();
    assert_eq!(s.server, "mine");
    assert_eq!(s.era, Some(Era::Modern));
    assert_eq!(s.tools.len(), 4);
    // No temporary file is left beside it.
    assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1);
}

#[test]
fn snapshot_command_exits_3_on_probe_failure() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("x.json");
    let script = fixtures().join("hostile.py");
    let o = mcpvet(
        &[
            "snapshot",
            "-o",
            out.to_str().unwrap(),
            "--timeout",
            "5",
            "--",
            &python(),
            script.to_str().unwrap(),
            "early_exit",
        ],
        &[],
    );
    assert_eq!(
        o.status.code(),
        Some(3),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    assert!(String::from_utf8_lossy(&o.stderr).contains("exit status: 3"));
    assert!(!out.exists());
    let o = mcpvet(&["snapshot", "-o", out.to_str().unwrap()], &[]);
    assert_eq!(o.status.code(), Some(2));
}

#[test]
fn huge_message_keeps_mcpvet_memory_bounded() {
    // Measure the peak RSS of mcpvet (and its waited-for children) while a server sends a
    // 1 GiB line: the per-message cap stops reading at 8 MiB.
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("x.json");
    let script = fixtures().join("hostile.py");
    let bin = env!("CARGO_BIN_EXE_mcpvet");
    let measure = "import resource,subprocess,sys\n\
r = subprocess.run(sys.argv[1:], capture_output=True)\n\
print(r.returncode, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)\n\
sys.stderr.write(r.stderr.decode(errors='replace'))\n";
    let o = Command::new(python())
        .args([
            "-c",
            measure,
            bin,
            "snapshot",
            "-o",
            out.to_str().unwrap(),
            "--timeout",
            "20",
            "--",
            &python(),
            script.to_str().unwrap(),
            "huge",
        ])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&o.stdout);
    let mut it = text.split_whitespace();
    let code: i32 = it.next().unwrap().parse().unwrap();
    let max_kib: u64 = it.next().unwrap().parse().unwrap();
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert_eq!(code, 3, "{stderr}");
    assert!(stderr.contains("per-message cap of 8 MiB"), "{stderr}");
    println!("peak RSS of mcpvet and its children: {max_kib} KiB");
    assert!(max_kib < 64 * 1024, "peak RSS {max_kib} KiB");
}

/// The sandbox: the server cannot read a file in the reviewer's real home and cannot
/// connect to a loopback listener of the test.
#[test]
fn sandbox_hides_home_and_blocks_the_network() {
    if which("bwrap").is_none() {
        if std::env::var_os("CI").is_some() {
            panic!("bubblewrap (bwrap) must be installed in CI");
        }
        eprintln!("skipping: bwrap not installed");
        return;
    }
    let fake_home = tempfile::tempdir().unwrap();
    let secret = fake_home.path().join("secret.txt");
    std::fs::write(&secret, "TOP-SECRET").unwrap();
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    listener.set_nonblocking(true).unwrap();
    let port = listener.local_addr().unwrap().port().to_string();
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("s.json");
    let script = fixtures().join("hostile.py");
    let py = python();
    let base = [
        "snapshot",
        "-o",
        out.to_str().unwrap(),
        "--timeout",
        "20",
        "--",
        &py,
        script.to_str().unwrap(),
        "env_probe",
        "",
        secret.to_str().unwrap(),
        &port,
    ];
    let home = fake_home.path().to_str().unwrap();
    // Unsandboxed, the same server can read the file and connect: the test can fail.
    let mut unsandboxed = base.to_vec();
    unsandboxed.insert(1, "--no-sandbox");
    let o = mcpvet(&unsandboxed, &[("HOME", home)]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let r = report(&ServerSnapshot::load(&out).unwrap());
    assert_eq!(r["read"], "OK TOP-SECRET");
    assert_eq!(r["connect"], "OK");
    // (One connection per process the probe started.)
    while listener.accept().is_ok() {}
    // By default (sandboxed): the home is hidden and there is no network.
    let o = mcpvet(&base, &[("HOME", home)]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let s = ServerSnapshot::load(&out).unwrap();
    let r = report(&s);
    assert!(r["read"].as_str().unwrap().starts_with("DENIED"), "{r}");
    assert!(r["connect"].as_str().unwrap().starts_with("DENIED"), "{r}");
    assert_eq!(r["env"]["HOME"], "/tmp/home");
    assert!(listener.accept().is_err(), "the sandboxed server connected");
    assert!(
        s.probe
            .unwrap()
            .notes
            .iter()
            .any(|n| n.contains("bubblewrap"))
    );
}

fn which(cmd: &str) -> Option<PathBuf> {
    std::env::split_paths(&std::env::var_os("PATH")?)
        .map(|d| d.join(cmd))
        .find(|p| p.is_file())
}

/// A running `http_server.py MODE`, killed on drop.
struct HttpServer {
    child: std::process::Child,
    port: u16,
}

impl HttpServer {
    fn start(mode: &str) -> Self {
        use std::io::BufRead;
        let mut child = Command::new(python())
            .arg(fixtures().join("http_server.py"))
            .arg(mode)
            .stdout(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        let mut line = String::new();
        std::io::BufReader::new(child.stdout.take().unwrap())
            .read_line(&mut line)
            .unwrap();
        let port = line.trim().parse().unwrap();
        Self { child, port }
    }
    fn url(&self) -> String {
        format!("http://127.0.0.1:{}/mcp", self.port)
    }
    fn spec(&self, headers: &[(&str, &str)]) -> ServerSpec {
        ServerSpec {
            transport: Transport::Http {
                url: self.url(),
                headers: headers
                    .iter()
                    .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
                    .collect(),
            },
            ..stdio_spec("web", vec![])
        }
    }
}

impl Drop for HttpServer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn http_probe(mode: &str, headers: &[(&str, &str)]) -> Result<ServerSnapshot, String> {
    let server = HttpServer::start(mode);
    let o = opts();
    let start = Instant::now();
    let out = probe(&server.spec(headers), &o).map_err(|e| e.to_string());
    assert!(start.elapsed() < o.timeout + Duration::from_secs(2));
    out
}

#[test]
fn http_modern_json_and_sse_with_headers_and_empty_cursor() {
    let s = http_probe("modern", &[]).unwrap();
    assert_eq!(s.era, Some(Era::Modern));
    assert_eq!(names(&s.tools), ["echo", "second"]);
    assert_eq!(s.reported_name(), Some("http-modern"));
    assert_eq!(s.probe.unwrap().transport, "http");
}

#[test]
fn http_legacy_sse_session_priming_event_and_server_ping() {
    let s = http_probe("legacy_sse", &[]).unwrap();
    assert_eq!(s.era, Some(Era::Legacy));
    assert_eq!(s.protocol_version.as_deref(), Some("2025-11-25"));
    assert_eq!(names(&s.tools), ["echo"]);
    assert_eq!(names(&s.prompts), ["p"]);
    let notes = s.probe.unwrap().notes;
    assert!(notes.iter().any(|n| n.contains("-32000")), "{notes:?}");
    assert!(
        notes.iter().any(|n| n.contains("ping request")),
        "{notes:?}"
    );
}

#[test]
fn http_forgotten_legacy_session_is_reinitialized_once() {
    for mode in ["legacy_expiring", "legacy_expiring_400"] {
        let s = http_probe(mode, &[]).unwrap();
        assert_eq!(names(&s.tools), ["echo"], "{mode}");
        assert_eq!(names(&s.prompts), ["p"], "{mode}");
        let notes = s.probe.unwrap().notes;
        assert!(
            notes
                .iter()
                .any(|n| n.contains("forgot the legacy session during prompts/list")),
            "{mode}: {notes:?}"
        );
    }
}

#[test]
fn http_config_headers_are_sent() {
    let e = http_probe("needs_auth", &[]).unwrap_err();
    assert!(e.contains("401"), "{e}");
    let s = http_probe("needs_auth", &[("Authorization", "Bearer let-me-in")]).unwrap();
    assert_eq!(s.era, Some(Era::Modern));
}

#[test]
fn http_header_references_need_pass_env() {
    let server = HttpServer::start("needs_auth");
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("s.json");
    let url = server.url();
    let base = [
        "snapshot",
        "-o",
        out.to_str().unwrap(),
        "--url",
        &url,
        "--header",
        "Authorization: Bearer ${MCPVET_TEST_TOKEN}",
    ];
    let env = [("MCPVET_TEST_TOKEN", "let-me-in")];
    let o = mcpvet(&base, &env);
    assert_eq!(o.status.code(), Some(3));
    assert!(String::from_utf8_lossy(&o.stderr).contains("401"));
    let mut passed = base.to_vec();
    passed.extend(["--pass-env", "MCPVET_TEST_TOKEN"]);
    let o = mcpvet(&passed, &env);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
}

#[test]
fn http_redirect_to_another_host_is_not_followed() {
    let e = http_probe("redirect_other_host", &[]).unwrap_err();
    assert!(e.contains("redirect to http://localhost"), "{e}");
    let s = http_probe("redirect_same_host", &[]).unwrap();
    assert_eq!(s.era, Some(Era::Modern));
}

#[test]
fn http_huge_body_hits_the_message_cap() {
    let e = http_probe("huge_body", &[]).unwrap_err();
    assert!(e.contains("per-message cap of 1 MiB"), "{e}");
}

#[test]
fn http_keepalive_flood_hits_the_total_cap() {
    let e = http_probe("sse_keepalive_flood", &[]).unwrap_err();
    assert!(e.contains("total cap of 4 MiB"), "{e}");
}

#[test]
fn http_silence_times_out() {
    let e = http_probe("slow", &[]).unwrap_err();
    assert!(e.contains("--timeout"), "{e}");
}

#[test]
fn item_cap_is_enforced() {
    let pids = PidFile::new();
    let o = ProbeOptions {
        caps: Limits {
            max_items: 3,
            ..opts().caps
        },
        ..opts()
    };
    let e = probe(&hostile("modern", &pids), &o)
        .unwrap_err()
        .to_string();
    assert!(e.contains("more than 3 items"), "{e}");
    pids.assert_all_gone(1);
}

#[test]
fn offline_targets_read_snapshot_files_and_start_nothing() {
    use mcpvet::cli::targets::{TargetArgs, obtain};
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("mine.json"),
        r#"{"serverInfo":{"name":"x","version":"1"},"tools":[{"name":"a"}]}"#,
    )
    .unwrap();
    let file = dir.path().join("other.json");
    std::fs::write(&file, r#"{"tools":[{"name":"b"},{"name":"c"}]}"#).unwrap();
    let args = TargetArgs {
        targets: vec![file.clone()],
        command: vec!["/nonexistent/server".into()],
        name: Some("mine".into()),
        offline: true,
        snapshot_dir: Some(dir.path().to_path_buf()),
        ..TargetArgs::default()
    };
    let targets = args.resolve().unwrap();
    assert_eq!(targets.len(), 2);
    assert_eq!(targets[0].snapshot_file.as_deref(), Some(file.as_path()));
    let got = obtain(&targets, &args, &|_| panic!("nothing may be probed")).unwrap();
    let a = got[0].as_ref().unwrap();
    assert_eq!((a.server.as_str(), a.tools.len()), ("other", 2));
    let b = got[1].as_ref().unwrap();
    assert_eq!((b.server.as_str(), b.tools.len()), ("mine", 1));
    // Without --snapshot-dir an offline server is a clear error.
    let args = TargetArgs {
        snapshot_dir: None,
        ..args
    };
    let got = obtain(&args.resolve().unwrap(), &args, &|_| {}).unwrap();
    let e = got[1].as_ref().unwrap_err().to_string();
    assert!(e.contains("--snapshot-dir"), "{e}");
}

/// The snapshot is the product: pin its exact shape (timings and stderr left out).
#[test]
fn snapshot_json_of_a_modern_server() {
    let mut s = run("modern", 1).unwrap();
    let notes = s.probe.take().unwrap().notes;
    assert!(notes.is_empty(), "{notes:?}");
    insta::assert_snapshot!("modern_server_snapshot", s.to_pretty_json());
}

#[test]
fn snapshot_json_of_a_legacy_http_server() {
    let mut s = http_probe("legacy_sse", &[]).unwrap();
    let probe = s.probe.take().unwrap();
    insta::assert_snapshot!("legacy_http_snapshot", s.to_pretty_json());
    insta::assert_debug_snapshot!("legacy_http_notes", probe.notes);
}

/// The pipeline is a library call: plain options, no flags, no terminal. Offline with a
/// snapshot folder, it judges the example config exactly as the command line's mapping does.
#[test]
fn the_pipeline_runs_without_the_command_line() {
    use mcpvet::pipeline::{
        GatherOptions, JudgeOptions, PolicySource, TargetList, gather, judge, resolve,
    };
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let list = TargetList {
        paths: vec![root.join("examples/mcp.json")],
        ..TargetList::default()
    };
    let opts = GatherOptions {
        offline: true,
        snapshot_dir: Some(root.join("examples/snapshots")),
        ..GatherOptions::default()
    };
    let judging = JudgeOptions {
        policy: PolicySource::None,
        ..JudgeOptions::default()
    };
    let targets = resolve(&list).unwrap().targets;
    let subjects = gather(targets, &opts, &|_| panic!("nothing may be probed")).unwrap();
    assert!(
        subjects.iter().all(|s| s.snapshot.is_some()),
        "{subjects:?}"
    );
    let report = judge(subjects.clone(), &judging, root, Vec::new()).unwrap();
    assert!(!report.findings.is_empty());
    let args = mcpvet::cli::pipeline::JudgeArgs {
        no_policy: true,
        ..Default::default()
    };
    let via_cli = mcpvet::cli::pipeline::judge(subjects, &args, root, Vec::new()).unwrap();
    assert_eq!(report.findings, via_cli.findings);
    assert!(
        gather(Vec::new(), &opts, &|_| {})
            .unwrap_err()
            .to_string()
            .starts_with("nothing to audit")
    );
}

/// A running `sse_server.py MODE` (the legacy HTTP+SSE transport), killed on drop.
struct SseServer {
    child: std::process::Child,
    port: u16,
}

impl SseServer {
    fn start(mode: &str) -> Self {
        use std::io::BufRead;
        let mut child = Command::new(python())
            .arg(fixtures().join("sse_server.py"))
            .arg(mode)
            .stdout(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        let mut line = String::new();
        std::io::BufReader::new(child.stdout.take().unwrap())
            .read_line(&mut line)
            .unwrap();
        let port = line.trim().parse().unwrap();
        Self { child, port }
    }
    fn url(&self) -> String {
        format!("http://127.0.0.1:{}/sse", self.port)
    }
    /// A spec for the URL with the Authorization header the fixture counts; `declared`
    /// adds the config's `"type": "sse"`.
    fn spec(&self, declared: bool) -> ServerSpec {
        let mut spec = ServerSpec {
            transport: Transport::Http {
                url: self.url(),
                headers: [("Authorization".to_owned(), "Bearer sse-key".to_owned())].into(),
            },
            ..stdio_spec("legacy-sse", vec![])
        };
        if declared {
            spec.settings.insert("type".into(), "sse".into());
        }
        spec
    }
    /// What the fixture saw (`GET /stats`, read with a plain socket).
    fn stats(&self) -> serde_json::Value {
        use std::io::{Read, Write};
        let mut s = std::net::TcpStream::connect(("127.0.0.1", self.port)).unwrap();
        s.write_all(b"GET /stats HTTP/1.0\r\n\r\n").unwrap();
        let mut text = String::new();
        s.read_to_string(&mut text).unwrap();
        let body = text.split_once("\r\n\r\n").unwrap().1;
        serde_json::from_str(body).unwrap()
    }
    /// The stats once every event stream is closed (the client closes it when done).
    fn stats_when_closed(&self) -> serde_json::Value {
        let until = Instant::now() + Duration::from_secs(3);
        loop {
            let stats = self.stats();
            if stats["open"] == 0 || Instant::now() > until {
                return stats;
            }
            std::thread::sleep(Duration::from_millis(50));
        }
    }
}

impl Drop for SseServer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn sse_probe(
    server: &SseServer,
    declared: bool,
    o: &ProbeOptions,
) -> Result<ServerSnapshot, String> {
    let start = Instant::now();
    let out = probe(&server.spec(declared), o).map_err(|e| e.to_string());
    assert!(
        start.elapsed() < o.timeout + Duration::from_secs(2),
        "took {:?}",
        start.elapsed()
    );
    out
}

#[test]
fn sse_fallback_from_a_refused_post_finds_the_tools() {
    for mode in ["ok", "absolute"] {
        let server = SseServer::start(mode);
        let s = sse_probe(&server, false, &opts()).unwrap();
        assert_eq!(s.era, Some(Era::Legacy), "{mode}");
        assert_eq!(s.protocol_version.as_deref(), Some("2024-11-05"), "{mode}");
        assert_eq!(names(&s.tools), ["read_page", "search_pages"], "{mode}");
        assert_eq!(s.reported_name(), Some("sse-legacy"));
        let probe_info = s.probe.unwrap();
        assert_eq!(probe_info.transport, "sse", "{mode}");
        assert!(
            probe_info
                .notes
                .iter()
                .any(|n| n.contains("refused with HTTP 405 and a GET opened an event stream")),
            "{mode}: {:?}",
            probe_info.notes
        );
        let stats = server.stats_when_closed();
        // server/discover and initialize were posted to the URL (405), then only the legacy
        // handshake went to the endpoint; the ping was answered; every request carried the
        // config's header; the stream was closed at the end.
        assert_eq!(stats["otherPosts"], 2, "{mode}: {stats}");
        assert_eq!(
            stats["methods"],
            serde_json::json!([
                "initialize",
                "notifications/initialized",
                "tools/list",
                "answer"
            ]),
            "{mode}: {stats}"
        );
        assert_eq!(stats["pong"], true, "{mode}: {stats}");
        assert_eq!(stats["noAuth"], 0, "{mode}: {stats}");
        assert_eq!(
            (&stats["opened"], &stats["open"]),
            (&1.into(), &0.into()),
            "{mode}: {stats}"
        );
    }
}

#[test]
fn sse_declared_by_the_config_is_spoken_without_a_streamable_http_attempt() {
    let server = SseServer::start("ok");
    let s = sse_probe(&server, true, &opts()).unwrap();
    assert_eq!(names(&s.tools), ["read_page", "search_pages"]);
    let probe_info = s.probe.unwrap();
    assert_eq!(probe_info.transport, "sse");
    assert!(
        probe_info
            .notes
            .iter()
            .any(|n| n.contains("carries only the legacy initialize handshake")),
        "{:?}",
        probe_info.notes
    );
    let stats = server.stats_when_closed();
    assert_eq!(stats["otherPosts"], 0, "{stats}");
    assert_eq!(stats["open"], 0, "{stats}");
    assert_eq!(stats["noAuth"], 0, "{stats}");
}

#[test]
fn sse_endpoint_on_another_host_is_refused() {
    for declared in [false, true] {
        let server = SseServer::start("other_host");
        let e = sse_probe(&server, declared, &opts()).unwrap_err();
        let other = format!("http://localhost:{}", server.port);
        assert!(
            e.contains(&format!("refused the HTTP+SSE message endpoint on {other}")),
            "{e}"
        );
        assert!(e.contains("posts only to the origin it was given"), "{e}");
        let stats = server.stats_when_closed();
        assert_eq!(stats["methods"], serde_json::json!([]), "{stats}");
        assert_eq!(stats["open"], 0, "{stats}");
    }
    for declared in [false, true] {
        let server = SseServer::start("redirect");
        let e = sse_probe(&server, declared, &opts()).unwrap_err();
        let other = format!("http://localhost:{}/sse", server.port);
        assert!(
            e.contains(&format!("a redirect to {other} was not followed")),
            "{e}"
        );
    }
}

#[test]
fn sse_stream_without_an_endpoint_ends_at_the_timeout() {
    let server = SseServer::start("silent");
    let o = ProbeOptions {
        timeout: Duration::from_secs(2),
        ..opts()
    };
    let e = sse_probe(&server, true, &o).unwrap_err();
    assert!(e.contains("--timeout"), "{e}");
    assert!(e.contains("no `endpoint` event"), "{e}");
}

#[test]
fn sse_endless_event_hits_the_message_cap() {
    let server = SseServer::start("endless");
    let e = sse_probe(&server, false, &opts()).unwrap_err();
    assert!(
        e.contains("event is longer than the per-message cap of 1 MiB"),
        "{e}"
    );
    let stats = server.stats_when_closed();
    assert_eq!(stats["open"], 0, "{stats}");
}

#[test]
fn sse_fallback_names_both_answers_when_the_get_is_no_event_stream() {
    let server = SseServer::start("not_sse");
    let e = sse_probe(&server, false, &opts()).unwrap_err();
    assert!(e.contains("HTTP 405"), "{e}");
    assert!(
        e.contains("not the HTTP+SSE transport of 2024-11-05 either"),
        "{e}"
    );
    let e = sse_probe(&server, true, &opts()).unwrap_err();
    assert!(
        e.contains("the config selects the HTTP+SSE transport"),
        "{e}"
    );
}

/// `mcpvet scan` of an HTTP+SSE server, by `--url` (the fallback) and by a config that says
/// `"type": "sse"` (declared; `check`'s `deprecated-transport` finding comes with it).
#[test]
fn scan_finds_the_tools_of_an_sse_server_by_url_and_by_config() {
    let server = SseServer::start("ok");
    let dir = tempfile::tempdir_in(env!("CARGO_TARGET_TMPDIR")).unwrap();
    let scan = |args: &[&str]| {
        let mut all = vec!["scan", "--format", "json", "--no-policy", "--timeout", "5"];
        all.extend(args);
        let o = Command::new(env!("CARGO_BIN_EXE_mcpvet"))
            .args(&all)
            .current_dir(dir.path())
            .output()
            .unwrap();
        let out = String::from_utf8_lossy(&o.stdout).into_owned();
        let report: serde_json::Value = serde_json::from_str(&out)
            .unwrap_or_else(|e| panic!("{e}: {out}\n{}", String::from_utf8_lossy(&o.stderr)));
        report
    };
    let url = server.url();
    let by_url = scan(&["--url", &url, "--header", "Authorization: Bearer sse-key"]);
    let s = &by_url["servers"][0];
    assert_eq!(s["error"], serde_json::Value::Null, "{by_url}");
    assert_eq!(
        (&s["era"], &s["protocolVersion"]),
        (&"legacy".into(), &"2024-11-05".into())
    );
    assert_eq!(s["counts"]["tools"], 2, "{by_url}");
    let config = dir.path().join(".mcp.json");
    std::fs::write(
        &config,
        format!(
            "{{\"mcpServers\": {{\n  \"old\": {{\"type\": \"sse\", \"url\": \"{url}\", \"headers\": {{\"Authorization\": \"Bearer sse-key\"}}}}\n}}}}\n"
        ),
    )
    .unwrap();
    let by_config = scan(&[config.to_str().unwrap()]);
    let s = &by_config["servers"][0];
    assert_eq!(s["error"], serde_json::Value::Null, "{by_config}");
    assert_eq!(s["counts"]["tools"], 2, "{by_config}");
    let rules: Vec<&str> = by_config["findings"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|f| f["rule"].as_str())
        .collect();
    assert!(rules.contains(&"deprecated-transport"), "{rules:?}");
    let stats = server.stats_when_closed();
    // Two POSTs to the URL from the `--url` scan (discover, initialize), none from the
    // config's scan; every request carried the header; every stream closed.
    assert_eq!(stats["otherPosts"], 2, "{stats}");
    assert_eq!(
        (&stats["opened"], &stats["open"]),
        (&2.into(), &0.into()),
        "{stats}"
    );
    assert_eq!(stats["noAuth"], 0, "{stats}");
}

#[test]
fn deferred_teardown_kills_at_once_and_finishes_on_request() {
    // The server fills its scratch HOME with files, so removing it takes a while after the
    // server is killed. With `defer_teardown`, `probe_all` returns once the answers are in and
    // the server is killed; reaping it and removing its HOME finish in the background until
    // `finish_teardown`.
    let pids = PidFile::new();
    let mut spec = hostile("busy_home", &pids);
    if let Transport::Stdio { args, .. } = &mut spec.transport {
        args.push("20000".into());
    }
    let o = ProbeOptions {
        defer_teardown: true,
        timeout: Duration::from_secs(30),
        ..opts()
    };
    let out = probe_all(std::slice::from_ref(&spec), &o, &|_| {});
    let snap = out.into_iter().next().unwrap().unwrap();
    let home = snap.tools[0]["description"].as_str().unwrap().to_owned();
    assert!(home.contains("mcpvet-probe-"), "{home}");
    // Killed at once: no process of the server runs on while the caller judges.
    for p in pids.pids() {
        assert!(
            !alive(p) || {
                std::thread::sleep(Duration::from_millis(200));
                !alive(p)
            },
            "{p} still runs"
        );
    }
    // (Whether the HOME is still there at this point depends on how busy the machine is:
    // that the snapshot comes first is a timing property, measured by
    // scripts/bench-handshake.sh, not asserted here.)
    mcpvet::mcp::finish_teardown();
    assert!(!Path::new(&home).exists(), "{home} left behind");
    pids.assert_all_gone(1);

    // Without it, everything is done when `probe_all` returns.
    let pids = PidFile::new();
    let mut spec = hostile("busy_home", &pids);
    if let Transport::Stdio { args, .. } = &mut spec.transport {
        args.push("2000".into());
    }
    let out = probe_all(std::slice::from_ref(&spec), &opts(), &|_| {});
    let snap = out.into_iter().next().unwrap().unwrap();
    let home = snap.tools[0]["description"].as_str().unwrap().to_owned();
    assert!(!Path::new(&home).exists(), "{home} left behind");
    pids.assert_all_gone(1);
}
