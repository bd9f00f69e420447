//! Integration tests: hostile text never reaches the reviewer's terminal, CI log or review
//! raw, and a hostile server cannot keep a scan past its `--timeout`. One list of hostile
//! strings is driven through every output path (scan in every format, check, snapshot, lock,
//! diff, review, rules, and the error paths) by a fake stdio server
//! (tests/fixtures/hostile/hostile_text.py) and by configs whose keys, arguments and URLs
//! carry the same strings.

// Test helpers outside `#[test]` functions unwrap too.
#![allow(clippy::unwrap_used)]

use super::fixtures::python;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

/// The one list of hostile strings: terminal escapes (hide, retitle, hyperlink), bell,
/// carriage return, forged workflow commands and review headings, bidi override, backtick
/// runs, zero-width, NUL, DEL and a C1 CSI.
const HOSTILE: &[&str] = &[
    "\u{1b}[8mhidden",
    "\u{1b}]0;owned-title\u{7}",
    "\u{1b}]8;;http://evil.example/\u{1b}\\link\u{1b}]8;;\u{1b}\\",
    "bell\u{7}",
    "cr\rover",
    "\n::error::forged",
    "\r\n## Decision: Accept",
    "\n**Decision: Accept.** forged",
    "bidi\u{202e}txt\u{2066}\u{200f}\u{61c}",
    "a```b````c",
    "zero\u{200b}width",
    "nul\u{0}byte",
    "del\u{7f}",
    "c1\u{9b}31m",
];

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn script() -> String {
    root()
        .join("tests/fixtures/hostile/hostile_text.py")
        .display()
        .to_string()
}

struct Run {
    label: String,
    code: i32,
    stdout: Vec<u8>,
    stderr: Vec<u8>,
    elapsed: Duration,
}

fn mcpvet(dir: &Path, label: &str, args: &[&str]) -> Run {
    let start = Instant::now();
    let out = Command::new(env!("CARGO_BIN_EXE_mcpvet"))
        .args(args)
        .current_dir(dir)
        .env("NO_COLOR", "1")
        .env("COLUMNS", "100")
        .output()
        .expect("mcpvet runs");
    Run {
        label: label.to_owned(),
        code: out.status.code().unwrap_or(-1),
        stdout: out.stdout,
        stderr: out.stderr,
        elapsed: start.elapsed(),
    }
}

/// A character that must never reach an output raw.
fn forbidden(c: char) -> bool {
    let cp = c as u32;
    (cp <= 0x1f && c != '\n' && c != '\t')
        || (0x7f..=0x9f).contains(&cp)
        || (0x202a..=0x202e).contains(&cp)
        || (0x2066..=0x2069).contains(&cp)
        || (0x200b..=0x200f).contains(&cp)
        || cp == 0x061c
        || cp == 0xfeff
}

/// Whether a line is one of mcpvet's own GitHub annotations.
fn own_annotation(line: &str) -> bool {
    ["::error ", "::warning ", "::notice "]
        .iter()
        .any(|p| line.starts_with(p))
        && line.contains("title=")
}

fn assert_clean_stream(label: &str, which: &str, bytes: &[u8], annotations: bool) {
    let text = String::from_utf8_lossy(bytes);
    if let Some((i, c)) = text.char_indices().find(|(_, c)| forbidden(*c)) {
        let from = text[..i].char_indices().rev().nth(60).map_or(0, |(j, _)| j);
        panic!(
            "{label}: {which} carries U+{:04X} raw near {:?}",
            c as u32,
            &text[from..(i + 1).min(text.len())]
        );
    }
    let lines: Vec<&str> = text.lines().collect();
    for (n, line) in lines.iter().enumerate() {
        // The runner trims leading whitespace before it looks for a workflow command.
        let t = line.trim_start();
        if annotations && which == "stdout" {
            let last = n + 1 == lines.len();
            assert!(
                if last {
                    !t.starts_with("::")
                } else {
                    own_annotation(line)
                },
                "{label}: {which} line {n} is not one of mcpvet's annotations: {line:?}"
            );
        } else {
            assert!(
                !t.starts_with("::"),
                "{label}: {which} line {n} starts a workflow command: {line:?}"
            );
        }
        // A line indented by four spaces or more is quoted text (a diff's context line, a
        // code block in markdown), not a heading.
        let quoted = line.len() - t.len() >= 4;
        assert!(
            quoted
                || !t.starts_with("## Decision") && !t.starts_with("**Decision: Accept.** forged"),
            "{label}: {which} line {n} is a forged decision: {line:?}"
        );
    }
}

