//! Measure the definition audit on a labelled corpus (`../shared/corpus/`, see its README).
//!
//! ```text
//! cargo run --release --example corpus_eval -- ../shared/corpus [--fail-on high] [--show] [--findings] [--check] [--no-learned]
//! ```
//!
//! Every `*.jsonl` file whose records carry `label` and `tool` is measured twice:
//!
//! - **in-scan**: the whole file is one `mcpvet scan` — records are grouped into one server
//!   snapshot per `server` field (a record with an empty `server` is its own server), and all
//!   servers are audited together, as `mcpvet scan --offline FILE…` does with many snapshot
//!   files. Cross-server checks (name collisions, copied descriptions, cross-tool references)
//!   see the other servers of the file.
//! - **per-server**: every server is audited alone (no cross-server context at all): a
//!   record with an empty `server` sees nothing but itself.
//!
//! A tool counts as flagged when a finding about it reaches the gate (default: high).
//! Prints recall (malicious) and false-positive rate (benign) per file and per category;
//! `--show` lists every miss and every false alarm with its strongest finding (`--findings`
//! prints every finding of every pass, to see what made a verdict); `--check`
//! exits 1 unless in-scan recall ≥ 97 % and false-positive rate ≤ 2 % (`--check-per-server`:
//! the same bar, each server alone). Records with a `language` field are also counted per
//! language.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Instant;

use mcpvet::audit::{RuleSet, audit_snapshots};
use mcpvet::model::finding::{Finding, ItemKind, Severity};
use mcpvet::model::snapshot::ServerSnapshot;
use serde_json::Value;

struct Record {
    id: String,
    label: String,
    category: String,
    language: String,
    server: String,
    tool: Value,
}

fn out(s: &str) {
    let _ = mcpvet::report::write_stdout(s.as_bytes());
}

fn load(path: &Path) -> Result<Vec<Record>, String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
    let mut recs = Vec::new();
    for (n, line) in text.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        let v: Value =
            serde_json::from_str(line).map_err(|e| format!("{}:{}: {e}", path.display(), n + 1))?;
        let (Some(label), Some(tool)) = (v.get("label").and_then(Value::as_str), v.get("tool"))
        else {
            continue;
        };
        let s = |k: &str| v.get(k).and_then(Value::as_str).unwrap_or("").to_owned();
        recs.push(Record {
            id: s("id"),
            label: label.to_owned(),
            category: s("category"),
            language: s("language"),
            server: s("server"),
            tool: tool.clone(),
        });
    }
    Ok(recs)
}

/// Group records into snapshots; returns the snapshots and, per record, (server, tool index).
fn snapshots(recs: &[Record]) -> (Vec<ServerSnapshot>, Vec<(String, usize)>) {
    let mut snaps: Vec<ServerSnapshot> = Vec::new();
    let mut index: BTreeMap<String, usize> = BTreeMap::new();
    let mut pos = Vec::new();
    for r in recs {
        let name = if r.server.is_empty() {
            r.id.clone()
        } else {
            r.server.clone()
        };
        let si = *index.entry(name.clone()).or_insert_with(|| {
            snaps.push(ServerSnapshot {
                server: name.clone(),
                ..Default::default()
            });
            snaps.len() - 1
        });
        snaps[si].tools.push(r.tool.clone());
        pos.push((name, snaps[si].tools.len() - 1));
    }
    (snaps, pos)
}

/// The worst finding per (server, tool index).
fn worst(findings: &[Finding]) -> BTreeMap<(String, usize), &Finding> {
    let mut m: BTreeMap<(String, usize), &Finding> = BTreeMap::new();
    for f in findings {
        if f.item.as_ref().is_none_or(|i| i.kind != ItemKind::Tool) {
            continue;
        }
        let Some(idx) = f
            .location
            .pointer
            .as_deref()
            .and_then(|p| p.strip_prefix("/tools/"))
            .and_then(|p| p.split('/').next())
            .and_then(|n| n.parse::<usize>().ok())
        else {
            continue;
        };
        let key = (f.server.clone(), idx);
        if m.get(&key).is_none_or(|old| f.severity > old.severity) {
            m.insert(key, f);
        }
    }
    m
}

#[derive(Default)]
struct Tally {
    total: usize,
    flagged: usize,
}

