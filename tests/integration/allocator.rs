//! Integration tests: the `mcpvet` binary's allocator, seen from outside on a running scan.
//!
//! mimalloc advised transparent huge pages (`MADV_HUGEPAGE`) over its whole arena, so each
//! first touch of a 2 MiB region made the kernel find and zero a whole huge page (about 45
//! per live scan of server-everything) and each purge split one again: random tenths of a
//! second of system time per scan on a busy machine, the bimodal `scan` of
//! `scripts/bench-handshake.sh`. The binary is now built with mimalloc's `no_thp` feature;
//! this pins it where it shows, in the memory map of a live `mcpvet scan` (Linux only).

#![cfg(target_os = "linux")]

use super::fixtures::{hostile_py, python};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// The mappings of process `pid` whose `VmFlags` carry `hg` (advised for huge pages), each
/// as its header line of `/proc/PID/smaps` (`None`: the map could not be read).
fn huge_page_advised(pid: u32) -> Option<Vec<String>> {
    let smaps = std::fs::read_to_string(format!("/proc/{pid}/smaps")).ok()?;
    let mut header = String::new();
    let mut out = Vec::new();
    for line in smaps.lines() {
        if let Some(flags) = line.strip_prefix("VmFlags:") {
            if flags.split_ascii_whitespace().any(|f| f == "hg") {
                out.push(header.clone());
            }
        } else if line
            .split_once(' ')
            .is_some_and(|(range, _)| range.contains('-') && !range.ends_with(':'))
        {
            header = line.to_owned();
        }
    }
    Some(out)
}

#[test]
fn a_live_scan_advises_no_huge_pages() {
    let dir = tempfile::tempdir().unwrap();
    let pids = dir.path().join("pids");
    // A server that reads and never answers: the scan waits for it (up to --timeout), with
    // its rules loaded and the audit's matchers being built meanwhile.
    let mut scan = Command::new(env!("CARGO_BIN_EXE_mcpvet"))
        .args([
            "scan",
            "--quiet",
            "--no-sandbox",
            "--no-policy",
            "--timeout",
            "120",
            "--format",
            "json",
            "-o",
        ])
        .arg(dir.path().join("report.json"))
        .arg("--")
        .arg(python())
        .arg(hostile_py())
        .arg("silence")
        .arg(&pids)
        .current_dir(dir.path())
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("mcpvet starts");
    // The server writes its pid once it runs: mcpvet's allocator and its rules thread are
    // up by then. (A bound against a hang, not a timing: the pid comes in milliseconds.)
    let until = Instant::now() + Duration::from_secs(60);
    let server: Option<i32> = loop {
        if let Some(pid) = std::fs::read_to_string(&pids).ok().and_then(|s| {
            // A whole line only: the server may be halfway through writing it.
            let line = s.split_inclusive('\n').next()?;
            line.strip_suffix('\n')?.trim().parse().ok()
        }) {
            break Some(pid);
        }
        if Instant::now() > until || scan.try_wait().unwrap().is_some() {
            break None;
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    let advised = server.and_then(|_| huge_page_advised(scan.id()));
    let _ = scan.kill();
    let _ = scan.wait();
    if let Some(pid) = server {
        let _ = nix::sys::signal::kill(
            nix::unistd::Pid::from_raw(pid),
            nix::sys::signal::Signal::SIGKILL,
        );
    }
    assert!(server.is_some(), "the server never started");
    let advised = advised.expect("mcpvet's memory map is readable while it scans");
    assert!(
        advised.is_empty(),
        "mappings advised for transparent huge pages: {advised:?}"
    );
}