fn assert_clean(run: &Run, annotations: bool) {
    assert_clean_stream(&run.label, "stdout", &run.stdout, annotations);
    assert_clean_stream(&run.label, "stderr", &run.stderr, false);
}

/// A scratch directory with the strings file and the configs.
struct Scene {
    dir: tempfile::TempDir,
}

impl Scene {
    fn new() -> Self {
        let dir = tempfile::tempdir_in(env!("CARGO_TARGET_TMPDIR")).unwrap();
        std::fs::write(
            dir.path().join("strings.json"),
            serde_json::to_string(HOSTILE).unwrap(),
        )
        .unwrap();
        Scene { dir }
    }

    fn path(&self) -> &Path {
        self.dir.path()
    }

    fn strings(&self) -> String {
        self.path().join("strings.json").display().to_string()
    }

    /// A host config with one stdio server running `scenario`, named `name`, with the
    /// hostile strings in an argument and an environment value too.
    fn config(&self, file: &str, servers: &[(&str, &str)]) -> String {
        // A process argument or environment value cannot hold NUL; the rest go there.
        let launchable: String = HOSTILE
            .iter()
            .filter(|s| !s.contains('\0'))
            .copied()
            .collect();
        let mut map = serde_json::Map::new();
        for (name, scenario) in servers {
            map.insert(
                (*name).to_owned(),
                serde_json::json!({
                    "command": python(),
                    "args": [script(), scenario, self.strings(), launchable],
                    "env": {"NOTE": launchable},
                }),
            );
        }
        let doc = serde_json::json!({ "mcpServers": map });
        std::fs::write(
            self.path().join(file),
            serde_json::to_string_pretty(&doc).unwrap(),
        )
        .unwrap();
        file.to_owned()
    }
}

fn hostile_name(prefix: &str) -> String {
    format!("{prefix}{}", HOSTILE.concat())
}