impl Tally {
    fn pct(&self) -> f64 {
        if self.total == 0 {
            0.0
        } else {
            100.0 * self.flagged as f64 / self.total as f64
        }
    }
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let mut dir = PathBuf::from("../shared/corpus");
    let mut gate = Severity::High;
    let mut show = false;
    let mut all_findings = false;
    let mut no_learned = false;
    let mut check = false;
    let mut check_mode = "in-scan";
    let mut it = args.iter();
    while let Some(a) = it.next() {
        match a.as_str() {
            "--fail-on" => {
                gate = it
                    .next()
                    .and_then(|s| s.parse().ok())
                    .unwrap_or(Severity::High)
            }
            "--show" => show = true,
            "--findings" => all_findings = true,
            // Measure the rules alone: the learned scorer's findings are left out.
            "--no-learned" => no_learned = true,
            "--check" => check = true,
            "--check-per-server" => {
                check = true;
                check_mode = "per-server";
            }
            other => dir = PathBuf::from(other),
        }
    }
    let rules = match RuleSet::builtin() {
        Ok(r) => r,
        Err(e) => {
            mcpvet::report::eprint_line(&format!("error: {e}"));
            std::process::exit(2);
        }
    };
    let mut files: Vec<PathBuf> = match std::fs::read_dir(&dir) {
        Ok(rd) => rd
            .filter_map(Result::ok)
            .map(|e| e.path())
            .filter(|p| p.extension().is_some_and(|e| e == "jsonl"))
            .collect(),
        Err(e) => {
            mcpvet::report::eprint_line(&format!("error: cannot read {}: {e}", dir.display()));
            std::process::exit(2);
        }
    };
    files.sort();
    out(&format!(
        "corpus {} — a tool is flagged when a finding about it is >= {gate}\n",
        dir.display()
    ));
    let mut overall: BTreeMap<(&str, &str), Tally> = BTreeMap::new();
    let mut all_recs = Vec::new();
    for f in &files {
        match load(f) {
            Ok(r) if !r.is_empty() => all_recs.push((f.clone(), r)),
            Ok(_) => {}
            Err(e) => {
                mcpvet::report::eprint_line(&format!("error: {e}"));
                std::process::exit(2);
            }
        }
    }
    for mode in ["in-scan", "per-server"] {
        out(&format!("\n== {mode} ==\n"));
        let mut per_cat: BTreeMap<(String, String), Tally> = BTreeMap::new();
        let mut per_lang: BTreeMap<(String, String), Tally> = BTreeMap::new();
        for (path, recs) in &all_recs {
            let (snaps, pos) = snapshots(recs);
            let t0 = Instant::now();
            let findings = if mode == "in-scan" {
                audit_snapshots(&snaps, &rules)
            } else {
                snaps
                    .chunks(1)
                    .flat_map(|one| audit_snapshots(one, &rules))
                    .collect()
            };
            let elapsed = t0.elapsed();
            let findings: Vec<Finding> = if no_learned {
                findings
                    .into_iter()
                    .filter(|f| f.rule != "learned-intent-score")
                    .collect()
            } else {
                findings
            };
            let w = worst(&findings);
            if all_findings {
                for f in &findings {
                    out(&format!(
                        "FINDING {} {} {} at {} — {}\n",
                        f.severity,
                        f.rule,
                        f.message,
                        f.location.pointer.as_deref().unwrap_or("-"),
                        f.evidence.as_deref().unwrap_or("")
                    ));
                }
            }
            let mut file_tally = Tally::default();
            let label = recs.first().map_or("", |r| r.label.as_str());
            for (r, p) in recs.iter().zip(&pos) {
                let top = w.get(p);
                let flagged = top.is_some_and(|f| f.severity >= gate);
                file_tally.total += 1;
                file_tally.flagged += usize::from(flagged);
                let c = per_cat
                    .entry((r.label.clone(), r.category.clone()))
                    .or_default();
                c.total += 1;
                c.flagged += usize::from(flagged);
                if !r.language.is_empty() {
                    let l = per_lang
                        .entry((r.label.clone(), r.language.clone()))
                        .or_default();
                    l.total += 1;
                    l.flagged += usize::from(flagged);
                }
                let wrong = (r.label == "malicious") != flagged;
                if show && wrong {
                    let what = top.map_or("no finding".to_owned(), |f| {
                        format!(
                            "{} {} — {}",
                            f.severity,
                            f.rule,
                            f.evidence.clone().unwrap_or_default()
                        )
                    });
                    out(&format!(
                        "  {} [{}] {}: {}\n",
                        if r.label == "malicious" {
                            "MISS"
                        } else {
                            "FALSE ALARM"
                        },
                        r.category,
                        r.id,
                        what
                    ));
                }
            }
            let name = path
                .file_name()
                .map_or(String::new(), |n| n.to_string_lossy().into_owned());
            let what = if label == "malicious" {
                "recall"
            } else {
                "false-positive rate"
            };
            out(&format!(
                "{name}: {what} {:.1}% ({}/{}) [{} findings in {:.1} ms]\n",
                file_tally.pct(),
                file_tally.flagged,
                file_tally.total,
                findings.len(),
                elapsed.as_secs_f64() * 1000.0
            ));
            let key = (
                mode,
                if label == "malicious" {
                    "malicious"
                } else {
                    "benign"
                },
            );
            let o = overall.entry(key).or_default();
            o.total += file_tally.total;
            o.flagged += file_tally.flagged;
        }
        out("per category:\n");
        for ((label, cat), t) in &per_cat {
            out(&format!(
                "  {label:9} {cat:48} {:5.1}% flagged ({}/{})\n",
                t.pct(),
                t.flagged,
                t.total
            ));
        }
        if !per_lang.is_empty() {
            out("per language:\n");
            for ((label, lang), t) in &per_lang {
                out(&format!(
                    "  {label:9} {lang:48} {:5.1}% flagged ({}/{})\n",
                    t.pct(),
                    t.flagged,
                    t.total
                ));
            }
        }
    }
    out("\nsummary:\n");
    for ((mode, label), t) in &overall {
        let what = if *label == "malicious" {
            "recall"
        } else {
            "false-positive rate"
        };
        out(&format!(
            "  {mode:10} {label:9} {what} {:.1}% ({}/{})\n",
            t.pct(),
            t.flagged,
            t.total
        ));
    }
    if check {
        let recall = overall
            .get(&(check_mode, "malicious"))
            .map_or(0.0, Tally::pct);
        let fpr = overall.get(&(check_mode, "benign")).map_or(0.0, Tally::pct);
        if recall < 97.0 || fpr > 2.0 {
            mcpvet::report::eprint_line(&format!(
                "corpus check failed: recall {recall:.1}% (need >= 97), false-positive rate {fpr:.1}% (need <= 2)"
            ));
            std::process::exit(1);
        }
    }
}
