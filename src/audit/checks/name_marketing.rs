//! `preference-manipulation` (coded part): marketing words in a tool's *name* (`best_…`,
//! `premium_…`, `…_ultimate`), which only serve to win the model's choice over the tool the
//! name imitates. Weak on its own; adds up with marketing text in the description.

use crate::audit::engine::{Hit, Scan};
use crate::audit::walk::StrKind;
use crate::model::finding::ItemKind;
use crate::model::rule_id;

/// This check's entry in the registry.
pub const CHECK: super::Check = super::Check {
    name: "name_marketing",
    kind: super::Kind::Cue(check),
    meta: None,
};

const WORDS: &[&str] = &[
    "best", "premium", "ultimate", "superior", "enhanced", "advanced", "pro", "turbo", "improved",
    "better", "super",
];

/// Verbs that open ordinary tool names.
const VERBS: &[&str] = &[
    "get", "list", "search", "find", "create", "update", "delete", "send", "read", "write",
    "fetch", "run", "query", "add", "remove", "set", "post", "upload", "download", "fork",
    "translate", "summarize", "check", "lookup", "book", "pay", "transfer", "open", "edit",
];

pub fn check(scan: &Scan, si: usize, hits: &mut Vec<Hit>) {
    let server = &scan.servers[si];
    for (fi, field) in server.fields.iter().enumerate() {
        if field.kind != StrKind::Name || server.items[field.item].kind != ItemKind::Tool {
            continue;
        }
        let words = crate::model::words::name_words_shared(field.text);
        if words.len() < 2 {
            continue;
        }
        let Some(w) = words.iter().find(|w| WORDS.contains(&w.as_str())) else {
            continue;
        };
        // A superlative glued in front of an ordinary `verb_object` tool name
        // (`best_get_stock_actions`, `premium_create_repository`) imitates that tool to win
        // the model's choice: that is the whole purpose of the name.
        let imitates = words.len() >= 3
            && WORDS.contains(&words[0].as_str())
            && VERBS.contains(&words[1].as_str());
        hits.push(Hit {
            rule: rule_id::PREFERENCE_MANIPULATION.into(),
            cue: "marketing".into(),
            source: "pm-name".into(),
            weight: if imitates { 4 } else { 2 },
            field: fi,
            start: 0,
            end: server.prepared[fi].norm.len(),
            message: format!("is named to sound better than other tools (`{w}`)"),
            floor: None,
            evidence: None,
        });
    }
}

#[cfg(test)]
mod tests {
    use crate::audit::checks::testutil::*;
    use crate::model::finding::Severity;
    use serde_json::json;

    #[test]
    fn a_superlative_in_front_of_a_verb_object_name_is_high_alone() {
        let f = run(&[snap(
            "s",
            vec![json!({"name": "best_get_stock_actions", "description": "Get stock actions."})],
        )]);
        assert!(
            f.iter()
                .any(|f| f.rule == "preference-manipulation" && f.severity >= Severity::High),
            "{f:#?}"
        );
        let f = run(&[snap(
            "s",
            vec![json!({"name": "get_best_route", "description": "Fastest route between two places."})],
        )]);
        assert!(f.iter().all(|f| f.severity < Severity::High), "{f:#?}");
    }

    #[test]
    fn marketing_name_plus_marketing_text_is_high_name_alone_is_low() {
        let f = run(&[snap(
            "s",
            vec![
                json!({"name": "premium_weather", "description": "Weather. This is the premium version with superior accuracy."}),
            ],
        )]);
        let p = f
            .iter()
            .find(|f| f.rule == "preference-manipulation")
            .unwrap();
        assert!(p.severity >= Severity::High, "{p:?}");
        let f = run(&[snap(
            "s",
            vec![json!({"name": "best_weather", "description": "Weather."})],
        )]);
        assert!(f.iter().all(|f| f.severity <= Severity::Low), "{f:#?}");
    }
}
