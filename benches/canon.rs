//! Throughput of RFC 8785 canonicalisation + sha256 over a generated, realistic corpus of
//! MCP server snapshots (tools with descriptions, nested input schemas, enums, defaults,
//! numbers, annotations, some non-ASCII text), and of building whole lockfiles from them.
//!
//! Run: `cargo bench --bench canon` (prints MB/s; no external harness).

#![allow(clippy::print_stdout, clippy::unwrap_used)]

use std::hint::black_box;
use std::time::{Duration, Instant};

use mcpvet::lock::{Approval, Lockfile, canonical_json, sha256_hex};
use mcpvet::model::snapshot::{Era, ServerSnapshot};
use serde_json::{Value, json};

/// A small deterministic generator (xorshift64*), so every run measures the same corpus.
struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
    fn pick<'a>(&mut self, xs: &[&'a str]) -> &'a str {
        xs[self.below(xs.len() as u64) as usize]
    }
}

const WORDS: &[&str] = &[
    "the",
    "build",
    "pipeline",
    "repository",
    "issue",
    "file",
    "path",
    "query",
    "result",
    "returns",
    "list",
    "of",
    "for",
    "a",
    "given",
    "when",
    "only",
    "read",
    "write",
    "search",
    "project",
    "branch",
    "commit",
    "user",
    "token",
    "page",
    "limit",
    "cursor",
    "status",
    "résumé",
    "naïve",
    "日本語",
    "données",
    "größe",
    "value",
    "optional",
    "required",
    "JSON",
];
const TYPES: &[&str] = &["string", "integer", "number", "boolean", "array", "object"];

fn sentence(r: &mut Rng, words: u64) -> String {
    let n = 4 + r.below(words);
    let mut s = String::new();
    for i in 0..n {
        if i > 0 {
            s.push(' ');
        }
        s.push_str(r.pick(WORDS));
    }
    s.push('.');
    s
}

fn property(r: &mut Rng, depth: u32) -> Value {
    let ty = if depth > 1 {
        r.pick(&TYPES[..4])
    } else {
        r.pick(TYPES)
    };
    let mut p = json!({"type": ty, "description": sentence(r, 14)});
    match ty {
        "string" if r.below(3) == 0 => {
            p["enum"] = json!([r.pick(WORDS), r.pick(WORDS), r.pick(WORDS)]);
        }
        "integer" => {
            p["minimum"] = json!(r.below(2));
            p["maximum"] = json!(10 + r.below(1000));
            p["default"] = json!(r.below(10) + 1);
        }
        "number" => {
            p["minimum"] = json!(0.0);
            p["maximum"] = json!((r.below(100_000) as f64) / 7.0);
        }
        "array" => p["items"] = property(r, depth + 1),
        "object" => {
            let mut props = serde_json::Map::new();
            for i in 0..(1 + r.below(4)) {
                props.insert(format!("{}_{i}", r.pick(WORDS)), property(r, depth + 1));
            }
            p["properties"] = Value::Object(props);
        }
        _ => {}
    }
    p
}

fn tool(r: &mut Rng, i: usize) -> Value {
    let mut props = serde_json::Map::new();
    let n = 1 + r.below(8);
    let mut required = Vec::new();
    for j in 0..n {
        let name = format!("{}_{j}", r.pick(WORDS));
        if r.below(2) == 0 {
            required.push(Value::String(name.clone()));
        }
        props.insert(name, property(r, 0));
    }
    let mut description = String::new();
    for _ in 0..(1 + r.below(6)) {
        description.push_str(&sentence(r, 20));
        description.push(' ');
    }
    json!({
        "name": format!("{}_{}_{i}", r.pick(WORDS), r.pick(WORDS)),
        "title": sentence(r, 3),
        "description": description.trim_end(),
        "inputSchema": {
            "type": "object",
            "properties": props,
            "required": required,
            "additionalProperties": r.below(2) == 0,
        },
        "annotations": {
            "readOnlyHint": r.below(2) == 0,
            "destructiveHint": r.below(4) == 0,
            "openWorldHint": r.below(2) == 0,
        }
    })
}

fn corpus() -> Vec<ServerSnapshot> {
    let mut r = Rng(0x5EED_1234_ABCD_0001);
    (0..400)
        .map(|s| ServerSnapshot {
            server: format!("server-{s}"),
            server_info: Some(json!({"name": format!("server-{s}"), "version": "1.2.3"})),
            era: Some(if s % 3 == 0 { Era::Legacy } else { Era::Modern }),
            protocol_version: Some("2026-07-28".into()),
            instructions: Some(sentence(&mut r, 40)),
            tools: (0..(5 + r.below(30) as usize))
                .map(|i| tool(&mut r, i))
                .collect(),
            ..Default::default()
        })
        .collect()
}

/// Run `f` repeatedly for about `budget`, return the best time of one pass.
fn best_of(budget: Duration, mut f: impl FnMut()) -> Duration {
    let start = Instant::now();
    let mut best = Duration::MAX;
    let mut runs = 0;
    while runs < 3 || start.elapsed() < budget {
        let t = Instant::now();
        f();
        best = best.min(t.elapsed());
        runs += 1;
    }
    best
}

fn mbps(bytes: usize, d: Duration) -> f64 {
    bytes as f64 / 1_000_000.0 / d.as_secs_f64()
}

fn main() {
    let snaps = corpus();
    let tools: Vec<&Value> = snaps.iter().flat_map(|s| s.tools.iter()).collect();
    let input_bytes: usize = tools.iter().map(|t| t.to_string().len()).sum();
    let canon_bytes: usize = tools.iter().map(|t| canonical_json(t).len()).sum();
    println!(
        "corpus: {} snapshots, {} tool definitions, {:.1} MB compact JSON ({:.1} MB canonical)",
        snaps.len(),
        tools.len(),
        input_bytes as f64 / 1e6,
        canon_bytes as f64 / 1e6
    );
    let budget = Duration::from_secs(3);

    let t = best_of(budget, || {
        for tool in &tools {
            black_box(canonical_json(black_box(tool)));
        }
    });
    println!(
        "canonicalise only:          {:7.1} MB/s ({:?} per pass)",
        mbps(input_bytes, t),
        t
    );

    let t = best_of(budget, || {
        for tool in &tools {
            black_box(sha256_hex(canonical_json(black_box(tool)).as_bytes()));
        }
    });
    println!(
        "canonicalise + sha256:      {:7.1} MB/s ({:?} per pass)",
        mbps(input_bytes, t),
        t
    );

    let t = best_of(budget, || {
        for s in &snaps {
            black_box(Lockfile::from_snapshot(
                s,
                None,
                Approval::new("bench", "2026-07-28T12:00:00Z"),
            ));
        }
    });
    println!(
        "whole lockfiles (per-item + aggregate hashes): {:7.1} MB/s ({:?} for {} servers)",
        mbps(input_bytes, t),
        t,
        snaps.len()
    );
}
