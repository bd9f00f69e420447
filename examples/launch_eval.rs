//! Run the launch rules over a JSONL file of real host-config entries and print counts per
//! rule, plus every finding, so false alarms can be reviewed.
//!
//! Usage: `cargo run --example launch_eval -- ../shared/corpus/configs-livemcpbench.jsonl`
//! Each line: `{"id": …, "config": {"mcpServers": {…}}}`.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use mcpvet::report::{eprint_line, write_stdout};

fn main() -> ExitCode {
    let Some(path) = std::env::args_os().nth(1).map(PathBuf::from) else {
        eprint_line("usage: launch_eval <configs.jsonl>");
        return ExitCode::from(2);
    };
    match run(&path) {
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

fn run(path: &Path) -> Result<String, String> {
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
            let findings = mcpvet::launch::audit_spec(spec);
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
    for meta in mcpvet::launch::rule_meta() {
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
    out.push_str("\nfindings:\n");
    out.push_str(&detail);
    Ok(out)
}