#[test]
fn no_control_sequence_reaches_stdout_or_stderr_unescaped() {
    let scene = Scene::new();
    let d = scene.path();
    let name = hostile_name("srv");
    let all = scene.config(
        "all.json",
        &[
            (name.as_str(), "names"),
            ("failing", "rpc_error"),
            ("exits", "exit_stderr"),
        ],
    );
    // A remote server whose URL and header carry the strings (nothing listens there).
    let remote = {
        let doc = serde_json::json!({"mcpServers": {
            hostile_name("remote"): {
                "type": "http",
                "url": format!("http://127.0.0.1:9/mcp?q={}", HOSTILE.concat()),
            }
        }});
        std::fs::write(d.join("remote.json"), doc.to_string()).unwrap();
        "remote.json"
    };
    // A config that is not valid JSON, its bad line full of hostile text.
    std::fs::write(
        d.join("broken.json"),
        format!(
            "{{\"mcpServers\": {{\n  {}: oops\n}}}}\n",
            serde_json::to_string(&HOSTILE.concat()).unwrap()
        ),
    )
    .unwrap();
    let one = scene.config("one.json", &[(name.as_str(), "names")]);
    let drift = scene.config("drift.json", &[(name.as_str(), "names_drift")]);
    let t = ["--timeout", "20"];

    let mut runs = Vec::new();
    for format in ["table", "json", "sarif", "github"] {
        runs.push((
            mcpvet(
                d,
                &format!("scan --format {format}"),
                &[&["scan", &all, "--format", format], &t[..]].concat(),
            ),
            format == "github",
        ));
    }
    let verbose = mcpvet(d, "scan -v", &[&["scan", "-v", &all], &t[..]].concat());
    // -v shows the server's stderr (escaped by the checks below) and the era decision.
    let said = String::from_utf8_lossy(&verbose.stderr).into_owned();
    assert!(said.contains("server stderr │ starting"), "{said}");
    assert!(said.contains("era decided"), "{said}");
    runs.push((verbose, false));
    runs.push((
        mcpvet(d, "scan remote", &[&["scan", remote], &t[..]].concat()),
        false,
    ));
    for format in ["table", "github", "json", "sarif"] {
        runs.push((
            mcpvet(
                d,
                &format!("check --format {format}"),
                &["check", &all, remote, "--format", format],
            ),
            format == "github",
        ));
    }
    runs.push((
        mcpvet(
            d,
            "snapshot -v",
            &[&["snapshot", "-v", "-o", "snap.json", &one], &t[..]].concat(),
        ),
        false,
    ));
    runs.push((
        mcpvet(
            d,
            "snapshot of a failing server",
            &[
                &["snapshot", "-o", "fail.json", &all, "--name", "failing"],
                &t[..],
            ]
            .concat(),
        ),
        false,
    ));
    runs.push((
        mcpvet(d, "scan snapshot file", &["scan", "snap.json"]),
        false,
    ));
    runs.push((
        mcpvet(d, "scan snapshot -v", &["scan", "-v", "snap.json"]),
        false,
    ));
    runs.push((
        mcpvet(
            d,
            "lock",
            &[
                &["lock", &one, "--lock-dir", "locks", "--accept", "reviewed"],
                &t[..],
            ]
            .concat(),
        ),
        false,
    ));
    runs.push((
        mcpvet(
            d,
            "diff (drift)",
            &[&["diff", &drift, "--lock-dir", "locks"], &t[..]].concat(),
        ),
        false,
    ));
    runs.push((
        mcpvet(
            d,
            "diff --format json",
            &[
                &["diff", &drift, "--lock-dir", "locks", "--format", "json"],
                &t[..],
            ]
            .concat(),
        ),
        false,
    ));
    runs.push((
        mcpvet(d, "review", &[&["review", &one], &t[..]].concat()),
        false,
    ));
    runs.push((mcpvet(d, "review offline", &["review", "snap.json"]), false));
    runs.push((
        mcpvet(d, "scan broken config", &["scan", "broken.json"]),
        false,
    ));
    runs.push((
        mcpvet(d, "check broken config", &["check", "broken.json"]),
        false,
    ));
    for s in HOSTILE.iter().filter(|s| !s.contains('\0')) {
        runs.push((
            mcpvet(d, "rules explain (unknown id)", &["rules", "explain", s]),
            false,
        ));
    }

    for (run, annotations) in &runs {
        assert_clean(run, *annotations);
    }
    // The runs did what they are meant to: the hostile server was listed and locked, its
    // drift found, the failures reported.
    let get = |label: &str| runs.iter().find(|(r, _)| r.label == label).unwrap();
    let lock = &get("lock").0;
    assert_eq!(lock.code, 0, "{}", String::from_utf8_lossy(&lock.stderr));
    let diff = &get("diff (drift)").0;
    assert_eq!(diff.code, 1, "{}", String::from_utf8_lossy(&diff.stdout));
    let shown = String::from_utf8_lossy(&diff.stdout);
    assert!(shown.contains("drifted"), "{shown}");
    // The drifting tool's name is shown, its tricks visible.
    assert!(shown.contains("t0\\e[8mhidden"), "{shown}");
    let table = String::from_utf8_lossy(&get("scan --format table").0.stdout).into_owned();
    assert!(table.contains("\\n::error::forged"), "{table}");
    assert!(table.contains("could not be probed"), "{table}");
    let verbose = String::from_utf8_lossy(&get("scan -v").0.stdout).into_owned();
    assert!(verbose.contains("starting\\e[8mhidden"), "{verbose}");
    let failed =
        String::from_utf8_lossy(&get("snapshot of a failing server").0.stderr).into_owned();
    assert!(failed.contains("failed\\e[8mhidden"), "{failed}");
    let broken = &get("scan broken config").0;
    assert_eq!(broken.code, 2);
}

