//! Probe benchmarks (run with `cargo bench --bench probe`):
//!
//! 1. mcpvet's own overhead on a live probe: `probe()` of a small stdio server versus the
//!    same server driven by hand (spawn, write the same requests, read the answers), and
//!    what the default bubblewrap sandbox adds per launch.
//! 2. Concurrency: wall time of `probe_all` over many slow-starting servers versus one.

#![allow(clippy::unwrap_used, clippy::print_stdout)]

use std::collections::BTreeMap;
use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use mcpvet::mcp::{ProbeOptions, probe, probe_all};
use mcpvet::model::spec::{ServerSpec, Transport};

fn python() -> String {
    if Path::new("/usr/bin/python3").exists() {
        "/usr/bin/python3".into()
    } else {
        "python3".into()
    }
}

fn script() -> String {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/hostile/hostile.py")
        .display()
        .to_string()
}

fn spec(name: &str, scenario: &str) -> ServerSpec {
    ServerSpec {
        name: name.into(),
        host: mcpvet::model::host::Host::CommandLine,
        origin: None,
        locations: BTreeMap::new(),
        transport: Transport::Stdio {
            command: python(),
            args: vec![script(), scenario.into()],
            env: BTreeMap::new(),
            cwd: None,
        },
        settings: BTreeMap::new(),
        duplicate_keys: Vec::new(),
    }
}

/// Drive the modern fixture server by hand with the same five requests the probe sends.
fn by_hand() -> Duration {
    let start = Instant::now();
    let mut child = Command::new(python())
        .args([script(), "modern".into()])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let mut out = BufReader::new(child.stdout.take().unwrap());
    let meta = r#"{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}"#;
    let requests = [
        ("server/discover", ""),
        ("tools/list", ""),
        ("tools/list", r#","cursor":"""#),
        ("tools/list", r#","cursor":"last""#),
        ("prompts/list", ""),
        ("resources/list", ""),
        ("resources/templates/list", ""),
    ];
    let mut line = String::new();
    for (i, (m, extra)) in requests.iter().enumerate() {
        writeln!(
            stdin,
            r#"{{"jsonrpc":"2.0","id":{i},"method":"{m}","params":{{"_meta":{meta}{extra}}}}}"#
        )
        .unwrap();
        stdin.flush().unwrap();
        line.clear();
        out.read_line(&mut line).unwrap();
        assert!(line.contains("result"), "{line}");
    }
    let took = start.elapsed();
    child.kill().unwrap();
    child.wait().unwrap();
    took
}

fn median(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v[v.len() / 2]
}

fn ms(d: Duration) -> String {
    format!("{:.1} ms", d.as_secs_f64() * 1000.0)
}

fn main() {
    let runs = 15;
    // mcpvet's own overhead is measured without the sandbox; the sandbox's cost on its own line.
    let opts = ProbeOptions {
        sandbox: false,
        ..ProbeOptions::default()
    };
    let sandboxed = ProbeOptions::default();
    // Warm up the page cache and Python's bytecode cache.
    by_hand();
    probe(&spec("modern", "modern"), &opts).unwrap();
    let hand = median((0..runs).map(|_| by_hand()).collect());
    let probed = median(
        (0..runs)
            .map(|_| {
                let s = Instant::now();
                let snap = probe(&spec("modern", "modern"), &opts).unwrap();
                assert_eq!(snap.tools.len(), 4);
                s.elapsed()
            })
            .collect(),
    );
    println!("overhead (median of {runs}, modern stdio server, 7 requests):");
    println!("  server driven by hand   {}", ms(hand));
    println!("  mcpvet probe()          {}", ms(probed));
    println!(
        "  mcpvet overhead         {}",
        ms(probed.saturating_sub(hand))
    );
    // The sandbox's one check per process is paid in the warm-up.
    probe(&spec("modern", "modern"), &sandboxed).unwrap();
    let boxed = median(
        (0..runs)
            .map(|_| {
                let s = Instant::now();
                probe(&spec("modern", "modern"), &sandboxed).unwrap();
                s.elapsed()
            })
            .collect(),
    );
    println!("  mcpvet probe(), sandboxed {}", ms(boxed));
    println!(
        "  sandbox per launch      {}",
        ms(boxed.saturating_sub(probed))
    );

    // Legacy: discover is refused and initialize answered on the same process.
    let legacy = median(
        (0..runs)
            .map(|_| {
                let s = Instant::now();
                probe(&spec("legacy", "legacy"), &opts).unwrap();
                s.elapsed()
            })
            .collect(),
    );
    println!("  legacy probe (1 process) {}", ms(legacy));

    // A legacy server that ignores server/discover: decided by its initialize answer.
    let ignoring = median(
        (0..runs)
            .map(|_| {
                let s = Instant::now();
                probe(&spec("ignoring", "ignore_discover"), &opts).unwrap();
                s.elapsed()
            })
            .collect(),
    );
    println!("  legacy, discover ignored {}", ms(ignoring));

    // Concurrency: 16 servers that each sleep 1 s before reading their stdin.
    let n = 16;
    let slow = ProbeOptions {
        jobs: n,
        ..opts.clone()
    };
    let slow_spec = |name: &str| {
        let mut s = spec(name, "slow_start");
        if let Transport::Stdio { args, .. } = &mut s.transport {
            args.extend([String::new(), "1".into()]);
        }
        s
    };
    let one = {
        let s = Instant::now();
        probe(&slow_spec("slow"), &slow).unwrap();
        s.elapsed()
    };
    let specs: Vec<ServerSpec> = (0..n).map(|i| slow_spec(&format!("slow-{i}"))).collect();
    let s = Instant::now();
    let out = probe_all(&specs, &slow, &|_| {});
    let all = s.elapsed();
    assert!(out.iter().all(Result::is_ok));
    println!("concurrency ({n} servers that start after 1 s, -j {n}):");
    println!("  one server              {}", ms(one));
    println!("  all {n} with probe_all   {}", ms(all));
}
