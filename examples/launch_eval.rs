//! Run the launch rules over a JSONL file of real host-config entries and print counts per
//! rule, plus every finding, so false alarms can be reviewed.
//!
//! Usage: `cargo run --example launch_eval -- ../shared/corpus/configs-livemcpbench.jsonl [--repeat N]`
//! Each line: `{"id": …, "config": {"mcpServers": {…}}}`. `--repeat N` parses and audits the
//! whole file N more times and reports the time per server (counts come from the first pass).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use mcpvet::report::{eprint_line, write_stdout};

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let Some(path) = args.first().map(PathBuf::from) else {
        eprint_line("usage: launch_eval <configs.jsonl> [--repeat N]");
        return ExitCode::from(2);
    };
    let repeat = match args
        .iter()
        .position(|a| a == "--repeat")
        .map(|i| args.get(i + 1).map(|n| n.parse::<usize>()))
    {
        None => 0,
        Some(Some(Ok(n))) => n,
        Some(_) => {
            eprint_line("--repeat needs a number");
            return ExitCode::from(2);
        }
    };
    match run(&path, repeat) {
        Ok(out) => {
            if write_stdout(out.as_bytes()).is_err() {
                return ExitCode::from(2);
            }
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprint_line(&format!("error: {e}"));
            ExitCode::from(2)
        }
    }
}

fn run(path: &Path, repeat: usize) -> Result<String, String> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    let mut per_rule: BTreeMap<String, usize> = BTreeMap::new();
    let mut per_severity: BTreeMap<String, usize> = BTreeMap::new();
    let (mut entries, mut servers, mut flagged) = (0usize, 0usize, 0usize);
    let mut detail = String::new();
    for (n, line) in text
        .lines()
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty())
    {
        let record: serde_json::Value =
            serde_json::from_str(line).map_err(|e| format!("{}:{}: {e}", path.display(), n + 1))?;
        let id = record
            .get("id")
            .and_then(|v| v.as_str())
            .unwrap_or("?")
            .to_string();
        let config = record
            .get("config")
            .ok_or_else(|| format!("{}:{}: no `config`", path.display(), n + 1))?;
        let body = serde_json::to_string_pretty(config).map_err(|e| e.to_string())?;
        let specs = mcpvet::config::load_str(&PathBuf::from(format!("{id}.json")), &body)
            .map_err(|e| e.to_string())?;
        entries += 1;
        for spec in &specs {
            servers += 1;
            let findings = mcpvet::launch_audit::audit_spec(spec);
            if !findings.is_empty() {
                flagged += 1;
            }
            for f in findings {
                *per_rule.entry(f.rule.clone()).or_default() += 1;
                *per_severity.entry(f.severity.to_string()).or_default() += 1;
                detail.push_str(&format!(
                    "{:<8} {:<18} {:<28} {}\n",
                    f.severity,
                    f.rule,
                    spec.name,
                    f.evidence.as_deref().unwrap_or(&f.message)
                ));
            }
        }
    }
    let mut out = format!(
        "{entries} config entries, {servers} servers, {flagged} with at least one finding\n\nper rule:\n"
    );
    for meta in mcpvet::launch_audit::rule_meta() {
        out.push_str(&format!(
            "  {:<20} {}\n",
            meta.id,
            per_rule.get(&meta.id).copied().unwrap_or(0)
        ));
    }
    out.push_str("per severity:\n");
    for (s, c) in &per_severity {
        out.push_str(&format!("  {s:<20} {c}\n"));
    }
    if repeat > 0 {
        let start = std::time::Instant::now();
        let mut audited = 0usize;
        let mut count = 0usize;
        for _ in 0..repeat {
            for line in text.lines().filter(|l| !l.trim().is_empty()) {
                let record: serde_json::Value =
                    serde_json::from_str(line).map_err(|e| e.to_string())?;
                let body =
                    serde_json::to_string_pretty(&record["config"]).map_err(|e| e.to_string())?;
                let specs = mcpvet::config::load_str(Path::new("x.json"), &body)
                    .map_err(|e| e.to_string())?;
                for spec in &specs {
                    audited += 1;
                    count += mcpvet::launch_audit::audit_spec(spec).len();
                }
            }
        }
        let elapsed = start.elapsed();
        out.push_str(&format!(
            "\ntiming: {audited} servers parsed and audited ({count} findings) in {:.1} ms, {:.2} µs per server\n",
            elapsed.as_secs_f64() * 1e3,
            elapsed.as_secs_f64() * 1e6 / audited.max(1) as f64
        ));
    }
    out.push_str("\nfindings:\n");
    out.push_str(&detail);
    Ok(out)
}