#[test]
fn review_decision_cannot_be_forged() {
    let scene = Scene::new();
    let d = scene.path();
    let name = hostile_name("srv");
    let one = scene.config("one.json", &[(name.as_str(), "names")]);
    let run = mcpvet(d, "review", &["review", &one, "--timeout", "20"]);
    let md = String::from_utf8_lossy(&run.stdout).into_owned();
    assert!(
        md.starts_with("# Trust review: ````` srv\\e[8mhidden"),
        "{md}"
    );
    // Headings (also inside block quotes) whose text is a decision, and decision lines.
    let headings: Vec<&str> = md
        .lines()
        .map(|l| l.trim_start_matches(['>', ' ']))
        .filter(|l| l.starts_with('#'))
        .filter(|l| {
            let text = l.trim_start_matches('#').trim_start();
            let text = text.trim_start_matches(|c: char| c.is_ascii_digit() || c == '.');
            text.trim_start().starts_with("Decision")
        })
        .collect();
    assert_eq!(headings, ["## 6. Decision: Reject"], "{md}");
    let lines: Vec<&str> = md
        .lines()
        .filter(|l| l.trim_start_matches(['>', ' ']).starts_with("**Decision"))
        .collect();
    assert_eq!(lines.len(), 1, "{lines:?}\n{md}");
    assert!(lines[0].starts_with("**Decision: Reject.**"), "{md}");
    // Every heading is one of mcpvet's own.
    for l in md.lines().filter(|l| l.starts_with('#')) {
        assert!(
            l.starts_with("# Trust review: ")
                || l.starts_with("## ") && l.as_bytes().get(3).is_some_and(u8::is_ascii_digit)
                || l.starts_with("### "),
            "a heading mcpvet did not write: {l:?}"
        );
    }
    // Names sit in code spans their backticks cannot close.
    assert!(md.contains("````` t9a```b````c `````"), "{md}");
}

/// One hostile server scanned with `--timeout 2`: the whole run (launch, listing, audit,
/// rendering) ends within the timeout plus one second.
fn timed_scan(scenario: &str) -> Run {
    timed_scan_with(scenario, "2")
}

fn timed_scan_with(scenario: &str, timeout: &str) -> Run {
    let scene = Scene::new();
    let run = mcpvet(
        scene.path(),
        scenario,
        &[
            "scan",
            "--timeout",
            timeout,
            "--",
            &python(),
            &script(),
            scenario,
        ],
    );
    assert_clean(&run, false);
    run
}

/// The same over Streamable HTTP: the fixture serves on a loopback port it prints first.
fn timed_http_scan(mode: &str) -> Run {
    use std::io::BufRead;
    let mut child = Command::new(python())
        .arg(script())
        .arg(format!("http_{mode}"))
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let mut port = String::new();
    std::io::BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut port)
        .unwrap();
    let url = format!("http://127.0.0.1:{}/mcp", port.trim());
    let scene = Scene::new();
    let run = mcpvet(
        scene.path(),
        &format!("http {mode}"),
        &["scan", "--timeout", "2", "--url", &url],
    );
    let _ = child.kill();
    let _ = child.wait();
    assert_clean(&run, false);
    run
}

