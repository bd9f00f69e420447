//! The definition audit: rules over what servers show the model (tool, prompt and resource
//! definitions and server instructions) that produce [`finding::Finding`]s.
//!
//! - [`walk`] lists every string of a snapshot with its JSON Pointer and kind.
//! - [`text`] prepares each string once: hidden Unicode decoded for matching, made visible
//!   for evidence.
//! - [`pattern`] loads the TOML pattern rules (`rules/*.toml`, embedded; `--rules DIR`).
//! - [`checks`] holds the coded checks, one per file.
//! - [`score`] is the learned scorer over the evidence the rules and the intent analysis found.
//! - [`engine`] runs everything and combines the evidence of each item into severity and
//!   confidence.
//!
//! Entry points: [`RuleSet::builtin`], [`RuleSet::extend_from_dir`], [`audit_snapshots`],
//! [`definition_rules`].

pub mod checks;
pub mod clause;
pub mod engine;
pub mod lexicon;
pub mod output;
pub mod pattern;
pub mod score;
pub mod text;
pub mod walk;

pub use engine::{audit_snapshots, try_audit_snapshots};
pub use pattern::RuleSet;

use crate::model::finding::RuleMeta;

/// Why rules could not be loaded.
#[derive(Debug, thiserror::Error)]
pub enum AuditError {
    #[error("cannot read rules {path}: {source}")]
    Io {
        path: String,
        #[source]
        source: std::io::Error,
    },
    #[error("rule file {file} is not valid TOML: {message}")]
    Toml { file: String, message: String },
    #[error("rule file {file}, id `{id}`, field `{field}`: {problem}")]
    Rule {
        file: String,
        id: String,
        field: String,
        problem: String,
    },
}

/// Documentation of every definition rule: the pattern-rule families (from the built-in
/// TOML files) and the coded checks. Sorted by id.
pub fn definition_rules() -> Vec<RuleMeta> {
    let mut out = checks::coded_rule_docs();
    out.extend(engine::engine_rule_docs());
    if let Ok(docs) = RuleSet::builtin_docs() {
        out.extend(docs);
    }
    out.sort_by(|a, b| a.id.cmp(&b.id));
    out
}

/// Build what the audit otherwise builds on first use, by auditing small made-up tools and
/// discarding the result: first what every server needs (the Latin-script lexicons, the coded
/// checks' expressions, the patterns an ordinary tool meets), then what the first string
/// that is not ASCII needs — an en dash, a curly quote or an emoji is enough, and most real
/// servers have one — the checks' Unicode-mode expressions and the widened pattern set (about
/// 13 ms of CPU; the Unicode-mode set it replaced took 55 ms). A live scan runs it on a thread
/// of its own while the servers start, so the work is done, or under way, before their answers
/// arrive; left to the first non-ASCII string, it lands after the last answer, on the scan's
/// own time (server-everything: +57 ms over the floor client without it, with the Unicode-mode
/// set; paired medians in README).
/// What only a few servers need stays lazy: the lexicons of other scripts, the regex of a
/// secret format.
pub fn warm_up(rules: &RuleSet) {
    let tool = |description: &str| {
        serde_json::json!({
            "name": "read_file",
            "title": "Read a file",
            "description": description,
            "inputSchema": {
                "type": "object",
                "properties": {
                    "path": {"type": "string", "description": "Path of the file to read"},
                    "url": {"type": "string", "format": "uri"},
                    "command": {"type": "string", "enum": ["cat", "head"]}
                },
                "required": ["path"]
            },
            "annotations": {"readOnlyHint": true}
        })
    };
    for description in [
        "Reads a file from the project and returns its text. Use it before editing; do not \
         send the contents anywhere else.",
        "Reads a file \u{2013} its text, as stored; a caf\u{e9}\u{2019}s menu \u{1f389}.",
    ] {
        let snap = crate::model::snapshot::ServerSnapshot {
            server: "warm-up".into(),
            instructions: Some("Use read_file to read files.".into()),
            tools: vec![tool(description)],
            ..crate::model::snapshot::ServerSnapshot::default()
        };
        drop(engine::audit_snapshots(std::slice::from_ref(&snap), rules));
    }
    // Expressions the made-up tools do not reach (another tool named in a clause, a template
    // in a default, a secret in evidence): built on first use, they landed after the last
    // answer, on the scan's own time (a profile of server-everything's scan found them there).
    checks::intent::warm_up();
    checks::side_effect_command::warm_up();
    checks::exfil_params::warm_up();
    checks::encoded_payload::warm_up();
    output::warm_up();
    crate::model::secrets::warm_up();
    crate::model::redact::warm_up();
    rules.build_non_ascii_set();
}

/// Documentation of every rule a given rule set reports (built-in and `--rules DIR`).
pub fn rules_of(rules: &RuleSet) -> Vec<RuleMeta> {
    let mut out = checks::coded_rule_docs();
    out.extend(engine::engine_rule_docs());
    out.extend(rules.docs().iter().cloned());
    out.sort_by(|a, b| a.id.cmp(&b.id));
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_rule_is_documented_once_with_kebab_ids() {
        let rules = definition_rules();
        let mut seen = std::collections::HashSet::new();
        for r in &rules {
            assert!(seen.insert(r.id.clone()), "duplicate {}", r.id);
            assert!(
                r.id.chars()
                    .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-'),
                "{}",
                r.id
            );
            assert!(!r.summary.is_empty() && !r.why.is_empty() && !r.example.is_empty());
            assert_eq!(r.family, "definition");
        }
        for id in [
            "hidden-instructions",
            "concealment",
            "sensitive-file-reference",
            "cross-tool-instruction",
            "exfiltration-channel",
            "invisible-unicode",
            "confusable-name",
            "encoded-payload",
            "preference-manipulation",
            "readonly-claim-mismatch",
            "shell-execution-tool",
            "network-schema-ref",
            "secret-parameter",
            "open-input-schema",
            "tool-name-collision",
            "oversized-definition",
            "embedded-command",
            "duplicate-tool-definition",
        ] {
            assert!(seen.contains(id), "missing {id}");
        }
    }
}
