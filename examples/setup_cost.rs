//! What the definition audit costs to set up, part by part, in CPU time of one thread: the
//! rule load, the rule catalog, the first audit of each given snapshot beyond what auditing it
//! again costs (the matchers it built on first use), and what `audit::warm_up` (the live
//! scan's warm-up thread) builds beyond that, then what the first non-ASCII string builds
//! beyond all of it (`audit::warm_up_non_ascii`: the widened pattern set and the checks'
//! matchers over such text, left out of the warm-up). Each run is a fresh process (everything
//! is built once per process); medians of the runs are printed.
//!
//! ```text
//! cargo run --release --example setup_cost -- [--runs N] SNAPSHOT.json…
//! cargo run --release --example setup_cost -- --warm-only [--runs N]
//! ```
//!
//! `SETUP_COST_SPLIT=1`: build the Latin lexicons and the Unicode-mode pattern set first, each
//! timed on its own. `--warm-only`: the rule load, then `audit::warm_up` alone (what a live
//! scan's second thread spends while the server starts), then the first non-ASCII string.

// It prints figures, like the benchmarks.
#![allow(clippy::print_stdout)]

use std::path::PathBuf;
use std::process::Command;

use mcpvet::audit::{self, RuleSet};
use mcpvet::model::snapshot::ServerSnapshot;

/// CPU time of this thread, in milliseconds.
fn cpu_ms() -> f64 {
    nix::time::clock_gettime(nix::time::ClockId::CLOCK_THREAD_CPUTIME_ID)
        .map(|t| t.tv_sec() as f64 * 1e3 + t.tv_nsec() as f64 / 1e6)
        .unwrap_or(0.0)
}

fn timed<T>(parts: &mut Vec<(String, f64)>, name: &str, f: impl FnOnce() -> T) -> T {
    let t = cpu_ms();
    let out = f();
    parts.push((name.to_owned(), cpu_ms() - t));
    out
}

/// One run in this process: prints `part<TAB>ms` lines.
fn child(warm_only: bool, files: &[PathBuf]) -> anyhow::Result<()> {
    let mut parts = Vec::new();
    let rules = timed(&mut parts, "rule load", RuleSet::builtin)?;
    timed(&mut parts, "catalog", mcpvet::catalog::catalog);
    if warm_only {
        timed(&mut parts, "warm_up", || audit::warm_up(&rules));
        timed(&mut parts, "first non-ASCII string beyond that", || {
            audit::warm_up_non_ascii(&rules)
        });
    } else {
        if std::env::var_os("SETUP_COST_SPLIT").is_some() {
            timed(&mut parts, "lexicons (Latin)", || {
                audit::lexicon::Lexicon::builtin().map(|l| l.find("read a file").len())
            })?;
            timed(&mut parts, "pattern set for non-ASCII text", || {
                rules.build_non_ascii_set()
            });
        }
        for f in files {
            let snap = ServerSnapshot::load(f)?;
            let name = f.file_name().map(|n| n.to_string_lossy().into_owned());
            let name = name.unwrap_or_default();
            let first = timed(&mut parts, "-", || {
                audit::audit_snapshots(std::slice::from_ref(&snap), &rules).len()
            });
            let again = timed(&mut parts, "-", || {
                audit::audit_snapshots(std::slice::from_ref(&snap), &rules).len()
            });
            anyhow::ensure!(first == again, "{name}: findings differ between runs");
            let again_ms = parts.pop().map_or(0.0, |p| p.1);
            let first_ms = parts.pop().map_or(0.0, |p| p.1);
            parts.push((format!("{name}: audit"), again_ms));
            parts.push((format!("{name}: set-up on first use"), first_ms - again_ms));
        }
        timed(&mut parts, "warm_up beyond that", || audit::warm_up(&rules));
        timed(&mut parts, "non-ASCII set-up beyond that", || {
            audit::warm_up_non_ascii(&rules)
        });
    }
    for (name, ms) in parts {
        println!("{name}\t{ms:.3}");
    }
    Ok(())
}

fn main() -> anyhow::Result<()> {
    let mut args: Vec<String> = std::env::args().skip(1).collect();
    if args.first().map(String::as_str) == Some("--child") {
        let warm_only = args.get(1).map(String::as_str) == Some("--warm-only");
        let files: Vec<PathBuf> = args.iter().skip(2).map(PathBuf::from).collect();
        return child(warm_only, &files);
    }
    let mut runs = 21;
    if let Some(i) = args.iter().position(|a| a == "--runs") {
        runs = args.get(i + 1).and_then(|n| n.parse().ok()).unwrap_or(runs);
        args.drain(i..(i + 2).min(args.len()));
    }
    let warm_only = args.iter().any(|a| a == "--warm-only");
    args.retain(|a| a != "--warm-only");
    let me = std::env::current_exe()?;
    let mut names: Vec<String> = Vec::new();
    let mut samples: Vec<Vec<f64>> = Vec::new();
    for _ in 0..runs {
        let out = Command::new(&me)
            .arg("--child")
            .arg(if warm_only { "--warm-only" } else { "--files" })
            .args(&args)
            .output()?;
        anyhow::ensure!(
            out.status.success(),
            "run failed: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        let mut total = 0.0;
        for (i, line) in String::from_utf8_lossy(&out.stdout).lines().enumerate() {
            let (name, ms) = line.split_once('\t').unwrap_or((line, "0"));
            let ms: f64 = ms.parse().unwrap_or(0.0);
            if !name.ends_with(": audit") {
                total += ms;
            }
            if names.len() <= i {
                names.push(name.to_owned());
                samples.push(Vec::new());
            }
            samples[i].push(ms);
        }
        let i = names.len();
        if names.iter().all(|n| n != "set-up in all") {
            names.push("set-up in all".into());
            samples.push(Vec::new());
        }
        let at = names.iter().position(|n| n == "set-up in all").unwrap_or(i);
        samples[at].push(total);
    }
    println!("{runs} fresh processes, thread CPU time, ms: median [min–max]");
    for (name, xs) in names.iter().zip(samples.iter_mut()) {
        xs.sort_by(f64::total_cmp);
        let med = xs[xs.len() / 2];
        println!(
            "  {name:<40} {med:8.2} [{:.2}–{:.2}]",
            xs[0],
            xs[xs.len() - 1]
        );
    }
    Ok(())
}