#[test]
fn hostile_server_cannot_keep_a_scan_past_its_timeout() {
    for mode in ["big_error", "drip", "endless_pages"] {
        let run = timed_http_scan(mode);
        let out = String::from_utf8_lossy(&run.stdout);
        assert!(
            run.elapsed <= Duration::from_secs(3),
            "http {mode}: took {:?} with --timeout 2\n{out}",
            run.elapsed
        );
        assert!(out.contains("could not be probed"), "http {mode}:\n{out}");
        if mode != "big_error" {
            assert!(
                out.contains("before the --timeout limit"),
                "http {mode}:\n{out}"
            );
        }
    }
    for scenario in [
        "big_error",
        "drip",
        "huge_line",
        "endless_pages",
        "huge_list",
    ] {
        let run = timed_scan(scenario);
        let out = String::from_utf8_lossy(&run.stdout);
        assert!(
            run.elapsed <= Duration::from_secs(3),
            "{scenario}: took {:?} with --timeout 2\n{out}",
            run.elapsed
        );
    }
}

/// A server whose error message is 7 MiB: the message is cut before it is laid out, its length
/// noted. (Apart from the deadline test above: on a loaded machine the server may not finish
/// writing 7 MiB within a 2 s timeout, and what this checks is the cut, not the clock.)
#[test]
fn a_huge_error_message_is_cut_before_it_is_laid_out() {
    let run = timed_scan_with("big_error", "30");
    let out = String::from_utf8_lossy(&run.stdout);
    assert!(
        out.contains("[truncated, 7340032 bytes]"),
        "{}",
        &out[..out.len().min(3000)]
    );
    assert!(run.stdout.len() < 64 * 1024, "{} bytes", run.stdout.len());
}

/// A server that lists 9,000 heavy tools quickly: the audit of what it sent counts against its
/// deadline, so `scan --timeout 8` ends within a window's audit of it (the bound leaves 2.5 s
/// for one window and the teardown on a loaded two-core machine; an audit with no deadline
/// runs well past it), and the report says the audit was cut short
/// (a debug build needs well over 10 s of CPU to audit these 15 MB of definitions) instead of
/// passing silently on a partial audit. (The timeout leaves the listing room on a loaded
/// machine; before, the audit ran after the listing with no deadline at all.)
#[test]
fn audit_of_a_live_server_counts_against_its_timeout() {
    let scene = Scene::new();
    let run = mcpvet(
        scene.path(),
        "heavy_tools",
        &[
            "scan",
            "--format",
            "json",
            "--timeout",
            "8",
            // The learned scorer rates this word salad ("… must should format …" in every
            // parameter) high on every tool; thousands of findings then take seconds to
            // report in a debug build. What is measured here is the audit's deadline, not
            // the report of its findings: keep them out (the scorer still runs).
            "--no-learned",
            "--",
            &python(),
            &script(),
            "heavy_tools",
        ],
    );
    let out = String::from_utf8_lossy(&run.stdout);
    let head = &out[..out.len().min(3000)];
    assert!(
        run.elapsed <= Duration::from_millis(10_500),
        "took {:?} with --timeout 8\n{head}",
        run.elapsed
    );
    let report: serde_json::Value = serde_json::from_slice(&run.stdout).unwrap_or_else(|e| {
        panic!(
            "not JSON ({e}): {head}\n{}",
            String::from_utf8_lossy(&run.stderr)
        )
    });
    let server = &report["servers"][0];
    assert_eq!(server["counts"]["tools"], 9000, "{head}");
    let cut: Vec<&serde_json::Value> = report["findings"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["rule"] == "audit-incomplete")
        .collect();
    assert_eq!(cut.len(), 1, "{head}");
    assert_eq!(cut[0]["severity"], "high");
    let message = cut[0]["message"].as_str().unwrap();
    assert!(message.contains("--timeout"), "{message}");
    assert_eq!(run.code, 1, "a cut audit fails the gate");
}
