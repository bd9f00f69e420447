//! `duplicate-tool-definition`: a tool whose description is the same (after folding case and
//! whitespace) as that of a differently named tool of another server in the scan — a copy
//! placed to overlap with, and draw calls away from, the original (function overlapping).

use crate::model::pointer::Field as _;
use std::collections::HashMap;

use serde_json::Value;

use crate::audit::engine::Scan;
use crate::model::finding::{Confidence, Control, Finding, ItemKind, RuleMeta, Severity};
use crate::model::rule_id;

/// Descriptions shorter than this (characters, folded) are too generic to compare.
pub const MIN_LEN: usize = 40;

pub fn meta() -> RuleMeta {
    super::meta(
        rule_id::DUPLICATE_TOOL_DEFINITION,
        "A tool copies the description of a differently named tool of another server in the same scan.",
        "Function overlapping: a look-alike tool with the same description competes with the original for the model's calls, then does something else.",
        "server A: search — \"A tool to execute the Google search…\"; server B: search_web with the same description",
        Severity::High,
        Confidence::Medium,
        Control::Allowlist,
    )
}

/// This check's entry in the registry.
pub const CHECK: super::Check = super::Check {
    name: "duplicate_definition",
    kind: super::Kind::Scan(check),
    meta: Some(meta),
};

fn folded(desc: &str) -> String {
    if desc.is_ascii() {
        return folded_ascii(desc);
    }
    folded_by_words(desc)
}

/// [`folded`] of ASCII text in one pass over its bytes: runs of whitespace (the ASCII
/// characters `char::is_whitespace` knows: tab, line feed, vertical tab, form feed, carriage
/// return, space) become one space, none at either end, letters lower case.
fn folded_ascii(desc: &str) -> String {
    let mut out: Vec<u8> = Vec::with_capacity(desc.len());
    for word in desc
        .as_bytes()
        .split(|b| matches!(b, b'\t'..=b'\r' | b' '))
        .filter(|w| !w.is_empty())
    {
        if !out.is_empty() {
            out.push(b' ');
        }
        out.extend_from_slice(word);
    }
    out.make_ascii_lowercase();
    // (ASCII in, ASCII out.)
    String::from_utf8(out).unwrap_or_default()
}

/// [`folded`] as written first, word by word: for text that is not ASCII, and the property
/// test's oracle.
fn folded_by_words(desc: &str) -> String {
    // The words joined by one space (as `join` would, without a list of them), lower case.
    let mut joined = String::with_capacity(desc.len());
    for word in desc.split_whitespace() {
        if !joined.is_empty() {
            joined.push(' ');
        }
        joined.push_str(word);
    }
    joined.to_lowercase()
}

/// A hash of a tool definition's folded description when it is long enough to compare: the
/// engine keeps the description ([`crate::audit::engine::ItemSummary`]) only for a tool whose
/// hash another tool shares, since only those can be in a group of two.
pub fn folded_hash(tool: &Value) -> Option<u64> {
    use std::hash::{Hash, Hasher};
    let f = folded(tool.field("description").and_then(Value::as_str)?);
    if f.chars().count() < MIN_LEN {
        return None;
    }
    let mut h = std::collections::hash_map::DefaultHasher::new();
    f.hash(&mut h);
    Some(h.finish())
}

/// The description the engine kept of item `ii` of server `si`.
fn description<'s>(scan: &'s Scan, si: usize, ii: usize) -> Option<&'s str> {
    scan.servers[si]
        .summaries
        .get(ii)
        .and_then(|s| s.description.as_deref())
}

pub fn check(scan: &Scan, out: &mut Vec<Finding>) {
    let mut by_desc: HashMap<String, Vec<(usize, usize)>> = HashMap::new();
    for (si, s) in scan.servers.iter().enumerate() {
        for (ii, item) in s.items.iter().enumerate() {
            if item.kind != ItemKind::Tool {
                continue;
            }
            let Some(d) = description(scan, si, ii) else {
                continue;
            };
            let f = folded(d);
            if f.chars().count() >= MIN_LEN {
                by_desc.entry(f).or_default().push((si, ii));
            }
        }
    }
    for group in by_desc.values() {
        if group.len() < 2 {
            continue;
        }
        for &(si, ii) in group {
            let item = &scan.servers[si].items[ii];
            // Bounded search: a hostile scan can repeat one description thousands of times.
            let Some(&(osi, oii)) = group
                .iter()
                .take(64)
                .find(|&&(osi, oii)| osi != si && scan.servers[osi].items[oii].name != item.name)
            else {
                continue;
            };
            let other = &scan.servers[osi];
            let oname = &other.items[oii].name;
            let desc = description(scan, si, ii).unwrap_or("");
            out.push(super::item_finding(scan, si, ii, super::Emit {
rule: rule_id::DUPLICATE_TOOL_DEFINITION,
severity: Severity::High,
confidence: Confidence::Medium,
pointer: format!("{}/description", item.pointer),
message: format!(
                    "tool `{}` has the same description as `{oname}` of server `{}`",
                    item.name, other.snap.server
                ),
evidence: Some(crate::audit::text::clip(desc, 120)),
control: Control::Allowlist,
}));
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::audit::checks::testutil::*;
    use proptest::prelude::*;
    use serde_json::json;

    proptest! {
        /// The one-pass fold of ASCII text is the fold word by word.
        #[test]
        fn ascii_text_folds_as_word_by_word(desc in "[a-zA-Z0-9 \t\n\x0b\x0c\r.,_\x1c\x1f-]{0,80}") {
            prop_assert_eq!(super::folded_ascii(&desc), super::folded_by_words(&desc));
            prop_assert_eq!(super::folded(&desc), super::folded_by_words(&desc));
        }
    }

    #[test]
    fn copied_description_under_another_name_is_flagged() {
        let d = "A tool to execute a web search and return the top results.";
        let a = snap("a", vec![json!({"name": "search", "description": d})]);
        let b = snap("b", vec![json!({"name": "search_web", "description": d})]);
        let c = snap("c", vec![json!({"name": "search", "description": d})]);
        let f = run(&[a, b, c]);
        let dup: Vec<_> = f
            .iter()
            .filter(|f| f.rule == "duplicate-tool-definition")
            .collect();
        assert_eq!(dup.len(), 3, "{f:#?}");
        // Same server, same description: not reported.
        let f = run(&[snap(
            "a",
            vec![
                json!({"name": "x", "description": d}),
                json!({"name": "y", "description": d}),
            ],
        )]);
        assert!(f.is_empty());
    }
}
